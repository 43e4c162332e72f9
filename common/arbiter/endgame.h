/*
 * The end of the game (FIDE Laws art. 5, 6.10 and 9; RULES.md "End of the
 * game"): checkmate, stalemate, dead positions, the flag-fall question, and
 * a game history that counts repetitions (9.2) and the fifty-move clock (9.3)
 * under a rule set: fide2000 (the seeds' edition, the default) or fide2023,
 * which adds the automatic draws on the fifth occurrence of a position and
 * after 75 moves by each player without pawn move or capture.
 *
 * Dead positions and "cannot mate" are claimed only when proven: by material
 * (the insufficient-material cases), by a static argument on a pawn structure
 * that can never change (blocked.c), or by an exhaustive search that visits
 * every position reachable from the given one and finds no checkmate; "can
 * mate" only with a helpmate line that replays (helpmate.c). When no proof is
 * found within the node budget the answer is "undetermined", never a guess.
 */
#ifndef PLY_ARBITER_ENDGAME_H
#define PLY_ARBITER_ENDGAME_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/arbiter.h"
#include "arbiter/san.h"

/** The rule sets (RULES.md): fide2000 is the default for adjudication. */
typedef enum ply_arb_laws {
    PLY_ARB_FIDE2000 = 0,
    PLY_ARB_FIDE2023 = 1,
} ply_arb_laws_t;

/**
 * ply_arb_laws_parse - "fide2000" or "fide2023" to a rule set.
 * Returns 0 with *@out set, PLY_EINVAL for NULL or any other name.
 */
int ply_arb_laws_parse(const char *name, ply_arb_laws_t *out);

/** ply_arb_laws_name - "fide2000" or "fide2023" (a static string). */
const char *ply_arb_laws_name(ply_arb_laws_t laws);

/** Buffer size for the proof texts below. */
#define PLY_ARB_PROOF_MAX 512

/**
 * ply_arb_dead - is @pos a dead position (art. 5.2(b), 9.6 in the 2000
 * edition): no sequence of legal moves leads to checkmate by either side?
 * Returns 1 when proven dead, 0 when not proven (which includes positions
 * that are merely not known to be dead). On 1, @proof (may be NULL, @len
 * bytes, PLY_ARB_PROOF_MAX suffices) names the test that proved it:
 *   "insufficient material: king against king" (also "king and bishop",
 *   "king and knight against king", "only bishops, all on light squares");
 *   "blocked: no pawn can ever move or capture; white can never give check
 *     on any of the N squares black's king can reach (...); and black ..."
 *     or "... white (...) could check black's king on some of its N squares,
 *     but there it has more flights white never attacks than its own pieces
 *     (...) can ever block at once (e.g. on b6: a6 c6 b7); and black ..."
 *     (the static argument of ply_arb_unwinnable for both sides, microseconds);
 *   "blocked position: all N reachable positions searched, none is checkmate"
 *     (run when every pawn is blocked head-on by an opposing pawn and only
 *     kings and bishops stand besides, or the structure is frozen);
 *   "forced: every sequence of legal moves (N positions) leads to
 *     insufficient material or stalemate" (every line within 8 plies, where
 *     no position on the way has more than three legal moves).
 * The blocked search proves nothing when it meets a possible capture (the
 * structure could change) or passes 150,000 positions. A checkmate or a
 * stalemate ends the game by itself: for a position without legal moves only
 * the material and blocked tests answer, and ply_arb_game_status reports the
 * mate or stalemate first. @pos must be valid.
 */
int ply_arb_dead(const ply_arb_pos_t *pos, char *proof, size_t len);

/** Answers of ply_arb_unwinnable and ply_arb_can_mate. */
typedef enum ply_arb_mate {
    PLY_ARB_MATE_IMPOSSIBLE = 0,   /* proven: no series of legal moves lets the side mate */
    PLY_ARB_MATE_POSSIBLE = 1,     /* proven: a series of legal moves ends in its checkmate */
    PLY_ARB_MATE_UNDETERMINED = 2, /* not proven either way within the node budget */
    PLY_ARB_MATE_UNKNOWN = PLY_ARB_MATE_UNDETERMINED, /* the former name */
} ply_arb_mate_t;

/** How an answer was proven (ply_arb_method_name gives the JSON word). */
typedef enum ply_arb_method {
    PLY_ARB_METHOD_MATERIAL = 0,     /* "material": a theorem on the material alone */
    PLY_ARB_METHOD_HELPMATE = 1,     /* "helpmate": a series of legal moves ending in mate */
    PLY_ARB_METHOD_EXHAUSTIVE = 2,   /* "exhaustive": every reachable position visited */
    PLY_ARB_METHOD_BLOCKED = 3,      /* "blocked": the static argument on a frozen structure */
    PLY_ARB_METHOD_FORCED = 4,       /* "forced": every line ends without mate (dead only) */
    PLY_ARB_METHOD_UNDETERMINED = 5, /* "undetermined": the budget ran out */
    PLY_ARB_METHOD_RULE = 6,         /* "rule": the game is already over (fide2023, art. 9.6.2) */
} ply_arb_method_t;

/** ply_arb_method_name - "material", "helpmate", "exhaustive", "blocked", "forced",
 * "undetermined", "rule" (static strings; "?" for other values). */
const char *ply_arb_method_name(ply_arb_method_t method);

/** The node budget ply_arb_can_mate and `ply arbiter` use unless told otherwise:
 * measured on the final positions of the games in tests/data/pgn (BENCHMARKS.md,
 * "Unwinnability"), most are decided in a few hundred nodes. */
#define PLY_ARB_UNWIN_BUDGET 1000000

/** Longest helpmate line ply_arb_unwinnable returns, in plies. */
#define PLY_ARB_LINE_MAX 128

/** The answer of ply_arb_unwinnable, with its proof. */
typedef struct ply_arb_unwin {
    ply_arb_mate_t verdict;
    ply_arb_method_t method;
    int side;            /* the side asked about: 0 white, 1 black */
    uint64_t nodes;      /* positions searched (helpmate nodes plus exhaustive positions) */
    uint64_t budget;     /* the node budget it was given */
    uint64_t elapsed_us; /* wall time, microseconds (monotonic clock) */
    int nmoves;          /* plies of @moves: the line of a "yes", 0 otherwise */
    ply_arb_move_t moves[PLY_ARB_LINE_MAX]; /* from the position asked about, replayable */
    char proof[PLY_ARB_PROOF_MAX];          /* the argument in one line, in words */
} ply_arb_unwin_t;

/**
 * ply_arb_unwinnable - the one-sided question of art. 6.10 (2000 Laws; 6.9
 * in the 2018 and 2023 editions): can @side (0 white, 1 black) checkmate
 * the opponent's king by some series of legal moves, with the most unskilled
 * play by both? Decided with a proof either way, or "undetermined" only when
 * @budget nodes (positions searched; 0 means PLY_ARB_UNWIN_BUDGET) are
 * spent. The method is Ambrona's ("A Practical Algorithm for Chess
 * Unwinnability", FUN 2022): a helpmate search for "yes", static and
 * exhaustive arguments for "no". In order:
 *   - material (method "material"): @side has only its king; the material of
 *     both is insufficient (5.2(b)); a lone knight against a lone queen, a lone
 *     bishop against a lone rook or queen (no such checkmate exists);
 *   - the position itself is the checkmate ("helpmate", 0 plies);
 *   - blocked ("blocked"): no pawn can ever move or capture, and on every square
 *     the losing king can reach either no check can come or its flights that
 *     @side can never attack (nor a pawn hold) cannot all be blocked at once by
 *     the king's own pieces, one piece a flight (blocked.c);
 *   - a helpmate search ("helpmate"): the line found is in @out->moves and, in
 *     SAN with move numbers, in @out->proof;
 *   - an exhaustive walk of every reachable position ("exhaustive"), run when it
 *     can finish: the structure is frozen, every pawn is rammed with only
 *     bishops besides, or at most three pieces stand besides the kings. A "yes"
 *     comes with a shortest line to the checkmate it found, in @out->moves and
 *     @out->proof, replayed before it is given (no line, no "yes").
 * Every "yes" has a line of legal moves that the rule engine replays to the
 * checkmate before it is given (the position itself when it is the mate).
 * The 2000 Laws are assumed: no clock or repetition ends a game by itself
 * (ply_arb_unwinnable_laws for the 2023 automatic draws). Deterministic: the same
 * position and budget give the same answer, nodes and line on any machine.
 * Monotone in the budget: an answer "yes" or "no" given with some budget is
 * given with any larger one (the helpmate search runs the same whatever its
 * share, which only cuts it off, and the walks only stop later).
 * Returns 0 with *@out filled, PLY_EINVAL for NULL @pos or @out or @side not
 * 0 or 1. Out of memory gives PLY_ARB_MATE_UNDETERMINED with a proof saying so.
 */
int ply_arb_unwinnable(const ply_arb_pos_t *pos, int side, uint64_t budget, ply_arb_unwin_t *out);

/**
 * ply_arb_unwinnable_laws - ply_arb_unwinnable under @laws. With fide2000 the
 * same answer. With fide2023 the automatic draws end a series of moves
 * (RULES.md): a move that brings the halfmove clock of @pos (plies without a
 * capture or pawn move) to 150 draws the game unless it mates (art. 9.6.2:
 * the checkmate takes precedence), so:
 *   - @pos with a clock of 150 or more that is not a checkmate: "no", method
 *     "rule" (the game is over);
 *   - with at most 8 plies left on the clock, every series of legal moves
 *     within them is searched (at most 200,000 nodes): "no" (method
 *     "exhaustive") when none mates and every capture or pawn move on the way
 *     leaves @side without the material to mate, "yes" ("helpmate") with the
 *     mating line;
 *   - every line given for a "yes" (helpmate search, exhaustive walk) brings
 *     the clock to 150 only on its mating move, and no position of it occurs a
 *     fifth time within the line (art. 9.6.1); the positions of the game
 *     before @pos are not known here, so a repetition with them is not counted
 *     (a game that has already ended by repetition is not asked: see
 *     ply_arb_adjudicate);
 *   - the "no" proofs (material, blocked, the exhaustive walk) ignore the
 *     clocks, which only adds series of moves, and hold as they are.
 * Still monotone in the budget. Same returns.
 */
int ply_arb_unwinnable_laws(const ply_arb_pos_t *pos, int side, ply_arb_laws_t laws,
                            uint64_t budget, ply_arb_unwin_t *out);

/**
 * ply_arb_can_mate - ply_arb_unwinnable with the default budget, for callers
 * that need only the answer and its proof text (@proof, @len bytes, may be
 * NULL). The flag-fall verdict of art. 6.10: the side whose flag fell loses
 * when the opponent's answer is PLY_ARB_MATE_POSSIBLE, draws when it is
 * PLY_ARB_MATE_IMPOSSIBLE, and the verdict is undetermined otherwise.
 * Returns the verdict (PLY_ARB_MATE_UNDETERMINED for NULL @pos or a bad @side).
 */
ply_arb_mate_t ply_arb_can_mate(const ply_arb_pos_t *pos, int side, char *proof, size_t len);

/** How a game ended by rule in a position (none when it goes on). */
typedef enum ply_arb_end {
    PLY_ARB_END_NONE = 0,
    PLY_ARB_END_CHECKMATE,   /* art. 5.1(a): the side to move is mated */
    PLY_ARB_END_STALEMATE,   /* art. 5.2(a) */
    PLY_ARB_END_DEAD,        /* art. 5.2(b) / 9.6 (2000) */
    PLY_ARB_END_FIVEFOLD,    /* fide2023 art. 9.6.1: fifth occurrence of a position */
    PLY_ARB_END_SEVENTYFIVE, /* fide2023 art. 9.6.2: 75 moves each, no pawn move or capture */
} ply_arb_end_t;

/** ply_arb_end_name - "checkmate", "stalemate", "dead position", "fivefold
 * repetition", "75-move rule", or "none" (static strings). */
const char *ply_arb_end_name(ply_arb_end_t end);

/** ply_arb_end_article - the article text for an end, e.g. "art. 5.1(a)". */
const char *ply_arb_end_article(ply_arb_end_t end, ply_arb_laws_t laws);

/** ply_arb_flag_article - the flag-fall article: "art. 6.10" in the 2000 Laws,
 * "art. 6.9" in the 2023 edition (the same text: a flag fall is a draw when
 * the opponent cannot mate by any series of legal moves). Static strings. */
const char *ply_arb_flag_article(ply_arb_laws_t laws);

/** How many earlier plies of a repeated position ply_arb_status_t lists. */
#define PLY_ARB_REP_MAX 8

/** The state of the current position of a game (ply_arb_game_status). */
typedef struct ply_arb_status {
    int ply;                        /* plies played from the start position */
    ply_arb_end_t end;              /* the game ends here by rule (precedence: mate first) */
    int winner;                     /* 0 white, 1 black, -1 none (draw or not over) */
    char proof[PLY_ARB_PROOF_MAX];  /* for PLY_ARB_END_DEAD: the test that proved it */
    int in_check;                   /* art. 3.9 */
    int legal_moves;                /* number of legal moves */
    int halfmove;                   /* plies without pawn move or capture (art. 9.3) */
    int occurrences;                /* times this position occurred (art. 9.2), now included */
    int rep_plies[PLY_ARB_REP_MAX]; /* the plies of the first occurrences, oldest first */
    int threefold_now;              /* 9.2(b): the side to move may claim: occurrences >= 3 */
    int fifty_now;                  /* 9.3(b): the side to move may claim: halfmove >= 100 */
    /* Look-ahead, filled only by ply_arb_game_status(..., 1, ...): */
    int threefold_by_move; /* 9.2(a): a legal move would make its position occur a 3rd time */
    char threefold_move[PLY_ARB_SAN_MAX]; /* the first such move, in SAN */
    int fifty_by_move;                    /* 9.3(a): a legal move would complete the 50 moves */
    char fifty_move[PLY_ARB_SAN_MAX];     /* the first such move, in SAN */
} ply_arb_status_t;

/** A game in progress: position, laws, history of positions for 9.2. */
typedef struct ply_arb_game ply_arb_game_t;

/**
 * ply_arb_game_new - a game starting at @start (copied) under @laws.
 * Returns NULL when out of memory or @start is NULL. Free with
 * ply_arb_game_destroy. Memory grows with the plies played since the last
 * pawn move or capture (one position identity, about 100 bytes, each).
 */
ply_arb_game_t *ply_arb_game_new(const ply_arb_pos_t *start, ply_arb_laws_t laws);

/** ply_arb_game_destroy - free *@g and set it to NULL; NULL is fine. */
void ply_arb_game_destroy(ply_arb_game_t **g);

/**
 * ply_arb_game_reset - start again at @start under @laws, keeping the
 * allocated memory (to replay many games without allocating).
 */
void ply_arb_game_reset(ply_arb_game_t *g, const ply_arb_pos_t *start, ply_arb_laws_t laws);

/** ply_arb_game_pos - the current position (owned by @g). */
const ply_arb_pos_t *ply_arb_game_pos(const ply_arb_game_t *g);

/** ply_arb_game_ply - plies played since the start position. */
int ply_arb_game_ply(const ply_arb_game_t *g);

/**
 * ply_arb_game_play - play @move, which must be legal in the current
 * position (check with ply_arb_legal_moves or a SAN/UCI reader first), and
 * record the new position. Playing on after the game ended by rule is
 * allowed (a record may continue); ply_arb_game_status still tells.
 * Returns 0, PLY_EILLEGAL when @move is not legal (nothing changes) or
 * PLY_ENOMEM.
 */
int ply_arb_game_play(ply_arb_game_t *g, ply_arb_move_t move);

/**
 * ply_arb_game_play_san - read @text as a move of the current position (as
 * ply_arb_move_from_san, with its messages in @why) and play it. *@out (may
 * be NULL) receives the move. Returns 0, the errors of ply_arb_move_from_san
 * (PLY_EPARSE, PLY_EILLEGAL, PLY_EINVAL; nothing changes), or PLY_ENOMEM.
 * Cheaper than reading and playing separately: the legal moves of each
 * position are generated once.
 */
int ply_arb_game_play_san(ply_arb_game_t *g, const char *text, ply_arb_move_t *out, char *why,
                          size_t why_len);

/**
 * ply_arb_game_status - the state of the current position into *@st:
 * checkmate, stalemate, dead position (with its proof), and under fide2023
 * the fivefold repetition and the 75-move rule (unless the position is mate:
 * 9.6.2 gives checkmate precedence); the repetition count with the plies of
 * the earlier occurrences (identity as ply_arb_identity, art. 9.2); the
 * claims the side to move has now (9.2(b), 9.3(b)). With @lookahead, also
 * the claims by an intended move (9.2(a), 9.3(a)): every legal move is tried,
 * which costs a move generation per move. Returns 0 or PLY_EINVAL.
 */
int ply_arb_game_status(ply_arb_game_t *g, int lookahead, ply_arb_status_t *st);

#endif
