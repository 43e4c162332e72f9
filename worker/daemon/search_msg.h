/*
 * A search job's answer as the wire's Result (Result.search, ply.proto's SearchResult):
 * every line as the analysis backend gave it, in UCI text, with who computed it. The
 * search job runner (run_search.c) fills one and hands it to the network actor.
 */
#ifndef PLY_WORKER_SEARCH_MSG_H
#define PLY_WORKER_SEARCH_MSG_H

#include <stdint.h>

#include "analysis.h"
#include "envelope.h"

/** A Result and the storage its pointers use (large: allocate it). */
typedef struct ply_search_msg {
    Ply__Result res; /* the message: res.search points to sr */
    Ply__SearchResult sr;
    Ply__SearchLine lines[PLY_SEARCH_MAX_MULTIPV];
    Ply__SearchLine *line_ptrs[PLY_SEARCH_MAX_MULTIPV];
    char *pv[PLY_SEARCH_MAX_MULTIPV][PLY_SEARCH_MAX_PLY];
    char engine[160]; /* "ply <version> builtin", or "uci:<id name>" */
} ply_search_msg_t;

/**
 * ply_search_msg_fill - @m->res answering search @job with @r, computed on backend @an,
 * @time_us the job's wall time, microseconds. The PV texts point into @r, which must
 * outlive the message; nothing is allocated.
 */
void ply_search_msg_fill(ply_search_msg_t *m, const Ply__Job *job, const ply_analysis_t *an,
                         const ply_analysis_result_t *r, uint64_t time_us);

#endif
