/*
 * ply-tune openings: random openings for the tuner's games. From the initial
 * position, @plies uniformly random legal moves, repeated until @count
 * distinct positions that still have legal moves are written as EPD (four
 * fields, an id). Balance is not asked for: the games only have to differ,
 * and an opening one side wins is still labelled truthfully by its result.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/board.h"
#include "board/movegen.h"
#include "tune.h"

/* xorshift64*: a fixed-seed generator, so the book is reproducible. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

int ply_tune_openings(int count, int plies, uint64_t seed, FILE *out)
{
    uint64_t s = seed ? seed : 1;
    uint64_t *seen = calloc((size_t)count, sizeof *seen);
    if (!seen) return -1;
    int written = 0;
    while (written < count) {
        ply_board_t b;
        ply_board_startpos(&b);
        ply_move_t moves[PLY_MAX_MOVES];
        int ok = 1;
        for (int i = 0; i < plies && ok; i++) {
            int n = ply_board_legal_moves(&b, moves);
            if (n == 0)
                ok = 0;
            else
                ply_board_play(&b, moves[next_random(&s) % (uint64_t)n]);
        }
        if (!ok || ply_board_legal_moves(&b, moves) == 0) continue;
        int dup = 0;
        for (int i = 0; i < written && !dup; i++) dup = seen[i] == b.key[0];
        if (dup) continue;
        seen[written++] = b.key[0];
        char fen[PLY_BOARD_FEN_MAX];
        ply_board_to_fen(&b, fen, sizeof fen);
        /* EPD: the first four FEN fields */
        char *p = fen;
        for (int f = 0; f < 4 && p; f++) p = strchr(p + 1, ' ');
        if (p) *p = '\0';
        fprintf(out, "%s id \"random %d\";\n", fen, written);
    }
    free(seen);
    return 0;
}
