/* loadtls.h - TLS for `latlab load`: https:// targets, HTTP/1.1 over TLS 1.2
 * or 1.3 (OpenSSL), on the engine's nonblocking sockets. */

/* One context per run (lat_loadtls), shared by every sending thread: the
 * trust (--cacert, the system's store, or none with insecure), the name the
 * certificate must carry (a host name, sent as SNI too, or an IP address),
 * the session kept for resumption and the handshake figures.  A connection
 * (lat_loadtls_conn) starts once its TCP connect is done; its handshake and
 * its reads and writes never block: each says whether it wants the socket
 * readable or writable, and the engine (load.c) maps that onto epoll. */

/* The handshake is timed from the TCP connect's end to the handshake's.
 * Without handshake_in_latency the engine finishes every connection's
 * handshake before the schedule starts, and a connection re-made during the
 * run takes requests only once its handshake is done: no handshake is inside
 * a request's service time.  With it, the first handshakes happen in the run
 * and the first requests wait for them. */

/* Built without OpenSSL, lat_loadtls_available() is false and create
 * returns -ENOTSUP.  Threading: create and destroy on one thread; the rest
 * from any (the context's figures behind a mutex, taken once per handshake,
 * never per request).  A connection belongs to one thread.  Reads and
 * writes allocate nothing of their own after the handshake (OpenSSL keeps
 * its record buffers; a TLS 1.3 session ticket it parses is the exception,
 * once per connection). */
#ifndef LATLAB_LOADTLS_H
#define LATLAB_LOADTLS_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadtls.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct lat_loadtls lat_loadtls;
typedef struct lat_loadtls_conn lat_loadtls_conn;

typedef struct lat_loadtls_opts {
    const char *host;          /* the name or address the certificate must carry (SNI
                                  too when it is a name); required */
    const char *cafile;        /* PEM trust anchors; NULL: the system's default store */
    bool insecure;             /* no verification at all */
    bool resume;               /* offer the last session when a connection is re-made */
    bool handshake_in_latency; /* see above */
    bool h2;                   /* offer h2 alone by ALPN; a server that does not select
                                  it fails the handshake (-EPROTO) */
} lat_loadtls_opts;

/* Whether this build has OpenSSL. */
bool lat_loadtls_available(void);

/* The context for opts.  0; -ENOTSUP without OpenSSL; -EINVAL (NULL host);
 * -ENOENT or -EPROTO when cafile cannot be loaded (lat_loadtls_error says
 * why); -ENOMEM.  On failure *out is still a context to read the error
 * from and destroy, or NULL (-ENOTSUP, -EINVAL, -ENOMEM). */
int lat_loadtls_create(const lat_loadtls_opts *opts, lat_loadtls **out);
void lat_loadtls_destroy(lat_loadtls *t); /* NULL is fine; after every connection ended */

/* The first failure's reason, OpenSSL's words ("certificate verify failed:
 * self-signed certificate", "wrong version number"), or "" when none. */
const char *lat_loadtls_error(lat_loadtls *t);
bool lat_loadtls_in_latency(const lat_loadtls *t);

/* Handshake figures so far (ns). */
typedef struct lat_loadtls_stats {
    uint64_t handshakes; /* completed, resumed ones included */
    uint64_t resumed;    /* of those, the session was resumed */
    uint64_t failed;     /* handshakes that failed (certificate, protocol, peer) */
    uint64_t p50_ns, p99_ns, max_ns;
} lat_loadtls_stats;
void lat_loadtls_stats_get(lat_loadtls *t, lat_loadtls_stats *out);
/* The figures as a JSON object ("handshakes", "resumed", "failed",
 * "handshake_p50_ns", "handshake_p99_ns", "handshake_max_ns",
 * "in_latency"): a new reference or NULL. */
struct json_t *lat_loadtls_json(lat_loadtls *t);
/* The figures as one line of the report, into buf (n bytes): buf. */
const char *lat_loadtls_describe(lat_loadtls *t, char *buf, size_t n);

/* ---- one connection (the engine's side) ------------------------------------------------- */

#define LAT_LOADTLS_WANT_READ 1  /* call again when the socket is readable */
#define LAT_LOADTLS_WANT_WRITE 2 /* ... writable */

/* Start TLS on fd, a connected nonblocking TCP socket (still the caller's to
 * close): the session to resume is offered here.  0 or -ENOMEM. */
int lat_loadtls_conn_start(lat_loadtls *t, int fd, lat_loadtls_conn **out);
/* Go on with the handshake: 0 done (timed and counted), LAT_LOADTLS_WANT_*,
 * or -EPROTO (failed, counted; lat_loadtls_error has the first reason). */
int lat_loadtls_handshake(lat_loadtls_conn *c);
/* After the handshake: bytes read (> 0), 0 when the peer closed, -EAGAIN
 * (nothing yet: wait for readable), or -ECONNRESET / -EPROTO. */
ssize_t lat_loadtls_read(lat_loadtls_conn *c, void *buf, size_t n);
/* Bytes written (> 0, possibly fewer than n: the rest goes later, from any
 * address with the same bytes), -EAGAIN (wait for writable), or
 * -ECONNRESET / -EPIPE / -EPROTO. */
ssize_t lat_loadtls_write(lat_loadtls_conn *c, const void *buf, size_t n);
/* Free the connection's TLS state (NULL is fine); the socket is not closed. */
void lat_loadtls_conn_end(lat_loadtls_conn *c);

#endif /* LATLAB_LOADTLS_H */
