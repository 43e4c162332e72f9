/*
 * Search runs end to end (issue 11): a real ply-coordinator and real ply-worker processes
 * (ply's own engine), asked through the client library (ply_client_submit_search and
 * ply_client_wait). Each test is one argument:
 *   startpos  depth 4 of the start position: all 20 root moves, each line replayed by the
 *             rule engine here (legal, pv[0] its move), the answer sorted best first;
 *   mate      WAC.027 at depth 6: mate 2 on top, its line ending in checkmate; a
 *             checkmated root: status "checkmate" and no jobs;
 *   errors    a bad history move, a bad searchmove, a searchmove twice, an unknown engine
 *             and --verify with a movetime: each refused with what was wrong named;
 *   liar      a worker (a raw DEALER here) that returns an illegal PV, a false mate, the
 *             wrong root move and a perft count: each line refused, counted and named in
 *             the answer's rejections, its job computed again by the honest worker, the
 *             answer complete and the coordinator alive;
 *   engine    a run asking engine "uci" with only builtin workers fails after the
 *             (shortened) worker wait, naming the engine asked and the workers connected;
 *   restart   the coordinator SIGKILLed mid-run and restarted on its state file: the same
 *             request resumes the run, which finishes with every root move, recomputing
 *             only the missing ones;
 *   perft-liar  a search's answer to a perft job: a failed check (the liar excluded), never
 *             a count; perft(4) exact;
 *   uci       engine "uci" goes to the worker on Debian's Stockfish only (skipped without
 *             /usr/games/stockfish): WAC.027's lines replayed, mate 2 on top;
 *   game      a game analysis (SearchRequest.plies, `ply analyse-pgn`) of the Opera game's
 *             first 20 plies on two workers: chunks of 6 positions sharing one (4 jobs),
 *             one line per position by ply, each replayed from its position; plies beyond
 *             the game, twice, or at a checkmate refused with the ply named;
 *   verify    --verify all on two honest workers and ply-worker-faulty (--fault-every 1:
 *             every search score off by 7 cp, its line legal, and another Zobrist seed): every
 *             root move matched by a second identity, the faulty worker excluded and named,
 *             none of its lines in the answer;
 *   game-liar a worker answering each chunk with one illegal line among good ones: the
 *             whole chunk refused (named in the rejections) and computed again by the
 *             honest worker, none of the liar's good lines kept.
 * Expected values: the start position has 20 legal moves (FIDE art. 3; perft(1) = 20,
 * OEIS A048987); WAC.027 is mate in 2 (1. Qf8+ Rxf8 2. Rxf8#, Reinfeld's Win at Chess;
 * Stockfish 15.1 "go depth 10": score mate 2, pv a3f8 f2f8 f1f8); the fool's mate position
 * (1. f3 e5 2. g4 Qh4#) is checkmate.
 */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>

#include <cmocka.h>
#include <czmq.h>

#include "arbiter/arbiter.h"
#include "client.h"
#include "envelope.h"
#include "harness.h"
#include "util/error.h"

#define MATE2_FEN  "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1"
#define FOOLS_MATE "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"

typedef struct cluster {
    char dir[128], ep[64], state[192];
    pid_t coord, worker[2];
} cluster_t;

static void start_coordinator(cluster_t *k, const char *extra)
{
    char log[256];
    snprintf(log, sizeof log, "%s/coordinator.log", k->dir);
    k->coord = th_spawn(log,
                        "exec ply-coordinator --bind %s --heartbeat-ms 200 --liveness 5 "
                        "--state %s -v %s",
                        k->ep, k->state, extra ? extra : "");
}

static void start_worker(cluster_t *k, int i)
{
    char log[256];
    snprintf(log, sizeof log, "%s/worker%d.log", k->dir, i);
    k->worker[i] =
        th_spawn(log, "exec ply-worker --connect %s --threads 1 --hash 16 --id w%d -v", k->ep, i);
}

/* Worker @i on Debian's Stockfish (ply-worker --engine). */
static void start_uci_worker(cluster_t *k, int i)
{
    char log[256];
    snprintf(log, sizeof log, "%s/worker%d.log", k->dir, i);
    k->worker[i] = th_spawn(log,
                            "exec ply-worker --connect %s --engine /usr/games/stockfish "
                            "--engine-option Threads=1 --engine-option Hash=16 --id sf%d -v",
                            k->ep, i);
}

static void cluster_start(cluster_t *k, const char *tag, int workers, const char *extra)
{
    memset(k, 0, sizeof *k);
    snprintf(k->dir, sizeof k->dir, "%s", th_tmpdir(tag));
    snprintf(k->ep, sizeof k->ep, "tcp://127.0.0.1:%d", th_free_port());
    snprintf(k->state, sizeof k->state, "%s/state.db", k->dir);
    start_coordinator(k, extra);
    for (int i = 0; i < workers; i++) start_worker(k, i);
}

static void cluster_stop(cluster_t *k)
{
    for (int i = 0; i < 2; i++)
        if (k->worker[i]) th_stop(k->worker[i]);
    if (k->coord) th_stop(k->coord);
    th_run_t r = th_run(30, "rm -rf '%s'", k->dir);
    th_run_free(&r);
}

static ply_client_t *client_of(const cluster_t *k)
{
    char why[256];
    ply_client_t *c = ply_client_new(k->ep, why, sizeof why);
    if (!c) fail_msg("client: %s", why);
    return c;
}

/* Submits @req and waits for its answer; *out the result, or NULL with the error in @why. */
static int run_search(const cluster_t *k, const ply_search_request_t *req, Ply__RunResult **out,
                      char *why, size_t why_len)
{
    ply_client_t *c = client_of(k);
    Ply__Accepted *a = NULL;
    *out = NULL;
    int r = ply_client_submit_search(c, req, 20000, &a, why, why_len);
    if (r == 0) r = ply_client_wait(c, a->run_id, NULL, NULL, 60000, out, why, why_len);
    if (a) ply__accepted__free_unpacked(a, NULL);
    ply_client_destroy(&c);
    return r;
}

/* The position analysed: @fen with @n moves of @moves played. */
static ply_arb_pos_t analysed(const char *fen, const char *const *moves, size_t n)
{
    ply_arb_pos_t pos;
    assert_int_equal(ply_arb_from_fen(&pos, fen, 0, NULL, 0), 0);
    for (size_t i = 0; i < n; i++) {
        ply_arb_move_t mv;
        assert_int_equal(ply_arb_move_from_uci(&pos, moves[i], &mv), 0);
        ply_arb_make(&pos, mv);
    }
    return pos;
}

/* Rank of a line in the answer's order: mates for the side to move first (shortest first),
 * then scores (highest first), then mates against it (longest first). */
static int64_t order_key(const Ply__SearchLine *l)
{
    if (!l->has_mate) return 1000000 - (int64_t)l->score_cp;
    return l->mate > 0 ? l->mate : 3000000 + l->mate;
}

/* Every line of @res: pv[0] is its move, the rule engine replays it from @pos (a mate ends in
 * checkmate), its SAN is there, every root move is there once, in the answer's order. */
static void check_answer(const Ply__RunResult *res, const ply_arb_pos_t *pos, int nmoves)
{
    assert_non_null(res->search);
    const Ply__SearchAnswer *s = res->search;
    assert_int_equal(s->n_moves, nmoves);
    assert_int_equal(res->jobs, nmoves);
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    assert_int_equal(ply_arb_legal_moves(pos, legal), nmoves);
    uint64_t nodes = 0;
    for (size_t i = 0; i < s->n_moves; i++) {
        const Ply__AnalysedMove *a = s->moves[i];
        const Ply__SearchLine *l = a->line;
        assert_non_null(l);
        assert_true(l->n_pv >= 1);
        assert_string_equal(l->pv[0], a->move);
        assert_int_equal(a->n_pv_san, l->n_pv);
        ply_arb_pos_t p = *pos;
        for (size_t k = 0; k < l->n_pv; k++) {
            ply_arb_move_t mv;
            if (ply_arb_move_from_uci(&p, l->pv[k], &mv) != 0)
                fail_msg("%s: PV move %zu %s is not legal", a->move, k + 1, l->pv[k]);
            ply_arb_make(&p, mv);
        }
        if (l->has_mate) {
            assert_int_equal(ply_arb_legal_moves(&p, legal), 0);
            assert_true(ply_arb_in_check(&p));
        }
        for (size_t k = 0; k < i; k++) assert_string_not_equal(s->moves[k]->move, a->move);
        if (i) {
            const Ply__SearchLine *b = s->moves[i - 1]->line;
            assert_true(
                order_key(b) < order_key(l) ||
                (order_key(b) == order_key(l) && strcmp(s->moves[i - 1]->move, a->move) < 0));
        }
        nodes += a->nodes;
    }
    assert_true(res->nodes == nodes);
    assert_int_equal(s->replayed, nmoves);
}

static void test_startpos(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-startpos", 2, NULL);
    ply_search_request_t req = {.fen = "startpos", .depth = 4, .engine = "builtin"};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &res, why, sizeof why) != 0) fail_msg("startpos: %s", why);
    ply_arb_pos_t pos = analysed("startpos", NULL, 0);
    check_answer(res, &pos, 20);
    assert_true(res->asked && res->asked->kind == PLY__JOB_KIND__JOB_KIND_SEARCH);
    assert_int_equal(res->search->rejected, 0);
    print_message("startpos depth 4: best %s (%d cp), %" PRIu64 " nodes, %" PRIu64 " ms\n",
                  res->search->moves[0]->move, res->search->moves[0]->line->score_cp, res->nodes,
                  res->time_ms);
    ply__run_result__free_unpacked(res, NULL);

    /* with a history and searchmoves: after 1. e4, only the two moves asked */
    const char *hist[] = {"e2e4"}, *sm[] = {"c7c5", "e7e5"};
    ply_search_request_t two = {.fen = "startpos",
                                .moves = hist,
                                .nmoves = 1,
                                .searchmoves = sm,
                                .nsearchmoves = 2,
                                .depth = 3};
    if (run_search(&k, &two, &res, why, sizeof why) != 0) fail_msg("searchmoves: %s", why);
    assert_int_equal(res->search->n_moves, 2);
    /* the rule engine writes the en-passant square of a double step (FEN standard) */
    assert_string_equal(res->fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

/* WAC.027's answer: every line checked, mate 2 by 1. Qf8+ on top; the top line returned. */
static const Ply__AnalysedMove *check_mate2(const Ply__RunResult *res)
{
    ply_arb_pos_t pos = analysed(MATE2_FEN, NULL, 0);
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    check_answer(res, &pos, ply_arb_legal_moves(&pos, legal));
    const Ply__AnalysedMove *top = res->search->moves[0];
    assert_true(top->line->has_mate && top->line->mate == 2);
    assert_string_equal(top->move, "a3f8");
    assert_string_equal(top->san, "Qf8+");
    return top;
}

static void test_mate(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-mate", 2, NULL);
    ply_search_request_t req = {.fen = MATE2_FEN, .depth = 6};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &res, why, sizeof why) != 0) fail_msg("mate: %s", why);
    const Ply__AnalysedMove *top = check_mate2(res);
    assert_string_equal(top->pv_san[top->n_pv_san - 1], "Rxf8#");
    ply__run_result__free_unpacked(res, NULL);

    ply_search_request_t mated = {.fen = FOOLS_MATE, .depth = 5};
    if (run_search(&k, &mated, &res, why, sizeof why) != 0) fail_msg("checkmated: %s", why);
    assert_int_equal(res->jobs, 0);
    assert_int_equal(res->search->n_moves, 0);
    assert_string_equal(res->search->status, "checkmate");
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

/* Submits @req and expects it refused with a reason holding every one of the texts. */
static void expect_refused(const cluster_t *k, const ply_search_request_t *req, ...)
{
    Ply__RunResult *res;
    char why[512] = "";
    assert_true(run_search(k, req, &res, why, sizeof why) < 0);
    assert_null(res);
    print_message("refused: %s\n", why);
    va_list ap;
    va_start(ap, req);
    for (const char *t = va_arg(ap, const char *); t; t = va_arg(ap, const char *))
        if (!strstr(why, t)) fail_msg("\"%s\" does not name \"%s\"", why, t);
    va_end(ap);
}

static void test_errors(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-errors", 0, NULL);
    const char *bad_hist[] = {"e2e4", "e7e5", "e4e5"};
    ply_search_request_t a = {.fen = "startpos", .moves = bad_hist, .nmoves = 3, .depth = 2};
    expect_refused(&k, &a, "history move 3", "e4e5", NULL);
    const char *bad_sm[] = {"e2e4", "e2e5"};
    ply_search_request_t b = {
        .fen = "startpos", .searchmoves = bad_sm, .nsearchmoves = 2, .depth = 2};
    expect_refused(&k, &b, "searchmove e2e5", "not a legal move", NULL);
    const char *twice[] = {"e2e4", "e2e4"};
    ply_search_request_t c = {
        .fen = "startpos", .searchmoves = twice, .nsearchmoves = 2, .depth = 2};
    expect_refused(&k, &c, "searchmove e2e4", "twice", NULL);
    ply_search_request_t d = {.fen = "startpos", .depth = 2, .engine = "stockfish"};
    expect_refused(&k, &d, "search.engine", "stockfish", NULL);
    ply_search_request_t e = {.fen = "8/8/8/8/8/8/8/8 w - - 0 1", .depth = 2};
    expect_refused(&k, &e, "bad position", NULL);
    ply_search_request_t f = {.fen = "startpos"};
    expect_refused(&k, &f, "needs a limit", NULL);

    /* --verify with a movetime: the coordinator says why it cannot be verified (a raw
     * Submit: the client library would send it as well) */
    zsock_t *s = zsock_new_dealer(k.ep);
    assert_non_null(s);
    zsock_set_rcvtimeo(s, 10000);
    Ply__SearchRequest q = PLY__SEARCH_REQUEST__INIT;
    q.fen = "startpos", q.has_movetime_ms = 1, q.movetime_ms = 50;
    Ply__Submit sub = PLY__SUBMIT__INIT;
    sub.has_kind = 1, sub.kind = PLY__JOB_KIND__JOB_KIND_SEARCH, sub.search = &q;
    sub.has_verify = 1, sub.verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_SUBMIT, m.submit = &sub;
    assert_int_equal(ply_msg_send(s, &m), 0);
    ply_msg_t *got = NULL;
    assert_int_equal(ply_msg_recv(s, &got, NULL, 0), 0);
    assert_int_equal(got->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_non_null(strstr(got->error->message, "--verify needs -d or --nodes, not --movetime"));
    ply_msg_free(&got);
    zsock_destroy(&s);
    cluster_stop(&k);
}

/* ------------------------------------------------------------------ the liar */

enum { LIE_ILLEGAL, LIE_MATE, LIE_ROOT, LIE_PERFT, LIES };

/* HELLO as worker "liar" running @kind, with credit for LIES jobs. */
static void send_hello(zsock_t *d, Ply__JobKind kind)
{
    uint32_t kinds[] = {kind};
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = "liar";
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    h.n_kinds = 1, h.kinds = kinds;
    h.engine = "builtin";
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO, m.hello = &h;
    assert_int_equal(ply_msg_send(d, &m), 0);
    Ply__Ready r = PLY__READY__INIT;
    r.has_credit = 1, r.credit = LIES;
    m.body_case = PLY__MESSAGE__BODY_READY, m.ready = &r;
    assert_int_equal(ply_msg_send(d, &m), 0);
}

/* The liar's answer to @job: lie number @lie. */
static void send_lie(zsock_t *d, const Ply__Job *job, int lie)
{
    /* a perft job gets a search's answer (lie LIE_ILLEGAL's shape, from "e2e4") */
    const char *move = job->search ? job->search->searchmoves[0] : "e2e4";
    char *pv[2] = {(char *)move, "a1h8"}; /* a1h8: UCI by its shape, never legal here */
    Ply__SearchLine l = PLY__SEARCH_LINE__INIT, *lp[] = {&l};
    l.has_multipv = 1, l.multipv = 1;
    l.has_bound = 1, l.has_depth = 1, l.has_seldepth = 1;
    l.depth = job->search ? job->search->depth : 1;
    l.has_score_cp = 1, l.score_cp = 55;
    l.n_pv = 2, l.pv = pv;
    if (lie == LIE_MATE) l.n_pv = 1, l.has_score_cp = 0, l.has_mate = 1, l.mate = 1;
    if (lie == LIE_ROOT) pv[0] = strcmp(move, "e2e4") ? "e2e4" : "d2d4", l.n_pv = 1;
    Ply__SearchResult sr = PLY__SEARCH_RESULT__INIT;
    sr.n_lines = 1, sr.lines = lp;
    sr.has_nodes = 1, sr.nodes = 1000, sr.has_time_us = 1, sr.time_us = 100;
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = job->job_id;
    r.has_attempt = 1, r.attempt = job->attempt;
    r.has_time_us = 1, r.time_us = 100;
    if (lie == LIE_PERFT)
        r.has_nodes = 1, r.nodes = 20, r.has_perft1 = 1, r.perft1 = 20;
    else
        r.search = &sr;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT, m.result = &r;
    assert_int_equal(ply_msg_send(d, &m), 0);
}

typedef struct liar {
    zsock_t *d;
    zactor_t *actor;
    int lies;
    int chunks; /* answer chunks of a game (send_chunk_lie) */
} liar_t;

/* A chunk's answer: each position's line is the game's next move (legal), but the first
 * one's (the highest ply, which has no next move in the job) is a1h8, never legal. */
static void send_chunk_lie(zsock_t *d, const Ply__Job *job)
{
    const Ply__SearchJob *sj = job->search;
    Ply__SearchLine lines[PLY_SEARCH_JOB_MAX_MULTIPV], *lp[PLY_SEARCH_JOB_MAX_MULTIPV];
    char *pv[PLY_SEARCH_JOB_MAX_MULTIPV];
    for (size_t i = 0; i < sj->n_plies; i++) {
        Ply__SearchLine *l = &lines[i];
        *l = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        l->has_multipv = 1, l->multipv = 1;
        l->has_bound = 1, l->has_depth = 1, l->depth = sj->depth, l->has_seldepth = 1;
        l->has_score_cp = 1, l->score_cp = 10;
        l->has_ply = 1, l->ply = sj->plies[i];
        pv[i] = sj->plies[i] < sj->n_moves ? sj->moves[sj->plies[i]] : "a1h8";
        l->n_pv = 1, l->pv = &pv[i];
        lp[i] = l;
    }
    Ply__SearchResult sr = PLY__SEARCH_RESULT__INIT;
    sr.n_lines = sj->n_plies, sr.lines = lp;
    sr.has_nodes = 1, sr.nodes = 1000, sr.has_time_us = 1, sr.time_us = 100;
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = job->job_id;
    r.has_attempt = 1, r.attempt = job->attempt;
    r.has_time_us = 1, r.time_us = 100;
    r.search = &sr;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT, m.result = &r;
    assert_int_equal(ply_msg_send(d, &m), 0);
}

/* The liar's loop (a czmq actor): answers its first LIES jobs with a lie each, heartbeats. */
static void liar_actor(zsock_t *pipe, void *arg)
{
    liar_t *l = arg;
    zsock_signal(pipe, 0);
    zpoller_t *poller = zpoller_new(pipe, l->d, NULL);
    uint64_t last_hb = 0;
    for (;;) {
        void *which = zpoller_wait(poller, 100);
        if (which == pipe) break;
        if (which == l->d) {
            ply_msg_t *msg = NULL;
            if (ply_msg_recv(l->d, &msg, NULL, 0) == 0 &&
                msg->body_case == PLY__MESSAGE__BODY_JOB && l->lies < LIES) {
                if (l->chunks && msg->job->search && msg->job->search->n_plies)
                    send_chunk_lie(l->d, msg->job), l->lies++;
                else
                    send_lie(l->d, msg->job, l->lies++);
            }
            ply_msg_free(&msg);
        }
        if (th_now_ms() - last_hb >= 150) {
            Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
            hb.has_nodes = 1, hb.nodes = th_now_ms();
            ply_msg_t m = PLY__MESSAGE__INIT;
            m.body_case = PLY__MESSAGE__BODY_HEARTBEAT, m.heartbeat = &hb;
            ply_msg_send(l->d, &m);
            last_hb = th_now_ms();
        }
    }
    zpoller_destroy(&poller);
}

/* A cluster (@tag, coordinator options @extra) with the liar @l connected first, then one
 * honest worker (w0). */
static void liar_start(cluster_t *k, liar_t *l, const char *tag, const char *extra)
{
    cluster_start(k, tag, 0, extra);
    l->d = zsock_new_dealer(k->ep);
    assert_non_null(l->d);
    send_hello(l->d, PLY__JOB_KIND__JOB_KIND_SEARCH);
    l->actor = zactor_new(liar_actor, l);
    usleep(300000); /* the liar is welcomed with its credit before the honest worker comes */
    start_worker(k, 0);
}

static void test_liar(void **state)
{
    (void)state;
    cluster_t k;
    liar_t l = {0};
    liar_start(&k, &l, "search-liar", "--max-attempts 3");
    ply_search_request_t req = {.fen = "startpos", .depth = 3};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &res, why, sizeof why) != 0) fail_msg("liar: %s", why);
    zactor_destroy(&l.actor);
    assert_int_equal(l.lies, LIES);
    ply_arb_pos_t pos = analysed("startpos", NULL, 0);
    check_answer(res, &pos, 20);
    const Ply__SearchAnswer *s = res->search;
    assert_int_equal(s->rejected, LIES);
    assert_int_equal(s->n_rejection, LIES);
    static const char *const named[LIES] = {"PV move 2 a1h8 is not legal",
                                            "claims mate in 1 but the line ends without checkmate",
                                            "not the job's move", "a perft count for a search job"};
    for (int i = 0; i < LIES; i++) {
        int found = 0;
        for (size_t k2 = 0; k2 < s->n_rejection; k2++)
            found |= strstr(s->rejection[k2], named[i]) && strstr(s->rejection[k2], "worker liar");
        if (!found) fail_msg("no rejection names the liar and \"%s\"", named[i]);
    }
    for (size_t i = 0; i < s->n_moves; i++) assert_string_equal(s->moves[i]->worker_id, "w0");
    print_message("rejections: %s | %s\n", s->rejection[0], s->rejection[LIES - 1]);
    ply__run_result__free_unpacked(res, NULL);
    assert_true(th_alive(k.coord));
    zsock_destroy(&l.d);
    cluster_stop(&k);
}

/*
 * A search's answer to a perft job is a failed check of that attempt (never a count): the
 * liar is excluded from the run, its jobs counted by the honest worker, the total exact
 * (perft(4) of the start position, 197281: OEIS A048987).
 */
static void test_perft_liar(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-perft-liar", 0, NULL);
    liar_t l = {0};
    l.d = zsock_new_dealer(k.ep);
    assert_non_null(l.d);
    send_hello(l.d, PLY__JOB_KIND__JOB_KIND_PERFT);
    l.actor = zactor_new(liar_actor, &l);
    usleep(300000);
    start_worker(&k, 0);
    ply_client_t *c = client_of(&k);
    ply_perft_request_t req = {.fen = "startpos", .depth = 4, .split_depth = 2};
    Ply__Accepted *a = NULL;
    Ply__RunResult *res = NULL;
    char why[512];
    if (ply_client_submit(c, &req, 20000, &a, why, sizeof why) != 0 ||
        ply_client_wait(c, a->run_id, NULL, NULL, 60000, &res, why, sizeof why) != 0)
        fail_msg("perft: %s", why);
    zactor_destroy(&l.actor);
    assert_true(l.lies >= 1);
    assert_true(res->nodes == 197281);
    assert_non_null(res->verification);
    assert_true(res->verification->n_exclusion >= 1);
    assert_non_null(strstr(res->verification->exclusion[0], "a search result for a perft job"));
    ply__run_result__free_unpacked(res, NULL);
    ply__accepted__free_unpacked(a, NULL);
    ply_client_destroy(&c);
    assert_true(th_alive(k.coord));
    zsock_destroy(&l.d);
    cluster_stop(&k);
}

/*
 * A run asking engine "uci" goes to the Stockfish worker, not to the builtin one: WAC.027's
 * lines from Stockfish, each replayed by the rule engine, mate 2 on top.
 */
static void test_uci(void **state)
{
    (void)state;
    if (access("/usr/games/stockfish", X_OK) != 0) skip();
    cluster_t k;
    cluster_start(&k, "search-uci", 1, NULL);
    start_uci_worker(&k, 1);
    ply_search_request_t req = {.fen = MATE2_FEN, .depth = 8, .engine = "uci"};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &res, why, sizeof why) != 0) fail_msg("uci: %s", why);
    const Ply__AnalysedMove *top = check_mate2(res);
    for (size_t i = 0; i < res->search->n_moves; i++) {
        assert_string_equal(res->search->moves[i]->worker_id, "sf1");
        assert_non_null(res->search->moves[i]->engine);
    }
    print_message("uci: %s by %s, %u lines refused\n", top->move, top->engine,
                  res->search->rejected);
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

static void test_engine(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-engine", 1, "--worker-wait-ms 1500");
    ply_search_request_t req = {.fen = "startpos", .depth = 2, .engine = "uci"};
    Ply__RunResult *res;
    char why[512] = "";
    uint64_t t0 = th_now_ms();
    assert_true(run_search(&k, &req, &res, why, sizeof why) < 0);
    print_message("engine: %s (%" PRIu64 " ms)\n", why, th_now_ms() - t0);
    assert_non_null(strstr(why, "engine \"uci\""));
    assert_non_null(strstr(why, "builtin"));
    assert_non_null(strstr(why, "worker w0"));
    assert_true(th_now_ms() - t0 >= 1500);
    cluster_stop(&k);
}

/* ------------------------------------------------------------------ restart */

typedef struct killer {
    pid_t pid;
    int killed;
    uint32_t done_at_kill;
} killer_t;

/* Kills the coordinator (SIGKILL) once its progress shows 3 root moves done. */
static void kill_after_three(const Ply__RunProgress *p, void *arg)
{
    killer_t *k = arg;
    if (k->killed || !p->has_jobs_done || p->jobs_done < 3) return;
    kill(k->pid, SIGKILL);
    waitpid(k->pid, NULL, 0);
    k->killed = 1;
    k->done_at_kill = p->jobs_done;
}

static void test_restart(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-restart", 1, NULL);
    /* 250 ms a root move on one worker: about 5 s in all, killed after about 0.75 s */
    ply_search_request_t req = {.fen = "startpos", .movetime_ms = 250, .engine = "builtin"};
    ply_client_t *c = client_of(&k);
    Ply__Accepted *a = NULL;
    char why[512];
    if (ply_client_submit_search(c, &req, 20000, &a, why, sizeof why) != 0)
        fail_msg("restart: %s", why);
    uint64_t run_id = a->run_id;
    ply__accepted__free_unpacked(a, NULL);
    killer_t kl = {k.coord, 0, 0};
    Ply__RunResult *res = NULL;
    uint64_t t0 = th_now_ms();
    int r = ply_client_wait(c, run_id, kill_after_three, &kl, 2000, &res, why, sizeof why);
    ply_client_destroy(&c);
    if (!kl.killed) fail_msg("the run ended before 3 moves were done: %d %s", r, why);
    assert_null(res);
    print_message("killed after %u moves (%" PRIu64 " ms)\n", kl.done_at_kill, th_now_ms() - t0);
    /* the same request again before a worker comes (a restored run is computed without its
     * client, and could end before it is asked for): the same run, resumed */
    th_stop(k.worker[0]);
    start_coordinator(&k, NULL);
    c = client_of(&k);
    if (ply_client_submit_search(c, &req, 20000, &a, why, sizeof why) != 0)
        fail_msg("resubmit: %s", why);
    assert_true(a->run_id == run_id);
    ply__accepted__free_unpacked(a, NULL);
    start_worker(&k, 0);
    if (ply_client_wait(c, run_id, NULL, NULL, 60000, &res, why, sizeof why) != 0)
        fail_msg("resumed: %s", why);
    ply_client_destroy(&c);
    ply_arb_pos_t pos = analysed("startpos", NULL, 0);
    check_answer(res, &pos, 20);
    print_message("resumed: %u lines read back, %u computed (%" PRIu64 " ms in all)\n",
                  res->results_restored, res->results_computed, th_now_ms() - t0);
    assert_true(res->results_restored >= kl.done_at_kill);
    assert_int_equal(res->results_restored + res->results_computed, 20);
    ply__run_result__free_unpacked(res, NULL);
    cluster_stop(&k);
}

/* ------------------------------------------------------------ game analysis */

/* The Opera game (Morphy v Duke Karl / Count Isouard, Paris 1858; tests/data/pgn/opera.pgn),
 * its first 20 plies in UCI (replayed by the rule engine in analysed()). */
static const char *const OPERA[] = {"e2e4", "e7e5", "g1f3", "d7d6", "d2d4", "c8g4", "d4e5",
                                    "g4f3", "d1f3", "d6e5", "f1c4", "g8f6", "f3b3", "d8e7",
                                    "b1c3", "c7c6", "c1g5", "b7b5", "c3b5", "c6b5"};
#define OPERA_N (sizeof OPERA / sizeof *OPERA)

/* Every line of a game analysis @res of plies 0..@n of @moves: one per ply in order, its
 * move its pv[0], replayed from its own position (a mate ends in checkmate). */
static void check_game_answer(const Ply__RunResult *res, const char *const *moves, size_t n)
{
    assert_non_null(res->search);
    const Ply__SearchAnswer *s = res->search;
    assert_int_equal(s->n_moves, n + 1);
    for (size_t i = 0; i < s->n_moves; i++) {
        const Ply__AnalysedMove *a = s->moves[i];
        assert_true(a->has_ply);
        assert_int_equal(a->ply, i);
        const Ply__SearchLine *l = a->line;
        assert_non_null(l);
        assert_true(l->n_pv >= 1);
        assert_string_equal(l->pv[0], a->move);
        ply_arb_pos_t p = analysed("startpos", moves, i);
        for (size_t k = 0; k < l->n_pv; k++) {
            ply_arb_move_t mv;
            if (ply_arb_move_from_uci(&p, l->pv[k], &mv) != 0)
                fail_msg("ply %zu: PV move %zu %s is not legal", i, k + 1, l->pv[k]);
            ply_arb_make(&p, mv);
        }
        ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
        if (l->has_mate) assert_true(ply_arb_legal_moves(&p, legal) == 0 && ply_arb_in_check(&p));
    }
}

static void test_game(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-game", 2, NULL);
    uint32_t plies[OPERA_N + 1];
    for (uint32_t i = 0; i <= OPERA_N; i++) plies[i] = (uint32_t)OPERA_N - i; /* any order */
    ply_search_request_t req = {.fen = "startpos",
                                .moves = OPERA,
                                .nmoves = OPERA_N,
                                .depth = 4,
                                .plies = plies,
                                .nplies = OPERA_N + 1};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &res, why, sizeof why) != 0) fail_msg("game: %s", why);
    assert_int_equal(res->jobs, 4); /* 21 positions: 0-5, 5-10, 10-15, 15-20 */
    check_game_answer(res, OPERA, OPERA_N);
    assert_int_equal(res->search->rejected, 0);
    ply__run_result__free_unpacked(res, NULL);
    /* refused, the ply named: beyond the game, twice, a checkmate (the fool's mate) */
    static const char *const fools[] = {"f2f3", "e7e5", "g2g4", "d8h4"};
    uint32_t beyond[] = {3, 21}, twice[] = {4, 2, 4}, mated[] = {0, 4};
    struct {
        const char *const *moves;
        size_t nmoves;
        const uint32_t *plies;
        size_t nplies;
        const char *named;
    } bad[] = {{OPERA, OPERA_N, beyond, 2, "ply 21 is beyond the game's 20 moves"},
               {OPERA, OPERA_N, twice, 3, "ply 4 is asked twice"},
               {fools, 4, mated, 2, "the position after ply 4 has no legal move (checkmate)"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ply_search_request_t q = {.fen = "startpos",
                                  .moves = bad[i].moves,
                                  .nmoves = bad[i].nmoves,
                                  .depth = 2,
                                  .plies = bad[i].plies,
                                  .nplies = bad[i].nplies};
        if (run_search(&k, &q, &res, why, sizeof why) == 0 || !strstr(why, bad[i].named))
            fail_msg("refusal %zu: \"%s\", want \"%s\"", i, why, bad[i].named);
    }
    cluster_stop(&k);
}

static void test_game_liar(void **state)
{
    (void)state;
    cluster_t k;
    liar_t l = {.chunks = 1};
    liar_start(&k, &l, "search-game-liar", "--max-attempts 5");
    uint32_t plies[12];
    for (uint32_t i = 0; i < 12; i++) plies[i] = i;
    ply_search_request_t req = {
        .fen = "startpos", .moves = OPERA, .nmoves = 11, .depth = 3, .plies = plies, .nplies = 12};
    Ply__RunResult *res;
    char why[512];
    if (run_search(&k, &req, &res, why, sizeof why) != 0) fail_msg("game-liar: %s", why);
    zactor_destroy(&l.actor);
    assert_true(l.lies >= 1);
    check_game_answer(res, OPERA, 11);
    const Ply__SearchAnswer *s = res->search;
    assert_int_equal(s->rejected, l.lies);
    for (size_t i = 0; i < s->n_rejection; i++)
        if (!strstr(s->rejection[i], "worker liar") ||
            !strstr(s->rejection[i], "PV move 1 a1h8 is not legal"))
            fail_msg("rejection %zu: %s", i, s->rejection[i]);
    for (size_t i = 0; i < s->n_moves; i++) assert_string_equal(s->moves[i]->worker_id, "w0");
    ply__run_result__free_unpacked(res, NULL);
    assert_true(th_alive(k.coord));
    zsock_destroy(&l.d);
    cluster_stop(&k);
}

static void test_verify(void **state)
{
    (void)state;
    cluster_t k;
    cluster_start(&k, "search-verify", 2, NULL);
    char log[256];
    snprintf(log, sizeof log, "%s/faulty.log", k.dir);
    pid_t faulty = th_spawn(log,
                            "exec ply-worker-faulty --connect %s --threads 1 --hash 16 --id faulty "
                            "--zobrist-seed 7 --fault-every 1 -v",
                            k.ep);
    char clog[256];
    snprintf(clog, sizeof clog, "%s/coordinator.log", k.dir);
    for (int i = 0; i < 2; i++) {
        char joined[32];
        snprintf(joined, sizeof joined, "worker w%d joined", i);
        assert_true(th_wait_text(clog, joined, 20000));
    }
    assert_true(th_wait_text(clog, "worker faulty joined", 20000));
    ply_search_request_t req = {.fen = "startpos", .depth = 5};
    req.verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL;
    Ply__RunResult *res = NULL;
    char why[1024];
    if (run_search(&k, &req, &res, why, sizeof why) < 0) fail_msg("verify all: %s", why);
    ply_arb_pos_t pos = analysed("startpos", NULL, 0);
    check_answer(res, &pos, 20);
    for (size_t i = 0; i < res->search->n_moves; i++)
        assert_string_not_equal(res->search->moves[i]->worker_id, "faulty");
    const Ply__Verification *v = res->verification;
    assert_non_null(v);
    print_message("%s\n", v->summary);
    for (size_t i = 0; i < v->n_exclusion; i++) print_message("%s\n", v->exclusion[i]);
    assert_int_equal(v->jobs_selected, 20);
    assert_int_equal(v->checked_by_worker, 20);
    /* it joined before the run (below), so it took jobs: each a lie that two honest
     * workers outvote */
    assert_int_equal(v->excluded, 1);
    assert_non_null(strstr(v->exclusion[0], "faulty"));
    assert_true(v->mismatches >= 1 && v->resolved >= 1);
    ply__run_result__free_unpacked(res, NULL);
    th_stop(faulty);
    cluster_stop(&k);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    const struct CMUnitTest all[] = {
        cmocka_unit_test(test_startpos),   cmocka_unit_test(test_mate),
        cmocka_unit_test(test_errors),     cmocka_unit_test(test_liar),
        cmocka_unit_test(test_engine),     cmocka_unit_test(test_restart),
        cmocka_unit_test(test_perft_liar), cmocka_unit_test(test_uci),
        cmocka_unit_test(test_game),       cmocka_unit_test(test_game_liar),
        cmocka_unit_test(test_verify),
    };
    static const char *const names[] = {"startpos", "mate",      "errors",     "liar",
                                        "engine",   "restart",   "perft-liar", "uci",
                                        "game",     "game-liar", "verify"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(which, names[i]) == 0)
            return _cmocka_run_group_tests(names[i], &all[i], 1, NULL, NULL);
    if (strcmp(which, "all") != 0) {
        fprintf(stderr,
                "usage: %s "
                "[all|startpos|mate|errors|liar|engine|restart|perft-liar|uci|game|game-liar|"
                "verify]\n",
                argv[0]);
        return 2;
    }
    return cmocka_run_group_tests(all, NULL, NULL);
}
