/*
 * Runs read back from the state file when the coordinator starts (DESIGN.md,
 * Durable state): every unfinished run becomes active again with its stored
 * plan and task ids, every stored computation is taken as if it had just
 * arrived (counted, or kept for comparison), and only what is missing is
 * handed out again: no completed job is recomputed, in-flight jobs of the
 * dead coordinator are simply pending again (their failed attempts still
 * count towards quarantine), and the final totals are those an uninterrupted
 * run gives.
 *
 * A run stored before it was planned (its request alone: the coordinator
 * died between acknowledging it and storing its plan, client_msgs.c) is
 * planned again from its request, as a submitted run is, and then runs.
 *
 * A restored run has no client until one submits the same request (the
 * `ply perft --state FILE` that was interrupted, run again), re-sends its
 * Submit with the same idempotency key, or asks for it with
 * ResultRequest{attach}; its answer is stored when it finishes, so
 * `ply result RUN` finds it at any time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "verification.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

typedef struct restore {
    ply_coordinator_t *c;
    ply__run_t *last; /* the run results are being read for (they come in run order) */
    char *why;
    size_t why_len;
} restore_t;

/* One stored run back in the run list; takes its plan. */
static int on_run(void *arg, const ply_store_run_t *sr, ply_split_t **plan)
{
    restore_t *rs = arg;
    ply_coordinator_t *c = rs->c;
    const ply__kind_t *kind = ply__kind_of(sr->kind);
    if (!kind) /* the store knows it */
        return ply_why(rs->why, rs->why_len, PLY_EDB,
                       "state file %s: run %" PRIu64 " is of job kind %d%s, which this "
                       "coordinator cannot run",
                       c->state_path, sr->id, sr->kind, *plan ? " with a plan" : " without a plan");
    ply__run_t *run = ply__run_new(c, kind, sr->owner);
    if (!run) return PLY_ENOMEM;
    run->restored = 1;
    ply__verify_mode_set(run, sr->verify_mode, sr->verify_ppm);
    ply__run_submitted(run, sr->submitted_unix_ms); /* elapsed time counts from then */
    ply__run_set_key(run, sr->key, sr->key_len);
    int r = kind->restore(c, run, sr, plan, rs->why, rs->why_len); /* what it asks, planned */
    if (!sr->planned) { /* its request alone: planned once every run is read (ply__restore) */
        ply__run_add(c, run, sr->id);
        c->runs_restored++;
        return r;
    }
    if (r == 0) r = run->kind->setup(run);
    if (r == 0 && run->sched.slots != sr->slots) {
        snprintf(rs->why, rs->why_len,
                 "state file %s: run %" PRIu64 " has %u task slots per job, verify %s needs %u",
                 c->state_path, sr->id, sr->slots, run->verif.text, run->sched.slots);
        r = PLY_EDB;
    }
    ply__run_activate(run, 1);
    ply__run_add(c, run, sr->id); /* at the end: runs keep their submission order */
    c->runs_restored++;
    ply__tasks_number(c, run, sr->job_base);
    return r;
}

static ply__run_t *find(restore_t *rs, uint64_t id)
{
    if (rs->last && rs->last->id == id) return rs->last;
    for (ply__run_t *run = rs->c->runs; run; run = run->next)
        if (run->id == id) return rs->last = run;
    return NULL;
}

/* One stored computation, taken by its run's kind as if it had just arrived (no drill-down). */
static int on_result(void *arg, const ply_store_result_t *r)
{
    restore_t *rs = arg;
    ply__run_t *run = find(rs, r->run_id);
    if (!run) return 0; /* a run that could not be restored: it failed above */
    int taken = run->kind->restore_result(rs->c, run, r, rs->why, rs->why_len);
    if (taken > 0) {
        run->results_restored++;
        rs->c->results_restored++;
    }
    return taken < 0 ? taken : 0;
}

/* A task's failed attempts: they keep counting towards max_attempts. */
static int on_failure(void *arg, const ply_store_failure_t *f)
{
    restore_t *rs = arg;
    ply__run_t *run = find(rs, f->run_id);
    if (!run || f->task >= run->sched.ntasks)
        return 0; /* a run that failed to restore, or a stale row */
    if (run->sched.tasks[f->task].state == PLY__TASK_DONE) return 0;
    ply__task_restored(run, f->task, f->attempt, f->failures, f->history);
    return 0;
}

int ply__restore(ply_coordinator_t *c, char *why, size_t why_len)
{
    uint64_t t0 = ply_time_ns();
    int r = ply_store_next_job_base(c->store, &c->next_job_base);
    if (r < 0) {
        snprintf(why, why_len, "state file %s: cannot read it", c->state_path);
        return r;
    }
    restore_t rs = {c, NULL, why, why_len};
    why[0] = '\0';
    r = ply_store_load(c->store, on_run, on_result, &rs, why, why_len);
    if (r == 0) r = ply_store_load_failures(c->store, on_failure, &rs, why, why_len);
    if (r < 0) {
        if (!why[0]) snprintf(why, why_len, "state file %s: %s", c->state_path, ply_strerror(r));
        return r;
    }
    size_t pending = 0;
    unsigned unplanned = 0;
    for (ply__run_t *run = c->runs; run; run = run->next) {
        char what[PLY__WHY_LEN];
        run->kind->describe_run(run, what, sizeof what);
        if (run->state == PLY__RUN_SPLITTING) { /* stored before its plan: planned now */
            ply_info("run %" PRIu64 " restored: %s, stored before it was planned: planning it",
                     run->id, what);
            unplanned++;
            ply__run_plan(c, run); /* a failure fails it: reaped with the others */
            continue;
        }
        run->kind->resumed(c, run);
        ply__tasks_resumed(run); /* "running" once any job is done, as before the restart */
        pending += run->sched.njobs - run->sched.done;
        ply_info("run %" PRIu64 " restored: %s, %zu of %zu jobs done, %u results read back",
                 run->id, what, run->sched.done, run->sched.njobs, run->results_restored);
    }
    if (c->runs_restored)
        ply_info("restored %u unfinished run(s) from %s: %u results read back, %zu jobs to go, "
                 "%u run(s) to plan (%.1f ms)",
                 c->runs_restored, c->state_path, c->results_restored, pending, unplanned,
                 (double)(ply_time_ns() - t0) / 1e6);
    return 0;
}
