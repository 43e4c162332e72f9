/*
 * The position cache of `ply analyse-pgn`: engine lines by the rule engine's identity
 * of a position (ply_arb_identity: placement, side to move, castling rights, and an
 * en-passant square only when a capture is legal), so that a position met again, in the
 * same game or a later one, is searched once. Bounded: at most @capacity entries, the
 * oldest forgotten first (insertion order), so a file of any number of games runs in
 * bounded memory (about 250 bytes an entry).
 * A line found here was searched with the history of the game it was first met in: the
 * repetition and fifty-move rules of another history can differ (the identity has no
 * clocks, by design: it is the position the analysis is about).
 */
#ifndef PLY_CLIENT_POS_CACHE_H
#define PLY_CLIENT_POS_CACHE_H

#include <stddef.h>

#include "pgn_annotate.h"

typedef struct ply_pos_cache ply_pos_cache_t;

/** ply_pos_cache_new - an empty cache of at most @capacity (>= 1) lines; NULL on ENOMEM. */
ply_pos_cache_t *ply_pos_cache_new(size_t capacity);

/** ply_pos_cache_destroy - free *@c and set it NULL; idempotent. */
void ply_pos_cache_destroy(ply_pos_cache_t **c);

/** ply_pos_cache_get - the line of @identity, or NULL (owned by the cache, valid until the
 * next put). */
const ply_pa_line_t *ply_pos_cache_get(ply_pos_cache_t *c, const char *identity);

/**
 * ply_pos_cache_put - keep (a copy of) @line under @identity, replacing one there, and
 * forgetting the oldest entry when the cache is full. Returns 0 or PLY_ENOMEM.
 */
int ply_pos_cache_put(ply_pos_cache_t *c, const char *identity, const ply_pa_line_t *line);

/** ply_pos_cache_size - the lines it holds now. */
size_t ply_pos_cache_size(const ply_pos_cache_t *c);

#endif
