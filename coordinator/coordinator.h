/*
 * The coordinator: accepts perft runs from clients, validates the position
 * with the arbiter, splits the tree into jobs (coordinator/split.h), hands
 * jobs to workers by credit over one ROUTER socket, re-queues the jobs of
 * workers that die, sums multiplicity x result, checks each job's perft(1)
 * against the arbiter, and answers the client.
 *
 * One libuv event loop owns everything (DESIGN.md, STYLE.md rule 7): the
 * ROUTER socket's ZMQ_FD is watched with uv_poll and drained until
 * ZMQ_EVENTS has no POLLIN (the fd is edge-triggered), timers drive
 * heartbeats and leases, uv_signal handles SIGINT/SIGTERM when the
 * coordinator owns the process, and uv_spawn starts local workers on request.
 * The same object runs as `ply-coordinator` and embedded in `ply`.
 */
#ifndef PLY_COORDINATOR_H
#define PLY_COORDINATOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct ply_coordinator ply_coordinator_t;

typedef struct ply_coordinator_config {
    /* Endpoints to bind, comma-separated, e.g. "tcp://127.0.0.1:5555",
     * "tcp://127.0.0.1:*" (ephemeral port), "inproc://ply-1". Required. */
    const char *bind;
    unsigned heartbeat_ms;   /* heartbeat period, milliseconds; default 1000 (0: default) */
    unsigned liveness;       /* missed heartbeats before a peer is dead; default 5 (0: default) */
    unsigned lease_ms;       /* a job not finished in this time is re-queued (a failed
                              * attempt); 0 = sized per attempt from the job's estimate and
                              * the worker's measured rate (core.h, PLY__LEASE_*) */
    unsigned max_attempts;   /* a job failing this often is quarantined; default 3 (0: default) */
    unsigned worker_wait_ms; /* fail a run that has had no worker for this long; default 60000;
                                0 = wait forever */
    int handle_signals;      /* 1: SIGINT/SIGTERM stop the loop (the standalone daemon) */
    /* Local workers started (uv_spawn) and stopped with the coordinator. */
    unsigned spawn_workers;   /* number of ply-worker processes; 0 = none */
    const char *worker_exe;   /* path of the ply-worker executable */
    unsigned worker_threads;  /* their --threads (0: their default) */
    unsigned worker_hash_mib; /* their --hash, MiB; 0 = no table (config_init: 256) */
    /* More arguments for their command line, after the others (e.g. "--engine", CMD,
     * "--engine-option", "Hash=64"), at most PLY_COORDINATOR_WORKER_ARGS_MAX; not copied:
     * they must outlive the coordinator (a worker that dies is started again). NULL/0: none. */
    const char *const *worker_args;
    size_t nworker_args;
    /* Transport security (proto/security.h): CURVE keys and the ZAP handler, not owned, or
     * NULL. Without it only loopback, inproc and ipc endpoints are bound unless insecure. */
    const struct ply_curve_server *curve;
    int insecure;
    /* A directory of client public keys (NAME.key) that may read and cancel any run, not
     * only their own (needs curve: without CURVE no key is proven); NULL: none. */
    const char *admin_keys;
    /* Durable state (store.h): an SQLite file holding every accepted run, job and result,
     * read back at start so that runs resume; NULL: nothing survives the process. */
    const char *state_path;
    /* Finished runs whose job and result rows stay in the state file (the newest); older
     * ones keep their summary and answer only (ply_store_prune). config_init: 20. */
    unsigned keep_runs;
    unsigned hang_ms; /* a worker whose heartbeat node count does not advance for this long
                         while it holds jobs is hung: dropped, jobs re-queued; default
                         300000; 0 = never */
    /* Largest job (estimated nodes) the rule engine recounts itself for --verify sample
     * and tie-breaks (25-31 million nodes a second on one core, bench_arbiter); 0 = never. */
    uint64_t arbiter_budget;
    /* The rule engine's own threads (coordinator/rule_pool.h), at a lower OS priority than
     * the loop and the planning of runs; config_init: 1. 0: the rule engine counts no job
     * (as arbiter_budget 0). */
    unsigned rule_engine_threads;
    /* The automatic split's smallest job, estimated nodes (split.h, rule 3); 0: the default
     * PLY_SPLIT_MIN_JOB_NODES (1e6). Tests lower it to split small runs finely. */
    uint64_t min_job_nodes;
    /* Threads of an in-process worker the caller starts beside the coordinator (ply's
     * embedded default): the automatic split counts them while no worker has joined yet.
     * 0: none. */
    unsigned local_threads;
    /* Status over HTTP (http.h): "ADDR:PORT" to serve GET /status, /metrics and / on
     * ("127.0.0.1:8080", "[::1]:0"; port 0: an ephemeral one, see
     * ply_coordinator_http_endpoint), or NULL for none. A non-loopback address needs
     * insecure or curve, and http_token. */
    const char *http;
    /* The bearer token every HTTP request must carry (copied), or NULL: then only a
     * loopback address is served, and without a token. */
    const char *http_token;
    /* An HTTP connection that has not sent a whole request, or not taken its answer, within
     * this many milliseconds is closed; config_init: 10000 (0: the default). */
    unsigned http_timeout_ms;
} ply_coordinator_config_t;

/** Most worker_args a coordinator passes to its local workers. */
#define PLY_COORDINATOR_WORKER_ARGS_MAX 160

/** Default arbiter_budget: about a second of the rule engine's time per check. */
#define PLY_COORDINATOR_ARBITER_BUDGET 30000000ull

/** Default rule_engine_threads: one core at most for recounts, whatever the machine. */
#define PLY_COORDINATOR_RULE_ENGINE_THREADS 1u

/** ply_coordinator_config_init - fill @cfg with the defaults above (bind = NULL). */
void ply_coordinator_config_init(ply_coordinator_config_t *cfg);

/**
 * ply_coordinator_new - create the coordinator, open its state file and read
 * back the runs it left unfinished (when state_path is set), bind its ROUTER
 * socket and start local workers if asked. The socket is bound before this
 * returns, so a client may connect as soon as it has the endpoint.
 * Returns NULL on failure with a one-line reason in @why ("cannot bind
 * tcp://...: Address already in use", "FILE is in use by another
 * coordinator", "FILE is not a ply state file ...").
 */
ply_coordinator_t *ply_coordinator_new(const ply_coordinator_config_t *cfg, char *why,
                                       size_t why_len);

/**
 * ply_coordinator_endpoint - the endpoint clients and workers connect to
 * (the first bound one, with an ephemeral port resolved: "tcp://127.0.0.1:41233").
 * Static storage owned by the coordinator.
 */
const char *ply_coordinator_endpoint(const ply_coordinator_t *c);

/**
 * ply_coordinator_run - run the event loop in the calling thread until
 * ply_coordinator_stop() or a handled signal. Accepted runs still in progress
 * are failed with an Error to their clients (with a state file they stay
 * unfinished there and resume at the next start); workers get a Bye.
 * Returns 0, or a negative PLY_E code if the loop could not run.
 */
int ply_coordinator_run(ply_coordinator_t *c);

/** ply_coordinator_stop - ask the loop to stop; safe from any thread and from signal context. */
void ply_coordinator_stop(ply_coordinator_t *c);

/** Event counts since ply_coordinator_new (for tests, logs and status). */
typedef struct ply_coordinator_counters {
    uint64_t messages;        /* messages received on the ROUTER socket */
    uint64_t malformed;       /* undecodable, or a type the sending peer may not send */
    uint64_t results_ignored; /* RESULTs for an unknown job or a superseded attempt */
    uint64_t jobs_sent;       /* JOB messages sent (every attempt) */
    uint64_t jobs_requeued; /* jobs put back: dead or leaving worker, expired lease, worker ERROR */
    uint64_t workers_joined;   /* HELLOs accepted */
    uint64_t workers_lost;     /* workers declared dead (silent for liveness x heartbeat_ms) */
    uint64_t runs_done;        /* runs answered with a RunResult */
    uint64_t runs_failed;      /* runs answered with an Error (failed, canceled, stopped) */
    uint64_t workers_hung;     /* workers dropped because their node count stopped (also lost) */
    uint64_t results_computed; /* job results received from workers since start */
    uint64_t runs_restored;    /* unfinished runs read back from the state file at start */
    uint64_t results_restored; /* job results read back with them (never recomputed) */
    uint64_t verify_mismatches; /* computations of a job found to disagree (verification) */
    uint64_t clients_forgotten; /* clients forgotten to keep at most 256 (not for their silence) */
} ply_coordinator_counters_t;

/**
 * ply_coordinator_counters - copy the counters into *out. Safe from any
 * thread while the loop runs (each counter is read atomically; the set is not
 * a snapshot).
 */
void ply_coordinator_counters(const ply_coordinator_t *c, ply_coordinator_counters_t *out);

/**
 * ply_coordinator_worker_endpoint - the tcp endpoint local workers connect to:
 * the first bound tcp endpoint (a wildcard host written as 127.0.0.1), or the
 * tcp://127.0.0.1:<port> bound in addition when spawn_workers is set and every
 * configured endpoint is inproc/ipc. NULL when there is none. Static storage
 * owned by the coordinator.
 */
const char *ply_coordinator_worker_endpoint(const ply_coordinator_t *c);

/**
 * ply_coordinator_http_check - whether @addr is an address the HTTP status server can
 * take: "ADDR:PORT" with a numeric IPv4 address or a bracketed IPv6 one, PORT 0..65535.
 * Returns 0, or PLY_EUSAGE with the reason and the expected form in @why (a usage error:
 * the coordinator has not started).
 */
int ply_coordinator_http_check(const char *addr, char *why, size_t why_len);

/**
 * ply_coordinator_http_endpoint - the address the HTTP status server listens on, its port
 * resolved ("127.0.0.1:41233", "[::1]:8080"), or NULL when there is none. Static storage
 * owned by the coordinator.
 */
const char *ply_coordinator_http_endpoint(const ply_coordinator_t *c);

/** ply_coordinator_destroy - free everything (stops spawned workers); NULLs *c; idempotent. */
void ply_coordinator_destroy(ply_coordinator_t **c);

#endif
