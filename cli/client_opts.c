/* The shared command line of ply status, result and cancel (see client_opts.h). */
#include "client_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "commands.h"
#include "curve_opts.h"
#include "endpoint.h"
#include "util/error.h"

#define MAX_FLAGS 8

enum { OPT_COORD = 256, OPT_JSON, OPT_TIMEOUT, OPT_FLAG };

static int parse_run(ply_cli_client_t *o, const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*end || !v || arg[0] == '-' || errno == ERANGE)
        return ply_usage_error(o->cmd, "RUN must be a run id, not '%s'", arg);
    o->run = v;
    return 0;
}

int ply_cli_client_parse(ply_cli_client_t *o, int argc, char **argv, const ply_cli_flag_t *flags,
                         int run, void (*usage)(FILE *out))
{
    struct option longopts[4 + MAX_FLAGS + 5] = {
        {"coordinator", required_argument, NULL, OPT_COORD},
        {"json", no_argument, NULL, OPT_JSON},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
    };
    const struct option curve[] = {PLY_CLI_CURVE_LONGOPTS};
    size_t n = 4, nflags = 0;
    for (; flags && flags[nflags].name && nflags < MAX_FLAGS; nflags++)
        longopts[n++] =
            (struct option){flags[nflags].name, no_argument, NULL, OPT_FLAG + (int)nflags};
    for (size_t i = 0; i < sizeof curve / sizeof *curve; i++) longopts[n++] = curve[i];
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    o->endpoint = getenv("PLY_COORDINATOR");
    o->json = 0;
    o->run = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c >= OPT_FLAG && c < OPT_FLAG + (int)nflags) {
            *flags[c - OPT_FLAG].set = 1;
            continue;
        }
        switch (c) {
        case OPT_COORD:
            o->endpoint = optarg;
            break;
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_TIMEOUT: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 86400)
                return ply_usage_error(o->cmd, "--timeout needs 1..86400, not '%s'", optarg);
            o->timeout_ms = (int)v * 1000;
            break;
        }
        case 'h':
            usage(stdout);
            return -1;
        case ':':
            return ply_usage_error(o->cmd, "option needs a value: '%s'", argv[optind - 1]);
        default:
            if (ply_cli_curve_option(c, optarg)) break;
            return ply_usage_error(o->cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc && run != PLY_CLI_RUN_NONE) {
        if (parse_run(o, argv[optind]) != 0) return 2;
        optind++;
    } else if (run == PLY_CLI_RUN_REQUIRED) {
        return ply_usage_error(o->cmd,
                               "RUN (a run id, as ply perft --detach prints it) is required");
    }
    if (optind < argc) return ply_usage_error(o->cmd, "unexpected argument '%s'", argv[optind]);
    if (!o->endpoint || !o->endpoint[0])
        return ply_usage_error(o->cmd, "--coordinator E is required (or set PLY_COORDINATOR)%s",
                               o->endpoint_hint ? o->endpoint_hint : "");
    char why[256];
    if (ply_endpoint_check(o->endpoint, why, sizeof why) < 0)
        return ply_usage_error(o->cmd, "--coordinator: %s", why);
    char prog[64];
    snprintf(prog, sizeof prog, "ply %s", o->cmd);
    return ply_cli_curve_setup(prog);
}

ply_client_t *ply_cli_client_connect(const ply_cli_client_t *o)
{
    char why[512] = "";
    ply_client_t *cl = ply_client_new(o->endpoint, why, sizeof why);
    if (!cl) fprintf(stderr, "ply %s: %s\n", o->cmd, why);
    return cl;
}

ply_client_t *ply_cli_client_connect_wait(const ply_cli_client_t *o)
{
    char why[512] = "";
    if (ply_endpoint_probe(o->endpoint, PLY_CLIENT_PROBE_MS, why, sizeof why) == PLY_ECONNECT)
        fprintf(stderr, "ply %s: %s; waiting for it for up to %d s (--timeout)\n", o->cmd, why,
                o->timeout_ms / 1000);
    ply_client_t *cl = ply_client_new_patient(o->endpoint, why, sizeof why);
    if (!cl) fprintf(stderr, "ply %s: %s\n", o->cmd, why);
    return cl;
}
