/*
 * Unit tests of worker/engine/perft (the table alone is test_tt.c's): counts with and
 * without the shared table (including a table so small that every position collides),
 * the fifteen statistics against the Grand Chess Tree result files
 * (tests/data/perft_p0_results.json, perft_p1_results.json), divide, OpenMP
 * runs, and cancellation. Node counts are the published ones of
 * tests/data/perftsuite.epd (chessprogramming wiki, "Perft Results").
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>
#include <omp.h>

#include "omp_sync.h"
#include "perft.h"
#include "util/error.h"

#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define POSITION3 "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
#define POSITION4 "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"

static const struct {
    const char *fen;
    int depth;
    uint64_t nodes;
} known[] = {
    {"startpos", 5, 4865609},
    {KIWIPETE, 4, 4085603},
    {POSITION3, 6, 11030083},
    {POSITION4, 4, 422333},
    {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 4, 326672},
};

static void load(ply_board_t *b, const char *fen)
{
    char why[256];
    if (ply_board_from_fen(b, fen, 0, why, sizeof why)) fail_msg("%s: %s", fen, why);
}

static void test_counts(void **state)
{
    (void)state;
    /* 64 bytes = one bucket: every position lands in the same two entries. */
    size_t sizes[] = {0, 64, 4096, 16u << 20};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        ply_board_t b;
        load(&b, known[i].fen);
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            ply_tt_t *tt = sizes[k] ? ply_tt_new(sizes[k], 1) : NULL;
            uint64_t got = 0;
            assert_int_equal(ply_perft(&b, known[i].depth, tt, &got), 0);
            if (got != known[i].nodes)
                fail_msg("%s D%d with %zu-byte table: %llu, expected %llu", known[i].fen, known[i].depth,
                         sizes[k], (unsigned long long)got, (unsigned long long)known[i].nodes);
            ply_tt_destroy(&tt);
        }
    }
}

/* The statistics of @depth for the Grand Chess Tree file @file. */
static void gct_stats(const char *file, int depth, ply_stats_t *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PLY_TEST_DATA, file);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) fail_msg("%s: %s", path, err.text);
    json_t *results = json_object_get(root, "results");
    size_t i;
    json_t *r;
    int found = 0;
    json_array_foreach(results, i, r)
    {
        if (json_integer_value(json_object_get(r, "depth")) != depth) continue;
        for (int k = 0; k < PLY_STATS_N; k++) {
            json_t *v = json_object_get(r, ply_stats_name(k));
            if (!json_is_integer(v)) fail_msg("%s depth %d: no %s", file, depth, ply_stats_name(k));
            out->v[k] = (uint64_t)json_integer_value(v);
        }
        found = 1;
    }
    json_decref(root);
    if (!found) fail_msg("%s: no depth %d", file, depth);
}

static void check_stats(const char *fen, const char *file, int max_depth, ply_tt_t *tt)
{
    ply_board_t b;
    load(&b, fen);
    for (int d = 1; d <= max_depth; d++) {
        ply_stats_t want, got;
        gct_stats(file, d, &want);
        assert_int_equal(ply_perft_stats(&b, d, tt, &got), 0);
        for (int k = 0; k < PLY_STATS_N; k++)
            if (got.v[k] != want.v[k])
                fail_msg("%s D%d %s: %llu, expected %llu", file, d, ply_stats_name(k),
                         (unsigned long long)got.v[k], (unsigned long long)want.v[k]);
    }
}

static void test_stats(void **state)
{
    (void)state;
    check_stats("startpos", "perft_p0_results.json", 5, NULL);
    check_stats(KIWIPETE, "perft_p1_results.json", 4, NULL);
    ply_tt_t *tt = ply_tt_new(1 << 20, PLY_STATS_N);
    check_stats("startpos", "perft_p0_results.json", 5, tt);
    check_stats(KIWIPETE, "perft_p1_results.json", 4, tt);
    ply_tt_destroy(&tt);
    tt = ply_tt_new(4096, PLY_STATS_N); /* heavy collisions */
    check_stats(KIWIPETE, "perft_p1_results.json", 3, tt);
    ply_tt_destroy(&tt);
}

/* OpenMP runs: totals, divide lines summing to the total, statistics. */
static void test_parallel_run(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    ply_board_t b;
    load(&b, KIWIPETE);
    for (int threads = 1; threads <= 3; threads++) {
        for (int hashed = 0; hashed < 2; hashed++) {
            ply_perft_opts_t o = {0};
            o.threads = threads;
            o.divide = 1;
            o.stats = hashed; /* stats with the table, nodes without */
            o.tt = hashed ? ply_tt_new(8u << 20, PLY_STATS_N) : NULL;
            assert_int_equal(ply_perft_run(&b, 4, &o, &r), 0);
            assert_true(r.nodes == 4085603);
            assert_int_equal(r.perft1, 48);
            assert_int_equal(r.ndivide, 48);
            uint64_t sum = 0;
            for (int i = 0; i < r.ndivide; i++) sum += r.divide[i].nodes;
            assert_true(sum == r.nodes);
            if (hashed) {
                ply_stats_t want;
                gct_stats("perft_p1_results.json", 4, &want);
                assert_true(ply_stats_equal(&r.stats, &want));
            }
            ply_tt_destroy(&o.tt);
        }
    }
    /* depth 1 and 0 */
    ply_perft_opts_t o = {0};
    o.divide = 1;
    o.stats = 1;
    assert_int_equal(ply_perft_run(&b, 1, &o, &r), 0);
    assert_true(r.nodes == 48 && r.stats.v[PLY_STAT_captures] == 8 && r.stats.v[PLY_STAT_castles] == 2);
    assert_int_equal(ply_perft_run(&b, 0, &o, &r), 0);
    assert_true(r.nodes == 1);
    /* a table with the wrong payload is refused */
    o.tt = ply_tt_new(1 << 20, 1);
    assert_int_equal(ply_perft_run(&b, 3, &o, &r), PLY_EINVAL);
    ply_tt_destroy(&o.tt);
}

/* Regression: a probe that raced with a writer used to leave the torn copy
 * in the caller's buffer, and perft added its children to it (startpos
 * perft(7) with 2 threads and a 16 MiB table gave 3,195,903,392). Threads
 * hammer a tiny table with keys whose payload is a function of the key:
 * every hit must return exactly that payload, every miss must leave the
 * buffer untouched. */
static void test_tt_concurrent(void **state)
{
    (void)state;
    ply_tt_t *tt = ply_tt_new(4096, 3); /* 32 buckets: constant contention */
    assert_non_null(tt);
    uint64_t bad_of[4] = {0}, hits_of[4] = {0}; /* per thread: see omp_sync.h */
    char sync;
    ply__omp_fork(&sync);
#pragma omp parallel num_threads(4)
    {
        ply__omp_enter(&sync);
        uint64_t bad = 0, hits = 0;
        uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(omp_get_thread_num() + 1);
        for (int i = 0; i < 400000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t key[2] = {x & 0x3F, (x & 0x3F) * 0x2545F4914F6CDD1Dull};
            unsigned depth = 1 + (unsigned)(x >> 62);
            uint64_t want[3] = {key[0] + depth, key[1] ^ depth, ~key[0]};
            uint64_t got[3] = {7, 7, 7};
            if (ply_tt_probe(tt, key, depth, got)) {
                hits++;
                bad += memcmp(got, want, sizeof got) != 0;
            } else {
                bad += got[0] != 7 || got[1] != 7 || got[2] != 7;
                ply_tt_store(tt, key, depth, want);
            }
        }
        bad_of[omp_get_thread_num()] = bad;
        hits_of[omp_get_thread_num()] = hits;
        ply__omp_leave(&sync);
    }
    ply__omp_join(&sync);
    ply_tt_destroy(&tt);
    uint64_t bad = 0, hits = 0;
    for (int i = 0; i < 4; i++) bad += bad_of[i], hits += hits_of[i];
    assert_true(hits > 1000);
    assert_true(bad == 0);
}

/* The same race seen end to end: more threads than cores, a small table. */
static void test_parallel_small_table(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    ply_board_t b;
    load(&b, KIWIPETE);
    for (int round = 0; round < 3; round++) {
        ply_perft_opts_t o = {0};
        o.threads = 4;
        o.tt = ply_tt_new(1u << 20, 1);
        assert_int_equal(ply_perft_run(&b, 5, &o, &r), 0);
        assert_true(r.nodes == 193690690);
        ply_tt_destroy(&o.tt);
    }
}

static void test_cancel(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    ply_board_t b;
    load(&b, "startpos");
    _Atomic int cancel = 1;
    _Atomic uint64_t progress = 0;
    ply_perft_opts_t o = {0};
    o.cancel = &cancel;
    o.progress = &progress;
    assert_int_equal(ply_perft_run(&b, 9, &o, &r), PLY_ECANCELED);
    cancel = 0;
    assert_int_equal(ply_perft_run(&b, 4, &o, &r), 0);
    assert_true(progress == 197281); /* progress adds up to the count */
}

/* Raises *flag after ms milliseconds, on its own thread. */
typedef struct alarm_clock {
    _Atomic int *flag;
    unsigned ms;
    pthread_t thread;
} alarm_clock_t;

static void *alarm_ring(void *arg)
{
    alarm_clock_t *a = arg;
    struct timespec ts = {(time_t)(a->ms / 1000), (long)(a->ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store(a->flag, 1);
    return NULL;
}

/*
 * Regression (issue 9, item 1): a cancelled search returned 0 from every
 * cancelled node and its parents added that 0 and stored the partial sums;
 * the worker keeps its table across jobs and sessions, so the next run read
 * them back (startpos perft(7), 1 thread, 64 MiB, cancelled after 300 ms,
 * then 3,192,076,812 instead of 3,195,901,860). Here the run is cancelled at
 * several fractions of its own cold time, each on a fresh table, and each
 * time the same perft on the same table must then be exact. Counts: the
 * chessprogramming wiki's "Perft Results" (tests/data/perftsuite.epd) and
 * the Grand Chess Tree files for statistics.
 */
static void cancel_then_rerun(const char *fen, int depth, int threads, int stats, size_t bytes,
                              uint64_t want)
{
    static ply_perft_result_t r;
    ply_board_t b;
    load(&b, fen);
    ply_stats_t want_stats;
    if (stats) gct_stats("perft_p1_results.json", depth, &want_stats);
    ply_perft_opts_t o = {0};
    o.threads = threads;
    o.stats = stats;
    o.tt = ply_tt_new(bytes, stats ? PLY_STATS_N : 1);
    assert_non_null(o.tt);
    assert_int_equal(ply_perft_run(&b, depth, &o, &r), 0);
    assert_true(r.nodes == want);
    const uint64_t cold_ms = r.time_ns / 1000000 + 1;
    const unsigned percent[] = {5, 20, 40, 70};
    int cancelled = 0;
    for (size_t i = 0; i < sizeof percent / sizeof *percent; i++) {
        ply_tt_clear(o.tt);
        _Atomic int cancel = 0;
        alarm_clock_t a = {&cancel, (unsigned)(cold_ms * percent[i] / 100), 0};
        assert_int_equal(pthread_create(&a.thread, NULL, alarm_ring, &a), 0);
        o.cancel = &cancel;
        int rc = ply_perft_run(&b, depth, &o, &r);
        pthread_join(a.thread, NULL);
        o.cancel = NULL;
        if (rc == PLY_ECANCELED) {
            cancelled++;
            assert_true(r.nodes == 0); /* no partial count either */
        } else {
            /* the machine was fast enough to finish first */
            assert_int_equal(rc, 0);
            assert_true(r.nodes == want);
        }
        assert_int_equal(ply_perft_run(&b, depth, &o, &r), 0);
        if (r.nodes != want)
            fail_msg("%s perft(%d), %d threads, after a cancel at %u ms: %llu, expected %llu", fen,
                     depth, threads, a.ms, (unsigned long long)r.nodes, (unsigned long long)want);
        if (stats) assert_true(ply_stats_equal(&r.stats, &want_stats));
    }
    assert_true(cancelled > 0);
    ply_tt_destroy(&o.tt);
}

static void test_cancel_stores_nothing(void **state)
{
    (void)state;
    cancel_then_rerun("startpos", 7, 1, 0, 64u << 20, 3195901860ull);
    cancel_then_rerun("startpos", 7, 2, 0, 64u << 20, 3195901860ull);
    cancel_then_rerun(KIWIPETE, 5, 2, 1, 16u << 20, 193690690ull);
}

/* A position with 218 legal moves (the most known; chessprogramming wiki,
 * "Encoding Moves"), so that 218 children answered with the largest value a
 * table entry holds (2^58 - 1) sum past 2^64. */
#define MOVES218 "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"

/* Fills @tt with @payload for every child of @b at @depth - 1. */
static void plant_children(ply_tt_t *tt, const ply_board_t *b, int depth, const uint64_t *payload)
{
    ply_move_t moves[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, moves);
    assert_int_equal(n, 218);
    for (int i = 0; i < n; i++) {
        ply_board_t child = *b;
        ply_board_play(&child, moves[i]);
        ply_tt_store(tt, child.key, (unsigned)depth - 1, payload);
    }
}

/*
 * Issue 9, item 3: a count past 2^64 - 1 fails with PLY_ERANGE, never wraps,
 * and the failed sum is not stored. No real perft that large is affordable in
 * a test, so the children's counts are planted in the table.
 */
static void test_overflow_is_an_error(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    ply_board_t b;
    load(&b, MOVES218);
    uint64_t big[PLY_STATS_N] = {PLY_TT_MAX_VALUE}, v = 1;

    ply_tt_t *tt = ply_tt_new(16u << 20, 1);
    plant_children(tt, &b, 3, big);
    assert_int_equal(ply_perft(&b, 3, tt, &v), PLY_ERANGE); /* the kernel's sum */
    assert_true(v == 0);
    assert_int_equal(ply_tt_probe(tt, b.key, 3, &v), 0); /* not stored */
    ply_perft_opts_t o = {0};
    o.threads = 2;
    o.divide = 1;
    o.tt = tt;
    assert_int_equal(ply_perft_run(&b, 3, &o, &r), PLY_ERANGE); /* the driver's sum */
    assert_true(r.nodes == 0 && r.tt_nodes == 0);
    ply_tt_destroy(&tt);

    /* statistics: every counter is checked, here the captures */
    tt = ply_tt_new(16u << 20, PLY_STATS_N);
    big[0] = 1;
    big[PLY_STAT_captures] = 1ull << 62;
    plant_children(tt, &b, 3, big);
    ply_stats_t s;
    assert_int_equal(ply_perft_stats(&b, 3, tt, &s), PLY_ERANGE);
    assert_true(s.v[PLY_STAT_captures] == 0);
    o.stats = 1;
    o.tt = tt;
    assert_int_equal(ply_perft_run(&b, 3, &o, &r), PLY_ERANGE);
    assert_true(r.stats.v[PLY_STAT_captures] == 0);
    ply_tt_destroy(&tt);
}

/* The two positions of issue 9, item 2: the same pieces, the same right
 * "white castles h-side", with the rook on h1 or on f1. perft(5) 227,454 and
 * 236,952 (Stockfish 15.1, go perft 5 with UCI_Chess960). */
#define ROOK_H "4k3/8/8/8/8/8/8/4KR1R w H - 0 1"
#define ROOK_F "4k3/8/8/8/8/8/8/4KR1R w F - 0 1"

/* Regression (issue 9, item 2): the key ignored which rook castles, so the
 * second of these on one table read the first's entries (236,826). */
static void test_chess960_rook_in_key(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    const char *fen[2] = {ROOK_H, ROOK_F};
    const uint64_t want[2] = {227454, 236952};
    for (int first = 0; first < 2; first++) {
        ply_perft_opts_t o = {0};
        o.threads = 2;
        o.tt = ply_tt_new(16u << 20, 1);
        for (int k = 0; k < 2; k++) {
            int i = first ^ k;
            ply_board_t b;
            load(&b, fen[i]);
            assert_int_equal(ply_perft_run(&b, 5, &o, &r), 0);
            if (r.nodes != want[i])
                fail_msg("%s perft(5) after %s on one table: %llu, expected %llu", fen[i],
                         fen[first], (unsigned long long)r.nodes, (unsigned long long)want[i]);
        }
        ply_tt_destroy(&o.tt);
    }
}

/*
 * One table shared by a whole Chess960 suite, as a worker shares its table
 * across jobs: every count equals the count on a fresh table and the suite's
 * published one (tests/data/ethereal-fischer.epd, 960 positions, Shredder-FEN;
 * provenance in tests/data/PROVENANCE.md).
 */
static void test_fischer_suite_one_table(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/ethereal-fischer.epd", PLY_TEST_DATA);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    ply_perft_opts_t shared = {0}, fresh = {0};
    shared.tt = ply_tt_new(32u << 20, 1);
    fresh.tt = ply_tt_new(2u << 20, 1);
    int positions = 0;
    while (fgets(line, sizeof line, f)) {
        char *d4 = strstr(line, ";D4 "), *semi = strchr(line, ';');
        if (!d4) continue;
        const uint64_t want = strtoull(d4 + 4, NULL, 10);
        *semi = '\0';
        ply_board_t b;
        load(&b, line);
        ply_tt_clear(fresh.tt);
        assert_int_equal(ply_perft_run(&b, 4, &fresh, &r), 0);
        const uint64_t cold = r.nodes;
        assert_int_equal(ply_perft_run(&b, 4, &shared, &r), 0);
        if (r.nodes != cold || cold != want)
            fail_msg("%s D4: %llu on the shared table, %llu on a fresh one, published %llu", line,
                     (unsigned long long)r.nodes, (unsigned long long)cold,
                     (unsigned long long)want);
        positions++;
    }
    fclose(f);
    assert_int_equal(positions, 960);
    ply_tt_destroy(&shared.tt);
    ply_tt_destroy(&fresh.tt);
}

/* Result.tt_nodes (issue 9, item 10's figures): 0 without a table; a rerun on
 * a warm table is answered by hits entirely. */
static void test_tt_nodes(void **state)
{
    (void)state;
    static ply_perft_result_t r;
    ply_board_t b;
    load(&b, KIWIPETE);
    for (int stats = 0; stats < 2; stats++) {
        ply_perft_opts_t o = {0};
        o.threads = 2;
        o.stats = stats;
        assert_int_equal(ply_perft_run(&b, 4, &o, &r), 0);
        assert_true(r.nodes == 4085603 && r.tt_nodes == 0);
        o.tt = ply_tt_new(16u << 20, stats ? PLY_STATS_N : 1);
        assert_int_equal(ply_perft_run(&b, 4, &o, &r), 0);
        assert_true(r.nodes == 4085603 && r.tt_nodes < r.nodes);
        assert_int_equal(ply_perft_run(&b, 4, &o, &r), 0);
        assert_true(r.nodes == 4085603 && r.tt_nodes == r.nodes);
        ply_tt_destroy(&o.tt);
    }
}

int main(void)
{
    print_message("perft kernel: %s\n", ply_perft_kernel_name());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_parallel_run),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_tt_concurrent),
        cmocka_unit_test(test_parallel_small_table),
        cmocka_unit_test(test_cancel_stores_nothing),
        cmocka_unit_test(test_overflow_is_an_error),
        cmocka_unit_test(test_tt_nodes),
        cmocka_unit_test(test_chess960_rook_in_key),
        cmocka_unit_test(test_fischer_suite_one_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
