/* cmd_plot.c - `latlab plot`: latency-by-percentile plots from .hlog / .hgrm files.
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
#include "latlab/plotset.h"
#include "latlab/report.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define CMD "plot"
#define MAX_LABELS 64

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
                   "legend label for the next FILE, in order (repeatable; default:\n"
                   "the file name less its extension, with the directories that\n"
                   "tell two such names apart: a/work, b/work)"),
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

/* Every FILE into a series: 0 or the exit status after a message. */
static int load_all(lat_plotset *c, char **files, int nfiles) {
    for (int i = 0; i < nfiles; i++) {
        const char *path = files[i];
        char *label = i < po.labels.n ? strdup(po.labels.v[i])
                                      : lat_plotset_label(files, (size_t)nfiles, (size_t)i);
        if (!label) return cli_lib_error(CMD, path, -ENOMEM);
        int rc = lat_plotset_add(c, path, label);
        free(label);
        if (rc) return cli_error(CMD, "%s", c->err);
    }
    return 0;
}

/* The table on stdout, the plot to -o, the summary to --json. */
static int plot_write(const lat_plotset *c, const char *title) {
    lat_plotset_print_table(c, stdout);
    int w = po.html ? lat_plotset_write_html(c, po.out, title, po.slos, po.nslo, po.log_y, po.theme)
                    : lat_plot_save_svg(c->plot, po.out);
    if (w) return cli_lib_error(CMD, po.out, w);
    json_t *j = po.json ? lat_plotset_json(c, po.out, po.slos, po.nslo) : NULL;
    return po.json ? cli_write_json(CMD, po.json, j) : 0;
}

int cmd_plot(int argc, char **argv) {
    int first, rc = plot_parse(argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    static lat_plotset c;
    memset(&c, 0, sizeof c);
    c.unit_ns = po.unit_ns;
    c.ticks = (unsigned)po.ticks;
    c.ci = po.ci;
    c.tag = po.tag;
    c.warn = cli_warn_cb;
    c.ud = CMD;
    char auto_buf[256];
    const char *title = po.title ? po.title
                                 : lat_plotset_title(auto_buf, sizeof auto_buf, argv + first,
                                                     (size_t)(argc - first), c.tag);
    rc = lat_plot_create(title, &c.plot);
    if (rc) return cli_lib_error(CMD, "plot", rc);
    lat_plot_set_log_y(c.plot, po.log_y);
    lat_plot_set_theme(c.plot, po.theme);
    for (size_t i = 0; i < po.nslo; i++)
        lat_plot_add_slo(c.plot, NULL, (double)po.slos[i]);
    rc = load_all(&c, argv + first, argc - first);
    if (rc == 0) rc = plot_write(&c, title);
    lat_plotset_fini(&c);
    lat_plot_destroy(c.plot);
    return rc;
}
