/* Exact counts in JSON output: the marker strings and their rewriting (see json_exact.h). */
#include "util/json_exact.h"

#include <stdlib.h>
#include <string.h>

/* As jansson writes the marker "\x01ply-count:" inside a JSON string. */
#define MARK      "\x01ply-count:"
#define MARK_JSON "\"\\u0001ply-count:"

json_t *ply_json_count(ply_u128_t v)
{
    if (v <= (ply_u128_t)INT64_MAX) return json_integer((json_int_t)v);
    char text[sizeof MARK + PLY_U128_DEC_LEN];
    memcpy(text, MARK, sizeof MARK - 1);
    ply_u128_to_dec(v, text + sizeof MARK - 1, PLY_U128_DEC_LEN);
    return json_string(text);
}

char *ply_json_dumps(const json_t *json, size_t flags)
{
    char *s = json_dumps(json, flags);
    if (!s) return NULL;
    /* "\u0001ply-count:DIGITS" -> DIGITS, in place (the text only shrinks) */
    char *r = s, *w = s;
    size_t mlen = strlen(MARK_JSON);
    while (*r) {
        if (strncmp(r, MARK_JSON, mlen) == 0) {
            const char *d = r + mlen;
            size_t n = strspn(d, "0123456789");
            if (n && d[n] == '"') {
                memmove(w, d, n);
                w += n;
                r = (char *)d + n + 1;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = 0;
    return s;
}

int ply_json_dumpf(const json_t *json, FILE *out, size_t flags)
{
    char *s = ply_json_dumps(json, flags);
    if (!s) return -1;
    size_t n = strlen(s);
    int rc = fwrite(s, 1, n, out) == n ? 0 : -1;
    free(s);
    return rc;
}

/* The length of the valid UTF-8 sequence at @p (RFC 3629, section 4), or 0. */
static size_t utf8_len(const unsigned char *p)
{
    const unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

json_t *ply_json_text(const char *s)
{
    if (!s) return NULL;
    json_t *j = json_string(s);
    if (j) return j;
    const size_t len = strlen(s);
    char *fixed = malloc(3 * len + 1); /* each byte at most U+FFFD's three */
    if (!fixed) return NULL;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const size_t n = utf8_len(p);
        if (n) {
            memcpy(fixed + o, p, n);
            o += n, p += n;
        } else {
            memcpy(fixed + o, "\xEF\xBF\xBD", 3);
            o += 3, p++;
        }
    }
    fixed[o] = '\0';
    j = json_string(fixed);
    free(fixed);
    return j;
}
