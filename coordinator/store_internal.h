/*
 * What store.c (the schema, opening, the writes) and store_read.c (reading
 * back) share: the state file object and the sizes of the blobs they encode
 * and decode (store.c's header has the schema). Private to those two files:
 * the rest of the coordinator sees only store.h.
 */
#ifndef PLY_COORDINATOR_STORE_INTERNAL_H
#define PLY_COORDINATOR_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store.h"

#define PLY__MULT_BYTES  12                /* a jobs.mult entry: u32 root + u64 count */
#define PLY__STATS_BYTES (8 * PLY_STATS_N) /* a ply_stats_t as little-endian u64 counters */

struct ply_store {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *add_result, *add_identity;
    int in_txn; /* ply_store_begin has opened a transaction */
    ply_store_upgrade_fn upgrade; /* what migrates a format-4 row (ply_store_open_upgrading) */
};

#endif
