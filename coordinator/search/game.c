/*
 * Game analysis in a search run: chunks of a game's positions, their checks and the one
 * line kept per position (search/game.h says what and why); and the rule engine's replay of
 * any search line and its SAN, which search/kind.c's root moves use too.
 */
#include "search/game.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/san.h"
#include "util/error.h"

/* One chunk: indices first..first+n-1 of the requested plies (ascending). */
typedef struct chunk {
    size_t first, n;
    uint32_t desc[PLY__GAME_CHUNK]; /* its plies, descending: SearchJob.plies */
    Ply__SearchResult *res;         /* the accepted result (owned), or NULL */
    char worker[96], identity[64];
} chunk_t;

/* The line kept for one requested ply. */
typedef struct kept {
    Ply__AnalysedMove am; /* points into a chunk's result and here */
    char uci[8], san[PLY_ARB_SAN_MAX];
    char **pv_san; /* am.n_pv_san texts, each owned */
    size_t chunk;  /* whose line it is; valid when am.line */
} kept_t;

struct ply__game {
    size_t nplies;
    uint32_t *plies;    /* requested, ascending */
    ply_arb_pos_t *pos; /* the position of each */
    chunk_t *chunks;
    size_t nchunks;
    kept_t *kept;               /* one per requested ply */
    Ply__AnalysedMove **sorted; /* the kept lines, by ply */
    size_t nsorted;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The requested plies, sorted and checked, and each one's position. */
static int take_plies(ply__game_t *g, const Ply__SearchRequest *q, const ply_arb_pos_t *root,
                      char *why, size_t why_len)
{
    memcpy(g->plies, q->plies, g->nplies * sizeof *g->plies);
    qsort(g->plies, g->nplies, sizeof *g->plies, cmp_u32);
    for (size_t i = 0; i < g->nplies; i++) {
        if (g->plies[i] > q->n_moves)
            return ply_why(why, why_len, PLY_EINVAL, "ply %u is beyond the game's %zu moves",
                           g->plies[i], q->n_moves);
        if (i && g->plies[i] == g->plies[i - 1])
            return ply_why(why, why_len, PLY_EINVAL, "ply %u is asked twice", g->plies[i]);
    }
    ply_arb_pos_t pos = *root;
    size_t next = 0;
    for (size_t k = 0; next < g->nplies; k++) {
        ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
        if (g->plies[next] == k) {
            if (ply_arb_legal_moves(&pos, moves) == 0)
                return ply_why(why, why_len, PLY_EILLEGAL,
                               "the position after ply %zu has no legal move (%s)", k,
                               ply_arb_in_check(&pos) ? "checkmate" : "stalemate");
            g->pos[next++] = pos;
        }
        ply_arb_move_t mv;
        if (k < q->n_moves) {
            if (ply_arb_move_from_uci(&pos, q->moves[k], &mv) < 0)
                return ply_why(why, why_len, PLY_EILLEGAL, "move %zu (%s) is not legal", k + 1,
                               q->moves[k]);
            ply_arb_make(&pos, mv);
        }
    }
    return 0;
}

/* Chunks of PLY__GAME_CHUNK requested plies, each sharing its first with the one before. */
static void make_chunks(ply__game_t *g)
{
    size_t step = PLY__GAME_CHUNK - 1, first = 0;
    g->nchunks = 0;
    do {
        chunk_t *c = &g->chunks[g->nchunks++];
        c->first = first;
        c->n = g->nplies - first < PLY__GAME_CHUNK ? g->nplies - first : PLY__GAME_CHUNK;
        for (size_t i = 0; i < c->n; i++) c->desc[i] = g->plies[first + c->n - 1 - i];
        first += step;
    } while (first + 1 < g->nplies);
}

int ply__game_new(const Ply__SearchRequest *q, const ply_arb_pos_t *root, ply__game_t **out,
                  char *why, size_t why_len)
{
    ply__game_t *g = calloc(1, sizeof *g);
    size_t n = q->n_plies;
    *out = NULL;
    if (g) {
        g->nplies = n;
        g->plies = calloc(n, sizeof *g->plies);
        g->pos = calloc(n, sizeof *g->pos);
        g->chunks = calloc(n, sizeof *g->chunks); /* at most one per ply */
        g->kept = calloc(n, sizeof *g->kept);
        g->sorted = calloc(n, sizeof *g->sorted);
    }
    if (!g || !g->plies || !g->pos || !g->chunks || !g->kept || !g->sorted) {
        ply__game_free(&g);
        return ply_why(why, why_len, PLY_ENOMEM, "out of memory");
    }
    int rc = take_plies(g, q, root, why, why_len);
    if (rc < 0) {
        ply__game_free(&g);
        return rc;
    }
    make_chunks(g);
    *out = g;
    return 0;
}

static void free_kept(kept_t *k)
{
    for (size_t i = 0; k->pv_san && i < k->am.n_pv_san; i++) free(k->pv_san[i]);
    free(k->pv_san);
    k->pv_san = NULL;
}

void ply__game_free(ply__game_t **gp)
{
    ply__game_t *g = gp ? *gp : NULL;
    if (!g) return;
    for (size_t i = 0; g->kept && i < g->nplies; i++) free_kept(&g->kept[i]);
    for (size_t i = 0; g->chunks && i < g->nchunks; i++)
        if (g->chunks[i].res) ply__search_result__free_unpacked(g->chunks[i].res, NULL);
    free(g->plies);
    free(g->pos);
    free(g->chunks);
    free(g->kept);
    free(g->sorted);
    free(g);
    *gp = NULL;
}

size_t ply__game_njobs(const ply__game_t *g)
{
    return g->nchunks;
}

size_t ply__game_positions(const ply__game_t *g, size_t job)
{
    return g->chunks[job].n;
}

void ply__game_fill_job(const ply__game_t *g, size_t job, const Ply__SearchRequest *q,
                        Ply__SearchJob *sj)
{
    const chunk_t *c = &g->chunks[job];
    sj->n_moves = c->desc[0], sj->moves = q->moves; /* up to the chunk's highest ply */
    sj->n_plies = c->n, sj->plies = (uint32_t *)c->desc;
    sj->n_searchmoves = 0, sj->searchmoves = NULL;
    sj->has_multipv = 1, sj->multipv = 1;
}

/* The index in g->plies of @ply within chunk @c, or -1. */
static long index_in(const ply__game_t *g, const chunk_t *c, uint32_t ply)
{
    for (size_t i = c->first; i < c->first + c->n; i++)
        if (g->plies[i] == ply) return (long)i;
    return -1;
}

int ply__game_check(const ply__game_t *g, size_t job, const Ply__SearchResult *res,
                    uint32_t want_depth, char *why, size_t why_len)
{
    const chunk_t *c = &g->chunks[job];
    if (res->n_lines != c->n)
        return ply_why(why, why_len, PLY_EMISMATCH, "plies %u-%u: %zu lines for %zu positions",
                       c->desc[0], c->desc[c->n - 1], res->n_lines, c->n);
    int seen[PLY__GAME_CHUNK] = {0};
    for (size_t i = 0; i < res->n_lines; i++) {
        const Ply__SearchLine *l = res->lines[i];
        long at = l->has_ply ? index_in(g, c, l->ply) : -1;
        if (at < 0 || seen[at - (long)c->first]++)
            return ply_why(why, why_len, PLY_EMISMATCH,
                           "line %zu is for ply %s%u, not one of plies %u-%u (or twice)", i + 1,
                           l->has_ply ? "" : "(none) ", l->ply, c->desc[0], c->desc[c->n - 1]);
        char label[32];
        snprintf(label, sizeof label, "ply %u", l->ply);
        int rc = ply__search_replay_line(&g->pos[at], l, want_depth, label, why, why_len);
        if (rc < 0) return rc;
    }
    return 0;
}

int ply__search_replay_line(const ply_arb_pos_t *from, const Ply__SearchLine *l,
                            uint32_t want_depth, const char *label, char *why, size_t why_len)
{
    if (l->n_pv == 0) return ply_why(why, why_len, PLY_EMISMATCH, "%s: the line is empty", label);
    ply_arb_pos_t pos = *from;
    ply_arb_move_t mv;
    for (size_t i = 0; i < l->n_pv; i++) {
        if (ply_arb_move_from_uci(&pos, l->pv[i], &mv) < 0)
            return ply_why(why, why_len, PLY_EMISMATCH, "%s: PV move %zu %s is not legal", label,
                           i + 1, l->pv[i]);
        ply_arb_make(&pos, mv);
    }
    ply_arb_move_t none[PLY_ARB_MAX_MOVES];
    int mated = ply_arb_legal_moves(&pos, none) == 0 && ply_arb_in_check(&pos);
    if (l->has_mate) {
        int64_t n = l->mate, plies = n > 0 ? 2 * n - 1 : -2 * n;
        if (n == 0 || !mated || (int64_t)l->n_pv != plies)
            return ply_why(why, why_len, PLY_EMISMATCH, "%s: claims mate in %" PRId32 " but %s",
                           label, l->mate,
                           !mated   ? "the line ends without checkmate"
                           : n == 0 ? "the position analysed has legal moves"
                                    : "the checkmate is not at that distance");
        return 0;
    }
    if (want_depth && l->depth < want_depth)
        return ply_why(why, why_len, PLY_EMISMATCH, "%s: searched to depth %u, the run asks %u",
                       label, l->depth, want_depth);
    return 0;
}

/* Sort class of a line: 0 a mate for the side to move, 1 a score, 2 a mate against it. */
static int line_class(const Ply__SearchLine *l)
{
    return !l->has_mate ? 1 : l->mate > 0 ? 0 : 2;
}

int ply__search_cmp_analysed(const void *pa, const void *pb)
{
    const Ply__AnalysedMove *a = *(Ply__AnalysedMove *const *)pa;
    const Ply__AnalysedMove *b = *(Ply__AnalysedMove *const *)pb;
    int ca = line_class(a->line), cb = line_class(b->line);
    if (ca != cb) return ca - cb;
    int64_t ka = ca == 1 ? -(int64_t)a->line->score_cp : a->line->mate;
    int64_t kb = cb == 1 ? -(int64_t)b->line->score_cp : b->line->mate;
    if (ka != kb) return ka < kb ? -1 : 1;
    return strcmp(a->move ? a->move : "", b->move ? b->move : "");
}

Ply__SearchResult *ply__search_result_dup(const Ply__SearchResult *r)
{
    size_t len = ply__search_result__get_packed_size(r);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return NULL;
    ply__search_result__pack(r, buf);
    Ply__SearchResult *copy = ply__search_result__unpack(NULL, len, buf);
    free(buf);
    return copy;
}

int ply__search_pv_san(const ply_arb_pos_t *from, const Ply__SearchLine *l, char ***out)
{
    char **pv_san = calloc(l->n_pv ? l->n_pv : 1, sizeof *pv_san);
    if (!pv_san) return PLY_ENOMEM;
    ply_arb_pos_t pos = *from;
    for (size_t i = 0; i < l->n_pv; i++) {
        ply_arb_move_t mv;
        char san[PLY_ARB_SAN_MAX] = "?";
        if (ply_arb_move_from_uci(&pos, l->pv[i], &mv) == 0) { /* checked already */
            ply_arb_move_to_san(&pos, mv, san, sizeof san);
            ply_arb_make(&pos, mv);
        }
        if (!(pv_san[i] = strdup(san))) {
            for (size_t j = 0; j < i; j++) free(pv_san[j]);
            free(pv_san);
            return PLY_ENOMEM;
        }
    }
    *out = pv_san;
    return 0;
}

/* Keeps line @l of chunk @job as the answer of requested ply @at. */
static int keep(ply__game_t *g, size_t job, size_t at, const Ply__SearchLine *l)
{
    kept_t *k = &g->kept[at];
    char **pv_san;
    if (ply__search_pv_san(&g->pos[at], l, &pv_san) < 0) return PLY_ENOMEM;
    free_kept(k);
    const chunk_t *c = &g->chunks[job];
    k->chunk = job;
    k->pv_san = pv_san;
    snprintf(k->uci, sizeof k->uci, "%s", l->n_pv ? l->pv[0] : "");
    snprintf(k->san, sizeof k->san, "%s", l->n_pv ? pv_san[0] : "");
    Ply__AnalysedMove *a = &k->am;
    *a = (Ply__AnalysedMove)PLY__ANALYSED_MOVE__INIT;
    a->move = k->uci;
    a->san = k->san;
    a->line = (Ply__SearchLine *)l;
    a->n_pv_san = l->n_pv, a->pv_san = pv_san;
    a->has_nodes = 1, a->nodes = c->res->nodes;
    a->has_time_us = 1, a->time_us = c->res->time_us;
    a->engine = c->res->engine;
    a->worker_id = (char *)c->worker;
    a->identity = (char *)c->identity;
    a->has_ply = 1, a->ply = g->plies[at];
    return 0;
}

int ply__game_accept(ply__game_t *g, size_t job, Ply__SearchResult *res, const char *worker,
                     const char *identity)
{
    chunk_t *c = &g->chunks[job];
    if (c->res) ply__search_result__free_unpacked(c->res, NULL); /* never: accepted once */
    c->res = res;
    snprintf(c->worker, sizeof c->worker, "%s", worker ? worker : "");
    snprintf(c->identity, sizeof c->identity, "%s", identity ? identity : "");
    for (size_t i = 0; i < res->n_lines; i++) {
        const Ply__SearchLine *l = res->lines[i];
        size_t at = (size_t)index_in(g, c, l->ply); /* checked */
        const kept_t *k = &g->kept[at];
        /* the overlap: the deeper line, at equal depth the later chunk's */
        if (k->am.line &&
            (k->am.line->depth > l->depth || (k->am.line->depth == l->depth && k->chunk > job)))
            continue;
        if (keep(g, job, at, l) < 0) return PLY_ENOMEM;
    }
    g->nsorted = 0;
    for (size_t i = 0; i < g->nplies; i++)
        if (g->kept[i].am.line) g->sorted[g->nsorted++] = &g->kept[i].am;
    return 0;
}

Ply__AnalysedMove **ply__game_answer(const ply__game_t *g, size_t *n)
{
    *n = g->nsorted;
    return g->sorted;
}

void ply__game_describe_job(const ply__game_t *g, size_t job, char *buf, size_t len)
{
    const chunk_t *c = &g->chunks[job];
    snprintf(buf, len, "game chunk %zu of %zu: plies %u-%u (%zu positions, searched backwards)",
             job + 1, g->nchunks, c->desc[0], c->desc[c->n - 1], c->n);
}
