/* hist_export.c - `latlab hist export`: interval logs (.hlog, latlab's or
 * Java's or HdrHistogram_c's) to Prometheus: OpenMetrics / text (classic
 * histograms on latlab's fixed le list) or delimited protobuf (classic and
 * native), written to a file, served on /metrics, or pushed to a
 * Pushgateway.  Each file's intervals are merged per tag into one series; the
 * stage label is the tag, or the file's name without ".hlog".  Serving a
 * file is also how the tests give two "hosts" known distributions. */
#include "cli.h"
#include "hist_export.h"
#include "promcli.h"

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/hlog_merge.h"
#include "latlab/prom.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CMD "hist export"

/* The series: one merged histogram per stage label (latlab/hlog_merge.h). */
typedef lat_hlog_hists xstate;

static int write_output(const char *path, const void *data, size_t len) {
    if (path) {
        int rc = lat_write_file_atomic(path, data, len);
        return rc ? cli_lib_error(CMD, path, rc) : 0;
    }
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
        return cli_error(CMD, "stdout: %s", strerror(errno));
    return 0;
}

/* Block SIGINT/SIGTERM (the server thread inherits the mask) and wait for
 * one of them, or for seconds (> 0). */
static void wait_for_stop(double seconds) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (seconds > 0) {
        struct timespec ts = {.tv_sec = (time_t)seconds,
                              .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
        while (sigtimedwait(&set, NULL, &ts) < 0 && errno == EINTR) {
        }
    } else {
        int sig;
        sigwait(&set, &sig);
    }
}

/* What the options say (the table's destinations). */
typedef struct xopts {
    bool om, text, pb;
    const char *out, *tag, *stage, *serve;
    double serve_s;
    int format; /* LAT_PROM_TEXT, LAT_PROM_OPENMETRICS, 2 = protobuf; -1: none */
    cli_prom prom;
} xopts;

static xopts xo;

static int opt_stage(const char *cmd, const char *flag, const char *v, void *dest) {
    if (!*v || strlen(v) >= LAT_PROM_LABEL_MAX)
        return cli_usage_error(cmd, "%s: empty or too long", flag);
    *(const char **)dest = v;
    return 0;
}

static int opt_unit(const char *cmd, const char *flag, const char *v, void *dest) {
    static const char *const names[] = {"ns", "us", "ms", "s"};
    static const double secs[] = {1e-9, 1e-6, 1e-3, 1};
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, names[i])) return *(double *)dest = secs[i], 0;
    return cli_usage_error(cmd, "%s: '%s' is not ns, us, ms or s", flag, v);
}

static int opt_output(const char *cmd, const char *flag, const char *v, void *dest) {
    (void)flag;
    if (!*v) return cli_usage_error(cmd, "-o: empty path");
    *(const char **)dest = v;
    return 0;
}

static const cli_opt export_opts[] = {
    CLI_FLAG_OPT("openmetrics", &xo.om, "OpenMetrics text (classic histograms)"),
    CLI_FLAG_OPT("text", &xo.text, "Prometheus text format 0.0.4 (classic histograms)"),
    CLI_FLAG_OPT("protobuf", &xo.pb,
                 "delimited io.prometheus.client.MetricFamily: classic + native"),
    CLI_SHORT_OPT("output", 'o', CLI_CUSTOM, &xo.out, "F",
                  "write there (atomically) instead of stdout", opt_output),
    CLI_STR_OPT("tag", CLI_STRING, &xo.tag, "T", "only intervals tagged T"),
    CLI_CUSTOM_OPT("stage", opt_stage, &xo.stage, "NAME", "stage label (one series only)"),
    CLI_CUSTOM_OPT("unit", opt_unit, &xo.prom.unit_s, "U",
                   "what the logs' values are: ns (default), us, ms, s"),
    CLI_CUSTOM_OPT("serve", cli_prom_opt_addr, &xo.serve, "ADDR",
                   "serve GET /metrics on ADDR until SIGTERM/SIGINT (or --serve-seconds)"),
    CLI_NUM_OPT("serve-seconds", CLI_DOUBLE, &xo.serve_s, "S", "stop serving after S seconds",
                0.001, 86400),
    CLI_PROM_PUSH_ROWS(xo.prom),
    CLI_END,
};

const cli_spec hist_export_spec = {
    .name = CMD,
    .synopsis = "latlab hist export FILE.hlog... (--openmetrics|--text|--protobuf [-o F] |\n"
                "                                   --serve ADDR | --push URL) [OPTIONS]",
    .about = "Merge each file's intervals per tag and write them as Prometheus histograms\n"
             "(stage label: the tag, else the file name without .hlog; q1-wake -> q1+wake).\n",
    .opts = export_opts,
    .epilog = "On stderr, per series: count, native schema and the conversions' relative error\n"
              "bounds (classic 1/3; native 2^(2^-schema) - 1).\n",
    .max_args = -1,
};

/* Options and their combinations, checked before any file is read: 0, -1
 * after --help, or the exit status. */
static int export_parse(int argc, char **argv, int *first) {
    memset(&xo, 0, sizeof xo);
    cli_prom_init(&xo.prom);
    int rc = cli_parse(&hist_export_spec, argc, argv, first);
    if (rc) return rc;
    if (xo.serve) { /* cli_prom_serve serves at --metrics: named --serve in its messages */
        xo.prom.metrics_addr = xo.serve;
        xo.prom.metrics_flag = "--serve";
    }
    if (xo.om + xo.text + xo.pb > 1)
        return cli_usage_error(CMD, "--openmetrics, --text and --protobuf exclude each other");
    xo.format = xo.om ? LAT_PROM_OPENMETRICS : xo.text ? LAT_PROM_TEXT : xo.pb ? 2 : -1;
    if (*first >= argc) return cli_usage_error(CMD, "needs at least one FILE.hlog");
    if (cli_prom_check(&xo.prom, CMD)) return CLI_USAGE;
    if (xo.format < 0 && !xo.serve && !xo.prom.push_url)
        return cli_usage_error(CMD, "needs --openmetrics, --text, --protobuf, --serve or --push");
    if (xo.out && xo.format < 0)
        return cli_usage_error(CMD, "-o: needs a format (--openmetrics, ...)");
    if (xo.serve_s > 0 && !xo.serve)
        return cli_usage_error(CMD, "--serve-seconds: only with --serve");
    if (xo.format == 2 && !lat_prom_have_protobuf())
        return cli_error(CMD, "--protobuf: this latlab was built without protobuf-c "
                              "(native histograms are unavailable)");
    return 0;
}

int cli_hist_unique_paths(const char *cmd, char **paths, int n) {
    struct stat *ids = calloc(n > 0 ? (size_t)n : 1, sizeof *ids);
    bool *known = calloc(n > 0 ? (size_t)n : 1, sizeof *known);
    int kept = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        int same = -1;
        bool ok = ids && known && stat(paths[i], &st) == 0;
        for (int j = 0; ok && j < kept && same < 0; j++)
            if (known[j] && ids[j].st_dev == st.st_dev && ids[j].st_ino == st.st_ino) same = j;
        if (same >= 0) {
            cli_warn(cmd, "%s is the same file as %s: read once", paths[i], paths[same]);
            continue;
        }
        if (ids && known) {
            known[kept] = ok;
            if (ok) ids[kept] = st;
        }
        paths[kept++] = paths[i];
    }
    free(ids);
    free(known);
    return kept;
}

/* Every file into the series (one per stage), --stage applied.  0 or the exit status. */
static int load_series(xstate *x, char **files, int nfiles) {
    char err[1024];
    for (int i = 0; i < nfiles; i++)
        if (lat_hlog_hists_read(x, files[i], xo.tag, LAT_PROM_MAX_SERIES, err, sizeof err))
            return cli_error(CMD, "%s", err);
    if (x->n == 0)
        return cli_error(CMD, "%s%s: no intervals%s%s%s", files[0],
                         nfiles > 1 ? " (and the rest)" : "", xo.tag ? " tagged '" : "",
                         xo.tag ? xo.tag : "", xo.tag ? "'" : "");
    if (xo.stage) {
        if (x->n > 1) return cli_usage_error(CMD, "--stage: the input has %d series", x->n);
        snprintf(x->v[0].key, sizeof x->v[0].key, "%s", xo.stage);
    }
    return 0;
}

/* The exposition in the chosen format, to -o or stdout. */
static int write_exposition(lat_prom_exporter *e) {
    size_t cap = lat_prom_exporter_bound(e), len = 0;
    void *buf = malloc(cap);
    if (!buf) return cli_error(CMD, "out of memory");
    int rc = xo.format == 2 ? lat_prom_exporter_protobuf(e, buf, cap, &len)
                            : lat_prom_exporter_text(e, xo.format, buf, cap, &len);
    int status = rc ? cli_lib_error(CMD, "exposition", rc) : write_output(xo.out, buf, len);
    free(buf);
    return status;
}

static int serve_until_stopped(int n, const char *const *names, const lat_hist *const *hs) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    lat_prom_server *srv = NULL;
    int status = cli_prom_serve(&xo.prom, CMD, n, names, hs, &srv);
    if (status) return status;
    wait_for_stop(xo.serve_s);
    lat_prom_server_destroy(srv);
    return 0;
}

/* Convert, then write, push and serve as asked.  0 or the exit status. */
static int export_series(const xstate *x) {
    const char *names[LAT_PROM_MAX_SERIES];
    const lat_hist *hs[LAT_PROM_MAX_SERIES];
    for (int i = 0; i < x->n; i++) {
        names[i] = x->v[i].key;
        hs[i] = &x->v[i].h;
    }
    if (xo.prom.push_delete) return cli_prom_push(&xo.prom, CMD, x->n, names, NULL);
    lat_prom_exporter *e = NULL;
    int rc, status = cli_prom_exporter(&xo.prom, CMD, x->n, names, &e);
    for (int i = 0; i < x->n && !status; i++) {
        if ((rc = lat_prom_exporter_set(e, i, hs[i])) != 0) {
            status = cli_lib_error(CMD, names[i], rc);
            break;
        }
        fprintf(stderr,
                "latlab %s: stage=%s count=%lld classic_rel_error=%.4f native_schema=%d "
                "native_rel_error=%.6f\n",
                CMD, names[i], (long long)lat_hist_total(hs[i]), LAT_PROM_CLASSIC_REL_ERROR,
                lat_prom_exporter_schema(e, i), lat_prom_exporter_rel_error(e, i));
    }
    if (!status && xo.format >= 0) status = write_exposition(e);
    if (!status && xo.prom.push_url) status = cli_prom_push(&xo.prom, CMD, x->n, names, hs);
    if (!status && xo.serve) status = serve_until_stopped(x->n, names, hs);
    lat_prom_exporter_destroy(e);
    return status;
}

int cli_hist_export(int argc, char **argv) {
    int first, rc = export_parse(argc, argv, &first);
    if (rc) return rc < 0 ? CLI_OK : rc;
    xstate *x = calloc(1, sizeof *x);
    if (!x) return cli_error(CMD, "out of memory");
    int status =
        load_series(x, argv + first, cli_hist_unique_paths(CMD, argv + first, argc - first));
    if (!status) status = export_series(x);
    lat_hlog_hists_fini(x);
    free(x);
    return status;
}
