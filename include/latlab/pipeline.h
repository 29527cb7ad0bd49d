/* pipeline.h - the stamped pipeline of the lab: an open-loop producer, SPSC
 * queues, a transformer doing fixed work, a consumer, and the stage tracer
 * (trace.h) whose cold aggregator turns the stamps into per-stage histograms. */

/* Shapes.  full (three hot threads): */

/*   producer -> q1 -> transformer -> q2 -> consumer -> tracer sink -> aggregator
 *   t0 = intended     t1 dequeued,         t3 dequeued                (unpinned,
 *   send time         t2 work done                                     backoff idle) */

/* compact: the consumer is merged into the transformer (producer -> q1 ->
 * worker, which stamps t1, works, stamps t2 and ships the sample), so two
 * pinned hot threads suffice and q1+wake, work and e2e stay honest on a 2-CPU
 * machine. */

/* Every stamp is a raw fenced cycle-counter read carried inside the message;
 * the hot threads never convert, never allocate (unless the alloc experiment
 * asks them to), never block: the last one ships the stamps into its tracer
 * sink (lat_trace_ship), where a full ring counts a drop and moves on.  The
 * tracer's aggregator converts with the run's calibration and records
 * q1+wake, work, q2+wake (full only) and e2e (plus the producer's own send
 * delay with split_q1), writes optional per-stage interval logs (.hlog) and
 * feeds an optional flight recorder; the lab's own per-event bookkeeping
 * (per-interval figures, tail attribution, checks) runs in its callbacks. */

/* Censoring (censor.h): after the run each sample's stage windows are joined
 * to the hot threads' gap lists; a figure the platform touched (a gap on a
 * thread carrying its window, the backlog a gap built) leaves the net
 * figures (r->censor[stage]); the gross histograms r->h keep every sample. */

/* Experiments: alloc (a 32 x u64 heap vector per event in the work stage),
 * no-pin (hot threads unpinned), share_line (the two stage counters 8 bytes
 * apart on one 64-byte line instead of 128 bytes apart). */

/* lat_pipe_run() creates the threads, runs, joins and fills a result; it is a
 * setup-and-measure call (allocates, blocks for the run).  One run at a time
 * per process is the intended use (the stage counters are per run, not
 * global, so concurrent runs are safe but would disturb each other). */
#ifndef LATLAB_PIPELINE_H
#define LATLAB_PIPELINE_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/pipeline.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/clock.h"
#include "latlab/flight.h"
#include "latlab/gaps.h"
#include "latlab/hist.h"
#include "latlab/ring.h"

struct json_t;
struct lat_topo;

enum { LAT_PIPE_FULL = 0, LAT_PIPE_COMPACT = 1, LAT_PIPE_AUTO = 2 };

/* Stages (histogram slots of a result). */
enum {
    LAT_PIPE_SEND = 0, /* producer-side delay t0' - t0 (split_q1 only) */
    LAT_PIPE_Q1 = 1,   /* t1 - t0 (or t1 - t0' with split_q1): queue + wake */
    LAT_PIPE_WORK = 2, /* t2 - t1 */
    LAT_PIPE_Q2 = 3,   /* t3 - t2 (full shape only) */
    LAT_PIPE_E2E = 4,  /* t3 - t0 (compact: t2 - t0) */
    LAT_PIPE_NSTAGES = 5
};

/* Hot-thread roles (index of per-thread results, argument of the hook). */
enum { LAT_PIPE_PRODUCER = 0, LAT_PIPE_WORKER = 1, LAT_PIPE_CONSUMER = 2, LAT_PIPE_NHOT = 3 };

/* Stall injection sites (test hook). */
enum { LAT_PIPE_STALL_NONE = 0, LAT_PIPE_STALL_WORK, LAT_PIPE_STALL_Q1, LAT_PIPE_STALL_Q2 };

/* Most kinds of event a source's work callback can tell apart. */
#define LAT_PIPE_MAXKINDS 8

/* Optional event source (the replay seam; see replay in workloads/book/
 * itchfeed.h).  With one, the producer sends event seq at
 * start + send_offset_ns(ud, seq, &payload) (non-decreasing in seq: the
 * source clamps) carrying that payload, and the work stage calls
 * work(ud, seq, payload, t0, tp, t1) instead of the fixed LCG rounds; its
 * return value (< nkinds) picks the per-kind work histogram.  t0, tp, t1 are
 * the event's raw stamps so far.  Both callbacks run on hot threads (the
 * producer's and the worker's): they must not allocate, lock or block. */
typedef struct lat_pipe_source {
    uint64_t (*send_offset_ns)(void *ud, uint64_t seq, uint64_t *payload);
    unsigned (*work)(void *ud, uint64_t seq, uint64_t payload, uint64_t t0, uint64_t tp,
                     uint64_t t1);
    void *ud;
    unsigned nkinds;               /* 0..LAT_PIPE_MAXKINDS */
    const char *const *kind_names; /* nkinds names */
} lat_pipe_source;

typedef struct lat_pipe_config {
    int shape;                    /* LAT_PIPE_FULL or LAT_PIPE_COMPACT (resolve AUTO first) */
    uint64_t events;              /* N (default 2,000,000) */
    uint64_t rate_hz;             /* offered rate, events/s (default 200,000) */
    uint32_t queue_cap;           /* q1/q2 capacity (default 4,096) */
    uint32_t sample_cap;          /* aggregation ring capacity (default 65,536) */
    unsigned work_iters;          /* LCG rounds of fixed work (default 40) */
    bool alloc;                   /* experiment (a) */
    bool no_pin;                  /* experiment (b) */
    bool share_line;              /* experiment (c) */
    bool split_q1;                /* stamp t0' after the producer's push returns */
    int cpus[LAT_PIPE_NHOT];      /* CPU per hot role (ignored with no_pin; -1 = unpinned) */
    lat_idle idle;                /* how hot threads wait (ring.h): spin, yield or backoff */
    bool perf;                    /* per-thread counters in each hot thread (default on) */
    uint64_t flight_threshold_ns; /* LAT_FLIGHT_NONE = no flight recorder */
    uint64_t flight_post;         /* samples after the trigger (default 256) */
    int stall_site;               /* LAT_PIPE_STALL_* */
    uint64_t stall_seq, stall_ns;
    const char *hlog_prefix;   /* NULL: no interval logs; else "<prefix><stage>.hlog" */
    uint64_t hlog_interval_ns; /* default 1 s */
    const lat_clock_cal *cal;  /* NULL: lat_clock_default() */
    /* The platform account.  gap_threshold_ns: spin-loop gaps at least this
     * long are recorded per hot thread (0 = LAT_GAPS_DEFAULT_NS); gap_capacity:
     * (start, length) entries kept per thread (0 = LAT_GAPS_DEFAULT_CAP). */
    uint64_t gap_threshold_ns;
    size_t gap_capacity;
    /* Per-interval figures: 0 = none; else the run is cut into intervals of
     * this many ns of intended send time and r->iv gets one entry each. */
    uint64_t interval_ns;
    /* Test hook: the hot thread of sleep_role (LAT_PIPE_PRODUCER or
     * LAT_PIPE_WORKER) sleeps sleep_ns inside its spin/poll loop before
     * event sleep_seq + k * sleep_every, k < sleep_count (at most
     * LAT_PIPE_MAX_SLEEPS); the hook's own stamps land in r->sleeps. */
    int sleep_role;
    uint64_t sleep_seq, sleep_every, sleep_ns;
    unsigned sleep_count;
    /* ... with sleep_role LAT_PIPE_WORKER: sleep inside the work window
     * (after t1) instead of the poll loop. */
    bool sleep_in_work;
    /* Per-sample censoring (censor.h), after the run: the aggregator keeps
     * each sample's stamps (24 bytes) for the first censor_cap samples
     * (0 = min(events, LAT_PIPE_CENSOR_CAP)); later samples count in the
     * gross figures only (r->censor_unjudged). */
    size_t censor_cap;
    /* Test hook: after the run, for each judged sample in order: its stamps
     * t[5] (t0, tp, t1, t2, t3; compact: t3 = t2; cycles), and per stage
     * why[stage] (LAT_CENSOR_*, censor.h) and who[stage] (bits 1 << role of
     * the hot threads whose gaps censored it). */
    void (*censor_hook)(void *ud, const uint64_t *t, const uint8_t *why, const unsigned *who);
    void *censor_ud;
    /* Optional publisher of the running totals (a /metrics server, say):
     * the aggregator calls publish(ud, h) with the cumulative per-stage
     * histograms (h[stage], NULL for absent stages) as the tracer's
     * intervals close: about every publish_interval_ns (default 1 s; at
     * least 1 ms) without interval logs, else at the first log interval
     * close a publish interval after the last (at most once per log
     * interval), and at the end of the run.  It runs on the aggregator
     * thread, never a hot one, and must not block (a trylock); the final
     * state is the caller's to publish after lat_pipe_run. */
    void (*publish)(void *ud, const lat_hist *const *h);
    void *publish_ud;
    uint64_t publish_interval_ns;
    /* Test hook: called in each hot thread right before its measured loop
     * (begin = 1) and right after it (begin = 0). */
    void (*thread_hook)(void *ud, int role, int begin);
    void *hook_ud;
    /* Optional: count each hot thread's allocation calls over its loop
     * (r->thr[role].allocs) with a counting allocator that lives in the
     * executable (alloccount.h: lat_alloccount_begin / lat_alloccount_end).
     * NULL: not counted.  Both run on the hot thread, outside the loop. */
    void (*alloc_count_begin)(void);
    uint64_t (*alloc_count_end)(void);
    const lat_pipe_source *source; /* NULL: steady rate_hz, LCG work */
} lat_pipe_config;

/* Fill c with the defaults above (full shape, spin idle, no experiments, no
 * flight recorder, no logs, cpus unset = -1). */
void lat_pipe_config_default(lat_pipe_config *c);

/* Per-thread counters read inside each hot thread around its loop.  Values
 * are NAN where the machine cannot count them (no PMU in a VM, say). */
typedef struct lat_pipe_counters {
    bool ran;               /* this role existed in the run */
    int cpu_start, cpu_end; /* CPU at loop start/end (lat_current_cpu) */
    double ctx_switches, migrations, page_faults;
    double cycles, instructions, cache_misses;
    double allocs;    /* allocation calls over the loop (config alloc_count_*); NAN: not counted */
    uint64_t loop_ns; /* wall time of the loop */
} lat_pipe_counters;

/* What the platform took from one hot thread during its loop: the scheduler's
 * part of its platform account (the gaps are in gaps[]). */
typedef struct lat_pipe_account {
    uint64_t run_ns, wait_ns, slices; /* schedstat deltas (0 when unreadable) */
    uint64_t vol_switches, invol_switches;
    bool have_schedstat;
} lat_pipe_account;

/* Steal, irq and softirq time of the hot CPUs over the run (/proc/stat), as
 * a share of their elapsed time; NAN when unreadable. */
typedef struct lat_pipe_cpustat {
    double steal_pct, irq_pct, softirq_pct;
} lat_pipe_cpustat;

/* One interval of intended send time (config interval_ns). */
typedef struct lat_pipe_interval {
    uint64_t count;                /* samples recorded in it */
    int64_t p50[LAT_PIPE_NSTAGES]; /* ns; -1 for absent stages */
    int64_t p99[LAT_PIPE_NSTAGES];
    int64_t p999[LAT_PIPE_NSTAGES];
    int64_t max[LAT_PIPE_NSTAGES];
    /* ns: mean of the samples at or below the interval's p99 (the body; NAN
     * for absent stages).  Stamps come in counter steps, but their phase
     * against the step varies from event to event, so this mean resolves a
     * shift smaller than one step where the percentiles cannot. */
    double body_mean[LAT_PIPE_NSTAGES];
    double tput_hz;                  /* completions per second of wall time */
    uint64_t lost_ns[LAT_PIPE_NHOT]; /* spin-loop gap time inside it, per hot thread */
    uint64_t kept[LAT_PIPE_NSTAGES]; /* samples in it whose figure was not censored */
} lat_pipe_interval;

/* Tail attribution of one stage: how many samples above p99 / p99.9 had a
 * hop that overlapped a recorded gap on a thread carrying that hop. */
typedef struct lat_pipe_tail {
    int64_t p99_ns, p999_ns;
    uint64_t above99, above99_gap, above999, above999_gap;
    int thread999; /* role whose gaps explain most p99.9 outliers, or -1 */
} lat_pipe_tail;

#define LAT_PIPE_MAX_SLEEPS 16
#define LAT_PIPE_CENSOR_CAP 2097152 /* samples judged per run by default (48 MiB of stamps) */

/* Per-sample censoring of one figure (stage): which samples the platform
 * touched (censor.h: a gap on a thread carrying the stage's window, the
 * backlog a gap built, or a window past the end of a full gap list).  gross
 * is the stage's histogram r->h[stage]; net the kept samples; cens the
 * censored samples' own figures (kept + censored = the judged samples). */
typedef struct lat_pipe_censor_fig {
    uint64_t kept, by_gap, by_backlog, unknown; /* samples */
    uint64_t by_thread[LAT_PIPE_NHOT]; /* censored (gap or backlog) by that thread's gaps */
    /* share of the run's send time (each sample owns the spacing since the
     * sample before it) whose samples kept this figure */
    double kept_time_share;
    double gap_rate_hz; /* gaps per second of running time on the threads carrying the window */
    /* ns: the net figures weighted by the inverse of a window's chance to
     * avoid gaps at that rate (censor.h): the bias of censoring removed */
    int64_t ipw_p50, ipw_p99, ipw_p999;
    lat_hist *net, *cens; /* ns; NULL for absent stages */
} lat_pipe_censor_fig;

typedef struct lat_pipe_result {
    int shape;
    uint64_t events;
    uint64_t sent;           /* producer's count */
    uint64_t transformed;    /* work stage counter (relaxed atomic) */
    uint64_t consumed;       /* consumer counter (compact: the worker's ship count) */
    uint64_t dropped;        /* samples lost to a full aggregation ring */
    uint64_t recorded;       /* samples the aggregator recorded */
    uint64_t nonmonotonic;   /* events whose stamps went backwards (clamped to 0) */
    uint64_t e2e_below_part; /* samples with e2e < some stage (must be 0) */
    uint64_t out_of_range;   /* values the histograms could not hold */
    uint64_t wall_ns;        /* first intended send to last sample recorded */
    uint64_t q1_full_spins;  /* producer retries on a full q1 */
    double cycles_per_ns;
    uintptr_t counter_addr[2];           /* addresses of the two stage counters */
    lat_hist *h[LAT_PIPE_NSTAGES];       /* ns histograms; NULL for absent stages */
    lat_hist *h_kind[LAT_PIPE_MAXKINDS]; /* work stage per source kind (NULL without) */
    lat_pipe_counters thr[LAT_PIPE_NHOT];
    lat_flight *flight; /* NULL unless a threshold was set */
    int flight_fired;
    uint64_t stamp_cost_ns; /* median cost of one fenced stamp, measured this run */
    unsigned stamps_per_event;
    /* The platform account (see the config's gap fields). */
    lat_gaps *gaps[LAT_PIPE_NHOT]; /* NULL for absent roles; cycles */
    lat_pipe_account account[LAT_PIPE_NHOT];
    lat_pipe_cpustat cpu;
    uint64_t run_start_cycles; /* the first intended send */
    lat_pipe_interval *iv;     /* niv entries (config interval_ns), else NULL */
    size_t niv;
    lat_pipe_tail tail[LAT_PIPE_NSTAGES];
    char flight_gap[200];                    /* the gap explaining the flight outlier, or "" */
    uint64_t sleeps[LAT_PIPE_MAX_SLEEPS][2]; /* test hook: [start, end) cycles */
    unsigned nsleeps;
    /* Per-sample censoring (config censor_cap): samples judged; samples not
     * judged (beyond the buffer, or a window of 2^32 cycles or more: in the
     * gross figures only); per stage the kept/censored split. */
    uint64_t censor_judged, censor_unjudged;
    lat_pipe_censor_fig censor[LAT_PIPE_NSTAGES];
    /* Interval logs: each is written to a temporary file beside its target
     * and renamed over it only when the run ends with every line written, so
     * an existing log is replaced only by a complete one.  log_error is 0, or
     * the first write/commit error (negative errno, e.g. -ENOSPC) of the log
     * at log_error_path; after a write error no log of this run is kept (the
     * old files stay), after a failed commit the logs committed before it are. */
    int log_error;
    char log_error_path[256];
} lat_pipe_result;

/* Hot threads (roles) that carry stage s's hop, as a bit mask of 1 << role. */
unsigned lat_pipe_stage_threads(int stage);
const char *lat_pipe_role_name(int shape, int role); /* "producer", "worker"/"transformer", ... */

/* The one table of the pipeline's stages: every place that names a stage
 * (tables, file names, flight recorder slots, attribution) reads it. */
typedef struct lat_pipe_stage_desc {
    const char *name; /* "send", "q1+wake", "work", "q2+wake", "e2e" */
    const char *file; /* shell-friendly: "send", "q1-wake", "work", "q2-wake", "e2e" */
    int flight_rank;  /* order among the flight recorder's stages; -1: not a slot */
    unsigned threads; /* hot roles carrying the hop (bits 1 << LAT_PIPE_PRODUCER...) */
} lat_pipe_stage_desc;
extern const lat_pipe_stage_desc lat_pipe_stages[LAT_PIPE_NSTAGES];

/* Stage names: "send", "q1+wake", "work", "q2+wake", "e2e". */
const char *lat_pipe_stage_name(int stage);
/* True when stage exists in a run of this shape (send only with split_q1,
 * q2+wake only in the full shape). */
bool lat_pipe_stage_present(int stage, int shape, bool split_q1);
/* The flight recorder slot of stage in such a run, or -1. */
int lat_pipe_flight_slot(int stage, int shape, bool split_q1);
const char *lat_pipe_shape_name(int shape);

/* Run once.  Returns 0 (r filled; release with lat_pipe_result_fini), or
 * -EINVAL (bad config), -ENOMEM, a thread/pinning error (negative errno).
 * Blocks for the run (about events / rate_hz seconds). */
int lat_pipe_run(const lat_pipe_config *c, lat_pipe_result *r);
void lat_pipe_result_fini(lat_pipe_result *r); /* NULL is fine */

/* The e2e p99.9 (ns) of a short steady baseline of c: c with at most
 * LAT_PIPE_BASELINE_EVENTS events at its mean rate, without experiments
 * (alloc, share-line, stalls), logs, counters or a replayed source; a flight
 * threshold from the same machine and placement.  *events gets the count
 * run.  0 or lat_pipe_run's error.  Blocks for the run. */
#define LAT_PIPE_BASELINE_EVENTS 50000
int lat_pipe_baseline_p999(const lat_pipe_config *c, uint64_t *p999_ns, uint64_t *events);

/* Cost of one fenced cycle read in ns, median of n back-to-back pairs. */
uint64_t lat_pipe_stamp_cost_ns(const lat_clock_cal *cal, unsigned n);

/* Placement.  Resolves shape (AUTO: full when three hot threads can be pinned
 * on distinct CPUs, else compact), plans hot CPUs through the topology
 * planner and fills c->cpus.  oversubscribe: when there are too few CPUs,
 * share them and switch c->idle to backoff instead of failing.  why gets a
 * sentence on the choice (shape, CPUs, compromises).  Returns 0,
 * LAT_ETOOFEW_CPUS (why says what is needed), or a negative errno.
 * *oversubscribed is set when hot threads share a CPU. */
int lat_pipe_place(lat_pipe_config *c, int shape, const struct lat_topo *t, bool oversubscribe,
                   bool *oversubscribed, char *why, size_t why_len);

/* A JSON object for one run: config, placement, percentiles per stage,
 * counts, drops, per-thread counters, instrumentation cost (caller owns it). */
struct json_t *lat_pipe_result_json(const lat_pipe_config *c, const lat_pipe_result *r);

#endif /* LATLAB_PIPELINE_H */
