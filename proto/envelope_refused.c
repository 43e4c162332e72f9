/*
 * What can still be read from a message the envelope refused: the job id and attempt of a
 * worker's Result that is malformed (a field out of range, a PV move that is no UCI move)
 * or cut short, so that the coordinator fails that attempt at once instead of waiting for
 * its lease. Nothing here is trusted beyond the two numbers: the caller checks that the
 * sender holds that attempt. The scan reads protobuf's wire format (varints, tags and
 * lengths, https://protobuf.dev/programming-guides/encoding/) by hand because protobuf-c
 * unpacks all or nothing; every read is bounded by the frame.
 */
#include <string.h>

#include "envelope.h"

/* Protobuf wire types and the field numbers read (ply.proto: Message.result, Result). */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };
enum { MESSAGE_RESULT = 6, RESULT_JOB_ID = 1, RESULT_ATTEMPT = 2 };

/* Reads a varint at *p (< end) into *v; 0, or -1 when it is cut short or longer than 10 bytes. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *p < end && shift < 70; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

/* Skips the value of a field of wire type @wt; 0, or -1 when it does not fit (or is unknown). */
static int skip(const uint8_t **p, const uint8_t *end, unsigned wt)
{
    uint64_t n;
    switch (wt) {
    case WT_VARINT:
        return varint(p, end, &n);
    case WT_I64:
        n = 8;
        break;
    case WT_I32:
        n = 4;
        break;
    case WT_LEN:
        if (varint(p, end, &n) < 0) return -1;
        break;
    default:
        return -1;
    }
    if (n > (uint64_t)(end - *p)) return -1;
    *p += n;
    return 0;
}

/* In a Result's bytes [p, end), possibly cut short: its job_id and attempt, when both come
 * before the cut. */
static int result_ids(const uint8_t *p, const uint8_t *end, uint64_t *job_id, uint32_t *attempt)
{
    int have = 0;
    while (p < end && have != 3) {
        uint64_t tag, v;
        if (varint(&p, end, &tag) < 0) break;
        unsigned field = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
        if ((field == RESULT_JOB_ID || field == RESULT_ATTEMPT) && wt == WT_VARINT) {
            if (varint(&p, end, &v) < 0) break;
            if (field == RESULT_JOB_ID) *job_id = v, have |= 1;
            if (field == RESULT_ATTEMPT && v <= UINT32_MAX) *attempt = (uint32_t)v, have |= 2;
        } else if (skip(&p, end, wt) < 0) {
            break;
        }
    }
    return have == 3 && *job_id && *attempt ? 1 : 0;
}

int ply_msg_refused_result(zmsg_t *zmsg, uint64_t *job_id, uint32_t *attempt)
{
    *job_id = 0, *attempt = 0;
    if (!zmsg || zmsg_size(zmsg) != 2) return 0;
    zframe_t *id = zmsg_first(zmsg), *body = zmsg_next(zmsg);
    if (zframe_size(id) != strlen(PLY_PROTOCOL_ID) ||
        memcmp(zframe_data(id), PLY_PROTOCOL_ID, zframe_size(id)) != 0 ||
        zframe_size(body) > PLY_MAX_MESSAGE_BYTES)
        return 0;
    const uint8_t *p = zframe_data(body), *end = p + zframe_size(body);
    while (p < end) {
        uint64_t tag, len;
        if (varint(&p, end, &tag) < 0) return 0;
        if ((tag >> 3) == MESSAGE_RESULT && (tag & 7) == WT_LEN) {
            if (varint(&p, end, &len) < 0) return 0;
            /* a Result cut short still names its job: its ids come first on the wire */
            const uint8_t *stop = len < (uint64_t)(end - p) ? p + len : end;
            if (result_ids(p, stop, job_id, attempt)) return 1;
            *job_id = 0, *attempt = 0; /* a job id without its attempt names nothing */
            return 0;
        }
        if (skip(&p, end, (unsigned)(tag & 7)) < 0) return 0;
    }
    return 0;
}
