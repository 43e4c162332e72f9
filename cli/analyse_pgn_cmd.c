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
#include "session_opts.h"
#include "util/error.h"
#include "util/time.h"

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
            "the budget (a comment and --json say so).\n"
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
            PLY_SEARCH_JOB_MAX_DEPTH, PLY_APGN_CACHE_DEFAULT);
}

static int parse_args(ply_apgn_args_t *a, int argc, char **argv)
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

int ply_cmd_analyse_pgn(int argc, char **argv)
{
    ply_apgn_args_t a = {0};
    a.cache = PLY_APGN_CACHE_DEFAULT;
    int rc = parse_args(&a, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    rc = ply_cli_curve_setup("ply analyse-pgn");
    if (rc) return rc;
    return ply_apgn_run(&a);
}
