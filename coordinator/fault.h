/*
 * Fault points (issue 27): named places on the coordinator's path from a Submit to its stored
 * plan where a test can make the coordinator die as if killed there, to prove that a run is
 * durable once acknowledged and that a re-sent Submit is the same run. Armed by the
 * environment of the process that runs a coordinator (ply-coordinator, or ply with its
 * embedded one), read when the coordinator is created:
 *
 *   PLY_FAULT_POINT=submit-received  a Submit validated and given its run id, before its
 *                                    request is stored: nothing of the run survives, its
 *                                    client (never acknowledged) must send it again. Exit 81.
 *   PLY_FAULT_POINT=submit-stored    its request committed in the state file, before Accepted
 *                                    is sent and before it is planned: a coordinator restarted
 *                                    on the file plans and runs it. Exit 82.
 *   PLY_FAULT_POINT=plan-done        planned, before its jobs are stored (Accepted was sent):
 *                                    restarted, it is planned again from its request. Exit 83.
 *
 * At the point the process logs which point it reached and leaves at once with _exit() (no
 * handler, no flush of anything but the log line: as SIGKILL would, except that the test can
 * tell the point from the exit code). Unset or empty: no fault point; an unknown name stops
 * the coordinator from starting (a test that meant to inject a fault must not pass without).
 */
#ifndef PLY_COORDINATOR_FAULT_H
#define PLY_COORDINATOR_FAULT_H

#include <stddef.h>

/* The fault points, in the order a Submit passes them. */
typedef enum ply__fault_point {
    PLY__FAULT_NONE = 0,
    PLY__FAULT_SUBMIT_RECEIVED,
    PLY__FAULT_SUBMIT_STORED,
    PLY__FAULT_PLAN_DONE,
} ply__fault_point_t;

/* The exit code of fault point p: PLY__FAULT_EXIT_BASE + p (81, 82, 83). */
#define PLY__FAULT_EXIT_BASE 80

/**
 * ply__fault_init - read PLY_FAULT_POINT from the environment and arm that point (for the
 * whole process). 0; PLY_EINVAL when it names no fault point (the reason, with the names,
 * in @why, @why_len bytes).
 */
int ply__fault_init(char *why, size_t why_len);

/** ply__fault - when @point is the armed fault point: log it and _exit() with its code. */
void ply__fault(ply__fault_point_t point);

#endif
