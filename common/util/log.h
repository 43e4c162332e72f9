/*
 * Logging to stderr with a level filter. Thread-safe (one fprintf per line).
 * Programs set the level once at start-up (--verbose / --quiet); libraries
 * log at INFO or DEBUG and never print to stdout, which belongs to results.
 */
#ifndef PLY_UTIL_LOG_H
#define PLY_UTIL_LOG_H

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
 * ply_log - print one line "ply <tag> LEVEL: message" to stderr when @level is
 * at or above the threshold. printf-style format; a trailing newline is added.
 * With PLY_LOG_TIME=1 in the environment each line starts with the wall-clock
 * time, "HH:MM:SS.mmm " (UTC), for logs kept in files without a journal's stamps.
 */
void ply_log(ply_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ply_debug(...) ply_log(PLY_LOG_DEBUG, __VA_ARGS__)
#define ply_info(...) ply_log(PLY_LOG_INFO, __VA_ARGS__)
#define ply_warn(...) ply_log(PLY_LOG_WARN, __VA_ARGS__)
#define ply_error(...) ply_log(PLY_LOG_ERROR, __VA_ARGS__)

#endif
