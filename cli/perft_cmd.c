/*
 * `ply perft`: one position (FEN, X-FEN, Shredder-FEN or startpos) to a
 * depth, or an EPD suite (--epd FILE). Runs on the embedded default or a
 * named coordinator (session.h); prints Stockfish-style divide lines and
 * "Nodes searched: N", the statistics table, time and speed, and what was
 * cross-checked; or one JSON object with --json.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "arbiter/pgn.h"
#include "commands.h"
#include "curve_opts.h"
#include "envelope.h"
#include "epd.h"
#include "position.h"
#include "progress.h"
#include "report.h"
#include "session.h"
#include "session_opts.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/stats.h"
#include "util/time.h"

typedef struct perft_args {
    const char *fen;
    int depth;
    int chess960, divide, stats, json;
    int split_depth;
    const char *epd;
    int max_depth;
    uint64_t max_nodes;
    ply_cli_session_opts_t session; /* --threads, --hash, --workers, --coordinator, ... */
    int verify;                     /* --verify: a Ply__VerifyMode */
    uint32_t verify_ppm;            /* --verify sample=P, parts per million */
    int detach;                     /* --detach: print the run id and leave */
    int quiet;                      /* --quiet: no progress on stderr */
} perft_args_t;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: ply perft [--fen FEN | startpos | FEN] [moves M...] -d N [options]\n"
        "       ply perft --epd FILE [--max-depth D] [options]\n"
        "\n"
        "Counts the leaf nodes of the legal move tree (perft), split into jobs by a\n"
        "coordinator, counted by workers, cross-checked by the rule engine.\n"
        "\n"
        "  -f, --fen FEN           position as FEN, X-FEN or Shredder-FEN (default: startpos)\n"
        "      --moves \"M ...\"     UCI moves played from it first (as 'moves M...' after the\n"
        "                          position); perft counts the position they reach\n"
        "  -d, --depth N           plies to count, 1..%d\n"
        "      --chess960          read KQkq as X-FEN and castle by Chess960 rules\n"
        "                          (Shredder-FEN letters such as HAha imply it)\n"
        "      --divide            print the count below each root move (Stockfish style)\n"
        "      --stats             also count captures, en passant, castles, promotions,\n"
        "                          checks and mates by kind (the Grand Chess Tree columns)\n"
        "      --json              print one JSON object instead of text\n"
        "  -q, --quiet             no progress on stderr (by default: a bar on a terminal, a\n"
        "                          plain line every 5 s in a log; runs under 1 s show none)\n"
        "  -t, --threads N         worker threads (default: one per core)\n"
        "      --hash MIB          worker transposition table, MiB; 0 for none (default 256)\n"
        "      --split-depth S     plies expanded by the coordinator, 0..N-1 (default: automatic)\n"
        "      --workers N         run N local ply-worker processes instead of the in-process "
        "worker\n"
        "      --coordinator E     submit to the coordinator at endpoint E (e.g. tcp://host:5555)\n"
        "      --timeout S         give up when the coordinator is silent for S seconds (default "
        "30;\n"
        "                          a restart of the coordinator is waited for "
        "meanwhile)\n" PLY_CLI_CURVE_HELP
        "      --pgn FILE          start from a position of a PGN game: with --game N (1-based,\n"
        "                          default 1) and --ply K (plies of its main line, default 0)\n"
        "      --verify MODE       none (default: the always-on checks), sample=P (a fraction P\n"
        "                          of the jobs, e.g. sample=0.05, counted again by the rule\n"
        "                          engine or another worker with other Zobrist keys), or all\n"
        "                          (every job twice, on two workers); the report says exactly\n"
        "                          what was checked and how\n"
        "      --detach            with --coordinator: print the run id and exit as soon as\n"
        "                          the coordinator acknowledges the run\n"
        "                          (then: ply status, ply result RUN)\n"
        "      --state FILE        the embedded coordinator keeps its runs in FILE (SQLite):\n"
        "                          the same command run again after an interruption resumes\n"
        "                          (any other run left unfinished in FILE is finished first)\n"
        "      --epd FILE          run a suite: lines 'FEN ;D1 20 ;D2 400 ...'; report mismatches\n"
        "                          (4 checks at a time; without --split-depth, one of fewer\n"
        "                          than 200000 expected nodes is one job: split depth 0)\n"
        "      --max-depth D       with --epd: skip depths above D\n"
        "      --max-nodes N       with --epd: per position, only the deepest depth whose\n"
        "                          expected count is at most N\n"
        "  -h, --help              this text\n"
        "\n"
        "Exit status: 0 ok, 1 failure (including any EPD mismatch), 2 usage or bad position.\n",
        PLY_MAX_DEPTH);
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s) return -1;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* ---- progress ------------------------------------------------------------------ */

typedef struct perft_progress {
    ply_progress_t bar; /* the shared display (progress.h) */
    int queued_said;    /* the run was said to be queued */
    int rebased;        /* the rate starts after the results read back on resume */
} perft_progress_t;

/*
 * Progress of a run (progress.h: a bar on a terminal, a plain line every few seconds in a
 * log). The rate is of the nodes the workers counted (not of table answers), and of this
 * run's, not of those read back on resume; a queued run says so once, and its wait is
 * not computing time.
 */
static void show_progress(const Ply__RunProgress *p, void *arg)
{
    perft_progress_t *ps = arg;
    if (ps->bar.mode == PLY_PROGRESS_OFF) return;
    if (p->state && !strcmp(p->state, "queued")) {
        if (!ps->queued_said) {
            ply_progress_clear(&ps->bar);
            if (p->runs_ahead)
                fprintf(stderr,
                        "ply perft: run %" PRIu64 " is queued: %u run%s ahead of it (see "
                        "ply status); it starts when they leave a worker free\n",
                        p->run_id, p->runs_ahead, p->runs_ahead == 1 ? " is" : "s are");
            else
                fprintf(stderr, "ply perft: run %" PRIu64 " is queued: waiting for a worker\n",
                        p->run_id);
            ps->queued_said = 1;
        }
        ply_progress_restart(&ps->bar);
        return;
    }
    if (p->results_restored && !ps->rebased) ply_progress_rebase(&ps->bar), ps->rebased = 1;
    ply_u128_t nodes = ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi);
    ply_u128_t rated = p->has_counted_nodes ? p->counted_nodes : nodes;
    char workers[32];
    snprintf(workers, sizeof workers, "%u worker%s", p->workers, p->workers == 1 ? "" : "s");
    /* the ETA from the jobs' estimated sizes when the coordinator sends them, else by count */
    double wd = p->has_work_done_ppm ? (double)p->work_done_ppm : 0;
    double wt = p->has_work_done_ppm ? 1e6 : 0;
    ply_progress_update(&ps->bar, p->jobs_done, p->jobs_total, "jobs", wd, wt, rated,
                        p->has_nodes || p->has_counted_nodes, workers);
}

/* ---- interruption ---------------------------------------------------------------- */

/* What Ctrl-C or SIGTERM prints before ply leaves (composed before the run: a signal
 * handler may only write and exit). */
static char interrupt_note[1024];
static size_t interrupt_note_len;

static void on_interrupt(int sig)
{
    ssize_t n = write(STDERR_FILENO, interrupt_note, interrupt_note_len);
    (void)n;
    _exit(128 + sig); /* the shell's convention: 130 for SIGINT, 143 for SIGTERM */
}

/*
 * A run that outlives ply (kept in a state file, or running on a remote
 * coordinator) is not lost when ply is interrupted: say how to get it back.
 * Without either, the default action (the run ends with ply) is left alone.
 */
static void explain_interruption(const perft_args_t *a)
{
    const char *clear = isatty(STDERR_FILENO) ? "\r\033[K" : "";
    if (a->session.cfg.state_path)
        snprintf(interrupt_note, sizeof interrupt_note,
                 "%sply perft: interrupted; %s keeps the run: the same command resumes it "
                 "without recounting a finished job\n",
                 clear, a->session.cfg.state_path);
    else if (a->session.cfg.coordinator)
        snprintf(interrupt_note, sizeof interrupt_note,
                 "%sply perft: interrupted; the run goes on at %s (ply status --coordinator %s)\n",
                 clear, a->session.cfg.coordinator, a->session.cfg.coordinator);
    else
        return;
    interrupt_note_len = strlen(interrupt_note);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* ---- output ---------------------------------------------------------------------- */

static int cmp_divide(const void *a, const void *b)
{
    const Ply__DivideEntry *x = *(Ply__DivideEntry *const *)a, *y = *(Ply__DivideEntry *const *)b;
    return strcmp(x->move, y->move);
}

/* A run's total, a root move's count: 128-bit on the wire as nodes and nodes_hi. */
static ply_u128_t run_nodes(const Ply__RunResult *r)
{
    return ply_msg_count(r->nodes, r->has_nodes_hi, r->nodes_hi);
}

static ply_u128_t entry_nodes(const Ply__DivideEntry *e)
{
    return ply_msg_count(e->nodes, e->has_nodes_hi, e->nodes_hi);
}

static void print_stats_text(const Ply__Stats *ps)
{
    ply_stats128_t s;
    ply_msg_stats128_from_proto(&s, ps);
    char count[PLY_U128_DEC_LEN];
    for (int i = 1; i < PLY_STATS_N; i++)
        printf("%-26s %s\n", ply_stats_name(i), ply_u128_to_dec(s.v[i], count, sizeof count));
}

static json_t *stats_json(const Ply__Stats *ps)
{
    ply_stats128_t s;
    ply_msg_stats128_from_proto(&s, ps);
    json_t *o = json_object();
    for (int i = 0; i < PLY_STATS_N; i++)
        json_object_set_new(o, ply_stats_name(i), ply_json_count(s.v[i]));
    return o;
}

static void verification_text(const Ply__RunResult *r, char *buf, size_t len)
{
    const Ply__Verification *v = r->verification;
    if (!v) {
        snprintf(buf, len, "nothing cross-checked");
        return;
    }
    if (v->arbiter_plies)
        snprintf(
            buf, len,
            "plies 1-%u counted by the rule engine; perft(1) of %u/%u jobs matched the rule engine",
            v->arbiter_plies, v->perft1_checked, v->jobs);
    else
        snprintf(buf, len, "perft(1) of %u/%u jobs matched the rule engine", v->perft1_checked,
                 v->jobs);
}

static json_t *result_json(const Ply__Accepted *acc, const Ply__RunResult *r, int stats)
{
    json_t *o = json_object();
    json_object_set_new(o, "fen", ply_json_text(r->fen ? r->fen : acc->fen));
    json_object_set_new(o, "depth", json_integer(r->depth));
    json_object_set_new(o, "chess960", json_boolean(r->chess960));
    json_object_set_new(o, "nodes", ply_json_count(run_nodes(r)));
    json_t *div = json_object();
    Ply__DivideEntry **sorted = malloc((r->n_divide + 1) * sizeof *sorted);
    memcpy(sorted, r->divide, r->n_divide * sizeof *sorted);
    qsort(sorted, r->n_divide, sizeof *sorted, cmp_divide);
    for (size_t i = 0; i < r->n_divide; i++)
        json_object_set_new(div, sorted[i]->move, ply_json_count(entry_nodes(sorted[i])));
    free(sorted);
    json_object_set_new(o, "divide", div);
    json_object_set_new(o, "stats", stats && r->stats ? stats_json(r->stats) : json_null());
    /* honest figures: the rate is of nodes the workers counted for this answer, not of the
     * total (which merged transpositions and table hits make larger), and the time starts
     * when the run did (queued_ms is the wait before) */
    json_object_set_new(o, "time_ms", ply_json_count(r->time_ms));
    json_object_set_new(o, "queued_ms", ply_json_count(r->queued_ms));
    json_object_set_new(o, "tail_ms", ply_json_count(r->tail_ms)); /* idle tail, in time_ms */
    json_object_set_new(o, "counted_nodes", ply_json_count(r->counted_nodes));
    json_object_set_new(o, "tt_nodes", ply_json_count(r->tt_nodes));
    json_object_set_new(o, "nps",
                        ply_json_count(ply_nps(r->counted_nodes, r->time_ms * 1000000ull)));
    json_object_set_new(o, "jobs", json_integer(r->jobs));
    json_object_set_new(o, "split_depth", json_integer(r->split_depth));
    json_object_set_new(o, "tt_probes", ply_json_count(r->tt_probes));
    json_object_set_new(o, "tt_hits", ply_json_count(r->tt_hits));
    json_object_set_new(o, "run", ply_json_count(r->run_id));
    json_t *v = ply_report_verification_json(r); /* what was verified, and how */
    char text[256];
    verification_text(r, text, sizeof text);
    json_object_set_new(v, "summary", ply_json_text(text));
    json_object_set_new(o, "verified", v);
    return o;
}

static void print_result_text(const Ply__RunResult *r, const perft_args_t *a)
{
    char count[PLY_U128_DEC_LEN];
    if (a->divide) {
        Ply__DivideEntry **sorted = malloc((r->n_divide + 1) * sizeof *sorted);
        memcpy(sorted, r->divide, r->n_divide * sizeof *sorted);
        qsort(sorted, r->n_divide, sizeof *sorted, cmp_divide);
        for (size_t i = 0; i < r->n_divide; i++)
            printf("%s: %s\n", sorted[i]->move,
                   ply_u128_to_dec(entry_nodes(sorted[i]), count, sizeof count));
        free(sorted);
        printf("\n");
    }
    printf("Nodes searched: %s\n", ply_u128_to_dec(run_nodes(r), count, sizeof count));
    if (a->stats && r->stats) {
        printf("\n");
        print_stats_text(r->stats);
    }
    char text[256];
    verification_text(r, text, sizeof text);
    char counted[PLY_U128_DEC_LEN], tables[PLY_U128_DEC_LEN];
    ply_u128_to_dec(r->counted_nodes, counted, sizeof counted);
    ply_u128_to_dec(r->tt_nodes, tables, sizeof tables);
    printf("\nTime: %.3f s, %.1f Mnodes/s counted, %u jobs at split depth %u\n",
           (double)r->time_ms / 1000.0,
           (double)ply_nps(r->counted_nodes, r->time_ms * 1000000ull) / 1e6, r->jobs,
           r->split_depth);
    printf("Counted: %s leaf nodes by the workers, %s more answered from their tables%s\n", counted,
           tables,
           r->results_restored ? " (results read back from the state file not included)" : "");
    if (r->jobs > 1 && r->time_ms >= 1000) /* how long the end waited on the last jobs */
        printf("Idle tail: %.3f s (%.1f%% of the time) from the first worker left without a "
               "job to the end\n",
               (double)r->tail_ms / 1000.0, 100.0 * (double)r->tail_ms / (double)r->time_ms);
    if (r->queued_ms >= 1000) /* a wait worth saying (shorter ones are message latency) */
        printf("Queued: %.1f s before its first job went out\n", (double)r->queued_ms / 1000.0);
    printf("Cross-checked: %s\n", text);
    if (r->tt_probes)
        printf("Table: %.1f%% hits (%llu of %llu probes)\n",
               100.0 * (double)r->tt_hits / (double)r->tt_probes, (unsigned long long)r->tt_hits,
               (unsigned long long)r->tt_probes);
    ply_report_verification_text(stdout, r);
}

/* ---- --pgn FILE --game N --ply K ------------------------------------------------- */

typedef struct pgn_start {
    const char *path;
    long game;
    int ply;
    char fen[PLY_ARB_FEN_MAX];
} pgn_start_t;

/* The position after ply K of game N becomes the request's FEN (Chess960 when
 * the game's Variant tag says so). Returns 0, or 1 after printing why not. */
static int pgn_position(pgn_start_t *p, perft_args_t *a)
{
    char why[512];
    int c960 = 0;
    if (ply_arb_pgn_position(p->path, p->game ? (size_t)p->game : 1, p->ply < 0 ? 0 : p->ply,
                             p->fen, sizeof p->fen, &c960, why, sizeof why)) {
        fprintf(stderr, "ply perft: %s\n", why);
        return 1;
    }
    a->fen = p->fen;
    a->chess960 |= c960;
    return 0;
}

/* ---- runs -------------------------------------------------------------------------- */

static int exit_code_for(int rc)
{
    return rc == PLY_EFEN || rc == PLY_EILLEGAL || rc == PLY_ERANGE || rc == PLY_EUSAGE ? 2 : 1;
}

/* --detach: submit, print the run id (stdout) and how to follow it (stderr), leave. */
static int run_detached(ply_session_t *s, const ply_perft_request_t *req, const perft_args_t *a)
{
    Ply__Accepted *acc = NULL;
    char why[512] = "";
    int rc = ply_session_submit(s, req, &acc, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "ply perft: %s\n", why[0] ? why : ply_strerror(rc));
        return exit_code_for(rc);
    }
    if (a->json) {
        json_t *o = json_object();
        /* acknowledged before it is planned: no plan yet is null, not 0 jobs */
        json_object_set_new(o, "run", ply_json_count(acc->run_id));
        json_object_set_new(o, "jobs", acc->has_jobs ? json_integer(acc->jobs) : json_null());
        json_object_set_new(o, "split_depth",
                            acc->has_jobs ? json_integer(acc->split_depth) : json_null());
        json_object_set_new(o, "fen", ply_json_text(acc->fen ? acc->fen : a->fen));
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("%llu\n", (unsigned long long)acc->run_id);
        fflush(stdout); /* the id first, whatever stderr says */
        char plan[64] = "";
        if (acc->has_jobs)
            snprintf(plan, sizeof plan, " (%u jobs at split depth %u)", acc->jobs,
                     acc->split_depth);
        fprintf(stderr,
                "ply perft: run %llu accepted%s; follow it with 'ply status --coordinator %s "
                "%llu', get it with 'ply result --coordinator %s %llu'\n",
                (unsigned long long)acc->run_id, plan, a->session.cfg.coordinator,
                (unsigned long long)acc->run_id, a->session.cfg.coordinator,
                (unsigned long long)acc->run_id);
    }
    ply_session_free_reply(&acc, NULL);
    return 0;
}

static int run_single(ply_session_t *s, const perft_args_t *a)
{
    ply_perft_request_t req = {a->fen,         (unsigned)a->depth, a->chess960,   a->stats, 1,
                               a->split_depth, a->verify,          a->verify_ppm, a->detach};
    Ply__Accepted *acc = NULL;
    Ply__RunResult *res = NULL;
    char why[512] = "";
    if (a->detach) return run_detached(s, &req, a);
    perft_progress_t ps = {0};
    ply_progress_init(&ps.bar, "ply perft", a->quiet);
    explain_interruption(a);
    int rc = ply_session_perft(s, &req, show_progress, &ps, &acc, &res, why, sizeof why);
    ply_progress_clear(&ps.bar);
    if (rc < 0) {
        fprintf(stderr, "ply perft: %s\n", why[0] ? why : ply_strerror(rc));
        return exit_code_for(rc);
    }
    if (a->json) {
        json_t *o = result_json(acc, res, a->stats);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        print_result_text(res, a);
    }
    /* a fault found (settled or not, a worker caught wrong) is exit 1, whatever the total */
    int failed =
        res->verification && (res->verification->mismatches || res->verification->excluded);
    ply_session_free_reply(&acc, &res);
    return failed ? 1 : 0;
}

/* Index of the one depth of EPD line @l that --max-nodes runs, -1 for none or without it. */
static int epd_only(const perft_args_t *a, const ply_epd_line_t *l)
{
    int only = -1;
    for (int k = 0; a->max_nodes && k < l->ndepths; k++)
        if (l->depths[k].nodes <= (ply_u128_t)a->max_nodes &&
            (!a->max_depth || l->depths[k].depth <= a->max_depth) &&
            (only < 0 || l->depths[k].depth > l->depths[only].depth))
            only = k;
    return only;
}

/* Whether depth @k of EPD line @l is checked (--max-depth, --max-nodes). */
static int epd_runs(const perft_args_t *a, const ply_epd_line_t *l, int k, int only)
{
    if (a->max_depth && l->depths[k].depth > a->max_depth) return 0;
    return !a->max_nodes || k == only;
}

/* A suite's progress: its checks, weighted by their expected counts for the ETA. */
typedef struct epd_progress {
    ply_progress_t bar;
    uint64_t checks_done, checks_total;
    double work_done, work_total; /* expected nodes of the checks done, of all */
    double work_now;              /* of the check running */
    ply_u128_t nodes_done;        /* counted by the finished checks */
    char failed[32];              /* "N failed", shown after the rate */
} epd_progress_t;

static void epd_show(const Ply__RunProgress *p, void *arg)
{
    epd_progress_t *e = arg;
    if (e->bar.mode == PLY_PROGRESS_OFF || (p->state && !strcmp(p->state, "queued"))) return;
    double part = p->jobs_total ? (double)p->jobs_done / p->jobs_total : 0;
    ply_u128_t nodes = p->has_counted_nodes ? p->counted_nodes
                                            : ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi);
    ply_progress_update(&e->bar, e->checks_done, e->checks_total, "checks",
                        e->work_done + part * e->work_now, e->work_total, e->nodes_done + nodes, 1,
                        e->failed);
}

/*
 * An EPD suite is many small checks: each is one run, and a run's cost is its
 * messages (client, coordinator, its thread pool, the worker: each a thread
 * woken), not its count. So EPD_WINDOW checks are in flight at once, each on
 * its own client connection (a client waits for one run), while the results
 * are taken in the file's order; and without --split-depth a check of fewer
 * than EPD_ONE_JOB_NODES expected nodes is one job (split depth 0): jobs
 * that small are not worth their messages. The rule engine then recounts
 * each move's subtree (split.c, runs estimated at most 1e6 nodes): more
 * than the perft(1) after each first move that split 1 would check; the
 * total is checked against the file's count as always.
 * The 6,838 positions of gct-perft-marcel.epd at depths 1-3 (20,514 checks)
 * went from 300 s to 16.5 s with each Submit waiting for its Accepted, and to 11.5 s
 * with the Submits of the window sent at once (Zen 4, 2 cores; the rule engine's recount
 * is two thirds of the CPU time).
 */
#define EPD_WINDOW        8
#define EPD_ONE_JOB_NODES 200000u

typedef struct epd_check {
    const ply_epd_line_t *l;
    int k;                /* the depth's index in the line */
    ply_client_t *client; /* its slot's connection */
    int rc;               /* of its submit, then of its wait */
    char why[512];
    Ply__Accepted *acc;
} epd_check_t;

/* Sends check @c's Submit; its Accepted (once the run is stored, or with a coordinator
 * older than issue 27 once it is planned) is read when the check's turn comes
 * (ply_client_accepted), so the runs in flight are planned side by side on the
 * coordinator's thread pool. */
static void epd_submit(epd_check_t *c, const perft_args_t *a)
{
    char fen[PLY_ARB_FEN_MAX];
    const ply_epd_line_t *l = c->l;
    int split = a->split_depth;
    if (split < 0 && l->depths[c->k].nodes < (ply_u128_t)EPD_ONE_JOB_NODES) split = 0;
    ply_perft_request_t req = {
        fen, (unsigned)l->depths[c->k].depth, a->chess960, 0, 0, split, a->verify, a->verify_ppm,
        0};
    c->why[0] = '\0';
    c->acc = NULL;
    c->rc = ply_cli_fen(l->fen, a->chess960, fen, sizeof fen, c->why, sizeof c->why);
    if (c->rc == 0) c->rc = ply_client_submit_send(c->client, &req, c->why, sizeof c->why);
}

static int run_epd(ply_session_t *s, const perft_args_t *a)
{
    char why[512];
    ply_epd_t *suite = ply_epd_load(a->epd, why, sizeof why);
    if (!suite) {
        fprintf(stderr, "ply perft: %s\n", why);
        return 2;
    }
    json_t *lines = a->json ? json_array() : NULL;
    int checks = 0, failures = 0;
    epd_progress_t ep = {.failed = "0 failed"};
    ply_progress_init(&ep.bar, "ply perft", a->quiet);
    size_t n = 0;
    for (size_t i = 0; i < suite->n; i++) {
        const ply_epd_line_t *l = &suite->lines[i];
        int only = epd_only(a, l);
        for (int k = 0; k < l->ndepths; k++)
            if (epd_runs(a, l, k, only))
                ep.checks_total++, ep.work_total += (double)l->depths[k].nodes, n++;
    }
    epd_check_t *all = calloc(n ? n : 1, sizeof *all);
    ply_client_t *extra[EPD_WINDOW] = {0};
    ply_client_t *slot[EPD_WINDOW];
    size_t window = 1;
    slot[0] = ply_session_client(s);
    while (window < EPD_WINDOW && n > window &&
           (extra[window] = ply_client_new(ply_session_endpoint(s), NULL, 0)))
        slot[window] = extra[window], window++;
    if (!all) {
        fprintf(stderr, "ply perft: out of memory\n");
        ply_epd_free(&suite);
        json_decref(lines);
        return 1;
    }
    n = 0;
    for (size_t i = 0; i < suite->n; i++) {
        const ply_epd_line_t *l = &suite->lines[i];
        int only = epd_only(a, l);
        for (int k = 0; k < l->ndepths; k++)
            if (epd_runs(a, l, k, only)) all[n].l = l, all[n].k = k, n++;
    }
    unsigned timeout_ms = ply_session_timeout_ms(s);
    size_t sent = 0;
    for (size_t done = 0; done < n; done++) {
        while (sent < n && sent - done < window) {
            all[sent].client = slot[sent % window];
            epd_submit(&all[sent], a);
            sent++;
        }
        epd_check_t *c = &all[done];
        const ply_epd_line_t *l = c->l;
        int k = c->k, depth = l->depths[k].depth, rc = c->rc;
        Ply__RunResult *res = NULL;
        ep.work_now = (double)l->depths[k].nodes;
        if (rc == 0)
            rc = ply_client_accepted(c->client, (int)timeout_ms, &c->acc, c->why, sizeof c->why);
        if (rc == 0) {
            rc = ply_client_wait(c->client, c->acc->run_id, epd_show, &ep, (int)timeout_ms, &res,
                                 c->why, sizeof c->why);
        }
        snprintf(why, sizeof why, "%s", c->why);
        int ok = rc == 0 && run_nodes(res) == l->depths[k].nodes &&
                 !(res->verification && res->verification->mismatches);
        checks++;
        failures += !ok;
        ep.checks_done++;
        ep.work_done += ep.work_now;
        if (rc == 0) ep.nodes_done += res->counted_nodes ? res->counted_nodes : run_nodes(res);
        if (lines) {
            json_t *o = json_object();
            json_object_set_new(o, "line", json_integer(l->line_no));
            json_object_set_new(o, "fen", ply_json_text(l->fen));
            json_object_set_new(o, "depth", json_integer(depth));
            json_object_set_new(o, "expected", ply_json_count(l->depths[k].nodes));
            json_object_set_new(o, "nodes", rc == 0 ? ply_json_count(run_nodes(res)) : json_null());
            json_object_set_new(o, "ok", json_boolean(ok));
            if (rc < 0) json_object_set_new(o, "error", ply_json_text(why));
            json_array_append_new(lines, o);
        } else if (!ok) {
            ply_progress_clear(&ep.bar);
            if (rc < 0)
                printf("FAIL line %d D%d: %s: %s\n", l->line_no, depth, l->fen, why);
            else {
                char want[PLY_U128_DEC_LEN], got[PLY_U128_DEC_LEN];
                printf("FAIL line %d D%d: %s: expected %s, counted %s\n", l->line_no, depth, l->fen,
                       ply_u128_to_dec(l->depths[k].nodes, want, sizeof want),
                       ply_u128_to_dec(run_nodes(res), got, sizeof got));
            }
            fflush(stdout);
        }
        ply_session_free_reply(&c->acc, &res);
        snprintf(ep.failed, sizeof ep.failed, "%d failed", failures);
        ply_progress_update(&ep.bar, ep.checks_done, ep.checks_total, "checks", ep.work_done,
                            ep.work_total, ep.nodes_done, 1, ep.failed);
    }
    for (size_t w = 1; w < window; w++) ply_client_destroy(&extra[w]);
    free(all);
    ply_progress_clear(&ep.bar);
    if (lines) {
        json_t *o = json_object();
        json_object_set_new(o, "file", ply_json_text(a->epd));
        json_object_set_new(o, "positions", ply_json_count(suite->n));
        json_object_set_new(o, "checks", json_integer(checks));
        json_object_set_new(o, "failures", json_integer(failures));
        json_object_set_new(o, "results", lines);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("%s: %zu positions, %d checks, %d failed\n", a->epd, suite->n, checks, failures);
    }
    ply_epd_free(&suite);
    return failures ? 1 : 0;
}

int ply_cmd_perft(int argc, char **argv)
{
    enum {
        OPT_CHESS960 = 256,
        OPT_DIVIDE,
        OPT_STATS,
        OPT_JSON,
        OPT_SPLIT,
        OPT_EPD,
        OPT_MAXDEPTH,
        OPT_MAXNODES,
        OPT_PGN,
        OPT_GAME,
        OPT_PLY,
        OPT_VERIFY,
        OPT_DETACH,
        OPT_MOVES
    };
    static const struct option longopts[] = {{"fen", required_argument, NULL, 'f'},
                                             {"depth", required_argument, NULL, 'd'},
                                             {"chess960", no_argument, NULL, OPT_CHESS960},
                                             {"divide", no_argument, NULL, OPT_DIVIDE},
                                             {"stats", no_argument, NULL, OPT_STATS},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"split-depth", required_argument, NULL, OPT_SPLIT},
                                             {"epd", required_argument, NULL, OPT_EPD},
                                             {"max-depth", required_argument, NULL, OPT_MAXDEPTH},
                                             {"max-nodes", required_argument, NULL, OPT_MAXNODES},
                                             {"pgn", required_argument, NULL, OPT_PGN},
                                             {"game", required_argument, NULL, OPT_GAME},
                                             {"ply", required_argument, NULL, OPT_PLY},
                                             {"verify", required_argument, NULL, OPT_VERIFY},
                                             {"detach", no_argument, NULL, OPT_DETACH},
                                             {"moves", required_argument, NULL, OPT_MOVES},
                                             {"quiet", no_argument, NULL, 'q'},
                                             PLY_CLI_SESSION_LONGOPTS,
                                             PLY_CLI_CURVE_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    perft_args_t a = {0};
    pgn_start_t pgn = {NULL, 0, -1, ""}; /* 0 and -1: not given */
    const char *moves = NULL;            /* --moves "e2e4 e7e5" */
    a.split_depth = -1;
    ply_cli_session_opts_init(&a.session);
    long v;
    int c;
    optind = 1;
    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":f:d:t:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            a.fen = optarg;
            break;
        case 'd':
            if (parse_int(optarg, 1, PLY_MAX_DEPTH, &v))
                return ply_usage_error("perft",
                                       "depth '%s' out of range 1..%d (deeper counts may pass "
                                       "2^128, more than ply counts exactly)",
                                       optarg, PLY_MAX_DEPTH);
            a.depth = (int)v;
            break;
        case OPT_CHESS960:
            a.chess960 = 1;
            break;
        case OPT_DIVIDE:
            a.divide = 1;
            break;
        case OPT_STATS:
            a.stats = 1;
            break;
        case OPT_JSON:
            a.json = 1;
            break;
        case OPT_SPLIT:
            if (parse_int(optarg, 0, PLY_MAX_DEPTH - 1, &v))
                return ply_usage_error("perft", "--split-depth '%s' must be 0..%d", optarg,
                                       PLY_MAX_DEPTH - 1);
            a.split_depth = (int)v;
            break;
        case OPT_EPD:
            a.epd = optarg;
            break;
        case OPT_MAXDEPTH:
            if (parse_int(optarg, 1, PLY_MAX_DEPTH, &v))
                return ply_usage_error("perft", "--max-depth '%s' must be 1..%d", optarg,
                                       PLY_MAX_DEPTH);
            a.max_depth = (int)v;
            break;
        case OPT_MAXNODES: {
            char *end;
            double d = strtod(optarg, &end); /* 1e7 is the natural way to write it */
            if (*end || !(d >= 1) || d > 1.8e19)
                return ply_usage_error("perft", "--max-nodes '%s' must be a positive count",
                                       optarg);
            a.max_nodes = (uint64_t)d;
            break;
        }
        case OPT_PGN:
            pgn.path = optarg;
            break;
        case OPT_GAME:
            if (parse_int(optarg, 1, 100000000, &v))
                return ply_usage_error("perft", "--game '%s' must be a game number from 1", optarg);
            pgn.game = v;
            break;
        case OPT_PLY:
            if (parse_int(optarg, 0, 100000, &v))
                return ply_usage_error("perft", "--ply '%s' must be a ply count from 0", optarg);
            pgn.ply = (int)v;
            break;
        case OPT_VERIFY:
            if (ply_report_parse_verify(optarg, &a.verify, &a.verify_ppm))
                return ply_usage_error(
                    "perft", "--verify '%s' must be none, all, or sample=P with 0 < P <= 1",
                    optarg);
            break;
        case OPT_DETACH:
            a.detach = 1;
            break;
        case OPT_MOVES:
            moves = optarg;
            break;
        case 'q':
            a.quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return ply_usage_error("perft", "option '%s' needs a value", argv[optind - 1]);
        default: {
            int r = ply_cli_session_option("perft", &a.session, c, optarg);
            if (r > 0) return r;
            if (r == 0 || ply_cli_curve_option(c, optarg)) break; /* --curve, --cert, ... */
            return ply_usage_error("perft", "unknown option '%s'", argv[optind - 1]);
        }
        }
    }
    /* Positional arguments are the position: "startpos" or a FEN (quoted, or its fields as
     * separate words), then optionally "moves e2e4 e7e5 ..." played from it. */
    int nwords = argc - optind;
    if (!pgn.path && (pgn.game || pgn.ply >= 0))
        return ply_usage_error("perft", "%s", "--game and --ply need --pgn FILE");
    if (pgn.path && (a.fen || a.epd || nwords || moves))
        return ply_usage_error("perft", "%s",
                               "--pgn gives the position; it cannot be combined with a FEN, "
                               "moves or --epd");
    if (a.epd && (a.depth || nwords || a.fen || moves))
        return ply_usage_error("perft", "%s", "--epd takes its positions and depths from the file");
    if (pgn.path && pgn_position(&pgn, &a)) return 2;
    ply_cli_position_t pos;
    if (!a.epd) {
        if (ply_cli_read_position("perft", a.fen, argv + optind, nwords, moves, a.chess960, &pos))
            return 2;
        a.fen = pos.fen; /* the position reached: perft counts its tree */
    }
    if (!a.epd && !a.depth) return ply_usage_error("perft", "%s", "-d N (the depth) is required");
    if (a.split_depth >= 0 && a.depth && a.split_depth >= a.depth)
        return ply_usage_error("perft", "--split-depth must be below the depth%s", "");
    if (a.detach && (!a.session.cfg.coordinator || a.epd))
        return ply_usage_error("perft", "%s",
                               "--detach needs --coordinator E (the embedded coordinator ends with "
                               "ply) and one position");
    /* An option that cannot act on this run is refused, never silently dropped. */
    const char *idle = NULL, *where = NULL;
    if (a.epd && (a.divide || a.stats)) /* a suite compares totals only */
        idle = a.divide ? "--divide" : "--stats", where = "to an EPD suite (--epd)";
    else if (!a.epd && (a.max_depth || a.max_nodes))
        idle = a.max_depth ? "--max-depth" : "--max-nodes", where = "without --epd";
    if (idle) return ply_usage_error("perft", "%s does not apply %s", idle, where);
    if (ply_cli_session_check("perft", &a.session)) return 2;
    int curve_rc = ply_cli_curve_setup("ply perft");
    if (curve_rc) return curve_rc;

    char why[512];
    ply_session_t *s = ply_session_new(&a.session.cfg, why, sizeof why);
    if (!s) {
        fprintf(stderr, "ply perft: %s\n", why);
        return 1;
    }
    int rc = a.epd ? run_epd(s, &a) : run_single(s, &a);
    ply_session_destroy(&s);
    return rc;
}

int ply_perft_print_result(const Ply__RunResult *r, int divide, int stats, int json)
{
    perft_args_t a = {0};
    a.divide = divide;
    a.stats = stats;
    a.json = json;
    if (json) {
        Ply__Accepted acc = PLY__ACCEPTED__INIT;
        json_t *o = result_json(&acc, r, stats);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        print_result_text(r, &a);
    }
    return r->verification && (r->verification->mismatches || r->verification->excluded) ? 1 : 0;
}
