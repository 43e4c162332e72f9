/*
 * Tests of the split planner (coordinator/split.h): transposition merging
 * against OEIS A083276, exactness of multiplicity x perft for totals and for
 * the per-root-move divide (checked with the arbiter's own perft and with the
 * published counts of tests/data), the en-passant rule of identities, the
 * automatic split rule and the biggest-first order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arbiter/arbiter.h"
#include "perft/split.h"
#include "util/error.h"

static void parse(ply_arb_pos_t *pos, const char *fen, unsigned flags)
{
    char why[256];
    int r = ply_arb_from_fen(pos, fen, flags, why, sizeof why);
    if (r != 0) fail_msg("cannot parse %s: %s", fen, why);
}

static ply_split_t *plan_or_fail(const ply_arb_pos_t *root, unsigned depth, int split)
{
    ply_split_t *plan = NULL;
    char why[256] = "";
    int r = ply_split_plan(root, depth, split, NULL, &plan, why, sizeof why);
    if (r != 0) fail_msg("ply_split_plan(depth %u, split %d) = %d: %s", depth, split, r, why);
    return plan;
}

/* Plays UCI moves from the start position. */
static void play(ply_arb_pos_t *pos, const char *const *moves)
{
    ply_arb_startpos(pos);
    for (; *moves; moves++) {
        ply_arb_move_t mv;
        assert_int_equal(ply_arb_move_from_uci(pos, *moves, &mv), 0);
        ply_arb_make(pos, mv);
    }
}

/*
 * OEIS A083276 (number of distinct positions after n plies): 20, 400, 5362,
 * 72078, 822518. The paths are perft(n) of the start position (tests/data/
 * perftsuite.epd: 20, 400, 8902, 197281, 4865609).
 */
static void test_oeis_a083276(void **state)
{
    (void)state;
    static const size_t unique[] = {0, 20, 400, 5362, 72078, 822518};
    static const uint64_t paths[] = {0, 20, 400, 8902, 197281, 4865609};
    ply_arb_pos_t root;
    ply_arb_startpos(&root);
    for (int s = 1; s <= 5; s++) {
        ply_split_t *plan = plan_or_fail(&root, (unsigned)s + 1, s);
        assert_int_equal(plan->split_depth, s);
        assert_int_equal(plan->njobs, unique[s]);
        assert_int_equal(plan->paths, paths[s]);
        uint64_t sum = 0;
        for (size_t i = 0; i < plan->njobs; i++) sum += plan->jobs[i].multiplicity;
        assert_int_equal(sum, paths[s]);
        ply_split_destroy(&plan);
        assert_null(plan);
    }
}

/*
 * For every job: its perft1 is the arbiter's, and sum(mult x perft(d - s))
 * equals @expected (a published count) in total and the arbiter's perft(d-1)
 * of each root move's child per root move.
 */
static void check_exact(const char *fen, unsigned flags, unsigned depth, int split,
                        uint64_t expected)
{
    ply_arb_pos_t root;
    parse(&root, fen, flags);
    ply_split_t *plan = plan_or_fail(&root, depth, split);
    assert_int_equal(plan->split_depth, split);
    assert_int_equal(plan->job_depth, depth - (unsigned)split);
    uint64_t total = 0, divide[PLY_ARB_MAX_MOVES] = {0};
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    for (size_t i = 0; i < plan->njobs; i++) {
        const ply_split_job_t *job = &plan->jobs[i];
        ply_arb_pos_t pos;
        parse(&pos, job->fen, flags);
        assert_int_equal(job->perft1, ply_arb_legal_moves(&pos, moves));
        uint64_t n = ply_arb_perft(&pos, (int)plan->job_depth);
        total += job->multiplicity * n;
        uint64_t m = 0;
        for (uint32_t k = 0; k < job->nmult; k++) {
            assert_true(job->mult[k].root < (uint32_t)plan->nroot);
            if (k) assert_true(job->mult[k - 1].root < job->mult[k].root);
            divide[job->mult[k].root] += job->mult[k].count * n;
            m += job->mult[k].count;
        }
        if (split > 0) assert_int_equal(m, job->multiplicity);
        if (i) assert_true(plan->jobs[i - 1].cost >= job->cost); /* biggest first */
    }
    assert_int_equal(total, expected);
    if (split == 0) {
        assert_int_equal(plan->njobs, 1);
        assert_int_equal(plan->jobs[0].nmult, 0);
    } else {
        for (int i = 0; i < plan->nroot; i++) {
            ply_arb_pos_t child = root;
            ply_arb_make(&child, plan->root_moves[i]);
            assert_int_equal(divide[i], ply_arb_perft(&child, (int)depth - 1));
        }
    }
    ply_split_destroy(&plan);
}

/* Published counts: tests/data/perftsuite.epd lines 1-2, ethereal-fischer.epd line 1. */
#define START    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define FISCHER1 "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"

static void test_exact_start(void **state)
{
    (void)state;
    for (int s = 0; s <= 3; s++) check_exact(START, 0, 4, s, 197281);
}

static void test_exact_kiwipete(void **state)
{
    (void)state;
    for (int s = 0; s <= 2; s++) check_exact(KIWIPETE, 0, 3, s, 97862);
}

static void test_exact_chess960(void **state)
{
    (void)state;
    for (int s = 0; s <= 2; s++) check_exact(FISCHER1, PLY_ARB_CHESS960, 3, s, 12189);
}

/*
 * Issue 9, item 2: the same pieces and the same right "white castles h-side",
 * with the rook on h1 or on f1, are two different trees (perft(4) 8,117 and
 * 8,470, Stockfish 15.1 go perft 4 with UCI_Chess960): their identities must
 * differ, and the jobs of a split must carry the right rook.
 */
#define ROOK_H "4k3/8/8/8/8/8/8/4KR1R w H - 0 1"
#define ROOK_F "4k3/8/8/8/8/8/8/4KR1R w F - 0 1"

static void test_castling_rook_identity(void **state)
{
    (void)state;
    ply_arb_pos_t h, f;
    char ih[128], jf[128];
    parse(&h, ROOK_H, PLY_ARB_CHESS960);
    parse(&f, ROOK_F, PLY_ARB_CHESS960);
    assert_true(ply_arb_identity(&h, ih, sizeof ih) > 0);
    assert_true(ply_arb_identity(&f, jf, sizeof jf) > 0);
    assert_string_not_equal(ih, jf);
    for (int s = 0; s <= 2; s++) {
        check_exact(ROOK_H, PLY_ARB_CHESS960, 4, s, 8117);
        check_exact(ROOK_F, PLY_ARB_CHESS960, 4, s, 8470);
    }
}

/*
 * 1.e4 e6 2.d4 and 1.d4 e6 2.e4 reach the same placement; their FENs name
 * different en-passant squares (d3, e3), but no black pawn can capture en
 * passant, so their trees are identical and so must be their identities.
 * 1.e4 a6 2.e5 d5 (exd6 e.p. is legal) and 1.e4 d5 2.e5 a6 also share the
 * placement but not the tree, so their identities must differ.
 */
static void test_ep_identity(void **state)
{
    (void)state;
    static const char *const a[] = {"e2e4", "e7e6", "d2d4", NULL};
    static const char *const b[] = {"d2d4", "e7e6", "e2e4", NULL};
    static const char *const c[] = {"e2e4", "a7a6", "e4e5", "d7d5", NULL};
    static const char *const d[] = {"e2e4", "d7d5", "e4e5", "a7a6", NULL};
    ply_arb_pos_t pa, pb, pc, pd;
    char ia[128], ib[128], ic[128], id[128], fa[128], fb[128];
    play(&pa, a), play(&pb, b), play(&pc, c), play(&pd, d);
    assert_true(ply_arb_identity(&pa, ia, sizeof ia) > 0);
    assert_true(ply_arb_identity(&pb, ib, sizeof ib) > 0);
    assert_true(ply_arb_identity(&pc, ic, sizeof ic) > 0);
    assert_true(ply_arb_identity(&pd, id, sizeof id) > 0);
    assert_true(ply_arb_to_fen(&pa, fa, sizeof fa) > 0);
    assert_true(ply_arb_to_fen(&pb, fb, sizeof fb) > 0);
    assert_string_not_equal(fa, fb); /* FEN names the skipped square */
    assert_string_equal(ia, ib);
    assert_string_not_equal(ic, id);

    /* and the planner merges the first pair: one job reached by two root moves */
    ply_arb_pos_t root;
    ply_arb_startpos(&root);
    ply_split_t *plan = plan_or_fail(&root, 4, 3);
    int found = 0;
    for (size_t i = 0; i < plan->njobs; i++) {
        ply_arb_pos_t pos;
        char ij[128];
        parse(&pos, plan->jobs[i].fen, 0);
        assert_true(ply_arb_identity(&pos, ij, sizeof ij) > 0);
        if (strcmp(ij, ia) != 0) continue;
        found++;
        assert_int_equal(plan->jobs[i].nmult, 2); /* from 1.d4 and 1.e4 */
        assert_int_equal(plan->jobs[i].multiplicity, 2);
    }
    assert_int_equal(found, 1);
    ply_split_destroy(&plan);
}

static unsigned auto_split_fit(const char *fen, unsigned depth, unsigned threads, size_t *njobs)
{
    ply_arb_pos_t root;
    parse(&root, fen, 0);
    ply_split_t *plan = NULL;
    char why[256] = "";
    if (ply_split_plan_fit(&root, depth, -1, threads, 0, NULL, &plan, why, sizeof why) != 0)
        fail_msg("ply_split_plan_fit(depth %u, %u threads): %s", depth, threads, why);
    unsigned s = plan->split_depth;
    if (njobs) *njobs = plan->njobs;
    for (size_t i = 1; i < plan->njobs; i++)
        assert_true(plan->jobs[i - 1].cost >= plan->jobs[i].cost);
    ply_split_destroy(&plan);
    return s;
}

/* The automatic rule for the default cluster (PLY_SPLIT_DEFAULT_THREADS = 16 threads). */
static unsigned auto_split(const char *fen, unsigned depth, size_t *njobs)
{
    return auto_split_fit(fen, depth, 0, njobs);
}

/* The numbers promised in split.h's header comment. */
static void test_auto_rule(void **state)
{
    (void)state;
    size_t n;
    assert_int_equal(auto_split(START, 1, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(auto_split(START, 2, &n), 1);
    assert_int_equal(auto_split(START, 4, &n), 1);
    assert_int_equal(n, 20);
    assert_int_equal(auto_split(START, 6, &n), 1); /* ply 2 would make jobs of ~2e5 nodes */
    assert_int_equal(n, 20);
    assert_int_equal(auto_split(START, 7, &n), 2);
    assert_int_equal(n, 400);
    assert_int_equal(auto_split(START, 8, &n), 2);
    assert_int_equal(auto_split(START, 9, &n), 2);
    assert_int_equal(n, 400);
    assert_int_equal(auto_split(START, 11, &n), 2);
    assert_int_equal(auto_split(START, 12, &n), 3);
    assert_int_equal(n, 5362);
    assert_int_equal(auto_split(START, 13, &n), 4);
    assert_int_equal(n, 72078);
    /* A huge depth from any client does not make the coordinator expand
     * 822,518 positions (0.7 GB): the automatic split stops at ply 4. */
    assert_int_equal(auto_split(START, 20, &n), 4);
    /* Kiwipete perft(6) ~ 8e9: 48 jobs are too few for 16 threads; 2038 of ~4e6 */
    assert_int_equal(auto_split(KIWIPETE, 6, &n), 2);
    assert_int_equal(n, 2038);
    /* a checkmated root (fool's mate): one job, counted by a worker with divide */
    assert_int_equal(
        auto_split("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", 3, &n), 0);
    assert_int_equal(n, 1);
}

/* The split follows the cluster: 8 jobs a thread while a job stays above 1e6 estimated nodes. */
static void test_auto_rule_threads(void **state)
{
    (void)state;
    size_t n;
    assert_int_equal(auto_split_fit(START, 7, 2, &n), 1); /* 16 wanted: 20 jobs */
    assert_int_equal(n, 20);
    assert_int_equal(auto_split_fit(START, 10, 2, &n), 1);
    assert_int_equal(auto_split_fit(START, 7, 16, &n), 2); /* 128 wanted: 400 jobs */
    assert_int_equal(n, 400);
    assert_int_equal(auto_split_fit(START, 7, 64, &n), 2); /* ply 3: jobs of ~2e5 < 1e6 */
    assert_int_equal(n, 400);
    assert_int_equal(auto_split_fit(START, 8, 64, &n), 3); /* 512 wanted: 5,362 jobs */
    assert_int_equal(n, 5362);
    assert_int_equal(auto_split_fit(START, 5, 64, &n), 1); /* small: jobs stay worth a message */
    assert_int_equal(n, 20);
    /* a smaller bound on a job splits small runs finely (the coordinator's min_job_nodes) */
    ply_arb_pos_t root;
    parse(&root, START, 0);
    ply_split_t *plan = NULL;
    char why[256];
    assert_int_equal(ply_split_plan_fit(&root, 5, -1, 64, 250, NULL, &plan, why, sizeof why), 0);
    assert_int_equal(plan->split_depth, 3);
    assert_int_equal(plan->njobs, 5362);
    ply_split_destroy(&plan);
    assert_int_equal(ply_split_plan_fit(&root, 5, -1, 16, 250, NULL, &plan, why, sizeof why), 0);
    assert_int_equal(plan->split_depth, 2);
    assert_int_equal(plan->njobs, 400);
    ply_split_destroy(&plan);
}

static void test_estimate(void **state)
{
    (void)state;
    ply_arb_pos_t root;
    ply_arb_startpos(&root);
    assert_int_equal(ply_split_estimate(&root, 1), 20);
    assert_int_equal(ply_split_estimate(&root, 3), 8902); /* exact up to 3 */
    uint64_t e6 = ply_split_estimate(&root, 6);           /* perft(6) = 119060324 */
    assert_true(e6 > 119060324 / 2 && e6 < 119060324 * 2);
    assert_int_equal(ply_split_estimate(&root, 40), UINT64_MAX); /* saturates */
}

static void test_errors(void **state)
{
    (void)state;
    ply_arb_pos_t root;
    ply_arb_startpos(&root);
    ply_split_t *plan = (ply_split_t *)&root; /* must be reset to NULL on failure */
    char why[256];
    assert_int_equal(ply_split_plan(&root, 3, 3, NULL, &plan, why, sizeof why), PLY_ERANGE);
    assert_null(plan);
    assert_non_null(strstr(why, "below depth"));
    assert_int_equal(ply_split_plan(&root, 0, -1, NULL, &plan, why, sizeof why), PLY_ERANGE);
    assert_int_equal(ply_split_plan(NULL, 3, -1, NULL, &plan, why, sizeof why), PLY_EINVAL);
    assert_int_equal(ply_split_plan(&root, 3, -1, NULL, NULL, why, sizeof why), PLY_EINVAL);
    atomic_int cancel;
    atomic_init(&cancel, 1);
    assert_int_equal(ply_split_plan(&root, 5, 3, &cancel, &plan, why, sizeof why), PLY_ECANCELED);
    assert_null(plan);
    ply_split_destroy(&plan); /* idempotent on NULL */
    ply_split_destroy(NULL);
}

/* Root moves are the arbiter's, in UCI; Chess960 castling as king takes rook. */
static void test_root_moves(void **state)
{
    (void)state;
    ply_arb_pos_t root;
    parse(&root, "4k3/8/8/8/8/8/8/4K2R w K - 0 1", 0);
    ply_split_t *plan = plan_or_fail(&root, 2, 1);
    int castle = 0;
    for (int i = 0; i < plan->nroot; i++) castle += strcmp(plan->root_uci[i], "e1g1") == 0;
    assert_int_equal(castle, 1);
    assert_int_equal(plan->nroot, 15); /* perftsuite.epd line 3: D1 15 */
    ply_split_destroy(&plan);
    parse(&root, "4k3/8/8/8/8/8/8/4K2R w H - 0 1", PLY_ARB_CHESS960);
    plan = plan_or_fail(&root, 2, 1);
    castle = 0;
    for (int i = 0; i < plan->nroot; i++) castle += strcmp(plan->root_uci[i], "e1h1") == 0;
    assert_int_equal(castle, 1);
    ply_split_destroy(&plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_start),    cmocka_unit_test(test_exact_kiwipete),
        cmocka_unit_test(test_exact_chess960), cmocka_unit_test(test_ep_identity),
        cmocka_unit_test(test_root_moves),     cmocka_unit_test(test_errors),
        cmocka_unit_test(test_estimate),       cmocka_unit_test(test_auto_rule),
        cmocka_unit_test(test_auto_rule_threads),
        cmocka_unit_test(test_oeis_a083276),   cmocka_unit_test(test_castling_rook_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
