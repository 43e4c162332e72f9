/*
 * Legal move generation for the fast engine (no pseudo-legal stage): check
 * evasions restrict targets to the checking line, pinned pieces move only
 * along their pin line, king moves are tested against attacks with the king
 * removed from the board, and en passant is tested by making it on the
 * occupancy (the two pawns leaving one rank can expose the king).
 *
 * One generator body serves two uses: filling a move list, and counting the
 * legal moves with popcounts and no list at all (bulk counting at the last
 * ply of perft).
 */
#ifndef PLY_BOARD_MOVEGEN_H
#define PLY_BOARD_MOVEGEN_H

#include "board/board.h"

/** Upper bound on the number of legal moves (the known maximum is 218). */
#define PLY_MAX_MOVES 256

/**
 * ply_board_legal_moves - write every legal move of the side to move into
 * @moves (room for PLY_MAX_MOVES) and return their number (0: mate or
 * stalemate). Order: by piece kind, then squares; deterministic.
 */
int ply_board_legal_moves(const ply_board_t *b, ply_move_t *moves);

/**
 * ply_board_noisy_moves - the legal moves of the side to move that capture (en passant
 * included) or promote (all four pieces), into @moves (room for PLY_MAX_MOVES), in the order
 * ply_board_legal_moves gives them; their number. The quiet moves are never generated, so
 * quiescence search pays only for what it searches; 0 does not mean mate or stalemate.
 */
int ply_board_noisy_moves(const ply_board_t *b, ply_move_t *moves);

/**
 * ply_board_count_legal - the number of legal moves, i.e. perft(1), computed
 * with popcounts without writing a list (bulk counting).
 */
int ply_board_count_legal(const ply_board_t *b);

/**
 * ply_board_move_to_uci - @m in UCI notation into @buf (6 bytes): "e2e4",
 * "e7e8q"; castling as "e1g1" (king to its square) in standard chess and
 * "e1h1" (king takes rook) when b->chess960, as UCI_Chess960 engines write
 * it. Returns the length (4 or 5).
 */
int ply_board_move_to_uci(const ply_board_t *b, ply_move_t m, char *buf);

/**
 * ply_board_move_from_uci - the legal move written @uci (both castling forms
 * accepted). Returns 0 with *out set, PLY_EPARSE for text that is not UCI
 * notation, PLY_EILLEGAL when no legal move matches.
 */
int ply_board_move_from_uci(const ply_board_t *b, const char *uci, ply_move_t *out);

#endif
