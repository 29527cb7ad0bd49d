/* test_bench_stats.c - the harness's statistics against hand-computed values:
 * interpolated percentiles, MAD, population CV, Tukey fences, the stability
 * rule, and the Mann-Whitney U test (exact and normal approximation); and the
 * statistics module's in-place medians, MAD and relative spread (stats.h)
 * that the benchmarks, the ring bake-off and `latlab clock` share. */
#include "lat_test.h"

#include "latlab/bench.h"
#include "latlab/stats.h"

#include <errno.h>
#include <math.h>

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_percentile(void **state) {
    (void)state;
    const double s[] = {10, 20, 30, 40, 50};
    NEAR(lat_bench_percentile(s, 5, 0.0), 10, 1e-12);
    NEAR(lat_bench_percentile(s, 5, 0.5), 30, 1e-12);
    NEAR(lat_bench_percentile(s, 5, 0.25), 20, 1e-12);
    NEAR(lat_bench_percentile(s, 5, 0.95), 48, 1e-12); /* rank 3.8: 40 + 0.8*10 */
    NEAR(lat_bench_percentile(s, 5, 0.1), 14, 1e-12);  /* rank 0.4 */
    NEAR(lat_bench_percentile(s, 5, 1.0), 50, 1e-12);
    NEAR(lat_bench_percentile(s, 1, 0.7), 10, 1e-12);
    assert_true(isnan(lat_bench_percentile(s, 0, 0.5)));
}

static void test_summary_hand_computed(void **state) {
    (void)state;
    /* Unsorted on purpose; the input must stay in this order. */
    double x[] = {9, 2, 4, 5, 4, 7, 4, 5};
    const double copy[] = {9, 2, 4, 5, 4, 7, 4, 5};
    lat_bench_summary s;
    assert_int_equal(lat_bench_summarize(x, 8, &s), 0);
    assert_memory_equal(x, copy, sizeof copy);
    assert_int_equal(s.n, 8);
    NEAR(s.mean, 5, 1e-12);
    NEAR(s.stddev, 2, 1e-12); /* population: sqrt(32/8) */
    NEAR(s.cv_pct, 40, 1e-9);
    NEAR(s.median, 4.5, 1e-12);
    NEAR(s.mad, 0.5, 1e-12); /* |x-4.5| = .5 x5, 2.5 x2, 4.5 */
    NEAR(s.p95, 8.3, 1e-12); /* rank 6.65: 7 + .65*2 */
    NEAR(s.q1, 4, 1e-12);    /* rank 1.75 */
    NEAR(s.q3, 5.5, 1e-12);  /* rank 5.25: 5 + .25*2 */
    NEAR(s.fence_lo, 1.75, 1e-12);
    NEAR(s.fence_hi, 7.75, 1e-12);
    assert_int_equal(s.outliers, 1); /* 9 */
    NEAR(s.min, 2, 0);
    NEAR(s.max, 9, 0);

    double y[] = {1, 2, 3, 4, 100};
    assert_int_equal(lat_bench_summarize(y, 5, &s), 0);
    NEAR(s.median, 3, 1e-12);
    NEAR(s.mad, 1, 1e-12);
    NEAR(s.p95, 80.8, 1e-9);
    NEAR(s.fence_lo, -1, 1e-12);
    NEAR(s.fence_hi, 7, 1e-12);
    assert_int_equal(s.outliers, 1);
    NEAR(s.cv_pct, sqrt(1522.0) / 22 * 100, 1e-9);

    /* Fewer than 4 samples: no outlier test. */
    double z[] = {1, 1, 100};
    assert_int_equal(lat_bench_summarize(z, 3, &s), 0);
    assert_int_equal(s.outliers, 0);
    assert_int_equal(lat_bench_summarize(z, 0, &s), -EINVAL);
}

static void test_stability_rule(void **state) {
    (void)state;
    assert_false(lat_bench_stability_weak(9.99, 1, 20));
    assert_true(lat_bench_stability_weak(10.0, 0, 20));
    assert_true(lat_bench_stability_weak(0, 2, 20));  /* max(2, 2) */
    assert_false(lat_bench_stability_weak(0, 2, 30)); /* max(2, 3) */
    assert_true(lat_bench_stability_weak(0, 3, 30));
    assert_true(lat_bench_stability_weak(0, 2, 5));
}

/* Conover's ages example, used in SciPy's documentation:
 * males {19,22,16,29,24}, females {20,11,17,12}: U = 17, exact two-sided
 * p = 2 * 7/126 = 0.1111. */
static void test_mwu_exact_published(void **state) {
    (void)state;
    const double m[] = {19, 22, 16, 29, 24}, f[] = {20, 11, 17, 12};
    lat_bench_mwu u;
    assert_int_equal(lat_bench_mann_whitney(m, 5, f, 4, &u), 0);
    assert_true(u.exact);
    NEAR(u.u1, 17, 1e-12);
    NEAR(u.u, 3, 1e-12);
    NEAR(u.p, 2.0 * 7 / 126, 1e-12);
    /* Symmetric in the order of the samples. */
    assert_int_equal(lat_bench_mann_whitney(f, 4, m, 5, &u), 0);
    NEAR(u.u1, 3, 1e-12);
    NEAR(u.p, 2.0 * 7 / 126, 1e-12);

    /* Wikipedia's tortoise-and-hare race: T H H H H H T T T T T H (finishing
     * order): U_T = 11, U_H = 25.  Exact p for U = 11 with 6 and 6 is
     * 2 * 143/924: 143 of the C(12,6) orderings have U <= 11 (enumerated). */
    const double t[] = {1, 7, 8, 9, 10, 11}, h[] = {2, 3, 4, 5, 6, 12};
    assert_int_equal(lat_bench_mann_whitney(h, 6, t, 6, &u), 0);
    NEAR(u.u1, 11, 1e-12); /* rank sum of the hares' places, 32, minus 21 */
    NEAR(u.u, 11, 1e-12);
    assert_int_equal(lat_bench_mann_whitney(t, 6, h, 6, &u), 0);
    NEAR(u.u1, 25, 1e-12);
    NEAR(u.u, 11, 1e-12);
    NEAR(u.p, 2.0 * 143 / 924, 1e-12);

    /* Complete separation, 5 vs 5: p = 2 / C(10,5). */
    const double lo[] = {1, 2, 3, 4, 5}, hi[] = {6, 7, 8, 9, 10};
    assert_int_equal(lat_bench_mann_whitney(lo, 5, hi, 5, &u), 0);
    NEAR(u.u, 0, 0);
    NEAR(u.p, 2.0 / 252, 1e-12);
}

/* With ties: normal approximation with tie and continuity corrections.
 * a = {1,2,2,3}, b = {2,3,4,5}: mid-ranks give R_a = 12.5, U_a = 2.5;
 * var = 16/12 * (9 - 30/56) = 11.2857; z = (5.5 - 0.5) / 3.35942 = 1.48835,
 * p = 0.1367 (normal table). */
static void test_mwu_ties_normal(void **state) {
    (void)state;
    const double a[] = {1, 2, 2, 3}, b[] = {2, 3, 4, 5};
    lat_bench_mwu u;
    assert_int_equal(lat_bench_mann_whitney(a, 4, b, 4, &u), 0);
    assert_false(u.exact);
    NEAR(u.u1, 2.5, 1e-12);
    NEAR(u.z, 1.48835, 1e-4);
    NEAR(u.p, 0.1367, 5e-4);
    /* All equal: no evidence at all. */
    const double c[] = {5, 5, 5}, d[] = {5, 5, 5};
    assert_int_equal(lat_bench_mann_whitney(c, 3, d, 3, &u), 0);
    NEAR(u.p, 1, 0);
    assert_int_equal(lat_bench_mann_whitney(c, 0, d, 3, &u), -EINVAL);
}

/* Large samples: two clearly shifted groups are significant, identical ones not. */
static void test_mwu_large(void **state) {
    (void)state;
    double a[60], b[60];
    for (int i = 0; i < 60; i++) {
        a[i] = 100 + (i * 37 % 60) * 0.1;
        b[i] = 103 + (i * 41 % 60) * 0.1;
    }
    lat_bench_mwu u;
    assert_int_equal(lat_bench_mann_whitney(a, 60, b, 60, &u), 0);
    assert_false(u.exact);
    assert_true(u.p < 1e-6);
    assert_int_equal(lat_bench_mann_whitney(a, 60, a, 60, &u), 0);
    assert_true(u.p > 0.9);
}

static void test_shuffle_deterministic(void **state) {
    (void)state;
    size_t a[20], b[20], c[20];
    for (size_t i = 0; i < 20; i++)
        a[i] = b[i] = c[i] = i;
    lat_bench_shuffle(42, a, 20);
    lat_bench_shuffle(42, b, 20);
    lat_bench_shuffle(43, c, 20);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    /* A permutation: every index once. */
    int seen[20] = {0};
    for (size_t i = 0; i < 20; i++)
        seen[a[i]]++;
    for (size_t i = 0; i < 20; i++)
        assert_int_equal(seen[i], 1);
}

static void test_median_inplace_even_odd(void **state) {
    (void)state;
    double even[] = {4, 1, 3, 2};
    NEAR(lat_stats_median_inplace(even, 4), 2.5, 1e-12); /* mean of 2 and 3 */
    const double sorted[] = {1, 2, 3, 4};
    assert_memory_equal(even, sorted, sizeof sorted); /* sorted in place */
    double odd[] = {5, -1, 3};
    NEAR(lat_stats_median_inplace(odd, 3), 3, 1e-12);
    double one[] = {7};
    NEAR(lat_stats_median_inplace(one, 1), 7, 1e-12);
    assert_true(isnan(lat_stats_median_inplace(one, 0)));
    /* The copying median agrees and leaves its input alone. */
    const double c[] = {9, 2, 4, 5};
    NEAR(lat_stats_median(c, 4), 4.5, 1e-12);
}

static void test_median_high(void **state) {
    (void)state;
    double d[] = {4, 1, 3, 2};
    NEAR(lat_stats_median_high(d, 4), 3, 1e-12); /* v[n/2] of {1,2,3,4} */
    assert_true(d[0] == 1 && d[3] == 4);
    double o[] = {30, 10, 20};
    NEAR(lat_stats_median_high(o, 3), 20, 1e-12);
    NEAR(lat_stats_median_high(o, 0), 0, 0);
    uint64_t u[] = {40, 10, 30, 20, 50, 60};
    assert_int_equal(lat_stats_median_high_u64(u, 6), 40);
    assert_int_equal(u[0], 10);
    assert_int_equal(u[5], 60);
    uint64_t big[] = {UINT64_MAX, 0, 1}; /* no overflow in the comparison */
    assert_int_equal(lat_stats_median_high_u64(big, 3), 1);
    assert_int_equal(big[2], UINT64_MAX);
    assert_int_equal(lat_stats_median_high_u64(big, 0), 0);
}

static void test_mad_and_range(void **state) {
    (void)state;
    double v[] = {1, 2, 3, 4, 100};
    /* deviations from 3: 2 1 0 1 97 -> sorted 0 1 1 2 97 -> 1 */
    NEAR(lat_stats_mad_inplace(v, 5, 3), 1, 1e-12);
    double w[] = {10, 14, 11, 19};
    /* deviations from 12.5: 2.5 1.5 1.5 6.5 -> median 2 */
    NEAR(lat_stats_mad_inplace(w, 4, 12.5), 2, 1e-12);
    assert_true(isnan(lat_stats_mad_inplace(w, 0, 0)));
    const double r[] = {1.000002, 0.999999, 1.0};
    NEAR(lat_stats_range_ppm(r, 3), 3.000003, 1e-6); /* (1.000002 - 0.999999) / 0.999999 */
    assert_true(r[0] == 1.000002);                   /* not reordered */
    const double same[] = {2.5, 2.5};
    NEAR(lat_stats_range_ppm(same, 2), 0, 0);
    assert_true(isnan(lat_stats_range_ppm(r, 0)));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile),
        cmocka_unit_test(test_summary_hand_computed),
        cmocka_unit_test(test_stability_rule),
        cmocka_unit_test(test_mwu_exact_published),
        cmocka_unit_test(test_mwu_ties_normal),
        cmocka_unit_test(test_mwu_large),
        cmocka_unit_test(test_shuffle_deterministic),
        cmocka_unit_test(test_median_inplace_even_odd),
        cmocka_unit_test(test_median_high),
        cmocka_unit_test(test_mad_and_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
