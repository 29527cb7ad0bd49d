/* test_hist_overflow.c - counts never wrap: lat_hist_record_n refuses a count
 * that would carry the total past INT64_MAX (signed overflow is undefined
 * behaviour, and a wrapped total turns every percentile to nonsense), the
 * out-of-range tally saturates, and lat_hist_add keeps what fits and says
 * what it refused.  hist_ubsan.cmake builds this file a second time under
 * UBSan (-fsanitize=undefined, no recovery), so an overflow on any of these
 * paths fails the test even where the wrapped value would look plausible. */
#include <errno.h>
#include <stdint.h>

#include "lat_test.h"
#include "latlab/hist.h"

static void test_record_n_refuses_overflow(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000, 3), 0);
    assert_true(lat_hist_record_n(&h, 100, INT64_MAX - 5));
    assert_true(lat_hist_record_n(&h, 200, 5));
    assert_int_equal(h.total_count, INT64_MAX);
    /* one more count anywhere: refused, nothing changes */
    assert_false(lat_hist_record_n(&h, 100, 1));
    assert_false(lat_hist_record(&h, 300));
    assert_false(lat_hist_record_n(&h, 200, INT64_MAX));
    assert_int_equal(h.total_count, INT64_MAX);
    assert_int_equal(lat_hist_count_at(&h, 100), INT64_MAX - 5);
    assert_int_equal(lat_hist_count_at(&h, 200), 5);
    assert_int_equal(lat_hist_max(&h) >= 200 && lat_hist_max(&h) < 300, 1);
    assert_int_equal(h.overflow_count, 0);
    /* out of range: the tally saturates instead of wrapping */
    assert_false(lat_hist_record_n(&h, 2000000, INT64_MAX - 1));
    assert_false(lat_hist_record_n(&h, 2000000, 10));
    assert_int_equal(h.overflow_count, INT64_MAX);
    lat_hist_fini(&h);
}

static void test_add_keeps_what_fits(void **state) {
    (void)state;
    lat_hist a, b, c;
    assert_int_equal(lat_hist_init(&a, 1, 1000000, 3), 0);
    assert_int_equal(lat_hist_init(&b, 1, 1000000, 3), 0);
    assert_int_equal(lat_hist_init(&c, 1, 5000000, 2), 0); /* another geometry */
    assert_true(lat_hist_record_n(&a, 100, INT64_MAX - 10));
    assert_true(lat_hist_record_n(&b, 100, 4));
    assert_true(lat_hist_record_n(&b, 500, 20));
    /* same geometry: 4 fit, the 20 do not */
    assert_int_equal(lat_hist_add(&a, &b), 20);
    assert_int_equal(a.total_count, INT64_MAX - 6);
    assert_int_equal(lat_hist_count_at(&a, 500), 0);
    /* another geometry, the same rule */
    assert_true(lat_hist_record_n(&c, 100, 100));
    assert_int_equal(lat_hist_add(&a, &c), 100);
    assert_int_equal(a.total_count, INT64_MAX - 6);
    /* the out-of-range tallies saturate when added */
    a.overflow_count = INT64_MAX - 1;
    b.overflow_count = 5;
    lat_hist_add(&a, &b);
    assert_int_equal(a.overflow_count, INT64_MAX);
    /* add_resize refuses the whole */
    assert_int_equal(lat_hist_add_resize(&a, &b), -EOVERFLOW);
    lat_hist_fini(&a);
    lat_hist_fini(&b);
    lat_hist_fini(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_n_refuses_overflow),
        cmocka_unit_test(test_add_keeps_what_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
