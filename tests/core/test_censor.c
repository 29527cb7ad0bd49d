/* test_censor.c - per-sample censoring on synthetic timelines with known
 * answers: overlaps (boundaries touching, one gap over several samples, two
 * threads), a long window with no gap kept, the backlog rule (a busy period
 * after a gap, drained at the first unqueued sample), the horizon, samples
 * out of order, the inverse-probability weights on a distribution whose
 * answer is known, and the rule for how many kept samples a percentile
 * needs. */
#include "lat_test.h"

#include "latlab/censor.h"
#include "latlab/hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K = LAT_CENSOR_KEPT, G = LAT_CENSOR_GAP, B = LAT_CENSOR_BACKLOG, U = LAT_CENSOR_UNKNOWN };

/* Thread 0's gaps: [100, 150), [1000, 1200), [5000, 9000). */
static const lat_gap gaps0[] = {{100, 50}, {1000, 200}, {5000, 4000}};
/* Thread 1's: [300, 400). */
static const lat_gap gaps1[] = {{300, 100}};

static void join2(lat_censor *c) {
    lat_censor_timeline tl[2] = {{gaps0, 3, UINT64_MAX}, {gaps1, 1, UINT64_MAX}};
    assert_int_equal(lat_censor_init(c, tl, 2, 1), 0);
}

/* One figure [from, to) on threads: its verdict. */
static uint8_t one(lat_censor *c, uint64_t from, uint64_t to, unsigned threads) {
    lat_censor_event e = {.queued = false};
    e.fig[0] = (lat_censor_window){from, to, threads};
    uint8_t why[1];
    lat_censor_judge(c, &e, why, NULL);
    return why[0];
}

static void test_overlap_boundaries(void **s) {
    (void)s;
    lat_censor c;
    join2(&c);
    assert_int_equal(one(&c, 0, 100, 1), K);   /* ends where the gap starts */
    assert_int_equal(one(&c, 0, 101, 1), G);   /* one cycle into it */
    assert_int_equal(one(&c, 149, 150, 1), G); /* its last cycle */
    assert_int_equal(one(&c, 150, 200, 1), K); /* starts where it ends */
    assert_int_equal(one(&c, 120, 120, 1), G); /* an empty window inside */
    assert_int_equal(one(&c, 150, 150, 1), K); /* an empty window at its end */
    assert_int_equal(one(&c, 90, 1100, 1), G); /* holds two gaps */
}

static void test_gap_spans_several_samples(void **s) {
    (void)s;
    lat_censor c;
    join2(&c);
    uint64_t w[][2] = {{4900, 5000}, {5100, 5200}, {6000, 6100}, {8999, 9100}, {9000, 9100}};
    uint8_t want[] = {K, G, G, G, K};
    for (int i = 0; i < 5; i++)
        assert_int_equal(one(&c, w[i][0], w[i][1], 1), want[i]);
}

static void test_two_threads(void **s) {
    (void)s;
    lat_censor c;
    join2(&c);
    assert_int_equal(one(&c, 310, 320, 1), K); /* thread 1's gap, figure on thread 0 only */
    assert_int_equal(one(&c, 310, 320, 2), G);
    assert_int_equal(one(&c, 310, 320, 3), G);
    assert_int_equal(one(&c, 1100, 1150, 2), K); /* thread 0's gap, figure on thread 1 */
    assert_int_equal(one(&c, 1100, 1150, 0), K); /* an absent figure */
    /* both threads' gaps over one window: both to blame */
    lat_censor_event e = {.queued = false};
    e.fig[0] = (lat_censor_window){120, 350, 3};
    uint8_t why[1];
    unsigned who[1];
    assert_true(lat_censor_judge(&c, &e, why, who));
    assert_int_equal(why[0], G);
    assert_int_equal(who[0], 3);
    e.fig[0].threads = 2;
    lat_censor_judge(&c, &e, why, who);
    assert_int_equal(who[0], 2);
}

/* A window of 60,000 cycles with no gap on its thread is the thread's own
 * time (an allocator slow path, a page fault): kept, however long. */
static void test_long_own_work_kept(void **s) {
    (void)s;
    lat_censor c;
    join2(&c);
    assert_int_equal(one(&c, 20000, 80000, 3), K);
    assert_int_equal(one(&c, 9000, 1000000, 1), K);
}

/* Events of two figures (q1-like on both threads, work-like on thread 1). */
static lat_censor_event ev(bool queued, uint64_t t0, uint64_t t1, uint64_t t2) {
    lat_censor_event e = {.queued = queued};
    e.fig[0] = (lat_censor_window){t0, t1, 3};
    e.fig[1] = (lat_censor_window){t1, t2, 2};
    return e;
}

static void test_backlog(void **s) {
    (void)s;
    static const lat_gap w[] = {{1000, 500}, {20015, 100}}; /* the worker's */
    lat_censor_timeline tl[2] = {{NULL, 0, UINT64_MAX}, {w, 2, UINT64_MAX}};
    lat_censor c;
    assert_int_equal(lat_censor_init(&c, tl, 2, 2), 0);
    lat_censor_event e[] = {
        ev(false, 0, 50, 60),        /* before: kept */
        ev(false, 900, 950, 960),    /* done before the gap: kept */
        ev(false, 1200, 1510, 1520), /* due in the gap: q1 GAP, work ran cold after it: GAP */
        ev(true, 1400, 1520, 1530),  /* due in the gap too: q1 GAP, work waited through it: GAP */
        ev(true, 1505, 1530, 1535),  /* due after it, queued behind them: backlog */
        ev(true, 1515, 1535, 1540),  /* still queued: backlog */
        ev(false, 1600, 1650, 1660), /* due after the last finished: drained, kept */
        ev(true, 1655, 1660, 1670),  /* queued, but no gap in this busy period: kept */
        ev(false, 19990, 20000, 20010), /* before the second gap: kept */
        ev(true, 20005, 20010, 20015),  /* queued behind a kept one, touches it: kept */
        ev(true, 20050, 20150, 20160),  /* q1 over the gap: GAP, work after it: GAP */
        ev(true, 20120, 20160, 20170),  /* queued after it: backlog */
    };
    uint8_t want[][2] = {{K, K}, {K, K}, {G, G}, {G, G}, {B, B}, {B, B},
                         {K, K}, {K, K}, {K, K}, {K, K}, {G, G}, {B, B}};
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        uint8_t why[2];
        unsigned who[2];
        bool any = lat_censor_judge(&c, &e[i], why, who);
        for (int f = 0; f < 2; f++) {
            assert_int_equal(why[f], want[i][f]);
            assert_int_equal(who[f], want[i][f] == K ? 0u : 2u); /* the worker's gaps */
        }
        assert_int_equal(any, want[i][0] != K || want[i][1] != K);
    }
}

/* The sample's time before a figure's window counts for that figure only
 * on the threads that carry it: a worker gap while the event waited in q1
 * censors its work (it ran cold after the gap), a producer gap does not. */
static void test_cold_after_gap(void **s) {
    (void)s;
    static const lat_gap p[] = {{100, 50}}, w[] = {{1000, 50}};
    lat_censor_timeline tl[2] = {{p, 1, UINT64_MAX}, {w, 1, UINT64_MAX}};
    lat_censor c;
    assert_int_equal(lat_censor_init(&c, tl, 2, 2), 0);
    uint8_t why[2];
    unsigned who[2];
    lat_censor_event a = ev(false, 90, 200, 210); /* the producer's gap in its q1 wait */
    lat_censor_judge(&c, &a, why, who);
    assert_int_equal(why[0], G), assert_int_equal(who[0], 1u);
    assert_int_equal(why[1], K);                     /* the producer does not carry the work */
    lat_censor_event b = ev(false, 990, 1060, 1070); /* the worker's gap in its q1 wait */
    lat_censor_judge(&c, &b, why, who);
    assert_int_equal(why[0], G);
    assert_int_equal(why[1], G), assert_int_equal(who[1], 2u);
    lat_censor_event d = ev(false, 1050, 1060, 1070); /* born as the gap ended: kept */
    lat_censor_judge(&c, &d, why, who);
    assert_int_equal(why[0], K), assert_int_equal(why[1], K);
}

static void test_horizon_unknown(void **s) {
    (void)s;
    lat_censor_timeline tl[1] = {{gaps0, 2, 1200}}; /* the list stopped after [1000, 1200) */
    lat_censor c;
    assert_int_equal(lat_censor_init(&c, tl, 1, 1), 0);
    assert_int_equal(one(&c, 500, 600, 1), K);
    assert_int_equal(one(&c, 1100, 1300, 1), G);
    assert_int_equal(one(&c, 1200, 1300, 1), U);
    assert_int_equal(one(&c, 5100, 5200, 1), U); /* a gap there was not kept */
}

/* Samples whose windows go back in time get the same answers. */
static void test_out_of_order(void **s) {
    (void)s;
    lat_censor c;
    join2(&c);
    assert_int_equal(one(&c, 6000, 6100, 1), G);
    assert_int_equal(one(&c, 120, 130, 1), G);
    assert_int_equal(one(&c, 200, 250, 1), K);
    assert_int_equal(one(&c, 350, 360, 2), G);
    assert_int_equal(one(&c, 9500, 9600, 1), K);
    assert_int_equal(one(&c, 1199, 1300, 1), G);
}

static void test_gaps_search(void **s) {
    (void)s;
    assert_int_equal(lat_gaps_search(gaps0, 3, 0), 0);
    assert_int_equal(lat_gaps_search(gaps0, 3, 149), 0);
    assert_int_equal(lat_gaps_search(gaps0, 3, 150), 1); /* [100, 150) ends at 150 */
    assert_int_equal(lat_gaps_search(gaps0, 3, 9000), 3);
    assert_int_equal(lat_gaps_search(NULL, 3, 0), 0);
}

static void test_bad_args(void **s) {
    (void)s;
    lat_censor c;
    lat_censor_timeline tl[1] = {{gaps0, 3, UINT64_MAX}};
    assert_int_equal(lat_censor_init(NULL, tl, 1, 1), -EINVAL);
    assert_int_equal(lat_censor_init(&c, tl, 1, 0), -EINVAL);
    assert_int_equal(lat_censor_init(&c, tl, 1, LAT_CENSOR_MAXFIG + 1), -EINVAL);
    assert_int_equal(lat_censor_init(&c, tl, LAT_CENSOR_MAXTL + 1, 1), -EINVAL);
    assert_int_equal(lat_censor_init(&c, NULL, 0, 1), 0);
    assert_int_equal(one(&c, 0, 10, 1), K);
}

/* A known answer: 1,000 values of 1..1,000 us, 1,000 samples each; each
 * survives a gap rate of 2 per ms with probability exp(-rate * v) (kept
 * counts rounded).  The kept samples' plain percentiles read low; weighted by
 * exp(rate * v) they read the whole set's within 1%. */
static void test_ipw_known_answer(void **s) {
    (void)s;
    const double rate = 2e-6; /* per ns */
    lat_hist *all = NULL, *kept = NULL;
    assert_int_equal(lat_hist_create(1, 10000000, 3, &all), 0);
    assert_int_equal(lat_hist_create(1, 10000000, 3, &kept), 0);
    for (int j = 1; j <= 1000; j++) {
        int64_t v = 1000 * (int64_t)j;
        lat_hist_record_n(all, v, 1000);
        lat_hist_record_n(kept, v, (int64_t)llround(1000 * exp(-rate * (double)v)));
    }
    const double ps[] = {50, 90, 99, 99.9};
    int64_t truth[4], plain[4], ipw[4];
    lat_hist_values_at_percentiles(all, ps, truth, 4);
    lat_hist_values_at_percentiles(kept, ps, plain, 4);
    assert_int_equal(lat_censor_ipw_percentiles(kept, rate, ps, ipw, 4), 0);
    for (int i = 0; i < 4; i++) {
        printf("p%g: all %ld kept %ld weighted %ld\n", ps[i], (long)truth[i], (long)plain[i],
               (long)ipw[i]);
        assert_true(fabs((double)(ipw[i] - truth[i])) <= 0.01 * (double)truth[i]);
    }
    assert_true(plain[0] < 0.85 * (double)truth[0]); /* the bias it corrects */
    assert_true(plain[1] < 0.95 * (double)truth[1]);
    int64_t zero[4];
    assert_int_equal(lat_censor_ipw_percentiles(kept, 0, ps, zero, 4), 0);
    assert_memory_equal(zero, plain, sizeof zero);
    assert_int_equal(lat_censor_ipw_percentiles(kept, -1, ps, zero, 4), -EINVAL);
    const double bad[] = {101};
    assert_int_equal(lat_censor_ipw_percentiles(kept, rate, bad, zero, 1), -EINVAL);
    lat_hist_destroy(all);
    lat_hist_destroy(kept);
}

static void test_support_rule(void **s) {
    (void)s;
    assert_int_equal(lat_censor_min_kept(50), 20);
    assert_int_equal(lat_censor_min_kept(99), 1000);
    assert_int_equal(lat_censor_min_kept(99.9), 10000);
    assert_int_equal(lat_censor_min_kept(99.99), 100000);
    assert_true(lat_censor_min_kept(100) == UINT64_MAX);
    assert_true(lat_censor_min_kept(NAN) == UINT64_MAX);
    assert_true(lat_censor_supports(10000, 99.9));
    assert_false(lat_censor_supports(9999, 99.9));
    assert_true(lat_censor_supports(1000, 99));
    assert_false(lat_censor_supports(999, 99));
    assert_false(lat_censor_supports(UINT64_MAX, 100));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_boundaries),
        cmocka_unit_test(test_gap_spans_several_samples),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_long_own_work_kept),
        cmocka_unit_test(test_backlog),
        cmocka_unit_test(test_cold_after_gap),
        cmocka_unit_test(test_horizon_unknown),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_gaps_search),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_ipw_known_answer),
        cmocka_unit_test(test_support_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
