/*
 * Attack tables of the fast engine: leapers (knight, king, pawn), the lines
 * and segments between squares, and the slider attacks.
 *
 * Sliders go through exactly two functions, ply_bishop_attacks() and
 * ply_rook_attacks(), so the backend can change without touching a caller.
 * Both backends index the same tables: PEXT (BMI2 _pext_u64, one instruction)
 * when built with PLY_USE_PEXT, otherwise "fancy" magic multiplication with
 * recorded magics (chessprogramming wiki,
 * "Magic Bitboards"). The tables are built by a constructor before main(), so
 * no caller needs an init call.
 */
#ifndef PLY_BOARD_ATTACKS_H
#define PLY_BOARD_ATTACKS_H

#include "board/bitboard.h"

#if defined(PLY_USE_PEXT)
#include <immintrin.h>
#endif

typedef struct ply__slider {
    ply_bb_t mask;         /* relevant occupancy: the rays without their last square */
    ply_bb_t magic;        /* magic multiplier (unused with PEXT) */
    const ply_bb_t *table; /* attacks indexed by pext(occ, mask) or by the magic product */
    unsigned shift;        /* 64 - popcount(mask) */
} ply__slider_t;

extern ply__slider_t ply__bishop[64];
extern ply__slider_t ply__rook[64];
extern ply_bb_t ply__knight_attacks[64];
extern ply_bb_t ply__king_attacks[64];
extern ply_bb_t ply__pawn_attacks[2][64]; /* [colour][square]: squares a pawn there attacks */
extern ply_bb_t ply__between[64][64];     /* squares strictly between two aligned squares, else 0 */
extern ply_bb_t ply__line[64][64];        /* the whole line through two aligned squares, else 0 */

static inline ply_bb_t ply_slider_index_(const ply__slider_t *s, ply_bb_t occ)
{
#if defined(PLY_USE_PEXT)
    return s->table[_pext_u64(occ, s->mask)];
#else
    return s->table[((occ & s->mask) * s->magic) >> s->shift];
#endif
}

/** ply_bishop_attacks - squares a bishop on @sq attacks given occupancy @occ (blockers included). */
static inline ply_bb_t ply_bishop_attacks(int sq, ply_bb_t occ)
{
    return ply_slider_index_(&ply__bishop[sq], occ);
}

/** ply_rook_attacks - squares a rook on @sq attacks given occupancy @occ (blockers included). */
static inline ply_bb_t ply_rook_attacks(int sq, ply_bb_t occ)
{
    return ply_slider_index_(&ply__rook[sq], occ);
}

static inline ply_bb_t ply_queen_attacks(int sq, ply_bb_t occ)
{
    return ply_bishop_attacks(sq, occ) | ply_rook_attacks(sq, occ);
}

/**
 * ply_attacks_backend - "pext" or "magic": which slider backend this build uses.
 */
const char *ply_attacks_backend(void);

#endif
