/*
 * The ply command's sessions (see session.h). The embedded coordinator runs
 * its libuv loop on a thread of its own; the in-process worker runs
 * ply_worker_run on another; the main thread is the client. The three talk
 * only through ZeroMQ sockets, exactly as separate machines would.
 */
#include "session.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "coordinator.h"
#include "service.h"
#include "tt.h"
#include "util/error.h"

struct ply_session {
    ply_session_config_t cfg;
    ply_coordinator_t *coordinator; /* embedded only */
    pthread_t coordinator_thread;
    int coordinator_running;
    pthread_t worker_thread; /* in-process worker only */
    int worker_running;
    ply_worker_config_t worker_cfg;
    _Atomic int worker_stop;
    char endpoint[256];
    char worker_exe[PATH_MAX];
    ply_client_t *client;
    ply_analysis_t *backend; /* the in-process worker's UCI engine (engine_cmd), or NULL */
    /* --workers N with engine_cmd: "--engine CMD --engine-option N=V ..." for each */
    const char *worker_args[2 + 2 * PLY_SESSION_ENGINE_OPTIONS_MAX];
    size_t nworker_args;
};

static void *coordinator_main(void *arg)
{
    ply_coordinator_run(arg);
    return NULL;
}

static void *worker_main(void *arg)
{
    ply_session_t *s = arg;
    int rc = ply_worker_run(&s->worker_cfg, &s->worker_stop);
    if (rc < 0) fprintf(stderr, "ply: in-process worker stopped: %s\n", ply_strerror(rc));
    return NULL;
}

/* ply-worker lives next to ply (both install to the same bin directory, and
 * the build puts every program in build/bin); PLY_WORKER_EXE overrides. */
static int find_worker_exe(char *out, size_t len)
{
    const char *env = getenv("PLY_WORKER_EXE");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    char self[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
    if (n <= 0) return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return -1;
    strcpy(slash, "/ply-worker");
    if (strlen(self) + 1 > len) return -1;
    strcpy(out, self);
    return access(out, X_OK) == 0 ? 0 : -1;
}

/*
 * The local workers' table is mapped before anything starts, and unmapped at
 * once (its pages were never touched): a size the kernel refuses is a clear
 * error now, not an in-process worker that dies while the client waits for a
 * worker that will never come. Local workers are on this machine, so one
 * probe answers for each of them.
 */
static int check_table(unsigned hash_mib, char *why, size_t why_len)
{
    if (!hash_mib) return 0;
    ply_tt_t *probe = ply_tt_new((size_t)hash_mib << 20, 1);
    if (probe) {
        ply_tt_destroy(&probe);
        return 0;
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    snprintf(why, why_len,
             "cannot allocate the --hash table of %u MiB (this machine has %lld MiB of memory)",
             hash_mib, pages > 0 && page > 0 ? (long long)pages * page / (1 << 20) : -1LL);
    return PLY_ENOMEM;
}

/*
 * The local workers' search backend. Spawned workers are told on their command line, as
 * ply-worker --engine is; the in-process worker gets the same backend ply-worker makes from
 * it, started now so that an engine that cannot start is an error before any run.
 */
static int set_engine(ply_session_t *s, ply_coordinator_config_t *cc, char *why, size_t why_len)
{
    const ply_session_config_t *cfg = &s->cfg;
    if (!cfg->engine_cmd) return 0;
    if (cfg->nengine_options > PLY_SESSION_ENGINE_OPTIONS_MAX) {
        snprintf(why, why_len, "at most %d engine options", PLY_SESSION_ENGINE_OPTIONS_MAX);
        return PLY_EINVAL;
    }
    if (!cfg->workers) {
        char err[400];
        s->backend = ply_analysis_uci_new(cfg->engine_cmd, cfg->engine_options,
                                          (int)cfg->nengine_options, err, sizeof err);
        if (!s->backend) snprintf(why, why_len, "engine %s: %s", cfg->engine_cmd, err);
        return s->backend ? 0 : PLY_EWORKER;
    }
    s->worker_args[s->nworker_args++] = "--engine";
    s->worker_args[s->nworker_args++] = cfg->engine_cmd;
    for (size_t i = 0; i < cfg->nengine_options; i++) {
        s->worker_args[s->nworker_args++] = "--engine-option";
        s->worker_args[s->nworker_args++] = cfg->engine_options[i];
    }
    cc->worker_args = s->worker_args;
    cc->nworker_args = s->nworker_args;
    return 0;
}

static int start_embedded(ply_session_t *s, char *why, size_t why_len)
{
    static _Atomic int instance;
    ply_coordinator_config_t cc;
    ply_coordinator_config_init(&cc);
    char bind[96];
    snprintf(bind, sizeof bind, "inproc://ply-embedded-%d-%d", (int)getpid(),
             atomic_fetch_add(&instance, 1));
    cc.bind = bind;
    cc.handle_signals = 0; /* the ply command owns its signals */
    cc.state_path = s->cfg.state_path;
    int rc = check_table(s->cfg.hash_mib, why, why_len);
    if (rc < 0) return rc;
    if (s->cfg.workers) {
        if (find_worker_exe(s->worker_exe, sizeof s->worker_exe)) {
            snprintf(why, why_len,
                     "--workers needs the ply-worker program next to ply (or PLY_WORKER_EXE): not "
                     "found at %s",
                     s->worker_exe[0] ? s->worker_exe : "?");
            return PLY_ENOTFOUND;
        }
        cc.spawn_workers = s->cfg.workers;
        cc.worker_exe = s->worker_exe;
        cc.worker_threads = (unsigned)s->cfg.threads;
        cc.worker_hash_mib = s->cfg.hash_mib;
    }
    if (!s->cfg.workers) { /* the in-process worker's threads, for the automatic split */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        cc.local_threads = s->cfg.threads > 0 ? (unsigned)s->cfg.threads
                           : cores > 0        ? (unsigned)cores
                                              : 1;
    }
    rc = set_engine(s, &cc, why, why_len);
    if (rc < 0) return rc;
    s->coordinator = ply_coordinator_new(&cc, why, why_len);
    if (!s->coordinator) return PLY_ECONNECT;
    snprintf(s->endpoint, sizeof s->endpoint, "%s", ply_coordinator_endpoint(s->coordinator));
    if (pthread_create(&s->coordinator_thread, NULL, coordinator_main, s->coordinator) != 0) {
        snprintf(why, why_len, "cannot start the coordinator thread");
        return PLY_ENOMEM;
    }
    s->coordinator_running = 1;
    if (!s->cfg.workers) {
        ply_worker_config_init(&s->worker_cfg);
        s->worker_cfg.endpoint = s->endpoint;
        s->worker_cfg.threads = s->cfg.threads;
        s->worker_cfg.hash_mib = s->cfg.hash_mib;
        s->worker_cfg.worker_id = "embedded";
        s->worker_cfg.search_backend = s->backend;
        if (pthread_create(&s->worker_thread, NULL, worker_main, s) != 0) {
            snprintf(why, why_len, "cannot start the worker thread");
            return PLY_ENOMEM;
        }
        s->worker_running = 1;
    }
    return 0;
}

ply_session_t *ply_session_new(const ply_session_config_t *cfg, char *why, size_t why_len)
{
    ply_session_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->cfg = *cfg;
    if (!s->cfg.timeout_ms) s->cfg.timeout_ms = 30000;
    if (cfg->coordinator) {
        snprintf(s->endpoint, sizeof s->endpoint, "%s", cfg->coordinator);
    } else if (start_embedded(s, why, why_len) < 0) {
        ply_session_destroy(&s);
        return NULL;
    }
    s->client = ply_client_new(s->endpoint, why, why_len);
    if (!s->client) ply_session_destroy(&s);
    return s;
}

/* After a submit (@rc, *@accepted): wait for the run's result. */
static int wait_run(ply_session_t *s, int rc, ply_client_progress_fn progress, void *arg,
                    Ply__Accepted **accepted, Ply__RunResult **result, char *why, size_t why_len)
{
    if (rc < 0) return rc;
    rc = ply_client_wait(s->client, (*accepted)->run_id, progress, arg, (int)s->cfg.timeout_ms,
                         result, why, why_len);
    if (rc < 0) ply_session_free_reply(accepted, result);
    return rc;
}

int ply_session_perft(ply_session_t *s, const ply_perft_request_t *req,
                      ply_client_progress_fn progress, void *arg, Ply__Accepted **accepted,
                      Ply__RunResult **result, char *why, size_t why_len)
{
    *accepted = NULL;
    *result = NULL;
    /* A coordinator older than issue 27 plans before Accepted (a deep automatic split
     * can take the arbiter a few seconds), so the submit timeout is the session's. */
    int rc = ply_client_submit(s->client, req, (int)s->cfg.timeout_ms, accepted, why, why_len);
    return wait_run(s, rc, progress, arg, accepted, result, why, why_len);
}

int ply_session_search(ply_session_t *s, const ply_search_request_t *req,
                       ply_client_progress_fn progress, void *arg, Ply__Accepted **accepted,
                       Ply__RunResult **result, char *why, size_t why_len)
{
    *accepted = NULL;
    *result = NULL;
    int rc =
        ply_client_submit_search(s->client, req, (int)s->cfg.timeout_ms, accepted, why, why_len);
    return wait_run(s, rc, progress, arg, accepted, result, why, why_len);
}

int ply_session_submit(ply_session_t *s, const ply_perft_request_t *req, Ply__Accepted **accepted,
                       char *why, size_t why_len)
{
    *accepted = NULL;
    return ply_client_submit(s->client, req, (int)s->cfg.timeout_ms, accepted, why, why_len);
}

const char *ply_session_endpoint(const ply_session_t *s)
{
    return s ? s->endpoint : NULL;
}

ply_client_t *ply_session_client(ply_session_t *s)
{
    return s ? s->client : NULL;
}

unsigned ply_session_timeout_ms(const ply_session_t *s)
{
    return s ? s->cfg.timeout_ms : 0;
}

void ply_session_free_reply(Ply__Accepted **accepted, Ply__RunResult **result)
{
    if (accepted && *accepted) ply__accepted__free_unpacked(*accepted, NULL);
    if (result && *result) ply__run_result__free_unpacked(*result, NULL);
    if (accepted) *accepted = NULL;
    if (result) *result = NULL;
}

void ply_session_destroy(ply_session_t **sp)
{
    if (!sp || !*sp) return;
    ply_session_t *s = *sp;
    ply_client_destroy(&s->client);
    /* The coordinator stops first: its Bye wakes the in-process worker, which ends on it
     * when told to stop (else it would notice the flag at its next 100 ms poll). */
    atomic_store(&s->worker_stop, 1);
    if (s->coordinator_running) {
        ply_coordinator_stop(s->coordinator);
        pthread_join(s->coordinator_thread, NULL);
    }
    if (s->worker_running) pthread_join(s->worker_thread, NULL);
    ply_coordinator_destroy(&s->coordinator);
    ply_analysis_destroy(&s->backend); /* after the worker that used it */
    free(s);
    *sp = NULL;
}
