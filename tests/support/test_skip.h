/*
 * Skips that ctest can see. cmocka counts a skipped test as passed in its exit
 * status, so a test binary whose checks could not run would look green. Tests
 * skip with PLY_SKIP(reason) instead of cmocka's skip(), and main() returns
 * ply_test_exit(cmocka_run_group_tests(...)): a run with no failure but at
 * least one skip exits 77, which every ctest entry declares as
 * SKIP_RETURN_CODE, so ctest reports it as skipped and prints the reasons.
 */
#ifndef PLY_TESTS_TEST_SKIP_H
#define PLY_TESTS_TEST_SKIP_H

#include <stdio.h>

static int ply_test_skips;

/* Skip the current cmocka test, saying why (one line on stderr). */
#define PLY_SKIP(reason)                                                                           \
    do {                                                                                           \
        ply_test_skips++;                                                                          \
        fprintf(stderr, "skipped: %s\n", (reason));                                                \
        skip();                                                                                    \
    } while (0)

/* The exit status for cmocka's result @failed: failures win, then skips (77). */
static inline int ply_test_exit(int failed)
{
    if (failed) return failed;
    if (ply_test_skips) {
        fprintf(stderr, "%d test(s) skipped: exit 77, so ctest shows the skip\n", ply_test_skips);
        return 77;
    }
    return 0;
}

#endif
