/*
 * The automatic split on simulated clusters (issue 13): fake workers on an
 * in-process coordinator announce their threads in HELLO and take a time
 * proportional to each job's size (fake_worker_opts_t.ns_per_node), so that
 * the split the coordinator chooses, its job count, the exact total
 * (published perft values) and the idle tail (RunResult.tail_ms) are those
 * of a cluster of 16 or 64 worker threads. The bound on a job is lowered
 * (min_job_nodes) because the fake workers count with the rule engine: the
 * start position's perft(5) splits as perft(8) would on a real cluster.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "client.h"
#include "coord_fixture.h"
#include "fake_worker.h"

#define START       "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define START5      4865609ull /* perft(5), published (chessprogramming.org "Perft Results") */
#define MAX_WORKERS 64

static void fine_jobs(ply_coordinator_config_t *cfg)
{
    cfg->min_job_nodes = 250; /* perft(5) at 64 threads: ply-3 jobs of ~450 estimated nodes */
    cfg->liveness = 20;       /* a simulated job of ~0.2 s sends no heartbeat */
    cfg->arbiter_budget = 0;  /* the coordinator does not recount: the workers' clock rules */
}

/* Starts @n fake workers of one thread each, @ns ns a node, and waits until all joined. */
static void start_workers(coord_t *t, fake_worker_t **w, int n, unsigned ns)
{
    for (int i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof id, "sim-%d", i);
        fake_worker_opts_t o = {.id = id, .seed = (unsigned)i + 1, .threads = 1, .ns_per_node = ns};
        w[i] = fake_worker_start_opts(t->endpoint, FW_NORMAL, 1, &o);
        assert_non_null(w[i]);
    }
    coord_wait_joined(t, (uint64_t)n);
}

static void stop_workers(fake_worker_t **w, int n)
{
    for (int i = 0; i < n; i++) fake_worker_stop(&w[i]);
}

/*
 * perft(5) of the start position on @threads one-thread workers: the split
 * @want_split with @want_jobs jobs (at least 8 a thread), the published total,
 * and an idle tail under 5% of the run.
 */
static void simulated_cluster(int threads, unsigned ns, unsigned want_split, size_t want_jobs)
{
    coord_t *t = coord_start("inproc", fine_jobs, NULL);
    fake_worker_t *w[MAX_WORKERS];
    start_workers(t, w, threads, ns);
    ply_perft_request_t req = {.fen = START, .depth = 5, .divide = 1, .split_depth = -1};
    Ply__RunResult *res = NULL;
    char why[512] = "";
    if (coord_perft(t->endpoint, &req, 120000, &res, why, sizeof why) != 0)
        fail_msg("%d threads: %s", threads, why);
    assert_int_equal(res->split_depth, want_split);
    assert_int_equal(res->jobs, want_jobs);
    assert_true(res->jobs >= 8u * (unsigned)threads);
    assert_int_equal(res->nodes, START5);
    uint64_t sum = 0;
    for (size_t i = 0; i < res->n_divide; i++) sum += res->divide[i]->nodes;
    assert_int_equal(sum, START5);
    assert_true(res->has_tail_ms);
    assert_true(res->tail_ms <= res->time_ms);
    print_message("%d threads: split %u, %u jobs, %llu ms, idle tail %llu ms (%.1f%%)\n", threads,
                  res->split_depth, res->jobs, (unsigned long long)res->time_ms,
                  (unsigned long long)res->tail_ms, 100.0 * (double)res->tail_ms / res->time_ms);
    assert_true(res->time_ms >= 1000); /* the simulated clock, not the messages, sets the pace */
    assert_true(res->tail_ms * 20 < res->time_ms);
    ply__run_result__free_unpacked(res, NULL);
    stop_workers(w, threads);
    coord_stop(&t);
}

/* 16 threads (128 jobs wanted): split 2, 400 jobs of ~1.2e4 nodes, 8 us a node. */
static void test_sixteen_threads(void **state)
{
    (void)state;
    simulated_cluster(16, 8000, 2, 400);
}

/* 64 threads (512 wanted): split 3, the 5,362 unique positions (OEIS A083276), 20 us a node. */
static void test_sixty_four_threads(void **state)
{
    (void)state;
    simulated_cluster(64, 20000, 3, 5362);
}

/* Without a worker connected the split is planned for PLY_SPLIT_DEFAULT_THREADS (16). */
static void test_no_worker_yet(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", fine_jobs, NULL);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t req = {.fen = START, .depth = 5, .split_depth = -1};
    Ply__Accepted *acc = NULL;
    char why[512];
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    /* split at 2: its 400 unique positions (at 1 there are 20, at 3 5,362) */
    assert_int_equal(coord_wait_planned(t->endpoint, acc->run_id), 400);
    ply__accepted__free_unpacked(acc, NULL);
    ply_client_destroy(&cl);
    coord_stop(&t);
}

static void unlink_state(const char *path, const char *dir)
{
    char f[160];
    unlink(path);
    snprintf(f, sizeof f, "%s-wal", path);
    unlink(f);
    snprintf(f, sizeof f, "%s-shm", path);
    unlink(f);
    rmdir(dir);
}

/*
 * A run restored from the state file keeps its stored plan: planned for 64
 * threads (split 3, 5,362 jobs), it resumes on a 16-thread cluster, which
 * would split a new run at 2, with the same jobs and the exact total.
 */
static void test_restored_keeps_plan(void **state)
{
    (void)state;
    char dir[] = "/tmp/ply-split-fit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/state.db", dir);
    coord_t *t = coord_start("inproc", fine_jobs, path);
    /* one worker announcing 64 threads, that leaves after 100 jobs */
    fake_worker_opts_t o = {.id = "big", .seed = 1, .threads = 64, .max_jobs = 100};
    fake_worker_t *big = fake_worker_start_opts(t->endpoint, FW_NORMAL, 1, &o);
    coord_wait_joined(t, 1);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t req = {.fen = START, .depth = 5, .split_depth = -1};
    Ply__Accepted *acc = NULL;
    char why[512];
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    assert_int_equal(coord_wait_planned(t->endpoint, acc->run_id), 5362); /* split at 3 */
    uint64_t run = acc->run_id;
    ply__accepted__free_unpacked(acc, NULL);
    for (int i = 0; i < 1000 && !fake_worker_done(big); i++) usleep(10000);
    assert_true(fake_worker_done(big));
    fake_worker_stop(&big);
    ply_client_destroy(&cl);
    coord_stop(&t);

    t = coord_start("inproc", fine_jobs, path);
    assert_int_equal(coord_counters(t).runs_restored, 1);
    fake_worker_t *w[16];
    start_workers(t, w, 16, 0);
    cl = ply_client_new(t->endpoint, NULL, 0);
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    assert_int_equal(ply_client_result(cl, run, 1, 5000, &res, &prog, why, sizeof why), 0);
    if (prog) ply__run_progress__free_unpacked(prog, NULL);
    if (!res)
        assert_int_equal(ply_client_wait(cl, run, NULL, NULL, 60000, &res, why, sizeof why), 0);
    assert_int_equal(res->split_depth, 3);
    assert_int_equal(res->jobs, 5362);
    assert_int_equal(res->nodes, START5);
    assert_true(res->results_restored >= 100);
    ply__run_result__free_unpacked(res, NULL);
    ply_client_destroy(&cl);
    stop_workers(w, 16);
    coord_stop(&t);
    unlink_state(path, dir);
}

/*
 * A small run in one job (split depth 0, as ply perft --epd sends its small
 * checks) has each move's subtree recounted by the rule engine: a liar whose
 * counts agree with themselves (perft(1), divide, total: +1 on one move) is
 * caught at its first result and excluded, and an honest worker gives the
 * published 8,902.
 */
static void test_small_run_recounted(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_opts_t lo = {.id = "liar", .seed = 1, .lie_permille = 1000};
    fake_worker_t *liar = fake_worker_start_opts(t->endpoint, FW_NORMAL, 1, &lo);
    coord_wait_joined(t, 1);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t req = {.fen = START, .depth = 3, .divide = 1, .split_depth = 0};
    Ply__Accepted *acc = NULL;
    char why[512];
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    uint64_t run = acc->run_id;
    ply__accepted__free_unpacked(acc, NULL);
    for (int i = 0; i < 500 && fake_worker_lies(liar) < 1; i++) usleep(10000);
    assert_int_equal(fake_worker_lies(liar), 1);
    fake_worker_opts_t ho = {.id = "honest", .seed = 2};
    fake_worker_t *honest = fake_worker_start_opts(t->endpoint, FW_NORMAL, 1, &ho);
    Ply__RunResult *res = NULL;
    if (ply_client_wait(cl, run, NULL, NULL, 20000, &res, why, sizeof why) != 0)
        fail_msg("%s", why);
    assert_int_equal(res->nodes, 8902);
    assert_int_equal(res->split_depth, 0);
    assert_non_null(res->verification);
    assert_int_equal(res->verification->excluded, 1);
    assert_int_equal(fake_worker_jobs(liar), 1);
    ply__run_result__free_unpacked(res, NULL);
    ply_client_destroy(&cl);
    fake_worker_stop(&liar);
    fake_worker_stop(&honest);
    coord_stop(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_worker_yet),       cmocka_unit_test(test_sixteen_threads),
        cmocka_unit_test(test_sixty_four_threads),  cmocka_unit_test(test_restored_keeps_plan),
        cmocka_unit_test(test_small_run_recounted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
