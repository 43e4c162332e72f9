/*
 * The client library (client.h): one DEALER socket, SUBMIT then ACCEPTED,
 * then the stream of RUN_PROGRESS / HEARTBEAT until RUN_RESULT or ERROR.
 * Waiting uses a zpoller with the remaining time, so that a silent or
 * unreachable coordinator becomes PLY_ETIMEDOUT with a clear message and a
 * malformed message is logged and skipped, never trusted.
 */
#include "client.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "arbiter/arbiter.h"
#include "endpoint.h"
#include "envelope.h"
#include "security.h"
#include "util/error.h"
#include "util/log.h"
#include "util/random.h"
#include "util/time.h"

/* A search run's request as text (search_text): its longest moves lists and the rest. */
#define ASKED_SEARCH_LEN ((PLY_SEARCH_JOB_MAX_MOVES + PLY_MAX_DIVIDE) * 6 + PLY_MAX_FEN_LEN + 256)

/* What a run computes (RunAsked), as the client compares it. */
typedef struct asked {
    char fen[PLY_MAX_FEN_LEN + 1];
    unsigned depth;
    int chess960, stats, split_depth, verify;
    uint32_t verify_ppm;
    int kind;                      /* a Ply__JobKind: PERFT or SEARCH */
    char search[ASKED_SEARCH_LEN]; /* kind SEARCH: the request, as search_text writes it */
} asked_t;

/*
 * What the connection watch (ply_conn_watch: libzmq's socket monitor) has seen of the
 * endpoint: whether anything there took a TCP connection, whether its ZeroMQ handshake
 * completed, whether the connection is up now. The waits use it to send their request again
 * on a new connection after one was lost (a coordinator restarted), and to name the cause
 * when no answer comes.
 */
typedef struct link {
    int up;              /* a handshake completed and the connection was not lost since */
    unsigned tcp;        /* TCP connections made (CONNECTED) */
    unsigned handshakes; /* handshakes completed (HANDSHAKE_SUCCEEDED): each a connection up */
    unsigned retries;    /* connects failed and tried again (CONNECT_RETRIED), since the last
                          * connection was lost or since the start */
    uint64_t lost_at;    /* when the last connection was lost (ply_time_ms), 0: never */
} link_t;

struct ply_client {
    zsock_t *sock;
    zpoller_t *poller;
    zsock_t *watch; /* the connection watch: connections, handshakes (a refused key) */
    char endpoint[256];
    link_t link;
    int fatal; /* a refusal read while draining the watch (watch_drain), for recv_one */
    char fatal_why[512];
    /* The request the current wait sends again on a connection made after a lost one
     * (a Submit, same idempotency key; a ResultRequest, a StatusRequest), encoded; NULL: none.
     * again_epoch is link.handshakes when it was last sent, again_live whether a connection was up
     * then (else it waited in the socket's queue and goes out on the next connection by itself). */
    zmsg_t *again;
    unsigned again_epoch;
    int again_live;
    /* The run this client waits for and what it computes: every answer about it is
     * checked against this before it is believed (client.h, ply_client_wait). */
    uint64_t expect_run;
    asked_t expect;
    /* A Submit sent whose Accepted is not read yet (ply_client_submit_send): what it asks,
     * or pend_rc < 0 when this client cannot read its position (pend_fen, for the error). */
    int pending, pend_rc;
    asked_t pend;
    char pend_fen[PLY_MAX_FEN_LEN + 1];
};

/* The owner token of this process's clients (client.h): set once, else random. */
static char owner_token[PLY_MAX_OWNER_TOKEN + 1];
static pthread_once_t owner_once = PTHREAD_ONCE_INIT;

static void owner_random(void)
{
    if (owner_token[0]) return;
    uint8_t b[32];
    if (ply_random_bytes(b, sizeof b) < 0) return; /* no token: the connection owns the runs */
    for (size_t i = 0; i < sizeof b; i++) snprintf(owner_token + 2 * i, 3, "%02x", b[i]);
}

int ply_client_set_owner_token(const char *token)
{
    size_t n = token ? strlen(token) : 0;
    if (n < PLY_MIN_OWNER_TOKEN || n > PLY_MAX_OWNER_TOKEN) return PLY_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (token[i] <= 0x20 || token[i] > 0x7e) return PLY_EINVAL;
    memcpy(owner_token, token, n + 1);
    return 0;
}

/* The token to send, or NULL when there is none. */
static char *owner(void)
{
    pthread_once(&owner_once, owner_random);
    return owner_token[0] ? owner_token : NULL;
}

/* ply_client_new, and with @patient ply_client_new_patient. */
static ply_client_t *client_new(const char *endpoint, int patient, char *why, size_t why_len)
{
    if (!endpoint || !endpoint[0]) {
        ply_why(why, why_len, 0, "no coordinator endpoint");
        return NULL;
    }
    /* ZeroMQ would retry a refused or unresolvable endpoint in silence until the timeout */
    int rc = ply_endpoint_probe_wait(endpoint, PLY_CLIENT_PROBE_MS,
                                     patient ? 0 : PLY_CLIENT_PROBE_GRACE_MS, why, why_len);
    if (rc < 0 && !(patient && rc == PLY_ECONNECT)) return NULL;
    ply_client_t *c = calloc(1, sizeof *c);
    if (!c || !(c->sock = zsock_new(ZMQ_DEALER))) {
        ply_why(why, why_len, 0, "cannot create a socket: %s", zmq_strerror(zmq_errno()));
        free(c);
        return NULL;
    }
    snprintf(c->endpoint, sizeof c->endpoint, "%s", endpoint);
    /* a result not yet delivered is worth nothing once the client is gone */
    zsock_set_linger(c->sock, 0);
    ply_msg_sock_limit(c->sock);
    /* ZMTP pings: a connection to a host that died without a word is dropped (and made
     * again, with the request sent again) rather than trusted until --timeout */
    zsock_set_heartbeat_ivl(c->sock, PLY_CLIENT_PING_MS);
    zsock_set_heartbeat_timeout(c->sock, PLY_CLIENT_PING_TIMEOUT_MS);
    ply_curve_client_apply(ply_curve_client_default(), c->sock); /* --curve keys, if any */
    c->watch = ply_conn_watch(c->sock, ply_curve_client_default(),
                              PLY_WATCH_CONNECTIONS | PLY_WATCH_HANDSHAKES);
    if (zsock_connect(c->sock, "%s", endpoint) == -1) {
        ply_why(why, why_len, 0, "cannot connect to %s: %s", endpoint, zmq_strerror(zmq_errno()));
        ply_client_destroy(&c);
        return NULL;
    }
    if (!(c->poller = zpoller_new(c->sock, c->watch, NULL))) {
        ply_why(why, why_len, 0, "out of memory");
        ply_client_destroy(&c);
        return NULL;
    }
    return c;
}

ply_client_t *ply_client_new(const char *endpoint, char *why, size_t why_len)
{
    return client_new(endpoint, 0, why, why_len);
}

ply_client_t *ply_client_new_patient(const char *endpoint, char *why, size_t why_len)
{
    return client_new(endpoint, 1, why, why_len);
}

void ply_client_destroy(ply_client_t **cp)
{
    if (!cp || !*cp) return;
    ply_client_t *c = *cp;
    zpoller_destroy(&c->poller);
    zmsg_destroy(&c->again);
    ply_conn_watch_destroy(&c->watch, c->sock);
    zsock_destroy(&c->sock);
    free(c);
    *cp = NULL;
}

/* recv_one: no message, but a connection came up (its handshake completed): after a lost
 * one (a coordinator restarted), the wait's request may have to go again (rejoined). */
#define LINK_UP 1

/* Reads one event of the connection watch into c->link. Returns 0, LINK_UP, or PLY_EAUTH
 * with the reason in @why (a refused key, a CURVE server to a plain client). */
static int watch_event(ply_client_t *c, char *why, size_t why_len)
{
    int event;
    int r = ply_conn_watch_read_event(c->watch, ply_curve_client_default(), &event, why, why_len);
    if (r < 0) return r;
    link_t *l = &c->link;
    switch (event) {
    case ZMQ_EVENT_CONNECTED:
        l->tcp++;
        break;
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
        l->handshakes++, l->up = 1, l->retries = 0;
        return LINK_UP;
    case ZMQ_EVENT_DISCONNECTED:
        l->up = 0, l->lost_at = ply_time_ms(), l->retries = 0;
        break;
    case ZMQ_EVENT_CONNECT_RETRIED:
        if (!l->up) l->retries++;
        break;
    default:
        break;
    }
    return 0;
}

/* Reads the events already waiting on the watch, so that what is known of the connection
 * is fresh before a request is sent; a refusal among them is kept for recv_one. */
static void watch_drain(ply_client_t *c)
{
    while (c->watch && !c->fatal && (zsock_events(c->watch) & ZMQ_POLLIN))
        c->fatal = watch_event(c, c->fatal_why, sizeof c->fatal_why) < 0 ? PLY_EAUTH : 0;
}

/*
 * Waits up to @timeout_ms (< 0: forever) for one message. Returns 0 with *msg,
 * PLY_ETIMEDOUT, LINK_UP (no message: a connection came up),
 * PLY_ECANCELED (interrupted), PLY_EAUTH (the coordinator refused our CURVE key, the
 * handshake failed, or it speaks CURVE and we do not), or a decode error (the message
 * was received but is malformed: the caller skips it).
 */
static int recv_one(ply_client_t *c, int timeout_ms, ply_msg_t **msg, char *why, size_t why_len)
{
    if (c->fatal) return ply_why(why, why_len, c->fatal, "%s", c->fatal_why);
    uint64_t deadline = ply_time_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        uint64_t now = ply_time_ms();
        int left = timeout_ms < 0 ? -1 : now < deadline ? (int)(deadline - now) : 0;
        void *ready = zpoller_wait(c->poller, left);
        if (ready == c->sock) return ply_msg_recv(c->sock, msg, why, why_len);
        if (ready && ready == c->watch) {
            int r = watch_event(c, why, why_len);
            if (r < 0) { /* libzmq does not try again after it: nor do the next waits */
                c->fatal = r;
                snprintf(c->fatal_why, sizeof c->fatal_why, "%s", why ? why : "");
            }
            if (r != 0) return r;
            continue;
        }
        if (zpoller_terminated(c->poller)) {
            /* A signal nobody asked us to stop for (SIGCHLD: the embedded coordinator's
             * libuv reaping a local worker that died, on whichever thread the kernel
             * picked) interrupts the poll too; only czmq's own interrupt flag, or a
             * context being destroyed, means stop. */
            if (errno == EINTR && !zsys_interrupted) continue;
            ply_why(why, why_len, 0, "interrupted");
            return PLY_ECANCELED;
        }
        return PLY_ETIMEDOUT;
    }
}

/* Sends the frames of @m on @sock, keeping @m. 0 or PLY_EIO. */
static int send_frames(zsock_t *sock, zmsg_t *m)
{
    size_t left = zmsg_size(m);
    int rc = 0;
    for (zframe_t *f = zmsg_first(m); rc == 0 && f; f = zmsg_next(m))
        rc = zframe_send(&f, sock, (--left ? ZFRAME_MORE : 0) | ZFRAME_REUSE);
    return rc == 0 ? 0 : PLY_EIO;
}

/* Sends @m, the request of the wait to come, and keeps it to send again on a new
 * connection (rejoined): only for a request that is the same when it comes twice (a
 * Submit with its idempotency key, a ResultRequest). 0, PLY_EINVAL (cannot encode) or
 * PLY_EIO. */
static int send_kept(ply_client_t *c, const ply_msg_t *m)
{
    zmsg_destroy(&c->again);
    if (!(c->again = ply_msg_encode(m))) return PLY_EINVAL;
    watch_drain(c);
    c->again_epoch = c->link.handshakes;
    c->again_live = c->link.up;
    return send_frames(c->sock, c->again);
}

/* A connection came up: the kept request goes again when it was sent on a connection now
 * gone (else it waited in the socket's queue and went out on this one by itself). */
static void rejoined(ply_client_t *c)
{
    if (!c->again) return;
    if (c->again_live && c->again_epoch != c->link.handshakes) {
        ply_info("client: %s is back; sending the request again", c->endpoint);
        send_frames(c->sock, c->again);
    }
    c->again_epoch = c->link.handshakes;
    c->again_live = 1;
}

/*
 * PLY_ETIMEDOUT after @ms of waiting for the coordinator to have done @what ("acknowledged
 * the run", "answered"), naming the cause as the connection watch saw it: a coordinator
 * that took the connection and its handshake but not the request (busy, or it lost it);
 * a connection lost and not back; nothing there that took a TCP connection (refused or
 * unreachable: not running there); a TCP connection whose ZeroMQ handshake never
 * completed. The CURVE hint only where CURVE can be the cause. Without a watch
 * (inproc://, or the monitor did not start) it cannot tell, and says what it may be.
 */
static int silence(const ply_client_t *c, int ms, const char *what, char *why, size_t why_len)
{
    const link_t *l = &c->link;
    double s = ms / 1000.0, lost_s = (double)(ply_time_ms() - l->lost_at) / 1000.0;
    const int curve = ply_curve_client_default() != NULL;
    if (l->up)
        return ply_why(why, why_len, PLY_ETIMEDOUT,
                       "the coordinator at %s accepted the connection but has not %s in %.1f s "
                       "(it is busy, or it lost the request)",
                       c->endpoint, what, s);
    if (l->handshakes)
        return ply_why(why, why_len, PLY_ETIMEDOUT,
                       "lost the connection to the coordinator at %s %.1f s ago, and no "
                       "connection could be made since (tried %u times): it has not %s in "
                       "%.1f s; is it restarting, or gone?",
                       c->endpoint, lost_s, l->retries, what, s);
    if (l->tcp)
        return ply_why(why, why_len, PLY_ETIMEDOUT,
                       "%s accepted a TCP connection but never completed the ZeroMQ handshake "
                       "in %.1f s (%s)",
                       c->endpoint, s,
                       curve ? "with --curve: is --server-key the coordinator's public key?"
                             : "is it a ply coordinator, or a process that hangs?");
    if (l->retries)
        return ply_why(why, why_len, PLY_ETIMEDOUT,
                       "no answer at all from %s in %.1f s: no connection could be made there "
                       "(refused or unreachable, tried %u times): is a coordinator running "
                       "there?",
                       c->endpoint, s, l->retries);
    /* inproc:// (the embedded coordinator) makes no connection to watch: it is there */
    const int inproc = !strncmp(c->endpoint, "inproc://", 9);
    return ply_why(why, why_len, PLY_ETIMEDOUT, "no answer from coordinator %s within %d ms%s",
                   c->endpoint, ms,
                   inproc     ? " (it is busy, or it lost the request)"
                   : c->watch ? " (no connection made: not running there, or a firewall that "
                                "drops packets?)"
                   : curve    ? " (with --curve: is --server-key the coordinator's public key?)"
                              : " (a coordinator started with --curve answers only clients with "
                                "--curve --cert FILE --server-key FILE; or it is not running there, "
                                "or too busy)");
}

/*
 * What ends a wait for @what, due within @timeout_ms: no answer (PLY_ETIMEDOUT), an
 * interruption, a refused key; as the return value with the reason in @why. 0: go on
 * (a message, a malformed one to skip, or a connection up: rejoined).
 */
static int give_up(const ply_client_t *c, int r, int timeout_ms, const char *what,
                   const char *reason, char *why, size_t why_len)
{
    if (r == PLY_ETIMEDOUT) return silence(c, timeout_ms, what, why, why_len);
    if (r == PLY_ECANCELED || r == PLY_EAUTH) return ply_why(why, why_len, r, "%s", reason);
    return 0;
}

/* The coordinator's Error as our return value and reason. */
static int take_error(const Ply__Error *e, char *why, size_t why_len)
{
    ply_why(why, why_len, 0, "%s", e->message);
    return e->code < 0 ? e->code : PLY_EIO;
}

/* Appends the @n moves @list as " name m1 m2...;" to @buf (@len bytes, @k used). */
static size_t text_moves(char *buf, size_t len, size_t k, const char *name, char *const *list,
                         size_t n)
{
    if (!n || k >= len) return k;
    k += (size_t)snprintf(buf + k, len - k, " %s", name);
    for (size_t i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, " %s", list[i]);
    if (k < len) k += (size_t)snprintf(buf + k, len - k, ";");
    return k;
}

/* A search request as "fen F; moves a b; searchmoves c; depth D; ..." (what it asks, field by
 * field; an absent or empty engine is the same request), into @buf (@len bytes). */
static void search_text(const Ply__SearchRequest *q, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "fen %s;", q->fen ? q->fen : "");
    k = text_moves(buf, len, k, "moves", q->moves, q->n_moves);
    k = text_moves(buf, len, k, "searchmoves", q->searchmoves, q->n_searchmoves);
    if (q->n_plies && k < len) k += (size_t)snprintf(buf + k, len - k, " plies");
    for (size_t i = 0; i < q->n_plies && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, " %u", q->plies[i]);
    if (q->n_plies && k < len) k += (size_t)snprintf(buf + k, len - k, ";");
    if (q->has_depth && k < len) k += (size_t)snprintf(buf + k, len - k, " depth %u;", q->depth);
    if (q->has_nodes && k < len)
        k += (size_t)snprintf(buf + k, len - k, " nodes %" PRIu64 ";", q->nodes);
    if (q->has_movetime_ms && k < len)
        k += (size_t)snprintf(buf + k, len - k, " movetime_ms %u;", q->movetime_ms);
    if (q->deepen && k < len)
        k += (size_t)snprintf(buf + k, len - k, " deepen multipv %u%s;",
                              q->has_multipv && q->multipv ? q->multipv : 1,
                              q->infinite ? " infinite" : "");
    if (k < len)
        snprintf(buf + k, len - k, " chess960 %d; engine %s;", q->chess960 != 0,
                 q->engine && q->engine[0] ? q->engine : "any");
}

/* @a as an asked_t; PLY_EPROTO when the coordinator did not say. */
static int asked_from(asked_t *out, const Ply__RunAsked *a)
{
    memset(out, 0, sizeof *out);
    /* the decoder checked that the kind's request is there and in range */
    if (!a ||
        (a->kind != PLY__JOB_KIND__JOB_KIND_PERFT && a->kind != PLY__JOB_KIND__JOB_KIND_SEARCH))
        return PLY_EPROTO;
    out->kind = (int)a->kind;
    out->verify = a->has_verify ? (int)a->verify : PLY__VERIFY_MODE__VERIFY_MODE_NONE;
    out->verify_ppm = a->has_verify_ppm ? a->verify_ppm : 0;
    if (out->kind == PLY__JOB_KIND__JOB_KIND_SEARCH) { /* the request says it all */
        search_text(a->search, out->search, sizeof out->search);
        out->split_depth = -1;
        return 0;
    }
    const Ply__PerftRequest *p = a->perft;
    snprintf(out->fen, sizeof out->fen, "%s", p->fen);
    out->depth = p->depth;
    out->chess960 = p->chess960;
    out->stats = p->stats;
    out->split_depth = p->split_depth;
    out->verify_ppm = a->has_verify_ppm ? a->verify_ppm : 0;
    return 0;
}

/* The first field (";"-separated) where search texts @want and @got differ, as
 * "\"depth 6\", not \"depth 5\"" into @buf (@len bytes). */
static void search_diff(const char *want, const char *got, char *buf, size_t len)
{
    size_t i = 0, start = 0;
    while (want[i] && want[i] == got[i]) {
        if (want[i] == ';') start = i + 1;
        i++;
    }
    const char *w = want + start, *g = got + start;
    int wn = (int)strcspn(w, ";"), gn = (int)strcspn(g, ";");
    snprintf(buf, len, "search \"%.*s\", not \"%.*s\"", gn > 200 ? 200 : gn, g, wn > 200 ? 200 : wn,
             w);
}

/* The first difference between what @want and @got compute, as "depth 6, not 5", or "". */
static void asked_diff(const asked_t *want, const asked_t *got, char *buf, size_t len)
{
    buf[0] = '\0';
    if (want->kind != got->kind)
        snprintf(buf, len, "a %s run, not a %s run",
                 got->kind == PLY__JOB_KIND__JOB_KIND_SEARCH ? "search" : "perft",
                 want->kind == PLY__JOB_KIND__JOB_KIND_SEARCH ? "search" : "perft");
    else if (strcmp(want->search, got->search))
        search_diff(want->search, got->search, buf, len);
    else if (strcmp(want->fen, got->fen))
        snprintf(buf, len, "position \"%s\", not \"%s\"", got->fen, want->fen);
    else if (want->depth != got->depth)
        snprintf(buf, len, "depth %u, not %u", got->depth, want->depth);
    else if (want->chess960 != got->chess960)
        snprintf(buf, len, "%s, not %s", got->chess960 ? "Chess960" : "standard chess",
                 want->chess960 ? "Chess960" : "standard chess");
    else if (want->stats != got->stats)
        snprintf(buf, len, "%s statistics", got->stats ? "with" : "without");
    else if (want->split_depth != got->split_depth)
        snprintf(buf, len, "split depth %d, not %d (-1: automatic)", got->split_depth,
                 want->split_depth);
    else if (want->verify != got->verify || want->verify_ppm != got->verify_ppm)
        snprintf(buf, len, "verify mode %d (%u ppm), not %d (%u ppm)", got->verify, got->verify_ppm,
                 want->verify, want->verify_ppm);
}

/*
 * An answer about run @run_id says it computes @a: 0 when that is what this client
 * expects (or it expects nothing of that run yet: then it expects that from now on),
 * else PLY_EMISMATCH naming the difference (another run has the id: the coordinator
 * lost its history) or PLY_EPROTO (the answer does not say).
 */
static int check_asked(ply_client_t *c, uint64_t run_id, const Ply__RunAsked *a, char *why,
                       size_t why_len)
{
    asked_t got;
    if (asked_from(&got, a) < 0)
        return ply_why(why, why_len, PLY_EPROTO,
                       "coordinator %s did not say what run %" PRIu64
                       " computes: its answer is not taken",
                       c->endpoint, run_id);
    if (c->expect_run != run_id) {
        c->expect_run = run_id;
        c->expect = got;
        return 0;
    }
    char diff[2 * PLY_MAX_FEN_LEN + 64];
    asked_diff(&c->expect, &got, diff, sizeof diff);
    if (!diff[0]) return 0;
    return ply_why(why, why_len, PLY_EMISMATCH,
                   "coordinator %s answered for run %" PRIu64 " of %s: another run has this "
                   "id (did the coordinator restart without its state?); its answer is not "
                   "taken",
                   c->endpoint, run_id, diff);
}

/* What @req computes, with the position normalised as the coordinator's rule engine
 * does; PLY_EFEN when it cannot read it (the coordinator then refuses it too). */
static int asked_of_request(asked_t *out, const ply_perft_request_t *req)
{
    memset(out, 0, sizeof *out);
    out->kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    ply_arb_pos_t pos;
    char why[256], fen[PLY_ARB_FEN_MAX];
    if (ply_arb_from_fen(&pos, req->fen, req->chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why) <
            0 ||
        ply_arb_to_fen(&pos, fen, sizeof fen) < 0)
        return PLY_EFEN;
    snprintf(out->fen, sizeof out->fen, "%s", fen);
    out->depth = req->depth;
    out->chess960 = req->chess960 || pos.chess960;
    out->stats = req->stats != 0;
    out->split_depth = req->split_depth < 0 ? -1 : req->split_depth;
    out->verify = req->verify;
    out->verify_ppm = req->verify == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE ? req->verify_ppm : 0;
    return 0;
}

/*
 * Sends Submit @s and keeps what it asks (@want, or @want_rc < 0: this client cannot read
 * its own request's @fen, so no Accepted is believed) for accepted_wait. The Submit
 * carries an idempotency key drawn here, once per submission, and is kept to go again
 * unchanged on a new connection: a coordinator that knows the key answers with the same
 * run, never a second one (proto/ply.proto, Submit.idempotency_key).
 */
static int submit_send(ply_client_t *c, Ply__Submit *s, const asked_t *want, int want_rc,
                       const char *fen, char *why, size_t why_len)
{
    if (c->pending) {
        ply_why(why, why_len, 0, "a Submit to %s is still waiting for its Accepted", c->endpoint);
        return PLY_EINVAL;
    }
    s->owner_token = owner();
    uint8_t key[PLY_CLIENT_KEY_BYTES];
    if (ply_random_bytes(key, sizeof key) < 0) {
        ply_why(why, why_len, 0, "cannot draw the submission's idempotency key (getrandom)");
        return PLY_EIO;
    }
    s->has_idempotency_key = 1;
    s->idempotency_key.len = sizeof key, s->idempotency_key.data = key;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_SUBMIT;
    m.submit = s;
    char reason[512];
    if (ply_msg_validate(&m, reason, sizeof reason) != 0) {
        ply_why(why, why_len, 0, "invalid request: %s", reason);
        return PLY_EINVAL;
    }
    if (send_kept(c, &m) != 0) {
        ply_why(why, why_len, 0, "cannot send to %s", c->endpoint);
        return PLY_EIO;
    }
    c->pending = 1;
    c->pend_rc = want_rc;
    c->pend = *want;
    snprintf(c->pend_fen, sizeof c->pend_fen, "%s", fen);
    return 0;
}

/* Waits up to @timeout_ms for the Accepted (or Error) of the Submit submit_send sent. */
static int accepted_wait(ply_client_t *c, int timeout_ms, Ply__Accepted **accepted, char *why,
                         size_t why_len)
{
    char reason[512];
    if (!c->pending) {
        ply_why(why, why_len, 0, "no Submit to %s waits for an Accepted", c->endpoint);
        return PLY_EINVAL;
    }
    uint64_t deadline = ply_time_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        int left = -1;
        if (timeout_ms >= 0) {
            uint64_t now = ply_time_ms();
            left = now >= deadline ? 0 : (int)(deadline - now);
        }
        ply_msg_t *msg = NULL;
        int r = recv_one(c, left, &msg, reason, sizeof reason);
        int end = give_up(c, r, timeout_ms, "acknowledged the run", reason, why, why_len);
        if (end) {
            c->pending = 0;
            zmsg_destroy(&c->again);
            return end;
        }
        if (r == LINK_UP) { /* the Submit again, same key: the same run, never a second */
            rejoined(c);
            continue;
        }
        if (r < 0) {
            ply_warn("client: skipping a malformed message from %s: %s", c->endpoint, reason);
            continue;
        }
        if (msg->body_case == PLY__MESSAGE__BODY_ACCEPTED ||
            msg->body_case == PLY__MESSAGE__BODY_ERROR)
            zmsg_destroy(&c->again); /* answered: nothing to send again */
        if (msg->body_case == PLY__MESSAGE__BODY_ACCEPTED) {
            c->pending = 0;
            /* an Accepted for an earlier Submit that timed out must not pass for this one */
            c->expect_run = msg->accepted->run_id;
            if (c->pend_rc < 0)
                r = ply_why(why, why_len, PLY_EFEN,
                            "coordinator %s accepted a position this client cannot read: %s",
                            c->endpoint, c->pend_fen);
            else
                c->expect = c->pend,
                r = check_asked(c, msg->accepted->run_id, msg->accepted->asked, why, why_len);
            if (r < 0) {
                c->expect_run = 0;
                ply_msg_free(&msg);
                return r;
            }
            *accepted = msg->accepted;
            msg->accepted = NULL; /* detach the body; the envelope is freed alone */
            msg->body_case = PLY__MESSAGE__BODY__NOT_SET;
            ply_msg_free(&msg);
            return 0;
        }
        if (msg->body_case == PLY__MESSAGE__BODY_ERROR) {
            c->pending = 0;
            r = take_error(msg->error, why, why_len);
            ply_msg_free(&msg);
            return r;
        }
        ply_msg_free(&msg); /* heartbeats, progress of earlier runs */
    }
}

int ply_client_submit_send(ply_client_t *c, const ply_perft_request_t *req, char *why,
                           size_t why_len)
{
    if (!c || !req || !req->fen) return PLY_EINVAL;
    Ply__PerftRequest q = PLY__PERFT_REQUEST__INIT;
    q.fen = (char *)req->fen;
    q.has_depth = 1, q.depth = req->depth;
    q.has_chess960 = 1, q.chess960 = req->chess960 != 0;
    q.has_stats = 1, q.stats = req->stats != 0;
    q.has_divide = 1, q.divide = req->divide != 0;
    q.has_split_depth = 1, q.split_depth = req->split_depth < 0 ? -1 : req->split_depth;
    Ply__Submit s = PLY__SUBMIT__INIT;
    s.has_kind = 1, s.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    s.perft = &q;
    if (req->verify) {
        s.has_verify = 1, s.verify = (Ply__VerifyMode)req->verify;
        if (req->verify == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
            s.has_verify_ppm = 1, s.verify_ppm = req->verify_ppm;
    }
    if (req->detach) s.has_detach = 1, s.detach = 1;
    asked_t *want = malloc(sizeof *want);
    if (!want) return PLY_ENOMEM;
    int want_rc = asked_of_request(want, req);
    int r = submit_send(c, &s, want, want_rc, req->fen, why, why_len);
    free(want);
    return r;
}

int ply_client_accepted(ply_client_t *c, int timeout_ms, Ply__Accepted **accepted, char *why,
                        size_t why_len)
{
    if (accepted) *accepted = NULL;
    if (!c || !accepted) return PLY_EINVAL;
    return accepted_wait(c, timeout_ms, accepted, why, why_len);
}

int ply_client_submit(ply_client_t *c, const ply_perft_request_t *req, int timeout_ms,
                      Ply__Accepted **accepted, char *why, size_t why_len)
{
    if (accepted) *accepted = NULL;
    if (!accepted) return PLY_EINVAL;
    int r = ply_client_submit_send(c, req, why, why_len);
    return r < 0 ? r : accepted_wait(c, timeout_ms, accepted, why, why_len);
}

/* What search request @req computes, as the coordinator's RunAsked says it: the position
 * analysed (the root with the history played) normalised; PLY_EFEN when this client cannot
 * read it (the coordinator then refuses it too). */
static int asked_of_search(asked_t *out, const ply_search_request_t *req,
                           const Ply__SearchRequest *q)
{
    memset(out, 0, sizeof *out);
    out->kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    ply_arb_pos_t pos;
    char why[256];
    if (ply_arb_from_fen(&pos, req->fen, req->chess960 ? PLY_ARB_CHESS960 : 0, why, sizeof why) < 0)
        return PLY_EFEN;
    for (size_t i = 0; i < req->nmoves; i++) {
        ply_arb_move_t mv;
        if (ply_arb_move_from_uci(&pos, req->moves[i], &mv) < 0) return PLY_EFEN;
        ply_arb_make(&pos, mv);
    }
    char fen[PLY_ARB_FEN_MAX];
    if (ply_arb_to_fen(&pos, fen, sizeof fen) < 0) return PLY_EFEN;
    out->split_depth = -1; /* the request (search_text) is what a search run computes */
    out->verify = req->verify;
    out->verify_ppm = req->verify == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE ? req->verify_ppm : 0;
    search_text(q, out->search, sizeof out->search);
    return 0;
}

int ply_client_submit_search(ply_client_t *c, const ply_search_request_t *req, int timeout_ms,
                             Ply__Accepted **accepted, char *why, size_t why_len)
{
    if (accepted) *accepted = NULL;
    if (!c || !req || !req->fen || !accepted || (req->nmoves && !req->moves) ||
        (req->nsearchmoves && !req->searchmoves) || (req->nplies && !req->plies))
        return PLY_EINVAL;
    Ply__SearchRequest q = PLY__SEARCH_REQUEST__INIT;
    q.fen = (char *)req->fen;
    q.n_moves = req->nmoves, q.moves = (char **)req->moves;
    q.n_searchmoves = req->nsearchmoves, q.searchmoves = (char **)req->searchmoves;
    q.n_plies = req->nplies, q.plies = (uint32_t *)req->plies;
    if (req->depth) q.has_depth = 1, q.depth = req->depth;
    if (req->nodes) q.has_nodes = 1, q.nodes = req->nodes;
    if (req->movetime_ms) q.has_movetime_ms = 1, q.movetime_ms = req->movetime_ms;
    if (req->chess960) q.has_chess960 = 1, q.chess960 = 1;
    if (req->engine && req->engine[0]) q.engine = (char *)req->engine;
    if (req->deepen) q.has_deepen = 1, q.deepen = 1;
    if (req->deepen && req->multipv) q.has_multipv = 1, q.multipv = req->multipv;
    if (req->infinite) q.has_infinite = 1, q.infinite = 1;
    Ply__Submit s = PLY__SUBMIT__INIT;
    s.has_kind = 1, s.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    s.search = &q;
    if (req->detach) s.has_detach = 1, s.detach = 1;
    if (req->verify) {
        s.has_verify = 1, s.verify = (Ply__VerifyMode)req->verify;
        if (req->verify == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
            s.has_verify_ppm = 1, s.verify_ppm = req->verify_ppm;
    }
    asked_t *want = malloc(sizeof *want);
    if (!want) return PLY_ENOMEM;
    int want_rc = asked_of_search(want, req, &q);
    int r = submit_send(c, &s, want, want_rc, req->fen, why, why_len);
    free(want);
    return r < 0 ? r : accepted_wait(c, timeout_ms, accepted, why, why_len);
}

/* Sends ResultRequest{run_id, attach}, kept to go again on a new connection (it asks the
 * same twice); 0 or PLY_EIO. */
static int ask_result(ply_client_t *c, uint64_t run_id, int attach)
{
    Ply__ResultRequest q = PLY__RESULT_REQUEST__INIT;
    q.has_run_id = 1, q.run_id = run_id;
    if (attach) q.has_attach = 1, q.attach = 1;
    q.owner_token = owner();
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT_REQUEST;
    m.result_request = &q;
    return send_kept(c, &m) == 0 ? 0 : PLY_EIO;
}

static int wait_run(ply_client_t *c, uint64_t run_id, ply_client_progress_fn progress, void *arg,
                    int idle_timeout_ms, Ply__RunResult **result, char *why, size_t why_len);

int ply_client_wait(ply_client_t *c, uint64_t run_id, ply_client_progress_fn progress, void *arg,
                    int idle_timeout_ms, Ply__RunResult **result, char *why, size_t why_len)
{
    if (result) *result = NULL;
    if (!c || !result) return PLY_EINVAL;
    int r = wait_run(c, run_id, progress, arg, idle_timeout_ms, result, why, why_len);
    zmsg_destroy(&c->again); /* its ResultRequest is not to go again after the wait */
    return r;
}

/* ply_client_wait's loop. */
static int wait_run(ply_client_t *c, uint64_t run_id, ply_client_progress_fn progress, void *arg,
                    int idle_timeout_ms, Ply__RunResult **result, char *why, size_t why_len)
{
    char reason[512];
    uint64_t last_rx = ply_time_ms(), last_ask = last_rx;
    for (;;) {
        /* wake up at least every resync period to notice a coordinator that forgot us */
        uint64_t now = ply_time_ms();
        int slice = PLY_CLIENT_RESYNC_MS;
        if (idle_timeout_ms > 0) {
            uint64_t left = last_rx + (uint64_t)idle_timeout_ms > now
                                ? last_rx + (uint64_t)idle_timeout_ms - now
                                : 0;
            if (left < (uint64_t)slice) slice = (int)left;
        }
        ply_msg_t *msg = NULL;
        int r = recv_one(c, slice, &msg, reason, sizeof reason);
        now = ply_time_ms();
        if (r == PLY_ETIMEDOUT || r == LINK_UP) {
            if (r == PLY_ETIMEDOUT && idle_timeout_ms > 0 &&
                now - last_rx >= (uint64_t)idle_timeout_ms) {
                char what[64];
                snprintf(what, sizeof what, "sent word of run %" PRIu64, run_id);
                return silence(c, idle_timeout_ms, what, why, why_len);
            }
            /* a coordinator back after a restart has forgotten this client: attach again at
             * once */
            if (r == LINK_UP && c->link.lost_at) {
                ask_result(c, run_id, 1);
                last_ask = now;
            }
        }
        /* every resync period, streaming or not: a silent coordinator may have forgotten us,
         * and the ask tells it we still follow the run (an infinite analysis whose client
         * went silent is stopped) */
        if (now - last_ask >= PLY_CLIENT_RESYNC_MS) {
            ask_result(c, run_id, 1);
            last_ask = now;
        }
        if (r == PLY_ETIMEDOUT || r == LINK_UP) continue;
        if (r == PLY_ECANCELED || r == PLY_EAUTH) return ply_why(why, why_len, r, "%s", reason);
        last_rx = now;
        if (r < 0) {
            ply_warn("client: skipping a malformed message from %s: %s", c->endpoint, reason);
            continue;
        }
        switch (msg->body_case) {
        case PLY__MESSAGE__BODY_RUN_RESULT:
            if (msg->run_result->run_id == run_id) {
                r = check_asked(c, run_id, msg->run_result->asked, why, why_len);
                if (r < 0) {
                    ply_msg_free(&msg);
                    return r;
                }
                *result = msg->run_result;
                msg->run_result = NULL;
                msg->body_case = PLY__MESSAGE__BODY__NOT_SET;
                ply_msg_free(&msg);
                return 0;
            }
            break;
        case PLY__MESSAGE__BODY_RUN_PROGRESS:
            if (msg->run_progress->run_id != run_id) break;
            r = check_asked(c, run_id, msg->run_progress->asked, why, why_len);
            if (r < 0) {
                ply_msg_free(&msg);
                return r;
            }
            if (progress) progress(msg->run_progress, arg);
            break;
        case PLY__MESSAGE__BODY_ERROR:
            if (!msg->error->has_run_id || msg->error->run_id == run_id) {
                r = take_error(msg->error, why, why_len);
                ply_msg_free(&msg);
                return r;
            }
            break;
        default:
            break;
        }
        ply_msg_free(&msg);
    }
}

/*
 * Waits up to @timeout_ms for the first message of body @want about @run_id
 * (0: any), skipping heartbeats and stale replies; an Error ends the wait. The
 * request kept by send_kept goes again on a connection made after a lost one.
 */
static int wait_for(ply_client_t *c, Ply__Message__BodyCase want, uint64_t run_id, int timeout_ms,
                    ply_msg_t **out, char *why, size_t why_len)
{
    char reason[512];
    uint64_t deadline = ply_time_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        uint64_t now = ply_time_ms();
        int left = now >= deadline ? 0 : (int)(deadline - now);
        ply_msg_t *msg = NULL;
        int r = recv_one(c, left, &msg, reason, sizeof reason);
        int end = give_up(c, r, timeout_ms, "answered", reason, why, why_len);
        if (end) {
            zmsg_destroy(&c->again);
            return end;
        }
        if (r == LINK_UP) {
            rejoined(c);
            continue;
        }
        if (r < 0) continue;
        if (msg->body_case == PLY__MESSAGE__BODY_ERROR &&
            (!msg->error->has_run_id || !run_id || msg->error->run_id == run_id)) {
            r = take_error(msg->error, why, why_len);
            ply_msg_free(&msg);
            zmsg_destroy(&c->again);
            return r;
        }
        uint64_t about = msg->body_case == PLY__MESSAGE__BODY_RUN_PROGRESS
                             ? msg->run_progress->run_id
                         : msg->body_case == PLY__MESSAGE__BODY_RUN_RESULT ? msg->run_result->run_id
                                                                           : 0;
        int match = msg->body_case == want || (want == PLY__MESSAGE__BODY_RUN_RESULT &&
                                               msg->body_case == PLY__MESSAGE__BODY_RUN_PROGRESS);
        if (match && (!run_id || about == run_id)) {
            *out = msg;
            zmsg_destroy(&c->again);
            return 0;
        }
        ply_msg_free(&msg);
    }
}

int ply_client_status(ply_client_t *c, uint64_t run_id, int timeout_ms, Ply__StatusReply **reply,
                      Ply__RunProgress **progress, char *why, size_t why_len)
{
    if (reply) *reply = NULL;
    if (progress) *progress = NULL;
    if (!c || (run_id ? !progress : !reply)) return PLY_EINVAL;
    Ply__StatusRequest q = PLY__STATUS_REQUEST__INIT;
    if (run_id) q.has_run_id = 1, q.run_id = run_id;
    q.owner_token = owner();
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_STATUS;
    m.status = &q;
    if (send_kept(c, &m) != 0) {
        ply_why(why, why_len, 0, "cannot send to %s", c->endpoint);
        return PLY_EIO;
    }
    ply_msg_t *msg = NULL;
    int r = wait_for(c, run_id ? PLY__MESSAGE__BODY_RUN_PROGRESS : PLY__MESSAGE__BODY_STATUS_REPLY,
                     run_id, timeout_ms, &msg, why, why_len);
    if (r < 0) return r;
    if (run_id) {
        *progress = msg->run_progress;
        msg->run_progress = NULL;
    } else {
        *reply = msg->status_reply;
        msg->status_reply = NULL;
    }
    msg->body_case = PLY__MESSAGE__BODY__NOT_SET;
    ply_msg_free(&msg);
    return 0;
}

int ply_client_result(ply_client_t *c, uint64_t run_id, int attach, int timeout_ms,
                      Ply__RunResult **result, Ply__RunProgress **progress, char *why,
                      size_t why_len)
{
    if (result) *result = NULL;
    if (progress) *progress = NULL;
    if (!c || !run_id || !result || !progress) return PLY_EINVAL;
    if (ask_result(c, run_id, attach) < 0) {
        ply_why(why, why_len, 0, "cannot send to %s", c->endpoint);
        return PLY_EIO;
    }
    ply_msg_t *msg = NULL;
    int r = wait_for(c, PLY__MESSAGE__BODY_RUN_RESULT, run_id, timeout_ms, &msg, why, why_len);
    if (r < 0) return r;
    r = check_asked(c, run_id,
                    msg->body_case == PLY__MESSAGE__BODY_RUN_RESULT ? msg->run_result->asked
                                                                    : msg->run_progress->asked,
                    why, why_len);
    if (r < 0) {
        ply_msg_free(&msg);
        return r;
    }
    if (msg->body_case == PLY__MESSAGE__BODY_RUN_RESULT) {
        *result = msg->run_result;
        msg->run_result = NULL;
    } else {
        *progress = msg->run_progress;
        msg->run_progress = NULL;
    }
    msg->body_case = PLY__MESSAGE__BODY__NOT_SET;
    ply_msg_free(&msg);
    return 0;
}

int ply_client_cancel(ply_client_t *c, uint64_t run_id, int timeout_ms, Ply__RunProgress **progress,
                      char *why, size_t why_len)
{
    if (progress) *progress = NULL;
    if (!c || !run_id || !progress) return PLY_EINVAL;
    Ply__Cancel q = PLY__CANCEL__INIT;
    q.has_run_id = 1, q.run_id = run_id;
    q.owner_token = owner();
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_CANCEL;
    m.cancel = &q;
    zmsg_destroy(&c->again); /* a Cancel is not sent twice: the second would find it done */
    if (ply_msg_send(c->sock, &m) != 0) {
        ply_why(why, why_len, 0, "cannot send to %s", c->endpoint);
        return PLY_EIO;
    }
    ply_msg_t *msg = NULL;
    int r = wait_for(c, PLY__MESSAGE__BODY_RUN_PROGRESS, run_id, timeout_ms, &msg, why, why_len);
    if (r < 0) return r;
    *progress = msg->run_progress;
    msg->run_progress = NULL;
    msg->body_case = PLY__MESSAGE__BODY__NOT_SET;
    ply_msg_free(&msg);
    return 0;
}
