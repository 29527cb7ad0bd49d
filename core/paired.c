/* paired.c - the paired-comparison engine (see paired.h): one shift point
 * from per-round log ratios, its judgement against a band, Benjamini-
 * Hochberg across a family, the level of each of the stop rule's looks, and
 * the stop rule's two projections. */
#include "latlab/paired.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"

double lat_paired_z(double prob) {
    if (!(prob > 0 && prob < 1)) return NAN;
    /* bisection on the normal tail: 0.5 erfc(-z / sqrt 2) = prob */
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc(-mid / sqrt(2.0)) < prob)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

int lat_paired_point_read(const double *d, size_t n, double alpha, lat_paired_point *out) {
    if (!out || (!d && n) || !(alpha > 0 && alpha < 1)) return -EINVAL;
    memset(out, 0, sizeof *out);
    out->n = n;
    out->mde = INFINITY;
    if (n < 2) {
        out->test.p = 1;
        out->ci = out->eq = (lat_stats_shift){n ? d[0] : NAN, -INFINITY, INFINITY, 0};
        return 0;
    }
    double eq_alpha = 2 * alpha < 1 ? 2 * alpha : alpha;
    int rc = lat_stats_signed_rank(d, n, &out->test);
    rc = rc ? rc : lat_stats_hl_shift(d, n, alpha, &out->ci);
    rc = rc ? rc : lat_stats_hl_shift(d, n, eq_alpha, &out->eq);
    if (rc) return rc;
    double half = (out->ci.hi - out->ci.lo) / 2, za = lat_paired_z(1 - alpha / 2);
    if (isfinite(half)) out->mde = half * (za + lat_paired_z(LAT_PAIRED_POWER)) / za;
    return 0;
}

static const char *const kind_names[] = {"undecided", "no change", "up", "down"};

const char *lat_paired_kind_name(int kind) {
    return kind >= 0 && kind <= LAT_PAIRED_DOWN ? kind_names[kind] : "?";
}

int lat_paired_judge(const lat_paired_point *pt, bool reject, double band_ln, size_t min_rounds) {
    if (!pt || pt->n < 2) return LAT_PAIRED_UNDECIDED;
    bool inside = pt->ci.lo > -band_ln && pt->ci.hi < band_ln;
    if (reject && pt->ci.lo > 0 && !inside) return LAT_PAIRED_UP;
    if (reject && pt->ci.hi < 0 && !inside) return LAT_PAIRED_DOWN;
    if (pt->n >= min_rounds && pt->eq.lo > -band_ln && pt->eq.hi < band_ln) return LAT_PAIRED_SAME;
    if (reject && inside) return LAT_PAIRED_SAME;
    return LAT_PAIRED_UNDECIDED;
}

typedef struct ranked {
    double p;
    size_t i;
} ranked;

static int by_p(const void *a, const void *b) {
    double x = ((const ranked *)a)->p, y = ((const ranked *)b)->p;
    return (x > y) - (x < y);
}

int lat_paired_bh(const double *p, size_t n, double q, bool *reject) {
    if ((!p || !reject) && n) return -EINVAL;
    if (!(q >= 0 && q < 1)) return -EINVAL;
    for (size_t i = 0; i < n; i++)
        reject[i] = false;
    if (q == 0) return 0;
    ranked *r = lat__alloc((n ? n : 1) * sizeof *r);
    if (!r) return -ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i])) r[m++] = (ranked){p[i], i};
    qsort(r, m, sizeof *r, by_p);
    /* the largest k with p_(k) <= k q / m; every smaller p is a discovery */
    size_t k = 0;
    for (size_t j = m; j > 0; j--)
        if (r[j - 1].p <= (double)j * q / (double)m) {
            k = j;
            break;
        }
    for (size_t j = 0; j < k; j++)
        reject[r[j].i] = true;
    lat__free(r);
    return (int)k;
}

/* a(t): the level spent by the looks up to information share t */
static double spent(double alpha, double t) {
    if (!(t > 0)) return 0;
    if (t >= 1) return alpha;
    return erfc(lat_paired_z(1 - alpha / 2) / sqrt(2 * t));
}

double lat_paired_look_alpha(double alpha, unsigned prev, unsigned rounds, unsigned total) {
    if (!(alpha > 0 && alpha < 1) || rounds == 0 || prev >= rounds) return 0;
    if (total < rounds) total = rounds;
    return spent(alpha, (double)rounds / total) - spent(alpha, (double)prev / total);
}

unsigned lat_paired_rounds_to_fit(double lo, double hi, unsigned rounds, double lim,
                                  double edge_share) {
    double c = (lo + hi) / 2, w = (hi - lo) / 2;
    if (!isfinite(c) || !isfinite(w) || !(lim > 0) || !(edge_share > 0 && edge_share <= 1) ||
        fabs(c) > edge_share * lim)
        return 0;
    double r = w / (lim - fabs(c)), need = fmax((double)rounds, rounds * r * r);
    return need < 1e6 ? (unsigned)ceil(need) : 0;
}

/* How much an interval read over `rounds` narrows in more_rounds further ones. */
static double narrowing(unsigned rounds, unsigned more_rounds) {
    return sqrt((double)rounds / ((double)rounds + more_rounds));
}

bool lat_paired_may_exclude_zero(double est, double lo, double hi, unsigned rounds,
                                 unsigned more_rounds, double est_multiple) {
    if (!isfinite(est) || !isfinite(lo) || !isfinite(hi) || rounds == 0 || est == 0 ||
        !(est_multiple >= 1 && isfinite(est_multiple)))
        return false;
    double narrow = narrowing(rounds, more_rounds);
    if (est > 0) return est_multiple * est - (est - lo) * narrow > 0;
    return est_multiple * est + (hi - est) * narrow < 0;
}

bool lat_paired_mde_may_fit(double mde, unsigned rounds, unsigned more_rounds, double lim) {
    return isfinite(mde) && isfinite(lim) && rounds > 0 && mde > lim &&
           mde * narrowing(rounds, more_rounds) <= lim;
}
