/*
 * End-to-end tests of the ply command and the cluster programs, run as a
 * user would run them (real processes, real sockets). Expected values:
 * published perft counts (tests/data/perftsuite.epd; chessprogramming wiki,
 * Perft Results), the Grand Chess Tree statistics files, and Stockfish 15.1's
 * own `go perft` divide, computed during the test (skipped without Stockfish).
 *
 * Groups (argv[1]): "quick" (seconds), "suites" (EPD files, a few minutes),
 * "cluster" (coordinator and worker processes on loopback TCP).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define POSITION3 "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"

/* Deadline of one command (harness.h, th_run): the longest group's ctest
 * limit (cli_suites), so that it never cuts a run ctest would let finish. */
#define RUN_S 1200

static uint64_t json_u64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) fail_msg("JSON has no integer '%s'", key);
    return (uint64_t)json_integer_value(v);
}

/* ---- quick ------------------------------------------------------------------------ */

static void test_help(void **state)
{
    (void)state;
    const char *cmds[] = {"ply --help", "ply perft --help", "ply-worker --help", "ply-coordinator --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        th_run_t r = th_run(RUN_S, "%s", cmds[i]);
        th_expect_status(&r, 0, cmds[i]);
        assert_non_null(strstr(r.out, "usage"));
        th_run_free(&r);
    }
    th_run_t r = th_run(RUN_S, "ply frobnicate");
    th_expect_status(&r, 2, "unknown command");
    th_run_free(&r);
}

static void test_startpos(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply perft -d 6");
    th_expect_status(&r, 0, "ply perft -d 6");
    assert_non_null(strstr(r.out, "Nodes searched: 119060324\n"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft startpos -d 5 --json");
    th_expect_status(&r, 0, "--json");
    json_t *o = th_json(&r);
    assert_true(json_u64(o, "nodes") == 4865609);
    assert_true(json_u64(o, "depth") == 5);
    assert_true(json_object_size(json_object_get(o, "divide")) == 20);
    assert_true(json_u64(json_object_get(o, "divide"), "e2e4") == 405385);
    json_t *v = json_object_get(o, "verified");
    assert_true(json_u64(v, "perft1_checked") == json_u64(o, "jobs"));
    json_decref(o);
    th_run_free(&r);
}

static void test_kiwipete(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply perft --fen '" KIWIPETE "' -d 5 --json");
    th_expect_status(&r, 0, "kiwipete d5");
    json_t *o = th_json(&r);
    assert_true(json_u64(o, "nodes") == 193690690);
    json_decref(o);
    th_run_free(&r);
}

/* Sorted "move: count" lines of a divide. */
static void sorted_divide_lines(const char *text, char lines[][32], int *n)
{
    *n = 0;
    char *copy = strdup(text);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char move[8];
        unsigned long long count;
        if (sscanf(l, "%7[a-h1-8qrbn]: %llu", move, &count) == 2 && strlen(move) >= 4)
            snprintf(lines[(*n)++], 32, "%s: %llu", move, count);
    }
    free(copy);
    qsort(lines, (size_t)*n, 32, (int (*)(const void *, const void *))strcmp);
}

static void test_divide_vs_stockfish(void **state)
{
    (void)state;
    const char *sf = access("/usr/games/stockfish", X_OK) == 0 ? "/usr/games/stockfish" : NULL;
    if (!sf) skip();
    static char ours[256][32], theirs[256][32];
    int n_ours, n_theirs;
    th_run_t r = th_run(RUN_S, "ply perft --fen '" KIWIPETE "' -d 3 --divide");
    th_expect_status(&r, 0, "divide");
    sorted_divide_lines(r.out, ours, &n_ours);
    th_run_t s =
        th_run(RUN_S, "printf 'position fen %s\\ngo perft 3\\nquit\\n' | %s", KIWIPETE, sf);
    sorted_divide_lines(s.out, theirs, &n_theirs);
    assert_int_equal(n_ours, 48);
    assert_int_equal(n_ours, n_theirs);
    for (int i = 0; i < n_ours; i++) assert_string_equal(ours[i], theirs[i]);
    assert_non_null(strstr(r.out, "Nodes searched: 97862"));
    th_run_free(&r);
    th_run_free(&s);
}

/* --stats reproduces the Grand Chess Tree columns. */
static void check_stats(const char *fen, const char *file, int max_depth)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PLY_TEST_DATA, file);
    json_error_t err;
    json_t *gct = json_load_file(path, 0, &err);
    assert_non_null(gct);
    for (int d = 1; d <= max_depth; d++) {
        th_run_t r = th_run(RUN_S, "ply perft --fen '%s' -d %d --stats --json", fen, d);
        th_expect_status(&r, 0, "--stats");
        json_t *o = th_json(&r);
        json_t *stats = json_object_get(o, "stats");
        json_t *want = NULL, *row;
        size_t i;
        json_array_foreach(json_object_get(gct, "results"), i, row) if (json_integer_value(json_object_get(row, "depth")) == d) want = row;
        assert_non_null(want);
        const char *key;
        json_t *value;
        int columns = 0;
        json_object_foreach(stats, key, value)
        {
            json_t *w = json_object_get(want, key);
            if (!w || json_integer_value(w) != json_integer_value(value))
                fail_msg("%s depth %d %s: %lld, Grand Chess Tree says %lld", file, d, key,
                         (long long)json_integer_value(value), w ? (long long)json_integer_value(w) : -1);
            columns++;
        }
        assert_int_equal(columns, 15);
        json_decref(o);
        th_run_free(&r);
    }
    json_decref(gct);
}

static void test_stats_start(void **state)
{
    (void)state;
    check_stats("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "perft_p0_results.json", 6);
}

static void test_stats_kiwipete(void **state)
{
    (void)state;
    check_stats(KIWIPETE, "perft_p1_results.json", 5);
}

static void test_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *args;
        int status;
        const char *words;
    } cases[] = {
        {"perft --fen 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq' -d 3", 2, "field"},
        {"perft --fen 'rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' -d 3", 2, "placement"},
        {"perft --fen 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNK w - - 0 1' -d 3", 2, "king"},
        {"perft --fen '4k3/8/8/8/8/8/8/4K2R w K e3 0 1' -d 3", 2, "en passant"},
        {"perft --fen 'xyz' -d 3", 2, "field count"},
        {"perft -d 0", 2, "depth"},
        {"perft -d 21", 2, "depth"},
        {"perft -d abc", 2, "depth"},
        {"perft", 2, "depth"},
        {"perft -d 3 --split-depth 3", 2, "split"},
        {"perft -d 3 --hash -1", 2, "hash"},
        {"perft -d 3 --bogus", 2, "unknown option"},
        {"perft --epd /nonexistent.epd", 2, "nonexistent"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        th_run_t r = th_run(RUN_S, "ply %s", cases[i].args);
        th_expect_status(&r, cases[i].status, cases[i].args);
        if (!strcasestr(r.err, cases[i].words))
            fail_msg("ply %s: stderr '%s' does not mention '%s'", cases[i].args, r.err, cases[i].words);
        if (strstr(r.out, "Nodes searched")) fail_msg("ply %s printed a result", cases[i].args);
        int lines = 0;
        for (const char *c = r.err; *c; c++) lines += *c == '\n';
        if (lines != 1) fail_msg("ply %s: error is not one line: '%s'", cases[i].args, r.err);
        th_run_free(&r);
    }
}

static void test_unreachable_coordinator(void **state)
{
    (void)state;
    int port = th_free_port(); /* nothing listens there */
    th_run_t r = th_run(RUN_S, "ply perft -d 3 --coordinator tcp://127.0.0.1:%d --timeout 2", port);
    th_expect_status(&r, 1, "unreachable coordinator");
    assert_non_null(strstr(r.err, "coordinator"));
    assert_null(strstr(r.out, "Nodes searched"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft -d 3 --coordinator 'not an endpoint' --timeout 2");
    assert_true(r.status == 1 || r.status == 2);
    th_run_free(&r);
}

/* ---- cluster ------------------------------------------------------------------------ */

static pid_t spawn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static pid_t spawn(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    pid_t pid = fork();
    if (pid == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s:%s", PLY_BIN_DIR, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
        setenv("PATH", path, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void stop(pid_t pid)
{
    kill(pid, SIGTERM);
    for (int i = 0; i < 50; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) return;
        usleep(100000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Coordinator and two workers as separate processes on a random loopback
 * port. Position 3 of the chessprogramming wiki's Perft Results, depth 6:
 * 11,030,083 nodes, 940,350 captures, 33,325 en passant, 7,552 promotions,
 * 452,473 checks (GCT total_checks + total_mates), 26,067 discovered checks,
 * 0 double checks, 2,733 checkmates. */
static void test_multi_process(void **state)
{
    (void)state;
    int port = th_free_port();
    pid_t coord = spawn("exec ply-coordinator --bind tcp://127.0.0.1:%d -q", port);
    pid_t w1 = spawn("exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q", port);
    pid_t w2 = spawn("exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q", port);
    th_run_t r = th_run(RUN_S,
                        "ply perft --coordinator tcp://127.0.0.1:%d --fen '" POSITION3
                        "' -d 6 --stats --split-depth 2 --json",
                        port);
    stop(w1);
    stop(w2);
    stop(coord);
    th_expect_status(&r, 0, "multi-process perft");
    json_t *o = th_json(&r);
    json_t *s = json_object_get(o, "stats");
    assert_true(json_u64(o, "nodes") == 11030083);
    assert_true(json_u64(s, "captures") == 940350);
    assert_true(json_u64(s, "enpassants") == 33325);
    assert_true(json_u64(s, "castles") == 0);
    assert_true(json_u64(s, "promotions") == 7552);
    assert_true(json_u64(s, "total_checks") + json_u64(s, "total_mates") == 452473);
    assert_true(json_u64(s, "single_discovered_checks") == 26067);
    assert_true(json_u64(s, "direct_discovered_checks") + json_u64(s, "double_discovered_checks") == 0);
    assert_true(json_u64(s, "total_mates") == 2733);
    assert_true(json_u64(o, "split_depth") == 2);
    json_decref(o);
    th_run_free(&r);
}

/* --workers N: the embedded coordinator starts local ply-worker processes. */
static void test_local_workers(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply perft --workers 2 --threads 1 --hash 16 -d 5 --json");
    th_expect_status(&r, 0, "--workers 2");
    json_t *o = th_json(&r);
    assert_true(json_u64(o, "nodes") == 4865609);
    assert_true(json_u64(o, "tt_probes") > 0);
    json_decref(o);
    th_run_free(&r);
    /* Regression: --hash 0 was not passed on, so local workers ran with
     * their default table (and distributed runs looked faster than they are). */
    r = th_run(RUN_S, "ply perft --workers 2 --threads 1 --hash 0 -d 5 --json");
    th_expect_status(&r, 0, "--workers 2 --hash 0");
    o = th_json(&r);
    assert_true(json_u64(o, "nodes") == 4865609);
    assert_true(json_u64(o, "tt_probes") == 0);
    json_decref(o);
    th_run_free(&r);
}

/* A coordinator with no worker: the run fails after worker_wait_ms, clearly. */
static void test_no_worker(void **state)
{
    (void)state;
    int port = th_free_port();
    pid_t coord = spawn("exec ply-coordinator --bind tcp://127.0.0.1:%d --worker-wait-ms 1500 -q", port);
    th_run_t r =
        th_run(RUN_S, "ply perft --coordinator tcp://127.0.0.1:%d -d 4 --timeout 20", port);
    stop(coord);
    th_expect_status(&r, 1, "no worker");
    assert_non_null(strstr(r.err, "worker"));
    assert_null(strstr(r.out, "Nodes searched"));
    th_run_free(&r);
}

/* ply bench --cluster against a coordinator with two workers: the run's
 * count is the published perft(5) (4,865,609), every worker is listed, and
 * the workers' node counts add up to the total the cluster speed is made of. */
static void test_bench_cluster(void **state)
{
    (void)state;
    int port = th_free_port();
    pid_t coord = spawn("exec ply-coordinator --bind tcp://127.0.0.1:%d -q", port);
    pid_t w1 = spawn("exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q", port);
    pid_t w2 = spawn("exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q", port);
    usleep(500000); /* both workers say HELLO before the first status */
    th_run_t r = th_run(
        RUN_S, "ply bench --cluster --coordinator tcp://127.0.0.1:%d --depth 5 --json", port);
    stop(w1);
    stop(w2);
    stop(coord);
    th_expect_status(&r, 0, "ply bench --cluster");
    json_t *o = th_json(&r);
    assert_true(json_u64(o, "perft") == 4865609);
    json_t *workers = json_object_get(o, "workers");
    assert_int_equal(json_array_size(workers), 2);
    uint64_t sum = 0;
    size_t i;
    json_t *w;
    json_array_foreach(workers, i, w) sum += json_u64(w, "nodes");
    assert_true(sum == json_u64(o, "worker_nodes"));
    assert_true(sum == 4865609); /* split at 1: the jobs are the 20 children, counted once */
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply bench --cluster");
    th_expect_status(&r, 2, "--cluster without a coordinator");
    th_run_free(&r);
}

/* ---- suites ------------------------------------------------------------------------ */

static void run_suite(const char *args)
{
    th_run_t r = th_run(RUN_S, "ply perft %s --json", args);
    th_expect_status(&r, 0, args);
    json_t *o = th_json(&r);
    assert_true(json_u64(o, "failures") == 0);
    print_message("%s: %llu checks\n", args, (unsigned long long)json_u64(o, "checks"));
    assert_true(json_u64(o, "checks") > 100);
    json_decref(o);
    th_run_free(&r);
}

static void test_perftsuite(void **state)
{
    (void)state;
    run_suite("--epd " PLY_TEST_DATA "/perftsuite.epd --max-depth 4");
}

static void test_fischer(void **state)
{
    (void)state;
    run_suite("--epd " PLY_TEST_DATA "/ethereal-fischer.epd --max-depth 3");
}

static void test_gct(void **state)
{
    (void)state;
    run_suite("--epd " PLY_TEST_DATA "/gct-client-tests-perft.epd --max-nodes 10000000");
}

/* A suite with a wrong expected count fails with status 1 and names the line. */
static void test_suite_mismatch(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-test-epd-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8903\n";
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    th_run_t r = th_run(RUN_S, "ply perft --epd %s", path);
    unlink(path);
    th_expect_status(&r, 1, "mismatching suite");
    assert_non_null(strstr(r.out, "FAIL line 1 D3"));
    assert_non_null(strstr(r.out, "expected 8903, counted 8902"));
    th_run_free(&r);
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "quick";
    const struct CMUnitTest quick[] = {
        cmocka_unit_test(test_help),          cmocka_unit_test(test_startpos),
        cmocka_unit_test(test_kiwipete),      cmocka_unit_test(test_divide_vs_stockfish),
        cmocka_unit_test(test_stats_start),   cmocka_unit_test(test_stats_kiwipete),
        cmocka_unit_test(test_bad_input),     cmocka_unit_test(test_unreachable_coordinator),
        cmocka_unit_test(test_suite_mismatch),
    };
    const struct CMUnitTest cluster[] = {
        cmocka_unit_test(test_multi_process),
        cmocka_unit_test(test_local_workers),
        cmocka_unit_test(test_no_worker),
        cmocka_unit_test(test_bench_cluster),
    };
    const struct CMUnitTest suites[] = {
        cmocka_unit_test(test_perftsuite),
        cmocka_unit_test(test_fischer),
        cmocka_unit_test(test_gct),
    };
    if (!strcmp(group, "cluster")) return cmocka_run_group_tests_name("cluster", cluster, NULL, NULL);
    if (!strcmp(group, "suites")) return cmocka_run_group_tests_name("suites", suites, NULL, NULL);
    return cmocka_run_group_tests_name("quick", quick, NULL, NULL);
}
