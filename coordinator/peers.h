/*
 * The registry of workers and clients (peers.c): who they are (their identity, as far as
 * the coordinator can prove it), what a worker runs and holds, and sending to a peer.
 * peers.c writes ply__peer_t, except the figures a worker's messages feed (worker_msgs.c: its
 * HELLO, credit, heartbeats and results) and its inflight list (dispatch.c's hand-out).
 */
#ifndef PLY_COORDINATOR_PEERS_H
#define PLY_COORDINATOR_PEERS_H

#include <stddef.h>
#include <stdint.h>

#include <czmq.h>

#include "core.h"

enum { PLY__PEER_WORKER = 1, PLY__PEER_CLIENT = 2 };

/*
 * Identity (the trust model, README "Threat model"): who a peer is, as far as
 * the coordinator can prove it. Under CURVE it is the peer's public key (the
 * "User-Id" the ZAP handler gave its connection, security.h): every session
 * opened with one key is one identity, whatever worker_id or seed it
 * declares. Without CURVE (loopback only) nothing is proven but the
 * connection: its routing id. Set when the peer is created, never changed;
 * a message whose identity differs from its peer's is dropped.
 */
struct ply__peer {
    struct ply__peer *next;
    zframe_t *rid;
    int kind;
    char identity[PLY__IDENT_LEN]; /* "curve:<z85 public key>" or "conn:<routing id hex>" */
    char name[PLY__ID_LEN + 16];   /* "worker <worker_id>" or "client <routing id in hex>" */
    char worker_id[PLY_MAX_TEXT + 1];
    uint32_t id_hash; /* of worker_id: "prefer another worker" survives reconnects */
    uint64_t last_seen_ms;
    /* workers */
    uint32_t threads, hash_mib, seed;
    uint32_t kinds;                    /* the job kinds it runs: bit 1 << kind number, for the
                                          numbers below 32 (HELLO) */
    uint32_t kind_list[PLY_MAX_KINDS]; /* and as its HELLO listed them (WorkerStatus.kinds) */
    uint32_t nkind_list;
    char engine[PLY__ENGINE_LEN];     /* its search backend ("builtin", "uci:<name>"), or "" */
    char engine_id[PLY_MAX_TEXT + 1]; /* who answers a reproducible search alike (HELLO), or "" */
    uint32_t credit;
    uint64_t *inflight;
    size_t ninflight, capinflight;
    uint64_t jobs_done;
    ply_u128_t nodes; /* sum of its results' counts (exact: util/u128.h) */
    /* whose runs those counts are from: one run's owner, "" while none; nodes_mixed once
     * there are several (then only an admin may see the total: it holds others' answers) */
    char nodes_owner[PLY__IDENT_LEN];
    int nodes_mixed;
    uint64_t busy_us;     /* sum of its results' time_us: its own speed is nodes / busy_us */
    uint64_t hb_nodes;    /* the node count its last heartbeat carried */
    uint64_t progress_ms; /* when that count last advanced, or it last became busy */
    /* its live rate (status.c): heartbeat node counts sampled at least PLY__RATE_MIN_MS apart */
    uint64_t hb_ms;               /* when its last heartbeat came, or 0 */
    uint64_t rate_nodes, rate_ms; /* the sample the rate is measured from */
    double nps;                   /* nodes a second between its last two samples */
    int probation;                /* dropped as hung before: no jobs until its count advances */
    uint64_t probation_nodes, probation_until_ms;
};

/** ply__hash_id - FNV-1a of a worker id. */
uint32_t ply__hash_id(const char *id);
/** ply__rid_hex - routing id @rid in hex into @buf (at most @len bytes, cut to fit, terminated). */
void ply__rid_hex(zframe_t *rid, char *buf, size_t len);
/**
 * ply__identity - the identity (see ply__peer_t) of the sender of a message:
 * "curve:<key>" from @peer_key (ply_curve_recv_from's "role:key", "" without
 * CURVE), else "conn:<hex of @rid>". Writes at most @len bytes (PLY__IDENT_LEN
 * holds any identity) into @buf, always terminated.
 */
void ply__identity(zframe_t *rid, const char *peer_key, char *buf, size_t len);
/**
 * ply__principal - whose a client message is (the owner of the run it
 * submits, who asks about a run), from its sender's @identity and the owner
 * @token it sent (see peers.c), into @buf (at most @len bytes).
 */
void ply__principal(const char *identity, const char *token, char *buf, size_t len);
/** ply__is_admin - 1 when principal @who is one of the --admin-keys (CURVE only). */
int ply__is_admin(ply_coordinator_t *c, const char *who);
/**
 * ply__may_read - 1 when @who may read the answer of, and cancel, a run of
 * @owner: its owner, or an admin key; a run stored before runs had owners
 * ("") is everyone's, as it was.
 */
int ply__may_read(ply_coordinator_t *c, const char *owner, const char *who);
/** ply__send_raw - send a copy of the encoded message @stored to @rid; 0, PLY_ENOMEM or PLY_EIO. */
int ply__send_raw(ply_coordinator_t *c, zframe_t *rid, zmsg_t *stored);
/** ply__send_msg - send @m to @rid; a failure is only logged (debug). */
void ply__send_msg(ply_coordinator_t *c, zframe_t *rid, ply_msg_t *m);
/** ply__send_error - send an Error (@code, the message, @run_id) to @rid; nothing when @rid is
 * NULL. */
void ply__send_error(ply_coordinator_t *c, zframe_t *rid, int code, uint64_t run_id,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/** ply__peer_find - the peer with routing id @rid, or NULL. */
ply__peer_t *ply__peer_find(ply_coordinator_t *c, zframe_t *rid);
/**
 * Client peers kept at most (each about 2 KB): a client holds no state, and ZeroMQ never says
 * when one has gone, so each `ply` command's connection stayed until 10 liveness periods of
 * silence (50 s): memory grew with the rate of commands (issue 27: 3 KB a run). Past the
 * bound, the client heard from longest ago is forgotten; if it speaks again it is a new peer.
 */
#define PLY__CLIENTS_KEEP 256

/** ply__peer_add - a new peer of @kind (PEER_*) at the head of the list, or NULL (out of memory).
 * A new client beyond PLY__CLIENTS_KEEP forgets the client peer heard from longest ago.
 */
ply__peer_t *ply__peer_add(ply_coordinator_t *c, zframe_t *rid, const char *identity, int kind);
/** ply__peer_unlink - take @gone out of the list and free it (ply__worker_remove re-queues first).
 */
void ply__peer_unlink(ply_coordinator_t *c, ply__peer_t *gone);
/** ply__inflight_add - worker @p now holds the task of wire id @job_id; 0 or PLY_ENOMEM. */
int ply__inflight_add(ply__peer_t *p, uint64_t job_id);
/** ply__inflight_remove - @p no longer holds @job_id (nothing when it did not). */
void ply__inflight_remove(ply__peer_t *p, uint64_t job_id);
/** ply__worker_by_id - a connected worker whose worker_id is @id, or NULL. */
ply__peer_t *ply__worker_by_id(ply_coordinator_t *c, const char *id);
/**
 * ply__worker_release_jobs - worker @p is gone (dead, BYE or re-HELLO): its
 * credit is 0 and its tasks go back to their runs (ply__task_requeue with
 * @failure and @reason).
 */
void ply__worker_release_jobs(ply_coordinator_t *c, ply__peer_t *p, int failure,
                              const char *reason);
/** ply__worker_remove - log why @p goes (@reason), release its tasks and unlink it. */
void ply__worker_remove(ply_coordinator_t *c, ply__peer_t *p, int failure, const char *reason);
/**
 * ply__worker_list - the connected workers as WorkerStatus entries (the
 * caller frees both arrays), node totals only where @who may read them;
 * their number, 0 with NULLs when there are none or memory is short.
 */
size_t ply__worker_list(ply_coordinator_t *c, Ply__WorkerStatus **wsp, Ply__WorkerStatus ***wpp,
                        const char *who);

#endif
