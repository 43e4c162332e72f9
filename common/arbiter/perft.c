/*
 * The arbiter's perft: the reference counts the coordinator uses above the
 * split depth and to cross-check workers. Plain recursion over copy-make:
 * every leaf position is actually built and its legality tested, with no
 * bulk counting, hashing or other shortcuts, so that a disagreement with
 * the fast engine points at the fast engine.
 */
#include <string.h>

#include "arbiter/arbiter_private.h"

/* The hot loop: one pseudo-legal generation per interior node, and for each
 * move a copy, a make and an "is the mover's king attacked" test. */
static uint64_t perft_rec(const ply_arb_pos_t *pos, int depth)
{
    ply__arb_mv_t mv[PLY__ARB_MAX_PSEUDO];
    const int n = ply__arb_gen(pos, mv);
    uint64_t nodes = 0;

    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child;
        if (!ply__arb_child(pos, mv[i], &child)) continue;
        nodes += depth > 1 ? perft_rec(&child, depth - 1) : 1;
    }
    return nodes;
}

uint64_t ply_arb_perft(const ply_arb_pos_t *pos, int depth)
{
    return depth <= 0 ? 1 : perft_rec(pos, depth);
}

/*
 * Classify one leaf (the move @m that led from the parent to @child) under
 * the definitions of util/stats.h: captures include en passant; a check's
 * arrival square is the rook's destination for castling, the capturing
 * pawn's destination for en passant, the promotion square for promotions.
 */
static void count_leaf(const ply_arb_pos_t *child, ply__arb_mv_t m, ply_stats_t *out)
{
    int chk[16];
    out->v[PLY_STAT_nodes]++;
    if (m.flags & PLY_ARB_MOVE_CAPTURE) out->v[PLY_STAT_captures]++;
    if (m.flags & PLY_ARB_MOVE_EP) out->v[PLY_STAT_enpassants]++;
    if (m.flags & PLY_ARB_MOVE_CASTLE) out->v[PLY_STAT_castles]++;
    if (m.promo) out->v[PLY_STAT_promotions]++;

    int n = ply__arb_attackers(child, child->king[child->side], child->side ^ 1, chk);
    if (n == 0) return;
    int arrival = (m.flags & PLY_ARB_MOVE_CASTLE) ? ply__arb_castle_rook_to(m.to) : m.to;
    int on_arrival = 0;
    for (int i = 0; i < n; i++)
        if (chk[i] == arrival) on_arrival = 1;
    int mate = !ply__arb_has_legal_move(child); /* art. 5.1(a): in check, no legal move */
    out->v[ply_stats_check_kind(n, on_arrival, mate)]++;
    out->v[mate ? PLY_STAT_total_mates : PLY_STAT_total_checks]++;
}

static void stats_rec(const ply_arb_pos_t *pos, int depth, ply_stats_t *out)
{
    ply__arb_mv_t mv[PLY__ARB_MAX_PSEUDO];
    const int n = ply__arb_gen(pos, mv);

    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child;
        if (!ply__arb_child(pos, mv[i], &child)) continue;
        if (depth > 1)
            stats_rec(&child, depth - 1, out);
        else
            count_leaf(&child, mv[i], out);
    }
}

void ply_arb_perft_stats(const ply_arb_pos_t *pos, int depth, ply_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (depth <= 0) {
        out->v[PLY_STAT_nodes] = 1; /* perft(0): the root itself, as in the GCT tables */
        return;
    }
    stats_rec(pos, depth, out);
}
