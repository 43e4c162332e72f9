/*
 * A cluster as the search behind the UCI loop (worker/uci/uci_backend.h):
 * `ply uci --workers N` (an embedded coordinator with N local ply-worker
 * processes) and `ply uci --coordinator E` (a running one), so that a GUI
 * plays or analyses with every machine of the cluster as one engine.
 *
 * Each `go` is one deepening search run (SearchRequest.deepen, proto/ply.proto):
 * the position as the GUI wrote it (FEN and moves, UCI_Chess960), searchmoves,
 * MultiPV, and the limits:
 *   - go depth D, nodes N, movetime T: the run's depth, nodes and movetime_ms
 *     (the movetime less Move Overhead, at least 1 ms), which limit the whole
 *     analysis; the movetime is also a deadline here, from the go;
 *   - go infinite, go ponder, go mate N, and a go with only a clock or with no
 *     limit: an infinite run (deepening until a Cancel); a depth or node limit
 *     given beside infinite or ponder is watched here and the run canceled
 *     when an iteration reaches it;
 *   - wtime/btime/winc/binc/movestogo: a budget for the side to move,
 *     clock = time - Move Overhead (at least 1 ms),
 *     budget = min(clock / mtg + 3/4 increment, clock / 4), at least 10 ms,
 *     mtg = movestogo (at most 50) or else 30 moves; the run is canceled when
 *     it has passed, counted from the go (pondering: from the ponderhit); while
 *     no iteration has completed (the first go, its workers still connecting)
 *     it stretches to the engine's hard limit, min(4 budget, clock / 2).
 * The clock budget is the engine's (worker/engine/timeman.c) without its soft
 * limit: the front end cannot decline to start an iteration, only cancel, and
 * a canceled deepening run answers with its deepest completed iteration.
 *
 * Every iteration the coordinator reports (RunProgress.search: depth, lines)
 * becomes the info lines of its top MultiPV moves, with the run's nodes and
 * the time since the go (no hashfull: the workers' tables are theirs). On
 * stop, the run is canceled and its RunResult awaited: its best line gives
 * bestmove and ponder. A run that fails (no coordinator, a refusal, canceled
 * before an iteration completed) is named in an info string and answered by
 * the best move of the last iteration received, else the loop's first legal
 * move: a GUI always gets its bestmove. A worker lost meanwhile costs only its
 * jobs (the coordinator gives them to another).
 *
 * Threads: the session's client (its DEALER) is used by the loop's job thread
 * in search only, one search at a time (each job thread is joined before the
 * next starts, so the socket moves between threads behind a full barrier, as
 * ZeroMQ requires). Cancels go on a client of their own, owned by a thread of
 * this backend that also keeps the clock: stop, ponderhit and the deadline
 * only signal it, so they never wait on the network.
 */
#ifndef PLY_CLIENT_UCI_CLUSTER_H
#define PLY_CLIENT_UCI_CLUSTER_H

#include <stddef.h>

#include "session.h"
#include "uci_backend.h"

/** Moves per remaining game without movestogo, for the clock budget (see the top). */
#define PLY_UCI_CLUSTER_MTG 30
/** The shortest clock budget, milliseconds. */
#define PLY_UCI_CLUSTER_MIN_BUDGET_MS 10
/** A go the cluster answered without a completed iteration is answered by a search of this
 * many nodes in this process (a few milliseconds), on a table of this many MiB. */
#define PLY_UCI_CLUSTER_FALLBACK_NODES    20000
#define PLY_UCI_CLUSTER_FALLBACK_HASH_MIB 1

/**
 * ply_uci_cluster_new - a cluster backend on the session @cfg describes
 * (session.h: cfg->coordinator, or the embedded coordinator with cfg->workers
 * local ply-worker processes of cfg->threads threads and cfg->hash_mib MiB, on
 * cfg->engine_cmd when set; cfg->timeout_ms the longest silence of the coordinator),
 * started now; its runs ask for workers of @engine ("builtin", "uci"; NULL: any,
 * SearchRequest.engine; not copied: it outlives the backend).
 * Returns NULL with a one-line reason in @why when the session cannot start
 * (ply_session_new's reasons) or a thread cannot be made. Destroy with
 * ply_uci_backend_destroy, which stops the embedded coordinator and workers.
 */
ply_uci_backend_t *ply_uci_cluster_new(const ply_session_config_t *cfg, const char *engine,
                                       char *why, size_t why_len);

/**
 * ply_uci_cluster_budget_ms - the clock budget of the top of this file for
 * the side to move @side (PLY_WHITE / PLY_BLACK) under @lim, milliseconds; -1
 * when @lim gives that side no clock.
 */
int64_t ply_uci_cluster_budget_ms(const ply_search_limits_t *lim, int side);

#endif
