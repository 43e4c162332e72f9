/*
 * The ply command's CURVE options (see curve_opts.h). The keys live until
 * the process exits (atexit), since every client of the process uses them.
 */
#include "curve_opts.h"

#include <stdio.h>
#include <stdlib.h>

#include "owner.h"
#include "security.h"

static int curve_on;
static const char *cert_path, *server_path, *owner_given;
static ply_curve_client_t *keys;

int ply_cli_curve_option(int opt, const char *arg)
{
    if (opt == PLY_CLI_CURVE_OPT)
        curve_on = 1;
    else if (opt == PLY_CLI_CURVE_OPT + 1)
        cert_path = arg;
    else if (opt == PLY_CLI_CURVE_OPT + 2)
        server_path = arg;
    else if (opt == PLY_CLI_CURVE_OPT + 3)
        owner_given = arg;
    else
        return 0;
    return 1;
}

const char *ply_cli_curve_given(void)
{
    return curve_on ? "--curve" : cert_path ? "--cert" : server_path ? "--server-key" : NULL;
}

static void free_keys(void)
{
    ply_curve_client_set_default(NULL);
    ply_curve_client_destroy(&keys);
}

int ply_cli_curve_setup(const char *prog)
{
    if (!curve_on && (cert_path || server_path)) {
        fprintf(stderr, "%s: --cert and --server-key need --curve (see %s --help)\n", prog, prog);
        return 2;
    }
    int r = ply_cli_owner_setup(prog, owner_given);
    if (r) return r;
    if (!curve_on) return 0;
    if (!cert_path || !server_path) {
        fprintf(stderr, "%s: --curve needs --cert FILE and --server-key FILE (see %s --help)\n",
                prog, prog);
        return 2;
    }
    char why[512];
    if (!(keys = ply_curve_client_new(cert_path, server_path, why, sizeof why))) {
        fprintf(stderr, "%s: %s\n", prog, why);
        return 1;
    }
    ply_curve_client_set_default(keys);
    atexit(free_keys);
    return 0;
}
