/*
 * Bitboard basics for the fast engine: squares, colours, piece types and the
 * bit tricks every hot loop uses. Square 0 is a1, 7 is h1, 63 is h8.
 * Everything here is static inline: it sits on the perft hot path.
 */
#ifndef PLY_BOARD_BITBOARD_H
#define PLY_BOARD_BITBOARD_H

#include <stdint.h>

typedef uint64_t ply_bb_t;

enum { PLY_WHITE = 0, PLY_BLACK = 1 };

/* Piece types. 0 is "none" so that a zeroed board has no pieces. */
enum { PLY_NONE = 0, PLY_PAWN = 1, PLY_KNIGHT, PLY_BISHOP, PLY_ROOK, PLY_QUEEN, PLY_KING };

#define PLY_SQ(file, rank) ((rank) * 8 + (file))
#define PLY_FILE(sq) ((sq) & 7)
#define PLY_RANK(sq) ((sq) >> 3)
#define PLY_NO_SQ 64

#define PLY_BB_RANK_1 0x00000000000000FFull
#define PLY_BB_RANK_2 0x000000000000FF00ull
#define PLY_BB_RANK_3 0x0000000000FF0000ull
#define PLY_BB_RANK_4 0x00000000FF000000ull
#define PLY_BB_RANK_5 0x000000FF00000000ull
#define PLY_BB_RANK_6 0x0000FF0000000000ull
#define PLY_BB_RANK_7 0x00FF000000000000ull
#define PLY_BB_RANK_8 0xFF00000000000000ull
#define PLY_BB_FILE_A 0x0101010101010101ull
#define PLY_BB_FILE_H 0x8080808080808080ull

static inline ply_bb_t ply_bb(int sq) { return 1ull << sq; }
static inline int ply_popcount(ply_bb_t b) { return __builtin_popcountll(b); }
static inline int ply_lsb(ply_bb_t b) { return __builtin_ctzll(b); }
static inline int ply_pop_lsb(ply_bb_t *b)
{
    int sq = __builtin_ctzll(*b);
    *b &= *b - 1;
    return sq;
}
static inline int ply_more_than_one(ply_bb_t b) { return (b & (b - 1)) != 0; }

/* Shifts that drop bits falling off the a/h files. */
static inline ply_bb_t ply_shift_north(ply_bb_t b) { return b << 8; }
static inline ply_bb_t ply_shift_south(ply_bb_t b) { return b >> 8; }
static inline ply_bb_t ply_shift_ne(ply_bb_t b) { return (b & ~PLY_BB_FILE_H) << 9; }
static inline ply_bb_t ply_shift_nw(ply_bb_t b) { return (b & ~PLY_BB_FILE_A) << 7; }
static inline ply_bb_t ply_shift_se(ply_bb_t b) { return (b & ~PLY_BB_FILE_H) >> 7; }
static inline ply_bb_t ply_shift_sw(ply_bb_t b) { return (b & ~PLY_BB_FILE_A) >> 9; }

#endif
