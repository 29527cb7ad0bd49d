/* hist.c - HdrHistogram core: geometry, queries with Java's semantics,
 * iterators (Java's, step for step), merging, coordinated-omission
 * correction and the writer-reader-phaser interval recorder.
 *
 * Recording itself is static inline in hist.h.  Everything here runs after
 * (or beside) recording; nothing allocates except init/copy/create. */
#include "latlab/hist.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/error.h"

/* ---- set-up ---------------------------------------------------------------------- */

int lat_hist_init(lat_hist *h, int64_t lowest, int64_t highest, int sig_figs) {
    lat_hist g;
    int rc = lat__hist_geometry(&g, lowest, highest, sig_figs);
    if (rc < 0 || !h) return rc < 0 ? rc : -EINVAL;
    int64_t *counts = lat__calloc_aligned((size_t)g.counts_len, sizeof(int64_t), LAT_CACHELINE);
    if (!counts) return -ENOMEM;
    *h = g;
    h->counts = counts;
    return 0;
}

int lat__hist_geometry(lat_hist *h, int64_t lowest, int64_t highest, int sig_figs) {
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
    return 0;
}

void lat_hist_fini(lat_hist *h) {
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
    lat_hist_fini(h);
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

/* a + b for counts >= 0, saturating at INT64_MAX. */
static int64_t sat_add(int64_t a, int64_t b) {
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int64_t lat_hist_add(lat_hist *dst, const lat_hist *src) {
    int64_t dropped = 0;
    /* Slot by slot (each refused where the total would pass INT64_MAX)
     * unless the whole of src fits. */
    bool fits = src->total_count >= 0 && dst->total_count <= INT64_MAX - src->total_count;
    if (fits && lat_hist_same_geometry(dst, src)) {
        int64_t added = 0;
        for (int32_t i = 0; i < src->counts_len; i++) {
            int64_t c = src->counts[i];
            if (!c) continue;
            dst->counts[i] += c;
            added += c;
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
            if (!lat_hist_record_n(dst, v, c)) dropped = sat_add(dropped, c);
        }
    }
    if (src->overflow_count > 0)
        dst->overflow_count = sat_add(dst->overflow_count, src->overflow_count);
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

/* Grow dst (same lowest and significant figures, so every existing slot
 * keeps its index) until it tracks `need`, as Java's auto-resizing
 * histograms do: the new highest trackable value is `need` itself. */
static int grow_to(lat_hist *dst, int64_t need) {
    if (need <= dst->highest) return 0;
    lat_hist g;
    int rc = lat_hist_init(&g, dst->lowest, need, dst->sig_figs);
    if (rc < 0) return rc;
    memcpy(g.counts, dst->counts, (size_t)dst->counts_len * sizeof(int64_t));
    g.total_count = dst->total_count;
    g.min_value = dst->min_value;
    g.max_value = dst->max_value;
    g.overflow_count = dst->overflow_count;
    lat_hist_fini(dst);
    *dst = g;
    return 0;
}

int lat_hist_add_resize(lat_hist *dst, const lat_hist *src) {
    if (!dst || !src) return -EINVAL;
    if (src->total_count > 0 && dst->total_count > INT64_MAX - src->total_count) return -EOVERFLOW;
    if (src->total_count > 0) {
        int rc = grow_to(dst, lat_hist_max(src));
        if (rc < 0) return rc;
    }
    /* Everything src holds now lies in dst's range. */
    lat_hist_add(dst, src);
    return 0;
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

/* The next occupied slot after i (counts_len when none). */
static int32_t next_occupied(const lat_hist *h, int32_t i) {
    for (i++; i < h->counts_len; i++)
        if (h->counts[i]) break;
    return i;
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

double lat_hist_value_at_percentile_interpolated(const lat_hist *h, double p) {
    if (h->total_count == 0) return NAN;
    if (!(p > 0)) p = 0;
    if (p > 100) p = 100;
    /* the recording's tick: what every value up to p99 in the exact slots is
     * a multiple of (1 for a fine clock); rarer values above may drift off it */
    int64_t tick = 0, seen = 0, bulk = h->total_count - h->total_count / 100;
    for (int32_t i = next_occupied(h, -1); i < h->counts_len && tick != 1 && seen < bulk;
         i = next_occupied(h, i)) {
        int64_t v = lat_hist_value_from_index(h, i);
        if (lat_hist_size_of_equivalent_range(h, v) != 1) break;
        tick = gcd64(v, tick), seen += h->counts[i];
    }
    /* each value's counts centre on it: the figure runs linearly between the
     * mid-ranks of neighbours one tick apart (a ramp either side of every
     * value, as a tick's phase spreads it), and not over an empty side */
    double rank = p / 100.0 * (double)h->total_count, below = 0, pm = 0, pc = 0;
    for (int32_t i = next_occupied(h, -1); i < h->counts_len;) {
        int32_t next = next_occupied(h, i);
        int64_t v = lat_hist_value_from_index(h, i);
        double c = (double)h->counts[i], m = (double)lat_hist_median_equivalent(h, v);
        double mid = below + c / 2;
        if (rank <= mid || next >= h->counts_len) {
            if (below == 0 || rank >= mid) return m; /* first value, or past the last one */
            double w = fmax((double)lat_hist_size_of_equivalent_range(h, v), (double)tick);
            if (m - pm <= 1.5 * w) return pm + (rank - pc) / (mid - pc) * (m - pm);
            return rank <= below ? pm : m;
        }
        below += c, pm = m, pc = mid, i = next;
    }
    return NAN;
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

/* The value at each of n 1-based ranks tgt[] (any order; each in 1..total)
 * in one pass: out[i] is the slot whose running count first reaches tgt[i],
 * read as lowest_equivalent when low[i], else highest_equivalent.  Lower
 * ranks walk up from slot 0 skipping whole blocks, tail ranks walk down from
 * the top (max is tracked exactly).  n <= 255; no allocation. */
static void values_at_ranks(const lat_hist *h, const int64_t *tgt, const bool *low, int64_t *out,
                            size_t n) {
    uint8_t ord[3 * LAT_HIST_MAX_BATCH];
    for (size_t k = 0; k < n; k++)
        ord[k] = (uint8_t)k;
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
    int32_t top = lat_hist_index(h, h->max_value);
    if (top >= len) top = len - 1;
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
        out[ord[k]] = answer(h, i, low[ord[k]] ? 0.0 : 1.0);
        k++;
    }
    /* Upper ranks (tails): walk down from the top.  Slot i answers rank t
     * iff sum(counts[0..i]) >= t > sum(counts[0..i-1]), i.e. with
     * above(i) = total - sum(counts[0..i]): above(i) <= total - t <
     * above(i) + counts[i].  Visit ranks from the largest. */
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
        out[ord[m]] = answer(h, j, low[ord[m]] ? 0.0 : 1.0);
    }
}

int lat_hist_values_at_percentiles(const lat_hist *h, const double *ps, int64_t *out, size_t n) {
    if (n == 0) return 0;
    if (!ps || !out || n > LAT_HIST_MAX_BATCH) return -EINVAL;
    if (h->total_count == 0) {
        for (size_t k = 0; k < n; k++)
            out[k] = 0;
        return 0;
    }
    int64_t tgt[LAT_HIST_MAX_BATCH];
    bool low[LAT_HIST_MAX_BATCH];
    for (size_t k = 0; k < n; k++) {
        tgt[k] = target_count(h, ps[k]);
        low[k] = ps[k] == 0.0;
    }
    values_at_ranks(h, tgt, low, out, n);
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
    lat_hist_fini(&r->bufs[0]);
    lat_hist_fini(&r->bufs[1]);
    return rc;
}

void lat_hist_recorder_fini(lat_hist_recorder *r) {
    if (!r) return;
    lat_hist_fini(&r->bufs[0]);
    lat_hist_fini(&r->bufs[1]);
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

/* ---- quantile confidence intervals ------------------------------------------------------ */

/* Inverse of the standard normal CDF: Acklam's rational approximation
 * (relative error < 1.2e-9) polished by one Halley step on erfc, which
 * brings it to about double precision.  0 < p < 1. */
static double normal_quantile(double p) {
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        double q = sqrt(-2 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* Terms below this fraction of the mode's probability are dropped: the
 * quantiles are needed to ~1e-9 of probability, far coarser. */
#define CI_TERM_FLOOR 1e-16

/* Exact quantiles of binomial(n, q) at probabilities pa (lower) and pb
 * (upper), 0 < q < 1: the smallest k with CDF(k) >= p.  Probabilities are
 * carried relative to the mode's (t_mode = 1) and normalised by their sum,
 * so nothing under- or overflows and no lgamma of a large n loses digits;
 * the neighbour ratios t(k+1)/t(k) = (n-k)/(k+1) * q/(1-q) give each term.
 * Lower tails are summed from below the quantile, upper tails from above,
 * so neither end subtracts nearly equal sums.  Steps: about the distribution's
 * width (~ 2 x 8.5 sd + skew), which is what makes it the n*q*(1-q) < 100
 * branch. */
static void binom_exact(int64_t n, double q, double pa, double pb, int64_t *ka, int64_t *kb) {
    const double odds = q / (1.0 - q), inv = (1.0 - q) / q;
    int64_t m = (int64_t)floor((double)(n + 1) * q);
    if (m > n) m = n;
    if (m < 0) m = 0;
    /* Mass below and above the mode, relative to it. */
    double below = 0, above = 0, t = 1;
    for (int64_t k = m; k > 0; k--) {
        t *= (double)k / (double)(n - k + 1) * inv; /* t(k-1) */
        below += t;
        if (t < CI_TERM_FLOOR) break;
    }
    t = 1;
    for (int64_t k = m; k < n; k++) {
        t *= (double)(n - k) / (double)(k + 1) * odds; /* t(k+1) */
        above += t;
        if (t < CI_TERM_FLOOR) break;
    }
    const double z = below + 1 + above;
    /* Lower: F(k) * z is `cum`. */
    double want = pa * z, cum;
    int64_t k = m;
    if (below >= want) { /* answer below the mode: step down while F(k-1) >= pa */
        k = m - 1;
        cum = below;
        t = (double)m / (double)(n - m + 1) * inv; /* t(m-1) */
        while (k > 0 && cum - t >= want) {
            cum -= t;
            t *= (double)k / (double)(n - k + 1) * inv;
            k--;
        }
    } else { /* at or above the mode: step up until F(k) >= pa */
        cum = below + 1;
        t = 1;
        while (k < n && cum < want) {
            t *= (double)(n - k) / (double)(k + 1) * odds;
            k++;
            cum += t;
        }
    }
    *ka = k;
    /* Upper: the smallest k with (1 - F(k)) * z = tail(k) <= (1 - pb) * z. */
    want = (1.0 - pb) * z;
    double tail = above; /* tail(m) */
    k = m;
    if (tail <= want) { /* step down while tail(k-1) = tail(k) + t(k) stays <= want */
        t = 1;
        while (k > 0 && tail + t <= want) {
            tail += t;
            t *= (double)k / (double)(n - k + 1) * inv;
            k--;
        }
    } else { /* step up until tail(k) <= want */
        t = 1;
        while (k < n && tail > want) {
            t *= (double)(n - k) / (double)(k + 1) * odds;
            k++;
            tail -= t;
        }
    }
    *kb = k;
}

/* Normal approximation with continuity and Cornish-Fisher skewness
 * corrections: quantile(p) ~ ceil(nq + sd*(z + g*(z^2-1)/6) - 1/2), g the
 * skewness (1-2q)/sd.  Within one rank of the exact quantile where
 * n*q*(1-q) >= 100. */
static int64_t binom_normal(int64_t n, double q, double z) {
    double sd = sqrt((double)n * q * (1.0 - q));
    double g = (1.0 - 2.0 * q) / sd;
    double k = ceil((double)n * q + sd * (z + g * (z * z - 1.0) / 6.0) - 0.5);
    if (k < 0) return 0;
    if (k > (double)n) return n;
    return (int64_t)k;
}

static int64_t clamp_rank(int64_t r, int64_t n) {
    return r < 1 ? 1 : r > n ? n : r;
}

/* The ranks for valid arguments; *z caches the normal quantile at (1+c)/2
 * across a batch (NAN until first needed). */
static void ci_ranks(int64_t n, double q, double confidence, double *z, int64_t *lo_rank,
                     int64_t *hi_rank) {
    double pa = (1.0 - confidence) / 2, pb = (1.0 + confidence) / 2;
    int64_t lo, hi;
    if (q <= 0.0) {
        lo = hi = 0;
    } else if (q >= 1.0) {
        lo = hi = n;
    } else if ((double)n * q * (1.0 - q) < LAT_HIST_CI_EXACT_BELOW) {
        binom_exact(n, q, pa, pb, &lo, &hi);
    } else {
        if (isnan(*z)) *z = normal_quantile(pb);
        lo = binom_normal(n, q, -*z);
        hi = binom_normal(n, q, *z);
    }
    *lo_rank = clamp_rank(lo, n);
    *hi_rank = clamp_rank(hi, n);
}

int lat_hist_ci_ranks(int64_t n, double q, double confidence, int64_t *lo_rank, int64_t *hi_rank) {
    if (!lo_rank || !hi_rank || n < 1 || !(q >= 0.0 && q <= 1.0) ||
        !(confidence > 0.0 && confidence < 1.0))
        return -EINVAL;
    double z = NAN;
    ci_ranks(n, q, confidence, &z, lo_rank, hi_rank);
    return 0;
}

/* needed_n's two conditions, each false below its answer and true from it on. */
static bool upper_rank_fits(int64_t r, double q, double a) {
    return pow(q, (double)r) <= a;
}
static bool point_rank_fits(int64_t r, double q, double a) {
    (void)a;
    return !((double)r * q > (double)(r - 1));
}

/* The smallest r >= 1 where fits(r) holds, starting from the estimate
 * guess.  The estimate comes from 1 - q, which keeps few digits when q is
 * within 1e-12 of 1, so it can miss by millions: gallop (doubling steps)
 * to a bracket, then halve it.  At most ~2 x 64 evaluations, where stepping
 * by one from the estimate ran for hours on a log of 10^15 counts. */
static int64_t smallest_fitting(int64_t guess, double q, double a,
                                bool (*fits)(int64_t, double, double)) {
    if (guess < 1) guess = 1;
    int64_t lo, hi; /* fits(hi); !fits(lo) or lo == 0 */
    if (fits(guess, q, a)) {
        hi = guess;
        int64_t step = 1;
        lo = guess - step;
        while (lo >= 1 && fits(lo, q, a)) {
            hi = lo;
            step = step > INT64_MAX / 4 ? INT64_MAX / 2 : step * 2;
            lo = hi - step;
        }
        if (lo < 0) lo = 0;
    } else {
        lo = guess;
        int64_t step = 1;
        for (;;) {
            if (lo > INT64_MAX - step) return INT64_MAX;
            hi = lo + step;
            if (fits(hi, q, a)) break;
            lo = hi;
            step = step > INT64_MAX / 4 ? INT64_MAX / 2 : step * 2;
        }
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (mid >= 1 && fits(mid, q, a))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

int64_t lat_hist_ci_needed_n(double q, double confidence) {
    if (!(q > 0.0 && q < 1.0) || !(confidence > 0.0 && confidence < 1.0)) return 0;
    /* Upper rank < m  <=>  CDF(m-1) = 1 - q^m >= (1+c)/2  <=>  q^m <= (1-c)/2;
     * the point estimate's rank ceil(q*m) < m needs m > 1/(1-q) as well. */
    double a = (1.0 - confidence) / 2;
    double m = ceil(log(a) / log(q));
    if (m < 1) m = 1;
    if (m > 9e18) return INT64_MAX;
    int64_t r = smallest_fitting((int64_t)m, q, a, upper_rank_fits);
    /* ceil(q r) < r  <=>  r (1 - q) >= 1 */
    double pt = ceil(1.0 / (1.0 - q));
    if (pt > 9e18) return INT64_MAX;
    int64_t rp = smallest_fitting((int64_t)pt, q, a, point_rank_fits);
    return r > rp ? r : rp;
}

int lat_hist_cis_at_percentiles(const lat_hist *h, const double *ps, double confidence,
                                lat_hist_ci *out, size_t n) {
    if (n == 0) return 0;
    if (!h || !ps || !out || n > LAT_HIST_MAX_BATCH || !(confidence > 0.0 && confidence < 1.0))
        return -EINVAL;
    memset(out, 0, n * sizeof *out);
    const int64_t total = h->total_count;
    if (total == 0) return 0;
    int64_t rank[3 * LAT_HIST_MAX_BATCH], val[3 * LAT_HIST_MAX_BATCH];
    bool low[3 * LAT_HIST_MAX_BATCH];
    double z = NAN;
    for (size_t k = 0; k < n; k++) {
        double p = ps[k];
        if (!(p == p)) p = 0.0;
        p = p < 0 ? 0 : p > 100 ? 100 : p;
        int64_t t = target_count(h, p), lo, hi;
        ci_ranks(total, p / 100.0, confidence, &z, &lo, &hi);
        /* The point estimate lies inside by construction. */
        if (lo > t) lo = t;
        if (hi < t) hi = t;
        lat_hist_ci *o = &out[k];
        o->lo_rank = lo;
        o->hi_rank = hi;
        if (hi >= total && p > 0.0 && p < 100.0) {
            o->max_bound = true;
            o->needed_n = lat_hist_ci_needed_n(p / 100.0, confidence);
        }
        rank[3 * k] = t;
        rank[3 * k + 1] = lo;
        rank[3 * k + 2] = hi;
        low[3 * k] = low[3 * k + 1] = low[3 * k + 2] = p == 0.0;
    }
    values_at_ranks(h, rank, low, val, 3 * n);
    for (size_t k = 0; k < n; k++) {
        out[k].value = val[3 * k];
        out[k].lo = val[3 * k + 1];
        out[k].hi = val[3 * k + 2];
    }
    return 0;
}

int lat_hist_ci_format(const lat_hist_ci *ci, double scale, int prec, char *buf, size_t len) {
    if (!(scale > 0)) scale = 1;
    if (ci->max_bound)
        return snprintf(buf, len, "[%.*f, %.*f] max-bound: needs at least %" PRId64 " samples",
                        prec, (double)ci->lo / scale, prec, (double)ci->hi / scale, ci->needed_n);
    return snprintf(buf, len, "[%.*f, %.*f]", prec, (double)ci->lo / scale, prec,
                    (double)ci->hi / scale);
}
