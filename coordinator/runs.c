/*
 * The run registry: the runs in memory (c->runs, FIFO: splitting, then
 * active), finding them and their tasks by id, failing them, the finished
 * ones kept for RESULT_REQUEST (the last FINISHED_KEEP; older ones come from
 * the state file), and every answer about a run (RunResult, RunProgress).
 *
 * Runs finish (done, failed, canceled) by changing state; ply__reap_runs()
 * then answers the client, records the end in the state file and frees them
 * at the end of the current callback, so that no list is modified while a
 * caller walks it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "batch.h"
#include "kind.h"
#include "peers.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "verification.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* Finished runs whose answers are kept in memory (older ones are read from the state file). */
#define FINISHED_KEEP 64

/* Marks the run failed (the first reason wins); ply__reap_runs() answers the client. */
void ply__run_fail(ply__run_t *run, int code, const char *fmt, ...)
{
    if (run->state == PLY__RUN_FAILED || run->state == PLY__RUN_DONE) return;
    run->state = PLY__RUN_FAILED;
    run->fail_code = code < 0 ? code : PLY_EIO;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->fail_msg, sizeof run->fail_msg, fmt, ap);
    va_end(ap);
}

/* The active run holding task id @job_id, with the task's index in *idx. */
ply__run_t *ply__task_find(ply_coordinator_t *c, uint64_t job_id, size_t *idx)
{
    for (ply__run_t *run = c->runs; run; run = run->next)
        if (run->state == PLY__RUN_ACTIVE && ply__task_of_wire(run, job_id) >= 0) {
            *idx = (size_t)ply__task_of_wire(run, job_id);
            return run;
        }
    return NULL;
}

ply__run_t *ply__run_find(ply_coordinator_t *c, uint64_t id)
{
    for (ply__run_t *run = c->runs; run; run = run->next)
        if (run->id == id) return run;
    return NULL;
}

ply__run_t *ply__run_new(ply_coordinator_t *c, const ply__kind_t *kind, const char *owner)
{
    ply__run_t *run = calloc(1, sizeof *run);
    if (!run) return NULL;
    run->c = c;
    run->kind = kind;
    snprintf(run->owner, sizeof run->owner, "%s", owner);
    atomic_init(&run->cancel, 0);
    if (!(run->kind_state = kind->state_new())) {
        free(run);
        return NULL;
    }
    return run;
}

void ply__run_free(ply__run_t *run)
{
    zframe_destroy(&run->client);
    run->kind->free_run(run);
    run->kind_state = NULL;
    ply__verify_free(run);
    ply__tasks_free(run);
    free(run);
}

void ply__run_add(ply_coordinator_t *c, ply__run_t *run, uint64_t id)
{
    run->id = id;
    ply__run_t **pp = &c->runs;
    while (*pp) pp = &(*pp)->next;
    *pp = run;
}

void ply__run_submitted(ply__run_t *run, int64_t unix_ms)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    int64_t wall = (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
    uint64_t now = ply_time_ms();
    if (!unix_ms) {
        run->submitted_ms = now;
        run->submitted_unix_ms = wall;
        return;
    }
    /* elapsed time counts from the original submission */
    int64_t age = wall - unix_ms;
    run->submitted_ms = age > 0 && (uint64_t)age < now ? now - (uint64_t)age : now;
    run->submitted_unix_ms = unix_ms;
}

void ply__run_activate(ply__run_t *run, int restored)
{
    run->accepted_ms = ply_time_ms();
    run->state = restored || run->sched.njobs ? PLY__RUN_ACTIVE : PLY__RUN_DONE;
}

void ply__run_done(ply__run_t *run)
{
    if (run->state == PLY__RUN_ACTIVE) run->state = PLY__RUN_DONE;
}

void ply__run_reopen(ply__run_t *run)
{
    if (run->state == PLY__RUN_DONE) run->state = PLY__RUN_ACTIVE;
}

void ply__run_attach(ply__run_t *run, zframe_t *client, int detach)
{
    zframe_destroy(&run->client);
    run->client = client;
    run->detach = detach;
    if (client) run->client_seen_ms = ply_time_ms();
}

zmsg_t *ply__run_result_encode(const ply__run_t *run, Ply__RunResult *rr)
{
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RUN_RESULT;
    m.run_result = rr;
    char reason[256];
    if (ply_msg_validate(&m, reason, sizeof reason) == 0) {
        zmsg_t *z = ply_msg_encode(&m);
        if (z) return z;
        snprintf(reason, sizeof reason, "out of memory");
    }
    ply_warn("run %" PRIu64 ": cannot encode the result: %s", run->id, reason);
    return NULL;
}

void ply__run_set_key(ply__run_t *run, const uint8_t *key, size_t len)
{
    run->key_len = key && len <= sizeof run->key ? len : 0;
    if (run->key_len) memcpy(run->key, key, run->key_len);
}

int ply__run_same_key(const ply__run_t *run, const ply__finished_t *f, const char *owner,
                      const uint8_t *key, size_t len)
{
    const uint8_t *k = run ? run->key : f->key;
    size_t n = run ? run->key_len : f->key_len;
    return len && n == len && memcmp(k, key, len) == 0 &&
           strcmp(run ? run->owner : f->owner, owner) == 0;
}

void ply__run_cancel(ply__run_t *run)
{
    run->canceled = 1;
    if (run->state == PLY__RUN_SPLITTING)
        atomic_store(&run->cancel, 1); /* plan_done answers */
    else if (run->state == PLY__RUN_ACTIVE && run->kind->stop && run->kind->stop(run))
        ply__run_done(run); /* its answer so far is its answer */
    else
        ply__run_fail(run, PLY_ECANCELED, "run %" PRIu64 " canceled", run->id);
}

void ply__run_stop(ply__run_t *run, int keep)
{
    atomic_store(&run->cancel, 1);
    if (keep) run->interrupted = 1;
}

void ply__run_computed(ply_coordinator_t *c, ply__run_t *run, int by_worker)
{
    if (by_worker) ply__count(c, PLY__CNT_RESULTS_COMPUTED);
    run->results_computed++;
}

static void finished_add(ply_coordinator_t *c, ply__run_t *run, const char *state, zmsg_t *reply)
{
    ply__finished_t *f = calloc(1, sizeof *f);
    if (!f) {
        zmsg_destroy(&reply);
        return;
    }
    f->id = run->id;
    snprintf(f->owner, sizeof f->owner, "%s", run->owner);
    f->state = state;
    ply__summary_t sum;
    run->kind->summary(run, &sum);
    f->jobs_total = sum.jobs_total ? sum.jobs_total : (uint32_t)run->sched.njobs;
    f->jobs_done = sum.jobs_total ? sum.jobs_done : (uint32_t)run->sched.done;
    f->nodes = sum.nodes;
    f->elapsed_ms = ply_time_ms() - run->submitted_ms;
    f->counted_nodes = sum.counted_nodes;
    f->time_ms = ply__run_time_ms(run, ply_time_ms());
    f->tail_ms = run->sched.tail_ms;
    f->mismatches = sum.mismatches;
    f->depth = sum.depth;
    snprintf(f->fen, sizeof f->fen, "%s", sum.fen);
    snprintf(f->verify, sizeof f->verify, "%s", run->verif.text);
    f->verify_mode = run->verif.mode, f->verify_ppm = run->verif.ppm;
    f->kind = run->kind->id;
    ply_store_run_t sr; /* its request, as the state file keeps it */
    memset(&sr, 0, sizeof sr);
    const ply_split_t *plan = NULL;
    run->kind->store_run(run, &sr, &plan);
    if (sr.request && sr.request_len <= sizeof f->request) {
        f->has_request = 1;
        f->request_len = sr.request_len;
        memcpy(f->request, sr.request, sr.request_len);
    }
    memcpy(f->key, run->key, run->key_len);
    f->key_len = run->key_len;
    if (run->state == PLY__RUN_FAILED) snprintf(f->error, sizeof f->error, "%s", run->fail_msg);
    f->reply = reply;
    f->next = c->finished;
    c->finished = f;
    if (++c->nfinished > FINISHED_KEEP) {
        ply__finished_t **pp = &c->finished;
        for (unsigned i = 1; i < FINISHED_KEEP; i++) pp = &(*pp)->next;
        ply__finished_t *old = *pp;
        *pp = NULL;
        while (old) {
            ply__finished_t *next = old->next;
            zmsg_destroy(&old->reply);
            free(old);
            c->nfinished--;
            old = next;
        }
    }
}

ply__finished_t *ply__finished_find(ply_coordinator_t *c, uint64_t id)
{
    for (ply__finished_t *f = c->finished; f; f = f->next)
        if (f->id == id) return f;
    return NULL;
}

static const char *state_const(const char *state)
{
    return !strcmp(state, "done") ? "done" : !strcmp(state, "canceled") ? "canceled" : "failed";
}

/* A stored summary as a ply__finished_t (reply NULL). */
void ply__finished_from_store(ply__finished_t *f, const ply_store_finished_t *sf)
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
    f->verify_mode = sf->verify_mode, f->verify_ppm = sf->verify_ppm;
    f->kind = sf->kind ? sf->kind : ply__kind_default()->id;
    f->has_request = sf->has_request;
    f->request_len = sf->request_len;
    memcpy(f->request, sf->request, sf->request_len);
}

/*
 * A finished run: from memory, else read back from the state file into *tmp
 * with its reply re-framed (the caller destroys tmp->reply). NULL when unknown.
 */
ply__finished_t *ply__finished_lookup(ply_coordinator_t *c, uint64_t id, ply__finished_t *tmp)
{
    ply__finished_t *f = ply__finished_find(c, id);
    if (f || !c->store) return f;
    ply_store_finished_t sf;
    void *blob = NULL;
    size_t n = 0;
    if (ply_store_finished(c->store, id, &sf, &blob, &n) < 0) return NULL;
    ply__finished_from_store(tmp, &sf);
    if (blob && (tmp->reply = zmsg_new())) {
        zmsg_addstr(tmp->reply, PLY_PROTOCOL_ID);
        zmsg_addmem(tmp->reply, blob, n);
    }
    free(blob);
    return tmp;
}

/* ---------------------------------------------------- answers and progress */

void ply__run_asked(ply__asked_t *a, const ply__run_t *run)
{
    run->kind->fill_asked(run, a);
}

uint64_t ply__run_queued_ms(const ply__run_t *run, uint64_t now)
{
    uint64_t until = run->sched.started_ms ? run->sched.started_ms : now;
    return run->accepted_ms ? ply_elapsed_ms(until, run->accepted_ms) : 0;
}

uint64_t ply__run_time_ms(const ply__run_t *run, uint64_t now)
{
    uint64_t from = run->restored ? run->accepted_ms : run->submitted_ms;
    uint64_t t = ply_elapsed_ms(now, from), q = ply__run_queued_ms(run, now);
    return t > q ? t - q : 0;
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

const char *ply__run_state_name(const ply__run_t *run)
{
    if (run->state == PLY__RUN_SPLITTING) return "splitting";
    if (run->state == PLY__RUN_DONE) return "done";
    if (run->state == PLY__RUN_FAILED) return run->canceled ? "canceled" : "failed";
    return run->sched.started ? "running" : "queued";
}

uint32_t ply__run_in_flight(ply_coordinator_t *c, const ply__run_t *run)
{
    uint32_t n = 0;
    for (ply__peer_t *p = c->peers; p; p = p->next)
        for (size_t i = 0; p->kind == PLY__PEER_WORKER && i < p->ninflight; i++)
            n += p->inflight[i] >= run->sched.job_base &&
                 p->inflight[i] - run->sched.job_base < run->sched.ntasks;
    return n;
}

double ply__run_work_done(const ply__run_t *run)
{
    if (!run->sched.njobs || !run->sched.tasks || run->state == PLY__RUN_SPLITTING) return -1;
    double all = 0, done = 0;
    for (size_t j = 0; j < run->sched.njobs; j++) {
        double e = run->kind->job_estimate((ply__run_t *)run, j);
        all += e;
        if (run->sched.tasks[j].state == PLY__TASK_DONE)
            done += e; /* its first computation is in */
    }
    return all > 0 ? done / all : -1;
}

/* Sets what @run waits for, logging a change. */
static void set_waiting(ply__run_t *run, const char *w)
{
    if (!strcmp(run->waiting, w)) return;
    if (w[0])
        ply_warn("run %" PRIu64 " waits for %s", run->id, w);
    else
        ply_info("run %" PRIu64 " no longer waits for %s", run->id, run->waiting);
    snprintf(run->waiting, sizeof run->waiting, "%s", w);
}

void ply__run_update_waiting(ply_coordinator_t *c, ply__run_t *run)
{
    char w[sizeof run->waiting] = "";
    size_t fit = 0;
    for (const ply__peer_t *p = c->peers; p; p = p->next)
        fit += p->kind == PLY__PEER_WORKER && run->kind->worker_fits(run, p);
    if (run->state != PLY__RUN_ACTIVE || !c->nworkers) {
        /* no worker at all: the client says so itself (RunProgress.workers) */
    } else if (!fit) {
        char what[sizeof w / 2];
        run->kind->describe_run(run, what, sizeof what);
        snprintf(w, sizeof w, "a worker that runs %s (none of the %u connected does)", what,
                 c->nworkers);
    } else if (run->sched.rq_len && !ply__run_in_flight(c, run)) {
        size_t first = SIZE_MAX;
        for (size_t k = 0; k < run->sched.rq_len; k++) {
            size_t t = run->sched.requeue[run->sched.rq_head + k];
            if (t >= run->sched.ntasks || run->sched.tasks[t].state != PLY__TASK_PENDING) continue;
            if (ply__anyone_eligible(c, run, t)) {
                set_waiting(run, "");
                return;
            }
            if (first == SIZE_MAX) first = t;
        }
        if (first != SIZE_MAX) run->kind->describe_wait(run, first, w, sizeof w);
    }
    set_waiting(run, w);
}

/* Fills @rp about @run, or about the finished record @f (strings point into them; rp->asked
 * to @asked), as @who may see it: the count only for its owner (or an admin). */
void ply__fill_progress(ply_coordinator_t *c, Ply__RunProgress *rp, ply__asked_t *asked,
                        const ply__run_t *run, const ply__finished_t *f, const char *who, int brief)
{
    *rp = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    rp->asked = &asked->msg;
    uint32_t threads = 0;
    for (ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER) threads += p->threads;
    rp->has_run_id = 1;
    if (run) {
        rp->run_id = run->id;
        rp->state = (char *)ply__run_state_name(run);
        ply__summary_t sum;
        run->kind->summary(run, &sum);
        rp->has_jobs_total = 1;
        rp->jobs_total = sum.jobs_total ? sum.jobs_total : (uint32_t)run->sched.njobs;
        rp->has_jobs_done = 1;
        rp->jobs_done = sum.jobs_total ? sum.jobs_done : (uint32_t)run->sched.done;
        /* its count, what it computes; its answer so far only for who may read it */
        run->kind->fill_progress(run, rp, !brief && ply__may_read(c, run->owner, who));
        double w = run->state == PLY__RUN_DONE ? 1 : ply__run_work_done(run);
        if (w >= 0) rp->has_work_done_ppm = 1, rp->work_done_ppm = (uint32_t)(w * 1e6 + 0.5);
        rp->has_elapsed_ms = 1, rp->elapsed_ms = ply_time_ms() - run->submitted_ms;
        rp->verify = (char *)run->verif.text;
        rp->has_results_restored = 1, rp->results_restored = run->results_restored;
        rp->has_jobs_in_flight = 1, rp->jobs_in_flight = ply__run_in_flight(c, run);
        rp->has_queued_ms = 1, rp->queued_ms = ply__run_queued_ms(run, ply_time_ms());
        if (run->state == PLY__RUN_ACTIVE && !run->sched.started) { /* "queued": say behind what */
            rp->has_runs_ahead = 1;
            for (const ply__run_t *q = c->runs; q && q != run; q = q->next)
                rp->runs_ahead += q->state == PLY__RUN_ACTIVE || q->state == PLY__RUN_SPLITTING;
        }
        if (run->state == PLY__RUN_FAILED) rp->error = (char *)run->fail_msg;
        if (run->state == PLY__RUN_ACTIVE && run->waiting[0]) rp->waiting = (char *)run->waiting;
        ply__run_asked(asked, run);
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
        /* what it computed, when its record says (its kind's rule); else no claim */
        const ply__kind_t *k = ply__kind_of(f->kind);
        if (!k || !k->asked_again(f, asked)) rp->asked = NULL;
    }
    rp->has_workers = 1, rp->workers = c->nworkers;
    rp->has_threads = 1, rp->threads = threads;
    if (!ply__may_read(c, run ? run->owner : f->owner, who)) {
        rp->has_nodes = 0, rp->nodes = 0;
        rp->has_nodes_hi = 0, rp->nodes_hi = 0;
        rp->has_counted_nodes = 0, rp->counted_nodes = 0;
        rp->has_answer_hidden = 1, rp->answer_hidden = 1;
    }
}

/* Sends a RunProgress about @run (or the finished record @f) to @rid, with the worker list when
 * asked. */
void ply__send_progress(ply_coordinator_t *c, zframe_t *rid, const ply__run_t *run,
                        const ply__finished_t *f, int with_workers, const char *who)
{
    if (!rid) return; /* a run restored from the state file has no client until one attaches */
    Ply__RunProgress rp;
    ply__asked_t asked;
    ply__fill_progress(c, &rp, &asked, run, f, who, 0);
    Ply__WorkerStatus *ws = NULL;
    Ply__WorkerStatus **wp = NULL;
    if (with_workers) {
        rp.n_worker = ply__worker_list(c, &ws, &wp, who);
        rp.worker = wp;
    }
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RUN_PROGRESS;
    m.run_progress = &rp;
    ply__send_msg(c, rid, &m);
    free(ws);
    free(wp);
}

/* ----------------------------------------------------------------- reaping */

/* Takes a finished run's jobs out of the workers' lists (late results become "unknown job"),
 * and stops them on the workers. */
static void withdraw_jobs(ply_coordinator_t *c, const ply__run_t *run)
{
    if (!run->sched.njobs) return;
    for (ply__peer_t *p = c->peers; p; p = p->next) {
        for (size_t i = 0; i < p->ninflight;) {
            if (ply__task_of_wire(run, p->inflight[i]) >= 0) {
                size_t idx = (size_t)ply__task_of_wire(run, p->inflight[i]);
                if (run->sched.tasks[idx].state == PLY__TASK_INFLIGHT &&
                    run->sched.tasks[idx].worker == p)
                    ply__cancel_on_worker(c, p, run, idx);
                p->inflight[i] = p->inflight[--p->ninflight];
            } else {
                i++;
            }
        }
    }
}

/* Records the end of @run and the @reply its client got in the state file. */
static void store_finish(ply_coordinator_t *c, const ply__run_t *run, const char *state,
                         zmsg_t *reply)
{
    ply_store_finished_t f;
    memset(&f, 0, sizeof f);
    f.id = run->id;
    snprintf(f.state, sizeof f.state, "%s", state);
    ply__summary_t sum;
    run->kind->summary(run, &sum);
    snprintf(f.fen, sizeof f.fen, "%s", sum.fen);
    f.depth = sum.depth;
    f.jobs_total = sum.jobs_total ? sum.jobs_total : (uint32_t)run->sched.njobs;
    f.jobs_done = sum.jobs_total ? sum.jobs_done : (uint32_t)run->sched.done;
    f.nodes = sum.nodes;
    f.elapsed_ms = ply_time_ms() - run->submitted_ms;
    f.code = run->state == PLY__RUN_FAILED ? run->fail_code : 0;
    snprintf(f.error, sizeof f.error, "%s", run->state == PLY__RUN_FAILED ? run->fail_msg : "");
    snprintf(f.verify, sizeof f.verify, "%s", run->verif.text);
    zframe_t *body = zmsg_last(reply);
    ply_store_finish_run(c->store, &f, body ? zframe_data(body) : NULL,
                         body ? zframe_size(body) : 0);
}

/* Answers and frees every run that is done or failed. */
void ply__reap_runs(ply_coordinator_t *c)
{
    for (ply__run_t *run = c->runs; run; run = run->next)
        if (run->state == PLY__RUN_DONE || run->state == PLY__RUN_FAILED) {
            ply__batch_flush(c); /* what is answered must be on disk first */
            break;
        }
    int stored = 0;
    ply__run_t **pp = &c->runs;
    while (*pp) {
        ply__run_t *run = *pp;
        if (run->state != PLY__RUN_DONE && run->state != PLY__RUN_FAILED) {
            pp = &run->next;
            continue;
        }
        *pp = run->next;
        withdraw_jobs(c, run);
        ply__summary_t sum;
        run->kind->summary(run, &sum);
        ply_u128_add(&c->nodes_reaped, sum.nodes); /* ply_nodes_total never goes back */
        zmsg_t *reply;
        const char *state;
        if (run->state == PLY__RUN_DONE) {
            reply = run->kind->answer(c, run);
            state = "done";
            ply__count(c, PLY__CNT_RUNS_DONE);
            if (!reply) {
                reply = build_error(PLY_ENOMEM, "cannot encode the result", run->id);
                state = "failed";
            }
        } else {
            reply = build_error(run->fail_code, run->fail_msg, run->id);
            state = run->canceled ? "canceled" : "failed";
            ply__count(c, PLY__CNT_RUNS_FAILED);
            ply_log(run->canceled ? PLY_LOG_INFO : PLY_LOG_WARN, "run %" PRIu64 " %s: %s", run->id,
                    state, run->fail_msg);
        }
        if (reply && run->client) ply__send_raw(c, run->client, reply);
        /* every run in the list has its row in the state file (its request is stored before it
         * joins, client_msgs.c, or it was read back): its end is recorded, unless the
         * coordinator stops and keeps it to resume */
        if (reply && c->store && !run->interrupted) {
            store_finish(c, run, state, reply);
            stored = 1;
        }
        if (reply) finished_add(c, run, state, reply);
        ply__run_free(run);
    }
    char why[PLY__WHY_LEN] = "";
    unsigned pruned = 0;
    if (stored && ply_store_prune(c->store, c->cfg.keep_runs, &pruned, why, sizeof why) < 0)
        ply_warn("state file: old runs' job rows not pruned: %s", why);
    else if (pruned)
        ply_debug("state file: job rows of %u old finished run%s pruned", pruned,
                  pruned == 1 ? "" : "s");
}
