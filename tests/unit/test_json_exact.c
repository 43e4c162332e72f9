/*
 * common/util/json_exact: counts in JSON printed exactly at any size, never negative.
 * Expected texts: 2^63 = 9223372036854775808, 2^64 = 18446744073709551616,
 * 2^128 - 1 = 340282366920938463463374607431768211455, and the start
 * position's perft(15) = 2015099950053364471960 (OEIS A048987), whose 64-bit
 * words (109, 4404846019023345816) were computed with Python's integers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/json_exact.h"

static void test_counts_exact(void **state)
{
    (void)state;
    json_t *o = json_object();
    json_object_set_new(o, "zero", ply_json_count(0));
    json_object_set_new(o, "max63", ply_json_count(INT64_MAX));
    json_object_set_new(o, "two63", ply_json_count((ply_u128_t)1 << 63));
    json_object_set_new(o, "two64", ply_json_count(ply_u128_make(1, 0)));
    json_object_set_new(o, "perft15", ply_json_count(ply_u128_make(109, 4404846019023345816ull)));
    json_object_set_new(o, "max128", ply_json_count(~(ply_u128_t)0));
    json_t *a = json_array();
    json_array_append_new(a, ply_json_count(UINT64_MAX));
    json_object_set_new(o, "list", a);
    /* text that merely looks like a marker stays text */
    json_object_set_new(o, "text", json_string("ply-count:12"));
    char *s = ply_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_non_null(s);
    assert_string_equal(s, "{\"zero\":0,\"max63\":9223372036854775807,"
                           "\"two63\":9223372036854775808,\"two64\":18446744073709551616,"
                           "\"perft15\":2015099950053364471960,"
                           "\"max128\":340282366920938463463374607431768211455,"
                           "\"list\":[18446744073709551615],\"text\":\"ply-count:12\"}");
    free(s);
    /* the stream form writes the same bytes */
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    assert_int_equal(ply_json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"perft15\":2015099950053364471960,"));
    json_decref(o);
}

/* The old way printed 2^64 - 1 through json_integer as -1: the regression this replaces. */
static void test_no_negative(void **state)
{
    (void)state;
    for (int bit = 0; bit < 128; bit++) {
        json_t *v = ply_json_count((ply_u128_t)1 << bit);
        char *s = ply_json_dumps(v, JSON_ENCODE_ANY);
        assert_non_null(s);
        assert_true(s[0] >= '1' && s[0] <= '9');
        free(s);
        json_decref(v);
    }
}

/*
 * ply_json_text: text that is UTF-8 goes through unchanged; each byte that does not start
 * a valid sequence (RFC 3629, section 4: a Latin-1 byte, a lone continuation byte, an
 * overlong form, a surrogate, a code point past U+10FFFF, a sequence cut short) becomes
 * U+FFFD (EF BF BD), and the key is kept. Before, json_string returned NULL for such text
 * and json_object_set_new dropped the key ("white" vanished from ply arbiter --json).
 */
static void test_text_not_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"Kasparov", "Kasparov"},
        {"Nepomniachtchi \xD0\xAF \xE2\x82\xAC \xF0\x9F\x98\x80", /* 2, 3, 4 bytes */
         "Nepomniachtchi \xD0\xAF \xE2\x82\xAC \xF0\x9F\x98\x80"},
        {"Mart\xEDnez", "Mart\xEF\xBF\xBDnez"}, /* Latin-1 i acute */
        {"a\x80"
         "b",
         "a\xEF\xBF\xBD"
         "b"},                                                    /* a lone continuation byte */
        {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},                 /* overlong '/' */
        {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* surrogate U+D800 */
        {"\xF4\x90\x80\x80",
         "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"}, /* past U+10FFFF */
        {"e\xE2\x82", "e\xEF\xBF\xBD\xEF\xBF\xBD"},           /* cut short at the end */
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *o = json_object();
        assert_int_equal(json_object_set_new(o, "white", ply_json_text(cases[i].in)), 0);
        const char *got = json_string_value(json_object_get(o, "white"));
        if (!got || strcmp(got, cases[i].out))
            fail_msg("case %zu: got '%s'", i, got ? got : "(none)");
        json_decref(o);
    }
    assert_null(ply_json_text(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_exact),
        cmocka_unit_test(test_no_negative),
        cmocka_unit_test(test_text_not_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
