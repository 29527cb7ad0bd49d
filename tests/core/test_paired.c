/* test_paired.c - the paired-comparison engine (core/paired.c) on inputs with
 * known answers: a 2% shift found and bracketed, a null not, the judgement's
 * four kinds and its band, Benjamini-Hochberg against the per-test rule it
 * replaces, the minimum detectable effect shrinking with the rounds, the
 * stop rule's two projections, and the looks' shares of alpha. */
#include "lat_test.h"

#include "latlab/paired.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* n per-round log ratios: shift plus normal noise of spread sd. */
static void world(double *d, size_t n, double shift, double sd, uint64_t seed) {
    lat_stats_rng r = {seed};
    for (size_t i = 0; i < n; i++)
        d[i] = shift + sd * lat_stats_normal(&r);
}

static void test_z(void **s) {
    (void)s;
    assert_true(fabs(lat_paired_z(0.975) - 1.959964) < 1e-5);
    assert_true(fabs(lat_paired_z(0.8) - 0.841621) < 1e-5);
    assert_true(fabs(lat_paired_z(0.5)) < 1e-9);
    assert_true(isnan(lat_paired_z(0)) && isnan(lat_paired_z(1)));
}

static void test_point_finds_a_shift(void **s) {
    (void)s;
    double d[30];
    world(d, 30, log(1.02), 0.005, 7);
    lat_paired_point pt;
    assert_int_equal(lat_paired_point_read(d, 30, 0.01, &pt), 0);
    assert_int_equal(pt.n, 30);
    assert_true(pt.test.p < 0.001);
    assert_true(pt.ci.lo < log(1.02) && pt.ci.hi > log(1.02));
    assert_true(pt.ci.lo > 0);
    /* the no-change interval (98%) lies inside the decision one (99%) */
    assert_true(pt.eq.lo >= pt.ci.lo && pt.eq.hi <= pt.ci.hi);
    assert_true(pt.mde > 0 && pt.mde < 0.01);
    assert_int_equal(lat_paired_judge(&pt, true, log(1.01), 10), LAT_PAIRED_UP);
    /* the same rounds mirrored: faster */
    for (int i = 0; i < 30; i++)
        d[i] = -d[i];
    assert_int_equal(lat_paired_point_read(d, 30, 0.01, &pt), 0);
    assert_int_equal(lat_paired_judge(&pt, true, log(1.01), 10), LAT_PAIRED_DOWN);
    /* not rejected by the family's test: no call, and not "no change" either */
    assert_int_equal(lat_paired_judge(&pt, false, log(1.01), 10), LAT_PAIRED_UNDECIDED);
}

static void test_judge_band(void **s) {
    (void)s;
    double d[40];
    world(d, 40, 0, 0.01, 11);
    lat_paired_point pt;
    assert_int_equal(lat_paired_point_read(d, 40, 0.01, &pt), 0);
    assert_true(pt.test.p > 0.01);
    /* a wide band holds the null; a narrow one cannot yet */
    assert_int_equal(lat_paired_judge(&pt, false, log(1.02), 10), LAT_PAIRED_SAME);
    assert_int_equal(lat_paired_judge(&pt, false, log(1.002), 10), LAT_PAIRED_UNDECIDED);
    /* too few rounds for the rule's minimum */
    assert_int_equal(lat_paired_judge(&pt, false, log(1.02), 41), LAT_PAIRED_UNDECIDED);
    /* a real but tiny change, wholly inside the band: no change */
    world(d, 40, log(1.002), 0.0005, 3);
    assert_int_equal(lat_paired_point_read(d, 40, 0.01, &pt), 0);
    assert_true(pt.ci.lo > 0);
    assert_int_equal(lat_paired_judge(&pt, true, log(1.01), 10), LAT_PAIRED_SAME);
    assert_int_equal(lat_paired_judge(&pt, true, log(1.001), 10), LAT_PAIRED_UP);
    /* one round: nothing */
    assert_int_equal(lat_paired_point_read(d, 1, 0.01, &pt), 0);
    assert_true(isinf(pt.mde) && pt.test.p == 1);
    assert_int_equal(lat_paired_judge(&pt, true, log(1.5), 1), LAT_PAIRED_UNDECIDED);
    assert_int_equal(lat_paired_point_read(d, 5, 0, &pt), -EINVAL);
}

static void test_mde_shrinks(void **s) {
    (void)s;
    double d[160];
    world(d, 160, 0, 0.02, 5);
    lat_paired_point a, b;
    assert_int_equal(lat_paired_point_read(d, 10, 0.01, &a), 0);
    assert_int_equal(lat_paired_point_read(d, 160, 0.01, &b), 0);
    /* four times the rounds... sixteen: about a quarter of the effect */
    assert_true(b.mde < a.mde / 2.5 && b.mde > a.mde / 6);
    /* and at n = 160, about (2.576 + 0.842) x 0.02 x 1.05 / sqrt(160) */
    double expect = (2.576 + 0.842) * 0.02 / sqrt(160.0);
    assert_true(b.mde > 0.8 * expect && b.mde < 1.4 * expect);
}

static void test_bh(void **s) {
    (void)s;
    bool rej[5];
    const double all[5] = {0.01, 0.02, 0.03, 0.04, 0.05};
    assert_int_equal(lat_paired_bh(all, 5, 0.05, rej), 5);
    const double one[3] = {0.001, 0.2, 0.3};
    assert_int_equal(lat_paired_bh(one, 3, 0.05, rej), 1);
    assert_true(rej[0] && !rej[1] && !rej[2]);
    /* two p = 0.04 in three: each alone passes 0.05, the family does not */
    const double two[3] = {0.04, 0.5, 0.04};
    assert_int_equal(lat_paired_bh(two, 3, 0.05, rej), 0);
    assert_true(!rej[0] && !rej[2]);
    /* order of input does not matter; NAN neither counts nor is rejected */
    const double mixed[4] = {0.3, NAN, 0.004, 0.02};
    assert_int_equal(lat_paired_bh(mixed, 4, 0.05, rej), 2);
    assert_true(!rej[0] && !rej[1] && rej[2] && rej[3]);
    assert_int_equal(lat_paired_bh(all, 5, 1.5, rej), -EINVAL);
    assert_int_equal(lat_paired_bh(NULL, 0, 0.05, NULL), 0);
}

/* Under the null, a family of 20 points judged at alpha each reads a change
 * far more often than one controlled by BH: the safeguard matters. */
static void test_bh_controls_family(void **s) {
    (void)s;
    int raw = 0, bh = 0;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        double p[20];
        bool rej[20];
        for (int k = 0; k < 20; k++) {
            double d[20];
            world(d, 20, 0, 0.01, seed * 100 + (uint64_t)k);
            lat_paired_point pt;
            assert_int_equal(lat_paired_point_read(d, 20, 0.05, &pt), 0);
            p[k] = pt.test.p;
        }
        int any_raw = 0;
        for (int k = 0; k < 20; k++)
            any_raw |= p[k] < 0.05;
        raw += any_raw;
        bh += lat_paired_bh(p, 20, 0.05, rej) > 0;
    }
    /* 1 - 0.95^20 = 64% of families read a change point by point */
    assert_true(raw > 40);
    assert_true(bh <= 12);
}

static void test_projections(void **s) {
    (void)s;
    /* half-width 0.02 around 0 into a band of 0.01: (0.02/0.01)^2 x 10 */
    assert_int_equal(lat_paired_rounds_to_fit(-0.02, 0.02, 10, 0.01, 0.9), 40);
    assert_int_equal(lat_paired_rounds_to_fit(-0.005, 0.005, 10, 0.01, 0.9), 10);
    /* a centre at the band's edge promises nothing */
    assert_int_equal(lat_paired_rounds_to_fit(0.01, 0.029, 10, 0.02, 0.9), 0);
    assert_int_equal(lat_paired_rounds_to_fit(NAN, 0.02, 10, 0.01, 0.9), 0);
    /* the edge is the caller's share of the band: a centre at 0.85 of it */
    assert_true(lat_paired_rounds_to_fit(0.84, 0.86, 10, 1, 0.9) > 0);
    assert_int_equal(lat_paired_rounds_to_fit(0.84, 0.86, 10, 1, 0.8), 0);
    assert_int_equal(lat_paired_rounds_to_fit(-0.02, 0.02, 10, 0.01, 0), 0);
    /* est 0.1 over [-0.05, 0.25]: 30 more rounds halve the interval around 0.2 */
    assert_true(lat_paired_may_exclude_zero(0.1, -0.05, 0.25, 10, 30, 2));
    assert_true(!lat_paired_may_exclude_zero(0.05, -0.15, 0.25, 10, 0, 2));
    assert_true(lat_paired_may_exclude_zero(0.05, -0.15, 0.25, 10, 300, 2));
    /* an effect of 1.5% over 10 rounds comes within 1% by 23, not by 20 */
    assert_true(lat_paired_mde_may_fit(0.015, 10, 13, 0.01));
    assert_true(!lat_paired_mde_may_fit(0.015, 10, 10, 0.01));
    assert_true(!lat_paired_mde_may_fit(0.008, 10, 100, 0.01)); /* within already */
    assert_true(!lat_paired_mde_may_fit(INFINITY, 1, 100, 0.01));
    assert_true(!lat_paired_may_exclude_zero(0.001, -0.2, 0.2, 10, 30, 2));
    assert_true(lat_paired_may_exclude_zero(-0.1, -0.25, 0.05, 10, 30, 2));
    assert_true(!lat_paired_may_exclude_zero(0, -0.1, 0.1, 10, 1000, 2));
    /* the projected multiple is the caller's (0.04 m - 0.15 x 0.5 clears 0
     * above m = 1.875); one below 1, which would shrink the estimate, is refused */
    assert_true(lat_paired_may_exclude_zero(0.1, -0.05, 0.25, 10, 30, 1));
    assert_true(!lat_paired_may_exclude_zero(0.04, -0.11, 0.19, 10, 30, 1.5));
    assert_true(lat_paired_may_exclude_zero(0.04, -0.11, 0.19, 10, 30, 2));
    assert_true(!lat_paired_may_exclude_zero(0.1, -0.05, 0.25, 10, 30, 0.9));
}

/* O'Brien-Fleming spending: a(t) = 2 - 2 Phi(z(0.995) / sqrt t) at alpha
 * 0.01 gives a(0.5) = 2.697e-4 and a(2/3) = 1.606e-3 (scipy). */
static void test_look_alpha(void **s) {
    (void)s;
    assert_true(fabs(lat_paired_look_alpha(0.01, 0, 50, 100) / 2.6972e-4 - 1) < 1e-3);
    assert_true(fabs(lat_paired_look_alpha(0.01, 120, 180, 180) - (0.01 - 1.6064e-3)) < 1e-6);
    /* the looks' shares add up to alpha at the budget's end */
    double sum = 0;
    unsigned prev = 0;
    for (unsigned look = 10; look <= 180; look += (look + 1) / 2) {
        double a = lat_paired_look_alpha(0.01, prev, look, 180);
        assert_true(a > 0 && a < 0.01);
        sum += a;
        prev = look;
    }
    assert_true(fabs(sum - 0.01) < 1e-12);
    /* the first look of a long budget gets almost nothing; one look, all of it */
    assert_true(lat_paired_look_alpha(0.01, 0, 10, 400) < 1e-20);
    assert_true(lat_paired_look_alpha(0.01, 0, 23, 23) == 0.01);
    /* a budget already passed is its end */
    assert_true(lat_paired_look_alpha(0.01, 15, 23, 20) == lat_paired_look_alpha(0.01, 15, 23, 23));
    assert_true(lat_paired_look_alpha(0.01, 23, 23, 40) == 0);
    assert_true(lat_paired_look_alpha(0.01, 0, 0, 40) == 0);
    assert_true(lat_paired_look_alpha(1.5, 0, 10, 40) == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_z),           cmocka_unit_test(test_point_finds_a_shift),
        cmocka_unit_test(test_judge_band),  cmocka_unit_test(test_mde_shrinks),
        cmocka_unit_test(test_bh),          cmocka_unit_test(test_bh_controls_family),
        cmocka_unit_test(test_projections), cmocka_unit_test(test_look_alpha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
