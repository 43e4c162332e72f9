/*
 * Lockless, xor-verified transposition table (see tt.h for the protocol and
 * its invariants).
 *
 * A bucket holds P entries laid out by field, so that every word is aligned
 * (P = 3 for node counts: one 64-byte cache line; P = 2 for statistics):
 *   check[P]        uint64  key[0] xor H
 *   words[P][N]     uint64  word[0] = payload[0] << 6 | depth, then payload[1..N-1]
 *   check_hi[P]     uint32  (key[1] >> 32) xor (H >> 32)
 * where H is a hash of the N stored words (just word[0] when N = 1).
 *
 * Threads read and write entries concurrently by design (the check catches a
 * torn entry). Every access is a relaxed atomic load or store of one aligned
 * word: on x86-64 and AArch64 the very same instructions as plain ones, but a
 * data race in C11's terms is then none, so ThreadSanitizer (and the
 * compiler) see the table for what it is. Relaxed order is enough: no other
 * memory is published through an entry, and the check rejects any mixture of
 * words.
 */
#include "tt.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DEPTH_BITS 6
#define DEPTH_MASK ((1ull << DEPTH_BITS) - 1)
#define RELAXED    memory_order_relaxed

struct ply_tt {
    unsigned char *mem;
    size_t nbuckets;
    size_t bucket_bytes; /* per_bucket entries, padded for node counts to one cache line */
    unsigned per_bucket;
    size_t bytes; /* entries: whole buckets */
    size_t alloc; /* mapped: bytes rounded up to 2 MiB */
    unsigned payload_words;
};

/* The three arrays of a bucket (see the layout above). */
typedef struct bucket {
    _Atomic uint64_t *check;
    _Atomic uint64_t *words; /* entry i's words at words + i * payload_words */
    _Atomic uint32_t *check_hi;
} bucket_t;

ply_tt_t *ply_tt_new(size_t bytes, unsigned payload_words)
{
    if (payload_words < 1 || payload_words > PLY_TT_MAX_PAYLOAD) return NULL;
    /* Node counts: three 20-byte entries fill a cache line. Larger entries
     * span lines anyway: two to a bucket. */
    unsigned per_bucket = payload_words == 1 ? 3 : 2;
    size_t bucket_bytes = (size_t)per_bucket * (8 + 8 * (size_t)payload_words + 4);
    bucket_bytes = (bucket_bytes + 7) & ~(size_t)7; /* every bucket 8-byte aligned */
    _Static_assert(3 * (8 + 8 + 4) <= 64, "a node-count bucket fits one cache line");
    if (payload_words == 1) bucket_bytes = 64;
    size_t nbuckets = bytes / bucket_bytes;
    if (nbuckets == 0) return NULL;
    ply_tt_t *tt = calloc(1, sizeof *tt);
    if (!tt) return NULL;
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

static inline unsigned char *bucket_mem(const ply_tt_t *tt, const uint64_t key[2])
{
    /* Multiply-high maps the key uniformly onto any bucket count. */
    size_t idx = (size_t)(((unsigned __int128)key[0] * tt->nbuckets) >> 64);
    return tt->mem + idx * tt->bucket_bytes;
}

static inline bucket_t bucket_of(const ply_tt_t *tt, const uint64_t key[2])
{
    unsigned char *m = bucket_mem(tt, key);
    const size_t p = tt->per_bucket;
    bucket_t b = {(_Atomic uint64_t *)m, (_Atomic uint64_t *)(m + 8 * p),
                  (_Atomic uint32_t *)(m + 8 * p * (1 + tt->payload_words))};
    return b;
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
    __builtin_prefetch(bucket_mem(tt, key));
}

int ply_tt_probe(ply_tt_t *tt, const uint64_t key[2], unsigned depth, uint64_t *payload)
{
    const unsigned n = tt->payload_words;
    const bucket_t b = bucket_of(tt, key);
    for (unsigned i = 0; i < tt->per_bucket; i++) {
        _Atomic uint64_t *e = b.words + (size_t)i * n;
        uint64_t w[PLY_TT_MAX_PAYLOAD];
        w[0] = atomic_load_explicit(&e[0], RELAXED); /* word 0 first: most probes stop here */
        if ((w[0] & DEPTH_MASK) != depth) continue;
        const uint64_t check = atomic_load_explicit(&b.check[i], RELAXED);
        for (unsigned k = 1; k < n; k++) w[k] = atomic_load_explicit(&e[k], RELAXED);
        const uint64_t h = words_hash(w, n);
        const uint32_t check_hi = atomic_load_explicit(&b.check_hi[i], RELAXED);
        if ((check ^ h) != key[0] || (check_hi ^ (uint32_t)(h >> 32)) != (uint32_t)(key[1] >> 32)) continue;
        payload[0] = w[0] >> DEPTH_BITS;
        for (unsigned k = 1; k < n; k++) payload[k] = w[k];
        return 1;
    }
    return 0;
}

void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload)
{
    if (depth < 1 || depth > PLY_TT_MAX_DEPTH || payload[0] > PLY_TT_MAX_VALUE) return;
    const unsigned n = tt->payload_words;
    const bucket_t b = bucket_of(tt, key);
    unsigned victim = 0, shallowest = DEPTH_MASK + 1;
    for (unsigned i = 0; i < tt->per_bucket; i++) {
        unsigned d =
            (unsigned)(atomic_load_explicit(&b.words[(size_t)i * n], RELAXED) & DEPTH_MASK);
        if (d < shallowest) {
            shallowest = d;
            victim = i;
        }
    }
    uint64_t w[PLY_TT_MAX_PAYLOAD];
    w[0] = payload[0] << DEPTH_BITS | depth;
    for (unsigned k = 1; k < n; k++) w[k] = payload[k];
    const uint64_t h = words_hash(w, n);
    atomic_store_explicit(&b.check[victim], key[0] ^ h, RELAXED);
    atomic_store_explicit(&b.check_hi[victim], (uint32_t)(key[1] >> 32) ^ (uint32_t)(h >> 32),
                          RELAXED);
    _Atomic uint64_t *e = b.words + (size_t)victim * n;
    for (unsigned k = 0; k < n; k++) atomic_store_explicit(&e[k], w[k], RELAXED);
}
