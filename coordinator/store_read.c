/*
 * Reading the state file back (store.c has the schema, store.h the
 * workload and the invariants): the unfinished runs with their plans
 * rebuilt and checked against the rule engine (or, stored before they were
 * planned, their requests and idempotency keys alone), their computations and
 * failed attempts (ply_store_load, ply_store_load_failures), and the
 * finished runs (ply_store_finished, ply_store_recent). Every blob is
 * checked for size and range and every run's job kind against the kinds
 * this ply knows: a damaged, foreign or newer file gives an error.
 */
#include "store.h"
#include "store_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ply.pb-c.h"
#include "util/error.h"

/* ----------------------------------------------------------------- helpers */

/*
 * What a perft run's request (an encoded Ply__PerftRequest, @n bytes) says of chess960, stats
 * and the split asked; 0 or PLY_EDB when it does not decode as one.
 */
static int perft_request_read(const uint8_t *p, size_t n, int *chess960, int *stats, int *split)
{
    Ply__PerftRequest *q = p ? ply__perft_request__unpack(NULL, n, p) : NULL;
    if (!q) return PLY_EDB;
    *chess960 = q->chess960 != 0;
    *stats = q->stats != 0;
    *split = q->has_split_depth ? q->split_depth : -1;
    ply__perft_request__free_unpacked(q, NULL);
    return 0;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void get_stats(const uint8_t *p, ply_stats_t *s)
{
    for (int k = 0; k < PLY_STATS_N; k++) s->v[k] = get_u64(p + 8 * k);
}

/* Column @col as text, or "" (never NULL). */
static const char *col_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

/* ------------------------------------------------------------------- load */

/*
 * Stored root index -> plan index: the stored root moves (UCI, in the order
 * of the plan that was accepted) must all be legal moves of the root now.
 */
static int map_roots(const ply_split_t *plan, const char *stored, int map[PLY_ARB_MAX_MOVES],
                     int *nstored, char *why, size_t why_len)
{
    char *copy = strdup(stored), *save = NULL;
    if (!copy) return PLY_ENOMEM;
    int n = 0, r = 0;
    for (char *tok = strtok_r(copy, " ", &save); tok && r == 0; tok = strtok_r(NULL, " ", &save)) {
        int k = -1;
        for (int i = 0; i < plan->nroot; i++)
            if (strcmp(plan->root_uci[i], tok) == 0) k = i;
        if (k < 0 || n >= PLY_ARB_MAX_MOVES) {
            ply_why(why, why_len, 0, "root move %.8s is not legal in the stored position", tok);
            r = PLY_EDB;
        } else {
            map[n++] = k;
        }
    }
    free(copy);
    if (r == 0 && n != plan->nroot) {
        ply_why(why, why_len, 0, "%d root moves stored, the rule engine has %d", n, plan->nroot);
        r = PLY_EDB;
    }
    *nstored = n;
    return r;
}

/* One job row into plan->jobs[i], checked against the rule engine and the plan. */
static int load_job(sqlite3_stmt *st, ply_split_t *plan, size_t i, const int *map, int nstored,
                    int chess960, char *why, size_t why_len)
{
    ply_split_job_t *j = &plan->jobs[i];
    const char *fen = col_text(st, 1);
    const uint8_t *blob = sqlite3_column_blob(st, 5);
    int bytes = sqlite3_column_bytes(st, 5);
    ply_arb_pos_t pos;
    ply_arb_move_t moves[PLY_ARB_MAX_MOVES];
    char reason[256];
    if ((uint64_t)sqlite3_column_int64(st, 0) != i) {
        ply_why(why, why_len, 0, "job %zu missing", i);
        return PLY_EDB;
    }
    if (ply_arb_from_fen(&pos, fen, chess960 ? PLY_ARB_CHESS960 : 0, reason, sizeof reason) < 0 ||
        ply_arb_legal_moves(&pos, moves) != sqlite3_column_int(st, 2)) {
        ply_why(why, why_len, 0, "job %zu: position or perft(1) disagrees with the rule engine", i);
        return PLY_EDB;
    }
    if (bytes < 0 || bytes % PLY__MULT_BYTES != 0 || bytes / PLY__MULT_BYTES > PLY_ARB_MAX_MOVES ||
        (bytes && !blob)) {
        ply_why(why, why_len, 0, "job %zu: multiplicity blob of %d bytes", i, bytes);
        return PLY_EDB;
    }
    j->fen = strdup(fen);
    j->perft1 = (uint32_t)sqlite3_column_int(st, 2);
    j->cost = (uint64_t)sqlite3_column_int64(st, 3);
    j->multiplicity = (uint64_t)sqlite3_column_int64(st, 4);
    j->nmult = (uint32_t)(bytes / PLY__MULT_BYTES);
    j->mult = j->nmult ? calloc(j->nmult, sizeof *j->mult) : NULL;
    if (!j->fen || (j->nmult && !j->mult)) return PLY_ENOMEM;
    uint64_t sum = 0;
    int over = 0; /* a damaged file's counts must not wrap to its total */
    for (uint32_t k = 0; k < j->nmult; k++) {
        const uint8_t *p = blob + (size_t)k * PLY__MULT_BYTES;
        uint32_t root =
            (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        j->mult[k].count = get_u64(p + 4);
        if (root >= (uint32_t)nstored || j->mult[k].count == 0) {
            ply_why(why, why_len, 0, "job %zu: bad multiplicity entry %u", i, k);
            return PLY_EDB;
        }
        j->mult[k].root = (uint32_t)map[root];
        over |= __builtin_add_overflow(sum, j->mult[k].count, &sum);
    }
    if ((plan->split_depth > 0 && (over || sum != j->multiplicity)) ||
        (plan->split_depth == 0 && (j->nmult || j->multiplicity != 1))) {
        ply_why(why, why_len, 0, "job %zu: multiplicities do not add up", i);
        return PLY_EDB;
    }
    return 0;
}

/* Rebuilds the plan of one stored run (columns of the SELECT in load_runs), its positions read
 * as Chess960 when @chess960. */
static int load_plan(ply_store_t *s, sqlite3_stmt *row, const ply_store_run_t *run, int chess960,
                     ply_split_t **out, char *why, size_t why_len)
{
    char reason[256];
    ply_arb_pos_t root;
    if (ply_arb_from_fen(&root, run->fen, chess960 ? PLY_ARB_CHESS960 : 0, reason, sizeof reason) <
        0) {
        ply_why(why, why_len, 0, "bad position: %s", reason);
        return PLY_EDB;
    }
    int64_t split = sqlite3_column_int64(row, 6), njobs = sqlite3_column_int64(row, 7);
    if (split < 0 || split >= (int64_t)run->depth || njobs < 1 || njobs > PLY_SPLIT_MAX_JOBS) {
        ply_why(why, why_len, 0, "split depth %" PRId64 " or job count %" PRId64 " out of range",
                split, njobs);
        return PLY_EDB;
    }
    ply_split_t *plan = calloc(1, sizeof *plan);
    if (!plan || !(plan->jobs = calloc((size_t)njobs, sizeof *plan->jobs))) {
        free(plan);
        return PLY_ENOMEM;
    }
    plan->root = root;
    plan->depth = run->depth;
    plan->split_depth = (unsigned)split;
    plan->job_depth = run->depth - (unsigned)split;
    plan->paths = (uint64_t)sqlite3_column_int64(row, 8);
    plan->estimate = (uint64_t)sqlite3_column_int64(row, 9);
    plan->nroot = ply_arb_legal_moves(&root, plan->root_moves);
    for (int i = 0; i < plan->nroot; i++)
        ply_arb_move_to_uci(&root, plan->root_moves[i], plan->root_uci[i]);
    int map[PLY_ARB_MAX_MOVES], nstored = 0;
    int r = map_roots(plan, col_text(row, 10), map, &nstored, why, why_len);
    sqlite3_stmt *st = NULL;
    if (r == 0 && sqlite3_prepare_v2(s->db,
                                     "SELECT idx, fen, perft1, cost, multiplicity, mult FROM jobs"
                                     " WHERE run_id=?1 ORDER BY idx",
                                     -1, &st, NULL) != SQLITE_OK)
        r = PLY_EDB;
    if (r == 0) sqlite3_bind_int64(st, 1, (int64_t)run->id);
    size_t i = 0;
    int step;
    while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (i >= (size_t)njobs) {
            ply_why(why, why_len, 0, "more than %" PRId64 " jobs", njobs);
            r = PLY_EDB;
            break;
        }
        plan->njobs = i + 1; /* so that destroy frees what load_job allocated */
        r = load_job(st, plan, i, map, nstored, chess960, why, why_len);
        i++;
    }
    if (r == 0 && i != (size_t)njobs) {
        ply_why(why, why_len, 0, "%zu of %" PRId64 " jobs stored", i, njobs);
        r = PLY_EDB;
    }
    sqlite3_finalize(st);
    if (r < 0) {
        ply_split_destroy(&plan);
        return r;
    }
    *out = plan;
    return 0;
}

static int load_runs(ply_store_t *s, ply_store_run_fn on_run, void *arg, char *why, size_t why_len)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id, fen, depth, verify_mode, verify_ppm, job_base,"
                           " split_depth, njobs, paths, estimate, root_moves, slots, submitted_at,"
                           " (SELECT count(*) FROM results WHERE run_id=runs.id), owner, kind,"
                           " request, EXISTS(SELECT 1 FROM jobs WHERE run_id=runs.id), planned,"
                           " idempotency_key"
                           " FROM runs WHERE state='active' ORDER BY submitted_at, id",
                           -1, &st, NULL) != SQLITE_OK) {
        ply_why(why, why_len, 0, "%s", sqlite3_errmsg(s->db));
        return PLY_EDB;
    }
    int r = 0, step;
    while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        ply_store_run_t run = {0};
        run.id = (uint64_t)sqlite3_column_int64(st, 0);
        snprintf(run.fen, sizeof run.fen, "%s", col_text(st, 1));
        int64_t depth = sqlite3_column_int64(st, 2);
        run.verify_mode = sqlite3_column_int(st, 3);
        run.verify_ppm = (uint32_t)sqlite3_column_int64(st, 4);
        run.job_base = (uint64_t)sqlite3_column_int64(st, 5);
        int64_t slots = sqlite3_column_int64(st, 11);
        run.submitted_unix_ms = sqlite3_column_int64(st, 12);
        run.results = (uint32_t)sqlite3_column_int64(st, 13);
        snprintf(run.owner, sizeof run.owner, "%s", col_text(st, 14));
        int64_t kind = sqlite3_column_int64(st, 15);
        int has_request = sqlite3_column_type(st, 16) != SQLITE_NULL;
        int has_plan = sqlite3_column_int(st, 17) != 0;
        run.planned = sqlite3_column_int(st, 18) != 0;
        const uint8_t *key = sqlite3_column_blob(st, 19);
        int key_len = sqlite3_column_bytes(st, 19);
        int chess960 = 0, stats, split;
        char reason[256] = "";
        /* never read as perft: a kind this ply does not know is a run it cannot plan or check */
        if (kind < 1 || kind > PLY_STORE_KIND_MAX) {
            ply_why(reason, sizeof reason, 0,
                    "job kind %" PRId64 ", which this ply does not know (kinds 1 to %d; a newer"
                    " ply's run?)",
                    kind, PLY_STORE_KIND_MAX);
            r = PLY_EDB;
        } else if (!has_request) {
            ply_why(reason, sizeof reason, 0, "no request stored");
            r = PLY_EDB;
        } else if (key && (key_len < PLY_STORE_KEY_MIN || key_len > PLY_STORE_KEY_MAX)) {
            ply_why(reason, sizeof reason, 0, "an idempotency key of %d bytes", key_len);
            r = PLY_EDB;
        } else if (!run.planned && has_plan) {
            ply_why(reason, sizeof reason, 0, "jobs stored for a run marked not planned");
            r = PLY_EDB;
        } else if (!run.planned && (depth < 0 || depth > PLY_STORE_MAX_KIND_DEPTH)) {
            ply_why(reason, sizeof reason, 0, "depth out of range");
            r = PLY_EDB;
        } else if (!run.planned) { /* its request alone: planned again by its kind */
            run.kind = (int)kind;
            run.depth = (unsigned)depth;
        } else if (has_plan && (depth < 1 || depth > PLY_SPLIT_MAX_DEPTH || slots < 1 ||
                                slots > 8 || run.job_base < 1)) {
            ply_why(reason, sizeof reason, 0, "depth, slots or job ids out of range");
            r = PLY_EDB;
        } else if (!has_plan && (depth < 0 || depth > PLY_STORE_MAX_KIND_DEPTH || slots < 1 ||
                                 slots > 8 || run.job_base < 1 || sqlite3_column_int64(st, 7) < 0 ||
                                 sqlite3_column_int64(st, 7) > PLY_SPLIT_MAX_JOBS)) {
            ply_why(reason, sizeof reason, 0, "depth, slots, job ids or job count out of range");
            r = PLY_EDB;
        } else {
            run.kind = (int)kind;
            run.depth = (unsigned)depth;
            run.slots = (uint32_t)slots;
            run.njobs = (uint32_t)sqlite3_column_int64(st, 7);
        }
        if (r == 0) {
            /* an empty blob reads as a NULL pointer: it is still a request, of 0 bytes */
            static const uint8_t empty[1];
            const uint8_t *p = sqlite3_column_blob(st, 16);
            int n = sqlite3_column_bytes(st, 16);
            run.request = p ? p : empty;
            run.request_len = p && n > 0 ? (size_t)n : 0;
            run.key = key, run.key_len = key ? (size_t)key_len : 0;
        }
        /* a perft plan's positions are Chess960 ones when its request says so */
        if (r == 0 && kind == PLY_STORE_KIND_PERFT &&
            perft_request_read(run.request, run.request_len, &chess960, &stats, &split) < 0) {
            ply_why(reason, sizeof reason, 0, "its perft request does not decode");
            r = PLY_EDB;
        }
        ply_split_t *plan = NULL;
        /* a run stored with its plan (perft) gets it back; one stored with its request is
         * planned again from it by its kind */
        if (r == 0 && has_plan) r = load_plan(s, st, &run, chess960, &plan, reason, sizeof reason);
        if (r == 0) r = on_run(arg, &run, &plan);
        ply_split_destroy(&plan);
        if (r < 0 && reason[0])
            ply_why(why, why_len, 0, "state file %s, run %" PRIu64 ": %s", s->path, run.id, reason);
    }
    sqlite3_finalize(st);
    return r;
}

/* Decodes the blobs of one result row; 0 or PLY_EDB with the reason. */
static int load_result(sqlite3_stmt *st, ply_store_result_fn on_result, void *arg, char *why,
                       size_t why_len)
{
    ply_store_result_t r = {0};
    ply_stats_t stats;
    uint64_t divide[PLY_ARB_MAX_MOVES];
    ply_stats_t divide_stats[PLY_ARB_MAX_MOVES]; /* 30 KiB: fine on a loop thread's stack */
    r.run_id = (uint64_t)sqlite3_column_int64(st, 0);
    int64_t job = sqlite3_column_int64(st, 1), role = sqlite3_column_int64(st, 2);
    r.attempt = (uint32_t)sqlite3_column_int64(st, 3);
    r.nodes = (uint64_t)sqlite3_column_int64(st, 4);
    const uint8_t *sb = sqlite3_column_blob(st, 5);
    int sn = sqlite3_column_bytes(st, 5);
    const uint8_t *db = sqlite3_column_blob(st, 6);
    int dn = sqlite3_column_bytes(st, 6);
    const uint8_t *dsb = sqlite3_column_blob(st, 7);
    int dsn = sqlite3_column_bytes(st, 7);
    r.worker_id = col_text(st, 8);
    r.seed = (uint32_t)sqlite3_column_int64(st, 9);
    r.arbiter = sqlite3_column_int(st, 10) != 0;
    r.no_hash = sqlite3_column_int(st, 11) != 0;
    r.time_us = (uint64_t)sqlite3_column_int64(st, 12);
    r.identity = sqlite3_column_type(st, 13) == SQLITE_NULL ? NULL : col_text(st, 13);
    if (sqlite3_column_type(st, 14) != SQLITE_NULL) {
        /* an empty blob reads as a NULL pointer: it is still a payload, of 0 bytes */
        static const uint8_t empty[1];
        const uint8_t *p = sqlite3_column_blob(st, 14);
        int n = sqlite3_column_bytes(st, 14);
        r.payload = p ? p : empty;
        r.payload_len = p && n > 0 ? (size_t)n : 0;
    }
    if (job < 0 || job > UINT32_MAX || role < 0 || role > 8 || (sb && sn != PLY__STATS_BYTES) ||
        dn % 8 != 0 || dn / 8 > PLY_ARB_MAX_MOVES || (dsb && dsn != dn / 8 * PLY__STATS_BYTES)) {
        ply_why(why, why_len, 0, "result of job %" PRId64 " of run %" PRIu64 " is malformed", job,
                r.run_id);
        return PLY_EDB;
    }
    r.job = (uint32_t)job;
    r.role = (uint32_t)role;
    if (sb) {
        get_stats(sb, &stats);
        r.stats = &stats;
    }
    r.ndivide = db ? (uint32_t)(dn / 8) : 0;
    for (uint32_t i = 0; i < r.ndivide; i++) {
        divide[i] = get_u64(db + 8 * i);
        if (dsb) get_stats(dsb + (size_t)i * PLY__STATS_BYTES, &divide_stats[i]);
    }
    r.divide = r.ndivide ? divide : NULL;
    r.divide_stats = r.ndivide && dsb ? divide_stats : NULL;
    return on_result(arg, &r);
}

int ply_store_load(ply_store_t *s, ply_store_run_fn on_run, ply_store_result_fn on_result,
                   void *arg, char *why, size_t why_len)
{
    if (!s || !on_run || !on_result) return PLY_EINVAL;
    int r = load_runs(s, on_run, arg, why, why_len);
    sqlite3_stmt *st = NULL;
    if (r == 0 && sqlite3_prepare_v2(s->db,
                                     "SELECT r.run_id, r.idx, r.role, r.attempt, r.nodes, r.stats,"
                                     " r.divide, r.divide_stats, r.worker, r.seed, r.arbiter,"
                                     " r.no_hash, r.time_us, i.identity, r.payload"
                                     " FROM results r"
                                     " JOIN runs u ON u.id = r.run_id LEFT JOIN result_identity i"
                                     " ON i.run_id = r.run_id AND i.idx = r.idx AND i.role = r.role"
                                     " WHERE u.state='active'"
                                     " ORDER BY r.run_id, r.idx, r.role",
                                     -1, &st, NULL) != SQLITE_OK) {
        ply_why(why, why_len, 0, "%s: %s", s->path, sqlite3_errmsg(s->db));
        r = PLY_EDB;
    }
    int step = SQLITE_DONE;
    while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        r = load_result(st, on_result, arg, why, why_len);
    if (r == 0 && step != SQLITE_DONE) {
        ply_why(why, why_len, 0, "%s: %s", s->path, sqlite3_errmsg(s->db));
        r = PLY_EDB;
    }
    sqlite3_finalize(st);
    return r;
}

/* --------------------------------------------------------------- failures */

int ply_store_load_failures(ply_store_t *s, ply_store_failure_fn fn, void *arg, char *why,
                            size_t why_len)
{
    if (!s || !fn) return PLY_EINVAL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT f.run_id, f.task, f.attempt, f.failures, f.history"
                           " FROM failures f JOIN runs u ON u.id = f.run_id"
                           " WHERE u.state='active' ORDER BY f.run_id, f.task",
                           -1, &st, NULL) != SQLITE_OK)
        return ply_why(why, why_len, PLY_EDB, "%s: %s", s->path, sqlite3_errmsg(s->db));
    int r = 0, step;
    while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        ply_store_failure_t f = {(uint64_t)sqlite3_column_int64(st, 0),
                                 (uint32_t)sqlite3_column_int64(st, 1),
                                 (uint32_t)sqlite3_column_int64(st, 2),
                                 (uint32_t)sqlite3_column_int64(st, 3), col_text(st, 4)};
        r = fn(arg, &f);
    }
    if (r == 0 && step != SQLITE_DONE)
        r = ply_why(why, why_len, PLY_EDB, "%s: %s", s->path, sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return r;
}

/* ---------------------------------------------------------- finished runs */

#define FINISHED_COLUMNS                                                                           \
    "id, state, fen, depth, njobs, jobs_done, nodes, elapsed_ms, error_code, error, verify,"       \
    " request, verify_mode, verify_ppm, nodes_hi, owner, kind"
#define FINISHED_NCOLUMNS 17

static void read_finished(sqlite3_stmt *st, ply_store_finished_t *f)
{
    memset(f, 0, sizeof *f);
    f->id = (uint64_t)sqlite3_column_int64(st, 0);
    snprintf(f->state, sizeof f->state, "%s", col_text(st, 1));
    snprintf(f->fen, sizeof f->fen, "%s", col_text(st, 2));
    f->depth = (unsigned)sqlite3_column_int(st, 3);
    f->jobs_total = (uint32_t)sqlite3_column_int64(st, 4);
    f->jobs_done = (uint32_t)sqlite3_column_int64(st, 5);
    f->nodes = ply_u128_make((uint64_t)sqlite3_column_int64(st, 14),
                             (uint64_t)sqlite3_column_int64(st, 6)); /* NULL reads as 0 */
    f->elapsed_ms = (uint64_t)sqlite3_column_int64(st, 7);
    f->code = sqlite3_column_int(st, 8);
    snprintf(f->error, sizeof f->error, "%s", col_text(st, 9));
    snprintf(f->verify, sizeof f->verify, "%s", col_text(st, 10));
    f->verify_mode = sqlite3_column_int(st, 12);
    f->verify_ppm = (uint32_t)sqlite3_column_int64(st, 13);
    snprintf(f->owner, sizeof f->owner, "%s", col_text(st, 15));
    f->kind = sqlite3_column_int(st, 16);
    /* what it computed: its kind's request, as stored (a NULL column: none) */
    const void *req = sqlite3_column_blob(st, 11);
    int n = sqlite3_column_bytes(st, 11);
    if (sqlite3_column_type(st, 11) != SQLITE_NULL && n >= 0 &&
        (size_t)n <= sizeof f->request) {
        f->has_request = 1;
        f->request_len = (size_t)n;
        if (n > 0) memcpy(f->request, req, (size_t)n);
    }
}

int ply_store_finished(ply_store_t *s, uint64_t id, ply_store_finished_t *f, void **reply,
                       size_t *reply_len)
{
    if (!s || !f) return PLY_EINVAL;
    if (reply) *reply = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT " FINISHED_COLUMNS ", reply FROM runs"
                           " WHERE id=?1 AND state<>'active'",
                           -1, &st, NULL) != SQLITE_OK)
        return PLY_EDB;
    sqlite3_bind_int64(st, 1, (int64_t)id);
    int step = sqlite3_step(st), r = 0;
    if (step == SQLITE_ROW) {
        read_finished(st, f);
        const void *blob = sqlite3_column_blob(st, FINISHED_NCOLUMNS);
        int n = sqlite3_column_bytes(st, FINISHED_NCOLUMNS);
        if (reply && blob && n > 0) {
            *reply = malloc((size_t)n);
            if (*reply) {
                memcpy(*reply, blob, (size_t)n);
                *reply_len = (size_t)n;
            } else {
                r = PLY_ENOMEM;
            }
        }
    } else {
        r = step == SQLITE_DONE ? PLY_ENOTFOUND : PLY_EDB;
    }
    sqlite3_finalize(st);
    return r;
}

int ply_store_recent(ply_store_t *s, unsigned max,
                     int (*fn)(void *arg, const ply_store_finished_t *f), void *arg)
{
    if (!s || !fn) return PLY_EINVAL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT " FINISHED_COLUMNS " FROM runs WHERE state<>'active'"
                           " ORDER BY submitted_at DESC, id DESC LIMIT ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return PLY_EDB;
    sqlite3_bind_int64(st, 1, max);
    int r = 0, step;
    while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        ply_store_finished_t f;
        read_finished(st, &f);
        r = fn(arg, &f);
    }
    sqlite3_finalize(st);
    return r;
}
