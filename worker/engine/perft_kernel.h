/*
 * The perft kernel: the hot recursions, written once and compiled once per
 * slider backend (perft_magic.c; perft_pext.c with -mbmi2 and
 * PLY_KERNEL_PEXT). Three recursions, one per kind of count, each kept small
 * because it is the hot loop:
 *   perft_plain  nodes, no table: keys are never updated (play_nokey);
 *   perft_hash   nodes with the shared table: keys updated down to the
 *                last probed ply;
 *   perft_stats  the fifteen statistics, with or without the table.
 * The last ply is always counted without playing it: by popcount, nodes
 * and statistics alike; for statistics only the checking moves are played
 * (to test mate), the rare en passant, and a castling or promotion that checks.
 *
 * Include once per translation unit, then define the kernel table with
 * PLY__PERFT_KERNEL(name).
 */
#ifndef PLY_WORKER_PERFT_KERNEL_H
#define PLY_WORKER_PERFT_KERNEL_H

#include <string.h>

#include "board/movegen_body.h"
#include "perft_internal.h"

/* 1 when the recursion must stop: the context has failed, or (at nodes
 * polled for it) cancel was raised, which fails the context. Failure is
 * sticky (see ply__perft_ctx_t): every node above a stopped one sees err and
 * returns without storing. */
static inline int stopped(ply__perft_ctx_t *c, int depth)
{
    if (depth < PLY__CANCEL_POLL_DEPTH) return 0;
    if (!c->err && c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed))
        c->err = PLY_ECANCELED;
    return c->err != 0;
}

/* ---- nodes ------------------------------------------------------------------ */

/* Sums of children are checked for overflow at depth >= 3 only: below that a
 * count is at most 218^2 and cannot wrap, and above it the check costs one
 * flag test per child, next to a whole subtree. */

static uint64_t perft_plain(ply__perft_ctx_t *c, const ply_board_t *b, int depth)
{
    /* perft(2) straight from the generator: each move is played and its
     * replies counted as it is found, with no list in between. */
    if (depth == 2) return (uint64_t)ply__generate(b, NULL, PLY__GEN_CHILDREN);
    if (stopped(c, depth)) return 0;
    ply_move_t moves[PLY_MAX_MOVES];
    const int n = ply__generate(b, moves, PLY__GEN_LIST);
    uint64_t total = 0;
    int over = 0;
    for (int i = 0; i < n; i++) {
        ply_board_t child = *b;
        ply_board_play_nokey(&child, moves[i]);
        over |= __builtin_add_overflow(total, perft_plain(c, &child, depth - 1), &total);
    }
    if (over) c->err = PLY_ERANGE;
    return total;
}

/* perft_hash's base case is depth 2, the shallowest depth that is probed. */
_Static_assert(PLY__TT_MIN_DEPTH == 2, "perft_hash counts depth 2 directly");

static uint64_t perft_hash(ply__perft_ctx_t *c, const ply_board_t *b, int depth)
{
    uint64_t total = 0;
    c->probes++;
    if (ply_tt_probe(c->tt, b->key, (unsigned)depth, &total)) {
        c->hits++;
        c->tt_nodes += total;
        return total;
    }
    if (depth == 2) {
        total = (uint64_t)ply__generate(b, NULL, PLY__GEN_CHILDREN);
    } else {
        if (stopped(c, depth)) return 0;
        ply_move_t moves[PLY_MAX_MOVES];
        ply_board_t children[PLY_MAX_MOVES];
        const int n = ply__generate(b, moves, PLY__GEN_LIST);
        /* depth - 1 >= PLY__TT_MIN_DEPTH: every child probes. Play them all and
         * prefetch their buckets first, so that the memory latencies overlap
         * instead of adding up. */
        for (int i = 0; i < n; i++) {
            children[i] = *b;
            ply_board_play(&children[i], moves[i]);
            ply_tt_prefetch(c->tt, children[i].key);
        }
        int over = 0;
        for (int i = 0; i < n; i++)
            over |= __builtin_add_overflow(total, perft_hash(c, &children[i], depth - 1), &total);
        if (over) c->err = PLY_ERANGE;
        if (c->err) return 0; /* a partial sum: never stored */
    }
    ply_tt_store(c->tt, b->key, (unsigned)depth, &total);
    return total;
}

static uint64_t count_nodes(ply__perft_ctx_t *c, const ply_board_t *b, int depth)
{
    if (depth == 0) return 1;
    if (depth == 1) return (uint64_t)ply__generate(b, NULL, PLY__GEN_COUNT);
    return c->tt && depth >= PLY__TT_MIN_DEPTH ? perft_hash(c, b, depth) : perft_plain(c, b, depth);
}

/* ---- statistics -------------------------------------------------------------- */

/* Adds the leaf reached by @m from @b to @s (definitions in util/stats.h). */
static void classify(const ply_board_t *b, ply_move_t m, ply_stats_t *s) { ply__classify(b, m, s); }

/* Adds @s to @out, failing the context when a counter passes 2^64 - 1. */
static inline void add_stats(ply__perft_ctx_t *c, ply_stats_t *out, const ply_stats_t *s)
{
    if (ply__stats_add_checked(out, s)) c->err = PLY_ERANGE;
}

/* The table holds each total (total_checks, total_mates) as its difference
 * from the sum of its four kinds, modulo 2^64: zero, which its compressed
 * entries store in no bits (tt.h), and exact whatever the counters. */
static inline void totals_fold(ply_stats_t *s, int sign)
{
    const uint64_t *v = s->v;
    const uint64_t checks = v[PLY_STAT_direct_checks] + v[PLY_STAT_single_discovered_checks] +
                            v[PLY_STAT_direct_discovered_checks] +
                            v[PLY_STAT_double_discovered_checks];
    const uint64_t mates = v[PLY_STAT_direct_mates] + v[PLY_STAT_single_discovered_mates] +
                           v[PLY_STAT_direct_discovered_mates] +
                           v[PLY_STAT_double_discovered_mates];
    s->v[PLY_STAT_total_checks] += sign > 0 ? checks : -checks;
    s->v[PLY_STAT_total_mates] += sign > 0 ? mates : -mates;
}

static inline int stats_probe(ply__perft_ctx_t *c, const ply_board_t *b, int depth, ply_stats_t *s)
{
    if (!ply_tt_probe(c->tt, b->key, (unsigned)depth, s->v)) return 0;
    totals_fold(s, +1);
    return 1;
}

static inline void stats_store(ply__perft_ctx_t *c, const ply_board_t *b, int depth,
                               const ply_stats_t *s)
{
    ply_stats_t t = *s;
    totals_fold(&t, -1);
    ply_tt_store(c->tt, b->key, (unsigned)depth, t.v);
}

static void perft_stats(ply__perft_ctx_t *c, const ply_board_t *b, int depth, ply_stats_t *out)
{
    ply_stats_t s;
    if (depth == 1) { /* the last ply: counted and classified by the statistics kernel */
        ply__generate_stats(b, 1, out);
        return;
    }
    if (c->tt) {
        c->probes++;
        if (stats_probe(c, b, depth, &s)) {
            c->hits++;
            c->tt_nodes += s.v[PLY_STAT_nodes];
            add_stats(c, out, &s);
            return;
        }
    }
    memset(&s, 0, sizeof s);
    if (depth == 2) { /* each move played as it is found, its replies counted */
        ply__generate_stats(b, 2, &s);
        if (c->tt) stats_store(c, b, depth, &s);
        add_stats(c, out, &s);
        return;
    }
    if (stopped(c, depth)) return;
    ply_move_t moves[PLY_MAX_MOVES];
    const int n = ply__generate(b, moves, PLY__GEN_LIST);
    if (!c->tt) { /* children are not probed: no keys, no prefetch */
        for (int i = 0; i < n; i++) {
            ply_board_t child = *b;
            ply_board_play_nokey(&child, moves[i]);
            perft_stats(c, &child, depth - 1, &s);
        }
    } else { /* as in perft_hash: play all, prefetch their buckets, then descend */
        ply_board_t children[PLY_MAX_MOVES];
        for (int i = 0; i < n; i++) {
            children[i] = *b;
            ply_board_play(&children[i], moves[i]);
            ply_tt_prefetch(c->tt, children[i].key);
        }
        for (int i = 0; i < n; i++) perft_stats(c, &children[i], depth - 1, &s);
    }
    if (c->err) return; /* a partial sum: never stored */
    if (c->tt) stats_store(c, b, depth, &s);
    add_stats(c, out, &s);
}

#define PLY__PERFT_KERNEL(kname) {#kname, count_nodes, perft_stats, classify}

#endif
