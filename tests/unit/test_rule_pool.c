/*
 * The rule engine's own pool (coordinator/rule_pool.h): every item's done runs once on the
 * loop thread; urgent items (a tie-break, a drill-down) start before the checks queued ahead
 * of them, each kind in submission order; stopping cancels what has not started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <uv.h>

#include "rule_pool.h"
#include "util/error.h"

typedef struct item {
    ply__rule_work_t w; /* first: the pool hands back this pointer */
    char name;
    int status, done;
} item_t;

static atomic_int gate;      /* the first item waits for it: the others queue meanwhile */
static atomic_int started;   /* the first item is counting */
static char order[16];       /* the order the counts ran in */
static atomic_int norder;
static int ndone;

static void count(ply__rule_work_t *w)
{
    item_t *it = (item_t *)w;
    if (it->name == 'g') {
        atomic_store(&started, 1);
        while (!atomic_load(&gate)) uv_sleep(1);
    }
    order[atomic_fetch_add(&norder, 1)] = it->name;
}

static void done(ply__rule_work_t *w, int status)
{
    item_t *it = (item_t *)w;
    it->status = status;
    it->done++;
    ndone++;
}

/* The pool's async handle keeps no loop alive: a ticking timer does, while the test waits. */
static void tick(uv_timer_t *t)
{
    (void)t;
}

static void run_until_done(uv_loop_t *loop, int n)
{
    uv_timer_t t;
    uv_timer_init(loop, &t);
    uv_timer_start(&t, tick, 1, 1);
    while (ndone < n) uv_run(loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

static void item_init(item_t *it, char name)
{
    memset(it, 0, sizeof *it);
    it->w.count = count;
    it->w.done = done;
    it->name = name;
}

static void test_urgent_first(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    ply__rule_pool_t *p = ply__rule_pool_new(&loop, 1);
    assert_non_null(p);
    atomic_store(&gate, 0), atomic_store(&started, 0), atomic_store(&norder, 0), ndone = 0;
    item_t it[6];
    const char *names = "gabcde";
    for (int i = 0; i < 6; i++) item_init(&it[i], names[i]);
    assert_int_equal(ply__rule_pool_submit(p, &it[0].w, 0), 0); /* g: the one counting */
    while (!atomic_load(&started)) uv_sleep(1); /* out of the queue: what follows queues */
    assert_int_equal(ply__rule_pool_submit(p, &it[1].w, 0), 0); /* a: a check */
    assert_int_equal(ply__rule_pool_submit(p, &it[2].w, 1), 0); /* b: a tie-break */
    assert_int_equal(ply__rule_pool_submit(p, &it[3].w, 0), 0); /* c: a check */
    assert_int_equal(ply__rule_pool_submit(p, &it[4].w, 1), 0); /* d: a drill-down */
    assert_int_equal(ply__rule_pool_submit(p, &it[5].w, 0), 0); /* e: a check */
    assert_int_equal(ply__rule_pool_idle(p), 0);
    uv_sleep(20); /* g still waits at its gate: nothing else may have started */
    assert_int_equal(atomic_load(&norder), 0);
    assert_int_equal(ndone, 0);
    atomic_store(&gate, 1);
    run_until_done(&loop, 6);
    assert_int_equal(atomic_load(&norder), 6);
    assert_memory_equal(order, "gbdace", 6);
    for (int i = 0; i < 6; i++) assert_int_equal(it[i].done, 1), assert_int_equal(it[i].status, 0);
    assert_int_equal(ply__rule_pool_idle(p), 1);
    ply__rule_pool_stop(p);
    uv_run(&loop, UV_RUN_DEFAULT); /* the async handle's close */
    assert_int_equal(uv_loop_close(&loop), 0);
    ply__rule_pool_destroy(&p);
    assert_null(p);
}

/* Stopping cancels what has not started: its done runs once, with PLY_ECANCELED. */
static void test_stop_cancels(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    ply__rule_pool_t *p = ply__rule_pool_new(&loop, 1);
    assert_non_null(p);
    atomic_store(&gate, 0), atomic_store(&started, 0), atomic_store(&norder, 0), ndone = 0;
    item_t g, a, b;
    item_init(&g, 'g'), item_init(&a, 'a'), item_init(&b, 'b');
    assert_int_equal(ply__rule_pool_submit(p, &g.w, 0), 0);
    while (!atomic_load(&started)) uv_sleep(1);
    assert_int_equal(ply__rule_pool_submit(p, &a.w, 0), 0);
    assert_int_equal(ply__rule_pool_submit(p, &b.w, 1), 0);
    atomic_store(&gate, 1); /* g finishes as the pool stops; what still runs is not used */
    ply__rule_pool_stop(p);
    assert_int_equal(ply__rule_pool_submit(p, &a.w, 0), PLY_ESTATE);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(g.done + a.done + b.done, 3);
    assert_int_equal(a.status, PLY_ECANCELED);
    assert_int_equal(b.status, PLY_ECANCELED);
    assert_int_equal(uv_loop_close(&loop), 0);
    ply__rule_pool_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urgent_first),
        cmocka_unit_test(test_stop_cancels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
