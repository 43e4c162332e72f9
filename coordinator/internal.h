/*
 * The coordinator's internal shapes, shared by its source files:
 *   service.c      the event loop: receiving and routing messages, timers,
 *                  local worker processes, the lifecycle (coordinator.h)
 *   peers.c        the registry of workers and clients: identities, who may
 *                  read what, the tasks each worker holds, sending to a peer
 *   runs.c         the run registry: finding, failing, answering and reaping
 *                  runs, the finished ones, progress
 *   dispatch.c     the scheduler: the queue, hand-out, leases, re-queue and
 *                  quarantine
 *   worker_msgs.c  HELLO, READY, RESULT, ERROR, BYE and HEARTBEAT from workers
 *   client_msgs.c  SUBMIT (the run's kind checks it and plans it), STATUS,
 *                  RESULT_REQUEST, CANCEL
 *   restore.c      runs read back from the state file (each by its kind)
 *   kind.h, kind.c the job-kind seam: what a kind of job does (take a submit
 *                  or a state-file row, plan a run, fill a job, take a
 *                  result, restore it, describe, summarise, answer), and the
 *                  registry of kinds; the files above call a run's kind
 *                  through run->kind and know nothing of chess
 *   verification.c the verification service every kind calls: task slots
 *                  and their allocation, the secret wire ids, the CSPRNG
 *                  sample, identities, exclusion and its report, the first-
 *                  computation rule, the wait of a run left with liars only
 * Each kind is a folder whose state hangs from run->kind_state:
 *   perft/         kind 1: the split, perft's verification, the exact sums,
 *                  the drill-downs (perft/perft.h)
 *   search/        kind 2: one job per root move of the position analysed
 *                  (or chunks of a game's positions, search/game.c), each
 *                  line replayed by the rule engine; --verify compares
 *                  reproducible searches (search/verify.c)
 * Nothing here is public API: names are ply__ (STYLE.md, libuv's convention
 * for internal cross-file names).
 *
 * Tasks. A run reserves slots x njobs task ids from job_base: task t is
 * computation role t / njobs of job t % njobs. Runs without verification
 * have one slot (every task is a first computation). Verified runs have
 * PLY__ROLES slots: the first computation, the check (a second worker or the
 * rule engine), the tie-break (a third, on disagreement) and the drill-down
 * (the dissenting worker's divide of the job). Each task is handed out,
 * leased, re-queued and quarantined on its own; a job is settled when the
 * computations its mode needs are in and agree (or a majority of three does).
 *
 * Invariant: a task is JOB_INFLIGHT exactly when its task id is in the
 * inflight list of task.worker, with task.attempt the attempt that worker was
 * sent. dispatch.c is the only writer of task state (job_state_t): the other
 * files read it and change it through ply__task_* (and ply__job_requeue).
 */
#ifndef PLY_COORDINATOR_INTERNAL_H
#define PLY_COORDINATOR_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <czmq.h>
#include <uv.h>

#include "arbiter/arbiter.h"
#include "coordinator.h"
#include "envelope.h"
#include "security.h"
#include "perft/split.h"
#include "store.h"
#include "util/stats.h"

#define PLY__WHY_LEN 512
#define PLY__ID_LEN  96 /* worker ids kept per computation (longer ones are cut) */
/* An identity: "curve:" and a 40-character Z85 key, or "conn:" and a routing id in hex (one
 * longer than fits is "conn:#" and a 64-bit hash of it). */
#define PLY__IDENT_LEN 48
/* A worker's search backend as HELLO names it ("builtin", "uci:<engine name>"; longer ones are
 * cut: only the part before ':' decides which runs it may take). */
#define PLY__ENGINE_LEN 64

enum { PEER_WORKER = 1, PEER_CLIENT = 2 };
/* task states; JOB_UNUSED: a check, tie-break or drill-down not (yet) needed */
enum { JOB_PENDING = 0, JOB_INFLIGHT, JOB_DONE, JOB_UNUSED, JOB_ARBITER };
enum { RUN_SPLITTING = 0, RUN_ACTIVE, RUN_DONE, RUN_FAILED };
/* the coordinator's states (ply_coordinator.state) */
enum { C_NEW = 0, C_RUNNING, C_STOPPING, C_CLOSED };
/* computation roles (task slots of verified runs) */
enum { PLY__FIRST = 0, PLY__CHECK = 1, PLY__TIE = 2, PLY__DRILL = 3, PLY__ROLES = 4 };

/*
 * Identity (the trust model, README "Threat model"): who a peer is, as far as
 * the coordinator can prove it. Under CURVE it is the peer's public key (the
 * "User-Id" the ZAP handler gave its connection, security.h): every session
 * opened with one key is one identity, whatever worker_id or seed it
 * declares. Without CURVE (loopback only) nothing is proven but the
 * connection: its routing id. Set when the peer is created, never changed;
 * a message whose identity differs from its peer's is dropped.
 */
typedef struct peer {
    struct peer *next;
    zframe_t *rid;
    int kind;
    char identity[PLY__IDENT_LEN]; /* "curve:<z85 public key>" or "conn:<routing id hex>" */
    char name[PLY__ID_LEN + 16];   /* "worker <worker_id>" or "client <routing id in hex>" */
    char worker_id[PLY_MAX_TEXT + 1];
    uint32_t id_hash; /* of worker_id: "prefer another worker" survives reconnects */
    uint64_t last_seen_ms;
    /* workers */
    uint32_t threads, hash_mib, seed;
    uint32_t kinds;                    /* the job kinds it runs: bit 1 << kind number, for the
                                          numbers below 32 (HELLO) */
    uint32_t kind_list[PLY_MAX_KINDS]; /* and as its HELLO listed them (WorkerStatus.kinds) */
    uint32_t nkind_list;
    char engine[PLY__ENGINE_LEN]; /* its search backend ("builtin", "uci:<name>"), or "" */
    char engine_id[PLY_MAX_TEXT + 1]; /* who answers a reproducible search alike (HELLO), or "" */
    uint32_t credit;
    uint64_t *inflight;
    size_t ninflight, capinflight;
    uint64_t jobs_done;
    ply_u128_t nodes; /* sum of its results' counts (exact: util/u128.h) */
    /* whose runs those counts are from: one run's owner, "" while none; nodes_mixed once
     * there are several (then only an admin may see the total: it holds others' answers) */
    char nodes_owner[PLY__IDENT_LEN];
    int nodes_mixed;
    uint64_t busy_us;     /* sum of its results' time_us: its own speed is nodes / busy_us */
    uint64_t hb_nodes;    /* the node count its last heartbeat carried */
    uint64_t progress_ms; /* when that count last advanced, or it last became busy */
    /* its live rate (status.c): heartbeat node counts sampled at least PLY__RATE_MIN_MS apart */
    uint64_t hb_ms;               /* when its last heartbeat came, or 0 */
    uint64_t rate_nodes, rate_ms; /* the sample the rate is measured from */
    double nps;                   /* nodes a second between its last two samples */
    int probation;        /* dropped as hung before: no jobs until its count advances */
    uint64_t probation_nodes, probation_until_ms;
} peer_t;

typedef struct job_state { /* one task */
    uint8_t state;
    uint8_t no_hash;      /* the current hand-out counts without the hash table */
    uint32_t attempt;     /* hand-outs so far; the current attempt when INFLIGHT */
    uint32_t failures;    /* attempts that failed (worker died or hung, lease, worker ERROR) */
    uint32_t avoid;       /* id_hash of the worker it last failed on: prefer another */
    peer_t *worker;       /* holder when INFLIGHT */
    uint64_t deadline_ms; /* the current attempt's lease ends then (lease_for) */
    uint64_t lease_ms;    /* that lease's length, for the message when it expires */
    uint64_t queued_ms;   /* when it last entered the queue */
    char *history;        /* the failures, "; "-separated (for a quarantine report) */
} job_state_t;

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
    uint16_t who;  /* index in run->idents of the identity whose counts were used */
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

typedef struct ply_coordinator ply_coordinator_t;
struct ply__kind;       /* kind.h */

typedef struct run {
    struct run *next;
    ply_coordinator_t *c;
    const struct ply__kind *kind; /* what its jobs are (set at submit and at restore) */
    uint64_t id;
    char owner[PLY__IDENT_LEN]; /* whose it is (ply__principal), "" for a run stored before */
    zframe_t *client;
    int state;
    int detach;
    int verify_mode;     /* a Ply__VerifyMode */
    uint32_t verify_ppm; /* VERIFY_MODE_SAMPLE: parts per million */
    char verify_text[32];
    /* the plan, on the thread pool (kind->plan) */
    uv_work_t work;
    atomic_int cancel;
    int canceled;    /* by a client: report "canceled" */
    int interrupted; /* the coordinator stopped: the state file keeps the run */
    /* the tasks */
    size_t njobs;        /* jobs in the run's plan (0 until it is planned) */
    uint32_t slots;      /* tasks per job */
    size_t ntasks;       /* slots x njobs */
    job_state_t *jobs;   /* one per task */
    uint8_t *settled;    /* per job: its counts are in the sums */
    uint64_t job_base;   /* task id of task 0 */
    size_t next_pending;
    uint32_t *requeue; /* the queue: re-queued tasks, checks, tie-breaks, drill-downs */
    size_t rq_head, rq_len, rq_cap;
    size_t done, started;
    /* the idle tail (dispatch.c): since when a worker that may take the run's tasks has had
     * none while the run had none left to hand out (0: not now); its length once the run ends */
    uint64_t tail_start_ms, tail_ms;
    /* the trust model (verification.c) */
    uint32_t *wire, *unwire; /* verified runs: task -> job id offset and back (a secret random
                                permutation, so that a check's id looks like any other) */
    uint8_t *select;         /* per job: chosen (by a CSPRNG) for a second computation */
    ply__acc_t *acc;         /* per job, once settled: where its counts came from */
    ply__ident_t *idents;    /* the identities that computed for the run */
    unsigned nidents, capidents;
    uint32_t nexcluded;  /* identities caught wrong */
    uint32_t recomputed; /* settled jobs re-opened because an excluded identity had counted them */
    uint64_t no_honest_ms; /* since when only excluded workers are connected, or 0 */
    uint64_t started_ms;      /* its first task handed out in this session (0: not yet) */
    uint64_t no_fit_since_ms; /* since when workers are connected but none may take its jobs
                                 (kind->worker_fits), or 0 */
    uint32_t selected;     /* jobs chosen for a second computation */
    /* the kind's run state (its request, plan, answer so far, verification figures): opaque
     * here, owned by run->kind (perft/perft.h, search/kind.c) */
    void *kind_state;
    /* restarts */
    int restored;              /* read back from the state file */
    uint32_t results_restored; /* computations read back */
    uint32_t results_computed; /* computations received since */
    int64_t submitted_unix_ms;
    uint64_t submitted_ms, accepted_ms;
    int fail_code;
    char fail_msg[PLY__WHY_LEN];
    /* what it waits for when no connected worker may take its tasks ("" when it does not):
     * RunProgress.waiting, logged when it changes (ply__run_update_waiting) */
    char waiting[PLY__WHY_LEN / 2];
} run_t;

typedef struct finished {
    struct finished *next;
    uint64_t id;
    char owner[PLY__IDENT_LEN];
    const char *state;
    uint32_t jobs_total, jobs_done;
    ply_u128_t nodes;
    uint64_t elapsed_ms;
    char fen[PLY_ARB_FEN_MAX];
    unsigned depth;
    char verify[32];
    int chess960, stats, want_split, verify_mode; /* what it computed (RunAsked) */
    int kind; /* its job kind (a Ply__JobKind); only perft's RunAsked is rebuilt from this */
    uint32_t verify_ppm;
    uint64_t counted_nodes, time_ms; /* its rate's nodes and time (0 when read from the store) */
    uint64_t tail_ms;                /* its idle tail (dispatch.c; 0 when read from the store) */
    uint32_t mismatches;             /* verification mismatches found in it */
    char error[PLY__WHY_LEN];
    zmsg_t *reply; /* the RunResult or the Error the client got */
} finished_t;

/* One local worker slot (--local-workers N, ply perft --workers N): a slot whose
 * process dies is started again, at most PLY__RESPAWN_MAX times within
 * PLY__RESPAWN_WINDOW_MS, so that one that dies at once every time stops being
 * retried (the slot is given up) while the others go on. */
typedef struct proc {
    uv_process_t handle;
    ply_coordinator_t *c;
    unsigned index;
    int alive;
    int given_up;       /* died too often: not started again */
    unsigned spawns;    /* processes started in this slot so far */
    unsigned deaths;    /* early exits since window_ms */
    uint64_t window_ms; /* start of the respawn-rate window */
    char id[32];        /* the --id of its current process: "local-<slot>.<spawns>" */
    char last_exit[96]; /* how its last process ended */
} proc_t;

enum {
    CNT_MESSAGES,
    CNT_MALFORMED,
    CNT_RESULTS_IGNORED,
    CNT_JOBS_SENT,
    CNT_JOBS_REQUEUED,
    CNT_WORKERS_JOINED,
    CNT_WORKERS_LOST,
    CNT_RUNS_DONE,
    CNT_RUNS_FAILED,
    CNT_WORKERS_HUNG,
    CNT_RESULTS_COMPUTED,
    CNT_VERIFY_MISMATCHES,
    CNT_N
};

/* A local worker slot is started again after an early exit at most this many times
 * within the window (proc_t): enough for a rare crash or an OOM kill, bounded for a
 * worker that can never start (a bad binary, a table the kernel refuses). */
#define PLY__RESPAWN_MAX       3
#define PLY__RESPAWN_WINDOW_MS 60000u

/* Default leases (lease_for in dispatch.c): an attempt may take PLY__LEASE_FACTOR
 * times its estimated time, at least PLY__LEASE_FLOOR_DEATHS heartbeat timeouts
 * (liveness x heartbeat), twice as long again for each failure of the job so far (up
 * to 2^PLY__LEASE_MAX_DOUBLINGS). A job's estimated nodes are its share (multiplicity
 * x cost) of the plan's estimate of the whole run, which is low by about 2x at depth 7
 * of the start position (split.h, rule 2): hence the factor. A worker's rate is its
 * results' nodes over their busy time, clamped to [PLY__LEASE_MIN_RATE, threads x
 * PLY__LEASE_MAX_THREAD_RATE] nodes/s: the floor is assumed before its first result and
 * bounds the lease a worker reporting slow results can earn, the ceiling (above any
 * real generator without a table, ~1e9/s a thread) keeps results answered from a warm
 * table from shortening the lease of a cold job. */
#define PLY__LEASE_FACTOR          16.0
#define PLY__LEASE_FLOOR_DEATHS    4u
#define PLY__LEASE_MAX_DOUBLINGS   4u
#define PLY__LEASE_MIN_RATE        1e7
#define PLY__LEASE_MAX_THREAD_RATE 2e9

/* Remembers workers dropped as hung, so that a reconnect does not hand them jobs at once. */
#define PLY__HUNG_KEEP 16
/* A worker's live rate is measured over heartbeats at least this far apart (ms). */
#define PLY__RATE_MIN_MS 500
/* Results stored in one transaction at most (group commit, see ply__batch_flush). */
#define PLY__BATCH_MAX 256

struct ply_coordinator {
    ply_coordinator_config_t cfg;
    char *bind, *worker_exe, *state_path;
    char endpoint[256];
    char worker_endpoint[256];
    zlist_t *bound; /* resolved endpoints (char *, autofree), unbound on destroy */
    zsock_t *router;
    uv_loop_t loop;
    int loop_ok;
    uv_poll_t poll;
    uv_timer_t tick;
    uv_timer_t kill_timer;
    uv_async_t async;
    uv_signal_t sig[2];
    int handles_ok, signals_ok;
    proc_t *procs;
    unsigned nprocs, procs_alive;
    const proc_t *proc_lost; /* the local worker slot given up last, or NULL */
    peer_t *peers;
    unsigned nworkers;
    run_t *runs;
    finished_t *finished;
    unsigned nfinished;
    uint64_t next_job_base;
    uint64_t no_worker_since_ms, last_hb_ms, last_progress_ms, started_ms;
    unsigned pending_work;
    int state;
    ply_store_t *store;
    ply_keydir_t *admins; /* --admin-keys: clients that may read and cancel any run */
    int batch_open;       /* results written, not yet committed */
    unsigned batch_n;     /* results in the open transaction */
    uint64_t batch_runs[PLY__BATCH_MAX]; /* the runs they belong to */
    unsigned batch_nruns;
    uint32_t runs_restored, results_restored;
    uint32_t hung[PLY__HUNG_KEEP];
    uint64_t hung_nodes[PLY__HUNG_KEEP];
    unsigned nhung;
    atomic_uint_fast64_t cnt[CNT_N];
    ply_u128_t nodes_reaped; /* the nodes of every run answered since start (status.c) */
    struct ply__http *http;  /* the HTTP status server (http.h), or NULL */
};

/** ply__count - add one to counter @which (a CNT_*) of @c. */
static inline void ply__count(ply_coordinator_t *c, int which)
{
    atomic_fetch_add_explicit(&c->cnt[which], 1, memory_order_relaxed);
}

/**
 * ply__add_sat - @a + @b (uint64), or UINT64_MAX when the sum would wrap: the run's
 * figures that a worker's word feeds (counted nodes, table probes) stop at the top
 * rather than wrap to a small number.
 */
static inline uint64_t ply__add_sat(uint64_t a, uint64_t b)
{
    return a + b < b ? UINT64_MAX : a + b;
}

/* ---- peers.c ---- */

/** ply__hash_id - FNV-1a of a worker id. */
uint32_t ply__hash_id(const char *id);
/** ply__rid_hex - routing id @rid in hex into @buf (at most @len bytes, cut to fit, terminated). */
void ply__rid_hex(zframe_t *rid, char *buf, size_t len);
/**
 * ply__identity - the identity (see peer_t) of the sender of a message:
 * "curve:<key>" from @peer_key (ply_curve_recv_from's "role:key", "" without
 * CURVE), else "conn:<hex of @rid>". Writes at most @len bytes (PLY__IDENT_LEN
 * holds any identity) into @buf, always terminated.
 */
void ply__identity(zframe_t *rid, const char *peer_key, char *buf, size_t len);
/**
 * ply__principal - whose a client message is (the owner of the run it
 * submits, who asks about a run), from its sender's @identity and the owner
 * @token it sent (see peers.c), into @buf (at most @len bytes).
 */
void ply__principal(const char *identity, const char *token, char *buf, size_t len);
/** ply__is_admin - 1 when principal @who is one of the --admin-keys (CURVE only). */
int ply__is_admin(ply_coordinator_t *c, const char *who);
/**
 * ply__may_read - 1 when @who may read the answer of, and cancel, a run of
 * @owner: its owner, or an admin key; a run stored before runs had owners
 * ("") is everyone's, as it was.
 */
int ply__may_read(ply_coordinator_t *c, const char *owner, const char *who);
/** ply__send_raw - send a copy of the encoded message @stored to @rid; 0, PLY_ENOMEM or PLY_EIO. */
int ply__send_raw(ply_coordinator_t *c, zframe_t *rid, zmsg_t *stored);
/** ply__send_msg - send @m to @rid; a failure is only logged (debug). */
void ply__send_msg(ply_coordinator_t *c, zframe_t *rid, ply_msg_t *m);
/** ply__send_error - send an Error (@code, the message, @run_id) to @rid; nothing when @rid is
 * NULL. */
void ply__send_error(ply_coordinator_t *c, zframe_t *rid, int code, uint64_t run_id,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/** ply__peer_find - the peer with routing id @rid, or NULL. */
peer_t *ply__peer_find(ply_coordinator_t *c, zframe_t *rid);
/** ply__peer_add - a new peer of @kind (PEER_*) at the head of the list, or NULL (out of memory).
 */
peer_t *ply__peer_add(ply_coordinator_t *c, zframe_t *rid, const char *identity, int kind);
/** ply__peer_unlink - take @gone out of the list and free it (ply__worker_remove re-queues first).
 */
void ply__peer_unlink(ply_coordinator_t *c, peer_t *gone);
/** ply__inflight_add - worker @p now holds the task of wire id @job_id; 0 or PLY_ENOMEM. */
int ply__inflight_add(peer_t *p, uint64_t job_id);
/** ply__inflight_remove - @p no longer holds @job_id (nothing when it did not). */
void ply__inflight_remove(peer_t *p, uint64_t job_id);
/** ply__worker_by_id - a connected worker whose worker_id is @id, or NULL. */
peer_t *ply__worker_by_id(ply_coordinator_t *c, const char *id);
/**
 * ply__worker_release_jobs - worker @p is gone (dead, BYE or re-HELLO): its
 * credit is 0 and its tasks go back to their runs (ply__job_requeue with
 * @failure and @reason).
 */
void ply__worker_release_jobs(ply_coordinator_t *c, peer_t *p, int failure, const char *reason);
/** ply__worker_remove - log why @p goes (@reason), release its tasks and unlink it. */
void ply__worker_remove(ply_coordinator_t *c, peer_t *p, int failure, const char *reason);
/**
 * ply__worker_list - the connected workers as WorkerStatus entries (the
 * caller frees both arrays), node totals only where @who may read them;
 * their number, 0 with NULLs when there are none or memory is short.
 */
size_t ply__worker_list(ply_coordinator_t *c, Ply__WorkerStatus **wsp, Ply__WorkerStatus ***wpp,
                        const char *who);

/* ---- runs.c ---- */

/** ply__run_fail - mark the run failed (the first reason wins); it is answered when reaped. */
void ply__run_fail(run_t *run, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** ply__job_find - the active run holding the task of wire id @job_id (its index in *idx), or NULL.
 */
run_t *ply__job_find(ply_coordinator_t *c, uint64_t job_id, size_t *idx);
/** ply__run_find - the run with id @id still in memory (any state), or NULL. */
run_t *ply__run_find(ply_coordinator_t *c, uint64_t id);
/**
 * ply__run_new - a new run of @kind (the only place a run is created; ply__run_free is the
 * only place it is freed), in no list yet: its kind's submit or restore makes it what it
 * asks. NULL when out of memory.
 */
run_t *ply__run_new(ply_coordinator_t *c, const struct ply__kind *kind);
/** ply__run_free - free a run that is in no list, with everything it owns. */
void ply__run_free(run_t *run);
/** ply__finished_find - the finished run @id kept in memory, or NULL. */
finished_t *ply__finished_find(ply_coordinator_t *c, uint64_t id);
/** ply__finished_from_store - a stored summary as a finished_t (reply NULL). */
void ply__finished_from_store(finished_t *f, const ply_store_finished_t *sf);
/**
 * ply__finished_lookup - a finished run: from memory, else read back from
 * the state file into *tmp with its reply re-framed (the caller destroys
 * tmp->reply). NULL when unknown.
 */
finished_t *ply__finished_lookup(ply_coordinator_t *c, uint64_t id, finished_t *tmp);
/** ply__run_queued_ms - how long @run waited from its acceptance (or restore) for its first job to
 * go out, ms, at @now (ms, monotonic). */
uint64_t ply__run_queued_ms(const run_t *run, uint64_t now);
/**
 * ply__run_time_ms - the run's time, ms: from its submission (a resumed run: from its restore,
 * as its counted nodes are this session's) to @now, less the time it waited in the queue.
 */
uint64_t ply__run_time_ms(const run_t *run, uint64_t now);
/** What a run computes (RunAsked) with room for the sub-message it points to (a kind's
 * request, RunAsked.perft: the kind's own type), so that answers about many runs can be built
 * at once. */
typedef struct ply__asked {
    Ply__RunAsked msg;
    _Alignas(max_align_t) unsigned char room[256];
} ply__asked_t;
/** ply__run_asked - what @run computes, as every answer about it says, into @a->msg (strings
 * point into @run, and into @a). */
void ply__run_asked(ply__asked_t *a, const run_t *run);
/**
 * ply__fill_progress - fill @rp about @run, or about the finished record @f
 * (strings point into them; rp->asked to @asked), as @who may see it: the
 * count only for its owner (or an admin).
 */
void ply__fill_progress(ply_coordinator_t *c, Ply__RunProgress *rp, ply__asked_t *asked,
                        const run_t *run, const finished_t *f, const char *who);
/**
 * ply__send_progress - send a RunProgress about @run (or the finished record
 * @f) to @rid, with the worker list when @with_workers; nothing when @rid is NULL.
 */
void ply__send_progress(ply_coordinator_t *c, zframe_t *rid, const run_t *run, const finished_t *f,
                        int with_workers, const char *who);
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
void ply__result_drop(ply_coordinator_t *c, run_t *run, size_t idx, int role);
/**
 * ply__result_store - store result @r of @run in the open group-commit transaction (opened
 * when none is: see ply__batch_flush), flushed once PLY__BATCH_MAX results wait. 0 without a
 * state file; PLY_EDB or PLY_EINVAL (ply_store_add_result's) with the reason in @why.
 */
int ply__result_store(ply_coordinator_t *c, const run_t *run, const ply_store_result_t *r,
                      char *why, size_t why_len);
/** ply__run_state_name - "splitting", "queued", "running", "done", "failed" or "canceled". */
const char *ply__run_state_name(const run_t *run);
/**
 * ply__run_work_done - the part of @run's estimated work done, 0 to 1: its jobs whose first
 * computation is in, weighted by the kind's job_estimate (nodes). -1 before it is planned
 * (no jobs yet). What /status's progress and RunProgress.work_done_ppm report.
 */
double ply__run_work_done(const run_t *run);
/**
 * ply__check_worker_wait - fails the active runs that waited worker_wait_ms for a worker (or
 * for one that runs what they ask), or at once when every local worker slot was given up
 * (service.c).
 */
void ply__check_worker_wait(ply_coordinator_t *c, uint64_t now);
/* local_workers.c: the worker processes a coordinator starts. */
/**
 * ply__local_workers_start - binds a loopback tcp endpoint when only inproc/ipc ones are
 * bound, then starts cfg.spawn_workers local workers. 0, PLY_ENOMEM, PLY_ECONNECT or
 * PLY_EWORKER (a worker could not be started) with the reason in @why.
 */
int ply__local_workers_start(ply_coordinator_t *c, char *why, size_t why_len);
/** ply__local_slots_left - local worker slots still running or to be started again. */
unsigned ply__local_slots_left(const ply_coordinator_t *c);
/** ply__local_workers_stop - SIGTERM to every local worker, SIGKILL after a grace period. */
void ply__local_workers_stop(ply_coordinator_t *c);
/**
 * ply__run_update_waiting - at every tick, for an active run: what it waits for when
 * workers are connected but none may take any of its tasks (none runs the engine or kind
 * it asks; its checks need another worker of the same engine) into run->waiting, logged
 * once when it changes; "" when a worker holds or may take a task, or none is connected
 * (that wait has its own message).
 */
void ply__run_update_waiting(ply_coordinator_t *c, run_t *run);

/** ply__run_in_flight - the tasks of @run that workers hold now. */
uint32_t ply__run_in_flight(ply_coordinator_t *c, const run_t *run);
/** ply__reap_runs - answer, record in the state file and free every run that is done or failed. */
void ply__reap_runs(ply_coordinator_t *c);

/* ---- dispatch.c ---- */

/** ply__queue_push - put task @t at the back of the run's queue; 0 or PLY_ENOMEM. */
int ply__queue_push(run_t *run, size_t t);
/* Task state: the only way other files change a job_state_t (they may read it). */
/**
 * ply__task_queue - task @t of @run (not in flight) is PENDING and at the back of the queue,
 * its queue time now; a failed push fails the run (PLY_ENOMEM).
 */
void ply__task_queue(run_t *run, size_t t);
/**
 * ply__task_done - task @t of @run is over: its result is in, or it is no longer wanted
 * (JOB_DONE, no holder). The caller has taken it out of its worker's inflight list.
 */
void ply__task_done(run_t *run, size_t t);
/**
 * ply__task_unused - task @t of @run (a check, tie-break or drill-down, not in flight) is not
 * needed (JOB_UNUSED, no holder); a result that still comes back for it is dropped.
 */
void ply__task_unused(run_t *run, size_t t);
/** ply__task_by_arbiter - task @t of @run is being counted by the rule engine (JOB_ARBITER). */
void ply__task_by_arbiter(run_t *run, size_t t);
/**
 * ply__task_restored - task @t of @run, read back from the state file, had @attempt hand-outs
 * and @failures failed attempts, described by @history ("; "-separated, "" or NULL for none;
 * copied: a copy that cannot be made is left out), so that a restart does not reset its
 * quarantine count.
 */
void ply__task_restored(run_t *run, size_t t, uint32_t attempt, uint32_t failures,
                        const char *history);
/**
 * ply__job_requeue - put in-flight task @idx of @run back in its queue (the
 * caller has taken it out of the worker's inflight list). @failure: the
 * attempt failed (it counts towards max_attempts and quarantine, see
 * dispatch.c); @reason says why, for the log and a quarantine report.
 */
void ply__job_requeue(ply_coordinator_t *c, run_t *run, size_t idx, int failure,
                      const char *reason);
/** ply__cancel_on_worker - tell worker @p to stop task @idx of @run: it was taken back. */
void ply__cancel_on_worker(ply_coordinator_t *c, peer_t *p, const run_t *run, size_t idx);
/**
 * ply__withdraw - take every task of @run that a worker of identity
 * @identity holds back from it (not counted as failures) and re-queue them.
 */
void ply__withdraw(ply_coordinator_t *c, run_t *run, const char *identity);
/** ply__dispatch - hand out tasks while workers have credit and may take one. */
void ply__dispatch(ply_coordinator_t *c);
/** ply__check_leases - tasks whose lease ended before @now (ms, monotonic) fail their attempt. */
void ply__check_leases(ply_coordinator_t *c, uint64_t now);

/* ---- worker_msgs.c ---- */

/** ply__on_hello - a HELLO from @rid (identity @identity; its peer @p, or NULL). */
void ply__on_hello(ply_coordinator_t *c, zframe_t *rid, const char *identity, peer_t *p,
                   const Ply__Hello *h);
/** ply__on_worker_message - READY, PROGRESS, RESULT, HEARTBEAT, ERROR or BYE (peer @p, or NULL). */
void ply__on_worker_message(ply_coordinator_t *c, zframe_t *rid, peer_t *p, ply_msg_t *msg);

/**
 * ply__on_refused_result - worker @p sent a Result for the task of wire id @job_id, attempt
 * @attempt, that the envelope refused (@why): when @p holds that attempt and the run's kind
 * takes refused results (kind->refused_result), the attempt fails at once; else it is only
 * logged (the lease ends it).
 */
void ply__on_refused_result(ply_coordinator_t *c, peer_t *p, uint64_t job_id, uint32_t attempt,
                            const char *why);

/* ---- client_msgs.c ---- */

/** ply__on_client_message - SUBMIT, STATUS, RESULT_REQUEST or CANCEL (peer @p, or NULL). */
void ply__on_client_message(ply_coordinator_t *c, zframe_t *rid, const char *identity, peer_t *p,
                            ply_msg_t *msg);

/* ---- service.c ---- */

/**
 * ply__pump - the end of every callback: answer finished runs, hand out
 * jobs, and receive until ZMQ_EVENTS shows no POLLIN. The events check comes
 * last, after any send, because the socket's fd is edge-triggered.
 */
void ply__pump(ply_coordinator_t *c);

/* ---- restore.c ---- */

/** ply__restore - read the unfinished runs of the state file back into @c. */
int ply__restore(ply_coordinator_t *c, char *why, size_t why_len);

#endif
