/*
 * UCI conversations with the cluster as one engine (`ply uci --workers 2
 * --threads 1`, and `ply uci --coordinator E` on a ply-coordinator and two
 * ply-worker processes of this test), as a GUI has them: info lines as depths
 * complete and exactly one bestmove per go, after go depth, go infinite then
 * stop, a stop right after go, isready during a search, a clock, pondering,
 * MultiPV, and a worker killed mid-search.
 *
 * Expected values come from elsewhere: the legality of every bestmove, ponder
 * move and PV move from the rule engine (common/arbiter), never from ply's
 * fast board; the protocol's rules (one bestmove per go, readyok at once
 * during a search, bestmove after stop for go infinite and go ponder) from the
 * UCI specification (April 2006). Searches are bounded by depth or stopped;
 * the one clock test allows far more than its budget, so that a loaded
 * machine makes them slower, not different.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_skip.h"
#include "arbiter/arbiter.h"
#include "harness.h"

#define ENGINE   "ply uci --workers 2 --threads 1 --hash 16"
#define STARTPOS "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define AFTER_E4 "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"

/* The longest wait for one answer, milliseconds (slower under sanitizers). */
static int wait_ms(void)
{
    return 120000 * (int)th_slowdown();
}

/* The processes a test started, stopped by teardown even when the test failed. */
static pid_t live[8];

static void keep(pid_t pid)
{
    for (int i = 0; i < 8; i++)
        if (!live[i]) {
            live[i] = pid;
            return;
        }
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 8; i++)
        if (live[i] > 0 && th_alive(live[i])) th_stop(live[i]);
    memset(live, 0, sizeof live);
    return 0;
}

/* A fresh engine (@cmd) after the uci/uciok handshake. */
static void start(th_chat_t *c, const char *cmd)
{
    th_chat_start(c, "exec %s", cmd);
    keep(c->pid);
    th_chat_send(c, "uci");
    th_chat_until(c, "uciok", wait_ms());
    char *t = th_chat_take(c);
    if (strncmp(t, "id name ply ", 12)) fail_msg("no 'id name ply' first:\n%s", t);
    free(t);
}

static char *sync_ready(th_chat_t *c)
{
    th_chat_send(c, "isready");
    th_chat_until(c, "readyok", wait_ms());
    return th_chat_take(c);
}

static void quit(th_chat_t *c)
{
    th_chat_send(c, "quit");
    assert_int_equal(th_chat_close(c, wait_ms()), 0);
    free(th_chat_take(c));
}

static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    size_t k = strlen(prefix);
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, prefix, k)) n++;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return n;
}

/* Play @uci on @p when the rule engine finds it legal there; 0 when not. */
static int arb_play(ply_arb_pos_t *p, const char *uci)
{
    ply_arb_move_t m;
    if (ply_arb_move_from_uci(p, uci, &m) < 0) return 0;
    ply_arb_make(p, m);
    return 1;
}

static void arb_pos(ply_arb_pos_t *p, const char *fen)
{
    char why[256];
    if (ply_arb_from_fen(p, fen, 0, why, sizeof why) < 0) fail_msg("test FEN '%s': %s", fen, why);
}

/* What a go's transcript says: its bestmove (and ponder), the depths of its multipv 1 info
 * lines in order, and the highest multipv; every PV, bestmove and ponder move checked legal
 * from @fen by the rule engine, the transcript holding exactly one bestmove. */
typedef struct answer {
    char best[16], ponder[16];
    int depths[256], n_depths, max_multipv;
} answer_t;

static void read_answer(const char *text, const char *fen, answer_t *a)
{
    memset(a, 0, sizeof *a);
    if (count_lines(text, "bestmove") != 1) fail_msg("not one bestmove:\n%s", text);
    char *copy = strdup(text);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        ply_arb_pos_t pos;
        arb_pos(&pos, fen);
        if (!strncmp(l, "bestmove ", 9)) {
            char kw[16] = "";
            int n = sscanf(l, "bestmove %15s %15s %15s", a->best, kw, a->ponder);
            if (n != 1 && !(n == 3 && !strcmp(kw, "ponder"))) fail_msg("malformed '%s'", l);
            if (!arb_play(&pos, a->best)) fail_msg("bestmove %s is not legal in %s", a->best, fen);
            if (n == 3 && !arb_play(&pos, a->ponder))
                fail_msg("ponder %s is not legal after %s", a->ponder, a->best);
            continue;
        }
        if (strncmp(l, "info depth ", 11)) continue;
        int depth, seldepth, multipv, used = 0;
        char kind[8];
        if (sscanf(l, "info depth %d seldepth %d multipv %d score %7s %*d%n", &depth, &seldepth,
                   &multipv, kind, &used) != 4 ||
            !used)
            fail_msg("malformed info line '%s'", l);
        if (strcmp(kind, "cp") && strcmp(kind, "mate")) fail_msg("score kind in '%s'", l);
        if (!strstr(l, " nodes ") || !strstr(l, " nps ") || !strstr(l, " time "))
            fail_msg("no nodes, nps or time in '%s'", l);
        if (multipv > a->max_multipv) a->max_multipv = multipv;
        if (multipv == 1 && a->n_depths < 256) a->depths[a->n_depths++] = depth;
        const char *pv = strstr(l, " pv ");
        if (!pv) fail_msg("no pv in '%s'", l);
        char rest[4096];
        snprintf(rest, sizeof rest, "%s", pv + 4);
        for (char *s2 = NULL, *m = strtok_r(rest, " ", &s2); m; m = strtok_r(NULL, " ", &s2))
            if (!arb_play(&pos, m)) fail_msg("pv move %s is not legal in '%s'", m, l);
    }
    free(copy);
}

/* The bestmove of @c's search, read to the end, then no second one. */
static char *until_bestmove(th_chat_t *c)
{
    th_chat_until(c, "bestmove", wait_ms());
    char *t = th_chat_take(c);
    char *after = sync_ready(c);
    if (count_lines(after, "bestmove")) fail_msg("a second bestmove:\n%s\n---\n%s", t, after);
    free(after);
    return t;
}

/* What came before (@t, owned: freed or grown) followed by until_bestmove's. */
static char *then_bestmove(th_chat_t *c, char *t)
{
    char *rest = until_bestmove(c);
    char *all = realloc(t, strlen(t) + strlen(rest) + 1);
    assert_non_null(all);
    strcat(all, rest);
    free(rest);
    return all;
}

/* ---- the tests -------------------------------------------------------------------- */

/* go depth 6: an info line for each completed depth, in increasing order, up to 6. */
static void test_depth(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    free(sync_ready(&c));
    th_chat_send(&c, "position startpos moves e2e4");
    th_chat_send(&c, "go depth 6");
    char *t = until_bestmove(&c);
    answer_t a;
    read_answer(t, AFTER_E4, &a);
    if (a.n_depths < 3) fail_msg("fewer than three depths reported as they completed:\n%s", t);
    for (int i = 1; i < a.n_depths; i++)
        if (a.depths[i] < a.depths[i - 1]) fail_msg("depths out of order:\n%s", t);
    if (a.depths[a.n_depths - 1] != 6) fail_msg("the last depth is not 6:\n%s", t);
    free(t);
    quit(&c);
}

/* go infinite, isready answered at once while it runs, no bestmove before stop. */
static void test_infinite_then_stop(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    th_chat_send(&c, "position startpos moves e2e4");
    th_chat_send(&c, "go infinite");
    usleep(1000000);
    char *t = sync_ready(&c);
    if (count_lines(t, "bestmove")) fail_msg("a bestmove before stop:\n%s", t);
    th_chat_send(&c, "stop");
    t = then_bestmove(&c, t);
    answer_t a;
    read_answer(t, AFTER_E4, &a);
    free(t);
    quit(&c);
}

/* isready during a bounded search: readyok before the bestmove, every time. */
static void test_isready_during_search(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    th_chat_send(&c, "position startpos moves e2e4");
    th_chat_send(&c, "go depth 40");
    char *t = NULL;
    for (int i = 0; i < 3; i++) {
        free(t);
        t = sync_ready(&c);
        if (count_lines(t, "bestmove")) fail_msg("go depth 40 ended already:\n%s", t);
    }
    free(t);
    th_chat_send(&c, "stop");
    t = until_bestmove(&c);
    answer_t a;
    read_answer(t, AFTER_E4, &a);
    free(t);
    quit(&c);
}

/* stop in the same write as go (it may come before the run is even submitted): exactly one
 * bestmove, for every kind of go; searchmoves kept. */
static void test_stop_right_after_go(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    th_chat_send(&c, "position startpos moves e2e4");
    const char *gos[] = {"go infinite",         "go depth 40",
                         "go movetime 100000",  "go wtime 100000 btime 100000",
                         "go nodes 1000000000", "go infinite searchmoves e7e5 c7c5"};
    for (size_t i = 0; i < sizeof gos / sizeof *gos; i++) {
        char both[128];
        snprintf(both, sizeof both, "%s\nstop\n", gos[i]);
        assert_int_equal(th_chat_send_raw(&c, both, strlen(both)), 0);
        char *t = until_bestmove(&c);
        answer_t a;
        read_answer(t, AFTER_E4, &a);
        if (strstr(gos[i], "searchmoves") && strcmp(a.best, "e7e5") && strcmp(a.best, "c7c5"))
            fail_msg("searchmoves ignored: %s", a.best);
        free(t);
    }
    quit(&c);
}

/* A clock: a bestmove comes on its own (the budget is about a thirtieth of 4 s; the wait
 * allowed is far longer, so that load does not matter), and pondering waits for ponderhit. */
static void test_clock_and_ponder(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    th_chat_send(&c, "position startpos");
    th_chat_send(&c, "go wtime 4000 btime 4000 winc 0 binc 0");
    char *t = until_bestmove(&c);
    answer_t a;
    read_answer(t, STARTPOS, &a);
    free(t);
    th_chat_send(&c, "setoption name Ponder value true");
    th_chat_send(&c, "position startpos moves e2e4");
    th_chat_send(&c, "go ponder wtime 3000 btime 3000");
    usleep(1500000);
    t = sync_ready(&c);
    if (count_lines(t, "bestmove")) fail_msg("a bestmove while pondering:\n%s", t);
    th_chat_send(&c, "ponderhit");
    t = then_bestmove(&c, t);
    read_answer(t, AFTER_E4, &a);
    free(t);
    quit(&c);
}

/* MultiPV 3: three lines of the last depth. */
static void test_multipv(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    th_chat_send(&c, "setoption name MultiPV value 3");
    th_chat_send(&c, "position startpos");
    th_chat_send(&c, "go depth 5");
    char *t = until_bestmove(&c);
    answer_t a;
    read_answer(t, STARTPOS, &a);
    if (a.max_multipv != 3) fail_msg("not three lines:\n%s", t);
    free(t);
    quit(&c);
}

/* A local worker killed (SIGKILL) mid-search costs only its jobs: the bestmove still comes.
 * The search must still run when the kill lands (isready shows no bestmove yet). */
static void test_worker_killed(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, ENGINE);
    th_chat_send(&c, "position startpos moves e2e4");
    th_chat_send(&c, "go depth 14");
    pid_t victim = 0;
    for (int i = 0; i < 400 && !victim; i++) {
        usleep(50000);
        victim = th_worker_child(c.pid, "--id local-0.0");
    }
    assert_true(victim > 0);
    th_chat_until(&c, "info depth", wait_ms()); /* both workers are at work */
    char *t = sync_ready(&c);
    if (count_lines(t, "bestmove")) fail_msg("go depth 14 ended before the kill:\n%s", t);
    assert_int_equal(kill(victim, SIGKILL), 0);
    t = then_bestmove(&c, t);
    answer_t a;
    read_answer(t, AFTER_E4, &a);
    free(t);
    quit(&c);
}

/* --coordinator: a ply-coordinator and two ply-workers of this test, on a random port. */
static void test_remote_coordinator(void **state)
{
    (void)state;
    int port = th_free_port();
    keep(th_spawn(NULL, "exec ply-coordinator --bind tcp://127.0.0.1:%d -q", port));
    for (int i = 0; i < 2; i++)
        keep(th_spawn(NULL, "exec ply-worker --connect tcp://127.0.0.1:%d --threads 1 --hash 16 -q",
                      port));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ply uci --coordinator tcp://127.0.0.1:%d", port);
    th_chat_t c;
    start(&c, cmd);
    th_chat_send(&c, "position startpos moves e2e4");
    th_chat_send(&c, "go depth 5");
    char *t = until_bestmove(&c);
    answer_t a;
    read_answer(t, AFTER_E4, &a);
    free(t);
    quit(&c);
}

/* The options: --help names them; the cluster's need a cluster. */
static void test_command_line(void **state)
{
    (void)state;
    th_run_t r = th_run(60, "ply uci --help");
    th_expect_status(&r, 0, "ply uci --help");
    assert_non_null(strstr(r.out, "--workers N"));
    assert_non_null(strstr(r.out, "--coordinator E"));
    th_run_free(&r);
    const char *bad[] = {"ply uci --threads 2 </dev/null", "ply uci --hash 64 </dev/null",
                         "ply uci --workers 0 </dev/null", "ply uci --state x </dev/null",
                         "ply uci --workers 2 --coordinator tcp://127.0.0.1:9 </dev/null"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = th_run(60, "%s", bad[i]);
        th_expect_status(&r, 2, bad[i]);
        th_run_free(&r);
    }
}

int main(void)
{
    setenv("PATH", PLY_BIN_DIR ":/usr/bin:/bin", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_command_line, teardown),
        cmocka_unit_test_teardown(test_depth, teardown),
        cmocka_unit_test_teardown(test_infinite_then_stop, teardown),
        cmocka_unit_test_teardown(test_isready_during_search, teardown),
        cmocka_unit_test_teardown(test_stop_right_after_go, teardown),
        cmocka_unit_test_teardown(test_clock_and_ponder, teardown),
        cmocka_unit_test_teardown(test_multipv, teardown),
        cmocka_unit_test_teardown(test_worker_killed, teardown),
        cmocka_unit_test_teardown(test_remote_coordinator, teardown),
    };
    return ply_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
