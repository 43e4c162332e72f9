/*
 * Time management: how long one move may think, from the UCI clock.
 *
 * Two budgets: the soft one is checked between iterations (no new iteration
 * is started past it), the hard
 * one inside the search (about every thousand nodes), so that a search
 * never overruns the clock even when one iteration explodes. Move Overhead
 * (GUI and pipe latency) is taken off the clock before anything else.
 */
#ifndef PLY_WORKER_TIMEMAN_H
#define PLY_WORKER_TIMEMAN_H

#include <stdint.h>

#include "search.h"

typedef struct ply__budget {
    int64_t soft_ms; /* -1: no time limit */
    int64_t hard_ms; /* -1: no time limit */
} ply__budget_t;

/**
 * ply__time_budget - the budgets for the side @side (PLY_WHITE/PLY_BLACK) to
 * move under @l, with @n_legal legal moves at the root (one legal move is
 * played almost at once). movetime wins over the clock; with neither, both
 * budgets are -1.
 */
ply__budget_t ply__time_budget(const ply_search_limits_t *l, int side, int n_legal);

#endif
