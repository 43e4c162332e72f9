/*
 * ply's engine in this process behind the UCI loop (uci_backend.h): the
 * search is ply_engine_search on the loop's job thread, and the options it
 * owns are the engine's table, threads and evaluation (Use NNUE, EvalFile:
 * the network of nnue.h, the built-in one or a file's).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nnue.h"
#include "uci_backend.h"
#include "util/error.h"

/* EvalFile's value for the network built into the executable. */
#define BUILT_IN "<built-in>"

/* Hash and Threads as search.h's ply_engine_new accepts; Hash's default is Stockfish's.
 * Use NNUE's default is the engine's, PLY_ENGINE_NNUE_DEFAULT (set in ply_uci_builtin_new). */
enum { OPT_HASH, OPT_THREADS, OPT_NNUE, OPT_EVALFILE, OPT_CLEAR, N_OPTIONS };
static const ply_uci_option_t options[N_OPTIONS] = {
    [OPT_HASH] = {"Hash", PLY_UCI_OPTION_SPIN, 16, 1, 1048576, NULL},
    [OPT_THREADS] = {"Threads", PLY_UCI_OPTION_SPIN, 1, 1, 1024, NULL},
    [OPT_NNUE] = {"Use NNUE", PLY_UCI_OPTION_CHECK, 0, 0, 1, NULL},
    [OPT_EVALFILE] = {"EvalFile", PLY_UCI_OPTION_STRING, 0, 0, 0, BUILT_IN},
    [OPT_CLEAR] = {"Clear Hash", PLY_UCI_OPTION_BUTTON, 0, 0, 0, NULL},
};

typedef struct builtin {
    ply_uci_backend_t base;
    ply_uci_backend_ops_t ops;           /* builtin_ops with this build's options */
    ply_uci_option_t options[N_OPTIONS]; /* Use NNUE's default depends on the build */
    ply_engine_t *engine;
    int64_t hash_mib;
    int use_nnue;            /* Use NNUE */
    const ply_nnue_t *net;   /* EvalFile's network: the built-in one, file_net, or NULL */
    ply_nnue_t *file_net;    /* a network read from a file (owned) */
    char net_name[256];      /* EvalFile's value as set, for the messages */
} builtin_t;

/* The engine evaluates as Use NNUE and EvalFile say; a text for the GUI in @why. */
static void apply_eval(builtin_t *e, char *why, size_t why_len)
{
    ply_engine_set_net(e->engine, e->use_nnue ? e->net : NULL);
    if (!e->use_nnue)
        snprintf(why, why_len, "classical evaluation (Use NNUE false)");
    else if (!e->net)
        snprintf(why, why_len,
                 "classical evaluation: no network (this build embeds none; set EvalFile to a "
                 "file)");
    else
        snprintf(why, why_len, "NNUE evaluation with %s (%d neurons a side, checksum %016llx)",
                 e->net_name, ply_nnue_hidden(e->net),
                 (unsigned long long)ply_nnue_checksum(e->net));
}

static int set_text(ply_uci_backend_t *b, const ply_uci_option_t *opt, const char *text,
                    char *why, size_t why_len)
{
    builtin_t *e = (builtin_t *)b;
    (void)opt; /* EvalFile is its only string */
    if (!*text || !strcmp(text, BUILT_IN)) {
        char inner[200];
        const ply_nnue_t *net = ply_nnue_embedded(inner, sizeof inner);
        if (!net) return ply_why(why, why_len, PLY_ENOTFOUND, "EvalFile: %s", inner);
        ply_nnue_destroy(&e->file_net);
        e->net = net;
        snprintf(e->net_name, sizeof e->net_name, "%s", BUILT_IN);
    } else {
        char inner[512];
        ply_nnue_t *net = ply_nnue_load_file(text, inner, sizeof inner);
        if (!net)
            return ply_why(why, why_len, PLY_EPARSE, "EvalFile refused, %s kept: %s",
                           e->net ? e->net_name : "no network", inner);
        ply_nnue_destroy(&e->file_net);
        e->net = e->file_net = net;
        snprintf(e->net_name, sizeof e->net_name, "%s", text);
    }
    apply_eval(e, why, why_len);
    return 0;
}

static int set_option(ply_uci_backend_t *b, const ply_uci_option_t *opt, int64_t value, char *why,
                      size_t why_len)
{
    builtin_t *e = (builtin_t *)b;
    if (!strcasecmp(opt->name, "Clear Hash")) {
        ply_engine_clear(e->engine);
        return 0;
    }
    if (!strcasecmp(opt->name, "Use NNUE")) {
        e->use_nnue = (int)value;
        apply_eval(e, why, why_len);
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
    ply_nnue_destroy(&e->file_net);
    free(e);
}

static const ply_uci_backend_ops_t builtin_ops = {
    .id_name = "ply",
    .options = options,
    .n_options = N_OPTIONS,
    .set_option = set_option,
    .set_text = set_text,
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
    e->ops = builtin_ops;
    memcpy(e->options, options, sizeof options);
    e->ops.options = e->options;
    e->base.ops = &e->ops;
    e->hash_mib = (int64_t)hash_mib;
    e->engine = ply_engine_new(hash_mib, threads);
    if (!e->engine) {
        free(e);
        return NULL;
    }
    /* the engine's default: the network when there is one (the built-in one, or later
     * EvalFile's), so that setting EvalFile alone is enough */
    e->net = ply_nnue_embedded(NULL, 0);
    snprintf(e->net_name, sizeof e->net_name, "%s", BUILT_IN);
    e->use_nnue = PLY_ENGINE_NNUE_DEFAULT;
    e->options[OPT_NNUE].def = e->use_nnue;
    return &e->base;
}

void ply_uci_backend_destroy(ply_uci_backend_t **b)
{
    if (!b || !*b) return;
    (*b)->ops->destroy(*b);
    *b = NULL;
}
