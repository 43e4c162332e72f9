/*
 * The arbiter's internals shared between its source files (not part of the
 * public API): piece codes, 0x88 square arithmetic, the internal move and the
 * pseudo-legal generator, make, and attack tests.
 *
 * Internally every square is a 0x88 index (rank * 16 + file); a square is on
 * the board exactly when (sq & 0x88) == 0, so stepping off any edge is caught
 * by one test without bounds arithmetic. The public API speaks 0..63.
 */
#ifndef PLY_ARBITER_PRIVATE_H
#define PLY_ARBITER_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/arbiter.h"

/* Piece codes in ply_arb_pos_t.sq: white positive, black negative. */
enum { ARB_EMPTY = 0, ARB_P = 1, ARB_N = 2, ARB_B = 3, ARB_R = 4, ARB_Q = 5, ARB_K = 6 };

/* Castling right indexes into castle_rook[]: colour * 2 + (a-side ? 1 : 0). */
enum { ARB_WH = 0, ARB_WA = 1, ARB_BH = 2, ARB_BA = 3 };

/*
 * A pseudo-legal move never exceeds 27 destinations per piece (a centred
 * queen; a pawn has at most 12 with promotions, a king 8 plus 2 castles), and
 * a side has at most 16 pieces: 16 * 27 = 432 < 512.
 */
#define PLY__ARB_MAX_PSEUDO 512

/** An internal move: 0x88 squares, promo as a piece magnitude (ARB_N..ARB_Q). */
typedef struct ply__arb_mv {
    uint8_t from;
    uint8_t to; /* castling: the king's destination, as in ply_arb_move_t */
    uint8_t promo;
    uint8_t flags; /* PLY_ARB_MOVE_* */
} ply__arb_mv_t;

static inline int ply__arb_to88(int sq64)
{
    return sq64 + (sq64 & ~7);
}
static inline int ply__arb_to64(int sq88)
{
    return ((sq88 >> 4) << 3) | (sq88 & 7);
}
static inline int ply__arb_file(int sq88)
{
    return sq88 & 7;
}
static inline int ply__arb_rank(int sq88)
{
    return sq88 >> 4;
}

/**
 * ply__arb_attacked - 1 when side @by (0 white, 1 black) attacks 0x88 square
 * @sq in the sense of art. 3.1: a piece attacks a square even when pinned.
 */
int ply__arb_attacked(const ply_arb_pos_t *pos, int sq, int by);

/**
 * ply__arb_attackers - the 0x88 squares of @by's pieces attacking @sq,
 * written to @out (room for 16); returns their number. 16 is the geometric
 * maximum: at most one attacker per ray (8), pawns and kings included, plus
 * the eight knight squares.
 */
int ply__arb_attackers(const ply_arb_pos_t *pos, int sq, int by, int *out);

/**
 * ply__arb_gen - every pseudo-legal move of the side to move (legal except
 * that the mover's king may be left in check; castling already checks its
 * path and the squares the king crosses). @mv holds PLY__ARB_MAX_PSEUDO.
 * Returns the number of moves, in a fixed order (board scan a1..h8).
 */
int ply__arb_gen(const ply_arb_pos_t *pos, ply__arb_mv_t *mv);

/** ply__arb_make - play a move produced by ply__arb_gen (copy-make: no undo). */
void ply__arb_make(ply_arb_pos_t *pos, ply__arb_mv_t m);

/**
 * ply__arb_child - copy @pos to @child and play @m (from ply__arb_gen) there;
 * returns 1 when the move is legal, 0 when it leaves the mover's king
 * attacked (art. 3.9). The make and the attack test are the same as
 * ply__arb_make and ply__arb_left_in_check, compiled into one body for the
 * hot loops of perft.
 */
int ply__arb_child(const ply_arb_pos_t *pos, ply__arb_mv_t m, ply_arb_pos_t *child);

/**
 * ply__arb_left_in_check - 1 when, after ply__arb_make, the side that just
 * moved has its king attacked: the move was illegal (art. 3.9).
 */
static inline int ply__arb_left_in_check(const ply_arb_pos_t *after)
{
    int mover = after->side ^ 1;
    return ply__arb_attacked(after, after->king[mover], after->side);
}

/**
 * ply__arb_ep_legal - 1 when the side to move has a legal en-passant capture
 * (not merely a pseudo-legal one): the test art. 9.2 needs for identity.
 */
int ply__arb_ep_legal(const ply_arb_pos_t *pos);

/*
 * The dead-position tests of deadpos.c, one by one (ply_arb_dead runs them
 * in this order), so that a game replay can skip a search whose answer it
 * already knows. Each returns 1 when it proves @pos dead (with @proof filled,
 * if not NULL), else 0. ply__arb_dead_static is the static argument of
 * blocked.c for both sides (cheap: it stops at the first pawn that is not
 * blocked head-on by a pawn); ply__arb_dead_blocked, the exhaustive search,
 * runs only when every pawn is rammed and only kings and bishops stand
 * besides, or the structure is frozen (ply__arb_frozen); ply__arb_dead_forced only
 * when the side to move has at most three legal moves (@legal_moves), and it
 * follows every line while each position has at most three.
 */
int ply__arb_dead_material(const ply_arb_pos_t *pos, char *proof, size_t len);
int ply__arb_dead_static(const ply_arb_pos_t *pos, char *proof, size_t len);
int ply__arb_dead_blocked(const ply_arb_pos_t *pos, char *proof, size_t len);
int ply__arb_dead_forced(const ply_arb_pos_t *pos, int legal_moves, char *proof, size_t len);

/*
 * Position keys for the searches of deadpos.c and unwin.c: 4 bits a square,
 * side, castling rook squares, and the en-passant square only when the
 * capture is legal (the identity of art. 9.2, without clocks), 40 bytes.
 */
typedef struct ply__arb_key {
    uint8_t b[40];
} ply__arb_key_t;

/** ply__arb_key_encode - the key of @p into *@k. */
void ply__arb_key_encode(const ply_arb_pos_t *p, ply__arb_key_t *k);

/** ply__arb_key_decode - the position of key @k (clocks 0, fullmove 1). */
void ply__arb_key_decode(const ply__arb_key_t *k, int chess960, ply_arb_pos_t *p);

/** ply__arb_key_hash - a 64-bit FNV-1a hash of @k. */
uint64_t ply__arb_key_hash(const ply__arb_key_t *k);

/*
 * The permanent structure of a position (blocked.c): when no pawn can ever
 * move or capture, every square each side's king and other pieces can ever
 * stand on and attack, as 64-bit sets (bit a1 = 0 ... h8 = 63).
 */
typedef struct ply__arb_frozen {
    uint64_t pawns[2];           /* pawn squares of each side: permanent */
    uint64_t pawn_att[2];        /* squares each side's pawns attack: permanent */
    uint64_t king[2];            /* squares each king can ever stand on (the start included) */
    uint64_t king_att[2];        /* squares each king can ever attack */
    uint64_t pieces[2];          /* squares the other pieces (not pawns) can ever stand on */
    uint64_t attack[2];          /* squares those pieces can ever attack */
    int checkers[2][7];          /* each side's pieces, by kind (pawns and king not counted) */
    uint64_t piece_reach[2][16]; /* each of those pieces' own squares, one by one */
    int npieces[2];              /* how many: at most 15 a side */
    int bishop_colours[2];       /* bit 0: a bishop on dark squares, bit 1: on light squares */
} ply__arb_frozen_t;

/**
 * ply__arb_frozen - 1 when, whatever legal moves follow, no pawn of @p can
 * ever move or capture (so no promotion ever happens and pawns are never
 * taken), with *@f filled; 0 when that is not proven (then *@f is partial).
 * Sound by over-approximation: a piece's squares are found by its moves
 * through every square without a pawn, as if the other pieces were gone.
 */
int ply__arb_frozen(const ply_arb_pos_t *p, ply__arb_frozen_t *f);

/**
 * ply__arb_frozen_no_mate - with @f from ply__arb_frozen(@p), 1 when @side
 * can never checkmate the other king in any position reached after @p (the
 * caller checks @p itself), with the argument in words in @proof (the part
 * after "no pawn can ever move or capture; "); 0 when the
 * test proves nothing. A mate needs the king on a square that @side can
 * attack with a piece (its pawns can check only in @p: the king never steps
 * onto a square they attack) and every neighbouring square attacked by
 * @side, held by a pawn, or filled by one of the king's own pieces (one
 * piece a square): the test finds, for every square the king can reach, a
 * check that can never come, or neighbours @side can never attack that the
 * king's own pieces can never fill all at once (no matching of those
 * squares to distinct pieces that can each reach its square).
 */
int ply__arb_frozen_no_mate(const ply_arb_pos_t *p, const ply__arb_frozen_t *f, int side,
                            char *proof, size_t len);

/**
 * ply__arb_cannot_mate_material - 1 when @side can never mate by material
 * alone (deadpos.c): it has only its king, the material is insufficient for
 * both (5.2(b)), or a lone knight or bishop faces a lone queen or rook.
 */
int ply__arb_cannot_mate_material(const ply_arb_pos_t *pos, int side);

/**
 * ply__arb_helpmate - a series of legal moves from @pos after which @winner
 * checkmates the other side, both sides cooperating (iterative deepening,
 * transposition table, moves ordered toward the mate; see helpmate.c). Spends
 * at most @budget nodes (positions searched), adding those it spent to
 * *@nodes. Monotone in the budget: the search runs the same whatever
 * @budget, which only cuts it off, so a line found within some budget is
 * found, the same line after the same nodes, with any larger one.
 * @draw_at: 0 (fide2000: clocks never end a line), or the halfmove clock at
 * which the game is drawn unless that move mates (150 under fide2023, art.
 * 9.6.2): no line passes it, and a line may mate on the move that reaches it.
 * Returns the number of plies of the line written to @line (room for
 * @max), 0 when @pos is already such a checkmate, or -1 when none was found
 * within the budget or @max plies (nothing proven), -2 when out of memory.
 */
int ply__arb_helpmate(const ply_arb_pos_t *pos, int winner, int draw_at, uint64_t budget,
                      uint64_t *nodes, ply_arb_move_t *line, int max);

/**
 * ply__arb_move_from_san_list - ply_arb_move_from_san with the legal moves
 * of @pos already generated (@mv, @n: exactly ply_arb_legal_moves(pos)), so
 * that a replay generates them once a position.
 */
int ply__arb_move_from_san_list(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n,
                                const char *text, ply_arb_move_t *out, char *why, size_t why_len);

/** ply__arb_has_legal_move - 1 when the side to move has at least one legal move. */
int ply__arb_has_legal_move(const ply_arb_pos_t *pos);

/** ply__arb_castle_rook_to - the 0x88 square where the rook lands when the king castles to
 * @king_to. */
static inline int ply__arb_castle_rook_to(int king_to)
{
    /* FIDE Laws art. 3.8(a)(ii) and its Chess960 analogue: rook ends on f (h-side) or d. */
    return ply__arb_file(king_to) == 6 ? king_to - 1 : king_to + 1;
}

/** ply__arb_castle_index - castle_rook[] index used by a castling move to @king_to by @side. */
static inline int ply__arb_castle_index(int side, int king_to)
{
    return side * 2 + (ply__arb_file(king_to) == 2 ? 1 : 0);
}

/*
 * ply__arb_say - writes a proof in words into @proof (@len bytes, NUL-terminated,
 * cut short if it does not fit), printf-style; nothing when @proof is NULL or
 * @len is 0. Shared by the dead-position and unwinnability proofs (deadpos.c,
 * blocked.c).
 */
void ply__arb_say(char *proof, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
