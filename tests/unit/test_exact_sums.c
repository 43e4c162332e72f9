/*
 * Sums checked at the top (issue 9, item 3): a coordinator sums
 * multiplicity x job count over jobs whose counts are near 2^64 (a fake
 * worker, fake_worker.h FW_INFLATE, adds I = 2^64 - 2^32 to every count it reports, its
 * perft(1) kept right), so that the run's total, its divide per root move and
 * a statistic pass 2^64; they must come out exact, also after a coordinator
 * restart on its state file in the middle of the run (restore.c sums the
 * stored results again) and after the run finished (the stored answer).
 *
 * The run: the start position, depth 4, split at ply 3: 5,362 jobs (unique
 * positions, OEIS A083276) reached by 8,902 paths (perft(3)), so many jobs
 * have a multiplicity above 1. True counts (tests/data/perft_p0_results.json,
 * the Grand Chess Tree; chessprogramming wiki, Perft Results): perft(4) =
 * 197,281, captures 1,576, total_checks 461, total_mates 8; e2e4's subtree is
 * 13,160 (Stockfish 15.1 `go perft 4`) under 600 paths of 3 plies (perft(2)
 * after e2e4 = 600). Every inflated count is then true + paths x I:
 *   nodes    197281 + 8902 x I = 164212915705928629813921
 *   captures   1576 + 8902 x I = 164212915705928629618216
 *   e2e4      13160 +  600 x I =  11068046441648750605160
 * (computed with Python's integers). The old 64-bit sums wrapped these to
 * their remainders mod 2^64 without a word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <czmq.h>
#include <unistd.h>

#include "arbiter/arbiter.h"
#include "client.h"
#include "coord_fixture.h"
#include "envelope.h"
#include "fake_worker.h"
#include "perft/split.h"
#include "store.h"
#include "util/error.h"
#include "util/u128.h"

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

static const char *dec(ply_u128_t v, char *buf)
{
    return ply_u128_to_dec(v, buf, PLY_U128_DEC_LEN);
}

/* Checks every exact figure of the run's answer. */
static void expect_exact(const Ply__RunResult *r)
{
    char buf[PLY_U128_DEC_LEN];
    ply_u128_t total = ply_msg_count(r->nodes, r->has_nodes_hi, r->nodes_hi);
    assert_string_equal(dec(total, buf), "164212915705928629813921");
    /* the old sums kept the low word alone: 164212915705928629813921 = 8901 x 2^64 +
     * 18446705839910879905 (Python's divmod) */
    assert_true(r->nodes_hi == 8901 && r->nodes == 18446705839910879905ull);
    assert_non_null(r->stats);
    ply_stats128_t st;
    ply_msg_stats128_from_proto(&st, r->stats);
    assert_true(st.v[PLY_STAT_nodes] == total);
    assert_string_equal(dec(st.v[PLY_STAT_captures], buf), "164212915705928629618216");
    assert_true(st.v[PLY_STAT_total_checks] == 461);
    assert_true(st.v[PLY_STAT_total_mates] == 8);
    assert_true(st.v[PLY_STAT_castles] == 0);
    ply_u128_t sum = 0;
    int seen = 0;
    for (size_t i = 0; i < r->n_divide; i++) {
        const Ply__DivideEntry *e = r->divide[i];
        ply_u128_t n = ply_msg_count(e->nodes, e->has_nodes_hi, e->nodes_hi);
        assert_int_equal(ply_u128_add(&sum, n), 0);
        if (!strcmp(e->move, "e2e4")) {
            assert_string_equal(dec(n, buf), "11068046441648750605160");
            seen = 1;
        }
        /* every root move's statistics were summed with it */
        assert_non_null(e->stats);
        ply_stats128_t ms;
        ply_msg_stats128_from_proto(&ms, e->stats);
        assert_true(ms.v[PLY_STAT_nodes] == n);
    }
    assert_true(seen);
    assert_int_equal(r->n_divide, 20);
    assert_true(sum == total);
}

static void test_sums_past_2_64(void **state)
{
    (void)state;
    char dir[] = "/tmp/ply-exact-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/state.db", dir);
    coord_t *t = coord_start("inproc", NULL, path);
    /* a worker that leaves after 2,000 of the 5,362 jobs */
    fake_worker_opts_t o = {.id = "first", .seed = 1, .max_jobs = 2000};
    fake_worker_t *w = fake_worker_start_opts(t->endpoint, FW_INFLATE, 8, &o);
    assert_non_null(w);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    assert_non_null(cl);
    ply_perft_request_t req = {.fen = START, .depth = 4, .stats = 1, .divide = 1, .split_depth = 3};
    Ply__Accepted *acc = NULL;
    char why[512] = "";
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    assert_int_equal(coord_wait_planned(t->endpoint, acc->run_id), 5362);
    uint64_t run = acc->run_id;
    ply__accepted__free_unpacked(acc, NULL);
    for (int i = 0; i < 6000 && !fake_worker_done(w); i++) usleep(10000);
    assert_true(fake_worker_done(w));
    fake_worker_stop(&w);
    ply_client_destroy(&cl);
    coord_stop(&t); /* interrupted: the run and its 2,000 results stay in the file */

    t = coord_start("inproc", NULL, path);
    assert_int_equal(coord_counters(t).results_restored, 2000);
    cl = ply_client_new(t->endpoint, NULL, 0);
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    assert_int_equal(ply_client_result(cl, run, 1, 5000, &res, &prog, why, sizeof why), 0);
    assert_non_null(prog);
    ply__run_progress__free_unpacked(prog, NULL);
    o = (fake_worker_opts_t){.id = "second", .seed = 2};
    w = fake_worker_start_opts(t->endpoint, FW_INFLATE, 8, &o);
    assert_non_null(w);
    int rc = ply_client_wait(cl, run, NULL, NULL, 60000, &res, why, sizeof why);
    if (rc) fail_msg("run %llu: %s (%s)", (unsigned long long)run, ply_strerror(rc), why);
    assert_int_equal(res->results_restored, 2000);
    expect_exact(res);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&w);
    ply_client_destroy(&cl);
    coord_stop(&t);

    /* finished: the answer and the summary come back from the file, exact */
    t = coord_start("inproc", NULL, path);
    cl = ply_client_new(t->endpoint, NULL, 0);
    res = NULL;
    assert_int_equal(ply_client_result(cl, run, 0, 5000, &res, &prog, why, sizeof why), 0);
    assert_non_null(res);
    expect_exact(res);
    ply__run_result__free_unpacked(res, NULL);
    Ply__StatusReply *sr = NULL;
    assert_int_equal(ply_client_status(cl, 0, 5000, &sr, NULL, why, sizeof why), 0);
    int listed = 0;
    char buf[PLY_U128_DEC_LEN];
    for (size_t i = 0; i < sr->n_run; i++) {
        const Ply__RunProgress *p = sr->run[i];
        if (p->run_id != run) continue;
        listed = 1;
        assert_string_equal(dec(ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi), buf),
                            "164212915705928629813921");
    }
    assert_true(listed);
    ply__status_reply__free_unpacked(sr, NULL);
    ply_client_destroy(&cl);
    /* another client sees that the run exists, and no word of its count */
    assert_int_equal(ply_client_set_owner_token("someone-else-entirely-0123456789"), 0);
    cl = ply_client_new(t->endpoint, NULL, 0);
    assert_int_equal(ply_client_status(cl, run, 5000, NULL, &prog, why, sizeof why), 0);
    assert_true(prog->answer_hidden);
    assert_false(prog->has_nodes || prog->has_nodes_hi);
    ply__run_progress__free_unpacked(prog, NULL);
    ply_client_destroy(&cl);
    coord_stop(&t);
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char f[160];
        snprintf(f, sizeof f, "%s%s", path, suffix[i]);
        unlink(f);
    }
    rmdir(dir);
}

static void short_wait(ply_coordinator_config_t *cfg)
{
    cfg->worker_wait_ms = 1000;
}

/*
 * One job's divide whose entries sum past 2^64 to its total modulo 2^64 (a
 * worker's 64-bit sum would wrap to agree): refused, never summed into an
 * answer. perft(2) of the start position is 400 (one job at split 0). The
 * worker is caught wrong and excluded; alone, it leaves nobody to compute the
 * job, and the run fails (after worker_wait_ms) naming it and why.
 */
static void test_job_divide_wrap_refused(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", short_wait, NULL);
    fake_worker_t *w = fake_worker_start(t->endpoint, FW_WRAP_DIVIDE, 1);
    assert_non_null(w);
    ply_perft_request_t req = {.fen = START, .depth = 2, .divide = 1, .split_depth = 0};
    Ply__RunResult *res = NULL;
    char why[512] = "";
    int rc = coord_perft(t->endpoint, &req, 20000, &res, why, sizeof why);
    if (rc == 0)
        fail_msg("a wrapped divide was accepted: total %llu", (unsigned long long)res->nodes);
    assert_non_null(strstr(why, "divide sums past 2^64"));
    fake_worker_stop(&w);
    coord_stop(&t);
}

/*
 * A sum past 2^128 - 1 fails the run with a clear error. No real run gets
 * there (it would need multiplicities above 2^64), so the state file is
 * written by hand: perft(2) of the start position split at ply 1, each job
 * given a multiplicity of 2^63 and results of 2^64 - 101 nodes; three such
 * jobs sum to 3 x 2^63 x (2^64 - 101) > 2^128. The coordinator restarted on
 * the file sums them again and fails the run naming the limit.
 */
static void test_sum_past_2_128_fails(void **state)
{
    (void)state;
    char dir[] = "/tmp/ply-exact-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], why[512] = "";
    snprintf(path, sizeof path, "%s/state.db", dir);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_arb_pos_t root;
    assert_int_equal(ply_arb_from_fen(&root, START, 0, why, sizeof why), 0);
    ply_split_t *plan = NULL;
    if (ply_split_plan(&root, 2, 1, NULL, &plan, why, sizeof why)) fail_msg("%s", why);
    for (size_t i = 0; i < plan->njobs; i++) {
        assert_int_equal(plan->jobs[i].nmult, 1);
        plan->jobs[i].multiplicity = plan->jobs[i].mult[0].count = 1ull << 63;
    }
    ply_store_run_t run = {.id = 4242, .depth = 2, .job_base = 1, .slots = 1};
    snprintf(run.fen, sizeof run.fen, "%s", START);
    /* its request, as the coordinator stores a perft run's (PLY/2's PerftRequest) */
    Ply__PerftRequest q = PLY__PERFT_REQUEST__INIT;
    q.fen = run.fen;
    q.has_depth = 1, q.depth = 2;
    q.has_chess960 = 1, q.has_stats = 1;
    q.has_split_depth = 1, q.split_depth = 1;
    uint8_t req[256];
    run.request = req, run.request_len = ply__perft_request__pack(&q, req);
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    for (uint32_t i = 0; i < 3; i++) {
        ply_store_result_t r = {.run_id = 4242, .job = i, .attempt = 1, .worker_id = "w"};
        r.nodes = UINT64_MAX - 100;
        assert_int_equal(ply_store_add_result(s, &r, why, sizeof why), 0);
    }
    ply_store_close(&s);
    ply_split_destroy(&plan);

    coord_t *t = coord_start("inproc", NULL, path);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    int rc = ply_client_result(cl, 4242, 0, 5000, &res, &prog, why, sizeof why);
    if (rc == 0 && res) fail_msg("an answer past 2^128: %llu", (unsigned long long)res->nodes);
    if (prog) ply__run_progress__free_unpacked(prog, NULL);
    assert_int_equal(rc, PLY_ERANGE);
    assert_non_null(strstr(why, "pass 2^128 - 1"));
    ply_client_destroy(&cl);
    coord_stop(&t);
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char f[160];
        snprintf(f, sizeof f, "%s%s", path, suffix[i]);
        unlink(f);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums_past_2_64),
        cmocka_unit_test(test_job_divide_wrap_refused),
        cmocka_unit_test(test_sum_past_2_128_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
