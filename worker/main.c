/*
 * ply-worker: the compute node. Connects to a coordinator and counts perft
 * jobs on all its cores, and runs search jobs on ply's engine or on an
 * external UCI engine (--engine), until stopped (SIGINT/SIGTERM) or told Bye. With
 * --uci it is instead the analysis engine on stdin/stdout (worker/uci/uci.h).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <czmq.h>

#include "analysis.h"
#include "board/zobrist.h"
#include "nnue.h"
#include "perft.h"
#include "endpoint.h"
#include "envelope.h"
#include "security.h"
#include "service.h"
#include "uci.h"
#include "util/error.h"
#include "util/log.h"
#include "util/process.h"
#include "util/random.h"
#include "util/version.h"

static _Atomic int stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, 1);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ply-worker --connect ENDPOINT [options]\n"
            "       ply-worker --uci\n"
            "\n"
            "Counts perft jobs and runs search jobs (ply's engine) for a ply coordinator\n"
            "on OpenMP threads sharing one transposition table (one kind's at a time).\n"
            "\n"
            "      --uci               speak the Universal Chess Interface on stdin/stdout\n"
            "                          (the analysis engine, as `ply uci`); no other option\n"
            "  -c, --connect ENDPOINT  coordinator to connect to, e.g. tcp://host:5555 (required)\n"
            "  -t, --threads N         OpenMP threads per job (default: one per core)\n"
            "      --hash MIB          transposition table size in MiB, 0 for none (default 256)\n"
            "      --engine CMD        run search jobs on this external UCI engine (a program and\n"
            "                          its arguments, no shell), e.g. /usr/games/stockfish; it is\n"
            "                          started at once (exit 2 when it cannot be, or is not UCI).\n"
            "                          Default: ply's own engine (--threads, --hash)\n"
            "      --engine-option NAME=VALUE\n"
            "                          a UCI option for --engine, e.g. Threads=2 or Hash=256\n"
            "                          (repeatable; NAME alone for a button option)\n"
            "      --eval nnue|classical\n"
            "                          ply's engine's evaluation: the network, or the hand-written\n"
            "                          one (default: %s)\n"
            "      --eval-file PATH    the network for --eval nnue, instead of the built-in one\n"
            "                          (read and checked at start: exit 2 when refused)\n"
            "      --id NAME           worker id shown by the coordinator (default host:pid)\n"
            "      --heartbeat-ms N    heartbeat period before the coordinator sets one (default 1000)\n"
            "      --liveness N        coordinator heartbeats missed before giving up (default 5)\n"
            "      --reconnect         reconnect (say HELLO again) when the coordinator goes away\n"
            "                          or restarts: the default (with --curve, a worker whose key\n"
            "                          is refused, or that was never welcomed, gives up)\n"
            "      --exit-on-bye       exit instead when the coordinator says Bye or goes silent\n"
            "                          (what workers started by a coordinator do)\n"
            "      --max-jobs N        exit after N jobs (testing)\n"
            "      --zobrist-seed N    build the Zobrist keys from seed N (default: a random seed,\n"
            "                          drawn at start-up, logged and sent in HELLO, so that\n"
            "                          workers checking each other's jobs use other keys)\n"
            "      --curve             CURVE encryption and authentication, with the two files below\n"
            "      --cert FILE         this worker's secret key file (NAME.key_secret, ply keygen);\n"
            "                          its NAME.key must be in the coordinator's --allow directory\n"
            "      --server-key FILE   the coordinator's public key file (or its 40-character key)\n"
            "  -v, --verbose           log progress to stderr (twice: debug)\n"
            "  -q, --quiet             log errors only\n"
            "  -h, --help              this text\n"
            "      --version           print the version, git commit, slider kernel and OpenMP\n"
            "\n"
            "Exit status: 0 on an orderly stop, 1 on failure, 2 on bad usage.\n",
            PLY_ENGINE_NNUE_DEFAULT ? "nnue when a network is built in, else classical"
                                    : "classical");
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    if (!s || !*s || *s == '-') return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v > max) return -1;
    *out = v;
    return 0;
}

/*
 * ZeroMQ retries a connection in silence: say at once what is wrong with the coordinator's
 * endpoint. An unknown host ends the worker (exit 1). A connection refused does too with
 * --exit-on-bye; by default the worker says so and keeps trying, as it does when its
 * coordinator restarts (a worker started before its coordinator, by systemd or Slurm,
 * then joins it when it comes up). Returns 0 to go on, -1 to exit 1.
 */
static int connect_probe(const ply_worker_config_t *cfg)
{
    char why[512], when[48];
    int rc =
        ply_endpoint_probe_wait(cfg->endpoint, 3000, cfg->exit_on_bye ? 1500 : 0, why, sizeof why);
    if (rc == 0) return 0;
    if (rc == PLY_ECONNECT && !cfg->exit_on_bye) {
        fprintf(stderr, "%sply-worker: %s; trying again until it answers\n",
                ply_log_stamp(when, sizeof when), why);
        return 0;
    }
    fprintf(stderr, "%sply-worker: %s\n", ply_log_stamp(when, sizeof when), why);
    return -1;
}

/*
 * Without --zobrist-seed the keys come from a seed drawn at random, so that two workers
 * checking each other's jobs (--verify) use other keys and a collision of one is not
 * repeated by the other (issue 27: with every worker on seed 0, "checked by another
 * worker" meant the same keys). The seed is not a secret: if the kernel gives no random
 * bytes, the time and pid will do. The tables are built before any thread starts.
 */
static void pick_seed(int seeded)
{
    if (!seeded) {
        uint64_t r;
        if (ply_random_u64(&r) < 0) {
            ply_warn("no random bytes from the kernel: zobrist seed from the time and pid");
            r = ((uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull) ^ (uint64_t)getpid();
        }
        ply_zobrist_init((uint32_t)(r ^ (r >> 32)));
    }
    ply_info("zobrist seed %u (%s)", ply_zobrist_seed(), seeded ? "--zobrist-seed" : "random");
}

/*
 * --eval and --eval-file into cfg->search_net: the network (the file's, read and checked
 * now, or the built-in one) or NULL (classical); neither given, the engine's default that
 * ply_worker_config_init set. Returns 0, or -1 after saying why (exit 2).
 */
static int eval_or_file(ply_worker_config_t *cfg, const char *engine, const char *eval,
                        const char *file, ply_nnue_t **file_net)
{
    char why[512];
    if ((eval || file) && engine) {
        fprintf(stderr, "ply-worker: --eval and --eval-file are ply's engine's, not --engine's\n");
        return -1;
    }
    if (eval && file && !strcmp(eval, "classical")) {
        fprintf(stderr, "ply-worker: --eval-file is a network: not with --eval classical\n");
        return -1;
    }
    if (eval && !strcmp(eval, "classical")) {
        cfg->search_net = NULL;
    } else if (file) {
        if (!(*file_net = ply_nnue_load_file(file, why, sizeof why))) {
            fprintf(stderr, "ply-worker: --eval-file: %s\n", why);
            return -1;
        }
        cfg->search_net = *file_net;
    } else if (eval) {
        if (!(cfg->search_net = ply_nnue_embedded(why, sizeof why))) {
            fprintf(stderr, "ply-worker: --eval nnue: %s; give a network with --eval-file PATH\n",
                    why);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_HASH = 256, OPT_ID, OPT_HB, OPT_LIVENESS, OPT_RECONNECT, OPT_MAXJOBS, OPT_SEED, OPT_VERSION,
           OPT_CURVE, OPT_CERT, OPT_SERVER_KEY, OPT_EXIT_ON_BYE, OPT_FAULT, OPT_UCI, OPT_ENGINE,
           OPT_ENGINE_OPTION, OPT_EVAL, OPT_EVAL_FILE };
    static const struct option longopts[] = {
        {"connect", required_argument, NULL, 'c'},   {"threads", required_argument, NULL, 't'},
        {"hash", required_argument, NULL, OPT_HASH}, {"id", required_argument, NULL, OPT_ID},
        {"heartbeat-ms", required_argument, NULL, OPT_HB},
        {"liveness", required_argument, NULL, OPT_LIVENESS},
        {"reconnect", no_argument, NULL, OPT_RECONNECT},
        {"exit-on-bye", no_argument, NULL, OPT_EXIT_ON_BYE},
#ifdef PLY_FAULT_INJECTION
        {"fault-every", required_argument, NULL, OPT_FAULT},
#endif
        {"max-jobs", required_argument, NULL, OPT_MAXJOBS},
        {"zobrist-seed", required_argument, NULL, OPT_SEED},
        {"curve", no_argument, NULL, OPT_CURVE},
        {"cert", required_argument, NULL, OPT_CERT},
        {"server-key", required_argument, NULL, OPT_SERVER_KEY},
        {"uci", no_argument, NULL, OPT_UCI},
        {"engine", required_argument, NULL, OPT_ENGINE},
        {"engine-option", required_argument, NULL, OPT_ENGINE_OPTION},
        {"eval", required_argument, NULL, OPT_EVAL},
        {"eval-file", required_argument, NULL, OPT_EVAL_FILE},
        {"verbose", no_argument, NULL, 'v'},         {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},            {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0}};
    if (ply_process_init("ply-worker") < 0) return 1;
    ply_worker_config_t cfg;
    ply_worker_config_init(&cfg);
    cfg.hash_mib = 256;
    cfg.exit_on_bye = 0; /* a standalone worker outlives a coordinator restart */
    int verbose = 0, quiet = 0, c, curve = 0, seeded = 0;
    int stay_or_go = 0; /* 1: --reconnect given, 2: --exit-on-bye given */
    int uci = 0, n_opts = 0;
    const char *cert = NULL, *server_key = NULL, *engine = NULL, *eval = NULL, *eval_file = NULL;
    const char *engine_opts[64];
    int n_engine_opts = 0;
    unsigned long v;
    ply_log_set_tag("ply-worker");
    ply_log_set_time(1); /* its lines and its coordinator's line up (PLY_LOG_TIME=0: not) */
    opterr = 0; /* main says what is wrong, in one line */
    while ((c = getopt_long(argc, argv, "c:t:vqh", longopts, NULL)) != -1) {
        const char *bad = NULL;
        n_opts++;
        switch (c) {
        case OPT_UCI: uci = 1; break;
        case 'c': cfg.endpoint = optarg; break;
        case 't':
            if (parse_uint(optarg, 4096, &v) || v == 0) bad = "--threads needs 1..4096";
            cfg.threads = (int)v;
            break;
        case OPT_HASH:
            if (parse_uint(optarg, 1u << 20, &v)) bad = "--hash needs a size in MiB (0..1048576)";
            cfg.hash_mib = (unsigned)v;
            break;
        case OPT_ID:
            /* the coordinator refuses a HELLO whose worker_id is not one line of text
             * (envelope.h): refused now, not retried forever */
            if (!optarg[0] || strlen(optarg) > PLY_MAX_TEXT) bad = "--id needs 1..512 bytes";
            for (const char *p = optarg; !bad && *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                    bad = "--id must be one line without control characters";
            cfg.worker_id = optarg;
            break;
        case OPT_HB:
            if (parse_uint(optarg, 600000, &v) || v == 0) bad = "--heartbeat-ms needs 1..600000";
            cfg.heartbeat_ms = (unsigned)v;
            break;
        case OPT_LIVENESS:
            if (parse_uint(optarg, 1000, &v) || v == 0) bad = "--liveness needs 1..1000";
            cfg.liveness = (unsigned)v;
            break;
        case OPT_RECONNECT:
            cfg.exit_on_bye = 0;
            stay_or_go |= 1;
            break;
        case OPT_EXIT_ON_BYE:
            cfg.exit_on_bye = 1;
            stay_or_go |= 2;
            break;
#ifdef PLY_FAULT_INJECTION
        case OPT_FAULT:
            if (parse_uint(optarg, 1u << 30, &v) || v == 0) bad = "--fault-every needs a count";
            cfg.fault_every = (unsigned)v;
            break;
#endif
        case OPT_MAXJOBS:
            if (parse_uint(optarg, 1u << 30, &v)) bad = "--max-jobs needs a count";
            cfg.max_jobs = (unsigned)v;
            break;
        case OPT_SEED:
            if (parse_uint(optarg, 0xFFFFFFFFul, &v)) bad = "--zobrist-seed needs 0..4294967295";
            ply_zobrist_init((uint32_t)v);
            seeded = 1;
            break;
        case OPT_ENGINE: engine = optarg; break;
        case OPT_EVAL:
            if (strcmp(optarg, "nnue") && strcmp(optarg, "classical"))
                bad = "--eval needs nnue or classical";
            eval = optarg;
            break;
        case OPT_EVAL_FILE: eval_file = optarg; break;
        case OPT_ENGINE_OPTION:
            if (n_engine_opts == 64) bad = "--engine-option: at most 64 of them";
            else engine_opts[n_engine_opts++] = optarg;
            break;
        case OPT_CURVE: curve = 1; break;
        case OPT_CERT: cert = optarg; break;
        case OPT_SERVER_KEY: server_key = optarg; break;
        case 'v': verbose++; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: {
            char line[256];
            puts(ply_version_line(line, sizeof line, "ply-worker", ply_perft_kernel_name(), _OPENMP));
            return 0;
        }
        default: {
            /* one line, as ply and ply-coordinator say it, not the whole --help */
            const char *arg = argv[optind - 1];
            char name[64];
            if (optopt && !(arg[0] == '-' && arg[1] == '-'))
                snprintf(name, sizeof name, "-%c", optopt);
            else
                snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
            int known = 0;
            for (const struct option *o = longopts; o->name && !known; o++)
                known = (optopt && o->val == optopt) ||
                        (name[0] == '-' && name[1] == '-' && !strcmp(o->name, name + 2));
            if (known)
                fprintf(stderr, "ply-worker: option '%s' needs a value (see ply-worker --help)\n",
                        name);
            else
                fprintf(stderr, "ply-worker: unknown option '%s' (see ply-worker --help)\n", name);
            return 2;
        }
        }
        if (bad) {
            fprintf(stderr, "ply-worker: %s (got '%s')\n", bad, optarg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ply-worker: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (uci) { /* the options above are the cluster worker's; UCI has setoption */
        if (n_opts > 1) {
            fprintf(stderr, "ply-worker: --uci takes no other option (set Hash and Threads "
                            "with setoption)\n");
            return 2;
        }
        int rc = ply_uci_loop(stdin, stdout);
        if (rc < 0) fprintf(stderr, "ply-worker: %s\n", ply_strerror(rc));
        return rc < 0 ? 1 : 0;
    }
    if (!cfg.endpoint) {
        fprintf(stderr, "ply-worker: --connect ENDPOINT is required (see --help)\n");
        return 2;
    }
    char why[512];
    if (ply_endpoint_check(cfg.endpoint, why, sizeof why) < 0) {
        fprintf(stderr, "ply-worker: --connect: %s\n", why);
        return 2;
    }
    if (stay_or_go == 3) { /* one would be silently dropped */
        fprintf(stderr, "ply-worker: --reconnect and --exit-on-bye contradict each other: give "
                        "one (see --help)\n");
        return 2;
    }
    if (curve ? !(cert && server_key) : (cert || server_key)) {
        fprintf(stderr, "ply-worker: --curve needs --cert FILE and --server-key FILE, and they need --curve\n");
        return 2;
    }
    if (n_engine_opts && !engine) {
        fprintf(stderr, "ply-worker: --engine-option needs --engine CMD (see --help)\n");
        return 2;
    }
    ply_nnue_t *file_net = NULL; /* --eval-file's, freed at the end */
    if (eval_or_file(&cfg, engine, eval, eval_file, &file_net) < 0) return 2;
    /* started now, so that a bad --engine is a usage error here, not a failed job later */
    ply_analysis_t *backend =
        engine ? ply_analysis_uci_new(engine, engine_opts, n_engine_opts, why, sizeof why) : NULL;
    if (engine && !backend) {
        fprintf(stderr, "ply-worker: --engine %s: %s\n", engine, why);
        return 2;
    }
    cfg.search_backend = backend;
    ply_curve_client_t *keys = curve ? ply_curve_client_new(cert, server_key, why, sizeof why) : NULL;
    if (curve && !keys) {
        fprintf(stderr, "ply-worker: %s\n", why);
        ply_analysis_destroy(&backend);
        return 1;
    }
    cfg.curve = keys;
    ply_log_set_level(quiet ? PLY_LOG_ERROR : verbose >= 2 ? PLY_LOG_DEBUG : verbose ? PLY_LOG_INFO : PLY_LOG_WARN);
    pick_seed(seeded);

    if (connect_probe(&cfg) != 0) {
        ply_curve_client_destroy(&keys);
        ply_analysis_destroy(&backend);
        return 1;
    }

    zsys_handler_set(NULL); /* this program owns its signals, not czmq */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int rc = ply_worker_run(&cfg, &stop_flag);
    ply_curve_client_destroy(&keys);
    ply_analysis_destroy(&backend);
    ply_nnue_destroy(&file_net);
    if (rc < 0) {
        char when[48];
        ply_log_stamp(when, sizeof when);
        if (rc == PLY_ENOMEM) /* the table, mapped before connecting, is what is large */
            fprintf(stderr, "%sply-worker: out of memory (the --hash table is %u MiB)\n", when,
                    cfg.hash_mib);
        else
            fprintf(stderr, "%sply-worker: %s: %s%s\n", when, cfg.endpoint, ply_strerror(rc),
                    rc == PLY_ETIMEDOUT && curve
                        ? " (with --curve: is this worker's public key in the coordinator's "
                          "--allow directory?)"
                        : "");
        return 1;
    }
    return 0;
}
