/*
 * ply-datagen's record (tools/nnue/README.md): one training position in 32
 * bytes, little-endian, the layout the trainer (tools/nnue/train.py) reads.
 */
#ifndef PLY_TOOLS_DATAGEN_H
#define PLY_TOOLS_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

#include "board/board.h"

/** The teacher field of a record no second engine has scored. */
#define PLY_DATAGEN_NO_SCORE INT16_MIN

/** One position: 32 bytes, no padding. */
typedef struct ply_datagen_record {
    uint64_t occ;       /* occupied squares, bit 0 = a1 .. bit 63 = h8 */
    uint8_t pieces[16]; /* a nibble per occupied square in ascending order, low nibble first:
                           (type - 1) | colour << 3, type PLY_PAWN 1 .. PLY_KING 6 */
    int16_t score;      /* ply's search score, centipawns, White's view (never a mate) */
    int16_t teacher;    /* a second engine's score, White's view, or PLY_DATAGEN_NO_SCORE */
    uint8_t stm;        /* side to move: 0 White, 1 Black */
    uint8_t result;     /* the game's result for White: 0 loss, 1 draw, 2 win */
    uint8_t depth;      /* depth of the search that gave score, plies */
    uint8_t reserved;   /* 0 */
} ply_datagen_record_t;

_Static_assert(sizeof(ply_datagen_record_t) == 32, "a record is 32 bytes");

/** ply_datagen_pack - @b as a record with @score_white (centipawns, White's view) from a
 * search of @depth plies; result set to a draw until the game ends. */
void ply_datagen_pack(const ply_board_t *b, int score_white, int depth, ply_datagen_record_t *r);

/** ply_datagen_record_fen - the record's position as a FEN into @buf (PLY_BOARD_FEN_MAX bytes):
 * castling rights and en passant are not recorded ("-"), the move numbers are "0 1". Returns 0,
 * or -1 for a malformed record (more than 32 pieces, a piece type, side or result out of range). */
int ply_datagen_record_fen(const ply_datagen_record_t *r, char *buf, size_t len);

/** ply_datagen_frc_fen - the FEN (X-FEN castling "KQkq") of Chess960 start position @n
 * (0..959) in Scharnagl's numbering (518 is the standard position), into @buf. Source:
 * Reinhard Scharnagl's numbering scheme, as described on Wikipedia, "Fischer random chess
 * numbering scheme". */
void ply_datagen_frc_fen(int n, char *buf, size_t len);

#endif
