/*
 * Lockless, xor-verified transposition table (see tt.h for the protocol and
 * its invariants).
 *
 * Entry layout, little-endian bytes:
 *   0..7    check    = key[0] xor H
 *   8..11   check_hi = (key[1] >> 32) xor (H >> 32)
 *   12..    word[0]  = payload[0] << 6 | depth, then payload[1..N-1]
 * where H is a hash of the N stored words (just word[0] when N = 1). The
 * words are copied in and out with memcpy: entries are not 8-byte aligned,
 * and the copies race with other threads by design (the check catches it).
 */
#include "tt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HEAD_BYTES 12 /* check + check_hi */
#define DEPTH_BITS 6
#define DEPTH_MASK ((1ull << DEPTH_BITS) - 1)

struct ply_tt {
    unsigned char *mem;
    size_t nbuckets;
    size_t entry_bytes;  /* HEAD_BYTES + 8 * payload_words */
    size_t bucket_bytes; /* per_bucket entries, padded for node counts to one cache line */
    unsigned per_bucket;
    size_t bytes; /* entries: whole buckets */
    size_t alloc; /* mapped: bytes rounded up to 2 MiB */
    unsigned payload_words;
};

ply_tt_t *ply_tt_new(size_t bytes, unsigned payload_words)
{
    if (payload_words < 1 || payload_words > PLY_TT_MAX_PAYLOAD) return NULL;
    size_t entry_bytes = HEAD_BYTES + 8 * (size_t)payload_words;
    /* Node counts: three 20-byte entries fill a cache line. Larger entries
     * span lines anyway: two to a bucket. */
    unsigned per_bucket = payload_words == 1 ? 3 : 2;
    size_t bucket_bytes = payload_words == 1 ? 64 : 2 * entry_bytes;
    size_t nbuckets = bytes / bucket_bytes;
    if (nbuckets == 0) return NULL;
    ply_tt_t *tt = calloc(1, sizeof *tt);
    if (!tt) return NULL;
    tt->entry_bytes = entry_bytes;
    tt->bucket_bytes = bucket_bytes;
    tt->per_bucket = per_bucket;
    tt->nbuckets = nbuckets;
    tt->payload_words = payload_words;
    tt->bytes = nbuckets * bucket_bytes;
    /* Anonymous pages arrive zeroed and are only faulted in when touched, so
     * a large table costs nothing up front and a short run touches little.
     * A zeroed entry never verifies: its check would have to equal the key. */
    tt->alloc = (tt->bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    tt->mem = mmap(NULL, tt->alloc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tt->mem == MAP_FAILED) {
        free(tt);
        return NULL;
    }
    /* Probes are random: huge pages save TLB misses (a hint; may be ignored). */
    madvise(tt->mem, tt->alloc, MADV_HUGEPAGE);
    return tt;
}

void ply_tt_destroy(ply_tt_t **tt)
{
    if (!tt || !*tt) return;
    munmap((*tt)->mem, (*tt)->alloc);
    free(*tt);
    *tt = NULL;
}

void ply_tt_clear(ply_tt_t *tt)
{
    /* Dropping the pages zeroes them on next touch, faster than memset. */
    if (madvise(tt->mem, tt->alloc, MADV_DONTNEED) != 0) memset(tt->mem, 0, tt->bytes);
}

size_t ply_tt_bytes(const ply_tt_t *tt) { return tt->bytes; }

unsigned ply_tt_payload_words(const ply_tt_t *tt) { return tt->payload_words; }

static inline unsigned char *bucket_of(const ply_tt_t *tt, const uint64_t key[2])
{
    /* Multiply-high maps the key uniformly onto any bucket count. */
    size_t idx = (size_t)(((unsigned __int128)key[0] * tt->nbuckets) >> 64);
    return tt->mem + idx * tt->bucket_bytes;
}

/* H: the stored words themselves for one word; a multiplicative mix for more,
 * so that any torn mixture of two entries' words changes it. */
static inline uint64_t words_hash(const uint64_t *w, unsigned n)
{
    uint64_t h = w[0];
    for (unsigned i = 1; i < n; i++) {
        h ^= w[i];
        h *= 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    return h;
}

void ply_tt_prefetch(const ply_tt_t *tt, const uint64_t key[2])
{
    __builtin_prefetch(bucket_of(tt, key));
}

int ply_tt_probe(ply_tt_t *tt, const uint64_t key[2], unsigned depth, uint64_t *payload)
{
    const unsigned n = tt->payload_words;
    unsigned char *e = bucket_of(tt, key);
    for (unsigned i = 0; i < tt->per_bucket; i++, e += tt->entry_bytes) {
        uint64_t check, w[PLY_TT_MAX_PAYLOAD];
        uint32_t check_hi;
        memcpy(&check, e, 8);
        memcpy(w, e + HEAD_BYTES, 8); /* word 0 first: most probes stop here */
        if ((w[0] & DEPTH_MASK) != depth) continue;
        if (n > 1) memcpy(w + 1, e + HEAD_BYTES + 8, 8 * (size_t)(n - 1));
        uint64_t h = words_hash(w, n);
        memcpy(&check_hi, e + 8, 4);
        if ((check ^ h) != key[0] || (check_hi ^ (uint32_t)(h >> 32)) != (uint32_t)(key[1] >> 32)) continue;
        payload[0] = w[0] >> DEPTH_BITS;
        if (n > 1) memcpy(payload + 1, w + 1, 8 * (size_t)(n - 1));
        return 1;
    }
    return 0;
}

void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload)
{
    if (depth < 1 || depth > PLY_TT_MAX_DEPTH || payload[0] > PLY_TT_MAX_VALUE) return;
    const unsigned n = tt->payload_words;
    unsigned char *bucket = bucket_of(tt, key), *victim = bucket;
    unsigned shallowest = DEPTH_MASK + 1;
    for (unsigned i = 0; i < tt->per_bucket; i++) {
        unsigned char *e = bucket + i * tt->entry_bytes;
        uint64_t w0;
        memcpy(&w0, e + HEAD_BYTES, 8);
        if ((unsigned)(w0 & DEPTH_MASK) < shallowest) {
            shallowest = (unsigned)(w0 & DEPTH_MASK);
            victim = e;
        }
    }
    uint64_t w[PLY_TT_MAX_PAYLOAD];
    w[0] = payload[0] << DEPTH_BITS | depth;
    if (n > 1) memcpy(w + 1, payload + 1, 8 * (size_t)(n - 1));
    uint64_t h = words_hash(w, n);
    uint64_t check = key[0] ^ h;
    uint32_t check_hi = (uint32_t)(key[1] >> 32) ^ (uint32_t)(h >> 32);
    memcpy(victim, &check, 8);
    memcpy(victim + 8, &check_hi, 4);
    memcpy(victim + HEAD_BYTES, w, 8 * (size_t)n);
}
