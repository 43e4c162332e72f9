/*
 * The fake worker of fake_worker.h: the protocol's worker side over a
 * DEALER, computing with the arbiter. One thread owns the socket; the test
 * talks to it only through atomics.
 */
#include "fake_worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <czmq.h>

#include "arbiter/arbiter.h"
#include "envelope.h"
#include "security.h"
#include "util/stats.h"
#include "util/time.h"

struct fake_worker {
    pthread_t thread;
    char endpoint[256];
    fake_worker_mode_t mode;
    unsigned credit;
    fake_worker_opts_t opts;
    char id[64];
    atomic_int stop, done, jobs, no_hash, errors;
    uint64_t nodes; /* counted so far, carried by heartbeats (hang detection) */
    /* the positions lied on (hashes), for fake_worker_lies */
    pthread_mutex_t lock;
    uint64_t lied[4096];
    int nlied;
    uint64_t id_min, id_max; /* the job ids it received */
};

/* FNV-1a of a position and a seed: which jobs a liar lies on. */
static uint64_t fen_hash(const char *fen, unsigned seed)
{
    uint64_t h = 14695981039346656037u ^ seed;
    for (const unsigned char *p = (const unsigned char *)fen; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return h ^ h >> 29;
}

/* Whether the liar lies on @job (its @n-th, 0-based); notes the position when it does. */
static int lies_on(fake_worker_t *w, const Ply__Job *job, unsigned n)
{
    if (!w->opts.lie_permille) return 0;
    if (w->opts.lie_skip_every && n % w->opts.lie_skip_every == 0) return 0;
    uint64_t h = fen_hash(job->perft->fen, w->opts.lie_seed);
    if (h % 1000 >= w->opts.lie_permille) return 0;
    pthread_mutex_lock(&w->lock);
    int known = 0;
    for (int i = 0; i < w->nlied; i++) known |= w->lied[i] == h;
    if (!known && w->nlied < (int)(sizeof w->lied / sizeof *w->lied)) w->lied[w->nlied++] = h;
    pthread_mutex_unlock(&w->lock);
    return 1;
}

static atomic_int fw_serial;

static void send_ready(zsock_t *s, unsigned credit)
{
    Ply__Ready r = PLY__READY__INIT;
    r.has_credit = 1, r.credit = credit;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_READY;
    m.ready = &r;
    ply_msg_send(s, &m);
}

static void send_heartbeat(zsock_t *s, uint64_t nodes)
{
    Ply__Heartbeat h = PLY__HEARTBEAT__INIT;
    h.has_nodes = 1, h.nodes = nodes;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HEARTBEAT;
    m.heartbeat = &h;
    ply_msg_send(s, &m);
}

/* Counts the job with the arbiter and sends the RESULT (off by @offset when faulty). */
static uint64_t do_job(zsock_t *s, const Ply__Job *job, fake_worker_mode_t mode, long offset,
                       int bad_perft1, unsigned ns_per_node)
{
    uint64_t t0 = ply_time_ns();
    ply_arb_pos_t pos;
    char why[256];
    if (ply_arb_from_fen(&pos, job->perft->fen, job->perft->chess960 ? PLY_ARB_CHESS960 : 0, why,
                         sizeof why)) {
        ply_msg_send_error(s, NULL, PLY_EFEN, why, job->job_id, job->attempt, job->run_id);
        return 0;
    }
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    int n = ply_arb_legal_moves(&pos, moves);
    ply_stats_t st;
    uint64_t nodes;
    if (job->perft->stats) {
        ply_arb_perft_stats(&pos, (int)job->perft->depth, &st);
        nodes = st.v[PLY_STAT_nodes];
    } else {
        nodes = ply_arb_perft(&pos, (int)job->perft->depth);
    }
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = job->job_id;
    r.has_attempt = 1, r.attempt = job->attempt;
    uint64_t inflate = mode == FW_INFLATE ? FW_INFLATE_BY : 0;
    nodes += (uint64_t)offset + inflate;
    if (job->perft->stats) st.v[PLY_STAT_nodes] = nodes, st.v[PLY_STAT_captures] += inflate;
    r.has_nodes = 1, r.nodes = nodes;
    r.has_perft1 = 1, r.perft1 = (uint32_t)n + (mode == FW_WRONG_PERFT1 || bad_perft1);
    if (mode == FW_BAD_STATS) st.v[PLY_STAT_total_checks]++;
    if (mode == FW_BAD_TABLE) r.has_tt_probes = r.has_tt_hits = 1, r.tt_probes = 5, r.tt_hits = 6;
    Ply__Stats ps = PLY__STATS__INIT;
    if (job->perft->stats) {
        ply_msg_stats_to_proto(&ps, &st);
        r.stats = &ps;
    }
    Ply__DivideEntry ent[PLY_ARB_MAX_MOVES], *ptr[PLY_ARB_MAX_MOVES];
    char uci[PLY_ARB_MAX_MOVES][6];
    if (job->perft->divide) {
        for (int i = 0; i < n; i++) {
            ply_arb_pos_t child = pos;
            ply_arb_make(&child, moves[i]);
            ply_arb_move_to_uci(&pos, moves[i], uci[i]);
            ent[i] = (Ply__DivideEntry)PLY__DIVIDE_ENTRY__INIT;
            ent[i].move = uci[i];
            ent[i].has_nodes = 1;
            ent[i].nodes = ply_arb_perft(&child, (int)job->perft->depth - 1) +
                           (i == 0 ? (uint64_t)offset + inflate : 0);
            ptr[i] = &ent[i];
        }
        if (mode == FW_WRAP_DIVIDE && n >= 2)
            ent[0].nodes += 1ull << 63, ent[1].nodes += 1ull << 63;
        r.n_divide = (size_t)n;
        r.divide = ptr;
    }
    if (mode == FW_SLOW) usleep(150000); /* below the tests' 300 ms liveness: it cannot heartbeat */
    if (ns_per_node) { /* the time a kernel would take: proportional to the job's size */
        uint64_t until = t0 + nodes * ns_per_node, now = ply_time_ns();
        if (until > now) usleep((useconds_t)((until - now) / 1000));
    }
    r.has_time_us = 1, r.time_us = (ply_time_ns() - t0) / 1000;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT;
    m.result = &r;
    if (mode == FW_MALFORMED_ONCE) { /* packed by hand and cut short: ply_msg_send would not */
        const size_t len = ply__message__get_packed_size(&m);
        uint8_t *buf = malloc(len);
        if (buf) {
            ply__message__pack(&m, buf);
            zmsg_t *z = zmsg_new();
            zmsg_addstr(z, PLY_PROTOCOL_ID);
            zmsg_addmem(z, buf, len - 3);
            zmsg_send(&z, s);
            free(buf);
        }
        return nodes;
    }
    ply_msg_send(s, &m);
    return nodes;
}

static void *fw_main(void *arg)
{
    fake_worker_t *w = arg;
    zsock_t *s = zsock_new(ZMQ_DEALER);
    ply_curve_client_t *key = NULL;
    if (s && w->opts.curve_cert) {
        char why[256];
        key = ply_curve_client_new(w->opts.curve_cert, w->opts.curve_server, why, sizeof why);
        if (!key) fprintf(stderr, "fake worker: %s\n", why);
        ply_curve_client_apply(key, s);
    }
    if (!s || (w->opts.curve_cert && !key) || zsock_connect(s, "%s", w->endpoint) != 0) {
        ply_curve_client_destroy(&key);
        zsock_destroy(&s);
        atomic_store(&w->done, 1);
        return NULL;
    }
    zpoller_t *poller = zpoller_new(s, NULL);
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = w->id;
    h.has_zobrist_seed = 1, h.zobrist_seed = w->opts.seed;
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.build = "fake worker (arbiter)";
    h.has_threads = 1, h.threads = w->opts.threads ? w->opts.threads : 1;
    h.has_hash_mib = 1, h.hash_mib = 0;
    h.has_zobrist_checksum = 1, h.zobrist_checksum = 0;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO;
    m.hello = &h;
    ply_msg_send(s, &m);
    send_ready(s, w->credit);
    uint64_t last_hb = ply_time_ms(), last_rx = last_hb;
    int vanished = 0, errored = 0, hung = 0;
    unsigned results = 0, received = 0;
    while (!atomic_load(&w->stop)) {
        /* like a real worker, leave when the coordinator has gone silent (it
         * heartbeats every 100 ms in the tests), so that no process outlives it */
        if (ply_time_ms() - last_rx > 3000) break;
        if (zpoller_wait(poller, 20)) {
            last_rx = ply_time_ms();
            ply_msg_t *in = NULL;
            char why[256];
            if (ply_msg_recv(s, &in, why, sizeof why) != 0) continue;
            if (in->body_case == PLY__MESSAGE__BODY_JOB) {
                pthread_mutex_lock(&w->lock);
                if (!w->id_min || in->job->job_id < w->id_min) w->id_min = in->job->job_id;
                if (in->job->job_id > w->id_max) w->id_max = in->job->job_id;
                pthread_mutex_unlock(&w->lock);
                atomic_fetch_add(&w->jobs, 1);
                if (in->job->perft && in->job->perft->has_no_hash && in->job->perft->no_hash)
                    atomic_fetch_add(&w->no_hash, 1);
                if (w->mode == FW_HANG || w->mode == FW_STALL || hung) {
                    /* takes it, never answers (FW_STALL: while claiming progress) */
                    hung = 1;
                    ply_msg_free(&in);
                    continue;
                }
                if (w->mode == FW_VANISH) {
                    vanished = 1;
                    ply_msg_free(&in);
                    break;
                }
                if ((w->mode == FW_ERROR_ONCE && !errored) || w->mode == FW_ERROR_ALWAYS) {
                    errored = 1;
                    ply_msg_send_error(s, NULL, PLY_EWORKER, "injected failure", in->job->job_id,
                                       in->job->attempt, in->job->run_id);
                } else {
                    long off = w->opts.offset + lies_on(w, in->job, received);
                    const fake_worker_mode_t mode =
                        w->mode == FW_MALFORMED_ONCE && results ? FW_NORMAL : w->mode;
                    w->nodes += do_job(s, in->job, mode, off, w->opts.bad_perft1_at == results + 1,
                                       w->opts.ns_per_node);
                    results++;
                }
                received++;
                if (w->opts.max_jobs && results >= w->opts.max_jobs) {
                    ply_msg_free(&in);
                    break;
                }
                send_ready(s, 1);
            } else if (in->body_case == PLY__MESSAGE__BODY_ERROR) {
                atomic_fetch_add(&w->errors, 1);
            } else if (in->body_case == PLY__MESSAGE__BODY_BYE) {
                ply_msg_free(&in);
                break;
            }
            ply_msg_free(&in);
        }
        if (ply_time_ms() - last_hb >= 100) {
            last_hb = ply_time_ms();
            if (hung && w->mode == FW_STALL) w->nodes += 1000000; /* progress it never makes */
            send_heartbeat(s, w->nodes);
        }
    }
    if (!vanished) {
        Ply__Bye b = PLY__BYE__INIT;
        b.reason = "fake worker stopping";
        ply_msg_t bm = PLY__MESSAGE__INIT;
        bm.body_case = PLY__MESSAGE__BODY_BYE;
        bm.bye = &b;
        ply_msg_send(s, &bm);
        zsock_set_linger(s, 200);
    } else {
        zsock_set_linger(s, 0);
    }
    zpoller_destroy(&poller);
    zsock_destroy(&s);
    ply_curve_client_destroy(&key);
    atomic_store(&w->done, 1);
    return NULL;
}

fake_worker_t *fake_worker_start(const char *endpoint, fake_worker_mode_t mode, unsigned credit)
{
    return fake_worker_start_opts(endpoint, mode, credit, NULL);
}

fake_worker_t *fake_worker_start_opts(const char *endpoint, fake_worker_mode_t mode,
                                      unsigned credit, const fake_worker_opts_t *opts)
{
    fake_worker_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    snprintf(w->endpoint, sizeof w->endpoint, "%s", endpoint);
    w->mode = mode;
    w->credit = credit ? credit : 1;
    if (opts) w->opts = *opts;
    if (w->opts.id)
        snprintf(w->id, sizeof w->id, "%s", w->opts.id);
    else
        snprintf(w->id, sizeof w->id, "fake-%d-%d", (int)getpid(), atomic_fetch_add(&fw_serial, 1));
    w->opts.id = NULL;
    atomic_init(&w->no_hash, 0);
    atomic_init(&w->stop, 0);
    atomic_init(&w->done, 0);
    atomic_init(&w->jobs, 0);
    atomic_init(&w->errors, 0);
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(&w->thread, NULL, fw_main, w) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

int fake_worker_no_hash_jobs(fake_worker_t *w)
{
    return atomic_load(&w->no_hash);
}

int fake_worker_jobs(fake_worker_t *w)
{
    return atomic_load(&w->jobs);
}

int fake_worker_lies(fake_worker_t *w)
{
    pthread_mutex_lock(&w->lock);
    int n = w->nlied;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void fake_worker_lies_reset(fake_worker_t *w)
{
    pthread_mutex_lock(&w->lock);
    w->nlied = 0;
    pthread_mutex_unlock(&w->lock);
}

void fake_worker_id_span(fake_worker_t *w, uint64_t *min, uint64_t *max)
{
    pthread_mutex_lock(&w->lock);
    *min = w->id_min;
    *max = w->id_max;
    pthread_mutex_unlock(&w->lock);
}

int fake_worker_errors(fake_worker_t *w)
{
    return atomic_load(&w->errors);
}

int fake_worker_done(fake_worker_t *w)
{
    return atomic_load(&w->done);
}

void fake_worker_stop(fake_worker_t **wp)
{
    if (!wp || !*wp) return;
    atomic_store(&(*wp)->stop, 1);
    pthread_join((*wp)->thread, NULL);
    pthread_mutex_destroy(&(*wp)->lock);
    free(*wp);
    *wp = NULL;
}

#ifdef FAKE_WORKER_MAIN
#include <signal.h>

static volatile sig_atomic_t fw_signalled;

static void on_term(int sig)
{
    (void)sig;
    fw_signalled = 1;
}

int main(int argc, char **argv)
{
    const char *endpoint = NULL;
    fake_worker_mode_t mode = FW_NORMAL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--connect") == 0) endpoint = argv[i + 1];
        if (strcmp(argv[i], "--inflate") == 0) mode = FW_INFLATE;
    }
    if (!endpoint) {
        fprintf(stderr, "usage: fake-worker --connect ENDPOINT\n");
        return 2;
    }
    zsys_handler_set(NULL);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    fake_worker_t *w = fake_worker_start(endpoint, mode, 2);
    if (!w) return 1;
    while (!fw_signalled && !fake_worker_done(w)) usleep(10000);
    fake_worker_stop(&w);
    return 0;
}
#endif
