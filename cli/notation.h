/*
 * Notation out of the rule engine: a game's main line ply by ply (SAN, UCI and the FEN
 * after each move) for `ply arbiter --json`, a game re-written as clean PGN for
 * `ply arbiter --export`, and `ply san`, which converts moves between UCI, SAN, long
 * algebraic and the FIDE spelling.
 * Every move is read and written by the arbiter (common/arbiter/san.h), never by the fast
 * move generator.
 */
#ifndef PLY_CLI_NOTATION_H
#define PLY_CLI_NOTATION_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "arbiter/pgn.h"
#include "arbiter/san.h"

/**
 * ply_notation_plies_json - the main line of @g as a JSON array, one object a ply:
 * {"ply": 1-based, "san": with check marks, "uci": as UCI engines write it (king takes rook
 * in Chess960), "fen": the position after the move}. Stops before the first move that is
 * not a legal move of its position (ply arbiter's report says why). NULL when out of
 * memory or when the game's start position cannot be set (its FEN or Variant tag).
 */
json_t *ply_notation_plies_json(const ply_pgn_game_t *g);

/**
 * ply_notation_export - writes @g to @out as clean PGN (PGN standard, export format: the
 * Seven Tag Roster first, other tags kept, lines of at most 79 characters): every move of
 * the main line and of every variation re-written in @style (PLY_ARB_NOTATION_SAN for
 * standard PGN; LAN or the FIDE spelling on request, see ply_arb_move_to_text) with check
 * and mate marks, move numbers, comments, NAGs and variations kept. A variation is an
 * alternative to the move before it (PGN 8.2.5). Returns 0; PLY_EILLEGAL or PLY_EPARSE (a
 * move that is not legal in its position: nothing is written, @why names the ply, the move
 * as written and why), PLY_EFEN / PLY_EINVAL (the start position), PLY_ENOMEM or PLY_EIO.
 */
int ply_notation_export(FILE *out, const ply_pgn_game_t *g, ply_arb_notation_t style, char *why,
                        size_t why_len);

#endif
