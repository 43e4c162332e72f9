/*
 * Kind 2 (search)'s verification (`ply analyse --verify sample=P|all`): which root moves'
 * jobs are searched twice, by whom, how two searches are compared and a disagreement
 * settled, and the report. search/verify.c has the rules; search/kind.c calls it, and it
 * calls back search/kind.c's two functions below that put a line into the answer and take
 * it out again.
 */
#ifndef PLY_COORDINATOR_SEARCH_VERIFY_H
#define PLY_COORDINATOR_SEARCH_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "runs.h"

typedef struct ply__sv ply__sv_t;

/** ply__sv_new - the verification state of a run of @njobs jobs, or NULL (out of memory). */
ply__sv_t *ply__sv_new(size_t njobs);
/** ply__sv_free - free @*sv (NULL-safe) and NULL it. */
void ply__sv_free(ply__sv_t **sv);
/**
 * ply__sv_setup - size @run's tasks for its verify mode (three slots: the first search, the
 * check, the tie-break), choose the sample and the wire ids (the verification service's
 * ply__verify_tasks). 0, PLY_ENOMEM or PLY_EIO (no random bytes).
 */
int ply__sv_setup(ply__run_t *run);
/** ply__sv_eligible - kind->eligible of a verified search run (search/verify.c's rule). */
int ply__sv_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p,
                     int *no_hash);
/** ply__sv_tick - kind->verify_tick: a check or tie-break that no worker can take fails the run. */
void ply__sv_tick(ply_coordinator_t *c, ply__run_t *run, uint64_t now);
/** ply__sv_handed_out - task @t went out: a selected job's first search queues its check. */
void ply__sv_handed_out(ply_coordinator_t *c, ply__run_t *run, size_t t);
/**
 * ply__sv_take - search @res (owned from here; checked by the rule engine, and stored when
 * @live) of task @t by @worker / @identity with @engine_id ("" when unknown: read back from
 * the state file): kept until its job settles, or accepted at once when the job is not
 * selected. @live 0 while restoring (ply__sv_resumed settles).
 */
void ply__sv_take(ply_coordinator_t *c, ply__run_t *run, size_t t, Ply__SearchResult *res,
                  const char *worker, const char *identity, const char *engine_id, uint32_t attempt,
                  int live);
/** ply__sv_resumed - after a restore: settle every job, search again what cannot be settled. */
void ply__sv_resumed(ply_coordinator_t *c, ply__run_t *run);
/**
 * ply__sv_report - fill @v about @run (strings point into @sv, valid until its next change);
 * summary and detail lines are sanitised for the wire.
 */
void ply__sv_report(const ply__run_t *run, ply__sv_t *sv, Ply__Verification *v);

/* ---- from search/kind.c ---- */

/**
 * ply__sv_waiting - what pending task @t of verified search run @run (no connected worker
 * may take it) waits for, into @buf: "a second worker of engine E to check job N (root move
 * M; --verify all)" for a check, "a third worker ..." for a tie-break; "" for another role.
 */
void ply__sv_waiting(const ply__run_t *run, size_t t, char *buf, size_t len);

/** ply__search_sv - the verification state of search run @run (NULL: not verified). */
ply__sv_t *ply__search_sv(const ply__run_t *run);
/**
 * ply__search_accept - put checked line @res (owned from here) of job @job, computed by
 * @worker / @identity, into the answer; 0 or PLY_ENOMEM.
 */
int ply__search_accept(ply__run_t *run, size_t job, Ply__SearchResult *res, const char *worker,
                       const char *identity);
/** ply__search_unaccept - take job @job's line out of the answer again (its source was caught). */
void ply__search_unaccept(ply__run_t *run, size_t job);
/** ply__search_job_label - job @job in a few words (its root move) into @buf; returns @buf. */
const char *ply__search_job_label(const ply__run_t *run, size_t job, char *buf, size_t len);

#endif
