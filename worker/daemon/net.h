/*
 * The daemon's network actor (internal to worker/daemon/; net.c): a thread that owns the
 * socket to the coordinator, so that the compute side never touches it (STYLE.md rule 6)
 * and a job of any length never silences the heartbeat.
 *
 * The two sides talk through a pipe (a pair of inproc PAIR sockets) and the shared state
 * (daemon.h). Actor -> compute: "JOB" + pointer to a decoded message (ownership passes) +
 * the session's epoch, "END" + reason code. Compute -> actor: "SEND" + the two frames of
 * an encoded message, "$TERM" (shutdown). The actor is a thread the compute side starts
 * and joins itself (not a czmq zactor, whose detached thread could still be closing its
 * end of the pipe at exit, which costs every exit czmq's 200 ms wait for "dangling"
 * sockets).
 */
#ifndef PLY_WORKER_NET_H
#define PLY_WORKER_NET_H

#include <pthread.h>
#include <stdatomic.h>

#include <czmq.h>

#include "daemon.h"

/* The network actor's thread: its end of the pipe is closed there, before the compute
 * side's join returns. */
typedef struct ply__net {
    zsock_t *pipe; /* the actor's end */
    ply__daemon_t *sh;
    pthread_t thread;
    _Atomic int ended; /* the actor has returned: nobody reads the pipe any more */
} ply__net_t;

/** ply__net_start - starts the actor on @sh (its config's endpoint) in *@t; returns the
 * compute side's end of its pipe, after the actor's first signal, or NULL (no thread). */
zsock_t *ply__net_start(ply__net_t *t, ply__daemon_t *sh);

/** ply__net_stop - tells the actor to end ($TERM: it says BYE and closes), waits for its
 * thread and destroys *@front (NULL: nothing to do). */
void ply__net_stop(ply__net_t *t, zsock_t **front);

#endif
