/*
 * The status snapshot (status.h): the one function that reads the
 * coordinator's registries for GET /status and GET /metrics. It copies; it
 * changes nothing (but the perft kind's cached estimate weight, as dispatch
 * does). A search run's lines come through its kind's fill_progress (what `ply
 * status RUN` shows its owner), a finished one's from the answer its client got.
 */
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "search/game.h"
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

static void take_line(const Ply__AnalysedMove *m, ply__status_line_t *o)
{
    const Ply__SearchLine *l = m->line;
    snprintf(o->move, sizeof o->move, "%s", m->move ? m->move : "");
    snprintf(o->san, sizeof o->san, "%s", m->san ? m->san : o->move);
    for (size_t i = 0; i < m->n_pv_san && o->npv < PLY__STATUS_PV; i++)
        snprintf(o->pv[o->npv++], sizeof o->pv[0], "%s", m->pv_san[i]);
    o->has_mate = l->has_mate, o->mate = l->mate, o->score_cp = l->score_cp;
    o->bound = l->bound, o->depth = l->depth;
}

/*
 * A search answer (so far, or final) into @r: its best lines and its iterations. A game's
 * analysis (moves by ply) is not a position's lines: left out. 0 or PLY_ENOMEM.
 */
static int take_answer(const Ply__SearchAnswer *a, ply__status_run_t *r)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_moves; i++) {
        if (a->moves[i]->has_ply) return 0;
        n += a->moves[i]->line != NULL;
    }
    const Ply__AnalysedMove **best = calloc(n ? n : 1, sizeof *best);
    if (!best) return PLY_ENOMEM;
    n = 0;
    for (size_t i = 0; i < a->n_moves; i++)
        if (a->moves[i]->line) best[n++] = a->moves[i];
    /* a deepening analysis gives its iteration best first (the top exact, the others bounds
     * below them); a root-move analysis in progress, in the order its lines came */
    if (!a->has_depth) qsort(best, n, sizeof *best, ply__search_cmp_analysed);
    r->has_search = 1;
    r->search_depth = a->has_depth ? a->depth : 0;
    r->moves_done = (uint32_t)n;
    for (size_t i = 0; i < n && r->nlines < PLY__STATUS_LINES; i++)
        take_line(best[i], &r->lines[r->nlines++]);
    free(best);
    if (!a->n_iterations) return 0;
    r->iters = calloc(a->n_iterations, sizeof *r->iters);
    if (!r->iters) return PLY_ENOMEM;
    for (size_t i = 0; i < a->n_iterations; i++) {
        const Ply__SearchIteration *it = a->iterations[i];
        ply__status_iter_t *o = &r->iters[r->niters++];
        o->depth = it->depth;
        snprintf(o->san, sizeof o->san, "%s", it->san ? it->san : it->move ? it->move : "");
        if (it->line)
            o->has_mate = it->line->has_mate, o->mate = it->line->mate,
            o->score_cp = it->line->score_cp, o->bound = it->line->bound;
        o->time_ms = it->time_ms, o->nodes = it->nodes;
    }
    return 0;
}

/* A search run's answer so far, as viewer @who may see it (status.h); 0 or PLY_ENOMEM. */
static int take_run_answer(ply_coordinator_t *c, ply__run_t *run, ply__status_run_t *r,
                           const char *who)
{
    if (run->kind->id != PLY__JOB_KIND__JOB_KIND_SEARCH) return 0;
    if (!who || !ply__may_read(c, run->owner, who)) {
        r->answer_hidden = 1;
        return 0;
    }
    Ply__RunProgress rp = PLY__RUN_PROGRESS__INIT;
    run->kind->fill_progress(run, &rp, 1);
    return rp.search ? take_answer(rp.search, r) : 0;
}

/* A finished search run's answer, from the RunResult its client got; 0 or PLY_ENOMEM. */
static int take_finished_answer(ply_coordinator_t *c, const ply__finished_t *f,
                                ply__status_run_t *r, const char *who)
{
    if (f->kind != PLY__JOB_KIND__JOB_KIND_SEARCH) return 0;
    if (!who || !ply__may_read(c, f->owner, who)) {
        r->answer_hidden = 1;
        return 0;
    }
    ply_msg_t *m = NULL;
    if (!f->reply || ply_msg_decode(f->reply, &m, NULL, 0) < 0) return 0; /* no answer kept */
    int rc = 0;
    if (m->body_case == PLY__MESSAGE__BODY_RUN_RESULT && m->run_result->search)
        rc = take_answer(m->run_result->search, r);
    ply_msg_free(&m);
    return rc;
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
    if (run->kind->id == PLY__JOB_KIND__JOB_KIND_SEARCH) { /* its request says how it deepens */
        ply__asked_t asked;
        ply__run_asked(&asked, run);
        if (asked.msg.search)
            r->deepen = asked.msg.search->deepen, r->infinite = asked.msg.search->infinite;
    }
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
    if (f->kind == PLY__JOB_KIND__JOB_KIND_SEARCH && f->has_request) { /* the request it kept */
        Ply__SearchRequest *q = ply__search_request__unpack(NULL, f->request_len, f->request);
        if (q) {
            r->deepen = q->deepen, r->infinite = q->infinite;
            r->nodes_limit = q->has_nodes ? q->nodes : 0;
            r->movetime_ms = q->has_movetime_ms ? q->movetime_ms : 0;
            ply__search_request__free_unpacked(q, NULL);
        }
    }
    r->jobs_total = f->jobs_total;
    r->jobs_done = f->jobs_done;
    r->nodes = f->nodes;
    r->counted_nodes = f->counted_nodes;
    r->time_ms = f->time_ms;
    r->tail_ms = f->tail_ms;
    r->nodes_per_second = f->time_ms ? (double)f->counted_nodes * 1000.0 / (double)f->time_ms : 0;
    r->eta_ms = 0;
    /* done: all of it (a deepening analysis's jobs are never done one by one) */
    r->progress = !strcmp(f->state, "done") ? 1
                  : f->jobs_total           ? (double)f->jobs_done / f->jobs_total
                                            : -1;
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

int ply__status_take(ply_coordinator_t *c, ply__status_t *s, const char *who)
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
        if (take_run_answer(c, run, r, who) < 0) goto nomem;
    }
    for (const ply__finished_t *f = c->finished; f && s->nruns < nruns; f = f->next) {
        ply__status_run_t *r = &s->runs[s->nruns++];
        take_finished(f, r);
        count_state(s, f->state);
        if (take_finished_answer(c, f, r, who) < 0) goto nomem;
    }
    for (const ply__peer_t *p = c->peers; p && s->nworkers < c->nworkers; p = p->next) {
        if (p->kind != PLY__PEER_WORKER) continue;
        take_worker(c, p, &s->workers[s->nworkers++], now);
        s->threads += p->threads;
    }
    return 0;
nomem:
    ply__status_release(s);
    return PLY_ENOMEM;
}

void ply__status_release(ply__status_t *s)
{
    if (!s) return;
    for (size_t i = 0; s->runs && i < s->nruns; i++) free(s->runs[i].iters);
    free(s->runs);
    free(s->workers);
    s->runs = NULL, s->workers = NULL;
    s->nruns = s->nworkers = 0;
}
