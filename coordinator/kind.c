/*
 * The registry of job kinds (kind.h): a new kind is one module and one line
 * here.
 */
#include "kind.h"

#include <stdio.h>
#include <string.h>

_Static_assert(PLY_STORE_KIND_PERFT == PLY__JOB_KIND__JOB_KIND_PERFT &&
                   PLY_STORE_KIND_SEARCH == PLY__JOB_KIND__JOB_KIND_SEARCH,
               "the state file numbers job kinds as proto/ply.proto does");

extern const ply__kind_t ply__kind_perft;  /* kind 1: perft/kind.c */
extern const ply__kind_t ply__kind_search; /* kind 2: search/kind.c */

static const ply__kind_t *const kinds[] = {
    &ply__kind_perft,
    &ply__kind_search,
};

const ply__kind_t *ply__kind_at(size_t i)
{
    return i < sizeof kinds / sizeof *kinds ? kinds[i] : NULL;
}

const ply__kind_t *ply__kind_of(int kind)
{
    for (size_t i = 0; ply__kind_at(i); i++)
        if (ply__kind_at(i)->id == kind) return ply__kind_at(i);
    return NULL;
}

const ply__kind_t *ply__kind_default(void)
{
    return &ply__kind_perft;
}

void ply__kinds_text(uint32_t mask, const char *sep, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; ply__kind_at(i) && o < len; i++) {
        const ply__kind_t *k = ply__kind_at(i);
        if (k->id >= 0 && k->id < 32 && (mask & (1u << k->id)))
            o += (size_t)snprintf(buf + o, len - o, "%s%s", sep, k->name);
    }
}
