/*
 * Monotonic time for measuring runs, leases and rates. Never wall-clock:
 * durations must not jump when the system clock is adjusted.
 */
#ifndef PLY_UTIL_TIME_H
#define PLY_UTIL_TIME_H

#include <stdint.h>

#include "util/u128.h"

/** ply_time_ns - monotonic clock (CLOCK_MONOTONIC) in nanoseconds, uint64. */
uint64_t ply_time_ns(void);

/** ply_time_ms - monotonic clock in milliseconds, uint64. */
uint64_t ply_time_ms(void);

/**
 * ply_nps - nodes per second from a node count (128-bit: a run's total) and a
 * duration in nanoseconds, rounded down (exact while nodes x 10^9 fits in 128
 * bits, as every count of depth 14 or less does); 0 when the duration is 0.
 */
ply_u128_t ply_nps(ply_u128_t nodes, uint64_t elapsed_ns);

#endif
