/*
 * The random tests' generator: xorshift64* (S. Vigna, "An experimental
 * exploration of Marsaglia's xorshift generators, scrambled", 2016) with a
 * fixed seed, so that a failing random test fails again the same way. Each
 * test file that includes this has its own state; define TEST_RNG_SEED
 * before the include for another stream than the default one.
 */
#ifndef PLY_TEST_RNG_H
#define PLY_TEST_RNG_H

#include <stdint.h>

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t rng_state = TEST_RNG_SEED;

/* The next 64 random bits. */
static inline uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* A number in 0..n-1 (n >= 1), from the high bits. */
static inline uint32_t rnd(uint32_t n) { return (uint32_t)(rng() >> 33) % n; }

#endif
