/*
 * `ply solve`: run one UCI engine over an EPD test suite and count what it
 * solves. Each position's expectations come from its opcodes: bm (the best
 * moves), am (moves to avoid) and STS's c0 "move=points, ..." (points per
 * move, at most 10). The moves are SAN, read by the rule engine (the
 * arbiter's SAN reader) in the position, and the engine's bestmove is read
 * by the arbiter too, so a move the engine spells unusually (a castle as
 * king-takes-rook) is still compared as the move it is, and an illegal one
 * is reported as such.
 *
 * A position is solved when the engine's move is one of bm and none of am
 * (only am: none of am). Positions with none of the three are timed but not
 * counted (the time-to-depth mode for Lazy SMP figures runs on such sets).
 * The time to solution is the engine's time at the first info line from
 * which every pv started with a solving move, up to the bestmove.
 *
 * Each position starts with "ucinewgame", so that one position's table does
 * not help the next. An engine that fails (dies, hangs past the deadline,
 * prints nonsense) fails that position with the reason and is restarted.
 * Exit status: 0 the suite ran, 1 an engine failed on some position (or
 * could not be started), 2 usage or a broken suite, 130 interrupted (SIGINT), 143 (SIGTERM).
 */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arbiter/arbiter.h"
#include "arbiter/san.h"
#include "commands.h"
#include "engine_opts.h"
#include "epd_expect.h"
#include "epd_ops.h"
#include "uci_client.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/time.h"

#define MOVES_MAX PLY_EPD_EXPECT_MAX

typedef struct solve_args {
    ply_cli_engine_opts_t u; /* the engine, the limits, --timeout, --json, --quiet */
    const char *epd;
    int threads, hash;
    char threads_opt[32], hash_opt[32]; /* "Threads=N", "Hash=N" */
    long limit, from;
} solve_args_t;

/* What a position expects, as moves of its position: bm/am (epd_expect.h), STS points. */
typedef struct expect {
    ply_epd_expect_t e;
    int npts, max_points;
    ply_arb_move_t pts_move[MOVES_MAX];
    int pts[MOVES_MAX];
} expect_t;

/* What happened on one position. */
typedef struct outcome {
    int scored, solved, points, error;
    char got[PLY_ARB_SAN_MAX + 8];
    char why[512];
    ply_uci_client_search_t s;
    /* the first info line of the last run of solving pvs */
    int streak, found_depth;
    double found_ms;
} outcome_t;

static atomic_int interrupted; /* the signal that stopped the suite, set by its handler
                                  (lock-free, so async-signal-safe) */

static void on_sigint(int sig)
{
    interrupted = sig;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: ply solve --engine CMD --epd FILE (--movetime MS | --nodes N | --depth D)\n"
        "                 [options]\n"
        "\n"
        "Runs a UCI engine over an EPD test suite and reports what it solves: a position\n"
        "is solved when the engine's move is one of its 'bm' moves and none of its 'am'\n"
        "moves; STS's c0 \"move=points\" comments give points per move. Positions with\n"
        "none of these are timed only (time to depth, with --depth).\n"
        "\n"
        "  -e, --engine CMD     the engine's command line (no shell), e.g. /usr/games/stockfish\n"
        "      --epd FILE       the suite (FEN, then opcodes bm/am/id/c0; SAN moves)\n"
        "      --movetime MS    think this long per position\n"
        "      --nodes N        search N nodes per position\n"
        "      --depth D        search to depth D (with the others: whichever ends first)\n"
        "  -t, --threads N      setoption Threads (default: the engine's own)\n"
        "      --hash MIB       setoption Hash (default: the engine's own)\n"
        "      --option N=V     setoption name N value V (repeatable), e.g. 'Move Overhead=0'\n"
        "      --from K         start at the K-th position (1-based; default 1)\n"
        "      --limit N        run at most N positions\n"
        "      --timeout S      fail a position after movetime + S seconds (default 60);\n"
        "                       also the longest the engine may stay silent otherwise\n"
        "      --json           print one JSON object instead of text\n"
        "  -q, --quiet          no per-position lines (text mode)\n"
        "  -h, --help           this text\n"
        "\n"
        "Exit status: 0 the suite ran, 1 an engine failure on some position,\n"
        "2 usage or a broken suite, 130 interrupted by SIGINT, 143 by SIGTERM (the result\n"
        "so far is printed).\n");
}

enum { OPT_EPD = 256, OPT_HASH, OPT_FROM, OPT_LIMIT };

/* The options of ply solve's own (engine_opts.h has the others). */
static int own_option(ply_cli_engine_opts_t *u, void *ctx, int c, const char *arg)
{
    solve_args_t *a = ctx;
    long v;
    (void)u;
    switch (c) {
    case OPT_EPD:
        a->epd = arg;
        break;
    case 't':
        if (ply_cli_parse_long(arg, 1, 1024, &v))
            return ply_usage_error("solve", "--threads '%s' must be 1..1024", arg);
        a->threads = (int)v;
        break;
    case OPT_HASH:
        if (ply_cli_parse_long(arg, 1, 1 << 20, &v))
            return ply_usage_error("solve", "--hash '%s' must be MiB from 1", arg);
        a->hash = (int)v;
        break;
    case OPT_FROM:
        if (ply_cli_parse_long(arg, 1, 1L << 30, &v))
            return ply_usage_error("solve", "--from '%s' must be a position from 1", arg);
        a->from = v;
        break;
    default: /* OPT_LIMIT */
        if (ply_cli_parse_long(arg, 1, 1L << 30, &v))
            return ply_usage_error("solve", "--limit '%s' must be a count from 1", arg);
        a->limit = v;
        break;
    }
    return 0;
}

/* --threads and --hash are settings too, made before the --option ones. */
static int add_settings(solve_args_t *a)
{
    ply_cli_engine_spec_t *s = &a->u.eng[0];
    const char *given[PLY_CLI_ENGINE_OPTIONS_MAX];
    int n = s->noptions;
    memcpy(given, s->options, sizeof given);
    s->noptions = 0;
    snprintf(a->threads_opt, sizeof a->threads_opt, "Threads=%d", a->threads);
    snprintf(a->hash_opt, sizeof a->hash_opt, "Hash=%d", a->hash);
    int r = a->threads ? ply_cli_engine_add_option(&a->u, s, a->threads_opt) : 0;
    if (r == 0 && a->hash) r = ply_cli_engine_add_option(&a->u, s, a->hash_opt);
    for (int i = 0; r == 0 && i < n; i++) r = ply_cli_engine_add_option(&a->u, s, given[i]);
    return r;
}

static int parse_args(int argc, char **argv, solve_args_t *a)
{
    static const struct option own[] = {
        {"epd", required_argument, NULL, OPT_EPD},     {"threads", required_argument, NULL, 't'},
        {"hash", required_argument, NULL, OPT_HASH},   {"from", required_argument, NULL, OPT_FROM},
        {"limit", required_argument, NULL, OPT_LIMIT}, {NULL, 0, NULL, 0}};
    int r = ply_cli_engine_parse(&a->u, argc, argv, "t:", own, own_option, a, usage);
    if (r) return r;
    if (!a->u.neng || !a->u.eng[0].cmd[0])
        return ply_usage_error("solve", "%s", "--engine CMD is required");
    if (!a->epd) return ply_usage_error("solve", "%s", "--epd FILE is required");
    if (!a->u.movetime && !a->u.nodes && !a->u.depth)
        return ply_usage_error("solve", "%s", "give a limit: --movetime, --nodes or --depth");
    return add_settings(a);
}

/* ---- the suite --------------------------------------------------------------------- */

/* STS's c0 "f5=10, Be5+=2, Bf2=3": moves with points. */
static int read_points(expect_t *x, const char *text, char *why, size_t why_len)
{
    char buf[1024], err[200];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        char *eq = strrchr(t, '=');
        long p;
        if (!eq || ply_cli_parse_long(eq + 1, 0, 1000, &p) < 0)
            return ply_why(why, why_len, -1, "c0 '%s' is not move=points", t);
        *eq = '\0';
        if (x->npts == MOVES_MAX)
            return ply_why(why, why_len, -1, "c0: more than %d moves", MOVES_MAX);
        if (ply_arb_move_from_san(&x->e.pos, t, &x->pts_move[x->npts], err, sizeof err) < 0)
            return ply_why(why, why_len, -1, "c0 '%s': %s", t, err);
        x->pts[x->npts] = (int)p;
        if (p > x->max_points) x->max_points = (int)p;
        x->npts++;
    }
    return 0;
}

/* STS's form: every comma-separated item ends in "=points" (other c0 comments are text). */
static int is_stsc0(const char *c0)
{
    if (!c0 || !*c0) return 0;
    for (const char *item = c0; item; item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL) {
        size_t n = strcspn(item, ",");
        while (n && item[n - 1] == ' ') n--;
        size_t d = 0;
        while (d < n && isdigit((unsigned char)item[n - 1 - d])) d++;
        if (!d || d == n || item[n - 1 - d] != '=') return 0;
    }
    return 1;
}

/* The expectations of record @r; 0, or -1 with the reason. */
static int read_expect(const ply_epd_rec_t *r, expect_t *x, char *why, size_t why_len)
{
    memset(x, 0, sizeof *x);
    if (ply_epd_expect_read(r, &x->e, why, why_len) < 0) return -1;
    const char *c0 = ply_epd_op(r, "c0");
    if (is_stsc0(c0) && read_points(x, c0, why, why_len) < 0) return -1;
    return 0;
}

/* ---- one position ------------------------------------------------------------------- */

typedef struct track {
    const expect_t *x;
    outcome_t *o;
} track_t;

static int solves(const expect_t *x, ply_arb_move_t m)
{
    if (ply_epd_expect_scored(&x->e)) return ply_epd_expect_solves(&x->e, m);
    int i = ply_epd_move_index(x->pts_move, x->npts, m);
    return i >= 0 && x->pts[i] == x->max_points;
}

static void on_info(void *ctx, const ply_uci_client_info_t *in, double elapsed_ms)
{
    track_t *t = ctx;
    if (in->multipv > 1 || in->npv == 0) return;
    ply_arb_move_t m;
    int good = ply_arb_move_from_uci(&t->x->e.pos, in->pv[0], &m) == 0 && solves(t->x, m);
    if (good && !t->o->streak) {
        t->o->streak = 1;
        t->o->found_ms = in->time_ms >= 0 ? (double)in->time_ms : elapsed_ms;
        t->o->found_depth = in->depth;
    } else if (!good) {
        t->o->streak = 0;
    }
}

/* Starts the engine and sets its options; NULL with the reason in @why. */
static ply_uci_client_t *start_engine(const solve_args_t *a, char *why, size_t why_len)
{
    return ply_cli_engine_start(&a->u.eng[0], a->u.timeout_s, &interrupted, why, why_len);
}

static int run_position(ply_uci_client_t *e, const solve_args_t *a, const expect_t *x, outcome_t *o)
{
    char cmd[PLY_ARB_FEN_MAX + 16];
    snprintf(cmd, sizeof cmd, "position fen %s", x->e.fen);
    ply_uci_client_limits_t lim = {0};
    lim.movetime = a->u.movetime;
    lim.depth = a->u.depth;
    lim.nodes = a->u.nodes;
    lim.deadline_ms = (uint64_t)a->u.movetime + a->u.timeout_s * 1000ull;
    track_t t = {x, o};
    int r = ply_uci_client_newgame(e, o->why, sizeof o->why);
    if (r == 0) r = ply_uci_client_go(e, cmd, &lim, on_info, &t, &o->s, o->why, sizeof o->why);
    if (r < 0) return r;
    ply_arb_move_t m;
    if (!o->s.bestmove[0]) {
        snprintf(o->got, sizeof o->got, "(none)");
        snprintf(o->why, sizeof o->why, "engine '%s' found no move (bestmove 0000)",
                 a->u.eng[0].cmd);
        return PLY_EILLEGAL;
    }
    if (ply_arb_move_from_uci(&x->e.pos, o->s.bestmove, &m) < 0) {
        snprintf(o->got, sizeof o->got, "%s", o->s.bestmove);
        snprintf(o->why, sizeof o->why, "engine '%s' played %s, which is not a legal move here",
                 a->u.eng[0].cmd, o->s.bestmove);
        return PLY_EILLEGAL;
    }
    ply_arb_move_to_san(&x->e.pos, m, o->got, sizeof o->got);
    o->scored = x->e.nbm || x->e.nam || x->npts;
    o->solved = o->scored && solves(x, m);
    int i = ply_epd_move_index(x->pts_move, x->npts, m);
    o->points = i >= 0 ? x->pts[i] : 0;
    if (!o->solved || !o->streak) o->found_ms = -1; /* its pvs did not end on a solution */
    return 0;
}

/* ---- output ------------------------------------------------------------------------ */

static void score_text(const ply_uci_client_info_t *in, char *buf, size_t len)
{
    if (in->score_kind == PLY_UCI_CLIENT_SCORE_CP)
        snprintf(buf, len, "%+.2f", in->score / 100.0);
    else if (in->score_kind == PLY_UCI_CLIENT_SCORE_MATE)
        snprintf(buf, len, "#%d", in->score);
    else
        snprintf(buf, len, "-");
}

static void print_line(size_t idx, const expect_t *x, const outcome_t *o)
{
    char sc[32], want[160];
    if (x->e.nbm)
        snprintf(want, sizeof want, "bm %s%s%s", x->e.bm_text, x->e.nam ? " am " : "",
                 x->e.nam ? x->e.am_text : "");
    else if (x->e.nam)
        snprintf(want, sizeof want, "am %s", x->e.am_text);
    else
        snprintf(want, sizeof want, "-");
    printf("%5zu %-26s %-16s ", idx, x->e.id ? x->e.id : "", want);
    if (o->error) {
        printf("error: %s\n", o->why);
        return;
    }
    score_text(&o->s.last, sc, sizeof sc);
    printf("got %-8s %-4s", o->got, !o->scored ? "" : o->solved ? "ok" : "--");
    if (x->npts) printf(" %2d/%d", o->points, x->max_points);
    printf(" %8.3f s d%-3d %8s", o->s.elapsed_ms / 1000.0, o->s.depth, sc);
    if (o->found_ms >= 0)
        printf("  found at %.3f s, depth %d", o->found_ms / 1000.0, o->found_depth);
    printf("\n");
}

static json_t *line_json(size_t idx, const expect_t *x, const outcome_t *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "index", json_integer((json_int_t)idx));
    if (x->e.id) json_object_set_new(j, "id", ply_json_text(x->e.id));
    json_object_set_new(j, "fen", ply_json_text(x->e.fen));
    if (x->e.bm_text) json_object_set_new(j, "bm", ply_json_text(x->e.bm_text));
    if (x->e.am_text) json_object_set_new(j, "am", ply_json_text(x->e.am_text));
    if (o->error) {
        json_object_set_new(j, "error", ply_json_text(o->why));
        if (o->got[0]) json_object_set_new(j, "got", ply_json_text(o->got));
        return j;
    }
    json_object_set_new(j, "got", ply_json_text(o->got));
    json_object_set_new(j, "got_uci", ply_json_text(o->s.bestmove));
    if (o->scored) json_object_set_new(j, "solved", json_boolean(o->solved));
    if (x->npts) {
        json_object_set_new(j, "points", json_integer(o->points));
        json_object_set_new(j, "max_points", json_integer(x->max_points));
    }
    json_object_set_new(j, "elapsed_ms", json_real(o->s.elapsed_ms));
    json_object_set_new(j, "depth", json_integer(o->s.depth));
    json_object_set_new(j, "nodes", json_integer((json_int_t)o->s.nodes));
    if (o->s.last.score_kind == PLY_UCI_CLIENT_SCORE_CP)
        json_object_set_new(j, "score_cp", json_integer(o->s.last.score));
    if (o->s.last.score_kind == PLY_UCI_CLIENT_SCORE_MATE)
        json_object_set_new(j, "score_mate", json_integer(o->s.last.score));
    if (o->found_ms >= 0) {
        json_object_set_new(j, "found_ms", json_real(o->found_ms));
        json_object_set_new(j, "found_depth", json_integer(o->found_depth));
    }
    return j;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the command ------------------------------------------------------------------- */

typedef struct totals {
    long run, scored, solved, points, max_points, errors;
    double time_ms;
    double *times;
} totals_t;

int ply_cmd_solve(int argc, char **argv)
{
    solve_args_t a = {0};
    a.u.cmd = "solve";
    a.u.max_engines = 1;
    a.u.timeout_s = 60;
    a.from = 1;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    char why[1024];
    ply_epd_file_t *suite = ply_epd_file_load(a.epd, why, sizeof why);
    if (!suite) {
        fprintf(stderr, "ply solve: %s\n", why);
        return 2;
    }
    size_t first = (size_t)a.from - 1, end = suite->n;
    if (first >= suite->n) {
        fprintf(stderr, "ply solve: --from %ld: %s has %zu positions\n", a.from, a.epd, suite->n);
        ply_epd_file_free(&suite);
        return 2;
    }
    if (a.limit && first + (size_t)a.limit < end) end = first + (size_t)a.limit;
    /* the whole subset is read before the engine starts: a broken suite costs nothing */
    expect_t *xs = calloc(end - first, sizeof *xs);
    outcome_t *os = calloc(end - first, sizeof *os);
    totals_t t = {0};
    t.times = calloc(end - first, sizeof *t.times);
    if (!xs || !os || !t.times) {
        fprintf(stderr, "ply solve: out of memory\n");
        rc = 2;
        goto done;
    }
    for (size_t i = first; i < end; i++)
        if (read_expect(&suite->recs[i], &xs[i - first], why, sizeof why) < 0) {
            fprintf(stderr, "ply solve: %s:%d: %s\n", a.epd, suite->recs[i].line_no, why);
            rc = 2;
            goto done;
        }

    signal(SIGPIPE, SIG_IGN); /* an engine that dies must not take us with it */
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    ply_uci_client_t *e = start_engine(&a, why, sizeof why);
    if (!e) {
        fprintf(stderr, "ply solve: %s\n", why);
        rc = 1;
        goto done;
    }
    char name[128];
    snprintf(name, sizeof name, "%s", ply_uci_client_name(e));
    if (!a.u.json) {
        printf("engine %s; %s positions %zu..%zu of %zu;", name, a.epd, first + 1, end, suite->n);
        if (a.u.movetime) printf(" movetime %lld ms", (long long)a.u.movetime);
        if (a.u.nodes) printf(" nodes %llu", (unsigned long long)a.u.nodes);
        if (a.u.depth) printf(" depth %d", a.u.depth);
        if (a.threads) printf(" threads %d", a.threads);
        if (a.hash) printf(" hash %d MiB", a.hash);
        printf("\n");
        fflush(stdout);
    }
    for (size_t i = first; i < end && !interrupted; i++) {
        const expect_t *x = &xs[i - first];
        outcome_t *o = &os[i - first];
        uint64_t t0 = ply_time_ns();
        int r = e ? run_position(e, &a, x, o) : PLY_EIO;
        if (r == PLY_ECANCELED) break;
        t.run++;
        t.time_ms += (double)(ply_time_ns() - t0) / 1e6; /* failed positions took time too */
        if (r < 0) { /* a position the engine failed on counts as not solved */
            o->error = 1;
            t.errors++;
            t.scored += x->e.nbm || x->e.nam || x->npts;
            t.max_points += x->max_points;
            if (r != PLY_EILLEGAL) { /* the engine is in an unknown state: a fresh one */
                ply_uci_client_destroy(&e);
                char why2[512];
                e = start_engine(&a, why2, sizeof why2);
                if (!e) fprintf(stderr, "ply solve: cannot restart the engine: %s\n", why2);
            }
        } else {
            t.scored += o->scored;
            t.solved += o->solved;
            t.points += o->points;
            t.max_points += x->max_points;
            t.times[t.run - t.errors - 1] = o->s.elapsed_ms;
        }
        if (!a.u.json && !a.u.quiet) {
            print_line(i + 1, x, o);
            fflush(stdout);
        }
        if (!e) break;
    }
    ply_uci_client_destroy(&e);
    long timed = t.run - t.errors;
    qsort(t.times, (size_t)timed, sizeof *t.times, cmp_double);
    double median =
        timed ? (timed % 2 ? t.times[timed / 2] : (t.times[timed / 2 - 1] + t.times[timed / 2]) / 2)
              : 0;
    if (a.u.json) {
        json_t *j = json_object(), *arr = json_array();
        json_object_set_new(j, "engine", ply_json_text(name));
        json_object_set_new(j, "epd", ply_json_text(a.epd));
        json_object_set_new(j, "first", json_integer((json_int_t)first + 1));
        json_object_set_new(j, "run", json_integer(t.run));
        json_object_set_new(j, "scored", json_integer(t.scored));
        json_object_set_new(j, "solved", json_integer(t.solved));
        if (t.max_points) {
            json_object_set_new(j, "points", json_integer(t.points));
            json_object_set_new(j, "max_points", json_integer(t.max_points));
        }
        json_object_set_new(j, "errors", json_integer(t.errors));
        json_object_set_new(j, "time_ms", json_real(t.time_ms));
        json_object_set_new(j, "median_ms", json_real(median));
        json_object_set_new(j, "interrupted", json_boolean(interrupted));
        for (size_t i = first; i < first + (size_t)t.run; i++)
            json_array_append_new(arr, line_json(i + 1, &xs[i - first], &os[i - first]));
        json_object_set_new(j, "positions", arr);
        json_dumpf(j, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(j);
    } else {
        printf("solved %ld/%ld", t.solved, t.scored);
        if (t.scored) printf(" (%.1f%%)", 100.0 * (double)t.solved / (double)t.scored);
        if (t.max_points)
            printf("; points %ld/%ld (%.1f%%)", t.points, t.max_points,
                   100.0 * (double)t.points / (double)t.max_points);
        printf("; %ld positions in %.1f s", t.run, t.time_ms / 1000.0);
        if (timed) printf(", median %.3f s", median / 1000.0);
        if (timed && t.errors) printf(" over the %ld answered", timed);
        if (t.errors) printf("; %ld engine errors", t.errors);
        if (interrupted) printf("; interrupted");
        printf("\n");
    }
    rc = interrupted ? 128 + interrupted : t.errors ? 1 : 0; /* 130 SIGINT, 143 SIGTERM */
done:
    free(t.times);
    free(xs);
    free(os);
    ply_epd_file_free(&suite);
    return rc;
}
