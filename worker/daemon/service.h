/*
 * The worker service, the daemon of ply-worker: connects one DEALER socket to a
 * coordinator, asks for jobs by credit, runs each on the engine (worker/engine/) with the
 * runner of its kind (perft: ply_perft_run on OpenMP threads sharing one transposition
 * table; search: an analysis backend, analysis.h), and returns results.
 *
 * Threads: a network actor owns the socket (STYLE.md rule 6) and sends heartbeats
 * carrying the progress counter while the calling thread and its OpenMP team compute;
 * the two talk only through the actor's pipe and the shared state of daemon.h (progress,
 * stop, the running job). So a job of any length never silences the heartbeat.
 *
 * The same code runs as the ply-worker program and, over inproc://, inside
 * the ply command's embedded default.
 */
#ifndef PLY_WORKER_SERVICE_H
#define PLY_WORKER_SERVICE_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct ply_worker_config {
    const char *endpoint;  /* coordinator endpoint, e.g. "tcp://host:5555". Required. */
    int threads;           /* OpenMP threads per job; 0 = one per core */
    unsigned hash_mib;     /* shared table, MiB; 0 = no table */
    const char *worker_id; /* NULL: "<host>:<pid>" */
    unsigned heartbeat_ms; /* heartbeat period until the coordinator's Welcome; default 1000 */
    unsigned liveness;     /* coordinator heartbeats missed before giving up; default 5 */
    unsigned max_jobs;     /* stop after this many jobs (tests); 0 = no limit */
    unsigned prefetch;     /* jobs asked for beyond the running one; default 1 */
    int exit_on_bye;       /* 1: return when the coordinator says Bye or goes silent; 0:
                              reconnect and say HELLO again (also when it answers that it does
                              not know us: it restarted); with curve, a worker never welcomed
                              still returns on silence (a refused key looks like silence) */
    struct ply_analysis *search_backend;  /* search jobs' backend (analysis.h), not
                                             owned; NULL: ply's engine, made by the first one */
    const struct ply_nnue *search_net; /* ply's engine's network (nnue.h), not owned; NULL:
                                          the hand-written evaluation. Default: the engine's
                                          (search.h's PLY_ENGINE_NNUE_DEFAULT) */
    const struct ply_curve_client *curve; /* CURVE keys (proto/security.h), not owned; or NULL */
    unsigned fault_every; /* test builds (PLY_FAULT_INJECTION) only: add 1 to the count of every
                             Nth job, to show that --verify catches a faulty worker; 0 = never,
                             and ignored by any other build */
} ply_worker_config_t;

/** ply_worker_config_init - defaults as documented above (endpoint NULL). */
void ply_worker_config_init(ply_worker_config_t *cfg);

/**
 * ply_worker_run - serve jobs until *@stop becomes non-zero (any thread or a
 * signal handler may set it), the coordinator says Bye or goes silent for
 * liveness heartbeats (when exit_on_bye), or max_jobs are done.
 * Returns 0 on an orderly end, PLY_EINVAL (bad config), PLY_ENOMEM (the
 * table could not be allocated), PLY_ECONNECT (malformed endpoint) or
 * PLY_ETIMEDOUT (the coordinator went silent).
 */
int ply_worker_run(const ply_worker_config_t *cfg, const _Atomic int *stop);

#endif
