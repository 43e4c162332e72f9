/*
 * FEN, X-FEN and Shredder-FEN for the arbiter: a strict reader that explains
 * every rejection in one line naming the field, a writer, and the canonical
 * position identity used to merge transpositions (art. 9.2).
 *
 * The reader works on the caller's string in place (fields are pointer and
 * length pairs, never copied into fixed buffers), checks all syntax before
 * any semantics, and builds the position in a local that is copied out only
 * on success, so any input string, however long or strange, is safe.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"
#include "util/error.h"

#define START_FEN   "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define NFIELDS_MAX 6

typedef struct field {
    const char *s;
    size_t n;
} field_t;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* A field quoted for a message: at most 24 characters, non-printables as '?'. */
static const char *show_field(field_t f, char *buf, size_t len)
{
    size_t n = f.n > 24 ? 24 : f.n, j = 0;
    buf[j++] = '\'';
    for (size_t i = 0; i < n && j + 5 < len; i++) {
        unsigned char c = (unsigned char)f.s[i];
        buf[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (n < f.n) buf[j++] = '.', buf[j++] = '.', buf[j++] = '.';
    buf[j++] = '\'';
    buf[j] = 0;
    return buf;
}

/* One character quoted for a message: 'x', or byte 0xNN when not printable. */
static const char *show_char(char ch, char *buf, size_t len)
{
    unsigned char c = (unsigned char)ch;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

static void square_name(int sq88, char *buf)
{
    buf[0] = (char)('a' + ply__arb_file(sq88));
    buf[1] = (char)('1' + ply__arb_rank(sq88));
    buf[2] = 0;
}

static const char *colour_name(int c)
{
    return c ? "black" : "white";
}

/* FEN piece letters (art. 2.2's pieces by their English initials, E.1):
 * upper case white, lower case black; 0 for anything else. */
static int piece_code(char c)
{
    static const char letters[] = "PNBRQKpnbrqk";
    const char *at = c ? strchr(letters, c) : NULL;
    if (!at) return 0;
    int i = (int)(at - letters);
    return i < 6 ? ARB_P + i : -(ARB_P + i - 6);
}

/* Split on runs of white space; returns the number of fields (counting past
 * NFIELDS_MAX so that the message can say how many there were). */
static int split_fields(const char *fen, field_t *f)
{
    int n = 0;
    const char *p = fen;
    while (*p) {
        while (*p && is_space(*p)) p++;
        if (!*p) break;
        const char *start = p;
        while (*p && !is_space(*p)) p++;
        if (n < NFIELDS_MAX) f[n] = (field_t){start, (size_t)(p - start)};
        n++;
    }
    return n;
}

/* Field 1: piece placement, rank 8 first, files a to h (FEN standard). */
static int parse_placement(ply_arb_pos_t *p, field_t f, char *why, size_t wl)
{
    char cb[16];
    int ranks = 1;
    for (size_t i = 0; i < f.n; i++) {
        char c = f.s[i];
        if (c == '/')
            ranks++;
        else if (!piece_code(c) && !(c >= '1' && c <= '8'))
            return ply_why(why, wl, PLY_EFEN, "field 1 (placement): bad character %s",
                           show_char(c, cb, sizeof cb));
    }
    if (ranks != 8)
        return ply_why(why, wl, PLY_EFEN, "field 1 (placement): %d ranks (expected 8)", ranks);

    int rank = 7, file = 0;
    for (size_t i = 0; i <= f.n; i++) {
        char c = i < f.n ? f.s[i] : '/';
        if (c == '/') {
            if (file != 8)
                return ply_why(why, wl, PLY_EFEN,
                               "field 1 (placement): rank %d has %d squares (expected 8)", rank + 1,
                               file);
            rank--;
            file = 0;
        } else if (c >= '1' && c <= '8') {
            /* one digit is the whole run of empty squares (the FEN standard): "44" is no
             * spelling of 8 that another program reads */
            if (i > 0 && f.s[i - 1] >= '1' && f.s[i - 1] <= '8')
                return ply_why(why, wl, PLY_EFEN,
                               "field 1 (placement): rank %d has two digits in a row ('%c%c'): "
                               "one digit counts a whole run of empty squares",
                               rank + 1, f.s[i - 1], c);
            file += c - '0';
        } else {
            if (file < 8) p->sq[rank * 16 + file] = (int8_t)piece_code(c);
            file++;
        }
    }
    return 0;
}

/* Field 5 or 6: a decimal number that fits the uint16 clock fields. */
static int parse_number(field_t f, int idx, const char *name, unsigned *out, char *why, size_t wl)
{
    char fb[40];
    unsigned v = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (f.s[i] < '0' || f.s[i] > '9')
            return ply_why(why, wl, PLY_EFEN, "field %d (%s): %s is not a number", idx, name,
                           show_field(f, fb, sizeof fb));
        v = v * 10 + (unsigned)(f.s[i] - '0');
        if (v > 65535)
            return ply_why(why, wl, PLY_EFEN, "field %d (%s): %s is out of range (at most 65535)",
                           idx, name, show_field(f, fb, sizeof fb));
    }
    *out = v;
    return 0;
}

static int is_castle_char(char c)
{
    return c == 'K' || c == 'Q' || c == 'k' || c == 'q' || (c >= 'A' && c <= 'H') ||
           (c >= 'a' && c <= 'h');
}

/* Field 3, syntax only: "-" or distinct characters from KQkq and A-H/a-h. */
static int check_castling_syntax(field_t f, char *why, size_t wl)
{
    char cb[16];
    if (f.n == 1 && f.s[0] == '-') return 0;
    for (size_t i = 0; i < f.n; i++) {
        if (!is_castle_char(f.s[i]))
            return ply_why(why, wl, PLY_EFEN, "field 3 (castling): bad character %s%s",
                           show_char(f.s[i], cb, sizeof cb),
                           f.s[i] == '-' ? " ('-' must stand alone)" : "");
        for (size_t j = 0; j < i; j++)
            if (f.s[j] == f.s[i])
                return ply_why(why, wl, PLY_EFEN, "field 3 (castling): '%c' appears twice", f.s[i]);
    }
    return 0;
}

/* Field 4, syntax only: "-" or a square on rank 3 or 6. Returns the 0x88 square or -1. */
static int parse_ep_syntax(field_t f, int *ep, char *why, size_t wl)
{
    char fb[40];
    *ep = -1;
    if (f.n == 1 && f.s[0] == '-') return 0;
    if (f.n != 2 || f.s[0] < 'a' || f.s[0] > 'h' || f.s[1] < '1' || f.s[1] > '8')
        return ply_why(why, wl, PLY_EFEN, "field 4 (en passant): %s is not a square or -",
                       show_field(f, fb, sizeof fb));
    if (f.s[1] != '3' && f.s[1] != '6')
        return ply_why(why, wl, PLY_EFEN,
                       "field 4 (en passant): %.2s is not on rank 3 or 6 (art. 3.7(d))", f.s);
    *ep = (f.s[1] - '1') * 16 + (f.s[0] - 'a');
    return 0;
}

/*
 * Semantics of field 1: one king per side (art. 2.2), no pawn on rank 1 or 8
 * (art. 3.7(e)), and no more material than the initial set of art. 2.3 plus
 * promotions: at most 16 pieces and 8 pawns, and every piece beyond the
 * initial count a promoted pawn. Besides rejecting impossible positions, this
 * bounds the move lists (PLY_ARB_MAX_MOVES, PLY__ARB_MAX_PSEUDO).
 */
static int check_material(ply_arb_pos_t *p, char *why, size_t wl)
{
    static const int initial[7] = {0, 8, 2, 2, 2, 1, 1};
    int count[2][7] = {{0}};
    char sb[3];
    for (int s = 0; s < 128; s++) {
        if (s & 0x88) continue;
        int pc = p->sq[s];
        if (!pc) continue;
        count[pc < 0][abs(pc)]++;
        if (abs(pc) == ARB_K) p->king[pc < 0] = (uint8_t)s;
        if (abs(pc) == ARB_P && (ply__arb_rank(s) == 0 || ply__arb_rank(s) == 7)) {
            square_name(s, sb);
            return ply_why(why, wl, PLY_EILLEGAL,
                           "field 1 (placement): %s pawn on %s (pawns never stand on rank 1 or 8)",
                           colour_name(pc < 0), sb);
        }
    }
    for (int c = 0; c < 2; c++) {
        const int nk = count[c][ARB_K], np = count[c][ARB_P];
        const char *who = colour_name(c);
        if (nk == 0) return ply_why(why, wl, PLY_EILLEGAL, "field 1 (placement): no %s king", who);
        if (nk == 2)
            return ply_why(why, wl, PLY_EILLEGAL, "field 1 (placement): two %s kings", who);
        if (nk > 2)
            return ply_why(why, wl, PLY_EILLEGAL, "field 1 (placement): %d %s kings", nk, who);
        int total = 0, extra = 0;
        for (int t = ARB_P; t <= ARB_K; t++) {
            total += count[c][t];
            if (t != ARB_P && count[c][t] > initial[t]) extra += count[c][t] - initial[t];
        }
        if (total > 16)
            return ply_why(why, wl, PLY_EILLEGAL, "field 1 (placement): %d %s pieces (at most 16)",
                           total, who);
        if (np > 8)
            return ply_why(why, wl, PLY_EILLEGAL, "field 1 (placement): %d %s pawns (at most 8)",
                           np, who);
        if (extra > 8 - np)
            return ply_why(why, wl, PLY_EILLEGAL,
                           "field 1 (placement): %s has %d pieces beyond the initial set but only "
                           "%d pawns could have promoted",
                           who, extra, 8 - np);
    }
    return 0;
}

/*
 * Field 3 semantics: turn each character into a castling right (a rook
 * square). Standard chess: K/Q need the king on e1/e8 and the rook on h/a.
 * Chess960 (art. 3 extension): K/Q name the outermost rook on that side of
 * the king (X-FEN), a file letter names the rook on that file (Shredder-FEN,
 * or X-FEN for an inner rook); the king must stand on its first rank.
 */
static int resolve_castling(ply_arb_pos_t *p, field_t f, char *why, size_t wl)
{
    char given[4] = {0, 0, 0, 0};
    char sb[3];
    for (int i = 0; i < 4; i++) p->castle_rook[i] = -1;
    if (f.n == 1 && f.s[0] == '-') return 0;

    for (size_t i = 0; i < f.n; i++) {
        const char ch = f.s[i];
        const int c = (ch >= 'a' && ch <= 'z'), sg = c ? -1 : 1;
        const int r0 = c ? 0x70 : 0x00, ks = p->king[c];
        const char up = (char)(c ? ch - 'a' + 'A' : ch);
        const char *who = colour_name(c);
        int rs = -1, hside;

        if (up == 'K' || up == 'Q') {
            hside = up == 'K';
            if (!p->chess960) {
                /* Standard chess: art. 3.8(b)(1), the unmoved king is on e1/e8. */
                if (ks != r0 + 4)
                    return ply_why(why, wl, PLY_EILLEGAL,
                                   "field 3 (castling): '%c' but the %s king is not on e%d", ch,
                                   who, c ? 8 : 1);
                rs = r0 + (hside ? 7 : 0);
                if (p->sq[rs] != sg * ARB_R)
                    return ply_why(why, wl, PLY_EILLEGAL,
                                   "field 3 (castling): '%c' but no %s rook on %c%d", ch, who,
                                   hside ? 'h' : 'a', c ? 8 : 1);
            } else {
                if (ply__arb_rank(ks) != ply__arb_rank(r0))
                    return ply_why(why, wl, PLY_EILLEGAL,
                                   "field 3 (castling): '%c' but the %s king is not on rank %d", ch,
                                   who, c ? 8 : 1);
                /* X-FEN: the outermost rook, scanning inwards from the corner. */
                for (int s = hside ? r0 + 7 : r0; s != ks; s += hside ? -1 : 1)
                    if (p->sq[s] == sg * ARB_R) {
                        rs = s;
                        break;
                    }
                if (rs < 0)
                    return ply_why(
                        why, wl, PLY_EILLEGAL,
                        "field 3 (castling): '%c' but no %s rook on the %s-side of the king "
                        "on rank %d",
                        ch, who, hside ? "h" : "a", c ? 8 : 1);
            }
        } else {
            if (ply__arb_rank(ks) != ply__arb_rank(r0))
                return ply_why(why, wl, PLY_EILLEGAL,
                               "field 3 (castling): '%c' but the %s king is not on rank %d", ch,
                               who, c ? 8 : 1);
            rs = r0 + (up - 'A');
            if (p->sq[rs] != sg * ARB_R) {
                square_name(rs, sb);
                return ply_why(why, wl, PLY_EILLEGAL,
                               "field 3 (castling): '%c' but no %s rook on %s", ch, who, sb);
            }
            hside = rs > ks;
        }
        int idx = c * 2 + (hside ? 0 : 1);
        if (given[idx])
            return ply_why(why, wl, PLY_EILLEGAL,
                           "field 3 (castling): '%c' and '%c' both give the %s %s-side right",
                           given[idx], ch, who, hside ? "h" : "a");
        given[idx] = ch;
        p->castle_rook[idx] = (int8_t)rs;
    }
    return 0;
}

/*
 * Field 4 semantics (art. 3.7(d)): the square was just crossed by a pawn of
 * the side not to move, so it is on that side's third rank, the pawn stands
 * right in front of it, and both the square and the pawn's start are empty.
 */
static int check_ep(const ply_arb_pos_t *p, int ep, char *why, size_t wl)
{
    char e[3], o[3];
    if (ep < 0) return 0;
    const int us = p->side, them = us ^ 1;
    const int fwd_them = them ? -16 : 16; /* the direction the crossing pawn moved */
    square_name(ep, e);
    if (ply__arb_rank(ep) != (us ? 2 : 5))
        return ply_why(why, wl, PLY_EILLEGAL,
                       "field 4 (en passant): %s but %s is to move (the square must be on rank %d)",
                       e, colour_name(us), us ? 3 : 6);
    int pawn = ep + fwd_them, origin = ep - fwd_them;
    if (p->sq[pawn] != (them ? -ARB_P : ARB_P)) {
        square_name(pawn, o);
        return ply_why(why, wl, PLY_EILLEGAL, "field 4 (en passant): %s but no %s pawn on %s", e,
                       colour_name(them), o);
    }
    if (p->sq[ep])
        return ply_why(why, wl, PLY_EILLEGAL, "field 4 (en passant): %s but %s is not empty", e, e);
    if (p->sq[origin]) {
        square_name(origin, o);
        return ply_why(why, wl, PLY_EILLEGAL,
                       "field 4 (en passant): %s but %s, where the pawn came from, is not empty", e,
                       o);
    }
    return 0;
}

/* Art. 3.9 read backwards: the side that just moved cannot be in check, and
 * no move can give check with more than two pieces at once. */
static int check_checks(const ply_arb_pos_t *p, char *why, size_t wl)
{
    int us = p->side, them = us ^ 1, sq[16];
    if (ply__arb_attacked(p, p->king[them], us))
        return ply_why(why, wl, PLY_EILLEGAL,
                       "field 2 (side to move): %s is not to move but is in check",
                       colour_name(them));
    int n = ply__arb_attackers(p, p->king[us], them, sq);
    if (n > 2)
        return ply_why(
            why, wl, PLY_EILLEGAL,
            "field 1 (placement): %s is in check from %d pieces (at most two is possible)",
            colour_name(us), n);
    return 0;
}

/* All syntax first, so that a malformed FEN is reported as PLY_EFEN. */
static int parse_syntax(ply_arb_pos_t *p, const field_t *f, int nf, int *ep, unsigned *clk,
                        char *why, size_t wl)
{
    char fb[40];
    int rc = parse_placement(p, f[0], why, wl);
    if (rc) return rc;
    if (f[1].n != 1 || (f[1].s[0] != 'w' && f[1].s[0] != 'b'))
        return ply_why(why, wl, PLY_EFEN, "field 2 (side to move): %s is not w or b",
                       show_field(f[1], fb, sizeof fb));
    p->side = f[1].s[0] == 'b';
    if ((rc = check_castling_syntax(f[2], why, wl))) return rc;
    if ((rc = parse_ep_syntax(f[3], ep, why, wl))) return rc;
    clk[0] = 0;
    clk[1] = 1;
    if (nf > 4 && (rc = parse_number(f[4], 5, "halfmove clock", &clk[0], why, wl))) return rc;
    if (nf > 5 && (rc = parse_number(f[5], 6, "fullmove number", &clk[1], why, wl))) return rc;
    return 0;
}

int ply_arb_from_fen(ply_arb_pos_t *pos, const char *fen, unsigned flags, char *why, size_t why_len)
{
    field_t f[NFIELDS_MAX];
    ply_arb_pos_t p;
    unsigned clk[2];
    int ep = -1, rc;

    if (!pos || !fen) return ply_why(why, why_len, PLY_EINVAL, "no position or no FEN given");
    int nf = split_fields(fen, f);
    if (nf == 1 && f[0].n == 8 && memcmp(f[0].s, "startpos", 8) == 0)
        nf = split_fields(START_FEN, f); /* art. 2.3, the UCI "position startpos" */
    if (nf == 0) return ply_why(why, why_len, PLY_EFEN, "empty FEN");
    if (nf < 4 || nf > 6)
        return ply_why(why, why_len, PLY_EFEN, "wrong field count: %d field%s (expected 4 to 6)",
                       nf, nf == 1 ? "" : "s");

    memset(&p, 0, sizeof p);
    if ((rc = parse_syntax(&p, f, nf, &ep, clk, why, why_len))) return rc;

    /* Shredder-FEN file letters mean Chess960 even without the flag. */
    p.chess960 = (flags & PLY_ARB_CHESS960) ? 1 : 0;
    for (size_t i = 0; i < f[2].n; i++)
        if (f[2].s[i] != '-' && !strchr("KQkq", f[2].s[i])) p.chess960 = 1;

    if ((rc = check_material(&p, why, why_len))) return rc;
    if ((rc = resolve_castling(&p, f[2], why, why_len))) return rc;
    if ((rc = check_ep(&p, ep, why, why_len))) return rc;
    p.ep = (int16_t)ep;
    if (ep >= 0 && clk[0] != 0)
        return ply_why(why, why_len, PLY_EILLEGAL,
                       "field 5 (halfmove clock): %u but the en-passant square says the last move "
                       "was a pawn move (expected 0)",
                       clk[0]);
    if (clk[1] == 0)
        return ply_why(why, why_len, PLY_EILLEGAL,
                       "field 6 (fullmove number): 0 but moves are numbered from 1");
    p.halfmove = (uint16_t)clk[0];
    p.fullmove = (uint16_t)clk[1];
    if ((rc = check_checks(&p, why, why_len))) return rc;

    *pos = p;
    if (why && why_len) why[0] = 0;
    return 0;
}

void ply_arb_startpos(ply_arb_pos_t *pos)
{
    int rc = ply_arb_from_fen(pos, START_FEN, 0, NULL, 0);
    (void)rc; /* a constant that parses */
}

/* Castling field: KQkq in standard chess, Shredder-FEN rook files in Chess960. */
static int write_castling(const ply_arb_pos_t *pos, char *out)
{
    static const char std_letter[4] = {'K', 'Q', 'k', 'q'};
    int n = 0;
    for (int i = 0; i < 4; i++) {
        int r = pos->castle_rook[i];
        if (r < 0) continue;
        if (!pos->chess960)
            out[n++] = std_letter[i];
        else
            out[n++] = (char)((i >= 2 ? 'a' : 'A') + ply__arb_file(r));
    }
    if (n == 0) out[n++] = '-';
    return n;
}

/* Writes the FEN into @out (>= 128 bytes): four fields, plus the clocks when
 * @clocks. @ep is the 0x88 en-passant square to write, or -1. */
static int write_fen(const ply_arb_pos_t *pos, int ep, int clocks, char *out)
{
    static const char letters[] = "?PNBRQK";
    int n = 0;
    for (int r = 7; r >= 0; r--) {
        int empty = 0;
        for (int fl = 0; fl < 8; fl++) {
            int pc = pos->sq[r * 16 + fl];
            if (!pc) {
                empty++;
                continue;
            }
            if (empty) out[n++] = (char)('0' + empty);
            empty = 0;
            char ch = letters[abs(pc) <= ARB_K ? abs(pc) : 0];
            out[n++] = pc < 0 ? (char)(ch - 'A' + 'a') : ch;
        }
        if (empty) out[n++] = (char)('0' + empty);
        if (r) out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = pos->side ? 'b' : 'w';
    out[n++] = ' ';
    n += write_castling(pos, out + n);
    out[n++] = ' ';
    if (ep >= 0 && !(ep & 0x88)) {
        square_name(ep, out + n);
        n += 2;
    } else {
        out[n++] = '-';
    }
    if (clocks) n += snprintf(out + n, 32, " %u %u", pos->halfmove, pos->fullmove);
    out[n] = 0;
    return n;
}

static int copy_out(const char *tmp, int n, char *buf, size_t len)
{
    if (!buf || len <= (size_t)n) return PLY_ERANGE;
    memcpy(buf, tmp, (size_t)n + 1);
    return n;
}

int ply_arb_to_fen(const ply_arb_pos_t *pos, char *buf, size_t len)
{
    char tmp[128];
    if (!pos) return PLY_EINVAL;
    return copy_out(tmp, write_fen(pos, pos->ep, 1, tmp), buf, len);
}

/*
 * Art. 9.2: an en-passant square changes the position only when the capture
 * is really possible, so it is legal here, not merely pseudo-legal: a pinned
 * capturer, or two pawns leaving one rank and exposing the king to a rook or
 * queen along it, both make it disappear.
 */
int ply__arb_ep_legal(const ply_arb_pos_t *pos)
{
    if (pos->ep < 0) return 0;
    const int us = pos->side, sg = us ? -1 : 1;
    for (int d = -1; d <= 1; d += 2) {
        int from = pos->ep - 16 * sg + d;
        if ((from & 0x88) || pos->sq[from] != sg * ARB_P) continue;
        ply__arb_mv_t m = {(uint8_t)from, (uint8_t)pos->ep, 0,
                           PLY_ARB_MOVE_CAPTURE | PLY_ARB_MOVE_EP};
        ply_arb_pos_t child = *pos;
        ply__arb_make(&child, m);
        if (!ply__arb_left_in_check(&child)) return 1;
    }
    return 0;
}

int ply_arb_identity(const ply_arb_pos_t *pos, char *buf, size_t len)
{
    char tmp[128];
    if (!pos) return PLY_EINVAL;
    return copy_out(tmp, write_fen(pos, ply__arb_ep_legal(pos) ? pos->ep : -1, 0, tmp), buf, len);
}
