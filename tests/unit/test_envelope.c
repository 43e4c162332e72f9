/*
 * Tests of proto/envelope.c: framing, encoding and decoding of the wire protocol's
 * messages (envelope.h), on the golden messages of tests/support/proto_golden.h.
 *
 * Golden vectors: tests/data/proto-golden/NAME.hex are the bytes Google's
 * protoc writes for NAME.txtpb (see the README there), an encoder independent
 * of protobuf-c. Each test message is built in C with the same values,
 * encoded and compared byte for byte, and each vector is decoded and compared
 * field by field with the C message.
 * Robustness: every truncation and every single-bit flip of every vector,
 * random and structured random bytes (fixed seed), bad framing, oversized
 * frames and foreign protocol ids must give PLY_EPROTO / PLY_EVERSION, or a
 * message that passes validation, and never crash or leak (run it under the
 * asan-ubsan preset). Then the type names, the statistics' conversions and the
 * sanitizer of peer text.
 * Sockets (argument "net"): ROUTER + DEALER over inproc://, and the
 * transport size limit over tcp:// on loopback.
 * The validation of each type is tested in test_envelope_validate.c, the search
 * kind's messages in test_envelope_search.c.
 *
 * Usage: test_envelope [quick|net] (no argument runs both groups).
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
#include "proto_golden.h"
#include "util/error.h"
#include "test_rng.h"

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
    msg_equal_quiet = 1;
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
    msg_equal_quiet = 0;
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

int main(int argc, char **argv)
{
    const struct CMUnitTest quick[] = {
        cmocka_unit_test(test_golden_count),     cmocka_unit_test(test_golden_encode),
        cmocka_unit_test(test_golden_decode),    cmocka_unit_test(test_comparator_sees_differences),
        cmocka_unit_test(test_truncations),      cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_random_bytes),     cmocka_unit_test(test_concatenated_bodies),
        cmocka_unit_test(test_frame_counts),     cmocka_unit_test(test_oversized),
        cmocka_unit_test(test_unpack_budget),    cmocka_unit_test(test_wrong_protocol_id),
        cmocka_unit_test(test_no_body),          cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_stats_conversion), cmocka_unit_test(test_stats128_conversion),
        cmocka_unit_test(test_text_sanitize),
    };
    const struct CMUnitTest net[] = {
        cmocka_unit_test(test_socket_round_trip),
        cmocka_unit_test(test_socket_limit),
    };
    const char *group = argc > 1 ? argv[1] : "all";
    int failed = 0;
    if (!strcmp(group, "quick") || !strcmp(group, "all"))
        failed += cmocka_run_group_tests_name("envelope", quick, NULL, NULL);
    if (!strcmp(group, "net") || !strcmp(group, "all"))
        failed += cmocka_run_group_tests_name("envelope_net", net, NULL, NULL);
    if (strcmp(group, "quick") && strcmp(group, "net") && strcmp(group, "all")) {
        fprintf(stderr, "usage: %s [quick|net]\n", argv[0]);
        return 2;
    }
    return failed ? 1 : 0;
}
