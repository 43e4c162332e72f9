/* The ply command's subcommands: each takes its own argv (argv[0] is the
 * subcommand name) and returns the process exit status (0, 1 or 2). */
#ifndef PLY_CLI_COMMANDS_H
#define PLY_CLI_COMMANDS_H

/** ply_cmd_perft - `ply perft`: perft of one position or an EPD suite. */
int ply_cmd_perft(int argc, char **argv);

#endif
