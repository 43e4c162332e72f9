/*
 * End-to-end tests of `ply perft-diff` (cli/perft_diff_cmd.c), run as a user
 * runs it. Against Stockfish 15.1 (skipped when /usr/games/stockfish is
 * missing) the walk must report no difference, and both totals must equal
 * the published counts: chessprogramming wiki "Perft Results" (start
 * position, Kiwipete, position 3) and Ethereal's fischer.epd line 1
 * (tests/data/PROVENANCE.md). Against tests/support/fake_uci.c with one
 * move dropped at one position, it must name that position (FEN from
 * Stockfish's `d` command) and that move. Against engines that do not start,
 * hang, die or print nonsense it must fail in bounded time with one line.
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

#include "test_skip.h"
#include <jansson.h>

#include "harness.h"

#define STOCKFISH "/usr/games/stockfish"
#define FAKE      PLY_BIN_DIR "/ply_fake_uci"
#define KIWIPETE  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define POSITION3 "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
#define FISCHER1  "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"

static uint64_t ju64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) fail_msg("JSON has no integer '%s'", key);
    return (uint64_t)json_integer_value(v);
}

/* ---- usage --------------------------------------------------------------------------- */

static void test_usage(void **state)
{
    (void)state;
    th_run_t r = th_run(30, "ply perft-diff --help");
    th_expect_status(&r, 0, "--help");
    assert_non_null(strstr(r.out, "usage: ply perft-diff"));
    th_run_free(&r);
    const char *bad[] = {
        "ply perft-diff -d 3",                                  /* no engine */
        "ply perft-diff --engine " STOCKFISH,                   /* no depth */
        "ply perft-diff --engine " STOCKFISH " -d 0",           /* depth out of range */
        "ply perft-diff --engine " STOCKFISH " -d 2 --fen 'x'", /* bad position */
        "ply perft-diff --engine " STOCKFISH " -d 2 --frob",    /* unknown option */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = th_run(30, "%s", bad[i]);
        th_expect_status(&r, 2, bad[i]);
        assert_int_equal(th_count(r.err, "\n"), 1);
        th_run_free(&r);
    }
    /* the range it states is the one it takes (PLY_MAX_DEPTH; it said 1 to 20) */
    r = th_run(30, "ply perft-diff --engine " STOCKFISH " -d 17");
    th_expect_status(&r, 2, "-d 17");
    assert_non_null(strstr(r.err, "must be a depth from 1 to 16"));
    th_run_free(&r);
}

/* ---- against Stockfish --------------------------------------------------------------- */

static void same_as_stockfish(const char *args, uint64_t published)
{
    th_run_t r = th_run(120, "ply perft-diff --engine " STOCKFISH " --hash 16 --json %s", args);
    th_expect_status(&r, 0, args);
    json_t *o = th_json(&r);
    assert_string_equal(th_jstr(o, "result"), "same");
    assert_true(ju64(o, "ply_nodes") == published);
    assert_true(ju64(o, "engine_nodes") == published);
    json_decref(o);
    th_run_free(&r);
}

static void test_stockfish_agrees(void **state)
{
    (void)state;
    if (access(STOCKFISH, X_OK) != 0)
        PLY_SKIP("no Stockfish at " STOCKFISH " (Debian package stockfish)");
    same_as_stockfish("-d 5", 4865609);
    same_as_stockfish("--fen '" KIWIPETE "' -d 4", 4085603);
    same_as_stockfish("--fen '" POSITION3 "' -d 5", 674624);
    same_as_stockfish("--fen '" FISCHER1 "' -d 4", 326672); /* Chess960 by its Shredder-FEN */
    same_as_stockfish("--chess960 --fen '" FISCHER1 "' -d 3", 12189);
    th_run_t r = th_run(60, "ply perft-diff --engine " STOCKFISH " -d 3");
    th_expect_status(&r, 0, "text output");
    assert_non_null(strstr(r.out, "no difference"));
    th_run_free(&r);
}

/* ---- against a buggy engine ------------------------------------------------------------ */

static void expect_found(const char *args, const char *fen_prefix, const char *move,
                         size_t path_len)
{
    th_run_t r = th_run(120, "ply perft-diff --hash 16 --json %s", args);
    th_expect_status(&r, 1, args);
    json_t *o = th_json(&r);
    assert_string_equal(th_jstr(o, "result"), "different");
    if (strncmp(th_jstr(o, "position"), fen_prefix, strlen(fen_prefix)) != 0)
        fail_msg("found %s, expected %s", th_jstr(o, "position"), fen_prefix);
    json_t *missing = json_object_get(o, "missing"), *extra = json_object_get(o, "extra");
    assert_int_equal(json_array_size(missing), 1);
    assert_string_equal(json_string_value(json_array_get(missing, 0)), move);
    assert_int_equal(json_array_size(extra), 0);
    assert_int_equal(json_array_size(json_object_get(o, "path")), path_len);
    assert_true(json_is_true(json_object_get(o, "arbiter_agrees")));
    assert_true(ju64(o, "ply_nodes") > ju64(o, "engine_nodes"));
    json_decref(o);
    th_run_free(&r);
}

static void test_finds_dropped_move(void **state)
{
    (void)state;
    /* after 1.e4 e5 2.Nf3 the fake never plays Nc6; found 3 plies down a depth-5 tree */
    const char *after_nf3 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -";
    expect_found("--engine '" FAKE " --drop \""
                 "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
                 " b KQkq - 1 2|b8c6\"' -d 5",
                 after_nf3, "b8c6", 3);
    /* Kiwipete after 1.a3 Bb7: the fake cannot castle long */
    const char *kiwi2 = "r3k2r/pbppqpb1/1n2pnp1/3PN3/1p2P3/P1N2Q1p/1PPBBPPP/R3K2R w KQkq -";
    expect_found("--engine '" FAKE " --drop \"r3k2r/pbppqpb1/1n2pnp1/3PN3/1p2P3/P1N2Q1p/1PPBBPPP/"
                 "R3K2R w KQkq - 1 2|e1c1\"' --fen '" KIWIPETE "' -d 4",
                 kiwi2, "e1c1", 2);
    /* the text form names the same things */
    th_run_t r =
        th_run(120, "ply perft-diff --hash 16 -d 4 --engine '" FAKE
                    " --drop \"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 "
                    "2|b8c6\"'");
    th_expect_status(&r, 1, "text");
    assert_non_null(strstr(r.out, "position: rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b"));
    assert_non_null(strstr(r.out, "missing (ply has, engine lacks): b8c6"));
    assert_non_null(strstr(r.out, "extra (engine has, ply lacks):   none"));
    assert_non_null(strstr(r.out, "path:"));
    th_run_free(&r);
}

static void test_inconsistent_engine(void **state)
{
    (void)state;
    th_run_t r = th_run(60, "ply perft-diff --json -d 3 --engine '" FAKE " --mode lie-root'");
    th_expect_status(&r, 1, "lie-root");
    json_t *o = th_json(&r);
    assert_string_equal(th_jstr(o, "result"), "inconsistent");
    assert_int_equal(json_array_size(json_object_get(o, "path")), 1);
    json_decref(o);
    th_run_free(&r);
}

/* ---- engines that fail ------------------------------------------------------------------- */

/* @what: text the one line of stderr must contain; "a|b": either. */
static void expect_failure(const char *engine, const char *what, int max_s)
{
    uint64_t t0 = th_now_ms();
    th_run_t r = th_run(max_s + 20, "ply perft-diff -d 3 --timeout 2 --engine %s", engine);
    uint64_t took = th_now_ms() - t0;
    th_expect_status(&r, 1, engine);
    char first[128];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(what, "|"), what);
    const char *second = strchr(what, '|');
    int says = strstr(r.err, first) || (second && strstr(r.err, second + 1));
    if (th_count(r.err, "\n") != 1 || !says)
        fail_msg("%s: want one line with \"%s\" on stderr, got: %s", engine, what, r.err);
    if (took > (uint64_t)max_s * 1000u)
        fail_msg("%s: took %llu ms", engine, (unsigned long long)took);
    th_run_free(&r);
}

static void test_broken_engines(void **state)
{
    (void)state;
    char tag[64], eng[256];
    snprintf(tag, sizeof tag, "perftdiff-hang-%d", (int)getpid());
    expect_failure("/nonexistent/engine", "cannot start engine", 10);
    expect_failure("'" FAKE " --mode no-uciok'", "silent for 2 s before answering 'uci'", 15);
    snprintf(eng, sizeof eng, "'" FAKE " --mode hang --tag %s'", tag);
    expect_failure(eng, "silent for 2 s while answering 'go perft 3'", 15);
    expect_failure("'" FAKE " --mode die'", "exited with status 3", 10);
    expect_failure("'" FAKE " --mode die'", "simulated crash", 10); /* its stderr is quoted */
    expect_failure("'" FAKE " --mode garbage'", "malformed total", 10);
    expect_failure("'" FAKE " --mode binary'", "binary data", 10);
    /* a flood of chatter: too many lines, or too many bytes at once, by speed */
    expect_failure("yes", "lines without 'uciok'|flooded its output", 10);
    /* a line too long to keep is read to its end and dropped: one that never ends is
     * bounded by the silence limit, and a long one before an exit reports the exit */
    expect_failure("'sh -c \"yes | tr -d \\\\\\\\n\"'", "a line with no end for 2 s", 10);
    expect_failure("'sh -c \"head -c 3000000 /dev/zero | tr \\\\\\\\0 x\"'", "exited with status 0",
                   10);
    /* the hung engine was killed with its process group */
    usleep(200000);
    assert_int_equal(th_procs_with(tag, "test_perft_diff"), 0);
    /* --json still prints an object on failure */
    th_run_t r = th_run(30, "ply perft-diff -d 2 --json --engine /nonexistent/engine");
    th_expect_status(&r, 1, "--json failure");
    json_t *o = th_json(&r);
    assert_string_equal(th_jstr(o, "result"), "error");
    assert_non_null(strstr(th_jstr(o, "error"), "cannot start engine"));
    json_decref(o);
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_stockfish_agrees),
        cmocka_unit_test(test_finds_dropped_move),
        cmocka_unit_test(test_inconsistent_engine),
        cmocka_unit_test(test_broken_engines),
    };
    return ply_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
