/*
 * `ply status [--coordinator E] [RUN]`: what a coordinator is doing. Without
 * RUN: its runs in progress and the last finished ones, its workers (Zobrist
 * seed, jobs in flight, how long since their node count moved), whether it
 * keeps a state file and what it read back at its last start. With RUN: that
 * run's progress and the workers. Text for people, --json for machines.
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
#include "envelope.h"
#include "report.h"
#include "util/error.h"
#include "util/json_exact.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply status [--coordinator E] [RUN] [options]\n"
            "\n"
            "Shows a coordinator's runs (in progress, then the last finished ones) and its\n"
            "workers, or the progress of run RUN.\n"
            "\n"
            "      --coordinator E     the coordinator's endpoint (default: $PLY_COORDINATOR)\n"
            "      --json              one JSON object instead of text\n"
            "      --timeout S         give up after S seconds without an answer (default "
            "10)\n" PLY_CLI_CURVE_HELP "  -h, --help              this text\n"
            "\n"
            "Exit status: 0 ok, 1 failure (no answer, unknown run), 2 usage.\n");
}

static void seconds(char *buf, size_t len, uint64_t ms)
{
    if (ms < 100000)
        snprintf(buf, len, "%.1f s", (double)ms / 1000.0);
    else
        snprintf(buf, len, "%" PRIu64 " s", ms / 1000);
}

static void print_run(const Ply__RunProgress *p)
{
    char el[32], jobs[32];
    seconds(el, sizeof el, p->elapsed_ms);
    if (ply_report_planned(p))
        snprintf(jobs, sizeof jobs, "%u/%u", p->jobs_done, p->jobs_total);
    else
        snprintf(jobs, sizeof jobs, "not planned"); /* acknowledged, not yet split */
    char nodes[PLY_U128_DEC_LEN] = "(not yours)";   /* another client's run: its owner's count */
    if (!p->answer_hidden)
        ply_u128_to_dec(ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi), nodes, sizeof nodes);
    printf("%-16" PRIu64 " %-9s %-13s %-9u %-16s %-9s %-12s d%u %s\n", p->run_id,
           p->state ? p->state : "?", jobs, p->jobs_in_flight, nodes, el,
           p->verify ? p->verify : "none", p->depth, p->fen ? p->fen : "?");
    if (p->results_restored)
        printf("                 %u job results read back from the state file after a restart\n",
               p->results_restored);
    if (p->error && p->error[0]) printf("                 %s\n", p->error);
}

static void print_workers(Ply__WorkerStatus *const *w, size_t n)
{
    if (!n) {
        printf("no worker connected\n");
        return;
    }
    printf("%-24s %-6s %-8s %-10s %-8s %-16s %s\n", "WORKER", "SEED", "THREADS", "IN FLIGHT",
           "DONE", "NODES", "STALLED  IDENTITY");
    for (size_t i = 0; i < n; i++) {
        char st[32];
        seconds(st, sizeof st, w[i]->stalled_ms);
        char nodes[PLY_U128_DEC_LEN] = "(not yours)"; /* it counted another client's run */
        if (w[i]->has_nodes)
            ply_u128_to_dec(ply_msg_count(w[i]->nodes, w[i]->has_nodes_hi, w[i]->nodes_hi), nodes,
                            sizeof nodes);
        char excl[48] = "";
        if (w[i]->excluded_runs)
            snprintf(excl, sizeof excl, "  EXCLUDED from %u run%s (caught wrong)",
                     w[i]->excluded_runs, w[i]->excluded_runs == 1 ? "" : "s");
        printf("%-24s %-6u %-8u %-10u %-8" PRIu64 " %-16s %s  %s%s\n",
               w[i]->worker_id ? w[i]->worker_id : "?", w[i]->zobrist_seed, w[i]->threads,
               w[i]->jobs_in_flight, w[i]->jobs_done, nodes, st,
               w[i]->identity ? w[i]->identity : "", excl);
    }
}

/* run ids are up to 16 digits (PLY_MAX_RUN_ID) */
static const char RUN_HEADER[] =
    "RUN              STATE     JOBS          IN FLIGHT NODES            "
    "ELAPSED   VERIFY       POSITION\n";

static int show_all(ply_client_t *cl, const char *ep, int timeout_ms, int json)
{
    Ply__StatusReply *r = NULL;
    char why[512] = "";
    int rc = ply_client_status(cl, 0, timeout_ms, &r, NULL, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "ply status: %s\n", why[0] ? why : ply_strerror(rc));
        return 1;
    }
    if (json) {
        json_t *o = json_object(), *runs = json_array();
        json_object_set_new(o, "coordinator", ply_json_text(ep));
        json_object_set_new(o, "uptime_ms", ply_json_count(r->uptime_ms));
        json_object_set_new(o, "durable", json_boolean(r->durable));
        json_object_set_new(o, "runs_restored", json_integer(r->runs_restored));
        json_object_set_new(o, "results_restored", json_integer(r->results_restored));
        json_object_set_new(o, "jobs_sent", ply_json_count(r->jobs_sent));
        json_object_set_new(o, "jobs_requeued", ply_json_count(r->jobs_requeued));
        json_object_set_new(o, "results_ignored", ply_json_count(r->results_ignored));
        json_object_set_new(o, "workers_lost", ply_json_count(r->workers_lost));
        for (size_t i = 0; i < r->n_run; i++)
            json_array_append_new(runs, ply_report_progress_json(r->run[i]));
        json_object_set_new(o, "runs", runs);
        json_object_set_new(o, "workers", ply_report_workers_json(r->worker, r->n_worker));
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        char up[32];
        seconds(up, sizeof up, r->uptime_ms);
        printf("coordinator %s: up %s, %s, %zu worker%s\n", ep, up,
               r->durable ? "keeps a state file" : "no state file (runs end with it)", r->n_worker,
               r->n_worker == 1 ? "" : "s");
        if (r->runs_restored)
            printf("resumed %u unfinished run(s) at start, %u job results read back (not "
                   "recomputed)\n",
                   r->runs_restored, r->results_restored);
        printf("jobs sent %" PRIu64 ", re-queued %" PRIu64 ", stale results ignored %" PRIu64
               ", workers lost %" PRIu64 "\n\n",
               r->jobs_sent, r->jobs_requeued, r->results_ignored, r->workers_lost);
        if (r->n_run) printf("%s", RUN_HEADER);
        for (size_t i = 0; i < r->n_run; i++) print_run(r->run[i]);
        if (!r->n_run) printf("no runs\n");
        printf("\n");
        print_workers(r->worker, r->n_worker);
    }
    ply__status_reply__free_unpacked(r, NULL);
    return 0;
}

static int show_run(ply_client_t *cl, uint64_t run, int timeout_ms, int json)
{
    Ply__RunProgress *p = NULL;
    char why[512] = "";
    int rc = ply_client_status(cl, run, timeout_ms, NULL, &p, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "ply status: %s\n", why[0] ? why : ply_strerror(rc));
        return 1;
    }
    if (json) {
        json_t *o = ply_report_progress_json(p);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("%s", RUN_HEADER);
        print_run(p);
        printf("\n");
        print_workers(p->worker, p->n_worker);
    }
    ply__run_progress__free_unpacked(p, NULL);
    return 0;
}

int ply_cmd_status(int argc, char **argv)
{
    ply_cli_client_t args = {.cmd = "status",
                             .timeout_ms = 10000,
                             .endpoint_hint = "; the embedded coordinator lives only while ply "
                                              "perft runs"};
    int prc = ply_cli_client_parse(&args, argc, argv, NULL, PLY_CLI_RUN_OPTIONAL, usage);
    if (prc) return prc < 0 ? 0 : prc;
    const char *ep = args.endpoint;
    const uint64_t run = args.run;
    const int json = args.json, timeout_ms = args.timeout_ms;
    ply_client_t *cl = ply_cli_client_connect(&args);
    if (!cl) return 1;
    int rc = run ? show_run(cl, run, timeout_ms, json) : show_all(cl, ep, timeout_ms, json);
    ply_client_destroy(&cl);
    return rc;
}
