/*
 * An external UCI engine as a perft oracle: start it as a child process with
 * pipes on its stdin, stdout and stderr, shake hands (uci / uciok), and ask
 * for Stockfish-style divides ("go perft N" answered by "e2e4: 123" lines and
 * "Nodes searched: N").
 *
 * The engine is untrusted input: every wait has a silence limit, output is
 * capped (line length, lines and bytes per command), a line that is not
 * text fails the command, and an engine that exits is reported with its exit
 * status and the last line it wrote on stderr. Nothing it prints can crash
 * or hang the caller. One engine per object, driven from one thread (the
 * object runs its own libuv loop only while waiting).
 */
#ifndef PLY_CLI_UCI_ENGINE_H
#define PLY_CLI_UCI_ENGINE_H

#include <stddef.h>
#include <stdint.h>

/** Most distinct moves accepted in one divide (the legal maximum is 218). */
#define PLY_UCI_MAX_DIVIDE 256

typedef struct ply_uci ply_uci_t;

/** One divide line: a move as the engine wrote it, and its subtree count. */
typedef struct ply_uci_entry {
    char move[8]; /* UCI text, 4 or 5 characters */
    uint64_t nodes;
} ply_uci_entry_t;

/** The engine's answer to one "go perft". */
typedef struct ply_uci_divide {
    int n;
    ply_uci_entry_t e[PLY_UCI_MAX_DIVIDE];
    uint64_t total; /* its "Nodes searched" (checked to equal the sum of e[].nodes) */
} ply_uci_divide_t;

/**
 * ply_uci_start - start @cmdline (a program and its arguments separated by
 * blanks; single or double quotes group, backslash escapes; no shell) in a
 * process group of its own, send "uci" and wait for "uciok".
 * @silence_ms: the longest the engine may stay silent while we wait for an
 * answer, milliseconds (> 0); it applies to every later call too.
 * Returns the engine, or NULL with a one-line reason in @why: the program
 * cannot be started (not found, not executable), it exited or closed its
 * output ("exited with status 1; stderr: ..."), it stayed silent for
 * @silence_ms, or it printed something that is not text.
 */
ply_uci_t *ply_uci_start(const char *cmdline, unsigned silence_ms, char *why, size_t why_len);

/**
 * ply_uci_pid - the engine's process id, which is also its process group
 * (kill(-pid, ...) reaches what it started), or 0 when it is not running.
 */
int ply_uci_pid(const ply_uci_t *e);

/** ply_uci_name - the engine's "id name", or its command line when it gave none. */
const char *ply_uci_name(const ply_uci_t *e);

/**
 * ply_uci_set_chess960 - "setoption name UCI_Chess960 value true|false" then
 * "isready" / "readyok", so that the option is in force before the next
 * command. Returns 0, or PLY_EIO / PLY_ETIMEDOUT / PLY_EPARSE with the reason
 * in @why (as ply_uci_perft).
 */
int ply_uci_set_chess960(ply_uci_t *e, int on, char *why, size_t why_len);

/**
 * ply_uci_perft - send @position (a complete UCI "position ..." command,
 * without the newline) and "go perft @depth", and read the divide until
 * "Nodes searched: N". Lines that are not "move: count" (info strings,
 * banners, blank lines) are skipped, up to a cap.
 * Returns 0 with *out filled, or with the reason in @why:
 *   PLY_EIO        the engine exited or closed its output (exit status and
 *                  its last stderr line are quoted);
 *   PLY_ETIMEDOUT  no output for the silence limit given to ply_uci_start;
 *   PLY_EPARSE     output that is not a Stockfish-style divide: not text, a
 *                  line over 4 KiB, a malformed count, a move listed twice,
 *                  more than PLY_UCI_MAX_DIVIDE moves, a total that is not
 *                  the sum of the lines, or too much unrecognised output
 *                  (the first such line is quoted).
 * After an error the engine is in an unknown state: destroy it.
 */
int ply_uci_perft(ply_uci_t *e, const char *position, int depth, ply_uci_divide_t *out, char *why,
                  size_t why_len);

/**
 * ply_uci_destroy - send "quit", give the engine a moment to exit, then kill
 * its process group; close everything. NULLs *e; idempotent.
 */
void ply_uci_destroy(ply_uci_t **e);

#endif
