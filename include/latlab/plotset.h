/* plotset.h - the histograms of `latlab plot` gathered into one plot: each
 * input (an interval log, one series per tag, or a .hgrm percentile table)
 * becomes a series of a lat_plot (report.h) and a summary row (count, p50,
 * p90, p99, p99.9, p99.99, max), which are printed as a table, put on an
 * HTML page under the plot, or returned as JSON.
 *
 * Errors are negative errno with the message (file and line named) in the
 * set's err; warnings (a table too coarse to trust, an empty input) go to
 * the caller's warn callback.  Nothing here prints except into a FILE* the
 * caller passes.  Experimental: may change.  One set per thread. */
#ifndef LATLAB_PLOTSET_H
#define LATLAB_PLOTSET_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/plotset.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hlog.h"
#include "latlab/report.h"

struct json_t;

/* One series' summary (NaN where the series is empty). */
typedef struct lat_plotset_series {
    char *label;      /* owned by the set */
    const char *file; /* as given to lat_plotset_add */
    char tag[LAT_HLOG_TAG_MAX];
    uint64_t count;
    double pct_ns[5]; /* p50 p90 p99 p99.9 p99.99 */
    double max_ns;
} lat_plotset_series;

/* Set plot, unit_ns (what a recorded value is, in ns), ticks (percentile
 * ticks per half distance to 100%), ci (95% bands on log series), tag (only
 * intervals tagged so; NULL: every tag) and warn before loading; the rest is
 * the set's. */
typedef struct lat_plotset {
    lat_plot *plot;
    double unit_ns;
    unsigned ticks;
    bool ci;
    const char *tag;
    void (*warn)(void *ud, const char *msg); /* NULL: warnings dropped */
    void *ud;
    lat_plotset_series s[LAT_PLOT_MAX_SERIES];
    size_t ns;
    char err[1024]; /* the last error's message */
} lat_plotset;

/* Add path (a .hgrm table when lat_hgrm_is_table says so, else an interval
 * log) under label (copied; a log with several tags gives LABEL:TAG).  0 or
 * a negative errno with the message in c->err. */
int lat_plotset_add(lat_plotset *c, const char *path, const char *label);

/* The legend label of paths[i] among paths[0..n): its file name without the
 * extension (.hlog, .hgrm, .csv), or, when another path's is the same, the
 * shortest path suffix of whole components that tells the two apart
 * ("a/work.hlog", "b/work.hlog": "a/work", "b/work"); two that differ only
 * by the extension keep it.  A new string, or NULL when out of memory. */
char *lat_plotset_label(char *const *paths, size_t n, size_t i);

/* The default title into buf (size n > 0), returned: the file names of
 * paths[0..npaths), and " (tag T)" with a tag. */
char *lat_plotset_title(char *buf, size_t n, char *const *paths, size_t npaths, const char *tag);

/* The summary table (one row per series) into f. */
void lat_plotset_print_table(const lat_plotset *c, FILE *f);

/* A page with the inputs, the SLO lines (ns), the axis, the summary table and
 * the plot, written atomically to out.  0 or a negative errno. */
int lat_plotset_write_html(const lat_plotset *c, const char *out, const char *title,
                           const uint64_t *slos, size_t nslo, bool log_y, lat_theme theme);

/* {"output", "series": [...], "slo_ns": [...]}; NULL when out of memory. */
struct json_t *lat_plotset_json(const lat_plotset *c, const char *out, const uint64_t *slos,
                                size_t nslo);

/* Free the labels (the plot is the caller's). */
void lat_plotset_fini(lat_plotset *c);

#endif
