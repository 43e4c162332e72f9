/*
 * Standard Algebraic Notation for the arbiter (FIDE Laws, Appendix E; RULES.md
 * "Notation"): a writer that produces the standard PGN form (and on request
 * long algebraic or the FIDE spelling), and a tolerant reader for what players
 * and files really contain.
 *
 * The writer computes everything from the legal moves of the position, so
 * disambiguation ignores a rival piece that is pinned (it cannot move there)
 * and the check and mate marks are those of the position after the move.
 * The reader accepts the FIDE and PGN spellings side by side and rejects
 * anything ambiguous, illegal or malformed with a one-line reason.
 */
#ifndef PLY_ARBITER_SAN_H
#define PLY_ARBITER_SAN_H

#include <stddef.h>

#include "arbiter/arbiter.h"

/** Buffer size that always holds a move written by ply_arb_move_to_san
 * (the longest is a doubly disambiguated capture with check, "Qh4xe1+",
 * or a promotion capture with mate, "exd8=Q#"). */
#define PLY_ARB_SAN_MAX 16

/**
 * ply_arb_move_to_san - write @move, a legal move of @pos, in standard PGN
 * SAN (Appendix E, in the PGN spelling): piece letter (K Q R B N, none for
 * pawns), departure file and/or rank only when another legal move of the same
 * kind of piece reaches the same square (E.9: the file when it tells them
 * apart, else the rank, else both), "x" for captures (pawn captures name the
 * departure file, E.8/E.10), "=Q" for promotions (E.11 writes "Q"; PGN adds
 * "="), "O-O" / "O-O-O" for castling on the h-side / a-side (Chess960: by the
 * king's destination file, g or c), then "+" for check or "#" for checkmate
 * computed on the position after the move.
 * @buf receives the text, NUL-terminated; @len is its size (PLY_ARB_SAN_MAX
 * always suffices). @move is matched against the legal moves by from, to and
 * promotion (and the castle flag in Chess960, where a king step and a castle
 * may share both squares); its other flags are ignored.
 * Returns the length written, PLY_EINVAL (NULL arguments), PLY_EILLEGAL
 * (@move is not a legal move of @pos) or PLY_ERANGE (@len too small).
 */
int ply_arb_move_to_san(const ply_arb_pos_t *pos, ply_arb_move_t move, char *buf, size_t len);

/** The notations ply_arb_move_to_text writes. */
typedef enum ply_arb_notation {
    PLY_ARB_NOTATION_SAN = 0, /* PGN SAN, as ply_arb_move_to_san: Nf3, exd6, e8=Q, O-O */
    PLY_ARB_NOTATION_LAN = 1, /* long algebraic: Ng1-f3, e5xd6, e7-e8=Q, O-O */
    PLY_ARB_NOTATION_FIDE = 2 /* the FIDE Laws' own spelling: Nf3, exd6, e8Q, 0-0 */
} ply_arb_notation_t;

/**
 * ply_arb_move_to_text - write @move, a legal move of @pos, in @style:
 *   - PLY_ARB_NOTATION_SAN: exactly ply_arb_move_to_san;
 *   - PLY_ARB_NOTATION_LAN: long algebraic, the form that names the square of
 *     departure as well (Ng1-f3, e2-e4, e5xd6): piece letter (none for pawns),
 *     departure square, "-" or "x", arrival square, "=Q" for promotions (as in
 *     SAN), "O-O" / "O-O-O" for castling; never disambiguated, since the
 *     departure square is named;
 *   - PLY_ARB_NOTATION_FIDE: SAN as the Laws spell it (Appendix E; RULES.md
 *     "Notation"): the promoted piece right after the square ("e8Q", E.11),
 *     castling with zeros ("0-0", "0-0-0"); otherwise as SAN.
 * Every style ends with "+" for check or "#" for checkmate. The reader,
 * ply_arb_move_from_san, reads all three back to the same move.
 * Returns the length written, PLY_EINVAL (NULL arguments or an unknown @style),
 * PLY_EILLEGAL (@move is not a legal move of @pos) or PLY_ERANGE (@len too
 * small; PLY_ARB_SAN_MAX always suffices: the longest is "e7xd8=Q#").
 */
int ply_arb_move_to_text(const ply_arb_pos_t *pos, ply_arb_move_t move, ply_arb_notation_t style,
                         char *buf, size_t len);

/**
 * ply_arb_move_from_san - find the legal move of @pos that @text denotes.
 * Accepted forms (Appendix E and what real files contain):
 *   - castling "O-O", "O-O-O", "0-0", "0-0-0" (also lower-case "o-o", as in
 *     the seeds' table of abbreviations);
 *   - "Nf3", "e4", captures with "x", the multiplication sign U+00D7 or ":",
 *     or no capture mark at all ("Bxe5", "B×e5", "Be5", "dxe5", "de5");
 *   - disambiguation by file, rank or both, necessary or not ("Ngf3",
 *     "N1f3", "Ng1f3");
 *   - long algebraic with "-" or "x" ("Ng1-f3", "e2-e4", "e4xd5") and UCI
 *     ("e2e4", "e7e8q", castling as "e1g1" or king-takes-rook "e1h1");
 *   - promotions "d8=Q", "d8Q" (E.11), "d8=q", "d8(Q)", "d8/Q";
 *   - an optional "P" for pawns, figurine symbols U+2654..U+265F for the
 *     piece letter, the suffix "e.p." after an en-passant capture, and
 *     trailing "+", "++", "#", "!", "?", "(=)" (E.12, a draw offer), which
 *     are ignored: the check marks are not compared with the position.
 * A capture mark on a move that captures nothing is tolerated too. A pawn capture
 * must name its file of departure (Appendix E.8: "exd6", "ed6", "e5xd6"): "d6",
 * "xd6" or "Pxd6" never match a capture, since a reader that follows the rules
 * cannot tell them from a push.
 * @why receives a one-line reason on failure (may be NULL), one of:
 *   "malformed: ..." (PLY_EPARSE): not a move in any accepted notation;
 *   "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): exd6"
 *       (PLY_EPARSE): a pawn capture without its file, the capture(s) it could be;
 *   "ambiguous: Nbd2 or Nfd2" (PLY_EILLEGAL): several legal moves match, listed
 *       in SAN (also when a promotion does not name its piece);
 *   "illegal: king would be in check" (PLY_EILLEGAL): a piece of that kind can
 *       move there, but the move would leave or put its king in check (art. 3.9);
 *   "illegal: ..." (PLY_EILLEGAL) for castling without the right, out of or
 *       through check, or with pieces in between (art. 3.8), or a promotion
 *       on a move that does not reach the last rank (art. 3.7(e));
 *   "no piece can reach e5" (PLY_EILLEGAL): no piece of that kind (and on the
 *       given file or rank) can move to the square at all.
 * Returns 0 with *@out set, PLY_EINVAL (NULL @pos, @text or @out),
 * PLY_EPARSE or PLY_EILLEGAL as above. Never reads past the NUL of @text,
 * whatever its bytes.
 */
int ply_arb_move_from_san(const ply_arb_pos_t *pos, const char *text, ply_arb_move_t *out,
                          char *why, size_t why_len);

#endif
