/*
 * The scheduler's part of a run (dispatch.c): its tasks, their states and its queue. A run
 * reserves slots x njobs task ids from job_base: task t is computation role t / njobs of job
 * t % njobs (runs.h's ply__role_of, ply__job_of, ply__task_of). Runs without verification
 * have one slot (every task is a first computation); verified runs have more (the
 * verification service, verification.h: a check, a tie-break, a drill-down). Each task is
 * handed out, leased, re-queued and quarantined on its own; a job is settled when its kind
 * says so (ply__job_settled).
 *
 * Invariant: a task is PLY__TASK_INFLIGHT exactly when its task id is in the inflight list of
 * task.worker, with task.attempt the attempt that worker was sent. dispatch.c is the only
 * writer of ply__sched_t and of the tasks in it: the other files read them and change them
 * through the functions below.
 */
#ifndef PLY_COORDINATOR_TASKS_H
#define PLY_COORDINATOR_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "peers.h"

/* task states; PLY__TASK_UNUSED: a check, tie-break or drill-down not (yet) needed */
enum {
    PLY__TASK_PENDING = 0,
    PLY__TASK_INFLIGHT,
    PLY__TASK_DONE,
    PLY__TASK_UNUSED,
    PLY__TASK_ARBITER
};

typedef struct ply__task { /* one task */
    uint8_t state;
    uint8_t no_hash;      /* the current hand-out counts without the hash table */
    uint32_t attempt;     /* hand-outs so far; the current attempt when INFLIGHT */
    uint32_t failures;    /* attempts that failed (worker died or hung, lease, worker ERROR) */
    uint32_t avoid;       /* id_hash of the worker it last failed on: prefer another */
    ply__peer_t *worker;  /* holder when INFLIGHT */
    uint64_t deadline_ms; /* the current attempt's lease ends then (lease_for) */
    uint64_t lease_ms;    /* that lease's length, for the message when it expires */
    uint64_t queued_ms;   /* when it last entered the queue */
    char *history;        /* the failures, "; "-separated (for a quarantine report) */
} ply__task_t;

/*
 * A task the rule engine (the coordinator's own counter, rule_pool.h) holds: it is counting
 * it, or will. @token names that count, so that its answer is used only while the hold
 * stands (a late answer for a task given up, or held again by a newer count, is dropped).
 * @shared: a worker may take the task too once the run has nothing else to hand out (the
 * first answer is used); else only the rule engine answers it (a tie-break: authoritative).
 */
typedef struct ply__hold {
    uint32_t task;
    uint8_t shared;
    uint64_t token;
} ply__hold_t;

/* A run's tasks and queue (run->sched); dispatch.c writes every field. */
typedef struct ply__sched {
    size_t njobs;        /* jobs in the run's plan (0 until it is planned) */
    uint32_t slots;      /* tasks per job */
    size_t ntasks;       /* slots x njobs */
    ply__task_t *tasks;  /* one per task */
    uint8_t *settled;    /* per job: its kind took its answer (ply__job_settled) */
    uint64_t job_base;   /* task id of task 0 */
    size_t next_pending; /* the next first computation to hand out */
    uint32_t *requeue;   /* the queue: re-queued tasks, checks, tie-breaks, drill-downs */
    size_t rq_head, rq_len, rq_cap;
    size_t done;    /* jobs settled */
    size_t started; /* first computations handed out (or settled before a restart) */
    /* the idle tail: since when a worker that may take the run's tasks has had none while
     * the run had none left to hand out (0: not now); its length once the run ends */
    uint64_t tail_start_ms, tail_ms;
    uint64_t started_ms; /* its first task handed out in this session (0: not yet) */
    /* the tasks the rule engine holds (few: at most what its pool has been given) */
    ply__hold_t *holds;
    size_t nholds, capholds;
    uint64_t next_token;
} ply__sched_t;

/** ply__queue_push - put task @t at the back of the run's queue; 0 or PLY_ENOMEM. */
int ply__queue_push(ply__run_t *run, size_t t);
/* Task state: the only way other files change a ply__task_t (they may read it). */
/**
 * ply__task_queue - task @t of @run (not in flight) is PENDING and at the back of the queue,
 * its queue time now; a failed push fails the run (PLY_ENOMEM).
 */
void ply__task_queue(ply__run_t *run, size_t t);
/**
 * ply__task_recycle - the result of task @t of @run (no longer in flight) is in, and the task
 * goes round again as a new job (a deepening analysis's slot, search/deepen.h): queued, its
 * failures and their history forgotten (they were another job's), its attempts still counted
 * (a late answer of an old attempt is told apart).
 */
void ply__task_recycle(ply__run_t *run, size_t t);
/**
 * ply__task_done - task @t of @run is over: its result is in, or it is no longer wanted
 * (PLY__TASK_DONE, no holder). The caller has taken it out of its worker's inflight list.
 */
void ply__task_done(ply__run_t *run, size_t t);
/**
 * ply__task_unused - task @t of @run (a check, tie-break or drill-down, not in flight) is not
 * needed (PLY__TASK_UNUSED, no holder); a result that still comes back for it is dropped.
 */
void ply__task_unused(ply__run_t *run, size_t t);
/**
 * ply__task_by_arbiter - task @t of @run (not in flight, not queued) is held by the rule engine
 * (PLY__TASK_ARBITER, ply__hold_t): @shared, a worker may take it too when the run has
 * nothing else to hand out (ply__dispatch; the first answer is used). Returns the hold's
 * token (never 0), which the count passes to ply__task_held; 0 when out of memory (nothing
 * changed: the caller queues the task for the workers instead).
 */
uint64_t ply__task_by_arbiter(ply__run_t *run, size_t t, int shared);
/**
 * ply__task_held - 1 while the hold of @token on task @t of @run stands: its count's answer
 * is wanted. It ends when the task is done, unused or queued for the workers alone
 * (ply__task_done, ply__task_unused, ply__task_queue), given up (ply__task_unhold) or taken
 * (ply__task_take_back). A worker racing a shared hold does not end it.
 */
int ply__task_held(const ply__run_t *run, size_t t, uint64_t token);
/**
 * ply__task_unhold - the rule engine gives held task @t of @run up (beyond its budget): when
 * no worker races it the task is queued for the workers; else that computation goes on alone.
 */
void ply__task_unhold(ply__run_t *run, size_t t);
/**
 * ply__task_take_back - the rule engine's answer for held task @t of @run is the one used:
 * the hold ends, and a worker racing it loses it (out of its in-flight list, told to stop:
 * its result, if it still comes, is ignored as a superseded attempt). The task stays
 * PLY__TASK_ARBITER until the caller takes the answer (ply__task_done).
 */
void ply__task_take_back(ply_coordinator_t *c, ply__run_t *run, size_t t);
/**
 * ply__task_restored - task @t of @run, read back from the state file, had @attempt hand-outs
 * and @failures failed attempts, described by @history ("; "-separated, "" or NULL for none;
 * copied: a copy that cannot be made is left out), so that a restart does not reset its
 * quarantine count.
 */
void ply__task_restored(ply__run_t *run, size_t t, uint32_t attempt, uint32_t failures,
                        const char *history);
/**
 * ply__task_requeue - put in-flight task @idx of @run back in its queue (the
 * caller has taken it out of the worker's inflight list). @failure: the
 * attempt failed (it counts towards max_attempts and quarantine, see
 * dispatch.c); @reason says why, for the log and a quarantine report.
 */
void ply__task_requeue(ply_coordinator_t *c, ply__run_t *run, size_t idx, int failure,
                       const char *reason);
/** ply__cancel_on_worker - tell worker @p to stop task @idx of @run: it was taken back. */
void ply__cancel_on_worker(ply_coordinator_t *c, ply__peer_t *p, const ply__run_t *run, size_t idx);
/**
 * ply__withdraw - take every task of @run that a worker of identity
 * @identity holds back from it (not counted as failures) and re-queue them.
 */
void ply__withdraw(ply_coordinator_t *c, ply__run_t *run, const char *identity);
/**
 * ply__dispatch - hand out tasks while workers have credit and may take one; a worker that
 * no run has anything for races a shared task the rule engine holds (ply__task_by_arbiter)
 * when its kind lets it take the task with its hash table (another identity than the one
 * that computed first).
 */
void ply__dispatch(ply_coordinator_t *c);
/** ply__check_leases - tasks whose lease ended before @now (ms, monotonic) fail their attempt. */
void ply__check_leases(ply_coordinator_t *c, uint64_t now);

/**
 * ply__tasks_plan - @run is planned into @njobs jobs (its kind's plan, or its restore): what
 * the verification service sizes its tasks from.
 */
void ply__tasks_plan(ply__run_t *run, size_t njobs);
/**
 * ply__tasks_alloc - @slots tasks per job of planned @run: slots, ntasks, the tasks (all
 * PENDING) and the settled flags. 0 or PLY_ENOMEM (what was allocated is freed with the run).
 */
int ply__tasks_alloc(ply__run_t *run, uint32_t slots);
/** ply__tasks_free - free @run's tasks and queue (from any run state). */
void ply__tasks_free(ply__run_t *run);
/**
 * ply__tasks_number - give @run's tasks their ids: the next free ones of @c, or (@base not
 * UINT64_MAX: a run read back from the state file) from @base, the next free ones after it.
 */
void ply__tasks_number(ply_coordinator_t *c, ply__run_t *run, uint64_t base);
/** ply__tasks_resumed - a restored run's settled jobs count as started ("running"). */
void ply__tasks_resumed(ply__run_t *run);
/** ply__job_settled - job @idx of @run is settled: its answer is in (kinds call it). */
void ply__job_settled(ply__run_t *run, size_t idx);
/** ply__job_unsettled - settled job @idx's answer was taken out again (its source was caught). */
void ply__job_unsettled(ply__run_t *run, size_t idx);
/**
 * ply__run_tail_ms - the length of @run's idle tail at @now (ms, monotonic), fixed once the
 * run's answer is built: what RunResult.tail_ms reports.
 */
uint64_t ply__run_tail_ms(ply__run_t *run, uint64_t now);

#endif
