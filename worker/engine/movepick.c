/*
 * Move ordering (movepick.h for the order and its source).
 */
#include "movepick.h"

#include "eval.h"

static int victim_of(const ply_board_t *b, ply_move_t m)
{
    if (ply_move_kind(m) == PLY_MOVE_EP) return PLY_PAWN;
    return ply_board_piece_on(b, ply_move_to(m), NULL);
}

static int score_noisy(const ply_board_t *b, ply_move_t m, const ply__order_t *o)
{
    const int victim = ply__move_is_capture(b, m) ? victim_of(b, m) : PLY_NONE;
    const int piece = ply_move_piece(m);
    /* The capture history (+-PLY__HISTORY_MAX) moves a capture by at most
     * an eighth of a pawn's 16 * 100 among the captures of equal victims. */
    int mvv = 16 * ply_see_value[victim] - piece;
    if (o->capture) mvv += o->capture[piece][ply_move_to(m)][victim] / 8;
    if (ply_move_is_promo(m)) mvv += 16 * ply_see_value[ply_move_promo(m)];
    /* A capture by a piece worth no more than its victim never loses material. */
    int good = victim && ply_see_value[piece] <= ply_see_value[victim];
    if (!good) good = ply_see_ge(b, m, 0);
    return (good ? PLY__PICK_GOOD_CAPTURE : PLY__PICK_BAD_CAPTURE) + mvv;
}

static int quiet_score(const ply__order_t *o, ply_move_t m)
{
    const int piece = ply_move_piece(m), to = ply_move_to(m);
    int s = o->history ? o->history[ply_move_from(m)][to] : 0;
    if (o->cont[0]) s += o->cont[0][piece][to];
    if (o->cont[1]) s += o->cont[1][piece][to];
    return s;
}

int ply__picker_init(ply__picker_t *p, const ply_board_t *b, const ply__order_t *o, int noisy_only)
{
    ply_move_t all[PLY_MAX_MOVES];
    /* quiescence: the generator leaves the quiet moves out, in the same order for the rest */
    const int n = noisy_only ? ply_board_noisy_moves(b, all) : ply_board_legal_moves(b, all);
    p->n = 0;
    p->next = 0;
    if (n == 0 && noisy_only) return ply_board_count_legal(b); /* mate or stalemate, or not */
    for (int i = 0; i < n; i++) {
        const ply_move_t m = all[i];
        const int noisy = ply__move_is_capture(b, m) || ply_move_kind(m) == PLY_MOVE_PROMO_Q;
        int s;
        if (noisy_only && !noisy) continue;
        if (o->tt_move && (uint16_t)m == o->tt_move)
            s = PLY__PICK_TT;
        else if (noisy)
            s = score_noisy(b, m, o);
        else if (ply_move_is_promo(m))
            s = PLY__PICK_BAD_CAPTURE - 1; /* under-promotions: last */
        else if (m == o->killers[0])
            s = PLY__PICK_KILLER;
        else if (m == o->killers[1])
            s = PLY__PICK_KILLER - 1;
        else if (m == o->counter)
            s = PLY__PICK_COUNTER;
        else
            s = quiet_score(o, m);
        p->moves[p->n] = m;
        p->scores[p->n++] = s;
    }
    return n;
}

ply_move_t ply__picker_next(ply__picker_t *p, int *score)
{
    if (p->next >= p->n) return 0;
    int best = p->next;
    for (int i = p->next + 1; i < p->n; i++)
        if (p->scores[i] > p->scores[best]) best = i;
    const ply_move_t m = p->moves[best];
    const int s = p->scores[best];
    p->moves[best] = p->moves[p->next];
    p->scores[best] = p->scores[p->next];
    p->moves[p->next] = m;
    p->scores[p->next++] = s;
    if (score) *score = s;
    return m;
}
