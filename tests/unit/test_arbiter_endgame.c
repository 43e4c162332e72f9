/*
 * Unit tests of the end of the game (common/arbiter/endgame.c, deadpos.c,
 * adjudicate.c): one group per article of the FIDE Laws as digested in
 * RULES.md, each with positions constructed for it.
 *
 * Sources of the expected values: the rule text (art. 5.1(a), 5.2(a),
 * 5.2(b)/9.6, 6.10, 9.2, 9.3, 9.4, and the fide2023 automatic draws 9.6.1,
 * 9.6.2), worked by hand in the comments; Stockfish 15.1 for legality and
 * mates where noted ("go mate 1", "go perft 1"); chess.js 1.4.0 for the
 * repetition plies of the standard cases and for the one-sided material
 * classes of 6.10: among all positions where White's lone minor piece checks
 * Black's king, chess.js finds 0 checkmates for K+N v K+Q (743,064 legal
 * positions), K+B v K+R (1,499,456) and K+B v K+Q (1,245,736), and 8 for
 * K+N v K+R (e.g. 8/8/8/8/8/K7/2N5/kr6 b).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/adjudicate.h"
#include "arbiter/arbiter.h"
#include "arbiter/endgame.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "util/error.h"
#include "test_rng.h"

static void load(ply_arb_pos_t *pos, const char *fen)
{
    char why[200];
    int rc = ply_arb_from_fen(pos, fen, 0, why, sizeof why);
    if (rc) fail_msg("bad test FEN %s: %s", fen, why);
}

/* A game from @fen ("startpos" allowed) with the SAN moves of @moves played. */
static ply_arb_game_t *play(const char *fen, ply_arb_laws_t laws, const char *moves)
{
    ply_arb_pos_t pos;
    load(&pos, fen);
    ply_arb_game_t *g = ply_arb_game_new(&pos, laws);
    assert_non_null(g);
    char buf[2048], why[200];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        ply_arb_move_t m;
        if (ply_arb_move_from_san(ply_arb_game_pos(g), tok, &m, why, sizeof why))
            fail_msg("%s: %s", tok, why);
        assert_int_equal(ply_arb_game_play(g, m), 0);
    }
    return g;
}

static void status_of(ply_arb_game_t *g, int lookahead, ply_arb_status_t *st)
{
    assert_int_equal(ply_arb_game_status(g, lookahead, st), 0);
}

/* Status of a single position (no history). */
static void position_status(const char *fen, ply_arb_laws_t laws, ply_arb_status_t *st)
{
    ply_arb_game_t *g = play(fen, laws, "");
    status_of(g, 1, st);
    ply_arb_game_destroy(&g);
}

/* ------------------------------------------------------------- art. 5.1, 5.2 */

static void test_checkmate_5_1a(void **state)
{
    (void)state;
    ply_arb_status_t st;
    /* Fool's mate: White in check with no legal move, Black wins. */
    ply_arb_game_t *g = play("startpos", PLY_ARB_FIDE2000, "f3 e5 g4 Qh4#");
    status_of(g, 1, &st);
    assert_int_equal(st.end, PLY_ARB_END_CHECKMATE);
    assert_int_equal(st.winner, 1);
    assert_int_equal(st.ply, 4);
    assert_int_equal(st.in_check, 1);
    assert_int_equal(st.legal_moves, 0);
    assert_string_equal(ply_arb_end_article(st.end, PLY_ARB_FIDE2000), "art. 5.1(a)");
    ply_arb_game_destroy(&g);
    /* A back-rank mate by White (Black to move, mated). */
    position_status("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 31", PLY_ARB_FIDE2000, &st);
    assert_int_equal(st.end, PLY_ARB_END_CHECKMATE);
    assert_int_equal(st.winner, 0);
    /* Check, but a legal reply exists: the game goes on. */
    position_status("R3k3/8/8/8/8/8/8/4K3 b - - 0 1", PLY_ARB_FIDE2000, &st);
    assert_int_equal(st.end, PLY_ARB_END_NONE);
}

static void test_stalemate_5_2a(void **state)
{
    (void)state;
    ply_arb_status_t st;
    /* Not in check, no legal move: drawn. */
    position_status("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", PLY_ARB_FIDE2000, &st);
    assert_int_equal(st.end, PLY_ARB_END_STALEMATE);
    assert_int_equal(st.winner, -1);
    assert_int_equal(st.in_check, 0);
    /* Stalemate takes precedence over a dead position (K+B v K stalemated). */
    position_status("k7/2K5/1B6/8/8/8/8/8 b - - 0 1", PLY_ARB_FIDE2000, &st);
    assert_int_equal(st.end, PLY_ARB_END_STALEMATE);
}

/* ------------------------------------------------------- art. 5.2(b), 9.6 */

static void expect_dead(const char *fen, const char *proof_prefix)
{
    ply_arb_pos_t pos;
    char proof[PLY_ARB_PROOF_MAX] = "";
    load(&pos, fen);
    if (ply_arb_dead(&pos, proof, sizeof proof) != 1) fail_msg("%s: not proven dead", fen);
    if (strncmp(proof, proof_prefix, strlen(proof_prefix)))
        fail_msg("%s: proof '%s', expected '%s...'", fen, proof, proof_prefix);
    ply_arb_status_t st;
    position_status(fen, PLY_ARB_FIDE2000, &st);
    assert_int_equal(st.end, PLY_ARB_END_DEAD);
    assert_string_equal(st.proof, proof);
}

static void expect_not_dead(const char *fen)
{
    ply_arb_pos_t pos;
    load(&pos, fen);
    if (ply_arb_dead(&pos, NULL, 0)) fail_msg("%s: claimed dead", fen);
}

static void test_dead_insufficient_material(void **state)
{
    (void)state;
    /* RULES.md, 5.2(b): the minimum list, each side to move. */
    expect_dead("8/8/8/4k3/8/8/8/4K3 w - - 0 1", "insufficient material: king against king");
    expect_dead("8/8/8/4k3/8/8/8/4KB2 b - - 0 1",
                "insufficient material: king and bishop against king");
    expect_dead("8/8/8/4k3/8/8/8/1n2K3 w - - 0 1",
                "insufficient material: king and knight against king");
    /* Kings with any number of bishops, all on squares of one colour
     * (a1 is dark: c4, e2, f5 are light; c1, e3, d8 are dark). */
    expect_dead("8/8/8/5b2/2B5/8/4B3/K6k w - - 0 1",
                "insufficient material: only bishops, all on light squares");
    expect_dead("3b4/8/8/8/8/4B3/8/K1B4k b - - 0 1",
                "insufficient material: only bishops, all on dark squares");
    expect_dead("8/8/8/8/8/8/8/K1B4k w - - 0 1", "insufficient material: king and bishop");
    /* Not dead: a mate can still be reached by some sequence. */
    expect_not_dead("8/8/8/4k3/8/8/8/2B1KB2 w - - 0 1"); /* bishops of both colours */
    expect_not_dead("8/8/3b4/4k3/8/8/8/4KB2 w - - 0 1"); /* K+B v K+B, opposite colours */
    expect_not_dead("8/8/8/3nk3/8/8/8/4KN2 w - - 0 1");  /* K+N v K+N */
    expect_not_dead("8/8/8/4k3/8/8/8/3NKN2 w - - 0 1");  /* K+N+N v K */
    expect_not_dead("8/8/8/4k3/8/8/8/3BKN2 w - - 0 1");  /* K+B+N v K */
    expect_not_dead("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1");  /* a pawn may promote */
    expect_not_dead("8/8/8/4k3/8/8/8/4K2R w - - 0 1");   /* a rook */
}

static void test_dead_blocked_and_forced(void **state)
{
    (void)state;
    /* A wall of rammed pawns across the board, each black pawn guarded by
     * another and each square in front of the wall attacked by a pawn, kings
     * only besides: no king can cross or take a pawn and no pawn can move, so
     * only king moves remain and no mate is reachable (5.2(b)). */
    expect_dead("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1",
                "blocked: no pawn can ever move or capture; white can never give check");
    expect_dead("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - - 0 1",
                "blocked: no pawn can ever move or capture; white can never give check");
    /* Rammed but not sealed: the white king reaches b5 and takes a5. */
    expect_not_dead("4k3/8/8/p7/P7/8/8/4K3 w - - 0 1");
    /* The wall with a light-squared bishop behind it: it can give itself up on
     * a pawn (Bd3xc4 dxc4), freeing the d-pawn to promote, so not dead. */
    expect_not_dead("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4KB2 w - - 0 1");
    /* ... but a dark-squared one never touches the black pawns (all on light
     * squares) nor leaves ranks 1-2: still dead. */
    expect_dead("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/2B1K3 w - - 0 1",
                "blocked: no pawn can ever move or capture; white can never give check");
    /* Forced: Black's only legal move (Stockfish: perft 1 = h1g1) takes the
     * knight and leaves K+N v K. */
    expect_dead(
        "N7/8/8/8/8/6K1/8/6Nk b - - 0 1",
        "forced: every sequence of legal moves (2 positions) leads to insufficient material");
    /* The same with White to move is not dead. */
    expect_not_dead("N7/8/8/8/8/6K1/8/6Nk w - - 0 1");
}

/* ------------------------------------------------------------------ art. 9.2 */

static void test_threefold_9_2(void **state)
{
    (void)state;
    ply_arb_status_t st;
    /* Knights out and back: the initial position occurs after plies 0, 4, 8
     * (chess.js: threefold after ply 8). */
    ply_arb_game_t *g = play("startpos", PLY_ARB_FIDE2000, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    status_of(g, 1, &st);
    assert_int_equal(st.threefold_now, 0);
    assert_int_equal(st.occurrences, 2); /* plies 3 and 7 */
    /* 9.2(a): Black may claim by writing Ng8, which makes a third occurrence. */
    assert_int_equal(st.threefold_by_move, 1);
    assert_string_equal(st.threefold_move, "Ng8");
    ply_arb_move_t m;
    assert_int_equal(ply_arb_move_from_san(ply_arb_game_pos(g), "Ng8", &m, NULL, 0), 0);
    assert_int_equal(ply_arb_game_play(g, m), 0);
    status_of(g, 0, &st);
    /* 9.2(b): the position has just appeared the third time; White may claim. */
    assert_int_equal(st.threefold_now, 1);
    assert_int_equal(st.occurrences, 3);
    assert_int_equal(st.rep_plies[0], 0);
    assert_int_equal(st.rep_plies[1], 4);
    assert_int_equal(st.rep_plies[2], 8);
    assert_int_equal(st.end, PLY_ARB_END_NONE); /* a claim, not an automatic draw (fide2000) */
    /* 9.4: White plays on without claiming: no claim on the next position. */
    assert_int_equal(ply_arb_move_from_san(ply_arb_game_pos(g), "Nc3", &m, NULL, 0), 0);
    assert_int_equal(ply_arb_game_play(g, m), 0);
    status_of(g, 0, &st);
    assert_int_equal(st.threefold_now, 0);
    ply_arb_game_destroy(&g);
}

static void test_threefold_identity(void **state)
{
    (void)state;
    ply_arb_status_t st;
    /* Castling rights compared as rights: after the kings' walk the placement
     * is as at ply 0 but the rights are gone, so the third occurrence of the
     * rightless position is at ply 12 (plies 4, 8, 12), not at ply 8. */
    ply_arb_game_t *g = play("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", PLY_ARB_FIDE2000,
                             "Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8");
    status_of(g, 0, &st);
    assert_int_equal(st.occurrences, 2);
    ply_arb_game_destroy(&g);
    g = play("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", PLY_ARB_FIDE2000,
             "Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8");
    status_of(g, 0, &st);
    assert_int_equal(st.threefold_now, 1);
    assert_int_equal(st.rep_plies[0], 4);
    assert_int_equal(st.rep_plies[2], 12);
    ply_arb_game_destroy(&g);
    /* ... even rights that cannot be used at the time (pieces in between):
     * after 1. e4 e5 the rights exist; after the kings' walk they do not. */
    g = play("startpos", PLY_ARB_FIDE2000, "e4 e5 Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8");
    status_of(g, 0, &st);
    assert_int_equal(st.occurrences, 2); /* plies 6 and 10, not 2 */
    assert_int_equal(st.rep_plies[0], 6);
    ply_arb_game_destroy(&g);

    /* En passant: a capture that is legal makes the position after the double
     * step different (chess.js: threefold only after ply 16) ... */
    g = play("startpos", PLY_ARB_FIDE2000, "e4 Nf6 e5 d5 Nc3 Nc6 Nb1 Nb8 Nf3 Nc6 Ng1 Nb8");
    status_of(g, 0, &st);
    assert_int_equal(st.occurrences, 2);
    assert_int_equal(st.rep_plies[0], 8);
    ply_arb_game_destroy(&g);
    /* ... a double step that no pawn can take does not (chess.js: ply 10) ... */
    g = play("startpos", PLY_ARB_FIDE2000, "Nf3 d5 Ng1 Nc6 Nf3 Nb8 Nc3 Nc6 Nb1 Nb8");
    status_of(g, 0, &st);
    assert_int_equal(st.threefold_now, 1);
    assert_int_equal(st.rep_plies[0], 2);
    ply_arb_game_destroy(&g);
    /* ... nor one whose only taker is pinned (9.2: the possible moves are the
     * same; the rule text decides here, chess.js counts the pinned capture). */
    g = play("4r1k1/3p4/8/4P3/8/8/8/4K3 b - - 0 1", PLY_ARB_FIDE2000,
             "d5 Kd1 Kf8 Ke1 Kg8 Kd1 Kf8 Ke1 Kg8");
    status_of(g, 0, &st);
    assert_int_equal(st.threefold_now, 1);
    assert_int_equal(st.rep_plies[0], 1);
    assert_int_equal(st.rep_plies[2], 9);
    ply_arb_game_destroy(&g);
}

/* ------------------------------------------------------------------ art. 9.3 */

static void test_fifty_moves_9_3(void **state)
{
    (void)state;
    ply_arb_status_t st;
    /* 99 plies without pawn move or capture: 9.3(a), a quiet move completes 50. */
    position_status("7k/8/8/8/8/8/8/K5R1 w - - 99 80", PLY_ARB_FIDE2000, &st);
    assert_int_equal(st.fifty_now, 0);
    assert_int_equal(st.fifty_by_move, 1);
    ply_arb_game_t *g = play("7k/8/8/8/8/8/8/K5R1 w - - 99 80", PLY_ARB_FIDE2000, "Rg2");
    status_of(g, 0, &st);
    assert_int_equal(st.halfmove, 100);
    assert_int_equal(st.fifty_now, 1); /* 9.3(b) */
    assert_int_equal(st.end, PLY_ARB_END_NONE);
    ply_arb_game_destroy(&g);
    /* A pawn move restarts the count. */
    g = play("7k/8/8/8/8/8/P7/K5R1 w - - 99 80", PLY_ARB_FIDE2000, "a3");
    status_of(g, 0, &st);
    assert_int_equal(st.halfmove, 0);
    assert_int_equal(st.fifty_now, 0);
    ply_arb_game_destroy(&g);
    /* Checkmate on the move that completes the 50 takes precedence. */
    g = play("7k/8/6K1/8/8/8/8/R7 w - - 99 80", PLY_ARB_FIDE2000, "Ra8#");
    status_of(g, 1, &st);
    assert_int_equal(st.halfmove, 100);
    assert_int_equal(st.end, PLY_ARB_END_CHECKMATE);
    assert_int_equal(st.winner, 0);
    assert_int_equal(st.fifty_now, 0);
    ply_arb_game_destroy(&g);
}

/* -------------------------------------------------- fide2023: 9.6.1, 9.6.2 */

static void test_fide2023_automatic_draws(void **state)
{
    (void)state;
    ply_arb_status_t st;
    const char *five = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8";
    /* The fifth occurrence (plies 0, 4, 8, 12, 16) ends the game under 2023 ... */
    ply_arb_game_t *g = play("startpos", PLY_ARB_FIDE2023, five);
    status_of(g, 0, &st);
    assert_int_equal(st.occurrences, 5);
    assert_int_equal(st.end, PLY_ARB_END_FIVEFOLD);
    assert_int_equal(st.winner, -1);
    ply_arb_game_destroy(&g);
    /* ... and is only a claim under 2000. */
    g = play("startpos", PLY_ARB_FIDE2000, five);
    status_of(g, 0, &st);
    assert_int_equal(st.end, PLY_ARB_END_NONE);
    assert_int_equal(st.threefold_now, 1);
    ply_arb_game_destroy(&g);
    /* 75 moves each without pawn move or capture: automatic under 2023. */
    g = play("7k/8/8/8/8/8/8/K5R1 w - - 149 120", PLY_ARB_FIDE2023, "Rg2");
    status_of(g, 0, &st);
    assert_int_equal(st.end, PLY_ARB_END_SEVENTYFIVE);
    ply_arb_game_destroy(&g);
    g = play("7k/8/8/8/8/8/8/K5R1 w - - 149 120", PLY_ARB_FIDE2000, "Rg2");
    status_of(g, 0, &st);
    assert_int_equal(st.end, PLY_ARB_END_NONE);
    assert_int_equal(st.fifty_now, 1);
    ply_arb_game_destroy(&g);
    /* 9.6.2: a mate on the last move takes precedence. */
    g = play("7k/8/6K1/8/8/8/8/R7 w - - 149 120", PLY_ARB_FIDE2023, "Ra8#");
    status_of(g, 0, &st);
    assert_int_equal(st.end, PLY_ARB_END_CHECKMATE);
    ply_arb_game_destroy(&g);

    ply_arb_laws_t laws;
    assert_int_equal(ply_arb_laws_parse("fide2023", &laws), 0);
    assert_int_equal(laws, PLY_ARB_FIDE2023);
    assert_int_equal(ply_arb_laws_parse("fide2000", &laws), 0);
    assert_int_equal(laws, PLY_ARB_FIDE2000);
    assert_int_equal(ply_arb_laws_parse("fide1999", &laws), PLY_EINVAL);
    assert_string_equal(ply_arb_laws_name(PLY_ARB_FIDE2023), "fide2023");
}

/* ------------------------------------------------------------------ art. 6.10 */

static void expect_can_mate(const char *fen, int side, ply_arb_mate_t want,
                            const char *proof_prefix)
{
    ply_arb_pos_t pos;
    char proof[PLY_ARB_PROOF_MAX] = "";
    load(&pos, fen);
    ply_arb_mate_t got = ply_arb_can_mate(&pos, side, proof, sizeof proof);
    if (got != want)
        fail_msg("%s, side %d: answer %d (%s), expected %d", fen, side, got, proof, want);
    if (strncmp(proof, proof_prefix, strlen(proof_prefix)))
        fail_msg("%s: proof '%s', expected '%s...'", fen, proof, proof_prefix);
}

static void test_can_mate_6_10(void **state)
{
    (void)state;
    /* A bare king never mates. */
    expect_can_mate("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1", 1, PLY_ARB_MATE_IMPOSSIBLE,
                    "black has only its king");
    /* The queen's side can: a helpmate line (K+Q v K is a mate by any book;
     * the line itself is replayed in test_arbiter_unwinnable.c). */
    expect_can_mate("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1", 0, PLY_ARB_MATE_POSSIBLE, "helpmate in ");
    /* K+N v K+Q: the knight never mates (no such checkmate exists: chess.js
     * and the hand argument in deadpos.c), though the position is not dead. */
    expect_can_mate("8/8/3q4/4k3/8/8/8/2N1K3 w - - 0 1", 0, PLY_ARB_MATE_IMPOSSIBLE,
                    "a king and knight (white) cannot mate a king and queen");
    expect_not_dead("8/8/3q4/4k3/8/8/8/2N1K3 w - - 0 1");
    expect_can_mate("8/8/3r4/4k3/8/8/8/2B1K3 b - - 0 1", 0, PLY_ARB_MATE_IMPOSSIBLE,
                    "a king and bishop (white) cannot mate a king and rook");
    expect_can_mate("8/8/3q4/4k3/8/8/8/2B1K3 b - - 0 1", 0, PLY_ARB_MATE_IMPOSSIBLE,
                    "a king and bishop (white) cannot mate a king and queen");
    /* K+N v K+R: the knight can mate (1. Nc7#, Stockfish "go mate 1": d5c7). */
    expect_can_mate("kr6/8/K7/3N4/8/8/8/8 w - - 0 1", 0, PLY_ARB_MATE_POSSIBLE,
                    "helpmate in 1 ply: 1. Nc7#");
    /* K+N v K+B: 1. Nc2# (Black: Ka1, Ba2 blocking its own king). */
    expect_can_mate("8/8/8/8/8/4N3/b7/k1K5 w - - 0 1", 0, PLY_ARB_MATE_POSSIBLE,
                    "helpmate in 1 ply: 1. Nc2#");
    /* A dead position: nobody can mate. */
    expect_can_mate("8/8/8/4k3/8/8/8/4KB2 w - - 0 1", 0, PLY_ARB_MATE_IMPOSSIBLE,
                    "dead position (insufficient material");
    /* The sealed wall: dead, so neither side can mate. */
    ply_arb_pos_t pos;
    load(&pos, "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1");
    assert_int_equal(ply_arb_can_mate(&pos, 0, NULL, 0), PLY_ARB_MATE_IMPOSSIBLE);
    assert_int_equal(ply_arb_can_mate(&pos, 1, NULL, 0), PLY_ARB_MATE_IMPOSSIBLE);
    assert_int_equal(ply_arb_can_mate(NULL, 0, NULL, 0), PLY_ARB_MATE_UNDETERMINED);
}

/* --------------------------------------------- adjudication of game records */

static void adjudicate_text(const char *pgn, ply_arb_laws_t laws, int flag, ply_arb_report_t *rep)
{
    FILE *f = fmemopen((void *)pgn, strlen(pgn), "rb");
    ply_pgn_reader_t *r = ply_pgn_reader_new(f);
    const ply_pgn_game_t *g;
    assert_int_equal(ply_pgn_read(r, &g, NULL), 1);
    assert_int_equal(ply_arb_adjudicate(g, laws, flag, NULL, rep), 0);
    ply_pgn_reader_destroy(&r);
    fclose(f);
}

static void test_flag_fall_6_10(void **state)
{
    (void)state;
    ply_arb_report_t rep;
    const char *kq_k = "[FEN \"8/8/8/4k3/8/8/8/4KQ2 w - - 0 1\"]\n[Result \"%s\"]\n\n1. Qf2 %s\n";
    char pgn[512];
    /* The queen's side flag falls: the bare king cannot mate: drawn. */
    snprintf(pgn, sizeof pgn, kq_k, "1/2-1/2", "1/2-1/2");
    adjudicate_text(pgn, PLY_ARB_FIDE2000, 0, &rep);
    assert_string_equal(rep.expected, "1/2-1/2");
    assert_int_equal(rep.consistent, 1);
    assert_int_equal(rep.flag_opponent, PLY_ARB_MATE_IMPOSSIBLE);
    snprintf(pgn, sizeof pgn, kq_k, "0-1", "0-1");
    adjudicate_text(pgn, PLY_ARB_FIDE2000, 0, &rep);
    assert_int_equal(rep.consistent, 0);
    /* The bare king's flag falls: the queen's side wins. */
    snprintf(pgn, sizeof pgn, kq_k, "1-0", "1-0");
    adjudicate_text(pgn, PLY_ARB_FIDE2000, 1, &rep);
    assert_string_equal(rep.expected, "1-0");
    assert_int_equal(rep.consistent, 1);
    /* K+N v K+Q, the queen's flag falls: drawn (the knight cannot mate). */
    adjudicate_text("[FEN \"8/8/3q4/4k3/8/8/8/2N1K3 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n"
                    "1. Kf2 1/2-1/2\n",
                    PLY_ARB_FIDE2000, 1, &rep);
    assert_string_equal(rep.expected, "1/2-1/2");
    assert_int_equal(rep.consistent, 1);
    /* K+N v K+R, the rook's flag falls: the knight's side wins. */
    adjudicate_text("[FEN \"kr6/8/K7/3N4/8/8/8/8 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Nb4 1-0\n",
                    PLY_ARB_FIDE2000, 1, &rep);
    assert_string_equal(rep.expected, "1-0");
    assert_int_equal(rep.consistent, 1);
    /* A Termination tag "Time forfeit" names the flag: 1-0 with a bare white
     * king is wrong (Black's flag fell but White cannot mate). */
    adjudicate_text("[FEN \"8/8/8/4k3/8/8/8/4Kq2 w - - 0 1\"]\n[Result \"1-0\"]\n"
                    "[Termination \"Time forfeit\"]\n\n1. Kd2 1-0\n",
                    PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.flag, 1);
    assert_int_equal(rep.flag_from_tag, 1);
    assert_string_equal(rep.expected, "1/2-1/2");
    assert_int_equal(rep.consistent, 0);
}

static void test_adjudicate_records(void **state)
{
    (void)state;
    ply_arb_report_t rep;
    /* A dead position ends the game at once (5.2(b)); moves after it are noted. */
    adjudicate_text("[FEN \"8/8/8/4k3/8/3n4/8/4KB2 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n"
                    "1. Bxd3 Kd5 2. Bf1 1/2-1/2\n",
                    PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.end, PLY_ARB_END_DEAD);
    assert_int_equal(rep.end_ply, 1);
    assert_int_equal(rep.after_end, 2);
    assert_int_equal(rep.consistent, 0);
    assert_string_equal(rep.end_proof, "insufficient material: king and bishop against king");
    /* The Result tag and the termination marker must agree. */
    adjudicate_text("[Result \"1-0\"]\n\n1. e4 e5 0-1\n", PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.consistent, 0);
    /* "*" for a game that ended by mate is wrong; any result of a game that
     * did not end by rule is fine (resignation, agreement). */
    adjudicate_text("[Result \"*\"]\n\n1. f3 e5 2. g4 Qh4# *\n", PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.consistent, 0);
    assert_string_equal(rep.expected, "0-1");
    adjudicate_text("[Result \"0-1\"]\n\n1. e4 e5 0-1\n", PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.consistent, 1);
    assert_string_equal(rep.expected, "");
    /* 7.4: an unreadable move is reported with its number; nothing after counts. */
    adjudicate_text("[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nxe4?? 4. Qe2 1-0\n",
                    PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.illegal_ply, 6);
    assert_string_equal(rep.illegal_number, "3...");
    assert_string_equal(rep.illegal_move, "Nxe4");
    assert_string_equal(rep.illegal_why, "no piece can reach e4");
    assert_int_equal(rep.plies, 5);
    assert_int_equal(rep.recorded_plies, 7);
    assert_int_equal(rep.consistent, 0);
    /* fide2023: the fivefold repetition ended the game; fide2000: a claim. */
    const char *five = "[Result \"1-0\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 "
                       "Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 1-0\n";
    adjudicate_text(five, PLY_ARB_FIDE2023, -1, &rep);
    assert_int_equal(rep.end, PLY_ARB_END_FIVEFOLD);
    assert_int_equal(rep.end_ply, 16);
    assert_int_equal(rep.consistent, 0);
    adjudicate_text(five, PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.end, PLY_ARB_END_NONE);
    assert_int_equal(rep.threefold_ply, 8);
    assert_int_equal(rep.consistent, 1);
    /* A bad start position. */
    adjudicate_text("[Variant \"Atomic\"]\n\n1. e4 *\n", PLY_ARB_FIDE2000, -1, &rep);
    assert_int_equal(rep.start_ok, 0);
    assert_int_equal(rep.consistent, 0);
}

/* ------------------------------------------- soundness over random games */

/* 1 when a checkmate (by @mater, or by anyone when -1) is reachable within
 * @depth plies: plain exhaustive search, independent of deadpos.c. */
static int mate_within(const ply_arb_pos_t *pos, int depth, int mater)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    int n = ply_arb_legal_moves(pos, mv);
    if (n == 0) return ply_arb_in_check(pos) && (mater < 0 || pos->side != mater);
    if (depth == 0) return 0;
    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child = *pos;
        ply_arb_make(&child, mv[i]);
        if (mate_within(&child, depth - 1, mater)) return 1;
    }
    return 0;
}

/* 1 when the @n moves of @line are legal one after another from @pos and
 * leave @mater's opponent checkmated (art. 5.1(a)). */
static int line_mates(const ply_arb_pos_t *pos, const ply_arb_move_t *line, int n, int mater)
{
    ply_arb_pos_t p = *pos;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    for (int i = 0; i < n; i++) {
        int k = ply_arb_legal_moves(&p, mv), found = 0;
        for (int j = 0; j < k && !found; j++)
            found = mv[j].from == line[i].from && mv[j].to == line[i].to &&
                    mv[j].promo == line[i].promo;
        if (!found) return 0;
        ply_arb_make(&p, line[i]);
    }
    return p.side != mater && ply_arb_in_check(&p) && ply_arb_legal_moves(&p, mv) == 0;
}

/* Every "dead" and "cannot mate" claimed along random games is checked
 * against a shallow exhaustive search: no mate may be reachable. */
static void test_claims_sound_in_random_games(void **state)
{
    (void)state;
    ply_arb_pos_t start;
    ply_arb_startpos(&start);
    int dead = 0, impossible = 0, possible = 0, positions = 0;
    for (int g = 0; g < 300; g++) {
        ply_arb_pos_t pos = start;
        for (int ply = 0; ply < 400; ply++) {
            ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
            int n = ply_arb_legal_moves(&pos, mv);
            if (n == 0) break;
            positions++;
            if (ply_arb_dead(&pos, NULL, 0)) {
                dead++;
                assert_false(mate_within(&pos, 3, -1));
                break;
            }
            if (ply % 25 == 24) { /* the one-sided question, now and then */
                for (int side = 0; side < 2; side++) {
                    ply_arb_unwin_t u;
                    assert_int_equal(ply_arb_unwinnable(&pos, side, 2000, &u), 0);
                    if (u.verdict == PLY_ARB_MATE_POSSIBLE && u.nmoves) {
                        assert_true(line_mates(&pos, u.moves, u.nmoves, side));
                        possible++;
                    }
                    if (u.verdict != PLY_ARB_MATE_IMPOSSIBLE) continue;
                    impossible++;
                    assert_false(mate_within(&pos, 3, side));
                }
            }
            ply_arb_make(&pos, mv[rnd((uint32_t)n)]);
        }
    }
    print_message("%d positions, %d dead, %d 'cannot mate' checked, %d helpmates replayed\n",
                  positions, dead, impossible, possible);
    assert_true(dead > 20);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checkmate_5_1a),
        cmocka_unit_test(test_stalemate_5_2a),
        cmocka_unit_test(test_dead_insufficient_material),
        cmocka_unit_test(test_dead_blocked_and_forced),
        cmocka_unit_test(test_threefold_9_2),
        cmocka_unit_test(test_threefold_identity),
        cmocka_unit_test(test_fifty_moves_9_3),
        cmocka_unit_test(test_fide2023_automatic_draws),
        cmocka_unit_test(test_can_mate_6_10),
        cmocka_unit_test(test_flag_fall_6_10),
        cmocka_unit_test(test_adjudicate_records),
        cmocka_unit_test(test_claims_sound_in_random_games),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("arbiter_endgame", tests, NULL, NULL);
}
