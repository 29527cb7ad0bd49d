/* plot.c - `latlab plot`: latency-by-percentile plots from .hlog / .hgrm files.
 *
 * Each input becomes one series (an interval log holding several tags gives
 * one series per tag unless --tag picks one); all intervals of a series are
 * merged into one histogram.  .hgrm files (HdrHistogram's percentile table,
 * plain or CSV) are read as text.  The picture is written atomically as SVG,
 * or as a one-page HTML report (plot + summary table) when OUT ends in .html;
 * a summary table goes to stdout and --json writes the same figures. */
#include "cli.h"

#include "latlab/json.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/report.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_plot_usage[] =
    "usage: latlab plot FILE... -o OUT.svg|OUT.html [options]\n"
    "\n"
    "Plot latency against percentile (HdrHistogram style: x = 1/(1-p) on a log\n"
    "scale, labelled 0%, 90%, 99%, 99.9%, ...) for one or more histograms.\n"
    "FILE is an interval log (.hlog; all intervals of a tag are merged) or a\n"
    "percentile table (.hgrm, plain or CSV).  A log with several tags gives one\n"
    "series per tag unless --tag picks one.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT     write OUT.svg (standalone SVG) or OUT.html (a page with\n"
    "                       the plot and a summary table); written atomically\n"
    "  --tag T              only intervals tagged T (.hlog inputs)\n"
    "  --label NAME         legend label for the next FILE, in order (repeatable;\n"
    "                       default: the file name without its extension)\n"
    "  --slo DURATION       horizontal SLO line, e.g. 1us, 250ns, 2ms (repeatable)\n"
    "  --log-y              logarithmic latency axis (default linear from 0)\n"
    "  --theme T            auto (follows the viewer's light/dark setting), light\n"
    "                       or dark (default auto)\n"
    "  --title TEXT         plot title (default: the file names)\n"
    "  --unit U             unit of the recorded values / .hgrm Value column:\n"
    "                       ns, us, ms or s (default ns; Java's\n"
    "                       HistogramLogProcessor writes .hgrm in ms)\n"
    "  --ticks N            percentile ticks per half distance to 100% (default 5)\n"
    "  --ci                 with .hlog input: draw each point's 95% confidence interval\n"
    "                       (order statistics from the counts) as a band; off by default\n"
    "                       so a log and its .hgrm draw the same picture\n"
    "  --json FILE          also write the per-series summary as JSON\n"
    "  -h, --help           this text\n"
    "\n"
    "Exit status: 0 ok, 1 unreadable or corrupt input (file and line named) or\n"
    "write failure, 2 usage error.\n";

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

static int read_all(const char *path, char **text, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= LAT_HLOG_MAX_FILE_BYTES) { /* the same limit as interval logs */
                free(buf);
                fclose(f);
                return -EFBIG;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                return -ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        bool nul = got && memchr(buf + n, '\0', got); /* text ends here: the parser says where */
        n += got;
        if (got == 0 || nul) break;
    }
    int err = ferror(f) ? -EIO : 0;
    fclose(f);
    if (err) {
        free(buf);
        return err;
    }
    *text = buf;
    *len = n;
    return 0;
}

static int load_hgrm(ctx *c, const char *path, const char *label) {
    char *text = NULL;
    size_t len = 0;
    int rc = read_all(path, &text, &len);
    if (rc) return cli_error(CMD, "%s: cannot read: %s", path, lat_strerror(rc));
    if (c->tag) cli_warn(CMD, "%s: --tag applies to interval logs, not .hgrm tables", path);
    lat_hgrm h;
    size_t line = 0;
    rc = lat_hgrm_parse(text, len, c->unit_ns, &h, &line);
    free(text);
    if (rc == LAT_EFORMAT)
        return cli_error(CMD, "%s:%zu: not a percentile-table row (.hgrm)", path, line);
    if (rc) return cli_lib_error(CMD, path, rc);
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
    lat_hgrm_release(&h);
    return rc;
}

/* ---- .hlog --------------------------------------------------------------------------------- */

typedef struct group {
    char tag[LAT_HLOG_TAG_MAX];
    lat_hist acc;
} group;

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
    group groups[LAT_PLOT_MAX_SERIES];
    size_t ng = 0;
    int rc = lat_hlog_reader_open(path, &r);
    if (rc) return cli_error(CMD, "%s: cannot read: %s", path, lat_strerror(rc));
    lat_hlog_reader_fit(r, true); /* merged with lat_hist_add_resize below */
    lat_hlog_interval *iv;
    while ((rc = lat_hlog_next(r, &iv)) > 0) {
        if (c->tag && strcmp(iv->tag, c->tag)) continue;
        size_t g = 0;
        while (g < ng && strcmp(groups[g].tag, iv->tag))
            g++;
        if (g == ng) {
            if (ng == LAT_PLOT_MAX_SERIES) {
                rc = cli_error(CMD, "%s:%d: too many tags (at most %d series)", path, iv->line,
                               LAT_PLOT_MAX_SERIES);
                goto out;
            }
            memset(&groups[g], 0, sizeof groups[g]);
            snprintf(groups[g].tag, sizeof groups[g].tag, "%s", iv->tag);
            if ((rc = lat_hist_copy(&groups[g].acc, &iv->hist))) {
                rc = cli_lib_error(CMD, path, rc);
                goto out;
            }
            ng++;
        } else if ((rc = lat_hist_add_resize(&groups[g].acc, &iv->hist)) < 0) {
            rc = cli_error(CMD, "%s:%d: %s", path, iv->line,
                           rc == -EOVERFLOW ? "the merged total count would pass 2^63-1"
                                            : lat_strerror(rc));
            goto out;
        }
    }
    if (rc < 0) {
        const char *why = lat_hlog_reader_reason(r);
        rc = cli_error(CMD, "%s:%d: %s", path, lat_hlog_reader_line(r),
                       why && *why ? why : lat_strerror(rc));
        goto out;
    }
    if (ng == 0) {
        if (c->tag)
            cli_warn(CMD, "%s: no interval tagged '%s': plotted as an empty series", path, c->tag);
        else
            cli_warn(CMD, "%s: no intervals: plotted as an empty series", path);
        rc = add_hist_series(c, path, label, c->tag, NULL);
        goto out;
    }
    for (size_t g = 0; g < ng; g++) {
        char name[512];
        if (ng > 1 && groups[g].tag[0])
            snprintf(name, sizeof name, "%.300s:%.127s", label, groups[g].tag);
        else
            snprintf(name, sizeof name, "%.400s", label);
        if ((rc = add_hist_series(c, path, name, groups[g].tag, &groups[g].acc))) goto out;
    }
    rc = 0;
out:
    for (size_t g = 0; g < ng; g++)
        lat_hist_free(&groups[g].acc);
    lat_hlog_reader_close(r);
    return rc;
}

/* .hgrm by extension; otherwise by content: a line starting "#[Histogram log",
 * "Tag=" or a legend naming Interval_Compressed_Histogram means an interval log. */
static int is_hgrm(const char *path) {
    size_t n = strlen(path);
    if (n >= 5 && !strcmp(path + n - 5, ".hgrm")) return 1;
    if (n >= 5 && !strcmp(path + n - 5, ".hlog")) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0; /* the hlog reader reports it */
    char line[512];
    int hgrm = 1;
    for (int i = 0; i < 8 && fgets(line, sizeof line, f); i++) {
        if (!strncmp(line, "#[Histogram log", 15) || !strncmp(line, "Tag=", 4) ||
            strstr(line, "Interval_Compressed_Histogram") || strstr(line, ",HIST")) {
            hgrm = 0;
            break;
        }
    }
    fclose(f);
    return hgrm;
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
    lat_report_free(r);
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

int cmd_plot(int argc, char **argv) {
    enum { O_TAG = 256, O_LABEL, O_SLO, O_LOGY, O_THEME, O_TITLE, O_UNIT, O_TICKS, O_JSON, O_CI };
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"tag", required_argument, NULL, O_TAG},
                                         {"label", required_argument, NULL, O_LABEL},
                                         {"slo", required_argument, NULL, O_SLO},
                                         {"log-y", no_argument, NULL, O_LOGY},
                                         {"theme", required_argument, NULL, O_THEME},
                                         {"title", required_argument, NULL, O_TITLE},
                                         {"unit", required_argument, NULL, O_UNIT},
                                         {"ticks", required_argument, NULL, O_TICKS},
                                         {"json", required_argument, NULL, O_JSON},
                                         {"ci", no_argument, NULL, O_CI},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *title = NULL, *json = NULL;
    const char *labels[MAX_LABELS];
    size_t nlabels = 0, nslo = 0;
    uint64_t slos[LAT_PLOT_MAX_SLOS];
    bool log_y = false;
    lat_theme theme = LAT_THEME_AUTO;
    ctx c;
    memset(&c, 0, sizeof c);
    c.unit_ns = 1;
    c.ticks = 5;

    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            fputs(cmd_plot_usage, stdout);
            return CLI_OK;
        case 'o':
            out = optarg;
            break;
        case O_TAG:
            if (!*optarg || strpbrk(optarg, ", \r\n") || strlen(optarg) >= LAT_HLOG_TAG_MAX)
                return cli_usage_error(CMD, "--tag: '%s' is not a valid tag", optarg);
            c.tag = optarg;
            break;
        case O_LABEL:
            if (nlabels == MAX_LABELS)
                return cli_usage_error(CMD, "--label: at most %d labels", MAX_LABELS);
            labels[nlabels++] = optarg;
            break;
        case O_SLO: {
            uint64_t ns;
            int rc = cli_parse_duration_ns(CMD, "--slo", optarg, &ns);
            if (rc) return rc;
            if (ns == 0) return cli_usage_error(CMD, "--slo: must be above zero");
            if (nslo == LAT_PLOT_MAX_SLOS)
                return cli_usage_error(CMD, "--slo: at most %d lines", LAT_PLOT_MAX_SLOS);
            slos[nslo++] = ns;
            break;
        }
        case O_LOGY:
            log_y = true;
            break;
        case O_THEME:
            if (!strcmp(optarg, "auto"))
                theme = LAT_THEME_AUTO;
            else if (!strcmp(optarg, "light"))
                theme = LAT_THEME_LIGHT;
            else if (!strcmp(optarg, "dark"))
                theme = LAT_THEME_DARK;
            else
                return cli_usage_error(CMD, "--theme: '%s': use auto, light or dark", optarg);
            break;
        case O_TITLE:
            title = optarg;
            break;
        case O_UNIT:
            if (!strcmp(optarg, "ns"))
                c.unit_ns = 1;
            else if (!strcmp(optarg, "us"))
                c.unit_ns = 1e3;
            else if (!strcmp(optarg, "ms"))
                c.unit_ns = 1e6;
            else if (!strcmp(optarg, "s"))
                c.unit_ns = 1e9;
            else
                return cli_usage_error(CMD, "--unit: '%s': use ns, us, ms or s", optarg);
            break;
        case O_TICKS: {
            uint64_t t;
            int rc = cli_parse_u64(CMD, "--ticks", optarg, 1, 1000, &t);
            if (rc) return rc;
            c.ticks = (unsigned)t;
            break;
        }
        case O_JSON:
            json = optarg;
            break;
        case O_CI:
            c.ci = true;
            break;
        default:
            return cli_getopt_fail(CMD, ch, argv);
        }
    }
    int nfiles = argc - optind;
    if (nfiles < 1) return cli_usage_error(CMD, "no input FILE given");
    if (!out) return cli_usage_error(CMD, "-o/--output: required (OUT.svg or OUT.html)");
    if (!*out) return cli_usage_error(CMD, "-o/--output: empty path");
    if (nlabels > (size_t)nfiles)
        return cli_usage_error(CMD, "--label: %zu labels for %d files", nlabels, nfiles);
    size_t olen = strlen(out);
    bool html = olen >= 5 && (!strcmp(out + olen - 5, ".html") || !strcmp(out + olen - 4, ".htm"));
    const char *base = strrchr(out, '/'), *ext = strrchr(base ? base + 1 : out, '.');
    if (ext && strcmp(ext, ".svg") && strcmp(ext, ".html") && strcmp(ext, ".htm"))
        return cli_usage_error(CMD,
                               "-o/--output: '%s': plot writes .svg or .html (an SVG "
                               "written under another extension would mislead)",
                               out);

    char auto_title[256];
    if (!title) {
        size_t used = 0;
        auto_title[0] = 0;
        for (int i = 0; i < nfiles && used < sizeof auto_title - 1; i++) {
            const char *b = strrchr(argv[optind + i], '/');
            b = b ? b + 1 : argv[optind + i];
            used += (size_t)snprintf(auto_title + used, sizeof auto_title - used, "%s%s",
                                     i ? ", " : "", b);
        }
        if (c.tag && used < sizeof auto_title - 1)
            snprintf(auto_title + used, sizeof auto_title - used, " (tag %s)", c.tag);
        title = auto_title;
    }

    int rc = lat_plot_create(title, &c.plot);
    if (rc) return cli_lib_error(CMD, "plot", rc);
    lat_plot_set_log_y(c.plot, log_y);
    lat_plot_set_theme(c.plot, theme);
    for (size_t i = 0; i < nslo; i++)
        lat_plot_add_slo(c.plot, NULL, (double)slos[i]);

    for (int i = 0; i < nfiles && rc == 0; i++) {
        const char *path = argv[optind + i];
        char *label = (size_t)i < nlabels ? strdup(labels[i]) : base_label(path);
        if (!label) {
            rc = cli_lib_error(CMD, path, -ENOMEM);
            break;
        }
        rc = is_hgrm(path) ? load_hgrm(&c, path, label) : load_hlog(&c, path, label);
        free(label);
    }
    if (rc == 0) {
        print_table(&c);
        int w = html ? write_html(&c, out, title, slos, nslo, log_y, theme)
                     : lat_plot_save_svg(c.plot, out);
        if (w) rc = cli_lib_error(CMD, out, w);
    }
    if (rc == 0 && json) {
        int w = write_json(&c, json, out, slos, nslo);
        if (w) rc = cli_lib_error(CMD, json, w);
    }
    for (size_t k = 0; k < c.ns; k++)
        free(c.s[k].label);
    lat_plot_free(c.plot);
    return rc;
}
