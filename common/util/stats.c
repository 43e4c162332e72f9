/* Names and arithmetic for the fifteen perft statistics columns. */
#include "util/stats.h"

#include <string.h>

#include "util/error.h"

static const char *const stats_names[PLY_STATS_N] = {
#define PLY__STATS_NAME(name) #name,
    PLY_STATS_MAP(PLY__STATS_NAME)
#undef PLY__STATS_NAME
};

const char *ply_stats_name(int i) { return (i >= 0 && i < PLY_STATS_N) ? stats_names[i] : NULL; }

int ply_stats_index(const char *name)
{
    for (int i = 0; i < PLY_STATS_N; i++)
        if (name && strcmp(name, stats_names[i]) == 0) return i;
    return PLY_ERANGE;
}

void ply_stats_add(ply_stats_t *dst, const ply_stats_t *src, uint64_t mult)
{
    for (int i = 0; i < PLY_STATS_N; i++) dst->v[i] += mult * src->v[i];
}

int ply_stats128_add(ply_stats128_t *dst, const ply_stats_t *src, uint64_t mult)
{
    ply_stats128_t sum = *dst;
    for (int i = 0; i < PLY_STATS_N; i++)
        if (ply_u128_add_mul(&sum.v[i], mult, src->v[i]) < 0) return PLY_ERANGE;
    *dst = sum;
    return 0;
}

void ply_stats128_from(ply_stats128_t *dst, const ply_stats_t *src)
{
    for (int i = 0; i < PLY_STATS_N; i++) dst->v[i] = src->v[i];
}

int ply_stats_equal(const ply_stats_t *a, const ply_stats_t *b)
{
    return memcmp(a->v, b->v, sizeof a->v) == 0;
}

int ply_stats_check_kind(int ncheckers, int on_arrival, int mate)
{
    int kind;
    if (ncheckers <= 1)
        kind = on_arrival ? 0 : 1; /* direct, single discovered */
    else
        kind = on_arrival ? 2 : 3; /* direct discovered, double discovered */
    return (mate ? PLY_STAT_direct_mates : PLY_STAT_direct_checks) + kind;
}
