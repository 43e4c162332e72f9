/*
 * Unpredictable bytes from the kernel's CSPRNG (getrandom(2), the same pool
 * as /dev/urandom, blocking only until it is first seeded at boot). For what
 * must not repeat across processes and restarts or be guessed by a peer: run
 * ids, owner tokens. Not for reproducible test data (tests/unit/test_rng.h).
 */
#ifndef PLY_UTIL_RANDOM_H
#define PLY_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/**
 * ply_random_bytes - fill @buf with @len unpredictable bytes. Returns 0, or
 * PLY_EIO when the kernel cannot give them (no getrandom, a seccomp filter):
 * the caller must then fail rather than fall back to something guessable.
 */
int ply_random_bytes(void *buf, size_t len);

/** ply_random_u64 - one unpredictable uint64 in *out; 0 or PLY_EIO as ply_random_bytes. */
int ply_random_u64(uint64_t *out);

#endif
