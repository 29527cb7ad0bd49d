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
    return latch_register(r, "rwlock_read_misses", optimistic_reader);
}

LAT_BENCH_MAIN_FLAGS("contention_counters", reg, LAT_BENCH_MAIN_QUICK)
