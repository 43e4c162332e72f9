/*
 * The proof that the job-kind seam is real (issue 26): a third job kind, not chess, "the sum of the
 * integers of a range [a, b]", defined outside coordinator/ through the job-kind seam alone
 * (coordinator/kind.h), to prove the seam is real (issue 26). It joins the registry with one call
 * (ply__kind_register) and carries its messages in the `other` bytes of PLY/2 (Submit, Job, Result,
 * RunAsked, RunResult): request  a and b, two little-endian int64 (16 bytes), a <= b, at most 10^6
 * integers; job      lo and hi of one chunk of TOY_CHUNK integers (16 bytes); result   the chunk's
 * sum, a little-endian int64 (8 bytes); answer   the range's sum, the same 8 bytes. Verification
 * (--verify all) uses the verification service (verification.h) as perft and search do: a chunk's
 * check goes to another identity, a mismatch to a third, the one outvoted is excluded
 * (ply__exclude) and what rested on it computed again.
 *
 * The tests run it in a coordinator of coord_fixture.h against scripted toy workers (DEALERs
 * in czmq actors, each its own connection, so its own identity), through:
 *   sum        dispatch and credit: two workers share the chunks, neither ever holds more
 *              than its credit, the sum is (a + b)(b - a + 1) / 2;
 *   lease      a worker that takes a chunk and never answers (but heartbeats) loses it when
 *              its lease ends, and another sums it;
 *   killed     a worker killed while it holds chunks: they are queued again when it is
 *              found dead, and a worker that joins later finishes the run;
 *   restart    a coordinator with a state file stops halfway; a new one on the file resumes
 *              the run when its client submits it again, reads back what was summed and
 *              sums only the rest;
 *   liar       --verify all with two honest workers and one that adds 1 to every sum: the
 *              answer is right, the liar is caught, excluded and named;
 *   plan fails a run whose plan fails, acknowledged before it was planned (issue 27), fails:
 *              its client gets the Error, the state file records it failed.
 * The expected sums are Gauss's formula, independent of the code under test.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <czmq.h>

#include "batch.h"
#include "coord_fixture.h"
#include "envelope.h"
#include "kind.h"
#include "util/error.h"
#include "util/log.h"

#define TOY_KIND    7    /* any number the registry does not use (below 32: a worker's kind bit) */
#define TOY_CHUNK   10   /* integers per job */
#define TOY_NO_PLAN -777 /* a range from here is refused when planned (test_plan_fails) */

/* One computation of a chunk, kept until the chunk settles. */
typedef struct toy_comp {
    int have;
    int64_t sum;
    char worker[PLY__ID_LEN];
    char identity[PLY__IDENT_LEN];
} toy_comp_t;

typedef struct toy_run {
    int64_t a, b;
    uint8_t request[16];
    size_t njobs;
    toy_comp_t (*comp)[3]; /* per chunk: first, check, tie-break */
    int64_t *sum;          /* per chunk, once settled */
    int64_t total;         /* of the settled chunks */
    uint8_t job[16];       /* the Job being handed out */
    uint8_t answer[8];
} toy_run_t;

static toy_run_t *toy(const ply__run_t *run)
{
    return run->kind_state;
}

static void put64(uint8_t *p, int64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static int64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return (int64_t)v;
}

static int64_t chunk_lo(const toy_run_t *s, size_t j)
{
    return s->a + (int64_t)j * TOY_CHUNK;
}

static int64_t chunk_hi(const toy_run_t *s, size_t j)
{
    int64_t hi = chunk_lo(s, j) + TOY_CHUNK - 1;
    return hi < s->b ? hi : s->b;
}

/* ------------------------------------------------------------ the request */

static void *toy_state_new(void)
{
    return calloc(1, sizeof(toy_run_t));
}

static int take_request(ply__run_t *run, const uint8_t *req, size_t len, char *why, size_t why_len)
{
    toy_run_t *s = toy(run);
    if (len != sizeof s->request)
        return ply_why(why, why_len, PLY_EINVAL, "a toy request is 16 bytes, not %zu", len);
    memcpy(s->request, req, len);
    s->a = get64(req), s->b = get64(req + 8);
    if (s->a > s->b || s->b - s->a >= 1000000)
        return ply_why(why, why_len, PLY_EINVAL, "[%" PRId64 ", %" PRId64 "] is no range to sum",
                       s->a, s->b);
    return 0;
}

static int toy_submit(ply_coordinator_t *c, ply__run_t *run, const Ply__Submit *s, char *why,
                      size_t why_len)
{
    (void)c;
    if (!s->has_other) return ply_why(why, why_len, PLY_EINVAL, "a toy run needs its range");
    return take_request(run, s->other.data, s->other.len, why, why_len);
}

static void toy_plan(ply__run_t *run)
{
    toy_run_t *s = toy(run);
    s->njobs = (size_t)((s->b - s->a) / TOY_CHUNK) + 1;
}

static int toy_planned(ply__run_t *run, char *why, size_t why_len)
{
    ply__tasks_plan(run, toy(run)->njobs);
    if (toy(run)->a == TOY_NO_PLAN) /* the test of a plan that fails */
        return ply_why(why, why_len, PLY_EINVAL, "the toy kind plans no range from %d",
                       TOY_NO_PLAN);
    return 0;
}

static int toy_restore(ply_coordinator_t *c, ply__run_t *run, const ply_store_run_t *sr,
                       ply_split_t **plan, char *why, size_t why_len)
{
    (void)c;
    if (*plan) return ply_why(why, why_len, PLY_EDB, "a toy run has no stored plan");
    int r = take_request(run, sr->request, sr->request_len, why, why_len);
    if (r < 0) return PLY_EDB;
    if (!sr->planned) return 0; /* planned as a submitted run is */
    toy_plan(run);
    return toy_planned(run, why, why_len);
}

static int toy_same_request(const ply__run_t *a, const ply__run_t *b)
{
    return memcmp(toy(a)->request, toy(b)->request, sizeof toy(a)->request) == 0;
}

static void toy_store_run(const ply__run_t *run, ply_store_run_t *sr, const ply_split_t **plan)
{
    sr->request = toy(run)->request, sr->request_len = sizeof toy(run)->request;
    *plan = NULL;
}

static int toy_setup(ply__run_t *run)
{
    toy_run_t *s = toy(run);
    s->comp = calloc(s->njobs, sizeof *s->comp);
    s->sum = calloc(s->njobs, sizeof *s->sum);
    if (!s->comp || !s->sum) return PLY_ENOMEM;
    return ply__verify_tasks(run, run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_NONE ? 1 : 3);
}

static void toy_free_run(ply__run_t *run)
{
    toy_run_t *s = toy(run);
    free(s->comp);
    free(s->sum);
    free(s);
}

/* -------------------------------------------------------------- hand-out */

static int toy_worker_fits(const ply__run_t *run, const ply__peer_t *p)
{
    (void)run;
    return (p->kinds & (1u << TOY_KIND)) != 0;
}

/* The service's rule; a chunk's check and tie-break by identities that did not compute it. */
static int toy_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p,
                        int *no_hash)
{
    *no_hash = 0;
    if (!ply__eligible_first(c, run, t, p)) return 0;
    size_t idx = ply__job_of(run, t);
    int role = (int)ply__role_of(run, t);
    if (run->sched.slots == 1 || !ply__verify_selected(run, idx)) return 1;
    for (int r = 0; r < 3; r++) {
        if (r == role) continue;
        const toy_comp_t *k = &toy(run)->comp[idx][r];
        const ply__task_t *o = &run->sched.tasks[ply__task_of(run, idx, r)];
        if ((k->have && strcmp(k->identity, p->identity) == 0) ||
            (o->state == PLY__TASK_INFLIGHT && o->worker &&
             strcmp(o->worker->identity, p->identity) == 0))
            return 0;
    }
    return 1;
}

/* A toy run has no bounded wait of its own: it waits for workers as long as its clients do. */
static void toy_verify_tick(ply_coordinator_t *c, ply__run_t *run, uint64_t now)
{
    (void)c, (void)run, (void)now;
}

static double toy_job_estimate(ply__run_t *run, size_t job)
{
    return (double)(chunk_hi(toy(run), job) - chunk_lo(toy(run), job) + 1);
}

static void toy_fill_job(const ply__run_t *run, size_t t, int no_hash, Ply__Job *job)
{
    (void)no_hash; /* a sum has no table */
    toy_run_t *s = toy(run);
    size_t j = ply__job_of(run, t);
    put64(s->job, chunk_lo(s, j));
    put64(s->job + 8, chunk_hi(s, j));
    job->has_kind = 1, job->kind = TOY_KIND;
    job->has_other = 1, job->other.data = s->job, job->other.len = sizeof s->job;
}

/* Queues computation @role of chunk @idx unless it has started. */
static void activate(ply__run_t *run, size_t idx, int role)
{
    size_t t = ply__task_of(run, idx, role);
    if (run->sched.tasks[t].state == PLY__TASK_UNUSED) ply__task_queue(run, t);
}

static void toy_handed_out(ply_coordinator_t *c, ply__run_t *run, size_t t)
{
    (void)c;
    size_t idx = ply__job_of(run, t);
    if (run->sched.slots > 1 && ply__role_of(run, t) == PLY__FIRST &&
        ply__verify_selected(run, idx))
        activate(run, idx, PLY__CHECK);
}

/* ---------------------------------------------------------------- settling */

static void settle(ply_coordinator_t *c, ply__run_t *run, size_t idx, int live);

/* Chunk @idx is settled on computation @role, confirmed by @confirm (-1: none). */
static void accept_chunk(ply__run_t *run, size_t idx, int role, int confirm)
{
    toy_run_t *s = toy(run);
    toy_comp_t *k = s->comp[idx];
    s->sum[idx] = k[role].sum;
    s->total += k[role].sum;
    ply__verify_settled_by(run, idx, ply__ident_of(run, k[role].identity, k[role].worker),
                           confirm >= 0 ? ply__ident_of(run, k[confirm].identity, k[confirm].worker)
                                        : PLY__WHO_NONE,
                           confirm >= 0 ? PLY__CONF_WORKER : PLY__CONF_NONE, 0);
    memset(k, 0, sizeof s->comp[idx]);
    ply__job_settled(run, idx);
    if (run->sched.done == run->sched.njobs) ply__run_done(run);
}

/* Drops computation @role of chunk @idx (and its stored row); @again: compute it again. */
static void drop(ply_coordinator_t *c, ply__run_t *run, size_t idx, int role, int again)
{
    size_t t = ply__task_of(run, idx, role);
    memset(&toy(run)->comp[idx][role], 0, sizeof toy(run)->comp[idx][role]);
    ply__result_drop(c, run, idx, role);
    if (run->sched.tasks[t].state == PLY__TASK_DONE) {
        if (again)
            ply__task_queue(run, t);
        else
            ply__task_unused(run, t);
    }
}

/* A settled chunk resting on an excluded identity: out of the total, computed again. */
static void reopen(ply_coordinator_t *c, ply__run_t *run, size_t j)
{
    toy(run)->total -= toy(run)->sum[j];
    ply__job_unsettled(run, j);
    ply__run_reopen(run);
    for (int r = PLY__CHECK; r <= PLY__TIE; r++) drop(c, run, j, r, 0);
    drop(c, run, j, PLY__FIRST, 1);
}

/* Chunk @j's tie-break is void (one side of its mismatch is gone): dropped, asked again if
 * the chunk's new computation disagrees too. */
static void void_tie(ply_coordinator_t *c, ply__run_t *run, size_t j)
{
    size_t t = ply__task_of(run, j, PLY__TIE);
    memset(&toy(run)->comp[j][PLY__TIE], 0, sizeof toy(run)->comp[j][PLY__TIE]);
    ply__result_drop(c, run, j, PLY__TIE);
    int st = run->sched.tasks[t].state;
    if (st == PLY__TASK_PENDING || st == PLY__TASK_DONE) ply__task_unused(run, t);
}

/* An unsettled chunk: what @identity computed of it goes, the rest is compared afresh. */
static void forget(ply_coordinator_t *c, ply__run_t *run, size_t j, const char *identity)
{
    toy_comp_t *k = toy(run)->comp[j];
    int mine = 0;
    for (int r = 0; r < 3; r++)
        if (k[r].have && strcmp(k[r].identity, identity) == 0) {
            drop(c, run, j, r, r != PLY__TIE);
            mine = 1;
        }
    if (mine && !(k[0].have && k[1].have)) void_tie(c, run, j);
    settle(c, run, j, 1);
}

static const ply__reopen_ops_t reopen_ops = {reopen, forget};

/* The first two computations agree: done; else a third identity decides, the loser excluded. */
static void settle(ply_coordinator_t *c, ply__run_t *run, size_t idx, int live)
{
    toy_comp_t *k = toy(run)->comp[idx];
    if (run->sched.settled[idx] || run->state != PLY__RUN_ACTIVE) return;
    if (!ply__verify_selected(run, idx)) {
        if (k[0].have) accept_chunk(run, idx, 0, -1);
        return;
    }
    if (!k[0].have || !k[1].have) {
        if (k[0].have && live) activate(run, idx, PLY__CHECK);
        return;
    }
    if (k[0].sum == k[1].sum) {
        accept_chunk(run, idx, 0, 1);
        return;
    }
    if (!k[2].have) {
        if (live) activate(run, idx, PLY__TIE);
        return;
    }
    int acc = k[2].sum == k[0].sum ? 0 : k[2].sum == k[1].sum ? 1 : -1;
    if (acc < 0) {
        ply__run_fail(run, PLY_EMISMATCH, "chunk %zu: three sums disagree", idx);
        return;
    }
    char who[PLY__IDENT_LEN], worker[PLY__ID_LEN], why[256];
    snprintf(who, sizeof who, "%s", k[1 - acc].identity);
    snprintf(worker, sizeof worker, "%s", k[1 - acc].worker);
    snprintf(why, sizeof why, "chunk %zu: says %" PRId64 ", two others %" PRId64, idx,
             k[1 - acc].sum, k[acc].sum);
    accept_chunk(run, idx, acc, 2);
    ply__exclude(c, run, who, worker, why, &reopen_ops);
}

/* Computation @sum of task @t by @worker / @identity: kept, then settled when @live. */
static void take(ply_coordinator_t *c, ply__run_t *run, size_t t, int64_t sum, const char *worker,
                 const char *identity, int live)
{
    size_t idx = ply__job_of(run, t);
    int role = (int)ply__role_of(run, t);
    ply__task_done(run, t);
    toy_comp_t *k = &toy(run)->comp[idx][role];
    if (run->sched.settled[idx] || role > PLY__TIE || k->have) return;
    const toy_comp_t *v = toy(run)->comp[idx];
    if (live && role == PLY__TIE && !(v[0].have && v[1].have && v[0].sum != v[1].sum)) {
        void_tie(c, run, idx); /* a tie-break an exclusion made void: not needed */
        return;
    }
    k->have = 1;
    k->sum = sum;
    snprintf(k->worker, sizeof k->worker, "%.*s", (int)sizeof k->worker - 1, worker);
    snprintf(k->identity, sizeof k->identity, "%s", identity);
    if (live) settle(c, run, idx, 1);
}

static void toy_take_result(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                            const Ply__Result *r)
{
    if (!r->has_other || r->other.len != 8) {
        ply__task_requeue(c, run, t, 1, "not the sum of a chunk");
        return;
    }
    ply_store_result_t sr;
    memset(&sr, 0, sizeof sr);
    sr.run_id = run->id, sr.job = (uint32_t)ply__job_of(run, t);
    sr.role = (uint32_t)ply__role_of(run, t), sr.attempt = r->attempt;
    sr.worker_id = p->worker_id, sr.seed = p->seed, sr.identity = p->identity;
    sr.payload = r->other.data, sr.payload_len = r->other.len;
    char why[PLY__WHY_LEN];
    if (ply__result_store(c, run, &sr, why, sizeof why) < 0) { /* stored before it counts */
        ply__task_done(run, t);
        ply__run_fail(run, PLY_EDB, "%s", why);
        return;
    }
    ply__run_computed(c, run, 1);
    take(c, run, t, get64(r->other.data), p->worker_id, p->identity, 1);
}

static uint64_t toy_result_nodes(const Ply__Result *r)
{
    (void)r;
    return 0; /* a sum counts no nodes */
}

static void toy_refused_result(ply_coordinator_t *c, ply__run_t *run, size_t t, ply__peer_t *p,
                               const char *why)
{
    (void)p;
    ply__task_requeue(c, run, t, 1, why);
}

static int toy_restore_result(ply_coordinator_t *c, ply__run_t *run, const ply_store_result_t *r,
                              char *why, size_t why_len)
{
    if (r->job >= run->sched.njobs || r->role >= run->sched.slots || r->payload_len != 8)
        return ply_why(why, why_len, PLY_EDB, "a toy result the run cannot have");
    size_t t = ply__task_of(run, r->job, (int)r->role);
    if (run->sched.tasks[t].state == PLY__TASK_DONE) return 0;
    take(c, run, t, get64(r->payload), r->worker_id, r->identity ? r->identity : "", 0);
    return 1;
}

static void toy_resumed(ply_coordinator_t *c, ply__run_t *run)
{
    for (size_t j = 0; j < run->sched.njobs && run->state == PLY__RUN_ACTIVE; j++)
        settle(c, run, j, 1);
    if (run->sched.done == run->sched.njobs) ply__run_done(run);
}

static int toy_retry(ply_coordinator_t *c, ply__run_t *run, size_t t, const char *reason)
{
    (void)c, (void)run, (void)t, (void)reason;
    return 1;
}

/* ------------------------------------------------------------ describing */

static void toy_describe_run(const ply__run_t *run, char *buf, size_t len)
{
    snprintf(buf, len, "the sum of [%" PRId64 ", %" PRId64 "]", toy(run)->a, toy(run)->b);
}

static void toy_describe_plan(const ply__run_t *run, char *buf, size_t len)
{
    snprintf(buf, len, "%zu chunks of up to %d", run->sched.njobs, TOY_CHUNK);
}

static void toy_describe_job(const ply__run_t *run, size_t job, char *buf, size_t len)
{
    snprintf(buf, len, "[%" PRId64 ", %" PRId64 "]", chunk_lo(toy(run), job),
             chunk_hi(toy(run), job));
}

static void toy_summary(const ply__run_t *run, ply__summary_t *s)
{
    (void)run;
    memset(s, 0, sizeof *s);
    s->fen = "";
}

static int toy_asked_again(const ply__finished_t *f, ply__asked_t *a)
{
    (void)f, (void)a;
    return 0;
}

static void toy_fill_asked(const ply__run_t *run, ply__asked_t *asked)
{
    Ply__RunAsked *a = &asked->msg;
    *a = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    a->has_kind = 1, a->kind = TOY_KIND;
    a->has_other = 1, a->other.data = toy(run)->request, a->other.len = sizeof toy(run)->request;
    a->has_verify = 1, a->verify = (Ply__VerifyMode)run->verif.mode;
}

static void toy_fill_accepted(const ply__run_t *run, Ply__Accepted *a)
{
    if (ply__run_planned(run)) a->has_split_depth = 1, a->split_depth = 0;
}

static void toy_fill_progress(const ply__run_t *run, Ply__RunProgress *rp, int answer)
{
    (void)run, (void)rp, (void)answer;
}

static zmsg_t *toy_answer(ply_coordinator_t *c, ply__run_t *run)
{
    (void)c;
    toy_run_t *s = toy(run);
    put64(s->answer, s->total);
    ply__asked_t asked;
    toy_fill_asked(run, &asked);
    char *lines[PLY_MAX_EXCLUSIONS];
    Ply__Verification v = PLY__VERIFICATION__INIT;
    v.mode = run->verif.text;
    v.has_jobs = 1, v.jobs = (uint32_t)run->sched.njobs;
    v.has_jobs_selected = 1, v.jobs_selected = run->verif.selected;
    v.has_identities = 1, v.identities = ply__identities_used(run);
    v.has_excluded = 1, v.excluded = run->verif.nexcluded;
    v.has_recomputed = 1, v.recomputed = run->verif.recomputed;
    v.n_exclusion = ply__exclusion_lines(run, lines, PLY_MAX_EXCLUSIONS), v.exclusion = lines;
    Ply__RunResult rr = PLY__RUN_RESULT__INIT;
    rr.has_run_id = 1, rr.run_id = run->id;
    rr.has_jobs = 1, rr.jobs = (uint32_t)run->sched.njobs;
    rr.has_results_restored = 1, rr.results_restored = run->results_restored;
    rr.has_results_computed = 1, rr.results_computed = run->results_computed;
    rr.has_other = 1, rr.other.data = s->answer, rr.other.len = sizeof s->answer;
    rr.asked = &asked.msg;
    rr.verification = &v;
    zmsg_t *z = ply__run_result_encode(run, &rr);
    for (size_t i = 0; i < v.n_exclusion; i++) free(lines[i]);
    return z;
}

static const ply__kind_t toy_kind = {
    .id = TOY_KIND,
    .name = "toy",
    .state_new = toy_state_new,
    .submit = toy_submit,
    .restore = toy_restore,
    .same_request = toy_same_request,
    .store_run = toy_store_run,
    .plan = toy_plan,
    .planned = toy_planned,
    .setup = toy_setup,
    .free_run = toy_free_run,
    .worker_fits = toy_worker_fits,
    .eligible = toy_eligible,
    .verify_tick = toy_verify_tick,
    .describe_wait = ply__verify_wait_text,
    .job_estimate = toy_job_estimate,
    .fill_job = toy_fill_job,
    .handed_out = toy_handed_out,
    .take_result = toy_take_result,
    .result_nodes = toy_result_nodes,
    .refused_result = toy_refused_result,
    .restore_result = toy_restore_result,
    .resumed = toy_resumed,
    .retry = toy_retry,
    .describe_run = toy_describe_run,
    .describe_plan = toy_describe_plan,
    .describe_job = toy_describe_job,
    .summary = toy_summary,
    .asked_again = toy_asked_again,
    .fill_asked = toy_fill_asked,
    .fill_accepted = toy_fill_accepted,
    .fill_progress = toy_fill_progress,
    .answer = toy_answer,
};

/* --------------------------------------------------------- scripted workers */

enum { HONEST = 0, LIAR, HOLD };

typedef struct tworker {
    char endpoint[256];
    char id[32];
    int mode;
    uint32_t credit; /* its READY credit, given back one per answer */
    int max;         /* answer this many jobs, hold the rest (0: all) */
    _Atomic int jobs, answered, holding, most_held;
    zactor_t *actor;
} tworker_t;

static int64_t gauss(int64_t a, int64_t b)
{
    return (a + b) * (b - a + 1) / 2;
}

static void send_msg(zsock_t *d, ply_msg_t *m)
{
    assert_int_equal(ply_msg_send(d, m), 0);
}

static void answer_job(tworker_t *w, zsock_t *d, const Ply__Job *job)
{
    assert_true(job->has_other && job->other.len == 16);
    int64_t sum = gauss(get64(job->other.data), get64(job->other.data + 8));
    if (w->mode == LIAR) sum += 1;
    uint8_t out[8];
    put64(out, sum);
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = job->job_id;
    r.has_attempt = 1, r.attempt = job->attempt;
    r.has_other = 1, r.other.data = out, r.other.len = sizeof out;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT, m.result = &r;
    send_msg(d, &m);
    w->answered++;
    Ply__Ready ready = PLY__READY__INIT; /* its credit back: it never runs dry */
    ready.has_credit = 1, ready.credit = 1;
    m.body_case = PLY__MESSAGE__BODY_READY, m.ready = &ready;
    send_msg(d, &m);
}

static void tworker_actor(zsock_t *pipe, void *arg)
{
    tworker_t *w = arg;
    zsock_t *d = zsock_new_dealer(w->endpoint);
    uint32_t kinds[] = {TOY_KIND};
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = w->id;
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    h.n_kinds = 1, h.kinds = kinds;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO, m.hello = &h;
    send_msg(d, &m);
    Ply__Ready ready = PLY__READY__INIT;
    ready.has_credit = 1, ready.credit = w->credit;
    m.body_case = PLY__MESSAGE__BODY_READY, m.ready = &ready;
    send_msg(d, &m);
    zsock_signal(pipe, 0);
    zpoller_t *poller = zpoller_new(pipe, d, NULL);
    for (;;) {
        void *which = zpoller_wait(poller, 50);
        if (which == pipe) break;
        if (which == d) {
            ply_msg_t *msg = NULL;
            if (ply_msg_recv(d, &msg, NULL, 0) == 0 && msg->body_case == PLY__MESSAGE__BODY_JOB) {
                w->jobs++;
                if (w->mode == HOLD || (w->max && w->answered >= w->max)) {
                    if (++w->holding > w->most_held) w->most_held = w->holding;
                } else {
                    answer_job(w, d, msg->job);
                }
            }
            ply_msg_free(&msg);
        }
        Ply__Heartbeat hb = PLY__HEARTBEAT__INIT; /* alive (and busy), whatever it does */
        hb.has_nodes = 1, hb.nodes = (uint64_t)zclock_mono();
        m.body_case = PLY__MESSAGE__BODY_HEARTBEAT, m.heartbeat = &hb;
        ply_msg_send(d, &m);
    }
    zpoller_destroy(&poller);
    zsock_set_linger(d, 0);
    zsock_destroy(&d); /* no BYE: to the coordinator it simply stops talking */
}

static void tworker_start(tworker_t *w, const char *endpoint, const char *id, int mode,
                          uint32_t credit)
{
    memset(w, 0, sizeof *w);
    snprintf(w->endpoint, sizeof w->endpoint, "%s", endpoint);
    snprintf(w->id, sizeof w->id, "%s", id);
    w->mode = mode;
    w->credit = credit;
    w->actor = zactor_new(tworker_actor, w);
    assert_non_null(w->actor);
}

/* ------------------------------------------------------------------ client */

/* What a toy run answered. */
typedef struct answer {
    int64_t sum;
    uint64_t run_id;
    uint32_t jobs, results_restored, excluded;
    char exclusion[512];
} answer_t;

#define OWNER_TOKEN "toy-test-owner-token-0123456789abcdef"

/* A client's DEALER: Submit [a, b] (@verify: a Ply__VerifyMode), then the run's Accepted id
 * in *run_id. */
static zsock_t *client_submit(const char *endpoint, int64_t a, int64_t b, int verify,
                              uint64_t *run_id)
{
    zsock_t *d = zsock_new_dealer(endpoint);
    assert_non_null(d);
    uint8_t req[16];
    put64(req, a), put64(req + 8, b);
    Ply__Submit s = PLY__SUBMIT__INIT;
    s.has_kind = 1, s.kind = TOY_KIND;
    s.has_other = 1, s.other.data = req, s.other.len = sizeof req;
    s.owner_token = OWNER_TOKEN;
    if (verify) s.has_verify = 1, s.verify = (Ply__VerifyMode)verify;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_SUBMIT, m.submit = &s;
    send_msg(d, &m);
    zsock_set_rcvtimeo(d, 10000);
    for (;;) {
        ply_msg_t *msg = NULL;
        assert_int_equal(ply_msg_recv(d, &msg, NULL, 0), 0);
        if (msg->body_case == PLY__MESSAGE__BODY_ERROR)
            fail_msg("refused: %s", msg->error->message);
        if (msg->body_case == PLY__MESSAGE__BODY_ACCEPTED) {
            *run_id = msg->accepted->run_id;
            ply_msg_free(&msg);
            return d;
        }
        ply_msg_free(&msg);
    }
}

/* Waits (up to 20 s) for the RunResult of the run @d submitted. */
static answer_t client_wait(zsock_t *d)
{
    answer_t out;
    memset(&out, 0, sizeof out);
    zsock_set_rcvtimeo(d, 20000);
    for (;;) {
        ply_msg_t *msg = NULL;
        if (ply_msg_recv(d, &msg, NULL, 0) != 0) fail_msg("no answer within 20 s");
        if (msg->body_case == PLY__MESSAGE__BODY_ERROR) fail_msg("failed: %s", msg->error->message);
        if (msg->body_case == PLY__MESSAGE__BODY_RUN_RESULT) {
            const Ply__RunResult *r = msg->run_result;
            assert_true(r->has_other && r->other.len == 8);
            out.sum = get64(r->other.data);
            out.run_id = r->run_id;
            out.jobs = r->jobs;
            out.results_restored = r->results_restored;
            assert_non_null(r->asked);
            assert_int_equal(r->asked->kind, TOY_KIND);
            if (r->verification) {
                out.excluded = r->verification->excluded;
                if (r->verification->n_exclusion)
                    snprintf(out.exclusion, sizeof out.exclusion, "%s",
                             r->verification->exclusion[0]);
            }
            ply_msg_free(&msg);
            return out;
        }
        ply_msg_free(&msg);
    }
}

/* -------------------------------------------------------------------- tests */

static void test_sum(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    tworker_t a, b;
    tworker_start(&a, t->endpoint, "toy-a", HONEST, 2);
    tworker_start(&b, t->endpoint, "toy-b", HONEST, 3);
    coord_wait_joined(t, 2);
    uint64_t id;
    zsock_t *d = client_submit(t->endpoint, 1, 1000, 0, &id);
    answer_t r = client_wait(d);
    assert_int_equal(r.sum, gauss(1, 1000)); /* 500500 */
    assert_int_equal(r.jobs, 100);
    assert_int_equal(a.answered + b.answered, 100);
    assert_true(a.answered > 0 && b.answered > 0); /* dispatch shares the chunks */
    zsock_destroy(&d);
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    coord_stop(&t);
}

static void short_lease(ply_coordinator_config_t *cfg)
{
    cfg->lease_ms = 300;
}

static void test_lease(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", short_lease, NULL);
    tworker_t hold, a;
    tworker_start(&hold, t->endpoint, "toy-hold", HOLD, 1);
    coord_wait_joined(t, 1);
    uint64_t id;
    zsock_t *d = client_submit(t->endpoint, -500, 499, 0, &id);
    for (int i = 0; i < 300 && !hold.jobs; i++) usleep(10000);
    assert_int_equal(hold.most_held, 1); /* its credit, never more */
    tworker_start(&a, t->endpoint, "toy-a", HONEST, 4);
    answer_t r = client_wait(d);
    assert_int_equal(r.sum, gauss(-500, 499));         /* -500 */
    assert_true(coord_counters(t).jobs_requeued >= 1); /* the held chunk's lease ended */
    zsock_destroy(&d);
    zactor_destroy(&hold.actor);
    zactor_destroy(&a.actor);
    coord_stop(&t);
}

static void test_killed(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    tworker_t k, a;
    tworker_start(&k, t->endpoint, "toy-killed", HONEST, 4);
    k.max = 3;
    coord_wait_joined(t, 1);
    uint64_t id;
    zsock_t *d = client_submit(t->endpoint, 1, 200, 0, &id);
    for (int i = 0; i < 300 && k.jobs < 7; i++) usleep(10000);
    assert_int_equal(k.answered, 3);
    assert_true(k.holding == 4); /* its whole credit, held */
    zactor_destroy(&k.actor);    /* dies holding them */
    tworker_start(&a, t->endpoint, "toy-late", HONEST, 4);
    answer_t r = client_wait(d);
    assert_int_equal(r.sum, gauss(1, 200));
    ply_coordinator_counters_t n = coord_counters(t);
    assert_true(n.workers_lost >= 1);
    assert_true(n.jobs_requeued >= 4);
    zsock_destroy(&d);
    zactor_destroy(&a.actor);
    coord_stop(&t);
}

static void test_restart(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-test-kind-toy-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    coord_t *t = coord_start("inproc", NULL, path);
    tworker_t a, b;
    tworker_start(&a, t->endpoint, "toy-a", HONEST, 2);
    a.max = 12;
    coord_wait_joined(t, 1);
    uint64_t id;
    zsock_t *d = client_submit(t->endpoint, 1, 300, 0, &id);
    for (int i = 0; i < 300 && a.answered < 12; i++) usleep(10000);
    assert_int_equal(a.answered, 12);
    usleep(300000); /* a tick: the results are committed */
    zsock_destroy(&d);
    zactor_destroy(&a.actor);
    coord_stop(&t);

    t = coord_start("inproc", NULL, path);
    uint64_t again;
    d = client_submit(t->endpoint, 1, 300, 0, &again);
    assert_true(again == id); /* the same request resumes the run read back */
    tworker_start(&b, t->endpoint, "toy-b", HONEST, 2);
    answer_t r = client_wait(d);
    assert_int_equal(r.sum, gauss(1, 300));
    assert_int_equal(r.results_restored, 12);
    assert_int_equal(b.answered, 30 - 12); /* only what was not summed */
    zsock_destroy(&d);
    zactor_destroy(&b.actor);
    coord_stop(&t);
    unlink(path);
    char side[64];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

/*
 * A run whose plan fails (issue 27: acknowledged before it is planned) fails like any run: its
 * client gets Accepted, then the Error; the state file, which had its request, records it
 * failed, and a coordinator restarted on it has nothing to resume.
 */
static void test_plan_fails(void **state)
{
    (void)state;
    char path[] = "/tmp/ply-test-kind-toy-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    coord_t *t = coord_start("inproc", NULL, path);
    uint64_t id;
    zsock_t *d = client_submit(t->endpoint, TOY_NO_PLAN, TOY_NO_PLAN + 5, 0, &id);
    char error[256] = "";
    for (int i = 0; i < 40 && !error[0]; i++) {
        ply_msg_t *msg = NULL;
        if (ply_msg_recv(d, &msg, NULL, 0) != 0) break;
        if (msg->body_case == PLY__MESSAGE__BODY_ERROR) {
            assert_true(msg->error->has_run_id && msg->error->run_id == id);
            snprintf(error, sizeof error, "%s", msg->error->message);
        }
        ply_msg_free(&msg);
    }
    assert_non_null(strstr(error, "plans no range"));
    zsock_destroy(&d);
    coord_stop(&t);
    char why[256];
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_store_finished_t f;
    assert_int_equal(ply_store_finished(s, id, &f, NULL, NULL), 0);
    assert_string_equal(f.state, "failed");
    assert_non_null(strstr(f.error, "plans no range"));
    ply_store_close(&s);
    unlink(path);
    char side[64];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static void test_liar(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    tworker_t a, b, l;
    tworker_start(&l, t->endpoint, "toy-liar", LIAR, 2);
    tworker_start(&a, t->endpoint, "toy-a", HONEST, 2);
    tworker_start(&b, t->endpoint, "toy-b", HONEST, 2);
    coord_wait_joined(t, 3);
    uint64_t id;
    zsock_t *d = client_submit(t->endpoint, 1, 400, PLY__VERIFY_MODE__VERIFY_MODE_ALL, &id);
    answer_t r = client_wait(d);
    assert_int_equal(r.sum, gauss(1, 400));
    if (l.answered) { /* it lied at least once: caught, excluded and named */
        assert_int_equal(r.excluded, 1);
        assert_non_null(strstr(r.exclusion, "toy-liar"));
    }
    print_message("liar: %d answers, excluded %u: %s\n", l.answered, r.excluded, r.exclusion);
    assert_true(l.answered > 0);
    zsock_destroy(&d);
    zactor_destroy(&a.actor);
    zactor_destroy(&b.actor);
    zactor_destroy(&l.actor);
    coord_stop(&t);
}

int main(void)
{
    ply_log_set_level(getenv("PLY_TEST_LOG") ? PLY_LOG_INFO : PLY_LOG_ERROR);
    if (ply__kind_register(&toy_kind) != 0) return 1; /* the registry line */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum),    cmocka_unit_test(test_lease),
        cmocka_unit_test(test_killed), cmocka_unit_test(test_restart),
        cmocka_unit_test(test_liar),   cmocka_unit_test(test_plan_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
