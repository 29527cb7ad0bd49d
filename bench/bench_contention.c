/* bench_contention.c - the seed's concurrent scenario: three optimistic readers
 * against one exclusive writer on a rwlock-protected 64-bit counter.
 *
 * Each sample builds a fresh latch (prepare), runs both roles for the group's
 * sample_duration and joins; the harness prints one table per role (reader
 * and writer throughput, per-thread latency, MAD, CV, outliers) and the
 * workers-combined view.  Quick settings by default (--full for the spec's). */
#include "latlab/bench.h"

#include "latlab/compiler.h"
#include "support/rwlatch.h"

#include <pthread.h>
#include <stdlib.h>

/* Optimistic: try the read lock, retry (spinning) until it is granted. */
static void optimistic_reader(void *ctx, const lat_bench_control *ctl,
                              lat_bench_worker_result *out) {
    counter_latch *l = ctx;
    uint64_t ops = 0;
    while (!lat_bench_should_stop(ctl)) {
        while (pthread_rwlock_tryrdlock(&l->lock) != 0)
            lat_cpu_relax();
        uint64_t v = l->value;
        lat_do_not_optimize(v);
        pthread_rwlock_unlock(&l->lock);
        ops++;
    }
    out->operations = ops;
}

static int reg(lat_bench_runner *r) {
    return latch_register(r, "rwlock_readers_vs_writer", optimistic_reader);
}

LAT_BENCH_MAIN_FLAGS("contention", reg, LAT_BENCH_MAIN_QUICK)
