/*
 * client/progress.c: the ETA arithmetic and the text of the progress line, on figures of real
 * runs. The job counts and times are those `ply perft -d 7 --threads 1 --hash 0` showed on
 * the development machine (20 jobs at split depth 1, 4 done after 1 s); the EPD weights
 * are published perft counts (chessprogramming wiki, Perft Results: the start position's
 * perft(4) = 197281, Kiwipete's perft(4) = 4085603).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "progress.h"

static void test_eta_jobs(void **state)
{
    (void)state;
    /* 4 of 20 jobs in 1000 ms: 16 left at 250 ms each */
    assert_int_equal(ply_progress_eta_ms(1000, 4, 20), 4000);
    /* 11 of 20 in 2000 ms: 2000 * 9 / 11 = 1636.36... */
    assert_int_equal(ply_progress_eta_ms(2000, 11, 20), 1636);
    /* all done: nothing left */
    assert_int_equal(ply_progress_eta_ms(3003, 20, 20), 0);
}

static void test_eta_unknown(void **state)
{
    (void)state;
    /* before the first job ends nothing is known: never 0 */
    assert_int_equal(ply_progress_eta_ms(5000, 0, 20), -1);
    assert_int_equal(ply_progress_eta_ms(0, 0, 0), -1);
    assert_int_equal(ply_progress_eta_ms(1000, 21, 20), -1); /* more done than there is */
    assert_int_equal(ply_progress_eta_ms(1000, -1, 20), -1);
    assert_int_equal(ply_progress_eta_ms(1000, NAN, 20), -1);
    assert_int_equal(ply_progress_eta_ms(1000, 1, INFINITY), -1);
}

static void test_eta_weighted(void **state)
{
    (void)state;
    /* an EPD suite of two checks: startpos D4 (197281 nodes) done in 500 ms, Kiwipete D4
     * (4085603) left: by the counts, 500 * 4085603 / 197281 = 10354.7 ms, where counting
     * checks would say 500 ms */
    assert_int_equal(ply_progress_eta_ms(500, 197281, 197281.0 + 4085603.0), 10355);
    assert_int_equal(ply_progress_eta_ms(500, 1, 2), 500);
}

static void test_duration(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(ply_progress_duration(-1, b, sizeof b), "--");
    assert_string_equal(ply_progress_duration(0, b, sizeof b), "0 s");
    assert_string_equal(ply_progress_duration(999, b, sizeof b), "0 s");
    assert_string_equal(ply_progress_duration(59999, b, sizeof b), "59 s");
    assert_string_equal(ply_progress_duration(65000, b, sizeof b), "1 min 05 s");
    assert_string_equal(ply_progress_duration(3599999, b, sizeof b), "59 min 59 s");
    assert_string_equal(ply_progress_duration(3600000, b, sizeof b), "1 h 00 min");
    /* perft(10) of the start position at 1 Gnodes/s: 69352859712417 / 1e9 s = 19 h 15 min */
    assert_string_equal(ply_progress_duration(69352859, b, sizeof b), "19 h 15 min");
    assert_string_equal(ply_progress_duration((2 * 86400 + 3 * 3600 + 59) * 1000LL, b, sizeof b),
                        "2 d 03 h");
}

static void test_rate(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(ply_progress_rate(0, b, sizeof b), "0 nodes/s");
    assert_string_equal(ply_progress_rate(812, b, sizeof b), "812 nodes/s");
    assert_string_equal(ply_progress_rate(808000, b, sizeof b), "808 knodes/s");
    assert_string_equal(ply_progress_rate(45321000, b, sizeof b), "45.3 Mnodes/s");
    /* README: 119060324 nodes in 0.318 s... the rate printed there, 139.7 Mnodes/s */
    assert_string_equal(ply_progress_rate(139.7e6, b, sizeof b), "140 Mnodes/s");
    assert_string_equal(ply_progress_rate(1.0642e9, b, sizeof b), "1.06 Gnodes/s");
    assert_string_equal(ply_progress_rate(999.6e3, b, sizeof b), "1.00 Mnodes/s");
    assert_string_equal(ply_progress_rate(-5, b, sizeof b), "0 nodes/s");
}

static void test_format(void **state)
{
    (void)state;
    char b[256];
    ply_progress_view_t v = {.done = 4,
                             .total = 20,
                             .unit = "jobs",
                             .nps = 884e6,
                             .elapsed_ms = 1000,
                             .eta_ms = ply_progress_eta_ms(1000, 4, 20),
                             .extra = "1 worker"};
    ply_progress_format(&v, 0, b, sizeof b);
    assert_string_equal(b, "4/20 jobs (20%)  884 Mnodes/s  1 worker  1 s  ETA 4 s");
    ply_progress_format(&v, 20, b, sizeof b);
    assert_string_equal(b, "[####................] 4/20 jobs (20%)  884 Mnodes/s  1 worker  1 s  "
                           "ETA 4 s");
    /* before the first job ends: "ETA --"; the rate not known yet: not shown */
    v.done = 0, v.nps = -1, v.eta_ms = ply_progress_eta_ms(1000, 0, 20), v.extra = NULL;
    ply_progress_format(&v, 10, b, sizeof b);
    assert_string_equal(b, "[..........] 0/20 jobs (0%)  1 s  ETA --");
    /* an ETA under a second reads 1 s, not 0 (it is not over) */
    v.done = 16, v.eta_ms = ply_progress_eta_ms(3000, 16, 20), v.elapsed_ms = 3000;
    ply_progress_format(&v, 0, b, sizeof b);
    assert_string_equal(b, "16/20 jobs (80%)  3 s  ETA 1 s");
    /* a total not known (analyse-pgn on standard input) */
    v.total = 0, v.done = 3, v.unit = "games", v.eta_ms = -1;
    ply_progress_format(&v, 20, b, sizeof b);
    assert_string_equal(b, "3 games  3 s  ETA --");
    /* cut to the buffer, never past it */
    v.total = 126, v.done = 125, v.unit = "positions";
    size_t n = ply_progress_format(&v, 0, b, 12);
    assert_int_equal(n, 11);
    assert_string_equal(b, "125/126 pos");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eta_jobs),     cmocka_unit_test(test_eta_unknown),
        cmocka_unit_test(test_eta_weighted), cmocka_unit_test(test_duration),
        cmocka_unit_test(test_rate),         cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
