/*
 * Search jobs on the real ply-worker (issue 11, part 2), once per analysis backend
 * (worker/daemon/analysis.h): ply's own engine, and an external UCI engine driven by
 * ply-worker --engine (worker/daemon/analysis_uci.c). A raw ROUTER socket on loopback
 * plays the coordinator (tests/support/fake_coord.h): HELLO -> WELCOME, READY, JOB ->
 * RESULT or ERROR, Cancel, as the protocol goes (proto/ply.proto). The first argument names the
 * backend, and with it the group of tests:
 *
 * On every backend ("builtin": ply's engine; "stockfish": Debian's /usr/games/stockfish,
 * exit 77, a ctest SKIP, when it is absent):
 *   hello     the worker announces its engine: "builtin" (and kinds [PERFT, SEARCH]), or
 *             "uci:Stockfish ..." (the engine's "id name");
 *   mate      WAC.027 (below) at depth 6 (Stockfish: 12): mate 2 with a PV of 3 moves
 *             that the rule engine (common/arbiter) replays into checkmate;
 *   multipv   the start position, depth 6 (Stockfish: 8), multipv 3, searchmoves e2e4
 *             d2d4 g1f3: exactly those three as the first moves of the lines; on
 *             Stockfish also one searchmove, one line;
 *   cancel    a Cancel during a depth 60 search: the worker is idle again within
 *             seconds, no Result comes for it, and its next job runs in full.
 * ply's engine only:
 *   illegal   an illegal history move, and an illegal searchmove: an Error for the job
 *             naming the move; a job kind the worker does not run, refused by name;
 *   chunk     a chunk of a game (SearchJob.plies, for ply analyse-pgn): the positions
 *             after 3, 2 and 0 plies of 1. f3 e5 2. g4, searched in that order: three
 *             lines tagged with their plies, each PV legal from its own position (the
 *             rule engine replays it), the first "mate 1" by 2... Qh4# (Fool's mate);
 *             a ply beyond the game, and a chunk with multipv 2: an Error naming it;
 *   coordinator  ply-coordinator accepts the worker's HELLO with kinds and the worker
 *             counts perft as before (startpos perft(4) = 197,281, chessprogramming
 *             wiki "Perft Results").
 *   window    a root window (SearchJob.alpha, beta) on WAC.027: ply's engine gives a lower
 *             bound below the mate, an upper bound above it, mate 2 exact around it;
 *             Stockfish searches the full window, mate 2 exact each time.
 * Stockfish only:
 *   one root move  searched as the position after it (below).
 * "fake" (tests/support/fake_uci.c, which offers no MultiPV and dies on its second
 * search with status 3):
 *   multipv   multipv 2 is refused with an Error naming MultiPV;
 *   dies      the engine exits mid-search: an Error (PLY_EIO) for that job naming its
 *             exit status, the worker stays up, and the next job runs on a restarted
 *             engine;
 *   bad engine  ply-worker --engine on a program that is not there, or not UCI, exits 2
 *             at start with the reason.
 * "fake-window" (the fake engine, normal):
 *   window    a root window is ignored: the engine's exact cp 0.
 * "builtin-nnue": ply's engine evaluating with a network (ply-worker --eval-file, a random
 * net that evaluates the material, tests/support/nnue_random.h): hello (its engine_id names
 * the net's checksum, so that reproducible jobs go to workers with the same net), mate,
 * multipv, chunk and window as above.
 * "fake-garbage" (the engine prints "info depth x" on its second search):
 *   garbage   an Error (PLY_EPARSE) quoting it, the worker stays up, and the next job
 *             runs on a restarted engine.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <czmq.h>

#include "arbiter/arbiter.h"
#include "envelope.h"
#include "fake_coord.h"
#include "harness.h"
#include "nnue_random.h"
#include "util/error.h"

/*
 * WAC.027 of tests/data/analysis/wacnew.epd (Reinfeld, Win at Chess): a mate in 2
 * for the side to move. Debian's Stockfish 15.1 (/usr/games/stockfish, go depth 20) says
 * "score mate 2 ... pv a3f8 f2f8 f1f8" (1. Qf8+ Rxf8 2. Rxf8#).
 */
#define MATE2_ID  "WAC.027"
#define MATE2_FEN "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1"

#define STOCKFISH "/usr/games/stockfish"

/* What differs between the backends in the tests they share. */
typedef struct backend {
    const char *tag;    /* the scratch directory's name */
    const char *engine; /* ply-worker --engine's value (shell-quoted); NULL: ply's engine */
    /* the engine named in HELLO and in a Result: exactly (ply's engine), or its start (an
     * external engine's "id name" carries its version) */
    const char *hello_engine, *result_engine;
    uint32_t mate_depth, multipv_depth, after_cancel_depth;
    int exact_depth; /* lines come at exactly the depth asked; an external engine may go on */
    int nnue;        /* ply's engine with --eval-file (a random material net) */
} backend_t;

static const backend_t builtin = {
    .tag = "search-jobs",
    .hello_engine = "builtin",
    .result_engine = "ply " PLY_VERSION " builtin",
    .mate_depth = 6,
    .multipv_depth = 6,
    .after_cancel_depth = 5,
    .exact_depth = 1,
};

static const backend_t builtin_nnue = {
    .tag = "search-jobs-nnue",
    .hello_engine = "builtin",
    .result_engine = "ply " PLY_VERSION " builtin",
    .mate_depth = 6,
    .multipv_depth = 6,
    .after_cancel_depth = 5,
    .exact_depth = 1,
    .nnue = 1,
};

static const backend_t stockfish = {
    .tag = "search-jobs-uci",
    .engine = STOCKFISH,
    .hello_engine = "uci:Stockfish",
    .result_engine = "uci:Stockfish",
    .mate_depth = 12,
    .multipv_depth = 8,
    .after_cancel_depth = 6,
};

static const backend_t fake_dies = {.tag = "search-jobs-uci",
                                    .engine = "ply_fake_uci --mode die --after 1"};
static const backend_t fake_window = {.tag = "search-jobs-uci", .engine = "ply_fake_uci"};
static const backend_t fake_garbage = {.tag = "search-jobs-uci",
                                       .engine = "ply_fake_uci --mode garbage --after 1"};

static const backend_t *B; /* the backend under test */
static fake_coord_t g;

static char net_path[] = "/tmp/test_search_jobs_nnue_XXXXXX";

/* A random net that evaluates the material, in net_path; 0 or -1. */
static int write_net(void)
{
    size_t len;
    uint8_t *net = ply_test_nnue_material(128, 3, 2, "{}", &len);
    const int fd = net ? mkstemp(net_path) : -1;
    const int ok = fd >= 0 && write(fd, net, len) == (ssize_t)len;
    if (fd >= 0) close(fd);
    free(net);
    return ok ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    if (B->nnue)
        return write_net() ? -1
                           : fake_coord_start(&g, B->tag, "--threads 1 --hash 16 -v --eval-file %s",
                                              net_path);
    if (!B->engine) return fake_coord_start(&g, B->tag, "--threads 1 --hash 16 -v");
    return fake_coord_start(&g, B->tag,
                            "--engine '%s' --engine-option Threads=1 --engine-option Hash=16 -v",
                            B->engine);
}

static int teardown(void **state)
{
    (void)state;
    fake_coord_stop(&g);
    if (B->nnue) unlink(net_path);
    return 0;
}

static ply_msg_t *recv_type(int body, int timeout_ms)
{
    return fake_coord_recv_type(&g, body, timeout_ms);
}

static void send_msg(ply_msg_t *m)
{
    fake_coord_send(&g, m);
}

static uint64_t send_job(Ply__SearchJob *sj)
{
    return fake_coord_send_search(&g, sj);
}

static ply_msg_t *answer(uint64_t id, int timeout_ms)
{
    return fake_coord_answer(&g, id, timeout_ms);
}

/* @m's search result; fails the test when @m is an Error. */
static const Ply__SearchResult *result_of(ply_msg_t *m)
{
    if (m->body_case != PLY__MESSAGE__BODY_RESULT) fail_msg("error: %s", m->error->message);
    assert_non_null(m->result->search);
    return m->result->search;
}

/* Fails the test unless @name is @B's engine name @want (exactly, or its start). */
static void expect_engine(const char *what, const char *name, const char *want)
{
    assert_non_null(name);
    if (!B->engine ? strcmp(name, want) : strncmp(name, want, strlen(want)))
        fail_msg("%s engine '%s', not '%s'", what, name, want);
}

/* ---- on every backend -------------------------------------------------------- */

static void test_hello(void **state)
{
    (void)state;
    const Ply__Hello *h = g.hello->hello;
    if (!B->engine) {
        assert_int_equal(h->n_kinds, 2);
        assert_int_equal(h->kinds[0], PLY__JOB_KIND__JOB_KIND_PERFT);
        assert_int_equal(h->kinds[1], PLY__JOB_KIND__JOB_KIND_SEARCH);
    }
    expect_engine("HELLO", h->engine, B->hello_engine);
    /* who answers a reproducible job alike: with a network, its checksum too */
    assert_non_null(h->engine_id);
    if ((strstr(h->engine_id, ", nnue ") != NULL) != B->nnue)
        fail_msg("HELLO engine_id '%s'", h->engine_id);
}

static void test_mate(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = MATE2_FEN;
    sj.has_depth = 1, sj.depth = B->mate_depth;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    const Ply__SearchLine *l = r->lines[0];
    if (!l->has_mate || l->mate != 2) fail_msg(MATE2_ID ": not mate 2 (mate %d)", l->mate);
    assert_int_equal(l->bound, 0);
    assert_int_equal(l->n_pv, 3);
    assert_true(r->has_nodes && r->nodes > 0);
    expect_engine("Result", r->engine, B->result_engine);
    /* the rule engine replays the line: every move legal, and checkmate at its end */
    ply_arb_pos_t pos;
    char why[160];
    assert_int_equal(ply_arb_from_fen(&pos, MATE2_FEN, 0, why, sizeof why), 0);
    for (size_t i = 0; i < l->n_pv; i++) {
        ply_arb_move_t mv;
        if (ply_arb_move_from_uci(&pos, l->pv[i], &mv) != 0)
            fail_msg(MATE2_ID ": PV move %zu (%s) is not legal", i + 1, l->pv[i]);
        ply_arb_make(&pos, mv);
    }
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    assert_int_equal(ply_arb_legal_moves(&pos, legal), 0);
    assert_true(ply_arb_in_check(&pos));
    ply_msg_free(&m);
}

/* The one line of MATE2_FEN searched to the backend's mate depth in the root window
 * [@alpha, @beta] (SearchJob.alpha, beta); the answer in *@m (freed by the caller). */
static const Ply__SearchLine *window_line(int32_t alpha, int32_t beta, ply_msg_t **m)
{
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = MATE2_FEN;
    sj.has_depth = 1, sj.depth = B->mate_depth;
    sj.has_alpha = 1, sj.alpha = alpha;
    sj.has_beta = 1, sj.beta = beta;
    *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(*m);
    assert_int_equal(r->n_lines, 1);
    assert_true(r->lines[0]->n_pv >= 1);
    return r->lines[0];
}

/* A root window (SearchJob.alpha, beta; mate in 2 is PLY_SCORE_MATE - 3 = 31997 in ply's
 * engine units). Ply's engine honours it: a window below the mate gives a lower bound (at
 * least beta), one above it an upper bound (no mate in 1: at most alpha), one around it the
 * mate exact. An external UCI engine searches the full window: mate 2 exact every time. */
static void test_window(void **state)
{
    (void)state;
    ply_msg_t *m;
    const Ply__SearchLine *l = window_line(0, 1, &m);
    if (!B->engine) {
        assert_int_equal(l->bound, 1);
        assert_true(l->has_mate ? l->mate > 0 : l->score_cp >= 1);
    } else {
        assert_int_equal(l->bound, 0);
        assert_true(l->has_mate && l->mate == 2);
    }
    ply_msg_free(&m);
    l = window_line(31998, 31999, &m);
    if (!B->engine) {
        assert_int_equal(l->bound, 2);
        if (l->has_mate && l->mate == 1) fail_msg("an upper bound of mate 1, above alpha");
    } else {
        assert_int_equal(l->bound, 0);
        assert_true(l->has_mate && l->mate == 2);
    }
    ply_msg_free(&m);
    l = window_line(31996, 31998, &m);
    assert_int_equal(l->bound, 0);
    assert_true(l->has_mate && l->mate == 2);
    assert_int_equal(l->n_pv, 3);
    ply_msg_free(&m);
}

/* Fails the test unless line @l reached the depth @want asked for. */
static void expect_depth(const Ply__SearchLine *l, uint32_t want)
{
    if (B->exact_depth)
        assert_int_equal(l->depth, want);
    else
        assert_true(l->depth >= want);
}

static void test_multipv(void **state)
{
    (void)state;
    char *only[] = {"e2e4", "d2d4", "g1f3"};
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = B->multipv_depth;
    sj.has_multipv = 1, sj.multipv = 3;
    sj.n_searchmoves = 3, sj.searchmoves = only;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 3);
    int seen[3] = {0};
    for (size_t i = 0; i < 3; i++) {
        const Ply__SearchLine *l = r->lines[i];
        assert_int_equal(l->multipv, i + 1);
        assert_true(l->has_score_cp && !l->has_mate);
        expect_depth(l, B->multipv_depth);
        assert_true(l->n_pv >= 1);
        int k = 0;
        while (k < 3 && strcmp(l->pv[0], only[k])) k++;
        if (k == 3) fail_msg("line %zu starts with %s, not a searchmove", i + 1, l->pv[0]);
        seen[k]++;
    }
    assert_true(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
    ply_msg_free(&m);
    if (!B->engine) return;

    /* one searchmove, one line: the engine searched only it */
    sj.has_multipv = 0;
    sj.n_searchmoves = 1, sj.searchmoves = only + 2;
    m = answer(send_job(&sj), 120000);
    r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    assert_string_equal(r->lines[0]->pv[0], "g1f3");
    ply_msg_free(&m);
}

static void test_cancel(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 60; /* hours on one thread */
    uint64_t id = send_job(&sj);
    /* running: a heartbeat names it */
    ply_msg_t *hb = NULL;
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < 10000u * th_slowdown();) {
        hb = recv_type(PLY__MESSAGE__BODY_HEARTBEAT, 2000);
        if (hb && hb->heartbeat->has_job_id && hb->heartbeat->job_id == id) break;
        ply_msg_free(&hb);
    }
    assert_non_null(hb);
    ply_msg_free(&hb);
    usleep(500000);
    Ply__Cancel c = PLY__CANCEL__INIT;
    c.has_run_id = 1, c.run_id = 1;
    c.has_job_id = 1, c.job_id = id;
    c.has_attempt = 1, c.attempt = 1;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_CANCEL;
    m.cancel = &c;
    send_msg(&m);
    uint64_t t0 = th_now_ms();
    /* idle within a few seconds: a heartbeat without a job, and no RESULT on the way */
    int idle = 0;
    while (!idle && th_now_ms() - t0 < 5000u * th_slowdown()) {
        ply_msg_t *x = NULL;
        if (ply_msg_recv_from(g.router, NULL, &x, NULL, 0) != 0) continue;
        if (x->body_case == PLY__MESSAGE__BODY_RESULT || x->body_case == PLY__MESSAGE__BODY_ERROR)
            fail_msg("an answer came for a cancelled job (%s)", ply_msg_type_name(x));
        if (x->body_case == PLY__MESSAGE__BODY_HEARTBEAT && !x->heartbeat->has_job_id) idle = 1;
        ply_msg_free(&x);
    }
    if (!idle) fail_msg("the worker still searched 5 s after the Cancel");
    print_message("cancel: idle %" PRIu64 " ms after the Cancel\n", th_now_ms() - t0);
    /* the next job runs in full (the stop was not left pending for it) */
    sj.depth = B->after_cancel_depth;
    ply_msg_t *r = answer(send_job(&sj), 60000);
    expect_depth(result_of(r)->lines[0], B->after_cancel_depth);
    ply_msg_free(&r);
}

/* ---- ply's engine ------------------------------------------------------------- */

static void test_illegal(void **state)
{
    (void)state;
    char *history[] = {"e2e4", "e7e5", "e1e3"};
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.n_moves = 3, sj.moves = history;
    sj.has_depth = 1, sj.depth = 4;
    uint64_t id = send_job(&sj);
    ply_msg_t *m = answer(id, 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->attempt, 1);
    assert_int_equal(m->error->code, PLY_EILLEGAL);
    if (!strstr(m->error->message, "move 3") || !strstr(m->error->message, "e1e3"))
        fail_msg("the error does not name move 3 (e1e3): %s", m->error->message);
    ply_msg_free(&m);

    char *only[] = {"d2d4", "d2d5"};
    sj.n_moves = 2;
    sj.n_searchmoves = 2, sj.searchmoves = only;
    m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    if (!strstr(m->error->message, "searchmoves 2") || !strstr(m->error->message, "d2d5"))
        fail_msg("the error does not name searchmove 2 (d2d5): %s", m->error->message);
    ply_msg_free(&m);
}

/* A job of a kind this worker did not list (PLY/2: any number passes the envelope, with its
 * bytes in other): refused with an error naming the kind, and the worker goes on. */
static void test_unknown_kind(void **state)
{
    (void)state;
    Ply__Job j = PLY__JOB__INIT;
    j.has_job_id = 1, j.job_id = ++g.next_job;
    j.has_attempt = 1, j.attempt = 1;
    j.has_kind = 1, j.kind = 7;
    j.has_run_id = 1, j.run_id = 1;
    j.has_lease_ms = 1, j.lease_ms = 600000;
    j.has_other = 1, j.other.len = 2, j.other.data = (uint8_t *)"\x08\x01";
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_JOB;
    m.job = &j;
    send_msg(&m);
    ply_msg_t *a = answer(j.job_id, 30000);
    assert_int_equal(a->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(a->error->code, PLY_EINVAL);
    if (!strstr(a->error->message, "job kind 7 is not one this worker runs"))
        fail_msg("the error does not name kind 7: %s", a->error->message);
    ply_msg_free(&a);
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT; /* and it still searches */
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 2;
    a = answer(send_job(&sj), 30000);
    assert_int_equal(a->body_case, PLY__MESSAGE__BODY_RESULT);
    ply_msg_free(&a);
}

/* Replays @l's PV with the rule engine from the position after @ply moves of @game. */
static void replay_from(const char *const *game, int ply, const Ply__SearchLine *l,
                        ply_arb_pos_t *end)
{
    char why[160];
    assert_int_equal(ply_arb_from_fen(end, "startpos", 0, why, sizeof why), 0);
    for (int i = 0; i < ply; i++) {
        ply_arb_move_t mv;
        assert_int_equal(ply_arb_move_from_uci(end, game[i], &mv), 0);
        ply_arb_make(end, mv);
    }
    for (size_t i = 0; i < l->n_pv; i++) {
        ply_arb_move_t mv;
        if (ply_arb_move_from_uci(end, l->pv[i], &mv) != 0)
            fail_msg("ply %d: PV move %zu (%s) is not legal", ply, i + 1, l->pv[i]);
        ply_arb_make(end, mv);
    }
}

static void test_chunk(void **state)
{
    (void)state;
    char *game[] = {"f2f3", "e7e5", "g2g4"};
    uint32_t plies[] = {3, 2, 0};
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.n_moves = 3, sj.moves = game;
    sj.n_plies = 3, sj.plies = plies;
    sj.has_depth = 1, sj.depth = 5;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    if (m->body_case != PLY__MESSAGE__BODY_RESULT) fail_msg("error: %s", m->error->message);
    const Ply__SearchResult *r = m->result->search;
    assert_int_equal(r->n_lines, 3);
    for (size_t i = 0; i < 3; i++) {
        const Ply__SearchLine *l = r->lines[i];
        assert_true(l->has_ply);
        assert_int_equal(l->ply, plies[i]);
        assert_int_equal(l->multipv, 1);
        assert_true(l->n_pv >= 1);
        ply_arb_pos_t end;
        replay_from((const char *const *)game, (int)plies[i], l, &end);
        if (i == 0) { /* 2... Qh4#: the rule engine agrees that it is mate */
            if (!l->has_mate || l->mate != 1) fail_msg("ply 3: not mate 1 (mate %d)", l->mate);
            assert_string_equal(l->pv[0], "d8h4");
            ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
            assert_int_equal(ply_arb_legal_moves(&end, legal), 0);
            assert_true(ply_arb_in_check(&end));
        }
    }
    ply_msg_free(&m);

    uint32_t beyond[] = {2, 4};
    sj.plies = beyond;
    sj.n_plies = 2;
    m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    if (!strstr(m->error->message, "plies 2 (4)"))
        fail_msg("the error does not name plies 2 (4): %s", m->error->message);
    ply_msg_free(&m);

    sj.n_plies = 1;
    sj.has_multipv = 1, sj.multipv = 2;
    m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    if (!strstr(m->error->message, "multipv 2")) fail_msg("not refused: %s", m->error->message);
    ply_msg_free(&m);
}

static void test_coordinator(void **state)
{
    (void)state;
    char ep[64], log[256];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", th_free_port());
    const char *dir = th_tmpdir("search-coord");
    snprintf(log, sizeof log, "%s/coordinator.log", dir);
    pid_t coord = th_spawn(log, "exec ply-coordinator --bind %s -v", ep);
    snprintf(log, sizeof log, "%s/worker.log", dir);
    pid_t worker = th_spawn(log, "exec ply-worker --connect %s --threads 1 --hash 16 -v", ep);
    th_run_t r = th_run(120, "ply perft --coordinator %s -d 4", ep);
    th_stop(worker);
    th_stop(coord);
    th_run_t rm = th_run(30, "rm -rf '%s'", dir);
    th_run_free(&rm);
    th_expect_status(&r, 0, "ply perft on a worker that announces the search kind");
    if (!strstr(r.out, "Nodes searched: 197281\n")) fail_msg("perft(4): %s", r.out);
    th_run_free(&r);
}

/* ---- Stockfish ---------------------------------------------------------------- */

/* One root move (a ply analyse job) is searched as the position after it. Stockfish 15.1
 * answers "go depth 8 searchmoves g1h3" from the start position with cp 384 and the
 * one-move line g1h3 (found by a new user's trial); searched as the position after g1h3,
 * Nh3 is no winning move (Stockfish's own go depth 7 there gives about +0.6 for Black)
 * and its line goes on. A root move that mates is mate 1 without a search. */
static void test_one_root_move(void **state)
{
    (void)state;
    char *nh3[] = {"g1h3"};
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 8;
    sj.n_searchmoves = 1, sj.searchmoves = nh3;
    ply_msg_t *m = answer(send_job(&sj), 120000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    const Ply__SearchLine *l = r->lines[0];
    assert_string_equal(l->pv[0], "g1h3");
    if (!l->has_score_cp || l->score_cp > 100)
        fail_msg("Nh3 scored %d cp, mate %d: Stockfish's searchmoves answer leaked through",
                 l->score_cp, l->mate);
    assert_true(l->n_pv >= 3);
    assert_int_equal(l->depth, 8);
    ply_msg_free(&m);

    char *qxf7[] = {"h5f7"};
    sj.fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    sj.searchmoves = qxf7;
    m = answer(send_job(&sj), 120000);
    r = result_of(m);
    l = r->lines[0];
    if (!l->has_mate || l->mate != 1) fail_msg("Qxf7# not mate 1 (mate %d)", l->mate);
    assert_int_equal(l->n_pv, 1);
    ply_msg_free(&m);
}

/* ---- the fake engine ---------------------------------------------------------- */

static void test_fake_multipv(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    sj.has_multipv = 1, sj.multipv = 2;
    ply_msg_t *m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->code, PLY_EINVAL);
    if (!strstr(m->error->message, "MultiPV")) fail_msg("error: %s", m->error->message);
    ply_msg_free(&m);
}

/* The fake engine (cp 0, its first legal move) ignores a root window: an exact line. */
static void test_fake_window(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    sj.has_alpha = 1, sj.alpha = 50;
    sj.has_beta = 1, sj.beta = 51;
    ply_msg_t *m = answer(send_job(&sj), 30000);
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    assert_int_equal(r->lines[0]->bound, 0);
    assert_true(r->lines[0]->has_score_cp && r->lines[0]->score_cp == 0);
    ply_msg_free(&m);
}

static void test_fake_dies(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    ply_msg_t *m = answer(send_job(&sj), 30000); /* its first search: normal */
    const Ply__SearchResult *r = result_of(m);
    assert_int_equal(r->n_lines, 1);
    assert_int_equal(r->lines[0]->depth, 1);
    ply_msg_free(&m);
    m = answer(send_job(&sj), 30000); /* the second: it exits with status 3 */
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->code, PLY_EIO);
    if (!strstr(m->error->message, "status 3")) fail_msg("error: %s", m->error->message);
    print_message("dies: %s\n", m->error->message);
    ply_msg_free(&m);
    assert_true(th_alive(g.pid));
    m = answer(send_job(&sj), 30000); /* a restarted engine's first search */
    result_of(m);
    ply_msg_free(&m);
}

/* The engine prints a malformed info line on its second search: an Error quoting it. */
static void test_fake_garbage(void **state)
{
    (void)state;
    Ply__SearchJob sj = PLY__SEARCH_JOB__INIT;
    sj.fen = "startpos";
    sj.has_depth = 1, sj.depth = 1;
    ply_msg_t *m = answer(send_job(&sj), 30000);
    result_of(m);
    ply_msg_free(&m);
    m = answer(send_job(&sj), 30000);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(m->error->code, PLY_EPARSE);
    if (!strstr(m->error->message, "depth x")) fail_msg("error: %s", m->error->message);
    ply_msg_free(&m);
    assert_true(th_alive(g.pid));
    m = answer(send_job(&sj), 30000); /* a restarted engine's first search */
    result_of(m);
    ply_msg_free(&m);
}

static void test_bad_engine(void **state)
{
    (void)state;
    th_run_t r = th_run(60, "ply-worker --connect tcp://127.0.0.1:1 --engine /nonexistent/engine");
    th_expect_status(&r, 2, "an --engine that is not there");
    if (!strstr(r.err, "/nonexistent/engine")) fail_msg("stderr: %s", r.err);
    th_run_free(&r);
    r = th_run(60, "ply-worker --connect tcp://127.0.0.1:1 --engine 'ply_fake_uci --mode "
                   "no-uciok'");
    th_expect_status(&r, 2, "an --engine that does not finish the UCI handshake");
    if (!strstr(r.err, "uciok")) fail_msg("stderr: %s", r.err);
    th_run_free(&r);
}

int main(int argc, char **argv)
{
    const char *backend = argc > 1 ? argv[1] : "builtin";
    if (!strcmp(backend, "stockfish")) {
        if (access(STOCKFISH, X_OK) != 0) {
            printf("skip: no %s\n", STOCKFISH);
            return 77;
        }
        B = &stockfish;
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_hello),   cmocka_unit_test(test_mate),
            cmocka_unit_test(test_multipv), cmocka_unit_test(test_one_root_move),
            cmocka_unit_test(test_window),  cmocka_unit_test(test_cancel),
        };
        return cmocka_run_group_tests_name("search_jobs_stockfish", tests, setup, teardown);
    }
    if (!strcmp(backend, "fake-garbage")) {
        B = &fake_garbage;
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_fake_garbage)};
        return cmocka_run_group_tests_name("search_jobs_fake_garbage", tests, setup, teardown);
    }
    if (!strcmp(backend, "fake-window")) {
        B = &fake_window;
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_fake_window)};
        return cmocka_run_group_tests_name("search_jobs_fake_window", tests, setup, teardown);
    }
    if (!strcmp(backend, "fake")) {
        B = &fake_dies;
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fake_multipv),
            cmocka_unit_test(test_fake_dies),
            cmocka_unit_test(test_bad_engine),
        };
        return cmocka_run_group_tests_name("search_jobs_fake_uci", tests, setup, teardown);
    }
    if (!strcmp(backend, "builtin-nnue")) {
        B = &builtin_nnue;
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_hello),    cmocka_unit_test(test_mate),
            cmocka_unit_test(test_multipv),  cmocka_unit_test(test_chunk),
            cmocka_unit_test(test_window),
        };
        return cmocka_run_group_tests_name("search_jobs_nnue", tests, setup, teardown);
    }
    B = &builtin;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello),        cmocka_unit_test(test_mate),
        cmocka_unit_test(test_multipv),      cmocka_unit_test(test_illegal),
        cmocka_unit_test(test_unknown_kind), cmocka_unit_test(test_chunk),
        cmocka_unit_test(test_cancel),       cmocka_unit_test(test_coordinator),
        cmocka_unit_test(test_window),
    };
    return cmocka_run_group_tests_name("search_jobs", tests, setup, teardown);
}
