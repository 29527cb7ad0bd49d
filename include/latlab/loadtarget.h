/* loadtarget.h - what `latlab load` aims at: its TARGET argument split into
 * host, port, path and whether the connection speaks TLS (https://). */

/* Kept apart from the engine (load.c), which connects to an address already
 * looked up, and from TLS (loadtls.h), which needs the host name the target
 * gave: both read what this one parses.  Pure string work: no allocation,
 * no syscall, thread-safe. */
#ifndef LATLAB_LOADTARGET_H
#define LATLAB_LOADTARGET_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadtarget.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>

/* A target: HOST:PORT, [IPV6]:PORT, http://HOST[:PORT][/PATH] (port 80) or
 * https://HOST[:PORT][/PATH] (port 443; *tls set, NULL-able).  host gets
 * the host (hn bytes with its NUL), port the port's digits (8 bytes), *path
 * the URL's path inside t (NULL without one).  0, or -EINVAL with *why the
 * fault as the end of a sentence ("target 'x'" + why: ": no host", " is not
 * HOST:PORT", ": bad port", ": port out of range (1-65535)", ": no ']'"). */
int lat_loadtarget_split(const char *t, char *host, size_t hn, char *port, const char **path,
                         const char **why, bool *tls);

#endif /* LATLAB_LOADTARGET_H */
