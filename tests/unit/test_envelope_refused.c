/*
 * Tests of proto/envelope_refused.c (ply_msg_refused_result): what can still be read from
 * a message the envelope refused. The bytes are protoc's golden vectors
 * (tests/data/proto-golden, see tests/support/proto_golden.h): result.txtpb names job
 * 123456789012, attempt 2, and its encoding opens with the Result's tag and length (3
 * bytes), then job_id (7 bytes) and attempt (2 bytes).
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

#define JOB_ID  123456789012ull
#define ATTEMPT 2u

/* ply_msg_refused_result on the frames (@id, the first @len bytes of @body). */
static int refused(const char *id, const uint8_t *body, size_t len, uint64_t *job,
                   uint32_t *attempt)
{
    zmsg_t *z = envelope(id, body, len);
    int rc = ply_msg_refused_result(z, job, attempt);
    zmsg_destroy(&z);
    return rc;
}

/* A whole Result, and one cut short anywhere after its attempt, still names its job. */
static void test_cut_result(void **state)
{
    (void)state;
    size_t n;
    uint8_t *bytes = load_hex("result", &n);
    uint64_t job;
    uint32_t attempt;
    assert_int_equal(refused(PLY_PROTOCOL_ID, bytes, n, &job, &attempt), 1);
    assert_int_equal(job, JOB_ID);
    assert_int_equal(attempt, ATTEMPT);
    for (size_t len = 12; len < n; len++) {
        job = 0, attempt = 0;
        if (refused(PLY_PROTOCOL_ID, bytes, len, &job, &attempt) != 1 || job != JOB_ID ||
            attempt != ATTEMPT)
            fail_msg("a Result cut to %zu bytes: job %llu attempt %u", len, (unsigned long long)job,
                     attempt);
    }
    /* cut before its attempt is whole: nothing, and both numbers 0 (envelope.h), even when
     * the job id was whole before the cut */
    for (size_t len = 0; len < 12; len++) {
        job = 1, attempt = 1;
        assert_int_equal(refused(PLY_PROTOCOL_ID, bytes, len, &job, &attempt), 0);
        assert_int_equal(job, 0);
        assert_int_equal(attempt, 0);
    }
    free(bytes);
}

/* Anything else: no numbers. */
static void test_not_a_result(void **state)
{
    (void)state;
    size_t n;
    uint64_t job;
    uint32_t attempt;
    uint8_t *bytes = load_hex("job", &n); /* a Job has a job_id and an attempt too */
    assert_int_equal(refused(PLY_PROTOCOL_ID, bytes, n, &job, &attempt), 0);
    free(bytes);
    bytes = load_hex("result", &n);
    assert_int_equal(refused(PLY_PROTOCOL_ID_PREV, bytes, n, &job, &attempt), 0);
    assert_int_equal(refused("HTTP/1.1", bytes, n, &job, &attempt), 0);
    zmsg_t *z = envelope(NULL, bytes, n); /* one frame */
    assert_int_equal(ply_msg_refused_result(z, &job, &attempt), 0);
    zmsg_destroy(&z);
    assert_int_equal(ply_msg_refused_result(NULL, &job, &attempt), 0);
    assert_true(job == 0 && attempt == 0);
    /* a Result without its attempt (attempt 0 is no attempt) */
    bytes[10] = 0x10, bytes[11] = 0x00;
    assert_int_equal(refused(PLY_PROTOCOL_ID, bytes, n, &job, &attempt), 0);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_result),
        cmocka_unit_test(test_not_a_result),
    };
    return cmocka_run_group_tests_name("envelope_refused", tests, NULL, NULL);
}
