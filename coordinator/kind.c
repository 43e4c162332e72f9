/*
 * The registry of job kinds (kind.h): a new kind is one module and one line
 * here (or, for a kind outside coordinator/, one call of ply__kind_register).
 */
#include "kind.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

_Static_assert(PLY_STORE_KIND_PERFT == PLY__JOB_KIND__JOB_KIND_PERFT &&
                   PLY_STORE_KIND_SEARCH == PLY__JOB_KIND__JOB_KIND_SEARCH,
               "the state file numbers job kinds as proto/ply.proto does");

extern const ply__kind_t ply__kind_perft;  /* kind 1: perft/kind.c */
extern const ply__kind_t ply__kind_search; /* kind 2: search/kind.c */

static const ply__kind_t *const kinds[] = {
    &ply__kind_perft,
    &ply__kind_search,
};

/* Kinds registered at run time (ply__kind_register), after the built-in ones. */
#define MORE_KINDS 8
static const ply__kind_t *more[MORE_KINDS];
static size_t nmore;

#define NKINDS (sizeof kinds / sizeof *kinds)

const ply__kind_t *ply__kind_at(size_t i)
{
    return i < NKINDS ? kinds[i] : i - NKINDS < nmore ? more[i - NKINDS] : NULL;
}

int ply__kind_register(const ply__kind_t *kind)
{
    if (!kind || kind->id <= 0 || ply__kind_of(kind->id)) return PLY_EINVAL;
    if (nmore == MORE_KINDS) return PLY_ENOMEM;
    more[nmore++] = kind;
    return 0;
}

const ply__kind_t *ply__kind_of(int kind)
{
    for (size_t i = 0; ply__kind_at(i); i++)
        if (ply__kind_at(i)->id == kind) return ply__kind_at(i);
    return NULL;
}

int ply__kinds_upgrade_row(const ply_store_old_run_t *row, uint8_t **request, size_t *request_len,
                           uint8_t **reply, size_t *reply_len)
{
    const ply__kind_t *k = ply__kind_of(row->kind);
    if (!k || !k->upgrade_row) return 0; /* its row stays as it is */
    return k->upgrade_row(row, request, request_len, reply, reply_len);
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
