/*
 * The search's lock-free transposition table (stt.h for the invariants).
 */
#include "stt.h"

#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "util/error.h"

static inline uint64_t load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void store(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* The generation: written between searches, read by every store, and by an import from
 * another thread during a search (ply_stt_import): a relaxed atomic. */
static unsigned gen_of(const ply_stt_t *t)
{
    return __atomic_load_n(&t->gen, __ATOMIC_RELAXED);
}

static uint64_t pack(uint16_t move, int score, int eval, int depth, int bound, unsigned gen)
{
    return (uint64_t)move | (uint64_t)(uint16_t)(int16_t)score << 16 |
           (uint64_t)(uint16_t)(int16_t)eval << 32 | (uint64_t)(uint8_t)(depth + 1) << 48 |
           (uint64_t)bound << 56 | (uint64_t)gen << 58;
}

static int data_depth(uint64_t d)
{
    return (int)((d >> 48) & 0xff) - 1;
}
static int data_bound(uint64_t d)
{
    return (int)((d >> 56) & 3);
}
static unsigned data_gen(uint64_t d)
{
    return (unsigned)(d >> 58);
}

int ply_stt_init(ply_stt_t *t, size_t bytes)
{
    size_t n = bytes / (PLY_STT_BUCKET * sizeof(ply_stt_entry_t));
    if (n < 1) n = 1;
    size_t size = n * PLY_STT_BUCKET * sizeof(ply_stt_entry_t);
    ply_stt_entry_t *e = aligned_alloc(64, size);
    if (!e) return PLY_ENOMEM;
    t->entries = e;
    t->n_buckets = n;
    t->log = NULL;
    ply_stt_clear(t);
    return 0;
}

void ply_stt_free(ply_stt_t *t)
{
    free(t->entries);
    t->entries = NULL;
    t->n_buckets = 0;
}

void ply_stt_clear(ply_stt_t *t)
{
    /* An empty entry has bound PLY_STT_NONE, so a zero key cannot match a zero word. */
    const uint64_t empty = pack(0, 0, PLY_STT_NO_EVAL, -1, PLY_STT_NONE, 0);
    size_t n = t->n_buckets * PLY_STT_BUCKET;
    for (size_t i = 0; i < n; i++) {
        store(&t->entries[i].data, empty);
        store(&t->entries[i].check, empty ^ ~0ull);
    }
    __atomic_store_n(&t->gen, 0, __ATOMIC_RELAXED);
}

void ply_stt_new_search(ply_stt_t *t)
{
    __atomic_store_n(&t->gen, (gen_of(t) + 1) & 63, __ATOMIC_RELAXED);
}

static ply_stt_entry_t *bucket(const ply_stt_t *t, const uint64_t key[2])
{
    /* Multiply-shift maps the 64-bit word onto [0, n_buckets) without a
     * division (ply_stt_prefetch computes the same). */
    size_t i = (size_t)(((unsigned __int128)key[1] * t->n_buckets) >> 64);
    return &t->entries[i * PLY_STT_BUCKET];
}

int ply_stt_probe(const ply_stt_t *t, const uint64_t key[2], ply_stt_hit_t *hit)
{
    ply_stt_entry_t *b = bucket(t, key);
    for (int i = 0; i < PLY_STT_BUCKET; i++) {
        uint64_t d = load(&b[i].data), c = load(&b[i].check);
        if ((c ^ d) != key[0] || data_bound(d) == PLY_STT_NONE) continue;
        hit->move = (uint16_t)d;
        hit->score = (int16_t)(d >> 16);
        hit->eval = (int16_t)(d >> 32);
        hit->depth = data_depth(d);
        hit->bound = data_bound(d);
        return 1;
    }
    return 0;
}

static void append(ply_stt_log_t *log, const uint64_t key[2], uint64_t data)
{
    const uint64_t i = __atomic_fetch_add(&log->head, 1, __ATOMIC_RELAXED);
    ply_stt_record_t *r = &log->rec[i & (log->cap - 1)];
    /* seq 0 first, then the words, then seq: a reader copying the slot meanwhile sees seq
     * change and drops its copy. */
    store(&r->seq, 0);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    store(&r->key[0], key[0]);
    store(&r->key[1], key[1]);
    store(&r->data, data);
    __atomic_store_n(&r->seq, i + 1, __ATOMIC_RELEASE);
}

static void put(ply_stt_t *t, const uint64_t key[2], uint16_t move, int score, int eval, int depth,
                int bound, int export)
{
    ply_stt_entry_t *b = bucket(t, key);
    ply_stt_entry_t *victim = NULL;
    const unsigned gen = gen_of(t);
    int worst = 1 << 30;
    for (int i = 0; i < PLY_STT_BUCKET; i++) {
        uint64_t d = load(&b[i].data), c = load(&b[i].check);
        if ((c ^ d) == key[0] && data_bound(d) != PLY_STT_NONE) {
            /* The same position: keep a deeper entry of this search unless
             * the new one is exact; keep its move when the new one has none. */
            if (bound != PLY_BOUND_EXACT && data_depth(d) > depth + 2 && data_gen(d) == gen) return;
            if (!move) move = (uint16_t)d;
            victim = &b[i];
            break;
        }
        int age = (int)((gen - data_gen(d)) & 63);
        int worth = data_bound(d) == PLY_STT_NONE ? -1000 : data_depth(d) - 8 * age;
        if (worth < worst) {
            worst = worth;
            victim = &b[i];
        }
    }
    uint64_t d = pack(move, score, eval, depth, bound, gen);
    store(&victim->data, d);
    store(&victim->check, d ^ key[0]);
    if (export && t->log && depth >= t->log->min_depth) append(t->log, key, d);
}

void ply_stt_store(ply_stt_t *t, const uint64_t key[2], uint16_t move, int score, int eval,
                   int depth, int bound)
{
    put(t, key, move, score, eval, depth, bound, 1);
}

void ply_stt_import(ply_stt_t *t, const ply_stt_record_t *r)
{
    const uint64_t d = r->data;
    if (data_bound(d) == PLY_STT_NONE) return;
    put(t, r->key, (uint16_t)d, (int16_t)(d >> 16), (int16_t)(d >> 32), data_depth(d),
        data_bound(d), 0);
}

ply_stt_log_t *ply_stt_log_new(int min_depth, unsigned cap_log2)
{
    if (cap_log2 < 4 || cap_log2 > 24) return NULL;
    ply_stt_log_t *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    log->min_depth = min_depth;
    log->cap = (size_t)1 << cap_log2;
    log->rec = calloc(log->cap, sizeof *log->rec);
    if (!log->rec) {
        free(log);
        return NULL;
    }
    return log;
}

void ply_stt_log_free(ply_stt_log_t **log)
{
    if (!log || !*log) return;
    free((*log)->rec);
    free(*log);
    *log = NULL;
}

size_t ply_stt_log_read(ply_stt_log_t *log, uint64_t *tail, ply_stt_record_t *out, size_t max)
{
    const uint64_t head = __atomic_load_n(&log->head, __ATOMIC_ACQUIRE);
    if (head - *tail > log->cap) *tail = head - log->cap;
    size_t n = 0;
    for (; *tail < head && n < max; ++*tail) {
        ply_stt_record_t *r = &log->rec[*tail & (log->cap - 1)];
        if (__atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) != *tail + 1) continue;
        out[n].key[0] = load(&r->key[0]);
        out[n].key[1] = load(&r->key[1]);
        out[n].data = load(&r->data);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&r->seq, __ATOMIC_RELAXED) != *tail + 1) continue; /* rewritten */
        out[n++].seq = *tail + 1;
    }
    return n;
}

int ply_stt_hashfull(const ply_stt_t *t)
{
    size_t n = t->n_buckets * PLY_STT_BUCKET;
    if (n > 1000) n = 1000;
    int used = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = load(&t->entries[i].data);
        used += data_bound(d) != PLY_STT_NONE && data_gen(d) == gen_of(t);
    }
    return (int)(used * 1000 / (int)n);
}

int ply_stt_score_to(int score, int ply)
{
    if (score >= PLY_SCORE_MATE_MIN) return score + ply;
    if (score <= -PLY_SCORE_MATE_MIN) return score - ply;
    return score;
}

int ply_stt_score_from(int score, int ply)
{
    if (score >= PLY_SCORE_MATE_MIN) return score - ply;
    if (score <= -PLY_SCORE_MATE_MIN) return score + ply;
    return score;
}
