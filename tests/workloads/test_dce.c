/* test_dce.c - `latlab dce`'s verdict from given figures (dce.c): each
 * outcome (trap sprung, implausible) at and either side of its threshold, the
 * derived figures, the verdict line of the text and the JSON fields. */
#include "lat_test.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "dce.h"

static lat__dce_figs figs(double trap, double barrier, double cross_p50, double floor_p50) {
    lat__dce_figs f = {.cpus = {0, 1}, .ring = "spsc", .st_ns = 2.0, .mops = 50.0};
    f.trap_ns = trap;
    f.barrier_ns = barrier;
    f.cross.p50_ns = cross_p50;
    f.cross.p99_ns = cross_p50 * 2;
    f.floor.p50_ns = floor_p50;
    f.floor.p99_ns = floor_p50 * 2;
    lat__dce_judge(&f);
    return f;
}

static void test_trap_threshold(void **state) {
    (void)state;
    /* sprung when the unused loop took under a tenth of the kept one's time */
    assert_true(figs(0.099, 1.0, 200, 100).trap_sprung);
    assert_false(figs(0.1 * 1.0, 1.0, 200, 100).trap_sprung);
    assert_false(figs(0.101, 1.0, 200, 100).trap_sprung);
    assert_false(figs(1.0, 1.0, 200, 100).trap_sprung);
}

static void test_floor_threshold(void **state) {
    (void)state;
    /* implausible when the round trip is below 0.9 x the floor */
    assert_true(figs(1, 1, 89.9, 100).implausible);
    assert_false(figs(1, 1, 0.9 * 100, 100).implausible);
    assert_false(figs(1, 1, 90.1, 100).implausible);
    lat__dce_figs f = figs(1, 1, 250, 100);
    assert_false(f.implausible);
    assert_float_equal(f.ratio, 2.5, 1e-12);
    assert_float_equal(f.stream_ns, 20.0, 1e-12); /* 1e3 / 50 Mops/s */
}

static char *print(const lat__dce_figs *f) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    lat__dce_print(f, 3.0, out);
    fclose(out);
    return buf;
}

static void test_text(void **state) {
    (void)state;
    lat__dce_figs f = figs(0.05, 1.0, 250, 100);
    char *t = print(&f);
    assert_non_null(strstr(t, "latlab dce: CPUs 0 and 1, 3.0000 cycles/ns, spsc ring\n"));
    assert_non_null(strstr(t, "the optimizer deleted the loop"));
    assert_non_null(strstr(t,
                           "  verdict: plausible: round trip 2.50x the floor; same-thread 2.0 ns "
                           "vs cross-core hop 125.0 ns (62x)\n"));
    assert_null(strstr(t, "IMPLAUSIBLE"));
    free(t);
    f = figs(0.5, 1.0, 80, 100);
    t = print(&f);
    assert_non_null(strstr(t, "(the loop survived"));
    assert_non_null(strstr(t, "  verdict: IMPLAUSIBLE: the ring's round trip (80.0 ns) is below "
                              "the floor (100.0 ns): the harness is lying\n"));
    free(t);
}

static void test_json(void **state) {
    (void)state;
    lat__dce_figs f = figs(0.05, 1.0, 80, 100);
    json_t *j = lat__dce_json(&f, 3.0, 1000, 500);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "command")), "dce");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "cpus"), 1)), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "ops")), 1000);
    assert_int_equal(json_integer_value(json_object_get(j, "samples")), 500);
    assert_true(json_is_true(json_object_get(j, "trap_sprung")));
    assert_true(json_is_true(json_object_get(j, "implausible")));
    assert_float_equal(json_real_value(json_object_get(j, "rtt_vs_floor")), 0.8, 1e-12);
    assert_float_equal(json_real_value(json_object_get(j, "cross_rtt_p99_ns")), 160, 1e-12);
    assert_float_equal(json_real_value(json_object_get(j, "floor_rtt_p50_ns")), 100, 1e-12);
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trap_threshold),
        cmocka_unit_test(test_floor_threshold),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
