/*
 * Process harness for the end-to-end tests (the ply command line, arbiter,
 * chaos, perft-diff, security, fuzzing and network namespaces): run a command
 * line to completion with a deadline and check its exit status and JSON
 * output, start long-lived programs in their own process group with their
 * output in a log file, stop them for sure, and take free loopback ports from
 * the kernel (never czmq's sequential scan from 49152, which collides between
 * tests running in parallel).
 *
 * Commands run under /bin/sh with PLY_BIN_DIR first on PATH, so they name
 * the programs as a user would (ply, ply-worker, ply-coordinator).
 */
#ifndef PLY_TESTS_HARNESS_H
#define PLY_TESTS_HARNESS_H

#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

typedef struct th_run {
    int status; /* exit status; -1 killed (timeout or signal) */
    char *out;  /* stdout, NUL-terminated */
    char *err;  /* stderr */
} th_run_t;

/**
 * th_run - run a shell command line to completion and capture its output.
 * @timeout_s: the deadline in seconds; past it the command's process group
 * is killed. @fmt, ...: the command line, printf-style, run by /bin/sh with
 * PLY_BIN_DIR first on PATH, stdin inherited.
 * Returns its exit status (-1 when killed by a signal or at the deadline)
 * and its stdout and stderr, NUL-terminated; free them with th_run_free.
 * Never fails: when the command cannot be started (no pipe, no fork) the
 * status is -1 and stderr says why; output that cannot be captured is "".
 */
th_run_t th_run(int timeout_s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** th_run_free - free the captured output. */
void th_run_free(th_run_t *r);

/**
 * th_expect_status - fail the current cmocka test unless @r exited with
 * status @want; the message names @what and shows the status, stdout and stderr.
 */
void th_expect_status(const th_run_t *r, int want, const char *what);

/**
 * th_json - @r's stdout parsed as JSON; the caller json_decref()s it. Fails
 * the current cmocka test, showing the parse error, stdout and stderr, when
 * stdout is not one JSON value.
 */
json_t *th_json(const th_run_t *r);

/**
 * th_spawn - start a shell command line in the background, in a new process
 * group, stdout and stderr appended to @log (NULL: /dev/null). Returns its pid.
 */
pid_t th_spawn(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * th_stop - SIGTERM the process group of @pid, wait up to 5 s, then SIGKILL;
 * reaps it. Returns the exit status, or -1 when it was killed by a signal.
 * Idempotent for pid <= 0.
 */
int th_stop(pid_t pid);

/**
 * th_wait - wait up to @timeout_ms for @pid to exit. Returns its exit status,
 * -1 when it was killed by a signal, or -2 when it still runs (not touched).
 */
int th_wait(pid_t pid, int timeout_ms);

/** th_alive - 1 while @pid runs (not exited, not a zombie we reaped). */
int th_alive(pid_t pid);

/**
 * A program driven as a conversation (a UCI engine): its stdin and stdout
 * are pipes held here; stderr is inherited. Lines it writes are read under
 * deadlines, so a silent program fails its test instead of hanging it.
 */
typedef struct th_chat {
    pid_t pid;
    int to, from; /* its stdin (write end), its stdout (read end); -1 when closed */
    char *buf;    /* read but not yet returned */
    size_t len, cap;
    char *transcript; /* every line read since the last th_chat_take, "\n"-terminated */
    size_t tlen, tcap;
} th_chat_t;

/**
 * th_chat_start - start a shell command line (as th_spawn: own process group,
 * PLY_BIN_DIR first on PATH) with pipes on its stdin and stdout. Fails the
 * current cmocka test when it cannot be started.
 */
void th_chat_start(th_chat_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** th_chat_send - write @fmt (printf-style) and a newline to its stdin; failing the test on error.
 */
void th_chat_send(th_chat_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** th_chat_send_raw - write @n bytes as they are (binary junk, huge lines). 0 or -1 (EPIPE). */
int th_chat_send_raw(th_chat_t *c, const void *data, size_t n);

/**
 * th_chat_line - the next line it writes, without the newline, in static
 * storage valid until the next call; NULL at end of output or after
 * @timeout_ms of silence. Every line read is also added to the transcript.
 */
const char *th_chat_line(th_chat_t *c, int timeout_ms);

/**
 * th_chat_until - read lines until one that starts with @prefix; fails the
 * current test (showing the transcript) at end of output or after
 * @timeout_ms. Returns that line (static, as th_chat_line).
 */
const char *th_chat_until(th_chat_t *c, const char *prefix, int timeout_ms);

/** th_chat_take - the transcript since the last take (caller frees); it starts empty again. */
char *th_chat_take(th_chat_t *c);

/**
 * th_chat_close - close its stdin, read its output to the end into the
 * transcript and wait up to @timeout_ms for it to exit (then SIGKILL its
 * group). Returns its exit status, or -1 when it was killed.
 */
int th_chat_close(th_chat_t *c, int timeout_ms);

/**
 * th_free_port - a loopback TCP port that was free just now, chosen at random below the
 * kernel's ephemeral range (ip_local_port_range) so that no outgoing connection takes it
 * before the caller binds it; a port the kernel picks when there is no room below it.
 */
int th_free_port(void);

/**
 * th_procs_with - how many running processes have @tag in their command line
 * and not @except (NULL: none excepted): an engine or server left running is a
 * leak.
 */
int th_procs_with(const char *tag, const char *except);

/**
 * th_procs_gone - th_procs_with, polled until it is 0 or @ms milliseconds
 * (scaled by th_slowdown) have passed: a process killed a moment ago may
 * still be on its way out on a loaded machine. Returns the last count (0:
 * none left), printing the command lines of those left.
 */
int th_procs_gone(const char *tag, const char *except, unsigned ms);

/**
 * th_worker_child - the pid of a ply-worker process whose parent is @parent and whose
 * command line holds @text (e.g. "--id local-0.0": a local worker of ply --workers N), or 0.
 */
pid_t th_worker_child(pid_t parent, const char *text);

/** th_slurp - the whole file (NUL-terminated; "" when unreadable); caller frees. */
char *th_slurp(const char *path);

/** th_wait_text - wait up to @timeout_ms for @text to appear in file @path. 1 found, 0 not. */
int th_wait_text(const char *path, const char *text, int timeout_ms);

/**
 * th_wait_progress - wait until process @pid, spawned with its stderr in @log and
 * PLY_PROGRESS_MS set, logs a progress line that starts with @prefix (e.g. "ply perft: "),
 * reports D/T units done with 0 < D < T (the run is under way and not finished) and holds
 * @also (e.g. "2 workers"; NULL: any such line). Polls every 20 ms, for up to @timeout_ms
 * milliseconds scaled by th_slowdown: a signal sent next lands mid-run on a fast machine
 * and a slow one alike, which a fixed wait does not. Returns 0, or -1 after printing why
 * (the process exited, or no such line came in time).
 */
int th_wait_progress(pid_t pid, const char *log, const char *prefix, const char *also,
                     unsigned timeout_ms);

/** th_count - occurrences of @needle in @hay. */
int th_count(const char *hay, const char *needle);

/** th_tmpdir - a new directory under /tmp named after @tag; static storage. */
const char *th_tmpdir(const char *tag);

/**
 * th_tmp_path - the path of file @name in the test program's one scratch
 * directory (made by th_tmpdir(@tag) at the first call); static storage,
 * good for the next three calls.
 */
const char *th_tmp_path(const char *tag, const char *name);

/** th_write_file - write @text to th_tmp_path(@tag, @name) and return that path. */
const char *th_write_file(const char *tag, const char *name, const char *text);

/** th_jget - member @key of JSON object @o; fails the test when it is absent. */
json_t *th_jget(json_t *o, const char *key);

/** th_jint - integer member @key of @o; fails the test when absent or not an integer. */
long th_jint(json_t *o, const char *key);

/** th_jstr - string member @key of @o; fails the test when absent or not a string. */
const char *th_jstr(json_t *o, const char *key);

/** th_now_ms - monotonic milliseconds. */
uint64_t th_now_ms(void);

/**
 * th_slowdown - how many times slower than a full-speed build this one runs:
 * $PLY_TEST_SLOWDOWN (set by the sanitizer test presets), 1 when unset or not
 * a whole number 1..100. Multiply the waits that stand for "some work is done".
 */
unsigned th_slowdown(void);

#endif
