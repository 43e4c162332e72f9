/*
 * The progress of the long commands when standard error is not a terminal (a log): plain
 * lines, one every PLY_PROGRESS_MS (shortened here to 100 ms), each saying done/total, the
 * rate and the ETA; and none at all with --quiet. The runs are long enough for the
 * coordinator's once-a-second RunProgress: perft(7) of the start position on one thread
 * without a table (3,195,901,860 nodes, about 3 s here), and ply analyse with
 * --movetime 2500 on one thread (the whole analysis's wall time, whatever the build's speed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define RUN_S 600

/* Every line of @err starting with @prefix has done/total @unit (done @unit when the total
 * is not known), a rate or not, and an ETA; returns how many there are. */
static int progress_lines(const char *err, const char *prefix, const char *unit)
{
    int n = 0;
    for (const char *l = err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
        if (strncmp(l, prefix, strlen(prefix)) != 0) continue;
        const char *end = strchr(l, '\n');
        char line[512];
        snprintf(line, sizeof line, "%.*s", end ? (int)(end - l) : (int)strlen(l), l);
        unsigned done, total = 0;
        char u[32];
        /* "D/T unit", or "D unit" when the total is not known (a deepening analysis's
         * depths without -d) */
        if (sscanf(line + strlen(prefix), "%u/%u %31s", &done, &total, u) != 3 &&
            sscanf(line + strlen(prefix), "%u %31[a-z]", &done, u) != 2)
            continue;
        if (strncmp(u, unit, strlen(u)) != 0 || strstr(line, "ETA ") == NULL) {
            fail_msg("not a progress line: %s", line);
        }
        if (!total) {
            n++;
            continue;
        }
        assert_true(done <= total);
        /* the ETA is "--" only before the first job ends, never 0 s while work is left */
        if (done == 0) assert_non_null(strstr(line, "ETA --"));
        if (done > 0 && done < total) assert_null(strstr(line, "ETA 0 s"));
        n++;
    }
    return n;
}

static void test_perft_log_lines(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "PLY_PROGRESS_MS=100 ply perft -d 7 --threads 1 --hash 0");
    th_expect_status(&r, 0, "ply perft -d 7");
    assert_non_null(strstr(r.out, "Nodes searched: 3195901860\n"));
    int n = progress_lines(r.err, "ply perft: ", "jobs");
    if (n < 1) fail_msg("no progress line on stderr:\n%s", r.err);
    assert_null(strchr(r.err, '\r')); /* no terminal control in a log */
    assert_null(strchr(r.err, '\033'));
    th_run_free(&r);

    r = th_run(RUN_S, "PLY_PROGRESS_MS=100 ply perft -d 7 --threads 1 --hash 0 --quiet");
    th_expect_status(&r, 0, "ply perft -d 7 --quiet");
    assert_non_null(strstr(r.out, "Nodes searched: 3195901860\n"));
    assert_string_equal(r.err, "");
    th_run_free(&r);
}

static void test_analyse_log_lines(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "PLY_PROGRESS_MS=100 ply analyse startpos --movetime 2500 "
                               "--threads 1 --hash 16");
    th_expect_status(&r, 0, "ply analyse --movetime 2500");
    assert_non_null(strstr(r.out, " jobs, ")); /* a deepening analysis: 20 or more */
    int n = progress_lines(r.err, "ply analyse: ", "depths");
    if (n < 1) fail_msg("no progress line on stderr:\n%s", r.err);
    th_run_free(&r);

    r = th_run(RUN_S, "PLY_PROGRESS_MS=100 ply analyse startpos --movetime 2500 --threads 1 "
                      "--hash 16 -q");
    th_expect_status(&r, 0, "ply analyse -q");
    assert_string_equal(r.err, "");
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perft_log_lines),
        cmocka_unit_test(test_analyse_log_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
