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
 * Shape: passes of iterative deepening over the number of plies, narrow
 * ones and a full-width one taking turns on a schedule that the budget only
 * cuts off (so the answer is monotone in the budget), only depths of the
 * parity that ends with the winner's move; at the last ply only checks are
 * followed to the mate test. The table remembers positions that had no
 * helpmate within N plies (a lossy 64-bit hash: a collision can only hide
 * a mate, never invent one, and every line found is a real series of legal
 * moves). Under the 2000 Laws no clock or repetition ends a game by itself,
 * so neither cuts a series of legal moves short. Under the 2023 Laws the
 * 75-move rule does (art. 9.6.2): with @draw_at a move that brings the
 * halfmove clock to 150 ends the line unless it mates, and the clock is
 * part of the table's key (a capture or pawn move resets it). Repetitions
 * are left to the caller's replay (ply_arb_unwinnable_laws).
 * Positions where the winner can no longer mate by material are cut.
 *
 * Move order (the heart of the method: the winner's pieces go to the
 * losing king, promotions first, all four pieces since an underpromotion
 * can be the only mate; the losing king goes to a corner, one of the
 * winner's bishop colour when bishops of one colour are all it has, its
 * pieces go next to it to take away its flights, its pawns walk on to
 * promote into such pieces, and it does not take the winner's pieces).
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"

#define HM_MAX_PLY 128

typedef struct hm {
    int winner;
    int draw_at; /* halfmove clock that draws unless the move mates (art. 9.6.2), 0: none */
    uint64_t nodes, budget;
    int stop;
    int width[2]; /* moves followed per node, by side (0: all) */
    int corners;  /* where the losing king goes (mating_corners) */
    int tag;      /* the pass kind whose failures the table entries hold (0: full width) */
    uint64_t *tt; /* hash, its low 10 bits replaced by the tag (2 bits) and the depth that failed */
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

/* King steps from the nearest of the @corners (bit 0: a1, 1: h1, 2: a8, 3: h8). */
static int corner_dist(int s, int corners)
{
    static const int corner_sq[4] = {0x00, 0x07, 0x70, 0x77};
    int best = 7;
    for (int c = 0; c < 4; c++)
        if (corners >> c & 1) best = min2(best, dist(s, corner_sq[c]));
    return best;
}

/* The corners where the losing king goes: all four, or when the winner's
 * only pieces besides king and pawns are bishops of one colour, the two of
 * that colour (a bishop checks only on its own colour: a1 and h8 are dark). */
static int mating_corners(const ply_arb_pos_t *p, int winner)
{
    int colours = 0;
    for (int s = 0; s < 128; s++) {
        if (s & 0x88) continue;
        int pc = p->sq[s];
        if (!pc || (pc < 0) != winner) continue;
        int kind = abs(pc);
        if (kind == ARB_P || kind == ARB_K) continue;
        if (kind != ARB_B) return 15;
        colours |= (ply__arb_file(s) + ply__arb_rank(s)) % 2 ? 2 : 1; /* 1: dark */
    }
    return colours == 1 ? 9 : colours == 2 ? 6 : 15;
}

static int score(const ply_arb_pos_t *p, ply__arb_mv_t m, int winner, int corners)
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
            s += 10 * (corner_dist(m.from, corners) - corner_dist(m.to, corners));
        else if (kind == ARB_P)
            s += 4; /* forward: it may have to promote to block its own king */
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

/* A failure at @depth or deeper stored by a full-width pass or by this
 * pass's kind (a narrow failure says nothing about the moves it skipped). */
static int tt_fails(const hm_t *h, uint64_t key, int depth)
{
    uint64_t e = h->tt[key & h->mask];
    int tag = (int)(e >> 8 & 3);
    return e && (e >> 10) == (key >> 10) && (tag == 0 || tag == h->tag) && (int)(e & 0xFF) >= depth;
}

static void tt_store(hm_t *h, uint64_t key, int depth)
{
    h->tt[key & h->mask] = (key & ~0x3FFull) | (uint64_t)h->tag << 8 | (uint64_t)depth;
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
    if (h->draw_at) hk ^= ((uint64_t)p->halfmove + 1) * 0x9E3779B97F4A7C15ull;
    if (tt_fails(h, hk, depth)) return 0;

    ply__arb_mv_t pseudo[PLY__ARB_MAX_PSEUDO];
    scored_t mv[PLY__ARB_MAX_PSEUDO];
    int n = ply__arb_gen(p, pseudo);
    for (int i = 0; i < n; i++)
        mv[i] = (scored_t){pseudo[i], score(p, pseudo[i], h->winner, h->corners)};
    sort_moves(mv, n);
    const int last = depth == 1 && p->side == h->winner;
    const int width = h->width[p->side];
    int followed = 0;
    for (int i = 0; i < n && !h->stop; i++) {
        ply_arb_pos_t child = *p;
        ply__arb_make(&child, mv[i].mv);
        if (ply__arb_left_in_check(&child)) continue;
        /* 9.6.2: the move that completes the 75 moves ends the game unless it mates,
         * and only the last move of a line can mate. */
        if (!last && h->draw_at && child.halfmove >= h->draw_at) continue;
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

/*
 * The passes, each an iterative deepening from the start: full width to
 * three plies (the short mates, found exactly); a narrow one (the winner's
 * two best moves, the loser's best) that finds the usual long mates in a few
 * thousand nodes; two wider ones, where the loser has a second move (its
 * pawn must often walk on and promote, or its piece come to block, while its
 * king heads for the corner); and the full-width search. The narrow passes
 * prove nothing when they fail (they skip moves). The widths were chosen on
 * 105 random positions of the classes of issue 30 (king and bishop against
 * king and bishop on the other colour, king and pawn against king and knight
 * or bishop): 89 of the 90 legal ones decided for both sides within 500,000
 * nodes, the hardest in about 900,000 (BENCHMARKS.md, "Unwinnability").
 */
#define HM_PASSES 5
static const struct {
    int width_winner, width_loser, max_depth;
    int weight; /* nodes a round, in quarters of the round's allowance */
} hm_pass[HM_PASSES] = {
    {0, 0, 3, 4}, {2, 1, 61, 8}, {2, 2, 41, 4}, {3, 2, 41, 4}, {0, 0, HM_MAX_PLY, 2}};

/*
 * The schedule is the same whatever the budget, which only cuts it off: the
 * passes take turns in rounds, and in round r each pass that is not done
 * searches until its own nodes reach (HM_ROUND_NODES << r) times its weight
 * (the narrowest pass twice, the full-width one half: on the same positions
 * and on WAC's and the games' final ones, the nodes to a "yes" fell by 15 to
 * 30% against equal weights), then stops and resumes at the same depth in
 * the next round (the depth it was in is
 * searched again, the table keeping what it had proven). So a line found
 * within some budget is found, after the same nodes, with any larger one
 * (issue 30: the budget used to set each pass's share, and a pass that
 * finished within a larger share could be cut in a smaller one, while the
 * one that then ran found nothing). A pass whose turn is cut short within
 * its round costs at most twice what it needed, so the line is found within
 * about 2 * 22 / weight times the nodes of the quickest pass that finds it.
 */
#define HM_ROUND_NODES 1024

/*
 * The table has the same size whatever the budget (the answer must not
 * depend on it either): 2^20 entries, 8 MB at most, calloc'd pages touched
 * only when used. Entries are tagged by the kind of pass that stored them:
 * a full-width failure holds for every pass, a narrow one only for its own.
 */
#define HM_TT_BITS 20

int ply__arb_helpmate(const ply_arb_pos_t *pos, int winner, int draw_at, uint64_t budget,
                      uint64_t *nodes, ply_arb_move_t *line, int max)
{
    if (mated(pos, winner)) return 0;
    if (draw_at && pos->halfmove >= draw_at) return -1;
    if (max > HM_MAX_PLY) max = HM_MAX_PLY;
    hm_t *h = calloc(1, sizeof *h);
    if (!h) return -2;
    const size_t size = (size_t)1 << HM_TT_BITS;
    h->tt = calloc(size, sizeof *h->tt);
    if (!h->tt) {
        free(h);
        return -2;
    }
    h->mask = size - 1;
    h->winner = winner;
    h->draw_at = draw_at;
    h->corners = mating_corners(pos, winner);
    int found = -1, depth[HM_PASSES], done[HM_PASSES] = {0}, active = HM_PASSES;
    uint64_t used[HM_PASSES] = {0};
    for (int k = 0; k < HM_PASSES; k++) depth[k] = pos->side == winner ? 1 : 2;
    for (unsigned round = 0; found < 0 && active && h->nodes < budget; round++) {
        for (int k = 0; k < HM_PASSES && found < 0 && h->nodes < budget; k++) {
            const uint64_t share =
                round < 40 ? ((uint64_t)HM_ROUND_NODES << round) / 4 * (uint64_t)hm_pass[k].weight
                           : UINT64_MAX;
            if (done[k] || used[k] >= share) continue;
            const int top = min2(hm_pass[k].max_depth, max);
            h->width[winner] = hm_pass[k].width_winner;
            h->width[winner ^ 1] = hm_pass[k].width_loser;
            h->tag = hm_pass[k].width_winner ? k : 0; /* 1..3: fits the table's 2 bits */
            const uint64_t start = h->nodes, room = share - used[k];
            h->budget = budget - start < room ? budget : start + room;
            h->stop = 0;
            while (depth[k] <= top && !h->stop) {
                if (search(h, pos, depth[k], 0)) {
                    found = depth[k];
                    break;
                }
                if (!h->stop) depth[k] += 2;
            }
            if (h->nodes > h->budget)
                h->nodes = h->budget; /* the node that stopped is not searched */
            used[k] += h->nodes - start;
            if (found < 0 && depth[k] > top) {
                done[k] = 1;
                active--;
            }
        }
    }
    static const char letter[] = "\0\0nbrq"; /* the public promotion letters */
    for (int i = 0; i < found; i++) {
        ply__arb_mv_t m = h->line[i];
        line[i] = (ply_arb_move_t){(uint8_t)ply__arb_to64(m.from), (uint8_t)ply__arb_to64(m.to),
                                   (uint8_t)letter[m.promo], m.flags};
    }
    *nodes += h->nodes;
    free(h->tt);
    free(h);
    return found;
}
