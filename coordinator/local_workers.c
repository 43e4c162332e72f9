/*
 * The local worker processes a coordinator starts (ply_coordinator_config_t.spawn_workers,
 * the embedded default of `ply`): spawning each slot with libuv, starting a slot again when
 * its worker dies (at most PLY__RESPAWN_MAX times in PLY__RESPAWN_WINDOW_MS), their jobs
 * re-queued at once when one ends early, and stopping them (SIGTERM, then SIGKILL after
 * KILL_GRACE_MS). service.c owns the loop and calls these.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>
#include <uv.h>

#include "peers.h"
#include "core.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

#define KILL_GRACE_MS 2000

static void on_kill_timer(uv_timer_t *t)
{
    ply_coordinator_t *c = t->data;
    for (unsigned i = 0; i < c->nprocs; i++)
        if (c->procs[i].alive) {
            ply_warn("local worker %u (pid %d) ignores SIGTERM: SIGKILL", i,
                     c->procs[i].handle.pid);
            uv_process_kill(&c->procs[i].handle, SIGKILL);
        }
}

static int spawn_one(ply_coordinator_t *c, unsigned i, char *why, size_t why_len);

unsigned ply__local_slots_left(const ply_coordinator_t *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->nprocs; i++) n += !c->procs[i].given_up;
    return n;
}

/*
 * A local worker's handle is closed: start the slot again unless it died too
 * often; when no slot is left and no other worker is connected, the active
 * runs fail now, saying why, instead of waiting worker_wait_ms for nobody.
 */
static void on_proc_closed(uv_handle_t *h)
{
    ply__proc_t *pr = h->data;
    ply_coordinator_t *c = pr->c;
    if (c->state >= PLY__C_STOPPING) return;
    uint64_t now = ply_time_ms();
    if (now - pr->window_ms > PLY__RESPAWN_WINDOW_MS) {
        pr->window_ms = now;
        pr->deaths = 0;
    }
    char why[256];
    if (++pr->deaths > PLY__RESPAWN_MAX) {
        pr->given_up = 1;
        c->proc_lost = pr;
        ply_warn("local worker %u died %u times within %u s (last: %s): not started again",
                 pr->index, pr->deaths, PLY__RESPAWN_WINDOW_MS / 1000, pr->last_exit);
    } else if (spawn_one(c, pr->index, why, sizeof why) < 0) {
        pr->given_up = 1;
        c->proc_lost = pr;
        ply_warn("local worker %u: %s", pr->index, why);
    }
    ply__check_worker_wait(c, now);
    ply__pump(c);
}

static void on_proc_exit(uv_process_t *h, int64_t status, int signum)
{
    ply__proc_t *pr = h->data;
    ply_coordinator_t *c = pr->c;
    pr->alive = 0;
    c->procs_alive--;
    if (signum)
        snprintf(pr->last_exit, sizeof pr->last_exit, "pid %d killed by signal %d", h->pid, signum);
    else
        snprintf(pr->last_exit, sizeof pr->last_exit, "pid %d exited with status %" PRId64, h->pid,
                 status);
    if (c->state < PLY__C_STOPPING) {
        ply_warn("local worker %u (%s) ended early", pr->index, pr->last_exit);
        /* Its jobs go back to the queue now, not after the heartbeat timeout, and
         * count as failed attempts (a job that kills every worker is quarantined). */
        ply__peer_t *p = ply__worker_by_id(c, pr->id);
        if (p) {
            char reason[160];
            snprintf(reason, sizeof reason, "local worker %u: %s", pr->index, pr->last_exit);
            ply__count(c, PLY__CNT_WORKERS_LOST);
            ply__worker_remove(c, p, 1, reason);
        }
    } else {
        ply_debug("local worker %u exited", pr->index);
    }
    uv_close((uv_handle_t *)h, on_proc_closed);
    if (c->state >= PLY__C_STOPPING && c->procs_alive == 0 &&
        !uv_is_closing((uv_handle_t *)&c->kill_timer)) {
        uv_timer_stop(&c->kill_timer);
        uv_close((uv_handle_t *)&c->kill_timer, NULL);
    }
}

static int spawn_one(ply_coordinator_t *c, unsigned i, char *why, size_t why_len)
{
    char threads[16], hash[16];
    char *args[16 + PLY_COORDINATOR_WORKER_ARGS_MAX];
    int n = 0;
    ply__proc_t *pr = &c->procs[i];
    args[n++] = c->worker_exe;
    args[n++] = "--connect";
    args[n++] = c->worker_endpoint;
    /* a local worker never outlives its coordinator (no reconnecting) */
    args[n++] = "--exit-on-bye";
    /* its id names the slot and the process, so that its peer is found when it dies */
    snprintf(pr->id, sizeof pr->id, "local-%u.%u", i, pr->spawns);
    args[n++] = "--id";
    args[n++] = pr->id;
    /* no --zobrist-seed: each draws its own at random (ply-worker(1)), a respawned one too,
     * so that --verify checks on other keys (one in cfg.worker_args still wins: it comes last) */
    if (c->cfg.worker_threads) {
        snprintf(threads, sizeof threads, "%u", c->cfg.worker_threads);
        args[n++] = "--threads";
        args[n++] = threads;
    }
    /* Always passed: 0 means "no table", not "the worker's default". */
    snprintf(hash, sizeof hash, "%u", c->cfg.worker_hash_mib);
    args[n++] = "--hash";
    args[n++] = hash;
    for (size_t k = 0; k < c->cfg.nworker_args; k++) args[n++] = (char *)c->cfg.worker_args[k];
    args[n] = NULL;
    uv_stdio_container_t stdio[3] = {
        {.flags = UV_IGNORE}, {.flags = UV_IGNORE}, {.flags = UV_INHERIT_FD, .data.fd = 2}};
    uv_process_options_t opt = {0};
    opt.file = c->worker_exe;
    opt.args = args;
    opt.exit_cb = on_proc_exit;
    opt.stdio = stdio;
    opt.stdio_count = 3;
    pr->c = c;
    pr->index = i;
    pr->handle.data = pr;
    pr->spawns++;
    int r = uv_spawn(&c->loop, &pr->handle, &opt);
    if (r != 0) {
        /* uv_spawn leaves an initialised handle to close even when it fails */
        uv_close((uv_handle_t *)&pr->handle, NULL);
        ply_why(why, why_len, 0, "cannot start worker %s: %s", c->worker_exe, uv_strerror(r));
        return PLY_EWORKER;
    }
    pr->alive = 1;
    c->procs_alive++;
    ply_info("local worker %u: pid %d, %s --connect %s", i, pr->handle.pid, c->worker_exe,
             c->worker_endpoint);
    return 0;
}

int ply__local_workers_start(ply_coordinator_t *c, char *why, size_t why_len)
{
    if (!c->cfg.spawn_workers) return 0;
    if (!c->worker_endpoint[0]) {
        /* inproc/ipc only: the workers are other processes and need tcp */
        int port = zsock_bind(c->router, "tcp://127.0.0.1:*");
        if (port == -1) {
            ply_why(why, why_len, 0, "cannot bind tcp://127.0.0.1:* for local workers: %s",
                    zmq_strerror(zmq_errno()));
            return PLY_ECONNECT;
        }
        snprintf(c->worker_endpoint, sizeof c->worker_endpoint, "tcp://127.0.0.1:%d", port);
        zlist_append(c->bound, c->worker_endpoint);
    }
    c->procs = calloc(c->cfg.spawn_workers, sizeof *c->procs);
    if (!c->procs) return PLY_ENOMEM;
    c->nprocs = c->cfg.spawn_workers;
    for (unsigned i = 0; i < c->nprocs; i++) {
        int r = spawn_one(c, i, why, why_len);
        if (r < 0) return r;
    }
    return 0;
}

void ply__local_workers_stop(ply_coordinator_t *c)
{
    if (c->procs_alive) {
        for (unsigned i = 0; i < c->nprocs; i++)
            if (c->procs[i].alive) uv_process_kill(&c->procs[i].handle, SIGTERM);
        uv_timer_start(&c->kill_timer, on_kill_timer, KILL_GRACE_MS, 0);
    } else {
        uv_close((uv_handle_t *)&c->kill_timer, NULL);
    }
}
