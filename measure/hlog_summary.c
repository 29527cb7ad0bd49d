/* hlog_summary.c - the tags, summary rows and percentile JSON of an interval
 * log as `latlab hist` prints them (see hlog_summary.h). */
#include "latlab/hlog_summary.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#include "latlab/budget.h"
#include "latlab/error.h"
#include "latlab/hlog_processor.h"

#include "error_internal.h"
#include "latlab/json.h"

/* One tag's summary row, its confidence intervals, and its JSON object. */
static void summary_line(FILE *f, const lat_hlog_tag *a, const lat_hist *h, double scale,
                         double confidence, json_t *arr) {
    static const double ps[] = {50, 90, 99, 99.9, 99.99};
    static const char *const pnames[] = {"p50", "p90", "p99", "p99.9", "p99.99"};
    static const char *const jkeys[] = {"p50", "p90", "p99", "p99_9", "p99_99"};
    const char *name = a->tag[0] ? a->tag : "(untagged)";
    lat_hist_ci v[5];
    lat_hist_cis_at_percentiles(h, ps, confidence, v, 5);
    fprintf(f, "%-16s %12" PRId64 " %12.3f", name, lat_hist_total(h),
            (double)lat_hist_min(h) / scale);
    for (int i = 0; i < 5; i++)
        fprintf(f, " %12.3f", (double)v[i].value / scale);
    fprintf(f, " %12.3f %14.3f\n", (double)lat_hist_max(h) / scale, lat_hist_mean(h) / scale);
    fprintf(f, "  %g%% CI", 100 * confidence);
    for (int i = 0; i < 5; i++) {
        char b[160];
        lat_hist_ci_format(&v[i], scale, 3, b, sizeof b);
        fprintf(f, " %s %s", pnames[i], b);
    }
    fprintf(f, "\n");
    if (arr) {
        json_t *o = json_pack("{s:s?, s:i, s:I, s:I}", "tag", a->tag[0] ? a->tag : NULL,
                              "intervals", a->intervals, "count", (json_int_t)lat_hist_total(h),
                              "min", (json_int_t)lat_hist_min(h));
        for (int i = 0; i < 5; i++)
            lat_json_set_ci(o, jkeys[i], "", &v[i]);
        json_object_set_new(o, "max", json_integer(lat_hist_max(h)));
        json_object_set_new(o, "mean", json_real(lat_hist_mean(h)));
        json_object_set_new(o, "stddev", json_real(lat_hist_stddev(h)));
        json_array_append_new(arr, o);
    }
}

void lat_hlog_summary_tags(FILE *f, const lat_hlog_tag *a, int n, json_t *arr) {
    for (int k = 0; k < n; k++) {
        fprintf(f, "%s\n", a[k].tag[0] ? a[k].tag : "(untagged)");
        if (arr)
            json_array_append_new(arr, json_pack("{s:s?, s:i, s:I}", "tag",
                                                 a[k].tag[0] ? a[k].tag : NULL, "intervals",
                                                 a[k].intervals, "count", (json_int_t)a[k].count));
    }
}

int lat_hlog_summary_print(FILE *f, const lat_hlog_tag *a, int n, double scale, double confidence,
                           json_t *arr) {
    fprintf(f, "%-16s %12s %12s %12s %12s %12s %12s %12s %12s %14s\n", "tag", "count", "min", "p50",
            "p90", "p99", "p99.9", "p99.99", "max", "mean");
    for (int k = 0; k < n; k++) {
        lat_hist h;
        if (lat_hlog_tag_hist(&a[k], &h) < 0) return -ENOMEM;
        summary_line(f, &a[k], &h, scale, confidence, arr);
        lat_hist_fini(&h);
    }
    if (n > 0)
        fprintf(f,
                "histogram resolution %.3g%% (%d sig figs); intervals at %g%% confidence from the "
                "counts (order statistics)\n",
                100 * lat_budget_hist_resolution(a[0].sig_figs), a[0].sig_figs, 100 * confidence);
    return 0;
}

json_t *lat_hlog_summary_json(const char *file, const char *tag, const lat_hist *total,
                              double scale, double confidence) {
    static const double jps[] = {50, 90, 99, 99.9, 99.99, 99.999, 100};
    json_t *pa = lat_json_percentiles(total, jps, 7, confidence, scale);
    json_t *j =
        json_pack("{s:s, s:s?, s:f, s:I, s:I, s:I, s:f, s:f, s:o}", "file", file, "tag", tag,
                  "scale", scale, "count", (json_int_t)lat_hist_total(total), "min",
                  (json_int_t)lat_hist_min(total), "max", (json_int_t)lat_hist_max(total), "mean",
                  lat_hist_mean(total), "stddev", lat_hist_stddev(total), "percentiles", pa);
    if (j) json_object_set_new(j, "confidence", json_real(confidence));
    return j;
}

/* The reader's error at path:line. */
static int read_err(const lat_hlog_reader *r, const char *path, int rc, char *err, size_t n) {
    const char *why = lat_hlog_reader_reason(r);
    return lat__errf(err, n, rc, "%s:%d: %s", path, lat_hlog_reader_line(r),
                     why && *why ? why : lat_strerror(rc));
}

/* Merging the interval at path:line failed with rc. */
static int merge_err(const char *path, int line, int rc, char *err, size_t n) {
    if (rc == -EOVERFLOW)
        return lat__errf(err, n, rc,
                         "%s:%d: the merged total count would pass 2^63-1 (%" PRId64 ")", path,
                         line, INT64_MAX);
    return lat__errf(err, n, rc, "%s:%d: %s", path, line, lat_strerror(rc));
}

int lat_hlog_summary_reader_create(const char *path, lat_hlog_reader **r, char *err, size_t n) {
    int rc = lat_hlog_reader_create(path, r);
    if (rc == -EFBIG)
        return lat__errf(err, n, rc, "%s: larger than the %zu MiB limit for an interval log", path,
                         (size_t)(LAT_HLOG_MAX_FILE_BYTES >> 20));
    if (rc < 0) return lat__errf(err, n, rc, "%s: %s", path, lat_strerror(rc));
    lat_hlog_reader_fit(*r, true); /* every merge here goes through lat_hist_add_resize */
    return 0;
}

int lat_hlog_summary_gather(const char *path, lat_hlog_tags *t, char *err, size_t n) {
    lat_hlog_reader *r = NULL;
    int rc = lat_hlog_summary_reader_create(path, &r, err, n);
    if (rc) return rc;
    lat_hlog_interval *iv;
    while ((rc = lat_hlog_next(r, &iv)) == 1)
        if ((rc = lat_hlog_tags_add(t, iv)) < 0) {
            rc = rc == -EOVERFLOW ? merge_err(path, iv->line, rc, err, n)
                                  : lat__errf(err, n, rc, "out of memory");
            goto done;
        }
    if (rc < 0)
        rc = read_err(r, path, rc, err, n);
    else if (t->n == 0)
        rc = lat__errf(err, n, -ENODATA, "%s: no intervals", path);
done:
    lat_hlog_reader_destroy(r);
    return rc;
}

static bool selected(const lat_hlog_select *s, const lat_hlog_interval *iv) {
    if (s->tag ? strcmp(iv->tag, s->tag) != 0 : iv->tag[0] != '\0') return false;
    return iv->offset_s >= s->start && iv->offset_s <= s->end;
}

int lat_hlog_summary_total(lat_hlog_reader *r, const char *path, const lat_hlog_select *s, FILE *f,
                           bool csv, double scale, lat_hist *total, char *err, size_t errlen) {
    bool header_done = false, have_total = false;
    lat_hlog_interval *iv;
    int rc;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        if (!selected(s, iv)) continue;
        if ((rc = lat_hlog_total_add(total, &have_total, iv)) < 0) {
            if (!have_total) return lat__errf(err, errlen, rc, "out of memory");
            return merge_err(path, iv->line, rc, err, errlen);
        }
        if (!f) continue;
        if (!header_done) {
            lat_hlog_processor_range(f, "Interval", s->start, s->end,
                                     lat_hlog_reader_start_time(r));
            lat_hlog_processor_legend(f, csv);
            header_done = true;
        }
        lat_hlog_processor_line(f, iv, total, scale, csv);
    }
    if (rc < 0) return read_err(r, path, rc, err, errlen);
    if (!have_total)
        return lat__errf(err, errlen, -ENODATA, "%s: no intervals%s%s%s in the selected range",
                         path, s->tag ? " tagged '" : " without a tag", s->tag ? s->tag : "",
                         s->tag ? "'" : "");
    return 0;
}
