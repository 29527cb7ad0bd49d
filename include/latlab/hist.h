/* hist.h - HdrHistogram: recording, Java-exact queries, iterators, merge,
 * coordinated-omission correction, the V2 codec and an interval recorder. */

/* Geometry, query semantics and the V2 encoding follow the Java reference
 * (org.HdrHistogram 2.1.x), so encodings and logs interchange byte for byte and
 * percentiles agree with Java and hdr-histogram-js (not HdrHistogram_c, which
 * rounds percentiles to nearest).
 *
 * Split: this header + core/hist.c (core, queries, iterators, recorder),
 * core/hist_codec.c (V2/V1/V0 codec, zlib, base64); the text formats (interval
 * logs, .hgrm percentile tables) are in latlab/hlog.h + core/hlog.c. */

/* Workload: one thread records millions of values per second into a
 * lat_hist with the static inline lat_hist_record*() below (no call, no lock,
 * no allocation, no syscall); queries run afterwards or on a copy.  Several
 * writers share a histogram through lat_hist_record_atomic(), or record into a
 * lat_hist_recorder whose reader takes interval snapshots without stopping
 * them.  A lat_hist is not thread-safe otherwise: concurrent queries on a
 * histogram nobody writes are fine.
 *
 * Values are int64_t in the caller's unit (latlab records ns).  Counts are
 * 64-bit everywhere. */
#ifndef LATLAB_HIST_H
#define LATLAB_HIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/compiler.h"

/* The 64-bit scalar fields are long long (the same size and representation
 * as int64_t on LP64) and counts[] is int64_t (long): the two types never
 * alias, so in a recording loop a compiler keeps the geometry and
 * total_count in registers across the counts[] stores (see
 * lat_hist_record_n). */
typedef struct lat_hist {
    /* Geometry: read-only after init. */
    long long lowest;         /* lowest discernible value L >= 1 */
    long long highest;        /* highest trackable value H >= 2L */
    int32_t sig_figs;         /* significant decimal digits S, 0..5 */
    int32_t unit_magnitude;   /* floor(log2(L)) */
    int32_t half_magnitude;   /* log2(sub_bucket_half_count) */
    int32_t sub_bucket_count; /* 2^ceil(log2(2*10^S)) */
    int32_t sub_bucket_half_count;
    int32_t bucket_count;               /* buckets needed to cover H */
    int32_t counts_len;                 /* (bucket_count + 1) * sub_bucket_half_count */
    int32_t lz_base;                    /* 63 - unit_magnitude - half_magnitude (index math) */
    unsigned long long sub_bucket_mask; /* (sub_bucket_count - 1) << unit_magnitude */
    unsigned long long slot_bias;       /* unit_magnitude * sub_bucket_half_count */
    /* Recording state: written by the recording thread (or atomically by
     * lat_hist_record_atomic writers). */
    long long total_count;    /* sum of counts[] */
    long long min_value;      /* smallest value recorded, INT64_MAX when none */
    long long max_value;      /* largest value recorded, 0 when none */
    long long overflow_count; /* values rejected as out of range (< 0 or > H) */
    int64_t *counts;          /* counts_len slots; owned (lat__alloc) */
} lat_hist;

/* ---- set-up ------------------------------------------------------------------ */

/* Initialise h for values in [0, highest] with lowest discernible value
 * `lowest` (>= 1), highest >= 2 * lowest, sig_figs 0..5.  Allocates the counts
 * (zeroed).  Returns 0, -EINVAL (bad parameters; h untouched) or -ENOMEM.
 * Not thread-safe on h.  Example: (1, 3600000000000, 3) tracks 1 ns .. 1 h. */
LAT_API int lat_hist_init(lat_hist *h, int64_t lowest, int64_t highest, int sig_figs);
/* Internal: h's geometry fields for these parameters (as lat_hist_init), no
 * counts (NULL): enough for the index math, nothing to free.  0 / -EINVAL. */
int lat__hist_geometry(lat_hist *h, int64_t lowest, int64_t highest, int sig_figs);
/* Release h's counts and zero h.  NULL and zeroed/freed histograms are fine. */
LAT_API void lat_hist_fini(lat_hist *h);
/* Heap-allocated form: *out on success (0), else -EINVAL/-ENOMEM. */
LAT_API int lat_hist_create(int64_t lowest, int64_t highest, int sig_figs, lat_hist **out);
/* Free a histogram from lat_hist_create.  NULL is fine. */
LAT_API void lat_hist_destroy(lat_hist *h);
/* Bytes owned by h (struct + counts). */
LAT_API size_t lat_hist_memory_size(const lat_hist *h);
/* Forget every value (counts, total, min, max, overflow); keeps geometry. */
LAT_API void lat_hist_reset(lat_hist *h);
/* dst (uninitialised) becomes a deep copy of src.  0, -ENOMEM. */
LAT_API int lat_hist_copy(lat_hist *dst, const lat_hist *src);
/* true when a and b have identical geometry (L, H, S). */
LAT_API bool lat_hist_same_geometry(const lat_hist *a, const lat_hist *b);

/* ---- index math (static inline; valid for 0 <= v <= highest_equivalent(H)) ---- */

/* Slot of value v as a size_t: the record path's form (unsigned arithmetic,
 * no sign extension; sub_bucket_mask keeps the top bit at or above
 * unit_magnitude + half_magnitude, so shift >= unit_magnitude).  With
 * shift = bucket + unit_magnitude = msb(v | mask) - half_magnitude:
 *   (bucket << half_magnitude) + (v >> shift)
 *     == shift * sub_bucket_half_count + (v >> shift) - slot_bias
 * which is one bsr, one variable shift and one multiply (fewer instructions
 * than two variable shifts without BMI2). */
LAT_INLINE size_t lat__hist_slot(const lat_hist *h, int64_t v) {
    unsigned msb = 63u ^ (unsigned)__builtin_clzll((uint64_t)v | h->sub_bucket_mask);
    unsigned shift = msb - (unsigned)h->half_magnitude;
    return (size_t)shift * (size_t)(uint32_t)h->sub_bucket_half_count +
           (size_t)((uint64_t)v >> shift) - h->slot_bias;
}

/* Slot of value v. */
LAT_INLINE int32_t lat_hist_index(const lat_hist *h, int64_t v) {
    return (int32_t)lat__hist_slot(h, v);
}

/* Lowest value of slot i (Java valueFromIndex). */
LAT_INLINE int64_t lat_hist_value_from_index(const lat_hist *h, int32_t i) {
    int32_t bucket = (i >> h->half_magnitude) - 1;
    int32_t sub = (i & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
    if (bucket < 0) {
        sub -= h->sub_bucket_half_count;
        bucket = 0;
    }
    return (int64_t)((uint64_t)sub << (bucket + h->unit_magnitude));
}

/* ---- recording (hot path) --------------------------------------------------
 * static inline: no call, no lock, no allocation, no syscall (tests prove it
 * with a counting allocator).  Single writer per histogram.  A value < 0 or
 * > highest is not recorded: the call returns false and overflow_count grows
 * by the count (saturating at INT64_MAX).  A negative count n is rejected the
 * same way (returns false, overflow_count unchanged), and so is a count that
 * would carry total_count past INT64_MAX (returns false, nothing changes):
 * counts never wrap (each slot is at most the total). */

LAT_INLINE bool lat_hist_record_n(lat_hist *h, int64_t v, int64_t n) {
    /* The geometry and total_count are read before the range check, on
     * every path, and total_count is written back on every path (unchanged
     * when rejected; single writer), and the state fields are long long
     * while counts[] is int64_t (long): in a recording loop the compiler can
     * then keep them in registers (a counts[] store cannot alias them)
     * instead of a memory read-modify-write per value.  The slot is computed
     * before the check: harmless for out-of-range v (every shift is < 64),
     * and used only in range. */
    bool ok = true;
    size_t slot = lat__hist_slot(h, v);
    int64_t *counts = h->counts;
    long long total = h->total_count, sum;
    bool full = __builtin_add_overflow(total, n, &sum);
    if (LAT_UNLIKELY(((uint64_t)v > (uint64_t)h->highest) | (n < 0) | full)) {
        if (n > 0 && (uint64_t)v > (uint64_t)h->highest)
            h->overflow_count = h->overflow_count > INT64_MAX - n ? INT64_MAX
                                                                  : h->overflow_count + n;
        ok = false;
    } else {
        counts[slot] += n;
        total = sum;
        /* Compared in memory (cmp+jcc, one fused uop), stored only when
         * a new extreme arrives: no store, no dependency chain otherwise. */
        if (v < h->min_value) h->min_value = v;
        if (v > h->max_value) h->max_value = v;
    }
    h->total_count = total;
    return ok;
}

LAT_INLINE bool lat_hist_record(lat_hist *h, int64_t v) {
    return lat_hist_record_n(h, v, 1);
}

/* Record v; then, to correct coordinated omission the way the reference does,
 * also record v - i, v - 2i, ... while >= i (i = expected_interval; i <= 0
 * means no correction).  Returns false (nothing recorded) when v is out of
 * range.  Single writer; allocation-free. */
LAT_API bool lat_hist_record_corrected(lat_hist *h, int64_t v, int64_t expected_interval);
LAT_API bool lat_hist_record_corrected_n(lat_hist *h, int64_t v, int64_t n,
                                         int64_t expected_interval);

/* Thread-safe recording by any number of concurrent writers into one
 * histogram (relaxed atomic adds on the slot and total; min/max by CAS).
 * GCC __atomic builtins rather than <stdatomic.h> because the same plain
 * int64_t array is also read and written non-atomically by the single-writer
 * path and the queries.  Relaxed is enough: each counter is independent and
 * a reader that needs a consistent view synchronises with the writers by other
 * means (thread join, or lat_hist_recorder's phaser which supplies the
 * acquire/release pairing).  Lock-free, allocation-free. */
LAT_INLINE bool lat_hist_record_atomic_n(lat_hist *h, int64_t v, int64_t n) {
    if (LAT_UNLIKELY(((uint64_t)v > (uint64_t)h->highest) | (n < 0))) {
        if (n > 0) __atomic_fetch_add(&h->overflow_count, n, __ATOMIC_RELAXED);
        return false;
    }
    __atomic_fetch_add(&h->counts[lat__hist_slot(h, v)], n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&h->total_count, n, __ATOMIC_RELAXED);
    long long cur = __atomic_load_n(&h->min_value, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(&h->min_value, &cur, v, true, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
    cur = __atomic_load_n(&h->max_value, __ATOMIC_RELAXED);
    while (v > cur && !__atomic_compare_exchange_n(&h->max_value, &cur, v, true, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
    return true;
}

LAT_INLINE bool lat_hist_record_atomic(lat_hist *h, int64_t v) {
    return lat_hist_record_atomic_n(h, v, 1);
}

/* ---- merging ------------------------------------------------------------------
 * Add every count of src into dst (any geometries; the same geometry takes a
 * fast slot-by-slot path, otherwise each slot's lowest value is recorded, as
 * Java's add() does).  Returns how many of src's counts fell outside dst's
 * range (they also grow dst->overflow_count; src's own overflow_count is added
 * to dst's too, saturating), plus those refused because dst's total would pass
 * INT64_MAX (dst keeps what fits, nothing wraps).  Not thread-safe on dst. */
LAT_API int64_t lat_hist_add(lat_hist *dst, const lat_hist *src);
/* Java's add() into an auto-resizing histogram (what HistogramLogProcessor
 * merges intervals with): dst's highest trackable value grows to src's max
 * when needed (lowest and significant figures stay dst's), so no count is
 * dropped.  Returns 0, -ENOMEM (dst unchanged), or -EOVERFLOW when the total
 * count would pass INT64_MAX (dst unchanged).  Not thread-safe on dst. */
LAT_API int lat_hist_add_resize(lat_hist *dst, const lat_hist *src);
/* Java addWhileCorrectingForCoordinatedOmission: each recorded slot of src is
 * recorded at its highest equivalent value with record_corrected_n.  Returns
 * the out-of-range count as lat_hist_add. */
LAT_API int64_t lat_hist_add_corrected(lat_hist *dst, const lat_hist *src,
                                       int64_t expected_interval);

/* ---- queries (Java semantics; O(counts_len) at most, no allocation) ------------ */

static inline int64_t lat_hist_total(const lat_hist *h) {
    return h->total_count;
}
/* Java getMinValue: 0 when empty or when slot 0 holds counts, else
 * lowest_equivalent(smallest value). */
LAT_API int64_t lat_hist_min(const lat_hist *h);
/* Java getMinNonZeroValue: lowest_equivalent of the smallest non-zero value,
 * INT64_MAX when there is none. */
LAT_API int64_t lat_hist_min_nonzero(const lat_hist *h);
/* Java getMaxValue: highest_equivalent(largest value), 0 when empty. */
LAT_API int64_t lat_hist_max(const lat_hist *h);
/* Mean and population standard deviation over median_equivalent(value) of
 * each slot, summed in slot order like Java (bit-identical doubles).  0 when
 * empty. */
LAT_API double lat_hist_mean(const lat_hist *h);
LAT_API double lat_hist_stddev(const lat_hist *h);
/* Count in v's slot (0 when v is out of range). */
LAT_API int64_t lat_hist_count_at(const lat_hist *h, int64_t v);
/* Sum of counts in the slots from lo's to hi's inclusive (clamped to range). */
LAT_API int64_t lat_hist_count_between(const lat_hist *h, int64_t lo, int64_t hi);

/* Java getValueAtPercentile: p in [0, 100] (clamped; NaN is treated as 0);
 * target = max(1, ceil(nextDown(p)/100 * total)); the first slot whose
 * running total reaches it; highest_equivalent of it (lowest_equivalent when
 * p == 0).  0 when empty. */
LAT_API int64_t lat_hist_value_at_percentile(const lat_hist *h, double p);
/* Percentile p read as a continuous value, for values recorded at a coarse
 * resolution (a clock that ticks every 10 ns).  The tick is what every value
 * up to p99 in the exact slots is a multiple of (ticks of 10.02 ns floored
 * past ~500 ns leave the 10s).  p's rank is interpolated between the
 * mid-ranks of values one tick apart, not across an empty side: a 97 ns op
 * recorded as 90 three times in ten and 100 seven times reads 97, so the
 * figure moves as the op does.  A value alone stays itself.  NaN when empty. */
LAT_API double lat_hist_value_at_percentile_interpolated(const lat_hist *h, double p);
/* The same for n percentiles (any order) in one pass over the counts
 * (block-skipping, and walking down from the top for tails): out[i] answers
 * ps[i], identical to lat_hist_value_at_percentile.  Returns 0, or -EINVAL
 * when n > 0 and ps/out is NULL, or when n > LAT_HIST_MAX_BATCH. */
#define LAT_HIST_MAX_BATCH 64
LAT_API int lat_hist_values_at_percentiles(const lat_hist *h, const double *ps, int64_t *out,
                                           size_t n);
/* ---- quantile confidence intervals (distribution-free, order statistics) ------
 * For n recorded values, percentile p (q = p/100) and confidence c, the
 * interval's ends are the values at ranks lo_rank and hi_rank.  These ranks
 * are the binomial(n, q) quantiles at (1-c)/2 and (1+c)/2: the smallest k
 * whose CDF reaches them.  They are exact where n*q*(1-q) <
 * LAT_HIST_CI_EXACT_BELOW; above, the normal approximation (continuity and
 * skewness corrected) is within one rank of exact.  The ranks are clamped to
 * [1, n] and widened to include the point estimate's rank. */

/* The ends are read like the point estimate (highest_equivalent of the slot
 * holding that rank; lowest_equivalent for p == 0), so lo <= value <= hi.
 * When hi_rank reaches n (and 0 < p < 100) hi is the maximum and the figure is
 * max-bound: it would need at least needed_n values for the interval to end
 * below the maximum.  Coverage is about c for a continuous distribution
 * (tests/core/test_hist_ci.c simulates it), up to the histogram's resolution. */
#define LAT_HIST_CI_EXACT_BELOW 100.0
#define LAT_HIST_CI_DEFAULT 0.95
typedef struct lat_hist_ci {
    int64_t value;            /* point estimate: lat_hist_value_at_percentile */
    int64_t lo, hi;           /* interval ends, values */
    int64_t lo_rank, hi_rank; /* 1-based ranks of the ends (0 when empty) */
    bool max_bound;           /* hi_rank == n: hi is the maximum */
    int64_t needed_n;         /* max_bound: smallest n whose upper rank stays below n */
} lat_hist_ci;

/* The intervals for n percentiles (any order, at most LAT_HIST_MAX_BATCH)
 * in one pass over the counts; out[i].value equals what
 * lat_hist_values_at_percentiles gives for ps[i].  confidence in (0, 1).
 * Allocation-free, no syscall.  Returns 0 (an empty histogram gives zeroed
 * results) or -EINVAL. */
LAT_API int lat_hist_cis_at_percentiles(const lat_hist *h, const double *ps, double confidence,
                                lat_hist_ci *out, size_t n);
/* The ranks alone for n values, fraction q in [0, 1] and confidence in
 * (0, 1), clamped to [1, n] (without the point-estimate widening).
 * 0 or -EINVAL. */
LAT_API int lat_hist_ci_ranks(int64_t n, double q, double confidence, int64_t *lo_rank,
                              int64_t *hi_rank);
/* Smallest count whose upper rank (and point estimate) stays below it for
 * fraction q in (0, 1): e.g. 3,688 for p99.9 at 95%.  0 for q outside (0, 1). */
LAT_API int64_t lat_hist_ci_needed_n(double q, double confidence);

/* The interval as text, values divided by scale with prec decimals:
 * "[lo, hi]", or "[lo, hi] max-bound: needs at least N samples".  Returns
 * what snprintf returns. */
LAT_API int lat_hist_ci_format(const lat_hist_ci *ci, double scale, int prec, char *buf,
                               size_t len);

/* The percentile (0..100) of values <= v: 100 * count(<= v's slot) / total. */
LAT_API double lat_hist_percentile_at_or_below(const lat_hist *h, int64_t v);

/* ---- equivalence (values that share a slot are equivalent) ---------------- */
LAT_API int64_t lat_hist_size_of_equivalent_range(const lat_hist *h, int64_t v);
LAT_API int64_t lat_hist_lowest_equivalent(const lat_hist *h, int64_t v);
LAT_API int64_t lat_hist_highest_equivalent(const lat_hist *h, int64_t v);
LAT_API int64_t lat_hist_median_equivalent(const lat_hist *h, int64_t v);
LAT_API int64_t lat_hist_next_non_equivalent(const lat_hist *h, int64_t v);
LAT_API bool lat_hist_values_are_equivalent(const lat_hist *h, int64_t a, int64_t b);

/* ---- iterators (Java's, step for step) -------------------------------------------
 * Caller-owned state, no allocation.  Usage:
 *     lat_hist_iter it; lat_hist_iter_percentile(&it, h, 5);
 *     while (lat_hist_iter_next(&it)) use(it.value, it.cumulative_count, ...);
 * The histogram must not change while iterating (undefined results, never a
 * crash).  Kinds: all slots; recorded (non-empty) slots; linear steps of
 * `step` value units; logarithmic steps first, first*base, ...; percentile
 * ticks (ticks_per_half per halving of the distance to 100%, then a final 100%
 * step). */
typedef enum lat_hist_iter_kind {
    LAT_HIST_ITER_ALL,
    LAT_HIST_ITER_RECORDED,
    LAT_HIST_ITER_LINEAR,
    LAT_HIST_ITER_LOG,
    LAT_HIST_ITER_PERCENTILE,
} lat_hist_iter_kind;

typedef struct lat_hist_iter {
    /* Results of the last successful lat_hist_iter_next() (Java's
     * HistogramIterationValue): */
    int64_t value;            /* value iterated to (reporting level) */
    int64_t value_from;       /* previous step's value iterated to */
    int64_t count_at_value;   /* count in the current slot */
    int64_t count_added;      /* counts added since the previous step */
    int64_t cumulative_count; /* counts up to and including this step */
    int64_t cumulative_value; /* sum of highest_equivalent(slot) * count so far */
    double percentile;        /* 100 * cumulative_count / total */
    double percentile_level;  /* percentile level iterated to (ticks for PERCENTILE) */
    /* Private state. */
    const lat_hist *h;
    lat_hist_iter_kind kind;
    int32_t index;
    int32_t visited_index;
    int64_t total;
    int64_t value_at_index, value_at_next_index;
    int64_t count_to_prev, count_to_index, value_to_index;
    int64_t count_at_this;
    bool fresh;
    bool last_reached;           /* PERCENTILE: the final 100% step was taken */
    int64_t step;                /* LINEAR: value units per step */
    int64_t step_high, step_low; /* LINEAR: current reporting level and its lowest equivalent */
    double log_base, log_next;   /* LOG: base, next level (step_high = level - 1) */
    int64_t reserved;            /* unused */
    int32_t ticks_per_half;      /* PERCENTILE */
    double pct_to, pct_from;     /* PERCENTILE: levels */
} lat_hist_iter;

LAT_API void lat_hist_iter_all(lat_hist_iter *it, const lat_hist *h);
LAT_API void lat_hist_iter_recorded(lat_hist_iter *it, const lat_hist *h);
/* step >= 1 (smaller is treated as 1). */
LAT_API void lat_hist_iter_linear(lat_hist_iter *it, const lat_hist *h, int64_t step);
/* first >= 1, base > 1 (else treated as 1 and 2). */
LAT_API void lat_hist_iter_log(lat_hist_iter *it, const lat_hist *h, int64_t first, double base);
/* ticks_per_half >= 1 (smaller is treated as 1). */
LAT_API void lat_hist_iter_percentile(lat_hist_iter *it, const lat_hist *h, int ticks_per_half);
/* Advance; true with the fields above set, false when done. */
LAT_API bool lat_hist_iter_next(lat_hist_iter *it);

/* ---- V2 codec (core/hist_codec.c) ---------------------------------------------------
 * Encoding: big-endian V2 (cookie 0x1c849313), ZigZag LEB128 counts with
 * zero runs, as Java writes it; compressed: cookie 0x1c849314, length, zlib.
 * Decoding accepts V2, V1 and V0, compressed or not; every length, index and
 * count is checked against the declared geometry: garbage returns LAT_EFORMAT /
 * LAT_ETRUNCATED / LAT_ECOOKIE / LAT_ECOMPRESS / LAT_EGEOMETRY, never a crash.
 * All thread-safe (no shared state); buffers come from lat__alloc and are
 * released with lat_hist_buf_free(). */

/* Upper bound of the uncompressed V2 encoding of h. */
LAT_API size_t lat_hist_encode_bound(const lat_hist *h);
/* Uncompressed V2 into buf (cap bytes).  0 and *len, or -ENOSPC. */
LAT_API int lat_hist_encode(const lat_hist *h, uint8_t *buf, size_t cap, size_t *len);
/* Compressed V2 (zlib level 0..9; -1 = LAT_HIST_ZLEVEL_DEFAULT, 4: faster than
 * zlib's default 6 and no larger on histograms).  *out allocated. */
#define LAT_HIST_ZLEVEL_DEFAULT 4
LAT_API int lat_hist_encode_compressed(const lat_hist *h, int level, uint8_t **out, size_t *len);
/* Base64 of the compressed V2 ("HISTF..."), NUL-terminated, allocated. */
LAT_API int lat_hist_encode_base64(const lat_hist *h, char **out);
LAT_API void lat_hist_buf_free(void *buf);

/* Decode an encoding (compressed or not) into *out, which is initialised with
 * the declared geometry (caller frees it with lat_hist_fini).  On error *out is
 * left zeroed. */
LAT_API int lat_hist_decode(const void *buf, size_t len, lat_hist *out);
LAT_API int lat_hist_decode_base64(const char *text, size_t len, lat_hist *out);
/* The same, but *out tracks only up to the largest value the encoding holds
 * (its lowest and significant figures as declared; never above the declared
 * highest), so memory follows the data, not the range a writer declared:
 * a 5-figure 1..2^62 histogram of small values costs 2 MB, not 48 MB.
 * Queries answer exactly as on the declared geometry.  *declared_highest (may
 * be NULL) gets the highest trackable value the encoding declares.  Only V2
 * is fitted; V1/V0 decode at their declared range. */
LAT_API int lat_hist_decode_base64_fit(const char *text, size_t len, lat_hist *out,
                               int64_t *declared_highest);

/* Plain base64 (RFC 4648, with padding).  encode writes 4*ceil(n/3) chars + NUL
 * into out (size it with LAT_BASE64_LEN(n) + 1); returns the length.  decode
 * accepts the same alphabet (padding optional, no whitespace); returns the
 * byte count or LAT_EFORMAT; out needs 3*ceil(n/4) bytes. */
#define LAT_BASE64_LEN(n) ((((size_t)(n) + 2) / 3) * 4)
LAT_API size_t lat_base64_encode(const uint8_t *in, size_t n, char *out);
LAT_API long lat_base64_decode(const char *in, size_t n, uint8_t *out);

/* ---- interval recorder (writer-reader phaser) ----------------------------------
 * Any number of writers record with lat_hist_recorder_record() (wait-free: two
 * atomic increments around an atomic record); one reader at a time calls
 * lat_hist_recorder_interval() to take everything recorded since its previous
 * call, without stopping or locking the writers: it swaps the active and the
 * spare histogram, then waits (spinning, then yielding) until every writer
 * that entered the old phase has left it.  Nothing is lost or counted twice. */
typedef struct lat_hist_recorder {
    /* Writers' phase counters (Java WriterReaderPhaser): writers increment
     * start_epoch on entry (its sign says the phase) and the matching end
     * counter on exit. */
    _Alignas(LAT_DESTRUCTIVE) _Atomic int64_t start_epoch;
    _Alignas(LAT_DESTRUCTIVE) _Atomic int64_t even_end_epoch;
    _Alignas(LAT_DESTRUCTIVE) _Atomic int64_t odd_end_epoch;
    /* The histogram writers record into; swapped by the reader. */
    _Alignas(LAT_DESTRUCTIVE) lat_hist *_Atomic active;
    lat_hist *spare;         /* reader-owned */
    lat_hist bufs[2];        /* the two histograms; read-only geometry */
    _Atomic int reader_busy; /* guards against two readers at once */
} lat_hist_recorder;

/* 0 / -EINVAL / -ENOMEM; same parameters as lat_hist_init. */
LAT_API int lat_hist_recorder_init(lat_hist_recorder *r, int64_t lowest, int64_t highest,
                                   int sig_figs);
LAT_API void lat_hist_recorder_fini(lat_hist_recorder *r); /* NULL is fine; no writers may run */

/* Writer side: thread-safe, lock-free, allocation-free. */
LAT_INLINE bool lat_hist_recorder_record_n(lat_hist_recorder *r, int64_t v, int64_t n) {
    /* seq_cst entry: the increment must be ordered before the load of
     * `active`, pairing with the reader's seq_cst swap-then-exchange of
     * start_epoch, so a writer either sees the new active histogram or is
     * counted in the phase the reader waits out. */
    int64_t e = atomic_fetch_add_explicit(&r->start_epoch, 1, memory_order_seq_cst);
    lat_hist *h = atomic_load_explicit(&r->active, memory_order_seq_cst);
    bool ok = lat_hist_record_atomic_n(h, v, n);
    /* release exit: our record happens-before the reader's acquire load of
     * the end counter that shows we left. */
    atomic_fetch_add_explicit(e < 0 ? &r->odd_end_epoch : &r->even_end_epoch, 1,
                              memory_order_release);
    return ok;
}
LAT_INLINE bool lat_hist_recorder_record(lat_hist_recorder *r, int64_t v) {
    return lat_hist_recorder_record_n(r, v, 1);
}

/* Reader side: reset `into` (same geometry as the recorder, else
 * LAT_EINCOMPATIBLE) and fill it with the interval since the previous call.
 * One reader at a time (-EBUSY otherwise).  Returns 0. */
LAT_API int lat_hist_recorder_interval(lat_hist_recorder *r, lat_hist *into);

#endif /* LATLAB_HIST_H */
