/* sample_stats.c - the harness's statistics: interpolated percentiles, the per-sample
 * summary (mean, median, p95, MAD, population CV, Tukey fences), the stability
 * rule, and the Mann-Whitney U test used by comparison (the rank test and the
 * percentile interpolation are the statistics module's, stats.h).
 *
 * Inputs are never reordered: sorting happens on a temporary copy, so the
 * persisted per-sample arrays stay in execution order. */
#include "latlab/bench.h"
#include "latlab/stats.h"

#include "alloc_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double lat_bench_percentile(const double *sorted, size_t n, double p) {
    return lat_stats_quantile_sorted(sorted, n, p);
}

int lat_bench_summarize(const double *x, size_t n, lat_bench_summary *out) {
    if (!x || !out || n == 0) return -EINVAL;
    memset(out, 0, sizeof *out);
    double *s = lat__alloc(n * sizeof *s);
    if (!s) return -ENOMEM;
    memcpy(s, x, n * sizeof *s);
    lat_stats_sort(s, n);

    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (s[i] - mean) * (s[i] - mean);

    out->n = (uint32_t)n;
    out->mean = mean;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = lat_bench_percentile(s, n, 0.5);
    out->p95 = lat_bench_percentile(s, n, 0.95);
    out->q1 = lat_bench_percentile(s, n, 0.25);
    out->q3 = lat_bench_percentile(s, n, 0.75);
    out->stddev = sqrt(ss / (double)n);
    out->cv_pct = mean != 0 ? out->stddev / fabs(mean) * 100.0 : 0.0;
    double iqr = out->q3 - out->q1;
    out->fence_lo = out->q1 - 1.5 * iqr;
    out->fence_hi = out->q3 + 1.5 * iqr;
    if (n >= 4)
        for (size_t i = 0; i < n; i++)
            if (s[i] < out->fence_lo || s[i] > out->fence_hi) out->outliers++;

    /* MAD: median of absolute deviations (reuse the buffer: the sorted copy
     * holds the same values as x). */
    out->mad = lat_stats_mad_inplace(s, n, out->median);
    lat__free(s);
    return 0;
}

bool lat_bench_stability_weak(double cv_pct, uint32_t outliers, uint32_t n) {
    uint32_t lim = n / 10 > 2 ? n / 10 : 2;
    return cv_pct >= 10.0 || outliers >= lim;
}

/* ---- Mann-Whitney U: the statistics module's (stats.h) ---------------------- */

int lat_bench_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                           lat_bench_mwu *out) {
    if (!a || !b || !out || na == 0 || nb == 0) return -EINVAL;
    memset(out, 0, sizeof *out);
    lat_stats_test t;
    int rc = lat_stats_mann_whitney(a, na, b, nb, &t);
    if (rc) return rc;
    double u2 = (double)na * (double)nb - t.stat;
    out->u1 = t.stat;
    out->u = t.stat < u2 ? t.stat : u2;
    out->z = fabs(t.z);
    out->p = t.p;
    out->exact = t.exact;
    return 0;
}
