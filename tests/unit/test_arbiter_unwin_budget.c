/*
 * The unwinnability check is monotone in its node budget (issue 30): on
 * every position of the unwinnability tests, asked for both sides with
 * budgets of 10^4, 10^5, 10^6 and 10^7 nodes, an answer once "yes" or "no"
 * stays the same answer when the budget grows (it never becomes
 * "undetermined", nor the other answer), and the nodes reported never pass
 * the budget. Where the helpmate search gives a "yes" at two budgets, it is
 * the same line (the search runs the same whatever the budget, which only
 * cuts it off; the nodes may differ by those of an exhaustive walk that ran
 * before it, whose share grows with the budget).
 *
 * The expected values are the property itself and the answers' own proofs:
 * every "yes" line is replayed here with the public move generator, every
 * "no" is that of a position whose answer test_arbiter_unwinnable.c checks
 * against its exhaustive walk or an argument by hand. About 15 s: only the
 * questions still undetermined at a budget spend it all. The same holds under
 * the 2023 Laws (ply_arb_unwinnable_laws) on positions near the 75-move draw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter.h"
#include "arbiter/endgame.h"

/* The positions of test_arbiter_unwinnable.c (issue 14 and 30), each asked
 * for both sides. */
static const char *const positions[] = {
    /* issue 30: king and bishop against king and bishop, other colours */
    "8/8/4k3/8/2b5/8/2K5/2B5 w - - 0 1",
    "8/3B4/3b4/8/8/8/7K/2k5 w - - 0 1",
    "8/8/8/8/5b2/1k6/6B1/5K2 w - - 0 1",
    "4k3/8/8/5b2/8/8/8/2B1K3 w - - 0 1",
    /* a pawn that must promote to block its own king: against a knight */
    "8/8/8/8/1K6/6k1/1n5P/8 b - - 0 1",
    "8/8/8/8/8/4kPn1/2K5/8 b - - 0 1",
    "6N1/p7/8/6k1/8/K7/8/8 b - - 0 1",
    /* ... and against a bishop (the last one: White's mate needs about
     * 900,000 helpmate nodes, undetermined with the default budget) */
    "8/4k3/1P6/2b5/8/8/8/6K1 w - - 0 1",
    "4k3/1B6/8/1p5K/8/8/8/8 w - - 0 1",
    "k7/8/8/8/3P4/8/5K2/6b1 w - - 0 1",
    "8/2p5/1B3K2/8/8/8/8/7k w - - 0 1",
    /* locked lattices with bishops (dead), and near misses */
    "4k3/4B3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/2b5/4K3 w - - 0 1",
    "4k3/4Bb2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - - 0 1",
    "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/2b5/2B1K3 w - - 0 1",
    "4k3/4B3/2b5/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1",
    "4k3/4Bb2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/2b5/2B1K3 w - - 0 1",
    "4k3/4Bb2/6b1/1p1p1p2/pPpPpPp1/P1P1P1P1/8/4K3 w - - 0 1",
    "4k3/4Bb2/8/1p3p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1",
    "4k3/5b2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4KB2 w - - 0 1",
    "4k3/8/8/1p1p1p2/pPpPpPp1/P1P1P1P1/7B/1b4BK b - - 0 1",
    "8/8/1k6/p1p1p1p1/P1P1P1P1/8/8/2K5 w - - 0 1",
    "8/8/1k6/p1p1p1p1/P1P1P3/8/8/2K5 w - - 0 1",
    /* issue 14: the basic and the odd mates */
    "4k3/8/8/8/8/8/8/4KNN1 w - - 0 1",
    "4k3/8/8/8/8/8/8/4KNB1 w - - 0 1",
    "2K5/pP6/kp6/pp6/8/8/8/8 w - - 0 1",
    "kr6/8/K7/3N4/8/8/8/8 w - - 0 1",
    "8/8/3q4/4k3/8/8/8/2N1K3 w - - 0 1",
    "startpos",
};

static const uint64_t budgets[] = {10000, 100000, 1000000, 10000000};
#define NBUDGETS (sizeof budgets / sizeof budgets[0])

/* 1 when @u's line replays from @pos to @side's checkmate of the other side. */
static int line_mates(const ply_arb_pos_t *pos, const ply_arb_unwin_t *u, int side)
{
    ply_arb_pos_t p = *pos;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    for (int i = 0; i < u->nmoves; i++) {
        int k = ply_arb_legal_moves(&p, mv), found = -1;
        for (int j = 0; j < k && found < 0; j++)
            if (mv[j].from == u->moves[i].from && mv[j].to == u->moves[i].to &&
                mv[j].promo == u->moves[i].promo)
                found = j;
        if (found < 0) return 0;
        ply_arb_make(&p, mv[found]);
    }
    return p.side != side && ply_arb_in_check(&p) && ply_arb_legal_moves(&p, mv) == 0;
}

static const char *answer(ply_arb_mate_t v)
{
    return v == PLY_ARB_MATE_POSSIBLE     ? "yes"
           : v == PLY_ARB_MATE_IMPOSSIBLE ? "no"
                                          : "undetermined";
}

static void test_monotone_in_budget(void **state)
{
    (void)state;
    static ply_arb_unwin_t u[NBUDGETS];
    int questions = 0, decided[NBUDGETS] = {0};
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
        ply_arb_pos_t pos;
        char why[160];
        if (ply_arb_from_fen(&pos, positions[i], 0, why, sizeof why))
            fail_msg("bad test FEN %s: %s", positions[i], why);
        for (int side = 0; side < 2; side++, questions++) {
            for (size_t b = 0; b < NBUDGETS; b++) {
                assert_int_equal(ply_arb_unwinnable(&pos, side, budgets[b], &u[b]), 0);
                if (u[b].nodes > budgets[b])
                    fail_msg("%s: %d: %llu nodes on a budget of %llu", positions[i], side,
                             (unsigned long long)u[b].nodes, (unsigned long long)budgets[b]);
                if (u[b].verdict == PLY_ARB_MATE_POSSIBLE && !line_mates(&pos, &u[b], side))
                    fail_msg("%s: %d: the line does not mate: %s", positions[i], side, u[b].proof);
                if (u[b].verdict != PLY_ARB_MATE_UNDETERMINED) decided[b]++;
                if (b == 0 || u[b - 1].verdict == PLY_ARB_MATE_UNDETERMINED) continue;
                if (u[b].verdict != u[b - 1].verdict)
                    fail_msg("%s: %s: %s with %llu nodes (%s), %s with %llu (%s)", positions[i],
                             side ? "black" : "white", answer(u[b - 1].verdict),
                             (unsigned long long)budgets[b - 1], u[b - 1].proof,
                             answer(u[b].verdict), (unsigned long long)budgets[b], u[b].proof);
                if (u[b].method == PLY_ARB_METHOD_HELPMATE &&
                    u[b - 1].method == PLY_ARB_METHOD_HELPMATE) {
                    assert_int_equal(u[b].nmoves, u[b - 1].nmoves);
                    assert_memory_equal(u[b].moves, u[b - 1].moves,
                                        (size_t)u[b].nmoves * sizeof u[b].moves[0]);
                }
            }
        }
    }
    print_message("%d questions; decided with 10^4, 10^5, 10^6, 10^7 nodes: %d, %d, %d, %d\n",
                  questions, decided[0], decided[1], decided[2], decided[3]);
    /* Every question here is decided with the largest budget. */
    assert_int_equal(decided[NBUDGETS - 1], questions);
}

/* The same under the 2023 Laws, whose 75-move rule (art. 9.6.2) cuts series of
 * moves short: a halfmove clock of 150 is a game already drawn, 145 and 148
 * leave a few plies (searched exhaustively), 130 and 0 leave room for the
 * helpmates. Besides monotony: a "yes" line brings the clock to 150 only on its
 * mating move, and the answers agree with the 2000 Laws' (fewer series of
 * moves: a "yes" under 2023 is one under 2000, a "no" under 2000 one under
 * 2023). */
static const char *const positions2023[] = {
    "8/8/4k3/3b4/8/2B5/4K3/8 w - - 150 100", "8/8/4k3/3b4/8/2B1K3/8/8 b - - 148 100",
    "8/8/4k3/3b4/8/2B1K3/8/8 b - - 145 100", "8/8/4k3/3b4/8/2B1K3/8/8 b - - 130 100",
    "8/5k2/1K6/8/6p1/5BP1/8/8 w - - 0 1",
};

/* 1 when @u's line keeps the 75-move rule from @pos: the clock reaches 150
 * only on the last move (which line_mates checks to be a checkmate). */
static int line_in_clock(const ply_arb_pos_t *pos, const ply_arb_unwin_t *u)
{
    ply_arb_pos_t p = *pos;
    for (int i = 0; i < u->nmoves; i++) {
        ply_arb_make(&p, u->moves[i]);
        if (p.halfmove >= 150 && i < u->nmoves - 1) return 0;
    }
    return 1;
}

static void test_monotone_fide2023(void **state)
{
    (void)state;
    static ply_arb_unwin_t u[NBUDGETS], old;
    for (size_t i = 0; i < sizeof positions2023 / sizeof positions2023[0]; i++) {
        ply_arb_pos_t pos;
        char why[160];
        if (ply_arb_from_fen(&pos, positions2023[i], 0, why, sizeof why))
            fail_msg("bad test FEN %s: %s", positions2023[i], why);
        for (int side = 0; side < 2; side++) {
            assert_int_equal(ply_arb_unwinnable(&pos, side, budgets[NBUDGETS - 1], &old), 0);
            for (size_t b = 0; b < NBUDGETS; b++) {
                assert_int_equal(
                    ply_arb_unwinnable_laws(&pos, side, PLY_ARB_FIDE2023, budgets[b], &u[b]), 0);
                if (u[b].nodes > budgets[b])
                    fail_msg("%s: %d: %llu nodes on a budget of %llu", positions2023[i], side,
                             (unsigned long long)u[b].nodes, (unsigned long long)budgets[b]);
                if (u[b].verdict == PLY_ARB_MATE_POSSIBLE &&
                    (!line_mates(&pos, &u[b], side) || !line_in_clock(&pos, &u[b])))
                    fail_msg("%s: %d: the line does not mate within the clock: %s",
                             positions2023[i], side, u[b].proof);
                if (u[b].verdict == PLY_ARB_MATE_POSSIBLE)
                    assert_int_not_equal(old.verdict, PLY_ARB_MATE_IMPOSSIBLE);
                if (old.verdict == PLY_ARB_MATE_IMPOSSIBLE)
                    assert_int_not_equal(u[b].verdict, PLY_ARB_MATE_POSSIBLE);
                if (b == 0 || u[b - 1].verdict == PLY_ARB_MATE_UNDETERMINED) continue;
                if (u[b].verdict != u[b - 1].verdict)
                    fail_msg("%s: %s: %s with %llu nodes (%s), %s with %llu (%s)", positions2023[i],
                             side ? "black" : "white", answer(u[b - 1].verdict),
                             (unsigned long long)budgets[b - 1], u[b - 1].proof,
                             answer(u[b].verdict), (unsigned long long)budgets[b], u[b].proof);
            }
            /* Every question here is decided with the largest budget. */
            if (u[NBUDGETS - 1].verdict == PLY_ARB_MATE_UNDETERMINED)
                fail_msg("%s: %d: %s", positions2023[i], side, u[NBUDGETS - 1].proof);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotone_in_budget),
        cmocka_unit_test(test_monotone_fide2023),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
