/*
 * The verification service (DESIGN.md step 5, README "Threat model"): the machinery that every
 * job kind's verification calls, so that no kind inherits another's rules. A kind decides
 * what a computation is, how two are compared and who may check whom; this module keeps what
 * is the same for all of them:
 *   - the task geometry: a run reserves slots x njobs tasks, task t being computation role
 *     t / njobs of job t % njobs (tasks.h), allocated here for every kind
 *     (ply__verify_tasks);
 *   - the draws of a verified run: the secret permutation of the task ids on the wire (a check
 *     looks like any first computation) and the CSPRNG sample of the jobs checked;
 *   - identities: who computed for the run, who was caught wrong and why (exclusion: its tasks
 *     withdrawn, the settled jobs resting on it handed back to the kind to reopen, its
 *     computations of unsettled jobs to forget), and the report's lines about them;
 *   - the first-computation rule every kind starts from (no worker on probation, none caught
 *     wrong in the run, a failed task prefers another worker), "anyone may take this task",
 *     and the bounded wait of a run left with only workers caught wrong, at every tick before
 *     the kind's own waits (kind->verify_tick).
 * Everything runs on the loop thread.
 */
#ifndef PLY_COORDINATOR_VERIFICATION_H
#define PLY_COORDINATOR_VERIFICATION_H

#include <stddef.h>
#include <stdint.h>

#include "tasks.h"

/* The worker id and identity of the rule engine's computations. */
#define PLY__ARBITER_ID "arbiter"

/* computation roles (task slots of verified runs) */
enum { PLY__FIRST = 0, PLY__CHECK = 1, PLY__TIE = 2, PLY__DRILL = 3, PLY__ROLES = 4 };

/* Where a settled job's counts came from, kept so that the counts of an identity caught wrong
 * can be taken out of the sums again and the job recomputed (settle.c). */
#define PLY__WHO_NONE    0xffffu /* no second computation */
#define PLY__WHO_ARBITER 0xfffeu /* the rule engine */
/* kinds of confirmation (the Verification counters) */
enum {
    PLY__CONF_NONE = 0,
    PLY__CONF_WORKER,
    PLY__CONF_SAME_SEED,
    PLY__CONF_SAME_IDENT,
    PLY__CONF_ARBITER
};
typedef struct ply__acc {
    uint16_t who;  /* index in run->verif.idents of the identity whose counts were used */
    uint16_t who2; /* of the computation that confirmed them, or PLY__WHO_* */
    uint8_t kind;  /* PLY__CONF_* */
    uint64_t nodes;
} ply__acc_t;

/* An identity that computed for a run, and whether it was caught wrong in it. */
typedef struct ply__ident {
    char identity[PLY__IDENT_LEN];
    char worker[PLY__ID_LEN]; /* the worker id it last used in the run */
    int excluded;             /* caught wrong: no more of the run's jobs, its counts recomputed */
    char *why;                /* why it was excluded */
} ply__ident_t;

/* A run's verification (run->verif); verification.c writes every field. */
typedef struct ply__verif {
    int mode;                /* a Ply__VerifyMode */
    uint32_t ppm;            /* VERIFY_MODE_SAMPLE: parts per million */
    char text[32];           /* "none", "sample=0.05", "all" */
    uint32_t *wire, *unwire; /* verified runs: task -> job id offset and back (a secret random
                                permutation, so that a check's id looks like any other) */
    uint8_t *select;         /* per job: chosen (by a CSPRNG) for a second computation */
    uint32_t selected;       /* jobs chosen */
    ply__acc_t *acc;         /* per job, once settled: where its answer came from */
    ply__ident_t *idents;    /* the identities that computed for the run */
    unsigned nidents, capidents;
    uint32_t nexcluded;  /* identities caught wrong */
    uint32_t recomputed; /* settled jobs re-opened because an excluded identity had counted them */
    uint64_t no_honest_ms; /* since when only excluded workers are connected, or 0 */
} ply__verif_t;

/**
 * ply__verify_tasks - size the tasks of planned or restored @run (run->sched.njobs set) with @slots
 * computations per job (1: first computations only): run->sched.slots, ntasks, jobs, settled,
 * select and acc; then draw: every task past the first computations unused, the wire ids permuted
 * (slots > 1), the sample chosen (mode sample), run->verif.selected counted. 0, PLY_ENOMEM or
 * PLY_EIO (no random bytes); what was allocated is freed by ply__verify_free.
 */
int ply__verify_tasks(ply__run_t *run, uint32_t slots);
/** ply__verify_mode_set - @run asks for verification @mode (a Ply__VerifyMode; @ppm: a sample's
 * parts per million, else 0). */
void ply__verify_mode_set(ply__run_t *run, int mode, uint32_t ppm);
/**
 * ply__verify_settled_by - settled job @idx of @run has its answer from identity index @who
 * (ply__ident_of, PLY__WHO_ARBITER), confirmed by @who2 (or PLY__WHO_*), a confirmation of
 * kind @kind (PLY__CONF_*), @nodes its count: what ply__exclude reopens by.
 */
void ply__verify_settled_by(ply__run_t *run, size_t idx, unsigned who, unsigned who2, int kind,
                            uint64_t nodes);
/** ply__verify_free - free what ply__verify_tasks and the identities allocated (NULL-safe). */
void ply__verify_free(ply__run_t *run);
/** ply__verify_selected - 1 when job @idx needs a second computation in this run's mode. */
int ply__verify_selected(const ply__run_t *run, size_t idx);
/**
 * ply__verify_select_late - job @idx of a sampled run has a check read back from the state
 * file that the (not stored) draw of this session did not choose: it is selected after all.
 */
void ply__verify_select_late(ply__run_t *run, size_t idx);
/** ply__verify_mode_text - "none", "sample=0.05", "all" into @buf (@len bytes). */
void ply__verify_mode_text(int mode, uint32_t ppm, char *buf, size_t len);
/**
 * ply__wire_id - the job id task @t of @run is sent with (Job.job_id, Cancel):
 * job_base plus, in verified runs, a secret random permutation of the task
 * ids, so that a worker cannot tell a check or a tie-break from a first
 * computation by its id. Logs and reports number tasks job_base + t.
 */
uint64_t ply__wire_id(const ply__run_t *run, size_t t);
/** ply__task_of_wire - the task whose wire id is @id (ply__wire_id's inverse), or -1. */
int64_t ply__task_of_wire(const ply__run_t *run, uint64_t id);

/**
 * ply__eligible_first - the rule every kind starts from: worker @p (it fits the run) may take
 * task @t of @run unless it is on probation, was caught wrong in the run, or task @t failed on
 * it last while another worker that may take it is connected.
 */
int ply__eligible_first(ply_coordinator_t *c, const ply__run_t *run, size_t t,
                        const ply__peer_t *p);
/** ply__anyone_eligible - 1 when some connected worker may take task @t of @run now (the
 * kind's rule, kind->eligible). */
int ply__anyone_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t);
/**
 * ply__verify_wait_text - what pending task @t of @run, that no connected worker may take,
 * waits for in the words every kind shares ("another worker (another identity and seed) to
 * check job N (--verify all)"), into @buf (@len bytes).
 */
void ply__verify_wait_text(const ply__run_t *run, size_t t, char *buf, size_t len);
/**
 * ply__verify_tick - at every tick, for every active run: when only workers caught wrong in
 * it are connected for worker_wait_ms, it fails; else its kind's own bounded waits
 * (kind->verify_tick).
 */
void ply__verify_tick(ply_coordinator_t *c, uint64_t now);

/**
 * ply__ident_of - the index of @identity in run->verif.idents (added when new;
 * @worker, when not NULL, noted as the worker id it last used), or
 * PLY__WHO_NONE when there is no room or memory.
 */
unsigned ply__ident_of(ply__run_t *run, const char *identity, const char *worker);
/** ply__excluded - 1 when identity @identity was caught wrong in @run (it gets no more jobs). */
int ply__excluded(const ply__run_t *run, const char *identity);
/** ply__excluded_text - the identities excluded from @run and why, "; "-separated, into @buf. */
void ply__excluded_text(const ply__run_t *run, char *buf, size_t len);
/** ply__identities_used - distinct identities, not excluded, whose counts were used or
 * confirmed them (run->verif.acc) in settled jobs. */
uint32_t ply__identities_used(const ply__run_t *run);
/**
 * ply__exclusion_lines - one line per identity excluded from @run ("W (identity) excluded:
 * why"), sanitised for the wire, each allocated, into @out (at most @max); their number.
 */
size_t ply__exclusion_lines(const ply__run_t *run, char **out, size_t max);

/** What the kind does with its jobs when one of their identities is excluded (ply__exclude). */
typedef struct ply__reopen_ops {
    /** reopen - settled job @job's answer rests on the excluded identity: take it out of the
     * answer and compute the job again. */
    void (*reopen)(ply_coordinator_t *c, ply__run_t *run, size_t job);
    /** forget - unsettled job @job: drop what @identity computed of it, compare afresh. */
    void (*forget)(ply_coordinator_t *c, ply__run_t *run, size_t job, const char *identity);
} ply__reopen_ops_t;

/**
 * ply__exclude - marks @identity (its worker @worker, for the report) caught wrong in @run
 * with the reason @why, logs it and withdraws its tasks (ply__withdraw); then hands every
 * settled job whose counts rest on it (run->verif.acc: used or confirming, not the rule engine's)
 * to @ops->reopen, counting it in run->verif.recomputed, and every unsettled job to @ops->forget
 * while the run is active. The number of jobs reopened, or -1 when @identity already was
 * excluded, or when out of memory (the run then fails).
 */
long ply__exclude(ply_coordinator_t *c, ply__run_t *run, const char *identity, const char *worker,
                  const char *why, const ply__reopen_ops_t *ops);

#endif
