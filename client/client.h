/*
 * The client side of the protocol: what the `ply` command uses to submit a
 * perft run to a coordinator (embedded or remote) and wait for its answer.
 * One DEALER socket, owned by the calling thread.
 */
#ifndef PLY_CLIENT_H
#define PLY_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "ply.pb-c.h"

typedef struct ply_client ply_client_t;

typedef struct ply_perft_request {
    const char *fen;     /* FEN, X-FEN, Shredder-FEN or "startpos" */
    unsigned depth;      /* plies, 1..PLY_MAX_DEPTH */
    int chess960;        /* read castling as X-FEN/Shredder-FEN, castle by Chess960 rules */
    int stats;           /* count the fifteen statistics */
    int divide;          /* report per root move */
    int split_depth;     /* -1: automatic */
    int verify;          /* a Ply__VerifyMode (0: none) */
    uint32_t verify_ppm; /* with VERIFY_MODE_SAMPLE: the fraction of jobs, parts per million */
    int detach;          /* do not stream progress: the client leaves after Accepted */
} ply_perft_request_t;

/**
 * What `ply analyse` asks (a search run, Ply__SearchRequest): every root move of the
 * position fen + moves searched as its own job, with the same limits. At least one of
 * depth, nodes, movetime_ms is non-zero.
 */
typedef struct ply_search_request {
    const char *fen;                 /* FEN, X-FEN, Shredder-FEN or "startpos" */
    const char *const *moves;        /* UCI, the game history played from fen */
    size_t nmoves;                   /* 0..PLY_SEARCH_JOB_MAX_MOVES */
    const char *const *searchmoves;  /* UCI, the root moves analysed; NULL/0: every legal one */
    size_t nsearchmoves;             /* 0..PLY_MAX_DIVIDE */
    unsigned depth;                  /* plies, 0 (none) or 1..PLY_SEARCH_JOB_MAX_DEPTH */
    uint64_t nodes;                  /* node budget of each root move's job; 0: none */
    unsigned movetime_ms;            /* search time of each root move's job, ms; 0: none */
    /* a deepening analysis (SearchRequest.deepen): depth, nodes and movetime_ms then limit the
     * whole analysis; multipv lines exact (0: 1; >= the root moves: every one); infinite: no
     * limit, until canceled */
    int deepen;
    unsigned multipv;
    int infinite;
    int chess960;                    /* read castling as X-FEN/Shredder-FEN, Chess960 rules */
    const char *engine;              /* "builtin", "uci", or NULL: any worker that searches */
    /* game analysis (SearchRequest.plies): the positions after plies[i] of the moves, one
     * line each, instead of the root moves; NULL/0: the root moves */
    const uint32_t *plies;
    size_t nplies; /* 0..PLY_SEARCH_JOB_MAX_MOVES + 1 */
    int detach;                      /* do not stream progress: the client leaves after Accepted */
    int verify;          /* a Ply__VerifyMode (0: none); not with movetime_ms or plies */
    uint32_t verify_ppm; /* with VERIFY_MODE_SAMPLE: the fraction of jobs, parts per million */
} ply_search_request_t;

/** How long the probe of ply_client_new waits for a TCP connection, ms. */
#define PLY_CLIENT_PROBE_MS 3000
/** How long ply_client_new tries again a connection refused, ms. */
#define PLY_CLIENT_PROBE_GRACE_MS 1500
/** ZMTP heartbeats of the client's connection: a ping every PLY_CLIENT_PING_MS, and a
 * connection with no traffic PLY_CLIENT_PING_TIMEOUT_MS after a ping is dropped and made
 * again (a coordinator's host gone without a word), ms. libzmq answers them itself: a busy
 * coordinator still does. */
#define PLY_CLIENT_PING_MS         2000
#define PLY_CLIENT_PING_TIMEOUT_MS 10000
/** Bytes of a Submit's idempotency key (proto/ply.proto allows 16-64), drawn per submission. */
#define PLY_CLIENT_KEY_BYTES 16

/** Called for every RunProgress the coordinator streams; may be NULL. */
typedef void (*ply_client_progress_fn)(const Ply__RunProgress *progress, void *arg);

/**
 * ply_client_set_owner_token - the owner token every client of this process
 * sends with Submit, StatusRequest, ResultRequest and Cancel (call before the
 * first client is made). Without CURVE it is what makes runs the sender's
 * own: the coordinator keeps its hash as the run's owner, and only a client
 * sending the same token (or, under CURVE, the same key, or an admin key)
 * reads the run's answer or cancels it. @token: PLY_MIN_OWNER_TOKEN to
 * PLY_MAX_OWNER_TOKEN bytes of printable ASCII without spaces, copied.
 * Never set: a random token for this process. Returns 0 or PLY_EINVAL.
 */
int ply_client_set_owner_token(const char *token);

/**
 * ply_client_new - connect a DEALER to @endpoint. ZeroMQ connects lazily and
 * retries in silence, so the endpoint is probed first (proto/endpoint.h): a
 * malformed endpoint, an unknown host and a connection refused (tried again for
 * PLY_CLIENT_PROBE_GRACE_MS, a coordinator just started) return NULL at once
 * with the reason in @why. Once made, the client watches its connection
 * (libzmq's socket monitor): a coordinator that speaks CURVE to a plain
 * client, or refuses our key, ends the next wait at once (PLY_EAUTH); a
 * connection lost (the coordinator restarted; refused connections meanwhile
 * are tried again by ZeroMQ) is made again, and the request being waited for
 * goes again on it when it is the same twice (a Submit with its idempotency
 * key, a ResultRequest, a StatusRequest; never a Cancel). A wait that times
 * out says which it was: the coordinator accepted the connection but has not
 * answered (busy, or it lost the request), the connection was lost and not
 * made again, nothing took a connection at all (not running there), or no
 * ZeroMQ handshake completed.
 */
ply_client_t *ply_client_new(const char *endpoint, char *why, size_t why_len);

/**
 * ply_client_new_patient - ply_client_new for a client that knows a coordinator serves
 * @endpoint and may be restarting (ply result --wait RUN): a connection refused or a host
 * unreachable is no error, ZeroMQ keeps trying, and the waits' timeouts say what was seen
 * ("no answer at all ... no connection could be made there"). A malformed endpoint and an
 * unknown host still return NULL at once. Returns as ply_client_new.
 */
ply_client_t *ply_client_new_patient(const char *endpoint, char *why, size_t why_len);

/** ply_client_destroy - close the socket; NULLs *c; idempotent. */
void ply_client_destroy(ply_client_t **c);

/**
 * ply_client_submit - send a Submit and wait up to @timeout_ms milliseconds
 * for Accepted. The Submit carries an idempotency key of PLY_CLIENT_KEY_BYTES
 * random bytes, drawn once per submission; when the connection is lost before
 * the Accepted and made again (a coordinator restarted), the same Submit goes
 * again, and a coordinator that knows the key answers with the same run, never
 * a second (one that does not, older than issue 27, may start it anew: the run
 * it had is lost with it, unless its state file kept it). It is not sent again
 * on mere silence. The Accepted may come before the run is planned: then its
 * jobs, split_depth and paths are absent (has_jobs 0), and RunProgress.jobs_total
 * says when it is. Returns 0 with the Accepted message in *accepted (caller frees
 * with ply__accepted__free_unpacked(*accepted, NULL)), PLY_ETIMEDOUT (the cause
 * as ply_client_new says, in @why), PLY_EAUTH, or the code and message of
 * the coordinator's Error (bad FEN, depth out of range...). The Accepted must
 * say it computes what @req asks (RunAsked: the position as the rule engine
 * normalises it, depth, chess960, stats, split depth, verify mode), else
 * PLY_EMISMATCH naming the difference (an Accepted for an earlier Submit).
 */
int ply_client_submit(ply_client_t *c, const ply_perft_request_t *req, int timeout_ms,
                      Ply__Accepted **accepted, char *why, size_t why_len);

/**
 * ply_client_submit_send, ply_client_accepted - ply_client_submit in two halves,
 * so that a caller with several clients (an EPD suite, one client per check in
 * flight) has the coordinator plan their runs at the same time: send the Submit
 * (0, PLY_EINVAL when this client already waits for an Accepted or the request
 * is invalid, PLY_EIO), then later wait up to @timeout_ms milliseconds for its
 * Accepted, with ply_client_submit's answers and checks.
 */
int ply_client_submit_send(ply_client_t *c, const ply_perft_request_t *req, char *why,
                           size_t why_len);
int ply_client_accepted(ply_client_t *c, int timeout_ms, Ply__Accepted **accepted, char *why,
                        size_t why_len);

/**
 * ply_client_submit_search - ply_client_submit for a search run (Submit.kind SEARCH):
 * returns as it does. The Accepted must say it analyses what @req asks (RunAsked.kind
 * SEARCH and its SearchRequest: the position, the moves, the limits, the engine), else
 * PLY_EMISMATCH naming the difference.
 */
int ply_client_submit_search(ply_client_t *c, const ply_search_request_t *req, int timeout_ms,
                             Ply__Accepted **accepted, char *why, size_t why_len);

/**
 * ply_client_wait - wait for the RunResult of @run_id, calling @progress for
 * each RunProgress. Every PLY_CLIENT_RESYNC_MS, and at once when a connection
 * is made again after one was lost, the client asks for the run again with
 * ResultRequest{attach}: a coordinator restarted on its state file (which has
 * forgotten this client) then streams to it again, a run that finished
 * meanwhile is answered from the file, and the coordinator knows the run is
 * still followed (it stops a run with no end of its own, an infinite analysis,
 * once its client has been silent for PLY_CLIENT_SILENT_MS, envelope.h).
 * @idle_timeout_ms: give up when the coordinator has sent nothing for that
 * long (0 = wait forever), refused connections while it restarts included.
 * Returns 0 with *result (caller frees with ply__run_result__free_unpacked),
 * PLY_ETIMEDOUT, or the coordinator's Error code with its message in @why
 * (PLY_ENOTFOUND when a restarted coordinator does not know the run).
 * Every RunProgress and the RunResult must say they compute what the run's
 * Accepted (or the first answer ply_client_result got) said; one that does
 * not is another run under the same id (a coordinator that lost its history):
 * PLY_EMISMATCH with the difference in @why, and nothing of it is passed on.
 */
int ply_client_wait(ply_client_t *c, uint64_t run_id, ply_client_progress_fn progress, void *arg,
                    int idle_timeout_ms, Ply__RunResult **result, char *why, size_t why_len);

/** How often ply_client_wait asks for its run again, milliseconds. */
#define PLY_CLIENT_RESYNC_MS 2500

/**
 * ply_client_status - the coordinator's status: with @run_id 0 a StatusReply
 * in *reply (runs in progress and recent ones, workers, counters; free with
 * ply__status_reply__free_unpacked), else that run's RunProgress in
 * *progress (free with ply__run_progress__free_unpacked). Waits up to
 * @timeout_ms. Returns 0, PLY_ETIMEDOUT, or the coordinator's Error
 * (PLY_ENOTFOUND: no such run) with its message in @why.
 */
int ply_client_status(ply_client_t *c, uint64_t run_id, int timeout_ms, Ply__StatusReply **reply,
                      Ply__RunProgress **progress, char *why, size_t why_len);

/**
 * ply_client_result - ask for the answer of run @run_id once (ResultRequest,
 * with @attach: and stream it to this client from now on). Returns 0 with
 * either *result (the run is done; free with ply__run_result__free_unpacked)
 * or *progress (still running; free with ply__run_progress__free_unpacked),
 * PLY_ETIMEDOUT after @timeout_ms, or the run's or coordinator's Error code
 * with its message in @why (a failed run: its failure; PLY_ENOTFOUND: unknown).
 * What the answer says the run computes is then what later answers about
 * @run_id must say (PLY_EMISMATCH otherwise, as in ply_client_wait).
 */
int ply_client_result(ply_client_t *c, uint64_t run_id, int attach, int timeout_ms,
                      Ply__RunResult **result, Ply__RunProgress **progress, char *why,
                      size_t why_len);

/**
 * ply_client_cancel - ask the coordinator to cancel run @run_id and wait up to
 * @timeout_ms for its answer. Returns 0 with the run's RunProgress (state
 * "canceled"; free with ply__run_progress__free_unpacked) in *progress, or
 * PLY_ETIMEDOUT, or the coordinator's Error with its message in @why:
 * PLY_EAUTH (the run is another client's), PLY_ESTATE (it has finished),
 * PLY_ENOTFOUND (no such run).
 */
int ply_client_cancel(ply_client_t *c, uint64_t run_id, int timeout_ms, Ply__RunProgress **progress,
                      char *why, size_t why_len);

#endif
