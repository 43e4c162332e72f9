/*
 * Search jobs on the real ply-worker driving an external UCI engine
 * (ply-worker --engine, worker/daemon/analysis_uci.c; issue 11, part 2), with a raw
 * ROUTER socket on loopback as the coordinator, as test_search_jobs.c does
 * for the builtin engine. Two groups, chosen by the first argument:
 *
 * "stockfish" (Debian's /usr/games/stockfish; exit 77, a ctest SKIP, when it
 * is absent):
 *   hello     engine "uci:Stockfish ..." (its "id name");
 *   mate      WAC.027 at depth 12: mate 2, a PV the rule engine replays into
 *             checkmate at its third move;
 *   multipv   start position, depth 8, multipv 3, searchmoves e2e4 d2d4
 *             g1f3: exactly those three lead the lines;
 *   cancel    a Cancel during a depth 60 search: idle within seconds, no
 *             Result for it, and the next job runs in full.
 * "fake" (tests/integration/fake_uci.c, which offers no MultiPV and dies on
 * its second search with status 3):
 *   multipv   multipv 2 is refused with an Error naming MultiPV;
 *   dies      the engine exits mid-search: an Error (PLY_EIO) for that job
 *             naming its exit status, the worker stays up, and the next job
 *             runs on a restarted engine;
 *   garbage   (a second worker, "fake-garbage": the engine prints "info depth
 *             x" on its second search) an Error (PLY_EPARSE) quoting it, the
 *             worker stays up, and the next job runs on a restarted engine;
 *   bad engine  ply-worker --engine on a program that is not there, or not
 *             UCI, exits 2 at start with the reason.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <czmq.h>

#include "arbiter/arbiter.h"
#include "envelope.h"
#include "harness.h"
#include "util/error.h"

#define STOCKFISH "/usr/games/stockfish"

/* WAC.027 (tests/data/analysis/wacnew.epd; Reinfeld, Win at Chess): mate in 2. Debian's
 * Stockfish 15.1 (go depth 20) says "score mate 2 ... pv a3f8 f2f8 f1f8". */
#define MATE2_FEN "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1"

static struct {
    zsock_t *router;
    zframe_t *worker;
    pid_t pid;
    char dir[128], log[256];
    uint64_t next_job;
    ply_msg_t *hello;
    const char *engine; /* --engine's value (shell-quoted in the command) */
} g;

static ply_msg_t *recv_type(int body, int timeout_ms)
{
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < (uint64_t)timeout_ms;) {
        ply_msg_t *m = NULL;
        zframe_t *rid = NULL;
        int rc = ply_msg_recv_from(g.router, &rid, &m, NULL, 0);
        if (rid) {
            zframe_destroy(&g.worker);
            g.worker = rid;
        }
        if (rc != 0) continue;
        if ((int)m->body_case == body) return m;
        ply_msg_free(&m);
    }
    return NULL;
}

static void send_msg(ply_msg_t *m)
{
    assert_non_null(g.worker);
    assert_int_equal(ply_msg_send_to(g.router, g.worker, m), 0);
}

static int setup(void **state)
{
    (void)state;
    g.next_job = 100;
    g.router = zsock_new(ZMQ_ROUTER);
    zsock_set_linger(g.router, 0);
    zsock_set_rcvtimeo(g.router, 200);
    int port = -1;
    for (int i = 0; i < 10 && port < 0; i++) {
        int p = th_free_port();
        if (zsock_bind(g.router, "tcp://127.0.0.1:%d", p) >= 0) port = p;
    }
    if (port < 0) return -1;
    snprintf(g.dir, sizeof g.dir, "%s", th_tmpdir("search-jobs-uci"));
    snprintf(g.log, sizeof g.log, "%s/worker.log", g.dir);
    g.pid = th_spawn(g.log,
                     "exec ply-worker --connect tcp://127.0.0.1:%d --engine '%s' "
                     "--engine-option Threads=1 --engine-option Hash=16 -v",
                     port, g.engine);
    g.hello = recv_type(PLY__MESSAGE__BODY_HELLO, 30000 * (int)th_slowdown());
    if (!g.hello) return -1;
    Ply__Welcome w = PLY__WELCOME__INIT;
    w.has_heartbeat_ms = 1, w.heartbeat_ms = 500;
    w.has_liveness = 1, w.liveness = 1000; /* this coordinator sends no heartbeats */
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_WELCOME;
    m.welcome = &w;
    return ply_msg_send_to(g.router, g.worker, &m) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    th_stop(g.pid);
    th_run_t r = th_run(30, "rm -rf '%s'", g.dir); /* the log is printed on a failure */
    th_run_free(&r);
    ply_msg_free(&g.hello);
    zframe_destroy(&g.worker);
    zsock_destroy(&g.router);
    return 0;
}

static uint64_t send_job(Ply__SearchJob *sj)
{
    Ply__Job j = PLY__JOB__INIT;
    j.has_job_id = 1, j.job_id = ++g.next_job;
    j.has_attempt = 1, j.attempt = 1;
    j.has_kind = 1, j.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    j.has_run_id = 1, j.run_id = 1;
    j.has_lease_ms = 1, j.lease_ms = 600000;
    j.search = sj;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_JOB;
    m.job = &j;
    send_msg(&m);
    return j.job_id;
}

static ply_msg_t *answer(uint64_t id, int timeout_ms)
{
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < (uint64_t)timeout_ms * th_slowdown();) {
        ply_msg_t *m = NULL;
        if (ply_msg_recv_from(g.router, NULL, &m, NULL, 0) != 0) continue;
        if (m->body_case == PLY__MESSAGE__BODY_RESULT && m->result->job_id == id) return m;
        if (m->body_case == PLY__MESSAGE__BODY_ERROR && m->error->job_id == id) return m;
        ply_msg_free(&m);
    }
    char *log = th_slurp(g.log);
    fail_msg("no answer to job %" PRIu64 "; worker log:\n%s", id, log);
    free(log);
    return NULL;
}

static const Ply__SearchResult *result_of(ply_msg_t *m)
{
    if (m->body_case != PLY__MESSAGE__BODY_RESULT) fail_msg("error: %s", m->error->message);
    assert_non_null(m->result->search);
    return m->result->search;
}

/* ---- Stockfish --------------------------------------------------------------- */

static void test_sf_hello(void **state)
{
    (void)state;
    const Ply__Hello *h = g.hello->hello;
    assert_non_null(h->engine);
    if (strncmp(h->engine, "uci:Stockfish", 13)) fail_msg("HELLO engine '%s'", h->engine);
}

static void test_sf_mate(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = MATE2_FEN;
    sj.has_depth = 1, sj.depth = 12;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    const Ply__SearchLine *l = r->lines[0];
    if (!l->has_mate || l->mate != 2) fail_msg("WAC.027: not mate 2 (mate %d)", l->mate);
    assert_int_equal(l->bound, 0);
    assert_int_equal(l->n_pv, 3);
    assert_true(r->has_nodes && r->nodes > 0);
    if (strncmp(r->engine, "uci:Stockfish", 13)) fail_msg("Result engine '%s'", r->engine);
    ply_arb_pos_t pos;
    char why[160];
    assert_int_equal(ply_arb_from_fen(&pos, MATE2_FEN, 0, why, sizeof why), 0);
    for (size_t i = 0; i < l->n_pv; i++) {
        ply_arb_move_t mv;
        if (ply_arb_move_from_uci(&pos, l->pv[i], &mv) != 0)
            fail_msg("WAC.027: PV move %zu (%s) is not legal", i + 1, l->pv[i]);
        ply_arb_make(&pos, mv);
    }
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    assert_int_equal(ply_arb_legal_moves(&pos, legal), 0);
    assert_true(ply_arb_in_check(&pos));
    ply_msg_free(&m);
}

static void test_sf_multipv(void **state)
{
    (void)state;
    char *only[] = {"e2e4", "d2d4", "g1f3"};
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 8;
    sj.has_multipv = 1, sj.multipv = 3;
    sj.n_searchmoves = 3, sj.searchmoves = only;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 3);
    int seen[3] = {0};
    for (size_t i = 0; i < 3; i++) {
        const Ply__SearchLine *l = r->lines[i];
        assert_int_equal(l->multipv, i + 1);
        assert_true(l->has_score_cp && !l->has_mate);
        assert_true(l->depth >= 8);
        assert_true(l->n_pv >= 1);
        int k = 0;
        while (k < 3 && strcmp(l->pv[0], only[k])) k++;
        if (k == 3) fail_msg("line %zu starts with %s, not a searchmove", i + 1, l->pv[0]);
        seen[k]++;
    }
    assert_true(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
    ply_msg_free(&m);

    /* one searchmove, one line: the engine searched only it */
    sj.has_multipv = 0;
    sj.n_searchmoves = 1, sj.searchmoves = only + 2;
    m = answer(send_job(&sj), 120000);
    r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    assert_string_equal(r->lines[0]->pv[0], "g1f3");
    ply_msg_free(&m);
}

/* One root move (a ply analyse job) is searched as the position after it. Stockfish 15.1
 * answers "go depth 8 searchmoves g1h3" from the start position with cp 384 and the
 * one-move line g1h3 (found by a new user's trial); searched as the position after g1h3,
 * Nh3 is no winning move (Stockfish's own go depth 7 there gives about +0.6 for Black)
 * and its line goes on. A root move that mates is mate 1 without a search. */
static void test_sf_one_root_move(void **state)
{
    (void)state;
    char *nh3[] = {"g1h3"};
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 8;
    sj.n_searchmoves = 1, sj.searchmoves = nh3;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    const Ply__SearchLine *l = r->lines[0];
    assert_string_equal(l->pv[0], "g1h3");
    if (!l->has_score_cp || l->score_cp > 100)
        fail_msg("Nh3 scored %d cp, mate %d: Stockfish's searchmoves answer leaked through",
                 l->score_cp, l->mate);
    assert_true(l->n_pv >= 3);
    assert_int_equal(l->depth, 8);
    ply_msg_free(&m);

    char *qxf7[] = {"h5f7"};
    sj.fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    sj.searchmoves = qxf7;
    m = answer(send_job(&sj), 120000);
    r = result_of(m);
    l = r->lines[0];
    if (!l->has_mate || l->mate != 1) fail_msg("Qxf7# not mate 1 (mate %d)", l->mate);
    assert_int_equal(l->n_pv, 1);
    ply_msg_free(&m);
}

static void test_sf_cancel(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 60; /* hours on one thread */
    uint64_t id = send_job(&sj);
    ply_msg_t *hb = NULL;
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < 10000u * th_slowdown();) {
        hb = recv_type(PLY__MESSAGE__BODY_HEARTBEAT, 2000);
        if (hb && hb->heartbeat->has_job_id && hb->heartbeat->job_id == id) break;
        ply_msg_free(&hb);
    }
    assert_non_null(hb);
    ply_msg_free(&hb);
    usleep(500000);
    Ply__Cancel c = PLY__CANCEL__INIT;
    c.has_run_id = 1, c.run_id = 1;
    c.has_job_id = 1, c.job_id = id;
    c.has_attempt = 1, c.attempt = 1;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_CANCEL;
    m.cancel = &c;
    send_msg(&m);
    uint64_t t0 = th_now_ms();
    int idle = 0;
    while (!idle && th_now_ms() - t0 < 5000u * th_slowdown()) {
        ply_msg_t *x = NULL;
        if (ply_msg_recv_from(g.router, NULL, &x, NULL, 0) != 0) continue;
        if (x->body_case == PLY__MESSAGE__BODY_RESULT || x->body_case == PLY__MESSAGE__BODY_ERROR)
            fail_msg("an answer came for a cancelled job (%s)", ply_msg_type_name(x));
        if (x->body_case == PLY__MESSAGE__BODY_HEARTBEAT && !x->heartbeat->has_job_id) idle = 1;
        ply_msg_free(&x);
    }
    if (!idle) fail_msg("the worker still searched 5 s after the Cancel");
    print_message("cancel: idle %" PRIu64 " ms after the Cancel\n", th_now_ms() - t0);
    sj.depth = 6;
    ply_msg_t *r = answer(send_job(&sj), 60000);
    assert_true(result_of(r)->lines[0]->depth >= 6);
    ply_msg_free(&r);
}

/* ---- the fake engine ---------------------------------------------------------- */

static void test_fake_multipv(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    sj.has_multipv = 1, sj.multipv = 2;
    ply_msg_t *m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->code, PLY_EINVAL);
    if (!strstr(m->error->message, "MultiPV")) fail_msg("error: %s", m->error->message);
    ply_msg_free(&m);
}

static void test_fake_dies(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    ply_msg_t *m = answer(send_job(&sj), 30000); /* its first search: normal */
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    assert_int_equal(r->lines[0]->depth, 1);
    ply_msg_free(&m);
    m = answer(send_job(&sj), 30000); /* the second: it exits with status 3 */
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->code, PLY_EIO);
    if (!strstr(m->error->message, "status 3")) fail_msg("error: %s", m->error->message);
    print_message("dies: %s\n", m->error->message);
    ply_msg_free(&m);
    assert_true(th_alive(g.pid));
    m = answer(send_job(&sj), 30000); /* a restarted engine's first search */
    result_of(m);
    ply_msg_free(&m);
}

/* The engine prints a malformed info line on its second search: an Error quoting it. */
static void test_fake_garbage(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    ply_msg_t *m = answer(send_job(&sj), 30000);
    result_of(m);
    ply_msg_free(&m);
    m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->code, PLY_EPARSE);
    if (!strstr(m->error->message, "depth x")) fail_msg("error: %s", m->error->message);
    ply_msg_free(&m);
    assert_true(th_alive(g.pid));
    m = answer(send_job(&sj), 30000); /* a restarted engine's first search */
    result_of(m);
    ply_msg_free(&m);
}

static void test_bad_engine(void **state)
{
    (void)state;
    th_run_t r = th_run(60, "ply-worker --connect tcp://127.0.0.1:1 --engine /nonexistent/engine");
    th_expect_status(&r, 2, "an --engine that is not there");
    if (!strstr(r.err, "/nonexistent/engine")) fail_msg("stderr: %s", r.err);
    th_run_free(&r);
    r = th_run(60, "ply-worker --connect tcp://127.0.0.1:1 --engine 'ply_fake_uci --mode "
                   "no-uciok'");
    th_expect_status(&r, 2, "an --engine that does not finish the UCI handshake");
    if (!strstr(r.err, "uciok")) fail_msg("stderr: %s", r.err);
    th_run_free(&r);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "stockfish")) {
        if (access(STOCKFISH, X_OK) != 0) {
            printf("skip: no %s\n", STOCKFISH);
            return 77;
        }
        g.engine = STOCKFISH;
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sf_hello),   cmocka_unit_test(test_sf_mate),
            cmocka_unit_test(test_sf_multipv), cmocka_unit_test(test_sf_one_root_move),
            cmocka_unit_test(test_sf_cancel),
        };
        return cmocka_run_group_tests_name("search_jobs_stockfish", tests, setup, teardown);
    }
    if (argc > 1 && !strcmp(argv[1], "fake-garbage")) {
        g.engine = "ply_fake_uci --mode garbage --after 1";
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_fake_garbage)};
        return cmocka_run_group_tests_name("search_jobs_fake_garbage", tests, setup, teardown);
    }
    g.engine = "ply_fake_uci --mode die --after 1";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fake_multipv),
        cmocka_unit_test(test_fake_dies),
        cmocka_unit_test(test_bad_engine),
    };
    return cmocka_run_group_tests_name("search_jobs_fake_uci", tests, setup, teardown);
}
