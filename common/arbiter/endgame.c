/*
 * A game in progress under a rule set (fide2000 or fide2023): the current
 * position, the identities of the positions since the last pawn move or
 * capture (art. 9.2: earlier ones can never recur, since pawns never move
 * back and captured pieces never return), and the state of the current
 * position: how the game ended by rule, and which draw claims the side to
 * move has (9.2, 9.3).
 *
 * Repetition uses ply_arb_identity, the literal reading of 9.2: same side to
 * move, same pieces on the same squares, same castling rights, and an
 * en-passant square only when the capture is legal. Each history entry keeps
 * the identity text itself (compared after a hash), so a hash collision can
 * never make two different positions count as one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter_private.h"
#include "arbiter/endgame.h"
#include "util/error.h"

typedef struct hist {
    uint64_t hash;
    int ply;
    char id[PLY_ARB_FEN_MAX];
} hist_t;

/* What must stay the same for two positions to be joined by reversible moves
 * only: pawns, material and castling rights (the blocked-search memo key). */
typedef struct signature {
    uint64_t pawns[2];
    uint8_t count[2][7];
    int8_t castle[4];
} signature_t;

struct ply_arb_game {
    ply_arb_laws_t laws;
    ply_arb_pos_t pos;
    int ply;
    hist_t *h; /* since the last pawn move or capture; the last is the current position */
    size_t nh, caph;
    int oom;
    /* The legal moves of the current position, generated once: the replay
     * reads a move, plays it and asks for the state with one generation. */
    ply_arb_move_t mv[PLY_ARB_MAX_MOVES];
    int nmv, mv_valid;
    /* The blocked-position search, remembered for its signature: between two
     * positions with the same signature only king and bishop moves were made. */
    int memo_valid, memo_dead;
    signature_t memo_sig;
    char memo_proof[PLY_ARB_PROOF_MAX];
};

const char *ply_arb_flag_article(ply_arb_laws_t laws)
{
    return laws == PLY_ARB_FIDE2023 ? "art. 6.9" : "art. 6.10";
}

int ply_arb_laws_parse(const char *name, ply_arb_laws_t *out)
{
    if (!name || !out) return PLY_EINVAL;
    if (!strcmp(name, "fide2000")) {
        *out = PLY_ARB_FIDE2000;
        return 0;
    }
    if (!strcmp(name, "fide2023")) {
        *out = PLY_ARB_FIDE2023;
        return 0;
    }
    return PLY_EINVAL;
}

const char *ply_arb_laws_name(ply_arb_laws_t laws)
{
    return laws == PLY_ARB_FIDE2023 ? "fide2023" : "fide2000";
}

const char *ply_arb_end_name(ply_arb_end_t end)
{
    switch (end) {
    case PLY_ARB_END_CHECKMATE:
        return "checkmate";
    case PLY_ARB_END_STALEMATE:
        return "stalemate";
    case PLY_ARB_END_DEAD:
        return "dead position";
    case PLY_ARB_END_FIVEFOLD:
        return "fivefold repetition";
    case PLY_ARB_END_SEVENTYFIVE:
        return "75-move rule";
    default:
        return "none";
    }
}

const char *ply_arb_end_article(ply_arb_end_t end, ply_arb_laws_t laws)
{
    switch (end) {
    case PLY_ARB_END_CHECKMATE:
        return "art. 5.1(a)";
    case PLY_ARB_END_STALEMATE:
        return "art. 5.2(a)";
    case PLY_ARB_END_DEAD:
        return laws == PLY_ARB_FIDE2023 ? "art. 5.2.2" : "art. 5.2(b)";
    case PLY_ARB_END_FIVEFOLD:
        return "art. 9.6.1 (fide2023)";
    case PLY_ARB_END_SEVENTYFIVE:
        return "art. 9.6.2 (fide2023)";
    default:
        return "";
    }
}

static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Append the identity of the current position to the history. */
static int push_current(ply_arb_game_t *g)
{
    if (g->nh == g->caph) {
        size_t cap = g->caph ? g->caph * 2 : 64;
        hist_t *h = realloc(g->h, cap * sizeof *h);
        if (!h) return PLY_ENOMEM;
        g->h = h;
        g->caph = cap;
    }
    hist_t *e = &g->h[g->nh++];
    ply_arb_identity(&g->pos, e->id, sizeof e->id);
    e->hash = text_hash(e->id);
    e->ply = g->ply;
    return 0;
}

ply_arb_game_t *ply_arb_game_new(const ply_arb_pos_t *start, ply_arb_laws_t laws)
{
    if (!start) return NULL;
    ply_arb_game_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    ply_arb_game_reset(g, start, laws);
    if (g->oom) ply_arb_game_destroy(&g);
    return g;
}

void ply_arb_game_destroy(ply_arb_game_t **g)
{
    if (!g || !*g) return;
    free((*g)->h);
    free(*g);
    *g = NULL;
}

void ply_arb_game_reset(ply_arb_game_t *g, const ply_arb_pos_t *start, ply_arb_laws_t laws)
{
    g->laws = laws;
    g->pos = *start;
    g->ply = 0;
    g->nh = 0;
    g->memo_valid = 0;
    g->mv_valid = 0;
    g->oom = push_current(g) != 0;
}

const ply_arb_pos_t *ply_arb_game_pos(const ply_arb_game_t *g)
{
    return &g->pos;
}

int ply_arb_game_ply(const ply_arb_game_t *g)
{
    return g->ply;
}

static void ensure_moves(ply_arb_game_t *g)
{
    if (!g->mv_valid) g->nmv = ply_arb_legal_moves(&g->pos, g->mv);
    g->mv_valid = 1;
}

int ply_arb_game_play(ply_arb_game_t *g, ply_arb_move_t move)
{
    int found = -1;
    ensure_moves(g);
    for (int i = 0; i < g->nmv && found < 0; i++)
        if (g->mv[i].from == move.from && g->mv[i].to == move.to && g->mv[i].promo == move.promo &&
            (!g->pos.chess960 ||
             (g->mv[i].flags & PLY_ARB_MOVE_CASTLE) == (move.flags & PLY_ARB_MOVE_CASTLE)))
            found = i;
    if (found < 0) return PLY_EILLEGAL;
    ply_arb_make(&g->pos, g->mv[found]);
    g->mv_valid = 0;
    g->ply++;
    if (g->pos.halfmove == 0) g->nh = 0; /* a pawn move or capture: no earlier position recurs */
    return push_current(g);
}

int ply_arb_game_play_san(ply_arb_game_t *g, const char *text, ply_arb_move_t *out, char *why,
                          size_t why_len)
{
    ply_arb_move_t m;
    if (!g || !text) return PLY_EINVAL;
    ensure_moves(g);
    int rc = ply__arb_move_from_san_list(&g->pos, g->mv, g->nmv, text, &m, why, why_len);
    if (rc) return rc;
    if (out) *out = m;
    return ply_arb_game_play(g, m);
}

static void signature_of(const ply_arb_pos_t *p, signature_t *sig)
{
    memset(sig, 0, sizeof *sig);
    for (int s = 0; s < 64; s++) {
        int pc = p->sq[ply__arb_to88(s)];
        if (!pc) continue;
        sig->count[pc < 0][abs(pc)]++;
        if (abs(pc) == ARB_P) sig->pawns[pc < 0] |= 1ull << s;
    }
    memcpy(sig->castle, p->castle_rook, sizeof sig->castle);
}

/* Dead-position tests in ply_arb_dead's order, the blocked search memoised. */
static int game_dead(ply_arb_game_t *g, int legal_moves, char *proof, size_t len)
{
    if (ply__arb_dead_material(&g->pos, proof, len)) return 1;
    if (ply__arb_dead_static(&g->pos, proof, len)) return 1;
    signature_t sig;
    signature_of(&g->pos, &sig);
    if (!g->memo_valid || memcmp(&sig, &g->memo_sig, sizeof sig)) {
        g->memo_sig = sig;
        g->memo_valid = 1;
        g->memo_dead = ply__arb_dead_blocked(&g->pos, g->memo_proof, sizeof g->memo_proof);
    }
    if (g->memo_dead) {
        snprintf(proof, len, "%s", g->memo_proof);
        return 1;
    }
    return ply__arb_dead_forced(&g->pos, legal_moves, proof, len);
}

/* How often the position with identity @id occurred in the history; the
 * plies of the first ones go to @plies (up to PLY_ARB_REP_MAX) if not NULL. */
static int occurrences(const ply_arb_game_t *g, const char *id, int *plies)
{
    uint64_t h = text_hash(id);
    int n = 0;
    for (size_t i = 0; i < g->nh; i++) {
        if (g->h[i].hash != h || strcmp(g->h[i].id, id)) continue;
        if (plies && n < PLY_ARB_REP_MAX) plies[n] = g->h[i].ply;
        n++;
    }
    return n;
}

/* 9.2(a) and 9.3(a): the claims a player may make by writing a move down. */
static void lookahead(ply_arb_game_t *g, ply_arb_status_t *st)
{
    char id[PLY_ARB_FEN_MAX];
    const ply_arb_move_t *mv = g->mv;
    for (int i = 0; i < g->nmv; i++) {
        ply_arb_pos_t child = g->pos;
        ply_arb_make(&child, mv[i]);
        if (child.halfmove == 0) continue; /* a pawn move or capture repeats nothing */
        if (!st->fifty_by_move && child.halfmove >= 100) {
            st->fifty_by_move = 1;
            ply_arb_move_to_san(&g->pos, mv[i], st->fifty_move, sizeof st->fifty_move);
        }
        if (!st->threefold_by_move) {
            ply_arb_identity(&child, id, sizeof id);
            if (occurrences(g, id, NULL) >= 2) {
                st->threefold_by_move = 1;
                ply_arb_move_to_san(&g->pos, mv[i], st->threefold_move, sizeof st->threefold_move);
            }
        }
    }
}

int ply_arb_game_status(ply_arb_game_t *g, int lookahead_claims, ply_arb_status_t *st)
{
    if (!g || !st || g->nh == 0) return PLY_EINVAL;
    memset(st, 0, sizeof *st);
    const ply_arb_pos_t *p = &g->pos;
    ensure_moves(g);
    const int n = g->nmv;
    st->ply = g->ply;
    st->winner = -1;
    st->in_check = ply_arb_in_check(p);
    st->legal_moves = n;
    st->halfmove = p->halfmove;
    st->occurrences = occurrences(g, g->h[g->nh - 1].id, st->rep_plies);

    /* Precedence: checkmate, then stalemate (both end the game at once),
     * then a dead position, then the fide2023 automatic draws, of which
     * 9.6.2 says a mate on the last move takes precedence. */
    if (n == 0 && st->in_check) {
        st->end = PLY_ARB_END_CHECKMATE;
        st->winner = p->side ^ 1;
    } else if (n == 0) {
        st->end = PLY_ARB_END_STALEMATE;
    } else if (game_dead(g, n, st->proof, sizeof st->proof)) {
        st->end = PLY_ARB_END_DEAD;
    } else if (g->laws == PLY_ARB_FIDE2023 && st->occurrences >= 5) {
        st->end = PLY_ARB_END_FIVEFOLD;
    } else if (g->laws == PLY_ARB_FIDE2023 && p->halfmove >= 150) {
        st->end = PLY_ARB_END_SEVENTYFIVE;
    }
    if (st->end != PLY_ARB_END_NONE) return 0; /* no claims in a finished game */
    st->threefold_now = st->occurrences >= 3;
    st->fifty_now = p->halfmove >= 100;
    if (lookahead_claims) lookahead(g, st);
    return 0;
}
