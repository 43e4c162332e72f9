/*
 * Connection problems told apart at once (proto/endpoint.h, the CURVE watch of
 * proto/security.h), by `ply perft --coordinator E` and `ply-worker --connect E`, where
 * ZeroMQ alone retries in silence until a 30-second "no answer": a malformed endpoint is
 * a usage error (exit 2), an unknown host, a refused connection and a wrong CURVE server
 * key each fail (exit 1) with their own message, in seconds. The unknown host is under
 * .invalid, which RFC 6761 (section 6.4) reserves never to resolve.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define RUN_S 60
/* Much less than the 30 s of --timeout's default: what "at once" must beat. */
#define AT_ONCE_MS 10000

/* Runs @cmd, expects @status and @text on stderr within AT_ONCE_MS. */
static void expect(const char *cmd, int status, const char *text)
{
    uint64_t t0 = th_now_ms();
    th_run_t r = th_run(RUN_S, "%s", cmd);
    uint64_t ms = th_now_ms() - t0;
    if (r.status != status || !strstr(r.err, text) || ms > AT_ONCE_MS)
        fail_msg("%s: status %d after %llu ms (expected %d and '%s' within %d ms): %s", cmd,
                 r.status, (unsigned long long)ms, status, text, AT_ONCE_MS, r.err);
    th_run_free(&r);
}

static void test_bad_endpoint(void **state)
{
    (void)state;
    expect("ply perft --coordinator foo -d 3", 2, "bad endpoint 'foo': expected tcp://HOST:PORT");
    expect("ply perft --coordinator tcp://coord -d 3", 2, "bad endpoint 'tcp://coord'");
    expect("ply perft --coordinator tcp://coord:70000 -d 3", 2,
           "the port '70000' must be a number 1..65535");
    expect("ply perft --coordinator tcp://::1:5555 -d 3", 2, "an IPv6 address goes in brackets");
    expect("ply analyse startpos -d 3 --coordinator udp://coord:5555", 2, "bad endpoint");
    expect("ply status --coordinator coord:5555", 2, "bad endpoint 'coord:5555'");
    expect("ply bench --cluster --coordinator coord:5555", 2, "bad endpoint 'coord:5555'");
    expect("ply-worker --connect localhost:5555", 2, "bad endpoint 'localhost:5555'");
}

static void test_unknown_host(void **state)
{
    (void)state;
    expect("ply perft --coordinator tcp://no-such-coordinator.invalid:5555 -d 3", 1,
           "unknown host 'no-such-coordinator.invalid'");
    expect("ply-worker --connect tcp://no-such-coordinator.invalid:5555", 1,
           "unknown host 'no-such-coordinator.invalid'");
}

static void test_refused(void **state)
{
    (void)state;
    char cmd[256];
    int port = th_free_port(); /* free: nothing listens on it */
    snprintf(cmd, sizeof cmd, "ply perft --coordinator tcp://127.0.0.1:%d -d 3", port);
    expect(cmd, 1, "connection refused by tcp://127.0.0.1:");
    snprintf(cmd, sizeof cmd, "ply result --coordinator tcp://127.0.0.1:%d 12345", port);
    expect(cmd, 1, "nothing is listening on port");
    snprintf(cmd, sizeof cmd, "ply-worker --connect tcp://127.0.0.1:%d --exit-on-bye", port);
    expect(cmd, 1, "connection refused");
    expect("ply perft --coordinator ipc:///nonexistent-dir/ply.sock -d 3", 1,
           "no socket at /nonexistent-dir/ply.sock");

    /* a standalone worker says so at once, and keeps trying: its coordinator may come up */
    char log[512];
    snprintf(log, sizeof log, "%s/worker.log", th_tmpdir("connect"));
    pid_t w =
        th_spawn(log, "exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 1", port);
    int said = th_wait_text(log, "connection refused", AT_ONCE_MS);
    int alive = th_alive(w);
    th_stop(w);
    char *text = th_slurp(log);
    if (!said || !alive || !strstr(text, "trying again until it answers"))
        fail_msg("worker: said %d, alive %d: %s", said, alive, text);
    free(text);
}

static void test_curve_wrong_server_key(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("connect-curve");
    th_run_t r = th_run(RUN_S,
                        "cd %s && mkdir -p allow && ply keygen -n coord && ply keygen -n cli && "
                        "ply keygen -n other && cp cli.key allow/",
                        dir);
    th_expect_status(&r, 0, "ply keygen");
    th_run_free(&r);
    int port = th_free_port();
    char log[512], cmd[1024];
    snprintf(log, sizeof log, "%s/coord.log", dir);
    pid_t coord = th_spawn(log,
                           "exec ply-coordinator --bind tcp://127.0.0.1:%d --curve --cert "
                           "%s/coord.key_secret --allow %s/allow",
                           port, dir, dir);
    if (!th_wait_text(log, "listening on", 10000)) {
        th_stop(coord);
        fail_msg("the coordinator did not start");
    }
    /* the coordinator cannot read a client holding another server key and hangs up: the
     * client says so in well under its --timeout of 30 s */
    snprintf(cmd, sizeof cmd,
             "ply perft --coordinator tcp://127.0.0.1:%d -d 3 --curve --cert %s/cli.key_secret "
             "--server-key %s/other.key --timeout 30",
             port, dir, dir);
    uint64_t t0 = th_now_ms();
    r = th_run(RUN_S, "%s", cmd);
    uint64_t ms = th_now_ms() - t0;
    snprintf(cmd, sizeof cmd,
             "ply-worker --connect tcp://127.0.0.1:%d --curve --cert %s/cli.key_secret "
             "--server-key %s/other.key --threads 1 --hash 1",
             port, dir, dir);
    th_run_t w = th_run(RUN_S, "%s", cmd);
    th_stop(coord);
    if (r.status != 1 || ms > AT_ONCE_MS ||
        !strstr(r.err, "closed the connection during the CURVE handshake") ||
        !strstr(r.err, "is --server-key the coordinator's public key?"))
        fail_msg("client: status %d after %llu ms: %s", r.status, (unsigned long long)ms, r.err);
    if (w.status != 1 || !strstr(w.err, "is --server-key the coordinator's public key?"))
        fail_msg("worker: status %d: %s", w.status, w.err);
    th_run_free(&r);
    th_run_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_endpoint),
        cmocka_unit_test(test_unknown_host),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_curve_wrong_server_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
