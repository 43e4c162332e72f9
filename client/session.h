/*
 * A session of the ply command with a coordinator: either a remote one
 * (--coordinator ENDPOINT), or the embedded default, which runs a
 * coordinator on its own thread and one in-process worker over inproc://
 * (same protocol, same code), or N local ply-worker processes over loopback
 * TCP (--workers N). The session outlives one run, so an EPD suite reuses
 * the same coordinator, worker and warm transposition table.
 */
#ifndef PLY_CLIENT_SESSION_H
#define PLY_CLIENT_SESSION_H

#include <stddef.h>

#include "client.h"

typedef struct ply_session_config {
    const char *coordinator; /* remote endpoint, or NULL for the embedded default */
    int threads;             /* worker threads (embedded or spawned); 0 = one per core */
    unsigned hash_mib;       /* worker table size, MiB */
    unsigned workers;        /* 0: in-process worker; N: N ply-worker processes */
    unsigned timeout_ms;     /* give up on a silent coordinator after this long */
    /* The embedded coordinator's state file (store.h), or NULL: by default it keeps none,
     * since it lives and dies with the ply process and nothing could resume from a
     * temporary file. With a file, an interrupted `ply perft --state FILE ...` run again
     * with the same arguments resumes where it stopped. Ignored with a remote coordinator. */
    const char *state_path;
    /* The local workers' search backend (embedded or --workers N): NULL for ply's own
     * engine, else the command line of an external UCI engine (e.g. "/usr/games/stockfish")
     * that each worker drives, with engine_options[0..nengine_options) ("NAME=VALUE") set on
     * it. Ignored with a remote coordinator (its workers chose theirs). */
    const char *engine_cmd;
    const char *const *engine_options; /* not copied: they outlive the session */
    size_t nengine_options;            /* 0..PLY_SESSION_ENGINE_OPTIONS_MAX */
} ply_session_config_t;

/** Most engine_options a session passes on (ply-worker --engine-option's limit). */
#define PLY_SESSION_ENGINE_OPTIONS_MAX 64

typedef struct ply_session ply_session_t;

/**
 * ply_session_new - start the embedded coordinator and worker(s), or connect
 * to the remote coordinator. Returns NULL with a one-line reason in @why
 * (e.g. "cannot find ply-worker next to ply"; with engine_cmd and the in-process
 * worker, "engine CMD: ..." when the engine cannot be started or refuses an option).
 */
ply_session_t *ply_session_new(const ply_session_config_t *cfg, char *why, size_t why_len);

/**
 * ply_session_perft - submit one perft run and wait for its result, calling
 * @progress (may be NULL) for each progress report.
 * Returns 0 with *accepted and *result set (free with ply_session_free_reply),
 * or a negative PLY_E code with the reason in @why: the coordinator's error
 * (bad FEN: PLY_EFEN/PLY_EILLEGAL; a failed cross-check: PLY_EMISMATCH; ...)
 * or PLY_ETIMEDOUT when the coordinator does not answer.
 */
int ply_session_perft(ply_session_t *s, const ply_perft_request_t *req,
                      ply_client_progress_fn progress, void *arg, Ply__Accepted **accepted,
                      Ply__RunResult **result, char *why, size_t why_len);

/**
 * ply_session_search - submit one search run (`ply analyse`) and wait for its result,
 * calling @progress (may be NULL) for each progress report (RunProgress.search holds the
 * root moves done so far). Returns as ply_session_perft does; *result->search is the
 * answer.
 */
int ply_session_search(ply_session_t *s, const ply_search_request_t *req,
                       ply_client_progress_fn progress, void *arg, Ply__Accepted **accepted,
                       Ply__RunResult **result, char *why, size_t why_len);

/**
 * ply_session_submit - submit one run without waiting for it (for --detach):
 * returns 0 with *accepted (free with ply_session_free_reply), or a negative
 * PLY_E code with the reason in @why.
 */
int ply_session_submit(ply_session_t *s, const ply_perft_request_t *req, Ply__Accepted **accepted,
                       char *why, size_t why_len);

/** ply_session_endpoint - the coordinator endpoint the session's client talks to (owned by @s):
 * more clients may connect to it (ply perft --epd keeps several checks in flight). */
const char *ply_session_endpoint(const ply_session_t *s);

/** ply_session_client - the session's client, for status and result requests (owned by @s). */
ply_client_t *ply_session_client(ply_session_t *s);

/** ply_session_timeout_ms - how long the session waits for a silent coordinator, milliseconds. */
unsigned ply_session_timeout_ms(const ply_session_t *s);

/** ply_session_free_reply - free what ply_session_perft returned; NULLs both; idempotent. */
void ply_session_free_reply(Ply__Accepted **accepted, Ply__RunResult **result);

/** ply_session_destroy - stop the embedded coordinator and workers; NULLs *s; idempotent. */
void ply_session_destroy(ply_session_t **s);

#endif
