/*
 * Detailed perft statistics: the fifteen columns of the Grand Chess Tree
 * result files (github.com/Timmoth/grandchesstree, results/perft_p*_results.json).
 *
 * All counters are about the moves of the last ply (the leaves): a leaf is
 * counted in "captures" when the move that reached it captured, and so on.
 * Check classification compares the set of checking pieces after the move
 * with the moved piece's arrival square (the rook's arrival square for
 * castling, the capturing pawn's arrival square for en passant):
 *   one checker on the arrival square              -> direct
 *   one checker elsewhere                          -> single discovered
 *   two checkers, one of them on the arrival square -> direct discovered
 *   two checkers, neither on the arrival square      -> double discovered
 * A check is counted under "mates" instead of "checks" when the side to move
 * has no legal move. total_checks and total_mates are the sums of their four
 * kinds. The chessprogramming wiki's "Checks" column equals
 * total_checks + total_mates (shared/data/PROVENANCE.md, Notes).
 *
 * Shared by the fast engine (worker/) and the rule engine (arbiter/) as plain
 * data: it contains no chess logic, so it does not couple the two.
 */
#ifndef PLY_UTIL_STATS_H
#define PLY_UTIL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "util/u128.h"

#define PLY_STATS_MAP(XX)                                                                          \
    XX(nodes)                                                                                      \
    XX(captures)                                                                                   \
    XX(enpassants)                                                                                 \
    XX(castles)                                                                                    \
    XX(promotions)                                                                                 \
    XX(direct_checks)                                                                              \
    XX(single_discovered_checks)                                                                   \
    XX(direct_discovered_checks)                                                                   \
    XX(double_discovered_checks)                                                                   \
    XX(total_checks)                                                                               \
    XX(direct_mates)                                                                               \
    XX(single_discovered_mates)                                                                    \
    XX(direct_discovered_mates)                                                                    \
    XX(double_discovered_mates)                                                                    \
    XX(total_mates)

enum {
#define PLY__STATS_IDX(name) PLY_STAT_##name,
    PLY_STATS_MAP(PLY__STATS_IDX)
#undef PLY__STATS_IDX
        PLY_STATS_N /* 15 */
};

/** The fifteen counters, all uint64 leaf counts, indexed by PLY_STAT_<name>. */
typedef struct ply_stats {
    uint64_t v[PLY_STATS_N];
} ply_stats_t;

/** ply_stats_name - the column name of counter @i ("direct_checks"); NULL if out of range. */
const char *ply_stats_name(int i);

/** ply_stats_index - the index of a column name, or PLY_ERANGE (negative) if unknown. */
int ply_stats_index(const char *name);

/** ply_stats_add - dst += mult * src for every counter (uint64, wraps only past 2^64). */
void ply_stats_add(ply_stats_t *dst, const ply_stats_t *src, uint64_t mult);

/**
 * The fifteen counters summed over many jobs (a run's total, a root move's
 * divide): exact 128-bit counts, indexed as ply_stats_t.
 */
typedef struct ply_stats128 {
    ply_u128_t v[PLY_STATS_N];
} ply_stats128_t;

/**
 * ply_stats128_add - dst += mult * src for every counter, exactly. Returns 0,
 * or PLY_ERANGE when a sum would reach 2^128 (then @dst is unchanged).
 */
int ply_stats128_add(ply_stats128_t *dst, const ply_stats_t *src, uint64_t mult);

/** ply_stats128_from - the counters of one job as 128-bit counts. */
void ply_stats128_from(ply_stats128_t *dst, const ply_stats_t *src);

/** ply_stats_equal - 1 when all fifteen counters are equal, 0 otherwise. */
int ply_stats_equal(const ply_stats_t *a, const ply_stats_t *b);

/**
 * ply_stats_consistent - whether @s can be the statistics of one set of leaves, by the
 * definitions above: total_checks and total_mates are the sums of their four kinds; no
 * counter exceeds nodes; en passant captures are captures; a leaf is at most one of a
 * check and a mate, and castling never captures (so checks + mates and captures + castles
 * are at most nodes). Says nothing about whether the counts are right: a worker's
 * statistics that fail it are wrong whatever the position (a lie or a fault).
 * Returns 0, or PLY_EMISMATCH with the first rule broken, naming the columns, in @why
 * (@why_len bytes, may be 0).
 */
int ply_stats_consistent(const ply_stats_t *s, char *why, size_t why_len);

/**
 * ply_stats_check_kind - the counter index for a leaf that gives check.
 * @ncheckers: number of pieces giving check after the move (1 or 2);
 * @on_arrival: 1 when one checker stands on the moved piece's arrival square;
 * @mate: 1 when the side to move has no legal move.
 * Returns PLY_STAT_direct_checks ... PLY_STAT_double_discovered_mates.
 * The caller also increments total_checks or total_mates.
 */
int ply_stats_check_kind(int ncheckers, int on_arrival, int mate);

#endif
