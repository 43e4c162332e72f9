/*
 * ply's engine in this process behind the UCI loop (uci_backend.h): the
 * search is ply_engine_search on the loop's job thread, and the options it
 * owns are the engine's table and threads.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "uci_backend.h"
#include "util/error.h"

/* Hash and Threads as search.h's ply_engine_new accepts; Hash's default is Stockfish's. */
static const ply_uci_option_t options[] = {
    {"Hash", PLY_UCI_OPTION_SPIN, 16, 1, 1048576},
    {"Threads", PLY_UCI_OPTION_SPIN, 1, 1, 1024},
    {"Clear Hash", PLY_UCI_OPTION_BUTTON, 0, 0, 0},
};

typedef struct builtin {
    ply_uci_backend_t base;
    ply_engine_t *engine;
    int64_t hash_mib;
} builtin_t;

static int set_option(ply_uci_backend_t *b, const ply_uci_option_t *opt, int64_t value, char *why,
                      size_t why_len)
{
    builtin_t *e = (builtin_t *)b;
    if (!strcasecmp(opt->name, "Clear Hash")) {
        ply_engine_clear(e->engine);
        return 0;
    }
    if (!strcasecmp(opt->name, "Hash")) {
        if (ply_engine_set_hash(e->engine, (size_t)value) < 0) {
            snprintf(why, why_len,
                     "cannot allocate a %" PRId64 " MiB table; keeping %" PRId64 " MiB", value,
                     e->hash_mib);
            return PLY_ENOMEM;
        }
        e->hash_mib = value;
        return 0;
    }
    if (ply_engine_set_threads(e->engine, (int)value) < 0) {
        snprintf(why, why_len, "the engine refused %" PRId64 " threads", value);
        return PLY_EINVAL;
    }
    return 0;
}

static void new_game(ply_uci_backend_t *b)
{
    ply_engine_clear(((builtin_t *)b)->engine);
}

static int search(ply_uci_backend_t *b, const ply_uci_go_t *go, ply_search_info_fn cb, void *arg,
                  ply_search_result_t *out, char *why, size_t why_len)
{
    (void)why, (void)why_len; /* the engine's only error, PLY_EINVAL, says it all */
    return ply_engine_search(((builtin_t *)b)->engine, go->pos, go->lim, cb, arg, out);
}

static void stop(ply_uci_backend_t *b)
{
    ply_engine_stop(((builtin_t *)b)->engine);
}

static void clear_stop(ply_uci_backend_t *b)
{
    ply_engine_clear_stop(((builtin_t *)b)->engine);
}

static void ponderhit(ply_uci_backend_t *b)
{
    ply_engine_ponderhit(((builtin_t *)b)->engine);
}

static void destroy(ply_uci_backend_t *b)
{
    builtin_t *e = (builtin_t *)b;
    ply_engine_destroy(&e->engine);
    free(e);
}

static const ply_uci_backend_ops_t builtin_ops = {
    .id_name = "ply",
    .options = options,
    .n_options = (int)(sizeof options / sizeof *options),
    .set_option = set_option,
    .new_game = new_game,
    .search = search,
    .stop = stop,
    .clear_stop = clear_stop,
    .ponderhit = ponderhit,
    .destroy = destroy,
};

ply_uci_backend_t *ply_uci_builtin_new(size_t hash_mib, int threads)
{
    builtin_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->base.ops = &builtin_ops;
    e->hash_mib = (int64_t)hash_mib;
    e->engine = ply_engine_new(hash_mib, threads);
    if (!e->engine) {
        free(e);
        return NULL;
    }
    return &e->base;
}

void ply_uci_backend_destroy(ply_uci_backend_t **b)
{
    if (!b || !*b) return;
    (*b)->ops->destroy(*b);
    *b = NULL;
}
