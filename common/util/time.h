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
 * ply_elapsed_ms - milliseconds from @then to @now (both ply_time_ms), 0 when
 * @then is the later one. A loop that reads the clock once per tick and then
 * calls code that stamps "now" afresh holds stamps later than its @now: a plain
 * @now - @then wraps around to about 1.8e19 ms, and every "waited too long"
 * test on it fires at once.
 */
static inline uint64_t ply_elapsed_ms(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/**
 * ply_nps - nodes per second from a node count (128-bit: a run's total) and a
 * duration in nanoseconds, rounded down (exact while nodes x 10^9 fits in 128
 * bits, as every count of depth 14 or less does); 0 when the duration is 0.
 */
ply_u128_t ply_nps(ply_u128_t nodes, uint64_t elapsed_ns);

#endif
