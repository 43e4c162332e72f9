/*
 * `ply result RUN [--coordinator E]`: the answer of a run, at any time after
 * the coordinator accepted it: printed as `ply perft` prints it when the run
 * is done (answered from the coordinator's memory or its state file), its
 * failure when it failed, its progress when it is still running, or, with
 * --wait, the answer once it comes (the client attaches to the run, and
 * re-attaches after a coordinator restart; a connection refused meanwhile, at
 * the start too, is tried again up to --timeout).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analyse_out.h"
#include "client.h"
#include "client_opts.h"
#include "commands.h"
#include "curve_opts.h"
#include "envelope.h"
#include "report.h"
#include "util/error.h"
#include "util/json_exact.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply result RUN [--coordinator E] [options]\n"
            "\n"
            "Prints the answer of run RUN (as ply perft prints it), or its progress while\n"
            "it runs.\n"
            "\n"
            "      --coordinator E     the coordinator's endpoint (default: $PLY_COORDINATOR)\n"
            "      --wait              wait for the answer while the run is in progress, and\n"
            "                          through a restart of the coordinator (refused\n"
            "                          connections included)\n"
            "      --divide            print the count below each root move\n"
            "      --stats             print the statistics (when the run counted them)\n"
            "      --json              one JSON object instead of text\n"
            "      --timeout S         give up after S seconds without word from the coordinator\n"
            "                          (default 30; with --wait, also while it refuses "
            "connections)\n" PLY_CLI_CURVE_HELP "  -h, --help              this text\n"
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
        if (ply_report_planned(p))
            fprintf(stderr,
                    "ply result: run %" PRIu64 " is %s: %u of %u jobs done, %s nodes so far (use "
                    "--wait to wait for it)\n",
                    p->run_id, p->state ? p->state : "?", p->jobs_done, p->jobs_total, nodes);
        else
            fprintf(stderr,
                    "ply result: run %" PRIu64 " is %s, not planned yet (use --wait to wait "
                    "for it)\n",
                    p->run_id, p->state ? p->state : "?");
    }
    return 1;
}

int ply_cmd_result(int argc, char **argv)
{
    int wait = 0, divide = 0, stats = 0;
    const ply_cli_flag_t flags[] = {
        {"wait", &wait}, {"divide", &divide}, {"stats", &stats}, {NULL, NULL}};
    ply_cli_client_t args = {.cmd = "result", .timeout_ms = 30000};
    int prc = ply_cli_client_parse(&args, argc, argv, flags, PLY_CLI_RUN_REQUIRED, usage);
    if (prc) return prc < 0 ? 0 : prc;
    const uint64_t run = args.run;
    const int json = args.json, timeout_ms = args.timeout_ms;
    /* with --wait the run exists: a refused connection is its coordinator restarting */
    ply_client_t *cl = wait ? ply_cli_client_connect_wait(&args) : ply_cli_client_connect(&args);
    if (!cl) return 1;
    char why[512] = "";
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
    } else if (res && res->search) { /* a search run (ply analyse) */
        status = ply_analyse_print_result(res, json);
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
