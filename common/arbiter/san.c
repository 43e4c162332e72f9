/*
 * SAN for the arbiter (FIDE Laws Appendix E; RULES.md "Notation"), and the
 * long algebraic and FIDE forms written by the same writer.
 *
 * The writer derives everything from ply_arb_legal_moves, so that pinned
 * rivals never force disambiguation and the check marks are true. The reader
 * first normalises the text to plain ASCII (figurines, the multiplication
 * sign, dashes), strips annotations, reads it as castling or as
 * "[piece][file][rank][x|-|:]square[promotion]", and then matches the legal
 * moves. When nothing legal matches it asks the pseudo-legal generator why,
 * so the message says "illegal: king would be in check" rather than "no
 * piece can reach" when a pinned or exposed piece was named.
 *
 * Every input is copied into a bounded local buffer first; no byte of the
 * caller's string beyond its NUL is read, whatever the string contains.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"
#include "arbiter/san.h"
#include "util/error.h"

/* Longest text the reader looks at; real SAN, with annotations, is < 20. */
#define SAN_TEXT_MAX 48

static const char piece_letter[] = "?PNBRQK"; /* indexed by ARB_P..ARB_K */

/* Piece magnitude (ARB_P..ARB_K, 0 empty) on a 0..63 square. */
static int piece_at(const ply_arb_pos_t *pos, int sq64)
{
    return abs(pos->sq[ply__arb_to88(sq64)]);
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int upper(int c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

static void square_text(int sq64, char *out)
{
    out[0] = (char)('a' + (sq64 & 7));
    out[1] = (char)('1' + (sq64 >> 3));
    out[2] = 0;
}

/* ------------------------------------------------------------------ writer */

/*
 * mv[i], one of the @n legal moves of @pos, in @style into @out (>= 16 bytes).
 * SAN and FIDE: disambiguation (E.9) looks only at the other legal moves of the
 * same kind of piece to the same square. LAN: the departure square always, then
 * "-" or "x". With @suffix the "+"/"#" of the resulting position is appended.
 */
static int write_move(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n, int i, int suffix,
                      ply_arb_notation_t style, char *out)
{
    const ply_arb_move_t m = mv[i];
    int len = 0;

    if (m.flags & PLY_ARB_MOVE_CASTLE) {
        /* E's 0-0 / 0-0-0 (PGN spells them with the letter O), chosen by the king's
         * destination file. */
        const char *t = (m.to & 7) == 6 ? "O-O" : "O-O-O";
        if (style == PLY_ARB_NOTATION_FIDE) t = (m.to & 7) == 6 ? "0-0" : "0-0-0";
        len = (int)strlen(t);
        memcpy(out, t, (size_t)len);
    } else if (style == PLY_ARB_NOTATION_LAN) {
        const int piece = piece_at(pos, m.from);
        if (piece != ARB_P) out[len++] = piece_letter[piece];
        square_text(m.from, out + len);
        len += 2;
        out[len++] = (m.flags & PLY_ARB_MOVE_CAPTURE) ? 'x' : '-';
        square_text(m.to, out + len);
        len += 2;
        if (m.promo) {
            out[len++] = '=';
            out[len++] = (char)upper(m.promo);
        }
    } else {
        const int piece = piece_at(pos, m.from);
        const int capture = (m.flags & PLY_ARB_MOVE_CAPTURE) != 0;
        if (piece == ARB_P) {
            if (capture) { /* E.8, E.10: a pawn capture names its departure file */
                out[len++] = (char)('a' + (m.from & 7));
                out[len++] = 'x';
            }
        } else {
            out[len++] = piece_letter[piece];
            int rivals = 0, same_file = 0, same_rank = 0;
            for (int j = 0; j < n; j++) {
                const ply_arb_move_t r = mv[j];
                if (j == i || r.to != m.to || r.from == m.from || (r.flags & PLY_ARB_MOVE_CASTLE) ||
                    piece_at(pos, r.from) != piece)
                    continue;
                rivals++;
                same_file += (r.from & 7) == (m.from & 7);
                same_rank += (r.from >> 3) == (m.from >> 3);
            }
            /* E.9: the file when it tells them apart, else the rank, else both. */
            if (rivals && (!same_file || same_rank)) out[len++] = (char)('a' + (m.from & 7));
            if (rivals && same_file) out[len++] = (char)('1' + (m.from >> 3));
            if (capture) out[len++] = 'x';
        }
        square_text(m.to, out + len);
        len += 2;
        if (m.promo) { /* E.11 writes d8Q; PGN writes d8=Q */
            if (style != PLY_ARB_NOTATION_FIDE) out[len++] = '=';
            out[len++] = (char)upper(m.promo);
        }
    }
    if (suffix) {
        ply_arb_pos_t child = *pos;
        ply_arb_make(&child, m);
        if (ply_arb_in_check(&child)) out[len++] = ply__arb_has_legal_move(&child) ? '+' : '#';
    }
    out[len] = 0;
    return len;
}

/* Index of @move among the legal moves, or -1. */
static int find_legal(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n,
                      ply_arb_move_t move)
{
    for (int i = 0; i < n; i++) {
        if (mv[i].from != move.from || mv[i].to != move.to || mv[i].promo != lower(move.promo))
            continue;
        /* Only Chess960 needs the flag: a king step and a castle can share squares. */
        if (pos->chess960 &&
            (mv[i].flags & PLY_ARB_MOVE_CASTLE) != (move.flags & PLY_ARB_MOVE_CASTLE))
            continue;
        return i;
    }
    return -1;
}

int ply_arb_move_to_san(const ply_arb_pos_t *pos, ply_arb_move_t move, char *buf, size_t len)
{
    return ply_arb_move_to_text(pos, move, PLY_ARB_NOTATION_SAN, buf, len);
}

int ply_arb_move_to_text(const ply_arb_pos_t *pos, ply_arb_move_t move, ply_arb_notation_t style,
                         char *buf, size_t len)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    char tmp[PLY_ARB_SAN_MAX];
    if (!pos || !buf || (unsigned)style > PLY_ARB_NOTATION_FIDE) return PLY_EINVAL;
    int n = ply_arb_legal_moves(pos, mv);
    int i = find_legal(pos, mv, n, move);
    if (i < 0) return PLY_EILLEGAL;
    int k = write_move(pos, mv, n, i, 1, style, tmp);
    if ((size_t)k >= len) return PLY_ERANGE;
    memcpy(buf, tmp, (size_t)k + 1);
    return k;
}

/* ------------------------------------------------------------------ reader */

typedef struct san_text {
    int castle;               /* 0, 1 h-side (O-O), 2 a-side (O-O-O) */
    int piece;                /* ARB_P..ARB_K; 0: coordinates given, the board decides */
    int from_file, from_rank; /* 0..7, or -1 when not given */
    int to;                   /* 0..63 */
    int promo;                /* 0 or 'n', 'b', 'r', 'q' */
} san_text_t;

/*
 * Copy @text into @s as ASCII: figurines (U+2654..U+265F) become piece
 * letters, the multiplication sign U+00D7 becomes 'x', hyphens, en dashes
 * and the minus sign become '-'. Leading and trailing white space go.
 */
static int normalise(const char *text, char *s, char *why, size_t wl)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t n = 0;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    while (*p) {
        if (n + 1 >= SAN_TEXT_MAX) return ply_why(why, wl, PLY_EPARSE, "malformed: too long");
        if (*p < 0x80) {
            if (*p < 0x20 || *p == 0x7f)
                return ply_why(why, wl, PLY_EPARSE, "malformed: control byte 0x%02x", *p);
            s[n++] = (char)*p++;
        } else if (p[0] == 0xC3 && p[1] == 0x97) {
            s[n++] = 'x'; /* E.8 prints the multiplication sign */
            p += 2;
        } else if (p[0] == 0xE2 && p[1] == 0x99 && p[2] >= 0x94 && p[2] <= 0x9F) {
            s[n++] = "KQRBNP"[(p[2] - 0x94) % 6]; /* white then black figurines */
            p += 3;
        } else if (p[0] == 0xE2 && ((p[1] == 0x80 && p[2] >= 0x90 && p[2] <= 0x93) ||
                                    (p[1] == 0x88 && p[2] == 0x92))) {
            s[n++] = '-'; /* typographic dashes in long algebraic */
            p += 3;
        } else {
            return ply_why(why, wl, PLY_EPARSE, "malformed: unexpected byte 0x%02x", *p);
        }
    }
    while (n && s[n - 1] == ' ') n--;
    s[n] = 0;
    return 0;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Strip what follows the move proper: check and mate marks, "!"/"?"
 * annotations, a draw offer "(=)" (E.12) and "e.p." (E.8). */
static size_t strip_suffixes(char *s)
{
    size_t n = strlen(s);
    for (;;) {
        if (n && strchr("+#!? ", s[n - 1]))
            n--;
        else if (ends_with(s, n, "(=)"))
            n -= 3;
        else if (ends_with(s, n, "e.p."))
            n -= 4;
        else
            break;
    }
    s[n] = 0;
    return n;
}

/* "O-O", "0-0", "o-o" (one character throughout) and the three-part forms. */
static int read_castle(const char *s)
{
    for (const char *c = "O0o"; *c; c++) {
        char h[4] = {*c, '-', *c, 0}, a[6] = {*c, '-', *c, '-', *c, 0};
        if (!strcmp(s, h)) return 1;
        if (!strcmp(s, a)) return 2;
    }
    return 0;
}

static int is_file(int c)
{
    return c >= 'a' && c <= 'h';
}

static int is_rank(int c)
{
    return c >= '1' && c <= '8';
}

static int piece_from_letter(int c)
{
    const char *at = c ? strchr(piece_letter + 1, c) : NULL;
    return at ? (int)(at - piece_letter) : 0;
}

/* Promotion at the end of @s (length *n): "=Q", "Q", "q", "(Q)", "/Q". */
static int read_promotion(char *s, size_t *n, int *promo, char *why, size_t wl)
{
    size_t k = *n;
    *promo = 0;
    int paren = k >= 3 && s[k - 1] == ')' && s[k - 3] == '(';
    char c = paren ? s[k - 2] : (k ? s[k - 1] : 0);
    if (!c || is_rank(c) || !(strchr("QRBNKPqrbnkp", c))) return 0;
    k -= paren ? 3 : 1;
    if (!paren && k && (s[k - 1] == '=' || s[k - 1] == '/')) k--;
    if (upper(c) == 'K' || upper(c) == 'P')
        return ply_why(why, wl, PLY_EPARSE,
                       "malformed: a pawn promotes to a queen, rook, bishop or knight, not '%c' "
                       "(art. 3.7(e))",
                       c);
    *promo = lower(c);
    *n = k;
    return 0;
}

/* Everything but castling: [piece][file][rank][x|-|:]square[promotion]. */
static int read_move(char *s, size_t n, san_text_t *t, char *why, size_t wl)
{
    char shown[SAN_TEXT_MAX];
    snprintf(shown, sizeof shown, "%s", s);
    int rc = read_promotion(s, &n, &t->promo, why, wl);
    if (rc) return rc;
    if (n < 2 || !is_file(s[n - 2]) || !is_rank(s[n - 1]))
        return ply_why(why, wl, PLY_EPARSE, "malformed: '%s' does not end with a square", shown);
    t->to = (s[n - 1] - '1') * 8 + (s[n - 2] - 'a');
    n -= 2;

    size_t i = 0;
    t->piece = 0;
    if (i < n && piece_from_letter(s[i])) t->piece = piece_from_letter(s[i++]);
    t->from_file = t->from_rank = -1;
    if (i < n && is_file(s[i])) t->from_file = s[i++] - 'a';
    if (i < n && is_rank(s[i])) t->from_rank = s[i++] - '1';
    if (i < n && (s[i] == 'x' || s[i] == ':' || s[i] == '-')) i++;
    if (i != n) {
        char cb[16];
        unsigned char c = (unsigned char)s[i];
        snprintf(cb, sizeof cb, c >= 0x21 && c < 0x7f ? "'%c'" : "byte 0x%02x", c);
        return ply_why(why, wl, PLY_EPARSE, "malformed: unexpected %s in '%s'", cb, shown);
    }
    /* Without a piece letter: full coordinates are long algebraic or UCI and
     * the board says which piece moves; anything else is a pawn move (E.3). */
    if (!t->piece && (t->from_file < 0 || t->from_rank < 0)) t->piece = ARB_P;
    if (t->promo && t->piece && t->piece != ARB_P)
        return ply_why(why, wl, PLY_EPARSE, "malformed: only a pawn promotes (art. 3.7(e))");
    return 0;
}

static int parse_text(const char *text, san_text_t *t, char *why, size_t wl)
{
    char s[SAN_TEXT_MAX];
    memset(t, 0, sizeof *t);
    int rc = normalise(text, s, why, wl);
    if (rc) return rc;
    size_t n = strip_suffixes(s);
    if (n == 0) return ply_why(why, wl, PLY_EPARSE, "malformed: empty move");
    if (!strcmp(s, "--") || !strcmp(s, "Z0") || !strcmp(s, "0000") || !strcmp(s, "@@@@"))
        return ply_why(why, wl, PLY_EPARSE, "malformed: '%s' is a null move, not a move of chess",
                       s);
    if ((t->castle = read_castle(s))) return 0;
    if (strchr(s, ' '))
        return ply_why(why, wl, PLY_EPARSE, "malformed: '%.30s' contains a space", s);
    return read_move(s, n, t, why, wl);
}

/* Does legal-or-pseudo move (from, to, promo) fit the text's constraints? */
static int fits(const ply_arb_pos_t *pos, const san_text_t *t, int from, int to, int use_hint)
{
    if (to != t->to) return 0;
    if (t->piece && piece_at(pos, from) != t->piece) return 0;
    if (use_hint && t->from_file >= 0 && (from & 7) != t->from_file) return 0;
    if (use_hint && t->from_rank >= 0 && (from >> 3) != t->from_rank) return 0;
    return 1;
}

/* "a, b or c" of the SAN of the listed legal moves, into @why. */
static int list_moves(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n, const int *idx,
                      int k, char *why, size_t wl)
{
    char buf[256], san[PLY_ARB_SAN_MAX];
    size_t used = 0;
    buf[0] = 0;
    for (int j = 0; j < k; j++) {
        write_move(pos, mv, n, idx[j], 0, PLY_ARB_NOTATION_SAN, san);
        const char *sep = j == 0 ? "" : j == k - 1 ? " or " : ", ";
        int w = snprintf(buf + used, sizeof buf - used, "%s%s", sep, san);
        if (w < 0 || (size_t)w >= sizeof buf - used) break;
        used += (size_t)w;
    }
    return ply_why(why, wl, PLY_EILLEGAL, "ambiguous: %s", buf);
}

/* Why castling on side @aside (0 h-side, 1 a-side) is not legal (art. 3.8). */
static int castle_reason(const ply_arb_pos_t *pos, int aside, char *why, size_t wl)
{
    const int us = pos->side, them = us ^ 1;
    const int ks = pos->king[us], base = us ? 0x70 : 0;
    const int rs = pos->castle_rook[us * 2 + aside];
    const char *name = aside ? "O-O-O" : "O-O";
    if (rs < 0)
        return ply_why(why, wl, PLY_EILLEGAL,
                       "illegal: %s without the right to castle (the king or that rook has moved, "
                       "art. 3.8(b)(1))",
                       name);
    if (ply__arb_attacked(pos, ks, them))
        return ply_why(why, wl, PLY_EILLEGAL, "illegal: %s out of check (art. 3.8(b)(2))", name);
    const int kto = base + (aside ? 2 : 6), rto = base + (aside ? 3 : 5);
    int spans[2][2] = {{ks, kto}, {rs, rto}};
    for (int k = 0; k < 2; k++) {
        int lo = spans[k][0] < spans[k][1] ? spans[k][0] : spans[k][1];
        int hi = spans[k][0] < spans[k][1] ? spans[k][1] : spans[k][0];
        for (int s = lo; s <= hi; s++)
            if (s != ks && s != rs && pos->sq[s])
                return ply_why(why, wl, PLY_EILLEGAL,
                               "illegal: %s with a piece between the king and the rook "
                               "(art. 3.8(b)(2))",
                               name);
    }
    int lo = ks < kto ? ks : kto, hi = ks < kto ? kto : ks;
    for (int s = lo; s <= hi; s++)
        if (s != kto && ply__arb_attacked(pos, s, them))
            return ply_why(why, wl, PLY_EILLEGAL,
                           "illegal: %s would take the king across an attacked square "
                           "(art. 3.8(b)(2))",
                           name);
    return ply_why(why, wl, PLY_EILLEGAL, "illegal: king would be in check");
}

/* Nothing legal matched a non-castling text: say why. */
static int explain(const ply_arb_pos_t *pos, const san_text_t *t, int promo_only_wrong, char *why,
                   size_t wl)
{
    char to[3];
    square_text(t->to, to);
    if (promo_only_wrong)
        return ply_why(
            why, wl, PLY_EILLEGAL,
            "illegal: a move to %s is not a promotion (a pawn promotes on the last rank, "
            "art. 3.7(e))",
            to);
    ply__arb_mv_t mv[PLY__ARB_MAX_PSEUDO];
    int n = ply__arb_gen(pos, mv), near = 0;
    for (int i = 0; i < n; i++) {
        if (mv[i].flags & PLY_ARB_MOVE_CASTLE) continue;
        int from = ply__arb_to64(mv[i].from), dest = ply__arb_to64(mv[i].to);
        if (fits(pos, t, from, dest, 1))
            return ply_why(why, wl, PLY_EILLEGAL, "illegal: king would be in check");
        near |= fits(pos, t, from, dest, 0);
    }
    /* Coordinates naming the king's castling move (e1g1, Ke1c1, ...). */
    const int us = pos->side, ks = ply__arb_to64(pos->king[us]);
    if (t->from_file >= 0 && t->from_rank >= 0 && t->from_file + 8 * t->from_rank == ks &&
        (t->piece == 0 || t->piece == ARB_K) && (t->to >> 3) == (ks >> 3))
        for (int a = 0; a < 2; a++) {
            int rs = pos->castle_rook[us * 2 + a];
            int kto = (ks & ~7) + (a ? 2 : 6);
            if (t->to == kto || (rs >= 0 && t->to == ply__arb_to64(rs)))
                return castle_reason(pos, a, why, wl);
        }
    if (near && t->from_file >= 0 && t->from_rank >= 0)
        return ply_why(why, wl, PLY_EILLEGAL, "no piece can reach %s from %c%c", to,
                       'a' + t->from_file, '1' + t->from_rank);
    if (near && t->from_file >= 0)
        return ply_why(why, wl, PLY_EILLEGAL, "no piece can reach %s from the %c-file", to,
                       'a' + t->from_file);
    if (near)
        return ply_why(why, wl, PLY_EILLEGAL, "no piece can reach %s from rank %c", to,
                       '1' + t->from_rank);
    if (t->from_file >= 0 && t->from_rank >= 0 && !t->piece)
        return ply_why(why, wl, PLY_EILLEGAL, "no piece can reach %s from %c%c", to,
                       'a' + t->from_file, '1' + t->from_rank);
    return ply_why(why, wl, PLY_EILLEGAL, "no piece can reach %s", to);
}

static int match_castle(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n, int side_a,
                        ply_arb_move_t *out, char *why, size_t wl)
{
    for (int i = 0; i < n; i++)
        if ((mv[i].flags & PLY_ARB_MOVE_CASTLE) && ((mv[i].to & 7) == 2) == side_a) {
            *out = mv[i];
            return 0;
        }
    return castle_reason(pos, side_a, why, wl);
}

int ply_arb_move_from_san(const ply_arb_pos_t *pos, const char *text, ply_arb_move_t *out,
                          char *why, size_t why_len)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    if (!pos || !text || !out) return ply_why(why, why_len, PLY_EINVAL, "no position or no move");
    return ply__arb_move_from_san_list(pos, mv, ply_arb_legal_moves(pos, mv), text, out, why,
                                       why_len);
}

int ply__arb_move_from_san_list(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n,
                                const char *text, ply_arb_move_t *out, char *why, size_t why_len)
{
    san_text_t t;
    if (!pos || !text || !out) return ply_why(why, why_len, PLY_EINVAL, "no position or no move");
    int rc = parse_text(text, &t, why, why_len);
    if (rc) return rc;
    if (t.castle) return match_castle(pos, mv, n, t.castle == 2, out, why, why_len);

    /* Long algebraic and UCI: the UCI reader knows both castling spellings
     * and the Chess960 rule that an ordinary move wins over a castle. */
    if (t.from_file >= 0 && t.from_rank >= 0) {
        char uci[6] = {(char)('a' + t.from_file),
                       (char)('1' + t.from_rank),
                       (char)('a' + (t.to & 7)),
                       (char)('1' + (t.to >> 3)),
                       (char)t.promo,
                       0};
        ply_arb_move_t m;
        int from = t.from_file + 8 * t.from_rank;
        if (ply_arb_move_from_uci(pos, uci, &m) == 0 &&
            (!t.piece || piece_at(pos, from) == t.piece)) {
            *out = m;
            return 0;
        }
    }

    int cand[PLY_ARB_MAX_MOVES], nc = 0, wrong_promo = 0;
    int missing[PLY_ARB_MAX_MOVES], nm = 0;
    int fileless[PLY_ARB_MAX_MOVES], nf = 0;
    for (int i = 0; i < n; i++) {
        if ((mv[i].flags & PLY_ARB_MOVE_CASTLE) || !fits(pos, &t, mv[i].from, mv[i].to, 1))
            continue;
        /* Appendix E.8/E.10: a pawn capture names its file of departure ("exd6"); "d6",
         * "xd6" or "Pxd6" cannot be told from a push by a reader that follows the rules,
         * so they never match a capture. */
        if (t.piece == ARB_P && t.from_file < 0 && (mv[i].flags & PLY_ARB_MOVE_CAPTURE)) {
            fileless[nf++] = i;
            continue;
        }
        if (mv[i].promo && !t.promo)
            missing[nm++] = i;
        else if (mv[i].promo == t.promo)
            cand[nc++] = i;
        else if (!mv[i].promo)
            wrong_promo = 1;
    }
    if (nc == 1) {
        *out = mv[cand[0]];
        return 0;
    }
    if (nc > 1) return list_moves(pos, mv, n, cand, nc, why, why_len);
    if (nm) return list_moves(pos, mv, n, missing, nm, why, why_len);
    if (nf) {
        char a[PLY_ARB_SAN_MAX], b[PLY_ARB_SAN_MAX];
        write_move(pos, mv, n, fileless[0], 0, PLY_ARB_NOTATION_SAN, a);
        if (nf > 1) write_move(pos, mv, n, fileless[1], 0, PLY_ARB_NOTATION_SAN, b);
        return ply_why(why, why_len, PLY_EPARSE,
                       "malformed: a pawn capture names its file (FIDE Laws, Appendix E.8): %s%s%s",
                       a, nf > 1 ? " or " : "", nf > 1 ? b : "");
    }
    return explain(pos, &t, wrong_promo, why, why_len);
}
