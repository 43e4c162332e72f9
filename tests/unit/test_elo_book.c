/*
 * Unit tests of ply match's arithmetic and book (client/elo.c, client/book.c).
 *
 * Elo: the logistic model's values are closed forms (a 75% score is
 * 400 log10 3 = +190.849; 50% is 0; 1/(1+10^(-100/400)) = 0.640065 is
 * +100). The intervals were computed independently with Python 3's math
 * module from the trinomial formula of cutechess-cli's elo.cpp (cited in
 * elo.h): W/D/L 60/20/20 gives s = 0.7, se = 0.04, 95% interval +86.225 ..
 * +218.252 around +147.191; 10/80/10 gives -30.532 .. +30.532; 3/4/3 gives
 * -181.745 .. +181.745.
 *
 * Book: bench/openings.epd loads (its moves reach its FENs, as the rule
 * engine replays them), and books that contradict themselves are refused.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "book.h"
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

static void test_book(void **state)
{
    (void)state;
    char why[512];
    ply_book_t *b = ply_book_load(PLY_SOURCE_DIR "/bench/openings.epd", why, sizeof why);
    if (!b) fail_msg("bench/openings.epd: %s", why);
    assert_int_equal(b->n, 33);
    assert_string_equal(b->lines[0].name, "Ruy Lopez, Morphy Defence");
    for (size_t i = 0; i < b->n; i++) {
        assert_int_equal(b->lines[i].nmoves, 8);
        assert_int_equal(b->lines[i].from_fen, 0);
    }
    assert_string_equal(b->lines[0].san[7], "Nf6");
    assert_string_equal(b->lines[0].uci[7], "g8f6");
    ply_book_free(&b);
    assert_null(b);
}

static const char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_elo_book.%d.epd", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_bad_books(void **state)
{
    (void)state;
    static const struct {
        const char *text, *says;
    } cases[] = {
        /* the moves reach 1. e4, not the FEN's 1. d4 */
        {"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1; c0 \"1. e4\";\n",
         "the moves reach"},
        {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1; c0 \"1. e5\";\n",
         "book move 1 'e5'"},
        {"k7/8/1Q6/8/8/8/8/7K b - -; id \"stalemate\"\n", "the game is over"},
        {"8/8/8/8/8/8/8/K7 w - -;\n", "bad position"},
        {"\n# only a comment\n", "no positions"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char why[512] = "";
        const char *path = write_tmp(cases[i].text);
        ply_book_t *b = ply_book_load(path, why, sizeof why);
        unlink(path);
        if (b || !strstr(why, cases[i].says))
            fail_msg("case %zu: loaded %d, why \"%s\", want \"%s\"", i, b != NULL, why,
                     cases[i].says);
    }
    /* a record without moves starts from its FEN */
    char why[256];
    const char *path = write_tmp("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1; id \"KQ v K\";\n");
    ply_book_t *b = ply_book_load(path, why, sizeof why);
    unlink(path);
    assert_non_null(b);
    assert_int_equal(b->lines[0].from_fen, 1);
    assert_string_equal(b->lines[0].start_fen, "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1");
    ply_book_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elo_of_score),
        cmocka_unit_test(test_elo_interval),
        cmocka_unit_test(test_book),
        cmocka_unit_test(test_bad_books),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
