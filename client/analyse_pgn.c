/*
 * One game of `ply analyse-pgn` analysed (analyse_pgn.h): the plies to search (those whose
 * position is neither in the cache nor earlier in the game), one search run for them (or
 * its answer read back through the run journal), the consistency pass and its second run.
 */
#include "analyse_pgn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "util/error.h"

/* ---- searching ----------------------------------------------------------------------- */

static void line_from_msg(const Ply__SearchLine *m, ply_pa_line_t *l)
{
    memset(l, 0, sizeof *l);
    l->have = 1;
    l->is_mate = m->has_mate;
    l->value = m->has_mate ? m->mate : m->score_cp;
    l->depth = m->depth;
    for (size_t i = 0; i < m->n_pv && l->npv < PLY_PA_PV_MAX; i++) {
        if (strlen(m->pv[i]) >= PLY_PA_UCI_MAX) break;
        snprintf(l->pv[l->npv++], PLY_PA_UCI_MAX, "%s", m->pv[i]);
    }
}

/* Whether @res answers @req: its plies, moves and root as asked (a run id is only a key). */
static int answers(const Ply__RunResult *res, const ply_search_request_t *req)
{
    const Ply__SearchRequest *q = res->asked ? res->asked->search : NULL;
    if (!q || !res->search || q->n_plies != req->nplies || q->n_moves != req->nmoves) return 0;
    for (size_t i = 0; i < req->nplies; i++)
        if (q->plies[i] != req->plies[i]) return 0;
    for (size_t i = 0; i < req->nmoves; i++)
        if (strcmp(q->moves[i], req->moves[i]) != 0) return 0;
    return 1;
}

/*
 * With --state: the answer of the finished run the journal names for @key, read from the
 * state file as `ply result` reads it, into *@res; 0 when there is none (then search).
 */
static int from_state(ply_apgn_t *ap, const char *key, const ply_search_request_t *req,
                      Ply__RunResult **res)
{
    uint64_t id = ap->journal ? ply_run_journal_find(ap->journal, key) : 0;
    if (!id) return 0;
    Ply__RunProgress *prog = NULL;
    char why[256];
    int rc =
        ply_client_result(ply_session_client(ap->session), id, 0,
                          (int)ply_session_timeout_ms(ap->session), res, &prog, why, sizeof why);
    if (prog) ply__run_progress__free_unpacked(prog, NULL);
    if (rc == 0 && *res && answers(*res, req)) return 1;
    if (*res) ply__run_result__free_unpacked(*res, NULL);
    *res = NULL;
    return 0;
}

/*
 * Search the positions after @plies[0..n) of @w's game in one run, with twice the
 * budget when @again; their lines replace @w->g.lines[ply]. Returns 0, or an error with
 * its reason in @why (empty for PLY_ENOMEM).
 */
static int search_plies(ply_apgn_t *ap, ply_apgn_game_t *w, const unsigned *plies, size_t n,
                        int again, char *why, size_t why_len)
{
    const ply_apgn_t *a = ap;
    const char **moves = malloc(((size_t)w->g.nplies + 1) * sizeof *moves);
    if (!moves) return ply_why(why, why_len, PLY_ENOMEM, "%s", "");
    for (int k = 0; k < w->g.nplies; k++) moves[k] = w->g.uci[k];
    ply_search_request_t req = {0};
    req.fen = w->g.start_fen;
    req.moves = moves;
    req.nmoves = (size_t)w->g.nplies;
    req.depth = a->depth && again ? a->depth + 2 : a->depth;
    if (req.depth > PLY_SEARCH_JOB_MAX_DEPTH) req.depth = PLY_SEARCH_JOB_MAX_DEPTH;
    req.nodes = again ? 2 * a->nodes : a->nodes;
    req.chess960 = w->g.pos[0].chess960;
    req.plies = plies;
    req.nplies = n;
    Ply__Accepted *acc = NULL;
    Ply__RunResult *res = NULL;
    char key[PLY_RUN_JOURNAL_KEY] = "";
    if (ap->journal) ply_run_journal_key(&req, key);
    int rc = 0;
    int stored = from_state(ap, key, &req, &res);
    if (stored) {
        w->runs_from_state++;
        w->from_state += (unsigned)n;
    } else {
        rc = ply_session_search(ap->session, &req, ap->progress, ap->arg, &acc, &res, why, why_len);
        if (rc == 0 && res->search) ap->nodes_done += res->search->nodes;
        if (rc == 0 && ap->journal && ply_run_journal_add(ap->journal, key, res->run_id) < 0 &&
            ap->warn) {
            char text[4200];
            snprintf(text, sizeof text, "cannot write the run journal (%s.runs)", ap->state_path);
            ap->warn(ap->arg, text);
        }
    }
    free(moves);
    ap->runs++;
    if (rc == 0 && !res->search) rc = ply_why(why, why_len, PLY_EPROTO, "no search answer");
    for (size_t i = 0; rc == 0 && i < res->search->n_moves; i++) {
        const Ply__AnalysedMove *m = res->search->moves[i];
        if (!m->has_ply || m->ply > (uint32_t)w->g.nplies || !m->line)
            rc = ply_why(why, why_len, PLY_EPROTO, "an answer for no ply of the game");
        else
            line_from_msg(m->line, &w->g.lines[m->ply]);
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!w->g.lines[plies[i]].have)
            rc = ply_why(why, why_len, PLY_EPROTO, "the answer lacks ply %u", plies[i]);
    if (rc == 0 && !stored) { /* a stored answer's counts are of the run that computed it */
        w->jobs_restored += res->results_restored;
        w->jobs_computed += res->results_computed;
    }
    ply_session_free_reply(&acc, &res);
    return rc;
}

/*
 * search_plies in runs of at most PLY_MAX_DIVIDE positions: a run's answer holds one line
 * per position, and the envelope takes at most that many (a longer game is several runs).
 */
static int search_batches(ply_apgn_t *ap, ply_apgn_game_t *w, const unsigned *plies, size_t n,
                          int again, char *why, size_t why_len)
{
    int rc = 0;
    for (size_t at = 0; at < n && rc == 0; at += PLY_MAX_DIVIDE)
        rc = search_plies(ap, w, plies + at, n - at < PLY_MAX_DIVIDE ? n - at : PLY_MAX_DIVIDE,
                          again, why, why_len);
    return rc;
}

/* The plies to search: positions with a legal move, not earlier in the game, not cached. */
static size_t plan(ply_apgn_t *ap, ply_apgn_game_t *w)
{
    size_t n = 0;
    for (int k = 0; k <= w->g.nplies; k++) {
        w->copy_of[k] = -1;
        if (w->g.end[k] != PLY_PA_PLAYING) continue;
        w->positions++;
        ply_arb_identity(&w->g.pos[k], w->ids[k], sizeof w->ids[k]);
        for (int j = 0; j < k && w->copy_of[k] < 0; j++)
            if (w->g.end[j] == PLY_PA_PLAYING && strcmp(w->ids[j], w->ids[k]) == 0)
                w->copy_of[k] = j;
        const ply_pa_line_t *hit = ply_pos_cache_get(ap->cache, w->ids[k]);
        if (w->copy_of[k] >= 0 || hit) {
            w->from_cache++;
            if (hit) w->g.lines[k] = *hit, w->g.lines[k].researched = 0;
            continue;
        }
        w->plies[n++] = (unsigned)k;
    }
    return n;
}

static void remember(ply_apgn_t *ap, ply_apgn_game_t *w, const unsigned *plies, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ply_pa_line_t l = w->g.lines[plies[i]];
        l.researched = 0;
        ply_pos_cache_put(ap->cache, w->ids[plies[i]], &l);
    }
}

/* The consistency pass (pgn_annotate.h): the contradicted plies searched again. */
static int recheck(ply_apgn_t *ap, ply_apgn_game_t *w, char *why, size_t why_len)
{
    size_t n = ply_pa_contradictions(&w->g, w->redone, (size_t)w->g.nplies + 1);
    if (n == 0) return 0;
    ply_pa_line_t *first = malloc(n * sizeof *first);
    if (!first) return ply_why(why, why_len, PLY_ENOMEM, "%s", "");
    for (size_t i = 0; i < n; i++) first[i] = w->g.lines[w->redone[i]];
    int rc = search_batches(ap, w, w->redone, n, 1, why, why_len);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        ply_pa_line_t *l = &w->g.lines[w->redone[i]];
        l->researched = l->doubled = 1;
        l->first_is_mate = first[i].is_mate;
        l->first_value = first[i].value;
        l->first_depth = first[i].depth;
    }
    free(first);
    if (rc == 0) remember(ap, w, w->redone, n);
    w->nredone = rc == 0 ? n : 0;
    ap->researched += w->nredone;
    return rc;
}

int ply_apgn_analyse(ply_apgn_t *ap, ply_apgn_game_t *w, char *why, size_t why_len)
{
    if (why_len) why[0] = '\0';
    size_t n = plan(ap, w);
    if (n > 0) {
        int rc = search_batches(ap, w, w->plies, n, 0, why, why_len);
        if (rc) return rc;
        remember(ap, w, w->plies, n);
    }
    w->searched = (unsigned)n;
    for (int k = 0; k <= w->g.nplies; k++)
        if (w->copy_of[k] >= 0) w->g.lines[k] = w->g.lines[w->copy_of[k]];
    return recheck(ap, w, why, why_len);
}

/* ---- the game's arrays ----------------------------------------------------------------- */

int ply_apgn_game_alloc(ply_apgn_game_t *w)
{
    size_t n = (size_t)w->g.nplies + 1;
    w->ids = calloc(n, sizeof *w->ids);
    w->copy_of = calloc(n, sizeof *w->copy_of);
    w->plies = calloc(n, sizeof *w->plies);
    w->redone = calloc(n, sizeof *w->redone);
    return w->ids && w->copy_of && w->plies && w->redone ? 0 : PLY_ENOMEM;
}

void ply_apgn_game_free(ply_apgn_game_t *w)
{
    ply_pa_game_free(&w->g);
    free(w->ids);
    free(w->copy_of);
    free(w->plies);
    free(w->redone);
    w->ids = NULL;
    w->copy_of = NULL;
    w->plies = w->redone = NULL;
}
