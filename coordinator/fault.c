/*
 * Fault points for the tests of durable submissions (fault.h has the points, their exit
 * codes and why they exist).
 */
#include "fault.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/log.h"

static const char *const NAMES[] = {"", "submit-received", "submit-stored", "plan-done"};

/* The armed point: set once when a coordinator is created, read on its loop thread. */
static ply__fault_point_t armed;

int ply__fault_init(char *why, size_t why_len)
{
    const char *want = getenv("PLY_FAULT_POINT");
    armed = PLY__FAULT_NONE;
    if (!want || !want[0]) return 0;
    for (size_t i = 1; i < sizeof NAMES / sizeof *NAMES; i++)
        if (!strcmp(want, NAMES[i])) {
            armed = (ply__fault_point_t)i;
            ply_warn("fault point %s armed (PLY_FAULT_POINT): the coordinator exits there with "
                     "code %d",
                     NAMES[i], PLY__FAULT_EXIT_BASE + (int)i);
            return 0;
        }
    return ply_why(why, why_len, PLY_EINVAL,
                   "PLY_FAULT_POINT=%.40s names no fault point (submit-received, submit-stored, "
                   "plan-done)",
                   want);
}

void ply__fault(ply__fault_point_t point)
{
    if (point == PLY__FAULT_NONE || point != armed) return;
    ply_error("fault point %s reached (PLY_FAULT_POINT): exiting with code %d", NAMES[point],
              PLY__FAULT_EXIT_BASE + (int)point);
    _exit(PLY__FAULT_EXIT_BASE + (int)point);
}
