/*
 * Kind 2, search (`ply analyse`), behind the job-kind seam (kind.h): a run
 * scores every root move of one position, the game root with its history
 * played (DESIGN.md, "Game-tree analysis"). This file owns the search run's
 * request (validated by the rule engine at submit and again at restore), its
 * plan (one job per root move analysed: the same root, history and limits,
 * restricted to that move with searchmoves, multipv 1, so that every score is
 * exact and comparable), the checks of every returned line, the accepted
 * lines and the answer.
 *
 * Trust (DESIGN.md, "Trust"): a worker's line is believed only once the rule
 * engine replayed it from the position analysed: it answers the job's move,
 * every move is legal, a mate score ends in checkmate at exactly the claimed
 * distance, and with a depth limit it reached that depth. A line that fails
 * costs that attempt (the task prefers another worker, and is quarantined
 * after max_attempts), is counted and described in SearchAnswer.rejected and
 * .rejection, and is never part of the answer. An accepted line is stored
 * (the encoded SearchResult as the result's payload) before it counts, and a
 * restarted coordinator takes stored lines back through the same checks.
 *
 * A game analysis (SearchRequest.plies, `ply analyse-pgn`) plans chunks of the game's
 * positions instead of root moves, checks every line of a chunk from its own position
 * with the same line check and answers one line per position, by ply: search/game.c.
 *
 * The request is kept encoded (ply__search_run_t.request, the state file's runs.request)
 * and decoded (.req); the plan is rebuilt from it at
 * restore, so that nothing but the request and the accepted lines is stored.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/san.h"
#include "kind.h"
#include "batch.h"
#include "search/deepen.h"
#include "search/game.h"
#include "search/verify.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* A job's node estimate (the lease, dispatch.c's lease_for) from its depth limit: a generous
 * 2e4 x 3^depth, above what ply's engine and Stockfish search on one thread (an effective
 * branching factor near 2 in BENCHMARKS.md's search ladder), capped where the lease reaches
 * its own cap; from a node limit: 100 times it, as a search node costs far more than the
 * perft nodes the lease's rate floor assumes; from a movetime: that time at the lease's
 * highest rate per thread, so that the lease is at least PLY__LEASE_FACTOR x the movetime
 * on a worker of up to 16 threads. A job stops at the first limit it reaches: the smallest. */
#define SEARCH_DEPTH_BASE   2e4
#define SEARCH_DEPTH_GROWTH 3.0
#define SEARCH_EST_MAX      1e16
#define SEARCH_NODE_WEIGHT  100.0

enum { STATUS_NONE = 0, STATUS_CHECKMATE, STATUS_STALEMATE };

/* One job: its root move and, once accepted, its line. */
typedef struct sjob {
    ply_arb_move_t move;
    char uci[8];
    char *one[1];           /* the job's searchmoves: uci */
    Ply__SearchResult *res; /* the accepted result (owned), or NULL */
    Ply__AnalysedMove am;   /* its part of the answer (points into res and here) */
    char san[PLY_ARB_SAN_MAX];
    char **pv_san; /* res->lines[0]->n_pv texts, each owned */
    char worker[PLY__ID_LEN];
    char identity[PLY__IDENT_LEN];
} sjob_t;

/* A search run (run->kind_state): what it asks, its plan, its lines so far. */
typedef struct ply__search_run {
    uint8_t *request; /* what it asks, encoded (Ply__SearchRequest), as the state file keeps it */
    size_t request_len;
    Ply__SearchRequest *req;   /* decoded from request (owned) */
    char fen[PLY_ARB_FEN_MAX]; /* the position analysed, normalised */
    ply_arb_pos_t root;        /* and as the rule engine plays it */
    unsigned depth;            /* its depth limit, 0: none */
    int chess960;
    char root_fen[PLY_ARB_FEN_MAX]; /* the game root, normalised: every job's fen */
    int status;                     /* STATUS_*: the position analysed has no legal move */
    size_t njobs;                   /* written by plan (thread pool), read after planned */
    sjob_t *jobs;                   /* one per root move analysed, arbiter order */
    Ply__SearchJob sj;              /* the SearchJob of the task being handed out */
    Ply__AnalysedMove **done;       /* accepted lines in the order they came (progress) */
    size_t ndone;

    uint32_t replayed, rejected;
    char *rejection[PLY_MAX_MISMATCHES];
    uint32_t nrejection;
    Ply__SearchAnswer progress; /* what fill_progress shows (points into the above) */
    /* game analysis (SearchRequest.plies, search/game.h): its chunks are the jobs, and
     * jobs, done and status above are unused; NULL for a root-move analysis */
    ply__game_t *game;
    ply__sv_t *sv; /* a verified run's checks (search/verify.c), or NULL */
    /* a deepening analysis (SearchRequest.deepen, search/deepen.h): the jobs are slots, one
     * per root move, each handed out again and again with what deepen picks; NULL without */
    ply__deepen_t *dp;
    ply__deepen_job_t stash; /* what the last eligible picked for slot stash_slot */
    size_t stash_slot;
    int stash_ok;
    char **moves_ext; /* the history, then room for the eldest's move (a split's job) */
    char *one[PLY_ARB_MAX_MOVES]; /* the job's searchmoves */
    /* the answer's figures */
    ply_u128_t nodes;        /* nodes of the accepted lines */
    uint64_t counted_nodes;  /* ... searched in this session */
    uint64_t worker_time_us; /* the workers' time on them */
} ply__search_run_t;

/* The search state of search run @run. */
static inline ply__search_run_t *srun(const ply__run_t *run)
{
    return (ply__search_run_t *)run->kind_state;
}

/* ------------------------------------------------------------- the request */

/* Plays history move @i (@uci) on @pos, or says why it cannot be played. */
static int play_history(ply_arb_pos_t *pos, size_t i, const char *uci, char *why, size_t why_len)
{
    ply_arb_move_t mv;
    if (ply_arb_move_from_uci(pos, uci, &mv) < 0) {
        char fen[PLY_ARB_FEN_MAX];
        ply_arb_to_fen(pos, fen, sizeof fen);
        return ply_why(why, why_len, PLY_EILLEGAL, "history move %zu (%s) is not legal in %s",
                       i + 1, uci, fen);
    }
    ply_arb_make(pos, mv);
    return 0;
}

/* The searchmoves: each legal in the position analysed, none twice. */
static int check_searchmoves(const ply_arb_pos_t *pos, const Ply__SearchRequest *q, char *why,
                             size_t why_len)
{
    ply_arb_move_t seen[PLY_MAX_DIVIDE];
    for (size_t i = 0; i < q->n_searchmoves; i++) {
        if (ply_arb_move_from_uci(pos, q->searchmoves[i], &seen[i]) < 0)
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "searchmove %s is not a legal move of the position analysed",
                           q->searchmoves[i]);
        for (size_t k = 0; k < i; k++)
            if (seen[k].from == seen[i].from && seen[k].to == seen[i].to &&
                seen[k].promo == seen[i].promo && seen[k].flags == seen[i].flags)
                return ply_why(why, why_len, PLY_EINVAL, "searchmove %s is given twice",
                               q->searchmoves[i]);
    }
    return 0;
}

/*
 * Makes @run a search run of the encoded Ply__SearchRequest @request (@len bytes, copied):
 * decoded, and validated by the rule engine (the root position, each history move legal in
 * turn, each searchmove legal in the position analysed and given once); sets its request,
 * fen (the position analysed, normalised), root, depth (0: no depth limit) and chess960.
 * 0; PLY_EFEN or PLY_EILLEGAL (a bad position or move: the reason in @why, @why_len bytes,
 * names the history move's number and text, or the searchmove), PLY_EINVAL (a searchmove
 * given twice), PLY_EPROTO (@request does not decode) or PLY_ENOMEM. A game analysis
 * (plies) is planned here too (search/game.h's ply__game_new and its errors, the ply
 * named; searchmoves beside plies are PLY_EINVAL). On error what was set is freed with the
 * run.
 */
static int prepare(ply__run_t *run, const uint8_t *request, size_t len, char *why, size_t why_len)
{
    ply__search_run_t *s = srun(run);
    s->request = malloc(len ? len : 1);
    if (!s->request) return PLY_ENOMEM;
    memcpy(s->request, request, len);
    s->request_len = len;
    s->req = ply__search_request__unpack(NULL, len, request);
    if (!s->req) return ply_why(why, why_len, PLY_EPROTO, "the search request does not decode");
    const Ply__SearchRequest *q = s->req;
    if (!q->fen) return ply_why(why, why_len, PLY_EPROTO, "the search request has no position");
    ply_arb_pos_t pos;
    char reason[256];
    int r =
        ply_arb_from_fen(&pos, q->fen, q->chess960 ? PLY_ARB_CHESS960 : 0, reason, sizeof reason);
    if (r < 0) return ply_why(why, why_len, r, "bad position \"%s\": %s", q->fen, reason);
    srun(run)->chess960 = q->chess960 || pos.chess960;
    ply_arb_pos_t start = pos; /* the game's root: a game analysis's positions are from it */
    if (ply_arb_to_fen(&pos, s->root_fen, sizeof s->root_fen) < 0)
        return ply_why(why, why_len, PLY_EFEN, "bad position \"%s\"", q->fen);
    for (size_t i = 0; i < q->n_moves; i++)
        if ((r = play_history(&pos, i, q->moves[i], why, why_len)) < 0) return r;
    if ((r = check_searchmoves(&pos, q, why, why_len)) < 0) return r;
    if (q->n_plies && q->n_searchmoves)
        return ply_why(why, why_len, PLY_EINVAL, "a game analysis (plies) takes no searchmoves");
    if (q->n_plies && (r = ply__game_new(q, &start, &s->game, why, why_len)) < 0) return r;
    srun(run)->root = pos;
    srun(run)->depth = q->has_depth ? q->depth : 0;
    if (ply_arb_to_fen(&pos, srun(run)->fen, sizeof srun(run)->fen) < 0)
        return ply_why(why, why_len, PLY_EFEN, "the position analysed cannot be written");
    return 0;
}

static void *search_state_new(void)
{
    return calloc(1, sizeof(ply__search_run_t));
}

/* What a search Submit asks, validated by the rule engine, into @run. */
static int search_submit(ply_coordinator_t *c, ply__run_t *run, const Ply__Submit *s, char *why,
                         size_t why_len)
{
    (void)c;
    /* a verified search is compared exactly with a second one: only a reproducible search
     * (search/verify.c) can be, and a clock is not reproducible */
    if (s->has_verify && s->verify != PLY__VERIFY_MODE__VERIFY_MODE_NONE) {
        const Ply__SearchRequest *q = s->search;
        const char *no = q->has_movetime_ms
                             ? "--verify needs -d or --nodes, not --movetime: a search stopped "
                               "by a clock is not reproducible, so two honest workers would not "
                               "return the same line"
                         : q->n_plies ? "--verify is not supported for game analysis yet"
                                      : NULL;
        if (no) return ply_why(why, why_len, PLY_EINVAL, "%s", no);
    }
    if (s->search->has_deepen && s->search->deepen && s->has_verify &&
        s->verify != PLY__VERIFY_MODE__VERIFY_MODE_NONE)
        return ply_why(why, why_len, PLY_EINVAL,
                       "--verify searches each root move once, reproducibly, and compares: it "
                       "does not go with a deepening analysis (the request's deepen)");
    size_t len = ply__search_request__get_packed_size(s->search);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return PLY_ENOMEM;
    ply__search_request__pack(s->search, buf);
    int r = prepare(run, buf, len, why, why_len);
    free(buf);
    return r;
}

static void search_plan(ply__run_t *run);
static int search_planned(ply__run_t *run, char *why, size_t why_len);

/*
 * A stored search run, planned again from its request (validated again by the rule
 * engine): its plan must have the jobs it was stored with. A run stored unplanned (its
 * request alone) is only prepared: it is planned as a submitted run is.
 */
static int search_restore(ply_coordinator_t *c, ply__run_t *run, const ply_store_run_t *sr,
                          ply_split_t **plan, char *why, size_t why_len)
{
    if (*plan) /* the store keeps no plan of a search run */
        return ply_why(why, why_len, PLY_EDB,
                       "state file %s: run %" PRIu64 " is of job kind %d with a plan, which "
                       "this coordinator cannot run",
                       c->state_path, sr->id, sr->kind);
    char reason[PLY__WHY_LEN] = "";
    int r = prepare(run, sr->request, sr->request_len, reason, sizeof reason);
    if (r == PLY_ENOMEM) return r;
    if (r == 0 && !sr->planned) return 0;
    if (r == 0) {
        search_plan(run);
        r = search_planned(run, reason, sizeof reason);
    }
    if (r == 0 && run->sched.njobs != sr->njobs)
        snprintf(reason, sizeof reason, "its request plans %zu jobs, %u were stored",
                 run->sched.njobs, sr->njobs),
            r = PLY_EDB;
    if (r < 0)
        return ply_why(why, why_len, PLY_EDB, "state file %s: run %" PRIu64 ": %s", c->state_path,
                       sr->id, reason);
    return 0;
}

static int search_same_request(const ply__run_t *a, const ply__run_t *b)
{
    const ply__search_run_t *x = srun(a), *y = srun(b);
    return x->request_len == y->request_len &&
           (!x->request_len || memcmp(x->request, y->request, x->request_len) == 0);
}

/* The row keeps the position analysed and its depth for the status, the request to plan it
 * again. */
static void search_store_run(const ply__run_t *run, ply_store_run_t *sr, const ply_split_t **plan)
{
    const ply__search_run_t *s = srun(run);
    snprintf(sr->fen, sizeof sr->fen, "%s", s->fen);
    sr->depth = s->depth;
    sr->request = s->request, sr->request_len = s->request_len;
    *plan = NULL;
}

/* ------------------------------------------------------------- planning */

/* On the thread pool: the root moves analysed (the arbiter's order, filtered by searchmoves). */
static void search_plan(ply__run_t *run)
{
    ply__search_run_t *s = srun(run);
    if (s->game) { /* planned at prepare: its chunks */
        s->njobs = ply__game_njobs(s->game);
        return;
    }
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    int n = ply_arb_legal_moves(&srun(run)->root, moves);
    if (n == 0)
        s->status = ply_arb_in_check(&srun(run)->root) ? STATUS_CHECKMATE : STATUS_STALEMATE;
    s->jobs = calloc((size_t)n + 1, sizeof *s->jobs);
    if (!s->jobs) return;
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        char uci[8];
        ply_arb_move_to_uci(&srun(run)->root, moves[i], uci);
        int wanted = s->req->n_searchmoves == 0;
        for (size_t m = 0; !wanted && m < s->req->n_searchmoves; m++) {
            ply_arb_move_t mv;
            wanted = ply_arb_move_from_uci(&srun(run)->root, s->req->searchmoves[m], &mv) == 0 &&
                     mv.from == moves[i].from && mv.to == moves[i].to &&
                     mv.promo == moves[i].promo &&
                     ((mv.flags ^ moves[i].flags) & PLY_ARB_MOVE_CASTLE) == 0;
        }
        if (!wanted) continue;
        s->jobs[k].move = moves[i];
        memcpy(s->jobs[k].uci, uci, sizeof uci);
        s->jobs[k].one[0] = s->jobs[k].uci;
        k++;
    }
    s->njobs = k;
}

static int search_planned(ply__run_t *run, char *why, size_t why_len)
{
    ply__search_run_t *s = srun(run);
    /* a deepening analysis's tasks are slots that go round: its moves', then its split's */
    int deepen = s->req->has_deepen && s->req->deepen && s->njobs;
    ply__tasks_plan(run, !s->jobs && !s->game ? 0
                         : deepen             ? PLY__DEEPEN_SLOTS(s->njobs)
                                              : s->njobs);
    if (!s->jobs && !s->game)
        return ply_why(why, why_len, PLY_ENOMEM, "out of memory planning the search");
    return 0;
}

static int search_setup(ply__run_t *run)
{
    ply__search_run_t *s = srun(run);
    s->done = calloc(run->sched.njobs ? run->sched.njobs : 1, sizeof *s->done);
    if (!s->done) return PLY_ENOMEM;
    if (s->req->has_deepen && s->req->deepen && s->jobs) {
        char *uci[PLY_ARB_MAX_MOVES];
        for (size_t i = 0; i < s->njobs; i++) uci[i] = s->jobs[i].uci;
        uint32_t k = s->req->has_multipv && s->req->multipv ? s->req->multipv : 1;
        uint32_t depth = s->req->has_depth ? s->req->depth : PLY_SEARCH_JOB_MAX_DEPTH;
        if (!(s->dp = ply__deepen_new(&s->root, uci, s->njobs, k, depth))) return PLY_ENOMEM;
        /* a node limit counts every job's nodes from depth 1: no opening whole job, which
         * would spend more than a small limit before its first answer */
        if (s->req->has_nodes) ply__deepen_set_whole(s->dp, 0);
        /* a split's jobs play the eldest after the history */
        if (!(s->moves_ext = calloc(s->req->n_moves + 1, sizeof *s->moves_ext))) return PLY_ENOMEM;
        if (s->req->n_moves)
            memcpy(s->moves_ext, s->req->moves, s->req->n_moves * sizeof *s->moves_ext);
    }
    if (run->verif.mode != PLY__VERIFY_MODE__VERIFY_MODE_NONE) { /* search/verify.c */
        if (!(s->sv = ply__sv_new(run->sched.njobs))) return PLY_ENOMEM;
        int rc = ply__sv_setup(run);
        if (rc < 0) return rc;
    } else {
        int rc = ply__verify_tasks(run, 1); /* first computations only */
        if (rc < 0) return rc;
    }
    s->progress = (Ply__SearchAnswer)PLY__SEARCH_ANSWER__INIT;
    s->progress.fen = srun(run)->fen;
    s->progress.moves = s->done;
    if (s->status) s->progress.status = s->status == STATUS_CHECKMATE ? "checkmate" : "stalemate";
    return 0;
}

static void sjob_free(sjob_t *j)
{
    if (j->pv_san && j->res)
        for (size_t i = 0; i < j->res->lines[0]->n_pv; i++) free(j->pv_san[i]);
    free(j->pv_san);
    j->pv_san = NULL;
    if (j->res) ply__search_result__free_unpacked(j->res, NULL);
    j->res = NULL;
}

static void search_free_run(ply__run_t *run)
{
    ply__search_run_t *s = srun(run);
    ply__sv_free(&s->sv);
    ply__deepen_free(&s->dp);
    free(s->moves_ext);
    for (size_t i = 0; s->jobs && i < s->njobs; i++) sjob_free(&s->jobs[i]);
    for (uint32_t i = 0; i < s->nrejection; i++) free(s->rejection[i]);
    ply__game_free(&s->game);
    if (s->req) ply__search_request__free_unpacked(s->req, NULL);
    free(s->jobs);
    free(s->done);
    free(s->request);
    free(s);
}

/* Every search task is queued again when its attempt fails (a deepening slot, with what is
 * most useful then). */
static int search_retry(ply_coordinator_t *c, ply__run_t *run, size_t t, const char *reason)
{
    (void)c, (void)reason;
    if (srun(run)->dp) ply__deepen_dropped(srun(run)->dp, t);
    return 1;
}

/* ------------------------------------------------------------ hand-out */

/* A search job goes to a worker that searches, with the engine the run asks (any when none). */
static int search_worker_fits(const ply__run_t *run, const ply__peer_t *p)
{
    if (!(p->kinds & (1u << PLY__JOB_KIND__JOB_KIND_SEARCH))) return 0;
    const char *want = srun(run)->req->engine;
    if (!want || !want[0]) return 1;
    if (strcmp(want, "builtin") == 0) return strcmp(p->engine, "builtin") == 0;
    return strcmp(p->engine, "uci") == 0 || strncmp(p->engine, "uci:", 4) == 0; /* "uci" */
}

/* The estimate of a search of @depth plies (the header's SEARCH_DEPTH_*). */
static double depth_estimate(uint32_t depth)
{
    double e = SEARCH_DEPTH_BASE;
    for (uint32_t d = 0; d < depth && e < SEARCH_EST_MAX; d++) e *= SEARCH_DEPTH_GROWTH;
    return e < SEARCH_EST_MAX ? e : SEARCH_EST_MAX;
}

static double search_job_estimate(ply__run_t *run, size_t job)
{
    const Ply__SearchRequest *q = srun(run)->req;
    double est = SEARCH_EST_MAX, e;
    if (srun(run)->dp) /* the job about to go: what eligible picked */
        return depth_estimate(srun(run)->stash_ok && srun(run)->stash_slot == job
                                  ? srun(run)->stash.depth
                                  : ply__deepen_depth(srun(run)->dp) + 2);
    if (q->has_depth) {
        e = SEARCH_DEPTH_BASE;
        for (uint32_t d = 0; d < q->depth && e < SEARCH_EST_MAX; d++) e *= SEARCH_DEPTH_GROWTH;
        if (e < est) est = e;
    }
    if (q->has_nodes && (e = (double)q->nodes * SEARCH_NODE_WEIGHT) < est) est = e;
    if (q->has_movetime_ms &&
        (e = (double)q->movetime_ms / 1000.0 * PLY__LEASE_MAX_THREAD_RATE) < est)
        est = e;
    if (srun(run)->game) est *= (double)ply__game_positions(srun(run)->game, job);
    return est > 1 ? est : 1;
}

static void search_fill_job(const ply__run_t *run, size_t t, int no_hash, Ply__Job *job)
{
    (void)no_hash; /* a reproducible search has its own table anyway */
    ply__search_run_t *s = srun(run);
    const Ply__SearchRequest *q = s->req;
    size_t job_index = ply__job_of(run, t);
    Ply__SearchJob *sj = &s->sj;
    *sj = (Ply__SearchJob)PLY__SEARCH_JOB__INIT;
    sj->fen = s->root_fen;
    sj->n_moves = q->n_moves, sj->moves = q->moves;
    if (s->dp) {
        if (!s->stash_ok || s->stash_slot != t) /* not from eligible: dispatch always is */
            s->stash_ok = ply__deepen_pick(s->dp, NULL, &s->stash), s->stash_slot = t;
        if (!s->stash_ok) s->stash = (ply__deepen_job_t){.depth = 1, .cold = 1};
        const ply__deepen_job_t *dj = &s->stash;
        ply_arb_pos_t pos;
        const char *prefix = NULL, *uci = s->jobs[0].uci;
        ply__deepen_job_where(s->dp, dj, &pos, &prefix, &uci); /* a replaced split's: move 0 */
        size_t n = ply__deepen_job_moves(s->dp, dj, (const char **)s->one);
        if (!n) s->one[0] = (char *)uci, n = 1; /* a replaced split's */
        sj->n_searchmoves = n, sj->searchmoves = s->one;
        if (prefix) { /* played after the history (moves_ext has the room) */
            s->moves_ext[q->n_moves] = (char *)prefix;
            sj->n_moves = q->n_moves + 1, sj->moves = s->moves_ext;
        }
        sj->has_depth = 1, sj->depth = dj->depth;
        if (dj->start) sj->has_start_depth = 1, sj->start_depth = dj->start; /* warm */
        sj->has_alpha = sj->has_beta = dj->window != 0;
        sj->alpha = dj->alpha, sj->beta = dj->beta;
    } else {
        if (!s->game) sj->n_searchmoves = 1, sj->searchmoves = s->jobs[job_index].one;
        sj->has_depth = q->has_depth, sj->depth = q->depth;
        sj->has_nodes = q->has_nodes, sj->nodes = q->nodes;
        sj->has_movetime_ms = q->has_movetime_ms, sj->movetime_ms = q->movetime_ms;
    }
    sj->has_multipv = 1, sj->multipv = s->dp && s->stash.whole ? ply__deepen_multipv(s->dp) : 1;
    sj->has_chess960 = 1, sj->chess960 = srun(run)->chess960 != 0;
    /* every job of a verified run, checked or not: nothing tells a worker which is checked */
    if (s->sv) sj->has_reproducible = 1, sj->reproducible = 1;
    if (s->game) ply__game_fill_job(s->game, job_index, q, sj);
    job->has_kind = 1, job->kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    job->search = sj;
}

static void search_describe_job(const ply__run_t *run, size_t job, char *buf, size_t len);

static void search_handed_out(ply_coordinator_t *c, ply__run_t *run, size_t t)
{
    ply__search_run_t *s = srun(run);
    if (s->dp) {
        const ply__peer_t *p = run->sched.tasks[t].worker;
        ply__deepen_started(s->dp, t, &s->stash, p ? p->worker_id : NULL);
        char what[PLY__WHY_LEN];
        search_describe_job(run, t, what, sizeof what);
        ply_debug("run %" PRIu64 ": deepen: %s%s on %s", run->id, what,
                  s->stash.cold ? ", cold" : "", p ? p->name : "?");
        s->stash_ok = 0;
    }
    if (s->sv) ply__sv_handed_out(c, run, t); /* a selected job's check */
}

static int search_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t,
                           const ply__peer_t *p, int *no_hash)
{
    if (srun(run)->sv) return ply__sv_eligible(c, run, t, p, no_hash);
    *no_hash = 0;
    ply__search_run_t *s = srun(run);
    if (!ply__eligible_first(c, run, t, p)) return 0;
    if (!s->dp) return 1;
    /* one job at a time: a prefetched one would be picked on stale facts */
    if (ply__deepen_computing(s->dp, p->worker_id)) return 0;
    /* a slot of a deepening analysis: whatever helps most now, for this worker */
    s->stash_ok = ply__deepen_pick(s->dp, p->worker_id, &s->stash);
    s->stash_slot = t;
    return s->stash_ok;
}

static void deepen_limits(ply_coordinator_t *c, ply__run_t *run, uint64_t now);

static void search_verify_tick(ply_coordinator_t *c, ply__run_t *run, uint64_t now)
{
    if (run->sched.slots > 1) ply__sv_tick(c, run, now);
    if (srun(run)->dp) deepen_limits(c, run, now);
}

/* A check or tie-break of a verified run waits for a worker of the same engine. */
static void search_describe_wait(const ply__run_t *run, size_t t, char *buf, size_t len)
{
    buf[0] = '\0';
    if (srun(run)->sv) ply__sv_waiting(run, t, buf, len);
    if (!buf[0]) ply__verify_wait_text(run, t, buf, len);
}

ply__sv_t *ply__search_sv(const ply__run_t *run)
{
    return srun(run) ? srun(run)->sv : NULL;
}

/* ------------------------------------------------------------- checks */

/* The run's depth limit, 0 for none: what every line must reach unless it is a mate. */
static uint32_t want_depth(const ply__run_t *run)
{
    return srun(run)->req->has_depth ? srun(run)->req->depth : 0;
}

/*
 * The rule engine's check of line @l for job @j of @run: its first move is the job's, and
 * ply__search_replay_line from the position analysed (legal, a mate at exactly its
 * distance, depth @depth reached; 0: none asked). 0, or PLY_EMISMATCH with why (the line's
 * move first) in @why.
 */
static int check_line(const ply__run_t *run, const sjob_t *j, const Ply__SearchLine *l,
                      uint32_t depth, char *why, size_t why_len)
{
    if (l->n_pv == 0) return ply_why(why, why_len, PLY_EMISMATCH, "%s: the line is empty", j->uci);
    ply_arb_pos_t pos = srun(run)->root;
    ply_arb_move_t mv;
    if (ply_arb_move_from_uci(&pos, l->pv[0], &mv) < 0 || mv.from != j->move.from ||
        mv.to != j->move.to || mv.promo != j->move.promo ||
        ((mv.flags ^ j->move.flags) & PLY_ARB_MOVE_CASTLE))
        return ply_why(why, why_len, PLY_EMISMATCH,
                       "%s: the line starts with %s, not the job's move", j->uci, l->pv[0]);
    return ply__search_replay_line(&srun(run)->root, l, depth, j->uci, why, why_len);
}

/* Result @res for job @job: one line (a chunk of a game: one per position), checked by the
 * rule engine. 0 or PLY_EMISMATCH (@why). */
static int check_result(const ply__run_t *run, size_t job, const Ply__SearchResult *res, char *why,
                        size_t why_len)
{
    if (srun(run)->game)
        return ply__game_check(srun(run)->game, job, res, want_depth(run), why, why_len);
    const sjob_t *j = &srun(run)->jobs[job];
    if (res->n_lines != 1)
        return ply_why(why, why_len, PLY_EMISMATCH, "%s: %zu lines, the job asks for one", j->uci,
                       res->n_lines);
    return check_line(run, j, res->lines[0], want_depth(run), why, why_len);
}

/* Notes a refused line: counted, described (the first PLY_MAX_MISMATCHES), logged. */
static void note_rejection(ply__run_t *run, const char *line)
{
    ply__search_run_t *s = srun(run);
    s->rejected++;
    if (s->nrejection < PLY_MAX_MISMATCHES) {
        char *copy = malloc(PLY_MAX_TEXT + 1);
        if (copy) {
            ply_msg_text_sanitize(copy, PLY_MAX_TEXT + 1, line);
            s->rejection[s->nrejection++] = copy;
        }
    }
    s->progress.has_rejected = 1, s->progress.rejected = s->rejected;
    s->progress.n_rejection = s->nrejection, s->progress.rejection = s->rejection;
    ply_warn("run %" PRIu64 ": line refused: %s", run->id, line);
}

/* Fills job @j's part of the answer from its accepted result (SAN by the rule engine). */
static int fill_analysed(const ply__run_t *run, sjob_t *j)
{
    const Ply__SearchLine *l = j->res->lines[0];
    if (ply__search_pv_san(&srun(run)->root, l, &j->pv_san) < 0) return PLY_ENOMEM;
    snprintf(j->san, sizeof j->san, "%s", j->pv_san[0]);
    Ply__AnalysedMove *a = &j->am;
    *a = (Ply__AnalysedMove)PLY__ANALYSED_MOVE__INIT;
    a->move = j->uci;
    a->san = j->san;
    a->line = j->res->lines[0];
    a->n_pv_san = l->n_pv, a->pv_san = j->pv_san;
    a->has_nodes = 1, a->nodes = j->res->nodes;
    a->has_time_us = 1, a->time_us = j->res->time_us;
    a->engine = j->res->engine;
    a->worker_id = j->worker;
    a->identity = j->identity;
    return 0;
}

/* A root move's line (@res, owned from here) into the answer; 0 or PLY_ENOMEM. */
static int accept_root_move(ply__run_t *run, size_t job, Ply__SearchResult *res, const char *worker,
                            const char *identity)
{
    ply__search_run_t *s = srun(run);
    sjob_t *j = &s->jobs[job];
    j->res = res;
    snprintf(j->worker, sizeof j->worker, "%.*s", (int)sizeof j->worker - 1, worker);
    snprintf(j->identity, sizeof j->identity, "%s", identity);
    if (fill_analysed(run, j) < 0) return PLY_ENOMEM;
    s->done[s->ndone++] = &j->am;
    s->progress.n_moves = s->ndone;
    return 0;
}

/* Takes checked result @res (owned from here) of job @job into the answer: a root move's
 * line, or a chunk's lines of a game; 0 or PLY_ENOMEM. */
static int accept_line(ply__run_t *run, size_t job, Ply__SearchResult *res, const char *worker,
                       const char *identity)
{
    ply__search_run_t *s = srun(run);
    uint32_t lines = (uint32_t)res->n_lines;
    int rc = s->game ? ply__game_accept(s->game, job, res, worker, identity)
                     : accept_root_move(run, job, res, worker, identity);
    if (rc < 0) return rc;
    if (s->game) s->progress.moves = ply__game_answer(s->game, &s->progress.n_moves);
    /* exact in 128 bits (srun(run)->nodes): one worker's absurd count never wraps the total */
    ply_u128_add(&srun(run)->nodes, ply_u128_make(0, res->nodes));
    /* the rate's nodes (/status, /metrics): every searched node counts, saturating */
    srun(run)->counted_nodes = ply__add_sat(srun(run)->counted_nodes, res->nodes);
    s->replayed += lines;
    s->progress.has_replayed = 1, s->progress.replayed = s->replayed;
    /* SearchAnswer.nodes has no high word: exact, or absent */
    s->progress.has_nodes = ply_u128_hi(srun(run)->nodes) == 0;
    s->progress.nodes = ply_u128_lo(srun(run)->nodes);
    ply__job_settled(run, job);
    if (run->sched.slots == 1) ply__task_done(run, job); /* else search/verify.c ends its tasks */
    if (run->sched.done == run->sched.njobs) ply__run_done(run);
    return 0;
}

int ply__search_accept(ply__run_t *run, size_t job, Ply__SearchResult *res, const char *worker,
                       const char *identity)
{
    return accept_line(run, job, res, worker, identity);
}

/* The answer's figures from the lines in it (after one left). */
static void progress_totals(ply__run_t *run)
{
    ply__search_run_t *s = srun(run);
    s->progress.n_moves = s->ndone;
    s->progress.has_replayed = 1, s->progress.replayed = s->replayed;
    s->progress.has_nodes = ply_u128_hi(srun(run)->nodes) == 0;
    s->progress.nodes = ply_u128_lo(srun(run)->nodes);
}

void ply__search_unaccept(ply__run_t *run, size_t job)
{
    ply__search_run_t *s = srun(run);
    sjob_t *j = s->game ? NULL : &s->jobs[job];
    if (!j || !run->sched.settled[job] || !j->res)
        return; /* verified runs analyse root moves only */
    for (size_t i = 0; i < s->ndone; i++)
        if (s->done[i] == &j->am) {
            memmove(s->done + i, s->done + i + 1, (s->ndone - i - 1) * sizeof *s->done);
            s->ndone--;
            break;
        }
    srun(run)->nodes -= (ply_u128_t)j->res->nodes; /* the exact inverse of accept_line's add */
    if (srun(run)->counted_nodes != UINT64_MAX)
        srun(run)->counted_nodes -=
            srun(run)->counted_nodes < j->res->nodes ? srun(run)->counted_nodes : j->res->nodes;
    s->replayed -= (uint32_t)j->res->n_lines;
    sjob_free(j);
    progress_totals(run);
    ply__job_unsettled(run, job);
    /* its last job settled and caught a liar in the same step: not done after all (the run
     * is answered only when the loop reaps it, after this) */
    ply__run_reopen(run);
}

const char *ply__search_job_label(const ply__run_t *run, size_t job, char *buf, size_t len);

/* Job @job in a few words for messages: its root move, or its chunk of the game. */
const char *ply__search_job_label(const ply__run_t *run, size_t job, char *buf, size_t len)
{
    if (srun(run)->game)
        ply__game_describe_job(srun(run)->game, job, buf, len);
    else
        snprintf(buf, len, "%s", srun(run)->jobs[job].uci);
    return buf;
}

static void deepen_take_result(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                               const Ply__Result *r);

static void search_take_result(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                               const Ply__Result *r)
{
    if (srun(run)->dp) {
        deepen_take_result(c, run, t, p, r);
        return;
    }
    char why[PLY__WHY_LEN], line[2 * PLY__WHY_LEN], what[PLY__WHY_LEN];
    int rc = r->search
                 ? check_result(run, ply__job_of(run, t), r->search, why, sizeof why)
                 : ply_why(why, sizeof why, PLY_EMISMATCH, "%s: a perft count for a search job",
                           ply__search_job_label(run, ply__job_of(run, t), what, sizeof what));
    if (rc < 0) {
        snprintf(line, sizeof line, "%s (identity %s): %s (job %" PRIu64 ", attempt %u)", p->name,
                 p->identity, why, run->sched.job_base + t, r->attempt);
        note_rejection(run, line);
        ply__task_requeue(c, run, t, 1, line);
        return;
    }
    /* stored before it counts (the encoded SearchResult): a restart never loses it */
    size_t len = ply__search_result__get_packed_size(r->search);
    uint8_t *buf = malloc(len ? len : 1);
    Ply__SearchResult *own = NULL;
    if (buf) {
        ply__search_result__pack(r->search, buf);
        own = ply__search_result__unpack(NULL, len, buf);
    }
    ply_store_result_t sr;
    memset(&sr, 0, sizeof sr);
    sr.run_id = run->id, sr.job = (uint32_t)ply__job_of(run, t), sr.attempt = r->attempt;
    sr.role = (uint32_t)ply__role_of(run, t); /* a verified run's check or tie-break */
    sr.nodes = r->search->nodes, sr.time_us = r->search->time_us;
    sr.worker_id = p->worker_id, sr.seed = p->seed, sr.identity = p->identity;
    sr.payload = buf, sr.payload_len = len;
    rc = !own ? PLY_ENOMEM : ply__result_store(c, run, &sr, why, sizeof why);
    free(buf);
    if (rc == 0) {
        ply__run_computed(c, run, 1);
        srun(run)->worker_time_us += r->search->time_us;
        if (srun(run)->sv) /* compared with the job's other searches first */
            ply__sv_take(c, run, t, own, p->worker_id, p->identity, p->engine_id, r->attempt, 1);
        else
            rc = accept_line(run, ply__job_of(run, t), own, p->worker_id, p->identity);
        own = NULL;
    }
    if (own) ply__search_result__free_unpacked(own, NULL);
    if (rc < 0) {
        ply__task_done(run, t);
        ply__run_fail(run, rc, "run %" PRIu64 ": %s", run->id,
                      rc == PLY_ENOMEM ? "out of memory" : why);
    }
}

/* ------------------------------------------------------ deepening analysis */

/* A deepening run ends (done, its deepest completed iteration the answer) at its first limit:
 * the depth, the nodes of all its jobs, or its time since it was accepted. Not before an
 * iteration is complete: an analysis answers with a line. */
static void deepen_limits(ply_coordinator_t *c, ply__run_t *run, uint64_t now)
{
    ply__search_run_t *s = srun(run);
    const Ply__SearchRequest *q = s->req;
    uint32_t depth = ply__deepen_depth(s->dp);
    uint64_t end_ms = run->accepted_ms + (q->has_movetime_ms ? q->movetime_ms : 0);
    if (run->state != PLY__RUN_ACTIVE) return;
    if (q->has_movetime_ms && now < end_ms) ply__wake_at(c, end_ms); /* then looked at again */
    if (depth && (depth >= (q->has_depth ? q->depth : PLY_SEARCH_JOB_MAX_DEPTH) ||
                  (q->has_nodes && ply__deepen_nodes(s->dp) >= q->nodes) ||
                  (q->has_movetime_ms && now >= end_ms))) {
        ply__run_done(run);
        return;
    }
    /* nothing to hand out and nothing in flight short of the limit is a bug's symptom (a
     * threshold waited for that nothing computes): an honest error, never a run that hangs */
    ply__deepen_job_t j;
    if (!ply__deepen_in_flight(s->dp) && !ply__deepen_pick(s->dp, NULL, &j))
        ply__run_fail(run, PLY_ESTATE,
                      "the deepening analysis stalled after depth %u: no search to hand out "
                      "and none in flight (a coordinator bug: please report it with the "
                      "position)",
                      depth);
}

/*
 * Worker @p's Result @r for slot @t of deepening @run: checked by the rule engine like every
 * line (a refused one costs the attempt and goes to another worker), then a fact of the
 * analysis (search/deepen.h). Deepening lines are not stored: a restarted coordinator
 * deepens again from the start. The slot goes round again; every iteration the line
 * completes goes to the attached client at once.
 */
static void deepen_take_result(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                               const Ply__Result *r)
{
    ply__search_run_t *s = srun(run);
    const ply__deepen_job_t *dj = ply__deepen_job_of(s->dp, t);
    char why[PLY__WHY_LEN], line[2 * PLY__WHY_LEN];
    char what[PLY__WHY_LEN];
    search_describe_job(run, t, what, sizeof what);
    int rc = !dj         ? ply_why(why, sizeof why, PLY_EMISMATCH, "a result for no job")
             : !r->search ? ply_why(why, sizeof why, PLY_EMISMATCH,
                                    "%s: a perft count for a search job", what)
                  : ply__deepen_check(s->dp, dj, r->search, why, sizeof why);
    if (rc < 0) {
        snprintf(line, sizeof line, "%s (identity %s): %s (job %" PRIu64 ", attempt %u)", p->name,
                 p->identity, why, run->sched.job_base + t, r->attempt);
        note_rejection(run, line);
        ply__deepen_dropped(s->dp, t);
        ply__task_requeue(c, run, t, 1, line);
        return;
    }
    Ply__SearchResult *own = ply__search_result_dup(r->search);
    uint64_t now = ply_time_ms();
    int done = own ? ply__deepen_take(s->dp, t, own, p->worker_id, p->identity, r->search->nodes,
                                      ply_elapsed_ms(now, run->accepted_ms))
                   : PLY_ENOMEM;
    if (done < 0) {
        ply__task_done(run, t);
        ply__deepen_dropped(s->dp, t);
        ply__run_fail(run, PLY_ENOMEM, "run %" PRIu64 ": out of memory", run->id);
        return;
    }
    ply__run_computed(c, run, 1);
    s->worker_time_us += r->search->time_us;
    ply_u128_add(&s->nodes, ply_u128_make(0, r->search->nodes));
    s->counted_nodes = ply__add_sat(s->counted_nodes, r->search->nodes);
    s->replayed++;
    progress_totals(run);
    ply__deepen_answer(s->dp, &s->progress);
    ply__task_recycle(run, t); /* the slot goes round again, with what helps most then */
    if (done > 0) {
        const Ply__SearchAnswer *a = &s->progress;
        const Ply__SearchLine *b = a->n_moves ? a->moves[0]->line : NULL;
        char score[32] = "";
        if (b && b->has_mate) snprintf(score, sizeof score, "mate %d", b->mate);
        else if (b) snprintf(score, sizeof score, "%d cp", b->score_cp);
        ply_info("run %" PRIu64 ": depth %u: %s %s, %" PRIu64 " nodes, %" PRIu64 " ms", run->id,
                 a->depth, b ? a->moves[0]->move : "-", score, ply__deepen_nodes(s->dp),
                 ply_elapsed_ms(now, run->accepted_ms));
        if (run->client && !run->detach)
            ply__send_progress(c, run->client, run, NULL, 0, run->owner);
    }
    deepen_limits(c, run, now);
}

/* A Cancel of a deepening run that has completed an iteration ends it with that answer. */
static int search_stop(ply__run_t *run)
{
    const ply__search_run_t *s = srun(run);
    return s->dp && ply__deepen_depth(s->dp) > 0;
}

/* A search's nodes are in its SearchResult (the envelope checked it has them); a perft
 * count by mistake says its own. */
static uint64_t search_result_nodes(const Ply__Result *r)
{
    return r->search ? r->search->nodes : r->nodes;
}

/* A Result the envelope refused (malformed or cut short): that attempt fails now, as a line
 * the rule engine refuses does, and is reported; the job goes to another worker. */
static void search_refused_result(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                                  const char *why)
{
    if (srun(run)->dp) ply__deepen_dropped(srun(run)->dp, t);
    char line[2 * PLY__WHY_LEN], what[PLY__WHY_LEN];
    snprintf(line, sizeof line,
             "%s (identity %s): %s: a malformed result (%s) (job %" PRIu64 ", attempt %u)", p->name,
             p->identity, ply__search_job_label(run, ply__job_of(run, t), what, sizeof what), why,
             run->sched.job_base + t, run->sched.tasks[t].attempt);
    note_rejection(run, line);
    ply__task_requeue(c, run, t, 1, line);
}

/* A stored line, taken back through the same checks; one that fails them is computed again. */
static int search_restore_result(ply_coordinator_t *c, ply__run_t *run, const ply_store_result_t *r,
                                 char *why, size_t why_len)
{
    if (r->job >= run->sched.njobs || r->role >= run->sched.slots || !r->payload)
        return ply_why(why, why_len, PLY_EDB,
                       "state file %s: run %" PRIu64 ": a result for job %u (computation %u) "
                       "that the run cannot have",
                       c->state_path, run->id, r->job, r->role);
    size_t t = ply__task_of(run, r->job, (int)r->role);
    if (run->sched.tasks[t].state == PLY__TASK_DONE) return 0;
    char reason[PLY__WHY_LEN], what[PLY__WHY_LEN];
    Ply__SearchResult *res = ply__search_result__unpack(NULL, r->payload_len, r->payload);
    int rc = res ? check_result(run, r->job, res, reason, sizeof reason)
                 : ply_why(reason, sizeof reason, PLY_EPROTO, "%s: the stored line does not decode",
                           ply__search_job_label(run, r->job, what, sizeof what));
    if (rc < 0) {
        ply_warn("run %" PRIu64 ": stored line of job %u refused, computed again: %s", run->id,
                 r->job, reason);
        if (res) ply__search_result__free_unpacked(res, NULL);
        return 0;
    }
    if (srun(run)->sv) { /* kept for comparison: search_resumed settles */
        ply__sv_take(c, run, t, res, r->worker_id, r->identity ? r->identity : "", "", r->attempt,
                     0);
        return 1;
    }
    rc = accept_line(run, r->job, res, r->worker_id, r->identity ? r->identity : "");
    return rc < 0 ? rc : 1;
}

/* An infinite deepening analysis ends only when stopped. */
static int search_endless(const ply__run_t *run)
{
    const ply__search_run_t *s = srun(run);
    return s && s->dp && s->req && s->req->has_infinite && s->req->infinite;
}

static void search_resumed(ply_coordinator_t *c, ply__run_t *run)
{
    /* a deepening analysis stores no lines: it deepens again from the start, unless it is an
     * infinite one, which nobody would be left to stop (its client's Cancel went to the
     * coordinator that stopped) */
    if (search_endless(run)) {
        ply__run_fail(run, PLY_ECANCELED,
                      "an infinite analysis does not resume after a restart (nobody would be "
                      "left to stop it): submit it again");
        return;
    }
    if (srun(run)->sv) ply__sv_resumed(c, run);
    if (run->sched.done == run->sched.njobs) ply__run_done(run);
}

/* ------------------------------------------------------------- describing */

static void search_describe_run(const ply__run_t *run, char *buf, size_t len)
{
    const Ply__SearchRequest *q = srun(run)->req;
    char lim[96] = "";
    size_t k = 0;
    if (q->has_depth) k += (size_t)snprintf(lim + k, sizeof lim - k, ", depth %u", q->depth);
    if (q->has_nodes && k < sizeof lim)
        k += (size_t)snprintf(lim + k, sizeof lim - k, ", nodes %" PRIu64, q->nodes);
    if (q->has_movetime_ms && k < sizeof lim)
        snprintf(lim + k, sizeof lim - k, ", movetime %u ms", q->movetime_ms);
    snprintf(buf, len, "search (engine \"%s\"%s) of %s",
             q->engine && q->engine[0] ? q->engine : "any", lim, srun(run)->fen);
}

static void search_describe_plan(const ply__run_t *run, char *buf, size_t len)
{
    const ply__search_run_t *s = srun(run);
    if (s->game)
        snprintf(buf, len,
                 "%zu positions of a game in %zu chunks of up to %d, each searched backwards",
                 s->req->n_plies, run->sched.njobs, PLY__GAME_CHUNK);
    else if (s->status)
        snprintf(buf, len, "no legal move (%s): no jobs",
                 s->status == STATUS_CHECKMATE ? "checkmate" : "stalemate");
    else if (s->req->has_deepen && s->req->deepen)
        snprintf(buf, len, "%zu root moves, deepening (%zu slots)", s->njobs, run->sched.njobs);
    else
        snprintf(buf, len, "%zu root moves, one job each", run->sched.njobs);
}

static void search_describe_job(const ply__run_t *run, size_t job, char *buf, size_t len)
{
    const ply__deepen_job_t *dj = srun(run)->dp ? ply__deepen_job_of(srun(run)->dp, job) : NULL;
    ply_arb_pos_t pos;
    const char *prefix, *uci, *set[PLY_ARB_MAX_MOVES];
    if (srun(run)->dp && dj && ply__deepen_job_where(srun(run)->dp, dj, &pos, &prefix, &uci) &&
        !uci)
        snprintf(buf, len, "%s, every root move to depth %u (%u lines)", srun(run)->fen,
                 dj->depth, ply__deepen_multipv(srun(run)->dp));
    else if (srun(run)->dp && dj && ply__deepen_job_where(srun(run)->dp, dj, &pos, &prefix, &uci))
        snprintf(buf, len, "%s, %s%s%s to depth %u%s", srun(run)->fen, prefix ? prefix : "",
                 prefix ? " then " : "root move ", uci, dj->depth,
                 ply__deepen_job_moves(srun(run)->dp, dj, set) > 1 ? " and others (null window)"
                 : dj->window                                     ? " (null window)"
                                                                  : "");
    else if (srun(run)->dp)
        snprintf(buf, len, "%s, slot %zu of a deepening analysis", srun(run)->fen, job);
    else if (srun(run)->game)
        ply__game_describe_job(srun(run)->game, job, buf, len);
    else
        snprintf(buf, len, "%s, root move %s", srun(run)->fen, srun(run)->jobs[job].uci);
}

/* ---------------------------------------------------- answers and progress */

static void search_fill_asked(const ply__run_t *run, ply__asked_t *asked)
{
    Ply__RunAsked *a = &asked->msg;
    *a = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    a->has_kind = 1, a->kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    a->search = srun(run)->req;
    if (run->verif.mode != PLY__VERIFY_MODE__VERIFY_MODE_NONE) a->has_verify = 1;
    a->verify = (Ply__VerifyMode)run->verif.mode;
    a->has_verify_ppm = run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE;
    a->verify_ppm = run->verif.ppm;
}

static void search_summary(const ply__run_t *run, ply__summary_t *sum)
{
    const ply__search_run_t *s = srun(run);
    memset(sum, 0, sizeof *sum);
    sum->fen = s->fen;
    sum->depth = s->depth;
    sum->nodes_limit = s->req && s->req->has_nodes ? s->req->nodes : 0;
    sum->movetime_ms = s->req && s->req->has_movetime_ms ? s->req->movetime_ms : 0;
    sum->nodes = s->nodes;
    sum->counted_nodes = s->counted_nodes;
    if (s->dp) /* its tasks go round: its root moves, settled in the iteration in progress */
        sum->jobs_total = (uint32_t)s->njobs,
        sum->jobs_done = run->state == PLY__RUN_DONE ? (uint32_t)s->njobs
                                                     : ply__deepen_settled(s->dp);
}

/* A finished search run makes no claim of what it asked (its record keeps its request, but its
 * answers never said it again). */
static int search_asked_again(const ply__finished_t *f, ply__asked_t *a)
{
    (void)f, (void)a;
    return 0;
}

static void search_fill_accepted(const ply__run_t *run, Ply__Accepted *a)
{
    a->fen = (char *)srun(run)->fen;
    if (!ply__run_planned(run)) return;
    a->has_split_depth = 1, a->split_depth = 0;
    a->has_paths = 1, a->paths = srun(run)->game ? run->sched.njobs : srun(run)->njobs;
}

static void search_fill_progress(const ply__run_t *run, Ply__RunProgress *rp, int answer)
{
    const ply__search_run_t *s = srun(run);
    rp->has_nodes = 1, rp->nodes = ply_u128_lo(srun(run)->nodes);
    rp->has_nodes_hi = ply_u128_hi(srun(run)->nodes) != 0,
    rp->nodes_hi = ply_u128_hi(srun(run)->nodes);
    rp->fen = (char *)srun(run)->fen;
    if (srun(run)->depth) rp->has_depth = 1, rp->depth = srun(run)->depth;
    if (s->dp) ply__deepen_answer(s->dp, (Ply__SearchAnswer *)&s->progress);
    if (s->done && answer) rp->search = (Ply__SearchAnswer *)&s->progress; /* its lines */
}

static zmsg_t *search_answer(ply_coordinator_t *c, ply__run_t *run)
{
    (void)c;
    ply__search_run_t *s = srun(run);
    Ply__AnalysedMove **sorted = calloc(s->ndone + 1, sizeof *sorted);
    if (!sorted) return NULL;
    size_t nsorted = s->ndone;
    if (s->game) { /* one line per position, by ply */
        Ply__AnalysedMove **kept = ply__game_answer(s->game, &nsorted);
        free(sorted);
        if (!(sorted = calloc(nsorted + 1, sizeof *sorted))) return NULL;
        memcpy(sorted, kept, nsorted * sizeof *sorted);
    } else if (s->dp) { /* the deepest completed iteration, best first already */
        Ply__SearchAnswer a = PLY__SEARCH_ANSWER__INIT;
        ply__deepen_answer(s->dp, &a);
        free(sorted);
        if (!(sorted = calloc(a.n_moves + 1, sizeof *sorted))) return NULL;
        memcpy(sorted, a.moves, a.n_moves * sizeof *sorted);
        nsorted = a.n_moves;
        ply__deepen_answer(s->dp, &s->progress);
    } else {
        memcpy(sorted, s->done, s->ndone * sizeof *sorted);
        qsort(sorted, s->ndone, sizeof *sorted, ply__search_cmp_analysed);
    }
    Ply__SearchAnswer ans = s->progress;
    ans.moves = sorted, ans.n_moves = nsorted;
    ans.has_replayed = 1, ans.has_rejected = 1;
    ply__asked_t asked;
    search_fill_asked(run, &asked);
    Ply__RunResult rr = PLY__RUN_RESULT__INIT;
    rr.has_run_id = 1, rr.run_id = run->id;
    rr.fen = srun(run)->fen;
    if (srun(run)->depth) rr.has_depth = 1, rr.depth = srun(run)->depth;
    rr.has_nodes = 1, rr.nodes = ply_u128_lo(srun(run)->nodes);
    rr.has_nodes_hi = ply_u128_hi(srun(run)->nodes) != 0,
    rr.nodes_hi = ply_u128_hi(srun(run)->nodes);
    /* a deepening analysis's jobs are its root moves' (its slots go round) */
    rr.has_jobs = 1, rr.jobs = (uint32_t)(s->dp ? s->njobs : run->sched.njobs);
    uint64_t now = ply_time_ms();
    rr.has_time_ms = 1, rr.time_ms = ply__run_time_ms(run, now);
    rr.has_queued_ms = 1, rr.queued_ms = ply__run_queued_ms(run, now);
    rr.has_chess960 = 1, rr.chess960 = srun(run)->chess960 != 0;
    rr.has_worker_time_us = 1, rr.worker_time_us = srun(run)->worker_time_us;
    rr.has_results_restored = 1, rr.results_restored = run->results_restored;
    rr.has_results_computed = 1, rr.results_computed = run->results_computed;
    rr.asked = &asked.msg;
    rr.search = &ans;
    Ply__Verification ver;
    if (s->sv) {
        ply__sv_report(run, s->sv, &ver);
        rr.verification = &ver;
        ply_info("run %" PRIu64 ": verification: %s", run->id, ver.summary);
    }
    zmsg_t *z = ply__run_result_encode(run, &rr);
    char total[PLY_U128_DEC_LEN], best[32] = "";
    ply_u128_to_dec(srun(run)->nodes, total, sizeof total);
    if (nsorted && sorted[0]->line->has_mate)
        snprintf(best, sizeof best, "mate %d", sorted[0]->line->mate);
    else if (nsorted)
        snprintf(best, sizeof best, "%d cp", sorted[0]->line->score_cp);
    if (s->game)
        ply_info("run %" PRIu64 ": game analysis: %zu positions in %zu chunks, %u lines refused, "
                 "%s nodes, %" PRIu64 " ms",
                 run->id, nsorted, run->sched.njobs, s->rejected, total,
                 ply_time_ms() - run->submitted_ms);
    else if (s->dp && nsorted)
        ply_info("run %" PRIu64 ": deepening analysis of %s: depth %u, best %s (%s), %u lines "
                 "replayed, %u refused, %s nodes, %" PRIu64 " ms",
                 run->id, srun(run)->fen, ply__deepen_depth(s->dp), sorted[0]->move, best,
                 s->replayed, s->rejected, total, ply_time_ms() - run->submitted_ms);
    else if (s->ndone)
        ply_info("run %" PRIu64 ": search of %s: best %s (%s), %zu moves, %u lines refused, %s "
                 "nodes, %" PRIu64 " ms",
                 run->id, srun(run)->fen, sorted[0]->move, best, s->ndone, s->rejected, total,
                 ply_time_ms() - run->submitted_ms);
    else
        ply_info("run %" PRIu64 ": search of %s: %s, no moves", run->id, srun(run)->fen,
                 s->progress.status ? s->progress.status : "no root move");
    free(sorted);
    return z;
}

const ply__kind_t ply__kind_search = {
    .id = PLY__JOB_KIND__JOB_KIND_SEARCH,
    .name = "search",
    .state_new = search_state_new,
    .submit = search_submit,
    .restore = search_restore,
    .same_request = search_same_request,
    .store_run = search_store_run,
    .plan = search_plan,
    .planned = search_planned,
    .setup = search_setup,
    .free_run = search_free_run,
    .worker_fits = search_worker_fits,
    .job_estimate = search_job_estimate,
    .fill_job = search_fill_job,
    .handed_out = search_handed_out,
    .eligible = search_eligible,
    .verify_tick = search_verify_tick,
    .describe_wait = search_describe_wait,
    .take_result = search_take_result,
    .result_nodes = search_result_nodes,
    .refused_result = search_refused_result,
    .restore_result = search_restore_result,
    .resumed = search_resumed,
    .describe_run = search_describe_run,
    .describe_plan = search_describe_plan,
    .describe_job = search_describe_job,
    .retry = search_retry,
    .summary = search_summary,
    .asked_again = search_asked_again,
    .fill_asked = search_fill_asked,
    .fill_accepted = search_fill_accepted,
    .fill_progress = search_fill_progress,
    .answer = search_answer,
    .stop = search_stop,
    .endless = search_endless,
};
