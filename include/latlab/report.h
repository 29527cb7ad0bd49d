/* report.h - latency-by-percentile SVG plots, .hgrm text reading, and one-page
 * HTML reports. */

/* Plots follow the HdrHistogram convention: x is the percentile drawn on a log
 * scale of 1/(1-p) (labels 0%, 90%, 99%, 99.9%, ...), y is latency in ns, us, ms
 * or s, whichever fits the data, on a linear or log scale.  A plot holds one or
 * more series (arrays of (percentile, value) points with a label), optional
 * horizontal SLO lines, a legend and an optional note.  Output is standalone SVG
 * with no script and no external reference; colours come from CSS (light, dark,
 * or following the viewer's prefers-color-scheme), so it reads on either page
 * theme.  No plotting library is used. */

/* A report is one self-contained HTML page (inline CSS and SVG, no network, no
 * script): a title, sections, run-conditions blocks, tables, plots, verdict
 * lines and preformatted text (flight-recorder dumps), written atomically.
 * Items appear in the order they are added.  All text passed in is plain text:
 * the library escapes it. */

/* Objects here are not thread-safe; use one from one thread at a time.  They
 * allocate through lat__alloc (alloc.h); nothing here is a hot path.  Every
 * function taking an object returns -EINVAL when it is NULL; free functions
 * accept NULL. */
#ifndef LATLAB_REPORT_H
#define LATLAB_REPORT_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct lat_hist; /* hist.h */

/* One point of a percentile distribution. */
typedef struct lat_plot_point {
    double pct;      /* percentile in percent, 0..100 (99.9 is p99.9) */
    double value_ns; /* latency at that percentile, ns, finite and >= 0 */
} lat_plot_point;

typedef enum lat_theme {
    LAT_THEME_AUTO = 0, /* light, or dark when the viewer prefers dark (CSS media query) */
    LAT_THEME_LIGHT,
    LAT_THEME_DARK,
} lat_theme;

/* ---- plots ------------------------------------------------------------------ */

typedef struct lat_plot lat_plot;

/* New empty plot, 800x500, linear y, auto theme.  title may be NULL (no
 * title).  Returns 0 and *out, or -EINVAL / -ENOMEM. */
LAT_API int lat_plot_create(const char *title, lat_plot **out);
LAT_API void lat_plot_destroy(lat_plot *p);

/* Add a series: the n points are copied.  Percentiles must be within 0..100
 * and non-decreasing, values finite and >= 0 (else -EINVAL, nothing added).
 * n == 0 is allowed: the series shows in the legend as "(no samples)" and the
 * plot carries a note.  label may be NULL ("series N").  At most
 * LAT_PLOT_MAX_SERIES series (-E2BIG beyond).  Points at 100% are drawn at the
 * right edge of the axis.  Returns 0 or a negative errno. */
#define LAT_PLOT_MAX_SERIES 16
LAT_API int lat_plot_add_series(lat_plot *p, const char *label, const lat_plot_point *pts,
                                size_t n);

/* Add a series from a histogram through its percentile iterator
 * (ticks_per_half 0 means 5, as HdrHistogram's .hgrm output).  ns_per_unit
 * converts the histogram's values to ns (1.0 when it records ns).  An empty
 * histogram adds an empty series.  The series carries a band: each point's
 * 95% confidence interval from the counts (lat_hist_cis_at_percentiles),
 * drawn translucent under the line.  Returns 0 or a negative errno. */
LAT_API int lat_plot_add_hist(lat_plot *p, const char *label, const struct lat_hist *h,
                              double ns_per_unit, unsigned ticks_per_half);
/* The same at another confidence in (0, 1); 0 adds no band. */
LAT_API int lat_plot_add_hist_ci(lat_plot *p, const char *label, const struct lat_hist *h,
                                 double ns_per_unit, unsigned ticks_per_half, double confidence);

/* Attach a band to series series_index (0-based, in order added): lo_ns[i]
 * and hi_ns[i] bound its point i (n == its point count, 0 <= lo <= hi,
 * finite); replaces an earlier band.  Drawn as a translucent area in the
 * series' colour under the lines; the y range includes it.  0, -EINVAL or
 * -ENOMEM. */
LAT_API int lat_plot_set_band(lat_plot *p, size_t series_index, const double *lo_ns,
                              const double *hi_ns, size_t n);

/* Horizontal service-level line at value_ns (> 0, finite), drawn dashed and
 * labelled ("SLO 1us" when label is NULL).  The y range always includes it.
 * At most LAT_PLOT_MAX_SLOS (-E2BIG). */
#define LAT_PLOT_MAX_SLOS 8
LAT_API int lat_plot_add_slo(lat_plot *p, const char *label, double value_ns);

/* Options.  set_size: pixels, 320..4000 x 200..4000 (else -EINVAL).
 * set_note: a line of text under the title (e.g. "closed loop: service time");
 * NULL clears it.  set_y_title: the quantity, e.g. "round trip" (the unit is
 * appended: "round trip (us)"); default "latency". */
LAT_API int lat_plot_set_log_y(lat_plot *p, bool log_y);
LAT_API int lat_plot_set_theme(lat_plot *p, lat_theme theme);
LAT_API int lat_plot_set_size(lat_plot *p, int width_px, int height_px);
LAT_API int lat_plot_set_note(lat_plot *p, const char *note);
LAT_API int lat_plot_set_y_title(lat_plot *p, const char *quantity);
/* A linear x axis from 0, titled title (with its unit: "offered rate
 * (req/s)"), in place of the percentile axis: the points' pct fields are
 * then x values (finite, >= 0, non-decreasing per series).  Call it before
 * adding a series: 0, or -EINVAL (NULL or empty title, series already
 * added) / -ENOMEM. */
LAT_API int lat_plot_set_x_linear(lat_plot *p, const char *title);

/* Number of series added so far (0 for NULL). */
LAT_API size_t lat_plot_series_count(const lat_plot *p);

/* Render as a standalone SVG document (XML declaration, own <style>).
 * write_svg writes to f (returns -EIO on a stream error); save_svg writes path
 * atomically (atomicfile.h).  A plot with no series, or only empty ones, still
 * renders: axes and a "no samples" note.  Returns 0 or a negative errno. */
LAT_API int lat_plot_write_svg(const lat_plot *p, FILE *f);
LAT_API int lat_plot_save_svg(const lat_plot *p, const char *path);

/* ---- .hgrm text (HdrHistogram percentile distribution) ---------------------- */

/* A parsed .hgrm file: the table rows as points, plus the footer's figures
 * when present (NAN / 0 when absent, e.g. in the CSV variant). */
typedef struct lat_hgrm {
    lat_plot_point *points; /* n rows, values already scaled to ns */
    size_t n;
    uint64_t total_count; /* footer "Total count", else the last row's TotalCount */
    double mean_ns, stddev_ns, max_ns;
    uint64_t *counts;   /* n rows' TotalCount column (cumulative) */
    int value_decimals; /* most decimals printed in the Value column */
} lat_hgrm;

/* The value at percentile q (0..100) as the interval log would answer it
 * (Java getValueAtPercentile, no interpolation): the first row whose
 * TotalCount reaches max(1, ceil(q/100 * total)), i.e. the slot value where
 * the count crossed it (exact when a row falls on that slot, which the
 * ticks make likely; otherwise the next row's value, never a neighbour's
 * interpolation).  NAN when there are no rows. */
LAT_API double lat_hgrm_value_at(const lat_hgrm *h, double q);
/* true when lat_hgrm_value_at(h, q) may be above the log's answer: the row
 * it picks was reported for a tick above q, so the slot that crossed the
 * count may lie before it; *lo then gets the previous row's value (the log's
 * answer is in (*lo, value]). */
LAT_API bool lat_hgrm_bracket(const lat_hgrm *h, double q, double *lo);

/* Parse .hgrm text (Java's plain layout or its CSV variant, as HistogramLogProcessor writes them).
 * ns_per_value converts the Value column to ns: 1 for ns, 1e3 for us, 1e6 for
 * ms (HistogramLogProcessor's default output unit).  On success returns 0
 * and fills *out (release with lat_hgrm_fini).  Malformed text returns
 * LAT_EFORMAT with *err_line (may be NULL) set to the 1-based line number; text
 * without any rows is valid (n == 0).  -EINVAL for NULL text/out or a
 * non-positive ns_per_value, -ENOMEM. */
LAT_API int lat_hgrm_parse(const char *text, size_t len, double ns_per_value, lat_hgrm *out,
                           size_t *err_line);
LAT_API void lat_hgrm_fini(lat_hgrm *h); /* frees points, zeroes *h; NULL is fine */
/* Read the file at path (whole, up to LAT_HLOG_MAX_FILE_BYTES; reading stops
 * at a NUL byte, which the parser then reports with its line) and parse it
 * as lat_hgrm_parse does.  Returns 0, LAT_EFORMAT with *err_line, or a
 * negative errno: the open's or read's, -EFBIG (too large), -EIO, -ENOMEM. */
LAT_API int lat_hgrm_load(const char *path, double ns_per_value, lat_hgrm *out, size_t *err_line);
/* 1 when path holds a percentile table rather than an interval log: by its
 * name (.hgrm 1, .hlog 0), else by content (an interval log has a line
 * starting "#[Histogram log" or "Tag=", or names Interval_Compressed_Histogram
 * or ",HIST" in its first 8 lines).  0 also when it cannot be opened (the
 * log reader then reports it). */
LAT_API int lat_hgrm_is_table(const char *path);

/* ---- HTML report -------------------------------------------------------------- */

typedef struct lat_report lat_report;

typedef enum lat_verdict {
    LAT_VERDICT_INFO = 0,
    LAT_VERDICT_PASS,
    LAT_VERDICT_WARN,
    LAT_VERDICT_FAIL,
} lat_verdict;

/* New empty report titled title (the <title> and the <h1>; not NULL).
 * Returns 0 and *out, or -EINVAL / -ENOMEM. */
LAT_API int lat_report_create(const char *title, lat_report **out);
LAT_API void lat_report_destroy(lat_report *r);
/* Page theme (default LAT_THEME_AUTO). */
LAT_API int lat_report_set_theme(lat_report *r, lat_theme theme);

/* A section heading (<h2>). */
LAT_API int lat_report_section(lat_report *r, const char *heading);
/* A paragraph of text. */
LAT_API int lat_report_text(lat_report *r, const char *text);
/* A key/value line of a run-conditions block; consecutive calls form one
 * block ("cpu model: AMD EPYC", "governor: performance", ...). */
LAT_API int lat_report_kv(lat_report *r, const char *key, const char *value);

/* A table: begin with a caption (may be NULL) and ncols header cells (1..64),
 * then add rows of exactly ncols cells (NULL cells print empty).  Cells that
 * look numeric are right-aligned.  The table ends at the next non-row item.
 * table_row without an open table returns -EINVAL. */
LAT_API int lat_report_table_begin(lat_report *r, const char *caption, size_t ncols,
                                   const char *const *header);
LAT_API int lat_report_table_row(lat_report *r, const char *const *cells);

/* A plot, rendered now as inline SVG (later changes to p do not show).  The
 * page's theme applies; the plot's own theme setting is ignored here. */
LAT_API int lat_report_plot(lat_report *r, const lat_plot *p);

/* A standalone SVG document made by latlab (e.g. lat_flame_render_svg), placed
 * inline as a figure; its XML declaration is dropped.  The document is NOT
 * escaped: pass only trusted SVG whose classes and <style> do not clash with
 * the page's (latlab's own documents prefix theirs).  caption may be NULL.
 * -EINVAL when svg does not start with "<svg" or "<?xml". */
LAT_API int lat_report_svg(lat_report *r, const char *caption, const char *svg, size_t len);

/* A verdict line with a PASS/WARN/FAIL/INFO badge. */
LAT_API int lat_report_verdict(lat_report *r, lat_verdict kind, const char *text);

/* Preformatted text (monospace, kept verbatim, scrolls sideways when wide),
 * e.g. a flight-recorder dump; caption may be NULL. */
LAT_API int lat_report_pre(lat_report *r, const char *caption, const char *text);

/* Write the page to path atomically.  Errors from earlier calls (e.g. -ENOMEM)
 * are remembered and returned here as well.  Returns 0 or a negative errno. */
LAT_API int lat_report_write(const lat_report *r, const char *path);

#endif /* LATLAB_REPORT_H */
