/*
 * Unit tests of the arbiter's SAN writer and reader (common/arbiter/san.c;
 * FIDE Laws Appendix E, RULES.md "Notation").
 *
 * Sources of the expected values:
 *   - Appendix E of the seeds (shared/seeds/001_e4f71faabdbc34fe.txt): the
 *     disambiguation examples of E.9 (Ngf3/Nef3, N5f3/N1f3, Nhf3/Ndf3), the
 *     capture and promotion forms of E.8, E.10, E.11, the abbreviations
 *     0-0, 0-0-0, x, +, #, e.p.;
 *   - the issue's list of accepted forms and its messages ("ambiguous: Nbd2 or
 *     Nfd2", "illegal: king would be in check", "no piece can reach e5");
 *   - chess.js 1.4.0 (npm), an independent implementation: every legal move
 *     of 437 positions as chess.js writes it (tests/data/pgn/san-chessjs.tsv,
 *     see PROVENANCE.md); long algebraic and the FIDE spelling derived from
 *     it by the rules of each form;
 *   - the round trip: for every legal move of many random positions
 *     (standard and Chess960, played with the arbiter itself), reading what
 *     the writer wrote gives the same move, and no two moves share a text.
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
#include "arbiter/san.h"
#include "util/error.h"
#include "test_rng.h"

#define DATA(name) PLY_TEST_DATA "/" name

static void load(ply_arb_pos_t *pos, const char *fen, unsigned flags)
{
    char why[200];
    int rc = ply_arb_from_fen(pos, fen, flags, why, sizeof why);
    if (rc) fail_msg("bad test FEN %s: %s", fen, why);
}

/* The SAN of the move written @uci in @fen. */
static void expect_san(const char *fen, const char *uci, const char *want)
{
    ply_arb_pos_t pos;
    ply_arb_move_t m;
    char buf[PLY_ARB_SAN_MAX];
    load(&pos, fen, 0);
    if (ply_arb_move_from_uci(&pos, uci, &m)) fail_msg("%s is not legal in %s", uci, fen);
    int n = ply_arb_move_to_san(&pos, m, buf, sizeof buf);
    assert_true(n > 0);
    if (strcmp(buf, want)) fail_msg("%s in %s: wrote %s, expected %s", uci, fen, buf, want);
}

/* Reading @text in @fen gives the move written @uci. */
static void expect_read(const char *fen, unsigned flags, const char *text, const char *uci)
{
    ply_arb_pos_t pos;
    ply_arb_move_t m;
    char why[200] = "", got[8];
    load(&pos, fen, flags);
    int rc = ply_arb_move_from_san(&pos, text, &m, why, sizeof why);
    if (rc) fail_msg("'%s' in %s: rejected (%s): %s", text, fen, ply_err_name(rc), why);
    ply_arb_move_to_uci(&pos, m, got);
    if (strcmp(got, uci)) fail_msg("'%s' in %s: read as %s, expected %s", text, fen, got, uci);
}

/* Reading @text in @fen fails with @err and a message starting with @msg. */
static void expect_reject(const char *fen, const char *text, int err, const char *msg)
{
    ply_arb_pos_t pos;
    ply_arb_move_t m;
    char why[200] = "";
    load(&pos, fen, 0);
    int rc = ply_arb_move_from_san(&pos, text, &m, why, sizeof why);
    if (rc != err)
        fail_msg("'%s' in %s: %s (%s), expected %s", text, fen, ply_err_name(rc), why,
                 ply_err_name(err));
    if (strncmp(why, msg, strlen(msg)))
        fail_msg("'%s' in %s: message '%s', expected '%s...'", text, fen, why, msg);
}

#define START   "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define E9_1    "4k3/8/8/8/8/8/8/4N1NK w - - 0 1"     /* knights e1, g1 */
#define E9_2    "4k3/8/8/6N1/8/8/8/6NK w - - 0 1"     /* knights g5, g1 */
#define E9_3    "4k3/8/8/8/3N4/8/7N/7K w - - 0 1"     /* knights d4, h2 */
#define QUEENS3 "8/2k5/8/8/4Q2Q/8/8/K6Q w - - 0 1"    /* queens e4, h4, h1 */
#define PINNED  "4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1" /* Nc3 pinned by Bb4 */
#define PROMO   "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1"
#define CASTLE  "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"

/* ------------------------------------------------------------------ writer */

static void test_writer_appendix_e(void **state)
{
    (void)state;
    /* E.7: piece letter and arrival square; pawns: the square only (E.3). */
    expect_san(START, "g1f3", "Nf3");
    expect_san(START, "e2e4", "e4");
    /* E.9 (1): same rank, the departure file. */
    expect_san(E9_1, "g1f3", "Ngf3");
    expect_san(E9_1, "e1f3", "Nef3");
    /* E.9 (2): same file, the departure rank. */
    expect_san(E9_2, "g5f3", "N5f3");
    expect_san(E9_2, "g1f3", "N1f3");
    /* E.9 (3): neither: the file is preferred. */
    expect_san(E9_3, "h2f3", "Nhf3");
    expect_san(E9_3, "d4f3", "Ndf3");
    /* E.9 with a capture: "x" between (b) and (c). */
    expect_san("4k3/8/8/8/8/5p2/8/4N1NK w - - 0 1", "g1f3", "Ngxf3");
    /* Both file and rank when needed (RULES.md: Qh4e1 with three queens). */
    expect_san(QUEENS3, "h4e1", "Qh4e1");
    expect_san(QUEENS3, "e4e1", "Qee1");
    expect_san(QUEENS3, "h1e1", "Q1e1");
    /* A pinned rival cannot move there: no disambiguation (the issue, item 1). */
    expect_san(PINNED, "g1e2", "Ne2");
    /* E.10: pawn captures name the departure file. */
    expect_san("4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1", "c4d5", "cxd5");
    expect_san("4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1", "e4d5", "exd5");
    /* E.8: en passant is written as the capture it is (PGN adds no "e.p."). */
    expect_san("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", "exd6");
    /* E.11 in the PGN spelling: "=" before the piece; check marks after. */
    expect_san(PROMO, "e7e8q", "e8=Q+"); /* the new queen sees h8 along the rank */
    expect_san(PROMO, "e7d8n", "exd8=N");
    expect_san(PROMO, "e7d8q", "exd8=Q+");
    expect_san(PROMO, "e7e8r", "e8=R+");
    expect_san(PROMO, "e7e8b", "e8=B");
    /* Castling in the PGN spelling of 0-0 / 0-0-0. */
    expect_san(CASTLE, "e1g1", "O-O");
    expect_san(CASTLE, "e1c1", "O-O-O");
    /* Check "+" and checkmate "#", computed after the move. */
    expect_san("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4", "Qh4#");
    expect_san("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "a1a8", "Ra8+");
    expect_san("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1", "O-O-O");

    /* Errors: an illegal move, a short buffer, NULL arguments. */
    ply_arb_pos_t pos;
    ply_arb_move_t m = {12, 36, 0, 0}; /* e2e5 */
    char buf[PLY_ARB_SAN_MAX];
    load(&pos, START, 0);
    assert_int_equal(ply_arb_move_to_san(&pos, m, buf, sizeof buf), PLY_EILLEGAL);
    m.to = 28; /* e2e4 */
    assert_int_equal(ply_arb_move_to_san(&pos, m, buf, 2), PLY_ERANGE);
    assert_int_equal(ply_arb_move_to_san(NULL, m, buf, sizeof buf), PLY_EINVAL);
    assert_int_equal(ply_arb_move_to_san(&pos, m, buf, sizeof buf), 2);
    assert_string_equal(buf, "e4");
}

static void test_writer_chess960(void **state)
{
    (void)state;
    ply_arb_pos_t pos;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    char buf[PLY_ARB_SAN_MAX];
    /* King b1, rooks a1 and g1: both castles, named by the king's destination
     * (RULES.md art. 3 Chess960: g/c files). */
    load(&pos, "7k/8/8/8/8/8/8/RK4R1 w GA - 0 1", PLY_ARB_CHESS960);
    int n = ply_arb_legal_moves(&pos, mv), castles = 0;
    for (int i = 0; i < n; i++) {
        if (!(mv[i].flags & PLY_ARB_MOVE_CASTLE)) continue;
        castles++;
        assert_true(ply_arb_move_to_san(&pos, mv[i], buf, sizeof buf) > 0);
        assert_string_equal(buf, (mv[i].to & 7) == 6 ? "O-O" : "O-O-O");
    }
    assert_int_equal(castles, 2);
    /* King f1 and rook h1: "Kg1" is the king step, "O-O" the castle, both to g1. */
    load(&pos, "k7/8/8/8/8/8/8/5K1R w H - 0 1", PLY_ARB_CHESS960);
    n = ply_arb_legal_moves(&pos, mv);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (mv[i].to != 6 || mv[i].from != 5) continue; /* the king, f1 to g1 */
        ply_arb_move_to_san(&pos, mv[i], buf, sizeof buf);
        assert_string_equal(buf, (mv[i].flags & PLY_ARB_MOVE_CASTLE) ? "O-O" : "Kg1");
        seen++;
    }
    assert_int_equal(seen, 2);
    expect_read("k7/8/8/8/8/8/8/5K1R w H - 0 1", PLY_ARB_CHESS960, "Kg1", "f1g1");
    expect_read("k7/8/8/8/8/8/8/5K1R w H - 0 1", PLY_ARB_CHESS960, "O-O", "f1h1");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every legal move of 437 positions, as chess.js 1.4.0 writes them. */
static void test_writer_against_chessjs(void **state)
{
    (void)state;
    FILE *f = fopen(DATA("pgn/san-chessjs.tsv"), "r");
    assert_non_null(f);
    char line[8192];
    int positions = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        char *list = tab + 1;
        list[strcspn(list, "\r\n")] = 0;
        ply_arb_pos_t pos;
        ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
        load(&pos, line, 0);
        int n = ply_arb_legal_moves(&pos, mv);
        char san[PLY_ARB_MAX_MOVES][PLY_ARB_SAN_MAX], *ptr[PLY_ARB_MAX_MOVES];
        for (int i = 0; i < n; i++) {
            assert_true(ply_arb_move_to_san(&pos, mv[i], san[i], sizeof san[i]) > 0);
            ptr[i] = san[i];
        }
        qsort(ptr, (size_t)n, sizeof *ptr, cmp_str);
        char mine[8192] = "";
        for (int i = 0; i < n; i++) {
            if (i) strcat(mine, " ");
            strcat(mine, ptr[i]);
        }
        if (strcmp(mine, list)) fail_msg("%s:\n ply:      %s\n chess.js: %s", line, mine, list);
        positions++;
    }
    fclose(f);
    assert_int_equal(positions, 437);
}

/*
 * Long algebraic and the FIDE spelling (issue 30, item 7), for every legal move of the 437
 * positions, derived from chess.js's SAN of the move by the rules of each form: LAN is
 * chess.js's piece letter, the departure square, "x" when chess.js writes one (else "-"),
 * the arrival square, its promotion and its check mark, castling as chess.js writes it;
 * FIDE is chess.js's SAN without the "=" of a promotion (E.11: "d8Q") and castling with
 * zeros (E: "0-0", "0-0-0"). Each form reads back to the move.
 */
static void test_lan_and_fide_against_chessjs(void **state)
{
    (void)state;
    FILE *f = fopen(DATA("pgn/san-chessjs.tsv"), "r");
    assert_non_null(f);
    char line[8192];
    int positions = 0, moves = 0, promotions = 0, castles = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        char *list = tab + 1, *save = NULL;
        list[strcspn(list, "\r\n")] = 0;
        ply_arb_pos_t pos;
        load(&pos, line, 0);
        for (char *js = strtok_r(list, " ", &save); js; js = strtok_r(NULL, " ", &save)) {
            ply_arb_move_t m, back;
            char why[160], lan[PLY_ARB_SAN_MAX], fide[PLY_ARB_SAN_MAX], want[32];
            if (ply_arb_move_from_san(&pos, js, &m, why, sizeof why)) fail_msg("%s: %s", js, why);
            assert_true(ply_arb_move_to_text(&pos, m, PLY_ARB_NOTATION_LAN, lan, sizeof lan) > 0);
            assert_true(ply_arb_move_to_text(&pos, m, PLY_ARB_NOTATION_FIDE, fide, sizeof fide) >
                        0);
            if (!strncmp(js, "O-O", 3)) {
                snprintf(want, sizeof want, "%s", js);
                castles++;
            } else {
                /* the arrival square: the last file letter followed by a rank */
                const char *to = NULL;
                for (const char *p = js; *p; p++)
                    if (*p >= 'a' && *p <= 'h' && p[1] >= '1' && p[1] <= '8') to = p;
                assert_non_null(to);
                char piece[2] = {js[0] >= 'A' && js[0] <= 'Z' ? js[0] : 0, 0};
                snprintf(want, sizeof want, "%s%c%c%c%s", piece, 'a' + (m.from & 7),
                         '1' + (m.from >> 3), strchr(js, 'x') ? 'x' : '-', to);
            }
            if (strcmp(lan, want)) fail_msg("%s: %s LAN %s, expected %s", line, js, lan, want);
            /* FIDE: chess.js's SAN, "=" dropped, castling with zeros */
            size_t k = 0;
            for (const char *p = js; *p && k + 1 < sizeof want; p++) {
                if (*p == '=') {
                    promotions++;
                    continue;
                }
                want[k++] = !strncmp(js, "O-O", 3) && *p == 'O' ? '0' : *p;
            }
            want[k] = 0;
            if (strcmp(fide, want)) fail_msg("%s: %s FIDE %s, expected %s", line, js, fide, want);
            for (int form = 0; form < 2; form++) {
                const char *text = form ? fide : lan;
                if (ply_arb_move_from_san(&pos, text, &back, why, sizeof why))
                    fail_msg("%s: %s does not read back: %s", line, text, why);
                assert_true(back.from == m.from && back.to == m.to && back.promo == m.promo);
            }
            moves++;
        }
        positions++;
    }
    fclose(f);
    assert_int_equal(positions, 437);
    /* the forms that differ were there to check */
    assert_true(moves > 10000 && promotions > 0 && castles > 0);
    print_message("%d moves, %d promotions, %d castlings\n", moves, promotions, castles);
}

/* ------------------------------------------------------------------ reader */

static void test_reader_accepts(void **state)
{
    (void)state;
    /* The forms of item 1 of the issue and of Appendix E. */
    const char *nf3[] = {"Nf3",
                         "Ngf3",
                         "N1f3",
                         "Ng1f3",
                         "Ng1-f3",
                         "g1f3",
                         "g1-f3",
                         "Nf3+",
                         "Nf3!?",
                         "Nf3 (=)",
                         " Nf3 ",
                         "\xe2\x99\x98"
                         "f3" /* white knight figurine */,
                         "\xe2\x99\x9e"
                         "f3" /* black knight figurine */,
                         "Ng1xf3"};
    for (size_t i = 0; i < sizeof nf3 / sizeof *nf3; i++) expect_read(START, 0, nf3[i], "g1f3");
    const char *e4[] = {"e4",
                        "Pe4",
                        "e2-e4",
                        "e2e4",
                        "e2\xe2\x80\x93"
                        "e4" /* en dash */,
                        "\xe2\x99\x99"
                        "e4" /* pawn figurine */,
                        "e4!",
                        "e4??"};
    for (size_t i = 0; i < sizeof e4 / sizeof *e4; i++) expect_read(START, 0, e4[i], "e2e4");

    /* Captures: "x", the multiplication sign of E.8, ":" or nothing. */
    const char *cap = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
    const char *exd5[] = {"exd5",
                          ("e\xc3\x97" /* U+00D7, split so that \x97 does not swallow the d */
                           "d5"),
                          "ed5",
                          "e:d5",
                          "e4xd5",
                          "e4d5"};
    for (size_t i = 0; i < sizeof exd5 / sizeof *exd5; i++) expect_read(cap, 0, exd5[i], "e4d5");
    const char *bxe5[] = {"Bxe5",
                          "B\xc3\x97"
                          "e5",
                          "Be5",
                          "B:e5",
                          "Bc3xe5",
                          "\xe2\x99\x97"
                          "xe5"};
    for (size_t i = 0; i < sizeof bxe5 / sizeof *bxe5; i++)
        expect_read("4k3/8/8/4p3/8/2B5/8/4K3 w - - 0 1", 0, bxe5[i], "c3e5");
}

static void test_reader_accepts_more(void **state)
{
    (void)state;
    /* E.8: en passant, with or without the "e.p." suffix. */
    const char *ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    const char *exf6[] = {"exf6", "exf6 e.p.", "exf6e.p.", "e5f6", "e5xf6", "exf6+"};
    for (size_t i = 0; i < sizeof exf6 / sizeof *exf6; i++) expect_read(ep, 0, exf6[i], "e5f6");

    /* Castling: FIDE's zeros, PGN's letter O, the seeds' lower-case o, UCI. */
    const char *short_c[] = {"O-O", "0-0", "o-o", "O-O+", "e1g1", "e1h1", "Ke1g1"};
    for (size_t i = 0; i < sizeof short_c / sizeof *short_c; i++)
        expect_read(CASTLE, 0, short_c[i], "e1g1");
    const char *long_c[] = {"O-O-O", "0-0-0", "o-o-o", "e1c1", "e1a1"};
    for (size_t i = 0; i < sizeof long_c / sizeof *long_c; i++)
        expect_read(CASTLE, 0, long_c[i], "e1c1");

    /* Promotion: E.11's d8Q, PGN's d8=Q, and what files contain. */
    const char *e8q[] = {"e8=Q",  "e8Q",   "e8=q",    "e8(Q)", "e8/Q",
                         "e7e8q", "e7e8Q", "e7-e8=Q", "e8=Q+"};
    for (size_t i = 0; i < sizeof e8q / sizeof *e8q; i++) expect_read(PROMO, 0, e8q[i], "e7e8q");
    expect_read(PROMO, 0, "exd8=N", "e7d8n");
    expect_read(PROMO, 0, "exd8N", "e7d8n");
    expect_read(PROMO, 0, "ed8R", "e7d8r");
    expect_read(PROMO, 0, "e8=B", "e7e8b");

    /* Disambiguation, necessary or not (E.9). */
    expect_read(E9_1, 0, "Ngf3", "g1f3");
    expect_read(E9_1, 0, "Nef3", "e1f3");
    expect_read(E9_2, 0, "N5f3", "g5f3");
    expect_read(E9_2, 0, "N1f3", "g1f3");
    expect_read(E9_3, 0, "Nhf3", "h2f3");
    expect_read(E9_3, 0, "Nh2f3", "h2f3");
    expect_read(QUEENS3, 0, "Qh4e1", "h4e1");
    expect_read(QUEENS3, 0, "Qee1", "e4e1");
    expect_read(QUEENS3, 0, "Q1e1", "h1e1");
    expect_read(QUEENS3, 0, "Qh1e1", "h1e1");
    /* A pinned rival does not make "Ne2" ambiguous. */
    expect_read(PINNED, 0, "Ne2", "g1e2");
}

static void test_reader_rejects(void **state)
{
    (void)state;
    /* The issue's three messages. */
    expect_reject("rnbqkbnr/pppppppp/8/8/8/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 1", "Nd2", PLY_EILLEGAL,
                  "ambiguous: Nbd2 or Nfd2");
    expect_reject("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "Ke2", PLY_EILLEGAL,
                  "illegal: king would be in check");
    expect_reject(START, "Ne5", PLY_EILLEGAL, "no piece can reach e5");
    /* Art. 3.9: a pinned piece (the king would be exposed). */
    expect_reject(PINNED, "Nce2", PLY_EILLEGAL, "illegal: king would be in check");
    expect_reject(PINNED, "Nb5", PLY_EILLEGAL, "illegal: king would be in check");
    /* Other ambiguities: three queens, a promotion without its piece (3.7(e)). */
    expect_reject(QUEENS3, "Qe1", PLY_EILLEGAL, "ambiguous: Q1e1, Qee1 or Qh4e1");
    expect_reject(PROMO, "e8", PLY_EILLEGAL, "ambiguous: e8=Q, e8=R, e8=B or e8=N");
    expect_reject(E9_1, "Nf3", PLY_EILLEGAL, "ambiguous: Nef3 or Ngf3");
    /* Nothing of that kind gets there. */
    expect_reject(START, "Bb5", PLY_EILLEGAL, "no piece can reach b5");
    expect_reject(START, "e5", PLY_EILLEGAL, "no piece can reach e5");
    expect_reject(START, "exd3", PLY_EILLEGAL, "no piece can reach d3");
    expect_reject(E9_1, "Nbf3", PLY_EILLEGAL, "no piece can reach f3 from the b-file");
    expect_reject(E9_1, "N5f3", PLY_EILLEGAL, "no piece can reach f3 from rank 5");
    expect_reject(START, "e3e4", PLY_EILLEGAL, "no piece can reach e4 from e3");
    expect_reject(START, "e4=Q", PLY_EILLEGAL, "illegal: a move to e4 is not a promotion");
    /* Castling (art. 3.8): no right, out of check, through check, into check,
     * pieces in between. */
    expect_reject("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1", "O-O", PLY_EILLEGAL,
                  "illegal: O-O without the right to castle");
    expect_reject("r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1", "O-O", PLY_EILLEGAL,
                  "illegal: O-O out of check");
    expect_reject("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1", "O-O", PLY_EILLEGAL,
                  "illegal: O-O would take the king across an attacked square");
    expect_reject("r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1", "0-0", PLY_EILLEGAL,
                  "illegal: king would be in check");
    expect_reject(START, "O-O-O", PLY_EILLEGAL,
                  "illegal: O-O-O with a piece between the king and the rook");
    expect_reject(START, "e1g1", PLY_EILLEGAL,
                  "illegal: O-O with a piece between the king and the rook");

    /* Malformed text. */
    /* Appendix E.8: a pawn capture names its file; without it, it reads as a push (issue 14:
     * "d6" and "xf6" were taken as captures). */
    const char *cap = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2";
    expect_reject(cap, "d5", PLY_EPARSE,
                  "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): exd5");
    expect_reject(cap, "xd5", PLY_EPARSE,
                  "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): exd5");
    expect_reject(cap, "Pxd5", PLY_EPARSE,
                  "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): exd5");
    /* two pawns can take on d5: both named */
    expect_reject(
        "4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1", "xd5", PLY_EPARSE,
        "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): cxd5 or exd5");
    /* en passant too */
    expect_reject("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "d6", PLY_EPARSE,
                  "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): exd6");
    expect_reject(START, "", PLY_EPARSE, "malformed: empty move");
    expect_reject(START, "+!?", PLY_EPARSE, "malformed: empty move");
    expect_reject(START, "Nz9", PLY_EPARSE, "malformed: 'Nz9' does not end with a square");
    expect_reject(START, "e9", PLY_EPARSE, "malformed: 'e9' does not end with a square");
    expect_reject(START, "N", PLY_EPARSE, "malformed: 'N' does not end with a square");
    expect_reject(START, "Nf3x", PLY_EPARSE, "malformed: 'Nf3x' does not end with a square");
    expect_reject(START, "Xe4", PLY_EPARSE, "malformed: unexpected 'X' in 'Xe4'");
    expect_reject(START, "Nbb1f3", PLY_EPARSE, "malformed: unexpected 'b' in 'Nbb1f3'");
    expect_reject(START, "nf3", PLY_EPARSE, "malformed: unexpected 'n' in 'nf3'");
    expect_reject(PROMO, "e8=K", PLY_EPARSE, "malformed: a pawn promotes to a queen");
    expect_reject(START, "Ne2=Q", PLY_EPARSE, "malformed: only a pawn promotes");
    expect_reject(START, "--", PLY_EPARSE, "malformed: '--' is a null move");
    expect_reject(START, "Nf3 Nc6", PLY_EPARSE, "malformed: 'Nf3 Nc6' contains a space");
    expect_reject(START, "O-O-O-O", PLY_EPARSE, "malformed:");
    expect_reject(START, "\xff\xfe", PLY_EPARSE, "malformed: unexpected byte 0xff");
    expect_reject(START, "e\t4", PLY_EPARSE, "malformed: control byte 0x09");
    expect_reject(START, "Nf3aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", PLY_EPARSE,
                  "malformed: too long");

    ply_arb_pos_t pos;
    ply_arb_move_t m;
    load(&pos, START, 0);
    assert_int_equal(ply_arb_move_from_san(NULL, "e4", &m, NULL, 0), PLY_EINVAL);
    assert_int_equal(ply_arb_move_from_san(&pos, NULL, &m, NULL, 0), PLY_EINVAL);
    assert_int_equal(ply_arb_move_from_san(&pos, "e4", NULL, NULL, 0), PLY_EINVAL);
    assert_int_equal(ply_arb_move_from_san(&pos, "e5", &m, NULL, 0), PLY_EILLEGAL); /* why NULL */
}

/* ------------------------------------------------------------- round trips */

static int same_move(ply_arb_move_t a, ply_arb_move_t b)
{
    return a.from == b.from && a.to == b.to && a.promo == b.promo &&
           (a.flags & PLY_ARB_MOVE_CASTLE) == (b.flags & PLY_ARB_MOVE_CASTLE);
}

/* Every legal move of @pos: write, read back, same move; all texts distinct. */
static int round_trip_position(const ply_arb_pos_t *pos)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    char san[PLY_ARB_MAX_MOVES][PLY_ARB_SAN_MAX], why[200];
    int n = ply_arb_legal_moves(pos, mv);
    for (int i = 0; i < n; i++) {
        assert_true(ply_arb_move_to_san(pos, mv[i], san[i], sizeof san[i]) > 0);
        ply_arb_move_t back;
        int rc = ply_arb_move_from_san(pos, san[i], &back, why, sizeof why);
        if (rc || !same_move(back, mv[i])) {
            char fen[PLY_ARB_FEN_MAX];
            ply_arb_to_fen(pos, fen, sizeof fen);
            fail_msg("%s: '%s' does not read back (%s)", fen, san[i], rc ? why : "other move");
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(san[i], san[j])) fail_msg("two moves written '%s'", san[i]);
    }
    return n;
}

/* Random games from @start; returns the number of positions checked. */
static long random_games(const ply_arb_pos_t *start, int games, int max_plies, long *moves)
{
    long positions = 0;
    for (int g = 0; g < games; g++) {
        ply_arb_pos_t pos = *start;
        for (int ply = 0; ply < max_plies; ply++) {
            ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
            int n = round_trip_position(&pos);
            positions++;
            *moves += n;
            if (n == 0) break;
            ply_arb_legal_moves(&pos, mv);
            ply_arb_make(&pos, mv[rnd((uint32_t)n)]);
        }
    }
    return positions;
}

static void test_round_trip_standard(void **state)
{
    (void)state;
    ply_arb_pos_t start;
    long moves = 0;
    ply_arb_startpos(&start);
    long positions = random_games(&start, 150, 250, &moves);
    print_message("standard: %ld positions, %ld moves written and read back\n", positions, moves);
    assert_true(positions > 20000);
}

/* Chess960 start position number @n (0..959), Scharnagl's numbering
 * (Chess960 numbering scheme; the standard array is number 518). */
static void chess960_start(int n, char *fen)
{
    char rank[9] = "        ";
    int light = n % 4, dark = (n / 4) % 4, q = (n / 16) % 6, kn = n / 96;
    rank[light * 2 + 1] = 'B';
    rank[dark * 2] = 'B';
    int free_sq[8], k = 0;
    for (int i = 0; i < 8; i++)
        if (rank[i] == ' ') free_sq[k++] = i;
    rank[free_sq[q]] = 'Q';
    static const int knights[10][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2},
                                       {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}};
    k = 0;
    for (int i = 0; i < 8; i++)
        if (rank[i] == ' ') free_sq[k++] = i;
    rank[free_sq[knights[kn][0]]] = 'N';
    rank[free_sq[knights[kn][1]]] = 'N';
    const char *rkr = "RKR";
    for (int i = 0, j = 0; i < 8; i++)
        if (rank[i] == ' ') rank[i] = rkr[j++];
    char black[9];
    for (int i = 0; i < 8; i++) black[i] = (char)(rank[i] - 'A' + 'a');
    black[8] = 0;
    sprintf(fen, "%s/pppppppp/8/8/8/8/PPPPPPPP/%s w KQkq - 0 1", black, rank);
}

static void test_round_trip_chess960(void **state)
{
    (void)state;
    long positions = 0, moves = 0;
    char fen[100];
    chess960_start(518, fen);
    assert_string_equal(fen, START); /* the numbering's check value */
    for (int n = 0; n < 960; n += 3) {
        ply_arb_pos_t start;
        chess960_start(n, fen);
        load(&start, fen, PLY_ARB_CHESS960);
        positions += random_games(&start, 1, 120, &moves);
    }
    print_message("Chess960: %ld positions, %ld moves written and read back\n", positions, moves);
    assert_true(positions > 20000);
}

/* ---------------------------------------------------------------------- fuzz */

static void check_fuzz_result(const ply_arb_pos_t *pos, const char *text)
{
    ply_arb_move_t m, mv[PLY_ARB_MAX_MOVES];
    char why[200];
    why[0] = 0;
    int rc = ply_arb_move_from_san(pos, text, &m, why, sizeof why);
    if (rc == 0) {
        int n = ply_arb_legal_moves(pos, mv), found = 0;
        for (int i = 0; i < n; i++) found |= same_move(mv[i], m);
        assert_true(found);
        return;
    }
    assert_true(rc == PLY_EPARSE || rc == PLY_EILLEGAL);
    assert_true(why[0] != 0 && strlen(why) < sizeof why);
}

static void test_reader_fuzz(void **state)
{
    (void)state;
    static const char alphabet[] = "KQRBNPabcdefgh12345678xX:=-+#!?()/. Oo0e";
    ply_arb_pos_t pos;
    ply_arb_startpos(&pos);
    char text[64];
    for (int iter = 0; iter < 300000; iter++) {
        if (iter % 500 == 0) { /* a fresh position now and then */
            ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
            int n = ply_arb_legal_moves(&pos, mv);
            if (n == 0)
                ply_arb_startpos(&pos);
            else
                ply_arb_make(&pos, mv[rnd((uint32_t)n)]);
        }
        int len = (int)rnd(12);
        for (int i = 0; i < len; i++)
            text[i] = iter % 3 == 0 ? (char)(1 + rnd(255))
                                    : alphabet[rnd((uint32_t)(sizeof alphabet - 1))];
        text[len] = 0;
        check_fuzz_result(&pos, text);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_appendix_e),
        cmocka_unit_test(test_writer_chess960),
        cmocka_unit_test(test_writer_against_chessjs),
        cmocka_unit_test(test_lan_and_fide_against_chessjs),
        cmocka_unit_test(test_reader_accepts),
        cmocka_unit_test(test_reader_accepts_more),
        cmocka_unit_test(test_reader_rejects),
        cmocka_unit_test(test_round_trip_standard),
        cmocka_unit_test(test_round_trip_chess960),
        cmocka_unit_test(test_reader_fuzz),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("arbiter_san", tests, NULL, NULL);
}
