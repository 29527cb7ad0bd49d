/* rwlatch.h - the seed's contended counter behind a pthread rwlock, shared by
 * the two contention benchmarks (bench_contention.c, and
 * bench_contention_counters.c, which adds a read_misses event counter). */
#ifndef LATLAB_BENCH_RWLATCH_H
#define LATLAB_BENCH_RWLATCH_H

#include <pthread.h>
#include <stdint.h>

#include "latlab/bench.h"

typedef struct counter_latch {
    pthread_rwlock_t lock;
    uint64_t value;
} counter_latch;

/* lat_bench lifecycle hooks: allocate and initialise / destroy and free. */
int latch_prepare(void *arg, uint32_t threads, void **ctx);
void latch_release(void *arg, void *ctx);
/* The writer role: take the write lock, bump the value, release; repeat. */
void latch_writer(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out);
/* The scenario both benchmarks run, registered as `name` in the group
 * "Contention": three `reader` threads against one latch_writer on a fresh
 * latch per sample, 50 ms samples.  Returns 0 or a negative errno. */
int latch_register(lat_bench_runner *r, const char *name, lat_bench_worker_fn reader);

#endif
