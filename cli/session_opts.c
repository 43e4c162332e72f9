/*
 * The session options of ply perft and ply analyse (session_opts.h).
 */
#include "session_opts.h"

#include <string.h>

#include "commands.h"
#include "curve_opts.h"
#include "endpoint.h"

void ply_cli_session_opts_init(ply_cli_session_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->cfg.hash_mib = 256;
}

int ply_cli_session_option(const char *cmd, ply_cli_session_opts_t *o, int c, const char *arg)
{
    long v;
    switch (c) {
    case 't':
        if (ply_cli_parse_long(arg, 1, 4096, &v))
            return ply_usage_error(cmd, "--threads '%s' must be 1..4096", arg);
        o->cfg.threads = (int)v;
        return 0;
    case PLY_CLI_SESSION_OPT:
        if (ply_cli_parse_long(arg, 0, 1 << 20, &v))
            return ply_usage_error(cmd, "--hash '%s' must be 0..1048576 MiB", arg);
        o->cfg.hash_mib = (unsigned)v;
        o->hash_given = 1;
        return 0;
    case PLY_CLI_SESSION_OPT + 1:
        if (ply_cli_parse_long(arg, 1, 256, &v))
            return ply_usage_error(cmd, "--workers '%s' must be 1..256", arg);
        o->cfg.workers = (unsigned)v;
        return 0;
    case PLY_CLI_SESSION_OPT + 2: {
        char why[256];
        if (ply_endpoint_check(arg, why, sizeof why) < 0)
            return ply_usage_error(cmd, "--coordinator: %s", why);
        o->cfg.coordinator = arg;
        return 0;
    }
    case PLY_CLI_SESSION_OPT + 3:
        if (ply_cli_parse_long(arg, 1, 86400, &v))
            return ply_usage_error(cmd, "--timeout '%s' must be 1..86400 seconds", arg);
        o->cfg.timeout_ms = (unsigned)v * 1000u;
        return 0;
    case PLY_CLI_SESSION_OPT + 4:
        o->cfg.state_path = arg;
        return 0;
    default:
        return -1;
    }
}

int ply_cli_session_check(const char *cmd, const ply_cli_session_opts_t *o)
{
    const ply_session_config_t *s = &o->cfg;
    if (s->state_path && s->coordinator)
        return ply_usage_error(cmd, "%s",
                               "--state is for the embedded coordinator; a remote one has its own "
                               "(ply-coordinator --state)");
    if (s->coordinator && s->workers)
        return ply_usage_error(cmd, "%s",
                               "--workers starts local workers for the embedded coordinator; it "
                               "cannot be combined with --coordinator");
    if (s->coordinator && (s->threads || o->hash_given)) /* its workers' own */
        return ply_usage_error(cmd, "%s does not apply with --coordinator",
                               s->threads ? "--threads" : "--hash");
    if (!s->coordinator && ply_cli_curve_given()) /* the embedded one is in-process */
        return ply_usage_error(cmd, "%s does not apply without --coordinator",
                               ply_cli_curve_given());
    return 0;
}
