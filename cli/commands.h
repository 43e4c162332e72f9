/* The ply command's subcommands: each takes its own argv (argv[0] is the
 * subcommand name) and returns the process exit status (0, 1 or 2). ply.c's
 * table of commands names each with its --help summary; the shared helpers of
 * the commands follow. */
#ifndef PLY_CLI_COMMANDS_H
#define PLY_CLI_COMMANDS_H

/** ply_cmd_perft - `ply perft`: perft of one position or an EPD suite. */
int ply_cmd_perft(int argc, char **argv);

/** ply_cmd_analyse - `ply analyse`: every root move of a position searched, or an EPD suite. */
int ply_cmd_analyse(int argc, char **argv);

/** ply_cmd_arbiter - `ply arbiter`: adjudicate PGN game records, or validate a FEN. */
int ply_cmd_arbiter(int argc, char **argv);

/** ply_cmd_bench - `ply bench`: the fixed perft workload; its node total is the bench signature. */
int ply_cmd_bench(int argc, char **argv);

/** ply_cmd_uci - `ply uci`: the analysis engine over UCI on stdin and stdout. */
int ply_cmd_uci(int argc, char **argv);

/** ply_cmd_perft_diff - `ply perft-diff`: the first position where an external UCI engine's perft differs. */
int ply_cmd_perft_diff(int argc, char **argv);

/** ply_cmd_solve - `ply solve`: run a UCI engine over an EPD test suite (bm, am, STS points). */
int ply_cmd_solve(int argc, char **argv);

/** ply_cmd_match - `ply match`: games between two UCI engines, refereed by the arbiter; Elo. */
int ply_cmd_match(int argc, char **argv);

/** ply_cmd_analyse_pgn - `ply analyse-pgn`: annotate every move of PGN games (lichess's rules). */
int ply_cmd_analyse_pgn(int argc, char **argv);

/** ply_cmd_keygen - `ply keygen`: write a CURVE key pair for --curve. */
int ply_cmd_keygen(int argc, char **argv);

/** ply_cmd_status - `ply status`: a coordinator's runs and workers, or one run. */
int ply_cmd_status(int argc, char **argv);

/** ply_cmd_result - `ply result RUN`: the answer of a run, at any time after it was accepted. */
int ply_cmd_result(int argc, char **argv);

/** ply_cmd_cancel - `ply cancel RUN`: stop a run (its owner's or an admin key's right). */
int ply_cmd_cancel(int argc, char **argv);
/** ply_cmd_san - `ply san`: moves converted between UCI and SAN (notation.c). */
int ply_cmd_san(int argc, char **argv);

struct Ply__RunResult;
/**
 * ply_perft_print_result - print a run's answer as `ply perft` does (text or
 * JSON, divide lines and statistics when asked); shared with `ply result`.
 * Returns the exit status: 1 when a mismatch was found, else 0.
 */
int ply_perft_print_result(const struct Ply__RunResult *r, int divide, int stats, int json);

/**
 * ply_usage_error - print "ply CMD: MESSAGE (see ply CMD --help)" on stderr,
 * MESSAGE printf-style from @fmt (@cmd: the command's name, e.g. "perft").
 * Returns 2, the exit status of every ply command on bad usage.
 */
int ply_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stddef.h>

/**
 * ply_cli_parse_long - @s as a decimal whole number within @lo..@hi into
 * *@out (a command-line value: no sign rules beyond strtol's, no trailing
 * text). Returns 0, or -1 (with *@out unchanged) for an empty, malformed or
 * out-of-range value; the caller names the option in its usage error.
 */
int ply_cli_parse_long(const char *s, long lo, long hi, long *out);

/**
 * ply_cli_fen - the one FEN reader of every ply command: validates @fen
 * (FEN, X-FEN, Shredder-FEN or "startpos"; Chess960 rules when @chess960 or
 * implied by Shredder letters) by the rule engine's rules (ply_arb_from_fen,
 * common/arbiter/fen.c) and writes its canonical six-field form into @out
 * (@len bytes; PLY_ARB_FEN_MAX suffices), which is what a command sends or
 * counts. Returns 0, or PLY_EFEN / PLY_EILLEGAL (or PLY_EINVAL for a short
 * @out) with a one-line reason naming the field in @why.
 */
int ply_cli_fen(const char *fen, int chess960, char *out, size_t len, char *why, size_t why_len);

/**
 * ply_cli_read_fen - ply_cli_fen for a command's position argument: on a bad
 * position prints "ply CMD: bad position: REASON" on stderr and returns 2
 * (the usage and bad-position exit status); returns 0 otherwise.
 */
int ply_cli_read_fen(const char *cmd, const char *fen, int chess960, char *out, size_t len);

#endif
