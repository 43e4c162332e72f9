/*
 * The HTTP status server (http.h): listening, connections, their limits and
 * deadlines, authentication and routing. What the pages say is status.c and
 * status_render.c; the page itself is dashboard.html.
 *
 * A connection lives from accept to its close callbacks (two handles: the
 * socket and its deadline timer; it is freed when both are closed). It reads
 * one request through http_parser, answers it, shuts its side down and keeps
 * reading (and dropping) until the client closes or the deadline passes, so
 * that unread request bytes do not turn the close into a reset that would
 * lose the answer.
 */
#include "http.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <http_parser.h>

#include "peers.h"
#include "status.h"
#include "util/error.h"
#include "util/log.h"

#define URL_MAX  1024 /* longer paths are not ours: 404 (they count towards the head limit) */
#define AUTH_MAX 512
/* The header by which a viewer of /status names itself: the owner token of its runs (status.h). */
#define OWNER_HEADER "x-ply-owner-token"
/* After the answer, a client has this long (at most) to close its side. */
#define DRAIN_MS 2000

typedef struct conn {
    struct ply__http *srv;
    struct conn *prev, *next;
    uv_tcp_t tcp;
    uv_timer_t timer;
    int open_handles; /* freed when both are closed */
    int closing;
    http_parser parser;
    size_t head_bytes, body_bytes, raw_bytes;
    int headers_done, complete, answered;
    int status; /* an error decided while parsing (400, 413), or 0 */
    char url[URL_MAX + 1];
    size_t url_len;
    int url_long;
    char field[24]; /* the current header's name (only "authorization" and OWNER_HEADER matter) */
    size_t field_len;
    int value_next, in_auth, in_owner;
    char auth[AUTH_MAX + 1];
    size_t auth_len;
    int auth_long;
    char owner[PLY_MAX_OWNER_TOKEN + 1]; /* OWNER_HEADER's value */
    size_t owner_len;
    int owner_bad; /* too long, or given twice */
    char rbuf[4096];
    uv_write_t wr;
    uv_shutdown_t sd;
    char *out;
} conn_t;

struct ply__http {
    ply_coordinator_t *c;
    uv_tcp_t listener;
    int listener_init, closed;
    char endpoint[80];
    char *token; /* NULL: no token needed */
    conn_t *conns;
    unsigned nconns;
};

/* ------------------------------------------------------------ connections */

static void on_handle_closed(uv_handle_t *h)
{
    conn_t *k = h->data;
    if (--k->open_handles) return;
    free(k->out);
    free(k);
}

static void conn_close(conn_t *k)
{
    if (k->closing) return;
    k->closing = 1;
    struct ply__http *srv = k->srv;
    if (k->prev)
        k->prev->next = k->next;
    else
        srv->conns = k->next;
    if (k->next) k->next->prev = k->prev;
    srv->nconns--;
    uv_timer_stop(&k->timer);
    uv_close((uv_handle_t *)&k->timer, on_handle_closed);
    uv_close((uv_handle_t *)&k->tcp, on_handle_closed);
}

static void on_deadline(uv_timer_t *t)
{
    conn_t *k = t->data;
    ply_debug("http: connection closed at its deadline (%s)",
              k->answered ? "answered, not closed by the client" : "no whole request");
    conn_close(k);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    conn_t *k = req->data;
    if (status < 0) conn_close(k); /* else wait for the client's EOF (on_read) or the deadline */
}

static void on_written(uv_write_t *req, int status)
{
    conn_t *k = req->data;
    free(k->out);
    k->out = NULL;
    if (k->closing) return;
    k->sd.data = k; /* on_shutdown's: a failed shutdown (a client gone) closes the connection */
    if (status < 0 || uv_shutdown(&k->sd, (uv_stream_t *)&k->tcp, on_shutdown) < 0) {
        conn_close(k);
        return;
    }
    uint64_t left = uv_timer_get_due_in(&k->timer);
    if (left > DRAIN_MS) uv_timer_start(&k->timer, on_deadline, DRAIN_MS, 0);
}

static const char *reason_of(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 500:
        return "Internal Server Error";
    default:
        return "Error";
    }
}

/* Sends the answer (@body is copied; no body for HEAD) and ends the request. */
static void respond(conn_t *k, int status, const char *type, const char *body, size_t len,
                    const char *extra)
{
    if (k->answered || k->closing) return;
    k->answered = 1;
    int head_only = k->complete && k->parser.method == HTTP_HEAD;
    char head[768];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
                     "Connection: close\r\n%s\r\n",
                     status, reason_of(status), type, len, extra ? extra : "");
    if (n < 0 || (size_t)n >= sizeof head || !(k->out = malloc((size_t)n + len))) {
        conn_close(k);
        return;
    }
    memcpy(k->out, head, (size_t)n);
    if (!head_only && len) memcpy(k->out + n, body, len);
    uv_buf_t b = uv_buf_init(k->out, (unsigned)((size_t)n + (head_only ? 0 : len)));
    k->wr.data = k;
    if (uv_write(&k->wr, (uv_stream_t *)&k->tcp, &b, 1, on_written) < 0) {
        free(k->out);
        k->out = NULL;
        conn_close(k);
    }
}

static void respond_text(conn_t *k, int status, const char *text, const char *extra)
{
    respond(k, status, "text/plain; charset=utf-8", text, strlen(text), extra);
}

/* --------------------------------------------------------- authentication */

static int same_secret(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    unsigned char d = alen != blen;
    for (size_t i = 0; i < alen; i++) d |= (unsigned char)(a[i] ^ b[i % (blen ? blen : 1)]);
    return d == 0;
}

/* 1 when the request's Authorization header carries the token. */
static int authorized(const conn_t *k)
{
    const char *tok = k->srv->token;
    if (!tok) return 1;
    if (k->auth_long || !k->auth_len) return 0;
    const char *v = k->auth;
    if (strncasecmp(v, "Bearer ", 7) == 0) {
        v += 7;
        while (*v == ' ') v++;
        return same_secret(v, strlen(v), tok);
    }
    if (strncasecmp(v, "Basic ", 6) != 0) return 0;
    v += 6;
    while (*v == ' ') v++;
    zarmour_t *arm = zarmour_new();
    zchunk_t *ch = NULL;
    if (arm) {
        zarmour_set_mode(arm, ZARMOUR_MODE_BASE64_STD);
        ch = zarmour_decode(arm, v);
        zarmour_destroy(&arm);
    }
    int ok = 0;
    if (ch) { /* "user:password": the password is the token */
        const char *s = (const char *)zchunk_data(ch);
        size_t n = strnlen(s, zchunk_size(ch)); /* the chunk holds a terminating NUL too */
        const char *colon = memchr(s, ':', n);
        if (colon) ok = same_secret(colon + 1, n - (size_t)(colon + 1 - s), tok);
        zchunk_destroy(&ch);
    }
    return ok;
}

/* ---------------------------------------------------------------- routing */

/*
 * Who asks for /status, into @who (ply__principal's form): the owner of the runs submitted
 * with the owner token the request sends in OWNER_HEADER, or "" (no one's runs but those
 * stored before runs had owners). -1 when the header is not an owner token (the rule of
 * Submit.owner_token: PLY_MIN..PLY_MAX_OWNER_TOKEN bytes of printable ASCII).
 */
static int viewer(const conn_t *k, char *who, size_t len)
{
    who[0] = 0;
    if (!k->owner_len && !k->owner_bad) return 0;
    size_t n = k->owner_len;
    while (n && (k->owner[n - 1] == ' ' || k->owner[n - 1] == '\t')) n--; /* trailing OWS */
    if (k->owner_bad || n < PLY_MIN_OWNER_TOKEN) return -1;
    char tok[PLY_MAX_OWNER_TOKEN + 1];
    for (size_t i = 0; i < n; i++) {
        if (k->owner[i] <= 0x20 || k->owner[i] > 0x7e) return -1;
        tok[i] = k->owner[i];
    }
    tok[n] = 0;
    ply__principal("http", tok, who, len);
    return 0;
}

static void refuse(conn_t *k);

static void route(conn_t *k)
{
    if (k->status) { /* a limit was passed on the way (a body of its size is still read) */
        refuse(k);
        return;
    }
    static const char challenge[] = "WWW-Authenticate: Basic realm=\"ply\", charset=\"UTF-8\"\r\n";
    if (!authorized(k)) {
        respond_text(k, 401, "401 unauthorized: send Authorization: Bearer TOKEN\n", challenge);
        return;
    }
    if (k->parser.http_major != 1) { /* http_parser takes any one-digit version */
        respond_text(k, 400, "400 bad request: HTTP/1.0 or HTTP/1.1 only\n", NULL);
        return;
    }
    int m = k->parser.method;
    if (m != HTTP_GET && m != HTTP_HEAD) {
        respond_text(k, 405, "405 method not allowed: GET only\n", "Allow: GET, HEAD\r\n");
        return;
    }
    size_t plen = strcspn(k->url, "?#");
    const char *u = k->url;
    if (k->url_long) plen = 0;
    if (plen == 1 && u[0] == '/') {
        respond(k, 200, "text/html; charset=utf-8", ply__dashboard_html, ply__dashboard_html_len,
                "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; "
                "style-src 'unsafe-inline'; connect-src 'self'; img-src data:\r\n");
        return;
    }
    int is_status = plen == 7 && memcmp(u, "/status", 7) == 0;
    int is_metrics = plen == 8 && memcmp(u, "/metrics", 8) == 0;
    if (!is_status && !is_metrics) {
        respond_text(k, 404, "404 not found: try /, /status or /metrics\n", NULL);
        return;
    }
    char who[PLY__IDENT_LEN];
    if (viewer(k, who, sizeof who) < 0) {
        respond_text(k, 400,
                     "400 bad request: X-Ply-Owner-Token is an owner token (16..128 printable "
                     "ASCII bytes), once\n",
                     NULL);
        return;
    }
    ply__status_t s;
    size_t len = 0;
    char *text = NULL;
    if (ply__status_take(k->srv->c, &s, is_status ? who : NULL) == 0) {
        text = is_status ? ply__status_json(&s, &len) : ply__status_metrics(&s, &len);
        ply__status_release(&s);
    }
    if (!text) {
        respond_text(k, 500, "500 out of memory\n", NULL);
        return;
    }
    respond(k, 200, is_status ? "application/json" : "text/plain; version=0.0.4; charset=utf-8",
            text, len, NULL);
    free(text);
}

/* ------------------------------------------------------------ the parser */

static int head_add(conn_t *k, size_t n)
{
    k->head_bytes += n;
    if (k->head_bytes <= PLY__HTTP_HEAD_MAX) return 0;
    k->status = 413;
    return 1;
}

static int on_url(http_parser *p, const char *at, size_t n)
{
    conn_t *k = p->data;
    if (head_add(k, n)) return 1;
    if (k->url_len + n > URL_MAX)
        k->url_long = 1;
    else
        memcpy(k->url + k->url_len, at, n), k->url_len += n, k->url[k->url_len] = 0;
    return 0;
}

static int on_header_field(http_parser *p, const char *at, size_t n)
{
    conn_t *k = p->data;
    if (head_add(k, n)) return 1;
    if (k->value_next) k->value_next = 0, k->field_len = 0; /* a new header */
    size_t room = sizeof k->field - 1 - k->field_len;
    size_t take = n < room ? n : room;
    memcpy(k->field + k->field_len, at, take);
    k->field_len += take;
    k->field[k->field_len] = 0;
    if (n > room) k->field[0] = 0; /* too long to be one we read */
    return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t n)
{
    conn_t *k = p->data;
    if (head_add(k, n)) return 1;
    if (!k->value_next) { /* the first piece of this header's value */
        k->value_next = 1;
        k->in_auth = strcasecmp(k->field, "authorization") == 0;
        if (k->in_auth && k->auth_len) k->auth_long = 1; /* given twice: refused */
        k->in_owner = strcasecmp(k->field, OWNER_HEADER) == 0;
        if (k->in_owner && k->owner_len) k->owner_bad = 1;
    }
    if (k->in_owner) {
        if (k->owner_len + n > PLY_MAX_OWNER_TOKEN)
            k->owner_bad = 1;
        else
            memcpy(k->owner + k->owner_len, at, n), k->owner_len += n, k->owner[k->owner_len] = 0;
    }
    if (!k->in_auth) return 0;
    if (k->auth_len + n > AUTH_MAX)
        k->auth_long = 1;
    else
        memcpy(k->auth + k->auth_len, at, n), k->auth_len += n, k->auth[k->auth_len] = 0;
    return 0;
}

static int on_headers_complete(http_parser *p)
{
    conn_t *k = p->data;
    k->headers_done = 1;
    if (p->content_length != ULLONG_MAX && p->content_length > PLY__HTTP_BODY_MAX) {
        k->status = 413;
        return -1; /* an error for http_parser (0, 1 and 2 go on): answered in on_read */
    }
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    (void)at;
    conn_t *k = p->data;
    k->body_bytes += n;
    if (k->body_bytes <= PLY__HTTP_BODY_MAX) return 0;
    k->status = 413;
    return 1;
}

static int on_message_complete(http_parser *p)
{
    conn_t *k = p->data;
    k->complete = 1;
    http_parser_pause(p, 1); /* one request per connection: the rest is not read */
    return 0;
}

static const http_parser_settings settings = {.on_url = on_url,
                                              .on_header_field = on_header_field,
                                              .on_header_value = on_header_value,
                                              .on_headers_complete = on_headers_complete,
                                              .on_body = on_body,
                                              .on_message_complete = on_message_complete};

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    conn_t *k = h->data;
    *buf = uv_buf_init(k->rbuf, sizeof k->rbuf);
}

static void refuse(conn_t *k)
{
    if (k->status == 413)
        respond_text(k, 413, "413 request too large: headers over 8 KiB or a body over 1 KiB\n",
                     NULL);
    else
        respond_text(k, 400, "400 bad request: not an HTTP/1.x request\n", NULL);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    conn_t *k = s->data;
    if (k->closing) return;
    if (nread < 0) { /* EOF or error */
        if (nread == UV_EOF && !k->answered && k->raw_bytes) {
            http_parser_execute(&k->parser, &settings, NULL, 0);
            if (k->complete)
                route(k);
            else
                refuse(k); /* a truncated request */
            return;
        }
        conn_close(k);
        return;
    }
    if (k->answered || !nread) return; /* drained */
    k->raw_bytes += (size_t)nread;
    if (!k->headers_done && k->raw_bytes > 2 * PLY__HTTP_HEAD_MAX) k->status = 413;
    size_t used =
        k->status ? 0 : http_parser_execute(&k->parser, &settings, buf->base, (size_t)nread);
    enum http_errno e = HTTP_PARSER_ERRNO(&k->parser);
    if (k->complete)
        route(k);
    else if (k->status || (e != HPE_OK && e != HPE_PAUSED) || used != (size_t)nread)
        refuse(k);
}

/* -------------------------------------------------------------- listening */

static void on_connection(uv_stream_t *server, int status)
{
    struct ply__http *srv = server->data;
    if (status < 0 || srv->closed) return;
    conn_t *k = calloc(1, sizeof *k);
    if (!k) return;
    k->srv = srv;
    uv_tcp_init(server->loop, &k->tcp);
    uv_timer_init(server->loop, &k->timer);
    k->tcp.data = k->timer.data = k;
    k->open_handles = 2;
    k->next = srv->conns;
    if (srv->conns) srv->conns->prev = k;
    srv->conns = k;
    srv->nconns++;
    if (uv_accept(server, (uv_stream_t *)&k->tcp) < 0) {
        conn_close(k);
        return;
    }
    if (srv->nconns > PLY__HTTP_MAX_CONNS) { /* over the cap: closed at once */
        ply_debug("http: %u connections open, one more refused", PLY__HTTP_MAX_CONNS);
        conn_close(k);
        return;
    }
    http_parser_init(&k->parser, HTTP_REQUEST);
    k->parser.data = k;
    uv_timer_start(&k->timer, on_deadline, srv->c->cfg.http_timeout_ms, 0);
    if (uv_read_start((uv_stream_t *)&k->tcp, on_alloc, on_read) < 0) conn_close(k);
}

/* Parses "ADDR:PORT" or "[ADDR6]:PORT" into @sa; 0 or PLY_EINVAL. */
static int parse_addr(const char *text, struct sockaddr_storage *sa, int *loopback)
{
    char host[64];
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text) return PLY_EINVAL;
    size_t hlen = (size_t)(colon - text);
    const char *h = text;
    if (text[0] == '[') {
        if (hlen < 3 || text[hlen - 1] != ']') return PLY_EINVAL;
        h++, hlen -= 2;
    }
    if (hlen >= sizeof host) return PLY_EINVAL;
    memcpy(host, h, hlen);
    host[hlen] = 0;
    char *end = NULL;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || port > 65535 || colon[1] == '-' || colon[1] == '+') return PLY_EINVAL;
    struct sockaddr_in *a4 = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)sa;
    memset(sa, 0, sizeof *sa);
    if (uv_ip4_addr(host, (int)port, a4) == 0 && text[0] != '[') {
        *loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
        return 0;
    }
    if (text[0] == '[' && uv_ip6_addr(host, (int)port, a6) == 0) {
        *loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
        return 0;
    }
    return PLY_EINVAL;
}

int ply_coordinator_http_check(const char *addr, char *why, size_t why_len)
{
    struct sockaddr_storage sa;
    int loopback = 0;
    if (!addr || parse_addr(addr, &sa, &loopback) < 0)
        return ply_why(why, why_len, PLY_EUSAGE,
                       "--http %s: not ADDR:PORT (a numeric address: 127.0.0.1:8080, "
                       "[::1]:8080; port 0 for any free one)",
                       addr ? addr : "(null)");
    return 0;
}

int ply__http_start(ply_coordinator_t *c, char *why, size_t why_len)
{
    const ply_coordinator_config_t *cfg = &c->cfg;
    struct sockaddr_storage sa;
    int loopback = 0;
    if (parse_addr(cfg->http, &sa, &loopback) < 0) {
        ply_coordinator_http_check(cfg->http, why, why_len);
        return PLY_EINVAL;
    }
    if (!loopback && !cfg->insecure && !cfg->curve)
        return ply_why(why, why_len, PLY_EINVAL,
                       "--http %s is not a loopback address: that needs --insecure or --curve, "
                       "and a token (--http-token-file)",
                       cfg->http);
    if (!loopback && !(cfg->http_token && cfg->http_token[0]))
        return ply_why(why, why_len, PLY_EINVAL,
                       "--http %s is not a loopback address: every request must then carry a "
                       "token (--http-token-file FILE)",
                       cfg->http);
    struct ply__http *srv = calloc(1, sizeof *srv);
    if (!srv) return ply_why(why, why_len, PLY_ENOMEM, "out of memory");
    c->http = srv;
    srv->c = c;
    if (cfg->http_token && cfg->http_token[0] && !(srv->token = strdup(cfg->http_token)))
        return ply_why(why, why_len, PLY_ENOMEM, "out of memory");
    if (!c->cfg.http_timeout_ms) c->cfg.http_timeout_ms = 10000;
    uv_tcp_init(&c->loop, &srv->listener);
    srv->listener.data = srv;
    srv->listener_init = 1;
    int r = uv_tcp_bind(&srv->listener, (const struct sockaddr *)&sa, 0);
    if (r == 0) r = uv_listen((uv_stream_t *)&srv->listener, 64, on_connection);
    if (r < 0)
        return ply_why(why, why_len, PLY_ECONNECT, "cannot serve HTTP on %s: %s", cfg->http,
                       uv_strerror(r));
    struct sockaddr_storage got;
    int glen = sizeof got;
    char ip[64] = "?";
    int port = 0;
    uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&got, &glen);
    if (got.ss_family == AF_INET6) {
        uv_ip6_name((struct sockaddr_in6 *)&got, ip, sizeof ip);
        port = ntohs(((struct sockaddr_in6 *)&got)->sin6_port);
        snprintf(srv->endpoint, sizeof srv->endpoint, "[%s]:%d", ip, port);
    } else {
        uv_ip4_name((struct sockaddr_in *)&got, ip, sizeof ip);
        port = ntohs(((struct sockaddr_in *)&got)->sin_port);
        snprintf(srv->endpoint, sizeof srv->endpoint, "%s:%d", ip, port);
    }
    ply_info("status over HTTP on http://%s/%s", srv->endpoint,
             srv->token ? " (token required)" : "");
    return 0;
}

void ply__http_close(ply_coordinator_t *c)
{
    struct ply__http *srv = c->http;
    if (!srv || srv->closed) return;
    srv->closed = 1;
    while (srv->conns) conn_close(srv->conns);
    if (srv->listener_init) uv_close((uv_handle_t *)&srv->listener, NULL);
}

void ply__http_free(ply_coordinator_t *c)
{
    if (!c->http) return;
    free(c->http->token);
    free(c->http);
    c->http = NULL;
}

const char *ply_coordinator_http_endpoint(const ply_coordinator_t *c)
{
    return c && c->http && c->http->endpoint[0] ? c->http->endpoint : NULL;
}
