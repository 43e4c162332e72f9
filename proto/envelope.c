/*
 * The ply protocol envelope: framing ("PLY/2" + one packed Ply__Message),
 * decoding with full validation, and send/receive on czmq DEALER and ROUTER
 * sockets.
 *
 * Everything a peer sends passes through ply_msg_decode, so the rules here are
 * the security boundary of the cluster: sizes are checked before protobuf-c
 * allocates anything, the body type must be known, every field a type needs
 * must be present and in range, and every string a caller may print or put in
 * JSON is bounded, free of control characters and valid UTF-8. Failures leave
 * through one path that frees what was unpacked and writes a one-line reason.
 * The rules themselves, per message type, are envelope_validate.c's (and the
 * search kind's, envelope_search.c's), on the helpers of envelope_check.h; this
 * file frames, unpacks within a memory budget, sends and receives, and cleans
 * text for the wire.
 */
#include "envelope.h"
#include "envelope_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* Bytes of a foreign protocol id quoted in a reason; the rest is elided. */
#define PLY__ID_QUOTE_MAX 24

/* ---------------------------------------------------------------- reasons */

/* Writes a reason when the caller asked for one; snprintf truncates safely. */
void ply__env_say(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

/*
 * Quotes untrusted bytes for a log line: printable ASCII as is (except quote
 * and backslash), everything else as \xNN, at most PLY__ID_QUOTE_MAX input
 * bytes, "..." when more were elided. @dst holds at least 4*max+4 bytes.
 */
static void quote_bytes(char *dst, size_t dst_len, const uint8_t *src, size_t n)
{
    size_t o = 0, shown = n < PLY__ID_QUOTE_MAX ? n : PLY__ID_QUOTE_MAX;
    for (size_t i = 0; i < shown && o + 5 < dst_len; i++) {
        uint8_t b = src[i];
        if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\')
            dst[o++] = (char)b;
        else
            o += (size_t)snprintf(dst + o, dst_len - o, "\\x%02x", b);
    }
    if (shown < n && o + 4 <= dst_len) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o < dst_len ? o : dst_len - 1] = '\0';
}

/* ------------------------------------------------------------------- text */

/*
 * Length of the well-formed UTF-8 sequence at @s (@n bytes available), or 0:
 * overlong forms, surrogates and code points above U+10FFFF are rejected as
 * RFC 3629 requires, so that JSON writers (jansson) accept every string we pass.
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp, min;
    if (c < 0x80) return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

int ply__env_text_clean(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = is_control(u[i]) ? 0 : utf8_seq(u + i, n - i);
        if (k == 0) return 0;
        i += k;
    }
    return 1;
}

void ply_msg_text_sanitize(char *dst, size_t dst_len, const char *src)
{
    if (!dst || dst_len == 0) return;
    size_t max = dst_len - 1 < PLY_MAX_TEXT ? dst_len - 1 : PLY_MAX_TEXT;
    size_t o = 0, n = src ? strlen(src) : 0;
    const unsigned char *u = (const unsigned char *)src;
    for (size_t i = 0; i < n;) {
        size_t k = is_control(u[i]) ? 0 : utf8_seq(u + i, n - i);
        if (k == 0) {
            /* a control byte becomes a space (keeps words apart), bad UTF-8 a '?' */
            if (o + 1 > max) break;
            dst[o++] = is_control(u[i]) ? ' ' : '?';
            i++;
            continue;
        }
        if (o + k > max) break; /* never split a character */
        memcpy(dst + o, u + i, k);
        o += k;
        i += k;
    }
    dst[o] = '\0';
}

/* ------------------------------------------------------ encoding, decoding */

zmsg_t *ply_msg_encode(const ply_msg_t *msg)
{
    if (!msg || msg->base.descriptor != &ply__message__descriptor || !ply__env_body_of(msg))
        return NULL;
    size_t size = ply__message__get_packed_size(msg);
    if (size == 0 || size > PLY_MAX_MESSAGE_BYTES) return NULL;
    zmsg_t *zmsg = zmsg_new();
    zframe_t *body = zframe_new(NULL, size);
    if (!zmsg || !body || ply__message__pack(msg, zframe_data(body)) != size ||
        zmsg_addstr(zmsg, PLY_PROTOCOL_ID) != 0 || zmsg_append(zmsg, &body) != 0) {
        zframe_destroy(&body);
        zmsg_destroy(&zmsg);
        return NULL;
    }
    return zmsg;
}

static ply_msg_t *unpack(const uint8_t *data, size_t size);

/*
 * A peer that speaks another version "PLY/N" of this protocol (@id, @idn bytes) and whose
 * frame 1 (@zmsg's second frame, if any) reads as a Hello with a worker id, or as a client's
 * request: who it is, for the refusal, as ": worker W speaks PLY/N, this ply PLY/2: upgrade
 * the worker" (or ": a client (SUBMIT) speaks PLY/N, ...: upgrade ply") into @out (@len bytes);
 * else "". Hello's fields 1-7 and the message types have kept their numbers since PLY/1.
 */
static void foreign_hello(char *out, size_t len, zmsg_t *zmsg, const uint8_t *id, size_t idn)
{
    out[0] = '\0';
    if (idn < 5 || idn > 8 || memcmp(id, "PLY/", 4) != 0 || zmsg_size(zmsg) != 2) return;
    for (size_t i = 4; i < idn; i++)
        if (id[i] < '0' || id[i] > '9') return;
    zframe_t *body = zmsg_next(zmsg);
    size_t n = body ? zframe_size(body) : 0;
    if (n == 0 || n > PLY_MAX_MESSAGE_BYTES) return;
    ply_msg_t *m = unpack(zframe_data(body), n);
    if (m && m->body_case == PLY__MESSAGE__BODY_HELLO && m->hello && m->hello->worker_id) {
        char who[65];
        ply_msg_text_sanitize(who, sizeof who, m->hello->worker_id);
        snprintf(out, len, ": worker %s speaks %.*s, this ply %s: upgrade the worker", who,
                 (int)idn, (const char *)id, PLY_PROTOCOL_ID);
    } else if (m && (m->body_case == PLY__MESSAGE__BODY_SUBMIT ||
                     m->body_case == PLY__MESSAGE__BODY_STATUS ||
                     m->body_case == PLY__MESSAGE__BODY_RESULT_REQUEST ||
                     m->body_case == PLY__MESSAGE__BODY_CANCEL)) {
        snprintf(out, len, ": a client (%s) speaks %.*s, this ply %s: upgrade ply",
                 ply_msg_type_name(m), (int)idn, (const char *)id, PLY_PROTOCOL_ID);
    }
    ply_msg_free(&m);
}

/*
 * The checks that need no unpacking, cheapest and most telling first: the
 * protocol id comes before the frame count so that a peer speaking another
 * version (whose framing may differ) hears PLY_EVERSION, not PLY_EPROTO.
 */
static int check_envelope(zmsg_t *zmsg, zframe_t **body, char *why, size_t why_len)
{
    size_t frames = zmsg ? zmsg_size(zmsg) : 0;
    if (frames == 0) {
        ply__env_say(why, why_len, "envelope has 0 frames, must be 2 (protocol id, body)");
        return PLY_EPROTO;
    }
    zframe_t *id = zmsg_first(zmsg);
    size_t idn = zframe_size(id);
    if (idn != strlen(PLY_PROTOCOL_ID) || memcmp(zframe_data(id), PLY_PROTOCOL_ID, idn) != 0) {
        char quoted[4 * PLY__ID_QUOTE_MAX + 8], who[160];
        quote_bytes(quoted, sizeof quoted, zframe_data(id), idn);
        foreign_hello(who, sizeof who, zmsg, zframe_data(id), idn);
        ply__env_say(why, why_len, "frame 0: protocol id \"%s\" (%zu bytes), supported \"%s\"%s",
                     quoted, idn, PLY_PROTOCOL_ID, who);
        return PLY_EVERSION;
    }
    if (frames != 2) {
        ply__env_say(why, why_len, "envelope has %zu frames, must be 2 (protocol id, body)",
                     frames);
        return PLY_EPROTO;
    }
    *body = zmsg_next(zmsg);
    size_t n = zframe_size(*body);
    if (n == 0 || n > PLY_MAX_MESSAGE_BYTES) {
        ply__env_say(why, why_len, "frame 1: body is %zu bytes, must be 1..%u", n,
                     (unsigned)PLY_MAX_MESSAGE_BYTES);
        return PLY_EPROTO;
    }
    return 0;
}

/*
 * protobuf-c allocates as it parses, and tiny repeated sub-messages cost far
 * more in memory than on the wire: a 2-byte empty divide entry becomes a
 * 48-byte struct, a pointer and parser bookkeeping, so a hostile 1 MiB frame
 * could make us allocate ~100 MB (measured, protobuf-c 1.4.1). Each decode
 * gets a budget of the bytes it may request; legitimate messages need at most
 * ~17 times their size (a RunProgress listing only worker ids: 248 bytes per
 * 15-byte entry since WorkerStatus lists kinds, PLY/2), or a few KiB.
 * Blocks come from malloc, so ply_msg_free releases them with protobuf-c's
 * default allocator.
 */
#define PLY__UNPACK_FLOOR  (64u * 1024)
#define PLY__UNPACK_FACTOR 20u

static void *budget_alloc(void *data, size_t size)
{
    size_t *left = data;
    if (size > *left) return NULL; /* protobuf-c unwinds and frees what it had */
    *left -= size;
    return malloc(size);
}

static void budget_free(void *data, void *ptr)
{
    (void)data;
    free(ptr);
}

static ply_msg_t *unpack(const uint8_t *data, size_t size)
{
    size_t left = PLY__UNPACK_FLOOR + PLY__UNPACK_FACTOR * size;
    ProtobufCAllocator budget = {budget_alloc, budget_free, &left};
    return ply__message__unpack(&budget, size, data);
}

int ply_msg_decode(zmsg_t *zmsg, ply_msg_t **out, char *why, size_t why_len)
{
    ply_msg_t *msg = NULL;
    zframe_t *body = NULL;
    if (out) *out = NULL;
    int rc = check_envelope(zmsg, &body, why, why_len);
    if (rc == 0) {
        msg = unpack(zframe_data(body), zframe_size(body));
        if (!msg) {
            ply__env_say(why, why_len,
                         "frame 1: %zu bytes that are not a ply.Message (or would unpack into more "
                         "than %u times that in memory)",
                         zframe_size(body), PLY__UNPACK_FACTOR);
            rc = PLY_EPROTO;
        }
    }
    if (rc == 0) rc = ply_msg_validate(msg, why, why_len);
    if (rc != 0 || !out)
        ply_msg_free(&msg);
    else
        *out = msg;
    return rc;
}

void ply_msg_free(ply_msg_t **msg)
{
    if (msg && *msg) {
        ply__message__free_unpacked(*msg, NULL);
        *msg = NULL;
    }
}

/* ------------------------------------------------------------------ stats */

void ply_msg_stats_to_proto(Ply__Stats *out, const ply_stats_t *in)
{
#define PLY__STATS_TO(name)                                                                        \
    out->has_##name = 1;                                                                           \
    out->name = in->v[PLY_STAT_##name];
    PLY_STATS_MAP(PLY__STATS_TO)
#undef PLY__STATS_TO
}

void ply_msg_stats_from_proto(ply_stats_t *out, const Ply__Stats *in)
{
#define PLY__STATS_FROM(name) out->v[PLY_STAT_##name] = in->has_##name ? in->name : 0;
    PLY_STATS_MAP(PLY__STATS_FROM)
#undef PLY__STATS_FROM
}

void ply_msg_stats128_to_proto(Ply__Stats *out, uint64_t hi[PLY_STATS_N], const ply_stats128_t *in)
{
    ply_stats_t lo;
    int any = 0;
    for (int i = 0; i < PLY_STATS_N; i++) {
        lo.v[i] = ply_u128_lo(in->v[i]);
        hi[i] = ply_u128_hi(in->v[i]);
        any |= hi[i] != 0;
    }
    ply_msg_stats_to_proto(out, &lo);
    out->n_hi = any ? PLY_STATS_N : 0;
    out->hi = any ? hi : NULL;
}

void ply_msg_stats128_from_proto(ply_stats128_t *out, const Ply__Stats *in)
{
    ply_stats_t lo;
    ply_msg_stats_from_proto(&lo, in);
    for (int i = 0; i < PLY_STATS_N; i++)
        out->v[i] = ply_u128_make(in->n_hi == PLY_STATS_N ? in->hi[i] : 0, lo.v[i]);
}

/* ---------------------------------------------------------------- sockets */

void ply_msg_sock_limit(zsock_t *sock)
{
    if (sock) zsock_set_maxmsgsize(sock, (int)PLY_MAX_MESSAGE_BYTES);
}

/*
 * Sends the frames of @zmsg after an optional routing id. Frames are sent
 * with ZFRAME_REUSE and the message destroyed here, so that nothing leaks or
 * is freed twice whichever frame fails (zmsg_send's ownership on a failure
 * part-way differs between czmq versions).
 */
static int send_zmsg(zsock_t *sock, zframe_t *routing_id, zmsg_t **zmsg)
{
    int rc = 0;
    if (routing_id) rc = zframe_send(&routing_id, sock, ZFRAME_MORE | ZFRAME_REUSE);
    size_t left = zmsg_size(*zmsg);
    for (zframe_t *f = zmsg_first(*zmsg); rc == 0 && f; f = zmsg_next(*zmsg))
        rc = zframe_send(&f, sock, (--left ? ZFRAME_MORE : 0) | ZFRAME_REUSE);
    zmsg_destroy(zmsg);
    return rc == 0 ? 0 : PLY_EIO;
}

int ply_msg_send(zsock_t *sock, const ply_msg_t *msg)
{
    zmsg_t *zmsg = sock ? ply_msg_encode(msg) : NULL;
    return zmsg ? send_zmsg(sock, NULL, &zmsg) : PLY_EINVAL;
}

int ply_msg_send_to(zsock_t *sock, zframe_t *routing_id, const ply_msg_t *msg)
{
    zmsg_t *zmsg = sock && routing_id ? ply_msg_encode(msg) : NULL;
    return zmsg ? send_zmsg(sock, routing_id, &zmsg) : PLY_EINVAL;
}

int ply_msg_recv(zsock_t *sock, ply_msg_t **out, char *why, size_t why_len)
{
    if (out) *out = NULL;
    zmsg_t *zmsg = sock ? zmsg_recv(sock) : NULL;
    if (!zmsg) {
        ply__env_say(why, why_len, "nothing received (interrupted or timed out)");
        return PLY_EIO;
    }
    int rc = ply_msg_decode(zmsg, out, why, why_len);
    zmsg_destroy(&zmsg);
    return rc;
}

int ply_msg_recv_from(zsock_t *sock, zframe_t **routing_id, ply_msg_t **out, char *why,
                      size_t why_len)
{
    if (out) *out = NULL;
    if (routing_id) *routing_id = NULL;
    zmsg_t *zmsg = sock ? zmsg_recv(sock) : NULL;
    if (!zmsg) {
        ply__env_say(why, why_len, "nothing received (interrupted or timed out)");
        return PLY_EIO;
    }
    zframe_t *rid = zmsg_pop(zmsg);
    int rc = ply_msg_decode(zmsg, out, why, why_len);
    if (routing_id)
        *routing_id = rid;
    else
        zframe_destroy(&rid);
    zmsg_destroy(&zmsg);
    return rc;
}

int ply_msg_send_error(zsock_t *sock, zframe_t *routing_id, int code, const char *message,
                       uint64_t job_id, uint32_t attempt, uint64_t run_id)
{
    return ply_msg_send_error_framed(sock, routing_id, PLY_PROTOCOL_ID, code, message, job_id,
                                     attempt, run_id);
}

int ply_msg_send_error_framed(zsock_t *sock, zframe_t *routing_id, const char *protocol_id,
                              int code, const char *message, uint64_t job_id, uint32_t attempt,
                              uint64_t run_id)
{
    if (code >= 0) return PLY_EINVAL;
    char line[PLY_MAX_TEXT + 1];
    ply_msg_text_sanitize(line, sizeof line, message);
    if (line[0] == '\0') ply_msg_text_sanitize(line, sizeof line, ply_strerror(code));

    Ply__Error err = PLY__ERROR__INIT;
    err.has_code = 1, err.code = code;
    err.message = line;
    err.has_job_id = job_id != 0, err.job_id = job_id;
    err.has_attempt = attempt != 0, err.attempt = attempt;
    err.has_run_id = run_id != 0, err.run_id = run_id;
    if (code == PLY_EVERSION) err.supported = (char *)PLY_PROTOCOL_ID;

    ply_msg_t msg = PLY__MESSAGE__INIT;
    msg.body_case = PLY__MESSAGE__BODY_ERROR;
    msg.error = &err;
    if (!protocol_id || strcmp(protocol_id, PLY_PROTOCOL_ID_PREV) != 0)
        return routing_id ? ply_msg_send_to(sock, routing_id, &msg) : ply_msg_send(sock, &msg);
    /* the previous version's peer: an Error is encoded alike, only frame 0 differs */
    zmsg_t *zmsg = sock ? ply_msg_encode(&msg) : NULL;
    if (!zmsg) return PLY_EINVAL;
    zframe_reset(zmsg_first(zmsg), PLY_PROTOCOL_ID_PREV, strlen(PLY_PROTOCOL_ID_PREV));
    return send_zmsg(sock, routing_id, &zmsg);
}
