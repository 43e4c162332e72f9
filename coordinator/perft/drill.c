/*
 * Kind 1 (perft)'s module (settle.c calls it).
 *
 * The rule engine's counts and the drill-downs of verification (verify.c's
 * header has the rules). The rule engine counts a sample's check, a
 * tie-break or a drill-down's reference divide on its own threads
 * (rule_pool.h: never the loop thread, never libuv's pool that plans new
 * runs), each count holding its task (tasks.h, ply__task_by_arbiter); its
 * results come back through the same path as a worker's (stored, then
 * taken), while the hold stands. A sample's check is a shared hold: a worker
 * left with nothing else races it and whichever answer comes first is used.
 * A drill-down compares the rule engine's divide with a divide job on the
 * worker whose count lost, to name the first move whose subtree differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perft/perft.h"
#include "rule_pool.h"
#include "verification.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* ------------------------------------------------ the rule engine's counts */

/*
 * A check of fewer estimated nodes than this is the rule engine's alone: it counts it in
 * about 40 ms (25-31 Mnodes/s, bench_arbiter), less than a worker's round trip is worth, and
 * a race would hand a colluding key the check of its partner's count for nothing. Above it
 * an idle worker may race the rule engine (dispatch.c, next_held).
 */
#define ARB_SHARE_MIN_NODES 1e6

typedef struct arb_work {
    ply__rule_work_t w; /* first: the pool's item is the count */
    ply_coordinator_t *c;
    uint64_t run_id;
    size_t t;
    uint64_t token; /* the hold on task t (not for a drill-down) */
    int drill; /* the reference divide of a drill-down */
    int floor; /* a check of the run's floor: counted whatever the estimate */
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

/* On the rule engine's pool: it counts, unless the job is beyond its budget. */
static void arb_count(ply__rule_work_t *w)
{
    arb_work_t *a = (arb_work_t *)w;
    a->estimate = ply_split_estimate(&a->pos, a->depth);
    uint64_t budget = a->stats && !a->drill ? a->budget / 4 : a->budget;
    if (a->estimate > budget && !a->floor) {
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

static void drill_try_finish(ply_coordinator_t *c, ply__run_t *run, size_t idx);

void ply__perft_audit(ply_coordinator_t *c, ply__run_t *run, size_t idx, uint64_t nodes,
                      const ply_stats_t *stats)
{
    const ply__acc_t *acc = &run->verif.acc[idx];
    int stats_differ = stats && ply__perft(run)->want_stats &&
                       !ply_stats_equal(&ply__perft(run)->acc_stats[idx], stats);
    if (acc->nodes == nodes && !stats_differ) return;
    unsigned who[2] = {acc->who, acc->who2};
    char lost[2][PLY__IDENT_LEN], worker[2][PLY__ID_LEN], why[PLY__WHY_LEN];
    int n = 0;
    for (int i = 0; i < 2; i++)
        if (who[i] < run->verif.nidents) {
            snprintf(lost[n], sizeof lost[0], "%s", run->verif.idents[who[i]].identity);
            snprintf(worker[n++], sizeof worker[0], "%s", run->verif.idents[who[i]].worker);
        }
    snprintf(why, sizeof why,
             "job %" PRIu64 " (%s, %u plies): settled on %" PRIu64 "%s, but the rule engine says %" PRIu64,
             run->sched.job_base + idx, ply__perft(run)->plan->jobs[idx].fen,
             ply__perft(run)->plan->job_depth, acc->nodes,
             stats_differ ? " with other statistics" : "", nodes);
    ply_warn("run %" PRIu64 ": %s (its count came after the worker's)", run->id, why);
    for (int i = 0; i < n && run->state == PLY__RUN_ACTIVE; i++)
        ply__perft_exclude(c, run, lost[i], worker[i], why);
}

/* Back on the loop thread: the count becomes a computation, or the job goes to a worker. */
static void arb_done(ply__rule_work_t *w, int status)
{
    arb_work_t *a = (arb_work_t *)w;
    ply_coordinator_t *c = a->c;
    ply__run_t *run = ply__run_find(c, a->run_id);
    if (status != 0 || !run || run->state != PLY__RUN_ACTIVE) {
        free(a);
        return;
    }
    size_t idx = ply__job_of(run, a->t);
    ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
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
    } else if (ply__task_held(run, a->t, a->token)) { /* else answered, or no longer wanted */
        if (a->too_big) {
            ply_debug("run %" PRIu64 ": job %zu: ~%" PRIu64 " nodes, beyond the rule engine's "
                      "budget: a worker checks it",
                      run->id, idx, a->estimate);
            ply__task_unhold(run, a->t);
        } else {
            ply__task_take_back(c, run, a->t); /* a worker racing it stops */
            ply__comp_t k;
            memset(&k, 0, sizeof k);
            k.have = 1;
            k.arbiter = 1;
            k.no_hash = 1;
            k.nodes = a->nodes;
            k.time_us = a->time_us;
            snprintf(k.worker, sizeof k.worker, PLY__ARBITER_ID);
            snprintf(k.identity, sizeof k.identity, PLY__ARBITER_ID);
            if (a->stats) k.has_stats = 1, k.stats = a->st;
            int nroot = ply__perft(run)->plan->nroot;
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
                ply__run_computed(c, run, 0); /* the rule engine's */
                k.live = 1;
                ply__take(c, run, a->t, &k, 1);
            }
        }
    } else if (!a->too_big && ply__role_of(run, a->t) == PLY__CHECK && run->sched.settled[idx]) {
        ply__perft_audit(c, run, idx, a->nodes, a->stats ? &a->st : NULL);
    } else if (!a->too_big && ply__role_of(run, a->t) == PLY__CHECK && v && !v->have_late) {
        /* a worker's answer took the check's place, and the job waits for its first count:
         * kept, to audit the job once it settles (settle.c) */
        v->have_late = 1, v->late_nodes = a->nodes;
        if (a->stats) v->late_has_stats = 1, v->late_stats = a->st;
    }
    free(a);
    ply__pump(c);
}

/*
 * Queues the rule engine's count of task @t (or, @drill, its reference divide) on its pool;
 * a count (not a drill-down's divide) holds the task, shared when it is a check. 0 or < 0
 * (nothing started: the rule engine is off, or out of memory).
 */
int ply__arbiter_start(ply_coordinator_t *c, ply__run_t *run, size_t t, int how)
{
    int drill = how == PLY__ARB_DRILL;
    if (!c->cfg.arbiter_budget || !c->rule_pool) return PLY_ERANGE;
    const ply_split_t *plan = ply__perft(run)->plan;
    arb_work_t *a = calloc(1, sizeof *a);
    if (!a) return PLY_ENOMEM;
    char why[128];
    if (ply_arb_from_fen(&a->pos, plan->jobs[ply__job_of(run, t)].fen,
                         ply__perft(run)->chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why) < 0) {
        free(a);
        return PLY_EFEN;
    }
    a->c = c;
    a->run_id = run->id;
    a->t = t;
    a->drill = drill;
    a->floor = how == PLY__ARB_FLOOR;
    a->depth = plan->job_depth;
    a->stats = ply__perft(run)->want_stats;
    a->divide = plan->split_depth == 0;
    a->budget = c->cfg.arbiter_budget;
    a->w.count = arb_count;
    a->w.done = arb_done;
    int shared = how == PLY__ARB_COUNT && ply__role_of(run, t) == PLY__CHECK &&
                 run->kind->job_estimate(run, ply__job_of(run, t)) >= ARB_SHARE_MIN_NODES;
    if (!drill && !(a->token = ply__task_by_arbiter(run, t, shared))) {
        free(a);
        return PLY_ENOMEM;
    }
    /* a tie-break or a drill-down: the run cannot go on without it, so ahead of checks */
    int urgent = drill || ply__role_of(run, t) == PLY__TIE;
    if (ply__rule_pool_submit(c->rule_pool, &a->w, urgent) != 0) {
        if (!drill) ply__task_unused(run, t); /* as it was: the caller queues it */
        free(a);
        return PLY_ESTATE;
    }
    return 0;
}

int ply__arbiter_idle(const ply_coordinator_t *c)
{
    return c->cfg.arbiter_budget && ply__rule_pool_idle(c->rule_pool) > 0;
}

/* -------------------------------------------------------------- drill-down */

/*
 * Starts the drill-down of a settled mismatch: the rule engine's divide of
 * the job position against a divide job on the worker whose count lost (or,
 * when the rule engine lost, on the first worker).
 */
void ply__drill_start(ply_coordinator_t *c, ply__run_t *run, size_t idx)
{
    ply__vjob_t *v = ply__perft(run)->v[idx];
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
    size_t t = ply__task_of(run, idx, PLY__DRILL);
    if (ply__arbiter_start(c, run, t, PLY__ARB_DRILL) < 0) {
        free(v->drill);
        v->drill = NULL;
        v->drill_text = strdup("not done: cannot start the rule engine's divide");
        return;
    }
    ply__task_queue(run, t);
    ply__perft(run)->drills_pending++;
}

/* Writes the conclusion of a drill-down whose two divides are in. */
static void drill_conclude(const ply__run_t *run, size_t idx, ply__drill_t *d, char *out,
                           size_t len)
{
    const char *fen = ply__perft(run)->plan->jobs[idx].fen;
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

static void drill_try_finish(ply_coordinator_t *c, ply__run_t *run, size_t idx)
{
    (void)c;
    ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
    ply__drill_t *d = v ? v->drill : NULL;
    if (!d || d->done || !d->have_ref || !d->have_work) return;
    if (!v->drill_text) {
        char text[PLY__WHY_LEN];
        drill_conclude(run, idx, d, text, sizeof text);
        v->drill_text = strdup(text);
    }
    d->done = 1;
    size_t t = ply__task_of(run, idx, PLY__DRILL);
    if (run->sched.tasks[t].state == PLY__TASK_PENDING)
        ply__task_done(run, t); /* leaves the queue */
    if (ply__perft(run)->drills_pending) ply__perft(run)->drills_pending--;
    ply_info("run %" PRIu64 ": job %" PRIu64 " drill-down: %s", run->id, run->sched.job_base + idx,
             v->drill_text);
    ply__maybe_done(run);
}

void ply__drill_result(ply_coordinator_t *c, ply__run_t *run, size_t t, const Ply__Result *r)
{
    size_t idx = ply__job_of(run, t);
    ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
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

void ply__drill_give_up(ply_coordinator_t *c, ply__run_t *run, size_t t, const char *why)
{
    size_t idx = ply__job_of(run, t);
    ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
    ply__task_done(run, t);
    if (!v || !v->drill || v->drill->done) return;
    char text[PLY__WHY_LEN];
    snprintf(text, sizeof text, "not done: %s", why);
    free(v->drill_text);
    v->drill_text = strdup(text);
    v->drill->have_ref = v->drill->have_work = 1;
    drill_try_finish(c, run, idx);
}
