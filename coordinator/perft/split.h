/*
 * Planning a distributed perft run with the arbiter (DESIGN.md, main job,
 * step 2): expand the first s plies of the root (the split depth), merge
 * transpositions by ply_arb_identity, and turn every unique position at ply s
 * into one job that a worker counts to depth d - s.
 *
 * Divide stays exact because a job does not carry one multiplicity but one
 * per root move: the number of distinct move paths of length s that start
 * with that root move and reach the job position. Then
 *     perft(d)            = sum over jobs of  (sum of its multiplicities) x nodes(job)
 *     divide(root move r) = sum over jobs of  multiplicity(job, r)        x nodes(job)
 * and the same sums hold for each of the fifteen statistics, which are all
 * about the moves of the last ply.
 *
 * With s = 0 the plan is a single job, the root itself, which the worker must
 * count with divide on (the per-move table then comes from the worker).
 *
 * The expansion is level by level: the unique positions of ply k (identity
 * strings) are parsed back, their legal moves made, and the children merged
 * in a hash table keyed by identity, so memory is about one identity string
 * and one small multiplicity list per unique position of the widest level.
 * The start position has 20, 400, 5,362, 72,078 and 822,518 unique positions
 * after 1-5 plies (OEIS A083276); a split of 5 plies takes seconds and a few
 * hundred MB, which is why PLY_SPLIT_MAX_JOBS bounds it.
 *
 * The automatic split depth (split_depth < 0) fits the cluster: T worker
 * threads (the sum of the connected workers' HELLO threads; 0: unknown, taken
 * as PLY_SPLIT_DEFAULT_THREADS) and a lower bound B on a job's estimated nodes
 * (PLY_SPLIT_MIN_JOB_NODES unless the coordinator is told otherwise). Rules,
 * in order:
 *   1. d = 1, or a root without legal moves: s = 0 (one job with divide).
 *   2. Estimate perft(d) as E from the arbiter's exact perft(1..3) of the
 *      root (below d: perft(d-1) at most, so a run of 3 plies is not counted
 *      twice; perft(2) = perft(1)^2 when only perft(1) is known): beyond the
 *      last exact ply each ply multiplies by the ratio measured two plies
 *      earlier (p3/p2 for the plies of the side to move, p2/p1 for the other
 *      side). Branching grows with depth, so E is usually an underestimate
 *      (start position: 1.8e9 for perft(7) = 3.2e9).
 *   3. For s = 1, 2, ... d-1, with U(s) unique positions and P(s) paths
 *      (= perft(s)), the mean job is about M(s) = E / P(s) nodes:
 *        - if s > 1 and M(s) < B, use s - 1: a job must stay worth its
 *          message (B = 1e6 nodes is a few ms of one thread at the 2-5e8
 *          nodes/s of ply's kernel, against ~0.1 ms for a job's round trip);
 *        - else if U(s) >= 8 T (PLY_SPLIT_JOBS_PER_THREAD: with the biggest
 *          jobs first, the last ones handed out are small, so the idle tail
 *          is short) and M(s) <= PLY_SPLIT_MAX_JOB_NODES (1e12: about a
 *          minute for a 16-thread worker), use s;
 *        - else go one ply deeper, unless s = d - 1 or the next level could
 *          exceed PLY_SPLIT_AUTO_MAX_JOBS (250,000, estimated as this
 *          level's unique positions times the branching ratio; the start
 *          position's ply 4 has 72,078, ply 5 822,518), in which case use
 *          s. Deeper splits cost the coordinator seconds and hundreds of
 *          MB, and any client may ask for a huge depth: they must be asked
 *          for with an explicit split depth.
 *   Start position, 16 threads (128 jobs wanted): perft(2..6) split at 1 (20
 *   jobs: a deeper split would make jobs below B), perft(7..11) at 2 (400
 *   jobs), perft(12) at 3 (5,362 jobs), perft(13) at 4 (72,078 jobs).
 *   64 threads (512 wanted): perft(7) stays at 2 (400 jobs: ply 3 would make
 *   jobs of ~2e5 nodes), perft(8..12) at 3 (5,362 jobs). 2 threads (16
 *   wanted): perft(2..10) at 1 (20 jobs).
 *
 * Jobs are ordered biggest first by an estimated cost (arbiter perft(2) of
 * the job position when the plan has at most PLY_SPLIT_P2_MAX_JOBS jobs,
 * else perft(1) squared), so that the longest jobs start first and the run
 * does not end waiting for one big job handed out last.
 *
 * The planner is pure computation on plain data (no sockets, no globals), so
 * the coordinator runs it on libuv's thread pool.
 */
#ifndef PLY_COORDINATOR_SPLIT_H
#define PLY_COORDINATOR_SPLIT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arbiter/arbiter.h"

/** Deepest run the planner accepts, plies (the protocol's PLY_MAX_DEPTH is lower). */
#define PLY_SPLIT_MAX_DEPTH 64u
/** Jobs wanted by the automatic split for each worker thread. */
#define PLY_SPLIT_JOBS_PER_THREAD 8u
/** Worker threads assumed when none is connected (8 x 16 = 128 jobs wanted). */
#define PLY_SPLIT_DEFAULT_THREADS 16u
/** Smallest mean job (estimated nodes) the automatic split accepts beyond s = 1 (B). */
#define PLY_SPLIT_MIN_JOB_NODES 1000000ull
/** Largest mean job (estimated nodes) the automatic split settles for. */
#define PLY_SPLIT_MAX_JOB_NODES 1000000000000ull
/** Most unique positions a plan may have (explicit or automatic split). */
#define PLY_SPLIT_MAX_JOBS 2000000u
/** The automatic split stops before a level that could exceed this many positions. */
#define PLY_SPLIT_AUTO_MAX_JOBS 250000u
/** A one-job plan (s = 0) of 2 plies or more estimated at most this many nodes carries the
 *  arbiter's count under each root move (ply_split_t.arb_divide, ply_split_recount). */
#define PLY_SPLIT_RECOUNT_NODES 1000000ull
/** Plans with at most this many jobs estimate job cost with arbiter perft(2). */
#define PLY_SPLIT_P2_MAX_JOBS 50000u

/** One root move's share of a job: @count paths from root move @root. */
typedef struct ply_split_mult {
    uint32_t root;  /* index into ply_split_t.root_moves */
    uint64_t count; /* paths of s plies that start with that move and reach the job */
} ply_split_mult_t;

/** One unique position at the split depth. */
typedef struct ply_split_job {
    char *fen;              /* the position as FEN (clocks "0 1"), Shredder-FEN when Chess960 */
    uint32_t perft1;        /* the arbiter's number of legal moves of the position */
    uint64_t cost;          /* estimated worker nodes (see the header comment), for ordering */
    uint64_t multiplicity;  /* all paths to the position: the sum of mult[].count */
    uint32_t nmult;         /* entries in mult (0 for the s = 0 job) */
    ply_split_mult_t *mult; /* sorted by root, counts > 0 */
} ply_split_job_t;

/** A plan: the root, its moves, and the jobs. Owns everything it points to. */
typedef struct ply_split {
    ply_arb_pos_t root;
    unsigned depth;       /* d: plies of the whole run */
    unsigned split_depth; /* s: plies expanded by the arbiter, 0..d-1 */
    unsigned job_depth;   /* d - s: plies each job counts */
    int nroot;            /* legal moves of the root */
    ply_arb_move_t root_moves[PLY_ARB_MAX_MOVES];
    char root_uci[PLY_ARB_MAX_MOVES][6]; /* UCI of each root move (Chess960: king takes rook) */
    uint64_t paths;                      /* positions at ply s before merging (= perft(s)) */
    uint64_t estimate;                   /* estimated perft(d) (rule 2), 0 if not computed */
    size_t njobs;
    ply_split_job_t *jobs; /* biggest estimated cost first */
    /* s = 0, depth >= 2, estimate <= PLY_SPLIT_RECOUNT_NODES: the arbiter's perft(d-1)
     * under each root move (root_moves order), to check the worker's divide; else NULL.
     * Not stored: a plan read back from the state file gets it from ply_split_recount. */
    uint64_t *arb_divide;
} ply_split_t;

/**
 * ply_split_plan - plan perft(@depth) of @root (already validated by
 * ply_arb_from_fen) with @split_depth plies expanded, or the automatic rule
 * of the header comment when @split_depth < 0 (for PLY_SPLIT_DEFAULT_THREADS
 * threads and PLY_SPLIT_MIN_JOB_NODES: see ply_split_plan_fit).
 * @depth: 1..PLY_SPLIT_MAX_DEPTH plies. @split_depth: -1 (auto) or 0..depth-1.
 * @cancel: when non-NULL and it becomes non-zero, the planner stops early.
 * On success returns 0 and stores a plan in *out (caller frees with
 * ply_split_destroy). On failure *out is NULL, a one-line reason is written
 * to @why (may be NULL) and the code is:
 *   PLY_EINVAL     NULL arguments;
 *   PLY_ERANGE     depth out of range, split depth not below depth, or more
 *                  than PLY_SPLIT_MAX_JOBS unique positions at the split;
 *   PLY_ENOMEM     out of memory;
 *   PLY_ECANCELED  *cancel became non-zero;
 *   PLY_EILLEGAL   an identity the arbiter could not parse back (a bug).
 */
int ply_split_plan(const ply_arb_pos_t *root, unsigned depth, int split_depth,
                   const atomic_int *cancel, ply_split_t **out, char *why, size_t why_len);

/**
 * ply_split_plan_fit - ply_split_plan for a cluster of @threads worker
 * threads (0: PLY_SPLIT_DEFAULT_THREADS) with jobs of at least
 * @min_job_nodes estimated nodes (0: PLY_SPLIT_MIN_JOB_NODES); both matter
 * only to the automatic rule (@split_depth < 0). Same results and errors.
 */
int ply_split_plan_fit(const ply_arb_pos_t *root, unsigned depth, int split_depth, unsigned threads,
                       uint64_t min_job_nodes, const atomic_int *cancel, ply_split_t **out,
                       char *why, size_t why_len);

/**
 * ply_split_estimate - rule 2 of the header comment: the estimated perft(@depth)
 * of @pos (nodes, saturating at UINT64_MAX) from the arbiter's exact perft(1..3).
 * Exact for depth <= 2, and for depth 3 when perft(2) <= 20000.
 */
uint64_t ply_split_estimate(const ply_arb_pos_t *pos, unsigned depth);

/**
 * ply_split_recount - fill @plan->arb_divide when the plan qualifies (see
 * ply_split_t) and it is not there yet: the arbiter counts perft(d-1) after
 * each root move, what split 1 would check with perft(1) and more. Costs up
 * to PLY_SPLIT_RECOUNT_NODES-ish arbiter nodes (~2e7 a second). Returns 0
 * (filled, already there, or the plan does not qualify) or PLY_ENOMEM.
 */
int ply_split_recount(ply_split_t *plan);

/** ply_split_destroy - free a plan and its jobs; NULLs *plan; idempotent. */
void ply_split_destroy(ply_split_t **plan);

#endif
