/*
 * The analysis engine: an alpha-beta search on the fast board, run by a
 * worker for analysis jobs and by `ply uci` for GUIs and match tools.
 *
 * Shape: iterative deepening over a principal variation search with
 * aspiration windows, a quiescence search, the usual pruning and
 * reductions, and Lazy SMP: ply_engine_search starts an OpenMP team whose
 * threads all search the same root on one shared transposition table (with
 * varied depths), and the main thread (thread 0) alone reports. The
 * principal variation is collected exactly (a triangular PV table), never
 * read back from the table.
 *
 * Scores are centipawns from the side to move's point of view. A mate is
 * PLY_SCORE_MATE - plies to mate (positive: the side to move mates), or its
 * negation; every |score| >= PLY_SCORE_MATE_MIN is a mate score.
 *
 * Threads: one engine is driven by one controlling thread (ply_engine_search
 * blocks it); ply_engine_stop and ply_engine_ponderhit may be called from any
 * other thread at any time, and take effect within about a millisecond.
 */
#ifndef PLY_WORKER_SEARCH_H
#define PLY_WORKER_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "board/movegen.h"

#define PLY_SCORE_INF          32767
#define PLY_SCORE_MATE         32000
#define PLY_SEARCH_MAX_PLY     128 /* longest line searched from the root, plies */
#define PLY_SCORE_MATE_MIN     (PLY_SCORE_MATE - PLY_SEARCH_MAX_PLY)
#define PLY_SEARCH_MAX_DEPTH   100 /* deepest iteration, plies */
#define PLY_SEARCH_MAX_MULTIPV 64
#define PLY_SEARCH_MAX_HISTORY 1024 /* game positions before the root kept for repetitions */

/** How a score bounds the true value (UCI "lowerbound" / "upperbound"). */
enum { PLY_BOUND_EXACT = 0, PLY_BOUND_LOWER = 1, PLY_BOUND_UPPER = 2 };

/**
 * What to search: the root, and the keys (key[0] of ply_board_t) of the game
 * positions that led to it, oldest first, so that the threefold repetition
 * (FIDE Laws art. 9.2) counts game positions too: a position repeated in the
 * search tree is a draw at once, one that only occurred before the root is a
 * draw when it occurred twice there (as Stockfish). Only the
 * positions since the last capture or pawn move matter; older ones may be
 * left out.
 */
typedef struct ply_search_pos {
    ply_board_t root;
    int n_history;
    uint64_t history[PLY_SEARCH_MAX_HISTORY];
} ply_search_pos_t;

/**
 * ply_search_pos_set - fill @p from a FEN (or "startpos") and UCI moves
 * played from it (@moves: @n_moves strings, both castling forms accepted),
 * recording the history. Returns 0, or PLY_EFEN / PLY_EILLEGAL for a bad
 * FEN, PLY_EPARSE / PLY_EILLEGAL for a bad move (its index and text in @why).
 * The fifty-move clock (root.rule50, plies) saturates at 255: a FEN halfmove
 * clock above 255 is read as 255, and quiet moves never wrap it.
 * @chess960: read KQkq as X-FEN and write castling king-takes-rook.
 */
int ply_search_pos_set(ply_search_pos_t *p, const char *fen, int chess960, const char *const *moves,
                       int n_moves, char *why, size_t why_len);

/** Limits of one search. Zero-initialise (ply_search_limits_init), then set what you need. */
typedef struct ply_search_limits {
    int depth;           /* deepest iteration, plies; 0 = no limit */
    uint64_t nodes;      /* node budget, all threads; 0 = no limit */
    int64_t movetime_ms; /* exact time for this move, milliseconds; 0 = none */
    int64_t time_ms[2];  /* clock of white / black, milliseconds; -1 = not given */
    int64_t inc_ms[2];   /* increment per move, milliseconds */
    int movestogo;       /* moves to the next time control; 0 = sudden death */
    int64_t overhead_ms; /* subtracted from every time budget (UCI "Move Overhead") */
    int infinite;        /* search until ply_engine_stop (UCI "go infinite") */
    int ponder;          /* pondering: no time limit until ply_engine_ponderhit */
    int multipv;         /* lines to report, 1..PLY_SEARCH_MAX_MULTIPV (0 means 1) */
    int n_searchmoves;   /* restrict the root to these moves (UCI "searchmoves"); 0 = all */
    ply_move_t searchmoves[PLY_MAX_MOVES];
    /* A root window (a coordinator's principal variation search at the root): with
     * has_window, the root is searched within alpha..beta only, in the units of
     * ply_search_line_t.score (centipawns; a mate PLY_SCORE_MATE - plies, negated when the
     * side to move is mated), -PLY_SCORE_INF <= alpha < beta <= PLY_SCORE_INF, multipv 1.
     * Each iteration's aspiration window is cut to it. The line is then a lower bound
     * (PLY_BOUND_LOWER, score >= beta) when the best move scores at least beta, an upper
     * bound (PLY_BOUND_UPPER, score <= alpha: no move does better) when at most alpha, else
     * exact; a null window (beta = alpha + 1) gives a bound unless the search is cut short.
     * has_window 0: the full window. */
    int has_window;
    int alpha, beta;
    /* The first iteration, plies (1..depth; 0 means 1): a search whose table holds the
     * shallower iterations already (a coordinator's deepening analysis: the same root move a
     * ply shallower, just before) need not search them again. Taken only when the table
     * holds every root move's position from depth start_depth - 3 or deeper; else the
     * search starts at depth 1. */
    int start_depth;
    /* Several engines on one position as one team (Stockfish's "lazy cluster": each its own
     * table, sharing deep entries through ply_engine_set_export / ply_engine_import):
     * helper_parity 1 makes this engine's even threads the ones that search an iteration
     * one ply deeper (0: the odd ones, as in one engine), so that two engines of one thread
     * do not search the same depths; shared_depth, when not NULL, is the deepest iteration
     * any engine of the team has finished (relaxed atomic int, 0 at first): this engine
     * skips those (as a thread skips its own team's) and raises it as it finishes deeper. */
    int helper_parity;
    int *shared_depth;
} ply_search_limits_t;

/** ply_search_limits_init - no limit at all (as UCI "go infinite" without the flag). */
void ply_search_limits_init(ply_search_limits_t *l);

/** One principal variation. */
typedef struct ply_search_line {
    int score;    /* centipawns or mate score, side to move at the root */
    int bound;    /* PLY_BOUND_* */
    int depth;    /* iteration it comes from, plies */
    int seldepth; /* deepest ply reached in that iteration */
    int n_pv;
    ply_move_t pv[PLY_SEARCH_MAX_PLY];
} ply_search_line_t;

/** What the reporting thread knows after an iteration (or a fail high/low at the root). */
typedef struct ply_search_info {
    int multipv; /* 1-based line number */
    const ply_search_line_t *line;
    uint64_t nodes;  /* all threads, so far */
    int64_t time_ms; /* since the search started */
    int hashfull;    /* per mille of the table in use by this search (UCI "hashfull") */
} ply_search_info_t;

/** Called on the reporting thread for each line of each finished iteration, and for aspiration
 * fails. */
typedef void (*ply_search_info_fn)(const ply_search_info_t *info, void *arg);

/** The answer of one search. */
typedef struct ply_search_result {
    ply_move_t best;   /* 0 when the root has no legal move (UCI "bestmove 0000") */
    ply_move_t ponder; /* the expected reply, 0 when unknown */
    int n_lines;
    ply_search_line_t lines[PLY_SEARCH_MAX_MULTIPV]; /* best first */
    uint64_t nodes;
    int64_t time_ms;
    int hashfull;
} ply_search_result_t;

typedef struct ply_engine ply_engine_t;

/**
 * ply_engine_new - an engine with a table of @hash_mib MiB (1..1048576) and
 * @threads search threads (1..1024), evaluating as PLY_ENGINE_NNUE_DEFAULT says. Returns NULL when the table cannot be
 * allocated. Destroy with ply_engine_destroy.
 */
ply_engine_t *ply_engine_new(size_t hash_mib, int threads);

/** ply_engine_destroy - free @*e; NULLs it; idempotent. Not during a search. */
void ply_engine_destroy(ply_engine_t **e);

/** ply_engine_set_hash - resize the table (cleared). Returns 0 or PLY_ENOMEM (old table kept). Not
 * during a search. */
int ply_engine_set_hash(ply_engine_t *e, size_t hash_mib);

/** ply_engine_set_threads - 1..1024 threads for later searches. Returns 0 or PLY_EINVAL. */
int ply_engine_set_threads(ply_engine_t *e, int threads);

/**
 * The engine's evaluation by default: 1, the network embedded in the executable
 * (nnue.h's ply_nnue_embedded) when the build has one, else the hand-written ply_eval
 * (eval.h); 0, ply_eval always. One constant, decided by matches (issue 29).
 */
#define PLY_ENGINE_NNUE_DEFAULT 1

struct ply_nnue;
/**
 * ply_engine_set_net - evaluate with network @net (nnue.h; not consumed: it must
 * outlive the engine's searches), or with the hand-written ply_eval when NULL. Both
 * keep the search's draws (repetition, fifty moves, KK / KBK / KNK). A change clears
 * the table (its stored evaluations are the other evaluation's). Not during a search.
 */
void ply_engine_set_net(ply_engine_t *e, const struct ply_nnue *net);

/** ply_engine_net - the network @e evaluates with, or NULL for ply_eval. */
const struct ply_nnue *ply_engine_net(const ply_engine_t *e);

/* Tests only: while ply__search_check_acc is nonzero, every network accumulator a search
 * brings up to date is compared with a refresh of its board; ply__search_acc_checks counts
 * the comparisons, ply__search_acc_errors the differences (relaxed atomics). */
extern int ply__search_check_acc;
extern uint64_t ply__search_acc_checks, ply__search_acc_errors;

/** ply_engine_clear - forget everything learned (table, histories): UCI "ucinewgame", "Clear Hash".
 */
void ply_engine_clear(ply_engine_t *e);

/**
 * ply_engine_search - search @pos within @lim, calling @cb (may be NULL)
 * with @arg as iterations finish, and fill *@out. Blocks the calling thread
 * until a limit is reached or ply_engine_stop; with @lim->infinite or
 * @lim->ponder it does not return on its own before a stop (or, pondering,
 * before ponderhit and the time limit), even when the result is decided (a
 * mate found, one legal move). Deterministic with 1 thread and a depth or
 * node limit only: the same engine state (after ply_engine_clear) gives the
 * same nodes, scores, PV and best move. Returns 0, or PLY_EINVAL for
 * inconsistent limits (a searchmoves move that is not legal; a root window
 * with alpha >= beta, either outside -PLY_SCORE_INF..PLY_SCORE_INF, or with
 * multipv > 1).
 * A root without legal moves returns at once with best = 0, one line with
 * score -PLY_SCORE_MATE (checkmate) or 0 (stalemate) and n_pv = 0.
 */
int ply_engine_search(ply_engine_t *e, const ply_search_pos_t *pos, const ply_search_limits_t *lim,
                      ply_search_info_fn cb, void *arg, ply_search_result_t *out);

/**
 * ply_engine_stop - end the running search as soon as possible; any thread.
 * A stop that arrives while no search runs applies to the next one (it then
 * ends after its first iteration), so that a stop sent right after starting a
 * search on another thread is never lost; the flag is cleared when a search
 * returns. A controller therefore stops only a search it started and has not
 * seen return (or clears a stop that raced with the return: below).
 */
void ply_engine_stop(ply_engine_t *e);

/**
 * ply_engine_clear_stop - forget a pending stop, so that the next search is
 * not cut short by a stop meant for one that has already returned; any
 * thread, but only between searches (a controller calls it, under the lock
 * that guards its own ply_engine_stop calls, when ply_engine_search returns).
 */
void ply_engine_clear_stop(ply_engine_t *e);

struct ply_stt;
struct ply_stt_log;
struct ply_stt_record;
/**
 * ply_engine_set_export - from now on, also append the table's stores of @log->min_depth
 * plies or more to @log (stt.h; not consumed, it must outlive its use), or stop when NULL.
 * Not during a search.
 */
void ply_engine_set_export(ply_engine_t *e, struct ply_stt_log *log);

/**
 * ply_engine_import - store @n records of another engine's export log (ply_stt_log_read)
 * in this engine's table, as hints for its searches; any thread, during a search too.
 * Records with a key that this engine's positions do not have are simply never probed.
 */
void ply_engine_import(ply_engine_t *e, const struct ply_stt_record *r, size_t n);

/**
 * ply_engine_table - the engine's search table, read-only, for tests and
 * diagnostics (what a search left in it); only between searches.
 */
const struct ply_stt *ply_engine_table(const ply_engine_t *e);

/** ply_engine_ponderhit - the pondered move was played: from now on the time limits apply; any
 * thread. */
void ply_engine_ponderhit(ply_engine_t *e);

/** ply_score_is_mate - 1 when @score is a mate score (either side), else 0. */
static inline int ply_score_is_mate(int score)
{
    return score >= PLY_SCORE_MATE_MIN || score <= -PLY_SCORE_MATE_MIN;
}

/**
 * ply_score_mate_moves - for a mate score, the moves to mate as UCI "score
 * mate N" counts them (positive: the side to move mates; negative: it is
 * mated; 0 when mated at the root, as UCI "score mate 0"); 0 for a score that
 * is not a mate score either (tell them apart with ply_score_is_mate).
 */
static inline int ply_score_mate_moves(int score)
{
    if (score >= PLY_SCORE_MATE_MIN) return (PLY_SCORE_MATE - score + 1) / 2;
    if (score <= -PLY_SCORE_MATE_MIN) return -(PLY_SCORE_MATE + score) / 2;
    return 0;
}

#endif
