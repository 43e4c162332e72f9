/*
 * Legal move generation (see movegen.h). The body is written once, as
 * generate(), with a compile-time flag: when counting, every "emit" is a
 * popcount of a target set; when listing, it writes moves. The two public
 * functions are the two instantiations.
 *
 * Shape of the work per position: checkers and pinned pieces first (one
 * x-ray lookup from the king), then per piece kind a target set
 * masked by "not own pieces", "on the checking line" (single check) and
 * "on the pin line" (pinned pieces). Double check skips straight to the
 * king.
 */
#include "board/movegen.h"

#include <string.h>

#include "util/error.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef struct gen {
    ply_move_t *out; /* next free slot (listing only) */
    int n;           /* moves counted (counting only) */
} gen_t;

static ALWAYS_INLINE void emit_set(gen_t *g, int from, ply_bb_t to, int kind, int piece,
                                   const int count)
{
    if (count) {
        g->n += ply_popcount(to);
        return;
    }
    while (to) *g->out++ = PLY_MOVE(from, ply_pop_lsb(&to), kind, piece);
}

/* Pawn moves to a set of squares, each from to - delta; promotions when the
 * targets are on the last rank (each counts four times). */
static ALWAYS_INLINE void emit_pawns(gen_t *g, ply_bb_t to, int delta, int kind, ply_bb_t promo_rank,
                                     const int count)
{
    ply_bb_t promo = to & promo_rank;
    to &= ~promo_rank;
    if (count) {
        g->n += ply_popcount(to) + 4 * ply_popcount(promo);
        return;
    }
    while (to) {
        int sq = ply_pop_lsb(&to);
        *g->out++ = PLY_MOVE(sq - delta, sq, kind, PLY_PAWN);
    }
    while (promo) {
        int sq = ply_pop_lsb(&promo);
        for (int k = PLY_MOVE_PROMO_Q; k >= PLY_MOVE_PROMO_N; k--)
            *g->out++ = PLY_MOVE(sq - delta, sq, k, PLY_PAWN);
    }
}

static ALWAYS_INLINE ply_bb_t pawn_push(ply_bb_t b, int us) { return us == PLY_WHITE ? b << 8 : b >> 8; }

static ALWAYS_INLINE int generate(const ply_board_t *b, ply_move_t *out, const int count)
{
    gen_t g = {out, 0};
    const int us = b->side, them = us ^ 1, ksq = b->king[us];
    const ply_bb_t own = b->colour[us], enemy = b->colour[them], occ = own | enemy;
    const ply_bb_t *p = b->pieces;
    const ply_bb_t enemy_rq = enemy & (p[PLY_ROOK] | p[PLY_QUEEN]);
    const ply_bb_t enemy_bq = enemy & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    const ply_bb_t checkers = ply_board_attackers(b, ksq, them, occ);

    /* King moves: the king must not step onto an attacked square, judged
     * with the king off the board so that it cannot hide behind itself. */
    {
        ply_bb_t to = ply__king_attacks[ksq] & ~own;
        const ply_bb_t occ_no_king = occ ^ ply_bb(ksq);
        while (to) {
            int sq = ply_pop_lsb(&to);
            if (ply_board_attackers(b, sq, them, occ_no_king)) continue;
            if (count)
                g.n++;
            else
                *g.out++ = PLY_MOVE(ksq, sq, PLY_MOVE_NORMAL, PLY_KING);
        }
    }
    if (ply_more_than_one(checkers)) return count ? g.n : (int)(g.out - out);

    /* Pinned pieces: own pieces alone between the king and an enemy slider. */
    ply_bb_t pinned = 0;
    {
        ply_bb_t snipers = (ply_rook_attacks(ksq, enemy) & enemy_rq) |
                           (ply_bishop_attacks(ksq, enemy) & enemy_bq);
        while (snipers) {
            ply_bb_t between = ply__between[ksq][ply_pop_lsb(&snipers)] & occ;
            if (between && !ply_more_than_one(between)) pinned |= between;
        }
    }

    /* Non-king moves must capture the checker or block its line. */
    const ply_bb_t check_mask = checkers ? (ply__between[ksq][ply_lsb(checkers)] | checkers) : ~0ull;
    const ply_bb_t target = ~own & check_mask;
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

        ply_bb_t push1 = pawn_push(free, us) & empty;
        ply_bb_t push2 = pawn_push(push1 & third, us) & empty & check_mask;
        push1 &= check_mask;
        /* West captures (toward the a-file) and east captures. */
        ply_bb_t west = (us == PLY_WHITE ? (free & ~PLY_BB_FILE_A) << 7 : (free & ~PLY_BB_FILE_A) >> 9);
        ply_bb_t east = (us == PLY_WHITE ? (free & ~PLY_BB_FILE_H) << 9 : (free & ~PLY_BB_FILE_H) >> 7);
        west &= enemy & check_mask;
        east &= enemy & check_mask;
        emit_pawns(&g, push1, up, PLY_MOVE_NORMAL, promo_rank, count);
        emit_pawns(&g, push2, 2 * up, PLY_MOVE_DOUBLE, 0, count);
        emit_pawns(&g, west, up - 1, PLY_MOVE_NORMAL, promo_rank, count);
        emit_pawns(&g, east, up + 1, PLY_MOVE_NORMAL, promo_rank, count);

        /* Pinned pawns (never in check here): only along the pin line. */
        ply_bb_t pin_pawns = pawns & pinned;
        while (pin_pawns) {
            int from = ply_pop_lsb(&pin_pawns);
            ply_bb_t line = ply__line[ksq][from];
            ply_bb_t one = pawn_push(ply_bb(from), us) & empty & line;
            ply_bb_t two = pawn_push(one & third, us) & empty;
            ply_bb_t caps = ply__pawn_attacks[us][from] & enemy & line;
            emit_pawns(&g, one, up, PLY_MOVE_NORMAL, promo_rank, count);
            emit_pawns(&g, two, 2 * up, PLY_MOVE_DOUBLE, 0, count);
            ply_bb_t capl = caps & (ply_bb_t)(PLY_FILE(from) ? ply_bb(from + up - 1) : 0);
            emit_pawns(&g, capl, up - 1, PLY_MOVE_NORMAL, promo_rank, count);
            emit_pawns(&g, caps & ~capl, up + 1, PLY_MOVE_NORMAL, promo_rank, count);
        }

        /* En passant: play it on the occupancy and look at the king, which
         * catches the pin along the rank that two vanishing pawns open. */
        if (b->ep != PLY_NO_SQ) {
            const int ep = b->ep, capsq = ep - up;
            ply_bb_t cands = ply__pawn_attacks[them][ep] & p[PLY_PAWN] & own;
            while (cands) {
                int from = ply_pop_lsb(&cands);
                ply_bb_t occ2 = (occ ^ ply_bb(from) ^ ply_bb(capsq)) | ply_bb(ep);
                if ((ply_rook_attacks(ksq, occ2) & enemy_rq) || (ply_bishop_attacks(ksq, occ2) & enemy_bq))
                    continue;
                /* A knight or another pawn giving check is not answered by it. */
                if (checkers & ~ply_bb(capsq) & (p[PLY_KNIGHT] | p[PLY_PAWN])) continue;
                if (count)
                    g.n++;
                else
                    *g.out++ = PLY_MOVE(from, ep, PLY_MOVE_EP, PLY_PAWN);
            }
        }
    }

    /* Knights: a pinned knight can never move. */
    {
        ply_bb_t knights = p[PLY_KNIGHT] & movable & ~pinned;
        while (knights) {
            int from = ply_pop_lsb(&knights);
            emit_set(&g, from, ply__knight_attacks[from] & target, PLY_MOVE_NORMAL, PLY_KNIGHT, count);
        }
    }

    /* Sliders. */
    for (int piece = PLY_BISHOP; piece <= PLY_QUEEN; piece++) {
        ply_bb_t set = p[piece] & movable;
        while (set) {
            int from = ply_pop_lsb(&set);
            ply_bb_t att = piece == PLY_BISHOP ? ply_bishop_attacks(from, occ)
                           : piece == PLY_ROOK ? ply_rook_attacks(from, occ)
                                               : ply_queen_attacks(from, occ);
            att &= target;
            if (pinned & ply_bb(from)) att &= ply__line[ksq][from];
            emit_set(&g, from, att, PLY_MOVE_NORMAL, piece, count);
        }
    }

    /* Castling, standard and Chess960 alike: king and rook go to the g/f or
     * c/d squares; everything they cross must be empty but for themselves,
     * and no square the king crosses or lands on may be attacked, judged
     * with king and rook lifted (RULES.md art. 3.8). */
    if (!checkers && (b->castling & (us == PLY_WHITE ? 3 : 12))) {
        const int rank = us == PLY_WHITE ? 0 : 56;
        for (int side = 0; side < 2; side++) {
            const int right = us * 2 + side;
            if (!(b->castling & (1 << right))) continue;
            const int rsq = b->castle_rook[right];
            const int kto = rank + (side == 0 ? 6 : 2), rto = rank + (side == 0 ? 5 : 3);
            const ply_bb_t lifted = ply_bb(ksq) | ply_bb(rsq);
            const ply_bb_t kpath = ply__between[ksq][kto] | ply_bb(kto);
            const ply_bb_t need_empty = (kpath | ply__between[rsq][rto] | ply_bb(rto)) & ~lifted;
            if (occ & need_empty) continue;
            const ply_bb_t occ2 = occ ^ lifted;
            ply_bb_t path = kpath;
            int safe = 1;
            while (path && safe)
                if (ply_board_attackers(b, ply_pop_lsb(&path), them, occ2)) safe = 0;
            if (!safe) continue;
            if (count)
                g.n++;
            else
                *g.out++ = PLY_MOVE(ksq, rsq, PLY_MOVE_CASTLE, PLY_KING);
        }
    }
    return count ? g.n : (int)(g.out - out);
}

int ply_board_legal_moves(const ply_board_t *b, ply_move_t *moves) { return generate(b, moves, 0); }

int ply_board_count_legal(const ply_board_t *b) { return generate(b, NULL, 1); }

int ply_board_move_to_uci(const ply_board_t *b, ply_move_t m, char *buf)
{
    int from = ply_move_from(m), to = ply_move_to(m), n = 4;
    if (ply_move_kind(m) == PLY_MOVE_CASTLE && !b->chess960)
        to = PLY_SQ(to > from ? 6 : 2, PLY_RANK(from)); /* e1g1 rather than e1h1 */
    buf[0] = (char)('a' + PLY_FILE(from));
    buf[1] = (char)('1' + PLY_RANK(from));
    buf[2] = (char)('a' + PLY_FILE(to));
    buf[3] = (char)('1' + PLY_RANK(to));
    if (ply_move_is_promo(m)) buf[n++] = " pnbrqk"[ply_move_promo(m)];
    buf[n] = '\0';
    return n;
}

int ply_board_move_from_uci(const ply_board_t *b, const char *uci, ply_move_t *out)
{
    size_t len = uci ? strlen(uci) : 0;
    if (len < 4 || len > 5 || uci[0] < 'a' || uci[0] > 'h' || uci[1] < '1' || uci[1] > '8' ||
        uci[2] < 'a' || uci[2] > 'h' || uci[3] < '1' || uci[3] > '8' ||
        (len == 5 && !strchr("nbrq", uci[4])))
        return PLY_EPARSE;
    int from = PLY_SQ(uci[0] - 'a', uci[1] - '1'), to = PLY_SQ(uci[2] - 'a', uci[3] - '1');
    ply_move_t moves[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, moves);
    for (int i = 0; i < n; i++) {
        ply_move_t m = moves[i];
        if (ply_move_from(m) != from) continue;
        int promo_ok = len == 5 ? ply_move_is_promo(m) && " pnbrqk"[ply_move_promo(m)] == uci[4]
                                : !ply_move_is_promo(m);
        if (!promo_ok) continue;
        int mto = ply_move_to(m);
        if (ply_move_kind(m) == PLY_MOVE_CASTLE) {
            /* king takes rook (Chess960 UCI) or king to its square (standard UCI) */
            int kto = PLY_SQ(mto > from ? 6 : 2, PLY_RANK(from));
            if (to != mto && to != kto) continue;
            /* In Chess960 "king to g1" could also be a plain king move; prefer that. */
            if (to == kto && to != mto) {
                int plain = 0;
                for (int j = 0; j < n; j++)
                    if (ply_move_from(moves[j]) == from && ply_move_to(moves[j]) == to &&
                        ply_move_kind(moves[j]) != PLY_MOVE_CASTLE)
                        plain = 1;
                if (plain) continue;
            }
        } else if (mto != to) {
            continue;
        }
        *out = m;
        return 0;
    }
    return PLY_EILLEGAL;
}
