/*
 * The job-kind seam (DESIGN.md, "Job kinds"): what a kind of job does, so
 * that the generic coordinator (the scheduler, the run registry, the
 * message handlers, the restore) knows nothing of chess. A kind plans a run
 * into jobs, fills the Job message of a task, checks and folds a Result into
 * the run's answer, stores and restores it, and builds the answer and its
 * part of the progress. Each kind is a folder, its state behind the run's one
 * opaque pointer (run->kind_state): kind 1, perft, is perft/ (perft/perft.h);
 * kind 2, search, is search/. Every member but upgrade_row, stop and endless is required:
 * what kinds share (task slots, wire ids, the sample, identities and exclusion) is
 * the verification service (verification.h), which each kind calls, never a
 * default.
 *
 * Every member is called on the loop thread, except plan (libuv's thread
 * pool). Task t of a run is computation role t / run->sched.njobs of job
 * t % run->sched.njobs (tasks.h); a kind's job index is that job.
 */
#ifndef PLY_COORDINATOR_KIND_H
#define PLY_COORDINATOR_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "runs.h"

/* What every answer, status and finished record shows about a run, whatever its kind. */
typedef struct ply__summary {
    const char *fen;        /* the position it computes (points into the run), or "" */
    unsigned depth;         /* plies; 0: none asked */
    uint64_t nodes_limit;   /* a node budget per job, 0: none */
    uint32_t movetime_ms;   /* a time per job, 0: none */
    ply_u128_t nodes;       /* its count so far (exact) */
    uint64_t counted_nodes; /* nodes counted in this session (its rate's), 0: not measured */
    uint32_t mismatches;    /* verification mismatches found in it */
    /* its jobs, done and all, where they are not its tasks (a deepening analysis: its root
     * moves, and those settled in the iteration in progress); jobs_total 0: the tasks' */
    uint32_t jobs_total, jobs_done;
} ply__summary_t;

typedef struct ply__kind {
    /** The kind's number in the protocol and the state file (Ply__JobKind). */
    int id;
    /** Its name in logs ("perft"). */
    const char *name;

    /** state_new - the kind's empty run state (run->kind_state), or NULL (out of memory). */
    void *(*state_new)(void);
    /**
     * submit - make @run (new from the run registry: its owner and client set) a run of
     * this kind asking what Submit @s asks: validated (by the rule engine) into its state
     * (run->kind_state, from state_new), its plan's inputs taken from the cluster connected now
     * (@c). 0, or an error (< 0) the client gets, with the reason in @why (at most @why_len
     * bytes); PLY_ENOMEM. What was set is freed with the run (free_run).
     */
    int (*submit)(ply_coordinator_t *c, ply__run_t *run, const Ply__Submit *s, char *why,
                  size_t why_len);
    /**
     * restore - make @run (new from the run registry) the run of this kind that state-file
     * row @sr describes, with the plan the row keeps (*@plan, taken and NULLed; NULL when the
     * state file keeps none), planned (run->sched.njobs set). A row stored before its run was
     * planned (@sr->planned 0: its request alone, *@plan NULL) makes @run what it asks, as
     * submit does, unplanned: the registry plans it (plan, planned) as a submitted run. 0,
     * PLY_EDB (why in @why) or PLY_ENOMEM.
     */
    int (*restore)(ply_coordinator_t *c, ply__run_t *run, const ply_store_run_t *sr,
                   ply_split_t **plan, char *why, size_t why_len);
    /** same_request - 1 when runs @a and @b, both of this kind, ask exactly the same. */
    int (*same_request)(const ply__run_t *a, const ply__run_t *b);
    /**
     * store_run - this kind's columns of @run's state-file row into @sr (what it asks: its
     * position, flags, encoded request), and the plan the row keeps in *@plan (NULL: none).
     */
    void (*store_run)(const ply__run_t *run, ply_store_run_t *sr, const ply_split_t **plan);
    /**
     * upgrade_row - a state-file row of this kind written by format 4 (before PLY/2), as
     * format 5 keeps it (ply_store_upgrade_fn, store.h); NULL, the one member that may be: the
     * kind kept nothing in format 4's columns (its rows stay as they are).
     */
    ply_store_upgrade_fn upgrade_row;

    /**
     * plan - on the thread pool: split the run into jobs. Reads what was asked
     * (fixed since the submit) and @run->cancel; writes only the run's plan
     * outputs, which the loop reads in planned() after libuv's hand-back.
     */
    void (*plan)(ply__run_t *run);
    /**
     * planned - on the loop after plan(), always (even when the run was
     * canceled meanwhile): adopt the plan (the run owns it from then on) and
     * set @run->sched.njobs. 0, or the plan's error (< 0) with why it failed in
     * @why (at most @why_len bytes), the run then failing with it.
     */
    int (*planned)(ply__run_t *run, char *why, size_t why_len);
    /**
     * setup - allocate the kind's run state and the run's tasks (slots,
     * ntasks, jobs) for a planned or restored run. 0 or PLY_ENOMEM (what was
     * allocated is freed by free_run).
     */
    int (*setup)(ply__run_t *run);
    /** free_run - free the kind's run state (run->kind_state, from any run state) and all it
     * holds, its plan too; the run registry forgets the pointer. */
    void (*free_run)(ply__run_t *run);

    /**
     * worker_fits - 1 when worker @p runs what @run's jobs need (its kind, and for search the
     * engine asked), else 0: dispatch hands it none of the run's tasks, and a run that no
     * connected worker fits fails after the coordinator's worker wait (service.c).
     */
    int (*worker_fits)(const ply__run_t *run, const ply__peer_t *p);
    /**
     * eligible - whether worker @p (it fits the run) may take task @t of @run now, and
     * whether without its hash table (*no_hash); the kind's rule for its roles, starting
     * from the verification service's (verification.h: ply__eligible_first).
     */
    int (*eligible)(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p,
                    int *no_hash);
    /**
     * verify_tick - at every tick, for an active run (after the verification service's wait
     * of a run left with only workers caught wrong): the kind's bounded waits (a check or a
     * tie-break that no worker can take); nothing for a run without checks.
     */
    void (*verify_tick)(ply_coordinator_t *c, ply__run_t *run, uint64_t now);
    /**
     * describe_wait - what pending task @t of active @run, that no connected worker may
     * take, waits for ("another worker ... to check job N"), into @buf (@len bytes):
     * RunProgress.waiting (verification.h's ply__verify_wait_text, or the kind's words).
     */
    void (*describe_wait)(const ply__run_t *run, size_t t, char *buf, size_t len);
    /**
     * job_estimate - the estimated work of job @job in nodes (sizes the
     * lease of its attempts, dispatch.c); > 0.
     */
    double (*job_estimate)(ply__run_t *run, size_t job);
    /**
     * fill_job - the kind's part of the Job message of task @t (the kind and its
     * payload: Job.perft, Job.search, or another kind's bytes in Job.other).
     * Strings point into the run, which outlives the send; the scheduler fills
     * the ids, attempt and lease. @no_hash: the worker must compute it without its
     * hash table (a check on the identity that computed first: the kind's eligible said so).
     */
    void (*fill_job)(const ply__run_t *run, size_t t, int no_hash, Ply__Job *job);
    /**
     * handed_out - task @t was just sent to a worker: start what goes with
     * it (the check of a verified job).
     */
    void (*handed_out)(ply_coordinator_t *c, ply__run_t *run, size_t t);
    /**
     * take_result - worker @p's Result @r for in-flight task @t of @run, once
     * the generic checks passed (a known task, its current attempt, from its
     * holder, taken out of @p's inflight list): check it, store it, fold it
     * into the answer. The kind ends the task (ply__task_done) or re-queues
     * it (ply__task_requeue: a failed check); errors fail the run.
     */
    void (*take_result)(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                        const Ply__Result *r);
    /**
     * result_nodes - the nodes worker's Result @r for a task of this kind counted (the
     * worker's total, its speed), as the envelope checked them.
     */
    uint64_t (*result_nodes)(const Ply__Result *r);
    /**
     * refused_result - worker @p's Result for in-flight task @t of @run did not pass the
     * envelope (@why: malformed, cut short); @p held that attempt and no longer does. The
     * kind fails the attempt (ply__task_requeue) and reports it.
     */
    void (*refused_result)(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                           const char *why);
    /**
     * restore_result - a result read back from the state file, taken as if
     * it had just arrived (no drill-down). 1 when taken (restore.c counts it), 0 when
     * dropped (its task is done already, or it fails a check: computed again); PLY_EDB (why in
     * @why, at most
     * @why_len bytes) when the run cannot have it; PLY_ENOMEM.
     */
    int (*restore_result)(ply_coordinator_t *c, ply__run_t *run, const ply_store_result_t *r,
                          char *why, size_t why_len);
    /** resumed - every stored result of restored @run is in: settle what they allow. */
    void (*resumed)(ply_coordinator_t *c, ply__run_t *run);

    /**
     * retry - in-flight task @t of @run came back without a result (@reason: its worker
     * died or left, its lease ended, it failed): 1 to queue it again; 0 when the kind gives it
     * up itself (perft's drill-down: its report says why).
     */
    int (*retry)(ply_coordinator_t *c, ply__run_t *run, size_t t, const char *reason);

    /** describe_run - what @run computes, for logs ("perft(7) of FEN"), into @buf (@len bytes). */
    void (*describe_run)(const ply__run_t *run, char *buf, size_t len);
    /** describe_plan - the plan of @run, for the log of its acceptance, into @buf (@len bytes). */
    void (*describe_plan)(const ply__run_t *run, char *buf, size_t len);
    /**
     * describe_job - job @job of @run for logs and quarantine reports
     * ("FEN, 4 plies"), into @buf (@len bytes).
     */
    void (*describe_job)(const ply__run_t *run, size_t job, char *buf, size_t len);

    /**
     * fill_asked - what @run computes (RunAsked, every answer about it says it), strings
     * pointing into @run.
     */
    void (*fill_asked)(const ply__run_t *run, ply__asked_t *a);
    /** summary - what every answer, status and finished record shows about @run, into @s. */
    void (*summary)(const ply__run_t *run, ply__summary_t *s);
    /**
     * asked_again - what finished run @f computed (RunAsked), rebuilt from its record (in
     * memory or read from the state file: its request as store_run gives it, f->request,
     * and its verification): 1, or 0 when the record does not say (no claim).
     */
    int (*asked_again)(const ply__finished_t *f, ply__asked_t *a);
    /**
     * fill_accepted - the kind's part of the Accepted message (strings point into @run): what
     * its request says (the position), and once @run is planned (ply__run_planned) its plan's
     * figures (split_depth, paths); Accepted is sent before the plan (issue 27), when they are
     * absent.
     */
    void (*fill_accepted)(const ply__run_t *run, Ply__Accepted *a);
    /**
     * fill_progress - the kind's part of a RunProgress about @run (its count
     * so far, what it computes; strings point into @run), and when @answer its answer so
     * far (0: who asks may not read it, or the run is one of a list).
     */
    void (*fill_progress)(const ply__run_t *run, Ply__RunProgress *rp, int answer);
    /**
     * answer - the RunResult of done run @run, encoded (the caller owns it),
     * or NULL (out of memory, or it does not encode: logged). Logs the answer.
     */
    zmsg_t *(*answer)(ply_coordinator_t *c, ply__run_t *run);
    /**
     * stop - a Cancel for active @run: 1 when the kind ends it with its answer so far (the
     * caller makes it done: a deepening analysis that has completed an iteration), 0 to let
     * it be canceled. NULL, as upgrade_row may be: canceled.
     */
    int (*stop)(ply__run_t *run);
    /**
     * endless - 1 when @run has no end of its own (an analysis until stopped): its client's
     * silence for PLY_CLIENT_SILENT_MS (envelope.h) stops it as a Cancel would, since nobody
     * would be left to stop it. NULL: every run of the kind ends by itself.
     */
    int (*endless)(const ply__run_t *run);
} ply__kind_t;

/** ply__kind_of - the kind numbered @kind (a Ply__JobKind), or NULL when there is none. */
const ply__kind_t *ply__kind_of(int kind);
/**
 * ply__kinds_upgrade_row - the ply_store_upgrade_fn the coordinator opens its state file with:
 * the format-4 row @row given to its kind's upgrade_row (nothing when its kind is unknown or
 * has none).
 */
int ply__kinds_upgrade_row(const ply_store_old_run_t *row, uint8_t **request, size_t *request_len,
                           uint8_t **reply, size_t *reply_len);
/** ply__kind_default - the kind of a message that names none (kind 1: before job kinds, every
 * run was a perft). */
const ply__kind_t *ply__kind_default(void);
/**
 * ply__kind_register - add @kind (static, every required hook set) to the registry: for a
 * kind defined outside coordinator/ (a test's). Call it before any coordinator starts; not
 * thread-safe.
 * 0; PLY_EINVAL (no kind, its id not > 0, or the id taken), PLY_ENOMEM (the registry is full).
 */
int ply__kind_register(const ply__kind_t *kind);
/** ply__kind_at - the @i-th kind of the registry (0, 1, ...), or NULL past the last. */
const ply__kind_t *ply__kind_at(size_t i);
/**
 * ply__kinds_text - the names of the kinds in @mask (bit 1 << kind number), each preceded by
 * @sep, into @buf (@len bytes): " perft search".
 */
void ply__kinds_text(uint32_t mask, const char *sep, char *buf, size_t len);

#endif
