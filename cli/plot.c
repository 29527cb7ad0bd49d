/* plot.c - `latlab plot`: latency-by-percentile plots from .hlog / .hgrm files.
 *
 * Each input becomes one series (an interval log holding several tags gives
 * one series per tag unless --tag picks one); all intervals of a series are
 * merged into one histogram.  .hgrm files (HdrHistogram's percentile table,
 * plain or CSV) are read as text.  The picture is written atomically as SVG,
 * or as a one-page HTML report (plot + summary table) when OUT ends in .html;
 * a summary table goes to stdout and --json writes the same figures. */
#include "cli.h"
#include "cliopts.h"

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/hlog_merge.h"
#include "latlab/report.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "plot"
#define MAX_LABELS 64

typedef struct summary {
    char *label;
    const char *file;
    char tag[LAT_HLOG_TAG_MAX];
    uint64_t count;
    double pct_ns[5]; /* p50 p90 p99 p99.9 p99.99 */
    double max_ns;
} summary;

static const double SUMMARY_PCTS[5] = {50, 90, 99, 99.9, 99.99};
static const char *const SUMMARY_NAMES[5] = {"p50", "p90", "p99", "p99.9", "p99.99"};

typedef struct ctx {
    lat_plot *plot;
    summary s[LAT_PLOT_MAX_SERIES];
    size_t ns;
    double unit_ns;
    unsigned ticks;
    bool ci; /* --ci: bands on histogram series */
    const char *tag;
} ctx;

static void fmt_ns(char *buf, size_t len, double ns) {
    static const char *const u[] = {"ns", "us", "ms", "s"};
    int i = 0;
    if (!isfinite(ns)) {
        snprintf(buf, len, "-");
        return;
    }
    while (i < 3 && ns >= 1000)
        ns /= 1000, i++;
    snprintf(buf, len, "%.4g%s", ns, u[i]);
}

/* "dir/run.e2e.hlog" -> "run.e2e". */
static char *base_label(const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    char *l = strdup(b);
    if (!l) return NULL;
    char *dot = strrchr(l, '.');
    if (dot && dot != l && (!strcmp(dot, ".hlog") || !strcmp(dot, ".hgrm") || !strcmp(dot, ".csv")))
        *dot = 0;
    return l;
}

static int new_summary(ctx *c, const char *file, const char *label, const char *tag,
                       summary **out) {
    if (c->ns >= LAT_PLOT_MAX_SERIES)
        return cli_error(CMD, "%s: too many series (at most %d)", file, LAT_PLOT_MAX_SERIES);
    summary *s = &c->s[c->ns];
    memset(s, 0, sizeof *s);
    s->label = strdup(label);
    if (!s->label) return cli_lib_error(CMD, file, -ENOMEM);
    s->file = file;
    snprintf(s->tag, sizeof s->tag, "%s", tag ? tag : "");
    s->max_ns = NAN;
    for (int i = 0; i < 5; i++)
        s->pct_ns[i] = NAN;
    c->ns++;
    *out = s;
    return 0;
}

/* ---- .hgrm ------------------------------------------------------------------------------- */

static int load_hgrm(ctx *c, const char *path, const char *label) {
    lat_hgrm h;
    size_t line = 0;
    int rc = lat_hgrm_load(path, c->unit_ns, &h, &line);
    if (rc && rc != LAT_EFORMAT)
        return cli_error(CMD, "%s: cannot read: %s", path, lat_strerror(rc));
    if (c->tag) cli_warn(CMD, "%s: --tag applies to interval logs, not .hgrm tables", path);
    if (rc) return cli_error(CMD, "%s:%zu: not a percentile-table row (.hgrm)", path, line);
    summary *s;
    if ((rc = new_summary(c, path, label, NULL, &s))) goto out;
    s->count = h.total_count;
    if (h.n) {
        for (int i = 0; i < 5; i++)
            s->pct_ns[i] = lat_hgrm_value_at(&h, SUMMARY_PCTS[i]);
        s->max_ns = isfinite(h.max_ns) ? h.max_ns : h.points[h.n - 1].value_ns;
        /* Where the table has no row on a percentile's slot, the value lies
         * between two rows: say so rather than pass the upper one off as exact. */
        char unsure[256] = "";
        size_t used = 0;
        for (int i = 0; i < 5; i++) {
            double lo = NAN;
            if (!lat_hgrm_bracket(&h, SUMMARY_PCTS[i], &lo) || !(lo < s->pct_ns[i])) continue;
            char a[32], b[32];
            fmt_ns(a, sizeof a, lo);
            fmt_ns(b, sizeof b, s->pct_ns[i]);
            used += (size_t)snprintf(unsure + used, sizeof unsure - used, "%s%s in (%s, %s]",
                                     used ? ", " : "", SUMMARY_NAMES[i], a, b);
            if (used >= sizeof unsure) break;
        }
        if (used)
            cli_warn(CMD,
                     "%s: no table row falls on %s: shown as the upper end; plot the .hlog (or "
                     "a table with more --ticks) for exact values",
                     path, unsure);
        /* One step of the last printed decimal, in ns: values closer than that
         * (or below it) are lost in the file itself. */
        double step_ns = c->unit_ns * pow(10.0, -h.value_decimals);
        if (s->pct_ns[0] < 100 * step_ns)
            cli_warn(CMD,
                     "%s: values are printed in steps of %g ns (%d decimals): p50 reads %g ns, "
                     "too coarse to trust; write the table with a smaller unit (e.g. "
                     "HistogramLogProcessor -outputValueUnitRatio 1, or latlab hist percentiles "
                     "--scale 1) or plot the .hlog",
                     path, step_ns, h.value_decimals, s->pct_ns[0]);
    } else {
        cli_warn(CMD, "%s: no rows: plotted as an empty series", path);
    }
    rc = lat_plot_add_series(c->plot, label, h.points, h.n);
    if (rc) rc = cli_lib_error(CMD, path, rc);
out:
    lat_hgrm_fini(&h);
    return rc;
}

/* ---- .hlog --------------------------------------------------------------------------------- */

static int add_hist_series(ctx *c, const char *path, const char *label, const char *tag,
                           const lat_hist *h) {
    summary *s;
    int rc = new_summary(c, path, label, tag, &s);
    if (rc) return rc;
    s->count = h && h->total_count > 0 ? (uint64_t)h->total_count : 0;
    if (s->count) {
        for (int i = 0; i < 5; i++)
            s->pct_ns[i] = (double)lat_hist_value_at_percentile(h, SUMMARY_PCTS[i]) * c->unit_ns;
        s->max_ns = (double)lat_hist_max(h) * c->unit_ns;
        rc = lat_plot_add_hist_ci(c->plot, label, h, c->unit_ns, c->ticks,
                                  c->ci ? LAT_HIST_CI_DEFAULT : 0.0);
    } else {
        rc = lat_plot_add_series(c->plot, label, NULL, 0);
    }
    return rc ? cli_lib_error(CMD, path, rc) : 0;
}

static int load_hlog(ctx *c, const char *path, const char *label) {
    lat_hlog_reader *r = NULL;
    lat_hlog_hists groups = {0}; /* per tag, in order of first appearance */
    int rc = lat_hlog_reader_create(path, &r);
    if (rc) return cli_error(CMD, "%s: cannot read: %s", path, lat_strerror(rc));
    lat_hlog_interval *iv;
    while ((rc = lat_hlog_next(r, &iv)) > 0) {
        if (c->tag && strcmp(iv->tag, c->tag)) continue;
        bool known = lat_hlog_hists_find(&groups, iv->tag) >= 0;
        if (!known && groups.n == LAT_PLOT_MAX_SERIES) {
            rc = cli_error(CMD, "%s:%d: too many tags (at most %d series)", path, iv->line,
                           LAT_PLOT_MAX_SERIES);
            goto out;
        }
        if ((rc = lat_hlog_hists_add(&groups, iv->tag, &iv->hist)) < 0) {
            rc = !known ? cli_lib_error(CMD, path, rc)
                 : rc == -EOVERFLOW
                     ? cli_error(CMD, "%s:%d: the merged total count would pass 2^63-1", path,
                                 iv->line)
                     : cli_error(CMD, "%s:%d: %s", path, iv->line, lat_strerror(rc));
            goto out;
        }
    }
    if (rc < 0) {
        const char *why = lat_hlog_reader_reason(r);
        rc = cli_error(CMD, "%s:%d: %s", path, lat_hlog_reader_line(r),
                       why && *why ? why : lat_strerror(rc));
        goto out;
    }
    if (groups.n == 0) {
        if (c->tag)
            cli_warn(CMD, "%s: no interval tagged '%s': plotted as an empty series", path, c->tag);
        else
            cli_warn(CMD, "%s: no intervals: plotted as an empty series", path);
        rc = add_hist_series(c, path, label, c->tag, NULL);
        goto out;
    }
    for (int g = 0; g < groups.n; g++) {
        char name[512];
        const char *tag = groups.v[g].key;
        if (groups.n > 1 && tag[0])
            snprintf(name, sizeof name, "%.300s:%.127s", label, tag);
        else
            snprintf(name, sizeof name, "%.400s", label);
        if ((rc = add_hist_series(c, path, name, tag, &groups.v[g].h))) goto out;
    }
    rc = 0;
out:
    lat_hlog_hists_fini(&groups);
    lat_hlog_reader_destroy(r);
    return rc;
}

/* ---- output -------------------------------------------------------------------------------------
 */

static void print_table(const ctx *c) {
    printf("%-24s %12s", "series", "count");
    for (int i = 0; i < 5; i++)
        printf(" %10s", SUMMARY_NAMES[i]);
    printf(" %10s\n", "max");
    for (size_t k = 0; k < c->ns; k++) {
        const summary *s = &c->s[k];
        char b[32];
        printf("%-24s %12llu", s->label, (unsigned long long)s->count);
        for (int i = 0; i < 5; i++) {
            fmt_ns(b, sizeof b, s->pct_ns[i]);
            printf(" %10s", b);
        }
        fmt_ns(b, sizeof b, s->max_ns);
        printf(" %10s\n", b);
    }
}

static int write_html(const ctx *c, const char *out, const char *title, const uint64_t *slos,
                      size_t nslo, bool log_y, lat_theme theme) {
    lat_report *r = NULL;
    int rc = lat_report_create(title, &r);
    if (rc) goto fail;
    lat_report_set_theme(r, theme);
    for (size_t k = 0; k < c->ns; k++) {
        char v[600];
        snprintf(v, sizeof v, "%s%s%s", c->s[k].file, c->s[k].tag[0] ? " tag " : "", c->s[k].tag);
        lat_report_kv(r, c->s[k].label, v);
    }
    for (size_t i = 0; i < nslo; i++) {
        char v[32];
        fmt_ns(v, sizeof v, (double)slos[i]);
        lat_report_kv(r, "SLO", v);
    }
    lat_report_kv(r, "latency axis", log_y ? "log" : "linear");
    const char *hdr[] = {"series", "count", "p50", "p90", "p99", "p99.9", "p99.99", "max"};
    lat_report_table_begin(r, "Latency by percentile", 8, hdr);
    for (size_t k = 0; k < c->ns; k++) {
        char cells[8][40];
        const char *row[8];
        snprintf(cells[0], sizeof cells[0], "%.39s", c->s[k].label);
        snprintf(cells[1], sizeof cells[1], "%llu", (unsigned long long)c->s[k].count);
        for (int i = 0; i < 5; i++)
            fmt_ns(cells[2 + i], sizeof cells[2 + i], c->s[k].pct_ns[i]);
        fmt_ns(cells[7], sizeof cells[7], c->s[k].max_ns);
        for (int i = 0; i < 8; i++)
            row[i] = cells[i];
        lat_report_table_row(r, row);
    }
    lat_report_plot(r, c->plot);
    rc = lat_report_write(r, out);
fail:
    lat_report_destroy(r);
    return rc;
}

static int write_json(const ctx *c, const char *path, const char *out, const uint64_t *slos,
                      size_t nslo) {
    json_t *root = json_object(), *arr = json_array(), *sl = json_array();
    for (size_t k = 0; k < c->ns; k++) {
        const summary *s = &c->s[k];
        json_t *o = json_object();
        json_object_set_new(o, "label", json_string(s->label));
        json_object_set_new(o, "file", json_string(s->file));
        if (s->tag[0]) json_object_set_new(o, "tag", json_string(s->tag));
        json_object_set_new(o, "count", json_integer((json_int_t)s->count));
        for (int i = 0; i < 5; i++) {
            char key[32];
            snprintf(key, sizeof key, "%s_ns", SUMMARY_NAMES[i]);
            json_object_set_new(o, key,
                                isfinite(s->pct_ns[i]) ? json_real(s->pct_ns[i]) : json_null());
        }
        json_object_set_new(o, "max_ns", isfinite(s->max_ns) ? json_real(s->max_ns) : json_null());
        json_array_append_new(arr, o);
    }
    for (size_t i = 0; i < nslo; i++)
        json_array_append_new(sl, json_integer((json_int_t)slos[i]));
    json_object_set_new(root, "output", json_string(out));
    json_object_set_new(root, "series", arr);
    json_object_set_new(root, "slo_ns", sl);
    int rc = lat_write_json_atomic(path, root);
    json_decref(root);
    return rc;
}

/* ---- main
 * ----------------------------------------------------------------------------------------- */

/* What the options say (the table's destinations). */
typedef struct plot_opts {
    const char *out, *title, *json, *tag;
    cli_list labels;
    uint64_t slos[LAT_PLOT_MAX_SLOS];
    size_t nslo;
    uint64_t ticks;
    double unit_ns;
    bool log_y, ci, html;
    lat_theme theme;
} plot_opts;

static plot_opts po;

static int opt_tag(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!*v || strpbrk(v, ", \r\n") || strlen(v) >= LAT_HLOG_TAG_MAX)
        return cli_usage_error(cmd, "%s: '%s' is not a valid tag", flag, v);
    *(const char **)dest = v;
    return 0;
}

static int opt_label(const char *cmd, const char *flag, const char *v, void *dest) {
    if (((cli_list *)dest)->n == MAX_LABELS)
        return cli_usage_error(cmd, "%s: at most %d labels", flag, MAX_LABELS);
    return cli_list_add(cmd, flag, v, dest);
}

static int opt_slo(const char *cmd, const char *flag, const char *v, void *dest) {
    plot_opts *o = dest;
    uint64_t ns;
    int rc = cli_parse_duration_ns(cmd, flag, v, &ns);
    if (rc) return rc;
    if (ns == 0) return cli_usage_error(cmd, "%s: must be above zero", flag);
    if (o->nslo == LAT_PLOT_MAX_SLOS)
        return cli_usage_error(cmd, "%s: at most %d lines", flag, LAT_PLOT_MAX_SLOS);
    o->slos[o->nslo++] = ns;
    return 0;
}

static int opt_theme(const char *cmd, const char *flag, const char *v, void *dest) {
    static const char *const names[] = {"auto", "light", "dark"};
    static const lat_theme themes[] = {LAT_THEME_AUTO, LAT_THEME_LIGHT, LAT_THEME_DARK};
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, names[i])) return *(lat_theme *)dest = themes[i], 0;
    return cli_usage_error(cmd, "%s: '%s': use auto, light or dark", flag, v);
}

static int opt_unit(const char *cmd, const char *flag, const char *v, void *dest) {
    static const char *const names[] = {"ns", "us", "ms", "s"};
    static const double ns[] = {1, 1e3, 1e6, 1e9};
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, names[i])) return *(double *)dest = ns[i], 0;
    return cli_usage_error(cmd, "%s: '%s': use ns, us, ms or s", flag, v);
}

static const cli_opt plot_opts_table[] = {
    CLI_SHORT_OPT("output", 'o', CLI_STRING, &po.out, "OUT",
                  "write OUT.svg (standalone SVG) or OUT.html (a page with\n"
                  "the plot and a summary table); written atomically",
                  NULL),
    CLI_CUSTOM_OPT("tag", opt_tag, &po.tag, "T", "only intervals tagged T (.hlog inputs)"),
    CLI_CUSTOM_OPT("label", opt_label, &po.labels, "NAME",
                   "legend label for the next FILE, in order (repeatable;\n"
                   "default: the file name without its extension)"),
    CLI_CUSTOM_OPT("slo", opt_slo, &po, "DURATION",
                   "horizontal SLO line, e.g. 1us, 250ns, 2ms (repeatable)"),
    CLI_FLAG_OPT("log-y", &po.log_y, "logarithmic latency axis (default linear from 0)"),
    CLI_CUSTOM_OPT("theme", opt_theme, &po.theme, "T",
                   "auto (follows the viewer's light/dark setting), light\n"
                   "or dark (default auto)"),
    CLI_STR_OPT("title", CLI_STRING, &po.title, "TEXT", "plot title (default: the file names)"),
    CLI_CUSTOM_OPT("unit", opt_unit, &po.unit_ns, "U",
                   "unit of the recorded values / .hgrm Value column:\n"
                   "ns, us, ms or s (default ns; Java's\n"
                   "HistogramLogProcessor writes .hgrm in ms)"),
    CLI_NUM_OPT("ticks", CLI_U64, &po.ticks, "N",
                "percentile ticks per half distance to 100% (default 5)", 1, 1000),
    CLI_FLAG_OPT("ci", &po.ci,
                 "with .hlog input: draw each point's 95% confidence interval\n"
                 "(order statistics from the counts) as a band; off by default\n"
                 "so a log and its .hgrm draw the same picture"),
    CLI_STR_OPT("json", CLI_STRING, &po.json, "FILE", "also write the per-series summary as JSON"),
    CLI_END,
};

const cli_spec cmd_plot_spec = {
    .name = "plot",
    .synopsis = "latlab plot FILE... -o OUT.svg|OUT.html [options]",
    .about = "Plot latency against percentile (HdrHistogram style: x = 1/(1-p) on a log\n"
             "scale, labelled 0%, 90%, 99%, 99.9%, ...) for one or more histograms.\n"
             "FILE is an interval log (.hlog; all intervals of a tag are merged) or a\n"
             "percentile table (.hgrm, plain or CSV).  A log with several tags gives one\n"
             "series per tag unless --tag picks one.\n",
    .opts = plot_opts_table,
    .epilog = "Exit status: 0 ok, 1 unreadable or corrupt input (file and line named) or\n"
              "write failure, 2 usage error.\n",
    .max_args = -1,
};

/* Options and files, checked before any work: 0, -1 after --help, or the exit status. */
static int plot_parse(int argc, char **argv, int *first) {
    po = (plot_opts){.theme = LAT_THEME_AUTO, .unit_ns = 1, .ticks = 5};
    int rc = cli_parse(&cmd_plot_spec, argc, argv, first);
    if (rc) return rc;
    int nfiles = argc - *first;
    const char *out = po.out;
    if (nfiles < 1) return cli_usage_error(CMD, "no input FILE given");
    if (!out) return cli_usage_error(CMD, "-o/--output: required (OUT.svg or OUT.html)");
    if (!*out) return cli_usage_error(CMD, "-o/--output: empty path");
    if (!strcmp(out, "-"))
        return cli_usage_error(CMD, "-o/--output: '-': plot writes OUT.svg or OUT.html to a "
                                    "file (stdout carries the table); give a path");
    if (po.labels.n > nfiles)
        return cli_usage_error(CMD, "--label: %d labels for %d files", po.labels.n, nfiles);
    size_t olen = strlen(out);
    po.html = olen >= 5 && (!strcmp(out + olen - 5, ".html") || !strcmp(out + olen - 4, ".htm"));
    const char *base = strrchr(out, '/'), *ext = strrchr(base ? base + 1 : out, '.');
    if (ext && strcmp(ext, ".svg") && strcmp(ext, ".html") && strcmp(ext, ".htm"))
        return cli_usage_error(CMD,
                               "-o/--output: '%s': plot writes .svg or .html (an SVG "
                               "written under another extension would mislead)",
                               out);
    return 0;
}

/* "a.hlog, b.hgrm (tag T)": the file names. */
static void auto_title(char *buf, size_t n, char **files, int nfiles, const char *tag) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < nfiles && used < n - 1; i++) {
        const char *b = strrchr(files[i], '/');
        b = b ? b + 1 : files[i];
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", b);
    }
    if (tag && used < n - 1) snprintf(buf + used, n - used, " (tag %s)", tag);
}

/* Every FILE into a series: 0 or the exit status after a message. */
static int load_all(ctx *c, char **files, int nfiles) {
    int rc = 0;
    for (int i = 0; i < nfiles && rc == 0; i++) {
        const char *path = files[i];
        char *label = i < po.labels.n ? strdup(po.labels.v[i]) : base_label(path);
        if (!label) return cli_lib_error(CMD, path, -ENOMEM);
        rc = lat_hgrm_is_table(path) ? load_hgrm(c, path, label) : load_hlog(c, path, label);
        free(label);
    }
    return rc;
}

/* The table on stdout, the plot to -o, the summary to --json. */
static int plot_write(const ctx *c, const char *title) {
    print_table(c);
    int w = po.html ? write_html(c, po.out, title, po.slos, po.nslo, po.log_y, po.theme)
                    : lat_plot_save_svg(c->plot, po.out);
    if (w) return cli_lib_error(CMD, po.out, w);
    if (po.json && (w = write_json(c, po.json, po.out, po.slos, po.nslo)))
        return cli_lib_error(CMD, po.json, w);
    return 0;
}

int cmd_plot(int argc, char **argv) {
    int first, rc = plot_parse(argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    ctx c;
    memset(&c, 0, sizeof c);
    c.unit_ns = po.unit_ns;
    c.ticks = (unsigned)po.ticks;
    c.ci = po.ci;
    c.tag = po.tag;
    char auto_buf[256];
    const char *title = po.title;
    if (!title) {
        auto_title(auto_buf, sizeof auto_buf, argv + first, argc - first, c.tag);
        title = auto_buf;
    }
    rc = lat_plot_create(title, &c.plot);
    if (rc) return cli_lib_error(CMD, "plot", rc);
    lat_plot_set_log_y(c.plot, po.log_y);
    lat_plot_set_theme(c.plot, po.theme);
    for (size_t i = 0; i < po.nslo; i++)
        lat_plot_add_slo(c.plot, NULL, (double)po.slos[i]);
    rc = load_all(&c, argv + first, argc - first);
    if (rc == 0) rc = plot_write(&c, title);
    for (size_t k = 0; k < c.ns; k++)
        free(c.s[k].label);
    lat_plot_destroy(c.plot);
    return rc;
}
