/*
 * ply-coordinator: the standalone coordinator daemon. Parses the command
 * line, owns the process's signals (through the coordinator's libuv loop),
 * runs until SIGINT/SIGTERM. Exit codes: 0 ok, 1 failure, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "coordinator.h"
#include "endpoint.h"
#include "security.h"
#include "util/error.h"
#include "util/log.h"
#include "util/process.h"
#include "util/version.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: ply-coordinator --bind ENDPOINT[,ENDPOINT...] [options]\n"
        "\n"
        "Accepts perft and analysis runs from `ply` clients, splits them into jobs and\n"
        "hands the jobs to ply-worker processes over ZeroMQ (protocol PLY/2).\n"
        "\n"
        "  --bind ENDPOINT       where to listen, e.g. tcp://0.0.0.0:5555, tcp://127.0.0.1:*\n"
        "                        or :0 (a free port, printed at start-up), inproc://NAME\n"
        "  --heartbeat-ms N      heartbeat period in milliseconds (default 1000)\n"
        "  --liveness N          missed heartbeats before a worker is dead (default 5)\n"
        "  --lease-ms N          re-queue a job not finished in N ms (default 0: a lease\n"
        "                        from the job's estimated size and the worker's measured\n"
        "                        speed, 16 times the expected time, at least 4 heartbeat\n"
        "                        timeouts)\n"
        "  --worker-wait-ms N    fail a run with no worker for N ms (default 60000; 0: wait)\n"
        "  --max-attempts N      quarantine a job that failed N times: its run fails with the\n"
        "                        position and every failure (default 3)\n"
        "  --hang-ms N           a worker whose node count does not advance for N ms while\n"
        "                        it holds jobs is hung: dropped, jobs re-queued (default\n"
        "                        300000; 0: never)\n"
        "  --state FILE          keep every accepted run, job and result in FILE (SQLite);\n"
        "                        restarted on it, resume the unfinished runs without\n"
        "                        recomputing any finished job\n"
        "  --keep-runs N         finished runs whose per-job rows stay in the state file for\n"
        "                        audit (default 20); older runs keep their answer only\n"
        "  --arbiter-budget N    largest job (estimated nodes) the rule engine recounts for\n"
        "                        --verify sample and tie-breaks (default 30000000; 0: never)\n"
        "  --rule-engine-threads N  threads the rule engine recounts on, at a lower priority\n"
        "                        than the rest (default 1; 0: it recounts no job)\n"
        "  --local-workers N     start N ply-worker processes (needs --worker-exe)\n"
        "  --worker-exe PATH     the ply-worker executable for --local-workers\n"
        "  --worker-threads T    --threads for the local workers\n"
        "  --worker-hash MIB     --hash for the local workers (default 256; 0: no table)\n"
        "  --curve               CURVE encryption and authentication, with --cert and --allow\n"
        "  --cert FILE           this coordinator's secret key file (NAME.key_secret, ply keygen)\n"
        "  --allow DIR           public key files (NAME.key) of the workers and clients allowed\n"
        "                        to connect; any other key is refused and logged\n"
        "  --allow-clients DIR   client keys apart: keys in --allow may then only be workers,\n"
        "                        keys here only clients (submit, status, cancel)\n"
        "  --admin-keys DIR      client keys (NAME.key) that may read and cancel every run;\n"
        "                        others only their own (needs --curve)\n"
        "  --insecure            without --curve, bind more than loopback (plaintext, anyone)\n"
        "  --http ADDR:PORT      serve the status over HTTP: GET /status (JSON), /metrics\n"
        "                        (Prometheus text), / (a live page), e.g. 127.0.0.1:8080,\n"
        "                        [::1]:8080, port 0 for a free one (printed at start-up);\n"
        "                        an address other than loopback needs --insecure or --curve\n"
        "                        and --http-token-file\n"
        "  --http-token-file FILE  every HTTP request must carry the token on FILE's first\n"
        "                        line (16 characters at least): Authorization: Bearer TOKEN\n"
        "                        (or Basic, any user, the token as password)\n"
        "  --http-timeout-ms N   close an HTTP connection that has not sent its request and\n"
        "                        taken the answer within N ms (default 10000)\n"
        "  -v, --verbose         log runs and workers (twice: every job)\n"
        "  -q, --quiet           log errors only\n"
        "  -h, --help            this text\n"
        "      --version         print the version and git commit\n"
        "\n"
        "Exit status: 0 stopped by SIGINT/SIGTERM, 1 failure (e.g. cannot bind), 2 usage.\n");
}

/* Reads an unsigned decimal option value; 0 on success, else prints why and returns 2. */
static int parse_uint(const char *opt, const char *s, unsigned *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!s[0] || *end || errno || v > UINT_MAX || s[0] == '-') {
        fprintf(stderr, "ply-coordinator: %s needs a non-negative integer, not \"%s\"\n", opt, s);
        return 2;
    }
    *out = (unsigned)v;
    return 0;
}

/* The shortest HTTP token taken: 16 characters from a 64-letter alphabet are 96 bits, out
 * of reach of guessing over HTTP; a short one is a password anyone can try. */
#define TOKEN_MIN 16

/*
 * Reads the HTTP token: the first line of @path, without its line end. 0, or -1 after
 * printing why (unreadable, empty, shorter than TOKEN_MIN or longer than @len - 1 bytes,
 * a control character).
 */
static int read_token(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ply-coordinator: --http-token-file %s: %s\n", path, strerror(errno));
        return -1;
    }
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    size_t n = ok ? strlen(buf) : 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
    const char *why = !n                ? "is empty"
                      : n >= len - 1    ? "holds a token longer than 510 bytes"
                      : n < TOKEN_MIN   ? "holds a token shorter than 16 characters, which could be "
                                          "guessed (e.g. openssl rand -hex 16)"
                      : NULL;
    for (size_t i = 0; !why && i < n; i++)
        if ((unsigned char)buf[i] < 0x21 || buf[i] == 0x7f) why = "holds a space or a control character";
    if (why) {
        fprintf(stderr, "ply-coordinator: --http-token-file %s %s\n", path, why);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    enum {
        O_BIND = 256,
        O_HB,
        O_LIVENESS,
        O_LEASE,
        O_WAIT,
        O_ATTEMPTS,
        O_LOCAL,
        O_EXE,
        O_WTHREADS,
        O_WHASH,
        O_CURVE,
        O_CERT,
        O_ALLOW,
        O_ALLOW_CLIENTS,
        O_INSECURE,
        O_HANG,
        O_STATE,
        O_ARB_BUDGET,
        O_RULE_THREADS,
        O_KEEP,
        O_ADMIN,
        O_VERSION,
        O_HTTP,
        O_HTTP_TOKEN,
        O_HTTP_TIMEOUT
    };
    static const struct option opts[] = {
        {"bind", required_argument, NULL, O_BIND},
        {"heartbeat-ms", required_argument, NULL, O_HB},
        {"liveness", required_argument, NULL, O_LIVENESS},
        {"lease-ms", required_argument, NULL, O_LEASE},
        {"worker-wait-ms", required_argument, NULL, O_WAIT},
        {"max-attempts", required_argument, NULL, O_ATTEMPTS},
        {"local-workers", required_argument, NULL, O_LOCAL},
        {"worker-exe", required_argument, NULL, O_EXE},
        {"worker-threads", required_argument, NULL, O_WTHREADS},
        {"worker-hash", required_argument, NULL, O_WHASH},
        {"curve", no_argument, NULL, O_CURVE},
        {"cert", required_argument, NULL, O_CERT},
        {"allow", required_argument, NULL, O_ALLOW},
        {"allow-clients", required_argument, NULL, O_ALLOW_CLIENTS},
        {"admin-keys", required_argument, NULL, O_ADMIN},
        {"insecure", no_argument, NULL, O_INSECURE},
        {"hang-ms", required_argument, NULL, O_HANG},
        {"state", required_argument, NULL, O_STATE},
        {"arbiter-budget", required_argument, NULL, O_ARB_BUDGET},
        {"rule-engine-threads", required_argument, NULL, O_RULE_THREADS},
        {"keep-runs", required_argument, NULL, O_KEEP},
        {"http", required_argument, NULL, O_HTTP},
        {"http-token-file", required_argument, NULL, O_HTTP_TOKEN},
        {"http-timeout-ms", required_argument, NULL, O_HTTP_TIMEOUT},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0},
    };
    if (ply_process_init("ply-coordinator") < 0) return 1;
    ply_coordinator_config_t cfg;
    ply_coordinator_config_init(&cfg);
    cfg.handle_signals = 1;
    int verbose = 0, quiet = 0, opt, rc = 0, curve = 0;
    const char *local_opt = NULL; /* the last option given for local workers */
    const char *cert = NULL, *allow = NULL, *allow_clients = NULL, *token_file = NULL;
    char token[512];
    opterr = 0;
    while (rc == 0 && (opt = getopt_long(argc, argv, "vqh", opts, NULL)) != -1) {
        switch (opt) {
        case O_BIND:
            cfg.bind = optarg;
            break;
        case O_HB:
            rc = parse_uint("--heartbeat-ms", optarg, &cfg.heartbeat_ms);
            break;
        case O_LIVENESS:
            rc = parse_uint("--liveness", optarg, &cfg.liveness);
            break;
        case O_LEASE:
            rc = parse_uint("--lease-ms", optarg, &cfg.lease_ms);
            break;
        case O_WAIT:
            rc = parse_uint("--worker-wait-ms", optarg, &cfg.worker_wait_ms);
            break;
        case O_ATTEMPTS:
            rc = parse_uint("--max-attempts", optarg, &cfg.max_attempts);
            break;
        case O_LOCAL:
            rc = parse_uint("--local-workers", optarg, &cfg.spawn_workers);
            break;
        case O_EXE:
            cfg.worker_exe = optarg;
            local_opt = "--worker-exe";
            break;
        case O_WTHREADS:
            rc = parse_uint("--worker-threads", optarg, &cfg.worker_threads);
            local_opt = "--worker-threads";
            break;
        case O_WHASH:
            rc = parse_uint("--worker-hash", optarg, &cfg.worker_hash_mib);
            local_opt = "--worker-hash";
            break;
        case O_CURVE:
            curve = 1;
            break;
        case O_CERT:
            cert = optarg;
            break;
        case O_ALLOW:
            allow = optarg;
            break;
        case O_ALLOW_CLIENTS:
            allow_clients = optarg;
            break;
        case O_ADMIN:
            cfg.admin_keys = optarg;
            break;
        case O_INSECURE:
            cfg.insecure = 1;
            break;
        case O_HANG:
            rc = parse_uint("--hang-ms", optarg, &cfg.hang_ms);
            break;
        case O_STATE:
            cfg.state_path = optarg;
            break;
        case O_ARB_BUDGET: {
            unsigned budget;
            rc = parse_uint("--arbiter-budget", optarg, &budget);
            cfg.arbiter_budget = budget;
            break;
        }
        case O_RULE_THREADS:
            rc = parse_uint("--rule-engine-threads", optarg, &cfg.rule_engine_threads);
            if (rc == 0 && cfg.rule_engine_threads > 64) {
                fprintf(stderr, "ply-coordinator: --rule-engine-threads %u: at most 64\n",
                        cfg.rule_engine_threads);
                rc = 2;
            }
            break;
        case O_KEEP:
            rc = parse_uint("--keep-runs", optarg, &cfg.keep_runs);
            break;
        case O_HTTP:
            cfg.http = optarg;
            break;
        case O_HTTP_TOKEN:
            token_file = optarg;
            break;
        case O_HTTP_TIMEOUT:
            rc = parse_uint("--http-timeout-ms", optarg, &cfg.http_timeout_ms);
            if (rc == 0 && !cfg.http_timeout_ms) {
                fprintf(stderr, "ply-coordinator: --http-timeout-ms must be at least 1\n");
                rc = 2;
            }
            break;
        case 'v':
            verbose++;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case O_VERSION: {
            /* the coordinator links neither the fast engine nor OpenMP (DESIGN.md) */
            char line[256];
            puts(ply_version_line(line, sizeof line, "ply-coordinator", NULL, 0));
            return 0;
        }
        default:
            fprintf(stderr, "ply-coordinator: unknown or incomplete option \"%s\" (see --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (rc) return rc;
    if (optind < argc) {
        fprintf(stderr, "ply-coordinator: unexpected argument \"%s\" (see --help)\n", argv[optind]);
        return 2;
    }
    if (!cfg.bind) {
        fprintf(stderr, "ply-coordinator: --bind ENDPOINT is required (see --help)\n");
        return 2;
    }
    /* ZeroMQ would take port 99999 as 34463 and report a host that does not resolve as
     * "No such device": check each endpoint as ply and ply-worker do */
    char *binds = strdup(cfg.bind), *save = NULL;
    if (!binds) return 1;
    for (char *ep = strtok_r(binds, ",", &save); ep && rc == 0; ep = strtok_r(NULL, ",", &save)) {
        while (*ep == ' ') ep++;
        size_t n = strlen(ep);
        while (n && ep[n - 1] == ' ') ep[--n] = '\0';
        if (!n) continue;
        char why[512];
        int r = ply_endpoint_check_bind(ep, why, sizeof why);
        if (r < 0) {
            fprintf(stderr, "ply-coordinator: --bind: %s\n", why);
            rc = r == PLY_EUSAGE ? 2 : 1;
        }
    }
    free(binds);
    if (rc) return rc;
    if (!cfg.spawn_workers && local_opt) {
        fprintf(stderr,
                "ply-coordinator: %s is for the workers of --local-workers N; it does "
                "not apply without it (see --help)\n",
                local_opt);
        return 2;
    }
    if (cfg.spawn_workers && !cfg.worker_exe) {
        fprintf(stderr, "ply-coordinator: --local-workers needs --worker-exe PATH\n");
        return 2;
    }
    if (cfg.heartbeat_ms == 0 || cfg.liveness == 0 || cfg.max_attempts == 0) {
        fprintf(stderr, "ply-coordinator: --heartbeat-ms, --liveness and --max-attempts must be "
                        "at least 1\n");
        return 2;
    }

    if (curve ? !(cert && allow) : (cert || allow || allow_clients || cfg.admin_keys)) {
        fprintf(stderr, "ply-coordinator: --curve needs --cert FILE and --allow DIR, and they "
                        "(and --admin-keys) need --curve (see --help)\n");
        return 2;
    }
    if (cfg.http) {
        char why[512];
        if (ply_coordinator_http_check(cfg.http, why, sizeof why) < 0) {
            fprintf(stderr, "ply-coordinator: %s\n", why);
            return 2;
        }
    }
    if (token_file && !cfg.http) {
        fprintf(stderr, "ply-coordinator: --http-token-file needs --http ADDR:PORT\n");
        return 2;
    }
    if (token_file) {
        if (read_token(token_file, token, sizeof token) < 0) return 1;
        cfg.http_token = token;
    }
    if (curve && cfg.spawn_workers) {
        fprintf(stderr, "ply-coordinator: --local-workers cannot be combined with --curve (local "
                        "workers have no keys); start ply-worker --curve instead\n");
        return 2;
    }

    ply_log_set_tag("ply-coordinator");
    ply_log_set_time(1); /* its lines and its workers' line up (PLY_LOG_TIME=0: not) */
    ply_log_set_level(quiet          ? PLY_LOG_ERROR
                      : verbose >= 2 ? PLY_LOG_DEBUG
                      : verbose == 1 ? PLY_LOG_INFO
                                     : PLY_LOG_WARN);
    /* one owner of signals (STYLE.md rule 7): libuv, not czmq */
    zsys_handler_set(NULL);

    char why[512], when[48];
    ply_curve_server_t *keys = curve ? ply_curve_server_new(cert, allow, allow_clients, why,
                                                            sizeof why)
                                     : NULL;
    if (curve && !keys) {
        fprintf(stderr, "%sply-coordinator: %s\n", ply_log_stamp(when, sizeof when), why);
        return 1;
    }
    cfg.curve = keys;
    ply_coordinator_t *c = ply_coordinator_new(&cfg, why, sizeof why);
    if (!c) {
        fprintf(stderr, "%sply-coordinator: %s\n", ply_log_stamp(when, sizeof when), why);
        ply_curve_server_destroy(&keys);
        return 1;
    }
    if (keys && !quiet)
        fprintf(stderr, "%sply-coordinator: CURVE on, server key %s\n",
                ply_log_stamp(when, sizeof when), ply_curve_server_public_key(keys));
    /* the resolved endpoint matters with an ephemeral port (-v logs it already) */
    if (!quiet && !verbose)
        fprintf(stderr, "%sply-coordinator: listening on %s\n", ply_log_stamp(when, sizeof when),
                ply_coordinator_endpoint(c));
    ply_coordinator_counters_t k;
    ply_coordinator_counters(c, &k);
    if (!quiet && !verbose && cfg.http) /* -v logs it already */
        fprintf(stderr, "%sply-coordinator: status over HTTP on http://%s/\n",
                ply_log_stamp(when, sizeof when), ply_coordinator_http_endpoint(c));
    if (!quiet && k.runs_restored)
        fprintf(stderr,
                "%sply-coordinator: resuming %llu unfinished run(s) from %s (%llu job results read "
                "back, not recomputed)\n",
                ply_log_stamp(when, sizeof when), (unsigned long long)k.runs_restored,
                cfg.state_path, (unsigned long long)k.results_restored);
    rc = ply_coordinator_run(c);
    ply_coordinator_destroy(&c);
    ply_curve_server_destroy(&keys);
    if (rc < 0) {
        fprintf(stderr, "%sply-coordinator: %s\n", ply_log_stamp(when, sizeof when),
                ply_strerror(rc));
        return 1;
    }
    return 0;
}
