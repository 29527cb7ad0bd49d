/* budget.c - the per-run error budget (see budget.h): timer granularity and
 * stamp cost measured on the spot, calibration error and histogram
 * resolution from what the run used. */
#include "latlab/budget.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/stats.h"

#define PAIRS 1001

/* The most common value of d[0..n) (sorted here); ties go to the smaller. */
static uint64_t mode_of(uint64_t *d, size_t n) {
    lat_stats_sort_u64(d, n);
    uint64_t best = d[0];
    size_t best_run = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && d[j] == d[i])
            j++;
        if (j - i > best_run) {
            best_run = j - i;
            best = d[i];
        }
        i = j;
    }
    return best;
}

/* The same step, and the median back-to-back pair, of CLOCK_MONOTONIC. */
static void measure_os_clock(double *step_ns, double *pair_ns) {
    uint64_t d[PAIRS], s[PAIRS];
    for (unsigned i = 0; i < PAIRS; i++) {
        uint64_t a = lat_mono_ns(), b = lat_mono_ns();
        d[i] = b - a;
        while (b == a)
            b = lat_mono_ns();
        s[i] = b - a;
    }
    *pair_ns = (double)lat_stats_median_high_u64(d, PAIRS);
    *step_ns = (double)mode_of(s, PAIRS);
}

/* Median back-to-back pair of fenced counter reads, in ticks. */
static uint64_t fenced_pair_cycles(void) {
    uint64_t d[PAIRS];
    for (unsigned i = 0; i < PAIRS; i++) {
        uint64_t a = lat_cycles_fenced();
        uint64_t b = lat_cycles_fenced();
        d[i] = b - a;
    }
    return lat_stats_median_high_u64(d, PAIRS);
}

double lat_budget_hist_resolution(int sig_figs) {
    if (sig_figs < 0 || sig_figs > 5) return NAN;
    double largest = 2 * pow(10, sig_figs);
    double sub_bucket_count = pow(2, ceil(log2(largest)));
    return 2.0 / sub_bucket_count;
}

int lat_budget_measure(lat_budget *b, const lat_clock_cal *cal, double stamp_ns,
                       unsigned stamps_per_figure, int sig_figs) {
    if (!b || sig_figs < 0 || sig_figs > 5) return -EINVAL;
    memset(b, 0, sizeof *b);
    b->stamps_per_figure = stamps_per_figure;
    b->sig_figs = sig_figs;
    b->hist_resolution = lat_budget_hist_resolution(sig_figs);
    b->co_share = NAN;
    if (cal && cal->cycles_per_ns > 0) {
        b->timer = "tsc";
        b->granularity_ns = (double)lat_clock_granularity_cycles(PAIRS) / cal->cycles_per_ns;
        b->stamp_ns = stamp_ns > 0 ? stamp_ns : (double)fenced_pair_cycles() / cal->cycles_per_ns;
        b->calibration_ppm = cal->error_ppm;
    } else {
        double step, pair;
        measure_os_clock(&step, &pair);
        b->timer = "clock_monotonic";
        b->granularity_ns = step;
        b->stamp_ns = stamp_ns > 0 ? stamp_ns : pair;
        b->calibration_ppm = NAN;
    }
    return 0;
}

void lat_budget_set_co(lat_budget *b, int64_t recorded, int64_t total) {
    if (!b) return;
    b->co_share = total > 0 && total >= recorded ? (double)(total - recorded) / (double)total : NAN;
}

int lat_budget_format(const lat_budget *b, char *buf, size_t len) {
    char cal[48], co[64] = "";
    if (isnan(b->calibration_ppm))
        snprintf(cal, sizeof cal, "n/a (OS clock)");
    else
        snprintf(cal, sizeof cal, "%.2f ppm", b->calibration_ppm);
    if (!isnan(b->co_share))
        snprintf(co, sizeof co, "; CO correction synthesised %.1f%% of samples",
                 100.0 * b->co_share);
    return snprintf(buf, len,
                    "error budget: timer %s step %.1f ns; stamp %.1f ns x %u per figure; "
                    "calibration %s; histogram resolution %.3g%% (%d sig figs)%s",
                    b->timer ? b->timer : "?", b->granularity_ns, b->stamp_ns, b->stamps_per_figure,
                    cal, 100.0 * b->hist_resolution, b->sig_figs, co);
}

bool lat_budget_below_granularity(const lat_budget *b, double before_ns, double after_ns) {
    return fabs(after_ns - before_ns) < b->granularity_ns;
}

int lat_budget_change(const lat_budget *b, double before_ns, double after_ns, char *buf,
                      size_t len) {
    if (lat_budget_below_granularity(b, before_ns, after_ns))
        return snprintf(buf, len, "below granularity (%.0f ns < %.1f ns step)",
                        fabs(after_ns - before_ns), b->granularity_ns);
    if (!(before_ns > 0)) return snprintf(buf, len, "n/a");
    return snprintf(buf, len, "%.2fx", after_ns / before_ns);
}
