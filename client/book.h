/*
 * The opening book of `ply match`: an EPD file (epd_ops.h) whose records are
 * the positions games start from. A record may give, in its c0 comment, the
 * moves that reach it from the initial position in SAN ("1. e4 e5 2. Nf3
 * Nc6"); they are replayed by the rule engine and must arrive at the
 * record's position (same placement, side, castling rights and en-passant
 * possibility, ply_arb_identity), so that a book cannot say one thing in its
 * moves and another in its FEN. Games then start from the initial position
 * with those moves (the engines see the whole history); a record without c0
 * starts from its FEN. The id operand names the opening.
 */
#ifndef PLY_CLIENT_BOOK_H
#define PLY_CLIENT_BOOK_H

#include <stddef.h>

#include "arbiter/arbiter.h"
#include "arbiter/san.h"

/** Most book moves per opening. */
#define PLY_BOOK_MOVES_MAX 40

/** One opening. */
typedef struct ply_book_line {
    char name[96];       /* the id operand, or "line N" */
    int line_no;         /* in the file */
    ply_arb_pos_t start; /* the initial position, or the record's when no moves */
    int from_fen;        /* 1: no moves, the game starts at the record's FEN */
    char start_fen[PLY_ARB_FEN_MAX];
    int nmoves;
    ply_arb_move_t moves[PLY_BOOK_MOVES_MAX];
    char san[PLY_BOOK_MOVES_MAX][PLY_ARB_SAN_MAX];
    char uci[PLY_BOOK_MOVES_MAX][6];
} ply_book_line_t;

typedef struct ply_book {
    size_t n;
    ply_book_line_t *lines;
} ply_book_t;

/**
 * ply_book_load - read and check the book at @path. Returns it (free with
 * ply_book_free), or NULL with "PATH:LINE: reason" in @why: the EPD errors
 * of ply_epd_file_load, a bad FEN, a move of c0 that is not legal where it
 * stands (the arbiter's reason), more than PLY_BOOK_MOVES_MAX moves, moves
 * that do not reach the FEN (both identities quoted), or a position where
 * the game is already over (no legal move).
 */
ply_book_t *ply_book_load(const char *path, char *why, size_t why_len);

/** ply_book_free - free *@b and NULL it; idempotent. */
void ply_book_free(ply_book_t **b);

#endif
