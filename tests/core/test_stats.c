/* test_stats.c - the stats module (core/stats.c) on small inputs with known
 * answers: medians (interpolated, high, of a const array left unsorted), the
 * interpolated quantile, the MAD and the ppm range; the Wilcoxon signed-rank
 * test's exact p-values (zeros dropped, ties given mid-ranks), the
 * Hodges-Lehmann shift and its interval, the Mann-Whitney test, and above
 * the exact limit the normal approximations; the seeded generator
 * (splitmix64's published first value) and its shuffle. */
#include "lat_test.h"

#include "latlab/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_medians(void **s) {
    (void)s;
    const double odd[3] = {3, 1, 2};
    double even[4] = {4, 1, 3, 2};
    assert_true(lat_stats_median(odd, 3) == 2);
    assert_true(lat_stats_median(even, 4) == 2.5);
    assert_true(even[0] == 4 && even[3] == 2); /* const input: not sorted */
    assert_true(isnan(lat_stats_median(even, 0)));
    assert_true(lat_stats_median_inplace(even, 4) == 2.5);
    assert_true(even[0] == 1 && even[1] == 2 && even[2] == 3 && even[3] == 4);
    assert_true(isnan(lat_stats_median_inplace(even, 0)));
    double hi[4] = {4, 1, 3, 2};
    assert_true(lat_stats_median_high(hi, 4) == 3); /* an observed value, not 2.5 */
    assert_true(lat_stats_median_high(hi, 0) == 0);
    uint64_t u[4] = {10, 7, 9, 8};
    assert_int_equal(lat_stats_median_high_u64(u, 4), 9);
    assert_int_equal(u[0], 7);
    assert_int_equal(u[3], 10);
}

static void test_quantile_mad_range(void **s) {
    (void)s;
    const double v[5] = {10, 20, 30, 40, 50};
    assert_true(lat_stats_quantile_sorted(v, 5, 0) == 10);
    assert_true(lat_stats_quantile_sorted(v, 5, 1) == 50);
    assert_true(lat_stats_quantile_sorted(v, 5, 0.25) == 20);
    assert_true(fabs(lat_stats_quantile_sorted(v, 5, 0.1) - 14) < 1e-12);
    assert_true(fabs(lat_stats_quantile_sorted(v, 5, 0.9) - 46) < 1e-12);
    assert_true(lat_stats_quantile_sorted(v, 1, 0.7) == 10);
    assert_true(isnan(lat_stats_quantile_sorted(v, 0, 0.5)));
    double m[5] = {1, 2, 3, 4, 100}; /* |v - 3| = 2 1 0 1 97: median 1 */
    assert_true(lat_stats_mad_inplace(m, 5, 3) == 1);
    assert_true(isnan(lat_stats_mad_inplace(m, 0, 3)));
    const double cal[3] = {1e6, 1e6 + 3, 1e6 + 1};
    assert_true(fabs(lat_stats_range_ppm(cal, 3) - 3) < 1e-9);
    assert_true(lat_stats_range_ppm(cal, 1) == 0);
    assert_true(isnan(lat_stats_range_ppm(cal, 0)));
    double d[6] = {3, -1, 2.5, 0, -7, 2.5};
    lat_stats_sort(d, 6);
    for (int i = 0; i < 5; i++)
        assert_true(d[i] <= d[i + 1]);
    assert_true(d[0] == -7 && d[5] == 3);
}

/* Zeros are dropped before ranking: {0, 0, 1, 2, 3} is three positive
 * differences, W+ = 6, and 2 of the 2^3 sign patterns are as extreme. */
static void test_signed_rank_zeros(void **s) {
    (void)s;
    lat_stats_test t;
    const double d[5] = {0, 0, 1, 2, 3};
    assert_int_equal(lat_stats_signed_rank(d, 5, &t), 0);
    assert_int_equal(t.n, 3);
    assert_true(t.stat == 6);
    assert_true(t.exact);
    assert_true(fabs(t.p - 2.0 / 8) < 1e-12);
    const double neg[3] = {-1, -2, -3}; /* symmetric answer, W+ = 0 */
    assert_int_equal(lat_stats_signed_rank(neg, 3, &t), 0);
    assert_true(t.stat == 0);
    assert_true(fabs(t.p - 2.0 / 8) < 1e-12);
    const double zeros[4] = {0, 0, 0, 0};
    assert_int_equal(lat_stats_signed_rank(zeros, 4, &t), 0);
    assert_int_equal(t.n, 0);
    assert_true(t.p == 1);
}

static void test_signed_rank_exact(void **s) {
    (void)s;
    lat_stats_test t;
    double all_pos[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(lat_stats_signed_rank(all_pos, 8, &t), 0);
    assert_true(t.exact);
    assert_true(fabs(t.p - 2.0 / 256) < 1e-12); /* only 2 of 2^8 sign patterns as extreme */
    double mixed[6] = {1, -2, 3, -4, 5, -6};
    assert_int_equal(lat_stats_signed_rank(mixed, 6, &t), 0);
    assert_true(t.p > 0.5);
    double ties[6] = {10, 10, 10, 10, 10, 10}; /* quantised: all one tick */
    assert_int_equal(lat_stats_signed_rank(ties, 6, &t), 0);
    assert_true(fabs(t.p - 2.0 / 64) < 1e-12);
    lat_stats_shift h;
    double d[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_int_equal(lat_stats_hl_shift(d, 10, 0.05, &h), 0);
    assert_true(fabs(h.est - 5.5) < 1e-9);
    assert_true(h.lo > 2 && h.lo < 5.5 && h.hi > 5.5 && h.hi < 9);
    assert_true(h.conf >= 0.95);
    assert_int_equal(lat_stats_hl_shift(d, 3, 0.01, &h), 0);
    assert_true(isinf(h.lo) && isinf(h.hi)); /* 3 rounds cannot give 99% */
}

/* Above the exact limit the normal approximations take over. */
static void test_stats_large_samples(void **s) {
    (void)s;
    static double d[300], e[300];
    lat_stats_rng g = {7};
    for (int i = 0; i < 300; i++) {
        d[i] = lat_stats_normal(&g);
        e[i] = d[i] + 0.5;
    }
    lat_stats_test t;
    assert_int_equal(lat_stats_signed_rank(d, 300, &t), 0);
    assert_false(t.exact);
    assert_true(t.p > 0.01);
    assert_int_equal(lat_stats_signed_rank(e, 300, &t), 0);
    assert_true(t.p < 1e-6);
    lat_stats_shift h;
    assert_int_equal(lat_stats_hl_shift(e, 300, 0.01, &h), 0);
    assert_true(h.lo < 0.5 && h.hi > 0.5 && h.lo > 0.2 && h.hi < 0.8);
    assert_int_equal(lat_stats_mann_whitney(d, 300, e, 300, &t), 0);
    assert_true(t.p < 1e-6 && t.z < 0); /* d ranks lower */
    double a[5] = {1, 2, 3, 4, 5}, b[5] = {6, 7, 8, 9, 10};
    assert_int_equal(lat_stats_mann_whitney(a, 5, b, 5, &t), 0);
    assert_true(t.exact);
    assert_true(fabs(t.p - 2.0 / 252) < 1e-12); /* one of C(10,5) orders, two-sided */
    assert_true(fabs(lat_stats_median(a, 5) - 3) < 1e-12);
}

/* splitmix64 from 0: the reference implementation's first output; a shuffle
 * is a permutation and the same seed gives the same order. */
static void test_rng_and_shuffle(void **s) {
    (void)s;
    lat_stats_rng g = {0};
    assert_true(lat_stats_next(&g) == 0xE220A8397B1DCDAFull);
    lat_stats_rng a = {42}, b = {42};
    for (int i = 0; i < 100; i++) {
        double u = lat_stats_uniform(&a);
        assert_true(u >= 0 && u < 1);
        assert_true(u == lat_stats_uniform(&b));
    }
    int x[16], y[16], seen[16] = {0};
    for (int i = 0; i < 16; i++)
        x[i] = y[i] = i;
    lat_stats_rng c = {9}, e = {9};
    lat_stats_shuffle(&c, x, 16);
    lat_stats_shuffle(&e, y, 16);
    assert_memory_equal(x, y, sizeof x);
    int moved = 0;
    for (int i = 0; i < 16; i++) {
        assert_true(x[i] >= 0 && x[i] < 16);
        seen[x[i]]++;
        moved += x[i] != i;
    }
    for (int i = 0; i < 16; i++)
        assert_int_equal(seen[i], 1);
    assert_true(moved > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_medians),
        cmocka_unit_test(test_quantile_mad_range),
        cmocka_unit_test(test_signed_rank_zeros),
        cmocka_unit_test(test_signed_rank_exact),
        cmocka_unit_test(test_stats_large_samples),
        cmocka_unit_test(test_rng_and_shuffle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
