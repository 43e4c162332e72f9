/*
 * The rule engine's own threads (rule_pool.c): a small bounded pool, apart from libuv's
 * shared thread pool, on which the coordinator's independent counter (common/arbiter, about
 * 30 Mnodes/s a thread) recounts jobs for verification: a sample's check, a tie-break, a
 * drill-down's reference divide (perft/drill.c).
 *
 * Why its own: libuv's pool (4 threads by default, one queue) also plans new submissions; a
 * burst of recounts queued there held back the planning of every other client's run for as
 * long as they took (issue 27: a perft(3) answered after 28 s). Here the recounts wait only
 * behind each other, on threads that run at a lower OS priority than the loop and the
 * planning (Linux: a per-thread nice, PLY__RULE_POOL_NICE; where the system refuses it the
 * threads run at the process's priority). Its callers ask ply__rule_pool_idle before
 * offering work that someone else may do instead (a check a worker can take).
 *
 * Invariants: urgent items start before the others, each in submission order, at most one
 * per thread; each submitted item's done callback runs exactly once, on the loop thread
 * (uv_async_t), with 0 or PLY_ECANCELED (the pool stopped first: its result, if any, is not
 * used). The loop-side fields (outstanding) are touched by the loop thread only; the queue
 * and the finished list by both, under one mutex.
 */
#ifndef PLY_COORDINATOR_RULE_POOL_H
#define PLY_COORDINATOR_RULE_POOL_H

#include <uv.h>

/* How much lower than the process the pool's threads run (a nice increment, 0..19): on a
 * core shared with a busy thread of nice 0, CFS gives it about a quarter (weight 335 against
 * 1024). +10 (weight 110) starved it beside two workers on 2 cores (perft/verify.c). */
#define PLY__RULE_POOL_NICE 5

typedef struct ply__rule_pool ply__rule_pool_t;

/** One piece of work for the pool; the caller owns it (embeds it) and frees it in done. */
typedef struct ply__rule_work {
    /** count - the work itself, on a pool thread: no loop state, only what the item holds. */
    void (*count)(struct ply__rule_work *w);
    /** done - on the loop thread, once: @status 0 (count ran) or PLY_ECANCELED (never ran, or
     * ran while the pool was stopping: its result is not to be used). */
    void (*done)(struct ply__rule_work *w, int status);
    struct ply__rule_work *next; /* the pool's */
    int status;                  /* the pool's */
} ply__rule_work_t;

/**
 * ply__rule_pool_new - start @threads threads (1 or more) on @loop's side: they count at
 * PLY__RULE_POOL_NICE below the process and hand results back through an async handle of
 * @loop. NULL when out of memory or when no thread could be started (those started are
 * stopped again).
 */
ply__rule_pool_t *ply__rule_pool_new(uv_loop_t *loop, unsigned threads);

/** ply__rule_pool_submit - queue @w (its count and done set): @urgent (what a run cannot go
 * on without: a tie-break, a drill-down) after the urgent items queued and ahead of the others,
 * else at the back. 0, or PLY_ESTATE once the pool is stopping (@w's done is not called). Loop
 * thread only. */
int ply__rule_pool_submit(ply__rule_pool_t *p, ply__rule_work_t *w, int urgent);

/**
 * ply__rule_pool_idle - threads that would start a new item at once: threads minus the items
 * submitted whose done has not run (queued, counting, or counted and not yet handed back).
 * 0 for a NULL pool. Loop thread only.
 */
unsigned ply__rule_pool_idle(const ply__rule_pool_t *p);

/**
 * ply__rule_pool_stop - no more work: queued items are cancelled, the threads finish the item
 * they count (a rule engine's count is not interruptible: at most its budget, about a second)
 * and are joined, then every item not yet handed back gets done(PLY_ECANCELED), and the async
 * handle is closed. Idempotent; NULL-safe. Loop thread only, before the loop's last run.
 */
void ply__rule_pool_stop(ply__rule_pool_t *p);

/** ply__rule_pool_destroy - stop (if not yet) and free the pool once its loop no longer runs
 * its handle (after uv_loop_close, or a uv_run that closed it). NULLs *@pp; idempotent. */
void ply__rule_pool_destroy(ply__rule_pool_t **pp);

#endif
