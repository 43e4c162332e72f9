/*
 * An external UCI engine behind pipes: start it as a child process with
 * pipes on its stdin, stdout and stderr, shake hands (uci / uciok, keeping
 * the names of the options it offers), set options, and either ask for
 * Stockfish-style perft divides ("go perft N" answered by "e2e4: 123" lines
 * and "Nodes searched: N": `ply perft-diff`) or let it search ("go" with a
 * clock, movetime, depth or nodes), reading its info lines and its bestmove
 * (`ply solve`, `ply match`).
 *
 * The engine is untrusted input: every wait has a silence limit, output is
 * capped (lines and bytes per command; a line over 4 KiB is read to its end
 * but only its first 4 KiB are kept, cut back to whole words, since an
 * engine may print a long principal variation), a line that is not text
 * fails the command, and an engine that exits is reported with its exit
 * status and the last line it wrote on stderr. Nothing it prints can crash
 * or hang the caller. One engine per object, driven from one thread (the
 * object runs its own libuv loop only while waiting), so that several
 * engines can be driven from several threads at once.
 *
 * A search waits for "bestmove" until a deadline (a clock's time, or a limit
 * the caller gives); for a search without one the silence limit applies
 * between lines. Every info line is parsed strictly (a malformed number or
 * move fails the search, quoting the line), because a figure we report must
 * be what the engine said.
 *
 * One name for the module: folder uci_client/, type ply_uci_client_t, prefix
 * ply_uci_client_, target ply_uci_client. (The UCI server, ply's own engine
 * speaking UCI to a GUI, is worker/uci/uci.h's ply_uci_loop.)
 */
#ifndef PLY_UCI_CLIENT_H
#define PLY_UCI_CLIENT_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

/** Most distinct moves accepted in one divide (the legal maximum is 218). */
#define PLY_UCI_CLIENT_MAX_DIVIDE 256
/** Longest principal variation kept from an info line, in moves (the rest is read, not kept). */
#define PLY_UCI_CLIENT_PV_MAX 64

typedef struct ply_uci_client ply_uci_client_t;

/** One divide line: a move as the engine wrote it, and its subtree count. */
typedef struct ply_uci_client_entry {
    char move[8]; /* UCI text, 4 or 5 characters */
    uint64_t nodes;
} ply_uci_client_entry_t;

/** The engine's answer to one "go perft". */
typedef struct ply_uci_client_divide {
    int n;
    ply_uci_client_entry_t e[PLY_UCI_CLIENT_MAX_DIVIDE];
    uint64_t total; /* its "Nodes searched" (checked to equal the sum of e[].nodes) */
} ply_uci_client_divide_t;

/**
 * ply_uci_client_start - start @cmdline (a program and its arguments separated by
 * blanks; single or double quotes group, backslash escapes; no shell) in a
 * process group of its own, send "uci" and wait for "uciok".
 * @silence_ms: the longest the engine may stay silent while we wait for an
 * answer, milliseconds (> 0); it applies to every later call too.
 * Returns the engine, or NULL with a one-line reason in @why: the program
 * cannot be started (not found, not executable), it exited or closed its
 * output ("exited with status 1; stderr: ..."), it stayed silent for
 * @silence_ms, or it printed something that is not text.
 */
ply_uci_client_t *ply_uci_client_start(const char *cmdline, unsigned silence_ms, char *why,
                                       size_t why_len);

/**
 * ply_uci_client_pid - the engine's process id, which is also its process group
 * (kill(-pid, ...) reaches what it started), or 0 when it is not running.
 */
int ply_uci_client_pid(const ply_uci_client_t *e);

/** ply_uci_client_name - the engine's "id name", or its command line when it gave none. */
const char *ply_uci_client_name(const ply_uci_client_t *e);

/**
 * ply_uci_client_set_chess960 - "setoption name UCI_Chess960 value true|false" then
 * "isready" / "readyok", so that the option is in force before the next
 * command. Returns 0, or PLY_EIO / PLY_ETIMEDOUT / PLY_EPARSE with the reason
 * in @why (as ply_uci_client_perft).
 */
int ply_uci_client_set_chess960(ply_uci_client_t *e, int on, char *why, size_t why_len);

/**
 * ply_uci_client_perft - send @position (a complete UCI "position ..." command,
 * without the newline) and "go perft @depth", and read the divide until
 * "Nodes searched: N". Lines that are not "move: count" (info strings,
 * banners, blank lines) are skipped, up to a cap.
 * Returns 0 with *out filled, or with the reason in @why:
 *   PLY_EIO        the engine exited or closed its output (exit status and
 *                  its last stderr line are quoted);
 *   PLY_ETIMEDOUT  no output for the silence limit given to ply_uci_client_start;
 *   PLY_EPARSE     output that is not a Stockfish-style divide: not text, a
 *                  malformed count, a move listed twice,
 *                  more than PLY_UCI_CLIENT_MAX_DIVIDE moves, a total that is not
 *                  the sum of the lines, or too much unrecognised output
 *                  (the first such line is quoted).
 * After an error the engine is in an unknown state: destroy it.
 */
int ply_uci_client_perft(ply_uci_client_t *e, const char *position, int depth,
                         ply_uci_client_divide_t *out, char *why, size_t why_len);

/**
 * ply_uci_client_has_option - 1 when the engine offered option @name in its answer
 * to "uci" ("option name NAME type ..."), compared without regard to case as
 * UCI says; else 0.
 */
int ply_uci_client_has_option(const ply_uci_client_t *e, const char *name);

/**
 * ply_uci_client_setoption - "setoption name @name value @value" (@value NULL for a
 * button option: no value). The option must be one the engine offered
 * (PLY_ENOTFOUND otherwise, the reason naming it and the engine); @name and
 * @value must be one line of text, and @value one the option takes by what
 * the engine offered (a spin's whole number within its min..max, a check's
 * true or false, no value for a button): PLY_EINVAL otherwise, since engines
 * clamp or ignore a bad value without a word. Nothing is awaited: call
 * ply_uci_client_sync before depending on it. Errors as ply_uci_client_sync.
 */
int ply_uci_client_setoption(ply_uci_client_t *e, const char *name, const char *value, char *why,
                             size_t why_len);

/**
 * ply_uci_client_setoption_arg - ply_uci_client_setoption for a command-line argument
 * "NAME=VALUE" (split at the first '='; "NAME" alone for a button option),
 * e.g. "UCI_Elo=2200" or "Move Overhead=30". The same returns.
 */
int ply_uci_client_setoption_arg(ply_uci_client_t *e, const char *arg, char *why, size_t why_len);

/**
 * ply_uci_client_sync - "isready", then read (and skip, up to a cap) until
 * "readyok". Returns 0, or PLY_EIO / PLY_ETIMEDOUT / PLY_EPARSE with the
 * reason in @why (as ply_uci_client_perft).
 */
int ply_uci_client_sync(ply_uci_client_t *e, char *why, size_t why_len);

/** ply_uci_client_newgame - "ucinewgame" then ply_uci_client_sync; the same returns. */
int ply_uci_client_newgame(ply_uci_client_t *e, char *why, size_t why_len);

/**
 * ply_uci_client_set_cancel - while *@flag is non-zero every wait of @e ends at
 * once (within about 50 ms) with PLY_ECANCELED: a signal handler sets it to
 * stop a long run. NULL removes it. The flag must outlive @e.
 */
void ply_uci_client_set_cancel(ply_uci_client_t *e, const atomic_int *flag);

/** What to search for: the fields of a "go" command (0 / -1 for absent ones). */
typedef struct ply_uci_client_limits {
    int clock;            /* 1: send wtime/btime/winc/binc (and movestogo when > 0) */
    int64_t wtime, btime; /* ms left on each clock (may be 0) */
    int64_t winc, binc;   /* ms added per move */
    int movestogo;        /* 0: none */
    int64_t movetime;     /* ms, 0: none */
    int depth;            /* plies, 0: none */
    uint64_t nodes;       /* 0: none */
    /*
     * Root moves to search ("go ... searchmoves M1 M2 ..."), UCI text, or
     * NULL with n_searchmoves 0 for all of them. At most PLY_UCI_CLIENT_MAX_DIVIDE,
     * each 4 or 5 characters of UCI notation (PLY_EINVAL otherwise); their
     * legality is the engine's and the caller's business.
     */
    const char *const *searchmoves;
    int n_searchmoves;
    /*
     * The longest we wait for "bestmove", ms from sending "go": past it the
     * search fails with PLY_ETIMEDOUT and the engine is still thinking (send
     * ply_uci_client_stop, or destroy it). 0: no deadline, only the silence limit
     * between two lines. With a deadline the silence limit does not apply:
     * an engine may think in silence for as long as its clock allows.
     */
    uint64_t deadline_ms;
} ply_uci_client_limits_t;

/** Kinds of score in an info line. */
enum { PLY_UCI_CLIENT_SCORE_NONE = 0, PLY_UCI_CLIENT_SCORE_CP = 1, PLY_UCI_CLIENT_SCORE_MATE = 2 };

/** One "info" line, as far as it said (absent fields 0, or -1 for time). */
typedef struct ply_uci_client_info {
    int depth, seldepth, multipv; /* multipv 0: not given (the first line) */
    int score_kind;               /* PLY_UCI_CLIENT_SCORE_* */
    int score;                    /* centipawns, or mate in moves (negative: mated), for
                                     the side to move */
    int bound;                    /* 0 exact, 1 lowerbound, -1 upperbound */
    uint64_t nodes, nps;
    int64_t time_ms;                   /* the engine's "time", -1 when not given */
    int hashfull;                      /* permille, -1 when not given */
    int npv;                           /* moves in pv (cut at PLY_UCI_CLIENT_PV_MAX) */
    char pv[PLY_UCI_CLIENT_PV_MAX][6]; /* UCI text, lower-case promotion letters */
} ply_uci_client_info_t;

/**
 * Called for every parsed info line that carries a depth, a score or a pv
 * (not for "info string"); @elapsed_ms is our wall time since "go" was sent.
 */
typedef void (*ply_uci_client_info_fn)(void *ctx, const ply_uci_client_info_t *info,
                                       double elapsed_ms);

/** The outcome of one search. */
typedef struct ply_uci_client_search {
    char bestmove[6];           /* UCI text; "" when the engine said "bestmove 0000" or "(none)" */
    char ponder[6];             /* "" when none */
    ply_uci_client_info_t last; /* the last info line with a score for the first PV (score_kind
                            NONE when it gave none) */
    int depth;                  /* the deepest depth of any info line */
    uint64_t nodes;             /* the largest node count of any info line */
    double elapsed_ms;          /* our wall time from sending "go" to reading "bestmove" */
} ply_uci_client_search_t;

/**
 * ply_uci_client_go - send @position (a complete "position ..." command, without
 * the newline) and "go" with @lim, and read info lines until "bestmove".
 * @on_info (may be NULL) sees each info line as it comes, with @ctx. An
 * info line over 4 KiB gives what its first 4 KiB say in whole fields (a
 * field, or a score's possible bound, that the cut reached is left out); a
 * bestmove line over 4 KiB is read from its first 4 KiB.
 * Returns 0 with *@out filled, or with the reason in @why (naming the engine
 * and quoting what it printed):
 *   PLY_EIO        the engine exited or closed its output;
 *   PLY_ETIMEDOUT  no bestmove by lim->deadline_ms (out->elapsed_ms says how
 *                  long we waited; the engine still searches), or silence
 *                  for the silence limit when there is no deadline;
 *   PLY_EPARSE     not text, a malformed info field (a number that is not
 *                  one, a pv move that is not UCI notation), a bestmove
 *                  that is not UCI notation, or too many lines that are
 *                  neither info nor bestmove;
 *   PLY_ECANCELED  the cancel flag was raised (the engine still searches);
 *   PLY_EINVAL     bad arguments.
 * The move's legality is the caller's business (the arbiter's).
 */
int ply_uci_client_go(ply_uci_client_t *e, const char *position, const ply_uci_client_limits_t *lim,
                      ply_uci_client_info_fn on_info, void *ctx, ply_uci_client_search_t *out,
                      char *why, size_t why_len);

/**
 * ply_uci_client_stop - after ply_uci_client_go failed with PLY_ETIMEDOUT or PLY_ECANCELED:
 * send "stop" and read up to "bestmove" (discarded) for at most @grace_ms,
 * so that the engine can be used again. Returns 0, or a ply_uci_client_go error:
 * then destroy the engine.
 */
int ply_uci_client_stop(ply_uci_client_t *e, unsigned grace_ms, char *why, size_t why_len);

/**
 * ply_uci_client_destroy - send "quit", give the engine a moment to exit, then kill
 * its process group; close everything. NULLs *e; idempotent.
 */
void ply_uci_client_destroy(ply_uci_client_t **e);

#endif
