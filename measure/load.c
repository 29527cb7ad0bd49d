/* load.c - the open-loop engine of `latlab load`.  See load.h.
 *
 * One loop on one thread: read the cycle counter; when the next intended send
 * time has come, send it on a connection with room (else it waits, and every
 * later one behind it); otherwise poll epoll (without blocking, unless nothing
 * can go out before a response) and parse what arrived.  Due requests are not queued anywhere: the
 * schedule's position is the queue (everything due and unsent is behind it), so memory is fixed.
 * Each connection keeps a FIFO of its in-flight requests' stamps (intended and
 * actual send), as long as the in-flight cap.  Counters other threads read are
 * relaxed atomics written by this thread alone (a load and a store, no
 * locked add; each an independent figure); the histograms go through
 * lat_hist_recorder, whose phaser supplies the pairing with the reader. */
#include "latlab/load.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <jansson.h>

#include "latlab/clock.h"
#include "latlab/gaps.h"
#include "latlab/loadtarget.h"
#include "latlab/loadh2.h"
#include "latlab/loadtls.h"
#include "latlab/platform.h"

#define HIST_HIGHEST 3600000000000ll /* 1 hour in ns */
#define RBUF 65536
#define NEVENTS 64
#define GAP_RING 64
#define WAIT_RING 1024
#define CONNECT_NS 2000000000ull /* a connect not done by then failed */

/* The reservoirs' random stream (the schedule's own: loadsched.c). */
static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static ssize_t io(void *cv, uint8_t *b, size_t n, bool out);
static void h2_done(void *lv, void *cv, unsigned slot, int res);

/* ---- state --------------------------------------------------------------------------- */

const char *lat_load_err_name(lat_load_err k) {
    static const char *const n[] = {"refused",    "reset",      "closed",  "malformed",
                                    "oversized",  "timeout",    "aborted", "unsent",
                                    "unanswered", "rst_stream", "goaway"};
    return (unsigned)k < LAT_LOAD_NERR ? n[k] : "?";
}

typedef struct reservoir {
    double *v; /* cap * w values */
    size_t n, w;
    uint64_t seen;
} reservoir;

/* A send() runs the network stack (on loopback the receiver's too, inline):
 * 5-20 us on a 2-vCPU guest, its own work, not a gap.  One that takes
 * SEND_GAP_MIN gap thresholds (40 us at the default 10 us) and SEND_GAP_MULT
 * times the mean of the sends before it was taken: the rest beyond that mean
 * is noted as a gap.  The send right after a long gap is the usual case
 * (56-93 us here, where 10-20 are the rule: the vCPU comes back cold), and
 * without counting it the requests that gap made late read a lag of the gap
 * plus it, more than the gap explains, and stayed in the lag (0.2-1.8 ms). */
#define SEND_GAP_MIN 4
#define SEND_GAP_MULT 3

typedef struct stamp {
    uint64_t intended, sent, t_ns; /* cycles; t_ns: intended, ns from the start (exact) */
    bool censored;                 /* sent late because of the sending thread's platform gaps */
    uint16_t target;               /* cfg.targets: the one it went to */
} stamp;

enum { C_DOWN, C_CONNECTING, C_HANDSHAKE, C_UP }; /* C_HANDSHAKE: TLS (loadtls.h) */

typedef struct conn {
    int fd, state;
    unsigned inflight, head; /* FIFO of stamps: [head, head + inflight) mod cap */
    stamp *q;
    uint8_t *out; /* the unsent rest of a partial write */
    size_t out_len, out_off;
    uint64_t retry_at; /* C_DOWN: cycles of the next connect attempt; C_CONNECTING: its deadline */
    lat_loadproto_state ps;
    lat_loadtls_conn *tls; /* cfg.tls: the connection's TLS, from its TCP connect on */
    lat_loadh2_conn *h2;   /* cfg.http2: its session (stamps by slot, not FIFO) */
} conn;

typedef struct acounts { /* the atomic mirror of lat_load_counts */
    _Atomic uint64_t v[sizeof(lat_load_counts) / sizeof(uint64_t)];
} acounts;

struct lat_load {
    lat_load_cfg cfg;
    const lat_clock_cal *cal;
    conn *conns;
    int ep;
    uint8_t *req;  /* the request being sent (key digits rewritten per request) */
    uint8_t *rbuf; /* one read buffer for every connection */
    lat_hist_recorder rec[LAT_LOAD_NSERIES];
    lat_gaps *gaps;
    acounts c;
    atomic_bool stop;
    reservoir ia;    /* inter-arrival times of actual sends, ns */
    reservoir pairs; /* (latency, next completion's latency), ns */
    double last_latency;
    uint64_t rng, last_send;
    bool last_censored;
    uint64_t late_cycles; /* cfg.late_ns in cycles */
    uint64_t inflight;    /* requests in flight on every connection */
    uint64_t down_since;  /* cycles since when no connection is up (0: some is) */
    unsigned rr, up;      /* round-robin cursor; connections up */
    int conn_err;         /* the last connect's error (errno), for a run that cannot go on */
    uint64_t room;        /* bumped when a connection may have gained room */
    /* Waits on the service: a due request found every connection at its cap
     * with no response left to read (full_at, blocked) until one gained room.
     * The recent ones, with their running total, in a ring: blocked_within
     * reads how much of a request's delay they took. */
    bool blocked;
    uint64_t full_at;
    struct wait_span {
        uint64_t start, end, total; /* cycles; total: every wait's up to this one's end */
    } waits[WAIT_RING];
    uint64_t waits_n, waits_tail, waits_total;
    bool gap_backlog;   /* the last send was late because of a platform gap */
    uint64_t late_from; /* cycles: the first of the current run of late sends
                           was ready then (0: the last send was on time) */
    uint64_t send_mean; /* cycles: a send()'s, its gaps not counted (a running mean, 1/64) */
    lat_gap gap_ring[GAP_RING]; /* the latest gaps, for gap_overlap */
    uint64_t gap_n;
    uint64_t t0;                /* cycles: the run's start, where run_ns starts (see note_gap) */
    lat_loadsched_steps *steps; /* the run step by step, by intended time */
    /* events epoll_wait returned and not yet handled: the spinning loop
     * takes one at a time, so a due send waits for one event's work, not a
     * batch's (64 responses read and parsed: ~200 us at 3 us each) */
    struct epoll_event ev[NEVENTS];
    int ev_n, ev_i;
    lat_loadh2 *h2; /* cfg.http2 */
};

#define CIDX(f) (offsetof(lat_load_counts, f) / sizeof(uint64_t))
/* One writer (the sending thread): a relaxed load and store, no locked add. */
#define CADD(l, f, n)                                                                              \
    atomic_store_explicit(&(l)->c.v[CIDX(f)],                                                      \
                          atomic_load_explicit(&(l)->c.v[CIDX(f)], memory_order_relaxed) + (n),    \
                          memory_order_relaxed)
#define CSET(l, f, n) atomic_store_explicit(&(l)->c.v[CIDX(f)], (n), memory_order_relaxed)
#define CGET(l, f) atomic_load_explicit(&(l)->c.v[CIDX(f)], memory_order_relaxed)

const lat_loadsched_steps *lat_load_steps(const lat_load *l) {
    return l->steps;
}

void lat_load_counts_get(const lat_load *l, lat_load_counts *out) {
    uint64_t *o = (uint64_t *)out;
    for (size_t i = 0; i < sizeof(lat_load_counts) / sizeof(uint64_t); i++)
        o[i] = atomic_load_explicit(&((lat_load *)l)->c.v[i], memory_order_relaxed);
}

int lat_load_hist_init(lat_hist *h) {
    return lat_hist_init(h, 1, HIST_HIGHEST, 3);
}

void lat_load_destroy(lat_load *l) {
    if (!l) return;
    for (unsigned i = 0; l->conns && i < l->cfg.connections; i++) {
        if (l->conns[i].fd >= 0) close(l->conns[i].fd);
        free(l->conns[i].q);
        free(l->conns[i].out);
    }
    free(l->conns);
    lat_loadh2_destroy(l->h2);
    if (l->ep >= 0) close(l->ep);
    for (int k = 0; k < LAT_LOAD_NSERIES; k++)
        lat_hist_recorder_fini(&l->rec[k]);
    lat_gaps_destroy(l->gaps);
    lat_loadsched_steps_destroy(l->steps);
    free(l->req);
    free(l->rbuf);
    free(l->ia.v);
    free(l->pairs.v);
    free(l);
}

static int check_cfg(const lat_load_cfg *c) {
    if (!c->proto || !(c->rate_hz > 0) || !isfinite(c->rate_hz) || !c->connections ||
        !c->max_inflight || !c->addr_len || c->addr_len > sizeof c->addr ||
        (c->http2 && c->proto->kind != LAT_LOADPROTO_HTTP) ||
        (c->arrivals != LAT_LOAD_CONSTANT && c->arrivals != LAT_LOAD_POISSON &&
         !(c->arrivals == LAT_LOAD_REPLAY && c->replay_next)))
        return -EINVAL;
    return 0;
}

int lat_load_create(const lat_load_cfg *cfg, lat_load **out) {
    if (!cfg || !out || check_cfg(cfg)) return -EINVAL;
    lat_load *l = calloc(1, sizeof *l);
    if (!l) return -ENOMEM;
    l->cfg = *cfg;
    l->ep = -1;
    if (!l->cfg.timeout_ns) l->cfg.timeout_ns = 10000000000ull;
    if (!l->cfg.gap_ns) l->cfg.gap_ns = LAT_GAPS_DEFAULT_NS;
    if (!l->cfg.late_ns) l->cfg.late_ns = l->cfg.gap_ns;
    if (!l->cfg.arrival_samples) l->cfg.arrival_samples = 1000;
    l->cal = lat_clock_default();
    l->rng = cfg->seed ^ 0x5deece66dull;
    int rc = -ENOMEM;
    size_t rl = cfg->proto->req_len, tl = cfg->targets ? lat_loadtarget_req_max(cfg->targets) : 0;
    if (tl > rl) rl = tl; /* the longest request sent */
    l->conns = calloc(cfg->connections, sizeof *l->conns);
    l->req = malloc(rl ? rl : 1);
    l->rbuf = malloc(RBUF);
    l->ia = (reservoir){malloc(l->cfg.arrival_samples * sizeof(double)), 0, 1, 0};
    l->pairs = (reservoir){malloc(l->cfg.arrival_samples * 2 * sizeof(double)), 0, 2, 0};
    l->last_latency = -1;
    if (!l->conns || !l->req || !l->rbuf || !l->ia.v || !l->pairs.v) goto fail;
    memcpy(l->req, cfg->proto->req, cfg->proto->req_len);
    for (unsigned i = 0; i < cfg->connections; i++) {
        conn *c = &l->conns[i];
        c->fd = -1;
        c->q = calloc(cfg->max_inflight, sizeof *c->q);
        c->out = malloc(rl ? rl : 1);
        if (!c->q || !c->out) goto fail;
    }
    for (int k = 0; k < LAT_LOAD_NSERIES; k++)
        if ((rc = lat_hist_recorder_init(&l->rec[k], 1, HIST_HIGHEST, 3))) goto fail;
    l->late_cycles = lat_clock_from_ns(l->cal, l->cfg.late_ns);
    uint64_t thr = lat_clock_from_ns(l->cal, l->cfg.gap_ns);
    if ((rc = lat_gaps_create(0, thr ? thr : 1, &l->gaps))) goto fail;
    if ((rc = lat_loadsched_steps_create(&cfg->plan, cfg->duration_ns, &l->steps))) goto fail;
    lat_loadh2_cb h2cb = {io, h2_done, l};
    if (cfg->http2 &&
        (rc = lat_loadh2_create(cfg->proto, cfg->tls, cfg->max_inflight, &h2cb, &l->h2)))
        goto fail;
    for (unsigned i = 0; l->h2 && cfg->targets && i < lat_loadtarget_count(cfg->targets); i++)
        if ((rc = lat_loadh2_add_request(l->h2, lat_loadtarget_proto(cfg->targets, i))) < 0)
            goto fail; /* request i + 1: target i's */
    if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        rc = -errno;
        goto fail;
    }
    *out = l;
    return 0;
fail:
    lat_load_destroy(l);
    return rc;
}

void lat_load_stop(lat_load *l) {
    if (l) atomic_store_explicit(&l->stop, true, memory_order_relaxed);
}

int lat_load_interval(lat_load *l, lat_hist *const h[LAT_LOAD_NSERIES]) {
    for (int k = 0; k < LAT_LOAD_NSERIES; k++) {
        if (!h[k]) continue;
        int rc = lat_hist_recorder_interval(&l->rec[k], h[k]);
        if (rc) return rc;
    }
    return 0;
}

size_t lat_load_interarrivals(const lat_load *l, const double **out) {
    if (out) *out = l->ia.v;
    return l->ia.n;
}

size_t lat_load_latency_pairs(const lat_load *l, const double **out) {
    if (out) *out = l->pairs.v;
    return l->pairs.n;
}

/* ---- connections --------------------------------------------------------------------- */

static uint64_t cyc(const lat_load *l, uint64_t ns) {
    return lat_clock_from_ns(l->cal, ns);
}
static int64_t ns_of(const lat_load *l, uint64_t cycles) {
    return (int64_t)lat_clock_to_ns(l->cal, cycles);
}

static void watch(lat_load *l, conn *c, int op, uint32_t events) {
    struct epoll_event ev = {.events = events, .data.ptr = c};
    epoll_ctl(l->ep, op, c->fd, &ev);
}

/* A connection may have gained room (a response, a flushed send, one more up). */
static void gained_room(lat_load *l, uint64_t now) {
    l->room++;
    if (!l->blocked) return;
    l->blocked = false;
    l->waits_total += now - l->full_at;
    l->waits[l->waits_n++ % WAIT_RING] = (struct wait_span){l->full_at, now, l->waits_total};
}

/* Cycles spent waiting on the service in [from, now] (from non-decreasing
 * from call to call: requests go out in schedule order).  Waits older than
 * the ring are not counted (the rest of the delay is then lag). */
static uint64_t blocked_within(lat_load *l, uint64_t from) {
    if (l->waits_n - l->waits_tail > WAIT_RING) l->waits_tail = l->waits_n - WAIT_RING;
    while (l->waits_tail < l->waits_n && l->waits[l->waits_tail % WAIT_RING].end <= from)
        l->waits_tail++;
    if (l->waits_tail == l->waits_n) return 0;
    const struct wait_span *w = &l->waits[l->waits_tail % WAIT_RING];
    uint64_t before = w->total - (w->end - w->start) + (from > w->start ? from - w->start : 0);
    return l->waits_total - before;
}

/* Start a connection: C_UP, C_CONNECTING, or an error (c stays C_DOWN). */
static int conn_open(lat_load *l, conn *c) {
    int fd = socket(l->cfg.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *c = (conn){.fd = fd, .state = C_DOWN, .q = c->q, .out = c->out};
    /* up at once or later, epoll says so (writable: conn_connected) */
    if (!connect(fd, (struct sockaddr *)&l->cfg.addr, l->cfg.addr_len) || errno == EINPROGRESS) {
        c->state = C_CONNECTING;
        c->retry_at = lat_cycles() + cyc(l, CONNECT_NS); /* its deadline, TLS's handshake's too */
        watch(l, c, EPOLL_CTL_ADD, EPOLLOUT);
        return 0;
    }
    int rc = -errno;
    l->conn_err = errno;
    close(fd);
    c->fd = -1;
    return rc;
}

static void conn_close(lat_load *l, conn *c, uint64_t retry_at) {
    if (c->state == C_UP) l->up--;
    lat_loadtls_conn_end(c->tls);
    lat_loadh2_conn_end(c->h2);
    c->tls = NULL, c->h2 = NULL;
    if (c->fd >= 0) {
        epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = -1;
    c->state = C_DOWN;
    c->retry_at = retry_at;
    for (int i = l->ev_i; i < l->ev_n; i++) /* its pending events name a closed fd */
        if (l->ev[i].data.ptr == c) l->ev[i].events = 0;
}

/* Every request in flight on c failed with kind; the connection is reopened
 * at the next housekeeping. */
static void conn_fail(lat_load *l, conn *c, lat_load_err kind, uint64_t now) {
    uint64_t n = c->inflight;
    if (n) {
        CADD(l, errors[kind], n);
        CADD(l, failed, n);
        l->inflight -= c->inflight;
    } else if (kind == LAT_LOAD_CLOSED || kind == LAT_LOAD_RESET) {
        CADD(l, closed_idle, 1);
    } else {
        CADD(l, errors[kind], 1); /* bytes nobody asked for */
    }
    c->inflight = 0;
    conn_close(l, c, now);
}

/* A connection that could not open (its connect or its TLS handshake failed
 * with err): counted, tried again in 10 ms.  Returns err. */
static int conn_refused(lat_load *l, conn *c, uint64_t now, int err) {
    CADD(l, errors[LAT_LOAD_REFUSED], 1);
    l->conn_err = err;
    conn_close(l, c, now + cyc(l, 10000000));
    return err;
}

/* TCP is up: the connection takes requests, or (cfg.tls) starts or goes on
 * with its handshake, watching what TLS waits for.  0 or the errno it failed with. */
static int conn_ready(lat_load *l, conn *c, uint64_t now) {
    int k = 0;
    if (l->cfg.tls && !c->tls && lat_loadtls_conn_start(l->cfg.tls, c->fd, &c->tls)) k = -ENOMEM;
    if (!k && c->tls && !c->h2) k = lat_loadtls_handshake(c->tls);
    if (!k && l->h2 && !c->h2 && lat_loadh2_conn_start(l->h2, c, &c->h2)) k = -ENOMEM;
    if (!k && c->h2) k = lat_loadh2_pump(c->h2, l->rbuf, RBUF, c->state == C_HANDSHAKE);
    if (k < 0) return conn_refused(l, c, now, -k);
    c->state = k ? C_HANDSHAKE : C_UP;
    watch(l, c, EPOLL_CTL_MOD, k == LAT_LOADTLS_WANT_WRITE ? EPOLLOUT : EPOLLIN);
    if (k) return 0;
    l->up++;
    gained_room(l, now);
    return 0;
}

/* A connection finished connecting (or failed to), or its handshake went on: 0 or the
 * errno it failed with. */
static int conn_connected(lat_load *l, conn *c, uint64_t now) {
    int err = 0;
    socklen_t sl = sizeof err;
    if (c->state == C_CONNECTING && (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl) || err))
        return conn_refused(l, c, now, err ? err : EIO);
    return conn_ready(l, c, now);
}

/* Connections not ready for the schedule: not up, or (handshake_in_latency) not handshaking. */
static unsigned not_ready(const lat_load *l) {
    unsigned k = 0;
    for (unsigned i = 0; i < l->cfg.connections; i++)
        k += l->conns[i].state != C_UP &&
             !(l->conns[i].state == C_HANDSHAKE && lat_loadtls_in_latency(l->cfg.tls));
    return k;
}

/* Open every connection and wait (up to 2 s) until all are up: 0 or the
 * first failure. */
static int connect_all(lat_load *l) {
    unsigned n = l->cfg.connections;
    for (unsigned i = 0; i < n; i++) {
        int rc = conn_open(l, &l->conns[i]);
        if (rc) {
            CADD(l, errors[LAT_LOAD_REFUSED], 1);
            return rc;
        }
    }
    uint64_t deadline = lat_mono_ns() + CONNECT_NS;
    while (not_ready(l)) {
        struct epoll_event ev[NEVENTS];
        int k = epoll_wait(l->ep, ev, NEVENTS, 100);
        for (int i = 0; i < k; i++) {
            conn *c = ev[i].data.ptr;
            if (c->state != C_CONNECTING && c->state != C_HANDSHAKE) continue;
            int err = conn_connected(l, c, lat_cycles());
            if (err) return -err;
        }
        if (lat_mono_ns() > deadline) {
            CADD(l, errors[LAT_LOAD_REFUSED], 1);
            return -ETIMEDOUT;
        }
    }
    return 0;
}

/* ---- requests and responses --------------------------------------------------------- */

/* Keep a uniform sample of what is offered (Algorithm R): w values at a time. */
static void keep(lat_load *l, reservoir *r, const double *v) {
    uint64_t seen = r->seen++;
    size_t at = r->n;
    if (r->n < l->cfg.arrival_samples)
        r->n++;
    else if (splitmix(&l->rng) % (seen + 1) < l->cfg.arrival_samples)
        at = splitmix(&l->rng) % l->cfg.arrival_samples;
    else
        return;
    memcpy(r->v + at * r->w, v, r->w * sizeof *v);
}

static void complete(lat_load *l, conn *c, uint64_t now, unsigned at, bool error_reply) {
    stamp s = c->q[at];
    if (!c->h2) c->head = c->head + 1 == l->cfg.max_inflight ? 0 : c->head + 1;
    c->inflight--;
    l->inflight--;
    gained_room(l, now);
    int64_t lat = ns_of(l, now - s.intended);
    if (l->last_latency >= 0) keep(l, &l->pairs, (double[2]){l->last_latency, (double)lat});
    l->last_latency = (double)lat;
    lat_loadsched_steps_completed(l->steps, s.t_ns, lat, s.censored);
    if (s.censored) {
        lat_hist_recorder_record(&l->rec[LAT_LOAD_CENSORED], lat);
    } else {
        lat_hist_recorder_record(&l->rec[LAT_LOAD_LATENCY], lat);
        lat_hist_recorder_record(&l->rec[LAT_LOAD_SERVICE], ns_of(l, now - s.sent));
    }
    CADD(l, completed, 1);
    if (error_reply) CADD(l, error_replies, 1);
    if (l->cfg.targets) lat_loadtarget_done(l->cfg.targets, s.target, lat, s.censored, error_reply);
}

/* HTTP/2: a stream ended (loadh2.h: complete, or failed by kind), or an event. */
static void h2_done(void *lv, void *cv, unsigned slot, int res) {
    static const lat_load_err kind[] = {LAT_LOAD_RSTSTREAM, LAT_LOAD_GOAWAY, LAT_LOAD_OVERSIZED};
    lat_load *l = lv;
    conn *c = cv;
    if (slot == LAT_LOADH2_NO_SLOT) {
        CADD(l, goaways, res == LAT_LOADH2_EV_GOAWAY),
            CADD(l, flow_stalls, res == LAT_LOADH2_EV_STALL);
    } else if (res < 0) {
        complete(l, c, lat_cycles(), slot, res == LAT_LOADH2_ERROR_REPLY);
    } else {
        CADD(l, errors[kind[res]], 1), CADD(l, failed, 1);
        c->inflight--, l->inflight--;
        gained_room(l, lat_cycles());
    }
}

/* HTTP/2: the connection's socket is ready: read, feed, write. */
static void h2_pump(lat_load *l, conn *c, uint32_t ev) {
    int k = lat_loadh2_pump(c->h2, l->rbuf, RBUF, ev & (EPOLLIN | EPOLLERR | EPOLLHUP));
    if (k > 0)
        watch(l, c, EPOLL_CTL_MOD, k == LAT_LOADH2_WANT_WRITE ? EPOLLIN | EPOLLOUT : EPOLLIN);
    lat_load_err why = k == -ECONNRESET ? LAT_LOAD_RESET : k == -EPROTO ? LAT_LOAD_MALFORMED : 0;
    if (k < 0) conn_fail(l, c, why ? why : LAT_LOAD_CLOSED, lat_cycles());
}

/* read(2) or send(MSG_NOSIGNAL), or through TLS: their contract (-1, errno). */
static ssize_t io(void *cv, uint8_t *b, size_t n, bool out) {
    conn *c = cv;
    if (!c->tls) return out ? send(c->fd, b, n, MSG_NOSIGNAL) : read(c->fd, b, n);
    ssize_t k = out ? lat_loadtls_write(c->tls, b, n) : lat_loadtls_read(c->tls, b, n);
    return k < 0 ? (errno = (int)-k, -1) : k;
}

static void on_readable(lat_load *l, conn *c) {
    ssize_t n = io(c, l->rbuf, RBUF, false);
    uint64_t now = lat_cycles(); /* one stamp for every response in this read */
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        conn_fail(l, c, n < 0 && errno == ECONNRESET ? LAT_LOAD_RESET : LAT_LOAD_CLOSED, now);
        return;
    }
    for (size_t off = 0; off < (size_t)n;) {
        size_t used = 0;
        int rc = lat_loadproto_feed(l->cfg.proto, &c->ps, l->rbuf + off, (size_t)n - off, &used);
        if (rc < 0) {
            conn_fail(l, c, rc == -EMSGSIZE ? LAT_LOAD_OVERSIZED : LAT_LOAD_MALFORMED, now);
            return;
        }
        if (rc == LAT_LOADPROTO_MORE) break;
        off += used;
        if (!c->inflight) {
            conn_fail(l, c, LAT_LOAD_MALFORMED, now);
            return;
        }
        complete(l, c, now, c->head, c->ps.error_reply);
        if (c->ps.close) { /* "Connection: close": reopen before sending more */
            conn_fail(l, c, LAT_LOAD_CLOSED, now);
            return;
        }
    }
}

static void flush_out(lat_load *l, conn *c) {
    ssize_t n = io(c, c->out + c->out_off, c->out_len - c->out_off, true);
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR)
            conn_fail(l, c, errno == ECONNRESET ? LAT_LOAD_RESET : LAT_LOAD_CLOSED, lat_cycles());
        return;
    }
    c->out_off += (size_t)n;
    if (c->out_off == c->out_len) {
        c->out_len = c->out_off = 0;
        gained_room(l, lat_cycles());
        watch(l, c, EPOLL_CTL_MOD, EPOLLIN);
    }
}

static void on_event(lat_load *l, conn *c, uint32_t ev) {
    if (c->state == C_CONNECTING || c->state == C_HANDSHAKE) {
        conn_connected(l, c, lat_cycles());
        return;
    }
    if (c->state != C_UP) return;
    if (c->h2) h2_pump(l, c, ev);
    if (c->h2) return;
    if ((ev & EPOLLOUT) && c->out_len) flush_out(l, c);
    if (c->state == C_UP && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))) on_readable(l, c);
}

/* Handle one pending event, fetching more (waiting up to timeout_ms) when
 * none is pending: false when there was none. */
static bool next_event(lat_load *l, int timeout_ms) {
    if (l->ev_i == l->ev_n) {
        int n = epoll_wait(l->ep, l->ev, NEVENTS, timeout_ms);
        l->ev_n = n > 0 ? n : 0;
        l->ev_i = 0;
        if (n <= 0) return false;
    }
    const struct epoll_event *e = &l->ev[l->ev_i++];
    if (e->events) on_event(l, e->data.ptr, e->events);
    return true;
}

/* Handle every pending event, or what one epoll_wait returns: false when
 * there was none. */
static bool poll_events(lat_load *l, int timeout_ms) {
    if (!next_event(l, timeout_ms)) return false;
    while (l->ev_i < l->ev_n)
        next_event(l, 0);
    return true;
}

static conn *free_conn(lat_load *l) {
    unsigned n = l->cfg.connections;
    for (unsigned k = 0; k < n; k++) {
        unsigned i = l->rr + k < n ? l->rr + k : l->rr + k - n;
        conn *c = &l->conns[i];
        if (c->state == C_UP && c->inflight < l->cfg.max_inflight && !c->out_len &&
            (!c->h2 || lat_loadh2_room(c->h2))) {
            l->rr = i + 1 == n ? 0 : i + 1;
            return c;
        }
    }
    return NULL;
}

/* The inter-arrival from the previous send, sampled when neither send was
 * censored: a gap's late requests go out back to back, and those near-zero
 * inter-arrivals are the platform's, not the schedule's.  Sender gaps fall
 * independently of the schedule, so the pairs left are the schedule's own
 * (a gap between two sends that were both on time removes neither). */
static void sample_arrival(lat_load *l, uint64_t now, bool censored) {
    if (l->last_send && !censored && !l->last_censored) {
        double d = (double)ns_of(l, now - l->last_send);
        keep(l, &l->ia, &d);
    }
    l->last_send = now;
    l->last_censored = censored;
}

/* Cycles of platform gaps since `from` (the recent ones kept in the ring). */
static uint64_t gap_overlap(const lat_load *l, uint64_t from) {
    uint64_t sum = 0;
    for (unsigned k = 0; k < GAP_RING && k < l->gap_n; k++) {
        const lat_gap *g = &l->gap_ring[(l->gap_n - 1 - k) % GAP_RING];
        if (g->start + g->len <= from) break;
        sum += g->start >= from ? g->len : g->start + g->len - from;
    }
    return sum;
}

/* Send request seq, arrival `arrival` of the schedule (intended at `intended` cycles) on c:
 * 0, or -1 when the connection failed (the request was not sent; it stays due). */
static int send_req(lat_load *l, conn *c, uint64_t seq, uint64_t arrival, uint64_t intended,
                    uint64_t t_ns) {
    size_t len = l->cfg.proto->req_len;
    unsigned tg = 0; /* cfg.targets: the one the arrival picks, its own request's bytes */
    uint8_t *req = l->cfg.targets ? (uint8_t *)lat_loadtarget_request(l->cfg.targets, l->cfg.seed,
                                                                      arrival, &tg, &len)
                                  : l->req;
    if (!l->cfg.targets) lat_loadproto_request(l->cfg.proto, seq, l->req);
    uint64_t now = lat_cycles();
    int slot = c->h2 ? lat_loadh2_submit(c->h2, l->cfg.targets ? tg + 1 : 0) : -1; /* a stream */
    if (c->h2 && lat_loadh2_blocked(c->h2)) watch(l, c, EPOLL_CTL_MOD, EPOLLIN | EPOLLOUT);
    ssize_t n = !c->h2 ? io(c, req, len, true) : slot < 0 ? (errno = -slot, -1) : (ssize_t)len;
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR) {
            conn_fail(l, c, errno == ECONNRESET ? LAT_LOAD_RESET : LAT_LOAD_CLOSED, now);
            return -1;
        }
        n = 0;
    }
    if ((size_t)n < len) {
        memcpy(c->out, req + n, len - (size_t)n);
        c->out_len = len - (size_t)n;
        c->out_off = 0;
        watch(l, c, EPOLL_CTL_MOD, EPOLLIN | EPOLLOUT);
    }
    c->inflight++;
    l->inflight++;
    /* Its delay, split: while the generator waited on the service for at
     * least half of it, the service (or the connections) held the queue:
     * everything up to the end of the last wait is the wait, and only the
     * time since (its reaction) is lag.  Otherwise the generator was the
     * slower side: only the waits themselves are the wait, the rest lag. */
    uint64_t delay = now > intended ? now - intended : 0;
    uint64_t wait = delay ? blocked_within(l, intended) : 0;
    if (wait && 2 * wait >= delay) /* the last wait (in the ring) ended after intended */
        wait = l->waits[(l->waits_n - 1) % WAIT_RING].end - intended;
    if (wait > delay) wait = delay;
    uint64_t ready = intended + wait, lag = delay - wait;
    CADD(l, sent, 1);
    if (l->cfg.targets) lat_loadtarget_sent(l->cfg.targets, tg);
    if (lag > l->late_cycles) {
        CADD(l, late, 1);
        /* Late because of gaps: the platform took at least its lag (less
         * late_ns) from the sending thread since the first of the run of
         * late sends it belongs to was ready, so without those gaps it, and
         * the backlog they left, would have gone out on time.  A sender that
         * cannot keep its rate runs later than its gaps explain: that
         * lateness is its own. */
        if (!l->late_from) l->late_from = ready;
        l->gap_backlog = gap_overlap(l, l->late_from) + l->late_cycles >= lag;
        if (l->gap_backlog)
            CADD(l, late_gap, 1);
        else if (l->waits_n && l->late_from <= l->waits[(l->waits_n - 1) % WAIT_RING].end)
            CADD(l, late_wait, 1); /* the backlog a wait left, going out one send at a time */
    } else {
        l->gap_backlog = false;
        l->late_from = 0;
    }
    /* censored: the platform, not the generator or the service, set its
     * latency; its lag and wait stay out of theirs too */
    if (!l->gap_backlog) {
        lat_hist_recorder_record(&l->rec[LAT_LOAD_LAG], ns_of(l, lag));
        lat_hist_recorder_record(&l->rec[LAT_LOAD_WAIT], ns_of(l, wait));
    }
    lat_loadsched_steps_sent(l->steps, t_ns, ns_of(l, now - l->t0), ns_of(l, lag), ns_of(l, wait),
                             l->gap_backlog);
    unsigned t = slot >= 0 ? (unsigned)slot : c->head + c->inflight - 1;
    c->q[t >= l->cfg.max_inflight ? t - l->cfg.max_inflight : t] =
        (stamp){intended, now, t_ns, l->gap_backlog, (uint16_t)tg};
    sample_arrival(l, now, l->gap_backlog);
    return 0;
}

/* ---- the loop ------------------------------------------------------------------------ */

typedef struct run {
    lat_loadsched s;
    uint64_t t0, next, seq; /* cycles of the start and of the next intended send */
    uint64_t next_ns;       /* the next intended send, ns from the start */
    uint64_t end, deadline; /* cycles: the schedule's end; the run's (end + timeout, or a
                               stop's grace) */
    uint64_t total;         /* requests in the schedule (rate x duration: an estimate but
                               for constant arrivals), the backlog's bound */
    uint64_t room_seen;     /* l->room when every connection was last found full */
    bool done, due_counted, waiting;
    bool stopping; /* lat_load_stop seen: nothing more is scheduled */
} run;

static void advance(lat_load *l, run *r) {
    uint64_t t = l->cfg.arrivals == LAT_LOAD_REPLAY ? l->cfg.replay_next(l->cfg.replay_ud)
                                                    : lat_loadsched_next(&r->s);
    if (t != UINT64_MAX) t += l->cfg.offset_ns;
    r->due_counted = r->waiting = false;
    if (t >= l->cfg.duration_ns)
        r->done = true;
    else
        lat_loadsched_steps_scheduled(l->steps, r->next_ns = t), r->next = r->t0 + cyc(l, t);
}

/* Every request due by now and not sent fails as kind: the count (the
 * backlog it was, noted as such). */
static uint64_t drop_due(lat_load *l, run *r, uint64_t now, lat_load_err kind) {
    uint64_t n = 0, sched = 0;
    while (!r->done && r->next <= now) {
        sched += !r->due_counted;
        n++;
        advance(l, r);
    }
    if (!n) return 0;
    CADD(l, scheduled, sched);
    CADD(l, errors[kind], n);
    CADD(l, failed, n);
    if (n > CGET(l, backlog_max)) CSET(l, backlog_max, n);
    return n;
}

/* A stop, once seen: what is due and unsent fails as unsent, nothing more is
 * scheduled, and what is in flight has the grace (at most the timeout) to
 * complete. */
static void stop_seen(lat_load *l, run *r, uint64_t now) {
    bool cut = !r->done;
    cut |= drop_due(l, r, now, LAT_LOAD_UNSENT) > 0;
    r->done = r->stopping = true;
    if (cut) CSET(l, stopped, 1);
    uint64_t grace =
        LAT_LOAD_STOP_GRACE_NS < l->cfg.timeout_ns ? LAT_LOAD_STOP_GRACE_NS : l->cfg.timeout_ns;
    if (now + cyc(l, grace) < r->deadline) r->deadline = now + cyc(l, grace);
}

/* The deadline: whatever was never sent fails as unsent, whatever is in
 * flight as a timeout (its latency is over the timeout by now: its intended
 * time is before the schedule's end), or after a stop as unanswered. */
static void deadline_reached(lat_load *l, run *r, uint64_t now) {
    uint64_t n = drop_due(l, r, now, LAT_LOAD_UNSENT) + l->inflight;
    for (unsigned i = 0; i < l->cfg.connections; i++)
        if (l->conns[i].inflight)
            conn_fail(l, &l->conns[i], r->stopping ? LAT_LOAD_UNANSWERED : LAT_LOAD_TIMEOUT, now);
    r->done = true;
    if (n && r->stopping)
        CSET(l, stopped, 1);
    else if (n)
        CSET(l, deadline, 1);
}

/* Once a millisecond: timeouts, reopening, a stop, the deadline, the counters
 * others read.  Returns the last connect's error (or -EIO) when no connection
 * has been up for a second. */
static int housekeep(lat_load *l, run *r, uint64_t now) {
    uint64_t tmo = cyc(l, l->cfg.timeout_ns);
    for (unsigned i = 0; i < l->cfg.connections; i++) {
        conn *c = &l->conns[i];
        unsigned o = c->h2 ? lat_loadh2_oldest(c->h2) : c->head; /* the oldest in flight */
        if (c->state == C_UP && c->inflight && now > c->q[o].sent &&
            now - c->q[o].sent > tmo) /* (now may be from before a send) */
            conn_fail(l, c, LAT_LOAD_TIMEOUT, now);
        if ((c->state == C_CONNECTING || c->state == C_HANDSHAKE) && now >= c->retry_at)
            conn_refused(l, c, now, ETIMEDOUT); /* a peer that never answers */
        if (c->state == C_DOWN && now >= c->retry_at) {
            CADD(l, reconnects, 1);
            if (conn_open(l, c)) {
                CADD(l, errors[LAT_LOAD_REFUSED], 1);
                c->retry_at = now + cyc(l, 10000000);
            }
        }
    }
    if (!r->stopping && atomic_load_explicit(&l->stop, memory_order_relaxed)) stop_seen(l, r, now);
    if (now >= r->deadline && (!r->done || l->inflight)) deadline_reached(l, r, now);
    if (r->waiting && !r->done && now > r->next) {
        /* due since r->next, up to the schedule's end; at most what it holds */
        uint64_t upto = now < r->end ? now : r->end;
        uint64_t b =
            upto > r->next ? (uint64_t)((double)ns_of(l, upto - r->next) / r->s.period_ns) + 1 : 1;
        if (r->total > r->seq && b > r->total - r->seq) b = r->total - r->seq;
        if (b > CGET(l, backlog_max)) CSET(l, backlog_max, b);
    }
    CSET(l, gaps, l->gaps->count);
    CSET(l, gap_ns, (uint64_t)ns_of(l, l->gaps->total));
    CSET(l, gap_longest_ns, (uint64_t)ns_of(l, l->gaps->longest));
    if (l->up) { /* reconnecting for ever to a refusing target is no run */
        l->down_since = 0;
    } else if (!l->down_since) {
        l->down_since = now;
    } else if (now - l->down_since > cyc(l, 1000000000)) {
        return l->conn_err ? -l->conn_err : -EIO;
    }
    return 0;
}

/* Send what is due when a connection has room: true when one went out. */
static bool try_send(lat_load *l, run *r, uint64_t now) {
    if (!r->due_counted) {
        CADD(l, scheduled, 1);
        r->due_counted = true;
    }
    /* Found full and no connection gained room since: no scan. */
    conn *c = r->waiting && r->room_seen == l->room ? NULL : free_conn(l);
    if (!c) {
        if (!r->waiting) CADD(l, cap_waits, 1);
        if (!r->waiting && lat_loadh2_stream_capped(l->h2)) CADD(l, stream_waits, 1);
        r->waiting = true;
        r->room_seen = l->room;
        return false;
    }
    (void)now;
    /* the pick's key: the arrival's number in the one schedule (shards share it) */
    uint64_t arrival = l->cfg.arrivals == LAT_LOAD_REPLAY ? r->seq : r->s.n - 1;
    if (send_req(l, c, r->seq, arrival, r->next, r->next_ns)) return false;
    r->seq++;
    advance(l, r);
    return true;
}

static void note_gap(lat_load *l, uint64_t from, uint64_t to) {
    /* Only the part after the start (the loop spins up to 200 ms before it):
     * the gaps are a share of run_ns (once read as 174% of it). */
    if (to <= l->t0) return;
    if (from < l->t0) from = l->t0;
    lat_gaps_note(l->gaps, from, to);
    l->gap_ring[l->gap_n++ % GAP_RING] = (lat_gap){from, to - from};
}

/* A try to send (with its request's bookkeeping) in [from, to], sent or
 * not (every connection full): the thread was taken inside it when it took
 * far more than the sends before (SEND_GAP_MIN, SEND_GAP_MULT); the part
 * beyond their mean is then a gap.  Only sends feed the mean. */
static void send_time(lat_load *l, uint64_t from, uint64_t to, bool sent) {
    uint64_t d = to - from, bound = SEND_GAP_MULT * l->send_mean;
    if (bound < SEND_GAP_MIN * l->gaps->threshold) bound = SEND_GAP_MIN * l->gaps->threshold;
    if (LAT_UNLIKELY(d >= bound))
        note_gap(l, from + l->send_mean, to);
    else if (sent)
        l->send_mean = l->send_mean + d / 64 - l->send_mean / 64;
}

static int loop(lat_load *l, run *r) {
    uint64_t prev = lat_cycles(), hk = prev, hk_step = cyc(l, 1000000);
    uint64_t thr = l->gaps->threshold;
    l->send_mean = thr / 2;
    for (;;) {
        uint64_t now = lat_cycles();
        if (LAT_UNLIKELY(now - prev >= thr)) note_gap(l, prev, now);
        prev = now;
        if (!r->done && now >= r->next) {
            bool sent = try_send(l, r, now);
            prev = lat_cycles();
            send_time(l, now, prev, sent);
            /* back to back, with housekeeping (a stop, the deadline) still due */
            if (sent && now < hk) continue;
        }
        if (l->inflight && (r->waiting || r->done)) {
            /* Nothing can go out before a response (every connection full,
             * or the schedule over): wait in epoll, not on the CPU the
             * server may need, at most until the next housekeeping.  With
             * no response left to read, a due request now waits on the
             * service (its wait, not the generator's lag). */
            if (!r->waiting || !poll_events(l, 0)) {
                if (r->waiting && !l->blocked) {
                    l->blocked = true;
                    l->full_at = lat_cycles();
                }
                poll_events(l, 1);
            }
            prev = lat_cycles(); /* the wait is not the platform's time */
        } else if (l->inflight || r->waiting) {
            next_event(l, 0); /* one at a time: the next send may be due after it */
        }
        if (now >= hk) {
            if (!l->inflight && !r->waiting) poll_events(l, 0);
            int rc = housekeep(l, r, now);
            if (rc) {
                drop_due(l, r, now, LAT_LOAD_ABORTED); /* the run cannot go on */
                return rc;
            }
            hk = now + hk_step;
            prev = lat_cycles();
        }
        if (r->done && !l->inflight) return 0;
    }
}

static int pin(int cpu) {
    if (cpu < 0) return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return -pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int lat_load_run(lat_load *l) {
    if (!l) return -EINVAL;
    int rc = pin(l->cfg.cpu);
    if (rc) return rc;
    if ((rc = connect_all(l))) {
        for (unsigned i = 0; i < l->cfg.connections; i++) /* those that did connect */
            conn_close(l, &l->conns[i], 0);
        return rc;
    }
    run r = {.seq = 0};
    lat_loadsched_init_plan(
        &r.s, l->cfg.arrivals == LAT_LOAD_REPLAY ? LAT_LOAD_CONSTANT : l->cfg.arrivals,
        &l->cfg.plan, l->cfg.rate_hz, l->cfg.seed, l->cfg.stride, l->cfg.phase);
    r.t0 = l->cfg.start_cycles ? l->cfg.start_cycles : lat_cycles() + cyc(l, 1000000);
    r.next = r.t0;
    l->t0 = r.t0;
    const uint64_t far_ns = 100000000000000000ull; /* ~3 years: no overflow in cycles */
    uint64_t d = l->cfg.duration_ns < far_ns ? l->cfg.duration_ns : far_ns;
    uint64_t tmo = l->cfg.timeout_ns < far_ns ? l->cfg.timeout_ns : far_ns;
    r.end = r.t0 + cyc(l, d);
    r.deadline = r.end + cyc(l, tmo);
    r.total = (uint64_t)ceil(l->cfg.rate_hz * ((double)d / 1e9));
    advance(l, &r);
    lat_schedstat s0, s1; /* the run queue: this machine's other threads */
    bool have_s = lat_schedstat_read(NULL, &s0) == 0;
    rc = loop(l, &r);
    uint64_t end = lat_cycles();
    if (have_s && lat_schedstat_read(NULL, &s1) == 0 && s1.wait_ns >= s0.wait_ns)
        CSET(l, runq_ns, s1.wait_ns - s0.wait_ns);
    CSET(l, run_ns, end > r.t0 ? (uint64_t)ns_of(l, end - r.t0) : 0);
    CSET(l, gaps, l->gaps->count);
    CSET(l, gap_ns, (uint64_t)ns_of(l, l->gaps->total));
    CSET(l, gap_longest_ns, (uint64_t)ns_of(l, l->gaps->longest));
    for (unsigned i = 0; i < l->cfg.connections; i++)
        conn_close(l, &l->conns[i], 0);
    return rc;
}
