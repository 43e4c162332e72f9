/*
 * Endpoint syntax and a plain-connect probe (endpoint.h): what lets the ply command and
 * ply-worker say "connection refused" or "unknown host" at once, where ZeroMQ would
 * retry in silence.
 */
#include "endpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/time.h"

#define FORMS "tcp://HOST:PORT (e.g. tcp://coord:5555) or ipc://PATH"

/*
 * Splits "HOST:PORT" (HOST possibly "[v6]", after any "source;") into @host and @port.
 * With @bind, PORT may also be 0 or ZeroMQ's ephemeral forms ("*", "!", "*[A-B]"),
 * copied as they are.
 */
static int split_tcp(const char *ep, int bind, char *host, size_t hlen, char *port, size_t plen,
                     char *why, size_t why_len)
{
    const char *hp = ep + strlen("tcp://");
    const char *semi = strchr(hp, ';'); /* ZeroMQ's "tcp://source;host:port" */
    if (semi) hp = semi + 1;
    const char *colon = strrchr(hp, ':');
    if (!colon || colon == hp)
        return ply_why(why, why_len, PLY_EUSAGE, "bad endpoint '%s': expected %s", ep, FORMS);
    size_t n = (size_t)(colon - hp);
    const char *h = hp;
    if (h[0] == '[') { /* [::1]:5555 */
        if (n < 3 || h[n - 1] != ']')
            return ply_why(why, why_len, PLY_EUSAGE,
                           "bad endpoint '%s': an IPv6 address goes in brackets, "
                           "tcp://[::1]:5555",
                           ep);
        h++, n -= 2;
    } else if (memchr(h, ':', n)) {
        return ply_why(why, why_len, PLY_EUSAGE,
                       "bad endpoint '%s': an IPv6 address goes in brackets, tcp://[::1]:5555", ep);
    }
    if (n == 0 || n >= hlen)
        return ply_why(why, why_len, PLY_EUSAGE, "bad endpoint '%s': expected %s", ep, FORMS);
    memcpy(host, h, n);
    host[n] = '\0';
    if (bind && (colon[1] == '*' || colon[1] == '!')) {
        snprintf(port, plen, "0"); /* the host alone is resolved */
        return 0;
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || colon[1] == '-' || colon[1] == '+' || p < !bind || p > 65535)
        return ply_why(why, why_len, PLY_EUSAGE, "bad endpoint '%s': the port '%s' must be %s", ep,
                       colon + 1,
                       bind ? "a number 0..65535 (0 or * for a free one)" : "a number 1..65535");
    snprintf(port, plen, "%ld", p);
    return 0;
}

int ply_endpoint_check(const char *ep, char *why, size_t why_len)
{
    if (!ep || !ep[0]) return ply_why(why, why_len, PLY_EUSAGE, "no endpoint: expected %s", FORMS);
    if (!strncmp(ep, "tcp://", 6)) {
        char host[256], port[8];
        return split_tcp(ep, 0, host, sizeof host, port, sizeof port, why, why_len);
    }
    if ((!strncmp(ep, "ipc://", 6) && ep[6]) || (!strncmp(ep, "inproc://", 9) && ep[9])) return 0;
    return ply_why(why, why_len, PLY_EUSAGE, "bad endpoint '%s': expected %s", ep, FORMS);
}

int ply_endpoint_check_bind(const char *ep, char *why, size_t why_len)
{
    if (!ep || !ep[0]) return ply_why(why, why_len, PLY_EUSAGE, "no endpoint: expected %s", FORMS);
    if ((!strncmp(ep, "ipc://", 6) && ep[6]) || (!strncmp(ep, "inproc://", 9) && ep[9])) return 0;
    if (strncmp(ep, "tcp://", 6) != 0)
        return ply_why(why, why_len, PLY_EUSAGE,
                       "bad endpoint '%s': expected tcp://ADDRESS:PORT (e.g. tcp://0.0.0.0:5555, "
                       "tcp://127.0.0.1:*), ipc://PATH or inproc://NAME",
                       ep);
    char host[256], port[8];
    int rc = split_tcp(ep, 1, host, sizeof host, port, sizeof port, why, why_len);
    if (rc) return rc;
    if (!strcmp(host, "*") || if_nametoindex(host)) return 0; /* every address, an interface */
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(host, NULL, &hints, &res);
    if (g != 0)
        return ply_why(why, why_len, PLY_ENOTFOUND, "unknown host '%s' in %s (%s)", host, ep,
                       g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
    freeaddrinfo(res);
    return 0;
}

/* Connects the non-blocking socket @fd to @sa within @timeout_ms: 0, an errno, or
 * ETIMEDOUT. */
static int connect_within(int fd, const struct sockaddr *sa, socklen_t len, int timeout_ms)
{
    int fl = fcntl(fd, F_GETFL, 0);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return errno;
    if (connect(fd, sa, len) == 0) return 0;
    if (errno != EINPROGRESS) return errno;
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    uint64_t deadline = ply_time_ms() + (uint64_t)timeout_ms;
    for (;;) {
        uint64_t now = ply_time_ms();
        int left = now < deadline ? (int)(deadline - now) : 0;
        int r = poll(&pfd, 1, left);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno;
        if (r == 0) return ETIMEDOUT;
        int err = 0;
        socklen_t elen = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0) return errno;
        return err;
    }
}

static int probe_tcp(const char *ep, int timeout_ms, char *why, size_t why_len)
{
    char host[256], port[8];
    int rc = split_tcp(ep, 0, host, sizeof host, port, sizeof port, why, why_len);
    if (rc) return rc;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g != 0)
        return ply_why(why, why_len, PLY_ENOTFOUND, "unknown host '%s' in %s (%s)", host, ep,
                       g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
    int refused = 0, unreachable = 0, silent = 0, other = 0, last = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        int e = connect_within(fd, a->ai_addr, a->ai_addrlen, timeout_ms);
        close(fd);
        if (e == 0) {
            freeaddrinfo(res);
            return 0;
        }
        if (e == ECONNREFUSED)
            refused++;
        else if (e == ENETUNREACH || e == EHOSTUNREACH)
            unreachable++, last = e;
        else if (e == ETIMEDOUT)
            silent++;
        else
            other++, last = e;
    }
    freeaddrinfo(res);
    if (silent || other || (!refused && !unreachable)) return 0; /* cannot tell: ZeroMQ tries */
    if (refused)
        return ply_why(why, why_len, PLY_ECONNECT,
                       "connection refused by %s: nothing is listening on port %s of %s (is the "
                       "coordinator running, and bound to that address?)",
                       ep, port, host);
    return ply_why(why, why_len, PLY_ECONNECT, "cannot reach %s: %s", ep, strerror(last));
}

static int probe_ipc(const char *ep, int timeout_ms, char *why, size_t why_len)
{
    const char *path = ep + strlen("ipc://");
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    if (path[0] == '@' || strlen(path) >= sizeof sun.sun_path) return 0; /* abstract, or long */
    memcpy(sun.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    int e = connect_within(fd, (struct sockaddr *)&sun, sizeof sun, timeout_ms);
    close(fd);
    if (e == ENOENT)
        return ply_why(why, why_len, PLY_ECONNECT,
                       "no socket at %s: nothing is listening there (is the coordinator running?)",
                       path);
    if (e == ECONNREFUSED)
        return ply_why(why, why_len, PLY_ECONNECT,
                       "connection refused by %s: nothing is listening there (is the coordinator "
                       "running?)",
                       ep);
    return 0;
}

int ply_endpoint_probe(const char *ep, int timeout_ms, char *why, size_t why_len)
{
    int rc = ply_endpoint_check(ep, why, why_len);
    if (rc) return rc;
    if (!strncmp(ep, "tcp://", 6)) return probe_tcp(ep, timeout_ms, why, why_len);
    if (!strncmp(ep, "ipc://", 6)) return probe_ipc(ep, timeout_ms, why, why_len);
    return 0;
}

int ply_endpoint_probe_wait(const char *ep, int timeout_ms, int grace_ms, char *why, size_t why_len)
{
    uint64_t deadline = ply_time_ms() + (uint64_t)(grace_ms > 0 ? grace_ms : 0);
    for (;;) {
        int rc = ply_endpoint_probe(ep, timeout_ms, why, why_len);
        if (rc != PLY_ECONNECT || ply_time_ms() >= deadline) return rc;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}
