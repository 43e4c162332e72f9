/*
 * Lockless, xor-verified transposition table (see tt.h for the protocol and
 * its invariants).
 *
 * Node counts (N = 1): a bucket holds 3 entries laid out by field, so that
 * every word is aligned, in one 64-byte cache line:
 *   check[3]        uint64  key[0] xor H
 *   words[3]        uint64  payload << 6 | depth
 *   check_hi[3]     uint32  (key[1] >> 32) xor (H >> 32)
 * where H is the stored word itself.
 *
 * Larger payloads (N > 1: the statistics) are compressed, since most of
 * their counters are far smaller than 64 bits: a bucket is one 64-byte cache
 * line of eight words w[0..7], holding either two narrow entries (w[0..3],
 * w[4..7]) or one wide entry (all eight). An entry's words:
 *   w[0]            key[0] xor H
 *   w[1] bits 0-31  (key[1] >> 32) xor (H >> 32)
 *   w[1] bits 32-37 depth;  bit 38: wide
 *   w[1] bits 39-63, then w[2..]: the code of the payload (153 bits in a
 *                   narrow entry, 409 in a wide one)
 * where H is a hash of the entry's words from w[1] bit 32 on. The code: L, the
 * widest value's width in bits (7 bits, 0..64); each value's width in
 * bits(L) bits; then each nonzero value without its top bit, which its width
 * implies. A payload whose code fits neither size is not stored (a probe
 * misses: only speed is lost); perft's statistics need about 90 bits below
 * depth 3 and 120 at depth 3, so most entries are narrow (32 bytes, two to a
 * line, against three node counts).
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
    int compact; /* N > 1: the compressed buckets above */
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
    /* Every bucket is one cache line: three node counts, or two narrow
     * (one wide) compressed entries. */
    const unsigned per_bucket = payload_words == 1 ? 3 : 2;
    const size_t bucket_bytes = 64;
    _Static_assert(3 * (8 + 8 + 4) <= 64, "a node-count bucket fits one cache line");
    size_t nbuckets = bytes / bucket_bytes;
    if (nbuckets == 0) return NULL;
    ply_tt_t *tt = calloc(1, sizeof *tt);
    if (!tt) return NULL;
    tt->bucket_bytes = bucket_bytes;
    tt->per_bucket = per_bucket;
    tt->nbuckets = nbuckets;
    tt->payload_words = payload_words;
    tt->compact = payload_words > 1;
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

size_t ply_tt_bytes(const ply_tt_t *tt)
{
    return tt->bytes;
}

unsigned ply_tt_payload_words(const ply_tt_t *tt)
{
    return tt->payload_words;
}

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

/* ---- compressed entries (N > 1) ---------------------------------------------- */

#define CODE_START  (64 + 39) /* the code's first bit: w[1] bit 39 */
#define NARROW_BITS (4 * 64 - CODE_START)
#define WIDE_BITS   (8 * 64 - CODE_START)
#define WIDE_FLAG   (1ull << 38)

static inline unsigned width_of(uint64_t v)
{
    return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* Adds the low @n bits of @v (n <= 64, the rest zero) at bit *@pos of @w. */
static inline void put_bits(uint64_t *w, unsigned *pos, uint64_t v, unsigned n)
{
    if (!n) return;
    const unsigned i = *pos >> 6, o = *pos & 63;
    w[i] |= v << o;
    if (o + n > 64) w[i + 1] |= v >> (64 - o);
    *pos += n;
}

static inline uint64_t get_bits(const uint64_t *w, unsigned *pos, unsigned n)
{
    if (!n) return 0;
    const unsigned i = *pos >> 6, o = *pos & 63;
    uint64_t v = w[i] >> o;
    if (o + n > 64) v |= w[i + 1] << (64 - o);
    *pos += n;
    return n < 64 ? v & ((1ull << n) - 1) : v;
}

/* The code's length in bits for @p (see the layout at the top). */
static unsigned code_bits(const uint64_t *p, unsigned n, unsigned *widest)
{
    unsigned l = 0, bits = 0;
    for (unsigned k = 0; k < n; k++) {
        const unsigned w = width_of(p[k]);
        if (w > l) l = w;
        bits += w ? w - 1 : 0;
    }
    *widest = l;
    return 7 + n * width_of(l) + bits;
}

/* Writes the code of @p into @w (zeroed beforehand) from CODE_START on. */
static void encode(uint64_t *w, const uint64_t *p, unsigned n, unsigned widest)
{
    unsigned pos = CODE_START;
    const unsigned wb = width_of(widest);
    put_bits(w, &pos, widest, 7);
    for (unsigned k = 0; k < n; k++) put_bits(w, &pos, width_of(p[k]), wb);
    for (unsigned k = 0; k < n; k++) {
        const unsigned wk = width_of(p[k]);
        if (wk > 1) /* the top bit goes without saying */
            put_bits(w, &pos, p[k] & ((1ull << (wk - 1)) - 1), wk - 1);
    }
}

/* Reads a code written by encode; 0, or -1 when it is malformed (a torn or
 * foreign entry whose check happened to pass cannot be: this only guards the
 * reads). */
static int decode(const uint64_t *w, unsigned nwords, uint64_t *p, unsigned n)
{
    unsigned pos = CODE_START, widths[PLY_TT_MAX_PAYLOAD];
    const unsigned widest = (unsigned)get_bits(w, &pos, 7);
    const unsigned wb = width_of(widest), end = nwords * 64;
    if (widest > 64 || pos + n * wb > end) return -1;
    for (unsigned k = 0; k < n; k++) {
        widths[k] = (unsigned)get_bits(w, &pos, wb);
        if (widths[k] > 64) return -1;
    }
    for (unsigned k = 0; k < n; k++) {
        const unsigned wk = widths[k];
        if (wk > 1 && pos + wk - 1 > end) return -1;
        p[k] = wk == 0 ? 0 : (1ull << (wk - 1)) | (wk > 1 ? get_bits(w, &pos, wk - 1) : 0);
    }
    return 0;
}

/* H of an entry of @nwords words: everything from w[1] bit 32 on. */
static inline uint64_t code_hash(const uint64_t *w, unsigned nwords)
{
    uint64_t h = w[1] >> 32;
    for (unsigned k = 2; k < nwords; k++) {
        h ^= w[k];
        h *= 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

static inline _Atomic uint64_t *line_of(const ply_tt_t *tt, const uint64_t key[2])
{
    return (_Atomic uint64_t *)bucket_mem(tt, key);
}

/* Reads the entry of @nwords words at @e and checks it against @key. */
static int compact_read(_Atomic uint64_t *e, unsigned nwords, const uint64_t key[2], uint64_t w1,
                        uint64_t *w)
{
    w[0] = atomic_load_explicit(&e[0], RELAXED);
    w[1] = w1;
    for (unsigned k = 2; k < nwords; k++) w[k] = atomic_load_explicit(&e[k], RELAXED);
    const uint64_t h = code_hash(w, nwords);
    return (w[0] ^ h) == key[0] &&
           ((uint32_t)w[1] ^ (uint32_t)(h >> 32)) == (uint32_t)(key[1] >> 32);
}

static int compact_probe(ply_tt_t *tt, const uint64_t key[2], unsigned depth, uint64_t *payload)
{
    _Atomic uint64_t *line = line_of(tt, key);
    uint64_t w[9] = {0};
    const uint64_t w1 = atomic_load_explicit(&line[1], RELAXED);
    const int wide = (w1 & WIDE_FLAG) != 0;
    if (((w1 >> 32) & DEPTH_MASK) == depth) {
        if (compact_read(line, wide ? 8 : 4, key, w1, w) &&
            decode(w, wide ? 8 : 4, payload, tt->payload_words) == 0)
            return 1;
    }
    if (wide) return 0; /* the second half is the wide entry's */
    const uint64_t w5 = atomic_load_explicit(&line[5], RELAXED);
    if (((w5 >> 32) & DEPTH_MASK) != depth || (w5 & WIDE_FLAG)) return 0;
    memset(w, 0, sizeof w);
    return compact_read(line + 4, 4, key, w5, w) && decode(w, 4, payload, tt->payload_words) == 0;
}

/* Replacement: a narrow entry replaces the shallower of the two (a wide one
 * only when at least as deep: it answers for a whole bucket of work); a wide
 * entry replaces the bucket unless a deeper wide entry is there. */
static void compact_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth,
                          const uint64_t *payload)
{
    unsigned widest;
    const unsigned bits = code_bits(payload, tt->payload_words, &widest);
    if (bits > WIDE_BITS) return;
    const int wide = bits > NARROW_BITS;
    _Atomic uint64_t *line = line_of(tt, key);
    const uint64_t w1 = atomic_load_explicit(&line[1], RELAXED);
    const unsigned d0 = (unsigned)((w1 >> 32) & DEPTH_MASK);
    unsigned at = 0;
    if (w1 & WIDE_FLAG) {
        if (d0 > depth) return;
        if (!wide) atomic_store_explicit(&line[5], 0, RELAXED); /* the other half: empty */
    } else if (!wide) {
        const unsigned d1 =
            (unsigned)((atomic_load_explicit(&line[5], RELAXED) >> 32) & DEPTH_MASK);
        at = d1 < d0 ? 4 : 0;
    }
    const unsigned nwords = wide ? 8 : 4;
    uint64_t w[9] = {0};
    w[1] = (uint64_t)depth << 32 | (wide ? WIDE_FLAG : 0);
    encode(w, payload, tt->payload_words, widest);
    const uint64_t h = code_hash(w, nwords);
    w[0] = key[0] ^ h;
    w[1] |= (uint32_t)(key[1] >> 32) ^ (uint32_t)(h >> 32);
    for (unsigned k = 0; k < nwords; k++) atomic_store_explicit(&line[at + k], w[k], RELAXED);
}

void ply_tt_prefetch(const ply_tt_t *tt, const uint64_t key[2])
{
    __builtin_prefetch(bucket_mem(tt, key));
}

int ply_tt_probe(ply_tt_t *tt, const uint64_t key[2], unsigned depth, uint64_t *payload)
{
    if (tt->compact) return compact_probe(tt, key, depth, payload);
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
        if ((check ^ h) != key[0] || (check_hi ^ (uint32_t)(h >> 32)) != (uint32_t)(key[1] >> 32))
            continue;
        payload[0] = w[0] >> DEPTH_BITS;
        for (unsigned k = 1; k < n; k++) payload[k] = w[k];
        return 1;
    }
    return 0;
}

void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload)
{
    if (depth < 1 || depth > PLY_TT_MAX_DEPTH) return;
    if (tt->compact) {
        compact_store(tt, key, depth, payload);
        return;
    }
    if (payload[0] > PLY_TT_MAX_VALUE) return;
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
