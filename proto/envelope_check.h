/*
 * The field checks of proto/envelope_validate.c (and envelope.c's text and reason
 * helpers), shared with the checks of the search kind (proto/envelope_search.c) so that
 * every rejection reads the same way: "TYPE: field NAME reason". Internal to proto/: not installed,
 * not for callers of envelope.h.
 */
#ifndef PLY_PROTO_ENVELOPE_CHECK_H
#define PLY_PROTO_ENVELOPE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "ply.pb-c.h"

/** ply__env_say - the printf-style reason @fmt into @why (@why_len bytes; nothing when NULL or 0).
 */
void ply__env_say(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** ply__env_text_clean - 1 when @s (@n bytes) is one line of valid UTF-8 (RFC 3629) without
 * control characters, else 0 (envelope.c). */
int ply__env_text_clean(const char *s, size_t n);

/** ply__env_body_of - the body sub-message of @msg, or NULL when it has none or an unknown
 * type (envelope_validate.c). */
const void *ply__env_body_of(const Ply__Message *msg);

/** The message type being checked, so that every reason starts with it. */
typedef struct ply__vctx {
    char *why;        /* the caller's buffer for the reason, or NULL */
    size_t why_len;   /* its size, bytes */
    const char *type; /* "JOB", "RESULT", ... */
} ply__vctx_t;

/** ply__env_bad - write "TYPE: detail" (printf-style @fmt) into @c's buffer; returns PLY_EPROTO,
 * so that checks chain with ||. */
int ply__env_bad(ply__vctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** ply__env_need - 0 when @has, else PLY_EPROTO: "field @field missing". */
int ply__env_need(ply__vctx_t *c, const char *field, int has);

/** ply__env_need_u64 - @field present (@has) with @v in @lo..@hi (UINT64_MAX: no upper bound);
 * else PLY_EPROTO with the value and the range. */
int ply__env_need_u64(ply__vctx_t *c, const char *field, int has, uint64_t v, uint64_t lo,
                      uint64_t hi);

/** ply__env_text - free text @s (NULL: absent, refused when @min > 0) of @min..PLY_MAX_TEXT bytes,
 * one line of valid UTF-8. 0 or PLY_EPROTO. */
int ply__env_text(ply__vctx_t *c, const char *field, const char *s, size_t min);

/** ply__env_fen - a position @s: 1..PLY_MAX_FEN_LEN bytes of printable ASCII. 0 or PLY_EPROTO. */
int ply__env_fen(ply__vctx_t *c, const char *field, const char *s);

/** ply__env_uci_move - @s is a UCI move by its shape: [a-h][1-8][a-h][1-8][nbrq]?. 0 or
 * PLY_EPROTO (legality is the rule engine's, not the envelope's). */
int ply__env_uci_move(ply__vctx_t *c, const char *field, const char *s);

/**
 * ply__env_search_job - the shape of a JOB of kind SEARCH (proto/envelope_search.c; its kind
 * and that no other kind's payload is beside it are envelope_validate.c's): a SearchJob, its fields
 * named "search.NAME": fen as a FEN; at most PLY_SEARCH_JOB_MAX_MOVES moves and PLY_MAX_DIVIDE
 * searchmoves, each of UCI shape; depth 1..PLY_SEARCH_JOB_MAX_DEPTH, nodes >= 1 and movetime_ms
 * 1..PLY_SEARCH_JOB_MAX_MOVETIME_MS when present, at least one of the three; multipv
 * 1..PLY_SEARCH_JOB_MAX_MULTIPV when present; a root window: alpha and beta each in
 * -PLY_SEARCH_JOB_MAX_SCORE..PLY_SEARCH_JOB_MAX_SCORE when present, alpha < beta when both
 * are, neither beside plies nor with multipv > 1. 0 or PLY_EPROTO.
 */
int ply__env_search_job(ply__vctx_t *c, const Ply__Job *m);

/**
 * ply__env_search_result - the shape of a RESULT with a search (@m->search not NULL): time_us,
 * none of the perft fields (nodes, perft1, stats, divide, tt_nodes), and a SearchResult, its
 * fields named "search.NAME": 1..PLY_SEARCH_JOB_MAX_MULTIPV lines, each with multipv 1..that,
 * exactly one of score_cp and mate, bound 0..2, depth 0..PLY_SEARCH_JOB_MAX_DEPTH (0: a root
 * without legal moves), seldepth, at most PLY_SEARCH_JOB_MAX_PV moves of UCI shape; nodes,
 * time_us; engine optional text. 0 or PLY_EPROTO.
 */
int ply__env_search_result(ply__vctx_t *c, const Ply__Result *m);

/**
 * ply__env_search_request - a SearchRequest named @prefix ("search", "asked.search"): present;
 * fen as a FEN; at most PLY_SEARCH_JOB_MAX_MOVES moves and PLY_MAX_DIVIDE searchmoves of UCI
 * shape; depth 1..PLY_SEARCH_JOB_MAX_DEPTH, nodes >= 1, movetime_ms
 * 1..PLY_SEARCH_JOB_MAX_MOVETIME_MS when present, at least one of the three unless infinite
 * (then none of them, and deepen set); deepen not with plies; engine absent, "", "builtin" or
 * "uci". 0 or PLY_EPROTO.
 */
int ply__env_search_request(ply__vctx_t *c, const char *prefix, const Ply__SearchRequest *r);

/**
 * ply__env_search_answer - a SearchAnswer named @prefix ("search"; NULL passes): fen a FEN
 * when present; at most PLY_MAX_DIVIDE moves, each a UCI move with optional text (san,
 * engine, worker_id, identity), a line (when present) of at most PLY_SEARCH_JOB_MAX_PV UCI
 * moves with exactly one of score_cp and mate, at most PLY_SEARCH_JOB_MAX_PV pv_san texts;
 * status absent, "checkmate" or "stalemate"; at most PLY_MAX_MISMATCHES rejection lines of
 * text. 0 or PLY_EPROTO.
 */
int ply__env_search_answer(ply__vctx_t *c, const char *prefix, const Ply__SearchAnswer *a);

#endif
