/* hlog_summary.h - what `latlab hist` prints about an interval log: the list
 * of its tags, one summary row per tag (count, min, p50 .. p99.99, max,
 * mean) with a line of confidence intervals from the counts, and the JSON of
 * a percentile table.  Writes only to the FILE it is given and into the JSON
 * array the caller passes (NULL: none).
 *
 * Experimental: may change.  Not hot; thread-safe on distinct streams. */
#ifndef LATLAB_HLOG_SUMMARY_H
#define LATLAB_HLOG_SUMMARY_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/hlog_summary.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdbool.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/hlog_merge.h"

struct json_t;

/* One line per tag of a[0..n) ("(untagged)" for none); with arr, an object
 * per tag (tag, intervals, count) appended to it. */
void lat_hlog_summary_tags(FILE *f, const lat_hlog_tag *a, int n, struct json_t *arr);

/* The header, one row and one confidence line per tag (values divided by
 * scale > 0; confidence 0.5..0.9999), and the resolution line; with arr, an
 * object per tag.  a must hold merged slots (lat_hlog_tags_init(.., true)).
 * 0 or -ENOMEM. */
int lat_hlog_summary_print(FILE *f, const lat_hlog_tag *a, int n, double scale, double confidence,
                           struct json_t *arr);

/* A merged percentile table as JSON: file, tag (NULL: none), scale, count,
 * min, max, mean, stddev, the percentiles 50 .. 100 with their confidence
 * intervals, and confidence.  NULL when out of memory. */
struct json_t *lat_hlog_summary_json(const char *file, const char *tag, const lat_hist *total,
                                     double scale, double confidence);

/* Open the log at path for a summary (fitted geometry: merges resize).  0,
 * or a negative errno with the message in err (-EFBIG: over the size limit). */
int lat_hlog_summary_reader_create(const char *path, lat_hlog_reader **r, char *err, size_t n);

/* Every interval of the log at path into t (lat_hlog_tags_init'ed): its tags
 * in order of first appearance, with interval and value counts and merged
 * slots when t merges.  0, or a negative errno with the message in err (the
 * file and line; -ENODATA: no intervals). */
int lat_hlog_summary_gather(const char *path, lat_hlog_tags *t, char *err, size_t n);

/* Which intervals: tagged tag (NULL: untagged ones), starting between start
 * and end seconds after the log's start (inclusive). */
typedef struct lat_hlog_select {
    const char *tag;
    double start, end;
} lat_hlog_select;

/* The selected intervals of r merged into *total (zeroed storage; made by
 * the first one; lat_hist_fini it on an error too); with f, the per-interval
 * legend and lines as HistogramLogProcessor prints them (values divided by
 * scale, plain or csv).  0, or a negative errno with the message in err (the
 * file and line, or -ENODATA: nothing selected). */
int lat_hlog_summary_total(lat_hlog_reader *r, const char *path, const lat_hlog_select *s, FILE *f,
                           bool csv, double scale, lat_hist *total, char *err, size_t errlen);

#endif
