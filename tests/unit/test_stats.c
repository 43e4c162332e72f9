/*
 * common/util/stats: the fifteen perft counters summed exactly in 128 bits (an overflow
 * leaves them unchanged), and the rules that real statistics obey, each broken by one
 * counter as a lying or faulty worker might send them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/error.h"
#include "util/stats.h"
#include "util/u128.h"

static void test_stats128(void **state)
{
    (void)state;
    ply_stats_t one;
    for (int i = 0; i < PLY_STATS_N; i++) one.v[i] = UINT64_MAX - (uint64_t)i;
    ply_stats128_t sum;
    ply_stats128_from(&sum, &one);
    assert_int_equal(ply_stats128_add(&sum, &one, 3), 0); /* 4 x (2^64 - 1 - i) */
    for (int i = 0; i < PLY_STATS_N; i++)
        assert_true(sum.v[i] == (ply_u128_t)4 * (UINT64_MAX - (uint64_t)i));
    /* one counter overflowing leaves all fifteen unchanged */
    ply_stats128_t full = sum, before;
    full.v[PLY_STAT_total_mates] = ~(ply_u128_t)0;
    before = full;
    assert_int_equal(ply_stats128_add(&full, &one, 1), PLY_ERANGE);
    assert_memory_equal(&full, &before, sizeof full);
}

/*
 * ply_stats_consistent on real statistics (Kiwipete's perft(5), the Grand Chess Tree's
 * tests/data/perft_p1_results.json: every rule holds) and on each rule broken by one
 * counter, as a lying or faulty worker might send them (the coordinator's check).
 */
static void test_stats_consistent(void **state)
{
    (void)state;
    const ply_stats_t kiwi5 = {{193690690, 35043416, 73365, 4993637, 8392, 3257196, 19883, 2637, 0,
                                3279716, 30163, 0, 8, 0, 30171}};
    char why[160];
    assert_int_equal(ply_stats_consistent(&kiwi5, why, sizeof why), 0);
    const ply_stats_t none = {{0}};
    assert_int_equal(ply_stats_consistent(&none, why, sizeof why), 0);
    static const struct {
        int col;
        uint64_t value;
        const char *says;
    } broken[] = {
        {PLY_STAT_promotions, 193690691, "promotions = 193690691 exceeds nodes"},
        {PLY_STAT_total_checks, 3279715, "total_checks = 3279715 is not the sum"},
        {PLY_STAT_direct_checks, 3257197, "total_checks = 3279716 is not the sum"},
        {PLY_STAT_double_discovered_mates, 1, "total_mates = 30171 is not the sum"},
        {PLY_STAT_enpassants, 35043417, "enpassants = 35043417 exceeds captures"},
        {PLY_STAT_castles, 193690690 - 35043416 + 1, "captures + castles exceed nodes"},
    };
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        ply_stats_t s = kiwi5;
        s.v[broken[i].col] = broken[i].value;
        assert_int_equal(ply_stats_consistent(&s, why, sizeof why), PLY_EMISMATCH);
        if (!strstr(why, broken[i].says)) fail_msg("case %zu: %s", i, why);
    }
    /* checks and mates each below nodes, not together; sums that would wrap 64 bits */
    ply_stats_t s = none;
    s.v[PLY_STAT_nodes] = 10;
    s.v[PLY_STAT_direct_checks] = s.v[PLY_STAT_total_checks] = 6;
    s.v[PLY_STAT_direct_mates] = s.v[PLY_STAT_total_mates] = 5;
    assert_int_equal(ply_stats_consistent(&s, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "total_checks + total_mates exceed nodes = 10"));
    s = none;
    s.v[PLY_STAT_nodes] = UINT64_MAX;
    s.v[PLY_STAT_direct_checks] = s.v[PLY_STAT_single_discovered_checks] = UINT64_MAX;
    s.v[PLY_STAT_total_checks] = UINT64_MAX - 1; /* the 64-bit sum, wrapped */
    assert_int_equal(ply_stats_consistent(&s, why, sizeof why), PLY_EMISMATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats128),
        cmocka_unit_test(test_stats_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
