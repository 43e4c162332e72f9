/*
 * ply: the user's command. One table of the subcommands (name, function, the summary of
 * `ply --help`) dispatches to them; each has --help.
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

/* The commands, in the order --help lists them: name, function, summary (a second line of
 * the summary after '\n', indented under the first). */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"perft", ply_cmd_perft,
     "count the legal move tree of a position (perft, divide, statistics),\n"
     "or check an EPD suite; on the embedded default or a cluster"},
    {"analyse", ply_cmd_analyse,
     "score every root move of a position (one job each), best line in SAN;\n"
     "or an EPD suite (bm/am)"},
    {"arbiter", ply_cmd_arbiter,
     "replay PGN games by the FIDE Laws (illegal moves, results, draws), or check a FEN"},
    {"bench", ply_cmd_bench,
     "the fixed perft workload of this machine: nodes per second and the signature"},
    {"uci", ply_cmd_uci, "the analysis engine for chess GUIs and match tools (UCI)"},
    {"perft-diff", ply_cmd_perft_diff,
     "compare perft with an external UCI engine down to the first differing position"},
    {"solve", ply_cmd_solve, "run a UCI engine over an EPD test suite (bm/am moves, STS points)"},
    {"match", ply_cmd_match,
     "play games between two UCI engines (the arbiter referees): score, Elo"},
    {"analyse-pgn", ply_cmd_analyse_pgn,
     "annotate every move of PGN games ([%eval], ?! ? ??, best lines, accuracy)"},
    {"san", ply_cmd_san,
     "convert moves between UCI and SAN (the rule engine reads and writes them)"},
    {"keygen", ply_cmd_keygen,
     "write a CURVE key pair for --curve (coordinator, workers, clients)"},
    {"status", ply_cmd_status, "a coordinator's runs and workers, or one run's progress"},
    {"result", ply_cmd_result, "the answer of a run (e.g. one started with ply perft --detach)"},
    {"cancel", ply_cmd_cancel, "stop a run of yours"},
};

/* Summaries start in this column; a longer name is followed by two spaces. */
#define SUMMARY_COLUMN 12

static void usage(FILE *out)
{
    fprintf(out, "usage: ply <command> [options]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        const struct command *c = &commands[i];
        int name_len = 2 + (int)strlen(c->name);
        int pad = name_len + 2 <= SUMMARY_COLUMN ? SUMMARY_COLUMN - name_len : 2;
        fprintf(out, "  %s%*s", c->name, pad, "");
        for (const char *p = c->summary; *p; p++)
            if (*p == '\n')
                fprintf(out, "\n%*s", SUMMARY_COLUMN, "");
            else
                fputc(*p, out);
        fputc('\n', out);
    }
    fprintf(out,
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
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(cmd, commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ply: unknown command '%s' (see ply --help)\n", cmd);
    return 2;
}
