/*
 * Messages from clients: SUBMIT, STATUS, RESULT_REQUEST (an answer again,
 * or attaching to a run) and CANCEL. A run's answer and its cancellation
 * belong to its owner or an admin key (ply__may_read).
 *
 * A SUBMIT is durable before it is acknowledged (issue 27): validated by its
 * kind and given an id, its request is stored in the state file (with --state,
 * one transaction: ply_store_add_request), then Accepted is sent (without the
 * plan's figures), then the kind plans it on libuv's thread pool and its plan
 * is stored (a second transaction) before its jobs go out. A coordinator
 * killed in between plans the run again from its request when it restarts
 * (restore.c). A Submit whose idempotency key and owner match a known run
 * (in memory in any state, or finished, in memory or in the state file) is
 * that run, never a second one: Accepted for it, and its client attached (a
 * finished run's answer at once); the same request again without a key
 * resumes an unclaimed restored run (restored_match). The fault points of
 * fault.h sit on this path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "fault.h"
#include "kind.h"
#include "peers.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "util/error.h"
#include "util/log.h"
#include "util/random.h"
#include "util/time.h"
#include "verification.h"

/* A key the envelope passes is one the state file keeps. */
_Static_assert(PLY_MIN_IDEMPOTENCY_KEY == PLY_STORE_KEY_MIN &&
                   PLY_MAX_IDEMPOTENCY_KEY == PLY_STORE_KEY_MAX,
               "idempotency key bounds: envelope.h and store.h agree");

/* Finished runs listed by a StatusReply (after the runs in progress). */
#define STATUS_FINISHED 16

/* The run's plan, on the thread pool (its kind's). */
static void plan_work(uv_work_t *w)
{
    ply__run_t *run = w->data;
    run->kind->plan(run);
}

static int run_setup(ply_coordinator_t *c, ply__run_t *run)
{
    if (run->kind->setup(run) < 0) return PLY_ENOMEM;
    ply__tasks_number(c, run, UINT64_MAX);
    ply__run_activate(run, 0);
    return 0;
}

/* Accepted for @run to @rid: its id and what it asks, and once it is planned its jobs and the
 * kind's plan figures (kind->fill_accepted: absent before). */
static void send_accepted(ply_coordinator_t *c, zframe_t *rid, const ply__run_t *run)
{
    Ply__Accepted a = PLY__ACCEPTED__INIT;
    a.has_run_id = 1, a.run_id = run->id;
    if (ply__run_planned(run)) a.has_jobs = 1, a.jobs = (uint32_t)run->sched.njobs;
    run->kind->fill_accepted(run, &a);
    ply__asked_t asked;
    ply__run_asked(&asked, run);
    a.asked = &asked.msg;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ACCEPTED;
    m.accepted = &a;
    ply__send_msg(c, rid, &m);
}

/* What the state file keeps of @run (the kind's columns and request, and the registry's), into
 * @sr; its plan in *@plan (NULL: none, or not planned yet). Strings point into @run. */
static void store_row(const ply__run_t *run, ply_store_run_t *sr, const ply_split_t **plan)
{
    memset(sr, 0, sizeof *sr);
    *plan = NULL;
    run->kind->store_run(run, sr, plan); /* what it asks, its plan */
    sr->id = run->id;
    sr->verify_mode = run->verif.mode;
    sr->verify_ppm = run->verif.ppm;
    sr->job_base = run->sched.job_base;
    sr->slots = run->sched.slots;
    sr->submitted_unix_ms = run->submitted_unix_ms;
    snprintf(sr->owner, sizeof sr->owner, "%s", run->owner);
    sr->kind = run->kind->id;
    sr->njobs = (uint32_t)run->sched.njobs;
    sr->key = run->key_len ? run->key : NULL, sr->key_len = run->key_len;
}

/* The run's request into the state file (one transaction), before anyone hears "accepted". */
static int store_request(ply_coordinator_t *c, const ply__run_t *run, char *why, size_t why_len)
{
    if (!c->store) return 0;
    ply__batch_flush(c); /* its own transaction */
    ply_store_run_t sr;
    const ply_split_t *plan;
    store_row(run, &sr, &plan);
    return ply_store_add_request(c->store, &sr, why, why_len);
}

/* The run's plan into the state file (its second transaction), once planned and set up. */
static int store_plan(ply_coordinator_t *c, const ply__run_t *run, char *why, size_t why_len)
{
    if (!c->store) return 0;
    ply__batch_flush(c); /* its own transaction */
    ply_store_run_t sr;
    const ply_split_t *plan;
    store_row(run, &sr, &plan);
    uint64_t t0 = ply_time_ns();
    int r = ply_store_add_plan(c->store, &sr, plan, why, why_len);
    if (r == 0)
        ply_info("run %" PRIu64 ": %zu jobs stored in %.1f ms", run->id, run->sched.njobs,
                 (double)(ply_time_ns() - t0) / 1e6);
    return r;
}

static void plan_done(uv_work_t *w, int status)
{
    ply__run_t *run = w->data;
    ply_coordinator_t *c = run->c;
    char why[PLY__WHY_LEN] = "", plan_why[PLY__WHY_LEN] = "";
    c->pending_work--;
    int planned = run->kind->planned(run, plan_why, sizeof plan_why); /* the run owns the plan */
    if (status == UV_ECANCELED || c->state != PLY__C_RUNNING) {
        if (run->interrupted) /* its request is in the state file: planned at the next start */
            ply__run_fail(run, PLY_ECANCELED,
                          "coordinator stopping; run %" PRIu64 " is kept in %s and resumes when "
                          "it restarts (ply result %" PRIu64 ")",
                          run->id, ply_store_path(c->store), run->id);
        else
            ply__run_fail(run, PLY_ECANCELED, "coordinator stopping");
    } else if (run->canceled) {
        ply__run_fail(run, PLY_ECANCELED, "run %" PRIu64 " canceled", run->id);
    } else if (planned < 0) {
        ply__run_fail(run, planned, "%s", plan_why);
    } else if (run_setup(c, run) < 0) {
        ply__run_fail(run, PLY_ENOMEM, "out of memory setting up run %" PRIu64, run->id);
    } else {
        ply__fault(PLY__FAULT_PLAN_DONE);
        if (store_plan(c, run, why, sizeof why) < 0) {
            ply__run_fail(run, PLY_EDB, "run %" PRIu64 ": its plan cannot be stored: %s", run->id,
                          why);
        } else {
            char what[PLY__WHY_LEN], plan[PLY__WHY_LEN];
            run->kind->describe_run(run, what, sizeof what);
            run->kind->describe_plan(run, plan, sizeof plan);
            /* its client learns the plan from the next RunProgress (jobs_total) */
            ply_info("run %" PRIu64 ": %s: %s, verify %s", run->id, what, plan, run->verif.text);
        }
    }
    ply__pump(c);
}

int ply__run_plan(ply_coordinator_t *c, ply__run_t *run)
{
    run->work.data = run;
    if (uv_queue_work(&c->loop, &run->work, plan_work, plan_done) != 0) {
        ply__run_fail(run, PLY_ENOMEM, "run %" PRIu64 ": cannot start planning it", run->id);
        return PLY_ENOMEM;
    }
    c->pending_work++;
    return 0;
}

/*
 * A run read back from the state file that nobody has claimed, that asks
 * exactly what @want asks (its kind, its request) and that its owner may
 * read: `ply perft --state FILE ...` (or `ply analyse`) run again resumes it,
 * planned or still to be planned.
 */
static ply__run_t *restored_match(ply_coordinator_t *c, const ply__run_t *want)
{
    for (ply__run_t *run = c->runs; run; run = run->next)
        if (run->restored && !run->client &&
            (run->state == PLY__RUN_ACTIVE || run->state == PLY__RUN_SPLITTING) &&
            run->kind == want->kind && run->kind->same_request(run, want) &&
            run->verif.mode == want->verif.mode && run->verif.ppm == want->verif.ppm &&
            ply__may_read(c, run->owner, want->owner))
            return run;
    return NULL;
}

/* Whether finished record @f asks what @want asks (its kind, its request as the kind encodes
 * it, its verification); a record that keeps no request is taken at its word. */
static int finished_asks(const ply__finished_t *f, const ply__run_t *want)
{
    ply_store_run_t sr;
    const ply_split_t *plan;
    store_row(want, &sr, &plan);
    if (f->kind != want->kind->id || f->verify_mode != want->verif.mode ||
        f->verify_ppm != want->verif.ppm)
        return 0;
    return !f->has_request ||
           (f->request_len == sr.request_len &&
            (!sr.request_len || !memcmp(f->request, sr.request, sr.request_len)));
}

/* Accepted for finished run @f to @rid, then (unless @detach) its answer. */
static void accept_finished(ply_coordinator_t *c, zframe_t *rid, const ply__finished_t *f,
                            int detach)
{
    Ply__Accepted a = PLY__ACCEPTED__INIT;
    a.has_run_id = 1, a.run_id = f->id;
    if (f->jobs_total) a.has_jobs = 1, a.jobs = f->jobs_total;
    if (f->fen[0]) a.fen = (char *)f->fen;
    ply__asked_t asked;
    const ply__kind_t *k = ply__kind_of(f->kind);
    if (k && k->asked_again(f, &asked)) a.asked = &asked.msg;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ACCEPTED;
    m.accepted = &a;
    ply__send_msg(c, rid, &m);
    if (detach) return;
    if (f->reply)
        ply__send_raw(c, rid, f->reply);
    else
        ply__send_error(c, rid, PLY_ENOTFOUND, f->id, "run %" PRIu64 " %s; its answer is lost",
                        f->id, f->state);
}

/* The Error of a key that names run @id, which asks something else than the Submit. */
static void key_reused(ply_coordinator_t *c, zframe_t *rid, uint64_t id)
{
    ply__send_error(c, rid, PLY_EINVAL, 0,
                    "field idempotency_key names run %" PRIu64 ", which asks something else: a "
                    "key names one submission (choose a new key for a new run)",
                    id);
}

/*
 * A Submit whose idempotency key and owner (@want's, validated) match a known run is that run,
 * never a second one: Accepted for it and, unless @detach, its client attached (a finished
 * run's answer at once). Looks in memory (any state), then among the finished runs (memory,
 * then the state file). 1 when answered so (or refused: the key names a run that asks
 * something else, or the state file cannot be read), 0 when no run has the key.
 */
static int key_match(ply_coordinator_t *c, zframe_t *rid, const ply__run_t *want, int detach)
{
    if (!want->key_len) return 0;
    for (ply__run_t *run = c->runs; run; run = run->next) {
        if (!ply__run_same_key(run, NULL, want->owner, want->key, want->key_len)) continue;
        if (run->kind != want->kind || !run->kind->same_request(run, want) ||
            run->verif.mode != want->verif.mode || run->verif.ppm != want->verif.ppm) {
            key_reused(c, rid, run->id);
            return 1;
        }
        if (!detach) {
            zframe_t *id = zframe_dup(rid);
            if (id) ply__run_attach(run, id, 0);
        }
        ply_info("run %" PRIu64 ": the same submission again (its idempotency key): %s", run->id,
                 detach ? "acknowledged" : "its client attached");
        send_accepted(c, rid, run);
        return 1;
    }
    ply__finished_t tmp, *f = NULL;
    for (f = c->finished; f; f = f->next)
        if (ply__run_same_key(NULL, f, want->owner, want->key, want->key_len)) break;
    if (!f && c->store) {
        uint64_t id = 0;
        int found = ply_store_find_key(c->store, want->owner, want->key, want->key_len, &id);
        if (found < 0) {
            ply__send_error(c, rid, PLY_EDB, 0,
                            "cannot look the idempotency key up in the state file: the run is "
                            "not submitted again");
            return 1;
        }
        if (found) f = ply__finished_lookup(c, id, &tmp);
        if (found && !f) {
            ply__send_error(c, rid, PLY_EDB, id,
                            "field idempotency_key names run %" PRIu64 ", which cannot be read "
                            "back from the state file",
                            id);
            return 1;
        }
    }
    if (!f) return 0;
    if (!finished_asks(f, want)) {
        key_reused(c, rid, f->id);
    } else {
        ply_info("run %" PRIu64 ": the same submission again (its idempotency key): finished "
                 "(%s), answered again",
                 f->id, f->state);
        accept_finished(c, rid, f, detach);
    }
    if (f == &tmp) zmsg_destroy(&tmp.reply);
    return 1;
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
        if (id && stored == 0 && !ply__run_find(c, id) && !ply__finished_find(c, id)) return id;
        if (stored < 0) return 0;
    }
    return 0;
}

/* A new run of kind @kind from Submit @s of @who, validated, or NULL (@rid was told why). */
static ply__run_t *submitted_run(ply_coordinator_t *c, zframe_t *rid, const char *who,
                                 const ply__kind_t *kind, const Ply__Submit *s)
{
    char why[PLY__WHY_LEN];
    ply__run_t *run = ply__run_new(c, kind, who);
    if (run) ply__run_attach(run, zframe_dup(rid), s->detach);
    if (!run || !run->client) {
        if (run) ply__run_free(run);
        ply__send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        return NULL;
    }
    int r = run->kind->submit(c, run, s, why, sizeof why); /* what it asks, checked */
    if (r < 0) {
        ply__send_error(c, rid, r, 0, "%s", r == PLY_ENOMEM ? "coordinator out of memory" : why);
        ply__run_free(run);
        return NULL;
    }
    int mode = s->has_verify ? (int)s->verify : PLY__VERIFY_MODE__VERIFY_MODE_NONE;
    ply__verify_mode_set(run, mode,
                         mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE ? s->verify_ppm : 0);
    if (s->has_idempotency_key) /* the envelope checked its size */
        ply__run_set_key(run, s->idempotency_key.data, s->idempotency_key.len);
    ply__run_submitted(run, 0);
    return run;
}

/*
 * SUBMIT: validated by its kind; the same submission again (its idempotency key) or a restored
 * run asked again is that run; else a new run: its request stored (with --state), Accepted,
 * then planned on the thread pool and its plan stored (plan_done).
 */
static void on_submit(ply_coordinator_t *c, zframe_t *rid, const char *who, const Ply__Submit *s)
{
    char why[PLY__WHY_LEN] = "";
    /* the envelope passes any kind number with its payload: the registry says which run here */
    const ply__kind_t *kind = s->kind <= INT32_MAX ? ply__kind_of((int)s->kind) : NULL;
    if (!kind) {
        ply__send_error(c, rid, PLY_EINVAL, 0,
                        "job kind %" PRIu32 " is not one this coordinator runs (not in its "
                        "registry of kinds)",
                        s->kind);
        return;
    }
    ply__run_t *run = submitted_run(c, rid, who, kind, s);
    if (!run) return;
    if (key_match(c, rid, run, s->detach)) {
        ply__run_free(run);
        return;
    }
    ply__run_t *old = restored_match(c, run);
    if (old) {
        ply__run_attach(old, zframe_dup(rid), s->detach);
        ply__run_free(run);
        ply_info("run %" PRIu64 ": the same request again: resuming it (%zu of %zu jobs done)",
                 old->id, old->sched.done, old->sched.njobs);
        send_accepted(c, old->client, old);
        return;
    }
    uint64_t id = new_run_id(c);
    if (!id) {
        ply__send_error(c, rid, PLY_EIO, 0,
                        "cannot choose a run id (no random bytes, or the state "
                        "file cannot be read)");
        ply__run_free(run);
        return;
    }
    ply__fault(PLY__FAULT_SUBMIT_RECEIVED);
    run->id = id; /* what the state file and the log name it by */
    if (store_request(c, run, why, sizeof why) < 0) {
        ply__send_error(c, rid, PLY_EDB, 0, "run not accepted: %s", why);
        ply__run_free(run);
        return;
    }
    ply__fault(PLY__FAULT_SUBMIT_STORED);
    ply__run_add(c, run, id);
    char what[PLY__WHY_LEN];
    run->kind->describe_run(run, what, sizeof what);
    ply_info("run %" PRIu64 ": %s submitted%s%s%s", run->id, what, s->client_id ? " by " : "",
             s->client_id ? s->client_id : "", c->store ? ", its request stored" : "");
    send_accepted(c, rid, run); /* durable (with --state), not planned yet */
    ply__run_plan(c, run);      /* a failure fails the run: its client gets the Error */
}

typedef struct recent {
    Ply__RunProgress *rp;
    ply__finished_t *fin;
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
    ply__finished_from_store(&r->fin[r->n], sf);
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
    for (ply__run_t *run = c->runs; run; run = run->next) nrun++;
    if (nrun > PLY_MAX_STATUS_RUNS - STATUS_FINISHED) nrun = PLY_MAX_STATUS_RUNS - STATUS_FINISHED;
    size_t cap = nrun + STATUS_FINISHED;
    Ply__RunProgress *rp = calloc(cap, sizeof *rp);
    ply__asked_t *asked = calloc(cap, sizeof *asked);
    Ply__RunProgress **rpp = calloc(cap, sizeof *rpp);
    ply__finished_t *fin = calloc(STATUS_FINISHED, sizeof *fin);
    uint64_t *ids = calloc(cap, sizeof *ids);
    if (!rp || !asked || !rpp || !fin || !ids) {
        ply__send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        free(rp), free(asked), free(rpp), free(fin), free(ids);
        return;
    }
    size_t n = 0;
    for (ply__run_t *run = c->runs; run && n < nrun; run = run->next) {
        ids[n] = run->id;
        ply__fill_progress(c, &rp[n], &asked[n], run, NULL, who, 1); /* not its lines */
        n++;
    }
    size_t nfin = 0;
    for (ply__finished_t *f = c->finished; f && nfin < STATUS_FINISHED; f = f->next) {
        ids[n] = f->id;
        ply__fill_progress(c, &rp[n], &asked[n], NULL, f, who, 1);
        n++;
        nfin++;
    }
    recent_t rec = {rp, fin, 0, STATUS_FINISHED - nfin, ids, n};
    if (c->store && rec.max) ply_store_recent(c->store, STATUS_FINISHED, add_recent, &rec);
    for (size_t i = 0; i < rec.n; i++, n++)
        ply__fill_progress(c, &rp[n], &asked[n], NULL, &fin[i], who, 1);
    for (size_t i = 0; i < n; i++) rpp[i] = &rp[i];
    Ply__StatusReply sr = PLY__STATUS_REPLY__INIT;
    sr.n_run = n, sr.run = rpp;
    Ply__WorkerStatus *ws = NULL, **wp = NULL;
    sr.n_worker = ply__worker_list(c, &ws, &wp, who);
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
    ply__send_msg(c, rid, &m);
    free(rp), free(asked), free(rpp), free(fin), free(ids), free(ws), free(wp);
}

/* STATUS: anyone sees that a run exists and how far it is; its count only its owner. */
static void on_status(ply_coordinator_t *c, zframe_t *rid, const char *who,
                      const Ply__StatusRequest *s)
{
    if (s->has_run_id) {
        ply__finished_t tmp;
        ply__run_t *run = ply__run_find(c, s->run_id);
        ply__finished_t *f = run ? NULL : ply__finished_lookup(c, s->run_id, &tmp);
        if (run || f)
            ply__send_progress(c, rid, run, f, 1, who);
        else
            ply__send_error(c, rid, PLY_ENOTFOUND, s->run_id, "no run %" PRIu64, s->run_id);
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
    ply__finished_t tmp;
    ply__run_t *run = ply__run_find(c, q->run_id);
    ply__finished_t *f = run ? NULL : ply__finished_lookup(c, q->run_id, &tmp);
    if ((run || f) && !ply__may_read(c, run ? run->owner : f->owner, who)) {
        ply_info("run %" PRIu64 ": answer refused to %s (not its owner)", q->run_id, who);
        ply__send_error(c, rid, PLY_EAUTH, q->run_id,
                        "run %" PRIu64 " belongs to another client: only its owner (or an admin "
                        "key) may read its answer",
                        q->run_id);
    } else if (run) {
        if (q->attach && run->state != PLY__RUN_FAILED && run->state != PLY__RUN_DONE) {
            zframe_t *id = zframe_dup(rid);
            if (id) {
                if (!run->client || !zframe_eq(run->client, rid))
                    ply_info("run %" PRIu64 ": a client attached", run->id);
                ply__run_attach(run, id, 0);
            }
        }
        ply__send_progress(c, rid, run, NULL, 0, who);
    } else if (f && f->reply) {
        ply__send_raw(c, rid, f->reply);
    } else if (f) {
        ply__send_error(c, rid, PLY_ENOTFOUND, q->run_id, "run %" PRIu64 " %s; its answer is lost",
                        q->run_id, f->state);
    } else {
        ply__send_error(c, rid, PLY_ENOTFOUND, q->run_id, "no run %" PRIu64 "%s", q->run_id,
                        c->store ? ""
                                 : " (or it is too old; a coordinator without --state forgets)");
    }
    if (f == &tmp) zmsg_destroy(&tmp.reply);
}

/* CANCEL: only the run's owner (or an admin key) stops it. */
static void on_cancel(ply_coordinator_t *c, zframe_t *rid, const char *who, const Ply__Cancel *q)
{
    ply__run_t *run = ply__run_find(c, q->run_id);
    if (run && !ply__may_read(c, run->owner, who)) {
        ply_info("run %" PRIu64 ": cancel refused to %s (not its owner)", run->id, who);
        ply__send_error(c, rid, PLY_EAUTH, q->run_id,
                        "run %" PRIu64 " belongs to another client: only its owner (or an admin "
                        "key) may cancel it",
                        q->run_id);
        return;
    }
    if (!run) {
        ply__finished_t tmp;
        ply__finished_t *f = ply__finished_lookup(c, q->run_id, &tmp);
        if (f)
            ply__send_error(c, rid, PLY_ESTATE, q->run_id, "run %" PRIu64 " has already finished",
                            q->run_id);
        else
            ply__send_error(c, rid, PLY_ENOTFOUND, q->run_id, "no run %" PRIu64, q->run_id);
        if (f == &tmp) zmsg_destroy(&tmp.reply);
        return;
    }
    ply__run_cancel(run);
    ply_info("run %" PRIu64 ": canceled by %s", run->id, who);
    ply__send_progress(c, rid, run, NULL, 0, who);
}

void ply__on_client_message(ply_coordinator_t *c, zframe_t *rid, const char *identity,
                            ply__peer_t *p, ply_msg_t *msg)
{
    if (p && p->kind == PLY__PEER_WORKER) {
        ply__count(c, PLY__CNT_MALFORMED);
        ply__send_error(c, rid, PLY_ESTATE, 0, "%s from a worker: workers may not send it",
                        ply_msg_type_name(msg));
        return;
    }
    if (!p)
        ply__peer_add(c, rid, identity, PLY__PEER_CLIENT); /* fails only on ENOMEM: served anyway */
    ply__batch_flush(c); /* a status must not show uncommitted results */
    if (c->state != PLY__C_RUNNING) {
        ply__send_error(c, rid, PLY_ESTATE, 0, "coordinator stopping");
        return;
    }
    const char *token = msg->body_case == PLY__MESSAGE__BODY_SUBMIT   ? msg->submit->owner_token
                        : msg->body_case == PLY__MESSAGE__BODY_STATUS ? msg->status->owner_token
                        : msg->body_case == PLY__MESSAGE__BODY_RESULT_REQUEST
                            ? msg->result_request->owner_token
                            : msg->cancel->owner_token;
    char who[PLY__IDENT_LEN];
    ply__principal(identity, token, who, sizeof who);
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
