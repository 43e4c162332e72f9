/*
 * --version text (see version.h). The commit comes from the header that
 * cmake/PlyGitHash.cmake writes at every build; only this file includes it,
 * so a new commit recompiles one file and relinks the programs.
 */
#include "util/version.h"

#include <stdio.h>

#include "ply_git.h"

const char *ply_version_git(void)
{
    return PLY_GIT_HASH;
}

const char *ply_version_openmp_name(long yyyymm)
{
    static const struct {
        long date;
        const char *name;
    } specs[] = {
        {200505, "2.5"}, {200805, "3.0"}, {201107, "3.1"}, {201307, "4.0"}, {201511, "4.5"},
        {201811, "5.0"}, {202011, "5.1"}, {202111, "5.2"}, {202411, "6.0"},
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].date == yyyymm) return specs[i].name;
    return NULL;
}

char *ply_version_line(char *buf, size_t len, const char *program, const char *kernel, long openmp)
{
    char omp[48];
    const char *name = ply_version_openmp_name(openmp);
    if (!openmp)
        snprintf(omp, sizeof omp, "no OpenMP");
    else if (name)
        snprintf(omp, sizeof omp, "OpenMP %s", name);
    else
        snprintf(omp, sizeof omp, "OpenMP %ld", openmp);
    if (kernel)
        snprintf(buf, len, "%s %s (git %s, %s sliders, %s)", program, PLY_VERSION, PLY_GIT_HASH,
                 kernel, omp);
    else
        snprintf(buf, len, "%s %s (git %s, no slider kernel, %s: the workers count)", program,
                 PLY_VERSION, PLY_GIT_HASH, omp);
    return buf;
}
