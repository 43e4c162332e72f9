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
    unsigned depth;       /* plies (deepen: the last iteration); 0: none */
    uint64_t nodes;       /* per root move (deepen: of the whole analysis); 0: none */
    unsigned movetime_ms; /* per root move (deepen: the whole analysis' wall time); 0: none */
    const char *engine;   /* "builtin", "uci", or NULL: any */
    /* without deepen: the root moves printed, 0 all; with deepen: the root moves scored
     * exactly (SearchRequest.multipv, 0: 1), every root move being printed */
    unsigned multipv;
    int deepen;   /* a deepening analysis (SearchRequest.deepen) */
    int infinite; /* ... until canceled (SearchRequest.infinite) */
    int chess960; /* the lines' castling is written king-takes-rook */
} ply_analyse_asked_t;

/**
 * ply_analyse_score_text - a line's score as a user reads it, from the side to move:
 * "+0.31", "-1.20", "0.00", "#3" (mates in 3), "#-2" (is mated in 2), preceded by ">= "
 * (lower bound) or "<= " (upper bound: a root move of a deepening analysis proved no better)
 * when @bounds and the score is bounded. Writes at most @len bytes.
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
 * ply_analyse_pv_san - the UCI moves @pv[0..@n) played from @fen (@chess960: castling
 * king-takes-rook) in SAN, into @san (@n strings of PLY_ANALYSE_SAN_MAX bytes). Returns how
 * many were written: it stops at the first move that is not legal in turn (0 when @fen
 * cannot be read).
 */
#define PLY_ANALYSE_SAN_MAX 16
size_t ply_analyse_pv_san(const char *fen, int chess960, char *const *pv, size_t n,
                          char (*san)[PLY_ANALYSE_SAN_MAX]);

/** ply_analyse_print_iteration_header - the column titles of the iterations' lines. */
void ply_analyse_print_iteration_header(FILE *out);

/**
 * ply_analyse_print_iteration - one completed iteration of a deepening analysis as an
 * engine prints it: depth, score, time since the run was accepted, nodes so far, and its
 * best line in SAN numbered from @fen (the position analysed; @chess960 as for
 * ply_analyse_pv_san), on one line.
 */
void ply_analyse_print_iteration(FILE *out, const Ply__SearchIteration *it, const char *fen,
                                 int chess960);

/**
 * ply_analyse_iteration_json - one completed iteration as `ply analyse --json` prints it
 * (a new reference; NULL when out of memory): {"type": "iteration", "depth", "score":
 * {cp|mate, bound}, "move", "san", "pv" (UCI), "pv_san", "seldepth", "time_ms", "nodes"};
 * @fen and @chess960 as for ply_analyse_print_iteration.
 */
json_t *ply_analyse_iteration_json(const Ply__SearchIteration *it, const char *fen, int chess960);

/**
 * ply_analyse_print_text - the answer of @r (kind SEARCH, r->search set) as text on @out:
 * the position, the depth of a deepening analysis, the best move and line, the table of
 * @a->multipv root moves (all when 0; every one with deepen, the bounded ones as bounds) in
 * the coordinator's order, and the summary (jobs, nodes, time, speed, engines, lines replayed
 * by the rule engine and every rejection, naming the worker). A root without legal moves
 * prints "checkmate" or "stalemate" only.
 */
void ply_analyse_print_text(FILE *out, const Ply__RunResult *r, const ply_analyse_asked_t *a);

/**
 * ply_analyse_json - the answer of @r as one JSON object (new reference): type "result", fen,
 * root, moves, depth (a deepening analysis: its deepest completed iteration, else the depth
 * asked or null), depth_asked, nodes_asked, movetime_ms, multipv, deepen, infinite, engine,
 * status, lines [{move, san, score {cp|mate, bound}, depth, seldepth, pv, pv_san, nodes,
 * time_ms, engine, worker}], best, iterations [as ply_analyse_iteration_json], nodes,
 * time_ms, jobs, replayed, rejected, rejections, verification, run. NULL when out of memory.
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
