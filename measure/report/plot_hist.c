/* plot_hist.c - a plot series from an HdrHistogram (see report.h).
 *
 * Walks the histogram's percentile iterator exactly as .hgrm output does
 * (Java's outputPercentileDistribution): one point per tick level that holds
 * counts, reported at the highest equivalent value, then the 100% step, so a
 * plot from a histogram and one from its .hgrm file are the same picture. */
#include "report_int.h"

#include "alloc_internal.h"
#include "latlab/hist.h"

#include <errno.h>
#include <math.h>

int lat_plot_add_hist(lat_plot *p, const char *label, const struct lat_hist *h, double ns_per_unit,
                      unsigned ticks_per_half) {
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
    lat__free(pts);
    return rc;
}
