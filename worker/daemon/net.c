/*
 * The daemon's network actor (net.h): a thread that owns the DEALER to the coordinator.
 * It connects (and reconnects), says HELLO with the kinds of the runner table (runner.h)
 * and READY with the credit, sends heartbeats carrying the progress counter, and sends
 * whatever the compute side hands it (RESULT, ERROR, READY); it hands each JOB to the
 * compute side, records each Cancel (cancel.c), watches the coordinator's liveness, the
 * connection and the stop flag, and tells the compute side to END when the worker must
 * stop. The compute side may run a job of any length: the heartbeat never falls silent.
 */
#include "net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/attacks.h"
#include "runner.h"
#include "security.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* A connection that closed and that libzmq has not tried to reopen after this long
 * (milliseconds; it tries again at once, ZMQ_RECONNECT_IVL 100 ms) never will. */
#define PLY_WORKER_REOPEN_MS 2000

static int send_hello(zsock_t *dealer, const ply__daemon_t *sh)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Hello hello = PLY__HELLO__INIT;
    char build[96];
    snprintf(build, sizeof build, "ply %s (%s sliders)", PLY_VERSION, ply_attacks_backend());
    hello.worker_id = (char *)sh->worker_id;
    hello.has_protocol = 1;
    hello.protocol = PLY_PROTOCOL_VERSION;
    hello.build = build;
    hello.has_threads = 1;
    hello.threads = (uint32_t)sh->threads;
    hello.has_hash_mib = 1;
    hello.hash_mib = sh->cfg->hash_mib;
    hello.has_zobrist_checksum = 1;
    hello.zobrist_checksum = sh->zobrist_checksum;
    hello.has_zobrist_seed = 1;
    hello.zobrist_seed = sh->zobrist_seed;
    /* the kinds it runs, in the table's order, and what each says of itself */
    uint32_t kinds[PLY_MAX_KINDS];
    char text[2048];
    size_t used = 0;
    hello.n_kinds = 0;
    for (size_t i = 0; i < ply__n_runners && i < sizeof kinds / sizeof kinds[0]; i++) {
        const ply__runner_t *run = ply__runners[i];
        kinds[hello.n_kinds++] = run->kind;
        if (run->hello) used += run->hello(sh, &hello, text + used, sizeof text - used);
    }
    hello.kinds = kinds;
    msg.body_case = PLY__MESSAGE__BODY_HELLO;
    msg.hello = &hello;
    return ply_msg_send(dealer, &msg);
}

static int send_ready(zsock_t *dealer, unsigned credit)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Ready ready = PLY__READY__INIT;
    ready.has_credit = 1;
    ready.credit = credit;
    msg.body_case = PLY__MESSAGE__BODY_READY;
    msg.ready = &ready;
    return ply_msg_send(dealer, &msg);
}

static int send_heartbeat(zsock_t *dealer, ply__daemon_t *sh)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Heartbeat hb = PLY__HEARTBEAT__INIT;
    hb.has_nodes = 1;
    hb.nodes = atomic_load(&sh->done) + atomic_load(&sh->progress);
    uint64_t job = atomic_load(&sh->job_id);
    if (job) {
        hb.has_job_id = 1;
        hb.job_id = job;
        hb.has_attempt = 1;
        hb.attempt = atomic_load(&sh->attempt);
    }
    msg.body_case = PLY__MESSAGE__BODY_HEARTBEAT;
    msg.heartbeat = &hb;
    return ply_msg_send(dealer, &msg);
}

static void send_bye(zsock_t *dealer, const char *reason)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Bye bye = PLY__BYE__INIT;
    bye.reason = (char *)reason;
    msg.body_case = PLY__MESSAGE__BODY_BYE;
    msg.bye = &bye;
    ply_msg_send(dealer, &msg);
}

/* The DEALER to the coordinator, and the watch on its connections and, under CURVE, its
 * handshakes (*watch, NULL when the monitor could not start). */
static zsock_t *connect_dealer(ply__daemon_t *sh, zsock_t **watch)
{
    *watch = NULL;
    zsock_t *dealer = zsock_new(ZMQ_DEALER);
    if (!dealer) return NULL;
    zsock_set_linger(dealer, 2000); /* let a last RESULT or BYE get out */
    zsock_set_sndhwm(dealer, 1000);
    ply_curve_client_apply(sh->cfg->curve, dealer); /* --curve keys, if any */
    ply_msg_sock_limit(dealer); /* a frame over PLY_MAX_MESSAGE_BYTES drops the connection */
    /* never block the actor: a session refused at the handshake (a CURVE key the coordinator
     * does not allow) leaves no pipe, and a blocking send would then wait forever (even
     * SIGTERM could not stop the worker); a message that finds the queue full is dropped,
     * and the coordinator re-queues the jobs it does not hear about */
    zsock_set_sndtimeo(dealer, 0);
    /* a refused key is known at once, and a connection libzmq will not reopen */
    *watch = ply_conn_watch(dealer, sh->cfg->curve, 1);
    if (zsock_connect(dealer, "%s", sh->cfg->endpoint) != 0) {
        ply_conn_watch_destroy(watch, dealer);
        zsock_destroy(&dealer);
        return NULL;
    }
    return dealer;
}

static void end_compute(zsock_t *pipe, int code)
{
    zsock_send(pipe, "si", "END", code);
}

/*
 * HELLO and credit: the first session, a reconnect, or a HELLO again because
 * the coordinator does not know us (it restarted, or dropped us as hung or
 * dead). Jobs of an earlier session are the coordinator's to re-queue: they
 * are dropped here, and the credit starts afresh.
 */
static void new_session(zsock_t *dealer, ply__daemon_t *sh, int first)
{
    if (!first) {
        atomic_fetch_add(&sh->epoch, 1);
        ply__stop_running(sh);
    }
    send_hello(dealer, sh);
    send_ready(dealer, 1 + sh->cfg->prefetch);
}

static void net_actor(zsock_t *pipe, void *arg)
{
    ply__daemon_t *sh = arg;
    const ply_worker_config_t *cfg = sh->cfg;
    zsock_t *watch = NULL;
    zsock_t *dealer = connect_dealer(sh, &watch);
    zsock_signal(pipe, 0);
    if (!dealer) {
        end_compute(pipe, PLY_ECONNECT);
        return;
    }

    /* Until a WELCOME says otherwise, and again in each new connection: a WELCOME's
     * figures hold for its session only. */
    const unsigned own_heartbeat_ms = cfg->heartbeat_ms ? cfg->heartbeat_ms : 1000;
    const unsigned own_liveness = cfg->liveness ? cfg->liveness : 5;
    unsigned heartbeat_ms = own_heartbeat_ms, liveness = own_liveness;
    new_session(dealer, sh, 1);

    zpoller_t *poller = zpoller_new(pipe, dealer, NULL);
    if (watch) zpoller_add(poller, watch);
    uint64_t now = ply_time_ms(), last_seen = now, next_beat = now + heartbeat_ms, hello_at = now;
    int refusal_told = 0; /* a refused HELLO was reported (see the ERROR case) */
    int ended = 0, welcomed = 0;
    uint64_t lost_at = 0; /* when the connection closed, until libzmq tries to reopen it */
    while (1) {
        now = ply_time_ms();
        int timeout = next_beat > now ? (int)(next_beat - now) : 0;
        if (timeout > 100) timeout = 100; /* also poll the stop flag */
        void *which = zpoller_wait(poller, timeout);
        now = ply_time_ms();
        if (which == pipe) {
            zmsg_t *cmd = zmsg_recv(pipe);
            if (!cmd) break;
            char *verb = zmsg_popstr(cmd);
            int term = verb && streq(verb, "$TERM");
            if (verb && streq(verb, "SEND")) zmsg_send(&cmd, dealer);
            free(verb);
            zmsg_destroy(&cmd);
            if (term) break;
        } else if (which == watch) {
            char why[512];
            int rc = ply_conn_watch_read(watch, cfg->curve, why, sizeof why);
            if (rc == PLY_WATCH_LOST && !lost_at)
                lost_at = now;
            else if (rc == PLY_WATCH_TRYING)
                lost_at = 0;
            else if (rc < 0 && !ended) { /* retrying cannot help: the keys must change */
                ply_error("%s", why);
                ply__cancel_all(sh);
                end_compute(pipe, rc);
                ended = 1;
            }
        } else if (which == dealer) {
            char why[256];
            ply_msg_t *msg = NULL;
            int rc = ply_msg_recv(dealer, &msg, why, sizeof why);
            if (rc == PLY_EIO) continue;
            last_seen = now;
            if (rc < 0) {
                ply_warn("dropped a malformed message from the coordinator: %s", why);
                continue;
            }
            switch (msg->body_case) {
            case PLY__MESSAGE__BODY_WELCOME:
                welcomed = 1;
                heartbeat_ms = msg->welcome->heartbeat_ms;
                liveness = msg->welcome->liveness;
                break;
            case PLY__MESSAGE__BODY_JOB:
                zsock_send(pipe, "spi", "JOB", msg, (int)atomic_load(&sh->epoch));
                msg = NULL; /* the compute side owns it now */
                break;
            case PLY__MESSAGE__BODY_CANCEL: /* job_id comes with attempt (envelope.c) */
                if (msg->cancel->has_job_id)
                    ply__job_cancel(sh, msg->cancel->job_id, msg->cancel->attempt);
                else
                    ply_warn("dropped a Cancel without a job from the coordinator");
                break;
            case PLY__MESSAGE__BODY_ERROR:
                if (msg->error->has_say_hello && msg->error->say_hello && !ended &&
                    !cfg->exit_on_bye) {
                    /* the coordinator does not know us: introduce ourselves again, at most
                     * once a heartbeat period (each message we sent may have been refused).
                     * A refusal (our id held by another worker) is told once, loudly: the
                     * worker keeps trying, and would otherwise wait in silence. */
                    if (msg->error->code == PLY_EAUTH && !refusal_told) {
                        ply_warn("coordinator refused us: %s; retrying", msg->error->message);
                        refusal_told = 1;
                    }
                    if (now - hello_at >= heartbeat_ms) {
                        ply_info("coordinator: %s: saying HELLO again", msg->error->message);
                        new_session(dealer, sh, 0);
                        hello_at = now;
                    }
                    break;
                }
                ply_warn("coordinator error: %s", msg->error->message);
                if (msg->error->code == PLY_EVERSION && !ended) {
                    end_compute(pipe, PLY_EVERSION);
                    ended = 1;
                }
                break;
            case PLY__MESSAGE__BODY_BYE:
                ply_info("coordinator said bye: %s", msg->bye->reason ? msg->bye->reason : "");
                /* a worker being stopped ends at once: its owner waits for it */
                if ((cfg->exit_on_bye || (sh->stop && atomic_load(sh->stop))) && !ended) {
                    ply__cancel_all(sh);
                    end_compute(pipe, 0);
                    ended = 1;
                }
                break;
            default: /* HEARTBEAT: liveness only */
                break;
            }
            ply_msg_free(&msg);
        }
        if (sh->stop && atomic_load(sh->stop)) ply__cancel_all(sh);
        if (now >= next_beat) {
            send_heartbeat(dealer, sh);
            next_beat = now + heartbeat_ms;
        }
        /* Silent: nothing for liveness heartbeat periods, and nothing waiting either (a
         * thread starved of the CPU may wake to a WELCOME still unread: not silence).
         * Dropped: the connection closed and libzmq did not try to reopen it (it does not
         * after a protocol error, such as a frame over the size limit), which would
         * otherwise look like silence only liveness heartbeat periods later. */
        int silent = now - last_seen > (uint64_t)liveness * heartbeat_ms &&
                     !(zsock_events(dealer) & ZMQ_POLLIN);
        int dropped = lost_at && now - lost_at > PLY_WORKER_REOPEN_MS;
        if (!ended && (silent || dropped)) {
            /* Under CURVE a refused key looks like a silent coordinator: a worker that was
             * never welcomed gives up (and says why) rather than retry it forever. */
            if (cfg->exit_on_bye || (!welcomed && cfg->curve)) {
                if (dropped)
                    ply_warn("coordinator %s connection closed for good", cfg->endpoint);
                else
                    ply_warn("coordinator %s silent for %llu ms", cfg->endpoint,
                             (unsigned long long)(now - last_seen));
                ply__cancel_all(sh);
                end_compute(pipe, PLY_ETIMEDOUT);
                ended = 1;
            } else { /* start over: a restarted coordinator gets a fresh HELLO */
                ply_warn("coordinator %s %s; reconnecting", cfg->endpoint,
                         dropped ? "connection closed for good" : "silent");
                zpoller_remove(poller, dealer);
                if (watch) zpoller_remove(poller, watch);
                /* the monitor stopped before its watch is closed: the old dealer lingers,
                 * and an event it reported to a closed watch would stop libzmq's I/O
                 * thread, and the new dealer with it, for good */
                ply_conn_watch_destroy(&watch, dealer);
                /* A coordinator that is only slow still lists the old connection under our
                 * id and would refuse the new one until it declares the old one dead: a BYE
                 * frees the id at once. Kept briefly, not waited on if nobody takes it. */
                send_bye(dealer, "reconnecting");
                zsock_set_linger(dealer, (int)heartbeat_ms / 2);
                zsock_destroy(&dealer);
                dealer = connect_dealer(sh, &watch);
                if (!dealer) break;
                zpoller_add(poller, dealer);
                if (watch) zpoller_add(poller, watch);
                new_session(dealer, sh, 0);
                heartbeat_ms = own_heartbeat_ms, liveness = own_liveness;
                next_beat = now + heartbeat_ms;
                last_seen = hello_at = now;
                lost_at = 0;
            }
        }
    }
    if (dealer) send_bye(dealer, "worker stopping");
    zpoller_destroy(&poller);
    ply_conn_watch_destroy(&watch, dealer);
    zsock_destroy(&dealer);
}

static void *actor_main(void *arg)
{
    ply__net_t *t = arg;
    net_actor(t->pipe, t->sh);
    atomic_store(&t->ended, 1);
    zsock_destroy(&t->pipe);
    return NULL;
}

zsock_t *ply__net_start(ply__net_t *t, ply__daemon_t *sh)
{
    t->sh = sh;
    atomic_store(&t->ended, 0);
    zsock_t *front = zsys_create_pipe(&t->pipe);
    if (!front) return NULL;
    if (pthread_create(&t->thread, NULL, actor_main, t) != 0) {
        zsock_destroy(&t->pipe);
        zsock_destroy(&front);
        return NULL;
    }
    zsock_wait(front);
    return front;
}

void ply__net_stop(ply__net_t *t, zsock_t **front)
{
    if (!*front) return;
    /* an actor that has ended (it told END) reads nothing: do not wait on a send to it */
    zsock_set_sndtimeo(*front, 2000);
    if (!atomic_load(&t->ended)) zstr_send(*front, "$TERM");
    pthread_join(t->thread, NULL);
    zsock_destroy(front);
}
