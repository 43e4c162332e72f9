/*
 * Chaos and verification end to end, with the real programs on loopback:
 * ply-coordinator (with a state file), three ply-worker processes and the
 * ply command, during Kiwipete perft(6) = 8,031,647,685 split at ply 2
 * (2,038 jobs; chessprogramming wiki "Perft Results", position 2).
 *
 *   chaos    one worker SIGKILLed mid-job; one SIGSTOPped for longer than
 *            the coordinator waits for a silent worker, then SIGCONTed; the
 *            coordinator SIGKILLed and restarted on its state file. Each time
 *            the answer is exact, and after the restart the state file holds
 *            exactly one result per job and the report shows every result
 *            read back as never recomputed (restored + computed = jobs).
 *   verify   a faulty worker (ply-worker-faulty: one count in N off by one)
 *            among two good ones, under --verify all: the run reports the
 *            right total, the mismatches, and names the faulty worker; once
 *            with the rule engine settling ties (and drilling down), once
 *            with a third worker settling them.
 *   cli      ply perft --detach, ply status, ply result (--wait, --json), and
 *            ply perft --state FILE resuming after Ctrl-C and after SIGKILL.
 *   slow     all of it in one longer run: the coordinator killed three times,
 *            a worker killed and another stopped meanwhile.
 *
 * Every spawned program is stopped before an assertion can fail, so that a
 * failing test never leaves one behind holding ctest's output pipe.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>

#include "client.h"
#include "harness.h"
#include "util/error.h"

#define KIWIPETE   "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define KIWI6      8031647685ull /* perft(6), chessprogramming wiki */
#define KIWI5      193690690ull  /* perft(5) */
#define KIWI6_JOBS 2038          /* unique positions after 2 plies (checked by test_split) */

/* One cluster: a coordinator with a state file and its workers. */
typedef struct cluster {
    char dir[128], ep[64], state[192];
    int port;
    pid_t coord;
    pid_t worker[4];
    int nworkers;
} cluster_t;

static void start_coordinator(cluster_t *k, const char *extra)
{
    char log[256];
    snprintf(log, sizeof log, "%s/coordinator.log", k->dir);
    k->coord = th_spawn(log,
                        "exec ply-coordinator --bind %s --state %s --heartbeat-ms 200 "
                        "--liveness 5 -v %s",
                        k->ep, k->state, extra ? extra : "");
}

static pid_t start_worker(cluster_t *k, const char *exe, int i, const char *extra)
{
    char log[256];
    snprintf(log, sizeof log, "%s/w%d.log", k->dir, i);
    return th_spawn(log,
                    "exec %s --connect %s --threads 1 --hash 16 --zobrist-seed %d --id w%d -v %s",
                    exe, k->ep, i, i, extra ? extra : "");
}

static void cluster_start(cluster_t *k, const char *tag, int workers, const char *coord_extra)
{
    memset(k, 0, sizeof *k);
    snprintf(k->dir, sizeof k->dir, "%s", th_tmpdir(tag));
    k->port = th_free_port();
    snprintf(k->ep, sizeof k->ep, "tcp://127.0.0.1:%d", k->port);
    snprintf(k->state, sizeof k->state, "%s/state.db", k->dir);
    start_coordinator(k, coord_extra);
    k->nworkers = workers;
    for (int i = 0; i < workers; i++) k->worker[i] = start_worker(k, "ply-worker", i + 1, NULL);
}

static void cluster_stop(cluster_t *k)
{
    for (int i = 0; i < k->nworkers; i++) {
        if (k->worker[i] > 0) kill(k->worker[i], SIGCONT);
        th_stop(k->worker[i]);
        k->worker[i] = 0;
    }
    th_stop(k->coord);
    k->coord = 0;
}

/* Prints the last @lines lines of @path, if it exists. */
static void print_tail(const char *path, int lines)
{
    char *text = th_slurp(path);
    if (!text || !*text) {
        free(text);
        return;
    }
    const char *from = text + strlen(text);
    for (int n = 0; from > text && n <= lines;)
        if (*--from == '\n') n++;
    print_message("---- %s (last %d lines)\n%s\n", path, lines, from == text ? from : from + 1);
    free(text);
}

/*
 * Checks @cond; when it fails, prints the end of the cluster's logs (the programs
 * log with PLY_LOG_TIME stamps) and fails the test naming it: a failure on a loaded
 * CI machine then says what the coordinator and the workers did.
 */
#define expect_k(k, cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            explain(k);                                                                            \
            fail_msg("%s", #cond);                                                                 \
        }                                                                                          \
    } while (0)

static void explain(const cluster_t *k)
{
    char path[256];
    snprintf(path, sizeof path, "%s/coordinator.log", k->dir);
    print_tail(path, 80);
    for (int i = 1; i <= 4; i++) {
        snprintf(path, sizeof path, "%s/w%d.log", k->dir, i);
        print_tail(path, 30);
    }
    snprintf(path, sizeof path, "%s/run.err", k->dir);
    print_tail(path, 10);
}

/* Waits up to @timeout_ms (scaled by th_slowdown) for @pid to exit: its exit status, or -1
 * (killed, or timed out). */
static int wait_exit(pid_t pid, int timeout_ms)
{
    int st;
    const uint64_t limit = (uint64_t)timeout_ms * th_slowdown();
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < limit;) {
        if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        usleep(20000);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/* The run's progress, or NULL when the coordinator does not answer (caller frees). */
static Ply__RunProgress *progress(const cluster_t *k, uint64_t run)
{
    ply_client_t *cl = ply_client_new(k->ep, NULL, 0);
    Ply__RunProgress *p = NULL;
    char why[256];
    if (cl) ply_client_status(cl, run, 2000, NULL, &p, why, sizeof why);
    ply_client_destroy(&cl);
    return p;
}

static Ply__StatusReply *status(const cluster_t *k)
{
    ply_client_t *cl = ply_client_new(k->ep, NULL, 0);
    Ply__StatusReply *r = NULL;
    char why[256];
    if (cl) ply_client_status(cl, 0, 2000, &r, NULL, why, sizeof why);
    ply_client_destroy(&cl);
    return r;
}

/* The id of the cluster's one run (run ids are random), or 0 while it has none. */
static uint64_t the_run(const cluster_t *k)
{
    Ply__StatusReply *r = status(k);
    uint64_t id = r && r->n_run > 0 ? r->run[0]->run_id : 0;
    if (r) ply__status_reply__free_unpacked(r, NULL);
    return id;
}

/* Waits until the cluster's run has at least @done jobs done and worker @id holds a job. 1, or 0 on
 * timeout (a minute, scaled by th_slowdown). */
static int wait_progress(const cluster_t *k, uint32_t done, const char *id)
{
    const uint64_t limit = 60000ull * th_slowdown();
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < limit; usleep(50000)) {
        const uint64_t run = the_run(k);
        Ply__RunProgress *p = run ? progress(k, run) : NULL;
        int ok = p && p->jobs_done >= done;
        for (size_t i = 0; ok && id && i < p->n_worker; i++)
            if (!strcmp(p->worker[i]->worker_id, id)) ok = p->worker[i]->jobs_in_flight > 0 ? 2 : 1;
        if (p) ply__run_progress__free_unpacked(p, NULL);
        if (ok == 2 || (ok && !id)) return 1;
    }
    return 0;
}

/* Waits until the coordinator lists @n workers, for up to @timeout_ms scaled by th_slowdown;
 * the milliseconds it took, or -1. */
static long wait_workers(const cluster_t *k, size_t n, int timeout_ms)
{
    uint64_t t0 = th_now_ms();
    while (th_now_ms() - t0 < (uint64_t)timeout_ms * th_slowdown()) {
        Ply__StatusReply *r = status(k);
        size_t have = r ? r->n_worker : 0;
        if (r) ply__status_reply__free_unpacked(r, NULL);
        if (have >= n) return (long)(th_now_ms() - t0);
        usleep(20000);
    }
    return -1;
}

/*
 * Waits until the coordinator lists worker @id (@listed 1) or does not (0),
 * for up to @timeout_ms scaled by th_slowdown; the milliseconds it took, or
 * -1. By its id, not by a count: on a loaded machine another worker starved
 * of the CPU for a second misses its heartbeats too, and is dropped and
 * back a moment later.
 */
static long wait_listed(const cluster_t *k, const char *id, int listed, int timeout_ms)
{
    uint64_t t0 = th_now_ms();
    while (th_now_ms() - t0 < (uint64_t)timeout_ms * th_slowdown()) {
        Ply__StatusReply *r = status(k);
        int has = 0;
        for (size_t i = 0; r && i < r->n_worker; i++)
            has |= r->worker[i]->worker_id && !strcmp(r->worker[i]->worker_id, id);
        if (r) ply__status_reply__free_unpacked(r, NULL);
        if (r && has == listed) return (long)(th_now_ms() - t0);
        usleep(50000);
    }
    return -1;
}

/* Starts `ply perft` on the cluster in the background, its JSON going to DIR/NAME.json. */
static pid_t start_client(const cluster_t *k, const char *name, const char *args)
{
    return th_spawn(
        NULL, "exec ply perft --coordinator %s %s --json --timeout 60 >%s/%s.json 2>%s/%s.err",
        k->ep, args, k->dir, name, k->dir, name);
}

static json_t *client_json(const cluster_t *k, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.json", k->dir, name);
    json_error_t err;
    json_t *o = json_load_file(path, 0, &err);
    if (!o) {
        snprintf(path, sizeof path, "%s/%s.err", k->dir, name);
        char *e = th_slurp(path);
        print_message("client %s: no JSON (%s); stderr: %s\n", name, err.text, e);
        free(e);
    }
    return o;
}

static uint64_t ju(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b) v = json_object_get(v, b);
    return (uint64_t)json_integer_value(v);
}

/* Rows and distinct jobs of the results table (the coordinator must not hold the file). */
static void count_results(const char *state, int *rows, int *jobs)
{
    sqlite3 *db;
    *rows = *jobs = -1;
    if (sqlite3_open_v2(state, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*), count(DISTINCT run_id || '/' || idx) FROM results",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        *rows = sqlite3_column_int(st, 0);
        *jobs = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* Removes a test's scratch directory; called last, so a failed test leaves its logs. */
static void remove_dir(const char *dir)
{
    th_run_t r = th_run(30, "rm -rf '%s'", dir);
    th_run_free(&r);
}

static const char KIWI6_ARGS[] = "--fen '" KIWIPETE "' -d 6 --split-depth 2";

/* A cluster of three workers running `ply perft` on Kiwipete perft(6) in the background,
 * its JSON in DIR/run.json: the client's pid; *joined, what wait_workers said. */
static pid_t start_kiwi6(cluster_t *k, const char *tag, long *joined)
{
    cluster_start(k, tag, 3, NULL);
    *joined = wait_workers(k, 3, 10000);
    return start_client(k, "run", KIWI6_ARGS);
}

/* The client's answer, which must be there and exact (caller json_decref()s it). */
static json_t *kiwi6_answer(const cluster_t *k)
{
    json_t *o = client_json(k, "run");
    assert_non_null(o);
    assert_true(ju(o, "nodes", NULL) == KIWI6);
    return o;
}

/* The state file holds one result per job: nothing counted twice, none missing. */
static void expect_one_result_per_job(const cluster_t *k)
{
    int rows, jobs;
    count_results(k->state, &rows, &jobs);
    assert_int_equal(rows, KIWI6_JOBS);
    assert_int_equal(jobs, KIWI6_JOBS);
}

/* ------------------------------------------------------------------ chaos */

static void test_worker_killed(void **state)
{
    (void)state;
    cluster_t k;
    long joined;
    pid_t cl = start_kiwi6(&k, "chaos-kill", &joined);
    int mid = joined >= 0 && wait_progress(&k, 150, "w1");
    if (mid) kill(k.worker[0], SIGKILL); /* mid-job: it holds one */
    int rc = wait_exit(cl, 120000);
    Ply__StatusReply *r = status(&k);
    cluster_stop(&k);
    expect_k(&k, mid);
    expect_k(&k, rc == 0);
    json_t *o = kiwi6_answer(&k);
    assert_true(ju(o, "jobs", NULL) == KIWI6_JOBS);
    assert_non_null(r);
    assert_true(r->workers_lost >= 1);
    assert_true(r->jobs_requeued >= 1);
    print_message("worker killed: %llu workers lost, %llu jobs re-queued\n",
                  (unsigned long long)r->workers_lost, (unsigned long long)r->jobs_requeued);
    ply__status_reply__free_unpacked(r, NULL);
    json_decref(o);
    expect_one_result_per_job(&k);
    remove_dir(k.dir);
}

static void test_worker_stopped(void **state)
{
    (void)state;
    cluster_t k;
    long joined;
    pid_t cl = start_kiwi6(&k, "chaos-stop", &joined);
    int mid = joined >= 0 && wait_progress(&k, 150, "w2");
    long dropped = -1, back = -1;
    if (mid) {
        kill(k.worker[1], SIGSTOP);
        /* silent for liveness x heartbeat = 1 s: the coordinator drops it, re-queues its jobs */
        dropped = wait_listed(&k, "w2", 0, 5000);
        usleep(1000000); /* stays stopped well past it */
        kill(k.worker[1], SIGCONT);
        back = wait_listed(&k, "w2", 1, 10000); /* it says HELLO again by itself */
    }
    int rc = wait_exit(cl, 120000);
    cluster_stop(&k);
    expect_k(&k, mid);
    print_message("stopped worker dropped after %ld ms, back %ld ms after SIGCONT\n", dropped,
                  back);
    expect_k(&k, dropped >= 0);
    expect_k(&k, back >= 0);
    expect_k(&k, rc == 0);
    json_t *o = kiwi6_answer(&k);
    json_decref(o);
    expect_one_result_per_job(&k);
    remove_dir(k.dir);
}

static void test_coordinator_restarted(void **state)
{
    (void)state;
    cluster_t k;
    long joined;
    pid_t cl = start_kiwi6(&k, "chaos-restart", &joined);
    int mid = joined >= 0 && wait_progress(&k, 300, NULL);
    int rows0 = -1, jobs0 = -1;
    long rejoined = -1;
    uint64_t restart_ms = 0;
    if (mid) {
        kill(k.coord, SIGKILL);
        waitpid(k.coord, NULL, 0);
        count_results(k.state, &rows0, &jobs0); /* what it had stored when it died */
        usleep(300000);
        restart_ms = th_now_ms();
        start_coordinator(&k, NULL);
        rejoined = wait_workers(&k, 3, 15000);
    }
    int rc = wait_exit(cl, 120000);
    uint64_t finish_ms = th_now_ms();
    cluster_stop(&k);
    expect_k(&k, mid);
    expect_k(&k, rejoined >= 0);
    expect_k(&k, rc == 0);
    json_t *o = kiwi6_answer(&k);
    uint64_t restored = ju(o, "verified", "results_restored");
    uint64_t computed = ju(o, "verified", "results_computed");
    print_message("restart: %d results stored before the SIGKILL, %llu read back, %llu computed "
                  "after; workers back %ld ms after the restart, run done %llu ms after it\n",
                  rows0, (unsigned long long)restored, (unsigned long long)computed, rejoined,
                  (unsigned long long)(finish_ms - restart_ms));
    assert_true(rows0 > 0 && rows0 == jobs0);
    assert_true(restored == (uint64_t)rows0);       /* every stored result read back ... */
    assert_true(restored + computed == KIWI6_JOBS); /* ... and none computed again */
    json_decref(o);
    expect_one_result_per_job(&k);
    remove_dir(k.dir);
}

/* ----------------------------------------------------------------- verify */

static void faulty_run(const char *tag, const char *coord_extra, int by_rule_engine)
{
    cluster_t k;
    cluster_start(&k, tag, 2, coord_extra);
    /* Every count the faulty worker returns is off by one: with one in N, a
     * run where the two honest workers took all but N - 1 of its jobs found
     * no mismatch (seen once in four runs of the suite on 2 loaded cores). */
    k.worker[2] = th_spawn(NULL,
                           "exec ply-worker-faulty --connect %s --threads 1 --hash 16 "
                           "--zobrist-seed 3 --id faulty-worker --fault-every 1 -q",
                           k.ep);
    k.nworkers = 3;
    long joined = wait_workers(&k, 3, 10000);
    pid_t cl = start_client(&k, "run", "--fen '" KIWIPETE "' -d 5 --split-depth 1 --verify all");
    int rc = wait_exit(cl, 120000);
    cluster_stop(&k);
    assert_true(joined >= 0);
    json_t *o = client_json(&k, "run");
    assert_non_null(o);
    assert_int_equal(rc, 1);                    /* a mismatch was found: the user must hear of it */
    assert_true(ju(o, "nodes", NULL) == KIWI5); /* ... and the total is right */
    json_t *v = json_object_get(o, "verified");
    uint64_t mism = ju(o, "verified", "mismatches");
    print_message("%s: %llu mismatches; %s\n", tag, (unsigned long long)mism,
                  json_string_value(json_object_get(v, "verify_summary")));
    assert_true(mism >= 1);
    assert_true(ju(o, "verified", "resolved") == mism);
    assert_true(ju(o, "verified", "jobs_selected") == 48);
    if (by_rule_engine)
        assert_true(ju(o, "verified", "checked_by_rule_engine") >= 1);
    else
        assert_true(ju(o, "verified", "checked_by_rule_engine") == 0);
    json_t *list = json_object_get(v, "mismatch_list"), *m;
    size_t i;
    assert_true(json_array_size(list) == mism);
    json_array_foreach(list, i, m)
    {
        int named = 0;
        json_t *c;
        size_t j;
        json_array_foreach(json_object_get(m, "computations"), j, c)
        {
            if (!strcmp(json_string_value(json_object_get(c, "worker")), "faulty-worker") &&
                json_integer_value(json_object_get(c, "nodes")) ==
                    json_integer_value(json_object_get(m, "accepted_nodes")) + 1)
                named = 1;
        }
        assert_true(named);
        assert_true(json_is_true(json_object_get(m, "resolved")));
        if (by_rule_engine) assert_non_null(json_string_value(json_object_get(m, "drill_down")));
    }
    json_decref(o);
    remove_dir(k.dir);
}

/* Ties settled by the rule engine (jobs of ~4 million nodes), with drill-downs. */
static void test_faulty_worker(void **state)
{
    (void)state;
    faulty_run("verify-arbiter", NULL, 1);
}

/* The rule engine kept out: the third computation comes from the third worker. */
static void test_faulty_worker_third(void **state)
{
    (void)state;
    faulty_run("verify-third", "--arbiter-budget 0", 0);
}

/* -------------------------------------------------------------------- cli */

/* The jobs_total of `ply status RUN --json`'s output @out (0: none, or not JSON). */
static long long jobs_total(const char *out)
{
    json_t *p = json_loads(out, 0, NULL);
    long long n = json_integer_value(json_object_get(p, "jobs_total"));
    json_decref(p);
    return n;
}

static void test_detach_status_result(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "cli", 2, NULL);
    long joined = wait_workers(&k, 2, 10000);
    th_run_t d = th_run(
        30, "ply perft --coordinator %s --fen '" KIWIPETE "' -d 6 --split-depth 2 --detach", k.ep);
    /* run ids are random 64-bit numbers: use the one printed */
    char *end = NULL;
    const unsigned long long id = d.status == 0 ? strtoull(d.out, &end, 10) : 0;
    const int id_line = id != 0 && end && !strcmp(end, "\n");
    th_run_t st = th_run(30, "ply status --coordinator %s", k.ep);
    /* the run is acknowledged before it is planned (issue 27): its jobs_total comes with its
     * plan, a moment later */
    th_run_t st1 = th_run(30, "ply status --coordinator %s %llu --json", k.ep, id);
    for (int i = 0; i < 100 * (int)th_slowdown() && st1.status == 0 && !jobs_total(st1.out); i++) {
        th_run_free(&st1);
        usleep(100000);
        st1 = th_run(30, "ply status --coordinator %s %llu --json", k.ep, id);
    }
    th_run_t early = th_run(30, "ply result --coordinator %s %llu", k.ep, id);
    th_run_t res = th_run(120, "ply result --coordinator %s %llu --wait --json", k.ep, id);
    th_run_t text = th_run(30, "ply result --coordinator %s %llu --divide", k.ep, id);
    th_run_t none = th_run(30, "ply result --coordinator %s 99", k.ep);
    th_run_t bad = th_run(30, "ply perft -d 3 --detach");
    cluster_stop(&k);
    assert_true(joined >= 0);
    assert_int_equal(d.status, 0);
    assert_true(id_line); /* the run id alone on its line, at once */
    assert_non_null(strstr(d.err, "ply result"));
    assert_int_equal(st.status, 0);
    assert_non_null(strstr(st.out, "keeps a state file"));
    assert_non_null(strstr(st.out, "r3k2r/p1ppqpb1"));
    assert_non_null(strstr(st.out, "w1"));
    assert_int_equal(st1.status, 0);
    json_error_t err;
    json_t *p = json_loads(st1.out, 0, &err);
    assert_non_null(p);
    assert_true(json_integer_value(json_object_get(p, "jobs_total")) == KIWI6_JOBS);
    json_decref(p);
    /* still running a moment after submission: says so, exit 1 */
    if (early.status == 1) assert_non_null(strstr(early.err, "use --wait"));
    if (res.status != 0) print_message("ply result --wait: %s", res.err);
    expect_k(&k, res.status == 0);
    json_t *o = json_loads(res.out, 0, &err);
    assert_non_null(o);
    assert_true(ju(o, "nodes", NULL) == KIWI6);
    json_decref(o);
    assert_int_equal(text.status, 0);
    assert_non_null(strstr(text.out, "Nodes searched: 8031647685"));
    assert_non_null(strstr(text.out, "e2a6: "));
    assert_int_equal(none.status, 1);
    assert_non_null(strstr(none.err, "no run 99"));
    assert_int_equal(bad.status, 2);
    th_run_t *all[] = {&d, &st, &st1, &early, &res, &text, &none, &bad};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) th_run_free(all[i]);
    remove_dir(k.dir);
}

/*
 * The embedded coordinator with --state: interrupted (Ctrl-C: exit status 130
 * and how to resume; SIGTERM: 143, 128 + 15), resumed and killed (SIGKILL), the same command then
 * finishes with the exact count and no job counted twice. Each signal comes once the run has
 * reported a finished job (its progress every 50 ms), not after a fixed time: a fixed wait
 * was too long on a fast machine (the run finished first) and too short under TSan (no
 * job done, none to resume).
 */
static void test_embedded_state_resume(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s", th_tmpdir("embedded-state"));
    const int sigs[] = {SIGINT, SIGTERM, SIGKILL};
    for (int i = 0; i < 3; i++) {
        char log[256];
        snprintf(log, sizeof log, "%s/run%d.log", dir, i);
        pid_t pid = th_spawn(log,
                             "PLY_PROGRESS_MS=50 exec ply perft --state %s/s.db --fen '" KIWIPETE
                             "' -d 6 --split-depth 2 --threads 1 --hash 0 --json",
                             dir);
        if (th_wait_progress(pid, log, "ply perft: ", NULL, 60000) < 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            char *text = th_slurp(log);
            fail_msg("round %d (signal %d): %s", i, sigs[i], text);
        }
        kill(pid, sigs[i]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (sigs[i] != SIGKILL) {
            char *text = th_slurp(log);
            int told = strstr(text, "the same command resumes it") != NULL;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 128 + sigs[i] || !told)
                fail_msg("signal %d: status 0x%x (expected exit %d), said: %s", sigs[i], status,
                         128 + sigs[i], text);
            free(text);
        }
    }
    /* the rest of Kiwipete's perft(6) on one thread with no table: about a minute here, a
     * few under a sanitizer on a loaded machine (it ran out of 120 s under ASan there) */
    th_run_t again = th_run(120 * (int)th_slowdown(),
                            "ply perft --state %s/s.db --fen '" KIWIPETE
                            "' -d 6 --split-depth 2 --threads 1 --hash 0 --json",
                            dir);
    assert_int_equal(again.status, 0);
    json_error_t err;
    json_t *o = json_loads(again.out, 0, &err);
    assert_non_null(o);
    assert_true(ju(o, "nodes", NULL) == KIWI6);
    uint64_t restored = ju(o, "verified", "results_restored");
    print_message("embedded --state: %llu results read back after the kill\n",
                  (unsigned long long)restored);
    assert_true(restored > 0);
    assert_true(restored + ju(o, "verified", "results_computed") == KIWI6_JOBS);
    json_decref(o);
    th_run_free(&again);
    remove_dir(dir);
}

/* ------------------------------------------------------------------- slow */

/* Everything at once, longer: no hash tables, three coordinator kills, a worker killed and
 * restarted, another stopped and continued. */
static void test_all_at_once(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "chaos-all", 0, NULL);
    k.nworkers = 3;
    for (int i = 0; i < 3; i++) k.worker[i] = start_worker(&k, "ply-worker", i + 1, "--hash 0");
    long joined = wait_workers(&k, 3, 10000);
    pid_t cl = start_client(&k, "run", KIWI6_ARGS);
    int ok = joined >= 0;
    for (int round = 0; ok && round < 3; round++) {
        ok = wait_progress(&k, (uint32_t)(250 + 450 * round), NULL);
        if (!ok) break;
        if (round == 0) kill(k.worker[0], SIGKILL);
        if (round == 1) kill(k.worker[1], SIGSTOP);
        kill(k.coord, SIGKILL);
        waitpid(k.coord, NULL, 0);
        usleep(200000);
        start_coordinator(&k, NULL);
        if (round == 0) {
            waitpid(k.worker[0], NULL, 0);
            k.worker[0] = start_worker(&k, "ply-worker", 1, "--hash 0");
        }
        if (round == 1) {
            usleep(1500000);
            kill(k.worker[1], SIGCONT);
        }
    }
    int rc = ok ? wait_exit(cl, 300000) : -1;
    cluster_stop(&k);
    if (!ok) wait_exit(cl, 1000);
    assert_true(ok);
    assert_int_equal(rc, 0);
    json_t *o = kiwi6_answer(&k);
    assert_true(ju(o, "verified", "results_restored") + ju(o, "verified", "results_computed") ==
                KIWI6_JOBS);
    json_decref(o);
    expect_one_result_per_job(&k);
    remove_dir(k.dir);
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "chaos";
    signal(SIGPIPE, SIG_IGN);
    setenv("PLY_LOG_TIME", "1", 1); /* the logs explain() prints carry times */
    const struct CMUnitTest chaos[] = {
        cmocka_unit_test(test_worker_killed),
        cmocka_unit_test(test_worker_stopped),
        cmocka_unit_test(test_coordinator_restarted),
    };
    const struct CMUnitTest verify[] = {
        cmocka_unit_test(test_faulty_worker),
        cmocka_unit_test(test_faulty_worker_third),
    };
    const struct CMUnitTest cli[] = {
        cmocka_unit_test(test_detach_status_result),
        cmocka_unit_test(test_embedded_state_resume),
    };
    const struct CMUnitTest slow[] = {
        cmocka_unit_test(test_all_at_once),
    };
    if (!strcmp(group, "verify")) return cmocka_run_group_tests_name("verify", verify, NULL, NULL);
    if (!strcmp(group, "cli")) return cmocka_run_group_tests_name("cli", cli, NULL, NULL);
    if (!strcmp(group, "slow")) return cmocka_run_group_tests_name("slow", slow, NULL, NULL);
    return cmocka_run_group_tests_name("chaos", chaos, NULL, NULL);
}
