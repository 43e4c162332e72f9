/*
 * Unit tests of ply match's arithmetic (client/elo.c).
 *
 * The logistic model's values are closed forms (a 75% score is
 * 400 log10 3 = +190.849; 50% is 0; 1/(1+10^(-100/400)) = 0.640065 is
 * +100). The intervals were computed independently with Python 3's math
 * module from the trinomial formula of cutechess-cli's elo.cpp (cited in
 * elo.h): W/D/L 60/20/20 gives s = 0.7, se = 0.04, 95% interval +86.225 ..
 * +218.252 around +147.191; 10/80/10 gives -30.532 .. +30.532; 3/4/3 gives
 * -181.745 .. +181.745.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "elo.h"

static void near(double got, double want, double tol)
{
    if (fabs(got - want) > tol) fail_msg("got %.6f, want %.6f (+/- %g)", got, want, tol);
}

static void test_elo_of_score(void **state)
{
    (void)state;
    near(ply_elo_of_score(0.5), 0.0, 1e-9);
    near(ply_elo_of_score(0.75), 400.0 * log10(3.0), 1e-9);
    near(ply_elo_of_score(0.75), 190.849, 1e-3);
    near(ply_elo_of_score(0.25), -190.849, 1e-3);
    near(ply_elo_of_score(1.0 / (1.0 + pow(10.0, -0.25))), 100.0, 1e-9);
    assert_true(isinf(ply_elo_of_score(1.0)) && ply_elo_of_score(1.0) > 0);
    assert_true(isinf(ply_elo_of_score(0.0)) && ply_elo_of_score(0.0) < 0);
}

static void test_elo_interval(void **state)
{
    (void)state;
    ply_elo_t e = ply_elo(60, 20, 20);
    assert_int_equal(e.games, 100);
    near(e.score, 0.7, 1e-12);
    near(e.se, 0.04, 1e-12);
    near(e.elo, 147.191, 1e-3);
    near(e.lo, 86.225, 1e-3);
    near(e.hi, 218.252, 1e-3);

    e = ply_elo(10, 80, 10);
    near(e.elo, 0.0, 1e-9);
    near(e.lo, -30.532, 1e-3);
    near(e.hi, 30.532, 1e-3);

    e = ply_elo(3, 4, 3);
    near(e.lo, -181.745, 1e-3);
    near(e.hi, 181.745, 1e-3);

    /* 75 wins, 25 losses: s = 0.75; se = sqrt(0.75 * 0.25 / 100) */
    e = ply_elo(75, 0, 25);
    near(e.elo, 190.849, 1e-3);
    near(e.se, sqrt(0.1875 / 100.0), 1e-12);

    e = ply_elo(4, 0, 0); /* no variance: the interval collapses at +inf */
    assert_true(isinf(e.elo) && e.elo > 0);
    e = ply_elo(0, 0, 0);
    assert_int_equal(e.games, 0);
    e = ply_elo(-1, 2, 3);
    assert_int_equal(e.games, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elo_of_score),
        cmocka_unit_test(test_elo_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
