/*
 * Unit tests of common/board, the fast engine core: attack tables against
 * ray walking, FEN in and out, the position invariants after every move of
 * random games, UCI notation, and perft on the published suites.
 * Expected counts come from tests/data (see its PROVENANCE.md), which agree
 * with Stockfish 15.1 `go perft`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board/movegen.h"
#include "util/error.h"

static uint64_t rng = 0x1234567887654321ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static ply_bb_t ray_walk(int sq, ply_bb_t occ, int diagonal)
{
    static const int dirs[2][4][2] = {{{1, 0}, {-1, 0}, {0, 1}, {0, -1}},
                                      {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}};
    ply_bb_t att = 0;
    for (int d = 0; d < 4; d++) {
        int f = PLY_FILE(sq) + dirs[diagonal][d][0], r = PLY_RANK(sq) + dirs[diagonal][d][1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            att |= ply_bb(PLY_SQ(f, r));
            if (occ & ply_bb(PLY_SQ(f, r))) break;
            f += dirs[diagonal][d][0];
            r += dirs[diagonal][d][1];
        }
    }
    return att;
}

/* The slider backend (magic or PEXT) agrees with ray walking everywhere. */
static void test_slider_attacks(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        int sq = (int)(next_rand() & 63);
        ply_bb_t occ = next_rand() & next_rand();
        assert_true(ply_rook_attacks(sq, occ) == ray_walk(sq, occ, 0));
        assert_true(ply_bishop_attacks(sq, occ) == ray_walk(sq, occ, 1));
    }
}

static void test_between_and_line(void **state)
{
    (void)state;
    /* a1-h8 diagonal: b2..g7 between, the whole diagonal as the line */
    assert_true(ply__between[0][63] == 0x0040201008040200ull);
    assert_true(ply__line[0][63] == 0x8040201008040201ull);
    assert_true(ply__between[PLY_SQ(4, 0)][PLY_SQ(7, 0)] == (ply_bb(5) | ply_bb(6)));
    assert_true(ply__between[0][PLY_SQ(1, 2)] == 0); /* a knight's jump: not aligned */
    assert_true(ply__line[0][PLY_SQ(1, 2)] == 0);
}

static void test_fen_round_trip(void **state)
{
    (void)state;
    static const char *fens[] = {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    };
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++) {
        ply_board_t b;
        char out[PLY_BOARD_FEN_MAX], why[128];
        assert_int_equal(ply_board_from_fen(&b, fens[i], 0, why, sizeof why), 0);
        assert_true(ply_board_to_fen(&b, out, sizeof out) > 0);
        assert_string_equal(out, fens[i]);
        assert_true(ply_board_ok(&b, why, sizeof why));
    }
    /* An en-passant square no pawn can use is dropped: it cannot change the tree. */
    ply_board_t b;
    char out[PLY_BOARD_FEN_MAX];
    assert_int_equal(
        ply_board_from_fen(&b, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0,
                           NULL, 0),
        0);
    ply_board_to_fen(&b, out, sizeof out);
    assert_string_equal(out, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    /* X-FEN: KQkq on a Chess960 position means the outermost rooks */
    assert_int_equal(
        ply_board_from_fen(&b, "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1", PLY_BOARD_CHESS960, NULL, 0),
        0);
    ply_board_to_fen(&b, out, sizeof out);
    assert_string_equal(out, "rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1");
}

static void test_fen_errors(void **state)
{
    (void)state;
    static const struct {
        const char *fen;
        int code;
        const char *words;
    } bad[] = {
        {"", PLY_EFEN, "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", PLY_EFEN, "fields"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", PLY_EFEN, "bad character '9'"},
        {"rnbqkbnr/pppppppp/71/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", PLY_EFEN,
         "rank 6 has two digits in a row ('71')"},
        {"rnbqkbnr/pppppppp/p8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", PLY_EFEN, "rank 6 has 9"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", PLY_EFEN, "8 ranks"},
        {"rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", PLY_EFEN, "bad character"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", PLY_EFEN, "side to move"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1", PLY_EILLEGAL,
         "white has 0 kings"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", PLY_EFEN, "halfmove"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", PLY_EFEN, "en passant"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", PLY_EILLEGAL, "impossible"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", PLY_EILLEGAL, "castling"},
        {"4k3/8/8/8/8/8/8/4K2R w Z - 0 1", PLY_EFEN, "castling"},
        {"P3k3/8/8/8/8/8/8/4K3 w - - 0 1", PLY_EILLEGAL, "rank 1 or 8"},
        {"4k3/8/8/8/8/8/8/4K2R b - - 0 1", 0, NULL},
        {"4k2R/8/8/8/8/8/8/4K3 w - - 0 1", PLY_EILLEGAL, "not to move but is in check"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ply_board_t b;
        char why[256] = "";
        int rc = ply_board_from_fen(&b, bad[i].fen, 0, why, sizeof why);
        if (rc != bad[i].code)
            fail_msg("'%s': got %d (%s), want %d", bad[i].fen, rc, why, bad[i].code);
        if (bad[i].words && !strstr(why, bad[i].words))
            fail_msg("'%s': reason '%s' lacks '%s'", bad[i].fen, why, bad[i].words);
    }
    /* Garbage never crashes the parser. */
    for (int i = 0; i < 20000; i++) {
        char junk[96];
        int len = (int)(next_rand() % sizeof junk);
        for (int k = 0; k < len; k++)
            junk[k] = " /pnbrqkPNBRQK12345678wb-KQkqabcdefgh"[next_rand() % 37];
        junk[len] = '\0';
        ply_board_t b;
        if (ply_board_from_fen(&b, junk, 0, NULL, 0) == 0) assert_true(ply_board_ok(&b, NULL, 0));
    }
}

/* The noisy moves (quiescence's) of @b are exactly its legal moves of @n that capture (en
 * passant too; a Chess960 castle "takes" its own rook and is no capture) or promote, in the
 * same order. */
static void check_noisy(const ply_board_t *b, const ply_move_t *legal, int n)
{
    ply_move_t noisy[PLY_MAX_MOVES];
    const int k = ply_board_noisy_moves(b, noisy);
    int j = 0;
    for (int i = 0; i < n; i++) {
        const ply_move_t m = legal[i];
        const int kind = ply_move_kind(m);
        const int capture =
            kind == PLY_MOVE_EP ||
            (kind != PLY_MOVE_CASTLE && (b->colour[b->side ^ 1] & ply_bb(ply_move_to(m))));
        if (!capture && !ply_move_is_promo(m)) continue;
        if (j >= k || noisy[j] != m) {
            char fen[128], uci[6];
            ply_board_to_fen(b, fen, sizeof fen);
            ply_board_move_to_uci(b, m, uci);
            fail_msg("%s: noisy move %d should be %s", fen, j + 1, uci);
        }
        j++;
    }
    assert_int_equal(j, k);
}

/* Random games: after every move the invariants hold (incrementally updated
 * key included), generated and counted move numbers agree, the noisy moves are
 * the legal ones that capture or promote, and every move survives UCI notation
 * both ways. */
static void test_random_games(void **state)
{
    (void)state;
    static const char *starts[] = {
        "startpos",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1",
    };
    for (int game = 0; game < 400; game++) {
        ply_board_t b;
        assert_int_equal(ply_board_from_fen(&b, starts[game % 4],
                                            game % 4 == 3 ? PLY_BOARD_CHESS960 : 0, NULL, 0),
                         0);
        for (int ply = 0; ply < 200; ply++) {
            ply_move_t moves[PLY_MAX_MOVES];
            int n = ply_board_legal_moves(&b, moves);
            assert_int_equal(n, ply_board_count_legal(&b));
            check_noisy(&b, moves, n);
            if (n == 0) break;
            for (int i = 0; i < n; i++) {
                char uci[6];
                ply_move_t back;
                ply_board_move_to_uci(&b, moves[i], uci);
                assert_int_equal(ply_board_move_from_uci(&b, uci, &back), 0);
                assert_true(back == moves[i]);
            }
            ply_board_play(&b, moves[next_rand() % (unsigned)n]);
            char why[128];
            if (!ply_board_ok(&b, why, sizeof why)) fail_msg("game %d ply %d: %s", game, ply, why);
        }
    }
}

static uint64_t perft(const ply_board_t *b, int depth)
{
    if (depth == 1) return (uint64_t)ply_board_count_legal(b);
    ply_move_t moves[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, moves);
    check_noisy(b, moves, n);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        ply_board_t child = *b;
        ply_board_play_nokey(&child, moves[i]);
        total += perft(&child, depth - 1);
    }
    return total;
}

/* Every "FEN ;D1 n ;D2 n" line of an EPD file, to @max_depth. */
static void check_suite(const char *file, int max_depth)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s", PLY_TEST_DATA, file);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int checks = 0;
    while (fgets(line, sizeof line, f)) {
        char *semi = strchr(line, ';');
        if (!semi) continue;
        *semi = '\0';
        ply_board_t b;
        char why[256];
        if (ply_board_from_fen(&b, line, 0, why, sizeof why))
            fail_msg("%s: %s: %s", file, line, why);
        for (char *p = semi + 1; p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
            int d;
            unsigned long long want;
            while (*p == ' ') p++;
            if (sscanf(p, "D%d %llu", &d, &want) != 2 || d > max_depth) continue;
            uint64_t got = perft(&b, d);
            if (got != want)
                fail_msg("%s: %s D%d: %llu, expected %llu", file, line, d, (unsigned long long)got,
                         want);
            checks++;
        }
    }
    fclose(f);
    assert_true(checks > 100);
}

/* perftsuite.epd (126 positions) to depth 4 */
static void test_perftsuite(void **state)
{
    (void)state;
    check_suite("perftsuite.epd", 4);
}

/* Chess960: ethereal-fischer.epd (960 positions, Shredder-FEN) to depth 3 */
static void test_fischer(void **state)
{
    (void)state;
    check_suite("ethereal-fischer.epd", 3);
}

/* The Grand Chess Tree client suite: castling rooks captured on their squares */
static void test_gct_suite(void **state)
{
    (void)state;
    check_suite("gct-client-tests-perft.epd", 4);
}

/*
 * Regression (issue 9, item 2): the Zobrist key covers which rook each
 * castling right castles with. These pairs have the same pieces and the same
 * rights but different rooks (perft(5) 227,454 and 236,952 for the white
 * pair, Stockfish 15.1 with UCI_Chess960), and had one key.
 */
static void test_castling_key_names_the_rook(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"4k3/8/8/8/8/8/8/4KR1R w H - 0 1", "4k3/8/8/8/8/8/8/4KR1R w F - 0 1"},
        {"4kr1r/8/8/8/8/8/8/4K3 b h - 0 1", "4kr1r/8/8/8/8/8/8/4K3 b f - 0 1"},
        {"r1r1k3/8/8/8/8/8/8/4K3 b a - 0 1", "r1r1k3/8/8/8/8/8/8/4K3 b c - 0 1"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        ply_board_t a, b;
        char why[256];
        if (ply_board_from_fen(&a, pairs[i][0], 0, why, sizeof why)) fail_msg("%s", why);
        if (ply_board_from_fen(&b, pairs[i][1], 0, why, sizeof why)) fail_msg("%s", why);
        if (a.key[0] == b.key[0] || a.key[1] == b.key[1])
            fail_msg("%s and %s share a key word", pairs[i][0], pairs[i][1]);
        /* and the incremental update agrees with the key from scratch when the
         * other rook moves and the right stays */
        ply_move_t moves[PLY_MAX_MOVES];
        int n = ply_board_legal_moves(&a, moves);
        for (int k = 0; k < n; k++) {
            ply_board_t c = a;
            ply_board_play(&c, moves[k]);
            if (!ply_board_ok(&c, why, sizeof why)) fail_msg("%s: %s", pairs[i][0], why);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slider_attacks),
        cmocka_unit_test(test_between_and_line),
        cmocka_unit_test(test_fen_round_trip),
        cmocka_unit_test(test_fen_errors),
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_perftsuite),
        cmocka_unit_test(test_fischer),
        cmocka_unit_test(test_gct_suite),
        cmocka_unit_test(test_castling_key_names_the_rook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
