/*
 * The search kind (coordinator/search/kind.c) in process, so that the sanitizers see every
 * allocation of a search run from its Submit to its answer and through a restore: a
 * coordinator of coord_fixture.h and a scripted search worker (a DEALER in a czmq actor)
 * that answers each job with a one-move line, its job's move, at the depth asked, with a
 * score of its own (below), so that the answer's order can be checked against an
 * independent sort here.
 *   answer   startpos depth 3: 20 lines, sorted by score, SAN by the rule engine, nodes the
 *            sum of the jobs';
 *   huge_nodes  a worker's count of 2^64 - 1: the run's total exact in 128 bits;
 *   restore  the worker answers 5 jobs and holds the rest: the run's RunProgress.search
 *            shows those 5 to its owner, a StatusReply lists the run without lines; the
 *            coordinator stops (the run stays in its state file) and starts again on it;
 *            the same request resumes the run: 5 lines read back, 15 computed, the answer
 *            the same as a fresh run's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <czmq.h>

#include "coord_fixture.h"
#include "envelope.h"
#include "util/log.h"

/* The scripted worker's score of a root move: a spread of values that differ for the 20
 * moves of the start position (checked below by the answer's order). */
static int score_of(const char *uci)
{
    return (uci[0] - 'a') * 37 + (uci[1] - '1') * 11 + (uci[2] - 'a') * 5 + (uci[3] - '1') * 3 -
           100;
}

typedef struct sworker {
    char endpoint[256];
    int answer_max;       /* answer this many jobs, hold the rest */
    uint64_t first_nodes; /* the node count of its first answer (0: 100, as the others) */
    _Atomic int answered;
    zactor_t *actor;
} sworker_t;

static void send_msg(zsock_t *d, ply_msg_t *m)
{
    assert_int_equal(ply_msg_send(d, m), 0);
}

static void answer(zsock_t *d, const Ply__Job *job, uint64_t nodes)
{
    char *pv[1] = {job->search->searchmoves[0]};
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT, *lp[] = {&l};
    l.has_multipv = 1, l.multipv = 1;
    l.has_score_cp = 1, l.score_cp = score_of(pv[0]);
    l.has_bound = 1, l.has_depth = 1, l.depth = job->search->depth, l.has_seldepth = 1;
    l.n_pv = 1, l.pv = pv;
    Ply__SearchResult sr = PLY__SEARCH_RESULT__INIT;
    sr.n_lines = 1, sr.lines = lp;
    sr.has_nodes = 1, sr.nodes = nodes, sr.has_time_us = 1, sr.time_us = 10;
    sr.engine = "scripted";
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = job->job_id;
    r.has_attempt = 1, r.attempt = job->attempt;
    r.has_time_us = 1, r.time_us = 10;
    r.search = &sr;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT, m.result = &r;
    send_msg(d, &m);
}

static void sworker_actor(zsock_t *pipe, void *arg)
{
    sworker_t *w = arg;
    zsock_t *d = zsock_new_dealer(w->endpoint);
    uint32_t kinds[] = {PLY__JOB_KIND__JOB_KIND_SEARCH};
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = "scripted";
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    h.n_kinds = 1, h.kinds = kinds;
    h.engine = "builtin";
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO, m.hello = &h;
    send_msg(d, &m);
    Ply__Ready ready = PLY__READY__INIT;
    ready.has_credit = 1, ready.credit = 64;
    m.body_case = PLY__MESSAGE__BODY_READY, m.ready = &ready;
    send_msg(d, &m);
    zsock_signal(pipe, 0);
    zpoller_t *poller = zpoller_new(pipe, d, NULL);
    for (;;) {
        void *which = zpoller_wait(poller, 50);
        if (which == pipe) break;
        if (which == d) {
            ply_msg_t *msg = NULL;
            if (ply_msg_recv(d, &msg, NULL, 0) == 0 && msg->body_case == PLY__MESSAGE__BODY_JOB &&
                w->answered < w->answer_max) {
                answer(d, msg->job, !w->answered && w->first_nodes ? w->first_nodes : 100);
                w->answered++;
            }
            ply_msg_free(&msg);
        }
        Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
        hb.has_nodes = 1, hb.nodes = (uint64_t)zclock_mono();
        m.body_case = PLY__MESSAGE__BODY_HEARTBEAT, m.heartbeat = &hb;
        ply_msg_send(d, &m);
    }
    zpoller_destroy(&poller);
    zsock_destroy(&d);
}

static void sworker_start(sworker_t *w, const char *endpoint, int answer_max, uint64_t first_nodes)
{
    memset(w, 0, sizeof *w);
    snprintf(w->endpoint, sizeof w->endpoint, "%s", endpoint);
    w->answer_max = answer_max;
    w->first_nodes = first_nodes;
    w->actor = zactor_new(sworker_actor, w);
    assert_non_null(w->actor);
}

/* Submits startpos depth 3 and waits for its answer. */
static Ply__RunResult *search_startpos(const char *endpoint)
{
    ply_client_t *c = ply_client_new(endpoint, NULL, 0);
    assert_non_null(c);
    ply_search_request_t req = {.fen = "startpos", .depth = 3, .engine = "builtin"};
    Ply__Accepted *a = NULL;
    char why[512];
    if (ply_client_submit_search(c, &req, 10000, &a, why, sizeof why) != 0)
        fail_msg("submit: %s", why);
    Ply__RunResult *res = NULL;
    if (ply_client_wait(c, a->run_id, NULL, NULL, 20000, &res, why, sizeof why) != 0)
        fail_msg("wait: %s", why);
    ply__accepted__free_unpacked(a, NULL);
    ply_client_destroy(&c);
    return res;
}

static int cmp_int_desc(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

/* The answer of startpos depth 3 from the scripted worker: every move, sorted by score. */
static void check_startpos(const Ply__RunResult *res)
{
    const Ply__SearchAnswer *s = res->search;
    assert_non_null(s);
    assert_int_equal(s->n_moves, 20);
    assert_int_equal(s->replayed, 20);
    assert_int_equal(s->rejected, 0);
    assert_true(res->nodes == 2000 && s->nodes == 2000);
    int want[20];
    for (int i = 0; i < 20; i++) want[i] = score_of(s->moves[i]->move);
    qsort(want, 20, sizeof want[0], cmp_int_desc);
    for (int i = 0; i < 20; i++) {
        const Ply__AnalysedMove *a = s->moves[i];
        assert_int_equal(a->line->score_cp, want[i]);
        assert_string_equal(a->line->pv[0], a->move);
        assert_non_null(a->san);
        assert_int_equal(a->n_pv_san, 1);
        assert_string_equal(a->pv_san[0], a->san);
        assert_string_equal(a->engine, "scripted");
        assert_string_equal(a->worker_id, "scripted");
    }
    /* SAN by the rule engine: the knight moves and the pawn double steps */
    int knights = 0;
    for (int i = 0; i < 20; i++) knights += s->moves[i]->san[0] == 'N';
    assert_int_equal(knights, 4);
}

static void test_answer(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    sworker_t w;
    sworker_start(&w, t->endpoint, 1000, 0);
    coord_wait_joined(t, 1);
    Ply__RunResult *res = search_startpos(t->endpoint);
    check_startpos(res);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&w.actor);
    coord_stop(&t);
}

/*
 * A worker's node count is its word, but the run's total stays exact: 2^64 - 1 and 19 x 100
 * is 2^64 + 1899, in nodes and nodes_hi (the SearchAnswer, which has no high word, leaves
 * its total out rather than wrap it).
 */
static void test_huge_nodes(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    sworker_t w;
    sworker_start(&w, t->endpoint, 1000, UINT64_MAX);
    coord_wait_joined(t, 1);
    Ply__RunResult *res = search_startpos(t->endpoint);
    assert_int_equal(res->search->n_moves, 20);
    assert_true(res->nodes == 1899 && res->has_nodes_hi && res->nodes_hi == 1);
    assert_false(res->search->has_nodes);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&w.actor);
    coord_stop(&t);
}

static void test_restore(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-test-search-kind-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    coord_t *t = coord_start("inproc", NULL, path);
    sworker_t w;
    sworker_start(&w, t->endpoint, 5, 0);
    coord_wait_joined(t, 1);
    /* submit, let 5 lines in, and stop the coordinator under the waiting client */
    ply_client_t *c = ply_client_new(t->endpoint, NULL, 0);
    ply_search_request_t req = {.fen = "startpos", .depth = 3, .engine = "builtin"};
    Ply__Accepted *a = NULL;
    char why[512];
    assert_int_equal(ply_client_submit_search(c, &req, 10000, &a, why, sizeof why), 0);
    uint64_t id = a->run_id;
    ply__accepted__free_unpacked(a, NULL);
    for (int i = 0; i < 300 && w.answered < 5; i++) usleep(10000);
    assert_int_equal(w.answered, 5);
    /* the run's progress shows its owner the lines done (once committed: a tick) */
    Ply__RunProgress *p = NULL;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ply_client_status(c, id, 5000, NULL, &p, why, sizeof why), 0);
        if (p->search && p->search->n_moves == 5) break;
        ply__run_progress__free_unpacked(p, NULL);
        p = NULL;
        usleep(20000);
    }
    assert_non_null(p);
    assert_int_equal(p->jobs_done, 5);
    assert_true(p->asked && p->asked->kind == PLY__JOB_KIND__JOB_KIND_SEARCH);
    for (size_t i = 0; i < 5; i++) assert_string_equal(p->search->moves[i]->line->pv[0],
                                                       p->search->moves[i]->move);
    ply__run_progress__free_unpacked(p, NULL);
    /* a status of every run lists it without its lines */
    Ply__StatusReply *sr = NULL;
    assert_int_equal(ply_client_status(c, 0, 5000, &sr, NULL, why, sizeof why), 0);
    assert_int_equal(sr->n_run, 1);
    assert_null(sr->run[0]->search);
    ply__status_reply__free_unpacked(sr, NULL);
    zactor_destroy(&w.actor);
    coord_stop(&t);
    ply_client_destroy(&c);

    /* the same request again, before any worker comes (a restored run is computed without
     * its client): it resumes the stored run */
    t = coord_start("inproc", NULL, path);
    c = ply_client_new(t->endpoint, NULL, 0);
    assert_int_equal(ply_client_submit_search(c, &req, 10000, &a, why, sizeof why), 0);
    assert_true(a->run_id == id);
    ply__accepted__free_unpacked(a, NULL);
    sworker_start(&w, t->endpoint, 1000, 0);
    Ply__RunResult *res = NULL;
    if (ply_client_wait(c, id, NULL, NULL, 20000, &res, why, sizeof why) != 0)
        fail_msg("resumed: %s", why);
    ply_client_destroy(&c);
    check_startpos(res);
    assert_int_equal(res->results_restored, 5);
    assert_int_equal(res->results_computed, 15);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&w.actor);
    coord_stop(&t);
    unlink(path);
    char wal[64];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
}

int main(void)
{
    ply_log_set_level(getenv("PLY_TEST_LOG") ? PLY_LOG_INFO : PLY_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answer),
        cmocka_unit_test(test_huge_nodes),
        cmocka_unit_test(test_restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
