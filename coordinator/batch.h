/*
 * The group commit of stored results (batch.c): results that arrive together share one
 * transaction of the state file, committed at every tick and before anything that could
 * make them known. batch.c writes the coordinator's batch_* fields.
 */
#ifndef PLY_COORDINATOR_BATCH_H
#define PLY_COORDINATOR_BATCH_H

#include <stddef.h>

#include "runs.h"

/**
 * ply__batch_flush - commit the results stored since the last flush (group
 * commit: at every tick, at most PLY__BATCH_MAX results, and before anything
 * that could make them known: answering a run, a client message, a progress
 * report). Until then they are only in memory, and a crash loses them to a
 * recomputation, never to a wrong or a partial answer. A failed commit fails
 * their runs. Idempotent.
 */
void ply__batch_flush(ply_coordinator_t *c);
/**
 * ply__result_drop - delete the stored computation @role (PLY__FIRST, PLY__CHECK, PLY__TIE)
 * of job @idx of @run, in the open group-commit transaction (opened when none is): it is
 * computed again. Nothing without a state file; a store error fails @run (PLY_EDB).
 */
void ply__result_drop(ply_coordinator_t *c, ply__run_t *run, size_t idx, int role);
/**
 * ply__result_store - store result @r of @run in the open group-commit transaction (opened
 * when none is: see ply__batch_flush), flushed once PLY__BATCH_MAX results wait. 0 without a
 * state file; PLY_EDB or PLY_EINVAL (ply_store_add_result's) with the reason in @why.
 */
int ply__result_store(ply_coordinator_t *c, const ply__run_t *run, const ply_store_result_t *r,
                      char *why, size_t why_len);
#endif
