/*
 * Zobrist keys of the fast engine: 128 bits per position (two independent
 * 64-bit keys), so that transposition-table entries can be verified with far
 * more than the 96 bits DESIGN.md asks for.
 *
 * The keys come from one fixed-seed generator (SplitMix64), here and nowhere
 * else (STYLE.md rule 5). A different seed gives an independent key set, used
 * to recompute a job with different keys when verifying. The checksum of the
 * tables travels in the worker's HELLO so that mismatched builds are noticed.
 */
#ifndef PLY_BOARD_ZOBRIST_H
#define PLY_BOARD_ZOBRIST_H

#include <stdint.h>

typedef struct ply_key128 {
    uint64_t k[2];
} ply_key128_t;

typedef struct ply__zobrist {
    ply_key128_t psq[2][7][64]; /* [colour][piece type][square]; type 0 unused */
    ply_key128_t castling[4][8]; /* [right bit number][file of its rook]: see zobrist.c */
    ply_key128_t ep[8];         /* [file of the en-passant square] */
    ply_key128_t side;          /* xored in when black is to move */
} ply__zobrist_t;

extern ply__zobrist_t ply__zobrist;

/** The seed used when the program does not choose one. */
#define PLY_ZOBRIST_DEFAULT_SEED 0u

/**
 * ply_zobrist_init - rebuild the key tables from @seed (SplitMix64 stream).
 * Called automatically with PLY_ZOBRIST_DEFAULT_SEED before main(); call it
 * again only at start-up, before any thread uses keys (not thread-safe).
 */
void ply_zobrist_init(uint32_t seed);

/** ply_zobrist_seed - the seed the current tables were built from. */
uint32_t ply_zobrist_seed(void);

/**
 * ply_zobrist_checksum - a 64-bit digest of every key in the tables: equal
 * checksums mean equal tables (up to a 2^-64 chance).
 */
uint64_t ply_zobrist_checksum(void);

#endif
