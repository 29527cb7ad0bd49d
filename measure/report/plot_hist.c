/* plot_hist.c - a plot series from an HdrHistogram (see report.h).
 *
 * Walks the histogram's percentile iterator exactly as .hgrm output does
 * (Java's outputPercentileDistribution): one point per tick level that holds
 * counts, reported at the highest equivalent value, then the 100% step, so a
 * plot from a histogram and one from its .hgrm file are the same picture;
 * plus, by default, each point's 95% confidence interval as a band. */
#include "report_int.h"

#include "alloc_internal.h"
#include "latlab/hist.h"

#include <errno.h>
#include <math.h>

int lat_plot_add_hist(lat_plot *p, const char *label, const struct lat_hist *h, double ns_per_unit,
                      unsigned ticks_per_half) {
    return lat_plot_add_hist_ci(p, label, h, ns_per_unit, ticks_per_half, LAT_HIST_CI_DEFAULT);
}

/* The band: each point's interval (batches of LAT_HIST_MAX_BATCH), widened
 * to hold the point (the iterator and value_at_percentile can pick
 * neighbouring slots at a tick's edge). */
static int add_band(lat_plot *p, const lat_hist *h, const lat_plot_point *pts, size_t n,
                    double ns_per_unit, double confidence) {
    double *lo = lat__calloc(n, sizeof *lo), *hi = lat__calloc(n, sizeof *hi);
    int rc = -ENOMEM;
    if (!lo || !hi) goto out;
    for (size_t i = 0; i < n; i += LAT_HIST_MAX_BATCH) {
        size_t m = n - i < LAT_HIST_MAX_BATCH ? n - i : LAT_HIST_MAX_BATCH;
        double ps[LAT_HIST_MAX_BATCH];
        lat_hist_ci ci[LAT_HIST_MAX_BATCH];
        for (size_t k = 0; k < m; k++)
            ps[k] = pts[i + k].pct;
        if ((rc = lat_hist_cis_at_percentiles(h, ps, confidence, ci, m))) goto out;
        for (size_t k = 0; k < m; k++) {
            double v = pts[i + k].value_ns;
            lo[i + k] = fmin(v, (double)ci[k].lo * ns_per_unit);
            hi[i + k] = fmax(v, (double)ci[k].hi * ns_per_unit);
        }
    }
    rc = lat_plot_set_band(p, lat_plot_series_count(p) - 1, lo, hi, n);
out:
    lat__free(lo);
    lat__free(hi);
    return rc;
}

int lat_plot_add_hist_ci(lat_plot *p, const char *label, const struct lat_hist *h,
                         double ns_per_unit, unsigned ticks_per_half, double confidence) {
    if (!(confidence >= 0 && confidence < 1)) return -EINVAL;
    if (!p || !h || !(ns_per_unit > 0) || !isfinite(ns_per_unit)) return -EINVAL;
    if (lat_plot_series_count(p) >= LAT_PLOT_MAX_SERIES) return -E2BIG;
    if (lat_hist_total(h) <= 0) return lat_plot_add_series(p, label, NULL, 0);
    int tph = ticks_per_half ? (int)(ticks_per_half > 1000 ? 1000 : ticks_per_half) : 5;

    lat_hist_iter it;
    size_t n = 0;
    lat_hist_iter_percentile(&it, h, tph);
    while (lat_hist_iter_next(&it))
        n++;
    lat_plot_point *pts = lat__calloc(n ? n : 1, sizeof *pts);
    if (!pts) return -ENOMEM;
    size_t i = 0;
    lat_hist_iter_percentile(&it, h, tph);
    while (i < n && lat_hist_iter_next(&it)) {
        double pct = it.percentile_level;
        if (pct > 100) pct = 100;
        if (i && pct < pts[i - 1].pct) pct = pts[i - 1].pct;
        pts[i].pct = pct;
        pts[i].value_ns = (double)lat_hist_highest_equivalent(h, it.value) * ns_per_unit;
        i++;
    }
    int rc = lat_plot_add_series(p, label, pts, i);
    if (rc == 0 && confidence > 0 && i > 1) rc = add_band(p, h, pts, i, ns_per_unit, confidence);
    lat__free(pts);
    return rc;
}
