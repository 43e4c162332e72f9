/*
 * A move's judgement, accuracy and centipawn loss by lichess's rules (annotate.h).
 */
#include "annotate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The score clamp of lila's Cp.ceiled, and what a mate counts as. */
#define CP_CEILING 1000

ply_annot_eval_t ply_annot_from_stm(int is_mate, int cp_or_mate, int white_to_move)
{
    ply_annot_eval_t e = {is_mate != 0, white_to_move ? cp_or_mate : -cp_or_mate};
    return e;
}

/* @e from the mover's side: positive is good for the side that moved. */
static ply_annot_eval_t for_mover(ply_annot_eval_t e, int white_moved)
{
    if (!white_moved) e.value = -e.value;
    return e;
}

/* Centipawns of @e, clamped, a mate counting as the ceiling. */
static int ceiled_cp(ply_annot_eval_t e)
{
    if (e.is_mate) return e.value > 0 ? CP_CEILING : -CP_CEILING;
    return e.value > CP_CEILING ? CP_CEILING : e.value < -CP_CEILING ? -CP_CEILING : e.value;
}

static double chances(int cp)
{
    return 2.0 / (1.0 + exp(-0.00368208 * cp)) - 1.0;
}

double ply_annot_winning_chances(ply_annot_eval_t e)
{
    return chances(ceiled_cp(e));
}

ply_annot_judgement_t ply_annot_judge(ply_annot_eval_t before, ply_annot_eval_t after,
                                      int white_moved)
{
    ply_annot_eval_t b = for_mover(before, white_moved), a = for_mover(after, white_moved);
    /* lila's MateAdvice: a score that is not centipawns counts as 0 there */
    int b_cp = b.is_mate ? 0 : b.value, a_cp = a.is_mate ? 0 : a.value;
    if (!b.is_mate && a.is_mate && a.value < 0) { /* mate created against the mover */
        if (b_cp < -999) return PLY_ANNOT_INACCURACY;
        if (b_cp < -700) return PLY_ANNOT_MISTAKE;
        return PLY_ANNOT_BLUNDER;
    }
    if (b.is_mate && b.value > 0 && (!a.is_mate || a.value < 0)) { /* mate lost */
        if (a_cp > 999) return PLY_ANNOT_INACCURACY;
        if (a_cp > 700) return PLY_ANNOT_MISTAKE;
        return PLY_ANNOT_BLUNDER;
    }
    double drop = chances(ceiled_cp(b)) - chances(ceiled_cp(a));
    if (drop >= 0.3) return PLY_ANNOT_BLUNDER;
    if (drop >= 0.2) return PLY_ANNOT_MISTAKE;
    if (drop >= 0.1) return PLY_ANNOT_INACCURACY;
    return PLY_ANNOT_GOOD;
}

double ply_annot_accuracy(ply_annot_eval_t before, ply_annot_eval_t after, int white_moved)
{
    double wb = 50.0 + 50.0 * chances(ceiled_cp(for_mover(before, white_moved)));
    double wa = 50.0 + 50.0 * chances(ceiled_cp(for_mover(after, white_moved)));
    double d = wb > wa ? wb - wa : 0.0;
    double acc = 103.1668 * exp(-0.043544 * d) - 3.1669;
    return acc < 0.0 ? 0.0 : acc > 100.0 ? 100.0 : acc;
}

int ply_annot_cp_loss(ply_annot_eval_t before, ply_annot_eval_t after, int white_moved)
{
    int loss = ceiled_cp(for_mover(before, white_moved)) - ceiled_cp(for_mover(after, white_moved));
    return loss > 0 ? loss : 0;
}

const char *ply_annot_nag_text(ply_annot_judgement_t j)
{
    switch (j) {
    case PLY_ANNOT_INACCURACY:
        return "?!";
    case PLY_ANNOT_MISTAKE:
        return "?";
    case PLY_ANNOT_BLUNDER:
        return "??";
    default:
        return "";
    }
}

const char *ply_annot_name(ply_annot_judgement_t j)
{
    switch (j) {
    case PLY_ANNOT_INACCURACY:
        return "Inaccuracy";
    case PLY_ANNOT_MISTAKE:
        return "Mistake";
    case PLY_ANNOT_BLUNDER:
        return "Blunder";
    default:
        return "";
    }
}

int ply_annot_eval_comment(ply_annot_eval_t e, unsigned depth, char *buf, size_t len)
{
    if (e.is_mate) return snprintf(buf, len, "[%%eval #%d,%u]", e.value, depth);
    int a = abs(e.value);
    return snprintf(buf, len, "[%%eval %s%d.%02d,%u]", e.value < 0 ? "-" : "", a / 100, a % 100,
                    depth);
}
