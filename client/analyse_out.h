/*
 * What `ply analyse` prints from a search run's answer (Ply__SearchAnswer): the best move
 * and its line, a table of every root move (rank, SAN, score, depth, nodes, time, PV in SAN
 * with move numbers), a summary with what the rule engine checked; or one JSON object.
 * Kept apart from the command so that the formatting is tested on synthetic answers.
 */
#ifndef PLY_CLIENT_ANALYSE_OUT_H
#define PLY_CLIENT_ANALYSE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "ply.pb-c.h"

/** What was asked, for the report (the answer holds what was computed). */
typedef struct ply_analyse_asked {
    const char *root;         /* the root FEN, canonical */
    const char *const *moves; /* UCI history played from it */
    size_t nmoves;
    unsigned depth;       /* 0: none */
    uint64_t nodes;       /* per root move; 0: none */
    unsigned movetime_ms; /* per root move; 0: none */
    const char *engine;   /* "builtin", "uci", or NULL: any */
    unsigned multipv;     /* root moves printed; 0: all */
} ply_analyse_asked_t;

/**
 * ply_analyse_score_text - a line's score as a user reads it, from the side to move:
 * "+0.31", "-1.20", "0.00", "#3" (mates in 3), "#-2" (is mated in 2), with " (lower bound)"
 * or " (upper bound)" when @bounds and the score is bounded. Writes at most @len bytes.
 */
void ply_analyse_score_text(const Ply__SearchLine *l, int bounds, char *buf, size_t len);

/**
 * ply_analyse_pv_text - @san[0..@n) with move numbers from @fen's side to move and fullmove
 * number ("1. e4 e5 2. Nf3", "1... e5 2. Nf3" when black is to move), into @buf (@len
 * bytes; a line that does not fit ends with "..."). An unreadable @fen numbers from 1 white.
 */
void ply_analyse_pv_text(const char *fen, char *const *san, size_t n, char *buf, size_t len);

/**
 * ply_analyse_key - a sort key of a line's score, higher is better for the side to move:
 * a mate given (sooner is higher) over any centipawn score over a mate taken (later is
 * higher). For the live table, which gets root moves in the order they finish.
 */
int64_t ply_analyse_key(const Ply__SearchLine *l);

/**
 * ply_analyse_print_row - one table row of @m, ranked @rank, its PV numbered from @fen.
 */
void ply_analyse_print_row(FILE *out, unsigned rank, const Ply__AnalysedMove *m, const char *fen);

/** ply_analyse_print_header - the table's column titles. */
void ply_analyse_print_header(FILE *out);

/**
 * ply_analyse_print_text - the answer of @r (kind SEARCH, r->search set) as text on @out:
 * the position, the best move and line, the table of @a->multipv root moves (all when 0) in
 * the coordinator's order, and the summary (jobs, nodes, time, speed, engines, lines replayed
 * by the rule engine and every rejection, naming the worker). A root without legal moves
 * prints "checkmate" or "stalemate" only.
 */
void ply_analyse_print_text(FILE *out, const Ply__RunResult *r, const ply_analyse_asked_t *a);

/**
 * ply_analyse_json - the answer of @r as one JSON object (new reference): fen, root, moves,
 * depth, nodes_asked, movetime_ms, engine, status, lines [{move, san, score {cp|mate, bound},
 * depth, seldepth, pv, pv_san, nodes, time_ms, engine, worker}], best, nodes, time_ms, jobs,
 * replayed, rejected, rejections. NULL when out of memory.
 */
json_t *ply_analyse_json(const Ply__RunResult *r, const ply_analyse_asked_t *a);

/**
 * ply_analyse_print_result - print the answer of a search run @r (r->search set) as ply
 * analyse does, text or JSON (@json), what was asked read from r->asked (for `ply result`).
 * Returns the exit status, 0, as ply analyse's: a rejected line was run again elsewhere,
 * and the answer holds only lines the rule engine accepted.
 */
int ply_analyse_print_result(const Ply__RunResult *r, int json);

#endif
