/*
 * The status snapshot (status.h): the one function that reads the
 * coordinator's registries for GET /status and GET /metrics. It copies; it
 * changes nothing (but the perft kind's cached estimate weight, as dispatch
 * does).
 */
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "peers.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "verification.h"
#include "util/error.h"
#include "util/time.h"

const char *const ply__status_run_states[6] = {"splitting", "queued", "running",
                                               "done",      "failed", "canceled"};

static void count_state(ply__status_t *s, const char *state)
{
    for (int i = 0; i < 6; i++)
        if (strcmp(state, ply__status_run_states[i]) == 0) s->runs_by_state[i]++;
}

static void take_run(ply_coordinator_t *c, ply__run_t *run, ply__status_run_t *r, uint64_t now)
{
    r->id = run->id;
    snprintf(r->kind, sizeof r->kind, "%s", run->kind->name);
    snprintf(r->state, sizeof r->state, "%s", ply__run_state_name(run));
    ply__summary_t sum;
    run->kind->summary(run, &sum);
    snprintf(r->fen, sizeof r->fen, "%s", sum.fen);
    r->depth = sum.depth;
    r->nodes_limit = sum.nodes_limit;
    r->movetime_ms = sum.movetime_ms;
    r->jobs_total = (uint32_t)run->sched.njobs;
    r->jobs_done = (uint32_t)run->sched.done;
    r->jobs_in_flight = ply__run_in_flight(c, run);
    for (size_t t = 0; run->sched.tasks && t < run->sched.ntasks; t++)
        r->jobs_queued += run->sched.tasks[t].state == PLY__TASK_PENDING;
    r->nodes = sum.nodes;
    r->counted_nodes = sum.counted_nodes;
    r->time_ms = run->sched.started_ms ? ply__run_time_ms(run, now) : 0;
    r->queued_ms = ply__run_queued_ms(run, now);
    r->tail_ms = run->sched.tail_ms         ? run->sched.tail_ms
                 : run->sched.tail_start_ms ? ply_elapsed_ms(now, run->sched.tail_start_ms)
                                            : 0;
    r->nodes_per_second = r->time_ms ? (double)r->counted_nodes * 1000.0 / (double)r->time_ms : 0;
    double f = ply__run_work_done(run);
    r->progress = run->state == PLY__RUN_DONE ? 1 : f;
    r->eta_ms = f > 0 && f < 1 && r->time_ms ? (int64_t)((double)r->time_ms * (1 - f) / f) : -1;
    snprintf(r->verify, sizeof r->verify, "%s", run->verif.text);
    r->mismatches = sum.mismatches;
    if (run->state == PLY__RUN_FAILED) snprintf(r->error, sizeof r->error, "%s", run->fail_msg);
}

static void take_finished(const ply__finished_t *f, ply__status_run_t *r)
{
    r->id = f->id;
    r->finished = 1;
    const ply__kind_t *k = ply__kind_of(f->kind);
    snprintf(r->kind, sizeof r->kind, "%s", k ? k->name : "?");
    snprintf(r->state, sizeof r->state, "%s", f->state);
    snprintf(r->fen, sizeof r->fen, "%s", f->fen);
    r->depth = f->depth;
    r->jobs_total = f->jobs_total;
    r->jobs_done = f->jobs_done;
    r->nodes = f->nodes;
    r->counted_nodes = f->counted_nodes;
    r->time_ms = f->time_ms;
    r->tail_ms = f->tail_ms;
    r->nodes_per_second = f->time_ms ? (double)f->counted_nodes * 1000.0 / (double)f->time_ms : 0;
    r->eta_ms = 0;
    r->progress = f->jobs_total ? (double)f->jobs_done / f->jobs_total : -1;
    snprintf(r->verify, sizeof r->verify, "%s", f->verify);
    r->mismatches = f->mismatches;
    snprintf(r->error, sizeof r->error, "%s", f->error);
}

static void take_worker(ply_coordinator_t *c, const ply__peer_t *p, ply__status_worker_t *w,
                        uint64_t now)
{
    snprintf(w->worker_id, sizeof w->worker_id, "%s", p->worker_id);
    snprintf(w->identity, sizeof w->identity, "%s", p->identity);
    snprintf(w->engine, sizeof w->engine, "%s", p->engine);
    w->threads = p->threads, w->hash_mib = p->hash_mib, w->zobrist_seed = p->seed;
    for (size_t i = 0; ply__kind_at(i) && w->nkinds < PLY__STATUS_KINDS; i++) {
        const ply__kind_t *k = ply__kind_at(i);
        if (k->id >= 0 && k->id < 32 && (p->kinds & (1u << k->id))) w->kinds[w->nkinds++] = k->name;
    }
    w->jobs_in_flight = (uint32_t)p->ninflight;
    w->jobs_done = p->jobs_done;
    w->nodes = p->nodes;
    /* a rate older than two samples' spacing and a heartbeat is stale: it stopped counting */
    w->nodes_per_second =
        p->hb_ms && ply_elapsed_ms(now, p->rate_ms) <= 2 * c->cfg.heartbeat_ms + PLY__RATE_MIN_MS
            ? p->nps
            : 0;
    w->heartbeat_age_ms = (int64_t)ply_elapsed_ms(now, p->hb_ms ? p->hb_ms : p->last_seen_ms);
    for (const ply__run_t *run = c->runs; run; run = run->next)
        w->excluded_runs += run->state == PLY__RUN_ACTIVE && ply__excluded(run, p->identity);
}

int ply__status_take(ply_coordinator_t *c, ply__status_t *s)
{
    memset(s, 0, sizeof *s);
    uint64_t now = ply_time_ms();
    size_t nruns = c->nfinished;
    for (const ply__run_t *run = c->runs; run; run = run->next) nruns++;
    s->runs = calloc(nruns ? nruns : 1, sizeof *s->runs);
    s->workers = calloc(c->nworkers ? c->nworkers : 1, sizeof *s->workers);
    if (!s->runs || !s->workers) {
        ply__status_release(s);
        return PLY_ENOMEM;
    }
    s->uptime_ms = ply_elapsed_ms(now, c->started_ms);
    ply_coordinator_counters(c, &s->counters);
    s->nodes_total = c->nodes_reaped;
    for (ply__run_t *run = c->runs; run; run = run->next) {
        ply__status_run_t *r = &s->runs[s->nruns++];
        take_run(c, run, r, now);
        count_state(s, r->state);
        ply_u128_add(&s->nodes_total, r->nodes);
    }
    for (const ply__finished_t *f = c->finished; f && s->nruns < nruns; f = f->next) {
        take_finished(f, &s->runs[s->nruns++]);
        count_state(s, f->state);
    }
    for (const ply__peer_t *p = c->peers; p && s->nworkers < c->nworkers; p = p->next) {
        if (p->kind != PLY__PEER_WORKER) continue;
        take_worker(c, p, &s->workers[s->nworkers++], now);
        s->threads += p->threads;
    }
    return 0;
}

void ply__status_release(ply__status_t *s)
{
    if (!s) return;
    free(s->runs);
    free(s->workers);
    s->runs = NULL, s->workers = NULL;
    s->nruns = s->nworkers = 0;
}
