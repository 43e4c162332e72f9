/*
 * The rule engine's own bounded pool (rule_pool.h has its purpose and invariants): N threads
 * on one queue (urgent items first, each kind in submission order), results handed back to
 * the loop thread through a uv_async_t. Built on libuv's primitives (threads, mutex,
 * condition variable, async handle) so that it lives beside the coordinator's loop like
 * libuv's own pool, but apart from it.
 */
#define _GNU_SOURCE /* syscall(SYS_gettid) */
#include "rule_pool.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/error.h"

struct ply__rule_pool {
    uv_loop_t *loop;
    uv_async_t async; /* the loop thread's side: finished items are handed back through it */
    uv_mutex_t mu;
    uv_cond_t cv;
    uv_thread_t *threads;
    unsigned nthreads;
    /* under mu */
    ply__rule_work_t *queue, *queue_tail; /* submitted, not started */
    ply__rule_work_t *urgent_tail;        /* the last urgent item in queue, or NULL */
    ply__rule_work_t *finished;           /* counted (or cancelled), not handed back */
    int stopping;
    /* loop thread only */
    unsigned outstanding; /* submitted, done not yet called */
    int stopped, closed;
};

/* On a pool thread: lower this thread's priority; a refusal (no permission, another OS) is
 * not an error: the counts then run at the process's priority. */
static void lower_priority(void)
{
#ifdef SYS_gettid
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int now = getpriority(PRIO_PROCESS, tid);
    if (now == -1 && errno) return;
    (void)setpriority(PRIO_PROCESS, tid, now + PLY__RULE_POOL_NICE);
#endif
}

static void finish(ply__rule_pool_t *p, ply__rule_work_t *w, int status)
{
    w->status = status;
    w->next = p->finished;
    p->finished = w;
}

static void thread_main(void *arg)
{
    ply__rule_pool_t *p = arg;
    lower_priority();
    uv_mutex_lock(&p->mu);
    for (;;) {
        while (!p->queue && !p->stopping) uv_cond_wait(&p->cv, &p->mu);
        if (p->stopping) break; /* what is queued is cancelled by ply__rule_pool_stop */
        ply__rule_work_t *w = p->queue;
        p->queue = w->next;
        if (!p->queue) p->queue_tail = NULL;
        if (p->urgent_tail == w) p->urgent_tail = NULL;
        uv_mutex_unlock(&p->mu);
        w->count(w);
        uv_mutex_lock(&p->mu);
        finish(p, w, 0);
        uv_async_send(&p->async);
    }
    uv_mutex_unlock(&p->mu);
}

/* Calls done for every finished item, oldest first, each with its status (or @force). */
static void hand_back(ply__rule_pool_t *p, int force)
{
    uv_mutex_lock(&p->mu);
    ply__rule_work_t *list = p->finished;
    p->finished = NULL;
    uv_mutex_unlock(&p->mu);
    ply__rule_work_t *rev = NULL; /* pushed newest first: reverse */
    while (list) {
        ply__rule_work_t *n = list->next;
        list->next = rev;
        rev = list;
        list = n;
    }
    while (rev) {
        ply__rule_work_t *w = rev;
        rev = w->next;
        p->outstanding--;
        w->done(w, force ? force : w->status);
    }
}

static void on_async(uv_async_t *h)
{
    hand_back(h->data, 0);
}

ply__rule_pool_t *ply__rule_pool_new(uv_loop_t *loop, unsigned threads)
{
    if (!threads) return NULL;
    ply__rule_pool_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->loop = loop;
    p->threads = calloc(threads, sizeof *p->threads);
    if (!p->threads || uv_mutex_init(&p->mu) != 0) {
        free(p->threads);
        free(p);
        return NULL;
    }
    if (uv_cond_init(&p->cv) != 0) {
        uv_mutex_destroy(&p->mu);
        free(p->threads);
        free(p);
        return NULL;
    }
    /* the threads touch the async handle only once an item is submitted: it is set up after
     * them, so that a pool without threads has no handle to close */
    for (unsigned i = 0; i < threads; i++) {
        if (uv_thread_create(&p->threads[p->nthreads], thread_main, p) != 0) break;
        p->nthreads++;
    }
    if (!p->nthreads) {
        uv_cond_destroy(&p->cv);
        uv_mutex_destroy(&p->mu);
        free(p->threads);
        free(p);
        return NULL;
    }
    uv_async_init(loop, &p->async, on_async);
    p->async.data = p;
    uv_unref((uv_handle_t *)&p->async); /* an idle pool keeps no loop alive */
    return p;
}

int ply__rule_pool_submit(ply__rule_pool_t *p, ply__rule_work_t *w, int urgent)
{
    if (!p || p->stopped) return PLY_ESTATE;
    w->status = 0;
    uv_mutex_lock(&p->mu);
    /* an urgent item goes after the urgent ones queued, ahead of every other */
    ply__rule_work_t **at = !urgent ? NULL : p->urgent_tail ? &p->urgent_tail->next : &p->queue;
    if (at) {
        w->next = *at;
        *at = w;
        p->urgent_tail = w;
        if (!w->next) p->queue_tail = w;
    } else {
        w->next = NULL;
        if (p->queue_tail)
            p->queue_tail->next = w;
        else
            p->queue = w;
        p->queue_tail = w;
    }
    uv_cond_signal(&p->cv);
    uv_mutex_unlock(&p->mu);
    p->outstanding++;
    return 0;
}

unsigned ply__rule_pool_idle(const ply__rule_pool_t *p)
{
    if (!p || p->stopped) return 0;
    return p->outstanding < p->nthreads ? p->nthreads - p->outstanding : 0;
}

void ply__rule_pool_stop(ply__rule_pool_t *p)
{
    if (!p || p->stopped) return;
    p->stopped = 1;
    uv_mutex_lock(&p->mu);
    p->stopping = 1;
    while (p->queue) {
        ply__rule_work_t *w = p->queue;
        p->queue = w->next;
        finish(p, w, PLY_ECANCELED);
    }
    p->queue_tail = p->urgent_tail = NULL;
    uv_cond_broadcast(&p->cv);
    uv_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nthreads; i++) uv_thread_join(&p->threads[i]);
    hand_back(p, PLY_ECANCELED); /* the threads are gone: nothing is added any more */
    if (!p->closed) {
        uv_close((uv_handle_t *)&p->async, NULL);
        p->closed = 1;
    }
}

void ply__rule_pool_destroy(ply__rule_pool_t **pp)
{
    if (!pp || !*pp) return;
    ply__rule_pool_t *p = *pp;
    ply__rule_pool_stop(p);
    uv_cond_destroy(&p->cv);
    uv_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
    *pp = NULL;
}
