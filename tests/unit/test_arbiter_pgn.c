/*
 * Unit tests of the arbiter's PGN reader and writer (common/arbiter/pgn.c):
 * one small sample per quirk of issue 3, item 2 (tests/data/pgn/, written
 * for these tests, see PROVENANCE.md), the recovery from broken games, the
 * writer's export format and its round trip, the start position of a game
 * (SetUp/FEN, Variant Chess960), ply_arb_pgn_position, and a fuzz of the
 * reader with random and mutated input.
 *
 * Expected values come from the samples themselves (what was written in
 * them), from the PGN standard (export format: Seven Tag Roster order, move
 * numbers, NAGs as $n, no space inside parentheses), and for positions from
 * chess.js 1.4.0 and Stockfish 15.1 run on the same moves when the samples
 * were written (final FENs quoted below).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "util/error.h"
#define TEST_RNG_SEED 0x2545F4914F6CDD1Dull
#include "test_rng.h"

#define DATA(name) PLY_TEST_DATA "/pgn/" name

/* Every game of a file, copied out (tags and elements as text) for checks. */
typedef struct read_all {
    int games, errors;
    size_t err_game[16];
    long err_line[16];
    char err_why[16][200];
} read_all_t;

typedef void (*game_fn)(const ply_pgn_game_t *g, void *arg);

static void read_stream(FILE *f, game_fn fn, void *arg, read_all_t *ra)
{
    ply_pgn_reader_t *r = ply_pgn_reader_new(f);
    assert_non_null(r);
    const ply_pgn_game_t *g;
    ply_pgn_error_t err;
    int rc;
    memset(ra, 0, sizeof *ra);
    while ((rc = ply_pgn_read(r, &g, &err)) != 0) {
        assert_true(rc == 1 || rc == PLY_EPARSE);
        if (rc == PLY_EPARSE) {
            if (ra->errors < 16) {
                ra->err_game[ra->errors] = err.game;
                ra->err_line[ra->errors] = err.line;
                snprintf(ra->err_why[ra->errors], sizeof ra->err_why[0], "%s", err.why);
            }
            ra->errors++;
            continue;
        }
        ra->games++;
        if (fn) fn(g, arg);
    }
    ply_pgn_reader_destroy(&r);
}

static void read_file(const char *path, game_fn fn, void *arg, read_all_t *ra)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    read_stream(f, fn, arg, ra);
    fclose(f);
}

static void read_text(const char *text, game_fn fn, void *arg, read_all_t *ra)
{
    FILE *f = fmemopen((void *)text, strlen(text), "rb");
    assert_non_null(f);
    read_stream(f, fn, arg, ra);
    fclose(f);
}

/* The movetext as one string: "e4 {c} $1 ( ... ) ;l" - a compact form to compare. */
static void movetext(const ply_pgn_game_t *g, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < g->nelems && n + 1 < len; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        const char *sep = n ? " " : "";
        switch (e->kind) {
        case PLY_PGN_MOVE:
            n += (size_t)snprintf(out + n, len - n, "%s%s", sep, e->text);
            break;
        case PLY_PGN_COMMENT:
            n += (size_t)snprintf(out + n, len - n, "%s{%s}", sep, e->text);
            break;
        case PLY_PGN_LINE_COMMENT:
            n += (size_t)snprintf(out + n, len - n, "%s;%s", sep, e->text);
            break;
        case PLY_PGN_NAG:
            n += (size_t)snprintf(out + n, len - n, "%s$%d", sep, e->nag);
            break;
        case PLY_PGN_VAR_START:
            n += (size_t)snprintf(out + n, len - n, "%s(", sep);
            break;
        case PLY_PGN_VAR_END:
            n += (size_t)snprintf(out + n, len - n, "%s)", sep);
            break;
        }
    }
}

/* Keep the last game's movetext and tags in a buffer. */
typedef struct capture {
    char movetext[4][2048];
    char result[4][16];
    long line[4];
    size_t number[4];
    char tags[4][1024];
    int n;
} capture_t;

static void capture_game(const ply_pgn_game_t *g, void *arg)
{
    capture_t *c = arg;
    if (c->n >= 4) return;
    movetext(g, c->movetext[c->n], sizeof c->movetext[0]);
    snprintf(c->result[c->n], sizeof c->result[0], "%s", g->result ? g->result : "(none)");
    c->line[c->n] = g->line;
    c->number[c->n] = g->number;
    size_t k = 0;
    c->tags[c->n][0] = 0;
    for (size_t i = 0; i < g->ntags; i++)
        k += (size_t)snprintf(c->tags[c->n] + k, sizeof c->tags[0] - k, "%s=%s|", g->tags[i].name,
                              g->tags[i].value);
    c->n++;
}

/* ------------------------------------------------------------- the quirks */

static void test_tags_and_escapes(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("tags-escapes.pgn"), capture_game, &c, &ra);
    assert_int_equal(ra.games, 1);
    assert_int_equal(ra.errors, 0);
    /* PGN 7: \" and \\ inside a tag value; spaces inside kept as written. */
    assert_string_equal(c.tags[0], "Event=The \"Immortal\" \\ escape test|Site=C:\\chess\\games|"
                                   "Date=2024.01.02|Round=1|White=O'Brien, \"Tiger\"|"
                                   "Black=Back\\slash|Result=1/2-1/2|Annotator=ply tests|EmptyTag=|"
                                   "Spaced=value with   spaces|");
    assert_string_equal(c.movetext[0], "e4 e5 Nf3 Nc6");
    assert_string_equal(c.result[0], "1/2-1/2");
}

static void test_comments(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("comments.pgn"), capture_game, &c, &ra);
    assert_int_equal(ra.games, 1);
    /* Brace comments across lines (each line end read as one space), ';' to the end
     * of the line byte for byte, its leading space too (braces inside are text), an
     * empty comment, an empty ';'. */
    assert_string_equal(c.movetext[0],
                        "{A comment before the first move.} e4 {King's pawn; this comment spans "
                        "two lines} e5 ; a rest-of-line comment with {braces} inside Nf3 {Brace "
                        "comment with a ; semicolon} Nc6 {} Bb5 ; a6");
    assert_string_equal(c.result[0], "*");
}

static void test_escape_lines(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("escape-lines.pgn"), capture_game, &c, &ra);
    assert_int_equal(ra.games, 1);
    assert_int_equal(ra.errors, 0);
    /* PGN 6: a '%' in the first column hides the rest of its line. */
    assert_true(strncmp(c.tags[0], "Event=escape lines|", 19) == 0);
    assert_string_equal(c.movetext[0], "d4 d5 c4 e6");
    assert_int_equal(c.line[0], 3); /* the game starts at its first tag, after the escapes */
}

static void test_nags(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("nags.pgn"), capture_game, &c, &ra);
    /* PGN 8.2.4: ! ? !! ?? !? ?! are NAGs 1 to 6; $n kept as numbers. */
    assert_string_equal(c.movetext[0], "e4 $1 e5 $2 Nf3 $3 Nc6 $4 Bb5 $5 a6 $6 Ba4 $1 Nf6 $14 $32 "
                                       "O-O $255");
}

static void check_depths(const ply_pgn_game_t *g, void *arg)
{
    int *main_moves = arg, depth = 0;
    for (size_t i = 0; i < g->nelems; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        if (e->kind == PLY_PGN_VAR_END) depth--;
        assert_int_equal(e->depth, depth);
        if (e->kind == PLY_PGN_VAR_START) depth++;
        if (e->kind == PLY_PGN_MOVE && e->depth == 0) (*main_moves)++;
    }
    assert_int_equal(depth, 0);
}

static void test_variations(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    int main_moves = 0;
    read_file(DATA("variations.pgn"), capture_game, &c, &ra);
    assert_string_equal(c.movetext[0],
                        "e4 e5 ( c5 Nf3 ( Nc3 Nc6 ( d6 f4 ) g3 ) d6 ) ( e6 d4 d5 ) Nf3 Nc6 Bb5 ( "
                        "Bc4 Bc5 ( Nf6 Ng5 ( d3 ) ) c3 ) a6");
    read_file(DATA("variations.pgn"), check_depths, &main_moves, &ra);
    assert_int_equal(main_moves, 6); /* e4 e5 Nf3 Nc6 Bb5 a6 */
}

static void test_results_and_several_games(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("results.pgn"), capture_game, &c, &ra);
    assert_int_equal(ra.games, 4);
    assert_string_equal(c.result[0], "1-0");
    assert_string_equal(c.result[1], "0-1");
    assert_string_equal(c.result[2], "1/2-1/2");
    assert_string_equal(c.result[3], "*");
    long lines[4] = {1, 11, 21, 31};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c.line[i], lines[i]);
        assert_int_equal(c.number[i], (size_t)i + 1);
    }
}

static void test_bom_and_crlf(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("bom-crlf.pgn"), capture_game, &c, &ra);
    assert_int_equal(ra.games, 2);
    assert_int_equal(ra.errors, 0);
    /* The byte-order mark is not part of the first tag; CR is white space. */
    assert_true(strncmp(c.tags[0], "Event=BOM and CRLF|", 19) == 0);
    assert_string_equal(c.movetext[0], "f3 e5 g4 {CRLF comment} Qh4#");
    assert_string_equal(c.result[0], "0-1");
    assert_int_equal(c.line[1], 12);
    assert_string_equal(c.movetext[1], "e4");
}

/* Replays the main line of @g; the final FEN into @fen. */
static int replay(const ply_pgn_game_t *g, char *fen, size_t len)
{
    ply_arb_pos_t pos;
    char why[200];
    int rc = ply_pgn_game_start(g, &pos, why, sizeof why);
    if (rc) return rc;
    for (size_t i = 0; i < g->nelems; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        if (e->kind != PLY_PGN_MOVE || e->depth) continue;
        ply_arb_move_t m;
        if ((rc = ply_arb_move_from_san(&pos, e->text, &m, why, sizeof why)))
            fail_msg("game %zu: %s: %s", g->number, e->text, why);
        ply_arb_make(&pos, m);
    }
    ply_arb_to_fen(&pos, fen, len);
    return pos.chess960;
}

typedef struct fens {
    char fen[4][PLY_ARB_FEN_MAX];
    int chess960[4];
    int n;
} fens_t;

static void replay_game(const ply_pgn_game_t *g, void *arg)
{
    fens_t *f = arg;
    if (f->n < 4) {
        f->chess960[f->n] = replay(g, f->fen[f->n], sizeof f->fen[0]);
        f->n++;
    }
}

static void test_setup_fen_and_chess960(void **state)
{
    (void)state;
    fens_t f = {0};
    read_all_t ra;
    /* SetUp/FEN, Black to move first ("30... Nc4"); chess.js: mate after 31. Ra8#. */
    read_file(DATA("setup-fen.pgn"), replay_game, &f, &ra);
    assert_string_equal(f.fen[0], "R5k1/5ppp/8/8/2n5/8/5PPP/6K1 b - - 5 31");
    /* Variant "Chess960" with a Shredder-FEN; Stockfish 15.1 (UCI_Chess960) after
     * e2e4 e7e5 f1c4 f8c5 e1e2 e8e7 h1g3 h8g6 d1g1 d8g8 prints this FEN. */
    memset(&f, 0, sizeof f);
    read_file(DATA("chess960.pgn"), replay_game, &f, &ra);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.fen[0],
                        "nrb2rk1/ppppqppp/6n1/2b1p3/2B1P3/6N1/PPPPQPPP/NRB2RK1 w - - 8 6");
    assert_int_equal(f.chess960[0], 1);
    /* Variant "chess 960" without a FEN: the standard array under Chess960 rules. */
    assert_string_equal(f.fen[1], "rnbq1rk1/ppppppbp/5np1/8/8/5NP1/PPPPPPBP/RNBQ1RK1 w - - 4 5");
    assert_int_equal(f.chess960[1], 1);

    /* Refusals: an unknown variant, SetUp without FEN, a bad FEN tag. */
    ply_pgn_game_t *g = ply_pgn_game_new();
    ply_arb_pos_t pos;
    char why[200];
    assert_int_equal(ply_pgn_game_set_tag(g, "Variant", "Crazyhouse"), 0);
    assert_int_equal(ply_pgn_game_start(g, &pos, why, sizeof why), PLY_EINVAL);
    assert_string_equal(why, "unsupported variant 'Crazyhouse'");
    ply_pgn_game_clear(g);
    assert_int_equal(ply_pgn_game_set_tag(g, "SetUp", "1"), 0);
    assert_int_equal(ply_pgn_game_start(g, &pos, why, sizeof why), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_set_tag(g, "FEN", "8/8/8/8/8/8/8/8 w - - 0 1"), 0);
    assert_int_equal(ply_pgn_game_start(g, &pos, why, sizeof why), PLY_EILLEGAL);
    assert_string_equal(why, "FEN tag: field 1 (placement): no white king");
    ply_pgn_game_clear(g);
    assert_int_equal(ply_pgn_game_set_tag(g, "Variant", "Standard"), 0);
    assert_int_equal(ply_pgn_game_start(g, &pos, why, sizeof why), 0);
    assert_int_equal(pos.chess960, 0);
    ply_pgn_game_destroy(&g);
    assert_null(g);
}

static void test_clock_and_eval_kept(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("clock-eval.pgn"), capture_game, &c, &ra);
    /* The comment text byte for byte, its spaces inside the braces too (issue 30). */
    assert_string_equal(c.movetext[0], "e4 { [%eval 0.17] [%clk 0:03:00] } c5 { [%eval 0.19] [%clk "
                                       "0:02:58] } Nf3 { [%eval 0.25] [%clk 0:03:01] } d6 { [%clk "
                                       "0:02:59] [%eval #-3] }");
}

static void test_broken_games_skipped(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    read_file(DATA("broken.pgn"), NULL, NULL, &ra);
    /* Lines and messages as written in the sample (its comments say which is which). */
    assert_int_equal(ra.games, 6);
    assert_int_equal(ra.errors, 5);
    const size_t games[5] = {2, 4, 6, 8, 10};
    const long lines[5] = {7, 20, 31, 41, 51};
    const char *why[5] = {"tag White: value not closed on its line",
                          "comment opened with '{' on line 20 is not closed",
                          "')' without a '(' before it",
                          "game result 1-0 inside the variation opened on line 41",
                          "NAG out of range (PGN: $0 to $255)"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ra.err_game[i], games[i]);
        assert_int_equal(ra.err_line[i], lines[i]);
        assert_string_equal(ra.err_why[i], why[i]);
    }
    (void)c;
}

static void test_reader_tolerance(void **state)
{
    (void)state;
    capture_t c = {0};
    read_all_t ra;
    /* Move numbers glued to moves, "½-½", a game without a termination marker
     * followed by the next game's tags, and a game with no tags at all. */
    read_text("[Event \"a\"]\n\n1.e4 e5 2.Nf3 2...Nc6 3.Bb5 \xc2\xbd-\xc2\xbd\n\n"
              "[Event \"b\"]\n\n1. d4 d5\n[Event \"c\"]\n1. c4 *\n"
              "1. Nf3 Nf6 *\n",
              capture_game, &c, &ra);
    assert_int_equal(ra.games, 4);
    assert_int_equal(ra.errors, 0);
    assert_string_equal(c.movetext[0], "e4 e5 Nf3 Nc6 Bb5");
    assert_string_equal(c.result[0], "1/2-1/2");
    assert_string_equal(c.movetext[1], "d4 d5");
    assert_string_equal(c.result[1], "(none)");
    assert_string_equal(c.movetext[2], "c4");
    assert_int_equal(c.line[2], 8);
    assert_string_equal(c.movetext[3], "Nf3 Nf6");
    assert_string_equal(c.tags[3], "");
    /* Empty input and white space only: no game. */
    read_text("", NULL, NULL, &ra);
    assert_int_equal(ra.games + ra.errors, 0);
    read_text(" \r\n\n% just an escape line\n", NULL, NULL, &ra);
    assert_int_equal(ra.games + ra.errors, 0);
    /* "exd6 e.p." written apart: the suffix is dropped. */
    memset(&c, 0, sizeof c);
    read_text("1. e4 a6 2. e5 d5 3. exd6 e.p. *", capture_game, &c, &ra);
    assert_string_equal(c.movetext[0], "e4 a6 e5 d5 exd6");
}

/* ------------------------------------------------------------------ writer */

static void test_writer_format(void **state)
{
    (void)state;
    ply_pgn_game_t *g = ply_pgn_game_new();
    assert_non_null(g);
    assert_int_equal(ply_pgn_game_set_tag(g, "White", "Smith, \"J\""), 0);
    assert_int_equal(ply_pgn_game_set_tag(g, "ECO", "C20"), 0);
    assert_int_equal(ply_pgn_game_set_tag(g, "White", "Smith, J"), 0); /* replaces */
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e4", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, "[%clk 0:03:00]", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e5", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_NAG, NULL, 2), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_VAR_START, NULL, 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "c5", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_VAR_END, NULL, 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "Nf3", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_LINE_COMMENT, "the knight", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "Nc6", 0), 0);
    assert_int_equal(ply_pgn_game_set_result(g, "1/2-1/2"), 0);
    /* Errors: bad names, kinds, NAGs, unbalanced variations, bad results. */
    assert_int_equal(ply_pgn_game_set_tag(g, "Bad Name", "x"), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_set_tag(g, "", "x"), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_NAG, NULL, 256), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_VAR_END, NULL, 0), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, NULL, 0), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, "a } b", 0), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_add(g, (ply_pgn_kind_t)9, "x", 0), PLY_EINVAL);
    assert_int_equal(ply_pgn_game_set_result(g, "2-0"), PLY_EINVAL);

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(ply_pgn_write(out, g), 0);
    fclose(out);
    /* PGN 8.1.1: the Seven Tag Roster in order, "?" and "????.??.??" when
     * unknown, Result from the marker; other tags after; escapes; 8.2.2: a
     * Black move after a comment, NAG or variation gets its "N..." number; a ';'
     * comment's text follows the ';' as it is, no space added. */
    assert_string_equal(buf, "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n"
                             "[White \"Smith, J\"]\n[Black \"?\"]\n[Result \"1/2-1/2\"]\n"
                             "[ECO \"C20\"]\n\n"
                             "1. e4 {[%clk 0:03:00]} 1... e5 $2 (1... c5) 2. Nf3 ;the knight\n"
                             "2... Nc6 1/2-1/2\n\n");
    free(buf);

    /* A comment word longer than a line goes out whole and reads back the same. */
    char word[301];
    memset(word, 'w', 300);
    word[300] = 0;
    ply_pgn_game_clear(g);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e4", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, word, 0), 0);
    out = open_memstream(&buf, &len);
    assert_int_equal(ply_pgn_write(out, g), 0);
    fclose(out);
    capture_t c = {0};
    read_all_t ra;
    read_text(buf, capture_game, &c, &ra);
    char want[400];
    snprintf(want, sizeof want, "e4 {%s}", word);
    assert_string_equal(c.movetext[0], want);
    free(buf);
    ply_pgn_game_destroy(&g);
}

/* Issue 30: a comment's text byte for byte, lines of at most 79 characters, [SetUp "1"]
 * before FEN (PGN 9.7.1), no line broken inside a [%...] command nor before a '%'. The
 * layout below follows from those rules and the 79-column limit, counted by hand. */
static void test_writer_issue30(void **state)
{
    (void)state;
    ply_pgn_game_t *g = ply_pgn_game_new();
    assert_non_null(g);
    char line[120];
    snprintf(line, sizeof line, "%s",
             "a rest-of-line comment too long for a line of export "
             "format, which has at most 79 characters");
    assert_true(strlen(line) + 2 > 79);
    assert_int_equal(ply_pgn_game_set_tag(g, "FEN", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"), 0);
    assert_int_equal(ply_pgn_game_set_tag(g, "SetUp", "0"), 0); /* after FEN, and wrong */
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e4", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, "a ( b ) c", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "Kd7", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, "( )", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_LINE_COMMENT, line, 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "Kd2", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT,
                                      "the engine says [%eval 1.56,9] and the clock says "
                                      "after a long long think [%clk 0:01:02] 100 %sure",
                                      0),
                     0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "Kd6", 0), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(ply_pgn_write(out, g), 0);
    fclose(out);
    const char *movetext = strstr(buf, "\n\n");
    assert_non_null(movetext);
    assert_non_null(strstr(buf, "[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - "
                                "0 1\"]\n\n"));
    assert_null(strstr(strstr(buf, "SetUp") + 1, "SetUp"));
    /* The ';' comment became a brace comment; "{the engine says" and "[%eval" would have
     * fitted on the second line, "%sure}" on the fourth's start: each goes whole. */
    assert_string_equal(
        movetext + 2,
        "1. e4 {a ( b ) c} 1... Kd7 {( )} {a rest-of-line comment too long for a line of\n"
        "export format, which has at most 79 characters} 2. Kd2 {the engine says\n"
        "[%eval 1.56,9] and the clock says after a long long think [%clk 0:01:02]\n"
        "100 %sure} 2... Kd6 *\n\n");
    free(buf);
    /* The tester's b.pgn: a word and the '%' word after it are one unit (a line may not
     * start with '%'); a unit that fits a line starts a new one after the word before it,
     * one that cannot fit goes out whole on its own line (73 x's: 1 + 73 + 5 + 1 = 80). */
    char xs[80];
    memset(xs, 'x', 73);
    xs[73] = 0;
    char text[120], want[300];
    for (int whole = 0; whole < 2; whole++) {
        ply_pgn_game_clear(g);
        snprintf(text, sizeof text, "%s%s %%pct", whole ? "" : "aaaa ", whole ? xs : xs + 5);
        assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e4", 0), 0);
        assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, text, 0), 0);
        assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e5", 0), 0);
        out = open_memstream(&buf, &len);
        assert_int_equal(ply_pgn_write(out, g), 0);
        fclose(out);
        snprintf(want, sizeof want,
                 whole ? "\n\n1. e4\n{%s %%pct}\n1... e5 *\n\n"
                       : "\n\n1. e4 {aaaa\n%s %%pct} 1...\ne5 *\n\n",
                 whole ? xs : xs + 5);
        if (!strstr(buf, want)) fail_msg("got:\n%s\nwant the end:%s", buf, want);
        free(buf);
    }
    /* A line end in a comment built in memory goes out as a space, inside a command too. */
    ply_pgn_game_clear(g);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_MOVE, "e4", 0), 0);
    assert_int_equal(ply_pgn_game_add(g, PLY_PGN_COMMENT, "[%eval\n0.17]\nok", 0), 0);
    out = open_memstream(&buf, &len);
    assert_int_equal(ply_pgn_write(out, g), 0);
    fclose(out);
    assert_non_null(strstr(buf, "\n\n1. e4 {[%eval 0.17] ok} *\n\n"));
    free(buf);
    ply_pgn_game_destroy(&g);

    /* The reader keeps a comment's bytes: spaces, tabs, a CRLF read as one space. */
    capture_t c = {0};
    read_all_t ra;
    read_text("1. e4 {  a\t( b )\r\n  c } e5 {}\n{x\ny} *", capture_game, &c, &ra);
    assert_string_equal(c.movetext[0], "e4 {  a\t( b )   c } e5 {} {x y}");
}

/* Write each game, read it back: the same tags, elements and result. */
typedef struct rt {
    int games;
} rt_t;

static void round_trip_game(const ply_pgn_game_t *g, void *arg)
{
    rt_t *rt = arg;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(ply_pgn_write(out, g), 0);
    fclose(out);
    /* Export format keeps lines short (PGN 8.2.3: at most 79 characters here). */
    for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1)
        if (nl - p > 79 && p[0] != '[') fail_msg("line of %d characters", (int)(nl - p));
    capture_t a = {0}, b = {0};
    capture_game(g, &a);
    read_all_t ra;
    read_text(buf, capture_game, &b, &ra);
    assert_int_equal(ra.games, 1);
    assert_string_equal(a.movetext[0], b.movetext[0]);
    /* Tags: the roster may gain "?" entries, every original tag is kept. */
    for (size_t i = 0; i < g->ntags; i++) {
        char want[600];
        snprintf(want, sizeof want, "%s=%s|", g->tags[i].name, g->tags[i].value);
        if (!strstr(b.tags[0], want)) fail_msg("tag %s lost: %s", want, b.tags[0]);
    }
    if (g->result) assert_string_equal(a.result[0], b.result[0]);
    free(buf);
    rt->games++;
}

static void test_writer_round_trip(void **state)
{
    (void)state;
    const char *files[] = {"tags-escapes.pgn", "comments.pgn",   "escape-lines.pgn",
                           "nags.pgn",         "variations.pgn", "results.pgn",
                           "bom-crlf.pgn",     "setup-fen.pgn",  "chess960.pgn",
                           "clock-eval.pgn",   "opera.pgn",      "arbiter-mixed.pgn"};
    rt_t rt = {0};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        read_all_t ra;
        snprintf(path, sizeof path, "%s/pgn/%s", PLY_TEST_DATA, files[i]);
        read_file(path, round_trip_game, &rt, &ra);
    }
    assert_int_equal(rt.games, 25);

    /* The variations come out in export format, numbers and all. */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    FILE *in = fopen(DATA("variations.pgn"), "rb");
    ply_pgn_reader_t *r = ply_pgn_reader_new(in);
    const ply_pgn_game_t *g;
    assert_int_equal(ply_pgn_read(r, &g, NULL), 1);
    ply_pgn_write(out, g);
    fclose(out);
    ply_pgn_reader_destroy(&r);
    fclose(in);
    for (char *p = strchr(buf, '\n'); p; p = strchr(p, '\n')) *p = ' ';
    assert_non_null(strstr(buf,
                           "1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6 (2... d6 3. f4) 3. g3) 2... d6) "
                           "(1... e6 2. d4 d5) 2. Nf3 Nc6 3. Bb5 (3. Bc4 Bc5 (3... Nf6 4. Ng5 "
                           "(4. d3)) 4. c3) 3... a6 *"));
    free(buf);
}

/* ------------------------------------------------------ ply_arb_pgn_position */

static void test_pgn_position(void **state)
{
    (void)state;
    char fen[PLY_ARB_FEN_MAX], why[400];
    int c960 = -1;
    assert_int_equal(
        ply_arb_pgn_position(DATA("opera.pgn"), 1, 0, fen, sizeof fen, &c960, why, sizeof why), 0);
    assert_string_equal(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_int_equal(c960, 0);
    /* chess.js 1.4.0 after the 33 plies of the Opera game. */
    assert_int_equal(
        ply_arb_pgn_position(DATA("opera.pgn"), 1, 33, fen, sizeof fen, NULL, why, sizeof why), 0);
    assert_string_equal(fen, "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17");
    assert_int_equal(
        ply_arb_pgn_position(DATA("opera.pgn"), 1, 34, fen, sizeof fen, NULL, why, sizeof why),
        PLY_ENOTFOUND);
    assert_string_equal(why, "game 1 has 33 plies, not 34");
    assert_int_equal(
        ply_arb_pgn_position(DATA("opera.pgn"), 2, 0, fen, sizeof fen, NULL, why, sizeof why),
        PLY_ENOTFOUND);
    assert_non_null(strstr(why, "has 1 game, not 2"));
    assert_int_equal(
        ply_arb_pgn_position(DATA("chess960.pgn"), 1, 10, fen, sizeof fen, &c960, why, sizeof why),
        0);
    assert_string_equal(fen, "nrb2rk1/ppppqppp/6n1/2b1p3/2B1P3/6N1/PPPPQPPP/NRB2RK1 w - - 8 6");
    assert_int_equal(c960, 1);
    assert_int_equal(
        ply_arb_pgn_position(DATA("broken.pgn"), 4, 0, fen, sizeof fen, NULL, why, sizeof why),
        PLY_EPARSE);
    assert_non_null(strstr(why, "game 4 (line 20) cannot be read"));
    assert_int_equal(
        ply_arb_pgn_position(DATA("broken.pgn"), 5, 1, fen, sizeof fen, NULL, why, sizeof why), 0);
    assert_int_equal(ply_arb_pgn_position(DATA("arbiter-mixed.pgn"), 2, 5, fen, sizeof fen, NULL,
                                          why, sizeof why),
                     PLY_EILLEGAL);
    assert_string_equal(why, "game 2, ply 5 ('Nb5', line 21): illegal: king would be in check");
    assert_int_equal(ply_arb_pgn_position(DATA("no-such-file.pgn"), 1, 0, fen, sizeof fen, NULL,
                                          why, sizeof why),
                     PLY_EIO);
    assert_int_equal(
        ply_arb_pgn_position(DATA("opera.pgn"), 0, 0, fen, sizeof fen, NULL, why, sizeof why),
        PLY_EINVAL);
}

/* ---------------------------------------------------------------------- fuzz */

/* Reads @len bytes as PGN to the end: every call returns, and every game
 * either reads or is reported. The loop bound catches a reader that would
 * stop making progress. */
static void fuzz_one(const char *buf, size_t len)
{
    FILE *f = fmemopen((void *)buf, len ? len : 1, "rb");
    assert_non_null(f);
    if (!len) fgetc(f); /* an empty stream */
    ply_pgn_reader_t *r = ply_pgn_reader_new(f);
    const ply_pgn_game_t *g;
    ply_pgn_error_t err;
    size_t calls = 0;
    int rc;
    while ((rc = ply_pgn_read(r, &g, &err)) != 0) {
        assert_true(rc == 1 || rc == PLY_EPARSE);
        if (rc == 1) {
            char fen[PLY_ARB_FEN_MAX];
            ply_arb_pos_t pos;
            if (ply_pgn_game_start(g, &pos, NULL, 0) == 0) /* replay what reads */
                for (size_t i = 0; i < g->nelems; i++) {
                    ply_arb_move_t m;
                    if (g->elems[i].kind != PLY_PGN_MOVE || g->elems[i].depth) continue;
                    if (ply_arb_move_from_san(&pos, g->elems[i].text, &m, NULL, 0)) break;
                    ply_arb_make(&pos, m);
                }
            (void)fen;
        } else {
            assert_true(err.line >= 1 && err.why[0]);
        }
        assert_true(++calls <= len + 2);
    }
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

static void test_reader_fuzz(void **state)
{
    (void)state;
    static const char tokens[] = "[]{}()\";%$!?.*-/ \n\r\\ePNBRQK0123456789abcdefghxO=+#";
    const char *files[] = {"opera.pgn",  "variations.pgn",   "comments.pgn",
                           "broken.pgn", "tags-escapes.pgn", "bom-crlf.pgn"};
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    for (int iter = 0; iter < 20000; iter++) {
        size_t len;
        if (iter % 3 == 0) { /* random bytes */
            len = rnd(3000);
            for (size_t i = 0; i < len; i++) buf[i] = (char)rnd(256);
        } else if (iter % 3 == 1) { /* random PGN-ish characters */
            len = rnd(3000);
            for (size_t i = 0; i < len; i++) buf[i] = tokens[rnd(sizeof tokens - 1)];
        } else { /* a sample with a few bytes changed, dropped or doubled */
            char path[512];
            snprintf(path, sizeof path, "%s/pgn/%s", PLY_TEST_DATA,
                     files[rnd(sizeof files / sizeof *files)]);
            FILE *f = fopen(path, "rb");
            assert_non_null(f);
            len = fread(buf, 1, (1 << 15), f);
            fclose(f);
            for (int k = (int)rnd(6) + 1; k > 0 && len > 1; k--) {
                size_t at = rnd((uint32_t)len);
                switch (rnd(3)) {
                case 0:
                    buf[at] = tokens[rnd(sizeof tokens - 1)];
                    break;
                case 1:
                    memmove(buf + at, buf + at + 1, len - at - 1), len--;
                    break;
                default:
                    memmove(buf + at + 1, buf + at, len - at), len++;
                    break;
                }
            }
        }
        fuzz_one(buf, len);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags_and_escapes),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_escape_lines),
        cmocka_unit_test(test_nags),
        cmocka_unit_test(test_variations),
        cmocka_unit_test(test_results_and_several_games),
        cmocka_unit_test(test_bom_and_crlf),
        cmocka_unit_test(test_setup_fen_and_chess960),
        cmocka_unit_test(test_clock_and_eval_kept),
        cmocka_unit_test(test_broken_games_skipped),
        cmocka_unit_test(test_reader_tolerance),
        cmocka_unit_test(test_writer_format),
        cmocka_unit_test(test_writer_issue30),
        cmocka_unit_test(test_writer_round_trip),
        cmocka_unit_test(test_pgn_position),
        cmocka_unit_test(test_reader_fuzz),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("arbiter_pgn", tests, NULL, NULL);
}
