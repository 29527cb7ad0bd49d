/* flight.h - the flight recorder: the last N samples of a pipeline, frozen
 * around the first outlier so you can read what its neighbours were doing.
 *
 * A histogram says where in the distribution a problem lives; it cannot say
 * whether the p99.9 came from one event that was slow in one stage (an
 * allocator slow path) or from a run of consecutive events that all waited in a
 * queue (the next stage stalled and the queue backed up). */

/* The recorder keeps a wrapping array of recent samples (per-stage latencies plus end-to-end, in ns)
 * and, on the first sample whose end-to-end latency exceeds a threshold,
 * records `post` more samples (so the events queued behind the outlier are in
 * the window) and then freezes: nothing is overwritten any more.  The window
 * can be dumped with the outlier marked and analysed into a one-line verdict.
 *
 * Threading: one writer (the aggregator thread).  lat_flight_record() is
 * static inline: no allocation, no lock, no syscall; a struct copy and a
 * compare.  Analysis and dumping are for after the run (or from the writer).
 * Allocation happens only in lat_flight_create(). */
#ifndef LATLAB_FLIGHT_H
#define LATLAB_FLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/compiler.h"

#define LAT_FLIGHT_STAGES 4         /* most stages a sample carries */
#define LAT_FLIGHT_DEFAULT_CAP 4096 /* samples in the default window */
#define LAT_FLIGHT_DEFAULT_POST 256 /* samples kept after the trigger */
#define LAT_FLIGHT_NONE UINT64_MAX  /* "no trigger yet" / "no threshold" */
#define LAT_FLIGHT_NAME_MAX 16

/* One event: its sequence number, per-stage latencies and end-to-end latency. */
typedef struct lat_flight_sample {
    uint64_t seq;
    uint64_t e2e_ns;
    uint64_t stage_ns[LAT_FLIGHT_STAGES];
} lat_flight_sample;

/* The recorder.  Fields are public so record can be inline; treat them as
 * read-only outside this header. */
typedef struct lat_flight {
    lat_flight_sample *ring; /* read-only after create: capacity entries */
    uint64_t mask;           /* read-only after create: capacity - 1 */
    uint64_t head;           /* writer-owned: samples written so far */
    uint64_t threshold_ns;   /* writer-owned: trigger when e2e_ns > this */
    uint64_t post;           /* read-only after create: samples kept after the trigger */
    uint64_t trigger_at;     /* writer-owned: head index of the trigger, or LAT_FLIGHT_NONE */
    uint64_t stop_at;        /* writer-owned: head index at which the window freezes */
    uint64_t drain_ns;       /* read-only while recording: after post, keep recording while
                                e2e_ns > this (LAT_FLIGHT_NONE: never) */
    uint64_t drain_limit;    /* read-only after create: most samples kept after the trigger */
    uint64_t baseline_ns[LAT_FLIGHT_STAGES]; /* per stage: the run's typical latency, what
                                                neighbours are judged against (0: the window's
                                                median) */
    int frozen;                              /* writer-owned: 1 once nothing more is written */
    unsigned nstages;                        /* read-only after create */
    char names[LAT_FLIGHT_STAGES][LAT_FLIGHT_NAME_MAX]; /* read-only after create */
} lat_flight;

/* Create a recorder.  capacity: samples kept (0 = 4096; rounded up to a power
 * of two, at most 2^24).  nstages: 1..LAT_FLIGHT_STAGES; names: nstages stage
 * names (copied, truncated to 15 characters; NULL gives "stage0"...).
 * threshold_ns: trigger level for e2e (LAT_FLIGHT_NONE = never trigger).
 * post: samples recorded after the trigger before freezing (clamped to
 * capacity - 1; the rest of the window is the trigger's predecessors).
 * Returns 0, -EINVAL (bad nstages, out NULL, capacity too large) or -ENOMEM. */
LAT_API int lat_flight_create(lat_flight **out, size_t capacity, unsigned nstages,
                              const char *const *names, uint64_t threshold_ns, uint64_t post);
/* Free a recorder; NULL is fine. */
LAT_API void lat_flight_destroy(lat_flight *f);

/* Keep recording past the post samples while each new sample's e2e exceeds
 * drain_ns (a backlog still draining), up to 3/4 of the window after the
 * trigger (its predecessors keep the rest); the verdict says where a run was
 * cut.  LAT_FLIGHT_NONE (the default): stop after post.  Before recording. */
static inline void lat_flight_set_drain(lat_flight *f, uint64_t drain_ns) {
    f->drain_ns = drain_ns;
}

/* The run's typical latency of stage (its p50 over the whole run, say):
 * neighbours of the outlier are judged against it instead of the window's
 * own median, which a backlog filling the window would raise.  0 restores
 * the window median.  Any time before lat_flight_analyze. */
static inline void lat_flight_set_baseline(lat_flight *f, unsigned stage, uint64_t ns) {
    if (stage < LAT_FLIGHT_STAGES) f->baseline_ns[stage] = ns;
}

/* Change the threshold (before the trigger; no effect once triggered). */
static inline void lat_flight_set_threshold(lat_flight *f, uint64_t threshold_ns) {
    f->threshold_ns = threshold_ns;
}

/* Record one sample.  Hot path: no allocation, no lock, no syscall.
 * Returns 1 when this sample is the trigger, else 0 (also when frozen: the
 * sample is then ignored).  Single writer. */
LAT_INLINE int lat_flight_record(lat_flight *f, const lat_flight_sample *s) {
    if (f->frozen) return 0;
    uint64_t i = f->head++;
    f->ring[i & f->mask] = *s;
    if (f->trigger_at == LAT_FLIGHT_NONE) {
        if (LAT_UNLIKELY(s->e2e_ns > f->threshold_ns)) {
            f->trigger_at = i;
            f->stop_at = i + 1 + f->post;
            if (f->post == 0) f->frozen = 1;
            return 1;
        }
    } else if (f->head >= f->stop_at) {
        if (s->e2e_ns > f->drain_ns && f->head - f->trigger_at <= f->drain_limit)
            f->stop_at = f->head + 1; /* a backlog still draining: one more */
        else
            f->frozen = 1;
    }
    return 0;
}

/* Stop recording now (end of run): the window stays as it is. */
static inline void lat_flight_freeze(lat_flight *f) {
    f->frozen = 1;
}

/* 1 when a sample crossed the threshold. */
static inline int lat_flight_triggered(const lat_flight *f) {
    return f->trigger_at != LAT_FLIGHT_NONE;
}

/* Samples in the window (min(head, capacity)) and the i-th oldest of them
 * (0 <= i < count).  Not thread-safe against a concurrent writer. */
LAT_API uint64_t lat_flight_count(const lat_flight *f);
LAT_API const lat_flight_sample *lat_flight_at(const lat_flight *f, uint64_t i);

/* The shape of the frozen window around its trigger. */
enum {
    LAT_FLIGHT_NO_TRIGGER = 0, /* nothing crossed the threshold */
    LAT_FLIGHT_ONE_EVENT = 1,  /* one event slow in one stage, neighbours normal */
    LAT_FLIGHT_RUN = 2,        /* consecutive events slow in the same stage */
};

typedef struct lat_flight_verdict {
    int shape;            /* LAT_FLIGHT_NO_TRIGGER / _ONE_EVENT / _RUN */
    int stage;            /* the trigger's slow stage (largest excess over its
                             window median); -1 without a trigger */
    uint64_t trigger_seq; /* the outlier */
    uint64_t trigger_e2e_ns;
    uint64_t stage_ns;        /* the outlier's latency in that stage */
    uint64_t stage_median_ns; /* that stage's median over the window */
    uint64_t run;             /* consecutive events (trigger included) slow in stage */
    uint64_t run_first_seq, run_last_seq;
    uint64_t run_max_ns; /* worst latency in that stage over the run */
    int run_cut;         /* 1: the run (or, for ONE_EVENT, the events waiting behind it)
                            reaches the window's end: cut there */
    int baseline;        /* 1: every stage had a run baseline (lat_flight_set_baseline) */
    int after_stage;     /* for ONE_EVENT: the stage the next events were slow
                            in (queued behind the outlier), or -1 */
    uint64_t after_run;  /* how many consecutive events right after it */
    char text[320];      /* the one-line verdict */
} lat_flight_verdict;

/* Analyse the window.  A sample is "slow in stage s" when its latency in s
 * exceeds the baseline of s by more than half the threshold (at least 1 ns):
 * the lower of lat_flight_set_baseline's figure and the window median (the
 * window median alone when none was set).  Allocates a scratch copy (not a hot path).
 * Returns 0, -EINVAL (NULL) or -ENOMEM.  Not thread-safe against a concurrent writer. */
LAT_API int lat_flight_analyze(const lat_flight *f, lat_flight_verdict *v);

/* Dump the window to out: a header, the verdict, then one line per sample
 * (seq, each stage, e2e, in ns) with the outlier marked ">>".  context: 0
 * dumps the whole window, else only `context` samples either side of the
 * trigger.  Returns 0, -EINVAL or -EIO (write error). */
LAT_API int lat_flight_dump(const lat_flight *f, FILE *out, uint64_t context);

#endif /* LATLAB_FLIGHT_H */
