/*
 * A fake ply-worker for the coordinator tests: a thread with a DEALER socket
 * that speaks the worker side of the protocol (HELLO, READY, JOB, RESULT,
 * HEARTBEAT, BYE) and counts with the arbiter (slow but correct), so that
 * coordinator tests do not depend on the real worker. Modes inject faults.
 * Compiled with -DFAKE_WORKER_MAIN it is also a process, `fake-worker
 * --connect ENDPOINT [--inflate] [--threads T] [--hash H]`, for the spawn
 * test and the exact-sum test of the ply command (--inflate: FW_INFLATE).
 */
#ifndef PLY_TEST_FAKE_WORKER_H
#define PLY_TEST_FAKE_WORKER_H

#include <stdint.h>

typedef enum {
    FW_NORMAL = 0,
    FW_VANISH,       /* on its first JOB: close the socket without a word and stop */
    FW_WRONG_PERFT1, /* report perft(1) + 1 */
    FW_ERROR_ONCE,   /* answer its first JOB with an ERROR about the job */
    FW_SLOW,         /* sleep 150 ms before each result */
    FW_HANG,         /* on its first JOB: stop answering, keep heartbeating a frozen node count */
    FW_ERROR_ALWAYS, /* answer every JOB with an ERROR about the job */
    FW_INFLATE,      /* add FW_INFLATE_BY to every count it reports (nodes, stats.nodes,
                        stats.captures, the first divide entry), perft(1) right: one job's
                        counts near 2^64, for the tests of exact sums above a job */
    FW_WRAP_DIVIDE,  /* add 2^63 to its first two divide entries: they sum past 2^64 to the
                        right total modulo 2^64 (nodes and perft(1) right) */
    FW_STALL,        /* on its first JOB: never answer, heartbeat a node count that keeps rising */
    FW_BAD_STATS,    /* counts right, but total_checks one above the sum of its kinds */
    FW_BAD_TABLE,    /* counts right, but more table hits than probes */
    FW_MALFORMED_ONCE, /* its first RESULT cut short by three bytes (the envelope refuses it) */
} fake_worker_mode_t;

/** What FW_INFLATE adds: 2^64 - 2^32, so that counts up to 2^32 stay below 2^64. */
#define FW_INFLATE_BY 18446744069414584320ull

/** More knobs for fake_worker_start_opts (zero: as fake_worker_start). */
typedef struct fake_worker_opts {
    const char *id;    /* worker id in HELLO; NULL: "fake-<pid>-<n>" */
    unsigned seed;     /* Zobrist seed announced in HELLO */
    long offset;       /* added to every count it reports (a faulty worker) */
    unsigned max_jobs; /* after this many results, leave quietly (0: never) */
    /* A liar: answers the true count + 1 (perft(1), statistics and divide consistent with
     * it, so that only a second computation can tell) on the jobs whose position hashes,
     * with lie_seed, below lie_permille / 1000: the same jobs whenever it sees them. */
    unsigned lie_permille;
    unsigned lie_seed;
    unsigned lie_skip_every; /* never lie on the 1st, (n+1)th, (2n+1)th... job it receives */
    unsigned bad_perft1_at;  /* its result number N (1-based) reports perft(1) + 1 (0: never) */
    unsigned threads;     /* threads announced in HELLO (0: 1); it still counts one job at a time */
    unsigned ns_per_node; /* a simulated kernel: a result goes out no sooner than this many
                             ns per node counted after its job arrived (0: at once) */
    /* CURVE: its secret certificate and the coordinator's public key (both NULL: none) */
    const char *curve_cert, *curve_server;
} fake_worker_opts_t;

typedef struct fake_worker fake_worker_t;

/** fake_worker_start - connect to @endpoint in a new thread; NULL on failure. */
fake_worker_t *fake_worker_start(const char *endpoint, fake_worker_mode_t mode, unsigned credit);

/** fake_worker_start_opts - as fake_worker_start, with an id, a seed and faults. */
fake_worker_t *fake_worker_start_opts(const char *endpoint, fake_worker_mode_t mode,
                                      unsigned credit, const fake_worker_opts_t *opts);

/** fake_worker_no_hash_jobs - JOBs received that asked to count without a hash table. */
int fake_worker_no_hash_jobs(fake_worker_t *w);

/** fake_worker_jobs - JOBs received so far. */
int fake_worker_jobs(fake_worker_t *w);

/** fake_worker_lies - distinct job positions it has lied on since the last reset. */
int fake_worker_lies(fake_worker_t *w);

/** fake_worker_lies_reset - start counting fake_worker_lies afresh (between runs). */
void fake_worker_lies_reset(fake_worker_t *w);

/** fake_worker_id_span - the smallest and largest job id it has received (0, 0: none). */
void fake_worker_id_span(fake_worker_t *w, uint64_t *min, uint64_t *max);

/** fake_worker_errors - ERROR messages received from the coordinator so far. */
int fake_worker_errors(fake_worker_t *w);

/** fake_worker_done - 1 once the thread has ended (FW_VANISH after its first JOB). */
int fake_worker_done(fake_worker_t *w);

/** fake_worker_stop - say BYE (unless it vanished), join, free; NULLs *w. */
void fake_worker_stop(fake_worker_t **w);

#endif
