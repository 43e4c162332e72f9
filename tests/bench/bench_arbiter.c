/*
 * bench_arbiter: the rule engine's perft speed, so that a change to
 * common/arbiter/movegen.c or perft.c can be measured (nodes per second of
 * ply_arb_perft, one thread). Each position's count is checked against the
 * published value, so a faster but wrong arbiter fails instead of winning.
 *
 *   bench_arbiter [SCALE [REPS]]
 *     SCALE 0 (default): the full depths below; 1: one ply less each (the
 *     ctest smoke run). REPS (default 5): runs per position; the median and
 *     the fastest are printed, since the machine is shared and noisy.
 *
 * Counts: chessprogramming wiki, "Perft Results" (start position, Kiwipete,
 * position 3). Exit 0 when every count matches, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "arbiter/arbiter.h"

typedef struct bench_pos {
    const char *name;
    const char *fen;
    int depth;
    uint64_t nodes[2]; /* at depth and depth - 1 */
} bench_pos_t;

static const bench_pos_t bench_set[] = {
    {"startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, {4865609, 197281}},
    {"kiwipete",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     4,
     {4085603, 97862}},
    {"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, {674624, 43238}},
};

/* CPU seconds of this thread: on a shared machine, the time spent waiting for
 * a core is not the arbiter's. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    enum { MAX_REPS = 99 };
    int scale = argc > 1 ? atoi(argv[1]) : 0;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int bad = 0;
    if (scale < 0 || scale > 1 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: bench_arbiter [0|1 [REPS 1..99]]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof bench_set / sizeof bench_set[0]; i++) {
        const bench_pos_t *b = &bench_set[i];
        ply_arb_pos_t pos;
        char why[160];
        if (ply_arb_from_fen(&pos, b->fen, 0, why, sizeof why) != 0) {
            fprintf(stderr, "%s: %s\n", b->name, why);
            return 1;
        }
        double dt[MAX_REPS];
        uint64_t n = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            n = ply_arb_perft(&pos, b->depth - scale);
            dt[r] = now_s() - t0;
        }
        qsort(dt, (size_t)reps, sizeof dt[0], cmp_double);
        int ok = n == b->nodes[scale];
        bad |= !ok;
        printf("%-10s perft(%d) %10" PRIu64 " %s median %6.2f Mnps, best %6.2f Mnps\n", b->name,
               b->depth - scale, n, ok ? "ok " : "BAD", (double)n / dt[reps / 2] * 1e-6,
               (double)n / dt[0] * 1e-6);
    }
    return bad;
}
