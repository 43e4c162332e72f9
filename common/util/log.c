/* stderr logger: level filter, program tag, one write per line. */
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

void ply_log(ply_log_level_t level, const char *fmt, ...)
{
    static const char *names[] = {"debug", "info", "warning", "error"};
    if (level < log_level || level >= PLY_LOG_OFF) return;
    static _Atomic int stamp = -1; /* PLY_LOG_TIME=1, read on the first line */
    if (atomic_load_explicit(&stamp, memory_order_relaxed) < 0) {
        const char *v = getenv("PLY_LOG_TIME");
        atomic_store_explicit(&stamp, v && !strcmp(v, "1"), memory_order_relaxed);
    }
    char line[1024], when[48] = "";
    if (atomic_load_explicit(&stamp, memory_order_relaxed)) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        snprintf(when, sizeof when, "%02d:%02d:%02d.%03ld ", tm.tm_hour, tm.tm_min, tm.tm_sec,
                 ts.tv_nsec / 1000000);
    }
    int n = snprintf(line, sizeof line, "%s%s %s: ", when, log_tag, names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line) vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strnlen(line, sizeof line - 2);
    line[len] = '\n';
    fwrite(line, 1, len + 1, stderr);
}
