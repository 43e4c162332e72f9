/*
 * common/util/u128: exact 128-bit counts. Expected values: powers of two
 * (2^64 = 18446744073709551616, 2^128 - 1 =
 * 340282366920938463463374607431768211455) and the start position's
 * perft(14) = 61,885,021,521,585,529,237 and perft(15) =
 * 2,015,099,950,053,364,471,960 (OEIS A048987; chessprogramming wiki, Perft
 * Results), whose 64-bit words were computed apart with Python's integers
 * (divmod(n, 2**64)).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/error.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_and_text),
        cmocka_unit_test(test_from_dec),
        cmocka_unit_test(test_checked_sums),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
