/* bakeoff_rings.h - ring measurements shared by `latlab dce` and `latlab bakeoff ring`.
 *
 * Four queues behind one set of measurements: latlab's cached-index ring,
 * latlab's per-slot sequence ring, Concurrency Kit's ck_ring (SPSC namespace)
 * and a mutex + condition-variable queue.  Measurements: same-thread push+pop,
 * cross-core streaming throughput and cross-core round trip through two
 * queues (the raw cache-line ping-pong that bounds any cross-core latency
 * from below is core's: pingpong.h).  Everything is timed with the cycle counter
 * (lat_cycles_fenced) and converted with the process-wide calibration.  A workload of the ring
 * bake-off (`latlab dce`, `latlab bakeoff ring`); Concurrency Kit is optional
 * (lat__bakeoff_kind_available). */
#ifndef LATLAB_BAKEOFF_RINGS_H
#define LATLAB_BAKEOFF_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/pingpong.h"
#include "latlab/stats.h"

typedef enum lat__bakeoff_kind {
    LAT_BAKEOFF_RING = 0, /* lat_ring: cached-index */
    LAT_BAKEOFF_SEQRING,  /* lat_seqring: per-slot sequence */
    LAT_BAKEOFF_CK,       /* ck_ring SPSC */
    LAT_BAKEOFF_MUTEX,    /* pthread mutex + condvar */
    LAT_BAKEOFF_NKINDS
} lat__bakeoff_kind;

const char *lat__bakeoff_kind_name(lat__bakeoff_kind k);
/* False for ck_ring when Concurrency Kit was not found at build time (its
 * measurements then return -ENOTSUP, or -1 / a skipped slot). */
bool lat__bakeoff_kind_available(lat__bakeoff_kind k);

/* Item sizes: 8 (a u64), 40, or 56 (the pipeline's message and the tracer's
 * stamp block); every queue copies a constant-size item (typed calls). */
#define LAT_BAKEOFF_PIPELINE_ITEM 56

/* Same-thread push then pop of one item, ops pairs in 40 chunks at each of 4
 * code placements of the loop: ns per pair in the fastest chunk (preemption
 * only ever adds time; placement is the binary's luck, not the queue's).  -1
 * on a lost item. */
double lat__bakeoff_same_thread_ns(lat__bakeoff_kind k, size_t item_size, uint64_t ops);

/* The same for every queue at once, chunks interleaved across the queues;
 * queue k runs ops / scale[k] pairs.  prepared: push items written before the
 * timing instead of an item whose first word was just stored (bakeoff_rings.c,
 * ST_AT).  Returns 0, -EINVAL (item size), -ENOMEM or -EIO. */
int lat__bakeoff_same_thread_all(size_t item_size, bool prepared, uint64_t ops,
                       const uint64_t scale[LAT_BAKEOFF_NKINDS], double out[LAT_BAKEOFF_NKINDS]);

/* The DCE pair: ns/op of a multiply-add whose result is unused (the optimizer
 * deletes it) and of the same through lat_do_not_optimize(). */
void lat__bakeoff_dce_pair(uint64_t ops, double *trap_ns, double *barrier_ns);

/* Producer on cpu_a streams n (>= 32) items of item_size (8, 40 or 56) to a
 * consumer on cpu_b through a queue of capacity cap.  *mops = million items
 * per second in the fastest window of 65536 items (n/4 for short runs; at
 * most 256 windows), not counting the first: a window in which the scheduler
 * took a thread away is only ever slower.  *overall_mops (may be NULL) = over
 * the whole run.  Returns 0, a negative errno (pinning, threads) or -EIO when
 * an item arrived out of order (the harness checks every one). */
int lat__bakeoff_throughput(lat__bakeoff_kind k, size_t item_size, size_t cap, int cpu_a, int cpu_b, uint64_t n,
                  double *mops, double *overall_mops);

/* Round trip: cpu_a sends a stamp to cpu_b through one queue, cpu_b sends it
 * back through another; n samples (after a warm-up).  Percentiles in ns. */
typedef lat_pingpong_result lat__bakeoff_lat; /* p50_ns, p99_ns, p999_ns, min_ns, max_ns, samples */
int lat__bakeoff_roundtrip(lat__bakeoff_kind k, size_t cap, int cpu_a, int cpu_b, uint64_t n, lat__bakeoff_lat *out);

/* Median of n doubles (sorts v; 0 when n <= 0): the statistics module's. */
static inline double lat__bakeoff_median(double *v, int n) {
    return n > 0 ? lat_stats_median_inplace(v, (size_t)n) : 0;
}

#endif
