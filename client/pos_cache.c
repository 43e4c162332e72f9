/*
 * The position cache (pos_cache.h): czmq's zhashx by identity, and a ring of the keys in
 * insertion order that says which one to forget when full.
 */
#include "pos_cache.h"

#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "util/error.h"

struct ply_pos_cache {
    zhashx_t *lines;
    char (*ring)[PLY_ARB_FEN_MAX]; /* keys, oldest at ring[head] once full */
    size_t capacity, head, n;
};

static void free_line(void **item)
{
    free(*item);
    *item = NULL;
}

ply_pos_cache_t *ply_pos_cache_new(size_t capacity)
{
    ply_pos_cache_t *c = calloc(1, sizeof *c);
    if (!c || capacity == 0) {
        free(c);
        return NULL;
    }
    c->capacity = capacity;
    c->lines = zhashx_new();
    c->ring = calloc(capacity, sizeof *c->ring);
    if (!c->lines || !c->ring) {
        ply_pos_cache_destroy(&c);
        return NULL;
    }
    zhashx_set_destructor(c->lines, free_line);
    return c;
}

void ply_pos_cache_destroy(ply_pos_cache_t **c)
{
    if (!c || !*c) return;
    zhashx_destroy(&(*c)->lines);
    free((*c)->ring);
    free(*c);
    *c = NULL;
}

const ply_pa_line_t *ply_pos_cache_get(ply_pos_cache_t *c, const char *identity)
{
    return zhashx_lookup(c->lines, identity);
}

int ply_pos_cache_put(ply_pos_cache_t *c, const char *identity, const ply_pa_line_t *line)
{
    ply_pa_line_t *old = zhashx_lookup(c->lines, identity);
    if (old) { /* a re-search: same key, same place in the ring */
        *old = *line;
        return 0;
    }
    ply_pa_line_t *copy = malloc(sizeof *copy);
    if (!copy) return PLY_ENOMEM;
    *copy = *line;
    if (c->n == c->capacity) { /* forget the oldest; its slot takes the new key */
        zhashx_delete(c->lines, c->ring[c->head]);
        c->n--;
    }
    if (zhashx_insert(c->lines, identity, copy) != 0) {
        free(copy);
        return PLY_ENOMEM;
    }
    snprintf(c->ring[c->head], sizeof c->ring[c->head], "%s", identity);
    c->head = (c->head + 1) % c->capacity;
    c->n++;
    return 0;
}

size_t ply_pos_cache_size(const ply_pos_cache_t *c)
{
    return c->n;
}
