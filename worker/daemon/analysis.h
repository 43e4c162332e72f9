/*
 * Analysis jobs on a worker: run one search job (a position with its game
 * history, root-move restriction, limits and MultiPV) on a search backend,
 * and give back every line as text (UCI moves), ready for a Result.
 *
 * Backends implement ply_analysis_ops_t: ply's own engine in-process
 * ("builtin", worker/engine/search.h, OpenMP threads on one shared table) and an
 * external UCI engine driven as a child process ("uci", analysis_uci.c). The worker's
 * search job runner (run_search.c) sees only this interface.
 *
 * Threads: one controlling thread calls ply_analysis_run (it blocks);
 * ply_analysis_stop may be called from any other thread at any time. A stop
 * that arrives while no search runs applies to the next one (it then ends
 * early), as ply_engine_stop: a controller clears it, under the lock that
 * guards its own stop calls, with ply_analysis_clear_stop when a run returns.
 */
#ifndef PLY_WORKER_ANALYSIS_H
#define PLY_WORKER_ANALYSIS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "search.h"

/** One search job, as data (the proto's SearchJob without the wire). */
typedef struct ply_analysis_job {
    const char *fen;          /* root of the game: FEN, X-FEN, Shredder-FEN or "startpos" */
    int chess960;             /* KQkq as X-FEN; castling written king-takes-rook */
    const char *const *moves; /* UCI, from fen to the position searched (game history) */
    int n_moves;
    const char *const *searchmoves; /* UCI root moves to search; 0 of them: all */
    int n_searchmoves;
    int depth;                  /* plies, 0 = no depth limit */
    uint64_t nodes;             /* node budget, 0 = none */
    int64_t movetime_ms;        /* milliseconds, 0 = none */
    int multipv;                /* lines, 1..PLY_SEARCH_MAX_MULTIPV (0 means 1) */
    _Atomic uint64_t *progress; /* NULL, or where the backend stores the nodes searched so
                                   far (at least once an iteration): the worker's heartbeat */
    /* A chunk of a game (SearchJob.plies): search the positions after plies[i] of the
     * moves (each 0..n_moves), in this order, on the same table, one line each (multipv 1,
     * no searchmoves), the limits applying to each. n_plies 0..PLY_SEARCH_MAX_MULTIPV;
     * 0: the one position after all the moves. */
    const int *plies;
    int n_plies;
    /* Reproducible (SearchJob.reproducible, a verified run's job): one thread and a fresh
     * private table of PLY_ANALYSIS_REPRO_HASH_MIB MiB, cleared when the job starts (the
     * UCI backend: Threads 1, Hash PLY_ANALYSIS_REPRO_HASH_MIB, ucinewgame), so that two
     * runs of one engine give identical lines and node counts. Refused with a movetime. */
    int reproducible;
    /* A root window (SearchJob.alpha / beta): with has_window, the builtin backend searches
     * alpha..beta only (ply_search_limits_t: engine units, centipawns and mate scores
     * PLY_SCORE_MATE - plies; -PLY_SCORE_INF <= alpha < beta <= PLY_SCORE_INF) and the line's
     * bound says whether its score is exact or a lower (>= beta) or upper (<= alpha) bound.
     * Refused with a chunk (n_plies) or multipv > 1. The UCI backend ignores it: it searches
     * the full window, and its exact score is right for any window. */
    int has_window;
    int alpha, beta;
    /* The first iteration (SearchJob.start_depth), plies; 0: 1. The builtin backend starts
     * its iterative deepening there (ply_search_limits_t.start_depth); the UCI backend at 1. */
    int start_depth;
} ply_analysis_job_t;

/** The private table of a reproducible job, MiB (proto's PLY_SEARCH_REPRO_HASH_MIB). */
#define PLY_ANALYSIS_REPRO_HASH_MIB 16

/** Longest UCI move text with its NUL ("e7e8q"). */
#define PLY_ANALYSIS_MOVE_LEN 6

/** One line of an answer, from the position searched. */
typedef struct ply_analysis_line {
    int multipv;  /* 1-based rank */
    int is_mate;  /* 1: score is mate in moves (UCI "score mate": > 0 the side to move mates) */
    int score;    /* centipawns (side to move) or mate in moves */
    int bound;    /* PLY_BOUND_* */
    int depth;    /* plies */
    int seldepth; /* plies */
    int n_pv;
    char pv[PLY_SEARCH_MAX_PLY][PLY_ANALYSIS_MOVE_LEN]; /* UCI, each legal in turn */
    int ply; /* a chunk's line: the position after this many of the job's moves; else -1 */
} ply_analysis_line_t;

/** The answer of one search job. */
typedef struct ply_analysis_result {
    int n_lines; /* best first; at least 1 (a root without moves: mate 0 or 0 cp, no PV);
                    a chunk: one per position, in the job's order */
    ply_analysis_line_t lines[PLY_SEARCH_MAX_MULTIPV];
    uint64_t nodes;   /* all threads */
    uint64_t time_us; /* the search's wall time, microseconds */
} ply_analysis_result_t;

typedef struct ply_analysis ply_analysis_t;

/** What a backend implements (see the top of this file for the threads). */
typedef struct ply_analysis_ops {
    const char *name; /* "builtin", "uci", ...: the worker's HELLO engine */
    int (*run)(ply_analysis_t *a, const ply_analysis_job_t *job, ply_analysis_result_t *out,
               char *why, size_t why_len);
    void (*stop)(ply_analysis_t *a);
    void (*clear_stop)(ply_analysis_t *a);
    void (*destroy)(ply_analysis_t *a);
    /* before a job (not its inner searches): @reproducible 1, a fresh reproducible state
     * (see ply_analysis_job_t); 0, the backend's own configuration again. 0 or an error. */
    int (*prepare)(ply_analysis_t *a, int reproducible, char *why, size_t why_len);
} ply_analysis_ops_t;

/** A backend: its ops first, its state after (each backend's own struct starts with this). */
struct ply_analysis {
    const ply_analysis_ops_t *ops;
};

/**
 * ply_analysis_builtin_new - ply's engine as a backend: a search table of
 * @hash_mib MiB (1..1048576) and @threads threads (1..1024). Returns NULL
 * when the table cannot be allocated or an argument is out of range.
 * Destroy with ply_analysis_destroy.
 */
ply_analysis_t *ply_analysis_builtin_new(size_t hash_mib, int threads);

struct ply_nnue;
/**
 * ply_analysis_builtin_set_net - the builtin backend @a evaluates with network @net (nnue.h;
 * not consumed, it must outlive @a's runs), or with the hand-written evaluation when NULL
 * (search.h's ply_engine_set_net), in every job, reproducible ones too. Another backend
 * ignores it. Not during a run.
 */
void ply_analysis_builtin_set_net(ply_analysis_t *a, const struct ply_nnue *net);

/**
 * ply_analysis_run - set up @job's position (fen, then moves; searchmoves
 * checked legal at the root), search it within its limits and fill *@out; a
 * chunk (job->n_plies > 0) searches each of its positions in turn, and a ply
 * out of 0..n_moves, too many plies, or plies with searchmoves or multipv > 1
 * are PLY_EINVAL; so is a root window with alpha >= beta, an edge outside
 * -PLY_SCORE_INF..PLY_SCORE_INF, plies or multipv > 1.
 * Blocks until a limit or ply_analysis_stop; a job without any limit is
 * refused (it would never end). Returns 0, or with a one-line reason in
 * @why: PLY_EFEN / PLY_EILLEGAL for a bad FEN, PLY_EPARSE / PLY_EILLEGAL for
 * a history move ("history move 3 (e7e9): ...", 1-based) or a searchmove
 * ("searchmoves 2 (d2d5): ...") that is not legal, PLY_EINVAL for no limit
 * or too many searchmoves, PLY_EWORKER when the engine's own line holds a
 * move that is not legal (an engine bug, named in @why: never sent as a
 * shortened line), or the backend's error.
 */
int ply_analysis_run(ply_analysis_t *a, const ply_analysis_job_t *job, ply_analysis_result_t *out,
                     char *why, size_t why_len);

/**
 * ply_analysis_job_position - what every backend checks before it searches:
 * @job's position (fen, then its history moves) into @pos, and its
 * searchmoves as legal root moves into @searchmoves (room for PLY_MAX_MOVES;
 * job->n_searchmoves of them are written). Returns 0, or as ply_analysis_run
 * with the reason in @why: PLY_EFEN / PLY_EILLEGAL for the FEN, PLY_EPARSE /
 * PLY_EILLEGAL for a history move ("history move 3 (e7e9): ...") or a
 * searchmove ("searchmoves 2 (d2d5): ..."), PLY_EINVAL for more than
 * PLY_MAX_MOVES searchmoves.
 */
int ply_analysis_job_position(const ply_analysis_job_t *job, ply_search_pos_t *pos,
                              ply_move_t *searchmoves, char *why, size_t why_len);

/** ply_analysis_stop - end the running search at once (see the top); any thread; NULL ignored. */
void ply_analysis_stop(ply_analysis_t *a);

/** ply_analysis_clear_stop - forget a pending stop (see the top); NULL ignored. */
void ply_analysis_clear_stop(ply_analysis_t *a);

/** ply_analysis_name - the backend's name ("builtin"); static string. */
const char *ply_analysis_name(const ply_analysis_t *a);

/**
 * ply_analysis_uci_new - an external UCI engine as a backend
 * (analysis_uci.c): start @cmdline (a program and its arguments,
 * split as ply_uci_client_start does, no shell), shake hands, and apply @options
 * (@n_options of "NAME=VALUE", or "NAME" for a button, 0..64; copied), each
 * one the engine must offer. Its runs set MultiPV (refused with PLY_EINVAL
 * when multipv > 1 and the engine offers no MultiPV) and UCI_Chess960 as a
 * job asks; the PVs are passed on as the engine wrote them (the coordinator
 * replays them). When the engine dies, a run fails with PLY_EIO and the
 * reason (exit status, last stderr line); the next run starts it again,
 * once. Returns NULL with a one-line reason in @why when the program
 * cannot be started, does not speak UCI, or refuses an option. Destroy with
 * ply_analysis_destroy.
 */
ply_analysis_t *ply_analysis_uci_new(const char *cmdline, const char *const *options, int n_options,
                                     char *why, size_t why_len);

/**
 * ply_analysis_engine_name - who computes: the UCI engine's "id name" (as at
 * its start) for the UCI backend, else the backend's name; owned by @a.
 */
const char *ply_analysis_engine_name(const ply_analysis_t *a);

/**
 * ply_analysis_repro_id - what decides the answer of a reproducible job on @a, into @buf
 * (@len bytes, cut to fit): the UCI backend's "uci:<id name>" and the options it was given
 * (but Threads and Hash, which a reproducible job sets); "builtin" for ply's engine or NULL
 * (the worker adds its version and Zobrist keys). Two workers with the same text (HELLO's
 * engine_id) answer a reproducible job alike.
 */
void ply_analysis_repro_id(const ply_analysis_t *a, char *buf, size_t len);

/** ply_analysis_destroy - free @*a and NULL it; idempotent. Not during a run. */
void ply_analysis_destroy(ply_analysis_t **a);

#endif
