/*
 * Static proofs for blocked positions (art. 5.2(b), 6.10, 9.6): when no pawn
 * can ever move or capture, the pawns are walls for ever, and which squares
 * each piece can ever reach, and which squares it can ever attack, follow
 * from the walls alone. "Cannot mate" then follows for many locked
 * positions from one look at every square the losing king can reach, with
 * no search (the idea of the static part of Ambrona's Chess Unwinnability
 * Analyzer, "A Practical Algorithm for Chess Unwinnability", FUN 2022; this
 * argument and its code are ply's own).
 *
 * Soundness is by over-approximation and by induction over any series of
 * legal moves. Each piece's set is the closure of its moves through every
 * square that holds no pawn, as if the other pieces were not there (real
 * moves are a subset: blockers only remove moves, and castling crosses only
 * empty squares its king and rook could also step or slide through). A
 * king never enters a square an enemy pawn attacks (art. 3.9). The
 * structure is frozen when every pawn has a pawn right in front of it, no
 * en-passant capture is possible now, no piece's set holds a square where
 * it could take a pawn (a king only takes a pawn that no pawn protects) or
 * where an enemy pawn attacks it (it could be taken). Then no move ever
 * changes a pawn: pawns in place keep every piece inside its set, and
 * pieces inside their sets never touch a pawn.
 *
 * "Cannot mate" for a side S then: a checkmate of the other king on a square
 * k needs k among the king's squares, a piece of S able to attack k (S's
 * pawns check only in the given position: the king never steps onto a
 * square they attack), and every neighbour n of k blocked: attacked by S
 * (a piece of S standing on n without another protecting it is taken), held
 * by a pawn, or holding one of the king's own pieces. Those pieces are
 * distinct, and each can only be on a square of its own set; pieces are
 * only ever taken, never added (no pawn promotes). So when the neighbours of
 * k that S can never attack and no pawn holds cannot be matched each to a
 * distinct piece of the king's side whose set holds it (no system of
 * distinct representatives, found by augmenting paths), no checkmate on k
 * is possible; when that holds for every k, S can never mate. In a locked
 * lattice a bishop checks only on its colour, and there the flights of the
 * other colour need as many of the king's own pieces of that colour in
 * that half of the board (issue 30).
 *
 * Squares here are 0..63 (a1 = 0) in 64-bit sets; the arbiter's board is
 * read through its own 0x88 helpers, no code is shared with common/board.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"

static const int knight_step[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                      {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
static const int king_step[8][2] = {{1, 1},   {1, 0},  {1, -1}, {0, -1},
                                    {-1, -1}, {-1, 0}, {-1, 1}, {0, 1}};
static const int diag_dir[4][2] = {{1, 1}, {1, -1}, {-1, -1}, {-1, 1}};
static const int orth_dir[4][2] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};

static uint64_t bit(int sq)
{
    return 1ull << sq;
}

/* The square @df files and @dr ranks from @sq, or -1 off the board. */
static int shift(int sq, int df, int dr)
{
    int f = (sq & 7) + df, r = (sq >> 3) + dr;
    return f < 0 || f > 7 || r < 0 || r > 7 ? -1 : r * 8 + f;
}

static uint64_t neighbours(int sq)
{
    uint64_t n = 0;
    for (int i = 0; i < 8; i++) {
        int t = shift(sq, king_step[i][0], king_step[i][1]);
        if (t >= 0) n |= bit(t);
    }
    return n;
}

/* Light squares: a1 is dark (art. 2.1: h1 is light). */
static int is_light(int sq)
{
    return ((sq & 7) + (sq >> 3)) % 2 == 1;
}

/*
 * One piece's moves from @sq with pawns as the only blockers: the squares it
 * could move to (@to, pawn squares excluded) and the pawn squares it hits
 * (@hit: where it would capture if the pawn is an enemy's).
 */
static void moves_from(int kind, int sq, uint64_t pawns, uint64_t *to, uint64_t *hit)
{
    *to = *hit = 0;
    if (kind == ARB_N || kind == ARB_K) {
        const int(*st)[2] = kind == ARB_N ? knight_step : king_step;
        for (int i = 0; i < 8; i++) {
            int t = shift(sq, st[i][0], st[i][1]);
            if (t < 0) continue;
            if (pawns & bit(t))
                *hit |= bit(t);
            else
                *to |= bit(t);
        }
        return;
    }
    for (int d = 0; d < 8; d++) {
        const int *dir = d < 4 ? diag_dir[d] : orth_dir[d - 4];
        if ((d < 4 && kind == ARB_R) || (d >= 4 && kind == ARB_B)) continue;
        for (int t = shift(sq, dir[0], dir[1]); t >= 0; t = shift(t, dir[0], dir[1])) {
            if (pawns & bit(t)) {
                *hit |= bit(t);
                break;
            }
            *to |= bit(t);
        }
    }
}

/*
 * The squares a piece of @side and @kind starting on @start can ever stand
 * on, and (into *@att) attack. Returns 0, or -1 when the piece could take a
 * pawn or be taken by one somewhere: the structure is not frozen.
 */
static int closure(const ply__arb_frozen_t *f, int side, int kind, int start, uint64_t *reach,
                   uint64_t *att)
{
    const uint64_t all_pawns = f->pawns[0] | f->pawns[1];
    const uint64_t enemy_att = f->pawn_att[side ^ 1];
    uint64_t seen = bit(start), todo = bit(start);
    *att = 0;
    if (kind != ARB_K && (enemy_att & bit(start))) return -1; /* en prise to a pawn now */
    while (todo) {
        int sq = __builtin_ctzll(todo);
        todo &= todo - 1;
        uint64_t to, hit;
        moves_from(kind, sq, all_pawns, &to, &hit);
        *att |= to | hit;
        uint64_t enemy_hit = hit & f->pawns[side ^ 1];
        if (kind == ARB_K) {
            /* A king takes a pawn only where no enemy pawn protects it, and
             * steps only where no enemy pawn attacks. */
            if (enemy_hit & ~enemy_att) return -1;
            to &= ~enemy_att;
        } else {
            if (enemy_hit) return -1;
            if (to & enemy_att) return -1;
        }
        todo |= to & ~seen;
        seen |= to;
    }
    *reach = seen;
    return 0;
}

int ply__arb_frozen(const ply_arb_pos_t *p, ply__arb_frozen_t *f)
{
    memset(f, 0, sizeof *f);
    for (int s = 0; s < 64; s++) {
        int pc = p->sq[ply__arb_to88(s)];
        if (abs(pc) != ARB_P) continue;
        int side = pc < 0, fwd = side ? -1 : 1;
        f->pawns[side] |= bit(s);
        for (int df = -1; df <= 1; df += 2) {
            int t = shift(s, df, fwd);
            if (t >= 0) f->pawn_att[side] |= bit(t);
        }
    }
    const uint64_t all_pawns = f->pawns[0] | f->pawns[1];
    if (!all_pawns) return 0;
    for (int side = 0; side < 2; side++) {
        uint64_t ps = f->pawns[side];
        while (ps) {
            int s = __builtin_ctzll(ps);
            ps &= ps - 1;
            int ahead = shift(s, 0, side ? -1 : 1);
            if (ahead < 0 || !(all_pawns & bit(ahead))) return 0; /* it may move one day */
        }
        if (f->pawn_att[side] & f->pawns[side ^ 1]) return 0; /* a pawn can take a pawn now */
    }
    if (p->ep >= 0 && ply__arb_ep_legal(p)) return 0;
    for (int s = 0; s < 64; s++) {
        int pc = p->sq[ply__arb_to88(s)], kind = abs(pc), side = pc < 0;
        if (!pc || kind == ARB_P) continue;
        uint64_t reach, att;
        if (closure(f, side, kind, s, &reach, &att)) return 0;
        if (kind == ARB_K) {
            f->king[side] = reach;
            f->king_att[side] = att;
        } else {
            f->pieces[side] |= reach;
            f->attack[side] |= att;
            f->checkers[side][kind]++;
            f->piece_reach[side][f->npieces[side]++] = reach;
            if (kind == ARB_B) f->bishop_colours[side] |= 1 << is_light(s);
        }
    }
    return 1;
}

static void square_name(int sq, char *out)
{
    out[0] = (char)('a' + (sq & 7));
    out[1] = (char)('1' + (sq >> 3));
    out[2] = 0;
}

/* "a bishop on light squares", "2 knights and a rook", ...: @side's checking pieces. */
static void checkers_text(const ply__arb_frozen_t *f, int side, char *out, size_t len)
{
    static const char *names[7] = {"", "", "knight", "bishop", "rook", "queen", ""};
    size_t n = 0;
    out[0] = 0;
    for (int k = ARB_N; k <= ARB_Q; k++) {
        int c = f->checkers[side][k];
        if (!c || n >= len) continue;
        n += (size_t)snprintf(out + n, len - n, "%s%s%s%s", n ? ", " : "",
                              c == 1   ? "a "
                              : c == 2 ? "2 "
                                       : "",
                              names[k], c > 1 ? "s" : "");
        if (k == ARB_B && f->bishop_colours[side] != 3 && n < len)
            n += (size_t)snprintf(out + n, len - n, " on %s squares",
                                  f->bishop_colours[side] == 2 ? "light" : "dark");
    }
}

/* One step of the matching below: 1 when square @sq (bit index) gets a
 * piece, taking a piece from another square when that one can move on. */
static int augment(const uint64_t *reach, int n, int sq, int *owner, uint64_t free, uint64_t *seen)
{
    for (int i = 0; i < n; i++) {
        if (!(reach[i] >> sq & 1) || (*seen >> i & 1)) continue;
        *seen |= 1ull << i;
        int other = -1;
        for (uint64_t b = free; b; b &= b - 1)
            if (owner[__builtin_ctzll(b)] == i) other = __builtin_ctzll(b);
        if (other < 0 || augment(reach, n, other, owner, free, seen)) {
            if (other >= 0) owner[other] = -1;
            owner[sq] = i;
            return 1;
        }
    }
    return 0;
}

/* 1 when the squares of @free can all be filled at once by distinct pieces
 * of @side, each on a square of its own set (a bipartite matching, Kuhn's
 * augmenting paths: at most 8 squares, 15 pieces). */
static int fillable(const ply__arb_frozen_t *f, int side, uint64_t free)
{
    int owner[64];
    if (__builtin_popcountll(free) > f->npieces[side]) return 0;
    for (uint64_t b = free; b; b &= b - 1) owner[__builtin_ctzll(b)] = -1;
    for (uint64_t b = free; b; b &= b - 1) {
        uint64_t seen = 0;
        if (!augment(f->piece_reach[side], f->npieces[side], __builtin_ctzll(b), owner, free,
                     &seen))
            return 0;
    }
    return 1;
}

int ply__arb_frozen_no_mate(const ply_arb_pos_t *p, const ply__arb_frozen_t *f, int side,
                            char *proof, size_t len)
{
    const int them = side ^ 1;
    const char *who = side ? "black" : "white", *whom = side ? "white" : "black";
    (void)p;
    /* What @side can ever attack or a pawn holds next to the losing king.
     * A piece of @side on a flight square covers it only when another of
     * its pieces protects it (else the king takes it): then it is attacked. */
    const uint64_t covered =
        f->pawns[0] | f->pawns[1] | f->pawn_att[side] | f->attack[side] | f->king_att[side];
    /* The losing king can stand on a square its enemy's pawns attack only
     * where it starts (it never steps onto one): a check from a pawn is
     * possible only in @p, which the caller looks at. */
    uint64_t squares = f->king[them] & ~f->pawn_att[side];
    uint64_t checkable = squares & f->attack[side];
    int nsq = __builtin_popcountll(squares), example = -1;
    uint64_t example_free = 0;
    for (uint64_t s = checkable; s; s &= s - 1) {
        int k = __builtin_ctzll(s);
        /* Every other neighbour must hold one of the king's own pieces. */
        uint64_t free_flights = neighbours(k) & ~covered;
        if (!free_flights || fillable(f, them, free_flights)) return 0; /* not excluded */
        if (example < 0) {
            example = k;
            example_free = free_flights;
        }
    }
    char pieces[96];
    checkers_text(f, side, pieces, sizeof pieces);
    if (!checkable) {
        ply__arb_say(
            proof, len,
            "%s can never give check on any of the %d squares %s's king can reach (%s checks "
            "only with %s)",
            who, nsq, whom, who, pieces[0] ? pieces : "its pawns, which never move");
        return 1;
    }
    char ks[3], fs[40] = "", own[96];
    square_name(example, ks);
    for (uint64_t b = example_free; b; b &= b - 1) {
        char q[3];
        square_name(__builtin_ctzll(b), q);
        snprintf(fs + strlen(fs), sizeof fs - strlen(fs), "%s%s", fs[0] ? " " : "", q);
    }
    checkers_text(f, them, own, sizeof own);
    ply__arb_say(proof, len,
                 "%s (%s) could check %s's king on some of its %d squares, but there it has "
                 "more flights %s never attacks than its own pieces (%s) can ever block at once "
                 "(e.g. on %s: %s)",
                 who, pieces, whom, nsq, who, own[0] ? own : "none", ks, fs);
    return 1;
}
