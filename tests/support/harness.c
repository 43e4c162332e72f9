/*
 * The process harness (see harness.h). Output is captured through pipes
 * read with poll() under a deadline, so a hung child fails its test instead
 * of hanging ctest; every child leads its own process group so that killing
 * it also kills what its shell started.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

uint64_t th_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

unsigned th_slowdown(void)
{
    const char *v = getenv("PLY_TEST_SLOWDOWN");
    char *end;
    long n = v ? strtol(v, &end, 10) : 1;
    return v && *end == '\0' && n >= 1 && n <= 100 ? (unsigned)n : 1;
}

static void exec_shell(const char *cmd)
{
    char path[8192];
    const char *old = getenv("PATH");
    snprintf(path, sizeof path, "%s:%s", PLY_BIN_DIR, old ? old : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
}

typedef struct sink {
    char *buf;
    size_t len, cap;
} sink_t;

static void sink_add(sink_t *s, const char *data, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1) cap *= 2;
        char *grown = realloc(s->buf, cap);
        if (!grown) return;
        s->buf = grown;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    s->buf[s->len] = '\0';
}

static char *sink_take(sink_t *s)
{
    return s->buf ? s->buf : strdup("");
}

th_run_t th_run(int timeout_s, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    th_run_t r = {-1, NULL, NULL};
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) {
        r.out = strdup("");
        r.err = strdup("pipe failed");
        return r;
    }
    pid_t pid = fork();
    if (pid < 0) {
        /* say so, rather than waitpid(-1) below reaping some other child */
        close(out[0]), close(out[1]), close(err[0]), close(err[1]);
        r.out = strdup("");
        r.err = strdup("fork failed");
        return r;
    }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]), close(out[1]), close(err[0]), close(err[1]);
        exec_shell(cmd);
    }
    close(out[1]);
    close(err[1]);
    sink_t so = {0}, se = {0};
    uint64_t deadline = th_now_ms() + (uint64_t)timeout_s * 1000u;
    int open_fds = 2, killed = 0;
    struct pollfd pf[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    while (open_fds > 0) {
        uint64_t now = th_now_ms();
        if (now >= deadline) {
            kill(-pid, SIGKILL);
            killed = 1;
            break;
        }
        int n = poll(pf, 2, (int)(deadline - now));
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; i < 2 && n > 0; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[65536];
            ssize_t got = read(pf[i].fd, buf, sizeof buf);
            if (got > 0) {
                sink_add(i ? &se : &so, buf, (size_t)got);
            } else {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (pf[i].fd >= 0) close(pf[i].fd);
    int st = 0;
    waitpid(pid, &st, 0);
    if (killed) {
        const char *note = "\n[harness: killed after the timeout]\n";
        sink_add(&se, note, strlen(note));
    }
    r.status = !killed && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = sink_take(&so);
    r.err = sink_take(&se);
    return r;
}

void th_run_free(th_run_t *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void th_expect_status(const th_run_t *r, int want, const char *what)
{
    if (r->status != want)
        fail_msg("%s: exit status %d, expected %d\nstdout: %s\nstderr: %s", what, r->status, want,
                 r->out, r->err);
}

json_t *th_json(const th_run_t *r)
{
    json_error_t err;
    json_t *o = json_loads(r->out, 0, &err);
    if (!o) fail_msg("not JSON (%s): %s\nstderr: %s", err.text, r->out, r->err);
    return o;
}

pid_t th_spawn(const char *log, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
        int in = open("/dev/null", O_RDONLY);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
        if (in >= 0) dup2(in, 0);
        exec_shell(cmd);
    }
    if (pid > 0) setpgid(pid, pid); /* also here: no race with an early th_stop */
    return pid;
}

/* Raw wait statuses of children reaped by th_alive, for th_stop to report. */
static struct {
    pid_t pid;
    int status;
} reaped[64];

static int decode_status(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int th_stop(pid_t pid)
{
    if (pid <= 0) return -1;
    for (int i = 0; i < 64; i++)
        if (reaped[i].pid == pid) {
            kill(-pid, SIGKILL); /* stragglers in its group */
            reaped[i].pid = 0;
            return decode_status(reaped[i].status);
        }
    int st = 0;
    /* one SIGTERM: a program that has begun an orderly stop may restore the default
     * action, and a second signal would then kill it */
    if (kill(-pid, SIGTERM) != 0) kill(pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            kill(-pid, SIGKILL);
            return decode_status(st);
        }
        if (w < 0) return -1;
        usleep(50000);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

int th_alive(pid_t pid)
{
    int st = 0;
    if (pid <= 0) return 0;
    for (int i = 0; i < 64; i++)
        if (reaped[i].pid == pid) return 0;
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == 0) return 1;
    if (w == pid) {
        for (int i = 0; i < 64; i++)
            if (!reaped[i].pid) {
                reaped[i].pid = pid;
                reaped[i].status = st;
                break;
            }
        if (WIFSIGNALED(st))
            fprintf(stderr, "[harness: pid %d killed by signal %d]\n", (int)pid, WTERMSIG(st));
        else
            fprintf(stderr, "[harness: pid %d exited with status %d]\n", (int)pid, WEXITSTATUS(st));
    }
    return 0;
}

int th_wait(pid_t pid, int timeout_ms)
{
    uint64_t deadline = th_now_ms() + (uint64_t)timeout_ms;
    while (th_alive(pid)) {
        if (th_now_ms() >= deadline) return -2;
        usleep(50000);
    }
    for (int i = 0; i < 64; i++)
        if (reaped[i].pid == pid) {
            reaped[i].pid = 0;
            return decode_status(reaped[i].status);
        }
    return -1;
}

/* 1 when nothing holds loopback TCP @port (a plain bind, without SO_REUSEADDR, succeeds). */
static int port_is_free(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    const int ok = s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0;
    if (s >= 0) close(s);
    return ok;
}

int th_free_port(void)
{
    /* Below the ephemeral range: a port taken from inside it can become the source port of
     * any process's outgoing connection between this check and the caller's bind (the
     * tests run in parallel and connect all the time), and the caller's bind then fails or,
     * worse, its peer connects to someone else. */
    int lo = 32768, hi = 60999;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%d %d", &lo, &hi) != 2) lo = 32768;
        fclose(f);
    }
    const int first = 10000, span = lo - first;
    if (span >= 1000) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t x = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec;
        for (int i = 0; i < 256; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
            const int port = first + (int)(x % (uint64_t)span);
            if (port_is_free(port)) return port;
        }
    }
    /* no room below the ephemeral range: one the kernel has free now */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0) close(s);
    return port;
}

char *th_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    sink_t s = {0};
    if (f) {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) sink_add(&s, buf, n);
        fclose(f);
    }
    return sink_take(&s);
}

int th_wait_text(const char *path, const char *text, int timeout_ms)
{
    uint64_t deadline = th_now_ms() + (uint64_t)timeout_ms;
    do {
        char *s = th_slurp(path);
        int found = strstr(s, text) != NULL;
        free(s);
        if (found) return 1;
        usleep(50000);
    } while (th_now_ms() < deadline);
    return 0;
}

/* 1 when @text holds a line starting with @prefix that reads "D/T" with 0 < D < T and
 * holds @also (NULL: any). */
static int progress_line_seen(const char *text, const char *prefix, const char *also)
{
    const size_t k = strlen(prefix);
    for (const char *at = text; (at = strstr(at, prefix)) != NULL; at += k) {
        if (at != text && at[-1] != '\n') continue;
        char *end;
        const unsigned long done = strtoul(at + k, &end, 10);
        if (end == at + k || *end != '/') continue;
        const char *num = end + 1;
        const unsigned long total = strtoul(num, &end, 10);
        if (end == num || done == 0 || done >= total) continue;
        const char *eol = strchr(at, '\n');
        if (!eol) continue; /* a line still being written */
        if (also) {
            const char *hit = strstr(at, also);
            if (!hit || hit > eol) continue;
        }
        return 1;
    }
    return 0;
}

int th_wait_progress(pid_t pid, const char *log, const char *prefix, const char *also,
                     unsigned timeout_ms)
{
    const uint64_t deadline = th_now_ms() + (uint64_t)timeout_ms * th_slowdown();
    for (;;) {
        char *text = th_slurp(log);
        const int seen = progress_line_seen(text, prefix, also);
        free(text);
        if (seen) return 0;
        if (!th_alive(pid)) {
            print_message("pid %d exited before a progress line \"%s...%s\" in %s\n", (int)pid,
                          prefix, also ? also : "", log);
            return -1;
        }
        if (th_now_ms() >= deadline) break;
        usleep(20000);
    }
    print_message("no progress line \"%s...%s\" in %s within %u ms\n", prefix, also ? also : "",
                  log, timeout_ms * th_slowdown());
    return -1;
}

int th_count(const char *hay, const char *needle)
{
    int n = 0;
    size_t k = strlen(needle);
    for (const char *p = hay; k && (p = strstr(p, needle)); p += k) n++;
    return n;
}

const char *th_tmpdir(const char *tag)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "/tmp/ply-%s-XXXXXX", tag);
    if (!mkdtemp(dir)) snprintf(dir, sizeof dir, "/tmp");
    return dir;
}

const char *th_tmp_path(const char *tag, const char *name)
{
    static char dir[256], path[4][512];
    static int k;
    if (!dir[0]) snprintf(dir, sizeof dir, "%s", th_tmpdir(tag));
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

const char *th_write_file(const char *tag, const char *name, const char *text)
{
    const char *path = th_tmp_path(tag, name);
    FILE *f = fopen(path, "w");
    if (!f) fail_msg("cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

json_t *th_jget(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v) fail_msg("JSON has no '%s'", key);
    return v;
}

long th_jint(json_t *o, const char *key)
{
    json_t *v = th_jget(o, key);
    if (!json_is_integer(v)) fail_msg("JSON '%s' is not an integer", key);
    return (long)json_integer_value(v);
}

const char *th_jstr(json_t *o, const char *key)
{
    json_t *v = th_jget(o, key);
    if (!json_is_string(v)) fail_msg("JSON '%s' is not a string", key);
    return json_string_value(v);
}

static int procs_with(const char *tag, const char *except, int show)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9') continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t k = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < k; i++)
            if (!buf[i]) buf[i] = ' ';
        buf[k] = '\0';
        if (strstr(buf, tag) && !(except && strstr(buf, except))) {
            n++;
            if (show) fprintf(stderr, "[harness: still running: pid %s: %s]\n", de->d_name, buf);
        }
    }
    if (d) closedir(d);
    return n;
}

int th_procs_with(const char *tag, const char *except)
{
    return procs_with(tag, except, 0);
}

int th_procs_gone(const char *tag, const char *except, unsigned ms)
{
    uint64_t t0 = th_now_ms(), limit = (uint64_t)ms * (uint64_t)th_slowdown();
    int n;
    while ((n = procs_with(tag, except, 0)) > 0 && th_now_ms() - t0 < limit) usleep(20000);
    if (n) procs_with(tag, except, 1);
    return n;
}

pid_t th_worker_child(pid_t parent, const char *text)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t found = 0;
    while (d && !found && (e = readdir(d))) {
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int ppid = 0;
        char comm[64] = "";
        if (fscanf(f, "%*d (%63[^)]) %*c %d", comm, &ppid) != 2) ppid = 0;
        fclose(f);
        if (ppid != parent || strcmp(comm, "ply-worker")) continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        f = fopen(path, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f) fclose(f);
        for (size_t i = 0; i < n; i++)
            if (!buf[i]) buf[i] = ' ';
        buf[n] = '\0';
        if (strstr(buf, text)) found = (pid_t)atoi(e->d_name);
    }
    if (d) closedir(d);
    return found;
}

/* ---- conversations ------------------------------------------------------------------ */

void th_chat_start(th_chat_t *c, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    memset(c, 0, sizeof *c);
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) fail_msg("th_chat_start: pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) fail_msg("th_chat_start: fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        exec_shell(cmd);
    }
    setpgid(pid, pid);
    close(in[0]);
    close(out[1]);
    signal(SIGPIPE, SIG_IGN); /* a program that exits early is a failed write, not our death */
    c->pid = pid, c->to = in[1], c->from = out[0];
}

int th_chat_send_raw(th_chat_t *c, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t k = c->to >= 0 ? write(c->to, p, n) : -1;
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k, n -= (size_t)k;
    }
    return 0;
}

void th_chat_send(th_chat_t *c, const char *fmt, ...)
{
    char line[65536];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1) fail_msg("th_chat_send: line too long");
    line[n++] = '\n';
    if (th_chat_send_raw(c, line, (size_t)n) < 0)
        fail_msg("th_chat_send: cannot write '%.*s': %s", n - 1, line, strerror(errno));
}

static void grow_add(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (nc < *len + n + 1) nc *= 2;
        char *g = realloc(*buf, nc);
        if (!g) fail_msg("out of memory");
        *buf = g, *cap = nc;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = 0;
}

const char *th_chat_line(th_chat_t *c, int timeout_ms)
{
    static char *line;
    static size_t line_cap;
    uint64_t deadline = th_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            if (n + 1 > line_cap) {
                line_cap = n + 1;
                line = realloc(line, line_cap);
                if (!line) fail_msg("out of memory");
            }
            memcpy(line, c->buf, n);
            line[n] = 0;
            grow_add(&c->transcript, &c->tlen, &c->tcap, c->buf, n + 1);
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return line;
        }
        uint64_t now = th_now_ms();
        if (c->from < 0 || now >= deadline) return NULL;
        struct pollfd pf = {c->from, POLLIN, 0};
        int r = poll(&pf, 1, (int)(deadline - now));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return NULL;
        char tmp[65536];
        ssize_t got = read(c->from, tmp, sizeof tmp);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            close(c->from);
            c->from = -1;
            continue;
        }
        grow_add(&c->buf, &c->len, &c->cap, tmp, (size_t)got);
    }
}

const char *th_chat_until(th_chat_t *c, const char *prefix, int timeout_ms)
{
    uint64_t deadline = th_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        uint64_t now = th_now_ms();
        const char *l = now < deadline ? th_chat_line(c, (int)(deadline - now)) : NULL;
        if (!l) {
            fprintf(stderr, "the conversation so far:\n%s", c->transcript ? c->transcript : "");
            fail_msg("no line starting '%s' within %d ms (the conversation is above)", prefix,
                     timeout_ms);
        }
        if (!strncmp(l, prefix, strlen(prefix))) return l;
    }
}

char *th_chat_take(th_chat_t *c)
{
    char *t = c->transcript ? c->transcript : strdup("");
    c->transcript = NULL;
    c->tlen = c->tcap = 0;
    return t;
}

int th_chat_close(th_chat_t *c, int timeout_ms)
{
    if (c->to >= 0) close(c->to);
    c->to = -1;
    uint64_t deadline = th_now_ms() + (uint64_t)timeout_ms;
    while (th_now_ms() < deadline && th_chat_line(c, (int)(deadline - th_now_ms()))) {
    }
    if (c->from >= 0) close(c->from);
    c->from = -1;
    uint64_t now = th_now_ms();
    int st = th_wait(c->pid, now < deadline ? (int)(deadline - now) : 0);
    if (st == -2) {
        th_stop(c->pid);
        st = -1;
    }
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
    return st;
}
