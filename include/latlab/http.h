/* http.h - the smallest HTTP/1.1 latlab needs: a one-thread server for a
 * scrape endpoint, and a client that sends one request (a Pushgateway push).
 * The library never prints; errors come back as negative errno / LAT_EHTTP. */

/* Server: one listening socket, one cold thread polling up to 16 connections
 * at once.  A slow connection never holds up another; when all are taken the
 * oldest makes room.  Each connection:
 *   - has 2 s in all from accept to the end of its answer (an incomplete
 *     request then gets 408);
 *   - is read into a fixed buffer of LAT_HTTP_MAX_REQUEST bytes (a bigger
 *     request gets 431, a malformed one 400, anything but GET/HEAD 405);
 *   - is answered by the caller's handler and closed (Connection: close). */

/* Destroy stops the server at once, whatever the clients do.  Nothing here
 * touches the threads that measure; the handler decides what it locks.
 *
 * Client: plain HTTP over TCP (no TLS), Content-Length bodies, one request
 * per connection, one deadline for connect, send and receive together. */
#ifndef LATLAB_HTTP_H
#define LATLAB_HTTP_H

#include "latlab/compiler.h"

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* <netdb.h> defines it only when POSIX is visible (not under strict -std=c11). */
struct addrinfo;

#define LAT_HTTP_MAX_REQUEST 8192 /* request line + headers, bytes */

/* ---- request parsing (external input: fuzzed by tests/fuzz/fuzz_http_request.c) ---- */

typedef struct lat_http_request {
    char method[16];
    char path[256];    /* as sent, query string included */
    char accept[1024]; /* the Accept header's value ("" when absent; truncated if longer) */
    int version_minor; /* HTTP/1.x */
} lat_http_request;

/* Parse the request line and headers in buf[0..len).  Returns the length of
 * the head (through the blank line) when complete, 0 when more bytes are
 * needed, LAT_EFORMAT when malformed (bad request line, control bytes, a
 * header without ':', a method/path too long, not HTTP/1.x).  No
 * allocation; buf need not be NUL-terminated. */
LAT_API int lat_http_parse_request(const char *buf, size_t len, lat_http_request *req);

/* ---- address ----------------------------------------------------------------------- */

/* Split "HOST:PORT", "[V6]:PORT" or ":PORT" (HOST "" = all interfaces).
 * 0, or -EINVAL (no port, port > 65535, host too long). */
LAT_API int lat_http_split_addr(const char *addr, char *host, size_t host_cap, int *port);

/* ---- server ---------------------------------------------------------------------- */

typedef struct lat_http_response {
    int status;               /* 200, 404, ... */
    const char *content_type; /* NULL: text/plain */
    const void *body;         /* valid until the handler's next call */
    size_t len;
} lat_http_response;

/* Called on the server thread for each well-formed GET/HEAD. */
typedef void (*lat_http_handler)(void *ud, const lat_http_request *req, lat_http_response *resp);

typedef struct lat_http_server lat_http_server;

/* Bind addr (port 0: a free one), listen, start the thread.  0 and *out or
 * a negative errno (-EINVAL for a bad address, bind/listen errors). */
LAT_API int lat_http_server_create(const char *addr, lat_http_handler fn, void *ud,
                                   lat_http_server **out);
LAT_API void lat_http_server_destroy(lat_http_server *s); /* stops the thread; NULL is fine */
LAT_API int lat_http_server_port(const lat_http_server *s);
/* Responses with status 200 / requests refused with 4xx, so far. */
LAT_API void lat_http_server_counts(const lat_http_server *s, uint64_t *ok, uint64_t *refused);

/* ---- client ---------------------------------------------------------------------- */

/* Parse "http://HOST[:PORT][/PREFIX]" (port default 80; prefix without the
 * trailing '/').  0 or -EINVAL. */
LAT_API int lat_http_parse_url(const char *url, char *host, size_t host_cap, int *port,
                               char *prefix, size_t prefix_cap);

/* Resolve host (a name or a numeric address; NULL or "" with passive: any
 * local address) and port for TCP, as getaddrinfo does, but within
 * timeout_ms (<= 0: only a numeric host can succeed): a numeric host at once,
 * a name on a helper thread that is abandoned when the time is up (it frees
 * its answer itself; getaddrinfo cannot be cancelled).  Returns 0 with *res
 * (freeaddrinfo it), -ETIMEDOUT, -ENAMETOOLONG, -ENOMEM, a thread's -errno,
 * or a failed lookup as LAT_EADDRINFO_ERR (lat_strerror: the resolver's
 * words).  Thread-safe. */
LAT_API int lat_http_resolve(const char *host, const char *port, bool passive, int timeout_ms,
                     struct addrinfo **res);
/* The lookup time a server's listening address gets. */
#define LAT_HTTP_RESOLVE_MS 10000

/* Send METHOD host:port PATH with an optional body (content_type may be
 * NULL when there is none) and read the status.  timeout_ms bounds the whole
 * request (the name lookup, connect, send and the answer together), so a
 * peer or a resolver that trickles cannot hold it longer.  Returns 0 for 2xx, LAT_EHTTP for
 * another status (err says which, with the start of the body), or a negative
 * errno (-ECONNREFUSED, -ETIMEDOUT), or a failed name lookup as
 * LAT_EADDRINFO_ERR (lat_strerror: the resolver's words).  err gets a
 * sentence on failure (an IPv6 host in brackets). */
LAT_API int lat_http_request_send(const char *host, int port, const char *method, const char *path,
                          const char *content_type, const void *body, size_t len, int timeout_ms,
                          int *status, char *err, size_t errlen);

#endif /* LATLAB_HTTP_H */
