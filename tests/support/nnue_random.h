/*
 * Random-weight evaluation networks for the tests and benchmarks of
 * worker/engine/nnue.h: a valid net file written from the contract's layout
 * (nnue.h's opening comment) with weights from a fixed seed, never from the
 * engine's reader. Not a trained net: its evaluations mean nothing as chess,
 * only as arithmetic.
 */
#ifndef PLY_TEST_NNUE_RANDOM_H
#define PLY_TEST_NNUE_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/**
 * ply_test_nnue_random - the bytes of a net file (magic, version 1, 768 inputs, @h
 * hidden, qa 255, qb 1024, scale 400, the description @desc, W1, b1, W2, b2 and the
 * FNV-1a 64 checksum), W1 and b1 uniform in -w1_max..w1_max, W2 in -w2_max..w2_max,
 * b2 in -w2_max * 255..+, from xorshift64* seeded with @seed (not 0). Returns
 * malloc'd bytes (the caller frees them) with their count in *@len, or NULL when out
 * of memory.
 */
uint8_t *ply_test_nnue_random(int h, uint64_t seed, int w1_max, int w2_max, const char *desc,
                              size_t *len);

/**
 * ply_test_nnue_material - as ply_test_nnue_random (W1, b1 noise in -noise..noise), but a
 * net that evaluates about the material balance (pawn 100, knight and bishop 300, rook
 * 500, queen 900) for the side to move, so that a search with it behaves as with a
 * sensible evaluation (benchmarks of speed, searches that must find mates). @h at least 64.
 */
uint8_t *ply_test_nnue_material(int h, uint64_t seed, int noise, const char *desc, size_t *len);

/** ply_test_fnv1a64 - FNV-1a 64 of @n bytes (the contract's checksum). */
uint64_t ply_test_fnv1a64(const uint8_t *p, size_t n);

#endif
