/*
 * Analysis jobs (analysis.h): the generic calls, and the builtin backend on
 * ply's engine (search.h). The engine speaks moves and mate scores in plies;
 * a job's answer speaks UCI text and mate in moves, so that the worker's
 * message, and any later backend, need no board.
 */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/movegen.h"
#include "util/error.h"
#include "util/time.h"

typedef struct builtin {
    ply_analysis_t base; /* first: a ply_analysis_t * is a builtin_t * */
    ply_engine_t *engine;
    ply_engine_t *repro;  /* one thread, PLY_ANALYSIS_REPRO_HASH_MIB: reproducible jobs */
    ply_engine_t *now;    /* the engine of the job running: engine or repro */
    ply_search_pos_t pos; /* large (the history): kept here, not on a stack */
    ply_search_limits_t lim;
    ply_search_result_t res;
} builtin_t;

int ply_analysis_job_position(const ply_analysis_job_t *job, ply_search_pos_t *pos,
                              ply_move_t *searchmoves, char *why, size_t why_len)
{
    char how[160];
    int rc =
        ply_search_pos_set(pos, job->fen, job->chess960, job->moves, job->n_moves, how, sizeof how);
    if (rc < 0) {
        /* the FEN's own reason, or "move N (m): ..." of the history */
        snprintf(why, why_len, "%s%s",
                 job->n_moves && strncmp(how, "move ", 5) == 0 ? "history " : "", how);
        return rc;
    }
    if (job->n_searchmoves > PLY_MAX_MOVES) {
        snprintf(why, why_len, "%d searchmoves, at most %d", job->n_searchmoves, PLY_MAX_MOVES);
        return PLY_EINVAL;
    }
    for (int i = 0; i < job->n_searchmoves; i++) {
        const char *s = job->searchmoves[i];
        rc = s ? ply_board_move_from_uci(&pos->root, s, &searchmoves[i]) : PLY_EPARSE;
        if (rc < 0) {
            snprintf(why, why_len, "searchmoves %d (%s): %s", i + 1, s ? s : "(null)",
                     rc == PLY_EPARSE ? "not UCI notation" : "illegal in this position");
            return rc;
        }
    }
    return 0;
}

/* The position and limits of @job into @b; 0 or an error with its reason. */
static int builtin_setup(builtin_t *b, const ply_analysis_job_t *job, char *why, size_t why_len)
{
    ply_search_limits_t *l = &b->lim;
    ply_search_limits_init(l);
    int rc = ply_analysis_job_position(job, &b->pos, l->searchmoves, why, why_len);
    if (rc < 0) return rc;
    l->depth = job->depth;
    l->nodes = job->nodes;
    l->movetime_ms = job->movetime_ms;
    l->multipv = job->multipv > 0 ? job->multipv : 1;
    l->n_searchmoves = job->n_searchmoves;
    l->has_window = job->has_window;
    l->start_depth = job->start_depth;
    l->alpha = job->alpha;
    l->beta = job->beta;
    return 0;
}

/* One engine line as text: the PV replayed from @root. A move that is not legal there is
 * an engine bug: the job fails with PLY_EWORKER and the move named in @why, rather than
 * sending a shortened line that would hide it (the coordinator replays every PV too). */
static int line_out(ply_analysis_line_t *o, int rank, const ply_search_line_t *l,
                    const ply_board_t *root, char *why, size_t why_len)
{
    o->multipv = rank;
    o->is_mate = ply_score_is_mate(l->score);
    o->score = o->is_mate ? ply_score_mate_moves(l->score) : l->score;
    o->bound = l->bound;
    o->depth = l->depth;
    o->seldepth = l->seldepth;
    o->n_pv = 0;
    ply_board_t pos = *root;
    ply_move_t legal[PLY_MAX_MOVES];
    for (int i = 0; i < l->n_pv && i < PLY_SEARCH_MAX_PLY; i++) {
        int n = ply_board_legal_moves(&pos, legal), ok = 0;
        for (int k = 0; k < n && !ok; k++) ok = legal[k] == l->pv[i];
        if (!ok) {
            char uci[PLY_ANALYSIS_MOVE_LEN];
            ply_board_move_to_uci(&pos, l->pv[i], uci);
            snprintf(why, why_len, "the engine's line %d has an illegal move at ply %d (%s)", rank,
                     i + 1, uci);
            return PLY_EWORKER;
        }
        ply_board_move_to_uci(&pos, l->pv[i], o->pv[o->n_pv++]);
        ply_board_play(&pos, l->pv[i]);
    }
    return 0;
}

/* The reporting thread's news after each iteration: only the node count is wanted. */
static void on_info(const ply_search_info_t *info, void *arg)
{
    atomic_store((_Atomic uint64_t *)arg, info->nodes);
}

static int builtin_run(ply_analysis_t *a, const ply_analysis_job_t *job, ply_analysis_result_t *out,
                       char *why, size_t why_len)
{
    builtin_t *b = (builtin_t *)a;
    int rc = builtin_setup(b, job, why, why_len);
    if (rc < 0) return rc;
    uint64_t t0 = ply_time_ns();
    rc = ply_engine_search(b->now ? b->now : b->engine, &b->pos, &b->lim,
                           job->progress ? on_info : NULL, (void *)job->progress, &b->res);
    uint64_t t1 = ply_time_ns();
    if (rc < 0) {
        snprintf(why, why_len, "the search failed: %s", ply_strerror(rc));
        return rc;
    }
    out->n_lines = b->res.n_lines;
    for (int i = 0; i < b->res.n_lines; i++)
        if ((rc = line_out(&out->lines[i], i + 1, &b->res.lines[i], &b->pos.root, why, why_len)))
            return rc;
    out->nodes = b->res.nodes;
    out->time_us = (t1 - t0) / 1000;
    return 0;
}

/* Both engines hear a stop: the reproducible one may be the one searching. */
static void builtin_stop(ply_analysis_t *a)
{
    builtin_t *b = (builtin_t *)a;
    ply_engine_stop(b->engine);
    if (b->repro) ply_engine_stop(b->repro);
}

static void builtin_clear_stop(ply_analysis_t *a)
{
    builtin_t *b = (builtin_t *)a;
    ply_engine_clear_stop(b->engine);
    if (b->repro) ply_engine_clear_stop(b->repro);
}

static void builtin_destroy(ply_analysis_t *a)
{
    builtin_t *b = (builtin_t *)a;
    ply_engine_destroy(&b->engine);
    ply_engine_destroy(&b->repro);
    free(b);
}

/* A reproducible job searches on its own engine (one thread, its own table, cleared), never on
 * the shared table of the worker's threads, whose contents depend on the jobs before. */
static int builtin_prepare(ply_analysis_t *a, int reproducible, char *why, size_t why_len)
{
    builtin_t *b = (builtin_t *)a;
    b->now = b->engine;
    if (!reproducible) return 0;
    if (!b->repro && !(b->repro = ply_engine_new(PLY_ANALYSIS_REPRO_HASH_MIB, 1))) {
        snprintf(why, why_len, "cannot allocate the %d MiB table of a reproducible search",
                 PLY_ANALYSIS_REPRO_HASH_MIB);
        return PLY_ENOMEM;
    }
    ply_engine_set_net(b->repro, ply_engine_net(b->engine));
    ply_engine_clear(b->repro);
    b->now = b->repro;
    return 0;
}

static const ply_analysis_ops_t BUILTIN = {"builtin",          builtin_run,     builtin_stop,
                                           builtin_clear_stop, builtin_destroy, builtin_prepare};

void ply_analysis_builtin_set_net(ply_analysis_t *a, const struct ply_nnue *net)
{
    if (!a || a->ops != &BUILTIN) return;
    builtin_t *b = (builtin_t *)a;
    ply_engine_set_net(b->engine, net);
    if (b->repro) ply_engine_set_net(b->repro, net);
}

ply_analysis_t *ply_analysis_builtin_new(size_t hash_mib, int threads)
{
    if (hash_mib < 1 || hash_mib > 1048576 || threads < 1 || threads > 1024) return NULL;
    builtin_t *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->base.ops = &BUILTIN;
    b->engine = ply_engine_new(hash_mib, threads);
    if (!b->engine) {
        free(b);
        return NULL;
    }
    return &b->base;
}

/* The searches that may complete one mate line, and their node limit when the job has none. */
#define COMPLETE_ROUNDS 4
#define COMPLETE_NODES  2000000

/* Plies from the position searched to the checkmate a mate score in moves claims: mate N
 * (the side to move mates) is 2N - 1 plies, mate -N (it is mated) 2N. */
static int mate_plies(int mate_moves)
{
    return mate_moves > 0 ? 2 * mate_moves - 1 : -2 * mate_moves;
}

/*
 * Completes a mate line whose PV stops short of the checkmate it claims. Engines graft mate
 * scores from their tables, whose entries carry no line and may be of another distance
 * (ply's own engine in a chunk, where the table holds the later positions' mates; Stockfish
 * likewise), and the coordinator refuses a mate that its line does not reach exactly
 * (DESIGN.md, "Trust"). So the backend searches the position at the end of the line (the
 * job's history and the line played: repetitions count), at most the remaining plies + 2
 * deep, within ten times the job's node limit (or COMPLETE_NODES without one), a quarter of its
 * movetime, at most COMPLETE_ROUNDS times. When it finds a mate for the same side,
 * its line is appended and the score becomes the distance of the whole line: the mate the
 * engine has shown, which the coordinator then replays. Anything else (no mate, the other
 * side's) leaves the line as the engine gave it, for the coordinator to judge. Returns 0, or
 * PLY_ENOMEM.
 */
static int complete_mate(ply_analysis_t *a, const ply_analysis_job_t *job,
                         ply_analysis_line_t *line)
{
    if (!line->is_mate || line->n_pv == 0 || line->n_pv >= mate_plies(line->score)) return 0;
    /* a root window's fail low claims no mate to show: its score only bounds the move's */
    if (job->has_window && line->bound == PLY_BOUND_UPPER) return 0;
    const char **hist = malloc(((size_t)job->n_moves + PLY_SEARCH_MAX_PLY) * sizeof *hist);
    ply_analysis_result_t *more = malloc(sizeof *more);
    if (!hist || !more) {
        free(hist);
        free(more);
        return PLY_ENOMEM;
    }
    for (int i = 0; i < job->n_moves; i++) hist[i] = job->moves[i];
    for (int round = 0; round < COMPLETE_ROUNDS && line->n_pv < mate_plies(line->score); round++) {
        const int done = line->n_pv;
        for (int i = 0; i < done; i++) hist[job->n_moves + i] = line->pv[i];
        ply_analysis_job_t sub = *job;
        sub.moves = hist, sub.n_moves = job->n_moves + done;
        sub.searchmoves = NULL, sub.n_searchmoves = 0;
        sub.plies = NULL, sub.n_plies = 0;
        sub.multipv = 1;
        sub.has_window = 0; /* the mate's own line, whatever window found it */
        sub.depth = mate_plies(line->score) - done + 2;
        if (sub.depth > PLY_SEARCH_MAX_PLY - 1) sub.depth = PLY_SEARCH_MAX_PLY - 1;
        /* bounded whatever the job's limits, so that a long mate cannot outlast the lease */
        sub.nodes = job->nodes ? 10 * job->nodes : COMPLETE_NODES;
        sub.movetime_ms = job->movetime_ms ? job->movetime_ms / COMPLETE_ROUNDS + 1 : 0;
        memset(more, 0, sizeof *more);
        char how[200];
        if (a->ops->run(a, &sub, more, how, sizeof how) < 0 || more->n_lines < 1) break;
        const ply_analysis_line_t *m = &more->lines[0];
        /* the side to move at the end of the line is the root's after an even number of plies */
        const int root_mates = (m->score > 0) == (done % 2 == 0);
        const int total = done + (m->is_mate ? mate_plies(m->score) : 0);
        if (!m->is_mate || m->n_pv == 0 || root_mates != (line->score > 0) ||
            total > PLY_SEARCH_MAX_PLY)
            break;
        line->score = total % 2 ? (total + 1) / 2 : -(total / 2); /* odd: the root side mates */
        for (int i = 0; i < m->n_pv && line->n_pv < total; i++)
            memcpy(line->pv[line->n_pv++], m->pv[i], PLY_ANALYSIS_MOVE_LEN);
    }
    free(hist);
    free(more);
    return 0;
}

/* complete_mate for every line of @out, the answer to @job. */
static int complete_mates(ply_analysis_t *a, const ply_analysis_job_t *job,
                          ply_analysis_result_t *out)
{
    int rc = 0;
    for (int i = 0; i < out->n_lines && rc == 0; i++) rc = complete_mate(a, job, &out->lines[i]);
    return rc;
}

/*
 * A chunk of a game: each position of job->plies searched in turn by the backend, as a
 * job of its own (the history up to that ply, one line), on the backend's one table, so
 * that what the search of a later position learnt carries over to the earlier ones that
 * the coordinator asks for after it (it orders them backwards). A stop ends the chunk.
 */
static int run_chunk(ply_analysis_t *a, const ply_analysis_job_t *job, ply_analysis_result_t *out,
                     char *why, size_t why_len)
{
    if (job->n_plies > PLY_SEARCH_MAX_MULTIPV || job->n_searchmoves || job->multipv > 1) {
        snprintf(why, why_len,
                 "a chunk of %d positions (at most %d), with %d searchmoves and "
                 "multipv %d (a chunk has none, and 1)",
                 job->n_plies, PLY_SEARCH_MAX_MULTIPV, job->n_searchmoves, job->multipv);
        return PLY_EINVAL;
    }
    for (int i = 0; i < job->n_plies; i++)
        if (job->plies[i] < 0 || job->plies[i] > job->n_moves) {
            snprintf(why, why_len, "plies %d (%d): not in 0..%d, the game's moves", i + 1,
                     job->plies[i], job->n_moves);
            return PLY_EINVAL;
        }
    ply_analysis_result_t *one = malloc(sizeof *one);
    if (!one) return PLY_ENOMEM;
    int rc = 0;
    for (int i = 0; i < job->n_plies && rc == 0; i++) {
        ply_analysis_job_t pj = *job;
        pj.n_moves = job->plies[i];
        pj.plies = NULL, pj.n_plies = 0;
        pj.multipv = 1;
        memset(one, 0, sizeof *one);
        char how[200];
        rc = a->ops->run(a, &pj, one, how, sizeof how);
        if (rc < 0) {
            snprintf(why, why_len, "position after ply %d: %s", job->plies[i], how);
            break;
        }
        if ((rc = complete_mates(a, &pj, one)) < 0) break;
        out->lines[out->n_lines] = one->lines[0];
        out->lines[out->n_lines].multipv = 1;
        out->lines[out->n_lines++].ply = job->plies[i];
        out->nodes += one->nodes;
        out->time_us += one->time_us;
    }
    free(one);
    return rc;
}

int ply_analysis_run(ply_analysis_t *a, const ply_analysis_job_t *job, ply_analysis_result_t *out,
                     char *why, size_t why_len)
{
    char scratch[8];
    if (!why || !why_len) why = scratch, why_len = sizeof scratch;
    why[0] = '\0';
    if (!a || !job || !job->fen || !out) {
        snprintf(why, why_len, "no backend, job or answer");
        return PLY_EINVAL;
    }
    if (job->depth <= 0 && job->nodes == 0 && job->movetime_ms <= 0) {
        snprintf(why, why_len, "a search job needs a depth, node or time limit");
        return PLY_EINVAL;
    }
    if (job->reproducible && job->movetime_ms > 0) {
        snprintf(why, why_len, "a reproducible search job cannot have a movetime");
        return PLY_EINVAL;
    }
    if (job->has_window && (job->alpha >= job->beta || job->alpha < -PLY_SCORE_INF ||
                            job->beta > PLY_SCORE_INF || job->n_plies > 0 || job->multipv > 1)) {
        snprintf(why, why_len,
                 "a root window %d..%d (alpha below beta, within -%d..%d), with %d plies "
                 "and multipv %d (a window has none, and 1)",
                 job->alpha, job->beta, PLY_SCORE_INF, PLY_SCORE_INF, job->n_plies, job->multipv);
        return PLY_EINVAL;
    }
    memset(out, 0, sizeof *out);
    int rc = a->ops->prepare ? a->ops->prepare(a, job->reproducible, why, why_len) : 0;
    if (rc < 0) return rc;
    if (job->n_plies > 0) return run_chunk(a, job, out, why, why_len);
    rc = a->ops->run(a, job, out, why, why_len);
    if (rc == 0) rc = complete_mates(a, job, out);
    for (int i = 0; i < out->n_lines; i++) out->lines[i].ply = -1;
    return rc;
}

void ply_analysis_stop(ply_analysis_t *a)
{
    if (a) a->ops->stop(a);
}

void ply_analysis_clear_stop(ply_analysis_t *a)
{
    if (a) a->ops->clear_stop(a);
}

const char *ply_analysis_name(const ply_analysis_t *a)
{
    return a ? a->ops->name : "none";
}

void ply_analysis_destroy(ply_analysis_t **a)
{
    if (a && *a) {
        (*a)->ops->destroy(*a);
        *a = NULL;
    }
}
