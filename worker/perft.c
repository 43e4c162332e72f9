/*
 * Perft drivers (see perft.h). Three recursions, one per kind of count, each
 * kept small because it is the hot loop:
 *   perft_plain  nodes, no table: keys are never updated (play_nokey);
 *   perft_hash   nodes with the shared table: keys updated down to the
 *                last probed ply;
 *   perft_stats  the fifteen statistics, with or without the table.
 * The last ply is always counted without playing it: by popcount for nodes,
 * by classifying each move for statistics.
 */
#include "perft.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/time.h"

/* Below this many remaining plies a subtree is not worth a table probe:
 * counting it costs less than the cache miss. */
#define TT_MIN_DEPTH 2
/* Jobs this shallow are counted on one thread (see ply_perft_run). */
#define SERIAL_MAX_DEPTH 4
/* Cancellation is polled at nodes with at least this many plies below. */
#define CANCEL_POLL_DEPTH 4

typedef struct ctx {
    ply_tt_t *tt;
    const _Atomic int *cancel;
    uint64_t probes;
    uint64_t hits;
} ctx_t;

static inline int canceled(const ctx_t *c, int depth)
{
    return depth >= CANCEL_POLL_DEPTH && c->cancel &&
           atomic_load_explicit(c->cancel, memory_order_relaxed);
}

/* ---- nodes ------------------------------------------------------------------ */

static uint64_t perft_plain(ctx_t *c, const ply_board_t *b, int depth)
{
    ply_move_t moves[PLY_MAX_MOVES];
    const int n = ply_board_legal_moves(b, moves);
    uint64_t total = 0;
    if (canceled(c, depth)) return 0;
    if (depth == 2) {
        for (int i = 0; i < n; i++) {
            ply_board_t child = *b;
            ply_board_play_nokey(&child, moves[i]);
            total += (uint64_t)ply_board_count_legal(&child);
        }
        return total;
    }
    for (int i = 0; i < n; i++) {
        ply_board_t child = *b;
        ply_board_play_nokey(&child, moves[i]);
        total += perft_plain(c, &child, depth - 1);
    }
    return total;
}

static uint64_t perft_hash(ctx_t *c, const ply_board_t *b, int depth)
{
    uint64_t total = 0;
    c->probes++;
    if (ply_tt_probe(c->tt, b->key, (unsigned)depth, &total)) {
        c->hits++;
        return total;
    }
    if (canceled(c, depth)) return 0;
    ply_move_t moves[PLY_MAX_MOVES];
    const int n = ply_board_legal_moves(b, moves);
    if (depth == 2) {
        for (int i = 0; i < n; i++) {
            ply_board_t child = *b;
            ply_board_play_nokey(&child, moves[i]);
            total += (uint64_t)ply_board_count_legal(&child);
        }
    } else if (depth - 1 >= TT_MIN_DEPTH) {
        for (int i = 0; i < n; i++) {
            ply_board_t child = *b;
            ply_board_play(&child, moves[i]);
            total += perft_hash(c, &child, depth - 1);
        }
    }
    ply_tt_store(c->tt, b->key, (unsigned)depth, &total);
    return total;
}

static uint64_t count_nodes(ctx_t *c, const ply_board_t *b, int depth)
{
    if (depth == 0) return 1;
    if (depth == 1) return (uint64_t)ply_board_count_legal(b);
    return c->tt && depth >= TT_MIN_DEPTH ? perft_hash(c, b, depth) : perft_plain(c, b, depth);
}

uint64_t ply_perft(const ply_board_t *b, int depth, ply_tt_t *tt)
{
    ctx_t c = {tt && ply_tt_payload_words(tt) == 1 ? tt : NULL, NULL, 0, 0};
    return count_nodes(&c, b, depth);
}

/* ---- statistics -------------------------------------------------------------- */

/* Adds the leaf reached by @m from @b to @s (definitions in util/stats.h). */
static void classify(const ply_board_t *b, ply_move_t m, ply_stats_t *s)
{
    const int kind = ply_move_kind(m), from = ply_move_from(m), to = ply_move_to(m);
    s->v[PLY_STAT_nodes]++;
    if (kind == PLY_MOVE_EP) {
        s->v[PLY_STAT_captures]++;
        s->v[PLY_STAT_enpassants]++;
    } else if (kind != PLY_MOVE_CASTLE && (b->colour[b->side ^ 1] & ply_bb(to))) {
        s->v[PLY_STAT_captures]++;
    }
    if (kind == PLY_MOVE_CASTLE) s->v[PLY_STAT_castles]++;
    if (ply_move_is_promo(m)) s->v[PLY_STAT_promotions]++;

    ply_board_t child = *b;
    ply_board_play_nokey(&child, m);
    const ply_bb_t checkers = ply_board_checkers(&child);
    if (!checkers) return;
    /* The moved piece's arrival square; for castling, the rook's. */
    const int arrival = kind == PLY_MOVE_CASTLE ? PLY_SQ(to > from ? 5 : 3, PLY_RANK(from)) : to;
    const int mate = ply_board_count_legal(&child) == 0;
    s->v[ply_stats_check_kind(ply_more_than_one(checkers) ? 2 : 1,
                              (checkers & ply_bb(arrival)) != 0, mate)]++;
    s->v[mate ? PLY_STAT_total_mates : PLY_STAT_total_checks]++;
}

static void perft_stats(ctx_t *c, const ply_board_t *b, int depth, ply_stats_t *out)
{
    ply_move_t moves[PLY_MAX_MOVES];
    ply_stats_t s;
    if (c->tt && depth >= TT_MIN_DEPTH) {
        c->probes++;
        if (ply_tt_probe(c->tt, b->key, (unsigned)depth, s.v)) {
            c->hits++;
            ply_stats_add(out, &s, 1);
            return;
        }
    }
    if (canceled(c, depth)) return;
    memset(&s, 0, sizeof s);
    const int n = ply_board_legal_moves(b, moves);
    if (depth == 1) {
        for (int i = 0; i < n; i++) classify(b, moves[i], &s);
    } else {
        for (int i = 0; i < n; i++) {
            ply_board_t child = *b;
            ply_board_play(&child, moves[i]);
            perft_stats(c, &child, depth - 1, &s);
        }
    }
    if (c->tt && depth >= TT_MIN_DEPTH) ply_tt_store(c->tt, b->key, (unsigned)depth, s.v);
    ply_stats_add(out, &s, 1);
}

void ply_perft_stats(const ply_board_t *b, int depth, ply_tt_t *tt, ply_stats_t *out)
{
    ctx_t c = {tt && ply_tt_payload_words(tt) == PLY_STATS_N ? tt : NULL, NULL, 0, 0};
    memset(out, 0, sizeof *out);
    if (depth >= 1) perft_stats(&c, b, depth, out);
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
            if (opts->stats) classify(root, moves[i], &s);
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

    uint64_t probes = 0, hits = 0;
    int stop = 0;
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(+ : probes, hits)
    {
        ctx_t c = {opts->tt, opts->cancel, 0, 0};
#pragma omp for schedule(dynamic, 1)
        for (size_t i = 0; i < ntasks; i++) {
            task_t *t = &tasks[i];
            memset(&t->stats, 0, sizeof t->stats);
            if (opts->cancel && atomic_load_explicit(opts->cancel, memory_order_relaxed)) {
                t->nodes = 0;
                continue;
            }
            if (opts->stats) { /* remaining >= 1 here: depth >= 2 */
                perft_stats(&c, &t->board, remaining, &t->stats);
                t->nodes = t->stats.v[PLY_STAT_nodes];
            } else {
                t->nodes = count_nodes(&c, &t->board, remaining);
            }
            if (opts->progress) atomic_fetch_add_explicit(opts->progress, t->nodes, memory_order_relaxed);
        }
        probes += c.probes;
        hits += c.hits;
    }
    if (opts->cancel && atomic_load(opts->cancel)) stop = 1;

    for (size_t i = 0; i < ntasks; i++) {
        out->nodes += tasks[i].nodes;
        if (opts->stats) ply_stats_add(&out->stats, &tasks[i].stats, 1);
        if (opts->divide) {
            out->divide[tasks[i].root].nodes += tasks[i].nodes;
            if (opts->stats) ply_stats_add(&out->divide[tasks[i].root].stats, &tasks[i].stats, 1);
        }
    }
    free(tasks);
    out->tt_probes = probes;
    out->tt_hits = hits;
    out->time_ns = ply_time_ns() - t0;
    return stop ? PLY_ECANCELED : 0;
}
