/*
 * Kind 1 (perft)'s module (perft/kind.c calls it).
 *
 * Verification of a run (DESIGN.md step 5): which jobs are computed twice,
 * by whom, how the computations are compared and a disagreement settled, and
 * the Verification report that says exactly what was done.
 *
 * Modes (Submit.verify):
 *   none    one computation per job; only the always-on checks (the arbiter
 *           above the split, perft(1) of every job);
 *   sample  each job with probability P, drawn from the kernel's CSPRNG at
 *           the run's start (nothing a worker sees tells which). The check is
 *           counted by the rule engine when one of its threads is idle at the
 *           time (rule_pool.h) and it can afford the job (estimated nodes <=
 *           arbiter_budget, a quarter of that with statistics); when it is
 *           busy, by a worker of another identity and seed at once; when none
 *           is connected, by the rule engine after what it has. A
 *           worker left with nothing else to do races a check the rule engine
 *           holds (another identity than the first computation's): the first
 *           answer is used, the other dropped. So the rule engine never holds
 *           up a run nor idles a worker: it checks what it can spare time for;
 *           the report says who checked what;
 *   all     every job twice, on two workers (the way record perft
 *           computations were verified).
 *
 * The floor (sample and all): the rule engine is the only checker that shares
 * no move-generation code with the workers, so whatever else it takes, every
 * verified run with a selected job within its budget gets 1 + n/64 checks by
 * it (n: those selected jobs), never raced, never given to a worker: the
 * smallest of them (settle.c, floor_start), queued on its pool at the run's
 * first check, ahead of the checks it takes when idle, their jobs settled only
 * once its count is in, so the run cannot end before them. Without it two
 * workers with the same generator bug confirmed each other: a busy rule engine
 * (nice +5) finished no check of a short run, and position 3 perft(8) was
 * answered 191 too many, every check "by another worker". Why these, and
 * queued first: the smallest jobs cost it least. Measured on rule_engine_stall
 * (2 workers, 2 cores, 2 floor checks of ~95): the first selected jobs in
 * hand-out order (the biggest) kept it busy past the run's end, an idle tail
 * of 62-64%; the smallest queued at their hand-out waited behind a check it
 * took when idle, 46-56%; the smallest queued first, 0-1.3%. One per 64 keeps
 * that cost a small, bounded share of a big run. A worker cannot tell them (the sample is secret, the rule
 * engine's counts never go out), but a key that lies only on big jobs escapes
 * the floor: against colluders the sample's rate is what the threat model
 * states.
 *
 * The trust model (README "Threat model"). A worker is its identity
 * (ply__peer_t.identity: its CURVE key, or its connection), never the id or seed
 * it declares. A check by a worker goes to the best worker available, in
 * this order: another identity with another Zobrist seed; another identity
 * with the same seed; the same identity (only when it is the only one
 * connected). Only the last counts without its hash table (Job.no_hash): a
 * check by another identity is sent exactly as a first computation. The
 * report names each kind separately (a check by the same identity is never
 * reported as a check by another) and how many distinct identities the
 * counts came from.
 *
 * The rule engine's counts run on its own threads (rule_pool.h: default
 * one, at nice +5, so that on a core a busy worker or the loop wants it
 * takes about a quarter, CFS weights 335 against 1024: at +10 it finished no
 * check in a 16 s run beside two workers on 2 cores, at +5 two in 12 s),
 * never on libuv's pool, which plans new runs. Its
 * budget per count, arbiter_budget (30M nodes: about a second at its 25-31
 * Mnodes/s on a 2-core AMD EPYC, bench_arbiter), bounds what a run waits for
 * when only the rule engine may answer: a tie-break or a drill-down, queued
 * on its pool as urgent, behind only its counts in progress and the other
 * tie-breaks and drill-downs (ahead of floor and idle checks).
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
 * The pieces: the verification service (verification.c) sizes the tasks, draws
 * the sample and the wire ids and keeps the identities, for every kind; this
 * file says which worker may take which of perft's computations, bounds
 * perft's waits (ply__perft_verify_tick), stores computations and writes the
 * report; settle.c adds accepted counts to the sums, compares and settles
 * computations and reopens what an identity caught wrong counted; drill.c runs
 * the rule engine's counts and the drill-downs.
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

/* How long a check waits for the local workers a coordinator starts before it may run on
 * the worker that counted first (they join within a second or two). */
#define SAME_WORKER_GRACE_MS 10000

/* ------------------------------------------------------------------- setup */

int ply__perft_verify_setup(ply__run_t *run)
{
    size_t njobs = run->sched.njobs;
    uint32_t slots = run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_NONE ? 1 : PLY__ROLES;
    if (slots > 1 && !(ply__perft(run)->v = calloc(njobs ? njobs : 1, sizeof *ply__perft(run)->v))) return PLY_ENOMEM;
    if (ply__perft(run)->want_stats && !(ply__perft(run)->acc_stats = calloc(njobs ? njobs : 1, sizeof *ply__perft(run)->acc_stats)))
        return PLY_ENOMEM;
    return ply__verify_tasks(run, slots);
}

void ply__comp_free(ply__comp_t *comp)
{
    free(comp->divide);
    free(comp->divide_stats);
    comp->divide = NULL;
    comp->divide_stats = NULL;
}

void ply__vjob_free(ply__vjob_t **vp)
{
    ply__vjob_t *v = *vp;
    if (!v) return;
    for (int r = 0; r < 3; r++) ply__comp_free(&v->comp[r]);
    free(v->drill);
    free(v->drill_text);
    free(v);
    *vp = NULL;
}

void ply__perft_verify_free(ply__run_t *run)
{
    for (size_t i = 0; ply__perft(run)->v && ply__perft(run)->plan && i < ply__perft(run)->plan->njobs; i++) ply__vjob_free(&ply__perft(run)->v[i]);
    free(ply__perft(run)->v);
    free(ply__perft(run)->mm);
    free(ply__perft(run)->acc_stats);
    free(ply__perft(run)->floor);
    ply__perft(run)->floor = NULL;
    ply__perft(run)->v = NULL;
    ply__perft(run)->mm = NULL;
    ply__perft(run)->acc_stats = NULL;
}

/* ------------------------------------------------------------ eligibility */

typedef struct other {
    const char *identity;
    uint32_t seed;
} other_t;

/* 3: another identity with another seed; 2: another identity, a seed in common; 1: one of them
 * (whatever worker id it declares: sessions under one key are one identity). */
static int grade(const ply__peer_t *p, const other_t *o, int n)
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
static int others_of(const ply__run_t *run, size_t idx, int role, other_t *o)
{
    int n = 0;
    const ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
    for (int r = 0; r < 3; r++) {
        if (r == role) continue;
        const ply__task_t *j = &run->sched.tasks[ply__task_of(run, idx, r)];
        if (v && v->comp[r].have && !v->comp[r].arbiter) {
            o[n].identity = v->comp[r].identity;
            o[n++].seed = v->comp[r].seed;
        } else if (j->state == PLY__TASK_INFLIGHT && j->worker) {
            o[n].identity = j->worker->identity;
            o[n++].seed = j->worker->seed;
        }
    }
    return n;
}

int ply__perft_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p,
                        int *no_hash)
{
    *no_hash = 0;
    if (p->probation) return 0;
    size_t idx = ply__job_of(run, t);
    int role = (int)ply__role_of(run, t);
    const ply__task_t *j = &run->sched.tasks[t];
    if (role == PLY__DRILL) {
        const ply__vjob_t *v = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
        return v && v->drill && strncmp(v->drill->worker, p->worker_id, PLY__ID_LEN - 1) == 0 &&
               strcmp(v->drill->identity, p->identity) == 0;
    }
    if (run->verif.nexcluded && ply__excluded(run, p->identity)) return 0; /* caught wrong in this run */
    other_t o[3];
    int n = run->sched.slots > 1 && ply__verify_selected(run, idx) ? others_of(run, idx, role, o) : 0;
    /* a check the rule engine holds goes to a worker too (the race of dispatch.c) only when
     * that worker is independent of the job's other computations: another identity AND another
     * seed, and one is under way. A check held because no such worker was connected must not
     * be confirmed by the same keys (a worker that reconnected without CURVE is another
     * identity with the same seed). */
    if (j->state == PLY__TASK_ARBITER) return n > 0 && grade(p, o, n) == 3;
    if (!n) return ply__eligible_first(c, run, t, p); /* the common case: any first computation */
    int min = role == PLY__TIE ? 2 : 1; /* a tie-break must come from a third worker */
    int g = grade(p, o, n), best = 0, best_others = 0;
    for (const ply__peer_t *w = c->peers; w; w = w->next) {
        if (w->kind != PLY__PEER_WORKER || w->probation || !run->kind->worker_fits(run, w) ||
            (run->verif.nexcluded && ply__excluded(run, w->identity)))
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

int ply__perft_other_checker(ply_coordinator_t *c, const ply__run_t *run, size_t idx)
{
    other_t o[3];
    int n = others_of(run, idx, PLY__CHECK, o);
    for (const ply__peer_t *w = c->peers; w; w = w->next)
        if (w->kind == PLY__PEER_WORKER && !w->probation && run->kind->worker_fits(run, w) &&
            !(run->verif.nexcluded && ply__excluded(run, w->identity)) && grade(w, o, n) == 3)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ bounded waits */

void ply__perft_verify_tick(ply_coordinator_t *c, ply__run_t *run, uint64_t now)
{
    if (run->sched.slots == 1) return;
    for (size_t k = 0; k < run->sched.rq_len && run->state == PLY__RUN_ACTIVE; k++) {
        size_t t = run->sched.requeue[run->sched.rq_head + k];
        if (t >= run->sched.ntasks || run->sched.tasks[t].state != PLY__TASK_PENDING) continue;
        size_t role = ply__role_of(run, t), idx = ply__job_of(run, t);
        if (role == PLY__DRILL) {
            const ply__vjob_t *v = ply__perft(run)->v[idx];
            if (v && v->drill && !ply__worker_by_id(c, v->drill->worker)) {
                char why[160];
                snprintf(why, sizeof why, "worker %s has left", v->drill->worker);
                ply__drill_give_up(c, run, t, why);
            }
        } else if (role == PLY__TIE && c->cfg.worker_wait_ms &&
                   ply_elapsed_ms(now, run->sched.tasks[t].queued_ms) > c->cfg.worker_wait_ms &&
                   !ply__anyone_eligible(c, run, t)) {
            const ply__vjob_t *v = ply__perft(run)->v[idx];
            char a[192], b[192];
            ply__describe(a, sizeof a, &v->comp[0]);
            ply__describe(b, sizeof b, &v->comp[1]);
            ply__run_fail(run, PLY_EMISMATCH,
                          "job %" PRIu64 " (%s, %u plies) quarantined: %s; %s; no third "
                          "worker came within %u ms to settle it, and the rule engine cannot "
                          "afford it",
                          run->sched.job_base + idx, ply__perft(run)->plan->jobs[idx].fen, ply__perft(run)->plan->job_depth,
                          a, b, c->cfg.worker_wait_ms);
        }
    }
}

/* ------------------------------------------------------------------ store */

int ply__comp_store(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__comp_t *comp,
                    char *why, size_t why_len)
{
    if (!c->store) return 0;
    ply_store_result_t r;
    memset(&r, 0, sizeof r);
    r.run_id = run->id;
    r.job = (uint32_t)ply__job_of(run, t);
    r.role = (uint32_t)ply__role_of(run, t);
    r.attempt = comp->attempt;
    r.nodes = comp->nodes;
    r.stats = comp->has_stats ? &comp->stats : NULL;
    r.ndivide = comp->divide ? (uint32_t)ply__perft(run)->plan->nroot : 0;
    r.divide = comp->divide;
    r.divide_stats = comp->divide ? comp->divide_stats : NULL;
    r.worker_id = comp->worker;
    r.seed = comp->seed;
    r.arbiter = comp->arbiter;
    r.no_hash = comp->no_hash;
    r.time_us = comp->time_us;
    r.identity = comp->identity[0] ? comp->identity : NULL;
    return ply__result_store(c, run, &r, why, why_len);
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

static void summarise(const ply__run_t *run, char *buf, size_t len)
{
    uint32_t njobs = (uint32_t)ply__perft(run)->plan->njobs;
    if (run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_NONE) {
        snprintf(buf, len, "no job computed twice (verify none)");
        return;
    }
    uint32_t confirmed = ply__perft(run)->by_worker + ply__perft(run)->same_seed + ply__perft(run)->same_worker + ply__perft(run)->by_arbiter;
    snprintf(buf, len,
             "%u of %u jobs selected (%s); %u confirmed by a second computation:", run->verif.selected,
             njobs, run->verif.text, confirmed);
    part(buf, len, ply__perft(run)->by_worker, "by another worker with another Zobrist seed");
    part(buf, len, ply__perft(run)->same_seed, "by another worker with the same seed");
    part(buf, len, ply__perft(run)->same_worker,
         "by the same worker or key without its hash table (no other identity that was not "
         "excluded could take it: not a check on another worker)");
    part(buf, len, ply__perft(run)->by_arbiter, "by the rule engine");
    if (!confirmed) snprintf(buf + strlen(buf), len - strlen(buf), " none");
    uint32_t ids = ply__identities_used(run);
    snprintf(buf + strlen(buf), len - strlen(buf), "; counts from %u distinct identit%s", ids,
             ids == 1 ? "y (one key or connection: no check by another)" : "ies");
    if (ply__perft(run)->mismatches)
        snprintf(buf + strlen(buf), len - strlen(buf),
                 "; %u mismatch%s, %u settled by the rule engine or a majority of distinct "
                 "identities",
                 ply__perft(run)->mismatches, ply__perft(run)->mismatches == 1 ? "" : "es", ply__perft(run)->resolved);
    if (run->verif.nexcluded)
        snprintf(buf + strlen(buf), len - strlen(buf),
                 "; %u worker%s caught wrong and excluded, %u job%s recomputed", run->verif.nexcluded,
                 run->verif.nexcluded == 1 ? "" : "s", run->verif.recomputed, run->verif.recomputed == 1 ? "" : "s");
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

ply__vreport_t *ply__verification(const ply__run_t *run, Ply__Verification *v)
{
    ply__vreport_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    size_t n = ply__perft(run)->nmm < PLY_MAX_MISMATCHES ? ply__perft(run)->nmm : PLY_MAX_MISMATCHES;
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
    snprintf(r->mode, sizeof r->mode, "%s", run->verif.text[0] ? run->verif.text : "none");
    if (run->verif.nexcluded && !(r->exclusion = calloc(run->verif.nexcluded, sizeof *r->exclusion))) {
        ply__vreport_free(&r);
        return NULL;
    }
    r->nexclusion = ply__exclusion_lines(
        run, r->exclusion, run->verif.nexcluded < PLY_MAX_EXCLUSIONS ? run->verif.nexcluded : PLY_MAX_EXCLUSIONS);
    summarise(run, r->summary, sizeof r->summary);
    *v = (Ply__Verification)PLY__VERIFICATION__INIT;
    v->mode = r->mode;
    v->has_arbiter_plies = 1, v->arbiter_plies = ply__perft(run)->plan->split_depth;
    v->has_perft1_checked = 1, v->perft1_checked = ply__perft(run)->perft1_checked;
    v->has_jobs = 1, v->jobs = (uint32_t)ply__perft(run)->plan->njobs;
    v->has_mismatches = 1, v->mismatches = ply__perft(run)->mismatches;
    v->has_jobs_selected = 1, v->jobs_selected = run->verif.selected;
    v->has_checked_by_worker = 1, v->checked_by_worker = ply__perft(run)->by_worker;
    v->has_checked_same_seed = 1, v->checked_same_seed = ply__perft(run)->same_seed;
    v->has_checked_same_worker = 1, v->checked_same_worker = ply__perft(run)->same_worker;
    v->has_checked_by_arbiter = 1, v->checked_by_arbiter = ply__perft(run)->by_arbiter;
    v->has_resolved = 1, v->resolved = ply__perft(run)->resolved;
    v->summary = r->summary;
    v->has_workers = 1, v->workers = ply__perft(run)->nused_ids;
    v->has_seeds = 1, v->seeds = ply__perft(run)->nused_seeds;
    v->has_identities = 1, v->identities = ply__identities_used(run);
    v->has_excluded = 1, v->excluded = run->verif.nexcluded;
    v->has_recomputed = 1, v->recomputed = run->verif.recomputed;
    v->n_exclusion = r->nexclusion, v->exclusion = r->exclusion;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t idx = ply__perft(run)->mm[i];
        const ply__vjob_t *vj = ply__perft(run)->v ? ply__perft(run)->v[idx] : NULL;
        if (!vj) continue;
        Ply__Mismatch *x = &r->mm[r->ndetail];
        *x = (Ply__Mismatch)PLY__MISMATCH__INIT;
        x->has_job_id = 1, x->job_id = run->sched.job_base + idx;
        x->fen = ply__perft(run)->plan->jobs[idx].fen;
        x->has_depth = 1, x->depth = ply__perft(run)->plan->job_depth;
        x->computation = &r->compp[nc];
        char line[3 * 160 + PLY__WHY_LEN + 256];
        snprintf(line, sizeof line, "job %" PRIu64 " (%s, %u plies):", run->sched.job_base + idx, x->fen,
                 x->depth);
        for (int k = 0; k < 3; k++) {
            if (!vj->comp[k].have) continue;
            fill_comp(&r->comp[nc], &vj->comp[k]);
            r->compp[nc] = &r->comp[nc];
            nc++;
            x->n_computation++;
            char d[192];
            ply__describe(d, sizeof d, &vj->comp[k]);
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
