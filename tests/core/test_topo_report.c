/* test_topo_report.c - the topology and placement plans as `latlab sys`
 * prints them (core/topo_report.c), from fake sysfs trees written here:
 * the online/affinity line, one row per CPU (core, package, siblings,
 * capacity and max MHz or "-", isolated), and the plans for 1..3 hot
 * threads, the ones a machine cannot hold refused with the reason. */
#include "lat_test.h"

#include "latlab/topo.h"
#include "latlab/topo_report.h"

#include <stdlib.h>
#include <string.h>

static int seq;

static void put(const char *root, const char *rel, const char *text) {
    char path[1024];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/%s", root, rel);
    assert_int_equal(lat_test_put_file(path, text), 0);
}

/* n CPUs; with smt, CPU c and c+n/2 are siblings on core c%(n/2). */
static lat_topo *fake(int n, bool smt, const char *isolated) {
    char root[512], rel[128], v[32];
    snprintf(root, sizeof root, "%s/tree%d", lat_test_tmpdir(), seq++);
    snprintf(v, sizeof v, "0-%d", n - 1);
    put(root, "online", v);
    put(root, "possible", v);
    put(root, "isolated", isolated);
    for (int c = 0; c < n; c++) {
        int core = smt ? c % (n / 2) : c;
        snprintf(rel, sizeof rel, "cpu%d/topology/thread_siblings_list", c);
        if (smt)
            snprintf(v, sizeof v, "%d,%d", core, core + n / 2);
        else
            snprintf(v, sizeof v, "%d", c);
        put(root, rel, v);
        snprintf(rel, sizeof rel, "cpu%d/topology/core_id", c);
        snprintf(v, sizeof v, "%d", core);
        put(root, rel, v);
        snprintf(rel, sizeof rel, "cpu%d/topology/physical_package_id", c);
        put(root, rel, "0");
    }
    put(root, "cpu0/cpu_capacity", "1024");
    put(root, "cpu0/cpufreq/cpuinfo_max_freq", "3000000");
    lat_topo *t = NULL;
    assert_int_equal(lat_topo_load(root, &t), 0);
    return t;
}

static char *report(const lat_topo *t, bool plans) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (plans)
        lat_topo_write_plans(t, f);
    else
        lat_topo_write_text(t, f);
    fclose(f);
    return buf;
}

static void expect_row(const char *text, int cpu, int core, const char *sib, const char *cap,
                       const char *mhz, const char *flags) {
    char want[256];
    snprintf(want, sizeof want, "\n  %-4d %-5d %-4d %-10s %-8s %-10s%s\n", cpu, core, 0, sib, cap,
             mhz, flags);
    if (!strstr(text, want)) fail_msg("no row '%s' in:\n%s", want + 1, text);
}

static void test_text(void **state) {
    (void)state;
    lat_topo *t = fake(4, true, "3");
    char *s = report(t, false);
    assert_non_null(strstr(s, "\ntopology: 4 online CPUs (0-3), affinity 0-3\n"));
    assert_non_null(strstr(s, "cpu  core  pkg  siblings   capacity max_mhz    flags\n"));
    expect_row(s, 0, 0, "0,2", "1024", "3000", "");
    expect_row(s, 1, 1, "1,3", "-", "-", "");
    expect_row(s, 3, 1, "1,3", "-", "-", " isolated");
    assert_null(strstr(s, "cache L")); /* the tree has no caches */
    free(s);
    lat_topo_destroy(t);
}

static void test_plans(void **state) {
    (void)state;
    lat_topo *t = fake(2, false, "");
    char *s = report(t, true);
    assert_non_null(strstr(s, "\nplacement (hot threads pinned, one cold thread unpinned):\n"));
    assert_non_null(strstr(s, "\n  1 hot: CPUs 1, cold on ")); /* not CPU 0 */
    /* CPU 0 last, and the one cold thread shares: said so */
    assert_non_null(strstr(s, "\n  2 hot: CPUs 1,0, cold on 0-1  (a hot thread is on CPU 0; "));
    assert_non_null(strstr(s, "share CPUs with hot threads)\n"));
    assert_non_null(strstr(s, "\n  3 hot: refused: needs 3 CPUs"));
    free(s);
    lat_topo_destroy(t);

    /* 4 CPUs with SMT: two hot threads on two cores, not siblings */
    t = fake(4, true, "");
    s = report(t, true);
    assert_non_null(strstr(s, "\n  2 hot: CPUs 1,2, cold on "));
    assert_null(strstr(s, "refused"));
    free(s);
    lat_topo_destroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_plans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
