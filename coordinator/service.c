/*
 * The coordinator service (coordinator.h): one libuv loop owning one ROUTER
 * socket, the runs, the workers and the spawned worker processes. This file
 * is the loop: receiving and routing messages (ply__pump), the timers
 * (liveness, leases, waiting for workers, heartbeats, progress) and the
 * lifecycle (new, run, stop, destroy). core.h lists the other modules and
 * the header of each.
 *
 * Ownership (plain structs: core.h, peers.h, runs.h, tasks.h):
 *   coordinator -> peers   (linked list; workers and clients, keyed by routing id)
 *               -> runs    (FIFO list of accepted runs: splitting, then active)
 *               -> finished (the last FINISHED_KEEP answers, for RESULT_REQUEST;
 *                           older ones come from the state file)
 *               -> store   (store.h: the state file, when configured)
 *   run -> its kind (kind.h), one ply__task_t per task (a computation of a
 *          job, tasks.h), the queue; its kind's state behind one opaque
 *          pointer (run->kind_state: perft/perft.h, search/kind.c).
 *   worker peer -> the ids of the tasks it holds (inflight).
 *
 * Durability: a run is stored with its plan before Accepted is sent, a
 * result is stored before it is counted, a finished run's answer is stored
 * before it is reaped; restore.c reads unfinished runs back at start.
 *
 * Liveness: a worker silent for liveness x heartbeat_ms is dead; one whose
 * heartbeat node count has not advanced for hang_ms while it holds tasks is
 * hung and dropped (and gets no task after reconnecting until its count
 * moves). Their tasks are re-queued; a task that fails max_attempts times is
 * quarantined and fails its run with the position and every failure.
 *
 * The ZMQ_FD of the socket is edge-triggered: every callback ends in
 * ply__pump(), which receives until ZMQ_EVENTS has no POLLIN, the check
 * coming after any send, since a send can consume the edge.
 */
#include "coordinator.h"

#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>
#include <uv.h>

#include "http.h"
#include "batch.h"
#include "fault.h"
#include "kind.h"
#include "peers.h"
#include "rule_pool.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "verification.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

#define PROGRESS_MS   1000
/* Client peers hold no state; forget them after this many liveness periods of silence. */
#define CLIENT_FORGET_PERIODS 10
/* Messages handled between two commits of the state file (and two dispatch rounds). */
#define PUMP_DRAIN 64

static void begin_shutdown(ply_coordinator_t *c, const char *why);

/* --------------------------------------------------------------- receiving */

/* Receives and handles one message (there is one: ZMQ_EVENTS said POLLIN). */
static void handle_one(ply_coordinator_t *c)
{
    zframe_t *rid = NULL;
    ply_msg_t *msg = NULL;
    char why[PLY__WHY_LEN], peer_key[128]; /* peer_key: its CURVE identity (security.h), or "" */
    ply_msg_refused_t refused;
    int r = ply_curve_recv_from_ex(c->router, &rid, &msg, peer_key, sizeof peer_key, why,
                                   sizeof why, &refused);
    if (r == PLY_EIO && !rid) return;
    ply__count(c, PLY__CNT_MESSAGES);
    ply__peer_t *p = rid ? ply__peer_find(c, rid) : NULL;
    if (p) p->last_seen_ms = ply_time_ms();
    if (r < 0) {
        char hex[64];
        ply__rid_hex(rid, hex, sizeof hex);
        ply__count(c, PLY__CNT_MALFORMED);
        ply_warn("malformed message from %s: %s", p ? p->name : hex, why);
        char line[PLY__WHY_LEN + 64];
        snprintf(line, sizeof line, "%s (this coordinator speaks %s)", why, PLY_PROTOCOL_ID);
        if (rid) /* a peer of the previous version reads it in its own framing */
            ply_msg_send_error_framed(c->router, rid,
                                      refused.prev_version ? PLY_PROTOCOL_ID_PREV : PLY_PROTOCOL_ID,
                                      r, line, 0, 0, 0);
        /* a worker's Result that does not decode: its attempt may fail now, not at its lease */
        if (p && refused.result) ply__on_refused_result(c, p, refused.job_id, refused.attempt, why);
        zframe_destroy(&rid);
        return;
    }
    if ((r = ply_curve_role_check(peer_key, msg, why, sizeof why)) < 0) { /* CURVE key roles */
        ply__count(c, PLY__CNT_MALFORMED);
        ply_warn("%s", why);
        ply__send_error(c, rid, r, 0, "%s", why);
        ply_msg_free(&msg);
        zframe_destroy(&rid);
        return;
    }
    char identity[PLY__IDENT_LEN];
    ply__identity(rid, peer_key, identity, sizeof identity);
    if (p && strcmp(p->identity, identity) != 0) { /* cannot happen with libzmq: never trusted */
        ply__count(c, PLY__CNT_MALFORMED);
        ply_warn("%s: a message from %s on its connection, dropped", p->name, identity);
        ply_msg_free(&msg);
        zframe_destroy(&rid);
        return;
    }
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_HELLO:
        ply__on_hello(c, rid, identity, p, msg->hello);
        break;
    case PLY__MESSAGE__BODY_READY:
    case PLY__MESSAGE__BODY_PROGRESS:
    case PLY__MESSAGE__BODY_RESULT:
    case PLY__MESSAGE__BODY_HEARTBEAT:
    case PLY__MESSAGE__BODY_ERROR:
    case PLY__MESSAGE__BODY_BYE:
        ply__on_worker_message(c, rid, p, msg);
        break;
    case PLY__MESSAGE__BODY_SUBMIT:
    case PLY__MESSAGE__BODY_STATUS:
    case PLY__MESSAGE__BODY_RESULT_REQUEST:
    case PLY__MESSAGE__BODY_CANCEL:
        ply__on_client_message(c, rid, identity, p, msg);
        break;
    default:
        ply__count(c, PLY__CNT_MALFORMED);
        ply__send_error(c, rid, PLY_EPROTO, 0, "%s is not accepted by the coordinator",
                        ply_msg_type_name(msg));
        break;
    }
    ply_msg_free(&msg);
    zframe_destroy(&rid);
}

void ply__pump(ply_coordinator_t *c)
{
    for (;;) {
        ply__reap_runs(c);
        if (c->state != PLY__C_RUNNING) return;
        ply__dispatch(c);
        /* drain up to PUMP_DRAIN messages before the next dispatch round */
        int n = 0;
        while (n < PUMP_DRAIN && (zsock_events(c->router) & ZMQ_POLLIN)) {
            handle_one(c);
            n++;
        }
        if (!n) return;
    }
}

/* ------------------------------------------------------------------ timers */

static const char *seconds(unsigned ms, char *buf, size_t len)
{
    snprintf(buf, len, "%g", ms / 1000.0);
    return buf;
}

static void send_heartbeats(ply_coordinator_t *c)
{
    Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HEARTBEAT;
    m.heartbeat = &hb;
    for (ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER) ply__send_msg(c, p->rid, &m);
    for (ply__run_t *run = c->runs; run; run = run->next)
        if (!run->detach && run->client) ply__send_msg(c, run->client, &m);
}

/* Keeps the worker id of a hung worker, so that it gets no job right after reconnecting. */
static void remember_hung(ply_coordinator_t *c, const ply__peer_t *p)
{
    unsigned i = 0;
    while (i < c->nhung && c->hung[i] != p->id_hash) i++;
    if (i == c->nhung) {
        if (c->nhung == PLY__HUNG_KEEP) {
            memmove(c->hung, c->hung + 1, (PLY__HUNG_KEEP - 1) * sizeof *c->hung);
            memmove(c->hung_nodes, c->hung_nodes + 1, (PLY__HUNG_KEEP - 1) * sizeof *c->hung_nodes);
            c->nhung--;
        }
        i = c->nhung++;
    }
    c->hung[i] = p->id_hash;
    c->hung_nodes[i] = p->hb_nodes;
}

static void check_peers(ply_coordinator_t *c, uint64_t now)
{
    uint64_t dead_ms = (uint64_t)c->cfg.liveness * c->cfg.heartbeat_ms;
    ply__peer_t *next;
    for (ply__peer_t *p = c->peers; p; p = next) {
        next = p->next;
        uint64_t silent = ply_elapsed_ms(now, p->last_seen_ms);
        if (p->kind == PLY__PEER_WORKER && silent > dead_ms) {
            char reason[128];
            snprintf(reason, sizeof reason, "silent for %" PRIu64 " ms: dead", silent);
            ply__count(c, PLY__CNT_WORKERS_LOST);
            ply__worker_remove(c, p, 1, reason);
        } else if (p->kind == PLY__PEER_WORKER && c->cfg.hang_ms && p->ninflight &&
                   ply_elapsed_ms(now, p->progress_ms) > c->cfg.hang_ms) {
            /* alive (it heartbeats) but its node count does not move: hung */
            char reason[192];
            snprintf(reason, sizeof reason,
                     "hung: node count stuck at %" PRIu64 " for %" PRIu64 " ms with %zu job(s)",
                     p->hb_nodes, ply_elapsed_ms(now, p->progress_ms), p->ninflight);
            ply__count(c, PLY__CNT_WORKERS_LOST);
            ply__count(c, PLY__CNT_WORKERS_HUNG);
            remember_hung(c, p);
            for (size_t i = 0; i < p->ninflight; i++) { /* it may only be slow: stop it */
                size_t idx;
                ply__run_t *run = ply__task_find(c, p->inflight[i], &idx);
                if (run && run->sched.tasks[idx].state == PLY__TASK_INFLIGHT &&
                    run->sched.tasks[idx].worker == p)
                    ply__cancel_on_worker(c, p, run, idx);
            }
            Ply__Bye bye = PLY__BYE__INIT;
            bye.reason = "dropped: no progress";
            ply_msg_t m = PLY__MESSAGE__INIT;
            m.body_case = PLY__MESSAGE__BODY_BYE;
            m.bye = &bye;
            ply__send_msg(c, p->rid, &m);
            ply__worker_remove(c, p, 1, reason);
        } else if (p->kind == PLY__PEER_WORKER && p->probation && now > p->probation_until_ms) {
            p->probation = 0; /* another chance: perhaps it was only very slow */
        } else if (p->kind == PLY__PEER_CLIENT && silent > CLIENT_FORGET_PERIODS * dead_ms) {
            ply__peer_unlink(c, p);
        }
    }
}

/*
 * Workers are connected but none runs what @run needs (its kind, the engine it asks): it
 * fails after worker_wait_ms like a run without workers, naming what it asks and what the
 * connected workers run.
 */
static void check_worker_fit(ply_coordinator_t *c, ply__run_t *run, uint64_t now)
{
    char have[PLY__WHY_LEN] = "";
    size_t n = 0;
    for (ply__peer_t *p = c->peers; p; p = p->next) {
        if (p->kind != PLY__PEER_WORKER) continue;
        if (run->kind->worker_fits(run, p)) {
            run->no_fit_since_ms = 0;
            return;
        }
        if (n >= sizeof have) continue;
        char kinds[128]; /* the kinds it runs, "perft only" when one */
        ply__kinds_text(p->kinds, "+", kinds, sizeof kinds);
        int one = kinds[0] && !strchr(kinds + 1, '+');
        n += (size_t)snprintf(have + n, sizeof have - n, "%s%s (%s%s)", n ? ", " : "", p->name,
                              p->engine[0] ? p->engine : kinds[0] ? kinds + 1 : "no kind",
                              !p->engine[0] && one ? " only" : "");
    }
    if (!run->no_fit_since_ms) run->no_fit_since_ms = now;
    if (!c->cfg.worker_wait_ms || ply_elapsed_ms(now, run->no_fit_since_ms) < c->cfg.worker_wait_ms)
        return;
    char what[PLY__WHY_LEN / 2], s[32];
    run->kind->describe_run(run, what, sizeof what);
    ply__run_fail(run, PLY_EWORKER, "no connected worker runs %s within %s s; connected: %s", what,
                  seconds(c->cfg.worker_wait_ms, s, sizeof s), have);
}

/* No worker: the runs fail after worker_wait_ms, or at once when the local workers were
 * all that could come and every slot has been given up; a run that no connected worker
 * runs fails after worker_wait_ms too (check_worker_fit). */
void ply__check_worker_wait(ply_coordinator_t *c, uint64_t now)
{
    const ply__proc_t *dead = c->nprocs && !ply__local_slots_left(c) ? c->proc_lost : NULL;
    if (c->nworkers) {
        for (ply__run_t *run = c->runs; run; run = run->next)
            if (run->state == PLY__RUN_ACTIVE && !(run->restored && !run->client))
                check_worker_fit(c, run, now);
        return;
    }
    if (!c->cfg.worker_wait_ms && !dead) return;
    for (ply__run_t *run = c->runs; run; run = run->next) {
        /* a run read back from the state file, with nobody waiting for it, waits for
         * workers as long as it takes: failing it would end it for good */
        if (run->state != PLY__RUN_ACTIVE || (run->restored && !run->client)) continue;
        uint64_t since =
            run->accepted_ms > c->no_worker_since_ms ? run->accepted_ms : c->no_worker_since_ms;
        if (dead) {
            ply__run_fail(run, PLY_EWORKER,
                          "every local worker died and none could be kept running (last: %s)",
                          dead->last_exit);
        } else if (ply_elapsed_ms(now, since) >= c->cfg.worker_wait_ms) {
            char s[32];
            ply__run_fail(run, PLY_EWORKER, "no worker connected within %s s",
                          seconds(c->cfg.worker_wait_ms, s, sizeof s));
        }
    }
}

/* A run with no end of its own (kind->endless) whose client has been silent for
 * PLY_CLIENT_SILENT_MS is stopped as its client's Cancel would: nobody is left to stop it (a
 * GUI or `ply analyse --infinite` killed), and it would hold the workers for ever. */
static void check_silent_clients(ply_coordinator_t *c, uint64_t now)
{
    for (ply__run_t *run = c->runs; run; run = run->next) {
        if (run->state != PLY__RUN_ACTIVE || !run->kind->endless || !run->kind->endless(run))
            continue;
        if (ply_elapsed_ms(now, run->client_seen_ms) < PLY_CLIENT_SILENT_MS) continue;
        char s[32];
        ply_warn("run %" PRIu64 ": its client has not asked about it for %s s: stopped as a "
                 "cancel would (a run with no end of its own, nobody left to stop it)",
                 run->id, seconds(PLY_CLIENT_SILENT_MS, s, sizeof s));
        ply__run_cancel(run);
    }
}

static void on_wake(uv_timer_t *t)
{
    ply_coordinator_t *c = t->data;
    c->wake_ms = 0;
    ply__verify_tick(c, ply_time_ms());
    ply__pump(c);
}

void ply__wake_at(ply_coordinator_t *c, uint64_t at_ms)
{
    if (!c->handles_ok || (c->wake_ms && c->wake_ms <= at_ms)) return;
    uint64_t now = ply_time_ms();
    c->wake_ms = at_ms;
    uv_timer_start(&c->wake, on_wake, at_ms > now ? at_ms - now : 0, 0);
}

static void on_tick(uv_timer_t *t)
{
    ply_coordinator_t *c = t->data;
    uint64_t now = ply_time_ms();
    /* group commit: the results of the last tick period in one transaction, before any
     * progress report shows them */
    ply__batch_flush(c);
    check_peers(c, now);
    ply__check_leases(c, now);
    ply__check_worker_wait(c, now);
    check_silent_clients(c, now);
    ply__verify_tick(c, now);
    for (ply__run_t *run = c->runs; run; run = run->next)
        if (run->state == PLY__RUN_ACTIVE) ply__run_update_waiting(c, run);
    if (now - c->last_hb_ms >= c->cfg.heartbeat_ms) {
        c->last_hb_ms = now;
        send_heartbeats(c);
    }
    if (now - c->last_progress_ms >= PROGRESS_MS) {
        c->last_progress_ms = now;
        for (ply__run_t *run = c->runs; run; run = run->next)
            if (run->state == PLY__RUN_ACTIVE && !run->detach && run->client)
                ply__send_progress(c, run->client, run, NULL, 0, run->owner);
    }
    ply__pump(c);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    (void)events;
    ply_coordinator_t *c = h->data;
    if (status < 0) ply_warn("poll on the socket failed: %s", uv_strerror(status));
    ply__pump(c);
}

static void on_async(uv_async_t *h)
{
    begin_shutdown(h->data, "stop requested");
}

static void on_signal(uv_signal_t *h, int signum)
{
    ply_info("signal %d: stopping", signum);
    begin_shutdown(h->data, signum == SIGINT ? "interrupted" : "terminated");
}

/* --------------------------------------------------------------- lifecycle */

static void begin_shutdown(ply_coordinator_t *c, const char *why)
{
    if (c->state >= PLY__C_STOPPING) return;
    int was_running = c->state == PLY__C_RUNNING;
    c->state = PLY__C_STOPPING;
    if (was_running) ply_info("stopping: %s", why);
    for (ply__run_t *run = c->runs; run; run = run->next) {
        /* a run being planned is in the state file too (its request, stored before it was
         * acknowledged): planned again at the next start */
        int keep = c->store && (run->state == PLY__RUN_ACTIVE || run->state == PLY__RUN_SPLITTING);
        ply__run_stop(run, keep);
        if (run->state == PLY__RUN_SPLITTING) continue;
        if (keep) { /* it stays active in the state file and resumes at the next start */
            ply__run_fail(run, PLY_ECANCELED,
                          "coordinator stopping (%s); run %" PRIu64 " is kept in %s and resumes "
                          "when it restarts (ply result %" PRIu64 ")",
                          why, run->id, ply_store_path(c->store), run->id);
        } else {
            ply__run_fail(run, PLY_ECANCELED,
                          "coordinator stopping (%s) before run %" PRIu64 " ended", why, run->id);
        }
    }
    ply__reap_runs(c);
    Ply__Bye bye = PLY__BYE__INIT;
    bye.reason = "coordinator stopping";
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_BYE;
    m.bye = &bye;
    for (ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER) ply__send_msg(c, p->rid, &m);
    /* after the Bye: the workers stop counting, so a recount in progress has the cores */
    ply__rule_pool_stop(c->rule_pool);
    ply__http_close(c);
    if (c->handles_ok) {
        uv_poll_stop(&c->poll);
        uv_close((uv_handle_t *)&c->poll, NULL);
        uv_timer_stop(&c->tick);
        uv_close((uv_handle_t *)&c->tick, NULL);
        uv_timer_stop(&c->wake);
        uv_close((uv_handle_t *)&c->wake, NULL);
        for (int i = 0; i < 2 && c->signals_ok; i++) uv_close((uv_handle_t *)&c->sig[i], NULL);
        c->signals_ok = 0;
        ply__local_workers_stop(c);
    }
}

void ply_coordinator_config_init(ply_coordinator_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->heartbeat_ms = 1000;
    cfg->liveness = 5;
    cfg->lease_ms = 0;
    cfg->max_attempts = 3;
    cfg->worker_wait_ms = 60000;
    cfg->hang_ms = 300000;
    cfg->arbiter_budget = PLY_COORDINATOR_ARBITER_BUDGET;
    cfg->rule_engine_threads = PLY_COORDINATOR_RULE_ENGINE_THREADS;
    cfg->worker_hash_mib = 256; /* ply-worker's own default */
    cfg->keep_runs = 20;
    cfg->http_timeout_ms = 10000;
}

/* Binds every comma-separated endpoint; records the first and the first tcp one. */
static int bind_all(ply_coordinator_t *c, char *why, size_t why_len)
{
    char *list = strdup(c->bind), *save = NULL;
    if (!list) return PLY_ENOMEM;
    int r = 0;
    for (char *ep = strtok_r(list, ",", &save); ep && r == 0; ep = strtok_r(NULL, ",", &save)) {
        while (*ep == ' ') ep++;
        size_t n = strlen(ep);
        while (n && ep[n - 1] == ' ') ep[--n] = '\0';
        if (!n) continue;
        r = ply_bind_check(ep, c->cfg.curve != NULL, c->cfg.insecure, why, why_len);
        if (r < 0) break;
        if (zsock_bind(c->router, "%s", ep) == -1) {
            ply_why(why, why_len, 0, "cannot bind %s: %s", ep, zmq_strerror(zmq_errno()));
            r = PLY_ECONNECT;
            break;
        }
        /* czmq records "tcp://...:0" as given; ZeroMQ's last endpoint has the real port */
        char *last = zsock_last_endpoint(c->router);
        const char *bound = last && last[0] ? last : zsock_endpoint(c->router);
        if (!bound) bound = ep;
        zlist_append(c->bound, (void *)bound);
        if (!c->endpoint[0]) snprintf(c->endpoint, sizeof c->endpoint, "%s", bound);
        if (!c->worker_endpoint[0] && strncmp(bound, "tcp://", 6) == 0) {
            if (strncmp(bound, "tcp://0.0.0.0:", 14) == 0)
                snprintf(c->worker_endpoint, sizeof c->worker_endpoint, "tcp://127.0.0.1:%s",
                         bound + 14);
            else
                snprintf(c->worker_endpoint, sizeof c->worker_endpoint, "%s", bound);
        }
        ply_info("listening on %s", bound);
        freen(last);
    }
    free(list);
    if (r == 0 && !c->endpoint[0]) {
        ply_why(why, why_len, 0, "no endpoint to bind in \"%s\"", c->bind);
        r = PLY_EINVAL;
    }
    return r;
}

static int init_handles(ply_coordinator_t *c, char *why, size_t why_len)
{
    int r = uv_poll_init(&c->loop, &c->poll, zsock_fd(c->router));
    if (r != 0) {
        ply_why(why, why_len, 0, "cannot watch the socket: %s", uv_strerror(r));
        return PLY_EIO;
    }
    uv_timer_init(&c->loop, &c->tick);
    uv_timer_init(&c->loop, &c->kill_timer);
    uv_timer_init(&c->loop, &c->wake);
    uv_async_init(&c->loop, &c->async, on_async);
    c->poll.data = c->tick.data = c->kill_timer.data = c->async.data = c->wake.data = c;
    uv_unref((uv_handle_t *)&c->async); /* stop() works any time; it alone keeps nothing alive */
    c->handles_ok = 1;
    unsigned period = c->cfg.heartbeat_ms / 4;
    period = period < 10 ? 10 : period > 250 ? 250 : period;
    uv_poll_start(&c->poll, UV_READABLE, on_poll);
    uv_timer_start(&c->tick, on_tick, period, period);
    if (c->cfg.handle_signals) {
        static const int signums[2] = {SIGINT, SIGTERM};
        for (int i = 0; i < 2; i++) {
            uv_signal_init(&c->loop, &c->sig[i]);
            c->sig[i].data = c;
            uv_signal_start(&c->sig[i], on_signal, signums[i]);
        }
        c->signals_ok = 1;
    }
    return 0;
}

ply_coordinator_t *ply_coordinator_new(const ply_coordinator_config_t *cfg, char *why,
                                       size_t why_len)
{
    if (!cfg || !cfg->bind || !cfg->bind[0]) {
        ply_why(why, why_len, 0, "no endpoint to bind");
        return NULL;
    }
    if (cfg->spawn_workers && (!cfg->worker_exe || !cfg->worker_exe[0])) {
        ply_why(why, why_len, 0, "local workers need the path of the worker executable");
        return NULL;
    }
    if (cfg->nworker_args > PLY_COORDINATOR_WORKER_ARGS_MAX) {
        ply_why(why, why_len, 0, "more than %d arguments for the local workers",
                PLY_COORDINATOR_WORKER_ARGS_MAX);
        return NULL;
    }
    ply_coordinator_t *c = calloc(1, sizeof *c);
    if (!c) {
        ply_why(why, why_len, 0, "out of memory");
        return NULL;
    }
    c->cfg = *cfg;
    /* zeros mean the defaults (worker_wait_ms 0 means wait forever) */
    if (!c->cfg.heartbeat_ms) c->cfg.heartbeat_ms = 1000;
    if (c->cfg.heartbeat_ms > PLY_MAX_HEARTBEAT_MS) c->cfg.heartbeat_ms = PLY_MAX_HEARTBEAT_MS;
    if (!c->cfg.liveness) c->cfg.liveness = 5;
    if (c->cfg.liveness > PLY_MAX_LIVENESS) c->cfg.liveness = PLY_MAX_LIVENESS;
    if (!c->cfg.max_attempts) c->cfg.max_attempts = 3;
    c->bind = strdup(cfg->bind);
    c->worker_exe = cfg->worker_exe ? strdup(cfg->worker_exe) : NULL;
    c->state_path = cfg->state_path && cfg->state_path[0] ? strdup(cfg->state_path) : NULL;
    c->cfg.bind = c->bind;
    c->cfg.worker_exe = c->worker_exe;
    c->cfg.state_path = c->state_path;
    c->next_job_base = 1;
    c->no_worker_since_ms = c->last_hb_ms = c->last_progress_ms = c->started_ms = ply_time_ms();
    for (int i = 0; i < PLY__CNT_N; i++) atomic_init(&c->cnt[i], 0);
    int r = (c->bind && (!cfg->worker_exe || c->worker_exe) &&
             (!cfg->state_path || !cfg->state_path[0] || c->state_path))
                ? 0
                : PLY_ENOMEM;
    if (r == 0 && uv_loop_init(&c->loop) != 0) r = PLY_EIO;
    if (r == 0) c->loop_ok = 1;
    /* the rule engine's own threads (rule_pool.h); none: it counts no job (perft/drill.c) */
    if (r == 0 && c->cfg.arbiter_budget && c->cfg.rule_engine_threads &&
        !(c->rule_pool = ply__rule_pool_new(&c->loop, c->cfg.rule_engine_threads)))
        r = PLY_ENOMEM;
    if (r == 0 && !(c->router = zsock_new(ZMQ_ROUTER))) r = PLY_EIO;
    if (r == 0 && !(c->bound = zlist_new())) r = PLY_ENOMEM;
    if (r == 0) zlist_autofree(c->bound);
    if (r < 0) ply_why(why, why_len, 0, "cannot set up the coordinator: %s", ply_strerror(r));
    if (r == 0) r = ply__fault_init(why, why_len); /* tests' fault points (fault.h) */
    /* the state file before any socket: one in use or damaged stops us before we bind */
    if (r == 0 && c->state_path && !(c->store = ply_store_open_upgrading(c->state_path, ply__kinds_upgrade_row,
                                                     why, why_len)))
        r = PLY_EDB;
    if (r == 0 && c->store) r = ply__restore(c, why, why_len);
    if (r == 0 && cfg->admin_keys && !cfg->curve) {
        ply_why(why, why_len, 0, "admin keys need CURVE: without it no client key is proven");
        r = PLY_EINVAL;
    }
    if (r == 0 && cfg->admin_keys && !(c->admins = ply_keydir_new(cfg->admin_keys, why, why_len)))
        r = PLY_EINVAL;
    if (r == 0) {
        zsock_set_linger(c->router, 100);
        /* A ROUTER drops silently what exceeds a peer's send high-water mark
         * (default 1000). A dropped JOB would be lost for good while its worker
         * stays alive, so the mark is set far above PLY_MAX_CREDIT; memory stays
         * bounded by credit for workers and by one message a second for clients. */
        zsock_set_sndhwm(c->router, 100000);
        ply_msg_sock_limit(c->router);
        if (c->cfg.curve) ply_curve_server_apply(c->cfg.curve, c->router);
        r = bind_all(c, why, why_len);
    }
    if (r == 0) r = init_handles(c, why, why_len);
    if (r == 0 && cfg->http) r = ply__http_start(c, why, why_len);
    if (r == 0) r = ply__local_workers_start(c, why, why_len);
    if (r < 0) {
        ply_coordinator_destroy(&c);
        return NULL;
    }
    return c;
}

const char *ply_coordinator_endpoint(const ply_coordinator_t *c)
{
    return c ? c->endpoint : NULL;
}

const char *ply_coordinator_worker_endpoint(const ply_coordinator_t *c)
{
    return c && c->worker_endpoint[0] ? c->worker_endpoint : NULL;
}

void ply_coordinator_counters(const ply_coordinator_t *c, ply_coordinator_counters_t *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!c) return;
    ply_coordinator_t *m = (ply_coordinator_t *)c; /* atomic loads take non-const pointers */
#define LOAD(i) atomic_load_explicit(&m->cnt[i], memory_order_relaxed)
    out->messages = LOAD(PLY__CNT_MESSAGES);
    out->malformed = LOAD(PLY__CNT_MALFORMED);
    out->results_ignored = LOAD(PLY__CNT_RESULTS_IGNORED);
    out->jobs_sent = LOAD(PLY__CNT_JOBS_SENT);
    out->jobs_requeued = LOAD(PLY__CNT_JOBS_REQUEUED);
    out->workers_joined = LOAD(PLY__CNT_WORKERS_JOINED);
    out->workers_lost = LOAD(PLY__CNT_WORKERS_LOST);
    out->runs_done = LOAD(PLY__CNT_RUNS_DONE);
    out->runs_failed = LOAD(PLY__CNT_RUNS_FAILED);
    out->workers_hung = LOAD(PLY__CNT_WORKERS_HUNG);
    out->results_computed = LOAD(PLY__CNT_RESULTS_COMPUTED);
    out->verify_mismatches = LOAD(PLY__CNT_VERIFY_MISMATCHES);
    out->clients_forgotten = LOAD(PLY__CNT_CLIENTS_FORGOTTEN);
#undef LOAD
    out->runs_restored = c->runs_restored;
    out->results_restored = c->results_restored;
}

int ply_coordinator_run(ply_coordinator_t *c)
{
    if (!c) return PLY_EINVAL;
    if (c->state != PLY__C_NEW) return PLY_ESTATE;
    c->state = PLY__C_RUNNING;
    ply__pump(c); /* messages that arrived before the loop started */
    int r = uv_run(&c->loop, UV_RUN_DEFAULT);
    (void)r;
    c->state = PLY__C_CLOSED;
    return 0;
}

void ply_coordinator_stop(ply_coordinator_t *c)
{
    if (c) uv_async_send(&c->async);
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

void ply_coordinator_destroy(ply_coordinator_t **cp)
{
    if (!cp || !*cp) return;
    ply_coordinator_t *c = *cp;
    if (c->loop_ok) {
        if (c->state != PLY__C_CLOSED) {
            begin_shutdown(c, "destroyed");
            uv_run(&c->loop, UV_RUN_DEFAULT); /* stops local workers, finishes splits */
        }
        uv_walk(&c->loop, close_any, NULL);
        uv_run(&c->loop, UV_RUN_DEFAULT);
        if (uv_loop_close(&c->loop) != 0) ply_warn("libuv loop not closed cleanly");
    }
    ply__rule_pool_destroy(&c->rule_pool); /* stopped by begin_shutdown, its handle closed */
    while (c->runs) {
        ply__run_t *run = c->runs;
        c->runs = run->next;
        ply__run_free(run);
    }
    while (c->peers) ply__peer_unlink(c, c->peers);
    while (c->finished) {
        ply__finished_t *f = c->finished;
        c->finished = f->next;
        zmsg_destroy(&f->reply);
        free(f);
    }
    /* unbind first: zmq_close releases endpoints asynchronously, and an inproc
     * name or a tcp port should be free again as soon as destroy returns */
    for (char *ep = c->bound ? zlist_first(c->bound) : NULL; ep; ep = zlist_next(c->bound))
        zsock_unbind(c->router, "%s", ep);
    zlist_destroy(&c->bound);
    zsock_destroy(&c->router);
    ply_store_close(&c->store);
    ply_keydir_destroy(&c->admins);
    ply__http_free(c);
    free(c->procs);
    free(c->bind);
    free(c->worker_exe);
    free(c->state_path);
    free(c);
    *cp = NULL;
}
