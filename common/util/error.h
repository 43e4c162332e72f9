/*
 * ply error codes: one X-macro list, negative values, and ply_strerror().
 *
 * Every ply function that can fail returns 0 (or a non-negative count) on
 * success and one of these negative codes on failure; constructors return NULL.
 * The list is the single source of truth: names, values and messages are all
 * generated from PLY_ERRNO_MAP, as libuv does with UV_ERRNO_MAP.
 */
#ifndef PLY_UTIL_ERROR_H
#define PLY_UTIL_ERROR_H

#define PLY_ERRNO_MAP(XX)                                                                          \
    XX(EINVAL, -1, "invalid argument")                                                             \
    XX(ENOMEM, -2, "out of memory")                                                                \
    XX(EFEN, -3, "malformed FEN")                                                                  \
    XX(EILLEGAL, -4, "illegal position or move")                                                   \
    XX(ERANGE, -5, "value out of range")                                                           \
    XX(EPROTO, -6, "malformed protocol message")                                                   \
    XX(EVERSION, -7, "unsupported protocol version")                                               \
    XX(EIO, -8, "input/output error")                                                              \
    XX(ETIMEDOUT, -9, "timed out")                                                                 \
    XX(ENOTFOUND, -10, "not found")                                                                \
    XX(ECANCELED, -11, "canceled")                                                                 \
    XX(EMISMATCH, -12, "cross-check mismatch")                                                     \
    XX(ECONNECT, -13, "cannot connect or bind")                                                    \
    XX(ESTATE, -14, "invalid state")                                                               \
    XX(EUSAGE, -15, "invalid command-line usage")                                                  \
    XX(EPARSE, -16, "parse error")                                                                 \
    XX(EWORKER, -17, "worker failure")                                                             \
    XX(EDB, -18, "database error")                                                                 \
    XX(EAUTH, -19, "authentication refused")

enum {
#define PLY__ERR_ENUM(name, value, msg) PLY_##name = (value),
    PLY_ERRNO_MAP(PLY__ERR_ENUM)
#undef PLY__ERR_ENUM
};

/**
 * ply_strerror - a static, human-readable message for an error code.
 * @err: a negative PLY_E... code (0 gives "success").
 * Returns a string that must not be freed; unknown codes give "unknown error".
 */
const char *ply_strerror(int err);

/**
 * ply_err_name - the symbolic name of an error code ("PLY_EFEN"), for logs and JSON.
 * Returns a static string; unknown codes give "PLY_EUNKNOWN".
 */
const char *ply_err_name(int err);

#include <stddef.h>

/**
 * ply_why - write a one-line reason, printf-style, into @why (@why_len bytes,
 * truncated; nothing is written when @why is NULL or @why_len is 0) and
 * return @err, so that a failure path reads
 *     return ply_why(why, why_len, PLY_EFEN, "field %d (placement): ...", n);
 */
int ply_why(char *why, size_t why_len, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
