/* The search engine of a command's workers (search_engine_opts.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands.h"
#include "search_engine_opts.h"

int ply_cli_search_engine_option(const char *cmd, ply_cli_search_engine_t *e, int c,
                                 const char *arg)
{
    switch (c - PLY_CLI_SEARCH_ENGINE_OPT) {
    case 0:
        if (strcmp(arg, "builtin") && strcmp(arg, "uci"))
            return ply_usage_error(cmd, "--engine '%s' must be builtin or uci", arg);
        e->engine = arg;
        return 0;
    case 1:
        e->uci_engine = arg;
        return 0;
    case 2:
        if (!strchr(arg, '=') || arg[0] == '=')
            return ply_usage_error(cmd, "--engine-option '%s' must be NAME=VALUE", arg);
        if (e->noptions == PLY_SESSION_ENGINE_OPTIONS_MAX - 2)
            return ply_usage_error(cmd, "at most %d --engine-option",
                                   PLY_SESSION_ENGINE_OPTIONS_MAX - 2);
        e->options[e->noptions++] = arg;
        return 0;
    default:
        return -1;
    }
}

/* An option has a NAME=... in @e's engine options already. */
static int has_option(const ply_cli_search_engine_t *e, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < e->noptions; i++)
        if (!strncasecmp(e->options[i], name, n) && e->options[i][n] == '=') return 1;
    return 0;
}

int ply_cli_search_engine_choose(const char *cmd, ply_cli_search_engine_t *e,
                                 ply_cli_session_opts_t *s)
{
    if (e->uci_engine && !e->engine) e->engine = "uci"; /* naming one asks for it */
    int local = !s->cfg.coordinator;
    int uci = e->engine && !strcmp(e->engine, "uci");
    if (!local && (e->uci_engine || e->noptions))
        return ply_usage_error(cmd,
                               "%s does not apply with --coordinator (its workers "
                               "chose their engines)",
                               e->uci_engine ? "--uci-engine" : "--engine-option");
    if (!uci && (e->uci_engine || e->noptions))
        return ply_usage_error(cmd, "%s needs --engine uci",
                               e->uci_engine ? "--uci-engine" : "--engine-option");
    if (!local || !uci) return 0;
    if (!e->uci_engine) {
        if (access(PLY_CLI_DEFAULT_UCI_ENGINE, X_OK) != 0)
            return ply_usage_error(cmd, "--engine uci needs a UCI engine for the local "
                                        "workers: --uci-engine CMD (" PLY_CLI_DEFAULT_UCI_ENGINE
                                        " is not installed)");
        e->uci_engine = PLY_CLI_DEFAULT_UCI_ENGINE;
    }
    char prog[1024];
    snprintf(prog, sizeof prog, "%.*s", (int)strcspn(e->uci_engine, " \t"), e->uci_engine);
    if (strchr(prog, '/') && access(prog, X_OK) != 0) /* a path that cannot run, before any work */
        return ply_usage_error(cmd, "--uci-engine: %s is not an executable program", prog);
    /* the engine's own threads and table are what --threads and --hash mean for it */
    if (s->cfg.threads && !has_option(e, "Threads")) {
        snprintf(e->threads_opt, sizeof e->threads_opt, "Threads=%d", s->cfg.threads);
        e->options[e->noptions++] = e->threads_opt;
    }
    if (s->hash_given && s->cfg.hash_mib && !has_option(e, "Hash")) {
        snprintf(e->hash_opt, sizeof e->hash_opt, "Hash=%u", s->cfg.hash_mib);
        e->options[e->noptions++] = e->hash_opt;
    }
    s->cfg.engine_cmd = e->uci_engine;
    s->cfg.engine_options = e->options;
    s->cfg.nengine_options = e->noptions;
    return 0;
}
