/*
 * The ply command prints counts above 2^64 exactly, in text and in JSON
 * (issue 9, item 3), and refuses depths whose counts it could not represent.
 *
 * A real ply-coordinator (with a state file) and the fake worker process
 * (tests/support/fake_worker.c, --inflate: every count it reports gets
 * I = 2^64 - 2^32 added, perft(1) right) count the start position to depth 3
 * split at ply 2: 400 jobs, one path each (perft(2) = 400). True counts
 * (tests/data/perft_p0_results.json; chessprogramming wiki, Perft Results):
 * perft(3) = 8,902, captures 34, total_checks 12; e2e4's subtree 600 under 20
 * paths (Stockfish 15.1 `go perft 3`). So, with Python's integers:
 *   nodes    8902 + 400 x I = 7378697627765833736902
 *   captures   34 + 400 x I = 7378697627765833728034
 *   e2e4      600 +  20 x I =  368934881388291687000
 * The same answer is read back after the coordinator restarts on its file.
 *
 * Usage: test_exact_cli FAKE_WORKER (the ply_fake_worker executable).
 */
#define _GNU_SOURCE
#include <setjmp.h>
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

#define RUN_S 120
#define NODES "7378697627765833736902"
#define CAPS  "7378697627765833728034"
#define E2E4  "368934881388291687000"

static const char *fake_worker;

/* The JSON is valid (numbers too big for a 64-bit integer read as reals) and never negative. */
static void expect_json_exact(const th_run_t *r, const char *what)
{
    json_error_t err;
    json_t *o = json_loads(r->out, JSON_DECODE_INT_AS_REAL, &err);
    if (!o) fail_msg("%s: not JSON (%s): %s", what, err.text, r->out);
    json_decref(o);
    if (strstr(r->out, ": -")) fail_msg("%s: a negative number: %s", what, r->out);
}

static void test_print_exact(void **state)
{
    (void)state;
    const char *dir = th_tmpdir("exact-cli");
    char log[512];
    snprintf(log, sizeof log, "%s/coordinator.log", dir);
    int port = th_free_port();
    pid_t coord = th_spawn(
        log, "exec ply-coordinator --bind tcp://127.0.0.1:%d --state %s/state.db", port, dir);
    pid_t w = th_spawn(NULL, "exec '%s' --connect tcp://127.0.0.1:%d --inflate", fake_worker, port);
    th_run_t t = th_run(RUN_S,
                        "ply perft --coordinator tcp://127.0.0.1:%d -d 3 --split-depth 2 --divide "
                        "--stats",
                        port);
    th_expect_status(&t, 0, "perft, text");
    if (!strstr(t.out, "Nodes searched: " NODES "\n")) fail_msg("text total: %s", t.out);
    if (!strstr(t.out, "e2e4: " E2E4 "\n")) fail_msg("text divide: %s", t.out);
    if (!strstr(t.out, "captures                   " CAPS "\n")) fail_msg("text stats: %s", t.out);
    if (!strstr(t.out, "total_checks               12\n")) fail_msg("text checks: %s", t.out);
    th_run_free(&t);

    th_run_t j = th_run(RUN_S,
                        "ply perft --coordinator tcp://127.0.0.1:%d -d 3 --split-depth 2 --stats "
                        "--json",
                        port);
    th_expect_status(&j, 0, "perft, JSON");
    expect_json_exact(&j, "perft --json");
    if (!strstr(j.out, "\"nodes\": " NODES ",")) fail_msg("JSON total: %s", j.out);
    if (!strstr(j.out, "\"e2e4\": " E2E4)) fail_msg("JSON divide: %s", j.out);
    if (!strstr(j.out, "\"captures\": " CAPS ",")) fail_msg("JSON stats: %s", j.out);
    const char *id = strstr(j.out, "\"run\": ");
    assert_non_null(id);
    unsigned long long run = strtoull(id + 7, NULL, 10);
    assert_true(run > 0);
    th_run_free(&j);

    /* the coordinator restarted on its file: the stored answer and summary, exact */
    th_stop(coord);
    coord = th_spawn(log, "exec ply-coordinator --bind tcp://127.0.0.1:%d --state %s/state.db",
                     port, dir);
    th_run_t r =
        th_run(RUN_S, "ply result --coordinator tcp://127.0.0.1:%d %llu --json", port, run);
    th_expect_status(&r, 0, "result after a restart");
    expect_json_exact(&r, "result --json");
    if (!strstr(r.out, "\"nodes\": " NODES ",")) fail_msg("stored answer: %s", r.out);
    th_run_free(&r);
    th_run_t s = th_run(RUN_S, "ply status --coordinator tcp://127.0.0.1:%d", port);
    th_expect_status(&s, 0, "status after a restart");
    if (!strstr(s.out, NODES)) fail_msg("stored summary: %s", s.out);
    th_run_free(&s);
    th_run_t sj = th_run(RUN_S, "ply status --coordinator tcp://127.0.0.1:%d --json", port);
    th_expect_status(&sj, 0, "status --json");
    expect_json_exact(&sj, "status --json");
    if (!strstr(sj.out, "\"nodes\": " NODES ",")) fail_msg("stored summary, JSON: %s", sj.out);
    th_run_free(&sj);
    th_stop(w);
    th_stop(coord);
}

/*
 * The deepest depth is the deepest whose counts always fit in 128 bits (218
 * legal moves at most, 218^16 < 2^128): 16. Deeper is a usage error naming
 * the limit; the start position's perft(15) (2,015,099,950,053,364,471,960,
 * OEIS A048987) is within it.
 */
static void test_depth_limit(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply perft -d 17");
    th_expect_status(&r, 2, "perft -d 17");
    if (!strstr(r.err, "1..16")) fail_msg("no limit named: %s", r.err);
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft -d 20");
    th_expect_status(&r, 2, "perft -d 20");
    th_run_free(&r);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_exact_cli FAKE_WORKER\n");
        return 2;
    }
    fake_worker = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print_exact),
        cmocka_unit_test(test_depth_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
