/*
 * EPD records with opcodes (the PGN standard, section 16.2): a position in
 * four FEN fields, then operations "opcode operands;" such as bm (best
 * moves, SAN), am (moves to avoid), id "name", and comments c0..c9 (STS
 * keeps "move=points, ..." in c0). Used by `ply solve` for test suites and by
 * `ply match` for its opening book. The perft suites' "D1 20" form is
 * epd.h's business.
 *
 * A line may also carry the FEN's two clock fields before the opcodes (as
 * many files do); blank lines and lines starting with '#' are skipped.
 * Quoted operands may hold ';'. Nothing here knows chess: the caller checks
 * the position and reads the moves with the rule engine.
 */
#ifndef PLY_CLIENT_EPD_OPS_H
#define PLY_CLIENT_EPD_OPS_H

#include <stddef.h>

/** Most operations kept per record (more is an error). */
#define PLY_EPD_OPS_MAX 24

/** One operation: its opcode and its operand text (quotes removed). */
typedef struct ply_epd_op {
    char name[16];
    char *value; /* owned by the record; "" when it has no operand */
} ply_epd_op_t;

/** One record (a line of the file). */
typedef struct ply_epd_rec {
    int line_no; /* 1-based */
    char *fen;   /* the FEN fields as written (4, or 6 when clocks were given) */
    int nops;
    ply_epd_op_t ops[PLY_EPD_OPS_MAX];
} ply_epd_rec_t;

/** A file of records. */
typedef struct ply_epd_file {
    size_t n;
    ply_epd_rec_t *recs;
} ply_epd_file_t;

/**
 * ply_epd_file_load - read every record of @path. Returns the file (free with
 * ply_epd_file_free), or NULL with "PATH:LINE: reason" in @why: unreadable,
 * a line over 8 KiB, fewer than four FEN fields, an opcode that is not a
 * letter followed by letters, digits or '_' (at most 15), an unterminated
 * quote, more than PLY_EPD_OPS_MAX operations, no records at all, or out of
 * memory.
 */
ply_epd_file_t *ply_epd_file_load(const char *path, char *why, size_t why_len);

/** ply_epd_file_free - free *@f and NULL it; idempotent. */
void ply_epd_file_free(ply_epd_file_t **f);

/** ply_epd_op - the operand of the first operation @name of @r, or NULL when absent. */
const char *ply_epd_op(const ply_epd_rec_t *r, const char *name);

#endif
