/*
 * Move ordering for the search (search.c): the legal moves of a node, scored
 * once and handed out best first by a selection sort, which stops paying as
 * soon as a move cuts the node off (most cut nodes use one of the first
 * three moves).
 *
 * Order: the table's move (only when the generator produced it: a torn or
 * colliding table entry cannot smuggle in an illegal move), then captures
 * and queen promotions that do not lose material by static exchange
 * (most valuable victim first, then by capture history, then least
 * valuable attacker first), the two
 * killers of the ply, the counter-move of the opponent's last move, the
 * quiet moves by history (from-to, and piece-to after each of the last two
 * moves: continuation history), and last the captures that lose material.
 * Source of the scheme: chessprogramming wiki, "Move Ordering".
 */
#ifndef PLY_WORKER_MOVEPICK_H
#define PLY_WORKER_MOVEPICK_H

#include <stdint.h>

#include "board/movegen.h"

/* Score bands; quiet moves score the sum of their history and continuation
 * histories, each within +-PLY__HISTORY_MAX. */
#define PLY__HISTORY_MAX       16384
#define PLY__PICK_TT           (1 << 28)
#define PLY__PICK_GOOD_CAPTURE (1 << 24)
#define PLY__PICK_KILLER       (1 << 20)
#define PLY__PICK_COUNTER      ((1 << 20) - 2)
#define PLY__PICK_BAD_CAPTURE  (-(1 << 24))

typedef struct ply__picker {
    ply_move_t moves[PLY_MAX_MOVES];
    int scores[PLY_MAX_MOVES];
    int n;    /* moves to hand out */
    int next; /* moves handed out */
} ply__picker_t;

/** What orders the quiet moves of a node (any may be NULL / 0 for none). */
typedef struct ply__order {
    uint16_t tt_move; /* 16 low bits of a move: from | to << 6 | kind << 12 */
    ply_move_t killers[2];
    ply_move_t counter;
    const int16_t (*history)[64]; /* [from][to] of the side to move */
    /* [piece][to] of the side to move's reply to the move one and two plies
     * before (continuation history; NULL: none) */
    int16_t (*cont[2])[64];
    /* [piece][to][victim] of the side to move's captures (capture history; NULL: none) */
    const int16_t (*capture)[64][7];
} ply__order_t;

/**
 * ply__picker_init - generate and score the legal moves of @b. @noisy_only:
 * keep only captures and queen promotions (quiescence search: the quiet moves
 * are not even generated). Returns 0 when the side to move has no legal move
 * (mate or stalemate), else a positive number: the legal moves, or with
 * @noisy_only those that capture or promote when there are any.
 */
int ply__picker_init(ply__picker_t *p, const ply_board_t *b, const ply__order_t *o, int noisy_only);

/** ply__picker_next - the best move not yet handed out (its score in *@score), or 0 when none is
 * left. */
ply_move_t ply__picker_next(ply__picker_t *p, int *score);

/** ply__move_is_capture - 1 when @m takes a piece of the opponent (en passant too). */
static inline int ply__move_is_capture(const ply_board_t *b, ply_move_t m)
{
    return ply_move_kind(m) == PLY_MOVE_EP || (ply_move_kind(m) != PLY_MOVE_CASTLE &&
                                               (b->colour[b->side ^ 1] & ply_bb(ply_move_to(m))));
}

#endif
