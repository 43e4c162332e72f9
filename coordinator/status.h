/*
 * The coordinator's status as one snapshot: what GET /status (JSON) and GET
 * /metrics (Prometheus text) show, gathered in one place (status.c) from the
 * registries (runs, the finished runs kept in memory, peers, counters) on the
 * loop thread, then rendered without touching them (status_render.c). The
 * snapshot owns copies of everything it holds, so a slow HTTP client never
 * holds a pointer into a run that is reaped meanwhile.
 *
 * Rates: a run's nodes/s is its counted leaf nodes over its computing time
 * (as `ply perft` reports it, README "Using it"); a worker's is the advance
 * of its heartbeat node count between two heartbeats at least
 * PLY__RATE_MIN_MS apart. ETA: the run's computing time so far times the
 * part of its estimated work (kind->job_estimate of each job) still to do
 * over the part done; unknown (-1) until a job is done.
 *
 * A search run's lines (its best PLY__STATUS_LINES root moves in SAN, its
 * deepest completed iteration and every iteration so far) are in the snapshot
 * only when the viewer may read its answer: the rule of `ply status` and `ply
 * result` (ply__may_read: its owner, or an admin key). An HTTP viewer is known
 * only by the owner token it sends (X-Ply-Owner-Token, http.c): that makes it
 * the owner of the runs submitted with that token without CURVE; it never
 * reads a run of a CURVE key. For the others answer_hidden says so.
 */
#ifndef PLY_COORDINATOR_STATUS_H
#define PLY_COORDINATOR_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/san.h"
#include "core.h"

/* A search run's lines the snapshot keeps: the best few, each cut to a few plies. */
#define PLY__STATUS_LINES 5
#define PLY__STATUS_PV    12

/* One analysed root move (AnalysedMove) as the page shows it. */
typedef struct ply__status_line {
    char move[8];                             /* UCI */
    char san[PLY_ARB_SAN_MAX];                /* SAN, check marks included */
    char pv[PLY__STATUS_PV][PLY_ARB_SAN_MAX]; /* its line in SAN, npv plies (the first ones) */
    unsigned npv;
    int has_mate;     /* 1: mate (moves, + when the side to move mates); 0: score_cp */
    int32_t score_cp; /* centipawns, the side to move of the position analysed */
    int32_t mate;
    uint32_t bound; /* 0 exact, 1 lower bound, 2 upper bound (SearchLine.bound) */
    uint32_t depth; /* plies */
} ply__status_line_t;

/* One completed iteration of a deepening analysis (SearchIteration). */
typedef struct ply__status_iter {
    uint32_t depth;            /* plies */
    char san[PLY_ARB_SAN_MAX]; /* its best root move */
    int has_mate;
    int32_t score_cp, mate;
    uint32_t bound;
    uint64_t time_ms; /* since the run was accepted */
    uint64_t nodes;   /* of every job so far */
} ply__status_iter_t;

typedef struct ply__status_run {
    uint64_t id;
    char kind[16];  /* "perft", "search" */
    char state[16]; /* "splitting", "queued", "running", "done", "failed", "canceled" */
    int finished;   /* answered already (from the finished runs kept in memory) */
    char fen[PLY_ARB_FEN_MAX];
    unsigned depth;       /* plies; 0: none asked (a search by nodes or time) */
    uint64_t nodes_limit; /* search: node budget per root move, 0: none */
    uint32_t movetime_ms; /* search: time per root move, 0: none */
    int deepen;           /* search: a deepening analysis (SearchRequest.deepen): the three
                             limits above are the whole analysis's */
    int infinite;         /* ... that deepens until canceled (SearchRequest.infinite) */
    uint32_t jobs_total, jobs_done, jobs_in_flight, jobs_queued;
    ply_u128_t nodes;       /* perft: the count so far (multiplicity x job counts); search:
                               nodes searched */
    uint64_t counted_nodes; /* leaf nodes the workers enumerated (the rate's) */
    uint64_t time_ms;       /* computing time: from the first job out, without the queue */
    uint64_t queued_ms;     /* time it waited for its first job to go out */
    uint64_t tail_ms;       /* idle tail so far: a worker idle with no job left (tasks.h) */
    double nodes_per_second;
    int64_t eta_ms;  /* -1: unknown; 0 once finished */
    double progress; /* estimated work done, 0 to 1 (jobs weighted by their estimates);
                        -1: not planned yet */
    char verify[32]; /* "none", "sample=P", "all" */
    uint32_t mismatches;
    char error[PLY__WHY_LEN]; /* why it failed or was canceled, "" */
    /* kind search, a root-move analysis (not a game's): its answer so far, when the viewer
     * may read it (has_search); else answer_hidden */
    int answer_hidden;
    int has_search;
    uint32_t search_depth; /* deepest completed iteration (deepen), 0: none */
    uint32_t moves_done;   /* root moves with a line so far */
    unsigned nlines;       /* lines[]: the best first */
    ply__status_line_t lines[PLY__STATUS_LINES];
    size_t niters;
    ply__status_iter_t *iters; /* niters of them, in order (owned; NULL when none) */
} ply__status_run_t;

/* Job kinds a worker row names at most. */
#define PLY__STATUS_KINDS 8

typedef struct ply__status_worker {
    char worker_id[PLY_MAX_TEXT + 1]; /* as HELLO gave it: valid UTF-8, one line */
    char identity[PLY__IDENT_LEN];
    char engine[PLY__ENGINE_LEN]; /* "builtin", "uci:<name>", "" (perft only) */
    uint32_t threads, hash_mib, zobrist_seed;
    const char *kinds[PLY__STATUS_KINDS]; /* the names of the job kinds it runs (kind.h's
                                             registry: static strings), nkinds of them */
    unsigned nkinds;
    uint32_t jobs_in_flight;
    uint64_t jobs_done;
    ply_u128_t nodes; /* the counts of its results */
    double nodes_per_second;
    int64_t heartbeat_age_ms; /* since its last heartbeat (or HELLO), -1: none yet */
    uint32_t excluded_runs;   /* active runs in which it was caught wrong */
} ply__status_worker_t;

typedef struct ply__status {
    uint64_t uptime_ms;
    ply_coordinator_counters_t counters;
    ply_u128_t nodes_total;    /* runs answered since start, plus the runs in memory now */
    uint32_t threads;          /* of the connected workers */
    uint32_t runs_by_state[6]; /* splitting, queued, running, done, failed, canceled (in memory) */
    size_t nruns;
    ply__status_run_t *runs; /* the runs in memory, then the finished ones, newest first */
    size_t nworkers;
    ply__status_worker_t *workers;
} ply__status_t;

/** The names of runs_by_state's entries, in order. */
extern const char *const ply__status_run_states[6];

/**
 * ply__status_take - fill @s with the coordinator's state now (loop thread
 * only), as viewer @who (a principal, peers.h's ply__principal; NULL: no run's
 * lines, as /metrics) may see it. 0, or PLY_ENOMEM (then @s holds nothing to
 * release).
 */
int ply__status_take(ply_coordinator_t *c, ply__status_t *s, const char *who);

/** ply__status_release - free what ply__status_take allocated in @s; idempotent. */
void ply__status_release(ply__status_t *s);

/**
 * ply__status_json - @s as the JSON document of GET /status (a new string,
 * caller frees; its length in *@len), or NULL when out of memory. Counts are
 * exact JSON numbers of any size (util/json_exact.h).
 */
char *ply__status_json(const ply__status_t *s, size_t *len);

/**
 * ply__status_metrics - @s in the Prometheus text exposition format 0.0.4
 * (prometheus.io/docs/instrumenting/exposition_formats), metric names ply_*
 * with HELP and TYPE lines, label values escaped (\\, \", \n); a new string,
 * caller frees, its length in *@len; NULL when out of memory.
 */
char *ply__status_metrics(const ply__status_t *s, size_t *len);

#endif
