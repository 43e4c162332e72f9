/*
 * A game of `ply analyse-pgn`: its main line replayed, judged and written annotated
 * (pgn_annotate.h says which evaluations judge which move, and why).
 */
#include "pgn_annotate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* ---- reading ----------------------------------------------------------------------- */

static ply_pa_end_t end_of(const ply_arb_pos_t *p)
{
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    if (ply_arb_legal_moves(p, moves) > 0) return PLY_PA_PLAYING;
    return ply_arb_in_check(p) ? PLY_PA_MATED : PLY_PA_STALEMATE;
}

static int alloc_game(ply_pa_game_t *g, int n)
{
    g->nplies = n;
    g->pos = calloc((size_t)n + 1, sizeof *g->pos);
    g->end = calloc((size_t)n + 1, sizeof *g->end);
    g->lines = calloc((size_t)n + 1, sizeof *g->lines);
    g->uci = calloc((size_t)n + 1, sizeof *g->uci);
    g->san = calloc((size_t)n + 1, sizeof *g->san);
    return g->pos && g->end && g->lines && g->uci && g->san ? 0 : PLY_ENOMEM;
}

int ply_pa_game_read(ply_pa_game_t *g, const ply_pgn_game_t *src, long *line, char *why,
                     size_t why_len)
{
    memset(g, 0, sizeof *g);
    *line = src->line;
    int n = 0;
    for (size_t i = 0; i < src->nelems; i++)
        n += src->elems[i].kind == PLY_PGN_MOVE && src->elems[i].depth == 0;
    if (alloc_game(g, n)) return ply_why(why, why_len, PLY_ENOMEM, "out of memory");
    int rc = ply_pgn_game_start(src, &g->pos[0], why, why_len);
    if (rc < 0) return rc;
    ply_arb_to_fen(&g->pos[0], g->start_fen, sizeof g->start_fen);
    int k = 0;
    for (size_t i = 0; i < src->nelems; i++) {
        const ply_pgn_elem_t *e = &src->elems[i];
        if (e->kind != PLY_PGN_MOVE || e->depth != 0) continue;
        g->end[k] = end_of(&g->pos[k]);
        ply_arb_move_t m;
        char how[200];
        rc = ply_arb_move_from_san(&g->pos[k], e->text, &m, how, sizeof how);
        if (rc < 0) {
            *line = e->line;
            return ply_why(why, why_len, rc, "ply %d (%d%s %s): %s", k + 1, k / 2 + 1,
                           g->pos[k].side ? "..." : ".", e->text, how);
        }
        ply_arb_move_to_uci(&g->pos[k], m, g->uci[k]);
        ply_arb_move_to_san(&g->pos[k], m, g->san[k], sizeof g->san[k]);
        g->pos[k + 1] = g->pos[k];
        ply_arb_make(&g->pos[k + 1], m);
        k++;
    }
    g->end[k] = end_of(&g->pos[k]);
    return 0;
}

void ply_pa_game_free(ply_pa_game_t *g)
{
    free(g->pos);
    free(g->end);
    free(g->lines);
    free(g->uci);
    free(g->san);
    memset(g, 0, sizeof *g);
}

/* ---- judging ----------------------------------------------------------------------- */

ply_annot_eval_t ply_pa_line_eval(const ply_pa_game_t *g, int ply, const ply_pa_line_t *l)
{
    return ply_annot_from_stm(l->is_mate, l->value, g->pos[ply].side == 0);
}

/*
 * The evaluation of ply @k for judging: its line, or 0.00 for a stalemate. Returns 0
 * when there is none (no line, or a checkmate, which has no score).
 */
static int judge_eval(const ply_pa_game_t *g, int k, ply_annot_eval_t *e)
{
    if (g->end[k] == PLY_PA_STALEMATE) {
        *e = (ply_annot_eval_t){0, 0};
        return 1;
    }
    if (!g->lines[k].have) return 0;
    *e = ply_pa_line_eval(g, k, &g->lines[k]);
    return 1;
}

/* lichess's MateAdvice sequence text, from the mover's side (lila's MateSequence). */
static const char *mate_text(ply_annot_eval_t before, ply_annot_eval_t after, int white_moved)
{
    int sign = white_moved ? 1 : -1;
    int b_mate = before.is_mate ? sign * before.value : 0;
    int a_mate = after.is_mate ? sign * after.value : 0;
    if (b_mate > 0 && a_mate <= 0) return "Lost forced checkmate sequence";
    if (!before.is_mate && a_mate < 0) return "Checkmate is now unavoidable";
    return "";
}

static void judge_move(const ply_pa_game_t *g, int k, ply_pa_move_t *m)
{
    memset(m, 0, sizeof *m);
    m->mate_text = "";
    const ply_pa_line_t *after = &g->lines[k + 1];
    if (after->have && g->end[k + 1] == PLY_PA_PLAYING) {
        m->has_eval = 1;
        m->eval = ply_pa_line_eval(g, k + 1, after);
        m->depth = after->depth;
    }
    int white_moved = g->pos[k].side == 0;
    ply_annot_eval_t b, a;
    if (g->end[k + 1] == PLY_PA_MATED) { /* a mating move is never an error */
        m->judged = 1;
        m->judgement = PLY_ANNOT_GOOD;
        m->accuracy = 100.0;
    } else if (judge_eval(g, k, &b) && judge_eval(g, k + 1, &a)) {
        m->judged = 1;
        m->judgement = ply_annot_judge(b, a, white_moved);
        m->accuracy = ply_annot_accuracy(b, a, white_moved);
        m->cp_loss = ply_annot_cp_loss(b, a, white_moved);
        if (m->judgement != PLY_ANNOT_GOOD) m->mate_text = mate_text(b, a, white_moved);
    }
    const ply_pa_line_t *before = &g->lines[k];
    ply_arb_move_t best;
    if (before->have && before->npv > 0 && strcmp(before->pv[0], g->uci[k]) != 0 &&
        ply_arb_move_from_uci(&g->pos[k], before->pv[0], &best) == 0)
        ply_arb_move_to_san(&g->pos[k], best, m->best, sizeof m->best);
}

void ply_pa_judge(const ply_pa_game_t *g, ply_pa_move_t *moves, ply_pa_summary_t *sum)
{
    double acc[2] = {0, 0}, loss[2] = {0, 0};
    int n[2] = {0, 0};
    for (int k = 0; k < g->nplies; k++) {
        judge_move(g, k, &moves[k]);
        if (!moves[k].judged) continue;
        int side = g->pos[k].side;
        n[side]++;
        acc[side] += moves[k].accuracy;
        loss[side] += moves[k].cp_loss;
    }
    if (!sum) return;
    for (int s = 0; s < 2; s++) {
        sum->moves[s] = n[s];
        sum->accuracy[s] = n[s] ? acc[s] / n[s] : 0.0;
        sum->acpl[s] = n[s] ? loss[s] / n[s] : 0.0;
    }
}

size_t ply_pa_contradictions(const ply_pa_game_t *g, unsigned *plies, size_t max)
{
    size_t found = 0;
    for (int k = 0; k < g->nplies; k++) {
        const ply_pa_line_t *b = &g->lines[k], *a = &g->lines[k + 1];
        if (!b->have || !a->have || a->researched || a->doubled || b->npv == 0 ||
            strcmp(b->pv[0], g->uci[k]) != 0)
            continue;
        ply_annot_eval_t eb = ply_pa_line_eval(g, k, b), ea = ply_pa_line_eval(g, k + 1, a);
        if (ply_annot_judge(eb, ea, g->pos[k].side == 0) == PLY_ANNOT_GOOD) continue;
        if (found < max) plies[found] = (unsigned)k + 1;
        found++;
    }
    return found;
}

/* ---- writing ----------------------------------------------------------------------- */

/* "0.35,4" or "#-3,4": lichess's [%eval] without its brackets. */
static void eval_text(ply_annot_eval_t e, unsigned depth, char *buf, size_t len)
{
    char full[48];
    ply_annot_eval_comment(e, depth, full, sizeof full);
    const char *p = strchr(full, ' ');
    snprintf(buf, len, "%s", p ? p + 1 : full);
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ']') buf[n - 1] = '\0';
}

static int add_comment(ply_pgn_game_t *out, const ply_pa_game_t *g, int k, const ply_pa_move_t *m)
{
    char text[400] = "", part[160];
    if (m->has_eval) ply_annot_eval_comment(m->eval, m->depth, text, sizeof text);
    if (m->judged && m->judgement != PLY_ANNOT_GOOD) {
        snprintf(part, sizeof part, "%s%s.%s%s%s%s", text[0] ? " " : "",
                 ply_annot_name(m->judgement), m->mate_text[0] ? " " : "", m->mate_text,
                 m->mate_text[0] ? "." : "", m->best[0] ? " " : "");
        strncat(text, part, sizeof text - strlen(text) - 1);
        if (m->best[0]) {
            snprintf(part, sizeof part, "%s was best.", m->best);
            strncat(text, part, sizeof text - strlen(text) - 1);
        }
    }
    const ply_pa_line_t *l = &g->lines[k + 1];
    if (l->researched) {
        char first[48];
        ply_pa_line_t was = {.is_mate = l->first_is_mate, .value = l->first_value};
        eval_text(ply_pa_line_eval(g, k + 1, &was), l->first_depth, first, sizeof first);
        snprintf(part, sizeof part,
                 "%sRe-searched with twice the budget: the first search (%s) contradicted ply %d.",
                 text[0] ? " " : "", first, k);
        strncat(text, part, sizeof text - strlen(text) - 1);
    }
    return text[0] ? ply_pgn_game_add(out, PLY_PGN_COMMENT, text, 0) : 0;
}

/* The engine's line of ply @k in SAN as a variation (stops at a move it cannot play). */
static int add_variation(ply_pgn_game_t *out, const ply_pa_game_t *g, int k)
{
    const ply_pa_line_t *l = &g->lines[k];
    ply_arb_pos_t p = g->pos[k];
    int rc = ply_pgn_game_add(out, PLY_PGN_VAR_START, NULL, 0);
    for (int i = 0; i < l->npv && rc == 0; i++) {
        ply_arb_move_t m;
        char san[PLY_ARB_SAN_MAX];
        if (ply_arb_move_from_uci(&p, l->pv[i], &m) < 0 ||
            ply_arb_move_to_san(&p, m, san, sizeof san) < 0)
            break;
        rc = ply_pgn_game_add(out, PLY_PGN_MOVE, san, 0);
        ply_arb_make(&p, m);
    }
    return rc ? rc : ply_pgn_game_add(out, PLY_PGN_VAR_END, NULL, 0);
}

static int add_tags(ply_pgn_game_t *out, const ply_pgn_game_t *src, const ply_pa_summary_t *sum,
                    const char *annotator)
{
    int rc = 0;
    for (size_t i = 0; i < src->ntags && rc == 0; i++)
        rc = ply_pgn_game_set_tag(out, src->tags[i].name, src->tags[i].value);
    static const char *const side[2] = {"White", "Black"};
    for (int s = 0; s < 2 && rc == 0; s++) {
        if (!sum->moves[s]) continue;
        char name[32], value[32];
        snprintf(name, sizeof name, "%sAccuracy", side[s]);
        snprintf(value, sizeof value, "%.1f", sum->accuracy[s]);
        rc = ply_pgn_game_set_tag(out, name, value);
        snprintf(name, sizeof name, "%sACPL", side[s]);
        snprintf(value, sizeof value, "%.0f", round(sum->acpl[s]));
        if (rc == 0) rc = ply_pgn_game_set_tag(out, name, value);
    }
    if (annotator && rc == 0) rc = ply_pgn_game_set_tag(out, "Annotator", annotator);
    return rc;
}

/* @text without its [%eval ...] commands (ours replace them), each taken with the white
 * space after it, or before it when it ends the text; into @buf (as long as @text). 0 when
 * a command was taken and what is left is white space only: the comment then goes. */
static int strip_evals(const char *text, char *buf)
{
    size_t n = 0;
    int kept = 0, taken = 0;
    for (const char *p = text; *p;) {
        const char *close = strncmp(p, "[%eval", 6) ? NULL : strchr(p, ']');
        if (!close) {
            kept |= *p != ' ' && *p != '\t';
            buf[n++] = *p++;
            continue;
        }
        p = close + 1;
        taken = 1;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p)
            while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
    }
    buf[n] = 0;
    return kept || !taken;
}

/* One element of @src copied into @out as the user wrote it (a comment without its
 * [%eval] commands). */
static int copy_elem(ply_pgn_game_t *out, const ply_pgn_elem_t *e)
{
    if (e->kind == PLY_PGN_NAG) return ply_pgn_game_add(out, e->kind, NULL, e->nag);
    if (e->kind != PLY_PGN_COMMENT && e->kind != PLY_PGN_LINE_COMMENT)
        return ply_pgn_game_add(out, e->kind, e->text, 0);
    char *buf = malloc(strlen(e->text) + 1);
    if (!buf) return PLY_ENOMEM;
    int rc = strip_evals(e->text, buf) ? ply_pgn_game_add(out, e->kind, buf, 0) : 0;
    free(buf);
    return rc;
}

static int is_main_move(const ply_pgn_elem_t *e)
{
    return e->kind == PLY_PGN_MOVE && e->depth == 0;
}

int ply_pa_annotate(const ply_pa_game_t *g, const ply_pgn_game_t *src, const ply_pa_move_t *moves,
                    const ply_pa_summary_t *sum, const char *annotator, ply_pgn_game_t *out)
{
    ply_pgn_game_clear(out);
    int rc = add_tags(out, src, sum, annotator);
    size_t i = 0, nel = src->nelems;
    const ply_pgn_elem_t *el = src->elems;
    for (; rc == 0 && i < nel && !is_main_move(&el[i]); i++) rc = copy_elem(out, &el[i]);
    for (int k = 0; k < g->nplies && rc == 0; k++) {
        const ply_pa_move_t *m = &moves[k];
        rc = ply_pgn_game_add(out, PLY_PGN_MOVE, g->san[k], 0);
        /* the user's elements after the move: up to its first variation, NAGs then
         * comments, each before the engine's; the variations and what follows them after
         * the engine's comment, the engine's line last */
        size_t from = i + 1, upto = from, next = from;
        while (upto < nel && !is_main_move(&el[upto]) && el[upto].kind != PLY_PGN_VAR_START) upto++;
        while (next < nel && !is_main_move(&el[next])) next++;
        int same = 0; /* the user gave the engine's NAG already */
        for (size_t j = from; j < upto && rc == 0; j++)
            if (el[j].kind == PLY_PGN_NAG) {
                rc = copy_elem(out, &el[j]);
                same |= el[j].nag == (int)m->judgement;
            }
        if (rc == 0 && m->judged && m->judgement != PLY_ANNOT_GOOD && !same)
            rc = ply_pgn_game_add(out, PLY_PGN_NAG, NULL, (int)m->judgement);
        for (size_t j = from; j < upto && rc == 0; j++)
            if (el[j].kind != PLY_PGN_NAG) rc = copy_elem(out, &el[j]);
        if (rc == 0) rc = add_comment(out, g, k, m);
        for (size_t j = upto; j < next && rc == 0; j++) rc = copy_elem(out, &el[j]);
        if (rc == 0 && m->best[0]) rc = add_variation(out, g, k);
        i = next;
    }
    if (rc == 0 && src->result) rc = ply_pgn_game_set_result(out, src->result);
    return rc;
}
