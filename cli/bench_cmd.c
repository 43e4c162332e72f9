/*
 * `ply bench`: a fixed, reproducible perft workload on this machine's fast
 * engine (no coordinator, no sockets), standard and Chess960 positions, one
 * thread and a fixed table by default. It prints per-position nodes and time
 * and ends with "Nodes searched: N" and "Nodes/second: M".
 *
 * N is a signature: every count is checked against its published value, so
 * N can only change when the list changes (a functional change, said in the
 * commit message as "Bench: N"). The CI compares it with the latest commit
 * message that has one (scripts/check-bench.sh).
 *
 * Then a search part: the analysis engine (worker/engine/search.h) searches a fixed
 * list of positions to a fixed depth on one thread with a 16 MiB table
 * cleared before each position, which makes its node total deterministic
 * (search.h), and prints "Search nodes: N" and "Search nodes/second: M".
 * That N is the search signature: it changes with any change of what the
 * search or the evaluation does, and such a commit says "Search-bench: N" in
 * its message (scripts/check-bench.sh checks both lines). The search part
 * evaluates as the engine does by default (search.h's PLY_ENGINE_NNUE_DEFAULT:
 * the embedded network when the build has one, else the hand-written
 * evaluation); --eval picks one, or both: then the default's lines come first,
 * as always, and the other's follow, named ("NNUE search nodes: N").
 *
 * `ply bench --cluster --coordinator E` measures a running cluster instead:
 * one perft run (start position, --depth, default 8) through the coordinator,
 * and, from the workers' counters before and after it, each worker's own
 * speed (its nodes over the time its jobs took) against the whole cluster's
 * (all nodes over the wall time). Their ratio is the scaling efficiency:
 * 1.0 means distributing the work cost nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "commands.h"
#include "curve_opts.h"
#include "endpoint.h"
#include "envelope.h"
#include "nnue.h"
#include "perft.h"
#include "search.h"
#include "util/error.h"
#include "util/json_exact.h"
#include "util/time.h"

/* Published counts: chessprogramming wiki "Perft Results" (positions 1-6),
 * and tests/data/ethereal-fischer.epd lines 1-2 (Chess960). */
static const struct bench_position {
    const char *name;
    const char *fen;
    int depth;
    uint64_t nodes;
} bench_positions[] = {
    {"start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 7, 3195901860},
    {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5,
     193690690},
    {"position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7, 178633661},
    {"position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 5, 15833292},
    {"position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5, 89941194},
    {"position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5,
     164075551},
    {"chess960 #1", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 6,
     227689589},
    {"chess960 #2", "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", 6, 590751109},
};
#define NBENCH (sizeof bench_positions / sizeof *bench_positions)

/* The search part: openings, middlegames, tactics, endgames and Chess960.
 * Sources: the perft positions above; wacnew.epd (WAC.001-003, Reinfeld's
 * Win at Chess); Stockfish's src/benchmark.cpp (three middlegames); Fine's
 * Basic Chess Endings no. 70 (Lasker-Reichhelm, the table's classic test); a
 * rook-and-king mate. */
static const struct bench_search_position {
    const char *name, *fen;
} bench_search_positions[] = {
    {"start position", "startpos"},
    {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"},
    {"position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"},
    {"position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"},
    {"position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"},
    {"position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"},
    {"WAC.001", "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"},
    {"WAC.002", "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1"},
    {"WAC.003", "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1"},
    {"sf bench 2", "r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14"},
    {"sf bench 3", "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24"},
    {"sf bench 4", "r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42"},
    {"fine 70", "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1"},
    {"KRK", "8/8/1k6/8/8/8/6K1/R7 w - - 0 1"},
    {"chess960 #1", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"},
    {"chess960 #2", "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9"},
};
#define NSEARCH         (sizeof bench_search_positions / sizeof *bench_search_positions)
#define SEARCH_DEPTH    13
#define SEARCH_HASH_MIB 16

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply bench [--perft | --search] [--threads N] [--hash MIB] [--json]\n"
            "                 [--eval classical|nnue|both] [--eval-file PATH]\n"
            "       ply bench --cluster --coordinator E [--depth D] [--json]\n"
            "\n"
            "Counts a fixed list of %zu positions (standard and Chess960) with this machine's\n"
            "fast engine and checks every count against its published value. The node total\n"
            "is the bench signature (\"Nodes searched: N\"); nodes per second is the speed.\n"
            "Then searches %zu positions to depth %d on 1 thread with a %d MiB table cleared\n"
            "per position: its node total is the search signature (\"Search nodes: N\").\n"
            "\n"
            "      --perft       the perft part only\n"
            "      --search      the search part only\n"
            "  -t, --threads N   OpenMP threads of the perft part (default 1)\n"
            "      --hash MIB    the perft part's table, MiB; 0 for none (default 16)\n"
            "      --eval E      the search part's evaluation: classical (hand-written), nnue\n"
            "                    (the network), or both, one after the other (default: the\n"
            "                    engine's, %s)\n"
            "      --eval-file PATH  the network for nnue, instead of the one built in\n"
            "      --json        one JSON object instead of text\n"
            "      --cluster     measure the cluster behind --coordinator E: per-worker and\n"
            "                    whole-cluster nodes/s and the scaling efficiency, from one\n"
            "                    run of the start position to --depth D (default 8)\n"
            "      --coordinator E   the coordinator's endpoint (default: $PLY_COORDINATOR)\n"
            "      --depth D     with --cluster: the depth of the run (2..12)\n" PLY_CLI_CURVE_HELP
            "  -h, --help        this text\n"
            "\n"
            "Exit status: 0 ok, 1 a count differs from its published value (or a search\n"
            "failed), 2 usage.\n",
            NBENCH, NSEARCH, SEARCH_DEPTH, SEARCH_HASH_MIB,
            PLY_ENGINE_NNUE_DEFAULT ? "nnue when a network is built in, else classical"
                                    : "classical");
}

typedef struct worker_snap {
    char id[128];
    uint32_t threads;
    uint64_t jobs, nodes, busy_us;
} worker_snap_t;

/* The workers' cumulative counters now (at most @max). */
static int snapshot(ply_client_t *cl, worker_snap_t *w, int max, char *why, size_t why_len)
{
    Ply__StatusReply *reply = NULL;
    int rc = ply_client_status(cl, 0, 10000, &reply, NULL, why, why_len);
    if (rc < 0) return rc;
    int n = 0;
    for (size_t i = 0; i < reply->n_worker && n < max; i++, n++) {
        const Ply__WorkerStatus *ws = reply->worker[i];
        snprintf(w[n].id, sizeof w[n].id, "%s", ws->worker_id ? ws->worker_id : "?");
        w[n].threads = ws->threads;
        w[n].jobs = ws->jobs_done;
        w[n].nodes = ws->nodes;
        w[n].busy_us = ws->busy_us;
    }
    ply__status_reply__free_unpacked(reply, NULL);
    return n;
}

#define MAX_WORKERS 1024

static int bench_cluster(const char *ep, unsigned depth, int json)
{
    static worker_snap_t before[MAX_WORKERS], after[MAX_WORKERS];
    char why[512] = "";
    ply_client_t *cl = ply_client_new(ep, why, sizeof why);
    if (!cl) {
        fprintf(stderr, "ply bench: %s\n", why);
        return 1;
    }
    int nb = snapshot(cl, before, MAX_WORKERS, why, sizeof why), rc = 1;
    Ply__Accepted *acc = NULL;
    Ply__RunResult *res = NULL;
    ply_perft_request_t req = {"startpos", depth, 0, 0, 0, -1, 0, 0, 0};
    if (nb == 0) snprintf(why, sizeof why, "no worker is connected to %s", ep);
    if (nb <= 0 || ply_client_submit(cl, &req, 60000, &acc, why, sizeof why) < 0 ||
        ply_client_wait(cl, acc->run_id, NULL, NULL, 60000, &res, why, sizeof why) < 0) {
        fprintf(stderr, "ply bench: %s\n", why);
        goto out;
    }
    int na = snapshot(cl, after, MAX_WORKERS, why, sizeof why);
    if (na < 0) {
        fprintf(stderr, "ply bench: %s\n", why);
        goto out;
    }
    /* Per worker: the difference of its counters across the run. */
    double sum_nps = 0;
    uint64_t total = 0;
    json_t *rows = json ? json_array() : NULL;
    if (!json)
        printf("%-28s %7s %6s %14s %9s %12s\n", "worker", "threads", "jobs", "nodes", "busy (s)",
               "Mnodes/s");
    for (int i = 0; i < na; i++) {
        worker_snap_t d = after[i];
        for (int k = 0; k < nb; k++)
            if (!strcmp(before[k].id, d.id)) {
                d.jobs -= before[k].jobs, d.nodes -= before[k].nodes,
                    d.busy_us -= before[k].busy_us;
                break;
            }
        double nps = d.busy_us ? (double)d.nodes * 1e6 / (double)d.busy_us : 0;
        sum_nps += nps;
        total += d.nodes;
        if (rows)
            json_array_append_new(rows,
                                  json_pack("{s:s, s:i, s:I, s:I, s:I, s:I}", "worker", d.id,
                                            "threads", (int)d.threads, "jobs", (json_int_t)d.jobs,
                                            "nodes", (json_int_t)d.nodes, "busy_us",
                                            (json_int_t)d.busy_us, "nps", (json_int_t)nps));
        else
            printf("%-28.28s %7u %6llu %14llu %9.2f %12.1f\n", d.id, d.threads,
                   (unsigned long long)d.jobs, (unsigned long long)d.nodes, (double)d.busy_us / 1e6,
                   nps / 1e6);
    }
    double wall = (double)res->time_ms / 1000.0;
    double cluster_nps = wall > 0 ? (double)total / wall : 0;
    double efficiency = sum_nps > 0 ? cluster_nps / sum_nps : 0;
    if (rows) {
        json_t *o =
            json_pack("{s:s, s:i, s:I, s:o, s:I, s:f, s:I, s:I, s:f}", "fen", "startpos", "depth",
                      (int)depth, "perft", (json_int_t)res->nodes, "workers", rows, "worker_nodes",
                      (json_int_t)total, "wall_s", wall, "cluster_nps", (json_int_t)cluster_nps,
                      "sum_worker_nps", (json_int_t)sum_nps, "efficiency", efficiency);
        ply_json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        printf("\nperft(%u) of the start position: %llu nodes, %u jobs, %.2f s\n", depth,
               (unsigned long long)res->nodes, res->jobs, wall);
        printf("cluster: %.1f Mnodes/s of worker work; workers alone: %.1f Mnodes/s summed\n",
               cluster_nps / 1e6, sum_nps / 1e6);
        printf("scaling efficiency: %.3f (1.0 = distributing cost nothing)\n", efficiency);
    }
    rc = 0;
out:
    ply_client_destroy(&cl);
    if (acc) ply__accepted__free_unpacked(acc, NULL);
    if (res) ply__run_result__free_unpacked(res, NULL);
    return rc;
}

/* The perft part (see the top): prints or fills @obj; 1 when a count is wrong, 2 no table. */
static int bench_perft(int threads, long hash_mib, json_t *obj)
{
    ply_tt_t *tt = hash_mib ? ply_tt_new((size_t)hash_mib << 20, 1) : NULL;
    if (hash_mib && !tt) {
        fprintf(stderr, "ply bench: cannot allocate a %ld MiB table\n", hash_mib);
        return 2;
    }
    static ply_perft_result_t r;
    json_t *rows = obj ? json_array() : NULL;
    uint64_t total = 0, total_ns = 0;
    int failed = 0;
    for (size_t i = 0; i < NBENCH; i++) {
        const struct bench_position *p = &bench_positions[i];
        ply_board_t b;
        char why[256];
        if (ply_board_from_fen(&b, p->fen, 0, why, sizeof why) < 0) {
            fprintf(stderr, "ply bench: %s: %s\n", p->name, why);
            failed = 1;
            continue;
        }
        ply_perft_opts_t o = {0};
        o.threads = threads;
        o.tt = tt;
        int rc = ply_perft_run(&b, p->depth, &o, &r);
        int ok = rc == 0 && r.nodes == p->nodes;
        failed |= !ok;
        total += r.nodes;
        total_ns += r.time_ns;
        if (rows) {
            json_t *o2 =
                json_pack("{s:s, s:s, s:i, s:I, s:I, s:I, s:b}", "name", p->name, "fen", p->fen,
                          "depth", p->depth, "nodes", (json_int_t)r.nodes, "expected",
                          (json_int_t)p->nodes, "time_ns", (json_int_t)r.time_ns, "ok", ok);
            json_array_append_new(rows, o2);
        } else {
            printf("%2zu/%zu %-16s d%-2d %12llu nodes %8.3f s %8.1f Mnodes/s%s\n", i + 1, NBENCH,
                   p->name, p->depth, (unsigned long long)r.nodes, r.time_ns / 1e9,
                   ply_nps(r.nodes, r.time_ns) / 1e6, ok ? "" : "  WRONG: published count differs");
        }
    }
    ply_tt_destroy(&tt);
    uint64_t nps = (uint64_t)ply_nps(total, total_ns); /* a fixed workload: far below 2^64 */
    if (rows) {
        json_t *o = json_pack("{s:o, s:I, s:I, s:I, s:i, s:i, s:s, s:b}", "positions", rows,
                              "nodes", (json_int_t)total, "time_ns", (json_int_t)total_ns, "nps",
                              (json_int_t)nps, "threads", threads, "hash_mib", (int)hash_mib,
                              "kernel", ply_perft_kernel_name(), "ok", !failed);
        json_object_update(obj, o);
        json_decref(o);
    } else {
        printf("\n%d thread%s, %ld MiB table, %s sliders\nTotal time (ms): %llu\nNodes searched: "
               "%llu\nNodes/second: %llu\n",
               threads, threads == 1 ? "" : "s", hash_mib, ply_perft_kernel_name(),
               (unsigned long long)(total_ns / 1000000), (unsigned long long)total,
               (unsigned long long)nps);
    }
    return failed;
}

/* The search part (see the top) evaluating with @net (NULL: classical): prints or fills
 * @obj; @first: the signature's run (its lines unnamed). Returns 1 on a failure, with the
 * nodes per second in *@nps_out. */
static int bench_search(json_t *obj, const ply_nnue_t *net, int first, uint64_t *nps_out)
{
    ply_engine_t *e = ply_engine_new(SEARCH_HASH_MIB, 1);
    if (!e) {
        fprintf(stderr, "ply bench: cannot allocate the search's %d MiB table\n", SEARCH_HASH_MIB);
        return 1;
    }
    ply_engine_set_net(e, net);
    const char *eval = net ? "nnue" : "classical";
    static ply_search_pos_t pos;
    static ply_search_result_t r;
    ply_search_limits_t lim;
    json_t *rows = obj ? json_array() : NULL;
    uint64_t total = 0, total_ns = 0;
    int failed = 0;
    if (!obj) printf("\n");
    for (size_t i = 0; i < NSEARCH; i++) {
        const struct bench_search_position *p = &bench_search_positions[i];
        char why[256], best[8] = "0000";
        uint64_t ns = 0;
        int rc = ply_search_pos_set(&pos, p->fen, 0, NULL, 0, why, sizeof why);
        if (rc == 0) {
            ply_engine_clear(e);
            ply_search_limits_init(&lim);
            lim.depth = SEARCH_DEPTH;
            uint64_t t0 = ply_time_ns();
            rc = ply_engine_search(e, &pos, &lim, NULL, NULL, &r);
            ns = ply_time_ns() - t0;
            snprintf(why, sizeof why, "%s", ply_strerror(rc));
        }
        if (rc < 0 || r.n_lines < 1) {
            fprintf(stderr, "ply bench: search of %s: %s\n", p->name, why);
            failed = 1;
            continue;
        }
        if (r.best) ply_board_move_to_uci(&pos.root, r.best, best);
        total += r.nodes;
        total_ns += ns;
        const ply_search_line_t *l = &r.lines[0];
        int mate = ply_score_is_mate(l->score);
        int shown = mate ? ply_score_mate_moves(l->score) : l->score;
        char fen[PLY_BOARD_FEN_MAX];
        ply_board_to_fen(&pos.root, fen, sizeof fen); /* "startpos" spelled out */
        if (rows)
            json_array_append_new(rows, json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:i}", "name",
                                                  p->name, "fen", fen, "nodes", (json_int_t)r.nodes,
                                                  "time_ns", (json_int_t)ns, "bestmove", best,
                                                  "score", mate ? "mate" : "cp", "value", shown));
        else
            printf(
                "%2zu/%zu %-16s d%-2d %12llu nodes %10.3f ms %8.2f Mnodes/s  bestmove %-5s %s %d\n",
                i + 1, NSEARCH, p->name, SEARCH_DEPTH, (unsigned long long)r.nodes,
                (double)ns / 1e6, ply_nps(r.nodes, ns) / 1e6, best, mate ? "mate" : "cp", shown);
    }
    ply_engine_destroy(&e);
    uint64_t nps = (uint64_t)ply_nps(total, total_ns);
    *nps_out = nps;
    if (obj) {
        json_object_set_new(obj, first ? "search" : net ? "search_nnue" : "search_classical",
                            json_pack("{s:o, s:i, s:i, s:i, s:s, s:I, s:I, s:I, s:b}", "positions",
                                      rows, "depth", SEARCH_DEPTH, "threads", 1, "hash_mib",
                                      SEARCH_HASH_MIB, "eval", eval, "nodes", (json_int_t)total,
                                      "time_ns", (json_int_t)total_ns, "nps", (json_int_t)nps,
                                      "ok", !failed));
    } else {
        const char *name = first ? "Search" : net ? "NNUE search" : "Classical search";
        printf("\nsearch to depth %d, 1 thread, %d MiB table cleared per position, %s "
               "evaluation%s%s\n"
               "%s time (ms): %lld\n%s nodes: %llu\n%s nodes/second: %llu\n",
               SEARCH_DEPTH, SEARCH_HASH_MIB, eval, net ? ", SIMD " : "",
               net ? ply_nnue_kernel_name() : "", name, (long long)(total_ns / 1000000), name,
               (unsigned long long)total, name, (unsigned long long)nps);
    }
    return failed;
}

/* The network of --eval nnue: --eval-file's, else the built-in one; NULL after saying why. */
static ply_nnue_t *file_net;
static const ply_nnue_t *bench_net(const char *file)
{
    char why[512];
    const ply_nnue_t *net = file ? (file_net = ply_nnue_load_file(file, why, sizeof why))
                                 : ply_nnue_embedded(why, sizeof why);
    if (!net)
        fprintf(stderr, "ply bench: --eval nnue: %s%s\n", why,
                file ? "" : "; give a network with --eval-file PATH");
    return net;
}

/* The engine's default network (NULL: classical). */
static const ply_nnue_t *default_net(void)
{
    ply_engine_t *probe = ply_engine_new(1, 1);
    const ply_nnue_t *net = probe ? ply_engine_net(probe) : NULL;
    ply_engine_destroy(&probe);
    return net;
}

/* The search part with --eval @eval (NULL: the engine's default) and the network @net
 * (NULL unless --eval nnue or both, or --eval-file, asked for one). */
static int bench_search_evals(json_t *obj, const char *eval, const ply_nnue_t *net)
{
    const ply_nnue_t *dflt = default_net();
    if (!eval && !net) net = dflt;
    uint64_t nps[2] = {0, 0};
    int failed = 0;
    if (eval && !strcmp(eval, "both")) {
        /* the default's run first: its lines are the signature's */
        failed |= bench_search(obj, dflt ? net : NULL, 1, &nps[0]);
        failed |= bench_search(obj, dflt ? NULL : net, 0, &nps[1]);
        if (!obj && nps[0] && nps[1])
            printf("\nNNUE / classical nodes per second: %.3f\n",
                   dflt ? (double)nps[0] / (double)nps[1] : (double)nps[1] / (double)nps[0]);
    } else {
        failed |= bench_search(obj, net, 1, &nps[0]);
    }
    return failed;
}

int ply_cmd_bench(int argc, char **argv)
{
    static const struct option longopts[] = {{"threads", required_argument, NULL, 't'},
                                             {"hash", required_argument, NULL, 'H'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"cluster", no_argument, NULL, 'C'},
                                             {"coordinator", required_argument, NULL, 'E'},
                                             {"depth", required_argument, NULL, 'd'},
                                             {"perft", no_argument, NULL, 'p'},
                                             {"search", no_argument, NULL, 's'},
                                             {"eval", required_argument, NULL, 'v'},
                                             {"eval-file", required_argument, NULL, 'f'},
                                             {"help", no_argument, NULL, 'h'},
                                             PLY_CLI_CURVE_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    int threads = 1, json = 0, cluster = 0, c;
    int threads_given = 0, hash_given = 0, depth_given = 0, coord_given = 0, part = 0;
    long hash_mib = 16, depth = 8;
    const char *ep = getenv("PLY_COORDINATOR");
    const char *eval = NULL, *eval_file = NULL;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            threads = (int)strtol(optarg, &end, 10);
            if (*end || threads < 1 || threads > 4096) {
                fprintf(stderr, "ply bench: --threads '%s' must be 1..4096\n", optarg);
                return 2;
            }
            threads_given = 1;
            break;
        case 'H':
            hash_mib = strtol(optarg, &end, 10);
            if (*end || hash_mib < 0 || hash_mib > (1 << 20)) {
                fprintf(stderr, "ply bench: --hash '%s' must be 0..1048576 MiB\n", optarg);
                return 2;
            }
            hash_given = 1;
            break;
        case 'd':
            depth = strtol(optarg, &end, 10);
            if (*end || depth < 2 || depth > 12) {
                fprintf(stderr, "ply bench: --depth '%s' must be 2..12\n", optarg);
                return 2;
            }
            depth_given = 1;
            break;
        case 'j':
            json = 1;
            break;
        case 'p':
        case 's':
            if (part && part != c)
                return ply_usage_error("bench", "--perft and --search exclude each other");
            part = c;
            break;
        case 'C':
            cluster = 1;
            break;
        case 'v':
            if (strcmp(optarg, "classical") && strcmp(optarg, "nnue") && strcmp(optarg, "both"))
                return ply_usage_error("bench", "--eval '%s' must be classical, nnue or both",
                                       optarg);
            eval = optarg;
            break;
        case 'f':
            eval_file = optarg;
            break;
        case 'E':
            ep = optarg;
            coord_given = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            fprintf(stderr, "ply bench: option '%s' needs a value (see ply bench --help)\n",
                    argv[optind - 1]);
            return 2;
        default:
            if (ply_cli_curve_option(c, optarg)) break;
            fprintf(stderr, "ply bench: unknown option '%s' (see ply bench --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ply bench: unexpected argument '%s' (see ply bench --help)\n",
                argv[optind]);
        return 2;
    }
    /* The local workload is fixed (its total is the signature) and the cluster's
     * workers have their own threads and tables: say so rather than ignore. */
    const char *idle = NULL;
    if (cluster)
        idle = threads_given ? "--threads"
               : hash_given  ? "--hash"
               : part        ? (part == 'p' ? "--perft" : "--search")
                             : NULL;
    else if (part == 's' && (threads_given || hash_given))
        return ply_usage_error("bench",
                               "%s applies to the perft part only (the search part is "
                               "fixed: 1 thread, %d MiB)",
                               threads_given ? "--threads" : "--hash", SEARCH_HASH_MIB);
    else
        idle = depth_given ? "--depth" : coord_given ? "--coordinator" : ply_cli_curve_given();
    if (!idle && (eval || eval_file) && (cluster || part == 'p'))
        idle = eval ? "--eval" : "--eval-file";
    if (!idle && eval && eval_file && !strcmp(eval, "classical"))
        return ply_usage_error("bench", "--eval-file is a network: not with --eval classical");
    if (idle && (eval || eval_file) && part == 'p' && !cluster)
        return ply_usage_error("bench", "%s applies to the search part only", idle);
    if (idle)
        return ply_usage_error("bench", "%s does not apply %s", idle,
                               cluster ? "with --cluster" : "without --cluster");
    if (cluster) {
        if (!ep || !*ep) {
            fprintf(stderr, "ply bench: --cluster needs --coordinator E (or PLY_COORDINATOR)\n");
            return 2;
        }
        char why[256];
        if (ply_endpoint_check(ep, why, sizeof why) < 0)
            return ply_usage_error("bench", "--coordinator: %s", why);
        int curve_rc = ply_cli_curve_setup("ply bench");
        if (curve_rc) return curve_rc;
        return bench_cluster(ep, (unsigned)depth, json);
    }

    const ply_nnue_t *net = NULL; /* found before any work, so that a bad file is said at once */
    if (part != 'p' && ((eval && strcmp(eval, "classical")) || eval_file) &&
        !(net = bench_net(eval_file)))
        return 2;
    json_t *obj = json ? json_object() : NULL;
    int failed = 0;
    if (part != 's') failed |= bench_perft(threads, hash_mib, obj);
    if (part != 'p' && failed < 2) failed |= bench_search_evals(obj, eval, net);
    ply_nnue_destroy(&file_net);
    if (obj) {
        ply_json_dumpf(obj, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(obj);
    }
    return failed ? 1 : 0;
}
