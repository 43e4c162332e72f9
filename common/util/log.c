/* stderr logger: level filter, program tag, one write per line. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s: ", log_tag, names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line) vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strnlen(line, sizeof line - 2);
    line[len] = '\n';
    fwrite(line, 1, len + 1, stderr);
}
