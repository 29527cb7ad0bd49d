/* gaps.h - the hiccup recorder: gaps in a hot thread's own spin loop.
 *
 * A hot thread that spins (pacing to a send time, polling an empty queue)
 * reads the cycle counter every few nanoseconds.  When two consecutive reads
 * are further apart than a threshold, the thread was not running in between:
 * it was preempted, an interrupt ran, or the hypervisor stole the vCPU.  Those
 * gaps are the platform's time, not the program's, and recording them costs a
 * compare per read. */

/* The recorder keeps, per thread, the count, total and
 * longest gap, a log2 histogram of their lengths and a bounded list of
 * (start, length) in cycles so that slow samples can later be matched against
 * the gaps that overlapped them.
 *
 * Threading: one writer (the hot thread that owns it); readers after the
 * writer is joined.  lat_gaps_note() is the hot path: no allocation, no lock,
 * no syscall (a compare, and on a gap a few stores into preallocated memory).
 * Only lat_gaps_create() allocates. */
#ifndef LATLAB_GAPS_H
#define LATLAB_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "latlab/compiler.h"

#define LAT_GAPS_BUCKETS 64        /* bucket b: lengths in [2^b, 2^(b+1)) cycles */
#define LAT_GAPS_DEFAULT_CAP 4096  /* (start, length) entries kept per thread */
#define LAT_GAPS_DEFAULT_NS 10000u /* default threshold: 10 us */

typedef struct lat_gap {
    uint64_t start; /* counter value of the last read before the gap */
    uint64_t len;   /* cycles until the next read */
} lat_gap;

/* Fields are public so lat_gaps_note can be inline; read-only outside this
 * header except through the functions below. */
typedef struct lat_gaps {
    uint64_t threshold; /* cycles; a gap is len >= threshold */
    uint64_t count;     /* gaps seen (also those beyond the list's capacity) */
    uint64_t total;     /* cycles lost in gaps */
    uint64_t longest;
    uint64_t overflow; /* gaps not kept in the list (capacity reached) */
    uint64_t hist[LAT_GAPS_BUCKETS];
    lat_gap *list; /* capacity entries, the first min(count, capacity) used */
    size_t capacity;
} lat_gaps;

/* Create a recorder keeping up to capacity gaps (0 = LAT_GAPS_DEFAULT_CAP) of
 * at least threshold_cycles (>= 1).  Returns 0, -EINVAL or -ENOMEM. */
LAT_API int lat_gaps_create(size_t capacity, uint64_t threshold_cycles, lat_gaps **out);
LAT_API void lat_gaps_destroy(lat_gaps *g); /* NULL is fine */
/* Forget every gap (keeps threshold and capacity). */
LAT_API void lat_gaps_clear(lat_gaps *g);

/* Record the gap [prev, now) when it reaches the threshold.  Hot path. */
LAT_INLINE void lat_gaps_note(lat_gaps *g, uint64_t prev, uint64_t now) {
    if (LAT_LIKELY(now - prev < g->threshold) || now < prev) return;
    uint64_t len = now - prev;
    g->total += len;
    if (len > g->longest) g->longest = len;
    g->hist[63 - __builtin_clzll(len)]++;
    if (g->count < g->capacity)
        g->list[g->count] = (lat_gap){prev, len};
    else
        g->overflow++;
    g->count++;
}

/* Gaps kept in the list (min(count, capacity)). */
LAT_API size_t lat_gaps_kept(const lat_gaps *g);
/* Cycles of [from, to) covered by kept gaps (gaps are disjoint per thread). */
LAT_API uint64_t lat_gaps_overlap(const lat_gaps *g, uint64_t from, uint64_t to);
/* Index of the first of n gaps (sorted by start, disjoint) that ends after
 * from (binary search), n when none does.  NULL list: 0. */
LAT_API size_t lat_gaps_search(const lat_gap *list, size_t n, uint64_t from);
/* Index of the longest kept gap overlapping [from, to), or -1. */
LAT_API long lat_gaps_find(const lat_gaps *g, uint64_t from, uint64_t to);

#endif /* LATLAB_GAPS_H */
