/*
 * bench_window: what a root window (ply_search_limits_t has_window, the SearchJob's alpha
 * and beta) saves, for the coordinator's principal variation search at the root (issue 28):
 * the nodes of a root move searched with a null window against those of the same move
 * searched with the full window, on a few middlegame positions. Node counts (1 thread, a
 * table cleared before every search, a depth limit: deterministic, so one run is enough on
 * a loaded machine); the times beside them are only indicative.
 *
 *   bench_window [DEPTH]   (default 10; the ctest smoke run uses 4)
 *
 * Per position: the whole root searched first (its best move B and second best C, multipv
 * 2), then each of B and C alone (searchmoves): with the full window (its exact score S),
 * and with the null windows [S-1, S] (a fail high: a lower bound) and [S, S+1] (a fail low:
 * an upper bound); for C also [SB, SB+1], the test PVS makes of a later move against the
 * best score SB. Exit 0 when every null window gave the bound its score says, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board/movegen.h"
#include "search.h"

static const struct {
    const char *name, *fen;
} positions[] = {
    {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"},
    {"position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"},
    {"sf bench 2", "r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14"},
    {"sf bench 3", "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24"},
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One search of @p to @depth from a cleared engine: only @move when not 0, in the window
 * [@alpha, @beta] when @has_window. */
static ply_search_result_t search(ply_engine_t *e, const ply_search_pos_t *p, int depth,
                                  ply_move_t move, int has_window, int alpha, int beta, double *ms)
{
    ply_search_limits_t l;
    ply_search_limits_init(&l);
    l.depth = depth;
    l.multipv = move ? 1 : 2;
    if (move) l.n_searchmoves = 1, l.searchmoves[0] = move;
    l.has_window = has_window, l.alpha = alpha, l.beta = beta;
    ply_search_result_t r;
    ply_engine_clear(e);
    const double t0 = now_ms();
    if (ply_engine_search(e, p, &l, NULL, NULL, &r) != 0) {
        fprintf(stderr, "bench_window: the search failed\n");
        exit(1);
    }
    *ms = now_ms() - t0;
    return r;
}

static const char *bound_name(int b)
{
    return b == PLY_BOUND_LOWER ? "lower" : b == PLY_BOUND_UPPER ? "upper" : "exact";
}

static uint64_t sum_full, sum_null;
static int bad;

/* A null window [@alpha, @alpha + 1] on @move: its nodes against @full's, one line. */
static void null_window(ply_engine_t *e, const ply_search_pos_t *p, int depth, ply_move_t move,
                        int alpha, uint64_t full)
{
    double ms;
    ply_search_result_t r = search(e, p, depth, move, 1, alpha, alpha + 1, &ms);
    const ply_search_line_t *l = &r.lines[0];
    const int want = l->score > alpha ? PLY_BOUND_LOWER : PLY_BOUND_UPPER;
    bad |= l->bound != want;
    printf("    [%6d, %6d] %-5s %6d %10" PRIu64 " nodes %8.1f ms  %5.1f%% of the full window\n",
           alpha, alpha + 1, bound_name(l->bound), l->score, r.nodes, ms,
           100.0 * (double)r.nodes / (double)full);
    sum_full += full, sum_null += r.nodes;
}

int main(int argc, char **argv)
{
    const int depth = argc > 1 ? atoi(argv[1]) : 10;
    if (depth < 1 || depth > PLY_SEARCH_MAX_DEPTH) {
        fprintf(stderr, "usage: bench_window [DEPTH 1..%d]\n", PLY_SEARCH_MAX_DEPTH);
        return 2;
    }
    ply_engine_t *e = ply_engine_new(16, 1);
    if (!e) return 1;
    printf("depth %d, 1 thread, 16 MiB table cleared before every search\n", depth);
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        ply_search_pos_t p;
        char why[128], uci[8];
        if (ply_search_pos_set(&p, positions[i].fen, 0, NULL, 0, why, sizeof why)) {
            fprintf(stderr, "bench_window: %s: %s\n", positions[i].name, why);
            return 1;
        }
        double ms;
        ply_search_result_t root = search(e, &p, depth, 0, 0, 0, 0, &ms);
        printf("%s: the root (multipv 2) %" PRIu64 " nodes\n", positions[i].name, root.nodes);
        int best_score = 0;
        for (int k = 0; k < root.n_lines && k < 2; k++) {
            const ply_move_t m = root.lines[k].pv[0];
            ply_search_result_t full = search(e, &p, depth, m, 0, 0, 0, &ms);
            const int s = full.lines[0].score;
            if (k == 0) best_score = s;
            ply_board_move_to_uci(&p.root, m, uci);
            printf("  %s %-5s full window %6d %10" PRIu64 " nodes %8.1f ms\n",
                   k ? "second" : "best  ", uci, s, full.nodes, ms);
            null_window(e, &p, depth, m, s - 1, full.nodes);
            null_window(e, &p, depth, m, s, full.nodes);
            if (k == 1) null_window(e, &p, depth, m, best_score, full.nodes);
        }
    }
    printf("null windows: %" PRIu64 " nodes against %" PRIu64 " with the full window (%.1f%%)\n",
           sum_null, sum_full, 100.0 * (double)sum_null / (double)sum_full);
    ply_engine_destroy(&e);
    return bad;
}
