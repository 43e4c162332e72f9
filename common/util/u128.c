/* Exact 128-bit counts: checked sums and decimal text (see u128.h). */
#include "util/u128.h"

#include <string.h>

#include "util/error.h"

int ply_u128_add(ply_u128_t *acc, ply_u128_t x)
{
    ply_u128_t sum;
    if (__builtin_add_overflow(*acc, x, &sum)) return PLY_ERANGE;
    *acc = sum;
    return 0;
}

int ply_u128_add_mul(ply_u128_t *acc, uint64_t mult, uint64_t count)
{
    return ply_u128_add(acc, (ply_u128_t)mult * count);
}

int ply_u128_cmp(ply_u128_t a, ply_u128_t b)
{
    return a < b ? -1 : a > b;
}

char *ply_u128_to_dec(ply_u128_t v, char *buf, size_t len)
{
    char tmp[PLY_U128_DEC_LEN];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    if (!len) return buf;
    if (n + 1 > len) {
        buf[0] = 0;
        return buf;
    }
    for (size_t i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return buf;
}

char *ply_u128_to_grouped(ply_u128_t v, char *buf, size_t len)
{
    char digits[PLY_U128_DEC_LEN];
    ply_u128_to_dec(v, digits, sizeof digits);
    size_t n = strlen(digits), out = n + (n - 1) / 3;
    if (!len) return buf;
    if (out + 1 > len) {
        buf[0] = 0;
        return buf;
    }
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) buf[j++] = ',';
        buf[j++] = digits[i];
    }
    buf[j] = 0;
    return buf;
}

int ply_u128_from_dec(const char *s, ply_u128_t *out)
{
    if (!s || !*s) return PLY_EINVAL;
    const ply_u128_t max = ~(ply_u128_t)0;
    ply_u128_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return PLY_EINVAL;
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10) return PLY_ERANGE;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}
