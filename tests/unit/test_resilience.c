/*
 * The coordinator when things go wrong, against fake workers (fake_worker.h:
 * the worker protocol, counting with the arbiter, with injected faults):
 * quarantine of a job that fails on every worker, a hung worker (heartbeats
 * without progress) dropped and its job re-queued, an unknown worker told to
 * say HELLO, the verify modes (all, sample by the rule engine, a single
 * worker, a faulty worker outvoted, three disagreeing answers quarantined,
 * a tie-break nobody can take), and a coordinator stopped mid-run and
 * restarted on its state file resuming without recomputing a finished job
 * and without forgetting a job's failed attempts.
 *
 * Expected counts: start position perft 3 = 8,902 and perft 4 = 197,281;
 * Kiwipete perft 3 = 97,862 (tests/data/perftsuite.epd, chessprogramming
 * wiki "Perft Results").
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

#include "client.h"
#include "coord_fixture.h"
#include "coordinator.h"
#include "envelope.h"
#include "fake_worker.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

#define START    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

static Ply__RunResult *perft_ok(const char *ep, const char *fen, unsigned depth, int split,
                                int verify, uint32_t ppm, uint64_t expected)
{
    Ply__RunResult *res;
    char why[512] = "";
    int r = coord_perft_verify(ep, fen, depth, split, verify, ppm, &res, why, sizeof why);
    if (r) fail_msg("perft(%u) of %s: %s (%s)", depth, fen, ply_strerror(r), why);
    assert_int_equal(res->nodes, expected);
    assert_non_null(res->verification);
    assert_int_equal(res->verification->perft1_checked, res->jobs);
    return res;
}

/* --------------------------------------------------------- leases, hangs */

static void two_attempts(ply_coordinator_config_t *cfg)
{
    cfg->max_attempts = 2;
}

/* A job that fails on every worker is quarantined: the run fails, naming it and every failure. */
static void test_quarantine(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", two_attempts, NULL);
    fake_worker_t *a = coord_fake_worker(t->endpoint, FW_ERROR_ALWAYS, "bad-a", 1, 0);
    fake_worker_t *b = coord_fake_worker(t->endpoint, FW_ERROR_ALWAYS, "bad-b", 2, 0);
    coord_wait_joined(t, 2);
    Ply__RunResult *res;
    char why[512] = "";
    int r = coord_perft_verify(t->endpoint, START, 3, 1, 0, 0, &res, why, sizeof why);
    assert_int_equal(r, PLY_EWORKER);
    assert_null(res); /* never a partial total */
    assert_non_null(strstr(why, "quarantined after 2 failed attempts"));
    assert_non_null(strstr(why, "attempt 1: "));
    assert_non_null(strstr(why, "attempt 2: "));
    assert_non_null(strstr(why, "injected failure"));
    assert_non_null(strstr(why, "/pppppppp/")); /* the position after one move: black to move */
    assert_non_null(strstr(why, " b KQkq - 0 1, 2 plies)"));
    /* the second attempt went to the other worker (prefer another worker) */
    assert_true(fake_worker_jobs(a) >= 1 && fake_worker_jobs(b) >= 1);
    fake_worker_stop(&a);
    fake_worker_stop(&b);
    coord_stop(&t);
}

static void quick_hang(ply_coordinator_config_t *cfg)
{
    cfg->hang_ms = 400;
}

/* Alive (heartbeats) but no progress: dropped, its job re-queued to the other worker. */
static void test_hung_worker(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", quick_hang, NULL);
    fake_worker_t *h = coord_fake_worker(t->endpoint, FW_HANG, "hangs", 1, 0);
    coord_wait_joined(t, 1);
    fake_worker_t *good = coord_fake_worker(t->endpoint, FW_NORMAL, "good", 2, 0);
    uint64_t t0 = ply_time_ms();
    Ply__RunResult *res = perft_ok(t->endpoint, START, 4, 1, 0, 0, 197281);
    ply__run_result__free_unpacked(res, NULL);
    ply_coordinator_counters_t k = coord_counters(t);
    assert_true(k.workers_hung >= 1);
    assert_true(k.workers_lost >= 1);
    assert_true(k.jobs_requeued >= 1);
    assert_true(ply_time_ms() - t0 < 15000);
    /* the hung worker was told Bye and left */
    for (int i = 0; i < 300 && !fake_worker_done(h); i++) usleep(10000);
    assert_true(fake_worker_done(h));
    fake_worker_stop(&h);
    fake_worker_stop(&good);
    coord_stop(&t);
}

/*
 * A worker that heartbeats rising node counts but never answers loses its job under
 * the default options (no --lease-ms, hang detection after 5 minutes): the default
 * lease rests on the job's estimated size and the worker's measured rate, never on its
 * word, and its expiry is a failed attempt; the run completes on the other worker with
 * the published total (perft(4) = 197,281, chessprogramming wiki, Perft Results).
 * Before, the run waited for ever. The fixture's heartbeats (100 ms, liveness 3) make
 * the lease floor 4 x 300 ms; the job is tiny, so the floor is its lease.
 */
static void test_stalling_worker_loses_lease(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *liar = coord_fake_worker(t->endpoint, FW_STALL, "stalls", 1, 0);
    coord_wait_joined(t, 1);
    fake_worker_t *good = coord_fake_worker(t->endpoint, FW_NORMAL, "good", 2, 0);
    uint64_t t0 = ply_time_ms();
    Ply__RunResult *res = perft_ok(t->endpoint, START, 4, 1, 0, 0, 197281);
    ply__run_result__free_unpacked(res, NULL);
    ply_coordinator_counters_t k = coord_counters(t);
    assert_true(k.jobs_requeued >= 1);
    assert_int_equal(k.workers_hung, 0); /* its counts rose: not the hang detector */
    assert_true(fake_worker_jobs(liar) >= 1);
    assert_true(ply_time_ms() - t0 < 15000);
    fake_worker_stop(&liar);
    fake_worker_stop(&good);
    coord_stop(&t);
}

/* A worker the coordinator does not know (restarted, or dropped it) is told to say HELLO. */
static void test_unknown_worker_told_hello(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_int_equal(zsock_connect(d, "%s", t->endpoint), 0);
    zsock_set_rcvtimeo(d, 5000);
    Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
    hb.has_nodes = 1, hb.nodes = 12345;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HEARTBEAT;
    m.heartbeat = &hb;
    assert_int_equal(ply_msg_send(d, &m), 0);
    ply_msg_t *in = NULL;
    char why[256];
    assert_int_equal(ply_msg_recv(d, &in, why, sizeof why), 0);
    assert_int_equal(in->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(in->error->code, PLY_ESTATE);
    assert_non_null(strstr(in->error->message, "HELLO"));
    ply_msg_free(&in);
    zsock_destroy(&d);
    coord_stop(&t);
}

/* ------------------------------------------------------------ verification */

static void no_arbiter(ply_coordinator_config_t *cfg)
{
    cfg->arbiter_budget = 0;
}

/* verify all, three workers with three seeds: every job twice on two of them. */
static void test_verify_all(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", no_arbiter, NULL);
    fake_worker_t *w[3];
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "w%d", i + 1);
        w[i] = coord_fake_worker(t->endpoint, FW_NORMAL, id, (unsigned)i + 1, 0);
    }
    coord_wait_joined(t, 3);
    Ply__RunResult *res =
        perft_ok(t->endpoint, KIWIPETE, 3, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, 97862);
    const Ply__Verification *v = res->verification;
    assert_string_equal(v->mode, "all");
    assert_int_equal(v->jobs_selected, 48);
    assert_int_equal(v->checked_by_worker, 48);
    assert_int_equal(v->checked_same_seed + v->checked_same_worker + v->checked_by_arbiter, 0);
    assert_int_equal(v->mismatches, 0);
    assert_true(v->workers >= 2 && v->seeds >= 2);
    assert_non_null(strstr(v->summary, "48 by another worker with another Zobrist seed"));
    ply__run_result__free_unpacked(res, NULL);
    for (int i = 0; i < 3; i++) fake_worker_stop(&w[i]);
    coord_stop(&t);
}

/* One worker: the check runs on it, without its hash table, and the report says so. */
static void test_verify_single_worker(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", no_arbiter, NULL);
    fake_worker_t *w = coord_fake_worker(t->endpoint, FW_NORMAL, "alone", 7, 0);
    coord_wait_joined(t, 1);
    Ply__RunResult *res =
        perft_ok(t->endpoint, START, 3, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, 8902);
    const Ply__Verification *v = res->verification;
    assert_int_equal(v->checked_same_worker, 20);
    assert_int_equal(v->checked_by_worker, 0); /* never claimed */
    assert_non_null(strstr(v->summary, "same worker"));
    assert_non_null(strstr(v->summary, "not a check on another worker"));
    assert_int_equal(fake_worker_no_hash_jobs(w), 20);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&w);
    coord_stop(&t);
}

/* Two workers sharing a seed: the check is "another worker, same seed". It is sent exactly as a
 * first computation (with its hash table): nothing tells the checking worker it is a check. */
static void test_verify_same_seed(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", no_arbiter, NULL);
    fake_worker_t *a = coord_fake_worker(t->endpoint, FW_NORMAL, "a", 0, 0);
    fake_worker_t *b = coord_fake_worker(t->endpoint, FW_NORMAL, "b", 0, 0);
    coord_wait_joined(t, 2);
    Ply__RunResult *res =
        perft_ok(t->endpoint, START, 3, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, 8902);
    assert_int_equal(res->verification->checked_same_seed, 20);
    assert_int_equal(res->verification->checked_by_worker, 0);
    assert_int_equal(fake_worker_no_hash_jobs(a) + fake_worker_no_hash_jobs(b), 0);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&a);
    fake_worker_stop(&b);
    coord_stop(&t);
}

/* sample=0.25 of 400 small jobs: each chosen with probability 1/4 (a CSPRNG, see
 * test_trust.c), about 100, all counted again by the rule engine. */
static void test_verify_sample_arbiter(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *w = coord_fake_worker(t->endpoint, FW_NORMAL, "s", 1, 0);
    Ply__RunResult *res =
        perft_ok(t->endpoint, START, 4, 2, PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE, 250000, 197281);
    const Ply__Verification *v = res->verification;
    assert_string_equal(v->mode, "sample=0.25");
    /* binomial(400, 1/4): mean 100, sd 8.7; outside 100 +- 45 (5.2 sd) once in 10^7 runs */
    assert_true(v->jobs_selected >= 55 && v->jobs_selected <= 145);
    assert_int_equal(v->checked_by_arbiter, v->jobs_selected);
    assert_int_equal(v->mismatches, 0);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&w);
    coord_stop(&t);
}

/* A faulty worker is outvoted by a third worker: right total, the report names it. */
static void test_verify_faulty_outvoted(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", no_arbiter, NULL);
    fake_worker_t *bad = coord_fake_worker(t->endpoint, FW_NORMAL, "faulty-one", 3, 1);
    fake_worker_t *a = coord_fake_worker(t->endpoint, FW_NORMAL, "good-a", 1, 0);
    fake_worker_t *b = coord_fake_worker(t->endpoint, FW_NORMAL, "good-b", 2, 0);
    coord_wait_joined(t, 3);
    Ply__RunResult *res =
        perft_ok(t->endpoint, START, 3, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, 8902);
    const Ply__Verification *v = res->verification;
    assert_true(v->mismatches >= 1);
    assert_int_equal(v->resolved, v->mismatches);
    assert_true(v->n_mismatch >= 1);
    for (size_t i = 0; i < v->n_mismatch; i++) {
        const Ply__Mismatch *x = v->mismatch[i];
        assert_true(x->resolved);
        assert_int_equal(x->n_computation, 3);
        int named = 0;
        for (size_t k = 0; k < x->n_computation; k++)
            named |= strcmp(x->computation[k]->worker_id, "faulty-one") == 0 &&
                     x->computation[k]->nodes == x->accepted_nodes + 1;
        assert_true(named);
        assert_non_null(strstr(v->detail[i], "faulty-one outvoted"));
    }
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&bad);
    fake_worker_stop(&a);
    fake_worker_stop(&b);
    coord_stop(&t);
}

/* The rule engine settles a tie and drills down to the first move that differs. */
static void test_verify_drill_down(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *bad = coord_fake_worker(t->endpoint, FW_NORMAL, "off-by-one", 3, 1);
    fake_worker_t *a = coord_fake_worker(t->endpoint, FW_NORMAL, "good", 1, 0);
    coord_wait_joined(t, 2);
    Ply__RunResult *res =
        perft_ok(t->endpoint, KIWIPETE, 3, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, 97862);
    const Ply__Verification *v = res->verification;
    assert_true(v->mismatches >= 1);
    assert_int_equal(v->resolved, v->mismatches);
    /* the fake's divide is off in its first move: the drill-down names it */
    assert_non_null(v->mismatch[0]->drill_down);
    assert_non_null(strstr(v->mismatch[0]->drill_down, "first differing move"));
    assert_non_null(strstr(v->mismatch[0]->drill_down, "off-by-one counts"));
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&bad);
    fake_worker_stop(&a);
    coord_stop(&t);
}

/* Three different answers: the job is quarantined, the run fails with all of them. */
static void test_verify_three_answers(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", no_arbiter, NULL);
    fake_worker_t *w[3];
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "liar%d", i);
        w[i] = coord_fake_worker(t->endpoint, FW_NORMAL, id, (unsigned)i, i);
    }
    coord_wait_joined(t, 3);
    Ply__RunResult *res;
    char why[512] = "";
    int r = coord_perft_verify(t->endpoint, START, 2, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, &res,
                               why, sizeof why);
    assert_int_equal(r, PLY_EMISMATCH);
    assert_null(res);
    assert_non_null(strstr(why, "quarantined: three computations disagree"));
    assert_non_null(strstr(why, "liar0"));
    assert_non_null(strstr(why, "liar1"));
    assert_non_null(strstr(why, "liar2"));
    for (int i = 0; i < 3; i++) fake_worker_stop(&w[i]);
    coord_stop(&t);
}

static void short_tie_wait(ply_coordinator_config_t *cfg)
{
    cfg->arbiter_budget = 0;
    cfg->worker_wait_ms = 500;
}

/* Two workers disagree and no third comes: the job is quarantined after worker_wait_ms. */
static void test_verify_no_third_worker(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", short_tie_wait, NULL);
    fake_worker_t *a = coord_fake_worker(t->endpoint, FW_NORMAL, "a", 1, 0);
    fake_worker_t *b = coord_fake_worker(t->endpoint, FW_NORMAL, "b", 2, 5);
    coord_wait_joined(t, 2);
    Ply__RunResult *res;
    char why[512] = "";
    int r = coord_perft_verify(t->endpoint, START, 2, 1, PLY__VERIFY_MODE__VERIFY_MODE_ALL, 0, &res,
                               why, sizeof why);
    assert_int_equal(r, PLY_EMISMATCH);
    assert_non_null(strstr(why, "no third worker"));
    fake_worker_stop(&a);
    fake_worker_stop(&b);
    coord_stop(&t);
}

/* ------------------------------------------------------------------ restart */

/* Stopped mid-run, restarted on its state file: finished jobs are read back, never recomputed. */
static void test_restart_resumes(void **state)
{
    (void)state;
    char dir[] = "/tmp/ply-resilience-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/state.db", dir);
    coord_t *t = coord_start("inproc", NULL, path);
    /* a worker that leaves after 12 of the 48 jobs */
    fake_worker_opts_t o = {.id = "quitter", .seed = 1, .max_jobs = 12};
    fake_worker_t *w = fake_worker_start_opts(t->endpoint, FW_NORMAL, 1, &o);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t req = {.fen = KIWIPETE, .depth = 3, .divide = 1, .split_depth = 1};
    Ply__Accepted *acc = NULL;
    char why[512];
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    uint64_t run = acc->run_id;
    ply__accepted__free_unpacked(acc, NULL);
    for (int i = 0; i < 500 && !fake_worker_done(w); i++) usleep(10000);
    assert_true(fake_worker_done(w));
    fake_worker_stop(&w);
    ply_client_destroy(&cl);
    coord_stop(&t); /* the run is interrupted, not finished: it stays in the file */

    t = coord_start("inproc", NULL, path);
    ply_coordinator_counters_t k = coord_counters(t);
    assert_int_equal(k.runs_restored, 1);
    assert_int_equal(k.results_restored, 12);
    /* a client attaches to the restored run and gets its answer */
    cl = ply_client_new(t->endpoint, NULL, 0);
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    assert_int_equal(ply_client_result(cl, run, 1, 5000, &res, &prog, why, sizeof why), 0);
    assert_non_null(prog);
    assert_int_equal(prog->results_restored, 12);
    ply__run_progress__free_unpacked(prog, NULL);
    w = coord_fake_worker(t->endpoint, FW_NORMAL, "finisher", 2, 0);
    assert_int_equal(ply_client_wait(cl, run, NULL, NULL, 20000, &res, why, sizeof why), 0);
    assert_int_equal(res->nodes, 97862);
    assert_int_equal(res->results_restored, 12);
    assert_int_equal(res->results_restored + res->results_computed, 48); /* none twice */
    assert_int_equal(fake_worker_jobs(w), 36);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&w);
    ply_client_destroy(&cl);
    coord_stop(&t);

    /* a third start: the run is finished; its answer comes from the file */
    t = coord_start("inproc", NULL, path);
    assert_int_equal(coord_counters(t).runs_restored, 0);
    cl = ply_client_new(t->endpoint, NULL, 0);
    assert_int_equal(ply_client_result(cl, run, 0, 5000, &res, &prog, why, sizeof why), 0);
    assert_non_null(res);
    assert_int_equal(res->nodes, 97862);
    ply__run_result__free_unpacked(res, NULL);
    Ply__StatusReply *sr = NULL;
    assert_int_equal(ply_client_status(cl, 0, 5000, &sr, NULL, why, sizeof why), 0);
    assert_true(sr->durable);
    assert_int_equal(sr->n_run, 1);
    assert_string_equal(sr->run[0]->state, "done");
    ply__status_reply__free_unpacked(sr, NULL);
    ply_client_destroy(&cl);
    coord_stop(&t);
    unlink(path);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rmdir(dir);
}

static void many_attempts_short_lease(ply_coordinator_config_t *cfg)
{
    cfg->max_attempts = 1000;
    cfg->lease_ms = 300;
}

/*
 * Failed attempts survive a restart: a job whose lease expired on worker
 * "before" (a hung worker) is, after the coordinator restarts on its state
 * file with max_attempts 2, quarantined at its first failure on worker
 * "after", and the report names both. Without the stored count it would have
 * taken two new failures, both on "after".
 */
static void test_failures_survive_restart(void **state)
{
    (void)state;
    char dir[] = "/tmp/ply-resilience-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/state.db", dir);
    coord_t *t = coord_start("inproc", many_attempts_short_lease, path);
    fake_worker_t *w = coord_fake_worker(t->endpoint, FW_HANG, "before", 1, 0);
    coord_wait_joined(t, 1);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t req = {.fen = START, .depth = 3, .split_depth = 0}; /* one job */
    Ply__Accepted *acc = NULL;
    char why[1024] = "";
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    uint64_t run = acc->run_id;
    ply__accepted__free_unpacked(acc, NULL);
    for (int i = 0; i < 500 && coord_counters(t).jobs_requeued < 1; i++) usleep(10000);
    assert_true(coord_counters(t).jobs_requeued >= 1); /* the lease expired at least once */
    ply_client_destroy(&cl);
    fake_worker_stop(&w);
    coord_stop(&t); /* interrupted: the run stays in the file */

    t = coord_start("inproc", two_attempts, path);
    assert_int_equal(coord_counters(t).runs_restored, 1);
    /* attach to the restored run before any worker can fail it */
    cl = ply_client_new(t->endpoint, NULL, 0);
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    assert_int_equal(ply_client_result(cl, run, 1, 5000, &res, &prog, why, sizeof why), 0);
    assert_non_null(prog); /* still running */
    ply__run_progress__free_unpacked(prog, NULL);
    w = coord_fake_worker(t->endpoint, FW_ERROR_ALWAYS, "after", 2, 0);
    int r = ply_client_wait(cl, run, NULL, NULL, 20000, &res, why, sizeof why);
    ply_client_destroy(&cl);
    assert_int_equal(r, PLY_EWORKER);
    assert_null(res);
    /* (the lease may have expired more than once before the stop) */
    if (!strstr(why, "quarantined after") ||
        !strstr(why, "attempt 1: lease of 300 ms expired on worker before") ||
        !strstr(why, ": worker after: injected failure"))
        fail_msg("%s", why);
    fake_worker_stop(&w);
    coord_stop(&t);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    zsys_handler_set(NULL);
    ply_log_set_level(getenv("PLY_TEST_VERBOSE") ? PLY_LOG_DEBUG : PLY_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quarantine),
        cmocka_unit_test(test_failures_survive_restart),
        cmocka_unit_test(test_hung_worker),
        cmocka_unit_test(test_stalling_worker_loses_lease),
        cmocka_unit_test(test_unknown_worker_told_hello),
        cmocka_unit_test(test_verify_all),
        cmocka_unit_test(test_verify_single_worker),
        cmocka_unit_test(test_verify_same_seed),
        cmocka_unit_test(test_verify_sample_arbiter),
        cmocka_unit_test(test_verify_faulty_outvoted),
        cmocka_unit_test(test_verify_drill_down),
        cmocka_unit_test(test_verify_three_answers),
        cmocka_unit_test(test_verify_no_third_worker),
        cmocka_unit_test(test_restart_resumes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
