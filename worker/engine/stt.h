/*
 * The transposition table of the search, shared by all threads of a Lazy
 * SMP search (search.c) without locks.
 *
 * Workload: every node of the search probes once and stores once, from all
 * threads at once, millions of times a second; entries are hints (a move to
 * try first, a bound that may cut the node), so a lost write only costs
 * work, but a wrong entry taken for right would corrupt the search.
 *
 * Invariants:
 *   - An entry is two 64-bit words, data and check = key[0] ^ data (the
 *     "lockless hashing" of Hyatt and Mann, ICGA Journal 2002, as in
 *     tt.h). The bucket index comes from key[1], so a probe is
 *     verified against all 64 bits of key[0] plus the index bits of key[1].
 *     A read torn by a concurrent write fails the check (except with
 *     probability about 2^-64), and a stored move is never played before the
 *     search found it among ply_board_legal_moves of the node (movepick.c).
 *   - Every word is read and written as a relaxed atomic: plain moves on
 *     x86-64, and no data race as far as ThreadSanitizer is concerned.
 *   - Mate scores are stored relative to the node (distance to mate from
 *     it) and turned back into distance from the root on probe
 *     (ply_stt_score_to/from), so a transposition at another ply reads the
 *     right mate distance.
 *   - Replacement: four entries to a 64-byte bucket; a store to a key
 *     present replaces it unless that entry is deeper and the new bound is
 *     not exact; otherwise the entry with the least depth - 8 x age goes,
 *     where age is the number of searches (generations, 6 bits) since it was
 *     written: deep entries of this search stay, old ones make room.
 */
#ifndef PLY_WORKER_STT_H
#define PLY_WORKER_STT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ply_stt_entry {
    uint64_t check; /* key[0] ^ data */
    uint64_t data;  /* move (16) | score (16) | eval (16) | depth (8) | bound (2) | gen (6) */
} ply_stt_entry_t;

#define PLY_STT_BUCKET 4

/*
 * An export log: the table's stores of at least min_depth plies, in order, with their
 * whole keys, so that another table (another process: Stockfish's "lazy cluster") can
 * import them. A ring of cap records that any search thread appends to without a lock
 * (an atomic counter gives each store its slot); a reader that falls more than cap
 * records behind loses the oldest (ply_stt_log_read). Entries are hints: a lost record
 * costs only work.
 */
typedef struct ply_stt_record {
    uint64_t seq;    /* slot number + 1 once the record is whole, 0 while it is written */
    uint64_t key[2]; /* the position's key (board.h key[0..1]) */
    uint64_t data;   /* as ply_stt_entry_t's data; its generation bits mean nothing here */
} ply_stt_record_t;

typedef struct ply_stt_log {
    int min_depth; /* stores shallower than this are not logged */
    uint64_t head; /* records appended so far (relaxed atomic) */
    size_t cap;    /* slots, a power of two */
    ply_stt_record_t *rec;
} ply_stt_log_t;

typedef struct ply_stt {
    ply_stt_entry_t *entries; /* n_buckets * PLY_STT_BUCKET, 64-byte aligned */
    size_t n_buckets;
    unsigned gen;       /* 0..63, the current search's generation (relaxed atomic) */
    ply_stt_log_t *log; /* where stores of log->min_depth plies or more go too; NULL: none */
} ply_stt_t;

/** What a probe found: the move in 16 bits (from | to << 6 | kind << 12), 0 for none. */
typedef struct ply_stt_hit {
    uint16_t move;
    int16_t score; /* relative to the node (ply_stt_score_from to read it) */
    int16_t eval;  /* static evaluation of the node, or PLY_STT_NO_EVAL */
    int depth;     /* -1 for a quiescence entry */
    int bound;     /* PLY_BOUND_* of search.h, PLY_STT_NONE when empty */
} ply_stt_hit_t;

#define PLY_STT_NO_EVAL (-32768)
#define PLY_STT_NONE    3

/**
 * ply_stt_init - allocate a zeroed table of at most @bytes bytes (at least
 * one bucket), with no export log. Returns 0 or PLY_ENOMEM (then @t is left untouched).
 */
int ply_stt_init(ply_stt_t *t, size_t bytes);

/** ply_stt_free - release the table's memory; idempotent. */
void ply_stt_free(ply_stt_t *t);

/** ply_stt_clear - empty every entry and reset the generation. Not during a search. */
void ply_stt_clear(ply_stt_t *t);

/** ply_stt_new_search - start a new generation (entries of older ones age). */
void ply_stt_new_search(ply_stt_t *t);

/**
 * ply_stt_prefetch - start loading @key's bucket into the cache, so that the
 * probe of a child position, a few hundred cycles later, does not wait on
 * memory (a probe of a table larger than the cache is a cache miss).
 */
static inline void ply_stt_prefetch(const ply_stt_t *t, const uint64_t key[2])
{
    const size_t i = (size_t)(((unsigned __int128)key[1] * t->n_buckets) >> 64);
    __builtin_prefetch(&t->entries[i * PLY_STT_BUCKET]);
}

/** ply_stt_probe - look up @key (the board's key[0..1]); 1 with *@hit filled, or 0. */
int ply_stt_probe(const ply_stt_t *t, const uint64_t key[2], ply_stt_hit_t *hit);

/** ply_stt_store - record a node; @score already relative to the node. Any thread. */
void ply_stt_store(ply_stt_t *t, const uint64_t key[2], uint16_t move, int score, int eval,
                   int depth, int bound);

/**
 * ply_stt_import - store record @r (ply_stt_log_read: another table's) as if this
 * table's search had stored it, in this table's generation; not logged again. Any thread.
 */
void ply_stt_import(ply_stt_t *t, const ply_stt_record_t *r);

/**
 * ply_stt_log_new - a log of @cap_log2 (4..24) bits of slots for stores of @min_depth
 * plies or more. Returns NULL on a bad argument or short memory. Free with
 * ply_stt_log_free.
 */
ply_stt_log_t *ply_stt_log_new(int min_depth, unsigned cap_log2);

/** ply_stt_log_free - free @*log and NULL it; idempotent. Not while a table writes to it. */
void ply_stt_log_free(ply_stt_log_t **log);

/**
 * ply_stt_log_read - copy up to @max records appended since *@tail (a reader's own
 * position, 0 at first) into @out, oldest first, and advance *@tail past them. Records
 * overwritten before they were read (the reader more than cap behind) and records still
 * being written are skipped. Returns the number copied. One reader per @tail; any thread.
 */
size_t ply_stt_log_read(ply_stt_log_t *log, uint64_t *tail, ply_stt_record_t *out, size_t max);

/** ply_stt_hashfull - per mille of the first 1000 entries written by this generation. */
int ply_stt_hashfull(const ply_stt_t *t);

/** ply_stt_score_to - a root-relative @score of a node at @ply, as stored (mate from the node). */
int ply_stt_score_to(int score, int ply);

/** ply_stt_score_from - the inverse of ply_stt_score_to. */
int ply_stt_score_from(int score, int ply);

#endif
