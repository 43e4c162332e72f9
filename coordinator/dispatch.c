/*
 * The scheduler: each run's queue, the hand-out of tasks to workers with
 * their leases, and what happens to a task whose attempt ends without a
 * result (re-queued, or quarantined).
 *
 * Scheduling is pull with credit: a READY{n} adds n to the worker's credit
 * (credit-based flow control, never above PLY_MAX_CREDIT with the jobs it
 * holds), each JOB takes one. Jobs go out round-robin over the workers with
 * credit, runs round-robin (each hand-out starts at the run after the one
 * served last: a new small run is not held until a big one has nothing left
 * to hand out), each run's queue (re-queued tasks, checks, tie-breaks)
 * ahead of its first computations, biggest job first. A run's tasks go only
 * to workers that run its kind (kind->worker_fits). A queued task goes to
 * the first worker that may take it (its kind's rule, kind->eligible: a perft check prefers another
 * worker with another Zobrist seed; a failed task prefers another worker).
 *
 * A lease bounds each attempt (lease_for); an attempt that fails (its worker
 * died, hung or reported an error, or its lease expired) re-queues the task,
 * and a task that fails max_attempts times is quarantined: its run fails
 * with the position and every failure.
 *
 * A worker that no run has a task for races a check the rule engine holds
 * (next_held): the rule engine never leaves a worker idle at a run's end.
 *
 * It also clocks each run's idle tail (note_tails).
 *
 * This file is the only writer of a run's tasks and queue (run->sched,
 * tasks.h): the others read them and change them through the functions of
 * tasks.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "peers.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"
#include "verification.h"

/* How far into a run's queue dispatch looks for a task the asking worker may take. */
#define QUEUE_SCAN 256

/* --------------------------------------------------------------- the queue */

int ply__queue_push(ply__run_t *run, size_t idx)
{
    if (run->sched.rq_head && run->sched.rq_head + run->sched.rq_len == run->sched.rq_cap) {
        memmove(run->sched.requeue, run->sched.requeue + run->sched.rq_head,
                run->sched.rq_len * sizeof *run->sched.requeue);
        run->sched.rq_head = 0;
    }
    if (run->sched.rq_head + run->sched.rq_len == run->sched.rq_cap) {
        size_t cap = run->sched.rq_cap ? run->sched.rq_cap * 2 : 16;
        uint32_t *a = realloc(run->sched.requeue, cap * sizeof *a);
        if (!a) return PLY_ENOMEM;
        run->sched.requeue = a;
        run->sched.rq_cap = cap;
    }
    run->sched.requeue[run->sched.rq_head + run->sched.rq_len++] = (uint32_t)idx;
    return 0;
}

/* Takes entry @k out of the run's queue (the queue is short: a scan is cheap). */
static void queue_remove(ply__run_t *run, size_t k)
{
    uint32_t *q = run->sched.requeue + run->sched.rq_head;
    memmove(q + k, q + k + 1, (run->sched.rq_len - k - 1) * sizeof *q);
    if (--run->sched.rq_len == 0) run->sched.rq_head = 0;
}

/* ------------------------------------------------------------ task state */

/* The other files change a task's state through these only (tasks.h's invariant). */

/* The index of task @t's hold in run->sched.holds, or -1. */
static long hold_find(const ply__run_t *run, size_t t)
{
    for (size_t i = 0; i < run->sched.nholds; i++)
        if (run->sched.holds[i].task == t) return (long)i;
    return -1;
}

/* Task @t is no longer held by the rule engine (if it was). */
static void hold_drop(ply__run_t *run, size_t t)
{
    long i = run->sched.nholds ? hold_find(run, t) : -1;
    if (i >= 0) run->sched.holds[i] = run->sched.holds[--run->sched.nholds];
}

void ply__task_queue(ply__run_t *run, size_t t)
{
    hold_drop(run, t);
    run->sched.tasks[t].state = PLY__TASK_PENDING;
    run->sched.tasks[t].queued_ms = ply_time_ms();
    if (ply__queue_push(run, t) != 0) ply__run_fail(run, PLY_ENOMEM, "out of memory");
}

void ply__task_recycle(ply__run_t *run, size_t t)
{
    ply__task_t *j = &run->sched.tasks[t];
    j->worker = NULL;
    j->failures = 0, j->avoid = 0;
    free(j->history);
    j->history = NULL;
    ply__task_queue(run, t);
}

void ply__task_done(ply__run_t *run, size_t t)
{
    hold_drop(run, t);
    run->sched.tasks[t].state = PLY__TASK_DONE;
    run->sched.tasks[t].worker = NULL;
}

void ply__task_unused(ply__run_t *run, size_t t)
{
    hold_drop(run, t);
    run->sched.tasks[t].state = PLY__TASK_UNUSED;
    run->sched.tasks[t].worker = NULL;
}

uint64_t ply__task_by_arbiter(ply__run_t *run, size_t t, int shared)
{
    ply__sched_t *s = &run->sched;
    hold_drop(run, t);
    if (s->nholds == s->capholds) {
        size_t cap = s->capholds ? s->capholds * 2 : 4;
        ply__hold_t *h = realloc(s->holds, cap * sizeof *h);
        if (!h) return 0;
        s->holds = h;
        s->capholds = cap;
    }
    uint64_t token = ++s->next_token;
    s->holds[s->nholds++] = (ply__hold_t){(uint32_t)t, (uint8_t)(shared != 0), token};
    s->tasks[t].state = PLY__TASK_ARBITER;
    return token;
}

int ply__task_held(const ply__run_t *run, size_t t, uint64_t token)
{
    long i = t < run->sched.ntasks ? hold_find(run, t) : -1;
    return i >= 0 && run->sched.holds[i].token == token;
}

void ply__task_unhold(ply__run_t *run, size_t t)
{
    if (run->sched.tasks[t].state == PLY__TASK_ARBITER)
        ply__task_queue(run, t); /* drops the hold */
    else
        hold_drop(run, t); /* a worker has it (in flight, or queued again after a failure) */
}

void ply__task_take_back(ply_coordinator_t *c, ply__run_t *run, size_t t)
{
    ply__task_t *j = &run->sched.tasks[t];
    hold_drop(run, t);
    if (j->state == PLY__TASK_INFLIGHT && j->worker) {
        ply__inflight_remove(j->worker, ply__wire_id(run, t));
        ply__cancel_on_worker(c, j->worker, run, t);
        ply_debug("run %" PRIu64 ": job %" PRIu64 ": the rule engine answered first, %s stops",
                  run->id, run->sched.job_base + t, j->worker->name);
    }
    j->state = PLY__TASK_ARBITER; /* a queue entry left behind (PENDING before) is skipped */
    j->worker = NULL;
}

void ply__task_restored(ply__run_t *run, size_t t, uint32_t attempt, uint32_t failures,
                        const char *history)
{
    ply__task_t *j = &run->sched.tasks[t];
    j->attempt = attempt;
    j->failures = failures;
    free(j->history);
    j->history = history && history[0] ? strdup(history) : NULL;
}

/* ------------------------------------------------------------ the tasks */

void ply__tasks_plan(ply__run_t *run, size_t njobs)
{
    run->sched.njobs = njobs;
}

int ply__tasks_alloc(ply__run_t *run, uint32_t slots)
{
    ply__sched_t *s = &run->sched;
    s->slots = slots;
    s->ntasks = s->njobs * slots;
    s->tasks = calloc(s->ntasks ? s->ntasks : 1, sizeof *s->tasks);
    s->settled = calloc(s->njobs ? s->njobs : 1, 1);
    return s->tasks && s->settled ? 0 : PLY_ENOMEM;
}

void ply__tasks_free(ply__run_t *run)
{
    ply__sched_t *s = &run->sched;
    for (size_t t = 0; s->tasks && t < s->ntasks; t++) free(s->tasks[t].history);
    free(s->tasks);
    free(s->settled);
    free(s->requeue);
    free(s->holds);
    s->tasks = NULL;
    s->settled = NULL;
    s->requeue = NULL;
    s->holds = NULL;
    s->nholds = s->capholds = 0;
}

void ply__tasks_number(ply_coordinator_t *c, ply__run_t *run, uint64_t base)
{
    if (base == UINT64_MAX) {
        run->sched.job_base = c->next_job_base;
        c->next_job_base += run->sched.ntasks;
        return;
    }
    run->sched.job_base = base;
    if (base + run->sched.ntasks > c->next_job_base) c->next_job_base = base + run->sched.ntasks;
}

void ply__tasks_resumed(ply__run_t *run)
{
    run->sched.started = run->sched.done;
}

void ply__job_settled(ply__run_t *run, size_t idx)
{
    run->sched.settled[idx] = 1;
    run->sched.done++;
}

void ply__job_unsettled(ply__run_t *run, size_t idx)
{
    run->sched.settled[idx] = 0;
    run->sched.done--;
}

uint64_t ply__run_tail_ms(ply__run_t *run, uint64_t now)
{
    if (run->sched.tail_start_ms && !run->sched.tail_ms)
        run->sched.tail_ms = ply_elapsed_ms(now, run->sched.tail_start_ms);
    return run->sched.tail_ms;
}

/* ------------------------------------------------------- taking tasks back */

/* Appends "attempt N: reason" to the task's failure history (kept for a quarantine report). */
static void note_failure(ply__task_t *j, const char *reason)
{
    size_t old = j->history ? strlen(j->history) : 0;
    if (old > 4 * PLY__WHY_LEN) return; /* enough to explain a quarantine */
    size_t add = strlen(reason) + 32;
    char *h = realloc(j->history, old + add);
    if (!h) return;
    snprintf(h + old, add, "%sattempt %u: %s", old ? "; " : "", j->attempt, reason);
    j->history = h;
}

/* Keeps the task's failures in the state file: a restart does not reset the quarantine count. */
static void store_failure(ply_coordinator_t *c, const ply__run_t *run, size_t idx)
{
    if (!c->store) return;
    const ply__task_t *j = &run->sched.tasks[idx];
    ply_store_failure_t f = {run->id, (uint32_t)idx, j->attempt, j->failures, j->history};
    char why[PLY__WHY_LEN] = "";
    if (ply_store_job_failed(c->store, &f, why, sizeof why) < 0)
        ply_warn("run %" PRIu64 ": the failures of job %" PRIu64 " are not stored: %s", run->id,
                 run->sched.job_base + idx, why);
}

/*
 * Puts an in-flight task back in its run's queue. The caller has already
 * taken it out of the worker's inflight list. @failure: the attempt failed
 * (counts towards max_attempts, and the task prefers another worker next);
 * else the worker left politely. A task that failed max_attempts times is
 * quarantined: its run fails with the position and every failure, never with
 * a partial total. A task its kind gives up (kind->retry: perft's drill-down) is not
 * retried: the kind's report says why.
 */
void ply__task_requeue(ply_coordinator_t *c, ply__run_t *run, size_t idx, int failure,
                       const char *reason)
{
    ply__task_t *j = &run->sched.tasks[idx];
    size_t job = ply__job_of(run, idx);
    ply__peer_t *was = j->worker;
    j->state = PLY__TASK_PENDING;
    j->worker = NULL;
    if (!run->kind->retry(c, run, idx, reason)) return; /* the kind gave it up itself */
    if (failure) {
        j->failures++;
        if (was) j->avoid = was->id_hash;
        note_failure(j, reason);
        store_failure(c, run, idx);
    }
    if (failure && j->failures >= c->cfg.max_attempts) {
        char what[PLY__WHY_LEN];
        run->kind->describe_job(run, job, what, sizeof what);
        ply__run_fail(
            run, PLY_EWORKER, "job %" PRIu64 " (%s) quarantined after %u failed attempts: %s",
            run->sched.job_base + idx, what, j->failures, j->history ? j->history : reason);
        return;
    }
    j->queued_ms = ply_time_ms();
    if (ply__queue_push(run, idx) != 0) {
        ply__run_fail(run, PLY_ENOMEM, "out of memory re-queuing job %" PRIu64,
                      run->sched.job_base + idx);
        return;
    }
    ply__count(c, PLY__CNT_JOBS_REQUEUED);
    ply_info("run %" PRIu64 ": job %" PRIu64 " attempt %u re-queued: %s", run->id,
             run->sched.job_base + idx, j->attempt, reason);
}

/*
 * Tells worker @p to stop task @idx of @run (running or queued there): the
 * coordinator has taken it back, so its count is no longer wanted. The worker
 * stores nothing of it and asks for credit again; a result that crosses this
 * message is ignored as for a superseded attempt.
 */
void ply__cancel_on_worker(ply_coordinator_t *c, ply__peer_t *p, const ply__run_t *run, size_t idx)
{
    Ply__Cancel cancel = PLY__CANCEL__INIT;
    cancel.has_run_id = 1;
    cancel.run_id = run->id;
    cancel.has_job_id = 1;
    cancel.job_id = ply__wire_id(run, idx);
    cancel.has_attempt = 1;
    cancel.attempt = run->sched.tasks[idx].attempt;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_CANCEL;
    m.cancel = &cancel;
    ply__send_msg(c, p->rid, &m);
}

void ply__withdraw(ply_coordinator_t *c, ply__run_t *run, const char *identity)
{
    for (ply__peer_t *p = c->peers; p; p = p->next) {
        if (p->kind != PLY__PEER_WORKER || strcmp(p->identity, identity) != 0) continue;
        for (size_t i = 0; i < p->ninflight;) {
            int64_t tw = ply__task_of_wire(run, p->inflight[i]);
            size_t t = tw < 0 ? 0 : (size_t)tw;
            if (tw < 0 || run->sched.tasks[t].state != PLY__TASK_INFLIGHT ||
                run->sched.tasks[t].worker != p || ply__task_bound(run, t)) {
                i++;
                continue;
            }
            p->inflight[i] = p->inflight[--p->ninflight];
            ply__cancel_on_worker(c, p, run, t); /* its count is no longer wanted */
            ply__task_requeue(c, run, t, 0, "its worker was excluded from the run");
        }
    }
}

void ply__check_leases(ply_coordinator_t *c, uint64_t now)
{
    for (ply__peer_t *p = c->peers; p; p = p->next) {
        if (p->kind != PLY__PEER_WORKER) continue;
        for (size_t i = 0; i < p->ninflight;) {
            size_t idx;
            ply__run_t *run = ply__task_find(c, p->inflight[i], &idx);
            ply__task_t *j = run ? &run->sched.tasks[idx] : NULL;
            if (j && j->state == PLY__TASK_INFLIGHT && j->worker == p && j->deadline_ms &&
                now > j->deadline_ms) {
                ply__cancel_on_worker(c, p, run, idx);
                p->inflight[i] = p->inflight[--p->ninflight];
                char reason[192];
                snprintf(reason, sizeof reason, "lease of %" PRIu64 " ms expired on %s",
                         j->lease_ms, p->name);
                ply__task_requeue(c, run, idx, 1, reason);
            } else {
                i++;
            }
        }
    }
}

/* ---------------------------------------------------------------- hand-out */

/*
 * The next task worker @p may take from @run: the first eligible one in its queue
 * (re-queued tasks, checks, tie-breaks, drill-downs), else its next first
 * computation. A first computation @p may not take (after a restart its check
 * may already be running there) moves to the queue for another worker.
 */
static int next_of_run(ply_coordinator_t *c, ply__peer_t *p, ply__run_t *run, size_t *idx,
                       int *no_hash)
{
    for (size_t k = 0; k < run->sched.rq_len && k < QUEUE_SCAN;) {
        size_t t = run->sched.requeue[run->sched.rq_head + k];
        if (t >= run->sched.ntasks || run->sched.tasks[t].state != PLY__TASK_PENDING) {
            queue_remove(run, k); /* settled or given up meanwhile */
            continue;
        }
        if (run->kind->eligible(c, run, t, p, no_hash)) {
            queue_remove(run, k);
            *idx = t;
            return 1;
        }
        k++;
    }
    while (run->sched.next_pending < run->sched.njobs) {
        size_t t = run->sched.next_pending++;
        if (run->sched.tasks[t].state != PLY__TASK_PENDING)
            continue; /* restored from the state file */
        if (run->kind->eligible(c, run, t, p, no_hash)) {
            *idx = t;
            return 1;
        }
        run->sched.tasks[t].queued_ms = ply_time_ms();
        if (ply__queue_push(run, t) != 0) ply__run_fail(run, PLY_ENOMEM, "out of memory");
    }
    return 0;
}

/*
 * The next task worker @p may take, from the active runs round-robin: starting at the run
 * after the one a task went out of last (c->dispatch_last), wrapping round, so active runs
 * share the workers a hand-out each whatever order they came in. O(runs) to find the start.
 */
static int next_job(ply_coordinator_t *c, ply__peer_t *p, ply__run_t **out, size_t *idx,
                    int *no_hash)
{
    ply__run_t *start = c->runs;
    for (ply__run_t *run = c->runs; run && c->dispatch_last; run = run->next)
        if (run->id == c->dispatch_last) {
            start = run->next ? run->next : c->runs;
            break;
        }
    ply__run_t *run = start;
    do {
        if (!run) break;
        if (run->state == PLY__RUN_ACTIVE && run->kind->worker_fits(run, p) &&
            next_of_run(c, p, run, idx, no_hash)) {
            *out = run;
            c->dispatch_last = run->id;
            return 1;
        }
        run = run->next ? run->next : c->runs;
    } while (run != start);
    return 0;
}

/*
 * No run has a task for worker @p: rather than leave it idle behind the rule engine, it may
 * race a shared task the rule engine holds (a sample's check), the first answer being used.
 * Only when its kind lets it take the task as it takes any (@no_hash 0: not the identity
 * that computed first, whose check without its table is worth less than the rule engine's).
 */
static int next_held(ply_coordinator_t *c, ply__peer_t *p, ply__run_t **out, size_t *idx,
                     int *no_hash)
{
    for (ply__run_t *run = c->runs; run; run = run->next) {
        if (run->state != PLY__RUN_ACTIVE || !run->sched.nholds || !run->kind->worker_fits(run, p))
            continue;
        for (size_t i = 0; i < run->sched.nholds; i++) {
            size_t t = run->sched.holds[i].task;
            if (!run->sched.holds[i].shared || run->sched.tasks[t].state != PLY__TASK_ARBITER)
                continue;
            if (run->kind->eligible(c, run, t, p, no_hash) && !*no_hash) {
                ply_debug("run %" PRIu64 ": job %" PRIu64 " held by the rule engine also goes to "
                          "%s, which has nothing else",
                          run->id, run->sched.job_base + t, p->name);
                *out = run, *idx = t;
                return 1;
            }
            *no_hash = 0;
        }
    }
    return 0;
}

/*
 * The deadline of the attempt of task @idx of @run about to go to @p, in ms
 * (monotonic), and its length in *lease. A lease does not rest on the worker's
 * word (heartbeats, node counts): a worker that stays silent, or heartbeats
 * rising counts and never answers, loses the job when it expires, and the
 * expiry is a failed attempt. Without --lease-ms it is sized by the constants
 * of core.h; a worker counts its jobs one after another, so the clock starts
 * when its jobs already in flight are due.
 */
static uint64_t lease_for(ply_coordinator_t *c, const ply__peer_t *p, ply__run_t *run, size_t idx,
                          uint64_t *lease)
{
    uint64_t now = ply_time_ms(), start = now;
    const ply__task_t *j = &run->sched.tasks[idx];
    if (c->cfg.lease_ms) {
        *lease = c->cfg.lease_ms;
        return now + *lease;
    }
    double rate = p->busy_us ? (double)p->nodes * 1e6 / (double)p->busy_us : PLY__LEASE_MIN_RATE;
    double ceiling = PLY__LEASE_MAX_THREAD_RATE * (p->threads ? p->threads : 1);
    rate = rate < PLY__LEASE_MIN_RATE ? PLY__LEASE_MIN_RATE : rate > ceiling ? ceiling : rate;
    double ms =
        run->kind->job_estimate(run, ply__job_of(run, idx)) / rate * 1000.0 * PLY__LEASE_FACTOR;
    double floor = (double)PLY__LEASE_FLOOR_DEATHS * c->cfg.liveness * c->cfg.heartbeat_ms;
    if (ms < floor) ms = floor;
    ms *= (double)(1u << (j->failures < PLY__LEASE_MAX_DOUBLINGS ? j->failures
                                                                 : PLY__LEASE_MAX_DOUBLINGS));
    *lease = ms > (double)UINT32_MAX ? UINT32_MAX : (uint64_t)ms;
    for (size_t i = 0; i < p->ninflight; i++) {
        size_t k;
        ply__run_t *r = ply__task_find(c, p->inflight[i], &k);
        if (r && r->sched.tasks[k].worker == p && r->sched.tasks[k].deadline_ms > start)
            start = r->sched.tasks[k].deadline_ms;
    }
    return start + *lease;
}

static int handout(ply_coordinator_t *c, ply__peer_t *p, ply__run_t *run, size_t idx, int no_hash)
{
    ply__task_t *j = &run->sched.tasks[idx];
    int role = (int)ply__role_of(run, idx);
    uint64_t job_id = ply__wire_id(run, idx); /* what the worker sees */
    int was_idle = p->ninflight == 0;
    uint64_t lease, deadline = lease_for(c, p, run, idx, &lease);
    if (ply__inflight_add(p, job_id) != 0) return PLY_ENOMEM;
    Ply__Job job = PLY__JOB__INIT;
    job.has_job_id = 1, job.job_id = job_id;
    job.has_attempt = 1, job.attempt = j->attempt + 1;
    run->kind->fill_job(run, idx, no_hash, &job); /* what to compute */
    job.has_run_id = 1, job.run_id = run->id;
    uint64_t left = deadline - ply_time_ms(); /* from now: its queue ahead included */
    job.has_lease_ms = 1;
    job.lease_ms = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_JOB;
    m.job = &job;
    int r = ply_msg_send_to(c->router, p->rid, &m);
    if (r < 0) {
        p->ninflight--;
        return r;
    }
    j->attempt++;
    j->state = PLY__TASK_INFLIGHT;
    j->worker = p;
    j->no_hash = (uint8_t)(no_hash != 0);
    j->deadline_ms = deadline;
    j->lease_ms = lease;
    if (j->attempt == 1 && role == PLY__FIRST) run->sched.started++;
    run->sched.tail_start_ms = 0; /* it had a task to hand out: not in its tail */
    if (!run->sched.started_ms)
        run->sched.started_ms = ply_time_ms();    /* its time starts: no more queued */
    if (was_idle) p->progress_ms = ply_time_ms(); /* the hang clock starts with its first job */
    p->credit--;
    ply__count(c, PLY__CNT_JOBS_SENT);
    ply_debug("run %" PRIu64 ": job %" PRIu64 " attempt %u -> %s%s", run->id, job_id, j->attempt,
              p->name, no_hash ? " (no hash table)" : "");
    run->kind->handed_out(c, run, idx);
    return 0;
}

/*
 * The idle tail of each active run: it starts when the run has no task left
 * to hand out (all first computations gone, its queue empty) while a worker
 * that may take its tasks holds none; a hand-out ends it (handout). The run's
 * answer reports how long the last one lasted (perft: RunResult.tail_ms).
 */
static void note_tails(ply_coordinator_t *c)
{
    uint64_t now = ply_time_ms();
    for (ply__run_t *run = c->runs; run; run = run->next) {
        if (run->state != PLY__RUN_ACTIVE || run->sched.tail_start_ms || !run->sched.started ||
            run->sched.next_pending < run->sched.njobs || run->sched.rq_len)
            continue;
        for (const ply__peer_t *p = c->peers; p; p = p->next)
            if (p->kind == PLY__PEER_WORKER && !p->probation && p->ninflight == 0 &&
                run->kind->worker_fits(run, p)) {
                run->sched.tail_start_ms = now;
                break;
            }
    }
}

/* Hands out tasks one per worker per round, while workers have credit and may take a task. */
void ply__dispatch(ply_coordinator_t *c)
{
    int progress = 1;
    while (progress) {
        progress = 0;
        for (ply__peer_t *p = c->peers; p; p = p->next) {
            if (p->kind != PLY__PEER_WORKER || p->credit == 0 || p->probation) continue;
            ply__run_t *run;
            size_t idx;
            int no_hash = 0;
            int held = 0;
            if (!next_job(c, p, &run, &idx, &no_hash)) {
                if (p->ninflight || !next_held(c, p, &run, &idx, &no_hash)) continue;
                held = 1;
            }
            if (handout(c, p, run, idx, no_hash) == 0) {
                progress = 1;
            } else if (!held && ply__queue_push(run, idx) != 0) {
                ply__run_fail(run, PLY_ENOMEM, "out of memory");
            }
        }
    }
    note_tails(c);
}
