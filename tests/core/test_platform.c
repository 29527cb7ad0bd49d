/* test_platform.c - the platform readers (core/platform.c) on fixture files
 * (tests/data/platform): /proc/<pid>/schedstat and /proc/stat, an old
 * kernel's seven-field lines, malformed and saturating input, a missing CPU
 * or file. */
#include "lat_test.h"

#include "latlab/error.h"
#include "latlab/platform.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char fixture[4096];
static const char *data(const char *name) {
    const char *src = getenv("LAT_SRC_DIR");
    snprintf(fixture, sizeof fixture, "%s/tests/data/platform/%s", src ? src : ".", name);
    return fixture;
}

static void test_schedstat_fixtures(void **s) {
    (void)s;
    lat_schedstat st;
    assert_int_equal(lat_schedstat_read(data("schedstat"), &st), 0);
    assert_int_equal(st.run_ns, 515283);
    assert_int_equal(st.wait_ns, 2808224);
    assert_int_equal(st.slices, 2);
    assert_int_equal(lat_schedstat_read(data("schedstat_busy"), &st), 0);
    assert_int_equal(st.run_ns, 48000123456ull);
    assert_int_equal(lat_schedstat_read(data("schedstat_bad"), &st), LAT_EFORMAT);
    assert_int_equal(lat_schedstat_read(data("no_such_file"), &st), -ENOENT);
    assert_int_equal(lat_schedstat_parse("1 2", 3, &st), LAT_EFORMAT);
    assert_int_equal(lat_schedstat_parse("1 2 3 4\n", 8, &st), LAT_EFORMAT);
    assert_int_equal(lat_schedstat_parse("99999999999999999999 1 1\n", 25, &st), LAT_EFORMAT);
    uint64_t v, iv;
    assert_int_equal(lat_thread_switches(&v, &iv), 0);
}

static void test_cpustat_fixtures(void **s) {
    (void)s;
    lat_cpustat c;
    assert_int_equal(lat_cpustat_read(data("stat"), 1, &c), 0);
    assert_int_equal(c.user, 10828);
    assert_int_equal(c.irq, 30);
    assert_int_equal(c.softirq, 114);
    assert_int_equal(c.steal, 8);
    assert_int_equal(lat_cpustat_read(data("stat"), -1, &c), 0);
    assert_int_equal(c.idle, 86186);
    assert_int_equal(lat_cpustat_read(data("stat"), 2, &c), -ENOENT);
    /* an old kernel: seven fields, no steal; cpu3 must not match "cpu" or cpu30 */
    assert_int_equal(lat_cpustat_read(data("stat_old"), 3, &c), 0);
    assert_int_equal(c.irq, 4);
    assert_int_equal(c.softirq, 5);
    assert_int_equal(c.steal, 0);
    assert_int_equal(lat_cpustat_total(&c), 50 + 25 + 500 + 4 + 5);
    assert_int_equal(lat_cpustat_parse("cpu0 1 2\n", 9, 0, &c), LAT_EFORMAT);
    /* fields near UINT64_MAX (a corrupt file, found by fuzz_platform): the
     * total saturates instead of wrapping below steal */
    const char *big = "cpu0 18446744073709551615 1 1 1 1 1 1 18446744073709551615";
    assert_int_equal(lat_cpustat_parse(big, strlen(big), 0, &c), 0);
    assert_true(lat_cpustat_total(&c) == UINT64_MAX);
    assert_true(lat_cpustat_total(&c) >= c.steal);
    /* the last line without a newline, and the wanted cpu absent */
    assert_int_equal(lat_cpustat_parse("cpu1 1 2 3 4", 12, 0, &c), -ENOENT);
    assert_true(lat_cpustat_tick_ns() > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedstat_fixtures),
        cmocka_unit_test(test_cpustat_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
