/* test_trace_mt.c - the stage tracer across threads (also run under TSan):
 * fan-out (two shipping threads, one sink each, latlab's aggregator) with
 * exactly-once accounting on roomy and tiny rings, merged == sum of the
 * per-sink histograms, readers polling figures while intervals close, and a
 * real three-stage hand-off (producer -> SPSC -> worker -> SPSC -> consumer)
 * aggregated by drain() on the consumer's own thread. */
#include "lat_test.h"

#include "latlab/trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static const lat_trace_stage st3[] = {{"q1+wake", 0, 1}, {"work", 1, 2}, {"e2e", 0, 2}};
#define N_PER_SHIPPER 40000

typedef struct shipper {
    lat_trace_sink *k;
    uint64_t base, shipped, dropped;
} shipper;

static void *ship_thread(void *arg) {
    shipper *s = arg;
    for (uint64_t i = 0; i < N_PER_SHIPPER; i++) {
        lat_trace_stamps b = {{0}, s->base + i};
        lat_trace_stamp(&b, 0);
        lat_trace_stamp_at(&b, 1, b.t[0] + 10 + (s->base + i) % 13);
        lat_trace_stamp(&b, 2);
        s->shipped++;
        if (!lat_trace_ship(s->k, &b)) s->dropped++;
    }
    return NULL;
}

static _Atomic int stop_readers;
static void *reader_thread(void *arg) {
    lat_trace *t = arg;
    while (!atomic_load(&stop_readers)) {
        lat_trace_figures f;
        lat_trace_counts c;
        for (unsigned s = 0; s < 3; s++) {
            assert_int_equal(lat_trace_figures_get(t, s, LAT_TRACE_INTERVAL, &f), 0);
            assert_int_equal(lat_trace_figures_get(t, s, LAT_TRACE_CUMULATIVE, &f), 0);
        }
        lat_trace_counts_get(t, &c);
        assert_true(c.recorded <= 2 * N_PER_SHIPPER);
    }
    return NULL;
}

static void fan_out(size_t ring_cap) {
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.stages = st3;
    c.nstages = 3;
    c.interval_ns = 5000000; /* 5 ms: intervals close while readers read */
    lat_trace *t;
    assert_int_equal(lat_trace_create(&c, &t), 0);
    shipper sh[2] = {{NULL, 0, 0, 0}, {NULL, 1000000, 0, 0}};
    for (int i = 0; i < 2; i++)
        assert_int_equal(lat_trace_sink_create(t, ring_cap, &sh[i].k), 0);
    assert_int_equal(lat_trace_start(t), 0);
    atomic_store(&stop_readers, 0);
    pthread_t th[3];
    pthread_create(&th[2], NULL, reader_thread, t);
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, ship_thread, &sh[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(lat_trace_stop(t), 0);
    atomic_store(&stop_readers, 1);
    pthread_join(th[2], NULL);

    uint64_t rec = 0;
    for (int i = 0; i < 2; i++) {
        lat_trace_counts k;
        lat_trace_sink_counts_get(sh[i].k, &k);
        assert_int_equal(sh[i].shipped, N_PER_SHIPPER);
        assert_int_equal(k.dropped, sh[i].dropped);
        assert_int_equal(k.recorded + k.dropped, N_PER_SHIPPER); /* exactly once */
        rec += k.recorded;
    }
    lat_trace_counts all;
    lat_trace_counts_get(t, &all);
    assert_int_equal(all.recorded, rec);
    assert_int_equal(all.unset, 0);
    for (unsigned s = 0; s < 3; s++) {
        lat_hist sum, h, merged;
        assert_int_equal(lat_hist_init(&sum, 1, 60000000000ll, 3), 0);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(lat_trace_sink_hist_copy(sh[i].k, s, &h), 0);
            lat_hist_add(&sum, &h);
            lat_hist_fini(&h);
        }
        assert_int_equal(lat_trace_hist_copy(t, s, LAT_TRACE_CUMULATIVE, &merged), 0);
        assert_int_equal(lat_hist_total(&merged), (int64_t)rec);
        assert_true(lat_test_hist_equal(&sum, &merged));
        lat_hist_fini(&merged);
        lat_hist_fini(&sum);
    }
    lat_trace_destroy(t);
}

static void test_fan_out_roomy(void **state) {
    (void)state;
    fan_out(1 << 16); /* holds everything: nothing may drop */
}

static void test_fan_out_tiny_rings(void **state) {
    (void)state;
    fan_out(4); /* drops are likely; accounting must still be exact */
}

/* ---- a real three-stage hand-off, aggregated by the consumer's drain() ---- */

#define N_PIPE 20000
typedef struct msg {
    uint64_t seq;
    lat_trace_stamps st;
} msg;
typedef struct pipe3 {
    lat_spsc *q1, *q2;
    lat_trace *t;
    lat_trace_sink *k;
    uint64_t dropped;
} pipe3;

static void *p_producer(void *arg) {
    pipe3 *p = arg;
    lat_idle idle = lat_idle_yield(10);
    for (uint64_t i = 0; i < N_PIPE; i++) {
        msg m = {i, {{0}, i}};
        lat_trace_stamp(&m.st, 0);
        lat_spsc_push_wait_t(p->q1, &m, &idle);
    }
    return NULL;
}
static void *p_worker(void *arg) {
    pipe3 *p = arg;
    lat_idle idle = lat_idle_yield(10);
    for (uint64_t i = 0; i < N_PIPE; i++) {
        msg m;
        lat_spsc_pop_wait_t(p->q1, &m, &idle);
        assert_int_equal(m.seq, i);
        lat_trace_stamp(&m.st, 1);
        lat_spsc_push_wait_t(p->q2, &m, &idle);
    }
    return NULL;
}
static void *p_consumer(void *arg) {
    pipe3 *p = arg;
    lat_idle idle = lat_idle_yield(10);
    for (uint64_t i = 0; i < N_PIPE; i++) {
        msg m;
        lat_spsc_pop_wait_t(p->q2, &m, &idle);
        lat_trace_stamp(&m.st, 2);
        if (!lat_trace_ship(p->k, &m.st)) p->dropped++;
        if (i % 64 == 63) assert_true(lat_trace_drain(p->t) >= 0); /* its own thread aggregates */
    }
    return NULL;
}

static void test_three_stage_drain_on_consumer(void **state) {
    (void)state;
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.stages = st3;
    c.nstages = 3;
    c.interval_ns = 2000000;
    pipe3 p = {0};
    assert_int_equal(lat_trace_create(&c, &p.t), 0);
    assert_int_equal(lat_trace_sink_create(p.t, 256, &p.k), 0);
    assert_int_equal(lat_spsc_create(sizeof(msg), 64, 0, &p.q1), 0);
    assert_int_equal(lat_spsc_create(sizeof(msg), 64, 0, &p.q2), 0);
    pthread_t th[3];
    void *(*fn[3])(void *) = {p_producer, p_worker, p_consumer};
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, fn[i], &p);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(lat_trace_stop(p.t), 0);
    lat_trace_counts n;
    lat_trace_counts_get(p.t, &n);
    assert_int_equal(n.dropped, p.dropped);
    assert_int_equal(n.recorded + n.dropped, N_PIPE);
    assert_int_equal(n.unset, 0);
    lat_trace_figures f;
    assert_int_equal(lat_trace_figures_get(p.t, 2, LAT_TRACE_CUMULATIVE, &f), 0);
    assert_int_equal(f.count, (int64_t)n.recorded);
    lat_trace_destroy(p.t);
    lat_spsc_destroy(p.q1);
    lat_spsc_destroy(p.q2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fan_out_roomy),
        cmocka_unit_test(test_fan_out_tiny_rings),
        cmocka_unit_test(test_three_stage_drain_on_consumer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
