/*
 * The registry of job kinds (kind.h): a new kind is one module and one line
 * here.
 */
#include "kind.h"

const ply__kind_t *ply__kind_of(int kind)
{
    return kind == PLY__JOB_KIND__JOB_KIND_PERFT    ? &ply__kind_perft
           : kind == PLY__JOB_KIND__JOB_KIND_SEARCH ? &ply__kind_search
                                                    : NULL;
}
