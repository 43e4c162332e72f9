/*
 * The transposition table shared by a worker's OpenMP threads during perft.
 *
 * Workload: every interior perft node probes once and stores once on a
 * miss, from all threads at once, for hours. Invariants: a probe returns a
 * payload only when 96 bits of the position key (all of key[0], the top half
 * of key[1]) and the depth match an entry, and its payload hashes to its
 * check, so neither a key collision in the index bits nor a torn concurrent
 * write can corrupt a count (DESIGN.md asks for at least 96 verified bits).
 * The entries take exactly what the user asked for, rounded down to whole
 * buckets (the mapping itself is rounded up to the next 2 MiB huge page);
 * pages are zero-filled by the kernel on first touch, so a big table costs
 * nothing until it is used.
 *
 * Lock-free, with no atomic instruction at all: an entry stores its payload
 * next to the key xored with a hash of that payload (the "lockless hashing"
 * of Hyatt and Mann, ICGA Journal 2002, widened to 96 key bits). Writers
 * just write; a reader recomputes the hash of what it read and accepts the
 * entry only when the stored check gives back its own key. A read torn by a
 * concurrent write mixes words of two entries, and then fails the check
 * except with probability about 2^-96.
 *
 * An entry holds a payload of N 64-bit words chosen at creation: 1 for node
 * counts, 15 for the detailed statistics. The depth rides in the low 6 bits
 * of the first word. Node-count entries are 20 bytes, three to a 64-byte
 * bucket (one cache line); statistics entries go two to a bucket. A store
 * replaces the bucket's shallowest entry: deep subtrees save the most work.
 */
#ifndef PLY_WORKER_TT_H
#define PLY_WORKER_TT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ply_tt ply_tt_t;

/** Largest payload, in 64-bit words. */
#define PLY_TT_MAX_PAYLOAD 15
/** Deepest depth an entry can record (6 bits). */
#define PLY_TT_MAX_DEPTH 63
/** Largest first payload word a store keeps (58 bits; perft(12) is 2^56). */
#define PLY_TT_MAX_VALUE ((1ull << 58) - 1)

/**
 * ply_tt_new - allocate a table of at most @bytes bytes (whole buckets) for
 * payloads of @payload_words 64-bit words (1..PLY_TT_MAX_PAYLOAD), zeroed.
 * Returns NULL when @bytes holds less than one bucket, @payload_words is out
 * of range, or memory is short. Free with ply_tt_destroy.
 */
ply_tt_t *ply_tt_new(size_t bytes, unsigned payload_words);

/** ply_tt_destroy - free the table and set *tt to NULL; idempotent. */
void ply_tt_destroy(ply_tt_t **tt);

/** ply_tt_clear - zero every entry (single-threaded use only). */
void ply_tt_clear(ply_tt_t *tt);

/** ply_tt_bytes - memory held by the entries, bytes (<= the size asked for). */
size_t ply_tt_bytes(const ply_tt_t *tt);

/** ply_tt_payload_words - the payload size the table was made for. */
unsigned ply_tt_payload_words(const ply_tt_t *tt);

/**
 * ply_tt_probe - look up (@key, @depth). On a verified hit copies the
 * payload into @payload (payload_words words) and returns 1; returns 0 on a
 * miss, leaving @payload untouched. Thread-safe, never blocks.
 */
int ply_tt_probe(ply_tt_t *tt, const uint64_t key[2], unsigned depth, uint64_t *payload);

/**
 * ply_tt_prefetch - start loading the bucket of @key into the cache, so that
 * a probe a little later does not wait for memory. A hint: no effect on results.
 */
void ply_tt_prefetch(const ply_tt_t *tt, const uint64_t key[2]);

/**
 * ply_tt_store - record @payload for (@key, @depth), depth 1..PLY_TT_MAX_DEPTH,
 * payload[0] <= PLY_TT_MAX_VALUE (larger values are not stored). Thread-safe,
 * never blocks: two threads writing one entry at once leave an entry that
 * fails verification (a later probe simply misses).
 */
void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload);

#endif
