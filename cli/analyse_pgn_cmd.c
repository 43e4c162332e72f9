/*
 * `ply analyse-pgn` (issue 11, part 4): every position of every game of a PGN file
 * searched on the embedded coordinator or a cluster, and the games written back
 * annotated as lichess annotates them ([%eval], NAGs, best lines, accuracy; the rules
 * are client/annotate.h's, which evaluations judge which move is pgn_annotate.h's).
 *
 * Streaming: one game in memory at a time (the arbiter's PGN reader), the output written
 * game by game, and a bounded cache of analysed positions (pos_cache.h) so that a
 * position met again, in this game or a later one, is searched once. Each game is one
 * search run (SearchRequest.plies: the plies not in the cache), which the coordinator
 * splits into chunks searched backwards on one worker. Then the consistency pass:
 * where the engine's own move leads to a position it judges worse (pgn_annotate.h's
 * ply_pa_contradictions), that later position is searched again with twice the budget,
 * in one more run, and the output says so.
 * A game that cannot be read or replayed is reported with its number and line and
 * skipped; the exit status is then 1, the other games still written.
 * Here: the command line, the file read game by game, the annotated games, the JSON and
 * every message; a game's searches and the consistency pass are client/analyse_pgn.h's.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analyse_pgn.h"
#include "commands.h"
#include "curve_opts.h"
#include "envelope.h"
#include "progress.h"
#include "session_opts.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/time.h"

#define CMD "ply analyse-pgn"

/* Positions the cache keeps by default (pos_cache.h: about 250 bytes each). */
#define CACHE_DEFAULT 65536u

/* What the command line asked. */
typedef struct apgn_args {
    const char *file;   /* the PGN file, "-" for standard input */
    const char *output; /* -o: the annotated games, or NULL (stdout; nothing with --json) */
    unsigned depth;     /* -d: plies, or 0 */
    uint64_t nodes;     /* --nodes: the budget of each position, or 0 */
    size_t game;        /* --game: 1-based, 0 for every game */
    size_t cache;       /* --cache: positions */
    int json, quiet;
    ply_session_config_t session;
} apgn_args_t;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply analyse-pgn FILE.pgn (-d N | --nodes N) [options]\n"
            "\n"
            "Searches every position of every game of a PGN file and writes the games back\n"
            "annotated as lichess does: [%%eval 0.17,22] after every move (White's point of\n"
            "view; none after a move that ends the game by checkmate or stalemate), ?! ? ??\n"
            "by lichess's winning-chances rule, a comment naming what was lost (\"Mistake. Nf3\n"
            "was best.\"), the engine's best line as a variation where the move played\n"
            "differs, and per side accuracy and average centipawn loss in tags. Positions met\n"
            "again (same position, any game) are searched once. Where the engine's own move\n"
            "leads to a position it judges worse, that position is searched again with twice\n"
            "the budget (a comment and --json say so). The game's own comments (less their\n"
            "[%%eval] commands), NAGs and variations stay beside the engine's.\n"
            "\n"
            "  FILE.pgn            the games ('-' reads standard input); read as a stream\n"
            "  -d, --depth N       search each position to N plies, 1..%d\n"
            "      --nodes N       or with a budget of N nodes each\n"
            "      --game N        only game N of the file (1-based; default: every game)\n"
            "  -o, --output FILE   write the annotated games to FILE (default: standard output,\n"
            "                      or nowhere with --json)\n"
            "      --json          print one JSON object (per game: the moves with eval,\n"
            "                      judgement, best move, accuracy; each side's accuracy and\n"
            "                      ACPL; the positions searched and re-searched)\n"
            "      --cache N       positions kept to answer repeats, 1..10000000 (default %u,\n"
            "                      about 250 bytes each)\n"
            "  -q, --quiet         no progress on standard error\n"
            "  -t, --threads N     worker threads (default: one per core)\n"
            "      --hash MIB      worker transposition table, MiB (default 256)\n"
            "      --workers N     run N local ply-worker processes instead of the in-process\n"
            "                      worker\n"
            "      --coordinator E submit to the coordinator at endpoint E\n"
            "      --timeout S     give up when the coordinator is silent for S seconds (default\n"
            "                      30)\n" PLY_CLI_CURVE_HELP
            "      --state FILE    the embedded coordinator keeps its runs in FILE (SQLite): the\n"
            "                      same command run again after an interruption resumes\n"
            "  -h, --help          this text\n"
            "\n"
            "Twice the budget: --nodes 2N, or depth N+2 (an alpha-beta search needs about 1.5\n"
            "to 2 times the nodes per extra ply).\n"
            "Exit status: 0 every game analysed, 1 a game skipped or a failure, 2 usage or a\n"
            "file that cannot be read.\n",
            PLY_SEARCH_JOB_MAX_DEPTH, CACHE_DEFAULT);
}

static int parse_args(apgn_args_t *a, int argc, char **argv)
{
    enum {
        OPT_NODES = 256,
        OPT_GAME,
        OPT_JSON,
        OPT_CACHE,
    };
    static const struct option longopts[] = {{"depth", required_argument, NULL, 'd'},
                                             {"nodes", required_argument, NULL, OPT_NODES},
                                             {"game", required_argument, NULL, OPT_GAME},
                                             {"output", required_argument, NULL, 'o'},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"cache", required_argument, NULL, OPT_CACHE},
                                             {"quiet", no_argument, NULL, 'q'},
                                             PLY_CLI_SESSION_LONGOPTS,
                                             PLY_CLI_CURVE_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *cmd = "analyse-pgn";
    long v;
    int c, rc;
    ply_cli_session_opts_t o;
    ply_cli_session_opts_init(&o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":d:o:qt:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (ply_cli_parse_long(optarg, 1, PLY_SEARCH_JOB_MAX_DEPTH, &v))
                return ply_usage_error(cmd, "depth '%s' must be 1..%d", optarg,
                                       PLY_SEARCH_JOB_MAX_DEPTH);
            a->depth = (unsigned)v;
            break;
        case OPT_NODES:
            if (ply_cli_parse_long(optarg, 1, 1L << 40, &v))
                return ply_usage_error(cmd, "--nodes '%s' must be 1..2^40", optarg);
            a->nodes = (uint64_t)v;
            break;
        case OPT_GAME:
            if (ply_cli_parse_long(optarg, 1, 1000000000L, &v))
                return ply_usage_error(cmd, "--game '%s' must be a game number from 1", optarg);
            a->game = (size_t)v;
            break;
        case 'o':
            a->output = optarg;
            break;
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_CACHE:
            if (ply_cli_parse_long(optarg, 1, 10000000L, &v))
                return ply_usage_error(cmd, "--cache '%s' must be 1..10000000", optarg);
            a->cache = (size_t)v;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return -1;
        case ':':
            return ply_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            if ((rc = ply_cli_session_option(cmd, &o, c, optarg)) >= 0) {
                if (rc) return rc;
                break;
            }
            if (ply_cli_curve_option(c, optarg)) break;
            return ply_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return ply_usage_error(cmd, "%s",
                               optind >= argc ? "FILE.pgn is required" : "one FILE.pgn only");
    a->file = argv[optind];
    if (!a->depth == !a->nodes)
        return ply_usage_error(cmd, "%s", "give one budget: -d N or --nodes N");
    a->session = o.cfg;
    return ply_cli_session_check(cmd, &o);
}

/* ---- the work ----------------------------------------------------------------------- */

typedef struct apgn {
    const apgn_args_t *a;
    ply_apgn_t work; /* the session, the cache, the journal, the limits (analyse_pgn.h) */
    FILE *pgn_out;   /* NULL: no PGN (--json without -o) */
    ply_pgn_game_t *annotated;
    size_t games_total; /* tag sections of the file; 0 when unknown (stdin) */
    size_t analysed, skipped, json_games;
    size_t last_game; /* the number of the last game read (also a broken one) */
    uint64_t positions, searched, from_cache, start_ms;
    ply_progress_t bar; /* the live bar or the log's lines (progress.h) */
} apgn_t;

/* The bar: games done of the file's, the running game's run counting as its jobs done. */
static void on_run_progress(const Ply__RunProgress *p, void *arg)
{
    apgn_t *ap = arg;
    if (ap->bar.mode == PLY_PROGRESS_OFF || (p->state && !strcmp(p->state, "queued"))) return;
    double part = p->jobs_total ? (double)p->jobs_done / p->jobs_total : 0;
    uint64_t done = ap->analysed + ap->skipped;
    ply_progress_update(&ap->bar, done, ap->games_total, "games", (double)done + part,
                        (double)ap->games_total,
                        ap->work.nodes_done + ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi),
                        p->has_nodes, NULL);
}

/* A problem of the analysis that does not stop it (analyse_pgn.h). */
static void on_warning(void *arg, const char *text)
{
    (void)arg;
    fprintf(stderr, "%s: %s\n", CMD, text);
}

/* ---- output -------------------------------------------------------------------------- */

static json_t *eval_json(ply_annot_eval_t e, unsigned depth)
{
    return json_pack("{s:i,s:i}", e.is_mate ? "mate" : "cp", e.value, "depth", (int)depth);
}

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? ply_json_text(s) : json_null();
}

static const char *judgement_word(const ply_pa_move_t *m)
{
    if (!m->judged) return NULL;
    switch (m->judgement) {
    case PLY_ANNOT_INACCURACY:
        return "inaccuracy";
    case PLY_ANNOT_MISTAKE:
        return "mistake";
    case PLY_ANNOT_BLUNDER:
        return "blunder";
    default:
        return "good";
    }
}

static double one_decimal(double v)
{
    return round(v * 10.0) / 10.0;
}

static json_t *game_json(const ply_apgn_game_t *w, const ply_pgn_game_t *src,
                         const ply_pa_move_t *moves, const ply_pa_summary_t *sum)
{
    json_t *o = json_object(), *ms = json_array(), *redone = json_array();
    for (int k = 0; k < w->g.nplies; k++) {
        const ply_pa_move_t *m = &moves[k];
        json_t *mo = json_object();
        json_object_set_new(mo, "ply", json_integer(k + 1));
        json_object_set_new(mo, "san", ply_json_text(w->g.san[k]));
        json_object_set_new(mo, "eval", m->has_eval ? eval_json(m->eval, m->depth) : json_null());
        json_object_set_new(mo, "judgement", str_or_null(judgement_word(m)));
        json_object_set_new(mo, "best", str_or_null(m->best));
        json_object_set_new(mo, "accuracy",
                            m->judged ? json_real(one_decimal(m->accuracy)) : json_null());
        json_object_set_new(mo, "cp_loss", m->judged ? json_integer(m->cp_loss) : json_null());
        json_array_append_new(ms, mo);
    }
    for (size_t i = 0; i < w->nredone; i++)
        json_array_append_new(redone, json_integer(w->redone[i]));
    json_object_set_new(o, "game", json_integer((json_int_t)w->number));
    json_object_set_new(o, "line", json_integer(src->line));
    json_t *tags = json_object();
    static const char *const names[] = {"White", "Black", "Result", "Event", "Date"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        json_object_set_new(tags, names[i], str_or_null(ply_pgn_game_tag(src, names[i])));
    json_object_set_new(o, "tags", tags);
    json_object_set_new(o, "plies", json_integer(w->g.nplies));
    json_object_set_new(o, "positions", json_integer(w->positions));
    json_object_set_new(o, "searched", json_integer(w->searched));
    json_object_set_new(o, "from_cache", json_integer(w->from_cache));
    json_object_set_new(o, "researched", redone);
    json_object_set_new(o, "jobs_computed", json_integer(w->jobs_computed));
    json_object_set_new(o, "jobs_restored", json_integer(w->jobs_restored));
    json_object_set_new(o, "runs_from_state", json_integer(w->runs_from_state));
    json_object_set_new(o, "from_state", json_integer(w->from_state));
    static const char *const side[2] = {"white", "black"};
    for (int s = 0; s < 2; s++)
        json_object_set_new(o, side[s],
                            sum->moves[s]
                                ? json_pack("{s:f,s:f}", "accuracy", one_decimal(sum->accuracy[s]),
                                            "acpl", one_decimal(sum->acpl[s]))
                                : json_null());
    json_object_set_new(o, "moves", ms);
    return o;
}

static void json_game(apgn_t *ap, json_t *o)
{
    char *text = ply_json_dumps(o, JSON_INDENT(2));
    json_decref(o);
    if (!text) return;
    /* indented one level: the element of "games" */
    printf("%s    ", ap->json_games++ ? ",\n" : "");
    for (const char *p = text; *p; p++) printf(*p == '\n' ? "\n    " : "%c", *p);
    free(text);
}

static void progress(apgn_t *ap, const ply_apgn_game_t *w)
{
    if (ap->a->quiet) return;
    ply_progress_clear(&ap->bar);
    double s = (double)ply_elapsed_ms(ply_time_ms(), ap->start_ms) / 1000.0;
    char total[32] = "";
    if (ap->games_total) snprintf(total, sizeof total, "/%zu", ap->games_total);
    fprintf(stderr,
            "game %zu%s: %u positions, %u searched, %u known, %zu re-searched, %u from the "
            "state file; %.0f positions/s\n",
            w->number, total, w->positions, w->searched, w->from_cache, w->nredone, w->from_state,
            s > 0 ? (double)ap->searched / s : 0.0);
}

static char *annotator(const apgn_args_t *a, char *buf, size_t len)
{
    if (a->depth)
        snprintf(buf, len, "ply analyse-pgn, depth %u", a->depth);
    else
        snprintf(buf, len, "ply analyse-pgn, %" PRIu64 " nodes", a->nodes);
    return buf;
}

/* Writes the annotated game and its JSON. Returns 0 or PLY_EIO / PLY_ENOMEM. */
static int emit(apgn_t *ap, ply_apgn_game_t *w, const ply_pgn_game_t *src)
{
    ply_progress_clear(&ap->bar); /* the game may go to the same terminal */
    ply_pa_move_t *moves = calloc((size_t)w->g.nplies + 1, sizeof *moves);
    if (!moves) return PLY_ENOMEM;
    ply_pa_summary_t sum;
    ply_pa_judge(&w->g, moves, &sum);
    char who[64];
    int rc =
        ply_pa_annotate(&w->g, src, moves, &sum, annotator(ap->a, who, sizeof who), ap->annotated);
    if (rc == 0 && ap->pgn_out) {
        rc = ply_pgn_write(ap->pgn_out, ap->annotated);
        if (rc == 0 && fflush(ap->pgn_out) != 0) rc = PLY_EIO;
    }
    if (rc == 0 && ap->a->json) json_game(ap, game_json(w, src, moves, &sum));
    free(moves);
    return rc;
}

/* ---- the file ------------------------------------------------------------------------ */

static void skip(apgn_t *ap, size_t number, long line, const char *why)
{
    ap->skipped++;
    ply_progress_clear(&ap->bar);
    fprintf(stderr, "%s: game %zu (line %ld): %s; skipped\n", CMD, number, line, why);
    if (ap->a->json)
        json_game(ap, json_pack("{s:I,s:I,s:o}", "game", (json_int_t)number, "line",
                                (json_int_t)line, "error", ply_json_text(why)));
}

/* One game: 0 done or skipped (a bad game, or one whose jobs no worker could answer with lines
 * that pass the checks), < 0 a failure that ends the command (printed). */
static int one_game(apgn_t *ap, const ply_pgn_game_t *src)
{
    ply_apgn_game_t w = {.number = src->number};
    char why[300];
    long line;
    int rc = ply_pa_game_read(&w.g, src, &line, why, sizeof why);
    if (rc == 0 && w.g.nplies > PLY_SEARCH_JOB_MAX_MOVES)
        rc = ply_why(why, sizeof why, PLY_ERANGE, "%d plies, more than the %d a search run takes",
                     w.g.nplies, PLY_SEARCH_JOB_MAX_MOVES);
    if (rc == PLY_ENOMEM || (rc == 0 && (rc = ply_apgn_game_alloc(&w)) != 0)) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        ply_apgn_game_free(&w);
        return PLY_ENOMEM;
    }
    if (rc < 0) {
        skip(ap, src->number, line, why);
        ply_apgn_game_free(&w);
        return 0;
    }
    char failed[512];
    rc = ply_apgn_analyse(&ap->work, &w, failed, sizeof failed);
    if (rc != 0 && failed[0]) {
        ply_progress_clear(&ap->bar);
        fprintf(stderr, "%s: game %zu: %s\n", CMD, w.number, failed);
    }
    if (rc == PLY_EWORKER || rc == PLY_EMISMATCH) {
        /* a job of this game could not be computed (no worker's answer passed the checks,
         * said above): the game is left out, the others go on */
        ap->skipped++;
        fprintf(stderr, "%s: game %zu: not analysed (%s); skipped\n", CMD, w.number,
                ply_strerror(rc));
        ply_apgn_game_free(&w);
        return 0;
    }
    if (rc == 0) {
        rc = emit(ap, &w, src);
        if (rc) fprintf(stderr, "%s: cannot write game %zu: %s\n", CMD, w.number, ply_strerror(rc));
    }
    if (rc == 0) {
        ap->analysed++;
        ap->positions += w.positions;
        ap->searched += w.searched + w.nredone - w.from_state;
        ap->from_cache += w.from_cache;
        progress(ap, &w);
    }
    ply_apgn_game_free(&w);
    return rc;
}

/* Tag sections of the file (a line starting with '[' after one that does not): the games
 * to expect, for the progress line. 0 for standard input or a file that cannot be read. */
static size_t count_games(const char *path)
{
    if (!strcmp(path, "-")) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[4096];
    size_t n = 0;
    int in_tags = 0, at_line_start = 1;
    while (fgets(buf, sizeof buf, f)) {
        if (at_line_start) {
            int tag = buf[0] == '[';
            n += tag && !in_tags;
            in_tags = tag;
        }
        at_line_start = strchr(buf, '\n') != NULL;
    }
    fclose(f);
    return n;
}

static void summary(apgn_t *ap, int failed)
{
    uint64_t ms = ply_elapsed_ms(ply_time_ms(), ap->start_ms);
    double rate = ms ? (double)ap->searched * 1000.0 / (double)ms : 0.0;
    if (ap->a->json) {
        json_t *o = json_pack(
            "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:b}", "analysed", (json_int_t)ap->analysed,
            "skipped", (json_int_t)ap->skipped, "positions", (json_int_t)ap->positions, "searched",
            (json_int_t)ap->searched, "from_cache", (json_int_t)ap->from_cache, "researched",
            (json_int_t)ap->work.researched, "runs", (json_int_t)ap->work.runs, "time_ms",
            (json_int_t)ms, "positions_per_s", round(rate), "complete", !failed);
        char *text = ply_json_dumps(o, JSON_INDENT(2));
        json_decref(o);
        printf("\n  ],\n  \"summary\": "); /* after "games", indented one level */
        for (const char *p = text ? text : "null"; *p; p++) printf(*p == '\n' ? "\n  " : "%c", *p);
        printf("\n}\n");
        free(text);
    }
    if (ap->a->quiet) return;
    ply_progress_clear(&ap->bar);
    fprintf(stderr,
            "%s: %zu game%s analysed, %zu skipped: %" PRIu64 " positions, %" PRIu64
            " searched (%" PRIu64 " re-searched), %" PRIu64 " known; %.1f s, %.0f positions/s\n",
            CMD, ap->analysed, ap->analysed == 1 ? "" : "s", ap->skipped, ap->positions,
            ap->searched, ap->work.researched, ap->from_cache, (double)ms / 1000.0, rate);
}

static int read_games(apgn_t *ap, ply_pgn_reader_t *r)
{
    for (;;) {
        const ply_pgn_game_t *src;
        ply_pgn_error_t err;
        int rc = ply_pgn_read(r, &src, &err);
        if (rc == 0) return 0;
        if (rc == PLY_EPARSE) {
            ap->last_game = err.game;
            if (!ap->a->game || err.game == ap->a->game) skip(ap, err.game, err.line, err.why);
            continue;
        }
        if (rc < 0) {
            fprintf(stderr, "%s: %s: read error\n", CMD, ap->a->file);
            return rc;
        }
        ap->last_game = src->number;
        if (ap->a->game && src->number != ap->a->game) {
            if (src->number > ap->a->game) return 0;
            continue;
        }
        if ((rc = one_game(ap, src)) != 0) return rc;
    }
}

/*
 * Analyses @a->file as --help says: the annotated games on @a->output (or stdout), --json on
 * stdout, progress and every skipped game ("ply analyse-pgn: game N (line L): why; skipped")
 * on stderr. Returns the exit status: 0 every game analysed; 1 a game skipped, a run that
 * failed (the session's reason is printed and the games before it are written) or an
 * output that cannot be written; 2 a file that cannot be read.
 */
static int run(const apgn_args_t *a)
{
    apgn_t ap = {.a = a, .start_ms = ply_time_ms()};
    ply_progress_init(&ap.bar, CMD, a->quiet);
    char why[512];
    ply_pgn_reader_t *r = ply_pgn_reader_open(a->file, why, sizeof why);
    if (!r) {
        fprintf(stderr, "%s: %s\n", CMD, why);
        return 2;
    }
    int status = 1;
    ap.games_total = a->game ? 0 : count_games(a->file);
    ap.pgn_out = a->output ? fopen(a->output, "w") : a->json ? NULL : stdout;
    if (a->output && !ap.pgn_out) {
        fprintf(stderr, "%s: cannot write %s\n", CMD, a->output);
        goto out;
    }
    ap.work.cache = ply_pos_cache_new(a->cache);
    ap.annotated = ply_pgn_game_new();
    if (!ap.work.cache || !ap.annotated) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        goto out;
    }
    if (a->session.state_path) {
        char path[4096];
        snprintf(path, sizeof path, "%s.runs", a->session.state_path);
        if (!(ap.work.journal = ply_run_journal_open(path, why, sizeof why))) {
            fprintf(stderr, "%s: %s\n", CMD, why);
            goto out;
        }
    }
    ap.work.session = ply_session_new(&a->session, why, sizeof why);
    if (!ap.work.session) {
        fprintf(stderr, "%s: %s\n", CMD, why);
        goto out;
    }
    ap.work.state_path = a->session.state_path;
    ap.work.depth = a->depth;
    ap.work.nodes = a->nodes;
    ap.work.progress = on_run_progress;
    ap.work.warn = on_warning;
    ap.work.arg = &ap;
    if (a->json) printf("{\n  \"games\": [\n");
    int rc = read_games(&ap, r);
    if (rc == 0 && a->game && ap.last_game < a->game) {
        fprintf(stderr, "%s: no game %zu: %s has %zu\n", CMD, a->game, a->file, ap.last_game);
        rc = PLY_ENOTFOUND;
    }
    summary(&ap, rc != 0);
    status = rc != 0 || ap.skipped ? 1 : 0;
    if (ap.pgn_out && ap.pgn_out != stdout && fclose(ap.pgn_out) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", CMD, a->output);
        status = 1;
    }
    ap.pgn_out = NULL;
out:
    if (ap.pgn_out && ap.pgn_out != stdout) fclose(ap.pgn_out);
    ply_session_destroy(&ap.work.session);
    ply_pgn_game_destroy(&ap.annotated);
    ply_pos_cache_destroy(&ap.work.cache);
    ply_run_journal_close(&ap.work.journal);
    ply_pgn_reader_destroy(&r);
    return status;
}

int ply_cmd_analyse_pgn(int argc, char **argv)
{
    apgn_args_t a = {0};
    a.cache = CACHE_DEFAULT;
    int rc = parse_args(&a, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    rc = ply_cli_curve_setup("ply analyse-pgn");
    if (rc) return rc;
    return run(&a);
}
