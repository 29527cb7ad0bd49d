/* loadrun.c - the sending threads of `latlab load`: several engines run as
 * one, their intervals and counters added each second.  See loadrun.h. */
#include "latlab/loadrun.h"

#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "latlab/clock.h"
#include "latlab/http.h"

struct lat_loadrun {
    lat_load *l[LAT_LOADRUN_MAX_THREADS];
    int n;
    lat_load_arrivals arrivals;
    bool plan;                      /* a rate plan, not a fixed rate */
    unsigned connections, inflight; /* the whole run's, for the verdict */
    int rc[LAT_LOADRUN_MAX_THREADS];
    lat_hist iv[LAT_LOAD_NSERIES], part[LAT_LOAD_NSERIES]; /* the interval; one engine's part */
    atomic_int left;                                       /* engines still running */
};

typedef struct engine_arg {
    lat_loadrun *r;
    int k;
} engine_arg;

static double wall_s(void) {
    return (double)lat_clock_ns(CLOCK_REALTIME) / 1e9;
}

/* A schedule shared by the threads (and shards): a rate plan, or a shard's
 * share of one; otherwise each thread has a rate and stream of its own. */
static bool shared_schedule(const lat_load_cfg *c) {
    return c->plan.kind != LAT_LOADSCHED_FIXED || c->stride > 1;
}

/* Engine k of n: its share of the rate and of the connections, its own
 * Poisson stream and CPU, one start for all, and (constant arrivals) its
 * phase, so the threads' sends interleave into one evenly spaced timetable. */
static lat_load_cfg engine_cfg(const lat_load_cfg *c, int k, int n, uint64_t start) {
    lat_load_cfg e = *c;
    e.rate_hz = c->rate_hz / n;
    if (shared_schedule(c)) { /* the one schedule, each thread its share of the share */
        uint32_t s = c->stride ? c->stride : 1;
        e.connections = c->connections / (unsigned)n + ((unsigned)k < c->connections % (unsigned)n);
        e.cpu = c->cpu >= 0 ? c->cpu + k : -1;
        e.start_cycles = start;
        e.stride = s * (uint32_t)n;
        e.phase = c->phase + (uint32_t)k * s;
        return e;
    }
    e.plan.from_hz = 0; /* a rate of its own: rate_hz */
    e.connections = c->connections / (unsigned)n + ((unsigned)k < c->connections % (unsigned)n);
    e.seed = c->seed + (uint64_t)k;
    e.cpu = c->cpu >= 0 ? c->cpu + k : -1;
    e.start_cycles = start;
    e.offset_ns = c->arrivals == LAT_LOAD_CONSTANT ? (uint64_t)((double)k * 1e9 / c->rate_hz) : 0;
    return e;
}

int lat_loadrun_create(const lat_load_cfg *cfg, unsigned threads, lat_loadrun **out) {
    if (!cfg || !out || !threads || threads > LAT_LOADRUN_MAX_THREADS ||
        threads > cfg->connections || (threads > 1 && cfg->arrivals == LAT_LOAD_REPLAY))
        return -EINVAL;
    lat_loadrun *r = calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    r->n = (int)threads;
    r->arrivals = cfg->arrivals;
    r->plan = cfg->plan.kind != LAT_LOADSCHED_FIXED;
    r->connections = cfg->connections;
    r->inflight = cfg->max_inflight;
    /* One start for several threads, after every connection had time to open. */
    uint64_t start = cfg->start_cycles ? cfg->start_cycles
                     : r->n > 1 ? lat_cycles() + lat_clock_from_ns(lat_clock_default(), 200000000)
                                : 0;
    int rc = 0;
    for (int k = 0; k < r->n && !rc; k++) {
        lat_load_cfg e = engine_cfg(cfg, k, r->n, start);
        rc = lat_load_create(&e, &r->l[k]);
    }
    for (int j = 0; j < LAT_LOAD_NSERIES && !rc; j++)
        if (lat_load_hist_init(&r->iv[j]) || lat_load_hist_init(&r->part[j])) rc = -ENOMEM;
    if (rc) {
        lat_loadrun_destroy(r);
        return rc;
    }
    *out = r;
    return 0;
}

void lat_loadrun_destroy(lat_loadrun *r) {
    if (!r) return;
    for (int j = 0; j < LAT_LOAD_NSERIES; j++) {
        lat_hist_fini(&r->iv[j]);
        lat_hist_fini(&r->part[j]);
    }
    for (int k = 0; k < r->n; k++)
        lat_load_destroy(r->l[k]);
    free(r);
}

void lat_loadrun_stop(lat_loadrun *r) {
    for (int k = 0; r && k < r->n; k++)
        if (r->l[k]) lat_load_stop(r->l[k]); /* atomic stores */
}

int lat_loadrun_result(const lat_loadrun *r) {
    for (int k = 0; k < r->n; k++)
        if (r->rc[k]) return r->rc[k];
    return 0;
}

void lat_loadrun_counts(const lat_loadrun *r, lat_load_counts *out) {
    memset(out, 0, sizeof *out);
    uint64_t backlog = 0, longest = 0, run = 0;
    for (int k = 0; k < r->n; k++) {
        lat_load_counts c;
        lat_load_counts_get(r->l[k], &c);
        const uint64_t *s = (const uint64_t *)&c;
        uint64_t *d = (uint64_t *)out;
        for (size_t i = 0; i < sizeof c / sizeof *s; i++)
            d[i] += s[i];
        if (c.backlog_max > backlog) backlog = c.backlog_max;
        if (c.gap_longest_ns > longest) longest = c.gap_longest_ns;
        if (c.run_ns > run) run = c.run_ns;
    }
    out->backlog_max = backlog;
    out->gap_longest_ns = longest;
    out->run_ns = run;
    out->gap_ns /= (uint64_t)r->n;
    out->runq_ns /= (uint64_t)r->n;
}

static void *engine(void *arg) {
    engine_arg *a = arg;
    a->r->rc[a->k] = lat_load_run(a->r->l[a->k]);
    /* release: this engine's last counts and records happen-before the
     * acquire load in lat_loadrun_run that sees it gone */
    atomic_fetch_sub_explicit(&a->r->left, 1, memory_order_release);
    return NULL;
}

/* The interval since the last tick, from every engine, handed to tick. */
static void tick_once(lat_loadrun *r, double from, double now, bool last, lat_loadrun_tick_fn fn,
                      void *ud) {
    lat_hist *part[LAT_LOAD_NSERIES];
    lat_loadrun_tick t = {.start_s = from, .end_s = now, .last = last};
    for (int j = 0; j < LAT_LOAD_NSERIES; j++) {
        lat_hist_reset(&r->iv[j]);
        part[j] = &r->part[j];
        t.h[j] = &r->iv[j];
    }
    for (int k = 0; k < r->n; k++) {
        lat_load_interval(r->l[k], part);
        for (int j = 0; j < LAT_LOAD_NSERIES; j++)
            lat_hist_add(&r->iv[j], &r->part[j]);
    }
    lat_load_counts c;
    lat_loadrun_counts(r, &c);
    t.counts = &c;
    if (fn) fn(ud, &t);
}

static void tick_loop(lat_loadrun *r, double t0_s, lat_loadrun_tick_fn fn, void *ud) {
    double next = t0_s + 1, last = t0_s;
    while (atomic_load_explicit(&r->left, memory_order_acquire) > 0) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        double now = wall_s();
        if (now >= next) {
            tick_once(r, last, now, false, fn, ud);
            last = now;
            next += 1;
        }
    }
    tick_once(r, last, wall_s(), true, fn, ud); /* the last part-second */
}

int lat_loadrun_run(lat_loadrun *r, double t0_s, lat_loadrun_tick_fn tick, void *ud) {
    pthread_t th[LAT_LOADRUN_MAX_THREADS];
    engine_arg args[LAT_LOADRUN_MAX_THREADS];
    int started = 0, rc = 0;
    atomic_store_explicit(&r->left, r->n, memory_order_relaxed);
    for (; started < r->n; started++) {
        args[started] = (engine_arg){r, started};
        if ((rc = pthread_create(&th[started], NULL, engine, &args[started]))) break;
    }
    if (rc) { /* what started stops; what did not never counts */
        lat_loadrun_stop(r);
        atomic_fetch_sub_explicit(&r->left, r->n - started, memory_order_relaxed);
    }
    tick_loop(r, t0_s, tick, ud);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    return -rc;
}

/* Every engine's samples of width w (1: inter-arrivals, 2: latency pairs)
 * pooled into one array (the caller frees it); the count, 0 when out of
 * memory (*out NULL). */
static size_t pool(const lat_loadrun *r, int w, double **out) {
    size_t n = 0;
    for (int k = 0; k < r->n; k++) {
        const double *x;
        n += w == 1 ? lat_load_interarrivals(r->l[k], &x) : lat_load_latency_pairs(r->l[k], &x);
    }
    *out = malloc((n ? n : 1) * (size_t)w * sizeof **out);
    if (!*out) return 0;
    size_t at = 0;
    for (int k = 0; k < r->n; k++) {
        const double *x;
        size_t m =
            w == 1 ? lat_load_interarrivals(r->l[k], &x) : lat_load_latency_pairs(r->l[k], &x);
        memcpy(*out + at * (size_t)w, x, m * (size_t)w * sizeof *x);
        at += m;
    }
    return n;
}

int lat_loadrun_judge(const lat_loadrun *r, const lat_load_verdict_in *in, lat_load_verdict *out) {
    double *ia, *pairs;
    lat_load_verdict_in vin = *in;
    /* a varying rate's gaps are not one exponential: judged by the lag, per step */
    vin.arrivals = r->plan ? LAT_LOAD_CONSTANT : r->arrivals;
    vin.n_interarrivals = pool(r, 1, &ia);
    vin.n_pairs = pool(r, 2, &pairs);
    vin.interarrivals = ia;
    vin.latency_pairs = pairs;
    if (!vin.connections) /* the slots, for Little's law */
        vin.connections = r->connections, vin.max_inflight = r->inflight;
    int rc = ia && pairs ? 0 : -ENOMEM;
    lat_load_verdict_judge(&vin, out);
    free(ia);
    free(pairs);
    return rc;
}

int lat_loadrun_steps(const lat_loadrun *r, lat_loadsched_steps *out) {
    int rc = 0;
    for (int k = 0; k < r->n && !rc; k++)
        rc = lat_loadsched_steps_add(out, lat_load_steps(r->l[k]));
    return rc;
}

int lat_loadrun_resolve(lat_load_cfg *cfg, const char *host, const char *port, int timeout_ms) {
    struct addrinfo *res;
    int rc = lat_http_resolve(host, port, false, timeout_ms, &res);
    if (rc) return rc;
    if (res->ai_addrlen > sizeof cfg->addr)
        rc = -EAFNOSUPPORT;
    else
        memcpy(&cfg->addr, res->ai_addr, res->ai_addrlen), cfg->addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return rc;
}

int lat_loadrun_cpus_check(int cpu, unsigned threads) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed)) return -errno;
    for (unsigned k = 0; k < threads; k++)
        if (cpu < 0 || cpu + (int)k >= CPU_SETSIZE || !CPU_ISSET(cpu + (int)k, &allowed))
            return (int)k + 1;
    return 0;
}

json_t *lat_loadrun_cfg_json(const lat_load_cfg *c, unsigned threads) {
    static const char *const arrivals[] = {"constant", "poisson", "replay"};
    json_t *o = json_object();
    json_object_set_new(o, "arrivals", json_string(arrivals[c->arrivals % 3]));
    json_object_set_new(o, "rate_hz", json_real(c->rate_hz));
    json_object_set_new(o, "duration_ns", json_integer((json_int_t)c->duration_ns));
    json_object_set_new(o, "seed", json_integer((json_int_t)c->seed));
    json_object_set_new(o, "connections", json_integer(c->connections));
    json_object_set_new(o, "threads", json_integer(threads));
    json_object_set_new(o, "inflight", json_integer(c->max_inflight));
    json_object_set_new(o, "shard_index", c->stride ? json_integer(c->phase) : json_null());
    json_object_set_new(o, "shards", c->stride ? json_integer(c->stride) : json_null());
    return o;
}
