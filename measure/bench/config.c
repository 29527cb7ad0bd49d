/* config.c - the harness's run configurations: the defaults of bench.h and
 * the short runs of --quick.  Placement comes from the environment:
 * LAT_BENCH_NO_PIN opts out of pinning, LAT_BENCH_RUNNER_CPU names the measuring
 * thread's CPU (and pins even beside LAT_BENCH_NO_PIN); so do turns taken
 * with other programs (LAT_BENCH_TURNS, sample by sample). */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The descriptors of $LAT_BENCH_TURNS, read on the first sample. */
static void turns_open(lat_bench_runner *r) {
    r->turns_read = true;
    r->turn_rfd = r->turn_wfd = -1;
    const char *turns = getenv(LAT_BENCH_ENV_TURNS);
    int tr, tw;
    char tail;
    if (turns && sscanf(turns, "%d:%d%c", &tr, &tw, &tail) == 2 && tr >= 0 && tw >= 0 &&
        fcntl(tr, F_GETFD) >= 0 && fcntl(tw, F_GETFD) >= 0)
        r->turn_rfd = tr, r->turn_wfd = tw;
}

/* Wait for this program's turn ($LAT_BENCH_TURNS): say the last turn is done
 * (or that it is ready), block for the next grant.  A write that fails or a
 * grant channel that ends drops out of turns for good. */
void lat__bench_take_turn(lat_bench_runner *r) {
    if (!r->turns_read) turns_open(r);
    if (r->turn_rfd < 0) return;
    char c = r->turn_started ? 'd' : 'r';
    r->turn_started = true;
    ssize_t n;
    while ((n = write(r->turn_wfd, &c, 1)) < 0 && errno == EINTR) {
    }
    if (n == 1)
        while ((n = read(r->turn_rfd, &c, 1)) < 0 && errno == EINTR) {
        }
    if (n != 1) r->turn_rfd = r->turn_wfd = -1;
}
