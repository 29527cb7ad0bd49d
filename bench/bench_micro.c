/* bench_micro.c - latlab's own hot paths measured by latlab's harness: cycle
 * reads (unfenced, fenced) and cycles->ns conversion, histogram recording and
 * a percentile query, and the SPSC ring (push+pop on one thread, and a
 * producer/consumer pair as a concurrent group with "full"/"empty" retry
 * event counters).  Quick settings by default (--full for the spec's). */
#include "latlab/bench.h"

#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/hist.h"
#include "latlab/ring.h"

#include <errno.h>
#include <stdlib.h>

/* ---- clock ---------------------------------------------------------------------------- */

static void clock_read(void *ctx, uint64_t n, uint64_t idx) {
    (void)ctx;
    (void)idx;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++)
        acc += lat_cycles();
    lat_do_not_optimize(acc);
}

static void clock_read_fenced(void *ctx, uint64_t n, uint64_t idx) {
    (void)ctx;
    (void)idx;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++)
        acc += lat_cycles_fenced();
    lat_do_not_optimize(acc);
}

static void clock_to_ns(void *ctx, uint64_t n, uint64_t idx) {
    (void)idx;
    const lat_clock_cal *cal = ctx;
    uint64_t acc = 0, c = 123456789;
    for (uint64_t i = 0; i < n; i++) {
        lat_do_not_optimize(c);
        acc += lat_clock_to_ns(cal, c + i);
    }
    lat_do_not_optimize(acc);
}

/* ---- histogram ---------------------------------------------------------------------------- */

static int hist_prepare(void *arg, uint64_t n, void **ctx) {
    (void)arg;
    (void)n;
    lat_hist *h;
    int rc = lat_hist_create(1, 3600000000000ll, 3, &h);
    if (rc) return rc;
    for (int64_t v = 1; v < 100000; v += 7)
        lat_hist_record(h, v); /* for the query */
    *ctx = h;
    return 0;
}
static void hist_release(void *arg, void *ctx) {
    (void)arg;
    lat_hist_destroy(ctx);
}

static void hist_record(void *ctx, uint64_t n, uint64_t idx) {
    (void)idx;
    lat_hist *h = ctx;
    uint64_t x = 88172645463325252ull;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* values spread over ~1 ns .. 1 ms */
        lat_hist_record(h, (int64_t)(x & 0xFFFFF));
    }
    lat_do_not_optimize(h->total_count);
}

static void hist_p99(void *ctx, uint64_t n, uint64_t idx) {
    (void)idx;
    lat_hist *h = ctx;
    int64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        acc += lat_hist_value_at_percentile(h, 99.0);
        lat_clobber_memory();
    }
    lat_do_not_optimize(acc);
}

/* ---- ring ---------------------------------------------------------------------------------- */

static int ring_prepare(void *arg, uint64_t n, void **ctx) {
    (void)arg;
    (void)n;
    lat_ring *r;
    int rc = lat_ring_create(sizeof(uint64_t), 1024, 0, &r);
    if (rc) return rc;
    *ctx = r;
    return 0;
}
static void ring_release(void *arg, void *ctx) {
    (void)arg;
    lat_ring_destroy(ctx);
}

static void ring_push_pop(void *ctx, uint64_t n, uint64_t idx) {
    (void)idx;
    lat_ring *r = ctx;
    uint64_t v = 0, acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        v = i;
        lat_ring_try_push(r, &v);
        lat_ring_try_pop(r, &v);
        acc += v;
    }
    lat_do_not_optimize(acc);
}

static int cring_prepare(void *arg, uint32_t threads, void **ctx) {
    (void)threads;
    return ring_prepare(arg, 0, ctx);
}

static void producer(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out) {
    lat_ring *r = ctx;
    uint64_t ops = 0, full = 0;
    while (!lat_bench_should_stop(ctl)) {
        if (lat_ring_try_push(r, &ops))
            ops++;
        else
            full++, lat_cpu_relax();
    }
    out->operations = ops;
    lat_bench_count(out, "full", full);
}

static void consumer(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out) {
    lat_ring *r = ctx;
    uint64_t ops = 0, empty = 0, v;
    while (!lat_bench_should_stop(ctl)) {
        if (lat_ring_try_pop(r, &v))
            ops++;
        else
            empty++, lat_cpu_relax();
    }
    out->operations = ops;
    lat_bench_count(out, "empty", empty);
}

static int reg(lat_bench_runner *r) {
    lat_bench_group *g = lat_bench_group_create(r, "clock");
    if (!g) return -ENOMEM;
    int rc;
    if ((rc = lat_bench_add(g, &(lat_bench_def){.name = "lat_cycles", .fn = clock_read})) ||
        (rc = lat_bench_add(
             g, &(lat_bench_def){.name = "lat_cycles_fenced", .fn = clock_read_fenced})) ||
        (rc = lat_bench_add(g, &(lat_bench_def){.name = "lat_clock_to_ns",
                                                .fn = clock_to_ns,
                                                .arg = (void *)lat_clock_default()})))
        return rc;
    if (!(g = lat_bench_group_create(r, "hist"))) return -ENOMEM;
    if ((rc = lat_bench_add(g, &(lat_bench_def){.name = "record",
                                                .fn = hist_record,
                                                .prepare = hist_prepare,
                                                .release = hist_release})) ||
        (rc = lat_bench_add(g, &(lat_bench_def){.name = "value_at_p99",
                                                .fn = hist_p99,
                                                .prepare = hist_prepare,
                                                .release = hist_release})))
        return rc;
    if (!(g = lat_bench_group_create(r, "ring"))) return -ENOMEM;
    if ((rc = lat_bench_add(g, &(lat_bench_def){.name = "push_pop_one_thread",
                                                .fn = ring_push_pop,
                                                .prepare = ring_prepare,
                                                .release = ring_release,
                                                .bytes_per_op = sizeof(uint64_t)})))
        return rc;
    static const lat_bench_worker spsc[] = {{"producer", 1, producer}, {"consumer", 1, consumer}};
    if (!(g = lat_bench_concurrent_group_create(r, "ring_spsc"))) return -ENOMEM;
    if ((rc = lat_bench_group_sample_duration(g, 20000000ull))) return rc;
    return lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){.name = "producer_consumer",
                                                                   .workers = spsc,
                                                                   .n_workers = 2,
                                                                   .prepare = cring_prepare,
                                                                   .release = ring_release});
}

LAT_BENCH_MAIN_FLAGS("micro", reg, LAT_BENCH_MAIN_QUICK)
