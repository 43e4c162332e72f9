/*
 * The transposition table shared by a worker's OpenMP threads during perft.
 *
 * Workload: every interior perft node probes once and stores once on a
 * miss, from all threads at once, for hours. Invariants: a probe returns a
 * payload only when all 128 bits of the position key and the depth match
 * an entry that was written completely, so neither a key collision in the
 * index bits nor a torn concurrent write can corrupt a count (DESIGN.md asks
 * for at least 96 verified bits). The entries take exactly what the user
 * asked for, rounded down to whole buckets (the mapping itself is rounded up
 * to the next 2 MiB huge page); pages are zero-filled by the kernel on first
 * touch, so a big table costs nothing until it is used.
 *
 * Lock-free: each entry has a sequence word (seqlock). A writer claims the
 * entry with one compare-and-swap (and simply skips the store if another
 * thread holds it); a reader copies the entry and accepts it only if the
 * sequence word was even and unchanged around the copy. Nobody ever waits.
 *
 * An entry holds a payload of N 64-bit words chosen at creation: 1 for node
 * counts (32-byte entries, two per cache line), 15 for the detailed
 * statistics. Buckets hold two entries: the first keeps the deeper subtree,
 * the second always takes the newest.
 */
#ifndef PLY_WORKER_TT_H
#define PLY_WORKER_TT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ply_tt ply_tt_t;

/** Largest payload, in 64-bit words. */
#define PLY_TT_MAX_PAYLOAD 15
/** Deepest depth an entry can record (7 bits). */
#define PLY_TT_MAX_DEPTH 127

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
 * ply_tt_store - record @payload for (@key, @depth), depth 1..PLY_TT_MAX_DEPTH.
 * Thread-safe, never blocks: if another thread is writing the chosen entry
 * the store is dropped (a later probe simply misses).
 */
void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload);

#endif
