/*
 * The fast engine's position: bitboards by piece type and colour, copy-make.
 *
 * A move is played on a copy (ply_board_play on a struct the caller copied),
 * never undone: at about 100 bytes a copy is cheaper than keeping undo
 * state, and it makes the perft recursion trivially re-entrant for OpenMP.
 * Moves are legal by construction (movegen.h generates only legal moves);
 * ply_board_play trusts its input.
 *
 * Invariants (checked by ply_board_ok, asserted after every move in debug
 * builds): colour sets disjoint and covering the piece sets, one king per
 * side at king[], castling rights only with the king and rook in place, ep
 * set only when a pawn of the side to move attacks it, key equal to the
 * recomputed key.
 */
#ifndef PLY_BOARD_BOARD_H
#define PLY_BOARD_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "board/attacks.h"
#include "board/bitboard.h"
#include "board/zobrist.h"

/* Castling rights, one bit each. "h-side" is the king side in standard chess. */
enum {
    PLY_CASTLE_WH = 1, /* white, rook on the h-side of the king */
    PLY_CASTLE_WA = 2, /* white, rook on the a-side */
    PLY_CASTLE_BH = 4,
    PLY_CASTLE_BA = 8,
};

typedef struct ply_board {
    ply_bb_t pieces[7];     /* by type (PLY_PAWN..PLY_KING), both colours; [0] unused */
    ply_bb_t colour[2];     /* by colour */
    ply_bb_t castle_touch;  /* squares whose move from/to can change castling rights */
    uint64_t key[2];        /* 128-bit Zobrist key (zobrist.h) */
    uint8_t side;           /* PLY_WHITE or PLY_BLACK to move */
    uint8_t ep;             /* en-passant target square, or PLY_NO_SQ */
    uint8_t castling;       /* PLY_CASTLE_* bits */
    uint8_t rule50;         /* plies since the last capture or pawn move */
    uint8_t king[2];        /* king squares */
    uint8_t castle_rook[4]; /* rook square of each right (index = bit number), fixed per game */
    uint16_t fullmove;
    uint8_t chess960;       /* 1: UCI castling written king-takes-rook, FEN as Shredder-FEN */
} ply_board_t;

/*
 * A move in 32 bits: from (6), to (6), kind (4), moving piece type (3).
 * Castling is encoded "king takes own rook" (to = the rook's square), which
 * covers standard chess and Chess960 with one code path.
 */
typedef uint32_t ply_move_t;

enum {
    PLY_MOVE_NORMAL = 0,
    PLY_MOVE_DOUBLE = 1, /* pawn two squares forward */
    PLY_MOVE_CASTLE = 2,
    PLY_MOVE_EP = 3,
    PLY_MOVE_PROMO_N = 4, /* PLY_MOVE_PROMO_N + (type - PLY_KNIGHT) */
    PLY_MOVE_PROMO_B = 5,
    PLY_MOVE_PROMO_R = 6,
    PLY_MOVE_PROMO_Q = 7,
};

#define PLY_MOVE(from, to, kind, piece)                                                            \
    ((ply_move_t)(from) | ((ply_move_t)(to) << 6) | ((ply_move_t)(kind) << 12) |                 \
     ((ply_move_t)(piece) << 16))

static inline int ply_move_from(ply_move_t m) { return (int)(m & 63); }
static inline int ply_move_to(ply_move_t m) { return (int)((m >> 6) & 63); }
static inline int ply_move_kind(ply_move_t m) { return (int)((m >> 12) & 15); }
static inline int ply_move_piece(ply_move_t m) { return (int)((m >> 16) & 7); }
static inline int ply_move_is_promo(ply_move_t m) { return ply_move_kind(m) >= PLY_MOVE_PROMO_N; }
/** The promoted-to piece type of a promotion (PLY_KNIGHT..PLY_QUEEN). */
static inline int ply_move_promo(ply_move_t m) { return ply_move_kind(m) - PLY_MOVE_PROMO_N + PLY_KNIGHT; }

/** Flags for ply_board_from_fen. */
enum {
    PLY_BOARD_CHESS960 = 1u << 0, /* KQkq read as X-FEN; Shredder letters imply it */
};

/** Longest FEN ply_board_to_fen writes, including the terminating NUL. */
#define PLY_BOARD_FEN_MAX 100

static inline ply_bb_t ply_board_occ(const ply_board_t *b) { return b->colour[0] | b->colour[1]; }

/** ply_board_piece_on - the piece type on @sq (PLY_NONE if empty), and its colour in *colour. */
static inline int ply_board_piece_on(const ply_board_t *b, int sq, int *colour)
{
    ply_bb_t s = ply_bb(sq);
    if (colour) *colour = (b->colour[PLY_BLACK] & s) ? PLY_BLACK : PLY_WHITE;
    for (int t = PLY_PAWN; t <= PLY_KING; t++)
        if (b->pieces[t] & s) return t;
    return PLY_NONE;
}

/**
 * ply_board_attackers - pieces of colour @by attacking @sq with occupancy
 * @occ (pass ply_board_occ(b), or less to look through pieces).
 */
static inline ply_bb_t ply_board_attackers(const ply_board_t *b, int sq, int by, ply_bb_t occ)
{
    const ply_bb_t *p = b->pieces;
    const ply_bb_t them = b->colour[by];
    const ply_bb_t bq = them & (p[PLY_BISHOP] | p[PLY_QUEEN]);
    const ply_bb_t rq = them & (p[PLY_ROOK] | p[PLY_QUEEN]);
    ply_bb_t att = them & ((ply__pawn_attacks[by ^ 1][sq] & p[PLY_PAWN]) |
                           (ply__knight_attacks[sq] & p[PLY_KNIGHT]) | (ply__king_attacks[sq] & p[PLY_KING]));
    /* Slider lookups only when a slider stands on one of the square's lines:
     * the empty-board ray test is one load, the lookup a multiply and a
     * dependent load. */
    if (ply__bishop_rays[sq] & bq) att |= ply_bishop_attacks(sq, occ) & bq;
    if (ply__rook_rays[sq] & rq) att |= ply_rook_attacks(sq, occ) & rq;
    return att;
}

/** ply_board_checkers - the opposing pieces giving check to the side to move. */
static inline ply_bb_t ply_board_checkers(const ply_board_t *b)
{
    return ply_board_attackers(b, b->king[b->side], b->side ^ 1, ply_board_occ(b));
}

static inline void ply__key_xor(ply_board_t *b, const ply_key128_t *k)
{
    b->key[0] ^= k->k[0];
    b->key[1] ^= k->k[1];
}

/* The rights in @lost (PLY_CASTLE_* bits, all held) go: their key terms are
 * taken out of @b's key, and castle_touch follows. Off the common path. */
void ply__board_lose_castling(ply_board_t *b, int lost, int keys);

/* The castling rights a move from @from to @to of @piece by side @us takes
 * away, held or not: a right goes when its king moves (castling included) or
 * when its rook moves or is captured on its square (RULES.md art. 3.8).
 * Without a branch: the four rook squares are compared at once. */
static inline __attribute__((always_inline)) int
ply__board_castling_lost(const ply_board_t *b, int from, int to, int piece, int us)
{
    const uint8_t *r = b->castle_rook;
    int lost = ((from == r[0]) | (to == r[0])) | (((from == r[1]) | (to == r[1])) << 1) |
               (((from == r[2]) | (to == r[2])) << 2) | (((from == r[3]) | (to == r[3])) << 3);
    if (piece == PLY_KING)
        lost |= us == PLY_WHITE ? PLY_CASTLE_WH | PLY_CASTLE_WA : PLY_CASTLE_BH | PLY_CASTLE_BA;
    return lost;
}

/*
 * The body of ply_board_play, with the key update switchable at compile time
 * (@keys is a constant at every call site) so that perft without a hash table
 * does not pay for keys it never reads.
 */
static inline __attribute__((always_inline)) void ply__board_play(ply_board_t *b, ply_move_t m,
                                                                  const int keys)
{
    const int us = b->side, them = us ^ 1;
    const int from = ply_move_from(m), to = ply_move_to(m), kind = ply_move_kind(m);
    const int piece = ply_move_piece(m);
    const ply_bb_t from_bb = ply_bb(from), to_bb = ply_bb(to);

    if (keys) {
        if (b->ep != PLY_NO_SQ) ply__key_xor(b, &ply__zobrist.ep[PLY_FILE(b->ep)]);
        ply__key_xor(b, &ply__zobrist.side);
    }
    b->ep = PLY_NO_SQ;
    if (keys) { /* perft without keys never reads the clocks either */
        b->rule50++;
        b->fullmove += (uint16_t)us;
    }

    if ((from_bb | to_bb) & b->castle_touch) {
        /* only moves from or to a king or castling-rook square of a right held */
        const int lost = ply__board_castling_lost(b, from, to, piece, us) & b->castling;
        if (lost) ply__board_lose_castling(b, lost, keys);
    }

    if (kind == PLY_MOVE_CASTLE) {
        /* to is the rook's square; king and rook land on the standard squares
         * (g/f or c/d). Clear both, then set both: in Chess960 a destination
         * may be the other piece's start square, or a piece may stay put. */
        const int hside = to > from;
        const int rank = us == PLY_WHITE ? 0 : 56;
        const int kto = rank + (hside ? 6 : 2), rto = rank + (hside ? 5 : 3);
        b->pieces[PLY_KING] &= ~from_bb;
        b->pieces[PLY_ROOK] &= ~to_bb;
        b->colour[us] &= ~(from_bb | to_bb);
        b->pieces[PLY_KING] |= ply_bb(kto);
        b->pieces[PLY_ROOK] |= ply_bb(rto);
        b->colour[us] |= ply_bb(kto) | ply_bb(rto);
        b->king[us] = (uint8_t)kto;
        if (keys) {
            ply__key_xor(b, &ply__zobrist.psq[us][PLY_KING][from]);
            ply__key_xor(b, &ply__zobrist.psq[us][PLY_KING][kto]);
            ply__key_xor(b, &ply__zobrist.psq[us][PLY_ROOK][to]);
            ply__key_xor(b, &ply__zobrist.psq[us][PLY_ROOK][rto]);
        }
        b->side = (uint8_t)them;
        return;
    }

    if (b->colour[them] & to_bb) { /* capture */
        int cap = PLY_PAWN;
        while (!(b->pieces[cap] & to_bb)) cap++;
        b->pieces[cap] ^= to_bb;
        b->colour[them] ^= to_bb;
        if (keys) {
            b->rule50 = 0;
            ply__key_xor(b, &ply__zobrist.psq[them][cap][to]);
        }
    }

    b->colour[us] ^= from_bb | to_bb;
    b->pieces[piece] ^= from_bb;
    if (kind >= PLY_MOVE_PROMO_N) {
        const int promo = ply_move_promo(m);
        b->pieces[promo] ^= to_bb;
        if (keys) ply__key_xor(b, &ply__zobrist.psq[us][promo][to]);
    } else {
        b->pieces[piece] ^= to_bb;
        if (keys) ply__key_xor(b, &ply__zobrist.psq[us][piece][to]);
    }
    if (keys) ply__key_xor(b, &ply__zobrist.psq[us][piece][from]);

    if (piece == PLY_PAWN) {
        if (keys) b->rule50 = 0;
        if (kind == PLY_MOVE_EP) {
            const int capsq = to ^ 8; /* the pawn that just advanced, behind the target */
            b->pieces[PLY_PAWN] ^= ply_bb(capsq);
            b->colour[them] ^= ply_bb(capsq);
            if (keys) ply__key_xor(b, &ply__zobrist.psq[them][PLY_PAWN][capsq]);
        } else if (kind == PLY_MOVE_DOUBLE) {
            /* Record the ep square only when an enemy pawn attacks it, so
             * that keys and identities do not split on a useless ep square. */
            const int epsq = (from + to) >> 1;
            if (ply__pawn_attacks[us][epsq] & b->pieces[PLY_PAWN] & b->colour[them]) {
                b->ep = (uint8_t)epsq;
                if (keys) ply__key_xor(b, &ply__zobrist.ep[PLY_FILE(epsq)]);
            }
        }
    } else if (piece == PLY_KING) {
        b->king[us] = (uint8_t)to;
    }
    b->side = (uint8_t)them;
}

/** ply_board_play - play legal move @m on @b in place, updating the Zobrist key. */
static inline void ply_board_play(ply_board_t *b, ply_move_t m) { ply__board_play(b, m, 1); }

/** ply_board_play_nokey - as ply_board_play, leaving the key, the halfmove clock and the
 * move number stale (perft without a table reads none of them). */
static inline void ply_board_play_nokey(ply_board_t *b, ply_move_t m) { ply__board_play(b, m, 0); }

/** ply_board_startpos - the standard initial position. */
void ply_board_startpos(ply_board_t *b);

/**
 * ply_board_from_fen - read a FEN, X-FEN or Shredder-FEN ("startpos" too).
 * The halfmove and fullmove fields may be missing (EPD). @flags:
 * PLY_BOARD_CHESS960 to read KQkq as X-FEN (outermost rook); file letters
 * (Shredder-FEN, or X-FEN for inner rooks) imply Chess960.
 * This parser guarantees a board the move generator can work on (one king per
 * side, no pawn on rank 1 or 8, castling rights with king and rook in place,
 * a consistent ep square, side not to move not in check); the arbiter gives
 * the detailed validation users see.
 * Returns 0, PLY_EFEN (syntax) or PLY_EILLEGAL (unplayable), with a one-line
 * reason in @why (may be NULL).
 */
int ply_board_from_fen(ply_board_t *b, const char *fen, unsigned flags, char *why,
                       size_t why_len);

/**
 * ply_board_to_fen - write six-field FEN into @buf (castling as KQkq, or
 * Shredder-FEN letters when b->chess960). Returns the length, or PLY_ERANGE
 * when @len is too small (PLY_BOARD_FEN_MAX always suffices).
 */
int ply_board_to_fen(const ply_board_t *b, char *buf, size_t len);

/** ply_board_compute_key - the Zobrist key of @b computed from scratch (for checks). */
void ply_board_compute_key(const ply_board_t *b, uint64_t key[2]);

/**
 * ply_board_ok - check the invariants listed at the top of this file.
 * Returns 1 when they hold, 0 otherwise (with the first violation in @why).
 */
int ply_board_ok(const ply_board_t *b, char *why, size_t why_len);

#endif
