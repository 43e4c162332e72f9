/*
 * Job runners (internal to worker/daemon/): one per job kind, each in its own file
 * (run_perft.c, run_search.c), listed in one table (runners.c) keyed by the kind's
 * number on the wire (Job.kind). The compute loop (service.c) knows no kind: it hands each
 * job to the runner of its kind, and the network actor lists the table's kinds in HELLO.
 * Adding a kind to the worker is one runner file and one line of the table.
 *
 * A runner runs on the compute side (the thread of ply_worker_run) only, but for `hello`,
 * which the actor calls. It owns its state (`open` makes it, `close` frees it): a table, an
 * engine, buffers kept from job to job.
 */
#ifndef PLY_WORKER_RUNNER_H
#define PLY_WORKER_RUNNER_H

#include <stddef.h>

#include <czmq.h>

#include "daemon.h"
#include "envelope.h"

typedef struct ply__runner ply__runner_t;

/** The compute side as a runner sees it (service.c). */
typedef struct ply__compute {
    ply__daemon_t *sh; /* shared with the network actor (daemon.h) */
    zsock_t *actor;    /* the compute side's end of the actor's pipe */
    void **states;     /* each runner's state, in the table's order */
} ply__compute_t;

struct ply__runner {
    uint32_t kind; /* the Job.kind it runs, and lists in HELLO */
    /* Makes the runner's state in *@state (NULL allowed) before the first job: 0, or
     * PLY_ENOMEM, which ends ply_worker_run with it. NULL: no state. */
    int (*open)(ply__daemon_t *sh, void **state);
    /* Runs @job of this kind, handed out in session @epoch, and hands its Result or an
     * Error about it to the actor (ply__compute_send). Returns 0 (done, or an Error said
     * why), PLY_ECANCELED (stopped or taken back: the coordinator re-queues it; nothing
     * sent), or PLY_ENOMEM, which ends the worker. */
    int (*run)(ply__compute_t *c, void *state, const Ply__Job *job, unsigned epoch);
    /* Frees what the runner keeps between jobs that another kind's table needs (the
     * worker's --hash holds one kind's table at a time: ply__compute_make_room); its next
     * job makes it again. NULL: nothing to free. */
    void (*release)(void *state);
    /* Frees the state (NULL allowed). NULL: no state. */
    void (*close)(void *state);
    /* Network actor: fills what HELLO says of this kind (Hello fields beside kinds), its
     * texts in @text (@len bytes, alive until the HELLO is sent); returns the bytes of
     * @text it used. NULL: nothing to say. */
    size_t (*hello)(const ply__daemon_t *sh, Ply__Hello *hello, char *text, size_t len);
};

/* ---- runners.c: the table --------------------------------------------------- */

extern const ply__runner_t *const ply__runners[]; /* one per kind */
extern const size_t ply__n_runners;

/* ---- service.c: what a runner calls ---------------------------------------- */

/** ply__compute_send - hands @msg to the actor, which sends it to the coordinator (it is
 * encoded here: @msg stays the caller's). */
void ply__compute_send(ply__compute_t *c, const Ply__Message *msg);

/** ply__compute_error - an Error about @job: code @code and "job N: @why". */
void ply__compute_error(ply__compute_t *c, const Ply__Job *job, int code, const char *why);

/** ply__compute_make_room - every runner but @self frees what it keeps between jobs
 * (its release), before @self makes a table of the worker's --hash. */
void ply__compute_make_room(ply__compute_t *c, const ply__runner_t *self);

#endif
