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
