/*
 * Tests of the coordinator service and the client library with fake workers
 * (fake_worker.h: the worker protocol over a DEALER, counting with the
 * arbiter) over inproc and loopback tcp on a random port: exact totals,
 * divide and statistics against published counts, re-queuing after a worker
 * vanishes or reports an error, an expired lease, the perft(1) cross-check,
 * malformed traffic, results for unknown jobs, a worker announcing the search
 * kind (and a search RESULT it was not asked for), no worker, an unreachable
 * coordinator. Local workers started with uv_spawn and the ply-coordinator daemon are
 * tests/integration/test_coordinator_spawn.c's (processes).
 *
 * Expected values: tests/data/perftsuite.epd (sunfish, checked with
 * Stockfish 15.1), tests/data/perft_p*_results.json (Grand Chess Tree), and
 * divide tables printed by Debian's stockfish 15.1-4 (`go perft N`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_skip.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <czmq.h>
#include <jansson.h>
#include <signal.h>
#include <unistd.h>

#include "client.h"
#include "coord_fixture.h"
#include "harness.h"
#include "coordinator.h"
#include "envelope.h"
#include "fake_worker.h"
#include "util/error.h"
#include "util/log.h"
#include "util/stats.h"
#include "util/time.h"

/* The owner token of this process's clients (client.h): raw requests send it too. */
#define OWNER    "test-coordinator-owner"
#define START    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define KIWIPETE "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
#define FISCHER1 "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"

static uint64_t divide_of(const Ply__RunResult *res, const char *move)
{
    for (size_t i = 0; i < res->n_divide; i++)
        if (strcmp(res->divide[i]->move, move) == 0) return res->divide[i]->nodes;
    fail_msg("no divide entry %s", move);
    return 0;
}

/* Start position, perft 4: Stockfish 15.1 `go perft 4`; total perftsuite.epd line 1. */
static void check_start4_divide(const Ply__RunResult *res)
{
    static const struct {
        const char *move;
        uint64_t nodes;
    } sf[] = {{"a2a3", 8457}, {"b2b3", 9345},  {"c2c3", 9272},  {"d2d3", 11959}, {"e2e3", 13134},
              {"f2f3", 8457}, {"g2g3", 9345},  {"h2h3", 8457},  {"a2a4", 9329},  {"b2b4", 9332},
              {"c2c4", 9744}, {"d2d4", 12435}, {"e2e4", 13160}, {"f2f4", 8929},  {"g2g4", 9328},
              {"h2h4", 9329}, {"b1a3", 8885},  {"b1c3", 9755},  {"g1f3", 9748},  {"g1h3", 8881}};
    assert_int_equal(res->n_divide, 20);
    for (size_t i = 0; i < 20; i++) assert_int_equal(divide_of(res, sf[i].move), sf[i].nodes);
}

/* The fifteen statistics of @fen's position at @depth from a Grand Chess Tree file. */
static void load_gct(const char *file, unsigned depth, ply_stats_t *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PLY_TEST_DATA, file);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) fail_msg("%s: %s", path, err.text);
    json_t *results = json_object_get(root, "results"), *row;
    size_t i;
    int found = 0;
    json_array_foreach(results, i, row)
    {
        if (json_integer_value(json_object_get(row, "depth")) != (json_int_t)depth) continue;
        for (int k = 0; k < PLY_STATS_N; k++)
            out->v[k] = (uint64_t)json_integer_value(json_object_get(row, ply_stats_name(k)));
        found = 1;
    }
    json_decref(root);
    assert_true(found);
}

static void check_stats(const Ply__Stats *got, const char *file, unsigned depth)
{
    assert_non_null(got);
    ply_stats_t want, have;
    load_gct(file, depth, &want);
    ply_msg_stats_from_proto(&have, got);
    for (int k = 0; k < PLY_STATS_N; k++)
        if (have.v[k] != want.v[k])
            fail_msg("%s depth %u: %s = %llu, published %llu", file, depth, ply_stats_name(k),
                     (unsigned long long)have.v[k], (unsigned long long)want.v[k]);
}

/* ------------------------------------------------------------------ tests */

static void test_inproc_divide(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 2);
    fake_worker_t *b = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 4, 0, 0, -1, 197281);
    assert_int_equal(res->split_depth, 1);
    assert_int_equal(res->jobs, 20);
    assert_null(res->stats);
    check_start4_divide(res);
    ply__run_result__free_unpacked(res, NULL);
    /* split 3 merges transpositions: 5362 jobs (OEIS A083276), same answer */
    res = coord_perft_ok(t->endpoint, START, 4, 0, 0, 3, 197281);
    assert_int_equal(res->jobs, 5362);
    check_start4_divide(res);
    ply__run_result__free_unpacked(res, NULL);
    assert_true(fake_worker_jobs(a) > 0 && fake_worker_jobs(b) > 0);
    fake_worker_stop(&a);
    fake_worker_stop(&b);
    coord_stop(&t);
}

static void test_tcp_stats(void **state)
{
    (void)state;
    coord_t *t = coord_start("tcp://127.0.0.1:*", NULL, NULL);
    assert_non_null(strstr(t->endpoint, "tcp://127.0.0.1:"));
    assert_null(strstr(t->endpoint, "*"));
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 2);
    fake_worker_t *b = fake_worker_start(t->endpoint, FW_NORMAL, 2);
    /* Kiwipete perft 3 = 97862 (perftsuite.epd line 2), statistics from GCT */
    Ply__RunResult *res = coord_perft_ok(t->endpoint, KIWIPETE, 3, 0, 1, -1, 97862);
    check_stats(res->stats, "perft_p1_results.json", 3);
    /* per-move statistics add up to the total */
    ply_stats_t sum = {0}, one;
    for (size_t i = 0; i < res->n_divide; i++) {
        assert_non_null(res->divide[i]->stats);
        ply_msg_stats_from_proto(&one, res->divide[i]->stats);
        ply_stats_add(&sum, &one, 1);
    }
    ply_stats_t total;
    ply_msg_stats_from_proto(&total, res->stats);
    assert_true(ply_stats_equal(&sum, &total));
    ply__run_result__free_unpacked(res, NULL);
    /* start position perft 4 at split 2, statistics from GCT */
    res = coord_perft_ok(t->endpoint, START, 4, 0, 1, 2, 197281);
    check_stats(res->stats, "perft_p0_results.json", 4);
    check_start4_divide(res);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&a);
    fake_worker_stop(&b);
    coord_stop(&t);
}

/* s = 0: one job, the divide comes from the worker (Stockfish 15.1 `go perft 3`). */
static void test_split0_divide(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 3, 0, 1, 0, 8902);
    assert_int_equal(res->jobs, 1);
    assert_int_equal(res->split_depth, 0);
    assert_int_equal(divide_of(res, "e2e4"), 600);
    assert_int_equal(divide_of(res, "d2d3"), 539);
    assert_int_equal(divide_of(res, "g1f3"), 440);
    check_stats(res->stats, "perft_p0_results.json", 3);
    ply__run_result__free_unpacked(res, NULL);
    /* depth 1: automatic split is 0 */
    res = coord_perft_ok(t->endpoint, KIWIPETE, 1, 0, 0, -1, 48);
    assert_int_equal(res->split_depth, 0);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&a);
    coord_stop(&t);
}

/* Chess960 (ethereal-fischer.epd line 1: D3 12189); Stockfish 15.1 divide. */
static void test_chess960(void **state)
{
    (void)state;
    coord_t *t = coord_start("tcp://127.0.0.1:*", NULL, NULL);
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 2);
    for (int split = 0; split <= 2; split++) {
        Ply__RunResult *res = coord_perft_ok(t->endpoint, FISCHER1, 3, 1, 0, split, 12189);
        assert_true(res->chess960);
        assert_int_equal(res->n_divide, 21);
        assert_int_equal(divide_of(res, "b2b4"), 707);
        assert_int_equal(divide_of(res, "e1f3"), 649);
        assert_int_equal(divide_of(res, "f1f3"), 624);
        ply__run_result__free_unpacked(res, NULL);
    }
    fake_worker_stop(&a);
    coord_stop(&t);
}

static void test_worker_vanishes(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *v = fake_worker_start(t->endpoint, FW_VANISH, 1);
    /* let the vanishing worker say HELLO first so that it gets the first job */
    for (int i = 0; i < 200 && coord_counters(t).workers_joined < 1; i++) usleep(10000);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t req = {.fen = START, .depth = 4, .split_depth = -1};
    Ply__Accepted *acc = NULL;
    char why[512];
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    for (int i = 0; i < 500 && !fake_worker_done(v); i++) usleep(10000);
    assert_true(fake_worker_done(v));
    fake_worker_t *good = fake_worker_start(t->endpoint, FW_NORMAL, 2);
    Ply__RunResult *res = NULL;
    int r = ply_client_wait(cl, acc->run_id, NULL, NULL, 10000, &res, why, sizeof why);
    if (r) fail_msg("%s", why);
    assert_int_equal(res->nodes, 197281);
    check_start4_divide(res);
    ply_coordinator_counters_t k = coord_counters(t);
    assert_true(k.workers_lost >= 1);
    assert_true(k.jobs_requeued >= 1);
    ply__run_result__free_unpacked(res, NULL);
    ply__accepted__free_unpacked(acc, NULL);
    ply_client_destroy(&cl);
    fake_worker_stop(&v);
    fake_worker_stop(&good);
    coord_stop(&t);
}

static void slow_heartbeats(ply_coordinator_config_t *cfg)
{
    cfg->heartbeat_ms = 1000, cfg->liveness = 5; /* a silent client is kept 50 s */
}

/* Every `ply` command is a new client connection, and ZeroMQ never says when one has gone: the
 * coordinator keeps at most PLY__CLIENTS_KEEP (256) of them, so that its memory does not grow
 * with the number of commands it served (issue 27: 3 KB a run). 300 clients in a row, each
 * asking for the status once: the 44 heard from longest ago are forgotten, and a forgotten one
 * is served again as a new client. */
static void test_client_peers_bounded(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", slow_heartbeats, NULL);
    char why[512];
    ply_client_t *first = NULL;
    for (int i = 0; i < 300; i++) {
        ply_client_t *cl = ply_client_new(t->endpoint, why, sizeof why);
        if (!cl) fail_msg("client %d: %s", i, why);
        Ply__StatusReply *reply = NULL;
        if (ply_client_status(cl, 0, 10000, &reply, NULL, why, sizeof why) != 0)
            fail_msg("client %d: %s", i, why);
        ply__status_reply__free_unpacked(reply, NULL);
        if (i == 0) first = cl;
        else ply_client_destroy(&cl);
    }
    assert_int_equal(coord_counters(t).clients_forgotten, 300 - 256);
    Ply__StatusReply *reply = NULL;
    if (ply_client_status(first, 0, 10000, &reply, NULL, why, sizeof why) != 0) fail_msg("%s", why);
    ply__status_reply__free_unpacked(reply, NULL);
    assert_int_equal(coord_counters(t).clients_forgotten, 300 - 256 + 1);
    ply_client_destroy(&first);
    coord_stop(&t);
}

static void one_second_wait(ply_coordinator_config_t *cfg)
{
    cfg->worker_wait_ms = 1000;
}

/* A worker whose perft(1) disagrees with the rule engine is excluded from the run; alone, nobody
 * is left to compute the job, and the run fails naming it, the position and both counts (with
 * another worker the run goes on: test_trust.c, test_excluded_recomputed). */
static void test_wrong_perft1(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", one_second_wait, NULL);
    fake_worker_t *w = fake_worker_start(t->endpoint, FW_WRONG_PERFT1, 1);
    Ply__RunResult *res;
    char why[512] = "";
    int r = coord_perft_divide(t->endpoint, KIWIPETE, 2, 0, 0, 0, &res, why, sizeof why);
    assert_int_equal(r, PLY_EMISMATCH);
    assert_null(res);
    /* names the position and both counts */
    assert_non_null(strstr(why, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq"));
    assert_non_null(strstr(why, "perft(1)"));
    assert_non_null(strstr(why, "says 49"));
    assert_non_null(strstr(why, "arbiter says 48"));
    fake_worker_stop(&w);
    /* the coordinator is fine afterwards */
    fake_worker_t *good = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *ok = coord_perft_ok(t->endpoint, KIWIPETE, 2, 0, 0, -1, 2039);
    ply__run_result__free_unpacked(ok, NULL);
    fake_worker_stop(&good);
    coord_stop(&t);
}

/* Figures no honest worker can send, with every count right: statistics that break their
 * own definitions (total_checks above the sum of its four kinds), more table hits than
 * probes. Each is a lie (or a fault) caught like a wrong perft(1): alone, the worker leaves
 * nobody to compute the job and the run fails naming it. Before, both were taken: the
 * statistics printed as counted, and "92233720368547758080.0% hits". */
static void test_impossible_figures(void **state)
{
    (void)state;
    static const struct {
        fake_worker_mode_t mode;
        const char *says;
    } liars[] = {
        {FW_BAD_STATS, "statistics that cannot be: total_checks = "},
        {FW_BAD_TABLE, "table figures cannot be: 6 hits of 5 probes"},
    };
    for (size_t i = 0; i < sizeof liars / sizeof *liars; i++) {
        coord_t *t = coord_start("inproc", one_second_wait, NULL);
        fake_worker_t *w = fake_worker_start(t->endpoint, liars[i].mode, 1);
        Ply__RunResult *res;
        char why[512] = "";
        /* the start position's perft(3) with statistics: 12 checks, none at depth 2 */
        int r = coord_perft_divide(t->endpoint, START, 3, 0, 1, 1, &res, why, sizeof why);
        assert_int_equal(r, PLY_EMISMATCH);
        assert_null(res);
        if (!strstr(why, liars[i].says)) fail_msg("mode %d: %s", (int)liars[i].mode, why);
        fake_worker_stop(&w);
        coord_stop(&t);
    }
}

static void long_lease(ply_coordinator_config_t *cfg)
{
    cfg->lease_ms = 60000;
}

/* A perft Result that does not decode (cut short) fails its attempt at once, as a search's
 * does: the job is counted again and the run ends exact, well before the 60 s lease. Before,
 * the message was only logged and the job waited for its lease. */
static void test_malformed_result(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", long_lease, NULL);
    fake_worker_t *w = fake_worker_start(t->endpoint, FW_MALFORMED_ONCE, 1);
    const uint64_t t0 = ply_time_ms();
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 3, 0, 0, 1, 8902);
    assert_true(ply_time_ms() - t0 < 30000);
    ply__run_result__free_unpacked(res, NULL);
    ply_coordinator_counters_t k = coord_counters(t);
    assert_true(k.malformed >= 1);
    assert_true(k.jobs_requeued >= 1);
    fake_worker_stop(&w);
    coord_stop(&t);
}

static void three_attempts(ply_coordinator_config_t *cfg)
{
    cfg->max_attempts = 3;
}

/* A worker ERROR about a job is a failed attempt: the job is re-queued and the run ends exact. */
static void test_worker_error_requeue(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", three_attempts, NULL);
    fake_worker_t *w = fake_worker_start(t->endpoint, FW_ERROR_ONCE, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 3, 0, 0, 1, 8902);
    ply__run_result__free_unpacked(res, NULL);
    assert_true(coord_counters(t).jobs_requeued >= 1);
    fake_worker_stop(&w);
    coord_stop(&t);
}

static void short_lease(ply_coordinator_config_t *cfg)
{
    cfg->lease_ms = 100;
    cfg->max_attempts = 50;
}

/* A job not finished within its lease goes to another worker; the late result is ignored. */
static void test_lease(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", short_lease, NULL);
    fake_worker_t *slow = fake_worker_start(t->endpoint, FW_SLOW, 1);
    for (int i = 0; i < 200 && coord_counters(t).workers_joined < 1; i++) usleep(10000);
    fake_worker_t *fast = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 3, 0, 0, 1, 8902);
    ply__run_result__free_unpacked(res, NULL);
    assert_true(coord_counters(t).jobs_requeued >= 1);
    fake_worker_stop(&slow); /* its late RESULT arrives before its BYE */
    for (int i = 0; i < 100 && coord_counters(t).results_ignored < 1; i++) usleep(10000);
    assert_true(coord_counters(t).results_ignored >= 1);
    fake_worker_stop(&fast);
    coord_stop(&t);
}

/* Sends raw frames on a DEALER and expects an ERROR back; returns it (caller frees). */
static ply_msg_t *raw_exchange(zsock_t *d, zmsg_t *out)
{
    assert_int_equal(zmsg_send(&out, d), 0);
    ply_msg_t *in = NULL;
    char why[256];
    zsock_set_rcvtimeo(d, 5000);
    for (;;) {
        int r = ply_msg_recv(d, &in, why, sizeof why);
        if (r != 0) fail_msg("no answer: %s", why);
        if (in->body_case != PLY__MESSAGE__BODY_HEARTBEAT) break;
        ply_msg_free(&in);
    }
    assert_int_equal(in->body_case, PLY__MESSAGE__BODY_ERROR);
    return in;
}

static zmsg_t *frames(int n, ...)
{
    zmsg_t *m = zmsg_new();
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *s = va_arg(ap, const char *);
        zmsg_addmem(m, s, strlen(s));
    }
    va_end(ap);
    return m;
}

static void test_malformed(void **state)
{
    (void)state;
    coord_t *t = coord_start("tcp://127.0.0.1:*", NULL, NULL);
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_int_equal(zsock_connect(d, "%s", t->endpoint), 0);

    /* another protocol version: ERROR naming PLY/2 */
    ply_msg_t *e = raw_exchange(d, frames(2, "PLY/3", "\x0a\x02\x08\x01"));
    assert_int_equal(e->error->code, PLY_EVERSION);
    assert_string_equal(e->error->supported, "PLY/2");
    assert_non_null(strstr(e->error->message, "PLY/2"));
    ply_msg_free(&e);
    /* garbage of every shape */
    e = raw_exchange(d, frames(1, "garbage"));
    assert_int_equal(e->error->code, PLY_EVERSION);
    ply_msg_free(&e);
    e = raw_exchange(d, frames(2, PLY_PROTOCOL_ID, "\xff\xff\xff\xff not protobuf"));
    assert_int_equal(e->error->code, PLY_EPROTO);
    ply_msg_free(&e);
    e = raw_exchange(d, frames(1, PLY_PROTOCOL_ID));
    assert_int_equal(e->error->code, PLY_EPROTO);
    ply_msg_free(&e);
    e = raw_exchange(d, frames(3, PLY_PROTOCOL_ID, "a", "b"));
    assert_int_equal(e->error->code, PLY_EPROTO);
    ply_msg_free(&e);
    zmsg_t *empty = zmsg_new();
    zmsg_addmem(empty, NULL, 0);
    e = raw_exchange(d, empty);
    ply_msg_free(&e);
    /* well-formed but not for the coordinator, or out of order */
    Ply__Ready rd = PLY__READY__INIT;
    rd.has_credit = 1, rd.credit = 4;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_READY;
    m.ready = &rd;
    e = raw_exchange(d, ply_msg_encode(&m));
    assert_int_equal(e->error->code, PLY_ESTATE);
    assert_non_null(strstr(e->error->message, "HELLO"));
    ply_msg_free(&e);
    Ply__Welcome w = PLY__WELCOME__INIT;
    w.has_heartbeat_ms = 1, w.heartbeat_ms = 5;
    w.has_liveness = 1, w.liveness = 5;
    m.body_case = PLY__MESSAGE__BODY_WELCOME;
    m.welcome = &w;
    e = raw_exchange(d, ply_msg_encode(&m));
    assert_int_equal(e->error->code, PLY_EPROTO);
    ply_msg_free(&e);
    /* a HELLO with another protocol number fails validation, naming version 2 */
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = "old";
    h.has_protocol = 1, h.protocol = 3;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    m.body_case = PLY__MESSAGE__BODY_HELLO;
    m.hello = &h;
    zmsg_t *bad_hello = zmsg_new();
    size_t len = ply__message__get_packed_size(&m);
    uint8_t *buf = malloc(len);
    ply__message__pack(&m, buf);
    zmsg_addstr(bad_hello, PLY_PROTOCOL_ID);
    zmsg_addmem(bad_hello, buf, len);
    e = raw_exchange(d, bad_hello);
    assert_non_null(strstr(e->error->message, "PLY/2"));
    assert_non_null(strstr(e->error->message, "protocol"));
    ply_msg_free(&e);
    /* a worker of the previous version (PLY/1: its frame 0, its Hello with protocol 1) is
     * refused by name, with both versions, and told to upgrade, in an Error framed as PLY/1
     * (whose Error is PLY/2's), so that it reads it and stops */
    h.protocol = 1;
    len = ply__message__get_packed_size(&m);
    buf = realloc(buf, len);
    ply__message__pack(&m, buf);
    bad_hello = zmsg_new();
    zmsg_addstr(bad_hello, "PLY/1");
    zmsg_addmem(bad_hello, buf, len);
    free(buf);
    assert_int_equal(zmsg_send(&bad_hello, d), 0);
    zmsg_t *back = NULL;
    for (;;) { /* heartbeats aside */
        back = zmsg_recv(d);
        assert_non_null(back);
        if (zmsg_size(back) == 2 && zframe_streq(zmsg_first(back), "PLY/1")) break;
        zmsg_destroy(&back);
    }
    zframe_t *body = zmsg_next(back);
    e = ply__message__unpack(NULL, zframe_size(body), zframe_data(body));
    zmsg_destroy(&back);
    assert_non_null(e);
    assert_int_equal(e->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(e->error->code, PLY_EVERSION);
    assert_string_equal(e->error->supported, "PLY/2");
    assert_non_null(
        strstr(e->error->message, "worker old speaks PLY/1, this ply PLY/2: upgrade the worker"));
    ply_msg_free(&e);
    assert_true(coord_counters(t).malformed >= 10);
    /* a kind number the envelope passes (its request in other) but the registry does not
     * know: refused, naming the number */
    Ply__Submit sub = PLY__SUBMIT__INIT;
    sub.has_kind = 1, sub.kind = 9;
    sub.has_other = 1, sub.other.len = 2, sub.other.data = (uint8_t *)"\x08\x01";
    m.body_case = PLY__MESSAGE__BODY_SUBMIT;
    m.submit = &sub;
    e = raw_exchange(d, ply_msg_encode(&m));
    assert_int_equal(e->error->code, PLY_EINVAL);
    assert_non_null(strstr(e->error->message, "job kind 9 is not one this coordinator runs"));
    ply_msg_free(&e);
    zsock_destroy(&d);

    /* and a run still completes */
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, START, 3, 0, 0, -1, 8902);
    ply__run_result__free_unpacked(res, NULL);
    fake_worker_stop(&a);
    coord_stop(&t);
}

static void test_unknown_job(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_int_equal(zsock_connect(d, "%s", t->endpoint), 0);
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = "liar";
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO;
    m.hello = &h;
    assert_int_equal(ply_msg_send(d, &m), 0);
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = 987654321;
    r.has_attempt = 1, r.attempt = 1;
    r.has_nodes = 1, r.nodes = 5;
    r.has_perft1 = 1, r.perft1 = 5;
    r.has_time_us = 1, r.time_us = 1;
    m.body_case = PLY__MESSAGE__BODY_RESULT;
    m.result = &r;
    assert_int_equal(ply_msg_send(d, &m), 0);
    for (int i = 0; i < 300 && coord_counters(t).results_ignored < 1; i++) usleep(10000);
    assert_int_equal(coord_counters(t).results_ignored, 1);
    /* the liar never asked for work (no READY): a real worker does the run */
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, KIWIPETE, 2, 0, 0, -1, 2039);
    ply__run_result__free_unpacked(res, NULL);
    zsock_destroy(&d);
    fake_worker_stop(&a);
    coord_stop(&t);
}

/*
 * Issue 11: a worker that announces the search kind and an engine in its HELLO is welcomed as
 * any other; a search-shaped RESULT for a job this coordinator never sent is ignored as any
 * result for an unknown job (before search runs existed it was refused as malformed), never
 * read as a perft count, and a run still completes.
 */
static void test_search_worker(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_int_equal(zsock_connect(d, "%s", t->endpoint), 0);
    uint32_t kinds[] = {PLY__JOB_KIND__JOB_KIND_PERFT, PLY__JOB_KIND__JOB_KIND_SEARCH};
    Ply__Hello h = PLY__HELLO__INIT;
    h.worker_id = "searcher";
    h.has_protocol = 1, h.protocol = PLY_PROTOCOL_VERSION;
    h.has_threads = 1, h.threads = 1;
    h.has_hash_mib = 1, h.has_zobrist_checksum = 1;
    h.n_kinds = 2, h.kinds = kinds;
    h.engine = "builtin";
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_HELLO;
    m.hello = &h;
    assert_int_equal(ply_msg_send(d, &m), 0);
    zsock_set_rcvtimeo(d, 5000);
    ply_msg_t *w = NULL;
    assert_int_equal(ply_msg_recv(d, &w, NULL, 0), 0);
    assert_int_equal(w->body_case, PLY__MESSAGE__BODY_WELCOME);
    ply_msg_free(&w);

    uint64_t malformed = coord_counters(t).malformed;
    uint64_t ignored = coord_counters(t).results_ignored;
    char *pv[] = {"e2e4", "e7e5"};
    Ply__SearchLine line = PLY__SEARCH_LINE__INIT, *lines[] = {&line};
    line.has_multipv = 1, line.multipv = 1;
    line.has_score_cp = 1, line.score_cp = 30;
    line.has_bound = 1, line.has_depth = 1, line.depth = 2, line.has_seldepth = 1;
    line.n_pv = 2, line.pv = pv;
    Ply__SearchResult sr = PLY__SEARCH_RESULT__INIT;
    sr.n_lines = 1, sr.lines = lines;
    sr.has_nodes = 1, sr.nodes = 100, sr.has_time_us = 1, sr.time_us = 10;
    Ply__Result r = PLY__RESULT__INIT;
    r.has_job_id = 1, r.job_id = 987654321;
    r.has_attempt = 1, r.attempt = 1;
    r.has_time_us = 1, r.time_us = 10;
    r.search = &sr;
    m.body_case = PLY__MESSAGE__BODY_RESULT;
    m.result = &r;
    assert_int_equal(ply_msg_send(d, &m), 0);
    for (int i = 0; i < 300 && coord_counters(t).results_ignored <= ignored; i++) usleep(10000);
    assert_int_equal(coord_counters(t).results_ignored, ignored + 1);
    assert_int_equal(coord_counters(t).malformed, malformed);

    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 1);
    Ply__RunResult *res = coord_perft_ok(t->endpoint, KIWIPETE, 2, 0, 0, -1, 2039);
    ply__run_result__free_unpacked(res, NULL);
    zsock_destroy(&d);
    fake_worker_stop(&a);
    coord_stop(&t);
}

static void short_wait(ply_coordinator_config_t *cfg)
{
    cfg->worker_wait_ms = 300;
}

static void test_no_worker(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", short_wait, NULL);
    Ply__RunResult *res;
    char why[512] = "";
    uint64_t t0 = ply_time_ms();
    int r = coord_perft_divide(t->endpoint, START, 3, 0, 0, -1, &res, why, sizeof why);
    assert_int_equal(r, PLY_EWORKER);
    assert_string_equal(why, "no worker connected within 0.3 s");
    assert_true(ply_time_ms() - t0 < 5000);
    coord_stop(&t);
}

/* A loopback TCP port that accepts connections (the kernel completes them into the
 * backlog) and never says a word: a hung coordinator. Returns the listening fd. */
static int silent_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(fd, 16), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    *port = ntohs(sa.sin_port);
    return fd;
}

static void test_unreachable(void **state)
{
    (void)state;
    char ep[64];
    char why[512] = "";
    /* nothing listening: refused, said by ply_client_new after its grace of 1.5 s */
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", th_free_port());
    uint64_t t0 = ply_time_ms();
    assert_null(ply_client_new(ep, why, sizeof why));
    uint64_t ms = ply_time_ms() - t0;
    assert_true(ms >= PLY_CLIENT_PROBE_GRACE_MS - 10 && ms < PLY_CLIENT_PROBE_GRACE_MS + 2000);
    char want[192]; /* ep (64) and the message */
    snprintf(want, sizeof want, "connection refused by %s: nothing is listening on port", ep);
    assert_non_null(strstr(why, want));

    /* listening and silent: connected, and no answer within the submit's timeout */
    int port, fd = silent_listener(&port);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    ply_client_t *cl = ply_client_new(ep, why, sizeof why);
    assert_non_null(cl);
    ply_perft_request_t req = {.fen = START, .depth = 3, .split_depth = -1};
    Ply__Accepted *acc = (Ply__Accepted *)&req;
    t0 = ply_time_ms();
    assert_int_equal(ply_client_submit(cl, &req, 300, &acc, why, sizeof why), PLY_ETIMEDOUT);
    assert_null(acc);
    assert_true(ply_time_ms() - t0 >= 290);
    /* the client saw a TCP connection made and no ZeroMQ handshake: it says so, and not
     * "not running" or CURVE (a CURVE coordinator would have spoken its greeting) */
    snprintf(want, sizeof want,
             "%s accepted a TCP connection but never completed the ZeroMQ handshake in 0.3 s", ep);
    assert_non_null(strstr(why, want));
    assert_null(strstr(why, "--curve"));
    assert_null(strstr(why, "not running"));
    ply_client_destroy(&cl);
    close(fd);
    assert_null(ply_client_new("nonsense://x", why, sizeof why));
    assert_non_null(strstr(why, "bad endpoint 'nonsense://x'"));
}

static void test_bad_request(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    char why[512] = "";
    Ply__Accepted *acc = NULL;
    ply_perft_request_t req = {.fen = "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                               .depth = 3,
                               .split_depth = -1};
    assert_int_equal(ply_client_submit(cl, &req, 5000, &acc, why, sizeof why), PLY_EFEN);
    assert_non_null(strstr(why, "bad position"));
    req.fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    req.depth = 2;
    req.split_depth = 5; /* refused by the client library before sending */
    assert_int_equal(ply_client_submit(cl, &req, 5000, &acc, why, sizeof why), PLY_EINVAL);
    assert_non_null(strstr(why, "split_depth"));
    req.fen = "8/8/8/8/8/8/8/8 w - - 0 1";
    req.split_depth = -1;
    assert_int_equal(ply_client_submit(cl, &req, 5000, &acc, why, sizeof why), PLY_EILLEGAL);
    ply_client_destroy(&cl);
    coord_stop(&t);
}

/* Two clients at once: both runs finish, exact; then STATUS and RESULT_REQUEST about them. */
static void test_two_runs_and_status(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *a = fake_worker_start(t->endpoint, FW_NORMAL, 2);
    ply_client_t *c1 = ply_client_new(t->endpoint, NULL, 0);
    ply_client_t *c2 = ply_client_new(t->endpoint, NULL, 0);
    ply_perft_request_t r1 = {.fen = START, .depth = 4, .split_depth = -1};
    ply_perft_request_t r2 = {.fen = KIWIPETE, .depth = 3, .split_depth = 1};
    Ply__Accepted *a1 = NULL, *a2 = NULL;
    char why[512];
    assert_int_equal(ply_client_submit(c1, &r1, 10000, &a1, why, sizeof why), 0);
    assert_int_equal(ply_client_submit(c2, &r2, 10000, &a2, why, sizeof why), 0);
    /* accepted before they are planned (issue 27): the plan's figures come with the answer */
    assert_false(a1->has_jobs || a2->has_jobs || a2->has_split_depth || a2->has_paths);
    assert_true(a1->run_id != a2->run_id);
    Ply__RunResult *x = NULL, *y = NULL;
    assert_int_equal(ply_client_wait(c2, a2->run_id, NULL, NULL, 10000, &y, why, sizeof why), 0);
    assert_int_equal(ply_client_wait(c1, a1->run_id, NULL, NULL, 10000, &x, why, sizeof why), 0);
    assert_int_equal(x->nodes, 197281);
    assert_int_equal(y->nodes, 97862);
    assert_int_equal(x->jobs, 20);
    assert_int_equal(y->jobs, 48);
    assert_int_equal(y->split_depth, 1);

    /* RESULT_REQUEST gives the stored answer again; STATUS reports the run as done */
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_int_equal(zsock_connect(d, "%s", t->endpoint), 0);
    zsock_set_rcvtimeo(d, 5000);
    Ply__ResultRequest rq = PLY__RESULT_REQUEST__INIT;
    rq.has_run_id = 1, rq.run_id = a1->run_id;
    rq.owner_token = OWNER; /* the run is this process's clients' (main) */
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_RESULT_REQUEST;
    m.result_request = &rq;
    assert_int_equal(ply_msg_send(d, &m), 0);
    ply_msg_t *in = NULL;
    assert_int_equal(ply_msg_recv(d, &in, why, sizeof why), 0);
    assert_int_equal(in->body_case, PLY__MESSAGE__BODY_RUN_RESULT);
    assert_int_equal(in->run_result->nodes, 197281);
    ply_msg_free(&in);
    Ply__StatusRequest st = PLY__STATUS_REQUEST__INIT;
    st.has_run_id = 1, st.run_id = a2->run_id;
    st.owner_token = OWNER;
    m.body_case = PLY__MESSAGE__BODY_STATUS;
    m.status = &st;
    assert_int_equal(ply_msg_send(d, &m), 0);
    assert_int_equal(ply_msg_recv(d, &in, why, sizeof why), 0);
    assert_int_equal(in->body_case, PLY__MESSAGE__BODY_RUN_PROGRESS);
    assert_string_equal(in->run_progress->state, "done");
    assert_int_equal(in->run_progress->jobs_done, 48);
    assert_int_equal(in->run_progress->workers, 1);
    assert_int_equal(in->run_progress->n_worker, 1);
    ply_msg_free(&in);
    st.run_id = 424242; /* unknown */
    assert_int_equal(ply_msg_send(d, &m), 0);
    assert_int_equal(ply_msg_recv(d, &in, why, sizeof why), 0);
    assert_int_equal(in->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(in->error->code, PLY_ENOTFOUND);
    ply_msg_free(&in);
    zsock_destroy(&d);

    ply__run_result__free_unpacked(x, NULL);
    ply__run_result__free_unpacked(y, NULL);
    ply__accepted__free_unpacked(a1, NULL);
    ply__accepted__free_unpacked(a2, NULL);
    ply_client_destroy(&c1);
    ply_client_destroy(&c2);
    fake_worker_stop(&a);
    coord_stop(&t);
}

static void progress_count(const Ply__RunProgress *p, void *arg)
{
    (void)p;
    (*(int *)arg)++;
}

/* A run of a few seconds streams RunProgress about once a second; CANCEL stops another. */
static void test_progress_and_cancel(void **state)
{
    (void)state;
    coord_t *t = coord_start("inproc", NULL, NULL);
    fake_worker_t *w = fake_worker_start(t->endpoint, FW_SLOW, 1);
    ply_client_t *cl = ply_client_new(t->endpoint, NULL, 0);
    /* 15 jobs x 150 ms (perftsuite.epd line 3: D1 15, D2 66) */
    ply_perft_request_t req = {
        .fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1", .depth = 2, .split_depth = 1};
    Ply__Accepted *acc = NULL;
    char why[512];
    Ply__RunResult *res = NULL;
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    int n = 0;
    assert_int_equal(
        ply_client_wait(cl, acc->run_id, progress_count, &n, 10000, &res, why, sizeof why), 0);
    assert_int_equal(res->nodes, 66);
    assert_true(n >= 1);
    ply__run_result__free_unpacked(res, NULL);
    ply__accepted__free_unpacked(acc, NULL);

    req.fen = START, req.depth = 3, req.split_depth = 1; /* 20 x 150 ms */
    assert_int_equal(ply_client_submit(cl, &req, 10000, &acc, why, sizeof why), 0);
    zsock_t *d = zsock_new(ZMQ_DEALER);
    assert_int_equal(zsock_connect(d, "%s", t->endpoint), 0);
    Ply__Cancel cc = PLY__CANCEL__INIT;
    cc.has_run_id = 1, cc.run_id = acc->run_id;
    ply_msg_t m = PLY__MESSAGE__INIT;
    m.body_case = PLY__MESSAGE__BODY_CANCEL;
    m.cancel = &cc;
    /* another connection without the owner's token may not cancel it */
    zsock_set_rcvtimeo(d, 5000);
    assert_int_equal(ply_msg_send(d, &m), 0);
    ply_msg_t *in = NULL;
    assert_int_equal(ply_msg_recv(d, &in, why, sizeof why), 0);
    assert_int_equal(in->body_case, PLY__MESSAGE__BODY_ERROR);
    assert_int_equal(in->error->code, PLY_EAUTH);
    ply_msg_free(&in);
    cc.owner_token = OWNER;
    assert_int_equal(ply_msg_send(d, &m), 0);
    n = 0;
    assert_int_equal(
        ply_client_wait(cl, acc->run_id, progress_count, &n, 10000, &res, why, sizeof why),
        PLY_ECANCELED);
    assert_non_null(strstr(why, "canceled"));
    zsock_destroy(&d);
    ply__accepted__free_unpacked(acc, NULL);
    ply_client_destroy(&cl);
    fake_worker_stop(&w);
    coord_stop(&t);
}

/* A coordinator that cannot bind says why; stop before run and destroy are safe. */
static void test_lifecycle(void **state)
{
    (void)state;
    ply_coordinator_config_t cfg;
    ply_coordinator_config_init(&cfg);
    char why[512] = "";
    cfg.bind = "tcp://1.2.3.4:5";
    cfg.insecure = 1; /* past the loopback-only policy (proto/security.h), to the bind itself */
    assert_null(ply_coordinator_new(&cfg, why, sizeof why));
    assert_non_null(strstr(why, "cannot bind tcp://1.2.3.4:5"));
    cfg.bind = NULL;
    assert_null(ply_coordinator_new(&cfg, why, sizeof why));
    cfg.bind = "inproc://ply-lifecycle";
    cfg.spawn_workers = 1; /* binds, then fails to spawn: the name is released */
    cfg.worker_exe = "/nonexistent/ply-worker";
    assert_null(ply_coordinator_new(&cfg, why, sizeof why));
    assert_non_null(strstr(why, "/nonexistent/ply-worker"));
    cfg.spawn_workers = 0;
    ply_coordinator_t *c = ply_coordinator_new(&cfg, why, sizeof why);
    if (!c) fail_msg("%s", why);
    ply_coordinator_destroy(&c); /* never ran */
    ply_coordinator_destroy(&c); /* idempotent */
    c = ply_coordinator_new(&cfg, why, sizeof why);
    ply_coordinator_stop(c); /* before run: run returns at once */
    assert_int_equal(ply_coordinator_run(c), 0);
    assert_int_equal(ply_coordinator_run(c), PLY_ESTATE);
    ply_coordinator_destroy(&c);
}

int main(void)
{
    zsys_handler_set(NULL);
    ply_client_set_owner_token(OWNER); /* whose this process's runs are */
    ply_log_set_level(getenv("PLY_TEST_VERBOSE") ? PLY_LOG_DEBUG : PLY_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_inproc_divide),
        cmocka_unit_test(test_tcp_stats),
        cmocka_unit_test(test_split0_divide),
        cmocka_unit_test(test_chess960),
        cmocka_unit_test(test_worker_vanishes),
        cmocka_unit_test(test_wrong_perft1),
        cmocka_unit_test(test_impossible_figures),
        cmocka_unit_test(test_malformed_result),
        cmocka_unit_test(test_worker_error_requeue),
        cmocka_unit_test(test_lease),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_unknown_job),
        cmocka_unit_test(test_search_worker),
        cmocka_unit_test(test_no_worker),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_bad_request),
        cmocka_unit_test(test_two_runs_and_status),
        cmocka_unit_test(test_progress_and_cancel),
        cmocka_unit_test(test_client_peers_bounded),
    };
    return ply_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
