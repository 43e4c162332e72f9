/*
 * EPD perft suites: one position per line with its expected counts, in the
 * two forms found in the wild: "FEN ;D1 20 ;D2 400" (perftsuite.epd,
 * Ethereal) and "FEN; D1 20; D2 400" (the Grand Chess Tree). Blank lines and
 * lines starting with '#' are skipped.
 */
#ifndef PLY_CLIENT_EPD_H
#define PLY_CLIENT_EPD_H

#include <stddef.h>
#include <stdint.h>

#include "util/u128.h"

#define PLY_EPD_MAX_DEPTHS 16

typedef struct ply_epd_line {
    int line_no;  /* 1-based line in the file */
    char *fen;    /* the position, as written */
    int ndepths;
    struct {
        int depth;
        ply_u128_t nodes; /* exact at any depth (util/u128.h) */
    } depths[PLY_EPD_MAX_DEPTHS];
} ply_epd_line_t;

typedef struct ply_epd {
    size_t n;
    ply_epd_line_t *lines;
} ply_epd_t;

/**
 * ply_epd_load - read a suite from @path. Returns the suite (free with
 * ply_epd_free), or NULL with a reason naming the file and line in @why:
 * unreadable file, a line without ';', a malformed "Dn count" operation,
 * a count that is not 0..2^128 - 1,
 * depth outside 1..PLY_U128_SAFE_DEPTH, more than PLY_EPD_MAX_DEPTHS depths, an empty file.
 */
ply_epd_t *ply_epd_load(const char *path, char *why, size_t why_len);

/** ply_epd_free - free a suite; NULLs *suite; idempotent. */
void ply_epd_free(ply_epd_t **suite);

#endif
