/* Names and arithmetic for the fifteen perft statistics columns. */
#include "util/stats.h"

#include <inttypes.h>
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

/* The sum of the four counters from @first (a kind of check or mate), exactly. */
static ply_u128_t sum4(const ply_stats_t *s, int first)
{
    ply_u128_t sum = 0;
    for (int i = first; i < first + 4; i++) sum += s->v[i];
    return sum;
}

int ply_stats_consistent(const ply_stats_t *s, char *why, size_t why_len)
{
    const uint64_t *v = s->v, nodes = v[PLY_STAT_nodes];
    for (int i = 1; i < PLY_STATS_N; i++)
        if (v[i] > nodes)
            return ply_why(why, why_len, PLY_EMISMATCH, "%s = %" PRIu64 " exceeds nodes = %" PRIu64,
                           stats_names[i], v[i], nodes);
    if (sum4(s, PLY_STAT_direct_checks) != v[PLY_STAT_total_checks])
        return ply_why(why, why_len, PLY_EMISMATCH,
                       "total_checks = %" PRIu64 " is not the sum of its four kinds",
                       v[PLY_STAT_total_checks]);
    if (sum4(s, PLY_STAT_direct_mates) != v[PLY_STAT_total_mates])
        return ply_why(why, why_len, PLY_EMISMATCH,
                       "total_mates = %" PRIu64 " is not the sum of its four kinds",
                       v[PLY_STAT_total_mates]);
    if (v[PLY_STAT_enpassants] > v[PLY_STAT_captures])
        return ply_why(why, why_len, PLY_EMISMATCH,
                       "enpassants = %" PRIu64 " exceeds captures = %" PRIu64,
                       v[PLY_STAT_enpassants], v[PLY_STAT_captures]);
    if ((ply_u128_t)v[PLY_STAT_total_checks] + v[PLY_STAT_total_mates] > nodes)
        return ply_why(why, why_len, PLY_EMISMATCH,
                       "total_checks + total_mates exceed nodes = %" PRIu64, nodes);
    if ((ply_u128_t)v[PLY_STAT_captures] + v[PLY_STAT_castles] > nodes)
        return ply_why(why, why_len, PLY_EMISMATCH, "captures + castles exceed nodes = %" PRIu64,
                       nodes);
    return 0;
}
