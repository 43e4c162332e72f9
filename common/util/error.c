/* Messages and names generated from the one PLY_ERRNO_MAP list. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

const char *ply_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define PLY__ERR_MSG(name, value, msg)                                                             \
    case PLY_##name:                                                                               \
        return msg;
        PLY_ERRNO_MAP(PLY__ERR_MSG)
#undef PLY__ERR_MSG
    default:
        return "unknown error";
    }
}

const char *ply_err_name(int err)
{
    switch (err) {
    case 0:
        return "PLY_OK";
#define PLY__ERR_NAME(name, value, msg)                                                            \
    case PLY_##name:                                                                               \
        return "PLY_" #name;
        PLY_ERRNO_MAP(PLY__ERR_NAME)
#undef PLY__ERR_NAME
    default:
        return "PLY_EUNKNOWN";
    }
}

int ply_why(char *why, size_t why_len, int err, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return err;
}
