/*
 * Unit tests of ply match's opening book (client/book.c): bench/openings.epd loads (its
 * moves reach its FENs, as the rule engine replays them), and books that contradict
 * themselves are refused.
 */
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
    snprintf(path, sizeof path, "/tmp/test_book.%d.epd", (int)getpid());
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
        cmocka_unit_test(test_book),
        cmocka_unit_test(test_bad_books),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
