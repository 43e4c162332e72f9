/*
 * Builds the attack tables at start-up (constructor): leapers, between/line
 * tables, and the slider tables with either PEXT indexing or magics found by
 * a fixed-seed random search. Slider attacks are first computed slowly by ray
 * walking; the fast tables are then filled from those, so the two can never
 * disagree silently (a magic that collides is rejected during the search).
 */
#include "board/attacks.h"

#include <stdlib.h>
#include <string.h>

ply__slider_t ply__bishop[64];
ply__slider_t ply__rook[64];
ply_bb_t ply__knight_attacks[64];
ply_bb_t ply__king_attacks[64];
ply_bb_t ply__pawn_attacks[2][64];
ply_bb_t ply__between[64][64];
ply_bb_t ply__line[64][64];

/* 5248 bishop + 102400 rook entries: the sums of 2^popcount(mask) over squares. */
static ply_bb_t slider_table[5248 + 102400];

static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
static const int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static int on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

/* Ray-walking reference: attacks of a slider from sq, stopping at blockers. */
static ply_bb_t slow_slider(int sq, ply_bb_t occ, const int dirs[4][2])
{
    ply_bb_t att = 0;
    for (int d = 0; d < 4; d++) {
        int f = PLY_FILE(sq) + dirs[d][0], r = PLY_RANK(sq) + dirs[d][1];
        while (on_board(f, r)) {
            att |= ply_bb(PLY_SQ(f, r));
            if (occ & ply_bb(PLY_SQ(f, r))) break;
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return att;
}

/* Relevant occupancy: the rays without the board edge at their end. */
static ply_bb_t slider_mask(int sq, const int dirs[4][2])
{
    ply_bb_t mask = 0;
    for (int d = 0; d < 4; d++) {
        int f = PLY_FILE(sq) + dirs[d][0], r = PLY_RANK(sq) + dirs[d][1];
        while (on_board(f + dirs[d][0], r + dirs[d][1])) {
            mask |= ply_bb(PLY_SQ(f, r));
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return mask;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void)
{ /* xorshift64*: fixed seed, so the magics (and start-up time) are the same every run */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

#if !defined(PLY_USE_PEXT)
/* Finds a magic for one square: occs[i] -> atts[i] must map without harmful collisions. */
static ply_bb_t find_magic(ply__slider_t *s, const ply_bb_t *occs, const ply_bb_t *atts, int n,
                           ply_bb_t *table)
{
    static int epoch[4096], cur_epoch;
    for (;;) {
        ply_bb_t magic = rng_next() & rng_next() & rng_next(); /* sparse candidates work best */
        if (ply_popcount((s->mask * magic) & 0xFF00000000000000ull) < 6) continue;
        cur_epoch++;
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            unsigned idx = (unsigned)(((occs[i] & s->mask) * magic) >> s->shift);
            if (epoch[idx] != cur_epoch) {
                epoch[idx] = cur_epoch;
                table[idx] = atts[i];
            } else if (table[idx] != atts[i]) {
                ok = 0;
            }
        }
        if (ok) return magic;
    }
}
#endif

static ply_bb_t *init_slider(ply__slider_t *s, int sq, const int dirs[4][2], ply_bb_t *table)
{
    static ply_bb_t occs[4096], atts[4096];
    s->mask = slider_mask(sq, dirs);
    s->shift = (unsigned)(64 - ply_popcount(s->mask));
    s->table = table;
    int n = 0;
    ply_bb_t occ = 0;
    do { /* Carry-Rippler: every subset of the mask */
        occs[n] = occ;
        atts[n] = slow_slider(sq, occ, dirs);
        n++;
        occ = (occ - s->mask) & s->mask;
    } while (occ);
#if defined(PLY_USE_PEXT)
    for (int i = 0; i < n; i++) table[_pext_u64(occs[i], s->mask)] = atts[i];
    s->magic = 0;
#else
    s->magic = find_magic(s, occs, atts, n, table);
#endif
    return table + n;
}

static void init_leapers(void)
{
    static const int knight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                     {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    for (int sq = 0; sq < 64; sq++) {
        int f = PLY_FILE(sq), r = PLY_RANK(sq);
        for (int i = 0; i < 8; i++)
            if (on_board(f + knight[i][0], r + knight[i][1]))
                ply__knight_attacks[sq] |= ply_bb(PLY_SQ(f + knight[i][0], r + knight[i][1]));
        for (int df = -1; df <= 1; df++)
            for (int dr = -1; dr <= 1; dr++)
                if ((df || dr) && on_board(f + df, r + dr))
                    ply__king_attacks[sq] |= ply_bb(PLY_SQ(f + df, r + dr));
        for (int df = -1; df <= 1; df += 2) {
            if (on_board(f + df, r + 1)) ply__pawn_attacks[PLY_WHITE][sq] |= ply_bb(PLY_SQ(f + df, r + 1));
            if (on_board(f + df, r - 1)) ply__pawn_attacks[PLY_BLACK][sq] |= ply_bb(PLY_SQ(f + df, r - 1));
        }
    }
}

static void init_lines(void)
{
    for (int a = 0; a < 64; a++) {
        for (int b = 0; b < 64; b++) {
            if (a == b) continue;
            const int (*dirs)[2] = NULL;
            if (slow_slider(a, 0, bishop_dirs) & ply_bb(b)) dirs = bishop_dirs;
            if (slow_slider(a, 0, rook_dirs) & ply_bb(b)) dirs = rook_dirs;
            if (!dirs) continue;
            ply__between[a][b] = slow_slider(a, ply_bb(b), dirs) & slow_slider(b, ply_bb(a), dirs);
            ply__line[a][b] = (slow_slider(a, 0, dirs) & slow_slider(b, 0, dirs)) | ply_bb(a) | ply_bb(b);
        }
    }
}

__attribute__((constructor)) static void ply_attacks_init(void)
{
    init_leapers();
    init_lines();
    ply_bb_t *t = slider_table;
    for (int sq = 0; sq < 64; sq++) t = init_slider(&ply__bishop[sq], sq, bishop_dirs, t);
    for (int sq = 0; sq < 64; sq++) t = init_slider(&ply__rook[sq], sq, rook_dirs, t);
}

const char *ply_attacks_backend(void)
{
#if defined(PLY_USE_PEXT)
    return "pext";
#else
    return "magic";
#endif
}
