/*
 * PGN for the arbiter: the game value and its storage, a streaming reader
 * and the export-format writer (see pgn.h for the contract).
 *
 * Reading is a character-level scanner over a 64 KiB buffer: no line or
 * token is ever longer in memory than its own cap, whatever the file holds,
 * and only the current game is kept. Strings of a game live in chunks that
 * are never moved, so pointers handed out stay valid until the game is
 * cleared; the total a game may hold (text plus element and tag records) is
 * capped at PLY_PGN_GAME_MAX, which bounds the reader's memory.
 *
 * Recovery after a broken game: skip to the first tag line that does not
 * follow another tag line (a new tag section). An unclosed "{" is the one
 * fault that would otherwise swallow every later game, so inside a comment a
 * line that is exactly a tag pair ends the comment as an error and is read
 * again as the start of the next game.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arbiter/pgn.h"
#include "arbiter/san.h"
#include "util/error.h"

#define CHUNK_SIZE    (64u << 10)
#define TOKEN_MAX     255
#define TAG_VALUE_MAX 8192
#define LINE_PEEK_MAX 1024
#define READ_BUF      (64u << 10)

/* ------------------------------------------------------------------ storage */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk_t;

struct ply__pgn_store {
    chunk_t *chunks; /* the newest first */
    size_t bytes;    /* text, element and tag bytes of the game, for the cap */
    size_t cap_tags, cap_elems;
    int depth; /* variation depth reached by the elements added */
};

ply_pgn_game_t *ply_pgn_game_new(void)
{
    ply_pgn_game_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->store = calloc(1, sizeof *g->store);
    if (!g->store) {
        free(g);
        return NULL;
    }
    return g;
}

void ply_pgn_game_destroy(ply_pgn_game_t **gp)
{
    if (!gp || !*gp) return;
    ply_pgn_game_t *g = *gp;
    for (chunk_t *c = g->store->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(g->store);
    free(g->tags);
    free(g->elems);
    free(g);
    *gp = NULL;
}

void ply_pgn_game_clear(ply_pgn_game_t *g)
{
    struct ply__pgn_store *s = g->store;
    /* Keep one ordinary chunk for the next game; give back the rest so that
     * one huge game does not pin its memory for the rest of the file. */
    chunk_t *keep = NULL;
    for (chunk_t *c = s->chunks, *next; c; c = next) {
        next = c->next;
        if (!keep && c->cap == CHUNK_SIZE) {
            keep = c;
            keep->next = NULL;
            keep->used = 0;
        } else {
            free(c);
        }
    }
    s->chunks = keep;
    s->bytes = 0;
    s->depth = 0;
    g->ntags = g->nelems = 0;
    g->result = NULL;
    g->result_line = 0;
    g->number = 0;
    g->line = 0;
}

/* Copy @n bytes of @text (plus a NUL) into the game; NULL when out of memory
 * or over the cap. */
static const char *store_text(ply_pgn_game_t *g, const char *text, size_t n)
{
    struct ply__pgn_store *s = g->store;
    if (s->bytes + n + 1 > PLY_PGN_GAME_MAX) return NULL;
    chunk_t *c = s->chunks;
    if (!c || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > CHUNK_SIZE ? n + 1 : CHUNK_SIZE;
        c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = s->chunks;
        s->chunks = c;
    }
    char *out = c->data + c->used;
    if (n) memcpy(out, text, n); /* text may be NULL when empty */
    out[n] = 0;
    c->used += n + 1;
    s->bytes += n + 1;
    return out;
}

/* Make room for one more record of @size bytes in *@arr (count @n, capacity
 * *@cap), counted against the game's cap. */
static int reserve(ply_pgn_game_t *g, void **arr, size_t n, size_t *cap, size_t size)
{
    if (g->store->bytes + size > PLY_PGN_GAME_MAX) return PLY_ENOMEM;
    if (n < *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * size);
    if (!p) return PLY_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

static int valid_tag_name(const char *name)
{
    if (!name || !*name) return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return 0;
    return 1;
}

/* Append a tag (no replacement): the reader keeps every tag as read. */
static int append_tag(ply_pgn_game_t *g, const char *name, size_t nn, const char *value, size_t nv)
{
    void *arr = g->tags;
    if (reserve(g, &arr, g->ntags, &g->store->cap_tags, sizeof *g->tags)) return PLY_ENOMEM;
    g->tags = arr;
    const char *n = store_text(g, name, nn), *v = n ? store_text(g, value, nv) : NULL;
    if (!v) return PLY_ENOMEM;
    g->tags[g->ntags++] = (ply_pgn_tag_t){n, v};
    g->store->bytes += sizeof *g->tags;
    return 0;
}

int ply_pgn_game_set_tag(ply_pgn_game_t *g, const char *name, const char *value)
{
    if (!g || !valid_tag_name(name) || !value) return PLY_EINVAL;
    for (size_t i = 0; i < g->ntags; i++)
        if (!strcmp(g->tags[i].name, name)) {
            const char *v = store_text(g, value, strlen(value));
            if (!v) return PLY_ENOMEM;
            g->tags[i].value = v;
            return 0;
        }
    return append_tag(g, name, strlen(name), value, strlen(value));
}

const char *ply_pgn_game_tag(const ply_pgn_game_t *g, const char *name)
{
    if (!g || !name) return NULL;
    for (size_t i = 0; i < g->ntags; i++)
        if (!strcmp(g->tags[i].name, name)) return g->tags[i].value;
    return NULL;
}

static int add_elem(ply_pgn_game_t *g, ply_pgn_kind_t kind, const char *text, size_t n, int nag,
                    long line)
{
    struct ply__pgn_store *s = g->store;
    if (kind == PLY_PGN_VAR_END && s->depth == 0) return PLY_EINVAL;
    if (kind == PLY_PGN_VAR_START && s->depth >= PLY_PGN_DEPTH_MAX) return PLY_EINVAL;
    void *arr = g->elems;
    if (reserve(g, &arr, g->nelems, &s->cap_elems, sizeof *g->elems)) return PLY_ENOMEM;
    g->elems = arr;
    const char *t = text ? store_text(g, text, n) : "";
    if (!t) return PLY_ENOMEM;
    if (kind == PLY_PGN_VAR_END) s->depth--;
    g->elems[g->nelems++] = (ply_pgn_elem_t){kind, s->depth, nag, line, t};
    if (kind == PLY_PGN_VAR_START) s->depth++;
    s->bytes += sizeof *g->elems;
    return 0;
}

int ply_pgn_game_add(ply_pgn_game_t *g, ply_pgn_kind_t kind, const char *text, int nag)
{
    if (!g) return PLY_EINVAL;
    switch (kind) {
    case PLY_PGN_MOVE:
    case PLY_PGN_COMMENT:
    case PLY_PGN_LINE_COMMENT:
        if (!text) return PLY_EINVAL;
        if (kind == PLY_PGN_COMMENT && strchr(text, '}')) return PLY_EINVAL;
        if (kind == PLY_PGN_LINE_COMMENT && strchr(text, '\n')) return PLY_EINVAL;
        return add_elem(g, kind, text, strlen(text), 0, 0);
    case PLY_PGN_NAG:
        if (nag < 0 || nag > 255) return PLY_EINVAL;
        return add_elem(g, kind, NULL, 0, nag, 0);
    case PLY_PGN_VAR_START:
    case PLY_PGN_VAR_END:
        return add_elem(g, kind, NULL, 0, 0, 0);
    }
    return PLY_EINVAL;
}

static const char *canonical_result(const char *r)
{
    static const char *const results[] = {"1-0", "0-1", "1/2-1/2", "*"};
    for (int i = 0; i < 4; i++)
        if (r && !strcmp(r, results[i])) return results[i];
    return NULL;
}

int ply_pgn_game_set_result(ply_pgn_game_t *g, const char *result)
{
    const char *r = canonical_result(result);
    if (!g || !r) return PLY_EINVAL;
    g->result = r;
    return 0;
}

/* ------------------------------------------------------------------ writer */

typedef struct writer {
    FILE *out;
    int col;
    int glue; /* no space before the next token: it follows "(" */
} writer_t;

#define LINE_MAX_COLS 79 /* export format's line length (PGN 8.2.3: "about 80") */

/* Room for @len more characters on the current line, breaking it first when they would pass
 * column 79 (a token longer than a line goes out whole); then the space before them unless
 * @glue. */
static void make_room(writer_t *w, size_t len, int glue)
{
    if (w->col > 0 && w->col + 1 + (int)len > LINE_MAX_COLS) {
        fputc('\n', w->out);
        w->col = 0;
    } else if (w->col > 0 && !glue) {
        fputc(' ', w->out);
        w->col++;
    }
}

/* One token (@pre, then @n bytes of @tok, then @post, each may be empty) on the
 * current line, or on a new line if it would pass column 79. Export format puts no space
 * after "(" nor before ")" (PGN 8.2.5). */
static void emit_parts(writer_t *w, const char *pre, const char *tok, size_t n, const char *post)
{
    size_t len = strlen(pre) + n + strlen(post);
    int glue = w->glue || (len == 1 && n == 1 && tok[0] == ')');
    w->glue = len == 1 && n == 1 && tok[0] == '(';
    make_room(w, len, glue);
    fputs(pre, w->out);
    fwrite(tok, 1, n, w->out);
    fputs(post, w->out);
    w->col += (int)len;
}

static void emit(writer_t *w, const char *tok, size_t n)
{
    emit_parts(w, "", tok, n, "");
}

static void newline(writer_t *w)
{
    if (w->col > 0) fputc('\n', w->out);
    w->col = 0;
}

static int line_end(char c)
{
    return c == '\n' || c == '\r';
}

/* The end of the comment word that starts at @text[@i]: the next space where a line may be
 * broken (see emit_comment), or the text's end. A command is "[%" up to the next ']', when
 * there is one in the text (@close: one past the last ']' of the text, 0 if none); a "[%"
 * that no ']' closes is plain text. A break point is never inside a command, so a word
 * starts outside one. */
static size_t word_end(const char *text, size_t i, size_t close)
{
    int in_command = 0;
    for (; text[i]; i++) {
        if (text[i] == '[' && text[i + 1] == '%' && i < close)
            in_command = 1;
        else if (text[i] == ']')
            in_command = 0;
        if (in_command || (text[i] != ' ' && !line_end(text[i]))) continue;
        char next = text[i + 1];
        if (next != '%' && (next != '[' || text[i + 2] == '%')) return i;
    }
    return i;
}

/*
 * A brace comment, its text byte for byte: the writer may only turn one of its spaces into
 * a line end (which a reader reads back as that space). It breaks a line at a space between
 * words, never inside a [%...] command (the embedded commands of lichess and ChessBase:
 * readers that work line by line must see each one whole), nor before a '%' (a line that
 * starts with one is an escape line, PGN 6) or a '[' that does not open a command (a line
 * that looks like a tag pair ends an unclosed comment for tolerant readers). So a word
 * glued to a '%' word or a command after it is one unit; a unit longer than a line goes out
 * whole on a line of its own. A line end in @text (a game built in memory) is written as a
 * space. The comment is glued to a "(" before it; "(" and ")" inside the text are text,
 * spaced as written.
 */
static void emit_comment(writer_t *w, const char *text)
{
    size_t n = strlen(text), end;
    const char *last = strrchr(text, ']');
    size_t close = last ? (size_t)(last - text) + 1 : 0;
    for (size_t start = 0;; start = end + 1) {
        end = word_end(text, start, close);
        /* the word, with "{" before the first and "}" after the last */
        size_t len = (end - start) + (start == 0) + (end == n);
        if (start == 0) {
            make_room(w, len, w->glue);
            w->glue = 0;
            fputc('{', w->out);
        } else if (w->col + 1 + (int)len > LINE_MAX_COLS) { /* the space becomes a line end */
            fputc('\n', w->out);
            w->col = 0;
        } else {
            fputc(' ', w->out);
            w->col++;
        }
        for (size_t k = start; k < end; k++) fputc(line_end(text[k]) ? ' ' : text[k], w->out);
        if (end == n) fputc('}', w->out);
        w->col += (int)len;
        if (end == n) break;
    }
}

/*
 * A rest-of-line comment: ';' and its text byte for byte (white space included, none added)
 * to the end of its line. One that cannot fit on a line of 79 characters becomes a brace
 * comment of the same text (wrapped as emit_comment does), unless it holds a '}', which a
 * brace comment cannot (PGN 8.2.5); then it is split into several rest-of-line comments,
 * each on its own line, at single spaces that are dropped: the pieces joined with one space
 * between them give the text back, and each piece read back is written alone as it is, so
 * the export of the export is the same. A piece is as long as fits (78 characters after its
 * ';') and ends at a space that is neither its first character nor the text's last; with
 * no such space within reach, at the first one after it; with none at all, it is the rest
 * of the text (longer than a line).
 */
static void emit_line_comment(writer_t *w, const char *text)
{
    const size_t room = LINE_MAX_COLS - 1, n = strlen(text);
    if (n > room && !strchr(text, '}')) {
        emit_comment(w, text);
        return;
    }
    for (size_t start = 0;;) {
        size_t end = n;
        for (size_t k = start + 1; n - start > room && k + 1 < n; k++) {
            if (text[k] != ' ') continue;
            if (k - start > room && end != n) break; /* the last space within reach */
            end = k;
            if (k - start > room) break; /* none within reach: the first after it */
        }
        make_room(w, 1 + (end - start), w->glue);
        w->glue = 0;
        fputc(';', w->out);
        fwrite(text + start, 1, end - start, w->out);
        w->col = 1; /* the comment ends its line */
        newline(w);
        if (end == n) break;
        start = end + 1; /* the space at the split is dropped */
    }
}

static void write_tag(FILE *out, const char *name, const char *value)
{
    fprintf(out, "[%s \"", name);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p == '\\' || *p == '"') fputc('\\', out);
        fputc(*p < 0x20 ? ' ' : *p, out); /* PGN 8.1: a tag value is one line */
    }
    fputs("\"]\n", out);
}

/* Side to move (0/1) and fullmove number at the game's start, from the FEN tag. */
static void start_numbering(const ply_pgn_game_t *g, int *side, long *fullmove)
{
    const char *fen = ply_pgn_game_tag(g, "FEN");
    *side = 0;
    *fullmove = 1;
    if (!fen) return;
    int field = 1;
    for (const char *p = fen; *p; p++) {
        if (*p != ' ' || p[1] == ' ' || !p[1]) continue;
        field++;
        if (field == 2) *side = p[1] == 'b';
        if (field == 6) {
            long v = strtol(p + 1, NULL, 10);
            if (v > 0 && v < 100000) *fullmove = v;
        }
    }
}

int ply_pgn_write(FILE *out, const ply_pgn_game_t *g)
{
    static const char *const roster[7] = {"Event", "Site",  "Date",  "Round",
                                          "White", "Black", "Result"};
    const char *result = g->result ? g->result : ply_pgn_game_tag(g, "Result");
    if (!canonical_result(result)) result = "*";
    for (int i = 0; i < 7; i++) {
        const char *v = ply_pgn_game_tag(g, roster[i]);
        if (i == 6) v = result; /* the tag must agree with the marker (PGN 8.1.1.7) */
        write_tag(out, roster[i], v ? v : i == 2 ? "????.??.??" : "?");
    }
    /* PGN 9.7.1: a FEN tag goes with SetUp "1", which precedes it; a SetUp tag of the game
     * is replaced by that one (or kept where it is when there is no FEN tag). */
    const char *fen = ply_pgn_game_tag(g, "FEN");
    for (size_t i = 0; i < g->ntags; i++) {
        int in_roster = 0;
        for (int k = 0; k < 7; k++) in_roster |= !strcmp(g->tags[i].name, roster[k]);
        if (in_roster || (fen && !strcmp(g->tags[i].name, "SetUp"))) continue;
        if (fen && !strcmp(g->tags[i].name, "FEN")) {
            if (g->tags[i].value != fen) continue; /* a second FEN tag: the first one rules */
            write_tag(out, "SetUp", "1");
        }
        write_tag(out, g->tags[i].name, g->tags[i].value);
    }
    fputc('\n', out);

    writer_t w = {out, 0, 0};
    int side0, stack[PLY_PGN_DEPTH_MAX + 1], depth = 0, need_number = 1;
    long full0, cur = 0; /* plies played on the current line */
    start_numbering(g, &side0, &full0);
    for (size_t i = 0; i < g->nelems; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        char num[32];
        switch (e->kind) {
        case PLY_PGN_MOVE: {
            long ply = side0 + cur;
            long move_no = full0 + ply / 2;
            if (ply % 2 == 0)
                emit(&w, num, (size_t)snprintf(num, sizeof num, "%ld.", move_no));
            else if (need_number)
                emit(&w, num, (size_t)snprintf(num, sizeof num, "%ld...", move_no));
            emit(&w, e->text, strlen(e->text));
            cur++;
            need_number = 0;
            break;
        }
        case PLY_PGN_COMMENT:
            emit_comment(&w, e->text);
            need_number = 1;
            break;
        case PLY_PGN_LINE_COMMENT:
            emit_line_comment(&w, e->text);
            need_number = 1;
            break;
        case PLY_PGN_NAG:
            emit(&w, num, (size_t)snprintf(num, sizeof num, "$%d", e->nag));
            need_number = 1;
            break;
        case PLY_PGN_VAR_START:
            /* A variation replaces the move before it: rewind one ply. */
            if (depth < PLY_PGN_DEPTH_MAX) stack[depth++] = (int)cur;
            if (cur > 0) cur--;
            emit(&w, "(", 1);
            need_number = 1;
            break;
        case PLY_PGN_VAR_END:
            if (depth > 0) cur = stack[--depth];
            emit(&w, ")", 1);
            need_number = 1;
            break;
        }
    }
    emit(&w, result, strlen(result));
    newline(&w);
    fputc('\n', out);
    return ferror(out) ? PLY_EIO : 0;
}

/* ------------------------------------------------------------------ reader */

struct ply_pgn_reader {
    FILE *in;
    int own;
    int io_error;
    size_t games;
    /* Input: a line pushed back first, then the file buffer. */
    unsigned char pend[LINE_PEEK_MAX + 1];
    size_t npend, ppend;
    unsigned char *buf;
    size_t pos, len;
    int eof, started;
    int peeked, has_peek;
    /* Where the next character is. */
    long line;
    int at_line_start, line_blank;
    ply_pgn_game_t *game;
    char *text; /* comment and tag value collection, TAG_VALUE_MAX or the game cap */
    size_t ntext, captext;
};

ply_pgn_reader_t *ply_pgn_reader_new(FILE *in)
{
    if (!in) return NULL;
    ply_pgn_reader_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->buf = malloc(READ_BUF);
    r->game = ply_pgn_game_new();
    if (!r->buf || !r->game) {
        ply_pgn_reader_destroy(&r);
        return NULL;
    }
    r->in = in;
    r->line = 1;
    r->at_line_start = r->line_blank = 1;
    return r;
}

ply_pgn_reader_t *ply_pgn_reader_open(const char *path, char *why, size_t why_len)
{
    if (!path) {
        if (why && why_len) snprintf(why, why_len, "no file given");
        return NULL;
    }
    int std = !strcmp(path, "-");
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f) {
        if (why && why_len) snprintf(why, why_len, "%s: cannot open: %m", path);
        return NULL;
    }
    ply_pgn_reader_t *r = ply_pgn_reader_new(f);
    if (!r) {
        if (!std) fclose(f);
        if (why && why_len) snprintf(why, why_len, "%s: out of memory", path);
        return NULL;
    }
    r->own = !std;
    return r;
}

void ply_pgn_reader_destroy(ply_pgn_reader_t **rp)
{
    if (!rp || !*rp) return;
    ply_pgn_reader_t *r = *rp;
    if (r->own && r->in) fclose(r->in);
    free(r->buf);
    free(r->text);
    ply_pgn_game_destroy(&r->game);
    free(r);
    *rp = NULL;
}

/* The next byte, or EOF; the pushed-back line first. */
static int raw(ply_pgn_reader_t *r)
{
    if (r->ppend < r->npend) return r->pend[r->ppend++];
    if (r->pos == r->len) {
        if (r->eof) return EOF;
        r->len = fread(r->buf, 1, READ_BUF, r->in);
        r->pos = 0;
        if (r->len == 0) {
            r->eof = 1;
            if (ferror(r->in)) r->io_error = 1;
            return EOF;
        }
        if (!r->started) {
            r->started = 1;
            /* A UTF-8 byte-order mark at the very start is not part of the text. */
            if (r->len >= 3 && r->buf[0] == 0xEF && r->buf[1] == 0xBB && r->buf[2] == 0xBF)
                r->pos = 3;
            if (r->pos == r->len) return raw(r);
        }
    }
    return r->buf[r->pos++];
}

static int peek(ply_pgn_reader_t *r)
{
    if (!r->has_peek) {
        r->peeked = raw(r);
        r->has_peek = 1;
    }
    return r->peeked;
}

static int get(ply_pgn_reader_t *r)
{
    int c = r->has_peek ? r->peeked : raw(r);
    r->has_peek = 0;
    if (c == '\n') {
        r->line++;
        r->at_line_start = r->line_blank = 1;
    } else if (c != EOF) {
        r->at_line_start = 0;
        if (c != ' ' && c != '\t' && c != '\r') r->line_blank = 0;
    }
    return c;
}

static void skip_line(ply_pgn_reader_t *r)
{
    int c;
    while ((c = get(r)) != EOF && c != '\n') {
    }
}

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Fault reporting: the message of the first fault of a game. */
typedef struct fault {
    long line;
    int in_tags;
    char why[200];
} fault_t;

static int fault(fault_t *f, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fault(fault_t *f, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->line = line;
    return PLY_EPARSE;
}

static const char *show_byte(int c, char *buf, size_t len)
{
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", (unsigned)c & 0xFF);
    return buf;
}

/* Collection buffer for comments and tag values. */
static int text_put(ply_pgn_reader_t *r, int c, size_t limit)
{
    if (r->ntext + 1 >= limit) return -1;
    if (r->ntext + 1 >= r->captext) {
        size_t cap = r->captext ? r->captext * 2 : 1024;
        if (cap > limit) cap = limit;
        char *t = realloc(r->text, cap);
        if (!t) return -1;
        r->text = t;
        r->captext = cap;
    }
    r->text[r->ntext++] = (char)c;
    return 0;
}

static int is_name_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* "[Name "value"]" on a line of its own (spaces around allowed). */
static int looks_like_tag_line(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i == n || s[i++] != '[') return 0;
    size_t name = i;
    while (i < n && is_name_char(s[i])) i++;
    if (i == name) return 0;
    while (i < n && s[i] == ' ') i++;
    if (i == n || s[i++] != '"') return 0;
    while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    if (i >= n) return 0;
    i++;
    while (i < n && s[i] == ' ') i++;
    if (i == n || s[i++] != ']') return 0;
    while (i < n && is_space(s[i])) i++;
    return i == n;
}

/* At the start of a line inside a comment: read the line and push it back;
 * 1 when it is a tag pair (the comment was never closed). */
static int tag_line_ahead(ply_pgn_reader_t *r)
{
    long line = r->line;
    size_t n = 0;
    int c = 0;
    if (r->ppend < r->npend) return 0; /* this line was looked at already */
    while (n < LINE_PEEK_MAX && (c = get(r)) != EOF) {
        r->pend[n++] = (unsigned char)c;
        if (c == '\n') break;
    }
    int tag = c != EOF && n < LINE_PEEK_MAX ? looks_like_tag_line(r->pend, n)
                                            : n < LINE_PEEK_MAX && looks_like_tag_line(r->pend, n);
    /* Read it again from the start: position and line as before. */
    r->npend = n;
    r->ppend = 0;
    r->line = line;
    r->at_line_start = r->line_blank = 1;
    return tag;
}

static int read_tag(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f)
{
    char name[TOKEN_MAX + 1], cb[16];
    size_t nn = 0;
    long line = r->line;
    int c;
    get(r); /* '[' */
    while ((c = peek(r)) == ' ' || c == '\t') get(r);
    while (is_name_char(peek(r))) {
        if (nn == TOKEN_MAX) return fault(f, line, "tag name too long");
        name[nn++] = (char)get(r);
    }
    name[nn] = 0;
    if (nn == 0) return fault(f, line, "tag pair without a name");
    while ((c = peek(r)) == ' ' || c == '\t') get(r);
    if (peek(r) != '"') return fault(f, line, "tag %s: the value must be in double quotes", name);
    get(r);
    r->ntext = 0;
    for (;;) {
        c = get(r);
        if (c == EOF || c == '\n' || c == '\r')
            return fault(f, line, "tag %s: value not closed on its line", name);
        if (c == '"') break;
        if (c == '\\' && (peek(r) == '"' || peek(r) == '\\')) c = get(r); /* PGN 7: \" and \\ */
        if (text_put(r, c, TAG_VALUE_MAX)) return fault(f, line, "tag %s: value too long", name);
    }
    while ((c = peek(r)) == ' ' || c == '\t') get(r);
    if ((c = get(r)) != ']')
        return fault(f, line, "tag %s: %s where ']' should close the tag pair", name,
                     c == EOF ? "end of file" : show_byte(c, cb, sizeof cb));
    if (append_tag(g, name, nn, r->text, r->ntext))
        return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    return 0;
}

static int read_comment(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f)
{
    long line = r->line;
    int c;
    get(r); /* '{' */
    r->ntext = 0;
    for (;;) {
        if (r->at_line_start && tag_line_ahead(r))
            return fault(f, line, "comment opened with '{' on line %ld is not closed", line);
        c = get(r);
        if (c == EOF)
            return fault(f, line, "comment opened with '{' on line %ld is not closed", line);
        if (c == '}') break;
        if (c == '\r' && peek(r) == '\n') continue; /* CRLF: one line end */
        if (c == '\r' || c == '\n') c = ' ';        /* a line end is a space of the text */
        if (text_put(r, c, PLY_PGN_GAME_MAX))
            return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    }
    if (add_elem(g, PLY_PGN_COMMENT, r->text, r->ntext, 0, line))
        return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    return 0;
}

static int read_line_comment(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f)
{
    long line = r->line;
    int c;
    get(r); /* ';' */
    r->ntext = 0;
    while ((c = peek(r)) != EOF && c != '\n') {
        get(r);
        if (text_put(r, c, PLY_PGN_GAME_MAX))
            return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    }
    /* The text byte for byte; the line end (LF, CRLF, or the end of the file) is not part
     * of it. */
    size_t n = r->ntext;
    if (n && r->text[n - 1] == '\r') n--;
    if (add_elem(g, PLY_PGN_LINE_COMMENT, r->text, n, 0, line))
        return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    return 0;
}

/* "!", "?", "!!", "??", "!?", "?!" as NAGs 1-6 (PGN 8.2.4, import format). */
static int read_suffix_nag(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f)
{
    static const char *const forms[6] = {"!", "?", "!!", "??", "!?", "?!"};
    char s[4];
    size_t n = 0;
    long line = r->line;
    while ((peek(r) == '!' || peek(r) == '?') && n < 3) s[n++] = (char)get(r);
    s[n] = 0;
    for (int i = 0; i < 6; i++)
        if (!strcmp(s, forms[i])) {
            if (add_elem(g, PLY_PGN_NAG, NULL, 0, i + 1, line))
                return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
            return 0;
        }
    return fault(f, line, "unknown annotation '%s'", s);
}

static int read_nag(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f)
{
    long line = r->line;
    int v = 0, digits = 0;
    get(r); /* '$' */
    while (peek(r) >= '0' && peek(r) <= '9') {
        v = v * 10 + (get(r) - '0');
        if (++digits > 3 || v > 255) return fault(f, line, "NAG out of range (PGN: $0 to $255)");
    }
    if (!digits) return fault(f, line, "'$' without a number");
    if (add_elem(g, PLY_PGN_NAG, NULL, 0, v, line))
        return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    return 0;
}

static int is_symbol_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c != EOF && strchr("_+#=:-/.", c)) || (c >= 0x80 && c <= 0xFF);
}

/* A symbol: result, move number, "e.p.", or a move. Returns 1 for a result. */
static int read_symbol(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f, long var_line)
{
    char tok[TOKEN_MAX + 1];
    size_t n = 0;
    long line = r->line;
    while (is_symbol_char(peek(r))) {
        if (n == TOKEN_MAX) return fault(f, line, "token too long");
        tok[n++] = (char)get(r);
    }
    tok[n] = 0;
    const char *result = canonical_result(tok);
    if (!result && !strcmp(tok, "\xC2\xBD-\xC2\xBD")) result = "1/2-1/2"; /* "½-½" */
    if (result) {
        if (g->store->depth > 0)
            return fault(f, line, "game result %s inside the variation opened on line %ld", tok,
                         var_line);
        g->result = result;
        g->result_line = line;
        return 1;
    }
    /* Move number indications: "12", "12.", "12...", glued "12.e4" / "12...e5". */
    size_t i = 0;
    while (i < n && tok[i] >= '0' && tok[i] <= '9') i++;
    if (i == n) return 0;
    const char *move = tok;
    if (i > 0 && tok[i] == '.') {
        while (tok[i] == '.') i++;
        if (i == n) return 0;
        move = tok + i;
    }
    if (!strcmp(move, "e.p.")) return 0; /* E.8's suffix, written apart from its move */
    if (add_elem(g, PLY_PGN_MOVE, move, strlen(move), 0, line))
        return fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX);
    return 0;
}

/* One game from the current position. Returns 1 (a game), 0 (nothing left)
 * or PLY_EPARSE with *@f filled. */
static int parse_game(ply_pgn_reader_t *r, ply_pgn_game_t *g, fault_t *f)
{
    long var_line[PLY_PGN_DEPTH_MAX + 1];
    int in_tags = 1, any = 0, c, rc;
    char cb[16];
    f->in_tags = 1;
    for (;;) {
        c = peek(r);
        if (c == EOF) break;
        if (r->at_line_start && c == '%') { /* PGN 6: escape line */
            skip_line(r);
            continue;
        }
        if (is_space(c)) {
            get(r);
            continue;
        }
        if (!any) {
            g->line = r->line;
            any = 1;
        }
        if (c == '[') {
            if (!in_tags && r->line_blank) break; /* the next game: this one had no marker */
            if (!in_tags) return fault(f, r->line, "'[' inside the movetext");
            if ((rc = read_tag(r, g, f))) return rc;
            continue;
        }
        in_tags = 0;
        f->in_tags = 0;
        long line = r->line;
        switch (c) {
        case '{':
            rc = read_comment(r, g, f);
            break;
        case ';':
            rc = read_line_comment(r, g, f);
            break;
        case '$':
            rc = read_nag(r, g, f);
            break;
        case '!':
        case '?':
            rc = read_suffix_nag(r, g, f);
            break;
        case '(':
            get(r);
            if (g->store->depth >= PLY_PGN_DEPTH_MAX)
                return fault(f, line, "variations nested deeper than %d", PLY_PGN_DEPTH_MAX);
            var_line[g->store->depth] = line;
            rc = add_elem(g, PLY_PGN_VAR_START, NULL, 0, 0, line)
                     ? fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX)
                     : 0;
            break;
        case ')':
            get(r);
            if (g->store->depth == 0) return fault(f, line, "')' without a '(' before it");
            rc = add_elem(g, PLY_PGN_VAR_END, NULL, 0, 0, line)
                     ? fault(f, line, "game too large (over %u bytes)", PLY_PGN_GAME_MAX)
                     : 0;
            break;
        case '*':
            get(r);
            if (g->store->depth > 0)
                return fault(f, line, "game result * inside the variation opened on line %ld",
                             var_line[g->store->depth - 1]);
            g->result = "*";
            g->result_line = line;
            return 1;
        default:
            if (!is_symbol_char(c))
                return fault(f, line, "unexpected %s in the movetext", show_byte(c, cb, sizeof cb));
            rc = read_symbol(r, g, f, g->store->depth ? var_line[g->store->depth - 1] : 0);
            if (rc == 1) return 1;
        }
        if (rc) return rc;
    }
    if (g->store->depth > 0)
        return fault(f, var_line[g->store->depth - 1],
                     "variation opened with '(' on line %ld is not closed",
                     var_line[g->store->depth - 1]);
    return any ? 1 : 0;
}

/* After a fault: skip to a tag line that does not follow a tag line. */
static void skip_game(ply_pgn_reader_t *r, int in_tags)
{
    enum { BLANK, TAG, OTHER } prev = in_tags ? TAG : OTHER;
    if (!r->at_line_start) skip_line(r);
    for (;;) {
        int c;
        while ((c = peek(r)) == ' ' || c == '\t' || c == '\r') get(r);
        if (c == EOF) return;
        if (c == '[' && prev != TAG) return;
        prev = c == '\n' ? BLANK : c == '[' ? TAG : OTHER;
        skip_line(r);
    }
}

int ply_pgn_read(ply_pgn_reader_t *r, const ply_pgn_game_t **game, ply_pgn_error_t *err)
{
    fault_t f = {0, 1, ""};
    if (!r || !game) return PLY_EINVAL;
    ply_pgn_game_t *g = r->game;
    ply_pgn_game_clear(g);
    g->number = r->games + 1;
    int rc = parse_game(r, g, &f);
    if (r->io_error) return PLY_EIO;
    if (rc == 0) return 0;
    r->games++;
    if (rc == 1) {
        *game = g;
        return 1;
    }
    if (err) {
        err->game = r->games;
        err->line = f.line;
        snprintf(err->why, sizeof err->why, "%s", f.why);
    }
    skip_game(r, f.in_tags);
    return r->io_error ? PLY_EIO : PLY_EPARSE;
}

/* --------------------------------------------------------- start positions */

static int is_chess960_variant(const char *v)
{
    static const char *const names[] = {"chess960",       "chess 960", "fischerandom",
                                        "fischer random", "chess-960", "960"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcasecmp(v, names[i])) return 1;
    return 0;
}

int ply_pgn_game_start(const ply_pgn_game_t *g, ply_arb_pos_t *pos, char *why, size_t why_len)
{
    char reason[160];
    if (!g || !pos) return PLY_EINVAL;
    const char *variant = ply_pgn_game_tag(g, "Variant");
    const char *fen = ply_pgn_game_tag(g, "FEN");
    const char *setup = ply_pgn_game_tag(g, "SetUp");
    unsigned flags = 0;
    if (variant && *variant) {
        if (is_chess960_variant(variant))
            flags = PLY_ARB_CHESS960;
        else if (strcasecmp(variant, "standard") && strcasecmp(variant, "from position")) {
            if (why && why_len) snprintf(why, why_len, "unsupported variant '%.60s'", variant);
            return PLY_EINVAL;
        }
    }
    if (!fen) {
        if (setup && !strcmp(setup, "1")) {
            if (why && why_len) snprintf(why, why_len, "SetUp \"1\" but no FEN tag");
            return PLY_EINVAL;
        }
        fen = "startpos";
    }
    int rc = ply_arb_from_fen(pos, fen, flags, reason, sizeof reason);
    if (rc) {
        if (why && why_len) snprintf(why, why_len, "FEN tag: %s", reason);
        return rc;
    }
    pos->chess960 = flags ? 1 : pos->chess960;
    if (why && why_len) why[0] = 0;
    return 0;
}

int ply_arb_pgn_position(const char *path, size_t game, int ply, char *fen, size_t fen_len,
                         int *chess960, char *why, size_t why_len)
{
    char reason[400] = "";
    if (!path || !fen || game == 0 || ply < 0) {
        if (why && why_len) snprintf(why, why_len, "bad arguments");
        return PLY_EINVAL;
    }
    ply_pgn_reader_t *r = ply_pgn_reader_open(path, reason, sizeof reason);
    if (!r) {
        if (why && why_len) snprintf(why, why_len, "%s", reason);
        return PLY_EIO;
    }
    const ply_pgn_game_t *g = NULL;
    ply_pgn_error_t err;
    size_t seen = 0;
    int rc;
    while ((rc = ply_pgn_read(r, &g, &err)) != 0) {
        if (rc == PLY_EIO) break;
        seen++;
        if (seen == game) break;
    }
    if (rc <= 0 || seen != game) {
        if (why && why_len) {
            if (rc == PLY_EIO)
                snprintf(why, why_len, "%s: read error", path);
            else if (rc == PLY_EPARSE)
                snprintf(why, why_len, "%s: game %zu (line %ld) cannot be read: %s", path, game,
                         err.line, err.why);
            else
                snprintf(why, why_len, "%s has %zu game%s, not %zu", path, seen,
                         seen == 1 ? "" : "s", game);
        }
        ply_pgn_reader_destroy(&r);
        return rc < 0 ? rc : PLY_ENOTFOUND;
    }

    ply_arb_pos_t pos;
    rc = ply_pgn_game_start(g, &pos, reason, sizeof reason);
    int played = 0;
    for (size_t i = 0; rc == 0 && i < g->nelems && played < ply; i++) {
        const ply_pgn_elem_t *e = &g->elems[i];
        if (e->kind != PLY_PGN_MOVE || e->depth != 0) continue;
        ply_arb_move_t m;
        char san_why[160];
        if (ply_arb_move_from_san(&pos, e->text, &m, san_why, sizeof san_why)) {
            snprintf(reason, sizeof reason, "game %zu, ply %d ('%.40s', line %ld): %s", game,
                     played + 1, e->text, e->line, san_why);
            rc = PLY_EILLEGAL;
            break;
        }
        ply_arb_make(&pos, m);
        played++;
    }
    if (rc == 0 && played < ply) {
        snprintf(reason, sizeof reason, "game %zu has %d pl%s, not %d", game, played,
                 played == 1 ? "y" : "ies", ply);
        rc = PLY_ENOTFOUND;
    }
    if (rc == 0) {
        rc = ply_arb_to_fen(&pos, fen, fen_len) < 0 ? PLY_ERANGE : 0;
        if (chess960) *chess960 = pos.chess960;
    }
    if (rc && why && why_len) snprintf(why, why_len, "%s", reason);
    ply_pgn_reader_destroy(&r);
    return rc;
}
