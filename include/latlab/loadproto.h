/* loadproto.h - the wire protocols of `latlab load`: one request template per
 * run and an incremental response parser per connection. */

/* Protocols: a raw fixed-size echo, HTTP/1.1 keep-alive (Content-Length and
 * chunked bodies), Redis RESP (RESP2 and the RESP3 reply types; an attribute,
 * '|', is skipped and the reply after it read) and the
 * memcached text protocol (get or set over a key space).  The request is built
 * once (lat_loadproto_init); a protocol with a key space rewrites only the
 * fixed-width key digits of a copy for each request, so a request costs a few
 * stores and no allocation. */

/* The parser is a state machine fed whatever bytes
 * arrived (any split, down to one byte at a time): it consumes up to the end of
 * one response and says whether that response is complete, so a connection
 * needs no receive buffer of its own and a large body is never held whole. */

/* Limits: a header or status line of more than LAT_LOADPROTO_LINE_MAX bytes is
 * malformed (HTTP header lines the parser does not read are skipped whole up to
 * max_response); a response of more than max_response bytes is oversized.
 * Not thread-safe per parser state; the protocol itself is read-only after
 * init and can be shared.  Nothing here prints, allocates or makes a syscall. */
#ifndef LATLAB_LOADPROTO_H
#define LATLAB_LOADPROTO_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadproto.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum lat_loadproto_kind {
    LAT_LOADPROTO_ECHO,
    LAT_LOADPROTO_HTTP,
    LAT_LOADPROTO_REDIS,
    LAT_LOADPROTO_MEMCACHED,
} lat_loadproto_kind;

#define LAT_LOADPROTO_REQ_MAX 65536 /* bytes in one request */
#define LAT_LOADPROTO_LINE_MAX 256  /* status/header/RESP/memcached line bytes kept */
#define LAT_LOADPROTO_KEY_DIGITS 10 /* the key number's fixed width */
#define LAT_LOADPROTO_DEFAULT_MAX_RESPONSE (1u << 20)

/* What a run sends.  Strings are copied by init; NULL means the default. */
typedef struct lat_loadproto_opts {
    lat_loadproto_kind kind;
    size_t echo_size;      /* echo: request and response bytes (default 64) */
    const char *method;    /* http: "GET" */
    const char *path;      /* http: "/" */
    const char *host;      /* http: Host header value ("localhost") */
    const char *headers;   /* http: extra header lines, "\r\n"-separated, or NULL */
    const char *body;      /* http: request body (Content-Length sent when set) */
    const char *redis_cmd; /* redis: space-separated words ("PING"); "{key}" is the key */
    bool mc_set;           /* memcached: set instead of get */
    uint64_t key_space;    /* redis "{key}" / memcached: keys 0..key_space-1 (default 1) */
    size_t value_size;     /* memcached set: value bytes (default 32) */
    size_t max_response;   /* bytes; 0 = LAT_LOADPROTO_DEFAULT_MAX_RESPONSE */
} lat_loadproto_opts;

/* The built request and what its parser needs.  Read-only after init. */
typedef struct lat_loadproto {
    lat_loadproto_kind kind;
    uint8_t req[LAT_LOADPROTO_REQ_MAX];
    size_t req_len;
    size_t key_off[2]; /* offsets of the key digits in req (0 = none) */
    int nkeys;
    uint64_t key_space;
    size_t echo_size;
    bool head;   /* http HEAD: responses carry no body */
    bool mc_set; /* memcached set: STORED-style replies */
    size_t max_response;
} lat_loadproto;

/* Build the request for opts into p.  Returns 0, or -EINVAL (NULL, unknown
 * kind, empty method/path/command, a string with CR/LF where one line is
 * meant, a key space of 0) or -E2BIG (the request would exceed
 * LAT_LOADPROTO_REQ_MAX). */
int lat_loadproto_init(lat_loadproto *p, const lat_loadproto_opts *opts);

/* The request for sequence number seq: p->req with key number seq % key_space
 * written into out (p->req_len bytes; out may be a copy of p->req made once,
 * then only the key digits change).  Allocation-free. */
void lat_loadproto_request(const lat_loadproto *p, uint64_t seq, uint8_t *out);

/* Per-connection parser state (caller storage; zero it or call reset). */
typedef struct lat_loadproto_state {
    int phase;          /* internal state machine position */
    uint64_t remaining; /* bytes of the current body/chunk/bulk still to come */
    uint64_t total;     /* bytes of the current response so far */
    int64_t pending;    /* RESP: elements still to read */
    int64_t status;     /* HTTP status code */
    bool chunked, has_length, close, error_reply;
    uint32_t line_len;
    char line[LAT_LOADPROTO_LINE_MAX];
} lat_loadproto_state;

void lat_loadproto_reset(lat_loadproto_state *s);

/* Results of lat_loadproto_feed. */
#define LAT_LOADPROTO_MORE 0 /* every byte consumed, the response is not complete */
#define LAT_LOADPROTO_DONE 1 /* one response complete after *used bytes */

/* Feed len bytes (len 0 is fine).  Returns LAT_LOADPROTO_MORE (all consumed),
 * LAT_LOADPROTO_DONE with *used <= len the bytes belonging to this response
 * (the state is reset for the next; feed the rest again), or -EBADMSG
 * (malformed) / -EMSGSIZE (over max_response): the stream cannot be resynced.
 * After DONE, s->error_reply says whether the reply was an error (HTTP status
 * >= 400, RESP '-' reply, memcached ERROR/CLIENT_ERROR/SERVER_ERROR) and, for
 * HTTP, s->close whether the server said "Connection: close".  Never reads
 * past buf + len; allocation-free. */
int lat_loadproto_feed(const lat_loadproto *p, lat_loadproto_state *s, const uint8_t *buf,
                       size_t len, size_t *used);

/* "echo", "http", "redis", "memcached"; NULL for an unknown kind. */
const char *lat_loadproto_name(lat_loadproto_kind k);

#endif /* LATLAB_LOADPROTO_H */
