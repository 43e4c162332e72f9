/*
 * Streaming test of the PGN reader (issue 3: "a generated PGN of 100,000
 * games is read in bounded memory"): write 100,000 games to a temporary file
 * (random legal games played and written by the arbiter, with tags, clock
 * comments, NAGs, a variation now and then, and one broken game every
 * 10,000), then read the file back game by game, and replay and adjudicate
 * every tenth game as `ply arbiter` does (every game with the argument
 * "full", the slow variant), and check that
 *   - every game is read (number, moves, result as written) and the broken
 *     ones are reported and skipped;
 *   - the peak resident set size (getrusage ru_maxrss) grows by less than
 *     16 MiB while reading a file of about 100 MB: memory is bounded by one
 *     game, not by the file.
 * It prints the file size, the peak RSS and the speed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arbiter/adjudicate.h"
#include "arbiter/arbiter.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "util/error.h"
#define TEST_RNG_SEED 0x853C49E6748FEA9Bull
#include "test_rng.h"

#define GAMES      100000
#define POOL       400
#define BROKEN_GAP 10000

/* A pool of random legal games, as SAN, and how each ended. */
typedef struct pool_game {
    char san[300][PLY_ARB_SAN_MAX];
    int plies;
    const char *result;
} pool_game_t;

/* Random games that stop where the rules end them (mate, stalemate, a dead
 * position), so that every result written is the right one. */
static void make_pool(pool_game_t *pool)
{
    ply_arb_pos_t start;
    ply_arb_startpos(&start);
    ply_arb_game_t *game = ply_arb_game_new(&start, PLY_ARB_FIDE2000);
    assert_non_null(game);
    for (int g = 0; g < POOL; g++) {
        ply_arb_game_reset(game, &start, PLY_ARB_FIDE2000);
        int limit = 20 + (int)rnd(280);
        pool[g].plies = 0;
        pool[g].result = "*";
        for (int ply = 0; ply < limit; ply++) {
            const ply_arb_pos_t *pos = ply_arb_game_pos(game);
            ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
            int n = ply_arb_legal_moves(pos, mv);
            ply_arb_move_t m = mv[rnd((uint32_t)n)];
            ply_arb_move_to_san(pos, m, pool[g].san[ply], PLY_ARB_SAN_MAX);
            assert_int_equal(ply_arb_game_play(game, m), 0);
            pool[g].plies++;
            ply_arb_status_t st;
            ply_arb_game_status(game, 0, &st);
            if (st.end != PLY_ARB_END_NONE) {
                pool[g].result = st.winner == 0 ? "1-0" : st.winner == 1 ? "0-1" : "1/2-1/2";
                break;
            }
        }
    }
    ply_arb_game_destroy(&game);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

/* Game @i of the file, written with the arbiter's PGN writer. */
static void write_game(FILE *f, ply_pgn_game_t *g, const pool_game_t *pg, int i)
{
    char buf[64];
    ply_pgn_game_clear(g);
    snprintf(buf, sizeof buf, "Stream test %d", i + 1);
    ply_pgn_game_set_tag(g, "Event", buf);
    ply_pgn_game_set_tag(g, "White", "Random, A.");
    ply_pgn_game_set_tag(g, "Black", "Random, \"B\"");
    snprintf(buf, sizeof buf, "%d", i + 1);
    ply_pgn_game_set_tag(g, "Round", buf);
    for (int k = 0; k < pg->plies; k++) {
        ply_pgn_game_add(g, PLY_PGN_MOVE, pg->san[k], 0);
        if (k % 2 == 0 && i % 3 == 0) {
            snprintf(buf, sizeof buf, "[%%clk 0:%02d:%02d] [%%eval %d.%02d]", 10 - k / 60,
                     59 - k % 60, k % 5, k % 100);
            ply_pgn_game_add(g, PLY_PGN_COMMENT, buf, 0);
        }
        if (k == 10 && i % 7 == 0) ply_pgn_game_add(g, PLY_PGN_NAG, NULL, 1 + k % 6);
        if (k == 5 && i % 5 == 0) { /* a variation: the same move again, annotated */
            ply_pgn_game_add(g, PLY_PGN_VAR_START, NULL, 0);
            ply_pgn_game_add(g, PLY_PGN_MOVE, pg->san[k], 0);
            ply_pgn_game_add(g, PLY_PGN_COMMENT, "same", 0);
            ply_pgn_game_add(g, PLY_PGN_VAR_END, NULL, 0);
        }
    }
    ply_pgn_game_set_result(g, pg->result);
    assert_int_equal(ply_pgn_write(f, g), 0);
}

static int adjudicate_every = 10; /* 1 with the argument "full" */

static void test_stream_100k(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-stream-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    pool_game_t *pool = malloc(sizeof *pool * POOL);
    assert_non_null(pool);
    double t0 = now();
    make_pool(pool);
    ply_pgn_game_t *g = ply_pgn_game_new();
    long expected_plies = 0;
    for (int i = 0; i < GAMES; i++) {
        if (i % BROKEN_GAP == BROKEN_GAP / 2) { /* a broken game: an unclosed comment */
            fprintf(f, "[Event \"broken %d\"]\n[Result \"*\"]\n\n1. e4 {never closed\n\n", i + 1);
            continue;
        }
        const pool_game_t *pg = &pool[(i * 7919) % POOL];
        expected_plies += pg->plies;
        write_game(f, g, pg, i);
    }
    ply_pgn_game_destroy(&g);
    assert_int_equal(fclose(f), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    double t1 = now();
    long rss_before = max_rss_kib();

    /* Read it back: every game replayed and adjudicated. */
    ply_pgn_reader_t *r = ply_pgn_reader_open(path, NULL, 0);
    assert_non_null(r);
    ply_arb_pos_t start;
    ply_arb_startpos(&start);
    ply_arb_game_t *work = ply_arb_game_new(&start, PLY_ARB_FIDE2000);
    ply_arb_report_t *rep = malloc(sizeof *rep);
    const ply_pgn_game_t *game;
    ply_pgn_error_t err;
    long games = 0, broken = 0, plies = 0, consistent = 0, judged = 0, judged_plies = 0;
    int rc;
    while ((rc = ply_pgn_read(r, &game, &err)) != 0) {
        assert_true(rc == 1 || rc == PLY_EPARSE);
        if (rc == PLY_EPARSE) {
            broken++;
            assert_int_equal(err.game % BROKEN_GAP, BROKEN_GAP / 2 + 1);
            continue;
        }
        games++;
        assert_int_equal(game->number, (size_t)(games + broken));
        for (size_t k = 0; k < game->nelems; k++)
            plies += game->elems[k].kind == PLY_PGN_MOVE && game->elems[k].depth == 0;
        if (games % adjudicate_every) continue;
        assert_int_equal(ply_arb_adjudicate(game, PLY_ARB_FIDE2000, -1, work, rep), 0);
        assert_int_equal(rep->illegal_ply, 0);
        judged++;
        judged_plies += rep->plies;
        consistent += rep->consistent;
    }
    double t2 = now();
    long rss_after = max_rss_kib();
    free(rep);
    ply_arb_game_destroy(&work);
    ply_pgn_reader_destroy(&r);
    unlink(path);
    free(pool);

    print_message("file: %.1f MB, %d games (written in %.1f s)\n", (double)st.st_size / 1e6, GAMES,
                  t1 - t0);
    print_message("read %ld games (%ld plies) and adjudicated %ld of them (%ld plies) in %.1f s; "
                  "%ld broken games reported and skipped\n",
                  games, plies, judged, judged_plies, t2 - t1, broken);
    print_message("peak RSS: %ld KiB before reading, %ld KiB after (growth %ld KiB)\n", rss_before,
                  rss_after, rss_after - rss_before);
    assert_int_equal(broken, GAMES / BROKEN_GAP);
    assert_int_equal(games, GAMES - GAMES / BROKEN_GAP);
    assert_int_equal(plies, expected_plies);
    assert_int_equal(judged, games / adjudicate_every);
    assert_int_equal(consistent, judged); /* random games: results as played */
    assert_true(st.st_size > 50 * 1000 * 1000);
    assert_true(rss_after - rss_before < 16 * 1024);
    assert_true(rss_after < 64 * 1024);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stream_100k)};
    if (argc > 1 && !strcmp(argv[1], "full")) adjudicate_every = 1;
    return cmocka_run_group_tests_name("arbiter_stream", tests, NULL, NULL);
}
