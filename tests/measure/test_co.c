/* test_co.c - latlab/co.h: the closed loop hides a stall the open loop
 * shows (known answer: every request due during a 20 ms freeze at 10 kHz is
 * late in the open loop; the closed loop records one slow request), the
 * correction adds the missing ones, the counts, and bad configurations. */
#include "lat_test.h"

#include <errno.h>

#include "latlab/co.h"

static void test_closed_hides_open_shows(void **state) {
    (void)state;
    lat_co_config c;
    lat_co_config_default(&c);
    c.events = 400;
    c.rate_hz = 10000; /* one request due every 100 us */
    c.service_ns = 5000;
    c.stall_ns = 20000000; /* 20 ms: ~200 requests due meanwhile */
    c.stall_at = 100;
    lat_co_result r;
    assert_int_equal(lat_co_result_init(&r), 0);
    assert_int_equal(lat_co_run_closed(&c, &r), 0);
    assert_int_equal(lat_co_run_open(&c, &r), 0);
    assert_int_equal(lat_hist_total(&r.closed), 400);
    assert_int_equal(lat_hist_total(&r.open), 400);
    /* the closed loop: one request took the stall (noise: a few more at most) */
    assert_true(lat_hist_max(&r.closed) >= 19000000);
    int64_t closed_slow = lat_hist_count_between(&r.closed, 15000000, INT64_MAX);
    assert_true(closed_slow >= 1 && closed_slow < 10); /* a preemption or two may add */
    /* the open loop: the ~150 requests due in the first three quarters of it
     * wait at least 5 ms each (a noisy machine only adds) */
    assert_true(lat_hist_count_between(&r.open, 5000000, INT64_MAX) >= 150);
    /* the correction adds the requests that were due: at least 150 more */
    assert_true(lat_hist_total(&r.corr) >= 400 + 150);
    lat_co_result_fini(&r);
}

static void test_bad_config(void **state) {
    (void)state;
    lat_co_config c;
    lat_co_config_default(&c);
    lat_co_result r;
    assert_int_equal(lat_co_result_init(&r), 0);
    c.rate_hz = 0;
    assert_int_equal(lat_co_run_closed(&c, &r), -EINVAL);
    assert_int_equal(lat_co_run_open(&c, &r), -EINVAL);
    lat_co_config_default(&c);
    c.events = 0;
    assert_int_equal(lat_co_run_open(&c, &r), -EINVAL);
    assert_int_equal(lat_co_run_closed(NULL, &r), -EINVAL);
    assert_int_equal(lat_hist_total(&r.closed), 0);
    lat_co_result_fini(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_hides_open_shows),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
