/*
 * Exact counts in ply's JSON output: the ply command's --json and the
 * coordinator's /status (target ply_json, which links jansson; the rest of
 * common/util does not).
 *
 * jansson's json_integer is a signed 64-bit integer: a count above 2^63 - 1
 * printed through it comes out negative, and a run's total can pass 2^64
 * (util/u128.h). JSON itself has no limit on the size of a number (RFC 8259,
 * section 6), so ply prints every count as a plain JSON number with all its
 * digits, whatever its size; readers that want every digit parse it as a big
 * integer (Python's json does by default).
 *
 * The one mechanism: a count goes into the jansson tree as
 * ply_json_count(v): a json_integer when it is at most 2^63 - 1, else a
 * string holding a marker and the digits, and every JSON document ply
 * prints goes out through ply_json_dumpf, which writes such a string
 * as the bare number. The marker starts with a control character, which
 * nothing else in ply's JSON holds: text from the network is refused when it
 * has one (proto/envelope.c) and positions are validated FENs.
 */
#ifndef PLY_UTIL_JSON_EXACT_H
#define PLY_UTIL_JSON_EXACT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "util/u128.h"

/**
 * ply_json_count - a new JSON value (caller owns the reference) for the
 * count @v, printed exactly and never negative by ply_json_dumpf. Returns
 * NULL only when out of memory (jansson's set_new functions accept that).
 */
json_t *ply_json_count(ply_u128_t v);

/**
 * ply_json_text - a new JSON string (caller owns the reference) for the text @s, NUL-
 * terminated bytes that should be UTF-8: jansson refuses any other (json_string returns
 * NULL, and json_object_set_new then drops the key without a word), so each byte that
 * does not start a valid UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF) becomes U+FFFD, the replacement character (Unicode 15, section
 * 3.9). A Latin-1 player's name in a PGN file keeps its key, with its other letters. Returns
 * NULL when @s is NULL or out of memory.
 */
json_t *ply_json_text(const char *s);

/**
 * ply_json_dumpf - write @json to @out as json_dumpf does with @flags, the
 * values of ply_json_count as bare JSON numbers. Returns 0, or -1 when out
 * of memory or the write failed (see ferror(@out)).
 */
int ply_json_dumpf(const json_t *json, FILE *out, size_t flags);

/**
 * ply_json_dumps - as ply_json_dumpf into a new string (caller frees with
 * free()), or NULL when out of memory.
 */
char *ply_json_dumps(const json_t *json, size_t flags);

#endif
