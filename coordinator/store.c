/*
 * The durable state of the coordinator in SQLite (see store.h for the
 * workload, the durability choice and the invariants).
 *
 * Schema (format 6; PRAGMA application_id marks the file as ply's, PRAGMA
 * user_version holds the format):
 *   runs     one row per accepted run (id: random, see envelope.h
 *            PLY_MAX_RUN_ID; listed in submission order, never by id): what
 *            its progress shows (fen, depth: any kind's), its owner
 *            (store.h), the plan summary, the root moves in plan order (UCI,
 *            space-separated), the task-id range, and once finished its
 *            state, summary and encoded reply (the Message its client got, as
 *            proto/ply.proto of this format says it: PLY/2); its total count
 *            is 128-bit: nodes holds the low 64 bits (as every uint64, in
 *            SQLite's signed integer by two's complement), nodes_hi the high
 *            64 bits; kind is the job kind (store.h PLY_STORE_KIND_...,
 *            proto/ply.proto's JobKind numbering): what its jobs compute, what
 *            its request and its results' payload hold; request is what the
 *            run computes as its kind encodes it (kind 1: a PerftRequest, kind
 *            2: a SearchRequest), so that a new kind needs no column of its
 *            own. A run stored with a plan (perft) has its jobs rows; one
 *            without (search) is planned again from its request; planned is 0
 *            while only its request is stored (ply_store_add_request: the row is
 *            written before the run is acknowledged, its plan after; a run read
 *            back unplanned is planned again), and idempotency_key the key its
 *            client chose (unique per owner: index runs_key), or NULL;
 *   jobs     one row per job: position, perft(1), cost, total multiplicity,
 *            and the multiplicity per root move as a blob of (u32 root index,
 *            u64 count) little-endian pairs;
 *   results  one row per computation of a job (role 0 first, 1 check, 2
 *            tie-break): counts, statistics and divide as little-endian u64
 *            blobs, who computed it and how; payload is the result as its
 *            run's kind encodes it (NULL for perft, whose result is the other
 *            columns; a search result is an encoded SearchResult).
 *   result_identity  who computed each result (the worker's identity: its
 *            CURVE key or its connection, see coordinator/peers.h), added
 *            after format 1 shipped like failures; a result without a row
 *            was stored by an older ply.
 * Statements used per result are prepared once and reused.
 *
 * Format 1 (before exact 128-bit totals) lacks runs.nodes_hi; such a file is
 * migrated in place when opened: the column is added, NULL reads as 0, which
 * is what every total of a format-1 file was (below 2^64).
 * Format 2 (before job kinds) lacks runs.kind and results.payload; such a
 * file (or a format-1 file, after the step above) is migrated in place: the
 * columns are added, every run it holds reads as kind 1 (perft, the only kind
 * there was) and every result has no payload.
 * Format 3 (before search runs) lacks runs.request; the column is added (NULL:
 * every run such a file holds is perft, whose request is the other columns).
 * Format 4 (before PLY/2) stores a perft run's request in columns of its own
 * (chess960, stats, want_split, beside fen and depth) and the answers in
 * PLY/1's shape; each run's row goes to the upgrade the coordinator passed
 * (ply_store_open_upgrading: its registry of kinds, and so perft/upgrade.c),
 * which encodes a perft run's request from those columns and rewrites the
 * RunAsked of its stored answer as PLY/2 says it (RunAsked.perft); then the
 * three columns go.
 * Format 5 (before requests were stored ahead of their plans) lacks
 * runs.planned and runs.idempotency_key; the columns are added (every run
 * such a file holds was stored with its plan: planned 1, no key). The step
 * needs no kind, so ply_store_open takes a format-5 file as the coordinator does.
 * Each step is one transaction and is logged; an older ply refuses a newer
 * format ("written by a newer ply"), it does not misread it.
 *
 * This file: the schema, opening (with the checks and the migration), and
 * every write; store_read.c reads runs, results, failures and finished runs
 * back (store_internal.h is what the two share).
 */
#include "store.h"
#include "store_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <sqlite3.h>

#include "util/error.h"
#include "util/log.h"

#define STORE_FORMAT 6
/* "ply1" as a big-endian 32-bit number: SQLite's application_id for our files. */
#define STORE_APP_ID 0x706c7931

static const char SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, fen TEXT NOT NULL, depth INTEGER NOT NULL,"
    " verify_mode INTEGER NOT NULL, verify_ppm INTEGER NOT NULL,"
    " split_depth INTEGER NOT NULL, njobs INTEGER NOT NULL, paths INTEGER NOT NULL,"
    " estimate INTEGER NOT NULL, root_moves TEXT NOT NULL,"
    " job_base INTEGER NOT NULL, slots INTEGER NOT NULL, submitted_at INTEGER NOT NULL,"
    " state TEXT NOT NULL DEFAULT 'active', finished_at INTEGER, jobs_done INTEGER,"
    " nodes INTEGER, elapsed_ms INTEGER, error_code INTEGER, error TEXT, verify TEXT,"
    " reply BLOB, nodes_hi INTEGER, kind INTEGER NOT NULL DEFAULT 1, request BLOB,"
    " planned INTEGER NOT NULL DEFAULT 1, idempotency_key BLOB);"
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
    " at INTEGER NOT NULL, payload BLOB, PRIMARY KEY(run_id, idx, role)) WITHOUT ROWID;";

/* Failed attempts of tasks (role * njobs + job), so that a quarantine counts them across
 * restarts. Added after format 1 shipped: created when missing (an older ply ignores it). */
static const char FAILURES_TABLE[] =
    "CREATE TABLE IF NOT EXISTS failures("
    " run_id INTEGER NOT NULL, task INTEGER NOT NULL, attempt INTEGER NOT NULL,"
    " failures INTEGER NOT NULL, history TEXT NOT NULL, PRIMARY KEY(run_id, task)) WITHOUT ROWID;";

/* Whose a run is (store.h), added after format 1 shipped: a column added when missing
 * (an older ply ignores it; its runs keep "": everyone's, as they were). */
static const char OWNER_COLUMN[] = "ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''";

/* At most one run per owner and idempotency key (format 6): a re-sent Submit is that run, never
 * a second one. Created when missing, after the owner column (which a format-1 file lacks
 * until it is opened). */
static const char KEY_INDEX[] = "CREATE UNIQUE INDEX IF NOT EXISTS runs_key ON runs(owner,"
                                " idempotency_key) WHERE idempotency_key IS NOT NULL";

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

static void put_stats(uint8_t *p, const ply_stats_t *s)
{
    for (int k = 0; k < PLY_STATS_N; k++) put_u64(p + 8 * k, s->v[k]);
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

/* Whether @table has a column @column: 1, 0 or PLY_EDB with the reason. */
static int has_column(ply_store_t *s, const char *table, const char *column, char *why,
                      size_t why_len)
{
    char sql[160];
    int64_t n = 0;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name='%s'", table,
             column);
    if (query_int(s, sql, &n, why, why_len) < 0) return PLY_EDB;
    return n > 0;
}

/* A column a format step adds: to @table, named @name, declared @decl. */
typedef struct added_column {
    const char *table, *name, *decl;
} added_column_t;

/*
 * Format @from -> @from + 1 by adding @n columns (see the schema above), in one transaction,
 * logged with @what. A column already there is kept (a file that a test or a hand made from a
 * newer one), so the step only adds what is missing.
 */
static int migrate_columns(ply_store_t *s, int from, const added_column_t *cols, size_t n,
                           const char *what, char *why, size_t why_len)
{
    char reason[256] = "", sql[256];
    int r = exec(s, "BEGIN IMMEDIATE", reason, sizeof reason);
    for (size_t i = 0; r == 0 && i < n; i++) {
        int have = has_column(s, cols[i].table, cols[i].name, reason, sizeof reason);
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", cols[i].table, cols[i].name,
                 cols[i].decl);
        r = have < 0 ? PLY_EDB : have ? 0 : exec(s, sql, reason, sizeof reason);
    }
    snprintf(sql, sizeof sql,
             "PRAGMA user_version=%d; UPDATE meta SET value='ply-state %d' WHERE key='format';",
             from + 1, from + 1);
    if (r == 0) r = exec(s, sql, reason, sizeof reason);
    if (r == 0) r = exec(s, "COMMIT", reason, sizeof reason);
    if (r < 0) {
        exec(s, "ROLLBACK", NULL, 0);
        return ply_why(why, why_len, PLY_EDB, "cannot migrate state format %d to %d: %s", from,
                       from + 1, reason);
    }
    ply_info("state file %s: migrated from format %d to %d (%s)", s->path, from, from + 1, what);
    return 0;
}

/* Format 2 -> 3: job kinds. */
static int migrate_2_to_3(ply_store_t *s, char *why, size_t why_len)
{
    static const added_column_t cols[] = {{"runs", "kind", "INTEGER NOT NULL DEFAULT 1"},
                                          {"results", "payload", "BLOB"}};
    return migrate_columns(s, 2, cols, 2, "job kinds; its runs are perft runs", why, why_len);
}

/* Format 3 -> 4: a run's request. */
static int migrate_3_to_4(ply_store_t *s, char *why, size_t why_len)
{
    static const added_column_t cols[] = {{"runs", "request", "BLOB"}};
    return migrate_columns(s, 3, cols, 1, "run requests; its runs are perft runs", why, why_len);
}

/* Format 5 -> 6: a run's request stored before its plan, and its idempotency key. */
static int migrate_5_to_6(ply_store_t *s, char *why, size_t why_len)
{
    static const added_column_t cols[] = {{"runs", "planned", "INTEGER NOT NULL DEFAULT 1"},
                                          {"runs", "idempotency_key", "BLOB"}};
    return migrate_columns(s, 5, cols, 2,
                           "requests stored before their plans, idempotency keys;"
                           " its runs are planned and have no key",
                           why, why_len);
}

/*
 * Format 4 -> 5 (PLY/2): every run's row given to s->upgrade (its kind's: the request of a run
 * whose kind kept it in columns, encoded, and its stored answer's RunAsked rewritten), the
 * columns dropped; one transaction. Without an upgrade a file with the columns is refused and
 * left as it was, never stripped of what its runs asked. A file without the columns (one a
 * test or a hand made from a newer file) keeps its requests.
 */
static int migrate_4_to_5(ply_store_t *s, char *why, size_t why_len)
{
    char reason[256] = "";
    sqlite3_stmt *sel = NULL, *upd = NULL;
    int r = exec(s, "BEGIN IMMEDIATE", reason, sizeof reason);
    int columns = r == 0 ? has_column(s, "runs", "chess960", reason, sizeof reason) : 0;
    if (columns < 0) r = PLY_EDB;
    if (r == 0 && columns && !s->upgrade) {
        /* dropping the columns without the kinds' upgrade would lose what the runs asked */
        ply_why(reason, sizeof reason, 0,
                "its runs keep their requests in columns that only the coordinator's kinds can "
                "encode (open it with the coordinator); the file is left as it was");
        r = PLY_EDB;
    }
    if (r == 0 && columns &&
        (sqlite3_prepare_v2(s->db,
                            "SELECT id, kind, fen, depth, chess960, stats, want_split, request,"
                            " reply FROM runs",
                            -1, &sel, NULL) != SQLITE_OK ||
         sqlite3_prepare_v2(s->db,
                            "UPDATE runs SET request=coalesce(?2, request),"
                            " reply=coalesce(?3, reply) WHERE id=?1",
                            -1, &upd, NULL) != SQLITE_OK)) {
        ply_why(reason, sizeof reason, 0, "%s", sqlite3_errmsg(s->db));
        r = PLY_EDB;
    }
    unsigned runs = 0, replies = 0;
    while (r == 0 && sel && sqlite3_step(sel) == SQLITE_ROW) {
        const char *fen = (const char *)sqlite3_column_text(sel, 2);
        ply_store_old_run_t row = {
            .id = (uint64_t)sqlite3_column_int64(sel, 0),
            .kind = sqlite3_column_int(sel, 1),
            .fen = fen ? fen : "",
            .depth = sqlite3_column_int(sel, 3),
            .chess960 = sqlite3_column_int(sel, 4),
            .stats = sqlite3_column_int(sel, 5),
            .want_split = sqlite3_column_int(sel, 6),
            .request = sqlite3_column_blob(sel, 7),
            .request_len = (size_t)sqlite3_column_bytes(sel, 7),
            .reply = sqlite3_column_blob(sel, 8),
            .reply_len = (size_t)sqlite3_column_bytes(sel, 8),
        };
        uint8_t *req = NULL, *reply = NULL;
        size_t n = 0, reply_len = 0;
        if (s->upgrade(&row, &req, &n, &reply, &reply_len) < 0) {
            ply_why(reason, sizeof reason, 0, "out of memory");
            r = PLY_ENOMEM;
        } else if (req || reply) {
            int rc = sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
            rc |= req ? sqlite3_bind_blob(upd, 2, req, (int)n, SQLITE_STATIC)
                      : sqlite3_bind_null(upd, 2);
            rc |= reply ? sqlite3_bind_blob(upd, 3, reply, (int)reply_len, SQLITE_STATIC)
                        : sqlite3_bind_null(upd, 3);
            if (rc != SQLITE_OK || sqlite3_step(upd) != SQLITE_DONE) {
                ply_why(reason, sizeof reason, 0, "%s", sqlite3_errmsg(s->db));
                r = PLY_EDB;
            }
            sqlite3_reset(upd);
            runs += req != NULL, replies += reply != NULL;
        }
        free(req);
        free(reply);
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    if (r == 0 && columns)
        r = exec(s,
                 "ALTER TABLE runs DROP COLUMN chess960; ALTER TABLE runs DROP COLUMN stats;"
                 " ALTER TABLE runs DROP COLUMN want_split;",
                 reason, sizeof reason);
    if (r == 0)
        r = exec(s,
                 "PRAGMA user_version=5; UPDATE meta SET value='ply-state 5' WHERE key='format';",
                 reason, sizeof reason);
    if (r == 0) r = exec(s, "COMMIT", reason, sizeof reason);
    if (r < 0) {
        exec(s, "ROLLBACK", NULL, 0);
        return ply_why(why, why_len, PLY_EDB, "cannot migrate state format 4 to 5: %s", reason);
    }
    ply_info("state file %s: migrated from format 4 to 5 (PLY/2: every run's request encoded, "
             "%u runs by their kinds, %u of their answers)",
             s->path, runs, replies);
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
    /* one step at a time, each in its own transaction: 1 -> 2 -> 3 -> 4 -> 5 -> 6 */
    if (version == 1 && migrate_1_to_2(s, why, why_len) < 0) return PLY_EDB;
    if (version == 1) version = 2;
    if (version == 2 && migrate_2_to_3(s, why, why_len) < 0) return PLY_EDB;
    if (version == 2) version = 3;
    if (version == 3 && migrate_3_to_4(s, why, why_len) < 0) return PLY_EDB;
    if (version == 3) version = 4;
    if (version == 4 && migrate_4_to_5(s, why, why_len) < 0) return PLY_EDB;
    if (version == 4) version = 5;
    if (version == 5 && migrate_5_to_6(s, why, why_len) < 0) return PLY_EDB;
    if (version == 5) version = 6;
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
    return ply_store_open_upgrading(path, NULL, why, why_len);
}

ply_store_t *ply_store_open_upgrading(const char *path, ply_store_upgrade_fn upgrade, char *why,
                                      size_t why_len)
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
    s->upgrade = upgrade;
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
    if (r == 0 && exec(s, KEY_INDEX, reason, sizeof reason) < 0) r = PLY_EDB;
    if (r == 0 && sqlite3_prepare_v2(s->db,
                                     "INSERT INTO results(run_id,idx,role,attempt,nodes,stats,"
                                     "divide,divide_stats,worker,seed,arbiter,no_hash,time_us,"
                                     "at,payload) VALUES"
                                     "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
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
                    const char *root_moves, int planned)
{
    int rc = SQLITE_OK;
    rc |= sqlite3_bind_int64(st, 1, (int64_t)run->id);
    rc |= sqlite3_bind_text(st, 2, run->fen, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int(st, 3, (int)run->depth);
    rc |= sqlite3_bind_int(st, 4, run->verify_mode);
    rc |= sqlite3_bind_int64(st, 5, run->verify_ppm);
    rc |= sqlite3_bind_int(st, 6, plan ? (int)plan->split_depth : 0);
    rc |= sqlite3_bind_int64(st, 7, (int64_t)(plan ? plan->njobs : planned ? run->njobs : 0));
    rc |= sqlite3_bind_int64(st, 8, plan ? (int64_t)plan->paths : 0);
    rc |= sqlite3_bind_int64(st, 9, plan ? (int64_t)plan->estimate : 0);
    rc |= sqlite3_bind_text(st, 10, root_moves, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(st, 11, planned ? (int64_t)run->job_base : 0);
    rc |= sqlite3_bind_int64(st, 12, planned ? run->slots : 0);
    rc |= sqlite3_bind_int64(st, 13, run->submitted_unix_ms);
    rc |= sqlite3_bind_text(st, 14, run->owner, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int(st, 15, run->kind ? run->kind : PLY_STORE_KIND_PERFT);
    if (!run->request_len) /* an empty request is still one: a blob, not NULL */
        rc |= sqlite3_bind_zeroblob(st, 16, 0);
    else
        rc |= sqlite3_bind_blob(st, 16, run->request, (int)run->request_len, SQLITE_STATIC);
    rc |= sqlite3_bind_int(st, 17, planned != 0);
    rc |= run->key_len ? sqlite3_bind_blob(st, 18, run->key, (int)run->key_len, SQLITE_STATIC)
                       : sqlite3_bind_null(st, 18);
    return rc;
}

/* The plan's root moves in plan order, UCI, space-separated (malloc'd; "" without a plan). */
static char *root_moves_of(const ply_split_t *plan)
{
    char *moves = malloc((size_t)(plan ? plan->nroot : 0) * 6 + 1);
    if (!moves) return NULL;
    moves[0] = '\0';
    for (int i = 0; plan && i < plan->nroot; i++) {
        if (i) strcat(moves, " ");
        strcat(moves, plan->root_uci[i]);
    }
    return moves;
}

/* What ply_store_add_run and ply_store_add_request refuse: PLY_EINVAL (reason in @why), or 0. */
static int check_run(const ply_store_t *s, const ply_store_run_t *run, char *why, size_t why_len)
{
    if (!s || !run || s->in_txn || run->request_len > INT_MAX) return PLY_EINVAL;
    if (!run->request)
        return ply_why(why, why_len, PLY_EINVAL, "cannot store run %" PRIu64 ": no request",
                       run->id);
    if (run->kind < 0 || run->kind > PLY_STORE_KIND_MAX)
        return ply_why(why, why_len, PLY_EINVAL,
                       "cannot store run %" PRIu64 ": job kind %d is not one this ply knows",
                       run->id, run->kind);
    if (run->key_len &&
        (!run->key || run->key_len < PLY_STORE_KEY_MIN || run->key_len > PLY_STORE_KEY_MAX))
        return ply_why(why, why_len, PLY_EINVAL,
                       "cannot store run %" PRIu64 ": an idempotency key of %zu bytes (%d..%d)",
                       run->id, run->key_len, PLY_STORE_KEY_MIN, PLY_STORE_KEY_MAX);
    return 0;
}

/* Ends the transaction of a write: COMMIT when @r is 0, else ROLLBACK with the reason in @why
 * (SQLite's when none was given). 0 or PLY_EDB. */
static int end_write(ply_store_t *s, int r, uint64_t id, char *why, size_t why_len)
{
    if (r == 0) r = exec(s, "COMMIT", why, why_len);
    if (r < 0) {
        if (why && why_len && !why[0])
            ply_why(why, why_len, 0, "cannot store run %" PRIu64 " in %s: %s", id, s->path,
                    sqlite3_errmsg(s->db));
        exec(s, "ROLLBACK", NULL, 0);
    }
    return r < 0 ? PLY_EDB : 0;
}

/* Inserts @run's row (@planned: with @plan's summary and task ids; else its request alone). */
static int insert_run(ply_store_t *s, const ply_store_run_t *run, const ply_split_t *plan,
                      const char *moves, int planned)
{
    sqlite3_stmt *st = NULL;
    int r = 0;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO runs(id,fen,depth,verify_mode,verify_ppm,"
                           "split_depth,njobs,paths,estimate,root_moves,job_base,"
                           "slots,submitted_at,owner,kind,request,planned,idempotency_key) VALUES"
                           "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
                           -1, &st, NULL) != SQLITE_OK ||
        bind_run(st, run, plan, moves, planned) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
        r = PLY_EDB;
    sqlite3_finalize(st);
    return r;
}

static int insert_jobs(ply_store_t *s, uint64_t run_id, const ply_split_t *plan)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO jobs VALUES(?1,?2,?3,?4,?5,?6,?7)", -1, &st, NULL) !=
        SQLITE_OK)
        return PLY_EDB;
    uint8_t *blob = malloc((size_t)PLY_ARB_MAX_MOVES * PLY__MULT_BYTES + 1);
    int r = blob ? 0 : PLY_ENOMEM;
    for (size_t i = 0; r == 0 && i < plan->njobs; i++) {
        const ply_split_job_t *j = &plan->jobs[i];
        uint32_t n = j->nmult <= PLY_ARB_MAX_MOVES ? j->nmult : PLY_ARB_MAX_MOVES;
        for (uint32_t k = 0; k < n; k++) {
            uint8_t *p = blob + (size_t)k * PLY__MULT_BYTES;
            for (int b = 0; b < 4; b++) p[b] = (uint8_t)(j->mult[k].root >> (8 * b));
            put_u64(p + 4, j->mult[k].count);
        }
        int rc = sqlite3_bind_int64(st, 1, (int64_t)run_id);
        rc |= sqlite3_bind_int64(st, 2, (int64_t)i);
        rc |= sqlite3_bind_text(st, 3, j->fen, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 4, j->perft1);
        rc |= sqlite3_bind_int64(st, 5, (int64_t)j->cost);
        rc |= sqlite3_bind_int64(st, 6, (int64_t)j->multiplicity);
        rc |= sqlite3_bind_blob(st, 7, blob, (int)(n * PLY__MULT_BYTES), SQLITE_STATIC);
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
    int r = check_run(s, run, why, why_len);
    if (r < 0) return r;
    char *moves = root_moves_of(plan);
    if (!moves) return PLY_ENOMEM;
    r = exec(s, "BEGIN IMMEDIATE", why, why_len);
    if (r == 0) r = insert_run(s, run, plan, moves, 1);
    if (r == 0 && plan) r = insert_jobs(s, run->id, plan);
    free(moves);
    return end_write(s, r, run->id, why, why_len);
}

int ply_store_add_request(ply_store_t *s, const ply_store_run_t *run, char *why, size_t why_len)
{
    int r = check_run(s, run, why, why_len);
    if (r < 0) return r;
    r = exec(s, "BEGIN IMMEDIATE", why, why_len);
    if (r == 0) r = insert_run(s, run, NULL, "", 0);
    return end_write(s, r, run->id, why, why_len);
}

int ply_store_add_plan(ply_store_t *s, const ply_store_run_t *run, const ply_split_t *plan,
                       char *why, size_t why_len)
{
    if (!s || !run || s->in_txn) return PLY_EINVAL;
    char *moves = root_moves_of(plan);
    if (!moves) return PLY_ENOMEM;
    sqlite3_stmt *st = NULL;
    int r = exec(s, "BEGIN IMMEDIATE", why, why_len);
    if (r == 0 &&
        sqlite3_prepare_v2(s->db,
                           "UPDATE runs SET split_depth=?2, njobs=?3, paths=?4, estimate=?5,"
                           " root_moves=?6, job_base=?7, slots=?8, planned=1"
                           " WHERE id=?1 AND planned=0 AND state='active'",
                           -1, &st, NULL) != SQLITE_OK)
        r = PLY_EDB;
    if (r == 0) {
        int rc = sqlite3_bind_int64(st, 1, (int64_t)run->id);
        rc |= sqlite3_bind_int(st, 2, plan ? (int)plan->split_depth : 0);
        rc |= sqlite3_bind_int64(st, 3, (int64_t)(plan ? plan->njobs : run->njobs));
        rc |= sqlite3_bind_int64(st, 4, plan ? (int64_t)plan->paths : 0);
        rc |= sqlite3_bind_int64(st, 5, plan ? (int64_t)plan->estimate : 0);
        rc |= sqlite3_bind_text(st, 6, moves, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 7, (int64_t)run->job_base);
        rc |= sqlite3_bind_int64(st, 8, run->slots);
        if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
            r = PLY_EDB;
        else if (sqlite3_changes(s->db) != 1)
            r = ply_why(why, why_len, PLY_EDB,
                        "cannot store the plan of run %" PRIu64 " in %s: no unplanned request of"
                        " it is stored",
                        run->id, s->path);
    }
    sqlite3_finalize(st);
    if (r == 0 && plan) r = insert_jobs(s, run->id, plan);
    free(moves);
    return end_write(s, r, run->id, why, why_len);
}

int ply_store_find_key(ply_store_t *s, const char *owner, const uint8_t *key, size_t key_len,
                       uint64_t *id)
{
    if (!s || !owner || !key || !key_len || key_len > INT_MAX || !id) return PLY_EINVAL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM runs WHERE owner=?1 AND idempotency_key=?2", -1,
                           &st, NULL) != SQLITE_OK)
        return PLY_EDB;
    int rc = sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_blob(st, 2, key, (int)key_len, SQLITE_STATIC);
    int step = rc == SQLITE_OK ? sqlite3_step(st) : SQLITE_ERROR;
    if (step == SQLITE_ROW) *id = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : PLY_EDB;
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
    if (!s || !r || !r->worker_id || r->ndivide > PLY_ARB_MAX_MOVES ||
        (r->payload_len && !r->payload) || r->payload_len > INT_MAX)
        return PLY_EINVAL;
    uint8_t stats[PLY__STATS_BYTES];
    uint8_t *div = NULL, *divst = NULL;
    if (r->ndivide) {
        div = malloc((size_t)r->ndivide * 8);
        divst = r->divide_stats ? malloc((size_t)r->ndivide * PLY__STATS_BYTES) : NULL;
        if (!div || (r->divide_stats && !divst)) {
            free(div);
            free(divst);
            return PLY_ENOMEM;
        }
        for (uint32_t i = 0; i < r->ndivide; i++) {
            put_u64(div + 8 * i, r->divide[i]);
            if (divst) put_stats(divst + (size_t)i * PLY__STATS_BYTES, &r->divide_stats[i]);
        }
    }
    sqlite3_stmt *st = s->add_result;
    int rc = sqlite3_bind_int64(st, 1, (int64_t)r->run_id);
    rc |= sqlite3_bind_int64(st, 2, r->job);
    rc |= sqlite3_bind_int64(st, 3, r->role);
    rc |= sqlite3_bind_int64(st, 4, r->attempt);
    rc |= sqlite3_bind_int64(st, 5, (int64_t)r->nodes);
    if (r->stats) put_stats(stats, r->stats);
    rc |= r->stats ? sqlite3_bind_blob(st, 6, stats, PLY__STATS_BYTES, SQLITE_STATIC)
                   : sqlite3_bind_null(st, 6);
    rc |= div ? sqlite3_bind_blob(st, 7, div, (int)(r->ndivide * 8), SQLITE_STATIC)
              : sqlite3_bind_null(st, 7);
    rc |= divst
              ? sqlite3_bind_blob(st, 8, divst, (int)(r->ndivide * PLY__STATS_BYTES), SQLITE_STATIC)
              : sqlite3_bind_null(st, 8);
    rc |= sqlite3_bind_text(st, 9, r->worker_id, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(st, 10, r->seed);
    rc |= sqlite3_bind_int(st, 11, r->arbiter != 0);
    rc |= sqlite3_bind_int(st, 12, r->no_hash != 0);
    rc |= sqlite3_bind_int64(st, 13, (int64_t)r->time_us);
    rc |= sqlite3_bind_int64(st, 14, unix_ms());
    /* a non-NULL payload of 0 bytes stays an empty blob, not NULL (sqlite3_bind_blob) */
    rc |= r->payload ? sqlite3_bind_blob(st, 15, r->payload, (int)r->payload_len, SQLITE_STATIC)
                     : sqlite3_bind_null(st, 15);
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
