/*
 * The command-line options of the commands that run on a session (session.h): `ply perft`
 * and `ply analyse` both take --threads, --hash, --workers, --coordinator, --timeout and
 * --state, with the same ranges, defaults and messages, and refuse the same combinations.
 * Parsed here once. A command puts PLY_CLI_SESSION_LONGOPTS in its option table (with 't'
 * in its short options) and hands every option it does not know to ply_cli_session_option.
 */
#ifndef PLY_CLI_SESSION_OPTS_H
#define PLY_CLI_SESSION_OPTS_H

#include "session.h"

/** The getopt values of the options (above the commands' own, below curve_opts.h's). */
#define PLY_CLI_SESSION_OPT 0x4200

/* The entries of a struct option table ('t' is --threads). */
// clang-format off
#define PLY_CLI_SESSION_LONGOPTS \
    {"threads", required_argument, NULL, 't'}, \
    {"hash", required_argument, NULL, PLY_CLI_SESSION_OPT}, \
    {"workers", required_argument, NULL, PLY_CLI_SESSION_OPT + 1}, \
    {"coordinator", required_argument, NULL, PLY_CLI_SESSION_OPT + 2}, \
    {"timeout", required_argument, NULL, PLY_CLI_SESSION_OPT + 3}, \
    {"state", required_argument, NULL, PLY_CLI_SESSION_OPT + 4}
// clang-format on

/** What was given: the session's configuration and whether --hash was (its default is 256). */
typedef struct ply_cli_session_opts {
    ply_session_config_t cfg;
    int hash_given;
} ply_cli_session_opts_t;

/** ply_cli_session_opts_init - the defaults: embedded coordinator, --hash 256. */
void ply_cli_session_opts_init(ply_cli_session_opts_t *o);

/**
 * ply_cli_session_option - record option @c (a getopt_long value) with its @arg in *@o for
 * command @cmd ("perft"). Returns 0 when taken, -1 when @c is not a session option, or 2
 * after printing a usage error for a bad value (--threads 1..4096, --hash 0..1048576 MiB,
 * --workers 1..256, --timeout 1..86400 s).
 */
int ply_cli_session_option(const char *cmd, ply_cli_session_opts_t *o, int c, const char *arg);

/**
 * ply_cli_session_check - after parsing: refuse the combinations that cannot act (--state
 * or --workers with --coordinator, which has its own; --threads or --hash with
 * --coordinator, whose workers have their own; CURVE options without --coordinator).
 * Returns 0, or 2 after printing the usage error.
 */
int ply_cli_session_check(const char *cmd, const ply_cli_session_opts_t *o);

#endif
