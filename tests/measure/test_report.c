/* test_report.c - the report component: SVG percentile plots (structure,
 * ordering, axis labels from the data, empty and one-value inputs), the .hgrm
 * reader (plain, CSV, footer, errors with line numbers), the HTML page
 * builder (escaping, tables, plots, verdicts) and allocation-failure paths.
 * When xmllint is installed every SVG written here is also checked for
 * well-formed XML. */
#include "lat_test.h"

#include "latlab/alloc.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------------------- */

static char *render(const lat_plot *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(lat_plot_write_svg(p, f), 0);
    fclose(f);
    return buf;
}

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle))
        n++;
    return n;
}

static bool have_xmllint(void) {
    return system("command -v xmllint >/dev/null 2>&1") == 0;
}

/* Write svg to a file and run xmllint --noout on it (when installed). */
static void assert_xml(const char *svg) {
    if (!have_xmllint()) return;
    assert_int_equal(lat_test_xml_check(svg), 1);
}

/* Parse the d attribute of the i-th series path into xs/ys; returns the count. */
static size_t path_points(const char *svg, int which, double *xs, double *ys, size_t cap) {
    const char *s = svg;
    for (int i = 0; i <= which; i++) {
        s = strstr(s, "<path class=\"lat-series");
        assert_non_null(s);
        s++;
    }
    s = strstr(s, " d=\"");
    assert_non_null(s);
    s += 4;
    size_t n = 0;
    while (*s != '"') {
        assert_true(*s == 'M' || *s == 'L' || *s == ' ');
        while (*s == 'M' || *s == 'L' || *s == ' ')
            s++;
        if (*s == '"') break;
        char *e;
        double x = strtod(s, &e);
        assert_true(*e == ',');
        double y = strtod(e + 1, &e);
        assert_true(n < cap);
        xs[n] = x;
        ys[n] = y;
        n++;
        s = e;
    }
    return n;
}

/* The texts of all <text class="cls"> elements, joined with '|'. */
static void texts_of(const char *svg, const char *cls, char *out, size_t cap) {
    char key[64];
    snprintf(key, sizeof key, "<text class=\"%s\"", cls);
    out[0] = 0;
    for (const char *s = svg; (s = strstr(s, key)); s++) {
        const char *b = strchr(s, '>') + 1, *e = strstr(b, "</text>");
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%.*s", used ? "|" : "", (int)(e - b), b);
    }
}

/* A smooth tail: n points up to 1/(1-p) = 10^decades, then the max. */
static size_t make_tail(lat_plot_point *pts, int decades, double base_ns, double max_ns) {
    size_t n = 0;
    for (int i = 0; i <= decades * 4; i++) {
        double t = i / 4.0;
        pts[n].pct = 100 * (1 - pow(10, -t));
        pts[n].value_ns = base_ns * (1 + t * t / 4);
        n++;
    }
    pts[n].pct = 100;
    pts[n].value_ns = max_ns;
    return n + 1;
}

/* ---- plots --------------------------------------------------------------------------- */

static void test_plot_two_series(void **state) {
    (void)state;
    lat_plot *p;
    assert_int_equal(lat_plot_create("e2e <baseline> & alloc", &p), 0);
    lat_plot_point a[64], b[64];
    size_t na = make_tail(a, 3, 300, 4000), nb = make_tail(b, 3, 450, 8000);
    assert_int_equal(lat_plot_add_series(p, "baseline", a, na), 0);
    assert_int_equal(lat_plot_add_series(p, "alloc", b, nb), 0);
    assert_int_equal(lat_plot_series_count(p), 2);
    char *svg = render(p);
    assert_xml(svg);
    /* one path per series, points in percentile order, values rising */
    assert_int_equal(count_of(svg, "<path "), 2);
    double xs[128], ys[128];
    for (int s = 0; s < 2; s++) {
        size_t n = path_points(svg, s, xs, ys, 128);
        assert_int_equal(n, s ? nb : na);
        for (size_t i = 1; i < n; i++) {
            assert_true(xs[i] >= xs[i - 1]);
            assert_true(ys[i] <= ys[i - 1]); /* SVG y grows downwards */
        }
    }
    /* data reaches 99.9%: the axis runs to 99.9% plus a max column */
    char t[512];
    texts_of(svg, "lat-xtick", t, sizeof t);
    assert_string_equal(t, "0%|90%|99%|99.9%|max");
    /* 8000 ns max: microseconds, linear from 0 to 8 plus headroom */
    assert_non_null(strstr(svg, "latency (us)"));
    texts_of(svg, "lat-ytick", t, sizeof t);
    assert_string_equal(t, "0|2|4|6|8|10");
    /* escaped title, legend labels, standalone document */
    assert_non_null(strstr(svg, "e2e &lt;baseline&gt; &amp; alloc"));
    assert_non_null(strstr(svg, ">baseline</text>"));
    assert_non_null(strstr(svg, ">alloc</text>"));
    assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(svg, "viewBox=\"0 0 800 500\""));
    assert_non_null(strstr(svg, "prefers-color-scheme:dark"));
    assert_null(strstr(svg, "class=\"lat-empty\""));
    free(svg);
    lat_plot_destroy(p);
}

static void test_plot_units_and_range(void **state) {
    (void)state;
    static const struct {
        double max_ns;
        const char *unit;
    } cases[] = {{850, "latency (ns)"}, {2.5e6, "latency (ms)"}, {3e9, "latency (s)"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lat_plot *p;
        assert_int_equal(lat_plot_create(NULL, &p), 0);
        lat_plot_point pts[2] = {{0, cases[c].max_ns / 10}, {99, cases[c].max_ns}};
        assert_int_equal(lat_plot_add_series(p, NULL, pts, 2), 0);
        char *svg = render(p);
        assert_xml(svg);
        assert_non_null(strstr(svg, cases[c].unit));
        assert_non_null(strstr(svg, ">series 1</text>"));
        /* 99% is the highest percentile: axis ends there, no max column */
        char t[256];
        texts_of(svg, "lat-xtick", t, sizeof t);
        assert_string_equal(t, "0%|90%|99%");
        free(svg);
        lat_plot_destroy(p);
    }
}

/* The x axis covers the data's highest percentile, and only up to where a
 * series first reaches its final value (iterators repeat the max after it). */
static void test_plot_x_range(void **state) {
    (void)state;
    static const struct {
        lat_plot_point pts[4];
        size_t n;
        const char *ticks;
    } cases[] = {
        {{{0, 10}, {99.95, 20}}, 2, "0%|90%|99%|99.9%|99.99%"},
        {{{0, 10}, {99.9, 20}}, 2, "0%|90%|99%|99.9%"},
        {{{0, 10}, {99.9, 20}, {99.9999, 20}, {100, 20}}, 4, "0%|90%|99%|99.9%|max"},
        {{{0, 10}, {99.9, 20}, {99.9999, 25}, {100, 25}},
         4,
         "0%|90%|99%|99.9%|99.99%|99.999%|99.9999%|max"},
        {{{50, 10}}, 1, "0%|90%"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lat_plot *p;
        assert_int_equal(lat_plot_create(NULL, &p), 0);
        assert_int_equal(lat_plot_add_series(p, "s", cases[c].pts, cases[c].n), 0);
        char *svg = render(p);
        assert_xml(svg);
        char t[256];
        texts_of(svg, "lat-xtick", t, sizeof t);
        assert_string_equal(t, cases[c].ticks);
        /* every point inside the plot frame */
        double xs[8], ys[8];
        size_t n = path_points(svg, 0, xs, ys, 8);
        assert_int_equal(n, cases[c].n);
        for (size_t i = 0; i < n; i++)
            assert_true(xs[i] >= 78 - 0.01 && xs[i] <= 772 + 0.01);
        free(svg);
        lat_plot_destroy(p);
    }
}

/* A linear x axis (a rate): ticks from 0 a whole step past the highest x,
 * points placed in proportion, x beyond 100 accepted; set after a series or
 * without a title it is refused. */
static void test_plot_x_linear(void **state) {
    (void)state;
    lat_plot *p;
    assert_int_equal(lat_plot_create(NULL, &p), 0);
    assert_int_equal(lat_plot_set_x_linear(p, ""), -EINVAL);
    assert_int_equal(lat_plot_set_x_linear(p, "offered rate (requests/s)"), 0);
    const lat_plot_point pts[] = {{5000, 100}, {10000, 200}, {20000, 400}};
    assert_int_equal(lat_plot_add_series(p, "p99", pts, 3), 0);
    assert_int_equal(lat_plot_set_x_linear(p, "again"), -EINVAL);
    const lat_plot_point neg[] = {{-1, 100}};
    assert_int_equal(lat_plot_add_series(p, "neg", neg, 1), -EINVAL);
    char *svg = render(p);
    assert_xml(svg);
    char t[256];
    texts_of(svg, "lat-xtick", t, sizeof t);
    assert_string_equal(t, "0k|5k|10k|15k|20k|25k");
    assert_non_null(strstr(svg, "offered rate (requests/s)"));
    double xs[4], ys[4];
    assert_int_equal(path_points(svg, 0, xs, ys, 4), 3);
    /* 0 at x0 = 78 and 25k at x1 = 772: 5k, 10k, 20k in proportion */
    for (int i = 0; i < 3; i++)
        assert_float_equal(xs[i], 78 + 694 * pts[i].pct / 25000, 0.06);
    free(svg);
    lat_plot_destroy(p);
}

/* The legend moves off the data: a flat series near the top pushes it down. */
static void test_plot_legend_placement(void **state) {
    (void)state;
    lat_plot_point rising[3] = {{0, 100}, {99, 200}, {99.9, 1000}};
    lat_plot_point flat[2] = {{0, 1150}, {99.9, 1150}}; /* 92% of a 1.25us axis */
    for (int c = 0; c < 2; c++) {
        lat_plot *p;
        assert_int_equal(lat_plot_create("legend", &p), 0);
        assert_int_equal(lat_plot_add_series(p, "s", c ? flat : rising, c ? 2 : 3), 0);
        char *svg = render(p);
        const char *r = strstr(svg, "<rect class=\"lat-legend-box\"");
        assert_non_null(r);
        double x, y;
        assert_int_equal(sscanf(r, "<rect class=\"lat-legend-box\" x=\"%lf\" y=\"%lf\"", &x, &y),
                         2);
        if (c)
            assert_true(y > 250); /* flat line at the top: legend at the bottom */
        else
            assert_true(x < 100 && y < 80); /* rising tail: top-left */
        free(svg);
        lat_plot_destroy(p);
    }
}

static void test_plot_log_y_and_slo(void **state) {
    (void)state;
    lat_plot *p;
    assert_int_equal(lat_plot_create("log", &p), 0);
    lat_plot_point a[64];
    size_t n = make_tail(a, 2, 200, 900);
    assert_int_equal(lat_plot_add_series(p, "a", a, n), 0);
    assert_int_equal(lat_plot_set_log_y(p, true), 0);
    assert_int_equal(lat_plot_add_slo(p, NULL, 5000), 0); /* above the data */
    assert_int_equal(lat_plot_add_slo(p, "budget", 250), 0);
    assert_int_equal(lat_plot_add_slo(p, NULL, 0), -EINVAL);
    assert_int_equal(lat_plot_add_slo(p, NULL, NAN), -EINVAL);
    char *svg = render(p);
    assert_xml(svg);
    char t[512];
    texts_of(svg, "lat-ytick", t, sizeof t);
    /* 200 ns .. 5 us: decades 100ns..10us, few enough to label 2x and 5x */
    assert_string_equal(t, "100ns|200ns|500ns|1us|2us|5us|10us");
    assert_non_null(strstr(svg, "latency (log scale)"));
    texts_of(svg, "lat-slo-label", t, sizeof t);
    assert_string_equal(t, "SLO 5us|budget");
    assert_int_equal(count_of(svg, "<path "), 1);
    free(svg);
    lat_plot_destroy(p);
}

static void test_plot_empty_and_single(void **state) {
    (void)state;
    /* no series at all */
    lat_plot *p;
    assert_int_equal(lat_plot_create("nothing", &p), 0);
    char *svg = render(p);
    assert_xml(svg);
    assert_non_null(strstr(svg, "no series to plot"));
    assert_int_equal(count_of(svg, "<path "), 0);
    free(svg);
    /* one empty series */
    assert_int_equal(lat_plot_add_series(p, "idle", NULL, 0), 0);
    svg = render(p);
    assert_xml(svg);
    assert_non_null(strstr(svg, "no samples to plot"));
    assert_non_null(strstr(svg, "idle (no samples)"));
    assert_int_equal(count_of(svg, "<path "), 1);
    free(svg);
    lat_plot_destroy(p);

    /* single value (as a one-value histogram's .hgrm: 0% and 100% rows) */
    assert_int_equal(lat_plot_create("one", &p), 0);
    lat_plot_point one[2] = {{0, 1000}, {100, 1000}};
    assert_int_equal(lat_plot_add_series(p, "one", one, 2), 0);
    lat_plot_point lone = {50, 1000};
    assert_int_equal(lat_plot_add_series(p, "lone", &lone, 1), 0);
    assert_int_equal(lat_plot_add_series(p, "none", NULL, 0), 0);
    for (int log_y = 0; log_y < 2; log_y++) {
        assert_int_equal(lat_plot_set_log_y(p, log_y), 0);
        svg = render(p);
        assert_xml(svg);
        assert_int_equal(count_of(svg, "<path "), 3);
        assert_non_null(strstr(svg, "class=\"lat-marker")); /* the lone point is visible */
        assert_non_null(strstr(svg, "1 of 3 series has no samples"));
        char t[256];
        texts_of(svg, "lat-xtick", t, sizeof t);
        assert_string_equal(t, "0%|90%|max");
        assert_null(strstr(svg, "nan"));
        assert_null(strstr(svg, "inf"));
        free(svg);
    }
    lat_plot_destroy(p);

    /* all-zero values */
    assert_int_equal(lat_plot_create(NULL, &p), 0);
    lat_plot_point z[2] = {{0, 0}, {100, 0}};
    assert_int_equal(lat_plot_add_series(p, "zero", z, 2), 0);
    for (int log_y = 0; log_y < 2; log_y++) {
        assert_int_equal(lat_plot_set_log_y(p, log_y), 0);
        svg = render(p);
        assert_xml(svg);
        assert_null(strstr(svg, "nan"));
        free(svg);
    }
    lat_plot_destroy(p);
}

static void test_plot_rejects(void **state) {
    (void)state;
    lat_plot *p;
    assert_int_equal(lat_plot_create(NULL, NULL), -EINVAL);
    assert_int_equal(lat_plot_create(NULL, &p), 0);
    lat_plot_point down[2] = {{99, 10}, {90, 20}};
    lat_plot_point bad_pct[1] = {{101, 10}};
    lat_plot_point neg[1] = {{50, -1}};
    lat_plot_point nan_v[1] = {{50, NAN}};
    assert_int_equal(lat_plot_add_series(p, "x", down, 2), -EINVAL);
    assert_int_equal(lat_plot_add_series(p, "x", bad_pct, 1), -EINVAL);
    assert_int_equal(lat_plot_add_series(p, "x", neg, 1), -EINVAL);
    assert_int_equal(lat_plot_add_series(p, "x", nan_v, 1), -EINVAL);
    assert_int_equal(lat_plot_add_series(p, "x", NULL, 3), -EINVAL);
    assert_int_equal(lat_plot_add_series(NULL, "x", NULL, 0), -EINVAL);
    assert_int_equal(lat_plot_series_count(p), 0);
    for (int i = 0; i < LAT_PLOT_MAX_SERIES; i++)
        assert_int_equal(lat_plot_add_series(p, NULL, NULL, 0), 0);
    assert_int_equal(lat_plot_add_series(p, NULL, NULL, 0), -E2BIG);
    for (int i = 0; i < LAT_PLOT_MAX_SLOS; i++)
        assert_int_equal(lat_plot_add_slo(p, NULL, 1), 0);
    assert_int_equal(lat_plot_add_slo(p, NULL, 1), -E2BIG);
    assert_int_equal(lat_plot_set_size(p, 100, 100), -EINVAL);
    assert_int_equal(lat_plot_set_size(p, 1200, 700), 0);
    assert_int_equal(lat_plot_set_theme(p, (lat_theme)7), -EINVAL);
    assert_int_equal(lat_plot_set_theme(p, LAT_THEME_DARK), 0);
    char *svg = render(p);
    assert_xml(svg);
    assert_non_null(strstr(svg, "viewBox=\"0 0 1200 700\""));
    assert_null(strstr(svg, "prefers-color-scheme")); /* forced dark */
    assert_non_null(strstr(svg, " lat-dash\""));      /* series past the palette are dashed */
    free(svg);
    assert_int_equal(lat_plot_write_svg(NULL, stdout), -EINVAL);
    assert_int_equal(lat_plot_save_svg(p, NULL), -EINVAL);
    lat_plot_destroy(p);
    lat_plot_destroy(NULL);
}

static void test_plot_save_atomic(void **state) {
    (void)state;
    lat_plot *p;
    assert_int_equal(lat_plot_create("saved", &p), 0);
    lat_plot_point a[64];
    size_t n = make_tail(a, 5, 100, 100000);
    assert_int_equal(lat_plot_add_series(p, "a", a, n), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/p.svg", lat_test_tmpdir());
    assert_int_equal(lat_plot_save_svg(p, path), 0);
    assert_int_equal(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/no/such/dir/p.svg", lat_test_tmpdir());
    assert_true(lat_plot_save_svg(p, path) < 0);
    lat_plot_destroy(p);
}

/* ---- histograms --------------------------------------------------------------------------- */

static void test_plot_from_hist(void **state) {
    (void)state;
    lat_hist *h;
    assert_int_equal(lat_hist_create(1, 3600000000LL, 3, &h), 0);
    lat_plot *p;
    assert_int_equal(lat_plot_create("hist", &p), 0);
    /* empty histogram: an empty series, not an error */
    assert_int_equal(lat_plot_add_hist(p, "empty", h, 1.0, 0), 0);
    for (int i = 1; i <= 10000; i++)
        lat_hist_record(h, 100 + i % 1000);
    lat_hist_record(h, 250000);
    assert_int_equal(lat_plot_add_hist(p, "full", h, 1.0, 5), 0);
    assert_int_equal(lat_plot_add_hist(p, "cycles", h, 1 / 2.6, 0), 0);
    assert_int_equal(lat_plot_add_hist(p, "bad", h, 0, 0), -EINVAL);
    assert_int_equal(lat_plot_add_hist(p, "bad", NULL, 1, 0), -EINVAL);
    char *svg = render(p);
    assert_xml(svg);
    assert_int_equal(count_of(svg, "<path "), 3);
    /* each histogram series carries its 95% band; the empty one none */
    assert_int_equal(count_of(svg, "<polygon class=\"lat-band "), 2);
    assert_non_null(strstr(svg, "empty (no samples)"));
    double xs[4096], ys[4096];
    size_t n = path_points(svg, 1, xs, ys, 4096);
    assert_true(n > 10);
    for (size_t i = 1; i < n; i++) {
        assert_true(xs[i] >= xs[i - 1]);
        assert_true(ys[i] <= ys[i - 1]);
    }
    /* confidence 0: no band; set_band checks its input */
    lat_plot *q;
    assert_int_equal(lat_plot_create(NULL, &q), 0);
    assert_int_equal(lat_plot_add_hist_ci(q, "plain", h, 1.0, 0, 0.0), 0);
    assert_int_equal(lat_plot_add_hist_ci(q, "bad", h, 1.0, 0, 1.0), -EINVAL);
    char *plain = render(q);
    assert_null(strstr(plain, "<polygon"));
    free(plain);
    const double lo[2] = {1, 2}, hi[2] = {3, 1};
    assert_int_equal(lat_plot_set_band(q, 0, lo, hi, 2), -EINVAL); /* wrong n */
    assert_int_equal(lat_plot_set_band(q, 5, lo, hi, 2), -EINVAL);
    lat_plot *two;
    assert_int_equal(lat_plot_create(NULL, &two), 0);
    const lat_plot_point pts[2] = {{50, 1.5}, {99, 1.5}};
    assert_int_equal(lat_plot_add_series(two, "s", pts, 2), 0);
    assert_int_equal(lat_plot_set_band(two, 0, lo, hi, 2), -EINVAL); /* hi < lo */
    const double hi2[2] = {3, 4};
    assert_int_equal(lat_plot_set_band(two, 0, lo, hi2, 2), 0);
    char *banded = render(two);
    assert_int_equal(count_of(banded, "<polygon class=\"lat-band "), 1);
    free(banded);
    lat_plot_destroy(two);
    lat_plot_destroy(q);
    /* 250 us max: microsecond axis with the max column */
    assert_non_null(strstr(svg, "latency (us)"));
    assert_non_null(strstr(svg, ">max</text>"));
    free(svg);
    lat_plot_destroy(p);

    /* one-value histogram */
    lat_hist_reset(h);
    lat_hist_record(h, 777);
    assert_int_equal(lat_plot_create("one", &p), 0);
    assert_int_equal(lat_plot_add_hist(p, "one", h, 1.0, 0), 0);
    svg = render(p);
    assert_xml(svg);
    assert_int_equal(count_of(svg, "<path "), 1);
    assert_non_null(strstr(svg, "latency (ns)"));
    free(svg);
    lat_plot_destroy(p);
    lat_hist_destroy(h);
}

/* ---- .hgrm -------------------------------------------------------------------------------------
 */

static const char hgrm_plain[] = "       Value     Percentile TotalCount 1/(1-Percentile)\n"
                                 "\n"
                                 "       1.000 0.000000000000          1           1.00\n"
                                 "       2.000 0.250000000000          3           1.33\n"
                                 "    1000.000 0.500000000000        103           2.00\n"
                                 "    1000.000 0.990000000000        103         100.00\n"
                                 "  100000.000 1.000000000000        104\n"
                                 "#[Mean    =      962.625, StdDeviation   =     9786.324]\n"
                                 "#[Max     =   100031.000, Total count    =          104]\n"
                                 "#[Buckets =           22, SubBuckets     =         2048]\n";

static const char hgrm_csv[] = "\"Value\",\"Percentile\",\"TotalCount\",\"1/(1-Percentile)\"\r\n"
                               "0.001,0.000000000000,1,1.00\r\n"
                               "0.002,0.900000000000,9,10.00\r\n"
                               "0.100,1.000000000000,10,Infinity\r\n";

static void put_file(const char *path, const char *text, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* lat_hgrm_load reads a file as lat_hgrm_parse parses text; a NUL ends the
 * text (the parser names its line); lat_hgrm_is_table by name, then content. */
static void test_hgrm_load_and_sniff(void **state) {
    (void)state;
    char path[4096], log[4096], missing[4096];
    snprintf(path, sizeof path, "%s/t.txt", lat_test_tmpdir());
    snprintf(log, sizeof log, "%s/l.txt", lat_test_tmpdir());
    snprintf(missing, sizeof missing, "%s/none.hgrm", lat_test_tmpdir());
    put_file(path, hgrm_csv, strlen(hgrm_csv));
    lat_hgrm h;
    size_t line = 99;
    assert_int_equal(lat_hgrm_load(path, 1e6, &h, &line), 0);
    assert_int_equal(h.n, 3);
    assert_true(fabs(h.points[1].value_ns - 2000) < 1e-6);
    lat_hgrm_fini(&h);
    assert_int_equal(lat_hgrm_load(missing, 1, &h, &line), -ENOENT);
    char bad[sizeof hgrm_csv + 8];
    memcpy(bad, hgrm_csv, sizeof hgrm_csv);
    bad[strlen(hgrm_csv) - 4] = '\0'; /* inside the last row */
    put_file(path, bad, strlen(hgrm_csv));
    assert_int_equal(lat_hgrm_load(path, 1e6, &h, &line), LAT_EFORMAT);
    assert_int_equal(line, 4);

    assert_int_equal(lat_hgrm_is_table("x.hgrm"), 1); /* by name, not opened */
    assert_int_equal(lat_hgrm_is_table("x.hlog"), 0);
    assert_int_equal(lat_hgrm_is_table(missing + 0), 1);
    put_file(path, hgrm_plain, strlen(hgrm_plain));
    assert_int_equal(lat_hgrm_is_table(path), 1);
    static const char hlog[] = "#[Histogram log format version 1.3]\n";
    put_file(log, hlog, strlen(hlog));
    assert_int_equal(lat_hgrm_is_table(log), 0);
    static const char tagged[] = "Tag=a,0.0,1.0,0.1,HISTFAAAA\n";
    put_file(log, tagged, strlen(tagged));
    assert_int_equal(lat_hgrm_is_table(log), 0);
    snprintf(log, sizeof log, "%s/gone.txt", lat_test_tmpdir());
    assert_int_equal(lat_hgrm_is_table(log), 0); /* cannot open: left to the log reader */
}

static void test_hgrm_parse(void **state) {
    (void)state;
    lat_hgrm h;
    size_t line = 99;
    assert_int_equal(lat_hgrm_parse(hgrm_plain, strlen(hgrm_plain), 1.0, &h, &line), 0);
    assert_int_equal(line, 0);
    assert_int_equal(h.n, 5);
    assert_true(fabs(h.points[1].pct - 25) < 1e-9);
    assert_true(fabs(h.points[4].pct - 100) < 1e-9);
    assert_true(fabs(h.points[4].value_ns - 100000) < 1e-9);
    assert_int_equal(h.total_count, 104);
    assert_true(fabs(h.mean_ns - 962.625) < 1e-9);
    assert_true(fabs(h.stddev_ns - 9786.324) < 1e-9);
    assert_true(fabs(h.max_ns - 100031) < 1e-9);
    lat_hgrm_fini(&h);
    assert_null(h.points);

    /* CSV in ms (HistogramLogProcessor's default unit), CRLF line ends */
    assert_int_equal(lat_hgrm_parse(hgrm_csv, strlen(hgrm_csv), 1e6, &h, &line), 0);
    assert_int_equal(h.n, 3);
    assert_true(fabs(h.points[1].value_ns - 2000) < 1e-6);
    assert_true(fabs(h.points[1].pct - 90) < 1e-9);
    assert_int_equal(h.total_count, 10);
    assert_true(isnan(h.mean_ns));
    lat_hgrm_fini(&h);

    /* nothing but a header: valid and empty */
    const char *hdr = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n";
    assert_int_equal(lat_hgrm_parse(hdr, strlen(hdr), 1.0, &h, NULL), 0);
    assert_int_equal(h.n, 0);
    assert_null(h.points);
    lat_hgrm_fini(&h);
    assert_int_equal(lat_hgrm_parse("", 0, 1.0, &h, NULL), 0);
    assert_int_equal(h.n, 0);

    /* errors name the line */
    static const struct {
        const char *text;
        size_t line;
    } bad[] = {
        {"Value Percentile TotalCount\n\n1.0 0.5 3 2.0\nbanana\n", 4},
        {"1.0 0.5 3 2.0\n2.0 0.4 4 1.6\n", 2}, /* percentile going down */
        {"1.0 1.5 3\n", 1},                    /* fraction above 1 */
        {"1.0 0.5 3.5 2.0\n", 1},              /* fractional count */
        {"-1.0 0.5 3 2.0\n", 1},               /* negative value */
        {"1.0 0.5 3 2.0 junk\n", 1},           /* trailing junk */
        {"1.0 0.5\n", 1},                      /* short row */
        {"#[Histogram log format version 1.3]\nTag=a,0.0,1.0,0.5,HISTF\n", 2}, /* an .hlog */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        line = 0;
        assert_int_equal(lat_hgrm_parse(bad[i].text, strlen(bad[i].text), 1.0, &h, &line),
                         LAT_EFORMAT);
        assert_int_equal(line, bad[i].line);
        assert_null(h.points);
    }
    assert_int_equal(lat_hgrm_parse(NULL, 0, 1.0, &h, NULL), -EINVAL);
    assert_int_equal(lat_hgrm_parse("", 0, 0.0, &h, NULL), -EINVAL);
    lat_hgrm_fini(NULL);
}

/* ---- HTML --------------------------------------------------------------------------------------
 */

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    return b;
}

static void test_report_page(void **state) {
    (void)state;
    lat_report *r;
    assert_int_equal(lat_report_create(NULL, &r), -EINVAL);
    assert_int_equal(lat_report_create("lab <run> & co", &r), 0);
    assert_int_equal(lat_report_kv(r, "cpu", "AMD EPYC"), 0);
    assert_int_equal(lat_report_kv(r, "governor", NULL), 0);
    assert_int_equal(lat_report_section(r, "e2e"), 0);
    const char *hdr[] = {"run", "p50", "p99"};
    assert_int_equal(lat_report_table_row(r, hdr), -EINVAL); /* no table open */
    assert_int_equal(lat_report_table_begin(r, "latency", 3, hdr), 0);
    const char *row1[] = {"baseline", "340ns", "1.2 us"};
    const char *row2[] = {"<script>alert(1)</script>", "info", "12%"};
    assert_int_equal(lat_report_table_row(r, row1), 0);
    assert_int_equal(lat_report_table_row(r, row2), 0);
    const char *row3[] = {"x", NULL, NULL}; /* NULL cells print empty */
    assert_int_equal(lat_report_table_row(r, row3), 0);
    lat_plot *p;
    assert_int_equal(lat_plot_create("e2e", &p), 0);
    lat_plot_point a[64];
    size_t n = make_tail(a, 3, 300, 4000);
    assert_int_equal(lat_plot_add_series(p, "baseline", a, n), 0);
    assert_int_equal(lat_report_plot(r, p), 0);
    lat_plot_destroy(p);
    assert_int_equal(lat_report_verdict(r, LAT_VERDICT_PASS, "alloc: p99.9 3x worse"), 0);
    assert_int_equal(lat_report_verdict(r, (lat_verdict)9, "x"), -EINVAL);
    assert_int_equal(lat_report_text(r, "plain & simple"), 0);
    assert_int_equal(lat_report_pre(r, "flight recorder", "seq  ns\n1    <5>\n"), 0);
    const char *h2[] = {"a"};
    assert_int_equal(lat_report_table_begin(r, NULL, 1, h2), 0); /* left open: closed on write */
    char path[512];
    snprintf(path, sizeof path, "%s/report.html", lat_test_tmpdir());
    assert_int_equal(lat_report_write(r, path), 0);
    lat_report_destroy(r);

    char *html = slurp(path);
    assert_non_null(strstr(html, "<title>lab &lt;run&gt; &amp; co</title>"));
    assert_non_null(strstr(html, "<dt>cpu</dt><dd>AMD EPYC</dd>"));
    assert_non_null(strstr(html, "<td class=\"n\">340ns</td>"));
    assert_non_null(strstr(html, "<td class=\"n\">1.2 us</td>"));
    assert_non_null(strstr(html, "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
    assert_non_null(strstr(html, "<td>info</td>"));
    assert_non_null(strstr(html, "<tr><td>x</td><td></td><td></td></tr>"));
    assert_non_null(strstr(html, "<td class=\"n\">12%</td>"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "http://")); /* no network, not even the SVG namespace */
    assert_null(strstr(html, "https://"));
    assert_int_equal(count_of(html, "<svg"), 1);
    assert_int_equal(count_of(html, "<table>"), 2);
    assert_int_equal(count_of(html, "</table>"), 2);
    assert_non_null(strstr(html, "<span class=\"badge\">PASS</span>"));
    assert_non_null(strstr(html, "1    &lt;5&gt;"));
    assert_non_null(strstr(html, "prefers-color-scheme:dark"));
    assert_non_null(strstr(html, "</html>"));
    if (have_xmllint()) { /* the page parses as HTML without errors */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "xmllint --html --noout '%s' 2>/dev/null", path);
        assert_int_equal(system(cmd), 0);
    }
    free(html);
}

/* ---- allocation failure ------------------------------------------------------------------------
 */

static long fail_after;
static void *failing_alloc(size_t size, size_t align, void *ud) {
    (void)ud;
    if (fail_after-- == 0) return NULL;
    void *p = NULL;
    return posix_memalign(&p, align, size) ? NULL : p;
}
static void plain_free(void *p, void *ud) {
    (void)ud;
    free(p);
}

/* Build a plot and a page with the Nth allocation failing, for every N. */
static int build_all(const char *dir) {
    lat_plot *p = NULL;
    lat_report *r = NULL;
    lat_plot_point a[64];
    size_t n = make_tail(a, 3, 300, 4000);
    char path[512];
    int rc = lat_plot_create("t", &p);
    if (!rc) rc = lat_plot_add_series(p, "a", a, n);
    if (!rc) rc = lat_plot_add_slo(p, NULL, 1000);
    if (!rc) rc = lat_plot_set_note(p, "note");
    if (!rc) {
        snprintf(path, sizeof path, "%s/f.svg", dir);
        rc = lat_plot_save_svg(p, path);
    }
    if (!rc) rc = lat_report_create("t", &r);
    if (!rc) rc = lat_report_kv(r, "k", "v");
    if (!rc) rc = lat_report_plot(r, p);
    if (!rc) {
        snprintf(path, sizeof path, "%s/f.html", dir);
        rc = lat_report_write(r, path);
    }
    lat_hgrm h;
    if (!rc) rc = lat_hgrm_parse(hgrm_plain, strlen(hgrm_plain), 1, &h, NULL);
    if (!rc) lat_hgrm_fini(&h);
    lat_report_destroy(r);
    lat_plot_destroy(p);
    return rc;
}

static void test_alloc_failure(void **state) {
    (void)state;
    lat_alloc_hooks hooks = {failing_alloc, plain_free, NULL};
    int ok = 0;
    for (long nth = 0; nth < 200 && !ok; nth++) {
        fail_after = nth;
        lat_set_alloc_hooks(&hooks);
        int rc = build_all(lat_test_tmpdir());
        lat_set_alloc_hooks(NULL);
        if (rc == 0)
            ok = 1;
        else
            assert_int_equal(rc, -ENOMEM);
    }
    assert_true(ok);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_two_series),     cmocka_unit_test(test_plot_units_and_range),
        cmocka_unit_test(test_plot_x_range),        cmocka_unit_test(test_plot_legend_placement),
        cmocka_unit_test(test_plot_log_y_and_slo),  cmocka_unit_test(test_plot_empty_and_single),
        cmocka_unit_test(test_plot_rejects),        cmocka_unit_test(test_plot_save_atomic),
        cmocka_unit_test(test_plot_from_hist),      cmocka_unit_test(test_hgrm_parse),
        cmocka_unit_test(test_hgrm_load_and_sniff), cmocka_unit_test(test_report_page),
        cmocka_unit_test(test_alloc_failure),       cmocka_unit_test(test_plot_x_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
