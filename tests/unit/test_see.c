/*
 * Unit tests of worker/engine/see.c: SEE on hand-built positions whose exchanges are
 * worked out in the comments from ply_see_value (Kaufman's P 100, N 325, B 325, R 500,
 * Q 975), at the true value and one centipawn above it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "board/movegen.h"
#include "eval.h"
#include "util/error.h"

static ply_board_t board_of(const char *fen)
{
    ply_board_t b;
    char why[128] = "";
    int rc = ply_board_from_fen(&b, fen, 0, why, sizeof why);
    if (rc != 0) fail_msg("bad test FEN %s: %s", fen, why);
    return b;
}

/* A move of @fen by its UCI text, which must be legal. */
static ply_move_t move_of(const ply_board_t *b, const char *uci)
{
    ply_move_t m;
    if (ply_board_move_from_uci(b, uci, &m) != 0) fail_msg("move %s is not legal", uci);
    return m;
}

/* SEE of @uci in @fen is exactly @value: at least @value, not @value + 1. */
static void check_see(const char *fen, const char *uci, int value)
{
    ply_board_t b = board_of(fen);
    ply_move_t m = move_of(&b, uci);
    if (!ply_see_ge(&b, m, value)) fail_msg("%s in %s: SEE below %d", uci, fen, value);
    if (ply_see_ge(&b, m, value + 1)) fail_msg("%s in %s: SEE above %d", uci, fen, value);
}

static void test_see_values(void **state)
{
    (void)state;
    /* The values the comments below compute with (Kaufman 1999). */
    assert_int_equal(ply_see_value[PLY_PAWN], 100);
    assert_int_equal(ply_see_value[PLY_KNIGHT], 325);
    assert_int_equal(ply_see_value[PLY_BISHOP], 325);
    assert_int_equal(ply_see_value[PLY_ROOK], 500);
    assert_int_equal(ply_see_value[PLY_QUEEN], 975);
}

static void test_see_simple(void **state)
{
    (void)state;
    /* chessprogramming wiki, "SEE - The Swap Algorithm", first example:
     * Rxe5 takes an undefended pawn: +100. */
    check_see("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100);
    /* A quiet knight move onto a square a pawn attacks loses the knight. */
    check_see("4k3/8/4p3/8/8/2N5/8/4K3 w - - 0 1", "c3d5", -325);
    /* A quiet move to a safe square gains nothing. */
    check_see("4k3/8/4p3/8/8/2N5/8/4K3 w - - 0 1", "c3b5", 0);
    /* Pawn takes a defended knight: +325, and losing the pawn back still +225. */
    check_see("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 225);
    /* Queen takes a pawn defended by a pawn: +100 - 975. */
    check_see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -875);
    /* Rd2xd5 (+325): the king may not take back, the rook d1 guards d5 through d2. */
    check_see("8/8/4k3/3n4/8/8/3R4/3R2K1 w - - 0 1", "d2d5", 325);
    /* Only the king guards: Rxd5 Kxd5 = 325 - 500. */
    check_see("8/8/4k3/3n4/8/8/8/3R2K1 w - - 0 1", "d1d5", -175);
}

static void test_see_xray(void **state)
{
    (void)state;
    /* Rook battery on the d-file: Rd2xd5 (+100), Rxd5 (-400), Rd1xd5 (+100).
     * Without the x-ray of the rook behind it would be -400. */
    check_see("3r2k1/8/8/3p4/8/8/3R4/3R2K1 w - - 0 1", "d2d5", 100);
    /* chessprogramming wiki, "SEE - The Swap Algorithm", second example, with
     * our values: Nxe5 (+100), Nxe5 (-225), Rxe5 (+100), Bxe5 (-400),
     * Qxe5 (-75), Qxe5 (-1050): black's queen behind its bishop and white's
     * queen behind its rook both join; white stops after Nxe5 Nxe5: -225. */
    check_see("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -225);
    /* A bishop behind the capturing pawn: cxd5 (+325), Bxd5 (+225),
     * Bb3xd5 through c4 (+550), so black does not recapture: +325. Without
     * the x-ray black would recapture and the answer would be +225. */
    check_see("4k3/8/4b3/3n4/2P5/1B6/8/4K3 w - - 0 1", "c4d5", 325);
}

static void test_see_pinned_looking(void **state)
{
    (void)state;
    /* Black's rook e6 stands between its king e8 and white's rook e1, but
     * the pawn (then the queen) on e5 is in between too, so Rxe5 is legal:
     * Qxe5 (+100), Rxe5 (-875), Rxe5 (-375). A SEE that dropped the
     * "pinned" rook would say +100. */
    const char *fen = "4k3/8/4r3/4p3/8/8/7Q/4R1K1 w - - 0 1";
    ply_board_t b = board_of(fen);
    ply_board_t after = b;
    ply_board_play(&after, move_of(&b, "h2e5"));
    (void)move_of(&after, "e6e5"); /* the recapture is legal */
    check_see(fen, "h2e5", -375);
}

static void test_see_promotion(void **state)
{
    (void)state;
    /* bxa8=Q: +500 for the rook, +875 for the promotion; Nb6xa8 takes the
     * queen back: 1375 - 975 = +400. */
    check_see("r3k3/1P6/1n6/8/8/8/8/4K3 w - - 0 1", "b7a8q", 400);
    /* bxa8=N: 500 + 225, and Nxa8 takes the knight: +400 again. */
    check_see("r3k3/1P6/1n6/8/8/8/8/4K3 w - - 0 1", "b7a8n", 400);
    /* Undefended: bxa8=Q = 500 + 875. */
    check_see("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q", 1375);
    /* A quiet promotion: b8=Q gains 875 unless it is taken. */
    check_see("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", 875);
    /* The recapture promotes: Rxd1 (+325), cxd1=Q (325 - 500 - 875 =
     * -1050), Kxd1 (-75): white ends a rook for a knight down. */
    check_see("4k3/8/8/8/8/8/2p1K3/R2n4 w - - 0 1", "a1d1", -75);
}

static void test_see_ep_castling(void **state)
{
    (void)state;
    /* eval.h: en passant and castling count as gaining 0. */
    check_see("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", 0);
    check_see("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_see_values),    cmocka_unit_test(test_see_simple),
        cmocka_unit_test(test_see_xray),      cmocka_unit_test(test_see_pinned_looking),
        cmocka_unit_test(test_see_promotion), cmocka_unit_test(test_see_ep_castling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
