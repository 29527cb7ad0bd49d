/* test_budget.c - the per-run error budget: histogram resolution from the
 * significant figures (against the geometry lat_hist_init builds), the
 * measured timer step and stamp cost are positive and plausible, the CO
 * share, the formatted line, and the "below granularity" decision on changes
 * with known answers. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/budget.h"
#include "latlab/hist.h"

static void test_resolution(void **state) {
    (void)state;
    for (int s = 0; s <= 5; s++) {
        lat_hist h;
        assert_int_equal(lat_hist_init(&h, 1, 1000000000, s), 0);
        /* a slot just above the first bucket is the widest relative to its value */
        int64_t v = (int64_t)h.sub_bucket_count;
        double rel = (double)lat_hist_size_of_equivalent_range(&h, v) / (double)v;
        assert_true(fabs(lat_budget_hist_resolution(s) - rel) < 1e-15);
        lat_hist_fini(&h);
    }
    assert_true(fabs(lat_budget_hist_resolution(3) - 2.0 / 2048) < 1e-15);
    assert_true(isnan(lat_budget_hist_resolution(6)));
}

static void test_measure_and_format(void **state) {
    (void)state;
    lat_budget b;
    assert_int_equal(lat_budget_measure(NULL, NULL, 0, 2, 3), -EINVAL);
    assert_int_equal(lat_budget_measure(&b, lat_clock_default(), 0, 2, 3), 0);
    assert_string_equal(b.timer, "tsc");
    assert_true(b.granularity_ns > 0 && b.granularity_ns < 1e6);
    assert_true(b.stamp_ns > 0 && b.stamp_ns < 1e6);
    assert_true(b.calibration_ppm >= 0);
    assert_true(isnan(b.co_share));
    char line[512];
    lat_budget_format(&b, line, sizeof line);
    assert_non_null(strstr(line, "error budget: timer tsc step "));
    assert_non_null(strstr(line, "x 2 per figure"));
    assert_non_null(strstr(line, "(3 sig figs)"));
    assert_null(strstr(line, "CO correction"));
    lat_budget_set_co(&b, 1000, 1250);
    assert_true(fabs(b.co_share - 0.2) < 1e-12);
    lat_budget_format(&b, line, sizeof line);
    assert_non_null(strstr(line, "CO correction synthesised 20.0% of samples"));
    assert_int_equal(lat_budget_measure(&b, NULL, 55.0, 2, 2), 0);
    assert_string_equal(b.timer, "clock_monotonic");
    assert_true(b.stamp_ns == 55.0 && isnan(b.calibration_ppm) && b.granularity_ns > 0);
    lat_budget_format(&b, line, sizeof line);
    assert_non_null(strstr(line, "calibration n/a (OS clock)"));
}

static void test_change_below_granularity(void **state) {
    (void)state;
    lat_budget b;
    memset(&b, 0, sizeof b);
    b.granularity_ns = 10.0;
    char out[128];
    assert_true(lat_budget_below_granularity(&b, 100, 105));
    assert_true(lat_budget_below_granularity(&b, 100, 95));
    assert_false(lat_budget_below_granularity(&b, 100, 110));
    lat_budget_change(&b, 100, 105, out, sizeof out);
    assert_string_equal(out, "below granularity (5 ns < 10.0 ns step)");
    lat_budget_change(&b, 100, 123, out, sizeof out);
    assert_string_equal(out, "1.23x");
    lat_budget_change(&b, 0, 50, out, sizeof out);
    assert_string_equal(out, "n/a");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolution),
        cmocka_unit_test(test_measure_and_format),
        cmocka_unit_test(test_change_below_granularity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
