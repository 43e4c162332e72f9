/*
 * The status snapshot (status.h) as text: the JSON of GET /status (jansson,
 * exact counts through util/json_exact.h) and the Prometheus text exposition
 * format 0.0.4 of GET /metrics (prometheus.io/docs/instrumenting/
 * exposition_formats: "# HELP name text", "# TYPE name counter|gauge", then
 * "name{label=\"value\"} number" lines; in label values \, " and newline are
 * escaped as \\, \" and \n, in HELP text \ and newline).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "status.h"
#include "util/json_exact.h"

/* ------------------------------------------------------------------- JSON */

static const char *const bound_names[3] = {"exact", "lower", "upper"};

/* A line's score: "score_cp" or "mate" (the other null) and its bound. */
static void score_json(json_t *j, int has_mate, int32_t cp, int32_t mate, uint32_t bound)
{
    json_object_set_new(j, "score_cp", has_mate ? json_null() : json_integer(cp));
    json_object_set_new(j, "mate", has_mate ? json_integer(mate) : json_null());
    json_object_set_new(j, "bound", ply_json_text(bound_names[bound < 3 ? bound : 0]));
}

static json_t *line_json(const ply__status_line_t *l)
{
    json_t *j = json_object(), *pv = json_array();
    json_object_set_new(j, "move", ply_json_text(l->move));
    json_object_set_new(j, "san", ply_json_text(l->san));
    for (unsigned i = 0; i < l->npv; i++) json_array_append_new(pv, ply_json_text(l->pv[i]));
    json_object_set_new(j, "pv", pv);
    score_json(j, l->has_mate, l->score_cp, l->mate, l->bound);
    json_object_set_new(j, "depth", json_integer(l->depth));
    return j;
}

static json_t *iter_json(const ply__status_iter_t *it)
{
    json_t *j = json_object();
    json_object_set_new(j, "depth", json_integer(it->depth));
    json_object_set_new(j, "san", ply_json_text(it->san));
    score_json(j, it->has_mate, it->score_cp, it->mate, it->bound);
    json_object_set_new(j, "time_ms", json_integer((json_int_t)it->time_ms));
    json_object_set_new(j, "nodes", json_integer((json_int_t)it->nodes));
    return j;
}

/* A search run's lines (status.h), or null. */
static json_t *search_json(const ply__status_run_t *r)
{
    if (!r->has_search) return json_null();
    json_t *j = json_object(), *lines = json_array(), *iters = json_array();
    json_object_set_new(j, "depth", r->search_depth ? json_integer(r->search_depth) : json_null());
    json_object_set_new(j, "moves_done", json_integer(r->moves_done));
    for (unsigned i = 0; i < r->nlines; i++) json_array_append_new(lines, line_json(&r->lines[i]));
    json_object_set_new(j, "lines", lines);
    for (size_t i = 0; i < r->niters; i++) json_array_append_new(iters, iter_json(&r->iters[i]));
    json_object_set_new(j, "iterations", iters);
    return j;
}

static json_t *run_json(const ply__status_run_t *r)
{
    json_t *j = json_object();
    if (!j) return NULL;
    json_object_set_new(j, "id", json_integer((json_int_t)r->id));
    json_object_set_new(j, "kind", ply_json_text(r->kind));
    json_object_set_new(j, "state", ply_json_text(r->state));
    json_object_set_new(j, "finished", json_boolean(r->finished));
    json_object_set_new(j, "fen", r->fen[0] ? ply_json_text(r->fen) : json_null());
    json_object_set_new(j, "depth", r->depth ? json_integer(r->depth) : json_null());
    json_object_set_new(j, "nodes_limit",
                        r->nodes_limit ? json_integer((json_int_t)r->nodes_limit) : json_null());
    json_object_set_new(j, "movetime_ms",
                        r->movetime_ms ? json_integer(r->movetime_ms) : json_null());
    json_object_set_new(j, "deepen", json_boolean(r->deepen));
    json_object_set_new(j, "infinite", json_boolean(r->infinite));
    json_t *jobs = json_object();
    json_object_set_new(jobs, "total", json_integer(r->jobs_total));
    json_object_set_new(jobs, "done", json_integer(r->jobs_done));
    json_object_set_new(jobs, "in_flight", json_integer(r->jobs_in_flight));
    json_object_set_new(jobs, "queued", json_integer(r->jobs_queued));
    json_object_set_new(j, "jobs", jobs);
    json_object_set_new(j, "nodes", ply_json_count(r->nodes));
    json_object_set_new(j, "counted_nodes", json_integer((json_int_t)r->counted_nodes));
    json_object_set_new(j, "time_ms", json_integer((json_int_t)r->time_ms));
    json_object_set_new(j, "queued_ms", json_integer((json_int_t)r->queued_ms));
    json_object_set_new(j, "tail_ms", json_integer((json_int_t)r->tail_ms));
    json_object_set_new(j, "nodes_per_second",
                        json_integer((json_int_t)(r->nodes_per_second + 0.5)));
    json_object_set_new(j, "progress", r->progress >= 0 ? json_real(r->progress) : json_null());
    json_object_set_new(j, "eta_ms", r->eta_ms >= 0 ? json_integer(r->eta_ms) : json_null());
    json_object_set_new(j, "verify", ply_json_text(r->verify[0] ? r->verify : "none"));
    json_object_set_new(j, "mismatches", json_integer(r->mismatches));
    json_object_set_new(j, "error", r->error[0] ? ply_json_text(r->error) : json_null());
    json_object_set_new(j, "answer_hidden", json_boolean(r->answer_hidden));
    json_object_set_new(j, "search", search_json(r));
    return j;
}

static json_t *worker_json(const ply__status_worker_t *w)
{
    json_t *j = json_object();
    if (!j) return NULL;
    json_object_set_new(j, "worker_id", ply_json_text(w->worker_id));
    json_object_set_new(j, "identity", ply_json_text(w->identity));
    json_object_set_new(j, "threads", json_integer(w->threads));
    json_object_set_new(j, "hash_mib", json_integer(w->hash_mib));
    json_object_set_new(j, "engine", w->engine[0] ? ply_json_text(w->engine) : json_null());
    json_t *kinds = json_array();
    for (unsigned i = 0; i < w->nkinds; i++)
        json_array_append_new(kinds, ply_json_text(w->kinds[i]));
    json_object_set_new(j, "kinds", kinds);
    json_object_set_new(j, "zobrist_seed", json_integer(w->zobrist_seed));
    json_object_set_new(j, "jobs_in_flight", json_integer(w->jobs_in_flight));
    json_object_set_new(j, "jobs_done", json_integer((json_int_t)w->jobs_done));
    json_object_set_new(j, "nodes", ply_json_count(w->nodes));
    json_object_set_new(j, "nodes_per_second",
                        json_integer((json_int_t)(w->nodes_per_second + 0.5)));
    json_object_set_new(j, "heartbeat_age_ms", json_integer(w->heartbeat_age_ms));
    json_object_set_new(j, "excluded", json_boolean(w->excluded_runs > 0));
    json_object_set_new(j, "excluded_runs", json_integer(w->excluded_runs));
    return j;
}

char *ply__status_json(const ply__status_t *s, size_t *len)
{
    json_t *root = json_object(), *runs = json_array(), *workers = json_array();
    json_t *co = json_object();
    char *text = NULL;
    if (!root || !runs || !workers || !co) goto out;
    json_object_set_new(co, "version", ply_json_text(PLY_VERSION));
    json_object_set_new(co, "uptime_ms", json_integer((json_int_t)s->uptime_ms));
    json_object_set_new(co, "workers", json_integer((json_int_t)s->nworkers));
    json_object_set_new(co, "threads", json_integer(s->threads));
    json_object_set_new(co, "nodes_total", ply_json_count(s->nodes_total));
    json_object_set_new(co, "runs_done", json_integer((json_int_t)s->counters.runs_done));
    json_object_set_new(co, "runs_failed", json_integer((json_int_t)s->counters.runs_failed));
    json_object_set_new(co, "verify_mismatches",
                        json_integer((json_int_t)s->counters.verify_mismatches));
    json_object_set(root, "coordinator", co);
    for (size_t i = 0; i < s->nruns; i++) json_array_append_new(runs, run_json(&s->runs[i]));
    for (size_t i = 0; i < s->nworkers; i++)
        json_array_append_new(workers, worker_json(&s->workers[i]));
    json_object_set(root, "runs", runs);
    json_object_set(root, "workers", workers);
    text = ply_json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    if (text) *len = strlen(text);
out:
    json_decref(co);
    json_decref(runs);
    json_decref(workers);
    json_decref(root);
    return text;
}

/* ---------------------------------------------------------------- metrics */

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} sbuf_t;

static void put(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf_t *b, const char *fmt, ...)
{
    for (int round = 0; round < 2 && !b->failed; round++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->buf ? b->buf + b->len : NULL, b->buf ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->buf && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap : 4096);
        while (cap <= b->len + (size_t)n) cap *= 2;
        char *nb = realloc(b->buf, cap);
        if (!nb) {
            b->failed = 1;
            return;
        }
        b->buf = nb, b->cap = cap;
    }
}

/* A label value with \, " and newline escaped (the format's rule), into @out. */
static const char *esc(const char *in, char *out, size_t len)
{
    size_t w = 0;
    for (; *in && w + 3 < len; in++) {
        if (*in == '\\' || *in == '"')
            out[w++] = '\\', out[w++] = *in;
        else if (*in == '\n')
            out[w++] = '\\', out[w++] = 'n';
        else
            out[w++] = *in;
    }
    out[w] = 0;
    return out;
}

static void family(sbuf_t *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void u64_metric(sbuf_t *b, const char *name, const char *type, const char *help, uint64_t v)
{
    family(b, name, type, help);
    put(b, "%s %" PRIu64 "\n", name, v);
}

char *ply__status_metrics(const ply__status_t *s, size_t *len)
{
    sbuf_t b = {0};
    char n128[PLY_U128_DEC_LEN], e1[2 * PLY_MAX_TEXT + 8], e2[2 * PLY__IDENT_LEN + 8];
    const ply_coordinator_counters_t *k = &s->counters;
    family(
        &b, "ply_nodes_total", "counter",
        "Nodes of the runs since start: perft counts (multiplicity x job counts), search nodes.");
    put(&b, "ply_nodes_total %s\n", ply_u128_to_dec(s->nodes_total, n128, sizeof n128));
    family(&b, "ply_jobs", "gauge", "Tasks of the runs in memory by state.");
    uint64_t jq = 0, jf = 0, jd = 0;
    for (size_t i = 0; i < s->nruns; i++)
        if (!s->runs[i].finished)
            jq += s->runs[i].jobs_queued, jf += s->runs[i].jobs_in_flight,
                jd += s->runs[i].jobs_done;
    put(&b,
        "ply_jobs{state=\"queued\"} %" PRIu64 "\nply_jobs{state=\"in_flight\"} %" PRIu64
        "\nply_jobs{state=\"done\"} %" PRIu64 "\n",
        jq, jf, jd);
    family(&b, "ply_runs", "gauge",
           "Runs by state: those in memory, and the last finished ones the coordinator keeps.");
    for (int i = 0; i < 6; i++)
        put(&b, "ply_runs{state=\"%s\"} %" PRIu32 "\n", ply__status_run_states[i],
            s->runs_by_state[i]);
    u64_metric(&b, "ply_runs_done_total", "counter", "Runs answered with a result since start.",
               k->runs_done);
    u64_metric(&b, "ply_runs_failed_total", "counter",
               "Runs answered with an error (failed, canceled, stopped) since start.",
               k->runs_failed);
    u64_metric(&b, "ply_jobs_sent_total", "counter", "Job messages sent (every attempt).",
               k->jobs_sent);
    u64_metric(&b, "ply_jobs_requeued_total", "counter",
               "Jobs put back in the queue (worker lost, lease ended, worker error).",
               k->jobs_requeued);
    u64_metric(&b, "ply_results_total", "counter", "Job results received from workers.",
               k->results_computed);
    u64_metric(&b, "ply_verify_mismatches_total", "counter",
               "Computations of a job found to disagree by verification.", k->verify_mismatches);
    u64_metric(&b, "ply_messages_total", "counter", "Messages received on the ZeroMQ socket.",
               k->messages);
    u64_metric(&b, "ply_messages_malformed_total", "counter",
               "Messages refused: undecodable, or not for the sending peer to send.", k->malformed);
    u64_metric(&b, "ply_workers_joined_total", "counter", "Worker HELLOs accepted.",
               k->workers_joined);
    u64_metric(&b, "ply_workers_lost_total", "counter", "Workers declared dead or hung.",
               k->workers_lost);
    u64_metric(&b, "ply_workers_connected", "gauge", "Workers connected now.", s->nworkers);
    u64_metric(&b, "ply_worker_threads", "gauge", "Threads of the connected workers.", s->threads);
    u64_metric(&b, "ply_uptime_seconds", "gauge", "Seconds since the coordinator started.",
               s->uptime_ms / 1000);
    family(&b, "ply_run_nodes_per_second", "gauge",
           "A run's counted leaf nodes over its computing time.");
    for (size_t i = 0; i < s->nruns; i++)
        if (!s->runs[i].finished)
            put(&b, "ply_run_nodes_per_second{run=\"%" PRIu64 "\",kind=\"%s\"} %.0f\n",
                s->runs[i].id, esc(s->runs[i].kind, e1, sizeof e1), s->runs[i].nodes_per_second);
    family(&b, "ply_worker_nodes_per_second", "gauge",
           "A worker's counting rate between its last two heartbeats.");
    for (size_t i = 0; i < s->nworkers; i++)
        put(&b, "ply_worker_nodes_per_second{worker=\"%s\",identity=\"%s\"} %.0f\n",
            esc(s->workers[i].worker_id, e1, sizeof e1), esc(s->workers[i].identity, e2, sizeof e2),
            s->workers[i].nodes_per_second);
    family(&b, "ply_worker_heartbeat_age_seconds", "gauge",
           "Seconds since a worker's last heartbeat.");
    for (size_t i = 0; i < s->nworkers; i++)
        put(&b, "ply_worker_heartbeat_age_seconds{worker=\"%s\",identity=\"%s\"} %.3f\n",
            esc(s->workers[i].worker_id, e1, sizeof e1), esc(s->workers[i].identity, e2, sizeof e2),
            (double)s->workers[i].heartbeat_age_ms / 1000.0);
    if (b.failed) {
        free(b.buf);
        return NULL;
    }
    *len = b.len;
    return b.buf;
}
