/*
 * common/util/u128: exact 128-bit counts. Expected values: powers of two
 * (2^64 = 18446744073709551616, 2^128 - 1 =
 * 340282366920938463463374607431768211455) and the start position's
 * perft(14) = 61,885,021,521,585,529,237 and perft(15) =
 * 2,015,099,950,053,364,471,960 (OEIS A048987; chessprogramming wiki, Perft
 * Results), whose 64-bit words were computed apart with Python's integers
 * (divmod(n, 2**64)).
 * Also common/util/time's ply_elapsed_ms, the clock arithmetic of the
 * coordinator's timers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/error.h"
#include "util/stats.h"
#include "util/time.h"
#include "util/u128.h"

static const char *dec(ply_u128_t v)
{
    static char buf[PLY_U128_DEC_LEN];
    return ply_u128_to_dec(v, buf, sizeof buf);
}

static void test_words_and_text(void **state)
{
    (void)state;
    assert_string_equal(dec(0), "0");
    assert_string_equal(dec(UINT64_MAX), "18446744073709551615");
    assert_string_equal(dec(ply_u128_make(1, 0)), "18446744073709551616");
    assert_string_equal(dec(~(ply_u128_t)0), "340282366920938463463374607431768211455");
    /* perft(15) = 109 x 2^64 + 4404846019023345816; perft(14) = 3 x 2^64 + 6544789300456874389 */
    assert_string_equal(dec(ply_u128_make(109, 4404846019023345816ull)), "2015099950053364471960");
    assert_string_equal(dec(ply_u128_make(3, 6544789300456874389ull)), "61885021521585529237");
    ply_u128_t p15 = ply_u128_make(109, 4404846019023345816ull);
    assert_int_equal(ply_u128_hi(p15), 109);
    assert_int_equal(ply_u128_lo(p15), 4404846019023345816ull);
    char g[64];
    assert_string_equal(ply_u128_to_grouped(p15, g, sizeof g), "2,015,099,950,053,364,471,960");
    assert_string_equal(ply_u128_to_grouped(999, g, sizeof g), "999");
    assert_string_equal(ply_u128_to_grouped(1000, g, sizeof g), "1,000");
    assert_string_equal(ply_u128_to_grouped(0, g, sizeof g), "0");
    assert_string_equal(ply_u128_to_grouped(~(ply_u128_t)0, g, sizeof g),
                        "340,282,366,920,938,463,463,374,607,431,768,211,455");
    /* a buffer one byte short gets an empty string, never a cut number */
    char small[21]; /* 20 digits and the NUL */
    ply_u128_t e20 = (ply_u128_t)10000000000ull * 10000000000ull;
    assert_string_equal(ply_u128_to_dec(e20, small, sizeof small), "");
    assert_string_equal(ply_u128_to_dec(e20 - 1, small, sizeof small), "99999999999999999999");
}

static void test_from_dec(void **state)
{
    (void)state;
    ply_u128_t v = 7;
    assert_int_equal(ply_u128_from_dec("2015099950053364471960", &v), 0);
    assert_true(v == ply_u128_make(109, 4404846019023345816ull));
    assert_int_equal(ply_u128_from_dec("340282366920938463463374607431768211455", &v), 0);
    assert_true(v == ~(ply_u128_t)0);
    assert_int_equal(ply_u128_from_dec("0000", &v), 0);
    assert_true(v == 0);
    v = 7;
    assert_int_equal(ply_u128_from_dec("340282366920938463463374607431768211456", &v), PLY_ERANGE);
    assert_int_equal(ply_u128_from_dec("3402823669209384634633746074317682114550", &v), PLY_ERANGE);
    assert_int_equal(ply_u128_from_dec("", &v), PLY_EINVAL);
    assert_int_equal(ply_u128_from_dec(NULL, &v), PLY_EINVAL);
    assert_int_equal(ply_u128_from_dec("-1", &v), PLY_EINVAL);
    assert_int_equal(ply_u128_from_dec("12 ", &v), PLY_EINVAL);
    assert_int_equal(ply_u128_from_dec("1,000", &v), PLY_EINVAL);
    assert_true(v == 7); /* untouched on every failure */
    /* every value round-trips through text */
    ply_u128_t x = 1;
    for (int i = 0; i < 128; i++, x = x * 3 + (ply_u128_t)i) {
        ply_u128_t back;
        assert_int_equal(ply_u128_from_dec(dec(x), &back), 0);
        assert_true(back == x);
    }
}

static void test_checked_sums(void **state)
{
    (void)state;
    /* the old wrap: 2^64 - 1 + 1 is 2^64, not 0 */
    ply_u128_t acc = UINT64_MAX;
    assert_int_equal(ply_u128_add(&acc, 1), 0);
    assert_string_equal(dec(acc), "18446744073709551616");
    /* (2^64 - 1)^2, the largest single product, fits */
    acc = 0;
    assert_int_equal(ply_u128_add_mul(&acc, UINT64_MAX, UINT64_MAX), 0);
    assert_string_equal(dec(acc), "340282366920938463426481119284349108225");
    /* 109 jobs of 2^64 - 1 (multiplicity 1) plus their remainder make perft(15) */
    acc = 0;
    for (int i = 0; i < 109; i++) assert_int_equal(ply_u128_add_mul(&acc, 1, UINT64_MAX), 0);
    assert_int_equal(ply_u128_add_mul(&acc, 1, 4404846019023345816ull + 109), 0);
    assert_string_equal(dec(acc), "2015099950053364471960");
    /* past 2^128: refused, the sum unchanged */
    acc = ~(ply_u128_t)0;
    assert_int_equal(ply_u128_add(&acc, 1), PLY_ERANGE);
    assert_true(acc == ~(ply_u128_t)0);
    acc = ply_u128_make(UINT64_MAX, 0);
    assert_int_equal(ply_u128_add_mul(&acc, 2, 1ull << 63), PLY_ERANGE);
    assert_true(acc == ply_u128_make(UINT64_MAX, 0));
    assert_int_equal(ply_u128_cmp(1, 2), -1);
    assert_int_equal(ply_u128_cmp(ply_u128_make(1, 0), UINT64_MAX), 1);
    assert_int_equal(ply_u128_cmp(5, 5), 0);
}

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

/*
 * ply_elapsed_ms: a stamp taken after the tick's "now" (the last worker's removal
 * stamps the no-worker clock afresh) is no time at all. Before, now - then wrapped
 * to ~1.8e19 ms and a run failed "no worker connected within 60 s" 9 ms after its
 * last worker died (chaos_cli under ASan on a loaded machine).
 */
static void test_elapsed(void **state)
{
    (void)state;
    assert_true(ply_elapsed_ms(1000, 400) == 600);
    assert_true(ply_elapsed_ms(518345, 518372) == 0);
    assert_true(ply_elapsed_ms(5, 5) == 0);
    assert_true(ply_elapsed_ms(UINT64_MAX, 0) == UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_and_text),   cmocka_unit_test(test_from_dec),
        cmocka_unit_test(test_checked_sums),     cmocka_unit_test(test_stats128),
        cmocka_unit_test(test_stats_consistent), cmocka_unit_test(test_elapsed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
