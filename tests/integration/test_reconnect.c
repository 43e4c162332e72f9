/*
 * A ply-worker comes back to every restart of its coordinator, with the real programs on
 * loopback: one worker, and a ply-coordinator on one fixed port killed (SIGKILL) 0 to 50 ms
 * after the worker joined it, then restarted on the same port (and, in "state", the same
 * state file), 20 times. Each time the worker (the same process) must join the new coordinator;
 * at the end it counts perft(3) of the start position, 8,902 (chessprogramming wiki, "Perft
 * Results").
 *
 * Half the restarts come at once: libzmq reconnects the worker's DEALER by itself and the new
 * coordinator asks it for a HELLO. The other half come after a gap longer than the worker's
 * liveness (5 heartbeats of the 200 ms its WELCOME set): the worker finds the coordinator
 * silent and makes a new DEALER. That path once made none that ever connected: the old
 * DEALER's monitor was left reporting to a closed watch, which stopped libzmq's I/O thread
 * (proto/security.h, ply_conn_watch_destroy); it failed within the first few iterations.
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

#include "harness.h"

#define ROUNDS   20
#define MAX_KILL 50   /* ms after the join at most */
#define GAP_MS   1500 /* a restart past the worker's liveness: 5 x 200 ms, and some */
#define JOIN_MS  15000
#define JOINED   "worker w1 joined"
#define PERFT3   "Nodes searched: 8902\n" /* perft(3) of the start position */

typedef struct cluster {
    char dir[128], ep[64], state[192], log[256];
    int with_state, round; /* round: how many restarts so far, the log's number */
    pid_t coord, worker;
} cluster_t;

static void start_coordinator(cluster_t *k)
{
    char state[224] = "";
    if (k->with_state) snprintf(state, sizeof state, "--state %s", k->state);
    snprintf(k->log, sizeof k->log, "%s/coordinator-%d.log", k->dir, k->round);
    k->coord =
        th_spawn(k->log, "exec ply-coordinator --bind %s %s --heartbeat-ms 200 --liveness 5 -v",
                 k->ep, state);
}

/* The ends of the worker's log and of this round's coordinator log: what a failure needs. */
static void explain(const cluster_t *k)
{
    char path[256];
    snprintf(path, sizeof path, "%s/worker.log", k->dir);
    const char *logs[] = {path, k->log};
    for (size_t i = 0; i < 2; i++) {
        char *text = th_slurp(logs[i]);
        size_t n = strlen(text);
        print_message("---- %s\n%s\n", logs[i], n > 4000 ? text + n - 4000 : text);
        free(text);
    }
}

static void stop_all(cluster_t *k)
{
    th_stop(k->worker);
    th_stop(k->coord);
    k->worker = k->coord = 0;
}

static void expect_joined(cluster_t *k)
{
    if (th_wait_text(k->log, JOINED, JOIN_MS * (int)th_slowdown()) && th_alive(k->worker)) return;
    explain(k);
    stop_all(k);
    fail_msg("round %d: the worker did not join the restarted coordinator within %d ms", k->round,
             JOIN_MS * (int)th_slowdown());
}

static void restarts(int with_state)
{
    cluster_t k;
    memset(&k, 0, sizeof k);
    k.with_state = with_state;
    snprintf(k.dir, sizeof k.dir, "%s", th_tmpdir(with_state ? "reconnect-state" : "reconnect"));
    snprintf(k.ep, sizeof k.ep, "tcp://127.0.0.1:%d", th_free_port());
    snprintf(k.state, sizeof k.state, "%s/state.db", k.dir);
    start_coordinator(&k);
    char wlog[256];
    snprintf(wlog, sizeof wlog, "%s/worker.log", k.dir);
    k.worker =
        th_spawn(wlog, "exec ply-worker --connect %s --threads 1 --hash 16 --id w1 -v", k.ep);
    for (int i = 0; i < ROUNDS; i++) {
        expect_joined(&k);
        usleep((useconds_t)(i * MAX_KILL / (ROUNDS - 1)) * 1000);
        kill(k.coord, SIGKILL);
        th_wait(k.coord, 10000);
        if (i % 2) usleep(GAP_MS * 1000);
        k.round = i + 1;
        start_coordinator(&k);
    }
    expect_joined(&k);
    th_run_t r = th_run(120 * (int)th_slowdown(), "ply perft --coordinator %s -d 3", k.ep);
    if (r.status != 0 || !strstr(r.out, PERFT3)) explain(&k);
    th_expect_status(&r, 0, "perft(3) through the worker after the restarts");
    assert_non_null(strstr(r.out, PERFT3));
    th_run_free(&r);
    stop_all(&k);
    r = th_run(30, "rm -rf '%s'", k.dir);
    th_run_free(&r);
}

static void test_restarts(void **state)
{
    (void)state;
    restarts(0);
}

static void test_restarts_state(void **state)
{
    (void)state;
    restarts(1);
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "plain";
    signal(SIGPIPE, SIG_IGN);
    setenv("PLY_LOG_TIME", "1", 1);
    const struct CMUnitTest plain[] = {cmocka_unit_test(test_restarts)};
    const struct CMUnitTest state[] = {cmocka_unit_test(test_restarts_state)};
    if (!strcmp(group, "state")) return cmocka_run_group_tests_name("state", state, NULL, NULL);
    return cmocka_run_group_tests_name("plain", plain, NULL, NULL);
}
