/*
 * common/util/time: ply_elapsed_ms, the clock arithmetic of the coordinator's timers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/time.h"

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
        cmocka_unit_test(test_elapsed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
