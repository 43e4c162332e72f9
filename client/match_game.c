/*
 * The game runner of `ply match` (see match_game.h): one game, its clocks, the arbiter's
 * verdicts and the PGN record. The engines' moves go to them as one growing "position ...
 * moves ..." command, so that each sees the whole history.
 */
#include "match_game.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbiter/adjudicate.h"
#include "arbiter/arbiter.h"
#include "arbiter/endgame.h"
#include "arbiter/san.h"
#include "util/error.h"

/* How long a search that overran its deadline gets to answer "stop", ms. */
#define STOP_GRACE_MS 2000

/* A growing "position ... moves ..." command. */
typedef struct poscmd {
    char *s;
    size_t len, cap;
} poscmd_t;

static int pos_append(poscmd_t *p, const char *text)
{
    size_t n = strlen(text);
    if (p->len + n + 1 > p->cap) {
        size_t cap = (p->cap ? p->cap * 2 : 1024) + n;
        char *g = realloc(p->s, cap);
        if (!g) return PLY_ENOMEM;
        p->s = g;
        p->cap = cap;
    }
    memcpy(p->s + p->len, text, n + 1);
    p->len += n;
    return 0;
}

typedef struct game {
    const ply_match_config_t *c;
    ply_uci_client_t **e; /* the thread's two engines, by engine index */
    ply_match_game_t *rec;
    ply_arb_game_t *arb;
    ply_pgn_game_t *pgn;
    poscmd_t pos;
    int nmoves;          /* moves in pos after "moves" */
    int64_t clock_ms[2]; /* by colour */
} game_t;

static const char *colour_name(int side)
{
    return side ? "Black" : "White";
}

static void finish(game_t *g, int result, int kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void finish(game_t *g, int result, int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->rec->reason, sizeof g->rec->reason, fmt, ap);
    va_end(ap);
    g->rec->result = result;
    g->rec->kind = kind;
}

/* The game stops unfinished: the match was interrupted (result 2, "*" in the PGN). */
static void stop_unfinished(game_t *g)
{
    finish(g, 2, PLY_MATCH_END_FAILURE, "unfinished: the match was interrupted by %s",
           *g->c->interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* The end by rule or by an automatic claim, if any: 1 when the game is over. */
static int ended_by_rule(game_t *g)
{
    ply_arb_status_t st;
    ply_arb_game_status(g->arb, 0, &st);
    int side = ply_arb_game_pos(g->arb)->side;
    static const int kinds[] = {[PLY_ARB_END_CHECKMATE] = PLY_MATCH_END_CHECKMATE,
                                [PLY_ARB_END_STALEMATE] = PLY_MATCH_END_STALEMATE,
                                [PLY_ARB_END_DEAD] = PLY_MATCH_END_DEAD,
                                [PLY_ARB_END_FIVEFOLD] = PLY_MATCH_END_FIVEFOLD,
                                [PLY_ARB_END_SEVENTYFIVE] = PLY_MATCH_END_75};
    if (st.end == PLY_ARB_END_CHECKMATE) {
        finish(g, side ? 1 : -1, PLY_MATCH_END_CHECKMATE, "%s mates (%s)", colour_name(side ^ 1),
               ply_arb_end_article(st.end, PLY_ARB_FIDE2023));
    } else if (st.end != PLY_ARB_END_NONE) {
        finish(g, 0, kinds[st.end], "draw: %s (%s)%s%s", ply_arb_end_name(st.end),
               ply_arb_end_article(st.end, PLY_ARB_FIDE2023), st.proof[0] ? ": " : "", st.proof);
    } else if (st.threefold_now) {
        finish(g, 0, PLY_MATCH_END_THREEFOLD,
               "draw: threefold repetition, claimed (art. 9.2; the position occurred at plies "
               "%d, %d and %d)",
               st.rep_plies[0], st.rep_plies[1], st.rep_plies[2]);
    } else if (st.fifty_now) {
        finish(g, 0, PLY_MATCH_END_FIFTY,
               "draw: fifty-move rule, claimed (art. 9.3: 50 moves by each side without a "
               "pawn move or capture)");
    } else {
        return 0;
    }
    return 1;
}

/* The flag of @side fell (art. 6.9): a loss unless the opponent cannot mate. */
static void flag_fell(game_t *g, int side, double used_ms, int64_t had_ms)
{
    char proof[PLY_ARB_PROOF_MAX];
    const ply_arb_pos_t *pos = ply_arb_game_pos(g->arb);
    ply_arb_mate_t can = ply_arb_can_mate(pos, side ^ 1, proof, sizeof proof);
    const char *who = colour_name(side), *opp = colour_name(side ^ 1);
    if (can == PLY_ARB_MATE_IMPOSSIBLE)
        finish(g, 0, PLY_MATCH_END_TIME_DRAW,
               "draw: %s's flag fell (%.3f s used, %.3f s on the clock) but %s cannot checkmate by "
               "any "
               "series of legal moves (art. 6.9): %s",
               who, used_ms / 1000.0, had_ms / 1000.0, opp, proof);
    else
        finish(g, side ? 1 : -1, PLY_MATCH_END_TIME,
               "%s loses on time (%.3f s used, %.3f s on the clock); %s (art. 6.9): %s", who,
               used_ms / 1000.0, had_ms / 1000.0,
               can == PLY_ARB_MATE_POSSIBLE
                   ? "the opponent can still mate"
                   : "undetermined whether the opponent can still mate, the loss stands",
               proof);
}

/* "{+0.35/12 0.521s}" for the mover's engine's last score. */
static void move_comment(const ply_uci_client_search_t *s, char *buf, size_t len)
{
    const ply_uci_client_info_t *in = &s->last;
    if (in->score_kind == PLY_UCI_CLIENT_SCORE_CP)
        snprintf(buf, len, "%+.2f/%d %.3fs", in->score / 100.0, in->depth, s->elapsed_ms / 1000.0);
    else if (in->score_kind == PLY_UCI_CLIENT_SCORE_MATE)
        snprintf(buf, len, "%sM%d/%d %.3fs", in->score < 0 ? "-" : "+", abs(in->score), in->depth,
                 s->elapsed_ms / 1000.0);
    else
        snprintf(buf, len, "%.3fs", s->elapsed_ms / 1000.0);
}

/* Plays the move @uci of the side to move: 0, or -1 when it is not legal (game over). */
static int play_move(game_t *g, int side, const ply_uci_client_search_t *s, const char *label)
{
    const ply_arb_pos_t *pos = ply_arb_game_pos(g->arb);
    ply_arb_move_t mv;
    char san[PLY_ARB_SAN_MAX], uci[8], comment[96];
    if (!s->bestmove[0]) {
        finish(g, side ? 1 : -1, PLY_MATCH_END_ILLEGAL,
               "%s (%s) answered 'bestmove 0000' in a position with legal moves", colour_name(side),
               label);
        return -1;
    }
    if (ply_arb_move_from_uci(pos, s->bestmove, &mv) < 0) {
        finish(g, side ? 1 : -1, PLY_MATCH_END_ILLEGAL, "%s (%s) played %s, an illegal move",
               colour_name(side), label, s->bestmove);
        return -1;
    }
    ply_arb_move_to_san(pos, mv, san, sizeof san);
    ply_arb_move_to_uci(pos, mv, uci);
    if (ply_arb_game_play(g->arb, mv) < 0) return -1;
    move_comment(s, comment, sizeof comment);
    ply_pgn_game_add(g->pgn, PLY_PGN_MOVE, san, 0);
    ply_pgn_game_add(g->pgn, PLY_PGN_COMMENT, comment, 0);
    pos_append(&g->pos, g->nmoves++ ? " " : " moves ");
    pos_append(&g->pos, uci);
    g->rec->plies++;
    return 0;
}

/* After a failed search: stop it, or drop the engine (a fresh one next game). */
static void recover(ply_uci_client_t **e, int r)
{
    char ignored[256];
    if (r == PLY_ETIMEDOUT && ply_uci_client_stop(*e, STOP_GRACE_MS, ignored, sizeof ignored) == 0)
        return;
    ply_uci_client_destroy(e);
}

/* One move of the side to move. Returns 1 when the game is over. */
static int one_move(game_t *g)
{
    const ply_match_config_t *a = g->c;
    int side = ply_arb_game_pos(g->arb)->side;
    int who = side == 0 ? g->rec->white : g->rec->white ^ 1;
    const char *label = a->label[who];
    ply_uci_client_limits_t lim = {0};
    lim.clock = a->clock;
    lim.wtime = g->clock_ms[0];
    lim.btime = g->clock_ms[1];
    lim.winc = lim.binc = a->inc_ms;
    lim.movetime = a->movetime;
    lim.nodes = a->nodes;
    lim.depth = a->depth;
    int64_t had = g->clock_ms[side];
    lim.deadline_ms = a->clock ? (uint64_t)(had + a->margin_ms + 1)
                               : (uint64_t)a->movetime + a->timeout_s * 1000ull;
    ply_uci_client_search_t s;
    char why[512];
    int r = ply_uci_client_go(g->e[who], g->pos.s, &lim, NULL, NULL, &s, why, sizeof why);
    if (r == PLY_ECANCELED) {
        recover(&g->e[who], PLY_ETIMEDOUT);
        stop_unfinished(g);
        return 1;
    }
    if (a->clock &&
        (r == PLY_ETIMEDOUT || (r == 0 && s.elapsed_ms > (double)(had + a->margin_ms)))) {
        if (r) recover(&g->e[who], r);
        flag_fell(g, side, s.elapsed_ms, had);
        return 1;
    }
    if (r < 0) {
        recover(&g->e[who], r);
        finish(g, side ? 1 : -1, PLY_MATCH_END_FAILURE, "%s (%s) failed: %s", colour_name(side),
               label, why);
        return 1;
    }
    if (play_move(g, side, &s, label) < 0) return 1;
    if (a->clock) {
        int64_t left = had - (int64_t)llround(s.elapsed_ms);
        g->clock_ms[side] = (left > 0 ? left : 0) + a->inc_ms;
    }
    return 0;
}

static void set_tags(game_t *g, const ply_book_line_t *o)
{
    const ply_match_config_t *a = g->c;
    char date[16], round[24], host[64] = "?";
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y.%m.%d", &tm);
    snprintf(round, sizeof round, "%ld", g->rec->number);
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    ply_pgn_game_set_tag(g->pgn, "Event", "ply match");
    ply_pgn_game_set_tag(g->pgn, "Site", host);
    ply_pgn_game_set_tag(g->pgn, "Date", date);
    ply_pgn_game_set_tag(g->pgn, "Round", round);
    ply_pgn_game_set_tag(g->pgn, "White", a->label[g->rec->white]);
    ply_pgn_game_set_tag(g->pgn, "Black", a->label[g->rec->white ^ 1]);
    ply_pgn_game_set_tag(g->pgn, "TimeControl", a->tc);
    if (o && o->from_fen) {
        ply_pgn_game_set_tag(g->pgn, "SetUp", "1");
        ply_pgn_game_set_tag(g->pgn, "FEN", o->start_fen);
    }
    if (o) ply_pgn_game_set_tag(g->pgn, "Opening", o->name);
}

/* Sets up the game: tags, book moves, engines ready. Returns 0, or 1 when it is already over. */
static int setup(game_t *g, const ply_book_line_t *o)
{
    const ply_match_config_t *a = g->c;
    ply_arb_pos_t start;
    if (o)
        start = o->start;
    else
        ply_arb_startpos(&start);
    if (!(g->arb = ply_arb_game_new(&start, PLY_ARB_FIDE2023)) || !(g->pgn = ply_pgn_game_new())) {
        finish(g, 2, PLY_MATCH_END_FAILURE, "out of memory");
        return 1;
    }
    set_tags(g, o);
    if (o && o->from_fen) {
        pos_append(&g->pos, "position fen ");
        pos_append(&g->pos, o->start_fen);
    } else {
        pos_append(&g->pos, "position startpos");
    }
    for (int i = 0; o && i < o->nmoves; i++) {
        ply_arb_game_play(g->arb, o->moves[i]);
        ply_pgn_game_add(g->pgn, PLY_PGN_MOVE, o->san[i], 0);
        pos_append(&g->pos, g->nmoves++ ? " " : " moves ");
        pos_append(&g->pos, o->uci[i]);
    }
    if (o && o->nmoves) ply_pgn_game_add(g->pgn, PLY_PGN_COMMENT, "book", 0);
    g->clock_ms[0] = g->clock_ms[1] = a->base_ms;
    /* both engines up and fresh; one that cannot start loses the game */
    for (int k = 0; k < 2; k++) {
        int i = g->rec->white ^ k; /* White's engine first */
        char why[512];
        int r = g->e[i] ? ply_uci_client_newgame(g->e[i], why, sizeof why) : PLY_EIO;
        const char *what = "failed";
        if (r < 0) { /* a fresh engine */
            ply_uci_client_destroy(&g->e[i]);
            g->e[i] = *a->interrupted ? NULL : a->start(a->start_arg, i, why, sizeof why);
            r = g->e[i] ? ply_uci_client_newgame(g->e[i], why, sizeof why) : PLY_EIO;
            if (!g->e[i]) what = "cannot start";
            if (r < 0) ply_uci_client_destroy(&g->e[i]);
        }
        if (*a->interrupted) { /* whatever failed, it is not the engine's fault */
            stop_unfinished(g);
            return 1;
        }
        if (r < 0) {
            finish(g, k ? 1 : -1, PLY_MATCH_END_FAILURE, "%s (%s) %s: %s", colour_name(k),
                   a->label[i], what, why);
            return 1;
        }
    }
    return 0;
}

const char *ply_match_result_text(int result)
{
    return result == 1 ? "1-0" : result == -1 ? "0-1" : result == 0 ? "1/2-1/2" : "*";
}

static const char *termination(const ply_match_game_t *rec)
{
    int kind = rec->kind;
    if (rec->result == 2) return "unterminated";
    if (kind == PLY_MATCH_END_TIME || kind == PLY_MATCH_END_TIME_DRAW) return "time forfeit";
    if (kind == PLY_MATCH_END_ILLEGAL) return "rules infraction";
    if (kind == PLY_MATCH_END_FAILURE) return "abandoned";
    return "normal";
}

ply_pgn_game_t *ply_match_play(const ply_match_config_t *c, ply_uci_client_t **e,
                               const ply_book_line_t *opening, ply_match_game_t *rec)
{
    game_t g = {0};
    g.c = c;
    g.e = e;
    g.rec = rec;
    const ply_book_line_t *o = opening;
    rec->opening = o ? o->name : "initial position";
    int over = setup(&g, o);
    while (!over) {
        over = ended_by_rule(&g); /* also after the last move before an interruption */
        if (!over && *c->interrupted) {
            stop_unfinished(&g);
            over = 1;
        }
        if (!over) over = one_move(&g);
    }
    if (g.pgn) {
        ply_pgn_game_set_tag(g.pgn, "Result", ply_match_result_text(rec->result));
        ply_pgn_game_set_tag(g.pgn, "Termination", termination(rec));
        ply_pgn_game_add(g.pgn, PLY_PGN_COMMENT, rec->reason, 0);
        ply_pgn_game_set_result(g.pgn, ply_match_result_text(rec->result));
        /* self-check: the rule engine replays the record and must agree with its result */
        ply_arb_report_t *rep = malloc(sizeof *rep);
        rec->arbiter_ok = rep && ply_arb_adjudicate(g.pgn, PLY_ARB_FIDE2023, -1, NULL, rep) == 0 &&
                          rep->consistent && !rep->illegal_ply;
        free(rep);
    }
    ply_arb_game_destroy(&g.arb);
    free(g.pos.s);
    return g.pgn;
}

const char *ply_match_end_name(int kind)
{
    static const char *const names[PLY_MATCH_END_KINDS] = {
        "checkmate",
        "stalemate",
        "dead position",
        "threefold repetition",
        "fifty-move rule",
        "fivefold repetition",
        "75-move rule",
        "time forfeit",
        "flag fell, drawn: the opponent cannot mate",
        "illegal move or no move",
        "engine failure"};
    return kind >= 0 && kind < PLY_MATCH_END_KINDS ? names[kind] : "?";
}
