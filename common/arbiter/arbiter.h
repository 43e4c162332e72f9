/*
 * The arbiter: ply's rule engine, the reference every fast result is checked
 * against. It implements the FIDE Laws of Chess as digested in RULES.md
 * (art. 3 moves, Chess960 castling as an extension) with a deliberately
 * simple 0x88 mailbox and a pseudo-legal generator filtered by "is my king
 * attacked after the move". It is slow and obviously correct by design, and
 * it shares no code with common/board (it never includes it, and board never
 * includes it), so that agreement between the two means something.
 *
 * Squares in this API are 0..63 with a1 = 0, b1 = 1, ..., h8 = 63.
 * Every function is reentrant (no global state): positions are plain values.
 */
#ifndef PLY_ARBITER_H
#define PLY_ARBITER_H

#include <stddef.h>
#include <stdint.h>

#include "util/stats.h"

/** Upper bound on legal moves in any position (the known maximum is 218). */
#define PLY_ARB_MAX_MOVES 256
/** Buffer size that always holds a FEN written by ply_arb_to_fen. */
#define PLY_ARB_FEN_MAX 100

/** Flags for ply_arb_from_fen. */
enum {
    /* Read KQkq as X-FEN (the outermost rook on that side of the king) and
     * castle by Chess960 rules. Shredder-FEN file letters imply this flag. */
    PLY_ARB_CHESS960 = 1u << 0,
};

/** A move: from/to squares 0..63, promotion piece, and kind flags. */
typedef struct ply_arb_move {
    uint8_t from;
    uint8_t to;    /* for castling: the king's destination square (g1/c1 ...) */
    uint8_t promo; /* 0, or 'n', 'b', 'r', 'q' */
    uint8_t flags; /* PLY_ARB_MOVE_* */
} ply_arb_move_t;

/* Move kinds. An en-passant capture carries both PLY_ARB_MOVE_EP and
 * PLY_ARB_MOVE_CAPTURE; a castle carries PLY_ARB_MOVE_CASTLE only. */
enum {
    PLY_ARB_MOVE_CAPTURE = 1u << 0,
    PLY_ARB_MOVE_EP = 1u << 1,
    PLY_ARB_MOVE_CASTLE = 1u << 2,
    PLY_ARB_MOVE_DOUBLE = 1u << 3,
};

/**
 * A position. Plain data: copy it with = to keep a position before a move.
 * The fields are the arbiter's own; other modules use the functions below.
 */
typedef struct ply_arb_pos {
    int8_t sq[128];        /* 0x88 board: 0 empty, +1..+6 white P N B R Q K, -1..-6 black */
    uint8_t side;          /* side to move: 0 white, 1 black */
    int8_t castle_rook[4]; /* 0x88 square of the rook of each right (white h-side, white
                              a-side, black h-side, black a-side), -1 when the right is gone */
    int16_t ep;            /* 0x88 square a pawn just skipped, -1 when none */
    uint8_t king[2];       /* 0x88 king squares */
    uint16_t halfmove;     /* plies since the last capture or pawn move (art. 9.3) */
    uint16_t fullmove;
    uint8_t chess960; /* 1: castling by Chess960 rules, FEN castling written as Shredder-FEN */
} ply_arb_pos_t;

/**
 * ply_arb_startpos - the standard initial position (art. 2.3).
 */
void ply_arb_startpos(ply_arb_pos_t *pos);

/**
 * ply_arb_from_fen - parse and validate a FEN, X-FEN or Shredder-FEN.
 * @fen: six space-separated fields; the last two (halfmove clock, fullmove
 *       number) may be omitted, as in EPD. "startpos" is accepted.
 * @flags: PLY_ARB_CHESS960 or 0.
 * @why: receives a one-line reason naming the field and the problem, e.g.
 *       "field 1 (placement): rank 8 has 9 squares", "two white kings",
 *       "field 3 (castling): 'K' but no white rook on h1",
 *       "field 4 (en passant): e3 but no white pawn on e4",
 *       "black is not to move but is in check". May be NULL.
 * Returns 0, PLY_EINVAL (NULL arguments), PLY_EFEN (syntax: field count,
 * characters, square counts, numbers) or PLY_EILLEGAL (well-formed but not a
 * position that can be played from: king counts, pawns on the first or last
 * rank, the side not to move in check, more than two checkers, an impossible
 * en-passant square, a castling right without its king and rook in place).
 * An en-passant square is kept (it is legal to name one even when no capture
 * is possible); ply_arb_identity decides whether it matters.
 * Details of the checks (all PLY_EILLEGAL): more than 16 pieces or 8 pawns a
 * side, or more pieces beyond the initial set (art. 2.3) than pawns missing
 * (each needs a promotion); a halfmove clock other than 0 with an en-passant
 * square; a fullmove number of 0. Clocks above 65535 are PLY_EFEN. Fields are
 * separated by any run of white space. @pos is written only on success; on
 * success *@why is set to "".
 */
int ply_arb_from_fen(ply_arb_pos_t *pos, const char *fen, unsigned flags, char *why,
                     size_t why_len);

/**
 * ply_arb_to_fen - write the position as FEN (six fields) into @buf.
 * Castling is KQkq for standard positions and Shredder-FEN letters (HAha)
 * when pos->chess960. The en-passant square is written whenever a pawn has
 * just made a double step (FEN standard), capturable or not. Returns the
 * length written, PLY_ERANGE when @buf is NULL or @len too small
 * (PLY_ARB_FEN_MAX always suffices), or PLY_EINVAL when @pos is NULL.
 */
int ply_arb_to_fen(const ply_arb_pos_t *pos, char *buf, size_t len);

/**
 * ply_arb_identity - a canonical string that is equal for two positions
 * exactly when their game trees are identical (the repetition rule of
 * art. 9.2 read literally): piece placement, side to move, castling rights
 * (as rook squares), and the en-passant square only when an en-passant
 * capture is actually legal. No clocks. It is also a valid FEN (four fields)
 * that ply_arb_from_fen accepts, so jobs can be sent as identities.
 * Castling is written as by ply_arb_to_fen, so a Chess960-mode position and
 * the same standard-mode position have different identities (never mix the
 * two modes in one tree). Returns the length written, PLY_ERANGE (@buf NULL
 * or @len too small; PLY_ARB_FEN_MAX suffices) or PLY_EINVAL (@pos NULL).
 */
int ply_arb_identity(const ply_arb_pos_t *pos, char *buf, size_t len);

/**
 * ply_arb_legal_moves - every legal move of the side to move (art. 3), in a
 * deterministic order. @moves must hold PLY_ARB_MAX_MOVES entries.
 * Returns the number of moves (0 for checkmate or stalemate).
 */
int ply_arb_legal_moves(const ply_arb_pos_t *pos, ply_arb_move_t *moves);

/**
 * ply_arb_make - play @move, which must be one of ply_arb_legal_moves(pos),
 * updating castling rights, en passant, clocks and the side to move.
 * Castling rights go when the king moves, when a rook leaves its castling
 * square, and when a rook is captured on it (art. 3.8(b)(1)). The
 * PLY_ARB_MOVE_CAPTURE, _EP and _DOUBLE flags are recomputed from the board;
 * PLY_ARB_MOVE_CASTLE is taken from @move (in Chess960 a king step and a
 * castle can share from and to), except that in standard chess a king move
 * of two files from its square is always a castle.
 */
void ply_arb_make(ply_arb_pos_t *pos, ply_arb_move_t move);

/** ply_arb_in_check - 1 when the side to move is in check (art. 3.9), else 0. */
int ply_arb_in_check(const ply_arb_pos_t *pos);

/**
 * ply_arb_checkers - squares (0..63) of the pieces giving check to the side
 * to move, written to @sq (room for 16); returns their number.
 */
int ply_arb_checkers(const ply_arb_pos_t *pos, int *sq);

/**
 * ply_arb_move_to_uci - the move in UCI notation ("e2e4", "e7e8q"). Castling
 * is written king-to-destination ("e1g1") in standard chess and
 * king-takes-rook ("e1h1") when pos->chess960, as UCI_Chess960 engines do.
 * @buf must hold 6 bytes. Returns the length written (4 or 5).
 */
int ply_arb_move_to_uci(const ply_arb_pos_t *pos, ply_arb_move_t move, char *buf);

/**
 * ply_arb_move_from_uci - find the legal move written @uci in UCI notation
 * (both castling forms accepted). Returns 0 with *out set, PLY_EPARSE when
 * the text is not UCI notation, PLY_EILLEGAL when no legal move matches,
 * PLY_EINVAL for NULL arguments. The promotion letter may be upper case. An
 * ordinary move wins over the king-to-destination spelling of a castle (in
 * Chess960, king f1 and rook h1: "f1g1" is the king step, "f1h1" castles).
 */
int ply_arb_move_from_uci(const ply_arb_pos_t *pos, const char *uci, ply_arb_move_t *out);

/**
 * ply_arb_perft - number of leaf nodes of the legal move tree @depth plies
 * deep (perft(0) = 1), by plain recursion: no bulk counting, no hash.
 * Nodes as uint64. Slow by design: use for small depths and cross-checks.
 */
uint64_t ply_arb_perft(const ply_arb_pos_t *pos, int depth);

/**
 * ply_arb_perft_stats - perft with the fifteen statistics of util/stats.h
 * (definitions there; source: the Grand Chess Tree result files).
 * @depth >= 1 (depth 0 gives nodes = 1 and zeros, as the GCT tables do).
 * Fills *out (zeroed first).
 */
void ply_arb_perft_stats(const ply_arb_pos_t *pos, int depth, ply_stats_t *out);

#endif
