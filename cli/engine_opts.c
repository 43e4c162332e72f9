/* The shared command line of ply match and ply solve (see engine_opts.h). */
#include "engine_opts.h"

#include <string.h>

#include "commands.h"

#define OWN_MAX 16

/* Option values above any command's own. */
enum {
    OPT_ENGINE = 0x4500,
    OPT_OPTION,
    OPT_MOVETIME,
    OPT_NODES,
    OPT_DEPTH,
    OPT_TIMEOUT,
    OPT_JSON,
    OPT_QUIET,
    OPT_HELP
};

static const struct option shared_long[] = {
    {"engine", required_argument, NULL, OPT_ENGINE},
    {"option", required_argument, NULL, OPT_OPTION},
    {"movetime", required_argument, NULL, OPT_MOVETIME},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"json", no_argument, NULL, OPT_JSON},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, OPT_HELP},
};
#define NSHARED (sizeof shared_long / sizeof *shared_long)

int ply_cli_engine_add_option(const ply_cli_engine_opts_t *o, ply_cli_engine_spec_t *s,
                              const char *nv)
{
    if (s->noptions == PLY_CLI_ENGINE_OPTIONS_MAX || !strchr(nv, '=') || nv[0] == '=')
        return ply_usage_error(o->cmd, "--option '%s' must be NAME=VALUE (at most %d)", nv,
                               PLY_CLI_ENGINE_OPTIONS_MAX);
    s->options[s->noptions++] = nv;
    return 0;
}

/* One of the shared options; 0 or 2 after a usage error. */
static int shared_option(ply_cli_engine_opts_t *o, int c, const char *arg)
{
    long v;
    switch (c) {
    case OPT_ENGINE:
        if (o->neng == o->max_engines)
            return ply_usage_error(o->cmd, "--engine given more than %s",
                                   o->max_engines == 1 ? "once" : "twice");
        o->eng[o->neng++].cmd = arg;
        return 0;
    case OPT_OPTION:
        if (o->max_engines > 1 && !o->neng)
            return ply_usage_error(o->cmd, "%s", "--option needs an --engine before it");
        return ply_cli_engine_add_option(o, &o->eng[o->neng ? o->neng - 1 : 0], arg);
    case OPT_MOVETIME:
        if (ply_cli_parse_long(arg, 1, 86400000L, &v))
            return ply_usage_error(o->cmd, "--movetime '%s' must be milliseconds from 1", arg);
        o->movetime = v;
        return 0;
    case OPT_NODES:
        if (ply_cli_parse_long(arg, 1, (long)(1ull << 62), &v))
            return ply_usage_error(o->cmd, "--nodes '%s' must be a count from 1", arg);
        o->nodes = (uint64_t)v;
        return 0;
    case OPT_DEPTH:
        if (ply_cli_parse_long(arg, 1, 255, &v))
            return ply_usage_error(o->cmd, "--depth '%s' must be 1..255", arg);
        o->depth = (int)v;
        return 0;
    case OPT_TIMEOUT:
        if (ply_cli_parse_long(arg, 1, 86400 * 7, &v))
            return ply_usage_error(o->cmd, "--timeout '%s' must be seconds from 1", arg);
        o->timeout_s = (unsigned)v;
        return 0;
    case OPT_JSON:
        o->json = 1;
        return 0;
    default: /* OPT_QUIET */
        o->quiet = 1;
        return 0;
    }
}

int ply_cli_engine_parse(ply_cli_engine_opts_t *o, int argc, char **argv, const char *own_short,
                         const struct option *own_long, ply_cli_engine_own_fn own, void *ctx,
                         void (*usage)(FILE *out))
{
    struct option longopts[NSHARED + OWN_MAX + 1];
    size_t n = 0;
    for (; n < NSHARED; n++) longopts[n] = shared_long[n];
    for (size_t i = 0; own_long && own_long[i].name && i < OWN_MAX; i++)
        longopts[n++] = own_long[i];
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    char shortopts[64];
    snprintf(shortopts, sizeof shortopts, ":e:qh%s", own_short ? own_short : "");

    optind = 1;
    opterr = 0;
    int c, r = 0;
    while (r == 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'e') c = OPT_ENGINE;
        if (c == 'q') c = OPT_QUIET;
        if (c == 'h' || c == OPT_HELP) {
            usage(stdout);
            return -1;
        }
        if (c == ':') return ply_usage_error(o->cmd, "option '%s' needs a value", argv[optind - 1]);
        if (c == '?') return ply_usage_error(o->cmd, "unknown option '%s'", argv[optind - 1]);
        if (c >= OPT_ENGINE && c <= OPT_QUIET)
            r = shared_option(o, c, optarg);
        else
            r = own(o, ctx, c, optarg);
    }
    if (r) return r;
    if (optind < argc) return ply_usage_error(o->cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

ply_uci_client_t *ply_cli_engine_start(const ply_cli_engine_spec_t *s, unsigned timeout_s,
                                       const atomic_int *cancel, char *why, size_t why_len)
{
    ply_uci_client_t *e = ply_uci_client_start(s->cmd, timeout_s * 1000u, why, why_len);
    if (!e) return NULL;
    ply_uci_client_set_cancel(e, cancel);
    int r = 0;
    for (int k = 0; r == 0 && k < s->noptions; k++)
        r = ply_uci_client_setoption_arg(e, s->options[k], why, why_len);
    if (r == 0) r = ply_uci_client_sync(e, why, why_len);
    if (r < 0) ply_uci_client_destroy(&e);
    return e;
}
