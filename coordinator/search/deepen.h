/*
 * A deepening analysis (SearchRequest.deepen: `ply analyse`, `ply uci --workers`): the part of
 * kind 2 (search/kind.c) that drives iterative deepening over the cluster, the coordinator
 * choosing every job. It is a root split: each job searches one root move (searchmoves) to
 * one depth, and the coordinator is the root of a principal variation search.
 *
 * Facts. Every accepted line is a fact about one root move at one depth: an exact score, a
 * lower bound or an upper bound (SearchLine.bound), in ply's engine units (centipawns; a mate
 * PLY_SCORE_MATE less its plies). Bounds of one move at one depth narrow [lo, hi]; a fact
 * that contradicts an older one (two searches of one position differ: another table, another
 * worker) replaces it.
 *
 * An iteration d is complete when the multipv best moves (K; every move when K is at least
 * their number) have an exact score at d and every other move an upper bound at d no higher
 * than the K-th exact score T: proven worse. Its answer is those lines, best first.
 *
 * The jobs (ply__deepen_pick), most useful first:
 *   1. iteration d (the first incomplete one), then d + 1 (speculative: workers are never
 *      idle while the last searches of d run), never beyond the depth limit;
 *   2. within a depth, exact searches (no window) before null-window ones: the moves ranked
 *      best by the deepest facts so far (the eldest brothers) until K are exact, and any move
 *      that failed high over T; then a null window [T, T + 1] for each other move, searched
 *      again exactly only when it fails high. Before T is known (K exact scores, and every
 *      eldest brother exact or proven below them), the higher of the K-th exact score so far
 *      and the last completed iteration's threshold;
 *   3. a move the asking worker searched last (its table holds that subtree) or nobody did,
 *      at this depth then the next, before a move another worker searched last (cold here,
 *      it costs more: taken only when the worker would be idle otherwise, and an exact one
 *      only when that worker computes nothing of the analysis: it would come back to it).
 * A move is searched at most once at a time at each depth. An external UCI engine takes no
 * window: its exact lines fit any window, so its analysis costs a search of every move.
 *
 * The opening iterations in one job. A shallow iteration costs a worker a few milliseconds
 * and the root split makes it dozens of jobs, each a round trip (at 1 ms a round trip, 55% of
 * one worker's time to depth 14: BENCHMARKS.md). So an analysis starts with one whole job at
 * depth W = min(PLY__DEEPEN_WHOLE_DEPTH, its depth limit - PLY__DEEPEN_WHOLE_BELOW) when that
 * is at least 2 (the limit at most PLY_SEARCH_JOB_MAX_DEPTH: an analysis by time or until
 * stopped opens at PLY__DEEPEN_WHOLE_DEPTH; none under a node limit, search/kind.c): every
 * root move of the analysis (its searchmoves) at that depth, the engine's own
 * iterative deepening and root search, multipv K lines (K at most
 * PLY_SEARCH_JOB_MAX_MULTIPV; more, and the analysis starts at depth 1 as before). Its K
 * exact lines are facts at that depth, and every other move is no better than the K-th (the
 * engine's multipv claim: these are the K best), its line the move alone with that upper
 * bound: the iteration is complete, the ones below it are never reported, and the worker's
 * table holds every move (each move's last worker). While it runs, the other workers wait.
 *
 * Subset jobs. The null windows a worker would take one by one at one threshold (its own
 * moves, or nobody's, or another worker's when it would be idle: never mixed) go as one job of
 * up to PLY__DEEPEN_SUBSET moves (searchmoves), best ranked first: the engine's root searches
 * them in the window and stops at the first that fails high. A fail high is that move's lower
 * bound (the others of the job are searched again); a fail low is an upper bound for every
 * move of the job (each gets it as its line, the move alone, but the one the line names), and
 * so is an exact line (an external engine's: the best of its searchmoves). One round trip
 * where there were up to eight.
 *
 * More workers than root moves. A worker for which the root has nothing (every move it could
 * search is in flight, proven, or waits for a threshold) helps the eldest brother of the
 * current iteration d (from depth PLY__DEEPEN_SPLIT_DEPTH) while nobody searches the eldest
 * itself at d (its exact search waits for the worker whose table holds it): the split, a
 * deepening analysis of the position after it at depth d - 1, its best reply ranked first by
 * the eldest's last line, the others null windows against its score, in jobs of their own (a
 * ply deeper: the eldest's move is played before them). Whichever ends first gives the
 * eldest's exact line at d: the whole job of the eldest, or the split's iteration (the
 * eldest's move, then the split's best line, its score negated). A split is kept across
 * iterations while its move stays the eldest (its facts rank the replies), and replaced when
 * another move is.
 *
 * Threads: the loop's, as every hook of a kind. No I/O: search/kind.c feeds it results and
 * reads the answer.
 */
#ifndef PLY_COORDINATOR_SEARCH_DEEPEN_H
#define PLY_COORDINATOR_SEARCH_DEEPEN_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/arbiter.h"
#include "ply.pb-c.h"

typedef struct ply__deepen ply__deepen_t;

/** One job of a deepening analysis: a root move to a depth, in a window or not. */
typedef struct ply__deepen_job {
    uint32_t move;  /* index of the root move (the order ply__deepen_new was given) */
    uint32_t depth; /* plies, 1.. */
    int window;     /* 1: the null window [alpha, beta = alpha + 1]; 0: none (exact) */
    int32_t alpha, beta;
    int cold;     /* the worker did not search this move last: its table holds nothing of it */
    int split;    /* a job of the split: move is a reply after the eldest (ply__deepen_job_where) */
    uint32_t gen; /* the split's generation */
    int whole;    /* every root move at once, multipv K, no window (the header): move is 0 */
    /* the engine's first iteration (SearchJob.start_depth; 0: 1): the job's depth when the
     * worker's table holds the move (not cold): the iterations below are in its table, and
     * searching the last one again cost 1.2 times the nodes to depth 16 (the simulation of
     * BENCHMARKS.md, 10 positions, 1 worker: 9.07 M against 7.46 M) */
    uint32_t start;
    /* a subset job (the header): the null window over every move whose bit is set (bit i of
     * word i / 64: move i; move the first of them); all zero: the one move */
    uint64_t set[PLY_ARB_MAX_MOVES / 64];
} ply__deepen_job_t;

/** The slots (tasks) of an analysis of @n root moves: its moves', then its split's. */
#define PLY__DEEPEN_SLOTS(n) ((size_t)(n) + PLY_ARB_MAX_MOVES)
/** The first depth at which the eldest brother is split (below, its search is short). */
#define PLY__DEEPEN_SPLIT_DEPTH 6
/** The most root moves one null-window job searches (the header's subset jobs). */
#define PLY__DEEPEN_SUBSET 8
/** The deepest whole job that opens an analysis (the header), plies. */
#define PLY__DEEPEN_WHOLE_DEPTH 10
/** How far the opening whole job stays below the analysis's depth limit, plies. */
#define PLY__DEEPEN_WHOLE_BELOW 4

/**
 * ply__deepen_new - the deepening analysis of the @n root moves @uci (UCI texts, copied) of
 * position @root (copied: the answer's SAN), giving @multipv (1..; a value >= @n: every move)
 * exact lines, up to depth @max_depth (plies, 1..PLY_SEARCH_JOB_MAX_DEPTH). NULL when out of
 * memory. Free with ply__deepen_free.
 */
ply__deepen_t *ply__deepen_new(const ply_arb_pos_t *root, char *const *uci, size_t n,
                               uint32_t multipv, uint32_t max_depth);

/**
 * ply__deepen_set_whole - the depth of the opening whole job (plies; 0: none, every iteration
 * split from depth 1): W of the header unless told, and none with one root move or more lines
 * than a job gives. Before the first pick; a depth not below the depth limit is ignored.
 */
void ply__deepen_set_whole(ply__deepen_t *d, uint32_t depth);

/** ply__deepen_free - free *@d and every line it keeps; NULLs it; idempotent. */
void ply__deepen_free(ply__deepen_t **d);

/**
 * ply__deepen_pick - the most useful job now (the header's order) for the worker named
 * @worker (NULL: any), into *@job: 1, or 0 when no search would help until a result comes.
 */
int ply__deepen_pick(const ply__deepen_t *d, const char *worker, ply__deepen_job_t *job);

/**
 * ply__deepen_computing - whether the worker named @worker computes a job of @d now. A
 * worker's prefetched job (its credit beyond the running one) would be picked on the facts of
 * now, long before it starts: search/kind.c hands a deepening analysis's job only to a worker
 * that computes none of it.
 */
int ply__deepen_computing(const ply__deepen_t *d, const char *worker);

/** ply__deepen_in_flight - how many of @d's slots compute a job now (its split's too). */
size_t ply__deepen_in_flight(const ply__deepen_t *d);

/**
 * ply__deepen_started - @job went to the worker named @worker as the attempt of slot @slot
 * (a task of the run, 0..PLY__DEEPEN_SLOTS(n) - 1: at most one job each).
 */
void ply__deepen_started(ply__deepen_t *d, size_t slot, const ply__deepen_job_t *job,
                         const char *worker);

/** ply__deepen_job_of - the job slot @slot is computing, or NULL when it holds none. */
const ply__deepen_job_t *ply__deepen_job_of(const ply__deepen_t *d, size_t slot);

/**
 * ply__deepen_job_where - what @job searches: the position (*@pos: the root, or after the
 * eldest for a split's job), the move played from the root to it (*@prefix: the eldest's UCI,
 * or NULL), and its move (*@uci; NULL for a whole job: every move, ply__deepen_multipv lines);
 * strings owned by @d. 1, or 0 when @job is of a split since replaced (nothing to search).
 */
int ply__deepen_job_where(const ply__deepen_t *d, const ply__deepen_job_t *job,
                          ply_arb_pos_t *pos, const char **prefix, const char **uci);

/**
 * ply__deepen_job_moves - the root moves @job searches (its searchmoves) as UCI texts into @uci
 * (room for PLY_ARB_MAX_MOVES, owned by @d; of the split's position for a split's job): 1 for a
 * job of one move, up to PLY__DEEPEN_SUBSET for a subset job, every root move of the analysis
 * for a whole job (they may be fewer than the position's legal moves: `--searchmoves`), 0 for
 * a job of a split since replaced.
 */
size_t ply__deepen_job_moves(const ply__deepen_t *d, const ply__deepen_job_t *job,
                             const char **uci);

/** ply__deepen_multipv - the lines a whole job asks for (K, 1..PLY_SEARCH_JOB_MAX_MULTIPV). */
uint32_t ply__deepen_multipv(const ply__deepen_t *d);

/**
 * ply__deepen_check - whether @r is an answer to @job: one line, starting with the job's move
 * (a subset job's: one of its moves; a whole job: 1..K exact lines, each a different root move), every line replayed by the
 * rule engine (ply__search_replay_line: legal, a mate where it says, the job's depth reached;
 * a bound's line claims no mate). 0, or PLY_EMISMATCH with the reason in @why (a job of a
 * split since replaced is one).
 */
int ply__deepen_check(const ply__deepen_t *d, const ply__deepen_job_t *job,
                      const Ply__SearchResult *r, char *why, size_t why_len);

/** ply__deepen_dropped - slot @slot's job came back without an accepted line: forgotten. */
void ply__deepen_dropped(ply__deepen_t *d, size_t slot);

/**
 * ply__deepen_take - slot @slot's line @res (passed ply__deepen_check; owned from here, freed
 * with @d; a whole job's lines each a fact of its own), computed by worker @worker of identity
 * @identity, taken as a fact, its @nodes counted; then every iteration it completes is
 * recorded (time @elapsed_ms since the analysis started). A line of an iteration already
 * complete only counts its nodes. Returns the iterations it completed (0..), or PLY_ENOMEM.
 */
int ply__deepen_take(ply__deepen_t *d, size_t slot, Ply__SearchResult *res, const char *worker,
                     const char *identity, uint64_t nodes, uint64_t elapsed_ms);

/** ply__deepen_depth - the deepest completed iteration, plies (0: none yet). */
uint32_t ply__deepen_depth(const ply__deepen_t *d);

/**
 * ply__deepen_settled - the root moves settled in the iteration in progress (exact, or proven
 * no better than the multipv-th), or every one once the last iteration is complete: a count
 * of done out of the root moves, for progress.
 */
uint32_t ply__deepen_settled(const ply__deepen_t *d);

/** ply__deepen_nodes - the nodes of every line taken, saturating. */
uint64_t ply__deepen_nodes(const ply__deepen_t *d);

/**
 * ply__deepen_answer - the deepest completed iteration as a SearchAnswer's moves, depth and
 * iterations, into @a (its other fields untouched): pointers into @d, valid until the next
 * ply__deepen_take; nothing (n_moves 0) before the first iteration completes.
 */
void ply__deepen_answer(const ply__deepen_t *d, Ply__SearchAnswer *a);

/**
 * ply__deepen_score - line @l's score in ply's engine units: centipawns, or a mate
 * PLY_SCORE_MATE (32000) less its plies (2N - 1 for mate in N), negated when mated (2N).
 */
int32_t ply__deepen_score(const Ply__SearchLine *l);

#endif
