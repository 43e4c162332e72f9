/*
 * `ply result RUN [--coordinator E]`: the answer of a run, at any time after
 * the coordinator accepted it: printed as `ply perft` prints it when the run
 * is done (answered from the coordinator's memory or its state file), its
 * failure when it failed, its progress when it is still running, or, with
 * --wait, the answer once it comes (the client attaches to the run, and
 * re-attaches after a coordinator restart).
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
#include "envelope.h"
#include "json_exact.h"
#include "report.h"
#include "util/error.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply result RUN [--coordinator E] [options]\n"
            "\n"
            "Prints the answer of run RUN (as ply perft prints it), or its progress while\n"
            "it runs.\n"
            "\n"
            "      --coordinator E     the coordinator's endpoint (default: $PLY_COORDINATOR)\n"
            "      --wait              wait for the answer while the run is in progress\n"
            "      --divide            print the count below each root move\n"
            "      --stats             print the statistics (when the run counted them)\n"
            "      --json              one JSON object instead of text\n"
            "      --timeout S         give up after S seconds without word from the coordinator\n"
            "                          (default 30)\n" PLY_CLI_CURVE_HELP
            "  -h, --help              this text\n"
            "\n"
            "Exit status: 0 the run is done and nothing disagreed, 1 it failed, found a\n"
            "mismatch, is still running (without --wait) or is unknown, 2 usage.\n");
}

static int running(const Ply__RunProgress *p, int json)
{
    if (json) {
        json_t *o = ply_report_progress_json(p);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        char nodes[PLY_U128_DEC_LEN];
        ply_u128_to_dec(ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi), nodes, sizeof nodes);
        fprintf(stderr,
                "ply result: run %" PRIu64 " is %s: %u of %u jobs done, %s nodes so far (use "
                "--wait to wait for it)\n",
                p->run_id, p->state ? p->state : "?", p->jobs_done, p->jobs_total, nodes);
    }
    return 1;
}

int ply_cmd_result(int argc, char **argv)
{
    enum { OPT_COORD = 256, OPT_JSON, OPT_TIMEOUT, OPT_WAIT, OPT_DIVIDE, OPT_STATS };
    static const struct option longopts[] = {{"coordinator", required_argument, NULL, OPT_COORD},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"timeout", required_argument, NULL, OPT_TIMEOUT},
                                             {"wait", no_argument, NULL, OPT_WAIT},
                                             {"divide", no_argument, NULL, OPT_DIVIDE},
                                             {"stats", no_argument, NULL, OPT_STATS},
                                             {"help", no_argument, NULL, 'h'},
                                             PLY_CLI_CURVE_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    const char *ep = getenv("PLY_COORDINATOR");
    int json = 0, wait = 0, divide = 0, stats = 0, timeout_ms = 30000, c;
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
        case OPT_WAIT:
            wait = 1;
            break;
        case OPT_DIVIDE:
            divide = 1;
            break;
        case OPT_STATS:
            stats = 1;
            break;
        case OPT_TIMEOUT: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 86400)
                return ply_usage_error("result", "--timeout needs 1..86400, not '%s'", optarg);
            timeout_ms = (int)v * 1000;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            return ply_usage_error("result", "option needs a value: '%s'", argv[optind - 1]);
        default:
            if (ply_cli_curve_option(c, optarg)) break;
            return ply_usage_error("result", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        fprintf(stderr,
                "ply result: RUN (a run id, as ply perft --detach prints it) is required\n");
        return 2;
    }
    char *end;
    unsigned long long run = strtoull(argv[optind], &end, 10);
    if (*end || !run || argv[optind][0] == '-')
        return ply_usage_error("result", "RUN must be a run id, not '%s'", argv[optind]);
    if (optind + 1 < argc)
        return ply_usage_error("result", "unexpected argument '%s'", argv[optind + 1]);
    if (!ep || !ep[0]) {
        fprintf(stderr, "ply result: --coordinator E is required (or set PLY_COORDINATOR)\n");
        return 2;
    }
    int curve_rc = ply_cli_curve_setup("ply result");
    if (curve_rc) return curve_rc;
    char why[512] = "";
    ply_client_t *cl = ply_client_new(ep, why, sizeof why);
    if (!cl) {
        fprintf(stderr, "ply result: %s\n", why);
        return 1;
    }
    Ply__RunResult *res = NULL;
    Ply__RunProgress *prog = NULL;
    int rc = ply_client_result(cl, run, wait, timeout_ms, &res, &prog, why, sizeof why);
    if (rc == 0 && prog && wait) {
        ply__run_progress__free_unpacked(prog, NULL);
        prog = NULL;
        rc = ply_client_wait(cl, run, NULL, NULL, timeout_ms, &res, why, sizeof why);
    }
    int status;
    if (rc < 0) {
        fprintf(stderr, "ply result: %s\n", why[0] ? why : ply_strerror(rc));
        status = 1;
    } else if (res) {
        status = ply_perft_print_result(res, divide, stats, json);
    } else {
        status = running(prog, json);
    }
    if (res) ply__run_result__free_unpacked(res, NULL);
    if (prog) ply__run_progress__free_unpacked(prog, NULL);
    ply_client_destroy(&cl);
    return status;
}
