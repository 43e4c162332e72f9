/*
 * The job runners of the worker, one line per kind (runner.h): the kinds its HELLO lists,
 * in this order, and the runner each Job goes to (service.c, by Job.kind).
 */
#include "runner.h"

extern const ply__runner_t ply__perft_runner;  /* run_perft.c */
extern const ply__runner_t ply__search_runner; /* run_search.c */

const ply__runner_t *const ply__runners[] = {
    &ply__perft_runner,
    &ply__search_runner,
};
const size_t ply__n_runners = sizeof ply__runners / sizeof ply__runners[0];
