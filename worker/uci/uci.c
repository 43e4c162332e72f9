/*
 * The UCI loop (uci.h): an input thread that parses and executes commands,
 * and at most one job thread at a time that runs a `go` (a search, or a
 * perft) and writes its info lines and its one bestmove.
 *
 * Invariants: u->job is written by the input thread only while no job
 * thread runs (it is read-only for both threads while one does); u->result
 * and u->perft belong to the job thread; every output line is written and
 * flushed whole under out_lock; a started job is joined exactly once (finish
 * or reap), so each `go` that starts a search writes exactly one bestmove.
 *
 * The search is the backend's (uci_backend.h: ply's engine, or a cluster).
 * Stops and ponderhits reach it only while the job thread is inside its
 * search (in_search, under lock). A backend keeps a stop that arrives
 * between searches for the next one (as ply_engine_stop), so a stop that
 * raced with the end of a search (after the backend cleared its flag, before
 * the job thread saw it return) would cut the next `go` short: under the same
 * lock the job thread clears in_search and calls the backend's clear_stop
 * when the search returns, and only then (busy cleared: the backend is idle
 * and setoption applies at once) writes the bestmove. A ponderhit is not
 * kept by ply's engine, so one that came before the search began pondering
 * is given again at the first info callback (within depth 1).
 */
#include "uci.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perft.h"
#include "search.h"
#include "tt.h"
#include "uci_backend.h"
#include "util/error.h"

/* Move Overhead's default and range as Stockfish 15.1's. */
#define OVERHEAD_DEFAULT 10
#define OVERHEAD_MAX     5000
#define PERFT_TT_MIB     16
#define FEN_MAX          256
#define OPTION_TEXT_MAX 4096 /* longest string option value, bytes (a path) */

enum { JOB_SEARCH, JOB_PERFT };

/* A position command as the GUI wrote it (a backend may want the moves, not just the
 * root): the FEN, and the moves in one buffer. */
typedef struct pos_text {
    char fen[FEN_MAX];
    char *buf;    /* the moves' text, NUL-separated (owned) */
    char **moves; /* into buf (owned) */
    int n_moves;
    int chess960;
} pos_text_t;

typedef struct job {
    int kind;
    int perft_depth;
    int mate; /* go mate N: stop once a mate in at most N moves is found (0: none) */
    ply_search_pos_t pos;
    ply_search_limits_t lim;
} job_t;

typedef struct uci {
    FILE *in, *out;
    pthread_mutex_t out_lock; /* one writer at a time, whole lines */
    pthread_mutex_t lock;     /* busy, in_search, and the waits below */
    pthread_cond_t cond;      /* signalled on stop and ponderhit requests */
    int started;              /* a job thread exists and is not joined (input thread only) */
    int busy;                 /* the job uses the engine or the options (under lock) */
    int in_search;            /* the job thread is in the backend's search (under lock) */
    int first_info;           /* no info callback yet in this job (job thread only) */
    _Atomic int stop_req;     /* stop (or quit) asked for the running job */
    _Atomic int ponderhit_req;
    _Atomic int perft_cancel;
    pthread_t thread;
    ply_uci_backend_t *backend;
    int perft_threads; /* the backend's Threads option, else 1 */
    int multipv, chess960, overhead_ms, ponder;
    ply_search_pos_t pos;          /* the position the next go searches */
    ply_search_pos_t tmp;          /* a position command parsed here, kept only when valid */
    pos_text_t pos_text, tmp_text; /* the same as written */
    pos_text_t job_text;           /* the running (or last) job's, as job */
    char no_pos[320]; /* why the last position command was rejected ("": pos is valid) */
    job_t job;        /* the running (or last) job */
    job_t next;       /* a go being parsed: it replaces job only when valid */
    ply_search_result_t result;
    ply_perft_result_t perft;
} uci_t;

/* ---- output ----------------------------------------------------------------------- */

typedef struct sbuf {
    char s[4096];
    size_t n;
} sbuf_t;

static void __attribute__((format(printf, 2, 3))) sb_add(sbuf_t *b, const char *fmt, ...)
{
    if (b->n >= sizeof b->s - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (k > 0) b->n += (size_t)k < sizeof b->s - b->n ? (size_t)k : sizeof b->s - 1 - b->n;
}

/* Write one line; the caller holds out_lock. */
static void emit(uci_t *u, const char *line)
{
    fputs(line, u->out);
    fputc('\n', u->out);
    fflush(u->out);
}

static void __attribute__((format(printf, 2, 3))) say(uci_t *u, const char *fmt, ...)
{
    sbuf_t b;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b.s, sizeof b.s, fmt, ap); /* truncated: an info string, never a move */
    va_end(ap);
    pthread_mutex_lock(&u->out_lock);
    emit(u, b.s);
    pthread_mutex_unlock(&u->out_lock);
}

/* @s as it may be quoted back in an info string: printable ASCII, at most 40 bytes. */
static const char *quote(const char *s, char *buf, size_t len)
{
    size_t i = 0, max = len < 44 ? len - 4 : 40;
    for (; s[i] && i < max; i++) buf[i] = s[i] >= ' ' && s[i] < 127 ? s[i] : '?';
    if (s[i]) buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
    buf[i] = 0;
    return buf;
}

/* Append " pv m1 m2 ..." for @pv from @root, stopping at the first move that
 * is not legal (a search bug must not make us print a wrong line). */
static void add_pv(sbuf_t *b, const ply_board_t *root, const ply_move_t *pv, int n)
{
    ply_board_t pos = *root;
    ply_move_t legal[PLY_MAX_MOVES];
    for (int i = 0; i < n; i++) {
        int nl = ply_board_legal_moves(&pos, legal), ok = 0;
        for (int k = 0; k < nl && !ok; k++) ok = legal[k] == pv[i];
        if (!ok) break;
        char mv[8];
        ply_board_move_to_uci(&pos, pv[i], mv);
        sb_add(b, "%s%s", i ? " " : " pv ", mv);
        ply_board_play(&pos, pv[i]);
    }
}

static void add_score(sbuf_t *b, const ply_search_line_t *l)
{
    if (ply_score_is_mate(l->score))
        sb_add(b, " score mate %d", ply_score_mate_moves(l->score));
    else
        sb_add(b, " score cp %d", l->score);
    if (l->bound == PLY_BOUND_LOWER) sb_add(b, " lowerbound");
    if (l->bound == PLY_BOUND_UPPER) sb_add(b, " upperbound");
}

/* One "info depth ..." line. The time is rounded up to 1 ms, as Stockfish
 * 15.1 does, so that nps is always nodes over the time printed; a hashfull
 * below 0 (a backend that does not know it) is left out. */
static void info_line(sbuf_t *b, const ply_board_t *root, int multipv, const ply_search_line_t *l,
                      uint64_t nodes, int64_t time_ms, int hashfull)
{
    int64_t t = time_ms > 0 ? time_ms : 1;
    b->n = 0;
    b->s[0] = 0;
    sb_add(b, "info depth %d seldepth %d multipv %d", l->depth, l->seldepth, multipv);
    add_score(b, l);
    sb_add(b, " nodes %" PRIu64 " nps %" PRIu64, nodes,
           (uint64_t)((double)nodes * 1000.0 / (double)t));
    if (hashfull >= 0) sb_add(b, " hashfull %d", hashfull);
    sb_add(b, " time %" PRId64, t);
    add_pv(b, root, l->pv, l->n_pv);
}

/* ---- the job thread --------------------------------------------------------------- */

static void request_stop(uci_t *u);

static void on_info(const ply_search_info_t *info, void *arg)
{
    uci_t *u = arg;
    if (u->first_info) { /* a ponderhit that came before the search began (see the top) */
        u->first_info = 0;
        if (atomic_load(&u->ponderhit_req)) u->backend->ops->ponderhit(u->backend);
    }
    sbuf_t b;
    info_line(&b, &u->job.pos.root, info->multipv, info->line, info->nodes, info->time_ms,
              info->hashfull);
    pthread_mutex_lock(&u->out_lock);
    emit(u, b.s);
    pthread_mutex_unlock(&u->out_lock);
    const ply_search_line_t *l = info->line;
    int m = ply_score_mate_moves(l->score);
    if (u->job.mate && info->multipv == 1 && ply_score_is_mate(l->score) && m > 0 &&
        m <= u->job.mate && l->bound != PLY_BOUND_UPPER)
        request_stop(u); /* go mate N: found */
}

static void on_note(const char *text, void *arg)
{
    say(arg, "info string %s", text);
}

static int is_legal(const ply_board_t *b, ply_move_t m)
{
    ply_move_t legal[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, legal);
    for (int i = 0; i < n; i++)
        if (legal[i] == m) return 1;
    return 0;
}

static void run_search(uci_t *u)
{
    const job_t *j = &u->job;
    const ply_uci_backend_ops_t *ops = u->backend->ops;
    ply_search_result_t *r = &u->result;
    memset(r, 0, sizeof *r);
    u->first_info = 1;
    ply_uci_go_t go = {.fen = u->job_text.fen,
                       .moves = (const char *const *)u->job_text.moves,
                       .n_moves = u->job_text.n_moves,
                       .chess960 = u->job_text.chess960,
                       .pos = &j->pos,
                       .lim = &j->lim,
                       .note = on_note};
    char why[512] = "";
    pthread_mutex_lock(&u->lock);
    u->in_search = 1;
    if (atomic_load(&u->stop_req)) ops->stop(u->backend);
    pthread_mutex_unlock(&u->lock);
    int rc = ops->search(u->backend, &go, on_info, u, r, why, sizeof why);
    pthread_mutex_lock(&u->lock);
    u->in_search = 0;
    ops->clear_stop(u->backend); /* no stop left for the next go (see the top) */
    /* "infinite": do not write bestmove before stop; pondering: before ponderhit */
    while (!atomic_load(&u->stop_req) &&
           (j->lim.infinite || (j->lim.ponder && !atomic_load(&u->ponderhit_req))))
        pthread_cond_wait(&u->cond, &u->lock);
    u->busy = 0; /* idle from the bestmove on: the rest uses neither engine nor options */
    pthread_mutex_unlock(&u->lock);

    const ply_board_t *root = &j->pos.root;
    ply_move_t legal[PLY_MAX_MOVES];
    int nl = ply_board_legal_moves(root, legal);
    sbuf_t b;
    pthread_mutex_lock(&u->out_lock);
    if (rc < 0) {
        snprintf(b.s, sizeof b.s, "info string the search failed (%s)",
                 why[0] ? why : ply_strerror(rc));
        emit(u, b.s);
    }
    for (int i = 0; i < r->n_lines && rc == 0; i++) {
        info_line(&b, root, i + 1, &r->lines[i], r->nodes, r->time_ms, r->hashfull);
        emit(u, b.s);
    }
    ply_move_t best = r->best;
    if (nl > 0 && (!best || !is_legal(root, best))) {
        /* never expected: say so, and still answer with a legal move */
        best = j->lim.n_searchmoves ? j->lim.searchmoves[0] : legal[0];
        if (rc == 0)
            emit(u, "info string the search returned no legal best move; playing the "
                    "first legal move unsearched");
    }
    char bm[8] = "0000", pm[8] = "";
    if (nl > 0) {
        ply_board_move_to_uci(root, best, bm);
        ply_board_t after = *root;
        ply_board_play(&after, best);
        if (r->ponder && best == r->best && is_legal(&after, r->ponder))
            ply_board_move_to_uci(&after, r->ponder, pm);
    }
    snprintf(b.s, sizeof b.s, "bestmove %s%s%s", bm, *pm ? " ponder " : "", pm);
    emit(u, b.s);
    pthread_mutex_unlock(&u->out_lock);
}

static void run_perft(uci_t *u)
{
    ply_tt_t *tt = ply_tt_new((size_t)PERFT_TT_MIB << 20, 1);
    ply_perft_opts_t o = {0};
    o.threads = u->perft_threads;
    o.tt = tt;
    o.divide = 1;
    o.cancel = &u->perft_cancel;
    ply_perft_result_t *r = &u->perft;
    int rc = ply_perft_run(&u->job.pos.root, u->job.perft_depth, &o, r);
    ply_tt_destroy(&tt);
    if (rc == PLY_ECANCELED) {
        say(u, "info string perft stopped before the end: no count");
        return;
    }
    if (rc < 0) {
        say(u, "info string perft failed (%s)", ply_strerror(rc));
        return;
    }
    pthread_mutex_lock(&u->out_lock);
    for (int i = 0; i < r->ndivide; i++) {
        char mv[8], line[64];
        ply_board_move_to_uci(&u->job.pos.root, r->divide[i].move, mv);
        snprintf(line, sizeof line, "%s: %" PRIu64, mv, r->divide[i].nodes);
        emit(u, line);
    }
    char line[64];
    snprintf(line, sizeof line, "\nNodes searched: %" PRIu64 "\n", r->nodes);
    emit(u, line);
    pthread_mutex_unlock(&u->out_lock);
}

static void *job_main(void *arg)
{
    uci_t *u = arg;
    if (u->job.kind == JOB_SEARCH) {
        run_search(u); /* which clears busy */
        return NULL;
    }
    run_perft(u);
    pthread_mutex_lock(&u->lock);
    u->busy = 0;
    pthread_mutex_unlock(&u->lock);
    return NULL;
}

/* ---- job control (input thread) ---------------------------------------------------- */

static int job_busy(uci_t *u)
{
    pthread_mutex_lock(&u->lock);
    int b = u->busy;
    pthread_mutex_unlock(&u->lock);
    return b;
}

static void request_stop(uci_t *u)
{
    pthread_mutex_lock(&u->lock);
    atomic_store(&u->stop_req, 1);
    atomic_store(&u->perft_cancel, 1);
    if (u->in_search) u->backend->ops->stop(u->backend);
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->lock);
}

/* Join a job thread that has finished on its own. */
static void reap(uci_t *u)
{
    if (u->started && !job_busy(u)) {
        pthread_join(u->thread, NULL);
        u->started = 0;
    }
}

/* End the running job (if any), stopping it unless @let_finish, and join it. */
static void finish(uci_t *u, int let_finish)
{
    if (!u->started) return;
    if (!let_finish) request_stop(u);
    pthread_join(u->thread, NULL);
    u->started = 0;
}

static void start_job(uci_t *u)
{
    atomic_store(&u->stop_req, 0);
    atomic_store(&u->ponderhit_req, 0);
    atomic_store(&u->perft_cancel, 0);
    u->busy = 1;
    if (pthread_create(&u->thread, NULL, job_main, u) != 0) {
        u->busy = 0;
        say(u, "info string cannot start the search thread; go ignored");
        return;
    }
    u->started = 1;
}

/* ---- commands --------------------------------------------------------------------- */

static void option_line(uci_t *u, const ply_uci_option_t *o)
{
    char line[160];
    if (o->type == PLY_UCI_OPTION_BUTTON)
        snprintf(line, sizeof line, "option name %s type button", o->name);
    else if (o->type == PLY_UCI_OPTION_CHECK)
        snprintf(line, sizeof line, "option name %s type check default %s", o->name,
                 o->def ? "true" : "false");
    else if (o->type == PLY_UCI_OPTION_STRING)
        snprintf(line, sizeof line, "option name %s type string default %s", o->name,
                 o->def_text && *o->def_text ? o->def_text : "<empty>");
    else
        snprintf(line, sizeof line,
                 "option name %s type spin default %" PRId64 " min %" PRId64 " max %" PRId64,
                 o->name, o->def, o->min, o->max);
    emit(u, line);
}

/* The options: the backend's spins, the loop's, the backend's buttons, Ponder (for ply's
 * engine: Hash, Threads, MultiPV, UCI_Chess960, Move Overhead, Clear Hash, Ponder). */
static void cmd_uci(uci_t *u)
{
    const ply_uci_backend_ops_t *ops = u->backend->ops;
    char id[128];
    snprintf(id, sizeof id, "id name %s " PLY_VERSION, ops->id_name);
    pthread_mutex_lock(&u->out_lock);
    emit(u, id);
    emit(u, "id author the ply developers");
    for (int i = 0; i < ops->n_options; i++)
        if (ops->options[i].type != PLY_UCI_OPTION_BUTTON) option_line(u, &ops->options[i]);
    emit(u, "option name MultiPV type spin default 1 min 1 max 64");
    emit(u, "option name UCI_Chess960 type check default false");
    emit(u, "option name Move Overhead type spin default 10 min 0 max 5000");
    for (int i = 0; i < ops->n_options; i++)
        if (ops->options[i].type == PLY_UCI_OPTION_BUTTON) option_line(u, &ops->options[i]);
    emit(u, "option name Ponder type check default false");
    emit(u, "uciok");
    pthread_mutex_unlock(&u->out_lock);
}

/* A whole decimal number in [lo, hi] (an optional '-' only when lo < 0). */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s) return -1;
    int neg = *s == '-';
    const char *p = s + neg;
    if (!*p) return -1;
    uint64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        if (v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (uint64_t)INT64_MAX) return -1;
    int64_t x = neg ? -(int64_t)v : (int64_t)v;
    if (x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    if (s && !strcasecmp(s, "true")) return *out = 1, 0;
    if (s && !strcasecmp(s, "false")) return *out = 0, 0;
    return -1;
}

/* The backend's option called @name, or NULL. */
static const ply_uci_option_t *backend_option(const uci_t *u, const char *name)
{
    const ply_uci_backend_ops_t *ops = u->backend->ops;
    for (int i = 0; i < ops->n_options; i++)
        if (!strcasecmp(name, ops->options[i].name)) return &ops->options[i];
    return NULL;
}

/* setoption of a backend's option @o (as the GUI wrote it: @name): a spin's value checked,
 * a check's true or false, a string's words (@text, joined) as they are; refused during a
 * search. What the backend has to say on success is an info string too. */
static void set_backend_option(uci_t *u, const ply_uci_option_t *o, const char *name, const char *v,
                               int nv, const char *text)
{
    char q[48], why[1024] = "";
    int64_t x = 0;
    if (job_busy(u)) {
        say(u, "info string setoption: %s cannot change during a search; ignored", name);
        return;
    }
    if (o->type == PLY_UCI_OPTION_BUTTON && nv >= 0) {
        say(u, "info string setoption: %s is a button and takes no value; ignored", o->name);
        return;
    }
    if (o->type == PLY_UCI_OPTION_SPIN && parse_int(v, o->min, o->max, &x)) {
        say(u,
            "info string setoption: %s needs a whole number %" PRId64 "..%" PRId64
            ", got '%s'; ignored",
            name, o->min, o->max,
            v        ? quote(v, q, sizeof q)
            : nv > 1 ? "several words"
                     : "nothing");
        return;
    }
    if (o->type == PLY_UCI_OPTION_CHECK) {
        int flag;
        if (parse_bool(v, &flag)) {
            say(u, "info string setoption: %s needs true or false, got '%s'; ignored", name,
                v        ? quote(v, q, sizeof q)
                : nv > 1 ? "several words"
                         : "nothing");
            return;
        }
        x = flag;
    }
    const int rc = o->type == PLY_UCI_OPTION_STRING
                       ? u->backend->ops->set_text(u->backend, o, text, why, sizeof why)
                       : u->backend->ops->set_option(u->backend, o, x, why, sizeof why);
    if (rc < 0) {
        say(u, "info string setoption: %s", why);
        return;
    }
    if (why[0]) say(u, "info string %s", why);
    if (!strcasecmp(o->name, "Threads")) u->perft_threads = (int)x;
}

static void cmd_setoption(uci_t *u, char **tok, int n)
{
    char name[128] = "", q[48];
    int i = 1, nv = -1;
    if (n < 3 || strcmp(tok[1], "name")) {
        say(u, "info string setoption: expected 'setoption name NAME [value VALUE]'; ignored");
        return;
    }
    size_t len = 0;
    for (i = 2; i < n && strcmp(tok[i], "value"); i++) {
        int k = snprintf(name + len, sizeof name - len, "%s%s", len ? " " : "", tok[i]);
        if (k < 0 || (size_t)k >= sizeof name - len) break;
        len += (size_t)k;
    }
    if (i < n && !strcmp(tok[i], "value")) nv = n - i - 1;
    const char *v = nv == 1 ? tok[i + 1] : NULL;
    int64_t x;
    int flag;
    const ply_uci_option_t *own = backend_option(u, name);
    if (own) {
        /* a string's value: its words joined by one space; "<empty>" is the empty string */
        char text[OPTION_TEXT_MAX] = "";
        size_t tl = 0;
        for (int k = i + 1; own->type == PLY_UCI_OPTION_STRING && k < n; k++) {
            int w = snprintf(text + tl, sizeof text - tl, "%s%s", tl ? " " : "", tok[k]);
            if (w < 0 || (size_t)w >= sizeof text - tl) {
                say(u, "info string setoption: %s's value is longer than %d bytes; ignored",
                    name, OPTION_TEXT_MAX - 1);
                return;
            }
            tl += (size_t)w;
        }
        if (!strcmp(text, "<empty>")) text[0] = 0;
        set_backend_option(u, own, name, v, nv, text);
        return;
    }
    int spin = !strcasecmp(name, "MultiPV") || !strcasecmp(name, "Move Overhead");
    int check = !strcasecmp(name, "UCI_Chess960") || !strcasecmp(name, "Ponder");
    if (!spin && !check) {
        say(u, "info string setoption: no option named '%s' (see the uci command); ignored",
            quote(name, q, sizeof q));
        return;
    }
    if (spin) {
        int multipv = !strcasecmp(name, "MultiPV");
        int64_t lo = multipv ? 1 : 0, hi = multipv ? PLY_SEARCH_MAX_MULTIPV : OVERHEAD_MAX;
        if (parse_int(v, lo, hi, &x)) {
            say(u,
                "info string setoption: %s needs a whole number %" PRId64 "..%" PRId64
                ", got '%s'; ignored",
                name, lo, hi,
                v        ? quote(v, q, sizeof q)
                : nv > 1 ? "several words"
                         : "nothing");
            return;
        }
        if (multipv)
            u->multipv = (int)x;
        else
            u->overhead_ms = (int)x;
        return;
    }
    if (parse_bool(v, &flag)) {
        say(u, "info string setoption: %s needs true or false, got '%s'; ignored", name,
            v        ? quote(v, q, sizeof q)
            : nv > 1 ? "several words"
                     : "nothing");
        return;
    }
    if (!strcasecmp(name, "UCI_Chess960"))
        u->chess960 = flag;
    else
        u->ponder = flag;
}

static void pos_text_free(pos_text_t *t)
{
    free(t->buf);
    free(t->moves);
    t->buf = NULL, t->moves = NULL, t->n_moves = 0;
}

/* @t = @fen and its @n moves as written; 0 or PLY_ENOMEM (then @t is empty). */
static int pos_text_set(pos_text_t *t, const char *fen, const char *const *moves, int n,
                        int chess960)
{
    pos_text_free(t);
    snprintf(t->fen, sizeof t->fen, "%s", fen);
    t->chess960 = chess960;
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(moves[i]) + 1;
    t->buf = malloc(len);
    t->moves = malloc(((size_t)n + 1) * sizeof *t->moves);
    if (!t->buf || !t->moves) {
        pos_text_free(t);
        return PLY_ENOMEM;
    }
    char *w = t->buf;
    for (int i = 0; i < n; i++) {
        size_t k = strlen(moves[i]) + 1;
        memcpy(w, moves[i], k);
        t->moves[i] = w;
        w += k;
    }
    t->n_moves = n;
    return 0;
}

/* Parse "position ..." into u->tmp; 0, or -1 with what was wrong in @err. */
static int parse_position(uci_t *u, char **tok, int n, char *err, size_t len)
{
    char fen[FEN_MAX] = "startpos", why[256], q[48];
    int i;
    if (n >= 2 && !strcmp(tok[1], "startpos")) {
        i = 2;
    } else if (n >= 2 && !strcmp(tok[1], "fen")) {
        size_t fl = 0;
        for (i = 2; i < n && strcmp(tok[i], "moves"); i++) {
            int k = snprintf(fen + fl, sizeof fen - fl, "%s%s", fl ? " " : "", tok[i]);
            if (k < 0 || (size_t)k >= sizeof fen - fl) {
                snprintf(err, len, "the FEN is longer than %d bytes", FEN_MAX - 1);
                return -1;
            }
            fl += (size_t)k;
        }
        if (fl == 0) {
            snprintf(err, len, "'fen' needs a FEN");
            return -1;
        }
    } else {
        snprintf(err, len, "expected 'startpos' or 'fen FEN', got '%s'",
                 n >= 2 ? quote(tok[1], q, sizeof q) : "nothing");
        return -1;
    }
    if (i < n && strcmp(tok[i], "moves")) {
        snprintf(err, len, "expected 'moves' after the position, got '%s'",
                 quote(tok[i], q, sizeof q));
        return -1;
    }
    const char *const *moves = (const char *const *)(i < n ? tok + i + 1 : tok + n);
    int nm = i < n ? n - i - 1 : 0;
    int rc = ply_search_pos_set(&u->tmp, fen, u->chess960, moves, nm, why, sizeof why);
    if (rc < 0) {
        snprintf(err, len, "%s%s",
                 rc == PLY_EFEN || (rc == PLY_EILLEGAL && nm == 0) ? "bad FEN: " : "", why);
        return -1;
    }
    if (pos_text_set(&u->tmp_text, fen, moves, nm, u->chess960) < 0) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    return 0;
}

/* A rejected position leaves none: the GUI's idea of the position is not
 * ours, so until a valid one comes every go answers bestmove 0000. */
static void cmd_position(uci_t *u, char **tok, int n)
{
    char err[sizeof u->no_pos];
    if (parse_position(u, tok, n, err, sizeof err) < 0) {
        say(u, "info string position: %s; no position until a valid one", err);
        snprintf(u->no_pos, sizeof u->no_pos, "%s", err);
        return;
    }
    u->pos = u->tmp;
    pos_text_t t = u->pos_text; /* swapped: the old one's buffers are reused or freed later */
    u->pos_text = u->tmp_text;
    u->tmp_text = t;
    u->no_pos[0] = 0;
}

static int is_go_keyword(const char *s)
{
    static const char *const kw[] = {"depth", "nodes",       "movetime",  "wtime",    "btime",
                                     "winc",  "binc",        "movestogo", "infinite", "ponder",
                                     "perft", "searchmoves", "mate"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (!strcmp(s, kw[i])) return 1;
    return 0;
}

/* Parse "go ..." into u->next. A word that is not a parameter, or a bad
 * value, is named in an info string and ignored (its value skipped when it is
 * not a parameter itself); the rest of the go stands, but a go whose every
 * limit was bad searches depth 1: a GUI that sent "go movetime -1" waits for a
 * bestmove, not for an endless search it never asked for. Returns 0, or 1 when
 * searchmoves left no legal move (the go is then answered with bestmove 0000). */
static int parse_go(uci_t *u, char **tok, int n)
{
    job_t *j = &u->next;
    ply_search_limits_t *l = &j->lim;
    char q[48], q2[48];
    ply_search_limits_init(l);
    l->multipv = u->multipv;
    l->overhead_ms = u->overhead_ms;
    j->kind = JOB_SEARCH;
    j->perft_depth = 0;
    j->mate = 0;
    int perft = 0, other = 0, searchmoves = 0, anybad = 0;
    for (int i = 1; i < n; i++) {
        const char *k = tok[i], *v = i + 1 < n ? tok[i + 1] : NULL;
        int64_t x = 0;
        int bad = 0;
        if (!strcmp(k, "infinite")) {
            l->infinite = 1, other = 1;
            continue;
        }
        if (!strcmp(k, "ponder")) {
            l->ponder = 1, other = 1;
            continue;
        }
        if (!strcmp(k, "searchmoves")) {
            other = 1, searchmoves = 1;
            for (; i + 1 < n && !is_go_keyword(tok[i + 1]); i++) {
                ply_move_t m;
                if (ply_board_move_from_uci(&u->pos.root, tok[i + 1], &m) < 0)
                    say(u, "info string go: searchmoves '%s' is not a legal move here; ignored",
                        quote(tok[i + 1], q, sizeof q));
                else if (l->n_searchmoves < PLY_MAX_MOVES)
                    l->searchmoves[l->n_searchmoves++] = m;
            }
            continue;
        }
        if (!is_go_keyword(k)) {
            say(u, "info string go: unknown parameter '%s'; ignored", quote(k, q, sizeof q));
            anybad = 1;
            continue;
        }
        if (!strcmp(k, "depth")) {
            bad = parse_int(v, 0, PLY_SEARCH_MAX_DEPTH, &x);
            if (!bad && x == 0) say(u, "info string go: depth 0 is searched as depth 1");
            if (!bad) l->depth = x ? (int)x : 1;
        } else if (!strcmp(k, "nodes"))
            bad = parse_u64(v, &l->nodes) || l->nodes == 0;
        else if (!strcmp(k, "movetime"))
            bad = parse_int(v, 0, INT64_MAX / 4, &l->movetime_ms);
        else if (!strcmp(k, "wtime") || !strcmp(k, "btime")) {
            /* some GUIs send a negative clock when the side is late: it has no time */
            bad = parse_int(v, INT64_MIN / 4, INT64_MAX / 4, &x);
            if (!bad) l->time_ms[k[0] == 'b'] = x < 0 ? 0 : x;
        } else if (!strcmp(k, "winc") || !strcmp(k, "binc")) {
            bad = parse_int(v, INT64_MIN / 4, INT64_MAX / 4, &x);
            if (!bad) l->inc_ms[k[0] == 'b'] = x < 0 ? 0 : x;
        } else if (!strcmp(k, "movestogo")) {
            bad = parse_int(v, 0, 1000000, &x);
            if (!bad) l->movestogo = (int)x;
        } else if (!strcmp(k, "mate")) {
            bad = parse_int(v, 1, PLY_SEARCH_MAX_DEPTH, &x);
            if (!bad) j->mate = (int)x;
        } else {
            bad = parse_int(v, 1, PLY_TT_MAX_DEPTH, &x);
            if (!bad) j->perft_depth = (int)x, perft = 1;
        }
        if (bad) {
            anybad = 1;
            if (!strcmp(k, "nodes")) l->nodes = 0;
            say(u, "info string go: %s needs %s, got '%s'; ignored", k,
                !strcmp(k, "depth")   ? "a whole number 0..100"
                : !strcmp(k, "mate")  ? "a number of moves 1..100"
                : !strcmp(k, "nodes") ? "a whole number 1..18446744073709551615"
                : !strcmp(k, "perft") ? "a depth 1..63"
                                      : "a whole number of milliseconds (or moves)",
                v ? quote(v, q2, sizeof q2) : "nothing");
            if (!v || is_go_keyword(v)) continue; /* the next word is read as a parameter */
        }
        other |= !bad && strcmp(k, "perft") != 0;
        i++;
    }
    if (perft && other) say(u, "info string go: perft takes no other parameter; they are ignored");
    if (perft) j->kind = JOB_PERFT;
    if (!perft && anybad && !l->depth && !l->nodes && !l->movetime_ms && l->time_ms[0] < 0 &&
        l->time_ms[1] < 0 && !l->infinite && !l->ponder && !j->mate) {
        say(u, "info string go: no valid limit is left; searching depth 1");
        l->depth = 1;
    }
    if (!perft && searchmoves && l->n_searchmoves == 0) {
        say(u, "info string go: searchmoves leaves no legal move to search");
        return 1;
    }
    return 0;
}

static void cmd_go(uci_t *u, char **tok, int n)
{
    if (u->no_pos[0]) {
        finish(u, 0); /* a running search ends first (its bestmove is written) */
        say(u, "info string no valid position (%s)", u->no_pos);
        say(u, "bestmove 0000");
        return;
    }
    int none = parse_go(u, tok, n);
    finish(u, 0);
    if (none) {
        say(u, "bestmove 0000");
        return;
    }
    u->job = u->next;
    u->job.pos = u->pos;
    if (pos_text_set(&u->job_text, u->pos_text.fen, (const char *const *)u->pos_text.moves,
                     u->pos_text.n_moves, u->pos_text.chess960) < 0) {
        say(u, "info string out of memory; go ignored");
        say(u, "bestmove 0000");
        return;
    }
    start_job(u);
}

static void cmd_ponderhit(uci_t *u)
{
    if (!job_busy(u) || u->job.kind != JOB_SEARCH || !u->job.lim.ponder) {
        say(u, "info string ponderhit: no search is pondering; ignored");
        return;
    }
    pthread_mutex_lock(&u->lock);
    atomic_store(&u->ponderhit_req, 1);
    if (u->in_search) u->backend->ops->ponderhit(u->backend);
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->lock);
}

/* Execute one command line (tokens @tok[0..n)). Returns 1 for quit. */
static int execute(uci_t *u, char **tok, int n)
{
    char q[48];
    const char *c = tok[0];
    if (!strcmp(c, "uci"))
        cmd_uci(u);
    else if (!strcmp(c, "isready"))
        say(u, "readyok");
    else if (!strcmp(c, "setoption"))
        cmd_setoption(u, tok, n);
    else if (!strcmp(c, "position"))
        cmd_position(u, tok, n);
    else if (!strcmp(c, "go"))
        cmd_go(u, tok, n);
    else if (!strcmp(c, "stop")) {
        if (u->started) request_stop(u);
    } else if (!strcmp(c, "ponderhit"))
        cmd_ponderhit(u);
    else if (!strcmp(c, "ucinewgame")) {
        finish(u, 0);
        u->backend->ops->new_game(u->backend);
    } else if (!strcmp(c, "quit"))
        return 1;
    else if (!strcmp(c, "debug")) {
        if (n != 2 || (strcmp(tok[1], "on") && strcmp(tok[1], "off")))
            say(u, "info string debug: expected 'debug on' or 'debug off'; ignored");
    } else
        say(u,
            "info string unknown command '%s' (ply speaks UCI: uci, isready, setoption, "
            "ucinewgame, position, go, stop, ponderhit, quit); ignored",
            quote(c, q, sizeof q));
    return 0;
}

/* ---- input ------------------------------------------------------------------------ */

enum { LINE_OK, LINE_EOF, LINE_LONG, LINE_BINARY };

/* Read one line into @buf (PLY_UCI_MAX_LINE + 1 bytes), without its end. */
static int read_line(FILE *in, char *buf, size_t *len, int *bad_byte)
{
    size_t n = 0;
    int c, got = 0, too_long = 0;
    *bad_byte = -1;
    while ((c = getc(in)) != EOF) {
        got = 1;
        if (c == '\n') break;
        if (n < PLY_UCI_MAX_LINE)
            buf[n++] = (char)c;
        else
            too_long = 1;
        if (*bad_byte < 0 && ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)) *bad_byte = c;
    }
    buf[n] = 0;
    *len = n;
    if (!got) return LINE_EOF;
    if (too_long) return LINE_LONG;
    return *bad_byte >= 0 ? LINE_BINARY : LINE_OK;
}

/* Split @buf into words at blanks; *@tok is grown as needed. Returns the count. */
static int tokenize(char *buf, char ***tok, int *cap)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t\r", &save); w;
         w = strtok_r(NULL, " \t\r", &save)) {
        if (n == *cap) {
            int nc = *cap ? *cap * 2 : 64;
            char **t = realloc(*tok, (size_t)nc * sizeof **tok);
            if (!t) return -1;
            *tok = t, *cap = nc;
        }
        (*tok)[n++] = w;
    }
    return n;
}

int ply_uci_serve(FILE *in, FILE *out, ply_uci_backend_t *backend)
{
    uci_t *u = calloc(1, sizeof *u);
    char *line = malloc(PLY_UCI_MAX_LINE + 1);
    if (!u || !line || !backend) {
        free(u);
        free(line);
        return backend ? PLY_ENOMEM : PLY_EINVAL;
    }
    u->in = in, u->out = out;
    u->backend = backend;
    u->multipv = 1;
    u->overhead_ms = OVERHEAD_DEFAULT;
    const ply_uci_option_t *threads = backend_option(u, "Threads");
    u->perft_threads = threads ? (int)threads->def : 1;
    pthread_mutex_init(&u->out_lock, NULL);
    pthread_mutex_init(&u->lock, NULL);
    pthread_cond_init(&u->cond, NULL);
    ply_search_pos_set(&u->pos, "startpos", 0, NULL, 0, NULL, 0);
    snprintf(u->pos_text.fen, sizeof u->pos_text.fen, "startpos");
    char **tok = NULL;
    int cap = 0, quit = 0;
    while (!quit) {
        size_t len;
        int bad, st = read_line(in, line, &len, &bad);
        reap(u);
        if (st == LINE_EOF) break;
        if (st == LINE_LONG) {
            say(u, "info string a line longer than %d bytes; ignored", PLY_UCI_MAX_LINE);
            continue;
        }
        if (st == LINE_BINARY) {
            say(u, "info string a line with the control byte 0x%02x is not a command; ignored",
                bad);
            continue;
        }
        int n = tokenize(line, &tok, &cap);
        if (n < 0) say(u, "info string out of memory reading a line; ignored");
        if (n > 0) quit = execute(u, tok, n);
    }
    /* quit or end of input: a running search stops, writing its bestmove; a perft
     * finishes first (Stockfish 15.1 counts it before it reads the quit) */
    finish(u, u->started && u->job.kind == JOB_PERFT);
    free(tok);
    free(line);
    pos_text_free(&u->pos_text);
    pos_text_free(&u->tmp_text);
    pos_text_free(&u->job_text);
    pthread_cond_destroy(&u->cond);
    pthread_mutex_destroy(&u->lock);
    pthread_mutex_destroy(&u->out_lock);
    free(u);
    return 0;
}

int ply_uci_loop(FILE *in, FILE *out)
{
    /* Hash and Threads at their options' defaults (uci_builtin.c) */
    ply_uci_backend_t *b = ply_uci_builtin_new(16, 1);
    if (!b) return PLY_ENOMEM;
    int rc = ply_uci_serve(in, out, b);
    ply_uci_backend_destroy(&b);
    return rc;
}
