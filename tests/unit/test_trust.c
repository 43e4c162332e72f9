/*
 * The trust model of the coordinator (README "Threat model"), against fake
 * workers (fake_worker.h): a worker is its identity (its CURVE key, or
 * without CURVE its connection), not the id it declares.
 *
 * Expected counts: start position perft 3 = 8,902 (tests/data/perftsuite.epd,
 * chessprogramming wiki "Perft Results").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <czmq.h>
#include <unistd.h>

#include "client.h"
#include "coord_fixture.h"
#include "coordinator.h"
#include "envelope.h"
#include "fake_worker.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

static int perft(const char *ep, const char *fen, unsigned depth, int split, int verify,
                 uint32_t ppm, Ply__RunResult **res, char *why, size_t why_len)
{
    ply_perft_request_t req = {.fen = fen,
                               .depth = depth,
                               .divide = 1,
                               .split_depth = split,
                               .verify = verify,
                               .verify_ppm = ppm};
    return coord_perft(ep, &req, 20000, res, why, why_len);
}

static fake_worker_t *fake(const char *ep, fake_worker_mode_t mode, const char *id, unsigned seed,
                           long offset)
{
    fake_worker_opts_t o = {.id = id, .seed = seed, .offset = offset};
    fake_worker_t *w = fake_worker_start_opts(ep, mode, 1, &o);
    assert_non_null(w);
    return w;
}

/* Waits up to @ms for fake_worker_errors(w) >= n. */
static int wait_errors(fake_worker_t *w, int n, int ms)
{
    for (int i = 0; i < ms / 10 && fake_worker_errors(w) < n; i++) usleep(10000);
    return fake_worker_errors(w) >= n;
}

/* ------------------------------------------------------------- identity */

/*
 * A HELLO that declares a worker id held by another identity (here another
 * connection, no CURVE) is refused with an ERROR: the holder is not evicted,
 * keeps its session and does the run; the impostor gets no job. (Before, the
 * second HELLO evicted the first worker and took over its id and record.)
 */
static void test_id_reuse_refused(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *a = fake(t->endpoint, FW_NORMAL, "same-id", 1, 0);
    coord_wait_joined(t, 1);
    fake_worker_t *b = fake(t->endpoint, FW_NORMAL, "same-id", 2, 0);
    assert_true(wait_errors(b, 1, 3000));
    assert_int_equal(coord_counters(t).workers_joined, 1);
    Ply__RunResult *res;
    char why[512] = "";
    int r = perft(t->endpoint, START, 3, 1, 0, 0, &res, why, sizeof why);
    if (r) fail_msg("%s (%s)", ply_strerror(r), why);
    assert_int_equal(res->nodes, 8902);
    ply__run_result__free_unpacked(res, NULL);
    assert_true(fake_worker_jobs(a) >= 1);
    assert_int_equal(fake_worker_jobs(b), 0);
    assert_int_equal(fake_worker_errors(a), 0);
    fake_worker_stop(&b);
    fake_worker_stop(&a);
    coord_stop(&t);
}

int main(void)
{
    zsys_handler_set(NULL);
    ply_log_set_level(getenv("PLY_TEST_VERBOSE") ? PLY_LOG_DEBUG : PLY_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_id_reuse_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
