/*
 * Unit tests of the annotated games of `ply analyse-pgn` (client/pgn_annotate.c): a game
 * with given per-ply engine lines, and the PGN, NAGs, comments, tags and variations
 * written from them, asserted exactly. The expected numbers are computed by hand from
 * lichess's formulas as client/annotate.h states them (Python 3's math module as the
 * calculator), from the mover's side:
 *   wc(cp) = 2 / (1 + exp(-0.00368208 cp)) - 1, win% = 50 + 50 wc,
 *   accuracy = 103.1668 exp(-0.043544 max(0, win% before - win% after)) - 3.1669;
 *   White: 1. e4 30 -> 25 (97.958%, loss 5), 2. Qh5 35 -> 10 (drop 0.0459: good, 90.181%,
 *   loss 25), 3. Bc4 40 -> 30 (95.963%, loss 10), 4. Qxf7# (mates: 100%, loss 0):
 *   accuracy 96.025 -> "96.0", ACPL 40 / 4 = 10;
 *   Black: 1... e5 -25 -> -35 (95.959%, loss 10), 2... Nc6 -10 -> -40 (88.337%, loss 30),
 *   3... Nf6 -30 -> mated in 1 (mate created from -30 > -700: a blunder; -1000 counted,
 *   11.509%, loss 970): accuracy 65.268 -> "65.3", ACPL 1010 / 3 = 336.7 -> "337".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgn_annotate.h"
#include "util/error.h"

static const char *SCHOLAR =
    "[Event \"Test\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
    "1. e4 {old comment [%eval 9.99]} e5 2. Qh5 Nc6 (2... g6) 3. Bc4 Nf6?? "
    "4. Qxf7# 1-0\n";

/* Reads @text's first game into a reader kept in *@r (the game lives as long as it). */
static const ply_pgn_game_t *read_game(const char *text, FILE **f, ply_pgn_reader_t **r)
{
    *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(*f);
    *r = ply_pgn_reader_new(*f);
    const ply_pgn_game_t *g = NULL;
    assert_int_equal(ply_pgn_read(*r, &g, NULL), 1);
    return g;
}

static void set_line(ply_pa_line_t *l, int is_mate, int value, unsigned depth, const char *pv)
{
    memset(l, 0, sizeof *l);
    l->have = 1;
    l->is_mate = is_mate;
    l->value = value;
    l->depth = depth;
    char buf[200];
    snprintf(buf, sizeof buf, "%s", pv);
    for (char *t = strtok(buf, " "); t && l->npv < PLY_PA_PV_MAX; t = strtok(NULL, " "))
        snprintf(l->pv[l->npv++], PLY_PA_UCI_MAX, "%s", t);
}

static char *write_game(const ply_pgn_game_t *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(ply_pgn_write(out, g), 0);
    fclose(out);
    return buf;
}

/* The scholar's mate with the lines of the header's comment (side to move's scores). */
static void scholar_lines(ply_pa_game_t *g)
{
    assert_int_equal(g->nplies, 7);
    set_line(&g->lines[0], 0, 30, 10, "e2e4 e7e5");
    set_line(&g->lines[1], 0, -25, 10, "e7e5 g1f3");
    set_line(&g->lines[2], 0, 35, 10, "g1f3 b8c6");
    set_line(&g->lines[3], 0, -10, 10, "b8c6 f1c4");
    set_line(&g->lines[4], 0, 40, 10, "f1c4 g8f6");
    g->lines[4].researched = 1;
    g->lines[4].first_value = -150;
    g->lines[4].first_depth = 6;
    set_line(&g->lines[5], 0, -30, 10, "g7g6 h5f3 g8f6");
    set_line(&g->lines[6], 1, 1, 2, "h5f7");
}

/* The scholar's mate read, replayed into *@g and given its lines; the reader in *@f, *@r. */
static const ply_pgn_game_t *scholar(ply_pa_game_t *g, FILE **f, ply_pgn_reader_t **r)
{
    const ply_pgn_game_t *src = read_game(SCHOLAR, f, r);
    long line;
    char why[200];
    assert_int_equal(ply_pa_game_read(g, src, &line, why, sizeof why), 0);
    scholar_lines(g);
    return src;
}

static void test_scholar(void **state)
{
    (void)state;
    FILE *f;
    ply_pgn_reader_t *r;
    ply_pa_game_t g;
    const ply_pgn_game_t *src = scholar(&g, &f, &r);
    assert_int_equal(g.end[7], PLY_PA_MATED);
    assert_string_equal(g.uci[2], "d1h5");
    assert_string_equal(g.san[6], "Qxf7#");

    ply_pa_move_t moves[7];
    ply_pa_summary_t sum;
    ply_pa_judge(&g, moves, &sum);
    assert_int_equal(moves[5].judgement, PLY_ANNOT_BLUNDER);
    assert_int_equal(moves[5].cp_loss, 970);
    assert_string_equal(moves[5].best, "g6");
    assert_string_equal(moves[2].best, "Nf3");
    assert_int_equal(moves[2].judgement, PLY_ANNOT_GOOD);
    assert_false(moves[6].has_eval); /* the mating move: no [%eval] */
    assert_true(moves[6].judged);
    assert_int_equal(sum.moves[0], 4);
    assert_int_equal(sum.moves[1], 3);

    ply_pgn_game_t *out = ply_pgn_game_new();
    assert_int_equal(ply_pa_annotate(&g, src, moves, &sum, "ply analyse-pgn", out), 0);
    char *text = write_game(out);
    const char *want =
        "[Event \"Test\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"
        "[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n[WhiteAccuracy \"96.0\"]\n"
        "[WhiteACPL \"10\"]\n[BlackAccuracy \"65.3\"]\n[BlackACPL \"337\"]\n"
        "[Annotator \"ply analyse-pgn\"]\n\n"
        "1. e4 {old comment} {[%eval 0.25,10]} 1... e5 {[%eval 0.35,10]} 2. Qh5\n"
        "{[%eval 0.10,10]} (2. Nf3 Nc6) 2... Nc6 {[%eval 0.40,10] Re-searched with twice\n"
        "the budget: the first search (-1.50,6) contradicted ply 3.} (2... g6) 3. Bc4\n"
        "{[%eval 0.30,10]} 3... Nf6 $4 {[%eval #1,2] Blunder. Checkmate is now\n"
        "unavoidable. g6 was best.} (3... g6 4. Qf3 Nf6) 4. Qxf7# 1-0\n\n";
    if (strcmp(text, want) != 0) fail_msg("got:\n%s\nwant:\n%s", text, want);
    free(text);
    ply_pgn_game_destroy(&out);
    ply_pa_game_free(&g);
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

/* The user's own comments, NAGs and variations stay beside the engine's (the tester's
 * an2.pgn on issue 30: "1. e4 $1 {my note} (1. d4 {alt}) e5" came out as bare moves):
 * the user's NAGs first, then the engine's; the user's comments before the engine's; the
 * user's variations before the engine's line; a comment before the first move stays
 * first; only [%eval] commands go from the user's comments (lichess's "{ [%eval 0.17]
 * [%clk 0:03:00] }" keeps its clock), and a comment that was nothing else goes. */
static void test_user_annotations_kept(void **state)
{
    (void)state;
    static const char *text =
        "[Event \"Test\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
        "{before} 1. e4 $1 {my note} (1. d4 {alt}) e5 { [%eval 0.17] [%clk 0:03:00] } "
        "2. Qh5 {[%eval 0.1]} { } Nc6 ; rest of line\n3. Bc4 Nf6 $2 4. Qxf7# 1-0\n";
    FILE *f;
    ply_pgn_reader_t *r;
    ply_pa_game_t g;
    const ply_pgn_game_t *src = read_game(text, &f, &r);
    long line;
    char why[200];
    assert_int_equal(ply_pa_game_read(&g, src, &line, why, sizeof why), 0);
    scholar_lines(&g);
    ply_pa_move_t moves[7];
    ply_pa_summary_t sum;
    ply_pa_judge(&g, moves, &sum);
    ply_pgn_game_t *out = ply_pgn_game_new();
    assert_int_equal(ply_pa_annotate(&g, src, moves, &sum, NULL, out), 0);
    char *got = write_game(out);
    const char *want =
        "{before} 1. e4 $1 {my note} {[%eval 0.25,10]} (1. d4 {alt}) 1... e5 {\n"
        "[%clk 0:03:00] } {[%eval 0.35,10]} 2. Qh5 { } {[%eval 0.10,10]} (2. Nf3 Nc6)\n"
        "2... Nc6 ; rest of line\n"
        "{[%eval 0.40,10] Re-searched with twice the budget: the first search (-1.50,6)\n"
        "contradicted ply 3.} 3. Bc4 {[%eval 0.30,10]} 3... Nf6 $2 $4 {[%eval #1,2]\n"
        "Blunder. Checkmate is now unavoidable. g6 was best.} (3... g6 4. Qf3 Nf6) 4.\n"
        "Qxf7# 1-0\n\n";
    const char *movetext = strstr(got, "\n\n");
    assert_non_null(movetext);
    if (strcmp(movetext + 2, want) != 0) fail_msg("got:\n%s\nwant:\n%s", movetext + 2, want);
    free(got);
    ply_pgn_game_destroy(&out);
    ply_pa_game_free(&g);
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

/* The consistency pass: the best move played, yet the next ply's line loses for the
 * mover (a drop of 0.1 or more, or a mate that vanished): that later ply is reported. */
static void test_contradictions(void **state)
{
    (void)state;
    FILE *f;
    ply_pgn_reader_t *r;
    ply_pa_game_t g;
    scholar(&g, &f, &r);
    unsigned plies[8];
    assert_int_equal(ply_pa_contradictions(&g, plies, 8), 0);
    /* ply 0 chose e4, and the position after e4 is now -0.50 for White: wc(30) - wc(-50)
     * = 0.1469 >= 0.1, an inaccuracy of the engine's own move */
    set_line(&g.lines[1], 0, 50, 10, "e7e5");
    set_line(&g.lines[2], 0, -45, 10, "g1f3"); /* consistent with ply 1: not reported */
    /* ply 6 mates in 1 with Qxf7#, played: ply 7 is checkmate (no line): no contradiction.
     * ply 3 (Black) chose Nc6, played, and ply 4 finds White mating in 3: MateCreated */
    set_line(&g.lines[4], 1, 3, 12, "f1c4");
    set_line(&g.lines[5], 1, -2, 12, "g7g6"); /* the mate kept: not reported */
    assert_int_equal(ply_pa_contradictions(&g, plies, 8), 2);
    assert_int_equal(plies[0], 1);
    assert_int_equal(plies[1], 4);
    /* a line already searched again is not reported twice; @max bounds what is written */
    g.lines[1].researched = 1;
    assert_int_equal(ply_pa_contradictions(&g, plies, 0), 1);
    /* nor one the cache says was searched with twice the budget in an earlier game */
    g.lines[4].doubled = 1;
    assert_int_equal(ply_pa_contradictions(&g, plies, 8), 0);
    g.lines[4].doubled = 0;
    /* the move played is not the engine's: an ordinary error, not a contradiction */
    set_line(&g.lines[3], 0, -10, 10, "a7a6");
    assert_int_equal(ply_pa_contradictions(&g, plies, 8), 0);
    ply_pa_game_free(&g);
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

/* A move that stalemates has no [%eval] and is judged against 0.00 (a draw, art. 5.2(a)):
 * thrown away from +9.00 it is a blunder (wc(900) = 0.9294 down to 0). The game is Sam
 * Loyd's ten-move stalemate, 10. Qe6 leaving Black no legal move and not in check. */
static void test_stalemate(void **state)
{
    (void)state;
    FILE *f;
    ply_pgn_reader_t *r;
    const ply_pgn_game_t *src = read_game(
        "[Result \"1/2-1/2\"]\n\n1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 "
        "7. Qxb7 Qd3 8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6 1/2-1/2\n",
        &f, &r);
    ply_pa_game_t g;
    long line;
    char why[200];
    assert_int_equal(ply_pa_game_read(&g, src, &line, why, sizeof why), 0);
    assert_int_equal(g.nplies, 19);
    assert_int_equal(g.end[19], PLY_PA_STALEMATE);
    set_line(&g.lines[18], 0, 900, 10, "c8e6"); /* pv[0] is Qe6 itself: no best move named */
    ply_pa_move_t moves[19];
    ply_pa_judge(&g, moves, NULL);
    assert_false(moves[18].has_eval);
    assert_true(moves[18].judged);
    assert_int_equal(moves[18].judgement, PLY_ANNOT_BLUNDER);
    assert_int_equal(moves[18].cp_loss, 900);
    assert_string_equal(moves[18].best, "");
    ply_pa_game_free(&g);
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

/* A bad move is reported with its ply, the move as written and its line. */
static void test_illegal_move(void **state)
{
    (void)state;
    FILE *f;
    ply_pgn_reader_t *r;
    const ply_pgn_game_t *src = read_game("[White \"A\"]\n\n1. e4 e5\n2. Ke3 Nc6 *\n", &f, &r);
    ply_pa_game_t g;
    long line = 0;
    char why[200];
    assert_int_equal(ply_pa_game_read(&g, src, &line, why, sizeof why), PLY_EILLEGAL);
    assert_int_equal(line, 4);
    assert_non_null(strstr(why, "ply 3 (2. Ke3)"));
    ply_pa_game_free(&g);
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scholar),
        cmocka_unit_test(test_user_annotations_kept),
        cmocka_unit_test(test_contradictions),
        cmocka_unit_test(test_stalemate),
        cmocka_unit_test(test_illegal_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
