/*
 * Transport security of the ply protocol: CURVE encryption and
 * authentication (ZeroMQ RFC 26, keys in czmq zcert files) with a ZAP
 * handler (RFC 27) that admits only the public keys found in allow
 * directories, and the bind policy that keeps an unauthenticated coordinator
 * on loopback.
 *
 * Key files are czmq certificates as `ply keygen` writes them: NAME.key (the
 * public key; copy it to the machines that must trust you) and
 * NAME.key_secret (both keys; keep it private). Roles:
 *   coordinator  its secret certificate; --allow DIR holds the public
 *                certificates of workers (and of clients, unless a separate
 *                --allow-clients DIR is given). Every peer is identified by
 *                its public key; a key in neither directory is refused at the
 *                handshake and logged, and never reaches the protocol.
 *   worker, ply  their own secret certificate and the coordinator's public
 *                certificate (or its 40-character Z85 key).
 * With --allow-clients, a worker key may only send HELLO and worker messages
 * and a client key only client messages (SUBMIT, STATUS, RESULT_REQUEST,
 * CANCEL): a stolen client key cannot feed results into a run, a worker key
 * cannot start runs. Keys present in both directories may do both.
 *
 * The ZAP handler is a thread of its own (a czmq actor) bound to
 * inproc://zeromq.zap.01 of czmq's global context, so at most one
 * ply_curve_server_t exists per process. It survives signals (EINTR), and
 * the coordinator's socket is set to refuse every connection if the handler
 * is ever missing (ZMQ_ZAP_ENFORCE_DOMAIN), never to admit everyone.
 */
#ifndef PLY_PROTO_SECURITY_H
#define PLY_PROTO_SECURITY_H

#include <stddef.h>
#include <stdint.h>

#include <czmq.h>

#include "envelope.h"

/** The ZAP domain ply's coordinator sockets use. */
#define PLY_ZAP_DOMAIN "ply"

typedef struct ply_curve_server ply_curve_server_t;
typedef struct ply_curve_client ply_curve_client_t;

/**
 * ply_curve_server_new - load the coordinator's secret certificate @cert,
 * check that the allow directories exist, and start the ZAP handler.
 * @allow: directory of public certificates allowed to connect (workers, and
 * clients too when @allow_clients is NULL). Certificates added to or removed
 * from either directory take effect at the next connection (czmq's zcertstore
 * reloads on change).
 * Returns NULL with a one-line reason in @why: unreadable certificate, a
 * certificate without a secret key ("give the NAME.key_secret file"), a
 * directory that does not exist, or a ZAP handler already running in this
 * process.
 */
ply_curve_server_t *ply_curve_server_new(const char *cert, const char *allow,
                                         const char *allow_clients, char *why, size_t why_len);

/**
 * ply_curve_server_apply - make @sock a CURVE server with our keys and the
 * ZAP domain "ply". Call before bind. Returns 0, or PLY_EINVAL for NULL
 * arguments.
 */
int ply_curve_server_apply(const ply_curve_server_t *s, zsock_t *sock);

/** ply_curve_server_public_key - our public key in Z85 (40 characters); static storage. */
const char *ply_curve_server_public_key(const ply_curve_server_t *s);

/**
 * ply_curve_server_counters - handshakes admitted and refused so far (any
 * thread; each value is read atomically). Either pointer may be NULL.
 */
void ply_curve_server_counters(const ply_curve_server_t *s, uint64_t *allowed, uint64_t *refused);

/** ply_curve_server_destroy - stop the ZAP handler and free; NULLs *s; idempotent. */
void ply_curve_server_destroy(ply_curve_server_t **s);

/**
 * A directory of public key files (NAME.key, as for --allow) the coordinator
 * consults itself rather than at the handshake: its --admin-keys, the clients
 * that may read and cancel any run. Rescanned when the directory changes.
 * Owned by one thread.
 */
typedef struct ply_keydir ply_keydir_t;

/** ply_keydir_new - read @dir; NULL with a reason in @why when it is not a directory. */
ply_keydir_t *ply_keydir_new(const char *dir, char *why, size_t why_len);

/** ply_keydir_has - 1 when the Z85 public key @pub (40 characters) is in the directory, else 0. */
int ply_keydir_has(ply_keydir_t *k, const char *pub);

/** ply_keydir_destroy - free it; NULLs *k; idempotent. */
void ply_keydir_destroy(ply_keydir_t **k);

/**
 * ply_curve_recv_from - ply_msg_recv_from (envelope.h), also returning the
 * sender's CURVE identity in @peer ("" without CURVE): the "User-Id" our
 * ZAP handler gave the connection, read from the message's first frame.
 * (libzmq 4.3 does not put connection metadata on a ROUTER's routing-id
 * frame when the socket was polled before the read, as the coordinator's
 * edge-triggered loop does, so the routing id cannot be asked.)
 * Returns exactly as ply_msg_recv_from.
 */
int ply_curve_recv_from(zsock_t *sock, zframe_t **routing_id, ply_msg_t **out, char *peer,
                        size_t peer_len, char *why, size_t why_len);

/** What a refused message still says (ply_msg_refused_result): a Result's job and attempt, and
 * whether its sender speaks the previous version of the protocol. */
typedef struct ply_msg_refused {
    int result;       /* 1: a Result whose ids were read */
    uint64_t job_id;  /* then its job_id */
    uint32_t attempt; /* and its attempt */
    int prev_version; /* 1: frame 0 is PLY_PROTOCOL_ID_PREV (answer with
                         ply_msg_send_error_framed) */
} ply_msg_refused_t;

/**
 * ply_curve_recv_from_ex - ply_curve_recv_from, and when the message is refused (< 0 but
 * PLY_EIO) what it still says into *@refused (NULL: not asked; zeroed first).
 */
int ply_curve_recv_from_ex(zsock_t *sock, zframe_t **routing_id, ply_msg_t **out, char *peer,
                           size_t peer_len, char *why, size_t why_len, ply_msg_refused_t *refused);

/**
 * ply_curve_role_check - may the peer with CURVE identity @peer (from
 * ply_curve_recv_from) send @msg? Peers without CURVE ("": a coordinator
 * without --curve, inproc) may send anything. With CURVE, HELLO needs a
 * worker key and client messages need a client key (see the roles above);
 * each HELLO is logged with the key, so a worker id is tied to its key.
 * Returns 0, or PLY_ESTATE with a one-line reason in @why.
 */
int ply_curve_role_check(const char *peer, const ply_msg_t *msg, char *why, size_t why_len);

/**
 * ply_curve_client_new - load our secret certificate @cert and the server's
 * public key @server_key (a certificate file, or the 40-character Z85 key
 * itself). Returns NULL with a one-line reason in @why.
 */
ply_curve_client_t *ply_curve_client_new(const char *cert, const char *server_key, char *why,
                                         size_t why_len);

/**
 * ply_curve_client_apply - give @sock our keys and the server key. Call
 * before connect. @k NULL: nothing to do (plain ZMTP). Returns 0, or
 * PLY_EINVAL when @sock is NULL.
 */
int ply_curve_client_apply(const ply_curve_client_t *k, zsock_t *sock);

/**
 * ply_conn_watch - watch the connections of @sock (a connecting socket) with a
 * libzmq socket monitor, read in the caller's thread (no thread of its own):
 * with @k not NULL, its CURVE handshakes (libzmq >= 4.3's HANDSHAKE_FAILED_*
 * and HANDSHAKE_SUCCEEDED events), so that a refused or wrong key is known at
 * once instead of looking like a silent server; with @lost (a set of the
 * PLY_WATCH_ flags below; 1 is PLY_WATCH_CONNECTIONS), its connection
 * being lost and libzmq trying again (DISCONNECTED, CONNECTED,
 * CONNECT_DELAYED, CONNECT_RETRIED), so that a connection libzmq gave up on
 * (it does not reconnect after a protocol error, such as a frame over
 * ZMQ_MAXMSGSIZE) is known; with PLY_WATCH_HANDSHAKES, every handshake's
 * outcome also without CURVE (a plain client meeting a CURVE server fails
 * its handshake with a mechanism mismatch, and libzmq does not try again).
 * Call before connect; poll the returned PAIR
 * socket with @sock, read it with ply_conn_watch_read, and end it with
 * ply_conn_watch_destroy before @sock is destroyed. A socket has one monitor.
 * Returns NULL when there is nothing to watch (@k NULL and @lost 0) or the
 * monitor cannot start (then refusals look like silence, as without it).
 */
zsock_t *ply_conn_watch(zsock_t *sock, const ply_curve_client_t *k, int lost);

/**
 * ply_conn_watch_destroy - stop the monitor of @sock and destroy its watch
 * *@watch (from ply_conn_watch); NULLs *@watch; nothing to do when @watch or
 * *@watch is NULL. Call it before destroying @sock, from the thread that owns
 * both. Never destroy a watch with zsock_destroy alone: libzmq sends each
 * event to the watch with a blocking send from its I/O thread, and once the
 * watch is closed that send has no peer and never returns, which stops every
 * socket of the process (libzmq issue #3575: a socket being closed or
 * lingering still reports its connection retries and closes).
 */
void ply_conn_watch_destroy(zsock_t **watch, zsock_t *sock);

/* ply_conn_watch's @lost flags */
#define PLY_WATCH_CONNECTIONS 1 /* connections made, lost and tried again */
#define PLY_WATCH_HANDSHAKES  2 /* every handshake's outcome, with or without CURVE */

/* ply_conn_watch_read's results besides 0 and errors */
#define PLY_WATCH_LOST   1 /* a connection closed: libzmq tries again, or has given up */
#define PLY_WATCH_TRYING 2 /* connected, or libzmq is trying to connect again */

/**
 * ply_conn_watch_read - read one event from @watch. Returns PLY_EAUTH when
 * the server refused our public key @k (its ZAP handler answered, status
 * 400: the key is not in its allow directory), when the handshake failed
 * with a protocol error, or when the server closed the connection during the
 * handshake 3 times in a row with no handshake succeeding in between (what a
 * wrong server key looks like: the server cannot read our HELLO and hangs
 * up, about 150 ms per attempt), with a one-line reason in @why (naming our
 * public key when it was refused); PLY_WATCH_LOST or PLY_WATCH_TRYING for
 * the connection events; 0 for any other event. Call from the thread that
 * owns the socket.
 */
int ply_conn_watch_read(zsock_t *watch, const ply_curve_client_t *k, char *why, size_t why_len);

/**
 * ply_conn_watch_read_event - ply_conn_watch_read, also giving the libzmq event read in
 * *@event (a ZMQ_EVENT_ value; 0 when none could be read), for a caller that tells a
 * connection made (ZMQ_EVENT_CONNECTED) from a handshake done (ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
 * and from a connect that failed and is tried again (ZMQ_EVENT_CONNECT_RETRIED). Without
 * CURVE (@k NULL), a handshake failed on a mechanism mismatch is PLY_EAUTH too: the server
 * speaks CURVE and this client does not. Returns as ply_conn_watch_read.
 */
int ply_conn_watch_read_event(zsock_t *watch, const ply_curve_client_t *k, int *event, char *why,
                              size_t why_len);

/** ply_curve_client_public_key - our public key in Z85; static storage owned by @k. */
const char *ply_curve_client_public_key(const ply_curve_client_t *k);

/** ply_curve_client_destroy - free; NULLs *k; idempotent. */
void ply_curve_client_destroy(ply_curve_client_t **k);

/**
 * ply_curve_client_set_default / ply_curve_client_default - the keys the
 * client library (client/client.h) uses for every connection this
 * process makes; the ply command has one identity per process. Not owned:
 * keep @k alive while clients exist. NULL (the initial value): no CURVE.
 */
void ply_curve_client_set_default(const ply_curve_client_t *k);
const ply_curve_client_t *ply_curve_client_default(void);

/**
 * ply_endpoint_is_local - 1 when @endpoint can only be reached from this
 * machine: inproc://, ipc://, or tcp:// on 127.0.0.0/8, ::1, "localhost" or
 * the interface "lo"; else 0 (wildcards, other addresses and interfaces,
 * host names, other transports).
 */
int ply_endpoint_is_local(const char *endpoint);

/**
 * ply_bind_check - the coordinator's bind policy: without CURVE (@curve 0)
 * only local endpoints may be bound, unless @insecure. Returns 0, or
 * PLY_EINVAL with a one-line reason naming @endpoint and the two ways out.
 */
int ply_bind_check(const char *endpoint, int curve, int insecure, char *why, size_t why_len);

#endif
