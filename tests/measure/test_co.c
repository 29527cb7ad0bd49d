/* test_co.c - latlab/co.h: the closed loop hides a stall the open loop
 * shows (known answer: every request due during a 20 ms freeze at 10 kHz is
 * late in the open loop; the closed loop records one slow request), the
 * correction adds the missing ones, the counts, and bad configurations. */
#include "lat_test.h"

#include <errno.h>
#include <string.h>

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

/* The busy-host decision on known inputs: a quiet loop is not busy; a loop
 * the platform took 6% of is; run-queue wait counts as well as gaps; enough
 * requests slowed by half the p99.9 are the p99.9; fewer, or shorter gaps,
 * are not. */
static lat_co_platform quiet_loop(void) {
    lat_co_platform p = {.measured = true, .loop_ns = 1e9, .lost_ns = 1e6, .wait_ns = 2e6};
    p.gap_ns = 1e4;
    p.gaps = p.service_gaps = 8;
    p.slowed[14] = 8; /* 16..32 us each */
    return p;
}
static void test_host_busy(void **state) {
    (void)state;
    char why[256];
    lat_co_platform p = quiet_loop();
    assert_false(lat_co_host_busy(&p, 2000, 6600000, why, sizeof why));
    assert_string_equal(why, "");
    p.lost_ns = 6e7; /* 6% of the loop in gaps */
    assert_true(lat_co_host_busy(&p, 2000, 6600000, why, sizeof why));
    assert_non_null(strstr(why, "the platform took 6.0% of the loop"));
    p = quiet_loop();
    p.wait_ns = 1e8; /* 10% waiting on the run queue */
    assert_true(lat_co_host_busy(&p, 2000, 6600000, why, sizeof why));
    assert_non_null(strstr(why, "took 10.0%"));
    p = quiet_loop();
    p.slowed[22] = 2; /* 4.2..8.4 ms each: two of 2000 reach half of a 6.6 ms p99.9 */
    assert_true(lat_co_host_busy(&p, 2000, 6600000, why, sizeof why));
    assert_non_null(strstr(why, "2 of 2000 requests"));
    assert_false(lat_co_host_busy(&p, 20000, 6600000, why, sizeof why)); /* 2 of 20000: not */
    p.slowed[22] = 0;
    p.slowed[11] = 100; /* many gaps, all far below the p99.9 */
    assert_false(lat_co_host_busy(&p, 2000, 6600000, why, sizeof why));
    p.measured = false;
    p.lost_ns = 9e8;
    assert_false(lat_co_host_busy(&p, 2000, 6600000, why, sizeof why));
    assert_false(lat_co_host_busy(NULL, 2000, 6600000, why, sizeof why));
    /* a run fills the account of each loop it ran */
    lat_co_config c;
    lat_co_config_default(&c);
    c.events = 50;
    c.stall_ns = 1000000;
    c.stall_at = 10;
    lat_co_result r;
    assert_int_equal(lat_co_result_init(&r), 0);
    assert_false(r.plat_closed.measured);
    assert_int_equal(lat_co_run_closed(&c, &r), 0);
    assert_true(r.plat_closed.measured && !r.plat_open.measured);
    assert_true(r.plat_closed.loop_ns >= 1e6);                  /* the stall is in the loop... */
    assert_true(r.plat_closed.lost_ns < r.plat_closed.loop_ns); /* ...and not a gap by itself */
    assert_true(r.plat_closed.gap_ns > 0);
    lat_co_platform_text(&r.plat_closed, why, sizeof why);
    assert_non_null(strstr(why, "gaps >= 10 us"));
    lat_co_result_fini(&r);
}

/* "hid the stall" only where the closed loop's p99.9 is the lower. */
static void test_verdict_words(void **state) {
    (void)state;
    char t[512];
    lat_co_verdict_text(1891300, 3848200, 3287000, 3088400, "2.03x", t, sizeof t);
    assert_non_null(strstr(t, "closed loop hid the stall"));
    assert_non_null(strstr(t, "1891.3us against the open loop's 3848.2us"));
    lat_co_verdict_text(5000000, 3000000, 9000000, 4000000, "0.60x", t, sizeof t);
    assert_null(strstr(t, "hid the stall"));
    assert_non_null(strstr(t, "hid nothing at p99.9"));
    assert_non_null(strstr(t, "5000.0us, not below the open loop's 3000.0us"));
    lat_co_verdict_text(3000000, 3000000, 9000000, 4000000, "1.00x", t, sizeof t);
    assert_null(strstr(t, "hid the stall"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_hides_open_shows),
        cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_host_busy),
        cmocka_unit_test(test_verdict_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
