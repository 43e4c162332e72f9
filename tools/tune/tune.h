/*
 * ply-tune: the evaluation's Texel tuner (tools/tune/README.md). Internal to
 * the tool; the parts are the random-opening book, the extraction of labelled
 * quiet positions from PGN, and the tuning itself.
 */
#ifndef PLY_TOOLS_TUNE_H
#define PLY_TOOLS_TUNE_H

#include <stdint.h>
#include <stdio.h>

#include "board/board.h"

/** ply_tune_openings - write @count distinct random openings of @plies plies
 * (EPD) to @out, from the fixed @seed. Returns 0, or -1 out of memory. */
int ply_tune_openings(int count, int plies, uint64_t seed, FILE *out);

/** ply_tune_qsearch - a plain quiescence search of @b (captures and
 * promotions by most valuable victim, stand pat, at most 12 plies), with
 * ply_eval at the leaves; centipawns for the side to move. */
int ply_tune_qsearch(const ply_board_t *b, int alpha, int beta, int depth);

/** ply_tune_extract - append the quiet positions of the games of PGN file
 * @path to @out as "FEN;R" lines (R the result for White: 1, 0.5, 0);
 * counts the games read, the positions seen and those kept. Returns 0, or
 * -1 when the file cannot be read (said on stderr). */
int ply_tune_extract(const char *path, FILE *out, long *games, long *kept, long *seen);

/** ply_tune_texel - tune the evaluation's values on the "FEN;R" positions of
 * @train_path (R a win probability for White) by Texel's local search, at
 * most @passes passes, reporting the error of @valid_path too (may be NULL);
 * @select is "all", "pst" (piece values and tables) or "terms" (the rest).
 * After every pass the values are written to @out_path as eval.c's
 * initializer. Returns 0, or -1 (a file or memory; said on stderr). */
int ply_tune_texel(const char *train_path, const char *valid_path, int passes, const char *select,
                   const char *out_path);

#endif
