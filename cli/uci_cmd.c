/*
 * `ply uci`: the analysis engine behind the Universal Chess Interface on
 * stdin and stdout, for GUIs and match tools (the loop is worker/uci/uci.c,
 * shared with `ply-worker --uci`). By default the search is ply's engine in
 * this process; with --workers N or --coordinator E it is a cluster
 * (client/uci_cluster.h): every go a deepening search run on the session's
 * coordinator, as `ply analyse --workers N` runs one.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "curve_opts.h"
#include "search_engine_opts.h"
#include "session_opts.h"
#include "uci.h"
#include "uci_backend.h"
#include "uci_cluster.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply uci [--workers N [-t T] [--hash MIB] | --coordinator E [options]]\n"
            "\n"
            "Speaks the Universal Chess Interface on standard input and output: give this\n"
            "command to a chess GUI or a match tool as the engine to run. Commands: uci,\n"
            "isready, setoption (Hash, Threads, MultiPV, UCI_Chess960, Move Overhead, Clear\n"
            "Hash, Ponder), ucinewgame, position, go (depth, nodes, movetime, wtime, btime,\n"
            "winc, binc, movestogo, infinite, searchmoves, ponder, mate, perft), ponderhit,\n"
            "stop, quit. A malformed command is answered by 'info string ...' and ignored; a\n"
            "go whose every limit is malformed searches depth 1 (a bestmove always comes).\n"
            "The end of input is quit, once a search with a limit has written its bestmove.\n"
            "\n"
            "With --workers or --coordinator the engine is a cluster: each go is a deepening\n"
            "analysis over its workers (as ply analyse runs one), an info line per completed\n"
            "depth, and stop (or the clock's budget: remaining / movestogo (else 30) + 3/4 of\n"
            "the increment, less Move Overhead) cancels it for the deepest completed depth's\n"
            "best move. Hash, Threads and Clear Hash are then the workers' (--threads,\n"
            "--hash); go perft counts in this process with one thread.\n"
            "\n"
            "  -h, --help              this text\n"
            "      --workers N         a cluster of N local ply-worker processes on an\n"
            "                          embedded coordinator\n"
            "  -t, --threads T         threads of each local worker (default: one per core)\n"
            "      --hash MIB          table of each local worker, MiB (default 256)\n"
            "      --engine KIND       the workers' engine: builtin (ply's) or uci (an\n"
            "                          external one); with --coordinator, the kind asked for\n"
            "                          (default: any)\n"
            "      --uci-engine CMD    the UCI engine local workers drive with --engine uci\n"
            "                          (default " PLY_CLI_DEFAULT_UCI_ENGINE " when it exists)\n"
            "      --engine-option N=V a UCI option for it (repeatable); --threads and --hash\n"
            "                          are its Threads and Hash\n"
            "      --coordinator E     a cluster: the running coordinator at endpoint E\n"
            "                          (e.g. tcp://host:5555) and its workers\n"
            "      --timeout S         give up a search when the coordinator is silent for S\n"
            "                          seconds (default 30; the bestmove still "
            "comes)\n" PLY_CLI_CURVE_HELP "\n"
            "Exit status: 0 after quit or the end of input, 1 when the engine cannot start\n"
            "(its 16 MiB table; the cluster's coordinator or workers), 2 usage.\n");
}

/* The cluster's options (a subset of the session's: no --state, whose runs could not be
 * resumed by a GUI); 0, or the usage error's exit status. */
static int parse(int argc, char **argv, ply_cli_session_opts_t *o, ply_cli_search_engine_t *e)
{
    static const struct option longopts[] = {PLY_CLI_SESSION_LONGOPTS,
                                             PLY_CLI_CURVE_LONGOPTS,
                                             PLY_CLI_SEARCH_ENGINE_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    ply_cli_session_opts_init(o);
    int c;
    optind = 1;
    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":t:h", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return -1;
        }
        if (c == ':') return ply_usage_error("uci", "option '%s' needs a value", argv[optind - 1]);
        if (c == PLY_CLI_SESSION_OPT + 4)
            return ply_usage_error("uci", "%s", "--state does not apply to ply uci");
        int r = c == '?' ? -1 : ply_cli_session_option("uci", o, c, optarg);
        if (r < 0 && c != '?') r = ply_cli_search_engine_option("uci", e, c, optarg);
        if (r < 0 && c != '?' && ply_cli_curve_option(c, optarg)) r = 0;
        if (r < 0) return ply_usage_error("uci", "unknown option '%s'", argv[optind - 1]);
        if (r) return r;
    }
    if (optind < argc) return ply_usage_error("uci", "unexpected argument '%s'", argv[optind]);
    const ply_session_config_t *s = &o->cfg;
    if (!s->workers && !s->coordinator &&
        (s->threads || o->hash_given || s->timeout_ms || e->engine || e->uci_engine ||
         e->noptions))
        return ply_usage_error("uci",
                               "%s is for a cluster (--workers N or --coordinator E); ply's "
                               "engine here takes setoption name Threads and Hash",
                               s->threads        ? "--threads"
                               : o->hash_given   ? "--hash"
                               : s->timeout_ms   ? "--timeout"
                               : e->engine       ? "--engine"
                               : e->uci_engine   ? "--uci-engine"
                                                 : "--engine-option");
    int rc = ply_cli_session_check("uci", o);
    if (!rc) rc = ply_cli_search_engine_choose("uci", e, o);
    return rc ? rc : ply_cli_curve_setup("ply uci");
}

int ply_cmd_uci(int argc, char **argv)
{
    static ply_cli_session_opts_t o;
    static ply_cli_search_engine_t e;
    int rc = parse(argc, argv, &o, &e);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.cfg.workers && !o.cfg.coordinator) {
        rc = ply_uci_loop(stdin, stdout);
        if (rc < 0) {
            fprintf(stderr, "ply uci: %s\n", ply_strerror(rc));
            return 1;
        }
        return 0;
    }
    char why[512];
    ply_uci_backend_t *b = ply_uci_cluster_new(&o.cfg, e.engine, why, sizeof why);
    if (!b) {
        fprintf(stderr, "ply uci: %s\n", why);
        return 1;
    }
    rc = ply_uci_serve(stdin, stdout, b);
    ply_uci_backend_destroy(&b);
    if (rc < 0) {
        fprintf(stderr, "ply uci: %s\n", ply_strerror(rc));
        return 1;
    }
    return 0;
}
