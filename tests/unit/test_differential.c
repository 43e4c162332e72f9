/*
 * Differential test: the fast engine (common/board) against the rule engine
 * (common/arbiter), two implementations that share no move-generation code.
 * Thousands of positions reached by seeded random play, standard and
 * Chess960, must give the same legal move sets (as UCI strings), the same
 * FEN after every move, and the same perft(3). A deliberately corrupted
 * comparison proves that the comparison can fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arbiter/arbiter.h"
#include "board/movegen.h"
#include "perft.h"

static uint64_t rng;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct move_set {
    int n;
    char uci[PLY_MAX_MOVES][6];
} move_set_t;

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static void board_moves(const ply_board_t *b, move_set_t *s)
{
    ply_move_t m[PLY_MAX_MOVES];
    s->n = ply_board_legal_moves(b, m);
    for (int i = 0; i < s->n; i++) ply_board_move_to_uci(b, m[i], s->uci[i]);
    qsort(s->uci, (size_t)s->n, sizeof s->uci[0], cmp_str);
}

static void arbiter_moves(const ply_arb_pos_t *p, move_set_t *s)
{
    ply_arb_move_t m[PLY_ARB_MAX_MOVES];
    s->n = ply_arb_legal_moves(p, m);
    for (int i = 0; i < s->n; i++) ply_arb_move_to_uci(p, m[i], s->uci[i]);
    qsort(s->uci, (size_t)s->n, sizeof s->uci[0], cmp_str);
}

/* 0 when equal; otherwise writes the first difference into @why. */
static int compare_sets(const move_set_t *fast, const move_set_t *ref, char *why, size_t len)
{
    int i = 0, j = 0;
    while (i < fast->n || j < ref->n) {
        int c = i == fast->n ? 1 : j == ref->n ? -1 : strcmp(fast->uci[i], ref->uci[j]);
        if (c < 0) {
            snprintf(why, len, "board has %s, arbiter does not", fast->uci[i]);
            return 1;
        }
        if (c > 0) {
            snprintf(why, len, "arbiter has %s, board does not", ref->uci[j]);
            return 1;
        }
        i++;
        j++;
    }
    return 0;
}

static uint64_t board_perft(const ply_board_t *b, int depth)
{
    if (depth == 1) return (uint64_t)ply_board_count_legal(b);
    ply_move_t m[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, m);
    uint64_t t = 0;
    for (int i = 0; i < n; i++) {
        ply_board_t c = *b;
        ply_board_play_nokey(&c, m[i]);
        t += board_perft(&c, depth - 1);
    }
    return t;
}

/* Length of the first three fields (placement, side, castling) of a FEN. */
static size_t prefix3(const char *fen)
{
    const char *p = fen;
    for (int spaces = 0; *p; p++)
        if (*p == ' ' && ++spaces == 3) break;
    return (size_t)(p - fen);
}

/* Play random games from @fen in both engines, comparing at every ply.
 * Returns the number of positions compared. */
static int play_games(const char *fen, int chess960, int games, int plies)
{
    int compared = 0;
    for (int g = 0; g < games; g++) {
        ply_board_t b;
        ply_arb_pos_t p;
        char why[256];
        if (ply_board_from_fen(&b, fen, chess960 ? PLY_BOARD_CHESS960 : 0, why, sizeof why))
            fail_msg("board rejects %s: %s", fen, why);
        if (ply_arb_from_fen(&p, fen, chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why))
            fail_msg("arbiter rejects %s: %s", fen, why);
        for (int ply = 0; ply < plies; ply++) {
            move_set_t fast, ref;
            board_moves(&b, &fast);
            arbiter_moves(&p, &ref);
            char fen_b[PLY_BOARD_FEN_MAX];
            ply_board_to_fen(&b, fen_b, sizeof fen_b);
            if (compare_sets(&fast, &ref, why, sizeof why)) fail_msg("%s: %s", fen_b, why);
            /* Same placement, side and castling rights. (The en-passant
             * field may differ: the board keeps a square a pawn attacks even
             * when the capture is illegal; the arbiter's identity keeps only
             * legal ones. Both are correct; the move sets above decide.) */
            char id[PLY_ARB_FEN_MAX];
            ply_arb_identity(&p, id, sizeof id);
            if (strncmp(fen_b, id, prefix3(id)) != 0) fail_msg("board %s, arbiter %s", fen_b, id);
            if ((compared++ % 16) == 0) { /* perft(3) on a sample keeps the test fast */
                uint64_t nb = board_perft(&b, 3), na = ply_arb_perft(&p, 3);
                if (nb != na) fail_msg("%s: perft(3) board %llu, arbiter %llu", fen_b,
                                       (unsigned long long)nb, (unsigned long long)na);
                /* and the perft kernel's, whose perft(2) nodes judge their
                 * children's pins, king squares and castling once for all
                 * of them (movegen_body.h, ply__child_hints) */
                uint64_t nk = 0;
                assert_int_equal(ply_perft(&b, 3, NULL, &nk), 0);
                if (nk != na) fail_msg("%s: perft(3) kernel %llu, arbiter %llu", fen_b,
                                       (unsigned long long)nk, (unsigned long long)na);
                /* and the fifteen statistics of perft(2): the fast engine
                 * classifies most leaves without playing them, the arbiter
                 * plays every one */
                ply_stats_t sb, sa;
                assert_int_equal(ply_perft_stats(&b, 2, NULL, &sb), 0);
                ply_arb_perft_stats(&p, 2, &sa);
                for (int k = 0; k < PLY_STATS_N; k++)
                    if (sb.v[k] != sa.v[k])
                        fail_msg("%s: perft(2) %s board %llu, arbiter %llu", fen_b, ply_stats_name(k),
                                 (unsigned long long)sb.v[k], (unsigned long long)sa.v[k]);
            }
            if (fast.n == 0) break;
            const char *pick = fast.uci[next_rand() % (unsigned)fast.n];
            ply_move_t bm;
            ply_arb_move_t am;
            assert_int_equal(ply_board_move_from_uci(&b, pick, &bm), 0);
            assert_int_equal(ply_arb_move_from_uci(&p, pick, &am), 0);
            ply_board_play(&b, bm);
            ply_arb_make(&p, am);
        }
    }
    return compared;
}

static void test_standard(void **state)
{
    (void)state;
    rng = 0xC0FFEE1234ull;
    int n = play_games("startpos", 0, 60, 160);
    n += play_games("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 0, 40, 120);
    n += play_games("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 0, 40, 120);
    n += play_games("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 0, 40, 120);
    print_message("standard: %d positions compared\n", n);
    assert_true(n > 5000);
}

static void test_chess960(void **state)
{
    (void)state;
    rng = 0x960960960ull;
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/ethereal-fischer.epd", PLY_TEST_DATA);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int n = 0, lines = 0;
    while (fgets(line, sizeof line, f)) {
        if (lines++ % 8) continue; /* 120 of the 960 start positions */
        char *semi = strchr(line, ';');
        if (!semi) continue;
        *semi = '\0';
        n += play_games(line, 1, 1, 120);
    }
    fclose(f);
    print_message("chess960: %d positions compared\n", n);
    assert_true(n > 5000);
}

/* The comparison itself must be able to fail: drop one move from the fast
 * engine's set, and add a made-up one, and it must report each. */
static void test_corrupted_comparison_fails(void **state)
{
    (void)state;
    ply_board_t b;
    ply_arb_pos_t p;
    ply_board_startpos(&b);
    ply_arb_startpos(&p);
    move_set_t fast, ref;
    board_moves(&b, &fast);
    arbiter_moves(&p, &ref);
    char why[256];
    assert_int_equal(compare_sets(&fast, &ref, why, sizeof why), 0);
    fast.n--; /* lose the last move */
    assert_int_equal(compare_sets(&fast, &ref, why, sizeof why), 1);
    assert_non_null(strstr(why, "arbiter has"));
    fast.n++;
    strcpy(fast.uci[fast.n - 1], "h2h5"); /* h2h4 replaced by an illegal move */
    assert_int_equal(compare_sets(&fast, &ref, why, sizeof why), 1);
    assert_non_null(strstr(why, "h2h4"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corrupted_comparison_fails),
        cmocka_unit_test(test_standard),
        cmocka_unit_test(test_chess960),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
