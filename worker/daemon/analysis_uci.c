/*
 * The UCI backend of analysis jobs (analysis.h): an external engine, such as
 * Stockfish, run as a child process through uci_client/. One engine
 * per backend, driven by the controlling thread only; ply_analysis_stop from
 * another thread raises an atomic flag that the client's waits poll (about
 * every 50 ms), then the controlling thread sends "stop" and reads up to
 * "bestmove" so that the engine can be used again.
 *
 * The engine is untrusted: every line it prints is parsed strictly by the
 * client, and what it claims (scores, PVs) is checked later by the
 * coordinator, which replays every PV with the rule engine. So the PV is
 * passed on as the engine wrote it, not cut here: a lie must reach the
 * check that reports it. The position and the searchmoves are ours and are
 * checked here, with the fast board, before the engine sees them.
 *
 * A job's root window (ply_analysis_job_t has_window, alpha, beta) is ignored: UCI has no
 * "go" with a window, so the engine searches the full window, and its exact score is right
 * for any window (a bound the coordinator asked for is implied by it).
 *
 * An engine that dies fails its job (PLY_EIO, with its exit status and last
 * stderr line); the next job starts it again, once: an engine that dies
 * again before it has answered one job stays dead.
 */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "board/movegen.h"
#include "uci_client.h"
#include "util/error.h"
#include "util/time.h"

#define UCI_SILENCE_MS    10000 /* the longest an engine may stay silent outside a search */
#define UCI_STOP_GRACE_MS 5000  /* from "stop" to "bestmove" */
#define UCI_SLACK_MS      10000 /* past a job's movetime before it counts as hung */
#define UCI_MAX_OPTIONS   64
#define UCI_CMD_MAX       1024
#define UCI_NO_LIMIT_MS   (24u * 3600 * 1000) /* "no deadline" for a depth or node search */

typedef struct uci_backend {
    ply_analysis_t base; /* first: a ply_analysis_t * is a uci_backend_t * */
    ply_uci_client_t *engine; /* NULL after the engine died */
    atomic_int stop;     /* raised by ply_analysis_stop, from any thread */
    int restarted;       /* 1: restarted and no job answered since */
    int multipv;         /* the MultiPV in force (1 when never set) */
    int chess960;        /* UCI_Chess960 in force */
    int repro;           /* Threads and Hash set for reproducible jobs (not the user's options) */
    char cmdline[UCI_CMD_MAX];
    int n_options;
    char *options[UCI_MAX_OPTIONS]; /* NAME=VALUE, owned */
    char name[128];                 /* "id name" at the first start */
    ply_search_pos_t pos;           /* for checking the job's position (large: kept here) */
    ply_analysis_line_t best[PLY_SEARCH_MAX_MULTIPV]; /* per multipv, the line kept so far */
    int have[PLY_SEARCH_MAX_MULTIPV];
    char *position; /* the "position ..." command, grown as needed */
    size_t position_cap;
} uci_backend_t;

/* Starts the engine of @u and applies its options; 0, or an error with its reason. */
static int engine_start(uci_backend_t *u, char *why, size_t why_len)
{
    u->engine = ply_uci_client_start(u->cmdline, UCI_SILENCE_MS, why, why_len);
    if (!u->engine) return PLY_EIO;
    ply_uci_client_set_cancel(u->engine, &u->stop);
    u->multipv = 1;
    u->chess960 = 0;
    int rc = 0;
    for (int i = 0; i < u->n_options && rc == 0; i++)
        rc = ply_uci_client_setoption_arg(u->engine, u->options[i], why, why_len);
    if (rc == 0) rc = ply_uci_client_sync(u->engine, why, why_len);
    if (rc < 0) ply_uci_client_destroy(&u->engine);
    return rc;
}

/* The job's position as a UCI "position" command in u->position; 0 or PLY_ENOMEM. */
static int position_command(uci_backend_t *u, const ply_analysis_job_t *job)
{
    size_t need = strlen(job->fen) + 32;
    for (int i = 0; i < job->n_moves; i++) need += strlen(job->moves[i]) + 1;
    if (need > u->position_cap) {
        char *p = realloc(u->position, need);
        if (!p) return PLY_ENOMEM;
        u->position = p, u->position_cap = need;
    }
    int startpos = strcmp(job->fen, "startpos") == 0;
    size_t o =
        (size_t)snprintf(u->position, need, "position %s%s", startpos ? "" : "fen ", job->fen);
    if (job->n_moves) o += (size_t)snprintf(u->position + o, need - o, " moves");
    for (int i = 0; i < job->n_moves; i++)
        o += (size_t)snprintf(u->position + o, need - o, " %s", job->moves[i]);
    return 0;
}

/* The job's position, history and searchmoves, checked with the fast board. */
static int check_job(uci_backend_t *u, const ply_analysis_job_t *job, char *why, size_t why_len)
{
    ply_move_t searchmoves[PLY_MAX_MOVES]; /* checked only: the engine gets the text */
    int rc = ply_analysis_job_position(job, &u->pos, searchmoves, why, why_len);
    if (rc < 0) return rc;
    int multipv = job->multipv > 0 ? job->multipv : 1;
    if (multipv > PLY_SEARCH_MAX_MULTIPV) {
        snprintf(why, why_len, "multipv %d, at most %d", multipv, PLY_SEARCH_MAX_MULTIPV);
        return PLY_EINVAL;
    }
    return 0;
}

/* MultiPV and UCI_Chess960 as @job wants them; 0, or an error with its reason. */
static int set_options(uci_backend_t *u, const ply_analysis_job_t *job, char *why, size_t why_len)
{
    int multipv = job->multipv > 0 ? job->multipv : 1, chess960 = job->chess960 != 0, rc = 0;
    if (multipv != u->multipv) {
        if (!ply_uci_client_has_option(u->engine, "MultiPV")) {
            snprintf(why, why_len, "engine '%s' offers no MultiPV option: multipv %d refused",
                     u->name, multipv);
            return PLY_EINVAL;
        }
        char value[16];
        snprintf(value, sizeof value, "%d", multipv);
        rc = ply_uci_client_setoption(u->engine, "MultiPV", value, why, why_len);
        if (rc == 0) rc = ply_uci_client_sync(u->engine, why, why_len);
        if (rc < 0) return rc;
        u->multipv = multipv;
    }
    if (chess960 != u->chess960) {
        if (!ply_uci_client_has_option(u->engine, "UCI_Chess960")) {
            snprintf(why, why_len, "engine '%s' offers no UCI_Chess960 option", u->name);
            return PLY_EINVAL;
        }
        if ((rc = ply_uci_client_set_chess960(u->engine, chess960, why, why_len)) < 0) return rc;
        u->chess960 = chess960;
    }
    return 0;
}

typedef struct collect {
    uci_backend_t *u;
    int multipv;
    _Atomic uint64_t *progress;
} collect_t;

/* Keeps, per multipv index, the last scored info line of the deepest depth so far. */
static void on_info(void *ctx, const ply_uci_client_info_t *in, double elapsed_ms)
{
    (void)elapsed_ms;
    collect_t *c = ctx;
    if (c->progress && in->nodes) atomic_store(c->progress, in->nodes);
    int k = in->multipv > 0 ? in->multipv : 1;
    if (in->score_kind == PLY_UCI_CLIENT_SCORE_NONE || k > c->multipv) return;
    ply_analysis_line_t *l = &c->u->best[k - 1];
    if (c->u->have[k - 1] && in->depth < l->depth) return;
    c->u->have[k - 1] = 1;
    l->multipv = k;
    l->is_mate = in->score_kind == PLY_UCI_CLIENT_SCORE_MATE;
    l->score = in->score;
    l->bound = in->bound > 0 ? PLY_BOUND_LOWER : in->bound < 0 ? PLY_BOUND_UPPER : PLY_BOUND_EXACT;
    l->depth = in->depth;
    l->seldepth = in->seldepth;
    l->n_pv = in->npv < PLY_SEARCH_MAX_PLY ? in->npv : PLY_SEARCH_MAX_PLY;
    for (int i = 0; i < l->n_pv; i++) memcpy(l->pv[i], in->pv[i], PLY_ANALYSIS_MOVE_LEN);
}

/* The lines collected into @out: 1..K without a gap; PLY_EPARSE when the first is missing. */
static int lines_out(uci_backend_t *u, int multipv, ply_analysis_result_t *out, char *why,
                     size_t why_len)
{
    int n = 0;
    while (n < multipv && u->have[n]) {
        out->lines[n] = u->best[n];
        n++;
    }
    if (n == 0) {
        snprintf(why, why_len, "engine '%s' gave bestmove without a scored info line", u->name);
        return PLY_EPARSE;
    }
    out->n_lines = n;
    return 0;
}

/* The search itself, on a running engine whose options are set. */
static int search(uci_backend_t *u, const ply_analysis_job_t *job, ply_analysis_result_t *out,
                  char *why, size_t why_len)
{
    ply_uci_client_limits_t lim = {0};
    lim.depth = job->depth;
    lim.nodes = job->nodes;
    lim.movetime = job->movetime_ms;
    lim.searchmoves = job->searchmoves;
    lim.n_searchmoves = job->n_searchmoves;
    /* A movetime search must end near its time. A depth or node search may think in
     * silence for longer than the client's silence limit (which would take it for a
     * hang): it gets a day, and the coordinator's lease, which cancels the job (stop),
     * is what ends a hung engine's search sooner. */
    lim.deadline_ms =
        job->movetime_ms > 0 ? (uint64_t)job->movetime_ms + UCI_SLACK_MS : UCI_NO_LIMIT_MS;
    collect_t c = {u, job->multipv > 0 ? job->multipv : 1, job->progress};
    memset(u->have, 0, sizeof u->have);
    ply_uci_client_search_t s;
    uint64_t t0 = ply_time_ns();
    int rc = ply_uci_client_go(u->engine, u->position, &lim, on_info, &c, &s, why, why_len);
    if (rc == PLY_ECANCELED || rc == PLY_ETIMEDOUT) {
        char how[256];
        int r = ply_uci_client_stop(u->engine, UCI_STOP_GRACE_MS, how, sizeof how);
        if (r < 0) ply_uci_client_destroy(&u->engine); /* not usable again: restart next time */
        if (rc == PLY_ECANCELED) snprintf(why, why_len, "stopped");
        return rc;
    }
    if (rc < 0) return rc;
    if ((rc = lines_out(u, c.multipv, out, why, why_len)) < 0) return rc;
    out->nodes = s.nodes;
    out->time_us = (ply_time_ns() - t0) / 1000;
    return 0;
}

/*
 * One root move (a `ply analyse` job): the position after it searched one ply less, and
 * the line turned back to the root (the move first, the score negated, a mate one move
 * further, the bounds swapped, depth and seldepth + 1). Not "go searchmoves": Stockfish
 * 15.1 answers "go depth 8 searchmoves g1h3" from the start position with cp 384 and the
 * one-move line "g1h3" at depth 8, after cp -60 at depth 7; a search of the position after
 * g1h3 gives no such score. A move that mates or stalemates is answered here, as the Laws
 * say (art. 5.1(a), 5.2(a)). The depth-1 job keeps searchmoves (no depth 0 to ask for).
 */
static int search_root_move(uci_backend_t *u, const ply_analysis_job_t *job,
                            ply_analysis_result_t *out, char *why, size_t why_len)
{
    const char *text = job->searchmoves[0];
    ply_move_t m;
    if (ply_board_move_from_uci(&u->pos.root, text, &m) < 0) { /* check_job took it */
        snprintf(why, why_len, "searchmoves 1 (%s): not a legal move", text);
        return PLY_EILLEGAL;
    }
    ply_board_t child = u->pos.root;
    ply_board_play(&child, m);
    ply_analysis_line_t *l = &out->lines[0];
    if (ply_board_count_legal(&child) == 0) {
        memset(l, 0, sizeof *l);
        l->multipv = 1;
        l->is_mate = ply_board_checkers(&child) != 0;
        l->score = l->is_mate ? 1 : 0; /* checkmate: mate in 1; stalemate: a draw */
        l->bound = PLY_BOUND_EXACT;
        l->depth = job->depth > 0 ? job->depth : 1;
        l->seldepth = 1;
        l->n_pv = 1;
        snprintf(l->pv[0], PLY_ANALYSIS_MOVE_LEN, "%s", text);
        out->n_lines = 1;
        out->nodes = 1;
        out->time_us = 0;
        return 0;
    }
    const char **moves = malloc(((size_t)job->n_moves + 1) * sizeof *moves);
    if (!moves) return PLY_ENOMEM;
    for (int i = 0; i < job->n_moves; i++) moves[i] = job->moves[i];
    moves[job->n_moves] = text;
    ply_analysis_job_t cj = *job;
    cj.moves = moves;
    cj.n_moves = job->n_moves + 1;
    cj.searchmoves = NULL;
    cj.n_searchmoves = 0;
    cj.depth = job->depth > 1 ? job->depth - 1 : job->depth;
    int rc = position_command(u, &cj);
    free(moves);
    if (rc == 0) rc = search(u, &cj, out, why, why_len);
    if (rc < 0) return rc;
    if (l->is_mate) /* mate in N for the side to move after the move: mated in N here */
        l->score = l->score > 0 ? -l->score : -l->score + 1;
    else
        l->score = -l->score;
    l->bound = l->bound == PLY_BOUND_LOWER   ? PLY_BOUND_UPPER
               : l->bound == PLY_BOUND_UPPER ? PLY_BOUND_LOWER
                                             : PLY_BOUND_EXACT;
    l->depth++;
    l->seldepth++;
    if (l->n_pv == PLY_SEARCH_MAX_PLY) l->n_pv--;
    memmove(l->pv[1], l->pv[0], (size_t)l->n_pv * sizeof l->pv[0]);
    snprintf(l->pv[0], PLY_ANALYSIS_MOVE_LEN, "%s", text);
    l->n_pv++;
    return 0;
}

static int uci_run(ply_analysis_t *a, const ply_analysis_job_t *job, ply_analysis_result_t *out,
                   char *why, size_t why_len)
{
    uci_backend_t *u = (uci_backend_t *)a;
    int rc = check_job(u, job, why, why_len);
    if (rc < 0) return rc;
    if ((rc = position_command(u, job)) < 0) return rc;
    if (atomic_load(&u->stop)) { /* a stop before the run applies to it */
        snprintf(why, why_len, "stopped");
        return PLY_ECANCELED;
    }
    if (!u->engine) {
        if (u->restarted) {
            snprintf(why, why_len, "engine '%s' died again after a restart: not restarted",
                     u->name);
            return PLY_EIO;
        }
        u->restarted = 1;
        if ((rc = engine_start(u, why, why_len)) < 0) return rc;
    }
    rc = set_options(u, job, why, why_len);
    int one_root_move =
        job->n_searchmoves == 1 && (job->multipv <= 1) && job->n_plies == 0 && job->depth != 1;
    if (rc == 0)
        rc = one_root_move ? search_root_move(u, job, out, why, why_len)
                           : search(u, job, out, why, why_len);
    if (rc == 0) u->restarted = 0;
    if (rc == PLY_EIO || rc == PLY_EPARSE)
        ply_uci_client_destroy(
            &u->engine); /* dead, or in an unknown state: a fresh one next time */
    return rc;
}

static void uci_stop(ply_analysis_t *a)
{
    atomic_store(&((uci_backend_t *)a)->stop, 1);
}

static void uci_clear_stop(ply_analysis_t *a)
{
    atomic_store(&((uci_backend_t *)a)->stop, 0);
}

static void uci_destroy(ply_analysis_t *a)
{
    uci_backend_t *u = (uci_backend_t *)a;
    ply_uci_client_destroy(&u->engine);
    for (int i = 0; i < u->n_options; i++) free(u->options[i]);
    free(u->position);
    free(u);
}

/* 1 when option text @opt ("NAME=VALUE" or "NAME") names @name (UCI option names ignore case). */
static int option_is(const char *opt, const char *name)
{
    size_t n = strlen(name);
    return strncasecmp(opt, name, n) == 0 && (opt[n] == '=' || opt[n] == '\0');
}

/*
 * A reproducible job: one thread, a table of PLY_ANALYSIS_REPRO_HASH_MIB MiB, and
 * "ucinewgame", so that the engine forgets the jobs before. Back to an ordinary job, the
 * engine is started again with the user's options (Threads and Hash among them, or the
 * engine's defaults).
 */
static int uci_prepare(ply_analysis_t *a, int reproducible, char *why, size_t why_len)
{
    uci_backend_t *u = (uci_backend_t *)a;
    int rc = 0;
    if (!reproducible) {
        if (!u->repro) return 0;
        ply_uci_client_destroy(&u->engine);
        u->repro = 0;
        return engine_start(u, why, why_len);
    }
    if (!u->engine && (rc = engine_start(u, why, why_len)) < 0) return rc;
    char mib[16];
    snprintf(mib, sizeof mib, "%d", PLY_ANALYSIS_REPRO_HASH_MIB);
    if (rc == 0 && ply_uci_client_has_option(u->engine, "Threads"))
        rc = ply_uci_client_setoption(u->engine, "Threads", "1", why, why_len);
    if (rc == 0 && ply_uci_client_has_option(u->engine, "Hash"))
        rc = ply_uci_client_setoption(u->engine, "Hash", mib, why, why_len);
    if (rc == 0) rc = ply_uci_client_newgame(u->engine, why, why_len);
    if (rc < 0) {
        ply_uci_client_destroy(&u->engine);
        return rc;
    }
    u->repro = 1;
    return 0;
}

static const ply_analysis_ops_t UCI = {"uci",          uci_run,     uci_stop,
                                       uci_clear_stop, uci_destroy, uci_prepare};

void ply_analysis_repro_id(const ply_analysis_t *a, char *buf, size_t len)
{
    if (!a || a->ops != &UCI) {
        snprintf(buf, len, "%s", a ? a->ops->name : "builtin");
        return;
    }
    const uci_backend_t *u = (const uci_backend_t *)a;
    size_t o = (size_t)snprintf(buf, len, "uci:%s", u->name);
    for (int i = 0; i < u->n_options && o < len; i++)
        if (!option_is(u->options[i], "Threads") && !option_is(u->options[i], "Hash"))
            o += (size_t)snprintf(buf + o, len - o, " %s", u->options[i]);
}

ply_analysis_t *ply_analysis_uci_new(const char *cmdline, const char *const *options, int n_options,
                                     char *why, size_t why_len)
{
    char scratch[8];
    if (!why || !why_len) why = scratch, why_len = sizeof scratch;
    if (!cmdline || !*cmdline || strlen(cmdline) >= UCI_CMD_MAX || n_options < 0 ||
        n_options > UCI_MAX_OPTIONS || (n_options && !options)) {
        snprintf(why, why_len, "an engine command line (under %d bytes) and at most %d options",
                 UCI_CMD_MAX, UCI_MAX_OPTIONS);
        return NULL;
    }
    uci_backend_t *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    u->base.ops = &UCI;
    atomic_init(&u->stop, 0);
    snprintf(u->cmdline, sizeof u->cmdline, "%s", cmdline);
    for (int i = 0; i < n_options; i++) {
        if (!options[i] || !(u->options[i] = strdup(options[i]))) {
            snprintf(why, why_len, "option %d: %s", i + 1, options[i] ? "out of memory" : "NULL");
            uci_destroy(&u->base);
            return NULL;
        }
        u->n_options = i + 1;
    }
    if (engine_start(u, why, why_len) < 0) {
        uci_destroy(&u->base);
        return NULL;
    }
    snprintf(u->name, sizeof u->name, "%s", ply_uci_client_name(u->engine));
    return &u->base;
}

const char *ply_analysis_engine_name(const ply_analysis_t *a)
{
    if (!a) return "none";
    if (a->ops == &UCI) return ((const uci_backend_t *)a)->name;
    return a->ops->name;
}
