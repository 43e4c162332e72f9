/*
 * `ply cancel RUN [--coordinator E]`: stop a run. Only its owner may (the
 * client key that submitted it under CURVE, else the same owner token:
 * cli/owner.h), or a key in the coordinator's --admin-keys directory; its
 * jobs are withdrawn and its waiting client is told it was canceled.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "client_opts.h"
#include "commands.h"
#include "curve_opts.h"
#include "report.h"
#include "util/error.h"
#include "util/json_exact.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply cancel RUN [--coordinator E] [options]\n"
            "\n"
            "Cancels run RUN: its jobs are withdrawn and its client is told. Only the run's\n"
            "owner (who submitted it: the same CURVE key, or without CURVE the same owner\n"
            "token) or a key in the coordinator's --admin-keys directory may cancel it.\n"
            "\n"
            "      --coordinator E     the coordinator's endpoint (default: $PLY_COORDINATOR)\n"
            "      --json              one JSON object (the run's state) instead of text\n"
            "      --timeout S         give up after S seconds without an answer (default "
            "30)\n" PLY_CLI_CURVE_HELP "  -h, --help              this text\n"
            "\n"
            "Exit status: 0 the run is canceled, 1 it could not be (another client's run,\n"
            "already finished, unknown, no answer), 2 usage.\n");
}

int ply_cmd_cancel(int argc, char **argv)
{
    ply_cli_client_t args = {.cmd = "cancel", .timeout_ms = 30000};
    int prc = ply_cli_client_parse(&args, argc, argv, NULL, PLY_CLI_RUN_REQUIRED, usage);
    if (prc) return prc < 0 ? 0 : prc;
    const uint64_t run = args.run;
    const int json = args.json, timeout_ms = args.timeout_ms;
    ply_client_t *cl = ply_cli_client_connect(&args);
    if (!cl) return 1;
    char why[512] = "";
    Ply__RunProgress *p = NULL;
    int rc = ply_client_cancel(cl, run, timeout_ms, &p, why, sizeof why);
    int status = rc < 0 ? 1 : 0;
    if (rc < 0) {
        fprintf(stderr, "ply cancel: %s\n", why[0] ? why : ply_strerror(rc));
    } else if (json) {
        json_t *o = ply_report_progress_json(p);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("run %" PRIu64 " %s\n", p->run_id,
               p->state && !strcmp(p->state, "splitting") ? "canceled (while splitting)"
                                                          : "canceled");
    }
    if (p) ply__run_progress__free_unpacked(p, NULL);
    ply_client_destroy(&cl);
    return status;
}
