/*
 * `ply uci`: the analysis engine behind the Universal Chess Interface on
 * stdin and stdout, for GUIs and match tools (the loop is worker/uci/uci.c,
 * shared with `ply-worker --uci`).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "uci.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: ply uci\n"
                 "\n"
                 "Speaks the Universal Chess Interface on standard input and output: give this\n"
                 "command to a chess GUI or a match tool as the engine to run. Commands: uci,\n"
                 "isready, setoption (Hash, Threads, MultiPV, UCI_Chess960, Move Overhead, Clear\n"
                 "Hash, Ponder), ucinewgame, position, go (depth, nodes, movetime, wtime, btime,\n"
                 "winc, binc, movestogo, infinite, searchmoves, ponder, perft), ponderhit, stop,\n"
                 "quit. A malformed command is answered by 'info string ...' and ignored; a go\n"
                 "whose every limit is malformed searches depth 1 (a bestmove always comes).\n"
                 "The end of input is quit, once a search with a limit has written its bestmove.\n"
                 "\n"
                 "  -h, --help   this text\n"
                 "\n"
                 "Exit status: 0 after quit or the end of input, 1 when the engine cannot start\n"
                 "(its 16 MiB table), 2 usage.\n");
}

int ply_cmd_uci(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1) return ply_usage_error("uci", "unexpected argument '%s'", argv[1]);
    int rc = ply_uci_loop(stdin, stdout);
    if (rc < 0) {
        fprintf(stderr, "ply uci: %s\n", ply_strerror(rc));
        return 1;
    }
    return 0;
}
