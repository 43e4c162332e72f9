/*
 * Kind 1 (perft)'s module (perft/kind.c calls it).
 *
 * Comparing and settling the computations of a job (verify.c's header has
 * the rules): the run's exact sums (apply, and unapply for counts taken out
 * again), starting a check or a tie-break, settle() and ply__take, and
 * ply__exclude with the re-opening of the jobs an excluded identity counted.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perft/perft.h"
#include "batch.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* ------------------------------------------------------------- the sums */

static void note_used(ply__run_t *run, const ply__comp_t *k)
{
    if (k->arbiter) return;
    uint32_t id = ply__hash_id(k->worker);
    unsigned i = 0;
    while (i < ply__perft(run)->nused_ids && ply__perft(run)->used_ids[i] != id) i++;
    if (i == ply__perft(run)->nused_ids &&
        i < sizeof ply__perft(run)->used_ids / sizeof *ply__perft(run)->used_ids)
        ply__perft(run)->used_ids[ply__perft(run)->nused_ids++] = id;
    i = 0;
    while (i < ply__perft(run)->nused_seeds && ply__perft(run)->used_seeds[i] != k->seed) i++;
    if (i == ply__perft(run)->nused_seeds &&
        i < sizeof ply__perft(run)->used_seeds / sizeof *ply__perft(run)->used_seeds)
        ply__perft(run)->used_seeds[ply__perft(run)->nused_seeds++] = k->seed;
}

void ply__maybe_done(ply__run_t *run)
{
    if (run->state == PLY__RUN_ACTIVE && run->sched.done == ply__perft(run)->plan->njobs &&
        ply__perft(run)->drills_pending == 0)
        ply__run_done(run);
}

/* The counter of the kind of confirmation a settled job got (ply__acc_t.kind), or NULL. */
static uint32_t *confirmations(ply__run_t *run, int kind)
{
    return kind == PLY__CONF_WORKER       ? &ply__perft(run)->by_worker
           : kind == PLY__CONF_SAME_SEED  ? &ply__perft(run)->same_seed
           : kind == PLY__CONF_SAME_IDENT ? &ply__perft(run)->same_worker
           : kind == PLY__CONF_ARBITER    ? &ply__perft(run)->by_arbiter
                                          : NULL;
}

/*
 * Adds the accepted computation @k of job @idx into the run's sums, exactly
 * (128-bit: a job's count fits in 64 bits, a run's total need not). A sum
 * past 2^128 - 1, which no position reaches below depth 17 (util/u128.h),
 * fails the run rather than wrap. Notes where the counts came from: @who2,
 * the identity (run->verif.idents index, or PLY__WHO_*) of the computation that
 * confirmed them, and the kind of confirmation @kind (PLY__CONF_*).
 */
static void apply(ply__run_t *run, size_t idx, const ply__comp_t *k, unsigned who2, int kind)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    const ply_split_job_t *sj = &plan->jobs[idx];
    int over = 0;
    if (plan->split_depth == 0) {
        for (int m = 0; k->divide && m < plan->nroot; m++)
            ply__perft(run)->divide[m] = k->divide[m];
        ply__perft(run)->divide_has_stats = ply__perft(run)->want_stats && k->divide_stats;
        for (int m = 0; ply__perft(run)->divide_has_stats && m < plan->nroot; m++)
            ply_stats128_from(&ply__perft(run)->divide_stats[m], &k->divide_stats[m]);
    } else {
        for (uint32_t m = 0; m < sj->nmult; m++) {
            const ply_split_mult_t *pm = &sj->mult[m];
            over |= ply_u128_add_mul(&ply__perft(run)->divide[pm->root], pm->count, k->nodes) < 0;
            if (ply__perft(run)->want_stats)
                over |= ply_stats128_add(&ply__perft(run)->divide_stats[pm->root], &k->stats,
                                         pm->count) < 0;
        }
        ply__perft(run)->divide_has_stats = ply__perft(run)->want_stats;
    }
    over |= ply_u128_add_mul(&ply__perft(run)->nodes, sj->multiplicity, k->nodes) < 0;
    if (ply__perft(run)->want_stats)
        over |= ply_stats128_add(&ply__perft(run)->stats, &k->stats, sj->multiplicity) < 0;
    if (over)
        ply__run_fail(run, PLY_ERANGE,
                      "job %zu at %s: the run's counts pass 2^128 - 1, beyond what ply sums "
                      "exactly",
                      idx, sj->fen);
    ply__verify_settled_by(
        run, idx, k->arbiter ? PLY__WHO_ARBITER : ply__ident_of(run, k->identity, k->worker), who2,
        kind, k->nodes);
    if (confirmations(run, kind)) (*confirmations(run, kind))++;
    if (ply__perft(run)->acc_stats) ply__perft(run)->acc_stats[idx] = k->stats;
    ply__perft(run)->worker_time_us += k->time_us;
    /* saturating: hits <= probes holds for each job (perft/kind.c), so for the sums */
    ply__perft(run)->tt_probes = ply__add_sat(ply__perft(run)->tt_probes, k->tt_probes);
    ply__perft(run)->tt_hits = ply__add_sat(ply__perft(run)->tt_hits, k->tt_hits);
    if (k->live) { /* honest figures: what was counted now, apart from what tables answered */
        uint64_t tt = k->tt_nodes < k->nodes ? k->tt_nodes : k->nodes; /* a worker's word */
        ply__perft(run)->counted_nodes =
            ply__add_sat(ply__perft(run)->counted_nodes, k->nodes - tt);
        ply__perft(run)->tt_nodes = ply__add_sat(ply__perft(run)->tt_nodes, tt);
    }
    ply__perft(run)->perft1_checked++;
    ply__job_settled(run, idx);
    note_used(run, k);
    ply__maybe_done(run);
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
static void unapply(ply__run_t *run, size_t idx)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    const ply_split_job_t *sj = &plan->jobs[idx];
    const ply__acc_t *a = &run->verif.acc[idx];
    if (plan->split_depth == 0) {
        memset(ply__perft(run)->divide, 0, (size_t)plan->nroot * sizeof *ply__perft(run)->divide);
        if (ply__perft(run)->divide_stats)
            memset(ply__perft(run)->divide_stats, 0,
                   (size_t)plan->nroot * sizeof *ply__perft(run)->divide_stats);
    } else {
        for (uint32_t m = 0; m < sj->nmult; m++) {
            const ply_split_mult_t *pm = &sj->mult[m];
            ply__perft(run)->divide[pm->root] -= (ply_u128_t)pm->count * a->nodes;
            if (ply__perft(run)->want_stats)
                stats128_take_out(&ply__perft(run)->divide_stats[pm->root],
                                  &ply__perft(run)->acc_stats[idx], pm->count);
        }
    }
    ply__perft(run)->nodes -= (ply_u128_t)sj->multiplicity * a->nodes;
    if (ply__perft(run)->want_stats)
        stats128_take_out(&ply__perft(run)->stats, &ply__perft(run)->acc_stats[idx],
                          sj->multiplicity);
    if (confirmations(run, run->verif.acc[idx].kind))
        (*confirmations(run, run->verif.acc[idx].kind))--;
    ply__perft(run)->perft1_checked--;
    ply__job_unsettled(run, idx);
}

/* --------------------------------------------------------------- settling */

/*
 * Starts computation @role of job @idx if it has not started: a tie-break by
 * the rule engine (queued on its pool: it is authoritative); a sample's check
 * by the rule engine when one of its threads is idle now, else by a worker of
 * another identity and seed from the queue at once (the rule engine never
 * delays a run), else, none being connected, by the rule engine after what
 * it has (a check by the worker that counted first, or one with its keys, is
 * worth less). The rule engine hands a job beyond its budget to the
 * workers (drill.c). A check of the run's floor (floor_check) is the rule
 * engine's alone, in every verified mode.
 */
typedef struct floor_cand {
    double estimate;
    size_t idx;
} floor_cand_t;

static int by_estimate(const void *a, const void *b)
{
    const floor_cand_t *x = a, *y = b;
    return x->estimate < y->estimate ? -1 : x->estimate > y->estimate ? 1 : (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Chooses the run's floor of checks by the rule engine (verify.c's header) and queues them on
 * its pool at once, ahead of any check it takes when idle: of the selected jobs within its
 * budget (by the plan's estimate), the 1 + n / PLY__FLOOR_EVERY smallest. It counts them
 * first, while the workers count the rest, so the run rarely waits for them; their jobs
 * settle once both the first computation and the rule engine's count are in. Once per run
 * (at its first check), O(n log n). Out of memory: no floor.
 */
static void floor_start(ply_coordinator_t *c, ply__run_t *run)
{
    ply__perft_run_t *pr = ply__perft(run);
    pr->floor_chosen = 1;
    if (!c->cfg.arbiter_budget || !c->rule_pool) return;
    size_t njobs = pr->plan->njobs, n = 0;
    double budget = (double)c->cfg.arbiter_budget / (pr->want_stats ? 4 : 1);
    floor_cand_t *cand = malloc((njobs ? njobs : 1) * sizeof *cand);
    if (!cand || !(pr->floor = calloc(njobs ? njobs : 1, 1))) {
        free(cand);
        return;
    }
    /* sized by every selected job within the budget, chosen among those whose check is still
     * to come: after a restart, checks read back from the state file (a worker's or the rule
     * engine's) and settled jobs do not shrink the floor of what is left */
    size_t within = 0;
    for (size_t i = 0; i < njobs; i++) {
        double e = run->kind->job_estimate(run, i);
        if (!ply__verify_selected(run, i) || e > budget) continue;
        within++;
        size_t t = ply__task_of(run, i, PLY__CHECK);
        if (!run->sched.settled[i] && run->sched.tasks[t].state == PLY__TASK_UNUSED)
            cand[n++] = (floor_cand_t){e, i};
    }
    qsort(cand, n, sizeof *cand, by_estimate);
    size_t want = within ? 1 + within / PLY__FLOOR_EVERY : 0;
    for (size_t i = 0; i < want && i < n; i++) pr->floor[cand[i].idx] = 1;
    free(cand);
    for (size_t i = 0; i < njobs; i++) {
        size_t t = ply__task_of(run, i, PLY__CHECK);
        if (pr->floor[i] && !run->sched.settled[i] && run->sched.tasks[t].state == PLY__TASK_UNUSED)
            (void)ply__arbiter_start(c, run, t, PLY__ARB_FLOOR); /* else a worker checks it */
    }
}

/* Whether the check of selected job @idx is one of the rule engine's floor. */
static int floor_check(const ply__run_t *run, size_t idx)
{
    return ply__perft(run)->floor && ply__perft(run)->floor[idx];
}

static void activate(ply_coordinator_t *c, ply__run_t *run, size_t idx, int role)
{
    size_t t = ply__task_of(run, idx, role);
    if (!ply__perft(run)->floor_chosen) floor_start(c, run);
    if (run->sched.tasks[t].state != PLY__TASK_UNUSED) return;
    /* the floor (again, after its job was reopened): queued on the rule engine's pool even
     * when it is busy, never raced, never diverted to a worker; the job waits for its count
     * (sample and all alike) */
    if (role == PLY__CHECK && floor_check(run, idx) &&
        ply__arbiter_start(c, run, t, PLY__ARB_FLOOR) == 0)
        return;
    const ply__vjob_t *v = ply__perft(run)->v[idx];
    /* the rule engine against a worker is settled by another worker, not by itself again */
    int arbiter = (role == PLY__TIE && !(v && v->comp[1].arbiter)) ||
                  (role == PLY__CHECK && run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE &&
                   (ply__arbiter_idle(c) || !ply__perft_other_checker(c, run, idx)));
    if (arbiter && ply__arbiter_start(c, run, t, PLY__ARB_COUNT) == 0) return; /* it holds the task */
    ply__task_queue(run, t);
}

void ply__on_handout(ply_coordinator_t *c, ply__run_t *run, size_t t)
{
    size_t idx = ply__job_of(run, t);
    if (run->sched.slots > 1 && ply__role_of(run, t) == PLY__FIRST &&
        ply__verify_selected(run, idx))
        activate(c, run, idx, PLY__CHECK);
}

static int comp_same(const ply__run_t *run, const ply__comp_t *a, const ply__comp_t *b)
{
    if (a->nodes != b->nodes) return 0;
    if (a->has_stats && b->has_stats && !ply_stats_equal(&a->stats, &b->stats)) return 0;
    if (a->divide && b->divide)
        for (int i = 0; i < ply__perft(run)->plan->nroot; i++)
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
static void accept_job(ply__run_t *run, size_t idx, int role, int confirm)
{
    ply__vjob_t *v = ply__perft(run)->v[idx];
    v->settled = 1;
    v->accepted = role;
    const ply__comp_t *k = confirm >= 0 ? &v->comp[confirm] : NULL;
    int kind = k ? classify(&v->comp[role], k) : v->comp[role].arbiter ? PLY__CONF_ARBITER : 0;
    apply(run, idx, &v->comp[role],
          !k           ? PLY__WHO_NONE
          : k->arbiter ? PLY__WHO_ARBITER
                       : ply__ident_of(run, k->identity, k->worker),
          kind);
    for (int r = 0; r < 3; r++) ply__comp_free(&v->comp[r]);
    if (!v->mismatch) ply__vjob_free(&ply__perft(run)->v[idx]); /* nothing to report about it */
}

static void mm_add(ply__run_t *run, size_t idx)
{
    if (ply__perft(run)->nmm == ply__perft(run)->capmm) {
        size_t cap = ply__perft(run)->capmm ? ply__perft(run)->capmm * 2 : 8;
        uint32_t *a = realloc(ply__perft(run)->mm, cap * sizeof *a);
        if (!a) return; /* counted, not listed */
        ply__perft(run)->mm = a;
        ply__perft(run)->capmm = cap;
    }
    ply__perft(run)->mm[ply__perft(run)->nmm++] = (uint32_t)idx;
}

void ply__describe(char *buf, size_t len, const ply__comp_t *k)
{
    if (k->arbiter)
        snprintf(buf, len, "the rule engine says %" PRIu64, k->nodes);
    else
        snprintf(buf, len, "%s [%s] (seed %u%s) says %" PRIu64, k->worker, k->identity, k->seed,
                 k->no_hash ? ", no hash table" : "", k->nodes);
}

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
static void settle(ply_coordinator_t *c, ply__run_t *run, size_t idx, int live)
{
    ply__vjob_t *v = ply__perft(run)->v[idx];
    if (!v || run->sched.settled[idx]) return;
    ply__comp_t *k = v->comp;
    const char *fen = ply__perft(run)->plan->jobs[idx].fen;
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
        ply__describe(a, sizeof a, &k[0]);
        ply__describe(b, sizeof b, &k[1]);
        v->mismatch = 1;
        v->dissent = -1;
        ply__perft(run)->mismatches++;
        ply__count(run->c, PLY__CNT_VERIFY_MISMATCHES);
        mm_add(run, idx);
        ply_warn("run %" PRIu64 ": job %" PRIu64 " (%s): %s, %s: %s", run->id,
                 run->sched.job_base + idx, fen, a, b,
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
            ply__describe(a, sizeof a, &k[0]);
            ply__describe(b, sizeof b, &k[1]);
            ply__describe(d, sizeof d, &k[2]);
            ply__run_fail(run, PLY_EMISMATCH,
                          "job %" PRIu64 " (%s, %u plies) quarantined: three computations "
                          "disagree, and the rule engine cannot afford the job: %s; %s; %s",
                          run->sched.job_base + idx, fen, ply__perft(run)->plan->job_depth, a, b,
                          d);
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
        ply__describe(a, sizeof a, &k[r]);
        ply__describe(b, sizeof b, &k[acc]);
        snprintf(lost[nlost], sizeof lost[0], "%s", k[r].identity);
        snprintf(lost_worker[nlost], sizeof lost_worker[0], "%s", k[r].worker);
        snprintf(why[nlost], sizeof why[0], "job %" PRIu64 " (%s, %u plies): %s, but %s%s",
                 run->sched.job_base + idx, fen, ply__perft(run)->plan->job_depth, a, b,
                 ref >= 0 ? "" : ", confirmed by another identity");
        nlost++;
    }
    v->accepted = acc;
    ply__perft(run)->resolved++;
    if (live && v->dissent >= 0)
        ply__drill_start(c, run, idx);
    else if (!v->drill_text)
        v->drill_text = strdup(live ? "not done: no worker lost"
                                    : "not done: settled while the coordinator restarted");
    accept_job(run, idx, acc, confirm);
    for (int i = 0; i < nlost; i++) ply__perft_exclude(c, run, lost[i], lost_worker[i], why[i]);
}

void ply__take(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__comp_t *comp, int live)
{
    size_t idx = ply__job_of(run, t);
    int role = (int)ply__role_of(run, t);
    ply__task_done(run, t);
    if (run->sched.settled[idx] || role > PLY__TIE) {
        ply__comp_free(comp);
        return;
    }
    /* restored: a check chosen before the restart (the choice is not stored) */
    if (role > PLY__FIRST) ply__verify_select_late(run, idx);
    /* restoring, a verified run keeps every computation until ply__settle_all: a job's check
     * is read back after its first computation */
    if (run->sched.slots == 1 || (live && !ply__verify_selected(run, idx))) {
        apply(run, idx, comp, PLY__WHO_NONE, PLY__CONF_NONE);
        ply__comp_free(comp);
        return;
    }
    if (!ply__perft(run)->v[idx] &&
        !(ply__perft(run)->v[idx] = calloc(1, sizeof *ply__perft(run)->v[idx]))) {
        ply__comp_free(comp);
        ply__run_fail(run, PLY_ENOMEM, "out of memory keeping a computation");
        return;
    }
    ply__vjob_t *v = ply__perft(run)->v[idx];
    if (live && role == PLY__TIE && !v->mismatch) {
        /* the tie-break of a mismatch an exclusion made void: not needed (asked again if the
         * job's new computation disagrees too) */
        ply__comp_free(comp);
        ply__task_unused(run, t);
        ply__result_drop(c, run, idx, PLY__TIE);
        return;
    }
    if (v->comp[role].have) { /* a second result for one role: keep the first */
        ply__comp_free(comp);
        return;
    }
    v->comp[role] = *comp;
    memset(comp, 0, sizeof *comp);
    if (!live) return;
    /* the rule engine's late count, read before settle() frees the job's computations (v) */
    int late = v->have_late, late_has_stats = v->late_has_stats;
    uint64_t late_nodes = v->late_nodes;
    ply_stats_t late_stats = v->late_stats;
    settle(c, run, idx, 1);
    if (late && run->sched.settled[idx] && run->state == PLY__RUN_ACTIVE)
        ply__perft_audit(c, run, idx, late_nodes, late_has_stats ? &late_stats : NULL);
}

void ply__settle_all(ply_coordinator_t *c, ply__run_t *run)
{
    if (run->sched.slots == 1) return;
    for (size_t i = 0; i < ply__perft(run)->plan->njobs && run->state == PLY__RUN_ACTIVE; i++)
        settle(c, run, i, 0);
}

/* ------------------------------------------------------------- exclusion */

static void mm_remove(ply__run_t *run, size_t idx)
{
    for (size_t i = 0; i < ply__perft(run)->nmm; i++)
        if (ply__perft(run)->mm[i] == idx) {
            memmove(ply__perft(run)->mm + i, ply__perft(run)->mm + i + 1,
                    (ply__perft(run)->nmm - i - 1) * sizeof *ply__perft(run)->mm);
            ply__perft(run)->nmm--;
            return;
        }
}

/* Puts computation @role of job @idx back in the queue (its last attempt's result is void). */
static void recompute(ply_coordinator_t *c, ply__run_t *run, size_t idx, int role)
{
    size_t t = ply__task_of(run, idx, role);
    ply__result_drop(c, run, idx, role);
    if (run->sched.tasks[t].state == PLY__TASK_DONE) ply__task_queue(run, t);
}

/*
 * Job @idx is computed again from the start: every computation of it is
 * dropped (from the state file too), its mismatch record and drill-down
 * with it, and its first computation re-queued (the check follows it as for
 * any job). Tasks still out (a check on another worker) stay out: their
 * results count as for any computation.
 */
static void reopen(ply_coordinator_t *c, ply__run_t *run, size_t idx)
{
    ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
    if (v && v->drill && !v->drill->done) {
        size_t t = ply__task_of(run, idx, PLY__DRILL);
        if (run->sched.tasks[t].state == PLY__TASK_PENDING) ply__task_done(run, t);
        if (ply__perft(run)->drills_pending) ply__perft(run)->drills_pending--;
    }
    for (int r = PLY__CHECK; r <= PLY__TIE && r < (int)run->sched.slots; r++) {
        size_t t = ply__task_of(run, idx, r);
        if (run->sched.tasks[t].state != PLY__TASK_DONE) continue;
        ply__result_drop(c, run, idx, r);
        ply__task_unused(run, t);
    }
    if (v) {
        if (v->mismatch) { /* settled on a majority the excluded identity was part of */
            ply__perft(run)->mismatches--;
            ply__perft(run)->resolved--;
        }
        mm_remove(run, idx);
        ply__vjob_free(&ply__perft(run)->v[idx]);
    }
    recompute(c, run, idx, PLY__FIRST);
}

/* Unsettled job @j: what @identity computed of it goes, the others stay and are compared
 * afresh. */
static void forget(ply_coordinator_t *c, ply__run_t *run, size_t j, const char *identity)
{
    ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[j] : NULL;
    if (!v) return;
    int mine = 0;
    for (int r = 0; r < 3; r++) mine |= v->comp[r].have && !strcmp(v->comp[r].identity, identity);
    if (!mine) return;
    for (int r = 0; r < 3; r++) {
        if (!v->comp[r].have || strcmp(v->comp[r].identity, identity) != 0) continue;
        ply__comp_free(&v->comp[r]);
        memset(&v->comp[r], 0, sizeof v->comp[r]);
        if (r == PLY__TIE) { /* a tie-break still needed is asked again by settle() */
            ply__result_drop(c, run, j, r);
            ply__task_unused(run, ply__task_of(run, j, r));
        } else {
            recompute(c, run, j, r);
        }
    }
    if (v->mismatch) { /* void: one side of it is gone (the exclusion says why) */
        v->mismatch = 0;
        v->dissent = -1;
        ply__perft(run)->mismatches--;
        mm_remove(run, j);
        /* and so is its tie-break: asked again if the new computation disagrees too */
        size_t tt = ply__task_of(run, j, PLY__TIE);
        if (v->comp[PLY__TIE].have) {
            ply__comp_free(&v->comp[PLY__TIE]);
            memset(&v->comp[PLY__TIE], 0, sizeof v->comp[PLY__TIE]);
            ply__result_drop(c, run, j, PLY__TIE);
        }
        if (run->sched.tasks[tt].state == PLY__TASK_PENDING ||
            run->sched.tasks[tt].state == PLY__TASK_DONE)
            ply__task_unused(run, tt); /* one in flight comes back and is dropped */
    }
    settle(c, run, j, 1);
}

/* A settled job resting on an excluded identity: out of the sums, computed again. */
static void reopen_settled(ply_coordinator_t *c, ply__run_t *run, size_t j)
{
    unapply(run, j);
    reopen(c, run, j);
}

static const ply__reopen_ops_t reopen_ops = {reopen_settled, forget};

void ply__perft_exclude(ply_coordinator_t *c, ply__run_t *run, const char *identity,
                        const char *worker, const char *why)
{
    if (!identity[0] || strcmp(identity, PLY__ARBITER_ID) == 0) return; /* the authority */
    long again = ply__exclude(c, run, identity, worker, why, &reopen_ops);
    if (again > 0)
        ply_info("run %" PRIu64 ": %ld settled job(s) counted by %s are computed again", run->id,
                 again, worker);
}
