/*
 * coordinator/status_render.c: a hand-made status snapshot as /status JSON and
 * /metrics text. Expected values: the start position's perft(15) =
 * 2015099950053364471960 (OEIS A048987; its 64-bit words 109 and
 * 4404846019023345816 computed with Python's integers) must print with every
 * digit in both; label values escape \ as \\, " as \" and a newline as \n
 * (prometheus.io/docs/instrumenting/exposition_formats, "Text format
 * details"); every metric family has one HELP and one TYPE line before its
 * samples. A search run's lines: WAC.027 (Reinfeld, Win at Chess) is mate in 2 by 1. Qf8+
 * Rxf8 2. Rxf8# (Stockfish 15.1 "go depth 10": score mate 2), which /status gives as a line
 * with mate 2 and no score_cp, its bound named; a run its viewer may not read has no lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "status.h"

static void fill(ply__status_t *s, ply__status_run_t *run, ply__status_worker_t *w)
{
    memset(s, 0, sizeof *s);
    memset(run, 0, sizeof *run);
    memset(w, 0, sizeof *w);
    run->id = 42;
    strcpy(run->kind, "perft");
    strcpy(run->state, "running");
    strcpy(run->fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    run->depth = 15;
    run->jobs_total = 10, run->jobs_done = 4, run->jobs_in_flight = 2, run->jobs_queued = 4;
    run->nodes = ply_u128_make(109, 4404846019023345816ull);
    run->nodes_per_second = 1234.6;
    run->eta_ms = -1;
    run->progress = 0.25;
    strcpy(w->worker_id, "a\"b\\c");
    strcpy(w->identity, "conn:00ab");
    w->threads = 8, w->hash_mib = 256, w->kinds[0] = "perft", w->nkinds = 1;
    w->nodes_per_second = 5e8;
    w->heartbeat_age_ms = 250;
    s->runs = run, s->nruns = 1;
    s->workers = w, s->nworkers = 1;
    s->nodes_total = run->nodes;
    s->threads = 8;
    s->runs_by_state[2] = 1; /* running */
    s->counters.verify_mismatches = 3;
}

static void test_metrics(void **state)
{
    (void)state;
    ply__status_t s;
    ply__status_run_t run;
    ply__status_worker_t w;
    fill(&s, &run, &w);
    size_t len = 0;
    char *m = ply__status_metrics(&s, &len);
    assert_non_null(m);
    assert_int_equal(strlen(m), len);
    assert_non_null(strstr(m, "\nply_nodes_total 2015099950053364471960\n"));
    assert_non_null(strstr(m, "\nply_jobs{state=\"in_flight\"} 2\n"));
    assert_non_null(strstr(m, "\nply_jobs{state=\"queued\"} 4\n"));
    assert_non_null(strstr(m, "\nply_runs{state=\"running\"} 1\n"));
    assert_non_null(strstr(m, "\nply_verify_mismatches_total 3\n"));
    assert_non_null(strstr(m, "\nply_workers_connected 1\n"));
    assert_non_null(
        strstr(m, "\nply_worker_nodes_per_second{worker=\"a\\\"b\\\\c\",identity=\"conn:00ab\"} "
                  "500000000\n"));
    assert_non_null(strstr(m, "\nply_run_nodes_per_second{run=\"42\",kind=\"perft\"} 1235\n"));
    /* every sample's family was announced by a HELP and a TYPE line just before */
    int families = 0;
    for (char *line = m; *line; line = strchr(line, '\n') + 1) {
        if (strncmp(line, "# HELP ", 7) == 0) {
            char name[96];
            assert_int_equal(sscanf(line + 7, "%95s", name), 1);
            char *next = strchr(line, '\n') + 1;
            char type[128];
            snprintf(type, sizeof type, "# TYPE %s ", name);
            assert_memory_equal(next, type, strlen(type));
            families++;
        }
        assert_non_null(strchr(line, '\n')); /* the text ends with a line end */
    }
    assert_true(families >= 15);
    free(m);
}

static void test_json(void **state)
{
    (void)state;
    ply__status_t s;
    ply__status_run_t run;
    ply__status_worker_t w;
    fill(&s, &run, &w);
    size_t len = 0;
    char *j = ply__status_json(&s, &len);
    assert_non_null(j);
    assert_int_equal(strlen(j), len);
    assert_non_null(strstr(j, "\"nodes\": 2015099950053364471960,"));
    assert_non_null(strstr(j, "\"nodes_total\": 2015099950053364471960,"));
    assert_non_null(strstr(j, "\"eta_ms\": null,"));
    assert_non_null(strstr(j, "\"progress\": 0.25,"));
    assert_non_null(strstr(j, "\"nodes_per_second\": 1235,"));
    assert_non_null(strstr(j, "\"worker_id\": \"a\\\"b\\\\c\","));
    assert_non_null(strstr(j, "\"excluded\": false,"));
    assert_non_null(strstr(j, "\"in_flight\": 2,"));
    free(j);
}

static void test_empty(void **state)
{
    (void)state;
    ply__status_t s;
    memset(&s, 0, sizeof s);
    size_t len = 0;
    char *j = ply__status_json(&s, &len);
    assert_non_null(j);
    assert_non_null(strstr(j, "\"runs\": []"));
    assert_non_null(strstr(j, "\"workers\": []"));
    free(j);
    char *m = ply__status_metrics(&s, &len);
    assert_non_null(m);
    assert_non_null(strstr(m, "\nply_nodes_total 0\n"));
    free(m);
}

static void test_search_json(void **state)
{
    (void)state;
    ply__status_t s;
    ply__status_run_t run[2];
    ply__status_worker_t w;
    fill(&s, &run[0], &w);
    ply__status_iter_t it[2] = {
        {.depth = 1, .san = "Qf8+", .score_cp = 120, .time_ms = 5, .nodes = 90},
        {.depth = 3, .san = "Qf8+", .has_mate = 1, .mate = 2, .time_ms = 40, .nodes = 5000}};
    ply__status_run_t *r = &run[0];
    strcpy(r->kind, "search");
    strcpy(r->fen, "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1");
    r->depth = 0, r->deepen = 1, r->movetime_ms = 1500;
    r->nodes = s.nodes_total = ply_u128_make(0, 5000); /* jansson reads 64-bit integers only */
    r->has_search = 1, r->search_depth = 3, r->moves_done = 44, r->nlines = 2;
    strcpy(r->lines[0].move, "a3f8"), strcpy(r->lines[0].san, "Qf8+");
    strcpy(r->lines[0].pv[0], "Qf8+"), strcpy(r->lines[0].pv[1], "Rxf8"),
        strcpy(r->lines[0].pv[2], "Rxf8#");
    r->lines[0].npv = 3, r->lines[0].has_mate = 1, r->lines[0].mate = 2, r->lines[0].depth = 3;
    strcpy(r->lines[1].move, "f1f2"), strcpy(r->lines[1].san, "Rxf2");
    strcpy(r->lines[1].pv[0], "Rxf2"), r->lines[1].npv = 1;
    r->lines[1].score_cp = -15, r->lines[1].bound = 2, r->lines[1].depth = 3;
    r->iters = it, r->niters = 2;
    run[1] = run[0];
    run[1].id = 43, run[1].has_search = 0, run[1].answer_hidden = 1, run[1].iters = NULL;
    run[1].niters = 0;
    s.nruns = 2;
    size_t len = 0;
    char *text = ply__status_json(&s, &len);
    assert_non_null(text);
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    json_t *a = json_array_get(json_object_get(doc, "runs"), 0);
    assert_true(json_is_true(json_object_get(a, "deepen")));
    assert_false(json_is_true(json_object_get(a, "answer_hidden")));
    json_t *sr = json_object_get(a, "search");
    assert_int_equal(json_integer_value(json_object_get(sr, "depth")), 3);
    assert_int_equal(json_integer_value(json_object_get(sr, "moves_done")), 44);
    json_t *l0 = json_array_get(json_object_get(sr, "lines"), 0);
    assert_string_equal(json_string_value(json_object_get(l0, "san")), "Qf8+");
    assert_string_equal(json_string_value(json_object_get(l0, "move")), "a3f8");
    assert_int_equal(json_integer_value(json_object_get(l0, "mate")), 2);
    assert_true(json_is_null(json_object_get(l0, "score_cp")));
    assert_string_equal(json_string_value(json_object_get(l0, "bound")), "exact");
    assert_int_equal(json_array_size(json_object_get(l0, "pv")), 3);
    assert_string_equal(json_string_value(json_array_get(json_object_get(l0, "pv"), 2)), "Rxf8#");
    json_t *l1 = json_array_get(json_object_get(sr, "lines"), 1);
    assert_int_equal(json_integer_value(json_object_get(l1, "score_cp")), -15);
    assert_true(json_is_null(json_object_get(l1, "mate")));
    assert_string_equal(json_string_value(json_object_get(l1, "bound")), "upper");
    json_t *its = json_object_get(sr, "iterations");
    assert_int_equal(json_array_size(its), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(its, 0), "score_cp")), 120);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(its, 1), "mate")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(its, 1), "time_ms")), 40);
    json_t *b = json_array_get(json_object_get(doc, "runs"), 1);
    assert_true(json_is_true(json_object_get(b, "answer_hidden")));
    assert_true(json_is_null(json_object_get(b, "search")));
    json_decref(doc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_search_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
