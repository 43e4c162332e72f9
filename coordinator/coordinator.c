/*
 * The coordinator service (coordinator.h): one libuv loop owning one ROUTER
 * socket, the runs, the workers and the spawned worker processes.
 *
 * Ownership (plain structs, internal.h):
 *   coordinator -> peers   (linked list; workers and clients, keyed by routing id)
 *               -> runs    (FIFO list of accepted runs: splitting, then active)
 *               -> finished (the last FINISHED_KEEP answers, for RESULT_REQUEST;
 *                           older ones come from the state file)
 *               -> store   (store.h: the state file, when configured)
 *   run -> plan (split.h), one job_state_t per task (a computation of a job,
 *          internal.h), the queue, the running sums (nodes, stats, divide per
 *          root move), the verification record (verify.c).
 *   worker peer -> the ids of the tasks it holds (inflight).
 * Invariant: a task is INFLIGHT exactly when its id is in the inflight list
 * of task.worker, with task.attempt the attempt that worker was sent.
 *
 * Durability: a run is stored with its plan before Accepted is sent, a
 * result is stored before it is counted, a finished run's answer is stored
 * before it is reaped; restore.c reads unfinished runs back at start.
 *
 * Scheduling is pull with credit: a READY{n} adds n to the worker's credit
 * (credit-based flow control, never above PLY_MAX_CREDIT with the jobs it
 * holds), each JOB takes one. Jobs go out round-robin over the workers with
 * credit, runs FIFO, each run's queue (re-queued tasks, checks, tie-breaks)
 * ahead of its first computations, biggest job first. A queued task goes to
 * the first worker that may take it (verify.c: a check prefers another
 * worker with another Zobrist seed; a failed task prefers another worker).
 *
 * Liveness: a worker silent for liveness x heartbeat_ms is dead; one whose
 * heartbeat node count has not advanced for hang_ms while it holds tasks is
 * hung and dropped (and gets no task after reconnecting until its count
 * moves). Their tasks are re-queued; a task that fails max_attempts times is
 * quarantined and fails its run with the position and every failure.
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
#include <sys/time.h>

#include <czmq.h>
#include <uv.h>

#include "arbiter/arbiter.h"
#include "envelope.h"
#include "internal.h"
#include "security.h"
#include "split.h"
#include "store.h"
#include "util/error.h"
#include "util/log.h"
#include "util/random.h"
#include "util/stats.h"
#include "util/time.h"

#define WHY_LEN       PLY__WHY_LEN
#define FINISHED_KEEP 64
#define KILL_GRACE_MS 2000
#define PROGRESS_MS   1000
/* Client peers hold no state; forget them after this many liveness periods of silence. */
#define CLIENT_FORGET_PERIODS 10
/* Messages handled between two commits of the state file (and two dispatch rounds). */
#define PUMP_DRAIN 64
/* How far into a run's queue dispatch looks for a task the asking worker may take. */
#define QUEUE_SCAN 256
/* Finished runs listed by a StatusReply (after the runs in progress). */
#define STATUS_FINISHED 16

enum { C_NEW = 0, C_RUNNING, C_STOPPING, C_CLOSED };

static void pump(ply_coordinator_t *c);
static void begin_shutdown(ply_coordinator_t *c, const char *why);
static run_t *run_find(ply_coordinator_t *c, uint64_t id);

/* ------------------------------------------------------------------ helpers */

static void count(ply_coordinator_t *c, int which)
{
    atomic_fetch_add_explicit(&c->cnt[which], 1, memory_order_relaxed);
}

uint32_t ply__hash_id(const char *id)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)id; p && *p; p++) h = (h ^ *p) * 16777619u;
    return h ? h : 1; /* 0 means "no worker" in job_state_t.avoid */
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

void ply__identity(zframe_t *rid, const char *peer_key, char *buf, size_t len)
{
    if (!len) return;
    const char *key = peer_key && peer_key[0] ? strchr(peer_key, ':') : NULL;
    if (key) {
        snprintf(buf, len, "curve:%s", key + 1);
        return;
    }
    char hex[2 * 255 + 1];
    rid_hex(rid, hex, sizeof hex);
    if (strlen(hex) + sizeof "conn:" <= PLY__IDENT_LEN) {
        snprintf(buf, len, "conn:%s", hex);
        return;
    }
    /* a long routing id a peer chose: a hash stands for it (two such peers that collide
     * only count as one identity, never as two) */
    uint64_t h = 14695981039346656037u;
    const uint8_t *d = zframe_data(rid);
    for (size_t i = 0; i < zframe_size(rid); i++) h = (h ^ d[i]) * 1099511628211u;
    snprintf(buf, len, "conn:#%016" PRIx64, h);
}

/*
 * Whose a client message is: the owner a run it submits gets, and who asks
 * about a run. Under CURVE the client's key (its identity: proven by the
 * handshake); without, "token:" and the SHA-1 of the owner token it sent (so
 * the state file never holds the secret, and the token is a bearer secret as
 * on loopback nothing else is proven); without either, its connection.
 */
static void principal(const char *identity, const char *token, char *buf, size_t len)
{
    zdigest_t *d = NULL;
    if (strncmp(identity, "curve:", 6) != 0 && token && token[0] && (d = zdigest_new())) {
        zdigest_update(d, (const byte *)token, strlen(token));
        snprintf(buf, len, "token:%s", zdigest_string(d));
        zdigest_destroy(&d);
        return;
    }
    snprintf(buf, len, "%s", identity);
}

/* Whether @who may read the answer of, and cancel, a run of @owner: its owner, or an admin
 * key; a run stored before runs had owners ("") is everyone's, as it was. */
static int is_admin(ply_coordinator_t *c, const char *who)
{
    return c->admins && strncmp(who, "curve:", 6) == 0 && ply_keydir_has(c->admins, who + 6);
}

static int may_read(ply_coordinator_t *c, const char *owner, const char *who)
{
    return !owner[0] || strcmp(owner, who) == 0 || is_admin(c, who);
}

static int64_t unix_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
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

static peer_t *peer_add(ply_coordinator_t *c, zframe_t *rid, const char *identity, int kind)
{
    peer_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->rid = zframe_dup(rid);
    if (!p->rid) {
        free(p);
        return NULL;
    }
    p->kind = kind;
    snprintf(p->identity, sizeof p->identity, "%s", identity);
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

/* Marks the run failed (the first reason wins); reap_runs() answers the client. */
void ply__run_fail(run_t *run, int code, const char *fmt, ...)
{
    if (run->state == RUN_FAILED || run->state == RUN_DONE) return;
    run->state = RUN_FAILED;
    run->fail_code = code < 0 ? code : PLY_EIO;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->fail_msg, sizeof run->fail_msg, fmt, ap);
    va_end(ap);
}

/* The active run holding task id @job_id, with the task's index in *idx. */
static run_t *job_find(ply_coordinator_t *c, uint64_t job_id, size_t *idx)
{
    for (run_t *run = c->runs; run; run = run->next)
        if (run->state == RUN_ACTIVE && ply__task_of_wire(run, job_id) >= 0) {
            *idx = (size_t)ply__task_of_wire(run, job_id);
            return run;
        }
    return NULL;
}

peer_t *ply__worker_by_id(ply_coordinator_t *c, const char *id)
{
    for (peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER && strncmp(p->worker_id, id, PLY__ID_LEN - 1) == 0) return p;
    return NULL;
}

int ply__queue_push(run_t *run, size_t idx)
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

/* Appends "attempt N: reason" to the task's failure history (kept for a quarantine report). */
static void note_failure(job_state_t *j, const char *reason)
{
    size_t old = j->history ? strlen(j->history) : 0;
    if (old > 4 * WHY_LEN) return; /* enough to explain a quarantine */
    size_t add = strlen(reason) + 32;
    char *h = realloc(j->history, old + add);
    if (!h) return;
    snprintf(h + old, add, "%sattempt %u: %s", old ? "; " : "", j->attempt, reason);
    j->history = h;
}

/* Keeps the task's failures in the state file: a restart does not reset the quarantine count. */
static void store_failure(ply_coordinator_t *c, const run_t *run, size_t idx)
{
    if (!c->store) return;
    const job_state_t *j = &run->jobs[idx];
    ply_store_failure_t f = {run->id, (uint32_t)idx, j->attempt, j->failures, j->history};
    char why[WHY_LEN] = "";
    if (ply_store_job_failed(c->store, &f, why, sizeof why) < 0)
        ply_warn("run %" PRIu64 ": the failures of job %" PRIu64 " are not stored: %s", run->id,
                 run->job_base + idx, why);
}

/*
 * Puts an in-flight task back in its run's queue. The caller has already
 * taken it out of the worker's inflight list. @failure: the attempt failed
 * (counts towards max_attempts, and the task prefers another worker next);
 * else the worker left politely. A task that failed max_attempts times is
 * quarantined: its run fails with the position and every failure, never with
 * a partial total. A drill-down task is not retried: the report says why.
 */
static void job_requeue(ply_coordinator_t *c, run_t *run, size_t idx, int failure,
                        const char *reason)
{
    job_state_t *j = &run->jobs[idx];
    size_t job = idx % run->plan->njobs;
    peer_t *was = j->worker;
    j->state = JOB_PENDING;
    j->worker = NULL;
    if (idx / run->plan->njobs == PLY__DRILL) {
        ply__drill_give_up(c, run, idx, reason);
        return;
    }
    if (failure) {
        j->failures++;
        if (was) j->avoid = was->id_hash;
        note_failure(j, reason);
        store_failure(c, run, idx);
    }
    const char *fen = run->plan->jobs[job].fen;
    if (failure && j->failures >= c->cfg.max_attempts) {
        ply__run_fail(run, PLY_EWORKER,
                      "job %" PRIu64 " (%s, %u plies) quarantined after %u failed attempts: %s",
                      run->job_base + idx, fen, run->plan->job_depth, j->failures,
                      j->history ? j->history : reason);
        return;
    }
    j->queued_ms = ply_time_ms();
    if (ply__queue_push(run, idx) != 0) {
        ply__run_fail(run, PLY_ENOMEM, "out of memory re-queuing job %" PRIu64,
                      run->job_base + idx);
        return;
    }
    count(c, CNT_JOBS_REQUEUED);
    ply_info("run %" PRIu64 ": job %" PRIu64 " attempt %u re-queued: %s", run->id,
             run->job_base + idx, j->attempt, reason);
}

static void cancel_on_worker(ply_coordinator_t *c, peer_t *p, const run_t *run, size_t idx);

void ply__withdraw(ply_coordinator_t *c, run_t *run, const char *identity)
{
    for (peer_t *p = c->peers; p; p = p->next) {
        if (p->kind != PEER_WORKER || strcmp(p->identity, identity) != 0) continue;
        for (size_t i = 0; i < p->ninflight;) {
            int64_t tw = ply__task_of_wire(run, p->inflight[i]);
            size_t t = tw < 0 ? 0 : (size_t)tw;
            if (tw < 0 || run->jobs[t].state != JOB_INFLIGHT || run->jobs[t].worker != p ||
                t / run->plan->njobs == PLY__DRILL) {
                i++;
                continue;
            }
            p->inflight[i] = p->inflight[--p->ninflight];
            cancel_on_worker(c, p, run, t); /* its count is no longer wanted */
            job_requeue(c, run, t, 0, "its worker was excluded from the run");
        }
    }
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
    ply__verify_free(run);
    for (size_t t = 0; run->jobs && t < run->ntasks; t++) free(run->jobs[t].history);
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
    snprintf(f->owner, sizeof f->owner, "%s", run->owner);
    f->state = state;
    f->jobs_total = run->plan ? (uint32_t)run->plan->njobs : 0;
    f->jobs_done = (uint32_t)run->done;
    f->nodes = run->nodes;
    f->elapsed_ms = ply_time_ms() - run->submitted_ms;
    f->depth = run->depth;
    snprintf(f->fen, sizeof f->fen, "%s", run->fen);
    snprintf(f->verify, sizeof f->verify, "%s", run->verify_text);
    f->chess960 = run->chess960, f->stats = run->want_stats, f->want_split = run->want_split;
    f->verify_mode = run->verify_mode, f->verify_ppm = run->verify_ppm;
    if (run->state == RUN_FAILED) snprintf(f->error, sizeof f->error, "%s", run->fail_msg);
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

static const char *state_const(const char *state)
{
    return !strcmp(state, "done") ? "done" : !strcmp(state, "canceled") ? "canceled" : "failed";
}

/* A stored summary as a finished_t (reply NULL). */
static void finished_from_store(finished_t *f, const ply_store_finished_t *sf)
{
    memset(f, 0, sizeof *f);
    f->id = sf->id;
    snprintf(f->owner, sizeof f->owner, "%s", sf->owner);
    f->state = state_const(sf->state);
    f->jobs_total = sf->jobs_total;
    f->jobs_done = sf->jobs_done;
    f->nodes = sf->nodes;
    f->elapsed_ms = sf->elapsed_ms;
    f->depth = sf->depth;
    snprintf(f->fen, sizeof f->fen, "%s", sf->fen);
    snprintf(f->verify, sizeof f->verify, "%s", sf->verify);
    snprintf(f->error, sizeof f->error, "%s", sf->error);
    f->chess960 = sf->chess960, f->stats = sf->stats, f->want_split = sf->want_split;
    f->verify_mode = sf->verify_mode, f->verify_ppm = sf->verify_ppm;
}

/*
 * A finished run: from memory, else read back from the state file into *tmp
 * with its reply re-framed (the caller destroys tmp->reply). NULL when unknown.
 */
static finished_t *finished_lookup(ply_coordinator_t *c, uint64_t id, finished_t *tmp)
{
    finished_t *f = finished_find(c, id);
    if (f || !c->store) return f;
    ply_store_finished_t sf;
    void *blob = NULL;
    size_t n = 0;
    if (ply_store_finished(c->store, id, &sf, &blob, &n) < 0) return NULL;
    finished_from_store(tmp, &sf);
    if (blob && (tmp->reply = zmsg_new())) {
        zmsg_addstr(tmp->reply, PLY_PROTOCOL_ID);
        zmsg_addmem(tmp->reply, blob, n);
    }
    free(blob);
    return tmp;
}

/* --------------------------------------------------------------- messages */

/* @st from the sums @in, their high words in @hi (PLY_STATS_N, owned by the caller). */
static void stats_proto_array(Ply__Stats *st, uint64_t *hi, const ply_stats128_t *in)
{
    *st = (Ply__Stats)PLY__STATS__INIT;
    ply_msg_stats128_to_proto(st, hi, in);
}

/* What a run computes, as every answer about it says (strings point into @fen). */
static void fill_asked(Ply__RunAsked *a, const char *fen, unsigned depth, int chess960, int stats,
                       int want_split, int verify_mode, uint32_t verify_ppm)
{
    *a = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    a->fen = (char *)fen;
    a->has_depth = 1, a->depth = depth;
    a->has_chess960 = 1, a->chess960 = chess960 != 0;
    a->has_stats = 1, a->stats = stats != 0;
    a->has_split_depth = 1, a->split_depth = want_split < 0 ? -1 : want_split;
    a->has_verify = 1, a->verify = (Ply__VerifyMode)verify_mode;
    if (verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
        a->has_verify_ppm = 1, a->verify_ppm = verify_ppm;
}

static void run_asked(Ply__RunAsked *a, const run_t *run)
{
    fill_asked(a, run->fen, run->depth, run->chess960, run->want_stats, run->want_split,
               run->verify_mode, run->verify_ppm);
}

/* How long @run waited from its acceptance (or restore) for its first job to go out, ms. */
static uint64_t queued_ms(const run_t *run, uint64_t now)
{
    uint64_t until = run->started_ms ? run->started_ms : now;
    return run->accepted_ms && until > run->accepted_ms ? until - run->accepted_ms : 0;
}

/* The run's time, ms: from its submission (a resumed run: from its restore, as its counted
 * nodes are this session's) to @now, less the time it waited in the queue. */
static uint64_t run_time_ms(const run_t *run, uint64_t now)
{
    uint64_t from = run->restored ? run->accepted_ms : run->submitted_ms;
    uint64_t t = now > from ? now - from : 0, q = queued_ms(run, now);
    return t > q ? t - q : 0;
}

/* The RunResult of a finished run, encoded (caller owns), or NULL. */
static zmsg_t *build_result(ply_coordinator_t *c, run_t *run)
{
    const ply_split_t *plan = run->plan;
    int n = plan->nroot;
    Ply__DivideEntry *ent = calloc((size_t)n + 1, sizeof *ent);
    Ply__DivideEntry **ptr = calloc((size_t)n + 1, sizeof *ptr);
    Ply__Stats *dst = calloc((size_t)n + 1, sizeof *dst);
    uint64_t(*hi)[PLY_STATS_N] = calloc((size_t)n + 2, sizeof *hi); /* the divide's, the total's */
    zmsg_t *z = NULL;
    if (ent && ptr && dst && hi) {
        for (int i = 0; i < n; i++) {
            ent[i] = (Ply__DivideEntry)PLY__DIVIDE_ENTRY__INIT;
            ent[i].move = (char *)plan->root_uci[i];
            ent[i].has_nodes = 1;
            ent[i].nodes = ply_u128_lo(run->divide[i]);
            ent[i].has_nodes_hi = ply_u128_hi(run->divide[i]) != 0;
            ent[i].nodes_hi = ply_u128_hi(run->divide[i]);
            if (run->want_stats && run->divide_has_stats) {
                stats_proto_array(&dst[i], hi[i], &run->divide_stats[i]);
                ent[i].stats = &dst[i];
            }
            ptr[i] = &ent[i];
        }
        Ply__Stats total;
        stats_proto_array(&total, hi[n], &run->stats);
        Ply__Verification ver = PLY__VERIFICATION__INIT;
        ply__vreport_t *report = ply__verification(run, &ver);
        Ply__RunResult rr = PLY__RUN_RESULT__INIT;
        rr.has_run_id = 1, rr.run_id = run->id;
        rr.fen = run->fen;
        rr.has_depth = 1, rr.depth = run->depth;
        rr.has_nodes = 1, rr.nodes = ply_u128_lo(run->nodes);
        rr.has_nodes_hi = ply_u128_hi(run->nodes) != 0, rr.nodes_hi = ply_u128_hi(run->nodes);
        if (run->want_stats) rr.stats = &total;
        rr.n_divide = (size_t)n;
        rr.divide = ptr;
        rr.has_jobs = 1, rr.jobs = (uint32_t)plan->njobs;
        rr.has_split_depth = 1, rr.split_depth = plan->split_depth;
        uint64_t now = ply_time_ms();
        rr.has_time_ms = 1, rr.time_ms = run_time_ms(run, now);
        rr.has_queued_ms = 1, rr.queued_ms = queued_ms(run, now);
        rr.has_counted_nodes = 1, rr.counted_nodes = run->counted_nodes;
        rr.has_tt_nodes = 1, rr.tt_nodes = run->tt_nodes;
        rr.verification = &ver;
        rr.has_chess960 = 1, rr.chess960 = run->chess960 != 0;
        rr.has_worker_time_us = 1, rr.worker_time_us = run->worker_time_us;
        rr.has_tt_probes = 1, rr.tt_probes = run->tt_probes;
        rr.has_tt_hits = 1, rr.tt_hits = run->tt_hits;
        rr.has_results_restored = 1, rr.results_restored = run->results_restored;
        rr.has_results_computed = 1, rr.results_computed = run->results_computed;
        Ply__RunAsked asked;
        run_asked(&asked, run);
        rr.asked = &asked;
        ply_msg_t m = PLY__MESSAGE__INIT;
        m.body_case = PLY__MESSAGE__BODY_RUN_RESULT;
        m.run_result = &rr;
        char reason[256];
        /* the report carries text from workers: check it as a client will */
        if (report && ply_msg_validate(&m, reason, sizeof reason) == 0)
            z = ply_msg_encode(&m);
        else
            ply_warn("run %" PRIu64 ": cannot encode the result: %s", run->id,
                     report ? reason : "out of memory");
        ply__vreport_free(&report);
    }
    free(ent);
    free(ptr);
    free(dst);
    free(hi);
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

/* Tasks of @run held by workers right now. */
static uint32_t tasks_in_flight(ply_coordinator_t *c, const run_t *run)
{
    uint32_t n = 0;
    for (peer_t *p = c->peers; p; p = p->next)
        for (size_t i = 0; p->kind == PEER_WORKER && i < p->ninflight; i++)
            n += p->inflight[i] >= run->job_base && p->inflight[i] - run->job_base < run->ntasks;
    return n;
}

/* Fills @rp about @run, or about the finished record @f (strings point into them; rp->asked
 * to @asked), as @who may see it: the count only for its owner (or an admin). */
static void fill_progress(ply_coordinator_t *c, Ply__RunProgress *rp, Ply__RunAsked *asked,
                          const run_t *run, const finished_t *f, const char *who)
{
    *rp = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    rp->asked = asked;
    uint32_t threads = 0;
    for (peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER) threads += p->threads;
    rp->has_run_id = 1;
    if (run) {
        rp->run_id = run->id;
        rp->state = (char *)run_state_name(run);
        rp->has_jobs_total = 1, rp->jobs_total = run->plan ? (uint32_t)run->plan->njobs : 0;
        rp->has_jobs_done = 1, rp->jobs_done = (uint32_t)run->done;
        rp->has_nodes = 1, rp->nodes = ply_u128_lo(run->nodes);
        rp->has_nodes_hi = ply_u128_hi(run->nodes) != 0, rp->nodes_hi = ply_u128_hi(run->nodes);
        rp->has_elapsed_ms = 1, rp->elapsed_ms = ply_time_ms() - run->submitted_ms;
        rp->fen = (char *)run->fen;
        rp->has_depth = 1, rp->depth = run->depth;
        rp->verify = (char *)run->verify_text;
        rp->has_results_restored = 1, rp->results_restored = run->results_restored;
        rp->has_jobs_in_flight = 1, rp->jobs_in_flight = tasks_in_flight(c, run);
        rp->has_queued_ms = 1, rp->queued_ms = queued_ms(run, ply_time_ms());
        rp->has_counted_nodes = 1, rp->counted_nodes = run->counted_nodes;
        if (run->state == RUN_ACTIVE && !run->started) { /* "queued": say behind what */
            rp->has_runs_ahead = 1;
            for (const run_t *q = c->runs; q && q != run; q = q->next)
                rp->runs_ahead += q->state == RUN_ACTIVE || q->state == RUN_SPLITTING;
        }
        if (run->state == RUN_FAILED) rp->error = (char *)run->fail_msg;
        run_asked(asked, run);
    } else {
        rp->run_id = f->id;
        rp->state = (char *)f->state;
        rp->has_jobs_total = 1, rp->jobs_total = f->jobs_total;
        rp->has_jobs_done = 1, rp->jobs_done = f->jobs_done;
        rp->has_nodes = 1, rp->nodes = ply_u128_lo(f->nodes);
        rp->has_nodes_hi = ply_u128_hi(f->nodes) != 0, rp->nodes_hi = ply_u128_hi(f->nodes);
        rp->has_elapsed_ms = 1, rp->elapsed_ms = f->elapsed_ms;
        if (f->fen[0]) rp->fen = (char *)f->fen;
        if (f->depth) rp->has_depth = 1, rp->depth = f->depth;
        rp->verify = (char *)f->verify;
        if (f->error[0]) rp->error = (char *)f->error;
        fill_asked(asked, f->fen, f->depth, f->chess960, f->stats, f->want_split, f->verify_mode,
                   f->verify_ppm);
        if (!f->fen[0] || !f->depth) rp->asked = NULL; /* not known: no claim */
    }
    rp->has_workers = 1, rp->workers = c->nworkers;
    rp->has_threads = 1, rp->threads = threads;
    if (!may_read(c, run ? run->owner : f->owner, who)) {
        rp->has_nodes = 0, rp->nodes = 0;
        rp->has_nodes_hi = 0, rp->nodes_hi = 0;
        rp->has_counted_nodes = 0, rp->counted_nodes = 0;
        rp->has_answer_hidden = 1, rp->answer_hidden = 1;
    }
}

/* Whether @who may see worker @p's node total: with one worker per run that total is the
 * run's answer, so it is shown only to whoever may read every run it comes from. */
static int may_read_worker_nodes(ply_coordinator_t *c, const peer_t *p, const char *who)
{
    if (p->nodes_mixed) return is_admin(c, who);
    return !p->nodes_owner[0] || !strcmp(p->nodes_owner, "-") || may_read(c, p->nodes_owner, who);
}

/* The connected workers as WorkerStatus entries (caller frees both arrays), or NULLs; node
 * totals only where @who may read them (may_read_worker_nodes). */
static size_t worker_list(ply_coordinator_t *c, Ply__WorkerStatus **wsp, Ply__WorkerStatus ***wpp,
                          const char *who)
{
    *wsp = NULL, *wpp = NULL;
    if (!c->nworkers) return 0;
    Ply__WorkerStatus *ws = calloc(c->nworkers, sizeof *ws);
    Ply__WorkerStatus **wp = calloc(c->nworkers, sizeof *wp);
    if (!ws || !wp) {
        free(ws);
        free(wp);
        return 0;
    }
    uint64_t now = ply_time_ms();
    size_t i = 0;
    for (peer_t *p = c->peers; p && i < c->nworkers; p = p->next) {
        if (p->kind != PEER_WORKER) continue;
        ws[i] = (Ply__WorkerStatus)PLY__WORKER_STATUS__INIT;
        ws[i].worker_id = p->worker_id;
        ws[i].has_threads = 1, ws[i].threads = p->threads;
        ws[i].has_jobs_in_flight = 1, ws[i].jobs_in_flight = (uint32_t)p->ninflight;
        ws[i].has_jobs_done = 1, ws[i].jobs_done = p->jobs_done;
        if (may_read_worker_nodes(c, p, who)) {
            ws[i].has_nodes = 1, ws[i].nodes = ply_u128_lo(p->nodes);
            ws[i].has_nodes_hi = ply_u128_hi(p->nodes) != 0;
            ws[i].nodes_hi = ply_u128_hi(p->nodes);
        }
        ws[i].has_zobrist_seed = 1, ws[i].zobrist_seed = p->seed;
        ws[i].has_busy_us = 1, ws[i].busy_us = p->busy_us;
        ws[i].identity = p->identity;
        uint32_t excluded = 0;
        for (const run_t *run = c->runs; run; run = run->next)
            excluded += run->state == RUN_ACTIVE && ply__excluded(run, p->identity);
        ws[i].has_excluded_runs = 1, ws[i].excluded_runs = excluded;
        ws[i].has_stalled_ms = 1;
        ws[i].stalled_ms = p->ninflight && now > p->progress_ms ? now - p->progress_ms : 0;
        wp[i] = &ws[i];
        i++;
    }
    *wsp = ws, *wpp = wp;
    return i;
}

/* Sends a RunProgress about @run (or the finished record @f) to @rid, with the worker list when
 * asked. */
static void send_progress(ply_coordinator_t *c, zframe_t *rid, const run_t *run,
                          const finished_t *f, int with_workers, const char *who)
{
    if (!rid) return; /* a run restored from the state file has no client until one attaches */
    Ply__RunProgress rp;
    Ply__RunAsked asked;
    fill_progress(c, &rp, &asked, run, f, who);
    Ply__WorkerStatus *ws = NULL;
    Ply__WorkerStatus **wp = NULL;
    if (with_workers) {
        rp.n_worker = worker_list(c, &ws, &wp, who);
        rp.worker = wp;
    }
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RUN_PROGRESS;
    m.run_progress = &rp;
    send_msg(c, rid, &m);
    free(ws);
    free(wp);
}

/* ---------------------------------------------------------------- reaping */

/*
 * Tells worker @p to stop task @idx of @run (running or queued there): the
 * coordinator has taken it back, so its count is no longer wanted. The worker
 * stores nothing of it and asks for credit again; a result that crosses this
 * message is ignored as for a superseded attempt.
 */
static void cancel_on_worker(ply_coordinator_t *c, peer_t *p, const run_t *run, size_t idx)
{
    Ply__Cancel cancel = PLY__CANCEL__INIT;
    cancel.has_run_id = 1;
    cancel.run_id = run->id;
    cancel.has_job_id = 1;
    cancel.job_id = ply__wire_id(run, idx);
    cancel.has_attempt = 1;
    cancel.attempt = run->jobs[idx].attempt;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_CANCEL;
    m.cancel = &cancel;
    send_msg(c, p->rid, &m);
}

/* Takes a finished run's jobs out of the workers' lists (late results become "unknown job"),
 * and stops them on the workers. */
static void withdraw_jobs(ply_coordinator_t *c, const run_t *run)
{
    if (!run->plan || !run->plan->njobs) return;
    for (peer_t *p = c->peers; p; p = p->next) {
        for (size_t i = 0; i < p->ninflight;) {
            if (ply__task_of_wire(run, p->inflight[i]) >= 0) {
                size_t idx = (size_t)ply__task_of_wire(run, p->inflight[i]);
                if (run->jobs[idx].state == JOB_INFLIGHT && run->jobs[idx].worker == p)
                    cancel_on_worker(c, p, run, idx);
                p->inflight[i] = p->inflight[--p->ninflight];
            } else {
                i++;
            }
        }
    }
}

/* Records the end of @run and the @reply its client got in the state file. */
static void store_finish(ply_coordinator_t *c, const run_t *run, const char *state, zmsg_t *reply)
{
    ply_store_finished_t f;
    memset(&f, 0, sizeof f);
    f.id = run->id;
    snprintf(f.state, sizeof f.state, "%s", state);
    snprintf(f.fen, sizeof f.fen, "%s", run->fen);
    f.depth = run->depth;
    f.jobs_total = (uint32_t)run->plan->njobs;
    f.jobs_done = (uint32_t)run->done;
    f.nodes = run->nodes;
    f.elapsed_ms = ply_time_ms() - run->submitted_ms;
    f.code = run->state == RUN_FAILED ? run->fail_code : 0;
    snprintf(f.error, sizeof f.error, "%s", run->state == RUN_FAILED ? run->fail_msg : "");
    snprintf(f.verify, sizeof f.verify, "%s", run->verify_text);
    zframe_t *body = zmsg_last(reply);
    ply_store_finish_run(c->store, &f, body ? zframe_data(body) : NULL,
                         body ? zframe_size(body) : 0);
}

void ply__batch_flush(ply_coordinator_t *c)
{
    if (!c->batch_open) return;
    char why[WHY_LEN] = "";
    if (ply_store_commit(c->store, why, sizeof why) < 0) {
        for (unsigned i = 0; i < c->batch_nruns; i++) {
            run_t *run = run_find(c, c->batch_runs[i]);
            if (run) ply__run_fail(run, PLY_EDB, "results not stored: %s", why);
        }
    }
    c->batch_open = 0;
    c->batch_n = c->batch_nruns = 0;
}

/* Answers and frees every run that is done or failed. */
static void reap_runs(ply_coordinator_t *c)
{
    for (run_t *run = c->runs; run; run = run->next)
        if (run->state == RUN_DONE || run->state == RUN_FAILED) {
            ply__batch_flush(c); /* what is answered must be on disk first */
            break;
        }
    int stored = 0;
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
            char total[PLY_U128_DEC_LEN];
            ply_info("run %" PRIu64 ": perft(%u) = %s (%zu jobs, split %u, %" PRIu64 " ms)",
                     run->id, run->depth, ply_u128_to_dec(run->nodes, total, sizeof total),
                     run->plan->njobs, run->plan->split_depth, ply_time_ms() - run->submitted_ms);
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
        if (reply && c->store && !run->interrupted && run->plan) {
            store_finish(c, run, state, reply);
            stored = 1;
        }
        if (reply) finished_add(c, run, state, reply);
        run_free(run);
    }
    char why[WHY_LEN] = "";
    unsigned pruned = 0;
    if (stored && ply_store_prune(c->store, c->cfg.keep_runs, &pruned, why, sizeof why) < 0)
        ply_warn("state file: old runs' job rows not pruned: %s", why);
    else if (pruned)
        ply_debug("state file: job rows of %u old finished run%s pruned", pruned,
                  pruned == 1 ? "" : "s");
}

/* ---------------------------------------------------------------- dispatch */

/* Takes entry @k out of the run's queue (the queue is short: a scan is cheap). */
static void queue_remove(run_t *run, size_t k)
{
    uint32_t *q = run->requeue + run->rq_head;
    memmove(q + k, q + k + 1, (run->rq_len - k - 1) * sizeof *q);
    if (--run->rq_len == 0) run->rq_head = 0;
}

/*
 * The next task worker @p may take: the first eligible one in a run's queue
 * (re-queued tasks, checks, tie-breaks, drill-downs), else the run's next
 * first computation. A first computation @p may not take (after a restart its
 * check may already be running there) moves to the queue for another worker.
 */
static int next_job(ply_coordinator_t *c, peer_t *p, run_t **out, size_t *idx, int *no_hash)
{
    for (run_t *run = c->runs; run; run = run->next) {
        if (run->state != RUN_ACTIVE) continue;
        for (size_t k = 0; k < run->rq_len && k < QUEUE_SCAN;) {
            size_t t = run->requeue[run->rq_head + k];
            if (t >= run->ntasks || run->jobs[t].state != JOB_PENDING) {
                queue_remove(run, k); /* settled or given up meanwhile */
                continue;
            }
            if (ply__eligible(c, run, t, p, no_hash)) {
                queue_remove(run, k);
                *out = run, *idx = t;
                return 1;
            }
            k++;
        }
        while (run->next_pending < run->plan->njobs) {
            size_t t = run->next_pending++;
            if (run->jobs[t].state != JOB_PENDING) continue; /* restored from the state file */
            if (ply__eligible(c, run, t, p, no_hash)) {
                *out = run, *idx = t;
                return 1;
            }
            run->jobs[t].queued_ms = ply_time_ms();
            if (ply__queue_push(run, t) != 0) ply__run_fail(run, PLY_ENOMEM, "out of memory");
        }
    }
    return 0;
}

/* The estimated nodes of job @k of @run's plan: its share of the plan's estimate. */
static double job_estimate(run_t *run, size_t k)
{
    const ply_split_t *plan = run->plan;
    if (run->lease_weight <= 0) {
        for (size_t i = 0; i < plan->njobs; i++)
            run->lease_weight +=
                (double)(plan->jobs[i].multiplicity ? plan->jobs[i].multiplicity : 1) *
                (double)(plan->jobs[i].cost ? plan->jobs[i].cost : 1);
    }
    double cost = (double)(plan->jobs[k].cost ? plan->jobs[k].cost : 1);
    return (double)plan->estimate * cost / run->lease_weight;
}

/*
 * The deadline of the attempt of task @idx of @run about to go to @p, in ms
 * (monotonic), and its length in *lease. A lease does not rest on the worker's
 * word (heartbeats, node counts): a worker that stays silent, or heartbeats
 * rising counts and never answers, loses the job when it expires, and the
 * expiry is a failed attempt. Without --lease-ms it is sized by the constants
 * of internal.h; a worker counts its jobs one after another, so the clock starts
 * when its jobs already in flight are due.
 */
static uint64_t lease_for(ply_coordinator_t *c, const peer_t *p, run_t *run, size_t idx,
                          uint64_t *lease)
{
    uint64_t now = ply_time_ms(), start = now;
    const job_state_t *j = &run->jobs[idx];
    if (c->cfg.lease_ms) {
        *lease = c->cfg.lease_ms;
        return now + *lease;
    }
    double rate = p->busy_us ? (double)p->nodes * 1e6 / (double)p->busy_us : PLY__LEASE_MIN_RATE;
    double ceiling = PLY__LEASE_MAX_THREAD_RATE * (p->threads ? p->threads : 1);
    rate = rate < PLY__LEASE_MIN_RATE ? PLY__LEASE_MIN_RATE : rate > ceiling ? ceiling : rate;
    double ms = job_estimate(run, idx % run->plan->njobs) / rate * 1000.0 * PLY__LEASE_FACTOR;
    double floor = (double)PLY__LEASE_FLOOR_DEATHS * c->cfg.liveness * c->cfg.heartbeat_ms;
    if (ms < floor) ms = floor;
    ms *= (double)(1u << (j->failures < PLY__LEASE_MAX_DOUBLINGS ? j->failures
                                                                 : PLY__LEASE_MAX_DOUBLINGS));
    *lease = ms > (double)UINT32_MAX ? UINT32_MAX : (uint64_t)ms;
    for (size_t i = 0; i < p->ninflight; i++) {
        size_t k;
        run_t *r = job_find(c, p->inflight[i], &k);
        if (r && r->jobs[k].worker == p && r->jobs[k].deadline_ms > start)
            start = r->jobs[k].deadline_ms;
    }
    return start + *lease;
}

static int handout(ply_coordinator_t *c, peer_t *p, run_t *run, size_t idx, int no_hash)
{
    const ply_split_t *plan = run->plan;
    job_state_t *j = &run->jobs[idx];
    size_t job_idx = idx % plan->njobs;
    int role = (int)(idx / plan->njobs);
    uint64_t job_id = ply__wire_id(run, idx); /* what the worker sees */
    int was_idle = p->ninflight == 0;
    uint64_t lease, deadline = lease_for(c, p, run, idx, &lease);
    if (inflight_add(p, job_id) != 0) return PLY_ENOMEM;
    Ply__Job job = PLY__JOB__INIT;
    job.has_job_id = 1, job.job_id = job_id;
    job.has_attempt = 1, job.attempt = j->attempt + 1;
    job.has_kind = 1, job.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    job.fen = plan->jobs[job_idx].fen;
    job.has_depth = 1, job.depth = plan->job_depth;
    job.has_chess960 = 1, job.chess960 = run->chess960 != 0;
    /* a drill-down asks for the divide of the job alone */
    job.has_stats = 1, job.stats = run->want_stats && role != PLY__DRILL;
    job.has_divide = 1, job.divide = plan->split_depth == 0 || role == PLY__DRILL;
    job.has_run_id = 1, job.run_id = run->id;
    if (no_hash) job.has_no_hash = 1, job.no_hash = 1;
    uint64_t left = deadline - ply_time_ms(); /* from now: its queue ahead included */
    job.has_lease_ms = 1;
    job.lease_ms = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
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
    j->no_hash = (uint8_t)(no_hash != 0);
    j->deadline_ms = deadline;
    j->lease_ms = lease;
    if (j->attempt == 1 && role == PLY__FIRST) run->started++;
    if (!run->started_ms) run->started_ms = ply_time_ms(); /* its time starts: no more queued */
    if (was_idle) p->progress_ms = ply_time_ms(); /* the hang clock starts with its first job */
    p->credit--;
    count(c, CNT_JOBS_SENT);
    ply_debug("run %" PRIu64 ": job %" PRIu64 " attempt %u -> %s%s", run->id, job_id, j->attempt,
              p->name, no_hash ? " (no hash table)" : "");
    ply__on_handout(c, run, idx);
    return 0;
}

/* Hands out tasks one per worker per round, while workers have credit and may take a task. */
static void dispatch(ply_coordinator_t *c)
{
    int progress = 1;
    while (progress) {
        progress = 0;
        for (peer_t *p = c->peers; p; p = p->next) {
            if (p->kind != PEER_WORKER || p->credit == 0 || p->probation) continue;
            run_t *run;
            size_t idx;
            int no_hash = 0;
            if (!next_job(c, p, &run, &idx, &no_hash)) continue;
            if (handout(c, p, run, idx, no_hash) == 0) {
                progress = 1;
            } else if (ply__queue_push(run, idx) != 0) {
                ply__run_fail(run, PLY_ENOMEM, "out of memory");
            }
        }
    }
}

/* ------------------------------------------------------------ worker messages */

static void on_hello(ply_coordinator_t *c, zframe_t *rid, const char *identity, peer_t *p,
                     const Ply__Hello *h)
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
    /* A worker id belongs to one identity. The same key on a new connection is the worker
     * reconnecting: its old session is over. Another identity may not take it over (nor its
     * jobs, nor its record): refused, and asked to say HELLO again later, which succeeds once
     * the holder has left or been declared dead (a worker without CURVE that reconnects waits
     * for that, since nothing proves the new connection is the old worker). */
    for (peer_t *q = c->peers; q; q = q->next)
        if (q != p && q->kind == PEER_WORKER && strcmp(q->worker_id, h->worker_id) == 0) {
            if (strcmp(q->identity, identity) != 0 || strncmp(identity, "curve:", 6) != 0) {
                count(c, CNT_MALFORMED);
                ply_warn("refused HELLO of worker id %s from %s: it is held by %s", h->worker_id,
                         identity, q->identity);
                Ply__Error e = PLY__ERROR__INIT;
                char line[WHY_LEN];
                snprintf(line, sizeof line,
                         "worker id %s is held by another connected worker: choose another id, "
                         "or wait until it leaves",
                         h->worker_id);
                e.has_code = 1, e.code = PLY_EAUTH; /* a refusal, told apart from "send HELLO" */
                e.message = line;
                e.has_say_hello = 1, e.say_hello = 1;
                ply_msg_t m = PLY__MESSAGE__INIT;
                m.body_case = PLY__MESSAGE__BODY_ERROR;
                m.error = &e;
                send_msg(c, rid, &m);
                if (p) worker_remove(c, p, 0, "said HELLO with a worker id held by another");
                return;
            }
            worker_remove(c, q, 0, "reconnected");
            break;
        }
    if (p) {
        worker_release_jobs(c, p, 0, "worker said HELLO again");
    } else if (!(p = peer_add(c, rid, identity, PEER_WORKER))) {
        send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        return;
    }
    snprintf(p->name, sizeof p->name, "worker %s", h->worker_id);
    snprintf(p->worker_id, sizeof p->worker_id, "%s", h->worker_id);
    p->threads = h->threads;
    p->hash_mib = h->hash_mib;
    p->seed = h->has_zobrist_seed ? h->zobrist_seed : 0;
    p->id_hash = ply__hash_id(p->worker_id);
    p->progress_ms = ply_time_ms();
    p->hb_nodes = 0;
    p->probation = 0;
    for (unsigned i = 0; i < c->nhung; i++)
        if (c->hung[i] == p->id_hash) { /* it hung before: a job only once it counts again */
            p->probation = 1;
            p->probation_nodes = c->hung_nodes[i];
            p->probation_until_ms = ply_time_ms() + c->cfg.hang_ms;
        }
    count(c, CNT_WORKERS_JOINED);
    ply_info("%s joined as %s: %u threads, %u MiB hash, build %s, zobrist seed %u, checksum "
             "%016" PRIx64 "%s",
             p->name, p->identity, h->threads, h->hash_mib, h->build ? h->build : "?", p->seed,
             h->zobrist_checksum, p->probation ? " (hung before: on probation)" : "");
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

/*
 * s = 0: the worker's divide, checked against the arbiter's root moves, into
 * the computation's per-root-move arrays (plan order).
 */
static int take_divide(const run_t *run, const Ply__Result *r, ply__comp_t *k, char *why,
                       size_t why_len)
{
    const ply_split_t *plan = run->plan;
    if ((int)r->n_divide != plan->nroot) {
        ply_why(why, why_len, 0, "divide has %zu moves, the arbiter has %d", r->n_divide,
                plan->nroot);
        return PLY_EMISMATCH;
    }
    k->divide = calloc((size_t)plan->nroot + 1, sizeof *k->divide);
    k->divide_stats =
        run->want_stats ? calloc((size_t)plan->nroot + 1, sizeof *k->divide_stats) : NULL;
    if (!k->divide || (run->want_stats && !k->divide_stats)) return PLY_ENOMEM;
    uint64_t sum = 0; /* one job's: it fits in 64 bits, or the divide is wrong */
    int have_stats = 1;
    uint8_t seen[PLY_ARB_MAX_MOVES] = {0};
    for (size_t i = 0; i < r->n_divide; i++) {
        const Ply__DivideEntry *e = r->divide[i];
        ply_arb_move_t mv;
        int k_ = -1;
        if (ply_arb_move_from_uci(&plan->root, e->move, &mv) == 0)
            for (int m = 0; m < plan->nroot; m++)
                if (plan->root_moves[m].from == mv.from && plan->root_moves[m].to == mv.to &&
                    plan->root_moves[m].promo == mv.promo &&
                    /* Chess960: a king step and a castle may share from and to */
                    ((plan->root_moves[m].flags ^ mv.flags) & PLY_ARB_MOVE_CASTLE) == 0)
                    k_ = m;
        if (k_ < 0) {
            ply_why(why, why_len, 0, "divide move %s is not legal", e->move);
            return PLY_EMISMATCH;
        }
        if (seen[k_]++) {
            ply_why(why, why_len, 0, "divide move %s appears twice", e->move);
            return PLY_EMISMATCH;
        }
        k->divide[k_] = e->nodes;
        if (__builtin_add_overflow(sum, e->nodes, &sum)) {
            ply_why(why, why_len, 0, "divide sums past 2^64 but nodes = %" PRIu64, r->nodes);
            return PLY_EMISMATCH;
        }
        if (run->want_stats && e->stats)
            ply_msg_stats_from_proto(&k->divide_stats[k_], e->stats);
        else
            have_stats = 0;
    }
    if (sum != r->nodes) {
        ply_why(why, why_len, 0, "divide sums to %" PRIu64 " but nodes = %" PRIu64, sum, r->nodes);
        return PLY_EMISMATCH;
    }
    if (!have_stats) {
        free(k->divide_stats);
        k->divide_stats = NULL;
    }
    return 0;
}

/*
 * A result of worker @p for task @t failed a check against the rule engine
 * (perft(1), statistics, divide): that attempt is over (counted towards
 * max_attempts, the task goes to another worker) and @p's identity is caught
 * wrong: excluded from the run, its other results in it recomputed. Never
 * the run: it fails only when no other worker can settle the task.
 */
static void check_failed(ply_coordinator_t *c, run_t *run, size_t t, peer_t *p, const char *why)
{
    ply_warn("run %" PRIu64 ": %s", run->id, why);
    job_requeue(c, run, t, 1, why);
    if (run->state == RUN_ACTIVE) ply__exclude(c, run, p->identity, p->worker_id, why);
}

/*
 * A worker's RESULT: checked (attempt, perft(1), statistics, divide), stored,
 * then counted or kept for comparison (verify.c). A result from a superseded
 * attempt or for an unknown task is ignored and logged.
 */
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
    p->nodes += r->nodes; /* 128-bit: it cannot wrap for 2^64 results */
    if (!p->nodes_owner[0] && !p->nodes_mixed)
        snprintf(p->nodes_owner, sizeof p->nodes_owner, "%s", run->owner[0] ? run->owner : "-");
    else if (strcmp(p->nodes_owner, run->owner[0] ? run->owner : "-") != 0)
        p->nodes_mixed = 1;
    p->busy_us += r->time_us;
    p->progress_ms = ply_time_ms();
    if (idx / run->plan->njobs == PLY__DRILL) {
        j->state = JOB_DONE;
        j->worker = NULL;
        ply__drill_result(c, run, idx, r);
        return;
    }
    const ply_split_job_t *sj = &run->plan->jobs[idx % run->plan->njobs];
    char why[WHY_LEN];
    if (r->perft1 != sj->perft1) {
        snprintf(why, sizeof why,
                 "perft(1) mismatch at %s: %s says %u, the arbiter says %u (job %" PRIu64
                 ", attempt %u)",
                 sj->fen, p->name, r->perft1, sj->perft1, run->job_base + idx, r->attempt);
        check_failed(c, run, idx, p, why);
        return;
    }
    ply__comp_t k;
    memset(&k, 0, sizeof k);
    k.have = 1;
    k.nodes = r->nodes;
    k.seed = p->seed;
    k.attempt = r->attempt;
    k.no_hash = j->no_hash;
    k.time_us = r->time_us;
    k.tt_probes = r->tt_probes;
    k.tt_hits = r->tt_hits;
    snprintf(k.worker, sizeof k.worker, "%.*s", (int)sizeof k.worker - 1, p->worker_id);
    snprintf(k.identity, sizeof k.identity, "%s", p->identity);
    if (run->want_stats) {
        if (!r->stats) {
            job_requeue(c, run, idx, 1, "the worker returned no statistics");
            return;
        }
        k.has_stats = 1;
        ply_msg_stats_from_proto(&k.stats, r->stats);
        if (k.stats.v[PLY_STAT_nodes] != r->nodes) {
            snprintf(why, sizeof why,
                     "%s at %s: stats.nodes = %" PRIu64 " but nodes = %" PRIu64 " (job %" PRIu64
                     ")",
                     p->name, sj->fen, k.stats.v[PLY_STAT_nodes], r->nodes, run->job_base + idx);
            check_failed(c, run, idx, p, why);
            return;
        }
    }
    int rc = run->plan->split_depth == 0 ? take_divide(run, r, &k, why, sizeof why) : 0;
    if (rc == PLY_ENOMEM) {
        ply__comp_free(&k);
        j->state = JOB_DONE;
        ply__run_fail(run, rc, "%s at %s: out of memory (job %" PRIu64 ")", p->name, sj->fen,
                      run->job_base + idx);
        return;
    }
    if (rc < 0) {
        ply__comp_free(&k);
        char line[2 * WHY_LEN];
        snprintf(line, sizeof line, "%s at %s: %s (job %" PRIu64 ")", p->name, sj->fen, why,
                 run->job_base + idx);
        check_failed(c, run, idx, p, line);
        return;
    }
    /* stored before it counts: a restart never loses nor recomputes it */
    if (ply__comp_store(c, run, idx, &k, why, sizeof why) < 0) {
        ply__comp_free(&k);
        j->state = JOB_DONE;
        ply__run_fail(run, PLY_EDB, "%s", why);
        return;
    }
    j->worker = NULL;
    count(c, CNT_RESULTS_COMPUTED);
    run->results_computed++;
    k.live = 1;
    k.tt_nodes = r->has_tt_nodes ? r->tt_nodes : 0;
    ply__take(c, run, idx, &k, 1);
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

/* An Error telling a worker this coordinator does not know it that it must say HELLO again. */
static void say_hello(ply_coordinator_t *c, zframe_t *rid, const char *line)
{
    Ply__Error e = PLY__ERROR__INIT;
    e.has_code = 1, e.code = PLY_ESTATE;
    e.message = (char *)line;
    e.has_say_hello = 1, e.say_hello = 1;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ERROR;
    m.error = &e;
    send_msg(c, rid, &m);
}

static void on_worker_message(ply_coordinator_t *c, zframe_t *rid, peer_t *p, ply_msg_t *msg)
{
    if (!p || p->kind != PEER_WORKER) {
        if (msg->body_case == PLY__MESSAGE__BODY_HEARTBEAT) {
            /* A worker this coordinator does not know (it restarted, or dropped the
             * worker) hears at once that it must say HELLO; a client's keepalive
             * carries no node count. */
            if (!p && msg->heartbeat->has_nodes) say_hello(c, rid, "unknown worker: send HELLO");
            return;
        }
        if (msg->body_case == PLY__MESSAGE__BODY_BYE) {
            if (p) peer_unlink(c, p);
            return;
        }
        count(c, CNT_MALFORMED);
        char line[96];
        snprintf(line, sizeof line, "%s before HELLO: send HELLO first", ply_msg_type_name(msg));
        say_hello(c, rid, line);
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
    case PLY__MESSAGE__BODY_HEARTBEAT: {
        /* the node count is the worker's proof of progress (hang detection) */
        const Ply__Heartbeat *hb = msg->heartbeat;
        if (hb->has_nodes && hb->nodes != p->hb_nodes) {
            p->hb_nodes = hb->nodes;
            p->progress_ms = ply_time_ms();
            if (p->probation && hb->nodes > p->probation_nodes) {
                p->probation = 0;
                ply_info("%s counts again: jobs resume", p->name);
            }
        }
        break;
    }
    default: /* PROGRESS: liveness only (last_seen already updated) */
        break;
    }
}

/* ------------------------------------------------------------ client messages */

static void split_work(uv_work_t *w)
{
    run_t *run = w->data;
    run->split_rc = ply_split_plan(&run->root, run->depth, run->want_split, &run->cancel,
                                   &run->split_out, run->split_why, sizeof run->split_why);
}

static int run_setup(ply_coordinator_t *c, run_t *run)
{
    const ply_split_t *plan = run->plan;
    run->divide = calloc((size_t)plan->nroot + 1, sizeof *run->divide);
    run->divide_stats = calloc((size_t)plan->nroot + 1, sizeof *run->divide_stats);
    if (!run->divide || !run->divide_stats || ply__verify_setup(run) < 0) return PLY_ENOMEM;
    run->job_base = c->next_job_base;
    c->next_job_base += run->ntasks;
    run->accepted_ms = ply_time_ms();
    run->state = plan->njobs ? RUN_ACTIVE : RUN_DONE;
    return 0;
}

static void send_accepted(ply_coordinator_t *c, zframe_t *rid, const run_t *run)
{
    const ply_split_t *plan = run->plan;
    Ply__Accepted a = PLY__ACCEPTED__INIT;
    a.has_run_id = 1, a.run_id = run->id;
    a.has_jobs = 1, a.jobs = (uint32_t)plan->njobs;
    a.has_split_depth = 1, a.split_depth = plan->split_depth;
    a.has_paths = 1, a.paths = plan->paths;
    a.fen = (char *)run->fen;
    Ply__RunAsked asked;
    run_asked(&asked, run);
    a.asked = &asked;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ACCEPTED;
    m.accepted = &a;
    send_msg(c, rid, &m);
}

/* The run and its plan into the state file (one transaction), before anyone hears "accepted". */
static int store_run(ply_coordinator_t *c, const run_t *run, char *why, size_t why_len)
{
    if (!c->store) return 0;
    ply__batch_flush(c); /* its own transaction */
    ply_store_run_t sr;
    memset(&sr, 0, sizeof sr);
    sr.id = run->id;
    snprintf(sr.fen, sizeof sr.fen, "%s", run->fen);
    sr.depth = run->depth;
    sr.chess960 = run->chess960;
    sr.stats = run->want_stats;
    sr.want_split = run->want_split;
    sr.verify_mode = run->verify_mode;
    sr.verify_ppm = run->verify_ppm;
    sr.job_base = run->job_base;
    sr.slots = run->slots;
    sr.submitted_unix_ms = run->submitted_unix_ms;
    snprintf(sr.owner, sizeof sr.owner, "%s", run->owner);
    uint64_t t0 = ply_time_ns();
    int r = ply_store_add_run(c->store, &sr, run->plan, why, why_len);
    if (r == 0)
        ply_info("run %" PRIu64 ": %zu jobs stored in %.1f ms", run->id, run->plan->njobs,
                 (double)(ply_time_ns() - t0) / 1e6);
    return r;
}

static void split_done(uv_work_t *w, int status)
{
    run_t *run = w->data;
    ply_coordinator_t *c = run->c;
    char why[WHY_LEN] = "";
    c->pending_work--;
    run->plan = run->split_out; /* the split thread is done with it (see internal.h) */
    run->split_out = NULL;
    if (status == UV_ECANCELED || c->state != C_RUNNING) {
        ply__run_fail(run, PLY_ECANCELED, "coordinator stopping");
    } else if (run->canceled) {
        ply__run_fail(run, PLY_ECANCELED, "run %" PRIu64 " canceled", run->id);
    } else if (run->split_rc < 0) {
        ply__run_fail(run, run->split_rc, "cannot split perft(%u) of %s: %s", run->depth, run->fen,
                      run->split_why);
    } else if (run_setup(c, run) < 0) {
        ply__run_fail(run, PLY_ENOMEM, "out of memory setting up run %" PRIu64, run->id);
    } else if (store_run(c, run, why, sizeof why) < 0) {
        ply__run_fail(run, PLY_EDB, "run %" PRIu64 " not accepted: %s", run->id, why);
        run->interrupted = 1; /* nothing of it is in the state file to finish */
    } else {
        const ply_split_t *plan = run->plan;
        ply_info("run %" PRIu64 ": perft(%u) of %s: split %u plies, %" PRIu64
                 " paths, %zu jobs, estimate %" PRIu64 " nodes, verify %s",
                 run->id, run->depth, run->fen, plan->split_depth, plan->paths, plan->njobs,
                 plan->estimate, run->verify_text);
        send_accepted(c, run->client, run);
    }
    pump(c);
}

/*
 * A run read back from the state file that nobody has claimed, that asks
 * exactly what @want asks and that its owner may read: `ply perft --state
 * FILE ...` run again resumes it.
 */
static run_t *restored_match(ply_coordinator_t *c, const run_t *want)
{
    for (run_t *run = c->runs; run; run = run->next)
        if (run->restored && !run->client && run->state == RUN_ACTIVE &&
            run->depth == want->depth && run->chess960 == want->chess960 &&
            run->want_stats == want->want_stats && run->want_split == want->want_split &&
            run->verify_mode == want->verify_mode && run->verify_ppm == want->verify_ppm &&
            strcmp(run->fen, want->fen) == 0 && may_read(c, run->owner, want->owner))
            return run;
    return NULL;
}

/*
 * A new run id: random in 1..PLY_MAX_RUN_ID (envelope.h says why), not one of
 * a run in memory or in the state file. 0 when the kernel has no random bytes
 * or the state file cannot be read: the run is refused rather than given an id
 * that could be another's.
 */
static uint64_t new_run_id(ply_coordinator_t *c)
{
    for (int tries = 0; tries < 16; tries++) {
        uint64_t id;
        if (ply_random_u64(&id) < 0) return 0;
        id &= PLY_MAX_RUN_ID;
        int stored = c->store ? ply_store_has_run(c->store, id) : 0;
        if (id && stored == 0 && !run_find(c, id) && !finished_find(c, id)) return id;
        if (stored < 0) return 0;
    }
    return 0;
}

static void on_submit(ply_coordinator_t *c, zframe_t *rid, const char *who, const Ply__Submit *s)
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
    snprintf(run->owner, sizeof run->owner, "%s", who);
    run->root = root;
    run->depth = s->depth;
    run->want_split = s->has_split_depth ? s->split_depth : -1;
    run->want_stats = s->stats;
    run->chess960 = s->chess960 || root.chess960;
    run->detach = s->detach;
    run->verify_mode = s->has_verify ? (int)s->verify : PLY__VERIFY_MODE__VERIFY_MODE_NONE;
    run->verify_ppm = run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE ? s->verify_ppm : 0;
    ply__verify_mode_text(run->verify_mode, run->verify_ppm, run->verify_text,
                          sizeof run->verify_text);
    run->submitted_ms = ply_time_ms();
    run->submitted_unix_ms = unix_ms();
    atomic_init(&run->cancel, 0);
    if (ply_arb_to_fen(&root, run->fen, sizeof run->fen) < 0)
        snprintf(run->fen, sizeof run->fen, "%s", s->fen);
    run_t *old = restored_match(c, run);
    if (old) {
        old->client = run->client;
        old->detach = run->detach;
        run->client = NULL;
        run_free(run);
        ply_info("run %" PRIu64 ": the same request again: resuming it (%zu of %zu jobs done)",
                 old->id, old->done, old->plan->njobs);
        send_accepted(c, old->client, old);
        return;
    }
    if (!(run->id = new_run_id(c))) {
        send_error(c, rid, PLY_EIO, 0,
                   "cannot choose a run id (no random bytes, or the state "
                   "file cannot be read)");
        run_free(run);
        return;
    }
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

run_t *ply__run_find(ply_coordinator_t *c, uint64_t id)
{
    return run_find(c, id);
}

static int add_recent(void *arg, const ply_store_finished_t *sf);

typedef struct recent {
    Ply__RunProgress *rp;
    finished_t *fin;
    size_t n, max;
    const uint64_t *skip; /* ids already listed */
    size_t nskip;
} recent_t;

/* One finished run from the state file into the StatusReply (unless listed already). */
static int add_recent(void *arg, const ply_store_finished_t *sf)
{
    recent_t *r = arg;
    for (size_t i = 0; i < r->nskip; i++)
        if (r->skip[i] == sf->id) return 0;
    if (r->n >= r->max) return 1;
    finished_from_store(&r->fin[r->n], sf);
    r->n++;
    return 0;
}

/*
 * STATUS without a run id: one StatusReply with the runs in progress, the
 * last finished ones (memory first, then the state file), the workers and the
 * coordinator's counters.
 */
static void send_status_reply(ply_coordinator_t *c, zframe_t *rid, const char *who)
{
    size_t nrun = 0;
    for (run_t *run = c->runs; run; run = run->next) nrun++;
    if (nrun > PLY_MAX_STATUS_RUNS - STATUS_FINISHED) nrun = PLY_MAX_STATUS_RUNS - STATUS_FINISHED;
    size_t cap = nrun + STATUS_FINISHED;
    Ply__RunProgress *rp = calloc(cap, sizeof *rp);
    Ply__RunAsked *asked = calloc(cap, sizeof *asked);
    Ply__RunProgress **rpp = calloc(cap, sizeof *rpp);
    finished_t *fin = calloc(STATUS_FINISHED, sizeof *fin);
    uint64_t *ids = calloc(cap, sizeof *ids);
    if (!rp || !asked || !rpp || !fin || !ids) {
        send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        free(rp), free(asked), free(rpp), free(fin), free(ids);
        return;
    }
    size_t n = 0;
    for (run_t *run = c->runs; run && n < nrun; run = run->next) {
        ids[n] = run->id;
        fill_progress(c, &rp[n], &asked[n], run, NULL, who);
        n++;
    }
    size_t nfin = 0;
    for (finished_t *f = c->finished; f && nfin < STATUS_FINISHED; f = f->next) {
        ids[n] = f->id;
        fill_progress(c, &rp[n], &asked[n], NULL, f, who);
        n++;
        nfin++;
    }
    recent_t rec = {rp, fin, 0, STATUS_FINISHED - nfin, ids, n};
    if (c->store && rec.max) ply_store_recent(c->store, STATUS_FINISHED, add_recent, &rec);
    for (size_t i = 0; i < rec.n; i++, n++) fill_progress(c, &rp[n], &asked[n], NULL, &fin[i], who);
    for (size_t i = 0; i < n; i++) rpp[i] = &rp[i];
    Ply__StatusReply sr = PLY__STATUS_REPLY__INIT;
    sr.n_run = n, sr.run = rpp;
    Ply__WorkerStatus *ws = NULL, **wp = NULL;
    sr.n_worker = worker_list(c, &ws, &wp, who);
    sr.worker = wp;
    ply_coordinator_counters_t k;
    ply_coordinator_counters(c, &k);
    sr.has_uptime_ms = 1, sr.uptime_ms = ply_time_ms() - c->started_ms;
    sr.has_durable = 1, sr.durable = c->store != NULL;
    sr.has_runs_restored = 1, sr.runs_restored = c->runs_restored;
    sr.has_results_restored = 1, sr.results_restored = c->results_restored;
    sr.has_jobs_sent = 1, sr.jobs_sent = k.jobs_sent;
    sr.has_jobs_requeued = 1, sr.jobs_requeued = k.jobs_requeued;
    sr.has_results_ignored = 1, sr.results_ignored = k.results_ignored;
    sr.has_workers_lost = 1, sr.workers_lost = k.workers_lost;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_STATUS_REPLY;
    m.status_reply = &sr;
    send_msg(c, rid, &m);
    free(rp), free(asked), free(rpp), free(fin), free(ids), free(ws), free(wp);
}

/* STATUS: anyone sees that a run exists and how far it is; its count only its owner. */
static void on_status(ply_coordinator_t *c, zframe_t *rid, const char *who,
                      const Ply__StatusRequest *s)
{
    if (s->has_run_id) {
        finished_t tmp;
        run_t *run = run_find(c, s->run_id);
        finished_t *f = run ? NULL : finished_lookup(c, s->run_id, &tmp);
        if (run || f)
            send_progress(c, rid, run, f, 1, who);
        else
            send_error(c, rid, PLY_ENOTFOUND, s->run_id, "no run %" PRIu64, s->run_id);
        if (f == &tmp) zmsg_destroy(&tmp.reply);
        return;
    }
    send_status_reply(c, rid, who);
}

/*
 * RESULT_REQUEST: a finished run's answer again (from memory or the state
 * file), or a running run's progress. With attach, the asking client also
 * becomes the run's client: a `ply perft` that lost its coordinator to a
 * restart gets its streaming and its result back.
 */
static void on_result_request(ply_coordinator_t *c, zframe_t *rid, const char *who,
                              const Ply__ResultRequest *q)
{
    finished_t tmp;
    run_t *run = run_find(c, q->run_id);
    finished_t *f = run ? NULL : finished_lookup(c, q->run_id, &tmp);
    if ((run || f) && !may_read(c, run ? run->owner : f->owner, who)) {
        ply_info("run %" PRIu64 ": answer refused to %s (not its owner)", q->run_id, who);
        send_error(c, rid, PLY_EAUTH, q->run_id,
                   "run %" PRIu64 " belongs to another client: only its owner (or an admin "
                   "key) may read its answer",
                   q->run_id);
    } else if (run) {
        if (q->attach && run->state != RUN_FAILED && run->state != RUN_DONE) {
            zframe_t *id = zframe_dup(rid);
            if (id) {
                if (!run->client || !zframe_eq(run->client, rid))
                    ply_info("run %" PRIu64 ": a client attached", run->id);
                zframe_destroy(&run->client);
                run->client = id;
                run->detach = 0;
            }
        }
        send_progress(c, rid, run, NULL, 0, who);
    } else if (f && f->reply) {
        send_raw(c, rid, f->reply);
    } else if (f) {
        send_error(c, rid, PLY_ENOTFOUND, q->run_id, "run %" PRIu64 " %s; its answer is lost",
                   q->run_id, f->state);
    } else {
        send_error(c, rid, PLY_ENOTFOUND, q->run_id, "no run %" PRIu64 "%s", q->run_id,
                   c->store ? "" : " (or it is too old; a coordinator without --state forgets)");
    }
    if (f == &tmp) zmsg_destroy(&tmp.reply);
}

/* CANCEL: only the run's owner (or an admin key) stops it. */
static void on_cancel(ply_coordinator_t *c, zframe_t *rid, const char *who, const Ply__Cancel *q)
{
    run_t *run = run_find(c, q->run_id);
    if (run && !may_read(c, run->owner, who)) {
        ply_info("run %" PRIu64 ": cancel refused to %s (not its owner)", run->id, who);
        send_error(c, rid, PLY_EAUTH, q->run_id,
                   "run %" PRIu64 " belongs to another client: only its owner (or an admin "
                   "key) may cancel it",
                   q->run_id);
        return;
    }
    if (!run) {
        finished_t tmp;
        finished_t *f = finished_lookup(c, q->run_id, &tmp);
        if (f)
            send_error(c, rid, PLY_ESTATE, q->run_id, "run %" PRIu64 " has already finished",
                       q->run_id);
        else
            send_error(c, rid, PLY_ENOTFOUND, q->run_id, "no run %" PRIu64, q->run_id);
        if (f == &tmp) zmsg_destroy(&tmp.reply);
        return;
    }
    run->canceled = 1;
    if (run->state == RUN_SPLITTING) {
        atomic_store(&run->cancel, 1); /* split_done answers */
    } else {
        ply__run_fail(run, PLY_ECANCELED, "run %" PRIu64 " canceled", run->id);
    }
    ply_info("run %" PRIu64 ": canceled by %s", run->id, who);
    send_progress(c, rid, run, NULL, 0, who);
}

static void on_client_message(ply_coordinator_t *c, zframe_t *rid, const char *identity, peer_t *p,
                              ply_msg_t *msg)
{
    if (p && p->kind == PEER_WORKER) {
        count(c, CNT_MALFORMED);
        send_error(c, rid, PLY_ESTATE, 0, "%s from a worker: workers may not send it",
                   ply_msg_type_name(msg));
        return;
    }
    if (!p) peer_add(c, rid, identity, PEER_CLIENT); /* fails only on ENOMEM: served anyway */
    ply__batch_flush(c); /* a status must not show uncommitted results */
    if (c->state != C_RUNNING) {
        send_error(c, rid, PLY_ESTATE, 0, "coordinator stopping");
        return;
    }
    const char *token = msg->body_case == PLY__MESSAGE__BODY_SUBMIT   ? msg->submit->owner_token
                        : msg->body_case == PLY__MESSAGE__BODY_STATUS ? msg->status->owner_token
                        : msg->body_case == PLY__MESSAGE__BODY_RESULT_REQUEST
                            ? msg->result_request->owner_token
                            : msg->cancel->owner_token;
    char who[PLY__IDENT_LEN];
    principal(identity, token, who, sizeof who);
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_SUBMIT:
        on_submit(c, rid, who, msg->submit);
        break;
    case PLY__MESSAGE__BODY_STATUS:
        on_status(c, rid, who, msg->status);
        break;
    case PLY__MESSAGE__BODY_RESULT_REQUEST:
        on_result_request(c, rid, who, msg->result_request);
        break;
    default:
        on_cancel(c, rid, who, msg->cancel);
        break;
    }
}

/* Receives and handles one message (there is one: ZMQ_EVENTS said POLLIN). */
static void handle_one(ply_coordinator_t *c)
{
    zframe_t *rid = NULL;
    ply_msg_t *msg = NULL;
    char why[WHY_LEN], peer_key[128]; /* peer_key: its CURVE identity (security.h), or "" */
    int r = ply_curve_recv_from(c->router, &rid, &msg, peer_key, sizeof peer_key, why, sizeof why);
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
    if ((r = ply_curve_role_check(peer_key, msg, why, sizeof why)) < 0) { /* CURVE key roles */
        count(c, CNT_MALFORMED);
        ply_warn("%s", why);
        send_error(c, rid, r, 0, "%s", why);
        ply_msg_free(&msg);
        zframe_destroy(&rid);
        return;
    }
    char identity[PLY__IDENT_LEN];
    ply__identity(rid, peer_key, identity, sizeof identity);
    if (p && strcmp(p->identity, identity) != 0) { /* cannot happen with libzmq: never trusted */
        count(c, CNT_MALFORMED);
        ply_warn("%s: a message from %s on its connection, dropped", p->name, identity);
        ply_msg_free(&msg);
        zframe_destroy(&rid);
        return;
    }
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_HELLO:
        on_hello(c, rid, identity, p, msg->hello);
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
        on_client_message(c, rid, identity, p, msg);
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
void ply__pump(ply_coordinator_t *c)
{
    pump(c);
}

static void pump(ply_coordinator_t *c)
{
    for (;;) {
        reap_runs(c);
        if (c->state != C_RUNNING) return;
        dispatch(c);
        /* drain up to PUMP_DRAIN messages before the next dispatch round */
        int n = 0;
        while (n < PUMP_DRAIN && (zsock_events(c->router) & ZMQ_POLLIN)) {
            handle_one(c);
            n++;
        }
        if (!n) return;
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
        if (!run->detach && run->client) send_msg(c, run->client, &m);
}

/* Keeps the worker id of a hung worker, so that it gets no job right after reconnecting. */
static void remember_hung(ply_coordinator_t *c, const peer_t *p)
{
    unsigned i = 0;
    while (i < c->nhung && c->hung[i] != p->id_hash) i++;
    if (i == c->nhung) {
        if (c->nhung == PLY__HUNG_KEEP) {
            memmove(c->hung, c->hung + 1, (PLY__HUNG_KEEP - 1) * sizeof *c->hung);
            memmove(c->hung_nodes, c->hung_nodes + 1, (PLY__HUNG_KEEP - 1) * sizeof *c->hung_nodes);
            c->nhung--;
        }
        i = c->nhung++;
    }
    c->hung[i] = p->id_hash;
    c->hung_nodes[i] = p->hb_nodes;
}

static void check_peers(ply_coordinator_t *c, uint64_t now)
{
    uint64_t dead_ms = (uint64_t)c->cfg.liveness * c->cfg.heartbeat_ms;
    peer_t *next;
    for (peer_t *p = c->peers; p; p = next) {
        next = p->next;
        uint64_t silent = ply_elapsed_ms(now, p->last_seen_ms);
        if (p->kind == PEER_WORKER && silent > dead_ms) {
            char reason[128];
            snprintf(reason, sizeof reason, "silent for %" PRIu64 " ms: dead", silent);
            count(c, CNT_WORKERS_LOST);
            worker_remove(c, p, 1, reason);
        } else if (p->kind == PEER_WORKER && c->cfg.hang_ms && p->ninflight &&
                   ply_elapsed_ms(now, p->progress_ms) > c->cfg.hang_ms) {
            /* alive (it heartbeats) but its node count does not move: hung */
            char reason[192];
            snprintf(reason, sizeof reason,
                     "hung: node count stuck at %" PRIu64 " for %" PRIu64 " ms with %zu job(s)",
                     p->hb_nodes, ply_elapsed_ms(now, p->progress_ms), p->ninflight);
            count(c, CNT_WORKERS_LOST);
            count(c, CNT_WORKERS_HUNG);
            remember_hung(c, p);
            for (size_t i = 0; i < p->ninflight; i++) { /* it may only be slow: stop it */
                size_t idx;
                run_t *run = job_find(c, p->inflight[i], &idx);
                if (run && run->jobs[idx].state == JOB_INFLIGHT && run->jobs[idx].worker == p)
                    cancel_on_worker(c, p, run, idx);
            }
            Ply__Bye bye = PLY__BYE__INIT;
            bye.reason = "dropped: no progress";
            ply_msg_t m = PLY__MESSAGE__INIT;
            m.body_case = PLY__MESSAGE__BODY_BYE;
            m.bye = &bye;
            send_msg(c, p->rid, &m);
            worker_remove(c, p, 1, reason);
        } else if (p->kind == PEER_WORKER && p->probation && now > p->probation_until_ms) {
            p->probation = 0; /* another chance: perhaps it was only very slow */
        } else if (p->kind == PEER_CLIENT && silent > CLIENT_FORGET_PERIODS * dead_ms) {
            peer_unlink(c, p);
        }
    }
}

static void check_leases(ply_coordinator_t *c, uint64_t now)
{
    for (peer_t *p = c->peers; p; p = p->next) {
        if (p->kind != PEER_WORKER) continue;
        for (size_t i = 0; i < p->ninflight;) {
            size_t idx;
            run_t *run = job_find(c, p->inflight[i], &idx);
            job_state_t *j = run ? &run->jobs[idx] : NULL;
            if (j && j->state == JOB_INFLIGHT && j->worker == p && j->deadline_ms &&
                now > j->deadline_ms) {
                cancel_on_worker(c, p, run, idx);
                p->inflight[i] = p->inflight[--p->ninflight];
                char reason[192];
                snprintf(reason, sizeof reason, "lease of %" PRIu64 " ms expired on %s",
                         j->lease_ms, p->name);
                job_requeue(c, run, idx, 1, reason);
            } else {
                i++;
            }
        }
    }
}

static unsigned slots_left(const ply_coordinator_t *c);

/* No worker: the runs fail after worker_wait_ms, or at once when the local workers were
 * all that could come and every slot has been given up. */
static void check_worker_wait(ply_coordinator_t *c, uint64_t now)
{
    const proc_t *dead = c->nprocs && !slots_left(c) ? c->proc_lost : NULL;
    if (c->nworkers || (!c->cfg.worker_wait_ms && !dead)) return;
    for (run_t *run = c->runs; run; run = run->next) {
        /* a run read back from the state file, with nobody waiting for it, waits for
         * workers as long as it takes: failing it would end it for good */
        if (run->state != RUN_ACTIVE || (run->restored && !run->client)) continue;
        uint64_t since =
            run->accepted_ms > c->no_worker_since_ms ? run->accepted_ms : c->no_worker_since_ms;
        if (dead) {
            ply__run_fail(run, PLY_EWORKER,
                          "every local worker died and none could be kept running (last: %s)",
                          dead->last_exit);
        } else if (ply_elapsed_ms(now, since) >= c->cfg.worker_wait_ms) {
            char s[32];
            ply__run_fail(run, PLY_EWORKER, "no worker connected within %s s",
                          seconds(c->cfg.worker_wait_ms, s, sizeof s));
        }
    }
}

static void on_tick(uv_timer_t *t)
{
    ply_coordinator_t *c = t->data;
    uint64_t now = ply_time_ms();
    /* group commit: the results of the last tick period in one transaction, before any
     * progress report shows them */
    ply__batch_flush(c);
    check_peers(c, now);
    check_leases(c, now);
    check_worker_wait(c, now);
    ply__verify_tick(c, now);
    if (now - c->last_hb_ms >= c->cfg.heartbeat_ms) {
        c->last_hb_ms = now;
        send_heartbeats(c);
    }
    if (now - c->last_progress_ms >= PROGRESS_MS) {
        c->last_progress_ms = now;
        for (run_t *run = c->runs; run; run = run->next)
            if (run->state == RUN_ACTIVE && !run->detach && run->client)
                send_progress(c, run->client, run, NULL, 0, run->owner);
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

static int spawn_one(ply_coordinator_t *c, unsigned i, char *why, size_t why_len);
static void check_worker_wait(ply_coordinator_t *c, uint64_t now);

/* Local worker slots still running or to be started again. */
static unsigned slots_left(const ply_coordinator_t *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->nprocs; i++) n += !c->procs[i].given_up;
    return n;
}

/*
 * A local worker's handle is closed: start the slot again unless it died too
 * often; when no slot is left and no other worker is connected, the active
 * runs fail now, saying why, instead of waiting worker_wait_ms for nobody.
 */
static void on_proc_closed(uv_handle_t *h)
{
    proc_t *pr = h->data;
    ply_coordinator_t *c = pr->c;
    if (c->state >= C_STOPPING) return;
    uint64_t now = ply_time_ms();
    if (now - pr->window_ms > PLY__RESPAWN_WINDOW_MS) {
        pr->window_ms = now;
        pr->deaths = 0;
    }
    char why[256];
    if (++pr->deaths > PLY__RESPAWN_MAX) {
        pr->given_up = 1;
        c->proc_lost = pr;
        ply_warn("local worker %u died %u times within %u s (last: %s): not started again",
                 pr->index, pr->deaths, PLY__RESPAWN_WINDOW_MS / 1000, pr->last_exit);
    } else if (spawn_one(c, pr->index, why, sizeof why) < 0) {
        pr->given_up = 1;
        c->proc_lost = pr;
        ply_warn("local worker %u: %s", pr->index, why);
    }
    check_worker_wait(c, now);
    pump(c);
}

static void on_proc_exit(uv_process_t *h, int64_t status, int signum)
{
    proc_t *pr = h->data;
    ply_coordinator_t *c = pr->c;
    pr->alive = 0;
    c->procs_alive--;
    if (signum)
        snprintf(pr->last_exit, sizeof pr->last_exit, "pid %d killed by signal %d", h->pid, signum);
    else
        snprintf(pr->last_exit, sizeof pr->last_exit, "pid %d exited with status %" PRId64, h->pid,
                 status);
    if (c->state < C_STOPPING) {
        ply_warn("local worker %u (%s) ended early", pr->index, pr->last_exit);
        /* Its jobs go back to the queue now, not after the heartbeat timeout, and
         * count as failed attempts (a job that kills every worker is quarantined). */
        peer_t *p = ply__worker_by_id(c, pr->id);
        if (p) {
            char reason[160];
            snprintf(reason, sizeof reason, "local worker %u: %s", pr->index, pr->last_exit);
            count(c, CNT_WORKERS_LOST);
            worker_remove(c, p, 1, reason);
        }
    } else {
        ply_debug("local worker %u exited", pr->index);
    }
    uv_close((uv_handle_t *)h, on_proc_closed);
    if (c->state >= C_STOPPING && c->procs_alive == 0 &&
        !uv_is_closing((uv_handle_t *)&c->kill_timer)) {
        uv_timer_stop(&c->kill_timer);
        uv_close((uv_handle_t *)&c->kill_timer, NULL);
    }
}

static int spawn_one(ply_coordinator_t *c, unsigned i, char *why, size_t why_len)
{
    char threads[16], hash[16], seed[16];
    char *args[16];
    int n = 0;
    proc_t *pr = &c->procs[i];
    args[n++] = c->worker_exe;
    args[n++] = "--connect";
    args[n++] = c->worker_endpoint;
    /* a local worker never outlives its coordinator (no reconnecting) */
    args[n++] = "--exit-on-bye";
    /* its id names the slot and the process, so that its peer is found when it dies */
    snprintf(pr->id, sizeof pr->id, "local-%u.%u", i, pr->spawns);
    args[n++] = "--id";
    args[n++] = pr->id;
    /* each its own Zobrist keys, so that --verify can check on another seed */
    snprintf(seed, sizeof seed, "%u", i);
    args[n++] = "--zobrist-seed";
    args[n++] = seed;
    if (c->cfg.worker_threads) {
        snprintf(threads, sizeof threads, "%u", c->cfg.worker_threads);
        args[n++] = "--threads";
        args[n++] = threads;
    }
    /* Always passed: 0 means "no table", not "the worker's default". */
    snprintf(hash, sizeof hash, "%u", c->cfg.worker_hash_mib);
    args[n++] = "--hash";
    args[n++] = hash;
    args[n] = NULL;
    uv_stdio_container_t stdio[3] = {
        {.flags = UV_IGNORE}, {.flags = UV_IGNORE}, {.flags = UV_INHERIT_FD, .data.fd = 2}};
    uv_process_options_t opt = {0};
    opt.file = c->worker_exe;
    opt.args = args;
    opt.exit_cb = on_proc_exit;
    opt.stdio = stdio;
    opt.stdio_count = 3;
    pr->c = c;
    pr->index = i;
    pr->handle.data = pr;
    pr->spawns++;
    int r = uv_spawn(&c->loop, &pr->handle, &opt);
    if (r != 0) {
        /* uv_spawn leaves an initialised handle to close even when it fails */
        uv_close((uv_handle_t *)&pr->handle, NULL);
        ply_why(why, why_len, 0, "cannot start worker %s: %s", c->worker_exe, uv_strerror(r));
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
        if (run->state == RUN_SPLITTING) continue;
        if (c->store && run->state == RUN_ACTIVE) {
            /* it stays active in the state file and resumes at the next start */
            run->interrupted = 1;
            ply__run_fail(run, PLY_ECANCELED,
                          "coordinator stopping (%s); run %" PRIu64 " is kept in %s and resumes "
                          "when it restarts (ply result %" PRIu64 ")",
                          why, run->id, ply_store_path(c->store), run->id);
        } else {
            ply__run_fail(run, PLY_ECANCELED,
                          "coordinator stopping (%s) before run %" PRIu64 " ended", why, run->id);
        }
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
    cfg->hang_ms = 300000;
    cfg->arbiter_budget = PLY_COORDINATOR_ARBITER_BUDGET;
    cfg->worker_hash_mib = 256; /* ply-worker's own default */
    cfg->keep_runs = 20;
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
        r = ply_bind_check(ep, c->cfg.curve != NULL, c->cfg.insecure, why, why_len);
        if (r < 0) break;
        if (zsock_bind(c->router, "%s", ep) == -1) {
            ply_why(why, why_len, 0, "cannot bind %s: %s", ep, zmq_strerror(zmq_errno()));
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
        ply_why(why, why_len, 0, "no endpoint to bind in \"%s\"", c->bind);
        r = PLY_EINVAL;
    }
    return r;
}

static int init_handles(ply_coordinator_t *c, char *why, size_t why_len)
{
    int r = uv_poll_init(&c->loop, &c->poll, zsock_fd(c->router));
    if (r != 0) {
        ply_why(why, why_len, 0, "cannot watch the socket: %s", uv_strerror(r));
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
            ply_why(why, why_len, 0, "cannot bind tcp://127.0.0.1:* for local workers: %s",
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
        ply_why(why, why_len, 0, "no endpoint to bind");
        return NULL;
    }
    if (cfg->spawn_workers && (!cfg->worker_exe || !cfg->worker_exe[0])) {
        ply_why(why, why_len, 0, "local workers need the path of the worker executable");
        return NULL;
    }
    ply_coordinator_t *c = calloc(1, sizeof *c);
    if (!c) {
        ply_why(why, why_len, 0, "out of memory");
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
    c->state_path = cfg->state_path && cfg->state_path[0] ? strdup(cfg->state_path) : NULL;
    c->cfg.bind = c->bind;
    c->cfg.worker_exe = c->worker_exe;
    c->cfg.state_path = c->state_path;
    c->next_job_base = 1;
    c->no_worker_since_ms = c->last_hb_ms = c->last_progress_ms = c->started_ms = ply_time_ms();
    for (int i = 0; i < CNT_N; i++) atomic_init(&c->cnt[i], 0);
    int r = (c->bind && (!cfg->worker_exe || c->worker_exe) &&
             (!cfg->state_path || !cfg->state_path[0] || c->state_path))
                ? 0
                : PLY_ENOMEM;
    if (r == 0 && uv_loop_init(&c->loop) != 0) r = PLY_EIO;
    if (r == 0) c->loop_ok = 1;
    if (r == 0 && !(c->router = zsock_new(ZMQ_ROUTER))) r = PLY_EIO;
    if (r == 0 && !(c->bound = zlist_new())) r = PLY_ENOMEM;
    if (r == 0) zlist_autofree(c->bound);
    if (r < 0) ply_why(why, why_len, 0, "cannot set up the coordinator: %s", ply_strerror(r));
    /* the state file before any socket: one in use or damaged stops us before we bind */
    if (r == 0 && c->state_path && !(c->store = ply_store_open(c->state_path, why, why_len)))
        r = PLY_EDB;
    if (r == 0 && c->store) r = ply__restore(c, why, why_len);
    if (r == 0 && cfg->admin_keys && !cfg->curve) {
        ply_why(why, why_len, 0, "admin keys need CURVE: without it no client key is proven");
        r = PLY_EINVAL;
    }
    if (r == 0 && cfg->admin_keys && !(c->admins = ply_keydir_new(cfg->admin_keys, why, why_len)))
        r = PLY_EINVAL;
    if (r == 0) {
        zsock_set_linger(c->router, 100);
        /* A ROUTER drops silently what exceeds a peer's send high-water mark
         * (default 1000). A dropped JOB would be lost for good while its worker
         * stays alive, so the mark is set far above PLY_MAX_CREDIT; memory stays
         * bounded by credit for workers and by one message a second for clients. */
        zsock_set_sndhwm(c->router, 100000);
        ply_msg_sock_limit(c->router);
        if (c->cfg.curve) ply_curve_server_apply(c->cfg.curve, c->router);
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
    out->workers_hung = LOAD(CNT_WORKERS_HUNG);
    out->results_computed = LOAD(CNT_RESULTS_COMPUTED);
#undef LOAD
    out->runs_restored = c->runs_restored;
    out->results_restored = c->results_restored;
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
    ply_store_close(&c->store);
    ply_keydir_destroy(&c->admins);
    free(c->procs);
    free(c->bind);
    free(c->worker_exe);
    free(c->state_path);
    free(c);
    *cp = NULL;
}
