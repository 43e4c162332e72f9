/*
 * A game of `ply analyse-pgn` (issue 11, part 4) between the PGN reader and the writer:
 * its main line replayed by the rule engine (positions, moves in UCI and SAN, how it
 * ends), one engine line per position, and what the command writes from them: the
 * annotated game (ply_pgn_game_t) and the per-move facts its --json prints.
 *
 * Workload: one game at a time (a few hundred plies), so everything here is plain arrays
 * sized by the game. The rules of judgement, accuracy and [%eval] are annotate.h's
 * (lichess's); this file only decides which two evaluations each move is judged by:
 *   - ply k is the position after k moves (ply 0 the game's start); the k-th move
 *     (0-based) leads from ply k to ply k+1;
 *   - a move's [%eval] is the evaluation of the position after it (ply k+1), from
 *     White's side, as lichess writes it;
 *   - a move is judged by the evaluations of ply k (before) and ply k+1 (after);
 *   - a position without a legal move has no engine line (UCI's "mate 0" has no sign):
 *     a move that checkmates gets no [%eval] and is never an error (lichess writes none
 *     there either, the final position being game over: lila issue #11207); ply counts it
 *     in its side's accuracy and ACPL as a perfect move (100%, 0 cp lost), as that issue
 *     asks, where lichess leaves it out; a move that
 *     stalemates gets no [%eval] either and is judged as if the position after it
 *     were 0.00 (a stalemate is a draw by art. 5.2(a)), so stalemating away a won game
 *     is a blunder;
 *   - the engine's best line of ply k is written as a variation after the k-th move
 *     when its first move is not the move played.
 * The consistency pass (ply_pa_contradictions) finds the plies whose line contradicts
 * the line before them; the command searches those again.
 */
#ifndef PLY_CLIENT_PGN_ANNOTATE_H
#define PLY_CLIENT_PGN_ANNOTATE_H

#include <stddef.h>

#include "annotate.h"
#include "arbiter/arbiter.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"

/** Moves of an engine line kept per position (the variation written is at most this). */
#define PLY_PA_PV_MAX 12
/** A UCI move with its NUL ("e7e8q"). */
#define PLY_PA_UCI_MAX 6

/** How a position of the game stands. */
typedef enum {
    PLY_PA_PLAYING = 0, /* the side to move has a legal move: it is searched */
    PLY_PA_MATED = 1,   /* checkmate (art. 5.1(a)): no engine line */
    PLY_PA_STALEMATE = 2,
} ply_pa_end_t;

/** The engine's line of one position: score of the side to move there (UCI's sense). */
typedef struct ply_pa_line {
    int have;       /* 0: no line (a position without legal move, or none yet) */
    int is_mate;    /* @value is mate in moves (> 0: the side to move mates) */
    int value;      /* centipawns or mate in moves, side to move */
    unsigned depth; /* iteration depth, plies */
    int npv;        /* moves of @pv, 0..PLY_PA_PV_MAX */
    char pv[PLY_PA_PV_MAX][PLY_PA_UCI_MAX]; /* UCI, from this position */
    /* the consistency pass: 1 when this line replaced a contradicted one of this game,
     * whose score and depth follow (side to move, as above) */
    int researched;
    /* searched with twice the budget (by a consistency pass, of this game or an earlier
     * one: the cache keeps it): never searched again */
    int doubled;
    int first_is_mate, first_value;
    unsigned first_depth;
} ply_pa_line_t;

/** A game's main line, replayed. Arrays are owned (ply_pa_game_free). */
typedef struct ply_pa_game {
    int nplies;                   /* moves of the main line */
    ply_arb_pos_t *pos;           /* nplies + 1: pos[k] is the position after k moves */
    ply_pa_end_t *end;            /* nplies + 1 */
    char (*uci)[PLY_PA_UCI_MAX];  /* nplies: the moves in UCI (the search request's) */
    char (*san)[PLY_ARB_SAN_MAX]; /* nplies: the moves in SAN, as the rule engine writes */
    ply_pa_line_t *lines;         /* nplies + 1, all zero (have 0) after reading */
    char start_fen[PLY_ARB_FEN_MAX];
} ply_pa_game_t;

/**
 * ply_pa_game_read - replay the main line of @src (depth-0 moves; comments, NAGs and
 * variations are not read) from its start position (ply_pgn_game_start: the FEN tag,
 * Chess960 by the Variant tag) with the rule engine into *@g, which the caller frees
 * with ply_pa_game_free (also on failure). Returns 0; PLY_EILLEGAL or PLY_EPARSE for a
 * move that is not legal or not a move (@why names the ply, the move as written and the
 * reason, *@line its line in the file); a bad start position (ply_pgn_game_start's
 * errors, *@line the game's line); PLY_ENOMEM.
 */
int ply_pa_game_read(ply_pa_game_t *g, const ply_pgn_game_t *src, long *line, char *why,
                     size_t why_len);

/** ply_pa_game_free - free @g's arrays and zero it; idempotent. */
void ply_pa_game_free(ply_pa_game_t *g);

/** What the annotation says about one move (the k-th: from ply k to ply k+1). */
typedef struct ply_pa_move {
    int has_eval;          /* the position after it has a line: @eval, @depth */
    ply_annot_eval_t eval; /* White's point of view */
    unsigned depth;
    int judged; /* both positions could be scored (a mating move: 1, good) */
    ply_annot_judgement_t judgement;
    double accuracy; /* percent, lichess's AccuracyPercent; when judged */
    int cp_loss;     /* centipawns >= 0; when judged */
    /* lichess's MateAdvice sequence when a mate rule decided: "Checkmate is now
     * unavoidable", "Lost forced checkmate sequence", else "" */
    const char *mate_text;
    char best[PLY_ARB_SAN_MAX]; /* the engine's move at ply k in SAN when it is not the
                                   move played, else "" */
} ply_pa_move_t;

/** Each side's totals (index 0 White, 1 Black). */
typedef struct ply_pa_summary {
    int moves[2];       /* judged moves */
    double accuracy[2]; /* mean of their accuracies, percent; 0 when none */
    double acpl[2];     /* mean of their cp losses, centipawns; 0 when none */
} ply_pa_summary_t;

/**
 * ply_pa_judge - the facts of every move of @g from its lines, by the header's rules:
 * @moves (g->nplies entries) and @sum (may be NULL). A move whose position before or
 * after lacks a line (one the engine could not give) has judged 0 and counts in no total.
 */
void ply_pa_judge(const ply_pa_game_t *g, ply_pa_move_t *moves, ply_pa_summary_t *sum);

/**
 * ply_pa_contradictions - the consistency pass's findings: the plies k+1 (1..nplies)
 * whose line contradicts the line of ply k although the move between them was the
 * engine's own choice (the first move of ply k's line). Searching the best move cannot
 * lose anything, so lichess's rule must then judge it good; a contradiction is any
 * other judgement: a mate for the mover at ply k gone at ply k+1 (MateLost), a mate
 * against the mover appearing (MateCreated), or a drop of the mover's winning chances of
 * 0.1 or more. The later ply is the one searched again: its search saw less than the
 * earlier one, which had it at a deeper ply of its own line. A line searched with twice
 * the budget already (researched or doubled) is not reported again. Writes up to @max plies into
 * @plies, ascending; returns how many there are (may exceed @max).
 */
size_t ply_pa_contradictions(const ply_pa_game_t *g, unsigned *plies, size_t max);

/**
 * ply_pa_annotate - the annotated game into @out (cleared first): @src's tags, then
 * WhiteAccuracy and BlackAccuracy (percent, one decimal) and WhiteACPL and BlackACPL
 * (centipawns, rounded) when the side has judged moves, and an Annotator tag naming
 * @annotator (may be NULL); the main line in the rule engine's SAN, each move followed
 * by its judgement's NAG ($6 ?!, $2 ?, $4 ??), one comment ("[%eval 0.17,22]", then for
 * a judged error "Mistake. Nf3 was best." with lichess's mate texts before the best
 * move, then for a re-searched position "Re-searched with twice the budget: the first
 * search (0.35,4) contradicted ply K.") and the engine's best line as a variation when
 * it differs from the move played; @src's termination marker. @moves and @sum are
 * ply_pa_judge's. The comments, NAGs and variations of @src are kept beside the
 * engine's: after each move, @src's NAGs then the engine's NAG (unless @src gave that
 * one), @src's comments (up to its first variation) then the engine's comment, @src's
 * variations (moves as written) and what follows them, then the engine's line; what
 * comes before the first move stays first. @src's comments lose their [%eval ...]
 * commands, which ours replace (each with the white space after it, or before it at the
 * text's end; a comment left with white space only goes); the rest of their text is kept
 * byte for byte. Returns 0, PLY_ENOMEM or PLY_EINVAL (a tag @src has that the writer
 * refuses).
 */
int ply_pa_annotate(const ply_pa_game_t *g, const ply_pgn_game_t *src, const ply_pa_move_t *moves,
                    const ply_pa_summary_t *sum, const char *annotator, ply_pgn_game_t *out);

/**
 * ply_pa_line_eval - @l's score from White's side, @l being the line of the position
 * after @ply moves of @g (ply_annot_from_stm with that position's side to move).
 */
ply_annot_eval_t ply_pa_line_eval(const ply_pa_game_t *g, int ply, const ply_pa_line_t *l);

#endif
