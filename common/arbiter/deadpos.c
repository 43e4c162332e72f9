/*
 * Dead positions (FIDE Laws art. 5.2(b), 9.6 in the 2000 edition) and the
 * one-sided question of art. 6.10 ("can this side still checkmate by any
 * series of legal moves?").
 *
 * Three kinds of proof, all conservative: the material theorems (the
 * insufficient-material cases, and the one-sided classes of 6.10 where no
 * checkmate position exists at all); proof by exhaustion, a breadth-first
 * walk over every position reachable from the given one (legal moves of both
 * sides, clocks ignored, which only adds sequences) that ends with no
 * checkmate of the wanted kind found; and forced lines, a depth-limited walk
 * of narrow trees whose every leaf is dead by material or a stalemate. The
 * walks stop at fixed bounds and then prove nothing, so they run only where
 * the answer is cheap: every pawn rammed with only kings and bishops besides
 * (and no capture ever possible), very little material, or very few moves.
 * Positions that are dead by material are leaves of the walks (nothing below
 * them can mate).
 *
 * ply_arb_unwinnable puts the proofs together for one side (issue 14): the
 * material theorems, the static argument of blocked.c, the helpmate search
 * of helpmate.c for "yes", and the walk for "no" where it can finish, all
 * within one node budget, with the method and the proof in words; every
 * "yes" comes with a line of moves that is replayed before it is given (the
 * walk's a shortest one, from the parents it keeps). ply_arb_unwinnable_laws
 * adds the 75-move rule of the 2023 Laws: a game already drawn by it, a
 * depth-first search of every series within the last few plies, and lines
 * that must mate before the clock runs out.
 *
 * Positions are kept as 40-byte keys (4 bits a square, side, castling rook
 * squares, en-passant square only when the capture is legal: the identity of
 * art. 9.2), in one array that is also the breadth-first queue, with an
 * open-addressing index and the index of each one's parent (to give the
 * line to a checkmate found); memory is about 54 bytes a visited position.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"
#include "arbiter/endgame.h"
#include "arbiter/san.h"
#include "util/error.h"
#include "util/time.h"

/* Search bounds: positions visited before giving up (no proof). */
#define BLOCKED_LIMIT 150000
/* The exhaustive walk of ply_arb_unwinnable keeps about 54 bytes a position:
 * at most this many whatever the budget (216 MB). */
#define WALK_MAX 4000000
/* Forced lines (ply__arb_dead_forced): at most this many moves a position, and plies. */
#define FORCED_WIDTH 3
#define FORCED_DEPTH 8

enum { REACH_NONE = 0, REACH_FOUND = 1, REACH_LIMIT = 2 };

void ply__arb_say(char *proof, size_t len, const char *fmt, ...)
{
    if (!proof || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(proof, len, fmt, ap);
    va_end(ap);
}

static const char *side_name(int side)
{
    return side ? "black" : "white";
}

/* ---------------------------------------------------------------- material */

typedef struct material {
    int count[2][7]; /* per side, per piece magnitude */
    int bishops[2];  /* bishops on light [0] and dark [1] squares, both sides */
    int non_king;    /* every piece but the kings, pawns included */
} material_t;

static void count_material(const ply_arb_pos_t *p, material_t *m)
{
    memset(m, 0, sizeof *m);
    for (int s = 0; s < 128; s++) {
        if ((s & 0x88) || !p->sq[s]) continue;
        int pc = p->sq[s], a = abs(pc);
        m->count[pc < 0][a]++;
        if (a != ARB_K) m->non_king++;
        /* a1 is dark (art. 2.1: h1 is light), so an even file+rank is dark. */
        if (a == ARB_B) m->bishops[(ply__arb_file(s) + ply__arb_rank(s)) % 2 == 0]++;
    }
}

/* Pieces of @side other than its king, pawns included. */
static int own_pieces(const material_t *m, int side)
{
    int n = 0;
    for (int a = ARB_P; a <= ARB_Q; a++) n += m->count[side][a];
    return n;
}

/*
 * The insufficient-material theorems (RULES.md, 5.2(b)): with no pawns,
 * rooks or queens, a checkmate needs either two knights in play, a knight
 * and another piece, or bishops on both colours; the cases below have none
 * of these, so no sequence of moves can mate.
 */
static int material_dead(const material_t *m, char *proof, size_t len)
{
    int knights = 0, bishops = m->bishops[0] + m->bishops[1];
    for (int c = 0; c < 2; c++) {
        if (m->count[c][ARB_P] || m->count[c][ARB_R] || m->count[c][ARB_Q]) return 0;
        knights += m->count[c][ARB_N];
    }
    if (knights == 0 && bishops == 0) {
        ply__arb_say(proof, len, "insufficient material: king against king");
        return 1;
    }
    if (knights == 1 && bishops == 0) {
        ply__arb_say(proof, len, "insufficient material: king and knight against king");
        return 1;
    }
    if (knights == 0 && bishops == 1) {
        ply__arb_say(proof, len, "insufficient material: king and bishop against king");
        return 1;
    }
    if (knights == 0 && (m->bishops[0] == 0 || m->bishops[1] == 0)) {
        /* Every square a bishop attacks has its colour, and a king on that
         * colour always has a neighbour of the other colour that no bishop
         * can cover or block: no checkmate is possible. */
        ply__arb_say(proof, len, "insufficient material: only bishops, all on %s squares",
                     m->bishops[0] ? "light" : "dark");
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ position keys */

typedef ply__arb_key_t reach_key_t;

void ply__arb_key_encode(const ply_arb_pos_t *p, ply__arb_key_t *k)
{
    memset(k, 0, sizeof *k);
    for (int s = 0; s < 64; s++) {
        int pc = p->sq[ply__arb_to88(s)];
        int code = pc > 0 ? pc : pc < 0 ? ARB_K - pc : 0; /* 1..6 white, 7..12 black */
        k->b[s >> 1] |= (uint8_t)(code << ((s & 1) * 4));
    }
    k->b[32] = p->side;
    for (int i = 0; i < 4; i++)
        k->b[33 + i] = p->castle_rook[i] < 0 ? 0xFF : (uint8_t)ply__arb_to64(p->castle_rook[i]);
    /* Art. 9.2: the en-passant square matters only when the capture is legal. */
    k->b[37] = p->ep >= 0 && ply__arb_ep_legal(p) ? (uint8_t)ply__arb_to64(p->ep) : 0xFF;
}

void ply__arb_key_decode(const ply__arb_key_t *k, int chess960, ply_arb_pos_t *p)
{
    memset(p, 0, sizeof *p);
    for (int s = 0; s < 64; s++) {
        int code = (k->b[s >> 1] >> ((s & 1) * 4)) & 15;
        int pc = code <= ARB_K ? code : ARB_K - code;
        int s88 = ply__arb_to88(s);
        p->sq[s88] = (int8_t)pc;
        if (pc == ARB_K) p->king[0] = (uint8_t)s88;
        if (pc == -ARB_K) p->king[1] = (uint8_t)s88;
    }
    p->side = k->b[32];
    for (int i = 0; i < 4; i++)
        p->castle_rook[i] = k->b[33 + i] == 0xFF ? -1 : (int8_t)ply__arb_to88(k->b[33 + i]);
    p->ep = k->b[37] == 0xFF ? -1 : (int16_t)ply__arb_to88(k->b[37]);
    p->fullmove = 1;
    p->chess960 = (uint8_t)chess960;
}

uint64_t ply__arb_key_hash(const ply__arb_key_t *k)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < sizeof k->b; i++) h = (h ^ k->b[i]) * 1099511628211ull;
    return h;
}

/* The visited set: keys in visiting order (the queue) plus an index. */
typedef struct reach_set {
    reach_key_t *keys;
    uint32_t *parent; /* index of the position each was first reached from (the root: itself) */
    size_t n, cap;
    uint32_t *slot; /* key index + 1, 0 when free */
    size_t nslot;   /* power of two, at least twice n */
} reach_set_t;

static int set_grow(reach_set_t *s)
{
    size_t cap = s->cap ? s->cap * 2 : 1024;
    reach_key_t *keys = realloc(s->keys, cap * sizeof *keys);
    if (!keys) return -1;
    s->keys = keys;
    uint32_t *parent = realloc(s->parent, cap * sizeof *parent);
    if (!parent) return -1;
    s->parent = parent;
    s->cap = cap;
    uint32_t *slot = calloc(cap * 2, sizeof *slot);
    if (!slot) return -1;
    free(s->slot);
    s->slot = slot;
    s->nslot = cap * 2;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = ply__arb_key_hash(&s->keys[i]) & (s->nslot - 1);
        while (s->slot[j]) j = (j + 1) & (s->nslot - 1);
        s->slot[j] = (uint32_t)(i + 1);
    }
    return 0;
}

/* 1 when added (reached from position @from), 0 when already there, -1 when out of memory. */
static int set_add(reach_set_t *s, const reach_key_t *k, size_t from)
{
    if (s->n == s->cap && set_grow(s)) return -1;
    size_t j = ply__arb_key_hash(k) & (s->nslot - 1);
    while (s->slot[j]) {
        if (!memcmp(&s->keys[s->slot[j] - 1], k, sizeof *k)) return 0;
        j = (j + 1) & (s->nslot - 1);
    }
    s->keys[s->n] = *k;
    s->parent[s->n] = (uint32_t)from;
    s->slot[j] = (uint32_t)++s->n;
    return 1;
}

static int cannot_mate(const material_t *m, int side, char *proof, size_t len);

/* The moves from the root to position @at of @s along the parents (the
 * walk is breadth-first, so a shortest series), into @line: the number of
 * plies, or -1 when more than @max. Each step is found again among the
 * legal moves of the parent. */
static int reach_line(const reach_set_t *s, size_t at, int chess960, ply_arb_move_t *line, int max)
{
    int n = 0;
    for (size_t i = at; i; i = s->parent[i]) n++;
    if (n > max) return -1;
    size_t i = at;
    for (int d = n - 1; d >= 0; d--, i = s->parent[i]) {
        ply_arb_pos_t p;
        ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
        reach_key_t k;
        ply__arb_key_decode(&s->keys[s->parent[i]], chess960, &p);
        int m = ply_arb_legal_moves(&p, mv), j = 0;
        for (; j < m; j++) {
            ply_arb_pos_t child = p;
            ply_arb_make(&child, mv[j]);
            ply__arb_key_encode(&child, &k);
            if (!memcmp(&k, &s->keys[i], sizeof k)) break;
        }
        if (j == m) return -1; /* cannot happen: the walk reached it by one of them */
        line[d] = mv[j];
    }
    return n;
}

/*
 * Breadth-first walk over the positions reachable from @root. @mater: the
 * side whose checkmate of the other is sought, or -1 for a checkmate by
 * either. With @frozen, the walk gives up (REACH_LIMIT) as soon as a capture
 * becomes possible: the blocked-position proof covers only positions whose
 * pawns and material can never change, and giving up early keeps the common
 * case (a king can reach a pawn) cheap. Returns REACH_FOUND, REACH_NONE
 * (every reachable position visited) or REACH_LIMIT (more than @limit
 * positions, a capture with @frozen, or out of memory). On REACH_FOUND
 * with @line, *@nline is the number of plies of a shortest series of legal
 * moves to the checkmate found, written to @line (-1 when more than
 * PLY_ARB_LINE_MAX).
 */
static int reach(const ply_arb_pos_t *root, int mater, int frozen, size_t limit, size_t *visited,
                 ply_arb_move_t *line, int *nline)
{
    reach_set_t s = {0};
    reach_key_t k;
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    int verdict = REACH_NONE;

    ply__arb_key_encode(root, &k);
    if (set_add(&s, &k, 0) < 0) verdict = REACH_LIMIT;
    for (size_t i = 0; verdict == REACH_NONE && i < s.n; i++) {
        ply_arb_pos_t p;
        material_t m;
        ply__arb_key_decode(&s.keys[i], root->chess960, &p);
        count_material(&p, &m);
        if (material_dead(&m, NULL, 0)) continue;                    /* no mate below: a leaf */
        if (mater >= 0 && cannot_mate(&m, mater, NULL, 0)) continue; /* no mate by it below */
        int n = ply_arb_legal_moves(&p, mv);
        if (n == 0) {
            if (ply_arb_in_check(&p) && (mater < 0 || p.side != mater)) {
                verdict = REACH_FOUND;
                if (line) *nline = reach_line(&s, i, root->chess960, line, PLY_ARB_LINE_MAX);
            }
            continue;
        }
        for (int j = 0; j < n && verdict == REACH_NONE; j++) {
            if (frozen && (mv[j].flags & PLY_ARB_MOVE_CAPTURE)) {
                verdict = REACH_LIMIT;
                break;
            }
            ply_arb_pos_t child = p;
            ply_arb_make(&child, mv[j]);
            ply__arb_key_encode(&child, &k);
            int added = set_add(&s, &k, i);
            if (added < 0 || s.n > limit) verdict = REACH_LIMIT;
        }
    }
    *visited = s.n;
    free(s.keys);
    free(s.parent);
    free(s.slot);
    return verdict;
}

/* ------------------------------------------------------------------- gates */

/* Every pawn stands right in front of an opposing pawn, and besides kings
 * and pawns there are only bishops: the positions where a pawn chain may
 * seal the board and the reachable set stays small. The search then runs
 * frozen (see reach): any reachable capture ends it without a proof. */
static int blocked_gate(const ply_arb_pos_t *p)
{
    int pawns = 0;
    for (int s = 0; s < 128; s++) {
        if (s & 0x88) continue;
        int pc = p->sq[s], a = abs(pc);
        if (a == ARB_N || a == ARB_R || a == ARB_Q) return 0;
        if (a != ARB_P) continue;
        pawns++;
        if (p->sq[s + (pc > 0 ? 16 : -16)] != -pc) return 0;
    }
    return pawns > 0;
}

int ply__arb_dead_material(const ply_arb_pos_t *pos, char *proof, size_t len)
{
    material_t m;
    count_material(pos, &m);
    return material_dead(&m, proof, len);
}

/* The side to move is checkmated in @pos itself (the static arguments
 * speak of the positions after it). */
static int is_mate_now(const ply_arb_pos_t *pos)
{
    return ply_arb_in_check(pos) && !ply__arb_has_legal_move(pos);
}

int ply__arb_dead_static(const ply_arb_pos_t *pos, char *proof, size_t len)
{
    ply__arb_frozen_t f;
    char why[2][PLY_ARB_PROOF_MAX];
    if (!ply__arb_frozen(pos, &f) || is_mate_now(pos)) return 0;
    for (int side = 0; side < 2; side++)
        if (!ply__arb_frozen_no_mate(pos, &f, side, why[side], sizeof why[side])) return 0;
    ply__arb_say(proof, len, "blocked: no pawn can ever move or capture; %s; and %s", why[0],
                 why[1]);
    return 1;
}

int ply__arb_dead_blocked(const ply_arb_pos_t *pos, char *proof, size_t len)
{
    size_t visited = 0;
    ply__arb_frozen_t f;
    int frozen = ply__arb_frozen(pos, &f);
    if (!frozen && !blocked_gate(pos)) return 0;
    /* A frozen structure never loses a pawn, so the walk may follow piece
     * captures; otherwise it stops at the first capture (see reach). */
    if (reach(pos, -1, !frozen, BLOCKED_LIMIT, &visited, NULL, NULL) != REACH_NONE) return 0;
    ply__arb_say(proof, len,
                 "blocked position: all %zu reachable positions searched, none is checkmate",
                 visited);
    return 1;
}

/*
 * Forced lines: every sequence of legal moves from @pos reaches, within
 * @depth plies, a position dead by material or a stalemate (a line that ends
 * without mate), and no checkmate on the way. Only narrow trees are explored:
 * a node with more than FORCED_WIDTH legal moves proves nothing, so the test
 * costs a few move generations when it fails, which is almost always.
 */
static int forced_rec(const ply_arb_pos_t *pos, int depth, int *nodes)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    (*nodes)++;
    if (ply__arb_dead_material(pos, NULL, 0)) return 1;
    int n = ply_arb_legal_moves(pos, mv);
    if (n == 0) return !ply_arb_in_check(pos); /* stalemate ends the line; mate refutes */
    if (depth == 0 || n > FORCED_WIDTH) return 0;
    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child = *pos;
        ply_arb_make(&child, mv[i]);
        if (!forced_rec(&child, depth - 1, nodes)) return 0;
    }
    return 1;
}

int ply__arb_dead_forced(const ply_arb_pos_t *pos, int legal_moves, char *proof, size_t len)
{
    int nodes = 0;
    if (legal_moves > FORCED_WIDTH || legal_moves == 0) return 0;
    if (!forced_rec(pos, FORCED_DEPTH, &nodes)) return 0;
    ply__arb_say(
        proof, len,
        "forced: every sequence of legal moves (%d positions) leads to insufficient material "
        "or stalemate",
        nodes);
    return 1;
}

int ply_arb_dead(const ply_arb_pos_t *pos, char *proof, size_t len)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    if (!pos) return 0;
    if (ply__arb_dead_material(pos, proof, len)) return 1;
    if (ply__arb_dead_static(pos, proof, len)) return 1;
    if (ply__arb_dead_blocked(pos, proof, len)) return 1;
    return ply__arb_dead_forced(pos, ply_arb_legal_moves(pos, mv), proof, len);
}

/*
 * The one-sided material theorems of art. 6.10 beyond a bare king: a king
 * with a single knight cannot mate a king with a single queen, and a king
 * with a single bishop cannot mate a king with a single rook or queen (no
 * pawns anywhere). No checkmate position exists in these classes: an
 * exhaustive enumeration of every legal placement found none (K+N v K+Q:
 * 8,952,608 positions), and by hand, a queen or rook blocking one flight of a
 * mated king always sees the checking square (or the minor piece cannot
 * cover the remaining flights). Captures only lead to a bare king or to
 * K+minor v K, so no later position can be a mate either.
 */
static int lone_minor_against_major(const material_t *m, int side, char *proof, size_t len)
{
    const int them = side ^ 1;
    if (m->count[0][ARB_P] || m->count[1][ARB_P] || own_pieces(m, side) != 1 ||
        own_pieces(m, them) != 1)
        return 0;
    const char *who = side_name(side);
    if (m->count[side][ARB_N] && m->count[them][ARB_Q]) {
        ply__arb_say(proof, len,
                     "a king and knight (%s) cannot mate a king and queen: no such checkmate "
                     "exists",
                     who);
        return 1;
    }
    if (m->count[side][ARB_B] && (m->count[them][ARB_Q] || m->count[them][ARB_R])) {
        ply__arb_say(proof, len,
                     "a king and bishop (%s) cannot mate a king and %s: no such checkmate exists",
                     who, m->count[them][ARB_Q] ? "queen" : "rook");
        return 1;
    }
    return 0;
}

/* Every material theorem for @side (art. 6.10), the proof in words. */
static int cannot_mate(const material_t *m, int side, char *proof, size_t len)
{
    char why[PLY_ARB_PROOF_MAX];
    if (own_pieces(m, side) == 0) {
        ply__arb_say(proof, len, "%s has only its king, which can never give check",
                     side_name(side));
        return 1;
    }
    if (lone_minor_against_major(m, side, proof, len)) return 1;
    if (material_dead(m, why, sizeof why)) {
        ply__arb_say(proof, len, "dead position (%s)", why);
        return 1;
    }
    return 0;
}

int ply__arb_cannot_mate_material(const ply_arb_pos_t *pos, int side)
{
    material_t m;
    count_material(pos, &m);
    return cannot_mate(&m, side, NULL, 0);
}

const char *ply_arb_method_name(ply_arb_method_t method)
{
    switch (method) {
    case PLY_ARB_METHOD_MATERIAL:
        return "material";
    case PLY_ARB_METHOD_HELPMATE:
        return "helpmate";
    case PLY_ARB_METHOD_EXHAUSTIVE:
        return "exhaustive";
    case PLY_ARB_METHOD_BLOCKED:
        return "blocked";
    case PLY_ARB_METHOD_FORCED:
        return "forced";
    case PLY_ARB_METHOD_UNDETERMINED:
        return "undetermined";
    case PLY_ARB_METHOD_RULE:
        return "rule";
    }
    return "?";
}

/* The helpmate line in SAN with move numbers ("1. Kb2 Kd4 2. Qc3#"), cut
 * at a move with " ..." when @len is too small. */
static void line_text(const ply_arb_pos_t *pos, const ply_arb_move_t *mv, int n, char *out,
                      size_t len)
{
    ply_arb_pos_t p = *pos;
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        char san[PLY_ARB_SAN_MAX], num[24] = "";
        if (ply_arb_move_to_san(&p, mv[i], san, sizeof san) < 0) snprintf(san, sizeof san, "?");
        if (p.side == 0)
            snprintf(num, sizeof num, "%d. ", p.fullmove);
        else if (i == 0)
            snprintf(num, sizeof num, "%d... ", p.fullmove);
        char piece[48];
        int w = snprintf(piece, sizeof piece, "%s%s%s", i ? " " : "", num, san);
        if (used + (size_t)w + 5 >= len) {
            snprintf(out + used, len - used, " ...");
            return;
        }
        memcpy(out + used, piece, (size_t)w + 1);
        used += (size_t)w;
        ply_arb_make(&p, mv[i]);
    }
}

static void finish(ply_arb_unwin_t *out, ply_arb_mate_t verdict, ply_arb_method_t method,
                   uint64_t t0)
{
    out->verdict = verdict;
    out->method = method;
    out->elapsed_us = (ply_time_ns() - t0) / 1000;
}

/* The exhaustive walk runs only where it can finish: a frozen structure,
 * rammed pawns with bishops, or very little material. */
static int exhaustive_gate(const ply_arb_pos_t *pos, const material_t *m, int frozen)
{
    return frozen || blocked_gate(pos) || m->non_king <= 3;
}

/* The halfmove clock at which a game is drawn unless that move mates: 150
 * plies, 75 moves by each player, under fide2023 (art. 9.6.2); 0 under
 * fide2000, where no clock ends a game by itself. */
#define SEVENTY_FIVE 150
static int draw_at_of(ply_arb_laws_t laws)
{
    return laws == PLY_ARB_FIDE2023 ? SEVENTY_FIVE : 0;
}

/* The clock walk (fide2023) runs when at most this many plies are left
 * before the 75-move draw, within at most this many positions. */
#define CLOCK_WALK_PLIES 8
#define CLOCK_WALK_MAX   200000

/* The exhaustive walk for @out->side within @limit positions (and WALK_MAX),
 * its positions added to @out->nodes and counted in *@visited; a shortest
 * line to a checkmate found in @line, *@nline plies (see reach). */
static int walk_for(const ply_arb_pos_t *pos, uint64_t limit, ply_arb_unwin_t *out, size_t *visited,
                    ply_arb_move_t *line, int *nline)
{
    size_t cap = limit < WALK_MAX ? (size_t)limit : WALK_MAX;
    *nline = -1;
    int r = reach(pos, out->side, 0, cap, visited, line, nline);
    out->nodes += *visited < cap ? *visited : cap;
    return r;
}

/* 1 when @moves (@n plies) replay from @pos, each one of the legal moves there, and end
 * with @side's checkmate of the other side (art. 5.1(a)): the check every "yes" passes
 * before it is given, independent of how the search found the line. With @draw_at
 * (fide2023), also no move before the last brings the halfmove clock to @draw_at (art.
 * 9.6.2; the mating move may: checkmate takes precedence) and no position before the last
 * occurs a fifth time within the line, the position asked about counted once (9.6.1;
 * the game's earlier positions are not known here). */
static int line_mates(const ply_arb_pos_t *pos, int side, const ply_arb_move_t *moves, int n,
                      int draw_at)
{
    ply_arb_pos_t p = *pos;
    ply_arb_move_t legal[PLY_ARB_MAX_MOVES];
    reach_key_t seen[PLY_ARB_LINE_MAX + 1];
    if (n > PLY_ARB_LINE_MAX) return 0;
    ply__arb_key_encode(&p, &seen[0]);
    for (int i = 0; i < n; i++) {
        int k = ply_arb_legal_moves(&p, legal), found = 0;
        for (int j = 0; j < k && !found; j++)
            found = !memcmp(&legal[j], &moves[i], sizeof legal[j]);
        if (!found) return 0;
        ply_arb_make(&p, moves[i]);
        if (!draw_at || i == n - 1) continue;
        if (p.halfmove >= draw_at) return 0;
        ply__arb_key_encode(&p, &seen[i + 1]);
        int times = 0;
        for (int j = 0; j <= i + 1; j++) times += !memcmp(&seen[j], &seen[i + 1], sizeof seen[j]);
        if (times >= 5) return 0;
    }
    return p.side != side && ply_arb_in_check(&p) && ply_arb_legal_moves(&p, legal) == 0;
}

/* The answer of a walk that finished: REACH_NONE proves "no"; REACH_FOUND
 * proves "yes" with the walk's shortest line when it replays (line_mates,
 * under the clock of @draw_at too). Returns 1 when *@out is decided, 0 when
 * the line is missing (longer than PLY_ARB_LINE_MAX) or breaks the clock. */
static int walked(const ply_arb_pos_t *pos, ply_arb_unwin_t *out, int r, size_t visited,
                  const ply_arb_move_t *line, int nline, int draw_at, uint64_t t0)
{
    const char *who = side_name(out->side);
    char text[PLY_ARB_PROOF_MAX];
    if (r == REACH_NONE) {
        ply__arb_say(
            out->proof, sizeof out->proof,
            "exhaustive: all %zu reachable positions searched, none is a checkmate given by %s",
            visited, who);
        finish(out, PLY_ARB_MATE_IMPOSSIBLE, PLY_ARB_METHOD_EXHAUSTIVE, t0);
        return 1;
    }
    if (nline <= 0 || !line_mates(pos, out->side, line, nline, draw_at)) return 0;
    memcpy(out->moves, line, (size_t)nline * sizeof *line);
    out->nmoves = nline;
    line_text(pos, line, nline, text, sizeof text);
    ply__arb_say(out->proof, sizeof out->proof,
                 "exhaustive: a checkmate given by %s is among the %zu reachable positions "
                 "searched; a shortest line to it, %d pl%s: %s",
                 who, visited, nline, nline == 1 ? "y" : "ies", text);
    finish(out, PLY_ARB_MATE_POSSIBLE, PLY_ARB_METHOD_EXHAUSTIVE, t0);
    return 1;
}

/* The clock walk, depth first from @p (@ply plies below the root): every
 * series of legal moves that the 75-move rule lets go on. REACH_FOUND: one
 * ends in @side's checkmate (@line, *@nline plies); REACH_NONE: none does,
 * and every capture or pawn move on the way leaves @side unable to mate by
 * material; REACH_LIMIT: another capture or pawn move (the clock starts
 * again: nothing proven) or more than @limit nodes. */
static int clock_rec(const ply_arb_pos_t *p, int side, int draw_at, int ply, ply_arb_move_t *line,
                     int *nline, uint64_t *nodes, uint64_t limit)
{
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    if (++*nodes > limit) return REACH_LIMIT;
    if (ply__arb_cannot_mate_material(p, side) || ply >= PLY_ARB_LINE_MAX) return REACH_NONE;
    int n = ply_arb_legal_moves(p, mv), verdict = REACH_NONE;
    for (int i = 0; i < n; i++) {
        ply_arb_pos_t child = *p;
        ply_arb_make(&child, mv[i]);
        line[ply] = mv[i];
        if (p->side == side && ply_arb_in_check(&child) && !ply__arb_has_legal_move(&child)) {
            *nline = ply + 1;
            return REACH_FOUND;
        }
        if (child.halfmove == 0) {
            /* A capture or pawn move: the 75 moves start again, and nothing is
             * proven below unless @side can no longer mate by material. */
            if (!ply__arb_cannot_mate_material(&child, side)) verdict = REACH_LIMIT;
            continue;
        }
        if (child.halfmove >= draw_at) continue; /* drawn: the game is over */
        int r = clock_rec(&child, side, draw_at, ply + 1, line, nline, nodes, limit);
        if (r == REACH_FOUND) return r;
        if (r == REACH_LIMIT) {
            verdict = REACH_LIMIT;
            if (*nodes > limit) return r;
        }
    }
    return verdict;
}

int ply_arb_unwinnable(const ply_arb_pos_t *pos, int side, uint64_t budget, ply_arb_unwin_t *out)
{
    return ply_arb_unwinnable_laws(pos, side, PLY_ARB_FIDE2000, budget, out);
}

int ply_arb_unwinnable_laws(const ply_arb_pos_t *pos, int side, ply_arb_laws_t laws,
                            uint64_t budget, ply_arb_unwin_t *out)
{
    if (!pos || !out || side < 0 || side > 1) return PLY_EINVAL;
    const uint64_t t0 = ply_time_ns();
    const int draw_at = draw_at_of(laws);
    material_t m;
    ply__arb_frozen_t f;
    char why[PLY_ARB_PROOF_MAX];
    ply_arb_move_t wline[PLY_ARB_LINE_MAX];
    int wn = -1;
    const char *who = side_name(side);
    memset(out, 0, sizeof *out);
    out->side = side;
    out->budget = budget ? budget : PLY_ARB_UNWIN_BUDGET;
    count_material(pos, &m);
    if (cannot_mate(&m, side, out->proof, sizeof out->proof)) {
        finish(out, PLY_ARB_MATE_IMPOSSIBLE, PLY_ARB_METHOD_MATERIAL, t0);
        return 0;
    }
    if (pos->side != side && is_mate_now(pos)) {
        ply__arb_say(out->proof, sizeof out->proof, "%s is checkmated in this very position",
                     side_name(side ^ 1));
        finish(out, PLY_ARB_MATE_POSSIBLE, PLY_ARB_METHOD_HELPMATE, t0);
        return 0;
    }
    if (draw_at && pos->halfmove >= draw_at) {
        ply__arb_say(out->proof, sizeof out->proof,
                     "the game is already drawn by the 75-move rule (art. 9.6.2): %d plies "
                     "without a pawn move or capture and no checkmate, so no move follows",
                     pos->halfmove);
        finish(out, PLY_ARB_MATE_IMPOSSIBLE, PLY_ARB_METHOD_RULE, t0);
        return 0;
    }
    if (!ply__arb_has_legal_move(pos)) {
        ply__arb_say(
            out->proof, sizeof out->proof,
            "exhaustive: %s has no legal move (%s), so this is the only reachable position, and "
            "it is not a checkmate given by %s",
            side_name(pos->side), ply_arb_in_check(pos) ? "checkmate" : "stalemate", who);
        finish(out, PLY_ARB_MATE_IMPOSSIBLE, PLY_ARB_METHOD_EXHAUSTIVE, t0);
        return 0;
    }
    const int frozen = ply__arb_frozen(pos, &f);
    if (frozen && ply__arb_frozen_no_mate(pos, &f, side, why, sizeof why)) {
        ply__arb_say(out->proof, sizeof out->proof, "blocked: no pawn can ever move or capture; %s",
                     why);
        finish(out, PLY_ARB_MATE_IMPOSSIBLE, PLY_ARB_METHOD_BLOCKED, t0);
        return 0;
    }
    /* fide2023, a few plies before the 75-move draw: every series of legal
     * moves within them, unless one captures or moves a pawn. */
    if (draw_at && draw_at - pos->halfmove <= CLOCK_WALK_PLIES) {
        uint64_t spent = 0, cap = out->budget < CLOCK_WALK_MAX ? out->budget : CLOCK_WALK_MAX;
        int r = clock_rec(pos, side, draw_at, 0, wline, &wn, &spent, cap);
        out->nodes += spent < cap ? spent : cap;
        if (r == REACH_FOUND && line_mates(pos, side, wline, wn, draw_at)) {
            memcpy(out->moves, wline, (size_t)wn * sizeof *wline);
            out->nmoves = wn;
            line_text(pos, wline, wn, why, sizeof why);
            ply__arb_say(out->proof, sizeof out->proof, "helpmate in %d pl%s: %s", wn,
                         wn == 1 ? "y" : "ies", why);
            finish(out, PLY_ARB_MATE_POSSIBLE, PLY_ARB_METHOD_HELPMATE, t0);
            return 0;
        }
        if (r == REACH_NONE) {
            ply__arb_say(out->proof, sizeof out->proof,
                         "exhaustive: the halfmove clock is %d, so the 75-move rule (art. "
                         "9.6.2) draws the game %d pl%s from here unless a capture or pawn move "
                         "comes first; all %llu positions within them searched: none is a "
                         "checkmate given by %s, and every capture or pawn move among them "
                         "leaves it without the material to mate",
                         pos->halfmove, draw_at - pos->halfmove,
                         draw_at - pos->halfmove == 1 ? "y" : "ies", (unsigned long long)spent,
                         who);
            finish(out, PLY_ARB_MATE_IMPOSSIBLE, PLY_ARB_METHOD_EXHAUSTIVE, t0);
            return 0;
        }
    }
    /* On a frozen structure the reachable set is small and the walk proves
     * "no" far sooner than the helpmate search would exhaust its budget: it
     * goes first with three quarters of the budget. Elsewhere the helpmate search goes
     * first (a mate is usually near), with half the budget when the walk can
     * follow. The walk ignores the clocks, which only adds series of moves: its
     * "no" holds under either Laws, its "yes" only with a line that replays. */
    int walk = exhaustive_gate(pos, &m, frozen), r = REACH_LIMIT;
    size_t visited = 0;
    if (frozen && out->nodes < out->budget) {
        r = walk_for(pos, (out->budget - out->nodes) / 4 * 3, out, &visited, wline, &wn);
        if (r == REACH_NONE) {
            walked(pos, out, r, visited, wline, wn, draw_at, t0);
            return 0;
        }
        walk = 0;
    }
    uint64_t left = out->budget - out->nodes;
    int n = ply__arb_helpmate(pos, side, draw_at, walk ? left / 2 : left, &out->nodes, out->moves,
                              PLY_ARB_LINE_MAX);
    if (n > 0 && !line_mates(pos, side, out->moves, n, draw_at)) {
        /* never printed as a proof: a line that does not replay is a bug, said as one */
        ply__arb_say(out->proof, sizeof out->proof,
                     "undetermined: internal error, the helpmate line found for %s does not replay",
                     who);
        finish(out, PLY_ARB_MATE_UNDETERMINED, PLY_ARB_METHOD_UNDETERMINED, t0);
        return 0;
    }
    if (n > 0) {
        out->nmoves = n;
        line_text(pos, out->moves, n, why, sizeof why);
        ply__arb_say(out->proof, sizeof out->proof, "helpmate in %d pl%s: %s", n,
                     n == 1 ? "y" : "ies", why);
        finish(out, PLY_ARB_MATE_POSSIBLE, PLY_ARB_METHOD_HELPMATE, t0);
        return 0;
    }
    if (r == REACH_FOUND && walked(pos, out, r, visited, wline, wn, draw_at, t0)) return 0;
    if (n == -1 && walk && out->nodes < out->budget) {
        r = walk_for(pos, out->budget - out->nodes, out, &visited, wline, &wn);
        if (r != REACH_LIMIT && walked(pos, out, r, visited, wline, wn, draw_at, t0)) return 0;
    }
    if (n == -2)
        ply__arb_say(out->proof, sizeof out->proof, "undetermined: out of memory");
    else
        ply__arb_say(out->proof, sizeof out->proof,
                     "undetermined: no proof either way for %s within the budget of %llu nodes",
                     who, (unsigned long long)out->budget);
    finish(out, PLY_ARB_MATE_UNDETERMINED, PLY_ARB_METHOD_UNDETERMINED, t0);
    return 0;
}

ply_arb_mate_t ply_arb_can_mate(const ply_arb_pos_t *pos, int side, char *proof, size_t len)
{
    ply_arb_unwin_t *u = malloc(sizeof *u);
    if (!u) {
        ply__arb_say(proof, len, "undetermined: out of memory");
        return PLY_ARB_MATE_UNDETERMINED;
    }
    if (ply_arb_unwinnable(pos, side, 0, u)) {
        free(u);
        ply__arb_say(proof, len, "undetermined: no position or no such side");
        return PLY_ARB_MATE_UNDETERMINED;
    }
    ply_arb_mate_t v = u->verdict;
    ply__arb_say(proof, len, "%s", u->proof);
    free(u);
    return v;
}
