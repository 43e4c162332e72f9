/*
 * Perft drivers (see perft.h): the public entry points and the OpenMP
 * driver. The counting itself runs in a kernel (perft_kernel.h), chosen once
 * for the CPU: magic sliders everywhere, PEXT where it is fast.
 */
#include "perft.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp_sync.h"
#include "perft_internal.h"
#include "util/error.h"
#include "util/time.h"

/* Jobs this shallow are counted on one thread (see ply_perft_run). */
#define SERIAL_MAX_DEPTH 4

static const ply__perft_kernel_t *kernel(void)
{
#if defined(PLY_HAVE_PEXT_KERNEL)
    if (ply_attacks_use_pext()) return &ply__perft_kernel_pext;
#endif
    return &ply__perft_kernel_magic;
}

const char *ply_perft_kernel_name(void) { return kernel()->name; }

int ply_perft(const ply_board_t *b, int depth, ply_tt_t *tt, uint64_t *nodes)
{
    ply__perft_ctx_t c = {.tt = tt && ply_tt_payload_words(tt) == 1 ? tt : NULL};
    *nodes = kernel()->nodes(&c, b, depth);
    if (c.err) *nodes = 0;
    return c.err;
}

int ply_perft_stats(const ply_board_t *b, int depth, ply_tt_t *tt, ply_stats_t *out)
{
    ply__perft_ctx_t c = {.tt = tt && ply_tt_payload_words(tt) == PLY_STATS_N ? tt : NULL};
    memset(out, 0, sizeof *out);
    if (depth >= 1) kernel()->stats(&c, b, depth, out);
    if (c.err) memset(out, 0, sizeof *out);
    return c.err;
}

/* ---- parallel driver ----------------------------------------------------------- */

typedef struct task {
    ply_board_t board;
    int root;          /* index of the root move this subtree belongs to */
    uint64_t nodes;
    ply_stats_t stats;
} task_t;

/* Splits every task into its children, one ply deeper. */
static task_t *expand(task_t *tasks, size_t *ntasks)
{
    size_t cap = *ntasks * 8 + 64, n = 0;
    task_t *next = malloc(cap * sizeof *next);
    if (!next) return NULL;
    for (size_t i = 0; i < *ntasks; i++) {
        ply_move_t moves[PLY_MAX_MOVES];
        int nm = ply_board_legal_moves(&tasks[i].board, moves);
        if (n + (size_t)nm > cap) {
            cap = (n + (size_t)nm) * 2;
            task_t *grown = realloc(next, cap * sizeof *next);
            if (!grown) {
                free(next);
                return NULL;
            }
            next = grown;
        }
        for (int k = 0; k < nm; k++) {
            next[n].board = tasks[i].board;
            ply_board_play(&next[n].board, moves[k]);
            next[n].root = tasks[i].root;
            n++;
        }
    }
    *ntasks = n;
    return next;
}

int ply_perft_run(const ply_board_t *root, int depth, const ply_perft_opts_t *opts,
                  ply_perft_result_t *out)
{
    if (!root || !opts || !out || depth < 0 || depth > PLY_TT_MAX_DEPTH) return PLY_EINVAL;
    unsigned want_words = opts->stats ? PLY_STATS_N : 1;
    if (opts->tt && ply_tt_payload_words(opts->tt) != want_words) return PLY_EINVAL;

    const uint64_t t0 = ply_time_ns();
    memset(out, 0, sizeof *out);
    ply_move_t moves[PLY_MAX_MOVES];
    const int nroot = ply_board_legal_moves(root, moves);
    out->perft1 = nroot;
    if (opts->divide) {
        out->ndivide = nroot;
        for (int i = 0; i < nroot; i++) out->divide[i].move = moves[i];
    }
    if (depth <= 1) { /* perft(0) is the root itself; perft(1) its moves */
        for (int i = 0; depth == 1 && i < nroot; i++) {
            ply_stats_t s = {{0}};
            if (opts->stats) kernel()->classify(root, moves[i], &s);
            if (opts->divide) {
                out->divide[i].nodes = 1;
                out->divide[i].stats = s;
            }
            ply_stats_add(&out->stats, &s, 1);
        }
        out->nodes = depth == 0 ? 1 : (uint64_t)nroot;
        if (opts->stats) out->stats.v[PLY_STAT_nodes] = out->nodes;
        out->time_ns = ply_time_ns() - t0;
        return 0;
    }

    /* Subtrees: the root's children, expanded while there are too few to
     * keep every thread busy to the end and enough depth remains for each
     * to be worth scheduling. */
    /* Small trees (perft(4) is a few million nodes, milliseconds) run on the
     * calling thread: a parallel region costs more than it saves, and its
     * barrier spins badly when the machine is oversubscribed. */
    const int threads = depth <= SERIAL_MAX_DEPTH ? 1 : opts->threads > 0 ? opts->threads : omp_get_max_threads();
    size_t ntasks = (size_t)nroot;
    task_t *tasks = malloc((ntasks + 1) * sizeof *tasks);
    if (!tasks) return PLY_ENOMEM;
    for (int i = 0; i < nroot; i++) {
        tasks[i].board = *root;
        ply_board_play(&tasks[i].board, moves[i]);
        tasks[i].root = i;
    }
    int remaining = depth - 1;
    while (ntasks > 0 && ntasks < (size_t)threads * 64 && remaining > 3) {
        task_t *next = expand(tasks, &ntasks);
        free(tasks);
        if (!next) return PLY_ENOMEM;
        tasks = next;
        remaining--;
    }

    /* Each thread's context comes back in its own slot (no reduction clause: see
     * omp_sync.h), and the first failure of any fails the run. */
    ply__perft_ctx_t *ctx = calloc((size_t)threads, sizeof *ctx);
    if (!ctx) {
        free(tasks);
        return PLY_ENOMEM;
    }
    char sync;
    ply__omp_fork(&sync);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        ply__omp_enter(&sync);
        ply__perft_ctx_t c = {.tt = opts->tt, .cancel = opts->cancel};
        const ply__perft_kernel_t *k = kernel();
#pragma omp for schedule(dynamic, 1)
        for (size_t i = 0; i < ntasks; i++) {
            task_t *t = &tasks[i];
            memset(&t->stats, 0, sizeof t->stats);
            t->nodes = 0;
            if (!c.err && opts->cancel && atomic_load_explicit(opts->cancel, memory_order_relaxed))
                c.err = PLY_ECANCELED;
            if (c.err) continue; /* the run has failed: the rest is not worth counting */
            if (opts->stats) { /* remaining >= 1 here: depth >= 2 */
                k->stats(&c, &t->board, remaining, &t->stats);
                t->nodes = t->stats.v[PLY_STAT_nodes];
            } else {
                t->nodes = k->nodes(&c, &t->board, remaining);
            }
            if (opts->progress) atomic_fetch_add_explicit(opts->progress, t->nodes, memory_order_relaxed);
        }
        ctx[omp_get_thread_num()] = c;
        ply__omp_leave(&sync);
    }
    ply__omp_join(&sync);
    uint64_t probes = 0, hits = 0, tt_nodes = 0;
    int err = 0;
    for (int i = 0; i < threads; i++) {
        probes += ctx[i].probes;
        hits += ctx[i].hits;
        tt_nodes += ctx[i].tt_nodes;
        if (!err) err = ctx[i].err;
    }
    free(ctx);
    if (!err && opts->cancel && atomic_load(opts->cancel)) err = PLY_ECANCELED;

    for (size_t i = 0; !err && i < ntasks; i++) {
        const task_t *t = &tasks[i];
        ply_perft_divide_t *d = &out->divide[t->root];
        if (__builtin_add_overflow(out->nodes, t->nodes, &out->nodes)) err = PLY_ERANGE;
        if (opts->stats && ply__stats_add_checked(&out->stats, &t->stats)) err = PLY_ERANGE;
        if (opts->divide) {
            if (__builtin_add_overflow(d->nodes, t->nodes, &d->nodes)) err = PLY_ERANGE;
            if (opts->stats && ply__stats_add_checked(&d->stats, &t->stats)) err = PLY_ERANGE;
        }
    }
    free(tasks);
    if (err) { /* no count of a failed run may be read as one */
        out->nodes = 0;
        memset(&out->stats, 0, sizeof out->stats);
        for (int i = 0; i < out->ndivide; i++) {
            out->divide[i].nodes = 0;
            memset(&out->divide[i].stats, 0, sizeof out->divide[i].stats);
        }
    }
    out->tt_probes = probes;
    out->tt_hits = hits;
    out->tt_nodes = err ? 0 : tt_nodes;
    out->time_ns = ply_time_ns() - t0;
    return err;
}
