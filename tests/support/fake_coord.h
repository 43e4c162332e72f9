/*
 * A fake coordinator for the worker's tests: a ROUTER socket on a free loopback port that
 * plays the coordinator's side of the protocol (proto/ply.proto) by hand, with one real
 * ply-worker started against it. It takes the worker's HELLO, answers WELCOME with a long
 * liveness (it sends no heartbeats), sends jobs and Cancels, and waits for answers, so that
 * a test sees exactly what the worker says and when. The worker's log is kept for the
 * failure messages. Failures of the fixture itself fail the current cmocka test.
 */
#ifndef PLY_TEST_FAKE_COORD_H
#define PLY_TEST_FAKE_COORD_H

#include <stdint.h>
#include <sys/types.h>

#include <czmq.h>

#include "envelope.h"

typedef struct fake_coord {
    zsock_t *router;
    zframe_t *worker;  /* routing id of the worker's connection (the last one heard from) */
    pid_t pid;         /* the ply-worker process */
    char dir[128];     /* its scratch directory (removed by fake_coord_stop) */
    char log[256];     /* its stdout and stderr */
    uint64_t next_job; /* the last job id sent (the first job is 101) */
    ply_msg_t *hello;  /* its first HELLO */
} fake_coord_t;

/**
 * fake_coord_start - bind @fc's ROUTER on a free loopback port, start
 * `exec ply-worker --connect tcp://127.0.0.1:PORT ARGS` (ARGS: @fmt, printf-style) with
 * its output in a log under th_tmpdir(@tag), wait up to 30 s (times th_slowdown) for its
 * HELLO and answer WELCOME (heartbeats every 500 ms, liveness 1000). Returns 0, or -1
 * when no port could be bound, no HELLO came or the WELCOME could not be sent.
 */
int fake_coord_start(fake_coord_t *fc, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** fake_coord_stop - stop the worker, remove its directory, free and close everything. */
void fake_coord_stop(fake_coord_t *fc);

/**
 * fake_coord_recv_type - the next message of type @body (a PLY__MESSAGE__BODY_ value) from
 * the worker within @timeout_ms; others are dropped, the sender's routing id is kept.
 * NULL when none came. The caller frees it with ply_msg_free.
 */
ply_msg_t *fake_coord_recv_type(fake_coord_t *fc, int body, int timeout_ms);

/** fake_coord_send - send @m to the worker; fails the test when it cannot. */
void fake_coord_send(fake_coord_t *fc, ply_msg_t *m);

/**
 * fake_coord_send_search - send a SEARCH job for @sj (run 1, attempt 1, a lease of 600 s)
 * under the next job id; returns that id.
 */
uint64_t fake_coord_send_search(fake_coord_t *fc, Ply__SearchJob *sj);

/**
 * fake_coord_answer - the worker's answer to job @id: a RESULT or an ERROR (caller frees).
 * Waits up to @timeout_ms times th_slowdown, then fails the test, showing the worker's log.
 */
ply_msg_t *fake_coord_answer(fake_coord_t *fc, uint64_t id, int timeout_ms);

/**
 * ply_test_recv_type - the next message of type @body on @sock (a DEALER, e.g. a client's
 * socket) within @timeout_ms of the monotonic clock; others are dropped. Each receive
 * waits as long as @sock's receive timeout. NULL when none came; the caller frees it.
 */
ply_msg_t *ply_test_recv_type(zsock_t *sock, int body, int timeout_ms);

#endif
