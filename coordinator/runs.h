/*
 * The run registry (runs.c): a run is what a client asked, from SUBMIT (or the state file) to
 * its answer. ply__run_t keeps what the scheduler and the registry need; what a kind computes is
 * its own (run->kind_state: perft/perft.h, search/kind.c); the tasks are the scheduler's
 * (run->sched, tasks.h); the verification is the verification service's (run->verif,
 * verification.h). Each field has one writing file, named beside it: the others read it and
 * change it through that file's functions.
 *
 * Runs finish (done, failed, canceled) by changing state; ply__reap_runs() then answers the
 * client, records the end in the state file and frees them at the end of the current
 * callback, so that no list is modified while a caller walks it.
 */
#ifndef PLY_COORDINATOR_RUNS_H
#define PLY_COORDINATOR_RUNS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <czmq.h>
#include <uv.h>

#include "core.h"
#include "tasks.h"
#include "verification.h"

enum { PLY__RUN_SPLITTING = 0, PLY__RUN_ACTIVE, PLY__RUN_DONE, PLY__RUN_FAILED };
struct ply__kind; /* kind.h */

struct ply__run {
    struct ply__run *next;          /* runs.c: the list c->runs, submission order */
    ply_coordinator_t *c;           /* runs.c */
    const struct ply__kind *kind;   /* runs.c: what its jobs are */
    void *kind_state;               /* runs.c (kind->state_new, freed by kind->free_run): the
                                       kind's run state (what it asks, its plan, its answer) */
    uint64_t id;                    /* runs.c */
    char owner[PLY__IDENT_LEN];     /* runs.c: whose it is (ply__principal), "" for a run
                                       stored before runs had owners */
    zframe_t *client;               /* runs.c: who is told (NULL: a restored run, unclaimed) */
    uint64_t client_seen_ms;        /* runs.c: when a client last attached to it or asked about
                                       it again (ply__run_attach; monotonic) */
    uint8_t key[PLY_STORE_KEY_MAX]; /* runs.c (ply__run_set_key): its client's idempotency key
                                       (Submit.idempotency_key), key_len bytes; 0: none */
    size_t key_len;
    int state;                      /* runs.c: PLY__RUN_* */
    int detach;                     /* runs.c: its client does not stream progress */
    ply__verif_t verif;             /* verification.c: the mode, the draws, the identities */
    uv_work_t work;                 /* client_msgs.c: the plan, on the thread pool (kind->plan) */
    atomic_int cancel;              /* runs.c: the plan is to stop (read on the thread pool) */
    int canceled;                   /* runs.c: by a client: report "canceled" */
    int interrupted;                /* runs.c: the coordinator stopped: the state file keeps it */
    ply__sched_t sched;             /* dispatch.c: the tasks, the queue, the idle tail */
    uint64_t no_fit_since_ms;       /* service.c: since when workers are connected but none may
                                       take its jobs (kind->worker_fits), or 0 */
    int restored;                   /* restore.c: read back from the state file */
    uint32_t results_restored;      /* restore.c: computations read back */
    uint32_t results_computed;      /* runs.c: computations received since (ply__run_computed) */
    int64_t submitted_unix_ms;      /* runs.c: when it was submitted (wall clock) */
    uint64_t submitted_ms;          /* runs.c: ... (monotonic; a restored run: its age) */
    uint64_t accepted_ms;           /* runs.c: accepted, or restored (monotonic) */
    int fail_code;                  /* runs.c: why it failed (a PLY_E... code) */
    char fail_msg[PLY__WHY_LEN];    /* runs.c: ... in words */
    char waiting[PLY__WHY_LEN / 2]; /* runs.c: what it waits for when no connected worker may
                                       take its tasks ("" when it does not):
                                       RunProgress.waiting (ply__run_update_waiting) */
};

struct ply__finished {
    struct ply__finished *next;
    uint64_t id;
    char owner[PLY__IDENT_LEN];
    const char *state;
    uint32_t jobs_total, jobs_done;
    ply_u128_t nodes;
    uint64_t elapsed_ms;
    char fen[PLY_ARB_FEN_MAX];
    unsigned depth;
    char verify[32];
    /* what it computed (RunAsked), which its kind rebuilds (kind->asked_again): its kind, its
     * verification, and its request as the kind encodes it (kind->store_run, as the state file
     * keeps it; has_request 0 when it has none or it is longer than request) */
    int kind;
    int verify_mode;
    uint32_t verify_ppm;
    int has_request;
    size_t request_len;
    uint8_t request[PLY_STORE_FINISHED_REQUEST_MAX];
    uint8_t key[PLY_STORE_KEY_MAX]; /* its idempotency key, key_len bytes (0: none or not known:
                                       read from the store, which ply_store_find_key asks) */
    size_t key_len;
    uint64_t counted_nodes, time_ms; /* its rate's nodes and time (0 when read from the store) */
    uint64_t tail_ms;                /* its idle tail (dispatch.c; 0 when read from the store) */
    uint32_t mismatches;             /* verification mismatches found in it */
    char error[PLY__WHY_LEN];
    zmsg_t *reply; /* the RunResult or the Error the client got */
};

/**
 * ply__run_planned - 1 when @run is planned (active or done: its jobs are known), 0 while it
 * is being planned (splitting) and when it failed before its plan was adopted.
 */
static inline int ply__run_planned(const ply__run_t *run)
{
    return run->state == PLY__RUN_ACTIVE || run->state == PLY__RUN_DONE;
}

/** ply__role_of - the computation role (PLY__FIRST...PLY__DRILL) of task @t of @run. */
static inline size_t ply__role_of(const ply__run_t *run, size_t t)
{
    return t / run->sched.njobs;
}

/** ply__job_of - the job (index in the plan) of task @t of @run. */
static inline size_t ply__job_of(const ply__run_t *run, size_t t)
{
    return t % run->sched.njobs;
}

/** ply__task_of - the task of computation @role of job @idx of @run. */
static inline size_t ply__task_of(const ply__run_t *run, size_t idx, int role)
{
    return (size_t)role * run->sched.njobs + idx;
}

/**
 * ply__task_bound - 1 when task @t of @run is bound to the one worker whose computation it
 * examines (the drill-down role): withdrawing that worker's tasks leaves it.
 */
static inline int ply__task_bound(const ply__run_t *run, size_t t)
{
    return ply__role_of(run, t) == PLY__DRILL;
}

/** ply__run_fail - mark the run failed (the first reason wins); it is answered when reaped. */
void ply__run_fail(ply__run_t *run, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** ply__task_find - the active run holding the task of wire id @job_id (its index in *idx), or
 * NULL.
 */
ply__run_t *ply__task_find(ply_coordinator_t *c, uint64_t job_id, size_t *idx);
/** ply__run_find - the run with id @id still in memory (any state), or NULL. */
ply__run_t *ply__run_find(ply_coordinator_t *c, uint64_t id);
/**
 * ply__run_new - a new run of @kind owned by @owner (the only place a run is created;
 * ply__run_free is the only place it is freed), in no list yet, with its kind's empty state
 * (kind->state_new): its kind's submit or restore makes it what it asks. NULL when out of
 * memory.
 */
ply__run_t *ply__run_new(ply_coordinator_t *c, const struct ply__kind *kind, const char *owner);
/** ply__run_free - free a run that is in no list, with everything it owns. */
void ply__run_free(ply__run_t *run);
/** ply__finished_find - the finished run @id kept in memory, or NULL. */
ply__finished_t *ply__finished_find(ply_coordinator_t *c, uint64_t id);
/** ply__finished_from_store - a stored summary as a ply__finished_t (reply NULL). */
void ply__finished_from_store(ply__finished_t *f, const ply_store_finished_t *sf);
/**
 * ply__finished_lookup - a finished run: from memory, else read back from
 * the state file into *tmp with its reply re-framed (the caller destroys
 * tmp->reply). NULL when unknown.
 */
ply__finished_t *ply__finished_lookup(ply_coordinator_t *c, uint64_t id, ply__finished_t *tmp);
/** ply__run_queued_ms - how long @run waited from its acceptance (or restore) for its first job to
 * go out, ms, at @now (ms, monotonic). */
uint64_t ply__run_queued_ms(const ply__run_t *run, uint64_t now);
/**
 * ply__run_time_ms - the run's time, ms: from its submission (a resumed run: from its restore,
 * as its counted nodes are this session's) to @now, less the time it waited in the queue.
 */
uint64_t ply__run_time_ms(const ply__run_t *run, uint64_t now);
/** What a run computes (RunAsked) with room for the sub-message it points to (a kind's
 * request, RunAsked.perft: the kind's own type), so that answers about many runs can be built
 * at once. */
typedef struct ply__asked {
    Ply__RunAsked msg;
    _Alignas(max_align_t) unsigned char room[256];
} ply__asked_t;
/** ply__run_asked - what @run computes, as every answer about it says, into @a->msg (strings
 * point into @run, and into @a). */
void ply__run_asked(ply__asked_t *a, const ply__run_t *run);
/**
 * ply__fill_progress - fill @rp about @run, or about the finished record @f
 * (strings point into them; rp->asked to @asked), as @who may see it: the
 * count only for its owner (or an admin); @brief: a run in a list, without its kind's
 * answer so far (a search's lines: ask the run for those).
 */
void ply__fill_progress(ply_coordinator_t *c, Ply__RunProgress *rp, ply__asked_t *asked,
                        const ply__run_t *run, const ply__finished_t *f, const char *who,
                        int brief);
/**
 * ply__send_progress - send a RunProgress about @run (or the finished record
 * @f) to @rid, with the worker list when @with_workers; nothing when @rid is NULL.
 */
void ply__send_progress(ply_coordinator_t *c, zframe_t *rid, const ply__run_t *run,
                        const ply__finished_t *f, int with_workers, const char *who);
/** ply__run_state_name - "splitting", "queued", "running", "done", "failed" or "canceled". */
const char *ply__run_state_name(const ply__run_t *run);
/**
 * ply__run_work_done - the part of @run's estimated work done, 0 to 1: its jobs whose first
 * computation is in, weighted by the kind's job_estimate (nodes). -1 before it is planned
 * (no jobs yet). What /status's progress and RunProgress.work_done_ppm report.
 */
double ply__run_work_done(const ply__run_t *run);
/**
 * ply__run_update_waiting - at every tick, for an active run: what it waits for when
 * workers are connected but none may take any of its tasks (none runs the engine or kind
 * it asks; its checks need another worker of the same engine) into run->waiting, logged
 * once when it changes; "" when a worker holds or may take a task, or none is connected
 * (that wait has its own message).
 */
void ply__run_update_waiting(ply_coordinator_t *c, ply__run_t *run);

/** ply__run_in_flight - the tasks of @run that workers hold now. */
uint32_t ply__run_in_flight(ply_coordinator_t *c, const ply__run_t *run);
/** ply__reap_runs - answer, record in the state file and free every run that is done or failed. */
void ply__reap_runs(ply_coordinator_t *c);

/**
 * ply__run_add - @run (new, its kind's submit or restore done) gets the id @id and joins the
 * end of @c's runs.
 */
void ply__run_add(ply_coordinator_t *c, ply__run_t *run, uint64_t id);
/** ply__run_submitted - @run was submitted at @unix_ms (wall clock, ms; 0: now). */
void ply__run_submitted(ply__run_t *run, int64_t unix_ms);
/**
 * ply__run_activate - planned (or restored) @run is set up: active, or done at once when it
 * has no jobs (@restored: active whatever), accepted now.
 */
void ply__run_activate(ply__run_t *run, int restored);
/** ply__run_done - active @run has every answer it needs: done (answered when reaped). */
void ply__run_done(ply__run_t *run);
/** ply__run_reopen - @run, done in this callback, needs a job again (its source was caught):
 * active again. */
void ply__run_reopen(ply__run_t *run);
/**
 * ply__run_attach - @client (taken; NULL: none) is @run's client from now, streaming
 * progress unless @detach.
 */
void ply__run_attach(ply__run_t *run, zframe_t *client, int detach);
/**
 * ply__run_set_key - @run was submitted with idempotency key @key (@len bytes, at most
 * PLY_STORE_KEY_MAX, which the envelope checked: a longer one is not kept; 0: none), kept
 * with it and its finished record.
 */
void ply__run_set_key(ply__run_t *run, const uint8_t *key, size_t len);
/**
 * ply__run_same_key - 1 when @run (or, @run NULL, finished record @f) was submitted by
 * @owner with idempotency key @key (@len bytes, > 0).
 */
int ply__run_same_key(const ply__run_t *run, const ply__finished_t *f, const char *owner,
                      const uint8_t *key, size_t len);
/** ply__run_cancel - a client canceled @run: its plan stops, or it fails as canceled, or its
 * kind ends it with its answer so far (kind->stop: a deepening analysis). */
void ply__run_cancel(ply__run_t *run);
/**
 * ply__run_stop - the coordinator stops: @run's plan stops; @keep: the state file keeps it
 * (it resumes at the next start), so its end is not recorded.
 */
void ply__run_stop(ply__run_t *run, int keep);
/**
 * ply__run_result_encode - the answer @rr of @run as an encoded Message (the caller owns it),
 * checked first as a client will check it (ply_msg_validate: an answer carries text from
 * workers); NULL when it does not pass or does not encode, logged with the reason. What every
 * kind's answer hook returns.
 */
zmsg_t *ply__run_result_encode(const ply__run_t *run, Ply__RunResult *rr);
/** ply__run_computed - a computation of @run is stored: counted in the run, and in the
 * coordinator's results computed when @by_worker (not the rule engine's). */
void ply__run_computed(ply_coordinator_t *c, ply__run_t *run, int by_worker);

#endif
