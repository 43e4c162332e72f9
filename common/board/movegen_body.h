/*
 * The legal move generator's body, shared as a header so that it can be
 * compiled into more than one translation unit: the public functions of
 * movegen.c (magic sliders), and each perft kernel in worker/ (magic, and
 * PEXT compiled with -mbmi2), where it inlines into the perft recursion.
 * Internal to the fast engine: include movegen.h for the API.
 *
 * Shape of the work per position: checkers and pinned pieces first (one
 * x-ray lookup from the king), then per piece kind a target set masked by
 * "not own pieces", "on the checking line" (single check) and "on the pin
 * line" (pinned pieces). Double check skips straight to the king. When
 * listing, every "emit" writes moves. Counting (perft(1), the leaves of
 * perft) has its own, leaner body, ply__count_side, out of line once per
 * side (ply__count_white, ply__count_black). A perft(2) node judges once
 * what most of its children's counts would otherwise each recompute (their
 * pins, king squares and castling: ply__child_hints) and hands each child
 * the verdicts its move left standing.
 */
#ifndef PLY_BOARD_MOVEGEN_BODY_H
#define PLY_BOARD_MOVEGEN_BODY_H

#include "board/movegen.h"
#include "util/stats.h"

#define PLY__INLINE inline __attribute__((always_inline))

/* What the generator body does with each legal move it finds. */
enum {
    PLY__GEN_LIST = 0,     /* write it to the list */
    PLY__GEN_COUNT = 1,    /* count it (popcounts where possible): perft(1) */
    PLY__GEN_CHILDREN = 2, /* play it and count the replies: perft(2), no list at all */
    PLY__GEN_STATS = 3,    /* play it and add its replies' leaves to the statistics of
                              util/stats.h: perft(2) statistics, no list at all */
    PLY__GEN_NOISY = 4,    /* as LIST, but only the captures (en passant too) and the
                              promotions: the others are never generated */
};

/*
 * What a perft(2) node knows of its children's replies before it plays its
 * moves (ply__child_hints): the replying side's pinned pieces (it is not in
 * check), its king's safe squares and its castling, each judged once in the
 * parent with the squares it rests on, per piece that moves (touch). A child
 * whose move, a normal move or double push, left both its from and to squares
 * outside touch[its piece] has the same verdict; @valid (PLY__HINT_* bits)
 * tells the child which verdicts hold.
 */
typedef struct ply__hints {
    ply_bb_t pin_touch[PLY_KING + 1];    /* [piece that moves] */
    ply_bb_t king_touch[PLY_KING + 1];   /* [piece that moves] */
    ply_bb_t castle_touch[PLY_KING + 1]; /* [piece that moves] */
    ply_bb_t pinned;                     /* no checker, these pinned (PLY__HINT_PINS) */
    ply_bb_t king_safe;                  /* the king's legal steps (PLY__HINT_KING) */
    int castle_ok; /* rights ply__castle_ok allows (PLY_CASTLE_* bits; PLY__HINT_CASTLE) */
} ply__hints_t;

enum { PLY__HINT_PINS = 1, PLY__HINT_KING = 2, PLY__HINT_CASTLE = 4 };

typedef struct ply__gen {
    const ply_board_t *b; /* the position (PLY__GEN_CHILDREN plays moves on copies) */
    int us;               /* its side to move (a constant once inlined) */
    ply_move_t *out;      /* next free slot (listing only) */
    int n;                /* moves, or replies, counted */
    ply_stats_t *stats;   /* PLY__GEN_STATS: where the replies' statistics go */
    ply__hints_t h;       /* PLY__GEN_CHILDREN, PLY__GEN_STATS: of the replies */
} ply__gen_t;

/* perft(1) of a child with White (Black) to move, out of line: each
 * PLY__GEN_CHILDREN emit site would otherwise inline a whole counting
 * generator. One function per side: the parent knows the child's side, so
 * the child neither tests it nor carries the other side's code.
 * @h, @valid: what the parent knows (ply__hints_t); NULL and 0 when nothing. */
static int ply__count_white(const ply_board_t *b, const ply__hints_t *h, unsigned valid);
static int ply__count_black(const ply_board_t *b, const ply__hints_t *h, unsigned valid);
/* The same when the pins and king verdicts hold (the common case): compiled
 * without the code that computes them. */
static int ply__count_white_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid);
static int ply__count_black_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid);
/* The same for the statistics of perft(1) (PLY__GEN_STATS). */
static void ply__stats_white(const ply_board_t *b, const ply__hints_t *h, unsigned valid,
                             ply_stats_t *s);
static void ply__stats_black(const ply_board_t *b, const ply__hints_t *h, unsigned valid,
                             ply_stats_t *s);
static void ply__stats_white_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid,
                                    ply_stats_t *s);
static void ply__stats_black_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid,
                                    ply_stats_t *s);

/* The full classification of one leaf (util/stats.h): plays the move. */
static void ply__classify(const ply_board_t *b, ply_move_t m, ply_stats_t *s);

/* Which of the parent's verdicts (ply__hints_t) hold in the child that move
 * @m reaches: those whose squares it did not touch. Castling and en passant
 * change more than two squares, and a promotion puts another piece on its
 * square: none holds after them. */
static PLY__INLINE unsigned ply__child_valid(const ply__gen_t *g, ply_move_t m)
{
    const int kind = ply_move_kind(m), piece = ply_move_piece(m);
    if (kind != PLY_MOVE_NORMAL && kind != PLY_MOVE_DOUBLE) return 0;
    const ply_bb_t moved = ply_bb(ply_move_from(m)) | ply_bb(ply_move_to(m));
    return (unsigned)!(moved & g->h.pin_touch[piece]) * PLY__HINT_PINS |
           (unsigned)!(moved & g->h.king_touch[piece]) * PLY__HINT_KING |
           (unsigned)!(moved & g->h.castle_touch[piece]) * PLY__HINT_CASTLE;
}

/* One move. With PLY__GEN_CHILDREN the move's kind and piece are constants
 * at each call site, so the inlined play has no branches on them. */
static PLY__INLINE void ply__emit(ply__gen_t *g, ply_move_t m, const int mode)
{
    if (mode == PLY__GEN_LIST || mode == PLY__GEN_NOISY) {
        *g->out++ = m;
    } else if (mode == PLY__GEN_COUNT) {
        g->n++;
    } else if (mode == PLY__GEN_STATS) {
        ply_board_t child = *g->b;
        ply__board_play(&child, m, 0);
        const unsigned valid = ply__child_valid(g, m);
        if ((valid & (PLY__HINT_PINS | PLY__HINT_KING)) == (PLY__HINT_PINS | PLY__HINT_KING)) {
            if (g->us == PLY_WHITE)
                ply__stats_black_hinted(&child, &g->h, valid, g->stats);
            else
                ply__stats_white_hinted(&child, &g->h, valid, g->stats);
        } else if (g->us == PLY_WHITE) {
            ply__stats_black(&child, &g->h, valid, g->stats);
        } else {
            ply__stats_white(&child, &g->h, valid, g->stats);
        }
    } else {
        ply_board_t child = *g->b;
        ply__board_play(&child, m, 0);
        const unsigned valid = ply__child_valid(g, m);
        if ((valid & (PLY__HINT_PINS | PLY__HINT_KING)) == (PLY__HINT_PINS | PLY__HINT_KING))
            g->n += g->us == PLY_WHITE ? ply__count_black_hinted(&child, &g->h, valid)
                                       : ply__count_white_hinted(&child, &g->h, valid);
        else
            g->n += g->us == PLY_WHITE ? ply__count_black(&child, &g->h, valid)
                                       : ply__count_white(&child, &g->h, valid);
    }
}

static PLY__INLINE void ply__emit_set(ply__gen_t *g, int from, ply_bb_t to, int kind, int piece,
                                      const int mode)
{
    if (mode == PLY__GEN_COUNT) {
        g->n += ply_popcount(to);
        return;
    }
    while (to) ply__emit(g, PLY_MOVE(from, ply_pop_lsb(&to), kind, piece), mode);
}

/* Pawn moves to a set of squares, each from to - delta; promotions when the
 * targets are on the last rank (each counts four times). */
static PLY__INLINE void ply__emit_pawns(ply__gen_t *g, ply_bb_t to, int delta, int kind,
                                        ply_bb_t promo_rank, const int mode)
{
    ply_bb_t promo = to & promo_rank;
    to &= ~promo_rank;
    if (mode == PLY__GEN_COUNT) {
        g->n += ply_popcount(to) + 4 * ply_popcount(promo);
        return;
    }
    while (to) {
        int sq = ply_pop_lsb(&to);
        ply__emit(g, PLY_MOVE(sq - delta, sq, kind, PLY_PAWN), mode);
    }
    while (promo) {
        int sq = ply_pop_lsb(&promo);
        for (int k = PLY_MOVE_PROMO_Q; k >= PLY_MOVE_PROMO_N; k--)
            ply__emit(g, PLY_MOVE(sq - delta, sq, k, PLY_PAWN), mode);
    }
}

static PLY__INLINE ply_bb_t ply__pawn_push(ply_bb_t b, int us)
{
    return us == PLY_WHITE ? b << 8 : b >> 8;
}

/* 1 when the side @us (king on @ksq, occupancy @occ; the enemy's diagonal
 * sliders @bq, orthogonal @rq) may castle with right @right now, not in check
 * being the caller's test: the squares between king and rook empty
 * (ply__castle_paths, standard chess and Chess960 alike) and no square the king
 * crosses or lands on attacked, judged with king and rook lifted (RULES.md art.
 * 3.8). The enemy's leapers are tested against the whole path at once; a slider
 * is looked up only when one stands on a ray of the path. Shared by every
 * generator. */
static PLY__INLINE int ply__castle_ok(const ply_board_t *b, const int us, int right, int ksq,
                                      ply_bb_t occ, ply_bb_t bq, ply_bb_t rq)
{
    const int rsq = b->castle_rook[right];
    const ply__castle_path_t *cp = &ply__castle_paths[us][PLY_FILE(ksq)][PLY_FILE(rsq)];
    if (occ & cp->empty) return 0;
    const ply_bb_t *p = b->pieces;
    if (b->colour[us ^ 1] &
        ((cp->knights & p[PLY_KNIGHT]) | (cp->pawns & p[PLY_PAWN]) | (cp->kings & p[PLY_KING])))
        return 0;
    const ply_bb_t occ2 = occ ^ ply_bb(ksq) ^ ply_bb(rsq);
    if (cp->diagonal & bq)
        for (ply_bb_t path = cp->king_path; path;)
            if (ply_bishop_attacks(ply_pop_lsb(&path), occ2) & bq) return 0;
    if (cp->orthogonal & rq)
        for (ply_bb_t path = cp->king_path; path;)
            if (ply_rook_attacks(ply_pop_lsb(&path), occ2) & rq) return 0;
    return 1;
}

/* 1 when a piece of @them (pieces @enemy, diagonal sliders @bq, orthogonal
 * @rq) attacks @sq with occupancy @occ: ply_board_attackers as a yes/no,
 * leaving at the first attacker found, with the sets the counter has. */
static PLY__INLINE int ply__attacked(const ply_board_t *b, int sq, const int them, ply_bb_t enemy,
                                     ply_bb_t bq, ply_bb_t rq, ply_bb_t occ)
{
    const ply_bb_t *p = b->pieces;
    if (enemy & ((ply__pawn_attacks[them ^ 1][sq] & p[PLY_PAWN]) |
                 (ply__knight_attacks[sq] & p[PLY_KNIGHT]) | (ply__king_attacks[sq] & p[PLY_KING])))
        return 1;
    if (!((ply__bishop_rays[sq] & bq) | (ply__rook_rays[sq] & rq))) return 0;
    return ((ply_bishop_attacks(sq, occ) & bq) | (ply_rook_attacks(sq, occ) & rq)) != 0;
}

/* The pieces giving check to the king of @us (on @ksq) and, in *@pinned, its
 * pinned pieces, in one pass: the slider lookups from the king see through own
 * pieces (occupancy: the enemy's only), so a sniper with nothing between is a
 * checker and one with a single (own) piece between pins it. @occ: both sides;
 * @bq, @rq: the enemy's diagonal and orthogonal sliders. Shared by the node and
 * statistics counters. */
static PLY__INLINE ply_bb_t ply__checkers_pins(const ply_board_t *b, const int us, int ksq,
                                               ply_bb_t occ, ply_bb_t bq, ply_bb_t rq,
                                               ply_bb_t *pinned)
{
    const ply_bb_t *p = b->pieces, enemy = b->colour[us ^ 1];
    ply_bb_t checkers = enemy & ((ply__knight_attacks[ksq] & p[PLY_KNIGHT]) |
                                 (ply__pawn_attacks[us][ksq] & p[PLY_PAWN]));
    ply_bb_t snipers = 0, pins = 0;
    if (ply__rook_rays[ksq] & rq) snipers |= ply_rook_attacks(ksq, enemy) & rq;
    if (ply__bishop_rays[ksq] & bq) snipers |= ply_bishop_attacks(ksq, enemy) & bq;
    while (snipers) {
        const int s = ply_pop_lsb(&snipers);
        const ply_bb_t between = ply__between[ksq][s] & occ;
        if (!between)
            checkers |= ply_bb(s);
        else if (!ply_more_than_one(between))
            pins |= between;
    }
    *pinned = pins;
    return checkers;
}

/* Fills @h for the children of @b, whose side to move is the enemy of @c:
 * the replies' verdicts and the squares each rests on (ply__hints_t).
 *  - pins: the lines from c's king through its own pieces up to the first
 *    enemy piece (an enemy slider beyond that one is blocked), and the squares
 *    an enemy knight or pawn would check from; c is not in check in @b;
 *  - king: every square the king could step to, each with its slider rays up
 *    to the first blocker (king lifted) and the squares an enemy knight, pawn
 *    or king would attack it from; and the king's neighbours themselves (a
 *    capture there adds a square);
 *  - castling: a blocked path stays blocked unless a blocker leaves; an open
 *    one depends on its own squares, the slider rays from its king squares up
 *    to their first blockers (king and rook lifted), and the squares an enemy
 *    leaper would attack it from. */
/* ply__checkers_pins, or the parent's verdict when it holds (PLY__HINT_PINS in
 * @valid: no checker, h->pinned). */
static PLY__INLINE ply_bb_t ply__checkers_pins_hinted(const ply_board_t *b, const int us, int ksq,
                                                      ply_bb_t occ, ply_bb_t bq, ply_bb_t rq,
                                                      const ply__hints_t *h, unsigned valid,
                                                      ply_bb_t *pinned)
{
    if (valid & PLY__HINT_PINS) {
        *pinned = h->pinned;
        return 0;
    }
    return ply__checkers_pins(b, us, ksq, occ, bq, rq, pinned);
}

/* touch[piece] for a verdict: @all for every moving piece, and for a pawn,
 * knight or king also the squares from which one would attack what the
 * verdict rests on. */
static PLY__INLINE void ply__touch_set(ply_bb_t touch[], ply_bb_t all, ply_bb_t pawns,
                                       ply_bb_t knights, ply_bb_t kings)
{
    touch[PLY_PAWN] = all | pawns;
    touch[PLY_KNIGHT] = all | knights;
    touch[PLY_BISHOP] = touch[PLY_ROOK] = touch[PLY_QUEEN] = all;
    touch[PLY_KING] = all | kings;
}

static PLY__INLINE void ply__child_hints(const ply_board_t *b, const int c, ply__hints_t *h)
{
    const ply_bb_t *p = b->pieces, foe = b->colour[c ^ 1], own = b->colour[c];
    const ply_bb_t occ = own | foe;
    const ply_bb_t bq = foe & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    const ply_bb_t rq = foe & (p[PLY_ROOK] | p[PLY_QUEEN]);
    const int ksq = b->king[c];

    {
        const ply_bb_t rl = ply_rook_attacks(ksq, foe), bl = ply_bishop_attacks(ksq, foe);
        ply_bb_t pinned = 0;
        for (ply_bb_t snipers = (rl & rq) | (bl & bq); snipers;) {
            const ply_bb_t between = ply__between[ksq][ply_pop_lsb(&snipers)] & occ;
            if (!ply_more_than_one(between)) pinned |= between;
        }
        h->pinned = pinned;
        ply__touch_set(h->pin_touch, rl | bl, ply__pawn_attacks[c][ksq], ply__knight_attacks[ksq],
                       0);
    }
    {
        const ply_bb_t occ_no_king = occ ^ ply_bb(ksq);
        ply_bb_t rays = ply__king_attacks[ksq], knights = 0, pawns = 0, kings = 0, safe = 0;
        for (ply_bb_t t = ply__king_attacks[ksq] & ~own; t;) {
            const int sq = ply_pop_lsb(&t);
            rays |= ply_bishop_attacks(sq, occ_no_king) | ply_rook_attacks(sq, occ_no_king);
            knights |= ply__knight_attacks[sq];
            pawns |= ply__pawn_attacks[c][sq];
            kings |= ply__king_attacks[sq];
            if (!ply__attacked(b, sq, c ^ 1, foe, bq, rq, occ_no_king)) safe |= ply_bb(sq);
        }
        h->king_safe = safe;
        ply__touch_set(h->king_touch, rays, pawns, knights, kings);
    }

    const int held = b->castling & (c == PLY_WHITE ? 3 : 12);
    int ok = 0;
    ply_bb_t paths = 0, knights = 0, pawns = 0, kings = 0;
    for (int side = 0; held && side < 2; side++) {
        const int right = c * 2 + side;
        if (!(held & (1 << right))) continue;
        const int rsq = b->castle_rook[right];
        const ply__castle_path_t *cp = &ply__castle_paths[c][PLY_FILE(ksq)][PLY_FILE(rsq)];
        if (occ & cp->empty) {
            paths |= occ & cp->empty;
            continue;
        }
        paths |= cp->empty;
        knights |= cp->knights;
        pawns |= cp->pawns;
        kings |= cp->kings;
        const ply_bb_t occ2 = occ ^ ply_bb(ksq) ^ ply_bb(rsq);
        for (ply_bb_t path = cp->king_path; path;) {
            const int sq = ply_pop_lsb(&path);
            paths |= ply_bishop_attacks(sq, occ2) | ply_rook_attacks(sq, occ2);
        }
        ok |= ply__castle_ok(b, c, right, ksq, occ, bq, rq) << right;
    }
    h->castle_ok = ok;
    ply__touch_set(h->castle_touch, paths, pawns, knights, kings);
}

static PLY__INLINE int ply__generate_side(const ply_board_t *b, ply_move_t *out, const int mode,
                                          const int us)
{
    ply__gen_t g;
    g.b = b;
    g.us = us;
    g.out = out;
    g.n = 0;
    g.stats = NULL;
    const int them = us ^ 1, ksq = b->king[us];
    if (mode == PLY__GEN_CHILDREN || mode == PLY__GEN_STATS) ply__child_hints(b, them, &g.h);
    const ply_bb_t own = b->colour[us], enemy = b->colour[them], occ = own | enemy;
    /* PLY__GEN_NOISY: only captures land anywhere but the last rank (a constant mask) */
    const int noisy = mode == PLY__GEN_NOISY;
    const ply_bb_t landing = noisy ? enemy : ~0ull;
    const ply_bb_t *p = b->pieces;
    const ply_bb_t enemy_rq = enemy & (p[PLY_ROOK] | p[PLY_QUEEN]);
    const ply_bb_t enemy_bq = enemy & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    const ply_bb_t checkers = ply_board_attackers(b, ksq, them, occ);

    if (mode == PLY__GEN_STATS) {
        g.stats = (ply_stats_t *)out;
        out = NULL;
    }

    /* King moves: the king must not step onto an attacked square, judged
     * with the king off the board so that it cannot hide behind itself. */
    {
        ply_bb_t to = ply__king_attacks[ksq] & ~own & landing, safe = 0;
        const ply_bb_t occ_no_king = occ ^ ply_bb(ksq);
        while (to) {
            int sq = ply_pop_lsb(&to);
            if (!ply_board_attackers(b, sq, them, occ_no_king)) safe |= ply_bb(sq);
        }
        ply__emit_set(&g, ksq, safe, PLY_MOVE_NORMAL, PLY_KING, mode);
    }
    if (ply_more_than_one(checkers))
        return mode == PLY__GEN_LIST || noisy ? (int)(g.out - out) : g.n;

    /* Pinned pieces: own pieces alone between the king and an enemy slider. */
    ply_bb_t pinned = 0;
    {
        ply_bb_t snipers = 0;
        if (ply__rook_rays[ksq] & enemy_rq) snipers |= ply_rook_attacks(ksq, enemy) & enemy_rq;
        if (ply__bishop_rays[ksq] & enemy_bq) snipers |= ply_bishop_attacks(ksq, enemy) & enemy_bq;
        while (snipers) {
            ply_bb_t between = ply__between[ksq][ply_pop_lsb(&snipers)] & occ;
            if (between && !ply_more_than_one(between)) pinned |= between;
        }
    }

    /* Non-king moves must capture the checker or block its line. */
    const ply_bb_t check_mask =
        checkers ? (ply__between[ksq][ply_lsb(checkers)] | checkers) : ~0ull;
    const ply_bb_t target = ~own & check_mask & landing;
    /* A pinned piece can never answer a check: its line and the check line
     * meet only on the king's square. */
    const ply_bb_t movable = checkers ? own & ~pinned : own;

    /* Pawns. */
    {
        const int up = us == PLY_WHITE ? 8 : -8;
        const ply_bb_t promo_rank = us == PLY_WHITE ? PLY_BB_RANK_8 : PLY_BB_RANK_1;
        const ply_bb_t third = us == PLY_WHITE ? PLY_BB_RANK_3 : PLY_BB_RANK_6;
        const ply_bb_t pawns = p[PLY_PAWN] & movable;
        const ply_bb_t free = pawns & ~pinned;
        const ply_bb_t empty = ~occ;

        ply_bb_t push1 = ply__pawn_push(free, us) & empty;
        ply_bb_t push2 = noisy ? 0 : ply__pawn_push(push1 & third, us) & empty & check_mask;
        push1 &= check_mask & (noisy ? promo_rank : ~0ull);
        /* West captures (toward the a-file) and east captures. */
        ply_bb_t west =
            (us == PLY_WHITE ? (free & ~PLY_BB_FILE_A) << 7 : (free & ~PLY_BB_FILE_A) >> 9);
        ply_bb_t east =
            (us == PLY_WHITE ? (free & ~PLY_BB_FILE_H) << 9 : (free & ~PLY_BB_FILE_H) >> 7);
        west &= enemy & check_mask;
        east &= enemy & check_mask;
        ply__emit_pawns(&g, push1, up, PLY_MOVE_NORMAL, promo_rank, mode);
        ply__emit_pawns(&g, push2, 2 * up, PLY_MOVE_DOUBLE, 0, mode);
        ply__emit_pawns(&g, west, up - 1, PLY_MOVE_NORMAL, promo_rank, mode);
        ply__emit_pawns(&g, east, up + 1, PLY_MOVE_NORMAL, promo_rank, mode);

        /* Pinned pawns (never in check here): only along the pin line. */
        ply_bb_t pin_pawns = pawns & pinned;
        while (pin_pawns) {
            int from = ply_pop_lsb(&pin_pawns);
            ply_bb_t line = ply__line[ksq][from];
            ply_bb_t one = ply__pawn_push(ply_bb(from), us) & empty & line;
            ply_bb_t two = noisy ? 0 : ply__pawn_push(one & third, us) & empty;
            if (noisy) one &= promo_rank;
            ply_bb_t caps = ply__pawn_attacks[us][from] & enemy & line;
            ply__emit_pawns(&g, one, up, PLY_MOVE_NORMAL, promo_rank, mode);
            ply__emit_pawns(&g, two, 2 * up, PLY_MOVE_DOUBLE, 0, mode);
            ply_bb_t capl = caps & (ply_bb_t)(PLY_FILE(from) ? ply_bb(from + up - 1) : 0);
            ply__emit_pawns(&g, capl, up - 1, PLY_MOVE_NORMAL, promo_rank, mode);
            ply__emit_pawns(&g, caps & ~capl, up + 1, PLY_MOVE_NORMAL, promo_rank, mode);
        }

        /* En passant: play it on the occupancy and look at the king, which
         * catches the pin along the rank that two vanishing pawns open. */
        if (b->ep != PLY_NO_SQ) {
            const int ep = b->ep, capsq = ep - up;
            ply_bb_t cands = ply__pawn_attacks[them][ep] & p[PLY_PAWN] & own;
            while (cands) {
                int from = ply_pop_lsb(&cands);
                ply_bb_t occ2 = (occ ^ ply_bb(from) ^ ply_bb(capsq)) | ply_bb(ep);
                if ((ply_rook_attacks(ksq, occ2) & enemy_rq) ||
                    (ply_bishop_attacks(ksq, occ2) & enemy_bq))
                    continue;
                /* A knight or another pawn giving check is not answered by it. */
                if (checkers & ~ply_bb(capsq) & (p[PLY_KNIGHT] | p[PLY_PAWN])) continue;
                ply__emit(&g, PLY_MOVE(from, ep, PLY_MOVE_EP, PLY_PAWN), mode);
            }
        }
    }

    /* Knights: a pinned knight can never move. */
    {
        ply_bb_t knights = p[PLY_KNIGHT] & movable & ~pinned;
        while (knights) {
            int from = ply_pop_lsb(&knights);
            ply__emit_set(&g, from, ply__knight_attacks[from] & target, PLY_MOVE_NORMAL, PLY_KNIGHT,
                          mode);
        }
    }

    /* Sliders: the free ones, then the pinned ones along their pin lines. */
    for (int piece = PLY_BISHOP; piece <= PLY_QUEEN; piece++) {
        for (ply_bb_t set = p[piece] & movable & ~pinned; set;) {
            int from = ply_pop_lsb(&set);
            ply_bb_t att = piece == PLY_BISHOP ? ply_bishop_attacks(from, occ)
                           : piece == PLY_ROOK ? ply_rook_attacks(from, occ)
                                               : ply_queen_attacks(from, occ);
            ply__emit_set(&g, from, att & target, PLY_MOVE_NORMAL, piece, mode);
        }
        for (ply_bb_t set = p[piece] & movable & pinned; set;) {
            int from = ply_pop_lsb(&set);
            ply_bb_t att = piece == PLY_BISHOP ? ply_bishop_attacks(from, occ)
                           : piece == PLY_ROOK ? ply_rook_attacks(from, occ)
                                               : ply_queen_attacks(from, occ);
            ply__emit_set(&g, from, att & target & ply__line[ksq][from], PLY_MOVE_NORMAL, piece,
                          mode);
        }
    }

    /* Castling, standard and Chess960 alike (ply__castle_ok). */
    if (!noisy && !checkers && (b->castling & (us == PLY_WHITE ? 3 : 12))) {
        for (int side = 0; side < 2; side++) {
            const int right = us * 2 + side;
            if ((b->castling & (1 << right)) &&
                ply__castle_ok(b, us, right, ksq, occ, enemy_bq, enemy_rq))
                ply__emit(&g, PLY_MOVE(ksq, b->castle_rook[right], PLY_MOVE_CASTLE, PLY_KING),
                          mode);
        }
    }
    return mode == PLY__GEN_LIST || noisy ? (int)(g.out - out) : g.n;
}

/*
 * The counting kernel: perft(1) of a position, for one side to move (a
 * constant), with no move list and no per-move work at all. It is the
 * generator above with what only listing needs taken out, and the shape
 * chosen for the hot loop of perft (three quarters of its time):
 *  - checkers and pins from one pair of x-ray lookups from the king;
 *  - king moves: each free square tested on its own (king lifted off the
 *    board); one map of every enemy attack measured slower, since it costs
 *    a lookup per enemy slider where the king mostly has 0-2 squares;
 *  - sliders by line kind rather than by piece: bishops and queens with the
 *    diagonal lookup, rooks and queens with the orthogonal one, so a queen
 *    is two lookups and there is no piece-kind dispatch; a pinned slider
 *    keeps the part of its attacks on its pin line (a queen pinned on a
 *    diagonal has no orthogonal move on that line, and vice versa);
 *  - castling: the enemy's leapers tested against the whole king path with
 *    one mask each, sliders looked up only when one stands on a ray of the
 *    path (ply__castle_ok);
 *  - in perft(2), pins, king squares and castling come from the parent when
 *    it could judge them for this child (ply__child_hints): most moves touch
 *    none of the squares they rest on.
 * With @any (a constant) it stops at the first group of moves (king,
 * pawns, knights) that has one: a nonzero result then only says that there
 * is a legal move (ply__has_move).
 * Must count exactly what ply__generate_side lists (tests/unit/test_board.c
 * compares the two; every perft suite checks the counts).
 */
static PLY__INLINE int ply__count_side(const ply_board_t *b, const int us, const ply__hints_t *h,
                                       unsigned valid, const int any)
{
    const int them = us ^ 1, ksq = b->king[us];
    const ply_bb_t *p = b->pieces;
    const ply_bb_t own = b->colour[us], enemy = b->colour[them], occ = own | enemy;
    const ply_bb_t enemy_rq = enemy & (p[PLY_ROOK] | p[PLY_QUEEN]);
    const ply_bb_t enemy_bq = enemy & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    ply_bb_t pinned;
    const ply_bb_t checkers =
        ply__checkers_pins_hinted(b, us, ksq, occ, enemy_bq, enemy_rq, h, valid, &pinned);
    int n = 0;

    if (valid & PLY__HINT_KING) {
        n = ply_popcount(h->king_safe);
    } else {
        const ply_bb_t to = ply__king_attacks[ksq] & ~own, occ_no_king = occ ^ ply_bb(ksq);
        for (ply_bb_t t = to; t;)
            n += !ply__attacked(b, ply_pop_lsb(&t), them, enemy, enemy_bq, enemy_rq, occ_no_king);
    }
    if (ply_more_than_one(checkers) || (any && n)) return n;

    const ply_bb_t check_mask =
        checkers ? (ply__between[ksq][ply_lsb(checkers)] | checkers) : ~0ull;
    const ply_bb_t target = ~own & check_mask;
    const ply_bb_t movable = checkers ? own & ~pinned : own;

    /* Pawns: every pawn move to the last rank counts four times. */
    {
        const ply_bb_t promo_rank = us == PLY_WHITE ? PLY_BB_RANK_8 : PLY_BB_RANK_1;
        const ply_bb_t third = us == PLY_WHITE ? PLY_BB_RANK_3 : PLY_BB_RANK_6;
        const ply_bb_t pawns = p[PLY_PAWN] & movable;
        const ply_bb_t free = pawns & ~pinned;
        const ply_bb_t empty = ~occ;
        ply_bb_t push1 = ply__pawn_push(free, us) & empty;
        const ply_bb_t push2 = ply__pawn_push(push1 & third, us) & empty & check_mask;
        push1 &= check_mask;
        const ply_bb_t west =
            (us == PLY_WHITE ? ply_shift_nw(free) : ply_shift_sw(free)) & enemy & check_mask;
        const ply_bb_t east =
            (us == PLY_WHITE ? ply_shift_ne(free) : ply_shift_se(free)) & enemy & check_mask;
        n += ply_popcount(push1) + ply_popcount(push2) + ply_popcount(west) + ply_popcount(east);
        if ((push1 | west | east) & promo_rank)
            n += 3 * (ply_popcount(push1 & promo_rank) + ply_popcount(west & promo_rank) +
                      ply_popcount(east & promo_rank));

        for (ply_bb_t pin_pawns = pawns & pinned; pin_pawns;) {
            const int from = ply_pop_lsb(&pin_pawns);
            const ply_bb_t line = ply__line[ksq][from];
            const ply_bb_t one = ply__pawn_push(ply_bb(from), us) & empty & line;
            const ply_bb_t two = ply__pawn_push(one & third, us) & empty;
            const ply_bb_t caps = ply__pawn_attacks[us][from] & enemy & line;
            n += ply_popcount(one) + ply_popcount(two) + ply_popcount(caps);
            n += 3 * ply_popcount((one | caps) & promo_rank);
        }

        if (b->ep != PLY_NO_SQ) {
            const int ep = b->ep, capsq = ep - (us == PLY_WHITE ? 8 : -8);
            ply_bb_t cands = ply__pawn_attacks[them][ep] & p[PLY_PAWN] & own;
            while (cands) {
                const int from = ply_pop_lsb(&cands);
                const ply_bb_t occ2 = (occ ^ ply_bb(from) ^ ply_bb(capsq)) | ply_bb(ep);
                if ((ply_rook_attacks(ksq, occ2) & enemy_rq) ||
                    (ply_bishop_attacks(ksq, occ2) & enemy_bq))
                    continue;
                if (checkers & ~ply_bb(capsq) & (p[PLY_KNIGHT] | p[PLY_PAWN])) continue;
                n++;
            }
        }
    }
    if (any && n) return n;

    for (ply_bb_t set = p[PLY_KNIGHT] & movable & ~pinned; set;)
        n += ply_popcount(ply__knight_attacks[ply_pop_lsb(&set)] & target);
    if (any && n) return n;

    {
        const ply_bb_t bq = own & (p[PLY_BISHOP] | p[PLY_QUEEN]) & movable;
        const ply_bb_t rq = own & (p[PLY_ROOK] | p[PLY_QUEEN]) & movable;
        for (ply_bb_t set = bq & ~pinned; set;)
            n += ply_popcount(ply_bishop_attacks(ply_pop_lsb(&set), occ) & target);
        for (ply_bb_t set = rq & ~pinned; set;)
            n += ply_popcount(ply_rook_attacks(ply_pop_lsb(&set), occ) & target);
        if (pinned & (bq | rq)) {
            for (ply_bb_t set = bq & pinned; set;) {
                const int from = ply_pop_lsb(&set);
                n += ply_popcount(ply_bishop_attacks(from, occ) & target & ply__line[ksq][from]);
            }
            for (ply_bb_t set = rq & pinned; set;) {
                const int from = ply_pop_lsb(&set);
                n += ply_popcount(ply_rook_attacks(from, occ) & target & ply__line[ksq][from]);
            }
        }
    }

    /* Castling, as in ply__generate_side (the king and rook are lifted), or
     * as the parent judged it. */
    if (!checkers && (b->castling & (us == PLY_WHITE ? 3 : 12))) {
        if (valid & PLY__HINT_CASTLE)
            return n + ply_popcount((ply_bb_t)(h->castle_ok & b->castling));
        for (int side = 0; side < 2; side++) {
            const int right = us * 2 + side;
            if (!(b->castling & (1 << right))) continue;
            n += ply__castle_ok(b, us, right, ksq, occ, enemy_bq, enemy_rq);
        }
    }
    return n;
}

/*
 * ply__generate - the generator for the side to move: each colour gets its
 * own instantiation, so pawn directions and ranks are constants.
 * @mode: a PLY__GEN_* mode: PLY__GEN_LIST writes the moves into @out (room
 * for PLY_MAX_MOVES) and returns their number (PLY__GEN_NOISY: those of them that
 * capture or promote, in the same order); PLY__GEN_COUNT returns the
 * number of legal moves (perft(1)); PLY__GEN_CHILDREN returns perft(2).
 */
static PLY__INLINE int ply__generate(const ply_board_t *b, ply_move_t *out, const int mode)
{
    if (mode == PLY__GEN_COUNT)
        return b->side == PLY_WHITE ? ply__count_side(b, PLY_WHITE, NULL, 0, 0)
                                    : ply__count_side(b, PLY_BLACK, NULL, 0, 0);
    return b->side == PLY_WHITE ? ply__generate_side(b, out, mode, PLY_WHITE)
                                : ply__generate_side(b, out, mode, PLY_BLACK);
}

static __attribute__((noinline, unused)) int ply__count_white(const ply_board_t *b,
                                                              const ply__hints_t *h, unsigned valid)
{
    return ply__count_side(b, PLY_WHITE, h, valid, 0);
}

static __attribute__((noinline, unused)) int ply__count_black(const ply_board_t *b,
                                                              const ply__hints_t *h, unsigned valid)
{
    return ply__count_side(b, PLY_BLACK, h, valid, 0);
}

static __attribute__((noinline, unused)) int
ply__count_white_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid)
{
    return ply__count_side(b, PLY_WHITE, h, valid | PLY__HINT_PINS | PLY__HINT_KING, 0);
}

static __attribute__((noinline, unused)) int
ply__count_black_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid)
{
    return ply__count_side(b, PLY_BLACK, h, valid | PLY__HINT_PINS | PLY__HINT_KING, 0);
}

/* 1 when the side to move in @b has a legal move, 0 when it has none (mate or
 * stalemate): the counting kernel, stopped at the first group of moves that
 * has one. */
static __attribute__((noinline, unused)) int ply__has_move(const ply_board_t *b)
{
    return (b->side == PLY_WHITE ? ply__count_side(b, PLY_WHITE, NULL, 0, 1)
                                 : ply__count_side(b, PLY_BLACK, NULL, 0, 1)) != 0;
}

/*
 * The statistics kernel: perft(1) of a position with its fifteen statistics
 * (util/stats.h), for one side to move (a constant). Built like
 * ply__count_side, in the same shape (checkers and pins from one x-ray pass,
 * the parent's verdicts when it gave them), but with sliders by piece (a
 * queen's check squares are both lines'), and with what the statistics need
 * on top, decided from what the generator already knows and kept off the
 * common path:
 *  - nodes and captures by popcount of each target set (& enemy);
 *  - which arrival squares give direct check, per piece kind (the enemy
 *    king's pawn, knight, bishop and rook squares with today's occupancy: a
 *    slider cannot unblock its own line, since its start square cannot lie
 *    between its target and the king without the king being in check
 *    already), and which own pieces discover a check by leaving their line
 *    to the enemy king (alone between it and an own slider). A normal move
 *    therefore gives check exactly when it lands on a check square or a
 *    discoverer leaves its line; it has one checker or, when both, two (a
 *    square lies on one line to the king, so one discoverer at most). A
 *    piece that discovers nothing (nearly all) gives only direct checks: one
 *    test of its target set against its check squares, and out of line
 *    (ply__stats_direct) only when it has some; the few discoverers and
 *    pinned pieces go through ply__stats_moves;
 *  - mate is tested only for the checking moves (ply__mate_after): first a
 *    square the enemy king can step to today and still after the move, then
 *    its squares on the bitboards the move leaves, and a single check
 *    without one is played and a reply looked for (ply__has_move);
 *  - castling gives check only by a slider (the rook, or one the king or
 *    rook uncovered): two lookups from the enemy king decide, and only a
 *    castling that checks is played;
 *  - promotions are counted as the other moves, with the new piece's check
 *    squares on the board the pawn left; only one that checks is played
 *    (ply__classify), and every en passant (it removes a second pawn): both
 *    are rare.
 * Must give what ply__classify gives for every legal move (the perft suites
 * check the statistics against the Grand Chess Tree's tables, and
 * tests/unit/test_differential.c against the rule engine).
 */

/* 1 when, after the normal move or double push @m of @b's side to move, the
 * enemy king has a square to step to: judged on the bitboards the move leaves
 * (the mover's piece set moved, the captured piece gone, the king lifted),
 * without playing it. A king in check never castles. */
static inline int ply__king_escapes_after(const ply_board_t *b, ply_move_t m)
{
    const int us = b->side, eksq = b->king[us ^ 1];
    const ply_bb_t moved = ply_bb(ply_move_from(m)) | ply_bb(ply_move_to(m));
    const ply_bb_t *p = b->pieces;
    const ply_bb_t own = b->colour[us] ^ moved;
    const ply_bb_t enemy = b->colour[us ^ 1] & ~ply_bb(ply_move_to(m));
    const ply_bb_t occ = (own | enemy) ^ ply_bb(eksq);
    ply_bb_t set[PLY_KING + 1];
    for (int t = PLY_PAWN; t <= PLY_KING; t++) set[t] = p[t] & b->colour[us];
    set[ply_move_piece(m)] ^= moved;
    const ply_bb_t bq = set[PLY_BISHOP] | set[PLY_QUEEN], rq = set[PLY_ROOK] | set[PLY_QUEEN];
    for (ply_bb_t t = ply__king_attacks[eksq] & ~enemy; t;) {
        const int sq = ply_pop_lsb(&t);
        if (!((ply__pawn_attacks[us ^ 1][sq] & set[PLY_PAWN]) |
              (ply__knight_attacks[sq] & set[PLY_KNIGHT]) |
              (ply__king_attacks[sq] & set[PLY_KING]) | (ply_bishop_attacks(sq, occ) & bq) |
              (ply_rook_attacks(sq, occ) & rq)))
            return 1;
    }
    return 0;
}

/* What the statistics kernel's rare paths share about one position. */
typedef struct ply__stats_gen {
    const ply_board_t *b;
    ply_stats_t *s;
    ply_bb_t disc;      /* own pieces that discover a check by leaving their line */
    ply_bb_t free, hit; /* the enemy king's squares found free, attacked today (king lifted) */
    int eksq;           /* the enemy king's square */
} ply__stats_gen_t;

/* The squares a pawn (of colour @us), knight or king @piece on @sq attacks;
 * none for a slider. Without a branch on @piece. */
static inline ply_bb_t ply__leaper_attacks(int piece, int us, int sq)
{
    return (ply__pawn_attacks[us][sq] & (0 - (ply_bb_t)(piece == PLY_PAWN))) |
           (ply__knight_attacks[sq] & (0 - (ply_bb_t)(piece == PLY_KNIGHT))) |
           (ply__king_attacks[sq] & (0 - (ply_bb_t)(piece == PLY_KING)));
}

/* 1 when, after the checking normal move or double push @m, the enemy king
 * surely has a square to step to. The move changes our attacks only by the
 * moved piece's attacks from its arrival square and by the lines of our
 * sliders through its start square, which it opens: a square outside both
 * (and not the arrival square, where the king would capture) that the king
 * can step to today (not its own pieces', attacked by none of ours with the
 * king lifted) is free after it. What is learnt of a square today is kept
 * for the position's other checks (g->free, g->hit). 0 says nothing: the
 * caller decides. */
static inline int ply__flight_after(ply__stats_gen_t *g, ply_move_t m)
{
    const ply_board_t *b = g->b;
    const int us = b->side, from = ply_move_from(m), to = ply_move_to(m);
    const ply_bb_t *p = b->pieces, own = b->colour[us], occ = own | b->colour[us ^ 1];
    const ply_bb_t own_bq = own & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    const ply_bb_t own_rq = own & (p[PLY_ROOK] | p[PLY_QUEEN]);
    ply_bb_t cand = ply__king_attacks[g->eksq] & ~b->colour[us ^ 1] & ~g->hit & ~ply_bb(to);
    if (ply__bishop_rays[from] & own_bq) cand &= ~ply__bishop_rays[from];
    if (ply__rook_rays[from] & own_rq) cand &= ~ply__rook_rays[from];
    if (!cand) return 0;
    /* The moved piece's attacks from its arrival square, without a branch
     * on its kind (which varies from call to call). */
    const int piece = ply_move_piece(m);
    const ply_bb_t occ_after = (occ ^ ply_bb(from) ^ ply_bb(g->eksq)) | ply_bb(to);
    const ply_bb_t diag = 0 - (ply_bb_t)(piece == PLY_BISHOP || piece == PLY_QUEEN);
    const ply_bb_t orth = 0 - (ply_bb_t)(piece == PLY_ROOK || piece == PLY_QUEEN);
    cand &= ~(ply__leaper_attacks(piece, us, to) | (ply_bishop_attacks(to, occ_after) & diag) |
              (ply_rook_attacks(to, occ_after) & orth));
    if (cand & g->free) return 1;
    const ply_bb_t occ_no_king = occ ^ ply_bb(g->eksq);
    while (cand) {
        const ply_bb_t sq = ply_bb(ply_pop_lsb(&cand));
        if (!ply__attacked(b, ply_lsb(sq), us, own, own_bq, own_rq, occ_no_king)) {
            g->free |= sq;
            return 1;
        }
        g->hit |= sq;
    }
    return 0;
}

/* 1 when the checking normal move or double push @m, giving @nchk checks,
 * mates: the enemy king has no square to step to (ply__flight_after, then
 * exactly: ply__king_escapes_after), and, for a single check, no other
 * reply when the move is played. */
static inline int ply__mate_after(ply__stats_gen_t *g, ply_move_t m, int nchk)
{
    if (ply__flight_after(g, m) || ply__king_escapes_after(g->b, m)) return 0;
    if (nchk > 1) return 1; /* only the king can answer a double check */
    ply_board_t child = *g->b;
    ply_board_play_nokey(&child, m);
    return !ply__has_move(&child);
}

/* Adds a checking normal move's leaf: @nchk checkers, @direct when the moved
 * piece is one of them. */
static __attribute__((noinline, unused)) void ply__stats_check(ply__stats_gen_t *g, ply_move_t m,
                                                               int nchk, int direct)
{
    const int mate = ply__mate_after(g, m, nchk);
    /* util/stats.h's order: direct, single discovered, direct discovered,
     * double discovered; the mates five counters after the checks. */
    const int kind = (nchk > 1 ? 2 : 0) + !direct;
    g->s->v[PLY_STAT_direct_checks + 5 * mate + kind]++;
    g->s->v[mate ? PLY_STAT_total_mates : PLY_STAT_total_checks]++;
}

/* The direct checks @to (not empty) of a @piece on @from that discovers
 * nothing: each a single direct check, or mate. Out of line: most target
 * sets have none. */
static __attribute__((noinline, unused)) void ply__stats_direct(ply__stats_gen_t *g, int from,
                                                                ply_bb_t to, int piece)
{
    do {
        const int mate =
            ply__mate_after(g, PLY_MOVE(from, ply_pop_lsb(&to), PLY_MOVE_NORMAL, piece), 1);
        g->s->v[mate ? PLY_STAT_direct_mates : PLY_STAT_direct_checks]++;
        g->s->v[mate ? PLY_STAT_total_mates : PLY_STAT_total_checks]++;
    } while (to);
}

/* The checking moves among @to, the normal moves of a @piece (not a pawn) on
 * @from that may discover a check or is pinned. Out of line: rare. */
static __attribute__((noinline, unused)) void ply__stats_moves(ply__stats_gen_t *g, int from,
                                                               ply_bb_t to, int piece)
{
    const ply_bb_t occ = ply_board_occ(g->b);
    ply_bb_t direct = 0;
    if (piece == PLY_KNIGHT) direct = ply__knight_attacks[g->eksq];
    if (piece == PLY_BISHOP || piece == PLY_QUEEN) direct |= ply_bishop_attacks(g->eksq, occ);
    if (piece == PLY_ROOK || piece == PLY_QUEEN) direct |= ply_rook_attacks(g->eksq, occ);
    const ply_bb_t discover = g->disc & ply_bb(from) ? ~ply__line[g->eksq][from] : 0;
    for (ply_bb_t c = to & (direct | discover); c;) {
        const ply_bb_t sq = ply_bb(ply_pop_lsb(&c));
        ply__stats_check(g, PLY_MOVE(from, ply_lsb(sq), PLY_MOVE_NORMAL, piece),
                         !!(direct & sq) + !!(discover & sq), !!(direct & sq));
    }
}

/* The checking moves among @to, pawn moves each from to - @delta; @chk: the
 * squares where a pawn gives check. */
static PLY__INLINE void ply__stats_pawns(ply__stats_gen_t *g, ply_bb_t to, int delta, int kind,
                                         ply_bb_t chk)
{
    const ply_bb_t from_disc = delta > 0 ? g->disc << delta : g->disc >> -delta;
    for (ply_bb_t c = to & (chk | from_disc); c;) {
        const int sq = ply_pop_lsb(&c), from = sq - delta;
        const int direct = (chk & ply_bb(sq)) != 0;
        const int discover = (g->disc & ply_bb(from)) && !(ply__line[g->eksq][from] & ply_bb(sq));
        if (direct || discover)
            ply__stats_check(g, PLY_MOVE(from, sq, kind, PLY_PAWN), direct + discover, direct);
    }
}

/* Promotions to @to (each from to - @delta): four leaves each. The new
 * piece checks from its square on the board the pawn left (the pawn's start
 * square may have blocked its line), or the pawn discovers a check; only a
 * promotion that checks is played (ply__classify), to classify it and test
 * mate. Out of line: rare. */
static __attribute__((noinline, unused)) void ply__stats_promos(ply__stats_gen_t *g, ply_bb_t to,
                                                                int delta)
{
    const ply_board_t *b = g->b;
    const ply_bb_t enemy = b->colour[b->side ^ 1], occ = b->colour[b->side] | enemy;
    uint64_t *v = g->s->v;
    while (to) {
        const int sq = ply_pop_lsb(&to), from = sq - delta;
        const ply_bb_t occ_after = occ ^ ply_bb(from);
        const int discover = (g->disc & ply_bb(from)) && !(ply__line[g->eksq][from] & ply_bb(sq));
        const int diag = (ply_bishop_attacks(g->eksq, occ_after) & ply_bb(sq)) != 0;
        const int orth = (ply_rook_attacks(g->eksq, occ_after) & ply_bb(sq)) != 0;
        const int checks[4] = {
            [PLY_MOVE_PROMO_N - PLY_MOVE_PROMO_N] = (ply__knight_attacks[g->eksq] >> sq) & 1,
            [PLY_MOVE_PROMO_B - PLY_MOVE_PROMO_N] = diag,
            [PLY_MOVE_PROMO_R - PLY_MOVE_PROMO_N] = orth,
            [PLY_MOVE_PROMO_Q - PLY_MOVE_PROMO_N] = diag | orth,
        };
        for (int k = PLY_MOVE_PROMO_N; k <= PLY_MOVE_PROMO_Q; k++) {
            if (discover || checks[k - PLY_MOVE_PROMO_N]) {
                ply__classify(b, PLY_MOVE(from, sq, k, PLY_PAWN), g->s);
            } else {
                v[PLY_STAT_nodes]++;
                v[PLY_STAT_promotions]++;
                v[PLY_STAT_captures] += (enemy >> sq) & 1;
            }
        }
    }
}

static PLY__INLINE void ply__stats_side(const ply_board_t *b, const int us, const ply__hints_t *h,
                                        unsigned valid, ply_stats_t *s)
{
    const int them = us ^ 1, ksq = b->king[us], eksq = b->king[them];
    const ply_bb_t *p = b->pieces;
    const ply_bb_t own = b->colour[us], enemy = b->colour[them], occ = own | enemy;
    const ply_bb_t enemy_rq = enemy & (p[PLY_ROOK] | p[PLY_QUEEN]);
    const ply_bb_t enemy_bq = enemy & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    ply_bb_t pinned;
    const ply_bb_t checkers =
        ply__checkers_pins_hinted(b, us, ksq, occ, enemy_bq, enemy_rq, h, valid, &pinned);

    /* Check squares and discoverers, as seen from the enemy king. */
    const ply_bb_t own_rq = own & (p[PLY_ROOK] | p[PLY_QUEEN]);
    const ply_bb_t own_bq = own & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    const ply_bb_t chk_p = ply__pawn_attacks[them][eksq], chk_n = ply__knight_attacks[eksq];
    const ply_bb_t chk_b = ply_bishop_attacks(eksq, occ), chk_r = ply_rook_attacks(eksq, occ);
    ply__stats_gen_t g;
    g.b = b;
    g.s = s;
    g.eksq = eksq;
    g.free = g.hit = 0;
    g.disc = 0;
    for (ply_bb_t snipers = (ply__rook_rays[eksq] & own_rq) | (ply__bishop_rays[eksq] & own_bq);
         snipers;) {
        const ply_bb_t between = ply__between[eksq][ply_pop_lsb(&snipers)] & occ;
        if (between && !ply_more_than_one(between) && (between & own)) g.disc |= between;
    }
    uint64_t nodes, caps;

    {
        ply_bb_t safe = 0;
        if (valid & PLY__HINT_KING) {
            safe = h->king_safe;
        } else {
            const ply_bb_t occ_no_king = occ ^ ply_bb(ksq);
            for (ply_bb_t t = ply__king_attacks[ksq] & ~own; t;) {
                const int sq = ply_pop_lsb(&t);
                if (!ply__attacked(b, sq, them, enemy, enemy_bq, enemy_rq, occ_no_king))
                    safe |= ply_bb(sq);
            }
        }
        nodes = (uint64_t)ply_popcount(safe);
        caps = (uint64_t)ply_popcount(safe & enemy);
        if (g.disc & ply_bb(ksq)) ply__stats_moves(&g, ksq, safe, PLY_KING);
    }
    if (!ply_more_than_one(checkers)) {
        const ply_bb_t check_mask =
            checkers ? (ply__between[ksq][ply_lsb(checkers)] | checkers) : ~0ull;
        const ply_bb_t target = ~own & check_mask;
        const ply_bb_t movable = checkers ? own & ~pinned : own;

        /* Pawns: promotions apart (classified), then the rest by set. */
        {
            const int up = us == PLY_WHITE ? 8 : -8;
            const int west_d = us == PLY_WHITE ? 7 : -9, east_d = us == PLY_WHITE ? 9 : -7;
            const ply_bb_t promo_rank = us == PLY_WHITE ? PLY_BB_RANK_8 : PLY_BB_RANK_1;
            const ply_bb_t third = us == PLY_WHITE ? PLY_BB_RANK_3 : PLY_BB_RANK_6;
            const ply_bb_t pawns = p[PLY_PAWN] & movable;
            const ply_bb_t free = pawns & ~pinned;
            const ply_bb_t empty = ~occ;
            ply_bb_t push1 = ply__pawn_push(free, us) & empty;
            const ply_bb_t push2 = ply__pawn_push(push1 & third, us) & empty & check_mask;
            push1 &= check_mask;
            ply_bb_t west =
                (us == PLY_WHITE ? ply_shift_nw(free) : ply_shift_sw(free)) & enemy & check_mask;
            ply_bb_t east =
                (us == PLY_WHITE ? ply_shift_ne(free) : ply_shift_se(free)) & enemy & check_mask;
            if ((push1 | west | east) & promo_rank) {
                ply__stats_promos(&g, push1 & promo_rank, up);
                ply__stats_promos(&g, west & promo_rank, west_d);
                ply__stats_promos(&g, east & promo_rank, east_d);
                push1 &= ~promo_rank;
                west &= ~promo_rank;
                east &= ~promo_rank;
            }
            nodes += (uint64_t)(ply_popcount(push1) + ply_popcount(push2) + ply_popcount(west) +
                                ply_popcount(east));
            caps += (uint64_t)(ply_popcount(west) + ply_popcount(east));
            if (((push1 | push2 | west | east) & chk_p) || (g.disc & free)) {
                ply__stats_pawns(&g, push1, up, PLY_MOVE_NORMAL, chk_p);
                ply__stats_pawns(&g, push2, 2 * up, PLY_MOVE_DOUBLE, chk_p);
                ply__stats_pawns(&g, west, west_d, PLY_MOVE_NORMAL, chk_p);
                ply__stats_pawns(&g, east, east_d, PLY_MOVE_NORMAL, chk_p);
            }

            for (ply_bb_t pin_pawns = pawns & pinned; pin_pawns;) {
                const int from = ply_pop_lsb(&pin_pawns);
                const ply_bb_t line = ply__line[ksq][from];
                ply_bb_t one = ply__pawn_push(ply_bb(from), us) & empty & line;
                const ply_bb_t two = ply__pawn_push(one & third, us) & empty;
                ply_bb_t caps_to = ply__pawn_attacks[us][from] & enemy & line;
                if ((one | caps_to) & promo_rank) {
                    ply__stats_promos(&g, one & promo_rank, up);
                    /* at most one capture on the pin line: its delta from the squares */
                    if (caps_to & promo_rank)
                        ply__stats_promos(&g, caps_to, ply_lsb(caps_to) - from);
                    one &= ~promo_rank;
                    caps_to = 0;
                }
                nodes += (uint64_t)(ply_popcount(one) + ply_popcount(two) + ply_popcount(caps_to));
                caps += (uint64_t)ply_popcount(caps_to);
                ply__stats_pawns(&g, one, up, PLY_MOVE_NORMAL, chk_p);
                ply__stats_pawns(&g, two, 2 * up, PLY_MOVE_DOUBLE, chk_p);
                if (caps_to)
                    ply__stats_pawns(&g, caps_to, ply_lsb(caps_to) - from, PLY_MOVE_NORMAL, chk_p);
            }

            if (b->ep != PLY_NO_SQ) {
                const int ep = b->ep, capsq = ep - up;
                ply_bb_t cands = ply__pawn_attacks[them][ep] & p[PLY_PAWN] & own;
                while (cands) {
                    const int from = ply_pop_lsb(&cands);
                    const ply_bb_t occ2 = (occ ^ ply_bb(from) ^ ply_bb(capsq)) | ply_bb(ep);
                    if ((ply_rook_attacks(ksq, occ2) & enemy_rq) ||
                        (ply_bishop_attacks(ksq, occ2) & enemy_bq))
                        continue;
                    if (checkers & ~ply_bb(capsq) & (p[PLY_KNIGHT] | p[PLY_PAWN])) continue;
                    ply__classify(b, PLY_MOVE(from, ep, PLY_MOVE_EP, PLY_PAWN), s);
                }
            }
        }

        /* Knights: a pinned knight never moves; a discovering one checks
         * with every move (none stays on a line through its square). */
        {
            const ply_bb_t knights = p[PLY_KNIGHT] & movable & ~pinned;
            for (ply_bb_t set = knights & ~g.disc; set;) {
                const int from = ply_pop_lsb(&set);
                const ply_bb_t to = ply__knight_attacks[from] & target;
                nodes += (uint64_t)ply_popcount(to);
                caps += (uint64_t)ply_popcount(to & enemy);
                if (to & chk_n) ply__stats_direct(&g, from, to & chk_n, PLY_KNIGHT);
            }
            for (ply_bb_t set = knights & g.disc; set;) {
                const int from = ply_pop_lsb(&set);
                const ply_bb_t to = ply__knight_attacks[from] & target;
                nodes += (uint64_t)ply_popcount(to);
                caps += (uint64_t)ply_popcount(to & enemy);
                ply__stats_moves(&g, from, to, PLY_KNIGHT);
            }
        }

        /* Sliders that are neither pinned nor discoverers, by piece: a
         * queen's moves check on the squares of both lines. */
        {
            const ply_bb_t bq = own_bq & movable, rq = own_rq & movable;
            const ply_bb_t rare = pinned | g.disc;
            for (ply_bb_t set = bq & ~p[PLY_QUEEN] & ~rare; set;) {
                const int from = ply_pop_lsb(&set);
                const ply_bb_t to = ply_bishop_attacks(from, occ) & target;
                nodes += (uint64_t)ply_popcount(to);
                caps += (uint64_t)ply_popcount(to & enemy);
                if (to & chk_b) ply__stats_direct(&g, from, to & chk_b, PLY_BISHOP);
            }
            for (ply_bb_t set = rq & ~p[PLY_QUEEN] & ~rare; set;) {
                const int from = ply_pop_lsb(&set);
                const ply_bb_t to = ply_rook_attacks(from, occ) & target;
                nodes += (uint64_t)ply_popcount(to);
                caps += (uint64_t)ply_popcount(to & enemy);
                if (to & chk_r) ply__stats_direct(&g, from, to & chk_r, PLY_ROOK);
            }
            for (ply_bb_t set = bq & rq & ~rare; set;) {
                const int from = ply_pop_lsb(&set);
                const ply_bb_t to = ply_queen_attacks(from, occ) & target;
                nodes += (uint64_t)ply_popcount(to);
                caps += (uint64_t)ply_popcount(to & enemy);
                if (to & (chk_b | chk_r))
                    ply__stats_direct(&g, from, to & (chk_b | chk_r), PLY_QUEEN);
            }
            /* The pinned (along their pin line) and the discoverers, by piece. */
            for (ply_bb_t set = (bq | rq) & rare; set;) {
                const int from = ply_pop_lsb(&set);
                const int piece = (p[PLY_QUEEN] >> from) & 1    ? PLY_QUEEN
                                  : (p[PLY_BISHOP] >> from) & 1 ? PLY_BISHOP
                                                                : PLY_ROOK;
                ply_bb_t to = piece == PLY_BISHOP ? ply_bishop_attacks(from, occ)
                              : piece == PLY_ROOK ? ply_rook_attacks(from, occ)
                                                  : ply_queen_attacks(from, occ);
                to &= target;
                if (pinned & ply_bb(from)) to &= ply__line[ksq][from];
                nodes += (uint64_t)ply_popcount(to);
                caps += (uint64_t)ply_popcount(to & enemy);
                ply__stats_moves(&g, from, to, piece);
            }
        }

        if (!checkers && (b->castling & (us == PLY_WHITE ? 3 : 12))) {
            for (int side = 0; side < 2; side++) {
                const int right = us * 2 + side;
                if (!(b->castling & (1 << right))) continue;
                const int rsq = b->castle_rook[right];
                if ((valid & PLY__HINT_CASTLE)
                        ? !(h->castle_ok & (1 << right))
                        : !ply__castle_ok(b, us, right, ksq, occ, enemy_bq, enemy_rq))
                    continue;
                /* Only a slider can check after castling (the rook, or one the
                 * king or rook uncovered): without one, it is counted here. */
                const int rto = PLY_SQ(rsq > ksq ? 5 : 3, PLY_RANK(ksq));
                const int kto = PLY_SQ(rsq > ksq ? 6 : 2, PLY_RANK(ksq));
                const ply_bb_t occ3 = (occ ^ ply_bb(ksq) ^ ply_bb(rsq)) | ply_bb(kto) | ply_bb(rto);
                const ply_bb_t rq3 = (own_rq ^ ply_bb(rsq)) | ply_bb(rto);
                if ((ply_rook_attacks(eksq, occ3) & rq3) ||
                    ((ply__bishop_rays[eksq] & own_bq) &&
                     (ply_bishop_attacks(eksq, occ3) & own_bq))) {
                    ply__classify(b, PLY_MOVE(ksq, rsq, PLY_MOVE_CASTLE, PLY_KING), s);
                } else {
                    nodes++;
                    s->v[PLY_STAT_castles]++;
                }
            }
        }
    }
    s->v[PLY_STAT_nodes] += nodes;
    s->v[PLY_STAT_captures] += caps;
}

static __attribute__((noinline, unused)) void
ply__stats_white(const ply_board_t *b, const ply__hints_t *h, unsigned valid, ply_stats_t *s)
{
    ply__stats_side(b, PLY_WHITE, h, valid, s);
}

static __attribute__((noinline, unused)) void
ply__stats_black(const ply_board_t *b, const ply__hints_t *h, unsigned valid, ply_stats_t *s)
{
    ply__stats_side(b, PLY_BLACK, h, valid, s);
}

static __attribute__((noinline, unused)) void
ply__stats_white_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid, ply_stats_t *s)
{
    ply__stats_side(b, PLY_WHITE, h, valid | PLY__HINT_PINS | PLY__HINT_KING, s);
}

static __attribute__((noinline, unused)) void
ply__stats_black_hinted(const ply_board_t *b, const ply__hints_t *h, unsigned valid, ply_stats_t *s)
{
    ply__stats_side(b, PLY_BLACK, h, valid | PLY__HINT_PINS | PLY__HINT_KING, s);
}

/*
 * ply__generate_stats - adds the statistics of perft(@depth) of @b, depth 1
 * or 2 (one leaf per legal move, or per reply to each; definitions in
 * util/stats.h), to *@s.
 */
static PLY__INLINE void ply__generate_stats(const ply_board_t *b, int depth, ply_stats_t *s)
{
    if (depth == 2)
        ply__generate(b, (ply_move_t *)s, PLY__GEN_STATS);
    else if (b->side == PLY_WHITE)
        ply__stats_white(b, NULL, 0, s);
    else
        ply__stats_black(b, NULL, 0, s);
}

static __attribute__((noinline, unused)) void ply__classify(const ply_board_t *b, ply_move_t m,
                                                            ply_stats_t *s)
{
    const int kind = ply_move_kind(m), from = ply_move_from(m), to = ply_move_to(m);
    s->v[PLY_STAT_nodes]++;
    if (kind == PLY_MOVE_EP) {
        s->v[PLY_STAT_captures]++;
        s->v[PLY_STAT_enpassants]++;
    } else if (kind != PLY_MOVE_CASTLE && (b->colour[b->side ^ 1] & ply_bb(to))) {
        s->v[PLY_STAT_captures]++;
    }
    if (kind == PLY_MOVE_CASTLE) s->v[PLY_STAT_castles]++;
    if (ply_move_is_promo(m)) s->v[PLY_STAT_promotions]++;

    ply_board_t child = *b;
    ply_board_play_nokey(&child, m);
    const ply_bb_t checkers = ply_board_checkers(&child);
    if (!checkers) return;
    /* The moved piece's arrival square; for castling, the rook's. */
    const int arrival = kind == PLY_MOVE_CASTLE ? PLY_SQ(to > from ? 5 : 3, PLY_RANK(from)) : to;
    const int mate = !ply__has_move(&child);
    s->v[ply_stats_check_kind(ply_more_than_one(checkers) ? 2 : 1,
                              (checkers & ply_bb(arrival)) != 0, mate)]++;
    s->v[mate ? PLY_STAT_total_mates : PLY_STAT_total_checks]++;
}

#endif
