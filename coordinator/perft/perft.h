/*
 * Kind 1, perft, behind the job-kind seam (kind.h): its run state and the
 * functions its modules share. The perft kind (perft/kind.c) owns
 * struct ply__perft_run, reached from a run through run->kind_state; nothing
 * outside this folder reads it.
 *   kind.c     the kind's table: submit, restore, plan, hand-out, results,
 *              the answer
 *   split.c    the split of a run into jobs (on the thread pool)
 *   verify.c   perft's verification on the verification service
 *              (verification.h): who may take a check, tie-break or
 *              drill-down, its bounded waits, storing a computation, the
 *              Verification report
 *   settle.c   the run's exact sums, comparing and settling the computations
 *              of a job, reopening what an identity caught wrong counted
 *   drill.c    the rule engine's counts (on its own pool) and the
 *              drill-downs of a mismatch
 *   upgrade.c  its rows of a format-4 state file as format 5 keeps them
 */
#ifndef PLY_COORDINATOR_PERFT_PERFT_H
#define PLY_COORDINATOR_PERFT_PERFT_H

#include <stddef.h>
#include <stdint.h>

#include "kind.h"
#include "perft/split.h"

/* One computation of a job (verified runs keep them until the job settles). */
typedef struct ply__comp {
    int have;
    int arbiter, no_hash;
    uint32_t seed, attempt;
    char worker[PLY__ID_LEN];
    char identity[PLY__IDENT_LEN]; /* who computed it (ply__peer_t.identity; "arbiter") */
    uint64_t nodes;
    int has_stats;
    ply_stats_t stats;
    uint64_t time_us;
    uint64_t tt_probes, tt_hits; /* the worker's table use (0 when restored from the state file) */
    uint64_t tt_nodes;           /* leaf nodes of @nodes its table answered (as it says) */
    int live;                    /* computed in this session, not read back from the state file */
    uint64_t *divide;            /* split-0 runs: per root move, plan order */
    ply_stats_t *divide_stats;
} ply__comp_t;

/* The divide drill-down of a mismatch: the rule engine's divide against a worker's. */
typedef struct ply__drill {
    char worker[PLY__ID_LEN];      /* whose divide job it is */
    char identity[PLY__IDENT_LEN]; /* and its identity: only it may take the job */
    int have_ref, have_work, done;
    int nref, nwork;
    char ref_uci[PLY_ARB_MAX_MOVES][6], work_uci[PLY_ARB_MAX_MOVES][6];
    uint64_t ref_nodes[PLY_ARB_MAX_MOVES], work_nodes[PLY_ARB_MAX_MOVES];
} ply__drill_t;

typedef struct ply__vjob {
    ply__comp_t comp[3]; /* PLY__FIRST, PLY__CHECK, PLY__TIE */
    int settled;
    int mismatch; /* the first two disagreed */
    int accepted; /* role whose counts were used */
    int dissent;  /* role outvoted by the other two, or -1 */
    ply__drill_t *drill;
    char *drill_text; /* the drill-down's conclusion, or NULL */
    /* the rule engine's count of the check, come after a worker's answer took the check's
     * place but before the job settled: audited when it settles (ply__perft_audit) */
    int have_late, late_has_stats;
    uint64_t late_nodes;
    ply_stats_t late_stats;
} ply__vjob_t;

/* A perft run: what it asks, its plan, its sums and what its verification found. */
typedef struct ply__perft_run {
    /* what it asks (Submit, the state file's run row, RunAsked) */
    int want_stats, chess960;
    unsigned depth;
    int want_split;
    char fen[PLY_ARB_FEN_MAX];
    ply_arb_pos_t root;
    uint8_t *request; /* its normalised encoding (a PerftRequest), as the state file keeps it */
    size_t request_len;
    /* written by the split thread only; planned (on the loop, after libuv's hand-back) moves
     * split_out into plan, so the loop never reads a plan being written */
    int split_rc;
    char split_why[PLY__WHY_LEN];
    ply_split_t *split_out;
    unsigned plan_threads;   /* the automatic split's cluster: worker threads at submit (0: none) */
    uint64_t plan_min_nodes; /* and its smallest job (the config's min_job_nodes; 0: default) */
    ply_split_t *plan;
    double lease_weight; /* sum over the plan's jobs of multiplicity x cost (0: not yet) */
    /* the sums: multiplicity x job count, exact (settle.c; a sum past 2^128 fails the run) */
    ply_u128_t nodes;
    uint64_t worker_time_us;
    uint64_t tt_probes, tt_hits; /* summed over the results computed in this session */
    uint64_t counted_nodes;      /* ... their leaf nodes enumerated (no multiplicity, no hits) */
    uint64_t tt_nodes;           /* ... their leaf nodes answered by table hits instead */
    ply_stats128_t stats;
    ply_u128_t *divide;           /* per root move */
    ply_stats128_t *divide_stats; /* per root move, when stats */
    int divide_has_stats;
    uint32_t perft1_checked;
    /* verification (verify.c, settle.c, drill.c) */
    ply__vjob_t **v;        /* per job, verified runs: the computations so far */
    size_t drills_pending;  /* drill-downs started and not over */
    ply_stats_t *acc_stats; /* per job, runs with statistics: the counts used */
    uint32_t by_worker, same_seed, same_worker, by_arbiter, mismatches, resolved;
    uint32_t *mm; /* jobs with a mismatch, in the order found */
    size_t nmm, capmm;
    uint8_t *floor;  /* per job: its check is one of the rule engine's floor (settle.c) */
    int floor_chosen; /* floor is chosen (at the run's first check) */
    uint32_t used_ids[64], used_seeds[64]; /* distinct workers and seeds whose counts were used */
    unsigned nused_ids, nused_seeds;
} ply__perft_run_t;

/** ply__perft - the perft state of perft run @run. */
static inline ply__perft_run_t *ply__perft(const ply__run_t *run)
{
    return (ply__perft_run_t *)run->kind_state;
}

/* ---- verify.c (perft's verification, on the verification service: verification.h) ---- */

/** ply__perft_verify_setup - size a perft run's tasks for its mode (verification.h's
 * ply__verify_tasks: 1 or PLY__ROLES slots) and its computations (v, acc_stats). 0,
 * PLY_ENOMEM or PLY_EIO. */
int ply__perft_verify_setup(ply__run_t *run);
/** ply__perft_verify_free - free what ply__perft_verify_setup and the computations allocated
 * (the service's part is freed by ply__verify_free). */
void ply__perft_verify_free(ply__run_t *run);
/**
 * ply__perft_other_checker - 1 when a connected worker that may work for @run (not on
 * probation, not caught wrong in it) has another identity and another Zobrist seed than the
 * computations of job @idx other than its check (the first one, done or in flight): a check
 * by it is a check by another worker with other keys, the next best to the rule engine's.
 * (A worker that reconnects without CURVE is another identity with the same seed.)
 */
int ply__perft_other_checker(ply_coordinator_t *c, const ply__run_t *run, size_t idx);
/**
 * ply__perft_eligible - whether worker @p may take task @t of perft run @run now (the best
 * worker available for its role: a check by another identity and seed, a tie-break by a
 * third, a drill-down by the worker that lost), and whether it must then count without its
 * hash table (*no_hash).
 */
int ply__perft_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p,
                        int *no_hash);
/** ply__perft_verify_tick - perft's bounded waits: tie-breaks without a third worker,
 * drill-down targets gone. */
void ply__perft_verify_tick(ply_coordinator_t *c, ply__run_t *run, uint64_t now);
/** ply__verification - fill @v (and its arrays in @buf) with what was verified; free with _free. */
typedef struct ply__vreport ply__vreport_t;
ply__vreport_t *ply__verification(const ply__run_t *run, Ply__Verification *v);
void ply__vreport_free(ply__vreport_t **r);
/** ply__comp_store - store computation @comp of task @t; 0 or PLY_EDB (reason in @why). */
int ply__comp_store(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__comp_t *comp,
                    char *why, size_t why_len);
/** ply__comp_free - free a computation's arrays. */
void ply__comp_free(ply__comp_t *comp);
/** ply__vjob_free - free the computations of a job (*@vp, which may be NULL); NULLs *@vp. */
void ply__vjob_free(ply__vjob_t **vp);

/* ---- settle.c ---- */

/** ply__maybe_done - an active run whose jobs are all settled and drill-downs over is done. */
void ply__maybe_done(ply__run_t *run);
/** ply__describe - "who says N" about computation @k, for logs and reports, into @buf. */
void ply__describe(char *buf, size_t len, const ply__comp_t *k);
/** ply__on_handout - task @t went out: start the check of a verified job (queue or rule engine). */
void ply__on_handout(ply_coordinator_t *c, ply__run_t *run, size_t t);
/**
 * ply__take - computation @comp (role of task @t) of a job is in (stored
 * already when it came from a worker): settle the job if it can be.
 * @live: 0 while restoring (no drill-down). The comp's arrays pass to the run.
 */
void ply__take(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__comp_t *comp, int live);
/** ply__settle_all - after a restore: settle or re-activate every job of the run. */
void ply__settle_all(ply_coordinator_t *c, ply__run_t *run);
/**
 * ply__perft_exclude - identity @identity (worker id @worker) was caught wrong in
 * @run (@why says how): the verification service's ply__exclude (no more of the
 * run's jobs, its tasks withdrawn), with its computations of unsettled jobs
 * dropped and every settled job whose counts rest on it (not confirmed by the
 * rule engine) taken out of the sums and computed again by other identities.
 * Dropped computations are deleted from the state file. Idempotent.
 */
void ply__perft_exclude(ply_coordinator_t *c, ply__run_t *run, const char *identity,
                        const char *worker, const char *why);

/* ---- drill.c ---- */

/* The rule engine's floor of checks: 1 + (selected jobs within its budget) / this many of
 * them, the smallest (verify.c's header says why). */
#define PLY__FLOOR_EVERY 64

/**
 * ply__perft_audit - the rule engine's count of job @idx's check (@nodes, and @stats when it
 * counted them, else NULL) came after a worker's answer took its place, and the job is settled:
 * when it disagrees with the counts the job was settled on (nodes, or statistics when both have
 * them), the identities whose counts were used or confirmed them are caught (ply__perft_exclude:
 * the job, and every other resting on them, is computed again). The rule engine is never
 * outvoted, even late; a run already ended is past auditing (so a raced check is a check by
 * another identity and seed, as the report says, and the floor is never raced).
 */
void ply__perft_audit(ply_coordinator_t *c, ply__run_t *run, size_t idx, uint64_t nodes,
                      const ply_stats_t *stats);

/* What ply__arbiter_start starts. */
enum {
    PLY__ARB_COUNT, /* a count of the task, held by the rule engine (shared when a check of
                       ARB_SHARE_MIN_NODES or more: an idle worker may race it) */
    PLY__ARB_DRILL, /* the reference divide of the task's drill-down */
    PLY__ARB_FLOOR  /* a check of the run's floor: held, never shared, counted even when the
                       rule engine's own estimate is beyond its budget */
};

/**
 * ply__arbiter_start - queue the rule engine's count of task @t of @run (UNUSED) on
 * its own pool (rule_pool.h), @how (PLY__ARB_*): the task held by it (tasks.h), or the
 * reference divide of its drill-down. Returns 0, PLY_ERANGE (the rule engine is off for
 * checks), PLY_EFEN, PLY_ESTATE (its pool is stopping) or PLY_ENOMEM; on error the task
 * is as it was.
 */
int ply__arbiter_start(ply_coordinator_t *c, ply__run_t *run, size_t t, int how);
/** ply__arbiter_idle - 1 when the rule engine counts checks and one of its threads is
 * idle now (a check given to it starts at once). */
int ply__arbiter_idle(const ply_coordinator_t *c);
/**
 * ply__drill_start - start the drill-down of settled mismatch @idx: the rule
 * engine's divide of the job position against a divide job on the worker
 * whose count lost; when it cannot be done, the job's drill_text says why.
 */
void ply__drill_start(ply_coordinator_t *c, ply__run_t *run, size_t idx);
/** ply__drill_result - a worker's divide job for a drill-down came back. */
void ply__drill_result(ply_coordinator_t *c, ply__run_t *run, size_t t, const Ply__Result *r);
/** ply__drill_give_up - a drill-down task cannot be done (worker left, failed): say why. */
void ply__drill_give_up(ply_coordinator_t *c, ply__run_t *run, size_t t, const char *why);

/**
 * ply__perft_upgrade_row - kind->upgrade_row (a ply_store_upgrade_fn) for perft: the request of
 * the format-4 perft run @row, encoded from its columns into *@request (malloc'd,
 * *@request_len bytes), and its stored answer with PLY/2's RunAsked into *@reply (malloc'd,
 * *@reply_len bytes; NULL when there is nothing to rewrite: no answer, another message, an
 * answer without RunAsked or one that does not decode). 0, or PLY_ENOMEM (nothing allocated).
 */
int ply__perft_upgrade_row(const ply_store_old_run_t *row, uint8_t **request,
                           size_t *request_len, uint8_t **reply, size_t *reply_len);

#endif
