/*
 * Worker service (see service.h): the compute loop. The caller of ply_worker_run is the
 * compute side: it starts the network actor (net.h), which owns the socket, takes the
 * JOBs the actor hands it through its pipe and runs each with the runner of its kind
 * (runner.h: run_perft.c, run_search.c, listed in runners.c), which hands back a RESULT
 * or an ERROR; then it asks for one more job. A job handed out in an earlier session, or
 * taken back by the coordinator, is dropped instead of run (daemon.h, cancel.c).
 */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "board/zobrist.h"
#include "net.h"
#include "nnue.h"
#include "search.h"
#include "runner.h"
#include "util/error.h"

void ply_worker_config_init(ply_worker_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->heartbeat_ms = 1000;
    cfg->liveness = 5;
    cfg->prefetch = 1;
    cfg->exit_on_bye = 1;
    cfg->search_net = PLY_ENGINE_NNUE_DEFAULT ? ply_nnue_embedded(NULL, 0) : NULL;
}

/* 1 when @sock has a message within @timeout_ms milliseconds. */
static int readable(zsock_t *sock, int timeout_ms)
{
    zmq_pollitem_t item = {zsock_resolve(sock), 0, ZMQ_POLLIN, 0};
    return zmq_poll(&item, 1, timeout_ms) > 0 && (item.revents & ZMQ_POLLIN);
}

void ply__compute_send(ply__compute_t *c, const Ply__Message *msg)
{
    zmsg_t *z = ply_msg_encode(msg);
    if (!z) return;
    zmsg_pushstr(z, "SEND");
    zmsg_send(&z, c->actor);
}

void ply__compute_error(ply__compute_t *c, const Ply__Job *job, int code, const char *why)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Error err = PLY__ERROR__INIT;
    char line[PLY_MAX_TEXT];
    snprintf(line, sizeof line, "job %llu: %s", (unsigned long long)job->job_id, why);
    err.has_code = 1;
    err.code = code;
    err.message = line;
    err.has_job_id = 1;
    err.job_id = job->job_id;
    err.has_attempt = 1;
    err.attempt = job->attempt;
    msg.body_case = PLY__MESSAGE__BODY_ERROR;
    msg.error = &err;
    ply__compute_send(c, &msg);
}

void ply__compute_make_room(ply__compute_t *c, const ply__runner_t *self)
{
    for (size_t i = 0; i < ply__n_runners; i++)
        if (ply__runners[i] != self && ply__runners[i]->release)
            ply__runners[i]->release(c->states[i]);
}

/* Runs @job, of session @epoch, with the runner of its kind: as ply__runner_t.run. */
static int run_job(ply__compute_t *c, const Ply__Job *job, unsigned epoch)
{
    for (size_t i = 0; i < ply__n_runners; i++)
        if (ply__runners[i]->kind == (uint32_t)job->kind)
            return ply__runners[i]->run(c, c->states[i], job, epoch);
    char why[64]; /* a kind this worker did not list in its HELLO */
    snprintf(why, sizeof why, "job kind %u is not one this worker runs", (unsigned)job->kind);
    ply__compute_error(c, job, PLY_EINVAL, why);
    return 0;
}

static void ask_for_more(ply__compute_t *c, unsigned credit)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Ready ready = PLY__READY__INIT;
    ready.has_credit = 1;
    ready.credit = credit;
    msg.body_case = PLY__MESSAGE__BODY_READY;
    msg.ready = &ready;
    ply__compute_send(c, &msg);
}

int ply_worker_run(const ply_worker_config_t *cfg, const _Atomic int *stop)
{
    if (!cfg || !cfg->endpoint || cfg->threads < 0) return PLY_EINVAL;
    ply__daemon_t *sh = calloc(1, sizeof *sh);
    void **states = calloc(ply__n_runners, sizeof *states);
    if (!sh || !states) {
        free(sh);
        free(states);
        return PLY_ENOMEM;
    }
    sh->cfg = cfg;
    sh->zobrist_seed = ply_zobrist_seed();
    sh->zobrist_checksum = ply_zobrist_checksum();
    sh->stop = stop;
    pthread_mutex_init(&sh->cancel_lock, NULL);
    sh->threads = cfg->threads > 0 ? cfg->threads : omp_get_num_procs();
    if (cfg->worker_id) {
        snprintf(sh->worker_id, sizeof sh->worker_id, "%s", cfg->worker_id);
    } else {
        char host[64] = "localhost";
        gethostname(host, sizeof host - 1);
        snprintf(sh->worker_id, sizeof sh->worker_id, "%s:%d", host, (int)getpid());
    }

    int rc = 0;
    for (size_t i = 0; i < ply__n_runners && !rc; i++)
        if (ply__runners[i]->open) rc = ply__runners[i]->open(sh, &states[i]);
    ply__net_t net;
    zsock_t *actor = rc ? NULL : ply__net_start(&net, sh);
    if (!rc && !actor) rc = PLY_ECONNECT;
    ply__compute_t c = {sh, actor, states};

    unsigned jobs = 0;
    while (!rc) {
        if (stop && atomic_load(stop)) break;
        if (!readable(actor, 100)) continue;
        zmsg_t *cmd = zmsg_recv(actor);
        if (!cmd) break;
        char *verb = zmsg_popstr(cmd);
        if (verb && streq(verb, "JOB")) {
            zframe_t *f = zmsg_pop(cmd);
            ply_msg_t *msg =
                f && zframe_size(f) == sizeof(void *) ? *(ply_msg_t **)zframe_data(f) : NULL;
            zframe_destroy(&f);
            char *ep = zmsg_popstr(cmd);
            unsigned epoch = ep ? (unsigned)atoi(ep) : 0;
            free(ep);
            if (msg && epoch != atomic_load(&sh->epoch)) {
                ply_msg_free(&msg); /* handed out in an earlier session: re-queued there */
            } else if (msg) {
                rc = run_job(&c, msg->job, epoch);
                ply_msg_free(&msg);
                int stale = rc == PLY_ECANCELED && epoch != atomic_load(&sh->epoch);
                if (rc == PLY_ECANCELED) rc = 0;
                if (stale) {
                    free(verb);
                    zmsg_destroy(&cmd);
                    continue; /* the new session has asked for its own credit */
                }
                jobs++;
                if (cfg->max_jobs && jobs >= cfg->max_jobs) {
                    free(verb);
                    zmsg_destroy(&cmd);
                    break;
                }
                if (!atomic_load(&sh->cancel)) ask_for_more(&c, 1);
            }
        } else if (verb && streq(verb, "END")) {
            char *code = zmsg_popstr(cmd);
            rc = code ? atoi(code) : 0;
            free(code);
            free(verb);
            zmsg_destroy(&cmd);
            break;
        }
        free(verb);
        zmsg_destroy(&cmd);
    }
    /* Jobs still queued in the pipe carry decoded messages: free them. */
    while (actor && readable(actor, 0)) {
        zmsg_t *cmd = zmsg_recv(actor);
        char *verb = cmd ? zmsg_popstr(cmd) : NULL;
        zframe_t *f = verb && streq(verb, "JOB") ? zmsg_pop(cmd) : NULL;
        if (f && zframe_size(f) == sizeof(void *)) ply_msg_free((ply_msg_t **)zframe_data(f));
        zframe_destroy(&f);
        free(verb);
        zmsg_destroy(&cmd);
    }
    ply__net_stop(&net, &actor); /* $TERM: the actor says BYE and closes */
    for (size_t i = 0; i < ply__n_runners; i++)
        if (ply__runners[i]->close) ply__runners[i]->close(states[i]);
    free(states);
    pthread_mutex_destroy(&sh->cancel_lock);
    free(sh);
    return rc;
}
