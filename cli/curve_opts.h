/*
 * The --curve, --cert and --server-key options of every ply command that
 * talks to a coordinator (--coordinator E): parsed here once, loaded once,
 * and installed as the client library's default keys for the process
 * (proto/security.h); with them --owner-token and the owner token file
 * (owner.h), whose the runs a command submits are. A command needs three
 * lines to support them:
 * PLY_CLI_CURVE_LONGOPTS in its option table, ply_cli_curve_option() in its
 * switch's default case, ply_cli_curve_setup() after parsing.
 */
#ifndef PLY_CLI_CURVE_OPTS_H
#define PLY_CLI_CURVE_OPTS_H

/* Option values far above any command's own. */
#define PLY_CLI_CURVE_OPT 0x4300

/* The four entries of a struct option table. */
// clang-format off
#define PLY_CLI_CURVE_LONGOPTS \
    {"curve", no_argument, NULL, PLY_CLI_CURVE_OPT}, \
    {"cert", required_argument, NULL, PLY_CLI_CURVE_OPT + 1}, \
    {"server-key", required_argument, NULL, PLY_CLI_CURVE_OPT + 2}, \
    {"owner-token", required_argument, NULL, PLY_CLI_CURVE_OPT + 3}
// clang-format on

/* Lines for a command's --help. */
#define PLY_CLI_CURVE_HELP                                                                         \
    "      --curve             encrypt and authenticate the connection to --coordinator\n"         \
    "                          (CURVE), with the two files below\n"                                \
    "      --cert FILE         our secret key file (NAME.key_secret from ply keygen); its\n"       \
    "                          NAME.key must be in the coordinator's allow directory\n"            \
    "      --server-key FILE   the coordinator's public key file (or its 40-character key)\n"      \
    "      --owner-token T     whose the runs are: only this secret (without CURVE; default\n"     \
    "                          the one in ~/.local/state/ply/owner-token) reads or cancels them\n"

/**
 * ply_cli_curve_option - record option @opt (from getopt_long) with its
 * argument @arg. Returns 1 when @opt is one of the four, else 0.
 */
int ply_cli_curve_option(int opt, const char *arg);

/**
 * ply_cli_curve_given - the first of --curve, --cert, --server-key that was
 * given (its name with the dashes), or NULL: for commands that refuse them
 * when there is no remote coordinator to talk to.
 */
const char *ply_cli_curve_given(void);

/**
 * ply_cli_curve_setup - after parsing: check the combination, load the keys
 * and make them the default of every client this process creates. @prog
 * prefixes messages ("ply perft"). Returns 0 (also when --curve was not
 * given), 2 after printing a usage error (--cert without --curve, --curve
 * without both files), or 1 after printing why the keys cannot be loaded.
 */
int ply_cli_curve_setup(const char *prog);

#endif
