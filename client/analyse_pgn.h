/*
 * The analysis of one game of `ply analyse-pgn` once it is read (the command, in
 * cli/analyse_pgn_cmd.c, reads the file, writes the annotated games and the JSON, and says
 * what happens): the positions to search (those neither earlier in the game nor in the
 * position cache, pos_cache.h), one search run for them through a session (session.h;
 * several when a game has more positions than a run takes), then the consistency pass
 * (pgn_annotate.h's ply_pa_contradictions): the contradicted positions searched again with
 * twice the budget. With a run journal (run_journal.h, --state) a request answered before
 * is read back from the state file instead of searched.
 * Memory: the game being analysed and the cache (bounded); nothing per finished game.
 */
#ifndef PLY_CLIENT_ANALYSE_PGN_H
#define PLY_CLIENT_ANALYSE_PGN_H

#include <stddef.h>
#include <stdint.h>

#include "pgn_annotate.h"
#include "pos_cache.h"
#include "run_journal.h"
#include "session.h"
#include "util/u128.h"

/** What the games of one file share: where they are searched, the limits, the totals. */
typedef struct ply_apgn {
    ply_session_t *session;     /* the searches (not owned) */
    ply_pos_cache_t *cache;     /* positions searched before (not owned) */
    ply_run_journal_t *journal; /* --state: which run answered which request, or NULL */
    const char *state_path;     /* the state file the journal is kept next to, for messages */
    unsigned depth;             /* plies, or 0 */
    uint64_t nodes;             /* the budget of each position, or 0 */
    /* the progress of each run (may be NULL), and a problem that does not stop the work
     * (the journal cannot be written: the text, without the command's name) */
    ply_client_progress_fn progress;
    void (*warn)(void *arg, const char *text);
    void *arg;
    /* totals over the file, added to by ply_apgn_analyse */
    uint64_t runs;         /* search runs submitted or read back */
    uint64_t researched;   /* positions searched again by the consistency pass */
    ply_u128_t nodes_done; /* nodes of the runs finished by this command */
} ply_apgn_t;

/** One game's work: the replay, each position's identity, what was searched. */
typedef struct ply_apgn_game {
    size_t number; /* the game's number in the file */
    ply_pa_game_t g;
    char (*ids)[PLY_ARB_FEN_MAX];
    int *copy_of;     /* ply with the same identity earlier in the game, or -1 */
    unsigned *plies;  /* scratch: the plies of one run */
    unsigned *redone; /* the plies the consistency pass searched again */
    size_t nredone;
    unsigned positions, searched, from_cache;
    uint32_t jobs_restored, jobs_computed;
    unsigned runs_from_state; /* runs answered by the state file (--state, run again) */
    unsigned from_state;      /* positions of those runs: not searched by this command */
} ply_apgn_game_t;

/**
 * ply_apgn_game_alloc - the arrays of @w for its game @w->g (read by ply_pa_game_read).
 * Returns 0 or PLY_ENOMEM; ply_apgn_game_free frees them either way.
 */
int ply_apgn_game_alloc(ply_apgn_game_t *w);

/** ply_apgn_game_free - free @w's game and arrays; idempotent. */
void ply_apgn_game_free(ply_apgn_game_t *w);

/**
 * ply_apgn_analyse - give every position of @w's game with a legal move an engine line
 * (@w->g.lines): from earlier in the game, from the cache, or searched in runs on
 * @ap->session, then the consistency pass; the searched lines are put in the cache. Returns
 * 0; or the session's error (PLY_EWORKER, PLY_EMISMATCH when no worker's answer passed the
 * checks; the session's others) or PLY_EPROTO for an answer that does not fit the request,
 * with the reason in @why; or PLY_ENOMEM with @why empty.
 */
int ply_apgn_analyse(ply_apgn_t *ap, ply_apgn_game_t *w, char *why, size_t why_len);

#endif
