/*
 * `ply match`: play games between two UCI engines with the rule engine as
 * the referee, and measure the Elo difference: the command line, the
 * threads, the PGN file and the report. A game itself is
 * client/match_game.h's (clocks, the arbiter's verdicts, the record).
 *
 * Each game starts from an opening of the book (book.h; each is played
 * twice, the colours swapped) and goes on with the engines' moves. Each
 * finished game is replayed by ply_arb_adjudicate as a self-check before it
 * is written.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arbiter/pgn.h"
#include "book.h"
#include "commands.h"
#include "elo.h"
#include "engine_opts.h"
#include "match_game.h"
#include "uci_client.h"
#include "util/error.h"
#include "util/json_exact.h"

#define THREADS_MAX 64

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

typedef struct match {
    const match_args_t *a;
    ply_book_t *book;
    pthread_mutex_t mu;
    long next, done;
    long w, d, l; /* engine 0's view */
    long tally[PLY_MATCH_END_KINDS], arbiter_bad;
    ply_match_game_t *recs;
    FILE *pgn;
    int pgn_error;
    ply_uci_client_t *first[2]; /* the engines started to check the command line, for thread 0 */
    ply_match_config_t game;    /* what every game shares (match_game.h) */
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

static ply_uci_client_t *start_engine(void *arg, int i, char *why, size_t why_len)
{
    const match_args_t *a = arg;
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

static void record(match_t *m, const ply_match_game_t *rec)
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
                   m->a->label[rec->white], m->a->label[rec->white ^ 1],
                   ply_match_result_text(rec->result), rec->reason,
                   rec->arbiter_ok ? "" : " [THE ARBITER DISAGREES WITH THIS RECORD]");
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
        ply_match_game_t rec = {0};
        rec.number = n;
        rec.white = (int)((n - 1) % 2); /* engine 0 is White in odd-numbered games */
        const ply_book_line_t *o =
            m->book ? &m->book->lines[(size_t)((n - 1) / 2) % m->book->n] : NULL;
        ply_pgn_game_t *pgn = ply_match_play(&m->game, e, o, &rec);
        if (pgn) {
            pthread_mutex_lock(&m->mu);
            if (m->pgn && (ply_pgn_write(m->pgn, pgn) < 0 || fflush(m->pgn) != 0)) m->pgn_error = 1;
            pthread_mutex_unlock(&m->mu);
        }
        ply_pgn_game_destroy(&pgn);
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
    for (int k = 0; k < PLY_MATCH_END_KINDS; k++)
        if (m->tally[k])
            json_object_set_new(ends, ply_match_end_name(k), json_integer(m->tally[k]));
    json_object_set_new(j, "terminations", ends);
    for (long i = 0; i < a->games; i++) {
        const ply_match_game_t *r = &m->recs[i];
        if (!r->number || r->result == 2) continue;
        json_array_append_new(
            games,
            json_pack("{sI so so so ss ss sI sb}", "game", (json_int_t)r->number, "white",
                      ply_json_text(a->label[r->white]), "black",
                      ply_json_text(a->label[r->white ^ 1]), "opening", ply_json_text(r->opening),
                      "result", ply_match_result_text(r->result), "reason", r->reason, "plies",
                      (json_int_t)r->plies, "arbiter_ok", r->arbiter_ok));
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
    for (int k = 0, first = 1; k < PLY_MATCH_END_KINDS; k++)
        if (m->tally[k]) {
            printf("%s %s %ld", first ? "" : ",", ply_match_end_name(k), m->tally[k]);
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
        m.game = (ply_match_config_t){.label = {a.label[0], a.label[1]},
                                      .tc = a.tc,
                                      .clock = a.clock,
                                      .base_ms = a.base_ms,
                                      .inc_ms = a.inc_ms,
                                      .margin_ms = a.margin_ms,
                                      .movetime = a.u.movetime,
                                      .nodes = a.u.nodes,
                                      .depth = a.u.depth,
                                      .timeout_s = a.u.timeout_s,
                                      .interrupted = &interrupted,
                                      .start = start_engine,
                                      .start_arg = &a};
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
