/*
 * The arbiter's move machinery: attack tests, the pseudo-legal generator and
 * copy-make. Legality is decided by the callers the obvious way: play the
 * move on a copy and ask whether the mover's king is attacked (art. 3.9).
 *
 * The board is a 0x88 mailbox scanned square by square; there are no piece
 * lists, bitboards or incremental attack data to get out of sync, which is
 * the point: this code is the yardstick the fast engine is measured with.
 * What makes it less slow changes how the squares are visited, never which
 * rule is applied: the knight and king squares of each square come from
 * tables built at start-up, the enemy king (whose square the position keeps)
 * is found by the 0x88 difference, each side and each direction gets its own
 * inlined copy of the scans, and the generator finds a rank's pieces with
 * one word read. Perft's hot loop calls ply__arb_child, which copies, makes
 * and tests in one body.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"

/* Art. 3.6: the knight's eight jumps; art. 3.8(a): the king's eight steps. */
static const int knight_off[8] = {33, 31, 18, 14, -14, -18, -31, -33};
static const int king_off[8] = {17, 16, 15, 1, -1, -15, -16, -17};
/* Art. 3.2-3.4: diagonals (bishop), ranks and files (rook); the queen uses both. */
static const int diag_off[4] = {17, 15, -15, -17};
static const int orth_off[4] = {16, 1, -1, -16};

/*
 * Per-square lists of the on-board squares a knight (art. 3.6) or a king
 * (art. 3.8(a)) reaches from each 0x88 square, ending at ARB_END, so that the
 * attack test and the generator step through them with no boundary test.
 * Built from the offsets above at start-up (constructor), read-only after.
 */
enum { ARB_END = 0x88 };
static uint8_t knight_to[128][9];
static uint8_t king_to[128][9];

static void fill_steps(uint8_t (*to)[9], const int *off)
{
    for (int s = 0; s < 128; s++) {
        int n = 0;
        for (int i = 0; i < 8 && !(s & 0x88); i++)
            if (!((s + off[i]) & 0x88)) to[s][n++] = (uint8_t)(s + off[i]);
        to[s][n] = ARB_END;
    }
}

__attribute__((constructor)) static void arb_tables_init(void)
{
    fill_steps(knight_to, knight_off);
    fill_steps(king_to, king_off);
}

/* Forces inlining where the caller passes a constant side, so that each side
 * gets its own copy of the rules with the piece codes folded in. */
#define ARB_INLINE inline __attribute__((always_inline))

/*
 * The 0x88 difference of two on-board squares names the vector between them
 * uniquely, so the enemy king (whose square the position keeps) attacks @sq,
 * art. 3.8(a), exactly when sq - king is one of the eight king steps. Bit
 * (d + 17) of this mask is set for d = -17, -16, -15, -1, 1, 15, 16, 17.
 */
#define ARB_KING_STEP_MASK 0x0000000700050007ull

static ARB_INLINE int king_adjacent(int sq, int king)
{
    unsigned d = (unsigned)(sq - king + 17);
    return d <= 34 && ((ARB_KING_STEP_MASK >> d) & 1);
}

/*
 * The first piece from @sq along step @d (art. 3.5: sliders stop at the first
 * piece, of either colour): when it is @slider or @queen, it is appended to
 * @out (if not NULL) and the count @n grows by one. Returns the new count.
 */
static ARB_INLINE int ray_attacker(const int8_t *b, int sq, int d, int slider, int queen, int *out,
                                   int n)
{
    for (int s = sq + d; !(s & 0x88); s += d) {
        int p = b[s];
        if (!p) continue;
        if (p == slider || p == queen) {
            if (out) out[n] = s;
            return n + 1;
        }
        break;
    }
    return n;
}

/*
 * Attackers of @sq belonging to side @by, whose pieces carry sign @sg (+1
 * white, -1 black; the callers pass a constant). With @out == NULL it returns
 * 1 at the first attacker found (the hot path of every legality test);
 * otherwise it lists them all. Inlined with constant arguments, both uses
 * share one body of rules.
 */
static ARB_INLINE int scan_attackers(const ply_arb_pos_t *pos, int sq, int by, int sg, int *out)
{
    const int8_t *b = pos->sq;
    int n = 0;

    /* Art. 3.7(c): a pawn attacks the two squares diagonally in front of it, so
     * a white pawn attacks sq from sq-15 or sq-17, a black one from sq+15 or sq+17. */
    for (int i = 0; i < 2; i++) {
        int s = sq - sg * (i ? 17 : 15);
        if (!(s & 0x88) && b[s] == sg * ARB_P) {
            if (!out) return 1;
            out[n++] = s;
        }
    }
    for (const uint8_t *t = knight_to[sq]; *t != ARB_END; t++) {
        int s = *t;
        if (b[s] == sg * ARB_N) {
            if (!out) return 1;
            out[n++] = s;
        }
    }
    if (king_adjacent(sq, pos->king[by])) {
        if (!out) return 1;
        out[n++] = pos->king[by];
    }
    /* Art. 3.5: sliders stop at the first piece, of either colour. The loops
     * are unrolled so that each direction's step is a constant. */
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        n = ray_attacker(b, sq, diag_off[i], sg * ARB_B, sg * ARB_Q, out, n);
        if (n && !out) return 1;
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        n = ray_attacker(b, sq, orth_off[i], sg * ARB_R, sg * ARB_Q, out, n);
        if (n && !out) return 1;
    }
    return n;
}

static ARB_INLINE int attacked(const ply_arb_pos_t *pos, int sq, int by)
{
    return by == 0 ? scan_attackers(pos, sq, 0, 1, NULL) : scan_attackers(pos, sq, 1, -1, NULL);
}

int ply__arb_attacked(const ply_arb_pos_t *pos, int sq, int by)
{
    return attacked(pos, sq, by);
}

int ply__arb_attackers(const ply_arb_pos_t *pos, int sq, int by, int *out)
{
    return by == 0 ? scan_attackers(pos, sq, 0, 1, out) : scan_attackers(pos, sq, 1, -1, out);
}

static inline int add(ply__arb_mv_t *mv, int n, int from, int to, int promo, int flags)
{
    mv[n].from = (uint8_t)from;
    mv[n].to = (uint8_t)to;
    mv[n].promo = (uint8_t)promo;
    mv[n].flags = (uint8_t)flags;
    return n + 1;
}

/* Art. 3.7(e): a pawn reaching the last rank is exchanged, as part of the same
 * move, for a queen, rook, bishop or knight; each choice is a distinct move. */
static int add_pawn(ply__arb_mv_t *mv, int n, int from, int to, int flags)
{
    int r = ply__arb_rank(to);
    if (r != 0 && r != 7) return add(mv, n, from, to, 0, flags);
    for (int promo = ARB_Q; promo >= ARB_N; promo--) n = add(mv, n, from, to, promo, flags);
    return n;
}

static int gen_pawn(const ply_arb_pos_t *pos, int s, int sg, ply__arb_mv_t *mv, int n)
{
    const int fwd = 16 * sg;
    const int start = sg > 0 ? 1 : 6;
    int t = s + fwd; /* never off the board: no pawn stands on its last rank */

    /* Art. 3.7(a)-(b): one step to an empty square; from the initial rank, two
     * steps when both squares are empty. */
    if (pos->sq[t] == 0) {
        n = add_pawn(mv, n, s, t, 0);
        if (ply__arb_rank(s) == start && pos->sq[t + fwd] == 0)
            n = add(mv, n, s, t + fwd, 0, PLY_ARB_MOVE_DOUBLE);
    }
    /* Art. 3.7(c)-(d): captures diagonally forward, and en passant onto the square
     * the opposing pawn just crossed (pos->ep, set only right after its double step). */
    for (int d = -1; d <= 1; d += 2) {
        t = s + fwd + d;
        if (t & 0x88) continue;
        if (pos->sq[t] * sg < 0)
            n = add_pawn(mv, n, s, t, PLY_ARB_MOVE_CAPTURE);
        else if (t == pos->ep)
            n = add(mv, n, s, t, 0, PLY_ARB_MOVE_CAPTURE | PLY_ARB_MOVE_EP);
    }
    return n;
}

static int gen_steps(const ply_arb_pos_t *pos, int s, int sg, const uint8_t *to, ply__arb_mv_t *mv,
                     int n)
{
    for (; *to != ARB_END; to++) {
        int t = *to;
        int p = pos->sq[t] * sg;
        if (p > 0) continue; /* art. 3.1(a): never onto one's own piece */
        n = add(mv, n, s, t, 0, p < 0 ? PLY_ARB_MOVE_CAPTURE : 0);
    }
    return n;
}

static ARB_INLINE int gen_slides(const ply_arb_pos_t *pos, int s, int sg, const int *off, int ndir,
                                 ply__arb_mv_t *mv, int n)
{
#pragma GCC unroll 8
    for (int i = 0; i < ndir; i++) {
        for (int t = s + off[i]; !(t & 0x88); t += off[i]) {
            int p = pos->sq[t] * sg;
            if (p > 0) break;
            n = add(mv, n, s, t, 0, p < 0 ? PLY_ARB_MOVE_CAPTURE : 0);
            if (p < 0) break; /* art. 3.5: no jumping over pieces */
        }
    }
    return n;
}

/* 1 when every square from @a to @b (inclusive, on one rank) is empty or holds
 * the castling king (@ks) or rook (@rs) themselves. */
static int span_clear(const ply_arb_pos_t *pos, int a, int b, int ks, int rs)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (int s = lo; s <= hi; s++)
        if (s != ks && s != rs && pos->sq[s]) return 0;
    return 1;
}

/*
 * Castling, FIDE Laws art. 3.8(a)(ii) and 3.8(b)(2), written once for standard
 * chess and Chess960 (RULES.md art. 3, Chess960 extension): the king ends on
 * g/c and the rook on f/d of the first rank; every square between each
 * piece's start and destination must be empty except for the two castling
 * pieces; no square from the king's start to its destination (inclusive) may
 * be attacked. In standard chess this reduces to the classical conditions
 * (king e1, rook a1/h1). A rook that shielded the king along the rank is
 * caught afterwards by the common "is my king attacked" test.
 */
static int gen_castles(const ply_arb_pos_t *pos, ply__arb_mv_t *mv, int n)
{
    const int us = pos->side, them = us ^ 1;
    const int ks = pos->king[us], base = us ? 0x70 : 0x00;

    for (int a = 0; a < 2; a++) {
        int rs = pos->castle_rook[us * 2 + a];
        if (rs < 0) continue; /* art. 3.8(b)(1): the right is lost */
        int kto = base + (a ? 2 : 6), rto = base + (a ? 3 : 5);
        if (!span_clear(pos, ks, kto, ks, rs) || !span_clear(pos, rs, rto, ks, rs)) continue;
        int lo = ks < kto ? ks : kto, hi = ks < kto ? kto : ks, safe = 1;
        for (int s = lo; s <= hi && safe; s++)
            if (ply__arb_attacked(pos, s, them)) safe = 0;
        if (safe) n = add(mv, n, ks, kto, 0, PLY_ARB_MOVE_CASTLE);
    }
    return n;
}

/*
 * The squares of one rank (8 bytes from @rank, a..h) holding a piece of the
 * side with sign @sg: bit 7 of byte f is set when file f holds one. The rank
 * is read as one little-endian word; a byte is negative (black) when its bit
 * 7 is set, and non-zero when adding 0x7f to its low seven bits carries into
 * bit 7 or bit 7 is already set.
 */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "own_squares reads a rank as a little-endian word (file a in the low byte)"
#endif
static ARB_INLINE uint64_t own_squares(const int8_t *rank, int sg)
{
    const uint64_t hi = 0x8080808080808080ull, lo = 0x7f7f7f7f7f7f7f7full;
    uint64_t w;
    memcpy(&w, rank, sizeof w);
    if (sg < 0) return w & hi;
    return (((w & lo) + lo) | w) & ~w & hi;
}

int ply__arb_gen(const ply_arb_pos_t *pos, ply__arb_mv_t *mv)
{
    const int sg = pos->side ? -1 : 1;
    int n = 0;

    /* Rank by rank, a1..h8; in each rank only the squares holding our own
     * pieces, lowest file first, so the order is that of a square-by-square
     * scan, without a branch on every empty square. */
    for (int r = 0; r < 128; r += 16) {
        uint64_t own = own_squares(pos->sq + r, sg);
        for (; own; own &= own - 1) {
            const int s = r + (__builtin_ctzll(own) >> 3);
            switch (pos->sq[s] * sg) {
            case ARB_P:
                n = gen_pawn(pos, s, sg, mv, n);
                break;
            case ARB_N:
                n = gen_steps(pos, s, sg, knight_to[s], mv, n);
                break;
            case ARB_B:
                n = gen_slides(pos, s, sg, diag_off, 4, mv, n);
                break;
            case ARB_R:
                n = gen_slides(pos, s, sg, orth_off, 4, mv, n);
                break;
            case ARB_Q:
                n = gen_slides(pos, s, sg, king_off, 8, mv, n);
                break;
            default: /* ARB_K */
                n = gen_steps(pos, s, sg, king_to[s], mv, n);
                break;
            }
        }
    }
    n = gen_castles(pos, mv, n);
    assert(n <= PLY__ARB_MAX_PSEUDO);
    return n;
}

#ifndef NDEBUG
/* The position invariants every make must preserve (debug builds only). */
static int pos_ok(const ply_arb_pos_t *p)
{
    for (int c = 0; c < 2; c++) {
        int k = p->king[c];
        if ((k & 0x88) || p->sq[k] != (c ? -ARB_K : ARB_K)) return 0;
        for (int a = 0; a < 2; a++) {
            int r = p->castle_rook[c * 2 + a];
            if (r < 0) continue;
            if ((r & 0x88) || p->sq[r] != (c ? -ARB_R : ARB_R)) return 0;
            if (ply__arb_rank(r) != (c ? 7 : 0) || ply__arb_rank(k) != ply__arb_rank(r)) return 0;
            if (a == 0 ? r < k : r > k) return 0; /* h-side rook right of the king */
        }
    }
    if (p->ep >= 0 && ((p->ep & 0x88) || p->sq[p->ep] != 0)) return 0;
    for (int s = 0; s < 8; s++)
        if (abs(p->sq[s]) == ARB_P || abs(p->sq[0x70 + s]) == ARB_P) return 0;
    return p->side <= 1;
}
#endif

/* 1 when 0x88 square @sq is on the first or the last rank. */
static ARB_INLINE int back_rank(int sq)
{
    return sq < 0x10 || sq >= 0x70;
}

/*
 * Plays @m from @src into @dst, which is either @src itself or a fresh copy
 * of it. Every field is read from @src before it is written to @dst, so that
 * the copy is only ever stored to: reading back bytes the copy just wrote
 * would wait on the store (the hot path copies, then makes).
 */
static ARB_INLINE void make_move(ply_arb_pos_t *dst, const ply_arb_pos_t *src, ply__arb_mv_t m)
{
    const int us = src->side, sg = us ? -1 : 1;
    const int from = m.from, to = m.to;
    const int piece = src->sq[from];
    int halfmove = src->halfmove + 1, ep = -1;
    int8_t rook[4];

    memcpy(rook, src->castle_rook, sizeof rook);
    if (m.flags & PLY_ARB_MOVE_CASTLE) {
        /* Clear both squares before placing, so that Chess960 castles where
         * the king or rook lands on the other's start square (or stays) work. */
        int rs = rook[ply__arb_castle_index(us, to)];
        dst->sq[from] = 0;
        dst->sq[rs] = 0;
        dst->sq[to] = (int8_t)(sg * ARB_K);
        dst->sq[ply__arb_castle_rook_to(to)] = (int8_t)(sg * ARB_R);
        dst->king[us] = (uint8_t)to;
        rook[us * 2] = rook[us * 2 + 1] = -1;
    } else {
        if (src->sq[to] || piece * sg == ARB_P) halfmove = 0; /* art. 9.3 */
        dst->sq[to] = m.promo ? (int8_t)(sg * m.promo) : (int8_t)piece;
        dst->sq[from] = 0;
        if (m.flags & PLY_ARB_MOVE_EP) dst->sq[to - 16 * sg] = 0; /* art. 3.7(d) */
        if (m.flags & PLY_ARB_MOVE_DOUBLE) ep = from + 16 * sg;
        if (piece * sg == ARB_K) {
            /* Art. 3.8(b)(1)(a): the right to castle is lost once the king moved. */
            dst->king[us] = (uint8_t)to;
            rook[us * 2] = rook[us * 2 + 1] = -1;
        }
        /* Art. 3.8(b)(1)(b): ... or once that rook moved. A rook captured on its
         * castling square is gone too, so the opponent's right dies with it.
         * Castling rooks stand on the first or last rank, so only a move from
         * or to one of those can touch a right. */
        if (back_rank(from) || back_rank(to))
            for (int i = 0; i < 4; i++)
                if (rook[i] == from || rook[i] == to) rook[i] = -1;
    }
    memcpy(dst->castle_rook, rook, sizeof rook);
    dst->ep = (int16_t)ep;
    dst->halfmove = (uint16_t)halfmove;
    dst->fullmove = (uint16_t)(src->fullmove + us);
    dst->side = (uint8_t)(us ^ 1);
    assert(pos_ok(dst));
}

void ply__arb_make(ply_arb_pos_t *pos, ply__arb_mv_t m)
{
    make_move(pos, pos, m);
}

int ply__arb_child(const ply_arb_pos_t *pos, ply__arb_mv_t m, ply_arb_pos_t *child)
{
    *child = *pos;
    make_move(child, pos, m);
    return !attacked(child, child->king[pos->side], pos->side ^ 1);
}

int ply__arb_has_legal_move(const ply_arb_pos_t *pos)
{
    ply__arb_mv_t mv[PLY__ARB_MAX_PSEUDO];
    int n = ply__arb_gen(pos, mv);
    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child;
        if (ply__arb_child(pos, mv[i], &child)) return 1;
    }
    return 0;
}
