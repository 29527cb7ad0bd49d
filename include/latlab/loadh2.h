/* loadh2.h - HTTP/2 for `latlab load` (--http2): one nghttp2 client session
 * per connection, over TLS (h2, chosen by ALPN: loadtls.h) or plain TCP (h2c
 * with prior knowledge), on the engine's nonblocking sockets. */

/* The request is the run's HTTP/1.1 one (loadproto.h), read once into an
 * HTTP/2 header block: its method and path, Host as :authority, :scheme
 * from the transport, the other header lines (names lower-cased; Connection
 * and the like, which HTTP/2 forbids, left out) and the body.  Each request
 * is a stream; responses complete in any order, so a connection's requests
 * are slots (0 .. cap-1, a free list), each stream's user data its slot: the
 * engine (load.c) keeps a stamp per slot.  A connection is up once the
 * server's SETTINGS came; until then it is in its handshake, under the
 * engine's connect deadline.  Its streams are capped by the engine's
 * in-flight cap and by the server's SETTINGS_MAX_CONCURRENT_STREAMS. */

/* What ends a stream is reported through the done callback, on the engine's
 * thread, from inside lat_loadh2_pump: a complete response (status >= 400:
 * an error reply), a stream the server reset (RST_STREAM), a stream a GOAWAY
 * refused, or a response over the engine's max_response.  Events that fail
 * nothing (a GOAWAY received, a request whose body had to wait for flow
 * control) come through it with slot LAT_LOADH2_NO_SLOT.  After a GOAWAY the
 * connection takes no new stream; once its last stream ends, pump returns
 * -ESHUTDOWN and the engine re-makes it. */

/* Allocation: nghttp2 allocates per stream and per frame; it does so
 * through a nghttp2_mem of this context that recycles blocks by size class,
 * so a connection in its steady state takes nothing from malloc.  Built
 * without nghttp2, lat_loadh2_available() is false and create returns
 * -ENOTSUP.  Threading: a context and its connections belong to one
 * thread (one engine). */
#ifndef LATLAB_LOADH2_H
#define LATLAB_LOADH2_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadh2.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "latlab/loadproto.h"

typedef struct lat_loadh2 lat_loadh2;
typedef struct lat_loadh2_conn lat_loadh2_conn;

#define LAT_LOADH2_NO_SLOT 0xffffffffu
/* done's result: a complete response, ok or an error reply ... */
#define LAT_LOADH2_OK (-1)
#define LAT_LOADH2_ERROR_REPLY (-2)
/* ... or the request failed: one of these (the engine's error kinds) ... */
#define LAT_LOADH2_RST 0    /* the server reset the stream (RST_STREAM) */
#define LAT_LOADH2_GOAWAY 1 /* a GOAWAY refused it */
#define LAT_LOADH2_TOOBIG 2 /* a response over max_response (the stream is reset) */
/* ... or, with LAT_LOADH2_NO_SLOT, an event */
#define LAT_LOADH2_EV_GOAWAY 3 /* a GOAWAY frame came */
#define LAT_LOADH2_EV_STALL 4  /* a request body waits for the server's flow-control window */

/* The engine's side: its connection's I/O (read(2)/send contract: -1 and
 * errno; through TLS or not) and where the end of a stream goes. */
typedef struct lat_loadh2_cb {
    ssize_t (*io)(void *conn, uint8_t *buf, size_t n, bool out);
    void (*done)(void *run, void *conn, unsigned slot, int result);
    void *run;
} lat_loadh2_cb;

/* Whether this build has nghttp2. */
bool lat_loadh2_available(void);

/* The context for the HTTP request p (p->kind http; read-only, outliving
 * the context; request 0), tls: :scheme https, else http; cap: streams per
 * connection at most.  0, -ENOTSUP (no nghttp2), -EINVAL (not http, or a
 * request it cannot read) or -ENOMEM. */
int lat_loadh2_create(const lat_loadproto *p, bool tls, unsigned cap, const lat_loadh2_cb *cb,
                      lat_loadh2 **out);
/* One more request the streams can carry (--targets: one per target), read
 * as create reads p, before any connection starts: its number (1, 2, ...),
 * or -EINVAL (more than LAT_LOADH2_MAX_REQUESTS, or not readable), -ENOMEM,
 * -ENOTSUP. */
#define LAT_LOADH2_MAX_REQUESTS 65
int lat_loadh2_add_request(lat_loadh2 *h, const lat_loadproto *p);
void lat_loadh2_destroy(lat_loadh2 *h); /* NULL is fine; after every connection ended */

/* A session on a connected (and, over TLS, handshaken) socket: the client
 * preface and SETTINGS are queued; conn is the engine's, given back to the
 * callbacks.  0 or -ENOMEM. */
int lat_loadh2_conn_start(lat_loadh2 *h, void *conn, lat_loadh2_conn **out);
/* Free the session (NULL is fine): its streams end without callbacks. */
void lat_loadh2_conn_end(lat_loadh2_conn *c);

/* Read once into buf (n bytes) when readable, feed the session, and write
 * what it has to send.  Before the server's SETTINGS: LAT_LOADH2_WANT_READ
 * or LAT_LOADH2_WANT_WRITE (call again then).  After: 0, or one of those when
 * the socket to watch changed (WANT_WRITE: writes wait for the socket;
 * WANT_READ: they no longer do).  Or -ECONNRESET, -ENOTCONN (the peer
 * closed), -EPROTO (not HTTP/2, a protocol error, or closed before its
 * SETTINGS), -ESHUTDOWN (a GOAWAY came and no stream is left). */
#define LAT_LOADH2_WANT_READ 1
#define LAT_LOADH2_WANT_WRITE 2
int lat_loadh2_pump(lat_loadh2_conn *c, uint8_t *buf, size_t n, bool readable);

/* Whether a stream can start now (under both caps, no GOAWAY, no write
 * waiting for the socket). */
bool lat_loadh2_room(lat_loadh2_conn *c);
/* Whether a connection lacked room since the last request started because
 * the server's stream cap was under the engine's: a wait for a stream. */
bool lat_loadh2_stream_capped(const lat_loadh2 *h);
/* Whether the session's writes wait for the socket to be writable. */
bool lat_loadh2_blocked(const lat_loadh2_conn *c);
/* Start request req (0: create's) on a new stream and write it: its slot,
 * or -EINVAL (no such request), -ENOSPC (no room), -EPROTO, -ECONNRESET or
 * -ENOTCONN (the connection failed). */
int lat_loadh2_submit(lat_loadh2_conn *c, unsigned req);
/* The slot of the oldest request in flight (submission order), or
 * LAT_LOADH2_NO_SLOT. */
unsigned lat_loadh2_oldest(const lat_loadh2_conn *c);

/* On f, one line of the run's HTTP/2 figures (load.h's counts): the waits for
 * a stream apart from the waits for a connection, GOAWAY frames, requests
 * failed by RST_STREAM and by GOAWAY, and flow-control stalls. */
struct lat_load_counts;
void lat_loadh2_counts_write(FILE *f, const struct lat_load_counts *c);

#endif /* LATLAB_LOADH2_H */
