/* test_json.c - the JSON forms (measure/json.c): a figure that is not finite
 * (NAN: not measured; an infinity) is written as null, never as a number;
 * the budget, run-condition and interval forms carry every field under its
 * documented key; and a form written with lat_write_json_atomic reads back
 * equal, keys in the order they were set; the percentile array
 * (lat_json_percentiles), the topology of a fake sysfs tree, the real
 * machine's run conditions and a perf set's counts (lat_perf_counts_json)
 * too. */
#include "lat_test.h"

#include "latlab/json.h"
#include "latlab/perf.h"
#include "latlab/topo.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void test_real_or_null(void **s) {
    (void)s;
    const double nonfinite[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        json_t *j = lat_json_real_or_null(nonfinite[i]);
        assert_true(json_is_null(j));
        json_decref(j);
    }
    const double finite[4] = {0, -2.5, 1e-300, 12345.678};
    for (int i = 0; i < 4; i++) {
        json_t *j = lat_json_real_or_null(finite[i]);
        assert_true(json_is_real(j));
        assert_true(json_real_value(j) == finite[i]);
        json_decref(j);
    }
    /* and in a document: "null", no "nan" or "inf" a JSON parser refuses */
    json_t *o = json_pack("{s:o, s:o}", "a", lat_json_real_or_null(NAN), "b",
                          lat_json_real_or_null(INFINITY));
    char *text = json_dumps(o, JSON_COMPACT);
    assert_string_equal(text, "{\"a\":null,\"b\":null}");
    free(text);
    json_decref(o);
}

/* A budget of two stamps per figure with the given figures. */
static lat_budget budget(const char *timer, double granularity_ns, double stamp_ns, double cal_ppm,
                         int sig_figs, double resolution, double co_share) {
    return (lat_budget){.timer = timer,
                        .granularity_ns = granularity_ns,
                        .stamp_ns = stamp_ns,
                        .stamps_per_figure = 2,
                        .calibration_ppm = cal_ppm,
                        .sig_figs = sig_figs,
                        .hist_resolution = resolution,
                        .co_share = co_share};
}

static void test_budget_form(void **s) {
    (void)s;
    lat_budget b = budget("tsc", 0.25, 12.5, NAN, 3, 0.0009765625, 0.125);
    json_t *j = lat_budget_json(&b);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "timer")), "tsc");
    assert_true(json_real_value(json_object_get(j, "granularity_ns")) == 0.25);
    assert_true(json_real_value(json_object_get(j, "stamp_ns")) == 12.5);
    assert_int_equal(json_integer_value(json_object_get(j, "stamps_per_figure")), 2);
    assert_true(json_is_null(json_object_get(j, "calibration_ppm"))); /* the OS clock */
    assert_int_equal(json_integer_value(json_object_get(j, "hist_sig_figs")), 3);
    assert_true(json_real_value(json_object_get(j, "hist_resolution")) == 0.0009765625);
    assert_true(json_real_value(json_object_get(j, "co_synthesised_share")) == 0.125);
    assert_int_equal(json_object_size(j), 8);
    json_decref(j);
    b.co_share = NAN;
    b.calibration_ppm = 3.5;
    j = lat_budget_json(&b);
    assert_true(json_real_value(json_object_get(j, "calibration_ppm")) == 3.5);
    assert_true(json_is_null(json_object_get(j, "co_synthesised_share")));
    json_decref(j);
    assert_null(lat_budget_json(NULL));
}

static void test_ci_keys(void **s) {
    (void)s;
    json_t *o = json_object();
    lat_hist_ci ci = {.value = 1000, .lo = 950, .hi = 1100, .max_bound = false};
    lat_json_set_ci(o, "p99", "_ns", &ci);
    ci = (lat_hist_ci){.value = 5000, .lo = 4000, .hi = 7000, .max_bound = true, .needed_n = 4603};
    lat_json_set_ci(o, "p99.9", "_ns", &ci);
    lat_json_set_ci(o, "p50", NULL, &ci); /* no unit */
    lat_json_set_ci(o, "ignored", "_ns", NULL);
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(text, "{\"p99_ns\":1000,\"p99_lo_ns\":950,\"p99_hi_ns\":1100,"
                              "\"p99.9_ns\":5000,\"p99.9_lo_ns\":4000,\"p99.9_hi_ns\":7000,"
                              "\"p99.9_needs_n\":4603,"
                              "\"p50\":5000,\"p50_lo\":4000,\"p50_hi\":7000,\"p50_needs_n\":4603}");
    free(text);
    json_decref(o);
}

static void test_runcond_form(void **s) {
    (void)s;
    static lat_runcond rc;
    memset(&rc, 0, sizeof rc);
    snprintf(rc.cpu_model, sizeof rc.cpu_model, "Test CPU @ 1.00GHz");
    snprintf(rc.cpus_possible, sizeof rc.cpus_possible, "0-3");
    rc.ncpus_online = 2;
    rc.nwarnings = 2;
    snprintf(rc.warnings[0], sizeof rc.warnings[0], "first caution");
    snprintf(rc.warnings[1], sizeof rc.warnings[1], "second caution");
    json_t *j = lat_runcond_json(&rc);
    assert_non_null(j);
    /* every field under its key, plus ncpus_online and the warnings */
    assert_int_equal(json_object_size(j), (size_t)lat_runcond_nfields() + 2);
    for (int i = 0; i < lat_runcond_nfields(); i++) {
        const char *key, *val = lat_runcond_field(&rc, i, &key);
        assert_string_equal(json_string_value(json_object_get(j, key)), val);
    }
    assert_string_equal(json_string_value(json_object_get(j, "cpu_model")), "Test CPU @ 1.00GHz");
    assert_int_equal(json_integer_value(json_object_get(j, "ncpus_online")), 2);
    json_t *w = json_object_get(j, "warnings");
    assert_int_equal(json_array_size(w), 2);
    assert_string_equal(json_string_value(json_array_get(w, 1)), "second caution");
    json_decref(j);
    assert_null(lat_runcond_json(NULL));
}

/* Written and read back: equal (reals of up to 10 significant digits come
 * back exactly; the writer keeps 10), keys in insertion order. */
static void test_round_trip(void **s) {
    (void)s;
    char path[4096];
    snprintf(path, sizeof path, "%s/round.json", lat_test_tmpdir());
    lat_budget b = budget("clock_monotonic", 1, 21.75, NAN, 2, 0.015625, NAN);
    json_t *doc = json_pack("{s:o, s:o, s:[i, f, s, b, n]}", "zeta", lat_budget_json(&b), "alpha",
                            lat_json_real_or_null(1234.5678), "list", -7, 0.1, "text", 1);
    assert_non_null(doc);
    lat_hist_ci ci = {.value = 42, .lo = 40, .hi = 45};
    lat_json_set_ci(doc, "p90", "_us", &ci);
    assert_int_equal(lat_write_json_atomic(path, doc), 0);
    json_error_t err;
    json_t *back = json_load_file(path, 0, &err);
    assert_non_null(back);
    assert_true(json_equal(doc, back));
    const char *order[] = {"zeta", "alpha", "list", "p90_us", "p90_lo_us", "p90_hi_us"};
    int i = 0;
    const char *key;
    json_t *v;
    json_object_foreach(back, key, v) {
        (void)v;
        assert_true(i < 6);
        assert_string_equal(key, order[i++]);
    }
    assert_int_equal(i, 6);
    json_decref(back);
    json_decref(doc);
    assert_int_equal(lat_write_json_atomic(path, NULL), -EINVAL);
}

/* lat_json_percentiles against a histogram with known contents: the values,
 * the scaled values, the interval bounds around each value, the max-bound
 * flag with its needed sample count, and the refusals. */
static void test_percentiles(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000, 3), 0);
    for (int v = 1; v <= 1000; v++)
        lat_hist_record(&h, v); /* 1..1000, each once: exact slots below 2048 */
    static const double ps[] = {50, 99.99};
    json_t *a = lat_json_percentiles(&h, ps, 2, 0.95, 10);
    assert_non_null(a);
    assert_int_equal(json_array_size(a), 2);
    json_t *p50 = json_array_get(a, 0), *top = json_array_get(a, 1);
    assert_true(json_real_value(json_object_get(p50, "percentile")) == 50);
    assert_int_equal(json_integer_value(json_object_get(p50, "value")), 500);
    assert_true(json_real_value(json_object_get(p50, "scaled")) == 50.0);
    json_int_t lo = json_integer_value(json_object_get(p50, "lo"));
    json_int_t hi = json_integer_value(json_object_get(p50, "hi"));
    assert_true(lo < 500 && hi > 500 && lo > 400 && hi < 600);
    assert_true(json_is_false(json_object_get(p50, "max_bound")));
    assert_null(json_object_get(p50, "needs_n"));
    /* p99.99 of 1000 samples: the interval's top is the maximum */
    assert_true(json_is_true(json_object_get(top, "max_bound")));
    assert_true(json_integer_value(json_object_get(top, "needs_n")) > 1000);
    json_decref(a);

    double many[LAT_HIST_MAX_BATCH + 1] = {0};
    assert_null(lat_json_percentiles(&h, many, LAT_HIST_MAX_BATCH + 1, 0.95, 1));
    assert_null(lat_json_percentiles(&h, ps, 2, 1.5, 1)); /* confidence outside (0, 1) */
    lat_hist_fini(&h);
}

/* A fake sysfs tree: 4 CPUs, SMT pairs (c, c + 2), CPU 3 isolated, 2-3
 * nohz_full, one 32K data cache on CPU 0. */
static const char *fake_tree(void) {
    static char root[512];
    snprintf(root, sizeof root, "%s/tree", lat_test_tmpdir());
    char p[1024];
    static const struct {
        const char *rel, *text;
    } top[] = {{"online", "0-3"},
               {"possible", "0-3"},
               {"isolated", "3"},
               {"nohz_full", "2-3"},
               {"cpu0/cache/index0/level", "1"},
               {"cpu0/cache/index0/type", "Data"},
               {"cpu0/cache/index0/size", "32K"}};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/%s", root, top[i].rel);
        assert_int_equal(lat_test_put_file(p, top[i].text), 0);
    }
    for (int c = 0; c < 4; c++) {
        char v[16];
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
                 root, c);
        snprintf(v, sizeof v, "%d,%d", c % 2, c % 2 + 2);
        assert_int_equal(lat_test_put_file(p, v), 0);
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/cpu%d/topology/core_id", root, c);
        snprintf(v, sizeof v, "%d", c % 2);
        assert_int_equal(lat_test_put_file(p, v), 0);
        snprintf(p, sizeof p, "%s/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 root, c);
        assert_int_equal(lat_test_put_file(p, "0"), 0);
    }
    return root;
}

/* lat_topo_json of the fake tree: the sets, each CPU's siblings and
 * isolation, the caches. */
static void test_topo_form(void **state) {
    (void)state;
    lat_topo *t;
    assert_int_equal(lat_topo_load(fake_tree(), &t), 0);
    json_t *j = lat_topo_json(t);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "online")), "0-3");
    assert_string_equal(json_string_value(json_object_get(j, "isolated")), "3");
    assert_string_equal(json_string_value(json_object_get(j, "nohz_full")), "2-3");
    assert_true(json_is_false(json_object_get(j, "hybrid")));
    json_t *cpus = json_object_get(j, "cpus");
    assert_int_equal(json_array_size(cpus), 4);
    json_t *c3 = json_array_get(cpus, 3);
    assert_string_equal(json_string_value(json_object_get(c3, "siblings")), "1,3");
    assert_true(json_is_true(json_object_get(c3, "isolated")));
    json_t *caches = json_object_get(j, "caches");
    assert_int_equal(json_array_size(caches), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(caches, 0), "size_bytes")),
                     32768);
    json_decref(j);
    assert_null(lat_topo_json(NULL));
    lat_topo_destroy(t);
}

/* The real machine's run conditions dump, whatever they are. */
static void test_runcond_real(void **state) {
    (void)state;
    static lat_runcond rc;
    assert_int_equal(lat_runcond_collect(&rc, NULL), 0);
    json_t *j = lat_runcond_json(&rc);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "ncpus_online")), rc.ncpus_online);
    assert_int_equal(json_array_size(json_object_get(j, "warnings")), (size_t)rc.nwarnings);
    char *s = json_dumps(j, 0);
    assert_non_null(s);
    free(s);
    json_decref(j);
}

/* lat_perf_counts_json of a one-event set on this thread: its name, its state
 * by name, a value only when counted, and the coverage. */
static void test_perf_counts_form(void **state) {
    (void)state;
    lat_perf *p = NULL;
    if (lat_perf_create(&p, "task-clock", NULL) != 0)
        LAT_SKIP("perf_event_open refused task-clock for this thread");
    lat_perf_start(p);
    lat_perf_stop(p);
    lat_perf_count c[LAT_PERF_MAX_EVENTS];
    size_t ne = lat_perf_nevents(p);
    assert_int_equal(ne, 1);
    lat_perf_read(p, c, ne);
    json_t *a = lat_perf_counts_json(p, c, ne);
    assert_non_null(a);
    assert_int_equal(json_array_size(a), 1);
    json_t *e = json_array_get(a, 0);
    assert_string_equal(json_string_value(json_object_get(e, "name")), "task-clock");
    assert_string_equal(json_string_value(json_object_get(e, "state")),
                        lat_perf_state_name(c[0].state));
    bool has = c[0].state != LAT_PERF_UNAVAILABLE && c[0].state != LAT_PERF_NOT_COUNTED;
    assert_true(has ? json_is_integer(json_object_get(e, "value"))
                    : json_is_null(json_object_get(e, "value")));
    assert_non_null(json_object_get(e, "coverage"));
    json_decref(a);
    lat_perf_destroy(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_or_null), cmocka_unit_test(test_budget_form),
        cmocka_unit_test(test_ci_keys),      cmocka_unit_test(test_runcond_form),
        cmocka_unit_test(test_round_trip),   cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_topo_form),    cmocka_unit_test(test_runcond_real),
        cmocka_unit_test(test_perf_counts_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
