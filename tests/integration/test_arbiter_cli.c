/*
 * End-to-end tests of `ply arbiter` and `ply perft --pgn`, run as a user runs
 * them (the built ply program, its output and exit status).
 *
 * The main test is the mixed file of issue 3 (tests/data/pgn/arbiter-mixed.pgn,
 * written for this test, see PROVENANCE.md): good games, an illegal move, a
 * wrong Result tag, threefold claims with and without a legal en-passant
 * capture, and a mate on the hundredth half-move without capture or pawn
 * move. Expected verdicts, game by game, with their sources:
 *   1 Morphy's Opera game, 17. Rd8# (chess.js 1.4.0: checkmate after 33 plies): consistent;
 *   2 3. Nb5 moves the knight pinned by Bb4 (chess.js refuses Nb5; art. 3.9): illegal at ply 5;
 *   3 Loyd's ten-move stalemate (chess.js: stalemate after 19 plies, art. 5.2(a)) with
 *     Result 1-0: inconsistent, the result should be 1/2-1/2;
 *   4 the position after 2...d5 allows exd6 e.p., so it differs from its later
 *     repetitions (art. 9.2; chess.js: threefold first after ply 16): claim at ply 16;
 *   5 1...d5 allows no en-passant capture, so it counts (chess.js: after ply 10): claim at 10;
 *   6 1...d5 with the e5 pawn pinned on the e-file: the capture is not a possible move,
 *     so the position counts (art. 9.2 read literally): claim at ply 9 (plies 1, 5, 9);
 *   7 FEN with halfmove clock 80, twenty plies of rook and king moves, 70. Rf8#
 *     (chess.js: checkmate, clock 100): checkmate takes precedence (art. 9.3), 1-0 consistent;
 *   8 the same record with Result 1/2-1/2: inconsistent;
 *   9 the same with 70. Rf7 instead (chess.js: no mate, clock 100): fifty-move claim at ply 20.
 * `ply perft --pgn` counts are Stockfish 15.1's "go perft" on the same
 * positions (UCI_Chess960 for the Chess960 game).
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

#define PGN(name) PLY_TEST_DATA "/pgn/" name

/* Deadline of one command (harness.h, th_run): the test's ctest limit, so
 * that it never cuts a run ctest would let finish. */
#define RUN_S 300

static json_int_t int_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) fail_msg("no integer '%s'", key);
    return json_integer_value(v);
}

static const char *str_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) fail_msg("no string '%s'", key);
    return json_string_value(v);
}

static void expect_plies(json_t *arr, const int *want, size_t n)
{
    assert_int_equal(json_array_size(arr), n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(json_integer_value(json_array_get(arr, i)), want[i]);
}

/* ------------------------------------------------------------------- tests */

/* Notation out (issue 14): `ply arbiter --export` re-writes lax spellings as clean SAN with
 * check marks and keeps comments, NAGs and variations; the export is read back consistent
 * and exports to itself; `--json` gives every ply's SAN, UCI and FEN; `ply san` converts
 * either way and refuses a pawn capture without its file. Expected values: chess.js
 * (Scholar's mate, its FEN), Appendix E (SAN), the UCI protocol (castling e1g1). */
static void test_notation(void **state)
{
    (void)state;
    th_run_t r =
        th_run(RUN_S, "ply arbiter --export %s > notation-out.pgn", PGN("lax-notation.pgn"));
    th_expect_status(&r, 1, "--export with an illegal game");
    assert_non_null(strstr(r.err, "game 2 (line 8) left out: game 2, ply 3 (line 13): 'Ke3'"));
    th_run_free(&r);
    r = th_run(RUN_S, "cat notation-out.pgn");
    assert_non_null(strstr(r.out, "[Event \"lax notation"));
    assert_non_null(strstr(r.out, "[Site \"?\"]\n[Date \"????.??.??\"]"));
    assert_non_null(strstr(r.out, "1. e4 e5 2. Bc4 Nc6 3. Qh5 (3. Nf3 Nf6 4. O-O {castles} (4. "
                                  "Nc3)) 3... Nf6 $4\n4. Qxf7# 1-0"));
    assert_null(strstr(r.out, "Ke3"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter notation-out.pgn");
    th_expect_status(&r, 0, "the export read back");
    th_run_free(&r);
    r = th_run(
        RUN_S,
        "ply arbiter --export notation-out.pgn | cmp - notation-out.pgn && rm notation-out.pgn");
    th_expect_status(&r, 0, "the export of the export is the same");
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --json %s", PGN("lax-notation.pgn"));
    json_t *o = th_json(&r);
    json_t *plies = json_object_get(json_array_get(json_object_get(o, "results"), 0), "plies");
    assert_int_equal(json_array_size(plies), 7);
    json_t *last = json_array_get(plies, 6);
    assert_int_equal(int_at(last, "ply"), 7);
    assert_string_equal(str_at(last, "san"), "Qxf7#");
    assert_string_equal(str_at(last, "uci"), "h5f7");
    assert_string_equal(str_at(last, "fen"),
                        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
    assert_string_equal(str_at(json_array_get(plies, 0), "san"), "e4");
    /* the illegal game's plies stop before its illegal move */
    plies = json_object_get(json_array_get(json_object_get(o, "results"), 1), "plies");
    assert_int_equal(json_array_size(plies), 2);
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply san e2e4 e5 Qh5 Nc6 Bc4 Nf6 h5f7");
    th_expect_status(&r, 0, "ply san");
    assert_non_null(strstr(r.out, "1.      e4       e2e4\n"));
    assert_non_null(strstr(r.out, "4.      Qxf7#    h5f7\n"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply san --to uci --fen 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' O-O-O O-O");
    th_expect_status(&r, 0, "ply san --to uci");
    assert_string_equal(r.out, "e1c1\ne8g8\n");
    th_run_free(&r);
    r = th_run(RUN_S, "ply san --fen '4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2' d6");
    th_expect_status(&r, 1, "a pawn capture without its file");
    assert_non_null(strstr(r.err, "a pawn capture names its file (FIDE Laws, Appendix E.8): exd6"));
    th_run_free(&r);
    r = th_run(RUN_S,
               "ply san --fen 'rnbqkbnr/pppppppp/8/44/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' e4");
    th_expect_status(&r, 2, "a FEN with two digits in a row");
    assert_non_null(strstr(r.err, "rank 5 has two digits in a row ('44')"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --export --json %s", PGN("lax-notation.pgn"));
    th_expect_status(&r, 2, "--export with --json");
    th_run_free(&r);
    /* a byte that is not UTF-8 (Latin-1 0xFF) keeps its JSON key, as U+FFFD: before, the
     * "error" object vanished and the exit status alone said something was wrong */
    r = th_run(RUN_S, "ply san --json \"$(printf 'e\\377')\"");
    th_expect_status(&r, 1, "a SAN move with a byte that is not UTF-8");
    json_error_t je;
    json_t *san = json_loads(r.out, 0, &je);
    if (!san) fail_msg("not JSON: %s: %s", je.text, r.out);
    json_t *e = json_object_get(san, "error");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "text")), "e\xEF\xBF\xBD");
    assert_non_null(strstr(json_string_value(json_object_get(e, "why")), "unexpected byte 0xff"));
    json_decref(san);
    th_run_free(&r);
}

/* Long algebraic and the FIDE spelling out (issue 30, item 7): the issue's examples
 * (Ng1-f3, e5xd6, e8Q without "="), castling with zeros in the FIDE form (RULES.md
 * "Notation", Appendix E), and `ply arbiter --export --notation` on the Scholar's mate of
 * lax-notation.pgn (chess.js: 4. Qxf7#), whose export reads back consistent. */
static void test_notation_forms(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply san --to lan Nf3 d5 e4 d4 c4 dxc3 Bc4");
    th_expect_status(&r, 0, "ply san --to lan");
    assert_string_equal(r.out, "Ng1-f3\nd7-d5\ne2-e4\nd5-d4\nc2-c4\nd4xc3\nBf1-c4\n");
    th_run_free(&r);
    r = th_run(RUN_S, "ply san --to lan --fen '4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2' exd6");
    assert_string_equal(r.out, "e5xd6\n");
    th_run_free(&r);
    r = th_run(RUN_S, "ply san --to fide --fen '4k3/2P5/8/8/8/8/8/R3K2R w KQ - 0 1' "
                      "c8=Q+ Ke7 O-O-O Kf6 e4");
    th_expect_status(&r, 1, "ply san --to fide, ending in a move that is not legal");
    assert_string_equal(r.out, "c8Q+\nKe7\n0-0-0\nKf6\n");
    th_run_free(&r);
    r = th_run(RUN_S,
               "ply san --to fide --fen '1r2k3/2P5/8/8/8/8/8/4K2R w K - 0 1' cxb8=N Kf7 O-O");
    assert_string_equal(r.out, "cxb8N\nKf7\n0-0+\n");
    th_run_free(&r);
    r = th_run(RUN_S, "ply san --to lan --json e4");
    json_t *o = th_json(&r);
    json_t *m = json_array_get(json_object_get(o, "moves"), 0);
    assert_string_equal(str_at(m, "lan"), "e2-e4");
    assert_string_equal(str_at(m, "san"), "e4");
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --export --notation lan %s > lan-out.pgn",
               PGN("lax-notation.pgn"));
    th_expect_status(&r, 1, "--export --notation lan with an illegal game");
    th_run_free(&r);
    r = th_run(RUN_S, "cat lan-out.pgn");
    assert_non_null(strstr(r.out, "1. e2-e4 e7-e5 2. Bf1-c4 Nb8-c6 3. Qd1-h5 (3. Ng1-f3 Ng8-f6 "
                                  "4. O-O {castles} (\n4. Nb1-c3)) 3... Ng8-f6 $4 4. Qh5xf7# 1-0"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter lan-out.pgn && ply arbiter --export --notation fide "
                      "lan-out.pgn > fide-out.pgn && ply arbiter fide-out.pgn && "
                      "grep -c 0-0 fide-out.pgn && rm lan-out.pgn fide-out.pgn");
    th_expect_status(&r, 0, "the long and FIDE forms read back consistent");
    th_run_free(&r);
    const char *bad[] = {"ply arbiter --notation lan x.pgn",
                         "ply arbiter --export --notation uci x.pgn", "ply san --to long e4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = th_run(RUN_S, "%s", bad[i]);
        th_expect_status(&r, 2, bad[i]);
        th_run_free(&r);
    }
}

static void test_help_and_usage(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply arbiter --help");
    th_expect_status(&r, 0, "--help");
    assert_non_null(strstr(r.out, "usage: ply arbiter FILE.pgn"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply --help");
    assert_non_null(strstr(r.out, "arbiter"));
    th_run_free(&r);
    const char *bad[] = {"ply arbiter",
                         "ply arbiter --laws fide1999 x.pgn",
                         "ply arbiter --flag purple x.pgn",
                         "ply arbiter --frobnicate x.pgn",
                         "ply arbiter a.pgn b.pgn",
                         "ply arbiter --fen startpos x.pgn",
                         "ply arbiter --fen startpos --flag white",
                         "ply arbiter --laws",
                         "ply arbiter /no/such/file.pgn"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = th_run(RUN_S, "%s", bad[i]);
        th_expect_status(&r, 2, bad[i]);
        assert_non_null(strstr(r.err, "ply arbiter: "));
        th_run_free(&r);
    }
}

static void test_mixed_file(void **state)
{
    (void)state;
    for (int laws = 0; laws < 2; laws++) {
        th_run_t r = th_run(RUN_S, "ply arbiter --json --laws %s '%s'",
                            laws ? "fide2023" : "fide2000", PGN("arbiter-mixed.pgn"));
        th_expect_status(&r, 1, "mixed file");
        json_t *o = th_json(&r);
        assert_int_equal(int_at(o, "games"), 9);
        assert_int_equal(int_at(o, "consistent"), 6);
        assert_int_equal(int_at(o, "inconsistent"), 3);
        assert_int_equal(int_at(o, "unreadable"), 0);
        json_t *res = json_object_get(o, "results");
        assert_int_equal(json_array_size(res), 9);
        const int consistent[9] = {1, 0, 0, 1, 1, 1, 1, 0, 1};
        for (int i = 0; i < 9; i++) {
            json_t *g = json_array_get(res, (size_t)i);
            assert_int_equal(int_at(g, "game"), i + 1);
            if (json_is_true(json_object_get(g, "consistent")) != consistent[i])
                fail_msg("game %d: consistent %d, expected %d", i + 1, !consistent[i],
                         consistent[i]);
        }
        /* 1: checkmate at ply 33, White wins. */
        json_t *end = json_object_get(json_array_get(res, 0), "end");
        assert_string_equal(str_at(end, "kind"), "checkmate");
        assert_int_equal(int_at(end, "ply"), 33);
        assert_string_equal(str_at(end, "winner"), "white");
        /* 2: the first illegal move, with ply, text, line and why. */
        json_t *ill = json_object_get(json_array_get(res, 1), "illegal");
        assert_int_equal(int_at(ill, "ply"), 5);
        assert_string_equal(str_at(ill, "move"), "Nb5");
        assert_string_equal(str_at(ill, "number"), "3.");
        assert_int_equal(int_at(ill, "line"), 21);
        assert_string_equal(str_at(ill, "why"), "illegal: king would be in check");
        /* 3: stalemate at ply 19: the result should be a draw. */
        json_t *g3 = json_array_get(res, 2);
        assert_string_equal(str_at(json_object_get(g3, "end"), "kind"), "stalemate");
        assert_int_equal(int_at(json_object_get(g3, "end"), "ply"), 19);
        assert_string_equal(str_at(g3, "expected_result"), "1/2-1/2");
        assert_string_equal(str_at(g3, "result"), "1-0");
        /* 4, 5, 6: threefold claims and the plies involved. */
        const int p4[3] = {8, 12, 16}, p5[3] = {2, 6, 10}, p6[3] = {1, 5, 9};
        const int *pl[3] = {p4, p5, p6};
        const int at[3] = {16, 10, 9};
        for (int k = 0; k < 3; k++) {
            json_t *tf = json_object_get(
                json_object_get(json_array_get(res, 3 + (size_t)k), "claims"), "threefold");
            assert_int_equal(int_at(tf, "ply"), at[k]);
            expect_plies(json_object_get(tf, "plies"), pl[k], 3);
        }
        /* 7: mate on the hundredth half-move; no fifty-move claim. */
        json_t *g7 = json_array_get(res, 6);
        assert_string_equal(str_at(json_object_get(g7, "end"), "kind"), "checkmate");
        assert_int_equal(int_at(json_object_get(g7, "end"), "ply"), 20);
        assert_int_equal(int_at(json_object_get(g7, "final"), "halfmove_clock"), 100);
        assert_true(json_is_null(json_object_get(json_object_get(g7, "claims"), "fifty")));
        /* 8: the same mate recorded as a draw. */
        assert_string_equal(str_at(json_array_get(res, 7), "expected_result"), "1-0");
        /* 9: the fifty-move claim on the hundredth half-move. */
        json_t *g9 = json_array_get(res, 8);
        assert_int_equal(int_at(json_object_get(json_object_get(g9, "claims"), "fifty"), "ply"),
                         20);
        assert_true(json_is_true(json_object_get(json_object_get(g9, "final"), "fifty_claim_now")));
        assert_true(json_is_null(json_object_get(g9, "end")));
        json_decref(o);
        th_run_free(&r);
    }

    /* The same verdicts as text. */
    th_run_t r = th_run(RUN_S, "ply arbiter '%s'", PGN("arbiter-mixed.pgn"));
    th_expect_status(&r, 1, "mixed file, text");
    const char *lines[] = {
        "game 2 (line 13)",
        "note: illegal move at ply 5 (3. Nb5, line 21): illegal: king would be in check",
        "end: stalemate at ply 19 (art. 5.2(a)), 1/2-1/2",
        "note: the result should be 1/2-1/2: stalemate at ply 19 (art. 5.2(a))",
        "claim: threefold repetition at ply 16, the position after plies 8, 12 and 16",
        "claim: threefold repetition at ply 10, the position after plies 2, 6 and 10",
        "claim: threefold repetition at ply 9, the position after plies 1, 5 and 9",
        "end: checkmate at ply 20 (art. 5.1(a)), 1-0",
        "note: the result should be 1-0: checkmate at ply 20 (art. 5.1(a))",
        "claim: fifty-move rule at ply 20",
        "9 games, 6 consistent, 3 inconsistent, 0 unreadable (laws fide2000)"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (!strstr(r.out, lines[i])) fail_msg("missing '%s' in:\n%s", lines[i], r.out);
    th_run_free(&r);
}

static void test_consistent_and_broken_files(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply arbiter '%s'", PGN("opera.pgn"));
    th_expect_status(&r, 0, "opera");
    assert_non_null(strstr(r.out, "1 game, 1 consistent"));
    th_run_free(&r);
    /* Standard input, several good files' games in one stream. */
    r = th_run(RUN_S, "cat '%s' '%s' | '%s/ply' arbiter -", PGN("results.pgn"), PGN("chess960.pgn"),
               PLY_BIN_DIR);
    th_expect_status(&r, 0, "stdin");
    assert_non_null(strstr(r.out, "6 games, 6 consistent"));
    th_run_free(&r);
    /* Broken games: reported with number and line, skipped, exit 1. */
    r = th_run(RUN_S, "ply arbiter --json '%s'", PGN("broken.pgn"));
    th_expect_status(&r, 1, "broken");
    json_t *o = th_json(&r);
    assert_int_equal(int_at(o, "games"), 11);
    assert_int_equal(int_at(o, "consistent"), 6);
    assert_int_equal(int_at(o, "unreadable"), 5);
    json_t *e = json_array_get(json_object_get(o, "errors"), 1);
    assert_int_equal(int_at(e, "game"), 4);
    assert_int_equal(int_at(e, "line"), 20);
    json_decref(o);
    th_run_free(&r);
}

static void test_flag_and_laws(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-arbiter-flag-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    /* K+Q v K (White has the queen), and K+N v K+Q (White has the knight). */
    fputs("[Event \"kq-k\"]\n[Result \"1/2-1/2\"]\n[FEN \"8/8/8/4k3/8/8/8/4KQ2 w - - 0 1\"]\n\n"
          "1. Qf2 Kd5 1/2-1/2\n\n"
          "[Event \"kn-kq\"]\n[Result \"1/2-1/2\"]\n[FEN \"8/8/3q4/4k3/8/8/8/2N1K3 w - - 0 1\"]\n\n"
          "1. Kf2 Qd4+ 1/2-1/2\n",
          f);
    fclose(f);
    /* White's flag falls: the bare king cannot mate (draw, consistent), but the
     * queen can mate the knight's side (White loses: 1/2-1/2 is wrong). */
    th_run_t r = th_run(RUN_S, "ply arbiter --json --flag white %s", path);
    th_expect_status(&r, 1, "flag white");
    json_t *o = th_json(&r);
    json_t *res = json_object_get(o, "results");
    assert_string_equal(str_at(json_array_get(res, 0), "expected_result"), "1/2-1/2");
    assert_true(json_is_true(json_object_get(json_array_get(res, 0), "consistent")));
    assert_string_equal(str_at(json_array_get(res, 1), "expected_result"), "0-1");
    json_decref(o);
    th_run_free(&r);
    /* Black's flag falls: the queen wins game 1; the knight cannot mate the
     * queen's side, so game 2 is a draw (6.10; chess.js finds no K+N v K+Q mate). */
    r = th_run(RUN_S, "ply arbiter --json --flag black %s", path);
    o = th_json(&r);
    res = json_object_get(o, "results");
    assert_string_equal(str_at(json_array_get(res, 0), "expected_result"), "1-0");
    assert_string_equal(str_at(json_array_get(res, 1), "expected_result"), "1/2-1/2");
    assert_string_equal(
        str_at(json_object_get(json_array_get(res, 1), "flag"), "opponent_can_mate"), "no");
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --flag black %s", path);
    assert_non_null(strstr(r.out, "flag: black's flag fell; white can mate: no"));
    th_run_free(&r);
    unlink(path);

    /* Fivefold repetition: an automatic draw under fide2023 only. */
    char path2[] = "/tmp/ply-arbiter-five-XXXXXX";
    fd = mkstemp(path2);
    f = fdopen(fd, "w");
    fputs("[Result \"1-0\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 "
          "7. Nf3 Nf6 8. Ng1 Ng8 9. e4 1-0\n",
          f);
    fclose(f);
    r = th_run(RUN_S, "ply arbiter %s", path2);
    th_expect_status(&r, 0, "fide2000 fivefold");
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --laws fide2023 %s", path2);
    th_expect_status(&r, 1, "fide2023 fivefold");
    assert_non_null(strstr(r.out, "end: fivefold repetition at ply 16 (art. 9.6.1 (fide2023))"));
    assert_non_null(strstr(r.out, "the record goes on for 1 more ply"));
    th_run_free(&r);
    unlink(path2);
}

static void test_fen(void **state)
{
    (void)state;
    th_run_t r = th_run(RUN_S, "ply arbiter --fen startpos");
    th_expect_status(&r, 0, "--fen startpos");
    assert_non_null(strstr(r.out, "to move: white, 20 legal moves"));
    assert_non_null(strstr(r.out, "state: the game goes on"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --json --fen "
                      "'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3'");
    th_expect_status(&r, 0, "--fen mate");
    json_t *o = th_json(&r);
    assert_string_equal(str_at(o, "state"), "checkmate");
    assert_string_equal(str_at(o, "result"), "0-1");
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --fen '8/8/8/4k3/8/8/8/4KB2 w - - 0 1'");
    assert_non_null(strstr(r.out, "state: dead position (art. 5.2(b)), 1/2-1/2: insufficient "
                                  "material: king and bishop against king"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --fen '7k/8/8/8/8/8/8/K5R1 w - - 120 80'");
    assert_non_null(strstr(r.out, "fifty-move rule: 120 plies"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --laws fide2023 --fen '7k/8/8/8/8/8/8/K5R1 w - - 150 80'");
    assert_non_null(strstr(r.out, "state: 75-move rule"));
    th_run_free(&r);
    /* An invalid position: exit 1 with the reason. */
    r = th_run(RUN_S, "ply arbiter --fen '8/8/8/8/8/8/8/8 w - - 0 1'");
    th_expect_status(&r, 1, "--fen invalid");
    assert_non_null(strstr(r.out, "invalid position: field 1 (placement): no white king"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --json --fen "
                      "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1'");
    th_expect_status(&r, 1, "--fen malformed");
    o = th_json(&r);
    assert_true(json_is_false(json_object_get(o, "valid")));
    assert_string_equal(str_at(o, "error"), "PLY_EFEN");
    json_decref(o);
    th_run_free(&r);
}

static void test_perft_from_pgn(void **state)
{
    (void)state;
    /* Stockfish 15.1, "go perft 3" after the first 20 plies of the Opera game. */
    th_run_t r =
        th_run(RUN_S, "ply perft --pgn '%s' --game 1 --ply 20 -d 3 --json", PGN("opera.pgn"));
    th_expect_status(&r, 0, "perft --pgn");
    json_t *o = th_json(&r);
    assert_string_equal(str_at(o, "fen"),
                        "rn2kb1r/p3qppp/5n2/1p2p1B1/2B1P3/1Q6/PPP2PPP/R3K2R w KQkq - 0 11");
    assert_int_equal(int_at(o, "nodes"), 49007);
    json_decref(o);
    th_run_free(&r);
    /* A Chess960 game: Stockfish (UCI_Chess960) "go perft 3" after ten plies. */
    r = th_run(RUN_S, "ply perft --pgn '%s' --ply 10 -d 3 --json", PGN("chess960.pgn"));
    th_expect_status(&r, 0, "perft --pgn chess960");
    o = th_json(&r);
    assert_true(json_is_true(json_object_get(o, "chess960")));
    assert_int_equal(int_at(o, "nodes"), 27151);
    json_decref(o);
    th_run_free(&r);
    /* Errors: no such game or ply, an illegal move on the way, bad usage. */
    r = th_run(RUN_S, "ply perft --pgn '%s' --game 2 -d 1", PGN("opera.pgn"));
    th_expect_status(&r, 2, "no game 2");
    assert_non_null(strstr(r.err, "has 1 game, not 2"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft --pgn '%s' --ply 40 -d 1", PGN("opera.pgn"));
    th_expect_status(&r, 2, "no ply 40");
    assert_non_null(strstr(r.err, "game 1 has 33 plies, not 40"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft --pgn '%s' --game 2 --ply 6 -d 1", PGN("arbiter-mixed.pgn"));
    th_expect_status(&r, 2, "illegal on the way");
    assert_non_null(strstr(r.err, "illegal: king would be in check"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft --ply 3 -d 1");
    th_expect_status(&r, 2, "--ply without --pgn");
    th_run_free(&r);
    r = th_run(RUN_S, "ply perft --pgn '%s' --fen startpos -d 1", PGN("opera.pgn"));
    th_expect_status(&r, 2, "--pgn with --fen");
    th_run_free(&r);
}

/*
 * Issue 14: a flag fall in a locked position. White's dark bishop takes the
 * knight on d2 and leaves the lattice of the wall: every white pawn on a dark
 * square, every black pawn on a light one, White's bishop dark and Black's
 * light, so no pawn can ever move or be taken and no piece crosses the wall
 * (worked by hand in test_arbiter_unwinnable.c and confirmed there by an
 * exhaustive walk). The position is dead (5.2(b)): the game was drawn at
 * that move, whatever the clock said, and the record's 1-0 on time is wrong.
 * Then an undetermined question: two knights can mate (a helpmate exists)
 * but not within 10 nodes, and the flag fall is not ruled on.
 */
static void test_flag_in_locked_position(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-arbiter-locked-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n"
          "[SetUp \"1\"]\n[FEN \"4k3/5b2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3n4/2B1K3 w - - 0 1\"]\n\n"
          "1. Bxd2 1-0\n\n"
          "[White \"C\"]\n[Black \"D\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n"
          "[FEN \"4k3/8/8/8/8/8/8/4KNN1 w - - 0 1\"]\n\n1. Kf2 Kd7 1-0\n",
          f);
    fclose(f);
    th_run_t r = th_run(RUN_S, "ply arbiter --json %s", path);
    th_expect_status(&r, 1, "locked flag fall");
    json_t *o = th_json(&r);
    json_t *g1 = json_array_get(json_object_get(o, "results"), 0);
    json_t *end = json_object_get(g1, "end");
    assert_string_equal(str_at(end, "kind"), "dead position");
    assert_int_equal(int_at(end, "ply"), 1);
    assert_non_null(strstr(str_at(end, "proof"), "blocked: no pawn can ever move or capture; "
                                                 "white can never give check"));
    assert_string_equal(str_at(g1, "expected_result"), "1/2-1/2");
    assert_true(json_is_false(json_object_get(g1, "consistent")));
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter %s", path);
    assert_non_null(strstr(r.out, "end: dead position at ply 1 (art. 5.2(b)), 1/2-1/2: blocked:"));
    th_run_free(&r);

    /* Black's flag falls in game 2: White's helpmate is proven with the
     * default budget (the line in JSON, replayable), undetermined with 10. */
    r = th_run(RUN_S, "ply arbiter --json --flag black %s", path);
    o = th_json(&r);
    json_t *g2 = json_array_get(json_object_get(o, "results"), 1);
    json_t *flag = json_object_get(g2, "flag");
    assert_string_equal(str_at(flag, "opponent_can_mate"), "yes");
    assert_string_equal(str_at(flag, "method"), "helpmate");
    assert_true(json_array_size(json_object_get(flag, "line")) > 0);
    assert_string_equal(str_at(g2, "expected_result"), "1-0");
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --json --flag black --unwinnable-budget 10 %s", path);
    o = th_json(&r);
    g2 = json_array_get(json_object_get(o, "results"), 1);
    flag = json_object_get(g2, "flag");
    assert_string_equal(str_at(flag, "opponent_can_mate"), "undetermined");
    assert_string_equal(str_at(flag, "method"), "undetermined");
    assert_int_equal(int_at(flag, "budget"), 10);
    assert_true(json_is_null(json_object_get(g2, "expected_result")));
    assert_true(json_is_true(json_object_get(g2, "consistent")));
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --flag black --unwinnable-budget 10 %s", path);
    assert_non_null(strstr(r.out, "white can mate: undetermined"));
    assert_non_null(strstr(r.out, "-> no verdict (art. 6.10)"));
    assert_non_null(strstr(r.out, "note: art. 6.10 undetermined: black's flag fell"));
    assert_non_null(strstr(r.out, "within the budget of 10 nodes"));
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --unwinnable-budget 0 %s", path);
    th_expect_status(&r, 2, "budget 0");
    th_run_free(&r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notation_forms),
        cmocka_unit_test(test_help_and_usage),
        cmocka_unit_test(test_mixed_file),
        cmocka_unit_test(test_consistent_and_broken_files),
        cmocka_unit_test(test_flag_and_laws),
        cmocka_unit_test(test_fen),
        cmocka_unit_test(test_flag_in_locked_position),
        cmocka_unit_test(test_notation),
        cmocka_unit_test(test_perft_from_pgn),
    };
    return cmocka_run_group_tests_name("arbiter_cli", tests, NULL, NULL);
}
