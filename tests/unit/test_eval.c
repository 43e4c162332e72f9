/*
 * Unit tests of worker/engine/eval.c (SEE, worker/engine/see.c, is test_see.c's).
 *
 * The evaluation has no external oracle, so it is tested by properties that
 * any sound evaluation has: colour symmetry (a position and its colour-flipped
 * mirror score the same for the side to move), draw-ish material near 0, and
 * orderings a chess player would state (an extra queen is worth far more than
 * an extra pawn, ...). "test_eval --speed" times the evaluation and SEE.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "board/movegen.h"
#include "eval.h"
#include "util/error.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static ply_board_t board_of(const char *fen)
{
    ply_board_t b;
    char why[128] = "";
    int rc = ply_board_from_fen(&b, fen, 0, why, sizeof why);
    if (rc != 0) fail_msg("bad test FEN %s: %s", fen, why);
    return b;
}

static int eval_of(const char *fen)
{
    ply_board_t b = board_of(fen);
    return ply_eval(&b);
}

/*
 * The colour-flipped FEN of @fen: ranks mirrored, piece colours swapped,
 * the other side to move, castling rights and the en-passant square
 * mirrored. Written here from the FEN definition, independently of the board.
 */
static void flip_fen(const char *fen, char *out, size_t len)
{
    char placement[100], side[4], castling[16], ep[4];
    int n = sscanf(fen, "%99s %3s %15s %3s", placement, side, castling, ep);
    assert_int_equal(n, 4);
    const char *rank[8];
    int nr = 0;
    rank[nr++] = placement;
    for (char *p = placement; *p; p++)
        if (*p == '/') {
            *p = '\0';
            rank[nr++] = p + 1;
        }
    assert_int_equal(nr, 8);
    char flipped[100] = "";
    for (int r = 7; r >= 0; r--) {
        size_t at = strlen(flipped);
        for (const char *p = rank[r]; *p; p++)
            flipped[at++] = isupper((unsigned char)*p) ? (char)tolower((unsigned char)*p)
                                                       : (char)toupper((unsigned char)*p);
        flipped[at] = '\0';
        if (r) strcat(flipped, "/");
    }
    for (char *p = castling; *p; p++)
        if (*p != '-')
            *p = isupper((unsigned char)*p) ? (char)tolower((unsigned char)*p)
                                            : (char)toupper((unsigned char)*p);
    if (ep[0] != '-') ep[1] = ep[1] == '3' ? '6' : '3';
    snprintf(out, len, "%s %s %s %s 0 1", flipped, side[0] == 'w' ? "b" : "w", castling, ep);
}

static void check_symmetric(const ply_board_t *b)
{
    char fen[PLY_BOARD_FEN_MAX], flipped[PLY_BOARD_FEN_MAX + 8];
    assert_true(ply_board_to_fen(b, fen, sizeof fen) > 0);
    flip_fen(fen, flipped, sizeof flipped);
    ply_board_t f;
    char why[128] = "";
    int rc = ply_board_from_fen(&f, flipped, b->chess960 ? PLY_BOARD_CHESS960 : 0, why, sizeof why);
    if (rc != 0) fail_msg("flip of %s gave %s: %s", fen, flipped, why);
    int v = ply_eval(b), fv = ply_eval(&f);
    if (v != fv) fail_msg("eval %d of %s but %d of its mirror %s", v, fen, fv, flipped);
}

/* Every position of @file (FEN first on each line) and positions reached by
 * random legal moves from it evaluate like their colour-flipped mirrors.
 * Returns the number of positions checked. */
static int symmetry_over(const char *file, int flags, int every)
{
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%s", PLY_TEST_DATA, file);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    int checked = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        if (lineno++ % every) continue;
        char *semi = strchr(line, ';');
        if (semi) *semi = '\0';
        ply_board_t b;
        if (ply_board_from_fen(&b, line, (unsigned)flags, NULL, 0) != 0) continue;
        for (int ply = 0; ply < 40; ply++) {
            if (ply % 8 == 0 && !ply_board_checkers(&b)) {
                check_symmetric(&b);
                checked++;
            }
            ply_move_t moves[PLY_MAX_MOVES];
            int n = ply_board_legal_moves(&b, moves);
            if (n == 0) break;
            ply_board_play(&b, moves[next_rand() % (uint64_t)n]);
        }
    }
    fclose(f);
    return checked;
}

static void test_colour_symmetry(void **state)
{
    (void)state;
    int n = symmetry_over("perftsuite.epd", 0, 1);
    n += symmetry_over("ethereal-fischer.epd", PLY_BOARD_CHESS960, 10);
    assert_true(n >= 300);
}

/* An extra queen is worth much more than an extra pawn, and both are good. */
static void test_material_order(void **state)
{
    (void)state;
    int equal = eval_of("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1");
    int pawn = eval_of("4k3/ppppppp1/8/8/8/8/PPPPPPPP/4K3 w - - 0 1");
    int queen = eval_of("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1");
    assert_true(pawn > equal + 50);
    assert_true(queen > pawn + 600);
    /* From the other side's point of view the same positions are bad. */
    assert_true(eval_of("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 b - - 0 1") < -700);
}

/* Material that cannot win (or hardly) evaluates to 0 or within a few centipawns of it. */
static void test_drawish_material(void **state)
{
    (void)state;
    static const char *const zero[] = {
        "8/8/3k4/8/8/4K3/8/8 w - - 0 1",     /* KK */
        "8/8/3k4/8/8/4K3/8/6N1 w - - 0 1",   /* KNK */
        "8/8/3k4/8/8/4K3/8/5B2 b - - 0 1",   /* KBK */
        "8/8/3k4/8/8/4K3/8/1N4N1 w - - 0 1", /* KNNK */
        "r7/8/3k4/8/8/4K3/8/7R w - - 0 1",   /* KRKR */
        "q7/8/3k4/8/8/4K3/8/7Q b - - 0 1",   /* KQKQ */
    };
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++) {
        int v = eval_of(zero[i]);
        if (v != 0) fail_msg("%s: %d, not 0", zero[i], v);
    }
    static const char *const near[] = {
        "8/8/3k1n2/8/8/4K3/8/5B2 w - - 0 1",                                      /* KBKN */
        "8/8/3k1n2/8/8/4K3/8/5B2 b - - 0 1", "8/8/3k1b2/8/8/4K3/8/6N1 w - - 0 1", /* KNKB */
    };
    for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
        int v = eval_of(near[i]);
        if (v < -10 || v > 10) fail_msg("%s: %d, not near 0", near[i], v);
    }
    /* A minor piece ahead without pawns (Fruit's 1/8): the exchange or a
     * knight ahead is worth a fraction of its material. */
    static const char *const small[] = {
        "8/8/3k1b2/8/8/4K3/8/7R w - - 0 1",  /* KRKB */
        "r7/8/3k4/8/8/4K3/8/5N1R w - - 0 1", /* KRNKR */
    };
    for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
        int v = eval_of(small[i]);
        if (v <= 0 || v > 60) fail_msg("%s: %d, not in (0, 60]", small[i], v);
    }
    /* A rook or queen up without pawns is not draw-ish. */
    assert_true(eval_of("8/8/3k4/8/8/4K3/8/6RR w - - 0 1") > 500);
    assert_true(eval_of("r7/8/3k4/8/8/4K3/8/6QR w - - 0 1") > 400);
}

/* KBNK: with a dark-squared bishop the lone king belongs in a1 or h8; the
 * evaluation prefers it there to the light corner a8, even with the white
 * king nearer a8 (which the king-proximity term rewards). */
static void test_kbnk_corner(void **state)
{
    (void)state;
    int right = eval_of("8/8/2K5/6N1/8/4B3/8/k7 w - - 0 1");
    int wrong = eval_of("k7/8/2K5/6N1/8/4B3/8/8 w - - 0 1");
    assert_true(right > wrong);
    /* and the same with colours reversed: light bishop, corner h1 against h8 */
    int right_l = eval_of("8/8/4b3/8/8/2n5/5k2/7K b - - 0 1");
    int wrong_l = eval_of("7K/8/4bk2/8/8/2n5/8/8 b - - 0 1");
    assert_true(right_l > wrong_l);
    /* KBNK is won: well above the minor pieces' worth */
    assert_true(wrong > 600);
}

/* A lone king against a rook: pushed to the edge is better for the rook's side. */
static void test_mop_up(void **state)
{
    (void)state;
    int centre = eval_of("8/8/8/3k4/8/8/8/R3K3 w - - 0 1");
    int edge = eval_of("3k4/8/8/8/8/8/8/R3K3 w - - 0 1");
    assert_true(edge > centre);
    assert_true(centre > 500);
}

/* A passed pawn on the 7th rank is worth more than one on the 3rd. */
static void test_passed_rank(void **state)
{
    (void)state;
    int seventh = eval_of("r5k1/P5pp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    int third = eval_of("r5k1/6pp/8/8/8/P7/5PPP/R5K1 w - - 0 1");
    assert_true(seventh > third + 50);
    /* pawn endgame: the lone king outside the square cannot stop it */
    int free = eval_of("8/8/P7/8/8/8/7k/4K3 w - - 0 1");
    int caught = eval_of("2k5/8/P7/8/8/8/8/4K3 w - - 0 1");
    assert_true(free > caught + 200);
}

/* The same extra pawn with opposite-coloured bishops is worth less. */
static void test_opposite_bishops(void **state)
{
    (void)state;
    int opposite = eval_of("4k3/pp6/8/7b/3B4/8/PPP5/4K3 w - - 0 1");
    int same = eval_of("4k3/pp6/7b/8/3B4/8/PPP5/4K3 w - - 0 1");
    assert_true(same > 0);
    assert_true(opposite > 0);
    assert_true(opposite * 4 < same * 3);
}

static void test_eval_bounds(void **state)
{
    (void)state;
    /* Nine queens against a bare king stays below the mate scores. */
    int v = eval_of("k7/8/8/8/8/8/2QQQQ1Q/2QQQQ1K w - - 0 1");
    assert_true(v > 3000);
    assert_true(v < 32000 - 128);
}

/*
 * `test_eval --speed`: evaluations and SEE calls per second over the
 * positions of the perft suite and random games from them (a figure to
 * report, not a test).
 */
static int speed(void)
{
    enum { N = 4096 };
    static ply_board_t pos[N];
    static ply_move_t cap[N];
    static ply_board_t cap_pos[N];
    int n = 0, nc = 0;
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/perftsuite.epd", PLY_TEST_DATA);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    while (fgets(line, sizeof line, f) && n < N) {
        char *semi = strchr(line, ';');
        if (semi) *semi = '\0';
        ply_board_t b;
        if (ply_board_from_fen(&b, line, 0, NULL, 0) != 0) continue;
        for (int ply = 0; ply < 30 && n < N; ply++) {
            ply_move_t moves[PLY_MAX_MOVES];
            int k = ply_board_legal_moves(&b, moves);
            if (k == 0) break;
            pos[n++] = b;
            for (int i = 0; i < k && nc < N; i++)
                if (ply_board_piece_on(&b, ply_move_to(moves[i]), NULL) != PLY_NONE) {
                    cap_pos[nc] = b;
                    cap[nc++] = moves[i];
                }
            ply_board_play(&b, moves[next_rand() % (uint64_t)k]);
        }
    }
    fclose(f);
    const int rounds = 500;
    volatile long sink = 0;
    clock_t t0 = clock();
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) sink += ply_eval(&pos[i]);
    double te = (double)(clock() - t0) / CLOCKS_PER_SEC;
    t0 = clock();
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nc; i++) sink += ply_see_ge(&cap_pos[i], cap[i], (r & 3) * 100 - 100);
    double ts = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("%d positions: %.0f evals/s; %d captures: %.0f SEE/s (checksum %ld)\n", n,
           rounds * (double)n / te, nc, rounds * (double)nc / ts, (long)sink);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--speed") == 0) return speed();
    if (argc > 2 && strcmp(argv[1], "--eval") == 0) { /* test_eval --eval FEN...: print ply_eval */
        for (int i = 2; i < argc; i++) {
            ply_board_t b;
            if (ply_board_from_fen(&b, argv[i], 0, NULL, 0) == 0)
                printf("%6d  %s\n", ply_eval(&b), argv[i]);
        }
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colour_symmetry), cmocka_unit_test(test_material_order),
        cmocka_unit_test(test_eval_bounds),     cmocka_unit_test(test_drawish_material),
        cmocka_unit_test(test_kbnk_corner),     cmocka_unit_test(test_mop_up),
        cmocka_unit_test(test_passed_rank),     cmocka_unit_test(test_opposite_bishops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
