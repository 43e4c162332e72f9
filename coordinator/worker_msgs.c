/*
 * Messages from workers: HELLO (a worker joins; which worker id belongs to
 * which identity), READY (credit), RESULT (its generic checks, then the
 * run's kind takes it: kind.h), ERROR, BYE and HEARTBEAT (its node count is
 * the proof of progress).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "peers.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

void ply__on_hello(ply_coordinator_t *c, zframe_t *rid, const char *identity, ply__peer_t *p,
                   const Ply__Hello *h)
{
    if (h->protocol != PLY_PROTOCOL_VERSION) {
        ply__count(c, PLY__CNT_MALFORMED);
        ply__send_error(c, rid, PLY_EVERSION, 0,
                        "protocol %u not supported: this coordinator speaks %d (%s)", h->protocol,
                        PLY_PROTOCOL_VERSION, PLY_PROTOCOL_ID);
        return;
    }
    if (p && p->kind != PLY__PEER_WORKER) {
        ply__count(c, PLY__CNT_MALFORMED);
        ply__send_error(c, rid, PLY_ESTATE, 0, "HELLO from a peer that has spoken as a client");
        return;
    }
    /* A worker id belongs to one identity. The same key on a new connection is the worker
     * reconnecting: its old session is over. Another identity may not take it over (nor its
     * jobs, nor its record): refused, and asked to say HELLO again later, which succeeds once
     * the holder has left or been declared dead (a worker without CURVE that reconnects waits
     * for that, since nothing proves the new connection is the old worker). */
    for (ply__peer_t *q = c->peers; q; q = q->next)
        if (q != p && q->kind == PLY__PEER_WORKER && strcmp(q->worker_id, h->worker_id) == 0) {
            if (strcmp(q->identity, identity) != 0 || strncmp(identity, "curve:", 6) != 0) {
                ply__count(c, PLY__CNT_MALFORMED);
                ply_warn("refused HELLO of worker id %s from %s: it is held by %s", h->worker_id,
                         identity, q->identity);
                Ply__Error e = PLY__ERROR__INIT;
                char line[PLY__WHY_LEN];
                snprintf(line, sizeof line,
                         "worker id %s is held by another connected worker: choose another id, "
                         "or wait until it leaves",
                         h->worker_id);
                e.has_code = 1, e.code = PLY_EAUTH; /* a refusal, told apart from "send HELLO" */
                e.message = line;
                e.has_say_hello = 1, e.say_hello = 1;
                ply_msg_t m = PLY__MESSAGE__INIT;
                m.body_case = PLY__MESSAGE__BODY_ERROR;
                m.error = &e;
                ply__send_msg(c, rid, &m);
                if (p) ply__worker_remove(c, p, 0, "said HELLO with a worker id held by another");
                return;
            }
            ply__worker_remove(c, q, 0, "reconnected");
            break;
        }
    if (p) {
        ply__worker_release_jobs(c, p, 0, "worker said HELLO again");
    } else if (!(p = ply__peer_add(c, rid, identity, PLY__PEER_WORKER))) {
        ply__send_error(c, rid, PLY_ENOMEM, 0, "coordinator out of memory");
        return;
    }
    snprintf(p->name, sizeof p->name, "worker %s", h->worker_id);
    snprintf(p->worker_id, sizeof p->worker_id, "%s", h->worker_id);
    p->threads = h->threads;
    p->hash_mib = h->hash_mib;
    p->seed = h->has_zobrist_seed ? h->zobrist_seed : 0;
    /* what it runs: a worker that does not say is an older one, perft only */
    p->kinds = h->n_kinds ? 0 : 1u << ply__kind_default()->id;
    p->nkind_list = h->n_kinds ? 0 : 1;
    p->kind_list[0] = (uint32_t)ply__kind_default()->id;
    for (size_t i = 0; i < h->n_kinds && i < PLY_MAX_KINDS; i++) { /* the envelope bounds it */
        /* any number passes the envelope; one of 32 or more is no kind of the registry */
        if (h->kinds[i] < 32) p->kinds |= 1u << h->kinds[i];
        p->kind_list[p->nkind_list++] = h->kinds[i];
    }
    snprintf(p->engine, sizeof p->engine, "%s", h->engine ? h->engine : "");
    snprintf(p->engine_id, sizeof p->engine_id, "%s", h->engine_id ? h->engine_id : "");
    p->id_hash = ply__hash_id(p->worker_id);
    p->progress_ms = ply_time_ms();
    p->hb_nodes = 0;
    p->probation = 0;
    for (unsigned i = 0; i < c->nhung; i++)
        if (c->hung[i] == p->id_hash) { /* it hung before: a job only once it counts again */
            p->probation = 1;
            p->probation_nodes = c->hung_nodes[i];
            p->probation_until_ms = ply_time_ms() + c->cfg.hang_ms;
        }
    ply__count(c, PLY__CNT_WORKERS_JOINED);
    char runs[128];
    ply__kinds_text(p->kinds, " ", runs, sizeof runs);
    ply_info("%s joined as %s: %u threads, %u MiB hash, build %s, zobrist seed %u, checksum "
             "%016" PRIx64 "%s; runs%s%s%s",
             p->name, p->identity, h->threads, h->hash_mib, h->build ? h->build : "?", p->seed,
             h->zobrist_checksum, p->probation ? " (hung before: on probation)" : "", runs,
             p->engine[0] ? ", engine " : "", p->engine);
    Ply__Welcome w = PLY__WELCOME__INIT;
    w.has_heartbeat_ms = 1, w.heartbeat_ms = c->cfg.heartbeat_ms;
    w.has_liveness = 1, w.liveness = c->cfg.liveness;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_WELCOME;
    m.welcome = &w;
    ply__send_msg(c, rid, &m);
}

static void on_ready(ply__peer_t *p, const Ply__Ready *r)
{
    uint64_t room = PLY_MAX_CREDIT > p->ninflight ? PLY_MAX_CREDIT - p->ninflight : 0;
    uint64_t credit = (uint64_t)p->credit + r->credit;
    p->credit = (uint32_t)(credit < room ? credit : room);
}

static void ignore_result(ply_coordinator_t *c, ply__peer_t *p, const Ply__Result *r,
                          const char *what)
{
    ply__count(c, PLY__CNT_RESULTS_IGNORED);
    /* a superseded attempt is normal after a lease expired, and so is a job of a run that
     * ended while the worker computed it (a canceled or deepening run's last jobs); a job never
     * handed out is not */
    ply_log(strcmp(what, "unknown") == 0 ? PLY_LOG_WARN : PLY_LOG_INFO,
            "ignoring RESULT from %s for %s job %" PRIu64 " attempt %u", p->name, what, r->job_id,
            r->attempt);
}

/*
 * A worker's RESULT: the generic checks (a known task, its current attempt,
 * from the worker that holds it), the worker's figures, then the run's kind
 * takes it (checks it, stores it, folds it into the answer). A result from a
 * superseded attempt or for an unknown task is ignored and logged.
 */
static void on_result(ply_coordinator_t *c, ply__peer_t *p, const Ply__Result *r)
{
    size_t idx;
    ply__run_t *run = ply__task_find(c, r->job_id, &idx);
    if (!run) {
        ply__inflight_remove(p, r->job_id);
        ignore_result(c, p, r, r->job_id < c->next_job_base ? "an ended run's" : "unknown");
        return;
    }
    const ply__task_t *j = &run->sched.tasks[idx];
    if (j->state != PLY__TASK_INFLIGHT || j->attempt != r->attempt || j->worker != p) {
        ignore_result(c, p, r, "a superseded attempt of");
        return;
    }
    ply__inflight_remove(p, r->job_id);
    p->jobs_done++;
    p->nodes += run->kind->result_nodes(r); /* 128-bit: cannot wrap */
    if (!p->nodes_owner[0] && !p->nodes_mixed)
        snprintf(p->nodes_owner, sizeof p->nodes_owner, "%s", run->owner[0] ? run->owner : "-");
    else if (strcmp(p->nodes_owner, run->owner[0] ? run->owner : "-") != 0)
        p->nodes_mixed = 1;
    p->busy_us += r->time_us;
    p->progress_ms = ply_time_ms();
    run->kind->take_result(c, run, idx, p, r); /* checked, stored, folded into the answer */
}

void ply__on_refused_result(ply_coordinator_t *c, ply__peer_t *p, uint64_t job_id, uint32_t attempt,
                            const char *why)
{
    size_t idx;
    ply__run_t *run = p->kind == PLY__PEER_WORKER ? ply__task_find(c, job_id, &idx) : NULL;
    if (!run || run->sched.tasks[idx].state != PLY__TASK_INFLIGHT ||
        run->sched.tasks[idx].worker != p || run->sched.tasks[idx].attempt != attempt)
        return;
    ply__inflight_remove(p, job_id);
    p->progress_ms = ply_time_ms();
    run->kind->refused_result(c, run, idx, p, why);
}

static void on_worker_error(ply_coordinator_t *c, ply__peer_t *p, const Ply__Error *e)
{
    size_t idx;
    ply__run_t *run = e->has_job_id ? ply__task_find(c, e->job_id, &idx) : NULL;
    if (!run) {
        ply_warn("%s reports %s: %s", p->name, ply_err_name(e->code), e->message);
        return;
    }
    const ply__task_t *j = &run->sched.tasks[idx];
    if (j->state != PLY__TASK_INFLIGHT || j->worker != p ||
        (e->has_attempt && e->attempt != j->attempt)) {
        ply_info("%s reports an error on a job it does not hold (%" PRIu64 "): %s", p->name,
                 e->job_id, e->message);
        return;
    }
    ply__inflight_remove(p, e->job_id);
    char reason[PLY__WHY_LEN];
    snprintf(reason, sizeof reason, "%s: %s", p->name, e->message);
    ply__task_requeue(c, run, idx, 1, reason);
}

/* An Error telling a worker this coordinator does not know it that it must say HELLO again. */
static void say_hello(ply_coordinator_t *c, zframe_t *rid, const char *line)
{
    Ply__Error e = PLY__ERROR__INIT;
    e.has_code = 1, e.code = PLY_ESTATE;
    e.message = (char *)line;
    e.has_say_hello = 1, e.say_hello = 1;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_ERROR;
    m.error = &e;
    ply__send_msg(c, rid, &m);
}

void ply__on_worker_message(ply_coordinator_t *c, zframe_t *rid, ply__peer_t *p, ply_msg_t *msg)
{
    if (!p || p->kind != PLY__PEER_WORKER) {
        if (msg->body_case == PLY__MESSAGE__BODY_HEARTBEAT) {
            /* A worker this coordinator does not know (it restarted, or dropped the
             * worker) hears at once that it must say HELLO; a client's keepalive
             * carries no node count. */
            if (!p && msg->heartbeat->has_nodes) say_hello(c, rid, "unknown worker: send HELLO");
            return;
        }
        if (msg->body_case == PLY__MESSAGE__BODY_BYE) {
            if (p) ply__peer_unlink(c, p);
            return;
        }
        ply__count(c, PLY__CNT_MALFORMED);
        char line[96];
        snprintf(line, sizeof line, "%s before HELLO: send HELLO first", ply_msg_type_name(msg));
        say_hello(c, rid, line);
        return;
    }
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_READY:
        on_ready(p, msg->ready);
        break;
    case PLY__MESSAGE__BODY_RESULT:
        on_result(c, p, msg->result); /* its shape is the run's kind's to check */
        break;
    case PLY__MESSAGE__BODY_ERROR:
        on_worker_error(c, p, msg->error);
        break;
    case PLY__MESSAGE__BODY_BYE: {
        char reason[PLY__WHY_LEN];
        snprintf(reason, sizeof reason, "left (%s)", msg->bye->reason ? msg->bye->reason : "bye");
        ply__worker_remove(c, p, 0, reason);
        break;
    }
    case PLY__MESSAGE__BODY_HEARTBEAT: {
        /* the node count is the worker's proof of progress (hang detection) */
        const Ply__Heartbeat *hb = msg->heartbeat;
        uint64_t now = ply_time_ms();
        p->hb_ms = now;
        if (hb->has_nodes && (!p->rate_ms || hb->nodes < p->rate_nodes)) { /* first, or restarted */
            p->rate_nodes = hb->nodes, p->rate_ms = now;
        } else if (hb->has_nodes && now - p->rate_ms >= PLY__RATE_MIN_MS) {
            p->nps = (double)(hb->nodes - p->rate_nodes) * 1000.0 / (double)(now - p->rate_ms);
            p->rate_nodes = hb->nodes, p->rate_ms = now;
        }
        if (hb->has_nodes && hb->nodes != p->hb_nodes) {
            p->hb_nodes = hb->nodes;
            p->progress_ms = ply_time_ms();
            if (p->probation && hb->nodes > p->probation_nodes) {
                p->probation = 0;
                ply_info("%s counts again: jobs resume", p->name);
            }
        }
        break;
    }
    default: /* PROGRESS: liveness only (last_seen already updated) */
        break;
    }
}
