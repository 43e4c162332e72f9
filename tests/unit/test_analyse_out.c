/*
 * ply analyse's output (client/analyse_out.c) on synthetic answers: scores as users read them
 * (engines' and GUIs' "+0.31", "#3", "#-2"), PVs numbered as in PGN movetext (PGN standard
 * 8.2.2: "1. e4 e5", "1... e5" for a black move first), the coordinator's order kept, the
 * rule engine's rejections shown with the worker, the run's 128-bit node total, the JSON
 * fields, and a deepening analysis's iterations (SAN by the rule engine, PGN's notation) and
 * bounded root moves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyse_out.h"

static Ply__SearchLine cp_line(int cp, unsigned bound)
{
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT;
    l.has_score_cp = 1;
    l.score_cp = cp;
    l.has_bound = bound != 0;
    l.bound = bound;
    return l;
}

static void test_scores(void **state)
{
    (void)state;
    char buf[64];
    Ply__SearchLine l = cp_line(31, 0);
    ply_analyse_score_text(&l, 1, buf, sizeof buf);
    assert_string_equal(buf, "+0.31");
    l = cp_line(-120, 0);
    ply_analyse_score_text(&l, 1, buf, sizeof buf);
    assert_string_equal(buf, "-1.20");
    l = cp_line(-5, 1);
    ply_analyse_score_text(&l, 1, buf, sizeof buf);
    assert_string_equal(buf, ">= -0.05"); /* as GUIs show a fail-high */
    ply_analyse_score_text(&l, 0, buf, sizeof buf);
    assert_string_equal(buf, "-0.05");
    l = cp_line(0, 2);
    ply_analyse_score_text(&l, 1, buf, sizeof buf);
    assert_string_equal(buf, "<= 0.00");
    Ply__SearchLine m = PLY__SEARCH_LINE__INIT;
    m.has_mate = 1;
    m.mate = 3;
    ply_analyse_score_text(&m, 1, buf, sizeof buf);
    assert_string_equal(buf, "#3");
    m.mate = -2;
    ply_analyse_score_text(&m, 1, buf, sizeof buf);
    assert_string_equal(buf, "#-2");
}

static void test_keys(void **state)
{
    (void)state;
    Ply__SearchLine mate1 = PLY__SEARCH_LINE__INIT, mate3 = PLY__SEARCH_LINE__INIT;
    Ply__SearchLine mated1 = PLY__SEARCH_LINE__INIT, mated5 = PLY__SEARCH_LINE__INIT;
    mate1.has_mate = mate3.has_mate = mated1.has_mate = mated5.has_mate = 1;
    mate1.mate = 1, mate3.mate = 3, mated1.mate = -1, mated5.mate = -5;
    Ply__SearchLine big = cp_line(3000, 0), low = cp_line(-3000, 0);
    assert_true(ply_analyse_key(&mate1) > ply_analyse_key(&mate3));
    assert_true(ply_analyse_key(&mate3) > ply_analyse_key(&big));
    assert_true(ply_analyse_key(&low) > ply_analyse_key(&mated5));
    assert_true(ply_analyse_key(&mated5) > ply_analyse_key(&mated1));
}

static void test_pv_numbers(void **state)
{
    (void)state;
    char buf[256];
    char *w[] = {"e4", "e5", "Nf3"};
    ply_analyse_pv_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", w, 3, buf,
                        sizeof buf);
    assert_string_equal(buf, "1. e4 e5 2. Nf3");
    char *b[] = {"e5", "Nf3", "Nc6"};
    ply_analyse_pv_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", b, 3, buf,
                        sizeof buf);
    assert_string_equal(buf, "1... e5 2. Nf3 Nc6");
    char *late[] = {"Kh1"};
    ply_analyse_pv_text("7k/8/8/8/8/8/8/K7 b - - 12 40", late, 1, buf, sizeof buf);
    assert_string_equal(buf, "40... Kh1");
    ply_analyse_pv_text("8/8/8/8/8/8/8/K6k w - - 0 1", w, 3, buf, 12); /* does not fit */
    assert_string_equal(buf, "1. e4 ...");
}

/* A two-move answer: e4 and d4 as a coordinator would send them, one line rejected. */
typedef struct fixture {
    Ply__RunResult r;
    Ply__SearchAnswer s;
    Ply__AnalysedMove m[2], *mp[2];
    Ply__SearchLine l[2];
    char *pv[2][2], *san[2][2], *rejection[1];
} fixture_t;

static void fill(fixture_t *f)
{
    static char *pv0[] = {"e2e4", "e7e5"}, *san0[] = {"e4", "e5"};
    static char *pv1[] = {"d2d4", "d7d5"}, *san1[] = {"d4", "d5"};
    static char *rej[] = {"worker w2: d2d4: pv move 2 (d7d4) is not legal"};
    memset(f, 0, sizeof *f);
    f->r = (Ply__RunResult)PLY__RUN_RESULT__INIT;
    f->s = (Ply__SearchAnswer)PLY__SEARCH_ANSWER__INIT;
    f->s.fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for (int i = 0; i < 2; i++) {
        f->m[i] = (Ply__AnalysedMove)PLY__ANALYSED_MOVE__INIT;
        f->l[i] = cp_line(i ? 20 : 35, 0);
        f->l[i].has_depth = f->l[i].has_seldepth = 1;
        f->l[i].depth = 4;
        f->l[i].seldepth = 7;
        f->l[i].n_pv = 2;
        f->l[i].pv = i ? pv1 : pv0;
        f->m[i].line = &f->l[i];
        f->m[i].move = i ? "d2d4" : "e2e4";
        f->m[i].san = i ? "d4" : "e4";
        f->m[i].n_pv_san = 2;
        f->m[i].pv_san = i ? san1 : san0;
        f->m[i].has_nodes = 1;
        f->m[i].nodes = 1000u * (i + 1);
        f->m[i].has_time_us = 1;
        f->m[i].time_us = 2500;
        f->m[i].engine = "ply test builtin";
        f->m[i].worker_id = i ? "w2" : "w1";
        f->mp[i] = &f->m[i];
    }
    f->s.n_moves = 2;
    f->s.moves = f->mp;
    f->s.has_replayed = f->s.has_rejected = f->s.has_nodes = 1;
    f->s.replayed = 2;
    f->s.rejected = 1;
    f->s.nodes = 3000;
    f->s.n_rejection = 1;
    f->s.rejection = rej;
    f->r.search = &f->s;
    f->r.has_nodes = 1;
    f->r.nodes = 3000;
    f->r.jobs = 2;
    f->r.time_ms = 10;
}

static char *text_of(const Ply__RunResult *r, const ply_analyse_asked_t *a)
{
    char *buf = calloc(1, 16384);
    FILE *out = fmemopen(buf, 16383, "w");
    ply_analyse_print_text(out, r, a);
    fclose(out);
    return buf;
}

static void test_text(void **state)
{
    (void)state;
    fixture_t f;
    fill(&f);
    ply_analyse_asked_t a = {.root = f.s.fen, .depth = 4};
    char *t = text_of(&f.r, &a);
    assert_non_null(strstr(t, "Best: e4 +0.35  1. e4 e5\n"));
    char *e4 = strstr(t, "   1  e4 "), *d4 = strstr(t, "   2  d4 ");
    assert_true(e4 && d4 && e4 < d4); /* the coordinator's order */
    assert_non_null(strstr(t, "4/7"));
    assert_non_null(strstr(t, "2 jobs, 3000 nodes"));
    assert_non_null(strstr(t, "engine: ply test builtin\n"));
    assert_non_null(strstr(t, "Checked: 2 lines replayed by the rule engine; 1 rejected"));
    assert_non_null(strstr(t, "rejected: worker w2: d2d4"));
    free(t);
    /* the run's total is 128-bit (nodes_hi): 2^64 + 3000 */
    f.r.has_nodes_hi = 1;
    f.r.nodes_hi = 1;
    t = text_of(&f.r, &a);
    assert_non_null(strstr(t, "2 jobs, 18446744073709554616 nodes"));
    free(t);
    f.r.has_nodes_hi = 0;
    a.multipv = 1;
    t = text_of(&f.r, &a);
    assert_null(strstr(t, "   2  d4 "));
    assert_non_null(strstr(t, "1 more root moves"));
    free(t);
}

static void test_json(void **state)
{
    (void)state;
    fixture_t f;
    fill(&f);
    const char *hist[] = {"g1f3"};
    ply_analyse_asked_t a = {.root = "startpos", .moves = hist, .nmoves = 1, .nodes = 5000};
    json_t *o = ply_analyse_json(&f.r, &a);
    json_t *lines = json_object_get(o, "lines");
    assert_int_equal(json_array_size(lines), 2);
    json_t *l0 = json_array_get(lines, 0);
    assert_string_equal(json_string_value(json_object_get(l0, "san")), "e4");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(l0, "score"), "cp")), 35);
    assert_string_equal(json_string_value(json_object_get(json_object_get(l0, "score"), "bound")),
                        "exact");
    assert_string_equal(json_string_value(json_array_get(json_object_get(l0, "pv_san"), 1)), "e5");
    assert_string_equal(json_string_value(json_object_get(l0, "worker")), "w1");
    assert_string_equal(json_string_value(json_object_get(json_object_get(o, "best"), "move")),
                        "e2e4");
    assert_int_equal(json_integer_value(json_object_get(o, "nodes_asked")), 5000);
    assert_string_equal(json_string_value(json_array_get(json_object_get(o, "moves"), 0)), "g1f3");
    assert_int_equal(json_integer_value(json_object_get(o, "rejected")), 1);
    assert_int_equal(json_array_size(json_object_get(o, "rejections")), 1);
    json_decref(o);
}

/* A deepening analysis's answer: e4 exact, d4 proved worse (an upper bound), two
 * iterations, the last at depth 4. */
typedef struct deepened {
    fixture_t f;
    Ply__SearchIteration it[2], *itp[2];
    Ply__SearchLine il[2];
} deepened_t;

static void fill_deepened(deepened_t *d)
{
    static char *pv1[] = {"d2d4"}, *pv4[] = {"e2e4", "e7e5", "g1f3"};
    fill(&d->f);
    d->f.l[1].has_bound = 1, d->f.l[1].bound = 2;
    for (int i = 0; i < 2; i++) {
        d->it[i] = (Ply__SearchIteration)PLY__SEARCH_ITERATION__INIT;
        d->il[i] = cp_line(i ? 35 : 12, 0);
        d->il[i].n_pv = i ? 3 : 1;
        d->il[i].pv = i ? pv4 : pv1;
        d->it[i].line = &d->il[i];
        d->it[i].has_depth = d->it[i].has_time_ms = d->it[i].has_nodes = 1;
        d->it[i].depth = i ? 4 : 1;
        d->it[i].move = i ? "e2e4" : "d2d4";
        d->it[i].san = i ? "e4" : "d4";
        d->it[i].time_ms = i ? 1250 : 3;
        d->it[i].nodes = i ? 123456 : 20;
        d->itp[i] = &d->it[i];
    }
    d->f.s.has_depth = 1, d->f.s.depth = 4;
    d->f.s.n_iterations = 2, d->f.s.iterations = d->itp;
}

static void test_deepen_text(void **state)
{
    (void)state;
    deepened_t d;
    fill_deepened(&d);
    ply_analyse_asked_t a = {.root = d.f.s.fen, .deepen = 1, .multipv = 1, .movetime_ms = 500};
    char *t = text_of(&d.f.r, &a);
    assert_non_null(strstr(t, "Depth: 4 (2 iterations)\n"));
    assert_non_null(strstr(t, "Best: e4 +0.35  1. e4 e5\n"));
    assert_non_null(strstr(t, "   2  d4       <= +0.20 ")); /* every root move, as a bound */
    assert_null(strstr(t, "more root moves"));
    free(t);
    char buf[512];
    FILE *out = fmemopen(buf, sizeof buf, "w");
    ply_analyse_print_iteration(out, &d.it[1], d.f.s.fen, 0);
    fclose(out);
    assert_non_null(strstr(buf, "    4  +0.35 "));
    assert_non_null(strstr(buf, " 1.25 s "));
    assert_non_null(strstr(buf, " 123456  1. e4 e5 2. Nf3\n"));
}

static void test_deepen_json(void **state)
{
    (void)state;
    deepened_t d;
    fill_deepened(&d);
    json_t *it = ply_analyse_iteration_json(&d.it[1], d.f.s.fen, 0);
    assert_string_equal(json_string_value(json_object_get(it, "type")), "iteration");
    assert_int_equal(json_integer_value(json_object_get(it, "depth")), 4);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(it, "score"), "cp")), 35);
    assert_string_equal(json_string_value(json_object_get(it, "san")), "e4");
    json_t *san = json_object_get(it, "pv_san");
    assert_int_equal(json_array_size(san), 3);
    assert_string_equal(json_string_value(json_array_get(san, 2)), "Nf3");
    assert_int_equal(json_array_size(json_object_get(it, "pv")), 3);
    assert_int_equal(json_integer_value(json_object_get(it, "time_ms")), 1250);
    assert_int_equal(json_integer_value(json_object_get(it, "nodes")), 123456);
    json_decref(it);
    /* a line that goes wrong is written in SAN up to its first illegal move */
    static char *bad[] = {"e2e4", "e2e4"};
    d.il[1].pv = bad, d.il[1].n_pv = 2;
    it = ply_analyse_iteration_json(&d.it[1], d.f.s.fen, 0);
    assert_int_equal(json_array_size(json_object_get(it, "pv_san")), 1);
    json_decref(it);
    ply_analyse_asked_t a = {.root = d.f.s.fen, .deepen = 1, .multipv = 1};
    json_t *o = ply_analyse_json(&d.f.r, &a);
    assert_string_equal(json_string_value(json_object_get(o, "type")), "result");
    assert_int_equal(json_integer_value(json_object_get(o, "depth")), 4);
    assert_true(json_is_null(json_object_get(o, "depth_asked")));
    assert_int_equal(json_integer_value(json_object_get(o, "multipv")), 1);
    assert_int_equal(json_array_size(json_object_get(o, "lines")), 2); /* every root move */
    json_t *l1 = json_array_get(json_object_get(o, "lines"), 1);
    assert_string_equal(json_string_value(json_object_get(json_object_get(l1, "score"), "bound")),
                        "upper");
    assert_int_equal(json_array_size(json_object_get(o, "iterations")), 2);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores),      cmocka_unit_test(test_keys),
        cmocka_unit_test(test_pv_numbers),  cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),        cmocka_unit_test(test_deepen_text),
        cmocka_unit_test(test_deepen_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
