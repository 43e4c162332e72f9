/*
 * The perft job runner (runner.h), kind PERFT: counts a job's perft(depth) with
 * ply_perft_run (worker/engine/perft.h) on the worker's OpenMP threads sharing one
 * transposition table, and answers with a Result (nodes, statistics, divide, table
 * counters) or an Error about the job. Its state is the table, made at start-up at the
 * worker's --hash and kept from job to job (a count is then answered by the subtrees of
 * earlier jobs), and the result buffer.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "board/movegen.h"
#include "perft.h"
#include "runner.h"
#include "util/error.h"
#include "util/log.h"

/*
 * A count of at most this many plies (tens of thousands of nodes) runs on one
 * thread without the table: a team of threads costs more than it saves, and
 * the table's pages cost a page fault each when first written (a 2 MiB huge
 * page zeroed: 256 MiB of table took 2 s of kernel time in 900 checks of an
 * EPD suite of 1-3 plies, which then ran in 3.2 s instead of 1.2 s).
 */
#define SMALL_JOB_DEPTH 3u

extern const ply__runner_t ply__perft_runner; /* below */

typedef struct perft_state {
    unsigned hash_mib;         /* the worker's --hash */
    ply_tt_t *tt;              /* or NULL: --hash 0, or given way to another kind's table */
    ply_perft_result_t result; /* large: kept here, not on a stack */
} perft_state_t;

static int perft_open(ply__daemon_t *sh, void **state)
{
    perft_state_t *p = malloc(sizeof *p);
    if (!p) return PLY_ENOMEM;
    p->hash_mib = sh->cfg->hash_mib;
    p->tt = NULL;
    if (p->hash_mib && !(p->tt = ply_tt_new((size_t)p->hash_mib << 20, 1))) {
        free(p);
        return PLY_ENOMEM;
    }
    *state = p;
    return 0;
}

static void perft_release(void *state)
{
    perft_state_t *p = state;
    ply_tt_destroy(&p->tt);
}

static void perft_close(void *state)
{
    perft_state_t *p = state;
    if (!p) return;
    ply_tt_destroy(&p->tt);
    free(p);
}

/* The table follows the job's shape: node counts and statistics need different
 * payloads, so a switch rebuilds it at the same size. */
static int ensure_table(ply_tt_t **tt, unsigned hash_mib, int stats)
{
    unsigned words = stats ? PLY_STATS_N : 1;
    if (!hash_mib) return 0;
    if (*tt && ply_tt_payload_words(*tt) == words) return 0;
    ply_tt_destroy(tt);
    *tt = ply_tt_new((size_t)hash_mib << 20, words);
    return *tt ? 0 : PLY_ENOMEM;
}

static void send_result(ply__compute_t *c, const Ply__Job *job, const ply_board_t *b,
                        const ply_perft_result_t *r)
{
    Ply__Message msg = PLY__MESSAGE__INIT;
    Ply__Result res = PLY__RESULT__INIT;
    Ply__Stats stats = PLY__STATS__INIT;
    Ply__DivideEntry entries[PLY_MAX_MOVES];
    Ply__DivideEntry *entry_ptrs[PLY_MAX_MOVES];
    Ply__Stats entry_stats[PLY_MAX_MOVES];
    char uci[PLY_MAX_MOVES][6];

    res.has_job_id = 1;
    res.job_id = job->job_id;
    res.has_attempt = 1;
    res.attempt = job->attempt;
    res.has_nodes = 1;
    res.nodes = r->nodes;
    res.has_perft1 = 1;
    res.perft1 = (uint32_t)r->perft1;
    res.has_time_us = 1;
    res.time_us = r->time_ns / 1000;
    res.has_tt_probes = 1;
    res.tt_probes = r->tt_probes;
    res.has_tt_hits = 1;
    res.tt_hits = r->tt_hits;
    res.has_tt_nodes = 1;
    res.tt_nodes = r->tt_nodes;
    if (job->perft->stats) {
        ply_msg_stats_to_proto(&stats, &r->stats);
        res.stats = &stats;
    }
    for (int i = 0; i < r->ndivide; i++) {
        ply__divide_entry__init(&entries[i]);
        ply_board_move_to_uci(b, r->divide[i].move, uci[i]);
        entries[i].move = uci[i];
        entries[i].has_nodes = 1;
        entries[i].nodes = r->divide[i].nodes;
        if (job->perft->stats) {
            ply__stats__init(&entry_stats[i]);
            ply_msg_stats_to_proto(&entry_stats[i], &r->divide[i].stats);
            entries[i].stats = &entry_stats[i];
        }
        entry_ptrs[i] = &entries[i];
    }
    res.n_divide = (size_t)r->ndivide;
    res.divide = entry_ptrs;
    msg.body_case = PLY__MESSAGE__BODY_RESULT;
    msg.result = &res;
    ply__compute_send(c, &msg);
}

static int perft_run(ply__compute_t *c, void *state, const Ply__Job *job, unsigned epoch)
{
    perft_state_t *p = state;
    ply__daemon_t *sh = c->sh;
    ply_perft_result_t *r = &p->result;
    const Ply__PerftJob *pj = job->perft;          /* the envelope checked it is there */
    ply__compute_make_room(c, &ply__perft_runner); /* for the table (ensure_table) */
    ply_board_t b;
    char why[256];
    int rc =
        ply_board_from_fen(&b, pj->fen, pj->chess960 ? PLY_BOARD_CHESS960 : 0, why, sizeof why);
    if (rc < 0) {
        ply__compute_error(c, job, rc, why);
        return 0;
    }
    if ((rc = ensure_table(&p->tt, p->hash_mib, pj->stats)) < 0) {
        ply__compute_error(c, job, rc, "cannot allocate the transposition table");
        return rc;
    }
    ply_perft_opts_t opts = {0};
    opts.threads = sh->threads;
    /* a check on the worker (or seed) that counted first must not read its table back */
    opts.tt = pj->has_no_hash && pj->no_hash ? NULL : p->tt;
    if (pj->depth <= SMALL_JOB_DEPTH) opts.tt = NULL, opts.threads = 1;
    opts.stats = pj->stats;
    opts.divide = pj->divide;
    opts.progress = &sh->progress;
    opts.cancel = &sh->job_cancel;
    if (atomic_load(&sh->cancel)) return PLY_ECANCELED;
    atomic_store(&sh->progress, 0);
    /* the cancel flag stops it: nothing else to tell */
    if (ply__job_begin(sh, job, NULL) < 0) return PLY_ECANCELED; /* taken back while queued */
    if (epoch != atomic_load(&sh->epoch)) {                      /* a new session began */
        ply__job_end(sh);
        return PLY_ECANCELED;
    }
    rc = ply_perft_run(&b, (int)pj->depth, &opts, r);
    ply__job_end(sh);
    atomic_store(&sh->progress, 0);
    if (rc == PLY_ECANCELED) return rc; /* the coordinator re-queues it */
    if (rc == PLY_ERANGE) { /* a count that a 64-bit result cannot carry: never a wrapped one */
        snprintf(why, sizeof why, "perft(%u) of this position exceeds 2^64; use a deeper split",
                 (unsigned)pj->depth);
        ply__compute_error(c, job, rc, why);
        return 0;
    }
    if (rc < 0) {
        ply__compute_error(c, job, rc, ply_strerror(rc));
        return 0;
    }
    atomic_fetch_add(&sh->done, r->nodes);
    ply_debug("job %llu: %llu nodes in %.3f s", (unsigned long long)job->job_id,
              (unsigned long long)r->nodes, r->time_ns / 1e9);
    if (epoch != atomic_load(&sh->epoch)) return PLY_ECANCELED; /* its session is over */
#ifdef PLY_FAULT_INJECTION
    /* test builds only: a faulty worker, one count in fault_every off by one */
    if (sh->cfg->fault_every && ++sh->results % sh->cfg->fault_every == 0) {
        r->nodes++;
        r->stats.v[PLY_STAT_nodes]++;
        if (r->ndivide) r->divide[0].nodes++, r->divide[0].stats.v[PLY_STAT_nodes]++;
        ply_warn("fault injection: job %llu reported as %llu nodes",
                 (unsigned long long)job->job_id, (unsigned long long)r->nodes);
    }
#endif
    send_result(c, job, &b, r);
    return 0;
}

const ply__runner_t ply__perft_runner = {
    .kind = PLY__JOB_KIND__JOB_KIND_PERFT,
    .open = perft_open,
    .run = perft_run,
    .release = perft_release,
    .close = perft_close,
};
