/*
 * The run journal of `ply analyse-pgn --state FILE`: which search run answered which
 * request, kept in FILE.runs next to the embedded coordinator's state file, so that the
 * same command run again after an interruption takes the answers of the runs that had
 * finished from the state file (`ply result`'s way: the coordinator keeps every finished
 * run's answer) instead of computing them again; the run that was interrupted is
 * resumed by the coordinator when the same request is submitted again.
 * A request is known by the SHA-1 (czmq's zdigest) of its canonical text: the root,
 * the moves, the plies, the limits. One line per finished run, "SHA1HEX RUNID\n",
 * appended and flushed as each run finishes; a torn last line is ignored.
 */
#ifndef PLY_CLIENT_RUN_JOURNAL_H
#define PLY_CLIENT_RUN_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"

typedef struct ply_run_journal ply_run_journal_t;

/** Characters of a request's key, with the NUL (SHA-1 in hex). */
#define PLY_RUN_JOURNAL_KEY 41

/**
 * ply_run_journal_open - read the journal at @path (created when missing) and keep it
 * open for appending. Returns NULL with the reason in @why (e.g. a directory that
 * cannot be written).
 */
ply_run_journal_t *ply_run_journal_open(const char *path, char *why, size_t why_len);

/** ply_run_journal_close - close and free *@j, set it NULL; idempotent. */
void ply_run_journal_close(ply_run_journal_t **j);

/** ply_run_journal_key - the key of search request @req into @key (PLY_RUN_JOURNAL_KEY). */
void ply_run_journal_key(const ply_search_request_t *req, char key[PLY_RUN_JOURNAL_KEY]);

/** ply_run_journal_find - the run id recorded for @key, or 0. */
uint64_t ply_run_journal_find(ply_run_journal_t *j, const char *key);

/** ply_run_journal_add - record that run @id answered @key (written through). 0 or PLY_EIO. */
int ply_run_journal_add(ply_run_journal_t *j, const char *key, uint64_t id);

#endif
