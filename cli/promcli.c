/* promcli.c - shared Prometheus flags of the exporting commands: parsing,
 * checks before work, serving while a run lasts, pushing at its end. */
#include "promcli.h"

#include "cli.h"

#include "latlab/error.h"
#include "latlab/http.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PUSH_TIMEOUT_MS 5000

void cli_prom_init(cli_prom *p) {
    memset(p, 0, sizeof *p);
    p->job = "latlab";
    p->unit_s = 1e-9;
}

static int check_label(const char *cmd, const char *flag, const char *v) {
    if (!*v) return cli_usage_error(cmd, "%s: must not be empty", flag);
    if (strlen(v) >= LAT_PROM_LABEL_MAX)
        return cli_usage_error(cmd, "%s: longer than %d bytes", flag, LAT_PROM_LABEL_MAX - 1);
    for (const char *c = v; *c; c++)
        if ((unsigned char)*c < 32)
            return cli_usage_error(cmd, "%s: control characters are not allowed", flag);
    return 0;
}

int cli_prom_opt_addr(const char *cmd, const char *flag, const char *v, void *dest) {
    char host[256];
    int port;
    if (!*v || lat_http_split_addr(v, host, sizeof host, &port) != 0)
        return cli_usage_error(cmd, "%s: '%s' is not HOST:PORT (e.g. 127.0.0.1:9464)", flag, v);
    *(const char **)dest = v;
    return 0;
}

int cli_prom_opt_url(const char *cmd, const char *flag, const char *v, void *dest) {
    char host[256], prefix[512];
    int port;
    if (lat_http_parse_url(v, host, sizeof host, &port, prefix, sizeof prefix) != 0)
        return cli_usage_error(cmd, "%s: '%s' is not a URL like http://127.0.0.1:9091", flag, v);
    *(const char **)dest = v;
    return 0;
}

int cli_prom_opt_label(const char *cmd, const char *flag, const char *v, void *dest) {
    if (check_label(cmd, flag, v)) return CLI_USAGE;
    *(const char **)dest = v;
    return 0;
}

int cli_prom_check(cli_prom *p, const char *cmd) {
    if (p->push_delete && !p->push_url)
        return cli_usage_error(cmd, "--push-delete: needs --push URL");
    if (p->push_delete && !p->run_label)
        return cli_usage_error(cmd, "--push-delete: needs --run-label (the run to delete)");
    if (p->linger_s > 0 && !p->metrics_addr)
        return cli_usage_error(cmd, "--metrics-linger: only with --metrics");
    if (!p->run_label) {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        char ts[32];
        strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(p->run_buf, sizeof p->run_buf, "%s-%ld", ts, (long)getpid());
        p->run_label = p->run_buf;
    }
    if (!p->host_label) {
        if (gethostname(p->host_buf, sizeof p->host_buf) != 0 || !p->host_buf[0])
            snprintf(p->host_buf, sizeof p->host_buf, "localhost");
        p->host_buf[sizeof p->host_buf - 1] = 0;
        p->host_label = p->host_buf;
    }
    return 0;
}

int cli_prom_exporter(const cli_prom *p, const char *cmd, int n, const char *const *stages,
                      lat_prom_exporter **out) {
    lat_prom_exporter_config c = {
        .run = p->run_label,
        .host = p->host_label,
        .nseries = n,
        .stages = stages,
        .unit_s = p->unit_s,
        .native_budget = p->native_budget,
        .metric = p->metric,
    };
    int rc = lat_prom_exporter_create(&c, out);
    if (rc) return cli_lib_error(cmd, "Prometheus exporter", rc);
    return 0;
}

int cli_prom_push(const cli_prom *p, const char *cmd, int n, const char *const *stages,
                  const lat_hist *const *h) {
    lat_prom_exporter *e = NULL;
    if (cli_prom_exporter(p, cmd, n, stages, &e)) return CLI_ERR;
    int rc = 0;
    for (int i = 0; i < n && !rc && !p->push_delete; i++)
        rc = lat_prom_exporter_set(e, i, h ? h[i] : NULL);
    char err[512] = "";
    if (rc) {
        lat_prom_exporter_destroy(e);
        return cli_lib_error(cmd, "Prometheus conversion", rc);
    }
    rc = lat_prom_push(e, p->push_url, p->job, p->push_delete, PUSH_TIMEOUT_MS, err, sizeof err);
    lat_prom_exporter_destroy(e);
    if (rc)
        return cli_error(cmd, "%s %s: %s", p->push_delete ? "--push-delete" : "--push", p->push_url,
                         err[0] ? err : lat_strerror(rc));
    fprintf(stderr, "latlab %s: %s %s job=%s run=%s host=%s (%s)\n", cmd,
            p->push_delete ? "deleted from" : "pushed to", p->push_url, p->job, p->run_label,
            p->host_label,
            p->push_delete             ? "group"
            : lat_prom_have_protobuf() ? "protobuf: classic and native"
                                       : "text: classic only; built without protobuf-c");
    return 0;
}

int cli_prom_serve(const cli_prom *p, const char *cmd, int n, const char *const *stages,
                   const lat_hist *const *initial, lat_prom_server **out) {
    lat_prom_exporter *e = NULL;
    if (cli_prom_exporter(p, cmd, n, stages, &e)) return CLI_ERR;
    int rc = lat_prom_server_create(p->metrics_addr, e, out);
    if (rc) {
        lat_prom_exporter_destroy(e);
        return cli_error(cmd, "%s %s: %s", p->metrics_flag ? p->metrics_flag : "--metrics",
                         p->metrics_addr, lat_strerror(rc));
    }
    if (initial && (rc = lat_prom_server_update(*out, initial, n)) != 0) {
        lat_prom_server_destroy(*out);
        *out = NULL;
        return cli_lib_error(cmd, "Prometheus conversion", rc);
    }
    char host[256];
    int port;
    lat_http_split_addr(p->metrics_addr, host, sizeof host, &port);
    bool v6 = strchr(host, ':') != NULL; /* an IPv6 address goes in brackets */
    fprintf(stderr, "latlab %s: serving http://%s%s%s:%d/metrics (%s)\n", cmd, v6 ? "[" : "",
            host[0] ? host : "0.0.0.0", v6 ? "]" : "", lat_prom_server_port(*out),
            lat_prom_have_protobuf() ? "text: classic; protobuf: classic and native"
                                     : "text: classic; no protobuf-c: no native histograms");
    return 0;
}

void cli_prom_serve_finish(const cli_prom *p, lat_prom_server *s, const lat_hist *const *h, int n) {
    if (!s) return;
    if (h) lat_prom_server_update(s, h, n);
    if (p->linger_s > 0) {
        struct timespec ts = {.tv_sec = (time_t)p->linger_s,
                              .tv_nsec = (long)((p->linger_s - (double)(time_t)p->linger_s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    lat_prom_server_destroy(s);
}
