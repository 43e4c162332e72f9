/*
 * The text and JSON of `ply analyse` (analyse_out.h). The coordinator sorts the root moves
 * and the rule engine has replayed every line; this file only says so, in the forms users
 * know from GUIs and engines: scores in pawns from the side to move, "#N" for mates, PVs in
 * SAN with move numbers.
 */
#include "analyse_out.h"

#include <inttypes.h>
#include <string.h>

#include "arbiter/san.h"
#include "envelope.h"
#include "util/json_exact.h"
#include "util/u128.h"

void ply_analyse_score_text(const Ply__SearchLine *l, int bounds, char *buf, size_t len)
{
    if (!l) {
        snprintf(buf, len, "-");
        return;
    }
    /* as engines' GUIs mark a fail-high or fail-low */
    const char *bound = !bounds || !l->bound ? "" : l->bound == 1 ? ">= " : "<= ";
    if (l->has_mate)
        snprintf(buf, len, "%s#%d", bound, l->mate);
    else if (l->score_cp == 0)
        snprintf(buf, len, "%s0.00", bound);
    else
        snprintf(buf, len, "%s%c%d.%02d", bound, l->score_cp < 0 ? '-' : '+',
                 abs(l->score_cp) / 100, abs(l->score_cp) % 100);
}

void ply_analyse_pv_text(const char *fen, char *const *san, size_t n, char *buf, size_t len)
{
    char side = 'w';
    unsigned move_no = 1;
    if (fen && sscanf(fen, "%*s %c %*s %*s %*s %u", &side, &move_no) != 2) move_no = 1;
    if (!move_no) move_no = 1;
    int black = side == 'b';
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char item[48];
        if (!black)
            snprintf(item, sizeof item, "%s%u. %s", i ? " " : "", move_no, san[i]);
        else if (i == 0)
            snprintf(item, sizeof item, "%u... %s", move_no, san[i]);
        else
            snprintf(item, sizeof item, " %s", san[i]);
        if (black) move_no++;
        black = !black;
        size_t k = strlen(item);
        if (at + k + 5 > len) { /* room for " ..." and the NUL */
            snprintf(buf + at, len - at, " ...");
            return;
        }
        memcpy(buf + at, item, k + 1);
        at += k;
    }
}

int64_t ply_analyse_key(const Ply__SearchLine *l)
{
    if (!l) return INT64_MIN;
    if (l->has_mate) return l->mate > 0 ? 1000000000 - l->mate : -1000000000 - l->mate;
    return l->score_cp;
}

void ply_analyse_print_header(FILE *out)
{
    fprintf(out, "%4s  %-8s %-20s %-7s %12s %9s  %s\n", "rank", "move", "score", "depth", "nodes",
            "time", "pv");
}

void ply_analyse_print_row(FILE *out, unsigned rank, const Ply__AnalysedMove *m, const char *fen)
{
    char score[48], depth[24] = "-", pv[4096];
    const Ply__SearchLine *l = m->line;
    ply_analyse_score_text(l, 1, score, sizeof score);
    if (l && l->has_seldepth) snprintf(depth, sizeof depth, "%u/%u", l->depth, l->seldepth);
    else if (l) snprintf(depth, sizeof depth, "%u", l->depth); /* a bound without its search */
    ply_analyse_pv_text(fen, m->pv_san, m->n_pv_san, pv, sizeof pv);
    fprintf(out, "%4u  %-8s %-20s %-7s %12" PRIu64 " %7.2f s  %s\n", rank,
            m->san ? m->san : m->move, score, depth, m->nodes, (double)m->time_us / 1e6, pv);
}

size_t ply_analyse_pv_san(const char *fen, int chess960, char *const *pv, size_t n,
                          char (*san)[PLY_ANALYSE_SAN_MAX])
{
    ply_arb_pos_t pos;
    if (!fen || ply_arb_from_fen(&pos, fen, chess960 ? PLY_ARB_CHESS960 : 0, NULL, 0) < 0) return 0;
    for (size_t i = 0; i < n; i++) {
        ply_arb_move_t m;
        if (!pv[i] || ply_arb_move_from_uci(&pos, pv[i], &m) < 0 ||
            ply_arb_move_to_san(&pos, m, san[i], PLY_ANALYSE_SAN_MAX) < 0)
            return i;
        ply_arb_make(&pos, m);
    }
    return n;
}

/* An iteration's best line in SAN (*@sanp: @n pointers into a buffer, free both), or NULL
 * and 0 when out of memory. */
static char **iteration_san(const Ply__SearchIteration *it, const char *fen, int chess960,
                            size_t *n)
{
    const Ply__SearchLine *l = it->line;
    size_t k = l ? l->n_pv : 0;
    char(*san)[PLY_ANALYSE_SAN_MAX] = calloc(k + 1, sizeof *san);
    char **ptrs = calloc(k + 1, sizeof *ptrs);
    *n = 0;
    if (!san || !ptrs) {
        free(san);
        free(ptrs);
        return NULL;
    }
    *n = k ? ply_analyse_pv_san(fen, chess960, l->pv, k, san) : 0;
    for (size_t i = 0; i <= k; i++) ptrs[i] = san[i]; /* ptrs[0] owns the buffer */
    return ptrs;
}

static void free_san(char **ptrs)
{
    if (ptrs) free(ptrs[0]);
    free(ptrs);
}

void ply_analyse_print_iteration_header(FILE *out)
{
    fprintf(out, "%5s  %-12s %9s  %14s  %s\n", "depth", "score", "time", "nodes", "pv");
}

void ply_analyse_print_iteration(FILE *out, const Ply__SearchIteration *it, const char *fen,
                                 int chess960)
{
    char score[48], pv[4096] = "";
    ply_analyse_score_text(it->line, 1, score, sizeof score);
    size_t n = 0;
    char **san = iteration_san(it, fen, chess960, &n);
    if (san) ply_analyse_pv_text(fen, san, n, pv, sizeof pv);
    if (!n) snprintf(pv, sizeof pv, "%s", it->san ? it->san : it->move ? it->move : "");
    free_san(san);
    fprintf(out, "%5u  %-12s %7.2f s  %14" PRIu64 "  %s\n", it->depth, score,
            (double)it->time_ms / 1000.0, it->nodes, pv);
}

/* The engines that answered, once each ("ply 0.1.0 builtin, Stockfish 15.1"). */
static void engines_text(const Ply__SearchAnswer *s, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_moves; i++) {
        const char *e = s->moves[i]->engine;
        if (!e || !*e) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->moves[j]->engine && !strcmp(s->moves[j]->engine, e);
        if (seen) continue;
        size_t at = strlen(buf);
        snprintf(buf + at, len - at, "%s%s", at ? ", " : "", e);
    }
    if (!buf[0]) snprintf(buf, len, "?");
}

/* The run's total: 128-bit on the wire (nodes, nodes_hi), as perft's is, so that no
 * worker's claim can wrap it; SearchAnswer.nodes has no high word and is not used. */
static ply_u128_t answer_nodes(const Ply__RunResult *r)
{
    return ply_msg_count(r->nodes, r->has_nodes_hi, r->nodes_hi);
}

void ply_analyse_print_text(FILE *out, const Ply__RunResult *r, const ply_analyse_asked_t *a)
{
    const Ply__SearchAnswer *s = r->search;
    const char *fen = s && s->fen ? s->fen : a->root;
    fprintf(out, "Position: %s", fen);
    if (a->nmoves) fprintf(out, " (after %zu moves from %s)", a->nmoves, a->root);
    fprintf(out, "\n");
    if (s && s->status && *s->status) {
        const char *side = strstr(fen, " b ") ? "black" : "white";
        if (!strcmp(s->status, "checkmate"))
            fprintf(out, "Checkmate: %s is mated, no move to analyse\n", side);
        else
            fprintf(out, "Stalemate: %s has no legal move (a draw), no move to analyse\n", side);
        return;
    }
    size_t n = s ? s->n_moves : 0;
    if (s && s->has_depth)
        fprintf(out, "Depth: %u (%zu iteration%s)\n", s->depth, s->n_iterations,
                s->n_iterations == 1 ? "" : "s");
    if (n) {
        char score[48], pv[4096];
        ply_analyse_score_text(s->moves[0]->line, 1, score, sizeof score);
        ply_analyse_pv_text(fen, s->moves[0]->pv_san, s->moves[0]->n_pv_san, pv, sizeof pv);
        fprintf(out, "Best: %s %s  %s\n\n", s->moves[0]->san, score, pv);
        ply_analyse_print_header(out);
    }
    /* a deepening analysis has every root move, the ones not scored exactly as bounds */
    size_t shown = !a->deepen && a->multipv && a->multipv < n ? a->multipv : n;
    for (size_t i = 0; i < shown; i++)
        ply_analyse_print_row(out, (unsigned)i + 1, s->moves[i], fen);
    if (shown < n)
        fprintf(out, "  ... %zu more root moves (--multipv all shows them)\n", n - shown);
    char engines[512];
    if (s) engines_text(s, engines, sizeof engines);
    ply_u128_t nodes = answer_nodes(r);
    char count[PLY_U128_DEC_LEN];
    fprintf(out, "\n%u jobs, %s nodes in %.3f s (%.0f knodes/s); engine: %s\n", r->jobs,
            ply_u128_to_dec(nodes, count, sizeof count), (double)r->time_ms / 1000.0,
            r->time_ms ? (double)nodes / (double)r->time_ms : 0.0, s ? engines : "?");
    unsigned replayed = s ? s->replayed : 0, rejected = s ? s->rejected : 0;
    fprintf(out, "Checked: %u lines replayed by the rule engine", replayed);
    if (rejected) fprintf(out, "; %u rejected and run again elsewhere:", rejected);
    fprintf(out, "\n");
    for (size_t i = 0; s && i < s->n_rejection; i++)
        fprintf(out, "  rejected: %s\n", s->rejection[i]);
    const Ply__Verification *v = r->verification;
    if (!v) return;
    fprintf(out, "Verified (%s): %s\n", v->mode ? v->mode : "?", v->summary ? v->summary : "");
    for (size_t i = 0; i < v->n_exclusion; i++) fprintf(out, "  %s\n", v->exclusion[i]);
    for (size_t i = 0; i < v->n_detail; i++) fprintf(out, "  mismatch: %s\n", v->detail[i]);
}

static json_t *strings_json(char *const *v, size_t n);

/* What --verify checked (RunResult.verification), or JSON null for a run without it. */
static json_t *verification_json(const Ply__Verification *v)
{
    if (!v) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "mode", ply_json_text(v->mode ? v->mode : ""));
    json_object_set_new(o, "jobs", json_integer(v->jobs));
    json_object_set_new(o, "selected", json_integer(v->jobs_selected));
    json_object_set_new(o, "matched", json_integer(v->checked_by_worker));
    json_object_set_new(o, "mismatches", json_integer(v->mismatches));
    json_object_set_new(o, "resolved", json_integer(v->resolved));
    json_object_set_new(o, "identities", json_integer(v->identities));
    json_object_set_new(o, "excluded", json_integer(v->excluded));
    json_object_set_new(o, "recomputed", json_integer(v->recomputed));
    json_object_set_new(o, "summary", ply_json_text(v->summary ? v->summary : ""));
    json_object_set_new(o, "exclusions", strings_json(v->exclusion, v->n_exclusion));
    json_object_set_new(o, "details", strings_json(v->detail, v->n_detail));
    return o;
}

static json_t *strings_json(char *const *v, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(arr, ply_json_text(v[i]));
    return arr;
}

static json_t *score_json(const Ply__SearchLine *l)
{
    json_t *o = json_object();
    if (!l) return o;
    if (l->has_mate)
        json_object_set_new(o, "mate", json_integer(l->mate));
    else
        json_object_set_new(o, "cp", json_integer(l->score_cp));
    json_object_set_new(o, "bound",
                        ply_json_text(l->bound == 1   ? "lower"
                                      : l->bound == 2 ? "upper"
                                                      : "exact"));
    return o;
}

json_t *ply_analyse_iteration_json(const Ply__SearchIteration *it, const char *fen, int chess960)
{
    json_t *o = json_object();
    if (!o) return NULL;
    const Ply__SearchLine *l = it->line;
    size_t n = 0;
    char **san = iteration_san(it, fen, chess960, &n);
    json_object_set_new(o, "type", ply_json_text("iteration"));
    json_object_set_new(o, "depth", json_integer(it->depth));
    json_object_set_new(o, "score", score_json(l));
    json_object_set_new(o, "move", ply_json_text(it->move ? it->move : ""));
    json_object_set_new(o, "san", ply_json_text(it->san ? it->san : ""));
    json_object_set_new(o, "pv", l ? strings_json(l->pv, l->n_pv) : json_array());
    json_object_set_new(o, "pv_san", san ? strings_json(san, n) : json_array());
    json_object_set_new(o, "seldepth", json_integer(l ? l->seldepth : 0));
    json_object_set_new(o, "time_ms", ply_json_count(it->time_ms));
    json_object_set_new(o, "nodes", ply_json_count(it->nodes));
    free_san(san);
    return o;
}

static json_t *line_json(const Ply__AnalysedMove *m)
{
    json_t *o = json_object();
    const Ply__SearchLine *l = m->line;
    json_object_set_new(o, "move", ply_json_text(m->move ? m->move : ""));
    json_object_set_new(o, "san", ply_json_text(m->san ? m->san : ""));
    json_object_set_new(o, "score", score_json(l));
    json_object_set_new(o, "depth", json_integer(l ? l->depth : 0));
    json_object_set_new(o, "seldepth", json_integer(l ? l->seldepth : 0));
    json_object_set_new(o, "pv", l ? strings_json(l->pv, l->n_pv) : json_array());
    json_object_set_new(o, "pv_san", strings_json(m->pv_san, m->n_pv_san));
    json_object_set_new(o, "nodes", ply_json_count(m->nodes));
    json_object_set_new(o, "time_ms", json_real((double)m->time_us / 1000.0));
    json_object_set_new(o, "engine", m->engine ? ply_json_text(m->engine) : json_null());
    json_object_set_new(o, "worker", m->worker_id ? ply_json_text(m->worker_id) : json_null());
    return o;
}

json_t *ply_analyse_json(const Ply__RunResult *r, const ply_analyse_asked_t *a)
{
    const Ply__SearchAnswer *s = r->search;
    json_t *o = json_object();
    if (!o) return NULL;
    const char *fen = s && s->fen ? s->fen : a->root;
    json_object_set_new(o, "type", ply_json_text("result"));
    json_object_set_new(o, "fen", ply_json_text(fen));
    json_object_set_new(o, "root", ply_json_text(a->root));
    json_object_set_new(o, "moves", strings_json((char *const *)a->moves, a->nmoves));
    /* what was computed: a deepening analysis's deepest iteration, else the depth asked */
    json_object_set_new(o, "depth",
                        s && s->has_depth ? json_integer(s->depth)
                        : a->depth        ? json_integer(a->depth)
                                          : json_null());
    json_object_set_new(o, "depth_asked", a->depth ? json_integer(a->depth) : json_null());
    json_object_set_new(o, "nodes_asked", a->nodes ? ply_json_count(a->nodes) : json_null());
    json_object_set_new(o, "movetime_ms",
                        a->movetime_ms ? json_integer(a->movetime_ms) : json_null());
    json_object_set_new(o, "deepen", json_boolean(a->deepen));
    json_object_set_new(o, "infinite", json_boolean(a->infinite));
    json_object_set_new(o, "multipv",
                        a->deepen || a->multipv ? json_integer(a->multipv ? a->multipv : 1)
                                                : json_null());
    json_object_set_new(o, "engine", ply_json_text(a->engine ? a->engine : "any"));
    json_object_set_new(o, "status",
                        ply_json_text(s && s->status && *s->status ? s->status : "ok"));
    json_t *lines = json_array();
    size_t n = s ? s->n_moves : 0;
    size_t shown = !a->deepen && a->multipv && a->multipv < n ? a->multipv : n;
    for (size_t i = 0; i < shown; i++) json_array_append_new(lines, line_json(s->moves[i]));
    json_object_set_new(o, "lines", lines);
    json_object_set_new(o, "best", n ? line_json(s->moves[0]) : json_null());
    json_t *its = json_array();
    for (size_t i = 0; s && i < s->n_iterations; i++)
        json_array_append_new(its, ply_analyse_iteration_json(s->iterations[i], fen, a->chess960));
    json_object_set_new(o, "iterations", its);
    json_object_set_new(o, "nodes", ply_json_count(answer_nodes(r)));
    json_object_set_new(o, "time_ms", ply_json_count(r->time_ms));
    json_object_set_new(o, "jobs", json_integer(r->jobs));
    json_object_set_new(o, "replayed", json_integer(s ? s->replayed : 0));
    json_object_set_new(o, "rejected", json_integer(s ? s->rejected : 0));
    json_object_set_new(o, "rejections",
                        s ? strings_json(s->rejection, s->n_rejection) : json_array());
    json_object_set_new(o, "verification", verification_json(r->verification));
    json_object_set_new(o, "run", ply_json_count(r->run_id));
    return o;
}

int ply_analyse_print_result(const Ply__RunResult *r, int json)
{
    const Ply__SearchRequest *q = r->asked ? r->asked->search : NULL;
    ply_analyse_asked_t a = {0};
    a.root = q && q->fen ? q->fen : r->search->fen ? r->search->fen : "?";
    if (q) {
        a.moves = (const char *const *)q->moves;
        a.nmoves = q->n_moves;
        a.depth = q->depth;
        a.nodes = q->nodes;
        a.movetime_ms = q->movetime_ms;
        a.engine = q->engine && *q->engine ? q->engine : NULL;
        a.deepen = q->deepen;
        a.infinite = q->infinite;
        a.multipv = q->deepen ? q->multipv : 0;
        a.chess960 = q->chess960;
    }
    if (json) {
        json_t *o = ply_analyse_json(r, &a);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        ply_analyse_print_text(stdout, r, &a);
    }
    return 0;
}
