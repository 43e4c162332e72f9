/*
 * The group commit of stored results (batch.h): results that arrive together share one
 * transaction; nothing is made known (answer, progress, status) before ply__batch_flush
 * commits them.
 */
#include "batch.h"

#include <inttypes.h>
#include <stdio.h>

#include "runs.h"
#include "core.h"
#include "util/error.h"
#include "util/log.h"

void ply__result_drop(ply_coordinator_t *c, ply__run_t *run, size_t idx, int role)
{
    char why[PLY__WHY_LEN] = "";
    if (!c->store) return;
    if (!c->batch_open) {
        if (ply_store_begin(c->store) < 0) {
            ply__run_fail(run, PLY_EDB, "cannot write to %s", ply_store_path(c->store));
            return;
        }
        c->batch_open = 1;
    }
    if (ply_store_drop_result(c->store, run->id, (uint32_t)idx, (uint32_t)role, why, sizeof why) <
        0)
        ply__run_fail(run, PLY_EDB, "%s", why);
}

int ply__result_store(ply_coordinator_t *c, const ply__run_t *run, const ply_store_result_t *r,
                      char *why, size_t why_len)
{
    if (!c->store) return 0;
    /* group commit: results that arrive together share one transaction; nothing is made
     * known (answer, progress, status) before ply__batch_flush commits them */
    if (!c->batch_open) {
        if (ply_store_begin(c->store) < 0) {
            snprintf(why, why_len, "cannot write to %s", ply_store_path(c->store));
            return PLY_EDB;
        }
        c->batch_open = 1;
    }
    unsigned i = 0;
    while (i < c->batch_nruns && c->batch_runs[i] != run->id) i++;
    if (i == c->batch_nruns && i < PLY__BATCH_MAX) c->batch_runs[c->batch_nruns++] = run->id;
    int rc = ply_store_add_result(c->store, r, why, why_len);
    if (rc == 0 && ++c->batch_n >= PLY__BATCH_MAX) ply__batch_flush(c);
    return rc;
}

void ply__batch_flush(ply_coordinator_t *c)
{
    if (!c->batch_open) return;
    char why[PLY__WHY_LEN] = "";
    if (ply_store_commit(c->store, why, sizeof why) < 0) {
        for (unsigned i = 0; i < c->batch_nruns; i++) {
            ply__run_t *run = ply__run_find(c, c->batch_runs[i]);
            if (run) ply__run_fail(run, PLY_EDB, "results not stored: %s", why);
        }
    }
    c->batch_open = 0;
    c->batch_n = c->batch_nruns = 0;
}
