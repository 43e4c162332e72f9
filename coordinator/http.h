/*
 * The coordinator's status over HTTP (README "Status over HTTP"): a small
 * HTTP/1.1 server on the coordinator's libuv loop (libuv TCP, requests parsed
 * by Debian's http_parser 2.9), serving three read-only pages:
 *   GET /status   the snapshot (status.h) as JSON
 *   GET /metrics  the snapshot in the Prometheus text format 0.0.4
 *   GET /         a self-contained live page (dashboard.html, embedded at
 *                 build time; it fetches nothing but /status)
 *
 * One request per connection (the answer says Connection: close). Limits,
 * so that no client can disturb the loop or grow the coordinator's memory:
 * request line and headers at most PLY__HTTP_HEAD_MAX bytes and a body at
 * most PLY__HTTP_BODY_MAX (else 413), at most PLY__HTTP_MAX_CONNS
 * connections (more are closed at once), and a connection is closed when it
 * has not sent its request and taken its answer within the configured
 * timeout. Malformed requests get 400, other methods than GET and HEAD 405,
 * unknown paths 404.
 *
 * Security: the address must be loopback unless the coordinator runs with
 * --insecure or CURVE, and then a token is required. With a token, every
 * request must carry it: "Authorization: Bearer TOKEN", or HTTP Basic
 * authentication with the token as the password (any user name), so that a
 * browser can ask for it; otherwise 401. Tokens are compared in constant time.
 * Apart from that token, a /status request may name its viewer with an owner
 * token (X-Ply-Owner-Token; 400 when it is not one): the search runs submitted
 * with it then show their lines (status.h).
 */
#ifndef PLY_COORDINATOR_HTTP_H
#define PLY_COORDINATOR_HTTP_H

#include <stddef.h>

#include "core.h"

#define PLY__HTTP_HEAD_MAX  8192 /* request line and headers, bytes */
#define PLY__HTTP_BODY_MAX  1024 /* a request body (GET has none), bytes */
#define PLY__HTTP_MAX_CONNS 32   /* open connections at once */

/**
 * ply__http_start - listen on c->cfg.http ("ADDR:PORT", IPv6 as "[ADDR]:PORT")
 * on the coordinator's loop. 0; PLY_EINVAL (a bad address, a non-loopback one
 * without insecure or CURVE, or without a token) or PLY_ECONNECT (cannot
 * bind or listen), the reason in @why (@why_len bytes). On error the caller
 * still calls ply__http_close and ply__http_free (through destroy).
 */
int ply__http_start(ply_coordinator_t *c, char *why, size_t why_len);

/** ply__http_close - stop listening and close every connection (the loop then frees them). */
void ply__http_close(ply_coordinator_t *c);

/** ply__http_free - free the server once the loop has closed its handles; idempotent. */
void ply__http_free(ply_coordinator_t *c);

/** The page served at GET / (dashboard.html, generated into dashboard_html.c at build time). */
extern const char ply__dashboard_html[];
extern const size_t ply__dashboard_html_len;

#endif
