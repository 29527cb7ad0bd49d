/* bench_contention_counters.c - the seed's contention scenario with a named
 * event counter: three optimistic readers try the read lock once per
 * operation and count a `read_misses` event when the writer holds it (no
 * retry), against one exclusive writer.
 *
 * The counter lives in a worker-local integer in the hot loop and is handed
 * over once at the end of the sample (lat_bench_count), so reporting it costs
 * nothing while measuring.  The harness prints it under the reader role's
 * "bench event counters" table: total, per operation (total / total reader
 * operations over all samples) and per second (total / measured time). */
#include "latlab/bench.h"

#include "latlab/compiler.h"
#include "support/rwlatch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static void optimistic_reader(void *ctx, const lat_bench_control *ctl,
                              lat_bench_worker_result *out) {
    counter_latch *l = ctx;
    uint64_t ops = 0, read_misses = 0;
    while (!lat_bench_should_stop(ctl)) {
        if (pthread_rwlock_tryrdlock(&l->lock) == 0) {
            uint64_t v = l->value;
            lat_do_not_optimize(v);
            pthread_rwlock_unlock(&l->lock);
        } else {
            read_misses++;
        }
        ops++;
    }
    out->operations = ops;
    lat_bench_count(out, "read_misses", read_misses);
}

static int reg(lat_bench_runner *r) {
    static const lat_bench_worker workers[] = {
        {"optimistic_reader", 3, optimistic_reader},
        {"exclusive_writer", 1, latch_writer},
    };
    lat_bench_group *g = lat_bench_concurrent_group_create(r, "Contention");
    if (!g) return -ENOMEM;
    int rc = lat_bench_group_sample_duration(g, 50000000ull);
    if (rc) return rc;
    return lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){
                                           .name = "rwlock_read_misses",
                                           .workers = workers,
                                           .n_workers = 2,
                                           .prepare = latch_prepare,
                                           .release = latch_release,
                                       });
}

LAT_BENCH_MAIN_FLAGS("contention_counters", reg, LAT_BENCH_MAIN_QUICK)
