/*
 * The envelope's checks of the search kind (Job.kind = SEARCH, and the Result that answers
 * it): the same rules as proto/envelope.c applies to perft, on the messages of
 * ply.proto's SearchJob, SearchLine and SearchResult. Shapes only: whether a move is legal
 * in its position is the rule engine's question, asked by the worker (a job) and by the
 * coordinator (a result), never here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "envelope.h"
#include "envelope_check.h"
#include "util/error.h"

/* A list of @n UCI moves named @field, at most @max. */
static int move_list(ply__vctx_t *c, const char *field, size_t n, char *const *list, size_t max)
{
    char f[64];
    if (n > max)
        return ply__env_bad(c, "field %s has %zu moves, must be at most %zu", field, n, max);
    if (n && !list) return ply__env_bad(c, "field %s missing", field);
    for (size_t i = 0; i < n; i++) {
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (ply__env_uci_move(c, f, list[i])) return PLY_EPROTO;
    }
    return 0;
}

/* A root window's edge named @field, when present (@has): an engine score, within
 * -PLY_SEARCH_JOB_MAX_SCORE..PLY_SEARCH_JOB_MAX_SCORE. */
static int window_edge(ply__vctx_t *c, const char *field, int has, int32_t v)
{
    if (has && (v < -PLY_SEARCH_JOB_MAX_SCORE || v > PLY_SEARCH_JOB_MAX_SCORE))
        return ply__env_bad(c, "field %s = %" PRId32 ", must be in %d..%d", field, v,
                            -PLY_SEARCH_JOB_MAX_SCORE, PLY_SEARCH_JOB_MAX_SCORE);
    return 0;
}

int ply__env_search_job(ply__vctx_t *c, const Ply__Job *m)
{
    /* one job, one shape: envelope_validate.c refused a perft or other payload beside it */
    const Ply__SearchJob *j = m->search;
    if (!j) return ply__env_bad(c, "field search missing (kind SEARCH)");
    if (ply__env_fen(c, "search.fen", j->fen) ||
        move_list(c, "search.moves", j->n_moves, j->moves, PLY_SEARCH_JOB_MAX_MOVES) ||
        move_list(c, "search.searchmoves", j->n_searchmoves, j->searchmoves, PLY_MAX_DIVIDE))
        return PLY_EPROTO;
    if ((j->has_depth &&
         ply__env_need_u64(c, "search.depth", 1, j->depth, 1, PLY_SEARCH_JOB_MAX_DEPTH)) ||
        (j->has_nodes && ply__env_need_u64(c, "search.nodes", 1, j->nodes, 1, UINT64_MAX)) ||
        (j->has_movetime_ms && ply__env_need_u64(c, "search.movetime_ms", 1, j->movetime_ms, 1,
                                                 PLY_SEARCH_JOB_MAX_MOVETIME_MS)) ||
        (j->has_multipv &&
         ply__env_need_u64(c, "search.multipv", 1, j->multipv, 1, PLY_SEARCH_JOB_MAX_MULTIPV)))
        return PLY_EPROTO;
    /* a chunk of a game: at most one line per position the result may carry */
    if (j->n_plies > PLY_SEARCH_JOB_MAX_MULTIPV || (j->n_plies && !j->plies))
        return ply__env_bad(c, "field search.plies has %zu entries, must be at most %d", j->n_plies,
                            PLY_SEARCH_JOB_MAX_MULTIPV);
    if (j->n_plies && j->n_searchmoves)
        return ply__env_bad(c, "field search.searchmoves present beside search.plies");
    /* a reproducible search is two workers' identical answer: a clock is not reproducible */
    if (j->has_reproducible && j->reproducible && j->has_movetime_ms)
        return ply__env_bad(c, "field search.movetime_ms present in a reproducible job");
    /* a root window bounds the one line of one position */
    if (window_edge(c, "search.alpha", j->has_alpha, j->alpha) ||
        window_edge(c, "search.beta", j->has_beta, j->beta))
        return PLY_EPROTO;
    if (j->has_alpha && j->has_beta && j->alpha >= j->beta)
        return ply__env_bad(c, "field search.alpha = %" PRId32 " not below search.beta = %" PRId32,
                            j->alpha, j->beta);
    const char *edge = j->has_alpha ? "search.alpha" : j->has_beta ? "search.beta" : NULL;
    if (edge && j->n_plies) return ply__env_bad(c, "field %s present beside search.plies", edge);
    if (edge && j->has_multipv && j->multipv > 1)
        return ply__env_bad(c, "field %s present with search.multipv = %" PRIu32 ", must be 1",
                            edge, j->multipv);
    if (j->has_start_depth &&
        (!j->has_depth || j->start_depth < 1 || j->start_depth > j->depth))
        return ply__env_bad(c, "field search.start_depth = %" PRIu32 ", must be 1..search.depth",
                            j->start_depth);
    /* a worker holds a job only as long as its lease: an unlimited search never ends */
    if (!j->has_depth && !j->has_nodes && !j->has_movetime_ms)
        return ply__env_bad(c, "field search.depth, search.nodes or search.movetime_ms missing: "
                               "a search job needs a limit");
    return 0;
}

static int search_line(ply__vctx_t *c, size_t i, const Ply__SearchLine *l)
{
    char f[64];
    snprintf(f, sizeof f, "search.lines[%zu]", i);
    if (!l) return ply__env_bad(c, "field %s missing", f);
    snprintf(f, sizeof f, "search.lines[%zu].multipv", i);
    if (ply__env_need_u64(c, f, l->has_multipv, l->multipv, 1, PLY_SEARCH_JOB_MAX_MULTIPV))
        return PLY_EPROTO;
    if (l->has_score_cp == l->has_mate)
        return ply__env_bad(c, "field search.lines[%zu]: %s of score_cp and mate, must be one", i,
                            l->has_mate ? "both" : "neither");
    snprintf(f, sizeof f, "search.lines[%zu].bound", i);
    if (ply__env_need_u64(c, f, l->has_bound, l->bound, 0, 2)) return PLY_EPROTO;
    snprintf(f, sizeof f, "search.lines[%zu].depth", i);
    if (ply__env_need_u64(c, f, l->has_depth, l->depth, 0, PLY_SEARCH_LINE_MAX_DEPTH))
        return PLY_EPROTO;
    snprintf(f, sizeof f, "search.lines[%zu].seldepth", i);
    if (ply__env_need(c, f, l->has_seldepth)) return PLY_EPROTO;
    snprintf(f, sizeof f, "search.lines[%zu].pv", i);
    return move_list(c, f, l->n_pv, l->pv, PLY_SEARCH_JOB_MAX_PV);
}

/* The name of the first perft field @m carries beside its search, or NULL. */
static const char *perft_result_field(const Ply__Result *m)
{
    if (m->has_nodes) return "nodes";
    if (m->has_perft1) return "perft1";
    if (m->stats) return "stats";
    if (m->n_divide) return "divide";
    if (m->has_tt_nodes) return "tt_nodes";
    return NULL;
}

int ply__env_search_result(ply__vctx_t *c, const Ply__Result *m)
{
    const char *perft = perft_result_field(m);
    if (perft) return ply__env_bad(c, "field %s present beside search (perft only)", perft);
    if (ply__env_need(c, "time_us", m->has_time_us)) return PLY_EPROTO;
    const Ply__SearchResult *r = m->search;
    if (r->n_lines == 0 || r->n_lines > PLY_SEARCH_JOB_MAX_MULTIPV)
        return ply__env_bad(c, "field search.lines has %zu entries, must be 1..%d", r->n_lines,
                            PLY_SEARCH_JOB_MAX_MULTIPV);
    if (!r->lines) return ply__env_bad(c, "field search.lines missing");
    for (size_t i = 0; i < r->n_lines; i++)
        if (search_line(c, i, r->lines[i])) return PLY_EPROTO;
    if (ply__env_need(c, "search.nodes", r->has_nodes) ||
        ply__env_need(c, "search.time_us", r->has_time_us) ||
        ply__env_text(c, "search.engine", r->engine, 0))
        return PLY_EPROTO;
    return 0;
}

/* ------------------------------------------------------------ search runs */

int ply__env_search_request(ply__vctx_t *c, const char *prefix, const Ply__SearchRequest *r)
{
    char f[96];
    if (!r) return ply__env_bad(c, "field %s missing", prefix);
    snprintf(f, sizeof f, "%s.fen", prefix);
    if (ply__env_fen(c, f, r->fen)) return PLY_EPROTO;
    snprintf(f, sizeof f, "%s.moves", prefix);
    if (move_list(c, f, r->n_moves, r->moves, PLY_SEARCH_JOB_MAX_MOVES)) return PLY_EPROTO;
    snprintf(f, sizeof f, "%s.searchmoves", prefix);
    if (move_list(c, f, r->n_searchmoves, r->searchmoves, PLY_MAX_DIVIDE)) return PLY_EPROTO;
    /* a game analysis: its answer has one line per position, at most PLY_MAX_DIVIDE */
    snprintf(f, sizeof f, "%s.plies", prefix);
    if (r->n_plies > PLY_MAX_DIVIDE || (r->n_plies && !r->plies))
        return ply__env_bad(c, "field %s has %zu entries, must be at most %d", f, r->n_plies,
                            PLY_MAX_DIVIDE);
    for (size_t i = 0; i < r->n_plies; i++)
        if (r->plies[i] > PLY_SEARCH_JOB_MAX_MOVES)
            return ply__env_bad(c, "field %s[%zu] = %u, must be at most %d", f, i, r->plies[i],
                                PLY_SEARCH_JOB_MAX_MOVES);
    snprintf(f, sizeof f, "%s.depth", prefix);
    if (r->has_depth && ply__env_need_u64(c, f, 1, r->depth, 1, PLY_SEARCH_JOB_MAX_DEPTH))
        return PLY_EPROTO;
    snprintf(f, sizeof f, "%s.nodes", prefix);
    if (r->has_nodes && ply__env_need_u64(c, f, 1, r->nodes, 1, UINT64_MAX)) return PLY_EPROTO;
    snprintf(f, sizeof f, "%s.movetime_ms", prefix);
    if (r->has_movetime_ms &&
        ply__env_need_u64(c, f, 1, r->movetime_ms, 1, PLY_SEARCH_JOB_MAX_MOVETIME_MS))
        return PLY_EPROTO;
    int deepen = r->has_deepen && r->deepen, infinite = r->has_infinite && r->infinite;
    if (infinite && !deepen)
        return ply__env_bad(c, "field %s.infinite needs %s.deepen: only a deepening analysis "
                               "runs until canceled",
                            prefix, prefix);
    if (infinite && (r->has_depth || r->has_nodes || r->has_movetime_ms))
        return ply__env_bad(c, "field %s.infinite takes no depth, nodes or movetime_ms", prefix);
    if (deepen && r->n_plies)
        return ply__env_bad(c, "field %s.deepen with %s.plies: a game analysis does not deepen",
                            prefix, prefix);
    /* every job of the run gets these limits: an unlimited one would never end */
    if (!infinite && !r->has_depth && !r->has_nodes && !r->has_movetime_ms)
        return ply__env_bad(c,
                            "field %s.depth, %s.nodes or %s.movetime_ms missing: a search run "
                            "needs a limit",
                            prefix, prefix, prefix);
    if (r->engine && r->engine[0] && strcmp(r->engine, "builtin") != 0 &&
        strcmp(r->engine, "uci") != 0) {
        snprintf(f, sizeof f, "%s.engine", prefix);
        if (ply__env_text(c, f, r->engine, 0)) return PLY_EPROTO;
        return ply__env_bad(c, "field %s = \"%s\", must be \"builtin\", \"uci\" or absent", f,
                            r->engine);
    }
    return 0;
}

/* One line of text of a list @field[@i] (NULL refused). */
static int text_item(ply__vctx_t *c, const char *field, size_t i, const char *s, size_t min)
{
    char f[160];
    snprintf(f, sizeof f, "%.128s[%zu]", field, i);
    if (!s) return ply__env_bad(c, "field %s missing", f);
    return ply__env_text(c, f, s, min);
}

static int analysed_move(ply__vctx_t *c, const char *prefix, size_t i, const Ply__AnalysedMove *a)
{
    char f[64], g[128];
    snprintf(f, sizeof f, "%.32s.moves[%zu]", prefix, i);
    if (!a) return ply__env_bad(c, "field %s missing", f);
    snprintf(g, sizeof g, "%s.move", f);
    if (ply__env_uci_move(c, g, a->move)) return PLY_EPROTO;
    snprintf(g, sizeof g, "%s.san", f);
    if (ply__env_text(c, g, a->san, 0)) return PLY_EPROTO;
    if (a->line) {
        snprintf(g, sizeof g, "%s.line.pv", f);
        if (move_list(c, g, a->line->n_pv, a->line->pv, PLY_SEARCH_JOB_MAX_PV)) return PLY_EPROTO;
        if (a->line->has_score_cp == a->line->has_mate)
            return ply__env_bad(c, "field %s.line: %s of score_cp and mate, must be one", f,
                                a->line->has_mate ? "both" : "neither");
    }
    snprintf(g, sizeof g, "%s.pv_san", f);
    if (a->n_pv_san > PLY_SEARCH_JOB_MAX_PV)
        return ply__env_bad(c, "field %s has %zu moves, must be at most %d", g, a->n_pv_san,
                            PLY_SEARCH_JOB_MAX_PV);
    if (a->n_pv_san && !a->pv_san) return ply__env_bad(c, "field %s missing", g);
    for (size_t k = 0; k < a->n_pv_san; k++)
        if (text_item(c, g, k, a->pv_san[k], 1)) return PLY_EPROTO;
    snprintf(g, sizeof g, "%s.engine", f);
    if (ply__env_text(c, g, a->engine, 0)) return PLY_EPROTO;
    snprintf(g, sizeof g, "%s.worker_id", f);
    if (ply__env_text(c, g, a->worker_id, 0)) return PLY_EPROTO;
    snprintf(g, sizeof g, "%s.identity", f);
    return ply__env_text(c, g, a->identity, 0);
}

int ply__env_search_answer(ply__vctx_t *c, const char *prefix, const Ply__SearchAnswer *a)
{
    char f[96];
    if (!a) return 0;
    snprintf(f, sizeof f, "%s.fen", prefix);
    if (a->fen && ply__env_fen(c, f, a->fen)) return PLY_EPROTO;
    if (a->n_moves > PLY_MAX_DIVIDE)
        return ply__env_bad(c, "field %s.moves has %zu entries, must be at most %d", prefix,
                            a->n_moves, PLY_MAX_DIVIDE);
    if (a->n_moves && !a->moves) return ply__env_bad(c, "field %s.moves missing", prefix);
    for (size_t i = 0; i < a->n_moves; i++)
        if (analysed_move(c, prefix, i, a->moves[i])) return PLY_EPROTO;
    if (a->status && strcmp(a->status, "checkmate") != 0 && strcmp(a->status, "stalemate") != 0) {
        snprintf(f, sizeof f, "%s.status", prefix);
        if (ply__env_text(c, f, a->status, 0)) return PLY_EPROTO;
        return ply__env_bad(c, "field %s = \"%s\", must be \"checkmate\", \"stalemate\" or absent",
                            f, a->status);
    }
    snprintf(f, sizeof f, "%s.rejection", prefix);
    if (a->n_rejection > PLY_MAX_MISMATCHES)
        return ply__env_bad(c, "field %s has %zu entries, must be at most %d", f, a->n_rejection,
                            PLY_MAX_MISMATCHES);
    if (a->n_rejection && !a->rejection) return ply__env_bad(c, "field %s missing", f);
    for (size_t i = 0; i < a->n_rejection; i++)
        if (text_item(c, f, i, a->rejection[i], 1)) return PLY_EPROTO;
    return 0;
}
