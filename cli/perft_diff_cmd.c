/*
 * `ply perft-diff`: find the first position where an external UCI engine's
 * move generator and ply's disagree. Both count the divide of the position
 * at depth N; while the move lists agree, the walk descends into the
 * differing root move with the smallest subtree (the cheapest one that must
 * contain a difference) at depth N-1, until the move lists themselves
 * differ. It prints that position, the moves ply has and the engine lacks
 * ("missing"), the moves the engine has and ply lacks ("extra"), and the
 * path from the root.
 *
 * ply's side is the fast engine counted in-process (worker/engine/perft.h: bulk
 * counting, OpenMP, a transposition table), so the walk costs about one
 * perft(N) on each side. At the position found, ply's rule engine (the
 * arbiter, an independent generator) lists the moves too, and the report says
 * whether ply's two generators agree there: when they do, the bug is very
 * likely in the other engine.
 *
 * The engine sees "position startpos|fen ROOT moves PATH", so it replays the
 * path with its own make-move; ROOT is ply's normalised FEN of the root.
 * Exit status: 0 no difference, 1 a difference or an engine failure, 2 usage.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arbiter/arbiter.h"
#include "board/movegen.h"
#include "commands.h"
#include "envelope.h"
#include "perft.h"
#include "uci_client.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/time.h"

#define UCI_LEN 8

typedef struct diff_args {
    const char *engine;
    const char *fen;
    int depth;
    int chess960, json;
    unsigned timeout_s;
    int threads;
    unsigned hash_mib;
} diff_args_t;

/* One divide in UCI text, ply's or the engine's. */
typedef struct divide {
    int n;
    char move[PLY_UCI_CLIENT_MAX_DIVIDE][UCI_LEN];
    uint64_t nodes[PLY_UCI_CLIENT_MAX_DIVIDE];
    uint64_t total;
} divide_t;

/* One step of the descent: at this depth, the move followed and both counts of it. */
typedef struct level {
    int depth;
    uint64_t ply_total, engine_total;
    char move[UCI_LEN];
    uint64_t ply_nodes, engine_nodes;
} level_t;

enum { SAME = 0, MOVES_DIFFER, INCONSISTENT };

typedef struct outcome {
    int kind;
    int nlevels;
    level_t levels[PLY_MAX_DEPTH + 1];
    char fen[PLY_BOARD_FEN_MAX]; /* the position where the walk stopped */
    int depth;                   /* the depth counted there */
    uint64_t ply_total, engine_total;
    int root_moves;
    int nmissing, nextra;
    char missing[PLY_UCI_CLIENT_MAX_DIVIDE][UCI_LEN];
    char extra[PLY_UCI_CLIENT_MAX_DIVIDE][UCI_LEN];
    /* INCONSISTENT: the engine's count of the last move at its parent's depth */
    uint64_t engine_at_parent;
    /* the arbiter's view of the final position's move list */
    int arbiter_ok, arbiter_agrees;
    int arb_nmissing, arb_nextra;
    char arb_missing[PLY_UCI_CLIENT_MAX_DIVIDE][UCI_LEN];
    char arb_extra[PLY_UCI_CLIENT_MAX_DIVIDE][UCI_LEN];
} outcome_t;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply perft-diff --engine CMD [--fen FEN] -d N [options]\n"
            "\n"
            "Compares ply's perft with an external UCI engine's 'go perft' (Stockfish's output\n"
            "format: 'e2e4: 123' lines and 'Nodes searched: N') and walks down the divide tree\n"
            "to the first position whose legal move lists differ. Prints that position, the\n"
            "moves ply has and the engine lacks, the moves the engine has and ply lacks, and\n"
            "the moves leading there.\n"
            "\n"
            "  -e, --engine CMD    the engine's command line (a program and its arguments;\n"
            "                      quotes group, no shell), e.g. /usr/games/stockfish\n"
            "  -f, --fen FEN       root position: FEN, X-FEN, Shredder-FEN or startpos (default)\n"
            "  -d, --depth N       plies, 1..%d\n"
            "      --chess960      read KQkq as X-FEN, castle by Chess960 rules, and set the\n"
            "                      engine's UCI_Chess960 (Shredder-FEN letters imply it)\n"
            "      --json          print one JSON object instead of text\n"
            "      --timeout S     give up when the engine is silent for S seconds (default 120)\n"
            "  -t, --threads N     ply's threads (default: one per core)\n"
            "      --hash MIB      ply's transposition table, MiB; 0 for none (default 64)\n"
            "  -h, --help          this text\n"
            "\n"
            "ply counts with its fast engine; where the lists differ, its rule engine (the\n"
            "arbiter) lists the moves too, as a second opinion.\n"
            "Exit status: 0 no difference, 1 a difference or an engine failure, 2 usage.\n",
            PLY_MAX_DEPTH);
}

/* ---- the two sides ------------------------------------------------------------------ */

/* ply's divide of @b at @depth. Returns 0 or a PLY_E code. */
static int ply_divide(const ply_board_t *b, int depth, const diff_args_t *a, ply_tt_t *tt,
                      ply_perft_result_t *r, divide_t *out)
{
    ply_perft_opts_t opts = {0};
    opts.threads = a->threads;
    opts.tt = tt;
    opts.divide = 1;
    int rc = ply_perft_run(b, depth, &opts, r);
    if (rc < 0) return rc;
    out->n = r->ndivide;
    out->total = r->nodes;
    for (int i = 0; i < r->ndivide; i++) {
        ply_board_move_to_uci(b, r->divide[i].move, out->move[i]);
        out->nodes[i] = r->divide[i].nodes;
    }
    return 0;
}

/* "position startpos|fen ROOT [moves PATH...]" for the engine. */
static void position_cmd(char *buf, size_t len, const char *root_fen, int startpos,
                         const level_t *levels, int npath)
{
    int o = snprintf(buf, len, startpos ? "position startpos" : "position fen %s", root_fen);
    for (int i = 0; i < npath && o > 0 && (size_t)o < len; i++)
        o += snprintf(buf + o, len - (size_t)o, "%s%s", i ? " " : " moves ", levels[i].move);
}

static int find_move(const divide_t *d, const char *uci)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->move[i], uci)) return i;
    return -1;
}

/*
 * Pairs the engine's moves with ply's: the same text, or another spelling of
 * the same legal move (a castle written king-takes-rook in standard chess).
 * @match[i] = index in @eng of ply's move i, or -1. Unpaired moves on either
 * side go to out->missing / out->extra.
 */
static void pair_moves(const ply_board_t *b, const divide_t *mine, const divide_t *eng, int *match,
                       outcome_t *out)
{
    int used[PLY_UCI_CLIENT_MAX_DIVIDE] = {0};
    for (int i = 0; i < mine->n; i++) {
        match[i] = find_move(eng, mine->move[i]);
        if (match[i] >= 0) used[match[i]] = 1;
    }
    out->nmissing = out->nextra = 0;
    for (int j = 0; j < eng->n; j++) {
        if (used[j]) continue;
        ply_move_t m;
        char canon[UCI_LEN];
        int i = -1;
        if (ply_board_move_from_uci(b, eng->move[j], &m) == 0) {
            ply_board_move_to_uci(b, m, canon);
            i = find_move(mine, canon);
        }
        if (i >= 0 && match[i] < 0) {
            match[i] = j;
            used[j] = 1;
        } else {
            snprintf(out->extra[out->nextra++], UCI_LEN, "%.7s", eng->move[j]);
        }
    }
    for (int i = 0; i < mine->n; i++)
        if (match[i] < 0) snprintf(out->missing[out->nmissing++], UCI_LEN, "%.7s", mine->move[i]);
}

/* The differing move with the smallest subtree (ply's count), or -1. */
static int pick_differing(const divide_t *mine, const divide_t *eng, const int *match)
{
    int best = -1;
    for (int i = 0; i < mine->n; i++) {
        if (mine->nodes[i] == eng->nodes[match[i]]) continue;
        if (best < 0 || mine->nodes[i] < mine->nodes[best] ||
            (mine->nodes[i] == mine->nodes[best] && strcmp(mine->move[i], mine->move[best]) < 0))
            best = i;
    }
    return best;
}

/* ---- the arbiter's second opinion -------------------------------------------------------- */

static void arbiter_check(const diff_args_t *a, const divide_t *mine, outcome_t *out)
{
    ply_arb_pos_t pos;
    if (ply_arb_from_fen(&pos, a->fen, a->chess960 ? PLY_ARB_CHESS960 : 0, NULL, 0) < 0) return;
    for (int i = 0; i < out->nlevels; i++) {
        ply_arb_move_t m;
        if (ply_arb_move_from_uci(&pos, out->levels[i].move, &m) < 0) return;
        ply_arb_make(&pos, m);
    }
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    int n = ply_arb_legal_moves(&pos, moves);
    char uci[PLY_ARB_MAX_MOVES][UCI_LEN];
    for (int i = 0; i < n; i++) ply_arb_move_to_uci(&pos, moves[i], uci[i]);
    out->arbiter_ok = 1;
    out->arb_nmissing = out->arb_nextra = 0;
    for (int i = 0; i < mine->n; i++) {
        int found = 0;
        for (int k = 0; k < n && !found; k++) found = !strcmp(uci[k], mine->move[i]);
        if (!found) snprintf(out->arb_missing[out->arb_nmissing++], UCI_LEN, "%.7s", mine->move[i]);
    }
    for (int k = 0; k < n; k++)
        if (find_move(mine, uci[k]) < 0 && out->arb_nextra < PLY_UCI_CLIENT_MAX_DIVIDE)
            snprintf(out->arb_extra[out->arb_nextra++], UCI_LEN, "%.7s", uci[k]);
    out->arbiter_agrees = out->arb_nmissing == 0 && out->arb_nextra == 0;
}

/* ---- the walk --------------------------------------------------------------------------- */

typedef struct walk {
    const diff_args_t *a;
    ply_uci_client_t *engine;
    ply_tt_t *tt;
    ply_perft_result_t *scratch;
    divide_t mine, eng;
    ply_uci_client_divide_t answer;
    char root_fen[PLY_BOARD_FEN_MAX];
    int startpos;
} walk_t;

/* Returns 0 with *out filled (any kind), or a PLY_E code with the reason in @why. */
static int walk(walk_t *w, const ply_board_t *root, outcome_t *out, char *why, size_t why_len)
{
    ply_board_t b = *root;
    char position[PLY_BOARD_FEN_MAX + 32 + (PLY_MAX_DEPTH + 1) * UCI_LEN];
    for (int depth = w->a->depth;; depth--) {
        int rc = ply_divide(&b, depth, w->a, w->tt, w->scratch, &w->mine);
        if (rc < 0) {
            snprintf(why, why_len, "ply's perft failed: %s", ply_strerror(rc));
            return rc;
        }
        position_cmd(position, sizeof position, w->root_fen, w->startpos, out->levels,
                     out->nlevels);
        rc = ply_uci_client_perft(w->engine, position, depth, &w->answer, why, why_len);
        if (rc < 0) return rc;
        w->eng.n = w->answer.n;
        w->eng.total = w->answer.total;
        for (int i = 0; i < w->answer.n; i++) {
            memcpy(w->eng.move[i], w->answer.e[i].move, UCI_LEN);
            w->eng.nodes[i] = w->answer.e[i].nodes;
        }
        ply_board_to_fen(&b, out->fen, sizeof out->fen);
        out->depth = depth;
        if (depth == w->a->depth) {
            out->ply_total = w->mine.total;
            out->engine_total = w->eng.total;
            out->root_moves = w->mine.n;
        }
        for (int i = 0; i < w->eng.n && depth == 1; i++)
            if (w->eng.nodes[i] != 1) {
                snprintf(why, why_len,
                         "engine '%s' counts %s as %llu nodes at depth 1 (a move is 1)",
                         w->a->engine, w->eng.move[i], (unsigned long long)w->eng.nodes[i]);
                return PLY_EPARSE;
            }
        int match[PLY_UCI_CLIENT_MAX_DIVIDE];
        pair_moves(&b, &w->mine, &w->eng, match, out);
        if (out->nmissing || out->nextra) {
            out->kind = MOVES_DIFFER;
            arbiter_check(w->a, &w->mine, out);
            return 0;
        }
        int pick = pick_differing(&w->mine, &w->eng, match);
        if (pick < 0) {
            /* same moves, same counts: the root agrees, or the engine's count of
             * this position differs between its parent's divide and now */
            out->kind = out->nlevels && out->levels[out->nlevels - 1].engine_nodes != w->eng.total
                            ? INCONSISTENT
                            : SAME;
            if (out->kind == INCONSISTENT)
                out->engine_at_parent = out->levels[out->nlevels - 1].engine_nodes;
            return 0;
        }
        level_t *l = &out->levels[out->nlevels++];
        l->depth = depth;
        l->ply_total = w->mine.total;
        l->engine_total = w->eng.total;
        snprintf(l->move, sizeof l->move, "%s", w->mine.move[pick]);
        l->ply_nodes = w->mine.nodes[pick];
        l->engine_nodes = w->eng.nodes[match[pick]];
        /* depth 1 counts are all 1 with equal lists, so depth >= 2 here */
        ply_move_t m;
        if (ply_board_move_from_uci(&b, l->move, &m) < 0) {
            snprintf(why, why_len, "internal error: cannot replay %s", l->move);
            return PLY_EILLEGAL;
        }
        ply_board_play(&b, m);
    }
}

/* ---- output ------------------------------------------------------------------------------ */

static json_t *move_array(char (*moves)[UCI_LEN], int n)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(arr, ply_json_text(moves[i]));
    return arr;
}

static const char *kind_name(int kind)
{
    return kind == SAME ? "same" : kind == MOVES_DIFFER ? "different" : "inconsistent";
}

static void print_json(const diff_args_t *a, const char *engine_name, const char *root_fen,
                       const outcome_t *o, uint64_t ms)
{
    json_t *j = json_object();
    json_object_set_new(j, "result", ply_json_text(kind_name(o->kind)));
    json_object_set_new(j, "fen", ply_json_text(root_fen));
    json_object_set_new(j, "depth", json_integer(a->depth));
    json_object_set_new(j, "chess960", json_boolean(a->chess960));
    json_object_set_new(j, "engine", ply_json_text(engine_name));
    json_object_set_new(j, "engine_command", ply_json_text(a->engine));
    json_object_set_new(j, "ply_nodes", ply_json_count(o->ply_total));
    json_object_set_new(j, "engine_nodes", ply_json_count(o->engine_total));
    json_object_set_new(j, "root_moves", json_integer(o->root_moves));
    json_t *path = json_array(), *levels = json_array();
    for (int i = 0; i < o->nlevels; i++) {
        const level_t *l = &o->levels[i];
        json_array_append_new(path, ply_json_text(l->move));
        json_t *x = json_object();
        json_object_set_new(x, "depth", json_integer(l->depth));
        json_object_set_new(x, "ply_nodes", ply_json_count(l->ply_total));
        json_object_set_new(x, "engine_nodes", ply_json_count(l->engine_total));
        json_object_set_new(x, "move", ply_json_text(l->move));
        json_object_set_new(x, "ply_move_nodes", ply_json_count(l->ply_nodes));
        json_object_set_new(x, "engine_move_nodes", ply_json_count(l->engine_nodes));
        json_array_append_new(levels, x);
    }
    json_object_set_new(j, "path", path);
    json_object_set_new(j, "levels", levels);
    if (o->kind != SAME) {
        json_object_set_new(j, "position", ply_json_text(o->fen));
        json_object_set_new(j, "position_depth", json_integer(o->depth));
    }
    if (o->kind == MOVES_DIFFER) {
        json_object_set_new(j, "missing", move_array((char(*)[UCI_LEN])o->missing, o->nmissing));
        json_object_set_new(j, "extra", move_array((char(*)[UCI_LEN])o->extra, o->nextra));
        json_object_set_new(j, "arbiter_agrees",
                            o->arbiter_ok ? json_boolean(o->arbiter_agrees) : json_null());
        if (o->arbiter_ok && !o->arbiter_agrees) {
            json_object_set_new(j, "arbiter_missing",
                                move_array((char(*)[UCI_LEN])o->arb_missing, o->arb_nmissing));
            json_object_set_new(j, "arbiter_extra",
                                move_array((char(*)[UCI_LEN])o->arb_extra, o->arb_nextra));
        }
    }
    if (o->kind == INCONSISTENT)
        json_object_set_new(j, "engine_nodes_at_parent", ply_json_count(o->engine_at_parent));
    json_object_set_new(j, "time_ms", ply_json_count(ms));
    ply_json_dumpf(j, stdout, JSON_INDENT(2));
    printf("\n");
    json_decref(j);
}

static void print_moves(const char *label, char (*moves)[UCI_LEN], int n)
{
    printf("  %-32s", label);
    if (!n) printf(" none");
    for (int i = 0; i < n; i++) printf(" %s", moves[i]);
    printf("\n");
}

static void print_text(const diff_args_t *a, const char *engine_name, const char *root_fen,
                       const outcome_t *o)
{
    printf("perft(%d) of %s\n", a->depth, root_fen);
    printf("  ply: %llu   %s: %llu\n", (unsigned long long)o->ply_total, engine_name,
           (unsigned long long)o->engine_total);
    if (o->kind == SAME) {
        printf("no difference: the same %d root moves with the same counts\n", o->root_moves);
        return;
    }
    for (int i = 0; i < o->nlevels; i++) {
        const level_t *l = &o->levels[i];
        printf("  depth %-2d %-6s ply %llu, engine %llu\n", l->depth, l->move,
               (unsigned long long)l->ply_nodes, (unsigned long long)l->engine_nodes);
    }
    printf("path:");
    if (!o->nlevels) printf(" (the root)");
    for (int i = 0; i < o->nlevels; i++) printf(" %s", o->levels[i].move);
    printf("\nposition: %s\n", o->fen);
    if (o->kind == INCONSISTENT) {
        printf("the engine is inconsistent here: its divide one ply up gave %s %llu nodes at "
               "depth %d,\nbut asked for this position directly it lists the same moves as ply "
               "with the same counts (total %llu)\n",
               o->levels[o->nlevels - 1].move, (unsigned long long)o->engine_at_parent, o->depth,
               (unsigned long long)o->levels[o->nlevels - 1].ply_nodes);
        return;
    }
    print_moves("missing (ply has, engine lacks):", (char(*)[UCI_LEN])o->missing, o->nmissing);
    print_moves("extra (engine has, ply lacks):", (char(*)[UCI_LEN])o->extra, o->nextra);
    if (!o->arbiter_ok)
        printf("ply's rule engine (the arbiter) could not replay the path\n");
    else if (o->arbiter_agrees)
        printf("ply's rule engine (the arbiter) lists the same moves as ply here\n");
    else {
        printf("ply's rule engine (the arbiter) DISAGREES with ply here:\n");
        print_moves("ply has, the arbiter lacks:", (char(*)[UCI_LEN])o->arb_missing,
                    o->arb_nmissing);
        print_moves("the arbiter has, ply lacks:", (char(*)[UCI_LEN])o->arb_extra, o->arb_nextra);
    }
}

/* ---- the command ---------------------------------------------------------------------------- */

/* The engine leads its own session, so a ^C on the terminal does not reach it: pass it on. */
static volatile sig_atomic_t engine_group;

static void on_signal(int sig)
{
    if (engine_group > 0) kill(-(pid_t)engine_group, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int fail(const diff_args_t *a, const char *why)
{
    fprintf(stderr, "ply perft-diff: %s\n", why);
    if (a->json) {
        json_t *j = json_object();
        json_object_set_new(j, "result", ply_json_text("error"));
        json_object_set_new(j, "error", ply_json_text(why));
        ply_json_dumpf(j, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(j);
    }
    return 1;
}

static int parse_args(int argc, char **argv, diff_args_t *a)
{
    enum { OPT_CHESS960 = 256, OPT_JSON, OPT_TIMEOUT, OPT_HASH };
    static const struct option longopts[] = {{"engine", required_argument, NULL, 'e'},
                                             {"fen", required_argument, NULL, 'f'},
                                             {"depth", required_argument, NULL, 'd'},
                                             {"chess960", no_argument, NULL, OPT_CHESS960},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"timeout", required_argument, NULL, OPT_TIMEOUT},
                                             {"threads", required_argument, NULL, 't'},
                                             {"hash", required_argument, NULL, OPT_HASH},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    long v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":e:f:d:t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'e':
            a->engine = optarg;
            break;
        case 'f':
            a->fen = optarg;
            break;
        case 'd':
            if (ply_cli_parse_long(optarg, 1, PLY_MAX_DEPTH, &v))
                return ply_usage_error("perft-diff", "-d '%s' must be a depth from 1 to %d", optarg,
                                       PLY_MAX_DEPTH);
            a->depth = (int)v;
            break;
        case OPT_CHESS960:
            a->chess960 = 1;
            break;
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_TIMEOUT:
            if (ply_cli_parse_long(optarg, 1, 86400 * 7, &v))
                return ply_usage_error("perft-diff", "--timeout '%s' must be seconds from 1",
                                       optarg);
            a->timeout_s = (unsigned)v;
            break;
        case 't':
            if (ply_cli_parse_long(optarg, 1, 4096, &v))
                return ply_usage_error("perft-diff", "--threads '%s' must be 1..4096", optarg);
            a->threads = (int)v;
            break;
        case OPT_HASH:
            if (ply_cli_parse_long(optarg, 0, 1 << 20, &v))
                return ply_usage_error("perft-diff", "--hash '%s' must be MiB from 0", optarg);
            a->hash_mib = (unsigned)v;
            break;
        case 'h':
            usage(stdout);
            return -1;
        case ':':
            return ply_usage_error("perft-diff", "option '%s' needs a value", argv[optind - 1]);
        default:
            return ply_usage_error("perft-diff", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return ply_usage_error("perft-diff", "unexpected argument '%s'", argv[optind]);
    if (!a->engine || !a->engine[0])
        return ply_usage_error("perft-diff", "%s", "--engine CMD is required");
    if (!a->depth) return ply_usage_error("perft-diff", "%s", "-d N (the depth) is required");
    return 0;
}

int ply_cmd_perft_diff(int argc, char **argv)
{
    diff_args_t a = {0};
    a.fen = "startpos";
    a.timeout_s = 120;
    a.hash_mib = 64;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;

    ply_board_t root;
    char why[1024], fen[PLY_ARB_FEN_MAX];
    int startpos = !strcmp(a.fen, "startpos");
    /* The rule engine's reader decides (as for every command); the fast board
     * then reads its canonical form, which it must accept. */
    if (ply_cli_read_fen("perft-diff", a.fen, a.chess960, fen, sizeof fen)) return 2;
    a.fen = fen;
    if (ply_board_from_fen(&root, a.fen, a.chess960 ? PLY_BOARD_CHESS960 : 0, why, sizeof why) <
        0) {
        fprintf(stderr, "ply perft-diff: the fast board refuses the position %s: %s\n", a.fen, why);
        return 1;
    }
    a.chess960 = a.chess960 || root.chess960;
    /* an engine that dies must not take us with it (SIGPIPE on a write) */
    signal(SIGPIPE, SIG_IGN);

    walk_t w = {0};
    w.a = &a;
    w.startpos = startpos;
    ply_board_to_fen(&root, w.root_fen, sizeof w.root_fen);
    w.scratch = malloc(sizeof *w.scratch);
    outcome_t *o = calloc(1, sizeof *o);
    if (!w.scratch || !o || (a.hash_mib && !(w.tt = ply_tt_new((size_t)a.hash_mib << 20, 1)))) {
        free(w.scratch);
        free(o);
        ply_tt_destroy(&w.tt);
        return fail(&a, "out of memory");
    }
    uint64_t t0 = ply_time_ms();
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    w.engine = ply_uci_client_start(a.engine, a.timeout_s * 1000u, why, sizeof why);
    engine_group = ply_uci_client_pid(w.engine);
    rc = w.engine ? 0 : PLY_EIO;
    if (rc == 0 && a.chess960) rc = ply_uci_client_set_chess960(w.engine, 1, why, sizeof why);
    if (rc == 0) rc = walk(&w, &root, o, why, sizeof why);
    char name[128];
    snprintf(name, sizeof name, "%s", w.engine ? ply_uci_client_name(w.engine) : a.engine);
    engine_group = 0;
    ply_uci_client_destroy(&w.engine);
    ply_tt_destroy(&w.tt);
    free(w.scratch);
    if (rc < 0) {
        free(o);
        return fail(&a, why);
    }
    if (a.json)
        print_json(&a, name, w.root_fen, o, ply_time_ms() - t0);
    else
        print_text(&a, name, w.root_fen, o);
    int differ = o->kind != SAME;
    free(o);
    return differ ? 1 : 0;
}
