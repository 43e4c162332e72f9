/*
 * Unit tests of worker/engine/tt: the shared table alone, probes and stores of one-word
 * and compressed payloads, collisions and replacement. Its use under perft (OpenMP
 * runs, table nodes) is tested in test_perft.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tt.h"
#include "util/stats.h"

static void test_tt_basics(void **state)
{
    (void)state;
    assert_null(ply_tt_new(10, 1));      /* smaller than one bucket */
    assert_null(ply_tt_new(1 << 20, 0)); /* payload out of range */
    assert_null(ply_tt_new(1 << 20, 16));
    ply_tt_t *tt = ply_tt_new(1 << 20, 1);
    assert_non_null(tt);
    assert_true(ply_tt_bytes(tt) <= (1u << 20) && ply_tt_bytes(tt) > (1u << 20) - 64);
    /* 96 verified bits: all of key[0], the top half of key[1]. */
    uint64_t key[2] = {0x1234, 0x5678}, other[2] = {0x1234, 0x5678 | 1ull << 40}, v = 0;
    assert_int_equal(ply_tt_probe(tt, key, 3, &v), 0);
    uint64_t put = 987654321;
    ply_tt_store(tt, key, 3, &put);
    assert_int_equal(ply_tt_probe(tt, key, 3, &v), 1);
    assert_true(v == 987654321);
    assert_int_equal(ply_tt_probe(tt, key, 4, &v), 0);   /* depth is part of the match */
    assert_int_equal(ply_tt_probe(tt, other, 3, &v), 0); /* so are the key's verified bits */
    other[0] ^= 1ull << 63;
    other[1] = key[1];
    assert_int_equal(ply_tt_probe(tt, other, 3, &v), 0);
    put = PLY_TT_MAX_VALUE + 1; /* too large to store: the old value stays */
    ply_tt_store(tt, key, 3, &put);
    assert_int_equal(ply_tt_probe(tt, key, 3, &v), 1);
    assert_true(v == 987654321);
    ply_tt_clear(tt);
    assert_int_equal(ply_tt_probe(tt, key, 3, &v), 0);
    ply_tt_destroy(&tt);
    assert_null(tt);
    ply_tt_destroy(&tt); /* idempotent */
}

/* Compressed entries (tt.h, payloads of more than one word): every payload
 * comes back exactly, narrow (two to a bucket) or wide (the whole bucket);
 * one too wide to code is not stored; a wide entry gives way only to one at
 * least as deep. The expected values are the payloads themselves. */
static void test_tt_compressed(void **state)
{
    (void)state;
    ply_tt_t *tt = ply_tt_new(64, PLY_STATS_N); /* one bucket: every key collides */
    assert_non_null(tt);
    uint64_t k1[2] = {1, 1ull << 40}, k2[2] = {2, 2ull << 40}, k3[2] = {3, 3ull << 40};
    uint64_t small[PLY_STATS_N] = {1234, 56, 0, 3, 0, 17, 1, 0, 0, 0, 2}, got[PLY_STATS_N];
    uint64_t small2[PLY_STATS_N] = {99999, 12345, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    uint64_t wide[PLY_STATS_N], huge[PLY_STATS_N];
    for (int k = 0; k < PLY_STATS_N; k++) {
        wide[k] = (1ull << 20) + (uint64_t)k * 977; /* 382 bits: more than a narrow entry */
        huge[k] = ~(uint64_t)k;                     /* 15 x 64 bits: more than a wide one */
    }
    ply_tt_store(tt, k1, 2, small);
    ply_tt_store(tt, k2, 3, small2);
    assert_int_equal(ply_tt_probe(tt, k1, 2, got), 1); /* two narrow entries share the bucket */
    assert_memory_equal(got, small, sizeof got);
    assert_int_equal(ply_tt_probe(tt, k2, 3, got), 1);
    assert_memory_equal(got, small2, sizeof got);
    assert_int_equal(ply_tt_probe(tt, k2, 2, got), 0); /* depth is part of the match */
    ply_tt_store(tt, k3, 5, wide);
    assert_int_equal(ply_tt_probe(tt, k3, 5, got), 1);
    assert_memory_equal(got, wide, sizeof got);
    assert_int_equal(ply_tt_probe(tt, k1, 2, got), 0); /* the wide entry took the bucket */
    ply_tt_store(tt, k1, 2, small);                    /* shallower: the wide entry stays */
    assert_int_equal(ply_tt_probe(tt, k1, 2, got), 0);
    assert_int_equal(ply_tt_probe(tt, k3, 5, got), 1);
    ply_tt_store(tt, k2, 5, huge); /* too wide to code: not stored, nothing lost */
    assert_int_equal(ply_tt_probe(tt, k2, 5, got), 0);
    assert_int_equal(ply_tt_probe(tt, k3, 5, got), 1);
    ply_tt_store(tt, k1, 6, small); /* deeper: replaces it */
    assert_int_equal(ply_tt_probe(tt, k1, 6, got), 1);
    assert_memory_equal(got, small, sizeof got);
    assert_int_equal(ply_tt_probe(tt, k3, 5, got), 0);
    ply_tt_destroy(&tt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tt_basics),
        cmocka_unit_test(test_tt_compressed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
