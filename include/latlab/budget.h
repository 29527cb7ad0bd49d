/* budget.h - the instrument's own error budget for one run: what limits the
 * nanoseconds a table prints.
 *
 * Computed once per run (measuring the timer takes ~0.1 ms) and printed with
 * every table that reports ns:
 *   - the timer's granularity, measured as the most common non-zero step
 *     between two back-to-back reads (the smallest step misleads on this VM,
 *     whose counter moves ~26 ticks at a time with rare 1-tick steps);
 *   - the cost of one stamp, and how many stamps each figure includes;
 *   - the calibration's error in ppm;
 *   - the histogram's relative resolution (from its significant figures);
 *   - where coordinated-omission correction was applied, the share of samples
 *     it synthesised. */

/* lat_budget_change() refuses to print a ratio for a change smaller than the
 * granularity.
 *
 * Core floor: libc only, no JSON (measure/json.c has lat_budget_json).  Not a
 * hot path; nothing allocates; thread-safe (no shared state). */
#ifndef LATLAB_BUDGET_H
#define LATLAB_BUDGET_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/clock.h"

/* The most one stamp may cost of the figure it stamps (1%): past it the
 * figure holds the instrument's own cost (`latlab pipeline` warns). */
#define LAT_BUDGET_STAMP_SHARE 0.01

typedef struct lat_budget {
    const char *timer;          /* "tsc" (cycle counter) or "clock_monotonic" */
    double granularity_ns;      /* most common non-zero step between two reads, ns */
    double stamp_ns;            /* cost of one stamp (median back-to-back pair), ns */
    unsigned stamps_per_figure; /* stamps behind each recorded figure (a duration: 2) */
    double calibration_ppm;     /* calibration error; NAN where the OS clock is used */
    int sig_figs;               /* the histogram's significant figures */
    double hist_resolution;     /* largest relative slot width (0.00098 for 3 figures) */
    double co_share;            /* synthesised / total after CO correction; NAN when none */
} lat_budget;

/* Largest relative width of a histogram slot for sig_figs (0..5) figures:
 * 2 / sub_bucket_count (values above the first bucket).  NAN when out of range. */
LAT_API double lat_budget_hist_resolution(int sig_figs);

/* Measure the timer and fill b.  cal: the counter's calibration (its reads
 * are stamped with lat_cycles_fenced), or NULL when figures come from
 * CLOCK_MONOTONIC.  stamp_ns > 0 uses a stamp cost the caller measured
 * already, else it is measured here.  co_share starts as NAN.  Returns 0 or
 * -EINVAL (NULL b, sig_figs outside 0..5). */
LAT_API int lat_budget_measure(lat_budget *b, const lat_clock_cal *cal, double stamp_ns,
                       unsigned stamps_per_figure, int sig_figs);

/* Record that CO correction turned `recorded` samples into `total`. */
LAT_API void lat_budget_set_co(lat_budget *b, int64_t recorded, int64_t total);

/* One line, no newline: "error budget: timer tsc step 10.0 ns; stamp 12.5 ns
 * x 2 per figure; calibration 0.21 ppm; histogram resolution 0.098% (3 sig
 * figs); CO correction synthesised 45.0% of samples".  Returns what snprintf
 * returns. */
LAT_API int lat_budget_format(const lat_budget *b, char *buf, size_t len);

/* True when |after - before| is below the timer's granularity. */
LAT_API bool lat_budget_below_granularity(const lat_budget *b, double before_ns, double after_ns);

/* A change from before to after in words: "1.23x" (after / before), or
 * "below granularity (3 ns < 10.0 ns step)" when the difference is smaller
 * than the granularity.  Returns what snprintf returns. */
LAT_API int lat_budget_change(const lat_budget *b, double before_ns, double after_ns, char *buf,
                      size_t len);

#endif /* LATLAB_BUDGET_H */
