/*
 * The arbiter's public move API: legal moves, make, check queries and UCI
 * notation. It translates between the API's 0..63 squares and the 0x88
 * squares of movegen.c, and decides legality the plain way: play the
 * pseudo-legal move on a copy and reject it if the mover's king is attacked
 * (FIDE Laws art. 3.9).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"
#include "util/error.h"

static const char promo_letter[] = "\0\0nbrq"; /* indexed by ARB_N..ARB_Q */

/* UCI promotion letter to piece code (ARB_N..ARB_Q), 0 if none. */
static int promo_code(int letter)
{
    for (int p = ARB_N; p <= ARB_Q; p++)
        if (letter && promo_letter[p] == letter) return p;
    return 0;
}

static ply_arb_move_t to_public(ply__arb_mv_t m)
{
    ply_arb_move_t out = {(uint8_t)ply__arb_to64(m.from), (uint8_t)ply__arb_to64(m.to),
                          (uint8_t)(m.promo ? promo_letter[m.promo] : 0), m.flags};
    return out;
}

int ply_arb_legal_moves(const ply_arb_pos_t *pos, ply_arb_move_t *moves)
{
    ply__arb_mv_t mv[PLY__ARB_MAX_PSEUDO];
    int n = ply__arb_gen(pos, mv), legal = 0;
    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child = *pos;
        ply__arb_make(&child, mv[i]);
        if (ply__arb_left_in_check(&child)) continue;
        assert(legal < PLY_ARB_MAX_MOVES);
        if (legal == PLY_ARB_MAX_MOVES) break; /* unreachable: from_fen bounds the material */
        moves[legal++] = to_public(mv[i]);
    }
    return legal;
}

void ply_arb_make(ply_arb_pos_t *pos, ply_arb_move_t move)
{
    assert(move.from < 64 && move.to < 64);
    ply__arb_mv_t m = {(uint8_t)ply__arb_to88(move.from), (uint8_t)ply__arb_to88(move.to),
                       (uint8_t)promo_code(move.promo), move.flags};
    const int sg = pos->side ? -1 : 1;
    const int piece = pos->sq[m.from] * sg;

    /* The pawn flags follow from the board, so a move rebuilt from its squares
     * (without flags) is still played right; only CASTLE must come from the
     * move, since in Chess960 a king step and a castle can share from and to. */
    m.flags &= PLY_ARB_MOVE_CASTLE;
    if (!pos->chess960 && piece == ARB_K && abs(m.to - m.from) == 2) m.flags |= PLY_ARB_MOVE_CASTLE;
    if (!(m.flags & PLY_ARB_MOVE_CASTLE) && pos->sq[m.to]) m.flags |= PLY_ARB_MOVE_CAPTURE;
    if (piece == ARB_P && abs(m.to - m.from) == 32) m.flags |= PLY_ARB_MOVE_DOUBLE;
    if (piece == ARB_P && m.to == pos->ep && ply__arb_file(m.to) != ply__arb_file(m.from))
        m.flags |= PLY_ARB_MOVE_EP | PLY_ARB_MOVE_CAPTURE;
    ply__arb_make(pos, m);
}

int ply_arb_in_check(const ply_arb_pos_t *pos)
{
    return ply__arb_attacked(pos, pos->king[pos->side], pos->side ^ 1);
}

int ply_arb_checkers(const ply_arb_pos_t *pos, int *sq)
{
    int n = ply__arb_attackers(pos, pos->king[pos->side], pos->side ^ 1, sq);
    for (int i = 0; i < n; i++) sq[i] = ply__arb_to64(sq[i]);
    return n;
}

int ply_arb_move_to_uci(const ply_arb_pos_t *pos, ply_arb_move_t move, char *buf)
{
    int to = move.to, n = 0;
    if ((move.flags & PLY_ARB_MOVE_CASTLE) && pos->chess960) {
        /* UCI_Chess960: castling is written as the king capturing its own rook. */
        int rs = pos->castle_rook[ply__arb_castle_index(pos->side, ply__arb_to88(move.to))];
        if (rs >= 0) to = ply__arb_to64(rs);
    }
    buf[n++] = (char)('a' + (move.from & 7));
    buf[n++] = (char)('1' + (move.from >> 3));
    buf[n++] = (char)('a' + (to & 7));
    buf[n++] = (char)('1' + (to >> 3));
    if (move.promo) buf[n++] = (char)move.promo;
    buf[n] = 0;
    return n;
}

int ply_arb_move_from_uci(const ply_arb_pos_t *pos, const char *uci, ply_arb_move_t *out)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    if (!pos || !uci || !out) return PLY_EINVAL;

    size_t len = strnlen(uci, 6);
    if (len != 4 && len != 5) return PLY_EPARSE;
    for (int i = 0; i < 4; i += 2)
        if (uci[i] < 'a' || uci[i] > 'h' || uci[i + 1] < '1' || uci[i + 1] > '8') return PLY_EPARSE;
    int promo = 0;
    if (len == 5) {
        char c = uci[4];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (!promo_code(c)) return PLY_EPARSE;
        promo = c;
    }
    int from = (uci[1] - '1') * 8 + (uci[0] - 'a');
    int to = (uci[3] - '1') * 8 + (uci[2] - 'a');

    int n = ply_arb_legal_moves(pos, mv);
    /* Ordinary moves first: in Chess960 "f1g1" may be a king step while the
     * king-to-destination spelling of a castle would read the same. */
    for (int i = 0; i < n; i++)
        if (!(mv[i].flags & PLY_ARB_MOVE_CASTLE) && mv[i].from == from && mv[i].to == to &&
            mv[i].promo == promo) {
            *out = mv[i];
            return 0;
        }
    if (promo) return PLY_EILLEGAL;
    /* Castling in either spelling: king to its destination, or king takes rook. */
    for (int i = 0; i < n; i++) {
        if (!(mv[i].flags & PLY_ARB_MOVE_CASTLE) || mv[i].from != from) continue;
        int rs = pos->castle_rook[ply__arb_castle_index(pos->side, ply__arb_to88(mv[i].to))];
        if (mv[i].to == to || (rs >= 0 && ply__arb_to64(rs) == to)) {
            *out = mv[i];
            return 0;
        }
    }
    return PLY_EILLEGAL;
}
