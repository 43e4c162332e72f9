/*
 * The deepening analysis's facts and picks (coordinator/search/deepen.c), without a cluster:
 * the test plays the workers, feeding lines it makes up (legal moves, chosen scores), so that
 * every step is known.
 *   iterations  two root moves, multipv 1: depth 1 searches both exactly; from depth 2 the
 *               eldest (the last iteration's best) exactly and the other with a null window
 *               at the last threshold; an upper bound completes the iteration, a fail high is
 *               searched again exactly and becomes the best when it is; iterations recorded
 *               in order; a line of an answered iteration changes nothing.
 *   multipv     three root moves, multipv 2: two exact lines, the third an upper bound no
 *               higher than the second.
 *   split       with more workers than the root can use, the eldest is split a ply deeper:
 *               its replies are jobs (ply__deepen_job_where: the position after it, its move
 *               first), and when the split's iteration completes, the eldest's exact line is
 *               its move then the best reply's line, the score negated.
 *   subset      the null windows of one threshold go as one job of several moves: a fail
 *               high frees the others, a fail low bounds every one; a line of another move
 *               is refused.
 *   score       mate scores in ply's engine units (a mate in N is 32000 - (2N - 1) plies).
 *   whole       an analysis opens with one job of every root move at depth
 *               min(PLY__DEEPEN_WHOLE_DEPTH, limit - PLY__DEEPEN_WHOLE_BELOW) (multipv K), the
 *               other workers waiting; its K lines
 *               complete that iteration (the rest no better: an upper bound, the move
 *               alone), the next iteration's
 *               jobs are warm on its worker; a dropped whole job is picked again; the check
 *               refuses too many lines, a move twice, a line of no root move, a bound, an
 *               illegal line, and a single job's line of another move.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>

#include <cmocka.h>

#include "arbiter/arbiter.h"
#include "search/deepen.h"
#include "util/error.h"

/* @r allocated as ply__search_result__unpack does (what ply__deepen_take owns). */
static Ply__SearchResult *owned(const Ply__SearchResult *r)
{
    uint8_t buf[4096];
    assert_true(ply__search_result__get_packed_size(r) <= sizeof buf);
    size_t len = ply__search_result__pack(r, buf);
    Ply__SearchResult *own = ply__search_result__unpack(NULL, len, buf);
    assert_non_null(own);
    return own;
}

/* A result of one line: score @cp (bound @bound: 0 exact, 1 lower, 2 upper), depth @depth,
 * the pv given as UCI words, allocated as ply__search_result__unpack does. */
static Ply__SearchResult *result(int cp, uint32_t bound, uint32_t depth, int n, ...)
{
    char *pv[16];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) pv[i] = va_arg(ap, char *);
    va_end(ap);
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT;
    l.has_multipv = 1, l.multipv = 1;
    l.has_score_cp = 1, l.score_cp = cp;
    l.has_bound = 1, l.bound = bound;
    l.has_depth = 1, l.depth = depth;
    l.n_pv = (size_t)n, l.pv = pv;
    Ply__SearchLine *lines[1] = {&l};
    Ply__SearchResult r = PLY__SEARCH_RESULT__INIT;
    r.n_lines = 1, r.lines = lines;
    r.has_nodes = 1, r.nodes = 1000;
    r.has_time_us = 1, r.time_us = 100;
    r.engine = "test";
    return owned(&r);
}

/* A whole job's result: @n lines, line i (rank i + 1) score cps[i], exact, depth @depth, its
 * pv the one move pvs[i]. */
static Ply__SearchResult *lines_result(int n, const int *cps, char **pvs, uint32_t depth)
{
    Ply__SearchLine l[8], *lp[8];
    for (int i = 0; i < n; i++) {
        l[i] = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        l[i].has_multipv = 1, l[i].multipv = (uint32_t)i + 1;
        l[i].has_score_cp = 1, l[i].score_cp = cps[i];
        l[i].has_bound = 1, l[i].bound = 0;
        l[i].has_depth = 1, l[i].depth = depth;
        l[i].n_pv = 1, l[i].pv = &pvs[i];
        lp[i] = &l[i];
    }
    Ply__SearchResult r = PLY__SEARCH_RESULT__INIT;
    r.n_lines = (size_t)n, r.lines = lp;
    r.has_nodes = 1, r.nodes = 5000;
    r.engine = "test";
    return owned(&r);
}

static ply__deepen_t *start(const char *fen, char **uci, size_t n, uint32_t k, uint32_t depth)
{
    ply_arb_pos_t pos;
    assert_int_equal(ply_arb_from_fen(&pos, fen, 0, NULL, 0), 0);
    ply__deepen_t *d = ply__deepen_new(&pos, uci, n, k, depth);
    assert_non_null(d);
    return d;
}

/* Picks for @worker, starts it on @slot, and checks what it is; returns the job. */
static ply__deepen_job_t expect(ply__deepen_t *d, const char *worker, size_t slot,
                                const char *uci, uint32_t depth, int window)
{
    ply__deepen_job_t j;
    if (!ply__deepen_pick(d, worker, &j)) fail_msg("%s: no job, %s to depth %u wanted", worker,
                                                   uci, depth);
    ply_arb_pos_t pos;
    const char *prefix, *move;
    assert_int_equal(ply__deepen_job_where(d, &j, &pos, &prefix, &move), 1);
    if (strcmp(move, uci) || j.depth != depth || j.window != window)
        fail_msg("%s: %s to depth %u%s, wanted %s to depth %u%s", worker, move, j.depth,
                 j.window ? " (null window)" : "", uci, depth, window ? " (null window)" : "");
    ply__deepen_started(d, slot, &j, worker);
    return j;
}

static int take(ply__deepen_t *d, size_t slot, Ply__SearchResult *r)
{
    int done = ply__deepen_take(d, slot, r, "w", "id", 1000, 5);
    assert_true(done >= 0);
    return done;
}

static void test_iterations(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4"};
    ply__deepen_t *d = start("startpos", uci, 2, 1, 4);
    /* depth 1: both exactly, d2d4 better */
    assert_int_equal(ply__deepen_in_flight(d), 0);
    expect(d, "w1", 0, "e2e4", 1, 0);
    expect(d, "w2", 1, "d2d4", 1, 0);
    assert_int_equal(ply__deepen_in_flight(d), 2);
    assert_int_equal(take(d, 0, result(20, 0, 1, 1, "e2e4")), 0);
    assert_int_equal(ply__deepen_in_flight(d), 1);
    assert_int_equal(take(d, 1, result(30, 0, 1, 1, "d2d4")), 1);
    assert_int_equal(ply__deepen_in_flight(d), 0);
    assert_int_equal(ply__deepen_depth(d), 1);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    assert_int_equal(a.n_moves, 2);
    assert_string_equal(a.moves[0]->move, "d2d4");
    assert_int_equal(a.depth, 1);
    /* depth 2: the eldest d2d4 exactly, e2e4 a null window at 30 */
    ply__deepen_job_t e = expect(d, "w2", 1, "d2d4", 2, 0);
    ply__deepen_job_t n = expect(d, "w1", 0, "e2e4", 2, 1);
    assert_int_equal(n.alpha, 30);
    assert_int_equal(n.beta, 31);
    (void)e;
    assert_int_equal(take(d, 0, result(25, 2, 2, 1, "e2e4")), 0); /* upper bound 25 */
    assert_int_equal(take(d, 1, result(28, 0, 2, 2, "d2d4", "d7d5")), 1);
    ply__deepen_answer(d, &a);
    assert_string_equal(a.moves[0]->move, "d2d4");
    assert_int_equal(a.moves[1]->line->bound, 2);
    /* depth 3: e2e4's null window at 28 fails high, searched again exactly: the new best */
    expect(d, "w2", 1, "d2d4", 3, 0);
    expect(d, "w1", 0, "e2e4", 3, 1);
    assert_int_equal(take(d, 0, result(29, 1, 3, 1, "e2e4")), 0); /* lower bound 29 */
    assert_int_equal(take(d, 1, result(26, 0, 3, 1, "d2d4")), 0); /* T = 26: e2e4 > T */
    expect(d, "w1", 0, "e2e4", 3, 0);
    assert_int_equal(take(d, 0, result(35, 0, 3, 2, "e2e4", "e7e5")), 1);
    ply__deepen_answer(d, &a);
    assert_string_equal(a.moves[0]->move, "e2e4");
    assert_int_equal(a.moves[0]->line->score_cp, 35);
    assert_int_equal(a.n_iterations, 3);
    for (size_t i = 0; i < a.n_iterations; i++) assert_int_equal(a.iterations[i]->depth, i + 1);
    assert_string_equal(a.iterations[2]->move, "e2e4");
    /* depth 4, the last: nothing is picked beyond it */
    expect(d, "w1", 0, "e2e4", 4, 0);
    expect(d, "w2", 1, "d2d4", 4, 1);
    ply__deepen_job_t none;
    assert_int_equal(ply__deepen_pick(d, "w3", &none), 0);
    assert_int_equal(take(d, 1, result(10, 2, 4, 1, "d2d4")), 0);
    assert_int_equal(take(d, 0, result(33, 0, 4, 1, "e2e4")), 1);
    assert_int_equal(ply__deepen_depth(d), 4);
    assert_int_equal(ply__deepen_pick(d, "w3", &none), 0);
    ply__deepen_free(&d);
    assert_null(d);
}

/*
 * The next iteration's eldest brother is the best exact score (or a fail high), never a move
 * known only by an upper bound: e2e4 exact 30 at depth 2, d2d4 <= 30 there; at depth 3 e2e4
 * falls to 20 while d2d4's search is out, and depth 4's exact search is e2e4's. Ranked as a
 * score (<= 30 as 29) d2d4 came first and w1 got e2e4 as a null window (the bug on STS 157:
 * an exact search of a move worth -608, the iteration waiting on it).
 */
static void test_rank(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4"};
    ply__deepen_t *d = start("startpos", uci, 2, 1, 5);
    expect(d, "w1", 0, "e2e4", 1, 0);
    expect(d, "w2", 1, "d2d4", 1, 0);
    take(d, 0, result(30, 0, 1, 1, "e2e4"));
    assert_int_equal(take(d, 1, result(20, 0, 1, 1, "d2d4")), 1);
    expect(d, "w1", 0, "e2e4", 2, 0);
    expect(d, "w2", 1, "d2d4", 2, 1);
    take(d, 1, result(30, 2, 2, 1, "d2d4")); /* <= 30 */
    assert_int_equal(take(d, 0, result(30, 0, 2, 1, "e2e4")), 1);
    expect(d, "w1", 0, "e2e4", 3, 0);
    expect(d, "w2", 1, "d2d4", 3, 1);
    assert_int_equal(take(d, 0, result(20, 0, 3, 1, "e2e4")), 0); /* d2d4's is out */
    expect(d, "w1", 0, "e2e4", 4, 0);
    ply__deepen_free(&d);
}

/*
 * A move proven no better by an upper bound keeps that line in the answer, whatever lower
 * bound comes after it (the bug deepen_startpos showed: "h2h4: a lower bound in the answer").
 * d2d4's depth 3 is searched early (a null window at the last threshold, 30: <= 25), the
 * threshold then falls to 14 and d2d4 fails high on it (>= 17); e2e4's 30 at depth 3 settles
 * d2d4 by its upper bound 25, the line the answer must show.
 */
static void test_bounds(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4"};
    ply__deepen_t *d = start("startpos", uci, 2, 1, 3);
    expect(d, "w1", 0, "e2e4", 1, 0);
    expect(d, "w2", 1, "d2d4", 1, 0);
    take(d, 0, result(30, 0, 1, 1, "e2e4"));
    assert_int_equal(take(d, 1, result(20, 0, 1, 1, "d2d4")), 1);
    expect(d, "w1", 0, "e2e4", 2, 0);
    expect(d, "w2", 1, "d2d4", 2, 1);
    assert_int_equal(take(d, 1, result(10, 2, 2, 1, "d2d4")), 0);
    ply__deepen_job_t j = expect(d, "w2", 1, "d2d4", 3, 1); /* early: depth 2 runs on w1 */
    assert_int_equal(j.alpha, 30);
    assert_int_equal(take(d, 1, result(25, 2, 3, 1, "d2d4")), 0);
    assert_int_equal(take(d, 0, result(14, 0, 2, 1, "e2e4")), 1); /* threshold 14 now */
    j = expect(d, "w2", 1, "d2d4", 3, 1);
    assert_int_equal(j.alpha, 14);
    assert_int_equal(take(d, 1, result(17, 1, 3, 1, "d2d4")), 0); /* fails high: >= 17 */
    expect(d, "w1", 0, "e2e4", 3, 0);
    assert_int_equal(take(d, 0, result(30, 0, 3, 1, "e2e4")), 1);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    assert_string_equal(a.moves[1]->move, "d2d4");
    assert_int_equal(a.moves[1]->line->bound, 2);
    assert_int_equal(a.moves[1]->line->score_cp, 25);
    ply__deepen_free(&d);
}

static void test_multipv(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4", "g1f3"};
    ply__deepen_t *d = start("startpos", uci, 3, 2, 3);
    for (size_t i = 0; i < 3; i++) expect(d, "w", i, uci[i], 1, 0);
    take(d, 0, result(30, 0, 1, 1, "e2e4"));
    take(d, 1, result(20, 0, 1, 1, "d2d4"));
    assert_int_equal(take(d, 2, result(10, 0, 1, 1, "g1f3")), 1);
    /* depth 2: the two eldest exactly, the third a null window at the second's score */
    expect(d, "w", 0, "e2e4", 2, 0);
    expect(d, "w", 1, "d2d4", 2, 0);
    ply__deepen_job_t n = expect(d, "w", 2, "g1f3", 2, 1);
    assert_int_equal(n.alpha, 20);
    take(d, 2, result(15, 2, 2, 1, "g1f3"));
    take(d, 0, result(31, 0, 2, 1, "e2e4"));
    assert_int_equal(take(d, 1, result(22, 0, 2, 1, "d2d4")), 1);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    assert_int_equal(a.n_moves, 3);
    assert_int_equal(a.moves[0]->line->bound, 0);
    assert_int_equal(a.moves[1]->line->bound, 0);
    assert_int_equal(a.moves[2]->line->bound, 2);
    assert_true(a.moves[2]->line->score_cp <= a.moves[1]->line->score_cp);
    ply__deepen_free(&d);
}

static void test_split(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4"};
    uint32_t s = PLY__DEEPEN_SPLIT_DEPTH;
    ply__deepen_t *d = start("startpos", uci, 2, 1, s);
    ply__deepen_set_whole(d, 0); /* every iteration split */
    /* iterations 1..s-1 with e2e4 best, its line e2e4 e7e5 */
    for (uint32_t k = 1; k < s; k++) {
        ply__deepen_job_t j0, j1;
        assert_true(ply__deepen_pick(d, "w1", &j0));
        ply__deepen_started(d, 0, &j0, "w1");
        assert_true(ply__deepen_pick(d, "w2", &j1));
        ply__deepen_started(d, 1, &j1, "w2");
        ply__deepen_job_t *je = j0.move == 0 ? &j0 : &j1;
        size_t se = j0.move == 0 ? 0 : 1;
        assert_int_equal(je->depth, k);
        take(d, se, result(40, 0, k, 2, "e2e4", "e7e5"));
        take(d, 1 - se, result(k == 1 ? 10 : 5, k == 1 ? 0 : 2, k, 1, "d2d4"));
        assert_int_equal(ply__deepen_depth(d), k);
    }
    /* depth s (the last): w1, whose table holds the eldest e2e4, computes the other's null
     * window (the test starts w2's pick on w1); w3 finds nothing at the root (the eldest's
     * exact search waits for w1) and helps the eldest: the split's eldest, the best reply
     * e7e5 (e2e4's last line), exactly, after e2e4, a ply shallower */
    ply__deepen_job_t other;
    assert_true(ply__deepen_pick(d, "w2", &other));
    assert_int_equal(other.move, 1);
    assert_int_equal(other.window, 1);
    ply__deepen_started(d, 1, &other, "w1");
    ply__deepen_job_t r1;
    assert_true(ply__deepen_pick(d, "w3", &r1));
    ply_arb_pos_t pos;
    const char *prefix, *move;
    assert_true(r1.split);
    assert_int_equal(ply__deepen_job_where(d, &r1, &pos, &prefix, &move), 1);
    assert_string_equal(prefix, "e2e4");
    assert_string_equal(move, "e7e5");
    assert_int_equal(r1.depth, s - 1);
    assert_int_equal(r1.window, 0);
    size_t slot_r1 = 10;
    ply__deepen_started(d, slot_r1, &r1, "w3");
    take(d, slot_r1, result(-45, 0, s - 1, 2, "e7e5", "g1f3"));
    /* every other reply of the split: null windows at -45 (black's view), each failing low,
     * in subset jobs of up to PLY__DEEPEN_SUBSET replies (the fail low bounds every one) */
    size_t replies = 0, jobs = 0;
    for (size_t slot = 20; slot < 60; slot++) {
        ply__deepen_job_t rj;
        if (!ply__deepen_pick(d, "w5", &rj) || !rj.split) break;
        assert_int_equal(rj.window, 1);
        assert_int_equal(rj.alpha, -45);
        assert_int_equal(ply__deepen_job_where(d, &rj, &pos, &prefix, &move), 1);
        const char *set[PLY_ARB_MAX_MOVES];
        size_t n = ply__deepen_job_moves(d, &rj, set);
        assert_true(n >= 1 && n <= PLY__DEEPEN_SUBSET);
        assert_string_equal(set[0], move);
        ply__deepen_started(d, slot, &rj, "w5");
        assert_int_equal(take(d, slot, result(-60, 2, s - 1, 1, set[n - 1])), 0); /* d2d4 busy */
        replies += n, jobs++;
    }
    assert_int_equal(replies, 19); /* 1. e4 has 20 replies: e7e5 and 19 others */
    assert_int_equal(jobs, (19 + PLY__DEEPEN_SUBSET - 1) / PLY__DEEPEN_SUBSET);
    /* the eldest's exact line at s came from the split: e2e4 e7e5 g1f3, +45 */
    assert_int_equal(take(d, 1, result(0, 2, s, 1, "d2d4")), 1);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    assert_int_equal(a.depth, s);
    assert_string_equal(a.moves[0]->move, "e2e4");
    assert_int_equal(a.moves[0]->line->score_cp, 45);
    assert_int_equal(a.moves[0]->line->depth, s);
    assert_int_equal(a.moves[0]->line->n_pv, 3);
    assert_string_equal(a.moves[0]->line->pv[1], "e7e5");
    assert_string_equal(a.moves[0]->san, "e4");
    /* the eldest's own search, late: an answered iteration's line changes nothing */
    ply__deepen_job_t late = {.move = 0, .depth = s};
    ply__deepen_started(d, 0, &late, "w1");
    assert_int_equal(take(d, 0, result(50, 0, s, 1, "e2e4")), 0);
    ply__deepen_answer(d, &a);
    assert_int_equal(a.moves[0]->line->score_cp, 45);
    ply__deepen_free(&d);
}

/*
 * No split while the eldest's own search at that depth is in flight: its first job, the best
 * reply's exact search, would be the bulk of that search again on a cold table (KQK to depth
 * 22 on 2 simulated workers: exact searches of mated replies of 15 to 72 M nodes, where 1
 * worker's whole analysis took 10 M). w3 waits.
 */
static void test_split_not_twice(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4"};
    uint32_t s = PLY__DEEPEN_SPLIT_DEPTH;
    ply__deepen_t *d = start("startpos", uci, 2, 1, s);
    ply__deepen_set_whole(d, 0);
    for (uint32_t k = 1; k < s; k++) {
        expect(d, "w1", 0, "e2e4", k, 0);
        expect(d, "w2", 1, "d2d4", k, k > 1);
        take(d, 0, result(40, 0, k, 2, "e2e4", "e7e5"));
        assert_int_equal(take(d, 1, result(k == 1 ? 10 : 5, k == 1 ? 0 : 2, k, 1, "d2d4")), 1);
    }
    expect(d, "w1", 0, "e2e4", s, 0);
    expect(d, "w2", 1, "d2d4", s, 1);
    ply__deepen_job_t none;
    assert_int_equal(ply__deepen_pick(d, "w3", &none), 0);
    ply__deepen_free(&d);
}

/*
 * While the eldest brother's exact search is out, another move's exact score is not the
 * threshold: d2d4 fails high on 30 (the last iteration's) and comes back exact at 25, and
 * g1f3's null window still goes at 30, not 25 (at 25 it would fail high more often, each an
 * exact search of a move worse than the eldest: STS 151 to depth 18 on 2 simulated workers).
 */
static void test_threshold_guess(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4", "g1f3"};
    ply__deepen_t *d = start("startpos", uci, 3, 1, 3);
    expect(d, "w1", 0, "e2e4", 1, 0);
    expect(d, "w2", 1, "d2d4", 1, 0);
    expect(d, "w3", 2, "g1f3", 1, 0);
    take(d, 0, result(30, 0, 1, 1, "e2e4"));
    take(d, 1, result(20, 0, 1, 1, "d2d4"));
    assert_int_equal(take(d, 2, result(10, 0, 1, 1, "g1f3")), 1);
    expect(d, "w1", 0, "e2e4", 2, 0);
    ply__deepen_job_t n = expect(d, "w2", 1, "d2d4", 2, 1);
    assert_int_equal(n.alpha, 30);
    take(d, 1, result(31, 1, 2, 1, "d2d4")); /* >= 31 */
    expect(d, "w2", 1, "d2d4", 2, 0);
    take(d, 1, result(25, 0, 2, 1, "d2d4")); /* exact 25 */
    n = expect(d, "w3", 2, "g1f3", 2, 1);
    assert_int_equal(n.alpha, 30);
    take(d, 2, result(10, 2, 2, 1, "g1f3"));
    assert_int_equal(take(d, 0, result(32, 0, 2, 1, "e2e4")), 1); /* T = 32: complete */
    ply__deepen_free(&d);
}

static void test_whole(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4", "g1f3"};
    const uint32_t w = PLY__DEEPEN_WHOLE_DEPTH;
    char why[256];
    ply__deepen_t *d = start("startpos", uci, 3, 2, w + PLY__DEEPEN_WHOLE_BELOW + 1);
    assert_int_equal(ply__deepen_multipv(d), 2);
    ply__deepen_job_t j, none;
    assert_true(ply__deepen_pick(d, "w1", &j));
    assert_int_equal(j.whole, 1);
    assert_int_equal(j.depth, w);
    assert_int_equal(j.window, 0);
    ply_arb_pos_t pos;
    const char *prefix, *move;
    assert_int_equal(ply__deepen_job_where(d, &j, &pos, &prefix, &move), 1);
    assert_null(move);
    assert_null(prefix);
    const char *all[PLY_ARB_MAX_MOVES];
    assert_int_equal(ply__deepen_job_moves(d, &j, all), 3); /* the analysis's moves, not 20 */
    assert_string_equal(all[2], "g1f3");
    ply__deepen_started(d, 0, &j, "w1");
    assert_true(ply__deepen_computing(d, "w1")); /* kind.c gives it nothing more meanwhile */
    assert_false(ply__deepen_computing(d, "w2"));
    assert_false(ply__deepen_pick(d, "w2", &none)); /* the others wait for it */
    /* dropped (its worker lost): picked again */
    ply__deepen_dropped(d, 0);
    assert_true(ply__deepen_pick(d, "w2", &j));
    assert_int_equal(j.whole, 1);
    ply__deepen_started(d, 0, &j, "w2");
    /* the check */
    int cps[3] = {30, 20, 10};
    char *ok[3] = {"d2d4", "e2e4", "g1f3"}, *twice[2] = {"d2d4", "d2d4"},
         *stranger[2] = {"d2d4", "a2a4"}, *illegal[2] = {"d2d4", "e2e5"};
    Ply__SearchResult *r = lines_result(3, cps, ok, w);
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "3 lines, the job asks for 1 to 2"));
    ply__search_result__free_unpacked(r, NULL);
    r = lines_result(2, cps, twice, w);
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "d2d4 has two lines"));
    ply__search_result__free_unpacked(r, NULL);
    r = lines_result(2, cps, stranger, w); /* legal, but not one of the analysis's moves */
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "a2a4, no root move"));
    ply__search_result__free_unpacked(r, NULL);
    r = lines_result(2, cps, illegal, w);
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), PLY_EMISMATCH);
    ply__search_result__free_unpacked(r, NULL);
    r = lines_result(2, cps, ok, w);
    r->lines[1]->bound = 2;
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "a bound"));
    r->lines[1]->bound = 0;
    r->lines[1]->depth = w - 1; /* short of the job's depth */
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), PLY_EMISMATCH);
    r->lines[1]->depth = w;
    assert_int_equal(ply__deepen_check(d, &j, r, why, sizeof why), 0);
    /* taken: iteration w complete, d2d4 and e2e4 exact, g1f3 proven no better */
    assert_int_equal(take(d, 0, r), 1);
    assert_false(ply__deepen_computing(d, "w2"));
    assert_int_equal(ply__deepen_depth(d), w);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    assert_int_equal(a.depth, w);
    assert_int_equal(a.n_moves, 3);
    assert_string_equal(a.moves[0]->move, "d2d4");
    assert_int_equal(a.moves[0]->line->score_cp, 30);
    assert_string_equal(a.moves[1]->move, "e2e4");
    assert_string_equal(a.moves[2]->move, "g1f3"); /* no better than the 2nd: <= 20 */
    assert_int_equal(a.moves[2]->line->bound, 2);
    assert_int_equal(a.moves[2]->line->score_cp, 20);
    assert_int_equal(a.moves[2]->line->n_pv, 1);
    assert_int_equal(a.moves[2]->line->depth, w);
    assert_int_equal(a.n_iterations, 1); /* the iterations below it are never reported */
    assert_int_equal(a.iterations[0]->depth, w);
    /* depth w + 1: the two eldest exactly, warm on w2 (its table holds every move) */
    ply__deepen_job_t e1 = expect(d, "w2", 0, "d2d4", w + 1, 0);
    assert_int_equal(e1.cold, 0);
    assert_int_equal(e1.start, w + 1); /* straight to its depth: the table holds w */
    ply__deepen_job_t e2 = expect(d, "w2", 1, "e2e4", w + 1, 0);
    assert_int_equal(e2.cold, 0);
    ply__deepen_job_t c3;
    assert_true(ply__deepen_pick(d, "w3", &c3)); /* g1f3's null window, cold on w3 */
    assert_int_equal(c3.cold, 1);
    assert_int_equal(c3.start, 0);
    /* a single job's check: the line must start with its move */
    Ply__SearchResult *bad = result(5, 0, w + 1, 1, "g1f3");
    assert_int_equal(ply__deepen_check(d, &e1, bad, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "not the job's move"));
    ply__search_result__free_unpacked(bad, NULL);
    ply__deepen_free(&d);
    /* below the deepest: PLY__DEEPEN_WHOLE_BELOW under the limit; then none, and none with
     * one root move */
    d = start("startpos", uci, 3, 1, PLY__DEEPEN_WHOLE_BELOW + 3);
    assert_true(ply__deepen_pick(d, "w1", &j));
    assert_int_equal(j.whole, 1);
    assert_int_equal(j.depth, 3);
    ply__deepen_free(&d);
    d = start("startpos", uci, 3, 1, PLY__DEEPEN_WHOLE_BELOW + 1);
    assert_true(ply__deepen_pick(d, "w1", &j));
    assert_int_equal(j.whole, 0);
    assert_int_equal(j.depth, 1);
    ply__deepen_free(&d);
    d = start("startpos", uci, 1, 1, w + 4);
    assert_true(ply__deepen_pick(d, "w1", &j));
    assert_int_equal(j.whole, 0);
    ply__deepen_free(&d);
}

/* A subset job's moves as one string, "e2e4 g1f3 ..." */
static const char *moves_of(ply__deepen_t *d, const ply__deepen_job_t *j, char *buf, size_t len)
{
    const char *set[PLY_ARB_MAX_MOVES];
    size_t n = ply__deepen_job_moves(d, j, set);
    buf[0] = 0;
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "", set[i]);
    return buf;
}

static void test_subset(void **state)
{
    (void)state;
    char *uci[] = {"e2e4", "d2d4", "g1f3", "c2c4", "b1c3"};
    const uint32_t w = PLY__DEEPEN_WHOLE_DEPTH;
    char why[256], buf[128];
    ply__deepen_t *d = start("startpos", uci, 5, 1, w + PLY__DEEPEN_WHOLE_BELOW);
    ply__deepen_job_t j;
    assert_true(ply__deepen_pick(d, "w1", &j));
    assert_int_equal(j.whole, 1);
    ply__deepen_started(d, 0, &j, "w1");
    int cps[1] = {30};
    char *best[1] = {"d2d4"};
    assert_int_equal(take(d, 0, lines_result(1, cps, best, w)), 1);
    /* depth w + 1: the eldest exactly, then one null window job of the four others at 30 */
    ply__deepen_job_t e = expect(d, "w1", 0, "d2d4", w + 1, 0);
    (void)e;
    ply__deepen_job_t n;
    assert_true(ply__deepen_pick(d, "w2", &n)); /* cold there: w1's table holds them */
    assert_int_equal(n.window, 1);
    assert_int_equal(n.alpha, 30);
    assert_int_equal(n.cold, 1);
    assert_string_equal(moves_of(d, &n, buf, sizeof buf), "e2e4 g1f3 c2c4 b1c3");
    ply__deepen_started(d, 1, &n, "w2");
    /* the check: a line of a move not in the job is refused */
    Ply__SearchResult *bad = result(40, 1, w + 1, 1, "d2d4");
    assert_int_equal(ply__deepen_check(d, &n, bad, why, sizeof why), PLY_EMISMATCH);
    assert_non_null(strstr(why, "not one of the job's moves"));
    ply__search_result__free_unpacked(bad, NULL);
    /* g1f3 fails high: its lower bound; the other three are free again, still null windows */
    Ply__SearchResult *hi = result(31, 1, w + 1, 2, "g1f3", "d7d5");
    assert_int_equal(ply__deepen_check(d, &n, hi, why, sizeof why), 0);
    assert_int_equal(take(d, 1, hi), 0);
    ply__deepen_job_t x = expect(d, "w2", 1, "g1f3", w + 1, 0); /* searched again exactly */
    (void)x;
    assert_true(ply__deepen_pick(d, "w3", &n));
    assert_string_equal(moves_of(d, &n, buf, sizeof buf), "e2e4 c2c4 b1c3");
    ply__deepen_started(d, 2, &n, "w3");
    /* they fail low together, the line naming one of them: every one gets the bound */
    assert_int_equal(take(d, 2, result(12, 2, w + 1, 2, "c2c4", "e7e5")), 0);
    assert_int_equal(take(d, 1, result(35, 0, w + 1, 2, "g1f3", "d7d5")), 0);
    assert_int_equal(take(d, 0, result(33, 0, w + 1, 2, "d2d4", "d7d5")), 1);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    assert_int_equal(a.depth, w + 1);
    assert_int_equal(a.n_moves, 5);    assert_string_equal(a.moves[0]->move, "g1f3");
    assert_int_equal(a.moves[0]->line->score_cp, 35);
    for (size_t i = 2; i < 5; i++) { /* e2e4, c2c4, b1c3: at most the line's 12 */
        assert_int_equal(a.moves[i]->line->bound, 2);
        assert_int_equal(a.moves[i]->line->score_cp, 12);
    }
    /* depth w + 2 from an engine that takes no window: its exact line is the best of the
     * job's moves, and bounds the others */
    expect(d, "w2", 0, "g1f3", w + 2, 0);
    expect(d, "w1", 1, "d2d4", w + 2, 1); /* its own, alone: the others are w3's */
    assert_true(ply__deepen_pick(d, "w3", &n));
    assert_string_equal(moves_of(d, &n, buf, sizeof buf), "e2e4 c2c4 b1c3");
    ply__deepen_started(d, 2, &n, "w3");
    assert_int_equal(take(d, 2, result(20, 0, w + 2, 2, "c2c4", "e7e5")), 0);
    assert_int_equal(take(d, 1, result(25, 2, w + 2, 1, "d2d4")), 0);
    assert_int_equal(take(d, 0, result(36, 0, w + 2, 2, "g1f3", "d7d5")), 1);
    ply__deepen_answer(d, &a);
    assert_int_equal(a.depth, w + 2);
    assert_string_equal(a.moves[1]->move, "c2c4");
    assert_int_equal(a.moves[1]->line->bound, 0);
    for (size_t i = 2; i < 5; i++) /* d2d4 <= 25; e2e4, b1c3 <= 20, c2c4's exact score */
        assert_int_equal(a.moves[i]->line->bound, 2);
    assert_string_equal(a.moves[2]->move, "d2d4");
    assert_int_equal(a.moves[3]->line->score_cp, 20);
    assert_int_equal(a.moves[4]->line->score_cp, 20);

    ply__deepen_free(&d);
}

static void test_score(void **state)
{
    (void)state;
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT;
    l.has_mate = 1, l.mate = 2;
    assert_int_equal(ply__deepen_score(&l), 32000 - 3);
    l.mate = -1;
    assert_int_equal(ply__deepen_score(&l), -32000 + 2);
    l.has_mate = 0, l.has_score_cp = 1, l.score_cp = -17;
    assert_int_equal(ply__deepen_score(&l), -17);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iterations),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_rank),
        cmocka_unit_test(test_multipv),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_not_twice),
        cmocka_unit_test(test_threshold_guess),
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_subset),
        cmocka_unit_test(test_score),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
