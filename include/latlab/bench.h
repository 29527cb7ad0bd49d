/* bench.h - the micro-benchmark harness: sample-driven standard benchmarks,
 * concurrent worker-role benchmarks, robust statistics, a persisted JSON report
 * and a statistically sound comparison with a previous report. */

/* Model (micromeasure's, in C).  A *standard* benchmark is a function
 * fn(ctx, chunk_size, chunk_index) that performs chunk_size operations; the
 * runner calibrates chunk_size so one call (a *sample*) lasts about
 * target_chunk_ns, warms up, then takes min..max samples clamped by a time
 * budget.  A *concurrent* benchmark runs several worker *roles* (each with a
 * thread count) against one shared context for a fixed sample_duration; each
 * worker loops until lat_bench_should_stop() and returns its operation count
 * and named event counters.  Per-sample figures are kept in execution order;
 * statistics (mean = total time / total ops, median, p95, MAD, CV, Tukey
 * outliers) sort temporary copies. */

/* Timing uses the cycle counter (clock.h) converted with the process-wide
 * calibration; the cost of the clock reads around a timed call (timer
 * overhead) is measured once per runner, reported, and subtracted from every
 * timed call. */

/* The platform account of a standard sample.  A sample is timed as S
 * *sub-chunks*: S calls fn(ctx, sub_ops, chunk_index) whose sub_ops add up to
 * the chunk (they differ by at most one), each with the cycle counter read
 * around it.  S is the def's `subchunks` when set, else enough sub-chunks of
 * about LAT_BENCH_SUBCHUNK_NS for the sample's expected length, at least
 * LAT_BENCH_SUBCHUNKS_MIN, at most LAT_BENCH_SUBCHUNKS_MAX, never more than
 * the chunk's operations. */

/* Why 25 us: a shared VM's host takes 600-1,300 gaps a second of 10-500 us
 * from a spinning thread, and 3% of 25 us sub-chunks meet one, so their
 * median is the code's own figure.  100 us sub-chunks met one in 13%; under
 * 10% injected noise in 50 us bursts samples then kept too little, were set
 * aside, and left those the host had slowed evenly. */

/* The rule, per sample, with t_k the sub-chunk's time (timer overhead
 * subtracted) and o_k its operations:
 *
 *   m     = median over k of t_k / o_k          (the sample's own rate)
 *   d_k   = t_k - m * o_k                       (a sub-chunk's excess, ns)
 *   sigma = 1.4826 * median over k of |d_k|     (the sub-chunks' own spread)
 *   touched by the platform  <=>  d_k > LAT_BENCH_CENSOR_GAP_NS  (10 us, the
 *                                 gap threshold of gaps.h)
 *                             and d_k > LAT_BENCH_CENSOR_SPREAD_K (5) * sigma */

/* A benchmark whose operations are genuinely slow now and then (one op in
 * N taking a microsecond more) spreads its slow ops over every sub-chunk,
 * so its sub-chunks differ by a few slow ops at most and sigma absorbs
 * that: it is not censored.  A genuine slow op rarer than one per
 * sub-chunk and longer than 10 us (a rehash every 10^5 ops) looks like the
 * platform's gap: give such a benchmark `subchunks = 1` (no censoring).
 * With fewer than about 5 sub-chunks nothing can be censored. */

/* The sample's kept figure (ns_per_op) is the untouched sub-chunks' time
 * over their operations; raw_ns_per_op is the whole sample's; kept_share is
 * untouched ops / ops.  At most half the sub-chunks can sit above their own
 * median, so a kept share cannot fall much under one half.
 *
 * A sample whose kept share is under LAT_BENCH_KEPT_FLOOR (3/4) is *set
 * aside*: the host disturbed more than a quarter of it, and the rest likely
 * carried gaps under the threshold too.  It is listed with its figures but
 * left out of the statistics, the comparison and the per-op tail.  When every
 * sample is set aside, the statistics fall back to all of them. */

/* Per-op latencies (lat_bench_record_ns) enter the tail only from the
 * untouched sub-chunks of samples not set aside.  They are buffered per
 * sample (LAT_BENCH_REC_BUFFER values); past that they go to the tail
 * unjudged, and a note says how many.
 *
 * Around each sample, outside the timed calls, the runner also reads the
 * thread's run-queue wait (/proc/thread-self/schedstat) and involuntary
 * context switches (getrusage RUSAGE_THREAD).  The sample's account says
 * whether the kernel took the CPU away; a hypervisor's steal shows in
 * neither, only in the sub-chunks.  Not read against a virtual clock.
 *
 * Concurrent benchmarks are not censored: their samples are one window of
 * several threads (kept_share 1, raw_ns_per_op = ns_per_op). */

/* The library never prints on its own: lat_bench_report_print(),
 * lat_bench_comparison_print() and lat_bench_main() take the FILE* to write to.
 * Registration and running are single-threaded (one runner per thread);
 * reports are plain data, read-only after they are produced. */
#ifndef LATLAB_BENCH_H
#define LATLAB_BENCH_H

#include "latlab/compiler.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_t; /* jansson */

#define LAT_BENCH_SCHEMA_VERSION 1
#define LAT_BENCH_MAX_COUNTERS 8 /* named event counters per worker result */
/* The platform account of a standard sample (see the top of this file). */
#define LAT_BENCH_SUBCHUNKS_MIN 16      /* sub-chunks per sample, at least */
#define LAT_BENCH_SUBCHUNKS_MAX 1024    /* ... at most */
#define LAT_BENCH_SUBCHUNK_NS 25000.0   /* aimed length of a sub-chunk (25 us) */
#define LAT_BENCH_CENSOR_GAP_NS 10000u  /* excess that may be a gap: LAT_GAPS_DEFAULT_NS */
#define LAT_BENCH_CENSOR_SPREAD_K 5.0   /* ... and that many robust sigmas */
#define LAT_BENCH_KEPT_FLOOR 0.75       /* a sample keeping less is set aside */
#define LAT_BENCH_REC_BUFFER (1u << 20) /* per-op latencies buffered per sample */
/* Environment variables. */
#define LAT_BENCH_ENV_NO_PIN "LAT_BENCH_NO_PIN"       /* "1": do not pin threads */
#define LAT_BENCH_ENV_RESULTS "LAT_BENCH_RESULTS_DIR" /* default results folder */
#define LAT_BENCH_DEFAULT_RESULTS "results/bench"
/* "N": the measuring thread on CPU N when it is a performance core of the
 * affinity mask (default: where it starts); pins even with LAT_BENCH_NO_PIN. */
#define LAT_BENCH_ENV_RUNNER_CPU "LAT_BENCH_RUNNER_CPU"
/* "R:W": take turns with other programs, sample by sample (`latlab ab` sets it
 * for the runs of a round, so A and B sample the host's state of the moment
 * alike).  Before every standard sample the runner thread writes one byte to
 * fd W ('r' the first time: ready; then 'd': done) and blocks until one byte
 * comes on fd R; it holds the turn until its next sample or its exit.  Fds
 * that are not open, or an R that ends, mean no turns.  Between samples only:
 * the measured part makes no system call. */
#define LAT_BENCH_ENV_TURNS "LAT_BENCH_TURNS"

typedef enum { LAT_BENCH_CPU = 0, LAT_BENCH_IO = 1 } lat_bench_domain;
typedef enum { LAT_BENCH_STANDARD = 0, LAT_BENCH_CONCURRENT = 1 } lat_bench_kind;
typedef enum { LAT_BENCH_WARMUP = 0, LAT_BENCH_MEASUREMENT = 1 } lat_bench_phase;

/* ---- configuration ----------------------------------------------------------- */

typedef struct lat_bench_config {
    uint64_t target_chunk_ns;    /* calibration target per sample (50 ms); window +-20% */
    uint64_t warm_up_ns;         /* warm-up time per benchmark (1 s) */
    uint64_t budget_ns;          /* measurement budget per benchmark (5 s) */
    uint32_t min_samples;        /* 20 */
    uint32_t max_samples;        /* 100 */
    uint64_t sample_duration_ns; /* concurrent sample window (50 ms) unless the group sets one */
    uint64_t cooldown_ns;        /* unmeasured sleep between benchmark cases (0) */
    uint64_t seed;               /* case-order seed when shuffle is set */
    bool shuffle;                /* run cases in a seeded random order */
    bool pin;                    /* pin threads to performance cores (true unless env opt-out) */
    bool counters;               /* per-sample hardware counters where available (true) */
    bool record_latency;         /* keep a per-benchmark histogram for lat_bench_record_ns (true) */
    /* Optional clock override (tests): returns ns; NULL = the cycle counter. */
    uint64_t (*clock_ns)(void *ud);
    void *clock_ud;
} lat_bench_config;

/* The spec's defaults (above); `pin` honours LAT_BENCH_NO_PIN and LAT_BENCH_RUNNER_CPU.
 * NULL is ignored. */
LAT_API void lat_bench_config_default(lat_bench_config *c);
/* Short runs (--quick): 10 ms chunks, 100 ms warm-up, 0.5 s budget, 10 ms
 * concurrent samples, 10..100 samples.  NULL is ignored. */
LAT_API void lat_bench_config_quick(lat_bench_config *c);

/* ---- standard benchmarks --------------------------------------------------------- */

/* Perform chunk_size operations on ctx.  chunk_index is the sample's index
 * within its phase (calibration trials and warm-up runs count separately). */
typedef void (*lat_bench_fn)(void *ctx, uint64_t chunk_size, uint64_t chunk_index);
/* Build a fresh context for one trial / warm-up run / sample (outside timing).
 * Return 0 and *ctx, or a negative errno (the benchmark then fails). */
typedef int (*lat_bench_prepare_fn)(void *arg, uint64_t size, void **ctx);
typedef void (*lat_bench_release_fn)(void *arg, void *ctx);

typedef struct lat_bench_def {
    const char *name;             /* required; unique within its group */
    lat_bench_fn fn;              /* required */
    lat_bench_prepare_fn prepare; /* NULL: ctx = arg */
    lat_bench_release_fn release; /* NULL: nothing to release */
    void *arg;
    uint64_t chunk_size;         /* 0: calibrate; else fixed, calibration skipped */
    uint64_t bytes_per_op;       /* 0: throughput in ops/s; else bytes/s */
    const char *const *metadata; /* NULL or {"key","value",...,NULL} */
    /* Timed calls per sample: 0 = automatic (see the top of this file), 1 =
     * the whole chunk in one call (nothing censored), else that many (at
     * most LAT_BENCH_SUBCHUNKS_MAX and the chunk's operations). */
    uint32_t subchunks;
} lat_bench_def;

/* ---- concurrent benchmarks -------------------------------------------------------- */

/* Handed to each worker thread.  Read-only for the worker. */
typedef struct lat_bench_control {
    const atomic_int *stop;     /* set by the runner at the sample deadline */
    uint32_t thread_index;      /* across all threads of the sample */
    uint32_t role_index;        /* which role */
    uint32_t role_thread_index; /* within its role */
    uint32_t num_threads;       /* all threads of the sample */
} lat_bench_control;

/* True once the sample's deadline passed.  A relaxed load: the flag carries
 * no data (results are handed over by pthread_join, which synchronizes). */
static inline bool lat_bench_should_stop(const lat_bench_control *c) {
    return atomic_load_explicit(c->stop, memory_order_relaxed) != 0;
}

typedef struct lat_bench_counter {
    const char *name; /* static storage or outliving the run */
    uint64_t value;
} lat_bench_counter;

/* What a worker returns: its operations and up to 8 named event counters. */
typedef struct lat_bench_worker_result {
    uint64_t operations;
    uint32_t n_counters;
    lat_bench_counter counters[LAT_BENCH_MAX_COUNTERS];
} lat_bench_worker_result;

/* Add (or add to) a named event counter.  Returns 0, or -ENOSPC past 8 names.
 * Call once at the end of the sample, not in the hot loop. */
LAT_API int lat_bench_count(lat_bench_worker_result *r, const char *name, uint64_t value);

typedef void (*lat_bench_worker_fn)(void *ctx, const lat_bench_control *ctl,
                                    lat_bench_worker_result *out);

typedef struct lat_bench_worker {
    const char *name;
    uint32_t threads; /* >= 1 */
    lat_bench_worker_fn run;
} lat_bench_worker;

typedef struct lat_bench_sample_info {
    lat_bench_phase phase;
    uint32_t index; /* zero-based within the phase */
} lat_bench_sample_info;

/* Metrics with units, produced by lifecycle observers and backends. */
typedef struct lat_bench_metrics lat_bench_metrics;
/* Append a metric; name/unit are copied.  0 or -ENOMEM / -EINVAL. */
LAT_API int lat_bench_metric(lat_bench_metrics *m, const char *name, double value,
                             const char *unit);

/* Optional observer around every warm-up and measurement sample.
 * before_sample: after the context is built, before timing starts.
 * after_sample: after every worker joined and timing stopped; add metrics to
 * out (those of warm-up samples are discarded). */
typedef struct lat_bench_lifecycle {
    void (*before_sample)(void *ud, void *ctx, const lat_bench_sample_info *info);
    void (*after_sample)(void *ud, void *ctx, const lat_bench_sample_info *info,
                         lat_bench_metrics *out);
    void *ud;
} lat_bench_lifecycle;

/* Optional whole-sample measurement backend.  begin: after every worker is
 * ready, right before the release; end: after all joins; collect: add scenario
 * metrics and optionally replace *duration_ns (the combined duration).  A
 * non-zero return from begin/end/collect fails the benchmark. */
typedef struct lat_bench_backend {
    const char *name;
    int (*begin)(void *ud);
    int (*end)(void *ud);
    int (*collect)(void *ud, lat_bench_metrics *out, uint64_t *duration_ns);
    void *ud;
} lat_bench_backend;

typedef int (*lat_bench_cprepare_fn)(void *arg, uint32_t num_threads, void **ctx);

typedef struct lat_bench_concurrent_def {
    const char *name;
    const lat_bench_worker *workers; /* copied */
    uint32_t n_workers;
    lat_bench_cprepare_fn prepare; /* once per sample; NULL: ctx = arg */
    lat_bench_release_fn release;
    void *arg;
    const char *const *metadata; /* NULL or {"key","value",...,NULL} */
} lat_bench_concurrent_def;

/* ---- runner and groups ------------------------------------------------------------ */

typedef struct lat_bench_runner lat_bench_runner;
typedef struct lat_bench_group lat_bench_group;

/* Create a runner for suite (copied).  cfg NULL = defaults.  0 / -ENOMEM / -EINVAL. */
LAT_API int lat_bench_runner_create(const char *suite, const lat_bench_config *cfg,
                                    lat_bench_runner **out);
LAT_API void lat_bench_runner_destroy(lat_bench_runner *r); /* NULL is fine */
/* The runner's configuration (mutable until lat_bench_run). */
LAT_API lat_bench_config *lat_bench_runner_config(lat_bench_runner *r);
/* Only run cases whose "group/name" contains filter (or matches it as an
 * fnmatch pattern when it has * ? or [).  NULL clears.  0 / -ENOMEM. */
LAT_API int lat_bench_runner_filter(lat_bench_runner *r, const char *filter);

/* Groups belong to the runner.  NULL on bad arguments or no memory. */
LAT_API lat_bench_group *lat_bench_group_create(lat_bench_runner *r, const char *name);
LAT_API lat_bench_group *lat_bench_concurrent_group_create(lat_bench_runner *r, const char *name);
/* Group settings (before lat_bench_run).  0 or -EINVAL / -ENOMEM. */
LAT_API int lat_bench_group_metadata(lat_bench_group *g, const char *key, const char *value);
LAT_API int lat_bench_group_domain(lat_bench_group *g, lat_bench_domain d);
LAT_API int lat_bench_group_sample_duration(lat_bench_group *g, uint64_t ns); /* concurrent */
LAT_API int lat_bench_group_lifecycle(lat_bench_group *g,
                                      const lat_bench_lifecycle *l);                 /* copied */
LAT_API int lat_bench_group_backend(lat_bench_group *g, const lat_bench_backend *b); /* copied */
/* Register a case (definition copied, strings duplicated). */
LAT_API int lat_bench_add(lat_bench_group *g, const lat_bench_def *d);
LAT_API int lat_bench_add_concurrent(lat_bench_group *g, const lat_bench_concurrent_def *d);

/* Number of registered cases, and "group/name" of case i (NULL past the end). */
LAT_API size_t lat_bench_case_count(const lat_bench_runner *r);
LAT_API const char *lat_bench_case_name(const lat_bench_runner *r, size_t i);
/* True when case i passes the filter. */
LAT_API bool lat_bench_case_selected(const lat_bench_runner *r, size_t i);

/* Deterministic Fisher-Yates shuffle of idx[0..n) driven by seed (splitmix64).
 * Same seed, same order, on every machine. */
LAT_API void lat_bench_shuffle(uint64_t seed, size_t *idx, size_t n);

/* Record one operation's latency (ns) into the running benchmark's histogram
 * (per thread; merged after the sample).  No-op outside a benchmark or when
 * record_latency is off.  No allocation, no lock. */
LAT_API void lat_bench_record_ns(uint64_t ns);

/* ---- results ------------------------------------------------------------------------- */

/* Statistics over per-sample values (sorted copies; input order untouched). */
typedef struct lat_bench_summary {
    uint32_t n;
    double mean;   /* arithmetic mean of the samples */
    double median; /* linear interpolation */
    double p95;    /* linear interpolation */
    double min, max;
    double stddev;             /* population */
    double cv_pct;             /* stddev / mean * 100 (0 when mean is 0) */
    double mad;                /* unscaled median |x - median| */
    double q1, q3;             /* quartiles (linear interpolation) */
    double fence_lo, fence_hi; /* Tukey fences q1 - 1.5 IQR, q3 + 1.5 IQR */
    uint32_t outliers;         /* samples outside the fences (0 when n < 4) */
} lat_bench_summary;

/* A named metric series (lifecycle / backend / counters), chronological. */
typedef struct lat_bench_series {
    char *name;
    char *unit;
    char *section; /* "scenario" for lifecycle and backend metrics */
    uint32_t n;
    double *values;
    lat_bench_summary stats;
} lat_bench_series;

typedef struct lat_bench_event {
    char *name;
    uint64_t total;
    double per_op;  /* total / total role operations over all samples */
    double per_sec; /* total / total measured duration */
} lat_bench_event;

/* Hardware counters per operation, where the machine has them. */
typedef struct lat_bench_pmu {
    bool valid;           /* false: not measured (see the result's notes) */
    double cycles_per_op; /* NaN where the event is missing */
    double instructions_per_op;
    double ipc;
    double branch_miss_pct;
    double cache_misses_per_op;
    double stalled_pct; /* stalled backend cycles / cycles */
    double coverage;    /* min time_running / time_enabled */
} lat_bench_pmu;

typedef struct lat_bench_role {
    char *name;
    uint32_t threads;
    uint64_t total_ops;
    uint32_t n;
    double *ops_per_sec; /* per sample, the role's combined throughput */
    double *ns_per_op;   /* per sample, per thread: duration * threads / ops */
    uint64_t *ops;       /* per sample */
    lat_bench_summary throughput, latency;
    uint32_t n_events;
    lat_bench_event *events;
    lat_bench_pmu pmu;
} lat_bench_role;

/* Per-op latency tail from lat_bench_record_ns (count 0: nothing recorded).
 * lo/hi: the 95% confidence interval of p50, p90, p99, p99.9 (in that order)
 * from the histogram's counts (lat_hist_cis_at_percentiles); needs_n > 0
 * marks a max-bound figure (its upper end is the maximum) with the samples it
 * would need.  JSON: "p50_lo_ns", "p50_hi_ns", ..., "p999_needs_n". */
#define LAT_BENCH_TAIL_PCTS 4
typedef struct lat_bench_tail {
    uint64_t count;
    double p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
    double lo_ns[LAT_BENCH_TAIL_PCTS], hi_ns[LAT_BENCH_TAIL_PCTS];
    uint64_t needs_n[LAT_BENCH_TAIL_PCTS];
} lat_bench_tail;

typedef struct lat_bench_kv {
    char *key;
    char *value;
} lat_bench_kv;

typedef struct lat_bench_result {
    char *group;
    char *name;
    lat_bench_kind kind;
    lat_bench_domain domain;
    uint32_t execution_index; /* order in which the case ran */
    uint64_t bytes_per_op;    /* 0: throughput is ops/s */
    uint32_t n_meta;
    lat_bench_kv *meta;
    uint64_t chunk_size;         /* standard: operations per sample */
    uint64_t sample_duration_ns; /* concurrent */
    uint32_t calibration_passes;
    uint32_t warmup_samples;
    uint32_t n;               /* measured samples */
    double *ns_per_op;        /* per sample (per thread for concurrent): the kept figure,
                                 untouched sub-chunks' time / their ops */
    double *raw_ns_per_op;    /* per sample: the whole sample's time / ops */
    double *kept_share;       /* per sample: untouched ops / ops (1: nothing censored) */
    double *runq_wait_ns;     /* per sample: run-queue wait growth across it (NULL or
                                 NaN: not read) */
    uint64_t *invol_switches; /* per sample: involuntary context switches (NULL: not read) */
    uint32_t subchunks;       /* standard: timed calls per measured sample */
    uint64_t touched;         /* sub-chunks touched by the platform, all samples */
    double kept_floor;        /* set-aside floor the run used (LAT_BENCH_KEPT_FLOOR) */
    uint32_t set_aside;       /* samples whose kept share fell under kept_floor */
    double kept_share_all;    /* ops that entered the statistics / all measured ops */
    double *throughput;       /* per sample: ops/s or bytes/s */
    double *duration_ns;      /* per sample, overhead subtracted */
    double *cpu_ns; /* per sample: CPU time of the measuring thread(s) (thread CPU clock) */
    uint64_t *ops;  /* per sample */
    uint64_t total_ops;
    double total_ns;
    double mean_ns_per_op;     /* kept time / kept ops of the samples not set aside
                                  (per thread for concurrent) */
    lat_bench_summary latency; /* of ns_per_op, samples not set aside */
    lat_bench_summary thr;     /* of throughput, the same samples (CV drives stability) */
    double timer_overhead_ns;  /* subtracted from every timed sub-chunk */
    double cpu_share;          /* CPU time / (wall time x threads): < 0.9 means the
                                  threads waited for a CPU (an oversubscribed machine) */
    bool unstable;             /* "run stability is weak" */
    bool budget_capped;        /* max_samples hit with < 80% of the budget used */
    uint32_t n_roles;
    lat_bench_role *roles;
    uint32_t n_metrics;
    lat_bench_series *metrics;
    lat_bench_tail tail;
    lat_bench_pmu pmu; /* whole sample (combined for concurrent) */
    uint32_t n_notes;
    char **notes;
} lat_bench_result;

typedef struct lat_bench_report {
    int schema_version;
    char *timestamp;      /* ISO 8601 UTC */
    int64_t timestamp_ns; /* CLOCK_REALTIME at the end of the run */
    char *hostname;
    char *suite;
    char *git_commit; /* NULL when unknown */
    bool shuffled;
    uint64_t seed;
    struct json_t *conditions; /* run conditions object (may be NULL) */
    uint32_t n_results;
    lat_bench_result *results;
} lat_bench_report;

/* True when sample i of r was set aside (kept share under the floor).  A
 * result without kept shares (built by hand) sets nothing aside. */
static inline bool lat_bench_sample_set_aside(const lat_bench_result *r, uint32_t i) {
    return r->kept_share && i < r->n && r->kept_share[i] < r->kept_floor;
}

/* Run every selected case (in a seeded random order when cfg.shuffle), with
 * an unmeasured cooldown between cases.  Returns 0, or the first failing
 * benchmark's error (the others still run; a failed case has no result).
 * -EINVAL for a second call or min/max samples out of order.  Pins the
 * calling thread for the run when cfg.pin and restores its mask after. */
LAT_API int lat_bench_run(lat_bench_runner *r);
/* The run's report (NULL before lat_bench_run); owned by the runner, valid
 * until lat_bench_runner_destroy (lat_bench_report_clone keeps a copy). */
LAT_API const lat_bench_report *lat_bench_runner_report(const lat_bench_runner *r);
/* The measured timer overhead (ns per sample), measuring it on first call. */
LAT_API double lat_bench_timer_overhead_ns(lat_bench_runner *r);

/* Print the report's tables to out (a FILE*, never implicit). */
LAT_API void lat_bench_report_print(const lat_bench_report *rep, FILE *out);

/* ---- statistics -------------------------------------------------------------------- */

/* Linear-interpolation percentile of sorted[0..n), p in [0,1] (numpy's default). */
LAT_API double lat_bench_percentile(const double *sorted, size_t n, double p);
/* Summary of x[0..n) (x untouched).  0, -EINVAL (n == 0 / NULL), -ENOMEM. */
LAT_API int lat_bench_summarize(const double *x, size_t n, lat_bench_summary *out);
/* "Run stability is weak": CV >= 10% or outliers >= max(2, n/10). */
LAT_API bool lat_bench_stability_weak(double cv_pct, uint32_t outliers, uint32_t n);

typedef struct lat_bench_mwu {
    double u1;  /* U of sample a: R_a - n_a(n_a+1)/2 */
    double u;   /* min(U_a, U_b) */
    double z;   /* normal approximation (0 when exact) */
    double p;   /* two-sided */
    bool exact; /* exact distribution (no ties, both n <= 20) */
} lat_bench_mwu;
/* Mann-Whitney U test of a vs b.  0 / -EINVAL / -ENOMEM. */
LAT_API int lat_bench_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                                   lat_bench_mwu *out);

/* ---- persistence --------------------------------------------------------------------- */

/* Report <-> JSON.  to_json returns a new reference or NULL (no memory). */
LAT_API struct json_t *lat_bench_report_to_json(const lat_bench_report *rep);
/* Parse; 0 and *out, LAT_EFORMAT (why in err, if given), -ENOMEM. */
LAT_API int lat_bench_report_from_json(const struct json_t *j, lat_bench_report **out, char *err,
                                       size_t errlen);
/* Atomic write / read of a report file. */
LAT_API int lat_bench_report_save(const lat_bench_report *rep, const char *path);
LAT_API int lat_bench_report_load(const char *path, lat_bench_report **out, char *err,
                                  size_t errlen);
LAT_API void lat_bench_report_destroy(lat_bench_report *rep); /* NULL is fine */
/* A deep copy (0 / -ENOMEM). */
LAT_API int lat_bench_report_clone(const lat_bench_report *rep, lat_bench_report **out);

/* ---- comparison ------------------------------------------------------------------------ */

typedef enum {
    LAT_BENCH_UNCHANGED = 0,
    LAT_BENCH_IMPROVED = 1,
    LAT_BENCH_REGRESSED = 2,
    /* Significant and material, but the runs cannot support the call: the
     * shift is within their own scatter, or the machine was busy and the
     * shift is no bigger than waiting for a CPU could explain (a standard
     * benchmark's thread had a CPU < min_cpu_share of the wall time: up to
     * 1 / share; a concurrent benchmark's CPU share moved by > 10% between
     * the runs: up to the ratio of the shares). */
    LAT_BENCH_INCONCLUSIVE = 3,
} lat_bench_verdict;

typedef struct lat_bench_compare_opts {
    double alpha;       /* 0.05 */
    bool cpu_time;      /* compare CPU time per op instead of wall time (false) */
    double materiality; /* 0.05: |ratio - 1| below this is unchanged */
    /* Noise floor: |ratio - 1| must also reach noise_mult x the larger
     * relative MAD (MAD / median of per-sample ns/op) of the two runs, so a
     * run whose samples scatter by 30% cannot call a 6% shift a change
     * (samples of a loaded machine are not independent, and Mann-Whitney
     * alone would believe them).  0 turns it off; the default is 1. */
    double noise_mult;
    /* Busy-machine guard (see LAT_BENCH_INCONCLUSIVE); 0 turns it off; the
     * default is 0.9. */
    double min_cpu_share;
    /* History (lat_bench_compare_history with >= 3 reports): |ratio - 1|
     * must also reach drift_mult x the run-to-run drift of the result's
     * median across them; and (>= 2 reports) a new median inside the range
     * of the history's medians (widened by the noise) is a level earlier runs
     * of the same code already reached, so it is inconclusive, not a change.
     * 0 turns both off; the default is 3. */
    double drift_mult;
} lat_bench_compare_opts;

typedef struct lat_bench_change {
    const char *group, *name; /* point into the current report */
    double old_median_ns, new_median_ns;
    double ratio;     /* new median / old median of per-sample ns/op (> 1: slower) */
    double p;         /* Mann-Whitney two-sided */
    double noise;     /* larger relative MAD of the two runs (0.03 = 3%) */
    bool busy;        /* the busy-machine guard fired */
    bool seen;        /* the new median is inside the history's range (see drift_mult) */
    double drift;     /* run-to-run drift of the median across the history (0.03 = 3%;
                         0 with fewer than 3 reports) */
    uint32_t history; /* reports the drift came from */
    /* Minimum detectable effect: the smallest change this pair of runs could
     * have seen (alpha 0.05 two-sided, power 0.8): expm1((1.96 + 0.84) * s *
     * sqrt(1/na + 1/nb)), s the pooled robust spread (1.4826 x MAD) of
     * ln ns_per_op over the samples not set aside (0.03 = 3%). */
    double mde;
    lat_bench_verdict verdict;
} lat_bench_change;

typedef struct lat_bench_comparison {
    char *baseline; /* path or label of the old report */
    uint32_t n;
    lat_bench_change *changes;
    uint32_t improved, regressed, unchanged, inconclusive;
} lat_bench_comparison;

/* 0 when old and cur may be compared, else LAT_EINCOMPATIBLE with why. */
LAT_API int lat_bench_compatible(const lat_bench_report *old, const lat_bench_report *cur,
                                 char *why, size_t whylen);
/* Compare (reports must be compatible) the kept per-sample figures
 * (ns_per_op) of the samples not set aside.  A result changed when p < alpha AND
 * |ratio - 1| >= materiality AND |ratio - 1| >= noise_mult x noise AND the
 * machine was not busy; it is inconclusive when only the last two fail.
 * opts NULL = defaults (alpha 0.05, materiality 0.05, noise_mult 1,
 * min_cpu_share 0.9, wall time).  0, LAT_EINCOMPATIBLE, -ENOMEM. */
LAT_API int lat_bench_compare(const lat_bench_report *old, const lat_bench_report *cur,
                              const lat_bench_compare_opts *opts, lat_bench_comparison **out);
/* The same against a history of previous reports (all compatible with cur):
 * the newest (by timestamp_ns) is the baseline; with >= 3 reports their
 * run-to-run drift joins the noise floor (drift_mult), and with >= 2 a new
 * median inside the range of their medians is not called.  A result is
 * inconclusive when only the noise/drift floor, the range or the busy guard
 * stops it. */
LAT_API int lat_bench_compare_history(const lat_bench_report *const *hist, size_t nh,
                                      const lat_bench_report *cur,
                                      const lat_bench_compare_opts *opts,
                                      lat_bench_comparison **out);
/* Every compatible report in dir, oldest first, at most max (the newest
 * ones).  0 and *out / *n (free each with lat_bench_report_destroy and the array
 * with free()), -ENOENT with why when none qualifies. */
LAT_API int lat_bench_load_history(const char *dir, const lat_bench_report *cur, size_t max,
                                   lat_bench_report ***out, size_t *n, char *why, size_t whylen);
LAT_API void lat_bench_comparison_destroy(lat_bench_comparison *c);
/* The table (with each result's MDE) and a caveat: unpaired runs cannot
 * separate the host's drift between them from the code's change. */
LAT_API void lat_bench_comparison_print(const lat_bench_comparison *c, FILE *out);
/* Newest compatible *.json report in dir (by timestamp_ns).  0 and *path
 * (free with free()), -ENOENT with why (the newest refusal) when none qualifies. */
LAT_API int lat_bench_find_baseline(const char *dir, const lat_bench_report *cur, char **path,
                                    char *why, size_t whylen);

/* ---- entry point ------------------------------------------------------------------------- */

#define LAT_BENCH_MAIN_QUICK 1u /* flags: --quick settings unless --full */

/* Parse argv (--filter --list --json FILE|auto --compare [FILE|auto] --gate
 * --seed N --cooldown-ms N --quick --full --help), register via reg, run,
 * print tables to out and warnings to err, save/compare.  Returns the exit
 * status: 0, 1 (error or gated regression), 2 (usage). */
LAT_API int lat_bench_main(int argc, char **argv, const char *suite,
                           int (*reg)(lat_bench_runner *r), unsigned flags, FILE *out, FILE *err);

#define LAT_BENCH_MAIN(suite, reg)                                                                 \
    int main(int argc, char **argv) {                                                              \
        return lat_bench_main(argc, argv, suite, reg, 0, stdout, stderr);                          \
    }
#define LAT_BENCH_MAIN_FLAGS(suite, reg, flags)                                                    \
    int main(int argc, char **argv) {                                                              \
        return lat_bench_main(argc, argv, suite, reg, flags, stdout, stderr);                      \
    }

#endif /* LATLAB_BENCH_H */
