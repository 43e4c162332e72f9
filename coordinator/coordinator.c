/*
 * The coordinator service (coordinator.h): one libuv loop owning one ROUTER
 * socket, the runs, the workers and the spawned worker processes.
 *
 * Ownership (kept in plain structs so that a durable store can be added
 * without changing the shape):
 *   coordinator -> peers   (linked list; workers and clients, keyed by routing id)
 *               -> runs    (FIFO list of accepted runs: splitting, then active)
 *               -> finished (the last FINISHED_KEEP answers, for RESULT_REQUEST)
 *   run -> plan (split.h), one job_state_t per plan job, the requeue queue,
 *          the running sums (nodes, stats, divide per root move).
 *   worker peer -> the ids of the jobs it holds (inflight).
 * Invariant: a job is INFLIGHT exactly when its id is in the inflight list
 * of job.worker, with job.attempt the attempt that worker was sent.
 *
 * Scheduling is pull with credit: a READY{n} adds n to the worker's credit
 * (credit-based flow control, never above PLY_MAX_CREDIT with the jobs it
 * holds), each JOB takes one. Jobs go out round-robin over the workers with
 * credit, runs FIFO, each run biggest job first with re-queued jobs ahead.
 *
 * Runs finish (done, failed, canceled) by changing state; reap_runs() then
 * answers the client and frees them at the end of the current callback, so
 * that no list is modified while a caller walks it.
 *
 * The ZMQ_FD of the socket is edge-triggered: every callback ends in pump(),
 * which receives until ZMQ_EVENTS has no POLLIN, the check coming after any
 * send, since a send can consume the edge.
 */
#include "coordinator.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>
#include <uv.h>

#include "arbiter/arbiter.h"
#include "envelope.h"
#include "split.h"
#include "util/error.h"
#include "util/log.h"
#include "util/stats.h"
#include "util/time.h"

#define WHY_LEN       512
#define ENDPOINT_LEN  256
#define FINISHED_KEEP 64
#define KILL_GRACE_MS 2000
#define PROGRESS_MS   1000
/* Client peers hold no state; forget them after this many liveness periods of silence. */
#define CLIENT_FORGET_PERIODS 10

enum { PEER_WORKER = 1, PEER_CLIENT = 2 };
enum { JOB_PENDING = 0, JOB_INFLIGHT, JOB_DONE };
enum { RUN_SPLITTING = 0, RUN_ACTIVE, RUN_DONE, RUN_FAILED };
enum { C_NEW = 0, C_RUNNING, C_STOPPING, C_CLOSED };

enum {
    CNT_MESSAGES,
    CNT_MALFORMED,
    CNT_RESULTS_IGNORED,
    CNT_JOBS_SENT,
    CNT_JOBS_REQUEUED,
    CNT_WORKERS_JOINED,
    CNT_WORKERS_LOST,
    CNT_RUNS_DONE,
    CNT_RUNS_FAILED,
    CNT_N
};

typedef struct peer {
    struct peer *next;
    zframe_t *rid;
    int kind;
    char name[96]; /* "worker <worker_id>" or "client <routing id in hex>", for logs */
    char worker_id[PLY_MAX_TEXT + 1];
    uint64_t last_seen_ms;
    /* workers */
    uint32_t threads, hash_mib;
    uint32_t credit;
    uint64_t *inflight;
    size_t ninflight, capinflight;
    uint64_t jobs_done, nodes;
} peer_t;

typedef struct job_state {
    uint8_t state;
    uint32_t attempt;  /* hand-outs so far; the current attempt when INFLIGHT */
    uint32_t failures; /* attempts that failed (worker died, lease, worker ERROR) */
    peer_t *worker;    /* holder when INFLIGHT */
    uint64_t deadline_ms;
} job_state_t;

typedef struct ply_coordinator ply_coordinator_t;

typedef struct run {
    struct run *next;
    ply_coordinator_t *c;
    uint64_t id;
    zframe_t *client;
    int state;
    int detach, want_stats, chess960;
    unsigned depth;
    int want_split;
    char fen[PLY_ARB_FEN_MAX];
    ply_arb_pos_t root;
    /* the split, on the thread pool */
    uv_work_t work;
    atomic_int cancel;
    int canceled; /* by a client: report "canceled" */
    int split_rc;
    char split_why[WHY_LEN];
    /* the jobs */
    ply_split_t *plan;
    job_state_t *jobs;
    uint64_t job_base; /* job id of plan->jobs[0] */
    size_t next_pending;
    uint32_t *requeue;
    size_t rq_head, rq_len, rq_cap;
    size_t done, started;
    /* the sums */
    uint64_t nodes, worker_time_us;
    ply_stats_t stats;
    uint64_t *divide;          /* per root move */
    ply_stats_t *divide_stats; /* per root move, when stats */
    int divide_has_stats;
    uint32_t perft1_checked;
    uint64_t submitted_ms, accepted_ms;
    int fail_code;
    char fail_msg[WHY_LEN];
} run_t;

typedef struct finished {
    struct finished *next;
    uint64_t id;
    const char *state;
    uint32_t jobs_total, jobs_done;
    uint64_t nodes, elapsed_ms;
    zmsg_t *reply; /* the RunResult or the Error the client got */
} finished_t;

typedef struct proc {
    uv_process_t handle;
    ply_coordinator_t *c;
    unsigned index;
    int alive;
} proc_t;

struct ply_coordinator {
    ply_coordinator_config_t cfg;
    char *bind, *worker_exe;
    char endpoint[ENDPOINT_LEN];
    char worker_endpoint[ENDPOINT_LEN];
    zlist_t *bound; /* resolved endpoints (char *, autofree), unbound on destroy */
    zsock_t *router;
    uv_loop_t loop;
    int loop_ok;
    uv_poll_t poll;
    uv_timer_t tick;
    uv_timer_t kill_timer;
    uv_async_t async;
    uv_signal_t sig[2];
    int handles_ok, signals_ok;
    proc_t *procs;
    unsigned nprocs, procs_alive;
    peer_t *peers;
    unsigned nworkers;
    run_t *runs;
    finished_t *finished;
    unsigned nfinished;
    uint64_t next_run_id, next_job_base;
    uint64_t no_worker_since_ms, last_hb_ms, last_progress_ms;
    unsigned pending_work;
    int state;
    atomic_uint_fast64_t cnt[CNT_N];
};

static void pump(ply_coordinator_t *c);
static void begin_shutdown(ply_coordinator_t *c, const char *why);

/* ------------------------------------------------------------------ helpers */

static void fmt_why(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fmt_why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

static void count(ply_coordinator_t *c, int which)
{
    atomic_fetch_add_explicit(&c->cnt[which], 1, memory_order_relaxed);
}

static void rid_hex(zframe_t *rid, char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = rid ? zframe_size(rid) : 0, o = 0;
    const uint8_t *d = rid ? zframe_data(rid) : NULL;
    for (size_t i = 0; i < n && o + 3 < len; i++) {
        buf[o++] = hex[d[i] >> 4];
        buf[o++] = hex[d[i] & 15];
    }
    buf[o] = '\0';
}

static const char *seconds(unsigned ms, char *buf, size_t len)
{
    snprintf(buf, len, "%g", ms / 1000.0);
    return buf;
}

/* Frees an RunResult/RunProgress/Error zmsg copy and sends it to @rid. */
static int send_raw(ply_coordinator_t *c, zframe_t *rid, zmsg_t *stored)
{
    zmsg_t *copy = zmsg_dup(stored);
    if (!copy) return PLY_ENOMEM;
    zframe_t *id = zframe_dup(rid);
    if (!id || zmsg_prepend(copy, &id) != 0 || zmsg_send(&copy, c->router) != 0) {
        zframe_destroy(&id);
        zmsg_destroy(&copy);
        return PLY_EIO;
    }
    return 0;
}

static void send_msg(ply_coordinator_t *c, zframe_t *rid, ply_msg_t *m)
{
    int r = ply_msg_send_to(c->router, rid, m);
    if (r < 0) ply_debug("cannot send %s: %s", ply_msg_type_name(m), ply_strerror(r));
}

static void send_error(ply_coordinator_t *c, zframe_t *rid, int code, uint64_t run_id,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void send_error(ply_coordinator_t *c, zframe_t *rid, int code, uint64_t run_id,
                       const char *fmt, ...)
{
    char line[WHY_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (rid) ply_msg_send_error(c->router, rid, code, line, 0, 0, run_id);
}

/* -------------------------------------------------------------------- peers */

static peer_t *peer_find(ply_coordinator_t *c, zframe_t *rid)
{
    for (peer_t *p = c->peers; p; p = p->next)
        if (zframe_eq(p->rid, rid)) return p;
    return NULL;
}

static peer_t *peer_add(ply_coordinator_t *c, zframe_t *rid, int kind)
{
    peer_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->rid = zframe_dup(rid);
    if (!p->rid) {
        free(p);
        return NULL;
    }
    p->kind = kind;
    p->last_seen_ms = ply_time_ms();
    char hex[64];
    rid_hex(rid, hex, sizeof hex);
    snprintf(p->name, sizeof p->name, "%s %s", kind == PEER_WORKER ? "worker" : "client", hex);
    p->next = c->peers;
    c->peers = p;
    if (kind == PEER_WORKER) c->nworkers++;
    return p;
}

static void peer_unlink(ply_coordinator_t *c, peer_t *gone)
{
    for (peer_t **pp = &c->peers; *pp; pp = &(*pp)->next)
        if (*pp == gone) {
            *pp = gone->next;
            break;
        }
    if (gone->kind == PEER_WORKER && --c->nworkers == 0) c->no_worker_since_ms = ply_time_ms();
    zframe_destroy(&gone->rid);
    free(gone->inflight);
    free(gone);
}

static int inflight_add(peer_t *p, uint64_t job_id)
{
    if (p->ninflight == p->capinflight) {
        size_t cap = p->capinflight ? p->capinflight * 2 : 8;
        uint64_t *a = realloc(p->inflight, cap * sizeof *a);
        if (!a) return PLY_ENOMEM;
        p->inflight = a;
        p->capinflight = cap;
    }
    p->inflight[p->ninflight++] = job_id;
    return 0;
}

static void inflight_remove(peer_t *p, uint64_t job_id)
{
    for (size_t i = 0; i < p->ninflight; i++)
        if (p->inflight[i] == job_id) {
            p->inflight[i] = p->inflight[--p->ninflight];
            return;
        }
}

/* --------------------------------------------------------------------- runs */

static void run_fail(run_t *run, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Marks the run failed (the first reason wins); reap_runs() answers the client. */
static void run_fail(run_t *run, int code, const char *fmt, ...)
{
    if (run->state == RUN_FAILED || run->state == RUN_DONE) return;
    run->state = RUN_FAILED;
    run->fail_code = code < 0 ? code : PLY_EIO;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->fail_msg, sizeof run->fail_msg, fmt, ap);
    va_end(ap);
}

static run_t *job_find(ply_coordinator_t *c, uint64_t job_id, size_t *idx)
{
    for (run_t *run = c->runs; run; run = run->next)
        if (run->state == RUN_ACTIVE && job_id >= run->job_base &&
            job_id - run->job_base < run->plan->njobs) {
            *idx = (size_t)(job_id - run->job_base);
            return run;
        }
    return NULL;
}

static int requeue_push(run_t *run, size_t idx)
{
    if (run->rq_head && run->rq_head + run->rq_len == run->rq_cap) {
        memmove(run->requeue, run->requeue + run->rq_head, run->rq_len * sizeof *run->requeue);
        run->rq_head = 0;
    }
    if (run->rq_head + run->rq_len == run->rq_cap) {
        size_t cap = run->rq_cap ? run->rq_cap * 2 : 16;
        uint32_t *a = realloc(run->requeue, cap * sizeof *a);
        if (!a) return PLY_ENOMEM;
        run->requeue = a;
        run->rq_cap = cap;
    }
    run->requeue[run->rq_head + run->rq_len++] = (uint32_t)idx;
    return 0;
}

/*
 * Puts an in-flight job back in its run's queue. The caller has already
 * taken it out of the worker's inflight list. @failure: the attempt failed
 * (counts towards max_attempts); else the worker left politely.
 */
static void job_requeue(ply_coordinator_t *c, run_t *run, size_t idx, int failure,
                        const char *reason)
{
    job_state_t *j = &run->jobs[idx];
    j->state = JOB_PENDING;
    j->worker = NULL;
    if (failure) j->failures++;
    const char *fen = run->plan->jobs[idx].fen;
    if (failure && j->failures >= c->cfg.max_attempts) {
        run_fail(run, PLY_EWORKER, "job %" PRIu64 " (%s) failed %u times, last: %s",
                 run->job_base + idx, fen, j->failures, reason);
        return;
    }
    if (requeue_push(run, idx) != 0) {
        run_fail(run, PLY_ENOMEM, "out of memory re-queuing job %" PRIu64, run->job_base + idx);
        return;
    }
    count(c, CNT_JOBS_REQUEUED);
    ply_info("run %" PRIu64 ": job %" PRIu64 " attempt %u re-queued: %s", run->id,
             run->job_base + idx, j->attempt, reason);
}

/* The worker is gone (dead, BYE or re-HELLO): its jobs go back to their runs. */
static void worker_release_jobs(ply_coordinator_t *c, peer_t *p, int failure, const char *reason)
{
    uint64_t *ids = p->inflight;
    size_t n = p->ninflight;
    p->inflight = NULL;
    p->ninflight = p->capinflight = 0;
    p->credit = 0;
    for (size_t i = 0; i < n; i++) {
        size_t idx;
        run_t *run = job_find(c, ids[i], &idx);
        if (run && run->jobs[idx].state == JOB_INFLIGHT && run->jobs[idx].worker == p)
            job_requeue(c, run, idx, failure, reason);
    }
    free(ids);
}

static void worker_remove(ply_coordinator_t *c, peer_t *p, int failure, const char *reason)
{
    ply_log(failure ? PLY_LOG_WARN : PLY_LOG_INFO, "%s %s; %zu job(s) re-queued", p->name, reason,
            p->ninflight);
    worker_release_jobs(c, p, failure, reason);
    peer_unlink(c, p);
}

static void run_free(run_t *run)
{
    zframe_destroy(&run->client);
    ply_split_destroy(&run->plan);
    free(run->jobs);
    free(run->requeue);
    free(run->divide);
    free(run->divide_stats);
    free(run);
}

static void finished_add(ply_coordinator_t *c, run_t *run, const char *state, zmsg_t *reply)
{
    finished_t *f = calloc(1, sizeof *f);
    if (!f) {
        zmsg_destroy(&reply);
        return;
    }
    f->id = run->id;
    f->state = state;
    f->jobs_total = run->plan ? (uint32_t)run->plan->njobs : 0;
    f->jobs_done = (uint32_t)run->done;
    f->nodes = run->nodes;
    f->elapsed_ms = ply_time_ms() - run->submitted_ms;
    f->reply = reply;
    f->next = c->finished;
    c->finished = f;
    if (++c->nfinished > FINISHED_KEEP) {
        finished_t **pp = &c->finished;
        for (unsigned i = 1; i < FINISHED_KEEP; i++) pp = &(*pp)->next;
        finished_t *old = *pp;
        *pp = NULL;
        while (old) {
            finished_t *next = old->next;
            zmsg_destroy(&old->reply);
            free(old);
            c->nfinished--;
            old = next;
        }
    }
}

static finished_t *finished_find(ply_coordinator_t *c, uint64_t id)
{
    for (finished_t *f = c->finished; f; f = f->next)
        if (f->id == id) return f;
    return NULL;
}

/* --------------------------------------------------------------- messages */

static void stats_proto_array(Ply__Stats *st, const ply_stats_t *in)
{
    *st = (Ply__Stats)PLY__STATS__INIT;
    ply_msg_stats_to_proto(st, in);
}

/* The RunResult of a finished run, encoded (caller owns), or NULL. */
static zmsg_t *build_result(ply_coordinator_t *c, run_t *run)
{
    const ply_split_t *plan = run->plan;
    int n = plan->nroot;
    Ply__DivideEntry *ent = calloc((size_t)n + 1, sizeof *ent);
    Ply__DivideEntry **ptr = calloc((size_t)n + 1, sizeof *ptr);
    Ply__Stats *dst = calloc((size_t)n + 1, sizeof *dst);
    zmsg_t *z = NULL;
    if (ent && ptr && dst) {
        for (int i = 0; i < n; i++) {
            ent[i] = (Ply__DivideEntry)PLY__DIVIDE_ENTRY__INIT;
            ent[i].move = (char *)plan->root_uci[i];
            ent[i].has_nodes = 1;
            ent[i].nodes = run->divide[i];
            if (run->want_stats && run->divide_has_stats) {
                stats_proto_array(&dst[i], &run->divide_stats[i]);
                ent[i].stats = &dst[i];
            }
            ptr[i] = &ent[i];
        }
        Ply__Stats total;
        stats_proto_array(&total, &run->stats);
        Ply__Verification ver = PLY__VERIFICATION__INIT;
        ver.mode = "none";
        ver.has_arbiter_plies = 1, ver.arbiter_plies = plan->split_depth;
        ver.has_perft1_checked = 1, ver.perft1_checked = run->perft1_checked;
        ver.has_jobs = 1, ver.jobs = (uint32_t)plan->njobs;
        ver.has_mismatches = 1, ver.mismatches = 0;
        Ply__RunResult rr = PLY__RUN_RESULT__INIT;
        rr.has_run_id = 1, rr.run_id = run->id;
        rr.fen = run->fen;
        rr.has_depth = 1, rr.depth = run->depth;
        rr.has_nodes = 1, rr.nodes = run->nodes;
        if (run->want_stats) rr.stats = &total;
        rr.n_divide = (size_t)n;
        rr.divide = ptr;
        rr.has_jobs = 1, rr.jobs = (uint32_t)plan->njobs;
        rr.has_split_depth = 1, rr.split_depth = plan->split_depth;
        rr.has_time_ms = 1, rr.time_ms = ply_time_ms() - run->submitted_ms;
        rr.verification = &ver;
        rr.has_chess960 = 1, rr.chess960 = run->chess960 != 0;
        rr.has_worker_time_us = 1, rr.worker_time_us = run->worker_time_us;
        ply_msg_t m = PLY__MESSAGE__INIT;
        m.body_case = PLY__MESSAGE__BODY_RUN_RESULT;
        m.run_result = &rr;
        z = ply_msg_encode(&m);
    }
    free(ent);
    free(ptr);
    free(dst);
    (void)c;
    return z;
}

static zmsg_t *build_error(int code, const char *message, uint64_t run_id)
{
    char line[PLY_MAX_TEXT + 1];
    ply_msg_text_sanitize(line, sizeof line, message);
    Ply__Error e = PLY__ERROR__INIT;
    e.has_code = 1, e.code = code;
    e.message = line[0] ? line : (char *)ply_strerror(code);
    e.has_run_id = 1, e.run_id = run_id;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ERROR;
    m.error = &e;
    return ply_msg_encode(&m);
}

static const char *run_state_name(const run_t *run)
{
    if (run->state == RUN_SPLITTING) return "splitting";
    if (run->state == RUN_DONE) return "done";
    if (run->state == RUN_FAILED) return run->canceled ? "canceled" : "failed";
    return run->started ? "running" : "queued";
}

/* Sends a RunProgress about @run (or the finished record @f) to @rid, with the worker list when
 * asked. */
static void send_progress(ply_coordinator_t *c, zframe_t *rid, const run_t *run,
                          const finished_t *f, int with_workers)
{
    Ply__RunProgress rp = PLY__RUN_PROGRESS__INIT;
    uint32_t threads = 0;
    for (peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER) threads += p->threads;
    rp.has_run_id = 1;
    if (run) {
        rp.run_id = run->id;
        rp.state = (char *)run_state_name(run);
        rp.has_jobs_total = 1, rp.jobs_total = run->plan ? (uint32_t)run->plan->njobs : 0;
        rp.has_jobs_done = 1, rp.jobs_done = (uint32_t)run->done;
        rp.has_nodes = 1, rp.nodes = run->nodes;
        rp.has_elapsed_ms = 1, rp.elapsed_ms = ply_time_ms() - run->submitted_ms;
    } else {
        rp.run_id = f->id;
        rp.state = (char *)f->state;
        rp.has_jobs_total = 1, rp.jobs_total = f->jobs_total;
        rp.has_jobs_done = 1, rp.jobs_done = f->jobs_done;
        rp.has_nodes = 1, rp.nodes = f->nodes;
        rp.has_elapsed_ms = 1, rp.elapsed_ms = f->elapsed_ms;
    }
    rp.has_workers = 1, rp.workers = c->nworkers;
    rp.has_threads = 1, rp.threads = threads;
    Ply__WorkerStatus *ws = NULL;
    Ply__WorkerStatus **wp = NULL;
    if (with_workers && c->nworkers) {
        ws = calloc(c->nworkers, sizeof *ws);
        wp = calloc(c->nworkers, sizeof *wp);
        if (ws && wp) {
            size_t i = 0;
            for (peer_t *p = c->peers; p && i < c->nworkers; p = p->next) {
                if (p->kind != PEER_WORKER) continue;
                ws[i] = (Ply__WorkerStatus)PLY__WORKER_STATUS__INIT;
                ws[i].worker_id = p->worker_id;
                ws[i].has_threads = 1, ws[i].threads = p->threads;
                ws[i].has_jobs_in_flight = 1, ws[i].jobs_in_flight = (uint32_t)p->ninflight;
                ws[i].has_jobs_done = 1, ws[i].jobs_done = p->jobs_done;
                ws[i].has_nodes = 1, ws[i].nodes = p->nodes;
                wp[i] = &ws[i];
                i++;
            }
            rp.n_worker = i;
            rp.worker = wp;
        }
    }
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RUN_PROGRESS;
    m.run_progress = &rp;
    send_msg(c, rid, &m);
    free(ws);
    free(wp);
}

/* ---------------------------------------------------------------- reaping */

/* Takes a finished run's jobs out of the workers' lists: late results become "unknown job". */
static void withdraw_jobs(ply_coordinator_t *c, const run_t *run)
{
    if (!run->plan || !run->plan->njobs) return;
    for (peer_t *p = c->peers; p; p = p->next) {
        for (size_t i = 0; i < p->ninflight;) {
            if (p->inflight[i] >= run->job_base &&
                p->inflight[i] - run->job_base < run->plan->njobs)
                p->inflight[i] = p->inflight[--p->ninflight];
            else
                i++;
        }
    }
}

/* Answers and frees every run that is done or failed. */
static void reap_runs(ply_coordinator_t *c)
{
    run_t **pp = &c->runs;
    while (*pp) {
        run_t *run = *pp;
        if (run->state != RUN_DONE && run->state != RUN_FAILED) {
            pp = &run->next;
            continue;
        }
        *pp = run->next;
        withdraw_jobs(c, run);
        zmsg_t *reply;
        const char *state;
        if (run->state == RUN_DONE) {
            reply = build_result(c, run);
            state = "done";
            count(c, CNT_RUNS_DONE);
            ply_info("run %" PRIu64 ": perft(%u) = %" PRIu64 " (%zu jobs, split %u, %" PRIu64
                     " ms)",
                     run->id, run->depth, run->nodes, run->plan->njobs, run->plan->split_depth,
                     ply_time_ms() - run->submitted_ms);
            if (!reply) {
                reply = build_error(PLY_ENOMEM, "cannot encode the result", run->id);
                state = "failed";
            }
        } else {
            reply = build_error(run->fail_code, run->fail_msg, run->id);
            state = run->canceled ? "canceled" : "failed";
            count(c, CNT_RUNS_FAILED);
            ply_log(run->canceled ? PLY_LOG_INFO : PLY_LOG_WARN, "run %" PRIu64 " %s: %s", run->id,
                    state, run->fail_msg);
        }
        if (reply && run->client) send_raw(c, run->client, reply);
        if (reply) finished_add(c, run, state, reply);
        run_free(run);
    }
}

/* ---------------------------------------------------------------- dispatch */

static int next_job(ply_coordinator_t *c, run_t **out, size_t *idx)
{
    for (run_t *run = c->runs; run; run = run->next) {
        if (run->state != RUN_ACTIVE) continue;
        if (run->rq_len) {
            *idx = run->requeue[run->rq_head++];
            if (--run->rq_len == 0) run->rq_head = 0;
            *out = run;
            return 1;
        }
        if (run->next_pending < run->plan->njobs) {
            *idx = run->next_pending++;
            *out = run;
            return 1;
        }
    }
    return 0;
}

static int handout(ply_coordinator_t *c, peer_t *p, run_t *run, size_t idx)
{
    const ply_split_t *plan = run->plan;
    job_state_t *j = &run->jobs[idx];
    uint64_t job_id = run->job_base + idx;
    if (inflight_add(p, job_id) != 0) return PLY_ENOMEM;
    Ply__Job job = PLY__JOB__INIT;
    job.has_job_id = 1, job.job_id = job_id;
    job.has_attempt = 1, job.attempt = j->attempt + 1;
    job.has_kind = 1, job.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    job.fen = plan->jobs[idx].fen;
    job.has_depth = 1, job.depth = plan->job_depth;
    job.has_chess960 = 1, job.chess960 = run->chess960 != 0;
    job.has_stats = 1, job.stats = run->want_stats != 0;
    job.has_divide = 1, job.divide = plan->split_depth == 0;
    job.has_run_id = 1, job.run_id = run->id;
    if (c->cfg.lease_ms) {
        job.has_lease_ms = 1;
        job.lease_ms = c->cfg.lease_ms;
    }
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_JOB;
    m.job = &job;
    int r = ply_msg_send_to(c->router, p->rid, &m);
    if (r < 0) {
        p->ninflight--;
        return r;
    }
    j->attempt++;
    j->state = JOB_INFLIGHT;
    j->worker = p;
    j->deadline_ms = c->cfg.lease_ms ? ply_time_ms() + c->cfg.lease_ms : 0;
    if (j->attempt == 1) run->started++;
    p->credit--;
    count(c, CNT_JOBS_SENT);
    ply_debug("run %" PRIu64 ": job %" PRIu64 " attempt %u -> %s", run->id, job_id, j->attempt,
              p->name);
    return 0;
}

/* Hands out jobs one per worker per round, while workers have credit and runs have jobs. */
static void dispatch(ply_coordinator_t *c)
{
    int progress = 1;
    while (progress) {
        progress = 0;
        for (peer_t *p = c->peers; p; p = p->next) {
            if (p->kind != PEER_WORKER || p->credit == 0) continue;
            run_t *run;
            size_t idx;
            if (!next_job(c, &run, &idx)) return;
            if (handout(c, p, run, idx) == 0) {
                progress = 1;
            } else if (requeue_push(run, idx) != 0) {
                run_fail(run, PLY_ENOMEM, "out of memory");
            }
        }
    }
}

/* ------------------------------------------------------------ worker messages */

static void on_hello(ply_coordinator_t *c, zframe_t *rid, peer_t *p, const Ply__Hello *h)
{
    if (h->protocol != PLY_PROTOCOL_VERSION) {
        count(c, CNT_MALFORMED);
        send_error(c, rid, PLY_EVERSION, 0,
                   "protocol %u not supported: this coordinator speaks %d (%s)", h->protocol,
                   PLY_PROTOCOL_VERSION, PLY_PROTOCOL_ID);
        return;
    }
    if (p && p->kind != PEER_WORKER) {
        count(c, CNT_MALFORMED);
        send_error(c, rid, PLY_ESTATE, 0, "HELLO from a peer that has spoken as a client");
        return;
    }
    if (p) {
        worker_release_jobs(c, p, 0, "worker said HELLO again");
    } else if (!(p = peer_add(c, rid, PEER_WORKER))) {
        send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        return;
    }
    snprintf(p->name, sizeof p->name, "worker %s", h->worker_id);
    snprintf(p->worker_id, sizeof p->worker_id, "%s", h->worker_id);
    p->threads = h->threads;
    p->hash_mib = h->hash_mib;
    count(c, CNT_WORKERS_JOINED);
    ply_info("%s joined: %u threads, %u MiB hash, build %s, zobrist %016" PRIx64, p->name,
             h->threads, h->hash_mib, h->build ? h->build : "?", h->zobrist_checksum);
    Ply__Welcome w = PLY__WELCOME__INIT;
    w.has_heartbeat_ms = 1, w.heartbeat_ms = c->cfg.heartbeat_ms;
    w.has_liveness = 1, w.liveness = c->cfg.liveness;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_WELCOME;
    m.welcome = &w;
    send_msg(c, rid, &m);
}

static void on_ready(peer_t *p, const Ply__Ready *r)
{
    uint64_t room = PLY_MAX_CREDIT > p->ninflight ? PLY_MAX_CREDIT - p->ninflight : 0;
    uint64_t credit = (uint64_t)p->credit + r->credit;
    p->credit = (uint32_t)(credit < room ? credit : room);
}

static void ignore_result(ply_coordinator_t *c, peer_t *p, const Ply__Result *r, const char *what)
{
    count(c, CNT_RESULTS_IGNORED);
    /* a superseded attempt is normal after a lease expired; an unknown job is not */
    ply_log(strcmp(what, "unknown") == 0 ? PLY_LOG_WARN : PLY_LOG_INFO,
            "ignoring RESULT from %s for %s job %" PRIu64 " attempt %u", p->name, what, r->job_id,
            r->attempt);
}

/* s = 0: the worker's divide becomes the run's, checked against the arbiter's root moves. */
static int take_divide(run_t *run, const Ply__Result *r, char *why, size_t why_len)
{
    const ply_split_t *plan = run->plan;
    if ((int)r->n_divide != plan->nroot) {
        fmt_why(why, why_len, "divide has %zu moves, the arbiter has %d", r->n_divide, plan->nroot);
        return PLY_EMISMATCH;
    }
    uint64_t sum = 0;
    int have_stats = 1;
    uint8_t seen[PLY_ARB_MAX_MOVES] = {0};
    for (size_t i = 0; i < r->n_divide; i++) {
        const Ply__DivideEntry *e = r->divide[i];
        ply_arb_move_t mv;
        int k = -1;
        if (ply_arb_move_from_uci(&plan->root, e->move, &mv) == 0)
            for (int m = 0; m < plan->nroot; m++)
                if (plan->root_moves[m].from == mv.from && plan->root_moves[m].to == mv.to &&
                    plan->root_moves[m].promo == mv.promo &&
                    /* Chess960: a king step and a castle may share from and to */
                    ((plan->root_moves[m].flags ^ mv.flags) & PLY_ARB_MOVE_CASTLE) == 0)
                    k = m;
        if (k < 0) {
            fmt_why(why, why_len, "divide move %s is not legal", e->move);
            return PLY_EMISMATCH;
        }
        if (seen[k]++) {
            fmt_why(why, why_len, "divide move %s appears twice", e->move);
            return PLY_EMISMATCH;
        }
        run->divide[k] = e->nodes;
        sum += e->nodes;
        if (run->want_stats && e->stats)
            ply_msg_stats_from_proto(&run->divide_stats[k], e->stats);
        else
            have_stats = 0;
    }
    if (sum != r->nodes) {
        fmt_why(why, why_len, "divide sums to %" PRIu64 " but nodes = %" PRIu64, sum, r->nodes);
        return PLY_EMISMATCH;
    }
    run->divide_has_stats = have_stats && run->want_stats;
    return 0;
}

static void on_result(ply_coordinator_t *c, peer_t *p, const Ply__Result *r)
{
    size_t idx;
    run_t *run = job_find(c, r->job_id, &idx);
    if (!run) {
        inflight_remove(p, r->job_id);
        ignore_result(c, p, r, "unknown");
        return;
    }
    job_state_t *j = &run->jobs[idx];
    if (j->state != JOB_INFLIGHT || j->attempt != r->attempt || j->worker != p) {
        ignore_result(c, p, r, "a superseded attempt of");
        return;
    }
    inflight_remove(p, r->job_id);
    p->jobs_done++;
    p->nodes += r->nodes;
    const ply_split_job_t *sj = &run->plan->jobs[idx];
    char why[WHY_LEN];
    if (r->perft1 != sj->perft1) {
        j->state = JOB_DONE;
        run_fail(run, PLY_EMISMATCH,
                 "perft(1) mismatch at %s: %s says %u, the arbiter says %u (job %" PRIu64
                 ", attempt %u)",
                 sj->fen, p->name, r->perft1, sj->perft1, r->job_id, r->attempt);
        return;
    }
    ply_stats_t st = {0};
    if (run->want_stats) {
        if (!r->stats) {
            job_requeue(c, run, idx, 1, "the worker returned no statistics");
            return;
        }
        ply_msg_stats_from_proto(&st, r->stats);
        if (st.v[PLY_STAT_nodes] != r->nodes) {
            j->state = JOB_DONE;
            run_fail(run, PLY_EMISMATCH,
                     "%s at %s: stats.nodes = %" PRIu64 " but nodes = %" PRIu64 " (job %" PRIu64
                     ")",
                     p->name, sj->fen, st.v[PLY_STAT_nodes], r->nodes, r->job_id);
            return;
        }
    }
    if (run->plan->split_depth == 0) {
        if (take_divide(run, r, why, sizeof why) < 0) {
            j->state = JOB_DONE;
            run_fail(run, PLY_EMISMATCH, "%s at %s: %s (job %" PRIu64 ")", p->name, sj->fen, why,
                     r->job_id);
            return;
        }
    } else {
        for (uint32_t k = 0; k < sj->nmult; k++) {
            run->divide[sj->mult[k].root] += sj->mult[k].count * r->nodes;
            if (run->want_stats)
                ply_stats_add(&run->divide_stats[sj->mult[k].root], &st, sj->mult[k].count);
        }
        run->divide_has_stats = run->want_stats;
    }
    run->nodes += sj->multiplicity * r->nodes;
    if (run->want_stats) ply_stats_add(&run->stats, &st, sj->multiplicity);
    run->worker_time_us += r->time_us;
    run->perft1_checked++;
    j->state = JOB_DONE;
    j->worker = NULL;
    if (++run->done == run->plan->njobs) run->state = RUN_DONE;
}

static void on_worker_error(ply_coordinator_t *c, peer_t *p, const Ply__Error *e)
{
    size_t idx;
    run_t *run = e->has_job_id ? job_find(c, e->job_id, &idx) : NULL;
    if (!run) {
        ply_warn("%s reports %s: %s", p->name, ply_err_name(e->code), e->message);
        return;
    }
    job_state_t *j = &run->jobs[idx];
    if (j->state != JOB_INFLIGHT || j->worker != p ||
        (e->has_attempt && e->attempt != j->attempt)) {
        ply_info("%s reports an error on a job it does not hold (%" PRIu64 "): %s", p->name,
                 e->job_id, e->message);
        return;
    }
    inflight_remove(p, e->job_id);
    char reason[WHY_LEN];
    snprintf(reason, sizeof reason, "%s: %s", p->name, e->message);
    job_requeue(c, run, idx, 1, reason);
}

static void on_worker_message(ply_coordinator_t *c, zframe_t *rid, peer_t *p, ply_msg_t *msg)
{
    if (!p || p->kind != PEER_WORKER) {
        if (msg->body_case == PLY__MESSAGE__BODY_HEARTBEAT) return; /* a client's keepalive */
        if (msg->body_case == PLY__MESSAGE__BODY_BYE) {
            if (p) peer_unlink(c, p);
            return;
        }
        count(c, CNT_MALFORMED);
        send_error(c, rid, PLY_ESTATE, 0, "%s before HELLO: send HELLO first",
                   ply_msg_type_name(msg));
        return;
    }
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_READY:
        on_ready(p, msg->ready);
        break;
    case PLY__MESSAGE__BODY_RESULT:
        on_result(c, p, msg->result);
        break;
    case PLY__MESSAGE__BODY_ERROR:
        on_worker_error(c, p, msg->error);
        break;
    case PLY__MESSAGE__BODY_BYE: {
        char reason[WHY_LEN];
        snprintf(reason, sizeof reason, "left (%s)", msg->bye->reason ? msg->bye->reason : "bye");
        worker_remove(c, p, 0, reason);
        break;
    }
    default: /* PROGRESS, HEARTBEAT: liveness only (last_seen already updated) */
        break;
    }
}

/* ------------------------------------------------------------ client messages */

static void split_work(uv_work_t *w)
{
    run_t *run = w->data;
    run->split_rc = ply_split_plan(&run->root, run->depth, run->want_split, &run->cancel,
                                   &run->plan, run->split_why, sizeof run->split_why);
}

static int run_setup(ply_coordinator_t *c, run_t *run)
{
    const ply_split_t *plan = run->plan;
    run->jobs = calloc(plan->njobs ? plan->njobs : 1, sizeof *run->jobs);
    run->divide = calloc((size_t)plan->nroot + 1, sizeof *run->divide);
    run->divide_stats = calloc((size_t)plan->nroot + 1, sizeof *run->divide_stats);
    if (!run->jobs || !run->divide || !run->divide_stats) return PLY_ENOMEM;
    run->job_base = c->next_job_base;
    c->next_job_base += plan->njobs;
    run->accepted_ms = ply_time_ms();
    run->state = plan->njobs ? RUN_ACTIVE : RUN_DONE;
    return 0;
}

static void split_done(uv_work_t *w, int status)
{
    run_t *run = w->data;
    ply_coordinator_t *c = run->c;
    c->pending_work--;
    if (status == UV_ECANCELED || c->state != C_RUNNING) {
        run_fail(run, PLY_ECANCELED, "coordinator stopping");
    } else if (run->canceled) {
        run_fail(run, PLY_ECANCELED, "run %" PRIu64 " canceled", run->id);
    } else if (run->split_rc < 0) {
        run_fail(run, run->split_rc, "cannot split perft(%u) of %s: %s", run->depth, run->fen,
                 run->split_why);
    } else if (run_setup(c, run) < 0) {
        run_fail(run, PLY_ENOMEM, "out of memory setting up run %" PRIu64, run->id);
    } else {
        const ply_split_t *plan = run->plan;
        ply_info("run %" PRIu64 ": perft(%u) of %s: split %u plies, %" PRIu64
                 " paths, %zu jobs, estimate %" PRIu64 " nodes",
                 run->id, run->depth, run->fen, plan->split_depth, plan->paths, plan->njobs,
                 plan->estimate);
        Ply__Accepted a = PLY__ACCEPTED__INIT;
        a.has_run_id = 1, a.run_id = run->id;
        a.has_jobs = 1, a.jobs = (uint32_t)plan->njobs;
        a.has_split_depth = 1, a.split_depth = plan->split_depth;
        a.has_paths = 1, a.paths = plan->paths;
        a.fen = run->fen;
        ply_msg_t m = PLY__MESSAGE__INIT;
        m.body_case = PLY__MESSAGE__BODY_ACCEPTED;
        m.accepted = &a;
        send_msg(c, run->client, &m);
    }
    pump(c);
}

static void on_submit(ply_coordinator_t *c, zframe_t *rid, const Ply__Submit *s)
{
    ply_arb_pos_t root;
    char why[WHY_LEN];
    int r = ply_arb_from_fen(&root, s->fen, s->chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why);
    if (r < 0) {
        send_error(c, rid, r, 0, "bad position \"%s\": %s", s->fen, why);
        return;
    }
    run_t *run = calloc(1, sizeof *run);
    if (!run || !(run->client = zframe_dup(rid))) {
        free(run);
        send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        return;
    }
    run->c = c;
    run->id = c->next_run_id++;
    run->root = root;
    run->depth = s->depth;
    run->want_split = s->has_split_depth ? s->split_depth : -1;
    run->want_stats = s->stats;
    run->chess960 = s->chess960 || root.chess960;
    run->detach = s->detach;
    run->submitted_ms = ply_time_ms();
    atomic_init(&run->cancel, 0);
    if (ply_arb_to_fen(&root, run->fen, sizeof run->fen) < 0)
        snprintf(run->fen, sizeof run->fen, "%s", s->fen);
    run->work.data = run;
    if (uv_queue_work(&c->loop, &run->work, split_work, split_done) != 0) {
        send_error(c, rid, PLY_ENOMEM, 0, "cannot start the split");
        run_free(run);
        return;
    }
    c->pending_work++;
    run_t **pp = &c->runs;
    while (*pp) pp = &(*pp)->next;
    *pp = run;
    ply_info("run %" PRIu64 ": perft(%u) of %s submitted%s%s", run->id, run->depth, run->fen,
             s->client_id ? " by " : "", s->client_id ? s->client_id : "");
}

static run_t *run_find(ply_coordinator_t *c, uint64_t id)
{
    for (run_t *run = c->runs; run; run = run->next)
        if (run->id == id) return run;
    return NULL;
}

static void on_status(ply_coordinator_t *c, zframe_t *rid, const Ply__StatusRequest *s)
{
    if (s->has_run_id) {
        run_t *run = run_find(c, s->run_id);
        finished_t *f = run ? NULL : finished_find(c, s->run_id);
        if (run || f)
            send_progress(c, rid, run, f, 1);
        else
            send_error(c, rid, PLY_ENOTFOUND, s->run_id, "no run %" PRIu64, s->run_id);
        return;
    }
    int sent = 0;
    for (run_t *run = c->runs; run; run = run->next, sent++) send_progress(c, rid, run, NULL, 1);
    if (!sent && c->finished)
        send_progress(c, rid, NULL, c->finished, 1);
    else if (!sent)
        send_error(c, rid, PLY_ENOTFOUND, 0, "no runs yet (%u workers connected)", c->nworkers);
}

static void on_result_request(ply_coordinator_t *c, zframe_t *rid, const Ply__ResultRequest *q)
{
    run_t *run = run_find(c, q->run_id);
    finished_t *f = run ? NULL : finished_find(c, q->run_id);
    if (run)
        send_progress(c, rid, run, NULL, 0);
    else if (f)
        send_raw(c, rid, f->reply);
    else
        send_error(c, rid, PLY_ENOTFOUND, q->run_id, "no run %" PRIu64 " (or it is too old)",
                   q->run_id);
}

static void on_cancel(ply_coordinator_t *c, zframe_t *rid, const Ply__Cancel *q)
{
    run_t *run = run_find(c, q->run_id);
    if (!run) {
        if (finished_find(c, q->run_id))
            send_error(c, rid, PLY_ESTATE, q->run_id, "run %" PRIu64 " has already finished",
                       q->run_id);
        else
            send_error(c, rid, PLY_ENOTFOUND, q->run_id, "no run %" PRIu64, q->run_id);
        return;
    }
    run->canceled = 1;
    if (run->state == RUN_SPLITTING) {
        atomic_store(&run->cancel, 1); /* split_done answers */
    } else {
        run_fail(run, PLY_ECANCELED, "run %" PRIu64 " canceled", run->id);
    }
    send_progress(c, rid, run, NULL, 0);
}

static void on_client_message(ply_coordinator_t *c, zframe_t *rid, peer_t *p, ply_msg_t *msg)
{
    if (p && p->kind == PEER_WORKER) {
        count(c, CNT_MALFORMED);
        send_error(c, rid, PLY_ESTATE, 0, "%s from a worker: workers may not send it",
                   ply_msg_type_name(msg));
        return;
    }
    if (!p) peer_add(c, rid, PEER_CLIENT); /* fails only on ENOMEM: served anyway */
    if (c->state != C_RUNNING) {
        send_error(c, rid, PLY_ESTATE, 0, "coordinator stopping");
        return;
    }
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_SUBMIT:
        on_submit(c, rid, msg->submit);
        break;
    case PLY__MESSAGE__BODY_STATUS:
        on_status(c, rid, msg->status);
        break;
    case PLY__MESSAGE__BODY_RESULT_REQUEST:
        on_result_request(c, rid, msg->result_request);
        break;
    default:
        on_cancel(c, rid, msg->cancel);
        break;
    }
}

/* Receives and handles one message (there is one: ZMQ_EVENTS said POLLIN). */
static void handle_one(ply_coordinator_t *c)
{
    zframe_t *rid = NULL;
    ply_msg_t *msg = NULL;
    char why[WHY_LEN];
    int r = ply_msg_recv_from(c->router, &rid, &msg, why, sizeof why);
    if (r == PLY_EIO && !rid) return;
    count(c, CNT_MESSAGES);
    peer_t *p = rid ? peer_find(c, rid) : NULL;
    if (p) p->last_seen_ms = ply_time_ms();
    if (r < 0) {
        char hex[64];
        rid_hex(rid, hex, sizeof hex);
        count(c, CNT_MALFORMED);
        ply_warn("malformed message from %s: %s", p ? p->name : hex, why);
        if (rid) send_error(c, rid, r, 0, "%s (this coordinator speaks %s)", why, PLY_PROTOCOL_ID);
        zframe_destroy(&rid);
        return;
    }
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_HELLO:
        on_hello(c, rid, p, msg->hello);
        break;
    case PLY__MESSAGE__BODY_READY:
    case PLY__MESSAGE__BODY_PROGRESS:
    case PLY__MESSAGE__BODY_RESULT:
    case PLY__MESSAGE__BODY_HEARTBEAT:
    case PLY__MESSAGE__BODY_ERROR:
    case PLY__MESSAGE__BODY_BYE:
        on_worker_message(c, rid, p, msg);
        break;
    case PLY__MESSAGE__BODY_SUBMIT:
    case PLY__MESSAGE__BODY_STATUS:
    case PLY__MESSAGE__BODY_RESULT_REQUEST:
    case PLY__MESSAGE__BODY_CANCEL:
        on_client_message(c, rid, p, msg);
        break;
    default:
        count(c, CNT_MALFORMED);
        send_error(c, rid, PLY_EPROTO, 0, "%s is not accepted by the coordinator",
                   ply_msg_type_name(msg));
        break;
    }
    ply_msg_free(&msg);
    zframe_destroy(&rid);
}

/*
 * The end of every callback: answer finished runs, hand out jobs, and receive
 * until ZMQ_EVENTS shows no POLLIN. The events check comes last, after any
 * send, because the socket's fd is edge-triggered.
 */
static void pump(ply_coordinator_t *c)
{
    for (;;) {
        reap_runs(c);
        if (c->state != C_RUNNING) return;
        dispatch(c);
        if (!(zsock_events(c->router) & ZMQ_POLLIN)) return;
        handle_one(c);
    }
}

/* ------------------------------------------------------------------ timers */

static void send_heartbeats(ply_coordinator_t *c)
{
    Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HEARTBEAT;
    m.heartbeat = &hb;
    for (peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER) send_msg(c, p->rid, &m);
    for (run_t *run = c->runs; run; run = run->next)
        if (!run->detach) send_msg(c, run->client, &m);
}

static void check_peers(ply_coordinator_t *c, uint64_t now)
{
    uint64_t dead_ms = (uint64_t)c->cfg.liveness * c->cfg.heartbeat_ms;
    peer_t *next;
    for (peer_t *p = c->peers; p; p = next) {
        next = p->next;
        uint64_t silent = now - p->last_seen_ms;
        if (p->kind == PEER_WORKER && silent > dead_ms) {
            char reason[128];
            snprintf(reason, sizeof reason, "silent for %" PRIu64 " ms: dead", silent);
            count(c, CNT_WORKERS_LOST);
            worker_remove(c, p, 1, reason);
        } else if (p->kind == PEER_CLIENT && silent > CLIENT_FORGET_PERIODS * dead_ms) {
            peer_unlink(c, p);
        }
    }
}

static void check_leases(ply_coordinator_t *c, uint64_t now)
{
    if (!c->cfg.lease_ms) return;
    for (peer_t *p = c->peers; p; p = p->next) {
        if (p->kind != PEER_WORKER) continue;
        for (size_t i = 0; i < p->ninflight;) {
            size_t idx;
            run_t *run = job_find(c, p->inflight[i], &idx);
            job_state_t *j = run ? &run->jobs[idx] : NULL;
            if (j && j->state == JOB_INFLIGHT && j->worker == p && j->deadline_ms &&
                now > j->deadline_ms) {
                p->inflight[i] = p->inflight[--p->ninflight];
                char reason[128];
                snprintf(reason, sizeof reason, "lease of %u ms expired on %s", c->cfg.lease_ms,
                         p->name);
                job_requeue(c, run, idx, 1, reason);
            } else {
                i++;
            }
        }
    }
}

static void check_worker_wait(ply_coordinator_t *c, uint64_t now)
{
    if (c->nworkers || !c->cfg.worker_wait_ms) return;
    for (run_t *run = c->runs; run; run = run->next) {
        if (run->state != RUN_ACTIVE) continue;
        uint64_t since =
            run->accepted_ms > c->no_worker_since_ms ? run->accepted_ms : c->no_worker_since_ms;
        if (now - since >= c->cfg.worker_wait_ms) {
            char s[32];
            run_fail(run, PLY_EWORKER, "no worker connected within %s s",
                     seconds(c->cfg.worker_wait_ms, s, sizeof s));
        }
    }
}

static void on_tick(uv_timer_t *t)
{
    ply_coordinator_t *c = t->data;
    uint64_t now = ply_time_ms();
    check_peers(c, now);
    check_leases(c, now);
    check_worker_wait(c, now);
    if (now - c->last_hb_ms >= c->cfg.heartbeat_ms) {
        c->last_hb_ms = now;
        send_heartbeats(c);
    }
    if (now - c->last_progress_ms >= PROGRESS_MS) {
        c->last_progress_ms = now;
        for (run_t *run = c->runs; run; run = run->next)
            if (run->state == RUN_ACTIVE && !run->detach)
                send_progress(c, run->client, run, NULL, 0);
    }
    pump(c);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    (void)events;
    ply_coordinator_t *c = h->data;
    if (status < 0) ply_warn("poll on the socket failed: %s", uv_strerror(status));
    pump(c);
}

static void on_async(uv_async_t *h)
{
    begin_shutdown(h->data, "stop requested");
}

static void on_signal(uv_signal_t *h, int signum)
{
    ply_info("signal %d: stopping", signum);
    begin_shutdown(h->data, signum == SIGINT ? "interrupted" : "terminated");
}

/* ----------------------------------------------------------- local workers */

static void on_kill_timer(uv_timer_t *t)
{
    ply_coordinator_t *c = t->data;
    for (unsigned i = 0; i < c->nprocs; i++)
        if (c->procs[i].alive) {
            ply_warn("local worker %u (pid %d) ignores SIGTERM: SIGKILL", i,
                     c->procs[i].handle.pid);
            uv_process_kill(&c->procs[i].handle, SIGKILL);
        }
}

static void on_proc_exit(uv_process_t *h, int64_t status, int signum)
{
    proc_t *pr = h->data;
    ply_coordinator_t *c = pr->c;
    pr->alive = 0;
    c->procs_alive--;
    if (c->state < C_STOPPING)
        ply_warn("local worker %u (pid %d) exited early: status %" PRId64 ", signal %d", pr->index,
                 h->pid, status, signum);
    else
        ply_debug("local worker %u exited", pr->index);
    uv_close((uv_handle_t *)h, NULL);
    if (c->state >= C_STOPPING && c->procs_alive == 0 &&
        !uv_is_closing((uv_handle_t *)&c->kill_timer)) {
        uv_timer_stop(&c->kill_timer);
        uv_close((uv_handle_t *)&c->kill_timer, NULL);
    }
}

static int spawn_one(ply_coordinator_t *c, unsigned i, char *why, size_t why_len)
{
    char threads[16], hash[16];
    char *args[9];
    int n = 0;
    args[n++] = c->worker_exe;
    args[n++] = "--connect";
    args[n++] = c->worker_endpoint;
    if (c->cfg.worker_threads) {
        snprintf(threads, sizeof threads, "%u", c->cfg.worker_threads);
        args[n++] = "--threads";
        args[n++] = threads;
    }
    if (c->cfg.worker_hash_mib) {
        snprintf(hash, sizeof hash, "%u", c->cfg.worker_hash_mib);
        args[n++] = "--hash";
        args[n++] = hash;
    }
    args[n] = NULL;
    uv_stdio_container_t stdio[3] = {
        {.flags = UV_IGNORE}, {.flags = UV_IGNORE}, {.flags = UV_INHERIT_FD, .data.fd = 2}};
    uv_process_options_t opt = {0};
    opt.file = c->worker_exe;
    opt.args = args;
    opt.exit_cb = on_proc_exit;
    opt.stdio = stdio;
    opt.stdio_count = 3;
    proc_t *pr = &c->procs[i];
    pr->c = c;
    pr->index = i;
    pr->handle.data = pr;
    int r = uv_spawn(&c->loop, &pr->handle, &opt);
    if (r != 0) {
        /* uv_spawn leaves an initialised handle to close even when it fails */
        uv_close((uv_handle_t *)&pr->handle, NULL);
        fmt_why(why, why_len, "cannot start worker %s: %s", c->worker_exe, uv_strerror(r));
        return PLY_EWORKER;
    }
    pr->alive = 1;
    c->procs_alive++;
    ply_info("local worker %u: pid %d, %s --connect %s", i, pr->handle.pid, c->worker_exe,
             c->worker_endpoint);
    return 0;
}

/* --------------------------------------------------------------- lifecycle */

static void begin_shutdown(ply_coordinator_t *c, const char *why)
{
    if (c->state >= C_STOPPING) return;
    int was_running = c->state == C_RUNNING;
    c->state = C_STOPPING;
    if (was_running) ply_info("stopping: %s", why);
    for (run_t *run = c->runs; run; run = run->next) {
        atomic_store(&run->cancel, 1);
        if (run->state != RUN_SPLITTING)
            run_fail(run, PLY_ECANCELED, "coordinator stopping (%s) before run %" PRIu64 " ended",
                     why, run->id);
    }
    reap_runs(c);
    Ply__Bye bye = PLY__BYE__INIT;
    bye.reason = "coordinator stopping";
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_BYE;
    m.bye = &bye;
    for (peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER) send_msg(c, p->rid, &m);
    if (c->handles_ok) {
        uv_poll_stop(&c->poll);
        uv_close((uv_handle_t *)&c->poll, NULL);
        uv_timer_stop(&c->tick);
        uv_close((uv_handle_t *)&c->tick, NULL);
        for (int i = 0; i < 2 && c->signals_ok; i++) uv_close((uv_handle_t *)&c->sig[i], NULL);
        c->signals_ok = 0;
        if (c->procs_alive) {
            for (unsigned i = 0; i < c->nprocs; i++)
                if (c->procs[i].alive) uv_process_kill(&c->procs[i].handle, SIGTERM);
            uv_timer_start(&c->kill_timer, on_kill_timer, KILL_GRACE_MS, 0);
        } else {
            uv_close((uv_handle_t *)&c->kill_timer, NULL);
        }
    }
}

void ply_coordinator_config_init(ply_coordinator_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->heartbeat_ms = 1000;
    cfg->liveness = 5;
    cfg->lease_ms = 0;
    cfg->max_attempts = 3;
    cfg->worker_wait_ms = 60000;
}

/* Binds every comma-separated endpoint; records the first and the first tcp one. */
static int bind_all(ply_coordinator_t *c, char *why, size_t why_len)
{
    char *list = strdup(c->bind), *save = NULL;
    if (!list) return PLY_ENOMEM;
    int r = 0;
    for (char *ep = strtok_r(list, ",", &save); ep && r == 0; ep = strtok_r(NULL, ",", &save)) {
        while (*ep == ' ') ep++;
        size_t n = strlen(ep);
        while (n && ep[n - 1] == ' ') ep[--n] = '\0';
        if (!n) continue;
        if (zsock_bind(c->router, "%s", ep) == -1) {
            fmt_why(why, why_len, "cannot bind %s: %s", ep, zmq_strerror(zmq_errno()));
            r = PLY_ECONNECT;
            break;
        }
        const char *bound = zsock_endpoint(c->router);
        if (!bound) bound = ep;
        zlist_append(c->bound, (void *)bound);
        if (!c->endpoint[0]) snprintf(c->endpoint, sizeof c->endpoint, "%s", bound);
        if (!c->worker_endpoint[0] && strncmp(bound, "tcp://", 6) == 0) {
            if (strncmp(bound, "tcp://0.0.0.0:", 14) == 0)
                snprintf(c->worker_endpoint, sizeof c->worker_endpoint, "tcp://127.0.0.1:%s",
                         bound + 14);
            else
                snprintf(c->worker_endpoint, sizeof c->worker_endpoint, "%s", bound);
        }
        ply_info("listening on %s", bound);
    }
    free(list);
    if (r == 0 && !c->endpoint[0]) {
        fmt_why(why, why_len, "no endpoint to bind in \"%s\"", c->bind);
        r = PLY_EINVAL;
    }
    return r;
}

static int init_handles(ply_coordinator_t *c, char *why, size_t why_len)
{
    int r = uv_poll_init(&c->loop, &c->poll, zsock_fd(c->router));
    if (r != 0) {
        fmt_why(why, why_len, "cannot watch the socket: %s", uv_strerror(r));
        return PLY_EIO;
    }
    uv_timer_init(&c->loop, &c->tick);
    uv_timer_init(&c->loop, &c->kill_timer);
    uv_async_init(&c->loop, &c->async, on_async);
    c->poll.data = c->tick.data = c->kill_timer.data = c->async.data = c;
    uv_unref((uv_handle_t *)&c->async); /* stop() works any time; it alone keeps nothing alive */
    c->handles_ok = 1;
    unsigned period = c->cfg.heartbeat_ms / 4;
    period = period < 10 ? 10 : period > 250 ? 250 : period;
    uv_poll_start(&c->poll, UV_READABLE, on_poll);
    uv_timer_start(&c->tick, on_tick, period, period);
    if (c->cfg.handle_signals) {
        static const int signums[2] = {SIGINT, SIGTERM};
        for (int i = 0; i < 2; i++) {
            uv_signal_init(&c->loop, &c->sig[i]);
            c->sig[i].data = c;
            uv_signal_start(&c->sig[i], on_signal, signums[i]);
        }
        c->signals_ok = 1;
    }
    return 0;
}

static int start_workers(ply_coordinator_t *c, char *why, size_t why_len)
{
    if (!c->cfg.spawn_workers) return 0;
    if (!c->worker_endpoint[0]) {
        /* inproc/ipc only: the workers are other processes and need tcp */
        int port = zsock_bind(c->router, "tcp://127.0.0.1:*");
        if (port == -1) {
            fmt_why(why, why_len, "cannot bind tcp://127.0.0.1:* for local workers: %s",
                    zmq_strerror(zmq_errno()));
            return PLY_ECONNECT;
        }
        snprintf(c->worker_endpoint, sizeof c->worker_endpoint, "tcp://127.0.0.1:%d", port);
        zlist_append(c->bound, c->worker_endpoint);
    }
    c->procs = calloc(c->cfg.spawn_workers, sizeof *c->procs);
    if (!c->procs) return PLY_ENOMEM;
    c->nprocs = c->cfg.spawn_workers;
    for (unsigned i = 0; i < c->nprocs; i++) {
        int r = spawn_one(c, i, why, why_len);
        if (r < 0) return r;
    }
    return 0;
}

ply_coordinator_t *ply_coordinator_new(const ply_coordinator_config_t *cfg, char *why,
                                       size_t why_len)
{
    if (!cfg || !cfg->bind || !cfg->bind[0]) {
        fmt_why(why, why_len, "no endpoint to bind");
        return NULL;
    }
    if (cfg->spawn_workers && (!cfg->worker_exe || !cfg->worker_exe[0])) {
        fmt_why(why, why_len, "local workers need the path of the worker executable");
        return NULL;
    }
    ply_coordinator_t *c = calloc(1, sizeof *c);
    if (!c) {
        fmt_why(why, why_len, "out of memory");
        return NULL;
    }
    c->cfg = *cfg;
    /* zeros mean the defaults (worker_wait_ms 0 means wait forever) */
    if (!c->cfg.heartbeat_ms) c->cfg.heartbeat_ms = 1000;
    if (c->cfg.heartbeat_ms > PLY_MAX_HEARTBEAT_MS) c->cfg.heartbeat_ms = PLY_MAX_HEARTBEAT_MS;
    if (!c->cfg.liveness) c->cfg.liveness = 5;
    if (c->cfg.liveness > PLY_MAX_LIVENESS) c->cfg.liveness = PLY_MAX_LIVENESS;
    if (!c->cfg.max_attempts) c->cfg.max_attempts = 3;
    c->bind = strdup(cfg->bind);
    c->worker_exe = cfg->worker_exe ? strdup(cfg->worker_exe) : NULL;
    c->cfg.bind = c->bind;
    c->cfg.worker_exe = c->worker_exe;
    c->next_run_id = 1;
    c->next_job_base = 1;
    c->no_worker_since_ms = c->last_hb_ms = c->last_progress_ms = ply_time_ms();
    for (int i = 0; i < CNT_N; i++) atomic_init(&c->cnt[i], 0);
    int r = (c->bind && (!cfg->worker_exe || c->worker_exe)) ? 0 : PLY_ENOMEM;
    if (r == 0 && uv_loop_init(&c->loop) != 0) r = PLY_EIO;
    if (r == 0) c->loop_ok = 1;
    if (r == 0 && !(c->router = zsock_new(ZMQ_ROUTER))) r = PLY_EIO;
    if (r == 0 && !(c->bound = zlist_new())) r = PLY_ENOMEM;
    if (r == 0) zlist_autofree(c->bound);
    if (r < 0) fmt_why(why, why_len, "cannot set up the coordinator: %s", ply_strerror(r));
    if (r == 0) {
        zsock_set_linger(c->router, 100);
        /* A ROUTER drops silently what exceeds a peer's send high-water mark
         * (default 1000). A dropped JOB would be lost for good while its worker
         * stays alive, so the mark is set far above PLY_MAX_CREDIT; memory stays
         * bounded by credit for workers and by one message a second for clients. */
        zsock_set_sndhwm(c->router, 100000);
        ply_msg_sock_limit(c->router);
        r = bind_all(c, why, why_len);
    }
    if (r == 0) r = init_handles(c, why, why_len);
    if (r == 0) r = start_workers(c, why, why_len);
    if (r < 0) {
        ply_coordinator_destroy(&c);
        return NULL;
    }
    return c;
}

const char *ply_coordinator_endpoint(const ply_coordinator_t *c)
{
    return c ? c->endpoint : NULL;
}

const char *ply_coordinator_worker_endpoint(const ply_coordinator_t *c)
{
    return c && c->worker_endpoint[0] ? c->worker_endpoint : NULL;
}

void ply_coordinator_counters(const ply_coordinator_t *c, ply_coordinator_counters_t *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!c) return;
    ply_coordinator_t *m = (ply_coordinator_t *)c; /* atomic loads take non-const pointers */
#define LOAD(i) atomic_load_explicit(&m->cnt[i], memory_order_relaxed)
    out->messages = LOAD(CNT_MESSAGES);
    out->malformed = LOAD(CNT_MALFORMED);
    out->results_ignored = LOAD(CNT_RESULTS_IGNORED);
    out->jobs_sent = LOAD(CNT_JOBS_SENT);
    out->jobs_requeued = LOAD(CNT_JOBS_REQUEUED);
    out->workers_joined = LOAD(CNT_WORKERS_JOINED);
    out->workers_lost = LOAD(CNT_WORKERS_LOST);
    out->runs_done = LOAD(CNT_RUNS_DONE);
    out->runs_failed = LOAD(CNT_RUNS_FAILED);
#undef LOAD
}

int ply_coordinator_run(ply_coordinator_t *c)
{
    if (!c) return PLY_EINVAL;
    if (c->state != C_NEW) return PLY_ESTATE;
    c->state = C_RUNNING;
    pump(c); /* messages that arrived before the loop started */
    int r = uv_run(&c->loop, UV_RUN_DEFAULT);
    (void)r;
    c->state = C_CLOSED;
    return 0;
}

void ply_coordinator_stop(ply_coordinator_t *c)
{
    if (c) uv_async_send(&c->async);
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

void ply_coordinator_destroy(ply_coordinator_t **cp)
{
    if (!cp || !*cp) return;
    ply_coordinator_t *c = *cp;
    if (c->loop_ok) {
        if (c->state != C_CLOSED) {
            begin_shutdown(c, "destroyed");
            uv_run(&c->loop, UV_RUN_DEFAULT); /* stops local workers, finishes splits */
        }
        uv_walk(&c->loop, close_any, NULL);
        uv_run(&c->loop, UV_RUN_DEFAULT);
        if (uv_loop_close(&c->loop) != 0) ply_warn("libuv loop not closed cleanly");
    }
    while (c->runs) {
        run_t *run = c->runs;
        c->runs = run->next;
        run_free(run);
    }
    while (c->peers) peer_unlink(c, c->peers);
    while (c->finished) {
        finished_t *f = c->finished;
        c->finished = f->next;
        zmsg_destroy(&f->reply);
        free(f);
    }
    /* unbind first: zmq_close releases endpoints asynchronously, and an inproc
     * name or a tcp port should be free again as soon as destroy returns */
    for (char *ep = c->bound ? zlist_first(c->bound) : NULL; ep; ep = zlist_next(c->bound))
        zsock_unbind(c->router, "%s", ep);
    zlist_destroy(&c->bound);
    zsock_destroy(&c->router);
    free(c->procs);
    free(c->bind);
    free(c->worker_exe);
    free(c);
    *cp = NULL;
}
