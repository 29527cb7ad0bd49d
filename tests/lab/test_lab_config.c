/* test_lab_config.c - what a library user of the lab gets without the tool:
 * lat_lab_config_default calibrates and measures the counter's tick (the
 * clock module's step finder, not a constant) and sets the floor
 * measurement; lat_lab_config_derive follows a changed shape; the backlog
 * rule (pipeline_report.h) is one figure `latlab pipeline`'s note reads; the
 * verdict parameters go to lab.json as they were used. */
#include "lat_test.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "latlab/clock.h"
#include "latlab/lab.h"
#include "latlab/lab_account.h"
#include "latlab/lab_report.h"
#include "latlab/pipeline_report.h"

static void test_default_measures_tick(void **s) {
    (void)s;
    lat_lab_config c;
    lat_lab_config_default(&c);
    assert_non_null(c.pipe.cal);
    assert_true(c.pipe.cal == lat_clock_default());
    assert_true(c.params.tick_ns > 0);
    /* the tick is the counter's measured step in ns: a whole number of
     * counter ticks (within rounding), never below one */
    double ticks = c.params.tick_ns * c.pipe.cal->cycles_per_ns;
    assert_true(ticks >= 0.999);
    assert_true(fabs(ticks - round(ticks)) < 1e-6);
    assert_int_equal(c.floor_round_trips, 20000);
    assert_int_equal(c.params.min_rounds, c.min_rounds);
}

static void test_derive_follows_pipe(void **s) {
    (void)s;
    lat_lab_config c;
    lat_lab_config_default(&c);
    c.pipe.rate_hz = 50000;
    c.pipe.shape = LAT_PIPE_FULL;
    c.min_rounds = 12;
    lat_lab_config_derive(&c);
    assert_int_equal(c.params.nhot, 3);
    assert_int_equal(c.params.min_rounds, 12);
    assert_true(c.params.ncpus >= 1);
    c.pipe.shape = LAT_PIPE_COMPACT;
    lat_lab_config_derive(&c);
    assert_int_equal(c.params.nhot, 2);
}

/* The note fires at the rule's figure and not one ns below it. */
static void test_backlog_rule_once(void **s) {
    (void)s;
    assert_true(lat_pipe_backlog_ns(0) == 0);
    assert_true(lat_pipe_backlog_ns(1000) == LAT_PIPE_BACKLOG_SENDS * 1e6);
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    c.rate_hz = 200000;
    lat_pipe_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(lat_hist_create(1, 100000000000ll, 3, &r.h[LAT_PIPE_E2E]), 0);
    char buf[256];
    lat_hist_record(r.h[LAT_PIPE_E2E], 99000);
    assert_false(lat_pipe_backlog_note(&c, &r, buf, sizeof buf));
    lat_hist_reset(r.h[LAT_PIPE_E2E]);
    lat_hist_record(r.h[LAT_PIPE_E2E], 100000);
    assert_true(lat_pipe_backlog_note(&c, &r, buf, sizeof buf));
    assert_non_null(strstr(buf, "~20 send intervals"));
    lat_hist_destroy(r.h[LAT_PIPE_E2E]);
}

static void test_params_json(void **s) {
    (void)s;
    lat_lab_params p;
    lat_lab_params_default(&p);
    p.tick_ns = 0.5;
    json_t *j = lat_lab_params_json(&p);
    assert_non_null(j);
    assert_true(json_real_value(json_object_get(j, "tick_ns")) == 0.5);
    assert_true(json_real_value(json_object_get(j, "alpha")) == p.alpha);
    assert_int_equal(json_integer_value(json_object_get(j, "min_rounds")), p.min_rounds);
    assert_int_equal(json_integer_value(json_object_get(j, "nhot")), p.nhot);
    assert_int_equal(json_object_size(j), lat_lab_params_list(&p, NULL, 0));
    assert_int_equal(json_integer_value(json_object_get(j, "min_kept_p999")), 10000);
    assert_true(json_real_value(json_object_get(j, "median_dominant_ratio")) ==
                p.median_dominant_ratio);
    json_decref(j);
}

/* A thread that reached its loop late: its gaps, counted from the run's
 * start, outlast its loop's clock; its lost share is still at most the run. */
static void test_lost_share_of_a_late_thread(void **s) {
    (void)s;
    lat_pipe_config pc;
    memset(&pc, 0, sizeof pc);
    pc.cal = lat_clock_default();
    lat_pipe_result r;
    memset(&r, 0, sizeof r);
    lat_gaps *g = NULL;
    assert_int_equal(lat_gaps_create(0, 1, &g), 0);
    uint64_t c0 = 1000000;
    lat_gaps_note(g, c0, c0 + lat_clock_from_ns(pc.cal, 174000000)); /* 174 ms */
    r.gaps[0] = g;
    r.thr[0].ran = true;
    r.thr[0].loop_ns = 100000000; /* 100 ms in its loop */
    r.gaps[1] = g;
    r.thr[1].ran = true;
    r.thr[1].loop_ns = 348000000; /* an on-time thread: half its run */
    lat_lab_thread_account a[LAT_PIPE_NHOT];
    lat_lab_thread_accounts(&pc, &r, a);
    assert_true(a[0].ran && a[0].lost_share <= 1.0 && a[0].lost_share > 0.99);
    assert_true(fabs(a[1].lost_share - 0.5) < 0.01);
    lat_gaps_destroy(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_measures_tick),
        cmocka_unit_test(test_derive_follows_pipe),
        cmocka_unit_test(test_backlog_rule_once),
        cmocka_unit_test(test_params_json),
        cmocka_unit_test(test_lost_share_of_a_late_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
