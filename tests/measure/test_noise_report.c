/* test_noise_report.c - what injected noise took (measure/noise_report.c),
 * from a given spec and report (no injector runs): the title line with the
 * spec and elapsed time, one row per CPU (bursts, stalls, ms taken, share,
 * wake-up mean/max in us, rescheduled), the total against the share asked
 * (bursts plus stalls), and the same figures in the JSON. */
#include "lat_test.h"

#include "latlab/noise_report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static lat_noise_spec spec;
static lat_noise_cpu_report cpu[2];
static lat_noise_report rep;

static void given(void) {
    char why[256] = "";
    assert_int_equal(
        lat_noise_parse("share=10%,burst=50us,stall=1ms/100ms,prio=7", &spec, why, sizeof why), 0);
    cpu[0] = (lat_noise_cpu_report){.cpu = 2,
                                    .bursts = 4000,
                                    .stalls = 20,
                                    .taken_ns = 220000000,
                                    .stall_ns = 20000000,
                                    .share = 0.11,
                                    .late_mean_ns = 2500,
                                    .late_max_ns = 41000,
                                    .reanchored = 3};
    cpu[1] = (lat_noise_cpu_report){.cpu = 3,
                                    .bursts = 3990,
                                    .stalls = 20,
                                    .taken_ns = 200000000,
                                    .stall_ns = 20000000,
                                    .share = 0.10,
                                    .late_mean_ns = 1500,
                                    .late_max_ns = 9000,
                                    .reanchored = 0};
    rep = (lat_noise_report){.elapsed_ns = 2000000000,
                             .ncpus = 2,
                             .cpu = cpu,
                             .bursts = 7990,
                             .stalls = 40,
                             .taken_ns = 420000000,
                             .share = 0.105};
}

static void test_table(void **state) {
    (void)state;
    given();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lat_noise_report_print(f, &spec, &rep);
    fclose(f);
    char text[4400];
    lat_noise_spec_format(&spec, text, sizeof text);
    char want[4600];
    snprintf(want, sizeof want, "noise: %s for 2.00 s (SCHED_FIFO 7)\n", text);
    assert_memory_equal(buf, want, strlen(want));
    assert_non_null(strstr(buf,
                           "\n     2      4000      20     220.000   11.00%      2.5 /  41.0 us"
                           "           3\n"));
    assert_non_null(strstr(buf,
                           "\n     3      3990      20     200.000   10.00%      1.5 /   9.0 us"
                           "           0\n"));
    /* asked: 10% in bursts and 1 ms every 100 ms in stalls */
    assert_non_null(
        strstr(buf, "\n   all      7990      40     420.000   10.50%  (asked 11.00%)\n"));
    free(buf);
}

static void test_json(void **state) {
    (void)state;
    given();
    json_t *j = lat_noise_report_json(&spec, &rep);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "fifo_priority")), 7);
    assert_int_equal(json_integer_value(json_object_get(j, "elapsed_ns")), 2000000000);
    assert_int_equal(json_integer_value(json_object_get(j, "bursts")), 7990);
    assert_int_equal(json_integer_value(json_object_get(j, "stalls")), 40);
    assert_true(json_real_value(json_object_get(j, "share")) == 0.105);
    assert_non_null(strstr(json_string_value(json_object_get(j, "spec")), "share="));
    json_t *c = json_object_get(j, "cpus");
    assert_int_equal(json_array_size(c), 2);
    json_t *c0 = json_array_get(c, 0);
    assert_int_equal(json_integer_value(json_object_get(c0, "cpu")), 2);
    assert_int_equal(json_integer_value(json_object_get(c0, "stall_ns")), 20000000);
    assert_int_equal(json_integer_value(json_object_get(c0, "wake_max_ns")), 41000);
    assert_int_equal(json_integer_value(json_object_get(c0, "rescheduled")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(c, 1), "taken_ns")),
                     200000000);
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
