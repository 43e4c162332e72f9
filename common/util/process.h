/*
 * The edges every ply program shares with the process that started it: the
 * three standard descriptors, which a parent may have closed (`ply ... >&-`),
 * and standard output, whose last buffered write can fail (a full disk,
 * /dev/full) after the program believes it has printed its answer.
 */
#ifndef PLY_UTIL_PROCESS_H
#define PLY_UTIL_PROCESS_H

/**
 * ply_process_init - call first in main, before libuv, ZeroMQ or any file
 * is opened. (1) Opens /dev/null on each of descriptors 0, 1 and 2 that is
 * closed: otherwise the next socket or file takes that number, so that
 * results printed to "stdout" would go into a socket, and libuv aborts on
 * its assertion `fd > STDERR_FILENO`. (2) Registers an exit handler that
 * flushes and closes stdout and, when that or any earlier write to it
 * failed, prints "@prog: cannot write standard output: REASON" on stderr and
 * makes the exit status 1: a command must never exit 0 with its answer lost.
 * @prog: the program's name for that message (static storage, not copied).
 * Returns 0, or PLY_EIO when /dev/null cannot be opened (the caller should
 * exit 1: no message can be trusted to reach anyone).
 */
int ply_process_init(const char *prog);

#endif
