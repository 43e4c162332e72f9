/*
 * The one-line answer of every program's --version: the release (CMake's
 * project(VERSION)), the git commit the build was made from (read at build
 * time by cmake/PlyGitHash.cmake; "unknown" outside a git checkout), the
 * slider kernel the perft code runs and the OpenMP it was compiled with.
 * One formatter, so that ply, ply-coordinator and ply-worker say it alike.
 */
#ifndef PLY_UTIL_VERSION_H
#define PLY_UTIL_VERSION_H

#include <stddef.h>

/**
 * ply_version_git - the commit the build was made from: 12 hex digits, with
 * "-dirty" when tracked files differed from it at build time, or "unknown"
 * (no git, or a source tree that is not a git checkout, e.g. a tarball).
 */
const char *ply_version_git(void);

/**
 * ply_version_openmp_name - the OpenMP specification named by the value of
 * the _OPENMP macro (yyyymm): "4.5" for 201511 and so on, per the table of
 * the OpenMP specifications (section "Conditional Compilation": 200505 2.5,
 * 200805 3.0, 201107 3.1, 201307 4.0, 201511 4.5, 201811 5.0, 202011 5.1,
 * 202111 5.2, 202411 6.0). NULL for a value not in that table.
 */
const char *ply_version_openmp_name(long yyyymm);

/**
 * ply_version_line - writes "PROGRAM VERSION (git HASH, KERNEL sliders,
 * OpenMP X.Y)" into @buf (@len bytes, always NUL-terminated, truncated if
 * short). @kernel is the slider kernel ("pext" or "magic") or NULL for a
 * program that counts nothing; @openmp is _OPENMP (yyyymm) or 0 for a
 * program built without OpenMP. Returns @buf.
 */
char *ply_version_line(char *buf, size_t len, const char *program, const char *kernel, long openmp);

#endif
