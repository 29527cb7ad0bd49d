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
#include "latlab/prom.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CMD "hist export"

enum { X_OM = 1000, X_TEXT, X_PB, X_TAG, X_STAGE, X_UNIT, X_SERVE, X_SERVE_S };

static const struct option xopts[] = {
    {"openmetrics", no_argument, NULL, X_OM},
    {"text", no_argument, NULL, X_TEXT},
    {"protobuf", no_argument, NULL, X_PB},
    {"output", required_argument, NULL, 'o'},
    {"tag", required_argument, NULL, X_TAG},
    {"stage", required_argument, NULL, X_STAGE},
    {"unit", required_argument, NULL, X_UNIT},
    {"serve", required_argument, NULL, X_SERVE},
    {"serve-seconds", required_argument, NULL, X_SERVE_S},
    CLI_PROM_PUSH_OPTIONS,
    {NULL, 0, NULL, 0},
};

typedef struct xseries {
    char stage[LAT_PROM_LABEL_MAX];
    lat_hist h;
} xseries;

typedef struct xstate {
    xseries s[LAT_PROM_MAX_SERIES];
    int n;
} xstate;

/* The stage label of an untagged interval of path. */
static void stage_from_path(char *out, size_t cap, const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && !strcmp(b + n - 5, ".hlog")) n -= 5;
    if (n == 0) {
        snprintf(out, cap, "all");
        return;
    }
    snprintf(out, cap, "%.*s", (int)n, b);
    /* latlab pipeline writes q1+wake as q1-wake.hlog (shell-friendly names) */
    if (!strcmp(out, "q1-wake") || !strcmp(out, "q2-wake")) out[2] = '+';
}

static int add_interval(xstate *x, const char *stage, const lat_hist *h) {
    for (int i = 0; i < x->n; i++)
        if (!strcmp(x->s[i].stage, stage)) {
            lat_hist_add(&x->s[i].h, h);
            return 0;
        }
    if (x->n == LAT_PROM_MAX_SERIES)
        return cli_error(CMD, "more than %d series (tags x files)", LAT_PROM_MAX_SERIES);
    xseries *s = &x->s[x->n];
    snprintf(s->stage, sizeof s->stage, "%s", stage);
    if (lat_hist_copy(&s->h, h) != 0) return cli_error(CMD, "out of memory");
    x->n++;
    return 0;
}

static int read_file(xstate *x, const char *path, const char *tag) {
    lat_hlog_reader *r = NULL;
    int rc = lat_hlog_reader_open(path, &r);
    if (rc < 0) return cli_error(CMD, "%s: %s", path, lat_strerror(rc));
    char base[LAT_PROM_LABEL_MAX];
    stage_from_path(base, sizeof base, path);
    lat_hlog_interval *iv;
    int status = 0;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        if (tag && strcmp(iv->tag, tag) != 0) continue;
        if ((status = add_interval(x, iv->tag[0] ? iv->tag : base, &iv->hist)) != 0) break;
    }
    if (rc < 0) {
        const char *why = lat_hlog_reader_reason(r);
        status = cli_error(CMD, "%s:%d: %s", path, lat_hlog_reader_line(r),
                           why && *why ? why : lat_strerror(rc));
    }
    lat_hlog_reader_close(r);
    return status;
}

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

int cli_hist_export(int argc, char **argv) {
    int format = -1; /* LAT_PROM_TEXT, LAT_PROM_OPENMETRICS, 2 = protobuf */
    const char *out = NULL, *tag = NULL, *stage = NULL, *serve = NULL;
    double serve_s = 0;
    cli_prom prom;
    cli_prom_init(&prom);
    int ch, rc;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":o:", xopts, NULL)) != -1) {
        if ((rc = cli_prom_option(&prom, CMD, ch, optarg)) != 0) {
            if (rc == 1) continue;
            return rc;
        }
        switch (ch) {
        case X_OM:
        case X_TEXT:
        case X_PB: {
            int f = ch == X_OM ? LAT_PROM_OPENMETRICS : ch == X_TEXT ? LAT_PROM_TEXT : 2;
            if (format >= 0 && format != f)
                return cli_usage_error(CMD,
                                       "--openmetrics, --text and --protobuf exclude each other");
            format = f;
            break;
        }
        case 'o':
            if (!*optarg) return cli_usage_error(CMD, "-o: empty path");
            out = optarg;
            break;
        case X_TAG:
            tag = optarg;
            break;
        case X_STAGE:
            if (!*optarg || strlen(optarg) >= LAT_PROM_LABEL_MAX)
                return cli_usage_error(CMD, "--stage: empty or too long");
            stage = optarg;
            break;
        case X_UNIT:
            if (!strcmp(optarg, "ns"))
                prom.unit_s = 1e-9;
            else if (!strcmp(optarg, "us"))
                prom.unit_s = 1e-6;
            else if (!strcmp(optarg, "ms"))
                prom.unit_s = 1e-3;
            else if (!strcmp(optarg, "s"))
                prom.unit_s = 1;
            else
                return cli_usage_error(CMD, "--unit: '%s' is not ns, us, ms or s", optarg);
            break;
        case X_SERVE: {
            /* Same syntax as --metrics. */
            if ((rc = cli_prom_option(&prom, CMD, CLI_PROM_O_METRICS, optarg)) != 1) return rc;
            serve = optarg;
            break;
        }
        case X_SERVE_S:
            if (cli_parse_double(CMD, "--serve-seconds", optarg, 0.001, 86400, &serve_s))
                return CLI_USAGE;
            break;
        default:
            return cli_getopt_fail(CMD, ch, argv);
        }
    }
    if (optind >= argc) return cli_usage_error(CMD, "needs at least one FILE.hlog");
    if (cli_prom_check(&prom, CMD)) return CLI_USAGE;
    if (format < 0 && !serve && !prom.push_url)
        return cli_usage_error(CMD, "needs --openmetrics, --text, --protobuf, --serve or --push");
    if (out && format < 0) return cli_usage_error(CMD, "-o: needs a format (--openmetrics, ...)");
    if (serve_s > 0 && !serve) return cli_usage_error(CMD, "--serve-seconds: only with --serve");
    if (format == 2 && !lat_prom_have_protobuf())
        return cli_error(CMD, "--protobuf: this latlab was built without protobuf-c "
                              "(native histograms are unavailable)");

    xstate *x = calloc(1, sizeof *x);
    if (!x) return cli_error(CMD, "out of memory");
    int status = 0;
    lat_prom_exporter *e = NULL;
    const char *names[LAT_PROM_MAX_SERIES];
    const lat_hist *hs[LAT_PROM_MAX_SERIES];
    for (int i = optind; i < argc && !status; i++)
        status = read_file(x, argv[i], tag);
    if (status) goto done;
    if (x->n == 0) {
        status = cli_error(CMD, "no intervals%s%s%s in the input", tag ? " tagged '" : "",
                           tag ? tag : "", tag ? "'" : "");
        goto done;
    }
    if (stage) {
        if (x->n > 1) {
            status = cli_usage_error(CMD, "--stage: the input has %d series", x->n);
            goto done;
        }
        snprintf(x->s[0].stage, sizeof x->s[0].stage, "%s", stage);
    }
    for (int i = 0; i < x->n; i++) {
        names[i] = x->s[i].stage;
        hs[i] = &x->s[i].h;
    }
    if (prom.push_delete) {
        status = cli_prom_push(&prom, CMD, x->n, names, NULL);
        goto done;
    }
    if ((status = cli_prom_exporter(&prom, CMD, x->n, names, &e)) != 0) goto done;
    for (int i = 0; i < x->n; i++) {
        if ((rc = lat_prom_exporter_set(e, i, hs[i])) != 0) {
            status = cli_lib_error(CMD, names[i], rc);
            goto done;
        }
        fprintf(stderr,
                "latlab %s: stage=%s count=%lld classic_rel_error=%.4f native_schema=%d "
                "native_rel_error=%.6f\n",
                CMD, names[i], (long long)lat_hist_total(hs[i]), LAT_PROM_CLASSIC_REL_ERROR,
                lat_prom_exporter_schema(e, i), lat_prom_exporter_rel_error(e, i));
    }
    if (format >= 0) {
        size_t cap = lat_prom_exporter_bound(e), len = 0;
        void *buf = malloc(cap);
        if (!buf) {
            status = cli_error(CMD, "out of memory");
            goto done;
        }
        rc = format == 2 ? lat_prom_exporter_protobuf(e, buf, cap, &len)
                         : lat_prom_exporter_text(e, format, buf, cap, &len);
        status = rc ? cli_lib_error(CMD, "exposition", rc) : write_output(out, buf, len);
        free(buf);
        if (status) goto done;
    }
    if (prom.push_url && (status = cli_prom_push(&prom, CMD, x->n, names, hs)) != 0) goto done;
    if (serve) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        lat_prom_server *srv = NULL;
        if ((status = cli_prom_serve(&prom, CMD, x->n, names, hs, &srv)) != 0) goto done;
        wait_for_stop(serve_s);
        lat_prom_server_destroy(srv);
    }
done:
    lat_prom_exporter_destroy(e);
    for (int i = 0; i < x->n; i++)
        lat_hist_free(&x->s[i].h);
    free(x);
    return status;
}
