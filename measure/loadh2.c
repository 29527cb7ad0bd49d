/* loadh2.c - HTTP/2 for `latlab load` (nghttp2): the request as a header
 * block, each connection's client session, its streams as slots, and a
 * recycling allocator for nghttp2.  See loadh2.h.
 *
 * Why slots and not the engine's FIFO: HTTP/2 answers streams in any order.
 * Why an allocator of its own: nghttp2 allocates a stream, its frames and the
 * header buffers it receives per request; blocks freed go to a free list by
 * power-of-two size and come back from it, so the steady state allocates
 * nothing.  Built without nghttp2, the same names are stubs. */
#include "latlab/loadh2.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "latlab/load.h"

void lat_loadh2_counts_write(FILE *f, const lat_load_counts *c) {
    fprintf(f,
            "http2: %" PRIu64 " waits for a stream (the server's SETTINGS_MAX_CONCURRENT_STREAMS "
            "under --inflight) of %" PRIu64 " waits for a connection; %" PRIu64
            " GOAWAY frames; requests failed by RST_STREAM %" PRIu64 ", by GOAWAY %" PRIu64
            "; %" PRIu64 " flow-control stalls\n",
            c->stream_waits, c->cap_waits, c->goaways, c->errors[LAT_LOAD_RSTSTREAM],
            c->errors[LAT_LOAD_GOAWAY], c->flow_stalls);
}

#ifdef LAT_HAVE_NGHTTP2
#include <ctype.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#define NV_MAX 64     /* header fields in the request */
#define CLASSES 13    /* block sizes 16 .. 64 KiB; larger ones go to malloc */
#define BLOCK_HDR 16u /* a block's size class, before what it holds */

typedef struct block {
    struct block *next;
} block;

/* One request as a header block and its body. */
typedef struct h2req {
    nghttp2_nv nv[NV_MAX];
    size_t nnv;
    char *names; /* the lower-cased names and values nv points into (malloc'd) */
    const uint8_t *body;
    size_t body_len;
} h2req;

struct lat_loadh2 {
    lat_loadh2_cb cb;
    unsigned cap;
    h2req req[LAT_LOADH2_MAX_REQUESTS];
    unsigned nreq;
    size_t max_response;
    nghttp2_session_callbacks *cbs;
    nghttp2_option *opt;
    nghttp2_mem mem;
    block *free[CLASSES];
    bool capped, tls;
};

typedef struct slot {
    uint64_t got;    /* response body bytes */
    size_t body_off; /* request body bytes sent */
    unsigned req;    /* which of the context's requests */
    unsigned prev, next;
    int32_t id; /* its stream */
    int status;
    bool used, ended; /* ended: the response is complete, or the stream's end reported */
} slot;

struct lat_loadh2_conn {
    lat_loadh2 *h;
    void *conn;
    nghttp2_session *s;
    slot *slots;
    unsigned *free, nfree; /* free slots, a stack */
    unsigned head, tail;   /* in flight in submission order (NO_SLOT: none) */
    unsigned active;
    bool settings, goaway, blocked, ended;
    int err; /* the I/O's errno that failed the session */
};

bool lat_loadh2_available(void) {
    return true;
}

/* ---- the allocator --------------------------------------------------------------------- */

static unsigned class_of(size_t n) {
    unsigned k = 0;
    while ((16u << k) < n)
        k++;
    return k;
}

static void *mem_malloc(size_t n, void *ud) {
    lat_loadh2 *h = ud;
    unsigned k = class_of(n);
    if (k < CLASSES && h->free[k]) {
        block *b = h->free[k];
        h->free[k] = b->next;
        return b;
    }
    unsigned char *p = malloc((k < CLASSES ? (16u << k) : n) + BLOCK_HDR);
    if (!p) return NULL;
    *(unsigned *)p = k;
    return p + BLOCK_HDR;
}

static void mem_free(void *ptr, void *ud) {
    lat_loadh2 *h = ud;
    if (!ptr) return;
    unsigned char *p = (unsigned char *)ptr - BLOCK_HDR;
    unsigned k = *(unsigned *)p;
    if (k >= CLASSES) {
        free(p);
        return;
    }
    block *b = ptr;
    b->next = h->free[k];
    h->free[k] = b;
}

static void *mem_calloc(size_t n, size_t size, void *ud) {
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = mem_malloc(n * size, ud);
    if (p) memset(p, 0, n * size);
    return p;
}

static void *mem_realloc(void *ptr, size_t n, void *ud) {
    if (!ptr) return mem_malloc(n, ud);
    unsigned k = *(unsigned *)((unsigned char *)ptr - BLOCK_HDR);
    size_t have = k < CLASSES ? 16u << k : 0;
    if (have >= n) return ptr;
    void *p = mem_malloc(n, ud);
    if (!p) return NULL;
    if (k < CLASSES) {
        memcpy(p, ptr, have);
        mem_free(ptr, ud);
        return p;
    }
    /* a large block: its size is not kept; hand it to realloc itself */
    mem_free(p, ud);
    unsigned char *q = realloc((unsigned char *)ptr - BLOCK_HDR, n + BLOCK_HDR);
    return q ? q + BLOCK_HDR : NULL;
}

/* ---- the request as a header block -------------------------------------------------- */

static void nv_add(h2req *h, char *name, size_t nl, char *value, size_t vl) {
    if (h->nnv == NV_MAX) return;
    h->nv[h->nnv++] = (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, nl, vl,
                                   NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

/* The HTTP/1.1 request loadproto built: "METHOD PATH HTTP/1.1\r\n", header
 * lines, "\r\n", the body.  0 or -EINVAL. */
static int read_request(h2req *h, const lat_loadproto *p, bool tls) {
    if (p->kind != LAT_LOADPROTO_HTTP) return -EINVAL;
    if (!(h->names = malloc(p->req_len + 1))) return -ENOMEM;
    memcpy(h->names, p->req, p->req_len);
    h->names[p->req_len] = 0;
    char *m = h->names, *sp = strchr(m, ' '), *path = sp + 1, *sp2, *eol;
    if (!sp || !(sp2 = strchr(path, ' ')) || !(eol = strstr(sp2, "\r\n"))) return -EINVAL;
    static char k_method[] = ":method", k_path[] = ":path", k_scheme[] = ":scheme",
                k_auth[] = ":authority", v_https[] = "https", v_http[] = "http";
    nv_add(h, k_method, 7, m, (size_t)(sp - m));
    nv_add(h, k_scheme, 7, tls ? v_https : v_http, tls ? 5 : 4);
    nv_add(h, k_path, 5, path, (size_t)(sp2 - path));
    for (char *line = eol + 2; line[0] != '\r';) {
        char *end = strstr(line, "\r\n"), *colon = memchr(line, ':', (size_t)(end - line));
        if (!end || !colon) return -EINVAL;
        char *v = colon + 1;
        while (*v == ' ')
            v++;
        for (char *c = line; c < colon; c++)
            *c = (char)tolower((unsigned char)*c);
        size_t nl = (size_t)(colon - line), vl = (size_t)(end - v);
        if (nl == 4 && !memcmp(line, "host", 4))
            nv_add(h, k_auth, 10, v, vl);
        else if (!(nl == 10 && !memcmp(line, "connection", 10)) &&
                 !(nl == 10 && !memcmp(line, "keep-alive", 10)) &&
                 !(nl == 17 && !memcmp(line, "transfer-encoding", 17)))
            nv_add(h, line, nl, v, vl);
        line = end + 2;
        if (line[0] == '\r') {
            h->body = (const uint8_t *)line + 2;
            h->body_len = p->req_len - (size_t)(line + 2 - h->names);
        }
    }
    return h->nnv == NV_MAX ? -EINVAL : 0;
}

/* ---- the session's callbacks --------------------------------------------------------- */

static ssize_t send_cb(nghttp2_session *s, const uint8_t *data, size_t n, int flags, void *ud) {
    (void)s, (void)flags;
    lat_loadh2_conn *c = ud;
    ssize_t k = c->h->cb.io(c->conn, (uint8_t *)data, n, true);
    if (k >= 0) return k;
    if (errno == EAGAIN || errno == EINTR) {
        c->blocked = true;
        return NGHTTP2_ERR_WOULDBLOCK;
    }
    c->err = errno;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
}

static unsigned slot_of(nghttp2_session *s, int32_t id) {
    void *p = nghttp2_session_get_stream_user_data(s, id);
    return p ? (unsigned)((uintptr_t)p - 1) : LAT_LOADH2_NO_SLOT;
}

/* The stream in slot i ended with result: reported once, the slot freed. */
static void end_slot(lat_loadh2_conn *c, unsigned i, int result) {
    slot *sl = &c->slots[i];
    if (!sl->used) return;
    sl->used = false;
    if (sl->prev != LAT_LOADH2_NO_SLOT)
        c->slots[sl->prev].next = sl->next;
    else
        c->head = sl->next;
    if (sl->next != LAT_LOADH2_NO_SLOT)
        c->slots[sl->next].prev = sl->prev;
    else
        c->tail = sl->prev;
    c->free[c->nfree++] = i;
    c->active--;
    nghttp2_session_set_stream_user_data(c->s, sl->id, NULL); /* the slot may be reused */
    if (!c->ended) c->h->cb.done(c->h->cb.run, c->conn, i, result);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nl,
                     const uint8_t *value, size_t vl, uint8_t flags, void *ud) {
    (void)flags;
    lat_loadh2_conn *c = ud;
    unsigned i = slot_of(s, f->hd.stream_id);
    if (i == LAT_LOADH2_NO_SLOT || f->hd.type != NGHTTP2_HEADERS || nl != 7 ||
        memcmp(name, ":status", 7))
        return 0;
    int st = 0;
    for (size_t k = 0; k < vl && k < 4; k++)
        st = st * 10 + (value[k] - '0');
    c->slots[i].status = st;
    return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *d, size_t n,
                   void *ud) {
    (void)flags, (void)d;
    lat_loadh2_conn *c = ud;
    unsigned i = slot_of(s, id);
    if (i == LAT_LOADH2_NO_SLOT || !c->slots[i].used) return 0;
    if ((c->slots[i].got += n) > c->h->max_response) {
        nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
        end_slot(c, i, LAT_LOADH2_TOOBIG);
    }
    return 0;
}

static int on_frame(nghttp2_session *s, const nghttp2_frame *f, void *ud) {
    lat_loadh2_conn *c = ud;
    if (f->hd.type == NGHTTP2_SETTINGS && !(f->hd.flags & NGHTTP2_FLAG_ACK)) c->settings = true;
    if (f->hd.type == NGHTTP2_GOAWAY) {
        c->goaway = true;
        if (!c->ended)
            c->h->cb.done(c->h->cb.run, c->conn, LAT_LOADH2_NO_SLOT, LAT_LOADH2_EV_GOAWAY);
    }
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
        (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        unsigned i = slot_of(s, f->hd.stream_id);
        if (i != LAT_LOADH2_NO_SLOT && c->slots[i].used)
            end_slot(c, i, c->slots[i].status >= 400 ? LAT_LOADH2_ERROR_REPLY : LAT_LOADH2_OK);
    }
    return 0;
}

static int on_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud) {
    lat_loadh2_conn *c = ud;
    unsigned i = slot_of(s, id);
    if (i != LAT_LOADH2_NO_SLOT && c->slots[i].used) /* closed with no complete response */
        end_slot(c, i,
                 c->goaway && code == NGHTTP2_REFUSED_STREAM ? LAT_LOADH2_GOAWAY : LAT_LOADH2_RST);
    return 0;
}

static ssize_t body_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t n, uint32_t *flags,
                         nghttp2_data_source *src, void *ud) {
    (void)src;
    lat_loadh2_conn *c = ud;
    unsigned i = slot_of(s, id);
    const h2req *r = &c->h->req[i == LAT_LOADH2_NO_SLOT ? 0 : c->slots[i].req];
    size_t off = i == LAT_LOADH2_NO_SLOT ? r->body_len : c->slots[i].body_off;
    size_t k = r->body_len - off < n ? r->body_len - off : n;
    memcpy(buf, r->body + off, k);
    if (i != LAT_LOADH2_NO_SLOT) c->slots[i].body_off += k;
    if (off + k == r->body_len) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)k;
}

/* ---- the context and its connections ------------------------------------------------ */

int lat_loadh2_create(const lat_loadproto *p, bool tls, unsigned cap, const lat_loadh2_cb *cb,
                      lat_loadh2 **out) {
    *out = NULL;
    if (!p || !cb || !cap) return -EINVAL;
    lat_loadh2 *h = calloc(1, sizeof *h);
    if (!h) return -ENOMEM;
    h->cb = *cb;
    h->cap = cap;
    h->max_response = p->max_response ? p->max_response : LAT_LOADPROTO_DEFAULT_MAX_RESPONSE;
    h->mem = (nghttp2_mem){h, mem_malloc, mem_free, mem_calloc, mem_realloc};
    h->tls = tls;
    int rc = lat_loadh2_add_request(h, p); /* request 0, or a negative errno */
    if (!rc && (nghttp2_session_callbacks_new(&h->cbs) || nghttp2_option_new(&h->opt)))
        rc = -ENOMEM;
    if (rc) {
        lat_loadh2_destroy(h);
        return rc;
    }
    nghttp2_session_callbacks_set_send_callback(h->cbs, send_cb);
    nghttp2_session_callbacks_set_on_header_callback(h->cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(h->cbs, on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(h->cbs, on_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(h->cbs, on_close);
    /* streams the server allows before its SETTINGS say otherwise: our cap */
    nghttp2_option_set_peer_max_concurrent_streams(h->opt, cap);
    *out = h;
    return 0;
}

void lat_loadh2_destroy(lat_loadh2 *h) {
    if (!h) return;
    if (h->cbs) nghttp2_session_callbacks_del(h->cbs);
    if (h->opt) nghttp2_option_del(h->opt);
    for (unsigned k = 0; k < h->nreq; k++)
        free(h->req[k].names);
    for (unsigned k = 0; k < CLASSES; k++)
        while (h->free[k]) {
            block *b = h->free[k];
            h->free[k] = b->next;
            free((unsigned char *)b - BLOCK_HDR);
        }
    free(h);
}

bool lat_loadh2_stream_capped(const lat_loadh2 *h) {
    return h && h->capped;
}

int lat_loadh2_add_request(lat_loadh2 *h, const lat_loadproto *p) {
    if (!h || !p || h->nreq == LAT_LOADH2_MAX_REQUESTS) return -EINVAL;
    int rc = read_request(&h->req[h->nreq], p, h->tls);
    if (rc) {
        free(h->req[h->nreq].names);
        memset(&h->req[h->nreq], 0, sizeof h->req[h->nreq]);
        return rc;
    }
    return (int)h->nreq++;
}

int lat_loadh2_conn_start(lat_loadh2 *h, void *conn, lat_loadh2_conn **out) {
    lat_loadh2_conn *c = calloc(1, sizeof *c);
    if (c) c->slots = calloc(h->cap, sizeof *c->slots), c->free = calloc(h->cap, sizeof *c->free);
    if (!c || !c->slots || !c->free ||
        nghttp2_session_client_new3(&c->s, h->cbs, c, h->opt, &h->mem)) {
        if (c) free(c->slots), free(c->free);
        free(c);
        return -ENOMEM;
    }
    c->h = h;
    c->conn = conn;
    c->head = c->tail = LAT_LOADH2_NO_SLOT;
    for (unsigned i = 0; i < h->cap; i++)
        c->free[c->nfree++] = h->cap - 1 - i;
    nghttp2_settings_entry e[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                  {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 24}};
    nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, e, 2);
    nghttp2_session_set_local_window_size(c->s, NGHTTP2_FLAG_NONE, 0, 1 << 24);
    *out = c;
    return 0;
}

void lat_loadh2_conn_end(lat_loadh2_conn *c) {
    if (!c) return;
    c->ended = true;
    nghttp2_session_del(c->s);
    free(c->slots);
    free(c->free);
    free(c);
}

/* Write what the session has: 0 or a negative errno. */
static int flush(lat_loadh2_conn *c) {
    c->blocked = false;
    int k = nghttp2_session_send(c->s);
    if (!k) return 0;
    return c->err == ECONNRESET ? -ECONNRESET : c->err ? -ENOTCONN : -EPROTO;
}

int lat_loadh2_pump(lat_loadh2_conn *c, uint8_t *buf, size_t n, bool readable) {
    bool was = c->blocked;
    if (readable) {
        ssize_t k = c->h->cb.io(c->conn, buf, n, false);
        if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) /* closed before SETTINGS: */
            return k < 0 && errno == ECONNRESET ? -ECONNRESET : c->settings ? -ENOTCONN : -EPROTO;
        if (k > 0 && nghttp2_session_mem_recv(c->s, buf, (size_t)k) < 0) return -EPROTO;
    }
    int rc = flush(c);
    if (rc) return rc;
    /* the session ended itself (bytes that are not HTTP/2: it sent GOAWAY) */
    if (!nghttp2_session_want_read(c->s) && !nghttp2_session_want_write(c->s) && !c->goaway)
        return -EPROTO;
    if (!c->settings) return c->blocked ? LAT_LOADH2_WANT_WRITE : LAT_LOADH2_WANT_READ;
    if (c->goaway && !c->active) return -ESHUTDOWN;
    if (c->blocked != was) return c->blocked ? LAT_LOADH2_WANT_WRITE : LAT_LOADH2_WANT_READ;
    return 0;
}

bool lat_loadh2_room(lat_loadh2_conn *c) {
    if (c->goaway || c->blocked || !c->nfree) return false;
    uint32_t srv =
        nghttp2_session_get_remote_settings(c->s, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    if (c->active < srv) return true;
    c->h->capped = true; /* the server's cap, under ours */
    return false;
}

int lat_loadh2_submit(lat_loadh2_conn *c, unsigned req) {
    lat_loadh2 *h = c->h;
    if (req >= h->nreq) return -EINVAL;
    if (!lat_loadh2_room(c)) return -ENOSPC;
    h->capped = false;
    const h2req *r = &h->req[req];
    unsigned i = c->free[--c->nfree];
    c->slots[i] = (slot){.prev = c->tail, .next = LAT_LOADH2_NO_SLOT, .req = req, .used = true};
    nghttp2_data_provider dp = {.read_callback = body_read};
    if (r->body_len && (size_t)nghttp2_session_get_remote_window_size(c->s) < r->body_len)
        h->cb.done(h->cb.run, c->conn, LAT_LOADH2_NO_SLOT, LAT_LOADH2_EV_STALL);
    int32_t id = nghttp2_submit_request(c->s, NULL, r->nv, r->nnv, r->body_len ? &dp : NULL,
                                        (void *)(uintptr_t)(i + 1));
    if (id < 0) {
        c->slots[i].used = false;
        c->free[c->nfree++] = i;
        return -EPROTO;
    }
    c->slots[i].id = id;
    if (c->tail != LAT_LOADH2_NO_SLOT)
        c->slots[c->tail].next = i;
    else
        c->head = i;
    c->tail = i;
    c->active++;
    return flush(c) ? -ENOTCONN : (int)i;
}

unsigned lat_loadh2_oldest(const lat_loadh2_conn *c) {
    return c->head;
}

bool lat_loadh2_blocked(const lat_loadh2_conn *c) {
    return c->blocked;
}

#else /* no nghttp2 */

bool lat_loadh2_available(void) {
    return false;
}
int lat_loadh2_create(const lat_loadproto *p, bool tls, unsigned cap, const lat_loadh2_cb *cb,
                      lat_loadh2 **out) {
    (void)p, (void)tls, (void)cap, (void)cb;
    *out = NULL;
    return -ENOTSUP;
}
void lat_loadh2_destroy(lat_loadh2 *h) {
    (void)h;
}
bool lat_loadh2_stream_capped(const lat_loadh2 *h) {
    (void)h;
    return false;
}
int lat_loadh2_conn_start(lat_loadh2 *h, void *conn, lat_loadh2_conn **out) {
    (void)h, (void)conn;
    *out = NULL;
    return -ENOTSUP;
}
void lat_loadh2_conn_end(lat_loadh2_conn *c) {
    (void)c;
}
int lat_loadh2_pump(lat_loadh2_conn *c, uint8_t *buf, size_t n, bool readable) {
    (void)c, (void)buf, (void)n, (void)readable;
    return -EPROTO;
}
bool lat_loadh2_room(lat_loadh2_conn *c) {
    (void)c;
    return false;
}
int lat_loadh2_submit(lat_loadh2_conn *c, unsigned req) {
    (void)c, (void)req;
    return -ENOTSUP;
}
int lat_loadh2_add_request(lat_loadh2 *h, const lat_loadproto *p) {
    (void)h, (void)p;
    return -ENOTSUP;
}
unsigned lat_loadh2_oldest(const lat_loadh2_conn *c) {
    (void)c;
    return LAT_LOADH2_NO_SLOT;
}
bool lat_loadh2_blocked(const lat_loadh2_conn *c) {
    (void)c;
    return false;
}

#endif
