/*
 * The coordinator with processes (issue 2): local workers that the coordinator starts with
 * uv_spawn (the fake worker's program, counting with the arbiter) for an inproc-only
 * coordinator, which binds tcp for them; and the ply-coordinator daemon with two local
 * fake workers, a run, then SIGTERM: exit 0. startpos perft(4) = 197,281 and Kiwipete's
 * perft(3) = 97,862 (chessprogramming wiki, "Perft Results").
 *
 * argv[1]: the fake-worker executable, argv[2]: ply-coordinator (the tests are skipped
 * without them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include <czmq.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "coord_fixture.h"
#include "coordinator.h"
#include "harness.h"
#include "util/log.h"
#include "util/time.h"

/* The owner token of this process's clients (client.h). */
#define OWNER    "test-coordinator-owner"
#define START    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

extern char **environ;

static const char *fake_worker_exe, *coordinator_exe;

static void spawn_two(ply_coordinator_config_t *cfg)
{
    cfg->spawn_workers = 2;
    cfg->worker_exe = fake_worker_exe;
    cfg->worker_threads = 1;
}

/* Local workers with uv_spawn: the coordinator is inproc-only, so it binds tcp for them. */
static void test_spawn(void **state)
{
    (void)state;
    if (!fake_worker_exe) PLY_SKIP("no fake worker executable given (argument 1)");
    coord_t *t = coord_start("inproc", spawn_two, NULL);
    const char *wep = ply_coordinator_worker_endpoint(t->c);
    assert_non_null(wep);
    assert_non_null(strstr(wep, "tcp://127.0.0.1:"));
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 4, 0, 0, -1, 197281);
    ply__run_result__free_unpacked(res, NULL);
    for (int i = 0; i < 500 && coord_counters(t).workers_joined < 2; i++) usleep(10000);
    ply_coordinator_counters_t k = coord_counters(t);
    uint64_t t0 = ply_time_ms();
    coord_stop(&t); /* SIGTERM, then SIGKILL after a grace period */
    assert_true(ply_time_ms() - t0 < 5000);
    assert_int_equal(k.workers_joined, 2);
}

/* The ply-coordinator daemon: a run with local (fake) workers, then SIGTERM: exit 0. */
static void test_daemon(void **state)
{
    (void)state;
    if (!coordinator_exe || !fake_worker_exe)
        PLY_SKIP("no ply-coordinator or fake worker executable given (arguments 1, 2)");
    char bind[64];
    snprintf(bind, sizeof bind, "tcp://127.0.0.1:%d", th_free_port());
    char *args[] = {(char *)coordinator_exe,
                    "--bind",
                    bind,
                    "--heartbeat-ms",
                    "100",
                    "--local-workers",
                    "2",
                    "--worker-exe",
                    (char *)fake_worker_exe,
                    "-q",
                    NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, coordinator_exe, NULL, NULL, args, environ), 0);
    /* Ask before asserting anything, so that a failure cannot leave the
     * daemon running (it holds ctest's output pipe open). */
    Ply__RunResult *res = NULL;
    char why[512] = "";
    int r = coord_perft_divide(bind, KIWIPETE, 3, 0, 0, -1, &res, why, sizeof why);
    int alive = waitpid(pid, NULL, WNOHANG) == 0;
    if (r != 0 || !alive) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("daemon on %s (%s): %s", bind, alive ? "running" : "exited", why);
    }
    assert_int_equal(res->nodes, 97862);
    ply__run_result__free_unpacked(res, NULL);
    assert_int_equal(kill(pid, SIGTERM), 0);
    int status = -1;
    for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++) usleep(10000);
    if (status == -1) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fail_msg("ply-coordinator did not stop on SIGTERM");
    }
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
    zsys_handler_set(NULL);
    ply_client_set_owner_token(OWNER); /* whose this process's runs are */
    ply_log_set_level(getenv("PLY_TEST_VERBOSE") ? PLY_LOG_DEBUG : PLY_LOG_ERROR);
    if (argc > 1 && access(argv[1], X_OK) == 0) fake_worker_exe = argv[1];
    if (argc > 2 && access(argv[2], X_OK) == 0) coordinator_exe = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn),
        cmocka_unit_test(test_daemon),
    };
    return ply_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
