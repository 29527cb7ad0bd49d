/* test_loadrun.c - the pure parts of `latlab load`'s sending threads
 * (measure/loadrun.c), no servers: each engine's share of the rate and the
 * connections, its seed, CPU and phase; the engines' counters summed (maxima
 * as the largest, gap_ns per thread); the verdict's inputs pooled from every
 * engine; create's refusals.  The module's source is compiled in here so the
 * per-engine configuration (a static) and fake engines can be reached: the
 * engines' counters, samples and the verdict are the fakes below. */
#include "lat_test.h"

#include <errno.h>
#include <string.h>

#include "latlab/load.h"
#include "latlab/loadverdict.h"

typedef struct fake_engine {
    lat_load_counts c;
    double ia[3], pairs[4];
    size_t n_ia, n_pairs;
} fake_engine;

static void fake_counts_get(const lat_load *l, lat_load_counts *out) {
    *out = ((const fake_engine *)(const void *)l)->c;
}
static size_t fake_interarrivals(const lat_load *l, const double **out) {
    const fake_engine *e = (const void *)l;
    *out = e->ia;
    return e->n_ia;
}
static size_t fake_pairs(const lat_load *l, const double **out) {
    const fake_engine *e = (const void *)l;
    *out = e->pairs;
    return e->n_pairs;
}
static lat_load_verdict_in judged; /* what the verdict was handed */
static double judged_ia[8], judged_pairs[8];
static int fake_judge(const lat_load_verdict_in *in, lat_load_verdict *out) {
    (void)out;
    judged = *in;
    memcpy(judged_ia, in->interarrivals, in->n_interarrivals * sizeof(double));
    memcpy(judged_pairs, in->latency_pairs, in->n_pairs * 2 * sizeof(double));
    return 0;
}

#define lat_load_counts_get fake_counts_get
#define lat_load_interarrivals fake_interarrivals
#define lat_load_latency_pairs fake_pairs
#define lat_load_verdict_judge fake_judge
#include "../../measure/loadrun.c"

static void test_shares(void **state) {
    (void)state;
    lat_load_cfg c = {
        .arrivals = LAT_LOAD_CONSTANT, .rate_hz = 3000, .connections = 10, .seed = 40, .cpu = 2};
    unsigned conns = 0;
    for (int k = 0; k < 3; k++) {
        lat_load_cfg e = engine_cfg(&c, k, 3, 12345);
        assert_float_equal(e.rate_hz, 1000, 1e-9);
        assert_int_equal(e.connections, k == 0 ? 4 : 3); /* 10 over 3: 4, 3, 3 */
        assert_int_equal(e.seed, 40 + k);
        assert_int_equal(e.cpu, 2 + k);
        assert_int_equal(e.start_cycles, 12345);
        assert_int_equal(e.offset_ns, (uint64_t)k * 333333); /* k / 3000 Hz: interleaved */
        conns += e.connections;
    }
    assert_int_equal(conns, 10);
    c.arrivals = LAT_LOAD_POISSON, c.cpu = -1;
    lat_load_cfg e = engine_cfg(&c, 2, 3, 0);
    assert_int_equal(e.offset_ns, 0);
    assert_int_equal(e.cpu, -1);
}

static void test_counts_and_pool(void **state) {
    (void)state;
    fake_engine f[2] = {{.c = {.sent = 10,
                               .completed = 9,
                               .backlog_max = 7,
                               .gap_ns = 100,
                               .gap_longest_ns = 50,
                               .run_ns = 1000,
                               .gaps = 2},
                         .ia = {1, 2},
                         .n_ia = 2,
                         .pairs = {10, 11},
                         .n_pairs = 1},
                        {.c = {.sent = 5,
                               .completed = 5,
                               .backlog_max = 3,
                               .gap_ns = 300,
                               .gap_longest_ns = 80,
                               .run_ns = 900,
                               .gaps = 1},
                         .ia = {3, 4, 5},
                         .n_ia = 3,
                         .pairs = {20, 21, 22, 23},
                         .n_pairs = 2}};
    lat_loadrun r = {.n = 2, .arrivals = LAT_LOAD_POISSON, .connections = 12, .inflight = 4};
    r.l[0] = (lat_load *)(void *)&f[0], r.l[1] = (lat_load *)(void *)&f[1];
    lat_load_counts s;
    lat_loadrun_counts(&r, &s);
    assert_int_equal(s.sent, 15);
    assert_int_equal(s.completed, 14);
    assert_int_equal(s.gaps, 3);
    assert_int_equal(s.backlog_max, 7);     /* the largest, not the sum */
    assert_int_equal(s.gap_longest_ns, 80); /* the largest */
    assert_int_equal(s.run_ns, 1000);       /* the longest */
    assert_int_equal(s.gap_ns, 200);        /* the mean per thread */

    lat_load_verdict_in in = {.arrivals = LAT_LOAD_CONSTANT, .lag_fraction = 0.2};
    lat_load_verdict out;
    assert_int_equal(lat_loadrun_judge(&r, &in, &out), 0);
    assert_int_equal(judged.arrivals, LAT_LOAD_POISSON); /* the run's, not the caller's */
    assert_float_equal(judged.lag_fraction, 0.2, 0);
    assert_int_equal(judged.connections, 12); /* the run's slots, for Little's law */
    assert_int_equal(judged.max_inflight, 4);
    assert_int_equal(judged.n_interarrivals, 5);
    assert_int_equal(judged.n_pairs, 3);
    const double ia[5] = {1, 2, 3, 4, 5}, pairs[6] = {10, 11, 20, 21, 22, 23};
    assert_memory_equal(judged_ia, ia, sizeof ia);
    assert_memory_equal(judged_pairs, pairs, sizeof pairs);
}

static void test_refusals(void **state) {
    (void)state;
    lat_load_cfg c = {.arrivals = LAT_LOAD_POISSON, .rate_hz = 100, .connections = 2};
    lat_loadrun *r = NULL;
    assert_int_equal(lat_loadrun_create(&c, 0, &r), -EINVAL);
    assert_int_equal(lat_loadrun_create(&c, 3, &r), -EINVAL); /* more threads than connections */
    assert_int_equal(lat_loadrun_create(NULL, 1, &r), -EINVAL);
    c.arrivals = LAT_LOAD_REPLAY;
    assert_int_equal(lat_loadrun_create(&c, 2, &r), -EINVAL);
    assert_null(r);
    assert_int_equal(lat_loadrun_cpus_check(-1, 1), 1);
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    int first = 0;
    while (!CPU_ISSET(first, &set))
        first++;
    assert_int_equal(lat_loadrun_cpus_check(first, 1), 0);
    assert_int_equal(lat_loadrun_cpus_check(CPU_SETSIZE - 1, 2), 1); /* beyond every CPU */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares),
        cmocka_unit_test(test_counts_and_pool),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
