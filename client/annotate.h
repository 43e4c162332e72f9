/*
 * What `ply analyse-pgn` writes about each move of a game (issue 11, part 4), computed
 * from the engine's evaluations of the positions before and after it: the `[%eval]`
 * comment, the judgement (inaccuracy, mistake, blunder, as NAGs ?!, ?, ??), the move's
 * accuracy, and each side's average centipawn loss and accuracy.
 *
 * The rules are lichess's (lila, modules/analyse: WinPercent, Advice, AccuracyPercent),
 * as issue 11 states them:
 *   - winning chances of a score of cp centipawns, cp clamped to [-1000, 1000] and a
 *     mate counted as +/-1000:  wc(cp) = 2 / (1 + exp(-0.00368208 cp)) - 1, in [-1, 1];
 *     win% = 50 + 50 wc;
 *   - a move's judgement, seen from the side that moved (the mover):
 *       * mate created: no mate against the mover before, one after: an inaccuracy when
 *         the mover's cp before was below -999, a mistake below -700, else a blunder;
 *       * mate lost: a mate for the mover before, none for the mover after: an
 *         inaccuracy when the mover's cp after is above 999, a mistake above 700, else
 *         a blunder (a mate against the mover after has no cp: a blunder);
 *       * else the drop of the mover's winning chances, wc(before) - wc(after): at least
 *         0.3 a blunder, 0.2 a mistake, 0.1 an inaccuracy;
 *     (a score absent from one side of a mate rule counts as 0 cp there, as lila's does);
 *   - a move's accuracy: 103.1668 exp(-0.043544 d) - 3.1669, clamped to [0, 100], where
 *     d = max(0, win% before - win% after) from the mover's side;
 *   - a side's accuracy: the arithmetic mean of its moves' accuracies (lichess weights
 *     them by the volatility of the position and averages with their harmonic mean; ply
 *     says it does not);
 *   - a side's average centipawn loss: the mean over its moves of
 *     max(0, cp before - cp after) from the mover's side, scores clamped to +/-1000 and
 *     mates counted as +/-1000.
 * Nothing here knows chess: the caller gives scores and depths; the SAN of the best
 * move, when it is named, comes from the rule engine. A checkmated position has no
 * engine score (UCI's "mate 0" has no sign): the caller judges no move into it, as a
 * mating move is never an error.
 */
#ifndef PLY_CLIENT_ANNOTATE_H
#define PLY_CLIENT_ANNOTATE_H

#include <stddef.h>

/** A score from White's point of view: centipawns, or mate in moves. */
typedef struct ply_annot_eval {
    int is_mate; /* 1: @value is a mate in moves (UCI's "score mate"): > 0 White mates,
                    < 0 Black mates; 0: @value is centipawns, > 0 good for White */
    int value;
} ply_annot_eval_t;

/** The judgement of a move (NAG 0, $6, $2 or $4). */
typedef enum {
    PLY_ANNOT_GOOD = 0,
    PLY_ANNOT_INACCURACY = 6, /* ?! */
    PLY_ANNOT_MISTAKE = 2,    /* ? */
    PLY_ANNOT_BLUNDER = 4,    /* ?? */
} ply_annot_judgement_t;

/**
 * ply_annot_from_stm - the score @cp_or_mate (UCI's score of the side to move: centipawns,
 * or mate in moves when @is_mate, then non-zero) as seen from White, @white_to_move saying
 * who was to move.
 */
ply_annot_eval_t ply_annot_from_stm(int is_mate, int cp_or_mate, int white_to_move);

/**
 * ply_annot_winning_chances - wc of @e for White, in [-1, 1] (the header's formula; a mate
 * counts as +/-1000 centipawns). Source: lichess lila, WinPercent.
 */
double ply_annot_winning_chances(ply_annot_eval_t e);

/**
 * ply_annot_judge - the judgement of a move by White (@white_moved) or Black, from the
 * evaluation of the position before it (@before) and after it (@after), by the header's
 * rules. Source: lichess lila, Advice (MateAdvice, CpAdvice).
 */
ply_annot_judgement_t ply_annot_judge(ply_annot_eval_t before, ply_annot_eval_t after,
                                      int white_moved);

/**
 * ply_annot_accuracy - the accuracy of that move, percent in [0, 100] (the header's
 * formula). Source: lichess lila, AccuracyPercent.
 */
double ply_annot_accuracy(ply_annot_eval_t before, ply_annot_eval_t after, int white_moved);

/**
 * ply_annot_cp_loss - the centipawns the mover lost by the move, >= 0 (scores clamped to
 * +/-1000, mates as +/-1000).
 */
int ply_annot_cp_loss(ply_annot_eval_t before, ply_annot_eval_t after, int white_moved);

/** ply_annot_nag - "?!", "?" or "??" for a judgement, "" for a good move. */
const char *ply_annot_nag_text(ply_annot_judgement_t j);

/** ply_annot_name - "Inaccuracy", "Mistake" or "Blunder", "" for a good move. */
const char *ply_annot_name(ply_annot_judgement_t j);

/**
 * ply_annot_eval_comment - the PGN comment command of @e at @depth plies, as lichess writes
 * it: "[%eval 0.17,22]" (pawns from White's side, two decimals) or "[%eval #-3,22]", into
 * @buf (@len bytes, 32 is enough). Returns the length, as snprintf.
 */
int ply_annot_eval_comment(ply_annot_eval_t e, unsigned depth, char *buf, size_t len);

#endif
