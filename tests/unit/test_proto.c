/*
 * Tests of proto/ (the ply wire protocol).
 *
 * Golden vectors: tests/data/proto-golden/NAME.hex are the bytes Google's
 * protoc writes for NAME.txtpb (see the README there), an encoder independent
 * of protobuf-c. Each test message below is built in C with the same values,
 * encoded and compared byte for byte, and each vector is decoded and compared
 * field by field with the C message.
 * Robustness: every truncation and every single-bit flip of every vector,
 * random and structured random bytes (fixed seed), bad framing, oversized
 * frames and foreign protocol ids must give PLY_EPROTO / PLY_EVERSION, or a
 * message that passes validation, and never crash or leak (run it under the
 * asan-ubsan preset).
 * Validation: per type, each required field missing and values out of range;
 * the search kind (issue 11): a job and a result round trip, one case per rule.
 * Sockets (argument "net"): ROUTER + DEALER over inproc://, and the
 * transport size limit over tcp:// on loopback.
 *
 * Usage: test_proto [quick|net] (no argument runs both groups).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "util/error.h"
#include "test_rng.h"

#define GOLDEN_DIR PLY_TEST_DATA "/proto-golden/"

/* ---------------------------------------------------------------- helpers */

/* Reads tests/data/proto-golden/NAME.hex into a new buffer (caller frees). */
static uint8_t *load_hex(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, GOLDEN_DIR "%s.hex", name);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    uint8_t *buf = malloc(1 << 16);
    assert_non_null(buf);
    size_t n = 0;
    int c, hi = -1;
    while ((c = fgetc(f)) != EOF) {
        int v = 0;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        else
            fail_msg("%s: bad hex character 0x%02x", path, c);
        if (hi < 0) {
            hi = v;
        } else {
            assert_true(n < (1 << 16));
            buf[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    fclose(f);
    assert_int_equal(hi, -1);
    *len = n;
    return buf;
}

/* A zmsg of @nframes frames: the protocol id (when @id is non-NULL), then @body. */
static zmsg_t *envelope(const char *id, const uint8_t *body, size_t len)
{
    zmsg_t *z = zmsg_new();
    if (id) zmsg_addmem(z, id, strlen(id));
    if (body) zmsg_addmem(z, body, len);
    return z;
}

/* Decodes (id, body); the outcome must be an error or a valid message. */
static int decode_bytes(const char *id, const uint8_t *body, size_t len, char *why, size_t wl)
{
    zmsg_t *z = envelope(id, body, len);
    ply_msg_t *m = NULL;
    int rc = ply_msg_decode(z, &m, why, wl);
    if (rc == 0) {
        assert_non_null(m);
        char again[256];
        assert_int_equal(ply_msg_validate(m, again, sizeof again), 0);
        ply_msg_free(&m);
    } else {
        assert_null(m);
        assert_true(rc == PLY_EPROTO || rc == PLY_EVERSION);
        if (why) assert_true(why[0] != '\0');
    }
    zmsg_destroy(&z);
    return rc;
}

/* 1 when @s is one line of printable text (what a log line needs). */
static int one_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
    return 1;
}

/* ------------------------------------------------- generic deep comparison */

static int quiet; /* set while a test expects a mismatch */
static int msg_equal(const ProtobufCMessage *a, const ProtobufCMessage *b);

static size_t elem_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    default:
        return 4; /* 32-bit ints, enum, bool (protobuf_c_boolean is int), float */
    }
}

static int value_equal(const ProtobufCFieldDescriptor *f, const void *pa, const void *pb)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
        const char *x = *(char *const *)pa, *y = *(char *const *)pb;
        return (!x || !y) ? x == y : strcmp(x, y) == 0;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
        return msg_equal(*(ProtobufCMessage *const *)pa, *(ProtobufCMessage *const *)pb);
    case PROTOBUF_C_TYPE_BYTES: { /* another kind's encoding (`other`) */
        const ProtobufCBinaryData *x = pa, *y = pb;
        return x->len == y->len && (!x->len || memcmp(x->data, y->data, x->len) == 0);
    }
    default:
        return memcmp(pa, pb, elem_size(f->type)) == 0;
    }
}

static int field_equal(const ProtobufCFieldDescriptor *f, const ProtobufCMessage *a,
                       const ProtobufCMessage *b)
{
    const char *ma = (const char *)a, *mb = (const char *)b;
    const void *pa = ma + f->offset, *pb = mb + f->offset;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        uint32_t ca = *(const uint32_t *)(ma + f->quantifier_offset);
        uint32_t cb = *(const uint32_t *)(mb + f->quantifier_offset);
        if (ca != cb) return 0;
        return ca != f->id || value_equal(f, pa, pb);
    }
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        size_t na = *(const size_t *)(ma + f->quantifier_offset);
        size_t nb = *(const size_t *)(mb + f->quantifier_offset);
        if (na != nb) return 0;
        const char *xa = *(const char *const *)pa, *xb = *(const char *const *)pb;
        size_t es = elem_size(f->type);
        for (size_t i = 0; i < na; i++)
            if (!value_equal(f, xa + i * es, xb + i * es)) return 0;
        return 1;
    }
    if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE)
        return value_equal(f, pa, pb); /* presence is the pointer */
    protobuf_c_boolean ha = *(const protobuf_c_boolean *)(ma + f->quantifier_offset);
    protobuf_c_boolean hb = *(const protobuf_c_boolean *)(mb + f->quantifier_offset);
    if (ha != hb) return 0;
    return !ha || value_equal(f, pa, pb);
}

/*
 * Every field of @a and @b, recursively, driven by the descriptors: presence
 * bits, values, repeated counts, oneof case. Prints the first difference.
 */
static int msg_equal(const ProtobufCMessage *a, const ProtobufCMessage *b)
{
    if (!a || !b) return a == b;
    if (a->descriptor != b->descriptor) return 0;
    const ProtobufCMessageDescriptor *d = a->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        if (!field_equal(&d->fields[i], a, b)) {
            if (!quiet) print_message("differs: %s.%s\n", d->name, d->fields[i].name);
            return 0;
        }
    }
    return 1;
}

/* -------------------------------------------- the golden messages, in C */

/*
 * Each builder returns a message in static storage, rebuilt from scratch on
 * every call, with exactly the values of tests/data/proto-golden/NAME.txtpb.
 */
static ply_msg_t g_msg;

static ply_msg_t *wrap(Ply__Message__BodyCase k)
{
    g_msg = (ply_msg_t)PLY__MESSAGE__INIT;
    g_msg.body_case = k;
    return &g_msg;
}

static ply_msg_t *build_hello(void)
{
    static Ply__Hello m;
    m = (Ply__Hello)PLY__HELLO__INIT;
    m.worker_id = "node07:4242";
    m.has_protocol = 1, m.protocol = 2;
    m.build = "ply 0.1.0 (gcc 12.2.0, Release, pext)";
    m.has_threads = 1, m.threads = 64;
    m.has_hash_mib = 1, m.hash_mib = 4096;
    m.has_zobrist_checksum = 1, m.zobrist_checksum = 0x9d39247e33776d41ull;
    m.has_zobrist_seed = 1, m.zobrist_seed = 20240607;
    static uint32_t kinds[3];
    kinds[0] = PLY__JOB_KIND__JOB_KIND_PERFT, kinds[1] = PLY__JOB_KIND__JOB_KIND_SEARCH;
    kinds[2] = 7; /* a kind of the coordinator's registry that proto/ does not name */
    m.n_kinds = 3, m.kinds = kinds;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_HELLO);
    msg->hello = &m;
    return msg;
}

static ply_msg_t *build_welcome(void)
{
    static Ply__Welcome m;
    m = (Ply__Welcome)PLY__WELCOME__INIT;
    m.has_heartbeat_ms = 1, m.heartbeat_ms = 1000;
    m.has_liveness = 1, m.liveness = 5;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_WELCOME);
    msg->welcome = &m;
    return msg;
}

static ply_msg_t *build_ready(void)
{
    static Ply__Ready m;
    m = (Ply__Ready)PLY__READY__INIT;
    m.has_credit = 1, m.credit = 8;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_READY);
    msg->ready = &m;
    return msg;
}

static const char KIWIPETE[] =
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
static const char STARTFEN[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

static ply_msg_t *build_job(void)
{
    static Ply__Job m;
    static Ply__PerftJob pj;
    pj = (Ply__PerftJob)PLY__PERFT_JOB__INIT;
    pj.fen = (char *)KIWIPETE;
    pj.has_depth = 1, pj.depth = 5;
    pj.has_chess960 = 1, pj.chess960 = 0;
    pj.has_stats = 1, pj.stats = 1;
    pj.has_divide = 1, pj.divide = 1;
    pj.has_no_hash = 1, pj.no_hash = 1;
    m = (Ply__Job)PLY__JOB__INIT;
    m.has_job_id = 1, m.job_id = 123456789012ull;
    m.has_attempt = 1, m.attempt = 2;
    m.has_kind = 1, m.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    m.has_run_id = 1, m.run_id = 77;
    m.has_lease_ms = 1, m.lease_ms = 600000;
    m.perft = &pj;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_JOB);
    msg->job = &m;
    return msg;
}

static ply_msg_t *build_progress(void)
{
    static Ply__Progress m;
    m = (Ply__Progress)PLY__PROGRESS__INIT;
    m.has_job_id = 1, m.job_id = 123456789012ull;
    m.has_attempt = 1, m.attempt = 2;
    m.has_nodes = 1, m.nodes = 4865609;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_PROGRESS);
    msg->progress = &m;
    return msg;
}

/* Fifteen counters in PLY_STATS_MAP order. */
static void fill_stats(Ply__Stats *s, const uint64_t v[PLY_STATS_N])
{
    ply_stats_t st;
    memcpy(st.v, v, sizeof st.v);
    *s = (Ply__Stats)PLY__STATS__INIT;
    ply_msg_stats_to_proto(s, &st);
}

static Ply__DivideEntry *divide_entry(Ply__DivideEntry *e, const char *move, uint64_t nodes,
                                      Ply__Stats *stats)
{
    *e = (Ply__DivideEntry)PLY__DIVIDE_ENTRY__INIT;
    e->move = (char *)move;
    e->has_nodes = 1, e->nodes = nodes;
    e->stats = stats;
    return e;
}

static Ply__DivideEntry *g_divide_ptr[PLY_MAX_DIVIDE + 2];
static Ply__DivideEntry g_divide[PLY_MAX_DIVIDE + 2];

static ply_msg_t *build_result(void)
{
    static Ply__Result m;
    static Ply__Stats st, st1;
    static const uint64_t sv[PLY_STATS_N] = {193690690, 35043416, 73365, 4993637, 8392,
                                             3290000,   2600,     4000,  600,     3297200,
                                             30000,     100,      60,    11,      30171};
    static const uint64_t sv1[PLY_STATS_N] = {3553501, 698853, 1, 2,  3,  4,  5, 6,
                                              7,       8,      9, 10, 11, 12, 13};
    m = (Ply__Result)PLY__RESULT__INIT;
    m.has_job_id = 1, m.job_id = 123456789012ull;
    m.has_attempt = 1, m.attempt = 2;
    m.has_nodes = 1, m.nodes = 193690690;
    fill_stats(&st, sv);
    m.stats = &st;
    m.has_perft1 = 1, m.perft1 = 48;
    m.has_time_us = 1, m.time_us = 1234567;
    fill_stats(&st1, sv1);
    g_divide_ptr[0] = divide_entry(&g_divide[0], "e1g1", 4119629, NULL);
    g_divide_ptr[1] = divide_entry(&g_divide[1], "e2a6", 3553501, &st1);
    g_divide_ptr[2] = divide_entry(&g_divide[2], "b7b8q", 0, NULL);
    m.n_divide = 3, m.divide = g_divide_ptr;
    m.has_tt_hits = 1, m.tt_hits = 1048576;
    m.has_tt_probes = 1, m.tt_probes = UINT64_MAX;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RESULT);
    msg->result = &m;
    return msg;
}

/* The golden Result with @n copies of one divide entry (n <= PLY_MAX_DIVIDE + 1). */
static ply_msg_t *result_with_entries(size_t n)
{
    ply_msg_t *m = build_result();
    for (size_t i = 0; i < n; i++) g_divide_ptr[i] = divide_entry(&g_divide[i], "a2a4", 1, NULL);
    m->result->n_divide = n;
    return m;
}

static ply_msg_t *build_heartbeat(void)
{
    static Ply__Heartbeat m;
    m = (Ply__Heartbeat)PLY__HEARTBEAT__INIT;
    m.has_nodes = 1, m.nodes = 987654321;
    m.has_job_id = 1, m.job_id = 123456789012ull;
    m.has_attempt = 1, m.attempt = 2;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_HEARTBEAT);
    msg->heartbeat = &m;
    return msg;
}

static ply_msg_t *build_error(void)
{
    static Ply__Error m;
    m = (Ply__Error)PLY__ERROR__INIT;
    m.has_code = 1, m.code = PLY_EPROTO;
    m.message = "JOB: field depth = 0, must be 1..20";
    m.has_job_id = 1, m.job_id = 42;
    m.has_attempt = 1, m.attempt = 3;
    m.has_run_id = 1, m.run_id = 7;
    m.supported = "PLY/2";
    m.has_say_hello = 1, m.say_hello = 1;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_ERROR);
    msg->error = &m;
    return msg;
}

static ply_msg_t *build_bye(void)
{
    static Ply__Bye m;
    m = (Ply__Bye)PLY__BYE__INIT;
    m.reason = "worker shutting down (SIGTERM)";
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_BYE);
    msg->bye = &m;
    return msg;
}

static ply_msg_t *build_submit(void)
{
    static Ply__Submit m;
    static Ply__PerftRequest q;
    q = (Ply__PerftRequest)PLY__PERFT_REQUEST__INIT;
    q.fen = "startpos";
    q.has_depth = 1, q.depth = 7;
    q.has_chess960 = 1, q.chess960 = 0;
    q.has_stats = 1, q.stats = 1;
    q.has_divide = 1, q.divide = 1;
    q.has_split_depth = 1, q.split_depth = -1;
    m = (Ply__Submit)PLY__SUBMIT__INIT;
    m.has_kind = 1, m.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    m.perft = &q;
    m.client_id = "cli:alice@host:31337";
    m.has_detach = 1, m.detach = 1;
    m.has_verify = 1, m.verify = PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE;
    m.has_verify_ppm = 1, m.verify_ppm = 25000;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_SUBMIT);
    msg->submit = &m;
    return msg;
}

static ply_msg_t *build_accepted(void)
{
    static Ply__Accepted m;
    m = (Ply__Accepted)PLY__ACCEPTED__INIT;
    m.has_run_id = 1, m.run_id = 77;
    m.has_jobs = 1, m.jobs = 5362;
    m.has_split_depth = 1, m.split_depth = 3;
    m.has_paths = 1, m.paths = 8902;
    m.fen = (char *)STARTFEN;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_ACCEPTED);
    msg->accepted = &m;
    return msg;
}

static ply_msg_t *build_status(void)
{
    static Ply__StatusRequest m;
    m = (Ply__StatusRequest)PLY__STATUS_REQUEST__INIT;
    m.has_run_id = 1, m.run_id = 77;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_STATUS);
    msg->status = &m;
    return msg;
}

static Ply__WorkerStatus *worker_status(Ply__WorkerStatus *w, const char *id, uint32_t inflight,
                                        uint64_t nodes, uint32_t seed, uint64_t stalled_ms)
{
    *w = (Ply__WorkerStatus)PLY__WORKER_STATUS__INIT;
    w->worker_id = (char *)id;
    w->has_threads = 1, w->threads = 8;
    w->has_jobs_in_flight = 1, w->jobs_in_flight = inflight;
    w->has_jobs_done = 1, w->jobs_done = 600;
    w->has_nodes = 1, w->nodes = nodes;
    w->has_zobrist_seed = 1, w->zobrist_seed = seed;
    w->has_stalled_ms = 1, w->stalled_ms = stalled_ms;
    w->has_busy_us = 1, w->busy_us = 3600000000ull;
    return w;
}

static ply_msg_t *build_run_progress(void)
{
    static Ply__RunProgress m;
    static Ply__WorkerStatus w[2], *wp[2];
    m = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    m.has_run_id = 1, m.run_id = 77;
    m.state = "running";
    m.has_jobs_total = 1, m.jobs_total = 5362;
    m.has_jobs_done = 1, m.jobs_done = 1200;
    m.has_nodes = 1, m.nodes = 1234567890123ull;
    m.has_elapsed_ms = 1, m.elapsed_ms = 45000;
    m.has_workers = 1, m.workers = 2;
    m.has_threads = 1, m.threads = 16;
    wp[0] = worker_status(&w[0], "node07:4242", 3, 617283945061ull, 1, 250);
    wp[1] = worker_status(&w[1], "node08:977", 0, 617283945062ull, 2, 0);
    m.n_worker = 2, m.worker = wp;
    m.fen = (char *)STARTFEN;
    m.has_depth = 1, m.depth = 7;
    m.verify = "sample=0.025";
    m.has_results_restored = 1, m.results_restored = 1100;
    m.has_jobs_in_flight = 1, m.jobs_in_flight = 3;
    m.error = "job 17 quarantined after 3 failed attempts";
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RUN_PROGRESS);
    msg->run_progress = &m;
    return msg;
}

static char *g_detail[2];

/* The one mismatch of the golden RunResult: a worker against the rule engine. */
static Ply__Mismatch *golden_mismatch(void)
{
    static Ply__Mismatch x;
    static Ply__Computation k[2], *kp[2];
    k[0] = (Ply__Computation)PLY__COMPUTATION__INIT;
    k[0].worker_id = "node07:4242";
    k[0].has_zobrist_seed = 1, k[0].zobrist_seed = 1;
    k[0].has_nodes = 1, k[0].nodes = 42;
    k[0].has_attempt = 1, k[0].attempt = 1;
    k[0].has_arbiter = 1, k[0].arbiter = 0;
    k[0].has_no_hash = 1, k[0].no_hash = 0;
    k[1] = (Ply__Computation)PLY__COMPUTATION__INIT;
    k[1].worker_id = "arbiter";
    k[1].has_zobrist_seed = 1, k[1].zobrist_seed = 0;
    k[1].has_nodes = 1, k[1].nodes = 43;
    k[1].has_attempt = 1, k[1].attempt = 2;
    k[1].has_arbiter = 1, k[1].arbiter = 1;
    k[1].has_no_hash = 1, k[1].no_hash = 1;
    kp[0] = &k[0], kp[1] = &k[1];
    x = (Ply__Mismatch)PLY__MISMATCH__INIT;
    x.has_job_id = 1, x.job_id = 17;
    x.fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    x.has_depth = 1, x.depth = 4;
    x.n_computation = 2, x.computation = kp;
    x.has_resolved = 1, x.resolved = 1;
    x.has_accepted_nodes = 1, x.accepted_nodes = 43;
    x.drill_down = "e7e5: node07:4242 says 9, arbiter says 10";
    return &x;
}

static ply_msg_t *build_run_result(void)
{
    static Ply__RunResult m;
    static Ply__Stats st, st1;
    static Ply__Verification v;
    static const uint64_t sv[PLY_STATS_N] = {3195901860ull, 108329926, 319617, 883453, 0,
                                             33000000,      100000,    0,      0,      33100000,
                                             435000,        767,       0,      0,      435767};
    static const uint64_t sv1[PLY_STATS_N] = {129329, 1, 2,  3,  4,  5,  6, 7,
                                              8,      9, 10, 11, 12, 13, 14};
    m = (Ply__RunResult)PLY__RUN_RESULT__INIT;
    m.has_run_id = 1, m.run_id = 77;
    m.fen = (char *)STARTFEN;
    m.has_depth = 1, m.depth = 7;
    m.has_nodes = 1, m.nodes = 3195901860ull;
    fill_stats(&st, sv);
    m.stats = &st;
    fill_stats(&st1, sv1);
    g_divide_ptr[0] = divide_entry(&g_divide[0], "e2e4", 309478263, NULL);
    g_divide_ptr[1] = divide_entry(&g_divide[1], "g1f3", 129329, &st1);
    m.n_divide = 2, m.divide = g_divide_ptr;
    m.has_jobs = 1, m.jobs = 5362;
    m.has_split_depth = 1, m.split_depth = 3;
    m.has_time_ms = 1, m.time_ms = 12345;
    v = (Ply__Verification)PLY__VERIFICATION__INIT;
    v.mode = "sample=0.1";
    v.has_arbiter_plies = 1, v.arbiter_plies = 3;
    v.has_perft1_checked = 1, v.perft1_checked = 5362;
    v.has_jobs = 1, v.jobs = 5362;
    v.has_mismatches = 1, v.mismatches = 1;
    /* U+2014 EM DASH, as the .txtpb writes it in octal */
    g_detail[0] = "job 17: worker node07:4242 says 42, arbiter says 43 \xe2\x80\x94 first "
                  "divergence e2e4";
    g_detail[1] = "recomputed by node08:977: 43";
    v.n_detail = 2, v.detail = g_detail;
    v.has_jobs_selected = 1, v.jobs_selected = 134;
    v.has_checked_by_worker = 1, v.checked_by_worker = 100;
    v.has_checked_same_seed = 1, v.checked_same_seed = 10;
    v.has_checked_same_worker = 1, v.checked_same_worker = 3;
    v.has_checked_by_arbiter = 1, v.checked_by_arbiter = 20;
    v.has_resolved = 1, v.resolved = 1;
    static Ply__Mismatch *mp[1];
    mp[0] = golden_mismatch();
    v.n_mismatch = 1, v.mismatch = mp;
    v.summary = "134 of 5362 jobs computed twice: 100 by another worker and seed, 20 by the rule "
                "engine";
    v.has_workers = 1, v.workers = 2;
    v.has_seeds = 1, v.seeds = 2;
    m.verification = &v;
    m.has_chess960 = 1, m.chess960 = 0;
    m.has_worker_time_us = 1, m.worker_time_us = 98765432101ull;
    m.has_results_restored = 1, m.results_restored = 4000;
    m.has_results_computed = 1, m.results_computed = 1496;
    m.has_tt_probes = 1, m.tt_probes = 22845722;
    m.has_tt_hits = 1, m.tt_hits = 11914146;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RUN_RESULT);
    msg->run_result = &m;
    return msg;
}

static ply_msg_t *build_result_request(void)
{
    static Ply__ResultRequest m;
    m = (Ply__ResultRequest)PLY__RESULT_REQUEST__INIT;
    m.has_run_id = 1, m.run_id = 77;
    m.has_attach = 1, m.attach = 1;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RESULT_REQUEST);
    msg->result_request = &m;
    return msg;
}

static ply_msg_t *build_cancel(void)
{
    static Ply__Cancel m;
    m = (Ply__Cancel)PLY__CANCEL__INIT;
    m.has_run_id = 1, m.run_id = 77;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_CANCEL);
    msg->cancel = &m;
    return msg;
}

static ply_msg_t *build_status_reply(void)
{
    static Ply__StatusReply m;
    static Ply__RunProgress r, *rp[1];
    static Ply__WorkerStatus w[1], *wp[1];
    r = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    r.has_run_id = 1, r.run_id = 77;
    r.state = "running";
    r.has_jobs_total = 1, r.jobs_total = 5362;
    r.has_jobs_done = 1, r.jobs_done = 1200;
    r.has_nodes = 1, r.nodes = 1234567890123ull;
    r.has_elapsed_ms = 1, r.elapsed_ms = 45000;
    r.has_workers = 1, r.workers = 1;
    r.has_threads = 1, r.threads = 8;
    r.fen = (char *)STARTFEN;
    r.has_depth = 1, r.depth = 7;
    r.verify = "all";
    r.has_results_restored = 1, r.results_restored = 1100;
    r.has_jobs_in_flight = 1, r.jobs_in_flight = 2;
    r.error = "";
    rp[0] = &r;
    wp[0] = worker_status(&w[0], "node07:4242", 2, 617283945061ull, 1, 15);
    static uint32_t kinds[2] = {PLY__JOB_KIND__JOB_KIND_PERFT, PLY__JOB_KIND__JOB_KIND_SEARCH};
    w[0].n_kinds = 2, w[0].kinds = kinds;
    m = (Ply__StatusReply)PLY__STATUS_REPLY__INIT;
    m.n_run = 1, m.run = rp;
    m.n_worker = 1, m.worker = wp;
    m.has_uptime_ms = 1, m.uptime_ms = 3600000;
    m.has_durable = 1, m.durable = 1;
    m.has_runs_restored = 1, m.runs_restored = 1;
    m.has_results_restored = 1, m.results_restored = 1100;
    m.has_jobs_sent = 1, m.jobs_sent = 1300;
    m.has_jobs_requeued = 1, m.jobs_requeued = 4;
    m.has_results_ignored = 1, m.results_ignored = 2;
    m.has_workers_lost = 1, m.workers_lost = 1;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_STATUS_REPLY);
    msg->status_reply = &m;
    return msg;
}

static const struct golden {
    const char *file; /* tests/data/proto-golden/FILE.{txtpb,hex} */
    const char *type; /* ply_msg_type_name */
    Ply__Message__BodyCase body_case;
    ply_msg_t *(*build)(void);
} GOLDEN[] = {
    {"hello", "HELLO", PLY__MESSAGE__BODY_HELLO, build_hello},
    {"welcome", "WELCOME", PLY__MESSAGE__BODY_WELCOME, build_welcome},
    {"ready", "READY", PLY__MESSAGE__BODY_READY, build_ready},
    {"job", "JOB", PLY__MESSAGE__BODY_JOB, build_job},
    {"progress", "PROGRESS", PLY__MESSAGE__BODY_PROGRESS, build_progress},
    {"result", "RESULT", PLY__MESSAGE__BODY_RESULT, build_result},
    {"heartbeat", "HEARTBEAT", PLY__MESSAGE__BODY_HEARTBEAT, build_heartbeat},
    {"error", "ERROR", PLY__MESSAGE__BODY_ERROR, build_error},
    {"bye", "BYE", PLY__MESSAGE__BODY_BYE, build_bye},
    {"submit", "SUBMIT", PLY__MESSAGE__BODY_SUBMIT, build_submit},
    {"accepted", "ACCEPTED", PLY__MESSAGE__BODY_ACCEPTED, build_accepted},
    {"status", "STATUS", PLY__MESSAGE__BODY_STATUS, build_status},
    {"run_progress", "RUN_PROGRESS", PLY__MESSAGE__BODY_RUN_PROGRESS, build_run_progress},
    {"run_result", "RUN_RESULT", PLY__MESSAGE__BODY_RUN_RESULT, build_run_result},
    {"result_request", "RESULT_REQUEST", PLY__MESSAGE__BODY_RESULT_REQUEST, build_result_request},
    {"cancel", "CANCEL", PLY__MESSAGE__BODY_CANCEL, build_cancel},
    {"status_reply", "STATUS_REPLY", PLY__MESSAGE__BODY_STATUS_REPLY, build_status_reply},
};
enum { NGOLDEN = sizeof GOLDEN / sizeof GOLDEN[0] };

static void print_hex(const char *label, const uint8_t *p, size_t n)
{
    print_message("%s (%zu bytes): ", label, n);
    for (size_t i = 0; i < n; i++) print_message("%02x", p[i]);
    print_message("\n");
}

/* ---------------------------------------------------------- golden tests */

static void test_golden_count(void **state)
{
    (void)state;
    /* one vector per oneof member of Message: all seventeen body types */
    assert_int_equal(NGOLDEN, ply__message__descriptor.n_fields);
    for (size_t i = 0; i < NGOLDEN; i++) assert_int_equal(GOLDEN[i].body_case, (int)i + 1);
}

static void test_golden_encode(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGOLDEN; i++) {
        size_t n;
        uint8_t *want = load_hex(GOLDEN[i].file, &n);
        ply_msg_t *msg = GOLDEN[i].build();
        char why[256];
        if (ply_msg_validate(msg, why, sizeof why) != 0) fail_msg("%s: %s", GOLDEN[i].file, why);
        zmsg_t *z = ply_msg_encode(msg);
        assert_non_null(z);
        assert_int_equal(zmsg_size(z), 2);
        zframe_t *id = zmsg_first(z), *body = zmsg_next(z);
        assert_true(zframe_streq(id, PLY_PROTOCOL_ID));
        if (zframe_size(body) != n || memcmp(zframe_data(body), want, n) != 0) {
            print_hex("protoc   ", want, n);
            print_hex("protobuf-c", zframe_data(body), zframe_size(body));
            fail_msg("%s: protobuf-c bytes differ from the protoc vector", GOLDEN[i].file);
        }
        zmsg_destroy(&z);
        free(want);
    }
}

/* Field checks written out by hand, so the generic comparison is not the only witness. */
static void spot_check(const char *file, const ply_msg_t *m)
{
    if (!strcmp(file, "hello")) {
        assert_string_equal(m->hello->worker_id, "node07:4242");
        assert_true(m->hello->zobrist_checksum == 0x9d39247e33776d41ull);
        assert_int_equal(m->hello->threads, 64);
    } else if (!strcmp(file, "job")) {
        assert_string_equal(m->job->perft->fen, KIWIPETE);
        assert_int_equal(m->job->perft->depth, 5);
        assert_true(m->job->perft->has_chess960 && !m->job->perft->chess960);
        assert_int_equal(m->job->kind, PLY__JOB_KIND__JOB_KIND_PERFT);
    } else if (!strcmp(file, "result")) {
        assert_int_equal(m->result->n_divide, 3);
        assert_string_equal(m->result->divide[2]->move, "b7b8q");
        assert_true(m->result->divide[2]->has_nodes && m->result->divide[2]->nodes == 0);
        assert_int_equal(m->result->divide[1]->stats->total_mates, 13);
        assert_true(m->result->tt_probes == UINT64_MAX);
        ply_stats_t st;
        ply_msg_stats_from_proto(&st, m->result->stats);
        assert_true(st.v[PLY_STAT_captures] == 35043416);
        assert_true(st.v[PLY_STAT_total_mates] == 30171);
    } else if (!strcmp(file, "error")) {
        assert_int_equal(m->error->code, PLY_EPROTO);
        assert_string_equal(m->error->supported, "PLY/2");
    } else if (!strcmp(file, "submit")) {
        assert_int_equal(m->submit->kind, PLY__JOB_KIND__JOB_KIND_PERFT);
        assert_int_equal(m->submit->perft->split_depth, -1);
        assert_string_equal(m->submit->perft->fen, "startpos");
    } else if (!strcmp(file, "run_progress")) {
        assert_int_equal(m->run_progress->n_worker, 2);
        assert_string_equal(m->run_progress->worker[1]->worker_id, "node08:977");
    } else if (!strcmp(file, "run_result")) {
        assert_int_equal(m->run_result->verification->n_mismatch, 1);
        assert_int_equal(m->run_result->verification->mismatch[0]->n_computation, 2);
        assert_true(m->run_result->verification->mismatch[0]->computation[1]->arbiter);
        assert_int_equal(m->run_result->verification->n_detail, 2);
        assert_non_null(strstr(m->run_result->verification->detail[0], "\xe2\x80\x94"));
        assert_true(m->run_result->nodes == 3195901860ull);
    }
}

static void test_golden_decode(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGOLDEN; i++) {
        size_t n;
        uint8_t *bytes = load_hex(GOLDEN[i].file, &n);
        zmsg_t *z = envelope(PLY_PROTOCOL_ID, bytes, n);
        ply_msg_t *got = NULL;
        char why[256] = "unset";
        int rc = ply_msg_decode(z, &got, why, sizeof why);
        if (rc != 0) fail_msg("%s: decode %d: %s", GOLDEN[i].file, rc, why);
        assert_string_equal(why, "");
        assert_int_equal(got->body_case, GOLDEN[i].body_case);
        assert_string_equal(ply_msg_type_name(got), GOLDEN[i].type);
        if (!msg_equal(&got->base, &GOLDEN[i].build()->base))
            fail_msg("%s: decoded vector differs from the C message", GOLDEN[i].file);
        spot_check(GOLDEN[i].file, got);
        ply_msg_free(&got);
        assert_null(got);
        ply_msg_free(&got); /* idempotent */
        zmsg_destroy(&z);
        free(bytes);
    }
}

/* The comparison must notice a changed value, a changed presence bit, a deep change. */
static void test_comparator_sees_differences(void **state)
{
    (void)state;
    ply_msg_t *a = build_job();
    Ply__Job ja = *a->job;
    Ply__PerftJob pa = *a->job->perft; /* a sub-message is compared field by field too */
    ja.perft = &pa;
    ply_msg_t ma = *a;
    ma.job = &ja;
    quiet = 1;
    assert_true(msg_equal(&ma.base, &build_job()->base));
    pa.depth = 6;
    assert_false(msg_equal(&ma.base, &build_job()->base));
    pa.depth = 5, pa.has_chess960 = 0;
    assert_false(msg_equal(&ma.base, &build_job()->base));
    pa.has_chess960 = 1, pa.fen = "8/8/8/8/8/8/8/K1k5 w - - 0 1";
    assert_false(msg_equal(&ma.base, &build_job()->base));
    pa.fen = (char *)KIWIPETE, ja.has_other = 1; /* and bytes */
    assert_false(msg_equal(&ma.base, &build_job()->base));

    size_t n;
    uint8_t *bytes = load_hex("result", &n);
    zmsg_t *z = envelope(PLY_PROTOCOL_ID, bytes, n);
    ply_msg_t *got = NULL;
    assert_int_equal(ply_msg_decode(z, &got, NULL, 0), 0);
    got->result->divide[1]->stats->castles++;
    assert_false(msg_equal(&got->base, &build_result()->base));
    got->result->divide[1]->stats->castles--;
    got->result->n_divide = 2;
    assert_false(msg_equal(&got->base, &build_result()->base));
    got->result->n_divide = 3;
    assert_true(msg_equal(&got->base, &build_result()->base));
    quiet = 0;
    ply_msg_free(&got);
    zmsg_destroy(&z);
    free(bytes);
}

/* ------------------------------------------------------- robustness tests */

static void test_truncations(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGOLDEN; i++) {
        size_t n;
        uint8_t *bytes = load_hex(GOLDEN[i].file, &n);
        for (size_t len = 0; len < n; len++) {
            char why[256];
            int rc = decode_bytes(PLY_PROTOCOL_ID, bytes, len, why, sizeof why);
            /* cutting the one top-level field short always breaks its length */
            if (rc != PLY_EPROTO) fail_msg("%s cut to %zu bytes: rc %d", GOLDEN[i].file, len, rc);
        }
        free(bytes);
    }
}

static void test_bit_flips(void **state)
{
    (void)state;
    size_t cases = 0, accepted = 0, bits = 0;
    for (size_t i = 0; i < NGOLDEN; i++) {
        size_t n;
        uint8_t *bytes = load_hex(GOLDEN[i].file, &n);
        bits += 8 * n;
        for (size_t bit = 0; bit < 8 * n; bit++) {
            bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            char why[256];
            int rc = decode_bytes(PLY_PROTOCOL_ID, bytes, n, why, sizeof why);
            assert_true(rc == 0 || rc == PLY_EPROTO);
            accepted += rc == 0;
            cases++;
            bytes[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        free(bytes);
    }
    print_message("bit flips: %zu cases, %zu still valid messages\n", cases, accepted);
    assert_int_equal(cases, bits);
}

/* A few hundred random bytes, a random length. */
static size_t random_bytes(uint8_t *buf, size_t max)
{
    size_t n = rng() % max;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rng();
    return n;
}

static void test_random_bytes(void **state)
{
    (void)state;
    uint8_t buf[600];
    size_t ok = 0;
    /* raw noise: almost always rejected at the top level */
    for (int t = 0; t < 20000; t++) {
        size_t n = random_bytes(buf, 300);
        ok += decode_bytes(PLY_PROTOCOL_ID, buf, n, NULL, 0) == 0;
    }
    /* noise inside a well-formed body field, so that each sub-message parser runs */
    for (int t = 0; t < 20000; t++) {
        size_t n = random_bytes(buf + 3, 500);
        unsigned field = 1 + (unsigned)(rng() % 17); /* 17: an unknown field */
        buf[0] = (uint8_t)(field << 3 | 2);
        buf[1] = (uint8_t)(0x80 | (n & 0x7f));
        buf[2] = (uint8_t)(n >> 7);
        ok += decode_bytes(PLY_PROTOCOL_ID, buf, n + 3, NULL, 0) == 0;
    }
    /* golden vectors with random bytes overwritten, inserted or deleted */
    for (int t = 0; t < 20000; t++) {
        const struct golden *g = &GOLDEN[rng() % NGOLDEN];
        size_t n;
        uint8_t *bytes = load_hex(g->file, &n);
        uint8_t *m = malloc(n + 8);
        memcpy(m, bytes, n);
        size_t at = rng() % n;
        switch (rng() % 3) {
        case 0:
            m[at] = (uint8_t)rng();
            break;
        case 1:
            memmove(m + at + 1, m + at, n - at);
            m[at] = (uint8_t)rng();
            n++;
            break;
        default:
            memmove(m + at, m + at + 1, n - at - 1);
            n--;
            break;
        }
        ok += decode_bytes(PLY_PROTOCOL_ID, m, n, NULL, 0) == 0;
        free(m);
        free(bytes);
    }
    print_message("random: 60000 cases, %zu valid messages\n", ok);
}

/* Two bodies in one frame: protobuf keeps the last oneof member; nothing may leak. */
static void test_concatenated_bodies(void **state)
{
    (void)state;
    size_t n1, n2;
    uint8_t *a = load_hex("hello", &n1), *b = load_hex("job", &n2);
    uint8_t *ab = malloc(n1 + n2);
    memcpy(ab, a, n1);
    memcpy(ab + n1, b, n2);
    zmsg_t *z = envelope(PLY_PROTOCOL_ID, ab, n1 + n2);
    ply_msg_t *m = NULL;
    assert_int_equal(ply_msg_decode(z, &m, NULL, 0), 0);
    assert_string_equal(ply_msg_type_name(m), "JOB");
    ply_msg_free(&m);
    zmsg_destroy(&z);
    /* the same member twice merges (proto2 rules): still one valid Job */
    free(ab);
    ab = malloc(2 * n2);
    memcpy(ab, b, n2);
    memcpy(ab + n2, b, n2);
    z = envelope(PLY_PROTOCOL_ID, ab, 2 * n2);
    assert_int_equal(ply_msg_decode(z, &m, NULL, 0), 0);
    assert_string_equal(m->job->perft->fen, KIWIPETE);
    ply_msg_free(&m);
    zmsg_destroy(&z);
    free(ab);
    free(a);
    free(b);
}

static void test_frame_counts(void **state)
{
    (void)state;
    size_t n;
    uint8_t *bytes = load_hex("ready", &n);
    char why[256];
    ply_msg_t *m = (ply_msg_t *)&m; /* must be reset to NULL on failure */

    zmsg_t *z = zmsg_new(); /* 0 frames */
    assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), PLY_EPROTO);
    assert_null(m);
    assert_non_null(strstr(why, "0 frames"));
    zmsg_destroy(&z);
    assert_int_equal(ply_msg_decode(NULL, &m, why, sizeof why), PLY_EPROTO);

    z = envelope(PLY_PROTOCOL_ID, NULL, 0); /* 1 frame */
    assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "1 frames"));
    zmsg_destroy(&z);

    for (int extra = 1; extra <= 3; extra++) { /* 3, 4, 5 frames */
        z = envelope(PLY_PROTOCOL_ID, bytes, n);
        for (int e = 0; e < extra; e++) zmsg_addmem(z, bytes, n);
        assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), PLY_EPROTO);
        assert_non_null(strstr(why, "frames"));
        zmsg_destroy(&z);
    }

    /* a ROUTER routing id left in front: frame 0 is not the protocol id */
    z = envelope(PLY_PROTOCOL_ID, bytes, n);
    zmsg_pushmem(z, "\0\x80\x00\x41\xa7", 5);
    assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), PLY_EVERSION);
    zmsg_destroy(&z);

    z = envelope(PLY_PROTOCOL_ID, bytes, 0); /* empty body frame */
    assert_int_equal(zmsg_size(z), 2);
    assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "frame 1"));
    zmsg_destroy(&z);

    z = zmsg_new(); /* empty protocol id frame */
    zmsg_addmem(z, NULL, 0);
    zmsg_addmem(z, bytes, n);
    assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), PLY_EVERSION);
    assert_non_null(strstr(why, "\"\""));
    zmsg_destroy(&z);

    /* @out NULL: check only */
    z = envelope(PLY_PROTOCOL_ID, bytes, n);
    assert_int_equal(ply_msg_decode(z, NULL, why, sizeof why), 0);
    assert_int_equal(zmsg_size(z), 2); /* not consumed */
    zmsg_destroy(&z);
    free(bytes);
}

static void test_oversized(void **state)
{
    (void)state;
    size_t big = PLY_MAX_MESSAGE_BYTES + 1;
    uint8_t *buf = calloc(1, big);
    char why[256];
    /* a valid prefix, so only the size can be the reason */
    buf[0] = 0x3a, buf[1] = 0x00;
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, buf, big, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "1048577 bytes"));
    free(buf);

    /* a legitimate message just under the limit is accepted; just over, encode refuses */
    static Ply__RunProgress rp;
    rp = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    rp.has_run_id = 1, rp.run_id = 1, rp.state = "running";
    static char id[PLY_MAX_TEXT + 1];
    memset(id, 'w', PLY_MAX_TEXT);
    enum { NW = 2100 };
    Ply__WorkerStatus *w = calloc(NW, sizeof *w), **wp = calloc(NW, sizeof *wp);
    for (size_t i = 0; i < NW; i++) wp[i] = worker_status(&w[i], id, 1, 1, 0, 0);
    ply_msg_t msg = PLY__MESSAGE__INIT;
    msg.body_case = PLY__MESSAGE__BODY_RUN_PROGRESS, msg.run_progress = &rp;
    rp.worker = wp;
    rp.n_worker = 1;
    size_t each = ply__message__get_packed_size(&msg);
    rp.n_worker = 2;
    each = ply__message__get_packed_size(&msg) - each;
    size_t fit = (PLY_MAX_MESSAGE_BYTES - 64) / each;
    assert_true(fit + 1 < NW);
    rp.n_worker = fit;
    zmsg_t *z = ply_msg_encode(&msg);
    assert_non_null(z);
    ply_msg_t *m = NULL;
    assert_int_equal(ply_msg_decode(z, &m, why, sizeof why), 0);
    assert_int_equal(m->run_progress->n_worker, fit);
    ply_msg_free(&m);
    zmsg_destroy(&z);
    rp.n_worker = fit + 1;
    while (ply__message__get_packed_size(&msg) <= PLY_MAX_MESSAGE_BYTES) rp.n_worker++;
    assert_null(ply_msg_encode(&msg));
    free(w);
    free(wp);
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t i = 0;
    for (; v >= 0x80; v >>= 7) p[i++] = (uint8_t)(v | 0x80);
    p[i++] = (uint8_t)v;
    return i;
}

/* A Message whose body field @field (length-delimited) holds @unit repeated to ~1 MiB. */
static size_t amplifier(uint8_t *buf, unsigned field, const uint8_t *unit, size_t unit_len)
{
    size_t n = 0, inner = (PLY_MAX_MESSAGE_BYTES - 16) / unit_len * unit_len;
    buf[n++] = (uint8_t)(field << 3 | 2);
    n += put_varint(buf + n, inner);
    for (size_t k = 0; k < inner; k += unit_len) memcpy(buf + n + k, unit, unit_len);
    return n + inner;
}

/*
 * Tiny repeated entries cost ~100 times their wire size once unpacked; the
 * decoder's allocation budget refuses them, while the largest legitimate
 * shapes still decode.
 */
static void test_unpack_budget(void **state)
{
    (void)state;
    uint8_t *buf = malloc(PLY_MAX_MESSAGE_BYTES);
    char why[256];
    static const uint8_t empty_worker[] = {0x4a, 0x00};             /* RunProgress.worker {} */
    static const uint8_t empty_divide[] = {0x32, 0x00};             /* RunResult.divide {} */
    static const uint8_t stats_divide[] = {0x32, 0x02, 0x1a, 0x00}; /* divide { stats {} } */
    static const uint8_t unknown[] = {0xa0, 0x01, 0x00};            /* field 20 = 0 */
    size_t n = amplifier(buf, 13, empty_worker, sizeof empty_worker);
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, buf, n, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "times"));
    n = amplifier(buf, 14, empty_divide, sizeof empty_divide);
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, buf, n, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "times"));
    n = amplifier(buf, 14, stats_divide, sizeof stats_divide);
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, buf, n, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "times"));
    /* a Heartbeat needs no field, so only the budget stops this one */
    n = amplifier(buf, 7, unknown, sizeof unknown);
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, buf, n, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "times"));
    free(buf);

    /* legitimate extremes: ~1 MiB of workers known only by id; a full divide with stats */
    static Ply__RunProgress rp;
    rp = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    rp.has_run_id = 1, rp.run_id = 1, rp.state = "running";
    size_t nw = (PLY_MAX_MESSAGE_BYTES - 64) / 15; /* 15 wire bytes per entry */
    Ply__WorkerStatus *w = calloc(nw, sizeof *w), **wp = calloc(nw, sizeof *wp);
    for (size_t i = 0; i < nw; i++) {
        w[i] = (Ply__WorkerStatus)PLY__WORKER_STATUS__INIT;
        w[i].worker_id = "node07:4242";
        wp[i] = &w[i];
    }
    rp.n_worker = nw, rp.worker = wp;
    ply_msg_t msg = PLY__MESSAGE__INIT;
    msg.body_case = PLY__MESSAGE__BODY_RUN_PROGRESS, msg.run_progress = &rp;
    zmsg_t *z = ply_msg_encode(&msg);
    assert_non_null(z);
    assert_int_equal(ply_msg_decode(z, NULL, why, sizeof why), 0);
    zmsg_destroy(&z);
    free(w);
    free(wp);

    static Ply__Stats st[PLY_MAX_DIVIDE];
    ply_msg_t *m = result_with_entries(PLY_MAX_DIVIDE);
    ply_stats_t full;
    for (int i = 0; i < PLY_STATS_N; i++) full.v[i] = 1000000;
    for (size_t i = 0; i < PLY_MAX_DIVIDE; i++) {
        st[i] = (Ply__Stats)PLY__STATS__INIT;
        ply_msg_stats_to_proto(&st[i], &full);
        m->result->divide[i]->stats = &st[i];
        m->result->divide[i]->move = "a7a8q";
    }
    z = ply_msg_encode(m);
    assert_int_equal(ply_msg_decode(z, NULL, why, sizeof why), 0);
    zmsg_destroy(&z);
}

static void test_wrong_protocol_id(void **state)
{
    (void)state;
    size_t n;
    uint8_t *bytes = load_hex("ready", &n);
    static const char *ids[] = {"PLY/1", "ply/2", "PLY/20", "PLY/", "PLY/2 ", "HTTP/1.1", "\"\\"};
    char why[256];
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        assert_int_equal(decode_bytes(ids[i], bytes, n, why, sizeof why), PLY_EVERSION);
        assert_non_null(strstr(why, "supported \"PLY/2\""));
        assert_null(strstr(why, "upgrade")); /* not a Hello: no worker to name */
        assert_true(one_line(why));
    }
    assert_int_equal(decode_bytes("PLY/1", bytes, n, why, sizeof why), PLY_EVERSION);
    assert_non_null(strstr(why, "\"PLY/1\""));

    /* a worker of PLY/1 says HELLO (its fields kept their numbers): named, with both versions */
    ply_msg_t *hello = build_hello();
    hello->hello->protocol = 1, hello->hello->n_kinds = 0;
    hello->hello->worker_id = "old\nworker"; /* quoted as text that a log line takes */
    size_t hn = ply__message__get_packed_size(hello);
    uint8_t *hb = malloc(hn);
    ply__message__pack(hello, hb);
    assert_int_equal(decode_bytes("PLY/1", hb, hn, why, sizeof why), PLY_EVERSION);
    assert_non_null(strstr(why, "supported \"PLY/2\": worker old worker speaks PLY/1, this ply "
                                "PLY/2: upgrade the worker"));
    assert_true(one_line(why));
    /* not "PLY/N": no attempt to read the body */
    assert_int_equal(decode_bytes("HTTP/1.1", hb, hn, why, sizeof why), PLY_EVERSION);
    assert_null(strstr(why, "upgrade"));
    free(hb);
    /* a client of PLY/1 (`ply perft`): told to upgrade ply */
    ply_msg_t *sub = build_submit();
    hn = ply__message__get_packed_size(sub);
    hb = malloc(hn);
    ply__message__pack(sub, hb);
    assert_int_equal(decode_bytes("PLY/1", hb, hn, why, sizeof why), PLY_EVERSION);
    assert_non_null(strstr(why, ": a client (SUBMIT) speaks PLY/1, this ply PLY/2: upgrade ply"));
    free(hb);
    assert_int_equal(decode_bytes("\"\\", bytes, n, why, sizeof why), PLY_EVERSION);
    assert_non_null(strstr(why, "\"\\x22\\x5c\""));

    /* "PLY/1\0": same prefix, one more byte; binary ids are escaped and cut short */
    uint8_t id[2000];
    for (size_t i = 0; i < sizeof id; i++) id[i] = (uint8_t)(i * 37 + 10);
    memcpy(id, "PLY/1", 6);
    zmsg_t *z = zmsg_new();
    zmsg_addmem(z, id, 6);
    zmsg_addmem(z, bytes, n);
    assert_int_equal(ply_msg_decode(z, NULL, why, sizeof why), PLY_EVERSION);
    assert_non_null(strstr(why, "\"PLY/1\\x00\" (6 bytes)"));
    zmsg_destroy(&z);
    z = zmsg_new();
    zmsg_addmem(z, id + 6, sizeof id - 6);
    zmsg_addmem(z, bytes, n);
    assert_int_equal(ply_msg_decode(z, NULL, why, sizeof why), PLY_EVERSION);
    assert_true(one_line(why));
    assert_non_null(strstr(why, "...\" (1994 bytes)"));
    assert_true(strlen(why) < 200);
    /* tiny and absent reason buffers are safe */
    for (size_t len = 0; len < 8; len++) {
        char tiny[8];
        memset(tiny, 'x', sizeof tiny);
        assert_int_equal(ply_msg_decode(z, NULL, len ? tiny : NULL, len), PLY_EVERSION);
        if (len) assert_int_equal(strlen(tiny), len - 1);
    }
    /* a wrong id wins over a wrong frame count: the peer learns what we speak */
    zmsg_addmem(z, bytes, n);
    assert_int_equal(ply_msg_decode(z, NULL, why, sizeof why), PLY_EVERSION);
    zmsg_destroy(&z);
    free(bytes);
}

static void test_no_body(void **state)
{
    (void)state;
    char why[256];
    /* field 99 (unknown), varint 1: a Message whose oneof is not set */
    static const uint8_t unknown[] = {0x98, 0x06, 0x01};
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, unknown, sizeof unknown, why, sizeof why),
                     PLY_EPROTO);
    assert_non_null(strstr(why, "no body"));

    ply_msg_t msg = PLY__MESSAGE__INIT;
    assert_int_equal(ply_msg_validate(&msg, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "no body"));
    assert_null(ply_msg_encode(&msg));
    assert_null(ply_msg_encode(NULL));
    assert_int_equal(ply_msg_validate(NULL, why, sizeof why), PLY_EPROTO);
    msg.body_case = PLY__MESSAGE__BODY_JOB; /* case set, pointer NULL */
    assert_int_equal(ply_msg_validate(&msg, why, sizeof why), PLY_EPROTO);
    assert_non_null(strstr(why, "JOB: body missing"));
    assert_null(ply_msg_encode(&msg));
    msg.body_case = (Ply__Message__BodyCase)99;
    assert_int_equal(ply_msg_validate(&msg, why, sizeof why), PLY_EPROTO);
    assert_null(ply_msg_encode(&msg));
    assert_string_equal(ply_msg_type_name(&msg), "UNKNOWN");
    msg.body_case = PLY__MESSAGE__BODY__NOT_SET;
    assert_string_equal(ply_msg_type_name(&msg), "NONE");
    assert_string_equal(ply_msg_type_name(NULL), "NONE");

    /* an empty Heartbeat and an empty StatusRequest are complete messages */
    static const uint8_t hb[] = {0x3a, 0x00}, st[] = {0x62, 0x00};
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, hb, sizeof hb, why, sizeof why), 0);
    assert_int_equal(decode_bytes(PLY_PROTOCOL_ID, st, sizeof st, why, sizeof why), 0);
}

/* ------------------------------------------------------- validation tests */

/* Text fixtures for the mutations below. */
static char long_text[PLY_MAX_TEXT + 2];   /* PLY_MAX_TEXT + 1 bytes */
static char max_text[PLY_MAX_TEXT + 1];    /* exactly PLY_MAX_TEXT bytes */
static char long_fen[PLY_MAX_FEN_LEN + 2]; /* PLY_MAX_FEN_LEN + 1 bytes */
static char max_fen[PLY_MAX_FEN_LEN + 1];  /* exactly PLY_MAX_FEN_LEN */

static void init_texts(void)
{
    memset(long_text, 'a', PLY_MAX_TEXT + 1);
    memset(max_text, 'a', PLY_MAX_TEXT);
    /* a three-byte character ending exactly at the limit */
    memcpy(max_text + PLY_MAX_TEXT - 3, "\xe2\x82\xac", 3);
    memset(long_fen, '8', PLY_MAX_FEN_LEN + 1);
    memset(max_fen, '8', PLY_MAX_FEN_LEN);
}

/*
 * One case: start from the golden message of @file, apply @edit, expect @rc
 * and (for errors) a reason starting with @reason. Each edit is a tiny
 * function so that a table can name it.
 */
typedef struct vcase {
    const char *file;
    void (*edit)(ply_msg_t *m);
    int rc;
    const char *reason;
} vcase_t;

/* EDIT(name, statement): a function of the message m that applies the statement to it. */
#define EDIT(name, statement)                                                                      \
    static void name(ply_msg_t *m)                                                                 \
    {                                                                                              \
        statement;                                                                                 \
    }

EDIT(hello_no_id, m->hello->worker_id = NULL)
EDIT(hello_empty_id, m->hello->worker_id = "")
EDIT(hello_long_id, m->hello->worker_id = long_text)
EDIT(hello_max_id, m->hello->worker_id = max_text)
EDIT(hello_newline_id, m->hello->worker_id = "node07\nFAKE LOG LINE")
EDIT(hello_no_protocol, m->hello->has_protocol = 0)
EDIT(hello_protocol_1, m->hello->protocol = 1) /* a PLY/1 worker's */
EDIT(hello_bad_build, m->hello->build = "gcc \xff\xfe")
EDIT(hello_overlong_utf8, m->hello->build = "slash \xc0\xaf")
EDIT(hello_surrogate, m->hello->build = "\xed\xa0\x80")
EDIT(hello_emoji, m->hello->build = "ply \xf0\x9f\x90\xb4 ok")
EDIT(hello_no_build, m->hello->build = NULL)
EDIT(hello_no_threads, m->hello->has_threads = 0)
EDIT(hello_threads_0, m->hello->threads = 0)
EDIT(hello_threads_max, m->hello->threads = 4096)
EDIT(hello_threads_over, m->hello->threads = 4097)
EDIT(hello_no_hash, m->hello->has_hash_mib = 0)
EDIT(hello_no_zobrist, m->hello->has_zobrist_checksum = 0)
EDIT(hello_no_seed, m->hello->has_zobrist_seed = 0)
EDIT(welcome_no_hb, m->welcome->has_heartbeat_ms = 0)
EDIT(welcome_hb_0, m->welcome->heartbeat_ms = 0)
EDIT(welcome_hb_max, m->welcome->heartbeat_ms = 600000)
EDIT(welcome_hb_over, m->welcome->heartbeat_ms = 600001)
EDIT(welcome_no_live, m->welcome->has_liveness = 0)
EDIT(welcome_live_0, m->welcome->liveness = 0)
EDIT(welcome_live_over, m->welcome->liveness = 1001)
EDIT(ready_no_credit, m->ready->has_credit = 0)
EDIT(ready_credit_0, m->ready->credit = 0)
EDIT(ready_credit_max, m->ready->credit = PLY_MAX_CREDIT)
EDIT(ready_credit_over, m->ready->credit = PLY_MAX_CREDIT + 1)
EDIT(job_no_id, m->job->has_job_id = 0)
EDIT(job_id_0, m->job->job_id = 0)
EDIT(job_no_attempt, m->job->has_attempt = 0)
EDIT(job_attempt_0, m->job->attempt = 0)
EDIT(job_no_kind, m->job->has_kind = 0)
EDIT(job_kind_0, m->job->kind = PLY__JOB_KIND__JOB_KIND_UNSPECIFIED)
EDIT(job_kind_7, m->job->kind = 7)
/* a kind of the registry (any number): its job travels in other, which the envelope passes */
EDIT(job_kind_7_other, (m->job->kind = 7, m->job->perft = NULL, m->job->has_other = 1,
                        m->job->other.len = 3, m->job->other.data = (uint8_t *)"\x08\x01\x10"))
EDIT(job_kind_7_no_other, (m->job->kind = 7, m->job->perft = NULL))
EDIT(job_kind_max_other, (m->job->kind = UINT32_MAX, m->job->perft = NULL, m->job->has_other = 1))
EDIT(job_no_perft, m->job->perft = NULL)
EDIT(job_perft_other, m->job->has_other = 1)
EDIT(job_no_fen, m->job->perft->fen = NULL)
EDIT(job_empty_fen, m->job->perft->fen = "")
EDIT(job_long_fen, m->job->perft->fen = long_fen)
EDIT(job_max_fen, m->job->perft->fen = max_fen)
EDIT(job_tab_fen, m->job->perft->fen = "8/8/8/8/8/8/8/K1k5\tw - - 0 1")
EDIT(job_utf8_fen, m->job->perft->fen = "8/8/8/8/8/8/8/K1k5 w - - 0 1 \xc3\xa9")
EDIT(job_no_depth, m->job->perft->has_depth = 0)
EDIT(job_depth_0, m->job->perft->depth = 0)
EDIT(job_depth_max, m->job->perft->depth = PLY_MAX_JOB_DEPTH)
EDIT(job_depth_over, m->job->perft->depth = PLY_MAX_JOB_DEPTH + 1)
EDIT(job_no_run, m->job->has_run_id = 0)
EDIT(job_run_0, m->job->run_id = 0)
EDIT(progress_no_id, m->progress->has_job_id = 0)
EDIT(progress_no_attempt, m->progress->has_attempt = 0)
EDIT(progress_attempt_0, m->progress->attempt = 0)
EDIT(progress_no_nodes, m->progress->has_nodes = 0)
EDIT(result_no_id, m->result->has_job_id = 0)
EDIT(result_id_0, m->result->job_id = 0)
EDIT(result_no_attempt, m->result->has_attempt = 0)
EDIT(result_no_nodes, m->result->has_nodes = 0)
EDIT(result_no_perft1, m->result->has_perft1 = 0)
EDIT(result_perft1_max, m->result->perft1 = PLY_MAX_DIVIDE)
EDIT(result_perft1_over, m->result->perft1 = PLY_MAX_DIVIDE + 1)
EDIT(result_no_time, m->result->has_time_us = 0)
EDIT(result_no_stats, m->result->stats = NULL)
EDIT(result_divide_max, m->result = result_with_entries(PLY_MAX_DIVIDE)->result)
EDIT(result_divide_over, m->result = result_with_entries(PLY_MAX_DIVIDE + 1)->result)
EDIT(result_divide_none, m->result->n_divide = 0)
EDIT(result_move_rank9, m->result->divide[1]->move = "e2e9")
EDIT(result_move_king, m->result->divide[2]->move = "b7b8k")
EDIT(result_move_short, m->result->divide[0]->move = "e2e")
EDIT(result_move_long, m->result->divide[0]->move = "e2e4qq")
EDIT(result_move_upper, m->result->divide[0]->move = "E2E4")
EDIT(result_move_null, m->result->divide[0]->move = "0000")
EDIT(result_move_missing, m->result->divide[0]->move = NULL)
EDIT(result_entry_no_nodes, m->result->divide[2]->has_nodes = 0)
/* 128-bit sums (fields 40-49): hi words of one job's counts are absent or 0; a run's any */
static uint64_t hi_words[PLY_STATS_N] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
EDIT(result_stats_hi, (m->result->stats->n_hi = PLY_STATS_N, m->result->stats->hi = hi_words))
EDIT(result_entry_hi, (m->result->divide[0]->has_nodes_hi = 1, m->result->divide[0]->nodes_hi = 1))
EDIT(result_entry_hi_0,
     (m->result->divide[0]->has_nodes_hi = 1, m->result->divide[0]->nodes_hi = 0))
EDIT(run_result_hi,
     (m->run_result->has_nodes_hi = 1, m->run_result->nodes_hi = 109,
      m->run_result->divide[0]->has_nodes_hi = 1, m->run_result->divide[0]->nodes_hi = UINT64_MAX))
EDIT(run_result_stats_hi,
     (m->run_result->stats->n_hi = PLY_STATS_N, m->run_result->stats->hi = hi_words))
EDIT(run_result_stats_hi_short,
     (m->run_result->stats->n_hi = 3, m->run_result->stats->hi = hi_words))
EDIT(run_result_entry_stats_hi_long, (m->run_result->divide[1]->stats->n_hi = PLY_STATS_N + 1,
                                      m->run_result->divide[1]->stats->hi = hi_words))
EDIT(error_no_code, m->error->has_code = 0)
EDIT(error_code_0, m->error->code = 0)
EDIT(error_code_pos, m->error->code = 5)
EDIT(error_code_min, m->error->code = INT32_MIN)
EDIT(error_no_message, m->error->message = NULL)
EDIT(error_empty_message, m->error->message = "")
EDIT(error_long_message, m->error->message = long_text)
EDIT(error_bad_supported, m->error->supported = "PLY/1\r\n")
EDIT(bye_long, m->bye->reason = long_text)
EDIT(bye_escape, m->bye->reason = "\x1b[31mred")
EDIT(bye_none, m->bye->reason = NULL)
EDIT(submit_no_kind, m->submit->has_kind = 0)
EDIT(submit_kind_0, m->submit->kind = 0)
EDIT(submit_no_perft, m->submit->perft = NULL)
EDIT(submit_kind_9_other, (m->submit->kind = 9, m->submit->perft = NULL, m->submit->has_other = 1))
EDIT(submit_kind_9_no_other, (m->submit->kind = 9, m->submit->perft = NULL))
EDIT(submit_kind_9_perft, (m->submit->kind = 9, m->submit->has_other = 1))
EDIT(submit_no_fen, m->submit->perft->fen = NULL)
EDIT(submit_no_depth, m->submit->perft->has_depth = 0)
EDIT(submit_depth_0, m->submit->perft->depth = 0)
EDIT(submit_depth_max, m->submit->perft->depth = PLY_MAX_DEPTH)
EDIT(submit_depth_over, m->submit->perft->depth = PLY_MAX_DEPTH + 1)
EDIT(submit_split_low, m->submit->perft->split_depth = -2)
EDIT(submit_split_top, m->submit->perft->split_depth = 6)
EDIT(submit_split_over, m->submit->perft->split_depth = 7)
EDIT(submit_split_absent,
     (m->submit->perft->has_split_depth = 0, m->submit->perft->split_depth = 99))
EDIT(submit_long_client, m->submit->client_id = long_text)
EDIT(accepted_no_run, m->accepted->has_run_id = 0)
EDIT(accepted_run_0, m->accepted->run_id = 0)
EDIT(accepted_no_jobs, m->accepted->has_jobs = 0)
EDIT(accepted_jobs_0, m->accepted->jobs = 0)
EDIT(accepted_no_split, m->accepted->has_split_depth = 0)
EDIT(accepted_split_over, m->accepted->split_depth = PLY_MAX_DEPTH + 1)
EDIT(accepted_bad_fen, m->accepted->fen = "8/8\x01")
EDIT(accepted_no_fen, m->accepted->fen = NULL)
EDIT(status_empty, m->status->has_run_id = 0)
EDIT(heartbeat_empty,
     (m->heartbeat->has_nodes = m->heartbeat->has_job_id = 0, m->heartbeat->has_attempt = 0))
EDIT(progress_run_no_run, m->run_progress->has_run_id = 0)
EDIT(progress_run_no_state, m->run_progress->state = NULL)
EDIT(progress_run_bad_worker, m->run_progress->worker[1]->worker_id = "a\x7f")
EDIT(progress_run_no_workers, m->run_progress->n_worker = 0)
EDIT(run_result_no_run, m->run_result->has_run_id = 0)
EDIT(run_result_no_fen, m->run_result->fen = NULL)
EDIT(run_result_no_depth, m->run_result->has_depth = 0)
EDIT(run_result_depth_over, m->run_result->depth = PLY_MAX_DEPTH + 1)
EDIT(run_result_no_nodes, m->run_result->has_nodes = 0)
EDIT(run_result_bad_move, m->run_result->divide[1]->move = "g1f3n5")
EDIT(run_result_bad_detail, m->run_result->verification->detail[1] = "\xc0\xaf")
EDIT(run_result_long_mode, m->run_result->verification->mode = long_text)
static char *bad_exclusion[PLY_MAX_EXCLUSIONS + 1] = {"worker w (curve:K): caught \x1b[31m"};
EDIT(run_result_bad_exclusion, (m->run_result->verification->n_exclusion = 1,
                                m->run_result->verification->exclusion = bad_exclusion))
static char *many_exclusions[PLY_MAX_EXCLUSIONS + 1];
static void run_result_many_exclusions(ply_msg_t *m)
{
    for (int i = 0; i <= PLY_MAX_EXCLUSIONS; i++) many_exclusions[i] = "w (conn:00): caught";
    m->run_result->verification->n_exclusion = PLY_MAX_EXCLUSIONS + 1;
    m->run_result->verification->exclusion = many_exclusions;
}
EDIT(run_result_bad_identity,
     m->run_result->verification->mismatch[0]->computation[0]->identity = "conn:\x7f")
EDIT(run_result_no_verif, m->run_result->verification = NULL)
/* RunAsked (what a run computes), attached to the answers that may carry it */
static Ply__RunAsked g_asked;
static Ply__PerftRequest g_asked_perft;
static Ply__RunAsked *asked_ok(void)
{
    g_asked_perft = (Ply__PerftRequest)PLY__PERFT_REQUEST__INIT;
    g_asked_perft.fen = (char *)STARTFEN;
    g_asked_perft.has_depth = 1, g_asked_perft.depth = 7;
    g_asked_perft.has_split_depth = 1, g_asked_perft.split_depth = -1;
    g_asked = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    g_asked.has_kind = 1, g_asked.kind = PLY__JOB_KIND__JOB_KIND_PERFT;
    g_asked.perft = &g_asked_perft;
    g_asked.has_verify = 1, g_asked.verify = PLY__VERIFY_MODE__VERIFY_MODE_NONE;
    return &g_asked;
}
EDIT(submit_short_token, m->submit->owner_token = "0123456789abcde")
EDIT(submit_token, m->submit->owner_token = "0123456789abcdef")
EDIT(status_token_space, m->status->owner_token = "0123456789 abcdef")
EDIT(result_request_long_token, m->result_request->owner_token = long_text)
EDIT(cancel_token_utf8, m->cancel->owner_token = "0123456789abcdef\xc3\xa9")
EDIT(accepted_asked, m->accepted->asked = asked_ok())
EDIT(accepted_asked_no_fen, (m->accepted->asked = asked_ok())->perft->fen = NULL)
EDIT(accepted_asked_long_fen, (m->accepted->asked = asked_ok())->perft->fen = long_fen)
EDIT(accepted_asked_no_kind, (m->accepted->asked = asked_ok())->has_kind = 0)
EDIT(accepted_asked_no_perft, (m->accepted->asked = asked_ok())->perft = NULL)
EDIT(accepted_asked_other, (m->accepted->asked = asked_ok(), g_asked.kind = 12,
                            g_asked.perft = NULL, g_asked.has_other = 1))
EDIT(accepted_asked_other_missing,
     (m->accepted->asked = asked_ok(), g_asked.kind = 12, g_asked.perft = NULL))
EDIT(run_result_asked_no_depth, (m->run_result->asked = asked_ok())->perft->has_depth = 0)
EDIT(run_result_asked_no_split, (m->run_result->asked = asked_ok())->perft->has_split_depth = 0)
EDIT(run_result_asked_split_over, (m->run_result->asked = asked_ok())->perft->split_depth = 7)
EDIT(run_result_asked_split_under, (m->run_result->asked = asked_ok())->perft->split_depth = -2)
/* another kind's answer: its bytes in other, none of perft's or search's fields */
EDIT(run_result_other, (m->run_result->has_other = 1, m->run_result->n_divide = 0,
                        m->run_result->stats = NULL, m->run_result->has_depth = 0))
EDIT(run_result_other_divide, (m->run_result->has_other = 1, m->run_result->stats = NULL))
EDIT(result_other,
     (m->result->has_other = 1, m->result->has_nodes = 0, m->result->stats = NULL,
      m->result->has_perft1 = 0, m->result->n_divide = 0, m->result->has_tt_nodes = 0))
EDIT(result_other_nodes,
     (m->result->has_other = 1, m->result->stats = NULL, m->result->has_perft1 = 0,
      m->result->n_divide = 0, m->result->has_tt_nodes = 0))
EDIT(run_result_tail_ok, (m->run_result->has_tail_ms = 1, m->run_result->tail_ms = 12345))
EDIT(run_result_tail_over, (m->run_result->has_tail_ms = 1, m->run_result->tail_ms = 12346))
EDIT(run_result_tail_no_time, (m->run_result->has_time_ms = 0, m->run_result->has_tail_ms = 1,
                               m->run_result->tail_ms = 1))
EDIT(progress_asked_verify_bad, (m->run_progress->asked = asked_ok())->verify = (Ply__VerifyMode)3)
EDIT(progress_asked_sample_no_ppm,
     (m->run_progress->asked = asked_ok())->verify = PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
EDIT(progress_asked_ppm_without, asked_ok()->has_verify_ppm = 1; g_asked.verify_ppm = 5;
     m->run_progress->asked = &g_asked)
EDIT(progress_asked_sample, asked_ok()->verify = PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE;
     g_asked.has_verify_ppm = 1; g_asked.verify_ppm = 5; m->run_progress->asked = &g_asked)
EDIT(result_request_no_run, m->result_request->has_run_id = 0)
EDIT(result_request_run_0, m->result_request->run_id = 0)
EDIT(cancel_no_run, m->cancel->has_run_id = 0)
EDIT(cancel_run_0, m->cancel->run_id = 0)
/* the coordinator's Cancel to a worker names the attempt to stop: job_id and attempt together */
EDIT(cancel_to_worker, (m->cancel->has_job_id = 1, m->cancel->job_id = 5,
                        m->cancel->has_attempt = 1, m->cancel->attempt = 2))
EDIT(cancel_job_no_attempt, (m->cancel->has_job_id = 1, m->cancel->job_id = 5))
EDIT(cancel_attempt_no_job, (m->cancel->has_attempt = 1, m->cancel->attempt = 2))
EDIT(cancel_job_0, (m->cancel->has_job_id = 1, m->cancel->job_id = 0, m->cancel->has_attempt = 1,
                    m->cancel->attempt = 2))
EDIT(cancel_attempt_0, (m->cancel->has_job_id = 1, m->cancel->job_id = 5,
                        m->cancel->has_attempt = 1, m->cancel->attempt = 0))
EDIT(submit_verify_bad, m->submit->verify = (Ply__VerifyMode)3)
EDIT(submit_sample_no_ppm, m->submit->has_verify_ppm = 0)
EDIT(submit_sample_ppm_0, m->submit->verify_ppm = 0)
EDIT(submit_sample_ppm_over, m->submit->verify_ppm = PLY_PPM + 1)
EDIT(submit_all_with_ppm, m->submit->verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL)
EDIT(submit_all,
     (m->submit->verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL, m->submit->has_verify_ppm = 0))
EDIT(progress_run_bad_fen, m->run_progress->fen = "rnbqkbnr\n")
EDIT(progress_run_bad_error, m->run_progress->error = long_text)
EDIT(run_result_bad_summary, m->run_result->verification->summary = "two\nlines")
/* Lists one entry longer than allowed, every entry the golden one (they must still pack). */
static void run_result_many_mismatches(ply_msg_t *m)
{
    static Ply__Mismatch *many[PLY_MAX_MISMATCHES + 1];
    for (size_t i = 0; i <= PLY_MAX_MISMATCHES; i++)
        many[i] = m->run_result->verification->mismatch[0];
    m->run_result->verification->mismatch = many;
    m->run_result->verification->n_mismatch = PLY_MAX_MISMATCHES + 1;
}

static void run_result_many_computations(ply_msg_t *m)
{
    static Ply__Computation *many[PLY_MAX_COMPUTATIONS + 1];
    Ply__Mismatch *x = m->run_result->verification->mismatch[0];
    for (size_t i = 0; i <= PLY_MAX_COMPUTATIONS; i++) many[i] = x->computation[i % 2];
    x->computation = many;
    x->n_computation = PLY_MAX_COMPUTATIONS + 1;
}
EDIT(run_result_mismatch_fen, m->run_result->verification->mismatch[0]->fen = long_fen)
EDIT(run_result_computation_id,
     m->run_result->verification->mismatch[0]->computation[1]->worker_id = "a\tb")
EDIT(status_reply_run_no_state, m->status_reply->run[0]->state = NULL)
EDIT(status_reply_bad_worker, m->status_reply->worker[0]->worker_id = "\x1b[31m")
EDIT(status_reply_bad_identity, m->status_reply->worker[0]->identity = "curve:\x1b[31m")
EDIT(progress_run_bad_identity, m->run_progress->worker[1]->identity = "conn:\n")
EDIT(status_reply_empty, (m->status_reply->n_run = 0, m->status_reply->n_worker = 0))

static const vcase_t VCASES[] = {
    {"hello", hello_no_id, PLY_EPROTO, "HELLO: field worker_id missing"},
    {"hello", hello_empty_id, PLY_EPROTO, "HELLO: field worker_id is 0 bytes, must be 1..512"},
    {"hello", hello_long_id, PLY_EPROTO, "HELLO: field worker_id is over 512 bytes"},
    {"hello", hello_max_id, 0, NULL},
    {"hello", hello_newline_id, PLY_EPROTO, "HELLO: field worker_id has a control character"},
    {"hello", hello_no_protocol, PLY_EPROTO, "HELLO: field protocol missing"},
    {"hello", hello_protocol_1, PLY_EPROTO, "HELLO: field protocol = 1, must be 2"},
    {"hello", hello_bad_build, PLY_EPROTO, "HELLO: field build has a control character or invalid"},
    {"hello", hello_overlong_utf8, PLY_EPROTO, "HELLO: field build has"},
    {"hello", hello_surrogate, PLY_EPROTO, "HELLO: field build has"},
    {"hello", hello_emoji, 0, NULL},
    {"hello", hello_no_build, 0, NULL},
    {"hello", hello_no_threads, PLY_EPROTO, "HELLO: field threads missing"},
    {"hello", hello_threads_0, PLY_EPROTO, "HELLO: field threads = 0, must be 1..4096"},
    {"hello", hello_threads_max, 0, NULL},
    {"hello", hello_threads_over, PLY_EPROTO, "HELLO: field threads = 4097, must be 1..4096"},
    {"hello", hello_no_hash, PLY_EPROTO, "HELLO: field hash_mib missing"},
    {"hello", hello_no_zobrist, PLY_EPROTO, "HELLO: field zobrist_checksum missing"},
    {"hello", hello_no_seed, 0, NULL},
    {"welcome", welcome_no_hb, PLY_EPROTO, "WELCOME: field heartbeat_ms missing"},
    {"welcome", welcome_hb_0, PLY_EPROTO, "WELCOME: field heartbeat_ms = 0, must be 1..600000"},
    {"welcome", welcome_hb_max, 0, NULL},
    {"welcome", welcome_hb_over, PLY_EPROTO, "WELCOME: field heartbeat_ms = 600001"},
    {"welcome", welcome_no_live, PLY_EPROTO, "WELCOME: field liveness missing"},
    {"welcome", welcome_live_0, PLY_EPROTO, "WELCOME: field liveness = 0, must be 1..1000"},
    {"welcome", welcome_live_over, PLY_EPROTO, "WELCOME: field liveness = 1001"},
    {"ready", ready_no_credit, PLY_EPROTO, "READY: field credit missing"},
    {"ready", ready_credit_0, PLY_EPROTO, "READY: field credit = 0, must be 1..1024"},
    {"ready", ready_credit_max, 0, NULL},
    {"ready", ready_credit_over, PLY_EPROTO, "READY: field credit = 1025, must be 1..1024"},
    {"job", job_no_id, PLY_EPROTO, "JOB: field job_id missing"},
    {"job", job_id_0, PLY_EPROTO, "JOB: field job_id = 0, must be at least 1"},
    {"job", job_no_attempt, PLY_EPROTO, "JOB: field attempt missing"},
    {"job", job_attempt_0, PLY_EPROTO, "JOB: field attempt = 0, must be at least 1"},
    {"job", job_no_kind, PLY_EPROTO, "JOB: field kind missing"},
    {"job", job_kind_0, PLY_EPROTO, "JOB: field kind = 0, must be 1..4294967295"},
    {"job", job_kind_7, PLY_EPROTO, "JOB: field perft present in a job of kind 7"},
    {"job", job_kind_7_other, 0, NULL},
    {"job", job_kind_7_no_other, PLY_EPROTO,
     "JOB: field other missing (kind 7 is not one proto/ describes: its job travels in other)"},
    {"job", job_kind_max_other, 0, NULL},
    {"job", job_no_perft, PLY_EPROTO, "JOB: field perft missing (kind PERFT)"},
    {"job", job_perft_other, PLY_EPROTO, "JOB: field other present in a PERFT job"},
    {"job", job_no_fen, PLY_EPROTO, "JOB: field perft.fen missing"},
    {"job", job_empty_fen, PLY_EPROTO, "JOB: field perft.fen is 0 bytes, must be 1..128"},
    {"job", job_long_fen, PLY_EPROTO, "JOB: field perft.fen is over 128 bytes"},
    {"job", job_max_fen, 0, NULL},
    {"job", job_tab_fen, PLY_EPROTO, "JOB: field perft.fen has a byte that is not printable ASCII"},
    {"job", job_utf8_fen, PLY_EPROTO,
     "JOB: field perft.fen has a byte that is not printable ASCII"},
    {"job", job_no_depth, PLY_EPROTO, "JOB: field perft.depth missing"},
    {"job", job_depth_0, PLY_EPROTO, "JOB: field perft.depth = 0, must be 1..16"},
    {"job", job_depth_max, 0, NULL},
    {"job", job_depth_over, PLY_EPROTO, "JOB: field perft.depth = 17, must be 1..16"},
    {"job", job_no_run, PLY_EPROTO, "JOB: field run_id missing"},
    {"job", job_run_0, PLY_EPROTO, "JOB: field run_id = 0"},
    {"progress", progress_no_id, PLY_EPROTO, "PROGRESS: field job_id missing"},
    {"progress", progress_no_attempt, PLY_EPROTO, "PROGRESS: field attempt missing"},
    {"progress", progress_attempt_0, PLY_EPROTO, "PROGRESS: field attempt = 0"},
    {"progress", progress_no_nodes, PLY_EPROTO, "PROGRESS: field nodes missing"},
    {"result", result_no_id, PLY_EPROTO, "RESULT: field job_id missing"},
    {"result", result_id_0, PLY_EPROTO, "RESULT: field job_id = 0"},
    {"result", result_no_attempt, PLY_EPROTO, "RESULT: field attempt missing"},
    {"result", result_no_nodes, PLY_EPROTO, "RESULT: field nodes missing"},
    {"result", result_no_perft1, PLY_EPROTO, "RESULT: field perft1 missing"},
    {"result", result_perft1_max, 0, NULL},
    {"result", result_perft1_over, PLY_EPROTO, "RESULT: field perft1 = 257, must be 0..256"},
    {"result", result_no_time, PLY_EPROTO, "RESULT: field time_us missing"},
    {"result", result_no_stats, 0, NULL},
    {"result", result_divide_max, 0, NULL},
    {"result", result_divide_over, PLY_EPROTO, "RESULT: field divide has 257 entries"},
    {"result", result_divide_none, 0, NULL},
    {"result", result_move_rank9, PLY_EPROTO, "RESULT: field divide[1].move is not a UCI move"},
    {"result", result_move_king, PLY_EPROTO, "RESULT: field divide[2].move is not a UCI move"},
    {"result", result_move_short, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_long, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_upper, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_null, PLY_EPROTO, "RESULT: field divide[0].move is not a UCI move"},
    {"result", result_move_missing, PLY_EPROTO, "RESULT: field divide[0].move missing"},
    {"result", result_entry_no_nodes, PLY_EPROTO, "RESULT: field divide[2].nodes missing"},
    {"result", result_stats_hi, PLY_EPROTO,
     "RESULT: field stats.hi present: one job's counts fit in 64 bits"},
    {"result", result_entry_hi, PLY_EPROTO,
     "RESULT: field divide[0].nodes_hi = 1: one job's counts fit in 64 bits"},
    {"result", result_entry_hi_0, 0, NULL},
    {"run_result", run_result_hi, 0, NULL},
    {"run_result", run_result_stats_hi, 0, NULL},
    {"run_result", run_result_stats_hi_short, PLY_EPROTO,
     "RUN_RESULT: field stats.hi has 3 words, must be 0 or 15"},
    {"run_result", run_result_entry_stats_hi_long, PLY_EPROTO,
     "RUN_RESULT: field divide[1].stats.hi has 16 words, must be 0 or 15"},
    {"error", error_no_code, PLY_EPROTO, "ERROR: field code missing"},
    {"error", error_code_0, PLY_EPROTO, "ERROR: field code = 0, must be negative"},
    {"error", error_code_pos, PLY_EPROTO, "ERROR: field code = 5, must be negative"},
    {"error", error_code_min, 0, NULL},
    {"error", error_no_message, PLY_EPROTO, "ERROR: field message missing"},
    {"error", error_empty_message, PLY_EPROTO, "ERROR: field message is 0 bytes"},
    {"error", error_long_message, PLY_EPROTO, "ERROR: field message is over 512 bytes"},
    {"error", error_bad_supported, PLY_EPROTO, "ERROR: field supported has a control"},
    {"bye", bye_long, PLY_EPROTO, "BYE: field reason is over 512 bytes"},
    {"bye", bye_escape, PLY_EPROTO, "BYE: field reason has a control character"},
    {"bye", bye_none, 0, NULL},
    {"submit", submit_no_kind, PLY_EPROTO, "SUBMIT: field kind missing"},
    {"submit", submit_kind_0, PLY_EPROTO, "SUBMIT: field kind = 0, must be 1..4294967295"},
    {"submit", submit_no_perft, PLY_EPROTO, "SUBMIT: field perft missing (kind PERFT)"},
    {"submit", submit_kind_9_other, 0, NULL},
    {"submit", submit_kind_9_no_other, PLY_EPROTO,
     "SUBMIT: field other missing (kind 9 is not one proto/ describes: its submit travels in "
     "other)"},
    {"submit", submit_kind_9_perft, PLY_EPROTO,
     "SUBMIT: field perft present in a submit of kind 9"},
    {"submit", submit_no_fen, PLY_EPROTO, "SUBMIT: field perft.fen missing"},
    {"submit", submit_no_depth, PLY_EPROTO, "SUBMIT: field perft.depth missing"},
    {"submit", submit_depth_0, PLY_EPROTO, "SUBMIT: field perft.depth = 0, must be 1..16"},
    {"submit", submit_depth_max, 0, NULL},
    {"submit", submit_depth_over, PLY_EPROTO, "SUBMIT: field perft.depth = 17, must be 1..16"},
    {"submit", submit_split_low, PLY_EPROTO, "SUBMIT: field perft.split_depth = -2, must be -1..6"},
    {"submit", submit_split_top, 0, NULL},
    {"submit", submit_split_over, PLY_EPROTO, "SUBMIT: field perft.split_depth = 7, must be -1..6"},
    {"submit", submit_split_absent, 0, NULL},
    {"submit", submit_long_client, PLY_EPROTO, "SUBMIT: field client_id is over 512 bytes"},
    {"accepted", accepted_no_run, PLY_EPROTO, "ACCEPTED: field run_id missing"},
    {"accepted", accepted_run_0, PLY_EPROTO, "ACCEPTED: field run_id = 0"},
    {"accepted", accepted_no_jobs, PLY_EPROTO, "ACCEPTED: field jobs missing"},
    {"accepted", accepted_jobs_0, 0, NULL},
    {"accepted", accepted_no_split, PLY_EPROTO, "ACCEPTED: field split_depth missing"},
    {"accepted", accepted_split_over, PLY_EPROTO,
     "ACCEPTED: field split_depth = 17, must be 0..16"},
    {"accepted", accepted_bad_fen, PLY_EPROTO, "ACCEPTED: field fen has a byte"},
    {"accepted", accepted_no_fen, 0, NULL},
    {"status", status_empty, 0, NULL},
    {"heartbeat", heartbeat_empty, 0, NULL},
    {"run_progress", progress_run_no_run, PLY_EPROTO, "RUN_PROGRESS: field run_id missing"},
    {"run_progress", progress_run_no_state, PLY_EPROTO, "RUN_PROGRESS: field state missing"},
    {"run_progress", progress_run_bad_worker, PLY_EPROTO,
     "RUN_PROGRESS: field worker[1].worker_id has a control"},
    {"run_progress", progress_run_no_workers, 0, NULL},
    {"run_result", run_result_no_run, PLY_EPROTO, "RUN_RESULT: field run_id missing"},
    {"run_result", run_result_no_fen, PLY_EPROTO, "RUN_RESULT: field fen missing"},
    {"run_result", run_result_no_depth, PLY_EPROTO, "RUN_RESULT: field depth missing"},
    {"run_result", run_result_depth_over, PLY_EPROTO,
     "RUN_RESULT: field depth = 17, must be 1..16"},
    {"run_result", run_result_no_nodes, PLY_EPROTO, "RUN_RESULT: field nodes missing"},
    {"run_result", run_result_bad_move, PLY_EPROTO, "RUN_RESULT: field divide[1].move is not"},
    {"run_result", run_result_bad_detail, PLY_EPROTO,
     "RUN_RESULT: field verification.detail[1] has a control character or invalid UTF-8"},
    {"run_result", run_result_long_mode, PLY_EPROTO, "RUN_RESULT: field verification.mode is over"},
    {"run_result", run_result_bad_exclusion, PLY_EPROTO,
     "RUN_RESULT: field verification.exclusion[0] has a control character"},
    {"run_result", run_result_many_exclusions, PLY_EPROTO,
     "RUN_RESULT: field verification.exclusion has 17 entries, must be at most 16"},
    {"run_result", run_result_bad_identity, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].computation[0].identity has a control"},
    {"run_result", run_result_no_verif, 0, NULL},
    {"result_request", result_request_no_run, PLY_EPROTO, "RESULT_REQUEST: field run_id missing"},
    {"result_request", result_request_run_0, PLY_EPROTO, "RESULT_REQUEST: field run_id = 0"},
    {"cancel", cancel_no_run, PLY_EPROTO, "CANCEL: field run_id missing"},
    {"cancel", cancel_run_0, PLY_EPROTO, "CANCEL: field run_id = 0"},
    {"cancel", cancel_to_worker, 0, NULL},
    {"cancel", cancel_job_no_attempt, PLY_EPROTO, "CANCEL: field attempt missing"},
    {"cancel", cancel_attempt_no_job, PLY_EPROTO, "CANCEL: field job_id missing"},
    {"cancel", cancel_job_0, PLY_EPROTO, "CANCEL: field job_id = 0"},
    {"cancel", cancel_attempt_0, PLY_EPROTO, "CANCEL: field attempt = 0"},
    {"submit", submit_verify_bad, PLY_EPROTO, "SUBMIT: field verify = 3, must be 0..2"},
    {"submit", submit_sample_no_ppm, PLY_EPROTO, "SUBMIT: field verify_ppm missing"},
    {"submit", submit_sample_ppm_0, PLY_EPROTO, "SUBMIT: field verify_ppm = 0, must be 1..1000000"},
    {"submit", submit_sample_ppm_over, PLY_EPROTO, "SUBMIT: field verify_ppm = 1000001"},
    {"submit", submit_all_with_ppm, PLY_EPROTO, "SUBMIT: field verify_ppm given without"},
    {"submit", submit_all, 0, NULL},
    {"run_progress", progress_run_bad_fen, PLY_EPROTO, "RUN_PROGRESS: field fen has a byte"},
    {"run_progress", progress_run_bad_error, PLY_EPROTO, "RUN_PROGRESS: field error is over"},
    {"run_result", run_result_bad_summary, PLY_EPROTO,
     "RUN_RESULT: field verification.summary has a control"},
    {"run_result", run_result_many_mismatches, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch has 65 entries"},
    {"run_result", run_result_mismatch_fen, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].fen is over"},
    {"run_result", run_result_many_computations, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].computation has 9 entries"},
    {"run_result", run_result_computation_id, PLY_EPROTO,
     "RUN_RESULT: field verification.mismatch[0].computation[1].worker_id has a control"},
    {"status_reply", status_reply_run_no_state, PLY_EPROTO, "STATUS_REPLY: field state missing"},
    {"status_reply", status_reply_bad_identity, PLY_EPROTO,
     "STATUS_REPLY: field worker[0].identity has a control character"},
    {"run_progress", progress_run_bad_identity, PLY_EPROTO,
     "RUN_PROGRESS: field worker[1].identity has a control character"},
    {"status_reply", status_reply_bad_worker, PLY_EPROTO,
     "STATUS_REPLY: field worker[0].worker_id has a control"},
    {"status_reply", status_reply_empty, 0, NULL},
    {"submit", submit_short_token, PLY_EPROTO,
     "SUBMIT: field owner_token is 15 bytes, must be 16..128"},
    {"submit", submit_token, 0, NULL},
    {"status", status_token_space, PLY_EPROTO,
     "STATUS: field owner_token has a byte that is not printable ASCII at offset 10"},
    {"result_request", result_request_long_token, PLY_EPROTO,
     "RESULT_REQUEST: field owner_token is over 128 bytes"},
    {"cancel", cancel_token_utf8, PLY_EPROTO,
     "CANCEL: field owner_token has a byte that is not printable ASCII at offset 16"},
    {"accepted", accepted_asked, 0, NULL},
    {"accepted", accepted_asked_no_fen, PLY_EPROTO, "ACCEPTED: field asked.perft.fen missing"},
    {"accepted", accepted_asked_no_kind, PLY_EPROTO, "ACCEPTED: field asked.kind missing"},
    {"accepted", accepted_asked_no_perft, PLY_EPROTO,
     "ACCEPTED: field asked.perft missing (kind PERFT)"},
    {"accepted", accepted_asked_other, 0, NULL},
    {"accepted", accepted_asked_other_missing, PLY_EPROTO,
     "ACCEPTED: field asked.other missing (kind 12 is not one proto/ describes"},
    {"accepted", accepted_asked_long_fen, PLY_EPROTO, "ACCEPTED: field asked.perft.fen is over"},
    {"run_result", run_result_asked_no_depth, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.depth missing"},
    {"run_result", run_result_other, 0, NULL},
    {"run_result", run_result_other_divide, PLY_EPROTO,
     "RUN_RESULT: field divide present beside other (another kind's answer)"},
    {"result", result_other, 0, NULL},
    {"result", result_other_nodes, PLY_EPROTO,
     "RESULT: field nodes present beside other (another kind's answer)"},
    {"run_result", run_result_asked_no_split, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.split_depth missing"},
    {"run_result", run_result_asked_split_over, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.split_depth = 7, must be -1..6"},
    {"run_result", run_result_asked_split_under, PLY_EPROTO,
     "RUN_RESULT: field asked.perft.split_depth = -2, must be -1..6"},
    /* the idle tail is part of the run's time (issue 13) */
    {"run_result", run_result_tail_ok, 0, NULL},
    {"run_result", run_result_tail_over, PLY_EPROTO,
     "RUN_RESULT: field tail_ms = 12346, must be 0..12345"},
    {"run_result", run_result_tail_no_time, PLY_EPROTO, "RUN_RESULT: field tail_ms = 1, must be 0"},
    {"run_progress", progress_asked_verify_bad, PLY_EPROTO,
     "RUN_PROGRESS: field asked.verify = 3, must be 0..2"},
    {"run_progress", progress_asked_sample_no_ppm, PLY_EPROTO,
     "RUN_PROGRESS: field asked.verify_ppm missing"},
    {"run_progress", progress_asked_ppm_without, PLY_EPROTO,
     "RUN_PROGRESS: field asked.verify_ppm given without verify = SAMPLE"},
    {"run_progress", progress_asked_sample, 0, NULL},
};

static const struct golden *golden(const char *file)
{
    for (size_t i = 0; i < NGOLDEN; i++)
        if (!strcmp(GOLDEN[i].file, file)) return &GOLDEN[i];
    fail_msg("no golden message %s", file);
    return NULL;
}

/*
 * Each case through ply_msg_validate, and (when it still packs) through the
 * wire: encoded by protobuf-c, decoded by ply_msg_decode, same verdict.
 */
static void test_validation(void **state)
{
    (void)state;
    init_texts();
    size_t missing = 0, range = 0;
    for (size_t i = 0; i < sizeof VCASES / sizeof VCASES[0]; i++) {
        const vcase_t *v = &VCASES[i];
        ply_msg_t *m = golden(v->file)->build();
        v->edit(m);
        char why[256], why2[256];
        int rc = ply_msg_validate(m, why, sizeof why);
        if (rc != v->rc) fail_msg("case %zu (%s): rc %d, want %d: %s", i, v->file, rc, v->rc, why);
        if (v->reason && strncmp(why, v->reason, strlen(v->reason)) != 0)
            fail_msg("case %zu: reason \"%s\", want \"%s...\"", i, why, v->reason);
        if (v->rc == 0) assert_string_equal(why, "");
        if (v->reason && strstr(v->reason, "missing"))
            missing++;
        else if (v->reason)
            range++;
        assert_true(one_line(why));

        zmsg_t *z = ply_msg_encode(m);
        assert_non_null(z);
        ply_msg_t *got = NULL;
        int rc2 = ply_msg_decode(z, &got, why2, sizeof why2);
        assert_int_equal(rc2, rc);
        assert_string_equal(why2, why);
        if (rc2 == 0) assert_true(msg_equal(&got->base, &m->base));
        ply_msg_free(&got);
        zmsg_destroy(&z);
    }
    print_message("validation: %zu missing-field and %zu range cases\n", missing, range);
}

/* Every type with a required field has a missing-field case and a bad-value case. */
static void test_validation_covers_types(void **state)
{
    (void)state;
    for (size_t g = 0; g < NGOLDEN; g++) {
        int miss = 0, bad = 0;
        for (size_t i = 0; i < sizeof VCASES / sizeof VCASES[0]; i++) {
            if (strcmp(VCASES[i].file, GOLDEN[g].file) || !VCASES[i].reason) continue;
            if (strncmp(VCASES[i].reason, GOLDEN[g].type, strlen(GOLDEN[g].type)) != 0)
                fail_msg("case for %s names %s", GOLDEN[g].file, VCASES[i].reason);
            if (strstr(VCASES[i].reason, "missing"))
                miss++;
            else
                bad++;
        }
        int needs_nothing = GOLDEN[g].body_case == PLY__MESSAGE__BODY_HEARTBEAT ||
                            GOLDEN[g].body_case == PLY__MESSAGE__BODY_STATUS ||
                            GOLDEN[g].body_case == PLY__MESSAGE__BODY_BYE;
        if (!needs_nothing && !miss) fail_msg("%s: no missing-field case", GOLDEN[g].file);
        if (GOLDEN[g].body_case != PLY__MESSAGE__BODY_HEARTBEAT &&
            GOLDEN[g].body_case != PLY__MESSAGE__BODY_STATUS && !bad)
            fail_msg("%s: no out-of-range case", GOLDEN[g].file);
    }
}

static void test_type_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < NGOLDEN; i++)
        assert_string_equal(ply_msg_type_name(GOLDEN[i].build()), GOLDEN[i].type);
}

static void test_stats_conversion(void **state)
{
    (void)state;
    ply_stats_t in, out;
    for (int i = 0; i < PLY_STATS_N; i++) in.v[i] = (uint64_t)(i + 1) * 0x100000001ull;
    in.v[PLY_STAT_total_mates] = UINT64_MAX;
    Ply__Stats p = PLY__STATS__INIT;
    ply_msg_stats_to_proto(&p, &in);
    assert_true(p.has_nodes && p.has_total_mates && p.has_direct_discovered_checks);
    assert_true(p.captures == in.v[PLY_STAT_captures]);
    assert_true(p.double_discovered_mates == in.v[PLY_STAT_double_discovered_mates]);
    ply_msg_stats_from_proto(&out, &p);
    assert_memory_equal(&in, &out, sizeof in);
    /* through the wire, every counter present */
    uint8_t buf[256];
    size_t n = ply__stats__pack(&p, buf);
    Ply__Stats *q = ply__stats__unpack(NULL, n, buf);
    assert_non_null(q);
    memset(&out, 0xff, sizeof out);
    ply_msg_stats_from_proto(&out, q);
    assert_memory_equal(&in, &out, sizeof in);
    ply__stats__free_unpacked(q, NULL);
    /* absent counters read as 0 */
    Ply__Stats empty = PLY__STATS__INIT;
    empty.nodes = 99; /* value without its presence bit */
    ply_msg_stats_from_proto(&out, &empty);
    for (int i = 0; i < PLY_STATS_N; i++) assert_true(out.v[i] == 0);
}

/*
 * A run's statistics past 2^64 through the wire and back, exactly: the start
 * position's perft(15) = 2,015,099,950,053,364,471,960 (OEIS A048987) is
 * 109 x 2^64 + 4404846019023345816 (Python's divmod).
 */
static void test_stats128_conversion(void **state)
{
    (void)state;
    ply_stats128_t in, out;
    for (int i = 0; i < PLY_STATS_N; i++)
        in.v[i] = ply_u128_make((uint64_t)i, UINT64_MAX - (uint64_t)i);
    in.v[PLY_STAT_nodes] = ply_u128_make(109, 4404846019023345816ull);
    uint64_t hi[PLY_STATS_N];
    Ply__Stats p = PLY__STATS__INIT;
    ply_msg_stats128_to_proto(&p, hi, &in);
    assert_int_equal(p.n_hi, PLY_STATS_N);
    assert_true(p.nodes == 4404846019023345816ull && p.hi[PLY_STAT_nodes] == 109);
    uint8_t buf[512];
    size_t n = ply__stats__pack(&p, buf);
    Ply__Stats *q = ply__stats__unpack(NULL, n, buf);
    assert_non_null(q);
    ply_msg_stats128_from_proto(&out, q);
    assert_memory_equal(&in, &out, sizeof in);
    ply__stats__free_unpacked(q, NULL);
    /* all below 2^64: no hi words on the wire, as one job's statistics (and an older ply's) */
    ply_stats128_t small;
    for (int i = 0; i < PLY_STATS_N; i++) small.v[i] = UINT64_MAX - (uint64_t)i;
    Ply__Stats ps = PLY__STATS__INIT;
    ply_msg_stats128_to_proto(&ps, hi, &small);
    assert_int_equal(ps.n_hi, 0);
    ply_msg_stats128_from_proto(&out, &ps);
    assert_memory_equal(&small, &out, sizeof small);
    /* counts: an absent hi word is 0 */
    assert_true(ply_msg_count(5, 0, 7) == 5);
    assert_true(ply_msg_count(5, 1, 7) == ply_u128_make(7, 5));
}

static void test_text_sanitize(void **state)
{
    (void)state;
    char out[PLY_MAX_TEXT + 64];
    ply_msg_text_sanitize(out, sizeof out, "bad\nline\t\x1b[0m \xff\xc0\xaf caf\xc3\xa9");
    assert_string_equal(out, "bad line  [0m ??? caf\xc3\xa9");
    ply_msg_text_sanitize(out, sizeof out, NULL);
    assert_string_equal(out, "");
    char tiny[4];
    ply_msg_text_sanitize(tiny, sizeof tiny, "ab\xe2\x82\xac"); /* the euro sign would not fit */
    assert_string_equal(tiny, "ab");
    ply_msg_text_sanitize(tiny, 0, "x"); /* no room: untouched, no crash */
    ply_msg_text_sanitize(NULL, 10, "x");
    /* long input stops at PLY_MAX_TEXT without splitting a character */
    char big[PLY_MAX_TEXT * 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big + PLY_MAX_TEXT - 2, "\xe2\x82\xac", 3);
    ply_msg_text_sanitize(out, sizeof out, big);
    assert_int_equal(strlen(out), PLY_MAX_TEXT - 2);
    big[PLY_MAX_TEXT - 2] = 'a';
    ply_msg_text_sanitize(out, sizeof out, big);
    assert_int_equal(strlen(out), PLY_MAX_TEXT);
}

/* ---------------------------------------------------------- socket tests */

/* A ROUTER and a connected DEALER over inproc, with receive timeouts so a bug cannot hang. */
static void pair(zsock_t **router, zsock_t **dealer, const char *endpoint)
{
    char ep[128];
    snprintf(ep, sizeof ep, "@%s", endpoint);
    *router = zsock_new_router(ep);
    assert_non_null(*router);
    snprintf(ep, sizeof ep, ">%s", endpoint);
    *dealer = zsock_new_dealer(ep);
    assert_non_null(*dealer);
    zsock_set_rcvtimeo(*router, 5000);
    zsock_set_rcvtimeo(*dealer, 5000);
    zsock_set_sndtimeo(*dealer, 5000);
}

static void test_socket_round_trip(void **state)
{
    (void)state;
    zsock_t *router, *dealer;
    pair(&router, &dealer, "inproc://ply-test-proto");
    char why[256];
    ply_msg_t *m = NULL;
    zframe_t *rid = NULL;

    /* DEALER -> ROUTER, every golden type, fields intact */
    for (size_t i = 0; i < NGOLDEN; i++) {
        assert_int_equal(ply_msg_send(dealer, GOLDEN[i].build()), 0);
        int rc = ply_msg_recv_from(router, &rid, &m, why, sizeof why);
        if (rc) fail_msg("%s: %d %s", GOLDEN[i].file, rc, why);
        assert_non_null(rid);
        assert_true(msg_equal(&m->base, &GOLDEN[i].build()->base));
        ply_msg_free(&m);
        zframe_destroy(&rid);
    }

    /* ROUTER -> DEALER: a Welcome to the routing id of a Hello */
    assert_int_equal(ply_msg_send(dealer, build_hello()), 0);
    assert_int_equal(ply_msg_recv_from(router, &rid, &m, why, sizeof why), 0);
    assert_string_equal(ply_msg_type_name(m), "HELLO");
    ply_msg_free(&m);
    assert_int_equal(ply_msg_send_to(router, rid, build_welcome()), 0);
    assert_non_null(rid); /* not consumed */
    assert_int_equal(ply_msg_recv(dealer, &m, why, sizeof why), 0);
    assert_true(msg_equal(&m->base, &build_welcome()->base));
    ply_msg_free(&m);

    /* send_error to a peer, ids set */
    assert_int_equal(ply_msg_send_error(router, rid, PLY_EPROTO, "JOB: field depth = 0", 12, 3, 4),
                     0);
    assert_int_equal(ply_msg_recv(dealer, &m, why, sizeof why), 0);
    assert_int_equal(m->error->code, PLY_EPROTO);
    assert_string_equal(m->error->message, "JOB: field depth = 0");
    assert_true(m->error->has_job_id && m->error->job_id == 12);
    assert_true(m->error->has_attempt && m->error->attempt == 3);
    assert_true(m->error->has_run_id && m->error->run_id == 4);
    assert_null(m->error->supported);
    ply_msg_free(&m);

    /* a peer speaking PLY/9: the routing id still comes back, and it hears "PLY/2" */
    zframe_destroy(&rid);
    zmsg_t *z = zmsg_new();
    zmsg_addstr(z, "PLY/9");
    zmsg_addmem(z, "\x0a\x00", 2);
    assert_int_equal(zmsg_send(&z, dealer), 0);
    assert_int_equal(ply_msg_recv_from(router, &rid, &m, why, sizeof why), PLY_EVERSION);
    assert_null(m);
    assert_non_null(rid);
    assert_non_null(strstr(why, "\"PLY/9\""));
    assert_int_equal(ply_msg_send_error(router, rid, PLY_EVERSION, why, 0, 0, 0), 0);
    assert_int_equal(ply_msg_recv(dealer, &m, why, sizeof why), 0);
    assert_int_equal(m->error->code, PLY_EVERSION);
    assert_string_equal(m->error->supported, "PLY/2");
    assert_non_null(strstr(m->error->message, "PLY/9"));
    assert_false(m->error->has_job_id || m->error->has_attempt || m->error->has_run_id);
    ply_msg_free(&m);
    /* a peer of the previous version hears it framed as its own: the same Error bytes */
    assert_int_equal(ply_msg_send_error_framed(router, rid, PLY_PROTOCOL_ID_PREV, PLY_EVERSION,
                                               "upgrade", 0, 0, 0),
                     0);
    z = zmsg_recv(dealer);
    assert_non_null(z);
    assert_int_equal(zmsg_size(z), 2);
    assert_true(zframe_streq(zmsg_first(z), "PLY/1"));
    zframe_t *eb = zmsg_next(z);
    m = ply__message__unpack(NULL, zframe_size(eb), zframe_data(eb));
    assert_non_null(m);
    assert_int_equal(m->error->code, PLY_EVERSION);
    assert_string_equal(m->error->supported, "PLY/2");
    ply_msg_free(&m);
    zmsg_destroy(&z);
    zframe_destroy(&rid);

    /* garbage body: EPROTO with the routing id; a hostile reason still makes a valid Error */
    z = zmsg_new();
    zmsg_addstr(z, PLY_PROTOCOL_ID);
    zmsg_addmem(z, "\xff\xff\xff", 3);
    assert_int_equal(zmsg_send(&z, dealer), 0);
    assert_int_equal(ply_msg_recv_from(router, &rid, &m, why, sizeof why), PLY_EPROTO);
    assert_non_null(rid);
    char hostile[2 * PLY_MAX_TEXT];
    memset(hostile, '\n', sizeof hostile - 1);
    hostile[sizeof hostile - 1] = '\0';
    memcpy(hostile, "bad \xff", 5);
    assert_int_equal(ply_msg_send_error(router, rid, PLY_EPROTO, hostile, 0, 0, 0), 0);
    assert_int_equal(ply_msg_recv(dealer, &m, why, sizeof why), 0);
    assert_int_equal(strlen(m->error->message), PLY_MAX_TEXT);
    assert_int_equal(strncmp(m->error->message, "bad ?   ", 8), 0);
    ply_msg_free(&m);
    /* no message at all: ply_strerror fills in */
    assert_int_equal(ply_msg_send_error(router, rid, PLY_ETIMEDOUT, NULL, 0, 0, 9), 0);
    assert_int_equal(ply_msg_recv(dealer, &m, why, sizeof why), 0);
    assert_string_equal(m->error->message, ply_strerror(PLY_ETIMEDOUT));
    ply_msg_free(&m);
    zframe_destroy(&rid);

    /* send_error from the DEALER side (no routing id) */
    assert_int_equal(ply_msg_send_error(dealer, NULL, PLY_EWORKER, "out of memory", 5, 1, 0), 0);
    assert_int_equal(ply_msg_recv_from(router, &rid, &m, why, sizeof why), 0);
    assert_int_equal(m->error->code, PLY_EWORKER);
    assert_false(m->error->has_run_id);
    ply_msg_free(&m);
    zframe_destroy(&rid);

    /* programmer errors are refused, not sent */
    ply_msg_t empty = PLY__MESSAGE__INIT;
    assert_int_equal(ply_msg_send(dealer, &empty), PLY_EINVAL);
    assert_int_equal(ply_msg_send(dealer, NULL), PLY_EINVAL);
    assert_int_equal(ply_msg_send(NULL, build_ready()), PLY_EINVAL);
    assert_int_equal(ply_msg_send_to(router, NULL, build_ready()), PLY_EINVAL);
    assert_int_equal(ply_msg_send_error(dealer, NULL, 0, "not an error", 0, 0, 0), PLY_EINVAL);

    /* nothing to receive: PLY_EIO after the timeout */
    zsock_set_rcvtimeo(dealer, 50);
    zsock_set_rcvtimeo(router, 50);
    assert_int_equal(ply_msg_recv(dealer, &m, why, sizeof why), PLY_EIO);
    assert_null(m);
    rid = (zframe_t *)&rid;
    assert_int_equal(ply_msg_recv_from(router, &rid, &m, why, sizeof why), PLY_EIO);
    assert_null(rid);

    zsock_destroy(&dealer);
    zsock_destroy(&router);
}

/* ply_msg_sock_limit: an oversized frame never reaches the application (tcp loopback). */
static void test_socket_limit(void **state)
{
    (void)state;
    zsock_t *router = zsock_new(ZMQ_ROUTER);
    assert_non_null(router);
    ply_msg_sock_limit(router);
    assert_int_equal(zsock_maxmsgsize(router), (int)PLY_MAX_MESSAGE_BYTES);
    int port = zsock_bind(router, "tcp://127.0.0.1:*");
    assert_true(port > 0);
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);
    zsock_t *dealer = zsock_new_dealer(ep);
    assert_non_null(dealer);
    zsock_set_rcvtimeo(router, 200);
    zsock_set_sndtimeo(dealer, 200);
    zsock_set_reconnect_ivl(dealer, 20); /* the router drops the connection: come back fast */

    zmsg_t *z = zmsg_new();
    zmsg_addstr(z, PLY_PROTOCOL_ID);
    size_t big = 2 * PLY_MAX_MESSAGE_BYTES;
    uint8_t *junk = calloc(1, big);
    zmsg_addmem(z, junk, big);
    free(junk);
    assert_int_equal(zmsg_send(&z, dealer), 0);

    /* the dealer reconnects; a normal message gets through, the big one never does */
    int got_hello = 0;
    for (int tries = 0; tries < 50 && !got_hello; tries++) {
        if (ply_msg_send(dealer, build_hello()) != 0) continue; /* not reconnected yet */
        zframe_t *rid = NULL;
        ply_msg_t *m = NULL;
        char why[256];
        int rc;
        while ((rc = ply_msg_recv_from(router, &rid, &m, why, sizeof why)) != PLY_EIO) {
            if (rc != 0) fail_msg("router received a bad message: %s", why);
            got_hello = 1;
            ply_msg_free(&m);
            zframe_destroy(&rid);
        }
    }
    assert_true(got_hello);
    zsock_destroy(&dealer);
    zsock_destroy(&router);
}

/* ---------------------------------------------------- the search kind (issue 11) */

/* A SEARCH job: the start position after 1. e4 e5, depth 6, two root moves, 2 lines. */
static char *g_search_moves[PLY_SEARCH_JOB_MAX_MOVES + 1];
static ply_msg_t *build_search_job(void)
{
    static Ply__SearchJob s;
    static Ply__Job m;
    static char *history[2], *g_searchmoves[2];
    history[0] = "e2e4", history[1] = "e7e5"; /* rebuilt: an edit may have changed them */
    g_searchmoves[0] = "g1f3", g_searchmoves[1] = "d2d4";
    s = (Ply__SearchJob)PLY__SEARCH_JOB__INIT;
    s.fen = "startpos";
    s.n_moves = 2, s.moves = history;
    s.n_searchmoves = 2, s.searchmoves = g_searchmoves;
    s.has_depth = 1, s.depth = 6;
    s.has_multipv = 1, s.multipv = 2;
    s.has_chess960 = 1, s.chess960 = 0;
    m = (Ply__Job)PLY__JOB__INIT;
    m.has_job_id = 1, m.job_id = 42;
    m.has_attempt = 1, m.attempt = 1;
    m.has_kind = 1, m.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    m.has_run_id = 1, m.run_id = 7;
    m.has_lease_ms = 1, m.lease_ms = 60000;
    m.search = &s;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_JOB);
    msg->job = &m;
    return msg;
}

/* A search-shaped RESULT: two lines, a mate in 2 (3 plies of PV) and a score in centipawns. */
static ply_msg_t *build_search_result(void)
{
    static Ply__SearchResult s;
    static Ply__SearchLine l[2], *lp[2];
    static char *pv1[3], *pv2[1];
    static Ply__Result m;
    pv1[0] = "h6h7", pv1[1] = "h8h7", pv1[2] = "h5g6", pv2[0] = "d3g6";
    for (int i = 0; i < 2; i++) {
        l[i] = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        l[i].has_multipv = 1, l[i].multipv = (uint32_t)i + 1;
        l[i].has_bound = 1, l[i].bound = 0;
        l[i].has_depth = 1, l[i].depth = 6;
        l[i].has_seldepth = 1, l[i].seldepth = 9;
        lp[i] = &l[i];
    }
    l[0].has_mate = 1, l[0].mate = 2;
    l[0].n_pv = 3, l[0].pv = pv1;
    l[1].has_score_cp = 1, l[1].score_cp = -35;
    l[1].n_pv = 1, l[1].pv = pv2;
    s = (Ply__SearchResult)PLY__SEARCH_RESULT__INIT;
    s.n_lines = 2, s.lines = lp;
    s.has_nodes = 1, s.nodes = 123456;
    s.has_time_us = 1, s.time_us = 98765;
    s.engine = "ply 0.1.0 builtin";
    m = (Ply__Result)PLY__RESULT__INIT;
    m.has_job_id = 1, m.job_id = 42;
    m.has_attempt = 1, m.attempt = 1;
    m.has_time_us = 1, m.time_us = 99000;
    m.search = &s;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RESULT);
    msg->result = &m;
    return msg;
}

static uint32_t g_kinds[3] = {PLY__JOB_KIND__JOB_KIND_PERFT, PLY__JOB_KIND__JOB_KIND_SEARCH};
static ply_msg_t *build_hello_kinds(void)
{
    ply_msg_t *msg = build_hello();
    g_kinds[0] = PLY__JOB_KIND__JOB_KIND_PERFT, g_kinds[1] = PLY__JOB_KIND__JOB_KIND_SEARCH;
    msg->hello->n_kinds = 2, msg->hello->kinds = g_kinds;
    msg->hello->engine = "builtin";
    return msg;
}

/* Encodes @m, decodes it and expects the same message back, validated. */
static void round_trip(ply_msg_t *m)
{
    char why[256];
    assert_int_equal(ply_msg_validate(m, why, sizeof why), 0);
    zmsg_t *z = ply_msg_encode(m);
    assert_non_null(z);
    ply_msg_t *got = NULL;
    if (ply_msg_decode(z, &got, why, sizeof why) != 0) fail_msg("decode: %s", why);
    assert_true(msg_equal(&got->base, &m->base));
    ply_msg_free(&got);
    zmsg_destroy(&z);
}

static void test_search_round_trip(void **state)
{
    (void)state;
    round_trip(build_search_job());
    round_trip(build_search_result());

    round_trip(build_hello_kinds());
    /* an older worker's HELLO (no kinds) and a perft job still pass unchanged */
    round_trip(build_hello());
    round_trip(build_job());
    ply_msg_t *m = build_search_job();
    assert_int_equal(m->job->search->n_moves, 2);
    assert_string_equal(m->job->search->moves[1], "e7e5");
}

static char long_moves_text[8] = "e2e4";
EDIT(sj_no_search, m->job->search = NULL)
/* a perft job's sub-message, or another kind's bytes, beside a search job */
static void sj_perft(ply_msg_t *m) /* build_job rewraps the message: keep the search job */
{
    Ply__Job *search = m->job;
    search->perft = build_job()->job->perft;
    m->body_case = PLY__MESSAGE__BODY_JOB;
    m->job = search;
}
EDIT(sj_other, (m->job->has_other = 1, m->job->other.len = 0))
EDIT(sj_no_fen, m->job->search->fen = NULL)
EDIT(sj_long_fen, m->job->search->fen = long_fen)
EDIT(sj_bad_move, m->job->search->moves[1] = "e7e9")
EDIT(sj_short_move, m->job->search->moves[0] = "e2e")
EDIT(sj_bad_searchmove, m->job->search->searchmoves[1] = "d2d4k")
EDIT(sj_too_many_moves, (m->job->search->n_moves = PLY_SEARCH_JOB_MAX_MOVES + 1,
                         m->job->search->moves = g_search_moves))
EDIT(sj_max_moves,
     (m->job->search->n_moves = PLY_SEARCH_JOB_MAX_MOVES, m->job->search->moves = g_search_moves))
EDIT(sj_depth_0, m->job->search->depth = 0)
EDIT(sj_depth_max, m->job->search->depth = PLY_SEARCH_JOB_MAX_DEPTH)
EDIT(sj_depth_over, m->job->search->depth = PLY_SEARCH_JOB_MAX_DEPTH + 1)
EDIT(sj_nodes_0, (m->job->search->has_nodes = 1, m->job->search->nodes = 0))
EDIT(sj_movetime_0, (m->job->search->has_movetime_ms = 1, m->job->search->movetime_ms = 0))
EDIT(sj_movetime_over, (m->job->search->has_movetime_ms = 1,
                        m->job->search->movetime_ms = PLY_SEARCH_JOB_MAX_MOVETIME_MS + 1))
EDIT(sj_unlimited, m->job->search->has_depth = 0)
EDIT(sj_nodes_only,
     (m->job->search->has_depth = 0, m->job->search->has_nodes = 1, m->job->search->nodes = 100000))
EDIT(sj_multipv_0, m->job->search->multipv = 0)
EDIT(sj_multipv_max, m->job->search->multipv = PLY_SEARCH_JOB_MAX_MULTIPV)
EDIT(sj_multipv_over, m->job->search->multipv = PLY_SEARCH_JOB_MAX_MULTIPV + 1)
EDIT(sj_no_multipv, m->job->search->has_multipv = 0)
EDIT(sj_kind_3, m->job->kind = 3)
/* a perft job with a search beside (build_search_job rewraps the message: keep the job) */
static void perft_job_with_search(ply_msg_t *m)
{
    Ply__Job *perft = m->job;
    perft->search = build_search_job()->job->search;
    m->body_case = PLY__MESSAGE__BODY_JOB;
    m->job = perft;
}
EDIT(sr_nodes, (m->result->has_nodes = 1, m->result->nodes = 5))
EDIT(sr_perft1, (m->result->has_perft1 = 1, m->result->perft1 = 20))
EDIT(sr_tt_nodes, (m->result->has_tt_nodes = 1))
EDIT(sr_no_time, m->result->has_time_us = 0)
EDIT(sr_no_lines, m->result->search->n_lines = 0)
EDIT(sr_line_no_multipv, m->result->search->lines[1]->has_multipv = 0)
EDIT(sr_line_multipv_0, m->result->search->lines[1]->multipv = 0)
EDIT(sr_line_both_scores,
     (m->result->search->lines[0]->has_score_cp = 1, m->result->search->lines[0]->score_cp = 10))
EDIT(sr_line_no_score, m->result->search->lines[1]->has_score_cp = 0)
EDIT(sr_line_no_bound, m->result->search->lines[0]->has_bound = 0)
EDIT(sr_line_bound_3, m->result->search->lines[0]->bound = 3)
EDIT(sr_line_bound_2, m->result->search->lines[0]->bound = 2)
EDIT(sr_line_no_depth, m->result->search->lines[0]->has_depth = 0)
/* an engine's iteration past what a job may ask: Stockfish 15.1 said depth 146 at 10,000
 * nodes on a resolved WAC position, and such a result was dropped as malformed */
EDIT(sr_line_depth_146, m->result->search->lines[0]->depth = 146)
EDIT(sr_line_depth_over, m->result->search->lines[0]->depth = PLY_SEARCH_LINE_MAX_DEPTH + 1)
EDIT(sr_line_no_seldepth, m->result->search->lines[1]->has_seldepth = 0)
EDIT(sr_line_bad_pv, m->result->search->lines[0]->pv[2] = "h5g0")
EDIT(sr_line_long_pv, (m->result->search->lines[0]->n_pv = PLY_SEARCH_JOB_MAX_PV + 1,
                       m->result->search->lines[0]->pv = g_search_moves))
EDIT(sr_no_nodes, m->result->search->has_nodes = 0)
EDIT(sr_no_search_time, m->result->search->has_time_us = 0)
/* A SEARCH request (Submit.search, RunAsked.search): after 1. e4, depth 8, two root moves. */
static Ply__SearchRequest *search_request(void)
{
    static Ply__SearchRequest q;
    static char *history[1], *sm[2];
    history[0] = "e2e4";
    sm[0] = "e7e5", sm[1] = "c7c5";
    q = (Ply__SearchRequest)PLY__SEARCH_REQUEST__INIT;
    q.fen = "startpos";
    q.n_moves = 1, q.moves = history;
    q.n_searchmoves = 2, q.searchmoves = sm;
    q.has_depth = 1, q.depth = 8;
    q.engine = "builtin";
    return &q;
}

static ply_msg_t *build_search_submit(void)
{
    static Ply__Submit m;
    m = (Ply__Submit)PLY__SUBMIT__INIT;
    m.has_kind = 1, m.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    m.search = search_request();
    m.client_id = "test";
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_SUBMIT);
    msg->submit = &m;
    return msg;
}

static Ply__RunAsked *search_asked(void)
{
    static Ply__RunAsked a;
    a = (Ply__RunAsked)PLY__RUN_ASKED__INIT;
    a.has_kind = 1, a.kind = PLY__JOB_KIND__JOB_KIND_SEARCH;
    a.search = search_request();
    return &a;
}

/* A search answer: two root moves with their lines, one rejection. */
static Ply__SearchAnswer *search_answer(void)
{
    static Ply__SearchAnswer a;
    static Ply__AnalysedMove am[2], *amp[2];
    static Ply__SearchLine l[2];
    static char *pv[2][2], *pv_san[2][2], *rej[1];
    pv[0][0] = "e7e5", pv[0][1] = "g1f3", pv[1][0] = "c7c5", pv[1][1] = "g1f3";
    pv_san[0][0] = "e5", pv_san[0][1] = "Nf3", pv_san[1][0] = "c5", pv_san[1][1] = "Nf3";
    rej[0] = "worker w (identity conn:00): e7e5: PV move 2 g1f9 is not legal";
    for (int i = 0; i < 2; i++) {
        l[i] = (Ply__SearchLine)PLY__SEARCH_LINE__INIT;
        l[i].has_multipv = 1, l[i].multipv = 1;
        l[i].has_score_cp = 1, l[i].score_cp = -20 - i;
        l[i].has_depth = 1, l[i].depth = 8;
        l[i].n_pv = 2, l[i].pv = pv[i];
        am[i] = (Ply__AnalysedMove)PLY__ANALYSED_MOVE__INIT;
        am[i].move = pv[i][0];
        am[i].san = pv_san[i][0];
        am[i].line = &l[i];
        am[i].n_pv_san = 2, am[i].pv_san = pv_san[i];
        am[i].worker_id = "w";
        amp[i] = &am[i];
    }
    a = (Ply__SearchAnswer)PLY__SEARCH_ANSWER__INIT;
    a.fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    a.n_moves = 2, a.moves = amp;
    a.has_rejected = 1, a.rejected = 1;
    a.n_rejection = 1, a.rejection = rej;
    return &a;
}

static ply_msg_t *build_search_run_result(void)
{
    static Ply__RunResult r;
    r = (Ply__RunResult)PLY__RUN_RESULT__INIT;
    r.has_run_id = 1, r.run_id = 9;
    r.fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    r.has_depth = 1, r.depth = 8;
    r.has_nodes = 1, r.nodes = 1000;
    r.has_jobs = 1, r.jobs = 2;
    r.asked = search_asked();
    r.search = search_answer();
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RUN_RESULT);
    msg->run_result = &r;
    return msg;
}

static ply_msg_t *build_search_progress(void)
{
    static Ply__RunProgress p;
    p = (Ply__RunProgress)PLY__RUN_PROGRESS__INIT;
    p.has_run_id = 1, p.run_id = 9;
    p.state = "running";
    p.asked = search_asked();
    p.search = search_answer();
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RUN_PROGRESS);
    msg->run_progress = &p;
    return msg;
}

/* a perft request, or another kind's bytes, beside a search request */
static void ss_perft(ply_msg_t *m) /* build_submit rewraps the message: keep the search one */
{
    Ply__Submit *search = m->submit;
    search->perft = build_submit()->submit->perft;
    m->body_case = PLY__MESSAGE__BODY_SUBMIT;
    m->submit = search;
}
EDIT(ss_other, m->submit->has_other = 1)
EDIT(ss_no_search, m->submit->search = NULL)
EDIT(ss_bad_fen, m->submit->search->fen = long_fen)
EDIT(ss_bad_move, m->submit->search->moves[0] = "e2e9")
EDIT(ss_bad_searchmove, m->submit->search->searchmoves[1] = "c7")
EDIT(ss_too_many_moves, (m->submit->search->n_moves = PLY_SEARCH_JOB_MAX_MOVES + 1,
                         m->submit->search->moves = g_search_moves))
EDIT(ss_too_many_searchmoves, (m->submit->search->n_searchmoves = PLY_MAX_DIVIDE + 1,
                               m->submit->search->searchmoves = g_search_moves))
EDIT(ss_depth_0, m->submit->search->depth = 0)
EDIT(ss_depth_over, m->submit->search->depth = PLY_SEARCH_JOB_MAX_DEPTH + 1)
EDIT(ss_nodes_0, (m->submit->search->has_nodes = 1, m->submit->search->nodes = 0))
EDIT(ss_movetime_over, (m->submit->search->has_movetime_ms = 1,
                        m->submit->search->movetime_ms = PLY_SEARCH_JOB_MAX_MOVETIME_MS + 1))
EDIT(ss_unlimited, m->submit->search->has_depth = 0)
EDIT(ss_movetime_only, (m->submit->search->has_depth = 0, m->submit->search->has_movetime_ms = 1,
                        m->submit->search->movetime_ms = 100))
EDIT(ss_engine_uci, m->submit->search->engine = "uci")
EDIT(ss_engine_empty, m->submit->search->engine = "")
EDIT(ss_engine_none, m->submit->search->engine = NULL)
EDIT(ss_engine_other, m->submit->search->engine = "stockfish")
EDIT(ss_verify, (m->submit->has_verify = 1, m->submit->verify = PLY__VERIFY_MODE__VERIFY_MODE_ALL))
EDIT(ss_kind_3, m->submit->kind = 3)
EDIT(ps_with_search, m->submit->search = search_request())
EDIT(srr_no_nodes, m->run_result->has_nodes = 0)
EDIT(srr_no_depth, m->run_result->has_depth = 0)
static Ply__DivideEntry g_one_entry = PLY__DIVIDE_ENTRY__INIT, *g_one_divide[1] = {&g_one_entry};
static Ply__AnalysedMove *g_many_moves[PLY_MAX_DIVIDE + 1];
static void srr_too_many_moves(ply_msg_t *m)
{
    Ply__SearchAnswer *a = m->run_result->search;
    for (size_t i = 0; i <= PLY_MAX_DIVIDE; i++) g_many_moves[i] = a->moves[0];
    a->n_moves = PLY_MAX_DIVIDE + 1, a->moves = g_many_moves;
}
EDIT(srr_divide, (g_one_entry.move = "e2e4", g_one_entry.has_nodes = 1, m->run_result->n_divide = 1,
                  m->run_result->divide = g_one_divide))
EDIT(srr_bad_status, m->run_result->search->status = "won")
EDIT(srr_checkmate,
     (m->run_result->search->status = "checkmate", m->run_result->search->n_moves = 0))
EDIT(srr_bad_move, m->run_result->search->moves[1]->move = "c7c9")
EDIT(srr_bad_pv, m->run_result->search->moves[0]->line->pv[1] = "g1")
EDIT(srr_long_pv, (m->run_result->search->moves[0]->line->n_pv = PLY_SEARCH_JOB_MAX_PV + 1,
                   m->run_result->search->moves[0]->line->pv = g_search_moves))
EDIT(srr_two_scores, (m->run_result->search->moves[0]->line->has_mate = 1,
                      m->run_result->search->moves[0]->line->mate = 2))
EDIT(srr_long_pv_san, (m->run_result->search->moves[0]->n_pv_san = PLY_SEARCH_JOB_MAX_PV + 1,
                       m->run_result->search->moves[0]->pv_san = g_search_moves))
EDIT(srr_bad_san, m->run_result->search->moves[0]->pv_san[1] = "N\nf3")
EDIT(srr_long_worker, m->run_result->search->moves[1]->worker_id = long_text)
EDIT(srr_bad_rejection, m->run_result->search->rejection[0] = "")
EDIT(srr_many_rejections, (m->run_result->search->n_rejection = PLY_MAX_MISMATCHES + 1,
                           m->run_result->search->rejection = g_search_moves))
EDIT(srr_asked_no_search, m->run_result->asked->search = NULL)
EDIT(srr_asked_perft_search, m->run_result->asked->kind = PLY__JOB_KIND__JOB_KIND_PERFT)
EDIT(srr_asked_bad_engine, m->run_result->asked->search->engine = "gnuchess")
EDIT(srp_bad_pv, m->run_progress->search->moves[1]->line->pv[0] = "c7c5x")
EDIT(srp_asked_unlimited, m->run_progress->asked->search->has_depth = 0)

EDIT(sr_bad_engine, m->result->search->engine = "ply\nFAKE")
EDIT(sr_no_engine, m->result->search->engine = NULL)
EDIT(hk_kind_0, m->hello->kinds[1] = PLY__JOB_KIND__JOB_KIND_UNSPECIFIED)
EDIT(hk_kind_big, m->hello->kinds[1] = 4000000000u) /* any kind number passes the envelope */
static uint32_t g_many_kinds[PLY_MAX_KINDS + 1];
static void hk_too_many(ply_msg_t *m)
{
    for (uint32_t i = 0; i <= PLY_MAX_KINDS; i++) g_many_kinds[i] = i + 1;
    m->hello->n_kinds = PLY_MAX_KINDS + 1, m->hello->kinds = g_many_kinds;
}
EDIT(hk_kind_twice, m->hello->kinds[1] = PLY__JOB_KIND__JOB_KIND_PERFT)
EDIT(hk_search_only, (m->hello->n_kinds = 1, m->hello->kinds[0] = PLY__JOB_KIND__JOB_KIND_SEARCH))
EDIT(hk_bad_engine, m->hello->engine = long_text)

typedef struct scase {
    ply_msg_t *(*build)(void);
    void (*edit)(ply_msg_t *m);
    int rc;
    const char *reason;
} scase_t;

static const scase_t SCASES[] = {
    {build_search_job, sj_no_search, PLY_EPROTO, "JOB: field search missing"},
    {build_search_job, sj_perft, PLY_EPROTO, "JOB: field perft present in a SEARCH job"},
    {build_search_job, sj_other, PLY_EPROTO, "JOB: field other present in a SEARCH job"},
    {build_search_job, sj_no_fen, PLY_EPROTO, "JOB: field search.fen missing"},
    {build_search_job, sj_long_fen, PLY_EPROTO, "JOB: field search.fen is over 128 bytes"},
    {build_search_job, sj_bad_move, PLY_EPROTO, "JOB: field search.moves[1] is not a UCI move"},
    {build_search_job, sj_short_move, PLY_EPROTO, "JOB: field search.moves[0] is not a UCI move"},
    {build_search_job, sj_bad_searchmove, PLY_EPROTO,
     "JOB: field search.searchmoves[1] is not a UCI move"},
    {build_search_job, sj_too_many_moves, PLY_EPROTO,
     "JOB: field search.moves has 1025 moves, must be at most 1024"},
    {build_search_job, sj_max_moves, 0, NULL},
    {build_search_job, sj_depth_0, PLY_EPROTO, "JOB: field search.depth = 0, must be 1..100"},
    {build_search_job, sj_depth_max, 0, NULL},
    {build_search_job, sj_depth_over, PLY_EPROTO, "JOB: field search.depth = 101, must be 1..100"},
    {build_search_job, sj_nodes_0, PLY_EPROTO, "JOB: field search.nodes = 0, must be at least 1"},
    {build_search_job, sj_movetime_0, PLY_EPROTO, "JOB: field search.movetime_ms = 0, must be 1.."},
    {build_search_job, sj_movetime_over, PLY_EPROTO,
     "JOB: field search.movetime_ms = 86400001, must be 1..86400000"},
    {build_search_job, sj_unlimited, PLY_EPROTO,
     "JOB: field search.depth, search.nodes or search.movetime_ms missing"},
    {build_search_job, sj_nodes_only, 0, NULL},
    {build_search_job, sj_multipv_0, PLY_EPROTO, "JOB: field search.multipv = 0, must be 1..64"},
    {build_search_job, sj_multipv_max, 0, NULL},
    {build_search_job, sj_multipv_over, PLY_EPROTO,
     "JOB: field search.multipv = 65, must be 1..64"},
    {build_search_job, sj_no_multipv, 0, NULL},
    {build_search_job, sj_kind_3, PLY_EPROTO, "JOB: field search present in a job of kind 3"},
    {build_job, perft_job_with_search, PLY_EPROTO, "JOB: field search present in a PERFT job"},
    {build_search_result, sr_nodes, PLY_EPROTO, "RESULT: field nodes present beside search"},
    {build_search_result, sr_perft1, PLY_EPROTO, "RESULT: field perft1 present beside search"},
    {build_search_result, sr_tt_nodes, PLY_EPROTO, "RESULT: field tt_nodes present beside search"},
    {build_search_result, sr_no_time, PLY_EPROTO, "RESULT: field time_us missing"},
    {build_search_result, sr_no_lines, PLY_EPROTO,
     "RESULT: field search.lines has 0 entries, must be 1..64"},
    {build_search_result, sr_line_no_multipv, PLY_EPROTO,
     "RESULT: field search.lines[1].multipv missing"},
    {build_search_result, sr_line_multipv_0, PLY_EPROTO,
     "RESULT: field search.lines[1].multipv = 0, must be 1..64"},
    {build_search_result, sr_line_both_scores, PLY_EPROTO,
     "RESULT: field search.lines[0]: both of score_cp and mate, must be one"},
    {build_search_result, sr_line_no_score, PLY_EPROTO,
     "RESULT: field search.lines[1]: neither of score_cp and mate, must be one"},
    {build_search_result, sr_line_no_bound, PLY_EPROTO,
     "RESULT: field search.lines[0].bound missing"},
    {build_search_result, sr_line_bound_3, PLY_EPROTO,
     "RESULT: field search.lines[0].bound = 3, must be 0..2"},
    {build_search_result, sr_line_bound_2, 0, NULL},
    {build_search_result, sr_line_no_depth, PLY_EPROTO,
     "RESULT: field search.lines[0].depth missing"},
    {build_search_result, sr_line_depth_146, 0, NULL},
    {build_search_result, sr_line_depth_over, PLY_EPROTO,
     "RESULT: field search.lines[0].depth = 1025, must be 0..1024"},
    {build_search_result, sr_line_no_seldepth, PLY_EPROTO,
     "RESULT: field search.lines[1].seldepth missing"},
    {build_search_result, sr_line_bad_pv, PLY_EPROTO,
     "RESULT: field search.lines[0].pv[2] is not a UCI move"},
    {build_search_result, sr_line_long_pv, PLY_EPROTO,
     "RESULT: field search.lines[0].pv has 129 moves, must be at most 128"},
    {build_search_result, sr_no_nodes, PLY_EPROTO, "RESULT: field search.nodes missing"},
    {build_search_result, sr_no_search_time, PLY_EPROTO, "RESULT: field search.time_us missing"},
    {build_search_result, sr_bad_engine, PLY_EPROTO,
     "RESULT: field search.engine has a control character"},
    {build_search_result, sr_no_engine, 0, NULL},
    {build_hello_kinds, hk_kind_0, PLY_EPROTO, "HELLO: field kinds[1] = 0, must be 1..4294967295"},
    {build_hello_kinds, hk_kind_big, 0, NULL},
    {build_hello_kinds, hk_too_many, PLY_EPROTO,
     "HELLO: field kinds has 33 entries, must be at most 32"},
    {build_hello_kinds, hk_kind_twice, PLY_EPROTO, "HELLO: field kinds[1] = 1 listed twice"},
    {build_hello_kinds, hk_search_only, 0, NULL},
    {build_hello_kinds, hk_bad_engine, PLY_EPROTO, "HELLO: field engine is over 512 bytes"},
    {build_search_submit, ss_engine_none, 0, NULL},
    {build_search_submit, ss_perft, PLY_EPROTO, "SUBMIT: field perft present in a SEARCH submit"},
    {build_search_submit, ss_other, PLY_EPROTO, "SUBMIT: field other present in a SEARCH submit"},
    {build_search_submit, ss_no_search, PLY_EPROTO, "SUBMIT: field search missing (kind SEARCH)"},
    {build_search_submit, ss_bad_fen, PLY_EPROTO, "SUBMIT: field search.fen is over 128 bytes"},
    {build_search_submit, ss_bad_move, PLY_EPROTO,
     "SUBMIT: field search.moves[0] is not a UCI move"},
    {build_search_submit, ss_bad_searchmove, PLY_EPROTO,
     "SUBMIT: field search.searchmoves[1] is not a UCI move"},
    {build_search_submit, ss_too_many_moves, PLY_EPROTO,
     "SUBMIT: field search.moves has 1025 moves, must be at most 1024"},
    {build_search_submit, ss_too_many_searchmoves, PLY_EPROTO,
     "SUBMIT: field search.searchmoves has 257 moves, must be at most 256"},
    {build_search_submit, ss_depth_0, PLY_EPROTO, "SUBMIT: field search.depth = 0, must be 1..100"},
    {build_search_submit, ss_depth_over, PLY_EPROTO,
     "SUBMIT: field search.depth = 101, must be 1..100"},
    {build_search_submit, ss_nodes_0, PLY_EPROTO,
     "SUBMIT: field search.nodes = 0, must be at least 1"},
    {build_search_submit, ss_movetime_over, PLY_EPROTO,
     "SUBMIT: field search.movetime_ms = 86400001, must be 1..86400000"},
    {build_search_submit, ss_unlimited, PLY_EPROTO,
     "SUBMIT: field search.depth, search.nodes or search.movetime_ms missing"},
    {build_search_submit, ss_movetime_only, 0, NULL},
    {build_search_submit, ss_engine_uci, 0, NULL},
    {build_search_submit, ss_engine_empty, 0, NULL},
    {build_search_submit, ss_engine_other, PLY_EPROTO,
     "SUBMIT: field search.engine = \"stockfish\", must be \"builtin\", \"uci\" or absent"},
    {build_search_submit, ss_verify, 0, NULL}, /* refused by the coordinator, with its reason */
    {build_search_submit, ss_kind_3, PLY_EPROTO,
     "SUBMIT: field search present in a submit of kind 3"},
    {build_submit, ps_with_search, PLY_EPROTO, "SUBMIT: field search present in a PERFT submit"},
    {build_search_run_result, srr_no_nodes, PLY_EPROTO, "RUN_RESULT: field nodes missing"},
    {build_search_run_result, srr_no_depth, 0, NULL},
    {build_search_run_result, srr_divide, PLY_EPROTO,
     "RUN_RESULT: field divide present beside search"},
    {build_search_run_result, srr_bad_status, PLY_EPROTO,
     "RUN_RESULT: field search.status = \"won\", must be"},
    {build_search_run_result, srr_checkmate, 0, NULL},
    {build_search_run_result, srr_bad_move, PLY_EPROTO,
     "RUN_RESULT: field search.moves[1].move is not a UCI move"},
    {build_search_run_result, srr_too_many_moves, PLY_EPROTO,
     "RUN_RESULT: field search.moves has 257 entries, must be at most 256"},
    {build_search_run_result, srr_bad_pv, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].line.pv[1] is not a UCI move"},
    {build_search_run_result, srr_long_pv, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].line.pv has 129 moves, must be at most 128"},
    {build_search_run_result, srr_two_scores, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].line: both of score_cp and mate"},
    {build_search_run_result, srr_long_pv_san, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].pv_san has 129 moves, must be at most 128"},
    {build_search_run_result, srr_bad_san, PLY_EPROTO,
     "RUN_RESULT: field search.moves[0].pv_san[1] has a control character"},
    {build_search_run_result, srr_long_worker, PLY_EPROTO,
     "RUN_RESULT: field search.moves[1].worker_id is over 512 bytes"},
    {build_search_run_result, srr_bad_rejection, PLY_EPROTO,
     "RUN_RESULT: field search.rejection[0] is 0 bytes, must be 1..512"},
    {build_search_run_result, srr_many_rejections, PLY_EPROTO,
     "RUN_RESULT: field search.rejection has 65 entries, must be at most 64"},
    {build_search_run_result, srr_asked_no_search, PLY_EPROTO,
     "RUN_RESULT: field asked.search missing (kind SEARCH)"},
    {build_search_run_result, srr_asked_perft_search, PLY_EPROTO,
     "RUN_RESULT: field asked.search present in a PERFT run's asked"},
    {build_search_run_result, srr_asked_bad_engine, PLY_EPROTO,
     "RUN_RESULT: field asked.search.engine = \"gnuchess\""},
    {build_search_progress, srp_bad_pv, PLY_EPROTO,
     "RUN_PROGRESS: field search.moves[1].line.pv[0] is not a UCI move"},
    {build_search_progress, srp_asked_unlimited, PLY_EPROTO,
     "RUN_PROGRESS: field asked.search.depth, asked.search.nodes or asked.search.movetime_ms"},
};

/* Each rule of the search kind, one case each, through ply_msg_validate and the wire. */
static void test_search_validation(void **state)
{
    (void)state;
    init_texts();
    for (size_t i = 0; i <= PLY_SEARCH_JOB_MAX_MOVES; i++) g_search_moves[i] = long_moves_text;
    round_trip(build_search_submit()); /* search runs: the client's and the answers' */
    round_trip(build_search_run_result());
    round_trip(build_search_progress());
    for (size_t i = 0; i < sizeof SCASES / sizeof SCASES[0]; i++) {
        const scase_t *v = &SCASES[i];
        ply_msg_t *m = v->build();
        v->edit(m);
        char why[256], why2[256];
        int rc = ply_msg_validate(m, why, sizeof why);
        if (rc != v->rc) fail_msg("search case %zu: rc %d, want %d: %s", i, rc, v->rc, why);
        if (v->reason && strncmp(why, v->reason, strlen(v->reason)) != 0)
            fail_msg("search case %zu: reason \"%s\", want \"%s...\"", i, why, v->reason);
        assert_true(one_line(why));
        zmsg_t *z = ply_msg_encode(m);
        assert_non_null(z);
        ply_msg_t *got = NULL;
        assert_int_equal(ply_msg_decode(z, &got, why2, sizeof why2), rc);
        assert_string_equal(why2, why);
        ply_msg_free(&got);
        zmsg_destroy(&z);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest quick[] = {
        cmocka_unit_test(test_golden_count),
        cmocka_unit_test(test_golden_encode),
        cmocka_unit_test(test_golden_decode),
        cmocka_unit_test(test_comparator_sees_differences),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_concatenated_bodies),
        cmocka_unit_test(test_frame_counts),
        cmocka_unit_test(test_oversized),
        cmocka_unit_test(test_unpack_budget),
        cmocka_unit_test(test_wrong_protocol_id),
        cmocka_unit_test(test_no_body),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_validation_covers_types),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_stats_conversion),
        cmocka_unit_test(test_stats128_conversion),
        cmocka_unit_test(test_text_sanitize),
        cmocka_unit_test(test_search_round_trip),
        cmocka_unit_test(test_search_validation),
    };
    const struct CMUnitTest net[] = {
        cmocka_unit_test(test_socket_round_trip),
        cmocka_unit_test(test_socket_limit),
    };
    const char *group = argc > 1 ? argv[1] : "all";
    int failed = 0;
    if (!strcmp(group, "quick") || !strcmp(group, "all"))
        failed += cmocka_run_group_tests_name("proto", quick, NULL, NULL);
    if (!strcmp(group, "net") || !strcmp(group, "all"))
        failed += cmocka_run_group_tests_name("proto_net", net, NULL, NULL);
    if (strcmp(group, "quick") && strcmp(group, "net") && strcmp(group, "all")) {
        fprintf(stderr, "usage: %s [quick|net]\n", argv[0]);
        return 2;
    }
    return failed ? 1 : 0;
}
