/* rwlatch.c - see rwlatch.h. */
#include "rwlatch.h"

#include <errno.h>
#include <stdlib.h>

int latch_prepare(void *arg, uint32_t threads, void **ctx) {
    (void)arg;
    (void)threads;
    counter_latch *l = calloc(1, sizeof *l);
    if (!l) return -ENOMEM;
    pthread_rwlock_init(&l->lock, NULL);
    *ctx = l;
    return 0;
}

void latch_release(void *arg, void *ctx) {
    (void)arg;
    counter_latch *l = ctx;
    pthread_rwlock_destroy(&l->lock);
    free(l);
}

void latch_writer(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out) {
    counter_latch *l = ctx;
    uint64_t ops = 0;
    while (!lat_bench_should_stop(ctl)) {
        pthread_rwlock_wrlock(&l->lock);
        l->value++;
        pthread_rwlock_unlock(&l->lock);
        ops++;
    }
    out->operations = ops;
}

int latch_register(lat_bench_runner *r, const char *name, lat_bench_worker_fn reader) {
    const lat_bench_worker workers[] = {
        {"optimistic_reader", 3, reader},
        {"exclusive_writer", 1, latch_writer},
    };
    lat_bench_group *g = lat_bench_concurrent_group_create(r, "Contention");
    if (!g) return -ENOMEM;
    int rc = lat_bench_group_sample_duration(g, 50000000ull); /* 50 ms */
    if (rc) return rc;
    return lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){
                                           .name = name,
                                           .workers = workers,
                                           .n_workers = 2,
                                           .prepare = latch_prepare,
                                           .release = latch_release,
                                       });
}
