/*
 * The helpmate search behind art. 6.10 ("... cannot checkmate the player's
 * king by any possible series of legal moves") and 5.2(b): both sides
 * cooperate so that one side, the winner, checkmates the other. Finding
 * such a series proves "can mate", and the series itself is the proof, which
 * anyone can replay. The method follows Ambrona, "A Practical Algorithm for
 * Chess Unwinnability" (FUN 2022): a depth-first search, deepened step by
 * step, with a transposition table and a move order that walks toward a
 * mate; ply's version is its own code on the arbiter's move generator.
 *
 * Shape: iterative deepening over the number of plies, only depths of the
 * parity that ends with the winner's move; at the last ply only checks are
 * followed to the mate test. The table remembers positions that had no
 * helpmate within N plies (a lossy 64-bit hash: a collision can only hide
 * a mate, never invent one, and every line found is a real series of legal
 * moves). Clocks and repetitions are ignored: under the 2000 Laws neither
 * ends a game by itself, so they never cut a series of legal moves short.
 * Positions where the winner can no longer mate by material are cut.
 *
 * Move order (the heart of the method: the winner's pieces go to the
 * losing king, promotions first, all four pieces since an underpromotion
 * can be the only mate; the losing king goes to a corner, its pieces go
 * next to it to take away its flights, and it does not take the winner's
 * pieces).
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"

#define HM_MAX_PLY 128

typedef struct hm {
    int winner;
    uint64_t nodes, budget;
    int stop;
    int width[2]; /* moves followed per node, by side (0: all) */
    uint64_t *tt; /* hash with the low byte replaced by the depth that failed */
    size_t mask;
    ply__arb_mv_t line[HM_MAX_PLY];
} hm_t;

typedef struct scored {
    ply__arb_mv_t mv;
    int score;
} scored_t;

static int max2(int a, int b)
{
    return a > b ? a : b;
}
static int min2(int a, int b)
{
    return a < b ? a : b;
}

/* Chebyshev distance between 0x88 squares (king steps). */
static int dist(int a, int b)
{
    return max2(abs(ply__arb_file(a) - ply__arb_file(b)), abs(ply__arb_rank(a) - ply__arb_rank(b)));
}

/* King steps from the nearest corner. */
static int corner_dist(int s)
{
    int f = ply__arb_file(s), r = ply__arb_rank(s);
    return max2(min2(f, 7 - f), min2(r, 7 - r));
}

static int score(const ply_arb_pos_t *p, ply__arb_mv_t m, int winner)
{
    int kind = abs(p->sq[m.from]);
    int lk = p->king[winner ^ 1];
    int s = 0;
    if (p->side == winner) {
        if (m.promo) s += 1000 + m.promo * 10; /* queen first, then rook, bishop, knight */
        if (kind == ARB_P) s += 6;
        /* A piece next to the king is no closer to a mate than two squares
         * away (it is often just taken or stalemates); the king comes too. */
        if (kind == ARB_K)
            s += 8 * (dist(m.from, lk) - dist(m.to, lk));
        else
            s += 10 * (max2(dist(m.from, lk), 2) - max2(dist(m.to, lk), 2));
        if (m.flags & PLY_ARB_MOVE_CAPTURE) s += 5;
    } else {
        if (kind == ARB_K)
            s += 10 * (corner_dist(m.from) - corner_dist(m.to));
        else
            s += 8 * (dist(m.from, lk) - dist(m.to, lk));
        if (m.promo) s += 20 + (m.promo == ARB_N || m.promo == ARB_B ? 5 : 0);
        if (m.flags & PLY_ARB_MOVE_CAPTURE) s -= 100;
    }
    return s;
}

/* Insertion sort, best first; ties keep the generator's order (deterministic). */
static void sort_moves(scored_t *m, int n)
{
    for (int i = 1; i < n; i++) {
        scored_t x = m[i];
        int j = i - 1;
        while (j >= 0 && m[j].score < x.score) {
            m[j + 1] = m[j];
            j--;
        }
        m[j + 1] = x;
    }
}

/* The winner's checkmate of the side to move. */
static int mated(const ply_arb_pos_t *p, int winner)
{
    return p->side != winner && ply_arb_in_check(p) && !ply__arb_has_legal_move(p);
}

static int tt_fails(const hm_t *h, uint64_t key, int depth)
{
    uint64_t e = h->tt[key & h->mask];
    return e && (e >> 8) == (key >> 8) && (int)(e & 0xFF) >= depth;
}

static void tt_store(hm_t *h, uint64_t key, int depth)
{
    h->tt[key & h->mask] = (key & ~0xFFull) | (uint64_t)depth;
}

/* 1 when a helpmate in @depth plies exists (line[ply..] filled), else 0. */
static int search(hm_t *h, const ply_arb_pos_t *p, int depth, int ply)
{
    if (++h->nodes > h->budget) {
        h->stop = 1;
        return 0;
    }
    if (ply__arb_cannot_mate_material(p, h->winner)) return 0;
    ply__arb_key_t key;
    ply__arb_key_encode(p, &key);
    uint64_t hk = ply__arb_key_hash(&key);
    if (tt_fails(h, hk, depth)) return 0;

    ply__arb_mv_t pseudo[PLY__ARB_MAX_PSEUDO];
    scored_t mv[PLY__ARB_MAX_PSEUDO];
    int n = ply__arb_gen(p, pseudo);
    for (int i = 0; i < n; i++) mv[i] = (scored_t){pseudo[i], score(p, pseudo[i], h->winner)};
    sort_moves(mv, n);
    const int last = depth == 1 && p->side == h->winner;
    const int width = h->width[p->side];
    int followed = 0;
    for (int i = 0; i < n && !h->stop; i++) {
        ply_arb_pos_t child = *p;
        ply__arb_make(&child, mv[i].mv);
        if (ply__arb_left_in_check(&child)) continue;
        if (!last && width && followed++ == width) break;
        if (last) {
            /* Only a check can mate: test it before the (dearer) mate test. */
            if (!ply__arb_attacked(&child, child.king[child.side], h->winner)) continue;
            h->nodes++;
            if (!ply__arb_has_legal_move(&child)) {
                h->line[ply] = mv[i].mv;
                return 1;
            }
            continue;
        }
        if (depth > 1 && search(h, &child, depth - 1, ply + 1)) {
            h->line[ply] = mv[i].mv;
            return 1;
        }
    }
    /* No legal move here is a stalemate or a mate found at a smaller depth
     * (the depths share their parity): nothing to add. */
    if (h->stop) return 0;
    tt_store(h, hk, depth);
    return 0;
}

int ply__arb_helpmate(const ply_arb_pos_t *pos, int winner, uint64_t budget, uint64_t *nodes,
                      ply_arb_move_t *line, int max)
{
    if (mated(pos, winner)) return 0;
    if (max > HM_MAX_PLY) max = HM_MAX_PLY;
    hm_t *h = calloc(1, sizeof *h);
    if (!h) return -2;
    /* Table: a power of two near half the budget, 1,024 to 1,048,576 entries
     * (8 MB at most; calloc'd pages are touched only when used). */
    size_t size = 1024;
    while (size < (1u << 20) && size * 2 < budget) size *= 2;
    h->tt = calloc(size, sizeof *h->tt);
    if (!h->tt) {
        free(h);
        return -2;
    }
    h->mask = size - 1;
    h->winner = winner;
    /*
     * Four passes, each deepening from the start: full width to three plies
     * (the short mates, found exactly), a narrow one (the winner's two best
     * moves, the loser's best) that finds the usual long mates in a few
     * thousand nodes, a wider one, and the full-width search with what is
     * left. The narrow passes prove nothing when they fail (they skip moves),
     * and their table entries are dropped before the next pass.
     */
    static const struct {
        int width_winner, width_loser, max_depth, share; /* share: of the budget, in 1/16 */
    } pass[4] = {{0, 0, 3, 1}, {2, 1, 61, 2}, {3, 2, 41, 4}, {0, 0, HM_MAX_PLY, 16}};
    int found = -1;
    uint64_t spent = 0;
    for (int k = 0; k < 4 && found < 0; k++) {
        h->width[winner] = pass[k].width_winner;
        h->width[winner ^ 1] = pass[k].width_loser;
        h->budget = spent + (budget - spent) * (uint64_t)pass[k].share / 16;
        h->stop = 0;
        if (k) memset(h->tt, 0, size * sizeof *h->tt);
        int top = pass[k].max_depth < max ? pass[k].max_depth : max;
        for (int depth = pos->side == winner ? 1 : 2; depth <= top && !h->stop; depth += 2) {
            if (search(h, pos, depth, 0)) {
                found = depth;
                break;
            }
        }
        spent = h->nodes < h->budget ? h->nodes : h->budget;
    }
    static const char letter[] = "\0\0nbrq"; /* the public promotion letters */
    for (int i = 0; i < found; i++) {
        ply__arb_mv_t m = h->line[i];
        line[i] = (ply_arb_move_t){(uint8_t)ply__arb_to64(m.from), (uint8_t)ply__arb_to64(m.to),
                                   (uint8_t)letter[m.promo], m.flags};
    }
    *nodes += spent;
    free(h->tt);
    free(h);
    return found;
}
