/*
 * The perft kind's part of the state file's migration from format 4 (before PLY/2): a perft
 * run's request was kept in columns of its own (fen, depth, chess960, stats, want_split) and
 * its answer in PLY/1's shape; format 5 keeps the request encoded (what perft/kind.c
 * normalises and stores) and the answer's RunAsked as PLY/2 says it. The store gives each row
 * to the coordinator's registry of kinds (kind.h upgrade_row), which gives perft's here.
 */
#include <stdint.h>
#include <stdlib.h>

#include "perft/perft.h"
#include "util/error.h"

/*
 * A format-4 perft run's request, from its columns, as PLY/2 says it (RunAsked.perft, and
 * what perft/kind.c normalises and stores): @p's strings point into @fen.
 */
static void perft_request_of(Ply__PerftRequest *p, const char *fen, int depth, int chess960,
                             int stats, int want_split)
{
    *p = (Ply__PerftRequest)PLY__PERFT_REQUEST__INIT;
    p->fen = (char *)fen;
    p->has_depth = 1, p->depth = (uint32_t)depth;
    p->has_chess960 = 1, p->chess960 = chess960 != 0;
    p->has_stats = 1, p->stats = stats != 0;
    p->has_split_depth = 1, p->split_depth = want_split < 0 ? -1 : want_split;
}

/*
 * A stored answer @reply (@n bytes: a Message) of a perft run whose request is @p, with its
 * RunAsked as PLY/2 says it: kind 1 and @p in place of PLY/1's fields 60-64. Returns a new
 * encoding (caller frees; its size in *out_len), or NULL when there is nothing to rewrite
 * (another message, an answer without RunAsked, bytes that do not decode: kept as they are)
 * or memory ran out (*out_len SIZE_MAX).
 */
static uint8_t *perft_reply_v2(const uint8_t *reply, size_t n, const Ply__PerftRequest *p,
                               size_t *out_len)
{
    *out_len = 0;
    Ply__Message *m = reply && n ? ply__message__unpack(NULL, n, reply) : NULL;
    Ply__RunAsked *a = m && m->body_case == PLY__MESSAGE__BODY_RUN_RESULT && m->run_result
                           ? m->run_result->asked
                           : NULL;
    uint8_t *out = NULL;
    if (a && (!a->has_kind || a->kind == PLY__JOB_KIND__JOB_KIND_PERFT) && !a->search) {
        /* PLY/1's fen, depth, chess960, stats and split_depth, unknown to PLY/2: dropped */
        for (size_t i = 0; i < a->base.n_unknown_fields; i++) free(a->base.unknown_fields[i].data);
        free(a->base.unknown_fields);
        a->base.unknown_fields = NULL, a->base.n_unknown_fields = 0;
        a->has_kind = 1, a->kind = PLY__JOB_KIND__JOB_KIND_PERFT;
        a->perft = (Ply__PerftRequest *)p;
        size_t len = ply__message__get_packed_size(m);
        out = malloc(len ? len : 1);
        if (out)
            *out_len = ply__message__pack(m, out);
        else
            *out_len = SIZE_MAX;
        a->perft = NULL; /* @p is the caller's */
    }
    if (m) ply__message__free_unpacked(m, NULL);
    return out;
}

int ply__perft_upgrade_row(const ply_store_old_run_t *row, uint8_t **request,
                           size_t *request_len, uint8_t **reply, size_t *reply_len)
{
    Ply__PerftRequest p;
    perft_request_of(&p, row->fen, row->depth, row->chess960, row->stats, row->want_split);
    size_t n = ply__perft_request__get_packed_size(&p), len = 0;
    uint8_t *req = malloc(n ? n : 1);
    uint8_t *rep = perft_reply_v2(row->reply, row->reply_len, &p, &len);
    if (!req || len == SIZE_MAX) {
        free(req);
        free(rep);
        return PLY_ENOMEM;
    }
    *request_len = ply__perft_request__pack(&p, req);
    *request = req;
    *reply = rep, *reply_len = rep ? len : 0;
    return 0;
}
