/*
 * Static exchange evaluation: what a capture sequence on one square wins,
 * for move ordering and quiescence pruning (it runs for every capture the
 * search considers, so it works on bitboards only and never plays a move).
 *
 * Method: the swap algorithm of the chessprogramming wiki ("Static Exchange
 * Evaluation", "SEE - The Swap Algorithm"). Both sides capture on the target
 * square with their least valuable attacker in turn; gain[d] is what the
 * side making capture d has won if the sequence stops after it, and the list
 * is folded back with "either side may stop" (negamax with stand-pat). The
 * occupancy shrinks as attackers leave their squares, so the sliders behind
 * them (x-rays: a rook behind a rook, a bishop behind a queen or a pawn) join
 * in by simply recomputing the attackers on the smaller occupancy.
 *
 * Not modelled: pins (a pinned piece is counted as a recapturer, as in the
 * wiki's algorithm) and checks. A pawn that captures onto the last rank is
 * counted as promoting to a queen.
 */
#include "eval.h"

/*
 * Piece values for SEE and move ordering: Larry Kaufman, "The Evaluation of
 * Material Imbalances", Chess Life, March 1999 (P 1, N 3.25, B 3.25, R 5,
 * Q 9.75 pawns). The king's value only has to exceed any sum of captures, so
 * that a king never "captures" into a defended square.
 */
const int ply_see_value[7] = {0, 100, 325, 325, 500, 975, 20000};

/* The deepest exchange: 32 pieces can take part at most. */
#define SEE_MAX_DEPTH 34

/* The least valuable piece of @side among @att, its type in *type; 0 if none. */
static ply_bb_t least_valuable(const ply_board_t *b, ply_bb_t att, int *type)
{
    for (int t = PLY_PAWN; t <= PLY_KING; t++) {
        ply_bb_t s = att & b->pieces[t];
        if (s) {
            *type = t;
            return s & -s;
        }
    }
    return 0;
}

/* The value of the exchange on @m's target square for the side to move, centipawns. */
static int see_value(const ply_board_t *b, ply_move_t m)
{
    const int from = ply_move_from(m), to = ply_move_to(m);
    const ply_bb_t last_ranks = PLY_BB_RANK_1 | PLY_BB_RANK_8;
    const int promo_rank = (last_ranks & ply_bb(to)) != 0;
    int gain[SEE_MAX_DEPTH];
    int victim = ply_board_piece_on(b, to, NULL);
    int on_square = ply_move_piece(m); /* the piece that now stands on @to */
    int side = b->side;
    ply_bb_t occ = ply_board_occ(b) ^ ply_bb(from);
    int d = 0;

    gain[0] = ply_see_value[victim];
    if (ply_move_is_promo(m)) {
        on_square = ply_move_promo(m);
        gain[0] += ply_see_value[on_square] - ply_see_value[PLY_PAWN];
    }
    for (;;) {
        side ^= 1;
        int type = PLY_NONE;
        ply_bb_t att = ply_board_attackers(b, to, side, occ) & occ;
        ply_bb_t lva = least_valuable(b, att, &type);
        if (!lva || d + 1 >= SEE_MAX_DEPTH) break;
        d++;
        /* Capture d takes the piece on the square; a pawn reaching the last
         * rank becomes a queen. */
        gain[d] = ply_see_value[on_square] - gain[d - 1];
        on_square = type;
        if (type == PLY_PAWN && promo_rank) {
            on_square = PLY_QUEEN;
            gain[d] += ply_see_value[PLY_QUEEN] - ply_see_value[PLY_PAWN];
        }
        occ ^= lva;
    }
    while (d > 0) {
        /* The side that made capture d-1 may stand pat on gain[d-1], or let
         * its opponent continue, worth -gain[d] to it. */
        if (-gain[d] < gain[d - 1]) gain[d - 1] = -gain[d];
        d--;
    }
    return gain[0];
}

int ply_see_ge(const ply_board_t *b, ply_move_t m, int threshold)
{
    const int kind = ply_move_kind(m);
    if (kind == PLY_MOVE_CASTLE || kind == PLY_MOVE_EP) return 0 >= threshold;
    /* Bounds that settle most calls without the exchange: the first capture
     * is the best the mover can get, and losing the piece it leaves on the
     * square (a queen, if a pawn recaptures onto the last rank) the worst,
     * since it may stop right after the recapture. */
    const int to = ply_move_to(m);
    int best = ply_see_value[ply_board_piece_on(b, to, NULL)];
    int left = ply_see_value[ply_move_piece(m)];
    if (ply_move_is_promo(m)) {
        best += ply_see_value[ply_move_promo(m)] - ply_see_value[PLY_PAWN];
        left = ply_see_value[ply_move_promo(m)];
    }
    if (best < threshold) return 0;
    if ((PLY_BB_RANK_1 | PLY_BB_RANK_8) & ply_bb(to))
        left += ply_see_value[PLY_QUEEN] - ply_see_value[PLY_PAWN];
    if (best - left >= threshold) return 1;
    return see_value(b, m) >= threshold;
}
