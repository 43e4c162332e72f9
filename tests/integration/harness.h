/*
 * Process harness for the end-to-end tests of perft-diff, security, fuzzing
 * and network namespaces: run a command line to completion with a deadline,
 * start long-lived programs in their own process group with their output in
 * a log file, stop them for sure, and take free loopback ports from the
 * kernel (never czmq's sequential scan from 49152, which collides between
 * tests running in parallel).
 *
 * Commands run under /bin/sh with PLY_BIN_DIR first on PATH, so they name
 * the programs as a user would (ply, ply-worker, ply-coordinator).
 */
#ifndef PLY_TESTS_HARNESS_H
#define PLY_TESTS_HARNESS_H

#include <stdint.h>
#include <sys/types.h>

typedef struct th_run {
    int status; /* exit status; -1 killed (timeout or signal) */
    char *out;  /* stdout, NUL-terminated */
    char *err;  /* stderr */
} th_run_t;

/**
 * th_run - run a shell command line to completion, at most @timeout_s
 * seconds (then its process group is killed and status is -1). Never fails:
 * output that cannot be captured is "".
 */
th_run_t th_run(int timeout_s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** th_run_free - free the captured output. */
void th_run_free(th_run_t *r);

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

/** th_free_port - a loopback TCP port the kernel just had free. */
int th_free_port(void);

/** th_slurp - the whole file (NUL-terminated; "" when unreadable); caller frees. */
char *th_slurp(const char *path);

/** th_wait_text - wait up to @timeout_ms for @text to appear in file @path. 1 found, 0 not. */
int th_wait_text(const char *path, const char *text, int timeout_ms);

/** th_count - occurrences of @needle in @hay. */
int th_count(const char *hay, const char *needle);

/** th_tmpdir - a new directory under /tmp named after @tag; static storage. */
const char *th_tmpdir(const char *tag);

/** th_now_ms - monotonic milliseconds. */
uint64_t th_now_ms(void);

#endif
