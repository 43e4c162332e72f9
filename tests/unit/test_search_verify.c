/*
 * Verification of search runs (coordinator/search/verify.c) and refused search results
 * (search/kind.c's refused_result), in process: a coordinator of coord_fixture.h and
 * scripted search workers (DEALERs in czmq actors, each its own connection, so its own
 * identity) that answer every job with a one-move line, the job's move, at the depth asked,
 * with the score score_of() below: what an honest engine would answer identically every
 * time. A liar answers score_of() + 13 with the same legal line: only a second search can
 * tell.
 *   liar        verify all, two honest workers and a liar: every line in the answer is the
 *               honest score, the liar is excluded and named, no line is its own;
 *   half_liar   verify all, a worker that lies on every second answer: lines it matched
 *               (told the truth) before it was caught are taken out and searched again,
 *               and the answer is still every honest line;
 *   sample      verify sample=0.5, two honest workers: selected jobs all matched;
 *   no_checker  verify all, one worker: the run fails saying that it is not verified, and
 *               its progress said meanwhile that it waited for a second worker;
 *   no_engine   --engine uci with only a builtin worker: the progress says it waits for a
 *               worker that runs it;
 *   restore     verify all with a state file: two workers answer 11 jobs and hold the
 *               rest, the coordinator stops and starts again on the file, the same request
 *               resumes the run: what was settled is read back, the rest searched again,
 *               every line matched and honest;
 *   malformed   a worker answers its first job with a Result cut short and its second with
 *               one that has both a score and a mate: both attempts fail at once (the lease
 *               is 60 s) and are reported with the worker's name; the run completes.
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
#include "util/time.h"

#define LIE_CP 13

/* The scripted score of a root move: a spread over the 20 moves of the start position. */
static int score_of(const char *uci)
{
    return (uci[0] - 'a') * 37 + (uci[1] - '1') * 11 + (uci[2] - 'a') * 5 + (uci[3] - '1') * 3 -
           100;
}

enum { HONEST = 0, LIAR, MALFORMED, HALF_LIAR };

typedef struct sworker {
    char endpoint[256];
    char id[32];
    int mode;
    int max; /* answer this many jobs, hold the rest (0: all) */
    _Atomic int answered, jobs, reproducible;
    zactor_t *actor;
} sworker_t;

/* The Result for @job, packed; *len its size (caller frees). @how: 0 right, 1 a lie, 2 both a
 * score and a mate (the envelope refuses it). */
static uint8_t *pack_answer(const Ply__Job *job, int how, size_t *len)
{
    char *pv[1] = {job->search->searchmoves[0]};
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT, *lp[] = {&l};
    l.has_multipv = 1, l.multipv = 1;
    l.has_score_cp = 1, l.score_cp = score_of(pv[0]) + (how == 1 ? LIE_CP : 0);
    if (how == 2) l.has_mate = 1, l.mate = 1;
    l.has_bound = 1, l.has_depth = 1, l.depth = job->search->depth, l.has_seldepth = 1;
    l.n_pv = 1, l.pv = pv;
    Ply__SearchResult sr = PLY__SEARCH_RESULT__INIT;
    sr.n_lines = 1, sr.lines = lp;
    sr.has_nodes = 1, sr.nodes = 100, sr.has_time_us = 1, sr.time_us = 10;
    sr.engine = "scripted";
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = job->job_id;
    r.has_attempt = 1, r.attempt = job->attempt;
    r.has_time_us = 1, r.time_us = 10;
    r.search = &sr;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT, m.result = &r;
    *len = ply__message__get_packed_size(&m);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    ply__message__pack(&m, buf);
    return buf;
}

/* Sends the first @len bytes of @buf as a message's body (a short @len: a Result cut short). */
static void send_body(zsock_t *d, const uint8_t *buf, size_t len)
{
    zmsg_t *z = zmsg_new();
    zmsg_addstr(z, PLY_PROTOCOL_ID);
    zmsg_addmem(z, buf, len);
    assert_int_equal(zmsg_send(&z, d), 0);
}

static void answer(sworker_t *w, zsock_t *d, const Ply__Job *job)
{
    int n = w->answered++;
    size_t len;
    int how = w->mode == LIAR || (w->mode == HALF_LIAR && n % 2) ? 1
              : w->mode == MALFORMED && n == 1                   ? 2
                                                                 : 0;
    uint8_t *buf = pack_answer(job, how, &len);
    /* the malformed worker's first answer stops in the middle of its line */
    send_body(d, buf, w->mode == MALFORMED && n == 0 ? len - 12 : len);
    free(buf);
}

static void sworker_actor(zsock_t *pipe, void *arg)
{
    sworker_t *w = arg;
    zsock_t *d = zsock_new_dealer(w->endpoint);
    uint32_t kinds[] = {PLY__JOB_KIND__JOB_KIND_SEARCH};
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = w->id;
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    h.n_kinds = 1, h.kinds = kinds;
    h.engine = "builtin";
    h.engine_id = "scripted 1.0"; /* one engine: each may check the others */
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO, m.hello = &h;
    assert_int_equal(ply_msg_send(d, &m), 0);
    Ply__Ready ready = PLY__READY__INIT;
    ready.has_credit = 1, ready.credit = 64;
    m.body_case = PLY__MESSAGE__BODY_READY, m.ready = &ready;
    assert_int_equal(ply_msg_send(d, &m), 0);
    zsock_signal(pipe, 0);
    zpoller_t *poller = zpoller_new(pipe, d, NULL);
    for (;;) {
        void *which = zpoller_wait(poller, 50);
        if (which == pipe) break;
        if (which == d) {
            ply_msg_t *msg = NULL;
            if (ply_msg_recv(d, &msg, NULL, 0) == 0 && msg->body_case == PLY__MESSAGE__BODY_JOB &&
                (!w->max || w->answered < w->max)) {
                w->jobs++;
                w->reproducible +=
                    msg->job->search->has_reproducible && msg->job->search->reproducible;
                answer(w, d, msg->job);
                /* one more credit for each answer: the worker never runs dry */
                m.body_case = PLY__MESSAGE__BODY_READY, m.ready = &ready;
                ready.credit = 1;
                ply_msg_send(d, &m);
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

static void sworker_start(sworker_t *w, const char *endpoint, const char *id, int mode)
{
    memset(w, 0, sizeof *w);
    snprintf(w->endpoint, sizeof w->endpoint, "%s", endpoint);
    snprintf(w->id, sizeof w->id, "%s", id);
    w->mode = mode;
    w->actor = zactor_new(sworker_actor, w);
    assert_non_null(w->actor);
}

/* Submits startpos depth 3 with @verify (@ppm); 0 with *res, or the client's error (@why). */
/* Progress callback: keeps the last RunProgress.waiting seen (into a char[512]). */
static void keep_waiting(const Ply__RunProgress *p, void *arg)
{
    if (p->waiting && p->waiting[0]) snprintf(arg, 512, "%s", p->waiting);
}

static int search_engine(const char *endpoint, const char *engine, int verify, uint32_t ppm,
                         Ply__RunResult **res, char *waiting, char *why, size_t why_len)
{
    ply_client_t *c = ply_client_new(endpoint, NULL, 0);
    assert_non_null(c);
    ply_search_request_t req = {.fen = "startpos", .depth = 3, .engine = engine};
    req.verify = verify, req.verify_ppm = ppm;
    Ply__Accepted *a = NULL;
    *res = NULL;
    int rc = ply_client_submit_search(c, &req, 10000, &a, why, why_len);
    if (rc == 0)
        rc = ply_client_wait(c, a->run_id, waiting ? keep_waiting : NULL, waiting, 20000, res,
                             why, why_len);
    if (a) ply__accepted__free_unpacked(a, NULL);
    ply_client_destroy(&c);
    return rc;
}

static int search_startpos(const char *endpoint, int verify, uint32_t ppm, Ply__RunResult **res,
                           char *why, size_t why_len)
{
    ply_client_t *c = ply_client_new(endpoint, NULL, 0);
    assert_non_null(c);
    ply_search_request_t req = {.fen = "startpos", .depth = 3, .engine = "builtin"};
    req.verify = verify, req.verify_ppm = ppm;
    Ply__Accepted *a = NULL;
    *res = NULL;
    int rc = ply_client_submit_search(c, &req, 10000, &a, why, why_len);
    if (rc == 0) rc = ply_client_wait(c, a->run_id, NULL, NULL, 20000, res, why, why_len);
    if (a) ply__accepted__free_unpacked(a, NULL);
    ply_client_destroy(&c);
    return rc;
}

/* Every root move once, with the honest score, from none of the workers named @not. */
static void check_honest(const Ply__RunResult *res, const char * not )
{
    const Ply__SearchAnswer *s = res->search;
    assert_non_null(s);
    assert_int_equal(s->n_moves, 20);
    for (size_t i = 0; i < s->n_moves; i++) {
        const Ply__AnalysedMove *m = s->moves[i];
        assert_int_equal(m->line->score_cp, score_of(m->move));
        if (not ) assert_string_not_equal(m->worker_id, not );
    }
}

static void test_liar(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    sworker_t a, b, l;
    sworker_start(&a, t->endpoint, "honest-a", HONEST);
    sworker_start(&b, t->endpoint, "honest-b", HONEST);
    sworker_start(&l, t->endpoint, "liar", LIAR);
    coord_wait_joined(t, 3);
    Ply__RunResult *res = NULL;
    char why[512];
    if (search_startpos(t->endpoint, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, &res, why, sizeof why))
        fail_msg("verify all: %s", why);
    check_honest(res, "liar");
    const Ply__Verification *v = res->verification;
    assert_non_null(v);
    assert_string_equal(v->mode, "all");
    assert_int_equal(v->jobs, 20);
    assert_int_equal(v->jobs_selected, 20);
    assert_int_equal(v->checked_by_worker, 20); /* every line matched by a second identity */
    assert_int_equal(v->excluded, 1);
    assert_true(v->mismatches >= 1 && v->resolved >= 1 && v->resolved <= v->mismatches);
    assert_int_equal(v->n_exclusion, 1);
    assert_non_null(strstr(v->exclusion[0], "liar"));
    assert_non_null(strstr(v->exclusion[0], "excluded"));
    assert_true(v->n_detail >= 1 && strstr(v->detail[0], "liar outvoted"));
    /* the liar got jobs (it was caught, not starved), and every job was reproducible */
    assert_true(l.jobs >= 1);
    assert_int_equal(a.reproducible, a.jobs);
    assert_int_equal(l.reproducible, l.jobs);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    zactor_destroy(&l.actor);
    coord_stop(&t);
}

static void test_half_liar(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    sworker_t a, b, l;
    sworker_start(&l, t->endpoint, "half-liar", HALF_LIAR);
    sworker_start(&a, t->endpoint, "honest-a", HONEST);
    sworker_start(&b, t->endpoint, "honest-b", HONEST);
    coord_wait_joined(t, 3);
    Ply__RunResult *res = NULL;
    char why[512];
    if (search_startpos(t->endpoint, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, &res, why, sizeof why))
        fail_msg("verify all: %s", why);
    check_honest(res, "half-liar");
    const Ply__Verification *v = res->verification;
    assert_int_equal(v->excluded, 1);
    assert_int_equal(v->checked_by_worker, 20);
    assert_non_null(strstr(v->exclusion[0], "half-liar"));
    /* every line it had confirmed (who or who2) was searched again without it */
    print_message("recomputed %u, mismatches %u\n", v->recomputed, v->mismatches);
    /* 20 first searches and 20 checks at least, and a new first search for each line taken
     * out again */
    assert_true(a.jobs + b.jobs + l.jobs >= 40 + (int)v->recomputed);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    zactor_destroy(&l.actor);
    coord_stop(&t);
}

static void test_sample(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    sworker_t a, b;
    sworker_start(&a, t->endpoint, "honest-a", HONEST);
    sworker_start(&b, t->endpoint, "honest-b", HONEST);
    coord_wait_joined(t, 2);
    Ply__RunResult *res = NULL;
    char why[512];
    if (search_startpos(t->endpoint, PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE, 500000, &res, why,
                        sizeof why))
        fail_msg("verify sample: %s", why);
    check_honest(res, NULL);
    const Ply__Verification *v = res->verification;
    assert_non_null(v);
    assert_string_equal(v->mode, "sample=0.5");
    assert_true(v->jobs_selected <= 20);
    assert_int_equal(v->checked_by_worker, v->jobs_selected);
    assert_int_equal(v->excluded, 0);
    assert_int_equal(v->mismatches, 0);
    /* the first searches and the checks: 20 + selected jobs, all reproducible */
    assert_int_equal(a.jobs + b.jobs, 20 + (int)v->jobs_selected);
    assert_int_equal(a.reproducible + b.reproducible, a.jobs + b.jobs);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    coord_stop(&t);
}

/* Long enough for a progress report (one a second) to show what the run waits for. */
static void wait_2500(ply_coordinator_config_t *cfg)
{
    cfg->worker_wait_ms = 2500;
}

static void test_no_checker(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", wait_2500, NULL);
    sworker_t a;
    sworker_start(&a, t->endpoint, "alone", HONEST);
    coord_wait_joined(t, 1);
    Ply__RunResult *res = NULL;
    char why[1024], waiting[512] = "";
    int rc = search_engine(t->endpoint, "builtin", PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, &res,
                           waiting, why, sizeof why);
    assert_int_not_equal(rc, 0);
    assert_null(res);
    assert_non_null(strstr(why, "no second worker of the same engine"));
    assert_non_null(strstr(why, "not reported as verified"));
    /* meanwhile the progress said what it waited for, not only "0/20 ... ETA --" */
    if (!strstr(waiting, "a second worker of engine \"") || !strstr(waiting, "to check job") ||
        !strstr(waiting, "--verify all"))
        fail_msg("RunProgress.waiting: \"%s\"", waiting);
    zactor_destroy(&a.actor);
    coord_stop(&t);
}

/* A run asking an engine that no connected worker runs says so while it waits. */
static void test_no_engine(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", wait_2500, NULL);
    sworker_t a;
    sworker_start(&a, t->endpoint, "builtin-only", HONEST);
    coord_wait_joined(t, 1);
    Ply__RunResult *res = NULL;
    char why[1024], waiting[512] = "";
    int rc = search_engine(t->endpoint, "uci", PLY__VERIFY_MODE__VERIFY_MODE_NONE, 0, &res,
                           waiting, why, sizeof why);
    assert_int_not_equal(rc, 0);
    assert_null(res);
    if (!strstr(waiting, "a worker that runs") || !strstr(waiting, "none of the 1 connected"))
        fail_msg("RunProgress.waiting: \"%s\" (the run failed: %s)", waiting, why);
    zactor_destroy(&a.actor);
    coord_stop(&t);
}

static void test_restore(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-test-search-verify-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    coord_t *t = coord_start("inproc", NULL, path);
    sworker_t a, b;
    sworker_start(&a, t->endpoint, "honest-a", HONEST);
    sworker_start(&b, t->endpoint, "honest-b", HONEST);
    a.max = 6, b.max = 5; /* an odd count: at least one job has its first search alone */
    coord_wait_joined(t, 2);
    ply_client_t *c = ply_client_new(t->endpoint, NULL, 0);
    ply_search_request_t req = {.fen = "startpos", .depth = 3, .engine = "builtin"};
    req.verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL;
    Ply__Accepted *acc = NULL;
    char why[512];
    assert_int_equal(ply_client_submit_search(c, &req, 10000, &acc, why, sizeof why), 0);
    uint64_t id = acc->run_id;
    ply__accepted__free_unpacked(acc, NULL);
    for (int i = 0; i < 300 && a.answered + b.answered < 11; i++) usleep(10000);
    assert_int_equal(a.answered + b.answered, 11);
    usleep(300000); /* a tick: the results are committed */
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    coord_stop(&t);
    ply_client_destroy(&c);

    t = coord_start("inproc", NULL, path);
    c = ply_client_new(t->endpoint, NULL, 0);
    assert_int_equal(ply_client_submit_search(c, &req, 10000, &acc, why, sizeof why), 0);
    assert_true(acc->run_id == id); /* resumed, not a new run */
    ply__accepted__free_unpacked(acc, NULL);
    sworker_start(&a, t->endpoint, "honest-c", HONEST);
    sworker_start(&b, t->endpoint, "honest-d", HONEST);
    Ply__RunResult *res = NULL;
    if (ply_client_wait(c, id, NULL, NULL, 20000, &res, why, sizeof why) != 0)
        fail_msg("resumed: %s", why);
    ply_client_destroy(&c);
    check_honest(res, NULL);
    const Ply__Verification *v = res->verification;
    assert_non_null(v);
    assert_int_equal(v->jobs_selected, 20);
    assert_int_equal(v->checked_by_worker, 20);
    assert_int_equal(v->excluded, 0);
    assert_int_equal(res->results_restored, 11);
    /* the pairs read back settled their jobs; a lone search read back is searched again */
    print_message("after the restart: %d searches\n", a.jobs + b.jobs);
    assert_true(a.jobs + b.jobs >= 40 - 11 + 1 && a.jobs + b.jobs < 40);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    coord_stop(&t);
    unlink(path);
    char side[64];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static void long_lease(ply_coordinator_config_t *cfg)
{
    cfg->lease_ms = 60000;
}

static void test_malformed(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", long_lease, NULL);
    sworker_t m;
    sworker_start(&m, t->endpoint, "garbler", MALFORMED);
    coord_wait_joined(t, 1);
    Ply__RunResult *res = NULL;
    char why[512];
    uint64_t t0 = ply_time_ms();
    if (search_startpos(t->endpoint, PLY__VERIFY_MODE__VERIFY_MODE_NONE, 0, &res, why, sizeof why))
        fail_msg("malformed: %s", why);
    uint64_t ms = ply_time_ms() - t0;
    check_honest(res, NULL);
    /* two attempts failed at once: well before the 60 s lease */
    assert_true(ms < 10000);
    const Ply__SearchAnswer *s = res->search;
    assert_int_equal(s->rejected, 2);
    assert_int_equal(s->n_rejection, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_non_null(strstr(s->rejection[i], "garbler"));
        assert_non_null(strstr(s->rejection[i], "malformed result"));
    }
    assert_int_equal(m.jobs, 22); /* 20 jobs, two of them twice */
    ply_coordinator_counters_t k = coord_counters(t);
    assert_true(k.malformed >= 2);
    assert_true(k.jobs_requeued >= 2);
    ply__run_result__free_unpacked(res, NULL);
    zactor_destroy(&m.actor);
    coord_stop(&t);
}

int main(void)
{
    ply_log_set_level(getenv("PLY_TEST_LOG") ? PLY_LOG_INFO : PLY_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_liar),      cmocka_unit_test(test_half_liar),
        cmocka_unit_test(test_sample),    cmocka_unit_test(test_no_checker),
        cmocka_unit_test(test_no_engine),
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
