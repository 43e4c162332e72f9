/*
 * Unit tests of worker/engine/nnue.c, the evaluation network.
 *
 * The oracles are independent of nnue.c: the nets are random-weight files
 * written from the contract's layout (tests/support/nnue_random.h), and the
 * expected evaluation is computed here from the file's bytes by the
 * contract's formula, straightforwardly (every square of the board, int64
 * sums, and the float network the trainer fits), never through nnue.c's
 * internals. The incremental accumulator is compared with a full refresh
 * after every move of long random games (standard chess and the 960
 * Chess960 positions of tests/data/ethereal-fischer.epd), and the SIMD path
 * with the portable one.
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

#include "board/movegen.h"
#include "nnue.h"
#include "nnue_random.h"
#include "search.h"
#include "test_rng.h"
#include "util/error.h"

#define H 64 /* a small net: the arithmetic is the same for any H */

static const char *const fens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
};

static ply_board_t board_of(const char *fen, unsigned flags)
{
    ply_board_t b;
    char why[128] = "";
    if (ply_board_from_fen(&b, fen, flags, why, sizeof why)) fail_msg("bad FEN %s: %s", fen, why);
    return b;
}

static ply_nnue_t *load(const uint8_t *buf, size_t len)
{
    char why[256] = "";
    ply_nnue_t *net = ply_nnue_load_mem(buf, len, why, sizeof why);
    if (!net) fail_msg("a valid net was refused: %s", why);
    return net;
}

/* ---------------------------------------------------------------- the reference */

static int32_t rd32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

static int rd16(const uint8_t *p)
{
    return (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

/* The contract's evaluation, from the file's bytes (@f), of @b: every square, every
 * perspective, int64 sums. *@fl gets the float network's eval_cp (out * SCALE). */
static int reference_eval(const uint8_t *f, const ply_board_t *b, double *fl)
{
    const int h = rd32(f + 16), dl = rd32(f + 32);
    const uint8_t *w1 = f + 36 + dl, *b1 = w1 + 2 * 768 * h, *w2 = b1 + 2 * h, *b2 = w2 + 4 * h;
    int64_t acc[2][1024];
    double accf[2][1024];
    for (int p = 0; p < 2; p++)
        for (int j = 0; j < h; j++) {
            acc[p][j] = rd16(b1 + 2 * j);
            for (int sq = 0; sq < 64; sq++) {
                int colour, t = ply_board_piece_on(b, sq, &colour);
                if (t == PLY_NONE) continue;
                const int sp = p == PLY_WHITE ? sq : sq ^ 56;
                const int idx = (colour == p ? 0 : 1) * 384 + (t - 1) * 64 + sp;
                acc[p][j] += rd16(w1 + 2 * ((size_t)idx * h + j));
            }
            accf[p][j] = (double)acc[p][j] / 255.0;
        }
    const int stm = b->side;
    int64_t v = rd32(b2);
    double out = rd32(b2) / (255.0 * 1024.0);
    for (int j = 0; j < h; j++) {
        const int64_t a = acc[stm][j] < 0 ? 0 : acc[stm][j] > 255 ? 255 : acc[stm][j];
        const int64_t c = acc[!stm][j] < 0 ? 0 : acc[!stm][j] > 255 ? 255 : acc[!stm][j];
        v += a * rd16(w2 + 2 * j) + c * rd16(w2 + 2 * (h + j));
        const double af = accf[stm][j] < 0 ? 0 : accf[stm][j] > 1 ? 1 : accf[stm][j];
        const double cf = accf[!stm][j] < 0 ? 0 : accf[!stm][j] > 1 ? 1 : accf[!stm][j];
        out += af * rd16(w2 + 2 * j) / 1024.0 + cf * rd16(w2 + 2 * (h + j)) / 1024.0;
    }
    *fl = out * 400;
    int64_t cp = v * 400 / (255 * 1024); /* C truncates toward zero, as the contract says */
    const int64_t lim = PLY_SCORE_MATE_MIN - 1;
    return (int)(cp > lim ? lim : cp < -lim ? -lim : cp);
}

/* ---------------------------------------------------------------- random games */

typedef struct {
    int moves, captures, castles, eps, promos;
} tally_t;

/* One move of @b at random, special moves (castling, en passant, promotion) first
 * when there are some, half of the time, so that the games play them often. */
static ply_move_t random_move(const ply_board_t *b)
{
    ply_move_t ms[PLY_MAX_MOVES], special[PLY_MAX_MOVES];
    const int n = ply_board_legal_moves(b, ms);
    if (n == 0) return 0;
    int ns = 0;
    for (int i = 0; i < n; i++) {
        const int k = ply_move_kind(ms[i]);
        if (k == PLY_MOVE_CASTLE || k == PLY_MOVE_EP || ply_move_is_promo(ms[i]) ||
            (k == PLY_MOVE_DOUBLE && rnd(4) == 0))
            special[ns++] = ms[i];
    }
    if (ns && rnd(2)) return special[rnd((uint32_t)ns)];
    return ms[rnd((uint32_t)n)];
}

static void same_acc(const ply_nnue_acc_t *a, const ply_nnue_acc_t *b, int h, const char *what,
                     int ply)
{
    for (int p = 0; p < 2; p++)
        if (memcmp(a->acc[p], b->acc[p], sizeof(int16_t) * (size_t)h))
            fail_msg("%s: the incremental accumulator (perspective %d) differs from a refresh "
                     "after ply %d",
                     what, p, ply);
}

/* A random game of up to @plies from @b: after every move, the update equals a refresh. */
static void game(const ply_nnue_t *net, ply_board_t b, int plies, const char *what, tally_t *t)
{
    const int h = ply_nnue_hidden(net);
    static ply_nnue_acc_t inc, fresh;
    ply_nnue_refresh(net, &b, &inc);
    for (int ply = 0; ply < plies; ply++) {
        const ply_move_t m = random_move(&b);
        if (!m) break;
        const int k = ply_move_kind(m);
        t->moves++;
        t->castles += k == PLY_MOVE_CASTLE;
        t->eps += k == PLY_MOVE_EP;
        t->promos += ply_move_is_promo(m);
        t->captures += k != PLY_MOVE_CASTLE && (b.colour[b.side ^ 1] & ply_bb(ply_move_to(m)));
        ply_nnue_update(net, &inc, &b, m, &inc);
        ply_board_play(&b, m);
        ply_nnue_refresh(net, &b, &fresh);
        same_acc(&inc, &fresh, h, what, ply);
        /* a null move (0) is a copy */
        static ply_nnue_acc_t copy;
        ply_nnue_update(net, &inc, &b, 0, &copy);
        same_acc(&copy, &fresh, h, what, ply);
        if (ply_popcount(ply_board_occ(&b)) <= 3) break;
    }
}

static void test_incremental_equals_refresh(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = ply_test_nnue_random(H, 11, 40, 128, "{}", &len);
    ply_nnue_t *net = load(buf, len);
    tally_t t = {0};
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++)
        for (int g = 0; g < 20; g++) game(net, board_of(fens[i], 0), 300, fens[i], &t);
    /* Chess960: every 8th of the 960 positions of ethereal-fischer.epd, 3 games each */
    FILE *f = fopen(PLY_TEST_DATA "/ethereal-fischer.epd", "r");
    assert_non_null(f);
    char line[512];
    int n960 = 0, castles_std = t.castles;
    for (int ln = 0; fgets(line, sizeof line, f); ln++) {
        if (ln % 8) continue;
        line[strcspn(line, ";")] = 0;
        for (int g = 0; g < 3; g++) game(net, board_of(line, PLY_BOARD_CHESS960), 300, line, &t);
        n960++;
    }
    fclose(f);
    assert_int_equal(n960, 120);
    /* the games played every kind of move the update handles, many times */
    print_message("%d moves: %d captures, %d castlings (%d in Chess960), %d en passant, %d "
                  "promotions\n",
                  t.moves, t.captures, t.castles, t.castles - castles_std, t.eps, t.promos);
    assert_true(t.captures > 1000 && t.castles - castles_std > 100 && castles_std > 50);
    assert_true(t.eps > 50 && t.promos > 100);
    ply_nnue_destroy(&net);
    free(buf);
}

/* ---------------------------------------------------------------- the formula */

/* The positions of random games from the test FENs, @per of each. */
static int positions(ply_board_t *out, int max, int per)
{
    int n = 0;
    for (size_t i = 0; i < sizeof fens / sizeof *fens && n < max; i++) {
        ply_board_t b = board_of(fens[i], 0);
        for (int k = 0; k < per && n < max; k++) {
            out[n++] = b;
            const ply_move_t m = random_move(&b);
            if (!m)
                b = board_of(fens[i], 0);
            else
                ply_board_play(&b, m);
        }
    }
    return n;
}

static void check_reference(const uint8_t *buf, size_t len, const char *what, int float_too)
{
    ply_nnue_t *net = load(buf, len);
    static ply_board_t bs[2000];
    const int n = positions(bs, 2000, 250);
    int nonzero = 0, lo = PLY_SCORE_INF, hi = -PLY_SCORE_INF;
    for (int i = 0; i < n; i++) {
        double fl;
        const int want = reference_eval(buf, &bs[i], &fl);
        const int got = ply_nnue_eval_board(net, &bs[i]);
        if (got != want) {
            char fen[PLY_BOARD_FEN_MAX];
            ply_board_to_fen(&bs[i], fen, sizeof fen);
            fail_msg("%s: %s: the engine says %d, the contract's formula %d", what, fen, got, want);
        }
        /* the float network is the integer one scaled: they differ by the truncation only */
        if (float_too && (fl - got >= 1.0 + 1e-6 || got - fl >= 1.0 + 1e-6))
            fail_msg("%s: integer %d against the float network's %.4f", what, got, fl);
        nonzero += got != 0;
        lo = got < lo ? got : lo, hi = got > hi ? got : hi;
    }
    /* the nets give varied scores, so that equality means something */
    if (!(nonzero > n * 9 / 10 && hi - lo > 300))
        print_message("%s: %d positions, %d nonzero, from %d to %d\n", what, n, nonzero, lo, hi);
    assert_true(nonzero > n * 9 / 10 && hi - lo > 300);
    ply_nnue_destroy(&net);
}

static void test_reference_formula(void **state)
{
    (void)state;
    size_t len;
    for (int h = 32; h <= 1024; h *= 2) { /* and H not a power of two below */
        uint8_t *buf = ply_test_nnue_random(h, (uint64_t)h * 7 + 1, 40, 128, "{\"h\":1}", &len);
        check_reference(buf, len, "random net", 1);
        free(buf);
    }
    uint8_t *buf = ply_test_nnue_random(96, 5, 40, 128, "", &len);
    check_reference(buf, len, "H 96", 1);
    free(buf);
}

/* The network sees each side from its own side (the features flip the board for black):
 * so any net, trained or random, gives a position and its colour-mirrored twin (ranks
 * reversed, colours swapped, the other side to move) the same evaluation. */
static void test_colour_symmetry(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = ply_test_nnue_random(128, 21, 40, 128, "", &len);
    ply_nnue_t *net = load(buf, len);
    static ply_board_t bs[1500];
    const int n = positions(bs, 1500, 200);
    for (int i = 0; i < n; i++) {
        ply_board_t m = bs[i];
        for (int t = PLY_PAWN; t <= PLY_KING; t++) m.pieces[t] = __builtin_bswap64(bs[i].pieces[t]);
        m.colour[PLY_WHITE] = __builtin_bswap64(bs[i].colour[PLY_BLACK]);
        m.colour[PLY_BLACK] = __builtin_bswap64(bs[i].colour[PLY_WHITE]);
        m.side = (uint8_t)(bs[i].side ^ 1);
        const int a = ply_nnue_eval_board(net, &bs[i]), b = ply_nnue_eval_board(net, &m);
        if (a != b) fail_msg("position %d: %d, its mirror %d", i, a, b);
    }
    ply_nnue_destroy(&net);
    free(buf);
}

/* ---------------------------------------------------------------- SIMD and portable */

static void test_simd_equals_portable(void **state)
{
    (void)state;
    if (ply_nnue_set_kernel(PLY_NNUE_KERNEL_AVX2) < 0) {
        print_message("no SIMD path on this CPU or build: nothing to compare\n");
        skip();
    }
    static ply_board_t bs[3000];
    const int n = positions(bs, 3000, 400);
    /* an ordinary net, one at the training clip's edges (|W1| up to 1.98 * 255, |W2| up to
     * 2 * 1024), ones beyond them (|W2| up to 32704: the int32 sums wrap, alike on every
     * path), and H at the tile edges (32, 96, 160) */
    const struct {
        int h, w1, w2;
    } nets[] = {{256, 40, 128},   {1024, 505, 2048}, {1024, 505, 32704},
                {32, 505, 32704}, {96, 40, 128},     {160, 300, 20000}};
    for (size_t k = 0; k < sizeof nets / sizeof *nets; k++) {
        size_t len;
        uint8_t *buf = ply_test_nnue_random(nets[k].h, 100 + k, nets[k].w1, nets[k].w2, "", &len);
        ply_nnue_t *net = load(buf, len);
        static ply_nnue_acc_t a_simd, a_port;
        for (int i = 0; i < n; i++) {
            ply_move_t ms[PLY_MAX_MOVES];
            const int nm = ply_board_legal_moves(&bs[i], ms);
            const ply_move_t m = nm ? ms[rnd((uint32_t)nm)] : 0;
            int e_simd[2], e_port[2];
            assert_int_equal(ply_nnue_set_kernel(PLY_NNUE_KERNEL_PORTABLE), 0);
            ply_nnue_refresh(net, &bs[i], &a_port);
            e_port[0] = ply_nnue_evaluate(net, &a_port, bs[i].side);
            ply_nnue_update(net, &a_port, &bs[i], m, &a_port);
            e_port[1] = ply_nnue_evaluate(net, &a_port, bs[i].side ^ 1);
            assert_int_equal(ply_nnue_set_kernel(PLY_NNUE_KERNEL_AVX2), 0);
            ply_nnue_refresh(net, &bs[i], &a_simd);
            e_simd[0] = ply_nnue_evaluate(net, &a_simd, bs[i].side);
            ply_nnue_update(net, &a_simd, &bs[i], m, &a_simd);
            e_simd[1] = ply_nnue_evaluate(net, &a_simd, bs[i].side ^ 1);
            same_acc(&a_simd, &a_port, nets[k].h, "SIMD against portable", i);
            if (e_simd[0] != e_port[0] || e_simd[1] != e_port[1])
                fail_msg("net %zu position %d: SIMD %d %d, portable %d %d", k, i, e_simd[0],
                         e_simd[1], e_port[0], e_port[1]);
        }
        ply_nnue_destroy(&net);
        free(buf);
    }
    assert_string_equal(ply_nnue_kernel_name(), "avx2");
}

/* ---------------------------------------------------------------- refusals */

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* the checksum made right again after a change, so that the field's own check refuses */
static void reseal(uint8_t *buf, size_t len)
{
    const uint64_t c = ply_test_fnv1a64(buf, len - 8);
    for (int i = 0; i < 8; i++) buf[len - 8 + i] = (uint8_t)(c >> (8 * i));
}

static void refused(const uint8_t *buf, size_t len, const char *needle)
{
    char why[256] = "";
    ply_nnue_t *net = ply_nnue_load_mem(buf, len, why, sizeof why);
    if (net) fail_msg("a net with a bad %s was accepted", needle);
    if (!strstr(why, needle)) fail_msg("the reason '%s' does not name '%s'", why, needle);
}

static void test_refused(void **state)
{
    (void)state;
    size_t len;
    uint8_t *good = ply_test_nnue_random(H, 3, 40, 128, "{\"data\":\"none\"}", &len);
    uint8_t *b = malloc(len + 16);
    const size_t dl = 15, w1 = 36 + dl;
    struct {
        size_t off;
        uint32_t v;
        const char *needle;
    } fields[] = {
        {8, 2, "version at offset 8 is 2"},    {12, 769, "inputs at offset 12"},
        {16, 48, "hidden at offset 16 is 48"}, {16, 0, "hidden at offset 16"},
        {16, 2048, "hidden at offset 16"},     {20, 127, "qa at offset 20"},
        {24, 128, "qb at offset 24"},          {28, 600, "scale at offset 28"},
        {32, 65537, "desc_len at offset 32"},  {32, 16, "truncated"},
        {32, 14, "1 trailing bytes"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        memcpy(b, good, len);
        put32(b + fields[i].off, fields[i].v);
        reseal(b, len);
        refused(b, len, fields[i].needle);
    }
    memcpy(b, good, len);
    b[3] ^= 0x20; /* "PLYnNUE1" */
    refused(b, len, "magic at offset 0");
    /* a flipped bit anywhere in the weights, the description, the checksum */
    const size_t at[] = {36, w1, w1 + 1000, len - 13, len - 9, len - 8, len - 1};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        memcpy(b, good, len);
        b[at[i]] ^= 0x04;
        refused(b, len, "checksum at offset");
    }
    /* truncated anywhere, or with a byte more */
    const size_t cut[] = {0, 7, 35, 36, w1 + 10, len / 2, len - 8, len - 1};
    for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) refused(good, cut[i], "truncated");
    memcpy(b, good, len);
    b[len] = 0;
    refused(b, len + 1, "1 trailing bytes");
    /* the same through a file: the path is named too */
    char path[] = "/tmp/test_nnue_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, good, len - 100), (ssize_t)(len - 100));
    close(fd);
    char why[512] = "";
    assert_null(ply_nnue_load_file(path, why, sizeof why));
    assert_non_null(strstr(why, path));
    assert_non_null(strstr(why, "truncated"));
    assert_null(ply_nnue_load_file("/nonexistent/ply.nnue", why, sizeof why));
    assert_non_null(strstr(why, "/nonexistent/ply.nnue"));
    /* and the good one loads, from memory and from a file, with its description */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(good, 1, len, f), len);
    fclose(f);
    ply_nnue_t *net = ply_nnue_load_file(path, why, sizeof why);
    assert_non_null(net);
    assert_int_equal(ply_nnue_hidden(net), H);
    assert_string_equal(ply_nnue_desc(net), "{\"data\":\"none\"}");
    ply_nnue_destroy(&net);
    ply_nnue_destroy(&net); /* idempotent */
    unlink(path);
    free(b);
    free(good);
}

/* The build embeds worker/engine/nets/ply.nnue when it exists: either none, said so, or a
 * net that passed every check. */
static void test_embedded(void **state)
{
    (void)state;
    char why[256] = "";
    const ply_nnue_t *net = ply_nnue_embedded(why, sizeof why);
    if (net) {
        assert_true(ply_nnue_hidden(net) >= 32 && ply_nnue_hidden(net) <= 1024);
        print_message("embedded net: H %d, %s\n", ply_nnue_hidden(net), ply_nnue_desc(net));
    } else {
        assert_non_null(strstr(why, "net"));
        print_message("%s\n", why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_embedded),
        cmocka_unit_test(test_reference_formula),
        cmocka_unit_test(test_colour_symmetry),
        cmocka_unit_test(test_incremental_equals_refresh),
        cmocka_unit_test(test_simd_equals_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
