/*
 * A command's position with the moves played from it, as UCI's "position
 * startpos moves e2e4 e7e5" says it: `ply perft` and `ply analyse` take
 * "startpos" or a FEN (positional words or --fen), optionally followed by
 * "moves M1 M2 ..." (or --moves "M1 M2 ..."), and read them here, once, with
 * the rule engine: the root as ply_cli_fen checks it, each move found among
 * the legal moves of the position it is played in.
 */
#ifndef PLY_CLI_POSITION_H
#define PLY_CLI_POSITION_H

#include <stddef.h>

#include "arbiter/arbiter.h"

/** Most history moves a position may carry (the protocol's PLY_SEARCH_JOB_MAX_MOVES). */
#define PLY_CLI_MAX_MOVES 1024

/** A root, the moves played from it, and where they lead. */
typedef struct ply_cli_position {
    char root[PLY_ARB_FEN_MAX]; /* the root's canonical FEN (six fields) */
    char fen[PLY_ARB_FEN_MAX];  /* the position after the moves, canonical */
    ply_arb_pos_t pos;          /* the same, for the rule engine */
    int chess960;               /* Chess960 rules: asked, or implied by Shredder letters */
    size_t nmoves;
    char moves[PLY_CLI_MAX_MOVES][6];         /* UCI as the rule engine writes it */
    const char *move_ptrs[PLY_CLI_MAX_MOVES]; /* moves[i], for a request's array */
} ply_cli_position_t;

/**
 * ply_cli_position - read a position: @fen ("startpos", FEN, X-FEN or Shredder-FEN) and
 * @moves (blank-separated UCI moves, or NULL) played from it, into *@out (about 14 KiB).
 * Returns 0, or with a one-line reason in @why: PLY_EFEN / PLY_EILLEGAL for the FEN (as
 * ply_cli_fen), PLY_EILLEGAL for a move that is not legal where it is played or not UCI
 * ("history move 3 (e7e9): not a legal move in FEN"; moves counted from 1), PLY_ERANGE for
 * more than PLY_CLI_MAX_MOVES moves.
 */
int ply_cli_position(const char *fen, const char *moves, int chess960, ply_cli_position_t *out,
                     char *why, size_t why_len);

/**
 * ply_cli_read_position - a command's position from its arguments: @fen_opt (--fen, or
 * NULL), @words[0..@nwords) (its positional words: a FEN's fields or "startpos", then
 * optionally "moves" and UCI moves), @moves_opt (--moves, or NULL); "startpos" when no
 * position is given. On a bad position or usage prints "ply CMD: ..." on stderr and returns 2
 * (two positions given, moves given twice, "moves" without a move, a bad FEN, an illegal
 * move naming its index and text); else 0 with *@out filled.
 */
int ply_cli_read_position(const char *cmd, const char *fen_opt, char *const *words, int nwords,
                          const char *moves_opt, int chess960, ply_cli_position_t *out);

#endif
