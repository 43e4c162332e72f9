/*
 * An external UCI engine behind pipes (see uci_client.h). The object owns a
 * private libuv loop: uv_spawn starts the engine (detached, so that it leads
 * a process group and a wrapper script's children can be killed with it),
 * uv_read_start collects its stdout and stderr into buffers, and every wait
 * runs the loop one iteration at a time under a timer until a whole line is
 * there, the engine is gone, or the silence limit passes.
 *
 * Limits that keep a hostile or broken engine harmless: a line keeps at most
 * LINE_MAX_BYTES (the rest of a longer one is dropped as it arrives, so a
 * long line costs no memory), at most BUF_MAX bytes wait unread, one
 * command may produce at most JUNK_MAX lines we do not recognise (and one
 * search at most INFO_MAX lines), and text means no control characters
 * other than tab and carriage return.
 */
#include "uci_client.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "util/error.h"
#include "util/time.h"

#define LINE_MAX_BYTES 4096
#define BUF_MAX        (1u << 20)
#define JUNK_MAX       20000
#define MAX_ARGS       64
#define QUIT_GRACE_MS  500
#define KILL_WAIT_MS   2000
#define EXIT_WAIT_MS   1000
#define INFO_MAX       10000000
#define OPTIONS_MAX    512
#define OPTION_NAME    64

/* An option as the engine offered it: "option name N type spin default D min A max B". */
struct engine_option {
    char name[OPTION_NAME];
    char type[8]; /* "spin", "check", "button", "combo", "string"; "" when unreadable */
    int has_range;
    long long min, max; /* of a spin */
};
#define CANCEL_POLL_MS 50

struct ply_uci_client {
    uv_loop_t loop;
    uv_process_t proc;
    uv_pipe_t in, out, err;
    uv_timer_t timer;
    int loop_ok, handles_ok, proc_init, spawned, exited;
    int64_t exit_status;
    int term_signal;
    int out_eof, write_error, flood;
    int cutting;  /* dropping the rest of an overlong line, up to its newline */
    int last_cut; /* the line take_line gave last was cut at LINE_MAX_BYTES */
    unsigned silence_ms;
    char *buf; /* stdout: bytes [off, len) are unread, cap allocated */
    size_t off, len, cap;
    char rbuf[65536];
    char err_line[160]; /* the last complete, non-empty stderr line */
    char err_cur[160];
    size_t err_len;
    char cmd[160];  /* the command line, for messages */
    char name[128]; /* "id name" */
    const atomic_int *cancel;
    int noptions;
    struct engine_option *options; /* what it offered, OPTIONS_MAX of them at most */
};

/* Copies @src into @dst for a one-line message: control bytes become '?'. */
static void printable(char *dst, size_t cap, const char *src, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[o++] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch; /* ASCII only: may be junk */
    }
    dst[o] = '\0';
}

/* ---- command line ----------------------------------------------------------------- */

/*
 * Splits @line into @argv (at most MAX_ARGS - 1 words, NULL-terminated) in the
 * writable copy @store: blanks separate, quotes group, backslash escapes.
 * Returns the word count, or -1 for an unterminated quote or too many words.
 */
static int split_words(const char *line, char *store, char **argv)
{
    int argc = 0;
    const char *s = line;
    char *o = store;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) break;
        if (argc == MAX_ARGS - 1) return -1;
        argv[argc++] = o;
        char quote = 0;
        while (*s && (quote || (*s != ' ' && *s != '\t'))) {
            if (quote && *s == quote) {
                quote = 0;
            } else if (!quote && (*s == '\'' || *s == '"')) {
                quote = *s;
            } else if (*s == '\\' && s[1] && quote != '\'') {
                *o++ = *++s;
            } else {
                *o++ = *s;
            }
            s++;
        }
        if (quote) return -1;
        *o++ = '\0';
    }
    argv[argc] = NULL;
    return argc;
}

/* ---- loop callbacks --------------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)suggested;
    ply_uci_client_t *e = h->data;
    *b = uv_buf_init(e->rbuf, sizeof e->rbuf);
}

/* Bytes at the end of the buffer after its last newline: the line still arriving. */
static size_t partial_len(const ply_uci_client_t *e)
{
    size_t n = 0;
    while (e->off + n < e->len && e->buf[e->len - 1 - n] != '\n') n++;
    return n;
}

/* Appends @n bytes of @p to the buffer; -1 (and e->flood) when it cannot. */
static int append_out(ply_uci_client_t *e, const char *p, size_t n)
{
    if (e->len + n > BUF_MAX) {
        e->flood = 1; /* the caller fails the command; drop the rest */
        return -1;
    }
    if (e->len + n + 1 > e->cap) {
        /* Grown by doubling: on_out appends line by line, and a flood of
         * short lines grown a line at a time copied the buffer for each
         * (quadratic; seconds per read under AddressSanitizer). */
        size_t cap = e->cap ? e->cap : 4096;
        while (cap < e->len + n + 1) cap *= 2;
        char *grown = realloc(e->buf, cap);
        if (!grown) {
            e->flood = 1;
            return -1;
        }
        e->buf = grown;
        e->cap = cap;
    }
    memcpy(e->buf + e->len, p, n);
    e->len += n;
    return 0;
}

/*
 * Collects stdout. A line longer than LINE_MAX_BYTES keeps its first
 * LINE_MAX_BYTES + 1 bytes (one more than a whole line may have, which is how
 * take_line knows it was cut) and the rest, up to its newline, is dropped
 * as it arrives: an engine may print a long info line without flooding us.
 */
static void on_out(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    ply_uci_client_t *e = s->data;
    if (n < 0) {
        e->out_eof = 1;
        uv_read_stop(s);
        return;
    }
    if (e->off) { /* drop what was read, here rather than once per line */
        memmove(e->buf, e->buf + e->off, e->len - e->off);
        e->len -= e->off;
        e->off = 0;
    }
    const char *p = b->base, *end = b->base + n;
    while (p < end && !e->flood) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (e->cutting) { /* the tail of an overlong line */
            if (!nl) return;
            e->cutting = 0;
            p = nl;
        }
        size_t take = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        size_t room = LINE_MAX_BYTES + 1 - partial_len(e);
        if (take > room && !(nl && (size_t)(nl - p) <= room)) {
            take = room;
            e->cutting = 1;
        }
        if (append_out(e, p, take) < 0) return;
        p += take;
    }
}

/* Keeps only the last non-empty stderr line, for error messages. */
static void on_err(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    ply_uci_client_t *e = s->data;
    if (n < 0) {
        uv_read_stop(s);
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        char ch = b->base[i];
        if (ch == '\n') {
            if (e->err_len) printable(e->err_line, sizeof e->err_line, e->err_cur, e->err_len);
            e->err_len = 0;
        } else if (ch != '\r' && e->err_len + 1 < sizeof e->err_cur) {
            e->err_cur[e->err_len++] = ch;
        }
    }
}

static void on_exit_cb(uv_process_t *p, int64_t status, int signum)
{
    ply_uci_client_t *e = p->data;
    e->exited = 1;
    e->exit_status = status;
    e->term_signal = signum;
}

static void on_write(uv_write_t *req, int status)
{
    ply_uci_client_t *e = req->handle->data;
    if (status < 0) e->write_error = status;
    free(req->data);
    free(req);
}

static void on_timer(uv_timer_t *t)
{
    (void)t; /* only wakes uv_run */
}

/* Runs the loop once, for at most @ms milliseconds. */
static void run_once(ply_uci_client_t *e, uint64_t ms)
{
    uv_timer_start(&e->timer, on_timer, ms ? ms : 1, 0);
    uv_run(&e->loop, UV_RUN_ONCE);
    uv_timer_stop(&e->timer);
}

static void wait_exit(ply_uci_client_t *e, unsigned ms)
{
    uint64_t deadline = ply_time_ms() + ms;
    while (e->spawned && !e->exited) {
        uint64_t now = ply_time_ms();
        if (now >= deadline) break;
        run_once(e, deadline - now);
    }
}

/* "engine 'sf' exited with status 1; stderr: ..." after a short wait for the exit. */
static void describe_gone(ply_uci_client_t *e, const char *doing, char *why, size_t why_len)
{
    wait_exit(e, EXIT_WAIT_MS);
    char how[64];
    if (e->exited && e->term_signal)
        snprintf(how, sizeof how, "was killed by signal %d", e->term_signal);
    else if (e->exited)
        snprintf(how, sizeof how, "exited with status %" PRId64, e->exit_status);
    else
        snprintf(how, sizeof how, "closed its output");
    if (e->err_len) printable(e->err_line, sizeof e->err_line, e->err_cur, e->err_len);
    ply_why(why, why_len, 0, "engine '%s' %s %s%s%s", e->cmd, how, doing,
            e->err_line[0] ? "; its stderr: " : "", e->err_line);
}

/* ---- lines ---------------------------------------------------------------------- */

/*
 * Takes one line (without "\r\n") into @line. A line that was longer than
 * LINE_MAX_BYTES (on_out kept its head) is given up to its last blank
 * within the limit, so that every word it keeps is whole, and e->last_cut
 * says so. Returns 1, 0 when no whole line is buffered, or PLY_EPARSE
 * (reason in @why) for output that is not text.
 */
static int take_line(ply_uci_client_t *e, char line[static LINE_MAX_BYTES + 1], char *why,
                     size_t why_len)
{
    if (e->flood) {
        ply_why(why, why_len, 0, "engine '%s' flooded its output (over %u bytes unread at once)",
                e->cmd, BUF_MAX);
        return PLY_EPARSE;
    }
    char *start = e->buf + e->off;
    size_t avail = e->len - e->off;
    char *nl = avail ? memchr(start, '\n', avail) : NULL;
    if (!nl) return 0;
    size_t n = (size_t)(nl - start), keep = n;
    e->last_cut = n > LINE_MAX_BYTES;
    if (e->last_cut) {
        keep = LINE_MAX_BYTES;
        while (keep && start[keep] != ' ' && start[keep] != '\t') keep--; /* a word may go on */
    } else if (keep && start[keep - 1] == '\r') {
        keep--;
    }
    for (size_t i = 0; i < keep; i++) {
        unsigned char ch = (unsigned char)start[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
            char shown[64];
            printable(shown, sizeof shown, start, keep < 40 ? keep : 40);
            ply_why(why, why_len, 0, "engine '%s' printed binary data (byte 0x%02x in \"%s\")",
                    e->cmd, ch, shown);
            return PLY_EPARSE;
        }
    }
    memcpy(line, start, keep);
    line[keep] = '\0';
    e->off += n + 1;
    if (e->off == e->len) e->off = e->len = 0;
    return 1;
}

/*
 * Waits for the next line until the absolute time @deadline (ply_time_ms).
 * @doing says what we wait for, for messages ("before uciok"); @hard: the
 * deadline is a time limit rather than the silence limit (the message says
 * which). Returns 0, PLY_EPARSE, PLY_EIO (engine gone), PLY_ETIMEDOUT or
 * PLY_ECANCELED.
 */
static int wait_line_at(ply_uci_client_t *e, char line[static LINE_MAX_BYTES + 1],
                        const char *doing, uint64_t deadline, int hard, char *why, size_t why_len)
{
    uint64_t drain_until = 0;
    for (;;) {
        int r = take_line(e, line, why, why_len);
        if (r) return r < 0 ? r : 0;
        uint64_t now = ply_time_ms();
        /* after an exit, what it wrote last may still be in the pipe: drain a moment */
        if (e->exited && !e->out_eof && !drain_until) drain_until = now + 200;
        if (e->out_eof || e->write_error || (drain_until && now >= drain_until)) {
            describe_gone(e, doing, why, why_len);
            return PLY_EIO;
        }
        if (e->cancel && *e->cancel)
            return ply_why(why, why_len, PLY_ECANCELED, "interrupted %s", doing);
        if (now >= deadline) {
            if (hard)
                ply_why(why, why_len, 0, "engine '%s' did not finish in time %s", e->cmd, doing);
            else if (e->cutting)
                ply_why(why, why_len, 0, "engine '%s' printed a line with no end for %.3g s %s",
                        e->cmd, e->silence_ms / 1000.0, doing);
            else
                ply_why(why, why_len, 0, "engine '%s' silent for %.3g s %s", e->cmd,
                        e->silence_ms / 1000.0, doing);
            return PLY_ETIMEDOUT;
        }
        uint64_t until = drain_until ? drain_until : deadline;
        if (e->cancel && until - now > CANCEL_POLL_MS) until = now + CANCEL_POLL_MS;
        run_once(e, until - now);
    }
}

/* Waits for the next line for at most the silence limit. */
static int wait_line(ply_uci_client_t *e, char line[static LINE_MAX_BYTES + 1], const char *doing,
                     char *why, size_t why_len)
{
    return wait_line_at(e, line, doing, ply_time_ms() + e->silence_ms, 0, why, why_len);
}

static int send_line(ply_uci_client_t *e, const char *text, char *why, size_t why_len)
{
    size_t n = strlen(text);
    char *copy = malloc(n + 2);
    uv_write_t *req = malloc(sizeof *req);
    if (!copy || !req) {
        free(copy);
        free(req);
        ply_why(why, why_len, 0, "out of memory");
        return PLY_ENOMEM;
    }
    memcpy(copy, text, n);
    copy[n] = '\n';
    req->data = copy;
    uv_buf_t b = uv_buf_init(copy, (unsigned)(n + 1));
    int r = e->write_error ? e->write_error : uv_write(req, (uv_stream_t *)&e->in, &b, 1, on_write);
    if (r < 0) {
        free(copy);
        free(req);
        describe_gone(e, "(it does not read its input)", why, why_len);
        return PLY_EIO;
    }
    return 0;
}

/* ---- start and stop ---------------------------------------------------------------- */

static int spawn_engine(ply_uci_client_t *e, const char *cmdline, char *why, size_t why_len)
{
    char *store = malloc(strlen(cmdline) + 1);
    char *argv[MAX_ARGS];
    int argc = store ? split_words(cmdline, store, argv) : -1;
    if (argc <= 0) {
        free(store);
        ply_why(why, why_len, 0,
                "engine command \"%s\" is empty, has an open quote or over %d words", e->cmd,
                MAX_ARGS - 1);
        return PLY_EINVAL;
    }
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    stdio[0].data.stream = (uv_stream_t *)&e->in;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&e->out;
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *)&e->err;
    uv_process_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.file = argv[0];
    opt.args = argv;
    opt.exit_cb = on_exit_cb;
    opt.stdio = stdio;
    opt.stdio_count = 3;
    /* its own session and process group: destroy kills a wrapper's children too */
    opt.flags = UV_PROCESS_DETACHED;
    e->proc.data = e;
    e->proc_init = 1;
    int r = uv_spawn(&e->loop, &e->proc, &opt);
    free(store);
    if (r != 0) {
        /* uv_spawn leaves an initialised handle, closed with the others */
        ply_why(why, why_len, 0, "cannot start engine '%s': %s", e->cmd, uv_strerror(r));
        return PLY_EIO;
    }
    e->spawned = 1;
    uv_read_start((uv_stream_t *)&e->out, on_alloc, on_out);
    uv_read_start((uv_stream_t *)&e->err, on_alloc, on_err);
    return 0;
}

/* Keeps "option name NAME type T [min A max B]" (NAME may hold blanks). */
static void keep_option(ply_uci_client_t *e, const char *rest)
{
    const char *type = strstr(rest, " type ");
    size_t n = type ? (size_t)(type - rest) : 0;
    if (!n || n >= OPTION_NAME || e->noptions == OPTIONS_MAX) return;
    if (!e->options && !(e->options = calloc(OPTIONS_MAX, sizeof *e->options))) return;
    struct engine_option *o = &e->options[e->noptions++];
    printable(o->name, OPTION_NAME, rest, n);
    if (sscanf(type + 6, "%7s", o->type) != 1) o->type[0] = '\0';
    const char *mn = strstr(type, " min "), *mx = strstr(type, " max ");
    o->has_range = mn && mx && sscanf(mn + 5, "%lld", &o->min) == 1 &&
                   sscanf(mx + 5, "%lld", &o->max) == 1 && o->min <= o->max;
}

static const struct engine_option *find_option(const ply_uci_client_t *e, const char *name)
{
    for (int i = 0; e && name && i < e->noptions; i++)
        if (!strcasecmp(e->options[i].name, name)) return &e->options[i];
    return NULL;
}

/* Checks @value against what the engine said the option takes (engines such
 * as Stockfish silently clamp or ignore a bad value, so the user would never
 * know). Returns 0 or PLY_EINVAL with the reason. */
static int check_option_value(const ply_uci_client_t *e, const struct engine_option *o,
                              const char *value, char *why, size_t why_len)
{
    if (!strcmp(o->type, "button")) {
        if (value)
            return ply_why(why, why_len, PLY_EINVAL,
                           "option '%s' of engine '%s' is a button: give it without a value",
                           o->name, e->cmd);
        return 0;
    }
    if (!value)
        return ply_why(why, why_len, PLY_EINVAL, "option '%s' of engine '%s' needs a value",
                       o->name, e->cmd);
    if (!strcmp(o->type, "check") && strcmp(value, "true") && strcmp(value, "false"))
        return ply_why(why, why_len, PLY_EINVAL,
                       "option '%s' of engine '%s' is true or false, not '%s'", o->name, e->cmd,
                       value);
    if (!strcmp(o->type, "spin")) {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (end == value || *end || errno)
            return ply_why(why, why_len, PLY_EINVAL,
                           "option '%s' of engine '%s' is a whole number, not '%s'", o->name,
                           e->cmd, value);
        if (o->has_range && (v < o->min || v > o->max))
            return ply_why(why, why_len, PLY_EINVAL,
                           "option '%s' of engine '%s' takes %lld..%lld, not %lld", o->name, e->cmd,
                           o->min, o->max, v);
    }
    return 0;
}

/* Sends "uci" and reads until "uciok", keeping "id name" and the option names. */
static int handshake(ply_uci_client_t *e, char *why, size_t why_len)
{
    int r = send_line(e, "uci", why, why_len);
    char line[LINE_MAX_BYTES + 1];
    for (int junk = 0; r == 0; junk++) {
        r = wait_line(e, line, "before answering 'uci' with 'uciok'", why, why_len);
        if (r < 0) return r;
        if (!strcmp(line, "uciok")) return 0;
        if (!strncmp(line, "id name ", 8))
            printable(e->name, sizeof e->name, line + 8, strlen(line + 8));
        if (!strncmp(line, "option name ", 12)) keep_option(e, line + 12);
        if (junk > JUNK_MAX) {
            ply_why(why, why_len, 0, "engine '%s' printed %d lines without 'uciok'", e->cmd,
                    JUNK_MAX);
            return PLY_EPARSE;
        }
    }
    return r;
}

ply_uci_client_t *ply_uci_client_start(const char *cmdline, unsigned silence_ms, char *why,
                                       size_t why_len)
{
    if (!cmdline || !silence_ms) {
        ply_why(why, why_len, 0, "no engine command");
        return NULL;
    }
    ply_uci_client_t *e = calloc(1, sizeof *e);
    if (!e) {
        ply_why(why, why_len, 0, "out of memory");
        return NULL;
    }
    e->silence_ms = silence_ms;
    printable(e->cmd, sizeof e->cmd, cmdline, strlen(cmdline));
    if (uv_loop_init(&e->loop) != 0) {
        free(e);
        ply_why(why, why_len, 0, "cannot create an event loop");
        return NULL;
    }
    e->loop_ok = 1;
    uv_pipe_init(&e->loop, &e->in, 0);
    uv_pipe_init(&e->loop, &e->out, 0);
    uv_pipe_init(&e->loop, &e->err, 0);
    uv_timer_init(&e->loop, &e->timer);
    e->in.data = e->out.data = e->err.data = e->timer.data = e;
    e->handles_ok = 1;
    int r = spawn_engine(e, cmdline, why, why_len);
    if (r == 0) r = handshake(e, why, why_len);
    if (r < 0) {
        ply_uci_client_destroy(&e);
        return NULL;
    }
    return e;
}

int ply_uci_client_pid(const ply_uci_client_t *e)
{
    return e && e->spawned && !e->exited ? e->proc.pid : 0;
}

const char *ply_uci_client_name(const ply_uci_client_t *e)
{
    if (!e) return "";
    return e->name[0] ? e->name : e->cmd;
}

int ply_uci_client_sync(ply_uci_client_t *e, char *why, size_t why_len)
{
    if (!e) return PLY_EINVAL;
    int r = send_line(e, "isready", why, why_len);
    char line[LINE_MAX_BYTES + 1];
    for (int junk = 0; r == 0; junk++) {
        r = wait_line(e, line, "before answering 'isready' with 'readyok'", why, why_len);
        if (r == 0 && !strcmp(line, "readyok")) return 0;
        if (r == 0 && junk > JUNK_MAX) {
            ply_why(why, why_len, 0, "engine '%s' printed %d lines without 'readyok'", e->cmd,
                    JUNK_MAX);
            r = PLY_EPARSE;
        }
    }
    return r;
}

int ply_uci_client_set_chess960(ply_uci_client_t *e, int on, char *why, size_t why_len)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "setoption name UCI_Chess960 value %s", on ? "true" : "false");
    int r = send_line(e, cmd, why, why_len);
    return r ? r : ply_uci_client_sync(e, why, why_len);
}

int ply_uci_client_has_option(const ply_uci_client_t *e, const char *name)
{
    return find_option(e, name) != NULL;
    return 0;
}

static int one_line_text(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
    return 1;
}

int ply_uci_client_setoption(ply_uci_client_t *e, const char *name, const char *value, char *why,
                             size_t why_len)
{
    if (!e || !name || !*name || !one_line_text(name) || (value && !one_line_text(value)))
        return ply_why(why, why_len, PLY_EINVAL, "an option name and value are one line of text");
    const struct engine_option *o = find_option(e, name);
    if (!o)
        return ply_why(why, why_len, PLY_ENOTFOUND, "engine '%s' has no option '%s'", e->cmd, name);
    int bad = check_option_value(e, o, value, why, why_len);
    if (bad) return bad;
    size_t n = strlen(name) + (value ? strlen(value) : 0) + 32;
    char *cmd = malloc(n);
    if (!cmd) return ply_why(why, why_len, PLY_ENOMEM, "out of memory");
    if (value)
        snprintf(cmd, n, "setoption name %s value %s", name, value);
    else
        snprintf(cmd, n, "setoption name %s", name);
    int r = send_line(e, cmd, why, why_len);
    free(cmd);
    return r;
}

int ply_uci_client_setoption_arg(ply_uci_client_t *e, const char *arg, char *why, size_t why_len)
{
    if (!arg) return PLY_EINVAL;
    char name[OPTION_NAME];
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!n || n >= sizeof name)
        return ply_why(why, why_len, PLY_EINVAL, "option '%s' is not NAME=VALUE", arg);
    memcpy(name, arg, n);
    name[n] = '\0';
    return ply_uci_client_setoption(e, name, eq ? eq + 1 : NULL, why, why_len);
}

int ply_uci_client_newgame(ply_uci_client_t *e, char *why, size_t why_len)
{
    if (!e) return PLY_EINVAL;
    int r = send_line(e, "ucinewgame", why, why_len);
    return r ? r : ply_uci_client_sync(e, why, why_len);
}

void ply_uci_client_set_cancel(ply_uci_client_t *e, const atomic_int *flag)
{
    if (e) e->cancel = flag;
}

static void close_cb(uv_handle_t *h)
{
    (void)h;
}

void ply_uci_client_destroy(ply_uci_client_t **ep)
{
    if (!ep || !*ep) return;
    ply_uci_client_t *e = *ep;
    if (e->spawned && !e->exited) {
        char ignored[8];
        if (!e->write_error && send_line(e, "quit", ignored, sizeof ignored) == 0)
            wait_exit(e, QUIT_GRACE_MS);
        if (!e->exited) {
            kill(-e->proc.pid, SIGKILL); /* the group: a wrapper and what it started */
            uv_process_kill(&e->proc, SIGKILL);
            wait_exit(e, KILL_WAIT_MS);
        }
    }
    if (e->handles_ok) {
        uv_handle_t *hs[] = {(uv_handle_t *)&e->in, (uv_handle_t *)&e->out, (uv_handle_t *)&e->err,
                             (uv_handle_t *)&e->timer, (uv_handle_t *)&e->proc};
        size_t nh = sizeof hs / sizeof *hs;
        /* the process handle exists only when uv_spawn was called */
        if (!e->proc_init) nh--;
        for (size_t i = 0; i < nh; i++)
            if (!uv_is_closing(hs[i])) uv_close(hs[i], close_cb);
        uv_run(&e->loop, UV_RUN_DEFAULT);
    }
    if (e->loop_ok) uv_loop_close(&e->loop);
    free(e->options);
    free(e->buf);
    free(e);
    *ep = NULL;
}

/* ---- go perft ------------------------------------------------------------------- */

static int is_uci_move(const char *s, size_t n)
{
    if (n != 4 && n != 5) return 0;
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') return 0;
    if (s[2] < 'a' || s[2] > 'h' || s[3] < '1' || s[3] > '8') return 0;
    return n == 4 || strchr("nbrqNBRQ", s[4]) != NULL;
}

/* Reads an unsigned decimal that fills the rest of @s (blanks allowed around it). */
static int parse_count(const char *s, uint64_t *out)
{
    while (*s == ' ' || *s == '\t') s++;
    if (!isdigit((unsigned char)*s)) return -1;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    while (*s == ' ' || *s == '\t') s++;
    if (*s) return -1;
    *out = v;
    return 0;
}

/*
 * One line of the answer. Returns 1 at "Nodes searched", 0 for a divide
 * line or a line to skip (*junk incremented), PLY_EPARSE with a reason.
 */
static int divide_line(ply_uci_client_t *e, const char *line, ply_uci_client_divide_t *out,
                       int *junk, char *why, size_t why_len)
{
    char shown[96];
    printable(shown, sizeof shown, line, strlen(line) < 80 ? strlen(line) : 80);
    if (!strncmp(line, "Nodes searched:", 15)) {
        if (parse_count(line + 15, &out->total) < 0) {
            ply_why(why, why_len, 0, "engine '%s' printed a malformed total \"%s\"", e->cmd, shown);
            return PLY_EPARSE;
        }
        return 1;
    }
    const char *colon = strchr(line, ':');
    size_t n = colon ? (size_t)(colon - line) : 0;
    uint64_t count;
    /* "word: number" is a divide line or garbage; anything else is chatter */
    const char *blank = strchr(line, ' ');
    if (colon && is_uci_move(line, n) && parse_count(colon + 1, &count) < 0) {
        ply_why(why, why_len, 0, "engine '%s' printed a malformed divide line \"%s\"", e->cmd,
                shown);
        return PLY_EPARSE;
    }
    if (!colon || !n || (blank && blank < colon) || parse_count(colon + 1, &count) < 0) {
        if (++*junk > JUNK_MAX) {
            ply_why(why, why_len, 0, "engine '%s' printed %d lines that are not a perft divide",
                    e->cmd, JUNK_MAX);
            return PLY_EPARSE;
        }
        return 0;
    }
    if (!is_uci_move(line, n)) {
        ply_why(why, why_len, 0, "engine '%s' printed \"%s\": not a UCI move", e->cmd, shown);
        return PLY_EPARSE;
    }
    for (int i = 0; i < out->n; i++)
        if (strlen(out->e[i].move) == n && !strncmp(out->e[i].move, line, n)) {
            ply_why(why, why_len, 0, "engine '%s' listed %.*s twice", e->cmd, (int)n, line);
            return PLY_EPARSE;
        }
    if (out->n == PLY_UCI_CLIENT_MAX_DIVIDE) {
        ply_why(why, why_len, 0, "engine '%s' listed more than %d moves", e->cmd,
                PLY_UCI_CLIENT_MAX_DIVIDE);
        return PLY_EPARSE;
    }
    memcpy(out->e[out->n].move, line, n);
    out->e[out->n].move[n] = '\0';
    /* UCI promotions are lower case; some engines print them upper case */
    if (n == 5) out->e[out->n].move[4] = (char)tolower((unsigned char)line[4]);
    out->e[out->n].nodes = count;
    out->n++;
    return 0;
}

int ply_uci_client_perft(ply_uci_client_t *e, const char *position, int depth,
                         ply_uci_client_divide_t *out, char *why, size_t why_len)
{
    if (!e || !position || !out || depth < 1) return PLY_EINVAL;
    memset(out, 0, sizeof *out);
    char go[32], doing[64], line[LINE_MAX_BYTES + 1];
    snprintf(go, sizeof go, "go perft %d", depth);
    snprintf(doing, sizeof doing, "while answering '%s'", go);
    int r = send_line(e, position, why, why_len);
    if (r == 0) r = send_line(e, go, why, why_len);
    int junk = 0;
    while (r == 0) {
        r = wait_line(e, line, doing, why, why_len);
        if (r == 0) r = divide_line(e, line, out, &junk, why, why_len);
    }
    if (r < 0) return r;
    uint64_t sum = 0;
    for (int i = 0; i < out->n; i++) {
        if (sum + out->e[i].nodes < sum)
            sum = UINT64_MAX; /* overflow: cannot match */
        else
            sum += out->e[i].nodes;
    }
    if (sum != out->total) {
        ply_why(why, why_len, 0,
                "engine '%s' answered '%s' with %d moves summing to %" PRIu64
                " but 'Nodes searched: %" PRIu64 "'",
                e->cmd, go, out->n, sum, out->total);
        return PLY_EPARSE;
    }
    return 0;
}

/* ---- go: a search ------------------------------------------------------------------ */

/* A whole signed decimal token in [lo, hi]. */
static int parse_int_tok(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    if (!s || !(isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))))
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Copies a UCI move token into @dst (6 bytes), promotion lower-cased. */
static int take_move(const char *tok, char *dst)
{
    size_t n = strlen(tok);
    if (!is_uci_move(tok, n)) return -1;
    memcpy(dst, tok, n + 1);
    if (n == 5) dst[4] = (char)tolower((unsigned char)dst[4]);
    return 0;
}

enum { INFO_SKIP = 0, INFO_USE = 1 };

/*
 * Parses "info ..." (@line after "info") into @in. Tokens we do not know are
 * skipped, as UCI asks; a known one with a malformed value is an error.
 * @cut: the line was longer than LINE_MAX_BYTES and is its head (whole
 * words only): a field whose value the cut took away is dropped with
 * everything after it, and so is a score that may have had a bound after it,
 * rather than reporting a figure the engine did not say.
 * Returns INFO_USE when it carries a depth, score or pv, INFO_SKIP for
 * strings and progress-only lines, or PLY_EPARSE.
 */
static int parse_info(ply_uci_client_t *e, char *line, int cut, ply_uci_client_info_t *in,
                      char *why, size_t why_len)
{
    char shown[96];
    printable(shown, sizeof shown, line, strlen(line) < 80 ? strlen(line) : 80);
    memset(in, 0, sizeof *in);
    in->time_ms = in->hashfull = -1;
    int use = INFO_SKIP;
    char *save = NULL, *tok = strtok_r(line, " \t", &save);
    const char *bad = NULL;
    while (tok && !bad) {
        int64_t v = 0;
        char *next = strtok_r(NULL, " \t", &save);
        if (!strcmp(tok, "string")) break; /* free text to the end of the line */
        if (cut && !next) break;           /* a value or a move list cut off */
        if (!strcmp(tok, "depth") || !strcmp(tok, "seldepth") || !strcmp(tok, "multipv")) {
            if (parse_int_tok(next, 0, 100000, &v) < 0) {
                bad = tok;
                break;
            }
            if (tok[0] == 'd') {
                in->depth = (int)v;
                use = INFO_USE;
            } else if (tok[0] == 's') {
                in->seldepth = (int)v;
            } else {
                in->multipv = (int)v;
            }
            tok = strtok_r(NULL, " \t", &save);
        } else if (!strcmp(tok, "nodes") || !strcmp(tok, "nps") || !strcmp(tok, "time") ||
                   !strcmp(tok, "hashfull") || !strcmp(tok, "tbhits") ||
                   !strcmp(tok, "currmovenumber") || !strcmp(tok, "cpuload") ||
                   !strcmp(tok, "sbhits")) {
            if (parse_int_tok(next, 0, INT64_MAX, &v) < 0) {
                bad = tok;
                break;
            }
            if (!strcmp(tok, "nodes")) in->nodes = (uint64_t)v;
            if (!strcmp(tok, "nps")) in->nps = (uint64_t)v;
            if (!strcmp(tok, "time")) in->time_ms = v;
            if (!strcmp(tok, "hashfull")) in->hashfull = v > 1000 ? 1000 : (int)v;
            tok = strtok_r(NULL, " \t", &save);
        } else if (!strcmp(tok, "score")) {
            char *num = strtok_r(NULL, " \t", &save);
            int cp = next && !strcmp(next, "cp"), mate = next && !strcmp(next, "mate");
            if ((!cp && !mate) || parse_int_tok(num, -1000000, 1000000, &v) < 0) {
                if (cut && !num) break;
                bad = tok;
                break;
            }
            tok = strtok_r(NULL, " \t", &save);
            if (cut && !tok) break; /* "lowerbound" may have followed */
            in->score_kind = cp ? PLY_UCI_CLIENT_SCORE_CP : PLY_UCI_CLIENT_SCORE_MATE;
            in->score = (int)v;
            use = INFO_USE;
            if (tok && (!strcmp(tok, "lowerbound") || !strcmp(tok, "upperbound"))) {
                in->bound = tok[0] == 'l' ? 1 : -1;
                tok = strtok_r(NULL, " \t", &save);
            }
        } else if (!strcmp(tok, "wdl")) { /* Stockfish's UCI_ShowWDL: three numbers */
            char *d = strtok_r(NULL, " \t", &save), *l = strtok_r(NULL, " \t", &save);
            if (cut && !l) break;
            if (parse_int_tok(next, 0, 1000, &v) < 0 || parse_int_tok(d, 0, 1000, &v) < 0 ||
                parse_int_tok(l, 0, 1000, &v) < 0) {
                bad = tok;
                break;
            }
            tok = strtok_r(NULL, " \t", &save);
        } else if (!strcmp(tok, "pv") || !strcmp(tok, "currmove") || !strcmp(tok, "refutation") ||
                   !strcmp(tok, "currline")) {
            /* moves up to the next token that is not a move (pv is usually last) */
            int pv = !strcmp(tok, "pv"), any = 0;
            char mv[6];
            for (tok = next; tok && take_move(tok, mv) == 0; tok = strtok_r(NULL, " \t", &save)) {
                any = 1;
                if (pv && in->npv < PLY_UCI_CLIENT_PV_MAX) memcpy(in->pv[in->npv++], mv, sizeof mv);
            }
            if (pv && !any) bad = "pv";
            if (pv) use = INFO_USE;
        } else {
            tok = next; /* unknown: ignored */
        }
    }
    if (bad)
        return ply_why(why, why_len, PLY_EPARSE, "engine '%s' printed a malformed '%s' in \"%s\"",
                       e->cmd, bad, shown);
    return use;
}

/* "go ..." from @lim into @buf; 0, or -1 when it asks for nothing. */
static int go_command(const ply_uci_client_limits_t *lim, char *buf, size_t len)
{
    int o = snprintf(buf, len, "go");
    if (lim->clock) {
        o += snprintf(buf + o, len - (size_t)o, " wtime %lld btime %lld winc %lld binc %lld",
                      (long long)lim->wtime, (long long)lim->btime, (long long)lim->winc,
                      (long long)lim->binc);
        if (lim->movestogo > 0)
            o += snprintf(buf + o, len - (size_t)o, " movestogo %d", lim->movestogo);
    }
    if (lim->movetime > 0)
        o += snprintf(buf + o, len - (size_t)o, " movetime %lld", (long long)lim->movetime);
    if (lim->depth > 0) o += snprintf(buf + o, len - (size_t)o, " depth %d", lim->depth);
    if (lim->nodes > 0)
        o += snprintf(buf + o, len - (size_t)o, " nodes %llu", (unsigned long long)lim->nodes);
    if (o <= 2) return -1;
    if (lim->n_searchmoves < 0 || lim->n_searchmoves > PLY_UCI_CLIENT_MAX_DIVIDE ||
        (lim->n_searchmoves && !lim->searchmoves))
        return -1;
    if (lim->n_searchmoves) o += snprintf(buf + o, len - (size_t)o, " searchmoves");
    for (int i = 0; i < lim->n_searchmoves; i++) {
        const char *m = lim->searchmoves[i];
        /* one word of UCI text, so that no second command rides along */
        if (!m || !is_uci_move(m, strlen(m))) return -1;
        o += snprintf(buf + o, len - (size_t)o, " %s", m);
    }
    return o < (int)len ? 0 : -1;
}

/* "bestmove M [ponder P]" into @out; 0 or PLY_EPARSE. */
static int parse_bestmove(ply_uci_client_t *e, const char *line, ply_uci_client_search_t *out,
                          char *why, size_t why_len)
{
    char copy[LINE_MAX_BYTES + 1], shown[96];
    snprintf(copy, sizeof copy, "%s", line);
    printable(shown, sizeof shown, line, strlen(line) < 80 ? strlen(line) : 80);
    char *save = NULL;
    strtok_r(copy, " \t", &save);
    char *mv = strtok_r(NULL, " \t", &save), *kw = strtok_r(NULL, " \t", &save);
    char *pm = strtok_r(NULL, " \t", &save);
    out->bestmove[0] = out->ponder[0] = '\0';
    if (mv && (!strcmp(mv, "0000") || !strcmp(mv, "(none)"))) return 0;
    if (!mv || take_move(mv, out->bestmove) < 0)
        return ply_why(why, why_len, PLY_EPARSE, "engine '%s' printed \"%s\": not a UCI move",
                       e->cmd, shown);
    if (kw && !strcmp(kw, "ponder") && pm) take_move(pm, out->ponder); /* only a hint */
    return 0;
}

int ply_uci_client_go(ply_uci_client_t *e, const char *position, const ply_uci_client_limits_t *lim,
                      ply_uci_client_info_fn on_info, void *ctx, ply_uci_client_search_t *out,
                      char *why, size_t why_len)
{
    char go[256 + PLY_UCI_CLIENT_MAX_DIVIDE * 6], line[LINE_MAX_BYTES + 1];
    if (!e || !position || !lim || !out || go_command(lim, go, sizeof go) < 0)
        return ply_why(why, why_len, PLY_EINVAL,
                       "a search needs a position and a limit (and UCI searchmoves)");
    memset(out, 0, sizeof *out);
    char doing[300];
    snprintf(doing, sizeof doing, "while answering '%.200s'", go);
    int r = send_line(e, position, why, why_len);
    uint64_t t0 = ply_time_ns();
    if (r == 0) r = send_line(e, go, why, why_len);
    uint64_t hard = lim->deadline_ms ? ply_time_ms() + lim->deadline_ms : 0;
    for (long n = 0, junk = 0; r == 0; n++) {
        r = hard ? wait_line_at(e, line, doing, hard, 1, why, why_len)
                 : wait_line(e, line, doing, why, why_len);
        out->elapsed_ms = (double)(ply_time_ns() - t0) / 1e6;
        if (r == PLY_ETIMEDOUT && hard)
            ply_why(why, why_len, 0, "engine '%s' gave no bestmove within %.3f s %s", e->cmd,
                    lim->deadline_ms / 1000.0, doing);
        if (r < 0) break;
        if (!strncmp(line, "bestmove", 8) && (line[8] == ' ' || !line[8]))
            return parse_bestmove(e, line, out, why, why_len);
        if (n > INFO_MAX) {
            r = ply_why(why, why_len, PLY_EPARSE, "engine '%s' printed %d lines without bestmove",
                        e->cmd, INFO_MAX);
        } else if (!strncmp(line, "info", 4) && (line[4] == ' ' || !line[4])) {
            ply_uci_client_info_t in;
            int u = parse_info(e, line + 4, e->last_cut, &in, why, why_len);
            if (u < 0) r = u;
            if (u != INFO_USE) continue;
            if (in.depth > out->depth) out->depth = in.depth;
            if (in.nodes > out->nodes) out->nodes = in.nodes;
            if (in.score_kind != PLY_UCI_CLIENT_SCORE_NONE && in.multipv <= 1) out->last = in;
            if (on_info) on_info(ctx, &in, out->elapsed_ms);
        } else if (++junk > JUNK_MAX) {
            r = ply_why(why, why_len, PLY_EPARSE,
                        "engine '%s' printed %d lines that are neither info nor bestmove", e->cmd,
                        JUNK_MAX);
        }
    }
    return r;
}

int ply_uci_client_stop(ply_uci_client_t *e, unsigned grace_ms, char *why, size_t why_len)
{
    if (!e) return PLY_EINVAL;
    int r = send_line(e, "stop", why, why_len);
    uint64_t deadline = ply_time_ms() + grace_ms;
    const atomic_int *cancel = e->cancel;
    e->cancel = NULL; /* stopping is what a cancel wants */
    char line[LINE_MAX_BYTES + 1];
    for (long n = 0; r == 0; n++) {
        r = wait_line_at(e, line, "after 'stop'", deadline, 1, why, why_len);
        if (r == 0 && !strncmp(line, "bestmove", 8)) break;
        if (r == 0 && n > INFO_MAX)
            r = ply_why(why, why_len, PLY_EPARSE, "engine '%s' printed %d lines after 'stop'",
                        e->cmd, INFO_MAX);
    }
    e->cancel = cancel;
    return r;
}
