/*
 * Perft on the fast engine: leaf-node counts of the legal move tree, with
 * bulk counting (the last ply is counted with popcounts, never played), an
 * optional shared transposition table, the fifteen detailed statistics of
 * util/stats.h, per-move divide, and OpenMP parallelism.
 *
 * Parallel shape: the job position is expanded a few plies into subtrees
 * (enough for every thread to stay busy to the end), and OpenMP threads take
 * subtrees dynamically, all probing one shared table. Transpositions among
 * subtrees are left to the table rather than merged, so no subtree needs to
 * know about another.
 */
#ifndef PLY_WORKER_PERFT_H
#define PLY_WORKER_PERFT_H

#include <stdatomic.h>
#include <stdint.h>

#include "board/movegen.h"
#include "tt.h"
#include "util/stats.h"

/**
 * ply_perft - perft(@depth) of @b on the calling thread into *@nodes: leaf
 * nodes; perft(0) = 1. @tt may be NULL; if given it must have been made with
 * 1 payload word. Returns 0, or PLY_ERANGE when the count exceeds 2^64 - 1
 * (then *@nodes is 0 and nothing of the failed search is in @tt). Source of
 * the method: chessprogramming wiki, "Perft" (bulk counting).
 */
int ply_perft(const ply_board_t *b, int depth, ply_tt_t *tt, uint64_t *nodes);

/**
 * ply_perft_stats - perft(@depth) with the fifteen statistics of
 * util/stats.h (definitions there), on the calling thread; @depth >= 1.
 * @tt may be NULL; if given it must have been made with PLY_STATS_N payload
 * words. Fills *out. Returns 0, or PLY_ERANGE when a counter exceeds
 * 2^64 - 1 (then *out is all zero and nothing of the search is in @tt).
 */
int ply_perft_stats(const ply_board_t *b, int depth, ply_tt_t *tt, ply_stats_t *out);

/**
 * ply_perft_kernel_name - "pext" or "magic": the slider backend of the
 * compiled kernel the perft functions run (chosen once for the CPU; see
 * ply_attacks_use_pext in board/attacks.h).
 */
const char *ply_perft_kernel_name(void);

/** Options of ply_perft_run. Zero-initialise, then set what you need. */
typedef struct ply_perft_opts {
    int threads;                   /* OpenMP threads; 0 = OpenMP's default */
    ply_tt_t *tt;                  /* shared table or NULL; payload 1 (nodes) or 15 (stats) */
    int stats;                     /* count the statistics (tt must then have 15 words) */
    int divide;                    /* fill the per-root-move table */
    _Atomic uint64_t *progress;    /* if set, leaf nodes counted so far are added here */
    const _Atomic int *cancel;     /* if set and it becomes non-zero, stop early */
} ply_perft_opts_t;

/** One line of a divide. */
typedef struct ply_perft_divide {
    ply_move_t move;
    uint64_t nodes;
    ply_stats_t stats; /* when opts.stats */
} ply_perft_divide_t;

/** What ply_perft_run returns. */
typedef struct ply_perft_result {
    uint64_t nodes;     /* perft(depth), leaf nodes */
    ply_stats_t stats;  /* when opts.stats; stats.v[PLY_STAT_nodes] == nodes */
    int perft1;         /* number of legal moves of the root */
    uint64_t time_ns;   /* wall time, nanoseconds */
    uint64_t tt_probes; /* table probes and verified hits, summed over threads */
    uint64_t tt_hits;
    uint64_t tt_nodes;  /* leaf nodes of @nodes answered by table hits (<= nodes) */
    int ndivide;        /* = perft1 when opts.divide, else 0 */
    ply_perft_divide_t divide[PLY_MAX_MOVES];
} ply_perft_result_t;

/**
 * ply_perft_run - perft(@depth) of @root with OpenMP threads sharing
 * opts->tt, optionally with statistics and divide. @depth 0..PLY_TT_MAX_DEPTH.
 * Returns 0 with *out filled, PLY_EINVAL (bad arguments: depth out of
 * range, a table of the wrong payload size), PLY_ENOMEM, PLY_ECANCELED when
 * opts->cancel was raised, or PLY_ERANGE when the count or a statistic (or a
 * divide line's) exceeds 2^64 - 1. After PLY_ECANCELED or PLY_ERANGE the
 * counts of *out are zero, and the table holds nothing of the failed search:
 * every entry stored is a fully computed subtree, so the table stays valid
 * for any later run.
 */
int ply_perft_run(const ply_board_t *root, int depth, const ply_perft_opts_t *opts,
                  ply_perft_result_t *out);

#endif
