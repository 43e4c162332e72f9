/*
 * Which search engine the workers of a command's cluster run (`ply analyse`, `ply uci
 * --workers`): --engine builtin|uci, --uci-engine CMD and --engine-option NAME=VALUE, parsed
 * here once so that the two commands read alike, and turned into the session's engine
 * (client/session.h: engine_cmd and its options) for local workers.
 */
#ifndef PLY_CLI_SEARCH_ENGINE_OPTS_H
#define PLY_CLI_SEARCH_ENGINE_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "session.h"
#include "session_opts.h"

/** The getopt values of the options (above session_opts.h's and curve_opts.h's). */
#define PLY_CLI_SEARCH_ENGINE_OPT 0x4400

/** The long options, for a command's table. */
#define PLY_CLI_SEARCH_ENGINE_LONGOPTS                                                             \
    {"engine", required_argument, NULL, PLY_CLI_SEARCH_ENGINE_OPT},                               \
        {"uci-engine", required_argument, NULL, PLY_CLI_SEARCH_ENGINE_OPT + 1},                   \
        {"engine-option", required_argument, NULL, PLY_CLI_SEARCH_ENGINE_OPT + 2}

/** The UCI engine local workers drive with --engine uci when --uci-engine is not given. */
#define PLY_CLI_DEFAULT_UCI_ENGINE "/usr/games/stockfish"

/** What was given; zero-initialise. */
typedef struct ply_cli_search_engine {
    const char *engine;     /* --engine: "builtin", "uci", or NULL (any) */
    const char *uci_engine; /* --uci-engine CMD (no shell) */
    const char *options[PLY_SESSION_ENGINE_OPTIONS_MAX]; /* --engine-option, then Threads/Hash */
    size_t noptions;
    char threads_opt[32], hash_opt[32]; /* "Threads=T", "Hash=MIB" for the UCI engine */
} ply_cli_search_engine_t;

/**
 * ply_cli_search_engine_option - option @c (a PLY_CLI_SEARCH_ENGINE_LONGOPTS value) with its
 * argument @arg into *@e; @cmd names the command in messages. 0; -1 when @c is not one of
 * these; 2 after printing a usage error (an engine other than builtin or uci, an option not
 * NAME=VALUE, too many options).
 */
int ply_cli_search_engine_option(const char *cmd, ply_cli_search_engine_t *e, int c,
                                 const char *arg);

/**
 * ply_cli_search_engine_choose - once every option is read: what *@e asks, checked against
 * the session @s (local workers or --coordinator), and for local workers on a UCI engine
 * (--engine uci, or --uci-engine alone) set into @s->cfg (engine_cmd, engine_options, with
 * --threads and --hash as the engine's Threads and Hash unless given). 0, or 2 after printing
 * a usage error: --uci-engine or --engine-option with --coordinator (its workers chose their
 * engines) or without --engine uci; no UCI engine (PLY_CLI_DEFAULT_UCI_ENGINE not installed);
 * a --uci-engine path that cannot run.
 */
int ply_cli_search_engine_choose(const char *cmd, ply_cli_search_engine_t *e,
                                 ply_cli_session_opts_t *s);

#endif
