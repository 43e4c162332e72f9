/*
 * The fake coordinator of the worker's tests (see fake_coord.h): one ROUTER, one spawned
 * ply-worker, messages built by hand.
 */
#define _GNU_SOURCE
#include "fake_coord.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

ply_msg_t *fake_coord_recv_type(fake_coord_t *fc, int body, int timeout_ms)
{
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < (uint64_t)timeout_ms;) {
        ply_msg_t *m = NULL;
        zframe_t *rid = NULL;
        int rc = ply_msg_recv_from(fc->router, &rid, &m, NULL, 0);
        if (rid) {
            zframe_destroy(&fc->worker);
            fc->worker = rid;
        }
        if (rc != 0) continue;
        if ((int)m->body_case == body) return m;
        ply_msg_free(&m);
    }
    return NULL;
}

ply_msg_t *ply_test_recv_type(zsock_t *sock, int body, int timeout_ms)
{
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < (uint64_t)timeout_ms;) {
        ply_msg_t *m = NULL;
        if (ply_msg_recv(sock, &m, NULL, 0) != 0) continue;
        if ((int)m->body_case == body) return m;
        ply_msg_free(&m);
    }
    return NULL;
}

void fake_coord_send(fake_coord_t *fc, ply_msg_t *m)
{
    assert_non_null(fc->worker);
    assert_int_equal(ply_msg_send_to(fc->router, fc->worker, m), 0);
}

int fake_coord_start(fake_coord_t *fc, const char *tag, const char *fmt, ...)
{
    memset(fc, 0, sizeof *fc);
    fc->next_job = 100;
    fc->router = zsock_new(ZMQ_ROUTER);
    zsock_set_linger(fc->router, 0);
    zsock_set_rcvtimeo(fc->router, 200);
    int port = -1;
    for (int i = 0; i < 10 && port < 0; i++) {
        int p = th_free_port();
        if (zsock_bind(fc->router, "tcp://127.0.0.1:%d", p) >= 0) port = p;
    }
    if (port < 0) return -1;
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(fc->dir, sizeof fc->dir, "%s", th_tmpdir(tag));
    snprintf(fc->log, sizeof fc->log, "%s/worker.log", fc->dir);
    fc->pid = th_spawn(fc->log, "exec ply-worker --connect tcp://127.0.0.1:%d %s", port, args);
    fc->hello = fake_coord_recv_type(fc, PLY__MESSAGE__BODY_HELLO, 30000 * (int)th_slowdown());
    if (!fc->hello) {
        char *log = th_slurp(fc->log);
        print_error("no HELLO from the worker in %d s; its log:\n%s\n", 30 * (int)th_slowdown(),
                    log ? log : "(none)");
        free(log);
        return -1;
    }
    /* a long liveness: this coordinator sends no heartbeats */
    Ply__Welcome w = PLY__WELCOME__INIT;
    w.has_heartbeat_ms = 1, w.heartbeat_ms = 500;
    w.has_liveness = 1, w.liveness = 1000;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_WELCOME;
    m.welcome = &w;
    return ply_msg_send_to(fc->router, fc->worker, &m) == 0 ? 0 : -1;
}

void fake_coord_stop(fake_coord_t *fc)
{
    th_stop(fc->pid);
    fc->pid = 0;
    if (fc->dir[0]) {
        th_run_t r = th_run(30, "rm -rf '%s'", fc->dir); /* the log is printed on a failure */
        th_run_free(&r);
    }
    ply_msg_free(&fc->hello);
    zframe_destroy(&fc->worker);
    zsock_destroy(&fc->router);
}

uint64_t fake_coord_send_search(fake_coord_t *fc, Ply__SearchJob *sj)
{
    Ply__Job j = PLY__JOB__INIT;
    j.has_job_id = 1, j.job_id = ++fc->next_job;
    j.has_attempt = 1, j.attempt = 1;
    j.has_kind = 1, j.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    j.has_run_id = 1, j.run_id = 1;
    j.has_lease_ms = 1, j.lease_ms = 600000;
    j.search = sj;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_JOB;
    m.job = &j;
    fake_coord_send(fc, &m);
    return j.job_id;
}

ply_msg_t *fake_coord_answer(fake_coord_t *fc, uint64_t id, int timeout_ms)
{
    for (uint64_t t0 = th_now_ms(); th_now_ms() - t0 < (uint64_t)timeout_ms * th_slowdown();) {
        ply_msg_t *m = NULL;
        if (ply_msg_recv_from(fc->router, NULL, &m, NULL, 0) != 0) continue;
        if (m->body_case == PLY__MESSAGE__BODY_RESULT && m->result->job_id == id) return m;
        if (m->body_case == PLY__MESSAGE__BODY_ERROR && m->error->job_id == id) return m;
        ply_msg_free(&m);
    }
    char *log = th_slurp(fc->log);
    fail_msg("no answer to job %" PRIu64 "; worker log:\n%s", id, log);
    free(log);
    return NULL;
}
