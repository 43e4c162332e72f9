/*
 * The command line of the commands that drive external UCI engines (ply
 * match, ply solve): --engine CMD with its --option NAME=VALUE settings, the
 * limit of a search (--movetime, --nodes, --depth), --timeout, --json,
 * --quiet and --help, parsed here once so that the two read alike and say
 * the same things; a command adds its own options through a callback. And
 * the start of an engine as such a command line describes it.
 */
#ifndef PLY_CLI_ENGINE_OPTS_H
#define PLY_CLI_ENGINE_OPTS_H

#include <getopt.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "uci_client.h"

/** Most --option settings of one engine. */
#define PLY_CLI_ENGINE_OPTIONS_MAX 32
/** Most engines on one command line. */
#define PLY_CLI_ENGINES_MAX 2

/** One engine: --engine CMD and what follows it. */
typedef struct ply_cli_engine_spec {
    const char *cmd;  /* its command line (no shell) */
    const char *name; /* --name N where the command has it, or NULL */
    const char *options[PLY_CLI_ENGINE_OPTIONS_MAX]; /* "NAME=VALUE", in the order given */
    int noptions;
} ply_cli_engine_spec_t;

/**
 * What was given. Set cmd, max_engines and timeout_s (the default) before
 * parsing; absent limits stay 0.
 */
typedef struct ply_cli_engine_opts {
    const char *cmd; /* "match": names the command in messages */
    int max_engines; /* 1: --option anywhere applies to the engine; 2: to the one given before */
    ply_cli_engine_spec_t eng[PLY_CLI_ENGINES_MAX];
    int neng;           /* --engine options given */
    int64_t movetime;   /* --movetime MS (1..86,400,000 ms) */
    uint64_t nodes;     /* --nodes N (1..2^62) */
    int depth;          /* --depth D (1..255) */
    unsigned timeout_s; /* --timeout S (1..604,800 s) */
    int json, quiet;    /* --json, -q/--quiet */
} ply_cli_engine_opts_t;

/**
 * The command's own option @c (the val of its struct option, or its short
 * letter) with its argument @arg (NULL when it takes none), @ctx as given to
 * ply_cli_engine_parse. Returns 0, or 2 after printing a usage error.
 */
typedef int (*ply_cli_engine_own_fn)(ply_cli_engine_opts_t *o, void *ctx, int c, const char *arg);

/**
 * ply_cli_engine_parse - parse @argc/@argv (argv[0] is the command name) into
 * *@o: the shared options above, and the command's own: @own_short (getopt
 * letters, e.g. "n:c:", or "") and @own_long (a table ended by a NULL name,
 * or NULL; vals below 0x4500), each handed to @own with @ctx. Arguments that
 * are not options are refused. What the command requires (an engine, a
 * limit) it checks after. @usage prints the command's --help.
 * Returns 0 to go on; 2 after printing a usage error (unknown option,
 * missing or bad value, --engine more than max_engines times, --option
 * before any --engine with two engines or not NAME=VALUE, an argument, or
 * what @own refused); -1 after printing --help on stdout (the command exits 0).
 */
int ply_cli_engine_parse(ply_cli_engine_opts_t *o, int argc, char **argv, const char *own_short,
                         const struct option *own_long, ply_cli_engine_own_fn own, void *ctx,
                         void (*usage)(FILE *out));

/**
 * ply_cli_engine_add_option - add the setting @nv ("NAME=VALUE"; kept, not
 * copied) to @s, after those given: for a command's own options that are
 * engine settings (ply solve's --threads). Returns 0, or 2 after printing a
 * usage error naming @nv when @s has PLY_CLI_ENGINE_OPTIONS_MAX already or
 * @nv is not NAME=VALUE.
 */
int ply_cli_engine_add_option(const ply_cli_engine_opts_t *o, ply_cli_engine_spec_t *s,
                              const char *nv);

/**
 * ply_cli_engine_start - start the engine @s (ply_uci_client_start, with a silence
 * limit of @timeout_s seconds), let *@cancel (may be NULL) interrupt its
 * waits (ply_uci_client_set_cancel), set its options in order (ply_uci_client_setoption_arg:
 * refused when the engine does not offer them or the value does not fit) and
 * wait until it is ready (ply_uci_client_sync). Returns the engine (the caller
 * destroys it with ply_uci_client_destroy), or NULL with the reason in @why.
 */
ply_uci_client_t *ply_cli_engine_start(const ply_cli_engine_spec_t *s, unsigned timeout_s,
                                       const atomic_int *cancel, char *why, size_t why_len);

#endif
