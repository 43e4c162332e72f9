/*
 * ply: the user's command. Dispatches to subcommands; each has --help.
 */
#include <stdio.h>
#include <string.h>

#include <czmq.h>

#include "commands.h"
#include "util/log.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply <command> [options]\n"
            "\n"
            "Commands:\n"
            "  perft     count the legal move tree of a position (perft, divide, statistics),\n"
            "            or check an EPD suite; on the embedded default or a cluster\n"
            "\n"
            "Run 'ply <command> --help' for a command's options.\n"
            "Related programs: ply-coordinator (the cluster's coordinator), ply-worker (a compute node).\n");
}

int main(int argc, char **argv)
{
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
        printf("ply %s\n", PLY_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "perft")) return ply_cmd_perft(argc - 1, argv + 1);
    fprintf(stderr, "ply: unknown command '%s' (see ply --help)\n", cmd);
    return 2;
}
