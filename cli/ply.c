/*
 * ply: the user's command. Dispatches to subcommands; each has --help.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "commands.h"
#include "perft.h"
#include "util/log.h"
#include "util/process.h"
#include "util/version.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: ply <command> [options]\n"
        "\n"
        "Commands:\n"
        "  perft     count the legal move tree of a position (perft, divide, statistics),\n"
        "            or check an EPD suite; on the embedded default or a cluster\n"
        "  analyse   score every root move of a position (one job each), best line in SAN;\n"
        "            or an EPD suite (bm/am)\n"
        "  arbiter   replay PGN games by the FIDE Laws (illegal moves, results, draws), or check a "
        "FEN\n"
        "  bench     the fixed perft workload of this machine: nodes per second and the signature\n"
        "  uci       the analysis engine for chess GUIs and match tools (UCI)\n"
        "  perft-diff  compare perft with an external UCI engine down to the first differing "
        "position\n"
        "  solve     run a UCI engine over an EPD test suite (bm/am moves, STS points)\n"
        "  match     play games between two UCI engines (the arbiter referees): score, Elo\n"
        "  analyse-pgn  annotate every move of PGN games ([%%eval], ?! ? ??, best lines, "
        "accuracy)\n"
        "  san       convert moves between UCI and SAN (the rule engine reads and writes them)\n"
        "  keygen    write a CURVE key pair for --curve (coordinator, workers, clients)\n"
        "  status    a coordinator's runs and workers, or one run's progress\n"
        "  result    the answer of a run (e.g. one started with ply perft --detach)\n"
        "  cancel    stop a run of yours\n"
        "\n"
        "Run 'ply <command> --help' for a command's options; 'ply --version' prints the\n"
        "version, the git commit, the slider kernel and OpenMP. The manual: man ply.\n"
        "Related programs: ply-coordinator (the cluster's coordinator), ply-worker (a compute "
        "node).\n");
}

int ply_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s) return -1;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int ply_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ply %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see ply %s --help)\n", cmd);
    va_end(ap);
    return 2;
}

int main(int argc, char **argv)
{
    static char name[64] = "ply"; /* "ply perft": failed writes are named by command */
    if (argc >= 2 && argv[1][0] != '-') snprintf(name, sizeof name, "ply %.32s", argv[1]);
    if (ply_process_init(name) < 0) return 1;
    ply_log_set_tag("ply");
    zsys_handler_set(NULL); /* Ctrl-C ends the command; czmq must not swallow it */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        char line[256];
#ifdef _OPENMP
        const long openmp = _OPENMP; /* ply links the worker's OpenMP perft in-process */
#else
        const long openmp = 0;
#endif
        puts(ply_version_line(line, sizeof line, "ply", ply_perft_kernel_name(), openmp));
        return 0;
    }
    if (!strcmp(cmd, "perft")) return ply_cmd_perft(argc - 1, argv + 1);
    if (!strcmp(cmd, "analyse")) return ply_cmd_analyse(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return ply_cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "arbiter")) return ply_cmd_arbiter(argc - 1, argv + 1);
    if (!strcmp(cmd, "analyse-pgn")) return ply_cmd_analyse_pgn(argc - 1, argv + 1);
    if (!strcmp(cmd, "uci")) return ply_cmd_uci(argc - 1, argv + 1);
    if (!strcmp(cmd, "perft-diff")) return ply_cmd_perft_diff(argc - 1, argv + 1);
    if (!strcmp(cmd, "solve")) return ply_cmd_solve(argc - 1, argv + 1);
    if (!strcmp(cmd, "match")) return ply_cmd_match(argc - 1, argv + 1);
    if (!strcmp(cmd, "keygen")) return ply_cmd_keygen(argc - 1, argv + 1);
    if (!strcmp(cmd, "status")) return ply_cmd_status(argc - 1, argv + 1);
    if (!strcmp(cmd, "result")) return ply_cmd_result(argc - 1, argv + 1);
    if (!strcmp(cmd, "cancel")) return ply_cmd_cancel(argc - 1, argv + 1);
    if (!strcmp(cmd, "san")) return ply_cmd_san(argc - 1, argv + 1);
    fprintf(stderr, "ply: unknown command '%s' (see ply --help)\n", cmd);
    return 2;
}
