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
 * Lock-free, with no read-modify-write at all: an entry stores its payload
 * next to the key xored with a hash of that payload (the "lockless hashing"
 * of Hyatt and Mann, ICGA Journal 2002, widened to 96 key bits). Writers
 * just write; a reader recomputes the hash of what it read and accepts the
 * entry only when the stored check gives back its own key. A read torn by a
 * concurrent write mixes words of two entries, and then fails the check
 * except with probability about 2^-96. Every word is read and written as a
 * relaxed atomic (tt.c): the same plain moves on x86-64, and formally free
 * of data races, so ThreadSanitizer checks the table like any other code.
 *
 * What an entry is keyed by: everything that decides the subtree it counts,
 * and nothing else (a missing part merges two different subtrees and gives a
 * wrong count; a superfluous one only splits a transposition and costs hits).
 *   - the pieces on their squares, and the side to move (board/zobrist.h):
 *     together they decide the moves;
 *   - the castling rights, each with the square of the rook it castles with:
 *     in Chess960 the same right with another rook is another move (4k3/8/8/
 *     8/8/8/8/4KR1R w H and w F, perft(5) 227,454 and 236,952);
 *   - the en-passant square only when a pawn of the side to move attacks it
 *     (board.h): a double step that no pawn can answer does not change the
 *     tree, so it must not split the key. A capture that is attacked but
 *     illegal (a pinned pawn) still splits it: safe, only a missed hit;
 *   - the remaining depth, in the entry (a probe matches it exactly);
 *   - what is counted: a table holds one payload kind for its whole life
 *     (node counts, or the fifteen statistics), fixed at ply_tt_new and
 *     checked by every caller, so a node count can never answer a statistics
 *     probe or the other way round.
 * Clocks (halfmove, fullmove) are not in it: perft does not read them. The
 * cluster's job identities (coordinator/split.c, arbiter ply_arb_identity)
 * follow the same rules, with the en-passant square only when the capture is
 * legal.
 * Only fully computed subtrees are stored: a cancelled search, or one whose
 * sum passed 2^64, stores nothing (perft_internal.h), so a table kept across
 * jobs and sessions never answers with a partial count.
 *
 * An entry holds a payload of N 64-bit words chosen at creation: 1 for node
 * counts, 15 for the detailed statistics. Every bucket is one 64-byte cache
 * line. Node-count entries are 20 bytes, three to a bucket, the depth in the
 * low 6 bits of the count. Larger payloads are stored compressed (tt.c: each
 * value in as many bits as it needs), so that a statistics table holds
 * nearly as many entries as a node-count one: an entry is 32 bytes, two to a
 * bucket, when its code fits 153 bits (perft's statistics below depth 4, the
 * great majority of entries), else 64 bytes, the whole bucket, when it fits
 * 409 bits; a payload that fits neither is not stored (before this code,
 * statistics entries took 132 bytes). A store replaces the bucket's
 * shallowest entry (a wide one only by one at least as deep): deep subtrees
 * save the most work.
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
/** Largest count a node-count store keeps (58 bits; perft(12) is 2^56). */
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
 * ply_tt_store - record @payload for (@key, @depth), depth 1..PLY_TT_MAX_DEPTH;
 * a node count above PLY_TT_MAX_VALUE, or a larger payload whose code passes
 * 409 bits, is not stored (a later probe misses). Thread-safe,
 * never blocks: two threads writing one entry at once leave an entry that
 * fails verification (a later probe simply misses).
 */
void ply_tt_store(ply_tt_t *tt, const uint64_t key[2], unsigned depth, const uint64_t *payload);

#endif
