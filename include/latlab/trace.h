/* trace.h - the stage tracer: stamp your own messages at each hop, ship the
 * stamps off the hot path, read per-stage tails live. */

/* The lab pipeline's instrument as a library for the user's threads (the
 * "miniature APM": the stamps carried in a message are trace-context
 * propagation, the aggregator is the metrics backend). */

/*   setup     lat_trace_create() with named stages, each a pair of stamp points
 *             ("q1+wake" = t1 - t0, "e2e" = t3 - t0), the histogram range and
 *             precision, the interval length and optional outputs: one .hlog
 *             interval log per stage, a flight recorder, a unix socket that
 *             streams the intervals to `latlab top --connect`;
 *   hot path  a lat_trace_stamps block rides inside the user's message; each hop
 *             calls lat_trace_stamp(); the last hop calls lat_trace_ship() on
 *             its thread's sink, which copies the block into the sink's SPSC ring
 *             (ring.h, lat_spsc) and never blocks: a full ring counts a drop. */

/*   off path  one aggregator pops every sink's ring, converts cycles to ns,
 *             records per-sink and merged per-stage histograms, closes an
 *             interval every interval_ns (interval logs, callback, socket) and
 *             keeps cumulative histograms.  It runs on a latlab-owned cold thread
 *             (lat_trace_start) or inside a thread the user already has, which
 *             calls lat_trace_drain() (on small machines a third busy thread is
 *             the tail's main cause). */

/* Scaling past a straight line: one sink (one SPSC ring) per shipping thread,
 * never one shared MPSC ring; the aggregator merges the histograms. */

/* COST AND THREADS.  Every call says who may call it:
 *   [hot]    stamp/ship: static inline, allocate nothing, take no lock, make no
 *            system call (the test suite proves the allocation part with the
 *            counting allocator, latlab/alloccount.h; the benchmarks price them);
 *   [sink]   only the thread that owns the sink (its one producer);
 *   [agg]    only the aggregating thread (the one calling drain, or latlab's);
 *   [any]    any thread, any time between create and destroy (these take the
 *            tracer's mutex; cold);
 *   [setup]  no other thread may use the tracer concurrently. */

/* Stamps are raw cycle-counter values (clock.h); 0 marks a stamp that was
 * never taken (a fenced counter read is never 0 on a running machine).  A stage
 * whose two points are not both set is skipped for that event and counted in
 * `unset`; a stage whose end is before its start (two cores' counters a hair
 * apart) records 0 and is counted in `nonmonotonic`. */
#ifndef LATLAB_TRACE_H
#define LATLAB_TRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/flight.h"
#include "latlab/hist.h"
#include "latlab/ring.h"

/* ---- the stamp block (in the user's message) ------------------------------------ */

#define LAT_TRACE_POINTS 6      /* stamp points a block carries: t0..t5 */
#define LAT_TRACE_MAX_STAGES 16 /* stages a trace may declare */
#define LAT_TRACE_MAX_SINKS 64  /* shipping threads a trace may have */
#define LAT_TRACE_NAME_MAX 32   /* bytes of a stage name including the NUL */

/* 56 bytes: with the ring's 8-byte slot word it fills one 64-byte slot.
 * Zero it (= {0} or lat_trace_stamps_clear) when the message is created. */
typedef struct lat_trace_stamps {
    uint64_t t[LAT_TRACE_POINTS]; /* raw counter values; 0 = not stamped.  A point
                                     no stage names is never read by the tracer:
                                     free for a word of the caller's own, which
                                     reaches the on_block callback */
    uint64_t id;                  /* the user's event id (sequence number); the
                                     flight recorder shows it, nothing else reads it */
} lat_trace_stamps;

/* [hot] Forget every stamp (id included). */
LAT_INLINE void lat_trace_stamps_clear(lat_trace_stamps *s) {
    for (int i = 0; i < LAT_TRACE_POINTS; i++)
        s->t[i] = 0;
    s->id = 0;
}
/* [hot] Stamp point `point` (0..LAT_TRACE_POINTS-1) now with a fenced counter
 * read (clock.h: lfence;rdtsc / isb;mrs): every earlier instruction has
 * completed.  One counter read and one store. */
LAT_INLINE void lat_trace_stamp(lat_trace_stamps *s, unsigned point) {
    s->t[point] = lat_cycles_fenced();
}
/* [hot] Stamp point `point` with a counter value the caller already has (an
 * intended send time for open-loop load, or a read shared by two points). */
LAT_INLINE void lat_trace_stamp_at(lat_trace_stamps *s, unsigned point, uint64_t cycles) {
    s->t[point] = cycles;
}

/* ---- setup ------------------------------------------------------------------------- */

/* A stage: the latency from stamp point `from` to stamp point `to`. */
typedef struct lat_trace_stage {
    const char *name;  /* non-empty, < LAT_TRACE_NAME_MAX bytes, no ',', ' ', CR, LF
                          (it is the stage's tag in interval logs and on the socket) */
    unsigned from, to; /* stamp points, < LAT_TRACE_POINTS, from != to */
} lat_trace_stage;

typedef struct lat_trace lat_trace;
typedef struct lat_trace_interval lat_trace_interval;

typedef struct lat_trace_config {
    const lat_trace_stage *stages; /* nstages entries (copied at create) */
    unsigned nstages;              /* 1..LAT_TRACE_MAX_STAGES */
    int64_t lowest_ns;             /* histogram lowest discernible value (default 1) */
    int64_t highest_ns;            /* highest trackable value (default 60 s) */
    int sig_figs;                  /* 0..5 (default 3) */
    uint64_t interval_ns;          /* interval length (default 1 s, >= 1 ms) */
    size_t sink_capacity;          /* stamp blocks per sink ring (default 16384) */
    const lat_clock_cal *cal;      /* NULL: lat_clock_default() */
    /* Optional outputs. */
    const char *hlog_prefix; /* NULL: none; else one interval log per stage at
                                "<prefix><name>.hlog" ('+' in a name becomes '-';
                                names with '/', "." or "..", and two names that
                                map to one file, "a+b" and "a-b", are -EINVAL),
                                written as whole lines, flushed every interval */
    bool hlog_atomic;        /* false: each log is written in place, valid up to its last
                                line at every moment (`latlab top` follows it).  true:
                                each log grows in a temporary file beside its target
                                (atomicfile.h), equally valid line by line, and replaces
                                the target only in lat_trace_logs_commit; without a
                                commit, or after a write error, lat_trace_destroy
                                removes the temporaries and the old files stay */
    char *error_path;        /* NULL, or error_path_cap bytes that receive the path of
                                the first output (log or socket) that failed to open,
                                write or commit; read it after lat_trace_create failed
                                or after lat_trace_stop / lat_trace_logs_commit */
    size_t error_path_cap;
    const char *socket_path; /* NULL: none; else a unix stream socket that sends
                                each client an interval log (tag = stage) as the
                                intervals close (`latlab top --connect PATH`).  A
                                stale socket file there is replaced; one another
                                process still listens on fails create with
                                -EADDRINUSE.  Destroy removes the file only while
                                it is still this tracer's own */
    /* Called on the aggregating thread after each interval closes (also the last,
     * partial one at stop).  It may query the tracer ([any] calls); it must not
     * call drain/start/stop/destroy. */
    void (*on_interval)(void *ud, const lat_trace_interval *iv);
    /* Called on the aggregating thread for every block, after it is recorded,
     * with its stage values in ns (-1 where a point was unset): the place for
     * what the histograms cannot keep (the slowest events by id, attribution,
     * per-event checks).  It runs inside drain: keep it short.  NULL: none. */
    void (*on_block)(void *ud, const lat_trace_stamps *b, const int64_t *stage_ns);
    void *ud; /* passed to both callbacks */
    /* Flight recorder (flight.h): off unless flight_threshold_ns !=
     * LAT_FLIGHT_NONE.  It triggers on stage flight_stage (default: the last
     * declared) and shows up to LAT_FLIGHT_STAGES of the other stages. */
    uint64_t flight_threshold_ns;
    uint64_t flight_post;     /* samples after the trigger (default 256) */
    size_t flight_capacity;   /* window (default 4096) */
    int flight_stage;         /* -1: the last stage */
    uint64_t flight_drain_ns; /* past post, keep recording while the trigger stage is
                                 above this (lat_flight_set_drain; default LAT_FLIGHT_NONE) */
} lat_trace_config;

/* Defaults as stated above; no stages, no outputs.  [any] */
LAT_API void lat_trace_config_default(lat_trace_config *c);

/* Build a tracer: histograms (four per stage: the interval recorder's two, the
 * last interval, the cumulative one), outputs (files are created and get their
 * header now; the socket listens now).  A log or socket that cannot be opened
 * fails create; a failed write (the header's included) is recorded instead
 * (the first one, with error_path) and returned by stop: the run goes on.  Setup cost: allocation,
 * file and socket system calls, the default calibration on first use (200 ms).  Returns 0 and *out,
 * or -EINVAL (bad config: stages, names, points, range, two names for one log file), -ENOMEM,
 * -EADDRINUSE (a live socket of another process at socket_path), or a negative errno from
 * opening a log or the socket.  [any] */
LAT_API int lat_trace_create(const lat_trace_config *c, lat_trace **out);
/* Stop (as lat_trace_stop), close the outputs, free everything, sinks
 * included.  NULL is fine.  [setup] */
LAT_API void lat_trace_destroy(lat_trace *t);

/* ---- sinks: one per shipping thread -------------------------------------------------- */

/* The public part of a sink (fields public so ship can be inline; treat them
 * as read-only). */
typedef struct lat_trace_sink {
    lat_spsc ring;                              /* producer: the shipping thread; consumer:
                                                   the aggregator */
    LAT_CACHE_ALIGNED _Atomic uint64_t dropped; /* sink-owned (single writer, relaxed
                                              load + store, no RMW); [any] reads */
    unsigned index;                             /* read-only after create: 0, 1, ... */
    lat_trace *trace;                           /* read-only after create */
} lat_trace_sink;

/* Add a sink (allocates its ring of cfg.sink_capacity blocks, or `capacity`
 * when non-zero, rounded up to a power of two, 64 bytes a block; and two
 * histograms per stage).  Sinks live until
 * lat_trace_destroy.  Returns 0 and *out, -ENOSPC (LAT_TRACE_MAX_SINKS
 * reached), -EINVAL or -ENOMEM.  [any], also while the aggregator runs. */
LAT_API int lat_trace_sink_create(lat_trace *t, size_t capacity, lat_trace_sink **out);

/* [hot][sink] Copy the stamp block into the sink's ring for the aggregator.
 * Never blocks, allocates nothing, takes no lock, makes no system call: the
 * ring's push (a compare, seven 8-byte stores, the slot word) and, only when
 * the ring is full, a drop count.  Returns true when shipped, false when
 * dropped. */
LAT_INLINE bool lat_trace_ship(lat_trace_sink *k, const lat_trace_stamps *s) {
    if (LAT_LIKELY(lat_spsc_try_push_t(&k->ring, s))) return true;
    /* single writer: a relaxed load and store, no locked instruction */
    atomic_store_explicit(&k->dropped, atomic_load_explicit(&k->dropped, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return false;
}

/* ---- aggregation ------------------------------------------------------------------------ */

/* Start latlab's aggregator: one unpinned cold thread that drains every sink
 * and idles with backoff (spins, yields, then sleeps up to 1 ms).  Returns 0,
 * -EBUSY (already started, or drain() was used), or -errno from
 * pthread_create.  [setup] */
LAT_API int lat_trace_start(lat_trace *t);

/* Aggregate what the sinks hold now (at most each ring's capacity per sink),
 * and close the interval when it is due.  Returns the stamp blocks
 * aggregated (0 when there were none), or -EBUSY when latlab's thread runs.
 * Cost per block: per stage a cycles->ns conversion, one record into the
 * stage's interval recorder (four atomic read-modify-writes) and one plain
 * record into the sink's histogram (bench_trace prints the figure); plus an
 * interval close once per interval (histogram merges, log writes).  Call it
 * from the thread you choose as the aggregator, as often as you like; only
 * that one thread may call it.  [agg] */
LAT_API int lat_trace_drain(lat_trace *t);

/* Finish: stop and join latlab's thread (it drains everything first), or, in
 * drain mode, drain everything on the calling thread; then close the last
 * (partial) interval and flush the logs.  Ships after this are not
 * aggregated.  Call it once the shipping threads are done shipping (their
 * sinks are handed back: their ring sides may be owned by new threads after
 * it).  Idempotent.  Returns 0 or the first output error (negative errno).
 * [setup] */
LAT_API int lat_trace_stop(lat_trace *t);

/* Interval logs with hlog_atomic: after lat_trace_stop, rename every complete
 * log over its target.  Returns 0; the first write error of the run (then no
 * log is committed: the old files stay); or the first failed commit's negative
 * errno (the logs committed before it stay).  The failing path goes to the
 * config's error_path.  Without hlog_atomic it commits nothing and returns
 * the first output error.  -EBUSY before lat_trace_stop.  [setup] */
LAT_API int lat_trace_logs_commit(lat_trace *t);

/* ---- reading (any thread, while running) ------------------------------------------------- */

/* What lat_trace_interval's callback sees; histograms valid during the call. */
struct lat_trace_interval {
    uint64_t index;           /* 0, 1, ... */
    double start_s, length_s; /* wall clock, seconds since the epoch */
    unsigned nstages;
    const char *const *names;          /* nstages stage names */
    const lat_hist *const *interval;   /* per stage: this interval */
    const lat_hist *const *cumulative; /* per stage: since create */
};

enum { LAT_TRACE_INTERVAL = 0, LAT_TRACE_CUMULATIVE = 1 };

/* Figures of one stage's histogram, ns. */
typedef struct lat_trace_figures {
    int64_t count, min, p50, p90, p99, p999, p9999, max;
    double mean;
} lat_trace_figures;

/* Accounting.  After stop, for every sink: shipped == recorded + dropped
 * (exactly once: nothing counted twice or lost).  While running, recorded +
 * dropped + (blocks still in rings) == shipped. */
typedef struct lat_trace_counts {
    uint64_t recorded;     /* stamp blocks aggregated */
    uint64_t dropped;      /* ships refused by a full ring */
    uint64_t unset;        /* stage values skipped: a point was not stamped */
    uint64_t nonmonotonic; /* stage values whose end preceded their start (recorded as 0) */
    uint64_t out_of_range; /* stage values beyond the histogram's range */
    uint64_t intervals;    /* intervals closed */
} lat_trace_counts;

/* Stages declared, and stage i's name ("" when i is out of range).  [any] */
LAT_API unsigned lat_trace_nstages(const lat_trace *t);
LAT_API const char *lat_trace_stage_name(const lat_trace *t, unsigned stage);
/* Figures of stage `stage`: LAT_TRACE_INTERVAL = the last closed interval,
 * LAT_TRACE_CUMULATIVE = every closed interval (not the one in progress).
 * Returns 0, or -EINVAL.  [any] */
LAT_API int lat_trace_figures_get(lat_trace *t, unsigned stage, int which, lat_trace_figures *out);
/* Percentiles ps[0..n) (Java semantics, hist.h) of the same histograms.
 * Returns 0, -EINVAL (n > LAT_HIST_MAX_BATCH).  [any] */
LAT_API int lat_trace_percentiles(lat_trace *t, unsigned stage, int which, const double *ps,
                                  int64_t *out, size_t n);
/* A deep copy of the same histogram into dst (uninitialised; free with
 * lat_hist_fini).  Returns 0, -EINVAL or -ENOMEM.  [any] */
LAT_API int lat_trace_hist_copy(lat_trace *t, unsigned stage, int which, lat_hist *dst);
/* One sink's cumulative histogram of a stage (the sum over the sinks equals
 * the merged cumulative one), as of the last closed interval.  [any] */
LAT_API int lat_trace_sink_hist_copy(lat_trace_sink *k, unsigned stage, lat_hist *dst);
/* The whole trace's counts, or one sink's (recorded and dropped only; the
 * rest 0).  `recorded` is as of the last drain.  [any] */
LAT_API void lat_trace_counts_get(lat_trace *t, lat_trace_counts *out);
LAT_API void lat_trace_sink_counts_get(lat_trace_sink *k, lat_trace_counts *out);
/* The flight recorder, NULL when none.  Read it after lat_trace_stop (it is
 * written by the aggregator).  [setup] */
LAT_API const lat_flight *lat_trace_flight(const lat_trace *t);
/* Hand the flight recorder to the caller (free it with lat_flight_destroy); the
 * tracer keeps none after this.  NULL when there is none.  [setup], after
 * lat_trace_stop. */
LAT_API lat_flight *lat_trace_flight_take(lat_trace *t);

#endif /* LATLAB_TRACE_H */
