/* trace.c - the stage tracer's off-path half (see trace.h): sinks, the
 * aggregator (latlab's thread or the user's drain calls), interval closing,
 * interval logs, the unix-socket stream for `latlab top`, the readers.
 *
 * Ownership: everything the aggregator writes per block (the recorders, the
 * per-sink interval histograms, the flight recorder, the counts) has one
 * writer, the aggregating thread.  The histograms other threads read (the
 * last interval and the cumulative ones, merged and per sink) change only
 * when an interval closes, under `mu`; readers take `mu` too.  The hot path
 * (stamp, ship: trace.h) never touches any of it. */
#include "latlab/trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "alloc_internal.h"
#include "latlab/atomicfile.h"
#include "latlab/hlog.h"

#define TRACE_CLIENTS 8 /* `latlab top` connections at once */
#define HLOG_BUF_BYTES (1u << 20)

enum { MODE_IDLE = 0, MODE_THREAD = 1, MODE_DRAIN = 2, MODE_STOPPED = 3 };

typedef struct sink_priv {
    lat_trace_sink pub;                 /* first: the public part */
    _Atomic uint64_t recorded;          /* aggregator-owned; [any] reads (relaxed) */
    lat_hist iv[LAT_TRACE_MAX_STAGES];  /* aggregator-owned: this interval */
    lat_hist cum[LAT_TRACE_MAX_STAGES]; /* under mu: closed intervals */
} sink_priv;

struct lat_trace {
    lat_trace_config c; /* read-only after create (pointers below replace its strings) */
    char names[LAT_TRACE_MAX_STAGES][LAT_TRACE_NAME_MAX];
    const char *name_ptr[LAT_TRACE_MAX_STAGES];
    lat_trace_stage stages[LAT_TRACE_MAX_STAGES];
    unsigned n; /* stages */
    const lat_clock_cal *cal;
    lat_hist_recorder rec[LAT_TRACE_MAX_STAGES]; /* aggregator records merged values */
    lat_hist iv[LAT_TRACE_MAX_STAGES];           /* under mu: the last closed interval */
    lat_hist cum[LAT_TRACE_MAX_STAGES];          /* under mu: every closed interval */
    const lat_hist *iv_ptr[LAT_TRACE_MAX_STAGES], *cum_ptr[LAT_TRACE_MAX_STAGES];
    pthread_mutex_t mu;
    /* Sinks: appended under mu; the count is published with release after the
     * slot is written, and the aggregator's acquire load pairs with it. */
    sink_priv *sinks[LAT_TRACE_MAX_SINKS];
    _Atomic unsigned nsinks;
    _Atomic int mode;
    _Atomic int stop_req; /* release by stop, acquire by latlab's thread */
    pthread_t thread;
    /* Intervals (aggregator-owned). */
    uint64_t next_close_cycles, interval_cycles;
    double iv_start_s, start_s;
    _Atomic uint64_t intervals;
    uint64_t since_close; /* blocks aggregated in the open interval */
    /* Counts (aggregator-owned; relaxed for readers). */
    _Atomic uint64_t unset, nonmono, oor;
    /* Outputs (aggregator-owned after create). */
    FILE *hlog_f[LAT_TRACE_MAX_STAGES];
    lat_afile *hlog_af[LAT_TRACE_MAX_STAGES]; /* hlog_atomic: the temporaries (own hlog_f) */
    char *hlog_path[LAT_TRACE_MAX_STAGES];
    bool hlog_bad[LAT_TRACE_MAX_STAGES]; /* a write failed: no more lines into it */
    lat_hlog_writer hlog[LAT_TRACE_MAX_STAGES];
    int out_err; /* the first output error (error_path names it) */
    int listen_fd;
    int clients[TRACE_CLIENTS];
    char *sock_path;
    dev_t sock_dev; /* the socket file this tracer bound (removed only if still it) */
    ino_t sock_ino;
    bool built; /* create finished: stop/destroy may aggregate */
    lat_flight *flight;
    int flight_stage;
    unsigned flight_others[LAT_FLIGHT_STAGES];
    unsigned n_flight_others;
};

static double wall_s(void) {
    return (double)lat_clock_ns(CLOCK_REALTIME) / 1e9;
}

void lat_trace_config_default(lat_trace_config *c) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->lowest_ns = 1;
    c->highest_ns = 60000000000ll;
    c->sig_figs = 3;
    c->interval_ns = 1000000000ull;
    c->sink_capacity = 16384;
    c->flight_threshold_ns = LAT_FLIGHT_NONE;
    c->flight_post = LAT_FLIGHT_DEFAULT_POST;
    c->flight_capacity = LAT_FLIGHT_DEFAULT_CAP;
    c->flight_stage = -1;
    c->flight_drain_ns = LAT_FLIGHT_NONE;
}

static bool name_ok(const char *s) {
    if (!s || !*s || strlen(s) >= LAT_TRACE_NAME_MAX) return false;
    return strpbrk(s, ", \r\n") == NULL;
}

/* The file part of a stage's log name: '+' becomes '-'. */
static void log_name(char *dst, const char *name) {
    snprintf(dst, LAT_TRACE_NAME_MAX, "%s", name);
    for (char *q = dst; *q; q++)
        if (*q == '+') *q = '-';
}

/* With logs, each stage needs a file of its own in the prefix's folder: no
 * '/', no "." or "..", and no two names that map to one file ("a+b", "a-b"). */
static bool log_names_ok(const lat_trace_config *c) {
    char a[LAT_TRACE_NAME_MAX], b[LAT_TRACE_NAME_MAX];
    for (unsigned i = 0; i < c->nstages; i++) {
        const char *n = c->stages[i].name;
        if (strchr(n, '/') || !strcmp(n, ".") || !strcmp(n, "..")) return false;
        log_name(a, n);
        for (unsigned j = 0; j < i; j++) {
            log_name(b, c->stages[j].name);
            if (!strcmp(a, b)) return false;
        }
    }
    return true;
}

static bool config_ok(const lat_trace_config *c) {
    if (!c || !c->stages || c->nstages == 0 || c->nstages > LAT_TRACE_MAX_STAGES) return false;
    if (c->interval_ns < 1000000ull || c->sink_capacity < 2 || c->sink_capacity > (1u << 30))
        return false;
    for (unsigned i = 0; i < c->nstages; i++) {
        const lat_trace_stage *s = &c->stages[i];
        if (!name_ok(s->name) || s->from >= LAT_TRACE_POINTS || s->to >= LAT_TRACE_POINTS ||
            s->from == s->to)
            return false;
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(c->stages[j].name, s->name)) return false;
    }
    if (c->hlog_prefix && !log_names_ok(c)) return false;
    return c->flight_stage < (int)c->nstages;
}

/* The first output error wins; its path goes to the caller's buffer. */
static void output_failed(lat_trace *t, const char *path, int rc) {
    if (t->out_err) return;
    t->out_err = rc;
    if (t->c.error_path && t->c.error_path_cap)
        snprintf(t->c.error_path, t->c.error_path_cap, "%s", path);
}

/* A log's write failed: recorded, and nothing more is written into it. */
static void log_failed(lat_trace *t, unsigned s, int rc) {
    t->hlog_bad[s] = true;
    output_failed(t, t->hlog_path[s], rc);
}

/* "q1+wake" -> "<prefix>q1-wake.hlog" */
static int open_logs(lat_trace *t) {
    for (unsigned s = 0; s < t->n; s++) {
        size_t len = strlen(t->c.hlog_prefix) + LAT_TRACE_NAME_MAX + 8;
        char *path = lat__alloc(len);
        if (!path) return -ENOMEM;
        char nm[LAT_TRACE_NAME_MAX];
        log_name(nm, t->names[s]);
        snprintf(path, len, "%s%s.hlog", t->c.hlog_prefix, nm);
        t->hlog_path[s] = path;
        int rc = 0;
        if (t->c.hlog_atomic) {
            rc = lat_afile_open(path, &t->hlog_af[s]);
            if (rc == 0) t->hlog_f[s] = lat_afile_stream(t->hlog_af[s]);
        } else if (!(t->hlog_f[s] = fopen(path, "w"))) {
            rc = -errno;
        }
        if (rc) {
            output_failed(t, path, rc);
            return rc;
        }
        /* Whole lines: the buffer holds an interval's line, and it is flushed
         * once per interval, so a reader never sees half a line written. */
        setvbuf(t->hlog_f[s], NULL, _IOFBF, HLOG_BUF_BYTES);
        rc = lat_hlog_writer_init(&t->hlog[s], t->hlog_f[s], t->start_s, t->start_s, 0);
        if (rc) log_failed(t, s, rc); /* a write error: the run goes on */
    }
    return 0;
}

/* A socket file that a process still listens on is live: a connect succeeds,
 * or finds the backlog full.  Refused connections mean a stale file. */
static bool socket_live(const struct sockaddr_un *a) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    bool live = connect(fd, (const struct sockaddr *)a, sizeof *a) == 0 || errno == EAGAIN ||
                errno == EINPROGRESS;
    close(fd);
    return live;
}

/* Listen at the path: a stale socket file is replaced, a live one (another
 * tracer's) refused with -EADDRINUSE.  The file's identity is kept so that
 * destroy removes only this tracer's own socket. */
static int open_socket(lat_trace *t) {
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(t->c.socket_path) >= sizeof a.sun_path) return -ENAMETOOLONG;
    strcpy(a.sun_path, t->c.socket_path);
    struct stat st;
    if (lstat(a.sun_path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        if (socket_live(&a)) {
            output_failed(t, a.sun_path, -EADDRINUSE);
            return -EADDRINUSE;
        }
        unlink(a.sun_path); /* stale */
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, TRACE_CLIENTS) != 0 ||
        lstat(a.sun_path, &st) != 0) {
        int e = -errno;
        close(fd);
        output_failed(t, a.sun_path, e);
        return e;
    }
    t->listen_fd = fd;
    t->sock_dev = st.st_dev;
    t->sock_ino = st.st_ino;
    t->sock_path = lat__strdup(a.sun_path);
    return t->sock_path ? 0 : -ENOMEM;
}

/* Remove the socket file only while it is still the one this tracer bound. */
static void remove_socket(lat_trace *t) {
    struct stat st;
    if (lstat(t->sock_path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == t->sock_dev &&
        st.st_ino == t->sock_ino)
        unlink(t->sock_path);
}

static int make_flight(lat_trace *t) {
    const lat_trace_config *c = &t->c;
    t->flight_stage = c->flight_stage < 0 ? (int)t->n - 1 : c->flight_stage;
    const char *names[LAT_FLIGHT_STAGES];
    for (unsigned s = 0; s < t->n && t->n_flight_others < LAT_FLIGHT_STAGES; s++) {
        if ((int)s == t->flight_stage) continue;
        names[t->n_flight_others] = t->names[s];
        t->flight_others[t->n_flight_others++] = s;
    }
    if (t->n_flight_others == 0) { /* one stage: show it as its own column */
        names[0] = t->names[t->flight_stage];
        t->flight_others[t->n_flight_others++] = (unsigned)t->flight_stage;
    }
    int rc = lat_flight_create(&t->flight, c->flight_capacity, t->n_flight_others, names,
                               c->flight_threshold_ns, c->flight_post);
    if (rc == 0) lat_flight_set_drain(t->flight, c->flight_drain_ns);
    return rc;
}

int lat_trace_create(const lat_trace_config *c, lat_trace **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    if (!config_ok(c)) return -EINVAL;
    lat_trace *t =
        lat__calloc_aligned(1, sizeof *t, LAT_DESTRUCTIVE); /* recorders are 128-aligned */
    if (!t) return -ENOMEM;
    int rc;
    t->c = *c;
    t->n = c->nstages;
    t->listen_fd = -1;
    for (int i = 0; i < TRACE_CLIENTS; i++)
        t->clients[i] = -1;
    pthread_mutex_init(&t->mu, NULL);
    t->cal = c->cal ? c->cal : lat_clock_default();
    for (unsigned s = 0; s < t->n; s++) {
        snprintf(t->names[s], sizeof t->names[s], "%s", c->stages[s].name);
        t->name_ptr[s] = t->names[s];
        t->stages[s] = c->stages[s];
        t->stages[s].name = t->names[s];
        t->iv_ptr[s] = &t->iv[s];
        t->cum_ptr[s] = &t->cum[s];
        if ((rc = lat_hist_recorder_init(&t->rec[s], c->lowest_ns, c->highest_ns, c->sig_figs)) ||
            (rc = lat_hist_init(&t->iv[s], c->lowest_ns, c->highest_ns, c->sig_figs)) ||
            (rc = lat_hist_init(&t->cum[s], c->lowest_ns, c->highest_ns, c->sig_figs)))
            goto fail;
    }
    t->c.stages = t->stages;
    t->c.hlog_prefix = NULL; /* not kept: only used below */
    t->c.socket_path = NULL;
    t->start_s = t->iv_start_s = wall_s();
    t->interval_cycles = lat_clock_from_ns(t->cal, c->interval_ns);
    t->next_close_cycles = lat_cycles() + t->interval_cycles;
    if (c->hlog_prefix) {
        t->c.hlog_prefix = c->hlog_prefix;
        rc = open_logs(t);
        t->c.hlog_prefix = NULL;
        if (rc) goto fail;
    }
    if (c->socket_path) {
        t->c.socket_path = c->socket_path;
        rc = open_socket(t);
        t->c.socket_path = NULL;
        if (rc) goto fail;
    }
    if (c->flight_threshold_ns != LAT_FLIGHT_NONE && (rc = make_flight(t)) != 0) goto fail;
    t->built = true;
    *out = t;
    return 0;
fail:
    lat_trace_destroy(t);
    return rc;
}

static void free_sink(sink_priv *k, unsigned n) {
    if (!k) return;
    lat_spsc_fini(&k->pub.ring);
    for (unsigned s = 0; s < n; s++) {
        lat_hist_fini(&k->iv[s]);
        lat_hist_fini(&k->cum[s]);
    }
    lat__free(k);
}

void lat_trace_destroy(lat_trace *t) {
    if (!t) return;
    if (t->built) lat_trace_stop(t);
    unsigned ns = atomic_load_explicit(&t->nsinks, memory_order_acquire);
    for (unsigned i = 0; i < ns; i++)
        free_sink(t->sinks[i], t->n);
    for (unsigned s = 0; s < t->n; s++) {
        lat_hist_recorder_fini(&t->rec[s]);
        lat_hist_fini(&t->iv[s]);
        lat_hist_fini(&t->cum[s]);
        if (t->hlog_af[s])
            lat_afile_abort(t->hlog_af[s]); /* not committed: the old file stays */
        else if (t->hlog_f[s])
            fclose(t->hlog_f[s]);
        lat__free(t->hlog_path[s]);
    }
    for (int i = 0; i < TRACE_CLIENTS; i++)
        if (t->clients[i] >= 0) close(t->clients[i]);
    if (t->listen_fd >= 0) close(t->listen_fd);
    if (t->sock_path) remove_socket(t);
    lat__free(t->sock_path);
    lat_flight_destroy(t->flight);
    pthread_mutex_destroy(&t->mu);
    lat__free(t);
}

int lat_trace_sink_create(lat_trace *t, size_t capacity, lat_trace_sink **out) {
    if (!t || !out) return -EINVAL;
    *out = NULL;
    if (capacity == 0) capacity = t->c.sink_capacity;
    sink_priv *k = lat__alloc_aligned(sizeof *k, LAT_DESTRUCTIVE);
    if (!k) return -ENOMEM;
    memset(k, 0, sizeof *k);
    int rc = lat_spsc_init(&k->pub.ring, sizeof(lat_trace_stamps), capacity, 0, NULL, 0);
    if (rc) {
        lat__free(k);
        return rc;
    }
    for (unsigned s = 0; s < t->n; s++) {
        const lat_trace_config *c = &t->c;
        if ((rc = lat_hist_init(&k->iv[s], c->lowest_ns, c->highest_ns, c->sig_figs)) ||
            (rc = lat_hist_init(&k->cum[s], c->lowest_ns, c->highest_ns, c->sig_figs))) {
            free_sink(k, t->n);
            return rc;
        }
    }
    k->pub.trace = t;
    pthread_mutex_lock(&t->mu);
    unsigned n = atomic_load_explicit(&t->nsinks, memory_order_relaxed);
    if (n == LAT_TRACE_MAX_SINKS) {
        pthread_mutex_unlock(&t->mu);
        free_sink(k, t->n);
        return -ENOSPC;
    }
    k->pub.index = n;
    t->sinks[n] = k;
    /* release: the sink is fully built before the aggregator can see it */
    atomic_store_explicit(&t->nsinks, n + 1, memory_order_release);
    pthread_mutex_unlock(&t->mu);
    *out = &k->pub;
    return 0;
}

/* ---- the aggregator ---------------------------------------------------------------------- */

static void record_block(lat_trace *t, sink_priv *k, const lat_trace_stamps *b) {
    int64_t ns[LAT_TRACE_MAX_STAGES];
    for (unsigned s = 0; s < t->n; s++) {
        uint64_t a = b->t[t->stages[s].from], z = b->t[t->stages[s].to];
        if (!a || !z) {
            atomic_store_explicit(&t->unset,
                                  atomic_load_explicit(&t->unset, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
            ns[s] = -1;
            continue;
        }
        uint64_t d = 0;
        if (z >= a)
            d = z - a;
        else /* two cores' counters a hair apart: clamp, never wrap */
            atomic_store_explicit(&t->nonmono,
                                  atomic_load_explicit(&t->nonmono, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
        ns[s] = (int64_t)lat_clock_to_ns(t->cal, d);
        if (!lat_hist_recorder_record(&t->rec[s], ns[s]))
            atomic_store_explicit(&t->oor, atomic_load_explicit(&t->oor, memory_order_relaxed) + 1,
                                  memory_order_relaxed);
        lat_hist_record(&k->iv[s], ns[s]);
    }
    if (t->flight) { /* an unset stage shows as 0 */
        int64_t e = ns[t->flight_stage];
        lat_flight_sample fs = {.seq = b->id, .e2e_ns = e > 0 ? (uint64_t)e : 0};
        for (unsigned j = 0; j < t->n_flight_others; j++) {
            int64_t v = ns[t->flight_others[j]];
            fs.stage_ns[j] = v > 0 ? (uint64_t)v : 0;
        }
        lat_flight_record(t->flight, &fs);
    }
    if (t->c.on_block) t->c.on_block(t->c.ud, b, ns);
}

/* Send buf to every client; a client that cannot take it whole at once is
 * dropped (a partial line would corrupt its stream). */
static void broadcast(lat_trace *t, const char *buf, size_t len, int only) {
    for (int i = 0; i < TRACE_CLIENTS; i++) {
        if (t->clients[i] < 0 || (only >= 0 && i != only)) continue;
        ssize_t w = send(t->clients[i], buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w != (ssize_t)len) {
            close(t->clients[i]);
            t->clients[i] = -1;
        }
    }
}

static void accept_clients(lat_trace *t) {
    for (;;) {
        int fd = accept4(t->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        int slot = -1;
        for (int i = 0; i < TRACE_CLIENTS && slot < 0; i++)
            if (t->clients[i] < 0) slot = i;
        if (slot < 0) {
            close(fd);
            continue;
        }
        t->clients[slot] = fd;
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m) continue;
        lat_hlog_writer w;
        int rc = lat_hlog_writer_init(&w, m, t->start_s, t->start_s, 0);
        if (fclose(m) == 0 && rc == 0) broadcast(t, buf, len, slot);
        free(buf);
    }
}

static void stream_interval(lat_trace *t, double start_s, double len_s) {
    accept_clients(t);
    bool any = false;
    for (int i = 0; i < TRACE_CLIENTS; i++)
        any |= t->clients[i] >= 0;
    if (!any) return;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    lat_hlog_writer w = {.f = m, .base_time_s = t->start_s, .max_unit_ratio = 1e6};
    int rc = 0;
    for (unsigned s = 0; s < t->n && rc == 0; s++)
        rc = lat_hlog_write_interval(&w, &t->iv[s], t->names[s], start_s, len_s);
    if (fclose(m) == 0 && rc == 0) broadcast(t, buf, len, -1);
    free(buf);
}

static void close_interval(lat_trace *t) {
    double now = wall_s();
    double start = t->iv_start_s, len = now - start;
    unsigned ns = atomic_load_explicit(&t->nsinks, memory_order_acquire);
    pthread_mutex_lock(&t->mu);
    for (unsigned s = 0; s < t->n; s++) {
        lat_hist_recorder_interval(&t->rec[s], &t->iv[s]);
        lat_hist_add(&t->cum[s], &t->iv[s]);
        for (unsigned i = 0; i < ns; i++) {
            lat_hist_add(&t->sinks[i]->cum[s], &t->sinks[i]->iv[s]);
            lat_hist_reset(&t->sinks[i]->iv[s]);
        }
    }
    pthread_mutex_unlock(&t->mu);
    /* iv and cum change only here, on this thread: reading them unlocked is safe. */
    for (unsigned s = 0; s < t->n; s++) {
        if (!t->hlog_f[s] || t->hlog_bad[s]) continue;
        int rc = lat_hlog_write_interval(&t->hlog[s], &t->iv[s], NULL, start, len);
        if (rc == 0 && fflush(t->hlog_f[s]) != 0) rc = errno ? -errno : -EIO;
        if (rc) log_failed(t, s, rc);
    }
    if (t->listen_fd >= 0) stream_interval(t, start, len);
    uint64_t idx = atomic_load_explicit(&t->intervals, memory_order_relaxed);
    atomic_store_explicit(&t->intervals, idx + 1, memory_order_relaxed);
    if (t->c.on_interval) {
        lat_trace_interval iv = {idx, start, len, t->n, t->name_ptr, t->iv_ptr, t->cum_ptr};
        t->c.on_interval(t->c.ud, &iv);
    }
    t->iv_start_s = now;
    t->since_close = 0;
    uint64_t c = lat_cycles();
    t->next_close_cycles += t->interval_cycles;
    if (t->next_close_cycles <= c) t->next_close_cycles = c + t->interval_cycles; /* fell behind */
}

/* One pass over the sinks; returns blocks aggregated. */
static uint64_t drain_pass(lat_trace *t) {
    unsigned ns = atomic_load_explicit(&t->nsinks, memory_order_acquire);
    uint64_t total = 0;
    for (unsigned i = 0; i < ns; i++) {
        sink_priv *k = t->sinks[i];
        size_t cap = lat_spsc_capacity(&k->pub.ring), got = 0;
        lat_trace_stamps b;
        while (got < cap && lat_spsc_try_pop_t(&k->pub.ring, &b)) {
            record_block(t, k, &b);
            got++;
        }
        if (got)
            atomic_store_explicit(&k->recorded,
                                  atomic_load_explicit(&k->recorded, memory_order_relaxed) + got,
                                  memory_order_relaxed);
        total += got;
    }
    t->since_close += total;
    if (LAT_UNLIKELY(lat_cycles() >= t->next_close_cycles)) close_interval(t);
    return total;
}

/* Everything left, then the last (partial) interval. */
static void finish(lat_trace *t) {
    while (drain_pass(t) > 0) {
    }
    close_interval(t);
}

static void *agg_thread(void *arg) {
    lat_trace *t = arg;
    lat_idle idle = lat_idle_backoff(10, 20, 1000, 1000000);
    lat_idle_state st;
    lat_idle_reset(&st);
    for (;;) {
        /* acquire pairs with stop's release: every ship before stop is visible */
        if (atomic_load_explicit(&t->stop_req, memory_order_acquire)) break;
        if (drain_pass(t))
            lat_idle_reset(&st);
        else
            lat_idle_step(&idle, &st);
    }
    finish(t);
    return NULL;
}

int lat_trace_start(lat_trace *t) {
    if (!t) return -EINVAL;
    int expect = MODE_IDLE;
    if (!atomic_compare_exchange_strong(&t->mode, &expect, MODE_THREAD)) return -EBUSY;
    int e = pthread_create(&t->thread, NULL, agg_thread, t);
    if (e) {
        atomic_store(&t->mode, MODE_IDLE);
        return -e;
    }
    pthread_setname_np(t->thread, "aggregator"); /* best effort: names it in profiles */
    return 0;
}

int lat_trace_drain(lat_trace *t) {
    if (!t) return -EINVAL;
    int m = atomic_load_explicit(&t->mode, memory_order_relaxed);
    if (m == MODE_IDLE) {
        if (!atomic_compare_exchange_strong(&t->mode, &m, MODE_DRAIN) && m != MODE_DRAIN)
            return -EBUSY;
    } else if (m != MODE_DRAIN) {
        return -EBUSY;
    }
    uint64_t n = drain_pass(t);
    return n > (uint64_t)INT32_MAX ? INT32_MAX : (int)n;
}

int lat_trace_stop(lat_trace *t) {
    if (!t) return -EINVAL;
    int m = atomic_exchange(&t->mode, MODE_STOPPED);
    if (m == MODE_STOPPED) return t->out_err;
    if (m == MODE_THREAD) {
        atomic_store_explicit(&t->stop_req, 1, memory_order_release);
        pthread_join(t->thread, NULL);
    } else {
        /* The consumer sides move to this thread (debug builds check owners). */
        unsigned ns = atomic_load_explicit(&t->nsinks, memory_order_acquire);
        for (unsigned i = 0; i < ns; i++)
            lat_spsc_reset_owners(&t->sinks[i]->pub.ring);
        finish(t);
    }
    if (t->flight) lat_flight_freeze(t->flight);
    /* Sinks may now be shipped into by new threads (not aggregated). */
    unsigned ns = atomic_load_explicit(&t->nsinks, memory_order_acquire);
    for (unsigned i = 0; i < ns; i++)
        lat_spsc_reset_owners(&t->sinks[i]->pub.ring);
    return t->out_err;
}

int lat_trace_logs_commit(lat_trace *t) {
    if (!t) return -EINVAL;
    if (atomic_load(&t->mode) != MODE_STOPPED) return -EBUSY;
    if (t->out_err) return t->out_err; /* an incomplete log: keep the old files */
    for (unsigned s = 0; s < t->n; s++) {
        if (!t->hlog_af[s]) continue;
        int rc = lat_afile_commit(t->hlog_af[s]);
        t->hlog_af[s] = NULL;
        t->hlog_f[s] = NULL;
        if (rc) {
            output_failed(t, t->hlog_path[s], rc);
            return rc; /* the rest are removed by destroy */
        }
    }
    return 0;
}

/* ---- readers ------------------------------------------------------------------------------ */

unsigned lat_trace_nstages(const lat_trace *t) {
    return t ? t->n : 0;
}

const char *lat_trace_stage_name(const lat_trace *t, unsigned stage) {
    return t && stage < t->n ? t->names[stage] : "";
}

static const lat_hist *pick(lat_trace *t, unsigned stage, int which) {
    if (!t || stage >= t->n) return NULL;
    if (which == LAT_TRACE_INTERVAL) return &t->iv[stage];
    if (which == LAT_TRACE_CUMULATIVE) return &t->cum[stage];
    return NULL;
}

int lat_trace_figures_get(lat_trace *t, unsigned stage, int which, lat_trace_figures *out) {
    const lat_hist *h = pick(t, stage, which);
    if (!h || !out) return -EINVAL;
    static const double ps[] = {50, 90, 99, 99.9, 99.99};
    int64_t v[5];
    pthread_mutex_lock(&t->mu);
    lat_hist_values_at_percentiles(h, ps, v, 5);
    out->count = lat_hist_total(h);
    out->min = lat_hist_min(h);
    out->max = lat_hist_max(h);
    out->mean = lat_hist_mean(h);
    pthread_mutex_unlock(&t->mu);
    out->p50 = v[0];
    out->p90 = v[1];
    out->p99 = v[2];
    out->p999 = v[3];
    out->p9999 = v[4];
    return 0;
}

int lat_trace_percentiles(lat_trace *t, unsigned stage, int which, const double *ps, int64_t *out,
                          size_t n) {
    const lat_hist *h = pick(t, stage, which);
    if (!h) return -EINVAL;
    pthread_mutex_lock(&t->mu);
    int rc = lat_hist_values_at_percentiles(h, ps, out, n);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

int lat_trace_hist_copy(lat_trace *t, unsigned stage, int which, lat_hist *dst) {
    const lat_hist *h = pick(t, stage, which);
    if (!h || !dst) return -EINVAL;
    pthread_mutex_lock(&t->mu);
    int rc = lat_hist_copy(dst, h);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

int lat_trace_sink_hist_copy(lat_trace_sink *k, unsigned stage, lat_hist *dst) {
    if (!k || !dst || stage >= k->trace->n) return -EINVAL;
    sink_priv *p = (sink_priv *)k;
    pthread_mutex_lock(&k->trace->mu);
    int rc = lat_hist_copy(dst, &p->cum[stage]);
    pthread_mutex_unlock(&k->trace->mu);
    return rc;
}

void lat_trace_counts_get(lat_trace *t, lat_trace_counts *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!t) return;
    unsigned ns = atomic_load_explicit(&t->nsinks, memory_order_acquire);
    for (unsigned i = 0; i < ns; i++) {
        lat_trace_counts k;
        lat_trace_sink_counts_get(&t->sinks[i]->pub, &k);
        out->recorded += k.recorded;
        out->dropped += k.dropped;
    }
    out->unset = atomic_load_explicit(&t->unset, memory_order_relaxed);
    out->nonmonotonic = atomic_load_explicit(&t->nonmono, memory_order_relaxed);
    out->out_of_range = atomic_load_explicit(&t->oor, memory_order_relaxed);
    out->intervals = atomic_load_explicit(&t->intervals, memory_order_relaxed);
}

void lat_trace_sink_counts_get(lat_trace_sink *k, lat_trace_counts *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!k) return;
    out->recorded = atomic_load_explicit(&((sink_priv *)k)->recorded, memory_order_relaxed);
    out->dropped = atomic_load_explicit(&k->dropped, memory_order_relaxed);
}

const lat_flight *lat_trace_flight(const lat_trace *t) {
    return t ? t->flight : NULL;
}

lat_flight *lat_trace_flight_take(lat_trace *t) {
    if (!t) return NULL;
    lat_flight *f = t->flight;
    t->flight = NULL;
    return f;
}
