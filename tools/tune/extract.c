/*
 * ply-tune extract: the labelled quiet positions of PGN games. Every
 * position of a game's main line is a candidate; kept are those not in
 * check whose quiescence search (captures and promotions, stand pat) equals
 * the static evaluation, so that the tuner can evaluate them directly with no
 * search. Each is written as "FEN;R" with R the game's result for White (1,
 * 0.5, 0). Games without a decisive or drawn result are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/arbiter.h"
#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "board/board.h"
#include "board/movegen.h"
#include "eval.h"
#include "tune.h"
#include "util/error.h"

#define QS_DEPTH_MAX 12

static int is_noisy(const ply_board_t *b, ply_move_t m)
{
    return ply_move_is_promo(m) || ply_move_kind(m) == PLY_MOVE_EP ||
           (ply_move_kind(m) != PLY_MOVE_CASTLE &&
            (b->colour[b->side ^ 1] & ply_bb(ply_move_to(m))));
}

/* Value of the piece a noisy move takes, for most-valuable-victim order. */
static int victim(const ply_board_t *b, ply_move_t m)
{
    int c;
    int t = ply_board_piece_on(b, ply_move_to(m), &c);
    return (t > 0 ? ply_see_value[t] : 100) + (ply_move_is_promo(m) ? 800 : 0);
}

int ply_tune_qsearch(const ply_board_t *b, int alpha, int beta, int depth)
{
    int best = ply_eval(b);
    if (best >= beta || depth >= QS_DEPTH_MAX) return best;
    if (best > alpha) alpha = best;
    ply_move_t moves[PLY_MAX_MOVES];
    int n = ply_board_legal_moves(b, moves), k = 0;
    for (int i = 0; i < n; i++)
        if (is_noisy(b, moves[i])) moves[k++] = moves[i];
    for (int i = 0; i < k; i++) { /* selection by victim, few moves */
        int at = i;
        for (int j = i + 1; j < k; j++)
            if (victim(b, moves[j]) > victim(b, moves[at])) at = j;
        ply_move_t m = moves[at];
        moves[at] = moves[i];
        ply_board_t nb = *b;
        ply_board_play_nokey(&nb, m);
        const int s = -ply_tune_qsearch(&nb, -beta, -alpha, depth + 1);
        if (s > best) best = s;
        if (s > alpha) alpha = s;
        if (alpha >= beta) break;
    }
    return best;
}

static int result_of(const char *r, const char **label)
{
    if (!r) return -1;
    if (!strcmp(r, "1-0"))
        *label = "1";
    else if (!strcmp(r, "0-1"))
        *label = "0";
    else if (!strcmp(r, "1/2-1/2"))
        *label = "0.5";
    else
        return -1;
    return 0;
}

int ply_tune_extract(const char *path, FILE *out, long *games, long *kept, long *seen)
{
    char why[256] = "";
    ply_pgn_reader_t *r = ply_pgn_reader_open(path, why, sizeof why);
    if (!r) {
        fprintf(stderr, "ply-tune extract: %s: %s\n", path, why);
        return -1;
    }
    const ply_pgn_game_t *g;
    ply_pgn_error_t err;
    int rc;
    while ((rc = ply_pgn_read(r, &g, &err)) != 0) {
        if (rc == PLY_EPARSE) continue; /* a broken game: skipped */
        if (rc < 0) break;
        const char *label;
        ply_arb_pos_t pos;
        if (result_of(g->result, &label) || ply_pgn_game_start(g, &pos, why, sizeof why)) continue;
        (*games)++;
        for (size_t i = 0; i < g->nelems; i++) {
            const ply_pgn_elem_t *el = &g->elems[i];
            if (el->kind != PLY_PGN_MOVE || el->depth != 0) continue;
            char fen[PLY_ARB_FEN_MAX];
            ply_board_t b;
            if (ply_arb_to_fen(&pos, fen, sizeof fen) < 0 ||
                ply_board_from_fen(&b, fen, 0, NULL, 0))
                break;
            (*seen)++;
            if (!ply_board_checkers(&b)) {
                const int v = ply_eval(&b);
                if (v > -1000 && v < 1000 && ply_tune_qsearch(&b, -32000, 32000, 0) == v) {
                    fprintf(out, "%s;%s\n", fen, label);
                    (*kept)++;
                }
            }
            ply_arb_move_t m;
            if (ply_arb_move_from_san(&pos, el->text, &m, why, sizeof why)) break;
            ply_arb_make(&pos, m);
        }
    }
    ply_pgn_reader_destroy(&r);
    return rc < 0 && rc != PLY_EPARSE ? -1 : 0;
}
