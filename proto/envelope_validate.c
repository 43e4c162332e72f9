/*
 * The envelope's validation (envelope.h, ply_msg_validate): per message type, the
 * fields it needs, present and in range, and every string bounded, one line and valid
 * UTF-8; the reason names the type and the field. ply_msg_decode (envelope.c) calls it
 * on everything a peer sends. The search kind's messages are checked in
 * envelope_search.c, on the helpers of envelope_check.h defined here.
 */
#include "envelope.h"
#include "envelope_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* ------------------------------------------------------------- validation */

/* Records "TYPE: detail" and returns PLY_EPROTO, so checks can chain with ||. */
int ply__env_bad(ply__vctx_t *c, const char *fmt, ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    ply__env_say(c->why, c->why_len, "%s: %s", c->type, detail);
    return PLY_EPROTO;
}

/* Upper bound meaning "any value of the field's type". */
static const uint64_t NO_MAX = UINT64_MAX;

static int in_u64(ply__vctx_t *c, const char *field, uint64_t v, uint64_t lo, uint64_t hi)
{
    if (v >= lo && v <= hi) return 0;
    if (lo == hi) return ply__env_bad(c, "field %s = %" PRIu64 ", must be %" PRIu64, field, v, lo);
    if (hi == NO_MAX)
        return ply__env_bad(c, "field %s = %" PRIu64 ", must be at least %" PRIu64, field, v, lo);
    return ply__env_bad(c, "field %s = %" PRIu64 ", must be %" PRIu64 "..%" PRIu64, field, v, lo,
                        hi);
}

int ply__env_need(ply__vctx_t *c, const char *field, int has)
{
    return has ? 0 : ply__env_bad(c, "field %s missing", field);
}

int ply__env_need_u64(ply__vctx_t *c, const char *field, int has, uint64_t v, uint64_t lo,
                      uint64_t hi)
{
    return ply__env_need(c, field, has) ? PLY_EPROTO : in_u64(c, field, v, lo, hi);
}

/* A free-text field: at most PLY_MAX_TEXT bytes, one line, valid UTF-8. */
int ply__env_text(ply__vctx_t *c, const char *field, const char *s, size_t min)
{
    if (!s) return min ? ply__env_bad(c, "field %s missing", field) : 0;
    size_t n = strnlen(s, PLY_MAX_TEXT + 1);
    if (n < min || n > PLY_MAX_TEXT)
        return ply__env_bad(c, "field %s is %s%zu bytes, must be %zu..%d", field,
                            n > PLY_MAX_TEXT ? "over " : "", n > PLY_MAX_TEXT ? n - 1 : n, min,
                            PLY_MAX_TEXT);
    if (!ply__env_text_clean(s, n))
        return ply__env_bad(c, "field %s has a control character or invalid UTF-8", field);
    return 0;
}

static int need_text(ply__vctx_t *c, const char *field, const char *s)
{
    return ply__env_text(c, field, s, 1);
}
static int opt_text(ply__vctx_t *c, const char *field, const char *s)
{
    return ply__env_text(c, field, s, 0);
}

/* A position: 1..PLY_MAX_FEN_LEN bytes of printable ASCII (FEN has no other bytes). */
int ply__env_fen(ply__vctx_t *c, const char *field, const char *s)
{
    if (!s) return ply__env_bad(c, "field %s missing", field);
    size_t n = strnlen(s, PLY_MAX_FEN_LEN + 1);
    if (n == 0 || n > PLY_MAX_FEN_LEN)
        return ply__env_bad(c, "field %s is %s%zu bytes, must be 1..%d", field,
                            n > PLY_MAX_FEN_LEN ? "over " : "", n > PLY_MAX_FEN_LEN ? n - 1 : n,
                            PLY_MAX_FEN_LEN);
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            return ply__env_bad(c, "field %s has a byte that is not printable ASCII at offset %zu",
                                field, i);
    return 0;
}

/* An owner token, when present: PLY_MIN..PLY_MAX_OWNER_TOKEN bytes of printable ASCII. */
static int owner_token(ply__vctx_t *c, const char *s)
{
    if (!s) return 0;
    size_t n = strnlen(s, PLY_MAX_OWNER_TOKEN + 1);
    if (n < PLY_MIN_OWNER_TOKEN || n > PLY_MAX_OWNER_TOKEN)
        return ply__env_bad(c, "field owner_token is %s%zu bytes, must be %d..%d",
                            n > PLY_MAX_OWNER_TOKEN ? "over " : "",
                            n > PLY_MAX_OWNER_TOKEN ? n - 1 : n, PLY_MIN_OWNER_TOKEN,
                            PLY_MAX_OWNER_TOKEN);
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] > 0x7e)
            return ply__env_bad(
                c, "field owner_token has a byte that is not printable ASCII at offset %zu", i);
    return 0;
}

/* UCI long algebraic: from-square, to-square, optional promotion piece. */
int ply__env_uci_move(ply__vctx_t *c, const char *field, const char *s)
{
    if (!s) return ply__env_bad(c, "field %s missing", field);
    size_t n = strnlen(s, 6);
    int ok = n == 4 || n == 5;
    for (size_t i = 0; ok && i < 4; i++)
        ok = (i % 2 == 0) ? (s[i] >= 'a' && s[i] <= 'h') : (s[i] >= '1' && s[i] <= '8');
    if (ok && n == 5) ok = strchr("nbrq", s[4]) != NULL;
    return ok ? 0
              : ply__env_bad(c, "field %s is not a UCI move (4-5 characters, a-h1-8, then nbrq)",
                             field);
}

/*
 * Statistics @st (may be NULL) of field @field: none or fifteen hi words, and
 * none at all in one job's (@job), whose counts fit in 64 bits.
 */
static int stats_words(ply__vctx_t *c, const char *field, const Ply__Stats *st, int job)
{
    if (!st || !st->n_hi) return 0;
    if (job) return ply__env_bad(c, "field %s.hi present: one job's counts fit in 64 bits", field);
    if (st->n_hi != PLY_STATS_N)
        return ply__env_bad(c, "field %s.hi has %zu words, must be 0 or %d", field, st->n_hi,
                            PLY_STATS_N);
    return 0;
}

/* A divide list; @job: one job's (every hi word absent or 0), else a run's. */
static int divide_list(ply__vctx_t *c, size_t n, Ply__DivideEntry *const *list, int job)
{
    char f[48];
    if (n > PLY_MAX_DIVIDE)
        return ply__env_bad(c, "field divide has %zu entries, must be at most %d", n,
                            PLY_MAX_DIVIDE);
    if (n && !list) return ply__env_bad(c, "field divide missing");
    for (size_t i = 0; i < n; i++) {
        const Ply__DivideEntry *e = list[i];
        snprintf(f, sizeof f, "divide[%zu]", i);
        if (!e) return ply__env_bad(c, "field %s missing", f);
        snprintf(f, sizeof f, "divide[%zu].move", i);
        if (ply__env_uci_move(c, f, e->move)) return PLY_EPROTO;
        snprintf(f, sizeof f, "divide[%zu].nodes", i);
        if (ply__env_need(c, f, e->has_nodes)) return PLY_EPROTO;
        if (job && e->has_nodes_hi && e->nodes_hi)
            return ply__env_bad(c, "field %s_hi = %" PRIu64 ": one job's counts fit in 64 bits", f,
                                e->nodes_hi);
        snprintf(f, sizeof f, "divide[%zu].stats", i);
        if (stats_words(c, f, e->stats, job)) return PLY_EPROTO;
    }
    return 0;
}

/*
 * The kinds a worker runs (Hello.kinds, WorkerStatus.kinds), named @field: at most
 * PLY_MAX_KINDS, each a kind number (not 0), each once. Which numbers the coordinator
 * runs is its registry's business, not the envelope's.
 */
static int kind_list(ply__vctx_t *c, const char *field, size_t n, const uint32_t *kinds)
{
    char f[48];
    if (n > PLY_MAX_KINDS)
        return ply__env_bad(c, "field %s has %zu entries, must be at most %d", field, n,
                            PLY_MAX_KINDS);
    if (n && !kinds) return ply__env_bad(c, "field %s missing", field);
    for (size_t i = 0; i < n; i++) {
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (in_u64(c, f, kinds[i], 1, UINT32_MAX)) return PLY_EPROTO;
        for (size_t k = 0; k < i; k++)
            if (kinds[k] == kinds[i])
                return ply__env_bad(c, "field %s = %" PRIu32 " listed twice", f, kinds[i]);
    }
    return 0;
}

/*
 * A kind number @kind (field @prefix"kind", present when @has) and the payload it needs: kind
 * PERFT the perft sub-message, kind SEARCH the search one, any other kind the `other` bytes
 * (its own encoding, left to the kind); the two others absent. @what names the message in a
 * reason ("job", "submit", "run's asked"). 0 or PLY_EPROTO.
 */
static int kind_shape(ply__vctx_t *c, const char *prefix, int has, uint32_t kind, int perft,
                      int search, int other, const char *what)
{
    char f[32];
    snprintf(f, sizeof f, "%skind", prefix);
    if (ply__env_need_u64(c, f, has, kind, 1, UINT32_MAX)) return PLY_EPROTO;
    const char *need = kind == PLY__JOB_KIND__JOB_KIND_PERFT    ? "perft"
                       : kind == PLY__JOB_KIND__JOB_KIND_SEARCH ? "search"
                                                                : "other";
    const char *name = kind == PLY__JOB_KIND__JOB_KIND_PERFT    ? "PERFT"
                       : kind == PLY__JOB_KIND__JOB_KIND_SEARCH ? "SEARCH"
                                                                : NULL;
    int have = kind == PLY__JOB_KIND__JOB_KIND_PERFT    ? perft
               : kind == PLY__JOB_KIND__JOB_KIND_SEARCH ? search
                                                        : other;
    const char *extra = strcmp(need, "perft") && perft     ? "perft"
                        : strcmp(need, "search") && search ? "search"
                        : strcmp(need, "other") && other   ? "other"
                                                           : NULL;
    if (extra && name)
        return ply__env_bad(c, "field %s%s present in a %s %s", prefix, extra, name, what);
    if (extra)
        return ply__env_bad(c, "field %s%s present in a %s of kind %" PRIu32, prefix, extra, what,
                            kind);
    if (have) return 0;
    if (name) return ply__env_bad(c, "field %s%s missing (kind %s)", prefix, need, name);
    return ply__env_bad(c,
                        "field %sother missing (kind %" PRIu32 " is not one proto/ describes: "
                        "its %s travels in other)",
                        prefix, kind, what);
}

/* A perft job (Job.perft): fen, depth 1..PLY_MAX_JOB_DEPTH. */
static int perft_job(ply__vctx_t *c, const Ply__PerftJob *j)
{
    if (ply__env_fen(c, "perft.fen", j->fen) ||
        ply__env_need_u64(c, "perft.depth", j->has_depth, j->depth, 1, PLY_MAX_JOB_DEPTH))
        return PLY_EPROTO;
    return 0;
}

/*
 * A perft run's request named @prefix ("perft", "asked.perft"): fen, depth 1..PLY_MAX_DEPTH,
 * split_depth -1..depth-1 (required when @asked: the run's answers say it).
 */
static int perft_request(ply__vctx_t *c, const char *prefix, const Ply__PerftRequest *r, int asked)
{
    char f[48];
    snprintf(f, sizeof f, "%s.fen", prefix);
    if (ply__env_fen(c, f, r->fen)) return PLY_EPROTO;
    snprintf(f, sizeof f, "%s.depth", prefix);
    if (ply__env_need_u64(c, f, r->has_depth, r->depth, 1, PLY_MAX_DEPTH)) return PLY_EPROTO;
    snprintf(f, sizeof f, "%s.split_depth", prefix);
    if (asked && ply__env_need(c, f, r->has_split_depth)) return PLY_EPROTO;
    if (r->has_split_depth && (r->split_depth < -1 || r->split_depth >= (int64_t)r->depth))
        return ply__env_bad(c, "field %s = %" PRId32 ", must be -1..%" PRIu32, f, r->split_depth,
                            r->depth - 1);
    return 0;
}

static int check_hello(ply__vctx_t *c, const void *body)
{
    const Ply__Hello *m = body;
    if (need_text(c, "worker_id", m->worker_id) ||
        ply__env_need_u64(c, "protocol", m->has_protocol, m->protocol, PLY_PROTOCOL_VERSION,
                          PLY_PROTOCOL_VERSION) ||
        opt_text(c, "build", m->build) ||
        ply__env_need_u64(c, "threads", m->has_threads, m->threads, 1, PLY_MAX_THREADS) ||
        ply__env_need(c, "hash_mib", m->has_hash_mib) ||
        ply__env_need(c, "zobrist_checksum", m->has_zobrist_checksum) ||
        opt_text(c, "engine", m->engine) || opt_text(c, "engine_id", m->engine_id))
        return PLY_EPROTO;
    return kind_list(c, "kinds", m->n_kinds, m->kinds);
}

static int check_welcome(ply__vctx_t *c, const void *body)
{
    const Ply__Welcome *m = body;
    if (ply__env_need_u64(c, "heartbeat_ms", m->has_heartbeat_ms, m->heartbeat_ms, 1,
                          PLY_MAX_HEARTBEAT_MS) ||
        ply__env_need_u64(c, "liveness", m->has_liveness, m->liveness, 1, PLY_MAX_LIVENESS))
        return PLY_EPROTO;
    return 0;
}

static int check_ready(ply__vctx_t *c, const void *body)
{
    const Ply__Ready *m = body;
    return ply__env_need_u64(c, "credit", m->has_credit, m->credit, 1, PLY_MAX_CREDIT);
}

static int check_job(ply__vctx_t *c, const void *body)
{
    const Ply__Job *m = body;
    if (ply__env_need_u64(c, "job_id", m->has_job_id, m->job_id, 1, NO_MAX) ||
        ply__env_need_u64(c, "attempt", m->has_attempt, m->attempt, 1, NO_MAX) ||
        kind_shape(c, "", m->has_kind, m->kind, m->perft != NULL, m->search != NULL, m->has_other,
                   "job"))
        return PLY_EPROTO;
    if (m->kind == PLY__JOB_KIND__JOB_KIND_SEARCH) {
        if (ply__env_search_job(c, m)) return PLY_EPROTO;
    } else if (m->kind == PLY__JOB_KIND__JOB_KIND_PERFT && perft_job(c, m->perft)) {
        return PLY_EPROTO;
    }
    return ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX);
}

static int check_progress(ply__vctx_t *c, const void *body)
{
    const Ply__Progress *m = body;
    if (ply__env_need_u64(c, "job_id", m->has_job_id, m->job_id, 1, NO_MAX) ||
        ply__env_need_u64(c, "attempt", m->has_attempt, m->attempt, 1, NO_MAX) ||
        ply__env_need(c, "nodes", m->has_nodes))
        return PLY_EPROTO;
    return 0;
}

static int check_result(ply__vctx_t *c, const void *body)
{
    const Ply__Result *m = body;
    if (ply__env_need_u64(c, "job_id", m->has_job_id, m->job_id, 1, NO_MAX) ||
        ply__env_need_u64(c, "attempt", m->has_attempt, m->attempt, 1, NO_MAX))
        return PLY_EPROTO;
    if (m->has_other) { /* another kind's answer: its own encoding, no perft or search field */
        const char *f = m->search         ? "search"
                        : m->has_nodes    ? "nodes"
                        : m->has_perft1   ? "perft1"
                        : m->stats        ? "stats"
                        : m->n_divide     ? "divide"
                        : m->has_tt_nodes ? "tt_nodes"
                                          : NULL;
        return f ? ply__env_bad(c, "field %s present beside other (another kind's answer)", f) : 0;
    }
    if (m->search) return ply__env_search_result(c, m); /* a search job's answer */
    if (ply__env_need(c, "nodes", m->has_nodes) ||
        ply__env_need_u64(c, "perft1", m->has_perft1, m->perft1, 0, PLY_MAX_DIVIDE) ||
        ply__env_need(c, "time_us", m->has_time_us) || stats_words(c, "stats", m->stats, 1) ||
        divide_list(c, m->n_divide, m->divide, 1))
        return PLY_EPROTO;
    return 0;
}

static int check_nothing(ply__vctx_t *c, const void *body)
{
    (void)c, (void)body;
    return 0;
}

static int check_error(ply__vctx_t *c, const void *body)
{
    const Ply__Error *m = body;
    if (ply__env_need(c, "code", m->has_code)) return PLY_EPROTO;
    if (m->code >= 0) return ply__env_bad(c, "field code = %" PRId32 ", must be negative", m->code);
    if (need_text(c, "message", m->message) || opt_text(c, "supported", m->supported))
        return PLY_EPROTO;
    return 0;
}

static int check_bye(ply__vctx_t *c, const void *body)
{
    const Ply__Bye *m = body;
    return opt_text(c, "reason", m->reason);
}

/* A Submit's verify mode (any kind: the coordinator says which kinds can be verified). */
static int submit_verify(ply__vctx_t *c, const Ply__Submit *m)
{
    if (m->has_verify &&
        in_u64(c, "verify", (uint64_t)(uint32_t)m->verify, PLY__VERIFY_MODE__VERIFY_MODE_NONE,
               PLY__VERIFY_MODE__VERIFY_MODE_ALL))
        return PLY_EPROTO;
    /* a sample needs its fraction; the other modes must not carry one */
    if (m->has_verify && m->verify == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
        return ply__env_need_u64(c, "verify_ppm", m->has_verify_ppm, m->verify_ppm, 1, PLY_PPM);
    if (m->has_verify_ppm) return ply__env_bad(c, "field verify_ppm given without verify = SAMPLE");
    return 0;
}

static int check_submit(ply__vctx_t *c, const void *body)
{
    const Ply__Submit *m = body;
    if (kind_shape(c, "", m->has_kind, m->kind, m->perft != NULL, m->search != NULL, m->has_other,
                   "submit") ||
        (m->kind == PLY__JOB_KIND__JOB_KIND_PERFT && perft_request(c, "perft", m->perft, 0)) ||
        (m->kind == PLY__JOB_KIND__JOB_KIND_SEARCH &&
         ply__env_search_request(c, "search", m->search)) ||
        opt_text(c, "client_id", m->client_id) || owner_token(c, m->owner_token))
        return PLY_EPROTO;
    if (m->has_idempotency_key && (m->idempotency_key.len < PLY_MIN_IDEMPOTENCY_KEY ||
                                   m->idempotency_key.len > PLY_MAX_IDEMPOTENCY_KEY))
        return ply__env_bad(c, "field idempotency_key is %zu bytes, must be %d..%d",
                            m->idempotency_key.len, PLY_MIN_IDEMPOTENCY_KEY,
                            PLY_MAX_IDEMPOTENCY_KEY);
    return submit_verify(c, m);
}

/* What a run computes (RunAsked): the same bounds as the Submit it came from. */
static int run_asked(ply__vctx_t *c, const Ply__RunAsked *a)
{
    if (!a) return 0;
    if (kind_shape(c, "asked.", a->has_kind, a->kind, a->perft != NULL, a->search != NULL,
                   a->has_other, "run's asked") ||
        (a->kind == PLY__JOB_KIND__JOB_KIND_PERFT &&
         perft_request(c, "asked.perft", a->perft, 1)) ||
        (a->kind == PLY__JOB_KIND__JOB_KIND_SEARCH &&
         ply__env_search_request(c, "asked.search", a->search)))
        return PLY_EPROTO;
    if (a->has_verify &&
        in_u64(c, "asked.verify", (uint64_t)(uint32_t)a->verify, PLY__VERIFY_MODE__VERIFY_MODE_NONE,
               PLY__VERIFY_MODE__VERIFY_MODE_ALL))
        return PLY_EPROTO;
    if (a->has_verify && a->verify == PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE)
        return ply__env_need_u64(c, "asked.verify_ppm", a->has_verify_ppm, a->verify_ppm, 1,
                                 PLY_PPM);
    if (a->has_verify_ppm)
        return ply__env_bad(c, "field asked.verify_ppm given without verify = SAMPLE");
    return 0;
}

static int check_accepted(ply__vctx_t *c, const void *body)
{
    const Ply__Accepted *m = body;
    /* jobs and split_depth are absent until the run is planned (issue 27: acknowledged once
     * durable, before its plan) */
    if (ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
        (m->has_split_depth && in_u64(c, "split_depth", m->split_depth, 0, PLY_MAX_DEPTH)) ||
        (m->fen && ply__env_fen(c, "fen", m->fen)) || run_asked(c, m->asked))
        return PLY_EPROTO;
    return 0;
}

static int check_run_progress(ply__vctx_t *c, const void *body)
{
    const Ply__RunProgress *m = body;
    char f[48];
    if (ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
        need_text(c, "state", m->state))
        return PLY_EPROTO;
    if (m->n_worker && !m->worker) return ply__env_bad(c, "field worker missing");
    for (size_t i = 0; i < m->n_worker; i++) {
        snprintf(f, sizeof f, "worker[%zu]", i);
        if (!m->worker[i]) return ply__env_bad(c, "field %s missing", f);
        snprintf(f, sizeof f, "worker[%zu].worker_id", i);
        if (opt_text(c, f, m->worker[i]->worker_id)) return PLY_EPROTO;
        snprintf(f, sizeof f, "worker[%zu].identity", i);
        if (opt_text(c, f, m->worker[i]->identity)) return PLY_EPROTO;
        snprintf(f, sizeof f, "worker[%zu].kinds", i);
        if (kind_list(c, f, m->worker[i]->n_kinds, m->worker[i]->kinds)) return PLY_EPROTO;
    }
    if ((m->fen && ply__env_fen(c, "fen", m->fen)) || opt_text(c, "verify", m->verify) ||
        opt_text(c, "error", m->error) || run_asked(c, m->asked) ||
        ply__env_search_answer(c, "search", m->search))
        return PLY_EPROTO;
    return 0;
}

static int check_mismatch(ply__vctx_t *c, size_t i, const Ply__Mismatch *x)
{
    char f[112];
    snprintf(f, sizeof f, "verification.mismatch[%zu].fen", i);
    if (x->fen && ply__env_fen(c, f, x->fen)) return PLY_EPROTO;
    snprintf(f, sizeof f, "verification.mismatch[%zu].drill_down", i);
    if (opt_text(c, f, x->drill_down)) return PLY_EPROTO;
    if (x->n_computation > PLY_MAX_COMPUTATIONS)
        return ply__env_bad(
            c,
            "field verification.mismatch[%zu].computation has %zu entries, must be at "
            "most %d",
            i, x->n_computation, PLY_MAX_COMPUTATIONS);
    if (x->n_computation && !x->computation)
        return ply__env_bad(c, "field verification.mismatch[%zu].computation missing", i);
    for (size_t k = 0; k < x->n_computation; k++) {
        snprintf(f, sizeof f, "verification.mismatch[%zu].computation[%zu]", i, k);
        if (!x->computation[k]) return ply__env_bad(c, "field %s missing", f);
        snprintf(f, sizeof f, "verification.mismatch[%zu].computation[%zu].worker_id", i, k);
        if (opt_text(c, f, x->computation[k]->worker_id)) return PLY_EPROTO;
        snprintf(f, sizeof f, "verification.mismatch[%zu].computation[%zu].identity", i, k);
        if (opt_text(c, f, x->computation[k]->identity)) return PLY_EPROTO;
    }
    return 0;
}

static int check_verification(ply__vctx_t *c, const Ply__Verification *v)
{
    char f[48];
    if (opt_text(c, "verification.mode", v->mode)) return PLY_EPROTO;
    if (v->n_detail && !v->detail) return ply__env_bad(c, "field verification.detail missing");
    for (size_t i = 0; i < v->n_detail; i++) {
        snprintf(f, sizeof f, "verification.detail[%zu]", i);
        if (need_text(c, f, v->detail[i])) return PLY_EPROTO;
    }
    if (opt_text(c, "verification.summary", v->summary)) return PLY_EPROTO;
    if (v->n_exclusion > PLY_MAX_EXCLUSIONS)
        return ply__env_bad(c, "field verification.exclusion has %zu entries, must be at most %d",
                            v->n_exclusion, PLY_MAX_EXCLUSIONS);
    if (v->n_exclusion && !v->exclusion)
        return ply__env_bad(c, "field verification.exclusion missing");
    for (size_t i = 0; i < v->n_exclusion; i++) {
        snprintf(f, sizeof f, "verification.exclusion[%zu]", i);
        if (need_text(c, f, v->exclusion[i])) return PLY_EPROTO;
    }
    if (v->n_mismatch > PLY_MAX_MISMATCHES)
        return ply__env_bad(c, "field verification.mismatch has %zu entries, must be at most %d",
                            v->n_mismatch, PLY_MAX_MISMATCHES);
    if (v->n_mismatch && !v->mismatch)
        return ply__env_bad(c, "field verification.mismatch missing");
    for (size_t i = 0; i < v->n_mismatch; i++) {
        if (!v->mismatch[i]) return ply__env_bad(c, "field verification.mismatch[%zu] missing", i);
        if (check_mismatch(c, i, v->mismatch[i])) return PLY_EPROTO;
    }
    return 0;
}

static int check_run_result(ply__vctx_t *c, const void *body)
{
    const Ply__RunResult *m = body;
    /* another kind's answer: its own encoding; what proto/ knows of a run, checked as such */
    if (m->has_other) {
        if (ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
            (m->fen && ply__env_fen(c, "fen", m->fen)) ||
            (m->verification && check_verification(c, m->verification)) || run_asked(c, m->asked))
            return PLY_EPROTO;
        if (m->search || m->n_divide || m->stats)
            return ply__env_bad(c, "field %s present beside other (another kind's answer)",
                                m->search     ? "search"
                                : m->n_divide ? "divide"
                                              : "stats");
        return 0;
    }
    /* a search run's answer: depth is its limit (absent without one), nodes those searched */
    if (m->search) {
        if (ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
            ply__env_fen(c, "fen", m->fen) ||
            (m->has_depth &&
             ply__env_need_u64(c, "depth", 1, m->depth, 1, PLY_SEARCH_JOB_MAX_DEPTH)) ||
            ply__env_need(c, "nodes", m->has_nodes) ||
            ply__env_search_answer(c, "search", m->search) ||
            (m->verification && check_verification(c, m->verification)) || run_asked(c, m->asked))
            return PLY_EPROTO;
        if (m->n_divide || m->stats)
            return ply__env_bad(c, "field %s present beside search (perft only)",
                                m->n_divide ? "divide" : "stats");
        return 0;
    }
    if (ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
        ply__env_fen(c, "fen", m->fen) ||
        ply__env_need_u64(c, "depth", m->has_depth, m->depth, 1, PLY_MAX_DEPTH) ||
        ply__env_need(c, "nodes", m->has_nodes) || stats_words(c, "stats", m->stats, 0) ||
        divide_list(c, m->n_divide, m->divide, 0) ||
        (m->verification && check_verification(c, m->verification)) || run_asked(c, m->asked))
        return PLY_EPROTO;
    if (m->has_tail_ms && ply__env_need_u64(c, "tail_ms", 1, m->tail_ms, 0,
                                            m->has_time_ms ? m->time_ms : 0))
        return PLY_EPROTO;
    return 0;
}

static int check_status(ply__vctx_t *c, const void *body)
{
    const Ply__StatusRequest *m = body;
    return owner_token(c, m->owner_token);
}

static int check_result_request(ply__vctx_t *c, const void *body)
{
    const Ply__ResultRequest *m = body;
    return ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
                   owner_token(c, m->owner_token)
               ? PLY_EPROTO
               : 0;
}

/* A client's (run_id), or the coordinator's to a worker (run_id, job_id and attempt: the
 * worker stops exactly that attempt, so one without the other cannot be acted on). */
static int check_cancel(ply__vctx_t *c, const void *body)
{
    const Ply__Cancel *m = body;
    if (ply__env_need_u64(c, "run_id", m->has_run_id, m->run_id, 1, NO_MAX) ||
        owner_token(c, m->owner_token))
        return PLY_EPROTO;
    if (!m->has_job_id && !m->has_attempt) return 0;
    if (ply__env_need_u64(c, "job_id", m->has_job_id, m->job_id, 1, NO_MAX) ||
        ply__env_need_u64(c, "attempt", m->has_attempt, m->attempt, 1, NO_MAX))
        return PLY_EPROTO;
    return 0;
}

/* Each listed run as a RUN_PROGRESS of its own; worker ids as text. */
static int check_status_reply(ply__vctx_t *c, const void *body)
{
    const Ply__StatusReply *m = body;
    char f[48];
    if (m->n_run > PLY_MAX_STATUS_RUNS)
        return ply__env_bad(c, "field run has %zu entries, must be at most %d", m->n_run,
                            PLY_MAX_STATUS_RUNS);
    if ((m->n_run && !m->run) || (m->n_worker && !m->worker))
        return ply__env_bad(c, "field %s missing", m->n_run && !m->run ? "run" : "worker");
    for (size_t i = 0; i < m->n_run; i++) {
        if (!m->run[i]) return ply__env_bad(c, "field run[%zu] missing", i);
        if (check_run_progress(c, m->run[i])) return PLY_EPROTO;
    }
    for (size_t i = 0; i < m->n_worker; i++) {
        snprintf(f, sizeof f, "worker[%zu]", i);
        if (!m->worker[i]) return ply__env_bad(c, "field %s missing", f);
        snprintf(f, sizeof f, "worker[%zu].worker_id", i);
        if (opt_text(c, f, m->worker[i]->worker_id)) return PLY_EPROTO;
        snprintf(f, sizeof f, "worker[%zu].identity", i);
        if (opt_text(c, f, m->worker[i]->identity)) return PLY_EPROTO;
        snprintf(f, sizeof f, "worker[%zu].kinds", i);
        if (kind_list(c, f, m->worker[i]->n_kinds, m->worker[i]->kinds)) return PLY_EPROTO;
    }
    return 0;
}

/* Per body type (indexed by the oneof case, i.e. the field number): name and checks. */
static const struct body_type {
    const char *name;
    int (*check)(ply__vctx_t *c, const void *body);
} BODY[] = {
    [PLY__MESSAGE__BODY_HELLO] = {"HELLO", check_hello},
    [PLY__MESSAGE__BODY_WELCOME] = {"WELCOME", check_welcome},
    [PLY__MESSAGE__BODY_READY] = {"READY", check_ready},
    [PLY__MESSAGE__BODY_JOB] = {"JOB", check_job},
    [PLY__MESSAGE__BODY_PROGRESS] = {"PROGRESS", check_progress},
    [PLY__MESSAGE__BODY_RESULT] = {"RESULT", check_result},
    [PLY__MESSAGE__BODY_HEARTBEAT] = {"HEARTBEAT", check_nothing},
    [PLY__MESSAGE__BODY_ERROR] = {"ERROR", check_error},
    [PLY__MESSAGE__BODY_BYE] = {"BYE", check_bye},
    [PLY__MESSAGE__BODY_SUBMIT] = {"SUBMIT", check_submit},
    [PLY__MESSAGE__BODY_ACCEPTED] = {"ACCEPTED", check_accepted},
    [PLY__MESSAGE__BODY_STATUS] = {"STATUS", check_status},
    [PLY__MESSAGE__BODY_RUN_PROGRESS] = {"RUN_PROGRESS", check_run_progress},
    [PLY__MESSAGE__BODY_RUN_RESULT] = {"RUN_RESULT", check_run_result},
    [PLY__MESSAGE__BODY_RESULT_REQUEST] = {"RESULT_REQUEST", check_result_request},
    [PLY__MESSAGE__BODY_CANCEL] = {"CANCEL", check_cancel},
    [PLY__MESSAGE__BODY_STATUS_REPLY] = {"STATUS_REPLY", check_status_reply},
};

static const struct body_type *body_type(const ply_msg_t *msg)
{
    unsigned k = (unsigned)msg->body_case;
    return k < sizeof BODY / sizeof BODY[0] && BODY[k].name ? &BODY[k] : NULL;
}

/*
 * The body sub-message, or NULL. All oneof members share one offset, which the
 * descriptor knows, so one lookup serves every type.
 */
const void *ply__env_body_of(const ply_msg_t *msg)
{
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field(&ply__message__descriptor, msg->body_case);
    if (!f || !body_type(msg)) return NULL;
    return *(const void *const *)((const char *)msg + f->offset);
}

int ply_msg_validate(const ply_msg_t *msg, char *why, size_t why_len)
{
    if (!msg || msg->base.descriptor != &ply__message__descriptor) {
        ply__env_say(why, why_len, "not a ply.Message");
        return PLY_EPROTO;
    }
    const struct body_type *t = body_type(msg);
    if (!t) {
        ply__env_say(why, why_len, "message has no body (unknown or missing type, case %d)",
                     (int)msg->body_case);
        return PLY_EPROTO;
    }
    ply__vctx_t c = {why, why_len, t->name};
    const void *body = ply__env_body_of(msg);
    if (!body) return ply__env_bad(&c, "body missing");
    int rc = t->check(&c, body);
    if (rc == 0) ply__env_say(why, why_len, "%s", "");
    return rc;
}

const char *ply_msg_type_name(const ply_msg_t *msg)
{
    if (!msg || msg->body_case == PLY__MESSAGE__BODY__NOT_SET) return "NONE";
    const struct body_type *t = body_type(msg);
    return t ? t->name : "UNKNOWN";
}
