/*
 * Kind 2 (search)'s verification (search/kind.c calls it): `ply analyse --verify
 * sample=P|all`, the rules of perft/verify.c and perft/settle.c carried over to searches.
 *
 * A search is comparable only when it is reproducible. So every job of a verified run is
 * sent reproducible (SearchJob.reproducible: one thread, a fresh private table of
 * PLY_SEARCH_REPRO_HASH_MIB MiB, the run's depth or node limit; a movetime is refused at
 * submit), the checked ones and the others alike, so that nothing a worker sees tells a
 * check or a job chosen for one (the jobs are chosen by a CSPRNG, the wire ids permuted:
 * the verification service's draw). Two honest workers of one engine (HELLO's engine_id: the
 * engine, its version, its keys and options) then return identical lines and node counts, and the
 * comparison is exact: every line's score, bound, depth, seldepth and PV, and the nodes.
 *
 * Who checks: a selected job's check goes to another identity (its CURVE key, or its
 * connection) with the same engine_id, never to the identity that searched first; on a
 * mismatch, a third identity of that engine decides by majority. The rule engine cannot
 * search, so it decides nothing here (it has already replayed every line: a line it
 * refuses never reaches this file). The computation that loses is caught: its identity is
 * excluded from the run (no more of its jobs, its tasks withdrawn, its computations of
 * unsettled jobs dropped, every settled job whose line rests on it taken out of the answer
 * and searched again), and the report names it. Three different answers, a check or a
 * tie-break that no eligible worker takes within the coordinator's worker wait: the run
 * fails saying so, never with an unchecked line reported as checked.
 *
 * Restarts: computations are stored by role; a job whose computations agree (or settle by
 * majority) when read back is settled; any other job of a verified run is searched again
 * from the start (a stored computation does not say which engine_id computed it).
 */
#include "search/verify.h"
#include "batch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

typedef struct svcomp {
    int have;
    Ply__SearchResult *res; /* owned */
    uint32_t attempt;
    char worker[PLY__ID_LEN];
    char identity[PLY__IDENT_LEN];
    char engine_id[PLY_MAX_TEXT + 1]; /* "" read back from the state file */
} svcomp_t;

typedef struct svjob {
    svcomp_t comp[3]; /* PLY__FIRST, PLY__CHECK, PLY__TIE */
    int mismatch;     /* the first two differ */
} svjob_t;

struct ply__sv {
    svjob_t *jobs;
    size_t njobs;
    uint32_t matched;    /* settled jobs whose line a second identity matched exactly */
    uint32_t mismatches; /* jobs whose first two searches differed */
    uint32_t resolved;   /* ... settled by a majority of three identities */
    char *detail[PLY_MAX_MISMATCHES];
    uint32_t ndetail;
    /* the report (ply__sv_report) */
    char mode[32];
    char summary[PLY_MAX_TEXT + 1];
    char *exclusion[PLY_MAX_EXCLUSIONS];
    size_t nexclusion;
};

static void comp_clear(svcomp_t *k)
{
    if (k->res) ply__search_result__free_unpacked(k->res, NULL);
    memset(k, 0, sizeof *k);
}

ply__sv_t *ply__sv_new(size_t njobs)
{
    ply__sv_t *sv = calloc(1, sizeof *sv);
    if (!sv) return NULL;
    sv->jobs = calloc(njobs ? njobs : 1, sizeof *sv->jobs);
    if (!sv->jobs) {
        free(sv);
        return NULL;
    }
    sv->njobs = njobs;
    return sv;
}

void ply__sv_free(ply__sv_t **svp)
{
    ply__sv_t *sv = svp ? *svp : NULL;
    if (!sv) return;
    for (size_t i = 0; i < sv->njobs; i++)
        for (int r = 0; r < 3; r++) comp_clear(&sv->jobs[i].comp[r]);
    for (uint32_t i = 0; i < sv->ndetail; i++) free(sv->detail[i]);
    for (size_t i = 0; i < sv->nexclusion; i++) free(sv->exclusion[i]);
    free(sv->jobs);
    free(sv);
    *svp = NULL;
}

int ply__sv_setup(ply__run_t *run)
{
    return ply__verify_tasks(run, 3); /* first, check, tie-break: no drill-down of a search */
}

/* ------------------------------------------------------------- who may search */

typedef struct other {
    const char *identity, *engine_id;
} other_t;

/* The identities (and engines) of the job's other computations, done or out. */
static int others_of(const ply__run_t *run, const ply__sv_t *sv, size_t idx, int role, other_t *o)
{
    int n = 0;
    for (int r = 0; r < 3; r++) {
        if (r == role) continue;
        const svcomp_t *k = &sv->jobs[idx].comp[r];
        const ply__task_t *j = &run->sched.tasks[ply__task_of(run, idx, r)];
        if (k->have) {
            o[n].identity = k->identity, o[n++].engine_id = k->engine_id;
        } else if (j->state == PLY__TASK_INFLIGHT && j->worker) {
            o[n].identity = j->worker->identity, o[n++].engine_id = j->worker->engine_id;
        }
    }
    return n;
}

/* Whether @p could search task @t: a selected job's searches come from distinct identities of
 * one engine_id (a worker that does not say its engine_id searches none of them). */
static int fits_role(const ply__run_t *run, const ply__sv_t *sv, size_t t, const ply__peer_t *p)
{
    if (p->kind != PLY__PEER_WORKER || p->probation || !run->kind->worker_fits(run, p)) return 0;
    if (run->verif.nexcluded && ply__excluded(run, p->identity)) return 0;
    size_t idx = ply__job_of(run, t);
    if (!ply__verify_selected(run, idx)) return 1;
    if (!p->engine_id[0]) return 0;
    other_t o[3];
    int n = others_of(run, sv, idx, (int)ply__role_of(run, t), o);
    for (int i = 0; i < n; i++)
        if (strcmp(p->identity, o[i].identity) == 0 || strcmp(p->engine_id, o[i].engine_id) != 0)
            return 0;
    return 1;
}

int ply__sv_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p,
                     int *no_hash)
{
    *no_hash = 0; /* a reproducible search has its own table anyway */
    const ply__sv_t *sv = ply__search_sv(run);
    if (!sv || !fits_role(run, sv, t, p)) return 0;
    const ply__task_t *j = &run->sched.tasks[t];
    if (!j->avoid || j->avoid != p->id_hash) return 1;
    /* a task that failed on this worker goes elsewhere when another may take it */
    for (const ply__peer_t *w = c->peers; w; w = w->next)
        if (w != p && w->id_hash != j->avoid && fits_role(run, sv, t, w)) return 0;
    return 1;
}

/* ------------------------------------------------------------------ settling */

/* Queues computation @role of job @idx unless it has started. */
static void activate(ply__run_t *run, size_t idx, int role)
{
    size_t t = ply__task_of(run, idx, role);
    if (run->sched.tasks[t].state == PLY__TASK_UNUSED) ply__task_queue(run, t);
}

void ply__sv_handed_out(ply_coordinator_t *c, ply__run_t *run, size_t t)
{
    (void)c;
    size_t idx = ply__job_of(run, t);
    if (run->sched.slots > 1 && ply__role_of(run, t) == PLY__FIRST &&
        ply__verify_selected(run, idx))
        activate(run, idx, PLY__CHECK);
}

static int line_same(const Ply__SearchLine *a, const Ply__SearchLine *b)
{
    if (a->multipv != b->multipv || a->has_score_cp != b->has_score_cp ||
        a->score_cp != b->score_cp || a->has_mate != b->has_mate || a->mate != b->mate ||
        a->bound != b->bound || a->depth != b->depth || a->seldepth != b->seldepth ||
        a->has_ply != b->has_ply || a->ply != b->ply || a->n_pv != b->n_pv)
        return 0;
    for (size_t i = 0; i < a->n_pv; i++)
        if (strcmp(a->pv[i], b->pv[i]) != 0) return 0;
    return 1;
}

/* Two reproducible searches agree exactly: every line and the node count (not the time). */
static int comp_same(const svcomp_t *a, const svcomp_t *b)
{
    if (a->res->nodes != b->res->nodes || a->res->n_lines != b->res->n_lines) return 0;
    for (size_t i = 0; i < a->res->n_lines; i++)
        if (!line_same(a->res->lines[i], b->res->lines[i])) return 0;
    return 1;
}

/* "W [identity] says 31 cp at depth 8, 12345 nodes, pv e2e4 e7e5 ..." into @buf. */
static void describe(char *buf, size_t len, const svcomp_t *k)
{
    const Ply__SearchLine *l = k->res->n_lines ? k->res->lines[0] : NULL;
    char score[48] = "no line", pv[80] = "";
    if (l && l->has_mate)
        snprintf(score, sizeof score, "mate %d", l->mate);
    else if (l)
        snprintf(score, sizeof score, "%d cp%s", l->score_cp,
                 l->bound == 1   ? " (lower bound)"
                 : l->bound == 2 ? " (upper bound)"
                                 : "");
    for (size_t i = 0; l && i < l->n_pv && i < 8; i++) {
        size_t o = strlen(pv);
        snprintf(pv + o, sizeof pv - o, "%s%s", i ? " " : "", l->pv[i]);
    }
    snprintf(buf, len, "%s [%s] says %s at depth %u, %" PRIu64 " nodes, pv %s%s", k->worker,
             k->identity, score, l ? l->depth : 0, k->res->nodes, pv,
             l && l->n_pv > 8 ? " ..." : "");
}

/* Adds a sanitised line to the report's details (the first PLY_MAX_MISMATCHES). */
static void note_detail(ply__sv_t *sv, const char *line)
{
    if (sv->ndetail >= PLY_MAX_MISMATCHES) return;
    char clean[PLY_MAX_TEXT + 1];
    ply_msg_text_sanitize(clean, sizeof clean, line);
    if ((sv->detail[sv->ndetail] = strdup(clean))) sv->ndetail++;
}

/* Job @idx is settled on computation @role, confirmed by computation @confirm (-1: none). */
static void accept_job(ply__run_t *run, ply__sv_t *sv, size_t idx, int role, int confirm)
{
    svjob_t *v = &sv->jobs[idx];
    svcomp_t *k = &v->comp[role];
    unsigned who = ply__ident_of(run, k->identity, k->worker);
    ply__verify_settled_by(
        run, idx, who,
        confirm >= 0 ? ply__ident_of(run, v->comp[confirm].identity, v->comp[confirm].worker)
                     : PLY__WHO_NONE,
        confirm >= 0 ? PLY__CONF_WORKER : PLY__CONF_NONE, 0);
    if (confirm >= 0) sv->matched++;
    Ply__SearchResult *res = k->res;
    k->res = NULL;
    int rc = ply__search_accept(run, idx, res, k->worker, k->identity);
    for (int r = 0; r < 3; r++) comp_clear(&v->comp[r]);
    if (rc < 0) ply__run_fail(run, rc, "run %" PRIu64 ": out of memory", run->id);
}

/* Drops computation @role of unsettled job @idx; @again: search it again (else not needed). */
static void drop_comp(ply_coordinator_t *c, ply__run_t *run, ply__sv_t *sv, size_t idx, int role,
                      int again)
{
    size_t t = ply__task_of(run, idx, role);
    comp_clear(&sv->jobs[idx].comp[role]);
    ply__result_drop(c, run, idx, role);
    if (run->sched.tasks[t].state == PLY__TASK_DONE ||
        (!again && run->sched.tasks[t].state == PLY__TASK_PENDING)) {
        if (again)
            ply__task_queue(run, t);
        else
            ply__task_unused(run, t); /* one in flight comes back and is dropped */
    }
}

/* The job's mismatch is void (one side of it is gone): its tie-break with it. */
static void void_mismatch(ply_coordinator_t *c, ply__run_t *run, ply__sv_t *sv, size_t idx)
{
    svjob_t *v = &sv->jobs[idx];
    if (!v->mismatch) return;
    v->mismatch = 0;
    sv->mismatches--;
    drop_comp(c, run, sv, idx, PLY__TIE, 0);
}

static void exclude(ply_coordinator_t *c, ply__run_t *run, ply__sv_t *sv, const char *identity,
                    const char *worker, const char *why);

/*
 * Settles job @idx when its computations allow (perft/verify.c's rules, without the rule engine:
 * it cannot search): the first two agree exactly: done; they differ: a third identity of the
 * same engine decides by majority, and the one outvoted is excluded. Starts what is missing
 * (@live; while restoring, ply__sv_resumed decides).
 */
static void settle(ply_coordinator_t *c, ply__run_t *run, ply__sv_t *sv, size_t idx, int live)
{
    svjob_t *v = &sv->jobs[idx];
    svcomp_t *k = v->comp;
    if (run->sched.settled[idx] || run->state != PLY__RUN_ACTIVE) return;
    if (!ply__verify_selected(run, idx)) {
        if (k[0].have) accept_job(run, sv, idx, 0, -1);
        return;
    }
    if (!k[0].have || !k[1].have) {
        if (k[0].have && live) activate(run, idx, PLY__CHECK);
        return;
    }
    char a[256], b[256], d[256], label[64];
    ply__search_job_label(run, idx, label, sizeof label);
    uint64_t job_id = run->sched.job_base + idx;
    if (!v->mismatch) {
        if (comp_same(&k[0], &k[1])) {
            accept_job(run, sv, idx, 0, 1);
            return;
        }
        describe(a, sizeof a, &k[0]);
        describe(b, sizeof b, &k[1]);
        v->mismatch = 1;
        sv->mismatches++;
        ply_warn("run %" PRIu64 ": job %" PRIu64 " (root move %s): %s; %s: a third search decides",
                 run->id, job_id, label, a, b);
    }
    if (!k[2].have) {
        if (live) activate(run, idx, PLY__TIE);
        return;
    }
    describe(a, sizeof a, &k[0]);
    describe(b, sizeof b, &k[1]);
    describe(d, sizeof d, &k[2]);
    int acc = comp_same(&k[2], &k[0]) ? 0 : comp_same(&k[2], &k[1]) ? 1 : -1;
    if (acc < 0) {
        ply__run_fail(run, PLY_EMISMATCH,
                      "job %" PRIu64 " (root move %s) quarantined: three reproducible searches "
                      "disagree: %s; %s; %s",
                      job_id, label, a, b, d);
        return;
    }
    int lost = 1 - acc;
    char line[3 * 256 + 320], why[2 * 256 + 256], who[PLY__IDENT_LEN], worker[PLY__ID_LEN];
    snprintf(line, sizeof line, "job %" PRIu64 " (root move %s): %s; %s; %s; %s outvoted", job_id,
             label, a, b, d, k[lost].worker);
    note_detail(sv, line);
    snprintf(why, sizeof why,
             "job %" PRIu64 " (root move %s): %s, but %s, confirmed by another identity of the "
             "same engine",
             job_id, label, lost ? b : a, acc ? b : a);
    snprintf(who, sizeof who, "%s", k[lost].identity);
    snprintf(worker, sizeof worker, "%s", k[lost].worker);
    sv->resolved++;
    accept_job(run, sv, idx, acc, 2);
    exclude(c, run, sv, who, worker, why);
}

/* A settled job whose line rests on an excluded identity: out of the answer, searched again. */
static void reopen(ply_coordinator_t *c, ply__run_t *run, ply__sv_t *sv, size_t idx)
{
    svjob_t *v = &sv->jobs[idx];
    ply__search_unaccept(run, idx);
    if (run->verif.acc[idx].kind == PLY__CONF_WORKER && sv->matched) sv->matched--;
    if (v->mismatch) { /* settled on a majority the excluded identity was part of */
        v->mismatch = 0;
        sv->mismatches--;
        sv->resolved--;
    }
    for (int r = PLY__CHECK; r <= PLY__TIE; r++) drop_comp(c, run, sv, idx, r, 0);
    drop_comp(c, run, sv, idx, PLY__FIRST, 1);
}

/* Unsettled job @j: what @identity searched of it goes, the others stay and are compared
 * afresh. */
static void forget(ply_coordinator_t *c, ply__run_t *run, size_t j, const char *identity)
{
    ply__sv_t *sv = ply__search_sv(run);
    svjob_t *v = &sv->jobs[j];
    int mine = 0;
    for (int r = 0; r < 3; r++)
        mine |= v->comp[r].have && strcmp(v->comp[r].identity, identity) == 0;
    if (!mine) return;
    for (int r = 0; r < 3; r++)
        if (v->comp[r].have && strcmp(v->comp[r].identity, identity) == 0)
            drop_comp(c, run, sv, j, r, r != PLY__TIE);
    void_mismatch(c, run, sv, j);
    settle(c, run, sv, j, 1);
}

static void reopen_settled(ply_coordinator_t *c, ply__run_t *run, size_t j)
{
    reopen(c, run, ply__search_sv(run), j);
}

static const ply__reopen_ops_t reopen_ops = {reopen_settled, forget};

static void exclude(ply_coordinator_t *c, ply__run_t *run, ply__sv_t *sv, const char *identity,
                    const char *worker, const char *why)
{
    (void)sv;
    long again = ply__exclude(c, run, identity, worker, why, &reopen_ops);
    if (again > 0)
        ply_info("run %" PRIu64 ": %ld line(s) resting on %s are searched again", run->id, again,
                 worker);
}

void ply__sv_take(ply_coordinator_t *c, ply__run_t *run, size_t t, Ply__SearchResult *res,
                  const char *worker, const char *identity, const char *engine_id, uint32_t attempt,
                  int live)
{
    ply__sv_t *sv = ply__search_sv(run);
    size_t idx = ply__job_of(run, t);
    int role = (int)ply__role_of(run, t);
    ply__task_done(run, t);
    if (!sv || run->sched.settled[idx] || role > PLY__TIE) {
        ply__search_result__free_unpacked(res, NULL);
        return;
    }
    /* restored: a check chosen before the restart (the choice is not stored) */
    if (role > PLY__FIRST) ply__verify_select_late(run, idx);
    svjob_t *v = &sv->jobs[idx];
    if ((live && role == PLY__TIE && !v->mismatch) || v->comp[role].have) {
        /* a tie-break an exclusion made void, or a second result for one role: dropped */
        ply__search_result__free_unpacked(res, NULL);
        if (role == PLY__TIE && !v->mismatch) {
            ply__task_unused(run, t);
            ply__result_drop(c, run, idx, PLY__TIE);
        }
        return;
    }
    svcomp_t *k = &v->comp[role];
    k->have = 1;
    k->res = res;
    k->attempt = attempt;
    snprintf(k->worker, sizeof k->worker, "%.*s", (int)sizeof k->worker - 1, worker);
    snprintf(k->identity, sizeof k->identity, "%s", identity);
    snprintf(k->engine_id, sizeof k->engine_id, "%s", engine_id ? engine_id : "");
    if (live) settle(c, run, sv, idx, 1);
}

void ply__sv_resumed(ply_coordinator_t *c, ply__run_t *run)
{
    ply__sv_t *sv = ply__search_sv(run);
    if (!sv) return;
    for (size_t i = 0; i < run->sched.njobs && run->state == PLY__RUN_ACTIVE; i++) {
        settle(c, run, sv, i, 0);
        if (run->sched.settled[i] || !ply__verify_selected(run, i)) continue;
        /* a check or tie-break would need the engine_id of a search read back: not stored */
        svjob_t *v = &sv->jobs[i];
        if (v->mismatch) v->mismatch = 0, sv->mismatches--;
        for (int r = PLY__CHECK; r <= PLY__TIE; r++) drop_comp(c, run, sv, i, r, 0);
        if (v->comp[PLY__FIRST].have) drop_comp(c, run, sv, i, PLY__FIRST, 1);
    }
}

/* ------------------------------------------------------------- bounded waits */

void ply__sv_tick(ply_coordinator_t *c, ply__run_t *run, uint64_t now)
{
    ply__sv_t *sv = ply__search_sv(run);
    if (!sv || !c->cfg.worker_wait_ms) return;
    for (size_t q = 0; q < run->sched.rq_len && run->state == PLY__RUN_ACTIVE; q++) {
        size_t t = run->sched.requeue[run->sched.rq_head + q];
        if (t >= run->sched.ntasks || run->sched.tasks[t].state != PLY__TASK_PENDING) continue;
        int role = (int)ply__role_of(run, t);
        size_t idx = ply__job_of(run, t);
        if (role == PLY__FIRST ||
            ply_elapsed_ms(now, run->sched.tasks[t].queued_ms) <= c->cfg.worker_wait_ms ||
            ply__anyone_eligible(c, run, t))
            continue;
        const svcomp_t *k = sv->jobs[idx].comp;
        char a[256] = "", b[256] = "", label[64];
        if (k[0].have) describe(a, sizeof a, &k[0]);
        if (k[1].have) describe(b, sizeof b, &k[1]);
        ply__search_job_label(run, idx, label, sizeof label);
        if (role == PLY__CHECK)
            ply__run_fail(run, PLY_EMISMATCH,
                          "job %" PRIu64 " (root move %s) was chosen for a check (%s), but no "
                          "second worker of the same engine (engine id \"%s\") came within %u "
                          "ms: the run is not reported as verified%s%s",
                          run->sched.job_base + idx, label, run->verif.text,
                          k[0].have ? k[0].engine_id : "?", c->cfg.worker_wait_ms, a[0] ? "; " : "",
                          a);
        else
            ply__run_fail(run, PLY_EMISMATCH,
                          "job %" PRIu64 " (root move %s) quarantined: %s; %s; no third worker "
                          "of the same engine came within %u ms to settle it",
                          run->sched.job_base + idx, label, a, b, c->cfg.worker_wait_ms);
    }
}

void ply__sv_waiting(const ply__run_t *run, size_t t, char *buf, size_t len)
{
    ply__sv_t *sv = ply__search_sv(run);
    size_t role = ply__role_of(run, t), idx = ply__job_of(run, t);
    buf[0] = '\0';
    if (!sv || idx >= sv->njobs || (role != PLY__CHECK && role != PLY__TIE)) return;
    const svcomp_t *k = sv->jobs[idx].comp;
    char label[64];
    ply__search_job_label(run, idx, label, sizeof label);
    snprintf(buf, len,
             "a %s worker of engine \"%s\" (another identity than the one%s that searched it) "
             "to %s job %" PRIu64 " (root move %s; --verify %s)",
             role == PLY__CHECK ? "second" : "third", k[0].have ? k[0].engine_id : "?",
             role == PLY__CHECK ? "" : "s", role == PLY__CHECK ? "check" : "settle",
             run->sched.job_base + idx, label, run->verif.text);
}

/* -------------------------------------------------------------------- report */

void ply__sv_report(const ply__run_t *run, ply__sv_t *sv, Ply__Verification *v)
{
    *v = (Ply__Verification)PLY__VERIFICATION__INIT;
    snprintf(sv->mode, sizeof sv->mode, "%s", run->verif.text[0] ? run->verif.text : "none");
    for (size_t i = 0; i < sv->nexclusion; i++) free(sv->exclusion[i]);
    sv->nexclusion = 0;
    sv->nexclusion = ply__exclusion_lines(run, sv->exclusion, PLY_MAX_EXCLUSIONS);
    uint32_t ids = ply__identities_used(run);
    char s[PLY_MAX_TEXT * 2];
    int o = snprintf(s, sizeof s,
                     "%u of %zu jobs selected (%s), each searched reproducibly (one thread, a "
                     "fresh %d MiB table); %u matched exactly by another identity of the same "
                     "engine; lines from %u distinct identit%s",
                     run->verif.selected, run->sched.njobs, sv->mode, PLY_SEARCH_REPRO_HASH_MIB,
                     sv->matched, ids, ids == 1 ? "y" : "ies");
    if (sv->mismatches && o > 0 && (size_t)o < sizeof s)
        o += snprintf(s + o, sizeof s - (size_t)o,
                      "; %u mismatch%s, %u settled by a majority of three identities",
                      sv->mismatches, sv->mismatches == 1 ? "" : "es", sv->resolved);
    if (run->verif.nexcluded && o > 0 && (size_t)o < sizeof s)
        snprintf(s + o, sizeof s - (size_t)o,
                 "; %u worker%s caught wrong and excluded, %u job%s "
                 "searched again",
                 run->verif.nexcluded, run->verif.nexcluded == 1 ? "" : "s", run->verif.recomputed,
                 run->verif.recomputed == 1 ? "" : "s");
    ply_msg_text_sanitize(sv->summary, sizeof sv->summary, s);
    v->mode = sv->mode;
    v->has_jobs = 1, v->jobs = (uint32_t)run->sched.njobs;
    v->has_jobs_selected = 1, v->jobs_selected = run->verif.selected;
    v->has_checked_by_worker = 1, v->checked_by_worker = sv->matched;
    v->has_mismatches = 1, v->mismatches = sv->mismatches;
    v->has_resolved = 1, v->resolved = sv->resolved;
    v->has_identities = 1, v->identities = ids;
    v->has_excluded = 1, v->excluded = run->verif.nexcluded;
    v->has_recomputed = 1, v->recomputed = run->verif.recomputed;
    v->summary = sv->summary;
    v->n_exclusion = sv->nexclusion, v->exclusion = sv->exclusion;
    v->n_detail = sv->ndetail, v->detail = sv->detail;
}
