/*
 * The cluster behind the UCI loop (uci_cluster.h). The job thread submits a
 * deepening search run and waits for its result, turning each iteration into
 * info lines; the controller thread sends Cancels (on its own client) when a
 * stop, a deadline or a watched limit asks for one.
 *
 * Invariants (under lock): run_id is the run in flight, set by the job thread
 * once Accepted and cleared when its wait returns; at most one Cancel is sent
 * per run (cancel_sent); stop_req outlives a search only until clear_stop, so
 * that a stop that came before the run was accepted cancels it as soon as it
 * is; the run's deadline is clock_from + budget_ms, unless pondering, put off to
 * clock_from + hard_ms while no iteration has completed (a Cancel then would leave
 * nothing to play but an unsearched move: the first go after the start, its workers
 * still connecting).
 *
 * A go the cluster answers without a completed iteration (a clock too short for its round
 * trips, a stop at once, the coordinator gone) is answered by a short search of ply's engine
 * in this process (PLY_UCI_CLUSTER_FALLBACK_NODES, its own small table): a move searched,
 * never merely the first legal one.
 */
#include "uci_cluster.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "envelope.h"
#include "util/error.h"

/* How long a Cancel waits for its answer, ms (the run's own answer comes on the job
 * thread's client). A Cancel that fails otherwise than "finished" is tried again. */
#define CANCEL_TIMEOUT_MS 5000
#define CANCEL_TRIES      3

typedef struct cluster {
    ply_uci_backend_t base;
    ply_session_t *session;
    const char *engine; /* the workers asked for (SearchRequest.engine), or NULL: any */
    ply_engine_t *local; /* the fallback's engine (the header), made when first needed */
    unsigned timeout_ms;
    pthread_t controller;
    int controller_running;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* wakes the controller (CLOCK_MONOTONIC) */
    int quit;
    int stop_req;         /* stop asked: cancel the run in flight or the next one */
    int limit_req;        /* a watched limit is reached: cancel the run */
    int pondering;        /* the run ponders: its clock starts at ponderhit */
    int64_t budget_ms;    /* the go's time budget (-1: none), from the go or the ponderhit */
    int64_t hard_ms;      /* ... and how far it stretches while no iteration has completed */
    int got_iteration;    /* the run has completed one: a Cancel now has an answer */
    uint64_t run_id;      /* the run in flight, 0: none */
    int cancel_sent;      /* its Cancel went */
    uint64_t clock_from;  /* when budget_ms started (now_ms): the go, or the ponderhit */
    char cancel_why[256]; /* why a Cancel could not be sent, for the job thread */

    /* the search in flight: the job thread's only */
    const ply_uci_go_t *go;
    ply_search_info_fn cb;
    void *cb_arg;
    uint64_t t0;            /* the go, now_ms */
    unsigned shown_depth;   /* deepest iteration written */
    int watch_depth;        /* a depth to cancel at (infinite or ponder runs), 0: none */
    uint64_t watch_nodes;   /* nodes to cancel at, 0: none */
    ply_move_t last_best;   /* the best move of the last iteration received, 0: none */
    char waiting[256];      /* what the run waits for, as last said */
    ply_search_line_t line; /* scratch for an info line */
} cluster_t;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int64_t ply_uci_cluster_budget_ms(const ply_search_limits_t *l, int side)
{
    if (l->time_ms[side] < 0) return -1;
    int64_t clock = max64(1, l->time_ms[side] - l->overhead_ms);
    int64_t inc = max64(0, l->inc_ms[side]);
    int64_t mtg = l->movestogo > 0 ? (l->movestogo < 50 ? l->movestogo : 50) : PLY_UCI_CLUSTER_MTG;
    int64_t budget = clock / mtg + inc * 3 / 4;
    if (budget > clock / 4) budget = clock / 4;
    return max64(PLY_UCI_CLUSTER_MIN_BUDGET_MS, budget);
}

/* ---- the controller: Cancels and the clock ----------------------------------------- */

/* Cancels run @id on @cc (made on first use); "" or why it could not into @why. */
static void send_cancel(cluster_t *c, ply_client_t **cc, uint64_t id, char *why, size_t len)
{
    why[0] = 0;
    for (int t = 0; t < CANCEL_TRIES; t++) {
        if (!*cc) *cc = ply_client_new(ply_session_endpoint(c->session), why, len);
        if (!*cc) continue;
        Ply__RunProgress *p = NULL;
        int rc = ply_client_cancel(*cc, id, CANCEL_TIMEOUT_MS, &p, why, len);
        if (p) ply__run_progress__free_unpacked(p, NULL);
        /* finished (its answer is on its way) or unknown: nothing left to cancel */
        if (rc == 0 || rc == PLY_ESTATE || rc == PLY_ENOTFOUND) {
            why[0] = 0;
            return;
        }
        ply_client_destroy(cc); /* a connection of its own again */
    }
}

static void *controller_main(void *arg)
{
    cluster_t *c = arg;
    ply_client_t *cc = NULL;
    char why[256];
    pthread_mutex_lock(&c->lock);
    while (!c->quit) {
        uint64_t now = now_ms();
        int64_t budget = c->got_iteration ? c->budget_ms : c->hard_ms;
        uint64_t deadline = !c->pondering && budget >= 0 ? c->clock_from + (uint64_t)budget : 0;
        int due = c->stop_req || c->limit_req || (deadline && now >= deadline);
        if (c->run_id && !c->cancel_sent && due) {
            uint64_t id = c->run_id;
            c->cancel_sent = 1;
            pthread_mutex_unlock(&c->lock);
            send_cancel(c, &cc, id, why, sizeof why);
            pthread_mutex_lock(&c->lock);
            if (why[0] && c->run_id == id) snprintf(c->cancel_why, sizeof c->cancel_why, "%s", why);
            continue;
        }
        if (c->run_id && !c->cancel_sent && deadline) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t wait = deadline - now;
            ts.tv_sec += (time_t)(wait / 1000);
            ts.tv_nsec += (long)(wait % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
            pthread_cond_timedwait(&c->cond, &c->lock, &ts);
        } else {
            pthread_cond_wait(&c->cond, &c->lock);
        }
    }
    pthread_mutex_unlock(&c->lock);
    ply_client_destroy(&cc);
    return NULL;
}

/* ---- from the coordinator's lines to the loop's ------------------------------------- */

/* A SearchLine's score in ply's engine units (search.h). */
static int engine_score(const Ply__SearchLine *l)
{
    if (!l->has_mate) return l->score_cp;
    if (l->mate > 0) return PLY_SCORE_MATE - (2 * l->mate - 1);
    return -(PLY_SCORE_MATE + 2 * l->mate); /* mated in -mate moves; mate 0: mated now */
}

/* @m's line from @root into @out, its PV cut at the first move that does not read as a
 * legal move; 0, or -1 when not even its first move does. */
static int read_line(const ply_board_t *root, const Ply__AnalysedMove *m, unsigned depth,
                     ply_search_line_t *out)
{
    const Ply__SearchLine *l = m->line;
    memset(out, 0, sizeof *out);
    if (!l) return -1;
    out->score = engine_score(l);
    out->bound = l->bound == 1 ? PLY_BOUND_LOWER : l->bound == 2 ? PLY_BOUND_UPPER : 0;
    out->depth = depth ? (int)depth : (int)l->depth;
    out->seldepth = (int)(l->seldepth > l->depth ? l->seldepth : l->depth);
    ply_board_t pos = *root;
    for (size_t i = 0; i < l->n_pv && i < PLY_SEARCH_MAX_PLY; i++) {
        ply_move_t mv;
        if (ply_board_move_from_uci(&pos, l->pv[i], &mv) < 0) break;
        out->pv[out->n_pv++] = mv;
        ply_board_play(&pos, mv);
    }
    return out->n_pv ? 0 : -1;
}

/* The lines of an answer the loop shows: its top MultiPV (moves are best first). */
static size_t shown_lines(const cluster_t *c, const Ply__SearchAnswer *s)
{
    size_t k = c->go->lim->multipv > 0 ? (size_t)c->go->lim->multipv : 1;
    return s->n_moves < k ? s->n_moves : k;
}

static void on_progress(const Ply__RunProgress *p, void *arg)
{
    cluster_t *c = arg;
    if (p->waiting && p->waiting[0] && strcmp(p->waiting, c->waiting)) {
        /* no worker may take the run's jobs (none connected yet): a GUI shows it */
        snprintf(c->waiting, sizeof c->waiting, "%s", p->waiting);
        char text[300];
        snprintf(text, sizeof text, "the cluster waits for %s", c->waiting);
        if (c->go->note) c->go->note(text, c->cb_arg);
    }
    const Ply__SearchAnswer *s = p->search;
    if (!s || !s->has_depth || s->depth <= c->shown_depth || !s->n_moves) return;
    if (!c->shown_depth) {
        pthread_mutex_lock(&c->lock);
        c->got_iteration = 1; /* the deadline is the budget's from now on */
        pthread_cond_signal(&c->cond);
        pthread_mutex_unlock(&c->lock);
    }
    c->shown_depth = s->depth;
    const ply_board_t *root = &c->go->pos->root;
    size_t k = shown_lines(c, s);
    for (size_t i = 0; i < k; i++) {
        if (read_line(root, s->moves[i], s->depth, &c->line) < 0) break;
        if (i == 0) c->last_best = c->line.pv[0];
        ply_search_info_t info = {.multipv = (int)i + 1,
                                  .line = &c->line,
                                  .nodes = s->nodes,
                                  .time_ms = (int64_t)(now_ms() - c->t0),
                                  .hashfull = -1};
        c->cb(&info, c->cb_arg);
    }
    int reached = (c->watch_depth && (int)s->depth >= c->watch_depth) ||
                  (c->watch_nodes && s->nodes >= c->watch_nodes);
    if (reached) {
        pthread_mutex_lock(&c->lock);
        c->limit_req = 1;
        pthread_cond_signal(&c->cond);
        pthread_mutex_unlock(&c->lock);
    }
}

/* ---- the backend ------------------------------------------------------------------- */

/* A root without legal moves is answered here, as ply's engine answers it (search.h). */
static int no_move(const ply_board_t *root, ply_search_result_t *out)
{
    out->n_lines = 1;
    out->lines[0].score = ply_board_checkers(root) ? -PLY_SCORE_MATE : 0;
    out->time_ms = 0;
    out->hashfull = -1;
    return 0;
}

/* @go's position as the run's fen and moves: the oldest moves folded into the FEN when
 * there are more than a run takes (only the last ones matter for repetitions). */
static int run_position(const ply_uci_go_t *go, ply_search_request_t *req, char *fen,
                        size_t fen_len)
{
    size_t n = (size_t)go->n_moves, cut = 0;
    snprintf(fen, fen_len, "%s", go->fen);
    if (n > PLY_SEARCH_JOB_MAX_MOVES) {
        cut = n - PLY_SEARCH_JOB_MAX_MOVES;
        ply_search_pos_t *p = malloc(sizeof *p);
        if (!p) return PLY_ENOMEM;
        int rc = ply_search_pos_set(p, go->fen, go->chess960, go->moves, (int)cut, NULL, 0);
        if (rc == 0) rc = ply_board_to_fen(&p->root, fen, fen_len) < 0 ? PLY_ERANGE : 0;
        free(p);
        if (rc < 0) return rc;
    }
    req->fen = fen;
    req->moves = go->moves + cut;
    req->nmoves = n - cut;
    req->chess960 = go->chess960;
    return 0;
}

/* The run's limits for @go (see uci_cluster.h), and what this side watches. */
static void run_limits(cluster_t *c, const ply_uci_go_t *go, ply_search_request_t *req)
{
    const ply_search_limits_t *l = go->lim;
    int64_t movetime = l->movetime_ms > 0 ? max64(1, l->movetime_ms - l->overhead_ms) : 0;
    if (movetime > PLY_SEARCH_JOB_MAX_MOVETIME_MS) movetime = PLY_SEARCH_JOB_MAX_MOVETIME_MS;
    int side = go->pos->root.side;
    c->budget_ms = l->infinite ? -1 : movetime ? movetime : ply_uci_cluster_budget_ms(l, side);
    c->hard_ms = c->budget_ms;
    if (!l->infinite && !movetime && c->budget_ms >= 0) { /* the engine's hard limit */
        int64_t half = max64(1, l->time_ms[side] - l->overhead_ms) / 2;
        c->hard_ms = max64(c->budget_ms, c->budget_ms * 4 < half ? c->budget_ms * 4 : half);
    }
    c->watch_depth = 0, c->watch_nodes = 0;
    req->deepen = 1;
    req->multipv = l->multipv > 0 ? (unsigned)l->multipv : 1;
    if (!l->infinite && !l->ponder && (l->depth || l->nodes || movetime)) {
        req->depth = (unsigned)l->depth;
        req->nodes = l->nodes;
        req->movetime_ms = (unsigned)movetime;
        return;
    }
    req->infinite = 1;
    c->watch_depth = l->depth, c->watch_nodes = l->nodes;
    /* a clock alone, go mate, or no limit: at most the engine's deepest iteration */
    if (!l->infinite && !l->ponder && !l->depth && !l->nodes) c->watch_depth = PLY_SEARCH_MAX_DEPTH;
}

/* The run's answer @s into @out: its top MultiPV lines, best move and expected reply. */
static void take_answer(cluster_t *c, const Ply__SearchAnswer *s, ply_search_result_t *out)
{
    const ply_board_t *root = &c->go->pos->root;
    size_t k = shown_lines(c, s);
    for (size_t i = 0; i < k; i++)
        if (read_line(root, s->moves[i], s->has_depth ? s->depth : 0, &out->lines[out->n_lines]) ==
            0)
            out->n_lines++;
        else
            break;
    if (out->n_lines) {
        out->best = out->lines[0].pv[0];
        out->ponder = out->lines[0].n_pv > 1 ? out->lines[0].pv[1] : 0;
    }
    out->nodes = s->nodes;
}

static void fallback(cluster_t *c, const ply_uci_go_t *go, ply_search_result_t *out, char *why,
                     size_t why_len);

static int search(ply_uci_backend_t *b, const ply_uci_go_t *go, ply_search_info_fn cb, void *arg,
                  ply_search_result_t *out, char *why, size_t why_len)
{
    cluster_t *c = (cluster_t *)b;
    memset(out, 0, sizeof *out);
    out->hashfull = -1;
    c->go = go, c->cb = cb, c->cb_arg = arg;
    c->t0 = now_ms();
    c->shown_depth = 0, c->last_best = 0, c->waiting[0] = 0;
    ply_move_t legal[PLY_MAX_MOVES];
    if (ply_board_legal_moves(&go->pos->root, legal) == 0) return no_move(&go->pos->root, out);

    ply_search_request_t req;
    memset(&req, 0, sizeof req);
    char fen[PLY_BOARD_FEN_MAX + 16];
    int rc = run_position(go, &req, fen, sizeof fen);
    if (rc < 0) return rc;
    static char sm[PLY_MAX_MOVES][8]; /* one search at a time */
    const char *smp[PLY_MAX_MOVES];
    for (int i = 0; i < go->lim->n_searchmoves; i++) {
        ply_board_move_to_uci(&go->pos->root, go->lim->searchmoves[i], sm[i]);
        smp[i] = sm[i];
    }
    req.searchmoves = smp, req.nsearchmoves = (size_t)go->lim->n_searchmoves;
    req.engine = c->engine;
    pthread_mutex_lock(&c->lock);
    run_limits(c, go, &req);
    c->pondering = go->lim->ponder;
    c->clock_from = c->t0;
    c->limit_req = 0, c->cancel_sent = 0, c->cancel_why[0] = 0, c->got_iteration = 0;
    pthread_mutex_unlock(&c->lock);

    ply_client_t *cl = ply_session_client(c->session);
    Ply__Accepted *acc = NULL;
    rc = ply_client_submit_search(cl, &req, (int)c->timeout_ms, &acc, why, why_len);
    if (rc < 0) return rc;
    pthread_mutex_lock(&c->lock);
    c->run_id = acc->run_id;
    pthread_cond_signal(&c->cond); /* a stop or a deadline may be due already */
    pthread_mutex_unlock(&c->lock);
    Ply__RunResult *res = NULL;
    rc = ply_client_wait(cl, acc->run_id, on_progress, c, (int)c->timeout_ms, &res, why, why_len);
    ply__accepted__free_unpacked(acc, NULL);
    pthread_mutex_lock(&c->lock);
    c->run_id = 0;
    int canceled = c->cancel_sent;
    char cancel_why[sizeof c->cancel_why];
    snprintf(cancel_why, sizeof cancel_why, "%s", c->cancel_why);
    pthread_mutex_unlock(&c->lock);

    if (rc == 0 && res->search && res->search->n_moves) take_answer(c, res->search, out);
    if (rc == 0 && !out->n_lines)
        rc = ply_why(why, why_len, PLY_EPROTO, "the cluster's answer has no line to play");
    if (res) ply__run_result__free_unpacked(res, NULL);
    if (rc == 0) {
        out->time_ms = (int64_t)(now_ms() - c->t0);
        return 0;
    }
    out->best = c->last_best; /* the loop plays it */
    if (rc == PLY_ECANCELED && canceled)
        snprintf(why, why_len, "stopped before the cluster completed an iteration%s%s",
                 cancel_why[0] ? "; " : "", cancel_why);
    if (!out->best) fallback(c, go, out, why, why_len);
    return rc;
}

/* No iteration came: the move of a short search here (the header), its reason added to @why.
 * Nothing when the engine cannot be made (the loop then plays its first legal move). */
static void fallback(cluster_t *c, const ply_uci_go_t *go, ply_search_result_t *out, char *why,
                     size_t why_len)
{
    if (!c->local && !(c->local = ply_engine_new(PLY_UCI_CLUSTER_FALLBACK_HASH_MIB, 1))) return;
    ply_search_limits_t l;
    ply_search_limits_init(&l);
    l.nodes = PLY_UCI_CLUSTER_FALLBACK_NODES;
    l.n_searchmoves = go->lim->n_searchmoves;
    memcpy(l.searchmoves, go->lim->searchmoves, sizeof l.searchmoves);
    ply_search_result_t r;
    if (ply_engine_search(c->local, go->pos, &l, NULL, NULL, &r) != 0 || !r.best) return;
    out->best = r.best, out->ponder = r.ponder;
    size_t k = strlen(why);
    snprintf(why + k, why_len - k, "%sthe move of a %d-node search in this process",
             k ? "; " : "", PLY_UCI_CLUSTER_FALLBACK_NODES);
}

static void stop(ply_uci_backend_t *b)
{
    cluster_t *c = (cluster_t *)b;
    pthread_mutex_lock(&c->lock);
    c->stop_req = 1;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void clear_stop(ply_uci_backend_t *b)
{
    cluster_t *c = (cluster_t *)b;
    pthread_mutex_lock(&c->lock);
    c->stop_req = 0, c->limit_req = 0;
    pthread_mutex_unlock(&c->lock);
}

static void ponderhit(ply_uci_backend_t *b)
{
    cluster_t *c = (cluster_t *)b;
    pthread_mutex_lock(&c->lock);
    if (c->pondering) {
        c->pondering = 0;
        c->clock_from = now_ms(); /* the clock runs from now */
        pthread_cond_signal(&c->cond);
    }
    pthread_mutex_unlock(&c->lock);
}

static void new_game(ply_uci_backend_t *b)
{
    (void)b; /* the workers' tables are theirs; a new game needs nothing of them */
}

static int set_option(ply_uci_backend_t *b, const ply_uci_option_t *opt, int64_t value, char *why,
                      size_t why_len)
{
    (void)b, (void)value;
    snprintf(why, why_len, "no option %s", opt->name); /* it owns none */
    return PLY_EINVAL;
}

static void destroy(ply_uci_backend_t *b)
{
    cluster_t *c = (cluster_t *)b;
    if (c->controller_running) {
        pthread_mutex_lock(&c->lock);
        c->quit = 1;
        pthread_cond_signal(&c->cond);
        pthread_mutex_unlock(&c->lock);
        pthread_join(c->controller, NULL);
    }
    ply_session_destroy(&c->session);
    ply_engine_destroy(&c->local);
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static const ply_uci_backend_ops_t cluster_ops = {
    .id_name = "ply cluster",
    .options = NULL,
    .n_options = 0,
    .set_option = set_option,
    .new_game = new_game,
    .search = search,
    .stop = stop,
    .clear_stop = clear_stop,
    .ponderhit = ponderhit,
    .destroy = destroy,
};

ply_uci_backend_t *ply_uci_cluster_new(const ply_session_config_t *cfg, const char *engine,
                                       char *why, size_t why_len)
{
    cluster_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    c->base.ops = &cluster_ops;
    c->engine = engine;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&c->lock, NULL);
    c->budget_ms = -1;
    c->session = ply_session_new(cfg, why, why_len);
    if (!c->session) {
        destroy(&c->base);
        return NULL;
    }
    c->timeout_ms = ply_session_timeout_ms(c->session);
    if (pthread_create(&c->controller, NULL, controller_main, c) != 0) {
        snprintf(why, why_len, "cannot start a thread");
        destroy(&c->base);
        return NULL;
    }
    c->controller_running = 1;
    return &c->base;
}
