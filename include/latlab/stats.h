/* stats.h - small, distribution-free statistics for comparing measurements
 * taken on a noisy machine: medians, the Wilcoxon signed-rank test on paired
 * differences (exact, ties handled by mid-ranks), the Hodges-Lehmann
 * estimate of a shift with its distribution-free confidence interval, the
 * Mann-Whitney rank test for two independent samples, and a seeded
 * generator for shuffles and simulations (splitmix64). */

/* Why these: latency figures are skewed and heavy-tailed and the machine
 * drifts, so comparisons are made on paired per-round differences (rank
 * based: robust to outliers) and on logs of figures (a shift in logs is a
 * ratio).  Every function is pure (no globals, no printing); those taking
 * const arrays copy before sorting, the *_inplace / *_high / sort ones sort
 * the caller's array.  Allocation: scratch memory through lat__alloc;
 * they return 0 or a negative errno. */
#ifndef LATLAB_STATS_H
#define LATLAB_STATS_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Median of n values (NAN when n == 0 or on allocation failure). */
LAT_API double lat_stats_median(const double *x, size_t n);

/* In-place helpers for callers that own their buffer (benchmarks, the ring
 * bake-off, `latlab clock`): these sort v ascending in place and allocate
 * nothing through lat__alloc, so they also suit fixed stack arrays. */
LAT_API void lat_stats_sort(double *v, size_t n);
LAT_API void lat_stats_sort_u64(uint64_t *v, size_t n);
/* Median, interpolated: the mean of the two middle values when n is even
 * (NAN when n == 0).  Sorts v. */
LAT_API double lat_stats_median_inplace(double *v, size_t n);
/* The high median v[n / 2] after sorting: always an observed value (for odd
 * n the same as the median).  Sorts v; 0 when n == 0. */
LAT_API double lat_stats_median_high(double *v, size_t n);
LAT_API uint64_t lat_stats_median_high_u64(uint64_t *v, size_t n);
/* Median absolute deviation about centre (unscaled): replaces v by
 * |v - centre|, sorts it and returns its interpolated median (NAN if n == 0). */
LAT_API double lat_stats_mad_inplace(double *v, size_t n, double centre);
/* Relative spread (max - min) / min in parts per million, for a handful of
 * repeated estimates of one quantity (calibrations).  v is not modified;
 * NAN when n == 0. */
LAT_API double lat_stats_range_ppm(const double *v, size_t n);
/* Interpolated quantile p in [0, 1] of sorted values. */
LAT_API double lat_stats_quantile_sorted(const double *sorted, size_t n, double p);

/* Result of a rank test. */
typedef struct lat_stats_test {
    size_t n;    /* values used (signed-rank: non-zero differences) */
    double stat; /* W+ (signed rank) or U of the first sample (Mann-Whitney) */
    double p;    /* two-sided p-value */
    double z;    /* normal approximation's z (0 when exact) */
    bool exact;  /* p from the exact permutation distribution */
} lat_stats_test;

/* Wilcoxon signed-rank test of H0: the differences d are symmetric about 0.
 * Zeros are dropped; tied magnitudes get mid-ranks and the exact
 * distribution is computed for those ranks (n <= 200), else normal.
 * n == 0 after dropping zeros gives p = 1. */
LAT_API int lat_stats_signed_rank(const double *d, size_t n, lat_stats_test *out);

/* Hodges-Lehmann estimate of the centre of d (median of the Walsh averages)
 * and its 1 - alpha confidence interval from the signed-rank distribution
 * (exact for n <= 200).  With n < 2 the interval is infinite.  n at most
 * LAT_STATS_HL_MAX (it holds n(n+1)/2 averages), else -E2BIG. */
#define LAT_STATS_HL_MAX 4000
typedef struct lat_stats_shift {
    double est, lo, hi;
    double conf; /* achieved coverage (>= 1 - alpha where possible) */
} lat_stats_shift;
LAT_API int lat_stats_hl_shift(const double *d, size_t n, double alpha, lat_stats_shift *out);

/* Mann-Whitney U test of H0: a and b come from one distribution: exact
 * without ties when both samples have <= 20 values, else the normal
 * approximation with tie and continuity corrections (z signed: > 0 when a
 * ranks higher).  The benchmark harness's comparison uses it too. */
LAT_API int lat_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                                   lat_stats_test *out);

/* splitmix64: a seeded generator for shuffles and simulations. */
typedef struct lat_stats_rng {
    uint64_t s;
} lat_stats_rng;
static inline uint64_t lat_stats_next(lat_stats_rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static inline double lat_stats_uniform(lat_stats_rng *r) {
    return (double)(lat_stats_next(r) >> 11) * 0x1.0p-53;
}
/* Standard normal (Box-Muller). */
LAT_API double lat_stats_normal(lat_stats_rng *r);
/* Shuffle n ints in place (Fisher-Yates). */
LAT_API void lat_stats_shuffle(lat_stats_rng *r, int *v, size_t n);

#endif /* LATLAB_STATS_H */
