/*
 * What a client may trust and do about runs (issue 9, items 5, 7 and 10):
 * an answer is only taken for the run that was asked (run ids do not repeat
 * when a coordinator restarts without its history, and every answer says
 * what it computes, checked by the client against what it asked); a run is
 * its owner's: others see that it exists, only its owner reads its answer or
 * cancels it; the figures are honest (nodes counted apart from those tables
 * answered, a queued run's time starting when it starts).
 *
 * Two kinds of test: the ply programs run as a user runs them (real
 * processes on a random loopback port), and the client library against a
 * scripted fake coordinator (one ROUTER socket in a thread), which can send
 * what a real one never would: an answer for another run under the asked id.
 *
 * Issue 27: clients wait through a coordinator restart (refused connections
 * included) and print the right answer; a Submit goes again with its idempotency
 * key on a new connection; a timeout names what the client saw of the connection.
 *
 * Expected counts: start position perft(2) = 400, perft(3) = 8,902, perft(5) =
 * 4,865,609; Kiwipete perft(3) = 97,862, perft(4) = 4,085,603
 * (tests/data/perftsuite.epd; chessprogramming wiki, "Perft Results").
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <czmq.h>
#include <jansson.h>

#include "client.h"
#include "envelope.h"
#include "harness.h"
#include "util/error.h"

#define START    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

/* Deadline of one command (harness.h): well inside the ctest limit. */
#define RUN_S 120

/* ---- the programs ----------------------------------------------------------------- */

/*
 * Item 5. A `ply perft` waits for its run (no worker yet) when its
 * coordinator is killed and another starts on the same endpoint without a
 * state file; a second client's run (perft(2) of the start position) is then
 * answered there. The waiting client must not print that run's answer as its
 * own: before, run ids began again at 1, it re-attached to run 1 and printed
 * 400 for Kiwipete perft(3) with exit 0. Now it says its run is unknown
 * (exit 1).
 */
static void test_restart_without_state(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("clients-restart");
    char log_a[256], log_b[256], out[256], err[256];
    snprintf(log_a, sizeof log_a, "%s/coord-a.log", dir);
    snprintf(log_b, sizeof log_b, "%s/coord-b.log", dir);
    snprintf(out, sizeof out, "%s/waiter.out", dir);
    snprintf(err, sizeof err, "%s/waiter.err", dir);
    int port = th_free_port();
    pid_t a = th_spawn(
        log_a, "exec ply-coordinator --bind tcp://127.0.0.1:%d --worker-wait-ms 0 -v", port);
    pid_t waiter = th_spawn(NULL,
                            "exec ply perft --coordinator tcp://127.0.0.1:%d --fen '" KIWIPETE
                            "' -d 3 --timeout 60 >%s 2>%s",
                            port, out, err);
    /* the line logged as the run is accepted; then a moment for the Accepted to arrive */
    if (!th_wait_text(log_a, " paths, ", 30000)) fail_msg("the run was not accepted");
    usleep(500000);
    kill(-a, SIGKILL); /* as a crash or kill -9: no word to the client */
    th_wait(a, 5000);
    th_stop(a);
    pid_t b = th_spawn(log_b, "exec ply-coordinator --bind tcp://127.0.0.1:%d -v", port);
    pid_t w = th_spawn(
        NULL, "exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q", port);
    th_run_t other = th_run(RUN_S, "ply perft --coordinator tcp://127.0.0.1:%d -d 2 --json", port);
    th_expect_status(&other, 0, "the other client's run");
    int status = th_wait(waiter, 30000);
    th_stop(waiter);
    th_stop(w);
    th_stop(b);
    char *wout = th_slurp(out), *werr = th_slurp(err);
    if (status != 1 || strstr(wout, "400") || strstr(wout, "Nodes searched"))
        fail_msg("the waiting client (status %d) printed:\n%s\nstderr:\n%s", status, wout, werr);
    assert_non_null(strstr(werr, "run"));
    free(wout);
    free(werr);
    th_run_free(&other);
}

/*
 * Item 7. Alice's run (submitted with the owner token ply made for her, in a
 * 0600 file under $XDG_STATE_HOME/ply) is hers: Bob (his own token) sees that
 * it exists and how far it is, but not its count, and may neither read its
 * answer nor cancel it (a clear refusal, exit 1); Alice may. Before, any
 * client could read and cancel any run.
 */
static void test_others_run(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("clients-owner");
    int port = th_free_port();
    char ep[64], alice[512], bob[512], tokfile[320];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    snprintf(alice, sizeof alice, "XDG_STATE_HOME=%s/alice ply", dir);
    snprintf(bob, sizeof bob, "XDG_STATE_HOME=%s/bob ply", dir);
    snprintf(tokfile, sizeof tokfile, "%s/alice/ply/owner-token", dir);
    pid_t coord = th_spawn(NULL, "exec ply-coordinator --bind %s --worker-wait-ms 0 -q", ep);
    /* no worker: the run waits, queued */
    th_run_t r = th_run(RUN_S, "%s perft --coordinator %s -d 4 --detach", alice, ep);
    th_expect_status(&r, 0, "alice submits");
    char run[32];
    snprintf(run, sizeof run, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    th_run_free(&r);
    struct stat st;
    assert_int_equal(stat(tokfile, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    /* Bob: the run exists, its count is not his */
    r = th_run(RUN_S, "%s status --coordinator %s %s --json", bob, ep, run);
    th_expect_status(&r, 0, "bob's status of alice's run");
    json_t *o = th_json(&r);
    assert_true(json_is_true(json_object_get(o, "answer_hidden")));
    assert_true(json_is_null(json_object_get(o, "nodes")));
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "%s result --coordinator %s %s", bob, ep, run);
    th_expect_status(&r, 1, "bob reads alice's run");
    assert_non_null(strstr(r.err, "belongs to another client"));
    th_run_free(&r);
    r = th_run(RUN_S, "%s cancel --coordinator %s %s", bob, ep, run);
    th_expect_status(&r, 1, "bob cancels alice's run");
    assert_non_null(strstr(r.err, "belongs to another client: only its owner"));
    th_run_free(&r);

    /* Alice: hers to see and to cancel */
    r = th_run(RUN_S, "%s status --coordinator %s %s --json", alice, ep, run);
    th_expect_status(&r, 0, "alice's status");
    o = th_json(&r);
    assert_true(json_is_false(json_object_get(o, "answer_hidden")));
    assert_true(json_is_integer(json_object_get(o, "nodes")));
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "%s cancel --coordinator %s %s --json", alice, ep, run);
    th_expect_status(&r, 0, "alice cancels her run");
    o = th_json(&r);
    assert_string_equal(json_string_value(json_object_get(o, "state")), "canceled");
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "%s result --coordinator %s %s", alice, ep, run);
    th_expect_status(&r, 1, "the canceled run's result");
    assert_non_null(strstr(r.err, "canceled"));
    th_run_free(&r);
    r = th_run(RUN_S, "%s cancel --coordinator %s %s", alice, ep, run);
    th_expect_status(&r, 1, "cancel a finished run");
    assert_non_null(strstr(r.err, "already finished"));
    th_run_free(&r);

    /* the command's edges */
    r = th_run(RUN_S, "ply cancel --help");
    th_expect_status(&r, 0, "ply cancel --help");
    assert_non_null(strstr(r.out, "usage: ply cancel RUN"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply cancel --coordinator %s", ep);
    th_expect_status(&r, 2, "ply cancel without RUN");
    th_run_free(&r);
    r = th_run(RUN_S, "ply cancel --coordinator %s x12", ep);
    th_expect_status(&r, 2, "ply cancel x12");
    th_run_free(&r);
    r = th_run(RUN_S, "ply cancel --coordinator %s --owner-token bob-0123456789abcdef 12", ep);
    th_expect_status(&r, 1, "ply cancel of an unknown run");
    assert_non_null(strstr(r.err, "no run 12"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply cancel --coordinator %s --owner-token short 12", ep);
    th_expect_status(&r, 2, "a short owner token");
    th_run_free(&r);
    th_stop(coord);
}

/*
 * A worker's node total in the status reply: with one run on it, that total is
 * the run's answer (perft(4) of the start position, 197,281, chessprogramming
 * wiki), so another client's status must not show it (found by trying the
 * product: the run row said "(not yours)" and the worker row the count).
 */
static void test_worker_nodes_hidden(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("clients-worker-nodes");
    int port = th_free_port();
    char ep[64], alice[512], bob[512];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    snprintf(alice, sizeof alice, "XDG_STATE_HOME=%s/alice ply", dir);
    snprintf(bob, sizeof bob, "XDG_STATE_HOME=%s/bob ply", dir);
    pid_t coord = th_spawn(NULL, "exec ply-coordinator --bind %s -q", ep);
    pid_t w = th_spawn(NULL, "exec ply-worker --connect %s --threads 1 --hash 16 -q", ep);
    th_run_t r = th_run(RUN_S, "%s perft --coordinator %s -d 4 --split-depth 1", alice, ep);
    th_expect_status(&r, 0, "alice's perft");
    assert_non_null(strstr(r.out, "Nodes searched: 197281"));
    th_run_free(&r);
    const char *who[2] = {bob, alice};
    for (int i = 0; i < 2; i++) {
        r = th_run(RUN_S, "%s status --coordinator %s --json", who[i], ep);
        th_expect_status(&r, 0, "status");
        json_t *o = th_json(&r);
        json_t *wk = json_array_get(json_object_get(o, "workers"), 0);
        if (!wk) fail_msg("no worker in the status: %s", r.out);
        json_t *n = json_object_get(wk, "nodes");
        if (i == 0 && !json_is_null(n)) fail_msg("bob sees the worker's total: %s", r.out);
        if (i == 1 && json_integer_value(n) != 197281) fail_msg("alice's worker total: %s", r.out);
        json_decref(o);
        th_run_free(&r);
    }
    th_stop(w);
    th_stop(coord);
}

/*
 * Item 7 under CURVE: the owner is the client's key, whatever token it sends
 * (Alice and Bob send the same one here), and a key in --admin-keys reads
 * and cancels anyone's run.
 */
static void test_admin_key(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("clients-admin");
    const char *names[] = {"coord", "alice", "bob", "root"};
    for (int i = 0; i < 4; i++) {
        th_run_t r = th_run(RUN_S, "ply keygen --out %s/keys --name %s", dir, names[i]);
        th_expect_status(&r, 0, "ply keygen");
        th_run_free(&r);
    }
    th_run_t r = th_run(RUN_S,
                        "cd %s && mkdir allow admins && cp keys/alice.key keys/bob.key "
                        "keys/root.key allow/ && cp keys/root.key admins/",
                        dir);
    th_expect_status(&r, 0, "allow and admin directories");
    th_run_free(&r);
    int port = th_free_port();
    char ep[64], log[320], as[3][512];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    snprintf(log, sizeof log, "%s/coord.log", dir);
    for (int i = 0; i < 3; i++)
        snprintf(as[i], sizeof as[i],
                 "--coordinator %s --curve --cert %s/keys/%s.key_secret --server-key "
                 "%s/keys/coord.key --owner-token same-token-0123456789",
                 ep, dir, names[i + 1], dir);
    pid_t coord = th_spawn(log,
                           "exec ply-coordinator --bind %s --curve --cert %s/keys/coord.key_secret "
                           "--allow %s/allow --admin-keys %s/admins --worker-wait-ms 0",
                           ep, dir, dir, dir);
    if (!th_wait_text(log, "listening on", 10000)) fail_msg("the coordinator did not start");
    r = th_run(RUN_S, "ply perft %s -d 4 --detach", as[0]);
    th_expect_status(&r, 0, "alice submits");
    char run[32];
    snprintf(run, sizeof run, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    th_run_free(&r);
    r = th_run(RUN_S, "ply result %s %s", as[1], run);
    th_expect_status(&r, 1, "bob, with alice's token, reads alice's run");
    assert_non_null(strstr(r.err, "belongs to another client"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply status %s %s --json", as[2], run);
    th_expect_status(&r, 0, "the admin's status");
    json_t *o = th_json(&r);
    assert_true(json_is_false(json_object_get(o, "answer_hidden")));
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply cancel %s %s", as[2], run);
    th_expect_status(&r, 0, "the admin cancels alice's run");
    th_run_free(&r);
    th_stop(coord);
    /* --admin-keys without --curve means nothing: refused */
    r = th_run(RUN_S, "ply-coordinator --bind %s --admin-keys %s/admins", ep, dir);
    th_expect_status(&r, 2, "--admin-keys without --curve");
    th_run_free(&r);
}

static uint64_t json_u64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) fail_msg("JSON has no integer '%s'", key);
    return (uint64_t)json_integer_value(v);
}

/*
 * Item 10, tables. perft(5) of the start position twice on one worker with a
 * 64 MiB table: the second run is answered from the warm table. Before, it
 * reported the whole 4,865,609 nodes over a few milliseconds ("122,919
 * Mnodes/s"); now the figures say what was counted and what the table gave:
 * counted + from tables = the total (split depth 1 merges no transpositions:
 * its 20 jobs are the 20 root moves), and the rate is of counted nodes.
 */
static void test_figures_from_tables(void **state)
{
    (void)state;
    int port = th_free_port();
    pid_t coord = th_spawn(NULL, "exec ply-coordinator --bind tcp://127.0.0.1:%d -q", port);
    pid_t w = th_spawn(
        NULL, "exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 64 -q", port);
    uint64_t counted[2], tables[2];
    for (int i = 0; i < 2; i++) {
        th_run_t r = th_run(RUN_S,
                            "ply perft --coordinator tcp://127.0.0.1:%d -d 5 --split-depth 1 "
                            "--json",
                            port);
        th_expect_status(&r, 0, "perft(5)");
        json_t *o = th_json(&r);
        assert_true(json_u64(o, "nodes") == 4865609);
        counted[i] = json_u64(o, "counted_nodes");
        tables[i] = json_u64(o, "tt_nodes");
        assert_true(counted[i] + tables[i] == 4865609);
        uint64_t ms = json_u64(o, "time_ms"), nps = json_u64(o, "nps");
        /* the rate is of counted nodes, not of the total */
        uint64_t want = ms ? counted[i] * 1000 / ms : 0;
        assert_true(nps + 1 >= want && nps <= want + 1);
        json_decref(o);
        th_run_free(&r);
    }
    assert_true(counted[0] > 0);
    assert_true(tables[1] > tables[0] && counted[1] < counted[0]); /* the warm table answered */
    th_run_t r =
        th_run(RUN_S, "ply perft --coordinator tcp://127.0.0.1:%d -d 5 --split-depth 1", port);
    th_expect_status(&r, 0, "perft(5) text");
    assert_non_null(strstr(r.out, "Mnodes/s counted"));
    assert_non_null(strstr(r.out, "more answered from their tables"));
    th_run_free(&r);
    th_stop(w);
    th_stop(coord);
}

/*
 * Item 10, queues. Run B waits behind run A with no worker for 4 s. Before,
 * B's client waited in silence and B's time included the wait (0.0 Mnodes/s
 * for a queued run); now the client says B is queued and behind what, and
 * B's time starts when its first job goes out: time_ms + queued_ms fits in
 * the client's wall time and queued_ms holds the wait.
 */
static void test_queued_run(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("clients-queue");
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/b.out", dir);
    snprintf(err, sizeof err, "%s/b.err", dir);
    int port = th_free_port();
    pid_t coord = th_spawn(
        NULL, "exec ply-coordinator --bind tcp://127.0.0.1:%d --worker-wait-ms 0 -q", port);
    th_run_t a = th_run(RUN_S, "ply perft --coordinator tcp://127.0.0.1:%d -d 5 --detach", port);
    th_expect_status(&a, 0, "run A");
    th_run_free(&a);
    uint64_t t0 = th_now_ms();
    pid_t b = th_spawn(NULL,
                       "exec ply perft --coordinator tcp://127.0.0.1:%d --fen '" KIWIPETE
                       "' -d 3 --split-depth 1 --json >%s 2>%s",
                       port, out, err);
    usleep(4000000);
    pid_t w = th_spawn(
        NULL, "exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q", port);
    int status = th_wait(b, 60000);
    uint64_t wall = th_now_ms() - t0;
    th_stop(b);
    th_stop(w);
    th_stop(coord);
    char *o_text = th_slurp(out), *e_text = th_slurp(err);
    if (status != 0) fail_msg("run B: status %d\n%s\n%s", status, o_text, e_text);
    if (!strstr(e_text, "is queued: 1 run is ahead of it"))
        fail_msg("run B's client did not say it was queued: %s", e_text);
    json_error_t je;
    json_t *o = json_loads(o_text, 0, &je);
    if (!o) fail_msg("run B's output is not JSON: %s", o_text);
    assert_true(json_u64(o, "nodes") == 97862);
    uint64_t ms = json_u64(o, "time_ms"), q = json_u64(o, "queued_ms");
    if (q < 3500 || ms + q > wall + 100)
        fail_msg("run B: time %" PRIu64 " ms, queued %" PRIu64 " ms, client's wall %" PRIu64 " ms",
                 ms, q, wall);
    json_decref(o);
    free(o_text);
    free(e_text);
}

/*
 * Issue 27: `ply perft` (streaming its run) and `ply result --wait` wait through a
 * coordinator restart, refused connections for 3 s included, and print the right answer.
 * A coordinator with a state file, no worker yet (the runs wait, queued); perft(5) of the
 * start position streamed, Kiwipete perft(4) detached and waited for by `ply result --wait`;
 * the coordinator is killed (-9, no word to anyone), nothing listens for 3 s, and a third
 * client, `ply result --wait` started then, meets refused connections from its start
 * (before: it gave up after 1.5 s). The coordinator comes back on the same state file, a
 * worker joins, and every client prints its run's answer: 4,865,609 and 4,085,603
 * (chessprogramming wiki, "Perft Results"). The runs were acknowledged before the kill:
 * a run lost before its acknowledgement is the durable-submission test's (coordinator).
 */
static void test_restart_with_state(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("clients-restart-state");
    char log_a[256], log_b[256], ep[64], out[3][256], err[3][256];
    snprintf(log_a, sizeof log_a, "%s/coord-a.log", dir);
    snprintf(log_b, sizeof log_b, "%s/coord-b.log", dir);
    for (int i = 0; i < 3; i++) {
        snprintf(out[i], sizeof out[i], "%s/client%d.out", dir, i);
        snprintf(err[i], sizeof err[i], "%s/client%d.err", dir, i);
    }
    int port = th_free_port();
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    const char *coord = "exec ply-coordinator --bind %s --state %s/state.db --worker-wait-ms 0 -v";
    pid_t a = th_spawn(log_a, coord, ep, dir);
    if (!th_wait_text(log_a, "listening on", 10000)) fail_msg("the coordinator did not start");
    th_run_t d = th_run(RUN_S, "ply perft --coordinator %s --fen '" KIWIPETE "' -d 4 --detach", ep);
    th_expect_status(&d, 0, "the detached run");
    char run[32];
    snprintf(run, sizeof run, "%.*s", (int)strcspn(d.out, "\n"), d.out);
    th_run_free(&d);
    pid_t c[3];
    c[0] = th_spawn(NULL, "exec ply perft --coordinator %s -d 5 --timeout 60 >%s 2>%s", ep, out[0],
                    err[0]);
    c[1] = th_spawn(NULL, "exec ply result --coordinator %s %s --wait --timeout 60 >%s 2>%s", ep,
                    run, out[1], err[1]);
    /* both acknowledged and attached: the streamed run is the second one logged */
    uint64_t t0 = th_now_ms();
    char *text = NULL;
    while (th_now_ms() - t0 < 30000) {
        free(text);
        text = th_slurp(log_a);
        if (th_count(text, " paths, ") >= 2) break;
        usleep(100000);
    }
    if (th_count(text, " paths, ") < 2) fail_msg("the runs were not accepted:\n%s", text);
    free(text);
    usleep(1000000 * th_slowdown());
    kill(-a, SIGKILL); /* as a crash: no word to the clients */
    th_wait(a, 5000);
    th_stop(a);
    /* refused from its start: it waits as the others do */
    c[2] = th_spawn(NULL, "exec ply result --coordinator %s %s --wait --timeout 60 >%s 2>%s", ep,
                    run, out[2], err[2]);
    usleep(3000000); /* 3 s of refused connections */
    pid_t b = th_spawn(log_b, coord, ep, dir);
    pid_t w = th_spawn(NULL, "exec ply-worker --connect %s --threads 1 --hash 16 -q", ep);
    int status[3];
    for (int i = 0; i < 3; i++) status[i] = th_wait(c[i], 120000 * th_slowdown());
    for (int i = 0; i < 3; i++) th_stop(c[i]);
    th_stop(w);
    th_stop(b);
    const char *want[3] = {"Nodes searched: 4865609", "Nodes searched: 4085603",
                           "Nodes searched: 4085603"};
    for (int i = 0; i < 3; i++) {
        char *o = th_slurp(out[i]), *e = th_slurp(err[i]);
        if (status[i] != 0 || !strstr(o, want[i]))
            fail_msg("client %d (status %d) printed:\n%s\nstderr:\n%s", i, status[i], o, e);
        if (i == 2 && !strstr(e, "waiting for it for up to 60 s"))
            fail_msg("the client started during the outage did not say it waits: %s", e);
        free(o);
        free(e);
    }
    /* one run each: the streamed one was not submitted twice */
    th_run_t st = th_run(RUN_S, "sqlite3 %s/state.db 'select count(*) from runs' 2>/dev/null", dir);
    if (st.status == 0 && st.out[0]) assert_int_equal(atoi(st.out), 2);
    th_run_free(&st);
}

/* ---- a scripted coordinator -------------------------------------------------------- */

/* What the fake coordinator sends after its Accepted. */
enum { SAY_RIGHT, SAY_OTHER_DEPTH, SAY_OTHER_POSITION, SAY_NOTHING, ACCEPT_OTHER_STATS };

typedef struct fake {
    zsock_t *router;
    int script;
    pthread_t thread;
} fake_t;

/* A perft run's RunAsked, its request in @p. */
static Ply__RunAsked asked_of(Ply__PerftRequest *p, const char *fen, unsigned depth, int stats)
{
    *p = (Ply__PerftRequest)PLY__PERFT_REQUEST__INIT;
    p->fen = (char *)fen;
    p->has_depth = 1, p->depth = depth;
    p->has_chess960 = 1, p->chess960 = 0;
    p->has_stats = 1, p->stats = stats != 0;
    p->has_split_depth = 1, p->split_depth = -1;
    Ply__RunAsked a = PLY__RUN_ASKED__INIT;
    a.has_kind = 1, a.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    a.perft = p;
    a.has_verify = 1, a.verify = PLY__VERIFY_MODE__VERIFY_MODE_NONE;
    return a;
}

static void *fake_main(void *arg)
{
    fake_t *f = arg;
    zframe_t *rid = NULL;
    ply_msg_t *msg = NULL;
    char why[256];
    if (ply_msg_recv_from(f->router, &rid, &msg, why, sizeof why) < 0) return NULL;
    ply_msg_free(&msg);
    /* Accepted: run 7, perft(3) of the start position (or with stats, when scripted) */
    Ply__PerftRequest req[2];
    Ply__RunAsked asked = asked_of(&req[0], START, 3, f->script == ACCEPT_OTHER_STATS);
    Ply__Accepted acc = PLY__ACCEPTED__INIT;
    acc.has_run_id = 1, acc.run_id = 7;
    acc.has_jobs = 1, acc.jobs = 20;
    acc.has_split_depth = 1, acc.split_depth = 1;
    acc.fen = START;
    acc.asked = f->script == SAY_NOTHING ? NULL : &asked;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ACCEPTED;
    m.accepted = &acc;
    ply_msg_send_to(f->router, rid, &m);
    /* then a progress line and the answer, for run 7, saying what they compute */
    Ply__RunAsked said = asked;
    if (f->script == SAY_OTHER_DEPTH) said = asked_of(&req[1], START, 2, 0);
    if (f->script == SAY_OTHER_POSITION) said = asked_of(&req[1], KIWIPETE, 3, 0);
    Ply__RunProgress rp = PLY__RUN_PROGRESS__INIT;
    rp.has_run_id = 1, rp.run_id = 7;
    rp.state = "running";
    rp.asked = f->script == SAY_OTHER_POSITION ? &said : &asked;
    m = (ply_msg_t)PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RUN_PROGRESS;
    m.run_progress = &rp;
    ply_msg_send_to(f->router, rid, &m);
    Ply__RunResult rr = PLY__RUN_RESULT__INIT;
    rr.has_run_id = 1, rr.run_id = 7;
    rr.fen = said.perft->fen;
    rr.has_depth = 1, rr.depth = said.perft->depth;
    rr.has_nodes = 1, rr.nodes = said.perft->depth == 2 ? 400 : 8902;
    rr.asked = &said;
    m = (ply_msg_t)PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RUN_RESULT;
    m.run_result = &rr;
    ply_msg_send_to(f->router, rid, &m);
    zframe_destroy(&rid);
    return NULL;
}

/* Submits perft(3) of the start position to a fake coordinator playing @script; the
 * client's code, with the reason in @why and the count in *nodes. */
static int against_fake(int script, uint64_t *nodes, char *why, size_t why_len)
{
    static int n;
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://fake-coordinator-%d", n++);
    fake_t f = {zsock_new_router(ep), script, 0};
    assert_non_null(f.router);
    zsock_set_linger(f.router, 1000);
    zsock_set_rcvtimeo(f.router, 5000);
    assert_int_equal(pthread_create(&f.thread, NULL, fake_main, &f), 0);
    ply_client_t *cl = ply_client_new(ep, why, why_len);
    assert_non_null(cl);
    ply_perft_request_t req = {.fen = "startpos", .depth = 3, .split_depth = -1};
    Ply__Accepted *acc = NULL;
    Ply__RunResult *res = NULL;
    *nodes = 0;
    int r = ply_client_submit(cl, &req, 5000, &acc, why, why_len);
    if (r == 0) {
        assert_true(acc->run_id == 7);
        r = ply_client_wait(cl, acc->run_id, NULL, NULL, 5000, &res, why, why_len);
        ply__accepted__free_unpacked(acc, NULL);
    }
    if (res) {
        *nodes = res->nodes;
        ply__run_result__free_unpacked(res, NULL);
    }
    ply_client_destroy(&cl);
    pthread_join(f.thread, NULL);
    zsock_destroy(&f.router);
    return r;
}

/* Item 5, the client's check: an answer is taken only when it says it computes what
 * was asked; a difference is an error that names it. */
static void test_client_checks_answers(void **state)
{
    (void)state;
    char why[512] = "";
    uint64_t nodes;
    /* the control: an honest answer is taken */
    assert_int_equal(against_fake(SAY_RIGHT, &nodes, why, sizeof why), 0);
    assert_true(nodes == 8902);
    /* perft(2) under the id of our perft(3) */
    assert_int_equal(against_fake(SAY_OTHER_DEPTH, &nodes, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "depth 2, not 3"));
    assert_true(nodes == 0);
    /* progress of another position under our id: the wait ends there */
    assert_int_equal(against_fake(SAY_OTHER_POSITION, &nodes, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "position \"" KIWIPETE "\""));
    /* an Accepted that does not say what it accepted is not taken */
    assert_int_equal(against_fake(SAY_NOTHING, &nodes, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "did not say what run 7 computes"));
    /* an Accepted for another request (with statistics) */
    assert_int_equal(against_fake(ACCEPT_OTHER_STATS, &nodes, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "with statistics"));
}

/* A ROUTER bound on @ep that never reads: it takes connections and handshakes (libzmq's
 * I/O thread does) and swallows every request, as a coordinator that lost them would. */
static zsock_t *swallower(const char *ep)
{
    zsock_t *r = zsock_new(ZMQ_ROUTER);
    assert_non_null(r);
    zsock_set_linger(r, 0);
    assert_true(zsock_bind(r, "%s", ep) >= 0);
    return r;
}

/* The Submit that @r received within 10 s (its routing id in *rid), or NULL. */
static ply_msg_t *submit_in(zsock_t *r, zframe_t **rid)
{
    zsock_set_rcvtimeo(r, 10000);
    ply_msg_t *m = NULL;
    char why[256];
    if (ply_msg_recv_from(r, rid, &m, why, sizeof why) < 0) return NULL;
    if (m->body_case != PLY__MESSAGE__BODY_SUBMIT) ply_msg_free(&m), zframe_destroy(rid);
    return m;
}

/*
 * Issue 27, messages that name the cause. Nothing listening (the client made patient, as
 * `ply result --wait` makes it): "no answer at all", no connection could be made, no CURVE
 * hint (CURVE cannot stop a TCP connection). A coordinator that takes the connection and
 * swallows the Submit: "accepted the connection but has not acknowledged the run", not
 * "no answer". The command: `ply result --wait` on a port where nothing listens says so
 * at once and gives up after its --timeout with the first message.
 */
static void test_messages_name_cause(void **state)
{
    (void)state;
    char ep[64], why[512] = "";
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", th_free_port());
    ply_client_t *cl = ply_client_new_patient(ep, why, sizeof why);
    if (!cl) fail_msg("a patient client of a refused endpoint: %s", why);
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    assert_int_equal(ply_client_result(cl, 12345, 1, 1500, &res, &prog, why, sizeof why),
                     PLY_ETIMEDOUT);
    print_message("nothing there: %s\n", why);
    assert_non_null(strstr(why, "no answer at all from"));
    assert_non_null(strstr(why, "no connection could be made there"));
    assert_null(strstr(why, "curve"));
    ply_client_destroy(&cl);

    zsock_t *r = swallower(ep);
    cl = ply_client_new(ep, why, sizeof why);
    assert_non_null(cl);
    ply_perft_request_t req = {.fen = "startpos", .depth = 3, .split_depth = -1};
    Ply__Accepted *acc = NULL;
    assert_int_equal(ply_client_submit(cl, &req, 1500, &acc, why, sizeof why), PLY_ETIMEDOUT);
    print_message("swallowed: %s\n", why);
    char want[160];
    snprintf(want, sizeof want,
             "the coordinator at %s accepted the connection but has not acknowledged the run "
             "in 1.5 s",
             ep);
    assert_non_null(strstr(why, want));
    assert_null(strstr(why, "curve"));
    ply_client_destroy(&cl);
    zsock_destroy(&r);

    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", th_free_port());
    uint64_t t0 = th_now_ms();
    th_run_t run = th_run(RUN_S, "ply result --coordinator %s 12345 --wait --timeout 3", ep);
    uint64_t ms = th_now_ms() - t0;
    th_expect_status(&run, 1, "ply result --wait with nothing there");
    if (!strstr(run.err, "waiting for it for up to 3 s") || !strstr(run.err, "no answer at all") ||
        ms < 2900)
        fail_msg("after %llu ms: %s", (unsigned long long)ms, run.err);
    th_run_free(&run);
}

/* The coordinator's side of test_submit_again_same_key, on its own thread. */
typedef struct comeback {
    char ep[64];
    zsock_t *first;     /* bound before the client connects */
    uint8_t key[2][64]; /* the idempotency key of each Submit received */
    size_t key_len[2];
    int got; /* Submits received */
    pthread_t thread;
} comeback_t;

static void *comeback_main(void *arg)
{
    comeback_t *cb = arg;
    zsock_t *r = cb->first;
    for (int i = 0; i < 2; i++) {
        zframe_t *rid = NULL;
        ply_msg_t *m = submit_in(r, &rid);
        if (!m) break;
        const ProtobufCBinaryData *k = &m->submit->idempotency_key;
        cb->key_len[i] = m->submit->has_idempotency_key && k->len <= 64 ? k->len : 0;
        memcpy(cb->key[i], k->data, cb->key_len[i]);
        cb->got++;
        ply_msg_free(&m);
        if (i == 0) { /* it dies with the Submit unanswered, and comes back 0.3 s later */
            zframe_destroy(&rid);
            zsock_destroy(&r);
            usleep(300000);
            r = swallower(cb->ep);
            continue;
        }
        /* acknowledged before its plan: no jobs, no split depth */
        Ply__PerftRequest preq;
        Ply__RunAsked asked = asked_of(&preq, START, 3, 0);
        Ply__Accepted acc = PLY__ACCEPTED__INIT;
        acc.has_run_id = 1, acc.run_id = 9;
        acc.fen = START;
        acc.asked = &asked;
        ply_msg_t out = PLY__MESSAGE__INIT;
        out.body_case = PLY__MESSAGE__BODY_ACCEPTED;
        out.accepted = &acc;
        ply_msg_send_to(r, rid, &out);
        zframe_destroy(&rid);
    }
    usleep(200000); /* the Accepted on its way before the socket closes */
    zsock_destroy(&r);
    return NULL;
}

/*
 * Issue 27, durable submission from the client's side: its Submit carries a 16-byte
 * idempotency key; when the coordinator that took it goes away before its Accepted and
 * one comes back on the same endpoint, the client sends the same Submit again (the same
 * key: the same run, never a second) and takes the Accepted that comes, which may come
 * before the plan (no jobs, no split depth), as the contract allows.
 */
static void test_submit_again_same_key(void **state)
{
    (void)state;
    comeback_t cb = {0};
    snprintf(cb.ep, sizeof cb.ep, "tcp://127.0.0.1:%d", th_free_port());
    cb.first = swallower(cb.ep);
    char why[512] = "";
    ply_client_t *cl = ply_client_new(cb.ep, why, sizeof why);
    assert_non_null(cl);
    assert_int_equal(pthread_create(&cb.thread, NULL, comeback_main, &cb), 0);
    ply_perft_request_t req = {.fen = "startpos", .depth = 3, .split_depth = -1};
    Ply__Accepted *acc = NULL;
    int rc = ply_client_submit(cl, &req, 10000, &acc, why, sizeof why);
    pthread_join(cb.thread, NULL);
    if (rc != 0) fail_msg("submit: %d %s (the coordinator got %d Submits)", rc, why, cb.got);
    assert_int_equal(cb.got, 2);
    assert_int_equal(cb.key_len[0], PLY_CLIENT_KEY_BYTES);
    assert_int_equal(cb.key_len[1], PLY_CLIENT_KEY_BYTES);
    assert_memory_equal(cb.key[0], cb.key[1], PLY_CLIENT_KEY_BYTES);
    assert_true(acc->run_id == 9);
    assert_false(acc->has_jobs);
    ply__accepted__free_unpacked(acc, NULL);
    ply_client_destroy(&cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_name_cause),   cmocka_unit_test(test_submit_again_same_key),
        cmocka_unit_test(test_restart_with_state),    cmocka_unit_test(test_client_checks_answers),
        cmocka_unit_test(test_restart_without_state), cmocka_unit_test(test_others_run),
        cmocka_unit_test(test_worker_nodes_hidden),   cmocka_unit_test(test_admin_key),
        cmocka_unit_test(test_figures_from_tables),   cmocka_unit_test(test_queued_run),
    };
    return cmocka_run_group_tests_name("clients", tests, NULL, NULL);
}
