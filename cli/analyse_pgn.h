/*
 * The work of `ply analyse-pgn` once its command line is read (analyse_pgn_cmd.c reads
 * it): the file read game by game, each game's positions searched through a session
 * (session.h), checked for contradictions and searched again where needed, and the
 * annotated games and the JSON written as they are done.
 */
#ifndef PLY_CLI_ANALYSE_PGN_H
#define PLY_CLI_ANALYSE_PGN_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

/** Positions the cache keeps by default (pos_cache.h: about 250 bytes each). */
#define PLY_APGN_CACHE_DEFAULT 65536u

/** What the command line asked. */
typedef struct ply_apgn_args {
    const char *file;   /* the PGN file, "-" for standard input */
    const char *output; /* -o: the annotated games, or NULL (stdout; nothing with --json) */
    unsigned depth;     /* -d: plies, or 0 */
    uint64_t nodes;     /* --nodes: the budget of each position, or 0 */
    size_t game;        /* --game: 1-based, 0 for every game */
    size_t cache;       /* --cache: positions */
    int json, quiet;
    ply_session_config_t session;
} ply_apgn_args_t;

/**
 * ply_apgn_run - analyse @a->file as the command's --help says: the annotated games on
 * @a->output (or stdout), --json on stdout, progress and every skipped game ("ply
 * analyse-pgn: game N (line L): why; skipped") on stderr. Returns the exit status: 0
 * every game analysed; 1 a game skipped, a run that failed (the session's reason is
 * printed and the games before it are written) or an output that cannot be written;
 * 2 a file that cannot be read.
 */
int ply_apgn_run(const ply_apgn_args_t *a);

#endif
