/*
 * Scripted UCI conversations with the real `ply uci` (and `ply-worker --uci`)
 * over its stdin and stdout, as a GUI has them: every command of worker/uci/uci.h,
 * searches stopped at once, roots without moves, Chess960 castling, malformed
 * input, multi-PV, perft, quit and end of input during a search, and the
 * reproducibility of `go nodes`.
 *
 * Expected values come from elsewhere: perft counts from tests/data
 * (perftsuite.epd, ethereal-fischer.epd) and from Stockfish 15.1's `go perft`
 * (quoted where used); the legality of every bestmove and PV move, and the
 * mate or stalemate of a root, from the rule engine (common/arbiter), never
 * from ply's fast board; protocol behaviour from the UCI specification (April
 * 2006) and Stockfish 15.1's answers where it is vague (worker/uci/uci.h says where ply
 * differs). Searches are bounded by depth or nodes, or stopped, never timed,
 * so that a loaded machine makes them slower, not different.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nnue_random.h"
#include "test_skip.h"
#include "arbiter/arbiter.h"
#include "harness.h"

#define STARTPOS "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
/* Fool's mate: white is checkmated (Stockfish 15.1: "info depth 0 score mate 0"). */
#define MATED "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
/* Black to move has no move and is not in check (Stockfish 15.1: "score cp 0"). */
#define STALEMATE "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
/* Both sides may castle both ways; Shredder-FEN letters make it Chess960. */
#define CASTLES960 "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1"

/* The longest wait for one answer, milliseconds (slower under sanitizers). */
static int wait_ms(void)
{
    return 60000 * (int)th_slowdown();
}

/* The engines a test started, stopped by teardown even when the test failed. */
static pid_t live[8];

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 8; i++)
        if (live[i] > 0 && th_alive(live[i])) th_stop(live[i]);
    memset(live, 0, sizeof live);
    return 0;
}

static void chat_start(th_chat_t *c, const char *cmd)
{
    th_chat_start(c, "exec %s", cmd);
    for (int i = 0; i < 8; i++)
        if (!live[i]) {
            live[i] = c->pid;
            break;
        }
}

/* A fresh `ply uci` (or @cmd) after the uci/uciok handshake. */
static void start(th_chat_t *c, const char *cmd)
{
    chat_start(c, cmd);
    th_chat_send(c, "uci");
    th_chat_until(c, "uciok", wait_ms());
    free(th_chat_take(c));
}

/* isready / readyok: everything sent before has been read and acted on. */
static char *sync_ready(th_chat_t *c)
{
    th_chat_send(c, "isready");
    th_chat_until(c, "readyok", wait_ms());
    return th_chat_take(c);
}

/* Lines of @text that start with @prefix. */
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

/* The first line of @text starting with @prefix, copied into @out; 0 when none. */
static int find_line(const char *text, const char *prefix, char *out, size_t len)
{
    size_t k = strlen(prefix);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!strncmp(p, prefix, k)) {
            snprintf(out, len, "%.*s", (int)n, p);
            return 1;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* The line just before the first line starting with @prefix ("" when none). */
static void line_before(const char *text, const char *prefix, char *out, size_t len)
{
    const char *prev = NULL;
    *out = 0;
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, prefix, strlen(prefix))) {
            if (prev) snprintf(out, len, "%.*s", (int)(p - prev - 1), prev);
            return;
        }
        prev = p;
        p = strchr(p, '\n');
        if (p) p++;
    }
}

static void arb_pos(ply_arb_pos_t *p, const char *fen, int chess960)
{
    char why[256];
    if (ply_arb_from_fen(p, fen, chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why) < 0)
        fail_msg("test FEN '%s': %s", fen, why);
}

/* Play @uci on @p if it is legal there, written as a UCI_Chess960 engine
 * (p->chess960) or a standard one writes it; 0 when it is not. */
static int arb_play(ply_arb_pos_t *p, const char *uci)
{
    ply_arb_move_t m;
    char back[8];
    if (ply_arb_move_from_uci(p, uci, &m) < 0) return 0;
    ply_arb_move_to_uci(p, m, back);
    if (strcmp(back, uci)) return 0; /* the other castling form */
    ply_arb_make(p, m);
    return 1;
}

/* The move after "bestmove " (and after " ponder ", into @ponder if given). */
static void bestmove_of(const char *text, char *best, char *ponder)
{
    char l[256];
    if (!find_line(text, "bestmove ", l, sizeof l)) fail_msg("no bestmove in:\n%s", text);
    char b[32] = "", p[32] = "", kw[32] = "";
    int n = sscanf(l, "bestmove %31s %31s %31s", b, kw, p);
    if (n != 1 && !(n == 3 && !strcmp(kw, "ponder"))) fail_msg("malformed '%s'", l);
    strcpy(best, b);
    if (ponder) strcpy(ponder, n == 3 ? p : "");
}

/*
 * Check every "info depth" line of @text against the UCI grammar (the fields
 * in ply's order: depth seldepth multipv score nodes nps hashfull time pv)
 * and replay its PV from @fen with the rule engine: every move legal.
 * Checks bestmove (and ponder) the same way. Returns the number of info lines.
 */
static int check_search_output(const char *text, const char *fen, int chess960)
{
    int n = 0;
    char *copy = strdup(text);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "bestmove ", 9)) {
            char b[32], p[32];
            bestmove_of(l, b, p);
            ply_arb_pos_t pos;
            arb_pos(&pos, fen, chess960);
            if (!strcmp(b, "0000")) continue;
            if (!arb_play(&pos, b)) fail_msg("bestmove %s is not legal in %s", b, fen);
            if (*p && !arb_play(&pos, p)) fail_msg("ponder %s is not legal after %s", p, b);
            continue;
        }
        if (strncmp(l, "info depth ", 11)) continue;
        n++;
        int depth, seldepth, multipv, score, hashfull, used = 0;
        unsigned long long nodes, nps, time;
        char kind[8], rest[4096] = "";
        if (sscanf(l, "info depth %d seldepth %d multipv %d score %7s %d%n", &depth, &seldepth,
                   &multipv, kind, &score, &used) != 5)
            fail_msg("malformed info line '%s'", l);
        const char *r = l + used;
        if (!strncmp(r, " lowerbound", 11))
            r += 11;
        else if (!strncmp(r, " upperbound", 11))
            r += 11;
        if (sscanf(r, " nodes %llu nps %llu hashfull %d time %llu%n", &nodes, &nps, &hashfull,
                   &time, &used) != 4)
            fail_msg("malformed info line '%s' (at '%s')", l, r);
        r += used;
        if (strcmp(kind, "cp") && strcmp(kind, "mate")) fail_msg("score kind in '%s'", l);
        if (depth < 0 || seldepth < 0 || multipv < 1 || multipv > 64 || hashfull < 0 ||
            hashfull > 1000)
            fail_msg("out-of-range field in '%s'", l);
        if (*r && strncmp(r, " pv ", 4)) fail_msg("unexpected '%s' in '%s'", r, l);
        if (!*r) continue;
        snprintf(rest, sizeof rest, "%s", r + 4);
        ply_arb_pos_t pos;
        arb_pos(&pos, fen, chess960);
        for (char *s2 = NULL, *m = strtok_r(rest, " ", &s2); m; m = strtok_r(NULL, " ", &s2))
            if (!arb_play(&pos, m)) fail_msg("pv move %s is not legal in '%s'", m, l);
    }
    free(copy);
    return n;
}

/* Send @go and read to its bestmove; returns the transcript. */
static char *go_wait(th_chat_t *c, const char *go)
{
    th_chat_send(c, "%s", go);
    th_chat_until(c, "bestmove", wait_ms());
    return th_chat_take(c);
}

static void expect_one_bestmove_with_final_info(const char *text)
{
    if (count_lines(text, "bestmove") != 1) fail_msg("not one bestmove:\n%s", text);
    char prev[4096];
    line_before(text, "bestmove", prev, sizeof prev);
    if (strncmp(prev, "info depth ", 11)) fail_msg("no final info before bestmove:\n%s", text);
}

/* ---- the tests -------------------------------------------------------------------- */

static void test_handshake(void **state)
{
    (void)state;
    const char *cmds[] = {"ply uci", "ply-worker --uci"};
    for (int k = 0; k < 2; k++) {
        th_chat_t c;
        chat_start(&c, cmds[k]);
        th_chat_send(&c, "uci");
        th_chat_until(&c, "uciok", wait_ms());
        char *t = th_chat_take(&c);
        /* the specification: id name, id author, the options, then uciok */
        assert_true(!strncmp(t, "id name ply ", 12));
        const char *opts[] = {
            "option name Hash type spin default 16 min 1 max ",
            "option name Threads type spin default 1 min 1 max ",
            "option name MultiPV type spin default 1 min 1 max 64\n",
            "option name UCI_Chess960 type check default false\n",
            "option name Move Overhead type spin default 10 min 0 max 5000\n",
            "option name Clear Hash type button\n",
            "option name Ponder type check default false\n",
            "option name Use NNUE type check default ",
            "option name EvalFile type string default <built-in>\n",
        };
        for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
            if (!strstr(t, opts[i])) fail_msg("%s: no '%s' in:\n%s", cmds[k], opts[i], t);
        assert_int_equal(count_lines(t, "id author "), 1);
        free(t);
        free(sync_ready(&c));
        th_chat_send(&c, "quit");
        assert_int_equal(th_chat_close(&c, wait_ms()), 0);
        free(th_chat_take(&c));
    }
    th_run_t r = th_run(60, "ply uci --help");
    th_expect_status(&r, 0, "ply uci --help");
    assert_non_null(strstr(r.out, "usage: ply uci"));
    th_run_free(&r);
    r = th_run(60, "ply uci extra </dev/null");
    th_expect_status(&r, 2, "ply uci extra");
    th_run_free(&r);
    r = th_run(60, "ply-worker --uci --threads 2 </dev/null");
    th_expect_status(&r, 2, "ply-worker --uci --threads 2");
    th_run_free(&r);
}

static void test_isready_during_infinite(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, "ply uci");
    th_chat_send(&c, "position startpos");
    th_chat_send(&c, "go infinite");
    /* answered at once while the search runs, and no bestmove before stop */
    for (int i = 0; i < 3; i++) {
        char *t = sync_ready(&c);
        assert_int_equal(count_lines(t, "bestmove"), 0);
        free(t);
    }
    th_chat_send(&c, "stop");
    th_chat_until(&c, "bestmove", wait_ms());
    char *t = th_chat_take(&c);
    expect_one_bestmove_with_final_info(t);
    check_search_output(t, STARTPOS, 0);
    free(t);
    t = sync_ready(&c); /* and no second bestmove */
    assert_int_equal(count_lines(t, "bestmove"), 0);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

static void test_stop_right_after_go(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, "ply uci");
    th_chat_send(&c, "position startpos moves e2e4");
    const char *gos[] = {"go infinite",
                         "go depth 60",
                         "go nodes 100000000",
                         "go movetime 100000",
                         "go wtime 100000 btime 100000",
                         "go infinite searchmoves e7e5 c7c5"};
    for (int round = 0; round < 12; round++) {
        const char *go = gos[round % 6];
        /* one write: the stop may come before the search thread has started */
        char both[128];
        snprintf(both, sizeof both, "%s\nstop\nisready\n", go);
        assert_int_equal(th_chat_send_raw(&c, both, strlen(both)), 0);
        th_chat_until(&c, "readyok", wait_ms());
        char *t = th_chat_take(&c);
        if (!strstr(t, "bestmove")) {
            th_chat_until(&c, "bestmove", wait_ms());
            char *more = th_chat_take(&c);
            t = realloc(t, strlen(t) + strlen(more) + 1);
            strcat(t, more);
            free(more);
        }
        char *after = sync_ready(&c);
        assert_int_equal(count_lines(after, "bestmove"), 0);
        free(after);
        expect_one_bestmove_with_final_info(t);
        check_search_output(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 0);
        if (round % 6 == 5) {
            char b[32];
            bestmove_of(t, b, NULL);
            if (strcmp(b, "e7e5") && strcmp(b, "c7c5")) fail_msg("searchmoves ignored: %s", b);
        }
        free(t);
    }
    /* stop with no search running is no error (Stockfish 15.1 ignores it too) */
    th_chat_send(&c, "stop");
    char *t = sync_ready(&c);
    assert_int_equal(count_lines(t, "bestmove") + count_lines(t, "info string"), 0);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

/* A root without legal moves: "bestmove 0000" after a final depth-0 info. */
static void test_no_legal_move(void **state)
{
    (void)state;
    struct {
        const char *fen, *score;
    } roots[] = {{MATED, "score mate 0"}, {STALEMATE, "score cp 0"}};
    ply_arb_pos_t p;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    arb_pos(&p, MATED, 0);
    assert_true(ply_arb_legal_moves(&p, mv) == 0 && ply_arb_in_check(&p));
    arb_pos(&p, STALEMATE, 0);
    assert_true(ply_arb_legal_moves(&p, mv) == 0 && !ply_arb_in_check(&p));
    th_chat_t c;
    start(&c, "ply uci");
    for (int i = 0; i < 2; i++) {
        th_chat_send(&c, "position fen %s", roots[i].fen);
        char *t = go_wait(&c, "go depth 5");
        expect_one_bestmove_with_final_info(t);
        char l[256];
        assert_true(find_line(t, "bestmove", l, sizeof l));
        assert_string_equal(l, "bestmove 0000");
        line_before(t, "bestmove", l, sizeof l);
        if (!strstr(l, roots[i].score) || strstr(l, " pv")) fail_msg("final info '%s'", l);
        check_search_output(t, roots[i].fen, 0);
        free(t);
        /* infinite and ponder: the bestmove waits for stop, also here */
        const char *waits[] = {"go infinite", "go ponder"};
        for (int w = 0; w < 2; w++) {
            th_chat_send(&c, "%s", waits[w]);
            t = sync_ready(&c);
            assert_int_equal(count_lines(t, "bestmove"), 0);
            free(t);
            th_chat_send(&c, "stop");
            th_chat_until(&c, "bestmove 0000", wait_ms());
            free(th_chat_take(&c));
        }
    }
    /* Regression: the stop above came after the engine had returned, and the
     * engine keeps such a stop for its next search (search.h), which ended
     * after depth 1. The next search reaches its depth. */
    th_chat_send(&c, "position startpos");
    char *t = go_wait(&c, "go depth 5");
    if (!strstr(t, "info depth 5 ")) fail_msg("a stale stop cut the search short:\n%s", t);
    free(t);
    /* nor does a stop that comes after a search ended on its own */
    th_chat_send(&c, "stop");
    t = go_wait(&c, "go depth 5");
    if (!strstr(t, "info depth 5 ")) fail_msg("a stale stop cut the search short:\n%s", t);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

static void test_chess960(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, "ply uci");
    th_chat_send(&c, "setoption name UCI_Chess960 value true");
    /* king takes rook in the moves list: white h-side, black a-side */
    th_chat_send(&c, "position fen " CASTLES960 " moves e1h1 e8a8");
    th_chat_send(&c, "go perft 2");
    th_chat_until(&c, "Nodes searched", wait_ms());
    const char *l = th_chat_line(&c, wait_ms());
    assert_non_null(l);
    assert_string_equal(l, "");
    char *t = th_chat_take(&c);
    /* Stockfish 15.1 (UCI_Chess960 true, same position and moves): 492 */
    assert_non_null(strstr(t, "\nNodes searched: 492\n"));
    free(t);
    /* the castle is written king-takes-rook in bestmove and pv */
    const char *fens[] = {CASTLES960, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"};
    for (int i = 0; i < 2; i++) { /* Shredder-FEN, then X-FEN read in Chess960 mode */
        th_chat_send(&c, "position fen %s", fens[i]);
        t = go_wait(&c, "go depth 3 searchmoves e1h1");
        char b[32];
        bestmove_of(t, b, NULL);
        assert_string_equal(b, "e1h1");
        check_search_output(t, CASTLES960, 1);
        free(t);
        th_chat_send(&c, "position fen %s", fens[i]);
        t = go_wait(&c, "go depth 3 searchmoves e1a1");
        bestmove_of(t, b, NULL);
        assert_string_equal(b, "e1a1");
        free(t);
    }
    /* a Chess960 start array (tests/data/ethereal-fischer.epd line 3: perft 2 = 479) */
    th_chat_send(&c, "position fen b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9");
    th_chat_send(&c, "go perft 2");
    th_chat_until(&c, "Nodes searched: 479", wait_ms());
    free(sync_ready(&c));
    /* and with UCI_Chess960 off, the same castle is king-to-destination */
    th_chat_send(&c, "setoption name uci_chess960 value false");
    th_chat_send(&c, "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1");
    th_chat_send(&c, "go perft 1");
    th_chat_until(&c, "Nodes searched", wait_ms());
    t = th_chat_take(&c);
    /* black's replies to O-O (Stockfish 15.1, same position and move): 23 */
    assert_non_null(strstr(t, "Nodes searched: 23"));
    assert_non_null(strstr(t, "e8c8: 1"));
    free(t);
    th_chat_send(&c, "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    t = go_wait(&c, "go depth 3 searchmoves e1g1");
    char b[32];
    bestmove_of(t, b, NULL);
    assert_string_equal(b, "e1g1");
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

/* Each bad line: exactly one info string naming the problem, nothing else. */
static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *line, *says;
    } bad[] = {
        {"xyzzy", "unknown command 'xyzzy'"},
        {"Go depth 3", "unknown command 'Go'"},
        {"position", "expected 'startpos' or 'fen FEN'"},
        {"position fen", "needs a FEN"},
        {"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
         "no position until a valid one"},
        {"position fen 8/8/8/8/8/8/8/8 w - - 0 1", "no position until a valid one"},
        {"position startpos moves e2e4 e7e5 e1e2 e8e7 e2e4", "no position until a valid one"},
        {"position startpos moves e2e5", "no position until a valid one"},
        {"position startpos moves zz", "no position until a valid one"},
        {"position startpos e2e4", "expected 'moves'"},
        {"setoption", "setoption"},
        {"setoption name", "setoption"},
        {"setoption name Hash value abc", "Hash needs a whole number"},
        {"setoption name Hash value 0", "Hash needs a whole number"},
        {"setoption name Hash", "Hash needs a whole number"},
        {"setoption name Hash value 1 2", "several words"},
        {"setoption name Threads value 99999", "Threads needs a whole number"},
        {"setoption name MultiPV value 65", "MultiPV needs a whole number 1..64"},
        {"setoption name Move Overhead value -1", "Move Overhead needs a whole number"},
        {"setoption name UCI_Chess960 value maybe", "needs true or false"},
        {"setoption name Ponder value 1", "needs true or false"},
        {"setoption name Clear Hash value 1", "takes no value"},
        {"setoption name Contempt value 10", "no option named 'Contempt'"},
        {"ponderhit", "no search is pondering"},
        {"debug maybe", "debug"},
    };
    th_chat_t c;
    start(&c, "ply uci");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        th_chat_send(&c, "%s", bad[i].line);
        char *t = sync_ready(&c);
        if (count_lines(t, "info string") != 1 || !strstr(t, bad[i].says) ||
            count_lines(t, "") != 2)
            fail_msg("'%s' was answered by:\n%s(want one info string saying '%s')", bad[i].line, t,
                     bad[i].says);
        free(t);
    }
    /* nothing of that changed the options (the rejected positions left none) */
    th_chat_send(&c, "position startpos");
    th_chat_send(&c, "go perft 1");
    th_chat_until(&c, "Nodes searched: 20", wait_ms());
    free(sync_ready(&c));
    /* blank lines, extra blanks, CR LF endings: fine and silent */
    const char ok[] = "\n   \n\t\nisready\r\n  position   startpos  moves  e2e4\t \n";
    assert_int_equal(th_chat_send_raw(&c, ok, sizeof ok - 1), 0);
    th_chat_until(&c, "readyok", wait_ms());
    char *t = sync_ready(&c);
    assert_int_equal(count_lines(t, "info string"), 0);
    free(t);
    /* binary junk, a NUL byte, invalid UTF-8 */
    const char junk[] = "\x01\x02\x03\n go\x00 depth 1\n\xff\xfe\xfd\n\x7f\n";
    assert_int_equal(th_chat_send_raw(&c, junk, sizeof junk - 1), 0);
    t = sync_ready(&c);
    if (count_lines(t, "info string") != 4 || count_lines(t, "bestmove")) fail_msg("junk:\n%s", t);
    free(t);
    /* a line of 3 MiB, and a long run of words within the limit */
    size_t big = 3u << 20;
    char *huge = malloc(big + 1);
    memset(huge, 'x', big);
    huge[big] = '\n';
    assert_int_equal(th_chat_send_raw(&c, huge, big + 1), 0);
    free(huge);
    t = sync_ready(&c);
    if (count_lines(t, "info string") != 1 || !strstr(t, "longer than")) fail_msg("huge:\n%s", t);
    free(t);
    /* the position before was still startpos + e2e4: 20 replies */
    th_chat_send(&c, "go perft 1");
    th_chat_until(&c, "Nodes searched: 20", wait_ms());
    free(sync_ready(&c));
    /* a long game in the moves list: knights out and back, 600 plies */
    static char game[65536];
    size_t n = (size_t)snprintf(game, sizeof game, "position startpos moves");
    for (int i = 0; i < 150; i++)
        n += (size_t)snprintf(game + n, sizeof game - n, " g1f3 g8f6 f3g1 f6g8");
    th_chat_send(&c, "%s", game);
    t = go_wait(&c, "go depth 2");
    expect_one_bestmove_with_final_info(t);
    check_search_output(t, STARTPOS, 0);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

/*
 * A rejected position leaves no position: answering for the one before would
 * answer for a position the GUI never sent (regression: it did). Until a valid
 * position comes, every go is answered by an info string and bestmove 0000.
 */
static void test_rejected_position(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "position startpos moves e2e4 e7e5 e2e4",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position startpos moves zz",
    };
    th_chat_t c;
    start(&c, "ply uci");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        th_chat_send(&c, "position startpos moves e2e4"); /* valid, then replaced */
        th_chat_send(&c, "%s", bad[i]);
        free(sync_ready(&c));
        const char *gos[] = {"go depth 2", "go perft 1", "go infinite"};
        for (int g = 0; g < 3; g++) {
            char *t = go_wait(&c, gos[g]);
            if (!strstr(t, "info string no valid position (") || !strstr(t, "bestmove 0000") ||
                count_lines(t, "info depth") || count_lines(t, "bestmove") != 1)
                fail_msg("%s after '%s':\n%s", gos[g], bad[i], t);
            free(t);
        }
    }
    /* a valid position again: black to move after e2e4 */
    th_chat_send(&c, "position startpos moves e2e4");
    char *t = go_wait(&c, "go depth 2");
    expect_one_bestmove_with_final_info(t);
    check_search_output(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 0);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

/*
 * Once bestmove is out the engine is idle (UCI specification: the engine
 * answers a search with bestmove and waits), so Hash, Clear Hash and Threads
 * sent right after it apply (regression: the job thread still ran a clean-up
 * search then, and they were refused as "during a search").
 */
static void test_options_right_after_bestmove(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, "ply uci");
    for (int i = 0; i < 20; i++) {
        th_chat_send(&c, "go infinite");
        th_chat_send(&c, "stop");
        th_chat_until(&c, "bestmove", wait_ms());
        free(th_chat_take(&c));
        th_chat_send(&c, "setoption name Hash value 2");
        th_chat_send(&c, "setoption name Clear Hash");
        th_chat_send(&c, "setoption name Threads value %d", 1 + i % 2);
        char *t = sync_ready(&c);
        if (count_lines(t, "info string")) fail_msg("round %d: setoption refused:\n%s", i, t);
        free(t);
    }
    /* and the next search is whole: a stop of the last one does not cut it short */
    char *t = go_wait(&c, "go depth 4");
    if (!strstr(t, "info depth 4 ")) fail_msg("go depth 4 cut short:\n%s", t);
    expect_one_bestmove_with_final_info(t);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

/*
 * Every go gets exactly one bestmove (UCI specification: "the engine should
 * answer with bestmove"); a bad word or value is named in one info string and
 * ignored, as Stockfish 15.1 ignores it (it searches "go depth 3 foo" to
 * depth 3). A go whose every limit is bad searches depth 1 and answers without a
 * stop (before, "go movetime -1" searched until a stop that a GUI never sends).
 */
static void test_go_always_answers(void **state)
{
    (void)state;
    static const struct {
        const char *line, *says;
    } bad[] = {
        {"go depth abc", "depth needs"},
        {"go depth -3", "depth needs"},
        {"go depth", "depth needs"},
        {"go nodes", "nodes needs"},
        {"go nodes 99999999999999999999999", "nodes needs"},
        {"go nodes 12x", "nodes needs"},
        {"go movetime soon", "movetime needs"},
        {"go wtime 1e9", "wtime needs"},
        {"go movestogo -1", "movestogo needs"},
        {"go mate x", "mate needs"},
        {"go perft 0", "perft needs"},
        {"go fast", "unknown parameter 'fast'"},
    };
    th_chat_t c;
    start(&c, "ply uci");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        th_chat_send(&c, "%s", bad[i].line);
        th_chat_until(&c, "bestmove", wait_ms());
        char *t = sync_ready(&c);
        if (count_lines(t, "info string") != 2 || !strstr(t, bad[i].says) ||
            !strstr(t, "no valid limit is left; searching depth 1") ||
            !strstr(t, "info depth 1 ") || strstr(t, "info depth 2 ") ||
            count_lines(t, "bestmove") != 1)
            fail_msg("'%s' was answered by:\n%s(want info strings saying '%s' and 'searching "
                     "depth 1', one bestmove after depth 1)",
                     bad[i].line, t, bad[i].says);
        check_search_output(t, STARTPOS, 0);
        free(t);
    }
    /* the rest of the go runs: depth 3 (Stockfish 15.1 does the same) */
    char *t = go_wait(&c, "go depth 3 foo");
    if (!strstr(t, "unknown parameter 'foo'") || !strstr(t, "info depth 3 ") ||
        strstr(t, "info depth 4 "))
        fail_msg("go depth 3 foo:\n%s", t);
    expect_one_bestmove_with_final_info(t);
    free(t);
    t = go_wait(&c, "go depth 0");
    if (!strstr(t, "depth 0 is searched as depth 1") || !strstr(t, "info depth 1 ") ||
        strstr(t, "info depth 2 "))
        fail_msg("go depth 0:\n%s", t);
    expect_one_bestmove_with_final_info(t);
    free(t);
    /* e2e5 is not legal from the start: nothing left to search */
    t = go_wait(&c, "go searchmoves e2e5");
    if (!strstr(t, "'e2e5' is not a legal move") || !strstr(t, "no legal move to search") ||
        !strstr(t, "bestmove 0000"))
        fail_msg("go searchmoves e2e5:\n%s", t);
    free(t);
    /* the legal ones stay: only e2e4 is searched */
    t = go_wait(&c, "go depth 2 searchmoves e2e5 e2e4");
    char best[32];
    bestmove_of(t, best, NULL);
    assert_string_equal(best, "e2e4");
    free(t);
    /* perft ignores the rest: 8902 nodes at depth 3 (Stockfish 15.1 go perft 3) */
    th_chat_send(&c, "go perft 3 depth 2");
    th_chat_until(&c, "Nodes searched: 8902", wait_ms());
    t = sync_ready(&c);
    free(t);
    /* go mate 2 ends on its own once the mate is found; Stockfish 15.1 answers
     * "score mate 2 ... pv d5f6 g7f6" and "bestmove d5f6" */
    th_chat_send(&c,
                 "position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    t = go_wait(&c, "go mate 2");
    bestmove_of(t, best, NULL);
    assert_string_equal(best, "d5f6");
    if (!strstr(t, "score mate 2 ")) fail_msg("go mate 2:\n%s", t);
    expect_one_bestmove_with_final_info(t);
    free(t);
    /* a go during a search stops that one (one bestmove each) */
    th_chat_send(&c, "position startpos");
    th_chat_send(&c, "go infinite");
    t = go_wait(&c, "go depth 2 bogus");
    th_chat_until(&c, "bestmove", wait_ms());
    free(t);
    t = sync_ready(&c);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

static void test_options_and_multipv(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, "ply uci");
    /* names are case-insensitive (UCI specification) */
    const char *set[] = {"setoption name hash value 32",
                         "setoption name THREADS value 1",
                         "setoption name Move Overhead value 50",
                         "setoption name ponder value true",
                         "setoption name Clear Hash",
                         "ucinewgame",
                         "debug on",
                         "debug off"};
    for (size_t i = 0; i < sizeof set / sizeof *set; i++) {
        th_chat_send(&c, "%s", set[i]);
        char *t = sync_ready(&c);
        if (count_lines(t, "") != 1) fail_msg("'%s' answered:\n%s", set[i], t);
        free(t);
    }
    th_chat_send(&c, "setoption name MultiPV value 3");
    th_chat_send(&c, "position fen " KIWIPETE);
    char *t = go_wait(&c, "go depth 5");
    expect_one_bestmove_with_final_info(t);
    assert_true(check_search_output(t, KIWIPETE, 0) >= 3);
    /* the last three info lines are multipv 1, 2, 3 with three different first moves */
    char *lines[3] = {NULL, NULL, NULL};
    char *copy = strdup(t);
    for (char *s = NULL, *l = strtok_r(copy, "\n", &s); l; l = strtok_r(NULL, "\n", &s))
        if (!strncmp(l, "info depth", 10)) lines[0] = lines[1], lines[1] = lines[2], lines[2] = l;
    char first[3][8];
    for (int i = 0; i < 3; i++) {
        assert_non_null(lines[i]);
        char want[16];
        snprintf(want, sizeof want, " multipv %d ", i + 1);
        if (!strstr(lines[i], want)) fail_msg("final lines not multipv 1..3:\n%s", t);
        const char *pv = strstr(lines[i], " pv ");
        assert_non_null(pv);
        sscanf(pv, " pv %7s", first[i]);
    }
    assert_true(strcmp(first[0], first[1]) && strcmp(first[0], first[2]) &&
                strcmp(first[1], first[2]));
    char b[32];
    bestmove_of(t, b, NULL);
    assert_string_equal(b, first[0]);
    free(copy);
    free(t);
    /* options that a search uses cannot change under it */
    th_chat_send(&c, "go infinite");
    th_chat_send(&c, "setoption name Hash value 64");
    th_chat_send(&c, "setoption name Clear Hash");
    t = sync_ready(&c);
    assert_int_equal(count_lines(t, "info string setoption"), 2);
    free(t);
    /* a go during a search ends it first, a malformed one too (its bad value
     * ignored, it searches without a limit): three gos, three bestmoves */
    th_chat_send(&c, "go depth abc");
    th_chat_until(&c, "bestmove", wait_ms());
    th_chat_send(&c, "setoption name MultiPV value 1");
    th_chat_send(&c, "go depth 2");
    th_chat_until(&c, "bestmove", wait_ms());
    th_chat_until(&c, "bestmove", wait_ms());
    free(th_chat_take(&c));
    t = sync_ready(&c);
    assert_int_equal(count_lines(t, "bestmove"), 0);
    free(t);
    /* ucinewgame during a search, too */
    th_chat_send(&c, "go infinite");
    th_chat_send(&c, "ucinewgame");
    th_chat_until(&c, "bestmove", wait_ms());
    free(sync_ready(&c));
    /* clock limits end on their own */
    th_chat_send(&c, "position startpos moves d2d4");
    t = go_wait(&c, "go wtime 2000 btime 2000 winc 20 binc 20 movestogo 20");
    expect_one_bestmove_with_final_info(t);
    free(t);
    t = go_wait(&c, "go movetime 200");
    expect_one_bestmove_with_final_info(t);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

static void test_ponder(void **state)
{
    (void)state;
    th_chat_t c;
    start(&c, "ply uci");
    th_chat_send(&c, "setoption name Ponder value true");
    th_chat_send(&c, "position startpos moves e2e4 e7e5");
    /* pondering, even a search that is done waits for ponderhit */
    th_chat_send(&c, "go ponder depth 3");
    char *t = sync_ready(&c);
    assert_int_equal(count_lines(t, "bestmove"), 0);
    free(t);
    th_chat_send(&c, "ponderhit");
    th_chat_until(&c, "bestmove", wait_ms());
    t = th_chat_take(&c);
    expect_one_bestmove_with_final_info(t);
    free(t);
    /* ponderhit, then the clock ends it */
    th_chat_send(&c, "go ponder wtime 1000 btime 1000");
    free(sync_ready(&c));
    th_chat_send(&c, "ponderhit");
    th_chat_until(&c, "bestmove", wait_ms());
    free(th_chat_take(&c));
    /* or stop (the opponent played another move) */
    th_chat_send(&c, "go ponder wtime 1000 btime 1000");
    th_chat_send(&c, "stop");
    th_chat_until(&c, "bestmove", wait_ms());
    free(th_chat_take(&c));
    t = sync_ready(&c);
    assert_int_equal(count_lines(t, "bestmove"), 0);
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

/* go perft: Stockfish's divide format; counts from tests/data/perftsuite.epd
 * lines 1-3 and the chessprogramming wiki, "Perft Results", position 3. */
static void test_perft(void **state)
{
    (void)state;
    static const struct {
        const char *fen;
        int depth, moves;
        const char *nodes;
    } cases[] = {
        {"startpos", 3, 20, "8902"},
        {("fen " KIWIPETE), 3, 48, "97862"},
        {"fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1", 4, 15, "7059"},
        {"fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 14, "674624"},
    };
    th_chat_t c;
    start(&c, "ply uci");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        th_chat_send(&c, "position %s", cases[i].fen);
        th_chat_send(&c, "go perft %d", cases[i].depth);
        th_chat_until(&c, "Nodes searched", wait_ms());
        const char *l = th_chat_line(&c, wait_ms());
        assert_non_null(l);
        assert_string_equal(l, "");
        char *t = th_chat_take(&c);
        char want[64];
        snprintf(want, sizeof want, "\n\nNodes searched: %s\n\n", cases[i].nodes);
        if (!strstr(t, want)) fail_msg("perft %s:\n%s", cases[i].fen, t);
        /* the divide lines add up */
        unsigned long long sum = 0, k;
        int n = 0;
        char mv[16];
        char *copy = strdup(t);
        for (char *s = NULL, *ln = strtok_r(copy, "\n", &s); ln; ln = strtok_r(NULL, "\n", &s))
            if (sscanf(ln, "%15[a-h1-8qrbn]: %llu", mv, &k) == 2) sum += k, n++;
        free(copy);
        assert_int_equal(n, cases[i].moves);
        assert_true(sum == strtoull(cases[i].nodes, NULL, 10));
        free(t);
    }
    /* the project's own UCI client (uci_client/uci_client.c, Stockfish's format) reads these
     * divides: ply perft-diff against ply uci, standard and Chess960 */
    th_run_t r = th_run(600, "ply perft-diff --engine '" PLY_BIN_DIR "/ply uci' -d 4 -t 1");
    th_expect_status(&r, 0, "perft-diff against ply uci");
    assert_non_null(strstr(r.out, "no difference"));
    th_run_free(&r);
    r = th_run(600, "ply perft-diff --engine '" PLY_BIN_DIR "/ply uci' -d 3 -t 1 --fen "
                    "'2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9'");
    th_expect_status(&r, 0, "perft-diff against ply uci, Chess960");
    assert_non_null(strstr(r.out, "no difference"));
    th_run_free(&r);
    /* a long perft stops on stop: no count */
    th_chat_send(&c, "position startpos");
    th_chat_send(&c, "go perft 9");
    th_chat_send(&c, "stop");
    char *t = sync_ready(&c);
    if (!strstr(t, "info string perft stopped")) {
        th_chat_until(&c, "info string perft stopped", wait_ms());
        free(t);
        t = th_chat_take(&c);
    }
    assert_null(strstr(t, "Nodes searched"));
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
}

static void test_quit_and_eof_during_search(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        th_chat_t c;
        start(&c, k % 2 ? "ply-worker --uci" : "ply uci");
        th_chat_send(&c, "go infinite");
        free(sync_ready(&c));
        if (k < 2) th_chat_send(&c, "quit"); /* else: end of input */
        assert_int_equal(th_chat_close(&c, wait_ms()), 0);
        char *t = th_chat_take(&c);
        expect_one_bestmove_with_final_info(t);
        free(t);
    }
    /* end of input is quit for a bounded search too, as in Stockfish 15.1
     * (regression: ply searched on to the limit, here for hours) */
    th_run_t r = th_run(wait_ms() / 1000, "printf 'position startpos\\ngo depth 100\\n' | ply uci");
    th_expect_status(&r, 0, "go depth 100 then EOF");
    expect_one_bestmove_with_final_info(r.out);
    check_search_output(r.out, STARTPOS, 0);
    th_run_free(&r);
    /* a perft is counted before the end of input: 197281 (Stockfish 15.1 go perft 4) */
    r = th_run(wait_ms() / 1000, "printf 'position startpos\\ngo perft 4\\n' | ply uci");
    th_expect_status(&r, 0, "go perft 4 then EOF");
    assert_non_null(strstr(r.out, "Nodes searched: 197281"));
    th_run_free(&r);
    /* and before quit: 8902 (Stockfish 15.1 go perft 3), not "stopped before the end" */
    r = th_run(wait_ms() / 1000, "printf 'position startpos\\ngo perft 3\\nquit\\n' | ply uci");
    th_expect_status(&r, 0, "go perft 3 then quit");
    assert_non_null(strstr(r.out, "Nodes searched: 8902"));
    assert_null(strstr(r.out, "stopped before the end"));
    th_run_free(&r);
    /* a script that wants the whole search waits for its bestmove before the end */
    th_chat_t c;
    start(&c, "ply uci");
    char *t = go_wait(&c, "go depth 4");
    th_chat_send(&c, "isready");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
    expect_one_bestmove_with_final_info(t);
    assert_non_null(strstr(t, "info depth 4 "));
    free(t);
}

/* @t without its " nps N" and " time N" (in place): what a reproducible search repeats. */
static char *strip_time(char *t)
{
    char *w = t;
    for (char *r = t; *r;) {
        if (!strncmp(r, " nps ", 5) || !strncmp(r, " time ", 6)) {
            r += r[1] == 'n' ? 5 : 6;
            while (*r >= '0' && *r <= '9') r++;
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
    return t;
}

/* The answer of `go nodes 30000` from @fen after ucinewgame, without times. */
static char *nodes_answer(th_chat_t *c, const char *fen)
{
    th_chat_send(c, "ucinewgame");
    th_chat_send(c, "position %s", fen);
    char *t = strip_time(go_wait(c, "go nodes 30000"));
    assert_true(count_lines(t, "info depth") > 0);
    return t;
}

/*
 * The evaluation network's options (worker/uci/uci_backend.h): EvalFile loads and checks a
 * file (a random-weight net that evaluates the material, tests/support/nnue_random.h),
 * refuses a corrupted or missing one with its reason and keeps the previous; Use NNUE
 * switches between it and the hand-written evaluation. With the net, `go nodes` on one
 * thread answers the same twice, and not as the hand-written evaluation does.
 */
static void test_nnue_options(void **state)
{
    (void)state;
    char good[] = "/tmp/test_uci_nnue_XXXXXX", bad[] = "/tmp/test_uci_nnue_bad_XXXXXX";
    size_t len;
    uint8_t *net = ply_test_nnue_material(128, 7, 2, "{}", &len);
    assert_non_null(net);
    for (int k = 0; k < 2; k++) {
        char *path = k ? bad : good;
        const int fd = mkstemp(path);
        assert_true(fd >= 0);
        if (k) net[len / 2] ^= 1; /* a flipped bit in the weights */
        assert_int_equal(write(fd, net, len), (ssize_t)len);
        close(fd);
    }
    free(net);
    th_chat_t c;
    start(&c, "ply uci");
    th_chat_send(&c, "setoption name Use NNUE value false");
    char *t = sync_ready(&c);
    assert_non_null(strstr(t, "info string classical evaluation"));
    free(t);
    char *classical = nodes_answer(&c, "fen " KIWIPETE);
    th_chat_send(&c, "setoption name EvalFile value %s", bad);
    t = sync_ready(&c);
    if (!strstr(t, "info string setoption: EvalFile refused") || !strstr(t, "checksum at offset"))
        fail_msg("a corrupted net was not refused with its reason:\n%s", t);
    free(t);
    th_chat_send(&c, "setoption name EvalFile value /nonexistent/x.nnue");
    t = sync_ready(&c);
    assert_non_null(strstr(t, "/nonexistent/x.nnue: No such file"));
    free(t);
    th_chat_send(&c, "setoption name EvalFile value %s", good);
    th_chat_send(&c, "setoption name Use NNUE value true");
    t = sync_ready(&c);
    if (!strstr(t, "info string NNUE evaluation with ") || !strstr(t, good))
        fail_msg("no word of the net in use:\n%s", t);
    free(t);
    char *first = nodes_answer(&c, "fen " KIWIPETE);
    char *second = nodes_answer(&c, "fen " KIWIPETE);
    if (strcmp(first, second)) fail_msg("go nodes 30000 with the net differs:\n%s\n---\n%s", first, second);
    if (!strcmp(first, classical)) fail_msg("the net's answer is the classical one:\n%s", first);
    th_chat_send(&c, "setoption name EvalFile value %s", bad); /* refused: the good one stays */
    free(sync_ready(&c));
    char *third = nodes_answer(&c, "fen " KIWIPETE);
    if (strcmp(first, third)) fail_msg("after a refused EvalFile:\n%s\n---\n%s", first, third);
    th_chat_send(&c, "setoption name Use NNUE value false");
    free(sync_ready(&c));
    char *back = nodes_answer(&c, "fen " KIWIPETE);
    if (strcmp(back, classical)) fail_msg("classical again:\n%s\n---\n%s", classical, back);
    th_chat_send(&c, "setoption name Use NNUE value maybe");
    t = sync_ready(&c);
    assert_non_null(strstr(t, "Use NNUE needs true or false"));
    free(t);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
    /* a fresh engine: EvalFile alone is enough (Use NNUE's default uses a network given) */
    start(&c, "ply uci");
    th_chat_send(&c, "setoption name EvalFile value %s", good);
    t = sync_ready(&c);
    if (!strstr(t, "info string NNUE evaluation with ")) fail_msg("EvalFile alone:\n%s", t);
    free(t);
    char *alone = nodes_answer(&c, "fen " KIWIPETE);
    if (strcmp(first, alone)) fail_msg("EvalFile alone:\n%s\n---\n%s", first, alone);
    free(alone);
    th_chat_send(&c, "quit");
    assert_int_equal(th_chat_close(&c, wait_ms()), 0);
    free(th_chat_take(&c));
    free(classical), free(first), free(second), free(third), free(back);
    unlink(good);
    unlink(bad);
}

/* Threads 1, go nodes: the same info lines (but time and nps) and bestmove. */
static void test_reproducible(void **state)
{
    (void)state;
    const char *fens[] = {
        "startpos", ("fen " KIWIPETE),
        "fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"};
    char *first[3] = {NULL, NULL, NULL};
    for (int run = 0; run < 2; run++) {
        th_chat_t c;
        start(&c, "ply uci");
        th_chat_send(&c, "setoption name Threads value 1");
        for (int i = 0; i < 3; i++) {
            for (int again = 0; again < 2; again++) {
                th_chat_send(&c, "ucinewgame");
                th_chat_send(&c, "position %s", fens[i]);
                char *t = go_wait(&c, "go nodes 30000");
                /* drop " nps N" and " time N" */
                char *w = t;
                for (char *r = t; *r;) {
                    if (!strncmp(r, " nps ", 5) || !strncmp(r, " time ", 6)) {
                        r += r[1] == 'n' ? 5 : 6;
                        while (*r >= '0' && *r <= '9') r++;
                    } else {
                        *w++ = *r++;
                    }
                }
                *w = 0;
                assert_true(count_lines(t, "info depth") > 0);
                if (!first[i])
                    first[i] = t;
                else {
                    if (strcmp(first[i], t))
                        fail_msg("go nodes 30000 differs:\n%s\n--- then ---\n%s", first[i], t);
                    free(t);
                }
            }
        }
        th_chat_send(&c, "quit");
        assert_int_equal(th_chat_close(&c, wait_ms()), 0);
        free(th_chat_take(&c));
    }
    for (int i = 0; i < 3; i++) free(first[i]);
}

int main(void)
{
    setenv("PATH", PLY_BIN_DIR ":/usr/bin:/bin", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_handshake, teardown),
        cmocka_unit_test_teardown(test_isready_during_infinite, teardown),
        cmocka_unit_test_teardown(test_stop_right_after_go, teardown),
        cmocka_unit_test_teardown(test_no_legal_move, teardown),
        cmocka_unit_test_teardown(test_chess960, teardown),
        cmocka_unit_test_teardown(test_malformed, teardown),
        cmocka_unit_test_teardown(test_go_always_answers, teardown),
        cmocka_unit_test_teardown(test_rejected_position, teardown),
        cmocka_unit_test_teardown(test_options_right_after_bestmove, teardown),
        cmocka_unit_test_teardown(test_options_and_multipv, teardown),
        cmocka_unit_test_teardown(test_ponder, teardown),
        cmocka_unit_test_teardown(test_perft, teardown),
        cmocka_unit_test_teardown(test_quit_and_eof_during_search, teardown),
        cmocka_unit_test_teardown(test_reproducible, teardown),
        cmocka_unit_test_teardown(test_nnue_options, teardown),
    };
    return ply_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
