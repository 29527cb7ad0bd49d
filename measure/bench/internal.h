/* internal.h - pieces shared by the harness's source files (the .c files of src/bench):
 * the runner's registration records, the metrics list, growable arrays and
 * the report helpers.  Not installed. */
#ifndef LATLAB_BENCH_INTERNAL_H
#define LATLAB_BENCH_INTERNAL_H

#include "latlab/bench.h"

#include <stddef.h>
#include <stdint.h>

typedef struct metric_item {
    char *name;
    char *unit;
    double value;
} metric_item;

struct lat_bench_metrics {
    uint32_t n, cap;
    metric_item *items;
};

struct lat_bench_group {
    lat_bench_runner *runner;
    char *name;
    lat_bench_kind kind;
    lat_bench_domain domain;
    uint32_t n_meta, cap_meta;
    lat_bench_kv *meta;
    uint64_t sample_duration_ns; /* 0: the runner's */
    bool has_lifecycle, has_backend;
    lat_bench_lifecycle lifecycle;
    lat_bench_backend backend;
};

typedef struct bench_case {
    lat_bench_group *group;
    char *name;
    char *full; /* "group/name" */
    lat_bench_kind kind;
    lat_bench_def def;             /* standard (def.name points at name) */
    lat_bench_concurrent_def cdef; /* concurrent (cdef.workers points at workers) */
    lat_bench_worker *workers;
    uint32_t n_meta;
    lat_bench_kv *meta;
} bench_case;

/* Per-sample hardware counters (counters.c).  Event order is fixed. */
enum {
    PMU_CYCLES,
    PMU_INSTRUCTIONS,
    PMU_BRANCHES,
    PMU_BRANCH_MISSES,
    PMU_CACHE_REFS,
    PMU_CACHE_MISSES,
    PMU_STALLED_BACKEND,
    PMU_NEV
};
typedef struct pmu_acc {
    double v[PMU_NEV]; /* scaled sums */
    bool seen[PMU_NEV];
    bool any;
    double min_coverage;
} pmu_acc;
struct lat_perf;
/* Open a set for the calling thread: 0 and *out when cycles count (note then
 * lists events that do not), else a negative errno and note says why. */
int lat__bench_pmu_open(struct lat_perf **out, char *note, size_t notelen);
void lat__bench_pmu_close(struct lat_perf *p);
int lat__bench_pmu_start(struct lat_perf *p);                 /* NULL: no-op */
void lat__bench_pmu_stop_add(struct lat_perf *p, pmu_acc *a); /* stop, read, accumulate */
void lat__bench_pmu_merge(pmu_acc *dst, const pmu_acc *src);
void lat__bench_pmu_finish(const pmu_acc *a, uint64_t ops, lat_bench_pmu *out);

struct lat_hist;

struct lat_bench_runner {
    lat_bench_config cfg;
    char *suite;
    char *filter;
    uint32_t n_groups, cap_groups;
    lat_bench_group **groups;
    uint32_t n_cases, cap_cases;
    bench_case *cases;
    lat_bench_report *report;
    bool ran;
    bool overhead_done;
    double overhead_ns;
    const void *cal;       /* const lat_clock_cal * when the cycle counter is used */
    struct lat_hist *hist; /* the running standard case's latency histogram, or NULL */
    struct lat_perf *perf; /* the runner thread's counter set (NULL: none) */
    bool pmu_probed;
    char pmu_note[512]; /* why counters are missing ("" when all count) */
    pmu_acc *pmu;       /* the running standard case's sums */
    int ncpus;          /* CPUs to pin to (performance cores in the affinity mask) */
    int *cpus;
    int pinned_cpu;              /* the runner thread's CPU for standard cases, -1 none */
    int schedstat_fd;            /* /proc/thread-self/schedstat of the runner thread, -1 none */
    bool turns_read;             /* $LAT_BENCH_TURNS read (on the first sample) */
    int turn_rfd, turn_wfd;      /* its descriptors: grants come on rfd, -1 none */
    bool turn_started;           /* 'r' (ready) sent */
    struct std_scratch *scratch; /* the running standard case's sub-chunk arrays */
};

/* Before every standard sample: wait for the turn ($LAT_BENCH_TURNS,
 * bench.h; read on the first call). */
void lat__bench_take_turn(lat_bench_runner *r);
/* Grow *arr (elements of size elem) so it holds at least need; 0 / -ENOMEM. */
int lat__bench_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);
/* Copy a key/value list (0 / -ENOMEM). */
int lat__bench_kv_push(lat_bench_kv **arr, uint32_t *n, uint32_t *cap, const char *k,
                       const char *v);
void lat__bench_metrics_clear(lat_bench_metrics *m);
/* Free everything a result owns (the struct itself is not freed). */
void lat__bench_result_clear(lat_bench_result *res);
/* Append a note (copied). */
int lat__bench_note(lat_bench_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Add a value to a named series of res->metrics (created on first use). */
int lat__bench_series_push(lat_bench_result *res, const char *name, const char *unit,
                           const char *section, double v);
/* The samples that enter the statistics (those not set aside): the set-aside
 * count, the result-level kept share, the latency and throughput summaries and
 * the stability flag.  The same computation after a run and after loading a
 * report, so both agree.  0 or -ENOMEM. */
int lat__bench_kept_finish(lat_bench_result *res);
/* Compute every series' stats. */
void lat__bench_series_finish(lat_bench_result *res);

#endif
