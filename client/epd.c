/* EPD perft-suite reader (see epd.h). */
#include "epd.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

static int parse_line(char *text, ply_epd_line_t *out, char *err, size_t err_len)
{
    char *semi = strchr(text, ';');
    if (!semi) {
        snprintf(err, err_len, "no ';' before the expected counts");
        return -1;
    }
    *semi = '\0';
    char *fen = trim(text);
    if (!*fen) {
        snprintf(err, err_len, "no position before ';'");
        return -1;
    }
    out->fen = strdup(fen);
    out->ndepths = 0;
    for (char *op = strtok(semi + 1, ";"); op; op = strtok(NULL, ";")) {
        op = trim(op);
        if (!*op) continue;
        if (op[0] != 'D' || !isdigit((unsigned char)op[1]))
            continue; /* other EPD opcodes: ignored */
        char *end;
        errno = 0;
        long depth = strtol(op + 1, &end, 10);
        if (!isspace((unsigned char)*end)) {
            snprintf(err, err_len, "'%s' is not 'Dn count'", op);
            return -1;
        }
        char *num = trim(end);
        ply_u128_t nodes;
        int nrc = ply_u128_from_dec(num, &nodes);
        if (nrc < 0) {
            snprintf(err, err_len, "'%s' is not 'Dn count'%s", op,
                     nrc == PLY_ERANGE ? " (the count is above 2^128 - 1)" : "");
            return -1;
        }
        if (depth < 1 || depth > PLY_U128_SAFE_DEPTH) {
            snprintf(err, err_len, "depth %ld out of range 1..%d", depth, PLY_U128_SAFE_DEPTH);
            return -1;
        }
        if (out->ndepths == PLY_EPD_MAX_DEPTHS) {
            snprintf(err, err_len, "more than %d depths", PLY_EPD_MAX_DEPTHS);
            return -1;
        }
        for (int i = 0; i < out->ndepths; i++)
            if (out->depths[i].depth == (int)depth) {
                snprintf(err, err_len, "depth %ld is given twice", depth);
                return -1;
            }
        out->depths[out->ndepths].depth = (int)depth;
        out->depths[out->ndepths].nodes = nodes;
        out->ndepths++;
    }
    if (!out->ndepths) {
        snprintf(err, err_len, "no 'Dn count' after ';': nothing to check");
        return -1;
    }
    return 0;
}

ply_epd_t *ply_epd_load(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        f = NULL;
        errno = EISDIR;
    }
    if (!f) {
        snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    ply_epd_t *suite = calloc(1, sizeof *suite);
    size_t cap = 0;
    char buf[4096];
    int line_no = 0;
    while (suite && fgets(buf, sizeof buf, f)) {
        line_no++;
        /* a UTF-8 byte order mark, as some editors write, is not part of the first line */
        char *text = trim(line_no == 1 && !strncmp(buf, "\xEF\xBB\xBF", 3) ? buf + 3 : buf);
        if (!*text || *text == '#') continue;
        if (suite->n == cap) {
            cap = cap ? cap * 2 : 64;
            ply_epd_line_t *more = realloc(suite->lines, cap * sizeof *suite->lines);
            if (!more) {
                ply_epd_free(&suite);
                break;
            }
            suite->lines = more;
        }
        ply_epd_line_t *l = &suite->lines[suite->n];
        memset(l, 0, sizeof *l);
        l->line_no = line_no;
        char err[160];
        if (parse_line(text, l, err, sizeof err) < 0) {
            snprintf(why, why_len, "%s:%d: %s", path, line_no, err);
            free(l->fen);
            fclose(f);
            ply_epd_free(&suite);
            return NULL;
        }
        suite->n++;
    }
    fclose(f);
    if (!suite) {
        snprintf(why, why_len, "%s: out of memory", path);
        return NULL;
    }
    if (suite->n == 0) {
        snprintf(why, why_len, "%s: no positions", path);
        ply_epd_free(&suite);
    }
    return suite;
}

void ply_epd_free(ply_epd_t **suite)
{
    if (!suite || !*suite) return;
    for (size_t i = 0; i < (*suite)->n; i++) free((*suite)->lines[i].fen);
    free((*suite)->lines);
    free(*suite);
    *suite = NULL;
}
