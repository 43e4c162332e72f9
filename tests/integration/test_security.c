/*
 * End-to-end tests of transport security (proto/security.h): `ply keygen`,
 * the coordinator's bind policy (loopback only without --curve unless
 * --insecure), and CURVE with an allow directory: a worker whose key is not
 * allowed never gets a job (the run waits until the coordinator gives up,
 * the coordinator logs the refused key, and the worker is told at once by
 * the handshake's ZAP status, with its key), a known worker completes the
 * run with the published count (perft(4) = 197,281 and perft(5) =
 * 4,865,609 of the start position, chessprogramming wiki "Perft Results"),
 * clients need an allowed key (a refused one is told so) and the right
 * server key (else a hint), and with a separate
 * client directory the two roles cannot be swapped.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"
#include "security.h"

static char dir[256];   /* the test's scratch directory */
static char pub[8][48]; /* public keys by index of names[] */
static const char *names[] = {"coord", "w1", "w2", "cli", "wonly", "conly"};
enum { COORD, W1, W2, CLI, WONLY, CONLY, NKEYS };

static void expect_err(const th_run_t *r, const char *text, const char *what)
{
    if (!strstr(r->err, text)) fail_msg("%s: stderr lacks \"%s\": %s", what, text, r->err);
}

/* Keys for every role, and three allow directories. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", th_tmpdir("security"));
    for (int i = 0; i < NKEYS; i++) {
        th_run_t r = th_run(30, "ply keygen --out %s/keys --name %s", dir, names[i]);
        const char *k = strstr(r.out, "public key ");
        if (r.status != 0 || !k) {
            fprintf(stderr, "keygen failed: %s %s\n", r.out, r.err);
            return -1;
        }
        snprintf(pub[i], sizeof pub[i], "%.40s", k + 11);
        th_run_free(&r);
    }
    th_run_t r =
        th_run(30,
               "cd %s && mkdir allow workers clients && cp keys/w1.key keys/cli.key allow/ "
               "&& cp keys/wonly.key workers/ && cp keys/conly.key clients/",
               dir);
    int rc = r.status == 0 ? 0 : -1;
    th_run_free(&r);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    th_run_t r = th_run(30, "rm -rf %s", dir);
    th_run_free(&r);
    return 0;
}

/* ---- ply keygen ------------------------------------------------------------------------ */

static void test_keygen(void **state)
{
    (void)state;
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/keys/w1.key_secret", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char *secret = th_slurp(path);
    assert_non_null(strstr(secret, "secret-key"));
    free(secret);
    snprintf(path, sizeof path, "%s/keys/w1.key", dir);
    char *public = th_slurp(path);
    assert_null(strstr(public, "secret-key"));
    assert_non_null(strstr(public, pub[W1]));
    assert_non_null(strstr(public, "name = \"w1\""));
    free(public);

    th_run_t r = th_run(30, "ply keygen --out %s/keys --name w1", dir);
    th_expect_status(&r, 1, "keygen over an existing pair");
    expect_err(&r, "--force", "keygen over an existing pair");
    th_run_free(&r);
    r = th_run(
        30,
        "ply keygen --out %s/keys --name again && ply keygen --out %s/keys --name again --force",
        dir, dir);
    th_expect_status(&r, 0, "keygen --force");
    th_run_free(&r);
    const char *bad[] = {"ply keygen --name ../escape", "ply keygen --frob", "ply keygen extra"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = th_run(30, "%s", bad[i]);
        th_expect_status(&r, 2, bad[i]);
        assert_int_equal(th_count(r.err, "\n"), 1);
        th_run_free(&r);
    }
    r = th_run(30, "ply keygen --out /proc/no/such/dir --name x");
    th_expect_status(&r, 1, "keygen into an impossible directory");
    th_run_free(&r);
    r = th_run(30, "ply keygen --help");
    th_expect_status(&r, 0, "keygen --help");
    assert_non_null(strstr(r.out, "usage: ply keygen"));
    th_run_free(&r);
}

/* ---- the bind policy -------------------------------------------------------------------- */

static void test_endpoint_is_local(void **state)
{
    (void)state;
    const char *local[] = {"tcp://127.0.0.1:5555", "tcp://127.1.2.3:1",  "tcp://localhost:9",
                           "tcp://[::1]:5555",     "tcp://lo:5555",      "tcp://127.0.0.1:*",
                           "inproc://x",           "ipc:///tmp/ply.sock"};
    const char *remote[] = {"tcp://0.0.0.0:5555",
                            "tcp://*:5555",
                            "tcp://10.0.0.1:5555",
                            "tcp://eth0:5555",
                            "tcp://[::]:5555",
                            "tcp://example.org:1",
                            "tcp://128.0.0.1:5",
                            "tcp://[::ffff:127.0.0.1]:5",
                            "tcp://1.2.3.4;127.0.0.1:5",
                            "ws://127.0.0.1:80",
                            "tcp://127.0.0.1",
                            "",
                            "tipc://{1,2}"};
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if (!ply_endpoint_is_local(local[i])) fail_msg("%s should be local", local[i]);
    for (size_t i = 0; i < sizeof remote / sizeof *remote; i++)
        if (ply_endpoint_is_local(remote[i])) fail_msg("%s should not be local", remote[i]);
    assert_false(ply_endpoint_is_local(NULL));
    char why[512];
    assert_int_equal(ply_bind_check("tcp://0.0.0.0:1", 0, 0, why, sizeof why), PLY_EINVAL);
    assert_non_null(strstr(why, "--insecure"));
    assert_int_equal(ply_bind_check("tcp://0.0.0.0:1", 1, 0, why, sizeof why), 0);
    assert_int_equal(ply_bind_check("tcp://0.0.0.0:1", 0, 1, why, sizeof why), 0);
}

static void test_bind_refused(void **state)
{
    (void)state;
    int port = th_free_port();
    const char *refused[] = {"tcp://0.0.0.0:%d", "tcp://*:%d",
                             "tcp://127.0.0.1:%d,tcp://0.0.0.0:%d"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char ep[128];
        snprintf(ep, sizeof ep, refused[i], port, port + 1);
        th_run_t r = th_run(30, "ply-coordinator --bind '%s'", ep);
        th_expect_status(&r, 1, ep);
        expect_err(&r, "refusing to bind", ep);
        expect_err(&r, "--insecure", ep);
        assert_int_equal(th_count(r.err, "\n"), 1);
        th_run_free(&r);
    }
    /* --insecure, and --curve, lift it */
    char log[512];
    snprintf(log, sizeof log, "%s/insecure.log", dir);
    pid_t c = th_spawn(log, "exec ply-coordinator --bind tcp://0.0.0.0:%d --insecure", port);
    int up = th_wait_text(log, "listening on", 5000);
    assert_int_equal(th_stop(c), 0);
    assert_true(up);
    snprintf(log, sizeof log, "%s/curve-any.log", dir);
    c = th_spawn(log,
                 "exec ply-coordinator --bind tcp://0.0.0.0:%d --curve --cert "
                 "%s/keys/coord.key_secret --allow %s/allow",
                 port, dir, dir);
    up = th_wait_text(log, "listening on", 5000);
    assert_int_equal(th_stop(c), 0);
    assert_true(up);
}

static void test_curve_usage(void **state)
{
    (void)state;
    struct {
        const char *cmd;
        int status;
        const char *says;
    } cases[] = {
        {"ply-coordinator --bind tcp://127.0.0.1:1 --curve", 2, "--curve needs"},
        {"ply-coordinator --bind tcp://127.0.0.1:1 --cert K/keys/coord.key_secret", 2,
         "need --curve"},
        {"ply-coordinator --bind tcp://127.0.0.1:1 --curve --cert K/keys/none --allow K/allow", 1,
         "cannot read certificate"},
        {"ply-coordinator --bind tcp://127.0.0.1:1 --curve --cert K/keys/coord.key --allow K/allow",
         1, "holds no secret key"},
        {"ply-coordinator --bind tcp://127.0.0.1:1 --curve --cert K/keys/coord.key_secret --allow "
         "K/nodir",
         1, "allow directory"},
        {"ply-coordinator --bind tcp://127.0.0.1:1 --curve --cert /etc/passwd --allow K/allow", 1,
         "not a CURVE certificate"},
        {"ply-worker --connect tcp://127.0.0.1:1 --curve --cert K/keys/w1.key_secret", 2,
         "--curve needs"},
        {"ply-worker --connect tcp://127.0.0.1:1 --curve --cert K/keys/w1.key --server-key "
         "K/keys/coord.key",
         1, "holds no secret key"},
        {"ply-worker --connect tcp://127.0.0.1:1 --curve --cert K/keys/w1.key_secret --server-key "
         "not-a-key",
         1, "cannot read certificate"},
        {"ply perft -d 1 --curve --coordinator tcp://127.0.0.1:1", 2, "--curve needs"},
        {"ply perft -d 1 --server-key K/keys/coord.key --coordinator tcp://127.0.0.1:1", 2,
         "need --curve"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[1024], *o = cmd;
        for (const char *s = cases[i].cmd; *s && o < cmd + sizeof cmd - 300; s++) {
            if (*s == 'K' && s[1] == '/')
                o += sprintf(o, "%s", dir);
            else
                *o++ = *s;
        }
        *o = '\0';
        th_run_t r = th_run(30, "%s", cmd);
        th_expect_status(&r, cases[i].status, cmd);
        expect_err(&r, cases[i].says, cmd);
        th_run_free(&r);
    }
}

/* ---- the ZAP handler in-process ------------------------------------------------------------- */

/* A DEALER with @key's keys sends one message; returns the CURVE identity the ROUTER saw, or "". */
static void handshake(zsock_t *router, int port, const char *key, char *peer, size_t len)
{
    char cert[512], server[512], why[512];
    snprintf(cert, sizeof cert, "%s/keys/%s.key_secret", dir, key);
    snprintf(server, sizeof server, "%s/keys/coord.key", dir);
    ply_curve_client_t *k = ply_curve_client_new(cert, server, why, sizeof why);
    if (!k) fail_msg("%s", why);
    zsock_t *d = zsock_new(ZMQ_DEALER);
    zsock_set_linger(d, 0);
    assert_int_equal(ply_curve_client_apply(k, d), 0);
    assert_int_equal(zsock_connect(d, "tcp://127.0.0.1:%d", port), 0);
    ply_msg_t m = PLY__MESSAGE__INIT;
    Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
    m.body_case = PLY__MESSAGE__BODY_HEARTBEAT, m.heartbeat = &hb;
    zsock_set_sndtimeo(d, 0);
    ply_msg_send(d, &m);
    peer[0] = '\0';
    zsock_set_rcvtimeo(router, 1500);
    zframe_t *rid = NULL;
    ply_msg_t *got = NULL;
    if (ply_curve_recv_from(router, &rid, &got, peer, len, why, sizeof why) == 0 && !peer[0])
        snprintf(peer, len, "(no identity)");
    zframe_destroy(&rid);
    ply_msg_free(&got);
    zsock_destroy(&d);
    ply_curve_client_destroy(&k);
}

/* Duplicate keys, junk files, a subdirectory and secret files in the allow directory do not
 * hurt (czmq's zcertstore aborts on a duplicate key); a second handler is refused; keys added
 * while it runs are admitted at the next connection. */
static void test_zap_handler(void **state)
{
    (void)state;
    th_run_t r = th_run(30,
                        "cd %s && mkdir allow2 allow2/sub && cp keys/w1.key allow2/ && "
                        "cp keys/w1.key allow2/w1-copy.key && cp keys/w2.key_secret allow2/ && "
                        "head -c 3000 /dev/urandom > allow2/junk && : > allow2/empty && "
                        "head -c 100000 /dev/zero > allow2/huge && "
                        "printf 'curve\n    public-key = \"abc\"\n' > allow2/short.key",
                        dir);
    th_expect_status(&r, 0, "allow2");
    th_run_free(&r);
    char cert[512], allow[512], why[512];
    snprintf(cert, sizeof cert, "%s/keys/coord.key_secret", dir);
    snprintf(allow, sizeof allow, "%s/allow2", dir);
    ply_curve_server_t *s = ply_curve_server_new(cert, allow, NULL, why, sizeof why);
    if (!s) fail_msg("%s", why);
    assert_null(ply_curve_server_new(cert, allow, NULL, why, sizeof why));
    assert_non_null(strstr(why, "ZAP handler"));
    assert_string_equal(ply_curve_server_public_key(s), pub[COORD]);

    zsock_t *router = zsock_new(ZMQ_ROUTER);
    zsock_set_linger(router, 0);
    assert_int_equal(ply_curve_server_apply(s, router), 0);
    int port = -1;
    for (int i = 0; i < 10 && port < 0; i++) {
        int p = th_free_port();
        if (zsock_bind(router, "tcp://127.0.0.1:%d", p) >= 0) port = p;
    }
    assert_true(port > 0);
    char peer[128], want[128];
    handshake(router, port, "w1", peer, sizeof peer);
    snprintf(want, sizeof want, "any:%s", pub[W1]);
    assert_string_equal(peer, want);
    handshake(router, port, "w2", peer, sizeof peer); /* only its secret file is there */
    assert_string_equal(peer, "");
    uint64_t allowed, refused;
    ply_curve_server_counters(s, &allowed, &refused);
    assert_true(allowed >= 1 && refused >= 1);
    r = th_run(30, "cp %s/keys/w2.key %s/allow2/", dir, dir);
    th_run_free(&r);
    handshake(router, port, "w2", peer, sizeof peer);
    snprintf(want, sizeof want, "any:%s", pub[W2]);
    assert_string_equal(peer, want);
    zsock_destroy(&router);
    ply_curve_server_destroy(&s);
    ply_curve_server_destroy(&s); /* idempotent */
}

/* ---- CURVE at work -------------------------------------------------------------------------- */

#define CLIENT(key) "--curve --cert %s/keys/" key ".key_secret --server-key %s/keys/coord.key"

static pid_t start_worker(const char *key, int port, const char *log)
{
    return th_spawn(
        log,
        "exec ply-worker --connect tcp://127.0.0.1:%d --curve --cert %s/keys/%s.key_secret "
        "--server-key %s/keys/coord.key --threads 1 --hash 16 -v",
        port, dir, key, dir);
}

static void test_curve_unknown_then_known(void **state)
{
    (void)state;
    int port = th_free_port();
    char clog[512], w2log[512], w1log[512];
    snprintf(clog, sizeof clog, "%s/coord.log", dir);
    snprintf(w2log, sizeof w2log, "%s/w2.log", dir);
    snprintf(w1log, sizeof w1log, "%s/w1.log", dir);
    /* a wildcard bind: allowed because of --curve */
    pid_t coord = th_spawn(clog,
                           "exec ply-coordinator --bind tcp://0.0.0.0:%d --curve --cert "
                           "%s/keys/coord.key_secret --allow %s/allow --worker-wait-ms 4000 -v",
                           port, dir, dir);
    assert_true(th_wait_text(clog, "listening on", 5000));
    pid_t w2 = start_worker("w2", port, w2log);

    /* the unknown worker gets nothing: the run waits until the coordinator gives up */
    uint64_t t0 = th_now_ms();
    th_run_t r =
        th_run(60, "ply perft --coordinator tcp://127.0.0.1:%d " CLIENT("cli") " -d 4 --timeout 20",
               port, dir, dir);
    uint64_t waited = th_now_ms() - t0;
    int refused_logged = th_wait_text(clog, "refused unknown key", 2000);
    char *log = th_slurp(clog);
    int w2_refused = strstr(log, pub[W2]) != NULL, joined = strstr(log, " joined") != NULL;
    free(log);
    /* it knows at once (the handshake's ZAP status), says so with its key, and gives up */
    int hint = th_wait_text(w2log, "refused our CURVE public key", 10000);
    char *w2text = th_slurp(w2log);
    hint = hint && strstr(w2text, pub[W2]) && strstr(w2text, "ZAP status 400");
    free(w2text);
    int w2_status = th_stop(w2);
    if (r.status != 1 || !strstr(r.err, "no worker") || waited < 3500 || !refused_logged ||
        !w2_refused || joined || !hint) {
        th_stop(coord);
        char *w2out = th_slurp(w2log), *cout = th_slurp(clog);
        fail_msg("unknown key: status %d (%s) after %llu ms; coordinator log:\n%s\nworker:\n%s",
                 r.status, r.err, (unsigned long long)waited, cout, w2out);
    }
    assert_int_equal(w2_status, 1);
    th_run_free(&r);

    /* a client without CURVE gets no answer; with an unknown key it is told at once that the
     * key was refused; expecting another server key, no answer and a hint */
    const char *clients[] = {"", CLIENT("w2"),
                             "--curve --cert %s/keys/cli.key_secret --server-key %s/keys/w1.key"};
    const char *says[] = {"answers only clients with --curve --cert FILE --server-key FILE",
                          "refused our CURVE public key",
                          "is --server-key the coordinator's public key?"};
    for (size_t i = 0; i < 3; i++) {
        char opts[512];
        snprintf(opts, sizeof opts, clients[i], dir, dir);
        r = th_run(30, "ply perft --coordinator tcp://127.0.0.1:%d %s -d 2 --timeout 2", port,
                   opts);
        if (r.status != 1 || !strstr(r.err, says[i])) {
            th_stop(coord);
            fail_msg("client '%s' got status %d: %s %s", opts, r.status, r.out, r.err);
        }
        th_run_free(&r);
    }

    /* the known worker joins, is identified by its key, and the run is exact */
    pid_t w1 = start_worker("w1", port, w1log);
    r = th_run(
        60, "ply perft --coordinator tcp://127.0.0.1:%d " CLIENT("cli") " -d 5 --json --timeout 20",
        port, dir, dir);
    int w1_identified = th_wait_text(clog, pub[W1], 2000);
    th_stop(w1);
    int coord_status = th_stop(coord);
    th_expect_status(&r, 0, "perft with a known worker");
    json_error_t jerr;
    json_t *o = json_loads(r.out, 0, &jerr);
    assert_non_null(o);
    assert_true(json_integer_value(json_object_get(o, "nodes")) == 4865609);
    json_decref(o);
    th_run_free(&r);
    assert_true(w1_identified);
    log = th_slurp(clog);
    assert_non_null(strstr(log, "(w1, as any)"));
    free(log);
    assert_int_equal(coord_status, 0);
}

static void test_curve_roles(void **state)
{
    (void)state;
    int port = th_free_port();
    char clog[512], wlog[512];
    snprintf(clog, sizeof clog, "%s/roles.log", dir);
    snprintf(wlog, sizeof wlog, "%s/roles-w.log", dir);
    pid_t coord = th_spawn(clog,
                           "exec ply-coordinator --bind tcp://127.0.0.1:%d --curve --cert "
                           "%s/keys/coord.key_secret --allow %s/workers --allow-clients %s/clients "
                           "--worker-wait-ms 0 -v",
                           port, dir, dir, dir);
    assert_true(th_wait_text(clog, "listening on", 5000));
    /* a client key cannot be a worker */
    pid_t bad = start_worker("conly", port, wlog);
    int refused = th_wait_text(clog, "may not send HELLO", 5000);
    int told = th_wait_text(wlog, "may not send HELLO", 5000);
    th_stop(bad);
    /* a worker key cannot be a client */
    th_run_t r = th_run(
        30, "ply perft --coordinator tcp://127.0.0.1:%d " CLIENT("wonly") " -d 3 --timeout 5", port,
        dir, dir);
    int status = r.status;
    int says = strstr(r.err, "may not send SUBMIT") != NULL;
    th_run_free(&r);
    /* each in its role works */
    pid_t w = start_worker("wonly", port, wlog);
    r = th_run(60,
               "ply perft --coordinator tcp://127.0.0.1:%d " CLIENT("conly") " -d 4 --timeout 20",
               port, dir, dir);
    th_stop(w);
    th_stop(coord);
    assert_true(refused);
    assert_true(told);
    assert_int_equal(status, 1);
    assert_true(says);
    th_expect_status(&r, 0, "roles respected");
    assert_non_null(strstr(r.out, "Nodes searched: 197281"));
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keygen),       cmocka_unit_test(test_endpoint_is_local),
        cmocka_unit_test(test_bind_refused), cmocka_unit_test(test_curve_usage),
        cmocka_unit_test(test_zap_handler),  cmocka_unit_test(test_curve_unknown_then_known),
        cmocka_unit_test(test_curve_roles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
