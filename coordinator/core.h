/*
 * The coordinator itself (struct ply_coordinator, service.c's): its sockets, loop, local
 * worker slots, the lists of peers, runs and finished runs, counters, and what the
 * coordinator's files share about it. The coordinator's files, each with the header of
 * what it owns:
 *   service.c      the event loop: receiving and routing messages, timers, the lifecycle
 *                  (coordinator.h, this header)
 *   local_workers.c the worker processes a coordinator starts (this header)
 *   peers.c        the registry of workers and clients: identities, who may read what,
 *                  the tasks each worker holds, sending to a peer (peers.h)
 *   runs.c         the run registry: creating, finding, failing, answering and reaping
 *                  runs, the finished ones, progress (runs.h)
 *   dispatch.c     the scheduler: the tasks, the queue, hand-out, leases, re-queue and
 *                  quarantine (tasks.h)
 *   batch.c        the group commit of stored results (batch.h)
 *   rule_pool.c    the rule engine's own threads, apart from libuv's pool (rule_pool.h)
 *   verification.c the verification service every kind calls (verification.h)
 *   worker_msgs.c  HELLO, READY, RESULT, ERROR, BYE and HEARTBEAT from workers (this header)
 *   client_msgs.c  SUBMIT, STATUS, RESULT_REQUEST, CANCEL (this header)
 *   restore.c      runs read back from the state file (this header)
 *   kind.h, kind.c the job-kind seam and the registry of kinds; each kind a folder
 *                  (perft/, search/) whose state hangs from run->kind_state
 *   status.c, status_render.c, http.c  the status over HTTP (status.h, http.h)
 * Nothing here is public API: names are ply__ (STYLE.md, libuv's convention for internal
 * cross-file names).
 */
#ifndef PLY_COORDINATOR_CORE_H
#define PLY_COORDINATOR_CORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <czmq.h>
#include <uv.h>

#include "coordinator.h"
#include "envelope.h"
#include "security.h"
#include "store.h"
#include "util/u128.h"

#define PLY__WHY_LEN 512
#define PLY__ID_LEN  96 /* worker ids kept per computation (longer ones are cut) */
/* An identity: "curve:" and a 40-character Z85 key, or "conn:" and a routing id in hex (one
 * longer than fits is "conn:#" and a 64-bit hash of it). */
#define PLY__IDENT_LEN 48
/* A worker's search backend as HELLO names it ("builtin", "uci:<engine name>"; longer ones are
 * cut: only the part before ':' decides which runs it may take). */
#define PLY__ENGINE_LEN 64

typedef struct ply_coordinator ply_coordinator_t;
typedef struct ply__peer ply__peer_t;         /* peers.h */
typedef struct ply__run ply__run_t;           /* runs.h */
typedef struct ply__finished ply__finished_t; /* runs.h */

/* the coordinator's states (ply_coordinator.state) */
enum { PLY__C_NEW = 0, PLY__C_RUNNING, PLY__C_STOPPING, PLY__C_CLOSED };

/* One local worker slot (--local-workers N, ply perft --workers N): a slot whose
 * process dies is started again, at most PLY__RESPAWN_MAX times within
 * PLY__RESPAWN_WINDOW_MS, so that one that dies at once every time stops being
 * retried (the slot is given up) while the others go on. */
typedef struct ply__proc {
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
} ply__proc_t;

enum {
    PLY__CNT_MESSAGES,
    PLY__CNT_MALFORMED,
    PLY__CNT_RESULTS_IGNORED,
    PLY__CNT_JOBS_SENT,
    PLY__CNT_JOBS_REQUEUED,
    PLY__CNT_WORKERS_JOINED,
    PLY__CNT_WORKERS_LOST,
    PLY__CNT_RUNS_DONE,
    PLY__CNT_RUNS_FAILED,
    PLY__CNT_WORKERS_HUNG,
    PLY__CNT_RESULTS_COMPUTED,
    PLY__CNT_VERIFY_MISMATCHES,
    PLY__CNT_CLIENTS_FORGOTTEN,
    PLY__CNT_N
};

/* A local worker slot is started again after an early exit at most this many times
 * within the window (ply__proc_t): enough for a rare crash or an OOM kill, bounded for a
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
    uv_timer_t wake;  /* ply__wake_at's */
    uint64_t wake_ms; /* when it fires (monotonic ms), 0: not armed */
    uv_async_t async;
    uv_signal_t sig[2];
    int handles_ok, signals_ok;
    ply__proc_t *procs;
    unsigned nprocs, procs_alive;
    const ply__proc_t *proc_lost; /* the local worker slot given up last, or NULL */
    ply__peer_t *peers;
    unsigned nworkers, nclients; /* nclients: at most PLY__CLIENTS_KEEP (peers.h) */
    ply__run_t *runs;
    uint64_t dispatch_last; /* the run dispatch.c handed a task out of last (round-robin) */
    ply__finished_t *finished;
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
    atomic_uint_fast64_t cnt[PLY__CNT_N];
    ply_u128_t nodes_reaped; /* the nodes of every run answered since start (status.c) */
    struct ply__http *http;  /* the HTTP status server (http.h), or NULL */
    /* the rule engine's own threads (rule_pool.h), or NULL: it counts no job */
    struct ply__rule_pool *rule_pool;
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
 * ply__check_worker_wait - fails the active runs that waited worker_wait_ms for a worker (or
 * for one that runs what they ask), or at once when every local worker slot was given up
 * (service.c).
 */
void ply__check_worker_wait(ply_coordinator_t *c, uint64_t now);

/* ---- worker_msgs.c ---- */

/** ply__on_hello - a HELLO from @rid (identity @identity; its peer @p, or NULL). */
void ply__on_hello(ply_coordinator_t *c, zframe_t *rid, const char *identity, ply__peer_t *p,
                   const Ply__Hello *h);
/** ply__on_worker_message - READY, PROGRESS, RESULT, HEARTBEAT, ERROR or BYE (peer @p, or NULL). */
void ply__on_worker_message(ply_coordinator_t *c, zframe_t *rid, ply__peer_t *p, ply_msg_t *msg);

/**
 * ply__on_refused_result - worker @p sent a Result for the task of wire id @job_id, attempt
 * @attempt, that the envelope refused (@why): when @p holds that attempt and the run's kind
 * takes refused results (kind->refused_result), the attempt fails at once; else it is only
 * logged (the lease ends it).
 */
void ply__on_refused_result(ply_coordinator_t *c, ply__peer_t *p, uint64_t job_id, uint32_t attempt,
                            const char *why);

/* ---- client_msgs.c ---- */

/** ply__on_client_message - SUBMIT, STATUS, RESULT_REQUEST or CANCEL (peer @p, or NULL). */
void ply__on_client_message(ply_coordinator_t *c, zframe_t *rid, const char *identity,
                            ply__peer_t *p, ply_msg_t *msg);
/**
 * ply__run_plan - plan @run (in @c's runs, splitting: just submitted, or read back from the
 * state file unplanned) with its kind on libuv's thread pool; then its plan is stored (with a
 * state file), it is set up and its jobs go out; a plan that fails fails the run (its client
 * gets the Error, the state file records it failed). 0, or PLY_ENOMEM: the run is failed.
 */
int ply__run_plan(ply_coordinator_t *c, ply__run_t *run);

/* ---- service.c ---- */

/**
 * ply__pump - the end of every callback: answer finished runs, hand out
 * jobs, and receive until ZMQ_EVENTS shows no POLLIN. The events check comes
 * last, after any send, because the socket's fd is edge-triggered.
 */
void ply__pump(ply_coordinator_t *c);
/**
 * ply__wake_at - have the coordinator look at its runs again at @at_ms (monotonic ms, as
 * ply_time_ms) rather than at its next tick: every active run's kind->verify_tick then (a
 * deepening analysis's time limit). The earliest time asked wins; a time past fires at once.
 */
void ply__wake_at(ply_coordinator_t *c, uint64_t at_ms);

/* ---- restore.c ---- */

/** ply__restore - read the unfinished runs of the state file back into @c. */
int ply__restore(ply_coordinator_t *c, char *why, size_t why_len);

#endif
