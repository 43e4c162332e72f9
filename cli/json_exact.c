/* Exact counts in JSON output: the marker strings and their rewriting (see json_exact.h). */
#include "json_exact.h"

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
