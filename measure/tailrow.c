/* tailrow.c - a stage's live tail for `latlab top` (see tailrow.h). */
#include "latlab/tailrow.h"

#include <errno.h>
#include <inttypes.h>

int lat_tailrow_take(lat_tailrow *r, const lat_hlog_interval *iv) {
    const lat_hist *h = &iv->hist;
    if (!r->cum.counts) {
        if (lat_hist_init(&r->cum, h->lowest, h->highest, h->sig_figs) != 0) return -ENOMEM;
    }
    /* Intervals are decoded fitted to their values: a later one may reach
     * past the first's range, so the cumulative histogram grows. */
    int rc = lat_hist_add_resize(&r->cum, h);
    if (rc < 0) return rc;
    static const double ps[] = {50, 99, 99.9};
    int64_t v[3];
    lat_hist_values_at_percentiles(h, ps, v, 3);
    r->have = true;
    r->count = lat_hist_total(h);
    r->p50 = v[0];
    r->p99 = v[1];
    r->p999 = v[2];
    r->max = lat_hist_max(h);
    r->cum_p999 = lat_hist_value_at_percentile(&r->cum, 99.9);
    r->end_s = iv->start_s + iv->length_s;
    r->spark_t[r->spark_head] = r->end_s;
    r->spark_v[r->spark_head] = r->p999;
    r->spark_head = (r->spark_head + 1) % LAT_TAILROW_SPARK_N;
    if (r->spark_n < LAT_TAILROW_SPARK_N) r->spark_n++;
    return 0;
}

/* The sparkline: the last `width` p99.9 values of the last minute, scaled
 * between their min and max. */
void lat_tailrow_spark(const lat_tailrow *r, char *out, size_t cap, unsigned width) {
    static const char *const bars[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
    out[0] = 0;
    if (!r->spark_n) return;
    unsigned first = (r->spark_head + LAT_TAILROW_SPARK_N - r->spark_n) % LAT_TAILROW_SPARK_N;
    int64_t lo = INT64_MAX, hi = 0;
    unsigned idx[LAT_TAILROW_SPARK_N], n = 0;
    for (unsigned i = 0; i < r->spark_n; i++) {
        unsigned j = (first + i) % LAT_TAILROW_SPARK_N;
        if (r->spark_t[j] > r->end_s - LAT_TAILROW_SPARK_SECONDS) idx[n++] = j;
    }
    for (unsigned i = n > width ? n - width : 0; i < n; i++) {
        int64_t v = r->spark_v[idx[i]];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    size_t len = 0;
    for (unsigned i = n > width ? n - width : 0; i < n && len + 4 < cap; i++) {
        int64_t v = r->spark_v[idx[i]];
        int level = hi > lo ? (int)((v - lo) * 7 / (hi - lo)) : 0;
        len += (size_t)snprintf(out + len, cap - len, "%s", bars[level]);
    }
}

int lat_tailrow_print(const lat_tailrow *r, double k, FILE *f) {
    errno = 0; /* a failed write's cause (ENOSPC, not EIO) */
    int n = fprintf(
        f, "%.3f %s count=%" PRId64 " p50=%.3f p99=%.3f p99.9=%.3f max=%.3f cum_p99.9=%.3f\n",
        r->end_s, r->name, r->count, (double)r->p50 / k, (double)r->p99 / k, (double)r->p999 / k,
        (double)r->max / k, (double)r->cum_p999 / k);
    return n < 0 ? (errno > 0 ? -errno : -EIO) : 0;
}

void lat_tailrow_fini(lat_tailrow *r) {
    lat_hist_fini(&r->cum);
}
