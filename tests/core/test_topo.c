/* test_topo.c - CPU sets, topology from fake sysfs trees (1, 2, 4, 16 CPUs, SMT
 * pairs, isolated sets, hybrid P/E), the placement planner, pinning on the real
 * machine, and run conditions (fake tree and real).  Their JSON forms are
 * measure/json.c's: tests/measure/test_json.c. */
#include "lat_test.h"

#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/topo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- fake trees ---------------------------------------------------------------- */

static int tree_seq;

static void put(const char *root, const char *rel, const char *text) {
    char path[1024], dir[1024];
    snprintf(path, sizeof path, "%s%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    assert_int_equal(lat_mkdir_p(dir), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fputc('\n', f);
    fclose(f);
}

static void put_cpu(const char *root, int cpu, const char *rel, const char *text) {
    char p[256];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/%s", cpu, rel);
    put(root, p, text);
}

static void put_cpu_u(const char *root, int cpu, const char *rel, unsigned long long v) {
    char b[32];
    snprintf(b, sizeof b, "%llu", v);
    put_cpu(root, cpu, rel, b);
}

/* A tree of n CPUs.  smt_stride > 0 makes CPU c and c+smt_stride siblings
 * (Intel numbering); isolated is a CPU list or NULL. */
static const char *make_tree(int n, int smt_stride, const char *isolated) {
    static char roots[32][512];
    char *root = roots[tree_seq % 32];
    snprintf(root, 512, "%s/tree%d", lat_test_tmpdir(), tree_seq++);
    char list[32];
    snprintf(list, sizeof list, n > 1 ? "0-%d" : "0", n - 1);
    put(root, "/sys/devices/system/cpu/online", list);
    put(root, "/sys/devices/system/cpu/possible", list);
    put(root, "/sys/devices/system/cpu/isolated", isolated ? isolated : "");
    for (int c = 0; c < n; c++) {
        char sib[32];
        if (smt_stride > 0) {
            int a = c % (2 * smt_stride) < smt_stride ? c : c - smt_stride;
            snprintf(sib, sizeof sib, "%d,%d", a, a + smt_stride);
        } else {
            snprintf(sib, sizeof sib, "%d", c);
        }
        put_cpu(root, c, "topology/thread_siblings_list", sib);
        put_cpu_u(root, c, "topology/core_id", (unsigned)(smt_stride > 0 ? c % smt_stride : c));
        put_cpu_u(root, c, "topology/physical_package_id", 0);
    }
    return root;
}

/* ---- CPU sets --------------------------------------------------------------------- */

static void test_cpuset_parse_format(void **state) {
    (void)state;
    lat_cpuset s;
    char buf[64];
    assert_int_equal(lat_cpuset_parse("0-3,8,10-11\n", &s), 0);
    assert_int_equal(lat_cpuset_count(&s), 7);
    assert_true(lat_cpuset_has(&s, 8) && !lat_cpuset_has(&s, 9));
    lat_cpuset_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "0-3,8,10-11");
    assert_int_equal(lat_cpuset_next(&s, 4), 8);
    assert_int_equal(lat_cpuset_next(&s, 12), -1);
    assert_int_equal(lat_cpuset_parse("", &s), 0);
    assert_int_equal(lat_cpuset_count(&s), 0);
    assert_int_equal(lat_cpuset_format(&s, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(lat_cpuset_parse("1023", &s), 0);
    assert_int_equal(lat_cpuset_next(&s, 0), 1023);
    const char *bad[] = {"1-", "a", "3-1", "1024", "1,,2", "-1", "1 2", ",", "0-1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(lat_cpuset_parse(bad[i], &s), -EINVAL);
    /* truncation reports the length needed and keeps whole entries */
    assert_int_equal(lat_cpuset_parse("0,2,4,6,8", &s), 0);
    char small[5];
    assert_int_equal(lat_cpuset_format(&s, small, sizeof small), 9);
    assert_string_equal(small, "0,2");
}

/* ---- topology from fake trees ---------------------------------------------------------- */

static void test_fake_sizes(void **state) {
    (void)state;
    int sizes[] = {1, 2, 4, 16};
    for (size_t i = 0; i < 4; i++) {
        lat_topo *t = NULL;
        assert_int_equal(lat_topo_load(make_tree(sizes[i], 0, NULL), &t), 0);
        assert_int_equal(lat_topo_ncpus(t), sizes[i]);
        assert_int_equal(lat_cpuset_count(lat_topo_affinity(t)), sizes[i]);
        assert_int_equal(lat_cpuset_count(lat_topo_isolated(t)), 0);
        assert_false(lat_topo_hybrid(t));
        assert_int_equal(lat_cpuset_count(lat_topo_perf_cores(t)), sizes[i]);
        lat_topo_cpu ci;
        assert_int_equal(lat_topo_cpu_info(t, sizes[i] - 1, &ci), 0);
        assert_int_equal(ci.cpu, sizes[i] - 1);
        assert_int_equal(lat_cpuset_count(&ci.siblings), 1);
        assert_int_equal(lat_topo_cpu_info(t, sizes[i], &ci), -EINVAL);
        lat_topo_destroy(t);
    }
    lat_topo_destroy(NULL);
}

static void test_fake_missing(void **state) {
    (void)state;
    lat_topo *t = (lat_topo *)1;
    char root[512];
    snprintf(root, sizeof root, "%s/empty%d", lat_test_tmpdir(), tree_seq++);
    assert_int_equal(lat_mkdir_p(root), 0);
    assert_int_equal(lat_topo_load(root, &t), -ENOENT);
    assert_null(t);
    /* no "online" file: count the cpuN directories */
    put(root, "/sys/devices/system/cpu/cpu0/uevent", "");
    put(root, "/sys/devices/system/cpu/cpu1/uevent", "");
    put(root, "/sys/devices/system/cpu/cpu2/uevent", "");
    assert_int_equal(lat_topo_load(root, &t), 0);
    assert_int_equal(lat_topo_ncpus(t), 3);
    lat_topo_cpu ci;
    assert_int_equal(lat_topo_cpu_info(t, 2, &ci), 0);
    assert_int_equal(ci.core_id, -1);
    assert_int_equal(ci.capacity, 0);
    assert_true(lat_cpuset_has(&ci.siblings, 2));
    const lat_cache *caches;
    assert_int_equal(lat_topo_caches(t, &caches), 0);
    lat_topo_destroy(t);
}

static void test_fake_smt_and_caches(void **state) {
    (void)state;
    const char *root = make_tree(16, 8, NULL);
    const char *idx[][5] = {{"1", "Data", "48K", "64", "0,8"},
                            {"1", "Instruction", "32K", "64", "0,8"},
                            {"3", "Unified", "30720K", "64", "0-15"},
                            {"2", "Unified", "2048K", "64", "0,8"}};
    for (int i = 0; i < 4; i++) {
        const char *names[] = {"level", "type", "size", "coherency_line_size", "shared_cpu_list"};
        for (int k = 0; k < 5; k++) {
            char rel[64];
            snprintf(rel, sizeof rel, "cache/index%d/%s", i, names[k]);
            put_cpu(root, 0, rel, idx[i][k]);
        }
    }
    lat_topo *t;
    assert_int_equal(lat_topo_load(root, &t), 0);
    lat_topo_cpu ci;
    assert_int_equal(lat_topo_cpu_info(t, 11, &ci), 0);
    assert_true(lat_cpuset_has(&ci.siblings, 3) && lat_cpuset_has(&ci.siblings, 11));
    assert_int_equal(ci.core_id, 3);
    const lat_cache *c;
    assert_int_equal(lat_topo_caches(t, &c), 4);
    assert_int_equal(c[0].level, 1);
    assert_int_equal(c[2].level, 2);
    assert_int_equal(c[2].size_bytes, 2048 * 1024);
    assert_int_equal(c[3].level, 3);
    assert_int_equal(c[3].size_bytes, 30720ull * 1024);
    assert_int_equal(c[3].line_bytes, 64);
    assert_int_equal(lat_cpuset_count(&c[3].shared_cpus), 16);
    /* SMT: 8 hot threads fit on 8 distinct cores, avoiding CPU 0 and siblings. */
    lat_plan p;
    assert_int_equal(lat_topo_plan(t, 7, 1, 0, &p), 0);
    lat_cpuset cores;
    lat_cpuset_zero(&cores);
    for (int i = 0; i < 7; i++) {
        assert_int_not_equal(p.hot[i], 0);
        assert_false(lat_cpuset_has(&cores, p.hot[i] % 8));
        lat_cpuset_add(&cores, p.hot[i] % 8);
    }
    assert_false(p.smt_shared);
    assert_false(p.uses_cpu0);
    lat_topo_destroy(t);
}

/* ---- the planner ------------------------------------------------------------------------------
 */

static void test_plan_refuses_and_accepts(void **state) {
    (void)state;
    lat_topo *t2, *t4;
    assert_int_equal(lat_topo_load(make_tree(2, 0, NULL), &t2), 0);
    assert_int_equal(lat_topo_load(make_tree(4, 0, NULL), &t4), 0);
    lat_plan p;
    assert_int_equal(lat_topo_plan(t2, 3, 1, 0, &p), LAT_ETOOFEW_CPUS);
    assert_string_equal(p.note, "needs 3 CPUs for hot threads, this machine has 2");
    assert_int_equal(lat_topo_plan(t4, 3, 1, 0, &p), 0);
    assert_int_equal(p.nhot, 3);
    assert_int_equal(p.hot[0], 1);
    assert_int_equal(p.hot[1], 2);
    assert_int_equal(p.hot[2], 3);
    assert_false(p.oversubscribed || p.uses_cpu0 || p.smt_shared || p.cold_shares);
    assert_true(lat_cpuset_has(&p.cold, 0) && lat_cpuset_count(&p.cold) == 1);
    assert_string_equal(p.note, "");
    /* 2 hot on 2 CPUs: must use CPU 0, and cold threads share */
    assert_int_equal(lat_topo_plan(t2, 2, 1, 0, &p), 0);
    assert_true(p.uses_cpu0 && p.cold_shares);
    assert_int_equal(p.hot[0], 1);
    assert_int_equal(p.hot[1], 0);
    assert_non_null(strstr(p.note, "CPU 0"));
    /* oversubscription on request */
    assert_int_equal(lat_topo_plan(t2, 3, 0, LAT_PLAN_SHARE, &p), 0);
    assert_true(p.oversubscribed);
    for (int i = 0; i < 3; i++)
        assert_true(p.hot[i] == 0 || p.hot[i] == 1);
    assert_non_null(strstr(p.note, "oversubscribed"));
    /* a narrower affinity mask is what counts */
    lat_cpuset m;
    lat_cpuset_parse("2-3", &m);
    lat_topo_set_affinity(t4, &m);
    assert_int_equal(lat_topo_plan(t4, 3, 0, 0, &p), LAT_ETOOFEW_CPUS);
    assert_non_null(strstr(p.note, "has 2"));
    /* bad arguments */
    assert_int_equal(lat_topo_plan(t4, -1, 0, 0, &p), -EINVAL);
    assert_int_equal(lat_topo_plan(t4, LAT_PLAN_MAX_HOT + 1, 0, 0, &p), -EINVAL);
    assert_int_equal(lat_topo_plan(NULL, 1, 0, 0, &p), -EINVAL);
    lat_topo_destroy(t2);
    lat_topo_destroy(t4);
    /* 1 CPU: one hot thread is possible, two are not */
    lat_topo *t1;
    assert_int_equal(lat_topo_load(make_tree(1, 0, NULL), &t1), 0);
    assert_int_equal(lat_topo_plan(t1, 1, 2, 0, &p), 0);
    assert_int_equal(p.hot[0], 0);
    assert_int_equal(lat_topo_plan(t1, 2, 0, 0, &p), LAT_ETOOFEW_CPUS);
    lat_topo_destroy(t1);
}

static void test_plan_smt_avoidance(void **state) {
    (void)state;
    lat_topo *t;
    /* 4 CPUs as 2 cores: (0,2) and (1,3) */
    assert_int_equal(lat_topo_load(make_tree(4, 2, NULL), &t), 0);
    lat_plan p;
    assert_int_equal(lat_topo_plan(t, 2, 0, 0, &p), 0);
    assert_int_equal(p.hot[0], 1);
    assert_int_equal(p.hot[1], 2); /* not 3, CPU 1's sibling; not 0 */
    assert_false(p.smt_shared);
    /* 3 hot threads on 2 cores: one pair must share, and it says so */
    assert_int_equal(lat_topo_plan(t, 3, 0, 0, &p), 0);
    assert_true(p.smt_shared);
    assert_non_null(strstr(p.note, "SMT"));
    lat_topo_destroy(t);
}

static void test_plan_isolated_preference(void **state) {
    (void)state;
    lat_topo *t;
    assert_int_equal(lat_topo_load(make_tree(8, 0, "5-6"), &t), 0);
    lat_topo_cpu ci;
    assert_int_equal(lat_topo_cpu_info(t, 5, &ci), 0);
    assert_true(ci.isolated);
    assert_int_equal(lat_cpuset_count(lat_topo_isolated(t)), 2);
    lat_plan p;
    assert_int_equal(lat_topo_plan(t, 2, 1, 0, &p), 0);
    assert_int_equal(p.hot[0], 5);
    assert_int_equal(p.hot[1], 6);
    assert_string_equal(p.note, "");
    assert_int_equal(lat_topo_plan(t, 3, 0, 0, &p), 0);
    assert_int_equal(p.hot[2], 1);
    assert_non_null(strstr(p.note, "1 of 3 hot threads on non-isolated"));
    lat_topo_destroy(t);
}

static void test_hybrid_detection(void **state) {
    (void)state;
    lat_topo *t;
    lat_plan p;
    /* by capacity: 0-3 big (1024), 4-7 little (400) */
    const char *root = make_tree(8, 0, NULL);
    for (int c = 0; c < 8; c++)
        put_cpu_u(root, c, "cpu_capacity", c < 4 ? 1024 : 400);
    assert_int_equal(lat_topo_load(root, &t), 0);
    assert_true(lat_topo_hybrid(t));
    char buf[64];
    lat_cpuset_format(lat_topo_perf_cores(t), buf, sizeof buf);
    assert_string_equal(buf, "0-3");
    assert_int_equal(lat_topo_plan(t, 4, 0, 0, &p), 0);
    assert_int_equal(p.hot[0], 1);
    assert_int_equal(p.hot[1], 2);
    assert_int_equal(p.hot[2], 3);
    assert_int_equal(p.hot[3], 0); /* a P-core, even CPU 0, before an E-core */
    lat_topo_destroy(t);

    /* little-first numbering: 0-5 little, 6-7 big; 95% counts as big */
    root = make_tree(8, 0, NULL);
    for (int c = 0; c < 8; c++)
        put_cpu_u(root, c, "cpu_capacity", c < 6 ? 300 : (c == 6 ? 1024 : 973));
    assert_int_equal(lat_topo_load(root, &t), 0);
    assert_true(lat_topo_hybrid(t));
    lat_cpuset_format(lat_topo_perf_cores(t), buf, sizeof buf);
    assert_string_equal(buf, "6-7");
    lat_topo_destroy(t);

    /* by max frequency when capacities are absent: 5.0 GHz vs 3.8 GHz */
    root = make_tree(6, 0, NULL);
    for (int c = 0; c < 6; c++)
        put_cpu_u(root, c, "cpufreq/cpuinfo_max_freq", c < 2 ? 5000000 : 3800000);
    assert_int_equal(lat_topo_load(root, &t), 0);
    assert_true(lat_topo_hybrid(t));
    lat_cpuset_format(lat_topo_perf_cores(t), buf, sizeof buf);
    assert_string_equal(buf, "0-1");
    lat_topo_cpu ci;
    assert_int_equal(lat_topo_cpu_info(t, 3, &ci), 0);
    assert_false(ci.perf_core);
    assert_int_equal(ci.max_freq_khz, 3800000);
    lat_topo_destroy(t);

    /* within 10%: not hybrid, every CPU is a performance core */
    root = make_tree(4, 0, NULL);
    for (int c = 0; c < 4; c++)
        put_cpu_u(root, c, "cpu_capacity", c < 2 ? 1024 : 980);
    assert_int_equal(lat_topo_load(root, &t), 0);
    assert_false(lat_topo_hybrid(t));
    assert_int_equal(lat_cpuset_count(lat_topo_perf_cores(t)), 4);
    lat_topo_destroy(t);

    /* Intel hybrid names its P-cores directly */
    root = make_tree(8, 0, NULL);
    put(root, "/sys/devices/cpu_core/cpus", "0-3");
    put(root, "/sys/devices/cpu_atom/cpus", "4-7");
    assert_int_equal(lat_topo_load(root, &t), 0);
    assert_true(lat_topo_hybrid(t));
    lat_cpuset_format(lat_topo_perf_cores(t), buf, sizeof buf);
    assert_string_equal(buf, "0-3");
    lat_topo_destroy(t);
}

static void test_nohz_and_sets(void **state) {
    (void)state;
    const char *root = make_tree(4, 2, "3");
    put(root, "/sys/devices/system/cpu/nohz_full", "2-3");
    put_cpu(root, 0, "cache/index0/level", "1");
    put_cpu(root, 0, "cache/index0/type", "Data");
    put_cpu(root, 0, "cache/index0/size", "32K");
    lat_topo *t;
    assert_int_equal(lat_topo_load(root, &t), 0);
    char buf[64];
    lat_cpuset_format(lat_topo_nohz_full(t), buf, sizeof buf);
    assert_string_equal(buf, "2-3");
    lat_topo_destroy(t);

    lat_cpuset a, b, c;
    lat_cpuset_parse("0-7", &a);
    lat_cpuset_parse("4-11", &b);
    lat_cpuset_and(&c, &a, &b);
    lat_cpuset_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "4-7");
    lat_cpuset_del(&c, 5);
    lat_cpuset_del(&c, 5000); /* out of range: ignored */
    lat_cpuset_add(&c, -1);
    lat_cpuset_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "4,6-7");
    assert_false(lat_cpuset_has(&c, -1));
    lat_cpuset_zero(&c);
    assert_int_equal(lat_cpuset_next(&c, 0), -1);
}

/* ---- the real machine: pinning
 * ------------------------------------------------------------------- */

static void test_real_pin(void **state) {
    (void)state;
    lat_topo *t;
    assert_int_equal(lat_topo_load(NULL, &t), 0);
    assert_true(lat_topo_ncpus(t) >= 1);
    const lat_cpuset *aff = lat_topo_affinity(t);
    assert_true(lat_cpuset_count(aff) >= 1);
    lat_cpuset before;
    assert_int_equal(lat_thread_affinity(&before), 0);
    for (int c = lat_cpuset_next(aff, 0); c >= 0; c = lat_cpuset_next(aff, c + 1)) {
        assert_int_equal(lat_pin_thread(c), 0);
        assert_int_equal(lat_current_cpu(), c);
        lat_cpuset now;
        assert_int_equal(lat_thread_affinity(&now), 0);
        assert_int_equal(lat_cpuset_count(&now), 1);
    }
    assert_int_equal(lat_pin_thread(-1), -EINVAL);
    /* an explicit mask: the first usable CPU only */
    lat_cpuset one;
    lat_cpuset_zero(&one);
    lat_cpuset_add(&one, lat_cpuset_next(aff, 0));
    assert_int_equal(lat_unpin_thread(&one), 0);
    assert_int_equal(lat_current_cpu(), lat_cpuset_next(aff, 0));
    assert_int_equal(lat_unpin_thread(NULL), 0);
    lat_cpuset after;
    assert_int_equal(lat_thread_affinity(&after), 0);
    assert_memory_equal(&after, &before, sizeof before);
    lat_plan p;
    int n = lat_cpuset_count(aff);
    assert_int_equal(lat_topo_plan(t, n + 1, 0, 0, &p), LAT_ETOOFEW_CPUS);
    assert_int_equal(lat_topo_plan(t, n, 1, 0, &p), 0);
    lat_topo_destroy(t);
}

/* ---- run conditions
 * --------------------------------------------------------------------------------- */

static void test_runcond_fake(void **state) {
    (void)state;
    const char *root = make_tree(4, 2, "2-3");
    put(root, "/proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU @ 3.00GHz\n"
        "flags\t\t: fpu tsc constant_tsc nonstop_tsc hypervisor rdtscp\n\nprocessor\t: 1\n");
    put(root, "/proc/cmdline",
        "BOOT_IMAGE=/vmlinuz isolcpus=nohz,domain,2-3 nohz_full=2-3 quiet -- rcu_nocbs=9");
    put(root, "/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]");
    put(root, "/sys/devices/system/cpu/smt/active", "1");
    put_cpu(root, 0, "cpufreq/scaling_governor", "powersave");
    put(root, "/sys/devices/system/cpu/cpufreq/boost", "1");
    put(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet");
    put(root, "/proc/sys/kernel/perf_event_paranoid", "2");
    lat_runcond rc;
    assert_int_equal(lat_runcond_collect(&rc, root), 0);
    assert_string_equal(rc.cpu_model, "Test CPU @ 3.00GHz");
    assert_string_equal(rc.cpus_online, "0-3");
    assert_int_equal(rc.ncpus_online, 4);
    assert_string_equal(rc.isolated, "2-3");
    assert_string_equal(rc.nohz_full, "unknown"); /* file absent */
    assert_string_equal(rc.governor, "powersave");
    assert_string_equal(rc.scaling_driver, "unknown");
    assert_non_null(strstr(rc.turbo, "on"));
    assert_string_equal(rc.cmdline_isolcpus, "nohz,domain,2-3");
    assert_string_equal(rc.cmdline_nohz_full, "2-3");
    assert_string_equal(rc.cmdline_rcu_nocbs, "none"); /* after "--": init's, not the kernel's */
    assert_string_equal(rc.thp, "never");
    assert_string_equal(rc.clocksource, "hpet");
    assert_string_equal(rc.tsc_flags, "constant_tsc nonstop_tsc");
    assert_string_equal(rc.virt, "yes (hypervisor flag)");
    assert_string_equal(rc.caches, "unknown");
    assert_string_equal(rc.perf_event_paranoid, "2");
    assert_string_equal(rc.nmi_watchdog, "unknown");
    assert_string_equal(rc.smt_control, "unknown");
    assert_string_equal(rc.hybrid, "no");
    const char *want[] = {"governor", "turbo", "virtual machine", "SMT", "clocksource"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (int i = 0; i < rc.nwarnings; i++)
            found |= strstr(rc.warnings[i], want[w]) != NULL;
        if (!found) fail_msg("no warning mentioning '%s'", want[w]);
    }
    for (int i = 0; i < rc.nwarnings; i++)
        assert_null(strstr(rc.warnings[i], "isolated"));

    char *text = NULL, *md = NULL;
    size_t tl = 0, ml = 0;
    FILE *f = open_memstream(&text, &tl);
    assert_int_equal(lat_runcond_write_text(&rc, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "governor             powersave\n"));
    assert_non_null(strstr(text, "warning: "));
    f = open_memstream(&md, &ml);
    assert_int_equal(lat_runcond_write_markdown(&rc, f), 0);
    fclose(f);
    assert_non_null(strstr(md, "| condition | value |\n|---|---|\n"));
    assert_non_null(strstr(md, "| governor | powersave |\n"));
    assert_non_null(strstr(md, "\n- "));
    free(text);
    free(md);
    assert_int_equal(lat_runcond_collect(NULL, root), -EINVAL);
}

static void test_runcond_empty_and_real(void **state) {
    (void)state;
    char root[512];
    snprintf(root, sizeof root, "%s/bare%d", lat_test_tmpdir(), tree_seq++);
    assert_int_equal(lat_mkdir_p(root), 0);
    lat_runcond rc;
    assert_int_equal(lat_runcond_collect(&rc, root), 0);
    assert_string_equal(rc.cpu_model, "unknown");
    assert_string_equal(rc.governor, "unknown");
    assert_string_equal(rc.isolated, "unknown");
    assert_string_equal(rc.thp, "unknown");
    assert_int_equal(rc.ncpus_online, -1);
    /* the real machine: the facts that exist everywhere we run */
    assert_int_equal(lat_runcond_collect(&rc, NULL), 0);
    assert_true(rc.ncpus_online >= 1);
    assert_string_not_equal(rc.kernel, "unknown");
    assert_string_not_equal(rc.glibc, "unknown");
    assert_string_not_equal(rc.compiler, "unknown");
    assert_string_not_equal(rc.cpus_online, "unknown");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpuset_parse_format),
        cmocka_unit_test(test_fake_sizes),
        cmocka_unit_test(test_fake_missing),
        cmocka_unit_test(test_fake_smt_and_caches),
        cmocka_unit_test(test_plan_refuses_and_accepts),
        cmocka_unit_test(test_plan_smt_avoidance),
        cmocka_unit_test(test_plan_isolated_preference),
        cmocka_unit_test(test_hybrid_detection),
        cmocka_unit_test(test_nohz_and_sets),
        cmocka_unit_test(test_real_pin),
        cmocka_unit_test(test_runcond_fake),
        cmocka_unit_test(test_runcond_empty_and_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
