/*
 * The envelope of the ply protocol (see ply.proto and DESIGN.md, Protocol):
 * frame 0 is the protocol id "PLY/2", frame 1 one protobuf-c Ply__Message.
 *
 * This is the only code that turns bytes from a socket into messages, so it
 * validates everything: frame count, protocol id, sizes, the body type, the
 * presence of each field the type needs, and value ranges. Nothing it returns
 * needs further checking for memory safety; semantic checks (is this job id
 * known?) stay with the caller. A decoder never asserts and never crashes on
 * bad input: it returns PLY_EPROTO or PLY_EVERSION with a one-line reason.
 */
#ifndef PLY_PROTO_ENVELOPE_H
#define PLY_PROTO_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#include <czmq.h>

#include "ply.pb-c.h"
#include "util/error.h" /* the PLY_E... codes returned below */
#include "util/stats.h"

#define PLY_PROTOCOL_ID      "PLY/2"
#define PLY_PROTOCOL_VERSION 2
/**
 * The previous version's protocol id. Its Error message is this version's (the same fields):
 * a peer of it is refused with an Error in its own framing (ply_msg_send_error_framed), so
 * that it reads why and stops instead of dropping the answer as malformed.
 */
#define PLY_PROTOCOL_ID_PREV "PLY/1"
/** Most job kinds a worker may list (Hello.kinds, WorkerStatus.kinds). */
#define PLY_MAX_KINDS 32
/** Largest frame 1 accepted, bytes. A RunResult with a 218-move divide and stats is ~30 KiB. */
#define PLY_MAX_MESSAGE_BYTES (1u << 20)
/** Longest FEN or Shredder-FEN accepted, bytes (a legal FEN is under 100). */
#define PLY_MAX_FEN_LEN 128
/**
 * Deepest perft a client may ask for, plies: the deepest whose count is
 * representable for every position in ply's 128-bit sums (util/u128.h,
 * PLY_U128_SAFE_DEPTH: 218^16 < 2^128). The start position's perft(15),
 * 2,015,099,950,053,364,471,960, is well inside.
 */
#define PLY_MAX_DEPTH PLY_U128_SAFE_DEPTH
/** Deepest perft one job may ask of a worker, plies (a job is never deeper than its run). */
#define PLY_MAX_JOB_DEPTH PLY_MAX_DEPTH
/** Most jobs a worker may ask for at once. */
#define PLY_MAX_CREDIT 1024
/** Most entries of a divide list (the legal move maximum is 218). */
#define PLY_MAX_DIVIDE 256
/** Longest free-text field (ids, reasons, messages), bytes. */
#define PLY_MAX_TEXT 512
/** Most OpenMP threads a worker may announce in Hello. */
#define PLY_MAX_THREADS 4096
/** Longest heartbeat interval a coordinator may ask for (Welcome), milliseconds. */
#define PLY_MAX_HEARTBEAT_MS 600000
/**
 * How long the client of a run with no end of its own (an infinite analysis) may send nothing
 * about it (Submit, ResultRequest{attach}) before the coordinator stops the run as a Cancel
 * would, milliseconds. A client that follows a run asks again every 2.5 s
 * (PLY_CLIENT_RESYNC_MS, client.h): six of its periods, for a client on a loaded machine.
 */
#define PLY_CLIENT_SILENT_MS 15000
/** Most missed heartbeats before a peer is dead (Welcome). */
#define PLY_MAX_LIVENESS 1000
/** Parts per million: the largest Submit.verify_ppm (every job). */
#define PLY_PPM 1000000
/** Most mismatches a Verification lists in detail (all are counted). */
#define PLY_MAX_MISMATCHES 64
/** Most excluded identities a Verification lists (all are counted). */
#define PLY_MAX_EXCLUSIONS 16
/** Most computations a Mismatch lists (first, check, tie-break, drill-down...). */
#define PLY_MAX_COMPUTATIONS 8
/**
 * Largest run id a coordinator gives (ids are random, 1..2^53-1): exact as a JSON
 * number in any reader (an IEEE double, RFC 8259 section 6), a positive SQLite
 * INTEGER, at most 16 decimal digits. Random so that a coordinator that lost its
 * history never gives a waiting client's id to another run: after a million runs
 * the chance that a given id comes back is below 2^-33, and the client checks the
 * RunAsked of every answer anyway.
 */
#define PLY_MAX_RUN_ID ((1ull << 53) - 1)
/** Bounds of an owner_token (Submit, StatusRequest, ResultRequest, Cancel), bytes of
 * printable ASCII without spaces: a secret too short to be one is refused. */
#define PLY_MIN_OWNER_TOKEN 16
#define PLY_MAX_OWNER_TOKEN 128
/** Bounds of a Submit's idempotency_key, bytes (any bytes: 16 random ones make two submissions'
 * keys collide with a chance below 2^-64 per pair). */
#define PLY_MIN_IDEMPOTENCY_KEY 16
#define PLY_MAX_IDEMPOTENCY_KEY 64
/** Most runs a StatusReply lists. */
#define PLY_MAX_STATUS_RUNS 256
/** Deepest search a job may ask for, plies (worker/engine/search.h, PLY_SEARCH_MAX_DEPTH). */
#define PLY_SEARCH_JOB_MAX_DEPTH 100
/** Deepest iteration a search line may report, plies: an engine that finds a position resolved
 * iterates on to its own limit (Stockfish 15.1 reported depth 146 at 10,000 nodes on a WAC
 * position; its MAX_PLY is 246). A job asks for at most PLY_SEARCH_JOB_MAX_DEPTH. */
#define PLY_SEARCH_LINE_MAX_DEPTH 1024
/** The private table of a reproducible search job (SearchJob.reproducible), MiB: a fixed size,
 * cleared before the job, so that its answer does not depend on the worker's --hash or on the
 * jobs it ran before. */
#define PLY_SEARCH_REPRO_HASH_MIB 16
/** Largest |SearchJob.alpha|, |SearchJob.beta|: ply's engine's infinite score
 * (worker/engine/search.h, PLY_SCORE_INF). */
#define PLY_SEARCH_JOB_MAX_SCORE 32767
/** Most lines of a search job (multipv), and of its result (PLY_SEARCH_MAX_MULTIPV). */
#define PLY_SEARCH_JOB_MAX_MULTIPV 64
/** Most game-history moves of a search job (worker/engine/search.h, PLY_SEARCH_MAX_HISTORY). */
#define PLY_SEARCH_JOB_MAX_MOVES 1024
/** Longest principal variation of a search line, moves (PLY_SEARCH_MAX_PLY). */
#define PLY_SEARCH_JOB_MAX_PV 128
/** Longest movetime of a search job, milliseconds: one day. */
#define PLY_SEARCH_JOB_MAX_MOVETIME_MS 86400000u

typedef Ply__Message ply_msg_t;

/**
 * ply_msg_encode - pack @msg into a new two-frame zmsg ("PLY/2", body).
 * Returns the message (caller owns it, zmsg_destroy) or NULL when @msg is
 * NULL, has no body, packs to more than PLY_MAX_MESSAGE_BYTES (the peer would
 * reject it), or memory runs out. Does not validate: call ply_msg_validate
 * first when the fields come from untrusted input.
 */
zmsg_t *ply_msg_encode(const ply_msg_t *msg);

/**
 * ply_msg_decode - validate and unpack a two-frame message (any ROUTER routing
 * id already removed). Does not modify or consume @zmsg.
 * On success returns 0 and stores a message in *out that the caller frees with
 * ply_msg_free(). On failure *out is NULL and a one-line reason naming the
 * frame or field goes into @why (may be NULL; truncated to @why_len bytes,
 * always NUL-terminated; set to "" on success). @out may be NULL to only check.
 *   PLY_EVERSION  frame 0 is not "PLY/2" (the reason quotes what it was,
 *                 escaped and cut to a few dozen bytes; when it is another
 *                 "PLY/N" and frame 1 reads as a Hello, it also names the worker:
 *                 "worker W speaks PLY/1, this ply PLY/2: upgrade the worker"; as
 *                 a client's request: "a client (SUBMIT) speaks PLY/1, ...").
 *                 Checked before the frame count, so that another version
 *                 hears it whatever its framing;
 *   PLY_EPROTO    no frame, wrong frame count, empty or oversized body
 *                 (rejected before unpacking), undecodable body or one that
 *                 would unpack into more than 20 times its size in memory
 *                 (plus 64 KiB: tiny repeated entries, a memory amplifier;
 *                 real messages need at most ~17 times), no body or an
 *                 unknown body type, a required field missing or a value out
 *                 of range (see ply_msg_validate).
 */
int ply_msg_decode(zmsg_t *zmsg, ply_msg_t **out, char *why, size_t why_len);

/**
 * ply_msg_validate - check that a decoded message carries the fields its type
 * needs, within range: ids non-zero, depths 1..PLY_MAX_(JOB_)DEPTH, credit
 * 1..PLY_MAX_CREDIT, FEN 1..PLY_MAX_FEN_LEN bytes of printable ASCII, text
 * fields at most PLY_MAX_TEXT bytes, divide lists at most PLY_MAX_DIVIDE
 * entries with UCI moves of 4-5 characters. Returns 0 or PLY_EPROTO with the
 * reason in @why. Called by ply_msg_decode; exposed for tests and encoders.
 *
 * Per type (a field not listed is optional and unchecked unless it is text):
 * A kind is any number but 0 (the coordinator's registry decides which it runs); its
 * payload is what the kind needs: kind PERFT (1) the perft sub-message, kind SEARCH (2)
 * the search one, any other kind the `other` bytes (left to the kind); the two others
 * absent ("field search present in a PERFT job", "field other missing (kind 7 ...)").
 *   HELLO      worker_id, protocol == PLY_PROTOCOL_VERSION,
 *              threads 1..PLY_MAX_THREADS, hash_mib, zobrist_checksum; kinds at
 *              most PLY_MAX_KINDS, each a kind listed once; engine and engine_id text
 *   WELCOME    heartbeat_ms 1..PLY_MAX_HEARTBEAT_MS, liveness 1..PLY_MAX_LIVENESS
 *   READY      credit 1..PLY_MAX_CREDIT
 *   JOB        job_id, attempt >= 1, kind and its payload, run_id; PERFT: perft.fen,
 *              perft.depth 1..PLY_MAX_JOB_DEPTH; SEARCH: search (ply__env_search_job in
 *              envelope_check.h: fen, at most PLY_SEARCH_JOB_MAX_MOVES moves and
 *              PLY_MAX_DIVIDE searchmoves of UCI shape, depth
 *              1..PLY_SEARCH_JOB_MAX_DEPTH, nodes, movetime_ms, at least one of
 *              the three, multipv 1..PLY_SEARCH_JOB_MAX_MULTIPV, no movetime_ms
 *              when reproducible; alpha, beta within +-PLY_SEARCH_JOB_MAX_SCORE,
 *              alpha < beta, neither with plies nor with multipv > 1)
 *   PROGRESS   job_id, attempt >= 1, nodes
 *   RESULT     job_id, attempt >= 1, nodes, perft1 <= PLY_MAX_DIVIDE, time_us;
 *              each divide entry: move, nodes; no hi word but 0 (one job's
 *              counts fit in 64 bits: stats.hi and divide[].stats.hi absent,
 *              divide[].nodes_hi absent or 0). Or search-shaped (a search job's):
 *              job_id, attempt, time_us, search (at most PLY_SEARCH_JOB_MAX_MULTIPV
 *              lines: multipv, exactly one of score_cp and mate, bound 0..2,
 *              depth, seldepth, at most PLY_SEARCH_JOB_MAX_PV UCI moves; nodes,
 *              time_us) and none of nodes, perft1, stats, divide, tt_nodes. Or
 *              another kind's: job_id, attempt, other, and none of search and the
 *              perft fields
 *   ERROR      code < 0, message
 *   SUBMIT     kind and its payload; PERFT: perft.fen, perft.depth 1..PLY_MAX_DEPTH,
 *              perft.split_depth (if present) -1..depth-1; SEARCH: search
 *              (envelope_check.h, ply__env_search_request: fen, moves, searchmoves,
 *              limits, at least one of depth, nodes, movetime_ms, engine absent, "",
 *              "builtin" or "uci"); any kind: verify (if present) a VerifyMode,
 *              verify_ppm 1..PLY_PPM exactly when verify = SAMPLE
 *   ACCEPTED   run_id, jobs, split_depth 0..PLY_MAX_DEPTH; fen if present; asked
 *              as below
 *   RUN_PROGRESS  run_id, state; fen (if present) as a FEN; asked as below; search
 *              (if present) as RUN_RESULT's; each worker's kinds as Hello's
 *   asked      (RunAsked) kind and its payload: PERFT: asked.perft as SUBMIT's perft,
 *              with split_depth present; SEARCH: asked.search as SUBMIT's; verify as
 *              SUBMIT's
 *   RUN_RESULT with other (another kind's answer): run_id, fen (if present) as a FEN,
 *              verification, asked; no search, divide nor stats.
 *              With search (a search run's): run_id, fen, depth (if present)
 *              1..PLY_SEARCH_JOB_MAX_DEPTH, nodes, no divide nor stats, search: at most
 *              PLY_MAX_DIVIDE moves (UCI move, text fields, PV of at most
 *              PLY_SEARCH_JOB_MAX_PV UCI moves with one of score_cp and mate, at most as
 *              many pv_san), status absent, "checkmate" or "stalemate", at most
 *              PLY_MAX_MISMATCHES rejection lines. Otherwise (perft):
 *              run_id, fen, depth 1..PLY_MAX_DEPTH, nodes; divide entries as RESULT
 *              but with any hi words; stats.hi (here and in divide entries)
 *              absent or exactly PLY_STATS_N words;
 *              verification: at most PLY_MAX_MISMATCHES mismatches of at most
 *              PLY_MAX_COMPUTATIONS computations, their fen (if present) as a FEN,
 *              at most PLY_MAX_EXCLUSIONS exclusion lines, each non-empty text
 *   STATUS_REPLY  at most PLY_MAX_STATUS_RUNS runs, each as RUN_PROGRESS
 *   RESULT_REQUEST, CANCEL  run_id
 *   HEARTBEAT, BYE, STATUS  nothing
 * Required text (worker_id, message, state, verification details) has
 * 1..PLY_MAX_TEXT bytes, optional text 0..PLY_MAX_TEXT; all text must be one
 * line of valid UTF-8 without control characters, so that it can be logged and
 * put in JSON as is. Reasons name the type and field:
 * "JOB: field depth = 0, must be 1..20", "HELLO: field worker_id missing".
 */
int ply_msg_validate(const ply_msg_t *msg, char *why, size_t why_len);

/** ply_msg_free - free a message from ply_msg_decode and set *msg to NULL; idempotent. */
void ply_msg_free(ply_msg_t **msg);

/** ply_msg_type_name - "HELLO", "JOB", ... for logs; "NONE" for no body. Static string. */
const char *ply_msg_type_name(const ply_msg_t *msg);

/**
 * ply_msg_text_sanitize - copy @src (may be NULL) into @dst as text that
 * ply_msg_validate accepts: control characters become spaces, bytes of invalid
 * UTF-8 become '?', and the copy stops before the character that would exceed
 * PLY_MAX_TEXT bytes or @dst_len - 1. @dst is always NUL-terminated (when
 * @dst_len > 0). For free text built from untrusted input (reasons, ids).
 */
void ply_msg_text_sanitize(char *dst, size_t dst_len, const char *src);

/**
 * ply_msg_sock_limit - make @sock drop any incoming frame larger than
 * PLY_MAX_MESSAGE_BYTES in the transport (ZMQ_MAXMSGSIZE: the sending peer is
 * disconnected), so that a hostile peer cannot make us allocate gigabytes
 * before ply_msg_decode sees the frame. Applies to connections made after the
 * call (call it before bind/connect); inproc:// is not limited. NULL is ignored.
 */
void ply_msg_sock_limit(zsock_t *sock);

/**
 * ply_msg_send - encode @msg and send it on a DEALER (or any non-ROUTER) socket.
 * Returns 0, PLY_EINVAL (unencodable) or PLY_EIO (send failed).
 */
int ply_msg_send(zsock_t *sock, const ply_msg_t *msg);

/**
 * ply_msg_send_to - send @msg on a ROUTER socket to the peer @routing_id
 * (not consumed). Returns 0, PLY_EINVAL (unencodable, or @routing_id NULL) or
 * PLY_EIO. A ROUTER drops messages to unknown peers silently unless it has
 * ZMQ_ROUTER_MANDATORY set, in which case that is PLY_EIO.
 */
int ply_msg_send_to(zsock_t *sock, zframe_t *routing_id, const ply_msg_t *msg);

/**
 * ply_msg_recv - receive one message from a DEALER socket (blocks unless the
 * socket has a receive timeout) and decode it.
 * Returns 0 with *out set, PLY_EIO when nothing could be received (interrupted
 * or timed out), or a decode error as ply_msg_decode.
 */
int ply_msg_recv(zsock_t *sock, ply_msg_t **out, char *why, size_t why_len);

/**
 * ply_msg_recv_from - receive one message from a ROUTER socket. The routing
 * id is returned in *routing_id (caller owns it, zframe_destroy) whenever a
 * message arrived, even if it failed to decode, so that the caller can answer
 * with an Error. Returns as ply_msg_recv.
 */
int ply_msg_recv_from(zsock_t *sock, zframe_t **routing_id, ply_msg_t **out, char *why,
                      size_t why_len);

/**
 * ply_msg_refused_result - for a two-frame message (routing id removed) that ply_msg_decode
 * refused: when frame 1 carries a Result (Message.result) whose job_id and attempt can be
 * read, even from a body cut short or with another field out of range, stores them and
 * returns 1; else 0 (*job_id and *attempt 0). Only those two numbers are read
 * (envelope_refused.c): the caller checks that the sender holds that attempt.
 */
int ply_msg_refused_result(zmsg_t *zmsg, uint64_t *job_id, uint32_t *attempt);

/**
 * ply_msg_send_error - convenience: send an Error{code, message, job_id,
 * attempt, run_id} (0 ids and a 0 attempt are left out), to @routing_id when
 * it is non-NULL (ROUTER), else on a DEALER. The "supported" field is set to
 * PLY_PROTOCOL_ID ("PLY/2") when @code is PLY_EVERSION. @message (may be NULL) passes through
 * ply_msg_text_sanitize, so a reason quoting a peer's bytes is always
 * accepted; an empty one is replaced by ply_strerror(@code).
 * Returns as ply_msg_send; PLY_EINVAL also when @code is not negative.
 */
int ply_msg_send_error(zsock_t *sock, zframe_t *routing_id, int code, const char *message,
                       uint64_t job_id, uint32_t attempt, uint64_t run_id);

/**
 * ply_msg_send_error_framed - ply_msg_send_error, framed with the protocol id @protocol_id
 * when it is PLY_PROTOCOL_ID_PREV (a peer of the previous version, refused: PLY_EVERSION), else
 * with PLY_PROTOCOL_ID. Returns as ply_msg_send_error.
 */
int ply_msg_send_error_framed(zsock_t *sock, zframe_t *routing_id, const char *protocol_id,
                              int code, const char *message, uint64_t job_id, uint32_t attempt,
                              uint64_t run_id);

/**
 * ply_msg_stats_to_proto - fill a Ply__Stats (already initialised with
 * PLY__STATS__INIT) from the fifteen counters; every field is marked present.
 */
void ply_msg_stats_to_proto(Ply__Stats *out, const ply_stats_t *in);

/** ply_msg_stats_from_proto - the fifteen counters of a Ply__Stats (absent fields as 0). */
void ply_msg_stats_from_proto(ply_stats_t *out, const Ply__Stats *in);

/**
 * ply_msg_stats128_to_proto - fill a Ply__Stats (initialised with
 * PLY__STATS__INIT) from fifteen 128-bit sums: the low words in the fields,
 * the high words in @hi (caller's storage, which out->hi then points to; left
 * out when all are 0, as one job's statistics).
 */
void ply_msg_stats128_to_proto(Ply__Stats *out, uint64_t hi[PLY_STATS_N], const ply_stats128_t *in);

/**
 * ply_msg_stats128_from_proto - the fifteen 128-bit sums of a validated
 * Ply__Stats (absent fields and absent hi words as 0).
 */
void ply_msg_stats128_from_proto(ply_stats128_t *out, const Ply__Stats *in);

/**
 * ply_msg_count - the 128-bit count whose low word is @lo and high word
 * @hi, present when @has_hi (absent: 0, as in messages of an older ply).
 */
static inline ply_u128_t ply_msg_count(uint64_t lo, int has_hi, uint64_t hi)
{
    return ply_u128_make(has_hi ? hi : 0, lo);
}

#endif
