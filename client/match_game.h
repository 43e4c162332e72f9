/*
 * The game runner of `ply match`: one game between two UCI engines with the rule engine as
 * the referee, from an opening of the book (book.h) or the initial position.
 *
 * The runner keeps the clocks itself: it measures each move's wall time from "go" to
 * "bestmove", takes it off the mover's clock and adds the increment. Every move is read and
 * checked by the arbiter, which also decides how the game ends (FIDE 2023 Laws,
 * common/arbiter/endgame.h): checkmate, stalemate, dead position (with its proof), fivefold
 * repetition and the 75-move rule; the draw claims of art. 9.2 (threefold repetition) and 9.3
 * (fifty moves) are made automatically the moment they can be. A flag fall loses unless the
 * opponent cannot checkmate by any legal series of moves (art. 6.9; ply_arb_can_mate), and
 * when the arbiter proves neither within its node budget the loss stands (the rule's default)
 * and the PGN says that the question was undetermined, naming the budget. An illegal move,
 * no move, a crash, output that is not UCI, or silence past the clock loses, with the reason
 * in the PGN. Each finished game is replayed by ply_arb_adjudicate as a self-check.
 *
 * One game per call, on the caller's thread with the caller's two engines (restarted through
 * the config's start function after a failure); the caller runs several games at once on as
 * many threads, each with its own engines. Nothing here prints.
 */
#ifndef PLY_CLIENT_MATCH_GAME_H
#define PLY_CLIENT_MATCH_GAME_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arbiter/pgn.h"
#include "book.h"
#include "uci_client.h"

/** Most characters of a game's reason (how it ended), with the NUL. */
#define PLY_MATCH_REASON_MAX 600

/** How a game ended, for the match's tally (ply_match_end_name names each). */
enum {
    PLY_MATCH_END_CHECKMATE,
    PLY_MATCH_END_STALEMATE,
    PLY_MATCH_END_DEAD,
    PLY_MATCH_END_THREEFOLD,
    PLY_MATCH_END_FIFTY,
    PLY_MATCH_END_FIVEFOLD,
    PLY_MATCH_END_75,
    PLY_MATCH_END_TIME,
    PLY_MATCH_END_TIME_DRAW,
    PLY_MATCH_END_ILLEGAL,
    PLY_MATCH_END_FAILURE,
    PLY_MATCH_END_KINDS
};

/**
 * Starts engine @i (0 or 1) afresh, as the match was asked to: the engine (the runner
 * destroys it), or NULL with the reason in @why.
 */
typedef ply_uci_client_t *(*ply_match_start_fn)(void *arg, int i, char *why, size_t why_len);

/** What every game of a match shares; read only during the games. */
typedef struct ply_match_config {
    const char *label[2]; /* the engines as the PGN names them, by engine index */
    const char *tc;       /* the TimeControl tag: "10+0.1", or "-" */
    int clock;            /* 1: a clock of base_ms + inc_ms a move; 0: the fixed limits */
    int64_t base_ms, inc_ms;
    int64_t margin_ms; /* a move may overrun the clock by this much before the flag falls */
    int64_t movetime;  /* fixed limits (0: none): ms, nodes, plies a move */
    uint64_t nodes;
    int depth;
    unsigned timeout_s; /* without a clock: a move not made in movetime + this loses */
    /* Non-zero (the number of the signal that stopped the match) ends the game in progress
     * unfinished; set by a signal handler, so read lock-free. */
    const atomic_int *interrupted;
    ply_match_start_fn start; /* a fresh engine for one that failed */
    void *start_arg;
} ply_match_config_t;

/** One finished (or aborted) game. */
typedef struct ply_match_game {
    long number;    /* 1-based; set by the caller */
    int white;      /* index of the engine playing White; set by the caller */
    int result;     /* 1 White won, 0 draw, -1 Black won; 2 unfinished (interrupted) */
    int kind;       /* PLY_MATCH_END_* */
    int plies;      /* moves played by the engines (not the book's) */
    int arbiter_ok; /* 1: the rule engine's replay of the record agrees with its result */
    char reason[PLY_MATCH_REASON_MAX]; /* how it ended, as the PGN's last comment says */
    const char *opening;               /* the opening's name (the book's), or "initial position" */
} ply_match_game_t;

/**
 * ply_match_play - play game @rec (number and white set by the caller; the rest is filled)
 * from @opening (NULL: the initial position) with the engines e[0] and e[1] (by engine
 * index; a NULL or failed one is started afresh through @c->start, and one that fails is
 * destroyed and left NULL for the next game). Returns the game's record (Seven Tag Roster,
 * TimeControl, Termination, Opening, SetUp and FEN when the book gives no moves, SAN moves
 * with "{score/depth time}" comments, and the reason as the last comment) for the caller to
 * write and destroy (ply_pgn_game_destroy), or NULL when out of memory (then @rec says so).
 */
ply_pgn_game_t *ply_match_play(const ply_match_config_t *c, ply_uci_client_t **e,
                               const ply_book_line_t *opening, ply_match_game_t *rec);

/** ply_match_result_text - "1-0", "0-1", "1/2-1/2" or "*" for a ply_match_game_t result. */
const char *ply_match_result_text(int result);

/** ply_match_end_name - "checkmate", "time forfeit"...: a PLY_MATCH_END_* kind, as reported. */
const char *ply_match_end_name(int kind);

#endif
