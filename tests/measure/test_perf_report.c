/* test_perf_report.c - the report of a counted command (measure/perf_report.c)
 * from given counts: perf stat's layout (clocks in msec with CPUs utilized,
 * insn per cycle, K/sec rates, the multiplexed share, <not supported> and
 * <not counted>, the elapsed/user/sys lines) and the JSON (command, exit
 * status, times in ns, events with states, derived values or null).  The
 * counter set is opened through perf.c's kernel seam, which accepts every
 * event, so no PMU is needed: the counts are the test's own. */
#include "lat_test.h"

#include "latlab/perf_report.h"
#include "perf_internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int nfd;

static long ok_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                    unsigned long flags) {
    (void)a, (void)pid, (void)cpu, (void)group_fd, (void)flags;
    return 1000 + nfd++;
}
static ssize_t no_read(int fd, void *buf, size_t len) {
    (void)fd, (void)buf, (void)len;
    errno = EIO;
    return -1;
}
static int ok_ioctl(int fd, unsigned long request, uintptr_t arg) {
    if (request == PERF_EVENT_IOC_ID) *(uint64_t *)arg = (uint64_t)fd;
    return 0;
}
static int ok_close(int fd) {
    (void)fd;
    return 0;
}
static const lat__perf_sys fake = {ok_open, no_read, ok_ioctl, ok_close};

#define EVENTS "task-clock,cycles,instructions,branch-misses,context-switches,cache-misses"

static char *const cmd[] = {"sleep", "1", NULL};
static lat_perf *p;
static lat_perf_count cnt[6];
static lat_perf_derived d;
static lat_perf_report rep;

static int setup(void **state) {
    (void)state;
    lat__perf_set_sys(&fake);
    if (lat_perf_create(&p, EVENTS, NULL) != 0) return -1;
    memset(cnt, 0, sizeof cnt);
    cnt[0] = (lat_perf_count){2000000, 2e6, 4000000, 4000000, 1.0, LAT_PERF_COUNTED};
    cnt[1] = (lat_perf_count){1000, 1000, 4000000, 4000000, 1.0, LAT_PERF_COUNTED};
    cnt[2] = (lat_perf_count){2500, 2500, 4000000, 4000000, 1.0, LAT_PERF_COUNTED};
    cnt[3].state = LAT_PERF_UNAVAILABLE;
    cnt[4] = (lat_perf_count){4, 8, 4000000, 2000000, 0.5, LAT_PERF_SCALED};
    cnt[5].state = LAT_PERF_NOT_COUNTED;
    d = (lat_perf_derived){2.5, NAN, NAN, NAN, NAN, NAN, NAN};
    rep = (lat_perf_report){.cmd = cmd,
                            .p = p,
                            .cnt = cnt,
                            .n = 6,
                            .d = &d,
                            .wall_ns = 4000000,
                            .utime = {1, 500},
                            .stime = {0, 250000},
                            .exit_status = 3};
    return 0;
}

static int teardown(void **state) {
    (void)state;
    lat_perf_destroy(p);
    lat__perf_set_sys(NULL);
    return 0;
}

static void expect_line(const char *text, const char *num, const char *name, const char *tail) {
    char want[256];
    snprintf(want, sizeof want, "\n  %20s      %-24s%s\n", num, name, tail);
    if (!strstr(text, want)) fail_msg("missing line '%s' in:\n%s", want + 1, text);
}

static void test_text_layout(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lat_perf_report_print(&rep, f);
    fclose(f);
    assert_non_null(strstr(buf, "\n Performance counter stats for 'sleep 1':\n\n"));
    expect_line(buf, "2.00 msec", "task-clock", " # 0.500 CPUs utilized");
    expect_line(buf, "1000", "cycles", "");
    expect_line(buf, "2500", "instructions", " # 2.50 insn per cycle");
    assert_non_null(strstr(buf, "\n       <not supported>      branch-misses\n"));
    expect_line(buf, "8", "context-switches", " # 2.000 K/sec  (50.00%)");
    assert_non_null(strstr(buf, "\n         <not counted>      cache-misses\n"));
    assert_non_null(strstr(buf, "\n     0.004000000 seconds time elapsed\n"));
    assert_non_null(strstr(buf, "\n     1.000500000 seconds user\n"));
    assert_non_null(strstr(buf, "\n     0.250000000 seconds sys\n"));
    assert_null(strstr(buf, "Per thread")); /* no thread sets given */
    free(buf);
}

static void test_json(void **state) {
    (void)state;
    json_t *j = lat_perf_report_json(&rep);
    assert_non_null(j);
    json_t *c = json_object_get(j, "command");
    assert_int_equal(json_array_size(c), 2);
    assert_string_equal(json_string_value(json_array_get(c, 1)), "1");
    assert_int_equal(json_integer_value(json_object_get(j, "exit_status")), 3);
    assert_int_equal(json_integer_value(json_object_get(j, "elapsed_ns")), 4000000);
    assert_int_equal(json_integer_value(json_object_get(j, "user_ns")), 1000500000);
    assert_int_equal(json_integer_value(json_object_get(j, "sys_ns")), 250000000);
    json_t *ev = json_object_get(j, "events");
    assert_int_equal(json_array_size(ev), 6);
    json_t *e0 = json_array_get(ev, 0), *e3 = json_array_get(ev, 3), *e4 = json_array_get(ev, 4);
    assert_string_equal(json_string_value(json_object_get(e0, "name")), "task-clock");
    assert_string_equal(json_string_value(json_object_get(e0, "state")), "counted");
    assert_int_equal(json_integer_value(json_object_get(e0, "value")), 2000000);
    assert_string_equal(json_string_value(json_object_get(e3, "state")), "unavailable");
    assert_true(json_is_null(json_object_get(e3, "value")));
    assert_string_equal(json_string_value(json_object_get(e4, "state")), "scaled");
    assert_true(json_real_value(json_object_get(e4, "scaled")) == 8.0);
    json_t *dj = json_object_get(j, "derived");
    assert_true(json_real_value(json_object_get(dj, "ipc")) == 2.5);
    assert_true(json_is_null(json_object_get(dj, "branch_miss_pct")));
    assert_true(json_is_null(json_object_get(dj, "cpu_utilization")));
    assert_null(json_object_get(j, "threads"));
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_layout),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
