/*
 * Attack tables of the fast engine: leapers (knight, king, pawn), the lines
 * and segments between squares, and the slider attacks.
 *
 * Sliders go through exactly two functions, ply_bishop_attacks() and
 * ply_rook_attacks(), so the backend can change without touching a caller.
 * Two backends index two copies of the tables: "fancy" magic multiplication
 * (chessprogramming wiki, "Magic Bitboards"), which runs on any CPU, and
 * BMI2's PEXT, one instruction. A translation unit compiled with -mbmi2 and
 * PLY_KERNEL_PEXT defined (the PEXT perft kernel, worker/engine/perft_pext.c) gets
 * PEXT; every other one gets magic. Which kernel runs is decided once at
 * start-up from the CPU (ply_attacks_use_pext), so the default build runs
 * everywhere and uses PEXT where it is fast. The tables are built by a
 * constructor before main(), so no caller needs an init call.
 */
#ifndef PLY_BOARD_ATTACKS_H
#define PLY_BOARD_ATTACKS_H

#include "board/bitboard.h"

#if defined(PLY_KERNEL_PEXT)
#include <immintrin.h>
#endif

/* One slider kind's lookup tables, flat arrays by square (structure of
 * arrays): a lookup indexes each array with the square directly, with no
 * per-square structure to step over (the perft counter does about ten
 * lookups a position). */
typedef struct ply__sliders {
    ply_bb_t mask[64];          /* relevant occupancy: the rays without their last square */
    ply_bb_t magic[64];         /* magic multiplier */
    const ply_bb_t *table[64];  /* attacks indexed by the magic product */
    const ply_bb_t *ptable[64]; /* attacks indexed by pext(occ, mask); NULL when PEXT is unused */
    unsigned char shift[64];    /* 64 - popcount(mask) */
} ply__sliders_t;

extern ply__sliders_t ply__bishop;
extern ply__sliders_t ply__rook;
extern ply_bb_t ply__knight_attacks[64];
extern ply_bb_t ply__king_attacks[64];
extern ply_bb_t ply__pawn_attacks[2][64]; /* [colour][square]: squares a pawn there attacks */
extern ply_bb_t ply__between[64][64];     /* squares strictly between two aligned squares, else 0 */
extern ply_bb_t ply__line[64][64];        /* the whole line through two aligned squares, else 0 */
extern ply_bb_t ply__bishop_rays[64];     /* bishop attacks on an empty board */
/* Castling with the king on file kf and the rook on file rf of colour c's
 * back rank (standard chess and Chess960): the squares that must be empty,
 * the squares the king crosses or lands on (which must not be attacked), and
 * where an enemy piece can attack one of those from: the leapers' squares are
 * exact, the slider rays say only where a lookup is worth making. One cache
 * line each. */
typedef struct ply__castle_path {
    ply_bb_t empty;
    ply_bb_t king_path;
    ply_bb_t knights;    /* a knight here attacks a king_path square */
    ply_bb_t pawns;      /* an enemy (colour !c) pawn here attacks one */
    ply_bb_t kings;      /* a king here attacks one */
    ply_bb_t diagonal;   /* the bishop rays of the king_path squares (empty board) */
    ply_bb_t orthogonal; /* their rook rays */
    ply_bb_t unused;
} ply__castle_path_t;
extern ply__castle_path_t ply__castle_paths[2][8][8]; /* [colour][king file][rook file] */
extern ply_bb_t ply__rook_rays[64];                   /* rook attacks on an empty board */

static inline ply_bb_t ply_slider_index_(const ply__sliders_t *s, int sq, ply_bb_t occ)
{
#if defined(PLY_KERNEL_PEXT)
    return s->ptable[sq][_pext_u64(occ, s->mask[sq])];
#else
    return s->table[sq][((occ & s->mask[sq]) * s->magic[sq]) >> s->shift[sq]];
#endif
}

/** ply_bishop_attacks - squares a bishop on @sq attacks with occupancy @occ (blockers included). */
static inline ply_bb_t ply_bishop_attacks(int sq, ply_bb_t occ)
{
    return ply_slider_index_(&ply__bishop, sq, occ);
}

/** ply_rook_attacks - squares a rook on @sq attacks given occupancy @occ (blockers included). */
static inline ply_bb_t ply_rook_attacks(int sq, ply_bb_t occ)
{
    return ply_slider_index_(&ply__rook, sq, occ);
}

static inline ply_bb_t ply_queen_attacks(int sq, ply_bb_t occ)
{
    return ply_bishop_attacks(sq, occ) | ply_rook_attacks(sq, occ);
}

/**
 * ply_attacks_use_pext - 1 when the PEXT tables are built and the PEXT perft
 * kernel should run: the CPU has BMI2 with a fast PEXT (not AMD before Zen 3),
 * unless the environment variable PLY_SLIDERS=magic says otherwise
 * (PLY_SLIDERS=pext forces it on any BMI2 CPU). Fixed at start-up.
 */
int ply_attacks_use_pext(void);

/** ply_attacks_backend - "pext" or "magic": the slider backend the perft kernels use. */
const char *ply_attacks_backend(void);

#endif
