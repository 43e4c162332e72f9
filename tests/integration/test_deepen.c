/*
 * Deepening analyses end to end (issue 28, SearchRequest.deepen): a real ply-coordinator and
 * real ply-worker processes (ply's own engine), asked through the client library. Each test is
 * one argument:
 *   startpos  depth 6, multipv 1, two workers: the answer is iteration 6; one progress per
 *             completed iteration came first, in order; every iteration 1..6 is recorded; the
 *             best line is exact and every other root move's line is exact or an upper bound
 *             no higher, each replayed here by the rule engine; multipv 3: three exact lines
 *             on top;
 *   mate      WAC.027 at depth 6: mate 2 by 1. Qf8+ on top, its line ending in checkmate;
 *   limits    --movetime 1500 ms for the whole analysis ends within it (and a generous slack)
 *             with a completed iteration; --nodes N ends once its jobs searched N;
 *   infinite  an infinite analysis canceled by its owner after two iterations ends done,
 *             its deepest completed iteration the answer; refusals: infinite with a depth,
 *             infinite without deepen, deepen with --verify;
 *   lost      one of two workers killed mid-analysis: the analysis still reaches its depth.
 * Expected values: the start position has 20 legal moves (FIDE art. 3; perft(1) = 20);
 * WAC.027 is mate in 2 (1. Qf8+ Rxf8 2. Rxf8#, Reinfeld's Win at Chess; Stockfish 15.1
 * "go depth 10": score mate 2, pv a3f8 f2f8 f1f8).
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>

#include <cmocka.h>
#include <czmq.h>

#include "arbiter/arbiter.h"
#include "client.h"
#include "envelope.h"
#include "harness.h"
#include "util/error.h"
#include "util/time.h"

#define MATE2_FEN "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1"

typedef struct cluster {
    char dir[128], ep[64], state[192];
    pid_t coord, worker[2];
} cluster_t;

/* The coordinator of @k, on its state file (cluster_start names it). */
static void start_coordinator(cluster_t *k)
{
    char log[256];
    snprintf(log, sizeof log, "%s/coordinator.log", k->dir);
    k->coord = th_spawn(log,
                        "exec ply-coordinator --bind %s --heartbeat-ms 200 --liveness 5 "
                        "--state %s -v",
                        k->ep, k->state);
}

static void start_worker(cluster_t *k, int i)
{
    char log[256];
    snprintf(log, sizeof log, "%s/worker%d.log", k->dir, i);
    k->worker[i] =
        th_spawn(log, "exec ply-worker --connect %s --threads 1 --hash 16 --id w%d -v", k->ep, i);
}

static cluster_t *g_live; /* the test's cluster, stopped by teardown when the test fails */

static void cluster_start(cluster_t *k, const char *tag, int workers)
{
    memset(k, 0, sizeof *k);
    g_live = k;
    snprintf(k->dir, sizeof k->dir, "%s", th_tmpdir(tag));
    snprintf(k->ep, sizeof k->ep, "tcp://127.0.0.1:%d", th_free_port());
    snprintf(k->state, sizeof k->state, "%s/state.db", k->dir);
    start_coordinator(k);
    for (int i = 0; i < workers; i++) start_worker(k, i);
}

static void cluster_stop(cluster_t *k)
{
    g_live = NULL;
    for (int i = 0; i < 2; i++)
        if (k->worker[i]) th_stop(k->worker[i]);
    if (k->coord) th_stop(k->coord);
    th_run_t r = th_run(30, "rm -rf '%s'", k->dir);
    th_run_free(&r);
}

static ply_client_t *client_of(const cluster_t *k)
{
    char why[256];
    ply_client_t *c = ply_client_new(k->ep, why, sizeof why);
    if (!c) fail_msg("client: %s", why);
    return c;
}

/* What the progress stream showed: the completed depth of each RunProgress that had one. */
typedef struct seen {
    uint32_t depth[256];
    size_t n;
    cluster_t *kill; /* lost: kill worker 1 at the first iteration >= 3 */
    uint64_t run;
    const cluster_t *cancel; /* infinite: cancel the run once depth 2 is in */
    int canceled;
} seen_t;

static void on_progress(const Ply__RunProgress *p, void *arg)
{
    seen_t *s = arg;
    if (!p->search || !p->search->has_depth || !p->search->depth) return;
    if (s->n && s->depth[s->n - 1] == p->search->depth) return; /* the periodic one again */
    if (s->n < 256) s->depth[s->n++] = p->search->depth;
    if (s->kill && p->search->depth >= 3 && s->kill->worker[1]) {
        kill(s->kill->worker[1], SIGKILL);
        th_stop(s->kill->worker[1]);
        s->kill->worker[1] = 0;
        print_message("worker w1 killed after depth %u\n", p->search->depth);
    }
    if (s->cancel && p->search->depth >= 2 && !s->canceled) {
        ply_client_t *c = client_of(s->cancel);
        Ply__RunProgress *rp = NULL;
        char why[256];
        if (ply_client_cancel(c, s->run, 20000, &rp, why, sizeof why) != 0)
            fail_msg("cancel: %s", why);
        ply__run_progress__free_unpacked(rp, NULL);
        ply_client_destroy(&c);
        s->canceled = 1;
    }
}

/* Submits @req, streaming its progress into @s; *out the result, or NULL with why. */
static int run_search(const cluster_t *k, const ply_search_request_t *req, seen_t *s,
                      Ply__RunResult **out, char *why, size_t why_len)
{
    ply_client_t *c = client_of(k);
    Ply__Accepted *a = NULL;
    *out = NULL;
    int r = ply_client_submit_search(c, req, 20000, &a, why, why_len);
    if (r == 0 && s) s->run = a->run_id;
    if (r == 0)
        r = ply_client_wait(c, a->run_id, s ? on_progress : NULL, s, 120000, out, why, why_len);
    if (a) ply__accepted__free_unpacked(a, NULL);
    ply_client_destroy(&c);
    return r;
}

/* Line @l's score in ply's engine units (mate: 32000 less its plies). */
static int32_t score_of(const Ply__SearchLine *l)
{
    if (!l->has_mate) return l->score_cp;
    return l->mate > 0 ? 32000 - (2 * l->mate - 1) : -32000 + 2 * -l->mate;
}

/* The answer of a deepening run of @pos to @depth with @k exact lines: every root move once,
 * each line legal from @pos (a mate ends in checkmate), the top @k exact and best first, every
 * other one exact or an upper bound no higher than the k-th; its iterations consecutive up to depth. */
static void check_answer(const Ply__RunResult *res, const ply_arb_pos_t *pos, uint32_t depth,
                         size_t k)
{
    const Ply__SearchAnswer *s = res->search;
    assert_non_null(s);
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    size_t n = (size_t)ply_arb_legal_moves(pos, legal);
    assert_true(s->has_depth);
    assert_int_equal(s->depth, depth);
    assert_true(s->n_iterations >= 1);
    /* an analysis opens with one job of every root move some plies below its depth limit
     * (coordinator/search/deepen.h): its first iteration, the ones below never reported */
    uint32_t first = s->iterations[0]->depth;
    if (first < 1 || first > depth) fail_msg("the first iteration is %u", first);
    assert_int_equal(s->n_moves, n);
    assert_int_equal(s->n_iterations, depth - first + 1);
    for (size_t i = 0; i < s->n_iterations; i++) {
        assert_int_equal(s->iterations[i]->depth, first + i);
        assert_non_null(s->iterations[i]->line);
    }
    assert_string_equal(s->iterations[s->n_iterations - 1]->move, s->moves[0]->move);
    int32_t kth = 0;
    for (size_t i = 0; i < n; i++) {
        const Ply__AnalysedMove *a = s->moves[i];
        const Ply__SearchLine *l = a->line;
        uint32_t bound = l->has_bound ? l->bound : 0;
        assert_string_equal(l->pv[0], a->move);
        assert_int_equal(l->depth >= depth || l->has_mate, 1);
        ply_arb_pos_t p = *pos;
        for (size_t j = 0; j < l->n_pv; j++) {
            ply_arb_move_t mv;
            if (ply_arb_move_from_uci(&p, l->pv[j], &mv) != 0)
                fail_msg("%s: PV move %zu %s is not legal", a->move, j + 1, l->pv[j]);
            ply_arb_make(&p, mv);
        }
        if (l->has_mate && bound == 0 && l->mate > 0) {
            assert_int_equal(ply_arb_legal_moves(&p, legal), 0);
            assert_true(ply_arb_in_check(&p));
        }
        for (size_t j = 0; j < i; j++) assert_string_not_equal(s->moves[j]->move, a->move);
        if (i < k) {
            if (bound != 0) fail_msg("line %zu (%s) is a bound, %zu exact asked", i + 1, a->move, k);
            if (i) assert_true(score_of(s->moves[i - 1]->line) >= score_of(l));
            kth = score_of(l);
        } else {
            if (bound == 1) fail_msg("%s: a lower bound in the answer", a->move);
            if (score_of(l) > kth)
                fail_msg("%s: %d above the %zu-th best (%d), not proven worse", a->move,
                         score_of(l), k, kth);
        }
    }
}

static void test_startpos(void **state)
{
    (void)state;
    static cluster_t k; /* static: teardown reads it after a failed test left its frame */
    cluster_start(&k, "deepen-startpos", 2);
    ply_arb_pos_t pos;
    assert_int_equal(ply_arb_from_fen(&pos, "startpos", 0, NULL, 0), 0);
    seen_t seen = {0};
    ply_search_request_t req = {.fen = "startpos", .depth = 6, .deepen = 1, .multipv = 1};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &seen, &res, why, sizeof why) != 0) fail_msg("startpos: %s", why);
    check_answer(res, &pos, 6, 1);
    assert_true(seen.n >= 2); /* the iterations came as they completed, before the answer */
    for (size_t i = 1; i < seen.n; i++) assert_true(seen.depth[i] > seen.depth[i - 1]);
    print_message("startpos depth 6: best %s (%d cp), %zu progress reports, %" PRIu64
                  " nodes, %u lines replayed, %" PRIu64 " ms\n",
                  res->search->moves[0]->move, res->search->moves[0]->line->score_cp, seen.n,
                  res->nodes, res->search->replayed, res->time_ms);
    assert_int_equal(res->search->rejected, 0);
    ply__run_result__free_unpacked(res, NULL);

    ply_search_request_t three = {.fen = "startpos", .depth = 5, .deepen = 1, .multipv = 3};
    if (run_search(&k, &three, NULL, &res, why, sizeof why) != 0) fail_msg("multipv: %s", why);
    check_answer(res, &pos, 5, 3);
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

static void test_mate(void **state)
{
    (void)state;
    static cluster_t k; /* static: teardown reads it after a failed test left its frame */
    cluster_start(&k, "deepen-mate", 2);
    ply_arb_pos_t pos;
    assert_int_equal(ply_arb_from_fen(&pos, MATE2_FEN, 0, NULL, 0), 0);
    ply_search_request_t req = {.fen = MATE2_FEN, .depth = 6, .deepen = 1};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, NULL, &res, why, sizeof why) != 0) fail_msg("mate: %s", why);
    check_answer(res, &pos, 6, 1);
    const Ply__AnalysedMove *top = res->search->moves[0];
    assert_true(top->line->has_mate && top->line->mate == 2);
    assert_string_equal(top->move, "a3f8");
    assert_string_equal(top->pv_san[top->n_pv_san - 1], "Rxf8#");
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

static void test_limits(void **state)
{
    (void)state;
    static cluster_t k; /* static: teardown reads it after a failed test left its frame */
    cluster_start(&k, "deepen-limits", 2);
    ply_search_request_t req = {.fen = "startpos", .movetime_ms = 1500, .deepen = 1};
    Ply__RunResult *res;
    char why[512];
    uint64_t t0 = ply_time_ms();
    if (run_search(&k, &req, NULL, &res, why, sizeof why) != 0) fail_msg("movetime: %s", why);
    uint64_t took = ply_time_ms() - t0;
    print_message("movetime 1500 ms: depth %u in %" PRIu64 " ms (run %" PRIu64 " ms)\n",
                  res->search->depth, took, res->time_ms);
    assert_true(res->search->depth >= 1);
    assert_true(took >= 1500);
    assert_true(took < 1500 + 10000 * th_slowdown()); /* ends with its time, not its depth */
    ply__run_result__free_unpacked(res, NULL);

    ply_search_request_t nodes = {.fen = "startpos", .nodes = 300000, .deepen = 1};
    if (run_search(&k, &nodes, NULL, &res, why, sizeof why) != 0) fail_msg("nodes: %s", why);
    assert_true(res->search->depth >= 1);
    assert_true(res->nodes >= 300000); /* it stops at the first result past the budget */
    print_message("nodes 300000: depth %u, %" PRIu64 " nodes\n", res->search->depth, res->nodes);
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

/* Submits @req and expects it refused, the reason holding @text. */
static void expect_refused(const cluster_t *k, const ply_search_request_t *req, const char *text)
{
    Ply__RunResult *res;
    char why[512] = "";
    assert_true(run_search(k, req, NULL, &res, why, sizeof why) < 0);
    print_message("refused: %s\n", why);
    if (!strstr(why, text)) fail_msg("\"%s\" does not name \"%s\"", why, text);
}

static void test_infinite(void **state)
{
    (void)state;
    static cluster_t k; /* static: teardown reads it after a failed test left its frame */
    cluster_start(&k, "deepen-infinite", 2);
    seen_t seen = {0};
    seen.cancel = &k;
    ply_search_request_t req = {.fen = "startpos", .infinite = 1, .deepen = 1};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &seen, &res, why, sizeof why) != 0) fail_msg("infinite: %s", why);
    assert_true(seen.canceled);
    assert_true(res->search->depth >= 2); /* done: its deepest iteration, not "canceled" */
    ply_arb_pos_t pos;
    assert_int_equal(ply_arb_from_fen(&pos, "startpos", 0, NULL, 0), 0);
    check_answer(res, &pos, res->search->depth, 1);
    ply__run_result__free_unpacked(res, NULL);

    ply_search_request_t a = {.fen = "startpos", .infinite = 1, .depth = 3, .deepen = 1};
    expect_refused(&k, &a, "infinite takes no depth");
    ply_search_request_t b = {.fen = "startpos", .infinite = 1};
    expect_refused(&k, &b, "infinite needs");
    ply_search_request_t c = {.fen = "startpos", .depth = 3, .deepen = 1,
                              .verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL};
    expect_refused(&k, &c, "--verify");

    /* the coordinator restarted on its state file: an infinite analysis does not come back,
     * nobody being left to stop it; its client is told */
    ply_client_t *cl = client_of(&k);
    Ply__Accepted *acc = NULL;
    if (ply_client_submit_search(cl, &req, 20000, &acc, why, sizeof why) != 0)
        fail_msg("infinite: %s", why);
    usleep(500000);
    th_stop(k.coord); /* SIGTERM: it keeps the run to resume */
    start_coordinator(&k);
    Ply__RunResult *res2 = NULL;
    /* the client first hears that the coordinator stops (the run is kept), then asks again */
    assert_true(ply_client_wait(cl, acc->run_id, NULL, NULL, 60000, &res2, why, sizeof why) < 0);
    print_message("at the stop: %s\n", why);
    ply_client_destroy(&cl);
    cl = client_of(&k);
    assert_true(ply_client_wait(cl, acc->run_id, NULL, NULL, 60000, &res2, why, sizeof why) < 0);
    print_message("after the restart: %s\n", why);
    assert_non_null(strstr(why, "does not resume after a restart"));
    ply__accepted__free_unpacked(acc, NULL);
    ply_client_destroy(&cl);
    cluster_stop(&k);
}

static void test_lost(void **state)
{
    (void)state;
    static cluster_t k; /* static: teardown reads it after a failed test left its frame */
    cluster_start(&k, "deepen-lost", 2);
    seen_t seen = {0};
    seen.kill = &k;
    ply_search_request_t req = {.fen = "startpos", .depth = 10, .deepen = 1};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &seen, &res, why, sizeof why) != 0) fail_msg("lost: %s", why);
    assert_int_equal(k.worker[1], 0); /* it was killed */
    ply_arb_pos_t pos;
    assert_int_equal(ply_arb_from_fen(&pos, "startpos", 0, NULL, 0), 0);
    check_answer(res, &pos, 10, 1);
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

/* A failed test leaves its cluster: stop it (its directory too). */
static int teardown(void **state)
{
    (void)state;
    if (g_live) cluster_stop(g_live);
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    const struct CMUnitTest all[] = {
        cmocka_unit_test_teardown(test_startpos, teardown),
        cmocka_unit_test_teardown(test_mate, teardown),
        cmocka_unit_test_teardown(test_limits, teardown),
        cmocka_unit_test_teardown(test_infinite, teardown),
        cmocka_unit_test_teardown(test_lost, teardown),
    };
    static const char *const names[] = {"startpos", "mate", "limits", "infinite", "lost"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(which, names[i]) == 0)
            return _cmocka_run_group_tests(names[i], &all[i], 1, NULL, NULL);
    if (strcmp(which, "all") != 0) {
        fprintf(stderr, "usage: %s [all|startpos|mate|limits|infinite|lost]\n", argv[0]);
        return 2;
    }
    return cmocka_run_group_tests(all, NULL, NULL);
}
