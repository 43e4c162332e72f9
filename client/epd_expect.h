/*
 * What an EPD test record expects of a move (PGN standard 16.2): "bm" (best moves) and "am"
 * (moves to avoid), read as moves of the record's position by the rule engine (SAN, or UCI,
 * which its SAN reader also takes), so that a move spelt unusually is still compared as the
 * move it is. Shared by `ply solve` (an engine's bestmove) and `ply analyse --epd` (the top
 * line of a run), which must agree on what "solved" means.
 */
#ifndef PLY_CLIENT_EPD_EXPECT_H
#define PLY_CLIENT_EPD_EXPECT_H

#include <stddef.h>

#include "arbiter/arbiter.h"
#include "epd_ops.h"

/** Most moves one bm, am or c0 operand may list. */
#define PLY_EPD_EXPECT_MAX 32

/** A record's position and expectations. */
typedef struct ply_epd_expect {
    ply_arb_pos_t pos;
    char fen[PLY_ARB_FEN_MAX];          /* canonical, with the record's clocks */
    const char *id, *bm_text, *am_text; /* the operands as written (the record's), or NULL */
    int nbm, nam;
    ply_arb_move_t bm[PLY_EPD_EXPECT_MAX], am[PLY_EPD_EXPECT_MAX];
} ply_epd_expect_t;

/**
 * ply_epd_expect_read - the position of record @r (its FEN fields; when it has only four,
 * the clocks of its hmvc and fmvn operations, else 0 and 1) and its bm and am moves into
 * *@x, which points into @r (keep @r alive). Returns 0, or -1 with a one-line reason in
 * @why: a bad position, a move that is not legal there ("bm 'Qg7': ..."), more than
 * PLY_EPD_EXPECT_MAX moves, an operation without a move.
 */
int ply_epd_expect_read(const ply_epd_rec_t *r, ply_epd_expect_t *x, char *why, size_t why_len);

/**
 * ply_epd_read_moves - blank- or comma-separated moves of @text (SAN or UCI) as legal moves
 * of @pos into @out (room for PLY_EPD_EXPECT_MAX), their number in *@n; @op names the
 * operation in reasons. Returns 0, or -1 with the reason in @why.
 */
int ply_epd_read_moves(const ply_arb_pos_t *pos, const char *op, const char *text,
                       ply_arb_move_t *out, int *n, char *why, size_t why_len);

/** ply_epd_move_index - index of @m in @list[0..@n) (same squares, promotion, castle), or -1. */
int ply_epd_move_index(const ply_arb_move_t *list, int n, ply_arb_move_t m);

/**
 * ply_epd_expect_scored - 1 when @x has bm or am moves (a move can be judged), else 0.
 */
int ply_epd_expect_scored(const ply_epd_expect_t *x);

/**
 * ply_epd_expect_solves - 1 when @m solves @x: none of am and, when bm is given, one of bm;
 * else 0.
 */
int ply_epd_expect_solves(const ply_epd_expect_t *x, ply_arb_move_t m);

#endif
