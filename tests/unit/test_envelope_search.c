/*
 * Tests of proto/envelope_search.c: the search kind's messages (issue 11; SearchJob,
 * SearchResult, a search Submit, RunResult and RunProgress, a HELLO with kinds) round
 * trip through the wire, and each rule of the search kind, one case each, through
 * ply_msg_validate and the wire. The perft messages are the golden ones of
 * tests/support/proto_golden.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "proto_golden.h"
#include "util/error.h"

/* ---------------------------------------------------- the search kind (issue 11) */

/* A SEARCH job: the start position after 1. e4 e5, depth 6, two root moves, 2 lines. */
static char *g_search_moves[PLY_SEARCH_JOB_MAX_MOVES + 1];
static ply_msg_t *build_search_job(void)
{
    static Ply__SearchJob s;
    static Ply__Job m;
    static char *history[2], *g_searchmoves[2];
    history[0] = "e2e4", history[1] = "e7e5"; /* rebuilt: an edit may have changed them */
    g_searchmoves[0] = "g1f3", g_searchmoves[1] = "d2d4";
    s = (Ply__SearchJob)PLY__SEARCH_JOB__INIT;
    s.fen = "startpos";
    s.n_moves = 2, s.moves = history;
    s.n_searchmoves = 2, s.searchmoves = g_searchmoves;
    s.has_depth = 1, s.depth = 6;
    s.has_multipv = 1, s.multipv = 2;
    s.has_chess960 = 1, s.chess960 = 0;
    m = (Ply__Job)PLY__JOB__INIT;
    m.has_job_id = 1, m.job_id = 42;
    m.has_attempt = 1, m.attempt = 1;
    m.has_kind = 1, m.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    m.has_run_id = 1, m.run_id = 7;
    m.has_lease_ms = 1, m.lease_ms = 60000;
    m.search = &s;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_JOB);
    msg->job = &m;
    return msg;
}

/* A search-shaped RESULT: two lines, a mate in 2 (3 plies of PV) and a score in centipawns. */
static ply_msg_t *build_search_result(void)
{
    static Ply__SearchResult s;
    static Ply__SearchLine l[2], *lp[2];
    static char *pv1[3], *pv2[1];
    static Ply__Result m;
    pv1[0] = "h6h7", pv1[1] = "h8h7", pv1[2] = "h5g6", pv2[0] = "d3g6";
    for (int i = 0; i < 2; i++) {
        l[i] = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        l[i].has_multipv = 1, l[i].multipv = (uint32_t)i + 1;
        l[i].has_bound = 1, l[i].bound = 0;
        l[i].has_depth = 1, l[i].depth = 6;
        l[i].has_seldepth = 1, l[i].seldepth = 9;
        lp[i] = &l[i];
    }
    l[0].has_mate = 1, l[0].mate = 2;
    l[0].n_pv = 3, l[0].pv = pv1;
    l[1].has_score_cp = 1, l[1].score_cp = -35;
    l[1].n_pv = 1, l[1].pv = pv2;
    s = (Ply__SearchResult)PLY__SEARCH_RESULT__INIT;
    s.n_lines = 2, s.lines = lp;
    s.has_nodes = 1, s.nodes = 123456;
    s.has_time_us = 1, s.time_us = 98765;
    s.engine = "ply 0.1.0 builtin";
    m = (Ply__Result)PLY__RESULT__INIT;
    m.has_job_id = 1, m.job_id = 42;
    m.has_attempt = 1, m.attempt = 1;
    m.has_time_us = 1, m.time_us = 99000;
    m.search = &s;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RESULT);
    msg->result = &m;
    return msg;
}

static uint32_t g_kinds[3] = {PLY__JOB_KIND__JOB_KIND_PERFT, PLY__JOB_KIND__JOB_KIND_SEARCH};
static ply_msg_t *build_hello_kinds(void)
{
    ply_msg_t *msg = build_hello();
    g_kinds[0] = PLY__JOB_KIND__JOB_KIND_PERFT, g_kinds[1] = PLY__JOB_KIND__JOB_KIND_SEARCH;
    msg->hello->n_kinds = 2, msg->hello->kinds = g_kinds;
    msg->hello->engine = "builtin";
    return msg;
}

/* Encodes @m, decodes it and expects the same message back, validated. */
static void round_trip(ply_msg_t *m)
{
    char why[256];
    assert_int_equal(ply_msg_validate(m, why, sizeof why), 0);
    zmsg_t *z = ply_msg_encode(m);
    assert_non_null(z);
    ply_msg_t *got = NULL;
    if (ply_msg_decode(z, &got, why, sizeof why) != 0) fail_msg("decode: %s", why);
    assert_true(msg_equal(&got->base, &m->base));
    ply_msg_free(&got);
    zmsg_destroy(&z);
}

static void test_search_round_trip(void **state)
{
    (void)state;
    round_trip(build_search_job());
    round_trip(build_search_result());

    round_trip(build_hello_kinds());
    /* an older worker's HELLO (no kinds) and a perft job still pass unchanged */
    round_trip(build_hello());
    round_trip(build_job());
    ply_msg_t *m = build_search_job();
    assert_int_equal(m->job->search->n_moves, 2);
    assert_string_equal(m->job->search->moves[1], "e7e5");
}

static char long_moves_text[8] = "e2e4";
EDIT(sj_no_search, m->job->search = NULL)
/* a perft job's sub-message, or another kind's bytes, beside a search job */
static void sj_perft(ply_msg_t *m) /* build_job rewraps the message: keep the search job */
{
    Ply__Job *search = m->job;
    search->perft = build_job()->job->perft;
    m->body_case = PLY__MESSAGE__BODY_JOB;
    m->job = search;
}
EDIT(sj_other, (m->job->has_other = 1, m->job->other.len = 0))
EDIT(sj_no_fen, m->job->search->fen = NULL)
EDIT(sj_long_fen, m->job->search->fen = long_fen)
EDIT(sj_bad_move, m->job->search->moves[1] = "e7e9")
EDIT(sj_short_move, m->job->search->moves[0] = "e2e")
EDIT(sj_bad_searchmove, m->job->search->searchmoves[1] = "d2d4k")
EDIT(sj_too_many_moves, (m->job->search->n_moves = PLY_SEARCH_JOB_MAX_MOVES + 1,
                         m->job->search->moves = g_search_moves))
EDIT(sj_max_moves,
     (m->job->search->n_moves = PLY_SEARCH_JOB_MAX_MOVES, m->job->search->moves = g_search_moves))
EDIT(sj_depth_0, m->job->search->depth = 0)
EDIT(sj_depth_max, m->job->search->depth = PLY_SEARCH_JOB_MAX_DEPTH)
EDIT(sj_depth_over, m->job->search->depth = PLY_SEARCH_JOB_MAX_DEPTH + 1)
EDIT(sj_nodes_0, (m->job->search->has_nodes = 1, m->job->search->nodes = 0))
EDIT(sj_movetime_0, (m->job->search->has_movetime_ms = 1, m->job->search->movetime_ms = 0))
EDIT(sj_movetime_over, (m->job->search->has_movetime_ms = 1,
                        m->job->search->movetime_ms = PLY_SEARCH_JOB_MAX_MOVETIME_MS + 1))
EDIT(sj_unlimited, m->job->search->has_depth = 0)
EDIT(sj_nodes_only,
     (m->job->search->has_depth = 0, m->job->search->has_nodes = 1, m->job->search->nodes = 100000))
EDIT(sj_multipv_0, m->job->search->multipv = 0)
EDIT(sj_multipv_max, m->job->search->multipv = PLY_SEARCH_JOB_MAX_MULTIPV)
EDIT(sj_multipv_over, m->job->search->multipv = PLY_SEARCH_JOB_MAX_MULTIPV + 1)
EDIT(sj_no_multipv, m->job->search->has_multipv = 0)
/* a root window (SearchJob.alpha, beta): one line (multipv 1), within ply's infinite score */
#define SJ_WINDOW(a, b)                                                                            \
    (m->job->search->multipv = 1, m->job->search->has_alpha = 1, m->job->search->alpha = (a),      \
     m->job->search->has_beta = 1, m->job->search->beta = (b))
EDIT(sj_window_null, SJ_WINDOW(30, 31))
EDIT(sj_window_widest, SJ_WINDOW(-32767, 32767))
EDIT(sj_window_alpha_only,
     (m->job->search->multipv = 1, m->job->search->has_alpha = 1, m->job->search->alpha = -31997))
EDIT(sj_window_beta_only_no_multipv,
     (m->job->search->has_multipv = 0, m->job->search->has_beta = 1, m->job->search->beta = 31997))
EDIT(sj_window_alpha_under, SJ_WINDOW(-32768, 0))
EDIT(sj_window_beta_over, SJ_WINDOW(0, 32768))
EDIT(sj_window_empty, SJ_WINDOW(5, 5))
EDIT(sj_window_reversed, SJ_WINDOW(6, -6))
EDIT(sj_window_multipv, (SJ_WINDOW(0, 1), m->job->search->multipv = 2))
EDIT(sj_window_beta_multipv, (m->job->search->has_beta = 1, m->job->search->beta = 1))
static uint32_t g_window_plies[1] = {2};
EDIT(sj_window_plies, (SJ_WINDOW(0, 1), m->job->search->n_searchmoves = 0,
                       m->job->search->n_plies = 1, m->job->search->plies = g_window_plies))
/* the first iteration (SearchJob.start_depth): 1..depth (6 here) */
EDIT(sj_start_depth, (m->job->search->has_start_depth = 1, m->job->search->start_depth = 5))
EDIT(sj_start_depth_at, (m->job->search->has_start_depth = 1, m->job->search->start_depth = 6))
EDIT(sj_start_depth_0, (m->job->search->has_start_depth = 1, m->job->search->start_depth = 0))
EDIT(sj_start_depth_over, (m->job->search->has_start_depth = 1, m->job->search->start_depth = 7))
EDIT(sj_start_depth_no_depth,
     (m->job->search->has_start_depth = 1, m->job->search->start_depth = 1,
      m->job->search->has_depth = 0, m->job->search->has_nodes = 1, m->job->search->nodes = 1000))
EDIT(sj_kind_3, m->job->kind = 3)
/* a perft job with a search beside (build_search_job rewraps the message: keep the job) */
static void perft_job_with_search(ply_msg_t *m)
{
    Ply__Job *perft = m->job;
    perft->search = build_search_job()->job->search;
    m->body_case = PLY__MESSAGE__BODY_JOB;
    m->job = perft;
}
EDIT(sr_nodes, (m->result->has_nodes = 1, m->result->nodes = 5))
EDIT(sr_perft1, (m->result->has_perft1 = 1, m->result->perft1 = 20))
EDIT(sr_tt_nodes, (m->result->has_tt_nodes = 1))
EDIT(sr_no_time, m->result->has_time_us = 0)
EDIT(sr_no_lines, m->result->search->n_lines = 0)
EDIT(sr_line_no_multipv, m->result->search->lines[1]->has_multipv = 0)
EDIT(sr_line_multipv_0, m->result->search->lines[1]->multipv = 0)
EDIT(sr_line_both_scores,
     (m->result->search->lines[0]->has_score_cp = 1, m->result->search->lines[0]->score_cp = 10))
EDIT(sr_line_no_score, m->result->search->lines[1]->has_score_cp = 0)
EDIT(sr_line_no_bound, m->result->search->lines[0]->has_bound = 0)
EDIT(sr_line_bound_3, m->result->search->lines[0]->bound = 3)
EDIT(sr_line_bound_2, m->result->search->lines[0]->bound = 2)
EDIT(sr_line_no_depth, m->result->search->lines[0]->has_depth = 0)
/* an engine's iteration past what a job may ask: Stockfish 15.1 said depth 146 at 10,000
 * nodes on a resolved WAC position, and such a result was dropped as malformed */
EDIT(sr_line_depth_146, m->result->search->lines[0]->depth = 146)
EDIT(sr_line_depth_over, m->result->search->lines[0]->depth = PLY_SEARCH_LINE_MAX_DEPTH + 1)
EDIT(sr_line_no_seldepth, m->result->search->lines[1]->has_seldepth = 0)
EDIT(sr_line_bad_pv, m->result->search->lines[0]->pv[2] = "h5g0")
EDIT(sr_line_long_pv, (m->result->search->lines[0]->n_pv = PLY_SEARCH_JOB_MAX_PV + 1,
                       m->result->search->lines[0]->pv = g_search_moves))
EDIT(sr_no_nodes, m->result->search->has_nodes = 0)
EDIT(sr_no_search_time, m->result->search->has_time_us = 0)
/* A SEARCH request (Submit.search, RunAsked.search): after 1. e4, depth 8, two root moves. */
static Ply__SearchRequest *search_request(void)
{
    static Ply__SearchRequest q;
    static char *history[1], *sm[2];
    history[0] = "e2e4";
    sm[0] = "e7e5", sm[1] = "c7c5";
    q = (Ply__SearchRequest)PLY__SEARCH_REQUEST__INIT;
    q.fen = "startpos";
    q.n_moves = 1, q.moves = history;
    q.n_searchmoves = 2, q.searchmoves = sm;
    q.has_depth = 1, q.depth = 8;
    q.engine = "builtin";
    return &q;
}

static ply_msg_t *build_search_submit(void)
{
    static Ply__Submit m;
    m = (Ply__Submit)PLY__SUBMIT__INIT;
    m.has_kind = 1, m.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    m.search = search_request();
    m.client_id = "test";
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_SUBMIT);
    msg->submit = &m;
    return msg;
}

static Ply__RunAsked *search_asked(void)
{
    static Ply__RunAsked a;
    a = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    a.has_kind = 1, a.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    a.search = search_request();
    return &a;
}

/* A search answer: two root moves with their lines, one rejection. */
static Ply__SearchAnswer *search_answer(void)
{
    static Ply__SearchAnswer a;
    static Ply__AnalysedMove am[2], *amp[2];
    static Ply__SearchLine l[2];
    static char *pv[2][2], *pv_san[2][2], *rej[1];
    pv[0][0] = "e7e5", pv[0][1] = "g1f3", pv[1][0] = "c7c5", pv[1][1] = "g1f3";
    pv_san[0][0] = "e5", pv_san[0][1] = "Nf3", pv_san[1][0] = "c5", pv_san[1][1] = "Nf3";
    rej[0] = "worker w (identity conn:00): e7e5: PV move 2 g1f9 is not legal";
    for (int i = 0; i < 2; i++) {
        l[i] = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        l[i].has_multipv = 1, l[i].multipv = 1;
        l[i].has_score_cp = 1, l[i].score_cp = -20 - i;
        l[i].has_depth = 1, l[i].depth = 8;
        l[i].n_pv = 2, l[i].pv = pv[i];
        am[i] = (Ply__AnalysedMove)PLY__ANALYSED_MOVE__INIT;
        am[i].move = pv[i][0];
        am[i].san = pv_san[i][0];
        am[i].line = &l[i];
        am[i].n_pv_san = 2, am[i].pv_san = pv_san[i];
        am[i].worker_id = "w";
        amp[i] = &am[i];
    }
    a = (Ply__SearchAnswer)PLY__SEARCH_ANSWER__INIT;
    a.fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    a.n_moves = 2, a.moves = amp;
    a.has_rejected = 1, a.rejected = 1;
    a.n_rejection = 1, a.rejection = rej;
    return &a;
}

static ply_msg_t *build_search_run_result(void)
{
    static Ply__RunResult r;
    r = (Ply__RunResult)PLY__RUN_RESULT__INIT;
    r.has_run_id = 1, r.run_id = 9;
    r.fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    r.has_depth = 1, r.depth = 8;
    r.has_nodes = 1, r.nodes = 1000;
    r.has_jobs = 1, r.jobs = 2;
    r.asked = search_asked();
    r.search = search_answer();
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RUN_RESULT);
    msg->run_result = &r;
    return msg;
}

static ply_msg_t *build_search_progress(void)
{
    static Ply__RunProgress p;
    p = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    p.has_run_id = 1, p.run_id = 9;
    p.state = "running";
    p.asked = search_asked();
    p.search = search_answer();
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RUN_PROGRESS);
    msg->run_progress = &p;
    return msg;
}

/* a perft request, or another kind's bytes, beside a search request */
static void ss_perft(ply_msg_t *m) /* build_submit rewraps the message: keep the search one */
{
    Ply__Submit *search = m->submit;
    search->perft = build_submit()->submit->perft;
    m->body_case = PLY__MESSAGE__BODY_SUBMIT;
    m->submit = search;
}
EDIT(ss_other, m->submit->has_other = 1)
EDIT(ss_no_search, m->submit->search = NULL)
EDIT(ss_bad_fen, m->submit->search->fen = long_fen)
EDIT(ss_bad_move, m->submit->search->moves[0] = "e2e9")
EDIT(ss_bad_searchmove, m->submit->search->searchmoves[1] = "c7")
EDIT(ss_too_many_moves, (m->submit->search->n_moves = PLY_SEARCH_JOB_MAX_MOVES + 1,
                         m->submit->search->moves = g_search_moves))
EDIT(ss_too_many_searchmoves, (m->submit->search->n_searchmoves = PLY_MAX_DIVIDE + 1,
                               m->submit->search->searchmoves = g_search_moves))
EDIT(ss_depth_0, m->submit->search->depth = 0)
EDIT(ss_depth_over, m->submit->search->depth = PLY_SEARCH_JOB_MAX_DEPTH + 1)
EDIT(ss_nodes_0, (m->submit->search->has_nodes = 1, m->submit->search->nodes = 0))
EDIT(ss_movetime_over, (m->submit->search->has_movetime_ms = 1,
                        m->submit->search->movetime_ms = PLY_SEARCH_JOB_MAX_MOVETIME_MS + 1))
EDIT(ss_unlimited, m->submit->search->has_depth = 0)
EDIT(ss_movetime_only, (m->submit->search->has_depth = 0, m->submit->search->has_movetime_ms = 1,
                        m->submit->search->movetime_ms = 100))
EDIT(ss_engine_uci, m->submit->search->engine = "uci")
EDIT(ss_engine_empty, m->submit->search->engine = "")
EDIT(ss_engine_none, m->submit->search->engine = NULL)
EDIT(ss_engine_other, m->submit->search->engine = "stockfish")
EDIT(ss_verify, (m->submit->has_verify = 1, m->submit->verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL))
EDIT(ss_kind_3, m->submit->kind = 3)
EDIT(ps_with_search, m->submit->search = search_request())
EDIT(srr_no_nodes, m->run_result->has_nodes = 0)
EDIT(srr_no_depth, m->run_result->has_depth = 0)
static Ply__DivideEntry g_one_entry = PLY__DIVIDE_ENTRY__INIT, *g_one_divide[1] = {&g_one_entry};
static Ply__AnalysedMove *g_many_moves[PLY_MAX_DIVIDE + 1];
static void srr_too_many_moves(ply_msg_t *m)
{
    Ply__SearchAnswer *a = m->run_result->search;
    for (size_t i = 0; i <= PLY_MAX_DIVIDE; i++) g_many_moves[i] = a->moves[0];
    a->n_moves = PLY_MAX_DIVIDE + 1, a->moves = g_many_moves;
}
EDIT(srr_divide, (g_one_entry.move = "e2e4", g_one_entry.has_nodes = 1, m->run_result->n_divide = 1,
                  m->run_result->divide = g_one_divide))
EDIT(srr_bad_status, m->run_result->search->status = "won")
EDIT(srr_checkmate,
     (m->run_result->search->status = "checkmate", m->run_result->search->n_moves = 0))
EDIT(srr_bad_move, m->run_result->search->moves[1]->move = "c7c9")
EDIT(srr_bad_pv, m->run_result->search->moves[0]->line->pv[1] = "g1")
EDIT(srr_long_pv, (m->run_result->search->moves[0]->line->n_pv = PLY_SEARCH_JOB_MAX_PV + 1,
                   m->run_result->search->moves[0]->line->pv = g_search_moves))
EDIT(srr_two_scores, (m->run_result->search->moves[0]->line->has_mate = 1,
                      m->run_result->search->moves[0]->line->mate = 2))
EDIT(srr_long_pv_san, (m->run_result->search->moves[0]->n_pv_san = PLY_SEARCH_JOB_MAX_PV + 1,
                       m->run_result->search->moves[0]->pv_san = g_search_moves))
EDIT(srr_bad_san, m->run_result->search->moves[0]->pv_san[1] = "N\nf3")
EDIT(srr_long_worker, m->run_result->search->moves[1]->worker_id = long_text)
EDIT(srr_bad_rejection, m->run_result->search->rejection[0] = "")
EDIT(srr_many_rejections, (m->run_result->search->n_rejection = PLY_MAX_MISMATCHES + 1,
                           m->run_result->search->rejection = g_search_moves))
EDIT(srr_asked_no_search, m->run_result->asked->search = NULL)
EDIT(srr_asked_perft_search, m->run_result->asked->kind = PLY__JOB_KIND__JOB_KIND_PERFT)
EDIT(srr_asked_bad_engine, m->run_result->asked->search->engine = "gnuchess")
EDIT(srp_bad_pv, m->run_progress->search->moves[1]->line->pv[0] = "c7c5x")
EDIT(srp_asked_unlimited, m->run_progress->asked->search->has_depth = 0)

EDIT(sr_bad_engine, m->result->search->engine = "ply\nFAKE")
EDIT(sr_no_engine, m->result->search->engine = NULL)
EDIT(hk_kind_0, m->hello->kinds[1] = PLY__JOB_KIND__JOB_KIND_UNSPECIFIED)
EDIT(hk_kind_big, m->hello->kinds[1] = 4000000000u) /* any kind number passes the envelope */
static uint32_t g_many_kinds[PLY_MAX_KINDS + 1];
static void hk_too_many(ply_msg_t *m)
{
    for (uint32_t i = 0; i <= PLY_MAX_KINDS; i++) g_many_kinds[i] = i + 1;
    m->hello->n_kinds = PLY_MAX_KINDS + 1, m->hello->kinds = g_many_kinds;
}
EDIT(hk_kind_twice, m->hello->kinds[1] = PLY__JOB_KIND__JOB_KIND_PERFT)
EDIT(hk_search_only, (m->hello->n_kinds = 1, m->hello->kinds[0] = PLY__JOB_KIND__JOB_KIND_SEARCH))
EDIT(hk_bad_engine, m->hello->engine = long_text)

typedef struct scase {
    ply_msg_t *(*build)(void);
    void (*edit)(ply_msg_t *m);
    int rc;
    const char *reason;
} scase_t;

static const scase_t SCASES[] = {
    {build_search_job, sj_no_search, PLY_EPROTO, "JOB: field search missing"},
    {build_search_job, sj_perft, PLY_EPROTO, "JOB: field perft present in a SEARCH job"},
    {build_search_job, sj_other, PLY_EPROTO, "JOB: field other present in a SEARCH job"},
    {build_search_job, sj_no_fen, PLY_EPROTO, "JOB: field search.fen missing"},
    {build_search_job, sj_long_fen, PLY_EPROTO, "JOB: field search.fen is over 128 bytes"},
    {build_search_job, sj_bad_move, PLY_EPROTO, "JOB: field search.moves[1] is not a UCI move"},
    {build_search_job, sj_short_move, PLY_EPROTO, "JOB: field search.moves[0] is not a UCI move"},
    {build_search_job, sj_bad_searchmove, PLY_EPROTO,
     "JOB: field search.searchmoves[1] is not a UCI move"},
    {build_search_job, sj_too_many_moves, PLY_EPROTO,
     "JOB: field search.moves has 1025 moves, must be at most 1024"},
    {build_search_job, sj_max_moves, 0, NULL},
    {build_search_job, sj_depth_0, PLY_EPROTO, "JOB: field search.depth = 0, must be 1..100"},
    {build_search_job, sj_depth_max, 0, NULL},
    {build_search_job, sj_depth_over, PLY_EPROTO, "JOB: field search.depth = 101, must be 1..100"},
    {build_search_job, sj_nodes_0, PLY_EPROTO, "JOB: field search.nodes = 0, must be at least 1"},
    {build_search_job, sj_movetime_0, PLY_EPROTO, "JOB: field search.movetime_ms = 0, must be 1.."},
    {build_search_job, sj_movetime_over, PLY_EPROTO,
     "JOB: field search.movetime_ms = 86400001, must be 1..86400000"},
    {build_search_job, sj_unlimited, PLY_EPROTO,
     "JOB: field search.depth, search.nodes or search.movetime_ms missing"},
    {build_search_job, sj_nodes_only, 0, NULL},
    {build_search_job, sj_multipv_0, PLY_EPROTO, "JOB: field search.multipv = 0, must be 1..64"},
    {build_search_job, sj_multipv_max, 0, NULL},
    {build_search_job, sj_multipv_over, PLY_EPROTO,
     "JOB: field search.multipv = 65, must be 1..64"},
    {build_search_job, sj_no_multipv, 0, NULL},
    {build_search_job, sj_window_null, 0, NULL},
    {build_search_job, sj_window_widest, 0, NULL},
    {build_search_job, sj_window_alpha_only, 0, NULL},
    {build_search_job, sj_window_beta_only_no_multipv, 0, NULL},
    {build_search_job, sj_window_alpha_under, PLY_EPROTO,
     "JOB: field search.alpha = -32768, must be in -32767..32767"},
    {build_search_job, sj_window_beta_over, PLY_EPROTO,
     "JOB: field search.beta = 32768, must be in -32767..32767"},
    {build_search_job, sj_window_empty, PLY_EPROTO,
     "JOB: field search.alpha = 5 not below search.beta = 5"},
    {build_search_job, sj_window_reversed, PLY_EPROTO,
     "JOB: field search.alpha = 6 not below search.beta = -6"},
    {build_search_job, sj_window_multipv, PLY_EPROTO,
     "JOB: field search.alpha present with search.multipv = 2, must be 1"},
    {build_search_job, sj_window_beta_multipv, PLY_EPROTO,
     "JOB: field search.beta present with search.multipv = 2, must be 1"},
    {build_search_job, sj_window_plies, PLY_EPROTO,
     "JOB: field search.alpha present beside search.plies"},
    {build_search_job, sj_start_depth, 0, NULL},
    {build_search_job, sj_start_depth_at, 0, NULL},
    {build_search_job, sj_start_depth_0, PLY_EPROTO,
     "JOB: field search.start_depth = 0, must be 1..search.depth"},
    {build_search_job, sj_start_depth_over, PLY_EPROTO,
     "JOB: field search.start_depth = 7, must be 1..search.depth"},
    {build_search_job, sj_start_depth_no_depth, PLY_EPROTO,
     "JOB: field search.start_depth = 1, must be 1..search.depth"},
    {build_search_job, sj_kind_3, PLY_EPROTO, "JOB: field search present in a job of kind 3"},
    {build_job, perft_job_with_search, PLY_EPROTO, "JOB: field search present in a PERFT job"},
    {build_search_result, sr_nodes, PLY_EPROTO, "RESULT: field nodes present beside search"},
    {build_search_result, sr_perft1, PLY_EPROTO, "RESULT: field perft1 present beside search"},
    {build_search_result, sr_tt_nodes, PLY_EPROTO, "RESULT: field tt_nodes present beside search"},
    {build_search_result, sr_no_time, PLY_EPROTO, "RESULT: field time_us missing"},
    {build_search_result, sr_no_lines, PLY_EPROTO,
     "RESULT: field search.lines has 0 entries, must be 1..64"},
    {build_search_result, sr_line_no_multipv, PLY_EPROTO,
     "RESULT: field search.lines[1].multipv missing"},
    {build_search_result, sr_line_multipv_0, PLY_EPROTO,
     "RESULT: field search.lines[1].multipv = 0, must be 1..64"},
    {build_search_result, sr_line_both_scores, PLY_EPROTO,
     "RESULT: field search.lines[0]: both of score_cp and mate, must be one"},
    {build_search_result, sr_line_no_score, PLY_EPROTO,
     "RESULT: field search.lines[1]: neither of score_cp and mate, must be one"},
    {build_search_result, sr_line_no_bound, PLY_EPROTO,
     "RESULT: field search.lines[0].bound missing"},
    {build_search_result, sr_line_bound_3, PLY_EPROTO,
     "RESULT: field search.lines[0].bound = 3, must be 0..2"},
    {build_search_result, sr_line_bound_2, 0, NULL},
    {build_search_result, sr_line_no_depth, PLY_EPROTO,
     "RESULT: field search.lines[0].depth missing"},
    {build_search_result, sr_line_depth_146, 0, NULL},
    {build_search_result, sr_line_depth_over, PLY_EPROTO,
     "RESULT: field search.lines[0].depth = 1025, must be 0..1024"},
    {build_search_result, sr_line_no_seldepth, PLY_EPROTO,
     "RESULT: field search.lines[1].seldepth missing"},
    {build_search_result, sr_line_bad_pv, PLY_EPROTO,
     "RESULT: field search.lines[0].pv[2] is not a UCI move"},
    {build_search_result, sr_line_long_pv, PLY_EPROTO,
     "RESULT: field search.lines[0].pv has 129 moves, must be at most 128"},
    {build_search_result, sr_no_nodes, PLY_EPROTO, "RESULT: field search.nodes missing"},
    {build_search_result, sr_no_search_time, PLY_EPROTO, "RESULT: field search.time_us missing"},
    {build_search_result, sr_bad_engine, PLY_EPROTO,
     "RESULT: field search.engine has a control character"},
    {build_search_result, sr_no_engine, 0, NULL},
    {build_hello_kinds, hk_kind_0, PLY_EPROTO, "HELLO: field kinds[1] = 0, must be 1..4294967295"},
    {build_hello_kinds, hk_kind_big, 0, NULL},
    {build_hello_kinds, hk_too_many, PLY_EPROTO,
     "HELLO: field kinds has 33 entries, must be at most 32"},
    {build_hello_kinds, hk_kind_twice, PLY_EPROTO, "HELLO: field kinds[1] = 1 listed twice"},
    {build_hello_kinds, hk_search_only, 0, NULL},
    {build_hello_kinds, hk_bad_engine, PLY_EPROTO, "HELLO: field engine is over 512 bytes"},
    {build_search_submit, ss_engine_none, 0, NULL},
    {build_search_submit, ss_perft, PLY_EPROTO, "SUBMIT: field perft present in a SEARCH submit"},
    {build_search_submit, ss_other, PLY_EPROTO, "SUBMIT: field other present in a SEARCH submit"},
    {build_search_submit, ss_no_search, PLY_EPROTO, "SUBMIT: field search missing (kind SEARCH)"},
    {build_search_submit, ss_bad_fen, PLY_EPROTO, "SUBMIT: field search.fen is over 128 bytes"},
    {build_search_submit, ss_bad_move, PLY_EPROTO,
     "SUBMIT: field search.moves[0] is not a UCI move"},
    {build_search_submit, ss_bad_searchmove, PLY_EPROTO,
     "SUBMIT: field search.searchmoves[1] is not a UCI move"},
    {build_search_submit, ss_too_many_moves, PLY_EPROTO,
     "SUBMIT: field search.moves has 1025 moves, must be at most 1024"},
    {build_search_submit, ss_too_many_searchmoves, PLY_EPROTO,
     "SUBMIT: field search.searchmoves has 257 moves, must be at most 256"},
    {build_search_submit, ss_depth_0, PLY_EPROTO, "SUBMIT: field search.depth = 0, must be 1..100"},
    {build_search_submit, ss_depth_over, PLY_EPROTO,
     "SUBMIT: field search.depth = 101, must be 1..100"},
    {build_search_submit, ss_nodes_0, PLY_EPROTO,
     "SUBMIT: field search.nodes = 0, must be at least 1"},
    {build_search_submit, ss_movetime_over, PLY_EPROTO,
     "SUBMIT: field search.movetime_ms = 86400001, must be 1..86400000"},
    {build_search_submit, ss_unlimited, PLY_EPROTO,
     "SUBMIT: field search.depth, search.nodes or search.movetime_ms missing"},
    {build_search_submit, ss_movetime_only, 0, NULL},
    {build_search_submit, ss_engine_uci, 0, NULL},
    {build_search_submit, ss_engine_empty, 0, NULL},
    {build_search_submit, ss_engine_other, PLY_EPROTO,
     "SUBMIT: field search.engine = \"stockfish\", must be \"builtin\", \"uci\" or absent"},
    {build_search_submit, ss_verify, 0, NULL}, /* refused by the coordinator, with its reason */
    {build_search_submit, ss_kind_3, PLY_EPROTO,
     "SUBMIT: field search present in a submit of kind 3"},
    {build_submit, ps_with_search, PLY_EPROTO, "SUBMIT: field search present in a PERFT submit"},
    {build_search_run_result, srr_no_nodes, PLY_EPROTO, "RUN_RESULT: field nodes missing"},
    {build_search_run_result, srr_no_depth, 0, NULL},
    {build_search_run_result, srr_divide, PLY_EPROTO,
     "RUN_RESULT: field divide present beside search"},
    {build_search_run_result, srr_bad_status, PLY_EPROTO,
     "RUN_RESULT: field search.status = \"won\", must be"},
    {build_search_run_result, srr_checkmate, 0, NULL},
    {build_search_run_result, srr_bad_move, PLY_EPROTO,
     "RUN_RESULT: field search.moves[1].move is not a UCI move"},
    {build_search_run_result, srr_too_many_moves, PLY_EPROTO,
     "RUN_RESULT: field search.moves has 257 entries, must be at most 256"},
    {build_search_run_result, srr_bad_pv, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].line.pv[1] is not a UCI move"},
    {build_search_run_result, srr_long_pv, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].line.pv has 129 moves, must be at most 128"},
    {build_search_run_result, srr_two_scores, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].line: both of score_cp and mate"},
    {build_search_run_result, srr_long_pv_san, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].pv_san has 129 moves, must be at most 128"},
    {build_search_run_result, srr_bad_san, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].pv_san[1] has a control character"},
    {build_search_run_result, srr_long_worker, PLY_EPROTO,
     "RUN_RESULT: field search.moves[1].worker_id is over 512 bytes"},
    {build_search_run_result, srr_bad_rejection, PLY_EPROTO,
     "RUN_RESULT: field search.rejection[0] is 0 bytes, must be 1..512"},
    {build_search_run_result, srr_many_rejections, PLY_EPROTO,
     "RUN_RESULT: field search.rejection has 65 entries, must be at most 64"},
    {build_search_run_result, srr_asked_no_search, PLY_EPROTO,
     "RUN_RESULT: field asked.search missing (kind SEARCH)"},
    {build_search_run_result, srr_asked_perft_search, PLY_EPROTO,
     "RUN_RESULT: field asked.search present in a PERFT run's asked"},
    {build_search_run_result, srr_asked_bad_engine, PLY_EPROTO,
     "RUN_RESULT: field asked.search.engine = \"gnuchess\""},
    {build_search_progress, srp_bad_pv, PLY_EPROTO,
     "RUN_PROGRESS: field search.moves[1].line.pv[0] is not a UCI move"},
    {build_search_progress, srp_asked_unlimited, PLY_EPROTO,
     "RUN_PROGRESS: field asked.search.depth, asked.search.nodes or asked.search.movetime_ms"},
};

/* Each rule of the search kind, one case each, through ply_msg_validate and the wire. */
static void test_search_validation(void **state)
{
    (void)state;
    init_texts();
    for (size_t i = 0; i <= PLY_SEARCH_JOB_MAX_MOVES; i++) g_search_moves[i] = long_moves_text;
    round_trip(build_search_submit()); /* search runs: the client's and the answers' */
    round_trip(build_search_run_result());
    round_trip(build_search_progress());
    for (size_t i = 0; i < sizeof SCASES / sizeof SCASES[0]; i++) {
        const scase_t *v = &SCASES[i];
        ply_msg_t *m = v->build();
        v->edit(m);
        char why[256], why2[256];
        int rc = ply_msg_validate(m, why, sizeof why);
        if (rc != v->rc) fail_msg("search case %zu: rc %d, want %d: %s", i, rc, v->rc, why);
        if (v->reason && strncmp(why, v->reason, strlen(v->reason)) != 0)
            fail_msg("search case %zu: reason \"%s\", want \"%s...\"", i, why, v->reason);
        assert_true(one_line(why));
        zmsg_t *z = ply_msg_encode(m);
        assert_non_null(z);
        ply_msg_t *got = NULL;
        assert_int_equal(ply_msg_decode(z, &got, why2, sizeof why2), rc);
        assert_string_equal(why2, why);
        ply_msg_free(&got);
        zmsg_destroy(&z);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_round_trip),
        cmocka_unit_test(test_search_validation),
    };
    return cmocka_run_group_tests_name("envelope_search", tests, NULL, NULL);
}
