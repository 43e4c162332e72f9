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

uint64_t ply_nps(ply_u128_t nodes, uint64_t elapsed_ns)
{
    if (elapsed_ns == 0) return 0;
    long double rate = (long double)nodes * 1e9L / (long double)elapsed_ns;
    return rate >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)rate;
}
