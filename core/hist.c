/* hist.c - HdrHistogram core: geometry, queries with Java's semantics,
 * iterators (Java's, step for step), merging, coordinated-omission
 * correction and the writer-reader-phaser interval recorder.
 *
 * Recording itself is static inline in hist.h.  Everything here runs after
 * (or beside) recording; nothing allocates except init/copy/create. */
#include "latlab/hist.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/error.h"

/* ---- set-up ---------------------------------------------------------------------- */

int lat_hist_init(lat_hist *h, int64_t lowest, int64_t highest, int sig_figs) {
    if (!h || lowest < 1 || sig_figs < 0 || sig_figs > 5 || highest / 2 < lowest) return -EINVAL;
    int64_t largest_single = 2;
    for (int i = 0; i < sig_figs; i++)
        largest_single *= 10;
    int sub_mag = 0;
    while ((INT64_C(1) << sub_mag) < largest_single)
        sub_mag++; /* ceil(log2(2*10^S)) */
    int half_mag = sub_mag > 1 ? sub_mag - 1 : 0;
    int unit_mag = 63 - __builtin_clzll((uint64_t)lowest);
    if (unit_mag + half_mag + 1 > 61) return -EINVAL; /* Java: the geometry must fit 63 bits */
    int32_t sub_count = INT32_C(1) << (half_mag + 1);
    int32_t half_count = sub_count / 2;
    /* smallest k with (sub_count << unit_mag) << (k - 1) > highest */
    int64_t smallest_untrackable = (int64_t)sub_count << unit_mag;
    int32_t buckets = 1;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > INT64_MAX / 2) {
            buckets++;
            break;
        }
        smallest_untrackable <<= 1;
        buckets++;
    }
    int64_t len = (int64_t)(buckets + 1) * half_count;
    if (len > INT32_MAX / 2) return -EINVAL;
    int64_t *counts = lat__calloc_aligned((size_t)len, sizeof(int64_t), LAT_CACHELINE);
    if (!counts) return -ENOMEM;
    memset(h, 0, sizeof *h);
    h->lowest = lowest;
    h->highest = highest;
    h->sig_figs = sig_figs;
    h->unit_magnitude = unit_mag;
    h->half_magnitude = half_mag;
    h->sub_bucket_count = sub_count;
    h->sub_bucket_half_count = half_count;
    h->bucket_count = buckets;
    h->counts_len = (int32_t)len;
    h->lz_base = 63 - unit_mag - half_mag;
    h->sub_bucket_mask = (uint64_t)(sub_count - 1) << unit_mag;
    h->slot_bias = (size_t)unit_mag * (size_t)half_count;
    h->min_value = INT64_MAX;
    h->counts = counts;
    return 0;
}

void lat_hist_free(lat_hist *h) {
    if (!h) return;
    lat__free(h->counts);
    memset(h, 0, sizeof *h);
}

int lat_hist_create(int64_t lowest, int64_t highest, int sig_figs, lat_hist **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    lat_hist *h = lat__calloc(1, sizeof *h);
    if (!h) return -ENOMEM;
    int rc = lat_hist_init(h, lowest, highest, sig_figs);
    if (rc < 0) {
        lat__free(h);
        return rc;
    }
    *out = h;
    return 0;
}

void lat_hist_destroy(lat_hist *h) {
    if (!h) return;
    lat_hist_free(h);
    lat__free(h);
}

size_t lat_hist_memory_size(const lat_hist *h) {
    return sizeof *h + (size_t)h->counts_len * sizeof(int64_t);
}

void lat_hist_reset(lat_hist *h) {
    memset(h->counts, 0, (size_t)h->counts_len * sizeof(int64_t));
    h->total_count = 0;
    h->min_value = INT64_MAX;
    h->max_value = 0;
    h->overflow_count = 0;
}

int lat_hist_copy(lat_hist *dst, const lat_hist *src) {
    int rc = lat_hist_init(dst, src->lowest, src->highest, src->sig_figs);
    if (rc < 0) return rc;
    memcpy(dst->counts, src->counts, (size_t)src->counts_len * sizeof(int64_t));
    dst->total_count = src->total_count;
    dst->min_value = src->min_value;
    dst->max_value = src->max_value;
    dst->overflow_count = src->overflow_count;
    return 0;
}

bool lat_hist_same_geometry(const lat_hist *a, const lat_hist *b) {
    return a->lowest == b->lowest && a->highest == b->highest && a->sig_figs == b->sig_figs;
}

/* ---- equivalence ------------------------------------------------------------------------ */

/* Bucket of v (Java getBucketIndex); valid for v >= 0. */
static inline int32_t bucket_of(const lat_hist *h, int64_t v) {
    return h->lz_base - __builtin_clzll((uint64_t)v | h->sub_bucket_mask);
}

int64_t lat_hist_size_of_equivalent_range(const lat_hist *h, int64_t v) {
    if (v < 0) v = 0;
    int32_t b = bucket_of(h, v);
    int64_t sub = (int64_t)((uint64_t)v >> (b + h->unit_magnitude));
    int shift = h->unit_magnitude + (sub >= h->sub_bucket_count ? b + 1 : b);
    return INT64_C(1) << shift;
}

int64_t lat_hist_lowest_equivalent(const lat_hist *h, int64_t v) {
    if (v < 0) v = 0;
    int32_t b = bucket_of(h, v);
    int64_t sub = (int64_t)((uint64_t)v >> (b + h->unit_magnitude));
    return (int64_t)((uint64_t)sub << (b + h->unit_magnitude));
}

/* Unsigned sums: the top slot of a histogram reaching INT64_MAX ends at 2^63
 * (Java wraps there too); highest_equivalent then comes back to INT64_MAX. */
int64_t lat_hist_next_non_equivalent(const lat_hist *h, int64_t v) {
    return (int64_t)((uint64_t)lat_hist_lowest_equivalent(h, v) +
                     (uint64_t)lat_hist_size_of_equivalent_range(h, v));
}

int64_t lat_hist_highest_equivalent(const lat_hist *h, int64_t v) {
    return (int64_t)((uint64_t)lat_hist_next_non_equivalent(h, v) - 1);
}

int64_t lat_hist_median_equivalent(const lat_hist *h, int64_t v) {
    return lat_hist_lowest_equivalent(h, v) + (lat_hist_size_of_equivalent_range(h, v) >> 1);
}

bool lat_hist_values_are_equivalent(const lat_hist *h, int64_t a, int64_t b) {
    return lat_hist_lowest_equivalent(h, a) == lat_hist_lowest_equivalent(h, b);
}

/* ---- correction and merging ---------------------------------------------------------- */

bool lat_hist_record_corrected_n(lat_hist *h, int64_t v, int64_t n, int64_t expected_interval) {
    if (!lat_hist_record_n(h, v, n)) return false;
    if (expected_interval <= 0) return true;
    for (int64_t missing = v - expected_interval; missing >= expected_interval;
         missing -= expected_interval)
        lat_hist_record_n(h, missing, n);
    return true;
}

bool lat_hist_record_corrected(lat_hist *h, int64_t v, int64_t expected_interval) {
    return lat_hist_record_corrected_n(h, v, 1, expected_interval);
}

int64_t lat_hist_add(lat_hist *dst, const lat_hist *src) {
    int64_t dropped = 0;
    if (lat_hist_same_geometry(dst, src)) {
        int64_t added = 0;
        for (int32_t i = 0; i < src->counts_len; i++) {
            dst->counts[i] += src->counts[i];
            added += src->counts[i];
        }
        dst->total_count += added;
        if (added > 0) {
            if (src->min_value < dst->min_value) dst->min_value = src->min_value;
            if (src->max_value > dst->max_value) dst->max_value = src->max_value;
        }
    } else {
        for (int32_t i = 0; i < src->counts_len; i++) {
            int64_t c = src->counts[i];
            if (!c) continue;
            int64_t v = lat_hist_value_from_index(src, i);
            /* Keep the exact extremes where they fall into this slot. */
            if (src->min_value != INT64_MAX &&
                lat_hist_values_are_equivalent(src, v, src->min_value))
                v = src->min_value;
            else if (lat_hist_values_are_equivalent(src, v, src->max_value))
                v = src->max_value;
            if (!lat_hist_record_n(dst, v, c)) dropped += c;
        }
    }
    dst->overflow_count += src->overflow_count;
    return dropped;
}

int64_t lat_hist_add_corrected(lat_hist *dst, const lat_hist *src, int64_t expected_interval) {
    int64_t dropped = 0;
    for (int32_t i = 0; i < src->counts_len; i++) {
        int64_t c = src->counts[i];
        if (!c) continue;
        int64_t v = lat_hist_highest_equivalent(src, lat_hist_value_from_index(src, i));
        if (!lat_hist_record_corrected_n(dst, v, c, expected_interval)) dropped += c;
    }
    dst->overflow_count += src->overflow_count;
    return dropped;
}

/* ---- queries ------------------------------------------------------------------------------ */

int64_t lat_hist_min(const lat_hist *h) {
    if (h->total_count == 0 || h->counts[0] > 0) return 0;
    return lat_hist_min_nonzero(h);
}

int64_t lat_hist_min_nonzero(const lat_hist *h) {
    if (h->total_count == 0) return INT64_MAX;
    if (h->min_value > 0 && h->min_value != INT64_MAX)
        return lat_hist_lowest_equivalent(h, h->min_value);
    /* Zeros were recorded: find the first non-zero value's slot. */
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (!h->counts[i]) continue;
        int64_t v = lat_hist_value_from_index(h, i);
        if (v > 0) return v;
        /* slot 0 may hold 1..unit-1 too (when lowest > 1): Java keeps those
         * out of minNonZero, so continue */
    }
    return INT64_MAX;
}

int64_t lat_hist_max(const lat_hist *h) {
    if (h->max_value == 0) return 0;
    return lat_hist_highest_equivalent(h, h->max_value);
}

double lat_hist_mean(const lat_hist *h) {
    if (h->total_count == 0) return 0.0;
    double total = 0.0;
    int32_t top = lat_hist_index(h, h->max_value);
    for (int32_t i = 0; i <= top && i < h->counts_len; i++) {
        int64_t c = h->counts[i];
        if (!c) continue;
        total += (double)lat_hist_median_equivalent(h, lat_hist_value_from_index(h, i)) * (double)c;
    }
    return total / (double)h->total_count;
}

double lat_hist_stddev(const lat_hist *h) {
    if (h->total_count == 0) return 0.0;
    double mean = lat_hist_mean(h);
    double dev_total = 0.0;
    int32_t top = lat_hist_index(h, h->max_value);
    for (int32_t i = 0; i <= top && i < h->counts_len; i++) {
        int64_t c = h->counts[i];
        if (!c) continue;
        double d = (double)lat_hist_median_equivalent(h, lat_hist_value_from_index(h, i)) - mean;
        dev_total += (d * d) * (double)c;
    }
    return sqrt(dev_total / (double)h->total_count);
}

int64_t lat_hist_count_at(const lat_hist *h, int64_t v) {
    if ((uint64_t)v > (uint64_t)h->highest) return 0;
    return h->counts[lat_hist_index(h, v)];
}

int64_t lat_hist_count_between(const lat_hist *h, int64_t lo, int64_t hi) {
    if (lo < 0) lo = 0;
    if (hi > h->highest) hi = h->highest;
    if (hi < lo) return 0;
    int64_t sum = 0;
    for (int32_t i = lat_hist_index(h, lo), e = lat_hist_index(h, hi); i <= e; i++)
        sum += h->counts[i];
    return sum;
}

double lat_hist_percentile_at_or_below(const lat_hist *h, int64_t v) {
    if (h->total_count == 0) return 100.0;
    if (v < 0) return 0.0;
    int32_t e = v > h->highest ? h->counts_len - 1 : lat_hist_index(h, v);
    int64_t sum = 0;
    for (int32_t i = 0; i <= e; i++)
        sum += h->counts[i];
    return 100.0 * (double)sum / (double)h->total_count;
}

/* Java's target count for percentile p. */
static int64_t target_count(const lat_hist *h, double p) {
    if (!(p == p)) p = 0.0; /* NaN */
    double req = nextafter(p, -INFINITY);
    if (req < 0.0) req = 0.0;
    if (req > 100.0) req = 100.0;
    double frac = (req / 100.0) * (double)h->total_count;
    int64_t target = (int64_t)ceil(frac);
    return target < 1 ? 1 : target;
}

static int64_t answer(const lat_hist *h, int32_t i, double p) {
    int64_t v = lat_hist_value_from_index(h, i);
    return p == 0.0 ? lat_hist_lowest_equivalent(h, v) : lat_hist_highest_equivalent(h, v);
}

int64_t lat_hist_value_at_percentile(const lat_hist *h, double p) {
    if (h->total_count == 0) return 0;
    int64_t target = target_count(h, p);
    int64_t run = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        run += h->counts[i];
        if (run >= target) return answer(h, i, p);
    }
    return 0;
}

/* Sum of counts[i..i+n) with independent accumulators (vectorisable). */
static inline int64_t block_sum(const int64_t *c, int32_t n) {
    int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        a0 += c[i];
        a1 += c[i + 1];
        a2 += c[i + 2];
        a3 += c[i + 3];
    }
    for (; i < n; i++)
        a0 += c[i];
    return a0 + a1 + a2 + a3;
}

#define BLOCK 64

int lat_hist_values_at_percentiles(const lat_hist *h, const double *ps, int64_t *out, size_t n) {
    if (n == 0) return 0;
    if (!ps || !out || n > LAT_HIST_MAX_BATCH) return -EINVAL;
    if (h->total_count == 0) {
        for (size_t k = 0; k < n; k++)
            out[k] = 0;
        return 0;
    }
    /* Targets, then visit them in increasing order. */
    int64_t tgt[LAT_HIST_MAX_BATCH];
    uint8_t ord[LAT_HIST_MAX_BATCH];
    for (size_t k = 0; k < n; k++) {
        tgt[k] = target_count(h, ps[k]);
        ord[k] = (uint8_t)k;
    }
    for (size_t a = 1; a < n; a++) { /* insertion sort: n is small */
        uint8_t x = ord[a];
        size_t b = a;
        while (b > 0 && tgt[ord[b - 1]] > tgt[x]) {
            ord[b] = ord[b - 1];
            b--;
        }
        ord[b] = x;
    }
    const int64_t total = h->total_count;
    const int64_t *c = h->counts;
    const int32_t len = h->counts_len;
    /* The highest non-empty slot bounds the walk (max is tracked exactly). */
    int32_t top = lat_hist_index(h, h->max_value);
    if (top >= len) top = len - 1;
    /* Lower targets: walk up from slot 0, skipping whole blocks. */
    size_t k = 0;
    int32_t i = 0;
    int64_t run = 0; /* sum of counts[0..i) */
    while (k < n && tgt[ord[k]] <= total / 2) {
        int64_t t = tgt[ord[k]];
        while (i + BLOCK <= len) {
            int64_t s = block_sum(c + i, BLOCK);
            if (run + s >= t) break;
            run += s;
            i += BLOCK;
        }
        while (run + c[i] < t)
            run += c[i++];
        /* counts[0..i] reaches t; keep `run` as sum before i. */
        out[ord[k]] = answer(h, i, ps[ord[k]]);
        k++;
    }
    if (k == n) return 0;
    /* Upper targets (tails): walk down from the top.  Slot i answers target
     * t iff sum(counts[0..i]) >= t > sum(counts[0..i-1]), i.e. with
     * above(i) = total - sum(counts[0..i]): above(i) <= total - t <
     * above(i) + counts[i].  Visit targets from the largest. */
    int32_t j = top;
    int64_t above = 0; /* sum of counts(j..top] */
    for (size_t m = n; m-- > k;) {
        int64_t rest = total - tgt[ord[m]];
        if (rest < 0) rest = 0;
        while (j >= BLOCK && above + block_sum(c + j - BLOCK + 1, BLOCK) <= rest) {
            above += block_sum(c + j - BLOCK + 1, BLOCK);
            j -= BLOCK;
        }
        while (j > 0 && above + c[j] <= rest)
            above += c[j--];
        out[ord[m]] = answer(h, j, ps[ord[m]]);
    }
    return 0;
}

/* ---- iterators -------------------------------------------------------------------------- */

/* Java's (long) cast of a double: saturating, NaN -> 0. */
static int64_t java_d2l(double d) {
    if (d != d) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)d;
}

static void iter_base(lat_hist_iter *it, const lat_hist *h, lat_hist_iter_kind kind) {
    memset(it, 0, sizeof *it);
    it->h = h;
    it->kind = kind;
    it->total = h->total_count;
    it->index = 0;
    it->value_at_index = 0;
    it->value_at_next_index = INT64_C(1) << h->unit_magnitude;
    it->fresh = true;
    it->visited_index = -1;
}

void lat_hist_iter_all(lat_hist_iter *it, const lat_hist *h) {
    iter_base(it, h, LAT_HIST_ITER_ALL);
}

void lat_hist_iter_recorded(lat_hist_iter *it, const lat_hist *h) {
    iter_base(it, h, LAT_HIST_ITER_RECORDED);
}

void lat_hist_iter_linear(lat_hist_iter *it, const lat_hist *h, int64_t step) {
    iter_base(it, h, LAT_HIST_ITER_LINEAR);
    if (step < 1) step = 1;
    it->step = step;
    it->step_high = step - 1;
    it->step_low = lat_hist_lowest_equivalent(h, it->step_high);
}

void lat_hist_iter_log(lat_hist_iter *it, const lat_hist *h, int64_t first, double base) {
    iter_base(it, h, LAT_HIST_ITER_LOG);
    if (first < 1) first = 1;
    if (!(base > 1.0)) base = 2.0;
    it->log_base = base;
    it->log_next = (double)first;
    /* Java 2.1.11: the step reports level - 1 and is reached at its lowest equivalent. */
    it->step_high = java_d2l(it->log_next) - 1;
    it->step_low = lat_hist_lowest_equivalent(h, it->step_high);
}

void lat_hist_iter_percentile(lat_hist_iter *it, const lat_hist *h, int ticks_per_half) {
    iter_base(it, h, LAT_HIST_ITER_PERCENTILE);
    it->ticks_per_half = ticks_per_half < 1 ? 1 : ticks_per_half;
    it->pct_to = 0.0;
    it->pct_from = 0.0;
    it->last_reached = false;
}

static bool base_has_next(const lat_hist_iter *it) {
    return it->count_to_index < it->total;
}

static bool has_next(lat_hist_iter *it) {
    const lat_hist *h = it->h;
    switch (it->kind) {
    case LAT_HIST_ITER_ALL:
        return it->index < h->counts_len - 1;
    case LAT_HIST_ITER_RECORDED:
        return base_has_next(it);
    case LAT_HIST_ITER_LINEAR:
        if (base_has_next(it)) return true;
        return it->step_high < it->value_at_next_index;
    case LAT_HIST_ITER_LOG:
        if (base_has_next(it)) return true;
        return lat_hist_lowest_equivalent(h, java_d2l(it->log_next)) < it->value_at_next_index;
    case LAT_HIST_ITER_PERCENTILE:
        if (base_has_next(it)) return true;
        if (!it->last_reached && it->total > 0) {
            it->pct_to = 100.0;
            it->last_reached = true;
            return true;
        }
        return false;
    }
    return false;
}

static bool reached_level(const lat_hist_iter *it) {
    const lat_hist *h = it->h;
    switch (it->kind) {
    case LAT_HIST_ITER_ALL:
        return it->visited_index != it->index;
    case LAT_HIST_ITER_RECORDED:
        return h->counts[it->index] != 0 && it->visited_index != it->index;
    case LAT_HIST_ITER_LINEAR:
        return it->value_at_index >= it->step_low || it->index >= h->counts_len - 1;
    case LAT_HIST_ITER_LOG:
        return it->value_at_index >= it->step_low || it->index >= h->counts_len - 1;
    case LAT_HIST_ITER_PERCENTILE: {
        if (it->count_at_this == 0) return false;
        double cur = (100.0 * (double)it->count_to_index) / (double)it->total;
        return cur >= it->pct_to;
    }
    }
    return false;
}

static int64_t value_iterated_to(const lat_hist_iter *it) {
    switch (it->kind) {
    case LAT_HIST_ITER_LINEAR:
        return it->step_high;
    case LAT_HIST_ITER_LOG:
        return it->step_high;
    default:
        return lat_hist_highest_equivalent(it->h, it->value_at_index);
    }
}

static double percentile_iterated_to(const lat_hist_iter *it) {
    if (it->kind == LAT_HIST_ITER_PERCENTILE) return it->pct_to;
    return (100.0 * (double)it->count_to_index) / (double)it->total;
}

static void increment_level(lat_hist_iter *it) {
    const lat_hist *h = it->h;
    switch (it->kind) {
    case LAT_HIST_ITER_ALL:
    case LAT_HIST_ITER_RECORDED:
        it->visited_index = it->index;
        break;
    case LAT_HIST_ITER_LINEAR:
        it->step_high += it->step;
        it->step_low = lat_hist_lowest_equivalent(h, it->step_high);
        break;
    case LAT_HIST_ITER_LOG:
        it->log_next *= it->log_base;
        it->step_high = java_d2l(it->log_next) - 1;
        it->step_low = lat_hist_lowest_equivalent(h, it->step_high);
        break;
    case LAT_HIST_ITER_PERCENTILE: {
        it->pct_from = it->pct_to;
        double lvl = log(100.0 / (100.0 - it->pct_to)) / log(2.0);
        /* Java multiplies in long arithmetic (wrapping past 100%, after the
         * last step); unsigned keeps that defined here. */
        uint64_t ticks =
            (uint64_t)it->ticks_per_half * (uint64_t)java_d2l(pow(2.0, (double)java_d2l(lvl) + 1));
        it->pct_to += 100.0 / (double)(int64_t)ticks;
        break;
    }
    }
}

/* Value of slot i, tolerating i == counts_len (Java computes it too). */
static int64_t value_at(const lat_hist *h, int32_t i) {
    if (i >= h->counts_len) return INT64_MAX; /* past the end: the shift could reach 64 */
    return lat_hist_value_from_index(h, i);
}

bool lat_hist_iter_next(lat_hist_iter *it) {
    if (!it->h || !has_next(it)) return false;
    const lat_hist *h = it->h;
    while (it->index < h->counts_len) {
        it->count_at_this = h->counts[it->index];
        if (it->fresh) {
            it->count_to_index += it->count_at_this;
            /* wraps like Java's long arithmetic instead of overflowing */
            it->value_to_index =
                (int64_t)((uint64_t)it->value_to_index +
                          (uint64_t)it->count_at_this *
                              (uint64_t)lat_hist_highest_equivalent(h, it->value_at_index));
            it->fresh = false;
        }
        if (reached_level(it)) {
            int64_t to = value_iterated_to(it);
            it->value_from = it->value; /* Java: prevValueIteratedTo */
            it->value = to;
            it->count_at_value = it->count_at_this;
            it->count_added = it->count_to_index - it->count_to_prev;
            it->cumulative_count = it->count_to_index;
            it->cumulative_value = it->value_to_index;
            it->percentile =
                it->total ? (100.0 * (double)it->count_to_index) / (double)it->total : 100.0;
            it->percentile_level = percentile_iterated_to(it);
            it->count_to_prev = it->count_to_index;
            increment_level(it);
            return true;
        }
        it->fresh = true;
        it->index++;
        it->value_at_index = value_at(h, it->index);
        it->value_at_next_index = value_at(h, it->index + 1);
    }
    return false;
}

/* ---- interval recorder ------------------------------------------------------------------ */

int lat_hist_recorder_init(lat_hist_recorder *r, int64_t lowest, int64_t highest, int sig_figs) {
    if (!r) return -EINVAL;
    memset(r, 0, sizeof *r);
    int rc = lat_hist_init(&r->bufs[0], lowest, highest, sig_figs);
    if (rc < 0) goto fail;
    rc = lat_hist_init(&r->bufs[1], lowest, highest, sig_figs);
    if (rc < 0) goto fail;
    atomic_init(&r->start_epoch, 0);
    atomic_init(&r->even_end_epoch, 0);
    atomic_init(&r->odd_end_epoch, INT64_MIN);
    atomic_init(&r->active, &r->bufs[0]);
    r->spare = &r->bufs[1];
    atomic_init(&r->reader_busy, 0);
    return 0;
fail:
    lat_hist_free(&r->bufs[0]);
    lat_hist_free(&r->bufs[1]);
    return rc;
}

void lat_hist_recorder_free(lat_hist_recorder *r) {
    if (!r) return;
    lat_hist_free(&r->bufs[0]);
    lat_hist_free(&r->bufs[1]);
}

/* Java WriterReaderPhaser.flipPhase: after it returns, every writer that
 * entered before the flip has left. */
static void flip_phase(lat_hist_recorder *r) {
    bool next_even = atomic_load_explicit(&r->start_epoch, memory_order_seq_cst) < 0;
    int64_t initial = next_even ? 0 : INT64_MIN;
    /* Reset the end counter of the coming phase before writers can enter it. */
    atomic_store_explicit(next_even ? &r->even_end_epoch : &r->odd_end_epoch, initial,
                          memory_order_seq_cst);
    int64_t at_flip = atomic_exchange_explicit(&r->start_epoch, initial, memory_order_seq_cst);
    _Atomic int64_t *old_end = next_even ? &r->odd_end_epoch : &r->even_end_epoch;
    /* acquire: pairs with each writer's release increment, so their records
     * into the old histogram are visible once the count matches. */
    for (unsigned spins = 0; atomic_load_explicit(old_end, memory_order_acquire) != at_flip;
         spins++) {
        if (spins < 64)
            lat_cpu_relax();
        else
            sched_yield();
    }
}

int lat_hist_recorder_interval(lat_hist_recorder *r, lat_hist *into) {
    if (!r || !into) return -EINVAL;
    if (!lat_hist_same_geometry(into, &r->bufs[0])) return LAT_EINCOMPATIBLE;
    int expect = 0;
    if (!atomic_compare_exchange_strong_explicit(&r->reader_busy, &expect, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return -EBUSY;
    lat_hist *old = atomic_load_explicit(&r->active, memory_order_relaxed);
    lat_hist_reset(r->spare);
    atomic_store_explicit(&r->active, r->spare, memory_order_seq_cst);
    flip_phase(r);
    /* No writer touches `old` any more. */
    r->spare = old;
    lat_hist_reset(into);
    lat_hist_add(into, old);
    atomic_store_explicit(&r->reader_busy, 0, memory_order_release);
    return 0;
}
