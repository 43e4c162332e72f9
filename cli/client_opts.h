/*
 * The command line of the commands that only talk to a running coordinator
 * (ply status, ply result, ply cancel): --coordinator E (default
 * $PLY_COORDINATOR), --json, --timeout S, --help, the CURVE and owner options
 * of curve_opts.h, a few flags of the command's own, and a RUN argument.
 * Parsed here once, so that the three read alike and say the same things.
 */
#ifndef PLY_CLI_CLIENT_OPTS_H
#define PLY_CLI_CLIENT_OPTS_H

#include <stdint.h>
#include <stdio.h>

/** A flag of the command's own (--wait, --divide): @set becomes 1 when given. */
typedef struct ply_cli_flag {
    const char *name; /* without the dashes */
    int *set;
} ply_cli_flag_t;

/** Whether the command takes a RUN argument. */
enum { PLY_CLI_RUN_NONE = 0, PLY_CLI_RUN_OPTIONAL, PLY_CLI_RUN_REQUIRED };

/** What was given. Set cmd, timeout_ms (the default) and endpoint_hint before parsing. */
typedef struct ply_cli_client {
    const char *cmd;           /* "status": names the command in messages */
    const char *endpoint_hint; /* added to the missing --coordinator message, or NULL */
    const char *endpoint;      /* --coordinator E, else $PLY_COORDINATOR */
    int json;                  /* --json */
    int timeout_ms;            /* --timeout S (1..86400 s), milliseconds */
    uint64_t run;              /* RUN, a run id as ply perft --detach prints it; 0 if absent */
} ply_cli_client_t;

/**
 * ply_cli_client_parse - parse @argc/@argv (argv[0] is the command name) into
 * *o: the shared options, @flags (NULL or an array ended by a NULL name) and,
 * as @run says, the RUN argument; then require an endpoint and load the CURVE
 * keys (ply_cli_curve_setup). @usage prints the command's --help.
 * Returns 0 to go on; 2 after printing a usage error (unknown option, missing
 * value, bad --timeout, RUN missing, not a run id, or one argument too many,
 * no endpoint); 1 after printing why the keys cannot be loaded; -1 after
 * printing --help on stdout (the command exits 0).
 */
int ply_cli_client_parse(ply_cli_client_t *o, int argc, char **argv, const ply_cli_flag_t *flags,
                         int run, void (*usage)(FILE *out));

typedef struct ply_client ply_client_t;

/**
 * ply_cli_client_connect - a client of o->endpoint (client/client.h), or
 * NULL after printing "ply CMD: why" on stderr (the command then exits 1).
 * The caller destroys it with ply_client_destroy.
 */
ply_client_t *ply_cli_client_connect(const ply_cli_client_t *o);

/**
 * ply_cli_client_connect_wait - ply_cli_client_connect for a command that waits for a run
 * that exists (ply result --wait): a connection refused (the coordinator restarting) is
 * said once on stderr and tried again by ZeroMQ (ply_client_new_patient), the command's
 * waits then giving up after o->timeout_ms. NULL after printing why.
 */
ply_client_t *ply_cli_client_connect_wait(const ply_cli_client_t *o);

#endif
