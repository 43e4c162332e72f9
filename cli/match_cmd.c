/*
 * `ply match`: play games between two UCI engines with the rule engine as
 * the referee, and measure the Elo difference.
 *
 * Each game starts from an opening of the book (book.h; each is played
 * twice, the colours swapped) and goes on with the engines' moves. The
 * runner keeps the clocks itself: it measures each move's wall time from
 * "go" to "bestmove", takes it off the mover's clock and adds the increment.
 * Every move is read and checked by the arbiter, which also decides how the
 * game ends (FIDE 2023 Laws, common/arbiter/endgame.h): checkmate, stalemate,
 * dead position (with its proof), fivefold repetition and the 75-move rule;
 * the draw claims of art. 9.2 (threefold repetition) and 9.3 (fifty moves)
 * are made automatically the moment they can be. A flag fall loses unless
 * the opponent cannot checkmate by any legal series of moves (art. 6.9;
 * ply_arb_can_mate), and when the arbiter proves neither within its node
 * budget the loss stands (the rule's default) and the PGN says that the
 * question was undetermined, naming the budget. An illegal move, no move, a
 * crash, output that is not UCI, or silence past the clock loses, with the
 * reason in the PGN. Each finished game is replayed by ply_arb_adjudicate as
 * a self-check before it is written.
 *
 * K games run at once (--concurrency), each on its own thread with its own
 * pair of engine processes; the engines are restarted after a failure.
 * Ctrl-C (or SIGTERM) stops the games in progress: they are written to the
 * PGN unfinished (Result "*", PGN standard 8.2.6; Termination
 * "unterminated", 9.8.1) and not counted, and the result so far is
 * printed. Exit status: 0 the match was played, 1 an engine cannot be
 * started or the PGN cannot be written, 2 usage, 130 interrupted (SIGINT), 143 (SIGTERM).
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "arbiter/adjudicate.h"
#include "arbiter/arbiter.h"
#include "arbiter/endgame.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "book.h"
#include "commands.h"
#include "elo.h"
#include "engine_opts.h"
#include "uci_client.h"
#include "util/error.h"
#include "util/json_exact.h"

#define THREADS_MAX   64
#define STOP_GRACE_MS 2000
#define REASON_MAX    600

typedef struct match_args {
    ply_cli_engine_opts_t u; /* the engines, the fixed limits, --timeout, --json, --quiet */
    char label[2][200];      /* the engines as the PGN and the report name them */
    int clock;
    int64_t base_ms, inc_ms, margin_ms;
    char tc[32]; /* the TimeControl tag: "10+0.1", or "-" */
    long games, report_every;
    int concurrency;
    const char *pgn, *book, *tc_arg;
} match_args_t;

/* Kinds of game end, for the report's tally. */
enum {
    END_CHECKMATE,
    END_STALEMATE,
    END_DEAD,
    END_THREEFOLD,
    END_FIFTY,
    END_FIVEFOLD,
    END_75,
    END_TIME,
    END_TIME_DRAW,
    END_ILLEGAL,
    END_FAILURE,
    END_KINDS
};
static const char *const end_names[END_KINDS] = {"checkmate",
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

/* One finished (or aborted) game. */
typedef struct game_rec {
    long number; /* 1-based */
    int white;   /* index of the engine playing White */
    int result;  /* 1 White won, 0 draw, -1 Black won; 2 aborted */
    int kind;    /* END_* */
    int plies;
    int arbiter_ok;
    char reason[REASON_MAX];
    const char *opening;
} game_rec_t;

typedef struct match {
    const match_args_t *a;
    ply_book_t *book;
    pthread_mutex_t mu;
    long next, done;
    long w, d, l; /* engine 0's view */
    long tally[END_KINDS], arbiter_bad;
    game_rec_t *recs;
    FILE *pgn;
    int pgn_error;
    ply_uci_client_t *first[2]; /* the engines started to check the command line, for thread 0 */
} match_t;

/* the signal that stopped the match, set by its handler (lock-free, so async-signal-safe) */
static atomic_int interrupted;

static void on_sigint(int sig)
{
    interrupted = sig;
}

/* ---- arguments ---------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out, "usage: ply match --engine CMD [--name N] [--option N=V]... --engine CMD [...]\n"
                 "                 [--tc S+I | --movetime MS | --nodes N | --depth D] [options]\n"
                 "\n"
                 "Plays games between two UCI engines from the openings of a book, each opening\n"
                 "twice with colours swapped, with ply's rule engine as the referee (FIDE Laws:\n"
                 "checkmate, stalemate, dead position, threefold repetition and fifty moves\n"
                 "claimed automatically, fivefold and 75 moves, flag fall), and reports the\n"
                 "first engine's wins, draws and losses, its score and the Elo difference with\n"
                 "its 95%% interval.\n"
                 "\n"
                 "  -e, --engine CMD     an engine's command line (no shell); give it twice\n"
                 "      --name N         the name of the engine just given (default: its id name\n"
                 "                       and options)\n"
                 "      --option N=V     setoption name N value V for the engine just given\n"
                 "                       (repeatable), e.g. UCI_LimitStrength=true UCI_Elo=2200\n"
                 "      --tc S+I         clock: S seconds per game plus I seconds per move, e.g.\n"
                 "                       10+0.1 (default 10+0.1 unless a fixed limit is given)\n"
                 "      --movetime MS    instead of a clock: this long per move\n"
                 "      --nodes N        instead of a clock: N nodes per move\n"
                 "      --depth D        instead of a clock: depth D per move\n"
                 "      --margin MS      a move may overrun the clock by MS ms before the flag\n"
                 "                       falls (default 0)\n"
                 "  -n, --games N        games to play (default 2)\n"
                 "  -c, --concurrency K  games at once, each with its own two engines (default 1)\n"
                 "      --book FILE      the openings (EPD; default: none, the initial position)\n"
                 "      --pgn FILE       append the games to FILE\n"
                 "      --report N       print the score and Elo every N games (text mode)\n"
                 "      --timeout S      without a clock: a move not made in movetime + S seconds\n"
                 "                       loses (default 60); also the engines' start-up limit\n"
                 "      --json           print one JSON object at the end instead of text\n"
                 "  -q, --quiet          no line per game (text mode)\n"
                 "  -h, --help           this text\n"
                 "\n"
                 "PGN: the Seven Tag Roster, TimeControl, Termination and Opening tags, SAN\n"
                 "moves with {score/depth time} comments, and the reason a game ended.\n"
                 "Exit status: 0 played, 1 an engine cannot start or the PGN cannot be\n"
                 "written, 2 usage, 130 interrupted by SIGINT, 143 by SIGTERM (the result so\n"
                 "far is printed; the games in progress are written to the PGN unfinished,\n"
                 "with result *).\n");
}

/* Seconds with up to three decimals, into ms; -1 when malformed. */
static int64_t parse_seconds(const char *s, size_t n)
{
    char buf[32], *end;
    if (!n || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[0] < '0' || buf[0] > '9') return -1;
    double v = strtod(buf, &end);
    if (*end || !(v >= 0) || v > 86400.0 * 30) return -1;
    return (int64_t)llround(v * 1000.0);
}

/* "10+0.1" or "60" into the clock; 0 or -1. */
static int parse_tc(const char *s, match_args_t *a)
{
    const char *plus = strchr(s, '+');
    size_t n = plus ? (size_t)(plus - s) : strlen(s);
    a->base_ms = parse_seconds(s, n);
    a->inc_ms = plus ? parse_seconds(plus + 1, strlen(plus + 1)) : 0;
    if (a->base_ms <= 0 || a->inc_ms < 0) return -1;
    snprintf(a->tc, sizeof a->tc, "%s", s);
    a->clock = 1;
    return 0;
}

enum { OPT_NAME = 256, OPT_TC, OPT_MARGIN, OPT_BOOK, OPT_PGN, OPT_REPORT };

/* The options of ply match's own (engine_opts.h has the others). */
static int own_option(ply_cli_engine_opts_t *u, void *ctx, int c, const char *arg)
{
    match_args_t *a = ctx;
    long v;
    switch (c) {
    case OPT_NAME:
        if (!u->neng) return ply_usage_error("match", "%s", "--name needs an --engine before it");
        u->eng[u->neng - 1].name = arg;
        break;
    case OPT_TC:
        a->tc_arg = arg;
        break;
    case OPT_MARGIN:
        if (ply_cli_parse_long(arg, 0, 60000, &v))
            return ply_usage_error("match", "--margin '%s' must be ms 0..60000", arg);
        a->margin_ms = v;
        break;
    case 'n':
        if (ply_cli_parse_long(arg, 1, 1000000, &v))
            return ply_usage_error("match", "--games '%s' must be 1..1000000", arg);
        a->games = v;
        break;
    case 'c':
        if (ply_cli_parse_long(arg, 1, THREADS_MAX, &v))
            return ply_usage_error("match", "--concurrency '%s' must be 1..%d", arg, THREADS_MAX);
        a->concurrency = (int)v;
        break;
    case OPT_BOOK:
        a->book = arg;
        break;
    case OPT_PGN:
        a->pgn = arg;
        break;
    default: /* OPT_REPORT */
        if (ply_cli_parse_long(arg, 1, 1000000, &v))
            return ply_usage_error("match", "--report '%s' must be a count from 1", arg);
        a->report_every = v;
        break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, match_args_t *a)
{
    static const struct option own[] = {{"name", required_argument, NULL, OPT_NAME},
                                        {"tc", required_argument, NULL, OPT_TC},
                                        {"margin", required_argument, NULL, OPT_MARGIN},
                                        {"games", required_argument, NULL, 'n'},
                                        {"concurrency", required_argument, NULL, 'c'},
                                        {"book", required_argument, NULL, OPT_BOOK},
                                        {"pgn", required_argument, NULL, OPT_PGN},
                                        {"report", required_argument, NULL, OPT_REPORT},
                                        {NULL, 0, NULL, 0}};
    int r = ply_cli_engine_parse(&a->u, argc, argv, "n:c:", own, own_option, a, usage);
    if (r) return r;
    if (a->u.neng != 2) return ply_usage_error("match", "%s", "give two engines (--engine twice)");
    int fixed = a->u.movetime || a->u.nodes || a->u.depth;
    if (a->tc_arg || !fixed) {
        if (parse_tc(a->tc_arg ? a->tc_arg : "10+0.1", a) < 0)
            return ply_usage_error("match", "--tc '%s' must be SECONDS[+INCREMENT], e.g. 10+0.1",
                                   a->tc_arg);
    } else {
        snprintf(a->tc, sizeof a->tc, "-");
    }
    return 0;
}

/* ---- engines ------------------------------------------------------------------------ */

static ply_uci_client_t *start_engine(const match_args_t *a, int i, char *why, size_t why_len)
{
    return ply_cli_engine_start(&a->u.eng[i], a->u.timeout_s, &interrupted, why, why_len);
}

/* "Stockfish 15.1 (UCI_Elo=2200)"; the two made distinct when they are the same. */
static void make_labels(match_args_t *a, ply_uci_client_t *const *e)
{
    for (int i = 0; i < 2; i++) {
        const ply_cli_engine_spec_t *s = &a->u.eng[i];
        char *label = a->label[i];
        size_t cap = sizeof a->label[i];
        if (s->name) {
            snprintf(label, cap, "%s", s->name);
            continue;
        }
        int o = snprintf(label, cap, "%s", ply_uci_client_name(e[i]));
        for (int k = 0; k < s->noptions && o > 0 && (size_t)o < cap; k++)
            o += snprintf(label + o, cap - (size_t)o, "%s%s", k ? ", " : " (", s->options[k]);
        if (s->noptions && o > 0 && (size_t)o + 1 < cap) strcat(label, ")");
    }
    if (!strcmp(a->label[0], a->label[1]))
        for (int i = 0; i < 2; i++) {
            size_t n = strlen(a->label[i]);
            if (n + 4 < sizeof a->label[i]) snprintf(a->label[i] + n, 5, " #%d", i + 1);
        }
}

/* ---- one game ------------------------------------------------------------------------ */

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
    match_t *m;
    ply_uci_client_t **e; /* the thread's two engines, by engine index */
    game_rec_t *rec;
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
    finish(g, 2, END_FAILURE, "unfinished: the match was interrupted by %s",
           interrupted == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* The end by rule or by an automatic claim, if any: 1 when the game is over. */
static int ended_by_rule(game_t *g)
{
    ply_arb_status_t st;
    ply_arb_game_status(g->arb, 0, &st);
    int side = ply_arb_game_pos(g->arb)->side;
    static const int kinds[] = {[PLY_ARB_END_CHECKMATE] = END_CHECKMATE,
                                [PLY_ARB_END_STALEMATE] = END_STALEMATE,
                                [PLY_ARB_END_DEAD] = END_DEAD,
                                [PLY_ARB_END_FIVEFOLD] = END_FIVEFOLD,
                                [PLY_ARB_END_SEVENTYFIVE] = END_75};
    if (st.end == PLY_ARB_END_CHECKMATE) {
        finish(g, side ? 1 : -1, END_CHECKMATE, "%s mates (%s)", colour_name(side ^ 1),
               ply_arb_end_article(st.end, PLY_ARB_FIDE2023));
    } else if (st.end != PLY_ARB_END_NONE) {
        finish(g, 0, kinds[st.end], "draw: %s (%s)%s%s", ply_arb_end_name(st.end),
               ply_arb_end_article(st.end, PLY_ARB_FIDE2023), st.proof[0] ? ": " : "", st.proof);
    } else if (st.threefold_now) {
        finish(g, 0, END_THREEFOLD,
               "draw: threefold repetition, claimed (art. 9.2; the position occurred at plies "
               "%d, %d and %d)",
               st.rep_plies[0], st.rep_plies[1], st.rep_plies[2]);
    } else if (st.fifty_now) {
        finish(g, 0, END_FIFTY,
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
        finish(g, 0, END_TIME_DRAW,
               "draw: %s's flag fell (%.3f s used, %.3f s on the clock) but %s cannot checkmate by "
               "any "
               "series of legal moves (art. 6.9): %s",
               who, used_ms / 1000.0, had_ms / 1000.0, opp, proof);
    else
        finish(g, side ? 1 : -1, END_TIME,
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
        finish(g, side ? 1 : -1, END_ILLEGAL,
               "%s (%s) answered 'bestmove 0000' in a position with legal moves", colour_name(side),
               label);
        return -1;
    }
    if (ply_arb_move_from_uci(pos, s->bestmove, &mv) < 0) {
        finish(g, side ? 1 : -1, END_ILLEGAL, "%s (%s) played %s, an illegal move",
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
    const match_args_t *a = g->m->a;
    int side = ply_arb_game_pos(g->arb)->side;
    int who = side == 0 ? g->rec->white : g->rec->white ^ 1;
    const char *label = a->label[who];
    ply_uci_client_limits_t lim = {0};
    lim.clock = a->clock;
    lim.wtime = g->clock_ms[0];
    lim.btime = g->clock_ms[1];
    lim.winc = lim.binc = a->inc_ms;
    lim.movetime = a->u.movetime;
    lim.nodes = a->u.nodes;
    lim.depth = a->u.depth;
    int64_t had = g->clock_ms[side];
    lim.deadline_ms = a->clock ? (uint64_t)(had + a->margin_ms + 1)
                               : (uint64_t)a->u.movetime + a->u.timeout_s * 1000ull;
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
        finish(g, side ? 1 : -1, END_FAILURE, "%s (%s) failed: %s", colour_name(side), label, why);
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
    const match_args_t *a = g->m->a;
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
    const match_args_t *a = g->m->a;
    ply_arb_pos_t start;
    if (o)
        start = o->start;
    else
        ply_arb_startpos(&start);
    if (!(g->arb = ply_arb_game_new(&start, PLY_ARB_FIDE2023)) || !(g->pgn = ply_pgn_game_new())) {
        finish(g, 2, END_FAILURE, "out of memory");
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
            g->e[i] = interrupted ? NULL : start_engine(a, i, why, sizeof why);
            r = g->e[i] ? ply_uci_client_newgame(g->e[i], why, sizeof why) : PLY_EIO;
            if (!g->e[i]) what = "cannot start";
            if (r < 0) ply_uci_client_destroy(&g->e[i]);
        }
        if (interrupted) { /* whatever failed, it is not the engine's fault */
            stop_unfinished(g);
            return 1;
        }
        if (r < 0) {
            finish(g, k ? 1 : -1, END_FAILURE, "%s (%s) %s: %s", colour_name(k), a->label[i], what,
                   why);
            return 1;
        }
    }
    return 0;
}

static const char *result_text(int result)
{
    return result == 1 ? "1-0" : result == -1 ? "0-1" : result == 0 ? "1/2-1/2" : "*";
}

static const char *termination(const game_rec_t *rec)
{
    int kind = rec->kind;
    if (rec->result == 2) return "unterminated";
    if (kind == END_TIME || kind == END_TIME_DRAW) return "time forfeit";
    if (kind == END_ILLEGAL) return "rules infraction";
    if (kind == END_FAILURE) return "abandoned";
    return "normal";
}

/* Plays game @rec (number, white filled) with the thread's engines. */
static void play_game(match_t *m, ply_uci_client_t **e, game_rec_t *rec)
{
    game_t g = {0};
    g.m = m;
    g.e = e;
    g.rec = rec;
    const ply_book_line_t *o =
        m->book ? &m->book->lines[(size_t)((rec->number - 1) / 2) % m->book->n] : NULL;
    rec->opening = o ? o->name : "initial position";
    int over = setup(&g, o);
    while (!over) {
        over = ended_by_rule(&g); /* also after the last move before an interruption */
        if (!over && interrupted) {
            stop_unfinished(&g);
            over = 1;
        }
        if (!over) over = one_move(&g);
    }
    if (g.pgn) {
        ply_pgn_game_set_tag(g.pgn, "Result", result_text(rec->result));
        ply_pgn_game_set_tag(g.pgn, "Termination", termination(rec));
        ply_pgn_game_add(g.pgn, PLY_PGN_COMMENT, rec->reason, 0);
        ply_pgn_game_set_result(g.pgn, result_text(rec->result));
        /* self-check: the rule engine replays the record and must agree with its result */
        ply_arb_report_t *rep = malloc(sizeof *rep);
        rec->arbiter_ok = rep && ply_arb_adjudicate(g.pgn, PLY_ARB_FIDE2023, -1, NULL, rep) == 0 &&
                          rep->consistent && !rep->illegal_ply;
        free(rep);
        pthread_mutex_lock(&m->mu);
        if (m->pgn && (ply_pgn_write(m->pgn, g.pgn) < 0 || fflush(m->pgn) != 0)) m->pgn_error = 1;
        pthread_mutex_unlock(&m->mu);
    }
    ply_pgn_game_destroy(&g.pgn);
    ply_arb_game_destroy(&g.arb);
    free(g.pos.s);
}

/* ---- the match ---------------------------------------------------------------------- */

/* "+34.9", "+inf" or "-inf" (and never "-0.0"). */
static void elo_text(double v, char *buf, size_t len)
{
    if (isinf(v))
        snprintf(buf, len, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(buf, len, "%+.1f", fabs(v) < 0.05 ? 0.0 : v);
}

static void print_score(const match_t *m)
{
    ply_elo_t e = ply_elo(m->w, m->d, m->l);
    if (!e.games) {
        printf("Score of %s vs %s: no game finished\n", m->a->label[0], m->a->label[1]);
        return;
    }
    printf("Score of %s vs %s: %ld - %ld - %ld (wins - losses - draws), %.1f%%, %ld games\n",
           m->a->label[0], m->a->label[1], m->w, m->l, m->d, 100.0 * e.score, e.games);
    char elo[32], lo[32], hi[32];
    elo_text(e.elo, elo, sizeof elo);
    elo_text(e.lo, lo, sizeof lo);
    elo_text(e.hi, hi, sizeof hi);
    printf("Elo difference: %s (95%%: %s .. %s)\n", elo, lo, hi);
}

static void record(match_t *m, const game_rec_t *rec)
{
    pthread_mutex_lock(&m->mu);
    m->recs[rec->number - 1] = *rec;
    if (rec->result != 2) {
        int score0 = rec->white == 0 ? rec->result : -rec->result; /* engine 0's view */
        m->w += score0 == 1;
        m->d += score0 == 0;
        m->l += score0 == -1;
        m->tally[rec->kind]++;
        m->arbiter_bad += !rec->arbiter_ok;
        m->done++;
        if (!m->a->u.json && !m->a->u.quiet) {
            printf("game %ld/%ld (%s): %s - %s %s, %s%s\n", rec->number, m->a->games, rec->opening,
                   m->a->label[rec->white], m->a->label[rec->white ^ 1], result_text(rec->result),
                   rec->reason, rec->arbiter_ok ? "" : " [THE ARBITER DISAGREES WITH THIS RECORD]");
        }
        if (!m->a->u.json && m->a->report_every && m->done % m->a->report_every == 0)
            print_score(m);
        fflush(stdout);
    }
    pthread_mutex_unlock(&m->mu);
}

typedef struct slot {
    match_t *m;
    int index;
} slot_t;

static void *worker(void *arg)
{
    slot_t *s = arg;
    match_t *m = s->m;
    ply_uci_client_t *e[2] = {NULL, NULL};
    if (s->index == 0) { /* the engines started to check the command line: now this thread's */
        e[0] = m->first[0];
        e[1] = m->first[1];
        m->first[0] = m->first[1] = NULL;
    }
    for (;;) {
        pthread_mutex_lock(&m->mu);
        long n = m->next < m->a->games && !interrupted ? ++m->next : 0;
        pthread_mutex_unlock(&m->mu);
        if (!n) break;
        game_rec_t rec = {0};
        rec.number = n;
        rec.white = (int)((n - 1) % 2); /* engine 0 is White in odd-numbered games */
        play_game(m, e, &rec);
        record(m, &rec);
    }
    ply_uci_client_destroy(&e[0]);
    ply_uci_client_destroy(&e[1]);
    return NULL;
}

static void print_json(const match_t *m)
{
    const match_args_t *a = m->a;
    ply_elo_t e = ply_elo(m->w, m->d, m->l);
    json_t *j = json_object(), *games = json_array(), *ends = json_object();
    json_object_set_new(j, "engines",
                        json_pack("[oo]", ply_json_text(a->label[0]), ply_json_text(a->label[1])));
    json_object_set_new(j, "time_control", ply_json_text(a->tc));
    json_object_set_new(j, "games", json_integer(m->done));
    json_object_set_new(j, "wins", json_integer(m->w));
    json_object_set_new(j, "draws", json_integer(m->d));
    json_object_set_new(j, "losses", json_integer(m->l));
    json_object_set_new(j, "score", json_real(e.score));
    /* JSON has no infinity: null, with the score telling which way */
    json_object_set_new(j, "elo", e.games && isfinite(e.elo) ? json_real(e.elo) : json_null());
    json_object_set_new(j, "elo_lo", e.games && isfinite(e.lo) ? json_real(e.lo) : json_null());
    json_object_set_new(j, "elo_hi", e.games && isfinite(e.hi) ? json_real(e.hi) : json_null());
    json_object_set_new(j, "arbiter_disagreements", json_integer(m->arbiter_bad));
    json_object_set_new(j, "interrupted", json_boolean(interrupted));
    for (int k = 0; k < END_KINDS; k++)
        if (m->tally[k]) json_object_set_new(ends, end_names[k], json_integer(m->tally[k]));
    json_object_set_new(j, "terminations", ends);
    for (long i = 0; i < a->games; i++) {
        const game_rec_t *r = &m->recs[i];
        if (!r->number || r->result == 2) continue;
        json_array_append_new(games,
                              json_pack("{sI so so so ss ss sI sb}", "game", (json_int_t)r->number,
                                        "white", ply_json_text(a->label[r->white]), "black",
                                        ply_json_text(a->label[r->white ^ 1]), "opening",
                                        ply_json_text(r->opening), "result", result_text(r->result),
                                        "reason", r->reason, "plies", (json_int_t)r->plies,
                                        "arbiter_ok", r->arbiter_ok));
    }
    json_object_set_new(j, "results", games);
    json_dumpf(j, stdout, JSON_INDENT(2));
    printf("\n");
    json_decref(j);
}

static void print_summary(const match_t *m)
{
    print_score(m);
    printf("Terminations:");
    for (int k = 0, first = 1; k < END_KINDS; k++)
        if (m->tally[k]) {
            printf("%s %s %ld", first ? "" : ",", end_names[k], m->tally[k]);
            first = 0;
        }
    printf("\n");
    if (m->arbiter_bad)
        printf("The arbiter disagrees with %ld game records (a bug in ply match)\n",
               m->arbiter_bad);
    if (interrupted) printf("Interrupted: %ld of %ld games played\n", m->done, m->a->games);
}

int ply_cmd_match(int argc, char **argv)
{
    match_args_t a = {0};
    a.u.cmd = "match";
    a.u.max_engines = 2;
    a.u.timeout_s = 60;
    a.games = 2;
    a.concurrency = 1;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    match_t m = {0};
    m.a = &a;
    char why[1024];
    if (a.book && !(m.book = ply_book_load(a.book, why, sizeof why))) {
        fprintf(stderr, "ply match: %s\n", why);
        return 2;
    }
    if (a.pgn && !(m.pgn = fopen(a.pgn, "a"))) {
        fprintf(stderr, "ply match: cannot write %s\n", a.pgn);
        ply_book_free(&m.book);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN); /* an engine that dies must not take us with it */
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++)
        if (!(m.first[i] = start_engine(&a, i, why, sizeof why))) {
            fprintf(stderr, "ply match: %s\n", why);
            rc = 1;
        }
    m.recs = calloc((size_t)a.games, sizeof *m.recs);
    if (rc == 0 && !m.recs) {
        fprintf(stderr, "ply match: out of memory\n");
        rc = 1;
    }
    if (rc == 0) {
        make_labels(&a, m.first);
        pthread_mutex_init(&m.mu, NULL);
        if (!a.u.json)
            printf("ply match: %s vs %s, %ld games, %s%s, concurrency %d\n", a.label[0], a.label[1],
                   a.games, a.clock ? "tc " : "fixed limits", a.clock ? a.tc : "", a.concurrency);
        fflush(stdout);
        int k = a.concurrency < a.games ? a.concurrency : (int)a.games;
        pthread_t th[THREADS_MAX];
        slot_t slots[THREADS_MAX];
        int started = 0;
        for (int i = 0; i < k; i++) {
            slots[i] = (slot_t){&m, i};
            if (pthread_create(&th[i], NULL, worker, &slots[i]) != 0) break;
            started++;
        }
        if (!started) worker(&slots[0]); /* no thread: play here */
        for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
        pthread_mutex_destroy(&m.mu);
        if (a.u.json)
            print_json(&m);
        else
            print_summary(&m);
        rc = interrupted ? 128 + interrupted : m.pgn_error ? 1 : 0; /* 130 SIGINT, 143 SIGTERM */
        if (m.pgn_error) fprintf(stderr, "ply match: writing %s failed\n", a.pgn);
    }
    ply_uci_client_destroy(&m.first[0]);
    ply_uci_client_destroy(&m.first[1]);
    if (m.pgn) fclose(m.pgn);
    free(m.recs);
    ply_book_free(&m.book);
    return rc;
}
