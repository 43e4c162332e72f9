/*
 * Tests of the coordinator's state file (coordinator/store.h): a run and its
 * plan written and read back identical, results with statistics and divide,
 * finished runs and their stored answers, failed attempts of tasks kept
 * across a reopen, the job rows of old finished runs pruned (answers kept,
 * active runs untouched), task ids continuing after a restart, run ids known,
 * the 72,078-job plan of the start position at ply 4 (OEIS A083276) stored
 * in one transaction (timed), and every kind of bad file refused with a
 * clear reason and no crash: a text file, another program's SQLite
 * database, a newer format, a damaged file, inconsistent rows, a file in use.
 * Job kinds (format 3): files of formats 1 and 2, written with their own
 * schema, migrated with every value kept and their runs read as perft; a
 * search run's result payloads round-trip; an unknown kind is refused.
 * Run requests (format 4): a format-3 file migrated in place; a search run
 * stored with its request and no plan reads back with them, and its task ids
 * count in the next job base. PLY/2 (format 5): every run's request is its
 * kind's encoding (a perft run's a PerftRequest, encoded from the columns of a
 * format-4 file, which go, by the registry of kinds the coordinator opens its
 * file with), and a stored perft answer's RunAsked is rewritten as PLY/2 says
 * it; a run without a request is refused. Requests before plans (format 6, issue 27): a
 * run's request stored alone reads back unplanned with its idempotency key, its plan added
 * later; a key names one run per owner, active or finished; a format-5 file migrates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <unistd.h>

#include "arbiter/arbiter.h"
#include "envelope.h"
#include "kind.h" /* the registry's upgrade of format-4 rows */
#include "perft/split.h"
#include "store.h"
#include "util/error.h"
#include "util/log.h"
#include "util/time.h"

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ply-store-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/state.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static ply_split_t *plan_of(const char *fen, unsigned depth, int split)
{
    ply_arb_pos_t root;
    char why[256];
    assert_int_equal(ply_arb_from_fen(&root, fen, 0, why, sizeof why), 0);
    ply_split_t *plan = NULL;
    if (ply_split_plan(&root, depth, split, NULL, &plan, why, sizeof why)) fail_msg("%s", why);
    return plan;
}

/* A perft run's request, as the coordinator stores it (perft/kind.c): into @r, in storage that
 * lasts for the next few calls. */
static void perft_req(ply_store_run_t *r, int chess960, int stats, int split)
{
    static uint8_t buf[8][256];
    static unsigned next;
    uint8_t *b = buf[next++ % 8];
    Ply__PerftRequest q = PLY__PERFT_REQUEST__INIT;
    q.fen = r->fen;
    q.has_depth = 1, q.depth = r->depth;
    q.has_chess960 = 1, q.chess960 = chess960 != 0;
    q.has_stats = 1, q.stats = stats != 0;
    q.has_split_depth = 1, q.split_depth = split;
    r->request = b, r->request_len = ply__perft_request__pack(&q, b);
}

/* What a perft run's stored request says: 0, or -1 when it is none. */
static int req_of(const ply_store_run_t *r, int *chess960, int *stats, int *split)
{
    Ply__PerftRequest *q =
        r->request ? ply__perft_request__unpack(NULL, r->request_len, r->request) : NULL;
    if (!q) return -1;
    *chess960 = q->chess960, *stats = q->stats;
    *split = q->has_split_depth ? q->split_depth : -99;
    int same = q->fen && !strcmp(q->fen, r->fen) && q->depth == r->depth;
    ply__perft_request__free_unpacked(q, NULL);
    return same ? 0 : -1;
}

/* What a finished run's kept request says as perft's (perft/kind.c reads it so): chess960,
 * stats and the split asked; 0, 0, -1 when it has none or it is not a perft request. */
static void finished_req_of(const ply_store_finished_t *g, int *chess960, int *stats, int *split)
{
    *chess960 = 0, *stats = 0, *split = -1;
    Ply__PerftRequest *q =
        g->has_request ? ply__perft_request__unpack(NULL, g->request_len, g->request) : NULL;
    if (!q) return;
    *chess960 = q->chess960 != 0, *stats = q->stats != 0;
    *split = q->has_split_depth ? q->split_depth : -1;
    ply__perft_request__free_unpacked(q, NULL);
}

static ply_store_run_t run_of(uint64_t id, const char *fen, unsigned depth, uint64_t base)
{
    ply_store_run_t r;
    memset(&r, 0, sizeof r);
    r.id = id;
    snprintf(r.fen, sizeof r.fen, "%s", fen);
    r.depth = depth;
    perft_req(&r, 0, 0, 2);
    r.job_base = base;
    r.slots = 1;
    r.submitted_unix_ms = 1700000000000;
    return r;
}

typedef struct loaded {
    int runs;
    ply_split_t *plan;
    ply_store_run_t run;
    int results;
    uint64_t nodes_sum;
    int with_stats, with_divide;
    char worker[32];
    int req_rc, chess960, stats, split; /* its request, read during the callback */
} loaded_t;

static int on_run(void *arg, const ply_store_run_t *run, ply_split_t **plan)
{
    loaded_t *l = arg;
    l->runs++;
    l->run = *run;
    l->req_rc = req_of(run, &l->chess960, &l->stats, &l->split);
    l->run.request = NULL; /* the store's, valid during the callback only */
    ply_split_destroy(&l->plan);
    l->plan = *plan;
    *plan = NULL;
    return 0;
}

static int on_result(void *arg, const ply_store_result_t *r)
{
    loaded_t *l = arg;
    l->results++;
    l->nodes_sum += r->nodes;
    l->with_stats += r->stats != NULL;
    l->with_divide += r->ndivide > 0;
    snprintf(l->worker, sizeof l->worker, "%s", r->worker_id);
    return 0;
}

static void same_plan(const ply_split_t *a, const ply_split_t *b)
{
    assert_int_equal(a->njobs, b->njobs);
    assert_int_equal(a->split_depth, b->split_depth);
    assert_int_equal(a->job_depth, b->job_depth);
    assert_int_equal(a->nroot, b->nroot);
    assert_true(a->paths == b->paths);
    for (size_t i = 0; i < a->njobs; i++) {
        assert_string_equal(a->jobs[i].fen, b->jobs[i].fen);
        assert_int_equal(a->jobs[i].perft1, b->jobs[i].perft1);
        assert_true(a->jobs[i].multiplicity == b->jobs[i].multiplicity);
        assert_int_equal(a->jobs[i].nmult, b->jobs[i].nmult);
        for (uint32_t k = 0; k < a->jobs[i].nmult; k++) {
            /* root indices may be renumbered; the moves must be the same */
            assert_string_equal(a->root_uci[a->jobs[i].mult[k].root],
                                b->root_uci[b->jobs[i].mult[k].root]);
            assert_true(a->jobs[i].mult[k].count == b->jobs[i].mult[k].count);
        }
    }
}

static const char START[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/* A run with 400 jobs and some results, read back after closing. */
static void test_write_and_reload(void **state)
{
    (void)state;
    char why[512] = "";
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    uint64_t jb;
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 1);
    assert_int_equal(ply_store_has_run(s, 1), 0);
    ply_split_t *plan = plan_of(START, 4, 2);
    assert_int_equal(plan->njobs, 400);
    ply_store_run_t run = run_of(1, START, 4, 1);
    snprintf(run.owner, sizeof run.owner, "token:5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8");
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    ply_stats_t st = {{0}};
    st.v[PLY_STAT_nodes] = 20;
    st.v[PLY_STAT_captures] = 3;
    for (uint32_t i = 0; i < 10; i++) {
        ply_store_result_t r = {0};
        r.run_id = 1, r.job = i, r.role = 0, r.attempt = 1;
        r.nodes = 20 + i;
        r.stats = i % 2 ? &st : NULL;
        r.worker_id = "node07:42";
        r.seed = 3;
        r.time_us = 1000;
        assert_int_equal(ply_store_add_result(s, &r, why, sizeof why), 0);
    }
    /* a second result for the same job and role is refused */
    ply_store_result_t dup = {0};
    dup.run_id = 1, dup.job = 0, dup.role = 0, dup.attempt = 2, dup.worker_id = "x";
    assert_int_equal(ply_store_add_result(s, &dup, why, sizeof why), PLY_EDB);
    assert_non_null(strstr(why, "job 0 of run 1"));
    ply_store_close(&s);
    assert_null(s);

    s = ply_store_open(path, why, sizeof why);
    assert_non_null(s);
    loaded_t l = {0};
    assert_int_equal(ply_store_load(s, on_run, on_result, &l, why, sizeof why), 0);
    assert_int_equal(l.runs, 1);
    assert_int_equal(l.run.results, 10);
    assert_string_equal(l.run.fen, START);
    assert_int_equal(l.run.depth, 4);
    assert_true(l.run.job_base == 1 && l.run.slots == 1);
    assert_true(l.req_rc == 0 && l.split == 2 && !l.chess960 && !l.stats); /* its request */
    assert_string_equal(l.run.owner, run.owner); /* whose it is survives a restart */
    same_plan(plan, l.plan);
    assert_int_equal(l.results, 10);
    assert_true(l.nodes_sum == 10 * 20 + 45);
    assert_int_equal(l.with_stats, 5);
    assert_string_equal(l.worker, "node07:42");
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 401);
    assert_int_equal(ply_store_has_run(s, 1), 1); /* a new random id must avoid it */
    assert_int_equal(ply_store_has_run(s, 2), 0);
    ply_split_destroy(&l.plan);

    /* finished: no longer loaded, its answer kept */
    ply_store_finished_t f;
    memset(&f, 0, sizeof f);
    f.id = 1;
    snprintf(f.state, sizeof f.state, "done");
    snprintf(f.fen, sizeof f.fen, "%s", START);
    f.depth = 4, f.jobs_total = 400, f.jobs_done = 400, f.nodes = 197281;
    snprintf(f.verify, sizeof f.verify, "none");
    static const uint8_t reply[] = {1, 2, 3, 0, 255};
    assert_int_equal(ply_store_finish_run(s, &f, reply, sizeof reply), 0);
    loaded_t none = {0};
    assert_int_equal(ply_store_load(s, on_run, on_result, &none, why, sizeof why), 0);
    assert_int_equal(none.runs, 0);
    ply_store_finished_t g;
    void *blob = NULL;
    size_t n = 0;
    assert_int_equal(ply_store_finished(s, 1, &g, &blob, &n), 0);
    assert_string_equal(g.state, "done");
    assert_true(g.nodes == 197281 && g.jobs_done == 400);
    assert_string_equal(g.owner, run.owner); /* only its owner reads the answer */
    int c960, stats, split;
    finished_req_of(&g, &c960, &stats, &split);
    assert_true(g.depth == 4 && split == 2 && !stats && !c960);
    assert_int_equal(n, sizeof reply);
    assert_memory_equal(blob, reply, n);
    free(blob);
    assert_int_equal(ply_store_finished(s, 2, &g, NULL, NULL), PLY_ENOTFOUND);
    ply_store_close(&s);
    ply_split_destroy(&plan);
}

typedef struct failures_seen {
    int n;
    ply_store_failure_t last;
    char history[128];
} failures_seen_t;

static int on_failure(void *arg, const ply_store_failure_t *f)
{
    failures_seen_t *fs = arg;
    fs->n++;
    fs->last = *f;
    snprintf(fs->history, sizeof fs->history, "%s", f->history);
    fs->last.history = fs->history;
    return 0;
}

/*
 * Failed attempts of a task are kept (the latest record replaces the earlier
 * one) and read back after a reopen, for unfinished runs only.
 */
static void test_failures(void **state)
{
    (void)state;
    char why[512] = "";
    unlink(path);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_split_t *plan = plan_of(START, 3, 1);
    for (uint64_t id = 1; id <= 2; id++) {
        ply_store_run_t run = run_of(id, START, 3, 1 + 20 * (id - 1));
        assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    }
    ply_store_failure_t f1 = {1, 4, 1, 1, "attempt 1: w1: injected failure"};
    ply_store_failure_t f2 = {1, 4, 2, 2, "attempt 1: w1: injected failure; attempt 2: w2: gone"};
    ply_store_failure_t f3 = {2, 9, 1, 1, "attempt 1: lease expired"};
    assert_int_equal(ply_store_job_failed(s, &f1, why, sizeof why), 0);
    assert_int_equal(ply_store_job_failed(s, &f2, why, sizeof why), 0);
    assert_int_equal(ply_store_job_failed(s, &f3, why, sizeof why), 0);
    ply_store_finished_t f;
    memset(&f, 0, sizeof f);
    f.id = 2;
    snprintf(f.state, sizeof f.state, "failed");
    assert_int_equal(ply_store_finish_run(s, &f, NULL, 0), 0);
    ply_store_close(&s);

    s = ply_store_open(path, why, sizeof why);
    assert_non_null(s);
    failures_seen_t fs = {0};
    assert_int_equal(ply_store_load_failures(s, on_failure, &fs, why, sizeof why), 0);
    assert_int_equal(fs.n, 1); /* run 2 is finished */
    assert_true(fs.last.run_id == 1 && fs.last.task == 4);
    assert_int_equal(fs.last.attempt, 2);
    assert_int_equal(fs.last.failures, 2);
    assert_string_equal(fs.history, f2.history);
    ply_store_close(&s);
    ply_split_destroy(&plan);
}

/* Rows of @table for run @id, read with a connection of our own (the store must be closed). */
static int rows_of(const char *table, uint64_t id)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    char q[128];
    snprintf(q, sizeof q, "SELECT count(*) FROM %s WHERE run_id=%llu", table,
             (unsigned long long)id);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/*
 * Pruning: of three finished runs (20 jobs, one result each) and an active
 * one, keep=1 drops the job and result rows of the two oldest finished runs
 * only; their answers stay; the active run is never touched, even by keep=0.
 */
static void test_prune(void **state)
{
    (void)state;
    char why[512] = "";
    unlink(path);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_split_t *plan = plan_of(START, 3, 1);
    assert_int_equal(plan->njobs, 20);
    static const uint8_t reply[] = {7, 7};
    for (uint64_t id = 1; id <= 4; id++) {
        ply_store_run_t run = run_of(id, START, 3, 1 + 20 * (id - 1));
        assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
        ply_store_result_t r = {0};
        r.run_id = id, r.job = 5, r.attempt = 1, r.nodes = 22, r.worker_id = "w";
        assert_int_equal(ply_store_add_result(s, &r, why, sizeof why), 0);
        ply_store_failure_t fl = {id, 7, 2, 1, "attempt 1: lease expired"};
        assert_int_equal(ply_store_job_failed(s, &fl, why, sizeof why), 0);
        if (id == 4) break; /* stays active */
        ply_store_finished_t f;
        memset(&f, 0, sizeof f);
        f.id = id;
        snprintf(f.state, sizeof f.state, "done");
        f.depth = 3, f.jobs_total = f.jobs_done = 20, f.nodes = 8902;
        assert_int_equal(ply_store_finish_run(s, &f, reply, sizeof reply), 0);
    }
    assert_int_equal(ply_store_begin(s), 0);
    unsigned pruned = 99;
    assert_int_equal(ply_store_prune(s, 1, &pruned, why, sizeof why), PLY_EINVAL);
    assert_int_equal(pruned, 0);
    assert_int_equal(ply_store_commit(s, why, sizeof why), 0);
    assert_int_equal(ply_store_prune(s, 1, &pruned, why, sizeof why), 0);
    assert_int_equal(pruned, 2);
    assert_int_equal(ply_store_prune(s, 1, &pruned, why, sizeof why), 0);
    assert_int_equal(pruned, 0); /* nothing left to prune */
    ply_store_finished_t g;
    void *blob = NULL;
    size_t n = 0;
    assert_int_equal(ply_store_finished(s, 1, &g, &blob, &n), 0);
    assert_true(g.nodes == 8902 && n == sizeof reply);
    assert_memory_equal(blob, reply, n);
    free(blob);
    ply_store_close(&s);
    for (uint64_t id = 1; id <= 2; id++) {
        assert_int_equal(rows_of("jobs", id), 0);
        assert_int_equal(rows_of("results", id), 0);
        assert_int_equal(rows_of("failures", id), 0);
    }
    assert_int_equal(rows_of("failures", 3), 1);
    assert_int_equal(rows_of("jobs", 3), 20);
    assert_int_equal(rows_of("results", 3), 1);

    s = ply_store_open(path, why, sizeof why);
    assert_int_equal(ply_store_prune(s, 0, &pruned, why, sizeof why), 0);
    assert_int_equal(pruned, 1);
    loaded_t l = {0};
    assert_int_equal(ply_store_load(s, on_run, on_result, &l, why, sizeof why), 0);
    assert_int_equal(l.runs, 1); /* the active run, whole */
    assert_int_equal(l.run.id, 4);
    assert_int_equal(l.results, 1);
    same_plan(plan, l.plan);
    ply_split_destroy(&l.plan);
    ply_store_close(&s);
    assert_int_equal(rows_of("jobs", 3), 0);
    assert_int_equal(rows_of("jobs", 4), 20);
    ply_split_destroy(&plan);
}

/* The plan of a ply-4 split of the start position: 72,078 jobs in one transaction. */
static void test_big_plan(void **state)
{
    (void)state;
    char why[512] = "";
    unlink(path);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    assert_non_null(s);
    ply_split_t *plan = plan_of(START, 6, 4);
    assert_int_equal(plan->njobs, 72078);
    ply_store_run_t run = run_of(1, START, 6, 1);
    uint64_t t0 = ply_time_ns();
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    double store_ms = (double)(ply_time_ns() - t0) / 1e6;
    ply_store_close(&s);
    s = ply_store_open(path, why, sizeof why);
    loaded_t l = {0};
    t0 = ply_time_ns();
    assert_int_equal(ply_store_load(s, on_run, on_result, &l, why, sizeof why), 0);
    double load_ms = (double)(ply_time_ns() - t0) / 1e6;
    same_plan(plan, l.plan);
    print_message("72078 jobs: stored in %.0f ms (%.2f us a job), read back and checked against "
                  "the rule engine in %.0f ms\n",
                  store_ms, store_ms * 1000 / 72078, load_ms);
    assert_true(store_ms < 10000); /* seconds would mean one transaction per job */
    ply_split_destroy(&l.plan);
    ply_split_destroy(&plan);
    ply_store_close(&s);
}

static void expect_refused(const char *what, const char *needle)
{
    char why[512] = "";
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (s) fail_msg("%s: opened", what);
    if (!strstr(why, needle)) fail_msg("%s: \"%s\" does not say \"%s\"", what, why, needle);
    assert_non_null(strstr(why, path));
}

static void sql(const char *statements)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(db, statements, NULL, NULL, &err) != SQLITE_OK) fail_msg("%s", err);
    sqlite3_close(db);
}

static void test_foreign_files(void **state)
{
    (void)state;
    unlink(path);
    FILE *f = fopen(path, "w");
    fputs("this is not a database, just a text file that happens to be long enough to have a "
          "header page and more...............................................................",
          f);
    fclose(f);
    expect_refused("text file", "not a ply state file");

    unlink(path);
    sql("CREATE TABLE accounts(id, balance); INSERT INTO accounts VALUES(1, 100);");
    expect_refused("another program's database", "another program");

    unlink(path);
    char why[512];
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    assert_non_null(s);
    ply_store_close(&s);
    sql("PRAGMA user_version=7;");
    expect_refused("newer format", "newer ply");
}

/* One job's counts read back (on_result keeps the last). */
typedef struct exact {
    uint64_t nodes, captures, divide0;
} exact_t;

static int on_result_exact(void *arg, const ply_store_result_t *r)
{
    exact_t *e = arg;
    e->nodes = r->nodes;
    e->captures = r->stats ? r->stats->v[PLY_STAT_captures] : 0;
    e->divide0 = r->ndivide ? r->divide[0] : 0;
    return 0;
}

static int on_run_drop(void *arg, const ply_store_run_t *run, ply_split_t **plan)
{
    (void)arg, (void)run, (void)plan;
    return 0;
}

/*
 * Counts are stored exactly: one job's near 2^64 (above SQLite's signed
 * 2^63 - 1), and a run's total past 2^64: the start position's perft(15) =
 * 2,015,099,950,053,364,471,960 (OEIS A048987) = 109 x 2^64 +
 * 4404846019023345816 (Python's divmod). A format-1 file (before 128-bit
 * totals) is migrated when opened, its totals unchanged.
 */
static void test_exact_counts(void **state)
{
    (void)state;
    char why[512] = "";
    unlink(path);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_split_t *plan = plan_of(START, 2, 0);
    ply_store_run_t run = run_of(1, START, 2, 1);
    perft_req(&run, 0, 1, 2);
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    ply_stats_t st = {{0}};
    st.v[PLY_STAT_nodes] = UINT64_MAX - 1;
    st.v[PLY_STAT_captures] = (1ull << 63) + 7;
    uint64_t divide[20] = {UINT64_MAX - 20};
    ply_store_result_t r = {0};
    r.run_id = 1, r.job = 0, r.role = 0, r.attempt = 1;
    r.nodes = UINT64_MAX - 1, r.stats = &st;
    r.ndivide = 20, r.divide = divide;
    r.worker_id = "w", r.time_us = 1;
    assert_int_equal(ply_store_add_result(s, &r, why, sizeof why), 0);
    ply_store_close(&s);
    s = ply_store_open(path, why, sizeof why);
    assert_non_null(s);
    exact_t e = {0};
    assert_int_equal(ply_store_load(s, on_run_drop, on_result_exact, &e, why, sizeof why), 0);
    assert_true(e.nodes == UINT64_MAX - 1);
    assert_true(e.captures == (1ull << 63) + 7);
    assert_true(e.divide0 == UINT64_MAX - 20);

    ply_store_finished_t f;
    memset(&f, 0, sizeof f);
    f.id = 1;
    snprintf(f.state, sizeof f.state, "done");
    f.depth = 15, f.nodes = ply_u128_make(109, 4404846019023345816ull);
    assert_int_equal(ply_store_finish_run(s, &f, NULL, 0), 0);
    ply_store_close(&s);
    s = ply_store_open(path, why, sizeof why);
    assert_non_null(s);
    ply_store_finished_t g;
    assert_int_equal(ply_store_finished(s, 1, &g, NULL, NULL), 0);
    char text[PLY_U128_DEC_LEN];
    assert_string_equal(ply_u128_to_dec(g.nodes, text, sizeof text), "2015099950053364471960");
    ply_store_close(&s);

    /* the same file as format 1 wrote it: no nodes_hi column (its totals were below 2^64) */
    sql("UPDATE runs SET nodes=197281; ALTER TABLE runs DROP COLUMN nodes_hi;"
        " PRAGMA user_version=1;");
    s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("format 1 not migrated: %s", why);
    assert_int_equal(ply_store_finished(s, 1, &g, NULL, NULL), 0);
    assert_true(g.nodes == 197281);
    f.nodes = ply_u128_make(3, 6544789300456874389ull); /* perft(14), 61885021521585529237 */
    assert_int_equal(ply_store_finish_run(s, &f, NULL, 0), 0);
    assert_int_equal(ply_store_finished(s, 1, &g, NULL, NULL), 0);
    assert_string_equal(ply_u128_to_dec(g.nodes, text, sizeof text), "61885021521585529237");
    ply_store_close(&s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0),
                     6); /* 1 -> 2 -> 3 -> 4 -> 5 -> 6: the format this ply writes */
    sqlite3_finalize(q);
    sqlite3_close(db);
    ply_split_destroy(&plan);
}

/* A run whose rows were damaged: the load fails with the run and the reason, never crashes. */
static void test_inconsistent_rows(void **state)
{
    (void)state;
    static const struct {
        const char *sql, *needle;
    } cases[] = {
        {"UPDATE jobs SET mult = x'0102' WHERE idx = 5", "multiplicity blob"},
        {"UPDATE jobs SET mult = x'630000000100000000000000' WHERE idx = 5",
         "bad multiplicity entry"},
        /* counts 2^63 and 2^63 + 1 wrap in 64 bits to the multiplicity 1 */
        {"UPDATE jobs SET mult = x'000000000000000000000080010000000100000000000080' WHERE idx = 5",
         "multiplicities do not add up"},
        {"UPDATE jobs SET fen = 'garbage' WHERE idx = 7", "disagrees with the rule engine"},
        {"UPDATE jobs SET perft1 = 99 WHERE idx = 7", "disagrees with the rule engine"},
        {"DELETE FROM jobs WHERE idx = 399", "jobs stored"},
        {"UPDATE runs SET root_moves = 'e2e4 e7e5'", "root move"},
        {"UPDATE runs SET njobs = -3", "out of range"},
        {"UPDATE results SET stats = x'00'", "malformed"},
        {"UPDATE results SET divide = x'0000'", "malformed"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unlink(path);
        char why[512] = "";
        ply_store_t *s = ply_store_open(path, why, sizeof why);
        assert_non_null(s);
        ply_split_t *plan = plan_of(START, 4, 2);
        ply_store_run_t run = run_of(1, START, 4, 1);
        assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
        ply_store_result_t r = {0};
        r.run_id = 1, r.job = 3, r.attempt = 1, r.nodes = 400, r.worker_id = "w";
        assert_int_equal(ply_store_add_result(s, &r, why, sizeof why), 0);
        ply_store_close(&s);
        ply_split_destroy(&plan);
        sql(cases[c].sql);
        s = ply_store_open(path, why, sizeof why);
        assert_non_null(s);
        loaded_t l = {0};
        why[0] = '\0';
        int rc = ply_store_load(s, on_run, on_result, &l, why, sizeof why);
        if (rc != PLY_EDB) fail_msg("case %zu (%s): load returned %d", c, cases[c].sql, rc);
        if (!strstr(why, cases[c].needle))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", c, why, cases[c].needle);
        ply_split_destroy(&l.plan);
        ply_store_close(&s);
    }
}

/* Random bytes over the middle of a real state file: refused or read, never a crash. */
static void test_damaged_file(void **state)
{
    (void)state;
    unlink(path);
    char why[512] = "";
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    ply_split_t *plan = plan_of(START, 5, 3);
    ply_store_run_t run = run_of(1, START, 5, 1);
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    ply_store_close(&s);
    ply_split_destroy(&plan);
    /* fold the write-ahead log into the file first */
    sql("PRAGMA wal_checkpoint(TRUNCATE);");
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    assert_true(size > 16384);
    srand(7);
    int refused = 0;
    for (long off = 8192; off + 512 < size; off += size / 8) {
        fseek(f, off, SEEK_SET);
        for (int i = 0; i < 512; i++) fputc(rand() & 255, f);
    }
    fclose(f);
    s = ply_store_open(path, why, sizeof why);
    if (!s) {
        refused = 1;
        assert_non_null(strstr(why, path));
    } else {
        loaded_t l = {0};
        refused = ply_store_load(s, on_run, on_result, &l, why, sizeof why) < 0;
        ply_split_destroy(&l.plan);
        ply_store_close(&s);
    }
    print_message("damaged file: %s\n", refused ? why : "read (damage missed the data)");
    assert_true(refused);
}

/* One coordinator at a time: a second open of the same file is refused while the first holds it. */
static void test_in_use(void **state)
{
    (void)state;
    unlink(path);
    char why[512] = "";
    ply_store_t *a = ply_store_open(path, why, sizeof why);
    assert_non_null(a);
    ply_store_t *b = ply_store_open(path, why, sizeof why);
    assert_null(b);
    assert_non_null(strstr(why, "in use by another coordinator"));
    ply_store_close(&a);
    b = ply_store_open(path, why, sizeof why); /* released */
    assert_non_null(b);
    ply_store_close(&b);
    ply_store_close(&b); /* idempotent */
    assert_null(ply_store_open("", why, sizeof why));
    assert_null(ply_store_open("/nonexistent-dir/x.db", why, sizeof why));
    assert_non_null(strstr(why, "/nonexistent-dir/x.db"));
}

/* ------------------------------------------------------------- job kinds */

/* The schema of a format-2 file as format 2 (ply before job kinds) wrote it, from
 * coordinator/store.c at commit 288edd7; format 1 lacked runs.nodes_hi and, in its first
 * version, the failures and result_identity tables and runs.owner, which a later ply added on
 * open without changing the format. */
static const char FORMAT2_SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, fen TEXT NOT NULL, depth INTEGER NOT NULL,"
    " chess960 INTEGER NOT NULL, stats INTEGER NOT NULL, want_split INTEGER NOT NULL,"
    " verify_mode INTEGER NOT NULL, verify_ppm INTEGER NOT NULL,"
    " split_depth INTEGER NOT NULL, njobs INTEGER NOT NULL, paths INTEGER NOT NULL,"
    " estimate INTEGER NOT NULL, root_moves TEXT NOT NULL,"
    " job_base INTEGER NOT NULL, slots INTEGER NOT NULL, submitted_at INTEGER NOT NULL,"
    " state TEXT NOT NULL DEFAULT 'active', finished_at INTEGER, jobs_done INTEGER,"
    " nodes INTEGER, elapsed_ms INTEGER, error_code INTEGER, error TEXT, verify TEXT,"
    " reply BLOB%s);"
    "CREATE INDEX runs_state ON runs(state);"
    "CREATE TABLE jobs("
    " run_id INTEGER NOT NULL, idx INTEGER NOT NULL, fen TEXT NOT NULL,"
    " perft1 INTEGER NOT NULL, cost INTEGER NOT NULL, multiplicity INTEGER NOT NULL,"
    " mult BLOB NOT NULL, PRIMARY KEY(run_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE results("
    " run_id INTEGER NOT NULL, idx INTEGER NOT NULL, role INTEGER NOT NULL,"
    " attempt INTEGER NOT NULL, nodes INTEGER NOT NULL, stats BLOB, divide BLOB,"
    " divide_stats BLOB, worker TEXT NOT NULL, seed INTEGER NOT NULL,"
    " arbiter INTEGER NOT NULL, no_hash INTEGER NOT NULL, time_us INTEGER NOT NULL,"
    " at INTEGER NOT NULL, PRIMARY KEY(run_id, idx, role)) WITHOUT ROWID;"
    "PRAGMA application_id=1886157105; PRAGMA user_version=%d;" /* 0x706c7931, "ply1" */
    "INSERT INTO meta VALUES('format','ply-state %d');";
static const char FORMAT2_LATER[] =
    "CREATE TABLE failures("
    " run_id INTEGER NOT NULL, task INTEGER NOT NULL, attempt INTEGER NOT NULL,"
    " failures INTEGER NOT NULL, history TEXT NOT NULL, PRIMARY KEY(run_id, task)) WITHOUT ROWID;"
    "ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE result_identity("
    " run_id INTEGER NOT NULL, idx INTEGER NOT NULL, role INTEGER NOT NULL,"
    " identity TEXT NOT NULL, PRIMARY KEY(run_id, idx, role)) WITHOUT ROWID;";

#define OLD_RUN   9007199254740991ull /* 2^53 - 1, the largest run id */
#define OLD_DONE  77ull
#define OLD_NODES 0x8000000000000005ull /* above SQLite's 2^63 - 1: stored by two's complement */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Writes, with SQL of its own, the file an older ply (@format 1 or 2) left: the active run
 * OLD_RUN (@plan of the start position split at ply 1, depth 3) with two results and a failed
 * task, and the finished run OLD_DONE with its answer. @later: with the tables and the column
 * added after format 1 shipped (always there in format 2).
 */
static void write_old_file(int format, int later, const ply_split_t *plan)
{
    unlink(path);
    char schema[sizeof FORMAT2_SCHEMA + 64], moves[PLY_ARB_MAX_MOVES * 6] = "";
    snprintf(schema, sizeof schema, FORMAT2_SCHEMA, format >= 2 ? ", nodes_hi INTEGER" : "", format,
             format);
    sql(schema);
    if (later) sql(FORMAT2_LATER);
    for (int i = 0; i < plan->nroot; i++) {
        if (i) strcat(moves, " ");
        strcat(moves, plan->root_uci[i]);
    }
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char q[1024];
    snprintf(q, sizeof q,
             "INSERT INTO runs(id,fen,depth,chess960,stats,want_split,verify_mode,verify_ppm,"
             "split_depth,njobs,paths,estimate,root_moves,job_base,slots,submitted_at) VALUES"
             "(%llu,'%s',3,0,1,1,1,250000,1,20,%llu,%llu,?1,5,2,1700000000123),"
             "(%llu,'%s',2,0,0,-1,0,0,0,1,1,400,?1,1,1,1600000000000)",
             OLD_RUN, START, (unsigned long long)plan->paths, (unsigned long long)plan->estimate,
             OLD_DONE, START);
    assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, moves, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    assert_int_equal(
        sqlite3_prepare_v2(db, "INSERT INTO jobs VALUES(?1,?2,?3,?4,?5,?6,?7)", -1, &st, NULL),
        SQLITE_OK);
    for (size_t i = 0; i < plan->njobs; i++) {
        const ply_split_job_t *j = &plan->jobs[i];
        uint8_t mult[PLY_ARB_MAX_MOVES * 12];
        for (uint32_t k = 0; k < j->nmult; k++) {
            put_le(mult + 12 * k, j->mult[k].root, 4);
            put_le(mult + 12 * k + 4, j->mult[k].count, 8);
        }
        sqlite3_bind_int64(st, 1, (sqlite3_int64)OLD_RUN);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_text(st, 3, j->fen, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, j->perft1);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)j->cost);
        sqlite3_bind_int64(st, 6, (sqlite3_int64)j->multiplicity);
        sqlite3_bind_blob(st, 7, mult, (int)(j->nmult * 12), SQLITE_STATIC);
        assert_int_equal(sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    uint8_t stats[8 * PLY_STATS_N];
    for (int k = 0; k < PLY_STATS_N; k++) put_le(stats + 8 * k, 1000 + (uint64_t)k, 8);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "INSERT INTO results VALUES(?1,3,0,2,?2,?3,NULL,NULL,"
                                        "'node07:42',17,0,1,123456,1700000000999),"
                                        "(?1,3,1,1,?2,NULL,NULL,NULL,'arbiter',0,1,0,99,"
                                        "1700000001000)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(st, 1, (sqlite3_int64)OLD_RUN);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)OLD_NODES);
    sqlite3_bind_blob(st, 3, stats, sizeof stats, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
    char more[512];
    snprintf(more, sizeof more,
             "UPDATE runs SET state='done', finished_at=1600000009000, jobs_done=1, nodes=400,"
             " elapsed_ms=9000, error_code=0, error='', verify='none', reply=x'0a0b00ff'%s"
             " WHERE id=%llu;",
             format >= 2 ? ", nodes_hi=0" : "", OLD_DONE);
    sql(more);
    if (later) {
        snprintf(more, sizeof more,
                 "UPDATE runs SET owner='curve:Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID'"
                 " WHERE id=%llu;"
                 "INSERT INTO result_identity "
                 "VALUES(%llu,3,0,'curve:rq:rM>}U?@Lns47E1%%kR.o@n%%FcmmsL/@{H8]yf7');"
                 "INSERT INTO failures VALUES(%llu,23,2,1,'attempt 1: w1: gone');",
                 OLD_RUN, OLD_RUN, OLD_RUN);
        sql(more);
    }
}

/* Every value of one stored computation, copied during the callback. */
typedef struct kept_result {
    uint32_t job, role, attempt, seed;
    uint64_t nodes, time_us;
    int has_stats, arbiter, no_hash, has_identity, has_payload;
    ply_stats_t stats;
    char worker[32], identity[64];
    uint8_t payload[32];
    size_t payload_len;
} kept_result_t;

typedef struct kept {
    int runs, nresults;
    ply_store_run_t run;
    int req_rc, chess960, stats, split; /* its request, read during the callback */
    ply_split_t *plan;
    kept_result_t r[4];
} kept_t;

static int on_run_kept(void *arg, const ply_store_run_t *run, ply_split_t **plan)
{
    kept_t *k = arg;
    k->runs++;
    k->run = *run;
    k->req_rc = req_of(run, &k->chess960, &k->stats, &k->split);
    k->run.request = NULL; /* the store's, valid during the callback only */
    ply_split_destroy(&k->plan);
    k->plan = *plan;
    *plan = NULL;
    return 0;
}

static int on_result_kept(void *arg, const ply_store_result_t *r)
{
    kept_t *k = arg;
    assert_true(k->nresults < 4);
    kept_result_t *c = &k->r[k->nresults++];
    c->job = r->job, c->role = r->role, c->attempt = r->attempt, c->seed = r->seed;
    c->nodes = r->nodes, c->time_us = r->time_us;
    c->arbiter = r->arbiter, c->no_hash = r->no_hash;
    c->has_stats = r->stats != NULL;
    if (r->stats) c->stats = *r->stats;
    snprintf(c->worker, sizeof c->worker, "%s", r->worker_id);
    c->has_identity = r->identity != NULL;
    if (r->identity) snprintf(c->identity, sizeof c->identity, "%s", r->identity);
    c->has_payload = r->payload != NULL;
    assert_true(r->payload_len <= sizeof c->payload);
    assert_true(r->payload || r->payload_len == 0);
    c->payload_len = r->payload_len;
    if (r->payload_len) memcpy(c->payload, r->payload, r->payload_len);
    return 0;
}

/* PRAGMA user_version and the meta format of the file, read with a connection of our own. */
static int format_of(char *meta, size_t meta_len)
{
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    int v = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    assert_int_equal(
        sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='format'", -1, &q, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    snprintf(meta, meta_len, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sqlite3_close(db);
    return v;
}

/* The old file of write_old_file, opened by this ply: every value as written, kind 1. */
static void check_old_file(int later, const ply_split_t *plan)
{
    char why[512] = "", meta[32];
    ply_store_t *s = ply_store_open_upgrading(path, ply__kinds_upgrade_row, why, sizeof why);
    if (!s) fail_msg("old file not migrated: %s", why);
    kept_t k = {0};
    assert_int_equal(ply_store_load(s, on_run_kept, on_result_kept, &k, why, sizeof why), 0);
    assert_int_equal(k.runs, 1);
    const ply_store_run_t *r = &k.run;
    assert_true(r->id == OLD_RUN);
    assert_int_equal(r->kind, PLY_STORE_KIND_PERFT); /* the only kind there was */
    assert_string_equal(r->fen, START);
    assert_true(r->depth == 3);
    /* its request, encoded from the columns of its format */
    assert_true(k.req_rc == 0 && !k.chess960 && k.stats && k.split == 1);
    assert_true(r->verify_mode == 1 && r->verify_ppm == 250000);
    assert_true(r->job_base == 5 && r->slots == 2 && r->submitted_unix_ms == 1700000000123);
    assert_int_equal(r->results, 2);
    assert_true(r->planned && r->key_len == 0); /* format 5 -> 6: stored with its plan, no key */
    assert_string_equal(r->owner, later ? "curve:Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID" : "");
    same_plan(plan, k.plan);
    assert_true(k.plan->estimate == plan->estimate && k.plan->paths == 20);
    assert_int_equal(k.nresults, 2);
    const kept_result_t *a = &k.r[0], *b = &k.r[1];
    assert_true(a->job == 3 && a->role == 0 && a->attempt == 2 && a->nodes == OLD_NODES);
    assert_true(a->has_stats && !a->arbiter && a->no_hash && a->seed == 17);
    for (int i = 0; i < PLY_STATS_N; i++) assert_true(a->stats.v[i] == 1000 + (uint64_t)i);
    assert_string_equal(a->worker, "node07:42");
    assert_true(a->time_us == 123456);
    assert_int_equal(a->has_identity, later);
    if (later) assert_string_equal(a->identity, "curve:rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
    assert_true(!a->has_payload && a->payload_len == 0);
    assert_true(b->job == 3 && b->role == 1 && b->attempt == 1 && b->nodes == OLD_NODES);
    assert_true(!b->has_stats && b->arbiter && !b->no_hash && !b->has_identity);
    assert_string_equal(b->worker, "arbiter");
    assert_true(!b->has_payload && b->time_us == 99);
    failures_seen_t fs = {0};
    assert_int_equal(ply_store_load_failures(s, on_failure, &fs, why, sizeof why), 0);
    assert_int_equal(fs.n, later);
    if (later) {
        assert_true(fs.last.run_id == OLD_RUN && fs.last.task == 23);
        assert_true(fs.last.attempt == 2 && fs.last.failures == 1);
        assert_string_equal(fs.history, "attempt 1: w1: gone");
    }
    ply_store_finished_t g;
    void *blob = NULL;
    size_t n = 0;
    assert_int_equal(ply_store_finished(s, OLD_DONE, &g, &blob, &n), 0);
    assert_string_equal(g.state, "done");
    assert_true(g.nodes == 400 && g.depth == 2 && g.jobs_total == 1 && g.jobs_done == 1);
    int c960, stats, split;
    finished_req_of(&g, &c960, &stats, &split);
    assert_true(g.elapsed_ms == 9000 && g.code == 0 && split == -1);
    assert_string_equal(g.verify, "none");
    assert_int_equal(n, 4);
    assert_memory_equal(blob, "\x0a\x0b\x00\xff", 4);
    free(blob);
    uint64_t jb = 0;
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 5 + 2 * 20); /* job_base + slots * njobs of the highest run */
    /* the migrated file takes results with a payload (its columns are in another order) */
    ply_store_result_t nr = {0};
    static const uint8_t bytes[] = {8, 1, 0, 255};
    nr.run_id = OLD_RUN, nr.job = 4, nr.attempt = 1, nr.nodes = 1, nr.worker_id = "w";
    nr.payload = bytes, nr.payload_len = sizeof bytes;
    assert_int_equal(ply_store_add_result(s, &nr, why, sizeof why), 0);
    ply_store_close(&s);
    ply_split_destroy(&k.plan);
    assert_int_equal(format_of(meta, sizeof meta), 6);
    assert_string_equal(meta, "ply-state 6");

    s = ply_store_open(path, why, sizeof why); /* format 6 now: opened as it is */
    if (!s) fail_msg("%s", why);
    kept_t k2 = {0};
    assert_int_equal(ply_store_load(s, on_run_kept, on_result_kept, &k2, why, sizeof why), 0);
    assert_int_equal(k2.run.kind, PLY_STORE_KIND_PERFT);
    assert_int_equal(k2.nresults, 3);
    assert_true(k2.r[2].job == 4 && k2.r[2].has_payload && k2.r[2].payload_len == sizeof bytes);
    assert_memory_equal(k2.r[2].payload, bytes, sizeof bytes);
    assert_true(k2.req_rc == 0 && k2.stats && k2.split == 1); /* a perft run: its request */
    ply_split_destroy(&k2.plan);
    ply_store_close(&s);
    assert_int_equal(format_of(meta, sizeof meta), 6);
}

/* The format-3 file (job kinds, before run requests) that format 3 left: a format-2 file as
 * format 3 migrated it (coordinator/store.c at commit bd8a6f1, migrate_2_to_3). */
static void write_format3_file(const ply_split_t *plan)
{
    write_old_file(2, 1, plan);
    sql("ALTER TABLE runs ADD COLUMN kind INTEGER NOT NULL DEFAULT 1;"
        "ALTER TABLE results ADD COLUMN payload BLOB;"
        "PRAGMA user_version=3; UPDATE meta SET value='ply-state 3' WHERE key='format';");
}

/*
 * A format-2 file (before job kinds), as format 2 wrote it, is migrated in place to format 3:
 * its runs read as kind 1 (perft) with every value kept, its results without a payload. So is
 * a format-1 file, by way of format 2, with and without the tables added after format 1.
 */
static void test_old_formats_migrate(void **state)
{
    (void)state;
    ply_split_t *plan = plan_of(START, 3, 1);
    assert_int_equal(plan->njobs, 20);
    write_old_file(2, 1, plan);
    check_old_file(1, plan);
    write_old_file(1, 1, plan);
    check_old_file(1, plan);
    write_old_file(1, 0, plan);
    check_old_file(0, plan);
    write_format3_file(plan); /* 3 -> 4: run requests */
    check_old_file(1, plan);
    ply_split_destroy(&plan);
}

/*
 * Opened without the kinds' upgrade (ply_store_open), an old file whose runs keep their
 * requests in columns is refused, and left as it was: a coordinator opens it afterwards and
 * every value is there.
 */
static void test_old_format_without_upgrade(void **state)
{
    (void)state;
    ply_split_t *plan = plan_of(START, 3, 1);
    write_old_file(2, 1, plan);
    char why[512] = "", meta[32];
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    assert_null(s);
    assert_non_null(strstr(why, "cannot migrate state format 4 to 5"));
    assert_non_null(strstr(why, "left as it was"));
    assert_int_equal(format_of(meta, sizeof meta), 4); /* migrated up to 4, in its own steps */
    check_old_file(1, plan);
    ply_split_destroy(&plan);
}

/* Protobuf's wire format by hand, for a message as PLY/1 encoded it (its fields are gone). */
static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}
static size_t put_field(uint8_t *p, unsigned field, int wire, uint64_t v)
{
    size_t n = put_varint(p, (uint64_t)field << 3 | (unsigned)wire);
    return n + put_varint(p + n, v);
}
static size_t put_bytes(uint8_t *p, unsigned field, const void *b, size_t len)
{
    size_t n = put_field(p, field, 2, len);
    memcpy(p + n, b, len);
    return n + len;
}

/*
 * The answer of a finished perft run as a format-4 file stored it: a PLY/1 RunResult whose
 * RunAsked has PLY/1's fields 60-65 (fen, depth, chess960, stats, split_depth -1, verify),
 * is rewritten when the file is migrated: PLY/2's RunAsked (kind 1, perft) from the run's
 * columns, the PLY/1 fields gone, the rest of the answer as it was; so an old answer asked for
 * again passes a PLY/2 client's checks.
 */
static void test_ply1_answer_migrates(void **state)
{
    (void)state;
    ply_split_t *plan = plan_of(START, 3, 1);
    write_old_file(2, 1, plan);
    write_format3_file(plan); /* then 3 -> 4 -> 5 */
    ply_split_destroy(&plan);
    uint8_t asked[256], rr[512], msg[600];
    size_t na = put_bytes(asked, 60, START, strlen(START));
    na += put_field(asked + na, 61, 0, 2);
    na += put_field(asked + na, 62, 0, 0);
    na += put_field(asked + na, 63, 0, 0);
    na += put_field(asked + na, 64, 0, (uint64_t)(int64_t)-1); /* int32 -1: ten bytes */
    na += put_field(asked + na, 65, 0, 0);
    size_t nr = put_field(rr, 1, 0, OLD_DONE);
    nr += put_bytes(rr + nr, 2, START, strlen(START));
    nr += put_field(rr + nr, 3, 0, 2);
    nr += put_field(rr + nr, 4, 0, 400);
    nr += put_bytes(rr + nr, 60, asked, na);
    size_t nm = put_bytes(msg, 14, rr, nr); /* Message.run_result */
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "UPDATE runs SET reply=?1 WHERE id=?2", -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_blob(st, 1, msg, (int)nm, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)OLD_DONE);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);

    char why[512] = "";
    ply_store_t *s = ply_store_open_upgrading(path, ply__kinds_upgrade_row, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_store_finished_t g;
    void *blob = NULL;
    size_t n = 0;
    assert_int_equal(ply_store_finished(s, OLD_DONE, &g, &blob, &n), 0);
    int c960, stats, split;
    finished_req_of(&g, &c960, &stats, &split);
    assert_true(g.has_request && !c960 && !stats && split == -1); /* its request */
    ply_store_close(&s);
    ply_msg_t *m = ply__message__unpack(NULL, n, blob);
    free(blob);
    assert_non_null(m);
    char reason[256];
    if (ply_msg_validate(m, reason, sizeof reason)) fail_msg("%s", reason);
    assert_int_equal(m->body_case, PLY__MESSAGE__BODY_RUN_RESULT);
    const Ply__RunResult *r = m->run_result;
    assert_true(r->run_id == OLD_DONE && r->nodes == 400 && r->depth == 2);
    assert_string_equal(r->fen, START);
    const Ply__RunAsked *a = r->asked;
    assert_true(a->has_kind && a->kind == PLY__JOB_KIND__JOB_KIND_PERFT);
    assert_int_equal(a->base.n_unknown_fields, 0); /* PLY/1's fields 60-64 are gone */
    assert_true(a->has_verify && a->verify == PLY__VERIFY_MODE__VERIFY_MODE_NONE);
    assert_string_equal(a->perft->fen, START);
    assert_true(a->perft->depth == 2 && a->perft->has_split_depth && a->perft->split_depth == -1);
    assert_true(a->perft->has_stats && !a->perft->stats && !a->perft->chess960);
    ply_msg_free(&m);
}

typedef struct search_seen {
    int n, had_plan;
    uint64_t id[2];
    uint32_t njobs[2];
    unsigned depth[2];
    int had_request[2];
    size_t len[2];
    uint8_t bytes[2][16];
} search_seen_t;

static int on_result_none(void *arg, const ply_store_result_t *r)
{
    (void)arg, (void)r;
    fail_msg("no result was stored");
    return 0;
}

static int on_run_search(void *arg, const ply_store_run_t *r, ply_split_t **plan)
{
    search_seen_t *k = arg;
    assert_true(k->n < 2);
    k->had_plan |= *plan != NULL;
    k->id[k->n] = r->id, k->njobs[k->n] = r->njobs, k->depth[k->n] = r->depth;
    k->had_request[k->n] = r->request != NULL;
    assert_true(r->request_len <= sizeof k->bytes[0]);
    k->len[k->n] = r->request_len;
    if (r->request_len) memcpy(k->bytes[k->n], r->request, r->request_len);
    k->n++;
    return 0;
}

/*
 * A search run stored with its request (bytes as given, a 0 and a 255 among them) and no plan
 * reads back with its request, its job count and a depth of 0 (no depth limit); its task ids
 * count in the next job base; an empty request is one (not NULL); a run with neither plan nor
 * request is refused.
 */
static void test_search_request(void **state)
{
    (void)state;
    char why[512] = "";
    unlink(path);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    static const uint8_t req[] = {0x0a, 0x08, 's', 't', 'a', 'r', 't', 'p', 'o', 's', 0x00, 0xff};
    ply_store_run_t run = run_of(5151, START, 0, 100);
    run.kind = PLY_STORE_KIND_SEARCH;
    run.njobs = 20;
    run.request = NULL, run.request_len = 0;
    assert_int_equal(ply_store_add_run(s, &run, NULL, why, sizeof why), PLY_EINVAL);
    assert_non_null(strstr(why, "run 5151: no request"));
    run.request = req, run.request_len = sizeof req;
    assert_int_equal(ply_store_add_run(s, &run, NULL, why, sizeof why), 0);
    ply_store_run_t empty = run_of(5152, START, 4, 200);
    empty.kind = PLY_STORE_KIND_SEARCH;
    empty.njobs = 1;
    empty.request = req, empty.request_len = 0;
    empty.submitted_unix_ms++;
    assert_int_equal(ply_store_add_run(s, &empty, NULL, why, sizeof why), 0);
    ply_store_close(&s);

    s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    search_seen_t seen = {0};
    assert_int_equal(ply_store_load(s, on_run_search, on_result_none, &seen, why, sizeof why), 0);
    assert_int_equal(seen.n, 2);
    assert_false(seen.had_plan);
    assert_true(seen.id[0] == 5151 && seen.njobs[0] == 20 && seen.depth[0] == 0);
    assert_int_equal(seen.len[0], sizeof req);
    assert_memory_equal(seen.bytes[0], req, sizeof req);
    assert_true(seen.id[1] == 5152 && seen.njobs[1] == 1 && seen.depth[1] == 4);
    assert_true(seen.had_request[1] && seen.len[1] == 0);
    uint64_t jb = 0;
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 200 + 1); /* the highest: job_base + slots * njobs */
    ply_store_close(&s);
}

/*
 * A run of kind 2 (search) round-trips with its results' payloads: bytes as given (a 0 and a
 * 255 among them), an empty payload (not NULL), and none. A kind this ply does not know is
 * refused when stored and, found in a file, when read, with the run and the kind named.
 */
static void test_kinds(void **state)
{
    (void)state;
    char why[512] = "";
    unlink(path);
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_split_t *plan = plan_of(START, 3, 1);
    ply_store_run_t run = run_of(4242, START, 3, 1);
    run.kind = -5;
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), PLY_EINVAL);
    assert_non_null(strstr(why, "run 4242"));
    assert_non_null(strstr(why, "kind -5"));
    assert_int_equal(ply_store_has_run(s, 4242), 0); /* nothing stored */
    run.kind = PLY_STORE_KIND_SEARCH;
    assert_int_equal(ply_store_add_run(s, &run, plan, why, sizeof why), 0);
    static const uint8_t enc[] = {0x0a, 0x04, 0x00, 0xff, 0x10, 0x01, 0x18, 0x80, 0x01};
    static const uint8_t nothing[1] = {0};
    for (uint32_t i = 0; i < 3; i++) {
        ply_store_result_t r = {0};
        r.run_id = 4242, r.job = i, r.attempt = 1, r.worker_id = "w", r.time_us = 5;
        if (i == 0) r.payload = enc, r.payload_len = sizeof enc;
        if (i == 1) r.payload = nothing, r.payload_len = 0;
        assert_int_equal(ply_store_add_result(s, &r, why, sizeof why), 0);
    }
    ply_store_result_t bad = {0};
    bad.run_id = 4242, bad.job = 5, bad.worker_id = "w", bad.payload_len = 3; /* no bytes */
    assert_int_equal(ply_store_add_result(s, &bad, why, sizeof why), PLY_EINVAL);
    ply_store_close(&s);

    s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    kept_t k = {0};
    assert_int_equal(ply_store_load(s, on_run_kept, on_result_kept, &k, why, sizeof why), 0);
    assert_int_equal(k.runs, 1);
    assert_int_equal(k.run.kind, PLY_STORE_KIND_SEARCH);
    same_plan(plan, k.plan);
    assert_int_equal(k.nresults, 3);
    assert_true(k.r[0].has_payload && k.r[0].payload_len == sizeof enc);
    assert_memory_equal(k.r[0].payload, enc, sizeof enc);
    assert_true(k.r[1].has_payload && k.r[1].payload_len == 0);
    assert_true(!k.r[2].has_payload && k.r[2].payload_len == 0);
    ply_split_destroy(&k.plan);
    ply_store_close(&s);

    /* a run of no kind (not a positive number), never read as perft; any positive kind is
     * read, the coordinator's registry says whether it runs it */
    static const char *const unknown[] = {"UPDATE runs SET kind = -3", "UPDATE runs SET kind = 0"};
    static const char *const named[] = {"kind -3", "kind 0"};
    for (int c = 0; c < 2; c++) {
        sql(unknown[c]);
        s = ply_store_open(path, why, sizeof why);
        if (!s) fail_msg("%s", why);
        kept_t u = {0};
        why[0] = '\0';
        assert_int_equal(ply_store_load(s, on_run_kept, on_result_kept, &u, why, sizeof why),
                         PLY_EDB);
        print_message("unknown kind: %s\n", why);
        assert_int_equal(u.runs, 0);
        assert_non_null(strstr(why, "run 4242"));
        assert_non_null(strstr(why, named[c]));
        assert_non_null(strstr(why, "does not know"));
        assert_non_null(strstr(why, path));
        ply_store_close(&s);
    }
    ply_split_destroy(&plan);
}

/* ------------------------------------------- requests before plans, keys */

#define KEY_A "0123456789abcdef"         /* 16 bytes: the shortest key */
#define KEY_B "a key of 24 bytes, exact" /* another */

/* A run of the start position's perft(@depth) with its request, owner @owner and key @key. */
static ply_store_run_t keyed_run(uint64_t id, unsigned depth, const char *owner, const char *key)
{
    ply_store_run_t r = run_of(id, START, depth, 0);
    perft_req(&r, 0, 0, 1);
    snprintf(r.owner, sizeof r.owner, "%s", owner);
    r.key = (const uint8_t *)key, r.key_len = key ? strlen(key) : 0;
    return r;
}

/* Every run read back: id, planned, njobs of its plan (0: none), its key. */
typedef struct seen_runs {
    int n;
    uint64_t id[4];
    int planned[4];
    size_t njobs[4], key_len[4];
    char key[4][65];
} seen_runs_t;

static int on_run_seen(void *arg, const ply_store_run_t *r, ply_split_t **plan)
{
    seen_runs_t *v = arg;
    assert_true(v->n < 4);
    int i = v->n++;
    v->id[i] = r->id, v->planned[i] = r->planned;
    v->njobs[i] = *plan ? (*plan)->njobs : 0;
    v->key_len[i] = r->key_len;
    assert_true(r->key_len <= 64);
    if (r->key_len) memcpy(v->key[i], r->key, r->key_len);
    v->key[i][r->key_len] = '\0';
    assert_int_equal(req_of(r, &(int){0}, &(int){0}, &(int){0}), 0); /* its request, kept */
    return 0;
}

static seen_runs_t load_seen(void)
{
    char why[512];
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    seen_runs_t v = {0};
    assert_int_equal(ply_store_load(s, on_run_seen, on_result_none, &v, why, sizeof why), 0);
    ply_store_close(&s);
    return v;
}

/*
 * A run's request is stored before its plan (issue 27): read back unplanned (no plan, no
 * jobs) with its key, across a reopen; its plan added later reads back as a planned run's; a
 * key names one run per owner (found whether the run is active or finished; the same key of
 * another owner is another run's); keys of the wrong size and a second plan are refused.
 */
static void test_request_before_plan(void **state)
{
    (void)state;
    unlink(path);
    char why[512] = "";
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_store_run_t a = keyed_run(11, 3, "token:alice", KEY_A);
    ply_store_run_t b = keyed_run(12, 3, "token:alice", NULL);
    assert_int_equal(ply_store_add_request(s, &a, why, sizeof why), 0);
    assert_int_equal(ply_store_add_request(s, &b, why, sizeof why), 0);
    ply_store_run_t again = keyed_run(13, 3, "token:alice", KEY_A);
    why[0] = '\0';
    assert_int_equal(ply_store_add_request(s, &again, why, sizeof why), PLY_EDB);
    assert_non_null(strstr(why, "UNIQUE")); /* the owner's key names run 11 already */
    ply_store_run_t bob = keyed_run(14, 3, "token:bob", KEY_A);
    assert_int_equal(ply_store_add_request(s, &bob, why, sizeof why), 0);
    ply_store_run_t shorty = keyed_run(15, 3, "token:alice", "fifteen bytes..");
    assert_int_equal(ply_store_add_request(s, &shorty, why, sizeof why), PLY_EINVAL);
    assert_non_null(strstr(why, "idempotency key of 15 bytes"));
    uint64_t id = 0;
    assert_int_equal(ply_store_find_key(s, "token:alice", (const uint8_t *)KEY_A, 16, &id), 1);
    assert_true(id == 11);
    assert_int_equal(ply_store_find_key(s, "token:bob", (const uint8_t *)KEY_A, 16, &id), 1);
    assert_true(id == 14);
    assert_int_equal(ply_store_find_key(s, "token:carol", (const uint8_t *)KEY_A, 16, &id), 0);
    assert_int_equal(ply_store_find_key(s, "token:alice", (const uint8_t *)KEY_B, 24, &id), 0);
    uint64_t jb = 0;
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 1); /* unplanned runs hold no task ids */
    ply_store_close(&s);

    seen_runs_t v = load_seen(); /* as a coordinator killed before planning finds them */
    assert_int_equal(v.n, 3);
    assert_true(v.id[0] == 11 && !v.planned[0] && v.njobs[0] == 0 && v.key_len[0] == 16);
    assert_string_equal(v.key[0], KEY_A);
    assert_true(v.id[1] == 12 && !v.planned[1] && v.key_len[1] == 0);
    assert_true(v.id[2] == 14 && !v.planned[2] && v.key_len[2] == 16);

    s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_split_t *plan = plan_of(START, 3, 1); /* 20 jobs: the moves of the start position */
    a.job_base = 100, a.slots = 1;
    assert_int_equal(ply_store_add_plan(s, &a, plan, why, sizeof why), 0);
    why[0] = '\0';
    assert_int_equal(ply_store_add_plan(s, &a, plan, why, sizeof why), PLY_EDB);
    assert_non_null(strstr(why, "no unplanned request"));
    ply_store_run_t ghost = keyed_run(99, 3, "token:alice", NULL);
    assert_int_equal(ply_store_add_plan(s, &ghost, plan, why, sizeof why), PLY_EDB);
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 100 + 20);
    ply_store_close(&s);
    v = load_seen();
    assert_true(v.id[0] == 11 && v.planned[0] && v.njobs[0] == 20 && v.key_len[0] == 16);
    assert_true(v.id[1] == 12 && !v.planned[1]);

    /* a finished run's key still names it (a client re-sending its Submit gets its answer) */
    s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_store_finished_t f;
    memset(&f, 0, sizeof f);
    f.id = 11;
    snprintf(f.state, sizeof f.state, "done");
    f.nodes = ply_u128_make(0, 8902); /* perft(3) of the start position, chessprogramming wiki */
    assert_int_equal(ply_store_finish_run(s, &f, "ok", 2), 0);
    assert_int_equal(ply_store_find_key(s, "token:alice", (const uint8_t *)KEY_A, 16, &id), 1);
    assert_true(id == 11);
    ply_store_close(&s);
    v = load_seen();
    assert_int_equal(v.n, 2); /* 12 and 14: unfinished */
    ply_split_destroy(&plan);
}

/*
 * A format-5 file (before requests were stored ahead of plans: no planned, no
 * idempotency_key) is migrated to format 6 by ply_store_open too (the step needs no kind):
 * its runs read back planned, without keys, every value kept.
 */
static void test_format5_migrates(void **state)
{
    (void)state;
    unlink(path);
    char why[512] = "", meta[32];
    ply_store_t *s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    ply_split_t *plan = plan_of(START, 3, 1);
    ply_store_run_t r = keyed_run(21, 3, "token:alice", NULL);
    r.job_base = 7, r.slots = 2;
    assert_int_equal(ply_store_add_run(s, &r, plan, why, sizeof why), 0);
    ply_store_close(&s);
    /* format 5's schema is format 6's without the index and the two columns */
    sql("DROP INDEX runs_key; ALTER TABLE runs DROP COLUMN planned;"
        " ALTER TABLE runs DROP COLUMN idempotency_key;"
        " PRAGMA user_version=5; UPDATE meta SET value='ply-state 5' WHERE key='format';");
    assert_int_equal(format_of(meta, sizeof meta), 5);
    seen_runs_t v = load_seen(); /* ply_store_open: no upgrade of kinds needed */
    assert_int_equal(format_of(meta, sizeof meta), 6);
    assert_string_equal(meta, "ply-state 6");
    assert_int_equal(v.n, 1);
    assert_true(v.id[0] == 21 && v.planned[0] && v.njobs[0] == 20 && v.key_len[0] == 0);
    s = ply_store_open(path, why, sizeof why);
    if (!s) fail_msg("%s", why);
    uint64_t jb = 0;
    assert_int_equal(ply_store_next_job_base(s, &jb), 0);
    assert_true(jb == 7 + 2 * 20);
    ply_store_run_t k = keyed_run(22, 3, "token:alice", KEY_B); /* keys work in it */
    assert_int_equal(ply_store_add_request(s, &k, why, sizeof why), 0);
    uint64_t id = 0;
    assert_int_equal(ply_store_find_key(s, "token:alice", (const uint8_t *)KEY_B, 24, &id), 1);
    assert_true(id == 22);
    ply_store_close(&s);
    ply_split_destroy(&plan);
}

int main(void)
{
    ply_log_set_level(PLY_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_and_reload),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_big_plan),
        cmocka_unit_test(test_foreign_files),
        cmocka_unit_test(test_inconsistent_rows),
        cmocka_unit_test(test_damaged_file),
        cmocka_unit_test(test_in_use),
        cmocka_unit_test(test_exact_counts),
        cmocka_unit_test(test_old_formats_migrate),
        cmocka_unit_test(test_old_format_without_upgrade),
        cmocka_unit_test(test_request_before_plan),
        cmocka_unit_test(test_format5_migrates),
        cmocka_unit_test(test_ply1_answer_migrates),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_search_request),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
