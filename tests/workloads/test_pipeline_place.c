/* test_pipeline_place.c - lat_pipe_place() on fake topologies: auto picks the
 * full shape when three hot threads can be pinned apart (avoiding SMT
 * siblings), compact on 2 CPUs, refuses on too few CPUs with the
 * --oversubscribe hint, and oversubscribing switches hot threads to backoff. */
#include "lat_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/pipeline.h"
#include "latlab/topo.h"

static int seq;

static void put(const char *root, const char *rel, const char *text) {
    char path[1024], dir[1024];
    snprintf(path, sizeof path, "%s%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(lat_mkdir_p(dir), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", text);
    fclose(f);
}

/* n CPUs; smt: CPU c and c + n/2 are siblings. */
static lat_topo *fake(int n, bool smt) {
    char root[512], list[32], p[256], sib[32];
    snprintf(root, sizeof root, "%s/t%d", lat_test_tmpdir(), seq++);
    snprintf(list, sizeof list, n > 1 ? "0-%d" : "0", n - 1);
    put(root, "/sys/devices/system/cpu/online", list);
    put(root, "/sys/devices/system/cpu/possible", list);
    for (int c = 0; c < n; c++) {
        int h = n / 2, a = smt ? c % h : c;
        if (smt)
            snprintf(sib, sizeof sib, "%d,%d", a, a + h);
        else
            snprintf(sib, sizeof sib, "%d", c);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
        put(root, p, sib);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        snprintf(sib, sizeof sib, "%d", smt ? a : c);
        put(root, p, sib);
    }
    lat_topo *t = NULL;
    assert_int_equal(lat_topo_load(root, &t), 0);
    return t;
}

static void test_auto_full_on_four(void **state) {
    (void)state;
    lat_topo *t = fake(4, false);
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    bool over = true;
    char why[512];
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_AUTO, t, false, &over, why, sizeof why), 0);
    assert_int_equal(c.shape, LAT_PIPE_FULL);
    assert_false(over);
    assert_int_equal(c.idle.kind, LAT_IDLE_SPIN);
    /* three distinct CPUs, none of them CPU 0 */
    assert_true(c.cpus[0] != c.cpus[1] && c.cpus[1] != c.cpus[2] && c.cpus[0] != c.cpus[2]);
    for (int k = 0; k < 3; k++)
        assert_true(c.cpus[k] > 0);
    assert_non_null(strstr(why, "auto chose full"));
    lat_topo_destroy(t);
}

static void test_auto_compact_on_two(void **state) {
    (void)state;
    lat_topo *t = fake(2, false);
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    bool over = true;
    char why[512];
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_AUTO, t, false, &over, why, sizeof why), 0);
    assert_int_equal(c.shape, LAT_PIPE_COMPACT);
    assert_false(over);
    assert_true(c.cpus[0] != c.cpus[1]);
    assert_int_equal(c.cpus[LAT_PIPE_CONSUMER], -1);
    assert_non_null(strstr(why, "auto chose compact"));
    /* full on two CPUs: refused with the hint, or shared with backoff */
    lat_pipe_config_default(&c);
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_FULL, t, false, &over, why, sizeof why),
                     LAT_ETOOFEW_CPUS);
    assert_non_null(strstr(why, "needs 3"));
    assert_non_null(strstr(why, "use --oversubscribe to run anyway"));
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_FULL, t, true, &over, why, sizeof why), 0);
    assert_true(over);
    assert_int_equal(c.shape, LAT_PIPE_FULL);
    assert_int_equal(c.idle.kind, LAT_IDLE_BACKOFF);
    lat_topo_destroy(t);
}

static void test_smt_pairs_avoided(void **state) {
    (void)state;
    /* 4 CPUs as 2 cores x 2 threads: three hot threads cannot avoid siblings,
     * so auto prefers the compact shape on two distinct cores */
    lat_topo *t = fake(4, true);
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    bool over;
    char why[512];
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_AUTO, t, false, &over, why, sizeof why), 0);
    assert_int_equal(c.shape, LAT_PIPE_COMPACT);
    assert_true(c.cpus[0] % 2 != c.cpus[1] % 2); /* siblings are c and c+2 */
    lat_topo_destroy(t);
}

static void test_one_cpu(void **state) {
    (void)state;
    lat_topo *t = fake(1, false);
    lat_pipe_config c;
    lat_pipe_config_default(&c);
    bool over;
    char why[512];
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_AUTO, t, false, &over, why, sizeof why),
                     LAT_ETOOFEW_CPUS);
    assert_non_null(strstr(why, "--oversubscribe"));
    assert_int_equal(lat_pipe_place(&c, LAT_PIPE_AUTO, t, true, &over, why, sizeof why), 0);
    assert_true(over);
    assert_int_equal(c.shape, LAT_PIPE_COMPACT);
    assert_int_equal(c.idle.kind, LAT_IDLE_BACKOFF);
    assert_int_equal(lat_pipe_place(NULL, LAT_PIPE_AUTO, t, true, &over, why, sizeof why), -EINVAL);
    lat_topo_destroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_full_on_four),
        cmocka_unit_test(test_auto_compact_on_two),
        cmocka_unit_test(test_smt_pairs_avoided),
        cmocka_unit_test(test_one_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
