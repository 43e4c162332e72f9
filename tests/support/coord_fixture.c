/*
 * The in-process coordinator of the service tests (see coord_fixture.h).
 */
#include "coord_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/error.h"

static int inproc_serial;

static void *coord_thread(void *arg)
{
    coord_t *t = arg;
    ply_coordinator_run(t->c);
    return NULL;
}

coord_t *coord_start(const char *bind, tweak_fn tweak, const char *state)
{
    char name[64];
    if (strcmp(bind, "inproc") == 0) {
        snprintf(name, sizeof name, "inproc://ply-test-%d", inproc_serial++);
        bind = name;
    }
    ply_coordinator_config_t cfg;
    ply_coordinator_config_init(&cfg);
    cfg.bind = bind;
    cfg.heartbeat_ms = 100;
    cfg.liveness = 3;
    cfg.worker_wait_ms = 20000;
    cfg.state_path = state;
    if (tweak) tweak(&cfg);
    coord_t *t = calloc(1, sizeof *t);
    assert_non_null(t);
    char why[512] = "";
    t->c = ply_coordinator_new(&cfg, why, sizeof why);
    if (!t->c) fail_msg("ply_coordinator_new: %s", why);
    snprintf(t->endpoint, sizeof t->endpoint, "%s", ply_coordinator_endpoint(t->c));
    assert_int_equal(pthread_create(&t->thread, NULL, coord_thread, t), 0);
    return t;
}

void coord_stop(coord_t **tp)
{
    coord_t *t = *tp;
    ply_coordinator_stop(t->c);
    pthread_join(t->thread, NULL);
    ply_coordinator_destroy(&t->c);
    assert_null(t->c);
    free(t);
    *tp = NULL;
}

ply_coordinator_counters_t coord_counters(coord_t *t)
{
    ply_coordinator_counters_t k;
    ply_coordinator_counters(t->c, &k);
    return k;
}

void coord_wait_joined(coord_t *t, uint64_t n)
{
    for (int i = 0; i < 300 && coord_counters(t).workers_joined < n; i++) usleep(10000);
    assert_true(coord_counters(t).workers_joined >= n);
}

uint32_t coord_wait_planned(const char *endpoint, uint64_t run_id)
{
    ply_client_t *cl = ply_client_new(endpoint, NULL, 0);
    assert_non_null(cl);
    uint32_t jobs = 0;
    int planned = 0;
    for (int i = 0; i < 500 && !planned; i++) {
        Ply__RunProgress *p = NULL;
        char why[256];
        if (ply_client_status(cl, run_id, 2000, NULL, &p, why, sizeof why) == 0 && p) {
            planned = p->state && strcmp(p->state, "splitting") != 0;
            jobs = p->jobs_total;
            ply__run_progress__free_unpacked(p, NULL);
        }
        if (!planned) usleep(20000);
    }
    ply_client_destroy(&cl);
    if (!planned) fail_msg("run %llu not planned within 10 s", (unsigned long long)run_id);
    return jobs;
}

int coord_perft(const char *endpoint, const ply_perft_request_t *req, int wait_ms,
                Ply__RunResult **res, char *why, size_t why_len)
{
    *res = NULL;
    ply_client_t *cl = ply_client_new(endpoint, why, why_len);
    assert_non_null(cl);
    Ply__Accepted *acc = NULL;
    int r = ply_client_submit(cl, req, 10000, &acc, why, why_len);
    if (r == 0) {
        uint64_t run_id = acc->run_id;
        ply__accepted__free_unpacked(acc, NULL);
        r = ply_client_wait(cl, run_id, NULL, NULL, wait_ms, res, why, why_len);
    }
    ply_client_destroy(&cl);
    assert_null(cl);
    return r;
}

int coord_perft_divide(const char *endpoint, const char *fen, unsigned depth, int chess960,
                       int stats, int split, Ply__RunResult **res, char *why, size_t why_len)
{
    ply_perft_request_t req = {.fen = fen,
                               .depth = depth,
                               .chess960 = chess960,
                               .stats = stats,
                               .divide = 1,
                               .split_depth = split};
    return coord_perft(endpoint, &req, 10000, res, why, why_len);
}

Ply__RunResult *coord_perft_ok(const char *endpoint, const char *fen, unsigned depth, int chess960,
                               int stats, int split, uint64_t expected)
{
    Ply__RunResult *res;
    char why[512] = "";
    int r = coord_perft_divide(endpoint, fen, depth, chess960, stats, split, &res, why, sizeof why);
    if (r != 0) fail_msg("perft(%u) of %s: %s (%s)", depth, fen, ply_strerror(r), why);
    assert_int_equal(res->nodes, expected);
    assert_int_equal(res->depth, depth);
    /* the verification states what was checked, and it all was */
    assert_non_null(res->verification);
    assert_int_equal(res->verification->arbiter_plies, res->split_depth);
    assert_int_equal(res->verification->jobs, res->jobs);
    assert_int_equal(res->verification->perft1_checked, res->jobs);
    assert_int_equal(res->verification->mismatches, 0);
    uint64_t sum = 0;
    for (size_t i = 0; i < res->n_divide; i++) sum += res->divide[i]->nodes;
    assert_int_equal(sum, expected);
    return res;
}

int coord_perft_verify(const char *endpoint, const char *fen, unsigned depth, int split, int verify,
                       uint32_t ppm, Ply__RunResult **res, char *why, size_t why_len)
{
    ply_perft_request_t req = {.fen = fen,
                               .depth = depth,
                               .divide = 1,
                               .split_depth = split,
                               .verify = verify,
                               .verify_ppm = ppm};
    return coord_perft(endpoint, &req, 20000, res, why, why_len);
}

fake_worker_t *coord_fake_worker(const char *endpoint, fake_worker_mode_t mode, const char *id,
                                 unsigned seed, long offset)
{
    fake_worker_opts_t o = {.id = id, .seed = seed, .offset = offset};
    fake_worker_t *w = fake_worker_start_opts(endpoint, mode, 1, &o);
    assert_non_null(w);
    return w;
}
