/* censor.h - per-sample censoring: join each hot thread's gap timeline (gaps.h)
 * to each sample's stage windows, and decide, per sample and per figure,
 * whether the platform touched it. */

/* On a shared host a spinning thread loses 5-15% of its time in about 1,200
 * gaps per second, so no 100 ms interval is ever clean, yet a 100 ns window
 * meets a gap with a probability near 1e-4.  Judging each sample by its own
 * timeline keeps almost all of them.  The rules below work in cycles, on
 * half-open windows.  Only recorded gaps count: a long window with no gap on
 * its threads (the thread's own work: an allocator slow path, a page fault, a
 * busy stall) is KEPT however long it is. */

/* GAP: the figure's window [from, to) overlapped a recorded platform gap
 * [start, start + len) on a thread that carried it: start < to and
 * start + len > from.  A gap that only touches a boundary (ends at from,
 * starts at to) does not overlap; an empty window counts as one cycle.
 *
 * A figure also leaves as GAP when the sample's time before its window (from
 * the sample's earliest window start to this figure's start) overlapped a gap
 * on a thread carrying the figure.  The sample waited through the gap, and its
 * window then ran on the caches the platform left: the first event after a
 * worker gap found no queue, yet its work ran cold. */

/* BACKLOG: the sample met a queue a gap built.  The caller says, per sample,
 * whether it was *queued*: due while the sample before it still held the
 * server it needs (in the pipeline: t0 < the previous event's t2, or in the
 * full shape t2 < its t3).  A run of queued samples after an unqueued one is
 * one busy period.  A sample is backlog-censored when it is queued and an
 * earlier sample of its busy period had a GAP figure.  The backlog has
 * drained at the first sample that is not queued: it was due after the server
 * finished the one before, so it found no queue.  Every figure of a backlog
 * sample leaves (queue wait, back-to-back work, e2e). */

/* UNKNOWN: a window reaching past a timeline's horizon (its gap list was
 * full, later gaps were not kept) cannot be judged and leaves too. */

/* Bias: a window of length w avoids gaps arriving at rate lambda (per ns,
 * summed over its threads) with probability exp(-lambda (w + E[len])), so
 * longer windows leave more often and a kept tail reads low.  The constant
 * E[len] cancels; lat_censor_ipw_percentiles weights each kept value w by
 * exp(lambda w) (inverse probability of being kept, capped at
 * LAT_CENSOR_MAX_WEIGHT) and reads the percentiles of that weighted
 * distribution.  It corrects the overlap rule only: backlog censoring
 * depends on the queue, not on the window's length. */

/* Thread-safety: the join is a pure computation over caller memory; one
 * lat_censor per caller thread.  Nothing here allocates. */
#ifndef LATLAB_CENSOR_H
#define LATLAB_CENSOR_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/censor.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/gaps.h"
#include "latlab/hist.h"

#define LAT_CENSOR_MAXFIG 8       /* figures (stage windows) per sample */
#define LAT_CENSOR_MAXTL 8        /* gap timelines (hot threads) */
#define LAT_CENSOR_MAX_WEIGHT 100 /* cap of an inverse-probability weight */

/* Why a figure of a sample was censored (or not). */
enum { LAT_CENSOR_KEPT = 0, LAT_CENSOR_GAP = 1, LAT_CENSOR_BACKLOG = 2, LAT_CENSOR_UNKNOWN = 3 };

/* One hot thread's gaps: sorted by start, disjoint (as lat_gaps records
 * them); horizon: gaps are known before it (UINT64_MAX: all of them). */
typedef struct lat_censor_timeline {
    const lat_gap *gaps;
    size_t n;
    uint64_t horizon;
} lat_censor_timeline;

/* One figure's window in cycles, [from, to); threads: bit k set when
 * timeline k carried it (0: the figure is absent, always KEPT). */
typedef struct lat_censor_window {
    uint64_t from, to;
    unsigned threads;
} lat_censor_window;

typedef struct lat_censor_event {
    bool queued; /* due while the previous sample still held its server */
    lat_censor_window fig[LAT_CENSOR_MAXFIG];
} lat_censor_event;

/* Join state (caller storage): the timelines and a cursor into each. */
typedef struct lat_censor {
    lat_censor_timeline tl[LAT_CENSOR_MAXTL];
    unsigned ntl, nfig;
    size_t cur[LAT_CENSOR_MAXTL]; /* first gap ending after the last event's earliest from */
    uint64_t last_from;
    unsigned tainted; /* timelines whose gaps censored a figure in this busy period */
} lat_censor;

/* Set up a join over ntl timelines (copied; their gaps are not) and nfig
 * figures per event.  Returns 0 or -EINVAL (NULL, ntl > LAT_CENSOR_MAXTL,
 * nfig 0 or > LAT_CENSOR_MAXFIG). */
int lat_censor_init(lat_censor *c, const lat_censor_timeline *tl, unsigned ntl, unsigned nfig);

/* Judge the next sample (samples in due order): why[f] gets LAT_CENSOR_* for
 * each of the nfig figures, and who[f] (who may be NULL) the timelines to
 * blame as a bit mask: for GAP those whose gaps overlapped the window, for
 * BACKLOG those whose gaps built the queue, else 0.  Returns true when any
 * figure left.  Fastest when the earliest window start does not decrease
 * from sample to sample; any order is correct for the GAP rule. */
bool lat_censor_judge(lat_censor *c, const lat_censor_event *e, uint8_t *why, unsigned *who);

/* Percentiles (pcts in percent, n of them; out in the histogram's unit) of
 * the kept values in h, each value v weighted by exp(rate * v) (at most
 * LAT_CENSOR_MAX_WEIGHT): rate is the figure's gap rate per unit of v (gaps
 * per ns, summed over its threads, for ns histograms).  rate 0 gives the
 * plain percentiles.  Returns 0, or -EINVAL (NULL, n 0, rate < 0, a pct
 * outside [0, 100]); an empty h gives 0 for each. */
int lat_censor_ipw_percentiles(const lat_hist *h, double rate, const double *pcts, int64_t *out,
                               size_t n);

/* The fewest kept samples that support a figure at percentile pct: ten
 * samples beyond it, ceil(10 / (1 - pct / 100)) (p50: 20, p99: 1,000, p99.9:
 * 10,000, p99.99: 100,000); UINT64_MAX for pct >= 100 or not a number. */
uint64_t lat_censor_min_kept(double pct);
/* kept >= lat_censor_min_kept(pct): the run can read that percentile.  A run
 * is set aside only when this is false for the figure the verdict reads. */
bool lat_censor_supports(uint64_t kept, double pct);

#endif /* LATLAB_CENSOR_H */
