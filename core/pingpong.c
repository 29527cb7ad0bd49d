/* pingpong.c - the cache-line floor (see pingpong.h): two pinned threads
 * bounce one line; side 0 times each round trip into a histogram. */
#include "latlab/pingpong.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/hist.h"
#include "latlab/topo.h"

/* The line on its own 128 bytes: odd values written by side 0, even by side 1. */
static struct {
    LAT_CACHE_ALIGNED _Atomic uint64_t word;
    char pad[LAT_DESTRUCTIVE - sizeof(uint64_t)];
} line;

typedef struct pair {
    const int *cpu;
    int pin_err[2];
    _Atomic int ready;
    void (*fn)(void *, int);
    void *arg;
} pair;

typedef struct pair_arg {
    pair *p;
    int side;
} pair_arg;

static void *pair_main(void *v) {
    pair_arg *a = v;
    pair *p = a->p;
    p->pin_err[a->side] = lat_pin_thread(p->cpu[a->side]);
    atomic_fetch_add_explicit(&p->ready, 1, memory_order_acq_rel);
    /* both threads start together (acquire pairs with the other's acq_rel add) */
    while (atomic_load_explicit(&p->ready, memory_order_acquire) < 2)
        lat_cpu_relax();
    if (!p->pin_err[0] && !p->pin_err[1]) p->fn(p->arg, a->side);
    return NULL;
}

int lat_pinned_pair(const int cpu[2], void (*fn)(void *arg, int side), void *arg) {
    pair p = {.cpu = cpu, .fn = fn, .arg = arg};
    pthread_t th[2];
    pair_arg a[2] = {{&p, 0}, {&p, 1}};
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, pair_main, &a[i]) != 0) {
            if (i == 1) {
                p.pin_err[1] = -EAGAIN;
                atomic_fetch_add(&p.ready, 2); /* release side 0, which then stops */
                pthread_join(th[0], NULL);
            }
            return -EAGAIN;
        }
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    if (p.pin_err[0]) return p.pin_err[0];
    if (p.pin_err[1]) return p.pin_err[1];
    return 0;
}

/* ---- the floor ------------------------------------------------------------------------------ */

typedef struct duo {
    uint64_t n;
    lat_hist *hist; /* round-trip cycles, recorded by side 0 */
} duo;

static void ping(duo *d) {
    lat_hist *h = d->hist;
    uint64_t warm = d->n / 10 + 100, n = d->n;
    for (uint64_t i = 0; i < warm + n; i++) {
        uint64_t t0 = lat_cycles_fenced();
        /* release/acquire: the same order a ring hop needs, nothing more */
        atomic_store_explicit(&line.word, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&line.word, memory_order_acquire) != 2 * i + 2) {
        }
        uint64_t t1 = lat_cycles_fenced();
        if (i >= warm) lat_hist_record(h, (int64_t)(t1 - t0));
    }
}

static void pong(duo *d) {
    uint64_t warm = d->n / 10 + 100, n = d->n;
    for (uint64_t i = 0; i < warm + n; i++) {
        while (atomic_load_explicit(&line.word, memory_order_acquire) != 2 * i + 1) {
        }
        atomic_store_explicit(&line.word, 2 * i + 2, memory_order_release);
    }
}

static void side(void *arg, int which) {
    (which ? pong : ping)(arg);
}

static double cycles_to_ns(double cycles) {
    return cycles / lat_clock_default()->cycles_per_ns;
}

void lat_pingpong_fill(const lat_hist *h, lat_pingpong_result *out) {
    out->samples = (uint64_t)lat_hist_total(h);
    out->p50_ns = cycles_to_ns((double)lat_hist_value_at_percentile(h, 50.0));
    out->p99_ns = cycles_to_ns((double)lat_hist_value_at_percentile(h, 99.0));
    out->p999_ns = cycles_to_ns((double)lat_hist_value_at_percentile(h, 99.9));
    out->min_ns = cycles_to_ns((double)lat_hist_min(h));
    out->max_ns = cycles_to_ns((double)lat_hist_max(h));
}

int lat_pingpong(int cpu_a, int cpu_b, uint64_t n, lat_pingpong_result *out) {
    if (n == 0 || !out) return -EINVAL;
    duo d = {.n = n};
    const int cpu[2] = {cpu_a, cpu_b};
    atomic_store(&line.word, 0);
    int err = lat_hist_create(1, 100000000000ll, 3, &d.hist);
    if (err) return err;
    err = lat_pinned_pair(cpu, side, &d);
    if (!err) lat_pingpong_fill(d.hist, out);
    lat_hist_destroy(d.hist);
    return err;
}
