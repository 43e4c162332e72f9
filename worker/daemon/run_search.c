/*
 * The search job runner (runner.h), kind SEARCH: runs a job's search on an analysis
 * backend (analysis.h) and answers with a Result of its lines (search_msg.h), or an Error
 * about the job (a bad position or move). The backend is the one the config gives (an
 * external UCI engine, --engine; never freed here), or ply's engine ("builtin"), made
 * when the first search job comes and kept from job to job: the perft table gives way to
 * its table first (ply__compute_make_room), and it gives way to the perft table when a
 * perft job comes. A running search is stopped by the network actor (ply_analysis_stop,
 * under the cancel lock); a cancelled search sends nothing.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "board/zobrist.h"
#include "nnue.h"
#include "runner.h"
#include "search_msg.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

extern const ply__runner_t ply__search_runner; /* below */

typedef struct search_state {
    ply_analysis_t *builtin; /* ply's engine, made by the first search job; or NULL */
} search_state_t;

static int search_open(ply__daemon_t *sh, void **state)
{
    (void)sh;
    *state = calloc(1, sizeof(search_state_t));
    return *state ? 0 : PLY_ENOMEM;
}

static void search_release(void *state)
{
    search_state_t *s = state;
    ply_analysis_destroy(&s->builtin); /* its table gives way to another kind's */
}

static void search_close(void *state)
{
    search_state_t *s = state;
    if (!s) return;
    ply_analysis_destroy(&s->builtin);
    free(s);
}

/* A running search is stopped by telling its backend (ply__job_stop_t). */
static void backend_stop(void *an)
{
    ply_analysis_stop(an);
}

static void backend_clear_stop(void *an)
{
    ply_analysis_clear_stop(an);
}

/* A search job's answer: the lines as the backend gave them (UCI text), in a Result. */
static int send_search_result(ply__compute_t *c, const Ply__Job *job, const ply_analysis_t *an,
                              const ply_analysis_result_t *r, uint64_t time_us)
{
    ply_search_msg_t *m = malloc(sizeof *m);
    if (!m) return PLY_ENOMEM;
    ply_search_msg_fill(m, job, an, r, time_us);
    Ply__Message msg = PLY__MESSAGE__INIT;
    msg.body_case = PLY__MESSAGE__BODY_RESULT;
    msg.result = &m->res;
    ply__compute_send(c, &msg);
    free(m);
    return 0;
}

static int search_run(ply__compute_t *c, void *state, const Ply__Job *job, unsigned epoch)
{
    search_state_t *s = state;
    ply__daemon_t *sh = c->sh;
    const Ply__SearchJob *sj = job->search; /* present: envelope.c checked the kind's shape */
    ply_analysis_t *given = sh->cfg->search_backend; /* --engine's: never freed here */
    ply_analysis_t **an = given ? &given : &s->builtin;
    if (!*an) {
        ply__compute_make_room(c, &ply__search_runner); /* the two tables never both exist */
        unsigned mib = sh->cfg->hash_mib ? sh->cfg->hash_mib : 1; /* --hash 0: the least */
        *an = ply_analysis_builtin_new(mib, sh->threads < 1024 ? sh->threads : 1024);
        if (!*an) {
            ply__compute_error(c, job, PLY_ENOMEM, "cannot allocate the search table");
            return PLY_ENOMEM;
        }
        ply_analysis_builtin_set_net(*an, sh->cfg->search_net);
    }
    ply_analysis_job_t aj = {0};
    aj.fen = sj->fen;
    aj.chess960 = sj->has_chess960 && sj->chess960;
    aj.moves = (const char *const *)sj->moves, aj.n_moves = (int)sj->n_moves;
    aj.searchmoves = (const char *const *)sj->searchmoves;
    aj.n_searchmoves = (int)sj->n_searchmoves;
    aj.depth = sj->has_depth ? (int)sj->depth : 0;
    aj.nodes = sj->has_nodes ? sj->nodes : 0;
    aj.movetime_ms = sj->has_movetime_ms ? sj->movetime_ms : 0;
    aj.multipv = sj->has_multipv ? (int)sj->multipv : 1;
    aj.reproducible = sj->has_reproducible && sj->reproducible;
    /* a root window (the envelope checked its edges, alpha < beta, no plies, multipv 1);
     * an edge left out is infinite */
    aj.start_depth = sj->has_start_depth ? (int)sj->start_depth : 0; /* checked: <= depth */
    aj.has_window = sj->has_alpha || sj->has_beta;
    aj.alpha = sj->has_alpha ? sj->alpha : -PLY_SCORE_INF;
    aj.beta = sj->has_beta ? sj->beta : PLY_SCORE_INF;
    aj.progress = &sh->progress;
    int plies[PLY_SEARCH_MAX_MULTIPV];
    aj.plies = plies;
    aj.n_plies = (int)sj->n_plies; /* > PLY_SEARCH_MAX_MULTIPV: refused by ply_analysis_run */
    for (size_t i = 0; i < sj->n_plies && i < PLY_SEARCH_MAX_MULTIPV; i++)
        plies[i] = sj->plies[i] > INT_MAX ? INT_MAX : (int)sj->plies[i]; /* checked there */
    ply_analysis_result_t *r = malloc(sizeof *r);
    if (!r) return PLY_ENOMEM;
    if (atomic_load(&sh->cancel)) {
        free(r);
        return PLY_ECANCELED;
    }
    atomic_store(&sh->progress, 0);
    const ply__job_stop_t how = {backend_stop, backend_clear_stop, *an};
    if (ply__job_begin(sh, job, &how) < 0) { /* taken back while it was queued */
        free(r);
        return PLY_ECANCELED;
    }
    char why[256];
    uint64_t t0 = ply_time_ns();
    /* A reproducible job of ply's engine searches with the default seed's keys, so that
     * workers of other seeds (perft's checks) give the same answer: table indices follow the
     * keys. The keys are the worker's again before any other job. */
    int keys = aj.reproducible && !given && sh->zobrist_seed != PLY_ZOBRIST_DEFAULT_SEED;
    if (keys) ply_zobrist_init(PLY_ZOBRIST_DEFAULT_SEED);
    int rc = epoch == atomic_load(&sh->epoch) ? ply_analysis_run(*an, &aj, r, why, sizeof why)
                                              : PLY_ECANCELED;
    if (keys) ply_zobrist_init(sh->zobrist_seed);
    uint64_t time_us = (ply_time_ns() - t0) / 1000;
    int canceled = atomic_load(&sh->job_cancel) || epoch != atomic_load(&sh->epoch);
    ply__job_end(sh);
    atomic_store(&sh->progress, 0);
    if (rc == 0 && !canceled) {
        atomic_fetch_add(&sh->done, r->nodes);
        ply_debug("job %llu: search, %llu nodes in %.3f s", (unsigned long long)job->job_id,
                  (unsigned long long)r->nodes, time_us / 1e6);
#ifdef PLY_FAULT_INJECTION
        /* test builds only: a lying worker, the score of every Nth search off by 7 cp (its
         * line legal: only a second search can tell) */
        if (sh->cfg->fault_every && ++sh->results % sh->cfg->fault_every == 0 && r->n_lines &&
            !r->lines[0].is_mate)
            r->lines[0].score += 7;
#endif
        rc = send_search_result(c, job, *an, r, time_us);
    } else if (canceled) {
        rc = PLY_ECANCELED; /* stopped early: its lines are not the job's answer */
    } else {
        ply__compute_error(c, job, rc, why);
        rc = rc == PLY_ENOMEM ? rc : 0;
    }
    free(r);
    return rc;
}

/* HELLO: the search backend ("builtin", or "uci:<id name>"), and who answers a
 * reproducible job alike: the engine, and for ply's its build, keys and evaluation (the
 * network's checksum: two nets answer differently). */
static size_t search_hello(const ply__daemon_t *sh, Ply__Hello *hello, char *text, size_t len)
{
    char engine[160] = "builtin";
    const ply_analysis_t *backend = sh->cfg->search_backend;
    if (backend)
        snprintf(engine, sizeof engine, "%s:%s", ply_analysis_name(backend),
                 ply_analysis_engine_name(backend));
    char id[PLY_MAX_TEXT + 1], repro[PLY_MAX_TEXT - 64];
    ply_analysis_repro_id(backend, repro, sizeof repro);
    snprintf(id, sizeof id, "%s", repro);
    if (!backend && !sh->cfg->search_net) /* whatever its own seed: reproducible jobs use the
                                             default seed's keys */
        snprintf(id, sizeof id, "ply %s builtin, zobrist seed %u", PLY_VERSION,
                 PLY_ZOBRIST_DEFAULT_SEED);
    else if (!backend)
        snprintf(id, sizeof id, "ply %s builtin, zobrist seed %u, nnue %016llx", PLY_VERSION,
                 PLY_ZOBRIST_DEFAULT_SEED,
                 (unsigned long long)ply_nnue_checksum(sh->cfg->search_net));
    size_t ne = strlen(engine) + 1, ni = strlen(id) + 1;
    if (ne + ni > len) return 0;
    hello->engine = memcpy(text, engine, ne);
    hello->engine_id = memcpy(text + ne, id, ni);
    return ne + ni;
}

const ply__runner_t ply__search_runner = {
    .kind = PLY__JOB_KIND__JOB_KIND_SEARCH,
    .open = search_open,
    .run = search_run,
    .release = search_release,
    .close = search_close,
    .hello = search_hello,
};
