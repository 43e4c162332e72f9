/*
 * The envelope's checks of the search kind (Job.kind = SEARCH, and the Result that answers
 * it): the same rules as proto/envelope.c applies to perft, on the messages of
 * ply.proto's SearchJob, SearchLine and SearchResult. Shapes only: whether a move is legal
 * in its position is the rule engine's question, asked by the worker (a job) and by the
 * coordinator (a result), never here.
 */
#include <inttypes.h>
#include <stdio.h>

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

/* The name of the first perft field @m carries, or NULL. */
static const char *perft_job_field(const Ply__Job *m)
{
    if (m->fen) return "fen";
    if (m->has_depth) return "depth";
    if (m->has_chess960) return "chess960";
    if (m->has_stats) return "stats";
    if (m->has_divide) return "divide";
    if (m->has_no_hash) return "no_hash";
    return NULL;
}

int ply__env_search_job(ply__vctx_t *c, const Ply__Job *m)
{
    /* one job, one shape: a worker must never have to guess which position is meant */
    const char *perft = perft_job_field(m);
    if (perft) return ply__env_bad(c, "field %s present in a SEARCH job (perft only)", perft);
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
    if (ply__env_need_u64(c, f, l->has_depth, l->depth, 0, PLY_SEARCH_JOB_MAX_DEPTH))
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
