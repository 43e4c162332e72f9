/*
 * Game analysis in a search run (SearchRequest.plies, `ply analyse-pgn`): the part of
 * kind 2 (search/kind.c) that plans the positions of a game into chunks, checks a
 * chunk's lines and keeps one line per position for the answer.
 *
 * Plan: the requested plies, ascending, cut into chunks of PLY__GAME_CHUNK consecutive
 * ones, each chunk sharing its last position with the next chunk's first (lichess's
 * fishnet: chunks of 6, one position of overlap), so that the chunk searched backwards
 * (SearchJob.plies descending) starts on a position its neighbour ends on and no
 * position is searched on a table cold of everything after it. One job per chunk: the
 * game's root, its moves up to the chunk's highest ply, the run's limits, multipv 1.
 * Check: a chunk's result has exactly one line per position of the chunk, each tagged
 * with its ply and replayed by the rule engine from that position (search/kind.c's
 * line check: legal moves, a mate at exactly its distance, the depth asked); one bad
 * line refuses the whole chunk (its attempt fails and it is computed again elsewhere).
 * Answer: one AnalysedMove per requested ply, by ply. The overlap position has two
 * lines: the deeper one is kept; at equal depth the later chunk's (it searched that
 * position last, its table holding everything after it).
 */
#ifndef PLY_COORDINATOR_SEARCH_GAME_H
#define PLY_COORDINATOR_SEARCH_GAME_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/arbiter.h"
#include "ply.pb-c.h"

/** Positions per chunk (lichess's fishnet analyses games in chunks of 6). */
#define PLY__GAME_CHUNK 6

typedef struct ply__game ply__game_t;

/**
 * ply__game_new - the game analysis of request @q (q->n_plies > 0), @root being its
 * position before the moves, into *@out (free with ply__game_free): each ply in
 * 0..q->n_moves, none twice, each position with a legal move; the moves must be legal
 * in turn (the caller has checked them). Returns 0; PLY_EINVAL ("ply 12 is beyond the
 * game's 10 moves", "ply 4 is asked twice") or PLY_EILLEGAL ("the position after ply 9
 * has no legal move (checkmate)") with the reason in @why; PLY_ENOMEM.
 */
int ply__game_new(const Ply__SearchRequest *q, const ply_arb_pos_t *root, ply__game_t **out,
                  char *why, size_t why_len);

/** ply__game_free - free *@g (and every line it keeps), set it NULL; idempotent. */
void ply__game_free(ply__game_t **g);

/** ply__game_njobs - the chunks of @g: its jobs. */
size_t ply__game_njobs(const ply__game_t *g);

/** ply__game_positions - the positions of chunk @job (1..PLY__GAME_CHUNK). */
size_t ply__game_positions(const ply__game_t *g, size_t job);

/**
 * ply__game_fill_job - the chunk's part of @sj: moves (q->moves up to the chunk's
 * highest ply), plies (descending), multipv 1, no searchmoves. Pointers into @g and @q.
 */
void ply__game_fill_job(const ply__game_t *g, size_t job, const Ply__SearchRequest *q,
                        Ply__SearchJob *sj);

/**
 * ply__game_check - the rule engine's check of @res for chunk @job (the header's
 * Check), @want_depth the run's depth limit (0: none). 0, or PLY_EMISMATCH with the
 * first fault in @why (its ply first).
 */
int ply__game_check(const ply__game_t *g, size_t job, const Ply__SearchResult *res,
                    uint32_t want_depth, char *why, size_t why_len);

/**
 * ply__game_accept - take checked @res (owned from here) of chunk @job, returned by
 * worker @worker (identity @identity), into the answer (the header's Answer for the
 * overlap). 0 or PLY_ENOMEM; @g owns @res in both cases.
 */
int ply__game_accept(ply__game_t *g, size_t job, Ply__SearchResult *res, const char *worker,
                     const char *identity);

/**
 * ply__game_answer - the lines kept so far, one per position, by ply: *@n entries,
 * owned by @g, valid until the next accept.
 */
Ply__AnalysedMove **ply__game_answer(const ply__game_t *g, size_t *n);

/**
 * ply__game_describe_job - chunk @job for logs: "plies 10-5 of 40 moves" into @buf.
 */
void ply__game_describe_job(const ply__game_t *g, size_t job, char *buf, size_t len);

/**
 * ply__search_pv_san - line @l (checked: every move legal from @from) in SAN by the rule
 * engine, into *@out: l->n_pv strings (at least one slot allocated), each and the array
 * owned by the caller (free each, then the array). 0 or PLY_ENOMEM (nothing to free).
 */
int ply__search_pv_san(const ply_arb_pos_t *from, const Ply__SearchLine *l, char ***out);

/**
 * ply__search_cmp_analysed - qsort order of an answer's lines (Ply__AnalysedMove *), best
 * first: mates for the side to move (shortest first), scores (highest first), mates against
 * it (longest first); ties by the move's UCI text, so that answers are reproducible (a
 * deepening analysis orders its own: exact lines first).
 */
int ply__search_cmp_analysed(const void *pa, const void *pb);

/** ply__search_result_dup - a copy of @r (free with ply__search_result__free_unpacked), or NULL
 * (out of memory). */
Ply__SearchResult *ply__search_result_dup(const Ply__SearchResult *r);

/**
 * ply__search_replay_line - search/kind.c's check of one line (the one check of every
 * line a worker returns): every move of @l legal from @from, a mate ending in checkmate
 * at exactly the claimed distance, and with @want_depth (0: none) that depth reached
 * unless it is a mate. @label names the line in @why ("ply 12", "e2e4"). 0 or
 * PLY_EMISMATCH.
 */
int ply__search_replay_line(const ply_arb_pos_t *from, const Ply__SearchLine *l,
                            uint32_t want_depth, const char *label, char *why, size_t why_len);

#endif
