/*
 * Exact 128-bit counts for sums above a single job (DESIGN.md, Trust: "no
 * count wraps").
 *
 * One job's count fits in 64 bits (the worker fails a job with PLY_ERANGE
 * rather than wrap), but a run's total is sum(multiplicity x job count) and
 * passes 2^64 at record depths: perft(14) of the start position is
 * 61,885,021,521,585,529,237 and perft(15) is 2,015,099,950,053,364,471,960
 * (OEIS A048987; chessprogramming wiki, Perft Results). A position has at most
 * 218 legal moves, so any perft(d) is below 218^d, and 218^16 < 2^125: every
 * count of depth 16 or less fits in 128 bits (PLY_U128_SAFE_DEPTH).
 *
 * The type is gcc's unsigned __int128 (ply builds with gcc or clang only), so
 * comparison (==, <, ...) and conversion from uint64 are the language's own;
 * what this file adds is arithmetic that reports overflow instead of wrapping,
 * the split into 64-bit words for the wire and the state file, and exact
 * decimal text in both directions.
 */
#ifndef PLY_UTIL_U128_H
#define PLY_UTIL_U128_H

#include <stddef.h>
#include <stdint.h>

/** An unsigned 128-bit count, 0 .. 2^128 - 1. */
__extension__ typedef unsigned __int128 ply_u128_t;

/** Bytes for the decimal text of any ply_u128_t with its NUL (2^128 - 1 has 39 digits). */
#define PLY_U128_DEC_LEN 40

/**
 * The deepest perft whose count is representable for every position: 218 is
 * the most legal moves a chess position has (chessprogramming wiki,
 * "Encoding Moves"), and 218^16 < 2^125 < 2^128 <= 218^17.
 */
#define PLY_U128_SAFE_DEPTH 16

/** ply_u128_make - the count hi x 2^64 + lo. */
static inline ply_u128_t ply_u128_make(uint64_t hi, uint64_t lo)
{
    return ((ply_u128_t)hi << 64) | lo;
}

/** ply_u128_hi - the high 64 bits of @v (0 when @v fits in a uint64). */
static inline uint64_t ply_u128_hi(ply_u128_t v)
{
    return (uint64_t)(v >> 64);
}

/** ply_u128_lo - the low 64 bits of @v. */
static inline uint64_t ply_u128_lo(ply_u128_t v)
{
    return (uint64_t)v;
}

/**
 * ply_u128_add - *@acc += @x, exactly. Returns 0, or PLY_ERANGE when the sum
 * is 2^128 or more (then *@acc is unchanged).
 */
int ply_u128_add(ply_u128_t *acc, ply_u128_t x);

/**
 * ply_u128_add_mul - *@acc += @mult x @count, exactly: the product of two
 * uint64 is below 2^128 and never overflows; the sum can. Returns 0, or
 * PLY_ERANGE when the sum is 2^128 or more (then *@acc is unchanged).
 */
int ply_u128_add_mul(ply_u128_t *acc, uint64_t mult, uint64_t count);

/** ply_u128_cmp - -1, 0 or 1 as @a is below, equal to or above @b. */
int ply_u128_cmp(ply_u128_t a, ply_u128_t b);

/**
 * ply_u128_to_dec - the decimal digits of @v ("0" for 0; no sign, no
 * separators) into @buf (@len bytes, PLY_U128_DEC_LEN is always enough).
 * Returns @buf; an empty string when @len is too small (or 0: nothing written).
 */
char *ply_u128_to_dec(ply_u128_t v, char *buf, size_t len);

/**
 * ply_u128_to_grouped - as ply_u128_to_dec with a comma every three digits
 * ("2,015,099,950,053,364,471,960"), for people; 52 bytes are always enough.
 */
char *ply_u128_to_grouped(ply_u128_t v, char *buf, size_t len);

/**
 * ply_u128_from_dec - read the whole of @s as decimal digits (at least one,
 * nothing else: no sign, space or separator; leading zeros allowed) into
 * *@out. Returns 0, PLY_EINVAL (empty, NULL or a non-digit) or PLY_ERANGE (the
 * value is 2^128 or more); *@out is set only on success.
 */
int ply_u128_from_dec(const char *s, ply_u128_t *out);

#endif
