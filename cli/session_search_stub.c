/*
 * TEMPORARY, for the h3-analyse-pgn branch alone: ply_session_search (session.h) is
 * written on the h2-analyse-cli branch. Until it is merged, this weak definition (the
 * same two calls ply_session_perft makes, for a search run) lets `ply analyse-pgn` run
 * and its tests pass on this branch; h2's definition in session.c is strong and replaces
 * it at link time. The integrator deletes this file (and its line in CMakeLists.txt)
 * once h2 is in.
 */
#include "session.h"

__attribute__((weak)) int ply_session_search(ply_session_t *s, const ply_search_request_t *req,
                                             ply_client_progress_fn progress, void *arg,
                                             Ply__Accepted **accepted, Ply__RunResult **result,
                                             char *why, size_t why_len)
{
    *accepted = NULL;
    *result = NULL;
    int timeout = (int)ply_session_timeout_ms(s);
    ply_client_t *c = ply_session_client(s);
    int rc = ply_client_submit_search(c, req, timeout, accepted, why, why_len);
    if (rc < 0) return rc;
    rc = ply_client_wait(c, (*accepted)->run_id, progress, arg, timeout, result, why, why_len);
    if (rc < 0) ply_session_free_reply(accepted, result);
    return rc;
}
