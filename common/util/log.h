/*
 * Logging to stderr with a level filter. Thread-safe (one fprintf per line).
 * Programs set the level once at start-up (--verbose / --quiet); libraries
 * log at INFO or DEBUG and never print to stdout, which belongs to results.
 * The daemons (ply-coordinator, ply-worker) start each line with the UTC time in
 * ISO 8601 to the millisecond, "2026-12-07T03:04:05.123Z ", so that the logs of
 * several processes line up; PLY_LOG_TIME=0 or 1 in the environment overrides a
 * program's choice (0 under a journal, which stamps lines itself).
 */
#ifndef PLY_UTIL_LOG_H
#define PLY_UTIL_LOG_H

#include <stddef.h>

typedef enum {
    PLY_LOG_DEBUG = 0,
    PLY_LOG_INFO = 1,
    PLY_LOG_WARN = 2,
    PLY_LOG_ERROR = 3,
    PLY_LOG_OFF = 4
} ply_log_level_t;

/** ply_log_set_level - messages below @level are dropped. Default: PLY_LOG_WARN. */
void ply_log_set_level(ply_log_level_t level);

/** ply_log_get_level - the current threshold. */
ply_log_level_t ply_log_get_level(void);

/** ply_log_set_tag - a short program tag printed on each line ("coordinator"); copied. */
void ply_log_set_tag(const char *tag);

/**
 * ply_log_set_time - @on 1: each line starts with the time (ply_log_stamp); 0: not (the
 * default, what `ply` keeps: its stderr is read by a person). PLY_LOG_TIME=1 or =0 in the
 * environment wins over it (read on the first line logged).
 */
void ply_log_set_time(int on);

/**
 * ply_log_stamp - the time prefix of a line now: "YYYY-MM-DDTHH:MM:SS.mmmZ " (UTC, ISO
 * 8601, milliseconds: 25 characters) into @buf of @len bytes (at least 26), or "" when
 * lines carry no time. Returns @buf. For a program's own lines to stderr that are not
 * ply_log calls, so that they line up with the log.
 */
char *ply_log_stamp(char *buf, size_t len);

/**
 * ply_log - print one line "[stamp]<tag> LEVEL: message" to stderr when @level is
 * at or above the threshold. printf-style format; a trailing newline is added.
 */
void ply_log(ply_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ply_debug(...) ply_log(PLY_LOG_DEBUG, __VA_ARGS__)
#define ply_info(...) ply_log(PLY_LOG_INFO, __VA_ARGS__)
#define ply_warn(...) ply_log(PLY_LOG_WARN, __VA_ARGS__)
#define ply_error(...) ply_log(PLY_LOG_ERROR, __VA_ARGS__)

#endif
