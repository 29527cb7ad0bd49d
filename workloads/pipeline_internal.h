/* pipeline_internal.h - what the stamped pipeline's own files share (internal
 * to the pipeline workload, never installed): the run's state, one event's
 * stamps as the lab reads them, the slowest-samples heaps, the per-interval
 * figures, and the steps lat_pipe_run (pipeline.c) takes through the others:
 *
 *   pipeline_threads.c  the hot threads (producer, worker, consumer) and their
 *                       queues
 *   pipeline_trace.c    aggregation: the stage tracer and, in its callbacks on
 *                       the aggregator thread, the lab's per-event bookkeeping
 *   pipeline_account.c  the platform account and tail attribution (cold: before
 *                       and after the run)
 *
 * The stage table and the names (pipeline_place.c), the censoring
 * (pipecensor.h) and the JSON (pipeline_json.c) stand beside them.  Calls go
 * one way: pipeline.c calls these files, they never call it back, nor each
 * other (tests/files.sh fails on two files that call each other). */
#ifndef LATLAB_PIPELINE_INTERNAL_H
#define LATLAB_PIPELINE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "latlab/pipeline.h"
#include "latlab/platform.h"
#include "latlab/trace.h"
#include "pipecensor.h"

#define LAT__PIPE_HIST_HIGHEST_NS 100000000000ll /* 100 s: every histogram's range */

/* One event's raw stamps as the lab's bookkeeping reads them, from the block
 * the last hot stage ships to the tracer (id = seq, points below). */
typedef struct lat__pipe_sample {
    uint64_t seq, t0, tp, t1, t2, t3, kind;
} lat__pipe_sample;

/* Stamp points of the tracer's block; PT_KIND is no stage's point, so the
 * tracer passes it through to on_block untouched. */
enum { PT_T0 = 0, PT_TP = 1, PT_T1 = 2, PT_T2 = 3, PT_T3 = 4, PT_KIND = 5 };

/* The slowest samples of a stage: a bounded min-heap (the tracer thread
 * fills it, attribution reads it after the run). */
typedef struct lat__pipe_slow {
    uint64_t ns, from, to; /* latency, and the hop's [from, to] in cycles */
} lat__pipe_slow;

typedef struct lat__pipe_slow_heap {
    lat__pipe_slow *v;
    size_t n, cap;
} lat__pipe_slow_heap;

/* Per-interval figures by intended send time: the interval being filled. */
typedef struct lat__pipe_iv {
    lat_hist h[LAT_PIPE_NSTAGES];
    bool on;
    uint64_t cur;       /* index of the interval being filled */
    uint64_t count;     /* samples in it */
    uint64_t last_done; /* latest completion stamp so far (cycles) */
    uint64_t prev_done; /* the previous interval's */
} lat__pipe_iv;

/* ---- the run's state -------------------------------------------------------------- */

typedef struct lat__pipe_run {
    lat_pipe_config c;
    const lat_clock_cal *cal;
    lat_pipe_result *r;
    lat_spsc *q1, *q2;
    lat_trace *tr;                /* the stage tracer: aggregation, logs, flight recorder */
    lat_trace_sink *sink;         /* the last hot stage's */
    int tstage[LAT_PIPE_NSTAGES]; /* tracer stage of each LAT_PIPE_* stage, -1 absent */
    _Atomic uint64_t *slots;      /* 32 counters, 256 bytes, 128-byte aligned */
    unsigned ia, ib;              /* the two stage counters' slots */
    /* Start gate: each thread bumps `ready` once set up (pinned, counters
     * open) and waits for `go`; the main thread waits for all, writes
     * start_cycles, then stores go = 1 (release), which pairs with each
     * thread's acquire load so start_cycles is visible.  go = -1 aborts a
     * run whose threads could not all be created. */
    _Atomic int ready;
    _Atomic int go;
    uint64_t start_cycles; /* first intended send; written before go */
    double interval_cycles;
    uint64_t shipped; /* last hot stage's; read after join */
    uint64_t sent;
    uint64_t full_spins;
    int pin_err[LAT_PIPE_NHOT]; /* per hot thread: pinning failure (read after join) */
    uint64_t ivc;               /* interval length in cycles (0 = no intervals) */
    size_t iv_cap;
    lat__pipe_slow_heap *slow;   /* per stage: the slowest samples (tracer thread) */
    lat__pipe_sample flight_raw; /* the flight trigger's stamps */
    bool flight_raw_set;
    /* Written on the tracer's thread (its callbacks), read after lat_trace_stop. */
    lat__pipe_iv *fv;        /* per-interval figures, NULL = off */
    uint64_t last_t;         /* latest completion stamp seen */
    uint64_t trace_iv_ns;    /* the tracer's interval */
    uint64_t pub_ns, pub_at; /* publish interval, last publish (lat_mono_ns) */
    lat_schedstat ss0[LAT_PIPE_NHOT];
    uint64_t vol0[LAT_PIPE_NHOT], invol0[LAT_PIPE_NHOT];
    lat__pipe_cbuf cb; /* each sample's stamps for censoring (the tracer thread) */
} lat__pipe_run;

/* ---- pipeline_threads.c ---------------------------------------------------------- */

/* The hot threads' bodies (pthread start routines; arg is the run). */
void *lat__pipe_producer(void *arg);
void *lat__pipe_worker(void *arg);
void *lat__pipe_consumer(void *arg);
/* q1, and q2 in the full shape, of cap messages each: 0 or a negative errno.
 * queues_free releases whichever exist. */
int lat__pipe_queues_create(lat__pipe_run *R, bool full, uint32_t cap);
void lat__pipe_queues_free(lat__pipe_run *R);
/* Sleep us microseconds (the start gate's waits). */
void lat__pipe_nap_us(long us);

/* ---- pipeline_trace.c ------------------------------------------------------------ */

/* Before the run: the per-interval figures, when the run keeps them (false:
 * off, v zeroed).  iv_fini accepts a zeroed v. */
bool lat__pipe_iv_init(lat__pipe_run *R, lat__pipe_iv *v);
void lat__pipe_iv_fini(lat__pipe_iv *v);
/* The tracer for this run, and its sink for the last hot stage: 0 or a
 * negative errno (a log that could not be opened is also r->log_error). */
int lat__pipe_trace_create(lat__pipe_run *R, const lat_pipe_config *cfg);
/* After the hot threads joined: drain, stop, and take the stages'
 * histograms, the counts and the flight recorder into r.  0 or a negative
 * errno (a log's write error is r->log_error only). */
int lat__pipe_trace_finish(lat__pipe_run *R, lat_pipe_result *r);

/* ---- pipeline_account.c ---------------------------------------------------------- */

/* Before the run: gap recorders, the censoring buffer, the intervals and the
 * slowest-samples heaps.  0 or -ENOMEM; account_destroy releases what the
 * run owns (the result's part goes with lat_pipe_result_fini). */
int lat__pipe_account_create(lat__pipe_run *R, const lat_pipe_config *cfg, lat_pipe_result *r);
void lat__pipe_account_destroy(lat__pipe_run *R);
/* /proc/stat over the hot CPUs (all CPUs when unpinned), and the share of
 * steal, irq and softirq time between two readings. */
void lat__pipe_cpustat_sum(const lat_pipe_config *c, lat_cpustat *out);
void lat__pipe_cpustat_delta(const lat_cpustat *a, const lat_cpustat *b, lat_pipe_cpustat *o);
/* After the run: the intervals' lost time, tail attribution, the flight
 * recorder's baselines and the gap that explains its outlier. */
void lat__pipe_account_finish(lat__pipe_run *R, lat_pipe_result *r);

#endif /* LATLAB_PIPELINE_INTERNAL_H */
