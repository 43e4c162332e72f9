/* stderr logger: level filter, program tag, the time when asked, one write per line. */
#include "util/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static ply_log_level_t log_level = PLY_LOG_WARN;
static char log_tag[32] = "ply";

void ply_log_set_level(ply_log_level_t level) { log_level = level; }

ply_log_level_t ply_log_get_level(void) { return log_level; }

void ply_log_set_tag(const char *tag)
{
    snprintf(log_tag, sizeof log_tag, "%s", tag ? tag : "ply");
}

static _Atomic int log_time;          /* the program's choice */
static _Atomic int log_time_env = -2; /* -2: not read yet; -1: PLY_LOG_TIME unset; 0, 1 */

void ply_log_set_time(int on)
{
    atomic_store_explicit(&log_time, !!on, memory_order_relaxed);
}

static int time_on(void)
{
    int env = atomic_load_explicit(&log_time_env, memory_order_relaxed);
    if (env == -2) {
        const char *v = getenv("PLY_LOG_TIME");
        env = v && !strcmp(v, "1") ? 1 : v && !strcmp(v, "0") ? 0 : -1;
        atomic_store_explicit(&log_time_env, env, memory_order_relaxed);
    }
    return env >= 0 ? env : atomic_load_explicit(&log_time, memory_order_relaxed);
}

char *ply_log_stamp(char *buf, size_t len)
{
    if (!len) return buf;
    buf[0] = 0;
    if (!time_on()) return buf;
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
    return buf;
}

void ply_log(ply_log_level_t level, const char *fmt, ...)
{
    static const char *names[] = {"debug", "info", "warning", "error"};
    if (level < log_level || level >= PLY_LOG_OFF) return;
    char line[1024], when[48];
    ply_log_stamp(when, sizeof when);
    int n = snprintf(line, sizeof line, "%s%s %s: ", when, log_tag, names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line) vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strnlen(line, sizeof line - 2);
    line[len] = '\n';
    fwrite(line, 1, len + 1, stderr);
}
