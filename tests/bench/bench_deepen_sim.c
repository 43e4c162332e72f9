/*
 * bench_deepen_sim: the coordinator's deepening analysis (coordinator/search/deepen.c, issue 28)
 * over a simulated cluster of N workers, a discrete-event simulation: time to a depth against
 * 1 worker, the workers' idle time, and the coordinator's CPU share.
 *
 * Each simulated worker is ply's engine as a real worker runs it (worker/daemon/analysis.h:
 * the builtin backend, its own table of --hash MiB, 1 thread) with a virtual clock. An idle
 * worker asks ply__deepen_pick (worker name "w<i>"), the job is searched at once on that
 * worker's backend (so its table evolves as a real worker's would: the job kind.c builds, the
 * root move or, for a job of the eldest brother's split, the eldest played and then a reply
 * (ply__deepen_job_where); its start_depth (the job's start); a null window when the job has
 * one), and its line is
 * given to ply__deepen_take only at its completion time: now + nodes / R + L, R the rate of
 * one 1-thread worker (nodes per second, --rate) and L the coordinator's round trip
 * (--latency-ms). The loop advances to the earliest completion, lets every idle worker ask
 * again, and stops when iteration --depth is complete. Slots are a run's tasks
 * (PLY__DEEPEN_SLOTS: the root moves', then the split's), free again once their line came; the
 * line of a split replaced meanwhile is refused (stale), as kind.c refuses it.
 *
 * Everything the simulation decides is a function of node counts and virtual time: with one
 * thread, the default Zobrist keys and a depth limit the engine is deterministic, so the
 * figures are the same on a loaded machine. The coordinator's CPU is real: the thread CPU
 * time spent in what the coordinator does with every job (ply__deepen_pick / started / take /
 * answer, the result's unpack and copy, the rule engine's replay of the line and its SAN),
 * reported as coordinator seconds per virtual second at N workers.
 *
 *   bench_deepen_sim [--depth D] [--workers 1,2,8,16,64] [--latency-ms L] [--rate R]
 *                    [--epd FILE] [--every K] [--from I] [--limit N] [--hash MIB]
 *                    [--multipv K] [--whole D] [--trace] [--hold-spec research|exact]
 *
 * Columns: t the virtual time to the depth, its speed-up against 1 worker, idle the share of
 * the N workers' time not computing (waiting for a job, or the round trip L), nodes the lines
 * taken (against 1 worker), jobs started, cold (on a worker that did not search the move
 * last), again (a move searched a second time or more at one depth: a fail-high's exact
 * search, a null window against a new threshold), moved (a move searched by another worker
 * than the last time), deepen (deepen.c's CPU per virtual second) and coord (with the
 * rule engine's replay, SAN and the result's copies). Below each row: the longest single job
 * (the critical path no split of the root cuts), the split's jobs, and the counts below.
 *
 * --hold-spec is an experiment, not deepen.c's behaviour: an exact search at the speculative
 * next depth waits until the iteration before it completes (the worker stays idle meanwhile);
 * "research" holds only a move's exact search after its null window failed high against the
 * last iteration's threshold (a guess), "exact" every exact search (the eldest brother too).
 * --whole D sets the depth of the opening whole job (deepen.h; 0: none, every iteration split).
 * Blind jobs (counted) are told start_depth = depth (deepen.c's rule for a move the worker
 * searched last) on a table that holds only a search of the move two or more plies shallower.
 *
 * Exit 0 when every run reached its depth with a legal best move (the rule engine's check),
 * 1 otherwise, 2 for a bad option.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "arbiter/arbiter.h"
#include "envelope.h"
#include "ply.pb-c.h"
#include "search/deepen.h"
#include "search/game.h"

#ifndef PLY_SOURCE_DIR
#define PLY_SOURCE_DIR "."
#endif

#define MAX_SIZES   16
#define MAX_WORKERS 1024
#define MAX_FEN     128

enum { HOLD_RESEARCH = 1, HOLD_EXACT = 2 };

/* The options. */
static struct {
    int depth;
    int sizes[MAX_SIZES], nsizes;
    double latency_s, rate;
    const char *epd;
    int every, from, limit, hash_mib, multipv, trace;
    int whole; /* --whole D: the opening whole job's depth (0: none); -1: deepen.c's default */
    int hold_spec; /* the experiment --hold-spec (see dispatch): 0, HOLD_RESEARCH, HOLD_EXACT */
} opt = {.depth = 14,
         .sizes = {1, 2, 8, 16, 64},
         .nsizes = 5,
         .latency_s = 0.001,
         .rate = 7.5e5,
         .epd = PLY_SOURCE_DIR "/tests/data/analysis/sts-v3.epd",
         .every = 50,
         .hash_mib = 16,
         .multipv = 1,
         .whole = -1};

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One simulated worker. */
typedef struct worker {
    char name[16];
    ply_analysis_t *an;
    int busy;
    size_t slot;
    ply__deepen_job_t job;
    char prefix[8], uci[8]; /* the job's move from the root to its position (a split's), its move */
    double start, done;     /* virtual seconds */
    uint8_t *wire;          /* its Result's SearchResult, packed: what the coordinator receives */
    size_t wire_len;
    uint64_t nodes;
    uint8_t deepest[2 * PLY_ARB_MAX_MOVES]; /* per move (key_of): its deepest search here */
    double busy_s; /* virtual seconds computing (nodes / R), latency excluded */
} worker_t;

/* What one run (a position, N workers) measured. */
typedef struct outcome {
    int ok;
    double t;       /* virtual seconds to the depth */
    double busy;    /* worker-seconds computing */
    uint64_t nodes; /* the nodes of every line taken */
    unsigned jobs, cold, windows, researches, bounces, max_flight, held;
    unsigned splits, stale;      /* jobs of the split (a reply after the eldest); lines of a split
                                    replaced meanwhile (refused, as kind.c does) */
    unsigned blind;              /* jobs told to start at their depth on a table without depth - 1 */
    uint64_t blind_nodes;        /* their nodes */
    double coord_cpu, rules_cpu; /* real CPU seconds: deepen.c, the rule engine (with copies) */
    double search_cpu;           /* real CPU seconds of the searches (the measured rate) */
    uint64_t searched;           /* nodes of every search started */
    double longest;              /* virtual seconds of the longest job (compute and round trip) */
    char best[8];
    int32_t score;
} outcome_t;

/* The position's root moves as search/kind.c plans them (the arbiter's order). */
typedef struct root {
    char fen[MAX_FEN];
    ply_arb_pos_t pos;
    char uci[PLY_ARB_MAX_MOVES][8];
    char *ucip[PLY_ARB_MAX_MOVES];
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    size_t n;
} root_t;

/* ------------------------------------------------------------- a worker's job */

/* ply_analysis_result_t's lines as the worker's SearchResult, packed (the wire). */
static uint8_t *pack_result(const ply_analysis_result_t *r, uint64_t time_us, size_t *len)
{
    static Ply__SearchLine line[PLY_SEARCH_JOB_MAX_MULTIPV];
    static char *pv[PLY_SEARCH_JOB_MAX_MULTIPV][PLY_SEARCH_MAX_PLY];
    Ply__SearchLine *lines[PLY_SEARCH_JOB_MAX_MULTIPV];
    int n = r->n_lines < PLY_SEARCH_JOB_MAX_MULTIPV ? r->n_lines : PLY_SEARCH_JOB_MAX_MULTIPV;
    for (int i = 0; i < n; i++) {
        const ply_analysis_line_t *l = &r->lines[i];
        line[i] = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        line[i].has_multipv = 1, line[i].multipv = (uint32_t)l->multipv;
        line[i].has_mate = l->is_mate, line[i].mate = l->score;
        line[i].has_score_cp = !l->is_mate, line[i].score_cp = l->score;
        line[i].has_bound = 1, line[i].bound = (uint32_t)l->bound;
        line[i].has_depth = 1, line[i].depth = (uint32_t)l->depth;
        line[i].has_seldepth = 1, line[i].seldepth = (uint32_t)l->seldepth;
        for (int k = 0; k < l->n_pv; k++) pv[i][k] = (char *)l->pv[k];
        line[i].n_pv = (size_t)l->n_pv, line[i].pv = pv[i];
        lines[i] = &line[i];
    }
    Ply__SearchResult sr = PLY__SEARCH_RESULT__INIT;
    sr.n_lines = (size_t)n, sr.lines = lines;
    sr.has_nodes = 1, sr.nodes = r->nodes;
    sr.has_time_us = 1, sr.time_us = time_us;
    sr.engine = (char *)"ply builtin (simulated)";
    *len = ply__search_result__get_packed_size(&sr);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (buf) ply__search_result__pack(&sr, buf);
    return buf;
}

/* A move's index in the per-move counters: a root move's, or a split's reply after them. */
static size_t key_of(const ply__deepen_job_t *job)
{
    return (job->split ? PLY_ARB_MAX_MOVES : 0) + job->move % PLY_ARB_MAX_MOVES;
}

/* Worker @w searches @job of @root now, as kind.c's SearchJob asks, done at @now + its time. */
static int run_job(worker_t *w, const root_t *root, const ply__deepen_t *d,
                   const ply__deepen_job_t *job, double now, outcome_t *o)
{
    const char *moves[PLY_ARB_MAX_MOVES], *history[1] = {w->prefix};
    size_t n_moves = ply__deepen_job_moves(d, job, moves);
    ply_analysis_job_t aj = {0};
    aj.fen = root->fen;
    if (w->prefix[0]) aj.moves = history, aj.n_moves = 1; /* a split's: the eldest played */
    aj.searchmoves = moves, aj.n_searchmoves = (int)n_moves;
    aj.depth = (int)job->depth;
    aj.multipv = job->whole ? (int)ply__deepen_multipv(d) : 1;
    aj.has_window = job->window, aj.alpha = job->alpha, aj.beta = job->beta;
    /* kind.c: a warm worker (the move's last) starts at depth - 1; its table may hold less
     * (it searched the move last, but shallower: a bounce's null window) */
    /* the moves it searches (every root move, its subset, or its move): blind when the
     * table holds one of them less deep than depth - 1 */
    int blind = 0, subset = 0;
    const size_t base = job->split ? PLY_ARB_MAX_MOVES : 0;
    for (size_t m = 0; m < PLY_ARB_MAX_MOVES; m++) subset |= (int)((job->set[m / 64] >> (m % 64)) & 1);
    for (size_t m = 0; m < PLY_ARB_MAX_MOVES; m++) {
        int in = job->whole ? m < root->n
                 : subset   ? (int)((job->set[m / 64] >> (m % 64)) & 1)
                            : m == job->move;
        if (!in) continue;
        blind |= job->start && w->deepest[base + m] + 1 < (int)job->depth;
        if (job->depth > w->deepest[base + m]) w->deepest[base + m] = (uint8_t)job->depth;
    }
    aj.start_depth = (int)job->start;
    ply_analysis_result_t *r = malloc(sizeof *r);
    char why[256];
    if (!r) return -1;
    double c0 = cpu_s();
    int rc = ply_analysis_run(w->an, &aj, r, why, sizeof why);
    o->search_cpu += cpu_s() - c0;
    if (rc < 0) {
        fprintf(stderr, "bench_deepen_sim: %s: %s to depth %u: %s\n", w->name, w->uci, job->depth,
                why);
        free(r);
        return -1;
    }
    double compute = (double)r->nodes / opt.rate;
    w->busy = 1, w->job = *job, w->start = now, w->done = now + compute + opt.latency_s;
    w->busy_s += compute;
    if (w->done - now > o->longest) o->longest = w->done - now;
    w->nodes = r->nodes;
    w->wire = pack_result(r, (uint64_t)(compute * 1e6), &w->wire_len);
    o->searched += r->nodes;
    if (blind) o->blind++, o->blind_nodes += r->nodes;
    free(r);
    return w->wire ? 0 : -1;
}

/* ------------------------------------------------------------- the coordinator's side */

/* kind.c's check of a deepening result (ply__deepen_check: the rule engine replays every
 * line), then each line's SAN, as the answer and the progress write it. 0 or -1. */
static int check_result(const ply__deepen_t *d, const ply__deepen_job_t *job,
                        const ply_arb_pos_t *pos, const Ply__SearchResult *r)
{
    char why[256];
    if (ply__deepen_check(d, job, r, why, sizeof why) < 0) {
        fprintf(stderr, "bench_deepen_sim: %s\n", why);
        return -1;
    }
    for (size_t k = 0; k < r->n_lines; k++) {
        char **san = NULL;
        if (ply__search_pv_san(pos, r->lines[k], &san) < 0) return -1;
        for (size_t i = 0; i < r->lines[k]->n_pv; i++) free(san[i]);
        free(san);
    }
    return 0;
}

/* Worker @w's line arrives at the coordinator: unpacked, checked, copied (kind.c's
 * deepen_take_result), taken. The iterations it completed, or -1. */
static int deliver(ply__deepen_t *d, const root_t *root, worker_t *w, outcome_t *o)
{
    double c0 = cpu_s();
    Ply__SearchResult *in = ply__search_result__unpack(NULL, w->wire_len, w->wire);
    free(w->wire), w->wire = NULL;
    w->busy = 0;
    ply_arb_pos_t pos;
    const char *prefix, *uci;
    const ply__deepen_job_t *dj = ply__deepen_job_of(d, w->slot);
    if (!dj || !ply__deepen_job_where(d, dj, &pos, &prefix, &uci)) { /* a split since replaced */
        if (in) ply__search_result__free_unpacked(in, NULL);
        ply__deepen_dropped(d, w->slot);
        o->stale++;
        o->rules_cpu += cpu_s() - c0;
        return 0;
    }
    if (!in || check_result(d, dj, &pos, in) < 0) {
        if (in) ply__search_result__free_unpacked(in, NULL);
        return -1;
    }
    size_t len = ply__search_result__get_packed_size(in);
    uint8_t *buf = malloc(len ? len : 1);
    Ply__SearchResult *own = NULL;
    if (buf) {
        ply__search_result__pack(in, buf);
        own = ply__search_result__unpack(NULL, len, buf);
        free(buf);
    }
    ply__search_result__free_unpacked(in, NULL);
    double c1 = cpu_s();
    o->rules_cpu += c1 - c0;
    if (!own) return -1;
    if (opt.trace)
        printf("    %9.3f s %-4s %5s %-6s d%-2u %-5s %s %6d %" PRIu64 " nodes\n", w->done, w->name,
               w->prefix, w->uci, w->job.depth, w->job.window ? "null" : "exact",
               !own->lines[0]->has_bound || own->lines[0]->bound == 0 ? "exact"
               : own->lines[0]->bound == 1                            ? "lower"
                                                                      : "upper",
               ply__deepen_score(own->lines[0]), w->nodes);
    int done =
        ply__deepen_take(d, w->slot, own, w->name, "sim", w->nodes, (uint64_t)(w->done * 1000.0));
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    o->coord_cpu += cpu_s() - c1;
    (void)root;
    return done;
}

/* ------------------------------------------------------------- one run */

/* Per move and depth: searches started, and the worker that searched the move last. */
typedef struct track {
    uint8_t starts[2 * PLY_ARB_MAX_MOVES][PLY_SEARCH_JOB_MAX_DEPTH + 2]; /* by key_of */
    int last[2 * PLY_ARB_MAX_MOVES];
} track_t;

/* Idle workers ask for jobs, @first first; each job picked is searched at once. 0 or -1. */
static int dispatch(ply__deepen_t *d, const root_t *root, worker_t *ws, int n, int first,
                    size_t *slot_used, double now, track_t *tr, outcome_t *o)
{
    for (int k = 0; k < n; k++) {
        int i = (first + k) % n;
        worker_t *w = &ws[i];
        if (w->busy) continue;
        ply__deepen_job_t job;
        double c0 = cpu_s();
        int ok = ply__deepen_pick(d, w->name, &job);
        /* the experiment (--hold-spec): an exact search at the speculative next depth (research:
         * only a move's search again, after its null window failed high against the last
         * iteration's threshold, a guess) waits until the iteration before it is complete; the
         * worker stays idle meanwhile */
        if (ok && opt.hold_spec && !job.window && job.depth > ply__deepen_depth(d) + 1 &&
            (opt.hold_spec == HOLD_EXACT || tr->starts[key_of(&job)][job.depth]))
            ok = 0, o->held++;
        size_t s = 0;
        if (ok) {
            while (s < PLY__DEEPEN_SLOTS(root->n) && slot_used[s]) s++;
            if (s == PLY__DEEPEN_SLOTS(
                         root->n)) { /* every slot computes: deepen.c never asks for more */
                o->coord_cpu += cpu_s() - c0;
                return 0;
            }
            ply__deepen_started(d, s, &job, w->name);
        }
        o->coord_cpu += cpu_s() - c0;
        if (!ok) continue;
        slot_used[s] = 1, w->slot = s;
        ply_arb_pos_t pos;
        const char *prefix = NULL, *uci = NULL;
        if (!ply__deepen_job_where(d, &job, &pos, &prefix, &uci)) return -1; /* just picked */
        snprintf(w->prefix, sizeof w->prefix, "%s", prefix ? prefix : "");
        snprintf(w->uci, sizeof w->uci, "%s", uci ? uci : "*"); /* *: a whole job */
        size_t key = key_of(&job);
        o->jobs++, o->cold += job.cold != 0, o->windows += job.window != 0;
        o->splits += job.split != 0;
        if (tr->starts[key][job.depth]++) o->researches++;
        if (tr->last[key] >= 0 && tr->last[key] != i) o->bounces++;
        tr->last[key] = i;
        if (opt.trace)
            printf("    %9.3f s %-4s takes %5s %-6s d%-2u %s%s [%d, %d]\n", now, w->name, w->prefix,
                   w->uci, job.depth, job.window ? "null" : "exact", job.cold ? " cold" : "",
                   (int)job.alpha, (int)job.beta);
        if (run_job(w, root, d, &job, now, o) < 0) return -1;
    }
    return 0;
}

static void simulate(const root_t *root, int n, outcome_t *o)
{
    memset(o, 0, sizeof *o);
    worker_t *ws = calloc((size_t)n, sizeof *ws);
    size_t *slot_used = calloc(PLY__DEEPEN_SLOTS(root->n), sizeof *slot_used);
    track_t *tr = calloc(1, sizeof *tr);
    ply__deepen_t *d = ply__deepen_new(&root->pos, root->ucip, root->n, (uint32_t)opt.multipv,
                                       (uint32_t)opt.depth);
    if (!ws || !slot_used || !tr || !d) goto out;
    if (opt.whole >= 0) ply__deepen_set_whole(d, (uint32_t)opt.whole);
    for (size_t m = 0; m < 2 * PLY_ARB_MAX_MOVES; m++) tr->last[m] = -1;
    for (int i = 0; i < n; i++) {
        snprintf(ws[i].name, sizeof ws[i].name, "w%d", i);
        if (!(ws[i].an = ply_analysis_builtin_new((size_t)opt.hash_mib, 1))) goto out;
    }
    double now = 0;
    int first = 0;
    while (ply__deepen_depth(d) < (uint32_t)opt.depth) {
        if (dispatch(d, root, ws, n, first, slot_used, now, tr, o) < 0) goto out;
        int next = -1, flight = 0;
        for (int i = 0; i < n; i++) {
            if (!ws[i].busy) continue;
            flight++;
            if (next < 0 || ws[i].done < ws[next].done) next = i;
        }
        if ((unsigned)flight > o->max_flight) o->max_flight = (unsigned)flight;
        if (next < 0) {
            fprintf(stderr, "bench_deepen_sim: stalled at depth %u: no job and none in flight\n",
                    ply__deepen_depth(d));
            goto out;
        }
        now = ws[next].done;
        slot_used[ws[next].slot] = 0;
        if (deliver(d, root, &ws[next], o) < 0) goto out;
        first = next; /* the worker whose line came asks first, as it is the one now idle */
    }
    /* the searches still in flight are cut at the end: their time so far counts as busy */
    for (int i = 0; i < n; i++) {
        if (ws[i].busy) {
            double compute = ws[i].done - ws[i].start - opt.latency_s;
            double cut = ws[i].done - now;
            ws[i].busy_s -= cut < compute ? cut : compute;
        }
        o->busy += ws[i].busy_s;
    }
    o->t = now;
    o->nodes = ply__deepen_nodes(d);
    Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
    ply__deepen_answer(d, &a);
    if (a.n_moves > 0) {
        ply_arb_move_t mv;
        snprintf(o->best, sizeof o->best, "%s", a.moves[0]->move);
        o->score = ply__deepen_score(a.moves[0]->line);
        ply_arb_pos_t pos = root->pos;
        o->ok = ply_arb_move_from_uci(&pos, o->best, &mv) == 0;
        if (!o->ok) fprintf(stderr, "bench_deepen_sim: the best move %s is illegal\n", o->best);
    }
out:
    for (int i = 0; ws && i < n; i++) {
        free(ws[i].wire);
        ply_analysis_destroy(&ws[i].an);
    }
    ply__deepen_free(&d);
    free(tr);
    free(slot_used);
    free(ws);
}

/* ------------------------------------------------------------- positions, options, report */

/* An EPD line's position (its four fields, clocks 0 1) and root moves into @r: 0, or -1 for a
 * position that is not legal or has no move. */
static int load_root(const char *line, root_t *r)
{
    char f[4][96];
    if (sscanf(line, "%95s %95s %95s %95s", f[0], f[1], f[2], f[3]) != 4) return -1;
    if (snprintf(r->fen, sizeof r->fen, "%s %s %s %s 0 1", f[0], f[1], f[2], f[3]) >=
        (int)sizeof r->fen)
        return -1; /* longer than any FEN */
    char why[128];
    if (ply_arb_from_fen(&r->pos, r->fen, 0, why, sizeof why) < 0) return -1;
    int n = ply_arb_legal_moves(&r->pos, r->moves);
    if (n <= 0) return -1;
    r->n = (size_t)n;
    for (size_t i = 0; i < r->n; i++) {
        ply_arb_move_to_uci(&r->pos, r->moves[i], r->uci[i]);
        r->ucip[i] = r->uci[i];
    }
    return 0;
}

static int parse_sizes(const char *s)
{
    opt.nsizes = 0;
    while (*s && opt.nsizes < MAX_SIZES) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > MAX_WORKERS) return -1;
        opt.sizes[opt.nsizes++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return opt.nsizes && opt.sizes[0] == 1 ? 0 : -1; /* speed-ups are against 1 worker */
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--trace") == 0) {
            opt.trace = 1;
            continue;
        }
        if (!v) return -1;
        i++;
        if (strcmp(a, "--depth") == 0)
            opt.depth = atoi(v);
        else if (strcmp(a, "--workers") == 0) {
            if (parse_sizes(v) < 0) return -1;
        } else if (strcmp(a, "--latency-ms") == 0)
            opt.latency_s = atof(v) / 1000.0;
        else if (strcmp(a, "--rate") == 0)
            opt.rate = atof(v);
        else if (strcmp(a, "--epd") == 0)
            opt.epd = v;
        else if (strcmp(a, "--every") == 0)
            opt.every = atoi(v);
        else if (strcmp(a, "--from") == 0)
            opt.from = atoi(v);
        else if (strcmp(a, "--limit") == 0)
            opt.limit = atoi(v);
        else if (strcmp(a, "--hash") == 0)
            opt.hash_mib = atoi(v);
        else if (strcmp(a, "--multipv") == 0)
            opt.multipv = atoi(v);
        else if (strcmp(a, "--whole") == 0)
            opt.whole = atoi(v);
        else if (strcmp(a, "--hold-spec") == 0) {
            opt.hold_spec = strcmp(v, "research") == 0 ? HOLD_RESEARCH
                            : strcmp(v, "exact") == 0  ? HOLD_EXACT
                                                       : -1;
            if (opt.hold_spec < 0) return -1;
        } else
            return -1;
    }
    return opt.depth >= 1 && opt.depth <= PLY_SEARCH_JOB_MAX_DEPTH && opt.latency_s >= 0 &&
                   opt.rate > 0 && opt.every >= 1 && opt.from >= 0 && opt.limit >= 0 &&
                   opt.hash_mib >= 1 && opt.multipv >= 1 && opt.whole >= -1
               ? 0
               : -1;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static double median(double *v, size_t n)
{
    if (!n) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Totals over the positions for one cluster size. */
typedef struct total {
    double t, busy, coord, rules, search_cpu, wsum, longest;
    uint64_t nodes, searched;
    unsigned jobs, cold, windows, researches, bounces, blind, splits, stale;
    uint64_t blind_nodes;
    double *speedups;
    size_t n;
} total_t;

static void add_total(total_t *t, const outcome_t *o, int n, double t1)
{
    t->t += o->t, t->busy += o->busy, t->coord += o->coord_cpu, t->rules += o->rules_cpu;
    t->search_cpu += o->search_cpu, t->wsum += o->t * n, t->longest += o->longest;
    t->nodes += o->nodes, t->searched += o->searched;
    t->jobs += o->jobs, t->cold += o->cold, t->windows += o->windows;
    t->researches += o->researches, t->bounces += o->bounces;
    t->blind += o->blind, t->blind_nodes += o->blind_nodes;
    t->splits += o->splits, t->stale += o->stale;
    t->speedups[t->n++] = t1 / o->t;
}

static void print_row(const char *label, int n, double t, double t1, double busy, double wsum,
                      uint64_t nodes, uint64_t nodes1, unsigned jobs, unsigned cold,
                      unsigned researches, unsigned bounces, double coord, double rules)
{
    printf("%-10s %4d %10.3f %7.2f %6.1f%% %13" PRIu64 " %6.2f %6u %6u %6u %6u %8.4f%% %8.4f%%\n",
           label, n, t, t1 / t, 100.0 * (1.0 - busy / wsum), nodes, (double)nodes / (double)nodes1,
           jobs, cold, researches, bounces, 100.0 * coord / t, 100.0 * (coord + rules) / t);
}

int main(int argc, char **argv)
{
    if (parse_args(argc, argv) < 0) {
        fprintf(stderr, "usage: bench_deepen_sim [--depth D] [--workers 1,N,...] [--latency-ms L] "
                        "[--rate NODES_PER_S] [--epd FILE] [--every K] [--from I] [--limit N] "
                        "[--hash MIB] [--multipv K] [--whole D] [--trace] "
                        "[--hold-spec research|exact]\n");
        return 2;
    }
    FILE *f = fopen(opt.epd, "r");
    if (!f) {
        perror(opt.epd);
        return 2;
    }
    total_t tot[MAX_SIZES] = {0};
    for (int s = 0; s < opt.nsizes; s++) tot[s].speedups = calloc(4096, sizeof(double));
    printf("depth %d, multipv %d, workers of 1 thread and %d MiB, R = %.0f nodes/s, L = %.3f ms, "
           "%s every %d from %d%s\n",
           opt.depth, opt.multipv, opt.hash_mib, opt.rate, opt.latency_s * 1000.0, opt.epd,
           opt.every, opt.from,
           opt.hold_spec == HOLD_EXACT      ? "; experiment: --hold-spec exact"
           : opt.hold_spec == HOLD_RESEARCH ? "; experiment: --hold-spec research"
                                            : "");
    const char *head = "%-10s %4s %10s %7s %7s %13s %6s %6s %6s %6s %6s %9s %9s\n";
    printf(head, "position", "N", "t (s)", "speedup", "idle", "nodes", "x N=1", "jobs", "cold",
           "again", "moved", "deepen", "coord");
    char line[4096];
    int index = 0, done = 0, bad = 0;
    while (fgets(line, sizeof line, f) && (!opt.limit || done < opt.limit) && done < 4096) {
        if (index++ % opt.every || index - 1 < opt.from) continue;
        root_t *root = calloc(1, sizeof *root);
        if (!root || load_root(line, root) < 0) {
            free(root);
            continue;
        }
        char label[16];
        snprintf(label, sizeof label, "#%d", index);
        double t1 = 0;
        uint64_t nodes1 = 1;
        for (int s = 0; s < opt.nsizes; s++) {
            outcome_t o;
            simulate(root, opt.sizes[s], &o);
            if (!o.ok) {
                printf("%-10s %4d failed\n", label, opt.sizes[s]);
                bad = 1;
                continue;
            }
            if (s == 0) t1 = o.t, nodes1 = o.nodes ? o.nodes : 1;
            add_total(&tot[s], &o, opt.sizes[s], t1);
            print_row(label, opt.sizes[s], o.t, t1, o.busy, o.t * opt.sizes[s], o.nodes, nodes1,
                      o.jobs, o.cold, o.researches, o.bounces, o.coord_cpu, o.rules_cpu);
            printf("%-10s      best %s %d cp, %zu root moves, at most %u in flight, longest job "
                   "%.3f s (%.0f%% of t), %u split jobs, %u stale, %u held, %u blind (%" PRIu64
                   " nodes), %.0f nodes/s measured\n",
                   "", o.best, o.score, root->n, o.max_flight, o.longest, 100.0 * o.longest / o.t,
                   o.splits, o.stale, o.held, o.blind, o.blind_nodes,
                   (double)o.searched / o.search_cpu);
        }
        fflush(stdout);
        free(root);
        done++;
    }
    fclose(f);
    printf("\ntotals over %d positions (speed-up of the summed times; median of the positions' "
           "speed-ups)\n",
           done);
    printf(head, "", "N", "t (s)", "speedup", "idle", "nodes", "x N=1", "jobs", "cold", "again",
           "moved", "deepen", "coord");
    for (int s = 0; s < opt.nsizes && done; s++) {
        const total_t *t = &tot[s];
        print_row("total", opt.sizes[s], t->t, tot[0].t, t->busy, t->wsum, t->nodes, tot[0].nodes,
                  t->jobs, t->cold, t->researches, t->bounces, t->coord, t->rules);
        printf("%-10s      median speed-up %.2f; longest jobs %.0f%% of t; %u split jobs, %u "
               "stale; %u blind jobs (%.1f%% of the nodes); coordinator %.1f us a job (deepen.c "
               "%.1f); searches %.0f nodes/s measured\n",
               "", median(tot[s].speedups, tot[s].n), 100.0 * t->longest / t->t, t->splits,
               t->stale, t->blind, 100.0 * (double)t->blind_nodes / (double)t->searched,
               1e6 * (t->coord + t->rules) / t->jobs, 1e6 * t->coord / t->jobs,
               (double)t->searched / t->search_cpu);
    }
    for (int s = 0; s < opt.nsizes; s++) free(tot[s].speedups);
    return bad || !done;
}
