/*
 * The wire protocol's test messages (see proto_golden.h): one C builder per message type
 * with the values of tests/data/proto-golden, the vectors' loader, a deep comparison of
 * protobuf-c messages and the over-long texts that the mutations use.
 */
#include "proto_golden.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define GOLDEN_DIR PLY_TEST_DATA "/proto-golden/"

/* ---------------------------------------------------------------- helpers */

/* Reads tests/data/proto-golden/NAME.hex into a new buffer (caller frees). */
uint8_t *load_hex(const char *name, size_t *len)
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
zmsg_t *envelope(const char *id, const uint8_t *body, size_t len)
{
    zmsg_t *z = zmsg_new();
    if (id) zmsg_addmem(z, id, strlen(id));
    if (body) zmsg_addmem(z, body, len);
    return z;
}

/* Decodes (id, body); the outcome must be an error or a valid message. */
int decode_bytes(const char *id, const uint8_t *body, size_t len, char *why, size_t wl)
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
int one_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
    return 1;
}

/* ------------------------------------------------- generic deep comparison */

int msg_equal_quiet;
int msg_equal(const ProtobufCMessage *a, const ProtobufCMessage *b);

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
int msg_equal(const ProtobufCMessage *a, const ProtobufCMessage *b)
{
    if (!a || !b) return a == b;
    if (a->descriptor != b->descriptor) return 0;
    const ProtobufCMessageDescriptor *d = a->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        if (!field_equal(&d->fields[i], a, b)) {
            if (!msg_equal_quiet) print_message("differs: %s.%s\n", d->name, d->fields[i].name);
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

ply_msg_t *wrap(Ply__Message__BodyCase k)
{
    g_msg = (ply_msg_t)PLY__MESSAGE__INIT;
    g_msg.body_case = k;
    return &g_msg;
}

ply_msg_t *build_hello(void)
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

ply_msg_t *build_welcome(void)
{
    static Ply__Welcome m;
    m = (Ply__Welcome)PLY__WELCOME__INIT;
    m.has_heartbeat_ms = 1, m.heartbeat_ms = 1000;
    m.has_liveness = 1, m.liveness = 5;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_WELCOME);
    msg->welcome = &m;
    return msg;
}

ply_msg_t *build_ready(void)
{
    static Ply__Ready m;
    m = (Ply__Ready)PLY__READY__INIT;
    m.has_credit = 1, m.credit = 8;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_READY);
    msg->ready = &m;
    return msg;
}

const char KIWIPETE[] = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const char STARTFEN[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

ply_msg_t *build_job(void)
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

ply_msg_t *build_progress(void)
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

ply_msg_t *build_result(void)
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
ply_msg_t *result_with_entries(size_t n)
{
    ply_msg_t *m = build_result();
    for (size_t i = 0; i < n; i++) g_divide_ptr[i] = divide_entry(&g_divide[i], "a2a4", 1, NULL);
    m->result->n_divide = n;
    return m;
}

ply_msg_t *build_heartbeat(void)
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

ply_msg_t *build_error(void)
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

ply_msg_t *build_bye(void)
{
    static Ply__Bye m;
    m = (Ply__Bye)PLY__BYE__INIT;
    m.reason = "worker shutting down (SIGTERM)";
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_BYE);
    msg->bye = &m;
    return msg;
}

ply_msg_t *build_submit(void)
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

ply_msg_t *build_accepted(void)
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

ply_msg_t *build_status(void)
{
    static Ply__StatusRequest m;
    m = (Ply__StatusRequest)PLY__STATUS_REQUEST__INIT;
    m.has_run_id = 1, m.run_id = 77;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_STATUS);
    msg->status = &m;
    return msg;
}

Ply__WorkerStatus *worker_status(Ply__WorkerStatus *w, const char *id, uint32_t inflight,
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

ply_msg_t *build_run_progress(void)
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

ply_msg_t *build_run_result(void)
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

ply_msg_t *build_result_request(void)
{
    static Ply__ResultRequest m;
    m = (Ply__ResultRequest)PLY__RESULT_REQUEST__INIT;
    m.has_run_id = 1, m.run_id = 77;
    m.has_attach = 1, m.attach = 1;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_RESULT_REQUEST);
    msg->result_request = &m;
    return msg;
}

ply_msg_t *build_cancel(void)
{
    static Ply__Cancel m;
    m = (Ply__Cancel)PLY__CANCEL__INIT;
    m.has_run_id = 1, m.run_id = 77;
    ply_msg_t *msg = wrap(PLY__MESSAGE__BODY_CANCEL);
    msg->cancel = &m;
    return msg;
}

ply_msg_t *build_status_reply(void)
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

const struct golden GOLDEN[] = {
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
_Static_assert(NGOLDEN == sizeof GOLDEN / sizeof GOLDEN[0], "NGOLDEN counts GOLDEN");
/* ------------------------------------------------ text fixtures for mutations */

char long_text[PLY_MAX_TEXT + 2];   /* PLY_MAX_TEXT + 1 bytes */
char max_text[PLY_MAX_TEXT + 1];    /* exactly PLY_MAX_TEXT bytes */
char long_fen[PLY_MAX_FEN_LEN + 2]; /* PLY_MAX_FEN_LEN + 1 bytes */
char max_fen[PLY_MAX_FEN_LEN + 1];  /* exactly PLY_MAX_FEN_LEN */

void init_texts(void)
{
    memset(long_text, 'a', PLY_MAX_TEXT + 1);
    memset(max_text, 'a', PLY_MAX_TEXT);
    /* a three-byte character ending exactly at the limit */
    memcpy(max_text + PLY_MAX_TEXT - 3, "\xe2\x82\xac", 3);
    memset(long_fen, '8', PLY_MAX_FEN_LEN + 1);
    memset(max_fen, '8', PLY_MAX_FEN_LEN);
}
