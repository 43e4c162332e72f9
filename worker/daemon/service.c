/*
 * Worker service (see service.h). Two threads:
 *   the network actor: owns the DEALER, sends HELLO, READY, HEARTBEAT and
 *     whatever the compute side hands it, forwards JOBs to the compute side,
 *     watches the coordinator's liveness and the stop flag;
 *   the compute side (the caller of ply_worker_run): takes JOBs from the
 *     actor's pipe, runs them on OpenMP threads, hands back RESULT or ERROR.
 * Pipe commands, actor -> compute: "JOB" + pointer to a decoded message
 * (ownership passes), "END" + reason code. Compute -> actor: "SEND" + the
 * two frames of an encoded message, "$TERM" (shutdown). The actor is a thread
 * the compute side starts and joins itself (not a czmq zactor, whose detached
 * thread could still be closing its end of the pipe at exit, which costs every
 * exit czmq's 200 ms wait for "dangling" sockets).
 * A coordinator's Cancel{job_id, attempt} does not queue behind the jobs in
 * the pipe: the actor records it in the shared cancel list and stops that
 * attempt if it is the running one; the compute side drops a listed job
 * instead of starting it.
 * Job kinds: PERFT on ply_perft_run, SEARCH on an analysis backend
 * (analysis.h): ply's engine ("builtin"), created when the first search job
 * comes, or the one the config gives (an external UCI engine); the perft table and the search table
 * do not both exist at once (a change of kind rebuilds the other at the same size). A search is
 * stopped by the actor itself (ply_analysis_stop), under the cancel lock.
 */
#include "service.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "analysis.h"
#include "board/movegen.h"
#include "envelope.h"
#include "perft.h"
#include "search_msg.h"
#include "security.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

#define CANCELED_KEEP 16 /* Cancels remembered: far more than the credit we ever ask for */
/* A connection that closed and that libzmq has not tried to reopen after this long
 * (milliseconds; it tries again at once, ZMQ_RECONNECT_IVL 100 ms) never will. */
#define PLY_WORKER_REOPEN_MS 2000

typedef struct shared {
    const ply_worker_config_t *cfg;
    const _Atomic int *stop;
    char worker_id[128];
    int threads;
    _Atomic uint64_t progress; /* leaf nodes of the running job so far */
    _Atomic uint64_t done;     /* leaf nodes of finished jobs */
    _Atomic uint64_t job_id;   /* running job, 0 when idle */
    _Atomic uint32_t attempt;
    _Atomic int cancel; /* raised by the actor: stop the running job */
    /* Sessions with the coordinator: a reconnect or a HELLO again starts a new one, and
     * the work of older sessions (re-queued by the coordinator) is dropped: the running
     * job is cancelled (job_cancel) and queued jobs carry their session's epoch. */
    _Atomic unsigned epoch;
    _Atomic int job_cancel;
    /* Attempts the coordinator took back (Cancel): the last few, enough for every job the
     * credit lets it hand us. The lock makes "is it listed?" and "it is the running one"
     * one step on each side, so a Cancel is never missed between the two. */
    pthread_mutex_t cancel_lock;
    struct {
        uint64_t job_id;
        uint32_t attempt;
    } canceled[CANCELED_KEEP];
    unsigned next_canceled;    /* the ring's next slot; empty slots hold job 0, never a job id */
    ply_analysis_t *searching; /* under cancel_lock: the backend of the running search job */
    /* the worker's own Zobrist keys (HELLO): read once, as a reproducible search job of the
     * builtin engine runs on the default seed's keys for its time (run_search) */
    uint32_t zobrist_seed;
    uint64_t zobrist_checksum;
#ifdef PLY_FAULT_INJECTION
    unsigned results; /* jobs finished, for fault_every */
#endif
} shared_t;

void ply_worker_config_init(ply_worker_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->heartbeat_ms = 1000;
    cfg->liveness = 5;
    cfg->prefetch = 1;
    cfg->exit_on_bye = 1;
}

/* ---- the network actor ----------------------------------------------------- */

static int send_hello(zsock_t *dealer, const shared_t *sh)
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
    uint32_t kinds[] = {PLY__JOB_KIND__JOB_KIND_PERFT, PLY__JOB_KIND__JOB_KIND_SEARCH};
    hello.n_kinds = sizeof kinds / sizeof kinds[0];
    hello.kinds = kinds;
    char engine[160] = "builtin";
    const ply_analysis_t *backend = sh->cfg->search_backend;
    if (backend)
        snprintf(engine, sizeof engine, "%s:%s", ply_analysis_name(backend),
                 ply_analysis_engine_name(backend));
    hello.engine = engine;
    /* who answers a reproducible job alike: the engine, and for ply's its build and keys */
    char id[PLY_MAX_TEXT + 1], repro[PLY_MAX_TEXT - 64];
    ply_analysis_repro_id(backend, repro, sizeof repro);
    snprintf(id, sizeof id, "%s", repro);
    if (!backend) /* whatever its own seed: reproducible jobs use the default seed's keys */
        snprintf(id, sizeof id, "ply %s builtin, zobrist seed %u", PLY_VERSION,
                 PLY_ZOBRIST_DEFAULT_SEED);
    hello.engine_id = id;
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

static int send_heartbeat(zsock_t *dealer, shared_t *sh)
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
static zsock_t *connect_dealer(shared_t *sh, zsock_t **watch)
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
        zsock_destroy(watch);
        zsock_destroy(&dealer);
        return NULL;
    }
    return dealer;
}

static void end_compute(zsock_t *pipe, int code)
{
    zsock_send(pipe, "si", "END", code);
}

/* Stops the running job: a perft sees the flag, a search is told (the cancel lock held). */
static void stop_running_locked(shared_t *sh)
{
    atomic_store(&sh->job_cancel, 1);
    if (sh->searching) ply_analysis_stop(sh->searching);
}

static void stop_running(shared_t *sh)
{
    pthread_mutex_lock(&sh->cancel_lock);
    stop_running_locked(sh);
    pthread_mutex_unlock(&sh->cancel_lock);
}

/* Stops the running job and any later one (shutting down). */
static void cancel_all(shared_t *sh)
{
    atomic_store(&sh->cancel, 1);
    stop_running(sh);
}

/*
 * HELLO and credit: the first session, a reconnect, or a HELLO again because
 * the coordinator does not know us (it restarted, or dropped us as hung or
 * dead). Jobs of an earlier session are the coordinator's to re-queue: they
 * are dropped here, and the credit starts afresh.
 */
static void new_session(zsock_t *dealer, shared_t *sh, int first)
{
    if (!first) {
        atomic_fetch_add(&sh->epoch, 1);
        stop_running(sh);
    }
    send_hello(dealer, sh);
    send_ready(dealer, 1 + sh->cfg->prefetch);
}

/* The coordinator took back (@job_id, @attempt): stop it if it runs, never start it. */
static void cancel_job(shared_t *sh, uint64_t job_id, uint32_t attempt)
{
    pthread_mutex_lock(&sh->cancel_lock);
    unsigned i = sh->next_canceled++ % CANCELED_KEEP;
    sh->canceled[i].job_id = job_id;
    sh->canceled[i].attempt = attempt;
    int running = atomic_load(&sh->job_id) == job_id && atomic_load(&sh->attempt) == attempt;
    if (running) stop_running_locked(sh);
    pthread_mutex_unlock(&sh->cancel_lock);
    ply_info("job %llu attempt %u canceled by the coordinator%s", (unsigned long long)job_id,
             (unsigned)attempt, running ? ": stopping it" : "");
}

/* Makes @job the running one (heartbeats name it, Cancel can stop it, and the search of
 * @search, when not NULL), unless the coordinator has already taken it back: then
 * PLY_ECANCELED. */
static int job_begin(shared_t *sh, const Ply__Job *job, ply_analysis_t *search)
{
    int rc = 0;
    pthread_mutex_lock(&sh->cancel_lock);
    for (unsigned i = 0; i < CANCELED_KEEP; i++)
        if (sh->canceled[i].job_id == job->job_id && sh->canceled[i].attempt == job->attempt)
            rc = PLY_ECANCELED;
    if (!rc) {
        atomic_store(&sh->job_cancel, 0);
        atomic_store(&sh->attempt, job->attempt);
        atomic_store(&sh->job_id, job->job_id);
        sh->searching = search;
    }
    pthread_mutex_unlock(&sh->cancel_lock);
    return rc;
}

/* The running job is over: no Cancel may stop a search any more, nor a later one. */
static void job_end(shared_t *sh)
{
    pthread_mutex_lock(&sh->cancel_lock);
    if (sh->searching) ply_analysis_clear_stop(sh->searching);
    sh->searching = NULL;
    atomic_store(&sh->job_id, 0);
    pthread_mutex_unlock(&sh->cancel_lock);
}

static void net_actor(zsock_t *pipe, void *arg)
{
    shared_t *sh = arg;
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
                cancel_all(sh);
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
                    cancel_job(sh, msg->cancel->job_id, msg->cancel->attempt);
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
                    cancel_all(sh);
                    end_compute(pipe, 0);
                    ended = 1;
                }
                break;
            default: /* HEARTBEAT: liveness only */
                break;
            }
            ply_msg_free(&msg);
        }
        if (sh->stop && atomic_load(sh->stop)) cancel_all(sh);
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
                cancel_all(sh);
                end_compute(pipe, PLY_ETIMEDOUT);
                ended = 1;
            } else { /* start over: a restarted coordinator gets a fresh HELLO */
                ply_warn("coordinator %s %s; reconnecting", cfg->endpoint,
                         dropped ? "connection closed for good" : "silent");
                zpoller_remove(poller, dealer);
                if (watch) zpoller_remove(poller, watch);
                zsock_destroy(&watch);
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
    zsock_destroy(&watch);
    zsock_destroy(&dealer);
}

/* The network actor's thread: its end of the pipe is closed here, before the
 * compute side's join returns. */
typedef struct actor_thread {
    zsock_t *pipe; /* the actor's end */
    shared_t *sh;
    pthread_t thread;
    _Atomic int ended; /* net_actor has returned: nobody reads the pipe any more */
} actor_thread_t;

static void *actor_main(void *arg)
{
    actor_thread_t *t = arg;
    net_actor(t->pipe, t->sh);
    atomic_store(&t->ended, 1);
    zsock_destroy(&t->pipe);
    return NULL;
}

/* Starts the actor; returns the compute side's end of its pipe (after the
 * actor's first signal), or NULL. */
static zsock_t *actor_start(actor_thread_t *t, shared_t *sh)
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

/* Tells the actor to end ($TERM: it says BYE and closes), waits for its thread. */
static void actor_stop(actor_thread_t *t, zsock_t **front)
{
    if (!*front) return;
    /* an actor that has ended (it told END) reads nothing: do not wait on a send to it */
    zsock_set_sndtimeo(*front, 2000);
    if (!atomic_load(&t->ended)) zstr_send(*front, "$TERM");
    pthread_join(t->thread, NULL);
    zsock_destroy(front);
}

/* ---- the compute side ------------------------------------------------------- */

/* 1 when @sock has a message within @timeout_ms milliseconds. */
static int readable(zsock_t *sock, int timeout_ms)
{
    zmq_pollitem_t item = {zsock_resolve(sock), 0, ZMQ_POLLIN, 0};
    return zmq_poll(&item, 1, timeout_ms) > 0 && (item.revents & ZMQ_POLLIN);
}

static void hand_over(zsock_t *actor, const Ply__Message *msg)
{
    zmsg_t *z = ply_msg_encode(msg);
    if (!z) return;
    zmsg_pushstr(z, "SEND");
    zmsg_send(&z, actor);
}

static void send_job_error(zsock_t *actor, const Ply__Job *job, int code, const char *why)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Error err = PLY__ERROR__INIT;
    char line[PLY_MAX_TEXT];
    snprintf(line, sizeof line, "job %llu: %s", (unsigned long long)job->job_id, why);
    err.has_code = 1;
    err.code = code;
    err.message = line;
    err.has_job_id = 1;
    err.job_id = job->job_id;
    err.has_attempt = 1;
    err.attempt = job->attempt;
    msg.body_case = PLY__MESSAGE__BODY_ERROR;
    msg.error = &err;
    hand_over(actor, &msg);
}

static void send_result(zsock_t *actor, const Ply__Job *job, const ply_board_t *b,
                        const ply_perft_result_t *r)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Result res = PLY__RESULT__INIT;
    Ply__Stats stats = PLY__STATS__INIT;
    Ply__DivideEntry entries[PLY_MAX_MOVES];
    Ply__DivideEntry *entry_ptrs[PLY_MAX_MOVES];
    Ply__Stats entry_stats[PLY_MAX_MOVES];
    char uci[PLY_MAX_MOVES][6];

    res.has_job_id = 1;
    res.job_id = job->job_id;
    res.has_attempt = 1;
    res.attempt = job->attempt;
    res.has_nodes = 1;
    res.nodes = r->nodes;
    res.has_perft1 = 1;
    res.perft1 = (uint32_t)r->perft1;
    res.has_time_us = 1;
    res.time_us = r->time_ns / 1000;
    res.has_tt_probes = 1;
    res.tt_probes = r->tt_probes;
    res.has_tt_hits = 1;
    res.tt_hits = r->tt_hits;
    res.has_tt_nodes = 1;
    res.tt_nodes = r->tt_nodes;
    if (job->perft->stats) {
        ply_msg_stats_to_proto(&stats, &r->stats);
        res.stats = &stats;
    }
    for (int i = 0; i < r->ndivide; i++) {
        ply__divide_entry__init(&entries[i]);
        ply_board_move_to_uci(b, r->divide[i].move, uci[i]);
        entries[i].move = uci[i];
        entries[i].has_nodes = 1;
        entries[i].nodes = r->divide[i].nodes;
        if (job->perft->stats) {
            ply__stats__init(&entry_stats[i]);
            ply_msg_stats_to_proto(&entry_stats[i], &r->divide[i].stats);
            entries[i].stats = &entry_stats[i];
        }
        entry_ptrs[i] = &entries[i];
    }
    res.n_divide = (size_t)r->ndivide;
    res.divide = entry_ptrs;
    msg.body_case = PLY__MESSAGE__BODY_RESULT;
    msg.result = &res;
    hand_over(actor, &msg);
}

/*
 * A count of at most this many plies (tens of thousands of nodes) runs on one
 * thread without the table: a team of threads costs more than it saves, and
 * the table's pages cost a page fault each when first written (a 2 MiB huge
 * page zeroed: 256 MiB of table took 2 s of kernel time in 900 checks of an
 * EPD suite of 1-3 plies, which then ran in 3.2 s instead of 1.2 s).
 */
#define SMALL_JOB_DEPTH 3u

/* The table follows the job kind: node counts and statistics need different
 * payloads, so switching kind rebuilds it at the same size. */
static int ensure_table(ply_tt_t **tt, unsigned hash_mib, int stats)
{
    unsigned words = stats ? PLY_STATS_N : 1;
    if (!hash_mib) return 0;
    if (*tt && ply_tt_payload_words(*tt) == words) return 0;
    ply_tt_destroy(tt);
    *tt = ply_tt_new((size_t)hash_mib << 20, words);
    return *tt ? 0 : PLY_ENOMEM;
}

/* A search job's answer: the lines as the backend gave them (UCI text), in a Result. */
static int send_search_result(zsock_t *actor, const Ply__Job *job, const ply_analysis_t *an,
                              const ply_analysis_result_t *r, uint64_t time_us)
{
    ply_search_msg_t *m = malloc(sizeof *m);
    if (!m) return PLY_ENOMEM;
    ply_search_msg_fill(m, job, an, r, time_us);
    Ply__Message msg = PLY__MESSAGE__INIT;
    msg.body_case = PLY__MESSAGE__BODY_RESULT;
    msg.result = &m->res;
    hand_over(actor, &msg);
    free(m);
    return 0;
}

/*
 * A SEARCH job on the analysis backend @*an, created here on first use (and the perft
 * table @*tt freed first: the two tables never both hold the worker's --hash). A bad
 * position or move is an Error about the job; a cancelled search sends nothing.
 */
static int run_search(zsock_t *actor, shared_t *sh, ply_tt_t **tt, ply_analysis_t **an,
                      const Ply__Job *job, unsigned epoch)
{
    const Ply__SearchJob *sj = job->search; /* present: envelope.c checked the kind's shape */
    ply_analysis_t *given = sh->cfg->search_backend; /* --engine's: never freed here */
    if (given) an = &given;
    if (!*an) {
        ply_tt_destroy(tt);
        unsigned mib = sh->cfg->hash_mib ? sh->cfg->hash_mib : 1; /* --hash 0: the least */
        *an = ply_analysis_builtin_new(mib, sh->threads < 1024 ? sh->threads : 1024);
        if (!*an) {
            send_job_error(actor, job, PLY_ENOMEM, "cannot allocate the search table");
            return PLY_ENOMEM;
        }
    }
    ply_analysis_job_t aj = {0};
    aj.fen = sj->fen;
    aj.chess960 = sj->has_chess960 && sj->chess960;
    aj.moves = (const char *const *)sj->moves, aj.n_moves = (int)sj->n_moves;
    aj.searchmoves = (const char *const *)sj->searchmoves;
    aj.n_searchmoves = (int)sj->n_searchmoves;
    aj.depth = sj->has_depth ? (int)sj->depth : 0;
    aj.nodes = sj->has_nodes ? sj->nodes : 0;
    aj.movetime_ms = sj->has_movetime_ms ? sj->movetime_ms : 0;
    aj.multipv = sj->has_multipv ? (int)sj->multipv : 1;
    aj.reproducible = sj->has_reproducible && sj->reproducible;
    aj.progress = &sh->progress;
    int plies[PLY_SEARCH_MAX_MULTIPV];
    aj.plies = plies;
    aj.n_plies = (int)sj->n_plies; /* > PLY_SEARCH_MAX_MULTIPV: refused by ply_analysis_run */
    for (size_t i = 0; i < sj->n_plies && i < PLY_SEARCH_MAX_MULTIPV; i++)
        plies[i] = sj->plies[i] > INT_MAX ? INT_MAX : (int)sj->plies[i]; /* checked there */
    ply_analysis_result_t *r = malloc(sizeof *r);
    if (!r) return PLY_ENOMEM;
    if (atomic_load(&sh->cancel)) {
        free(r);
        return PLY_ECANCELED;
    }
    atomic_store(&sh->progress, 0);
    if (job_begin(sh, job, *an) < 0) { /* taken back while it was queued */
        free(r);
        return PLY_ECANCELED;
    }
    char why[256];
    uint64_t t0 = ply_time_ns();
    /* A reproducible job of ply's engine searches with the default seed's keys, so that
     * workers of other seeds (perft's checks) give the same answer: table indices follow the
     * keys. The keys are the worker's again before any other job. */
    int keys = aj.reproducible && !given && sh->zobrist_seed != PLY_ZOBRIST_DEFAULT_SEED;
    if (keys) ply_zobrist_init(PLY_ZOBRIST_DEFAULT_SEED);
    int rc = epoch == atomic_load(&sh->epoch) ? ply_analysis_run(*an, &aj, r, why, sizeof why)
                                              : PLY_ECANCELED;
    if (keys) ply_zobrist_init(sh->zobrist_seed);
    uint64_t time_us = (ply_time_ns() - t0) / 1000;
    int canceled = atomic_load(&sh->job_cancel) || epoch != atomic_load(&sh->epoch);
    job_end(sh);
    atomic_store(&sh->progress, 0);
    if (rc == 0 && !canceled) {
        atomic_fetch_add(&sh->done, r->nodes);
        ply_debug("job %llu: search, %llu nodes in %.3f s", (unsigned long long)job->job_id,
                  (unsigned long long)r->nodes, time_us / 1e6);
#ifdef PLY_FAULT_INJECTION
        /* test builds only: a lying worker, the score of every Nth search off by 7 cp (its
         * line legal: only a second search can tell) */
        if (sh->cfg->fault_every && ++sh->results % sh->cfg->fault_every == 0 && r->n_lines &&
            !r->lines[0].is_mate)
            r->lines[0].score += 7;
#endif
        rc = send_search_result(actor, job, *an, r, time_us);
    } else if (canceled) {
        rc = PLY_ECANCELED; /* stopped early: its lines are not the job's answer */
    } else {
        send_job_error(actor, job, rc, why);
        rc = rc == PLY_ENOMEM ? rc : 0;
    }
    free(r);
    return rc;
}

static int run_job(zsock_t *actor, shared_t *sh, ply_tt_t **tt, ply_analysis_t **an,
                   ply_perft_result_t *r, const Ply__Job *job, unsigned epoch)
{
    if (job->kind == PLY__JOB_KIND__JOB_KIND_SEARCH)
        return run_search(actor, sh, tt, an, job, epoch);
    char why[256];
    if (job->kind != PLY__JOB_KIND__JOB_KIND_PERFT) { /* a kind this worker did not list */
        snprintf(why, sizeof why, "job kind %u is not one this worker runs", (unsigned)job->kind);
        send_job_error(actor, job, PLY_EINVAL, why);
        return 0;
    }
    const Ply__PerftJob *pj = job->perft; /* the envelope checked it is there */
    ply_analysis_destroy(an); /* its table gives way to the perft table (ensure_table) */
    ply_board_t b;
    int rc =
        ply_board_from_fen(&b, pj->fen, pj->chess960 ? PLY_BOARD_CHESS960 : 0, why, sizeof why);
    if (rc < 0) {
        send_job_error(actor, job, rc, why);
        return 0;
    }
    if ((rc = ensure_table(tt, sh->cfg->hash_mib, pj->stats)) < 0) {
        send_job_error(actor, job, rc, "cannot allocate the transposition table");
        return rc;
    }
    ply_perft_opts_t opts = {0};
    opts.threads = sh->threads;
    /* a check on the worker (or seed) that counted first must not read its table back */
    opts.tt = pj->has_no_hash && pj->no_hash ? NULL : *tt;
    if (pj->depth <= SMALL_JOB_DEPTH) opts.tt = NULL, opts.threads = 1;
    opts.stats = pj->stats;
    opts.divide = pj->divide;
    opts.progress = &sh->progress;
    opts.cancel = &sh->job_cancel;
    if (atomic_load(&sh->cancel)) return PLY_ECANCELED;
    atomic_store(&sh->progress, 0);
    if (job_begin(sh, job, NULL) < 0) return PLY_ECANCELED; /* taken back while it was queued */
    if (epoch != atomic_load(&sh->epoch)) {                 /* a new session began */
        atomic_store(&sh->job_id, 0);
        return PLY_ECANCELED;
    }
    rc = ply_perft_run(&b, (int)pj->depth, &opts, r);
    atomic_store(&sh->job_id, 0);
    atomic_store(&sh->progress, 0);
    if (rc == PLY_ECANCELED) return rc; /* the coordinator re-queues it */
    if (rc == PLY_ERANGE) { /* a count that a 64-bit result cannot carry: never a wrapped one */
        snprintf(why, sizeof why, "perft(%u) of this position exceeds 2^64; use a deeper split",
                 (unsigned)pj->depth);
        send_job_error(actor, job, rc, why);
        return 0;
    }
    if (rc < 0) {
        send_job_error(actor, job, rc, ply_strerror(rc));
        return 0;
    }
    atomic_fetch_add(&sh->done, r->nodes);
    ply_debug("job %llu: %llu nodes in %.3f s", (unsigned long long)job->job_id,
              (unsigned long long)r->nodes, r->time_ns / 1e9);
    if (epoch != atomic_load(&sh->epoch)) return PLY_ECANCELED; /* its session is over */
#ifdef PLY_FAULT_INJECTION
    /* test builds only: a faulty worker, one count in fault_every off by one */
    if (sh->cfg->fault_every && ++sh->results % sh->cfg->fault_every == 0) {
        r->nodes++;
        r->stats.v[PLY_STAT_nodes]++;
        if (r->ndivide) r->divide[0].nodes++, r->divide[0].stats.v[PLY_STAT_nodes]++;
        ply_warn("fault injection: job %llu reported as %llu nodes",
                 (unsigned long long)job->job_id, (unsigned long long)r->nodes);
    }
#endif
    send_result(actor, job, &b, r);
    return 0;
}

static void ask_for_more(zsock_t *actor, unsigned credit)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Ready ready = PLY__READY__INIT;
    ready.has_credit = 1;
    ready.credit = credit;
    msg.body_case = PLY__MESSAGE__BODY_READY;
    msg.ready = &ready;
    hand_over(actor, &msg);
}

int ply_worker_run(const ply_worker_config_t *cfg, const _Atomic int *stop)
{
    if (!cfg || !cfg->endpoint || cfg->threads < 0) return PLY_EINVAL;
    shared_t *sh = calloc(1, sizeof *sh);
    ply_perft_result_t *result = malloc(sizeof *result);
    if (!sh || !result) {
        free(sh);
        free(result);
        return PLY_ENOMEM;
    }
    sh->cfg = cfg;
    sh->zobrist_seed = ply_zobrist_seed();
    sh->zobrist_checksum = ply_zobrist_checksum();
    sh->stop = stop;
    pthread_mutex_init(&sh->cancel_lock, NULL);
    sh->threads = cfg->threads > 0 ? cfg->threads : omp_get_num_procs();
    if (cfg->worker_id) {
        snprintf(sh->worker_id, sizeof sh->worker_id, "%s", cfg->worker_id);
    } else {
        char host[64] = "localhost";
        gethostname(host, sizeof host - 1);
        snprintf(sh->worker_id, sizeof sh->worker_id, "%s:%d", host, (int)getpid());
    }

    ply_tt_t *tt = NULL;
    ply_analysis_t *analysis = NULL; /* made by the first search job */
    int rc = 0;
    if (cfg->hash_mib && !(tt = ply_tt_new((size_t)cfg->hash_mib << 20, 1))) rc = PLY_ENOMEM;
    actor_thread_t actor_thread;
    zsock_t *actor = rc ? NULL : actor_start(&actor_thread, sh);
    if (!rc && !actor) rc = PLY_ECONNECT;

    unsigned jobs = 0;
    while (!rc) {
        if (stop && atomic_load(stop)) break;
        if (!readable(actor, 100)) continue;
        zmsg_t *cmd = zmsg_recv(actor);
        if (!cmd) break;
        char *verb = zmsg_popstr(cmd);
        if (verb && streq(verb, "JOB")) {
            zframe_t *f = zmsg_pop(cmd);
            ply_msg_t *msg =
                f && zframe_size(f) == sizeof(void *) ? *(ply_msg_t **)zframe_data(f) : NULL;
            zframe_destroy(&f);
            char *ep = zmsg_popstr(cmd);
            unsigned epoch = ep ? (unsigned)atoi(ep) : 0;
            free(ep);
            if (msg && epoch != atomic_load(&sh->epoch)) {
                ply_msg_free(&msg); /* handed out in an earlier session: re-queued there */
            } else if (msg) {
                rc = run_job(actor, sh, &tt, &analysis, result, msg->job, epoch);
                ply_msg_free(&msg);
                int stale = rc == PLY_ECANCELED && epoch != atomic_load(&sh->epoch);
                if (rc == PLY_ECANCELED) rc = 0;
                if (stale) {
                    free(verb);
                    zmsg_destroy(&cmd);
                    continue; /* the new session has asked for its own credit */
                }
                jobs++;
                if (cfg->max_jobs && jobs >= cfg->max_jobs) {
                    free(verb);
                    zmsg_destroy(&cmd);
                    break;
                }
                if (!atomic_load(&sh->cancel)) ask_for_more(actor, 1);
            }
        } else if (verb && streq(verb, "END")) {
            char *code = zmsg_popstr(cmd);
            rc = code ? atoi(code) : 0;
            free(code);
            free(verb);
            zmsg_destroy(&cmd);
            break;
        }
        free(verb);
        zmsg_destroy(&cmd);
    }
    /* Jobs still queued in the pipe carry decoded messages: free them. */
    while (actor && readable(actor, 0)) {
        zmsg_t *cmd = zmsg_recv(actor);
        char *verb = cmd ? zmsg_popstr(cmd) : NULL;
        zframe_t *f = verb && streq(verb, "JOB") ? zmsg_pop(cmd) : NULL;
        if (f && zframe_size(f) == sizeof(void *)) ply_msg_free((ply_msg_t **)zframe_data(f));
        zframe_destroy(&f);
        free(verb);
        zmsg_destroy(&cmd);
    }
    actor_stop(&actor_thread, &actor); /* $TERM: the actor says BYE and closes */
    ply_tt_destroy(&tt);
    ply_analysis_destroy(&analysis);
    free(result);
    pthread_mutex_destroy(&sh->cancel_lock);
    free(sh);
    return rc;
}
