/* Standard descriptors and the final check of standard output (process.h). */
#include "util/process.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

static const char *process_name = "ply";

/* The last exit handler to run (registered first): by then every other one,
 * czmq's included, has printed what it prints. A failed write is sticky in
 * the stream's error flag, so one check here covers every printf before it. */
static void close_stdout(void)
{
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        err = errno;
    }
    if (!failed) return;
    fprintf(stderr, "%s: cannot write standard output: %s\n", process_name,
            err ? strerror(err) : "write error");
    _exit(1);
}

int ply_process_init(const char *prog)
{
    if (prog) process_name = prog;
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        /* The lowest free number is fd itself: the ones below it are open. */
        int got = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (got < 0) return PLY_EIO;
        if (got != fd) {
            int ok = dup2(got, fd) == fd;
            close(got);
            if (!ok) return PLY_EIO;
        }
    }
    errno = 0;
    return atexit(close_stdout) == 0 ? 0 : PLY_EIO;
}
