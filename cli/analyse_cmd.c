/*
 * `ply analyse`: one position (a FEN or startpos, with the moves of the game that led to
 * it) analysed by iterative deepening driven by the coordinator (SearchRequest.deepen), its
 * limits those of the whole analysis, each completed depth shown as it completes, on the
 * embedded default or a named coordinator (session.h); Ctrl-C (or `ply cancel RUN`) ends it
 * with its deepest completed iteration. With --verify, and for an EPD suite (--epd, judged
 * by its bm/am moves: epd_expect.h, one run per record on one session), every root move is
 * searched once to the same limit as its own job instead. The coordinator sorts the answer
 * and the rule engine replays every line; analyse_out.h prints it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <jansson.h>

#include "analyse_out.h"
#include "arbiter/san.h"
#include "commands.h"
#include "curve_opts.h"
#include "envelope.h"
#include "epd_expect.h"
#include "position.h"
#include "progress.h"
#include "report.h"
#include "session.h"
#include "search_engine_opts.h"
#include "session_opts.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/time.h"

typedef struct analyse_args {
    const char *fen, *moves, *searchmoves, *epd;
    unsigned depth, movetime_ms;
    unsigned multipv; /* --multipv K; 0: not given (see multipv_all) */
    int multipv_all;  /* --multipv all */
    int infinite;     /* --infinite */
    uint64_t nodes;
    ply_cli_search_engine_t eng;    /* --engine, --uci-engine, --engine-option */
    int chess960, json, quiet;
    int verify;                     /* --verify: a Ply__VerifyMode */
    uint32_t verify_ppm;            /* its sample, parts per million */
    ply_cli_session_opts_t session; /* --threads, --hash, --workers, --coordinator, ... */
} analyse_args_t;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: ply analyse [--fen FEN | startpos | FEN] [moves M...] (-d N | --nodes N |\n"
        "                   --movetime MS | --infinite) [options]\n"
        "       ply analyse --epd FILE (-d N | --nodes N | --movetime MS) [options]\n"
        "\n"
        "Analyses a position by iterative deepening over the cluster: each depth searches the\n"
        "root moves in the order of the last one, the best first, the others with a null\n"
        "window (again with a full window when one proves better); the first depths, up to\n"
        "4 below the last and at most 10, are one job of every root move. Each completed depth\n"
        "is shown as it completes; the answer is the deepest completed one: the best K moves\n"
        "with exact scores, the others with the bound that proves them worse (\"<= +0.31\").\n"
        "Every line is in SAN, replayed by the rule engine. Ctrl-C (or ply cancel RUN) ends\n"
        "the analysis with its deepest completed depth; a second Ctrl-C quits at once.\n"
        "With --verify and --epd, every root move is searched once instead, as its own job\n"
        "(the same position and history, full window), the limits applying to each.\n"
        "\n"
        "  -f, --fen FEN           position as FEN, X-FEN or Shredder-FEN (default: startpos)\n"
        "      --moves \"M ...\"     UCI moves played from it (as 'moves M...' after the\n"
        "                          position): the game history, for repetitions (default none)\n"
        "  -d, --depth N           the last depth, 1..%d (--verify, --epd: of each root move)\n"
        "      --nodes N           nodes of the whole analysis, every job's (--verify, --epd:\n"
        "                          of each root move)\n"
        "      --movetime MS       wall time of the whole analysis from its acceptance, ms\n"
        "                          (--epd: of each root move)\n"
        "                          (at least one limit; with several, the first reached)\n"
        "      --infinite          no limit: deepen until Ctrl-C or ply cancel RUN\n"
        "      --searchmoves \"M ...\" analyse only these root moves (UCI; default: all)\n"
        "      --multipv K|all     root moves scored exactly at each depth, best first\n"
        "                          (default 1; all: every one); with --verify and --epd, the\n"
        "                          root moves printed (default all)\n"
        "      --engine KIND       builtin (ply's engine) or uci (an external engine); with\n"
        "                          --coordinator, the kind of worker asked for (default: any)\n"
        "      --uci-engine CMD    the UCI engine local workers drive with --engine uci\n"
        "                          (default " PLY_CLI_DEFAULT_UCI_ENGINE " when it exists)\n"
        "      --engine-option N=V a UCI option for it (repeatable), e.g. Hash=64\n"
        "      --chess960          read KQkq as X-FEN and castle by Chess960 rules\n"
        "      --verify MODE       none, sample=P (e.g. sample=0.1 or sample=10%%) or all:\n"
        "                          search those jobs again on another worker of the same\n"
        "                          engine and compare exactly; every job then runs\n"
        "                          reproducibly (one thread, a fresh 16 MiB table). Needs -d\n"
        "                          or --nodes (not --movetime) and --workers N >= 2 or\n"
        "                          --coordinator (default none)\n"
        "      --epd FILE          analyse every record of FILE (bm/am moves, id): a record is\n"
        "                          solved when the top move is a bm and none of am\n"
        "      --json              JSON Lines instead of text: an object for each completed\n"
        "                          depth as it completes (type \"iteration\": depth, score\n"
        "                          {cp|mate, bound}, move, san, pv, pv_san, seldepth, time_ms,\n"
        "                          nodes), then the answer (type \"result\", with depth and\n"
        "                          iterations); with --verify, --epd: one indented object\n"
        "  -q, --quiet             no progress on stderr, and only the answer (by default: each\n"
        "                          completed depth and a status line on a terminal, with a\n"
        "                          plain status line every 5 s in a log)\n"
        "  -t, --threads N         worker threads (default: one per core; with --engine uci\n"
        "                          also the engine's Threads)\n"
        "      --hash MIB          worker table, MiB (default 256; with --engine uci also the\n"
        "                          engine's Hash)\n"
        "      --workers N         run N local ply-worker processes instead of the in-process "
        "worker\n"
        "      --coordinator E     submit to the coordinator at endpoint E (e.g. tcp://host:5555)\n"
        "      --timeout S         give up when the coordinator is silent for S seconds (default "
        "30)\n"
        "      --state FILE        the embedded coordinator keeps its runs in FILE "
        "(SQLite)\n" PLY_CLI_CURVE_HELP "  -h, --help              this text\n"
        "\n"
        "Exit status: 0 ok (with --epd, however many are solved; stopped by Ctrl-C or ply\n"
        "cancel with a completed depth), 1 failure, 2 usage or bad position, 130 Ctrl-C\n"
        "before a depth completed.\n",
        PLY_SEARCH_JOB_MAX_DEPTH);
}

/* ---- progress ------------------------------------------------------------------------ */

typedef struct progress {
    ply_progress_t bar; /* the shared display (progress.h) */
    int drawn;          /* terminal lines drawn by the last redraw of the live table */
    int epd;            /* a suite: the bar counts its positions, not one run's moves */
    uint64_t epd_done, epd_total;
    ply_u128_t nodes_done; /* a suite: nodes of the records done */
    char waiting[320];     /* what the run waited for at the last report (a log says it once) */
    /* a deepening analysis (one position, SearchRequest.deepen) */
    int deepen, infinite, json, quiet, chess960;
    unsigned movetime_ms;    /* its wall time (the ETA's), 0: none */
    unsigned depth;          /* its last depth (-d), 0: none */
    size_t shown;            /* iterations shown (stderr, and --json lines on stdout) */
    int header;              /* the iterations' column titles are on stderr */
    int told;                /* the run id and how to stop it were said */
    int cancel_sent;         /* Ctrl-C: its Cancel went */
    ply_session_t *session;  /* whose endpoint takes that Cancel */
    const char *coordinator; /* --coordinator, for the note on how to stop it */
} progress_t;

/* Rows of the live table (the best so far): it must fit a terminal to redraw in place. */
#define LIVE_ROWS 10

static void erase_live(progress_t *ps)
{
    if (ps->drawn) fprintf(stderr, "\033[%dA\033[J", ps->drawn);
    ps->drawn = 0;
    ply_progress_clear(&ps->bar);
}

/* ---- Ctrl-C -------------------------------------------------------------------------- */

/* SIGINTs received: the first asks for the deepest completed iteration (the next progress
 * report, at most a second away, sends the Cancel and says so), the second quits at once. */
static volatile sig_atomic_t interrupts;
static int interrupt_quiet;

static void on_interrupt(int sig)
{
    static const char again[] = "\nply analyse: interrupted\n";
    if (interrupts++ == 0) return;
    if (!interrupt_quiet) {
        ssize_t n = write(STDERR_FILENO, again, sizeof again - 1);
        (void)n;
    }
    _exit(128 + sig); /* the shell's convention: 130 */
}

/* A deepening analysis owns SIGINT: no SA_RESTART, though the client's wait goes on (its
 * poll takes EINTR as nothing) until the next report, at most a second away. */
static void catch_interrupt(int quiet)
{
    interrupt_quiet = quiet;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
}

/* Sends the Cancel of run @run_id on a connection of its own (the session's client is in
 * its wait): the coordinator then ends the run with its deepest completed iteration, which
 * the wait receives as the answer. */
static void cancel_run(progress_t *ps, uint64_t run_id)
{
    char why[512] = "";
    ps->cancel_sent = 1;
    if (!ps->quiet) {
        erase_live(ps);
        fprintf(stderr, "ply analyse: stopping at the deepest completed depth (Ctrl-C again "
                        "quits at once)\n");
    }
    ply_client_t *c = ply_client_new(ply_session_endpoint(ps->session), why, sizeof why);
    Ply__RunProgress *p = NULL;
    int rc = c ? ply_client_cancel(c, run_id, (int)ply_session_timeout_ms(ps->session), &p, why,
                                   sizeof why)
               : PLY_ECONNECT;
    if (rc < 0 && rc != PLY_ESTATE) /* PLY_ESTATE: it has just finished, its answer comes */
        fprintf(stderr, "ply analyse: cannot cancel run %" PRIu64 ": %s\n", run_id,
                why[0] ? why : ply_strerror(rc));
    if (p) ply__run_progress__free_unpacked(p, NULL);
    ply_client_destroy(&c);
}

static int by_key(const void *x, const void *y)
{
    int64_t a = ply_analyse_key((*(Ply__AnalysedMove *const *)x)->line);
    int64_t b = ply_analyse_key((*(Ply__AnalysedMove *const *)y)->line);
    return (a < b) - (a > b);
}

/* One line of the live table, cut to the terminal's width so that no line wraps. */
static void live_line(const char *text, int width)
{
    int n = (int)strcspn(text, "\n");
    fprintf(stderr, "%.*s\n", n < width ? n : width - 1, text);
}

/*
 * The iterations of @s not shown yet: a line each on stderr (unless quiet), and with --json
 * a JSON object each on stdout (unless quiet), in order.
 */
static void show_iterations(progress_t *ps, const Ply__SearchAnswer *s)
{
    if (!s || ps->quiet) return;
    for (; ps->shown < s->n_iterations; ps->shown++) {
        const Ply__SearchIteration *it = s->iterations[ps->shown];
        if (ps->json) {
            json_t *o = ply_analyse_iteration_json(it, s->fen, ps->chess960);
            if (o) ply_json_dumpf(o, stdout, 0); /* one line */
            printf("\n");
            json_decref(o);
            fflush(stdout);
        }
        if (!ps->header) ply_analyse_print_iteration_header(stderr);
        ps->header = 1;
        ply_analyse_print_iteration(stderr, it, s->fen, ps->chess960);
    }
    fflush(stderr);
}

/*
 * A deepening analysis's report: the iterations completed since the last one, then (a
 * terminal) a status line redrawn under them, or (a log) a status line every few seconds.
 */
static void deepen_progress(progress_t *ps, const Ply__RunProgress *p, const char *waiting)
{
    if (ps->infinite && !ps->told) {
        /* `ply cancel` reaches a coordinator of its own only */
        erase_live(ps);
        if (ps->coordinator)
            fprintf(stderr,
                    "ply analyse: run %" PRIu64 "; Ctrl-C or ply cancel %" PRIu64
                    " --coordinator %s ends it with its deepest completed depth\n",
                    p->run_id, p->run_id, ps->coordinator);
        else
            fprintf(stderr, "ply analyse: Ctrl-C ends it with its deepest completed depth\n");
        ps->told = 1;
    }
    if (p->search && p->search->n_iterations > ps->shown) {
        erase_live(ps);
        show_iterations(ps, p->search);
    }
    if (ps->bar.mode == PLY_PROGRESS_OFF) return;
    /* the unit is the completed depth: the jobs so far are not the analysis's (each depth
     * adds its own), and only -d tells how many depths are to come */
    const Ply__SearchAnswer *s = p->search;
    uint64_t depth = s && s->has_depth ? s->depth : 0;
    ply_u128_t nodes = ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi);
    ply_progress_view_t v;
    ply_progress_view(&ps->bar, depth, ps->depth, "depths", 0, 0, nodes, p->has_nodes, waiting, &v);
    /* the time left is the wall time's, once a depth is in; past it, the coordinator is
     * ending the run */
    v.eta_ms = -1;
    if (ps->movetime_ms && depth && p->elapsed_ms < ps->movetime_ms)
        v.eta_ms = (int64_t)(ps->movetime_ms - p->elapsed_ms);
    if (ps->bar.mode == PLY_PROGRESS_LOG) {
        ply_progress_show(&ps->bar, &v);
        return;
    }
    char status[512];
    ply_progress_format(&v, 0, status, sizeof status);
    erase_live(ps);
    live_line(status, ply_progress_width());
    ps->drawn++;
    fflush(stderr);
}

/*
 * On a terminal: the best root moves so far and a status line, redrawn in place as moves
 * finish; elsewhere (a log): a status line every few seconds (progress.h). A suite shows
 * only the bar of its positions; a deepening analysis its depths (deepen_progress). The
 * first report after a Ctrl-C sends the Cancel.
 */
static void on_progress(const Ply__RunProgress *p, void *arg)
{
    progress_t *ps = arg;
    if (interrupts && !ps->cancel_sent && ps->session) cancel_run(ps, p->run_id);
    if (ps->bar.mode == PLY_PROGRESS_OFF) return; /* --quiet: the answer only */
    /* what the coordinator waits for (no worker may take the run's jobs), in a word: the
     * ETA stays "--" meanwhile */
    char waiting[sizeof ps->waiting] = "";
    if (p->waiting && p->waiting[0])
        snprintf(waiting, sizeof waiting, "waiting for %s", p->waiting);
    if (strcmp(waiting, ps->waiting) != 0) {
        /* a log gets it at once, not with the next status line seconds later */
        if (waiting[0] && ps->bar.mode == PLY_PROGRESS_LOG)
            fprintf(stderr, "run %" PRIu64 ": %s\n", p->run_id, waiting);
        snprintf(ps->waiting, sizeof ps->waiting, "%s", waiting);
    }
    if (p->state && !strcmp(p->state, "queued")) {
        /* not started: a wait for a worker that runs its engine is said above */
        if (waiting[0] && ps->bar.mode == PLY_PROGRESS_TTY) {
            erase_live(ps);
            live_line(waiting, ply_progress_width());
            ps->drawn++;
        }
        return;
    }
    if (ps->deepen) {
        deepen_progress(ps, p, waiting);
        return;
    }
    ply_u128_t nodes = ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi);
    int have_nodes = p->has_nodes;
    if (ps->epd) {
        double part = p->jobs_total ? (double)p->jobs_done / p->jobs_total : 0;
        ply_progress_update(&ps->bar, ps->epd_done, ps->epd_total, "positions",
                            (double)ps->epd_done + part, (double)ps->epd_total,
                            ps->nodes_done + nodes, have_nodes, NULL);
        return;
    }
    if (ps->bar.mode == PLY_PROGRESS_LOG) {
        ply_progress_update(&ps->bar, p->jobs_done, p->jobs_total, "root moves", 0, 0, nodes,
                            have_nodes, waiting);
        return;
    }
    ply_progress_view_t v;
    ply_progress_view(&ps->bar, p->jobs_done, p->jobs_total, "root moves", 0, 0, nodes, have_nodes,
                      waiting, &v);
    char status[256];
    ply_progress_format(&v, 0, status, sizeof status);
    size_t done = p->search ? p->search->n_moves : 0;
    int width = ply_progress_width();
    Ply__AnalysedMove **sorted = calloc(done + 1, sizeof *sorted);
    if (!sorted) return;
    if (done) memcpy(sorted, p->search->moves, done * sizeof *sorted);
    qsort(sorted, done, sizeof *sorted, by_key);
    erase_live(ps);
    for (size_t i = 0; i < done && i < LIVE_ROWS; i++) {
        char *row = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&row, &len);
        if (!mem) break;
        if (i == 0) ply_analyse_print_header(mem);
        ply_analyse_print_row(mem, (unsigned)i + 1, sorted[i], p->search->fen);
        fclose(mem);
        for (char *l = row; l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
            live_line(l, width);
            ps->drawn++;
        }
        free(row);
    }
    live_line(status, width);
    ps->drawn++;
    fflush(stderr);
    free(sorted);
}

/* ---- one run ------------------------------------------------------------------------- */

static int exit_code_for(int rc)
{
    return rc == PLY_EFEN || rc == PLY_EILLEGAL || rc == PLY_ERANGE || rc == PLY_EUSAGE ? 2 : 1;
}

/* A root without legal moves is answered here: there is nothing to search. */
static int terminal_status(const ply_arb_pos_t *pos, const char **status)
{
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    if (ply_arb_legal_moves(pos, moves) > 0) return 0;
    *status = ply_arb_in_check(pos) ? "checkmate" : "stalemate";
    return 1;
}

/* Why a deepening analysis gave no answer, on stderr; with @json also as its JSON Lines' last
 * object, a result of status "failed" with the reason in "error". */
static void print_failure(const char *why, int json)
{
    fprintf(stderr, "ply analyse: %s\n", why);
    if (!json) return;
    json_t *o = json_object();
    json_object_set_new(o, "type", ply_json_text("result"));
    json_object_set_new(o, "status", ply_json_text("failed"));
    json_object_set_new(o, "error", ply_json_text(why));
    ply_json_dumpf(o, stdout, 0);
    printf("\n");
    json_decref(o);
}

/* The answer on stdout; with --json one object, on one line after a deepening analysis's
 * iteration lines (JSON Lines), else indented. */
static void print_answer(const Ply__RunResult *r, const ply_analyse_asked_t *asked, int json)
{
    if (json) {
        json_t *o = ply_analyse_json(r, asked);
        ply_json_dumpf(o, stdout, asked->deepen ? 0 : JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        ply_analyse_print_text(stdout, r, asked);
    }
}

/*
 * Runs the search of @req on @s; 0 with *@res (free with ply_session_free_reply), or the
 * exit status after printing why not.
 */
static int search(ply_session_t *s, const ply_search_request_t *req, progress_t *ps,
                  Ply__RunResult **res)
{
    Ply__Accepted *acc = NULL;
    char why[512] = "";
    int rc = ply_session_search(s, req, on_progress, ps, &acc, res, why, sizeof why);
    erase_live(ps);
    if (rc == 0 && ps->deepen) show_iterations(ps, (*res)->search); /* those not reported */
    if (rc == 0 && ps->epd && (*res)->search)
        ps->nodes_done += (*res)->search->nodes; /* the suite's rate */
    ply_session_free_reply(&acc, NULL);
    if (rc == 0 && !(*res)->search) {
        ply_session_free_reply(NULL, res);
        snprintf(why, sizeof why, "the coordinator's answer has no search result");
        rc = PLY_EPROTO;
    }
    if (rc == 0) return 0;
    print_failure(why[0] ? why : ply_strerror(rc), ps->json && ps->deepen);
    return exit_code_for(rc);
}

static void fill_request(ply_search_request_t *req, const analyse_args_t *a, const char *fen)
{
    memset(req, 0, sizeof *req);
    req->fen = fen;
    req->depth = a->depth;
    req->nodes = a->nodes;
    req->movetime_ms = a->movetime_ms;
    req->chess960 = a->chess960;
    req->engine = a->eng.engine;
    req->verify = a->verify;
    req->verify_ppm = a->verify_ppm;
}

/* A single position deepens, unless verified (each root move searched once, reproducibly). */
static int deepens(const analyse_args_t *a)
{
    return !a->verify && !a->epd;
}

static void fill_asked(ply_analyse_asked_t *asked, const analyse_args_t *a,
                       const ply_cli_position_t *pos)
{
    memset(asked, 0, sizeof *asked);
    asked->root = pos->root;
    asked->moves = pos->move_ptrs;
    asked->nmoves = pos->nmoves;
    asked->depth = a->depth;
    asked->nodes = a->nodes;
    asked->movetime_ms = a->movetime_ms;
    asked->engine = a->eng.engine;
    asked->multipv = a->multipv_all ? 0 : a->multipv;
    asked->chess960 = a->chess960;
    if (deepens(a)) {
        asked->deepen = 1;
        asked->infinite = a->infinite;
        asked->multipv = a->multipv_all ? PLY_MAX_DIVIDE : a->multipv ? a->multipv : 1;
    }
}

static int run_single(const analyse_args_t *a, const ply_cli_position_t *pos,
                      char *const *searchmoves, size_t nsearchmoves)
{
    ply_analyse_asked_t asked;
    fill_asked(&asked, a, pos);
    const char *status = NULL;
    if (terminal_status(&pos->pos, &status)) {
        Ply__RunResult r = PLY__RUN_RESULT__INIT;
        Ply__SearchAnswer s = PLY__SEARCH_ANSWER__INIT;
        s.fen = (char *)pos->fen;
        s.status = (char *)status;
        r.search = &s;
        print_answer(&r, &asked, a->json);
        return 0;
    }
    char why[512];
    ply_session_t *s = ply_session_new(&a->session.cfg, why, sizeof why);
    if (!s) {
        print_failure(why, a->json && asked.deepen);
        return 1;
    }
    ply_search_request_t req;
    fill_request(&req, a, pos->root);
    req.moves = pos->move_ptrs;
    req.nmoves = pos->nmoves;
    req.searchmoves = (const char *const *)searchmoves;
    req.nsearchmoves = nsearchmoves;
    progress_t ps = {0};
    if (asked.deepen) {
        /* a value of at least the number of root moves scores every one exactly */
        req.deepen = 1, req.multipv = asked.multipv, req.infinite = a->infinite;
        ps.deepen = 1, ps.infinite = a->infinite, ps.json = a->json, ps.quiet = a->quiet;
        ps.chess960 = a->chess960, ps.movetime_ms = a->movetime_ms, ps.depth = a->depth;
        ps.session = s, ps.coordinator = a->session.cfg.coordinator;
        catch_interrupt(a->quiet);
    }
    Ply__RunResult *res = NULL;
    ply_progress_init(&ps.bar, "ply analyse", a->quiet);
    int rc = search(s, &req, &ps, &res);
    if (rc == 0) print_answer(res, &asked, a->json);
    ply_session_free_reply(NULL, &res);
    ply_session_destroy(&s);
    /* Ctrl-C before a depth completed: the run was canceled without an answer */
    return rc && interrupts ? 130 : rc;
}

/* ---- --epd FILE ---------------------------------------------------------------------- */

/* What one record gave: its top move judged against its bm/am. */
typedef struct epd_outcome {
    int scored, solved;
    char best[PLY_ARB_SAN_MAX], best_uci[8], score[48];
    char why[512];
} epd_outcome_t;

static int epd_record(ply_session_t *s, const analyse_args_t *a, const ply_epd_expect_t *x,
                      progress_t *ps, epd_outcome_t *o)
{
    const char *status = NULL;
    if (terminal_status(&x->pos, &status))
        return ply_why(o->why, sizeof o->why, -1, "the position is %s", status);
    ply_search_request_t req;
    fill_request(&req, a, x->fen);
    Ply__RunResult *res = NULL;
    int rc = search(s, &req, ps, &res);
    if (rc) return ply_why(o->why, sizeof o->why, -1, "the run failed (see above)");
    const Ply__AnalysedMove *top = res->search->n_moves ? res->search->moves[0] : NULL;
    ply_arb_move_t m;
    if (!top || ply_arb_move_from_uci(&x->pos, top->move, &m) < 0) {
        ply_session_free_reply(NULL, &res);
        return ply_why(o->why, sizeof o->why, -1, "the answer has no legal top move");
    }
    ply_arb_move_to_san(&x->pos, m, o->best, sizeof o->best);
    snprintf(o->best_uci, sizeof o->best_uci, "%s", top->move);
    ply_analyse_score_text(top->line, 0, o->score, sizeof o->score);
    o->scored = ply_epd_expect_scored(x);
    o->solved = o->scored && ply_epd_expect_solves(x, m);
    ply_session_free_reply(NULL, &res);
    return 0;
}

static void expected_text(const ply_epd_expect_t *x, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s", x->bm_text ? "bm " : "", x->bm_text ? x->bm_text : "",
             x->bm_text && x->am_text ? ", " : "", x->am_text ? "am " : "",
             x->am_text ? x->am_text : "");
    if (!buf[0]) snprintf(buf, len, "nothing");
}

static json_t *epd_json(const ply_epd_rec_t *rec, const ply_epd_expect_t *x, const epd_outcome_t *o,
                        int rc)
{
    json_t *j = json_object(), *comments = json_object();
    json_object_set_new(j, "id", x->id ? ply_json_text(x->id) : json_null());
    for (int k = 0; k < 10; k++) { /* c0..c9, kept as written */
        char name[4] = {'c', (char)('0' + k), '\0'};
        const char *c = ply_epd_op(rec, name);
        if (c) json_object_set_new(comments, name, ply_json_text(c));
    }
    json_object_set_new(j, "comments", comments);
    json_object_set_new(j, "fen", ply_json_text(x->fen));
    json_object_set_new(j, "bm", x->bm_text ? ply_json_text(x->bm_text) : json_null());
    json_object_set_new(j, "am", x->am_text ? ply_json_text(x->am_text) : json_null());
    if (rc < 0) {
        json_object_set_new(j, "error", ply_json_text(o->why));
        return j;
    }
    json_object_set_new(j, "best", ply_json_text(o->best));
    json_object_set_new(j, "best_uci", ply_json_text(o->best_uci));
    json_object_set_new(j, "score", ply_json_text(o->score));
    json_object_set_new(j, "solved", o->scored ? json_boolean(o->solved) : json_null());
    return j;
}

static int run_epd(const analyse_args_t *a)
{
    char why[1024];
    ply_epd_file_t *suite = ply_epd_file_load(a->epd, why, sizeof why);
    if (!suite) {
        fprintf(stderr, "ply analyse: %s\n", why);
        return 2;
    }
    ply_epd_expect_t *xs = calloc(suite->n, sizeof *xs);
    int rc = xs ? 0 : 1;
    for (size_t i = 0; rc == 0 && i < suite->n; i++) /* a broken suite costs no search */
        if (ply_epd_expect_read(&suite->recs[i], &xs[i], why, sizeof why) < 0) {
            fprintf(stderr, "ply analyse: %s:%d: %s\n", a->epd, suite->recs[i].line_no, why);
            rc = 2;
        }
    ply_session_t *s = rc ? NULL : ply_session_new(&a->session.cfg, why, sizeof why);
    if (!rc && !s) {
        fprintf(stderr, "ply analyse: %s\n", why);
        rc = 1;
    }
    json_t *list = a->json ? json_array() : NULL;
    long solved = 0, scored = 0, errors = 0;
    progress_t ps = {.epd = 1, .epd_total = suite->n};
    ply_progress_init(&ps.bar, "ply analyse", a->quiet);
    for (size_t i = 0; s && i < suite->n; i++) {
        epd_outcome_t o = {0};
        ps.epd_done = i;
        int r = epd_record(s, a, &xs[i], &ps, &o);
        errors += r < 0;
        scored += o.scored;
        solved += o.solved;
        char id[64], want[256];
        snprintf(id, sizeof id, "%s", xs[i].id ? xs[i].id : "");
        if (!id[0]) snprintf(id, sizeof id, "line %d", suite->recs[i].line_no);
        expected_text(&xs[i], want, sizeof want);
        if (list)
            json_array_append_new(list, epd_json(&suite->recs[i], &xs[i], &o, r));
        else if (r < 0)
            printf("%s: error: %s\n", id, o.why);
        else
            printf("%s: %s (best %s %s, expected %s)\n", id,
                   !o.scored  ? "not scored"
                   : o.solved ? "solved"
                              : "failed",
                   o.best, o.score, want);
        fflush(stdout);
    }
    if (s && list) {
        json_t *j = json_object();
        json_object_set_new(j, "file", ply_json_text(a->epd));
        json_object_set_new(j, "positions", json_integer((json_int_t)suite->n));
        json_object_set_new(j, "scored", json_integer(scored));
        json_object_set_new(j, "solved", json_integer(solved));
        json_object_set_new(j, "errors", json_integer(errors));
        json_object_set_new(j, "results", list);
        list = NULL;
        ply_json_dumpf(j, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(j);
    } else if (s) {
        printf("%s: %zu positions, %ld solved", a->epd, suite->n, solved);
        if (scored != (long)suite->n) printf(" of %ld with bm/am", scored);
        if (errors) printf(", %ld errors", errors);
        printf("\n");
    }
    json_decref(list);
    ply_session_destroy(&s);
    free(xs);
    ply_epd_file_free(&suite);
    return rc ? rc : errors ? 1 : 0;
}

/* ---- the command line ---------------------------------------------------------------- */

enum {
    OPT_MOVES = 256,
    OPT_NODES,
    OPT_MOVETIME,
    OPT_SEARCHMOVES,
    OPT_MULTIPV,
    OPT_CHESS960,
    OPT_EPD,
    OPT_JSON,
    OPT_VERIFY,
    OPT_INFINITE
};

/* One option's value into @a; 0, or the usage error's exit status. */
static int take_option(analyse_args_t *a, int c, const char *arg)
{
    long v;
    switch (c) {
    case 'f':
        a->fen = arg;
        return 0;
    case OPT_MOVES:
        a->moves = arg;
        return 0;
    case 'd':
        if (ply_cli_parse_long(arg, 1, PLY_SEARCH_JOB_MAX_DEPTH, &v))
            return ply_usage_error("analyse", "depth '%s' must be 1..%d", arg,
                                   PLY_SEARCH_JOB_MAX_DEPTH);
        a->depth = (unsigned)v;
        return 0;
    case OPT_NODES: {
        char *end;
        double d = strtod(arg, &end); /* 1e6 is the natural way to write it */
        if (*end || !(d >= 1) || d > 4.6e18)
            return ply_usage_error("analyse", "--nodes '%s' must be a positive count", arg);
        a->nodes = (uint64_t)d;
        return 0;
    }
    case OPT_MOVETIME:
        if (ply_cli_parse_long(arg, 1, PLY_SEARCH_JOB_MAX_MOVETIME_MS, &v))
            return ply_usage_error("analyse", "--movetime '%s' must be 1..%u ms", arg,
                                   PLY_SEARCH_JOB_MAX_MOVETIME_MS);
        a->movetime_ms = (unsigned)v;
        return 0;
    case OPT_SEARCHMOVES:
        a->searchmoves = arg;
        return 0;
    case OPT_MULTIPV:
        if (!strcmp(arg, "all")) {
            a->multipv = 0, a->multipv_all = 1;
            return 0;
        }
        if (ply_cli_parse_long(arg, 1, PLY_MAX_DIVIDE, &v))
            return ply_usage_error("analyse", "--multipv '%s' must be 1..%d or all", arg,
                                   PLY_MAX_DIVIDE);
        a->multipv = (unsigned)v, a->multipv_all = 0;
        return 0;
    case OPT_INFINITE:
        a->infinite = 1;
        return 0;
    case OPT_CHESS960:
        a->chess960 = 1;
        return 0;
    case OPT_EPD:
        a->epd = arg;
        return 0;
    case OPT_JSON:
        a->json = 1;
        return 0;
    case OPT_VERIFY:
        if (ply_report_parse_verify(arg, &a->verify, &a->verify_ppm))
            return ply_usage_error("analyse",
                                   "--verify '%s' must be none, all, or sample=P with 0 < P <= 1 "
                                   "(a fraction of the jobs, e.g. sample=0.1 or sample=10%%)",
                                   arg);
        return 0;
    case 'q':
        a->quiet = 1;
        return 0;
    default: {
        int r = ply_cli_session_option("analyse", &a->session, c, arg);
        if (r >= 0) return r;
        if ((r = ply_cli_search_engine_option("analyse", &a->eng, c, arg)) >= 0) return r;
        return ply_cli_curve_option(c, arg) ? 0 : -1; /* --curve, --cert, ... */
    }
    }
}

/* The options that cannot act on this run are refused, never dropped; 0 or 2. */
static int check_combinations(const analyse_args_t *a, int nwords)
{
    int limit = a->depth || a->nodes || a->movetime_ms;
    if (a->infinite && (a->verify || a->epd))
        return ply_usage_error("analyse",
                               "--infinite does not apply with %s (each root move is "
                               "searched once, to a limit)",
                               a->verify ? "--verify" : "--epd");
    if (a->infinite && limit)
        return ply_usage_error("analyse", "%s",
                               "--infinite or a limit (-d, --nodes, --movetime), not both");
    if (!limit && !a->infinite)
        return ply_usage_error("analyse", "%s",
                               "give a limit: -d N, --nodes N or --movetime MS (of the whole "
                               "analysis; with --verify and --epd, of each root move), or "
                               "--infinite");
    if (a->verify && a->movetime_ms)
        return ply_usage_error("analyse", "%s",
                               "--verify needs -d or --nodes, not --movetime: a search stopped "
                               "by a clock is not reproducible, so two honest workers would not "
                               "return the same line");
    /* a check is a search by another worker: the one in-process worker has no other */
    if (a->verify && !a->session.cfg.coordinator && a->session.cfg.workers < 2)
        return ply_usage_error("analyse", "%s",
                               "--verify needs a second worker to search again: --workers N "
                               "(N >= 2) or --coordinator");
    if (a->epd && (nwords || a->fen || a->moves || a->searchmoves))
        return ply_usage_error("analyse", "%s",
                               "--epd takes its positions from the file (no position, moves or "
                               "--searchmoves)");
    return ply_cli_session_check("analyse", &a->session);
}

/* --searchmoves as legal root moves of @pos, in the rule engine's UCI; 0 or 2. */
static int read_searchmoves(const char *text, const ply_cli_position_t *pos, char (*out)[6],
                            char **ptrs, size_t *n)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t,", &save); t;
         t = strtok_r(NULL, " \t,", &save)) {
        ply_arb_move_t m;
        if (*n == PLY_MAX_DIVIDE)
            return ply_usage_error("analyse", "--searchmoves: more than %d moves", PLY_MAX_DIVIDE);
        if (ply_arb_move_from_uci(&pos->pos, t, &m) < 0)
            return ply_usage_error("analyse", "--searchmoves %zu (%s): not a legal move in %s",
                                   *n + 1, t, pos->fen);
        ply_arb_move_to_uci(&pos->pos, m, out[*n]);
        for (size_t i = 0; i < *n; i++)
            if (!strcmp(out[i], out[*n]))
                return ply_usage_error("analyse", "--searchmoves %zu (%s): given twice", *n + 1, t);
        ptrs[*n] = out[*n];
        (*n)++;
    }
    if (!*n) return ply_usage_error("analyse", "%s", "--searchmoves without a move");
    return 0;
}

int ply_cmd_analyse(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"fen", required_argument, NULL, 'f'},
        {"moves", required_argument, NULL, OPT_MOVES},
        {"depth", required_argument, NULL, 'd'},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"movetime", required_argument, NULL, OPT_MOVETIME},
        {"searchmoves", required_argument, NULL, OPT_SEARCHMOVES},
        {"multipv", required_argument, NULL, OPT_MULTIPV},
        PLY_CLI_SEARCH_ENGINE_LONGOPTS,
        {"chess960", no_argument, NULL, OPT_CHESS960},
        {"epd", required_argument, NULL, OPT_EPD},
        {"json", no_argument, NULL, OPT_JSON},
        {"verify", required_argument, NULL, OPT_VERIFY},
        {"infinite", no_argument, NULL, OPT_INFINITE},
        {"quiet", no_argument, NULL, 'q'},
        PLY_CLI_SESSION_LONGOPTS,
        PLY_CLI_CURVE_LONGOPTS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    static analyse_args_t a; /* large (the engine options); one command per process */
    memset(&a, 0, sizeof a);
    ply_cli_session_opts_init(&a.session);
    int c;
    optind = 1;
    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":f:d:t:qh", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == ':')
            return ply_usage_error("analyse", "option '%s' needs a value", argv[optind - 1]);
        int r = c == '?' ? -1 : take_option(&a, c, optarg);
        if (r < 0) return ply_usage_error("analyse", "unknown option '%s'", argv[optind - 1]);
        if (r) return r;
    }
    int nwords = argc - optind;
    int rc = check_combinations(&a, nwords);
    if (!rc) rc = ply_cli_search_engine_choose("analyse", &a.eng, &a.session);
    if (!rc) rc = ply_cli_curve_setup("ply analyse");
    if (rc) return rc;
    if (a.epd) return run_epd(&a);
    static ply_cli_position_t pos;
    if (ply_cli_read_position("analyse", a.fen, argv + optind, nwords, a.moves, a.chess960, &pos))
        return 2;
    a.chess960 = pos.chess960;
    static char sm[PLY_MAX_DIVIDE][6];
    char *smp[PLY_MAX_DIVIDE];
    size_t nsm = 0;
    if (a.searchmoves && read_searchmoves(a.searchmoves, &pos, sm, smp, &nsm)) return 2;
    return run_single(&a, &pos, smp, nsm);
}
