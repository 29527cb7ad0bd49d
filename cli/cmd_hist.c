/* cmd_hist.c - `latlab hist`: read, merge and summarise HdrHistogram interval
 * logs (.hlog, format 1.2/1.3, from latlab, Java or HdrHistogram_c).
 *
 *   percentiles  merge the intervals of one tag and print the .hgrm table
 *                exactly as Java's HistogramLogProcessor writes out.hgrm, or
 *                (--intervals) its per-interval lines;
 *   tags         the tags present;
 *   merge        union of several logs' intervals, in time order, as one 1.3 log;
 *   summary      count, min, p50..p99.99, max, mean per tag, one line each.
 * Corrupt or truncated input stops with exit 1 naming the file, line and
 * reason.  Files we write (-o, --json) are written atomically. */
#include "cli.h"
#include "cliopts.h"
#include "hist_export.h"

#include "latlab/json.h"
#include "latlab/budget.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/hlog_merge.h"
#include "latlab/hlog_processor.h"
#include "latlab/hlog_summary.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CMD "hist"

/* ---- shared helpers -------------------------------------------------------------------- */

static int open_log(const char *path, lat_hlog_reader **r) {
    char err[1024];
    return lat_hlog_summary_reader_create(path, r, err, sizeof err) ? cli_error(CMD, "%s", err) : 0;
}

/* --confidence: a fraction 0.5..0.9999 or a percentage 50..99.99. */
static int opt_confidence(const char *cmd, const char *flag, const char *arg, void *dest) {
    double c;
    if (cli_parse_double(cmd, flag, arg, 0.5, 99.99, &c)) return CLI_USAGE;
    if (c > 0.9999 && c < 50)
        return cli_usage_error(cmd, "%s: '%s' is neither 0.5..0.9999 nor 50..99.99", flag, arg);
    *(double *)dest = c >= 50 ? c / 100 : c;
    return 0;
}

#define CONFIDENCE_HELP "the intervals' confidence, 0.5..0.9999 or 50..99.99 (default 0.95)"

/* ---- percentiles ------------------------------------------------------------------------ */

/* What the options say (the table's destinations). */
typedef struct pct_opts {
    const char *tag, *outpath, *json, *path;
    double scale, start, end, confidence;
    bool csv, intervals, have_end, ci, have_scale;
    int ticks;
} pct_opts;

static pct_opts po;

static const cli_opt pct_table[] = {
    CLI_STR_OPT("tag", CLI_STRING, &po.tag, "T", "use the intervals tagged T"),
    CLI_SEEN_OPT("scale", CLI_DOUBLE, &po.scale, "R",
                 "divide values by R in the output, like HistogramLogProcessor's\n"
                 "-outputValueUnitRatio (default: from the data, 1, 1000 or 1000000, so\n"
                 "that the median shows at least one whole unit: ns, us or ms)",
                 1e-300, 1e300, NULL, &po.have_scale),
    CLI_NUM_OPT("ticks", CLI_INT, &po.ticks, "N",
                "percentile ticks per half distance (1..1000, default 5)", 1, 1000),
    CLI_FLAG_OPT("csv", &po.csv, "CSV instead of the text table"),
    CLI_NUM_OPT("start", CLI_DOUBLE, &po.start, "S",
                "only intervals starting S seconds or more after StartTime", 0, 1e15),
    CLI_SEEN_OPT("end", CLI_DOUBLE, &po.end, "S",
                 "only intervals starting at most S seconds after StartTime", 0, 1e15, NULL,
                 &po.have_end),
    CLI_FLAG_OPT("intervals", &po.intervals,
                 "per-interval lines (Java's out file) instead of the table"),
    CLI_SHORT_OPT("output", 'o', CLI_STRING, &po.outpath, "F",
                  "write to F (atomically) instead of stdout", NULL),
    CLI_STR_OPT("json", CLI_STRING, &po.json, "FILE",
                "also write count, min, max, mean, stddev and percentiles as JSON\n"
                "(each percentile with \"lo\"/\"hi\": its 95% interval, or --confidence's)"),
    CLI_FLAG_OPT("ci", &po.ci,
                 "two more columns, CI_Low and CI_High: the confidence interval of\n"
                 "each row's percentile from the counts (order statistics; rows whose\n"
                 "upper end is the maximum are flagged max-bound in the footer)"),
    CLI_CUSTOM_OPT("confidence", opt_confidence, &po.confidence, "C", CONFIDENCE_HELP),
    CLI_END,
};

static const cli_spec pct_spec = {
    .name = CMD,
    .synopsis = "latlab hist percentiles FILE.hlog [OPTIONS]",
    .about = "Merge the intervals of one tag (default: the untagged ones) and print the\n"
             "percentile distribution exactly as Java's HistogramLogProcessor writes its\n"
             ".hgrm file; with --intervals, print its per-interval lines instead.\n",
    .opts = pct_table,
    .max_args = -1,
};

/* Options and the file, checked before it is read: 0, -1 after --help, or the exit status. */
static int pct_parse(int argc, char **argv) {
    po = (pct_opts){.scale = 1e6, .end = INFINITY, .confidence = LAT_HIST_CI_DEFAULT, .ticks = 5};
    int first, rc = cli_parse(&pct_spec, argc, argv, &first);
    if (rc) return rc;
    if (first + 1 != argc)
        return cli_usage_error(CMD, first >= argc ? "percentiles needs one FILE.hlog"
                                                  : "percentiles takes one FILE.hlog");
    po.path = argv[first];
    if (po.have_end && po.end < po.start) return cli_usage_error(CMD, "--end is before --start");
    if (po.ci && po.intervals)
        return cli_usage_error(CMD, "--ci: applies to the percentile table, not --intervals");
    if (po.tag && (!*po.tag || strpbrk(po.tag, ", \r\n")))
        return cli_usage_error(CMD, "--tag: '%s' is not a valid tag", po.tag);
    return 0;
}

/* Merge the selected intervals into *total (printing each with --intervals).
 * 0 or the exit status after a message. */
static int pct_accumulate(lat_hlog_reader *r, FILE *f, lat_hist *total) {
    char err[1024];
    lat_hlog_select sel = {po.tag, po.start, po.end};
    if (lat_hlog_summary_total(r, po.path, &sel, po.intervals ? f : NULL, po.csv, po.scale, total,
                               err, sizeof err))
        return cli_error(CMD, "%s", err);
    return 0;
}

/* No --scale: 1, 1000 or 1000000 (values recorded in ns: ns, us, ms), the
 * largest that keeps the median at one unit or more, said on stderr.  With
 * --intervals the lines come before the total: a first pass finds it.  0 or
 * the exit status. */
static int pct_pick_scale(void) {
    if (po.have_scale) return 0;
    lat_hlog_reader *r = NULL;
    if (open_log(po.path, &r)) return CLI_ERR;
    lat_hist total = {0};
    bool iv = po.intervals;
    po.intervals = false;
    int status = pct_accumulate(r, NULL, &total);
    po.intervals = iv;
    lat_hlog_reader_destroy(r);
    int64_t p50 = !status && lat_hist_total(&total) ? lat_hist_value_at_percentile(&total, 50) : 0;
    lat_hist_fini(&total); /* on an error too: the first interval may have made it */
    if (status) return status;
    po.scale = p50 >= 1000000 ? 1e6 : p50 >= 1000 ? 1e3 : 1;
    fprintf(stderr,
            "latlab %s: values divided by %.0f (the median is %" PRId64
            " as recorded; --scale R sets it)\n",
            CMD, po.scale, p50);
    return 0;
}

static int cmd_percentiles(int argc, char **argv) {
    int status = pct_parse(argc, argv);
    if (status) return status < 0 ? CLI_OK : status;
    if ((status = pct_pick_scale()) != 0) return status;
    lat_hlog_reader *r = NULL;
    if (open_log(po.path, &r)) return CLI_ERR;
    lat_hist total = {0};
    cli_out o;
    if (cli_out_open(&o, CMD, po.outpath)) {
        lat_hlog_reader_destroy(r);
        return CLI_ERR;
    }
    status = pct_accumulate(r, o.f, &total);
    if (!status && !po.intervals) {
        lat_hlog_processor_range(o.f, "Overall", po.start, po.end, lat_hlog_reader_start_time(r));
        int wrc = lat_hist_write_percentiles_ci(o.f, &total, po.ticks, po.scale, po.csv,
                                                po.ci ? po.confidence : 0.0);
        if (wrc < 0) status = cli_lib_error(CMD, po.outpath ? po.outpath : "stdout", wrc);
    }
    if (!status && po.json)
        status = cli_write_json(
            CMD, po.json, lat_hlog_summary_json(po.path, po.tag, &total, po.scale, po.confidence));
    status = cli_out_close(&o, CMD, po.outpath, status);
    lat_hist_fini(&total);
    lat_hlog_reader_destroy(r);
    return status;
}

/* ---- tags and summary ----------------------------------------------------------------- */

/* tags and summary share one table: --scale and --confidence are for summary. */
static const char *ts_json;
static double ts_scale, ts_confidence;
static bool ts_scale_seen, ts_confidence_seen;

static const cli_opt ts_table[] = {
    {.name = "json",
     .kind = CLI_STRING,
     .dest = &ts_json,
     .metavar = "FILE",
     .help = "also write the list (tags) or the lines (summary) as JSON"},
    CLI_SEEN_OPT("scale", CLI_DOUBLE, &ts_scale, "R",
                 "summary: divide values by R (default 1: as recorded)", 1e-300, 1e300, NULL,
                 &ts_scale_seen),
    CLI_SEEN_OPT("confidence", CLI_CUSTOM, &ts_confidence, "C", "summary: " CONFIDENCE_HELP, 0, 0,
                 opt_confidence, &ts_confidence_seen),
    CLI_END,
};

static const cli_spec tags_spec = {
    .name = CMD,
    .synopsis = "latlab hist tags FILE.hlog [--json FILE]",
    .about = "List the tags found (\"(untagged)\" for intervals without one).\n",
    .opts = ts_table,
    .max_args = -1,
};

static const cli_spec summary_spec = {
    .name = CMD,
    .synopsis = "latlab hist summary FILE.hlog [--scale R] [--confidence C] [--json FILE]",
    .about = "One line per tag: count, min, p50, p90, p99, p99.9, p99.99, max, mean (values\n"
             "divided by --scale, default 1: as recorded), then per tag a line of 95%\n"
             "intervals (--confidence C to change) and the histogram's resolution.\n",
    .opts = ts_table,
    .max_args = -1,
};

/* Options and the file: 0, -1 after --help, or the exit status. */
static int ts_parse(int argc, char **argv, bool summary, const char **path) {
    ts_json = NULL, ts_scale = 1.0, ts_confidence = LAT_HIST_CI_DEFAULT;
    int first, rc = cli_parse(summary ? &summary_spec : &tags_spec, argc, argv, &first);
    if (rc) return rc;
    if (!summary && ts_confidence_seen)
        return cli_usage_error(CMD, "--confidence applies to summary only");
    if (!summary && ts_scale_seen) return cli_usage_error(CMD, "--scale applies to summary only");
    if (ts_json && !*ts_json) return cli_usage_error(CMD, "--json: empty file name");
    if (first + 1 != argc)
        return cli_usage_error(CMD, "%s takes one FILE.hlog", summary ? "summary" : "tags");
    *path = argv[first];
    return 0;
}

static int cmd_tags_or_summary(int argc, char **argv, bool summary) {
    const char *path = NULL;
    int status = ts_parse(argc, argv, summary, &path);
    if (status) return status < 0 ? CLI_OK : status;
    lat_hlog_tags t;
    lat_hlog_tags_init(&t, summary);
    char err[1024];
    if (lat_hlog_summary_gather(path, &t, err, sizeof err)) status = cli_error(CMD, "%s", err);
    if (status) {
        lat_hlog_tags_fini(&t);
        return status;
    }
    json_t *arr = ts_json ? json_array() : NULL;
    if (summary && lat_hlog_summary_print(stdout, t.tag, t.n, ts_scale, ts_confidence, arr))
        status = cli_error(CMD, "out of memory");
    else if (!summary)
        lat_hlog_summary_tags(stdout, t.tag, t.n, arr);
    lat_hlog_tags_fini(&t);
    if (!ts_json || status) {
        json_decref(arr);
        return status;
    }
    json_t *j = json_pack("{s:s, s:o}", "file", path, summary ? "summary" : "tags", arr);
    if (j && summary) json_object_set_new(j, "confidence", json_real(ts_confidence));
    return cli_write_json(CMD, ts_json, j);
}

static int cmd_tags(int argc, char **argv) {
    return cmd_tags_or_summary(argc, argv, false);
}

static int cmd_summary(int argc, char **argv) {
    return cmd_tags_or_summary(argc, argv, true);
}

/* ---- merge -------------------------------------------------------------------------------- */

static const char *merge_out;

static const cli_opt merge_table[] = {
    CLI_SHORT_OPT("output", 'o', CLI_STRING, &merge_out, "OUT.hlog",
                  "the merged log (required; written atomically)", NULL),
    CLI_END,
};

static const cli_spec merge_spec = {
    .name = CMD,
    .synopsis = "latlab hist merge A.hlog B.hlog... -o OUT.hlog",
    .about = "Write the intervals of all inputs, ordered by start time, as one 1.3 log;\n"
             "timestamps are re-based on the earliest input.\n",
    .opts = merge_table,
    .max_args = -1,
};

static int cmd_merge(int argc, char **argv) {
    merge_out = NULL;
    int first, prc = cli_parse(&merge_spec, argc, argv, &first);
    if (prc) return prc < 0 ? CLI_OK : prc;
    const char *outpath = merge_out;
    if (!outpath) return cli_usage_error(CMD, "merge needs -o OUT.hlog");
    if (!*outpath) return cli_usage_error(CMD, "-o: empty file name");
    if (argc - first < 1) return cli_usage_error(CMD, "merge needs input logs");
    int status = CLI_OK, nin = cli_hist_unique_paths(CMD, argv + first, argc - first);
    lat_hlog_merge *m = NULL;
    lat_hlog_reader **readers = calloc((size_t)nin, sizeof *readers);
    if (!readers || lat_hlog_merge_create(&m) < 0) status = cli_error(CMD, "out of memory");
    for (int i = 0; i < nin && status == CLI_OK; i++) {
        const char *path = argv[first + i];
        if (open_log(path, &readers[i])) {
            status = CLI_ERR;
            break;
        }
        int rc = lat_hlog_merge_add(m, readers[i]);
        if (rc < 0) {
            const char *why = lat_hlog_reader_reason(readers[i]);
            status = cli_error(CMD, "%s:%d: %s", path, lat_hlog_reader_line(readers[i]),
                               why && *why ? why : lat_strerror(rc));
        }
    }
    if (status == CLI_OK && lat_hlog_merge_count(m) == 0)
        status = cli_error(CMD, "no intervals in the inputs");
    cli_out o;
    if (status == CLI_OK && cli_out_open(&o, CMD, outpath)) {
        status = CLI_ERR;
    } else if (status == CLI_OK) {
        int rc = lat_hlog_merge_write(m, o.f);
        if (rc < 0) status = cli_error(CMD, "%s: %s", outpath, lat_strerror(rc));
        status = cli_out_close(&o, CMD, outpath, status);
    }
    for (int i = 0; readers && i < nin; i++)
        lat_hlog_reader_destroy(readers[i]);
    free(readers);
    lat_hlog_merge_destroy(m);
    return status;
}

static const cli_sub hist_subs[] = {
    {"percentiles", cmd_percentiles, &pct_spec, "the percentile table of one tag (.hgrm format)"},
    {"tags", cmd_tags, &tags_spec, "the tags in a log"},
    {"merge", cmd_merge, &merge_spec, "several logs into one, by start time"},
    {"summary", cmd_summary, &summary_spec, "one line of percentiles per tag"},
    {"export", cli_hist_export, &hist_export_spec, "to Prometheus: file, /metrics or Pushgateway"},
    {NULL, NULL, NULL, NULL},
};

const cli_spec cmd_hist_spec = {
    .name = CMD,
    .about = "Read HdrHistogram interval logs (format 1.2 and 1.3: latlab's, Java's\n"
             "HistogramLogWriter's, HdrHistogram_c's).\n",
    .subs = hist_subs,
    .epilog = "Exit status: 0 ok, 1 unreadable/corrupt/truncated input (file:line: reason) or\n"
              "write error, 2 usage error.\n",
};

int cmd_hist(int argc, char **argv) {
    return cli_group_run(&cmd_hist_spec, argc, argv);
}
