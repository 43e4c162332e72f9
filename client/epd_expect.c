/*
 * EPD bm/am expectations (epd_expect.h): the one reading of them that ply solve and
 * ply analyse --epd share.
 */
#include "epd_expect.h"

#include <stdio.h>
#include <string.h>

#include "arbiter/san.h"
#include "util/error.h"

int ply_epd_move_index(const ply_arb_move_t *list, int n, ply_arb_move_t m)
{
    for (int i = 0; i < n; i++)
        if (list[i].from == m.from && list[i].to == m.to && list[i].promo == m.promo &&
            (list[i].flags & PLY_ARB_MOVE_CASTLE) == (m.flags & PLY_ARB_MOVE_CASTLE))
            return i;
    return -1;
}

int ply_epd_read_moves(const ply_arb_pos_t *pos, const char *op, const char *text,
                       ply_arb_move_t *out, int *n, char *why, size_t why_len)
{
    char buf[512], err[200];
    snprintf(buf, sizeof buf, "%s", text);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t,", &save); t;
         t = strtok_r(NULL, " \t,", &save)) {
        if (*n == PLY_EPD_EXPECT_MAX)
            return ply_why(why, why_len, -1, "%s: more than %d moves", op, PLY_EPD_EXPECT_MAX);
        if (ply_arb_move_from_san(pos, t, &out[*n], err, sizeof err) < 0)
            return ply_why(why, why_len, -1, "%s '%s': %s", op, t, err);
        (*n)++;
    }
    if (!*n) return ply_why(why, why_len, -1, "%s without a move", op);
    return 0;
}

/* The record's FEN with clocks: its own six fields, or four and hmvc/fmvn (PGN 16.2.5). */
static void record_fen(const ply_epd_rec_t *r, char *out, size_t len)
{
    int fields = 0;
    for (const char *p = r->fen; *p;) {
        p += strspn(p, " \t");
        if (!*p) break;
        fields++;
        p += strcspn(p, " \t");
    }
    const char *hmvc = ply_epd_op(r, "hmvc"), *fmvn = ply_epd_op(r, "fmvn");
    if (fields == 4)
        snprintf(out, len, "%s %s %s", r->fen, hmvc && *hmvc ? hmvc : "0",
                 fmvn && *fmvn ? fmvn : "1");
    else
        snprintf(out, len, "%s", r->fen);
}

int ply_epd_expect_read(const ply_epd_rec_t *r, ply_epd_expect_t *x, char *why, size_t why_len)
{
    memset(x, 0, sizeof *x);
    char fen[512], err[256];
    record_fen(r, fen, sizeof fen);
    /* validated and written in canonical form by the rule engine, as every ply command
     * reads a FEN, then read back in that form */
    if (ply_arb_from_fen(&x->pos, fen, 0, err, sizeof err) < 0) goto bad;
    if (ply_arb_to_fen(&x->pos, x->fen, sizeof x->fen) < 0) {
        snprintf(err, sizeof err, "position too long to write");
        goto bad;
    }
    if (ply_arb_from_fen(&x->pos, x->fen, 0, err, sizeof err) < 0) goto bad;
    x->id = ply_epd_op(r, "id");
    x->bm_text = ply_epd_op(r, "bm");
    x->am_text = ply_epd_op(r, "am");
    if (x->bm_text &&
        ply_epd_read_moves(&x->pos, "bm", x->bm_text, x->bm, &x->nbm, why, why_len) < 0)
        return -1;
    if (x->am_text &&
        ply_epd_read_moves(&x->pos, "am", x->am_text, x->am, &x->nam, why, why_len) < 0)
        return -1;
    return 0;
bad:
    return ply_why(why, why_len, -1, "bad position: %s", err);
}

int ply_epd_expect_scored(const ply_epd_expect_t *x)
{
    return x->nbm || x->nam;
}

int ply_epd_expect_solves(const ply_epd_expect_t *x, ply_arb_move_t m)
{
    if (ply_epd_move_index(x->am, x->nam, m) >= 0) return 0;
    return x->nbm ? ply_epd_move_index(x->bm, x->nbm, m) >= 0 : 1;
}
