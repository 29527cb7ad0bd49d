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

#include <errno.h>
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
    static const lat_bench_worker workers[] = {
        {"optimistic_reader", 3, optimistic_reader},
        {"exclusive_writer", 1, latch_writer},
    };
    lat_bench_group *g = lat_bench_concurrent_group_create(r, "Contention");
    if (!g) return -ENOMEM;
    int rc = lat_bench_group_sample_duration(g, 50000000ull); /* 50 ms */
    if (rc) return rc;
    return lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){
                                           .name = "rwlock_readers_vs_writer",
                                           .workers = workers,
                                           .n_workers = 2,
                                           .prepare = latch_prepare,
                                           .release = latch_release,
                                       });
}

LAT_BENCH_MAIN_FLAGS("contention", reg, LAT_BENCH_MAIN_QUICK)
