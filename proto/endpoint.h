/*
 * The endpoints a client (the ply command, ply-worker) connects to, checked before ZeroMQ
 * gets them. ZeroMQ connects lazily and retries in silence: a typo, a host name that does
 * not resolve and a port where nothing listens all look alike to it, a 30-second "no
 * answer". These functions tell them apart at once: a bad endpoint (a usage error), an
 * unknown host, a connection refused, a host that cannot be reached.
 */
#ifndef PLY_PROTO_ENDPOINT_H
#define PLY_PROTO_ENDPOINT_H

#include <stddef.h>

/**
 * ply_endpoint_check - whether @endpoint is one a client can connect to:
 * tcp://HOST:PORT (HOST a name, an IPv4 address or a bracketed IPv6 address, PORT
 * 1..65535), ipc://PATH or inproc://NAME (non-empty). Returns 0, or PLY_EUSAGE with
 * the reason in @why (@why_len bytes), naming the endpoint and the expected form.
 */
int ply_endpoint_check(const char *endpoint, char *why, size_t why_len);

/**
 * ply_endpoint_check_bind - whether @endpoint is one the coordinator can bind:
 * tcp://ADDRESS:PORT (ADDRESS "*", a name, an IPv4 address, a bracketed IPv6 address or
 * an interface name; PORT 0..65535, 0 or ZeroMQ's "*" / "!" forms for a free one),
 * ipc://PATH or inproc://NAME (non-empty). ZeroMQ itself takes a port above 65535
 * modulo 65536 and reports a host that does not resolve as "No such device". Returns 0;
 * PLY_EUSAGE for a malformed endpoint or port; PLY_ENOTFOUND for an ADDRESS that neither
 * resolves (getaddrinfo) nor names an interface; each with the reason in @why.
 */
int ply_endpoint_check_bind(const char *endpoint, char *why, size_t why_len);

/**
 * ply_endpoint_probe - try what ZeroMQ will do with @endpoint (already checked), with a
 * plain connect: tcp:// resolves the host (getaddrinfo) and connects to each address
 * within @timeout_ms milliseconds, then closes; ipc:// connects to the socket file.
 * Returns 0 when something listens, or when the probe cannot tell (no answer within
 * @timeout_ms: a firewall that drops packets; inproc://); PLY_ENOTFOUND for a host name
 * that does not resolve; PLY_ECONNECT for a connection refused (nothing listening on
 * that port, or no socket file) or a host or network that cannot be reached; each with
 * the reason in @why.
 */
int ply_endpoint_probe(const char *endpoint, int timeout_ms, char *why, size_t why_len);

/**
 * ply_endpoint_probe_wait - ply_endpoint_probe, again every 100 ms while the connection
 * is refused, for up to @grace_ms milliseconds: a coordinator started a moment before its
 * client may not be listening yet. Returns as ply_endpoint_probe.
 */
int ply_endpoint_probe_wait(const char *endpoint, int timeout_ms, int grace_ms, char *why,
                            size_t why_len);

#endif
