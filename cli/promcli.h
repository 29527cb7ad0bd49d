/* promcli.h - the Prometheus flags shared by the commands that export
 * histograms (pipeline, book bench, hist export): --metrics (serve /metrics
 * while running), --push / --push-delete (Pushgateway), the run and host
 * labels.  Parsed and checked before any work starts; the library
 * (latlab/prom.h) does the conversion, serving and pushing. */
#ifndef LATLAB_CLI_PROMCLI_H
#define LATLAB_CLI_PROMCLI_H

#include <stdbool.h>

#include "cli.h"
#include "latlab/hist.h"
#include "latlab/prom.h"

/* The flags as rows of an options table (cli.h: cli_opt) into the cli_prom
 * p (a static object: the table holds its fields' addresses); the push rows
 * for every exporter, the serve rows where a long run can serve. */
int cli_prom_opt_addr(const char *cmd, const char *flag, const char *v, void *dest);
int cli_prom_opt_url(const char *cmd, const char *flag, const char *v, void *dest);
int cli_prom_opt_label(const char *cmd, const char *flag, const char *v, void *dest);
#define CLI_PROM_PUSH_ROWS(p)                                                                      \
    CLI_CUSTOM_OPT("push", cli_prom_opt_url, &(p).push_url, "URL",                                 \
                   "at the end, PUT the histograms to a Pushgateway\n"                             \
                   "(http://HOST:PORT) as job/run/host; unreachable: exit 1,\n"                    \
                   "local results still written"),                                                 \
        CLI_FLAG_OPT("push-delete", &(p).push_delete,                                              \
                     "instead of running, DELETE the group job/run/host at --push\n"               \
                     "(needs --run-label)"),                                                       \
        CLI_CUSTOM_OPT("push-job", cli_prom_opt_label, &(p).job, "NAME",                           \
                       "job label (default latlab)"),                                              \
        CLI_CUSTOM_OPT("run-label", cli_prom_opt_label, &(p).run_label, "NAME",                    \
                       "run label (default: UTC start time and pid)"),                             \
        CLI_CUSTOM_OPT("host-label", cli_prom_opt_label, &(p).host_label, "NAME",                  \
                       "host label (default: the host name)"),                                     \
        CLI_NUM_OPT("native-buckets", CLI_INT, &(p).native_budget, "N",                            \
                    "native histogram bucket budget (4..10000, default 160)", 4, 10000)
#define CLI_PROM_SERVE_ROWS(p)                                                                     \
    CLI_CUSTOM_OPT("metrics", cli_prom_opt_addr, &(p).metrics_addr, "ADDR",                        \
                   "serve GET /metrics on ADDR (127.0.0.1:9464, :9464; port 0:\n"                  \
                   "a free one, printed on stderr) while running: text for\n"                      \
                   "classic histograms, protobuf (native too) when asked"),                        \
        CLI_NUM_OPT("metrics-linger", CLI_DOUBLE, &(p).linger_s, "S",                              \
                    "keep serving S seconds after the run (final state)", 0, 3600)

typedef struct cli_prom {
    const char *metrics_addr;
    const char *metrics_flag; /* the flag that gave it, for messages (NULL: --metrics) */
    double linger_s;
    const char *push_url;
    bool push_delete;
    const char *job;
    const char *run_label;
    const char *host_label;
    int native_budget;
    double unit_s;      /* seconds per histogram unit (default 1e-9: ns) */
    const char *metric; /* family name (NULL: latlab_stage_latency_seconds) */
    char run_buf[64];
    char host_buf[LAT_PROM_LABEL_MAX];
} cli_prom;

void cli_prom_init(cli_prom *p);
/* After parsing, before any work: combinations, URL and address syntax,
 * defaults for the labels.  0 or CLI_USAGE. */
int cli_prom_check(cli_prom *p, const char *cmd);
/* An exporter for n stages with p's labels.  0 or CLI_ERR (printed). */
int cli_prom_exporter(const cli_prom *p, const char *cmd, int n, const char *const *stages,
                      lat_prom_exporter **out);
/* Push h[0..n) (NULL entries left out) or, with --push-delete, delete the
 * group.  Prints one line on stderr either way.  0 or CLI_ERR. */
int cli_prom_push(const cli_prom *p, const char *cmd, int n, const char *const *stages,
                  const lat_hist *const *h);
/* Start serving (an exporter for the stages holding `initial`, or empty
 * until updated when it is NULL), then print "latlab CMD: serving
 * http://ADDR:PORT/metrics" on stderr.  0 or CLI_ERR. */
int cli_prom_serve(const cli_prom *p, const char *cmd, int n, const char *const *stages,
                   const lat_hist *const *initial, lat_prom_server **out);
/* Final state, then linger --metrics-linger seconds, then stop. */
void cli_prom_serve_finish(const cli_prom *p, lat_prom_server *s, const lat_hist *const *h, int n);

#endif /* LATLAB_CLI_PROMCLI_H */
