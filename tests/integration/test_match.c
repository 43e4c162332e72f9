/*
 * End-to-end tests of `ply match` (cli/match_cmd.c), run as a user runs it.
 *
 * Stockfish 15.1 against itself (skipped when /usr/games/stockfish is
 * missing) at a tiny node budget and at a tiny clock with two games at once:
 * the PGN must hold every game with the Seven Tag Roster, TimeControl and
 * Termination, and `ply arbiter` (the rule engine, run as its own command)
 * must find every game legal and its result consistent with the moves.
 *
 * ply's own engine (`ply uci`) against itself at a node budget: no failure,
 * every game accepted by `ply arbiter`.
 *
 * Engines that misbehave (tests/support/fake_uci.c: an illegal move, no
 * move, a crash, garbage, silence past the clock) lose the game with the
 * reason in the PGN, and the runner neither hangs nor leaves engines
 * running. A flag fall where the opponent has a lone king is a draw (art.
 * 6.9; the arbiter's proof is quoted). Ctrl-C ends the match with the
 * result so far.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_skip.h"
#include <jansson.h>

#include "harness.h"

#define STOCKFISH "/usr/games/stockfish"
#define FAKE      PLY_BIN_DIR "/ply_fake_uci"
#define BOOK      PLY_SOURCE_DIR "/bench/openings.epd"

/* `ply arbiter --laws fide2023` on @pgn: all @games legal and consistent. */
static void expect_arbiter_agrees(const char *pgn, long games)
{
    th_run_t r = th_run(120, "ply arbiter --laws fide2023 --json %s", pgn);
    th_expect_status(&r, 0, "ply arbiter on the match's PGN");
    json_t *j = th_json(&r);
    assert_int_equal(th_jint(j, "games"), games);
    assert_int_equal(th_jint(j, "consistent"), games);
    json_t *res = th_jget(j, "results");
    for (size_t i = 0; i < json_array_size(res); i++)
        assert_true(json_is_null(th_jget(json_array_get(res, i), "illegal")));
    json_decref(j);
    th_run_free(&r);
}

/* @r (a --json run, freed here) played @games games with no failure, no
 * illegal move and no record the arbiter disagrees with. */
static void expect_clean_games(th_run_t *r, long games, const char *what)
{
    th_expect_status(r, 0, what);
    json_t *j = th_json(r);
    assert_int_equal(th_jint(j, "games"), games);
    json_t *ends = th_jget(j, "terminations");
    assert_null(json_object_get(ends, "engine failure"));
    assert_null(json_object_get(ends, "illegal move or no move"));
    assert_int_equal(th_jint(j, "arbiter_disagreements"), 0);
    json_decref(j);
    th_run_free(r);
}

/* The tags every game must carry. */
static void expect_tags(const char *pgn_text, int games)
{
    static const char *const tags[] = {"[Event ",       "[Site ",   "[Date ",   "[Round ",
                                       "[White ",       "[Black ",  "[Result ", "[TimeControl ",
                                       "[Termination ", "[Opening "};
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        if (th_count(pgn_text, tags[i]) != games)
            fail_msg("tag %s appears %d times, not %d", tags[i], th_count(pgn_text, tags[i]),
                     games);
}

static void test_usage(void **state)
{
    (void)state;
    th_run_t r = th_run(30, "ply match --help");
    th_expect_status(&r, 0, "--help");
    assert_non_null(strstr(r.out, "usage: ply match"));
    th_run_free(&r);
    const char *bad[] = {
        "ply match -e " FAKE,                             /* one engine */
        "ply match -e " FAKE " -e " FAKE " -e " FAKE,     /* three */
        "ply match --option Hash=1 -e " FAKE " -e " FAKE, /* option before an engine */
        "ply match -e " FAKE " --option Hash -e " FAKE,   /* not NAME=VALUE */
        "ply match -e " FAKE " -e " FAKE " --tc 0",       /* no time */
        "ply match -e " FAKE " -e " FAKE " --tc 10+x",    /* bad increment */
        "ply match -e " FAKE " -e " FAKE " --games 0",
        "ply match -e " FAKE " -e " FAKE " --book /nonexistent.epd",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = th_run(30, "%s", bad[i]);
        th_expect_status(&r, 2, bad[i]);
        assert_non_null(strstr(r.err, "ply match"));
        th_run_free(&r);
    }
    /* a book whose moves do not reach its FEN is refused, naming the line */
    const char *book = th_write_file(
        "match", "bad-book.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1; id \"x\"; c0 \"1. d4\";\n");
    r = th_run(30, "ply match -e " FAKE " -e " FAKE " --book %s", book);
    th_expect_status(&r, 2, "inconsistent book");
    assert_non_null(strstr(r.err, "bad-book.epd:1"));
    th_run_free(&r);
    /* an option an engine does not offer */
    r = th_run(30, "ply match -e " FAKE " --option Foo=1 -e " FAKE " --nodes 1");
    th_expect_status(&r, 1, "unknown option");
    assert_non_null(strstr(r.err, "has no option 'Foo'"));
    th_run_free(&r);
}

static void test_stockfish_nodes(void **state)
{
    (void)state;
    if (access(STOCKFISH, X_OK) != 0) PLY_SKIP("no " STOCKFISH);
    const char *pgn = th_tmp_path("match", "sf-nodes.pgn");
    th_run_t r = th_run(300,
                        "ply match -e " STOCKFISH " --option Hash=16 -e " STOCKFISH
                        " --option Hash=16 --nodes 1000 --games 2 --book " BOOK " --pgn %s --json",
                        pgn);
    th_expect_status(&r, 0, "Stockfish v Stockfish, 1000 nodes");
    json_t *j = th_json(&r);
    assert_int_equal(th_jint(j, "games"), 2);
    assert_int_equal(th_jint(j, "wins") + th_jint(j, "draws") + th_jint(j, "losses"), 2);
    assert_int_equal(th_jint(j, "arbiter_disagreements"), 0);
    json_t *res = th_jget(j, "results");
    /* both games from the book's first opening, colours swapped */
    assert_string_equal(th_jstr(json_array_get(res, 0), "opening"), "Ruy Lopez, Morphy Defence");
    assert_string_equal(th_jstr(json_array_get(res, 1), "opening"), "Ruy Lopez, Morphy Defence");
    assert_string_equal(th_jstr(json_array_get(res, 0), "white"),
                        th_jstr(json_array_get(res, 1), "black"));
    json_decref(j);
    th_run_free(&r);
    char *text = th_slurp(pgn);
    expect_tags(text, 2);
    assert_int_equal(th_count(text, "[TimeControl \"-\"]"), 2);
    assert_non_null(strstr(text, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 {book}"));
    free(text);
    expect_arbiter_agrees(pgn, 2);
}

static void test_stockfish_clock(void **state)
{
    (void)state;
    if (access(STOCKFISH, X_OK) != 0) PLY_SKIP("no " STOCKFISH);
    const char *pgn = th_tmp_path("match", "sf-clock.pgn");
    th_run_t r = th_run(300,
                        "ply match -e " STOCKFISH " --option Hash=16 -e " STOCKFISH
                        " --option Hash=16 --option UCI_LimitStrength=true --option "
                        "UCI_Elo=1500 --tc 1+0.02 --games 2 -c 2 --book " BOOK " --pgn %s",
                        pgn);
    th_expect_status(&r, 0, "Stockfish v Stockfish 1500, 1+0.02, two at once");
    assert_non_null(strstr(r.out, "Elo difference:"));
    assert_non_null(strstr(r.out, "UCI_Elo=1500"));
    th_run_free(&r);
    char *text = th_slurp(pgn);
    expect_tags(text, 2);
    assert_int_equal(th_count(text, "[TimeControl \"1+0.02\"]"), 2);
    free(text);
    expect_arbiter_agrees(pgn, 2);
}

/* ply's own engine (`ply uci`) against itself: every move legal, no failure. */
static void test_ply_engine(void **state)
{
    (void)state;
    const char *pgn = th_tmp_path("match", "ply-ply.pgn");
    th_run_t r = th_run(300,
                        "ply match -e 'ply uci' --option Hash=16 -e 'ply uci' --option Hash=16 "
                        "--nodes 3000 --games 2 --book " BOOK " --pgn %s --json",
                        pgn);
    expect_clean_games(&r, 2, "ply uci v ply uci, 3000 nodes");
    expect_arbiter_agrees(pgn, 2);
}

/* A fake engine misbehaving from its third search on, against a good fake. */
static void test_broken_engines(void **state)
{
    (void)state;
    static const struct {
        const char *mode, *says, *termination;
    } cases[] = {
        {"illegal", "an illegal move", "rules infraction"},
        {"none", "bestmove 0000", "rules infraction"},
        {"die", "exited with status 3", "abandoned"},
        {"garbage", "malformed 'depth'", "abandoned"},
        {"binary", "binary data", "abandoned"},
        {"hang", "loses on time", "time forfeit"},
        {"late", "loses on time", "time forfeit"},
        {"long-bestmove", "not a UCI move", "abandoned"}, /* a move of 10,000 bytes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *pgn = th_tmp_path("match", "broken.pgn");
        unlink(pgn);
        uint64_t t0 = th_now_ms();
        th_run_t r = th_run(120,
                            "ply match -e '" FAKE " --mode %s --after-game 2 --delay 3210' -e " FAKE
                            " --tc 1+0 --games 2 --book " BOOK " --pgn %s --json",
                            cases[i].mode, pgn);
        th_expect_status(&r, 0, cases[i].mode);
        assert_true(th_now_ms() - t0 < 60000);
        json_t *j = th_json(&r);
        assert_int_equal(th_jint(j, "games"), 2);
        assert_int_equal(th_jint(j, "losses"), 2); /* the broken engine is the first one */
        json_t *res = th_jget(j, "results");
        for (size_t g = 0; g < 2; g++) {
            const char *why = th_jstr(json_array_get(res, g), "reason");
            if (!strstr(why, cases[i].says))
                fail_msg("mode %s, game %zu: reason \"%s\" does not say \"%s\"", cases[i].mode,
                         g + 1, why, cases[i].says);
            /* its third search is its move 3: ply 8 of the book, then 2 moves each */
            assert_int_equal(th_jint(json_array_get(res, g), "plies"), g == 0 ? 4 : 5);
        }
        json_decref(j);
        th_run_free(&r);
        char *text = th_slurp(pgn);
        char want[96];
        snprintf(want, sizeof want, "[Termination \"%s\"]", cases[i].termination);
        assert_int_equal(th_count(text, want), 2);
        assert_non_null(strstr(text, cases[i].says));
        free(text);
        expect_arbiter_agrees(pgn, 2);
        assert_int_equal(th_procs_gone("--delay 3210", "ply match", 5000), 0);
    }
    th_run_t r = th_run(30, "ply match -e /nonexistent/engine -e " FAKE " --nodes 1");
    th_expect_status(&r, 1, "no such engine");
    assert_non_null(strstr(r.err, "cannot start engine"));
    th_run_free(&r);
}

/*
 * Info lines of 10,000 bytes (fake_uci.c's long_info: longer than the 4096
 * bytes the reader keeps) lose nothing: every game is played out, and the
 * move comments give what the head of the last such line said ("depth 3
 * score cp 42"), not a figure cut in two.
 */
static void test_long_lines(void **state)
{
    (void)state;
    const char *pgn = th_tmp_path("match", "long.pgn");
    unlink(pgn);
    th_run_t r = th_run(120,
                        "ply match -e '" FAKE " --mode long' -e " FAKE
                        " --nodes 1 --games 2 --book " BOOK " --pgn %s --json",
                        pgn);
    expect_clean_games(&r, 2, "an engine with 10,000-byte info lines");
    char *text = th_slurp(pgn);
    /* the long engine moved at least once in each game, after the book */
    assert_true(th_count(text, "{+0.42/3 ") >= 2);
    free(text);
    expect_arbiter_agrees(pgn, 2);
}

/* White's flag falls; Black has a lone king and cannot mate: a draw (art. 6.9). */
static void test_flag_against_lone_king(void **state)
{
    (void)state;
    const char *book =
        th_write_file("match", "kqk.epd", "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1; id \"KQ v K\";\n");
    const char *pgn = th_tmp_path("match", "kqk.pgn");
    th_run_t r = th_run(60,
                        "ply match -e '" FAKE " --mode hang' -e " FAKE
                        " --tc 0.5+0 --games 1 --book %s --pgn %s --json",
                        book, pgn);
    th_expect_status(&r, 0, "flag against a lone king");
    json_t *j = th_json(&r);
    assert_int_equal(th_jint(j, "draws"), 1);
    const char *why = th_jstr(json_array_get(th_jget(j, "results"), 0), "reason");
    assert_non_null(strstr(why, "cannot checkmate"));
    assert_non_null(strstr(why, "only its king"));
    json_decref(j);
    th_run_free(&r);
    char *text = th_slurp(pgn);
    assert_non_null(strstr(text, "[FEN \"8/8/8/4k3/8/8/8/4KQ2 w - - 0 1\"]"));
    assert_non_null(strstr(text, "[Termination \"time forfeit\"]"));
    free(text);
    expect_arbiter_agrees(pgn, 1);

    /* with material on both sides the loss stands, proven by a helpmate line
     * (from the start position Black mates in two by 1. f3 e5 2. g4 Qh4#) */
    r = th_run(60, "ply match -e '" FAKE " --mode hang' -e " FAKE " --tc 0.5+0 --games 1 --json");
    th_expect_status(&r, 0, "flag in the initial position");
    j = th_json(&r);
    assert_int_equal(th_jint(j, "losses"), 1);
    why = th_jstr(json_array_get(th_jget(j, "results"), 0), "reason");
    assert_non_null(strstr(why, "White loses on time"));
    assert_non_null(strstr(why, "the opponent can still mate (art. 6.9): helpmate in "));
    json_decref(j);
    th_run_free(&r);
}

/*
 * Ctrl-C: the result so far is printed, exit 130, and the game in progress is
 * not counted but written to the PGN unfinished: Result "*" (PGN standard
 * 8.2.6: a game in progress) and Termination "unterminated" (9.8.1), which
 * `ply arbiter` reads as a consistent record.
 */
static void test_interrupt(void **state)
{
    (void)state;
    const char *log = th_tmp_path("match", "interrupt.log"),
               *pgn = th_tmp_path("match", "interrupt.pgn");
    unlink(pgn);
    pid_t pid =
        th_spawn(log,
                 "exec ply match -e '" FAKE " --mode late --delay 400 --prefer x9' -e '" FAKE
                 " --mode late --delay 400 --prefer y9' --movetime 1 --games 50 --pgn %s",
                 pgn);
    assert_true(th_wait_text(log, "ply match:", 30000));
    usleep(1000 * 1000); /* two or three moves of the first game: it cannot be over */
    kill(pid, SIGINT);
    int st = th_wait(pid, 10000);
    if (st == -2) th_stop(pid);
    assert_int_equal(st, 130);
    char *text = th_slurp(log);
    assert_non_null(strstr(text, "Interrupted: 0 of 50 games played"));
    assert_non_null(strstr(text, "Score of"));
    free(text);
    text = th_slurp(pgn);
    assert_int_equal(th_count(text, "[Event "), 1);
    assert_non_null(strstr(text, "[Round \"1\"]"));
    assert_non_null(strstr(text, "[Result \"*\"]"));
    assert_non_null(strstr(text, "[Termination \"unterminated\"]"));
    assert_non_null(strstr(text, "\n1. ")); /* the moves played so far */
    assert_non_null(strstr(text, "{unfinished: the match was"));
    assert_non_null(strstr(text, "SIGINT}"));
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--;
    assert_true(n && text[n - 1] == '*'); /* the termination marker */
    free(text);
    expect_arbiter_agrees(pgn, 1);
    assert_int_equal(th_procs_gone("--prefer x9", "ply match", 5000), 0);
    assert_int_equal(th_procs_gone("--prefer y9", "ply match", 5000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_stockfish_nodes),
        cmocka_unit_test(test_stockfish_clock),
        cmocka_unit_test(test_ply_engine),
        cmocka_unit_test(test_broken_engines),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_flag_against_lone_king),
        cmocka_unit_test(test_interrupt),
    };
    return ply_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
