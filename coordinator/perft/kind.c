/*
 * Kind 1, perft, behind the job-kind seam (kind.h): a run is perft(depth) of
 * a position, split into jobs by split.c on the thread pool; a job is the
 * count of one position of the split (with its statistics, or its divide at
 * split 0); a result is checked against the rule engine's plan (perft(1),
 * statistics, divide), stored, and settled into the run's exact sums by
 * verify.c, settle.c and drill.c, perft's modules; the answer is the
 * RunResult with the total, the divide and the Verification report.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perft/perft.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* ------------------------------------------------------------- the request */

static void *perft_state_new(void)
{
    return calloc(1, sizeof(ply__perft_run_t));
}

/*
 * Makes @run a perft run of the encoded PerftRequest @request (@len bytes: a Submit's, or the
 * state file's): the position validated by the rule engine and normalised into fen, root,
 * depth, chess960 (asked, or implied by the castling rights), want_stats, want_split (-1:
 * automatic), and request its normalised encoding (what RunAsked.perft says and the state
 * file stores; divide is not part of it). 0; PLY_EFEN or PLY_EILLEGAL (a bad position: the
 * reason in @why, @why_len bytes), PLY_EPROTO (@request does not decode, or a depth or split
 * out of range) or PLY_ENOMEM.
 */
static int prepare(ply__run_t *run, const uint8_t *request, size_t len, char *why, size_t why_len)
{
    ply__perft_run_t *pf = ply__perft(run);
    Ply__PerftRequest *q = ply__perft_request__unpack(NULL, len, request);
    if (!q || !q->fen || !q->has_depth || q->depth < 1 || q->depth > PLY_MAX_DEPTH ||
        (q->has_split_depth && (q->split_depth < -1 || q->split_depth >= (int64_t)q->depth))) {
        if (q) ply__perft_request__free_unpacked(q, NULL);
        return ply_why(why, why_len, PLY_EPROTO,
                       "the perft request (%zu bytes) does not decode, or is out of range", len);
    }
    ply_arb_pos_t root;
    char reason[PLY__WHY_LEN];
    int r =
        ply_arb_from_fen(&root, q->fen, q->chess960 ? PLY_ARB_CHESS960 : 0, reason, sizeof reason);
    if (r < 0) {
        ply_why(why, why_len, r, "bad position \"%s\": %s", q->fen, reason);
        ply__perft_request__free_unpacked(q, NULL);
        return r;
    }
    pf->root = root;
    pf->depth = q->depth;
    pf->want_split = q->has_split_depth ? q->split_depth : -1;
    pf->want_stats = q->stats;
    pf->chess960 = q->chess960 || root.chess960;
    if (ply_arb_to_fen(&root, pf->fen, sizeof pf->fen) < 0)
        snprintf(pf->fen, sizeof pf->fen, "%s", q->fen);
    ply__perft_request__free_unpacked(q, NULL);
    /* what the run computes, as RunAsked.perft says it: normalised, every field present,
     * without divide (the client's printing), so that the same request encodes alike */
    Ply__PerftRequest n = PLY__PERFT_REQUEST__INIT;
    n.fen = pf->fen;
    n.has_depth = 1, n.depth = pf->depth;
    n.has_chess960 = 1, n.chess960 = pf->chess960 != 0;
    n.has_stats = 1, n.stats = pf->want_stats != 0;
    n.has_split_depth = 1, n.split_depth = pf->want_split < 0 ? -1 : pf->want_split;
    size_t n_len = ply__perft_request__get_packed_size(&n);
    free(pf->request);
    pf->request = malloc(n_len);
    if (!pf->request) return PLY_ENOMEM;
    pf->request_len = ply__perft_request__pack(&n, pf->request);
    return 0;
}

/* The inputs of @run's plan: the automatic split fits the cluster connected now (split.h). */
static void plan_inputs(ply_coordinator_t *c, ply__run_t *run)
{
    ply__perft_run_t *pf = ply__perft(run);
    for (const ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER && !p->probation && run->kind->worker_fits(run, p))
            pf->plan_threads += p->threads;
    if (!pf->plan_threads && c->cfg.spawn_workers) { /* its local workers, starting */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned each = c->cfg.worker_threads ? c->cfg.worker_threads
                        : cores > 0           ? (unsigned)cores
                                              : 1;
        pf->plan_threads = c->cfg.spawn_workers * each;
    }
    if (!pf->plan_threads) pf->plan_threads = c->cfg.local_threads; /* joining now */
    pf->plan_min_nodes = c->cfg.min_job_nodes;
}

/* What a perft Submit asks, validated by the rule engine, into @run; the automatic split fits
 * the cluster connected now (split.h). 0 or the error (@why). */
static int perft_submit(ply_coordinator_t *c, ply__run_t *run, const Ply__Submit *s, char *why,
                        size_t why_len)
{
    size_t len = ply__perft_request__get_packed_size(s->perft); /* the envelope checked it */
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return PLY_ENOMEM;
    ply__perft_request__pack(s->perft, buf);
    int r = prepare(run, buf, len, why, why_len);
    free(buf);
    if (r < 0) return r;
    plan_inputs(c, run);
    return 0;
}

/* A stored perft run: its request, and the plan it was stored with; or, stored unplanned, its
 * request alone, to be planned as a submitted run is. */
static int perft_restore(ply_coordinator_t *c, ply__run_t *run, const ply_store_run_t *sr,
                         ply_split_t **plan, char *why, size_t why_len)
{
    if (!*plan && sr->planned) /* the store keeps every planned perft run's plan */
        return ply_why(why, why_len, PLY_EDB,
                       "state file %s: run %" PRIu64 " is of job kind %d without a plan, which "
                       "this coordinator cannot run",
                       c->state_path, sr->id, sr->kind);
    ply__perft_run_t *pf = ply__perft(run);
    char reason[PLY__WHY_LEN] = "";
    int r = prepare(run, sr->request, sr->request_len, reason, sizeof reason);
    if (r == PLY_ENOMEM) return r;
    if (r < 0)
        return ply_why(why, why_len, PLY_EDB, "state file %s: run %" PRIu64 ": %s", c->state_path,
                       sr->id, reason);
    if (!sr->planned) {
        plan_inputs(c, run);
        return 0;
    }
    pf->plan = *plan;
    *plan = NULL;
    ply__tasks_plan(run, pf->plan->njobs);
    pf->root = pf->plan->root;
    return 0;
}

static int perft_same_request(const ply__run_t *a, const ply__run_t *b)
{
    const ply__perft_run_t *x = ply__perft(a), *y = ply__perft(b);
    return x->request_len == y->request_len && memcmp(x->request, y->request, x->request_len) == 0;
}

static void perft_store_run(const ply__run_t *run, ply_store_run_t *sr, const ply_split_t **plan)
{
    const ply__perft_run_t *pf = ply__perft(run);
    snprintf(sr->fen, sizeof sr->fen, "%s", pf->fen);
    sr->depth = pf->depth;
    sr->request = pf->request, sr->request_len = pf->request_len;
    *plan = pf->plan;
}

/* ------------------------------------------------------------- planning */

static void perft_plan(ply__run_t *run)
{
    ply__perft(run)->split_rc = ply_split_plan_fit(
        &ply__perft(run)->root, ply__perft(run)->depth, ply__perft(run)->want_split,
        ply__perft(run)->plan_threads, ply__perft(run)->plan_min_nodes, &run->cancel,
        &ply__perft(run)->split_out, ply__perft(run)->split_why, sizeof ply__perft(run)->split_why);
}

static int perft_planned(ply__run_t *run, char *why, size_t why_len)
{
    ply__perft(run)->plan =
        ply__perft(run)->split_out; /* the split thread is done with it (see perft/perft.h) */
    ply__perft(run)->split_out = NULL;
    ply__tasks_plan(run, ply__perft(run)->plan ? ply__perft(run)->plan->njobs : 0);
    if (ply__perft(run)->split_rc >= 0) return 0;
    snprintf(why, why_len, "cannot split perft(%u) of %s: %s", ply__perft(run)->depth,
             ply__perft(run)->fen, ply__perft(run)->split_why);
    return ply__perft(run)->split_rc;
}

static int perft_setup(ply__run_t *run)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    ply__perft(run)->divide = calloc((size_t)plan->nroot + 1, sizeof *ply__perft(run)->divide);
    ply__perft(run)->divide_stats =
        calloc((size_t)plan->nroot + 1, sizeof *ply__perft(run)->divide_stats);
    if (!ply__perft(run)->divide || !ply__perft(run)->divide_stats) return PLY_ENOMEM;
    return ply__perft_verify_setup(run);
}

static void perft_free_run(ply__run_t *run)
{
    ply__perft_run_t *pf = ply__perft(run);
    ply__perft_verify_free(run);
    ply_split_destroy(&pf->plan);
    free(pf->divide);
    free(pf->divide_stats);
    free(pf->request);
    free(pf);
}

/* A drill-down that lost its worker is not retried: its report says why. */
static int perft_retry(ply_coordinator_t *c, ply__run_t *run, size_t t, const char *reason)
{
    if (ply__role_of(run, t) != PLY__DRILL) return 1;
    ply__drill_give_up(c, run, t, reason);
    return 0;
}

/* ------------------------------------------------------------ hand-out */

/* A perft job goes to any worker that counts perft (every worker before job kinds did). */
static int perft_worker_fits(const ply__run_t *run, const ply__peer_t *p)
{
    (void)run;
    return (p->kinds & (1u << PLY__JOB_KIND__JOB_KIND_PERFT)) != 0;
}

/* The estimated nodes of job @k of @run's plan: its share of the plan's estimate. */
static double perft_job_estimate(ply__run_t *run, size_t k)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    if (ply__perft(run)->lease_weight <= 0) {
        for (size_t i = 0; i < plan->njobs; i++)
            ply__perft(run)->lease_weight +=
                (double)(plan->jobs[i].multiplicity ? plan->jobs[i].multiplicity : 1) *
                (double)(plan->jobs[i].cost ? plan->jobs[i].cost : 1);
    }
    double cost = (double)(plan->jobs[k].cost ? plan->jobs[k].cost : 1);
    return (double)plan->estimate * cost / ply__perft(run)->lease_weight;
}

/* The perft part of the Job being built: the event loop builds and sends one Job at a time
 * (dispatch.c), so one static serves every run. */
static Ply__PerftJob perft_job;

static void perft_fill_job(const ply__run_t *run, size_t t, int no_hash, Ply__Job *job)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    int role = (int)ply__role_of(run, t);
    Ply__PerftJob *pj = &perft_job;
    *pj = (Ply__PerftJob)PLY__PERFT_JOB__INIT;
    pj->fen = plan->jobs[ply__job_of(run, t)].fen;
    pj->has_depth = 1, pj->depth = plan->job_depth;
    pj->has_chess960 = 1, pj->chess960 = ply__perft(run)->chess960 != 0;
    /* a drill-down asks for the divide of the job alone */
    pj->has_stats = 1, pj->stats = ply__perft(run)->want_stats && role != PLY__DRILL;
    pj->has_divide = 1, pj->divide = plan->split_depth == 0 || role == PLY__DRILL;
    if (no_hash) pj->has_no_hash = 1, pj->no_hash = 1;
    job->has_kind = 1, job->kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    job->perft = pj;
}

/* ------------------------------------------------------------- results */

/*
 * s = 0: the worker's divide, checked against the arbiter's root moves, into
 * the computation's per-root-move arrays (plan order).
 */
static int take_divide(const ply__run_t *run, const Ply__Result *r, ply__comp_t *k, char *why,
                       size_t why_len)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    if ((int)r->n_divide != plan->nroot) {
        ply_why(why, why_len, 0, "divide has %zu moves, the arbiter has %d", r->n_divide,
                plan->nroot);
        return PLY_EMISMATCH;
    }
    k->divide = calloc((size_t)plan->nroot + 1, sizeof *k->divide);
    k->divide_stats = ply__perft(run)->want_stats
                          ? calloc((size_t)plan->nroot + 1, sizeof *k->divide_stats)
                          : NULL;
    if (!k->divide || (ply__perft(run)->want_stats && !k->divide_stats)) return PLY_ENOMEM;
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
        if (ply__perft(run)->want_stats && e->stats)
            ply_msg_stats_from_proto(&k->divide_stats[k_], e->stats);
        else
            have_stats = 0;
    }
    if (sum != r->nodes) {
        ply_why(why, why_len, 0, "divide sums to %" PRIu64 " but nodes = %" PRIu64, sum, r->nodes);
        return PLY_EMISMATCH;
    }
    if (ply__perft(run)->want_stats &&
        have_stats) { /* each move's statistics, and their sum the job's */
        ply_stats128_t total;
        memset(&total, 0, sizeof total);
        for (int m = 0; m < plan->nroot; m++) {
            char rule[PLY__WHY_LEN / 2];
            if (ply_stats_consistent(&k->divide_stats[m], rule, sizeof rule) < 0) {
                ply_why(why, why_len, 0, "divide move %s: statistics that cannot be: %s",
                        plan->root_uci[m], rule);
                return PLY_EMISMATCH;
            }
            (void)ply_stats128_add(&total, &k->divide_stats[m], 1); /* < 256 x 2^64: exact */
        }
        for (int i = 0; i < PLY_STATS_N; i++)
            if (total.v[i] != k->stats.v[i]) {
                ply_why(why, why_len, 0, "the divide's %s sum to other than the job's %" PRIu64,
                        ply_stats_name(i), k->stats.v[i]);
                return PLY_EMISMATCH;
            }
    }
    /* a small run in one job: the rule engine's count under each move (split.c, planned on
     * the thread pool; a plan read back from the state file counts it here) stands for the
     * perft(1) after each first move that a split would check, and more */
    if (ply_split_recount(ply__perft(run)->plan) < 0) return PLY_ENOMEM;
    for (int m = 0; plan->arb_divide && m < plan->nroot; m++)
        if (k->divide[m] != plan->arb_divide[m]) {
            ply_why(why, why_len, 0,
                    "divide move %s has %" PRIu64 " nodes, the arbiter counts %" PRIu64,
                    plan->root_uci[m], k->divide[m], plan->arb_divide[m]);
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
static void check_failed(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                         const char *why)
{
    ply_warn("run %" PRIu64 ": %s", run->id, why);
    ply__task_requeue(c, run, t, 1, why);
    if (run->state == PLY__RUN_ACTIVE) ply__perft_exclude(c, run, p->identity, p->worker_id, why);
}

/*
 * A worker's RESULT: checked (perft(1), statistics, divide), stored, then
 * counted or kept for comparison (settle.c); a drill-down's divide goes to
 * drill.c.
 */
static void perft_take_result(ply_coordinator_t *c, ply__run_t *run, size_t idx, ply__peer_t *p,
                              const Ply__Result *r)
{
    const ply__task_t *j = &run->sched.tasks[idx];
    if (ply__role_of(run, idx) == PLY__DRILL) {
        ply__task_done(run, idx);
        ply__drill_result(c, run, idx, r);
        return;
    }
    const ply_split_job_t *sj = &ply__perft(run)->plan->jobs[ply__job_of(run, idx)];
    char why[PLY__WHY_LEN];
    if (r->search) { /* never read a search's answer as a count (a job of 0 perft(1) would) */
        snprintf(why, sizeof why,
                 "%s at %s: a search result for a perft job (job %" PRIu64 ", attempt %u)", p->name,
                 sj->fen, run->sched.job_base + idx, r->attempt);
        check_failed(c, run, idx, p, why);
        return;
    }
    if (r->perft1 != sj->perft1) {
        snprintf(why, sizeof why,
                 "perft(1) mismatch at %s: %s says %u, the arbiter says %u (job %" PRIu64
                 ", attempt %u)",
                 sj->fen, p->name, r->perft1, sj->perft1, run->sched.job_base + idx, r->attempt);
        check_failed(c, run, idx, p, why);
        return;
    }
    /* a table answers some of the leaves counted, after probing for them */
    if (r->tt_hits > r->tt_probes || (r->has_tt_nodes && r->tt_nodes > r->nodes)) {
        snprintf(why, sizeof why,
                 "%s at %s: its table figures cannot be: %" PRIu64 " hits of %" PRIu64
                 " probes, %" PRIu64 " of %" PRIu64 " nodes (job %" PRIu64 ")",
                 p->name, sj->fen, r->tt_hits, r->tt_probes, r->tt_nodes, r->nodes,
                 run->sched.job_base + idx);
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
    if (ply__perft(run)->want_stats) {
        if (!r->stats) {
            ply__task_requeue(c, run, idx, 1, "the worker returned no statistics");
            return;
        }
        k.has_stats = 1;
        ply_msg_stats_from_proto(&k.stats, r->stats);
        if (k.stats.v[PLY_STAT_nodes] != r->nodes) {
            snprintf(
                why, sizeof why,
                "%s at %s: stats.nodes = %" PRIu64 " but nodes = %" PRIu64 " (job %" PRIu64 ")",
                p->name, sj->fen, k.stats.v[PLY_STAT_nodes], r->nodes, run->sched.job_base + idx);
            check_failed(c, run, idx, p, why);
            return;
        }
        char rule[PLY__WHY_LEN / 2];
        if (ply_stats_consistent(&k.stats, rule, sizeof rule) < 0) {
            snprintf(why, sizeof why, "%s at %s: statistics that cannot be: %s (job %" PRIu64 ")",
                     p->name, sj->fen, rule, run->sched.job_base + idx);
            check_failed(c, run, idx, p, why);
            return;
        }
    }
    int rc = ply__perft(run)->plan->split_depth == 0 ? take_divide(run, r, &k, why, sizeof why) : 0;
    if (rc == PLY_ENOMEM) {
        ply__comp_free(&k);
        ply__task_done(run, idx);
        ply__run_fail(run, rc, "%s at %s: out of memory (job %" PRIu64 ")", p->name, sj->fen,
                      run->sched.job_base + idx);
        return;
    }
    if (rc < 0) {
        ply__comp_free(&k);
        char line[2 * PLY__WHY_LEN];
        snprintf(line, sizeof line, "%s at %s: %s (job %" PRIu64 ")", p->name, sj->fen, why,
                 run->sched.job_base + idx);
        check_failed(c, run, idx, p, line);
        return;
    }
    /* stored before it counts: a restart never loses nor recomputes it */
    if (ply__comp_store(c, run, idx, &k, why, sizeof why) < 0) {
        ply__comp_free(&k);
        ply__task_done(run, idx);
        ply__run_fail(run, PLY_EDB, "%s", why);
        return;
    }
    ply__run_computed(c, run, 1);
    k.live = 1;
    k.tt_nodes = r->has_tt_nodes ? r->tt_nodes : 0;
    ply__take(c, run, idx, &k, 1);
}

static uint64_t perft_result_nodes(const Ply__Result *r)
{
    return r->search ? r->search->nodes : r->nodes; /* a search answer by mistake: its own */
}

/* A Result the envelope refused (malformed or cut short): that attempt fails now, not at
 * its lease, and the task goes to another worker (the same as search/kind.c). */
static void perft_refused_result(ply_coordinator_t *c, ply__run_t *run, size_t idx, ply__peer_t *p,
                                 const char *why)
{
    char line[2 * PLY__WHY_LEN];
    snprintf(line, sizeof line,
             "%s (identity %s): a malformed result (%s) (job %" PRIu64 ", attempt %u)", p->name,
             p->identity, why, run->sched.job_base + idx, run->sched.tasks[idx].attempt);
    ply_warn("run %" PRIu64 ": %s", run->id, line);
    ply__task_requeue(c, run, idx, 1, line);
}

/* One stored computation, taken as if it had just arrived (no drill-down). */
static int perft_restore_result(ply_coordinator_t *c, ply__run_t *run, const ply_store_result_t *r,
                                char *why, size_t why_len)
{
    size_t njobs = run->sched.njobs;
    if (r->job >= njobs || r->role >= run->sched.slots || r->role > PLY__TIE ||
        (r->ndivide && r->ndivide != (uint32_t)ply__perft(run)->plan->nroot) ||
        (ply__perft(run)->want_stats && !r->stats) ||
        r->payload) { /* a perft result has no payload */
        snprintf(why, why_len,
                 "state file %s: run %" PRIu64 ": a result for job %u (computation %u) that the "
                 "run cannot have",
                 c->state_path, run->id, r->job, r->role);
        return PLY_EDB;
    }
    size_t t = (size_t)r->role * njobs + r->job;
    if (run->sched.tasks[t].state == PLY__TASK_DONE) return 0;
    ply__comp_t k;
    memset(&k, 0, sizeof k);
    k.have = 1;
    k.arbiter = r->arbiter;
    k.no_hash = r->no_hash;
    k.seed = r->seed;
    k.attempt = r->attempt;
    k.nodes = r->nodes;
    k.time_us = r->time_us;
    snprintf(k.worker, sizeof k.worker, "%s", r->worker_id);
    /* a result an older ply stored names no identity: its worker id stands for one (a live
     * peer's identity never looks like it) */
    if (r->identity || r->arbiter)
        snprintf(k.identity, sizeof k.identity, "%s", r->arbiter ? "arbiter" : r->identity);
    else
        snprintf(k.identity, sizeof k.identity, "worker:%.*s", (int)sizeof k.identity - 8,
                 r->worker_id);
    if (r->stats) k.has_stats = 1, k.stats = *r->stats;
    if (r->ndivide) {
        k.divide = calloc(r->ndivide, sizeof *k.divide);
        if (!k.divide) return PLY_ENOMEM;
        memcpy(k.divide, r->divide, r->ndivide * sizeof *k.divide);
        if (r->divide_stats && (k.divide_stats = calloc(r->ndivide, sizeof *k.divide_stats)))
            memcpy(k.divide_stats, r->divide_stats, r->ndivide * sizeof *k.divide_stats);
    }
    ply__take(c, run, t, &k, 0);
    return 1;
}

/* ------------------------------------------------------------- describing */

static void perft_describe_run(const ply__run_t *run, char *buf, size_t len)
{
    snprintf(buf, len, "perft(%u) of %s", ply__perft(run)->depth, ply__perft(run)->fen);
}

static void perft_describe_plan(const ply__run_t *run, char *buf, size_t len)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    snprintf(buf, len, "split %u plies, %" PRIu64 " paths, %zu jobs, estimate %" PRIu64 " nodes",
             plan->split_depth, plan->paths, plan->njobs, plan->estimate);
}

static void perft_describe_job(const ply__run_t *run, size_t job, char *buf, size_t len)
{
    snprintf(buf, len, "%s, %u plies", ply__perft(run)->plan->jobs[job].fen,
             ply__perft(run)->plan->job_depth);
}

/* ---------------------------------------------------- answers and progress */

static void perft_summary(const ply__run_t *run, ply__summary_t *s)
{
    const ply__perft_run_t *pf = ply__perft(run);
    memset(s, 0, sizeof *s);
    s->fen = pf->fen;
    s->depth = pf->depth;
    s->nodes = pf->nodes;
    s->counted_nodes = pf->counted_nodes;
    s->mismatches = pf->mismatches;
}

/* RunAsked.perft in @asked's room: @fen (pointed to), @depth..., every field present. */
static void asked_of(ply__asked_t *asked, const char *fen, unsigned depth, int chess960, int stats,
                     int want_split, int verify_mode, uint32_t verify_ppm)
{
    _Static_assert(sizeof(Ply__PerftRequest) <= sizeof asked->room, "RunAsked.perft's room");
    Ply__PerftRequest *p = (Ply__PerftRequest *)(void *)asked->room;
    *p = (Ply__PerftRequest)PLY__PERFT_REQUEST__INIT;
    p->fen = (char *)fen;
    p->has_depth = 1, p->depth = depth;
    p->has_chess960 = 1, p->chess960 = chess960 != 0;
    p->has_stats = 1, p->stats = stats != 0;
    p->has_split_depth = 1, p->split_depth = want_split < 0 ? -1 : want_split;
    Ply__RunAsked *a = &asked->msg;
    *a = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    a->has_kind = 1, a->kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    a->perft = p;
    a->has_verify = 1, a->verify = (Ply__VerifyMode)verify_mode;
    if (verify_mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
        a->has_verify_ppm = 1, a->verify_ppm = verify_ppm;
}

/* What a finished perft run computed, from its record: its position and depth, the flags of
 * its request (none when the request is missing or does not decode), its verification. */
static int perft_asked_again(const ply__finished_t *f, ply__asked_t *a)
{
    if (!f->fen[0] || !f->depth) return 0;
    int chess960 = 0, stats = 0, want_split = -1;
    Ply__PerftRequest *q =
        f->has_request ? ply__perft_request__unpack(NULL, f->request_len, f->request) : NULL;
    if (q) {
        chess960 = q->chess960 != 0;
        stats = q->stats != 0;
        want_split = q->has_split_depth ? q->split_depth : -1;
        ply__perft_request__free_unpacked(q, NULL);
    }
    asked_of(a, f->fen, f->depth, chess960, stats, want_split, f->verify_mode, f->verify_ppm);
    return 1;
}

static void perft_fill_asked(const ply__run_t *run, ply__asked_t *asked)
{
    const ply__perft_run_t *pf = ply__perft(run);
    asked_of(asked, pf->fen, pf->depth, pf->chess960, pf->want_stats, pf->want_split,
             run->verif.mode, run->verif.ppm);
}

static void perft_fill_accepted(const ply__run_t *run, Ply__Accepted *a)
{
    const ply_split_t *plan = ply__perft(run)->plan;
    a->fen = (char *)ply__perft(run)->fen;
    if (!plan) return; /* not planned yet */
    a->has_split_depth = 1, a->split_depth = plan->split_depth;
    a->has_paths = 1, a->paths = plan->paths;
}

static void perft_fill_progress(const ply__run_t *run, Ply__RunProgress *rp, int answer)
{
    (void)answer; /* its count is all it shows (the registry hides it from others) */
    rp->has_nodes = 1, rp->nodes = ply_u128_lo(ply__perft(run)->nodes);
    rp->has_nodes_hi = ply_u128_hi(ply__perft(run)->nodes) != 0,
    rp->nodes_hi = ply_u128_hi(ply__perft(run)->nodes);
    rp->fen = (char *)ply__perft(run)->fen;
    rp->has_depth = 1, rp->depth = ply__perft(run)->depth;
    rp->has_counted_nodes = 1, rp->counted_nodes = ply__perft(run)->counted_nodes;
}

/* @st from the sums @in, their high words in @hi (PLY_STATS_N, owned by the caller). */
static void stats_proto_array(Ply__Stats *st, uint64_t *hi, const ply_stats128_t *in)
{
    *st = (Ply__Stats)PLY__STATS__INIT;
    ply_msg_stats128_to_proto(st, hi, in);
}

/* The RunResult of a finished run, encoded (caller owns), or NULL. */
static zmsg_t *perft_answer(ply_coordinator_t *c, ply__run_t *run)
{
    const ply_split_t *plan = ply__perft(run)->plan;
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
            ent[i].nodes = ply_u128_lo(ply__perft(run)->divide[i]);
            ent[i].has_nodes_hi = ply_u128_hi(ply__perft(run)->divide[i]) != 0;
            ent[i].nodes_hi = ply_u128_hi(ply__perft(run)->divide[i]);
            if (ply__perft(run)->want_stats && ply__perft(run)->divide_has_stats) {
                stats_proto_array(&dst[i], hi[i], &ply__perft(run)->divide_stats[i]);
                ent[i].stats = &dst[i];
            }
            ptr[i] = &ent[i];
        }
        Ply__Stats total;
        stats_proto_array(&total, hi[n], &ply__perft(run)->stats);
        Ply__Verification ver = PLY__VERIFICATION__INIT;
        ply__vreport_t *report = ply__verification(run, &ver);
        Ply__RunResult rr = PLY__RUN_RESULT__INIT;
        rr.has_run_id = 1, rr.run_id = run->id;
        rr.fen = ply__perft(run)->fen;
        rr.has_depth = 1, rr.depth = ply__perft(run)->depth;
        rr.has_nodes = 1, rr.nodes = ply_u128_lo(ply__perft(run)->nodes);
        rr.has_nodes_hi = ply_u128_hi(ply__perft(run)->nodes) != 0,
        rr.nodes_hi = ply_u128_hi(ply__perft(run)->nodes);
        if (ply__perft(run)->want_stats) rr.stats = &total;
        rr.n_divide = (size_t)n;
        rr.divide = ptr;
        rr.has_jobs = 1, rr.jobs = (uint32_t)plan->njobs;
        rr.has_split_depth = 1, rr.split_depth = plan->split_depth;
        uint64_t now = ply_time_ms();
        rr.has_time_ms = 1, rr.time_ms = ply__run_time_ms(run, now);
        rr.has_queued_ms = 1, rr.queued_ms = ply__run_queued_ms(run, now);
        uint64_t tail = ply__run_tail_ms(run, now);
        rr.has_tail_ms = 1, rr.tail_ms = tail < rr.time_ms ? tail : rr.time_ms;
        rr.has_counted_nodes = 1, rr.counted_nodes = ply__perft(run)->counted_nodes;
        rr.has_tt_nodes = 1, rr.tt_nodes = ply__perft(run)->tt_nodes;
        rr.verification = &ver;
        rr.has_chess960 = 1, rr.chess960 = ply__perft(run)->chess960 != 0;
        rr.has_worker_time_us = 1, rr.worker_time_us = ply__perft(run)->worker_time_us;
        rr.has_tt_probes = 1, rr.tt_probes = ply__perft(run)->tt_probes;
        rr.has_tt_hits = 1, rr.tt_hits = ply__perft(run)->tt_hits;
        rr.has_results_restored = 1, rr.results_restored = run->results_restored;
        rr.has_results_computed = 1, rr.results_computed = run->results_computed;
        ply__asked_t asked;
        perft_fill_asked(run, &asked);
        rr.asked = &asked.msg;
        if (report)
            z = ply__run_result_encode(run, &rr);
        else
            ply_warn("run %" PRIu64 ": cannot encode the result: out of memory", run->id);
        ply__vreport_free(&report);
    }
    free(ent);
    free(ptr);
    free(dst);
    free(hi);
    (void)c;
    char total[PLY_U128_DEC_LEN];
    ply_info("run %" PRIu64 ": perft(%u) = %s (%zu jobs, split %u, %" PRIu64
             " ms, idle tail %" PRIu64 " ms)",
             run->id, ply__perft(run)->depth,
             ply_u128_to_dec(ply__perft(run)->nodes, total, sizeof total), plan->njobs,
             plan->split_depth, ply_time_ms() - run->submitted_ms, run->sched.tail_ms);
    return z;
}

const ply__kind_t ply__kind_perft = {
    .id = PLY__JOB_KIND__JOB_KIND_PERFT,
    .name = "perft",
    .state_new = perft_state_new,
    .submit = perft_submit,
    .restore = perft_restore,
    .same_request = perft_same_request,
    .store_run = perft_store_run,
    .upgrade_row = ply__perft_upgrade_row,
    .plan = perft_plan,
    .planned = perft_planned,
    .setup = perft_setup,
    .free_run = perft_free_run,
    .worker_fits = perft_worker_fits,
    .job_estimate = perft_job_estimate,
    .fill_job = perft_fill_job,
    .handed_out = ply__on_handout,
    .eligible = ply__perft_eligible,
    .verify_tick = ply__perft_verify_tick,
    .describe_wait = ply__verify_wait_text,
    .take_result = perft_take_result,
    .result_nodes = perft_result_nodes,
    .refused_result = perft_refused_result,
    .restore_result = perft_restore_result,
    .resumed = ply__settle_all,
    .describe_run = perft_describe_run,
    .describe_plan = perft_describe_plan,
    .describe_job = perft_describe_job,
    .summary = perft_summary,
    .asked_again = perft_asked_again,
    .retry = perft_retry,
    .fill_asked = perft_fill_asked,
    .fill_accepted = perft_fill_accepted,
    .fill_progress = perft_fill_progress,
    .answer = perft_answer,
};
