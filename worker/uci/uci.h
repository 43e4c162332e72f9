/*
 * The Universal Chess Interface over two stdio streams, so that GUIs and
 * match tools can drive ply's search (worker/engine/search.h). `ply uci` and
 * `ply-worker --uci` both run ply_uci_loop on stdin and stdout; the tests
 * drive it the same way. The search is a backend (uci_backend.h): ply's
 * engine in this process, or (ply_uci_serve, `ply uci --workers N`) a
 * cluster.
 *
 * Shape: the calling thread reads and executes commands; `go` starts the
 * search (or a perft) on a thread of its own, so that `isready`, `stop`,
 * `ponderhit` and `quit` are answered while it runs. Both threads print, one
 * line at a time under one lock, each line flushed at once.
 *
 * Protocol source: "Description of the universal chess interface (UCI)",
 * Stefan Meyer-Kahlen, April 2006 (the UCI specification). Where it is
 * vague, ply does what Stockfish 15.1 does, except where noted:
 *   - `bestmove 0000` (the specification's null move) for a root without
 *     legal moves, where Stockfish writes "bestmove (none)";
 *   - a malformed command, value or option (an unknown command, a bad FEN,
 *     an illegal move in `position ... moves`, `setoption` with a value out
 *     of range) is answered by one `info string` naming what was wrong and is
 *     otherwise ignored: the options and the running search stay as they
 *     were. A rejected `position` leaves no position (the GUI meant another
 *     one): until a valid `position` arrives, each `go` is answered by
 *     `info string no valid position (why)` and `bestmove 0000`.
 *   - every `go` (but `go perft`) gets exactly one `bestmove`. A word of a
 *     `go` that is no parameter, or a bad value (`go depth abc`, `go nodes`
 *     without a number), is named in an info string and ignored, and the
 *     rest of the go runs, as Stockfish does (`go depth 3 foo` searches to
 *     depth 3); `go depth 0` is searched as depth 1 (an info string says so);
 *     `go mate N` searches without a limit until a mate in at most N moves
 *     is found (then bestmove) or `stop`; a `searchmoves` move that is not
 *     legal is named and dropped, and when none is left the answer is an
 *     info string and `bestmove 0000`; `go perft` ignores other parameters.
 *   - `go` while a search runs stops that search first (its `bestmove` is
 *     written) and then starts the new one; `ucinewgame` and `quit` stop a
 *     running search first too. `setoption name Hash`, `Threads`,
 *     `Use NNUE`, `EvalFile` and `Clear Hash` during a search are refused
 *     with an `info string`.
 *   - `setoption name EvalFile value PATH` (ply's own option, as
 *     Stockfish's EvalFile) reads and checks the network file at once: a
 *     refused file is named in an `info string` with the reason and the
 *     network before is kept; the words after `value` are the path, joined
 *     by one space; `<empty>` or nothing means the built-in network.
 *   - end of input is `quit`, as in Stockfish: a running search stops (any
 *     limit) and writes its bestmove; a script that wants the whole search
 *     keeps the input open until the bestmove. A `go perft` is counted to
 *     the end first, before `quit` too (Stockfish counts it before it reads
 *     on); only `stop` ends it early, with no count.
 *   - `go infinite` and `go ponder` write their bestmove only after `stop`
 *     (or, pondering, after `ponderhit` and the end of the search), even
 *     when the root is mated or stalemated, as the specification requires.
 *   - `setoption name UCI_Chess960` applies from the next `position`
 *     command, which it decides how to read (KQkq as X-FEN) and write;
 *   - `go perft N`: Stockfish's divide ("e2e4: 20" per root move, a blank
 *     line, "Nodes searched: N", a blank line), counted by worker/engine/perft.h
 *     with the Threads option and a 16 MiB table; `stop` cancels it (an
 *     `info string` says so and no count is written).
 */
#ifndef PLY_WORKER_UCI_H
#define PLY_WORKER_UCI_H

#include <stdio.h>

/** Longest input line read, bytes; a longer line is refused (with an info string) and skipped. */
#define PLY_UCI_MAX_LINE (1 << 20)

/**
 * ply_uci_loop - speak UCI, reading commands from @in and writing answers
 * to @out, until `quit` or the end of @in; a running search is ended as
 * described above before it returns. Neither stream is closed. Lines may end
 * in LF or CR LF; a line holding a control character other than tab (binary
 * junk) is refused with an info string. Returns 0, or PLY_ENOMEM when the
 * engine (its 16 MiB table) or a thread cannot be created at the start.
 */
int ply_uci_loop(FILE *in, FILE *out);

struct ply_uci_backend;
/**
 * ply_uci_serve - ply_uci_loop with the search of @backend (uci_backend.h;
 * not consumed: the caller destroys it after). Returns 0, PLY_EINVAL for no
 * backend, or PLY_ENOMEM when the loop cannot start.
 */
int ply_uci_serve(FILE *in, FILE *out, struct ply_uci_backend *backend);

#endif
