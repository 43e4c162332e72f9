/* The opening book of ply match (see book.h). */
#include "book.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_ops.h"
#include "util/error.h"

/* "12." or "12..." (a move number), possibly glued to a move: returns the move part. */
static const char *skip_number(const char *t)
{
    const char *p = t;
    while (isdigit((unsigned char)*p)) p++;
    if (p == t || *p != '.') return t;
    while (*p == '.') p++;
    return p;
}

/* Replays c0's moves from the initial position into @l; 0 or -1 with a reason. */
static int replay(ply_book_line_t *l, const char *text, char *why, size_t why_len)
{
    char buf[1024], err[200];
    snprintf(buf, sizeof buf, "%s", text);
    ply_arb_pos_t pos;
    ply_arb_startpos(&l->start);
    pos = l->start;
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        const char *mv = skip_number(t);
        if (!*mv) continue;
        if (l->nmoves == PLY_BOOK_MOVES_MAX)
            return ply_why(why, why_len, -1, "more than %d book moves", PLY_BOOK_MOVES_MAX);
        ply_arb_move_t m;
        if (ply_arb_move_from_san(&pos, mv, &m, err, sizeof err) < 0)
            return ply_why(why, why_len, -1, "book move %d '%s': %s", l->nmoves + 1, mv, err);
        ply_arb_move_to_san(&pos, m, l->san[l->nmoves], sizeof l->san[0]);
        ply_arb_move_to_uci(&pos, m, l->uci[l->nmoves]);
        l->moves[l->nmoves++] = m;
        ply_arb_make(&pos, m);
    }
    return 0;
}

static int read_line(const ply_epd_rec_t *r, size_t idx, ply_book_line_t *l, char *why,
                     size_t why_len)
{
    char err[256];
    ply_arb_pos_t pos;
    l->line_no = r->line_no;
    const char *id = ply_epd_op(r, "id");
    if (id)
        snprintf(l->name, sizeof l->name, "%s", id);
    else
        snprintf(l->name, sizeof l->name, "line %zu", idx + 1);
    if (ply_arb_from_fen(&pos, r->fen, 0, err, sizeof err) < 0)
        return ply_why(why, why_len, -1, "bad position: %s", err);
    const char *moves = ply_epd_op(r, "c0");
    if (moves) {
        if (replay(l, moves, why, why_len) < 0) return -1;
        ply_arb_pos_t end = l->start;
        for (int i = 0; i < l->nmoves; i++) ply_arb_make(&end, l->moves[i]);
        char a[PLY_ARB_FEN_MAX], b[PLY_ARB_FEN_MAX];
        ply_arb_identity(&end, a, sizeof a);
        ply_arb_identity(&pos, b, sizeof b);
        if (strcmp(a, b))
            return ply_why(why, why_len, -1, "the moves reach %s, not the FEN's %s", a, b);
        pos = end;
    } else {
        l->start = pos;
        l->from_fen = 1;
    }
    ply_arb_to_fen(&l->start, l->start_fen, sizeof l->start_fen);
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    if (ply_arb_legal_moves(&pos, legal) == 0)
        return ply_why(why, why_len, -1, "the game is over in this position (no legal move)");
    return 0;
}

ply_book_t *ply_book_load(const char *path, char *why, size_t why_len)
{
    ply_epd_file_t *f = ply_epd_file_load(path, why, why_len);
    if (!f) return NULL;
    ply_book_t *b = calloc(1, sizeof *b);
    if (b) b->lines = calloc(f->n, sizeof *b->lines);
    if (!b || !b->lines) {
        snprintf(why, why_len, "out of memory");
        ply_epd_file_free(&f);
        ply_book_free(&b);
        return NULL;
    }
    for (size_t i = 0; i < f->n; i++) {
        char err[400];
        if (read_line(&f->recs[i], i, &b->lines[i], err, sizeof err) < 0) {
            snprintf(why, why_len, "%s:%d: %s", path, f->recs[i].line_no, err);
            ply_epd_file_free(&f);
            ply_book_free(&b);
            return NULL;
        }
        b->n++;
    }
    ply_epd_file_free(&f);
    return b;
}

void ply_book_free(ply_book_t **b)
{
    if (!b || !*b) return;
    free((*b)->lines);
    free(*b);
    *b = NULL;
}
