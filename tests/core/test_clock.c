/* test_clock.c - cycle reads, calibration, exact conversion, barriers. */
#include "lat_test.h"

#include "latlab/clock.h"
#include "latlab/compiler.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_reads_advance(void **state) {
    (void)state;
    uint64_t a = lat_cycles(), b = lat_cycles_fenced();
    assert_true(b >= a);
}

static void test_conversion_exact(void **state) {
    (void)state;
    lat_clock_cal c;
    /* 2.596 cycles/ns-ish odd ratio */
    assert_int_equal(lat_clock_cal_from_ratio(&c, 200000017ull, 519200123ull), 0);
    uint64_t vals[] = {0,
                       1,
                       2,
                       3,
                       1000,
                       123456789,
                       1000000000000000ull,
                       999999999999999ull,
                       4000000000000000ull,
                       18446744073709551ull};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        unsigned __int128 exact = (unsigned __int128)vals[i] * c.span_ns / c.span_cycles;
        assert_true(lat_clock_to_ns(&c, vals[i]) == (uint64_t)exact);
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = x % 1000000000000001ull;
        unsigned __int128 exact = (unsigned __int128)v * c.span_ns / c.span_cycles;
        assert_true(lat_clock_to_ns(&c, v) == (uint64_t)exact);
    }
}

static void test_calibration_vs_raw(void **state) {
    (void)state;
    lat_clock_cal c;
    assert_int_equal(lat_clock_calibrate(&c, 200000000ull, 32), 0);
    assert_true(c.cycles_per_ns > 0.001);
    assert_true(c.error_ppm >= 0 && c.bracket_cycles > 0);
    /* check over 1 s against CLOCK_MONOTONIC_RAW (tightest brackets at both
     * ends): within 50 ppm, plus the check's own bracket noise */
    lat_clock_drift_result d;
    assert_int_equal(lat_clock_drift(&c, CLOCK_MONOTONIC_RAW, 1000000000ull, &d), 0);
    assert_true(d.os_ns >= 1000000000ull);
    printf("calibration %.5f cycles/ns (error %.3f ppm), 1 s check off by %+.3f ppm (noise %.3f "
           "ppm)\n",
           c.cycles_per_ns, c.error_ppm, d.drift_ppm, d.error_ppm);
    assert_true(fabs(d.drift_ppm) < 50.0 + d.error_ppm);
}

static void test_inverse_and_errors(void **state) {
    (void)state;
    lat_clock_cal c;
    assert_int_equal(lat_clock_cal_from_ratio(&c, 200000017ull, 519200123ull), 0);
    /* ns -> cycles -> ns never gains, and loses under one cycle's worth */
    for (uint64_t ns = 1; ns < 1000000000000000ull; ns = ns * 7 + 3) {
        uint64_t cyc = lat_clock_from_ns(&c, ns);
        uint64_t back = lat_clock_to_ns(&c, cyc);
        assert_true(back <= ns);
        assert_true(ns - back <= 1);
    }
    assert_int_equal(lat_clock_cal_from_ratio(&c, 0, 5), -EINVAL);
    assert_int_equal(lat_clock_cal_from_ratio(&c, 5, 0), -EINVAL);
    assert_int_equal(lat_clock_cal_from_ratio(NULL, 5, 5), -EINVAL);
    assert_int_equal(lat_clock_calibrate(NULL, 0, 0), -EINVAL);
    assert_int_equal(lat_clock_calibrate(&c, 999999, 0), -EINVAL);
    lat_clock_drift_result d;
    assert_int_equal(lat_clock_drift(NULL, CLOCK_MONOTONIC, 10000000, &d), -EINVAL);
    assert_int_equal(lat_clock_cal_from_ratio(&c, 1, 1), 0);
    assert_int_equal(lat_clock_drift(&c, CLOCK_MONOTONIC, 10, &d), -EINVAL);
    assert_int_equal(lat_clock_drift(&c, (clockid_t)12345, 10000000, &d), -EINVAL);
}

/* The step finder on synthetic pair differences with known answers. */
static void test_step_of(void **state) {
    (void)state;
    enum { N = 2000 };
    static uint64_t d[N];
    uint32_t x = 12345;
    /* an AMD-like guest: the counter advances 26 at a time, reads inside one
     * step differ by 1, a few pairs caught an interrupt */
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        uint64_t m = (x >> 8) % 7;
        d[i] = (x >> 4) % 13 == 0 ? 1 : 26 * (m + 1) + ((x >> 12) & 1);
        if (i % 500 == 7) d[i] = 90000 + (uint64_t)i;
    }
    assert_int_equal(lat_clock_step_of(d, N), 26);
    /* a cycle-resolving counter: differences spread over every value */
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = 24 + (x >> 8) % 160;
    }
    assert_int_equal(lat_clock_step_of(d, N), 1);
    /* a coarse 1 us step on a 1 GHz counter */
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = 1000 * ((x >> 8) % 3);
    }
    assert_int_equal(lat_clock_step_of(d, N), 1000);
    /* every pair the same: nothing to tell, 1 */
    for (int i = 0; i < N; i++)
        d[i] = 40;
    assert_int_equal(lat_clock_step_of(d, N), 1);
    /* this machine's counter, as measured */
    uint64_t g = lat_clock_granularity_cycles(4000);
    printf("this counter's step: %llu ticks\n", (unsigned long long)g);
    assert_true(g >= 1 && g < 100000);
}

static void test_drift_default_granularity(void **state) {
    (void)state;
    const lat_clock_cal *c = lat_clock_default();
    assert_non_null(c);
    assert_ptr_equal(c, lat_clock_default());
    assert_true(c->cycles_per_ns > 0.001);
    assert_true(c->window_ns == LAT_CLOCK_DEFAULT_WINDOW_NS);
    lat_clock_drift_result d;
    assert_int_equal(lat_clock_drift(c, CLOCK_MONOTONIC_RAW, 50000000ull, &d), 0);
    assert_true(d.os_ns >= 50000000ull);
    printf("drift vs MONOTONIC_RAW over 50 ms: %+.3f ppm (noise %.3f ppm)\n", d.drift_ppm,
           d.error_ppm);
    assert_true(fabs(d.drift_ppm) <
                200.0 + 2 * d.error_ppm); /* generous: shared machine, short window */
    uint64_t g = lat_clock_granularity_cycles(1000);
    assert_true(g >= 1 && g < 100000);
    int inv = lat_clock_invariant();
    assert_true(inv == -1 || inv == 0 || inv == 1);
#if defined(__x86_64__)
    assert_int_not_equal(inv, -1);
    assert_int_equal(lat_counter_hz(), 0);
#endif
}

/* Hot paths allocate nothing: reads and conversions under the counting allocator. */
static void test_hot_path_no_alloc(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable under sanitizers");
    lat_clock_cal c;
    lat_clock_cal_from_ratio(&c, 200000017ull, 519200123ull);
    uint64_t sum = 0;
    lat_alloc_count_begin();
    for (int i = 0; i < 1000; i++) {
        sum += lat_cycles() + lat_cycles_fenced();
        sum += lat_clock_to_ns(&c, (uint64_t)i * 1000003u) + lat_clock_from_ns(&c, (uint64_t)i);
    }
    assert_int_equal(lat_alloc_count_end(), 0);
    lat_do_not_optimize(sum);
}

/* The barrier keeps every kind of value intact (gcc 12's "+m,r" bug returned
 * wrong doubles) and forces the computation to happen. */
typedef struct pt {
    double x;
    int id;
    char tag[12];
} pt;
typedef struct small {
    int a, b;
} small;

static LAT_NOINLINE double make_double(int i) {
    return 1.0 / (i + 3);
}

static void test_barrier_values(void **state) {
    (void)state;
    for (int i = 0; i < 1000; i++) {
        int iv = i * 7 - 300;
        long long ll = (long long)i << 40;
        unsigned char uc = (unsigned char)i;
        int *ptr = &iv;
        const char *cptr = "latlab";
        float fv = (float)i * 0.25f + 0.1f;
        double dv = make_double(i) * 3.5;
        long double ldv = (long double)dv * 2.0L;
        pt s = {dv, i, "tag"};
        small sm = {i, -i};

        int iv0 = iv;
        long long ll0 = ll;
        unsigned char uc0 = uc;
        float fv0 = fv;
        double dv0 = dv;
        long double ldv0 = ldv;
        pt s0 = s;
        small sm0 = sm;

        lat_do_not_optimize(iv);
        lat_do_not_optimize(ll);
        lat_do_not_optimize(uc);
        lat_do_not_optimize(ptr);
        lat_do_not_optimize(cptr);
        lat_do_not_optimize(fv);
        lat_do_not_optimize(dv);
        lat_do_not_optimize(ldv);
        lat_do_not_optimize(s);
        lat_do_not_optimize(sm);
        lat_clobber_memory();

        assert_int_equal(iv, iv0);
        assert_true(ll == ll0);
        assert_int_equal(uc, uc0);
        assert_ptr_equal(ptr, &iv);
        assert_string_equal(cptr, "latlab");
        assert_true(fv == fv0);
        assert_true(dv == dv0);
        assert_true(ldv == ldv0);
        assert_true(memcmp(&s, &s0, sizeof s) == 0);
        assert_true(sm.a == sm0.a && sm.b == sm0.b);
        /* arithmetic on the results still sees the original values */
        double twice = dv + dv;
        lat_do_not_optimize(twice);
        assert_true(twice == 2 * dv0);
    }
}

/* A runner's anchor: a child given a good one measures its ratio from the
 * anchor (a window of seconds, no 200 ms wait) and agrees with its own
 * calibration; one from elsewhere (cycles halved: another machine's ratio) or
 * malformed is refused, and the child calibrates itself over 200 ms.  Each
 * case in a fresh process (this test run with --calibrate): the default
 * calibration is made once per process. */
static int child_span(const char *anchor, uint64_t *span, double *cpn, double *ms) {
    if (anchor)
        setenv(LAT_CLOCK_ENV_ANCHOR, anchor, 1);
    else
        unsetenv(LAT_CLOCK_ENV_ANCHOR);
    char self[4096], cmd[4200];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return -1;
    self[len] = 0;
    snprintf(cmd, sizeof cmd, "'%s' --calibrate", self);
    FILE *f = popen(cmd, "r");
    unsetenv(LAT_CLOCK_ENV_ANCHOR);
    if (!f) return -1;
    unsigned long long sp = 0;
    int n = fscanf(f, "%llu %lf %lf", &sp, cpn, ms);
    if (pclose(f) != 0 || n != 3) return -1;
    *span = sp;
    return 0;
}

/* The child of test_anchor: its default calibration, and how long it took. */
static int calibrate_child(void) {
    uint64_t t0 = lat_mono_ns();
    const lat_clock_cal *c = lat_clock_default();
    printf("%llu %.9f %.3f\n", (unsigned long long)c->span_ns, c->cycles_per_ns,
           (double)(lat_mono_ns() - t0) / 1e6);
    return 0;
}

static void test_anchor(void **state) {
    (void)state;
    char a[64], small[4];
    assert_int_equal(lat_clock_anchor(small, sizeof small), -ENOSPC);
    assert_int_equal(lat_clock_anchor(a, sizeof a), 0);
    struct timespec ts = {0, 400000000};
    nanosleep(&ts, NULL);
    uint64_t span;
    double cpn, ms, own_cpn, own_ms;
    assert_int_equal(child_span(NULL, &span, &own_cpn, &own_ms), 0);
    assert_int_equal(span / 1000000, LAT_CLOCK_DEFAULT_WINDOW_NS / 1000000);
    assert_int_equal(child_span(a, &span, &cpn, &ms), 0);
    assert_true(span > 400000000ull);            /* from the anchor, not a window of its own */
    assert_true(ms < own_ms);                    /* no 200 ms wait */
    assert_true(fabs(cpn / own_cpn - 1) < 1e-4); /* and the same ratio */
    unsigned long long c0, n0, w0;
    assert_int_equal(sscanf(a, "%llu:%llu:%llu", &c0, &n0, &w0), 3);
    char foreign[80];
    snprintf(foreign, sizeof foreign, "%llu:%llu:%llu", c0 / 2, n0, w0);
    assert_int_equal(child_span(foreign, &span, &cpn, &ms), 0);
    assert_int_equal(span / 1000000, LAT_CLOCK_DEFAULT_WINDOW_NS / 1000000);
    assert_int_equal(child_span("12:34", &span, &cpn, &ms), 0);
    assert_int_equal(span / 1000000, LAT_CLOCK_DEFAULT_WINDOW_NS / 1000000);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--calibrate") == 0) return calibrate_child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_advance),
        cmocka_unit_test(test_conversion_exact),
        cmocka_unit_test(test_calibration_vs_raw),
        cmocka_unit_test(test_inverse_and_errors),
        cmocka_unit_test(test_drift_default_granularity),
        cmocka_unit_test(test_step_of),
        cmocka_unit_test(test_hot_path_no_alloc),
        cmocka_unit_test(test_barrier_values),
        cmocka_unit_test(test_anchor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
