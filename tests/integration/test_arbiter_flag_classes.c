/*
 * Flag falls in the positions of issue 30, through `ply arbiter --flag`:
 * FIDE Laws art. 6.10 (2000; 6.9 since 2018, RULES.md "Flag fall"): the
 * player whose flag falls loses, unless the opponent cannot checkmate by any
 * series of legal moves, and then the game is drawn; a game that ended
 * before (a dead position, 5.2(b)) is drawn whatever the clock.
 *
 * White's flag falls at the end of each game, White to move:
 *   1. king and bishop against king and bishop on the other colour: Black
 *      can mate (White's king in a light corner, White's own bishop
 *      blocking its last flight): 0-1;
 *   2. king and pawn against king and knight: Black's knight mates once
 *      White's pawn has promoted and the new piece blocks its own king: 0-1;
 *   3. king and pawn against king and bishop, the same with a bishop: 0-1;
 *   4. a locked lattice with a bishop behind each wall: dead at once, 1/2-1/2;
 *   5. the lattice with two light bishops for Black: White could mate, but
 *      Black cannot (one dark bishop of White's for two dark flights), so
 *      White's flag fall is a draw: 1/2-1/2.
 * Each "can mate" is proven by a helpmate line that test_arbiter_unwinnable.c
 * replays (Stockfish 15.1 confirms the last move is mate), each "cannot" by
 * the argument worked by hand there and its exhaustive walk. The records'
 * results are right for 1-3 and 5, wrong for 4 (0-1 on time).
 *
 * Then the 75-move rule of the 2023 Laws in a flag fall, and the line behind
 * a "yes" of the exhaustive walk (see the tests below).
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

#define RUN_S 300

static const char *str_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) fail_msg("no string '%s'", key);
    return json_string_value(v);
}

static const char games[] =
    "[Event \"kb-kb\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"8/8/4k3/8/2b5/8/2K5/2B5 w - - 0 1\"]\n\n0-1\n\n"
    "[Event \"kp-kn\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"8/8/8/8/1K6/6k1/1n5P/8 b - - 0 1\"]\n\n1... Kf4 0-1\n\n"
    "[Event \"kp-kb\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"k7/8/8/8/3P4/8/5K2/6b1 w - - 0 1\"]\n\n0-1\n\n"
    "[Event \"lattice\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"4k3/4B3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/2b5/4K3 w - - 0 1\"]\n\n0-1\n\n"
    "[Event \"two-bishops\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n"
    "[FEN \"4k3/4Bb2/6b1/1p1p1p2/pPpPpPp1/P1P1P1P1/8/4K3 w - - 0 1\"]\n\n1/2-1/2\n";

static void test_flag_fall_per_class(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-arbiter-classes-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(games, f);
    fclose(f);
    th_run_t r = th_run(RUN_S, "ply arbiter --json --flag white %s", path);
    th_expect_status(&r, 1, "flag white"); /* game 4's record is wrong */
    json_t *o = th_json(&r);
    json_t *res = json_object_get(o, "results");
    assert_int_equal(json_array_size(res), 5);
    static const char *const expected[5] = {"0-1", "0-1", "0-1", "1/2-1/2", "1/2-1/2"};
    static const char *const can_mate[5] = {"yes", "yes", "yes", NULL, "no"};
    static const char *const method[5] = {"helpmate", "helpmate", "helpmate", NULL, "blocked"};
    for (size_t i = 0; i < 5; i++) {
        json_t *g = json_array_get(res, i);
        if (strcmp(str_at(g, "expected_result"), expected[i]))
            fail_msg("game %zu: expected %s, ply says %s", i + 1, expected[i],
                     str_at(g, "expected_result"));
        assert_true(json_is_boolean(json_object_get(g, "consistent")));
        assert_int_equal(json_is_true(json_object_get(g, "consistent")), i != 3);
        if (!can_mate[i]) {
            assert_string_equal(str_at(json_object_get(g, "end"), "kind"), "dead position");
            continue;
        }
        json_t *flag = json_object_get(g, "flag");
        assert_string_equal(str_at(flag, "opponent_can_mate"), can_mate[i]);
        assert_string_equal(str_at(flag, "method"), method[i]);
        assert_int_equal(json_array_size(json_object_get(flag, "line")) > 0, i < 3);
    }
    json_decref(o);
    th_run_free(&r);
    /* The text output says the same. */
    r = th_run(RUN_S, "ply arbiter --flag white %s", path);
    assert_non_null(strstr(r.out, "flag: white's flag fell; black can mate: yes (helpmate"));
    assert_non_null(strstr(r.out, "end: dead position at ply 0 (art. 5.2(b)), 1/2-1/2: blocked"));
    assert_non_null(strstr(r.out, "flag: white's flag fell; black can mate: no (blocked"));
    th_run_free(&r);
    unlink(path);
}

/* A temporary PGN file holding @text; the path in @path (room for 40). */
static void write_pgn(char *path, const char *text)
{
    strcpy(path, "/tmp/ply-arbiter-classes-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

/* The game from @fen with @moves (SAN, space-separated) and @result, replayed
 * by `ply arbiter --laws @laws`: its end by rule in *@kind ("" when none), at
 * ply *@ply. The rule engine checks every move's legality on the way. */
static void replay_end(const char *laws, const char *fen, const char *moves, const char *result,
                       char *kind, size_t len, long *ply)
{
    char path[40], *text = NULL;
    assert_true(
        asprintf(&text,
                 "[Event \"replay\"]\n[Result \"%s\"]\n[SetUp \"1\"]\n[FEN \"%s\"]\n\n%s %s\n",
                 result, fen, moves, result) > 0);
    write_pgn(path, text);
    free(text);
    th_run_t r = th_run(RUN_S, "ply arbiter --json --laws %s %s", laws, path);
    json_t *o = th_json(&r);
    json_t *g = json_array_get(json_object_get(o, "results"), 0);
    assert_non_null(g);
    assert_true(json_is_null(json_object_get(g, "illegal"))); /* every move legal */
    json_t *end = json_object_get(g, "end");
    snprintf(kind, len, "%s", json_is_object(end) ? str_at(end, "kind") : "");
    *ply = json_is_object(end) ? (long)json_integer_value(json_object_get(end, "ply")) : 0;
    json_decref(o);
    th_run_free(&r);
    unlink(path);
}

/* The SAN moves of a JSON line array, space-separated, in @out (@len bytes). */
static void line_text(json_t *line, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < json_array_size(line); i++) {
        int w = snprintf(out + used, len - used, "%s%s", i ? " " : "",
                         json_string_value(json_array_get(line, i)));
        assert_true(w > 0 && used + (size_t)w < len);
        used += (size_t)w;
    }
}

/*
 * The 75-move rule under fide2023 (art. 9.6.2: the game is drawn when the last
 * 75 moves of each player had no pawn move and no capture, unless the last move
 * mates). From a halfmove clock of 147, 100. Ke3 brings it to 148: every series
 * of moves without a capture or pawn move is drawn two plies later, after
 * White's move, so Black could only mate on its very next move, and it has no
 * checking move at all (its bishop is on light squares, White's king on e3 is
 * dark; its king cannot check); the only captures that series allows are of
 * Black's bishop by White's king (Black is then left with a bare king). So
 * Black cannot mate, and White's flag fall is a draw (art. 6.9), not the 0-1
 * that the 2000 Laws give (no clock ends a game there: a 17-ply helpmate). With
 * the clock at 100 instead the same helpmate fits, and the line given replays
 * under fide2023 to a checkmate, not to the 75-move draw. A position already
 * drawn by the rule (clock 150) has no "yes" for either side.
 */
static void test_flag_fall_75_move_rule(void **state)
{
    (void)state;
    static const char fen148[] = "8/8/4k3/3b4/8/2B5/4K3/8 w - - 147 100";
    static const char fen101[] = "8/8/4k3/3b4/8/2B5/4K3/8 w - - 100 100";
    char path[40], *text = NULL;
    assert_true(asprintf(&text,
                         "[Event \"75\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n[FEN \"%s\"]\n\n"
                         "100. Ke3 0-1\n\n[Event \"clock 100\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
                         "[FEN \"%s\"]\n\n100. Ke3 0-1\n",
                         fen148, fen101) > 0);
    write_pgn(path, text);
    free(text);
    th_run_t r = th_run(RUN_S, "ply arbiter --json --laws fide2023 --flag white %s", path);
    th_expect_status(&r, 1, "fide2023 flag white"); /* game 1's record is wrong */
    json_t *o = th_json(&r);
    json_t *res = json_object_get(o, "results");
    assert_int_equal(json_array_size(res), 2);
    json_t *g = json_array_get(res, 0), *flag = json_object_get(g, "flag");
    assert_string_equal(str_at(g, "expected_result"), "1/2-1/2");
    assert_false(json_is_true(json_object_get(g, "consistent")));
    assert_string_equal(str_at(flag, "opponent_can_mate"), "no");
    assert_int_equal(json_array_size(json_object_get(flag, "line")), 0);
    g = json_array_get(res, 1);
    flag = json_object_get(g, "flag");
    assert_string_equal(str_at(g, "expected_result"), "0-1");
    assert_string_equal(str_at(flag, "opponent_can_mate"), "yes");
    char moves[2048], kind[64];
    long ply = 0;
    json_t *line = json_object_get(flag, "line");
    assert_true(json_array_size(line) > 0);
    line_text(line, moves, sizeof moves);
    char all[2100];
    snprintf(all, sizeof all, "100. Ke3 %s", moves);
    replay_end("fide2023", fen101, all, "0-1", kind, sizeof kind, &ply);
    assert_string_equal(kind, "checkmate");
    assert_int_equal(ply, 1 + (long)json_array_size(line));
    json_decref(o);
    th_run_free(&r);
    /* The 2000 Laws: no clock ends the game, Black's helpmate stands. */
    r = th_run(RUN_S, "ply arbiter --json --laws fide2000 --flag white %s", path);
    o = th_json(&r);
    g = json_array_get(json_object_get(o, "results"), 0);
    assert_string_equal(str_at(g, "expected_result"), "0-1");
    assert_string_equal(str_at(json_object_get(g, "flag"), "opponent_can_mate"), "yes");
    json_decref(o);
    th_run_free(&r);
    unlink(path);
    /* Already drawn by the rule: neither side can still mate. */
    r = th_run(RUN_S,
               "ply arbiter --json --laws fide2023 --fen '8/8/4k3/3b4/8/2B5/4K3/8 w - - 150 100'");
    o = th_json(&r);
    assert_string_equal(str_at(o, "state"), "75-move rule");
    json_t *can = json_object_get(o, "can_mate");
    assert_string_equal(str_at(json_object_get(can, "white"), "answer"), "no");
    assert_string_equal(str_at(json_object_get(can, "black"), "answer"), "no");
    json_decref(o);
    th_run_free(&r);
    r = th_run(RUN_S, "ply arbiter --laws fide2023 --fen '8/8/4k3/3b4/8/2B5/4K3/8 w - - 150 100'");
    assert_null(strstr(r.out, "can still mate: yes"));
    th_run_free(&r);
}

/*
 * A "yes" proven by the exhaustive walk comes with its line (the man page: a
 * "yes" is proven by a replayable line). King, bishop and pawn against king and
 * pawn: Black mates only after its pawn promotes, which the helpmate search
 * does not find within its share of the budget; the walk does. The line it
 * gives replays, move by move, to Black's checkmate in the rule engine.
 */
static void test_exhaustive_yes_has_line(void **state)
{
    (void)state;
    static const char fen[] = "8/5k2/1K6/8/6p1/5BP1/8/8 w - - 0 1";
    th_run_t r = th_run(RUN_S, "ply arbiter --json --fen '%s'", fen);
    json_t *o = th_json(&r);
    json_t *black = json_object_get(json_object_get(o, "can_mate"), "black");
    assert_string_equal(str_at(black, "answer"), "yes");
    json_t *line = json_object_get(black, "line");
    if (json_array_size(line) == 0)
        fail_msg("black's \"yes\" (%s) has no line", str_at(black, "method"));
    char moves[2048], kind[64];
    long ply = 0;
    line_text(line, moves, sizeof moves);
    replay_end("fide2000", fen, moves, "0-1", kind, sizeof kind, &ply);
    assert_string_equal(kind, "checkmate");
    assert_int_equal(ply, (long)json_array_size(line));
    json_decref(o);
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag_fall_per_class),
        cmocka_unit_test(test_flag_fall_75_move_rule),
        cmocka_unit_test(test_exhaustive_yes_has_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
