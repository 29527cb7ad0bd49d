/* http.c - a minimal HTTP/1.1 server (one cold thread polling up to 16
 * connections, bounded request, a total deadline per request) and a one-shot
 * client with a total deadline, for the
 * Prometheus scrape endpoint and Pushgateway pushes (prom.c).  See http.h. */
#include "latlab/http.h"

#include "alloc_internal.h"
#include "http_internal.h"
#include "latlab/error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- request parsing ------------------------------------------------------------------ */

static bool is_token_char(unsigned char c) {
    return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?={}", c);
}

/* Copy [s, s+n) into dst (cap bytes), truncating; NUL-terminates. */
static void copy_trunc(char *dst, size_t cap, const char *s, size_t n) {
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

int lat_http_parse_request(const char *buf, size_t len, lat_http_request *req) {
    memset(req, 0, sizeof *req);
    /* Find the end of the head first: nothing is judged on a partial line
     * except bytes that can never be valid. */
    size_t end = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] == '\n' && buf[i + 1] == '\n') {
            end = i + 2;
            break;
        }
        if (i + 3 < len && buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' &&
            buf[i + 3] == '\n') {
            end = i + 4;
            break;
        }
    }
    for (size_t i = 0; i < (end ? end : len); i++) {
        unsigned char c = (unsigned char)buf[i];
        if ((c < 32 && c != '\r' && c != '\n' && c != '\t') || c == 127) return LAT_EFORMAT;
    }
    if (!end) return 0;
    /* Request line: METHOD SP TARGET SP HTTP/1.x */
    size_t i = 0, m = 0;
    while (i < end && is_token_char((unsigned char)buf[i]))
        i++;
    m = i;
    if (m == 0 || m >= sizeof req->method || i >= end || buf[i] != ' ') return LAT_EFORMAT;
    memcpy(req->method, buf, m);
    size_t p0 = ++i;
    while (i < end && buf[i] != ' ' && buf[i] != '\r' && buf[i] != '\n')
        i++;
    size_t plen = i - p0;
    if (plen == 0 || plen >= sizeof req->path || i >= end || buf[i] != ' ') return LAT_EFORMAT;
    memcpy(req->path, buf + p0, plen);
    i++;
    if (end - i < 8 || memcmp(buf + i, "HTTP/1.", 7) != 0) return LAT_EFORMAT;
    char minor = buf[i + 7];
    if (minor < '0' || minor > '9') return LAT_EFORMAT;
    req->version_minor = minor - '0';
    i += 8;
    if (i < end && buf[i] == '\r') i++;
    if (i >= end || buf[i] != '\n') return LAT_EFORMAT;
    i++;
    /* Headers: NAME ':' OWS VALUE OWS CRLF, up to the blank line. */
    while (i < end) {
        if (buf[i] == '\n') break;
        if (buf[i] == '\r' && i + 1 < end && buf[i + 1] == '\n') break;
        size_t n0 = i;
        while (i < end && is_token_char((unsigned char)buf[i]))
            i++;
        if (i == n0 || i >= end || buf[i] != ':') return LAT_EFORMAT;
        size_t nlen = i - n0;
        i++;
        while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
            i++;
        size_t v0 = i;
        while (i < end && buf[i] != '\r' && buf[i] != '\n')
            i++;
        size_t v1 = i;
        while (v1 > v0 && (buf[v1 - 1] == ' ' || buf[v1 - 1] == '\t'))
            v1--;
        if (i < end && buf[i] == '\r') i++;
        if (i >= end || buf[i] != '\n') return LAT_EFORMAT;
        i++;
        if (nlen == 6 && strncasecmp(buf + n0, "accept", 6) == 0)
            copy_trunc(req->accept, sizeof req->accept, buf + v0, v1 - v0);
    }
    return (int)end;
}

/* ---- addresses ----------------------------------------------------------------------- */

static int parse_port(const char *s, int *port) {
    if (!*s) return -EINVAL;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -EINVAL;
        v = v * 10 + (*p - '0');
        if (v > 65535) return -EINVAL;
    }
    *port = (int)v;
    return 0;
}

int lat_http_split_addr(const char *addr, char *host, size_t host_cap, int *port) {
    if (!addr || !host || host_cap == 0 || !port) return -EINVAL;
    const char *colon;
    const char *h0 = addr;
    size_t hlen;
    if (addr[0] == '[') {
        const char *rb = strchr(addr, ']');
        if (!rb || rb[1] != ':') return -EINVAL;
        h0 = addr + 1;
        hlen = (size_t)(rb - h0);
        colon = rb + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon) return -EINVAL;
        hlen = (size_t)(colon - addr);
        if (memchr(addr, ':', hlen)) return -EINVAL; /* bare IPv6 needs brackets */
    }
    if (hlen >= host_cap) return -EINVAL;
    memcpy(host, h0, hlen);
    host[hlen] = 0;
    return parse_port(colon + 1, port);
}

int lat_http_parse_url(const char *url, char *host, size_t host_cap, int *port, char *prefix,
                       size_t prefix_cap) {
    if (!url || strncmp(url, "http://", 7) != 0 || !prefix || prefix_cap == 0) return -EINVAL;
    const char *a = url + 7;
    const char *slash = strchr(a, '/');
    size_t alen = slash ? (size_t)(slash - a) : strlen(a);
    char hp[300];
    if (alen == 0 || alen >= sizeof hp) return -EINVAL;
    memcpy(hp, a, alen);
    hp[alen] = 0;
    int rc;
    bool has_port = hp[0] == '[' ? strstr(hp, "]:") != NULL : strchr(hp, ':') != NULL;
    if (has_port) {
        if ((rc = lat_http_split_addr(hp, host, host_cap, port)) != 0) return rc;
    } else {
        const char *h = hp;
        size_t n = alen;
        if (hp[0] == '[') {
            if (hp[alen - 1] != ']') return -EINVAL;
            h++;
            n -= 2;
        }
        if (n >= host_cap) return -EINVAL;
        memcpy(host, h, n);
        host[n] = 0;
        *port = 80;
    }
    if (!host[0]) return -EINVAL;
    const char *pre = slash ? slash : "";
    size_t plen = strlen(pre);
    while (plen > 0 && pre[plen - 1] == '/')
        plen--;
    if (plen >= prefix_cap) return -EINVAL;
    for (size_t k = 0; k < plen; k++)
        if ((unsigned char)pre[k] <= 32 || pre[k] == '?' || pre[k] == '#') return -EINVAL;
    memcpy(prefix, pre, plen);
    prefix[plen] = 0;
    return 0;
}

/* ---- client and server I/O ------------------------------------------------------------- */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or the deadline (mono_ms) passes:
 * 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short events, int64_t deadline_ms) {
    for (;;) {
        int64_t left = deadline_ms - mono_ms();
        if (left <= 0) return -ETIMEDOUT;
        struct pollfd pf = {.fd = fd, .events = events};
        int pr = poll(&pf, 1, (int)left);
        if (pr > 0) return 0;
        if (pr < 0 && errno != EINTR) return -errno;
    }
}

/* Send all of p before the deadline (fd non-blocking). */
static int write_all(int fd, const void *p, size_t n, int64_t deadline_ms) {
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return -errno;
            int rc = wait_fd(fd, POLLOUT, deadline_ms);
            if (rc) return rc;
            continue;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* ---- name lookup under a deadline ---------------------------------------------------- */

/* getaddrinfo has no timeout: a name is looked up on a helper thread that
 * the caller abandons when its time is up.  The lookup is shared by the two
 * (refs); whoever lets go last frees it, the answer included. */
typedef struct lookup {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs, g, err;
    bool done;
    struct addrinfo hints, *res;
    char host[256], port[16];
} lookup;

static lat_http_getaddrinfo_fn resolver = getaddrinfo; /* the test seam */

void lat__http_set_resolver(lat_http_getaddrinfo_fn fn) {
    resolver = fn ? fn : getaddrinfo;
}

static void lookup_put(lookup *q) {
    pthread_mutex_lock(&q->mu);
    bool last = --q->refs == 0;
    pthread_mutex_unlock(&q->mu);
    if (!last) return;
    if (q->res) freeaddrinfo(q->res);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    lat__free(q);
}

static void *lookup_main(void *arg) {
    lookup *q = arg;
    struct addrinfo *res = NULL;
    int g = resolver(q->host, q->port, &q->hints, &res), e = errno;
    pthread_mutex_lock(&q->mu);
    q->g = g;
    q->err = e;
    q->res = res;
    q->done = true;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    lookup_put(q);
    return NULL;
}

/* Start q's helper thread (signals blocked there; detached).  0 or -errno. */
static int lookup_start(lookup *q) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&q->mu, NULL);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    int rc = pthread_create(&th, &at, lookup_main, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&at);
    return -rc;
}

/* Wait for q's answer until deadline_ms: the getaddrinfo code, or
 * LOOKUP_LATE; the answer moves to *res. */
#define LOOKUP_LATE 1000
static int lookup_wait(lookup *q, int64_t deadline_ms, int *err, struct addrinfo **res) {
    struct timespec ts = {(time_t)(deadline_ms / 1000), (long)(deadline_ms % 1000) * 1000000};
    pthread_mutex_lock(&q->mu);
    while (!q->done && pthread_cond_timedwait(&q->cv, &q->mu, &ts) != ETIMEDOUT) {
    }
    int g = q->done ? q->g : LOOKUP_LATE;
    *err = q->err;
    if (q->done) *res = q->res, q->res = NULL;
    pthread_mutex_unlock(&q->mu);
    return g;
}

int lat_http_resolve(const char *host, const char *port, bool passive, int timeout_ms,
                     struct addrinfo **res) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    hints.ai_flags = (passive ? AI_PASSIVE : 0) | AI_NUMERICHOST;
    const char *h = host && *host ? host : NULL;
    *res = NULL;
    int g = getaddrinfo(h, port, &hints, res); /* a number: at once */
    if (g != EAI_NONAME || !h) return g == 0 ? 0 : g == EAI_SYSTEM ? -errno : LAT_EADDRINFO_ERR(g);
    if (strlen(h) >= sizeof((lookup *)0)->host || strlen(port) >= sizeof((lookup *)0)->port)
        return -ENAMETOOLONG;
    int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    lookup *q = lat__calloc(1, sizeof *q);
    if (!q) return -ENOMEM;
    q->hints = hints;
    q->hints.ai_flags &= ~AI_NUMERICHOST;
    strcpy(q->host, h);
    strcpy(q->port, port);
    q->refs = 2;
    int rc = lookup_start(q), err = 0;
    if (rc) {
        q->refs = 1;
        lookup_put(q);
        return rc;
    }
    g = lookup_wait(q, deadline, &err, res);
    lookup_put(q);
    if (g == LOOKUP_LATE) return -ETIMEDOUT;
    return g == 0 ? 0 : g == EAI_SYSTEM ? -err : LAT_EADDRINFO_ERR(g);
}

/* Resolve host:port (numeric or by name) and open a socket listening there
 * (passive) or connected to it before deadline_ms (mono_ms; left
 * non-blocking), or a negative errno; a failed lookup is
 * LAT_EADDRINFO_ERR(its EAI_* code). */
static int connect_to(const char *host, int port, bool passive, int64_t deadline_ms, int *fd_out) {
    struct addrinfo *res = NULL;
    char ports[16];
    snprintf(ports, sizeof ports, "%d", port);
    int tmo = deadline_ms ? (int)(deadline_ms - mono_ms()) : LAT_HTTP_RESOLVE_MS;
    int g = lat_http_resolve(host, ports, passive, tmo, &res);
    if (g != 0) return g;
    int rc = -EHOSTUNREACH;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            rc = -errno;
            continue;
        }
        if (passive) {
            int one = 1;
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 16) == 0) {
                *fd_out = fd;
                freeaddrinfo(res);
                return 0;
            }
            rc = -errno;
            close(fd);
            continue;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        int c = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : -errno;
        if (c == -EINPROGRESS && (c = wait_fd(fd, POLLOUT, deadline_ms)) == 0) {
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            c = -soerr;
        }
        if (c != 0) {
            rc = c;
            close(fd);
            continue;
        }
        *fd_out = fd;
        freeaddrinfo(res);
        return 0;
    }
    freeaddrinfo(res);
    return rc;
}

/* ---- server ------------------------------------------------------------------------------ */

/* Each connection has REQUEST_DEADLINE_MS from its accept to the last byte of
 * its answer, whatever it sends or reads meanwhile: a trickling or idle client
 * is cut off then (408 while the request is incomplete).  Up to MAX_CONNS are
 * served at once by one poll loop, none blocking another; when all are taken
 * the oldest gives way to the newcomer. */
#define REQUEST_DEADLINE_MS 2000
#define MAX_CONNS 16

typedef struct conn {
    int fd; /* -1: free */
    int64_t deadline_ms;
    size_t got; /* request bytes read */
    char *out;  /* the answer (heap), NULL while reading */
    size_t olen, off;
    char req[LAT_HTTP_MAX_REQUEST];
} conn;

struct lat_http_server {
    int fd;
    int port;
    int stop_pipe[2]; /* the destroyer writes a byte; the thread's poll wakes */
    pthread_t thread;
    lat_http_handler fn;
    void *ud;
    _Atomic uint64_t ok, refused;
    conn c[MAX_CONNS]; /* the server thread's */
};

static const char *reason(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    default:
        return "Status";
    }
}

static void conn_close(conn *c) {
    if (c->fd < 0) return;
    shutdown(c->fd, SHUT_WR);
    close(c->fd);
    c->fd = -1;
    lat__free(c->out);
    c->out = NULL;
}

/* Send what the socket takes now; close when all is sent or it failed. */
static void conn_flush(conn *c) {
    while (c->off < c->olen) {
        ssize_t w = send(c->fd, c->out + c->off, c->olen - c->off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return; /* poll says when */
        if (w <= 0) break;
        c->off += (size_t)w;
    }
    conn_close(c);
}

/* The answer (head and, unless HEAD, body) copied into the connection (the
 * handler's body is valid only until its next call), then sent as the
 * socket takes it. */
static void respond(lat_http_server *s, conn *c, const lat_http_response *r, bool head) {
    char hdr[512];
    int n = snprintf(hdr, sizeof hdr,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     r->status, reason(r->status), r->content_type ? r->content_type : "text/plain",
                     r->len);
    /* Counted before the client can see the answer, so a client that got
     * it also sees the count. */
    if (r->status >= 200 && r->status < 300)
        atomic_fetch_add_explicit(&s->ok, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&s->refused, 1, memory_order_relaxed);
    size_t blen = head ? 0 : r->len;
    c->out = lat__alloc((size_t)n + blen + 1);
    if (!c->out) {
        conn_close(c);
        return;
    }
    memcpy(c->out, hdr, (size_t)n);
    if (blen) memcpy(c->out + n, r->body, blen);
    c->olen = (size_t)n + blen;
    c->off = 0;
    conn_flush(c);
}

static void refuse(lat_http_server *s, conn *c, int status, const char *msg) {
    lat_http_response r = {.status = status, .body = msg, .len = strlen(msg)};
    respond(s, c, &r, false);
}

/* A complete request: the handler's answer, or a refusal. */
static void answer(lat_http_server *s, conn *c, const lat_http_request *req) {
    bool head = !strcmp(req->method, "HEAD");
    if (strcmp(req->method, "GET") != 0 && !head) {
        refuse(s, c, 405, "only GET\n");
        return;
    }
    lat_http_response resp = {.status = 404, .body = "not found\n", .len = 10};
    s->fn(s->ud, req, &resp);
    respond(s, c, &resp, head);
}

/* Read what the client sent; answer once the request is whole. */
static void conn_read(lat_http_server *s, conn *c) {
    for (;;) {
        if (c->got == sizeof c->req) {
            refuse(s, c, 431, "request too large\n");
            return;
        }
        ssize_t r = recv(c->fd, c->req + c->got, sizeof c->req - c->got, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (r <= 0) {
            if (r == 0 && c->got)
                refuse(s, c, 400, "incomplete request\n");
            else
                conn_close(c);
            return;
        }
        c->got += (size_t)r;
        lat_http_request req;
        int rc = lat_http_parse_request(c->req, c->got, &req);
        if (rc < 0) {
            refuse(s, c, 400, "malformed request\n");
            return;
        }
        if (rc > 0) {
            answer(s, c, &req);
            return;
        }
    }
}

/* Take a new connection into a free slot, or the oldest one's. */
static void conn_accept(lat_http_server *s, int64_t now) {
    int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    conn *slot = NULL;
    for (int i = 0; i < MAX_CONNS && !slot; i++)
        if (s->c[i].fd < 0) slot = &s->c[i];
    if (!slot) { /* all taken: the oldest gives way */
        slot = &s->c[0];
        for (int i = 1; i < MAX_CONNS; i++)
            if (s->c[i].deadline_ms < slot->deadline_ms) slot = &s->c[i];
    }
    if (slot->fd >= 0) {
        if (!slot->out) refuse(s, slot, 503, "too many connections\n");
        conn_close(slot);
    }
    slot->fd = fd;
    slot->got = 0;
    slot->deadline_ms = now + REQUEST_DEADLINE_MS;
}

/* Connections past their deadline: 408 (best effort) while reading, closed. */
static int64_t expire(lat_http_server *s, int64_t now) {
    int64_t next = -1;
    for (int i = 0; i < MAX_CONNS; i++) {
        conn *c = &s->c[i];
        if (c->fd < 0) continue;
        if (now >= c->deadline_ms) {
            if (!c->out) refuse(s, c, 408, "request timeout\n");
            conn_close(c);
            continue;
        }
        if (next < 0 || c->deadline_ms < next) next = c->deadline_ms;
    }
    return next;
}

static void *server_main(void *arg) {
    lat_http_server *s = arg;
    for (;;) {
        int64_t now = mono_ms(), next = expire(s, now);
        struct pollfd pf[MAX_CONNS + 2] = {{.fd = s->fd, .events = POLLIN},
                                           {.fd = s->stop_pipe[0], .events = POLLIN}};
        for (int i = 0; i < MAX_CONNS; i++)
            pf[i + 2] = (struct pollfd){.fd = s->c[i].fd, .events = s->c[i].out ? POLLOUT : POLLIN};
        int pr = poll(pf, MAX_CONNS + 2, next < 0 ? -1 : (int)(next - now));
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0 || (pf[1].revents & (POLLIN | POLLHUP | POLLERR))) break;
        for (int i = 0; i < MAX_CONNS; i++) {
            conn *c = &s->c[i];
            if (c->fd < 0 || pf[i + 2].fd != c->fd || !pf[i + 2].revents) continue;
            if (c->out)
                conn_flush(c);
            else
                conn_read(s, c);
        }
        if (pf[0].revents & POLLIN) conn_accept(s, mono_ms());
    }
    for (int i = 0; i < MAX_CONNS; i++)
        conn_close(&s->c[i]);
    return NULL;
}

int lat_http_server_create(const char *addr, lat_http_handler fn, void *ud, lat_http_server **out) {
    if (!addr || !fn || !out) return -EINVAL;
    char host[256];
    int port, rc;
    if ((rc = lat_http_split_addr(addr, host, sizeof host, &port)) != 0) return rc;
    lat_http_server *s = lat__calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->fd = s->stop_pipe[0] = s->stop_pipe[1] = -1;
    for (int i = 0; i < MAX_CONNS; i++)
        s->c[i].fd = -1;
    s->fn = fn;
    s->ud = ud;
    if ((rc = connect_to(host, port, true, 0, &s->fd)) != 0) goto fail;
    fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK); /* accept never blocks */
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(s->fd, (struct sockaddr *)&ss, &sl) != 0) {
        rc = -errno;
        goto fail;
    }
    s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    if (pipe2(s->stop_pipe, O_CLOEXEC) != 0) {
        rc = -errno;
        goto fail;
    }
    if ((rc = -pthread_create(&s->thread, NULL, server_main, s)) != 0) goto fail;
    *out = s;
    return 0;
fail:
    if (s->fd >= 0) close(s->fd);
    if (s->stop_pipe[0] >= 0) close(s->stop_pipe[0]);
    if (s->stop_pipe[1] >= 0) close(s->stop_pipe[1]);
    lat__free(s);
    return rc;
}

void lat_http_server_destroy(lat_http_server *s) {
    if (!s) return;
    char b = 1;
    while (write(s->stop_pipe[1], &b, 1) < 0 && errno == EINTR) {
    }
    pthread_join(s->thread, NULL);
    close(s->fd);
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
    lat__free(s);
}

int lat_http_server_port(const lat_http_server *s) {
    return s ? s->port : -1;
}

void lat_http_server_counts(const lat_http_server *s, uint64_t *ok, uint64_t *refused) {
    if (ok) *ok = atomic_load_explicit(&((lat_http_server *)s)->ok, memory_order_relaxed);
    if (refused)
        *refused = atomic_load_explicit(&((lat_http_server *)s)->refused, memory_order_relaxed);
}

/* ---- client ---------------------------------------------------------------------------- */

int lat_http_request_send(const char *host, int port, const char *method, const char *path,
                          const char *content_type, const void *body, size_t len, int timeout_ms,
                          int *status, char *err, size_t errlen) {
    char dummy[8];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    if (status) *status = 0;
    int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    bool v6 = strchr(host, ':') != NULL; /* an IPv6 address is written in brackets */
    char hp[300];
    snprintf(hp, sizeof hp, "%s%s%s:%d", v6 ? "[" : "", host, v6 ? "]" : "", port);
    int fd = -1, rc = connect_to(host, port, false, deadline, &fd);
    if (rc) {
        snprintf(err, errlen, "cannot connect to %s: %s", hp, lat_strerror(rc));
        return rc;
    }
    char hdr[1024];
    int n = snprintf(hdr, sizeof hdr,
                     "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: latlab\r\n"
                     "Content-Length: %zu\r\n%s%s%sConnection: close\r\n\r\n",
                     method, path, hp, len, content_type ? "Content-Type: " : "",
                     content_type ? content_type : "", content_type ? "\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof hdr) {
        close(fd);
        snprintf(err, errlen, "request path too long");
        return -EINVAL;
    }
    if ((rc = write_all(fd, hdr, (size_t)n, deadline)) != 0 ||
        (len && (rc = write_all(fd, body, len, deadline)) != 0)) {
        snprintf(err, errlen, "sending to %s: %s%s", hp, lat_strerror(rc),
                 rc == -ETIMEDOUT ? " (the whole request has a deadline)" : "");
        close(fd);
        return rc;
    }
    char resp[1024];
    size_t got = 0;
    for (;;) {
        ssize_t r = recv(fd, resp + got, sizeof resp - 1 - got, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            rc = wait_fd(fd, POLLIN, deadline);
            if (rc == 0) continue;
        } else if (r < 0) {
            rc = -errno;
        }
        if (r < 0) {
            int code = 0; /* a whole status line is enough when the rest is late */
            resp[got] = 0;
            if (memchr(resp, '\n', got) && sscanf(resp, "HTTP/1.%*c %d", &code) == 1) break;
            snprintf(err, errlen, "reading the answer of %s: %s%s", hp, lat_strerror(rc),
                     rc == -ETIMEDOUT ? " (the whole request has a deadline)" : "");
            close(fd);
            return rc;
        }
        if (r == 0) break;
        got += (size_t)r;
        if (got == sizeof resp - 1) break;
    }
    close(fd);
    resp[got] = 0;
    int code = 0;
    if (sscanf(resp, "HTTP/1.%*c %d", &code) != 1 || code < 100 || code > 999) {
        snprintf(err, errlen, "%s answered something that is not HTTP", hp);
        return LAT_EHTTP;
    }
    if (status) *status = code;
    if (code >= 200 && code < 300) return 0;
    const char *b = strstr(resp, "\r\n\r\n");
    b = b ? b + 4 : "";
    char line[200];
    snprintf(line, sizeof line, "%s", b);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    snprintf(err, errlen, "%s %s on %s answered %d: %s", method, path, hp, code, line);
    return LAT_EHTTP;
}
