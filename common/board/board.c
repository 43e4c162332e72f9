/*
 * Position set-up for the fast engine: FEN / X-FEN / Shredder-FEN in and out,
 * the castling-rights slow path of ply_board_play, keys from scratch, and
 * the invariant checker. Nothing here is on the perft hot path.
 */
#include "board/board.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static const char piece_chars[] = " pnbrqk";

/* Rebuild castle_touch from the rights still held: the kings' squares and
 * the rooks' squares whose moves or captures can remove a right. */
static void refresh_castle_touch(ply_board_t *b)
{
    b->castle_touch = 0;
    for (int r = 0; r < 4; r++)
        if (b->castling & (1 << r))
            b->castle_touch |= ply_bb(b->castle_rook[r]) | ply_bb(b->king[r >> 1]);
}

void ply__board_lose_castling(ply_board_t *b, int lost, int keys)
{
    if (keys)
        for (int r = 0; r < 4; r++)
            if (lost & (1 << r))
                ply__key_xor(b, &ply__zobrist.castling[r][PLY_FILE(b->castle_rook[r])]);
    b->castling ^= (uint8_t)lost;
    refresh_castle_touch(b);
}

void ply_board_compute_key(const ply_board_t *b, uint64_t key[2])
{
    ply_board_t t = *b;
    t.key[0] = t.key[1] = 0;
    for (int c = 0; c < 2; c++)
        for (int p = PLY_PAWN; p <= PLY_KING; p++) {
            ply_bb_t bb = b->pieces[p] & b->colour[c];
            while (bb) ply__key_xor(&t, &ply__zobrist.psq[c][p][ply_pop_lsb(&bb)]);
        }
    for (int r = 0; r < 4; r++)
        if (b->castling & (1 << r))
            ply__key_xor(&t, &ply__zobrist.castling[r][PLY_FILE(b->castle_rook[r])]);
    if (b->ep != PLY_NO_SQ) ply__key_xor(&t, &ply__zobrist.ep[PLY_FILE(b->ep)]);
    if (b->side == PLY_BLACK) ply__key_xor(&t, &ply__zobrist.side);
    key[0] = t.key[0];
    key[1] = t.key[1];
}

void ply_board_startpos(ply_board_t *b)
{
    int rc = ply_board_from_fen(b, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0,
                                NULL, 0);
    (void)rc;
}

/* ---- FEN in ---------------------------------------------------------------- */

static int parse_placement(ply_board_t *b, const char *s, char *why, size_t why_len)
{
    int rank = 7, file = 0;
    for (char prev = 0; *s; prev = *s++) {
        char c = *s;
        if (c == '/') {
            if (file != 8)
                return ply_why(why, why_len, PLY_EFEN,
                               "field 1 (placement): rank %d has %d squares", rank + 1, file);
            if (--rank < 0)
                return ply_why(why, why_len, PLY_EFEN, "field 1 (placement): more than 8 ranks");
            file = 0;
        } else if (c >= '1' && c <= '8') {
            /* one digit is the whole run of empty squares (the FEN standard) */
            if (prev >= '1' && prev <= '8')
                return ply_why(why, why_len, PLY_EFEN,
                               "field 1 (placement): rank %d has two digits in a row ('%c%c'): "
                               "one digit counts a whole run of empty squares",
                               rank + 1, prev, c);
            file += c - '0';
            if (file > 8)
                return ply_why(why, why_len, PLY_EFEN,
                               "field 1 (placement): rank %d has %d squares", rank + 1, file);
        } else {
            const char *p = strchr(piece_chars + 1, tolower((unsigned char)c));
            if (!p || c == '\0')
                return ply_why(why, why_len, PLY_EFEN, "field 1 (placement): bad character '%c'",
                               c);
            if (file > 7)
                return ply_why(why, why_len, PLY_EFEN,
                               "field 1 (placement): rank %d has more than 8 squares", rank + 1);
            int colour = isupper((unsigned char)c) ? PLY_WHITE : PLY_BLACK;
            int sq = PLY_SQ(file, rank);
            b->pieces[p - piece_chars] |= ply_bb(sq);
            b->colour[colour] |= ply_bb(sq);
            file++;
        }
    }
    if (rank != 0 || file != 8)
        return ply_why(why, why_len, PLY_EFEN, "field 1 (placement): needs 8 ranks of 8 squares");
    return 0;
}

/* The rook for castling letter @c of @colour: K/Q = outermost rook on that
 * side of the king (X-FEN), A-H = the rook on that file (Shredder-FEN). */
static int parse_castle_char(ply_board_t *b, char c, int *chess960, char *why, size_t why_len)
{
    int colour = isupper((unsigned char)c) ? PLY_WHITE : PLY_BLACK;
    int rank = colour == PLY_WHITE ? 0 : 7;
    int ksq = b->king[colour];
    char lc = (char)tolower((unsigned char)c);
    if (PLY_RANK(ksq) != rank)
        return ply_why(why, why_len, PLY_EILLEGAL,
                       "field 3 (castling): '%c' but the %s king is not on rank %d", c,
                       colour ? "black" : "white", rank + 1);
    ply_bb_t rooks = b->pieces[PLY_ROOK] & b->colour[colour];
    int rook = -1;
    if (lc == 'k' || lc == 'q') {
        int step = lc == 'k' ? 1 : -1;
        for (int f = PLY_FILE(ksq) + step; f >= 0 && f < 8; f += step)
            if (rooks & ply_bb(PLY_SQ(f, rank))) rook = PLY_SQ(f, rank);
        if (rook < 0)
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "field 3 (castling): '%c' but no %s rook on the %s side of the king", c,
                           colour ? "black" : "white", lc == 'k' ? "h" : "a");
        if (!*chess960 && (PLY_FILE(ksq) != 4 || PLY_FILE(rook) != (lc == 'k' ? 7 : 0)))
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "field 3 (castling): '%c' needs the king on e%d and a rook on %c%d "
                           "(Chess960 positions need --chess960)",
                           c, rank + 1, lc == 'k' ? 'h' : 'a', rank + 1);
    } else if (lc >= 'a' && lc <= 'h') {
        rook = PLY_SQ(lc - 'a', rank);
        *chess960 = 1;
        if (!(rooks & ply_bb(rook)))
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "field 3 (castling): '%c' but no %s rook on %c%d", c,
                           colour ? "black" : "white", lc, rank + 1);
        if (PLY_FILE(rook) == PLY_FILE(ksq))
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "field 3 (castling): '%c' names the king's file", c);
    } else {
        return ply_why(why, why_len, PLY_EFEN, "field 3 (castling): bad character '%c'", c);
    }
    int right = colour * 2 + (PLY_FILE(rook) > PLY_FILE(ksq) ? 0 : 1);
    if (b->castling & (1 << right))
        return ply_why(why, why_len, PLY_EFEN, "field 3 (castling): right '%c' given twice", c);
    b->castling |= (uint8_t)(1 << right);
    b->castle_rook[right] = (uint8_t)rook;
    return 0;
}

static int parse_number(const char *s, long lo, long hi, long *out)
{
    if (!*s) return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi || !isdigit((unsigned char)*s)) return -1;
    *out = v;
    return 0;
}

static int check_position(ply_board_t *b, char *why, size_t why_len)
{
    for (int c = 0; c < 2; c++) {
        ply_bb_t k = b->pieces[PLY_KING] & b->colour[c];
        if (ply_popcount(k) != 1)
            return ply_why(why, why_len, PLY_EILLEGAL, "%s has %d kings", c ? "black" : "white",
                           ply_popcount(k));
        b->king[c] = (uint8_t)ply_lsb(k);
    }
    if (b->pieces[PLY_PAWN] & (PLY_BB_RANK_1 | PLY_BB_RANK_8))
        return ply_why(why, why_len, PLY_EILLEGAL, "a pawn on rank 1 or 8");
    if (ply_popcount(b->colour[0]) > 16 || ply_popcount(b->colour[1]) > 16)
        return ply_why(why, why_len, PLY_EILLEGAL, "more than 16 pieces of one colour");
    int them = b->side ^ 1;
    if (ply_board_attackers(b, b->king[them], b->side, ply_board_occ(b)))
        return ply_why(why, why_len, PLY_EILLEGAL, "%s is not to move but is in check",
                       them ? "black" : "white");
    return 0;
}

int ply_board_from_fen(ply_board_t *b, const char *fen, unsigned flags, char *why, size_t why_len)
{
    if (!b || !fen) return ply_why(why, why_len, PLY_EINVAL, "no FEN given");
    if (strcmp(fen, "startpos") == 0)
        fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    char copy[256];
    if (strlen(fen) >= sizeof copy)
        return ply_why(why, why_len, PLY_EFEN, "FEN longer than 255 characters");
    strcpy(copy, fen);
    char *field[7] = {0};
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == 6) return ply_why(why, why_len, PLY_EFEN, "more than 6 fields");
        field[n++] = t;
    }
    if (n < 4) return ply_why(why, why_len, PLY_EFEN, "%d fields, need at least 4", n);

    memset(b, 0, sizeof *b);
    b->ep = PLY_NO_SQ;
    int rc = parse_placement(b, field[0], why, why_len);
    if (rc) return rc;

    if (strcmp(field[1], "w") == 0)
        b->side = PLY_WHITE;
    else if (strcmp(field[1], "b") == 0)
        b->side = PLY_BLACK;
    else
        return ply_why(why, why_len, PLY_EFEN, "field 2 (side to move): '%s', need w or b",
                       field[1]);

    rc = check_position(b, why, why_len);
    if (rc) return rc;

    int chess960 = (flags & PLY_BOARD_CHESS960) != 0;
    for (const char *c = field[2]; *c; c++) /* letters other than KQkq imply Chess960 */
        if (strchr("ABCDEFGHabcdefgh", *c)) chess960 = 1;
    if (strcmp(field[2], "-") != 0) {
        if (strlen(field[2]) > 4)
            return ply_why(why, why_len, PLY_EFEN,
                           "field 3 (castling): '%s' has more than 4 rights", field[2]);
        for (const char *c = field[2]; *c; c++)
            if ((rc = parse_castle_char(b, *c, &chess960, why, why_len))) return rc;
    }
    b->chess960 = (uint8_t)chess960;

    if (strcmp(field[3], "-") != 0) {
        const char *e = field[3];
        int want_rank = b->side == PLY_WHITE ? 5 : 2;
        if (strlen(e) != 2 || e[0] < 'a' || e[0] > 'h' || e[1] < '1' || e[1] > '8')
            return ply_why(why, why_len, PLY_EFEN, "field 4 (en passant): '%s' is not a square", e);
        int sq = PLY_SQ(e[0] - 'a', e[1] - '1');
        int them = b->side ^ 1;
        int pawn_sq = b->side == PLY_WHITE ? sq - 8 : sq + 8;
        int origin = b->side == PLY_WHITE ? sq + 8 : sq - 8;
        if (PLY_RANK(sq) != want_rank ||
            !(b->pieces[PLY_PAWN] & b->colour[them] & ply_bb(pawn_sq)) ||
            (ply_board_occ(b) & (ply_bb(sq) | ply_bb(origin))))
            return ply_why(why, why_len, PLY_EILLEGAL,
                           "field 4 (en passant): %s is impossible (no %s pawn that just advanced "
                           "two squares)",
                           e, them ? "black" : "white");
        if (ply__pawn_attacks[them][sq] & b->pieces[PLY_PAWN] & b->colour[b->side])
            b->ep = (uint8_t)sq;
    }
    long v = 0;
    if (field[4]) {
        if (parse_number(field[4], 0, 255, &v))
            return ply_why(why, why_len, PLY_EFEN, "field 5 (halfmove clock): '%s' is not 0..255",
                           field[4]);
        b->rule50 = (uint8_t)v;
    }
    b->fullmove = 1;
    if (field[5]) {
        if (parse_number(field[5], 0, 65535, &v))
            return ply_why(why, why_len, PLY_EFEN,
                           "field 6 (fullmove number): '%s' is not 1..65535", field[5]);
        b->fullmove = (uint16_t)(v ? v : 1);
    }
    refresh_castle_touch(b);
    ply_board_compute_key(b, b->key);
    return 0;
}

/* ---- FEN out --------------------------------------------------------------- */

int ply_board_to_fen(const ply_board_t *b, char *buf, size_t len)
{
    char out[PLY_BOARD_FEN_MAX];
    size_t n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            int colour, p = ply_board_piece_on(b, PLY_SQ(file, rank), &colour);
            if (!p) {
                empty++;
                continue;
            }
            if (empty) out[n++] = (char)('0' + empty);
            empty = 0;
            out[n++] = colour == PLY_WHITE ? (char)toupper(piece_chars[p]) : piece_chars[p];
        }
        if (empty) out[n++] = (char)('0' + empty);
        if (rank) out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = b->side == PLY_WHITE ? 'w' : 'b';
    out[n++] = ' ';
    if (!b->castling) out[n++] = '-';
    for (int r = 0; r < 4; r++) {
        if (!(b->castling & (1 << r))) continue;
        char c = b->chess960 ? (char)('a' + PLY_FILE(b->castle_rook[r])) : "kqkq"[r];
        out[n++] = r < 2 ? (char)toupper(c) : c;
    }
    out[n++] = ' ';
    if (b->ep == PLY_NO_SQ) {
        out[n++] = '-';
    } else {
        out[n++] = (char)('a' + PLY_FILE(b->ep));
        out[n++] = (char)('1' + PLY_RANK(b->ep));
    }
    int w = snprintf(out + n, sizeof out - n, " %u %u", b->rule50, b->fullmove);
    n += (size_t)w;
    if (n + 1 > len) return PLY_ERANGE;
    memcpy(buf, out, n);
    buf[n] = '\0';
    return (int)n;
}

/* ---- invariants ------------------------------------------------------------ */

int ply_board_ok(const ply_board_t *b, char *why, size_t why_len)
{
    ply_bb_t all = 0;
    for (int p = PLY_PAWN; p <= PLY_KING; p++) {
        if (all & b->pieces[p]) return !ply_why(why, why_len, 0, "piece sets overlap");
        all |= b->pieces[p];
    }
    if (b->colour[0] & b->colour[1]) return !ply_why(why, why_len, 0, "colour sets overlap");
    if (all != (b->colour[0] | b->colour[1]))
        return !ply_why(why, why_len, 0, "colour and piece sets differ");
    for (int c = 0; c < 2; c++)
        if ((b->pieces[PLY_KING] & b->colour[c]) != ply_bb(b->king[c]))
            return !ply_why(why, why_len, 0, "king square of %s is stale", c ? "black" : "white");
    for (int r = 0; r < 4; r++)
        if ((b->castling & (1 << r)) &&
            !(b->pieces[PLY_ROOK] & b->colour[r >> 1] & ply_bb(b->castle_rook[r])))
            return !ply_why(why, why_len, 0, "castling right %d without its rook", r);
    if (b->ep != PLY_NO_SQ &&
        !(ply__pawn_attacks[b->side ^ 1][b->ep] & b->pieces[PLY_PAWN] & b->colour[b->side]))
        return !ply_why(why, why_len, 0, "en-passant square without a capturing pawn");
    uint64_t key[2];
    ply_board_compute_key(b, key);
    if (key[0] != b->key[0] || key[1] != b->key[1])
        return !ply_why(why, why_len, 0, "stale Zobrist key");
    return 1;
}
