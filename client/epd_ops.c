/* EPD records with opcodes (see epd_ops.h). */
#include "epd_ops.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPD_LINE_MAX 8192

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static int all_digits(const char *s, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

/*
 * Reads the FEN fields at the start of @s: four, and the two clocks when the
 * next two words are both numbers. Returns a pointer past them, or NULL.
 */
static const char *read_fen(const char *s, ply_epd_rec_t *r)
{
    const char *start = skip_blanks(s), *p = start, *end4 = NULL, *end6 = NULL;
    size_t len[6] = {0};
    const char *word[6] = {0};
    for (int i = 0; i < 6; i++) {
        p = skip_blanks(p);
        len[i] = strcspn(p, " \t;");
        if (!len[i]) break;
        word[i] = p;
        p += len[i];
        if (i == 3) end4 = p;
        if (i == 5) end6 = p;
    }
    if (!end4) return NULL;
    const char *end = end4;
    if (end6 && all_digits(word[4], len[4]) && all_digits(word[5], len[5])) end = end6;
    r->fen = strndup(start, (size_t)(end - start));
    return r->fen ? end : NULL;
}

/* Parses the operations after the FEN; 0, or -1 with a reason. */
static int read_ops(const char *s, ply_epd_rec_t *r, char *err, size_t err_len)
{
    for (;;) {
        s = skip_blanks(s);
        while (*s == ';') s = skip_blanks(s + 1);
        if (!*s) return 0;
        size_t n = 0;
        if (!isalpha((unsigned char)*s)) {
            snprintf(err, err_len, "'%.20s' is not an opcode", s);
            return -1;
        }
        while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
        if (n >= sizeof r->ops[0].name || (s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != ';')) {
            snprintf(err, err_len, "'%.20s' is not an opcode", s);
            return -1;
        }
        if (r->nops == PLY_EPD_OPS_MAX) {
            snprintf(err, err_len, "more than %d operations", PLY_EPD_OPS_MAX);
            return -1;
        }
        ply_epd_op_t *op = &r->ops[r->nops];
        memcpy(op->name, s, n);
        op->name[n] = '\0';
        s = skip_blanks(s + n);
        /* operands up to ';' outside quotes; quotes removed */
        char *val = malloc(strlen(s) + 1);
        if (!val) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        size_t o = 0;
        int quote = 0;
        for (; *s && (quote || *s != ';'); s++) {
            if (*s == '"')
                quote = !quote;
            else
                val[o++] = *s;
        }
        while (o && (val[o - 1] == ' ' || val[o - 1] == '\t')) o--;
        val[o] = '\0';
        op->value = val;
        r->nops++;
        if (quote) {
            snprintf(err, err_len, "opcode %s: unterminated quote", op->name);
            return -1;
        }
    }
}

static void rec_free(ply_epd_rec_t *r)
{
    free(r->fen);
    for (int i = 0; i < r->nops; i++) free(r->ops[i].value);
}

ply_epd_file_t *ply_epd_file_load(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    ply_epd_file_t *out = calloc(1, sizeof *out);
    size_t cap = 0;
    char *buf = malloc(EPD_LINE_MAX + 2);
    int line_no = 0, ok = out && buf;
    if (!ok) snprintf(why, why_len, "out of memory");
    while (ok && fgets(buf, EPD_LINE_MAX + 2, f)) {
        line_no++;
        size_t len = strlen(buf);
        if (len > EPD_LINE_MAX && buf[len - 1] != '\n') {
            snprintf(why, why_len, "%s:%d: line longer than %d bytes", path, line_no, EPD_LINE_MAX);
            ok = 0;
            break;
        }
        buf[strcspn(buf, "\r\n")] = '\0';
        const char *t = skip_blanks(buf);
        if (!*t || *t == '#') continue;
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            ply_epd_rec_t *g = realloc(out->recs, cap * sizeof *g);
            if (!g) {
                snprintf(why, why_len, "out of memory");
                ok = 0;
                break;
            }
            out->recs = g;
        }
        ply_epd_rec_t *r = &out->recs[out->n];
        memset(r, 0, sizeof *r);
        r->line_no = line_no;
        char err[160];
        const char *rest = read_fen(t, r);
        if (!rest) {
            snprintf(why, why_len, "%s:%d: fewer than four FEN fields", path, line_no);
            ok = 0;
        } else if (read_ops(rest, r, err, sizeof err) < 0) {
            snprintf(why, why_len, "%s:%d: %s", path, line_no, err);
            ok = 0;
        }
        if (!ok) {
            rec_free(r);
            break;
        }
        out->n++;
    }
    if (ok && out->n == 0) {
        snprintf(why, why_len, "%s: no positions", path);
        ok = 0;
    }
    fclose(f);
    free(buf);
    if (!ok) ply_epd_file_free(&out);
    return out;
}

void ply_epd_file_free(ply_epd_file_t **f)
{
    if (!f || !*f) return;
    for (size_t i = 0; i < (*f)->n; i++) rec_free(&(*f)->recs[i]);
    free((*f)->recs);
    free(*f);
    *f = NULL;
}

const char *ply_epd_op(const ply_epd_rec_t *r, const char *name)
{
    for (int i = 0; r && i < r->nops; i++)
        if (!strcmp(r->ops[i].name, name)) return r->ops[i].value;
    return NULL;
}
