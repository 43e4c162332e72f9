/*
 * The registry of the coordinator's peers (ply__peer_t, peers.h): the workers
 * and clients that speak to its ROUTER socket, keyed by routing id; who each
 * one is (its identity, and the principal a client message speaks for) and
 * what it may read; the tasks each worker holds (its inflight list); sending
 * to a peer; and the worker list that status answers carry.
 *
 * Invariant: a task is INFLIGHT exactly when its id is in the inflight list
 * of task.worker, with task.attempt the attempt that worker was sent. A
 * worker that goes (ply__worker_remove) gives its tasks back to their runs
 * first.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"
#include "runs.h"
#include "core.h"
#include "tasks.h"
#include "verification.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

/* -------------------------------------------------------------- identities */

uint32_t ply__hash_id(const char *id)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)id; p && *p; p++) h = (h ^ *p) * 16777619u;
    return h ? h : 1; /* 0 means "no worker" in ply__task_t.avoid */
}

void ply__rid_hex(zframe_t *rid, char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = rid ? zframe_size(rid) : 0, o = 0;
    const uint8_t *d = rid ? zframe_data(rid) : NULL;
    for (size_t i = 0; i < n && o + 3 < len; i++) {
        buf[o++] = hex[d[i] >> 4];
        buf[o++] = hex[d[i] & 15];
    }
    buf[o] = '\0';
}

void ply__identity(zframe_t *rid, const char *peer_key, char *buf, size_t len)
{
    if (!len) return;
    const char *key = peer_key && peer_key[0] ? strchr(peer_key, ':') : NULL;
    if (key) {
        snprintf(buf, len, "curve:%s", key + 1);
        return;
    }
    char hex[2 * 255 + 1];
    ply__rid_hex(rid, hex, sizeof hex);
    if (strlen(hex) + sizeof "conn:" <= PLY__IDENT_LEN) {
        snprintf(buf, len, "conn:%s", hex);
        return;
    }
    /* a long routing id a peer chose: a hash stands for it (two such peers that collide
     * only count as one identity, never as two) */
    uint64_t h = 14695981039346656037u;
    const uint8_t *d = zframe_data(rid);
    for (size_t i = 0; i < zframe_size(rid); i++) h = (h ^ d[i]) * 1099511628211u;
    snprintf(buf, len, "conn:#%016" PRIx64, h);
}

/*
 * Whose a client message is: the owner a run it submits gets, and who asks
 * about a run. Under CURVE the client's key (its identity: proven by the
 * handshake); without, "token:" and the SHA-1 of the owner token it sent (so
 * the state file never holds the secret, and the token is a bearer secret as
 * on loopback nothing else is proven); without either, its connection.
 */
void ply__principal(const char *identity, const char *token, char *buf, size_t len)
{
    zdigest_t *d = NULL;
    if (strncmp(identity, "curve:", 6) != 0 && token && token[0] && (d = zdigest_new())) {
        zdigest_update(d, (const byte *)token, strlen(token));
        snprintf(buf, len, "token:%s", zdigest_string(d));
        zdigest_destroy(&d);
        return;
    }
    snprintf(buf, len, "%s", identity);
}

/* Whether @who may read the answer of, and cancel, a run of @owner: its owner, or an admin
 * key; a run stored before runs had owners ("") is everyone's, as it was. */
int ply__is_admin(ply_coordinator_t *c, const char *who)
{
    return c->admins && strncmp(who, "curve:", 6) == 0 && ply_keydir_has(c->admins, who + 6);
}

int ply__may_read(ply_coordinator_t *c, const char *owner, const char *who)
{
    return !owner[0] || strcmp(owner, who) == 0 || ply__is_admin(c, who);
}

/* ----------------------------------------------------------------- sending */

/* Frees an RunResult/RunProgress/Error zmsg copy and sends it to @rid. */
int ply__send_raw(ply_coordinator_t *c, zframe_t *rid, zmsg_t *stored)
{
    zmsg_t *copy = zmsg_dup(stored);
    if (!copy) return PLY_ENOMEM;
    zframe_t *id = zframe_dup(rid);
    if (!id || zmsg_prepend(copy, &id) != 0 || zmsg_send(&copy, c->router) != 0) {
        zframe_destroy(&id);
        zmsg_destroy(&copy);
        return PLY_EIO;
    }
    return 0;
}

void ply__send_msg(ply_coordinator_t *c, zframe_t *rid, ply_msg_t *m)
{
    int r = ply_msg_send_to(c->router, rid, m);
    if (r < 0) ply_debug("cannot send %s: %s", ply_msg_type_name(m), ply_strerror(r));
}

void ply__send_error(ply_coordinator_t *c, zframe_t *rid, int code, uint64_t run_id,
                     const char *fmt, ...)
{
    char line[PLY__WHY_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (rid) ply_msg_send_error(c->router, rid, code, line, 0, 0, run_id);
}

/* ------------------------------------------------------------ the registry */

ply__peer_t *ply__peer_find(ply_coordinator_t *c, zframe_t *rid)
{
    for (ply__peer_t *p = c->peers; p; p = p->next)
        if (zframe_eq(p->rid, rid)) return p;
    return NULL;
}

/* Forgets the client peer heard from longest ago (it holds nothing: see PLY__CLIENTS_KEEP). */
static void forget_oldest_client(ply_coordinator_t *c)
{
    ply__peer_t *old = NULL;
    for (ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_CLIENT && (!old || p->last_seen_ms <= old->last_seen_ms)) old = p;
    if (!old) return;
    ply__count(c, PLY__CNT_CLIENTS_FORGOTTEN);
    ply__peer_unlink(c, old);
}

ply__peer_t *ply__peer_add(ply_coordinator_t *c, zframe_t *rid, const char *identity, int kind)
{
    if (kind == PLY__PEER_CLIENT && c->nclients >= PLY__CLIENTS_KEEP) forget_oldest_client(c);
    ply__peer_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->rid = zframe_dup(rid);
    if (!p->rid) {
        free(p);
        return NULL;
    }
    p->kind = kind;
    snprintf(p->identity, sizeof p->identity, "%s", identity);
    p->last_seen_ms = ply_time_ms();
    char hex[64];
    ply__rid_hex(rid, hex, sizeof hex);
    snprintf(p->name, sizeof p->name, "%s %s", kind == PLY__PEER_WORKER ? "worker" : "client", hex);
    p->next = c->peers;
    c->peers = p;
    if (kind == PLY__PEER_WORKER) c->nworkers++;
    if (kind == PLY__PEER_CLIENT) c->nclients++;
    return p;
}

void ply__peer_unlink(ply_coordinator_t *c, ply__peer_t *gone)
{
    for (ply__peer_t **pp = &c->peers; *pp; pp = &(*pp)->next)
        if (*pp == gone) {
            *pp = gone->next;
            break;
        }
    if (gone->kind == PLY__PEER_WORKER && --c->nworkers == 0) c->no_worker_since_ms = ply_time_ms();
    if (gone->kind == PLY__PEER_CLIENT) c->nclients--;
    zframe_destroy(&gone->rid);
    free(gone->inflight);
    free(gone);
}

int ply__inflight_add(ply__peer_t *p, uint64_t job_id)
{
    if (p->ninflight == p->capinflight) {
        size_t cap = p->capinflight ? p->capinflight * 2 : 8;
        uint64_t *a = realloc(p->inflight, cap * sizeof *a);
        if (!a) return PLY_ENOMEM;
        p->inflight = a;
        p->capinflight = cap;
    }
    p->inflight[p->ninflight++] = job_id;
    return 0;
}

void ply__inflight_remove(ply__peer_t *p, uint64_t job_id)
{
    for (size_t i = 0; i < p->ninflight; i++)
        if (p->inflight[i] == job_id) {
            p->inflight[i] = p->inflight[--p->ninflight];
            return;
        }
}

ply__peer_t *ply__worker_by_id(ply_coordinator_t *c, const char *id)
{
    for (ply__peer_t *p = c->peers; p; p = p->next)
        if (p->kind == PLY__PEER_WORKER && strncmp(p->worker_id, id, PLY__ID_LEN - 1) == 0)
            return p;
    return NULL;
}

/* The worker is gone (dead, BYE or re-HELLO): its jobs go back to their runs. */
void ply__worker_release_jobs(ply_coordinator_t *c, ply__peer_t *p, int failure, const char *reason)
{
    uint64_t *ids = p->inflight;
    size_t n = p->ninflight;
    p->inflight = NULL;
    p->ninflight = p->capinflight = 0;
    p->credit = 0;
    for (size_t i = 0; i < n; i++) {
        size_t idx;
        ply__run_t *run = ply__task_find(c, ids[i], &idx);
        if (run && run->sched.tasks[idx].state == PLY__TASK_INFLIGHT &&
            run->sched.tasks[idx].worker == p)
            ply__task_requeue(c, run, idx, failure, reason);
    }
    free(ids);
}

void ply__worker_remove(ply_coordinator_t *c, ply__peer_t *p, int failure, const char *reason)
{
    ply_log(failure ? PLY_LOG_WARN : PLY_LOG_INFO, "%s %s; %zu job(s) re-queued", p->name, reason,
            p->ninflight);
    ply__worker_release_jobs(c, p, failure, reason);
    ply__peer_unlink(c, p);
}

/* --------------------------------------------------------- the worker list */

/* Whether @who may see worker @p's node total: with one worker per run that total is the
 * run's answer, so it is shown only to whoever may read every run it comes from. */
static int may_read_worker_nodes(ply_coordinator_t *c, const ply__peer_t *p, const char *who)
{
    if (p->nodes_mixed) return ply__is_admin(c, who);
    return !p->nodes_owner[0] || !strcmp(p->nodes_owner, "-") ||
           ply__may_read(c, p->nodes_owner, who);
}

/* The connected workers as WorkerStatus entries (caller frees both arrays), or NULLs; node
 * totals only where @who may read them (may_read_worker_nodes). */
size_t ply__worker_list(ply_coordinator_t *c, Ply__WorkerStatus **wsp, Ply__WorkerStatus ***wpp,
                        const char *who)
{
    *wsp = NULL, *wpp = NULL;
    if (!c->nworkers) return 0;
    Ply__WorkerStatus *ws = calloc(c->nworkers, sizeof *ws);
    Ply__WorkerStatus **wp = calloc(c->nworkers, sizeof *wp);
    if (!ws || !wp) {
        free(ws);
        free(wp);
        return 0;
    }
    uint64_t now = ply_time_ms();
    size_t i = 0;
    for (ply__peer_t *p = c->peers; p && i < c->nworkers; p = p->next) {
        if (p->kind != PLY__PEER_WORKER) continue;
        ws[i] = (Ply__WorkerStatus)PLY__WORKER_STATUS__INIT;
        ws[i].worker_id = p->worker_id;
        ws[i].has_threads = 1, ws[i].threads = p->threads;
        ws[i].has_jobs_in_flight = 1, ws[i].jobs_in_flight = (uint32_t)p->ninflight;
        ws[i].has_jobs_done = 1, ws[i].jobs_done = p->jobs_done;
        if (may_read_worker_nodes(c, p, who)) {
            ws[i].has_nodes = 1, ws[i].nodes = ply_u128_lo(p->nodes);
            ws[i].has_nodes_hi = ply_u128_hi(p->nodes) != 0;
            ws[i].nodes_hi = ply_u128_hi(p->nodes);
        }
        ws[i].has_zobrist_seed = 1, ws[i].zobrist_seed = p->seed;
        ws[i].has_busy_us = 1, ws[i].busy_us = p->busy_us;
        ws[i].identity = p->identity;
        ws[i].n_kinds = p->nkind_list, ws[i].kinds = p->kind_list;
        uint32_t excluded = 0;
        for (const ply__run_t *run = c->runs; run; run = run->next)
            excluded += run->state == PLY__RUN_ACTIVE && ply__excluded(run, p->identity);
        ws[i].has_excluded_runs = 1, ws[i].excluded_runs = excluded;
        ws[i].has_stalled_ms = 1;
        ws[i].stalled_ms = p->ninflight ? ply_elapsed_ms(now, p->progress_ms) : 0;
        wp[i] = &ws[i];
        i++;
    }
    *wsp = ws, *wpp = wp;
    return i;
}
