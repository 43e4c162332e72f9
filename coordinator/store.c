/*
 * The durable state of the coordinator in SQLite (see store.h for the
 * workload, the durability choice and the invariants).
 *
 * Schema (format 2; PRAGMA application_id marks the file as ply's, PRAGMA
 * user_version holds the format):
 *   runs     one row per accepted run (id: random, see envelope.h
 *            PLY_MAX_RUN_ID; listed in submission order, never by id): the
 *            request, its owner (store.h), the plan summary, the
 *            root moves in plan order (UCI, space-separated), the task-id
 *            range, and once finished its state, summary and encoded reply;
 *            its total count is 128-bit: nodes holds the low 64 bits (as
 *            every uint64, in SQLite's signed integer by two's complement),
 *            nodes_hi the high 64 bits;
 *   jobs     one row per job: position, perft(1), cost, total multiplicity,
 *            and the multiplicity per root move as a blob of (u32 root index,
 *            u64 count) little-endian pairs;
 *   results  one row per computation of a job (role 0 first, 1 check, 2
 *            tie-break): counts, statistics and divide as little-endian u64
 *            blobs, who computed it and how.
 *   result_identity  who computed each result (the worker's identity: its
 *            CURVE key or its connection, see coordinator/internal.h), added
 *            after format 1 shipped like failures; a result without a row
 *            was stored by an older ply.
 * Statements used per result are prepared once and reused.
 *
 * Format 1 (before exact 128-bit totals) lacks runs.nodes_hi; such a file is
 * migrated in place when opened: the column is added, NULL reads as 0, which
 * is what every total of a format-1 file was (below 2^64).
 */
#include "store.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <sqlite3.h>

#include "util/error.h"
#include "util/log.h"

#define STORE_FORMAT 2
/* "ply1" as a big-endian 32-bit number: SQLite's application_id for our files. */
#define STORE_APP_ID 0x706c7931
#define MULT_BYTES   12 /* u32 root + u64 count */
#define STATS_BYTES  (8 * PLY_STATS_N)

struct ply_store {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *add_result, *add_identity;
    int in_txn; /* ply_store_begin has opened a transaction */
};

static const char SCHEMA[] =
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
    " reply BLOB, nodes_hi INTEGER);"
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
    " at INTEGER NOT NULL, PRIMARY KEY(run_id, idx, role)) WITHOUT ROWID;";

/* Failed attempts of tasks (role * njobs + job), so that a quarantine counts them across
 * restarts. Added after format 1 shipped: created when missing (an older ply ignores it). */
static const char FAILURES_TABLE[] =
    "CREATE TABLE IF NOT EXISTS failures("
    " run_id INTEGER NOT NULL, task INTEGER NOT NULL, attempt INTEGER NOT NULL,"
    " failures INTEGER NOT NULL, history TEXT NOT NULL, PRIMARY KEY(run_id, task)) WITHOUT ROWID;";

/* Whose a run is (store.h), added after format 1 shipped: a column added when missing
 * (an older ply ignores it; its runs keep "": everyone's, as they were). */
static const char OWNER_COLUMN[] = "ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''";

/* Who computed each result (the trust model: verification compares identities, not declared
 * worker ids). Added after format 1 shipped: created when missing; an older ply ignores it. */
static const char IDENTITY_TABLE[] =
    "CREATE TABLE IF NOT EXISTS result_identity("
    " run_id INTEGER NOT NULL, idx INTEGER NOT NULL, role INTEGER NOT NULL,"
    " identity TEXT NOT NULL, PRIMARY KEY(run_id, idx, role)) WITHOUT ROWID;";

/* ----------------------------------------------------------------- helpers */

static int64_t unix_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void put_stats(uint8_t *p, const ply_stats_t *s)
{
    for (int k = 0; k < PLY_STATS_N; k++) put_u64(p + 8 * k, s->v[k]);
}

static void get_stats(const uint8_t *p, ply_stats_t *s)
{
    for (int k = 0; k < PLY_STATS_N; k++) s->v[k] = get_u64(p + 8 * k);
}

/* Runs one statement without results; 0 or PLY_EDB with SQLite's reason. */
static int exec(ply_store_t *s, const char *sql, char *why, size_t why_len)
{
    char *err = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &err) == SQLITE_OK) return 0;
    ply_why(why, why_len, 0, "%s: %s", s->path, err ? err : sqlite3_errmsg(s->db));
    sqlite3_free(err);
    return PLY_EDB;
}

/* The single integer a pragma or query returns; PLY_EDB with the reason on failure. */
static int query_int(ply_store_t *s, const char *sql, int64_t *out, char *why, size_t why_len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return 0;
    }
    ply_why(why, why_len, 0, "%s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return PLY_EDB;
}

/* ------------------------------------------------------------- open, close */

/* Creates the schema in a new (empty) file. */
static int create_schema(ply_store_t *s, char *why, size_t why_len)
{
    char sql[160];
    snprintf(sql, sizeof sql,
             "PRAGMA application_id=%d; PRAGMA user_version=%d;"
             "INSERT INTO meta VALUES('format','ply-state %d');",
             STORE_APP_ID, STORE_FORMAT, STORE_FORMAT);
    if (exec(s, "BEGIN IMMEDIATE", why, why_len) < 0) return PLY_EDB;
    if (exec(s, SCHEMA, why, why_len) < 0 || exec(s, sql, why, why_len) < 0) {
        exec(s, "ROLLBACK", NULL, 0);
        return PLY_EDB;
    }
    return exec(s, "COMMIT", why, why_len);
}

/* Format 1 -> 2: the high word of run totals (see the schema above). */
static int migrate_1_to_2(ply_store_t *s, char *why, size_t why_len)
{
    char reason[256] = "";
    if (exec(s, "BEGIN IMMEDIATE", reason, sizeof reason) < 0 ||
        exec(s,
             "ALTER TABLE runs ADD COLUMN nodes_hi INTEGER; PRAGMA user_version=2;"
             " UPDATE meta SET value='ply-state 2' WHERE key='format';",
             reason, sizeof reason) < 0) {
        exec(s, "ROLLBACK", NULL, 0);
        return ply_why(why, why_len, PLY_EDB, "cannot migrate state format 1 to 2: %s",
                       reason);
    }
    if (exec(s, "COMMIT", reason, sizeof reason) < 0)
        return ply_why(why, why_len, PLY_EDB, "cannot migrate state format 1 to 2: %s",
                       reason);
    ply_info("state file %s: migrated from format 1 to 2 (exact 128-bit run totals)", s->path);
    return 0;
}

/* Decides whether the file is ours, empty (new), foreign, newer or damaged. */
static int check_identity(ply_store_t *s, char *why, size_t why_len)
{
    int64_t app = 0, version = 0, tables = 0;
    char reason[256] = "";
    if (query_int(s, "PRAGMA application_id", &app, reason, sizeof reason) < 0) {
        if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY)
            ply_why(why, why_len, 0, "%s is in use by another coordinator", s->path);
        else
            ply_why(why, why_len, 0, "%s is not a ply state file (%s)", s->path, reason);
        return PLY_EDB;
    }
    if (query_int(s, "SELECT count(*) FROM sqlite_master", &tables, reason, sizeof reason) < 0 ||
        query_int(s, "PRAGMA user_version", &version, reason, sizeof reason) < 0) {
        ply_why(why, why_len, 0, "%s: %s", s->path, reason);
        return PLY_EDB;
    }
    if (app == 0 && tables == 0) return create_schema(s, why, why_len);
    if (app != STORE_APP_ID) {
        ply_why(why, why_len, 0,
                "%s is an SQLite database of another program (application id 0x%08" PRIx64
                "), not a ply state file",
                s->path, (uint64_t)(uint32_t)app);
        return PLY_EDB;
    }
    if (version == 1 && migrate_1_to_2(s, why, why_len) < 0) return PLY_EDB;
    if (version == 1) version = STORE_FORMAT;
    if (version != STORE_FORMAT) {
        ply_why(why, why_len, 0, "%s has state format %" PRId64 "; this ply reads format %d%s",
                s->path, version, STORE_FORMAT,
                version > STORE_FORMAT ? " (written by a newer ply)" : "");
        return PLY_EDB;
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    const char *verdict = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (!verdict || strcmp(verdict, "ok") != 0) {
        ply_why(why, why_len, 0, "%s is damaged: %s", s->path,
                verdict ? verdict : sqlite3_errmsg(s->db));
        for (char *p = why; p && *p; p++)
            if (*p == '\n') *p = ' '; /* one line */
        sqlite3_finalize(st);
        return PLY_EDB;
    }
    sqlite3_finalize(st);
    return 0;
}

ply_store_t *ply_store_open(const char *path, char *why, size_t why_len)
{
    if (!path || !path[0]) {
        ply_why(why, why_len, 0, "no state file named");
        return NULL;
    }
    ply_store_t *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        ply_why(why, why_len, 0, "out of memory");
        return NULL;
    }
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        ply_why(why, why_len, 0, "cannot open state file %s: %s", path,
                s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        ply_store_close(&s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    char reason[512] = "";
    int64_t ignored;
    /* Exclusive locking: the first write below takes the file for this
     * process until it closes or dies (POSIX locks go with the process). */
    int r = exec(s, "PRAGMA locking_mode=EXCLUSIVE", reason, sizeof reason);
    if (r == 0) r = check_identity(s, reason, sizeof reason);
    if (r == 0) {
        sqlite3_stmt *st = NULL;
        const char *mode = NULL;
        if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            mode = (const char *)sqlite3_column_text(st, 0);
        if (!mode || strcmp(mode, "wal") != 0) {
            int busy = sqlite3_errcode(s->db) == SQLITE_BUSY;
            ply_why(reason, sizeof reason, 0, "%s: %s", path,
                    busy   ? "in use by another coordinator"
                    : mode ? "cannot use a write-ahead log here"
                           : sqlite3_errmsg(s->db));
            r = PLY_EDB;
        }
        sqlite3_finalize(st);
    }
    if (r == 0)
        r = exec(s, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF", reason, sizeof reason);
    /* take the lock now, so that a second coordinator fails at start, not mid-run */
    char take[1024];
    snprintf(take, sizeof take, "BEGIN IMMEDIATE; %s %s COMMIT", FAILURES_TABLE, IDENTITY_TABLE);
    if (r == 0 && exec(s, take, reason, sizeof reason) < 0) {
        if (sqlite3_errcode(s->db) == SQLITE_BUSY)
            ply_why(reason, sizeof reason, 0, "%s is in use by another coordinator", path);
        r = PLY_EDB;
    }
    if (r == 0 && query_int(s, "SELECT count(*) FROM runs", &ignored, reason, sizeof reason) < 0)
        r = PLY_EDB;
    if (r == 0 && query_int(s, "SELECT count(*) FROM pragma_table_info('runs') WHERE name='owner'",
                            &ignored, reason, sizeof reason) < 0)
        r = PLY_EDB;
    if (r == 0 && !ignored && exec(s, OWNER_COLUMN, reason, sizeof reason) < 0) r = PLY_EDB;
    if (r == 0 && sqlite3_prepare_v2(s->db,
                                     "INSERT INTO results VALUES"
                                     "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
                                     -1, &s->add_result, NULL) != SQLITE_OK) {
        ply_why(reason, sizeof reason, 0, "%s: %s", path, sqlite3_errmsg(s->db));
        r = PLY_EDB;
    }
    if (r == 0 && sqlite3_prepare_v2(s->db,
                                     "INSERT OR REPLACE INTO result_identity VALUES(?1,?2,?3,?4)",
                                     -1, &s->add_identity, NULL) != SQLITE_OK) {
        ply_why(reason, sizeof reason, 0, "%s: %s", path, sqlite3_errmsg(s->db));
        r = PLY_EDB;
    }
    if (r < 0) {
        ply_why(why, why_len, 0, "%s", reason);
        ply_store_close(&s);
        return NULL;
    }
    return s;
}

void ply_store_close(ply_store_t **sp)
{
    if (!sp || !*sp) return;
    ply_store_t *s = *sp;
    sqlite3_finalize(s->add_result);
    sqlite3_finalize(s->add_identity);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK)
        ply_warn("state file %s not closed cleanly: %s", s->path, sqlite3_errmsg(s->db));
    free(s->path);
    free(s);
    *sp = NULL;
}

const char *ply_store_path(const ply_store_t *s)
{
    return s ? s->path : NULL;
}

int ply_store_next_job_base(ply_store_t *s, uint64_t *next_job_base)
{
    int64_t job = 0;
    if (!s || query_int(s, "SELECT coalesce(max(job_base + slots * njobs),1) FROM runs", &job, NULL,
                        0) < 0)
        return PLY_EDB;
    *next_job_base = job < 1 ? 1 : (uint64_t)job;
    return 0;
}

int ply_store_has_run(ply_store_t *s, uint64_t id)
{
    char sql[96];
    int64_t n = 0;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id=%" PRId64, (int64_t)id);
    if (!s || query_int(s, sql, &n, NULL, 0) < 0) return PLY_EDB;
    return n > 0;
}

/* -------------------------------------------------------------------- runs */

static int bind_run(sqlite3_stmt *st, const ply_store_run_t *run, const ply_split_t *plan,
                    const char *root_moves)
{
    int rc = SQLITE_OK;
    rc |= sqlite3_bind_int64(st, 1, (int64_t)run->id);
    rc |= sqlite3_bind_text(st, 2, run->fen, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int(st, 3, (int)run->depth);
    rc |= sqlite3_bind_int(st, 4, run->chess960 != 0);
    rc |= sqlite3_bind_int(st, 5, run->stats != 0);
    rc |= sqlite3_bind_int(st, 6, run->want_split);
    rc |= sqlite3_bind_int(st, 7, run->verify_mode);
    rc |= sqlite3_bind_int64(st, 8, run->verify_ppm);
    rc |= sqlite3_bind_int(st, 9, (int)plan->split_depth);
    rc |= sqlite3_bind_int64(st, 10, (int64_t)plan->njobs);
    rc |= sqlite3_bind_int64(st, 11, (int64_t)plan->paths);
    rc |= sqlite3_bind_int64(st, 12, (int64_t)plan->estimate);
    rc |= sqlite3_bind_text(st, 13, root_moves, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(st, 14, (int64_t)run->job_base);
    rc |= sqlite3_bind_int64(st, 15, run->slots);
    rc |= sqlite3_bind_int64(st, 16, run->submitted_unix_ms);
    rc |= sqlite3_bind_text(st, 17, run->owner, -1, SQLITE_STATIC);
    return rc;
}

static int insert_jobs(ply_store_t *s, uint64_t run_id, const ply_split_t *plan)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO jobs VALUES(?1,?2,?3,?4,?5,?6,?7)", -1, &st, NULL) !=
        SQLITE_OK)
        return PLY_EDB;
    uint8_t *blob = malloc((size_t)PLY_ARB_MAX_MOVES * MULT_BYTES + 1);
    int r = blob ? 0 : PLY_ENOMEM;
    for (size_t i = 0; r == 0 && i < plan->njobs; i++) {
        const ply_split_job_t *j = &plan->jobs[i];
        uint32_t n = j->nmult <= PLY_ARB_MAX_MOVES ? j->nmult : PLY_ARB_MAX_MOVES;
        for (uint32_t k = 0; k < n; k++) {
            uint8_t *p = blob + (size_t)k * MULT_BYTES;
            for (int b = 0; b < 4; b++) p[b] = (uint8_t)(j->mult[k].root >> (8 * b));
            put_u64(p + 4, j->mult[k].count);
        }
        int rc = sqlite3_bind_int64(st, 1, (int64_t)run_id);
        rc |= sqlite3_bind_int64(st, 2, (int64_t)i);
        rc |= sqlite3_bind_text(st, 3, j->fen, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 4, j->perft1);
        rc |= sqlite3_bind_int64(st, 5, (int64_t)j->cost);
        rc |= sqlite3_bind_int64(st, 6, (int64_t)j->multiplicity);
        rc |= sqlite3_bind_blob(st, 7, blob, (int)(n * MULT_BYTES), SQLITE_STATIC);
        if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE) r = PLY_EDB;
        sqlite3_reset(st);
    }
    free(blob);
    sqlite3_finalize(st);
    return r;
}

int ply_store_add_run(ply_store_t *s, const ply_store_run_t *run, const ply_split_t *plan,
                      char *why, size_t why_len)
{
    if (!s || !run || !plan || s->in_txn) return PLY_EINVAL;
    char *moves = malloc((size_t)plan->nroot * 6 + 1);
    if (!moves) return PLY_ENOMEM;
    moves[0] = '\0';
    for (int i = 0; i < plan->nroot; i++) {
        if (i) strcat(moves, " ");
        strcat(moves, plan->root_uci[i]);
    }
    int r = exec(s, "BEGIN IMMEDIATE", why, why_len);
    sqlite3_stmt *st = NULL;
    if (r == 0 && (sqlite3_prepare_v2(s->db,
                                      "INSERT INTO runs(id,fen,depth,chess960,stats,want_split,"
                                      "verify_mode,verify_ppm,split_depth,njobs,paths,estimate,"
                                      "root_moves,job_base,slots,submitted_at,owner) VALUES"
                                      "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,"
                                      "?17)",
                                      -1, &st, NULL) != SQLITE_OK ||
                   bind_run(st, run, plan, moves) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE))
        r = PLY_EDB;
    sqlite3_finalize(st);
    if (r == 0) r = insert_jobs(s, run->id, plan);
    if (r == 0) r = exec(s, "COMMIT", why, why_len);
    if (r < 0) {
        if (why && why_len && !why[0])
            ply_why(why, why_len, 0, "cannot store run %" PRIu64 " in %s: %s", run->id, s->path,
                    sqlite3_errmsg(s->db));
        exec(s, "ROLLBACK", NULL, 0);
    }
    free(moves);
    return r < 0 ? PLY_EDB : 0;
}

int ply_store_begin(ply_store_t *s)
{
    if (!s || s->in_txn || exec(s, "BEGIN IMMEDIATE", NULL, 0) < 0) return PLY_EDB;
    s->in_txn = 1;
    return 0;
}

int ply_store_commit(ply_store_t *s, char *why, size_t why_len)
{
    if (!s || !s->in_txn) return 0;
    s->in_txn = 0;
    if (exec(s, "COMMIT", why, why_len) == 0) return 0;
    exec(s, "ROLLBACK", NULL, 0);
    return PLY_EDB;
}

int ply_store_add_result(ply_store_t *s, const ply_store_result_t *r, char *why, size_t why_len)
{
    if (!s || !r || !r->worker_id || r->ndivide > PLY_ARB_MAX_MOVES) return PLY_EINVAL;
    uint8_t stats[STATS_BYTES];
    uint8_t *div = NULL, *divst = NULL;
    if (r->ndivide) {
        div = malloc((size_t)r->ndivide * 8);
        divst = r->divide_stats ? malloc((size_t)r->ndivide * STATS_BYTES) : NULL;
        if (!div || (r->divide_stats && !divst)) {
            free(div);
            free(divst);
            return PLY_ENOMEM;
        }
        for (uint32_t i = 0; i < r->ndivide; i++) {
            put_u64(div + 8 * i, r->divide[i]);
            if (divst) put_stats(divst + (size_t)i * STATS_BYTES, &r->divide_stats[i]);
        }
    }
    sqlite3_stmt *st = s->add_result;
    int rc = sqlite3_bind_int64(st, 1, (int64_t)r->run_id);
    rc |= sqlite3_bind_int64(st, 2, r->job);
    rc |= sqlite3_bind_int64(st, 3, r->role);
    rc |= sqlite3_bind_int64(st, 4, r->attempt);
    rc |= sqlite3_bind_int64(st, 5, (int64_t)r->nodes);
    if (r->stats) put_stats(stats, r->stats);
    rc |= r->stats ? sqlite3_bind_blob(st, 6, stats, STATS_BYTES, SQLITE_STATIC)
                   : sqlite3_bind_null(st, 6);
    rc |= div ? sqlite3_bind_blob(st, 7, div, (int)(r->ndivide * 8), SQLITE_STATIC)
              : sqlite3_bind_null(st, 7);
    rc |= divst ? sqlite3_bind_blob(st, 8, divst, (int)(r->ndivide * STATS_BYTES), SQLITE_STATIC)
                : sqlite3_bind_null(st, 8);
    rc |= sqlite3_bind_text(st, 9, r->worker_id, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(st, 10, r->seed);
    rc |= sqlite3_bind_int(st, 11, r->arbiter != 0);
    rc |= sqlite3_bind_int(st, 12, r->no_hash != 0);
    rc |= sqlite3_bind_int64(st, 13, (int64_t)r->time_us);
    rc |= sqlite3_bind_int64(st, 14, unix_ms());
    int step = rc == SQLITE_OK ? sqlite3_step(st) : rc;
    if (step != SQLITE_DONE)
        ply_why(why, why_len, 0,
                "cannot store the result of job %" PRIu32 " of run %" PRIu64 " in %s: %s", r->job,
                r->run_id, s->path, sqlite3_errmsg(s->db));
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    free(div);
    free(divst);
    if (step == SQLITE_DONE && r->identity) {
        st = s->add_identity;
        rc = sqlite3_bind_int64(st, 1, (int64_t)r->run_id);
        rc |= sqlite3_bind_int64(st, 2, r->job);
        rc |= sqlite3_bind_int64(st, 3, r->role);
        rc |= sqlite3_bind_text(st, 4, r->identity, -1, SQLITE_STATIC);
        step = rc == SQLITE_OK ? sqlite3_step(st) : rc;
        if (step != SQLITE_DONE)
            ply_why(why, why_len, 0,
                    "cannot store who computed job %" PRIu32 " of run %" PRIu64 " in %s: %s",
                    r->job, r->run_id, s->path, sqlite3_errmsg(s->db));
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    return step == SQLITE_DONE ? 0 : PLY_EDB;
}

int ply_store_drop_result(ply_store_t *s, uint64_t run_id, uint32_t job, uint32_t role, char *why,
                          size_t why_len)
{
    if (!s) return PLY_EINVAL;
    char sql[320];
    snprintf(sql, sizeof sql,
             "DELETE FROM results WHERE run_id=%" PRId64 " AND idx=%" PRIu32 " AND role=%" PRIu32
             "; DELETE FROM result_identity WHERE run_id=%" PRId64 " AND idx=%" PRIu32
             " AND role=%" PRIu32 ";",
             (int64_t)run_id, job, role, (int64_t)run_id, job, role);
    return exec(s, sql, why, why_len);
}

int ply_store_finish_run(ply_store_t *s, const ply_store_finished_t *f, const void *reply,
                         size_t reply_len)
{
    if (!s || !f) return PLY_EINVAL;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "UPDATE runs SET state=?2, finished_at=?3, jobs_done=?4, nodes=?5,"
                                " elapsed_ms=?6, error_code=?7, error=?8, verify=?9, reply=?10,"
                                " nodes_hi=?11 WHERE id=?1",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, 1, (int64_t)f->id);
        rc |= sqlite3_bind_text(st, 2, f->state, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, unix_ms());
        rc |= sqlite3_bind_int64(st, 4, f->jobs_done);
        rc |= sqlite3_bind_int64(st, 5, (int64_t)ply_u128_lo(f->nodes));
        rc |= sqlite3_bind_int64(st, 11, (int64_t)ply_u128_hi(f->nodes));
        rc |= sqlite3_bind_int64(st, 6, (int64_t)f->elapsed_ms);
        rc |= sqlite3_bind_int(st, 7, f->code);
        rc |= sqlite3_bind_text(st, 8, f->error, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 9, f->verify, -1, SQLITE_STATIC);
        rc |= reply ? sqlite3_bind_blob(st, 10, reply, (int)reply_len, SQLITE_STATIC)
                    : sqlite3_bind_null(st, 10);
    }
    if (rc == SQLITE_OK) rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    if (rc != SQLITE_OK)
        ply_warn("state file %s: cannot record the end of run %" PRIu64 ": %s", s->path, f->id,
                 sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : PLY_EDB;
}

int ply_store_prune(ply_store_t *s, unsigned keep, unsigned *runs_pruned, char *why, size_t why_len)
{
    if (runs_pruned) *runs_pruned = 0;
    if (!s || s->in_txn) return PLY_EINVAL;
    char old[160], sql[1024];
    snprintf(old, sizeof old,
             "(SELECT id FROM runs WHERE state<>'active' ORDER BY submitted_at DESC, id DESC"
             " LIMIT -1 OFFSET %u)",
             keep);
    int64_t n = 0;
    snprintf(sql, sizeof sql, "SELECT count(DISTINCT run_id) FROM jobs WHERE run_id IN %s", old);
    if (query_int(s, sql, &n, why, why_len) < 0) return PLY_EDB;
    if (n == 0) return 0;
    snprintf(sql, sizeof sql,
             "BEGIN IMMEDIATE; DELETE FROM results WHERE run_id IN %s;"
             " DELETE FROM result_identity WHERE run_id IN %s;"
             " DELETE FROM failures WHERE run_id IN %s; DELETE FROM jobs WHERE run_id IN %s;"
             " COMMIT;",
             old, old, old, old);
    if (exec(s, sql, why, why_len) < 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return PLY_EDB;
    }
    if (runs_pruned) *runs_pruned = (unsigned)n;
    return 0;
}

/* ------------------------------------------------------------------- load */

/* Column @col as text, or "" (never NULL). */
static const char *col_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

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
    if (bytes < 0 || bytes % MULT_BYTES != 0 || bytes / MULT_BYTES > PLY_ARB_MAX_MOVES ||
        (bytes && !blob)) {
        ply_why(why, why_len, 0, "job %zu: multiplicity blob of %d bytes", i, bytes);
        return PLY_EDB;
    }
    j->fen = strdup(fen);
    j->perft1 = (uint32_t)sqlite3_column_int(st, 2);
    j->cost = (uint64_t)sqlite3_column_int64(st, 3);
    j->multiplicity = (uint64_t)sqlite3_column_int64(st, 4);
    j->nmult = (uint32_t)(bytes / MULT_BYTES);
    j->mult = j->nmult ? calloc(j->nmult, sizeof *j->mult) : NULL;
    if (!j->fen || (j->nmult && !j->mult)) return PLY_ENOMEM;
    uint64_t sum = 0;
    int over = 0; /* a damaged file's counts must not wrap to its total */
    for (uint32_t k = 0; k < j->nmult; k++) {
        const uint8_t *p = blob + (size_t)k * MULT_BYTES;
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

/* Rebuilds the plan of one stored run (columns of the SELECT in load_runs). */
static int load_plan(ply_store_t *s, sqlite3_stmt *row, const ply_store_run_t *run,
                     ply_split_t **out, char *why, size_t why_len)
{
    char reason[256];
    ply_arb_pos_t root;
    if (ply_arb_from_fen(&root, run->fen, run->chess960 ? PLY_ARB_CHESS960 : 0, reason,
                         sizeof reason) < 0) {
        ply_why(why, why_len, 0, "bad position: %s", reason);
        return PLY_EDB;
    }
    int64_t split = sqlite3_column_int64(row, 9), njobs = sqlite3_column_int64(row, 10);
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
    plan->paths = (uint64_t)sqlite3_column_int64(row, 11);
    plan->estimate = (uint64_t)sqlite3_column_int64(row, 12);
    plan->nroot = ply_arb_legal_moves(&root, plan->root_moves);
    for (int i = 0; i < plan->nroot; i++)
        ply_arb_move_to_uci(&root, plan->root_moves[i], plan->root_uci[i]);
    int map[PLY_ARB_MAX_MOVES], nstored = 0;
    int r = map_roots(plan, col_text(row, 13), map, &nstored, why, why_len);
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
        r = load_job(st, plan, i, map, nstored, run->chess960, why, why_len);
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
                           "SELECT id, fen, depth, chess960, stats, want_split, verify_mode,"
                           " verify_ppm, job_base, split_depth, njobs, paths, estimate,"
                           " root_moves, slots, submitted_at,"
                           " (SELECT count(*) FROM results WHERE run_id=runs.id), owner"
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
        run.chess960 = sqlite3_column_int(st, 3) != 0;
        run.stats = sqlite3_column_int(st, 4) != 0;
        run.want_split = sqlite3_column_int(st, 5);
        run.verify_mode = sqlite3_column_int(st, 6);
        run.verify_ppm = (uint32_t)sqlite3_column_int64(st, 7);
        run.job_base = (uint64_t)sqlite3_column_int64(st, 8);
        int64_t slots = sqlite3_column_int64(st, 14);
        run.submitted_unix_ms = sqlite3_column_int64(st, 15);
        run.results = (uint32_t)sqlite3_column_int64(st, 16);
        snprintf(run.owner, sizeof run.owner, "%s", col_text(st, 17));
        char reason[256] = "";
        if (depth < 1 || depth > PLY_SPLIT_MAX_DEPTH || slots < 1 || slots > 8 ||
            run.job_base < 1) {
            ply_why(reason, sizeof reason, 0, "depth, slots or job ids out of range");
            r = PLY_EDB;
        } else {
            run.depth = (unsigned)depth;
            run.slots = (uint32_t)slots;
        }
        ply_split_t *plan = NULL;
        if (r == 0) r = load_plan(s, st, &run, &plan, reason, sizeof reason);
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
    if (job < 0 || job > UINT32_MAX || role < 0 || role > 8 || (sb && sn != STATS_BYTES) ||
        dn % 8 != 0 || dn / 8 > PLY_ARB_MAX_MOVES || (dsb && dsn != dn / 8 * STATS_BYTES)) {
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
        if (dsb) get_stats(dsb + (size_t)i * STATS_BYTES, &divide_stats[i]);
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
                                     " r.no_hash, r.time_us, i.identity FROM results r"
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

int ply_store_job_failed(ply_store_t *s, const ply_store_failure_t *f, char *why, size_t why_len)
{
    if (!s || !f) return PLY_EINVAL;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO failures VALUES(?1,?2,?3,?4,?5)",
                                -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(st, 1, (int64_t)f->run_id);
        sqlite3_bind_int64(st, 2, f->task);
        sqlite3_bind_int64(st, 3, f->attempt);
        sqlite3_bind_int64(st, 4, f->failures);
        sqlite3_bind_text(st, 5, f->history ? f->history : "", -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    if (!ok) ply_why(why, why_len, 0, "%s: %s", s->path, sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return ok ? 0 : PLY_EDB;
}

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
    " chess960, stats, want_split, verify_mode, verify_ppm, nodes_hi, owner"
#define FINISHED_NCOLUMNS 18

static void read_finished(sqlite3_stmt *st, ply_store_finished_t *f)
{
    memset(f, 0, sizeof *f);
    f->id = (uint64_t)sqlite3_column_int64(st, 0);
    snprintf(f->state, sizeof f->state, "%s", col_text(st, 1));
    snprintf(f->fen, sizeof f->fen, "%s", col_text(st, 2));
    f->depth = (unsigned)sqlite3_column_int(st, 3);
    f->jobs_total = (uint32_t)sqlite3_column_int64(st, 4);
    f->jobs_done = (uint32_t)sqlite3_column_int64(st, 5);
    f->nodes = ply_u128_make((uint64_t)sqlite3_column_int64(st, 16),
                             (uint64_t)sqlite3_column_int64(st, 6)); /* NULL reads as 0 */
    f->elapsed_ms = (uint64_t)sqlite3_column_int64(st, 7);
    f->code = sqlite3_column_int(st, 8);
    snprintf(f->error, sizeof f->error, "%s", col_text(st, 9));
    snprintf(f->verify, sizeof f->verify, "%s", col_text(st, 10));
    f->chess960 = sqlite3_column_int(st, 11) != 0;
    f->stats = sqlite3_column_int(st, 12) != 0;
    f->want_split = sqlite3_column_int(st, 13);
    f->verify_mode = sqlite3_column_int(st, 14);
    f->verify_ppm = (uint32_t)sqlite3_column_int64(st, 15);
    snprintf(f->owner, sizeof f->owner, "%s", col_text(st, 17));
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
