/*
 * TEMPORARY, for the h3-analyse-pgn branch alone: ply_session_search (session.h) is
 * written on the h2-analyse-cli branch (with ply_client_submit_search on h1). Until
 * they are merged, this weak definition lets `ply analyse-pgn` build and say why it
 * cannot search; the real one, a strong definition in session.c, replaces it at link
 * time. The integrator deletes this file (and its line in CMakeLists.txt) once h2 is in.
 */
#include <stdio.h>

#include "session.h"
#include "util/error.h"

__attribute__((weak)) int ply_session_search(ply_session_t *s, const ply_search_request_t *req,
                                             ply_client_progress_fn progress, void *arg,
                                             Ply__Accepted **accepted, Ply__RunResult **result,
                                             char *why, size_t why_len)
{
    (void)s, (void)req, (void)progress, (void)arg;
    *accepted = NULL;
    *result = NULL;
    return ply_why(why, why_len, PLY_EUSAGE,
                   "search runs are not in this build (ply_session_search comes with the "
                   "h2-analyse-cli branch)");
}
