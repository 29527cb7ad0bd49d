/* test_pipeline_report.c - reading a run's JSON back
 * (lat_pipe_json_e2e_p999): the figure from a file with known contents, and
 * each refusal (unreadable, malformed with its line, missing or not a
 * positive integer); the censoring lines of a run of one event, whose time
 * share has no span, say so instead of printing nan%; a stamp over its
 * error budget (LAT_BUDGET_STAMP_SHARE of e2e p50) is warned about. */
#include "lat_test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latlab/hist.h"
#include "latlab/pipeline_report.h"

static const char *put(const char *name, const char *text) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", lat_test_tmpdir(), name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_e2e_p999(void **state) {
    (void)state;
    char why[256] = "";
    uint64_t v = 0;
    const char *p = put("run.json", "{\"stages_ns\": {\"e2e\": {\"p99\": 5, \"p99.9\": 1234}}}");
    assert_int_equal(lat_pipe_json_e2e_p999(p, &v, why, sizeof why), 0);
    assert_int_equal(v, 1234);

    p = put("bad.json", "{\n\"stages_ns\": ,\n}");
    assert_int_equal(lat_pipe_json_e2e_p999(p, &v, why, sizeof why), -EIO);
    assert_memory_equal(why, "line 2, byte ", 13);
    /* minified: all of it is line 1, the byte says where */
    p = put("min.json", "{\"stages_ns\": {\"e2e\": {\"p99\": 5, \"p99.9\": }}}");
    assert_int_equal(lat_pipe_json_e2e_p999(p, &v, why, sizeof why), -EIO);
    assert_memory_equal(why, "line 1, byte 43: ", 17);

    char missing[4200];
    snprintf(missing, sizeof missing, "%s/none.json", lat_test_tmpdir());
    assert_int_equal(lat_pipe_json_e2e_p999(missing, &v, why, sizeof why), -EIO);
    assert_true(why[0] != '\0' && strncmp(why, "line ", 5) != 0);

    static const char *const no[] = {"{}", "{\"stages_ns\": {\"e2e\": {}}}",
                                     "{\"stages_ns\": {\"e2e\": {\"p99.9\": 0}}}",
                                     "{\"stages_ns\": {\"e2e\": {\"p99.9\": 1.5}}}",
                                     "{\"stages_ns\": {\"q1+wake\": {\"p99.9\": 9}}}"};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        v = 77;
        p = put("no.json", no[i]);
        assert_int_equal(lat_pipe_json_e2e_p999(p, &v, why, sizeof why), -ENODATA);
        assert_int_equal(v, 77);
    }
}

static void test_censoring_one_event(void **state) {
    (void)state;
    lat_pipe_result r;
    memset(&r, 0, sizeof r);
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000000, 3), 0);
    assert_true(lat_hist_record(&h, 500));
    r.censor_judged = 1;
    r.h[0] = &h;
    r.censor[0].net = &h;
    r.censor[0].kept = 1;
    r.censor[0].kept_time_share = NAN;
    FILE *f = tmpfile();
    assert_non_null(f);
    lat_pipe_print_censoring(f, &r);
    char text[4096];
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    assert_non_null(strstr(text, "kept 100.00% of samples"));
    assert_null(strstr(text, "nan"));
    assert_non_null(strstr(text, "time share n/a"));
    lat_hist_fini(&h);
}

/* The stamp-cost line of a run with e2e p50 of v ns and stamps of stamp ns. */
static void stamp_line(int64_t v, uint64_t stamp, char *text, size_t cap) {
    lat_pipe_result r;
    memset(&r, 0, sizeof r);
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000000, 3), 0);
    for (int i = 0; i < 100; i++)
        assert_true(lat_hist_record(&h, v));
    r.h[LAT_PIPE_E2E] = &h;
    r.stamp_cost_ns = stamp;
    r.stamps_per_event = 4;
    FILE *f = tmpfile();
    assert_non_null(f);
    lat_pipe_print_stamp_cost(f, &r);
    rewind(f);
    size_t n = fread(text, 1, cap - 1, f);
    text[n] = 0;
    fclose(f);
    lat_hist_fini(&h);
}

/* One stamp over the error budget's share of e2e p50 (20 ns of 180 ns: 11%)
 * is warned about; within it (20 ns of 4 us: 0.5%) it is not. */
static void test_stamp_over_budget(void **state) {
    (void)state;
    char text[1024];
    stamp_line(180, 20, text, sizeof text);
    assert_non_null(strstr(text, "instrumentation: one fenced stamp 20 ns = 11.11% of e2e p50"));
    assert_non_null(strstr(text, "warning: one stamp is 11.1% of e2e p50, over its 1% budget"));
    stamp_line(4000, 20, text, sizeof text);
    assert_non_null(strstr(text, "instrumentation: one fenced stamp 20 ns = 0.50% of e2e p50"));
    assert_null(strstr(text, "warning"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_e2e_p999),
        cmocka_unit_test(test_censoring_one_event),
        cmocka_unit_test(test_stamp_over_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
