/*
 * The owner token file (owner.h). Made atomically: the secret is written to a
 * temporary file of our own and linked into place, so two ply processes
 * starting at once both end up with the one token that won.
 */
#include "owner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "envelope.h"
#include "util/random.h"

/* The file's path into @buf; 0, or -1 when there is neither $XDG_STATE_HOME nor $HOME. */
static int token_path(char *buf, size_t len, char *dir, size_t dir_len)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(dir, dir_len, "%s/ply", xdg);
    else if (home && home[0] == '/')
        snprintf(dir, dir_len, "%s/.local/state/ply", home);
    else
        return -1;
    return (size_t)snprintf(buf, len, "%s/owner-token", dir) < len ? 0 : -1;
}

/* mkdir -p @dir, new directories 0700. */
static int make_dirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* Writes a new random token to @path unless one is there; 0, or -1 with errno. */
static int create_token(const char *dir, const char *path)
{
    uint8_t b[32];
    char hex[2 * sizeof b + 2], tmp[PATH_MAX];
    if (make_dirs(dir) != 0 || ply_random_bytes(b, sizeof b) < 0) return -1;
    for (size_t i = 0; i < sizeof b; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
    strcat(hex, "\n");
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid()) >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    int ok = write(fd, hex, strlen(hex)) == (ssize_t)strlen(hex) && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    int r = ok && (link(tmp, path) == 0 || errno == EEXIST) ? 0 : -1;
    int saved = errno;
    unlink(tmp);
    errno = saved;
    return r;
}

/* Reads the token in @path into @out; 0, -1 with errno (ENOENT: none yet), or -2 with a
 * reason in @why (the file is not fit to hold a secret). */
static int read_token(const char *path, char *out, size_t len, char *why, size_t why_len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0) return -1;
    struct stat st;
    ssize_t n = -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(why, why_len, "%s is not a regular file", path);
    else if (st.st_mode & 077)
        snprintf(why, why_len, "%s can be read by others (mode %04o): chmod 600 it", path,
                 (unsigned)(st.st_mode & 07777));
    else if (st.st_uid != geteuid())
        snprintf(why, why_len, "%s belongs to another user", path);
    else
        n = read(fd, out, len - 1);
    close(fd);
    if (n < 0) return why[0] ? -2 : -1;
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (ply_client_set_owner_token(out) < 0) {
        snprintf(why, why_len, "%s does not hold an owner token (%d..%d printable characters)",
                 path, PLY_MIN_OWNER_TOKEN, PLY_MAX_OWNER_TOKEN);
        return -2;
    }
    return 0;
}

int ply_cli_owner_setup(const char *prog, const char *given)
{
    if (given) {
        if (ply_client_set_owner_token(given) == 0) return 0;
        fprintf(stderr,
                "%s: --owner-token needs %d..%d printable characters without spaces (see %s "
                "--help)\n",
                prog, PLY_MIN_OWNER_TOKEN, PLY_MAX_OWNER_TOKEN, prog);
        return 2;
    }
    char path[PATH_MAX], dir[PATH_MAX], tok[PLY_MAX_OWNER_TOKEN + 2], why[PATH_MAX + 96] = "";
    if (token_path(path, sizeof path, dir, sizeof dir) < 0) {
        fprintf(stderr,
                "%s: no $HOME to keep an owner token in: runs submitted now are this "
                "process's alone (or give --owner-token)\n",
                prog);
        return 0;
    }
    int r = read_token(path, tok, sizeof tok, why, sizeof why);
    if (r == -1 && errno == ENOENT) {
        if (create_token(dir, path) != 0) {
            fprintf(stderr,
                    "%s: cannot make the owner token %s: %s; runs submitted now are this "
                    "process's alone (or give --owner-token)\n",
                    prog, path, strerror(errno));
            return 0;
        }
        r = read_token(path, tok, sizeof tok, why, sizeof why);
    }
    if (r == 0) return 0;
    fprintf(stderr, "%s: owner token: %s\n", prog, r == -2 ? why : strerror(errno));
    return 1;
}
