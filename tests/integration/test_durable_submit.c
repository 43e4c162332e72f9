/*
 * Case 2 of issue 27 end to end, with the real programs on loopback: a submission is durable
 * before it is acknowledged, and a re-sent Submit is the same run. A ply-coordinator with a
 * state file is made to die at a fault point (coordinator/fault.h, PLY_FAULT_POINT) between
 * receiving a Submit and storing its jobs, then restarted on its state file; the client, here
 * a DEALER speaking PLY/2 itself (the `ply` command's re-sending is the client's part), sends
 * its Submit again with the same idempotency key and owner token, and must get the right
 * answer, perft(5) of the start position = 4,865,609 (chessprogramming wiki, "Perft
 * Results"), with exactly one run in the state file.
 *
 *   stored    killed at submit-stored (its request committed, before Accepted): restarted,
 *             the coordinator plans the run from its request; the re-sent Submit is that run.
 *             Sent again once finished: the same run id and its answer at once; the same key
 *             with another owner token: a new run.
 *   received  killed at submit-received (nothing stored, nothing acknowledged): the re-sent
 *             Submit makes the one run. A key of 15 bytes is refused naming the field, and
 *             the same key for another request names the run it belongs to.
 *   plan      killed at plan-done (Accepted sent, its jobs not stored): the re-sent Submit is
 *             the run the Accepted named, when the client heard it.
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
#include <unistd.h>

#include <cmocka.h>
#include <czmq.h>
#include <sqlite3.h>

#include "envelope.h"
#include "harness.h"
#include "util/error.h"

#define START      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define PERFT5     4865609ull /* perft(5) of the start position, chessprogramming wiki */
#define PERFT3     8902ull    /* perft(3) */
#define TOKEN      "durable-submit-test-owner-0001"
#define TOKEN_B    "durable-submit-test-owner-0002"
#define FAULT_EXIT 80 /* coordinator/fault.h: PLY__FAULT_EXIT_BASE + the point */

typedef struct cluster {
    char dir[128], ep[64], state[192];
    pid_t coord, worker;
} cluster_t;

static void start_coordinator(cluster_t *k, const char *fault)
{
    char log[256];
    snprintf(log, sizeof log, "%s/coordinator.log", k->dir);
    k->coord = th_spawn(log,
                        "%s%s exec ply-coordinator --bind %s --state %s --heartbeat-ms 200 "
                        "--liveness 5 -v",
                        fault ? "PLY_FAULT_POINT=" : "", fault ? fault : "", k->ep, k->state);
}

static void cluster_start(cluster_t *k, const char *tag, const char *fault)
{
    memset(k, 0, sizeof *k);
    snprintf(k->dir, sizeof k->dir, "%s", th_tmpdir(tag));
    snprintf(k->ep, sizeof k->ep, "tcp://127.0.0.1:%d", th_free_port());
    snprintf(k->state, sizeof k->state, "%s/state.db", k->dir);
    start_coordinator(k, fault);
    char log[256];
    snprintf(log, sizeof log, "%s/worker.log", k->dir);
    k->worker =
        th_spawn(log, "exec ply-worker --connect %s --threads 1 --hash 16 --id w1 -v", k->ep);
}

static void cluster_stop(cluster_t *k)
{
    th_stop(k->worker);
    th_stop(k->coord);
    k->worker = k->coord = 0;
}

/* Prints the end of the coordinator's log: a failure on a loaded machine says what it did. */
static void explain(const cluster_t *k)
{
    char path[256];
    snprintf(path, sizeof path, "%s/coordinator.log", k->dir);
    char *text = th_slurp(path);
    size_t n = strlen(text);
    print_message("---- %s\n%s\n", path, n > 6000 ? text + n - 6000 : text);
    free(text);
}

#define expect_k(k, cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            explain(k);                                                                            \
            cluster_stop(k);                                                                       \
            fail_msg("%s", #cond);                                                                 \
        }                                                                                          \
    } while (0)

/* What the coordinator answered a Submit: its Accepted (0: none) and then its answer. */
typedef struct answer {
    uint64_t accepted;     /* Accepted.run_id */
    int accepted_has_jobs; /* Accepted.jobs present (the run was planned) */
    uint64_t run;          /* RunResult.run_id */
    uint64_t nodes;        /* RunResult.nodes */
    int code;              /* Error.code, 0: none */
    char error[512];       /* Error.message */
} answer_t;

/* A DEALER to the cluster that gives up a receive after 500 ms (the caller loops). */
static zsock_t *connect_client(const cluster_t *k)
{
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_non_null(d);
    zsock_set_rcvtimeo(d, 500);
    zsock_set_linger(d, 0);
    assert_int_equal(zsock_connect(d, "%s", k->ep), 0);
    return d;
}

/* Sends the Submit of perft(@depth) of the start position with @key (@key_len bytes; NULL:
 * none) as @token's, detached or not. */
static void send_submit(zsock_t *d, unsigned depth, const uint8_t *key, size_t key_len,
                        const char *token, int detach)
{
    Ply__PerftRequest q = PLY__PERFT_REQUEST__INIT;
    q.fen = START;
    q.has_depth = 1, q.depth = depth;
    Ply__Submit s = PLY__SUBMIT__INIT;
    s.has_kind = 1, s.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    s.perft = &q;
    s.owner_token = (char *)token;
    s.client_id = "test_durable_submit";
    if (detach) s.has_detach = 1, s.detach = 1;
    if (key) s.has_idempotency_key = 1, s.idempotency_key.data = (uint8_t *)key;
    s.idempotency_key.len = key_len;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_SUBMIT;
    m.submit = &s;
    assert_int_equal(ply_msg_send(d, &m), 0);
}

/*
 * Reads what comes back until the answer (a RunResult or an Error) or, @accepted_only, the
 * Accepted; @timeout_ms (scaled by th_slowdown) at most. 1 when it came, 0 on timeout.
 */
static int read_answer(zsock_t *d, answer_t *a, int accepted_only, int timeout_ms)
{
    const uint64_t limit = (uint64_t)timeout_ms * th_slowdown();
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < limit;) {
        ply_msg_t *m = NULL;
        char why[256];
        if (ply_msg_recv(d, &m, why, sizeof why) < 0) continue; /* timed out: again */
        int done = 0;
        if (m->body_case == PLY__MESSAGE__BODY_ACCEPTED) {
            a->accepted = m->accepted->run_id;
            a->accepted_has_jobs = m->accepted->has_jobs;
            done = accepted_only;
        } else if (m->body_case == PLY__MESSAGE__BODY_RUN_RESULT) {
            a->run = m->run_result->run_id;
            a->nodes = m->run_result->nodes;
            done = 1;
        } else if (m->body_case == PLY__MESSAGE__BODY_ERROR) {
            a->code = m->error->code;
            snprintf(a->error, sizeof a->error, "%s", m->error->message);
            done = 1;
        }
        ply_msg_free(&m);
        if (done) return 1;
    }
    return 0;
}

/* Runs in the state file, and of them done (the coordinator must not hold it). */
static void count_runs(const char *state, int *runs, int *done)
{
    sqlite3 *db;
    *runs = *done = -1;
    if (sqlite3_open_v2(state, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*), coalesce(sum(state='done'),0) FROM runs", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        *runs = sqlite3_column_int(st, 0);
        *done = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* The coordinator's StatusReply: how many runs it lists (in progress and finished). */
static size_t listed_runs(const cluster_t *k)
{
    zsock_t *d = connect_client(k);
    Ply__StatusRequest q = PLY__STATUS_REQUEST__INIT;
    q.owner_token = TOKEN;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_STATUS;
    m.status = &q;
    assert_int_equal(ply_msg_send(d, &m), 0);
    size_t n = SIZE_MAX;
    for (int i = 0; i < 20 && n == SIZE_MAX; i++) {
        ply_msg_t *r = NULL;
        char why[256];
        if (ply_msg_recv(d, &r, why, sizeof why) < 0) continue;
        if (r->body_case == PLY__MESSAGE__BODY_STATUS_REPLY) n = r->status_reply->n_run;
        ply_msg_free(&r);
    }
    zsock_destroy(&d);
    return n;
}

static void random_key(uint8_t *key, size_t n)
{
    FILE *f = fopen("/dev/urandom", "rb");
    assert_non_null(f);
    assert_int_equal(fread(key, 1, n, f), n);
    fclose(f);
}

/*
 * Submits perft(5) with @key to a coordinator armed at a fault point: it must die there with
 * that point's exit @code; restarted without it on its state file, the same Submit again (a new
 * connection, the same key and owner) gets the right answer. The Accepted the client heard
 * before the fault (0: none) in *@first; the answer after the restart in *@a.
 */
static void die_and_resend(cluster_t *k, int code, const uint8_t *key, uint64_t *first, answer_t *a)
{
    zsock_t *d = connect_client(k);
    send_submit(d, 5, key, 32, TOKEN, 0);
    answer_t before = {0};
    read_answer(d, &before, 1, 3000); /* an Accepted, if it comes before the fault */
    int rc = th_wait(k->coord, 30000 * (int)th_slowdown());
    expect_k(k, rc == code);
    zsock_destroy(&d);
    *first = before.accepted;
    start_coordinator(k, NULL);
    d = connect_client(k);
    memset(a, 0, sizeof *a);
    send_submit(d, 5, key, 32, TOKEN, 0);
    int got = read_answer(d, a, 0, 60000);
    zsock_destroy(&d);
    expect_k(k, got);
    expect_k(k, a->code == 0);
    expect_k(k, a->accepted != 0 && a->run == a->accepted);
    expect_k(k, a->nodes == PERFT5);
}

static void test_killed_after_stored(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "durable-stored", "submit-stored");
    uint8_t key[32];
    random_key(key, sizeof key);
    uint64_t first = 0;
    answer_t a;
    die_and_resend(&k, FAULT_EXIT + 2, key, &first, &a);
    expect_k(&k, first == 0); /* it died before Accepted */
    expect_k(&k, listed_runs(&k) == 1);

    /* sent again once finished: that run, its answer at once */
    zsock_t *d = connect_client(&k);
    answer_t again = {0};
    send_submit(d, 5, key, sizeof key, TOKEN, 0);
    expect_k(&k, read_answer(d, &again, 0, 10000));
    expect_k(&k, again.accepted == a.run && again.run == a.run && again.nodes == PERFT5);
    expect_k(&k, again.accepted_has_jobs);
    /* detached: Accepted for it alone */
    answer_t quiet = {0};
    send_submit(d, 5, key, sizeof key, TOKEN, 1);
    expect_k(&k, read_answer(d, &quiet, 1, 10000) && quiet.accepted == a.run);
    zsock_destroy(&d);
    expect_k(&k, listed_runs(&k) == 1);

    /* the same key of another owner is another run */
    d = connect_client(&k);
    answer_t other = {0};
    send_submit(d, 3, key, sizeof key, TOKEN_B, 0);
    expect_k(&k, read_answer(d, &other, 0, 60000));
    expect_k(&k, other.code == 0 && other.run != a.run && other.nodes == PERFT3);
    zsock_destroy(&d);
    cluster_stop(&k);
    int runs, done;
    count_runs(k.state, &runs, &done);
    expect_k(&k, runs == 2 && done == 2);
    th_run_t r = th_run(30, "rm -rf '%s'", k.dir);
    th_run_free(&r);
}

static void test_killed_when_received(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "durable-received", "submit-received");
    uint8_t key[32];
    random_key(key, sizeof key);
    uint64_t first = 0;
    answer_t a;
    die_and_resend(&k, FAULT_EXIT + 1, key, &first, &a);
    expect_k(&k, first == 0);
    expect_k(&k, listed_runs(&k) == 1);

    zsock_t *d = connect_client(&k);
    answer_t bad = {0};
    send_submit(d, 3, key, 15, TOKEN, 0); /* a key too short to be one */
    expect_k(&k, read_answer(d, &bad, 0, 10000));
    expect_k(&k, bad.code == PLY_EPROTO && strstr(bad.error, "idempotency_key"));
    answer_t reused = {0};
    send_submit(d, 3, key, sizeof key, TOKEN, 0); /* the key of the perft(5) run */
    expect_k(&k, read_answer(d, &reused, 0, 10000));
    expect_k(&k, reused.code == PLY_EINVAL && strstr(reused.error, "idempotency_key"));
    zsock_destroy(&d);
    expect_k(&k, listed_runs(&k) == 1);
    cluster_stop(&k);
    int runs, done;
    count_runs(k.state, &runs, &done);
    expect_k(&k, runs == 1 && done == 1);
    th_run_t r = th_run(30, "rm -rf '%s'", k.dir);
    th_run_free(&r);
}

static void test_killed_after_plan(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "durable-plan", "plan-done");
    uint8_t key[32];
    random_key(key, sizeof key);
    uint64_t first = 0;
    answer_t a;
    die_and_resend(&k, FAULT_EXIT + 3, key, &first, &a);
    expect_k(&k, first == 0 || first == a.run); /* the run it was told of, when it heard */
    expect_k(&k, listed_runs(&k) == 1);
    cluster_stop(&k);
    int runs, done;
    count_runs(k.state, &runs, &done);
    expect_k(&k, runs == 1 && done == 1);
    th_run_t r = th_run(30, "rm -rf '%s'", k.dir);
    th_run_free(&r);
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "stored";
    signal(SIGPIPE, SIG_IGN);
    setenv("PLY_LOG_TIME", "1", 1);
    const struct CMUnitTest stored[] = {cmocka_unit_test(test_killed_after_stored)};
    const struct CMUnitTest received[] = {cmocka_unit_test(test_killed_when_received)};
    const struct CMUnitTest plan[] = {cmocka_unit_test(test_killed_after_plan)};
    if (!strcmp(group, "received"))
        return cmocka_run_group_tests_name("received", received, NULL, NULL);
    if (!strcmp(group, "plan")) return cmocka_run_group_tests_name("plan", plan, NULL, NULL);
    return cmocka_run_group_tests_name("stored", stored, NULL, NULL);
}
