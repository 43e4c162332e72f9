/*
 * Verification of a run (DESIGN.md step 5): which jobs are computed twice,
 * by whom, how the computations are compared and a disagreement settled, and
 * the Verification report that says exactly what was done.
 *
 * Modes (Submit.verify):
 *   none    one computation per job; only the always-on checks (the arbiter
 *           above the split, perft(1) of every job);
 *   sample  each job with probability P, drawn from the kernel's CSPRNG at
 *           the run's start (nothing a worker sees tells which). The check is
 *           counted by the rule engine when it can afford the job (estimated
 *           nodes <= arbiter_budget, a quarter of that with statistics), else
 *           by a second worker;
 *   all     every job twice, on two workers (the way record perft
 *           computations were verified).
 *
 * The trust model (README "Threat model"). A worker is its identity
 * (peer_t.identity: its CURVE key, or its connection), never the id or seed
 * it declares. A check by a worker goes to the best worker available, in
 * this order: another identity with another Zobrist seed; another identity
 * with the same seed; the same identity (only when it is the only one
 * connected). Only the last counts without its hash table (Job.no_hash): a
 * check by another identity is sent exactly as a first computation. The
 * report names each kind separately (a check by the same identity is never
 * reported as a check by another) and how many distinct identities the
 * counts came from.
 *
 * Two computations agree when nodes, statistics (when both have them) and
 * the split-0 divide agree. The rule engine is authoritative: when it
 * counted one of them (a sample's check) or can afford the tie-break, its
 * count is used and is never outvoted; else a third identity decides by
 * majority. Every computation that loses is caught: its identity is excluded
 * from the run (ply__exclude: no more of its jobs, its tasks withdrawn, its
 * computations of unsettled jobs dropped, every settled job resting on it
 * alone taken out of the sums and computed again), and where the rule engine
 * can afford it a drill-down compares its divide of the job position with a
 * divide job on the losing worker to name the first move whose subtree
 * differs. Three different answers quarantine the job: the run fails with
 * every count and worker, never with a partial or a guessed total. A
 * tie-break that no third identity takes within worker_wait_ms, or a run
 * left with only excluded workers for that long, fails the same way.
 *
 * The rule engine's counts run on libuv's thread pool (arb_work), never on
 * the loop thread; their results come back through the same path as a
 * worker's (stored, then taken).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/error.h"
#include "util/log.h"
#include "util/random.h"
#include "util/time.h"

#define ARBITER_ID "arbiter"
/* How long a check waits for the local workers a coordinator starts before it may run on
 * the worker that counted first (they join within a second or two). */
#define SAME_WORKER_GRACE_MS 10000

static size_t role_of(const run_t *run, size_t t)
{
    return t / run->plan->njobs;
}

static size_t job_of(const run_t *run, size_t t)
{
    return t % run->plan->njobs;
}

static size_t task_of(const run_t *run, size_t idx, int role)
{
    return (size_t)role * run->plan->njobs + idx;
}

/* ------------------------------------------------------------------- setup */

void ply__verify_mode_text(int mode, uint32_t ppm, char *buf, size_t len)
{
    if (mode == PLY__VERIFY_MODE__VERIFY_MODE_ALL)
        snprintf(buf, len, "all");
    else if (mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
        snprintf(buf, len, "sample=%g", ppm / 1e6);
    else
        snprintf(buf, len, "none");
}

int ply__verify_selected(const run_t *run, size_t idx)
{
    if (run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_ALL) return 1;
    if (run->verify_mode != PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE) return 0;
    return run->select && run->select[idx];
}

/*
 * A sample's jobs: each job independently with probability P, from 32
 * random bits per job (r x 10^6 / 2^32 < ppm). Nothing a worker sees or
 * chooses (job order, size, position, its own answers) tells which: a liar
 * lying on k jobs of a run is caught with probability 1 - (1 - P)^k.
 */
static int choose_sample(run_t *run)
{
    size_t njobs = run->plan->njobs;
    uint32_t *r = malloc((njobs ? njobs : 1) * sizeof *r);
    if (!r) return PLY_ENOMEM;
    int rc = ply_random_bytes(r, njobs * sizeof *r);
    for (size_t i = 0; rc == 0 && i < njobs; i++)
        run->select[i] = ((uint64_t)r[i] * PLY_PPM >> 32) < run->verify_ppm;
    free(r);
    return rc;
}

uint64_t ply__wire_id(const run_t *run, size_t t)
{
    return run->job_base + (run->wire ? run->wire[t] : t);
}

int64_t ply__task_of_wire(const run_t *run, uint64_t id)
{
    if (id < run->job_base || id - run->job_base >= run->ntasks) return -1;
    size_t w = (size_t)(id - run->job_base);
    return (int64_t)(run->unwire ? run->unwire[w] : w);
}

/*
 * A uniformly random permutation of the run's task ids (Fisher-Yates, 64
 * random bits per step: the modulo's bias is below 2^-32 for any run), and
 * its inverse. Without it a task's id is role x njobs + job: a worker would
 * see a check's id in another range than the first computations'.
 */
static int permute_tasks(run_t *run)
{
    size_t n = run->ntasks;
    uint64_t *r = malloc((n ? n : 1) * sizeof *r);
    run->wire = malloc((n ? n : 1) * sizeof *run->wire);
    run->unwire = malloc((n ? n : 1) * sizeof *run->unwire);
    if (!r || !run->wire || !run->unwire) {
        free(r);
        return PLY_ENOMEM;
    }
    int rc = ply_random_bytes(r, n * sizeof *r);
    for (size_t i = 0; i < n; i++) run->wire[i] = (uint32_t)i;
    for (size_t i = n; rc == 0 && i > 1; i--) {
        size_t k = (size_t)(r[i - 1] % i);
        uint32_t x = run->wire[i - 1];
        run->wire[i - 1] = run->wire[k];
        run->wire[k] = x;
    }
    for (size_t i = 0; i < n; i++) run->unwire[run->wire[i]] = (uint32_t)i;
    free(r);
    return rc;
}

int ply__verify_setup(run_t *run)
{
    size_t njobs = run->plan->njobs;
    run->slots = run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_NONE ? 1 : PLY__ROLES;
    run->ntasks = njobs * run->slots;
    run->jobs = calloc(run->ntasks ? run->ntasks : 1, sizeof *run->jobs);
    run->settled = calloc(njobs ? njobs : 1, 1);
    if (run->slots > 1) run->v = calloc(njobs ? njobs : 1, sizeof *run->v);
    run->select = calloc(njobs ? njobs : 1, 1);
    run->acc = calloc(njobs ? njobs : 1, sizeof *run->acc);
    if (run->want_stats) run->acc_stats = calloc(njobs ? njobs : 1, sizeof *run->acc_stats);
    if (!run->jobs || !run->settled || (run->slots > 1 && !run->v) || !run->select || !run->acc ||
        (run->want_stats && !run->acc_stats))
        return PLY_ENOMEM;
    for (size_t t = njobs; t < run->ntasks; t++) run->jobs[t].state = JOB_UNUSED;
    if (run->slots > 1) {
        int rc = permute_tasks(run);
        if (rc < 0) return rc;
    }
    if (run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE) {
        int rc = choose_sample(run);
        if (rc < 0) return rc;
    }
    run->selected = 0;
    for (size_t i = 0; i < njobs; i++) run->selected += (uint32_t)ply__verify_selected(run, i);
    return 0;
}

void ply__comp_free(ply__comp_t *comp)
{
    free(comp->divide);
    free(comp->divide_stats);
    comp->divide = NULL;
    comp->divide_stats = NULL;
}

static void vjob_free(ply__vjob_t **vp)
{
    ply__vjob_t *v = *vp;
    if (!v) return;
    for (int r = 0; r < 3; r++) ply__comp_free(&v->comp[r]);
    free(v->drill);
    free(v->drill_text);
    free(v);
    *vp = NULL;
}

void ply__verify_free(run_t *run)
{
    for (size_t i = 0; run->v && run->plan && i < run->plan->njobs; i++) vjob_free(&run->v[i]);
    free(run->v);
    free(run->settled);
    free(run->mm);
    free(run->select);
    free(run->wire);
    free(run->unwire);
    run->wire = run->unwire = NULL;
    free(run->acc);
    free(run->acc_stats);
    for (unsigned i = 0; i < run->nidents; i++) free(run->idents[i].why);
    free(run->idents);
    run->v = NULL;
    run->settled = NULL;
    run->mm = NULL;
    run->select = NULL;
    run->acc = NULL;
    run->acc_stats = NULL;
    run->idents = NULL;
    run->nidents = run->capidents = 0;
}

/* ------------------------------------------------------------- identities */

/* The index of @identity in run->idents (added when new, noting @worker), or PLY__WHO_NONE. */
static unsigned ident_of(run_t *run, const char *identity, const char *worker)
{
    unsigned i = 0;
    while (i < run->nidents && strcmp(run->idents[i].identity, identity) != 0) i++;
    if (i == run->nidents) {
        if (i >= PLY__WHO_ARBITER) return PLY__WHO_NONE;
        if (i == run->capidents) {
            unsigned cap = run->capidents ? 2 * run->capidents : 8;
            ply__ident_t *a = realloc(run->idents, cap * sizeof *a);
            if (!a) return PLY__WHO_NONE;
            run->idents = a;
            run->capidents = cap;
        }
        memset(&run->idents[i], 0, sizeof run->idents[i]);
        snprintf(run->idents[i].identity, sizeof run->idents[i].identity, "%s", identity);
        run->nidents++;
    }
    if (worker) snprintf(run->idents[i].worker, sizeof run->idents[i].worker, "%s", worker);
    return i;
}

int ply__excluded(const run_t *run, const char *identity)
{
    for (unsigned i = 0; run->nexcluded && i < run->nidents; i++)
        if (run->idents[i].excluded && strcmp(run->idents[i].identity, identity) == 0) return 1;
    return 0;
}

/* ------------------------------------------------------------ eligibility */

typedef struct other {
    const char *identity;
    uint32_t seed;
} other_t;

/* 3: another identity with another seed; 2: another identity, a seed in common; 1: one of them
 * (whatever worker id it declares: sessions under one key are one identity). */
static int grade(const peer_t *p, const other_t *o, int n)
{
    int g = 3;
    for (int i = 0; i < n; i++) {
        if (strcmp(p->identity, o[i].identity) == 0) return 1;
        if (p->seed == o[i].seed) g = 2;
    }
    return g;
}

/* The workers that computed or compute the job's other computations (the rule engine is no worker).
 */
static int others_of(const run_t *run, size_t idx, int role, other_t *o)
{
    int n = 0;
    const ply__vjob_t *v = run->v ? run->v[idx] : NULL;
    for (int r = 0; r < 3; r++) {
        if (r == role) continue;
        const job_state_t *j = &run->jobs[task_of(run, idx, r)];
        if (v && v->comp[r].have && !v->comp[r].arbiter) {
            o[n].identity = v->comp[r].identity;
            o[n++].seed = v->comp[r].seed;
        } else if (j->state == JOB_INFLIGHT && j->worker) {
            o[n].identity = j->worker->identity;
            o[n++].seed = j->worker->seed;
        }
    }
    return n;
}

int ply__eligible(ply_coordinator_t *c, const run_t *run, size_t t, const peer_t *p, int *no_hash)
{
    *no_hash = 0;
    if (p->probation) return 0;
    size_t idx = job_of(run, t);
    int role = (int)role_of(run, t);
    const job_state_t *j = &run->jobs[t];
    if (role == PLY__DRILL) {
        const ply__vjob_t *v = run->v ? run->v[idx] : NULL;
        return v && v->drill && strncmp(v->drill->worker, p->worker_id, PLY__ID_LEN - 1) == 0 &&
               strcmp(v->drill->identity, p->identity) == 0;
    }
    if (run->nexcluded && ply__excluded(run, p->identity)) return 0; /* caught wrong in this run */
    other_t o[3];
    int n = run->slots > 1 && ply__verify_selected(run, idx) ? others_of(run, idx, role, o) : 0;
    if (!n && (!j->avoid || j->avoid != p->id_hash)) return 1; /* the common case, at once */
    int min = role == PLY__TIE ? 2 : 1; /* a tie-break must come from a third worker */
    int g = grade(p, o, n), best = 0, best_others = 0;
    for (const peer_t *w = c->peers; w; w = w->next) {
        if (w->kind != PEER_WORKER || w->probation ||
            (run->nexcluded && ply__excluded(run, w->identity)))
            continue;
        int wg = grade(w, o, n);
        if (wg > best) best = wg;
        if (w != p && wg >= min && wg >= g && w->id_hash != j->avoid) best_others = 1;
    }
    if (g < min || g < best) return 0;
    /* the worker that counted first checks itself only when no other can come soon: not
     * while local workers this coordinator started are still joining */
    if (g == 1 && c->cfg.spawn_workers && c->nworkers < c->cfg.spawn_workers &&
        ply_time_ms() - c->started_ms < SAME_WORKER_GRACE_MS)
        return 0;
    /* a task that failed on this worker goes elsewhere when another worker as good is here */
    if (j->avoid && j->avoid == p->id_hash && best_others) return 0;
    /* Only a check by the identity that counted first goes without its hash table (it could
     * read its own first answer back). A check by another identity is sent exactly as a first
     * computation: nothing in it tells the worker that it is a check. */
    *no_hash = n > 0 && g == 1;
    return 1;
}

/* ------------------------------------------------------------- the sums */

static void note_used(run_t *run, const ply__comp_t *k)
{
    if (k->arbiter) return;
    uint32_t id = ply__hash_id(k->worker);
    unsigned i = 0;
    while (i < run->nused_ids && run->used_ids[i] != id) i++;
    if (i == run->nused_ids && i < sizeof run->used_ids / sizeof *run->used_ids)
        run->used_ids[run->nused_ids++] = id;
    i = 0;
    while (i < run->nused_seeds && run->used_seeds[i] != k->seed) i++;
    if (i == run->nused_seeds && i < sizeof run->used_seeds / sizeof *run->used_seeds)
        run->used_seeds[run->nused_seeds++] = k->seed;
}

static void maybe_done(run_t *run)
{
    if (run->state == RUN_ACTIVE && run->done == run->plan->njobs && run->drills_pending == 0)
        run->state = RUN_DONE;
}

/* The counter of the kind of confirmation a settled job got (ply__acc_t.kind), or NULL. */
static uint32_t *confirmations(run_t *run, int kind)
{
    return kind == PLY__CONF_WORKER       ? &run->by_worker
           : kind == PLY__CONF_SAME_SEED  ? &run->same_seed
           : kind == PLY__CONF_SAME_IDENT ? &run->same_worker
           : kind == PLY__CONF_ARBITER    ? &run->by_arbiter
                                          : NULL;
}

/*
 * Adds the accepted computation @k of job @idx into the run's sums, exactly
 * (128-bit: a job's count fits in 64 bits, a run's total need not). A sum
 * past 2^128 - 1, which no position reaches below depth 17 (util/u128.h),
 * fails the run rather than wrap. Notes where the counts came from: @who2,
 * the identity (run->idents index, or PLY__WHO_*) of the computation that
 * confirmed them, and the kind of confirmation @kind (PLY__CONF_*).
 */
static void apply(run_t *run, size_t idx, const ply__comp_t *k, unsigned who2, int kind)
{
    const ply_split_t *plan = run->plan;
    const ply_split_job_t *sj = &plan->jobs[idx];
    int over = 0;
    if (plan->split_depth == 0) {
        for (int m = 0; k->divide && m < plan->nroot; m++) run->divide[m] = k->divide[m];
        run->divide_has_stats = run->want_stats && k->divide_stats;
        for (int m = 0; run->divide_has_stats && m < plan->nroot; m++)
            ply_stats128_from(&run->divide_stats[m], &k->divide_stats[m]);
    } else {
        for (uint32_t m = 0; m < sj->nmult; m++) {
            const ply_split_mult_t *pm = &sj->mult[m];
            over |= ply_u128_add_mul(&run->divide[pm->root], pm->count, k->nodes) < 0;
            if (run->want_stats)
                over |= ply_stats128_add(&run->divide_stats[pm->root], &k->stats, pm->count) < 0;
        }
        run->divide_has_stats = run->want_stats;
    }
    over |= ply_u128_add_mul(&run->nodes, sj->multiplicity, k->nodes) < 0;
    if (run->want_stats) over |= ply_stats128_add(&run->stats, &k->stats, sj->multiplicity) < 0;
    if (over)
        ply__run_fail(run, PLY_ERANGE,
                      "job %zu at %s: the run's counts pass 2^128 - 1, beyond what ply sums "
                      "exactly",
                      idx, sj->fen);
    ply__acc_t *a = &run->acc[idx];
    a->who = (uint16_t)(k->arbiter ? PLY__WHO_ARBITER : ident_of(run, k->identity, k->worker));
    a->who2 = (uint16_t)who2;
    a->kind = (uint8_t)kind;
    if (confirmations(run, kind)) (*confirmations(run, kind))++;
    a->nodes = k->nodes;
    if (run->acc_stats) run->acc_stats[idx] = k->stats;
    run->worker_time_us += k->time_us;
    run->tt_probes += k->tt_probes;
    run->tt_hits += k->tt_hits;
    if (k->live) { /* honest figures: what was counted now, apart from what tables answered */
        uint64_t tt = k->tt_nodes < k->nodes ? k->tt_nodes : k->nodes; /* a worker's word */
        uint64_t n = k->nodes - tt;
        run->counted_nodes = run->counted_nodes + n < n ? UINT64_MAX : run->counted_nodes + n;
        run->tt_nodes = run->tt_nodes + tt < tt ? UINT64_MAX : run->tt_nodes + tt;
    }
    run->perft1_checked++;
    run->settled[idx] = 1;
    note_used(run, k);
    run->done++;
    maybe_done(run);
}

/* @dst -= @mult x @src per counter: the exact inverse of an earlier ply_stats128_add. */
static void stats128_take_out(ply_stats128_t *dst, const ply_stats_t *src, uint64_t mult)
{
    for (int i = 0; i < PLY_STATS_N; i++) dst->v[i] -= (ply_u128_t)mult * src->v[i];
}

/*
 * Takes settled job @idx's counts out of the run's sums again (its source
 * was caught wrong): the exact inverse of apply(), which added them, so no
 * sum goes below zero.
 */
static void unapply(run_t *run, size_t idx)
{
    const ply_split_t *plan = run->plan;
    const ply_split_job_t *sj = &plan->jobs[idx];
    const ply__acc_t *a = &run->acc[idx];
    if (plan->split_depth == 0) {
        memset(run->divide, 0, (size_t)plan->nroot * sizeof *run->divide);
        if (run->divide_stats)
            memset(run->divide_stats, 0, (size_t)plan->nroot * sizeof *run->divide_stats);
    } else {
        for (uint32_t m = 0; m < sj->nmult; m++) {
            const ply_split_mult_t *pm = &sj->mult[m];
            run->divide[pm->root] -= (ply_u128_t)pm->count * a->nodes;
            if (run->want_stats)
                stats128_take_out(&run->divide_stats[pm->root], &run->acc_stats[idx], pm->count);
        }
    }
    run->nodes -= (ply_u128_t)sj->multiplicity * a->nodes;
    if (run->want_stats) stats128_take_out(&run->stats, &run->acc_stats[idx], sj->multiplicity);
    if (confirmations(run, run->acc[idx].kind)) (*confirmations(run, run->acc[idx].kind))--;
    run->perft1_checked--;
    run->settled[idx] = 0;
    run->done--;
}

/* ------------------------------------------------ the rule engine's counts */

typedef struct arb_work {
    uv_work_t w;
    ply_coordinator_t *c;
    uint64_t run_id;
    size_t t;
    int drill; /* the reference divide of a drill-down */
    ply_arb_pos_t pos;
    unsigned depth;
    int stats, divide;
    uint64_t budget;
    /* out */
    int too_big;
    uint64_t estimate, nodes, time_us;
    ply_stats_t st;
    int n, has_divst;
    char uci[PLY_ARB_MAX_MOVES][6];
    uint64_t div[PLY_ARB_MAX_MOVES];
    ply_stats_t divst[PLY_ARB_MAX_MOVES];
} arb_work_t;

/* On the thread pool: the rule engine counts, unless the job is beyond its budget. */
static void arb_count(uv_work_t *w)
{
    arb_work_t *a = w->data;
    a->estimate = ply_split_estimate(&a->pos, a->depth);
    uint64_t budget = a->stats && !a->drill ? a->budget / 4 : a->budget;
    if (a->estimate > budget) {
        a->too_big = 1;
        return;
    }
    uint64_t t0 = ply_time_ns();
    if (a->divide || a->drill) {
        ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
        a->n = ply_arb_legal_moves(&a->pos, moves);
        a->has_divst = a->stats && !a->drill && a->depth >= 2;
        for (int i = 0; i < a->n; i++) {
            ply_arb_pos_t child = a->pos;
            ply_arb_make(&child, moves[i]);
            ply_arb_move_to_uci(&a->pos, moves[i], a->uci[i]);
            a->div[i] = a->depth == 1 ? 1 : ply_arb_perft(&child, (int)a->depth - 1);
            if (a->has_divst) ply_arb_perft_stats(&child, (int)a->depth - 1, &a->divst[i]);
            a->nodes += a->div[i];
        }
    }
    if (a->stats && !a->drill) {
        ply_arb_perft_stats(&a->pos, (int)a->depth, &a->st);
        a->nodes = a->st.v[PLY_STAT_nodes];
    } else if (!a->divide && !a->drill) {
        a->nodes = ply_arb_perft(&a->pos, (int)a->depth);
    }
    a->time_us = (ply_time_ns() - t0) / 1000;
}

static void drill_try_finish(ply_coordinator_t *c, run_t *run, size_t idx);
static void queue_task(run_t *run, size_t t);
static void settle(ply_coordinator_t *c, run_t *run, size_t idx, int live);

/* Back on the loop thread: the count becomes a computation, or the job goes to a worker. */
static void arb_done(uv_work_t *w, int status)
{
    arb_work_t *a = w->data;
    ply_coordinator_t *c = a->c;
    c->pending_work--;
    run_t *run = ply__run_find(c, a->run_id);
    if (status != 0 || !run || run->state != RUN_ACTIVE) {
        free(a);
        return;
    }
    size_t idx = job_of(run, a->t);
    ply__vjob_t *v = run->v ? run->v[idx] : NULL;
    if (a->drill) {
        ply__drill_t *d = v ? v->drill : NULL;
        if (d && !d->done) {
            if (a->too_big) {
                free(v->drill_text);
                char text[200];
                snprintf(text, sizeof text,
                         "not done: about %" PRIu64 " nodes is beyond the rule engine's budget "
                         "of %" PRIu64,
                         a->estimate, a->budget);
                v->drill_text = strdup(text);
                d->have_ref = d->have_work = 1;
                d->nref = d->nwork = -1; /* concluded */
            } else {
                d->have_ref = 1;
                d->nref = a->n;
                memcpy(d->ref_uci, a->uci, sizeof a->uci);
                memcpy(d->ref_nodes, a->div, sizeof a->div);
            }
            drill_try_finish(c, run, idx);
        }
    } else if (run->jobs[a->t].state == JOB_ARBITER) {
        if (a->too_big) {
            ply_debug("run %" PRIu64 ": job %zu: ~%" PRIu64 " nodes, beyond the rule engine's "
                      "budget: a worker checks it",
                      run->id, idx, a->estimate);
            queue_task(run, a->t);
        } else {
            ply__comp_t k;
            memset(&k, 0, sizeof k);
            k.have = 1;
            k.arbiter = 1;
            k.no_hash = 1;
            k.nodes = a->nodes;
            k.time_us = a->time_us;
            snprintf(k.worker, sizeof k.worker, ARBITER_ID);
            snprintf(k.identity, sizeof k.identity, ARBITER_ID);
            if (a->stats) k.has_stats = 1, k.stats = a->st;
            int nroot = run->plan->nroot;
            if (a->divide && a->n == nroot) {
                k.divide = calloc((size_t)nroot + 1, sizeof *k.divide);
                if (k.divide) memcpy(k.divide, a->div, (size_t)nroot * sizeof *k.divide);
                if (a->has_divst &&
                    (k.divide_stats = calloc((size_t)nroot + 1, sizeof *k.divide_stats)))
                    memcpy(k.divide_stats, a->divst, (size_t)nroot * sizeof *k.divide_stats);
            }
            char why[PLY__WHY_LEN];
            if (ply__comp_store(c, run, a->t, &k, why, sizeof why) < 0) {
                ply__comp_free(&k);
                ply__run_fail(run, PLY_EDB, "%s", why);
            } else {
                run->results_computed++;
                k.live = 1;
                ply__take(c, run, a->t, &k, 1);
            }
        }
    }
    free(a);
    ply__pump(c);
}

/* Queues the rule engine's count of task @t (or, @drill, its reference divide); 0 or < 0. */
static int arbiter_start(ply_coordinator_t *c, run_t *run, size_t t, int drill)
{
    if (!c->cfg.arbiter_budget) return PLY_ERANGE;
    const ply_split_t *plan = run->plan;
    arb_work_t *a = calloc(1, sizeof *a);
    if (!a) return PLY_ENOMEM;
    char why[128];
    if (ply_arb_from_fen(&a->pos, plan->jobs[job_of(run, t)].fen,
                         run->chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why) < 0) {
        free(a);
        return PLY_EFEN;
    }
    a->c = c;
    a->run_id = run->id;
    a->t = t;
    a->drill = drill;
    a->depth = plan->job_depth;
    a->stats = run->want_stats;
    a->divide = plan->split_depth == 0;
    a->budget = c->cfg.arbiter_budget;
    a->w.data = a;
    if (uv_queue_work(&c->loop, &a->w, arb_count, arb_done) != 0) {
        free(a);
        return PLY_ENOMEM;
    }
    c->pending_work++;
    return 0;
}

/* --------------------------------------------------------------- settling */

static void queue_task(run_t *run, size_t t)
{
    run->jobs[t].state = JOB_PENDING;
    run->jobs[t].queued_ms = ply_time_ms();
    if (ply__queue_push(run, t) != 0) ply__run_fail(run, PLY_ENOMEM, "out of memory");
}

/*
 * Starts computation @role of job @idx if it has not started: by the rule
 * engine when the mode allows it (a sample's check, any tie-break) and it can
 * afford the job, else by a worker through the queue.
 */
static void activate(ply_coordinator_t *c, run_t *run, size_t idx, int role)
{
    size_t t = task_of(run, idx, role);
    if (run->jobs[t].state != JOB_UNUSED) return;
    const ply__vjob_t *v = run->v[idx];
    /* the rule engine against a worker is settled by another worker, not by itself again */
    int arbiter = (role == PLY__TIE && !(v && v->comp[1].arbiter)) ||
                  (role == PLY__CHECK && run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE);
    if (arbiter && arbiter_start(c, run, t, 0) == 0) {
        run->jobs[t].state = JOB_ARBITER;
        return;
    }
    queue_task(run, t);
}

void ply__on_handout(ply_coordinator_t *c, run_t *run, size_t t)
{
    size_t idx = job_of(run, t);
    if (run->slots > 1 && role_of(run, t) == PLY__FIRST && ply__verify_selected(run, idx))
        activate(c, run, idx, PLY__CHECK);
}

static int comp_same(const run_t *run, const ply__comp_t *a, const ply__comp_t *b)
{
    if (a->nodes != b->nodes) return 0;
    if (a->has_stats && b->has_stats && !ply_stats_equal(&a->stats, &b->stats)) return 0;
    if (a->divide && b->divide)
        for (int i = 0; i < run->plan->nroot; i++)
            if (a->divide[i] != b->divide[i]) return 0;
    return 1;
}

/* The kind of confirmation two agreeing computations give. */
static int classify(const ply__comp_t *a, const ply__comp_t *b)
{
    if (a->arbiter || b->arbiter) return PLY__CONF_ARBITER;
    if (strcmp(a->identity, b->identity) == 0) return PLY__CONF_SAME_IDENT;
    return a->seed == b->seed ? PLY__CONF_SAME_SEED : PLY__CONF_WORKER;
}

/* Job @idx is settled: computation @role's counts are used, confirmed by computation @confirm
 * (-1: none, or the rule engine alone, @role being its count). */
static void accept_job(run_t *run, size_t idx, int role, int confirm)
{
    ply__vjob_t *v = run->v[idx];
    v->settled = 1;
    v->accepted = role;
    const ply__comp_t *k = confirm >= 0 ? &v->comp[confirm] : NULL;
    int kind = k ? classify(&v->comp[role], k) : v->comp[role].arbiter ? PLY__CONF_ARBITER : 0;
    apply(run, idx, &v->comp[role],
          !k           ? PLY__WHO_NONE
          : k->arbiter ? PLY__WHO_ARBITER
                       : ident_of(run, k->identity, k->worker),
          kind);
    for (int r = 0; r < 3; r++) ply__comp_free(&v->comp[r]);
    if (!v->mismatch) vjob_free(&run->v[idx]); /* nothing to report about it */
}

static void mm_add(run_t *run, size_t idx)
{
    if (run->nmm == run->capmm) {
        size_t cap = run->capmm ? run->capmm * 2 : 8;
        uint32_t *a = realloc(run->mm, cap * sizeof *a);
        if (!a) return; /* counted, not listed */
        run->mm = a;
        run->capmm = cap;
    }
    run->mm[run->nmm++] = (uint32_t)idx;
}

static void describe(char *buf, size_t len, const ply__comp_t *k)
{
    if (k->arbiter)
        snprintf(buf, len, "the rule engine says %" PRIu64, k->nodes);
    else
        snprintf(buf, len, "%s [%s] (seed %u%s) says %" PRIu64, k->worker, k->identity, k->seed,
                 k->no_hash ? ", no hash table" : "", k->nodes);
}

static void drill_start(ply_coordinator_t *c, run_t *run, size_t idx);
static void drop_stored(ply_coordinator_t *c, run_t *run, size_t idx, int role);

/*
 * Settles job @idx when its computations allow. The first two agree: done.
 * They disagree: the rule engine, when it counted one of them or the
 * tie-break, is authoritative (never outvoted: its count is used, every
 * worker that disagrees with it is caught); else a third computation by a
 * third identity decides by majority (two distinct identities against one).
 * Every computation that loses is caught: its identity is excluded from the
 * run (ply__exclude). Starts what is missing (a check after a restart, a
 * tie-break). @live: 0 while restoring (no drill-down).
 */
static void settle(ply_coordinator_t *c, run_t *run, size_t idx, int live)
{
    ply__vjob_t *v = run->v[idx];
    if (!v || run->settled[idx]) return;
    ply__comp_t *k = v->comp;
    const char *fen = run->plan->jobs[idx].fen;
    if (!ply__verify_selected(run, idx)) { /* restored: a first computation, not chosen */
        if (k[0].have) accept_job(run, idx, 0, -1);
        return;
    }
    if (!k[0].have || !k[1].have) {
        if (k[0].have) activate(c, run, idx, PLY__CHECK); /* after a restart */
        return;
    }
    if (!v->mismatch) {
        if (comp_same(run, &k[0], &k[1])) {
            accept_job(run, idx, 0, 1);
            return;
        }
        char a[192], b[192];
        describe(a, sizeof a, &k[0]);
        describe(b, sizeof b, &k[1]);
        v->mismatch = 1;
        v->dissent = -1;
        run->mismatches++;
        mm_add(run, idx);
        ply_warn("run %" PRIu64 ": job %" PRIu64 " (%s): %s, %s: %s", run->id, run->job_base + idx,
                 fen, a, b,
                 k[0].arbiter || k[1].arbiter ? "the rule engine decides"
                                              : "a third computation decides");
    }
    int ref = k[0].arbiter ? 0 : k[1].arbiter ? 1 : k[2].have && k[2].arbiter ? 2 : -1;
    if (ref < 0 && !k[2].have) {
        activate(c, run, idx, PLY__TIE);
        return;
    }
    int acc = ref, confirm = -1;
    if (ref >= 0) {
        for (int r = 0; r < 3 && confirm < 0; r++)
            if (r != ref && k[r].have && comp_same(run, &k[r], &k[ref])) confirm = r;
    } else {
        /* a majority of two distinct identities (eligibility gives the tie-break to a third) */
        acc = comp_same(run, &k[2], &k[0]) ? 0 : comp_same(run, &k[2], &k[1]) ? 1 : -1;
        if (acc >= 0 && strcmp(k[acc].identity, k[2].identity) == 0) acc = -1;
        if (acc < 0) {
            char a[192], b[192], d[192];
            describe(a, sizeof a, &k[0]);
            describe(b, sizeof b, &k[1]);
            describe(d, sizeof d, &k[2]);
            ply__run_fail(run, PLY_EMISMATCH,
                          "job %" PRIu64 " (%s, %u plies) quarantined: three computations "
                          "disagree, and the rule engine cannot afford the job: %s; %s; %s",
                          run->job_base + idx, fen, run->plan->job_depth, a, b, d);
            return;
        }
        confirm = 2;
    }
    /* the losers: caught wrong, excluded once the job is settled */
    char lost[3][PLY__IDENT_LEN], lost_worker[3][PLY__ID_LEN], why[3][PLY__WHY_LEN];
    int nlost = 0;
    for (int r = 0; r < 3; r++) {
        if (!k[r].have || k[r].arbiter || comp_same(run, &k[r], &k[acc])) continue;
        if (v->dissent < 0) v->dissent = r;
        char a[192], b[192];
        describe(a, sizeof a, &k[r]);
        describe(b, sizeof b, &k[acc]);
        snprintf(lost[nlost], sizeof lost[0], "%s", k[r].identity);
        snprintf(lost_worker[nlost], sizeof lost_worker[0], "%s", k[r].worker);
        snprintf(why[nlost], sizeof why[0], "job %" PRIu64 " (%s, %u plies): %s, but %s%s",
                 run->job_base + idx, fen, run->plan->job_depth, a, b,
                 ref >= 0 ? "" : ", confirmed by another identity");
        nlost++;
    }
    v->accepted = acc;
    run->resolved++;
    if (live && v->dissent >= 0)
        drill_start(c, run, idx);
    else if (!v->drill_text)
        v->drill_text = strdup(live ? "not done: no worker lost"
                                    : "not done: settled while the coordinator restarted");
    accept_job(run, idx, acc, confirm);
    for (int i = 0; i < nlost; i++) ply__exclude(c, run, lost[i], lost_worker[i], why[i]);
}

void ply__take(ply_coordinator_t *c, run_t *run, size_t t, ply__comp_t *comp, int live)
{
    size_t idx = job_of(run, t);
    int role = (int)role_of(run, t);
    run->jobs[t].state = JOB_DONE;
    run->jobs[t].worker = NULL;
    if (run->settled[idx] || role > PLY__TIE) {
        ply__comp_free(comp);
        return;
    }
    if (role > PLY__FIRST && run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE &&
        !run->select[idx]) {
        /* restored: a check chosen before the restart (the choice is not stored) */
        run->select[idx] = 1;
        run->selected++;
    }
    /* restoring, a verified run keeps every computation until ply__settle_all: a job's check
     * is read back after its first computation */
    if (run->slots == 1 || (live && !ply__verify_selected(run, idx))) {
        apply(run, idx, comp, PLY__WHO_NONE, PLY__CONF_NONE);
        ply__comp_free(comp);
        return;
    }
    if (!run->v[idx] && !(run->v[idx] = calloc(1, sizeof *run->v[idx]))) {
        ply__comp_free(comp);
        ply__run_fail(run, PLY_ENOMEM, "out of memory keeping a computation");
        return;
    }
    ply__vjob_t *v = run->v[idx];
    if (live && role == PLY__TIE && !v->mismatch) {
        /* the tie-break of a mismatch an exclusion made void: not needed (asked again if the
         * job's new computation disagrees too) */
        ply__comp_free(comp);
        run->jobs[t].state = JOB_UNUSED;
        drop_stored(c, run, idx, PLY__TIE);
        return;
    }
    if (v->comp[role].have) { /* a second result for one role: keep the first */
        ply__comp_free(comp);
        return;
    }
    v->comp[role] = *comp;
    memset(comp, 0, sizeof *comp);
    if (live) settle(c, run, idx, 1);
}

void ply__settle_all(ply_coordinator_t *c, run_t *run)
{
    if (run->slots == 1) return;
    for (size_t i = 0; i < run->plan->njobs && run->state == RUN_ACTIVE; i++) settle(c, run, i, 0);
}

/* ------------------------------------------------------------- exclusion */

static void mm_remove(run_t *run, size_t idx)
{
    for (size_t i = 0; i < run->nmm; i++)
        if (run->mm[i] == idx) {
            memmove(run->mm + i, run->mm + i + 1, (run->nmm - i - 1) * sizeof *run->mm);
            run->nmm--;
            return;
        }
}

/* Deletes the stored computation @role of job @idx (it is computed again). */
static void drop_stored(ply_coordinator_t *c, run_t *run, size_t idx, int role)
{
    char why[PLY__WHY_LEN] = "";
    if (!c->store) return;
    if (!c->batch_open) {
        if (ply_store_begin(c->store) < 0) {
            ply__run_fail(run, PLY_EDB, "cannot write to %s", ply_store_path(c->store));
            return;
        }
        c->batch_open = 1;
    }
    if (ply_store_drop_result(c->store, run->id, (uint32_t)idx, (uint32_t)role, why, sizeof why) <
        0)
        ply__run_fail(run, PLY_EDB, "%s", why);
}

/* Puts computation @role of job @idx back in the queue (its last attempt's result is void). */
static void recompute(ply_coordinator_t *c, run_t *run, size_t idx, int role)
{
    size_t t = task_of(run, idx, role);
    drop_stored(c, run, idx, role);
    if (run->jobs[t].state == JOB_DONE) queue_task(run, t);
}

/*
 * Job @idx is computed again from the start: every computation of it is
 * dropped (from the state file too), its mismatch record and drill-down
 * with it, and its first computation re-queued (the check follows it as for
 * any job). Tasks still out (a check on another worker) stay out: their
 * results count as for any computation.
 */
static void reopen(ply_coordinator_t *c, run_t *run, size_t idx)
{
    ply__vjob_t *v = run->v ? run->v[idx] : NULL;
    if (v && v->drill && !v->drill->done) {
        size_t t = task_of(run, idx, PLY__DRILL);
        if (run->jobs[t].state == JOB_PENDING) run->jobs[t].state = JOB_DONE;
        if (run->drills_pending) run->drills_pending--;
    }
    for (int r = PLY__CHECK; r <= PLY__TIE && r < (int)run->slots; r++) {
        size_t t = task_of(run, idx, r);
        if (run->jobs[t].state != JOB_DONE) continue;
        drop_stored(c, run, idx, r);
        run->jobs[t].state = JOB_UNUSED;
    }
    if (v) {
        if (v->mismatch) { /* settled on a majority the excluded identity was part of */
            run->mismatches--;
            run->resolved--;
        }
        mm_remove(run, idx);
        vjob_free(&run->v[idx]);
    }
    recompute(c, run, idx, PLY__FIRST);
}

void ply__exclude(ply_coordinator_t *c, run_t *run, const char *identity, const char *worker,
                  const char *why)
{
    if (!identity[0] || strcmp(identity, ARBITER_ID) == 0) return; /* the authority */
    unsigned i = ident_of(run, identity, worker);
    if (i == PLY__WHO_NONE) {
        ply__run_fail(run, PLY_ENOMEM, "out of memory excluding %s (%s): %s", worker, identity,
                      why);
        return;
    }
    ply__ident_t *id = &run->idents[i];
    if (id->excluded) return;
    id->excluded = 1;
    id->why = strdup(why);
    run->nexcluded++;
    ply_warn("run %" PRIu64 ": worker %s (%s) excluded from the run: %s", run->id, worker, identity,
             why);
    ply__withdraw(c, run, identity);
    size_t njobs = run->plan->njobs, again = 0;
    /* first every settled job resting on it leaves the sums: until then the run cannot end */
    for (size_t j = 0; j < njobs; j++) {
        const ply__acc_t *a = &run->acc[j];
        if (!run->settled[j] || a->who == PLY__WHO_ARBITER || a->who2 == PLY__WHO_ARBITER)
            continue; /* the rule engine's count or confirmation: right */
        if (a->who != i && a->who2 != i) continue;
        unapply(run, j);
        run->recomputed++;
        again++;
        reopen(c, run, j);
    }
    for (size_t j = 0; j < njobs && run->state == RUN_ACTIVE; j++) {
        if (run->settled[j]) continue;
        ply__vjob_t *v = run->v ? run->v[j] : NULL;
        if (!v) continue;
        int mine = 0;
        for (int r = 0; r < 3; r++)
            mine |= v->comp[r].have && !strcmp(v->comp[r].identity, identity);
        if (!mine) continue;
        /* unsettled: its computations go, the others stay and are compared afresh */
        for (int r = 0; r < 3; r++) {
            if (!v->comp[r].have || strcmp(v->comp[r].identity, identity) != 0) continue;
            ply__comp_free(&v->comp[r]);
            memset(&v->comp[r], 0, sizeof v->comp[r]);
            if (r == PLY__TIE) { /* a tie-break still needed is asked again by settle() */
                drop_stored(c, run, j, r);
                run->jobs[task_of(run, j, r)].state = JOB_UNUSED;
            } else {
                recompute(c, run, j, r);
            }
        }
        if (v->mismatch) { /* void: one side of it is gone (the exclusion says why) */
            v->mismatch = 0;
            v->dissent = -1;
            run->mismatches--;
            mm_remove(run, j);
            /* and so is its tie-break: asked again if the new computation disagrees too */
            size_t tt = task_of(run, j, PLY__TIE);
            if (v->comp[PLY__TIE].have) {
                ply__comp_free(&v->comp[PLY__TIE]);
                memset(&v->comp[PLY__TIE], 0, sizeof v->comp[PLY__TIE]);
                drop_stored(c, run, j, PLY__TIE);
            }
            if (run->jobs[tt].state == JOB_PENDING || run->jobs[tt].state == JOB_DONE)
                run->jobs[tt].state = JOB_UNUSED; /* one in flight comes back and is dropped */
        }
        settle(c, run, j, 1);
    }
    if (again)
        ply_info("run %" PRIu64 ": %zu settled job(s) counted by %s are computed again", run->id,
                 again, worker);
}

/* -------------------------------------------------------------- drill-down */

/*
 * Starts the drill-down of a settled mismatch: the rule engine's divide of
 * the job position against a divide job on the worker whose count lost (or,
 * when the rule engine lost, on the first worker).
 */
static void drill_start(ply_coordinator_t *c, run_t *run, size_t idx)
{
    ply__vjob_t *v = run->v[idx];
    const ply__comp_t *d = &v->comp[v->dissent];
    /* the rule engine outvoted (a sample's check): drill into the first worker's count */
    const ply__comp_t *target = d->arbiter ? &v->comp[0] : d;
    char text[200];
    text[0] = '\0';
    if (!c->cfg.arbiter_budget)
        snprintf(text, sizeof text, "not done: the rule engine is off for checks");
    else if (target->arbiter || !ply__worker_by_id(c, target->worker))
        snprintf(text, sizeof text, "not done: worker %s has left", target->worker);
    else if (!(v->drill = calloc(1, sizeof *v->drill)))
        snprintf(text, sizeof text, "not done: out of memory");
    if (text[0]) {
        v->drill_text = strdup(text);
        return;
    }
    snprintf(v->drill->worker, sizeof v->drill->worker, "%s", target->worker);
    snprintf(v->drill->identity, sizeof v->drill->identity, "%s", target->identity);
    size_t t = task_of(run, idx, PLY__DRILL);
    if (arbiter_start(c, run, t, 1) < 0) {
        free(v->drill);
        v->drill = NULL;
        v->drill_text = strdup("not done: cannot start the rule engine's divide");
        return;
    }
    queue_task(run, t);
    run->drills_pending++;
}

/* Writes the conclusion of a drill-down whose two divides are in. */
static void drill_conclude(const run_t *run, size_t idx, ply__drill_t *d, char *out, size_t len)
{
    const char *fen = run->plan->jobs[idx].fen;
    for (int i = 0; i < d->nref; i++) {
        int k = -1;
        for (int m = 0; m < d->nwork; m++)
            if (strcmp(d->work_uci[m], d->ref_uci[i]) == 0) k = m;
        if (k < 0) {
            snprintf(out, len,
                     "in %s, move %s is missing from %s's divide (the rule engine counts %" PRIu64
                     " below it)",
                     fen, d->ref_uci[i], d->worker, d->ref_nodes[i]);
            return;
        }
        if (d->work_nodes[k] != d->ref_nodes[i]) {
            snprintf(out, len,
                     "first differing move in %s: %s, %s counts %" PRIu64
                     ", the rule engine %" PRIu64,
                     fen, d->ref_uci[i], d->worker, d->work_nodes[k], d->ref_nodes[i]);
            return;
        }
    }
    for (int m = 0; m < d->nwork; m++) {
        int known = 0;
        for (int i = 0; i < d->nref; i++) known |= strcmp(d->work_uci[m], d->ref_uci[i]) == 0;
        if (!known) {
            snprintf(out, len, "in %s, %s's divide lists %s, which is not a legal move", fen,
                     d->worker, d->work_uci[m]);
            return;
        }
    }
    uint64_t total = 0;
    for (int i = 0; i < d->nref; i++) total += d->ref_nodes[i];
    snprintf(out, len,
             "%s's divide of %s agrees with the rule engine on all %d moves (%" PRIu64
             " nodes): the fault did not reproduce",
             d->worker, fen, d->nref, total);
}

static void drill_try_finish(ply_coordinator_t *c, run_t *run, size_t idx)
{
    (void)c;
    ply__vjob_t *v = run->v ? run->v[idx] : NULL;
    ply__drill_t *d = v ? v->drill : NULL;
    if (!d || d->done || !d->have_ref || !d->have_work) return;
    if (!v->drill_text) {
        char text[PLY__WHY_LEN];
        drill_conclude(run, idx, d, text, sizeof text);
        v->drill_text = strdup(text);
    }
    d->done = 1;
    size_t t = task_of(run, idx, PLY__DRILL);
    if (run->jobs[t].state == JOB_PENDING) run->jobs[t].state = JOB_DONE; /* leaves the queue */
    if (run->drills_pending) run->drills_pending--;
    ply_info("run %" PRIu64 ": job %" PRIu64 " drill-down: %s", run->id, run->job_base + idx,
             v->drill_text);
    maybe_done(run);
}

void ply__drill_result(ply_coordinator_t *c, run_t *run, size_t t, const Ply__Result *r)
{
    size_t idx = job_of(run, t);
    ply__vjob_t *v = run->v ? run->v[idx] : NULL;
    ply__drill_t *d = v ? v->drill : NULL;
    if (!d || d->done) return;
    d->nwork = 0;
    for (size_t i = 0; i < r->n_divide && i < PLY_ARB_MAX_MOVES; i++) {
        snprintf(d->work_uci[d->nwork], sizeof d->work_uci[0], "%s", r->divide[i]->move);
        d->work_nodes[d->nwork++] = r->divide[i]->nodes;
    }
    d->have_work = 1;
    drill_try_finish(c, run, idx);
}

void ply__drill_give_up(ply_coordinator_t *c, run_t *run, size_t t, const char *why)
{
    size_t idx = job_of(run, t);
    ply__vjob_t *v = run->v ? run->v[idx] : NULL;
    run->jobs[t].state = JOB_DONE;
    if (!v || !v->drill || v->drill->done) return;
    char text[PLY__WHY_LEN];
    snprintf(text, sizeof text, "not done: %s", why);
    free(v->drill_text);
    v->drill_text = strdup(text);
    v->drill->have_ref = v->drill->have_work = 1;
    drill_try_finish(c, run, idx);
}

/* ------------------------------------------------------------ bounded waits */

/* 1 when some connected worker may take task @t. */
static int anyone_eligible(ply_coordinator_t *c, const run_t *run, size_t t)
{
    int no_hash;
    for (const peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER && ply__eligible(c, run, t, p, &no_hash)) return 1;
    return 0;
}

/* 1 when a worker that may compute for @run (not excluded from it) is connected. */
static int honest_connected(ply_coordinator_t *c, const run_t *run)
{
    for (const peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PEER_WORKER && !ply__excluded(run, p->identity)) return 1;
    return 0;
}

/* The identities excluded from @run and why, "; "-separated, into @buf. */
static void excluded_text(const run_t *run, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned i = 0; i < run->nidents; i++) {
        const ply__ident_t *id = &run->idents[i];
        if (!id->excluded) continue;
        size_t o = strlen(buf);
        snprintf(buf + o, len - o, "%s%s (%s): %s", o ? "; " : "", id->worker, id->identity,
                 id->why ? id->why : "caught wrong");
    }
}

void ply__verify_tick(ply_coordinator_t *c, uint64_t now)
{
    for (run_t *run = c->runs; run; run = run->next) {
        if (run->state != RUN_ACTIVE) continue;
        /* every connected worker caught wrong: nobody honest left to settle the jobs */
        if (run->nexcluded && c->nworkers && !honest_connected(c, run)) {
            if (!run->no_honest_ms) run->no_honest_ms = now;
            if (c->cfg.worker_wait_ms && ply_elapsed_ms(now, run->no_honest_ms) > c->cfg.worker_wait_ms) {
                char text[PLY__WHY_LEN];
                excluded_text(run, text, sizeof text);
                ply__run_fail(run, PLY_EMISMATCH,
                              "no worker that was not caught wrong came within %u ms to finish "
                              "the run; excluded: %s",
                              c->cfg.worker_wait_ms, text);
                continue;
            }
        } else {
            run->no_honest_ms = 0;
        }
        if (run->slots == 1) continue;
        for (size_t k = 0; k < run->rq_len && run->state == RUN_ACTIVE; k++) {
            size_t t = run->requeue[run->rq_head + k];
            if (t >= run->ntasks || run->jobs[t].state != JOB_PENDING) continue;
            size_t role = role_of(run, t), idx = job_of(run, t);
            if (role == PLY__DRILL) {
                const ply__vjob_t *v = run->v[idx];
                if (v && v->drill && !ply__worker_by_id(c, v->drill->worker)) {
                    char why[160];
                    snprintf(why, sizeof why, "worker %s has left", v->drill->worker);
                    ply__drill_give_up(c, run, t, why);
                }
            } else if (role == PLY__TIE && c->cfg.worker_wait_ms &&
                       ply_elapsed_ms(now, run->jobs[t].queued_ms) > c->cfg.worker_wait_ms &&
                       !anyone_eligible(c, run, t)) {
                const ply__vjob_t *v = run->v[idx];
                char a[192], b[192];
                describe(a, sizeof a, &v->comp[0]);
                describe(b, sizeof b, &v->comp[1]);
                ply__run_fail(run, PLY_EMISMATCH,
                              "job %" PRIu64 " (%s, %u plies) quarantined: %s; %s; no third "
                              "worker came within %u ms to settle it, and the rule engine cannot "
                              "afford it",
                              run->job_base + idx, run->plan->jobs[idx].fen, run->plan->job_depth,
                              a, b, c->cfg.worker_wait_ms);
            }
        }
    }
}

/* ------------------------------------------------------------------ store */

int ply__comp_store(ply_coordinator_t *c, const run_t *run, size_t t, const ply__comp_t *comp,
                    char *why, size_t why_len)
{
    if (!c->store) return 0;
    /* group commit: results that arrive together share one transaction; nothing is made
     * known (answer, progress, status) before ply__batch_flush commits them */
    if (!c->batch_open) {
        if (ply_store_begin(c->store) < 0) {
            snprintf(why, why_len, "cannot write to %s", ply_store_path(c->store));
            return PLY_EDB;
        }
        c->batch_open = 1;
    }
    unsigned i = 0;
    while (i < c->batch_nruns && c->batch_runs[i] != run->id) i++;
    if (i == c->batch_nruns && i < PLY__BATCH_MAX) c->batch_runs[c->batch_nruns++] = run->id;
    ply_store_result_t r;
    memset(&r, 0, sizeof r);
    r.run_id = run->id;
    r.job = (uint32_t)job_of(run, t);
    r.role = (uint32_t)role_of(run, t);
    r.attempt = comp->attempt;
    r.nodes = comp->nodes;
    r.stats = comp->has_stats ? &comp->stats : NULL;
    r.ndivide = comp->divide ? (uint32_t)run->plan->nroot : 0;
    r.divide = comp->divide;
    r.divide_stats = comp->divide ? comp->divide_stats : NULL;
    r.worker_id = comp->worker;
    r.seed = comp->seed;
    r.arbiter = comp->arbiter;
    r.no_hash = comp->no_hash;
    r.time_us = comp->time_us;
    r.identity = comp->identity[0] ? comp->identity : NULL;
    int rc = ply_store_add_result(c->store, &r, why, why_len);
    if (rc == 0 && ++c->batch_n >= PLY__BATCH_MAX) ply__batch_flush(c);
    return rc;
}

/* ------------------------------------------------------------------ report */

struct ply__vreport {
    char mode[32];
    char summary[PLY_MAX_TEXT + 1];
    char **detail;
    size_t ndetail;
    Ply__Mismatch *mm;
    Ply__Mismatch **mmp;
    Ply__Computation *comp;
    Ply__Computation **compp;
    char **texts;     /* drill-down texts, sanitised */
    char **exclusion; /* one line per excluded identity, sanitised */
    size_t nexclusion;
};

void ply__vreport_free(ply__vreport_t **rp)
{
    ply__vreport_t *r = rp ? *rp : NULL;
    if (!r) return;
    for (size_t i = 0; i < r->ndetail; i++) {
        free(r->detail[i]);
        free(r->texts ? r->texts[i] : NULL);
    }
    for (size_t i = 0; i < r->nexclusion; i++) free(r->exclusion[i]);
    free(r->exclusion);
    free(r->detail);
    free(r->texts);
    free(r->mm);
    free(r->mmp);
    free(r->comp);
    free(r->compp);
    free(r);
    *rp = NULL;
}

/* Appends ", N what" to @buf when N > 0. */
static void part(char *buf, size_t len, uint32_t n, const char *what)
{
    if (!n) return;
    size_t o = strlen(buf);
    snprintf(buf + o, len - o, "%s%u %s", buf[o - 1] == ':' ? " " : ", ", n, what);
}

/* Distinct identities (not excluded) whose counts were used or confirmed them, in settled jobs. */
static uint32_t identities_used(const run_t *run)
{
    uint32_t n = 0;
    uint8_t *seen = run->nidents ? calloc(run->nidents, 1) : NULL;
    if (!seen) return 0;
    for (size_t j = 0; j < run->plan->njobs; j++) {
        if (!run->settled[j]) continue;
        const uint16_t w[2] = {run->acc[j].who, run->acc[j].who2};
        for (int i = 0; i < 2; i++)
            if (w[i] < run->nidents && !run->idents[w[i]].excluded && !seen[w[i]]) {
                seen[w[i]] = 1; /* a flag, never a counter: it must not wrap */
                n++;
            }
    }
    free(seen);
    return n;
}

static void summarise(const run_t *run, char *buf, size_t len)
{
    uint32_t njobs = (uint32_t)run->plan->njobs;
    if (run->verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_NONE) {
        snprintf(buf, len, "no job computed twice (verify none)");
        return;
    }
    uint32_t confirmed = run->by_worker + run->same_seed + run->same_worker + run->by_arbiter;
    snprintf(buf, len,
             "%u of %u jobs selected (%s); %u confirmed by a second computation:", run->selected,
             njobs, run->verify_text, confirmed);
    part(buf, len, run->by_worker, "by another worker with another Zobrist seed");
    part(buf, len, run->same_seed, "by another worker with the same seed");
    part(buf, len, run->same_worker,
         "by the same worker or key without its hash table (no other identity that was not "
         "excluded could take it: not a check on another worker)");
    part(buf, len, run->by_arbiter, "by the rule engine");
    if (!confirmed) snprintf(buf + strlen(buf), len - strlen(buf), " none");
    uint32_t ids = identities_used(run);
    snprintf(buf + strlen(buf), len - strlen(buf), "; counts from %u distinct identit%s", ids,
             ids == 1 ? "y (one key or connection: no check by another)" : "ies");
    if (run->mismatches)
        snprintf(buf + strlen(buf), len - strlen(buf),
                 "; %u mismatch%s, %u settled by the rule engine or a majority of distinct "
                 "identities",
                 run->mismatches, run->mismatches == 1 ? "" : "es", run->resolved);
    if (run->nexcluded)
        snprintf(buf + strlen(buf), len - strlen(buf),
                 "; %u worker%s caught wrong and excluded, %u job%s recomputed", run->nexcluded,
                 run->nexcluded == 1 ? "" : "s", run->recomputed, run->recomputed == 1 ? "" : "s");
}

static void fill_comp(Ply__Computation *pc, const ply__comp_t *k)
{
    *pc = (Ply__Computation)PLY__COMPUTATION__INIT;
    pc->worker_id = (char *)k->worker;
    pc->has_zobrist_seed = 1, pc->zobrist_seed = k->seed;
    pc->has_nodes = 1, pc->nodes = k->nodes;
    pc->has_attempt = 1, pc->attempt = k->attempt;
    pc->has_arbiter = 1, pc->arbiter = k->arbiter != 0;
    pc->has_no_hash = 1, pc->no_hash = k->no_hash != 0;
    pc->identity = (char *)k->identity;
}

ply__vreport_t *ply__verification(const run_t *run, Ply__Verification *v)
{
    ply__vreport_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    size_t n = run->nmm < PLY_MAX_MISMATCHES ? run->nmm : PLY_MAX_MISMATCHES;
    r->detail = calloc(n + 1, sizeof *r->detail);
    r->texts = calloc(n + 1, sizeof *r->texts);
    r->mm = calloc(n + 1, sizeof *r->mm);
    r->mmp = calloc(n + 1, sizeof *r->mmp);
    r->comp = calloc(3 * n + 1, sizeof *r->comp);
    r->compp = calloc(3 * n + 1, sizeof *r->compp);
    if (!r->detail || !r->texts || !r->mm || !r->mmp || !r->comp || !r->compp) {
        ply__vreport_free(&r);
        return NULL;
    }
    snprintf(r->mode, sizeof r->mode, "%s", run->verify_text[0] ? run->verify_text : "none");
    if (run->nexcluded && !(r->exclusion = calloc(run->nexcluded, sizeof *r->exclusion))) {
        ply__vreport_free(&r);
        return NULL;
    }
    for (unsigned i = 0;
         i < run->nidents && r->nexclusion < run->nexcluded && r->nexclusion < PLY_MAX_EXCLUSIONS;
         i++) {
        const ply__ident_t *id = &run->idents[i];
        if (!id->excluded) continue;
        char line[PLY__WHY_LEN + 256], clean[PLY_MAX_TEXT + 1];
        snprintf(line, sizeof line, "%s (%s) excluded: %s", id->worker, id->identity,
                 id->why ? id->why : "caught wrong");
        ply_msg_text_sanitize(clean, sizeof clean, line);
        if (!(r->exclusion[r->nexclusion] = strdup(clean))) break;
        r->nexclusion++;
    }
    summarise(run, r->summary, sizeof r->summary);
    *v = (Ply__Verification)PLY__VERIFICATION__INIT;
    v->mode = r->mode;
    v->has_arbiter_plies = 1, v->arbiter_plies = run->plan->split_depth;
    v->has_perft1_checked = 1, v->perft1_checked = run->perft1_checked;
    v->has_jobs = 1, v->jobs = (uint32_t)run->plan->njobs;
    v->has_mismatches = 1, v->mismatches = run->mismatches;
    v->has_jobs_selected = 1, v->jobs_selected = run->selected;
    v->has_checked_by_worker = 1, v->checked_by_worker = run->by_worker;
    v->has_checked_same_seed = 1, v->checked_same_seed = run->same_seed;
    v->has_checked_same_worker = 1, v->checked_same_worker = run->same_worker;
    v->has_checked_by_arbiter = 1, v->checked_by_arbiter = run->by_arbiter;
    v->has_resolved = 1, v->resolved = run->resolved;
    v->summary = r->summary;
    v->has_workers = 1, v->workers = run->nused_ids;
    v->has_seeds = 1, v->seeds = run->nused_seeds;
    v->has_identities = 1, v->identities = identities_used(run);
    v->has_excluded = 1, v->excluded = run->nexcluded;
    v->has_recomputed = 1, v->recomputed = run->recomputed;
    v->n_exclusion = r->nexclusion, v->exclusion = r->exclusion;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t idx = run->mm[i];
        const ply__vjob_t *vj = run->v ? run->v[idx] : NULL;
        if (!vj) continue;
        Ply__Mismatch *x = &r->mm[r->ndetail];
        *x = (Ply__Mismatch)PLY__MISMATCH__INIT;
        x->has_job_id = 1, x->job_id = run->job_base + idx;
        x->fen = run->plan->jobs[idx].fen;
        x->has_depth = 1, x->depth = run->plan->job_depth;
        x->computation = &r->compp[nc];
        char line[3 * 160 + PLY__WHY_LEN + 256];
        snprintf(line, sizeof line, "job %" PRIu64 " (%s, %u plies):", run->job_base + idx, x->fen,
                 x->depth);
        for (int k = 0; k < 3; k++) {
            if (!vj->comp[k].have) continue;
            fill_comp(&r->comp[nc], &vj->comp[k]);
            r->compp[nc] = &r->comp[nc];
            nc++;
            x->n_computation++;
            char d[192];
            describe(d, sizeof d, &vj->comp[k]);
            size_t o = strlen(line);
            snprintf(line + o, sizeof line - o, "%s %s", k ? ";" : "", d);
        }
        x->has_resolved = 1, x->resolved = vj->settled;
        if (vj->settled) {
            x->has_accepted_nodes = 1, x->accepted_nodes = vj->comp[vj->accepted].nodes;
            size_t o = strlen(line);
            snprintf(
                line + o, sizeof line - o, "; %" PRIu64 " used, %s outvoted", x->accepted_nodes,
                vj->dissent >= 0 && !vj->comp[vj->dissent].arbiter ? vj->comp[vj->dissent].worker
                                                                   : "the rule engine");
        }
        if (vj->drill_text) {
            char text[PLY_MAX_TEXT + 1];
            ply_msg_text_sanitize(text, sizeof text, vj->drill_text);
            r->texts[r->ndetail] = strdup(text);
            x->drill_down = r->texts[r->ndetail];
            size_t o = strlen(line);
            snprintf(line + o, sizeof line - o, "; drill-down: %s", vj->drill_text);
        }
        char clean[PLY_MAX_TEXT + 1];
        ply_msg_text_sanitize(clean, sizeof clean, line);
        r->detail[r->ndetail] = strdup(clean);
        if (!r->detail[r->ndetail]) break;
        r->mmp[r->ndetail] = x;
        r->ndetail++;
    }
    v->n_detail = r->ndetail, v->detail = r->detail;
    v->n_mismatch = r->ndetail, v->mismatch = r->mmp;
    return r;
}
