/* stats.c - rank tests, Hodges-Lehmann shifts and a seeded generator (see
 * stats.h).  The signed-rank distribution is computed exactly by dynamic
 * programming over doubled ranks (mid-ranks of ties are halves), so tied,
 * quantised figures - latencies that move by whole counter ticks - keep an
 * exact p-value. */
#include "latlab/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"

#define EXACT_MAX 200

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lat_stats_quantile_sorted(const double *s, size_t n, double p) {
    if (!s || n == 0) return NAN;
    if (p <= 0) return s[0];
    if (p >= 1) return s[n - 1];
    double rank = p * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo + 1 >= n) return s[n - 1];
    return s[lo] + (s[lo + 1] - s[lo]) * (rank - (double)lo);
}

double lat_stats_median(const double *x, size_t n) {
    if (!x || n == 0) return NAN;
    double *s = lat__alloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    double m = lat_stats_median_inplace(s, n);
    lat__free(s);
    return m;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void lat_stats_sort(double *v, size_t n) {
    if (v && n > 1) qsort(v, n, sizeof *v, cmp_double);
}

void lat_stats_sort_u64(uint64_t *v, size_t n) {
    if (v && n > 1) qsort(v, n, sizeof *v, cmp_u64);
}

double lat_stats_median_inplace(double *v, size_t n) {
    if (!v || n == 0) return NAN;
    lat_stats_sort(v, n);
    return lat_stats_quantile_sorted(v, n, 0.5);
}

double lat_stats_median_high(double *v, size_t n) {
    if (!v || n == 0) return 0;
    lat_stats_sort(v, n);
    return v[n / 2];
}

uint64_t lat_stats_median_high_u64(uint64_t *v, size_t n) {
    if (!v || n == 0) return 0;
    lat_stats_sort_u64(v, n);
    return v[n / 2];
}

double lat_stats_mad_inplace(double *v, size_t n, double centre) {
    if (!v || n == 0) return NAN;
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - centre);
    return lat_stats_median_inplace(v, n);
}

double lat_stats_range_ppm(const double *v, size_t n) {
    if (!v || n == 0) return NAN;
    double lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++)
        lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    return (hi - lo) / lo * 1e6;
}

/* counts[s] = number of sign assignments whose positive doubled ranks sum
 * to s, for the n doubled ranks r2, for s up to cap.  The counts are
 * symmetric about half the ranks' sum: a tail needs only its lower side. */
static double *rank_sum_counts(const unsigned *r2, size_t n, size_t cap) {
    double *c = lat__calloc(cap + 1, sizeof *c);
    if (!c) return NULL;
    c[0] = 1;
    size_t reach = 0;
    for (size_t i = 0; i < n; i++) {
        reach += r2[i];
        for (size_t s = reach < cap ? reach : cap; s >= r2[i]; s--) {
            c[s] += c[s - r2[i]];
            if (s == r2[i]) break;
        }
    }
    return c;
}

typedef struct mag {
    double a;
    int pos;
} mag;

static int cmp_mag(const void *x, const void *y) {
    return cmp_double(&((const mag *)x)->a, &((const mag *)y)->a);
}

int lat_stats_signed_rank(const double *d, size_t n, lat_stats_test *out) {
    if ((!d && n) || !out) return -EINVAL;
    memset(out, 0, sizeof *out);
    out->p = 1;
    mag *m = lat__alloc((n ? n : 1) * sizeof *m);
    unsigned *r2 = lat__alloc((n ? n : 1) * sizeof *r2);
    if (!m || !r2) {
        lat__free(m);
        lat__free(r2);
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0 && !isnan(d[i])) m[k++] = (mag){fabs(d[i]), d[i] > 0};
    qsort(m, k, sizeof *m, cmp_mag);
    size_t w2 = 0, total = 0;
    double ties = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j + 1 < k && m[j + 1].a == m[i].a)
            j++;
        unsigned rr = (unsigned)(i + 1 + j + 1); /* doubled mid-rank */
        for (size_t q = i; q <= j; q++) {
            r2[q] = rr;
            total += rr;
            if (m[q].pos) w2 += rr;
        }
        double t = (double)(j - i + 1);
        ties += t * t * t - t;
        i = j + 1;
    }
    out->n = k;
    out->stat = (double)w2 / 2;
    int rc = 0;
    if (k == 0) goto done;
    double mean2 = (double)total / 2, dev = fabs((double)w2 - mean2);
    if (k <= EXACT_MAX) {
        out->exact = true;
        /* two equal tails, the lower one up to mean - dev (none away from
         * the mean: p = 1) */
        double edge = mean2 - dev + 1e-9;
        if (edge >= mean2) goto done;
        double *c = rank_sum_counts(r2, k, (size_t)edge);
        if (!c) {
            rc = -ENOMEM;
            goto done;
        }
        double tail = 0;
        for (size_t s = 0; s <= (size_t)edge; s++)
            tail += c[s];
        lat__free(c);
        out->p = 2 * tail / ldexp(1.0, (int)k);
    } else {
        double dk = (double)k;
        double var = dk * (dk + 1) * (2 * dk + 1) / 24 - ties / 48;
        double z = var > 0 ? (fabs(out->stat - dk * (dk + 1) / 4) - 0.5) / sqrt(var) : 0;
        if (z < 0) z = 0;
        out->z = z;
        out->p = erfc(z / sqrt(2.0));
    }
    if (out->p > 1) out->p = 1;
done:
    lat__free(m);
    lat__free(r2);
    return rc;
}

/* Partial quickselect: the k-th smallest of v[0..n) to v[k], none larger
 * before it and none smaller after it. */
static void select_kth(double *v, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j] = t;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* The i-th smallest of w[0..M), w already holding its m-th in place. */
static double order_stat(double *w, size_t M, size_t m, size_t i) {
    if (i < m) select_kth(w, m, i);
    if (i > m) select_kth(w + m + 1, M - m - 1, i - m - 1);
    return w[i];
}

/* The exact rank of the Hodges-Lehmann interval's bounds, kept per thread
 * for the last few (n, alpha): a stop rule reads the same n at two levels,
 * and simulations read the same looks again and again. */
typedef struct hl_rank {
    size_t n, k;
    double alpha, cover;
} hl_rank;
static _Thread_local hl_rank hl_memo[4];
static _Thread_local unsigned hl_memo_next;

static int hl_exact_rank(size_t n, double alpha, size_t *k, double *cover) {
    for (unsigned i = 0; i < 4; i++)
        if (hl_memo[i].n == n && hl_memo[i].alpha == alpha) {
            *k = hl_memo[i].k, *cover = hl_memo[i].cover;
            return 0;
        }
    size_t M = n * (n + 1) / 2;
    unsigned *r2 = lat__alloc(n * sizeof *r2);
    double *c = NULL;
    if (r2) {
        for (size_t i = 0; i < n; i++)
            r2[i] = (unsigned)(2 * (i + 1));
        c = rank_sum_counts(r2, n, M);
    }
    lat__free(r2);
    if (!c) return -ENOMEM;
    /* k: the largest c with P(W+ <= c - 1) <= alpha / 2 under H0 (untied) */
    double all = ldexp(1.0, (int)n), cdf = 0;
    *k = 0;
    for (size_t s = 0; 2 * s <= M; s++) { /* doubled sums: index 2s, the lower half */
        double next = cdf + c[2 * s] / all;
        if (next > alpha / 2) break;
        cdf = next;
        *k = s + 1;
    }
    *cover = 1 - 2 * cdf;
    lat__free(c);
    hl_memo[hl_memo_next++ % 4] = (hl_rank){n, *k, alpha, *cover};
    return 0;
}

int lat_stats_hl_shift(const double *d, size_t n, double alpha, lat_stats_shift *out) {
    if ((!d && n) || !out || !(alpha > 0 && alpha < 1)) return -EINVAL;
    out->est = out->lo = out->hi = NAN;
    out->conf = 0;
    if (n == 0) return 0;
    if (n > LAT_STATS_HL_MAX) return -E2BIG;
    size_t M = n * (n + 1) / 2;
    double *w = lat__alloc(M * sizeof *w);
    if (!w) return -ENOMEM;
    size_t q = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[q++] = (d[i] + d[j]) / 2;
    out->lo = -INFINITY;
    out->hi = INFINITY;
    size_t k = 0;
    double cover = 0;
    if (n <= EXACT_MAX) {
        if (hl_exact_rank(n, alpha, &k, &cover)) {
            lat__free(w);
            return -ENOMEM;
        }
    } else {
        double dn = (double)n, z = 0;
        /* inverse normal by bisection on erfc */
        double lo = 0, hi = 10;
        for (int it = 0; it < 60; it++) {
            z = (lo + hi) / 2;
            if (erfc(z / sqrt(2.0)) > alpha)
                lo = z;
            else
                hi = z;
        }
        double c = dn * (dn + 1) / 4 - z * sqrt(dn * (dn + 1) * (2 * dn + 1) / 24);
        k = c > 0 ? (size_t)floor(c) : 0;
        cover = 1 - alpha;
    }
    /* the median of the Walsh averages and the order statistics k - 1 and
     * M - k, by selection: no sort of the M averages */
    size_t m = (M - 1) / 2;
    select_kth(w, M, m);
    double mid = w[m];
    if (M % 2 == 0) {
        select_kth(w + m + 1, M - m - 1, 0);
        mid += (w[m + 1] - mid) * 0.5; /* as lat_stats_quantile_sorted reads it */
    }
    out->est = mid;
    if (k >= 1 && k <= M) {
        out->lo = order_stat(w, M, m, k - 1);
        out->hi = order_stat(w, M, m, M - k);
        out->conf = cover;
    }
    lat__free(w);
    return 0;
}

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
static int mwu_exact_cdf(size_t m, size_t n, double u, double *out) {
    size_t deg = m * n;
    double *c = lat__calloc(deg + 1, sizeof *c);
    if (!c) return -ENOMEM;
    c[0] = 1;
    for (size_t k = 1; k <= m; k++) { /* prod_{k=1..m} (1 - q^(n+k)) / (1 - q^k) */
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

int lat_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                           lat_stats_test *out) {
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
    double ra = 0, ties = 0; /* mid-ranks; tie term sum(t^3 - t) for the variance */
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
    double u1 = ra - dna * (dna + 1) / 2.0, u2 = dna * dnb - u1;
    out->n = n;
    out->stat = u1;
    out->p = 1;
    if (ties == 0 && na <= 20 && nb <= 20) {
        double cdf;
        int rc = mwu_exact_cdf(na, nb, u1 < u2 ? u1 : u2, &cdf);
        if (rc) return rc;
        out->exact = true;
        out->p = 2 * cdf > 1 ? 1 : 2 * cdf;
        return 0;
    }
    double var = dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
    if (var <= 0) return 0;                       /* every value equal */
    double dd = fabs(u1 - dna * dnb / 2.0) - 0.5; /* continuity correction */
    if (dd < 0) dd = 0;
    out->z = (u1 >= dna * dnb / 2.0 ? 1 : -1) * dd / sqrt(var);
    out->p = erfc(fabs(out->z) / sqrt(2.0));
    if (out->p > 1) out->p = 1;
    return 0;
}

double lat_stats_normal(lat_stats_rng *r) {
    double u = lat_stats_uniform(r), v = lat_stats_uniform(r);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

void lat_stats_shuffle(lat_stats_rng *r, int *v, size_t n) {
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(lat_stats_next(r) % i);
        int t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}
