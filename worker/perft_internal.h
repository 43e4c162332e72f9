/*
 * Internals shared by the perft driver (perft.c) and the perft kernels
 * (perft_kernel.h, compiled once per slider backend: perft_magic.c, and
 * perft_pext.c with -mbmi2). The driver picks one kernel at start-up
 * (ply_attacks_use_pext) and every hot recursion then runs inside it, with
 * the move generator inlined and the slider lookups of its backend.
 */
#ifndef PLY_WORKER_PERFT_INTERNAL_H
#define PLY_WORKER_PERFT_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "board/board.h"
#include "tt.h"
#include "util/stats.h"

/* Below this many remaining plies a subtree is not worth a table probe:
 * counting it costs less than the cache miss. */
#define PLY__TT_MIN_DEPTH 2
/* Cancellation is polled at nodes with at least this many plies below. */
#define PLY__CANCEL_POLL_DEPTH 4

/* Per-thread state of one recursion. */
typedef struct ply__perft_ctx {
    ply_tt_t *tt;              /* shared table or NULL (payload matches the count kind) */
    const _Atomic int *cancel; /* raised: return early, result invalid */
    uint64_t probes;
    uint64_t hits;
} ply__perft_ctx_t;

/* The entry points of one kernel. */
typedef struct ply__perft_kernel {
    const char *name;
    /* perft(depth) leaf nodes, depth >= 0 */
    uint64_t (*nodes)(ply__perft_ctx_t *c, const ply_board_t *b, int depth);
    /* adds the statistics of perft(depth), depth >= 1, to *out */
    void (*stats)(ply__perft_ctx_t *c, const ply_board_t *b, int depth, ply_stats_t *out);
    /* adds the leaf reached by one move to *out (statistics of perft(1)) */
    void (*classify)(const ply_board_t *b, ply_move_t m, ply_stats_t *out);
} ply__perft_kernel_t;

extern const ply__perft_kernel_t ply__perft_kernel_magic;
#if defined(PLY_HAVE_PEXT_KERNEL)
extern const ply__perft_kernel_t ply__perft_kernel_pext;
#endif

#endif
