/* stats.c - the harness's statistics: interpolated percentiles, the per-sample
 * summary (mean, median, p95, MAD, population CV, Tukey fences), the stability
 * rule and the Mann-Whitney U test used by comparison.
 *
 * Inputs are never reordered: sorting happens on a temporary copy, so the
 * persisted per-sample arrays stay in execution order. */
#include "latlab/bench.h"

#include "alloc_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lat_bench_percentile(const double *sorted, size_t n, double p) {
    if (!sorted || n == 0) return NAN;
    if (p <= 0) return sorted[0];
    if (p >= 1) return sorted[n - 1];
    double rank = p * (double)(n - 1);
    size_t lo = (size_t)rank;
    double frac = rank - (double)lo;
    if (lo + 1 >= n) return sorted[n - 1];
    return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * frac;
}

int lat_bench_summarize(const double *x, size_t n, lat_bench_summary *out) {
    if (!x || !out || n == 0) return -EINVAL;
    memset(out, 0, sizeof *out);
    double *s = lat__alloc(n * sizeof *s);
    if (!s) return -ENOMEM;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);

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

    /* MAD: median of absolute deviations (reuse the buffer). */
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(x[i] - out->median);
    qsort(s, n, sizeof *s, cmp_double);
    out->mad = lat_bench_percentile(s, n, 0.5);
    lat__free(s);
    return 0;
}

bool lat_bench_stability_weak(double cv_pct, uint32_t outliers, uint32_t n) {
    uint32_t lim = n / 10 > 2 ? n / 10 : 2;
    return cv_pct >= 10.0 || outliers >= lim;
}

/* ---- Mann-Whitney U ------------------------------------------------------------- */

typedef struct tagged {
    double v;
    int from_a;
} tagged;

static int cmp_tagged(const void *a, const void *b) {
    return cmp_double(&((const tagged *)a)->v, &((const tagged *)b)->v);
}

/* P(U <= u) under H0 for sizes m, n without ties: the counts of U are the
 * coefficients of the Gaussian binomial [m+n choose m]_q.  Exact in doubles
 * for m, n <= 20 (counts < 2^53). */
static int exact_cdf(size_t m, size_t n, double u, double *out) {
    size_t deg = m * n;
    double *c = lat__calloc(deg + 1, sizeof *c);
    if (!c) return -ENOMEM;
    c[0] = 1;
    /* prod_{k=1..m} (1 - q^(n+k)) / (1 - q^k) */
    for (size_t k = 1; k <= m; k++) {
        size_t a = n + k;
        for (size_t i = deg; i >= a; i--) {
            c[i] -= c[i - a];
            if (i == a) break;
        }
        for (size_t i = k; i <= deg; i++)
            c[i] += c[i - k];
    }
    double total = 0, below = 0;
    for (size_t i = 0; i <= deg; i++) {
        total += c[i];
        if ((double)i <= u + 1e-9) below += c[i];
    }
    lat__free(c);
    *out = below / total;
    return 0;
}

int lat_bench_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                           lat_bench_mwu *out) {
    if (!a || !b || !out || na == 0 || nb == 0) return -EINVAL;
    memset(out, 0, sizeof *out);
    size_t n = na + nb;
    tagged *t = lat__alloc(n * sizeof *t);
    if (!t) return -ENOMEM;
    for (size_t i = 0; i < na; i++)
        t[i] = (tagged){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        t[na + i] = (tagged){b[i], 0};
    qsort(t, n, sizeof *t, cmp_tagged);

    /* Mid-ranks for ties; tie term sum(t^3 - t) for the variance. */
    double ra = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && t[j + 1].v == t[i].v)
            j++;
        double rank = ((double)(i + 1) + (double)(j + 1)) / 2.0;
        for (size_t k = i; k <= j; k++)
            if (t[k].from_a) ra += rank;
        double cnt = (double)(j - i + 1);
        ties += cnt * cnt * cnt - cnt;
        i = j + 1;
    }
    lat__free(t);

    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    double u1 = ra - dna * (dna + 1) / 2.0;
    double u2 = dna * dnb - u1;
    out->u1 = u1;
    out->u = u1 < u2 ? u1 : u2;
    if (ties == 0 && na <= 20 && nb <= 20) {
        double cdf;
        int rc = exact_cdf(na, nb, out->u, &cdf);
        if (rc) return rc;
        out->exact = true;
        out->p = 2 * cdf > 1 ? 1 : 2 * cdf;
        return 0;
    }
    double mu = dna * dnb / 2.0;
    double var = dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
    if (var <= 0) { /* every value equal */
        out->p = 1;
        return 0;
    }
    double d = fabs(u1 - mu) - 0.5; /* continuity correction */
    if (d < 0) d = 0;
    out->z = d / sqrt(var);
    out->p = erfc(out->z / sqrt(2.0));
    if (out->p > 1) out->p = 1;
    return 0;
}
