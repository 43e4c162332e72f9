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
#include "commands.h"
#include "curve_opts.h"
#include "report.h"
#include "util/error.h"

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
    enum { OPT_COORD = 256, OPT_JSON, OPT_TIMEOUT };
    static const struct option longopts[] = {{"coordinator", required_argument, NULL, OPT_COORD},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"timeout", required_argument, NULL, OPT_TIMEOUT},
                                             {"help", no_argument, NULL, 'h'},
                                             PLY_CLI_CURVE_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    const char *ep = getenv("PLY_COORDINATOR");
    int json = 0, timeout_ms = 30000, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_COORD:
            ep = optarg;
            break;
        case OPT_JSON:
            json = 1;
            break;
        case OPT_TIMEOUT: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 86400)
                return ply_usage_error("cancel", "--timeout needs 1..86400, not '%s'", optarg);
            timeout_ms = (int)v * 1000;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return ply_usage_error("cancel", "option needs a value: '%s'", argv[optind - 1]);
        default:
            if (ply_cli_curve_option(c, optarg)) break;
            return ply_usage_error("cancel", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return ply_usage_error("cancel",
                               "RUN (a run id, as ply perft --detach prints it) is required");
    char *end;
    unsigned long long run = strtoull(argv[optind], &end, 10);
    if (*end || !run || argv[optind][0] == '-')
        return ply_usage_error("cancel", "RUN must be a run id, not '%s'", argv[optind]);
    if (optind + 1 < argc)
        return ply_usage_error("cancel", "unexpected argument '%s'", argv[optind + 1]);
    if (!ep || !ep[0])
        return ply_usage_error("cancel", "--coordinator E is required (or set PLY_COORDINATOR)");
    int curve_rc = ply_cli_curve_setup("ply cancel");
    if (curve_rc) return curve_rc;
    char why[512] = "";
    ply_client_t *cl = ply_client_new(ep, why, sizeof why);
    if (!cl) {
        fprintf(stderr, "ply cancel: %s\n", why);
        return 1;
    }
    Ply__RunProgress *p = NULL;
    int rc = ply_client_cancel(cl, run, timeout_ms, &p, why, sizeof why);
    int status = rc < 0 ? 1 : 0;
    if (rc < 0) {
        fprintf(stderr, "ply cancel: %s\n", why[0] ? why : ply_strerror(rc));
    } else if (json) {
        json_t *o = ply_report_progress_json(p);
        json_dumpf(o, stdout, JSON_INDENT(2));
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
