/*
 * The tuner's access to the evaluation's values (tools/tune/). Only in a
 * copy of eval.c compiled with PLY_EVAL_TUNE, where the table of values is
 * writable; the engine's eval.c reads it as constants and has none of this.
 * Not thread-safe: the tuner changes the table between evaluations.
 */
#ifndef PLY_WORKER_EVAL_TUNE_H
#define PLY_WORKER_EVAL_TUNE_H

#include <stdio.h>

/** ply__eval_tune_params - the table of values as an array of *@count ints
 * (centipawns), writable; call ply__eval_tune_update after changing it. */
int *ply__eval_tune_params(int *count);

/** ply__eval_tune_update - take changes of the table into account (the
 * material and piece-square sums built from it). */
void ply__eval_tune_update(void);

/** ply__eval_tune_pst - for index @i of the table: 0 (middlegame) or 1
 * (endgame) when it is a piece-square entry, with *@type the piece type and
 * *@entry the table entry (black's square, white's square ^ 56); -1 when it
 * is not one. */
int ply__eval_tune_pst(int i, int *type, int *entry);

/** ply__eval_tune_is_material - 1 when index @i of the table is a piece
 * value (middlegame or endgame), else 0. */
int ply__eval_tune_is_material(int i);

/** ply__eval_tune_print - write the table to @out as the C initializer of
 * eval.c's eval_params_t (designated fields, one per line). */
void ply__eval_tune_print(FILE *out);

#endif
