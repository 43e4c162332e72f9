/*
 * What the daemon's two threads share (internal to worker/daemon/): the network actor
 * (net.c) and the compute side (service.c and the job runners it calls) talk only through
 * the actor's pipe and this structure: the counters the heartbeat reports, the session
 * epoch, and the running job with the list of attempts the coordinator took back.
 *
 * Cancellation (cancel.c): a coordinator's Cancel{job_id, attempt} does not queue behind
 * the jobs in the pipe: the actor records it in the cancel list and stops that attempt if
 * it is the running one; the compute side drops a listed job instead of starting it. The
 * cancel lock makes "is it listed?" and "it is the running one" one step on each side, so
 * a Cancel is never missed between the two.
 */
#ifndef PLY_WORKER_DAEMON_H
#define PLY_WORKER_DAEMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "envelope.h"
#include "service.h"

#define PLY__CANCELED_KEEP 16 /* Cancels remembered: far more than the credit we ever ask for */

/*
 * How to stop a running job besides its cancel flag (ply__daemon_t.job_cancel), which a
 * job that polls it (perft) needs alone: a search backend is told instead. Both calls are
 * made under the cancel lock.
 */
typedef struct ply__job_stop {
    void (*stop)(void *arg);  /* the actor stops the running job (a Cancel, a new session) */
    void (*clear)(void *arg); /* the job is over: a stop that came too late must not carry */
    void *arg;
} ply__job_stop_t;

typedef struct ply__daemon {
    const ply_worker_config_t *cfg;
    const _Atomic int *stop;
    char worker_id[128];
    int threads;               /* OpenMP threads per job */
    _Atomic uint64_t progress; /* leaf nodes of the running job so far (runners) */
    _Atomic uint64_t done;     /* leaf nodes of finished jobs (runners) */
    _Atomic uint64_t job_id;   /* running job, 0 when idle (cancel.c) */
    _Atomic uint32_t attempt;  /* (cancel.c) */
    _Atomic int cancel;        /* raised by the actor: stop the running job and every later one */
    /* Sessions with the coordinator: a reconnect or a HELLO again starts a new one (the
     * actor counts them), and the work of older sessions (re-queued by the coordinator) is
     * dropped: the running job is cancelled (job_cancel) and queued jobs carry their
     * session's epoch. */
    _Atomic unsigned epoch;
    _Atomic int job_cancel; /* stop the running job (cancel.c) */
    /* Attempts the coordinator took back (Cancel): the last few, enough for every job the
     * credit lets it hand us. Under cancel_lock, as is stopper. */
    pthread_mutex_t cancel_lock;
    struct {
        uint64_t job_id;
        uint32_t attempt;
    } canceled[PLY__CANCELED_KEEP];
    unsigned next_canceled;  /* the ring's next slot; empty slots hold job 0, never a job id */
    ply__job_stop_t stopper; /* the running job's, or all NULL */
    /* the worker's own Zobrist keys (HELLO): read once, as a reproducible search job of the
     * builtin engine runs on the default seed's keys for its time (run_search.c) */
    uint32_t zobrist_seed;
    uint64_t zobrist_checksum;
    unsigned results; /* jobs finished, for cfg->fault_every (PLY_FAULT_INJECTION builds) */
} ply__daemon_t;

/* ---- cancel.c: the running job and the cancel list -------------------------- */

/** ply__job_begin - makes @job the running one (heartbeats name it, a Cancel can stop it, by
 * @how when not NULL), unless the coordinator has already taken it back: then PLY_ECANCELED.
 * Compute side. */
int ply__job_begin(ply__daemon_t *sh, const Ply__Job *job, const ply__job_stop_t *how);

/** ply__job_end - the running job is over: no Cancel may stop it any more, nor a later one.
 * Compute side. */
void ply__job_end(ply__daemon_t *sh);

/** ply__job_cancel - the coordinator took back (@job_id, @attempt): stops it if it runs, and
 * it is never started. Actor. */
void ply__job_cancel(ply__daemon_t *sh, uint64_t job_id, uint32_t attempt);

/** ply__stop_running - stops the running job, if any (its session is over). Actor. */
void ply__stop_running(ply__daemon_t *sh);

/** ply__cancel_all - stops the running job and any later one (shutting down). Actor. */
void ply__cancel_all(ply__daemon_t *sh);

#endif
