/*
 * The ply command's reports on verification, restarts and progress (see
 * report.h). The coordinator's Verification message already states what was
 * verified; this file only lays it out, and never adds a claim of its own.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "util/error.h"
#include "util/json_exact.h"

int ply_report_parse_verify(const char *s, int *mode, uint32_t *ppm)
{
    *ppm = 0;
    if (!s) return PLY_EUSAGE;
    if (!strcmp(s, "none")) {
        *mode = PLY__VERIFY_MODE__VERIFY_MODE_NONE;
        return 0;
    }
    if (!strcmp(s, "all")) {
        *mode = PLY__VERIFY_MODE__VERIFY_MODE_ALL;
        return 0;
    }
    if (strncmp(s, "sample=", 7) != 0 || !s[7]) return PLY_EUSAGE;
    char *end;
    double p = strtod(s + 7, &end);
    if (*end == '%') p /= 100, end++;
    if (*end || !(p > 0) || p > 1) return PLY_EUSAGE;
    double v = p * PLY_PPM + 0.5;
    *ppm = v < 1 ? 1 : (uint32_t)v;
    *mode = PLY__VERIFY_MODE__VERIFY_MODE_SAMPLE;
    return 0;
}

void ply_report_verification_text(FILE *out, const Ply__RunResult *r)
{
    const Ply__Verification *v = r->verification;
    if (v && v->summary) fprintf(out, "Verified: %s\n", v->summary);
    for (size_t i = 0; v && i < v->n_detail; i++) fprintf(out, "  mismatch: %s\n", v->detail[i]);
    if (v && v->mismatches > v->n_detail)
        fprintf(out, "  (%u more mismatches not listed)\n", v->mismatches - (uint32_t)v->n_detail);
    for (size_t i = 0; v && i < v->n_exclusion; i++) fprintf(out, "  %s\n", v->exclusion[i]);
    if (r->results_restored)
        fprintf(out,
                "Restarts: %u job results read back from the coordinator's state file (not "
                "recomputed), %u computed since\n",
                r->results_restored, r->results_computed);
}

static json_t *computation_json(const Ply__Computation *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "worker", ply_json_text(k->worker_id ? k->worker_id : ""));
    json_object_set_new(o, "zobrist_seed", json_integer(k->zobrist_seed));
    json_object_set_new(o, "nodes", ply_json_count(k->nodes));
    json_object_set_new(o, "attempt", json_integer(k->attempt));
    json_object_set_new(o, "rule_engine", json_boolean(k->arbiter));
    json_object_set_new(o, "no_hash", json_boolean(k->no_hash));
    json_object_set_new(o, "identity", ply_json_text(k->identity ? k->identity : ""));
    return o;
}

json_t *ply_report_verification_json(const Ply__RunResult *r)
{
    const Ply__Verification *v = r->verification;
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "mode", ply_json_text(v && v->mode ? v->mode : "none"));
    json_object_set_new(o, "arbiter_plies", json_integer(v ? v->arbiter_plies : 0));
    json_object_set_new(o, "perft1_checked", json_integer(v ? v->perft1_checked : 0));
    json_object_set_new(o, "jobs", json_integer(v ? v->jobs : 0));
    json_object_set_new(o, "jobs_selected", json_integer(v ? v->jobs_selected : 0));
    json_object_set_new(o, "checked_by_other_worker_and_seed",
                        json_integer(v ? v->checked_by_worker : 0));
    json_object_set_new(o, "checked_by_other_worker_same_seed",
                        json_integer(v ? v->checked_same_seed : 0));
    json_object_set_new(o, "checked_on_same_worker", json_integer(v ? v->checked_same_worker : 0));
    json_object_set_new(o, "checked_by_rule_engine", json_integer(v ? v->checked_by_arbiter : 0));
    json_object_set_new(o, "mismatches", json_integer(v ? v->mismatches : 0));
    json_object_set_new(o, "resolved", json_integer(v ? v->resolved : 0));
    json_object_set_new(o, "workers", json_integer(v ? v->workers : 0));
    json_object_set_new(o, "seeds", json_integer(v ? v->seeds : 0));
    json_object_set_new(o, "identities", json_integer(v ? v->identities : 0));
    json_object_set_new(o, "excluded", json_integer(v ? v->excluded : 0));
    json_object_set_new(o, "recomputed", json_integer(v ? v->recomputed : 0));
    json_t *ex = json_array();
    for (size_t i = 0; v && i < v->n_exclusion; i++)
        json_array_append_new(ex, ply_json_text(v->exclusion[i]));
    json_object_set_new(o, "exclusions", ex);
    json_object_set_new(o, "verify_summary",
                        v && v->summary ? ply_json_text(v->summary) : json_null());
    json_t *list = json_array();
    for (size_t i = 0; v && i < v->n_mismatch; i++) {
        const Ply__Mismatch *x = v->mismatch[i];
        json_t *m = json_object(), *ks = json_array();
        json_object_set_new(m, "job", ply_json_count(x->job_id));
        json_object_set_new(m, "fen", ply_json_text(x->fen ? x->fen : ""));
        json_object_set_new(m, "depth", json_integer(x->depth));
        for (size_t k = 0; k < x->n_computation; k++)
            json_array_append_new(ks, computation_json(x->computation[k]));
        json_object_set_new(m, "computations", ks);
        json_object_set_new(m, "resolved", json_boolean(x->resolved));
        json_object_set_new(m, "accepted_nodes",
                            x->has_accepted_nodes ? ply_json_count(x->accepted_nodes)
                                                  : json_null());
        json_object_set_new(m, "drill_down",
                            x->drill_down ? ply_json_text(x->drill_down) : json_null());
        json_array_append_new(list, m);
    }
    json_object_set_new(o, "mismatch_list", list);
    json_object_set_new(o, "results_restored", json_integer(r->results_restored));
    json_object_set_new(o, "results_computed", json_integer(r->results_computed));
    return o;
}

json_t *ply_report_workers_json(Ply__WorkerStatus *const *w, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "id", ply_json_text(w[i]->worker_id ? w[i]->worker_id : ""));
        json_object_set_new(o, "threads", json_integer(w[i]->threads));
        json_object_set_new(o, "zobrist_seed", json_integer(w[i]->zobrist_seed));
        json_object_set_new(o, "jobs_in_flight", json_integer(w[i]->jobs_in_flight));
        json_object_set_new(o, "jobs_done", ply_json_count(w[i]->jobs_done));
        /* absent: its total holds another client's answer (null, as a hidden run's nodes) */
        json_object_set_new(o, "nodes",
                            w[i]->has_nodes ? ply_json_count(ply_msg_count(
                                                  w[i]->nodes, w[i]->has_nodes_hi, w[i]->nodes_hi))
                                            : json_null());
        json_object_set_new(o, "stalled_ms", ply_json_count(w[i]->stalled_ms));
        json_object_set_new(o, "identity", ply_json_text(w[i]->identity ? w[i]->identity : ""));
        json_object_set_new(o, "excluded_runs", json_integer(w[i]->excluded_runs));
        json_t *kinds = json_array(); /* the job kind numbers it runs (1 perft, 2 search) */
        for (size_t k = 0; k < w[i]->n_kinds; k++)
            json_array_append_new(kinds, json_integer(w[i]->kinds[k]));
        json_object_set_new(o, "kinds", kinds);
        json_array_append_new(a, o);
    }
    return a;
}

int ply_report_planned(const Ply__RunProgress *p)
{
    const char *st = p->state ? p->state : "";
    return p->jobs_total > 0 || !strcmp(st, "done") || !strcmp(st, "failed") ||
           !strcmp(st, "canceled");
}

json_t *ply_report_progress_json(const Ply__RunProgress *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "run", ply_json_count(p->run_id));
    json_object_set_new(o, "state", ply_json_text(p->state ? p->state : "?"));
    json_object_set_new(o, "fen", p->fen ? ply_json_text(p->fen) : json_null());
    json_object_set_new(o, "depth", p->has_depth ? json_integer(p->depth) : json_null());
    json_object_set_new(o, "verify", ply_json_text(p->verify ? p->verify : "none"));
    json_object_set_new(o, "jobs_total",
                        ply_report_planned(p) ? json_integer(p->jobs_total) : json_null());
    json_object_set_new(o, "jobs_done", json_integer(p->jobs_done));
    json_object_set_new(o, "jobs_in_flight", json_integer(p->jobs_in_flight));
    /* another client's run: its count is not ours to see */
    json_object_set_new(
        o, "nodes",
        p->answer_hidden ? json_null()
                         : ply_json_count(ply_msg_count(p->nodes, p->has_nodes_hi, p->nodes_hi)));
    json_object_set_new(o, "answer_hidden", json_boolean(p->answer_hidden));
    json_object_set_new(o, "elapsed_ms", ply_json_count(p->elapsed_ms));
    json_object_set_new(o, "results_restored", json_integer(p->results_restored));
    json_object_set_new(o, "error",
                        p->error && p->error[0] ? ply_json_text(p->error) : json_null());
    if (p->n_worker)
        json_object_set_new(o, "workers", ply_report_workers_json(p->worker, p->n_worker));
    return o;
}
