/*
 * CURVE glue, the ZAP handler and the bind policy (see security.h).
 *
 * Why not czmq's zauth and zcertstore (4.2.1), which do most of this:
 * zcertstore asserts (aborts the process) when two files in the directory
 * hold the same public key, one `cp` away in an allow directory (tested);
 * zauth's loop ends when zpoller_wait reports "terminated", which it does
 * when a signal interrupts the poll (EINTR), and without a handler libzmq
 * 4.3 admits every CURVE client unless ZMQ_ZAP_ENFORCE_DOMAIN is set; and
 * neither counts nor logs refusals outside zauth's verbose mode. So
 * certificate files are read here with a small parser that fails on
 * anything odd instead of asserting, and the handler is a czmq actor polling
 * with zmq_poll that only a $TERM ends.
 *
 * Key store: the allow directories are scanned into memory (at most
 * MAX_KEYS files of at most MAX_CERT_BYTES each) and rescanned when a
 * directory's modification time changes, or on an unknown key at most once
 * a second (a certificate edited in place does not touch its directory).
 * Refusals are logged once per key per REFUSE_LOG_MS, with the number of
 * attempts in between: a refused worker retries every few hundred ms.
 */
#include "security.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

#define ZAP_ENDPOINT     "inproc://zeromq.zap.01"
#define Z85_KEY_LEN      40
#define MAX_KEYS         10000
#define MAX_CERT_BYTES   65536
#define NAME_LEN         64
#define RESCAN_MIN_MS    1000
#define REFUSE_LOG_MS    60000
#define REFUSE_LOG_SLOTS 32
/* libzmq 4.3's ZMQ_ZAP_ENFORCE_DOMAIN (a draft option in its header): with
 * it a socket refuses connections when no ZAP handler answers, instead of
 * admitting them (RFC 27 strict mode). */
#define PLY_ZMQ_ZAP_ENFORCE_DOMAIN 93

enum { ROLE_WORKER = 1, ROLE_CLIENT = 2 };

/* ---- certificate files ------------------------------------------------------------- */

typedef struct cert_text {
    char pub[Z85_KEY_LEN + 1];
    char sec[Z85_KEY_LEN + 1]; /* "" when the file has no secret key */
    char name[NAME_LEN];       /* metadata "name", or "" */
} cert_text_t;

/* 1 when @s is 40 characters of Z85 that decode to a key that is not all zero. */
static int valid_key(const char *s)
{
    uint8_t bin[32];
    if (strlen(s) != Z85_KEY_LEN || !zmq_z85_decode(bin, s)) return 0;
    for (int i = 0; i < 32; i++)
        if (bin[i]) return 1;
    return 0;
}

/* Reads `KEY = "VALUE"` or `KEY = VALUE` from a trimmed line into @val. */
static int zpl_value(const char *line, const char *key, char *val, size_t cap)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0) return 0;
    const char *p = line + k;
    while (*p == ' ' || *p == '\t') p++;
    if (*p++ != '=') return 0;
    while (*p == ' ' || *p == '\t') p++;
    char quote = (*p == '"' || *p == '\'') ? *p++ : 0;
    size_t n = 0;
    while (p[n] && p[n] != quote && (quote || (p[n] != ' ' && p[n] != '\t' && p[n] != '#'))) n++;
    if (n >= cap) n = cap - 1;
    memcpy(val, p, n);
    val[n] = '\0';
    return 1;
}

/*
 * Parses a czmq certificate (ZPL text: "public-key = ...", "secret-key =
 * ...", "name = ..." in any section). Returns 0, or PLY_EIO / PLY_EPARSE with
 * a reason naming @path.
 */
static int read_cert(const char *path, cert_text_t *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        ply_why(why, why_len, 0, "cannot read certificate %s: %s", path, strerror(errno));
        return PLY_EIO;
    }
    char *text = malloc(MAX_CERT_BYTES + 1);
    size_t n = text ? fread(text, 1, MAX_CERT_BYTES + 1, f) : 0;
    fclose(f);
    if (!text || n > MAX_CERT_BYTES) {
        free(text);
        ply_why(why, why_len, 0, "%s is not a certificate (over %d bytes)", path, MAX_CERT_BYTES);
        return PLY_EPARSE;
    }
    text[n] = '\0';
    char val[128];
    for (char *save = NULL, *line = strtok_r(text, "\r\n", &save); line;
         line = strtok_r(NULL, "\r\n", &save)) {
        while (*line == ' ' || *line == '\t') line++;
        if (zpl_value(line, "public-key", val, sizeof val))
            snprintf(out->pub, sizeof out->pub, "%.40s", val);
        else if (zpl_value(line, "secret-key", val, sizeof val))
            snprintf(out->sec, sizeof out->sec, "%.40s", val);
        else if (zpl_value(line, "name", val, sizeof val))
            snprintf(out->name, sizeof out->name, "%.63s", val);
    }
    for (char *c = out->name; *c; c++) /* it goes into log lines */
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    free(text);
    if (!valid_key(out->pub)) {
        ply_why(why, why_len, 0, "%s is not a CURVE certificate (no valid public-key)", path);
        return PLY_EPARSE;
    }
    if (out->sec[0] && !valid_key(out->sec)) {
        ply_why(why, why_len, 0, "%s has a malformed secret-key", path);
        return PLY_EPARSE;
    }
    return 0;
}

/* Loads a certificate with its secret key and checks that the two keys belong together. */
static zcert_t *load_secret_cert(const char *path, char *why, size_t why_len)
{
    cert_text_t ct;
    if (read_cert(path, &ct, why, why_len) < 0) return NULL;
    if (!ct.sec[0]) {
        ply_why(why, why_len, 0, "%s holds no secret key: give the NAME.key_secret file", path);
        return NULL;
    }
    char derived[Z85_KEY_LEN + 1];
    if (zmq_curve_public(derived, ct.sec) != 0 || strcmp(derived, ct.pub) != 0) {
        ply_why(why, why_len, 0, "%s: its public key does not match its secret key", path);
        return NULL;
    }
    uint8_t pub[32], sec[32];
    zmq_z85_decode(pub, ct.pub);
    zmq_z85_decode(sec, ct.sec);
    zcert_t *cert = zcert_new_from(pub, sec);
    if (!cert) ply_why(why, why_len, 0, "out of memory");
    return cert;
}

static int is_dir(const char *path, char *why, size_t why_len, const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        ply_why(why, why_len, 0, "%s %s: %s", what, path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        ply_why(why, why_len, 0, "%s %s is not a directory", what, path);
        return 0;
    }
    return 1;
}

/* ---- the key store --------------------------------------------------------------------- */

typedef struct key_entry {
    char pub[Z85_KEY_LEN + 1];
    char name[NAME_LEN];
} key_entry_t;

typedef struct keystore {
    const char *dir;
    key_entry_t *keys;
    size_t n;
    struct timespec mtime;
    uint64_t scanned_ms;
    int scanned;
} keystore_t;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/*
 * Rescans the directory; files that are not public certificates are skipped,
 * with a warning unless @quiet (the rescans forced by unknown keys, which a
 * refused worker causes every second).
 */
static void keystore_scan(keystore_t *ks, int quiet)
{
    ks->scanned = 1;
    ks->scanned_ms = ply_time_ms();
    struct stat st;
    if (stat(ks->dir, &st) == 0) ks->mtime = st.st_mtim;
    DIR *d = opendir(ks->dir);
    if (!d) {
        ply_warn("CURVE: cannot read allow directory %s: %s", ks->dir, strerror(errno));
        ks->n = 0;
        return;
    }
    size_t n = 0, cap = 0;
    key_entry_t *keys = NULL;
    struct dirent *de;
    while ((de = readdir(d)) && n < MAX_KEYS) {
        if (de->d_name[0] == '.' || ends_with(de->d_name, "_secret")) continue;
        char path[4096], why[512];
        snprintf(path, sizeof path, "%s/%s", ks->dir, de->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        cert_text_t ct;
        if (read_cert(path, &ct, why, sizeof why) < 0) {
            ply_log(quiet ? PLY_LOG_DEBUG : PLY_LOG_WARN, "CURVE: skipping %s", why);
            continue;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            key_entry_t *grown = realloc(keys, ncap * sizeof *keys);
            if (!grown) break;
            keys = grown;
            cap = ncap;
        }
        memcpy(keys[n].pub, ct.pub, sizeof ct.pub);
        snprintf(keys[n].name, sizeof keys[n].name, "%s", ct.name[0] ? ct.name : de->d_name);
        n++;
    }
    closedir(d);
    free(ks->keys);
    ks->keys = keys;
    ks->n = n;
    ply_debug("CURVE: %zu key(s) allowed from %s", n, ks->dir);
}

/* Rescans when the directory changed, or when @force and the last scan is a second old. */
static void keystore_refresh(keystore_t *ks, int force)
{
    struct stat st;
    int changed =
        !ks->scanned || (stat(ks->dir, &st) == 0 && (st.st_mtim.tv_sec != ks->mtime.tv_sec ||
                                                     st.st_mtim.tv_nsec != ks->mtime.tv_nsec));
    if (changed || (force && ply_time_ms() - ks->scanned_ms >= RESCAN_MIN_MS))
        keystore_scan(ks, !changed);
}

static const key_entry_t *keystore_find(const keystore_t *ks, const char *pub)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->keys[i].pub, pub)) return &ks->keys[i];
    return NULL;
}

/* ---- a key directory for the protocol (admin keys) ------------------------------------ */

struct ply_keydir {
    keystore_t ks;
    char *dir;
};

ply_keydir_t *ply_keydir_new(const char *dir, char *why, size_t why_len)
{
    if (!dir || !is_dir(dir, why, why_len, "key directory")) return NULL;
    ply_keydir_t *k = calloc(1, sizeof *k);
    if (!k || !(k->dir = strdup(dir))) {
        free(k);
        ply_why(why, why_len, 0, "out of memory");
        return NULL;
    }
    k->ks.dir = k->dir;
    keystore_refresh(&k->ks, 0);
    return k;
}

int ply_keydir_has(ply_keydir_t *k, const char *pub)
{
    if (!k || !pub) return 0;
    keystore_refresh(&k->ks, 0);
    return keystore_find(&k->ks, pub) != NULL;
}

void ply_keydir_destroy(ply_keydir_t **kp)
{
    if (!kp || !*kp) return;
    free((*kp)->ks.keys);
    free((*kp)->dir);
    free(*kp);
    *kp = NULL;
}

/* ---- the ZAP handler ------------------------------------------------------------------ */

struct ply_curve_server {
    zcert_t *cert;
    char pub[Z85_KEY_LEN + 1];
    char *allow, *allow_clients;
    zactor_t *zap;
    atomic_uint_fast64_t allowed, refused;
};

typedef struct refusal {
    char pub[Z85_KEY_LEN + 1];
    uint64_t logged_ms;
    uint64_t since; /* attempts since the last log line */
} refusal_t;

typedef struct zap_state {
    ply_curve_server_t *srv;
    keystore_t workers, clients;
    refusal_t refusals[REFUSE_LOG_SLOTS];
} zap_state_t;

/* Looks @pub up in both stores. Returns ROLE_ bits (0: unknown) and its name. */
static int lookup_role(zap_state_t *z, const char *pub, const char **name, int force)
{
    keystore_refresh(&z->workers, force);
    if (z->clients.dir) keystore_refresh(&z->clients, force);
    const key_entry_t *w = keystore_find(&z->workers, pub);
    const key_entry_t *c = z->clients.dir ? keystore_find(&z->clients, pub) : NULL;
    int role = 0;
    if (w) role |= z->clients.dir ? ROLE_WORKER : ROLE_WORKER | ROLE_CLIENT;
    if (c) role |= ROLE_CLIENT;
    *name = w ? w->name : c ? c->name : "";
    return role;
}

/* Logs a refusal of @pub unless it was logged in the last REFUSE_LOG_MS. */
static void log_refusal(zap_state_t *z, const char *pub, const char *address)
{
    uint64_t now = ply_time_ms();
    refusal_t *slot = NULL, *oldest = &z->refusals[0];
    for (int i = 0; i < REFUSE_LOG_SLOTS && !slot; i++) {
        if (!strcmp(z->refusals[i].pub, pub)) slot = &z->refusals[i];
        if (z->refusals[i].logged_ms < oldest->logged_ms) oldest = &z->refusals[i];
    }
    if (slot && now - slot->logged_ms < REFUSE_LOG_MS) {
        slot->since++;
        return;
    }
    if (!slot) {
        slot = oldest;
        memset(slot, 0, sizeof *slot);
        snprintf(slot->pub, sizeof slot->pub, "%s", pub);
    }
    char more[64] = "";
    if (slot->since) snprintf(more, sizeof more, " (%" PRIu64 " more attempts)", slot->since);
    ply_warn("CURVE: refused unknown key %s from %s: not in %s%s%s%s", pub, address, z->srv->allow,
             z->srv->allow_clients ? " or " : "",
             z->srv->allow_clients ? z->srv->allow_clients : "", more);
    slot->logged_ms = now;
    slot->since = 0;
}

static void zap_reply(zsock_t *handler, const char *seq, const char *code, const char *text,
                      const char *user)
{
    zmsg_t *r = zmsg_new();
    if (!r) return;
    zmsg_addstr(r, "1.0");
    zmsg_addstr(r, seq);
    zmsg_addstr(r, code);
    zmsg_addstr(r, text);
    zmsg_addstr(r, user);
    zmsg_addmem(r, "", 0); /* no metadata */
    zmsg_send(&r, handler);
}

/*
 * One ZAP request (RFC 27): version, sequence, domain, address, identity,
 * mechanism, credentials. A REP socket must answer every request, so even a
 * malformed one gets a 500.
 */
static void zap_handle(zap_state_t *z, zsock_t *handler)
{
    zmsg_t *req = zmsg_recv(handler);
    if (!req) return;
    char *version = zmsg_popstr(req), *seq = zmsg_popstr(req), *domain = zmsg_popstr(req);
    char *address = zmsg_popstr(req);
    zframe_t *identity = zmsg_pop(req);
    char *mechanism = zmsg_popstr(req);
    zframe_t *key = zmsg_pop(req);
    if (!version || !seq || !mechanism || strcmp(version, "1.0") != 0) {
        zap_reply(handler, seq ? seq : "", "500", "malformed ZAP request", "");
    } else if (strcmp(mechanism, "CURVE") != 0 || !key || zframe_size(key) != 32) {
        atomic_fetch_add(&z->srv->refused, 1);
        ply_warn("CURVE: refused a %s connection from %s: this coordinator needs CURVE", mechanism,
                 address ? address : "?");
        zap_reply(handler, seq, "400", "CURVE required", "");
    } else {
        char pub[Z85_KEY_LEN + 1];
        zmq_z85_encode(pub, zframe_data(key), 32);
        const char *name;
        int role = lookup_role(z, pub, &name, 0);
        if (!role) role = lookup_role(z, pub, &name, 1);
        if (role) {
            const char *rn = role == ROLE_WORKER   ? "worker"
                             : role == ROLE_CLIENT ? "client"
                                                   : "any";
            char user[96];
            snprintf(user, sizeof user, "%s:%s", rn, pub);
            atomic_fetch_add(&z->srv->allowed, 1);
            ply_info("CURVE: admitted key %s (%s, as %s) from %s", pub, name, rn,
                     address ? address : "?");
            zap_reply(handler, seq, "200", "OK", user);
        } else {
            atomic_fetch_add(&z->srv->refused, 1);
            log_refusal(z, pub, address ? address : "?");
            zap_reply(handler, seq, "400", "unknown key", "");
        }
    }
    free(version);
    free(seq);
    free(domain);
    free(address);
    free(mechanism);
    zframe_destroy(&identity);
    zframe_destroy(&key);
    zmsg_destroy(&req);
}

static void zap_actor(zsock_t *pipe, void *arg)
{
    zap_state_t z;
    memset(&z, 0, sizeof z);
    z.srv = arg;
    z.workers.dir = z.srv->allow;
    z.clients.dir = z.srv->allow_clients;
    zsock_t *handler = zsock_new(ZMQ_REP);
    int ok = handler && zsock_bind(handler, ZAP_ENDPOINT) == 0;
    if (ok) {
        keystore_scan(&z.workers, 0);
        if (z.clients.dir) keystore_scan(&z.clients, 0);
    }
    /* zactor_new ignores the signal's status: say it in words, then wait for $TERM */
    zsock_signal(pipe, 0);
    zstr_send(pipe, ok ? "OK" : "no ZAP handler: inproc://zeromq.zap.01 is taken");
    while (!ok) {
        char *cmd = zstr_recv(pipe);
        int term = !cmd || !strcmp(cmd, "$TERM");
        zstr_free(&cmd);
        if (term) break;
    }
    while (ok) {
        zmq_pollitem_t items[2] = {{zsock_resolve(pipe), 0, ZMQ_POLLIN, 0},
                                   {zsock_resolve(handler), 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, 2, -1) < 0) {
            if (errno == EINTR) continue; /* a signal for another thread: keep serving */
            break;                        /* ETERM: the context is going away */
        }
        if (items[0].revents & ZMQ_POLLIN) {
            char *cmd = zstr_recv(pipe);
            int term = !cmd || !strcmp(cmd, "$TERM");
            zstr_free(&cmd);
            if (term) break;
        }
        if (items[1].revents & ZMQ_POLLIN) zap_handle(&z, handler);
    }
    if (handler) zsock_unbind(handler, ZAP_ENDPOINT);
    zsock_destroy(&handler);
    free(z.workers.keys);
    free(z.clients.keys);
}

ply_curve_server_t *ply_curve_server_new(const char *cert, const char *allow,
                                         const char *allow_clients, char *why, size_t why_len)
{
    if (!cert || !allow) {
        ply_why(why, why_len, 0, "CURVE needs a certificate and an allow directory");
        return NULL;
    }
    if (!is_dir(allow, why, why_len, "allow directory")) return NULL;
    if (allow_clients && !is_dir(allow_clients, why, why_len, "client allow directory"))
        return NULL;
    ply_curve_server_t *s = calloc(1, sizeof *s);
    if (!s) {
        ply_why(why, why_len, 0, "out of memory");
        return NULL;
    }
    atomic_init(&s->allowed, 0);
    atomic_init(&s->refused, 0);
    s->cert = load_secret_cert(cert, why, why_len);
    s->allow = strdup(allow);
    s->allow_clients = allow_clients ? strdup(allow_clients) : NULL;
    if (!s->cert || !s->allow || (allow_clients && !s->allow_clients)) {
        if (s->cert) ply_why(why, why_len, 0, "out of memory");
        ply_curve_server_destroy(&s);
        return NULL;
    }
    snprintf(s->pub, sizeof s->pub, "%s", zcert_public_txt(s->cert));
    s->zap = zactor_new(zap_actor, s);
    char *status = s->zap ? zstr_recv(s->zap) : NULL;
    if (!status || strcmp(status, "OK") != 0) {
        ply_why(why, why_len, 0, "cannot start the ZAP handler: %s",
                status ? status : "out of memory");
        zstr_free(&status);
        ply_curve_server_destroy(&s);
        return NULL;
    }
    zstr_free(&status);
    return s;
}

int ply_curve_server_apply(const ply_curve_server_t *s, zsock_t *sock)
{
    if (!s || !sock) return PLY_EINVAL;
    zcert_apply(s->cert, sock);
    zsock_set_curve_server(sock, 1);
    zsock_set_zap_domain(sock, PLY_ZAP_DOMAIN);
    int one = 1; /* refuse rather than admit if the handler were ever missing */
    zmq_setsockopt(zsock_resolve(sock), PLY_ZMQ_ZAP_ENFORCE_DOMAIN, &one, sizeof one);
    return 0;
}

const char *ply_curve_server_public_key(const ply_curve_server_t *s)
{
    return s ? s->pub : "";
}

void ply_curve_server_counters(const ply_curve_server_t *s, uint64_t *allowed, uint64_t *refused)
{
    ply_curve_server_t *m = (ply_curve_server_t *)s; /* atomic loads take non-const pointers */
    if (allowed) *allowed = m ? atomic_load(&m->allowed) : 0;
    if (refused) *refused = m ? atomic_load(&m->refused) : 0;
}

void ply_curve_server_destroy(ply_curve_server_t **sp)
{
    if (!sp || !*sp) return;
    ply_curve_server_t *s = *sp;
    zactor_destroy(&s->zap);
    zcert_destroy(&s->cert);
    free(s->allow);
    free(s->allow_clients);
    free(s);
    *sp = NULL;
}

/* ---- roles -------------------------------------------------------------------------- */

int ply_curve_recv_from(zsock_t *sock, zframe_t **routing_id, ply_msg_t **out, char *peer,
                        size_t peer_len, char *why, size_t why_len)
{
    return ply_curve_recv_from_ex(sock, routing_id, out, peer, peer_len, why, why_len, NULL);
}

int ply_curve_recv_from_ex(zsock_t *sock, zframe_t **routing_id, ply_msg_t **out, char *peer,
                           size_t peer_len, char *why, size_t why_len, ply_msg_refused_t *refused)
{
    if (refused) memset(refused, 0, sizeof *refused);
    if (out) *out = NULL;
    if (routing_id) *routing_id = NULL;
    if (peer && peer_len) peer[0] = '\0';
    zmsg_t *zmsg = sock ? zmsg_recv(sock) : NULL;
    if (!zmsg) {
        ply_why(why, why_len, 0, "nothing received (interrupted or timed out)");
        return PLY_EIO;
    }
    zframe_t *rid = zmsg_pop(zmsg);
    zframe_t *first = zmsg_first(zmsg);
    const char *user = first ? zframe_meta(first, "User-Id") : NULL;
    if (user && peer && peer_len) snprintf(peer, peer_len, "%s", user);
    int rc = ply_msg_decode(zmsg, out, why, why_len);
    if (rc < 0 && refused) {
        refused->result = ply_msg_refused_result(zmsg, &refused->job_id, &refused->attempt);
        zframe_t *id = zmsg_first(zmsg);
        refused->prev_version =
            rc == PLY_EVERSION && id && zframe_size(id) == strlen(PLY_PROTOCOL_ID_PREV) &&
            memcmp(zframe_data(id), PLY_PROTOCOL_ID_PREV, strlen(PLY_PROTOCOL_ID_PREV)) == 0;
    }
    if (routing_id)
        *routing_id = rid;
    else
        zframe_destroy(&rid);
    zmsg_destroy(&zmsg);
    return rc;
}

int ply_curve_role_check(const char *user, const ply_msg_t *msg, char *why, size_t why_len)
{
    if (!user || !user[0] || !msg) return 0; /* no CURVE on this connection */
    int role = !strncmp(user, "worker:", 7)   ? ROLE_WORKER
               : !strncmp(user, "client:", 7) ? ROLE_CLIENT
               : !strncmp(user, "any:", 4)    ? ROLE_WORKER | ROLE_CLIENT
                                              : 0;
    const char *pub = strchr(user, ':') ? strchr(user, ':') + 1 : user;
    int need = 0;
    switch (msg->body_case) {
    case PLY__MESSAGE__BODY_HELLO:
        need = ROLE_WORKER;
        break;
    case PLY__MESSAGE__BODY_SUBMIT:
    case PLY__MESSAGE__BODY_STATUS:
    case PLY__MESSAGE__BODY_RESULT_REQUEST:
    case PLY__MESSAGE__BODY_CANCEL:
        need = ROLE_CLIENT;
        break;
    default:
        break;
    }
    if (need && !(role & need)) {
        ply_why(why, why_len, 0, "key %s may not send %s: it is allowed as a %s only", pub,
                ply_msg_type_name(msg), role == ROLE_WORKER ? "worker" : "client");
        return PLY_ESTATE;
    }
    if (need == ROLE_WORKER)
        ply_info("CURVE: worker %s is key %s", msg->hello->worker_id ? msg->hello->worker_id : "?",
                 pub);
    return 0;
}

/* ---- clients -------------------------------------------------------------------------- */

struct ply_curve_client {
    zcert_t *cert;
    char server[Z85_KEY_LEN + 1];
};

static const ply_curve_client_t *default_client;

ply_curve_client_t *ply_curve_client_new(const char *cert, const char *server_key, char *why,
                                         size_t why_len)
{
    if (!cert || !server_key) {
        ply_why(why, why_len, 0, "CURVE needs a certificate and the server's public key");
        return NULL;
    }
    ply_curve_client_t *k = calloc(1, sizeof *k);
    if (!k) {
        ply_why(why, why_len, 0, "out of memory");
        return NULL;
    }
    struct stat st;
    if (stat(server_key, &st) != 0 && valid_key(server_key)) {
        snprintf(k->server, sizeof k->server, "%s", server_key);
    } else {
        cert_text_t ct;
        if (read_cert(server_key, &ct, why, why_len) < 0) {
            free(k);
            return NULL;
        }
        memcpy(k->server, ct.pub, sizeof k->server);
    }
    k->cert = load_secret_cert(cert, why, why_len);
    if (!k->cert) {
        free(k);
        return NULL;
    }
    return k;
}

int ply_curve_client_apply(const ply_curve_client_t *k, zsock_t *sock)
{
    if (!sock) return PLY_EINVAL;
    if (!k) return 0;
    zcert_apply(k->cert, sock);
    zsock_set_curve_serverkey(sock, k->server);
    return 0;
}

zsock_t *ply_conn_watch(zsock_t *sock, const ply_curve_client_t *k, int lost)
{
    if (!sock || (!k && !lost)) return NULL;
    int events = 0;
    if (k)
        events |= ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                  ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_SUCCEEDED;
    if (lost & PLY_WATCH_CONNECTIONS)
        events |= ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_DELAYED |
                  ZMQ_EVENT_CONNECT_RETRIED;
    if (lost & PLY_WATCH_HANDSHAKES)
        events |= ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                  ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_SUCCEEDED;
    /* one monitor per socket (libzmq): its PAIR end is bound under a name of its own */
    static _Atomic unsigned long serial;
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "inproc://ply-watch-%lu", atomic_fetch_add(&serial, 1));
    if (zmq_socket_monitor(zsock_resolve(sock), endpoint, events) != 0) return NULL;
    zsock_t *watch = zsock_new(ZMQ_PAIR);
    if (!watch) return NULL;
    zsock_set_linger(watch, 0);
    if (zsock_connect(watch, "%s", endpoint) != 0) zsock_destroy(&watch);
    return watch;
}

void ply_conn_watch_destroy(zsock_t **watch, zsock_t *sock)
{
    if (!watch || !*watch) return;
    /* The monitor's sends block while the watch is full (its high-water mark): drained
     * first, the I/O thread is not inside a send holding the monitor's lock when it is
     * stopped; stopped, it sends nothing more (no MONITOR_STOPPED: not asked for) */
    zsock_set_rcvtimeo(*watch, 0);
    zmsg_t *ev;
    while ((ev = zmsg_recv(*watch))) zmsg_destroy(&ev);
    if (sock) zmq_socket_monitor(zsock_resolve(sock), NULL, 0);
    zsock_destroy(watch);
}

/* Handshakes in a row that the server ended without a word, before one succeeded: a CURVE
 * server that cannot open our HELLO (we hold another server key) closes the connection
 * (HANDSHAKE_FAILED_NO_DETAIL, EPIPE), and ZeroMQ tries again every ~150 ms. A socket and its
 * watch belong to one thread, so the count is the thread's, for the watch it was read from. */
#define PLY_CURVE_SILENT_FAILS 3
static __thread const zsock_t *silent_watch;
static __thread int silent_fails;

int ply_conn_watch_read(zsock_t *watch, const ply_curve_client_t *k, char *why, size_t why_len)
{
    int event;
    return ply_conn_watch_read_event(watch, k, &event, why, why_len);
}

int ply_conn_watch_read_event(zsock_t *watch, const ply_curve_client_t *k, int *seen, char *why,
                              size_t why_len)
{
    *seen = 0;
    /* libzmq's events: [16-bit event, 32-bit value] in host order, then the endpoint; the
     * value of a failed authentication is the ZAP status code (RFC 27: 300 temporary error,
     * 400 refused, 500 internal error) */
    zmsg_t *ev = watch ? zmsg_recv(watch) : NULL;
    if (!ev) return 0;
    zframe_t *head = zmsg_first(ev);
    char *endpoint = zmsg_size(ev) >= 2 ? zframe_strdup(zmsg_next(ev)) : NULL;
    uint16_t event = 0;
    uint32_t value = 0;
    if (head && zframe_size(head) == 6) {
        memcpy(&event, zframe_data(head), 2);
        memcpy(&value, zframe_data(head) + 2, 4);
    }
    const char *where = endpoint ? endpoint : "the server";
    *seen = event;
    int r = 0;
    if (silent_watch != watch) silent_watch = watch, silent_fails = 0;
    switch (event) {
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
        silent_fails = 0;
        break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        if (k && ++silent_fails >= PLY_CURVE_SILENT_FAILS)
            r = ply_why(why, why_len, PLY_EAUTH,
                        "%s closed the connection during the CURVE handshake %d times in a row "
                        "(a CURVE server cannot read a client that expects another server key): "
                        "is --server-key the coordinator's public key?",
                        where, silent_fails);
        break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
        r = ply_why(why, why_len, PLY_EAUTH,
                    "%s refused our CURVE public key %s (ZAP status %u): copy our public key "
                    "file (NAME.key) into the coordinator's allow directory",
                    where, ply_curve_client_public_key(k), (unsigned)value);
        break;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        if (!k) { /* a plain client: the server speaks another mechanism (CURVE), or garbles */
            if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
                r = ply_why(why, why_len, PLY_EAUTH,
                            "%s speaks CURVE and this client does not (a coordinator started "
                            "with --curve answers only clients with --curve --cert FILE "
                            "--server-key FILE)",
                            where);
            else
                r = ply_why(why, why_len, PLY_EAUTH,
                            "the ZeroMQ handshake with %s failed (protocol error 0x%x): is it a "
                            "ply coordinator?",
                            where, (unsigned)value);
            break;
        }
        r = ply_why(why, why_len, PLY_EAUTH,
                    "CURVE handshake with %s failed (protocol error 0x%x): is --server-key the "
                    "coordinator's public key?",
                    where, (unsigned)value);
        break;
    case ZMQ_EVENT_DISCONNECTED:
        r = PLY_WATCH_LOST;
        break;
    case ZMQ_EVENT_CONNECTED:
    case ZMQ_EVENT_CONNECT_DELAYED:
    case ZMQ_EVENT_CONNECT_RETRIED:
        r = PLY_WATCH_TRYING;
        break;
    }
    free(endpoint);
    zmsg_destroy(&ev);
    return r;
}

const char *ply_curve_client_public_key(const ply_curve_client_t *k)
{
    return k ? zcert_public_txt(k->cert) : "";
}

void ply_curve_client_destroy(ply_curve_client_t **kp)
{
    if (!kp || !*kp) return;
    if (default_client == *kp) default_client = NULL;
    zcert_destroy(&(*kp)->cert);
    free(*kp);
    *kp = NULL;
}

void ply_curve_client_set_default(const ply_curve_client_t *k)
{
    default_client = k;
}

const ply_curve_client_t *ply_curve_client_default(void)
{
    return default_client;
}

/* ---- bind policy ------------------------------------------------------------------------- */

int ply_endpoint_is_local(const char *ep)
{
    if (!ep) return 0;
    if (!strncmp(ep, "inproc://", 9) || !strncmp(ep, "ipc://", 6)) return 1;
    if (strncmp(ep, "tcp://", 6) != 0) return 0;
    const char *host = ep + 6, *colon = strrchr(host, ':');
    if (!colon || strchr(host, ';')) return 0;
    char h[64];
    size_t n = (size_t)(colon - host);
    if (n >= sizeof h) return 0;
    memcpy(h, host, n);
    h[n] = '\0';
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
        memmove(h, h + 1, n - 2);
        h[n - 2] = '\0';
    }
    if (!strcmp(h, "localhost") || !strcmp(h, "lo") || !strcmp(h, "::1")) return 1;
    struct in_addr a4;
    if (inet_pton(AF_INET, h, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
    struct in6_addr a6;
    if (inet_pton(AF_INET6, h, &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
    return 0;
}

int ply_bind_check(const char *endpoint, int curve, int insecure, char *why, size_t why_len)
{
    if (curve || insecure || ply_endpoint_is_local(endpoint)) return 0;
    ply_why(why, why_len, 0,
            "refusing to bind %s without --curve: anyone who can reach it could submit runs "
            "and report results (bind 127.0.0.1, use --curve with keys from 'ply keygen', or "
            "accept the risk with --insecure)",
            endpoint ? endpoint : "(null)");
    return PLY_EINVAL;
}
