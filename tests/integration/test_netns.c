/*
 * A cluster of three "hosts": the coordinator and two workers each in a
 * network namespace of its own, joined by veth pairs (10.77.1.0/24 to worker
 * 1, 10.77.2.0/24 to worker 2), talking CURVE as machines on a real network
 * would (the coordinator binds 0.0.0.0, which needs --curve). During a perft
 * of Kiwipete to depth 6 with statistics (8,031,647,685 nodes; the other
 * counts from the chessprogramming wiki, "Perft Results", position 2):
 *   - worker 1's link goes down for LONG_FLAP_S seconds, longer than the
 *     coordinator's liveness (5 heartbeats of 1 s): the coordinator declares
 *     the worker dead and re-queues its jobs, the worker gives up on the
 *     silent coordinator and reconnects once the link is back;
 *   - then worker 2's link goes down for SHORT_FLAP_S seconds, shorter than
 *     the liveness: TCP retransmits and nobody is declared dead.
 * The answer must be exact. Needs root (ip netns, veth); exits 77 (skipped)
 * where namespaces cannot be made or entered (see main). Namespaces are removed at the end, on
 * failure too, and stale ones of earlier runs that were killed (named after
 * the pid of their test process) are removed at the start.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <jansson.h>

#include "harness.h"

#define KIWIPETE     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define PORT         5555 /* private to the coordinator's namespace */
#define LONG_FLAP_S  8
#define SHORT_FLAP_S 2

static char dir[256];
static char ns[3][32]; /* coordinator, worker 1, worker 2 */
static char vc[2][16]; /* veth ends in the coordinator's namespace */
static char vw[2][16]; /* and in each worker's */
static int net_up;

/* Runs a command line quietly; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    th_run_t r = th_run(30, "%s", cmd);
    if (r.status != 0) fprintf(stderr, "[netns] '%s' failed (%d): %s", cmd, r.status, r.err);
    int st = r.status;
    th_run_free(&r);
    return st;
}

static void net_down(void)
{
    for (int i = 0; i < 3; i++) {
        th_run_t r = th_run(30, "ip netns del %s", ns[i]);
        th_run_free(&r);
    }
    net_up = 0;
}

/* Removes namespaces "plyt<pid>-..." whose test process is gone (a run killed by a timeout). */
static void remove_stale(void)
{
    th_run_t r = th_run(30, "ip netns list");
    for (char *save = NULL, *line = strtok_r(r.out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        int pid;
        char name[64];
        if (sscanf(line, "%63s", name) != 1 || sscanf(name, "plyt%d-", &pid) != 1) continue;
        if (pid != (int)getpid() && kill(pid, 0) != 0 && errno == ESRCH) {
            th_run_t d = th_run(30, "ip netns del %s", name);
            th_run_free(&d);
        }
    }
    th_run_free(&r);
}

static int net_setup(void)
{
    int id = (int)getpid();
    snprintf(ns[0], sizeof ns[0], "plyt%d-c", id);
    for (int i = 0; i < 2; i++) {
        snprintf(ns[i + 1], sizeof ns[i + 1], "plyt%d-w%d", id, i + 1);
        snprintf(vc[i], sizeof vc[i], "pc%d-%d", i + 1, id % 100000);
        snprintf(vw[i], sizeof vw[i], "pw%d-%d", i + 1, id % 100000);
    }
    remove_stale();
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++)
        rc = sh("ip netns add %s && ip -n %s link set lo up", ns[i], ns[i]);
    net_up = 1;
    for (int i = 0; i < 2 && !rc; i++)
        rc = sh(
            "ip link add %s netns %s type veth peer name %s netns %s && "
            "ip -n %s addr add 10.77.%d.1/24 dev %s && ip -n %s addr add 10.77.%d.2/24 dev %s && "
            "ip -n %s link set %s up && ip -n %s link set %s up",
            vc[i], ns[0], vw[i], ns[i + 1], ns[0], i + 1, vc[i], ns[i + 1], i + 1, vw[i], ns[0],
            vc[i], ns[i + 1], vw[i]);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", th_tmpdir("netns"));
    const char *keys[] = {"coord", "w1", "w2", "cli"};
    for (int i = 0; i < 4; i++)
        if (sh("ply keygen --out %s/keys --name %s", dir, keys[i])) return -1;
    if (sh("mkdir %s/allow && cp %s/keys/w1.key %s/keys/w2.key %s/keys/cli.key %s/allow/", dir, dir,
           dir, dir, dir))
        return -1;
    return net_setup() == 0 ? 0 : -1;
}

static void cleanup(void)
{
    if (net_up) net_down();
    if (dir[0] && !getenv("PLY_TEST_KEEP")) {
        th_run_t r = th_run(30, "rm -rf %s", dir);
        th_run_free(&r);
        dir[0] = '\0';
    }
}

static void on_signal(int sig)
{
    cleanup(); /* not async-signal-safe, but the process is going away: best effort */
    signal(sig, SIG_DFL);
    raise(sig);
}

static int teardown(void **state)
{
    (void)state;
    cleanup();
    return 0;
}

static const char *flap(int link, int down)
{
    static char cmd[128];
    snprintf(cmd, sizeof cmd, "ip -n %s link set %s %s", ns[0], vc[link], down ? "down" : "up");
    return cmd;
}

static void test_link_flaps(void **state)
{
    (void)state;
    char clog[512], wlog[2][512], out[512], err[512];
    snprintf(clog, sizeof clog, "%s/coordinator.log", dir);
    snprintf(out, sizeof out, "%s/perft.json", dir);
    snprintf(err, sizeof err, "%s/perft.err", dir);
    pid_t coord = th_spawn(clog,
                           "exec ip netns exec %s ply-coordinator --bind tcp://0.0.0.0:%d --curve "
                           "--cert %s/keys/coord.key_secret --allow %s/allow -v",
                           ns[0], PORT, dir, dir);
    assert_true(th_wait_text(clog, "listening on", 5000));
    pid_t w[2];
    for (int i = 0; i < 2; i++) {
        snprintf(wlog[i], sizeof wlog[i], "%s/worker%d.log", dir, i + 1);
        w[i] = th_spawn(wlog[i],
                        "exec ip netns exec %s ply-worker --connect tcp://10.77.%d.1:%d --id w%d "
                        "--curve --cert %s/keys/w%d.key_secret --server-key %s/keys/coord.key "
                        "--threads 1 --hash 0 -v",
                        ns[i + 1], i + 1, PORT, i + 1, dir, i + 1, dir);
    }
    int joined = th_wait_text(clog, "worker w1 joined", 10000) &&
                 th_wait_text(clog, "worker w2 joined", 10000);
    uint64_t t0 = th_now_ms();
    pid_t client =
        th_spawn(err,
                 "ip netns exec %s ply perft --coordinator tcp://127.0.0.1:%d --curve "
                 "--cert %s/keys/cli.key_secret --server-key %s/keys/coord.key "
                 "--fen '" KIWIPETE "' -d 6 --stats --split-depth 2 --json --timeout 120 > %s",
                 ns[0], PORT, dir, dir, out);
    sleep(3);
    int running_at_flap = th_alive(client);
    int ok = joined && running_at_flap && sh("%s", flap(0, 1)) == 0;
    sleep(LONG_FLAP_S);
    ok = sh("%s", flap(0, 0)) == 0 && ok;
    uint64_t back = th_now_ms() - t0;
    sleep(2);
    int running_at_short = th_alive(client);
    if (running_at_short) {
        ok = sh("%s", flap(1, 1)) == 0 && ok;
        sleep(SHORT_FLAP_S);
        ok = sh("%s", flap(1, 0)) == 0 && ok;
    }
    int status = th_wait(client, 240000);
    uint64_t took = th_now_ms() - t0;
    if (status == -2) th_stop(client);
    int rejoined = th_wait_text(clog, "worker w1 joined", 1000);
    char *log = th_slurp(clog);
    int lost = strstr(log, "worker w1 silent") != NULL || strstr(log, "w1 silent") != NULL ||
               strstr(log, "dead") != NULL;
    int joins_w1 = th_count(log, "worker w1 joined");
    free(log);
    for (int i = 0; i < 2; i++) th_stop(w[i]);
    int coord_status = th_stop(coord);
    print_message("perft took %llu ms; link 1 down 3 s -> %llu ms; short flap %s; w1 joined %d "
                  "times\n",
                  (unsigned long long)took, (unsigned long long)back,
                  running_at_short ? "done" : "skipped (run over)", joins_w1);
    if (!ok || status != 0) {
        char *e = th_slurp(err), *c = th_slurp(clog), *w1 = th_slurp(wlog[0]);
        fail_msg("flaps ok %d, client status %d: %s\ncoordinator:\n%s\nworker 1:\n%s", ok, status,
                 e, strlen(c) > 4000 ? c + strlen(c) - 4000 : c,
                 strlen(w1) > 3000 ? w1 + strlen(w1) - 3000 : w1);
    }
    char *text = th_slurp(out);
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    if (!o) fail_msg("not JSON: %s", text);
    free(text);
    json_t *st = json_object_get(o, "stats");
#define U(obj, key) ((uint64_t)json_integer_value(json_object_get(obj, key)))
    assert_true(U(o, "nodes") == 8031647685ull);
    assert_true(U(st, "captures") == 1558445089ull);
    assert_true(U(st, "enpassants") == 3577504ull);
    assert_true(U(st, "castles") == 184513607ull);
    assert_true(U(st, "promotions") == 56627920ull);
    assert_true(U(st, "total_checks") + U(st, "total_mates") == 92238050ull);
    assert_true(U(st, "total_mates") == 360003ull);
#undef U
    json_decref(o);
    /* the long flap did what it is for: w1 was lost and came back */
    assert_true(lost);
    assert_true(rejoined && joins_w1 >= 2);
    assert_int_equal(coord_status, 0);
}

int main(void)
{
    /* skip where network namespaces cannot be made or entered (not root, no CAP_SYS_ADMIN,
     * no iproute2, or a chroot whose / is not a mount point: there `ip netns add` works but
     * entering the namespace fails on "mount --make-rslave /") */
    char probe[64];
    snprintf(probe, sizeof probe, "plyt%d-probe", (int)getpid());
    th_run_t r = th_run(30,
                        "ip netns add %s || exit 1; ip -n %s link set lo up && "
                        "ip netns exec %s true; rc=$?; ip netns del %s; exit $rc",
                        probe, probe, probe, probe);
    if (r.status != 0) {
        fprintf(stderr, "skipped: cannot create network namespaces: %s", r.err);
        th_run_free(&r);
        return 77;
    }
    th_run_free(&r);
    /* namespaces are removed however the test ends: return, failure, or a signal */
    atexit(cleanup);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_flaps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
