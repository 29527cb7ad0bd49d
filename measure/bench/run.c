/* run.c - the harness's runner: registration of groups and cases, chunk-size
 * calibration, warm-up, the sample budget, timer-overhead measurement and
 * subtraction, the standard sample's platform account (timed sub-chunks, the
 * censoring rule of bench.h, run-queue wait and involuntary switches, per-op
 * latencies kept only from untouched sub-chunks), and the concurrent sample
 * (three-barrier start, stop flag at the deadline, join, lifecycle hooks and
 * backends).
 *
 * Why sub-chunks: a shared host takes a spinning thread's CPU in hundreds of
 * gaps a second; a sample timed as one call carries them all, and the median
 * of identical code moves by several ns from run to run.  Timing the sample in
 * pieces lets each piece be judged against its siblings.
 *
 * Everything here runs on the caller's thread except concurrent workers, one
 * thread per worker slot per sample.  Allocation happens between samples,
 * never inside the timed window. */
#include "internal.h"

#include "alloc_internal.h"
#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/error.h"
#include "latlab/gaps.h"
#include "latlab/hist.h"
#include "latlab/perf.h"
#include "latlab/stats.h"
#include "latlab/topo.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ---- small helpers shared by the other files ----------------------------------------- */

int lat_bench_metric(lat_bench_metrics *m, const char *name, double value, const char *unit) {
    if (!m || !name) return -EINVAL;
    int rc = lat__bench_grow((void **)&m->items, &m->cap, m->n + 1, sizeof *m->items);
    if (rc) return rc;
    metric_item *it = &m->items[m->n];
    it->name = lat__strdup(name);
    it->unit = lat__strdup(unit ? unit : "");
    if (!it->name || !it->unit) {
        lat__free(it->name);
        lat__free(it->unit);
        return -ENOMEM;
    }
    it->value = value;
    m->n++;
    return 0;
}

void lat__bench_metrics_clear(lat_bench_metrics *m) {
    for (uint32_t i = 0; i < m->n; i++) {
        lat__free(m->items[i].name);
        lat__free(m->items[i].unit);
    }
    m->n = 0;
}

int lat_bench_count(lat_bench_worker_result *r, const char *name, uint64_t value) {
    if (!r || !name) return -EINVAL;
    for (uint32_t i = 0; i < r->n_counters; i++)
        if (strcmp(r->counters[i].name, name) == 0) {
            r->counters[i].value += value;
            return 0;
        }
    if (r->n_counters >= LAT_BENCH_MAX_COUNTERS) return -ENOSPC;
    r->counters[r->n_counters++] = (lat_bench_counter){name, value};
    return 0;
}

/* splitmix64: tiny, well-mixed, and identical everywhere. */
static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void lat_bench_shuffle(uint64_t seed, size_t *idx, size_t n) {
    if (!idx || n < 2) return;
    uint64_t s = seed;
    for (size_t i = n - 1; i > 0; i--) {
        /* Unbiased bounded draw (rejection of the short tail). */
        uint64_t bound = (uint64_t)i + 1, lim = UINT64_MAX - UINT64_MAX % bound, x;
        do
            x = splitmix64(&s);
        while (x >= lim);
        size_t j = (size_t)(x % bound);
        size_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* ---- runner and registration -------------------------------------------------------------- */

int lat_bench_runner_create(const char *suite, const lat_bench_config *cfg,
                            lat_bench_runner **out) {
    if (!suite || !*suite || !out) return -EINVAL;
    lat_bench_runner *r = lat__calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    if (cfg)
        r->cfg = *cfg;
    else
        lat_bench_config_default(&r->cfg);
    r->pinned_cpu = r->schedstat_fd = -1;
    r->suite = lat__strdup(suite);
    if (!r->suite) {
        lat__free(r);
        return -ENOMEM;
    }
    *out = r;
    return 0;
}

static void kv_free(lat_bench_kv *kv, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        lat__free(kv[i].key);
        lat__free(kv[i].value);
    }
    lat__free(kv);
}

void lat_bench_runner_destroy(lat_bench_runner *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->n_cases; i++) {
        bench_case *c = &r->cases[i];
        lat__free(c->name);
        lat__free(c->full);
        if (c->workers)
            for (uint32_t w = 0; w < c->cdef.n_workers; w++)
                lat__free((char *)c->workers[w].name);
        lat__free(c->workers);
        kv_free(c->meta, c->n_meta);
    }
    lat__free(r->cases);
    for (uint32_t i = 0; i < r->n_groups; i++) {
        lat_bench_group *g = r->groups[i];
        lat__free(g->name);
        kv_free(g->meta, g->n_meta);
        lat__free(g);
    }
    lat__free(r->groups);
    lat_bench_report_destroy(r->report);
    lat__free(r->suite);
    lat__free(r->filter);
    lat__free(r->cpus);
    lat__free(r);
}

lat_bench_config *lat_bench_runner_config(lat_bench_runner *r) {
    return r ? &r->cfg : NULL;
}

int lat_bench_runner_filter(lat_bench_runner *r, const char *filter) {
    if (!r) return -EINVAL;
    char *f = NULL;
    if (filter && *filter && !(f = lat__strdup(filter))) return -ENOMEM;
    lat__free(r->filter);
    r->filter = f;
    return 0;
}

static lat_bench_group *group_new(lat_bench_runner *r, const char *name, lat_bench_kind kind) {
    if (!r || !name || !*name || r->ran) return NULL;
    if (lat__bench_grow((void **)&r->groups, &r->cap_groups, r->n_groups + 1, sizeof *r->groups))
        return NULL;
    lat_bench_group *g = lat__calloc(1, sizeof *g);
    if (!g) return NULL;
    g->name = lat__strdup(name);
    if (!g->name) {
        lat__free(g);
        return NULL;
    }
    g->runner = r;
    g->kind = kind;
    r->groups[r->n_groups++] = g;
    return g;
}

lat_bench_group *lat_bench_group_create(lat_bench_runner *r, const char *name) {
    return group_new(r, name, LAT_BENCH_STANDARD);
}
lat_bench_group *lat_bench_concurrent_group_create(lat_bench_runner *r, const char *name) {
    return group_new(r, name, LAT_BENCH_CONCURRENT);
}

int lat_bench_group_metadata(lat_bench_group *g, const char *key, const char *value) {
    if (!g) return -EINVAL;
    return lat__bench_kv_push(&g->meta, &g->n_meta, &g->cap_meta, key, value);
}
int lat_bench_group_domain(lat_bench_group *g, lat_bench_domain d) {
    if (!g || (d != LAT_BENCH_CPU && d != LAT_BENCH_IO)) return -EINVAL;
    g->domain = d;
    return 0;
}
int lat_bench_group_sample_duration(lat_bench_group *g, uint64_t ns) {
    if (!g || ns == 0) return -EINVAL;
    g->sample_duration_ns = ns;
    return 0;
}
int lat_bench_group_lifecycle(lat_bench_group *g, const lat_bench_lifecycle *l) {
    if (!g || !l) return -EINVAL;
    g->lifecycle = *l;
    g->has_lifecycle = true;
    return 0;
}
int lat_bench_group_backend(lat_bench_group *g, const lat_bench_backend *b) {
    if (!g || !b) return -EINVAL;
    g->backend = *b;
    g->has_backend = true;
    return 0;
}

static int case_new(lat_bench_group *g, const char *name, const char *const *meta,
                    bench_case **out) {
    lat_bench_runner *r = g->runner;
    if (!name || !*name || r->ran) return -EINVAL;
    for (uint32_t i = 0; i < r->n_cases; i++)
        if (r->cases[i].group == g && strcmp(r->cases[i].name, name) == 0) return -EEXIST;
    int rc = lat__bench_grow((void **)&r->cases, &r->cap_cases, r->n_cases + 1, sizeof *r->cases);
    if (rc) return rc;
    bench_case *c = &r->cases[r->n_cases];
    memset(c, 0, sizeof *c);
    c->group = g;
    c->kind = g->kind;
    c->name = lat__strdup(name);
    size_t n = strlen(g->name) + strlen(name) + 2;
    c->full = lat__alloc(n);
    if (!c->name || !c->full) goto fail;
    snprintf(c->full, n, "%s/%s", g->name, name);
    uint32_t cap = 0;
    for (size_t i = 0; meta && meta[i]; i += 2) {
        if (!meta[i + 1] || lat__bench_kv_push(&c->meta, &c->n_meta, &cap, meta[i], meta[i + 1]))
            goto fail;
    }
    *out = c;
    return 0;
fail:
    lat__free(c->name);
    lat__free(c->full);
    kv_free(c->meta, c->n_meta);
    memset(c, 0, sizeof *c);
    return -ENOMEM;
}

int lat_bench_add(lat_bench_group *g, const lat_bench_def *d) {
    if (!g || !d || !d->fn || g->kind != LAT_BENCH_STANDARD) return -EINVAL;
    bench_case *c;
    int rc = case_new(g, d->name, d->metadata, &c);
    if (rc) return rc;
    c->def = *d;
    c->def.name = c->name;
    c->def.metadata = NULL;
    g->runner->n_cases++;
    return 0;
}

int lat_bench_add_concurrent(lat_bench_group *g, const lat_bench_concurrent_def *d) {
    if (!g || !d || !d->workers || d->n_workers == 0 || g->kind != LAT_BENCH_CONCURRENT)
        return -EINVAL;
    for (uint32_t i = 0; i < d->n_workers; i++)
        if (!d->workers[i].name || !d->workers[i].run || d->workers[i].threads == 0 ||
            d->workers[i].threads > 1024)
            return -EINVAL;
    bench_case *c;
    int rc = case_new(g, d->name, d->metadata, &c);
    if (rc) return rc;
    c->workers = lat__calloc(d->n_workers, sizeof *c->workers);
    if (!c->workers) goto fail;
    for (uint32_t i = 0; i < d->n_workers; i++) {
        c->workers[i] = d->workers[i];
        c->workers[i].name = lat__strdup(d->workers[i].name);
        if (!c->workers[i].name) goto fail;
    }
    c->cdef = *d;
    c->cdef.name = c->name;
    c->cdef.workers = c->workers;
    c->cdef.metadata = NULL;
    g->runner->n_cases++;
    return 0;
fail:
    if (c->workers)
        for (uint32_t i = 0; i < d->n_workers; i++)
            lat__free((char *)c->workers[i].name);
    lat__free(c->workers);
    lat__free(c->name);
    lat__free(c->full);
    kv_free(c->meta, c->n_meta);
    memset(c, 0, sizeof *c);
    return -ENOMEM;
}

size_t lat_bench_case_count(const lat_bench_runner *r) {
    return r ? r->n_cases : 0;
}
const char *lat_bench_case_name(const lat_bench_runner *r, size_t i) {
    return r && i < r->n_cases ? r->cases[i].full : NULL;
}
bool lat_bench_case_selected(const lat_bench_runner *r, size_t i) {
    if (!r || i >= r->n_cases) return false;
    if (!r->filter) return true;
    const char *f = r->filter, *name = r->cases[i].full;
    if (strpbrk(f, "*?[")) return fnmatch(f, name, 0) == 0;
    return strstr(name, f) != NULL;
}

/* ---- the clock ------------------------------------------------------------------------------ */

static inline uint64_t now_ticks(const lat_bench_runner *r) {
    if (r->cfg.clock_ns) return r->cfg.clock_ns(r->cfg.clock_ud);
    return lat_cycles_fenced();
}
static inline double ticks_to_ns(const lat_bench_runner *r, uint64_t ticks) {
    if (r->cfg.clock_ns) return (double)ticks;
    return (double)lat_clock_to_ns((const lat_clock_cal *)r->cal, ticks);
}

static LAT_NOINLINE void empty_bench(void *ctx, uint64_t n, uint64_t i) {
    (void)ctx;
    (void)n;
    (void)i;
    lat_clobber_memory();
}

/* The cost of what surrounds fn in a sample: two fenced reads and an indirect
 * call of an empty function.  Median of 1001 tries (robust to interrupts). */
double lat_bench_timer_overhead_ns(lat_bench_runner *r) {
    if (!r) return 0;
    if (r->overhead_done) return r->overhead_ns;
    if (!r->cfg.clock_ns && !r->cal) r->cal = lat_clock_default();
    enum { TRIES = 1001 };
    uint64_t d[TRIES];
    void (*volatile fn)(void *, uint64_t, uint64_t) = empty_bench;
    for (int i = 0; i < TRIES; i++) {
        uint64_t t0 = now_ticks(r);
        fn(NULL, 0, 0);
        uint64_t t1 = now_ticks(r);
        d[i] = t1 - t0;
    }
    r->overhead_ns = ticks_to_ns(r, lat_stats_median_high_u64(d, TRIES));
    r->overhead_done = true;
    return r->overhead_ns;
}

/* ---- per-op latency recording (per thread) -----------------------------------------------------
 */

/* The histogram the calling thread records into while a measured concurrent
 * sample runs (a worker thread). */
static _Thread_local lat_hist *tls_hist;

/* A standard sample's per-op latencies, buffered until its sub-chunks are
 * judged (the runner thread only; preallocated per case).  Values past cap go
 * to spill unjudged (NULL: dropped, as in warm-up, which records only so the
 * buffer's pages are touched before measurement). */
typedef struct rec_buf {
    uint64_t *v;
    size_t n, cap;
    lat_hist *spill;
    uint64_t spilled;
} rec_buf;
static _Thread_local rec_buf *tls_rec;

/* Per-op latencies: 1 ns .. 1 h at 3 significant digits. */
#define REC_LOWEST 1
#define REC_HIGHEST 3600000000000ll
#define REC_DIGITS 3

static inline int64_t rec_value(uint64_t ns) {
    return ns > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ns;
}

void lat_bench_record_ns(uint64_t ns) {
    rec_buf *b = tls_rec;
    if (b) {
        if (LAT_LIKELY(b->n < b->cap)) {
            b->v[b->n++] = ns;
        } else if (b->spill) {
            lat_hist_record(b->spill, rec_value(ns));
            b->spilled++;
        }
        return;
    }
    lat_hist *h = tls_hist;
    if (h) lat_hist_record(h, rec_value(ns));
}

static void tail_from(lat_bench_tail *t, const lat_hist *h) {
    memset(t, 0, sizeof *t);
    t->count = (uint64_t)lat_hist_total(h);
    if (!t->count) return;
    static const double ps[LAT_BENCH_TAIL_PCTS] = {50, 90, 99, 99.9};
    lat_hist_ci v[LAT_BENCH_TAIL_PCTS];
    lat_hist_cis_at_percentiles(h, ps, LAT_HIST_CI_DEFAULT, v, LAT_BENCH_TAIL_PCTS);
    /* Read as continuous values: per-op stamps tick in steps (10 ns on some
     * VMs), and a change of less than a step moves only the mix of steps. */
    double n = (double)t->count, pt[LAT_BENCH_TAIL_PCTS];
    for (int k = 0; k < LAT_BENCH_TAIL_PCTS; k++)
        pt[k] = lat_hist_value_at_percentile_interpolated(h, ps[k]);
    t->p50_ns = pt[0];
    t->p90_ns = pt[1];
    t->p99_ns = pt[2];
    t->p999_ns = pt[3];
    for (int k = 0; k < LAT_BENCH_TAIL_PCTS; k++) {
        t->lo_ns[k] =
            lat_hist_value_at_percentile_interpolated(h, 100.0 * (double)(v[k].lo_rank - 1) / n);
        t->hi_ns[k] =
            lat_hist_value_at_percentile_interpolated(h, 100.0 * (double)v[k].hi_rank / n);
        if (v[k].max_bound) t->hi_ns[k] = (double)v[k].hi; /* the maximum itself */
        t->needs_n[k] = v[k].max_bound ? (uint64_t)v[k].needed_n : 0;
    }
    t->max_ns = (double)lat_hist_max(h);
}

/* ---- standard benchmarks ------------------------------------------------------------------------
 */

_Static_assert(LAT_BENCH_CENSOR_GAP_NS == LAT_GAPS_DEFAULT_NS,
               "the censoring threshold is the gap recorder's");

/* The running standard case's sub-chunk arrays and latency buffer, allocated
 * once per case: nothing is allocated while a sample runs. */
typedef struct std_scratch {
    uint64_t ticks[LAT_BENCH_SUBCHUNKS_MAX]; /* cycle counter across sub-chunk k */
    uint64_t ops[LAT_BENCH_SUBCHUNKS_MAX];
    size_t rec_end[LAT_BENCH_SUBCHUNKS_MAX]; /* latency buffer fill after sub-chunk k */
    double ns[LAT_BENCH_SUBCHUNKS_MAX];      /* overhead subtracted */
    double tmp[LAT_BENCH_SUBCHUNKS_MAX];
    unsigned char touched[LAT_BENCH_SUBCHUNKS_MAX];
    rec_buf rec;      /* v NULL: record_latency is off */
    uint64_t spilled; /* measured latencies that entered the tail unjudged */
} std_scratch;

typedef struct sample_out {
    double ns;         /* the whole sample, overhead subtracted */
    double raw_ns;     /* as measured */
    double cpu_ns;     /* the thread's CPU time across the sample */
    double kept_ns;    /* the untouched sub-chunks' time */
    uint64_t kept_ops; /* ... and operations */
    uint32_t touched;  /* sub-chunks touched by the platform */
    double runq_ns;    /* run-queue wait growth across the sample (NaN: not read) */
    uint64_t nivcsw;   /* involuntary context switches across the sample */
} sample_out;

/* CPU time of the calling thread (a system call: only outside timed windows). */
static uint64_t thread_cpu_ns(void) {
    return lat_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The second field of /proc/thread-self/schedstat: ns the thread waited on a
 * run queue.  NaN when it cannot be read. */
static double read_runq_ns(int fd) {
    if (fd < 0) return NAN;
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return NAN;
    buf[n] = 0;
    char *e1, *e2;
    (void)strtoull(buf, &e1, 10);
    unsigned long long w = strtoull(e1, &e2, 10);
    return e1 == buf || e2 == e1 ? NAN : (double)w;
}

static uint64_t read_nivcsw(void) {
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? (uint64_t)ru.ru_nivcsw : 0;
}

/* Timed calls for a sample of chunk operations expected to last chunk_ns
 * (0: unknown): see bench.h. */
static uint32_t subchunk_count(const bench_case *c, uint64_t chunk, double chunk_ns) {
    double want = LAT_BENCH_SUBCHUNKS_MIN;
    if (c->def.subchunks)
        want = c->def.subchunks;
    else if (chunk_ns > 0 && isfinite(chunk_ns) && ceil(chunk_ns / LAT_BENCH_SUBCHUNK_NS) > want)
        want = ceil(chunk_ns / LAT_BENCH_SUBCHUNK_NS);
    if (want > LAT_BENCH_SUBCHUNKS_MAX) want = LAT_BENCH_SUBCHUNKS_MAX;
    if (want > (double)chunk) want = (double)chunk;
    return want < 1 ? 1 : (uint32_t)want;
}

/* The rule of bench.h over sub-chunks 0..S-1 of sc (ns, ops): marks
 * sc->touched, returns how many, and the untouched time and operations. */
static uint32_t judge_subchunks(std_scratch *sc, uint32_t S, double *kept_ns, uint64_t *kept_ops) {
    for (uint32_t k = 0; k < S; k++)
        sc->tmp[k] = sc->ns[k] / (double)sc->ops[k];
    double m = lat_stats_median_inplace(sc->tmp, S);
    for (uint32_t k = 0; k < S; k++)
        sc->tmp[k] = fabs(sc->ns[k] - m * (double)sc->ops[k]);
    double sigma = 1.4826 * lat_stats_median_inplace(sc->tmp, S);
    double bar = LAT_BENCH_CENSOR_SPREAD_K * sigma;
    if (bar < LAT_BENCH_CENSOR_GAP_NS) bar = LAT_BENCH_CENSOR_GAP_NS;
    uint32_t touched = 0;
    *kept_ns = 0;
    *kept_ops = 0;
    for (uint32_t k = 0; k < S; k++) {
        sc->touched[k] = sc->ns[k] - m * (double)sc->ops[k] > bar;
        if (sc->touched[k]) {
            touched++;
        } else {
            *kept_ns += sc->ns[k];
            *kept_ops += sc->ops[k];
        }
    }
    return touched;
}

/* The end of a sample, the same for both kinds of benchmark: the group's
 * after_sample hook, the backend's collect (which may replace the duration
 * *ns) and, when measuring, the scenario metrics into res.  0 or a negative
 * errno. */
static int end_sample(lat_bench_group *g, void *ctx, const lat_bench_sample_info *info,
                      lat_bench_metrics *m, lat_bench_result *res, double *ns) {
    lat__bench_metrics_clear(m);
    if (g->has_lifecycle && g->lifecycle.after_sample)
        g->lifecycle.after_sample(g->lifecycle.ud, ctx, info, m);
    if (g->has_backend && g->backend.collect) {
        uint64_t d = (uint64_t)*ns;
        int rc = g->backend.collect(g->backend.ud, m, &d);
        if (rc) return rc;
        if (d != (uint64_t)*ns) *ns = (double)d;
    }
    if (info->phase != LAT_BENCH_MEASUREMENT) return 0;
    for (uint32_t i = 0; i < m->n; i++) {
        int rc = lat__bench_series_push(res, m->items[i].name, m->items[i].unit, "scenario",
                                        m->items[i].value);
        if (rc) return rc;
    }
    return 0;
}

/* One sample of S sub-chunks.  Nesting, outermost first: the platform
 * account (a file read and a system call, measured samples only), thread CPU
 * clock (a system call), counters (ioctls), then per sub-chunk the cycle
 * counter around fn alone. */
static int run_std_sample(lat_bench_runner *r, bench_case *c, lat_bench_result *res,
                          lat_bench_phase phase, uint32_t index, uint64_t chunk, uint32_t S,
                          lat_bench_metrics *m, sample_out *so) {
    lat_bench_group *g = c->group;
    std_scratch *sc = r->scratch;
    void *ctx = c->def.arg;
    int rc = 0;
    lat__bench_take_turn(r);
    if (c->def.prepare && (rc = c->def.prepare(c->def.arg, chunk, &ctx)) != 0) return rc;
    lat_bench_sample_info info = {phase, index};
    if (g->has_lifecycle && g->lifecycle.before_sample)
        g->lifecycle.before_sample(g->lifecycle.ud, ctx, &info);
    if (g->has_backend && g->backend.begin && (rc = g->backend.begin(g->backend.ud)) != 0) goto out;
    bool measured = phase == LAT_BENCH_MEASUREMENT;
    bool account = measured && !r->cfg.clock_ns;
    uint64_t base = chunk / S, extra = chunk % S;
    for (uint32_t k = 0; k < S; k++)
        sc->ops[k] = base + (k < extra);
    rec_buf *rb = sc->rec.v ? &sc->rec : NULL;
    if (rb) {
        rb->n = 0;
        rb->spill = measured ? r->hist : NULL;
        rb->spilled = 0;
    }
    double q0 = account ? read_runq_ns(r->schedstat_fd) : NAN;
    uint64_t v0 = account ? read_nivcsw() : 0;
    tls_rec = rb;
    uint64_t c0 = thread_cpu_ns();
    if (measured && r->pmu) lat__bench_pmu_start(r->perf);
    for (uint32_t k = 0; k < S; k++) {
        uint64_t t0 = now_ticks(r);
        c->def.fn(ctx, sc->ops[k], index);
        uint64_t t1 = now_ticks(r);
        sc->ticks[k] = t1 - t0;
        if (rb) sc->rec_end[k] = rb->n;
    }
    if (measured && r->pmu) lat__bench_pmu_stop_add(r->perf, r->pmu);
    so->cpu_ns = (double)(thread_cpu_ns() - c0);
    tls_rec = NULL;
    so->runq_ns = account ? read_runq_ns(r->schedstat_fd) - q0 : NAN;
    so->nivcsw = account ? read_nivcsw() - v0 : 0;
    if (g->has_backend && g->backend.end && (rc = g->backend.end(g->backend.ud)) != 0) goto out;
    so->raw_ns = so->ns = 0;
    for (uint32_t k = 0; k < S; k++) {
        double raw = ticks_to_ns(r, sc->ticks[k]);
        double t = raw - r->overhead_ns;
        sc->ns[k] = t > 0 ? t : 0;
        so->raw_ns += raw;
        so->ns += sc->ns[k];
    }
    double whole = so->ns;
    if ((rc = end_sample(g, ctx, &info, m, res, &so->ns)) != 0) goto out;
    if (so->ns != whole) { /* the backend replaced the duration: nothing to judge */
        memset(sc->touched, 0, S);
        so->touched = 0;
        so->kept_ns = so->ns;
        so->kept_ops = chunk;
    } else {
        so->touched = judge_subchunks(sc, S, &so->kept_ns, &so->kept_ops);
    }
    /* The tail: the untouched sub-chunks' latencies of a sample not set aside. */
    if (measured && rb && r->hist) {
        sc->spilled += rb->spilled;
        if ((double)so->kept_ops / (double)chunk >= LAT_BENCH_KEPT_FLOOR) {
            size_t from = 0;
            for (uint32_t k = 0; k < S; k++) {
                size_t to = sc->rec_end[k];
                for (size_t x = from; !sc->touched[k] && x < to; x++)
                    lat_hist_record(r->hist, rec_value(rb->v[x]));
                from = to;
            }
        }
    }
out:
    if (c->def.release) c->def.release(c->def.arg, ctx);
    return rc;
}

static uint32_t sample_count(const lat_bench_config *cfg, double per_sample_ns, bool *capped) {
    double want = per_sample_ns > 0 ? (double)cfg->budget_ns / per_sample_ns : cfg->max_samples;
    uint32_t n;
    if (want >= cfg->max_samples)
        n = cfg->max_samples;
    else if (want <= cfg->min_samples)
        n = cfg->min_samples;
    else
        n = (uint32_t)want;
    *capped = n == cfg->max_samples && (double)n * per_sample_ns < 0.8 * (double)cfg->budget_ns;
    if (n == 0) n = 1;
    return n;
}

/* Per-sample arrays; the platform account's only when it will be read (a
 * standard case on the cycle counter). */
static int alloc_samples(lat_bench_result *res, uint32_t n, bool account) {
    res->ns_per_op = lat__calloc(n, sizeof(double));
    res->raw_ns_per_op = lat__calloc(n, sizeof(double));
    res->kept_share = lat__calloc(n, sizeof(double));
    res->throughput = lat__calloc(n, sizeof(double));
    res->duration_ns = lat__calloc(n, sizeof(double));
    res->ops = lat__calloc(n, sizeof(uint64_t));
    res->cpu_ns = lat__calloc(n, sizeof(double));
    if (account) {
        res->runq_wait_ns = lat__calloc(n, sizeof(double));
        res->invol_switches = lat__calloc(n, sizeof(uint64_t));
        if (!res->runq_wait_ns || !res->invol_switches) return -ENOMEM;
    }
    return res->ns_per_op && res->raw_ns_per_op && res->kept_share && res->throughput &&
                   res->duration_ns && res->ops && res->cpu_ns
               ? 0
               : -ENOMEM;
}

static int finish_common(lat_bench_runner *r, lat_bench_result *res) {
    double cpu = 0;
    uint32_t threads = 1;
    if (res->kind == LAT_BENCH_CONCURRENT) {
        threads = 0;
        for (uint32_t i = 0; i < res->n_roles; i++)
            threads += res->roles[i].threads;
    }
    for (uint32_t i = 0; res->cpu_ns && i < res->n; i++)
        cpu += res->cpu_ns[i];
    /* 0 = unknown: against a virtual clock the ratio means nothing. */
    res->cpu_share = res->total_ns > 0 && !r->cfg.clock_ns ? cpu / (res->total_ns * threads) : 0;
    if (!r->cfg.clock_ns && res->n && res->cpu_share < 0.9)
        lat__bench_note(res,
                        "the measuring thread%s had a CPU only %.0f%% of the wall time "
                        "(an oversubscribed or busy machine): wall-time figures include waiting",
                        threads > 1 ? "s" : "", res->cpu_share * 100);
    int rc = lat__bench_kept_finish(res);
    lat__bench_series_finish(res);
    return rc;
}

/* The platform account of a standard result in its notes: what was censored
 * and set aside, and what the kernel says about the measured samples. */
static void note_account(const std_scratch *sc, lat_bench_result *res) {
    uint64_t subs = (uint64_t)res->n * res->subchunks, ops = 0, kept = 0;
    uint32_t aside = 0, switched = 0, waited = 0;
    uint64_t nsw = 0;
    double wait = 0;
    for (uint32_t i = 0; i < res->n; i++) {
        ops += res->ops[i];
        if (res->kept_share[i] < res->kept_floor)
            aside++;
        else
            kept += (uint64_t)llround(res->kept_share[i] * (double)res->ops[i]);
        if (res->invol_switches && res->invol_switches[i]) {
            switched++;
            nsw += res->invol_switches[i];
        }
        if (res->runq_wait_ns && isfinite(res->runq_wait_ns[i]) && res->runq_wait_ns[i] > 0) {
            waited++;
            wait += res->runq_wait_ns[i];
        }
    }
    if (res->touched)
        lat__bench_note(res,
                        "the platform touched %llu of %llu sub-chunks (over the sample's median "
                        "by > %.0f us and > %.0f robust sigmas): censored, %.1f%% of the ops kept",
                        (unsigned long long)res->touched, (unsigned long long)subs,
                        LAT_BENCH_CENSOR_GAP_NS / 1e3, LAT_BENCH_CENSOR_SPREAD_K,
                        ops ? 100.0 * (double)kept / (double)ops : 100.0);
    if (aside)
        lat__bench_note(res, "%u of %u samples set aside (kept share under %.0f%%)", aside, res->n,
                        res->kept_floor * 100);
    if (switched || waited)
        lat__bench_note(res,
                        "the kernel took the CPU away: %u of %u samples had involuntary context "
                        "switches (%llu), %u waited on the run queue (%.1f us in all)",
                        switched, res->n, (unsigned long long)nsw, waited, wait / 1e3);
    if (sc->spilled)
        lat__bench_note(res,
                        "%llu per-op latencies past the %u buffered per sample entered the tail "
                        "unjudged",
                        (unsigned long long)sc->spilled, (unsigned)LAT_BENCH_REC_BUFFER);
}

#define MAX_CHUNK 50000000ull

static int run_standard(lat_bench_runner *r, bench_case *c, lat_bench_result *res) {
    const lat_bench_config *cfg = &r->cfg;
    lat_bench_metrics m = {0};
    sample_out so;
    int rc = 0;
    res->bytes_per_op = c->def.bytes_per_op;
    res->kept_floor = LAT_BENCH_KEPT_FLOOR;
    std_scratch *sc = lat__calloc(1, sizeof *sc);
    if (!sc) return -ENOMEM;
    if (cfg->record_latency) {
        sc->rec.cap = LAT_BENCH_REC_BUFFER;
        if (!(sc->rec.v = lat__alloc(sc->rec.cap * sizeof *sc->rec.v))) {
            lat__free(sc);
            return -ENOMEM;
        }
    }
    r->scratch = sc;

    /* Calibration (skipped for a fixed chunk). */
    uint64_t chunk = c->def.chunk_size;
    double chunk_ns = 0;
    if (chunk == 0) {
        double target = (double)cfg->target_chunk_ns;
        uint64_t cur = 1;
        for (uint32_t pass = 0; pass < 15; pass++) {
            if ((rc = run_std_sample(r, c, res, LAT_BENCH_WARMUP, pass, cur,
                                     subchunk_count(c, cur, 0), &m, &so)))
                goto out;
            res->calibration_passes++;
            chunk = cur;
            chunk_ns = so.raw_ns;
            if (so.raw_ns >= 0.8 * target && so.raw_ns <= 1.2 * target) break;
            uint64_t next;
            if (so.raw_ns < target / 500.0)
                next = cur * 10;
            else
                next = (uint64_t)llround((double)cur * target / so.raw_ns);
            if (next < 1) next = 1;
            if (next > MAX_CHUNK) next = MAX_CHUNK;
            if (next == cur) break;
            cur = next;
        }
        if (cur != chunk) { /* pass limit hit after choosing a new size: extrapolate */
            chunk_ns = chunk_ns * (double)cur / (double)chunk;
            chunk = cur;
        }
    }
    res->chunk_size = chunk;

    /* Warm-up: whole samples until warm_up_ns of clock time has passed. */
    uint32_t S = subchunk_count(c, chunk, chunk_ns);
    uint64_t w0 = now_ticks(r);
    double wsum = 0;
    uint32_t wn = 0;
    while (ticks_to_ns(r, now_ticks(r) - w0) < (double)cfg->warm_up_ns && wn < 100000) {
        if ((rc = run_std_sample(r, c, res, LAT_BENCH_WARMUP, wn, chunk, S, &m, &so))) goto out;
        wsum += so.raw_ns;
        wn++;
        S = subchunk_count(c, chunk, wsum / wn); /* as measurement will run */
        if (so.raw_ns == 0 && wn >= 16) break;   /* a clock that does not move */
    }
    res->warmup_samples = wn;
    if (wn) chunk_ns = wsum / wn;
    if (chunk_ns == 0 && c->def.chunk_size) { /* fixed chunk, no warm-up: one trial */
        if ((rc = run_std_sample(r, c, res, LAT_BENCH_WARMUP, 0, chunk, S, &m, &so))) goto out;
        chunk_ns = so.raw_ns;
    }

    uint32_t n = sample_count(cfg, chunk_ns, &res->budget_capped);
    S = subchunk_count(c, chunk, chunk_ns);
    res->subchunks = S;
    if ((rc = alloc_samples(res, n, !cfg->clock_ns))) goto out;
    double kept_ns = 0, kept_ops = 0;
    double bpo = c->def.bytes_per_op ? (double)c->def.bytes_per_op : 1;
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = run_std_sample(r, c, res, LAT_BENCH_MEASUREMENT, i, chunk, S, &m, &so))) goto out;
        double ns = so.ns > 0 ? so.ns : 1e-3; /* a zero-time sample would divide by zero */
        double kns = so.kept_ns > 0 ? so.kept_ns : 1e-3;
        uint64_t kops = so.kept_ops ? so.kept_ops : chunk;
        res->duration_ns[i] = so.ns;
        res->cpu_ns[i] = so.cpu_ns;
        res->ops[i] = chunk;
        res->raw_ns_per_op[i] = ns / (double)chunk;
        res->ns_per_op[i] = kns / (double)kops;
        res->kept_share[i] = (double)so.kept_ops / (double)chunk;
        res->throughput[i] = (double)kops * bpo * 1e9 / kns;
        if (res->runq_wait_ns) res->runq_wait_ns[i] = so.runq_ns;
        if (res->invol_switches) res->invol_switches[i] = so.nivcsw;
        res->touched += so.touched;
        res->total_ops += chunk;
        res->total_ns += so.ns;
        if (res->kept_share[i] >= res->kept_floor) {
            kept_ns += so.kept_ns;
            kept_ops += (double)so.kept_ops;
        }
        res->n = i + 1;
    }
    if (kept_ops > 0)
        res->mean_ns_per_op = kept_ns / kept_ops;
    else
        res->mean_ns_per_op = res->total_ops ? res->total_ns / (double)res->total_ops : 0;
    if (res->budget_capped)
        lat__bench_note(res, "sample cap %u hit with under 80%% of the %.2f s budget used",
                        cfg->max_samples, (double)cfg->budget_ns / 1e9);
    note_account(sc, res);
out:
    r->scratch = NULL;
    lat__free(sc->rec.v);
    lat__free(sc);
    lat__bench_metrics_clear(&m);
    lat__free(m.items);
    return rc;
}

/* ---- concurrent benchmarks ----------------------------------------------------------------------
 */

/* A condition-variable barrier that can be aborted (a failed thread start
 * must not leave the others waiting forever). */
typedef struct cbarrier {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t parties, waiting;
    uint64_t generation;
    bool aborted;
} cbarrier;

static void cbar_init(cbarrier *b, uint32_t parties) {
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->parties = parties;
    b->waiting = 0;
    b->generation = 0;
    b->aborted = false;
}
static void cbar_destroy(cbarrier *b) {
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
}
/* false when aborted */
static bool cbar_wait(cbarrier *b) {
    pthread_mutex_lock(&b->mu);
    uint64_t gen = b->generation;
    if (++b->waiting == b->parties) {
        b->waiting = 0;
        b->generation++;
        pthread_cond_broadcast(&b->cv);
    } else {
        while (gen == b->generation && !b->aborted)
            pthread_cond_wait(&b->cv, &b->mu);
    }
    bool ok = !b->aborted;
    pthread_mutex_unlock(&b->mu);
    return ok;
}
static void cbar_abort(cbarrier *b) {
    pthread_mutex_lock(&b->mu);
    b->aborted = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

typedef struct worker_slot {
    pthread_t tid;
    lat_bench_control ctl;
    const lat_bench_worker *worker;
    void *ctx;
    cbarrier *bar;
    lat_bench_worker_result out;
    lat_hist *hist;  /* per thread, measured samples only (NULL: not recording) */
    uint64_t cpu_ns; /* the thread's CPU time running the worker, this sample */
    bool record;     /* this sample records */
    bool started;
    bool counters; /* open a counter set in the thread for this sample */
    int cpu;       /* pin to this CPU, -1 none */
    pmu_acc pmu;   /* this slot's sums over measured samples */
} worker_slot;

static void *worker_main(void *p) {
    worker_slot *s = p;
    /* Barrier 1: every thread exists (and has opened its counters).
     * Barrier 2: counters enabled.  Barrier 3: the coordinated release. */
    if (s->cpu >= 0) lat_pin_thread(s->cpu); /* best effort: the mask may have changed */
    lat_perf *perf = NULL;
    char note[256];
    if (s->counters) lat__bench_pmu_open(&perf, note, sizeof note);
    if (!cbar_wait(s->bar)) goto out;
    lat__bench_pmu_start(perf);
    if (!cbar_wait(s->bar) || !cbar_wait(s->bar)) goto out;
    tls_hist = s->record ? s->hist : NULL;
    uint64_t c0 = thread_cpu_ns();
    s->worker->run(s->ctx, &s->ctl, &s->out);
    s->cpu_ns = thread_cpu_ns() - c0;
    tls_hist = NULL;
out:
    if (perf) lat__bench_pmu_stop_add(perf, &s->pmu);
    lat__bench_pmu_close(perf);
    return NULL;
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

typedef struct csample {
    double duration_ns;
    uint64_t *role_ops; /* per role */
} csample;

static int run_conc_sample(lat_bench_runner *r, bench_case *c, lat_bench_result *res,
                           lat_bench_phase phase, uint32_t index, uint64_t window_ns,
                           worker_slot *slots, uint32_t nthreads, lat_bench_metrics *m,
                           csample *cs) {
    lat_bench_group *g = c->group;
    void *ctx = c->cdef.arg;
    int rc = 0;
    if (c->cdef.prepare && (rc = c->cdef.prepare(c->cdef.arg, nthreads, &ctx)) != 0) return rc;
    lat_bench_sample_info info = {phase, index};
    if (g->has_lifecycle && g->lifecycle.before_sample)
        g->lifecycle.before_sample(g->lifecycle.ud, ctx, &info);

    atomic_int stop;
    atomic_init(&stop, 0);
    cbarrier bar;
    cbar_init(&bar, nthreads + 1);
    uint32_t t = 0, started = 0;
    uint64_t t0 = 0;
    for (uint32_t w = 0; w < c->cdef.n_workers; w++)
        for (uint32_t k = 0; k < c->workers[w].threads; k++, t++) {
            worker_slot *s = &slots[t];
            memset(&s->out, 0, sizeof s->out);
            s->cpu_ns = 0;
            s->ctl = (lat_bench_control){&stop, t, w, k, nthreads};
            s->worker = &c->workers[w];
            s->ctx = ctx;
            s->bar = &bar;
            s->record = phase == LAT_BENCH_MEASUREMENT && s->hist;
            s->counters = phase == LAT_BENCH_MEASUREMENT && r->perf;
            s->cpu = r->ncpus ? r->cpus[t % (uint32_t)r->ncpus] : -1;
            s->started = pthread_create(&s->tid, NULL, worker_main, s) == 0;
            if (!s->started) {
                rc = -EAGAIN;
                goto join;
            }
            started++;
        }
    if (!cbar_wait(&bar) || !cbar_wait(&bar)) {
        rc = -EAGAIN;
        goto join;
    }
    if (g->has_backend && g->backend.begin && (rc = g->backend.begin(g->backend.ud)) != 0) {
        cbar_abort(&bar);
        goto join;
    }
    t0 = now_ticks(r);
    cbar_wait(&bar); /* release */
    sleep_ns(window_ns);
    /* Release pairs with nothing the workers need (relaxed loads suffice);
     * join below is what publishes their results to us. */
    atomic_store_explicit(&stop, 1, memory_order_release);
join:
    if (rc) {
        cbar_abort(&bar);
        atomic_store_explicit(&stop, 1, memory_order_release);
    }
    for (uint32_t i = 0; i < started; i++)
        pthread_join(slots[i].tid, NULL);
    uint64_t t1 = now_ticks(r);
    cbar_destroy(&bar);
    if (rc) goto out;
    if (g->has_backend && g->backend.end && (rc = g->backend.end(g->backend.ud)) != 0) goto out;
    cs->duration_ns = ticks_to_ns(r, t1 - t0);
    if ((rc = end_sample(g, ctx, &info, m, res, &cs->duration_ns)) != 0) goto out;
    t = 0;
    for (uint32_t w = 0; w < c->cdef.n_workers; w++) {
        cs->role_ops[w] = 0;
        for (uint32_t k = 0; k < c->workers[w].threads; k++, t++)
            cs->role_ops[w] += slots[t].out.operations;
    }
out:
    if (c->cdef.release) c->cdef.release(c->cdef.arg, ctx);
    return rc;
}

static int role_event_add(lat_bench_role *role, uint32_t *cap, const char *name, uint64_t v) {
    for (uint32_t i = 0; i < role->n_events; i++)
        if (strcmp(role->events[i].name, name) == 0) {
            role->events[i].total += v;
            return 0;
        }
    int rc = lat__bench_grow((void **)&role->events, cap, role->n_events + 1, sizeof *role->events);
    if (rc) return rc;
    lat_bench_event *e = &role->events[role->n_events];
    memset(e, 0, sizeof *e);
    if (!(e->name = lat__strdup(name))) return -ENOMEM;
    e->total = v;
    role->n_events++;
    return 0;
}

/* Sample i of every role and of the whole: ops, rates and per-thread
 * counters from the workers' slots. */
static int record_conc_sample(lat_bench_result *res, const worker_slot *slots, uint32_t nthreads,
                              const uint64_t *role_ops, uint32_t *ecap, uint32_t i, double d) {
    uint32_t nroles = res->n_roles;
    int rc = 0;
    uint64_t ops = 0;
    uint32_t t = 0;
    for (uint32_t w = 0; w < nroles; w++) {
        lat_bench_role *ro = &res->roles[w];
        uint64_t ro_ops = role_ops[w];
        ro->ops[i] = ro_ops;
        ro->ops_per_sec[i] = (double)ro_ops * 1e9 / d;
        ro->ns_per_op[i] = ro_ops ? d * ro->threads / (double)ro_ops : d * ro->threads;
        ro->total_ops += ro_ops;
        ro->n = i + 1;
        ops += ro_ops;
        for (uint32_t k = 0; k < ro->threads; k++, t++) {
            const lat_bench_worker_result *wr = &slots[t].out;
            for (uint32_t e = 0; e < wr->n_counters; e++)
                if (wr->counters[e].name && (rc = role_event_add(ro, &ecap[w], wr->counters[e].name,
                                                                 wr->counters[e].value)))
                    return rc;
        }
    }
    res->ops[i] = ops;
    res->duration_ns[i] = d;
    for (uint32_t k = 0; k < nthreads; k++)
        res->cpu_ns[i] += (double)slots[k].cpu_ns;
    res->ns_per_op[i] = ops ? d * nthreads / (double)ops : d * nthreads;
    res->raw_ns_per_op[i] = res->ns_per_op[i]; /* concurrent samples are not censored */
    res->kept_share[i] = 1;
    res->throughput[i] = (double)ops * 1e9 / d;
    res->total_ops += ops;
    res->total_ns += d;
    res->n = i + 1;
    return 0;
}

/* After the samples: the merged per-op tail, the counters per role and in
 * all, and each role's summaries and event rates. */
static void finish_concurrent(const lat_bench_runner *r, const bench_case *c, lat_bench_result *res,
                              const worker_slot *slots, uint32_t nthreads) {
    uint32_t nroles = res->n_roles;
    /* Per-op tail: every thread's histogram merged. */
    if (r->cfg.record_latency) {
        lat_hist all;
        if (lat_hist_init(&all, REC_LOWEST, REC_HIGHEST, REC_DIGITS) == 0) {
            for (uint32_t t = 0; t < nthreads; t++)
                if (slots[t].hist) lat_hist_add(&all, slots[t].hist);
            tail_from(&res->tail, &all);
            lat_hist_fini(&all);
        }
    }
    /* Counters: per role and combined. */
    if (r->perf) {
        pmu_acc all = {0};
        uint32_t t = 0;
        for (uint32_t w = 0; w < nroles; w++) {
            pmu_acc ra = {0};
            for (uint32_t k = 0; k < c->workers[w].threads; k++, t++)
                lat__bench_pmu_merge(&ra, &slots[t].pmu);
            lat__bench_pmu_finish(&ra, res->roles[w].total_ops, &res->roles[w].pmu);
            lat__bench_pmu_merge(&all, &ra);
        }
        lat__bench_pmu_finish(&all, res->total_ops, &res->pmu);
    }
    res->mean_ns_per_op = res->total_ops ? res->total_ns * nthreads / (double)res->total_ops : 0;
    for (uint32_t w = 0; w < nroles; w++) {
        lat_bench_role *ro = &res->roles[w];
        if (ro->n) {
            lat_bench_summarize(ro->ops_per_sec, ro->n, &ro->throughput);
            lat_bench_summarize(ro->ns_per_op, ro->n, &ro->latency);
        }
        for (uint32_t e = 0; e < ro->n_events; e++) {
            lat_bench_event *ev = &ro->events[e];
            ev->per_op = ro->total_ops ? (double)ev->total / (double)ro->total_ops : 0;
            ev->per_sec = res->total_ns > 0 ? (double)ev->total * 1e9 / res->total_ns : 0;
        }
    }
}

static int run_concurrent(lat_bench_runner *r, bench_case *c, lat_bench_result *res) {
    const lat_bench_config *cfg = &r->cfg;
    uint32_t nroles = c->cdef.n_workers, nthreads = 0;
    for (uint32_t w = 0; w < nroles; w++)
        nthreads += c->workers[w].threads;
    uint64_t window =
        c->group->sample_duration_ns ? c->group->sample_duration_ns : cfg->sample_duration_ns;
    res->sample_duration_ns = window;
    res->kept_floor = LAT_BENCH_KEPT_FLOOR;
    lat_bench_metrics m = {0};
    int rc = 0;
    uint32_t *ecap = NULL;
    worker_slot *slots = lat__calloc(nthreads, sizeof *slots);
    uint64_t *role_ops = lat__calloc(nroles, sizeof *role_ops);
    res->roles = lat__calloc(nroles, sizeof *res->roles);
    ecap = lat__calloc(nroles, sizeof *ecap);
    if (!slots || !role_ops || !res->roles || !ecap) {
        rc = -ENOMEM;
        goto out;
    }
    res->n_roles = nroles;
    for (uint32_t t = 0; r->cfg.record_latency && t < nthreads; t++)
        if ((rc = lat_hist_create(REC_LOWEST, REC_HIGHEST, REC_DIGITS, &slots[t].hist))) goto out;
    for (uint32_t w = 0; w < nroles; w++) {
        res->roles[w].threads = c->workers[w].threads;
        if (!(res->roles[w].name = lat__strdup(c->workers[w].name))) {
            rc = -ENOMEM;
            goto out;
        }
    }
    csample cs = {0, role_ops};

    uint64_t w0 = now_ticks(r);
    uint32_t wn = 0;
    while (ticks_to_ns(r, now_ticks(r) - w0) < (double)cfg->warm_up_ns && wn < 100000) {
        rc = run_conc_sample(r, c, res, LAT_BENCH_WARMUP, wn, window, slots, nthreads, &m, &cs);
        if (rc) goto out;
        wn++;
    }
    res->warmup_samples = wn;

    uint32_t n = sample_count(cfg, (double)window, &res->budget_capped);
    if ((rc = alloc_samples(res, n, false))) goto out;
    for (uint32_t w = 0; w < nroles; w++) {
        lat_bench_role *ro = &res->roles[w];
        ro->ops_per_sec = lat__calloc(n, sizeof(double));
        ro->ns_per_op = lat__calloc(n, sizeof(double));
        ro->ops = lat__calloc(n, sizeof(uint64_t));
        if (!ro->ops_per_sec || !ro->ns_per_op || !ro->ops) {
            rc = -ENOMEM;
            goto out;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        rc = run_conc_sample(r, c, res, LAT_BENCH_MEASUREMENT, i, window, slots, nthreads, &m, &cs);
        if (rc) goto out;
        rc = record_conc_sample(res, slots, nthreads, role_ops, ecap, i,
                                cs.duration_ns > 0 ? cs.duration_ns : 1e-3);
        if (rc) goto out;
    }
    finish_concurrent(r, c, res, slots, nthreads);
out:
    lat__bench_metrics_clear(&m);
    lat__free(m.items);
    for (uint32_t t = 0; slots && t < nthreads; t++)
        lat_hist_destroy(slots[t].hist);
    lat__free(slots);
    lat__free(role_ops);
    lat__free(ecap);
    return rc;
}

/* ---- the run
 * ---------------------------------------------------------------------------------------- */

static int fill_result_header(const bench_case *c, lat_bench_result *res, uint32_t exec) {
    res->group = lat__strdup(c->group->name);
    res->name = lat__strdup(c->name);
    if (!res->group || !res->name) return -ENOMEM;
    res->kind = c->kind;
    res->domain = c->group->domain;
    res->execution_index = exec;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < c->group->n_meta; i++)
        if (lat__bench_kv_push(&res->meta, &res->n_meta, &cap, c->group->meta[i].key,
                               c->group->meta[i].value))
            return -ENOMEM;
    for (uint32_t i = 0; i < c->n_meta; i++)
        if (lat__bench_kv_push(&res->meta, &res->n_meta, &cap, c->meta[i].key, c->meta[i].value))
            return -ENOMEM;
    return 0;
}

int lat_bench_run(lat_bench_runner *r) {
    if (!r || r->ran) return -EINVAL;
    const lat_bench_config *cfg = &r->cfg;
    if (cfg->min_samples == 0 || cfg->max_samples < cfg->min_samples) return -EINVAL;
    r->ran = true;
    int first_rc = 0;
    size_t *order = NULL;
    lat_bench_report *rep = lat__calloc(1, sizeof *rep);
    if (!rep) return -ENOMEM;
    r->report = rep;
    rep->schema_version = LAT_BENCH_SCHEMA_VERSION;
    rep->shuffled = cfg->shuffle;
    rep->seed = cfg->seed;
    if (!(rep->suite = lat__strdup(r->suite))) return -ENOMEM;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
    if (!(rep->hostname = lat__strdup(host))) return -ENOMEM;

    size_t n = 0;
    order = lat__calloc(r->n_cases ? r->n_cases : 1, sizeof *order);
    if (!order) return -ENOMEM;
    for (size_t i = 0; i < r->n_cases; i++)
        if (lat_bench_case_selected(r, i)) order[n++] = i;
    if (cfg->shuffle) lat_bench_shuffle(cfg->seed, order, n);
    rep->results = lat__calloc(n ? n : 1, sizeof *rep->results);
    if (!rep->results) {
        lat__free(order);
        return -ENOMEM;
    }

    /* Placement: pin (the runner thread for standard cases, workers round-robin)
     * to performance cores within our affinity mask. */
    lat_cpuset saved;
    bool restore = false;
    if (cfg->pin && lat_thread_affinity(&saved) == 0) {
        lat_topo *topo = NULL;
        if (lat_topo_load(NULL, &topo) == 0) {
            lat_cpuset use;
            lat_cpuset_and(&use, lat_topo_perf_cores(topo), &saved);
            int cnt = lat_cpuset_count(&use);
            if (cnt > 0 && (r->cpus = lat__calloc((size_t)cnt, sizeof *r->cpus))) {
                for (int cpu = lat_cpuset_next(&use, 0); cpu >= 0 && r->ncpus < cnt;
                     cpu = lat_cpuset_next(&use, cpu + 1))
                    r->cpus[r->ncpus++] = cpu;
                lat_cpuset want; /* LAT_BENCH_RUNNER_CPU: one CPU, else where it runs now */
                const char *e = getenv(LAT_BENCH_ENV_RUNNER_CPU);
                int cur = e && !lat_cpuset_parse(e, &want) && lat_cpuset_count(&want) == 1
                              ? lat_cpuset_next(&want, 0)
                              : lat_current_cpu();
                int pick = cur >= 0 && lat_cpuset_has(&use, cur) ? cur : r->cpus[0];
                if (lat_pin_thread(pick) == 0) {
                    r->pinned_cpu = pick;
                    restore = true;
                }
            }
            lat_topo_destroy(topo);
        }
    }
    if (cfg->counters && !r->cfg.clock_ns) {
        if (lat__bench_pmu_open(&r->perf, r->pmu_note, sizeof r->pmu_note) != 0) r->perf = NULL;
    }

    /* The runner thread's run-queue wait, for the standard samples' account. */
    if (!cfg->clock_ns) r->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    lat_bench_timer_overhead_ns(r);
    for (size_t k = 0; k < n; k++) {
        bench_case *c = &r->cases[order[k]];
        lat_bench_result *res = &rep->results[rep->n_results];
        if (k > 0 && cfg->cooldown_ns) sleep_ns(cfg->cooldown_ns);
        int rc = fill_result_header(c, res, (uint32_t)k);
        res->timer_overhead_ns = c->kind == LAT_BENCH_STANDARD ? r->overhead_ns : 0;
        if (!rc && c->kind == LAT_BENCH_STANDARD) {
            /* Only measurement samples record and count (see run_std_sample). */
            lat_hist *h = NULL;
            pmu_acc acc = {0};
            if (cfg->record_latency) rc = lat_hist_create(REC_LOWEST, REC_HIGHEST, REC_DIGITS, &h);
            r->hist = h;
            r->pmu = r->perf ? &acc : NULL;
            if (!rc) rc = run_standard(r, c, res);
            r->hist = NULL;
            r->pmu = NULL;
            if (h) tail_from(&res->tail, h);
            lat_hist_destroy(h);
            if (r->perf) lat__bench_pmu_finish(&acc, res->total_ops, &res->pmu);
        } else if (!rc) {
            rc = run_concurrent(r, c, res);
        }
        if (!rc) rc = finish_common(r, res);
        if (!rc) {
            /* Missing counters: said once, on the first result of the run. */
            if (r->pmu_note[0] && cfg->counters && rep->n_results == 0)
                lat__bench_note(res, "%s", r->pmu_note);
            if (res->pmu.valid && res->pmu.coverage < 0.9)
                lat__bench_note(res, "counters ran %.0f%% of the time (multiplexed): scaled",
                                res->pmu.coverage * 100);
        }
        if (rc) {
            lat__bench_result_clear(res);
            if (!first_rc) first_rc = rc;
            continue;
        }
        rep->n_results++;
    }
    lat__free(order);
    if (r->schedstat_fd >= 0) close(r->schedstat_fd);
    r->schedstat_fd = -1;
    lat__bench_pmu_close(r->perf);
    r->perf = NULL;
    if (restore) lat_unpin_thread(&saved);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    rep->timestamp_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    char buf[64];
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
    if (!(rep->timestamp = lat__strdup(buf)) && !first_rc) first_rc = -ENOMEM;
    return first_rc;
}

const lat_bench_report *lat_bench_runner_report(const lat_bench_runner *r) {
    return r ? r->report : NULL;
}
