/* A search job's answer as the wire's Result (search_msg.h). */
#include "search_msg.h"

#include <stdio.h>
#include <string.h>

void ply_search_msg_fill(ply_search_msg_t *m, const Ply__Job *job, const ply_analysis_t *an,
                         const ply_analysis_result_t *r, uint64_t time_us)
{
    if (strcmp(ply_analysis_name(an), "builtin") == 0)
        snprintf(m->engine, sizeof m->engine, "ply %s builtin", PLY_VERSION);
    else
        snprintf(m->engine, sizeof m->engine, "%s:%s", ply_analysis_name(an),
                 ply_analysis_engine_name(an));
    Ply__SearchResult *sr = &m->sr;
    ply__search_result__init(sr);
    for (int i = 0; i < r->n_lines; i++) {
        const ply_analysis_line_t *l = &r->lines[i];
        Ply__SearchLine *p = &m->lines[i];
        ply__search_line__init(p);
        p->has_multipv = 1, p->multipv = (uint32_t)l->multipv;
        p->has_mate = l->is_mate, p->mate = l->score;
        p->has_score_cp = !l->is_mate, p->score_cp = l->score;
        p->has_bound = 1, p->bound = (uint32_t)l->bound;
        p->has_depth = 1, p->depth = (uint32_t)l->depth;
        p->has_seldepth = 1, p->seldepth = (uint32_t)l->seldepth;
        p->has_ply = l->ply >= 0, p->ply = l->ply >= 0 ? (uint32_t)l->ply : 0;
        for (int k = 0; k < l->n_pv; k++) m->pv[i][k] = (char *)l->pv[k];
        p->n_pv = (size_t)l->n_pv, p->pv = m->pv[i];
        m->line_ptrs[i] = p;
    }
    sr->n_lines = (size_t)r->n_lines, sr->lines = m->line_ptrs;
    sr->has_nodes = 1, sr->nodes = r->nodes;
    sr->has_time_us = 1, sr->time_us = r->time_us;
    sr->engine = m->engine;
    ply__result__init(&m->res);
    m->res.has_job_id = 1, m->res.job_id = job->job_id;
    m->res.has_attempt = 1, m->res.attempt = job->attempt;
    m->res.has_time_us = 1, m->res.time_us = time_us;
    m->res.search = sr;
}
