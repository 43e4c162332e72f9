/*
 * Adjudication of a game record (RULES.md: art. 5, 6.10, 7.4, 9): replay the
 * main line of a PGN game with the arbiter and report what an arbiter would
 * rule: the first illegal move (7.4: the position before it stands), how and
 * when the game ended by rule, which draw claims arose (9.2, 9.3), the state
 * of the final position, the flag-fall verdict (6.10) when a flag fell, and
 * whether the Result tag agrees with all of it.
 *
 * What agrees with what: a game that ended by rule (checkmate, stalemate,
 * dead position, and under fide2023 fivefold repetition and the 75-move
 * rule) has exactly one correct result, and no further moves. A game that
 * did not end by rule may have any result (resignation, agreement, a claim,
 * an unfinished "*"), except that when a flag fell (--flag, or a Termination
 * tag "Time forfeit" with a decisive or drawn result) the result is the one
 * 6.10 gives. The Result tag and the termination marker must be the same.
 */
#ifndef PLY_ARBITER_ADJUDICATE_H
#define PLY_ARBITER_ADJUDICATE_H

#include <stddef.h>

#include "arbiter/endgame.h"
#include "arbiter/pgn.h"

#define PLY_ARB_NOTES_MAX 6

/** Everything ply_arb_adjudicate finds about one game. */
typedef struct ply_arb_report {
    size_t game;                          /* game number in the file */
    long line;                            /* first line of the game */
    char white[64], black[64], event[64]; /* tags, "" when absent (truncated) */
    char result[16];                      /* the Result tag, "" when absent */
    char marker[16];                      /* the termination marker, "" when absent */
    int chess960;
    int start_side;      /* side to move in the start position (0 white, 1 black) */
    int start_ok;        /* the start position could be set up */
    char start_why[200]; /* why not (bad FEN tag, unsupported variant) */
    int recorded_plies;  /* main-line moves in the record */
    int plies;           /* main-line moves replayed (legal) */
    /* The first illegal or unreadable move (art. 7.4): ply 0 when none. */
    int illegal_ply;
    char illegal_move[48];   /* as written (truncated) */
    char illegal_number[16]; /* "12." or "12..." */
    long illegal_line;
    char illegal_why[200];
    /* The end of the game by rule (first time), with the plies recorded after it. */
    ply_arb_end_t end;
    int end_ply, end_winner; /* winner 0/1, -1 for a draw */
    char end_proof[PLY_ARB_PROOF_MAX];
    int after_end;
    /* The first draw claims that arose (ply 0 when none). */
    int threefold_ply;
    int threefold_plies[PLY_ARB_REP_MAX]; /* the occurrences (up to 3 listed) */
    int threefold_n;
    int fifty_ply;
    /* The final position (after the last legal move). */
    ply_arb_status_t final;
    char final_fen[PLY_ARB_FEN_MAX];
    /* Flag fall (6.10): the side whose flag fell, -1 when none. flag_opponent
     * and flag_proof repeat flag_unwin's verdict and proof (the former fields). */
    int flag, flag_from_tag;
    ply_arb_mate_t flag_opponent;
    char flag_proof[PLY_ARB_PROOF_MAX];
    ply_arb_unwin_t flag_unwin; /* the whole answer: method, nodes, time, helpmate line */
    /* Verdict. */
    char expected[16]; /* the result the rules give, "" when any result is possible */
    int consistent;
    int nnotes;
    char notes[PLY_ARB_NOTES_MAX][640]; /* why not consistent, and remarks, one line each */
} ply_arb_report_t;

/**
 * ply_arb_adjudicate - replay game @g under @laws and fill *@rep.
 * @flag: -1, or the side (0 white, 1 black) whose flag fell at the end of
 * the record (the `--flag` option): the game is then lost by that side
 * when the opponent is proven able to mate, drawn when proven unable
 * (ply_arb_unwinnable_laws under @laws with the default budget), and left undetermined
 * otherwise (see ply_arb_adjudicate_budget).
 * @work: a game object to reuse between calls (may be NULL: one is made and
 * freed). Returns 0 (the report says whether the game is consistent),
 * PLY_EINVAL for NULL arguments or PLY_ENOMEM.
 */
int ply_arb_adjudicate(const ply_pgn_game_t *g, ply_arb_laws_t laws, int flag, ply_arb_game_t *work,
                       ply_arb_report_t *rep);

/**
 * ply_arb_adjudicate_budget - ply_arb_adjudicate with the node budget of the
 * art. 6.10 question (ply_arb_unwinnable_laws; 0: PLY_ARB_UNWIN_BUDGET). When the
 * answer is undetermined within the budget, no result is expected (expected
 * is "") and a note says so, naming the budget: the flag fall is neither
 * awarded nor drawn on an unproven answer. A drawn time forfeit is found
 * inconsistent only when both sides are proven able to mate. Same returns.
 */
int ply_arb_adjudicate_budget(const ply_pgn_game_t *g, ply_arb_laws_t laws, int flag,
                              uint64_t budget, ply_arb_game_t *work, ply_arb_report_t *rep);

#endif
