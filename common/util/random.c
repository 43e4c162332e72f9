/* The kernel's CSPRNG (random.h). getrandom(2) returns at most 32 MiB per
 * call and may be cut short by a signal: loop until @len bytes are in. */
#include "random.h"

#include <errno.h>
#include <sys/random.h>

#include "error.h"

int ply_random_bytes(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return PLY_EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int ply_random_u64(uint64_t *out)
{
    return ply_random_bytes(out, sizeof *out);
}
