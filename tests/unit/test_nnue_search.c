/*
 * The search with the evaluation network (worker/engine/search.c, nnue.h): its
 * accumulators by ply against a refresh of the board at every node it enters
 * (ply__search_check_acc), on one thread and on two, in standard chess and
 * Chess960, with captures, en passant, promotions, castling and null moves;
 * the same answer twice on one thread (determinism); the search's draws kept
 * whatever the net says (FIDE Laws art. 9.3 fifty moves, 5.2.2 / 9.6.2 dead
 * material); a mate found (WAC.027, Reinfeld's Win at Chess: mate in 2, as
 * Debian's Stockfish 15.1 says); and the hand-written evaluation unchanged by a
 * net used before. The nets are random (tests/support/nnue_random.h): one that
 * evaluates the material with noise, so that the search behaves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nnue.h"
#include "nnue_random.h"
#include "search.h"

static ply_nnue_t *net;

static int setup(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = ply_test_nnue_material(128, 5, 3, "{}", &len);
    char why[256];
    net = buf ? ply_nnue_load_mem(buf, len, why, sizeof why) : NULL;
    free(buf);
    return net ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ply_nnue_destroy(&net);
    return 0;
}

static void search(ply_engine_t *e, const char *fen, int chess960, uint64_t nodes, int depth,
                   ply_search_result_t *r)
{
    static ply_search_pos_t pos;
    char why[256] = "";
    if (ply_search_pos_set(&pos, fen, chess960, NULL, 0, why, sizeof why))
        fail_msg("%s: %s", fen, why);
    ply_search_limits_t lim;
    ply_search_limits_init(&lim);
    lim.nodes = nodes;
    lim.depth = depth;
    assert_int_equal(ply_engine_search(e, &pos, &lim, NULL, NULL, r), 0);
}

/* Positions with every kind of move: perft positions 2-6 (chessprogramming wiki "Perft
 * Results": castling both ways, en passant, promotions with capture), and Chess960
 * positions of tests/data/ethereal-fischer.epd lines 1-3 (castling king-takes-rook). */
static const struct {
    const char *fen;
    int chess960;
} positions[] = {
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 0},
    {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 0},
    {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 0},
    {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 0},
    {"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 0},
    {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 1},
    {"2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", 1},
    {"b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", 1},
};

static void test_accumulators_in_search(void **state)
{
    (void)state;
    static ply_search_result_t r;
    ply__search_check_acc = 1;
    for (int threads = 1; threads <= 2; threads++) {
        ply_engine_t *e = ply_engine_new(8, threads);
        assert_non_null(e);
        ply_engine_set_net(e, net);
        assert_ptr_equal(ply_engine_net(e), net);
        for (size_t i = 0; i < sizeof positions / sizeof *positions; i++)
            search(e, positions[i].fen, positions[i].chess960, 30000, 0, &r);
        ply_engine_destroy(&e);
    }
    ply__search_check_acc = 0;
    print_message("%llu accumulators checked\n", (unsigned long long)ply__search_acc_checks);
    assert_int_equal(ply__search_acc_errors, 0);
    assert_true(ply__search_acc_checks > 200000);
}

static void same_result(const ply_search_result_t *a, const ply_search_result_t *b)
{
    assert_int_equal(a->best, b->best);
    assert_int_equal(a->nodes, b->nodes);
    assert_int_equal(a->lines[0].score, b->lines[0].score);
    assert_int_equal(a->lines[0].depth, b->lines[0].depth);
    assert_int_equal(a->lines[0].n_pv, b->lines[0].n_pv);
    assert_memory_equal(a->lines[0].pv, b->lines[0].pv, sizeof(ply_move_t) * a->lines[0].n_pv);
}

static void test_deterministic(void **state)
{
    (void)state;
    static ply_search_result_t r1, r2, classical;
    ply_engine_t *e = ply_engine_new(16, 1), *plain = ply_engine_new(16, 1);
    ply_engine_set_net(plain, NULL);
    int differ = 0;
    for (size_t i = 0; i < sizeof positions / sizeof *positions; i++) {
        ply_engine_set_net(e, net);
        ply_engine_clear(e);
        search(e, positions[i].fen, positions[i].chess960, 50000, 0, &r1);
        ply_engine_clear(e);
        search(e, positions[i].fen, positions[i].chess960, 50000, 0, &r2);
        same_result(&r1, &r2);
        /* the hand-written evaluation again: as an engine that never had a net */
        ply_engine_set_net(e, NULL);
        ply_engine_clear(e);
        search(e, positions[i].fen, positions[i].chess960, 50000, 0, &r2);
        ply_engine_clear(plain);
        search(plain, positions[i].fen, positions[i].chess960, 50000, 0, &classical);
        same_result(&r2, &classical);
        differ += r1.lines[0].score != classical.lines[0].score || r1.best != classical.best;
    }
    /* the net is what evaluated */
    assert_true(differ >= 4);
    ply_engine_destroy(&e);
    ply_engine_destroy(&plain);
}

static void test_draws_and_mates(void **state)
{
    (void)state;
    static ply_search_result_t r;
    ply_engine_t *e = ply_engine_new(8, 1);
    ply_engine_set_net(e, net);
    /* K+N against K: no mate is possible (dead position), the net's +300 or so aside */
    search(e, "8/8/4k3/8/8/3NK3/8/8 w - - 0 1", 0, 0, 8, &r);
    assert_int_equal(r.lines[0].score, 0);
    /* the fifty moves have been played without a capture or a pawn move: a draw */
    search(e, "8/8/4k3/8/8/3QK3/8/8 w - - 100 120", 0, 0, 6, &r);
    assert_int_equal(r.lines[0].score, 0);
    /* a queen up otherwise: the net sees the material */
    search(e, "8/8/4k3/8/8/3QK3/8/8 w - - 0 1", 0, 0, 6, &r);
    assert_true(r.lines[0].score > 500);
    /* WAC.027: mate in 2, 1. Qf8+ Rxf8 2. Rxf8# */
    search(e, "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1", 0, 0, 6, &r);
    assert_int_equal(ply_score_mate_moves(r.lines[0].score), 2);
    ply_engine_destroy(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accumulators_in_search),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_draws_and_mates),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
