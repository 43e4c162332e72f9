/*
 * The job-kind seam (DESIGN.md, "Job kinds"): what a kind of job does, so
 * that the generic coordinator (the scheduler, the run registry, the
 * message handlers, the restore) knows nothing of chess. A kind plans a run
 * into jobs, fills the Job message of a task, checks and folds a Result into
 * the run's answer, stores and restores it, and builds the answer and its
 * part of the progress. Each kind is one module: kind 1, perft, is
 * kind_perft.c (on split.c, verify.c, settle.c and drill.c); kind 2, search,
 * is kind_search.c. Every member is required: what kinds share (task slots,
 * wire ids, the sample, identities and exclusion) is the verification
 * service (verification.h), which each kind calls, never a default.
 *
 * Every member is called on the loop thread, except plan (libuv's thread
 * pool). Task t of a run is computation role t / run->njobs of job
 * t % run->njobs (internal.h, "Tasks"); a kind's job index is that job.
 */
#ifndef PLY_COORDINATOR_KIND_H
#define PLY_COORDINATOR_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "verification.h"

typedef struct ply__kind {
    /** The kind's number in the protocol and the state file (Ply__JobKind). */
    int id;
    /** Its name in logs ("perft"). */
    const char *name;

    /**
     * plan - on the thread pool: split the run into jobs. Reads what was asked
     * (fixed since the submit) and @run->cancel; writes only the run's plan
     * outputs, which the loop reads in planned() after libuv's hand-back.
     */
    void (*plan)(run_t *run);
    /**
     * planned - on the loop after plan(), always (even when the run was
     * canceled meanwhile): adopt the plan (the run owns it from then on) and
     * set @run->njobs. 0, or the plan's error (< 0) with why it failed in
     * @why (at most @why_len bytes), the run then failing with it.
     */
    int (*planned)(run_t *run, char *why, size_t why_len);
    /**
     * setup - allocate the kind's run state and the run's tasks (slots,
     * ntasks, jobs) for a planned or restored run. 0 or PLY_ENOMEM (what was
     * allocated is freed by free_run).
     */
    int (*setup)(run_t *run);
    /** free_run - free the kind's run state and its plan (NULL-safe, from any run state). */
    void (*free_run)(run_t *run);

    /**
     * worker_fits - 1 when worker @p runs what @run's jobs need (its kind, and for search the
     * engine asked), else 0: dispatch hands it none of the run's tasks, and a run that no
     * connected worker fits fails after the coordinator's worker wait (service.c).
     */
    int (*worker_fits)(const run_t *run, const peer_t *p);
    /**
     * eligible - whether worker @p (it fits the run) may take task @t of @run now, and
     * whether without its hash table (*no_hash); the kind's rule for its roles, starting
     * from the verification service's (verification.h: ply__eligible_first).
     */
    int (*eligible)(ply_coordinator_t *c, const run_t *run, size_t t, const peer_t *p,
                    int *no_hash);
    /**
     * verify_tick - at every tick, for an active run (after the verification service's wait
     * of a run left with only workers caught wrong): the kind's bounded waits (a check or a
     * tie-break that no worker can take); nothing for a run without checks.
     */
    void (*verify_tick)(ply_coordinator_t *c, run_t *run, uint64_t now);
    /**
     * describe_wait - what pending task @t of active @run, that no connected worker may
     * take, waits for ("another worker ... to check job N"), into @buf (@len bytes):
     * RunProgress.waiting (verification.h's ply__verify_wait_text, or the kind's words).
     */
    void (*describe_wait)(const run_t *run, size_t t, char *buf, size_t len);
    /**
     * job_estimate - the estimated work of job @job in nodes (sizes the
     * lease of its attempts, dispatch.c); > 0.
     */
    double (*job_estimate)(run_t *run, size_t job);
    /**
     * fill_job - the kind's part of the Job message of task @t (the kind and its
     * payload: Job.perft, Job.search, or another kind's bytes in Job.other).
     * Strings point into the run, which outlives the send; the scheduler fills
     * the ids, attempt, lease and, for a perft job, no_hash.
     */
    void (*fill_job)(const run_t *run, size_t t, Ply__Job *job);
    /**
     * handed_out - task @t was just sent to a worker: start what goes with
     * it (the check of a verified job).
     */
    void (*handed_out)(ply_coordinator_t *c, run_t *run, size_t t);
    /**
     * take_result - worker @p's Result @r for in-flight task @t of @run, once
     * the generic checks passed (a known task, its current attempt, from its
     * holder, taken out of @p's inflight list): check it, store it, fold it
     * into the answer. The kind ends the task (ply__task_done) or re-queues
     * it (ply__job_requeue: a failed check); errors fail the run.
     */
    void (*take_result)(ply_coordinator_t *c, run_t *run, size_t t, peer_t *p,
                        const Ply__Result *r);
    /**
     * refused_result - worker @p's Result for in-flight task @t of @run did not pass the
     * envelope (@why: malformed, cut short); @p held that attempt and no longer does. The
     * kind fails the attempt (ply__job_requeue) and reports it.
     */
    void (*refused_result)(ply_coordinator_t *c, run_t *run, size_t t, peer_t *p, const char *why);
    /**
     * restore_result - a result read back from the state file, taken as if
     * it had just arrived (no drill-down). 0; PLY_EDB (why in @why, at most
     * @why_len bytes) when the run cannot have it; PLY_ENOMEM.
     */
    int (*restore_result)(ply_coordinator_t *c, run_t *run, const ply_store_result_t *r, char *why,
                          size_t why_len);
    /** resumed - every stored result of restored @run is in: settle what they allow. */
    void (*resumed)(ply_coordinator_t *c, run_t *run);

    /** describe_run - what @run computes, for logs ("perft(7) of FEN"), into @buf (@len bytes). */
    void (*describe_run)(const run_t *run, char *buf, size_t len);
    /** describe_plan - the plan of @run, for the log of its acceptance, into @buf (@len bytes). */
    void (*describe_plan)(const run_t *run, char *buf, size_t len);
    /**
     * describe_job - job @job of @run for logs and quarantine reports
     * ("FEN, 4 plies"), into @buf (@len bytes).
     */
    void (*describe_job)(const run_t *run, size_t job, char *buf, size_t len);

    /**
     * fill_asked - what @run computes (RunAsked, every answer about it says it), strings
     * pointing into @run.
     */
    void (*fill_asked)(const run_t *run, ply__asked_t *a);
    /** fill_accepted - the kind's part of the Accepted message (strings point into @run). */
    void (*fill_accepted)(const run_t *run, Ply__Accepted *a);
    /**
     * fill_progress - the kind's part of a RunProgress about @run (its count
     * so far, what it computes; strings point into @run).
     */
    void (*fill_progress)(const run_t *run, Ply__RunProgress *rp);
    /**
     * answer - the RunResult of done run @run, encoded (the caller owns it),
     * or NULL (out of memory, or it does not encode: logged). Logs the answer.
     */
    zmsg_t *(*answer)(ply_coordinator_t *c, run_t *run);
} ply__kind_t;

/** ply__kind_of - the kind numbered @kind (a Ply__JobKind), or NULL when there is none. */
const ply__kind_t *ply__kind_of(int kind);

/** Kind 1: perft (kind_perft.c). */
extern const ply__kind_t ply__kind_perft;
/** Kind 2: search, one job per root move of the position analysed, or one per chunk of a
 * game's positions (SearchRequest.plies: search_game.h) (kind_search.c). */
extern const ply__kind_t ply__kind_search;

/**
 * ply__perft_prepare - make @run (zeroed but for what client_msgs.c and restore.c set) a
 * perft run of the encoded PerftRequest @request (@len bytes: a Submit's, or the state
 * file's): the position validated by the rule engine and normalised into run->fen, root,
 * depth, chess960 (asked, or implied by the castling rights), want_stats, want_split (-1:
 * automatic), and run->request its normalised encoding (what RunAsked.perft says and the
 * state file stores; divide is not part of it). 0; PLY_EFEN or PLY_EILLEGAL (a bad
 * position: the reason in @why, @why_len bytes), PLY_EPROTO (@request does not decode, or
 * a depth or split out of range) or PLY_ENOMEM.
 */
int ply__perft_prepare(run_t *run, const uint8_t *request, size_t len, char *why, size_t why_len);

/**
 * ply__search_prepare - make @run (zeroed but for what client_msgs.c and restore.c set) a
 * search run of the encoded Ply__SearchRequest @request (@len bytes, copied): decoded, and
 * validated by the rule engine (the root position, each history move legal in turn, each
 * searchmove legal in the position analysed and given once); sets run->search, request,
 * fen (the position analysed, normalised), root, depth (0: no depth limit) and chess960.
 * 0; PLY_EFEN or PLY_EILLEGAL (a bad position or move: the reason in @why, @why_len bytes,
 * names the history move's number and text, or the searchmove), PLY_EINVAL (a searchmove
 * given twice), PLY_EPROTO (@request does not decode) or PLY_ENOMEM. A game analysis
 * (plies) is planned here too (search_game.h's ply__game_new and its errors, the ply
 * named; searchmoves beside plies are PLY_EINVAL). On error what was set
 * is freed with the run (ply__run_free).
 */
int ply__search_prepare(run_t *run, const uint8_t *request, size_t len, char *why, size_t why_len);

#endif
