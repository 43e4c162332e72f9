/*
 * Flag falls in the positions of issue 30, through `ply arbiter --flag`:
 * FIDE Laws art. 6.10 (2000; 6.9 since 2018, RULES.md "Flag fall"): the
 * player whose flag falls loses, unless the opponent cannot checkmate by any
 * series of legal moves, and then the game is drawn; a game that ended
 * before (a dead position, 5.2(b)) is drawn whatever the clock.
 *
 * White's flag falls at the end of each game, White to move:
 *   1. king and bishop against king and bishop on the other colour: Black
 *      can mate (White's king in a light corner, White's own bishop
 *      blocking its last flight): 0-1;
 *   2. king and pawn against king and knight: Black's knight mates once
 *      White's pawn has promoted and the new piece blocks its own king: 0-1;
 *   3. king and pawn against king and bishop, the same with a bishop: 0-1;
 *   4. a locked lattice with a bishop behind each wall: dead at once, 1/2-1/2;
 *   5. the lattice with two light bishops for Black: White could mate, but
 *      Black cannot (one dark bishop of White's for two dark flights), so
 *      White's flag fall is a draw: 1/2-1/2.
 * Each "can mate" is proven by a helpmate line that test_arbiter_unwinnable.c
 * replays (Stockfish 15.1 confirms the last move is mate), each "cannot" by
 * the argument worked by hand there and its exhaustive walk. The records'
 * results are right for 1-3 and 5, wrong for 4 (0-1 on time).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define RUN_S 300

static const char *str_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) fail_msg("no string '%s'", key);
    return json_string_value(v);
}

static const char games[] =
    "[Event \"kb-kb\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"8/8/4k3/8/2b5/8/2K5/2B5 w - - 0 1\"]\n\n0-1\n\n"
    "[Event \"kp-kn\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"8/8/8/8/1K6/6k1/1n5P/8 b - - 0 1\"]\n\n1... Kf4 0-1\n\n"
    "[Event \"kp-kb\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"k7/8/8/8/3P4/8/5K2/6b1 w - - 0 1\"]\n\n0-1\n\n"
    "[Event \"lattice\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n"
    "[FEN \"4k3/4B3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/2b5/4K3 w - - 0 1\"]\n\n0-1\n\n"
    "[Event \"two-bishops\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n"
    "[FEN \"4k3/4Bb2/6b1/1p1p1p2/pPpPpPp1/P1P1P1P1/8/4K3 w - - 0 1\"]\n\n1/2-1/2\n";

static void test_flag_fall_per_class(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-arbiter-classes-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(games, f);
    fclose(f);
    th_run_t r = th_run(RUN_S, "ply arbiter --json --flag white %s", path);
    th_expect_status(&r, 1, "flag white"); /* game 4's record is wrong */
    json_t *o = th_json(&r);
    json_t *res = json_object_get(o, "results");
    assert_int_equal(json_array_size(res), 5);
    static const char *const expected[5] = {"0-1", "0-1", "0-1", "1/2-1/2", "1/2-1/2"};
    static const char *const can_mate[5] = {"yes", "yes", "yes", NULL, "no"};
    static const char *const method[5] = {"helpmate", "helpmate", "helpmate", NULL, "blocked"};
    for (size_t i = 0; i < 5; i++) {
        json_t *g = json_array_get(res, i);
        if (strcmp(str_at(g, "expected_result"), expected[i]))
            fail_msg("game %zu: expected %s, ply says %s", i + 1, expected[i],
                     str_at(g, "expected_result"));
        assert_true(json_is_boolean(json_object_get(g, "consistent")));
        assert_int_equal(json_is_true(json_object_get(g, "consistent")), i != 3);
        if (!can_mate[i]) {
            assert_string_equal(str_at(json_object_get(g, "end"), "kind"), "dead position");
            continue;
        }
        json_t *flag = json_object_get(g, "flag");
        assert_string_equal(str_at(flag, "opponent_can_mate"), can_mate[i]);
        assert_string_equal(str_at(flag, "method"), method[i]);
        assert_int_equal(json_array_size(json_object_get(flag, "line")) > 0, i < 3);
    }
    json_decref(o);
    th_run_free(&r);
    /* The text output says the same. */
    r = th_run(RUN_S, "ply arbiter --flag white %s", path);
    assert_non_null(strstr(r.out, "flag: white's flag fell; black can mate: yes (helpmate"));
    assert_non_null(strstr(r.out, "end: dead position at ply 0 (art. 5.2(b)), 1/2-1/2: blocked"));
    assert_non_null(strstr(r.out, "flag: white's flag fell; black can mate: no (blocked"));
    th_run_free(&r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag_fall_per_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
