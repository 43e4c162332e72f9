/*
 * Unit tests of the move judgements of `ply analyse-pgn` (client/annotate.c), against values
 * computed by hand from lichess's formulas as issue 11 states them (annotate.h), with
 * Python 3's math module as the calculator:
 *   wc(cp) = 2 / (1 + exp(-0.00368208 cp)) - 1:  wc(100) = 0.1820518, wc(-150) = -0.2693437,
 *   wc(-60) = -0.1100153, wc(20) = 0.0368042, wc(-400) = -0.6269749;
 *   drops (mover's side): 30 -> 10: 0.0368 (good), 0 -> -60: 0.1100 (inaccuracy),
 *   100 -> -60: 0.2921 (mistake), 50 -> -150: 0.3611 (blunder);
 *   accuracy 103.1668 exp(-0.043544 d) - 3.1669: 0 -> -100 is d = 9.1025890, 66.23984%;
 *   300 -> -300 is d = 50.2251002, 8.41386%; no loss is 99.9999%.
 * The mate rules (lila's MateAdvice) are checked at each threshold's two sides.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "annotate.h"

static const ply_annot_eval_t CP0 = {0, 0};

static ply_annot_eval_t cp(int v)
{
    return (ply_annot_eval_t){0, v};
}

static ply_annot_eval_t mate(int v)
{
    return (ply_annot_eval_t){1, v};
}

static void near(double got, double want, double tol)
{
    if (fabs(got - want) > tol) fail_msg("got %.7f, want %.7f (+/- %g)", got, want, tol);
}

static void test_winning_chances(void **state)
{
    (void)state;
    near(ply_annot_winning_chances(CP0), 0.0, 1e-12);
    near(ply_annot_winning_chances(cp(100)), 0.1820518, 1e-7);
    near(ply_annot_winning_chances(cp(-150)), -0.2693437, 1e-7);
    /* clamped to +/-1000, and a mate counts as the clamp */
    near(ply_annot_winning_chances(cp(5000)), ply_annot_winning_chances(cp(1000)), 1e-12);
    near(ply_annot_winning_chances(mate(-7)), ply_annot_winning_chances(cp(-1000)), 1e-12);
}

static void test_judge_by_chances(void **state)
{
    (void)state;
    assert_int_equal(ply_annot_judge(cp(30), cp(10), 1), PLY_ANNOT_GOOD);
    assert_int_equal(ply_annot_judge(CP0, cp(-60), 1), PLY_ANNOT_INACCURACY);
    assert_int_equal(ply_annot_judge(cp(100), cp(-60), 1), PLY_ANNOT_MISTAKE);
    assert_int_equal(ply_annot_judge(cp(50), cp(-150), 1), PLY_ANNOT_BLUNDER);
    /* Black moved: -20 -> +400 from White's side is 20 -> -400 from Black's: 0.664 */
    assert_int_equal(ply_annot_judge(cp(-20), cp(400), 0), PLY_ANNOT_BLUNDER);
    /* the same numbers are a gain for Black when White's score falls */
    assert_int_equal(ply_annot_judge(cp(50), cp(-150), 0), PLY_ANNOT_GOOD);
    /* beyond the clamp nothing is lost */
    assert_int_equal(ply_annot_judge(cp(1500), cp(1100), 1), PLY_ANNOT_GOOD);
}

static void test_judge_mates(void **state)
{
    (void)state;
    /* mate created against Black (the mover): Black's cp before -1000, -800, -300 */
    assert_int_equal(ply_annot_judge(cp(1000), mate(3), 0), PLY_ANNOT_INACCURACY);
    assert_int_equal(ply_annot_judge(cp(999), mate(3), 0), PLY_ANNOT_MISTAKE);
    assert_int_equal(ply_annot_judge(cp(800), mate(3), 0), PLY_ANNOT_MISTAKE);
    assert_int_equal(ply_annot_judge(cp(700), mate(3), 0), PLY_ANNOT_BLUNDER);
    assert_int_equal(ply_annot_judge(cp(300), mate(3), 0), PLY_ANNOT_BLUNDER);
    /* mate lost by White: cp after 1200, 1000, 750, 700, 300, or Black mates now */
    assert_int_equal(ply_annot_judge(mate(2), cp(1200), 1), PLY_ANNOT_INACCURACY);
    assert_int_equal(ply_annot_judge(mate(2), cp(1000), 1), PLY_ANNOT_INACCURACY);
    assert_int_equal(ply_annot_judge(mate(2), cp(750), 1), PLY_ANNOT_MISTAKE);
    assert_int_equal(ply_annot_judge(mate(2), cp(700), 1), PLY_ANNOT_BLUNDER);
    assert_int_equal(ply_annot_judge(mate(2), cp(300), 1), PLY_ANNOT_BLUNDER);
    assert_int_equal(ply_annot_judge(mate(2), mate(-4), 1), PLY_ANNOT_BLUNDER);
    /* a longer mate is no error; nor is a mate against the mover that stays one */
    assert_int_equal(ply_annot_judge(mate(2), mate(5), 1), PLY_ANNOT_GOOD);
    assert_int_equal(ply_annot_judge(mate(3), mate(2), 0), PLY_ANNOT_GOOD);
    /* Black had mate (-2 from White's side) and lets it go to -1200 from White's: 1200 */
    assert_int_equal(ply_annot_judge(mate(-2), cp(-1200), 0), PLY_ANNOT_INACCURACY);
}

static void test_accuracy_and_loss(void **state)
{
    (void)state;
    near(ply_annot_accuracy(CP0, cp(-100), 1), 66.23984, 1e-4);
    near(ply_annot_accuracy(cp(300), cp(-300), 1), 8.41386, 1e-4);
    near(ply_annot_accuracy(cp(20), cp(90), 1), 99.9999, 1e-9);
    near(ply_annot_accuracy(cp(100), cp(0), 0), 99.9999, 1e-9); /* Black gained */
    assert_true(ply_annot_accuracy(mate(1), mate(-1), 1) >= 0.0);
    assert_int_equal(ply_annot_cp_loss(cp(100), cp(-60), 1), 160);
    assert_int_equal(ply_annot_cp_loss(cp(100), cp(-60), 0), 0);
    assert_int_equal(ply_annot_cp_loss(mate(3), cp(200), 1), 800);
    assert_int_equal(ply_annot_cp_loss(cp(-2500), mate(-2), 0), 0);
}

static void test_texts(void **state)
{
    (void)state;
    char buf[32];
    ply_annot_eval_comment(cp(17), 22, buf, sizeof buf);
    assert_string_equal(buf, "[%eval 0.17,22]");
    ply_annot_eval_comment(cp(-5), 22, buf, sizeof buf);
    assert_string_equal(buf, "[%eval -0.05,22]");
    ply_annot_eval_comment(cp(-150), 3, buf, sizeof buf);
    assert_string_equal(buf, "[%eval -1.50,3]");
    ply_annot_eval_comment(mate(-3), 22, buf, sizeof buf);
    assert_string_equal(buf, "[%eval #-3,22]");
    ply_annot_eval_t e = ply_annot_from_stm(0, 35, 0);
    assert_int_equal(e.value, -35);
    e = ply_annot_from_stm(1, 2, 0);
    assert_true(e.is_mate);
    assert_int_equal(e.value, -2);
    assert_string_equal(ply_annot_nag_text(PLY_ANNOT_MISTAKE), "?");
    assert_string_equal(ply_annot_nag_text(PLY_ANNOT_BLUNDER), "??");
    assert_string_equal(ply_annot_nag_text(PLY_ANNOT_INACCURACY), "?!");
    assert_string_equal(ply_annot_name(PLY_ANNOT_GOOD), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_winning_chances), cmocka_unit_test(test_judge_by_chances),
        cmocka_unit_test(test_judge_mates),     cmocka_unit_test(test_accuracy_and_loss),
        cmocka_unit_test(test_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
