/* test_perf.c - perf counter sets: software counts against independent
 * measures, every unavailable event carries a known reason, the pmu/.../
 * parser against a fake sysfs tree, region calls allocate nothing, inherit
 * counts a child, and the unprivileged degrade path (as nobody). */
#include "lat_test.h"

#include "latlab/error.h"
#include "latlab/perf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int counts(const lat_perf_count *c) {
    return c->state == LAT_PERF_COUNTED || c->state == LAT_PERF_SCALED ||
           c->state == LAT_PERF_FALLBACK;
}

static void test_page_faults(void **state) {
    (void)state;
    lat_perf *p;
    char err[200];
    lat_perf_opts o = {.err = err, .err_len = sizeof err};
    assert_int_equal(lat_perf_create(&p, "page-faults,minor-faults", &o), 0);
    if (lat_perf_ncountable(p) < 2) {
        LAT_SKIP("page-faults cannot be counted here: %s", lat_perf_reason(p, 0));
        lat_perf_destroy(p);
        return;
    }
    const size_t pages = 256;
    long pg = sysconf(_SC_PAGESIZE);
    lat_perf_count c[2];
    assert_int_equal(lat_perf_read(p, NULL, 0), 0); /* baseline */
    assert_int_equal(lat_perf_start(p), 0);
    char *m =
        mmap(NULL, pages * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    madvise(m, pages * (size_t)pg, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < pages; i++)
        m[i * (size_t)pg] = (char)i;
    assert_int_equal(lat_perf_stop(p), 0);
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    munmap(m, pages * (size_t)pg);
    printf("page-faults %llu minor-faults %llu for %zu pages (%s)\n",
           (unsigned long long)c[0].value, (unsigned long long)c[1].value, pages,
           lat_perf_state_name(c[0].state));
    assert_true(counts(&c[0]));
    assert_true(c[0].value >= pages);
    assert_true(c[1].value >= pages);
    /* stopped: a second region with nothing in it counts (almost) nothing */
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    assert_true(c[0].value < pages);
    lat_perf_destroy(p);
}

static void test_task_clock(void **state) {
    (void)state;
    lat_perf *p;
    assert_int_equal(lat_perf_create(&p, "task-clock", NULL), 0);
    if (lat_perf_error(p, 0)) {
        LAT_SKIP("task-clock: %s", lat_perf_reason(p, 0));
        lat_perf_destroy(p);
        return;
    }
    lat_perf_count c;
    assert_int_equal(lat_perf_start(p), 0);
    uint64_t t0 = thread_cpu_ns();
    volatile uint64_t x = 0;
    while (thread_cpu_ns() - t0 < 30000000ull)
        x++;
    uint64_t t1 = thread_cpu_ns();
    assert_int_equal(lat_perf_stop(p), 0);
    assert_int_equal(lat_perf_read(p, &c, 1), 1);
    double r = (double)c.value / (double)(t1 - t0);
    printf("task-clock %llu ns, CLOCK_THREAD_CPUTIME_ID %llu ns, ratio %.3f\n",
           (unsigned long long)c.value, (unsigned long long)(t1 - t0), r);
    assert_int_equal(c.state, LAT_PERF_COUNTED);
    assert_true(r > 0.5 && r < 2.0);
    assert_true(c.enabled_ns >= c.value / 2);
    lat_perf_destroy(p);
}

static void test_context_switches(void **state) {
    (void)state;
    lat_perf *p;
    assert_int_equal(lat_perf_create(&p, "context-switches", NULL), 0);
    assert_int_equal(lat_perf_error(p, 0), 0); /* counter or getrusage: never nothing */
    lat_perf_count c;
    assert_int_equal(lat_perf_start(p), 0);
    for (int i = 0; i < 5; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(lat_perf_stop(p), 0);
    assert_int_equal(lat_perf_read(p, &c, 1), 1);
    printf("context-switches %llu after 5 nanosleeps (%s)\n", (unsigned long long)c.value,
           lat_perf_state_name(c.state));
    assert_true(counts(&c));
    assert_true(c.value >= 5);
    lat_perf_destroy(p);
}

static const char *known_reasons[] = {
    "not supported on this machine",
    "not supported by this kernel",
    "not permitted:",
    "busy:",
    "invalid for this kernel or PMU",
    "too many open files",
    "user space only:",
    "perf_event_open is not available",
};

static int known_reason(const char *r) {
    if (!r) return 0;
    for (size_t i = 0; i < sizeof known_reasons / sizeof known_reasons[0]; i++)
        if (!strncmp(r, known_reasons[i], strlen(known_reasons[i]))) return 1;
    return 0;
}

static void test_hardware_reasons(void **state) {
    (void)state;
    const char *hw[] = {"cycles",
                        "instructions",
                        "branches",
                        "branch-misses",
                        "cache-references",
                        "cache-misses",
                        "LLC-load-misses",
                        "L1-dcache-load-misses",
                        "stalled-cycles-frontend",
                        "stalled-cycles-backend"};
    struct stat st;
    int no_pmu = stat("/sys/bus/event_source/devices/cpu", &st) != 0 &&
                 stat("/sys/bus/event_source/devices/cpu_core", &st) != 0;
    for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++) {
        char reason[LAT_PERF_REASON_MAX];
        int rc = lat_perf_probe(hw[i], NULL, reason, sizeof reason);
        printf("%-24s %s\n", hw[i], rc ? reason : "opens");
        if (rc) {
            assert_true(known_reason(reason));
            if (no_pmu && rc == LAT_ENOPMU)
                assert_string_equal(reason,
                                    "not supported on this machine (no hardware PMU; virtual "
                                    "machine?)");
        }
    }
    /* One set with everything: no event reads a silent 0. */
    lat_perf *p;
    assert_int_equal(lat_perf_create(&p,
                                     "cycles,instructions,branches,branch-misses,cache-references,"
                                     "cache-misses,LLC-load-misses,L1-dcache-load-misses,"
                                     "stalled-cycles-frontend,stalled-cycles-backend,task-clock,"
                                     "context-switches,cpu-migrations,page-faults,minor-faults,"
                                     "major-faults",
                                     NULL),
                     0);
    lat_perf_count c[LAT_PERF_MAX_EVENTS];
    lat_perf_start(p);
    volatile uint64_t x = 0;
    for (int i = 0; i < 100000; i++)
        x += i;
    lat_perf_stop(p);
    int n = lat_perf_read(p, c, LAT_PERF_MAX_EVENTS);
    assert_int_equal(n, 16);
    for (int i = 0; i < n; i++) {
        if (c[i].state == LAT_PERF_UNAVAILABLE) {
            assert_true(lat_perf_error(p, (size_t)i) != 0);
            assert_true(known_reason(lat_perf_reason(p, (size_t)i)));
        } else if (c[i].state == LAT_PERF_NOT_COUNTED) {
            assert_int_equal(c[i].running_ns, 0);
        } else {
            assert_int_equal(lat_perf_error(p, (size_t)i), 0);
        }
        if (lat_perf_is_hardware(p, (size_t)i) && no_pmu)
            assert_int_equal(c[i].state, LAT_PERF_UNAVAILABLE);
    }
    assert_true(c[10].value > 0); /* task-clock */
    lat_perf_destroy(p);
}

/* ---- fake sysfs ---------------------------------------------------------------- */

static void put(const char *root, const char *rel, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(path, 0755);
            *s = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *fake_sysfs(void) {
    static char root[2048];
    if (root[0]) return root;
    snprintf(root, sizeof root, "%s/sys", lat_test_tmpdir());
    const char *d = "bus/event_source/devices/";
    char rel[256];
#define PUT(file, text) (snprintf(rel, sizeof rel, "%s%s", d, file), put(root, rel, text))
    PUT("cpu/type", "4\n");
    PUT("cpu/format/event", "config:0-7\n");
    PUT("cpu/format/umask", "config:8-15\n");
    PUT("cpu/format/edge", "config:18\n");
    PUT("cpu/format/inv", "config:23\n");
    PUT("cpu/format/cmask", "config:24-31\n");
    PUT("cpu/format/ldlat", "config1:0-15\n");
    PUT("cpu/format/split", "config:32-35,40-43\n");
    PUT("cpu/format/broken", "nonsense\n");
    PUT("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
    PUT("uncore_imc/type", "17\n");
    PUT("uncore_imc/format/event", "config:0-7\n");
#undef PUT
    return root;
}

static void test_pmu_parser(void **state) {
    (void)state;
    const char *root = fake_sysfs();
    struct perf_event_attr a;
    char err[256];
    assert_int_equal(lat_perf_parse_event("cpu/event=0x3c,umask=0x01/", root, &a, err, sizeof err),
                     0);
    assert_int_equal(a.type, 4);
    assert_true(a.config == 0x13c);
    assert_int_equal(
        lat_perf_parse_event("cpu/event=0x3c,inv,cmask=2,edge/", root, &a, err, sizeof err), 0);
    assert_true(a.config == (0x3cull | 1ull << 23 | 2ull << 24 | 1ull << 18));
    assert_int_equal(lat_perf_parse_event("cpu/mem-loads/", root, &a, err, sizeof err), 0);
    assert_true(a.config == 0x1cd && a.config1 == 3);
    assert_int_equal(lat_perf_parse_event("cpu/split=0xab/", root, &a, err, sizeof err), 0);
    assert_true(a.config == (0xbull << 32 | 0xaull << 40));
    assert_int_equal(
        lat_perf_parse_event("cpu/config=0x1234,config1=7/:u", root, &a, err, sizeof err), 0);
    assert_true(a.config == 0x1234 && a.config1 == 7 && a.exclude_kernel && !a.exclude_user);
    assert_int_equal(lat_perf_parse_event("uncore_imc/event=0x4/", root, &a, err, sizeof err), 0);
    assert_int_equal(a.type, 17);
    /* errors name the problem */
    assert_int_equal(lat_perf_parse_event("cpu/event=0x1ff/", root, &a, err, sizeof err),
                     LAT_EFORMAT);
    assert_non_null(strstr(err, "does not fit"));
    assert_int_equal(lat_perf_parse_event("cpu/bogus=1/", root, &a, err, sizeof err), LAT_EFORMAT);
    assert_non_null(strstr(err, "bogus"));
    assert_int_equal(lat_perf_parse_event("cpu/broken=1/", root, &a, err, sizeof err), LAT_EFORMAT);
    assert_int_equal(lat_perf_parse_event("nopmu/event=1/", root, &a, err, sizeof err), -ENOENT);
    assert_non_null(strstr(err, "nopmu"));
    assert_int_equal(lat_perf_parse_event("cpu/event=0x3c", root, &a, err, sizeof err),
                     LAT_EFORMAT);
    assert_int_equal(lat_perf_parse_event("cpu/event=zz/", root, &a, err, sizeof err), LAT_EFORMAT);
    assert_int_equal(lat_perf_parse_event("cpu/event=-1/", root, &a, err, sizeof err), LAT_EFORMAT);
    assert_int_equal(lat_perf_parse_event("../x/event=1/", root, &a, err, sizeof err), LAT_EFORMAT);
    /* named, raw, modifiers */
    assert_int_equal(lat_perf_parse_event("r1a2", root, &a, err, sizeof err), 0);
    assert_true(a.type == PERF_TYPE_RAW && a.config == 0x1a2);
    assert_int_equal(lat_perf_parse_event("cycles:k", root, &a, err, sizeof err), 0);
    assert_true(a.type == PERF_TYPE_HARDWARE && a.exclude_user && !a.exclude_kernel);
    assert_int_equal(lat_perf_parse_event("LLC-load-misses", root, &a, err, sizeof err), 0);
    assert_true(a.type == PERF_TYPE_HW_CACHE &&
                a.config == (PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
                             PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
    assert_int_equal(lat_perf_parse_event("cycles:x", root, &a, err, sizeof err), LAT_EFORMAT);
    /* libpfm4 names when the library was there at build time */
    int rc = lat_perf_parse_event("PERF_COUNT_SW_CPU_CLOCK", root, &a, err, sizeof err);
    printf("libpfm name PERF_COUNT_SW_CPU_CLOCK: %s\n", rc ? err : "resolved");
    if (rc == 0)
        assert_true(a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_CPU_CLOCK);
    else
        assert_int_equal(rc, LAT_EFORMAT);
    assert_int_equal(lat_perf_parse_event("cyclez", root, &a, err, sizeof err), LAT_EFORMAT);
    assert_non_null(strstr(err, "unknown event 'cyclez'"));

    /* a list: commas inside pmu/.../ do not split */
    lat_perf *p;
    lat_perf_opts o = {.sysfs_root = root, .err = err, .err_len = sizeof err};
    assert_int_equal(lat_perf_create(&p, "cpu/event=0x3c,umask=1/,task-clock", &o), 0);
    assert_int_equal(lat_perf_nevents(p), 2);
    assert_string_equal(lat_perf_name(p, 0), "cpu/event=0x3c,umask=1/");
    assert_string_equal(lat_perf_name(p, 1), "task-clock");
    assert_true(lat_perf_is_hardware(p, 0));
    assert_int_equal(lat_perf_find(p, "task-clock"), 1);
    lat_perf_destroy(p);
    assert_int_equal(lat_perf_create(&p, "task-clock,,cycles", &o), LAT_EFORMAT);
    assert_int_equal(lat_perf_create(&p, "task-clock,", &o), LAT_EFORMAT);
    assert_int_equal(lat_perf_create(&p, "bogus-event", &o), LAT_EFORMAT);
    assert_non_null(strstr(err, "bogus-event"));
    lat_perf_destroy(NULL);
}

static void test_region_no_alloc(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) {
        LAT_SKIP("counting allocator unavailable in this build (sanitizer)");
        return;
    }
    lat_perf *p;
    assert_int_equal(lat_perf_create(&p, "task-clock,page-faults,context-switches,cycles", NULL),
                     0);
    lat_perf_count c[4];
    lat_alloc_count_begin();
    for (int i = 0; i < 100; i++) {
        lat_perf_start(p);
        lat_perf_stop(p);
        lat_perf_read(p, c, 4);
    }
    uint64_t n = lat_alloc_count_end();
    assert_int_equal(n, 0);
    lat_perf_destroy(p);
}

static void test_totals_and_derive(void **state) {
    (void)state;
    lat_perf *p;
    assert_int_equal(lat_perf_create(&p, "task-clock,page-faults", NULL), 0);
    lat_perf_count a[2], b[2], t[2];
    for (int r = 0; r < 2; r++) {
        lat_perf_start(p);
        volatile uint64_t x = 0;
        for (int i = 0; i < 200000; i++)
            x += i;
        lat_perf_stop(p);
        assert_int_equal(lat_perf_read(p, r ? b : a, 2), 2);
    }
    assert_int_equal(lat_perf_total(p, t, 2), 2);
    assert_true(t[0].value == a[0].value + b[0].value);
    assert_true(t[1].value == a[1].value + b[1].value);
    lat_perf_derived d;
    assert_int_equal(lat_perf_derive(p, t, 2, 1000, &d), 0);
    assert_true(isnan(d.ipc)); /* no cycles in the set */
    assert_true(!isnan(d.page_faults_per_op));
    assert_true(fabs(d.page_faults_per_op - (double)t[1].value / 1000.0) < 1e-9);
    assert_true(d.cpu_utilization > 0);
    lat_perf_destroy(p);

    /* derived from made-up counts */
    assert_int_equal(
        lat_perf_create(&p, "cycles,instructions,branches,branch-misses,cache-misses", NULL), 0);
    lat_perf_count f[5] = {
        {.value = 1000, .scaled = 1000, .state = LAT_PERF_COUNTED},
        {.value = 2500, .scaled = 2500, .state = LAT_PERF_COUNTED},
        {.value = 400, .scaled = 400, .state = LAT_PERF_COUNTED},
        {.value = 4, .scaled = 4, .state = LAT_PERF_SCALED},
        {.value = 0, .scaled = 0, .state = LAT_PERF_UNAVAILABLE},
    };
    assert_int_equal(lat_perf_derive(p, f, 5, 10, &d), 0);
    if (lat_perf_find(p, "cycles") == 0) {
        assert_true(fabs(d.ipc - 2.5) < 1e-9);
        assert_true(fabs(d.branch_miss_pct - 1.0) < 1e-9);
        assert_true(isnan(d.cache_misses_per_op));
    }
    lat_perf_destroy(p);
}

static void test_inherit_child(void **state) {
    (void)state;
    lat_perf *p;
    lat_perf_opts o = {.inherit = true};
    assert_int_equal(lat_perf_create(&p, "page-faults,task-clock", &o), 0);
    lat_perf_start(p);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        long pg = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 512 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        for (int i = 0; i < 512; i++)
            m[(size_t)i * (size_t)pg] = 1;
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    lat_perf_stop(p);
    lat_perf_count c[2];
    assert_int_equal(lat_perf_read(p, c, 2), 2);
    printf("inherit: page-faults %llu (%s)\n", (unsigned long long)c[0].value,
           lat_perf_state_name(c[0].state));
    assert_true(counts(&c[0]));
    assert_true(c[0].value >= 512);
    lat_perf_destroy(p);
}

/* As nobody with perf_event_paranoid >= 2: kernel events refused, software
 * events user-only, switches from getrusage, migrations explained. */
static void test_unprivileged(void **state) {
    (void)state;
    if (!lat_test_is_root()) {
        LAT_SKIP("needs root to drop to nobody");
        return;
    }
    int par = lat_perf_paranoid();
    if (par < 2) {
        LAT_SKIP("perf_event_paranoid=%d lets unprivileged users count the kernel", par);
        return;
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)) _exit(90);
        lat_perf *p;
        if (lat_perf_create(&p, "task-clock,context-switches,cpu-migrations,page-faults,cycles",
                            NULL))
            _exit(91);
        const char *r0 = lat_perf_reason(p, 0), *r1 = lat_perf_reason(p, 1),
                   *r2 = lat_perf_reason(p, 2), *r4 = lat_perf_reason(p, 4);
        if (lat_perf_error(p, 0) || !r0 || strncmp(r0, "user space only:", 16)) _exit(92);
        if (lat_perf_error(p, 1) || !r1 || !strstr(r1, "getrusage")) _exit(93);
        if (!lat_perf_error(p, 2) || !r2 || strncmp(r2, "not permitted: perf_event_paranoid=", 35))
            _exit(94);
        if (!lat_perf_error(p, 4) || !known_reason(r4)) _exit(95);
        lat_perf_count c[5];
        lat_perf_start(p);
        for (int i = 0; i < 3; i++) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        lat_perf_stop(p);
        lat_perf_read(p, c, 5);
        if (c[1].state != LAT_PERF_FALLBACK || c[1].value < 3) _exit(96);
        if (c[2].state != LAT_PERF_UNAVAILABLE) _exit(97);
        if (c[0].state != LAT_PERF_COUNTED || c[0].value == 0) _exit(98);
        printf("as nobody: task-clock: %s\n  context-switches %llu: %s\n  cpu-migrations: %s\n"
               "  cycles: %s\n",
               r0, (unsigned long long)c[1].value, r1, r2, r4);
        fflush(stdout);
        lat_perf_destroy(p);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_faults),       cmocka_unit_test(test_task_clock),
        cmocka_unit_test(test_context_switches),  cmocka_unit_test(test_hardware_reasons),
        cmocka_unit_test(test_pmu_parser),        cmocka_unit_test(test_region_no_alloc),
        cmocka_unit_test(test_totals_and_derive), cmocka_unit_test(test_inherit_child),
        cmocka_unit_test(test_unprivileged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
