/*
 * The verification service (verification.h): task geometry and allocation, the secret wire
 * ids and the CSPRNG sample, identities and their exclusion, the first-computation rule and
 * the wait of a run left with only workers caught wrong. Every job kind calls it; none of it
 * knows what a computation of a kind is.
 */
#include "verification.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "peers.h"
#include "core.h"
#include "tasks.h"
#include "runs.h"
#include "util/error.h"
#include "util/log.h"
#include "util/random.h"
#include "util/time.h"

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

int ply__verify_selected(const ply__run_t *run, size_t idx)
{
    if (run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_ALL) return 1;
    if (run->verif.mode != PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE) return 0;
    return run->verif.select && run->verif.select[idx];
}

void ply__verify_select_late(ply__run_t *run, size_t idx)
{
    if (run->verif.mode != PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE || run->verif.select[idx]) return;
    run->verif.select[idx] = 1;
    run->verif.selected++;
}

/*
 * A sample's jobs: each job independently with probability P, from 32
 * random bits per job (r x 10^6 / 2^32 < ppm). Nothing a worker sees or
 * chooses (job order, size, position, its own answers) tells which: a liar
 * lying on k jobs of a run is caught with probability 1 - (1 - P)^k.
 */
static int choose_sample(ply__run_t *run)
{
    size_t njobs = run->sched.njobs;
    uint32_t *r = malloc((njobs ? njobs : 1) * sizeof *r);
    if (!r) return PLY_ENOMEM;
    int rc = ply_random_bytes(r, njobs * sizeof *r);
    for (size_t i = 0; rc == 0 && i < njobs; i++)
        run->verif.select[i] = ((uint64_t)r[i] * PLY_PPM >> 32) < run->verif.ppm;
    free(r);
    return rc;
}

uint64_t ply__wire_id(const ply__run_t *run, size_t t)
{
    return run->sched.job_base + (run->verif.wire ? run->verif.wire[t] : t);
}

int64_t ply__task_of_wire(const ply__run_t *run, uint64_t id)
{
    if (id < run->sched.job_base || id - run->sched.job_base >= run->sched.ntasks) return -1;
    size_t w = (size_t)(id - run->sched.job_base);
    return (int64_t)(run->verif.unwire ? run->verif.unwire[w] : w);
}

/*
 * A uniformly random permutation of the run's task ids (Fisher-Yates, 64
 * random bits per step: the modulo's bias is below 2^-32 for any run), and
 * its inverse. Without it a task's id is role x njobs + job: a worker would
 * see a check's id in another range than the first computations'.
 */
static int permute_tasks(ply__run_t *run)
{
    size_t n = run->sched.ntasks;
    uint64_t *r = malloc((n ? n : 1) * sizeof *r);
    run->verif.wire = malloc((n ? n : 1) * sizeof *run->verif.wire);
    run->verif.unwire = malloc((n ? n : 1) * sizeof *run->verif.unwire);
    if (!r || !run->verif.wire || !run->verif.unwire) {
        free(r);
        return PLY_ENOMEM;
    }
    int rc = ply_random_bytes(r, n * sizeof *r);
    for (size_t i = 0; i < n; i++) run->verif.wire[i] = (uint32_t)i;
    for (size_t i = n; rc == 0 && i > 1; i--) {
        size_t k = (size_t)(r[i - 1] % i);
        uint32_t x = run->verif.wire[i - 1];
        run->verif.wire[i - 1] = run->verif.wire[k];
        run->verif.wire[k] = x;
    }
    for (size_t i = 0; i < n; i++) run->verif.unwire[run->verif.wire[i]] = (uint32_t)i;
    free(r);
    return rc;
}

/* The draws of a run whose tasks are sized. */
static int draw(ply__run_t *run)
{
    for (size_t t = run->sched.njobs; t < run->sched.ntasks; t++) ply__task_unused(run, t);
    if (run->sched.slots > 1) {
        int rc = permute_tasks(run);
        if (rc < 0) return rc;
    }
    if (run->verif.mode == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE) {
        int rc = choose_sample(run);
        if (rc < 0) return rc;
    }
    run->verif.selected = 0;
    for (size_t i = 0; i < run->sched.njobs; i++)
        run->verif.selected += (uint32_t)ply__verify_selected(run, i);
    return 0;
}

int ply__verify_tasks(ply__run_t *run, uint32_t slots)
{
    size_t njobs = run->sched.njobs;
    int rc = ply__tasks_alloc(run, slots);
    run->verif.select = calloc(njobs ? njobs : 1, 1);
    run->verif.acc = calloc(njobs ? njobs : 1, sizeof *run->verif.acc);
    if (rc < 0 || !run->verif.select || !run->verif.acc) return PLY_ENOMEM;
    return draw(run);
}

void ply__verify_mode_set(ply__run_t *run, int mode, uint32_t ppm)
{
    run->verif.mode = mode;
    run->verif.ppm = ppm;
    ply__verify_mode_text(mode, ppm, run->verif.text, sizeof run->verif.text);
}

void ply__verify_settled_by(ply__run_t *run, size_t idx, unsigned who, unsigned who2, int kind,
                            uint64_t nodes)
{
    ply__acc_t *a = &run->verif.acc[idx];
    a->who = (uint16_t)who;
    a->who2 = (uint16_t)who2;
    a->kind = (uint8_t)kind;
    a->nodes = nodes;
}

void ply__verify_free(ply__run_t *run)
{
    free(run->verif.select);
    free(run->verif.wire);
    free(run->verif.unwire);
    free(run->verif.acc);
    for (unsigned i = 0; i < run->verif.nidents; i++) free(run->verif.idents[i].why);
    free(run->verif.idents);
    run->verif.select = NULL;
    run->verif.wire = run->verif.unwire = NULL;
    run->verif.acc = NULL;
    run->verif.idents = NULL;
    run->verif.nidents = run->verif.capidents = 0;
}

/* ------------------------------------------------------------- identities */

unsigned ply__ident_of(ply__run_t *run, const char *identity, const char *worker)
{
    unsigned i = 0;
    while (i < run->verif.nidents && strcmp(run->verif.idents[i].identity, identity) != 0) i++;
    if (i == run->verif.nidents) {
        if (i >= PLY__WHO_ARBITER) return PLY__WHO_NONE;
        if (i == run->verif.capidents) {
            unsigned cap = run->verif.capidents ? 2 * run->verif.capidents : 8;
            ply__ident_t *a = realloc(run->verif.idents, cap * sizeof *a);
            if (!a) return PLY__WHO_NONE;
            run->verif.idents = a;
            run->verif.capidents = cap;
        }
        memset(&run->verif.idents[i], 0, sizeof run->verif.idents[i]);
        snprintf(run->verif.idents[i].identity, sizeof run->verif.idents[i].identity, "%s",
                 identity);
        run->verif.nidents++;
    }
    if (worker)
        snprintf(run->verif.idents[i].worker, sizeof run->verif.idents[i].worker, "%s", worker);
    return i;
}

/* Marks @identity caught wrong; 1 when newly (its tasks withdrawn), 0 when it already was or
 * memory is short (the run fails). */
static int mark_excluded(ply_coordinator_t *c, ply__run_t *run, const char *identity,
                         const char *worker, const char *why)
{
    unsigned i = ply__ident_of(run, identity, worker);
    if (i == PLY__WHO_NONE) {
        ply__run_fail(run, PLY_ENOMEM, "out of memory excluding %s (%s): %s", worker, identity,
                      why);
        return 0;
    }
    ply__ident_t *id = &run->verif.idents[i];
    if (id->excluded) return 0;
    id->excluded = 1;
    id->why = strdup(why);
    run->verif.nexcluded++;
    ply_warn("run %" PRIu64 ": worker %s (%s) excluded from the run: %s", run->id, worker, identity,
             why);
    ply__withdraw(c, run, identity);
    return 1;
}

long ply__exclude(ply_coordinator_t *c, ply__run_t *run, const char *identity, const char *worker,
                  const char *why, const ply__reopen_ops_t *ops)
{
    if (!mark_excluded(c, run, identity, worker, why)) return -1;
    unsigned i = ply__ident_of(run, identity, worker); /* known now: its computations' index */
    long again = 0;
    /* first every settled job resting on it leaves the answer: until then the run cannot end */
    for (size_t j = 0; j < run->sched.njobs; j++) {
        const ply__acc_t *a = &run->verif.acc[j];
        if (!run->sched.settled[j] || a->who == PLY__WHO_ARBITER || a->who2 == PLY__WHO_ARBITER)
            continue; /* the rule engine's count or confirmation: right */
        if (a->who != i && a->who2 != i) continue;
        run->verif.recomputed++;
        again++;
        ops->reopen(c, run, j);
    }
    for (size_t j = 0; j < run->sched.njobs && run->state == PLY__RUN_ACTIVE; j++)
        if (!run->sched.settled[j]) ops->forget(c, run, j, identity);
    return again;
}

int ply__excluded(const ply__run_t *run, const char *identity)
{
    for (unsigned i = 0; run->verif.nexcluded && i < run->verif.nidents; i++)
        if (run->verif.idents[i].excluded && strcmp(run->verif.idents[i].identity, identity) == 0)
            return 1;
    return 0;
}

void ply__excluded_text(const ply__run_t *run, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned i = 0; i < run->verif.nidents; i++) {
        const ply__ident_t *id = &run->verif.idents[i];
        if (!id->excluded) continue;
        size_t o = strlen(buf);
        snprintf(buf + o, len - o, "%s%s (%s): %s", o ? "; " : "", id->worker, id->identity,
                 id->why ? id->why : "caught wrong");
    }
}

uint32_t ply__identities_used(const ply__run_t *run)
{
    uint32_t n = 0;
    uint8_t *seen = run->verif.nidents ? calloc(run->verif.nidents, 1) : NULL;
    if (!seen) return 0;
    for (size_t j = 0; j < run->sched.njobs; j++) {
        if (!run->sched.settled[j]) continue;
        const uint16_t w[2] = {run->verif.acc[j].who, run->verif.acc[j].who2};
        for (int i = 0; i < 2; i++)
            if (w[i] < run->verif.nidents && !run->verif.idents[w[i]].excluded && !seen[w[i]]) {
                seen[w[i]] = 1; /* a flag, never a counter: it must not wrap */
                n++;
            }
    }
    free(seen);
    return n;
}

size_t ply__exclusion_lines(const ply__run_t *run, char **out, size_t max)
{
    size_t n = 0;
    for (unsigned i = 0; i < run->verif.nidents && n < max; i++) {
        const ply__ident_t *id = &run->verif.idents[i];
        if (!id->excluded) continue;
        char line[PLY__WHY_LEN + 256], clean[PLY_MAX_TEXT + 1];
        snprintf(line, sizeof line, "%s (%s) excluded: %s", id->worker, id->identity,
                 id->why ? id->why : "caught wrong");
        ply_msg_text_sanitize(clean, sizeof clean, line);
        if (!(out[n] = strdup(clean))) break;
        n++;
    }
    return n;
}

/* ------------------------------------------------------------ eligibility */

int ply__eligible_first(ply_coordinator_t *c, const ply__run_t *run, size_t t, const ply__peer_t *p)
{
    if (p->probation) return 0;
    if (run->verif.nexcluded && ply__excluded(run, p->identity))
        return 0; /* caught wrong in this run */
    const ply__task_t *j = &run->sched.tasks[t];
    if (!j->avoid || j->avoid != p->id_hash) return 1; /* the common case, at once */
    /* a task that failed on this worker goes elsewhere when another worker is here */
    for (const ply__peer_t *w = c->peers; w; w = w->next)
        if (w != p && w->kind == PLY__PEER_WORKER && !w->probation &&
            run->kind->worker_fits(run, w) &&
            !(run->verif.nexcluded && ply__excluded(run, w->identity)) && w->id_hash != j->avoid)
            return 0;
    return 1;
}

int ply__anyone_eligible(ply_coordinator_t *c, const ply__run_t *run, size_t t)
{
    int no_hash;
    for (const ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER && run->kind->eligible(c, run, t, p, &no_hash)) return 1;
    return 0;
}

void ply__verify_wait_text(const ply__run_t *run, size_t t, char *buf, size_t len)
{
    size_t role = ply__role_of(run, t), idx = ply__job_of(run, t);
    snprintf(buf, len, "%s to %s job %" PRIu64 " (--verify %s)",
             role == PLY__CHECK ? "another worker (another identity and seed)"
             : role == PLY__TIE ? "a third worker"
                                : "a worker that may take it",
             role == PLY__CHECK ? "check"
             : role == PLY__TIE ? "settle"
                                : "compute",
             run->sched.job_base + idx, run->verif.text);
}

/* ------------------------------------------------------------ bounded waits */

/* 1 when a worker that may compute for @run (not excluded from it) is connected. */
static int honest_connected(ply_coordinator_t *c, const ply__run_t *run)
{
    for (const ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER && !ply__excluded(run, p->identity)) return 1;
    return 0;
}

void ply__verify_tick(ply_coordinator_t *c, uint64_t now)
{
    for (ply__run_t *run = c->runs; run; run = run->next) {
        if (run->state != PLY__RUN_ACTIVE) continue;
        /* every connected worker caught wrong: nobody honest left to settle the jobs */
        if (run->verif.nexcluded && c->nworkers && !honest_connected(c, run)) {
            if (!run->verif.no_honest_ms) run->verif.no_honest_ms = now;
            if (c->cfg.worker_wait_ms &&
                ply_elapsed_ms(now, run->verif.no_honest_ms) > c->cfg.worker_wait_ms) {
                char text[PLY__WHY_LEN];
                ply__excluded_text(run, text, sizeof text);
                ply__run_fail(run, PLY_EMISMATCH,
                              "no worker that was not caught wrong came within %u ms to finish "
                              "the run; excluded: %s",
                              c->cfg.worker_wait_ms, text);
                continue;
            }
        } else {
            run->verif.no_honest_ms = 0;
        }
        run->kind->verify_tick(c, run, now); /* the kind's own waits */
    }
}
