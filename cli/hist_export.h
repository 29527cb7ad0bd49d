/* hist_export.h - `latlab hist export` (cli/hist_export.c): its entry point and
 * usage text, which cmd_hist_usage includes so `latlab help hist` and
 * `latlab hist --help` print the same. */
#ifndef LATLAB_CLI_HIST_EXPORT_H
#define LATLAB_CLI_HIST_EXPORT_H

#include "cli.h"

#define HIST_EXPORT_USAGE                                                                          \
    "export: merge each file's intervals per tag and write them as Prometheus histograms\n"        \
    "  (stage label: the tag, else the file name without .hlog; q1-wake -> q1+wake)\n"             \
    "  --openmetrics   OpenMetrics text (classic histograms)\n"                                    \
    "  --text          Prometheus text format 0.0.4 (classic histograms)\n"                        \
    "  --protobuf      delimited io.prometheus.client.MetricFamily: classic + native\n"            \
    "  -o, --output F  write there (atomically) instead of stdout\n"                               \
    "  --tag T         only intervals tagged T\n"                                                  \
    "  --stage NAME    stage label (one series only)\n"                                            \
    "  --unit U        what the logs' values are: ns (default), us, ms, s\n"                       \
    "  --serve ADDR    serve GET /metrics on ADDR until SIGTERM/SIGINT (or --serve-seconds)\n"     \
    "  --serve-seconds S  stop serving after S seconds\n"                                          \
    "  --push URL, --push-delete, --push-job, --run-label, --host-label, --native-buckets:\n"      \
    "                  as for `latlab pipeline` (see latlab help pipeline)\n"                      \
    "  On stderr, per series: count, native schema and the conversions' relative error\n"          \
    "  bounds (classic 1/3; native 2^(2^-schema) - 1).\n"

/* Its options table (the help is generated from it). */
extern const cli_spec hist_export_spec;
int cli_hist_export(int argc, char **argv);

#endif /* LATLAB_CLI_HIST_EXPORT_H */
