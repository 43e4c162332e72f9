/*
 * Seqlock transposition table (see tt.h for the protocol and invariants).
 * Sequence word: bit 0 = being written, bits 1-7 = depth, bits 8-63 = a
 * version that changes on every write, so a reader can tell a rewrite that
 * happened during its copy even if the depth is the same.
 */
#include "tt.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SEQ_BUSY 1ull
#define SEQ_DEPTH(s) ((unsigned)(((s) >> 1) & 127))
#define SEQ_VERSION_STEP 256ull

typedef struct entry_head {
    _Atomic uint64_t seq;
    uint64_t key[2];
} entry_head_t;

struct ply_tt {
    unsigned char *mem;
    size_t nbuckets;
    size_t entry_bytes;  /* head + payload */
    size_t bucket_bytes; /* two entries */
    size_t bytes; /* entries: whole buckets */
    size_t alloc; /* mapped: bytes rounded up to 2 MiB */
    unsigned payload_words;
};

ply_tt_t *ply_tt_new(size_t bytes, unsigned payload_words)
{
    if (payload_words < 1 || payload_words > PLY_TT_MAX_PAYLOAD) return NULL;
    size_t entry_bytes = sizeof(entry_head_t) + payload_words * sizeof(uint64_t);
    size_t bucket_bytes = 2 * entry_bytes;
    size_t nbuckets = bytes / bucket_bytes;
    if (nbuckets == 0) return NULL;
    ply_tt_t *tt = calloc(1, sizeof *tt);
    if (!tt) return NULL;
    tt->entry_bytes = entry_bytes;
    tt->bucket_bytes = bucket_bytes;
    tt->nbuckets = nbuckets;
    tt->payload_words = payload_words;
    tt->bytes = nbuckets * bucket_bytes;
    /* Anonymous pages arrive zeroed and are only faulted in when touched, so
     * a large table costs nothing up front and a short run touches little. */
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

int ply_tt_probe(ply_tt_t *tt, const uint64_t key[2], unsigned depth, uint64_t *payload)
{
    unsigned char *bucket = bucket_of(tt, key);
    for (int i = 0; i < 2; i++) {
        entry_head_t *e = (entry_head_t *)(bucket + i * tt->entry_bytes);
        uint64_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
        if ((s1 & SEQ_BUSY) || SEQ_DEPTH(s1) != depth || e->key[0] != key[0] || e->key[1] != key[1])
            continue;
        /* Copy to a local buffer first: a copy that races with a writer is
         * thrown away, and the caller's buffer must stay untouched on a miss. */
        uint64_t copy[PLY_TT_MAX_PAYLOAD];
        memcpy(copy, e + 1, tt->payload_words * sizeof(uint64_t));
        atomic_thread_fence(memory_order_acquire);
        uint64_t s2 = atomic_load_explicit(&e->seq, memory_order_relaxed);
        if (s1 != s2) continue; /* rewritten while we copied */
        memcpy(payload, copy, tt->payload_words * sizeof(uint64_t));
        return 1;
    }
    return 0;
}

void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload)
{
    if (depth < 1 || depth > PLY_TT_MAX_DEPTH) return;
    unsigned char *bucket = bucket_of(tt, key);
    entry_head_t *first = (entry_head_t *)bucket;
    entry_head_t *second = (entry_head_t *)(bucket + tt->entry_bytes);
    uint64_t s = atomic_load_explicit(&first->seq, memory_order_relaxed);
    /* The first entry keeps the deepest subtree (the most work saved); the
     * second takes whatever the first refuses. */
    entry_head_t *e = first;
    if (!(s & SEQ_BUSY) && SEQ_DEPTH(s) > depth &&
        !(first->key[0] == key[0] && first->key[1] == key[1])) {
        e = second;
        s = atomic_load_explicit(&e->seq, memory_order_relaxed);
    }
    if (s & SEQ_BUSY) return;
    if (!atomic_compare_exchange_strong_explicit(&e->seq, &s, s | SEQ_BUSY, memory_order_acquire,
                                                 memory_order_relaxed))
        return;
    e->key[0] = key[0];
    e->key[1] = key[1];
    memcpy(e + 1, payload, tt->payload_words * sizeof(uint64_t));
    uint64_t next = ((s & ~(SEQ_VERSION_STEP - 1)) + SEQ_VERSION_STEP) | ((uint64_t)depth << 1);
    atomic_store_explicit(&e->seq, next, memory_order_release);
}
