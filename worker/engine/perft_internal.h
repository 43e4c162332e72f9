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
#include "util/error.h"
#include "util/stats.h"

/* Below this many remaining plies a subtree is not worth a table probe:
 * counting it costs less than the cache miss. */
#define PLY__TT_MIN_DEPTH 2
/* Cancellation is polled at nodes with at least this many plies below. */
#define PLY__CANCEL_POLL_DEPTH 4

/*
 * Per-thread state of one recursion.
 *
 * err is sticky: once a context has failed (PLY_ECANCELED when cancel was seen,
 * PLY_ERANGE when a sum passed 2^64 - 1) no count it returns is valid, and no
 * node above or after the failure stores anything in the table: a partial sum
 * stored under a full subtree's key would answer every later probe wrongly,
 * for as long as the worker keeps its table.
 */
typedef struct ply__perft_ctx {
    ply_tt_t *tt;              /* shared table or NULL (payload matches the count kind) */
    const _Atomic int *cancel; /* raised: stop early (err = PLY_ECANCELED) */
    int err;                   /* 0, or why every count of this context is invalid */
    uint64_t probes;
    uint64_t hits;
    uint64_t tt_nodes; /* leaf nodes answered by hits (hits are not descended: no double count) */
} ply__perft_ctx_t;

/* dst += src for every counter; PLY_ERANGE (dst then unspecified) when a sum
 * passes 2^64 - 1, else 0. */
static inline int ply__stats_add_checked(ply_stats_t *dst, const ply_stats_t *src)
{
    int over = 0;
    for (int i = 0; i < PLY_STATS_N; i++)
        over |= __builtin_add_overflow(dst->v[i], src->v[i], &dst->v[i]);
    return over ? PLY_ERANGE : 0;
}

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
