/*
 * Static evaluation and static exchange evaluation for the search.
 *
 * ply_eval is a tapered evaluation: every term has a middlegame and an
 * endgame value, blended by the material left on the board (game phase), so
 * that a king that must hide in the middlegame walks to the centre in the
 * endgame. The source of every number is given beside it in eval.c.
 * It is a pure function of the board (no hidden state), so any number of
 * threads may call it at once.
 */
#ifndef PLY_WORKER_EVAL_H
#define PLY_WORKER_EVAL_H

#include "board/board.h"

/**
 * ply_eval - the static evaluation of @b in centipawns from the side to
 * move's point of view (tempo included), within +-(PLY_SCORE_MATE_MIN - 1)
 * of search.h. Not meant for positions in check (the search does not call it
 * there except as a bound), and it does not detect mate or stalemate: that is
 * the search's job. Draw-ish material (KK, KBK, KNK, KNNK, ...) evaluates to 0
 * or near it.
 */
int ply_eval(const ply_board_t *b);

/** Piece values used by SEE and move ordering, centipawns, indexed by PLY_PAWN..PLY_KING. */
extern const int ply_see_value[7];

/**
 * ply_see_ge - 1 when the static exchange on the target square of legal move
 * @m of @b (every capture and recapture by the least valuable attacker,
 * x-rays through sliders included, either side free to stop) gains at least
 * @threshold centipawns for the side to move, else 0. Promotions count the
 * promoted piece; en passant and castling are treated as gaining 0.
 * Source of the method: chessprogramming wiki, "Static Exchange Evaluation"
 * (the swap algorithm).
 */
int ply_see_ge(const ply_board_t *b, ply_move_t m, int threshold);

#endif
