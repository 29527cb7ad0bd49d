/* config.c - the harness's run configurations: the defaults of bench.h and
 * the short runs of --quick.  Placement comes from the environment:
 * LAT_BENCH_NO_PIN opts out of pinning, LAT_BENCH_RUNNER_CPU names the measuring
 * thread's CPU (and pins even beside LAT_BENCH_NO_PIN). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void lat_bench_config_default(lat_bench_config *c) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->target_chunk_ns = 50000000ull;
    c->warm_up_ns = 1000000000ull;
    c->budget_ns = 5000000000ull;
    c->min_samples = 20;
    c->max_samples = 100;
    c->sample_duration_ns = 50000000ull;
    const char *e = getenv(LAT_BENCH_ENV_NO_PIN);
    c->pin =
        !(e && *e && strcmp(e, "0") != 0) || getenv(LAT_BENCH_ENV_RUNNER_CPU); /* a CPU named */
    c->counters = true;
    c->record_latency = true;
}

void lat_bench_config_quick(lat_bench_config *c) {
    if (!c) return;
    lat_bench_config_default(c);
    c->target_chunk_ns = 10000000ull;
    c->warm_up_ns = 100000000ull;
    c->budget_ns = 500000000ull;
    c->min_samples = 10;
    c->sample_duration_ns = 10000000ull;
}
