/*
 * A coordinator run inside the test process, for the tests that drive one
 * against fake workers (test_coordinator.c, test_resilience.c, test_trust.c, ...):
 * started in its own thread with quick heartbeats, stopped and freed, its counters
 * read, fake workers started, and a perft run submitted and waited for through the
 * client library. Failures of the fixture itself fail the current cmocka test.
 */
#ifndef PLY_TEST_COORD_FIXTURE_H
#define PLY_TEST_COORD_FIXTURE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "coordinator.h"
#include "fake_worker.h"

typedef struct coord {
    ply_coordinator_t *c;
    pthread_t thread;
    char endpoint[256]; /* where clients and workers connect */
} coord_t;

/* Changes a test makes to the fixture's configuration before the coordinator is made. */
typedef void (*tweak_fn)(ply_coordinator_config_t *cfg);

/**
 * coord_start - make a coordinator and run it in a new thread.
 * @bind: the endpoint to bind; "inproc" picks a fresh inproc name.
 * @tweak: changes to the configuration (heartbeats every 100 ms, liveness 3,
 * workers awaited 20 s), or NULL. @state: its state file, or NULL for none.
 * Returns it (coord_stop frees it); fails the test, saying why, when the
 * coordinator cannot be made or its thread started.
 */
coord_t *coord_start(const char *bind, tweak_fn tweak, const char *state);

/** coord_stop - stop the coordinator, join its thread, destroy and free it; NULLs *tp. */
void coord_stop(coord_t **tp);

/** coord_counters - a snapshot of the coordinator's counters. */
ply_coordinator_counters_t coord_counters(coord_t *t);

/** coord_wait_joined - wait up to 3 s until @n workers have joined; fails the test if not. */
void coord_wait_joined(coord_t *t, uint64_t n);

/**
 * coord_wait_planned - the jobs of run @run_id of the coordinator at @endpoint once it is
 * planned (RunProgress.jobs_total: a run is accepted before it is planned, issue 27), asked
 * for every 20 ms for up to 10 s; fails the test if it is not planned by then.
 */
uint32_t coord_wait_planned(const char *endpoint, uint64_t run_id);

/**
 * coord_perft - submit @req to the coordinator at @endpoint (Accepted within
 * 10 s) and wait for its result, giving up after @wait_ms without a word
 * from the coordinator. Returns the client's code: 0 with the result in *res
 * (caller frees with ply__run_result__free_unpacked), else the reason in @why
 * (*res is set to NULL first). Fails the test when no client can be made.
 */
int coord_perft(const char *endpoint, const ply_perft_request_t *req, int wait_ms,
                Ply__RunResult **res, char *why, size_t why_len);

/**
 * coord_perft_divide - coord_perft of perft(@depth) of @fen with divide, @chess960 and
 * @stats as given, split depth @split (-1: chosen by the coordinator), giving up after
 * 10 s without a word. Returns as coord_perft.
 */
int coord_perft_divide(const char *endpoint, const char *fen, unsigned depth, int chess960,
                       int stats, int split, Ply__RunResult **res, char *why, size_t why_len);

/**
 * coord_perft_ok - coord_perft_divide, which must succeed with @expected nodes at @depth, a
 * verification that checked everything (every job's perft(1), the arbiter's plies, no
 * mismatch) and divide entries that sum to @expected; fails the test otherwise. Returns
 * the result (caller frees with ply__run_result__free_unpacked).
 */
Ply__RunResult *coord_perft_ok(const char *endpoint, const char *fen, unsigned depth, int chess960,
                               int stats, int split, uint64_t expected);

/**
 * coord_perft_verify - coord_perft of perft(@depth) of @fen with divide, split depth @split,
 * verification mode @verify (a PLY__VERIFY_MODE__ value) and sample rate @ppm (parts per
 * million, for SAMPLE), giving up after 20 s without a word. Returns as coord_perft.
 */
int coord_perft_verify(const char *endpoint, const char *fen, unsigned depth, int split, int verify,
                       uint32_t ppm, Ply__RunResult **res, char *why, size_t why_len);

/**
 * coord_fake_worker - a fake worker (fake_worker_start_opts, credit 1) in @mode, with id
 * @id, Zobrist seed @seed and @offset added to its counts; fails the test when it cannot
 * start. Stop it with fake_worker_stop.
 */
fake_worker_t *coord_fake_worker(const char *endpoint, fake_worker_mode_t mode, const char *id,
                                 unsigned seed, long offset);

#endif
