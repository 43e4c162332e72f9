/*
 * The run journal of `ply analyse-pgn --state` (run_journal.h): a text file read once
 * into a zhashx, then appended to.
 */
#include "run_journal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "util/error.h"

struct ply_run_journal {
    FILE *f;
    zhashx_t *ids; /* key -> run id (uint64_t, owned) */
};

static void free_id(void **item)
{
    free(*item);
    *item = NULL;
}

static int remember(ply_run_journal_t *j, const char *key, uint64_t id)
{
    uint64_t *v = malloc(sizeof *v);
    if (!v) return PLY_ENOMEM;
    *v = id;
    zhashx_update(j->ids, key, v);
    return 0;
}

ply_run_journal_t *ply_run_journal_open(const char *path, char *why, size_t why_len)
{
    ply_run_journal_t *j = calloc(1, sizeof *j);
    if (!j || !(j->ids = zhashx_new())) {
        free(j);
        ply_why(why, why_len, PLY_ENOMEM, "out of memory");
        return NULL;
    }
    zhashx_set_destructor(j->ids, free_id);
    j->f = fopen(path, "a+");
    if (!j->f) {
        ply_why(why, why_len, PLY_EIO, "cannot write the run journal %s", path);
        ply_run_journal_close(&j);
        return NULL;
    }
    rewind(j->f);
    char line[128], key[PLY_RUN_JOURNAL_KEY];
    uint64_t id;
    while (fgets(line, sizeof line, j->f))
        if (strchr(line, '\n') && sscanf(line, "%40s %" SCNu64, key, &id) == 2 &&
            strlen(key) == PLY_RUN_JOURNAL_KEY - 1 && id)
            remember(j, key, id);
    return j;
}

void ply_run_journal_close(ply_run_journal_t **j)
{
    if (!j || !*j) return;
    if ((*j)->f) fclose((*j)->f);
    zhashx_destroy(&(*j)->ids);
    free(*j);
    *j = NULL;
}

static void put(zdigest_t *d, const char *s)
{
    zdigest_update(d, (const byte *)s, strlen(s) + 1); /* the NUL separates the fields */
}

void ply_run_journal_key(const ply_search_request_t *req, char key[PLY_RUN_JOURNAL_KEY])
{
    zdigest_t *d = zdigest_new();
    key[0] = '\0'; /* no key: nothing found, nothing recorded */
    if (!d) return;
    char num[64];
    put(d, req->fen);
    for (size_t i = 0; i < req->nmoves; i++) put(d, req->moves[i]);
    snprintf(num, sizeof num, "plies %zu", req->nplies);
    put(d, num);
    for (size_t i = 0; i < req->nplies; i++) {
        snprintf(num, sizeof num, "%" PRIu32, req->plies[i]);
        put(d, num);
    }
    snprintf(num, sizeof num, "%u %" PRIu64 " %u %d", req->depth, req->nodes, req->movetime_ms,
             req->chess960);
    put(d, num);
    put(d, req->engine ? req->engine : "");
    snprintf(key, PLY_RUN_JOURNAL_KEY, "%s", zdigest_string(d));
    zdigest_destroy(&d);
}

uint64_t ply_run_journal_find(ply_run_journal_t *j, const char *key)
{
    if (!key[0]) return 0;
    const uint64_t *v = zhashx_lookup(j->ids, key);
    return v ? *v : 0;
}

int ply_run_journal_add(ply_run_journal_t *j, const char *key, uint64_t id)
{
    if (!key[0]) return 0;
    if (fprintf(j->f, "%s %" PRIu64 "\n", key, id) < 0 || fflush(j->f) != 0) return PLY_EIO;
    return remember(j, key, id);
}
