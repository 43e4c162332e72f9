/* Monotonic time helpers. */
#include "util/time.h"

#include <time.h>

uint64_t ply_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ply_time_ms(void) { return ply_time_ns() / 1000000u; }

ply_u128_t ply_nps(ply_u128_t nodes, uint64_t elapsed_ns)
{
    const ply_u128_t giga = 1000000000u;
    if (elapsed_ns == 0) return 0;
    if (nodes <= ~(ply_u128_t)0 / giga) return nodes * giga / elapsed_ns;
    return nodes / elapsed_ns * giga; /* no overflow; off by less than 10^9 */
}
