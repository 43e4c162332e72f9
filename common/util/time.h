/*
 * Monotonic time for measuring runs, leases and rates. Never wall-clock:
 * durations must not jump when the system clock is adjusted.
 */
#ifndef PLY_UTIL_TIME_H
#define PLY_UTIL_TIME_H

#include <stdint.h>

/** ply_time_ns - monotonic clock (CLOCK_MONOTONIC) in nanoseconds, uint64. */
uint64_t ply_time_ns(void);

/** ply_time_ms - monotonic clock in milliseconds, uint64. */
uint64_t ply_time_ms(void);

/**
 * ply_nps - nodes per second from a node count (uint64) and a duration in
 * nanoseconds; returns 0 when the duration is 0.
 */
uint64_t ply_nps(uint64_t nodes, uint64_t elapsed_ns);

#endif
