/*
 * The coordinator's durable state (DESIGN.md, Durable state): one SQLite
 * file in write-ahead-log mode holding every accepted run: its request (what
 * it asks, its owner and idempotency key), stored before the run is
 * acknowledged, then its plan (every job: position, multiplicities per root
 * move, perft(1), cost), every
 * computation a worker or the rule engine returned for a job, the failed
 * attempts of jobs (so that quarantine counts across restarts), and the final
 * answer of every finished run; the per-job rows of old finished runs are
 * pruned (ply_store_prune).
 *
 * Workload: two transactions per accepted run (its request, one row, before
 * Accepted; then its plan: 72,078 jobs for a split at ply 4 of the start
 * position, about 0.1 s, once planned), one per job result
 * (seconds to minutes apart per worker), one per finished run; a full read
 * when the coordinator starts. The coordinator calls everything from its
 * event-loop thread; the object is not thread-safe.
 *
 * Durability: synchronous=FULL. A commit returns after the write-ahead log
 * reached the disk, so an Accepted sent after ply_store_add_request and a
 * result made known after its commit survive a SIGKILL and a power loss alike
 * (a run whose plan was not stored yet is planned again from its request).
 * NORMAL would survive SIGKILL but could lose the last commits on power loss:
 * an accepted run would vanish, which the protocol promises never happens.
 * A commit costs about 0.5 ms on the development machine (ext4 on a virtual
 * disk); results that arrive together are grouped into one transaction
 * (ply_store_begin / ply_store_commit) so that many small jobs do not pay it
 * one by one.
 *
 * Invariants of the file: a planned run's job rows are exactly 0..njobs-1, an
 * unplanned one has none; an owner's idempotency key names at most one run; a result
 * row names an existing job and one of its computation roles; the file is
 * opened by one coordinator at a time (exclusive locking: a second one gets a
 * clear error instead of a shared, corrupted history). Node counts are
 * exact: one job's are uint64 stored in SQLite's signed 64-bit integers (two's
 * complement round trip), a run's total is 128-bit in two such columns; blobs are little-endian and
 * checked for size and range when read, so a damaged or foreign file gives an error, never a crash.
 */
#ifndef PLY_COORDINATOR_STORE_H
#define PLY_COORDINATOR_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/arbiter.h"
#include "perft/split.h"
#include "util/stats.h"

typedef struct ply_store ply_store_t;

/* Job kinds as the state file numbers them: Ply__JobKind's numbering in proto/ply.proto
 * (client_msgs.c asserts that they agree). A kind owns what its request and its results'
 * payload hold. Kind 1, perft: the request an encoded Ply__PerftRequest (normalised, as
 * RunAsked.perft says it), the plan the jobs rows, a result the counting columns (no
 * payload). Kind 2, search: the request an encoded Ply__SearchRequest, a result's payload an
 * encoded Ply__SearchResult. */
#define PLY_STORE_KIND_PERFT  1
#define PLY_STORE_KIND_SEARCH 2
/* The highest kind number stored and read: any positive one, so that a kind of the coordinator's
 * registry needs nothing of the store (which kinds a coordinator runs is its registry's
 * business: restore.c refuses a run of another by name). */
#define PLY_STORE_KIND_MAX INT32_MAX

/* An idempotency key's size, bytes (Submit.idempotency_key, proto/ply.proto). */
#define PLY_STORE_KEY_MIN 16
#define PLY_STORE_KEY_MAX 64

/** What a run is, as accepted: enough to plan, check and answer it again. */
typedef struct ply_store_run {
    uint64_t id; /* random, 1..2^53-1 (client_msgs.c): a positive SQLite INTEGER */
    /* what the run's progress shows (RunProgress.fen and depth), any kind: the position,
     * normalised by the rule engine, and the depth (0: none); "" and 0 for a kind without.
     * What the run computes is its request, below */
    char fen[PLY_ARB_FEN_MAX];
    unsigned depth;
    int verify_mode;     /* a Ply__VerifyMode */
    uint32_t verify_ppm; /* parts per million for VERIFY_MODE_SAMPLE */
    uint64_t job_base;   /* task id of job 0, computation 0 */
    uint32_t slots;      /* task ids per job: job_base + k * njobs + job, k < slots */
    int64_t submitted_unix_ms;
    uint32_t results; /* ply_store_load: result rows stored for the run */
    /* whose it is: "curve:<public key>" or "token:<SHA-1 of the owner token>" (never the
     * secret itself), "conn:..."; "" for a run stored before runs had owners */
    char owner[48];
    /* a PLY_STORE_KIND_... (1 for a run stored before runs had kinds); ply_store_add_run stores
     * 0 (unspecified, what a zeroed struct says) as 1, perft */
    int kind;
    /* the kind's request as it encodes it (PLY_STORE_KIND_...), request_len bytes (may be
     * 0; then request is not NULL): every run has one. When read back, owned by the store
     * and valid only during the ply_store_run_fn call */
    const uint8_t *request;
    size_t request_len;
    /* jobs of a run without a stored plan (kinds other than perft): what ply_store_add_run
     * stores and ply_store_load reads back; with a plan: the plan's, not read */
    uint32_t njobs;
    /* ply_store_load: 1 when its plan (or its njobs) is stored, 0 when only its request is
     * (ply_store_add_request: planned again from it, then ply_store_add_plan); job_base,
     * slots and njobs are then 0 */
    int planned;
    /* the client's idempotency key (Submit.idempotency_key, PLY_STORE_KEY_MIN..MAX bytes), or
     * NULL and key_len 0: none. Read back: owned by the store, as request is */
    const uint8_t *key;
    size_t key_len;
} ply_store_run_t;

/* Largest depth a stored run of a kind other than perft may have (a search's limit). */
#define PLY_STORE_MAX_KIND_DEPTH 1000

/** One computation of a job: by a worker, or by the rule engine. */
typedef struct ply_store_result {
    uint64_t run_id;
    uint32_t job;  /* index in the plan */
    uint32_t role; /* 0 first computation, 1 check, 2 tie-break (< slots of the run) */
    uint32_t attempt;
    uint64_t nodes;
    const ply_stats_t *stats;        /* NULL unless the run counts statistics */
    uint32_t ndivide;                /* split-0 runs: entries per root move in plan order; else 0 */
    const uint64_t *divide;          /* ndivide counts */
    const ply_stats_t *divide_stats; /* ndivide statistics, or NULL */
    const char *worker_id;           /* "arbiter" for the rule engine */
    uint32_t seed;                   /* the worker's Zobrist seed */
    int arbiter, no_hash;
    uint64_t time_us;
    const char *identity; /* who computed it (its CURVE key or connection); NULL: not known (a
                             result an older ply stored) */
    /* the result as its run's kind encodes it: NULL (and payload_len 0) for perft, whose result
     * is the fields above; payload_len bytes otherwise (may be 0, then payload is not NULL).
     * Copied when stored; when read back, owned by the store and valid only during the
     * ply_store_result_fn call, as worker_id and the divide are */
    const uint8_t *payload;
    size_t payload_len;
} ply_store_result_t;

/** The longest request a finished run's summary keeps (ply_store_finished_t.request), bytes. */
#define PLY_STORE_FINISHED_REQUEST_MAX 512

/** A finished run, as listed by ply_store_finished and ply_store_recent. */
typedef struct ply_store_finished {
    uint64_t id;
    char state[16]; /* "done", "failed", "canceled" */
    char fen[PLY_ARB_FEN_MAX];
    unsigned depth;
    uint32_t jobs_total, jobs_done;
    ply_u128_t nodes; /* the run's total, exact */
    uint64_t elapsed_ms;
    int code;        /* the PLY_E code of a failed run, else 0 */
    char error[512]; /* why it failed, or "" */
    char verify[32]; /* "none", "sample=P", "all" */
    /* what it computed (ply_store_finished and ply_store_recent fill them; finish_run
     * leaves them as ply_store_add_run stored them): its kind, its verification, and its
     * request as its kind encodes it (ply_store_run_t.request), copied when it fits in
     * PLY_STORE_FINISHED_REQUEST_MAX bytes (has_request 0 when it does not) */
    int verify_mode;
    uint32_t verify_ppm;
    char owner[48]; /* as ply_store_run_t.owner */
    int kind;       /* as ply_store_run_t.kind */
    int has_request;
    size_t request_len;
    uint8_t request[PLY_STORE_FINISHED_REQUEST_MAX];
} ply_store_finished_t;

/**
 * A run's row of a format-4 file (before PLY/2), as format 5 migrates it (ply_store_upgrade_fn):
 * its kind, the columns that said what a run of kind 1 asked (dropped by the migration), and
 * its stored answer. Strings and bytes are the store's, valid during the call.
 */
typedef struct ply_store_old_run {
    uint64_t id;
    int kind;        /* as ply_store_run_t.kind */
    const char *fen; /* "" when NULL */
    int depth, chess960, stats, want_split;
    const uint8_t *request; /* its request column (NULL: none), request_len bytes */
    size_t request_len;
    const uint8_t *reply; /* the Message its client got (NULL: none), reply_len bytes */
    size_t reply_len;
} ply_store_old_run_t;

/**
 * ply_store_upgrade_fn - what format 5 keeps of the format-4 row @row, as its kind says: its
 * request encoded into *@request (malloc'd, *@request_len bytes; NULL: the row keeps its
 * request column) and its answer rewritten into *@reply (malloc'd, *@reply_len bytes; NULL:
 * kept as it is). Both start NULL; the store frees them. 0, or PLY_ENOMEM.
 */
typedef int (*ply_store_upgrade_fn)(const ply_store_old_run_t *row, uint8_t **request,
                                    size_t *request_len, uint8_t **reply, size_t *reply_len);

/**
 * ply_store_open_upgrading - open the state file @path, creating it (and its schema)
 * when it does not exist or is empty, and take it for this process alone.
 * Returns NULL with a one-line reason in @why when the file cannot be opened
 * or created, is not an SQLite database, is another program's database, was
 * written by a newer ply (a format-1 to -5 file of an older ply is migrated to format 6
 * in place, one logged transaction per step; format 5 -> 6 adds the columns of requests
 * stored before their plans and of idempotency keys, with or without @upgrade, its runs
 * planned and without keys; format 4 -> 5 gives every run's row to @upgrade,
 * which encodes the request of the runs whose kinds kept it in columns and rewrites their
 * stored answers as PLY/2 says them: the coordinator's registry of kinds; with NULL a format-4
 * file whose runs keep their requests in columns is refused, PLY_EDB, and left as it was),
 * fails SQLite's quick_check, or is in use by another coordinator. Close with
 * ply_store_close.
 */
ply_store_t *ply_store_open_upgrading(const char *path, ply_store_upgrade_fn upgrade, char *why,
                                      size_t why_len);

/**
 * ply_store_open - ply_store_open_upgrading without an upgrade: a file of format 4 or older
 * whose runs keep their requests in columns is refused (PLY_EDB), never stripped of them; a
 * format-5 file is migrated to format 6 (that step needs no kind).
 */
ply_store_t *ply_store_open(const char *path, char *why, size_t why_len);

/** ply_store_close - close the file; NULLs *s; idempotent. */
void ply_store_close(ply_store_t **s);

/** ply_store_path - the path given to ply_store_open (storage owned by @s). */
const char *ply_store_path(const ply_store_t *s);

/**
 * ply_store_next_job_base - the first task id not used by any stored run (1
 * for a new file). Returns 0 or PLY_EDB.
 */
int ply_store_next_job_base(ply_store_t *s, uint64_t *next_job_base);

/**
 * ply_store_has_run - whether run @id is in the file (active or finished):
 * a new run's random id must not be one of them. Returns 1, 0 or PLY_EDB.
 */
int ply_store_has_run(ply_store_t *s, uint64_t id);

/**
 * ply_store_add_run - store an accepted run, its request (and idempotency key, if any)
 * and every job of its plan in one transaction (committed and on disk when this returns 0). The
 * run's state is "active" until ply_store_finish_run. A perft run stores its
 * @plan; another kind's may have none (NULL: its njobs are stored, and its
 * kind plans it again from the request when it is read back). Returns 0,
 * PLY_EDB (nothing stored; reason in @why) or PLY_EINVAL (also for a kind
 * above PLY_STORE_KIND_MAX or not positive, a run without a request; nothing
 * stored, reason in @why).
 */
int ply_store_add_run(ply_store_t *s, const ply_store_run_t *run, const ply_split_t *plan,
                      char *why, size_t why_len);

/**
 * ply_store_add_request - store an accepted run's request alone, before it is planned, in one
 * transaction (committed and on disk when this returns 0): its row with what it asks
 * (request, kind, fen, depth), its verification, owner, submission time and idempotency key
 * (run->key, or none), marked not planned (its njobs, job_base and slots are not stored).
 * ply_store_add_plan adds its plan; a run read back without it is planned again
 * (ply_store_load: planned 0). Returns 0, PLY_EDB (nothing stored, reason in @why: also a key
 * the owner used for another run) or PLY_EINVAL (as ply_store_add_run; also a key not of
 * PLY_STORE_KEY_MIN..MAX bytes; reason in @why).
 */
int ply_store_add_request(ply_store_t *s, const ply_store_run_t *run, char *why, size_t why_len);

/**
 * ply_store_add_plan - store the plan of run @run->id, stored by ply_store_add_request and not
 * planned yet, in one transaction: its task ids (@run->job_base, slots), its @plan's summary
 * and every job (NULL plan: @run->njobs, planned again from the request when read back, as
 * ply_store_add_run says), marked planned. Returns 0, PLY_EDB (nothing stored, reason in
 * @why: also no such unplanned, unfinished run), PLY_EINVAL or PLY_ENOMEM.
 */
int ply_store_add_plan(ply_store_t *s, const ply_store_run_t *run, const ply_split_t *plan,
                       char *why, size_t why_len);

/**
 * ply_store_find_key - the run (active or finished) that @owner submitted with idempotency
 * key @key (@key_len bytes): its id in *@id. Returns 1, 0 (none) or PLY_EDB; PLY_EINVAL for
 * an empty key.
 */
int ply_store_find_key(ply_store_t *s, const char *owner, const uint8_t *key, size_t key_len,
                       uint64_t *id);

/**
 * ply_store_begin - open a transaction that groups the ply_store_add_result
 * calls until ply_store_commit (nothing is durable before that returns 0).
 * Returns 0, or PLY_EDB (also when one is open already).
 */
int ply_store_begin(ply_store_t *s);

/**
 * ply_store_commit - commit the open transaction (on disk when this returns
 * 0). On PLY_EDB (reason in @why) the transaction is rolled back: none of its
 * results is stored. Without an open transaction: 0.
 */
int ply_store_commit(ply_store_t *s, char *why, size_t why_len);

/**
 * ply_store_add_result - store one computation of a job: committed when this
 * returns 0, or part of the transaction ply_store_begin opened. A second row
 * for the same run, job and role is refused. The payload is stored as given
 * (the store does not decode it; its run's kind does). Returns 0, PLY_EDB
 * (reason in @why) or PLY_EINVAL (also for a payload over INT_MAX bytes).
 */
int ply_store_add_result(ply_store_t *s, const ply_store_result_t *r, char *why, size_t why_len);

/**
 * ply_store_drop_result - delete the stored computation of @job (role @role)
 * of run @run_id: it came from a worker caught wrong and is computed again.
 * Committed when this returns 0, or part of the ply_store_begin transaction.
 * Returns 0, PLY_EDB (reason in @why) or PLY_EINVAL.
 */
int ply_store_drop_result(ply_store_t *s, uint64_t run_id, uint32_t job, uint32_t role, char *why,
                          size_t why_len);

/**
 * ply_store_finish_run - record the end of a run: its summary @f and the
 * encoded reply its client got (frame 1 of the RunResult or Error message,
 * @reply_len bytes). Returns 0 or PLY_EDB.
 */
int ply_store_finish_run(ply_store_t *s, const ply_store_finished_t *f, const void *reply,
                         size_t reply_len);

/** A task's failed attempts (a task is role * njobs + job of its run). */
typedef struct ply_store_failure {
    uint64_t run_id;
    uint32_t task;
    uint32_t attempt;    /* hand-outs so far */
    uint32_t failures;   /* of which failed: worker died, hung, lease expired, worker ERROR */
    const char *history; /* "attempt N: reason; ..." as the quarantine report gives it */
} ply_store_failure_t;

/**
 * ply_store_job_failed - record (replace) the failed attempts of one task, so
 * that a coordinator restarted on the file still quarantines a job after
 * max_attempts failures in all instead of retrying it afresh each time.
 * Committed when this returns 0, or part of the ply_store_begin transaction.
 * Returns 0, PLY_EDB (reason in @why) or PLY_EINVAL.
 */
int ply_store_job_failed(ply_store_t *s, const ply_store_failure_t *f, char *why, size_t why_len);

/** Called for each recorded task failure of the unfinished runs, in run, task order. */
typedef int (*ply_store_failure_fn)(void *arg, const ply_store_failure_t *f);

/**
 * ply_store_load_failures - read back the failed attempts of every unfinished
 * run (after ply_store_load). A callback returning a negative code stops with
 * that code. Returns 0 or PLY_EDB (reason in @why).
 */
int ply_store_load_failures(ply_store_t *s, ply_store_failure_fn fn, void *arg, char *why,
                            size_t why_len);

/**
 * ply_store_prune - drop the job, result and failure rows of every finished run but
 * the @keep most recently submitted ones; a pruned run keeps its summary and
 * the reply its client got, so ply_store_finished still answers it. This is
 * what bounds the file over months of runs: a run's rows (about 200 bytes a
 * job, up to PLY_SPLIT_AUTO_MAX_JOBS jobs, each with one or two results) are
 * needed only to resume it or to audit it afterwards. Sets *@runs_pruned
 * (may be NULL) to the runs whose rows went. One transaction of its own:
 * returns 0, PLY_EDB (reason in @why; nothing deleted) or PLY_EINVAL (a
 * ply_store_begin transaction is open).
 */
int ply_store_prune(ply_store_t *s, unsigned keep, unsigned *runs_pruned, char *why,
                    size_t why_len);

/** Called for each unfinished run; takes the plan (sets *plan to NULL) or leaves it to be freed. */
typedef int (*ply_store_run_fn)(void *arg, const ply_store_run_t *run, ply_split_t **plan);
/** Called for each stored computation of the unfinished runs, in run, job, role order. */
typedef int (*ply_store_result_fn)(void *arg, const ply_store_result_t *r);

/**
 * ply_store_load - read back every unfinished run: @on_run once per run with
 * its request and key, and its plan rebuilt when it was stored with one (root moves
 * from the rule engine, jobs from the file; the position read as Chess960
 * when a perft run's request says so), else *plan NULL and its njobs (a run
 * stored by ply_store_add_request alone: planned 0, *plan NULL), then
 * @on_result for every computation of those runs. A callback returning a
 * negative code stops the load with that code. Returns 0, PLY_EDB when the
 * file's content is inconsistent (a run without all its jobs, a blob of the
 * wrong size, a root move the rule engine does not know, a run of a kind
 * above PLY_STORE_KIND_MAX (a newer ply's; the reason names the run and the
 * kind)...; reason in @why), or a callback's code. The load does not check
 * that a payload suits its run's kind: @on_result's owner of the kind does.
 */
int ply_store_load(ply_store_t *s, ply_store_run_fn on_run, ply_store_result_fn on_result,
                   void *arg, char *why, size_t why_len);

/**
 * ply_store_finished - the finished run @id: its summary in *f and, when
 * @reply is not NULL, a copy of its encoded reply (caller frees) in *reply and
 * *reply_len. Returns 0, PLY_ENOTFOUND (no such run, or not finished) or PLY_EDB.
 */
int ply_store_finished(ply_store_t *s, uint64_t id, ply_store_finished_t *f, void **reply,
                       size_t *reply_len);

/**
 * ply_store_recent - call @fn for up to @max finished runs, newest (by submission) first.
 * Returns 0, PLY_EDB, or the first negative code @fn returned.
 */
int ply_store_recent(ply_store_t *s, unsigned max,
                     int (*fn)(void *arg, const ply_store_finished_t *f), void *arg);

#endif
