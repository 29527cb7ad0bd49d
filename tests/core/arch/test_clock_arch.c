/* test_clock_arch.c - the clock's architecture-specific code, in plain C (no
 * cmocka) so it cross-compiles static and runs under qemu-user.  `make aarch64`
 * builds it with src/clock.c and src/error.c for aarch64 and runs it under
 * qemu-aarch64; it also builds and runs natively.
 *
 * Checks: unfenced and fenced reads advance; on aarch64 cntfrq_el0 is nonzero
 * and the measured rate agrees with it (generously: emulation is slow and
 * noisy); conversion is exact on large values; the barrier keeps values. */
#include "latlab/clock.h"
#include "latlab/compiler.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static void reads_advance(void) {
    uint64_t a = lat_cycles();
    uint64_t t0 = lat_mono_raw_ns();
    while (lat_mono_raw_ns() - t0 < 2000000) { /* 2 ms */
    }
    uint64_t b = lat_cycles();
    CHECK(b > a, "unfenced read did not advance over 2 ms (%llu -> %llu)", (unsigned long long)a,
          (unsigned long long)b);
    uint64_t f0 = lat_cycles_fenced(), prev = f0, backwards = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t f = lat_cycles_fenced();
        backwards += f < prev;
        prev = f;
    }
    CHECK(backwards == 0, "fenced reads went backwards %llu times", (unsigned long long)backwards);
    CHECK(prev > f0, "fenced reads did not advance");
    uint64_t g = lat_clock_granularity_cycles(1000);
    CHECK(g >= 1, "granularity %llu", (unsigned long long)g);
    printf("reads advance; granularity %llu ticks\n", (unsigned long long)g);
}

static void calibration(void) {
    lat_clock_cal c;
    int rc = lat_clock_calibrate(&c, 100000000ull, 16);
    CHECK(rc == 0, "calibrate returned %d", rc);
    if (rc) return;
    CHECK(c.cycles_per_ns > 0, "ratio %g", c.cycles_per_ns);
#if defined(__aarch64__)
    uint64_t hz = lat_counter_hz();
    CHECK(hz > 0, "cntfrq_el0 is zero");
    CHECK(c.counter_hz == hz, "calibration did not record cntfrq_el0");
    /* Under qemu the virtual counter runs at cntfrq in host time; allow 2%. */
    CHECK(fabs(c.counter_hz_diff_ppm) < 20000.0,
          "measured %.0f Hz vs cntfrq_el0 %llu Hz (%+.0f ppm)", c.cycles_per_ns * 1e9,
          (unsigned long long)hz, c.counter_hz_diff_ppm);
    CHECK(lat_clock_invariant() == -1, "aarch64 must report invariance unknown");
    printf("cntfrq_el0 %llu Hz, measured %.1f Hz (%+.1f ppm), bracket %llu ticks\n",
           (unsigned long long)hz, c.cycles_per_ns * 1e9, c.counter_hz_diff_ppm,
           (unsigned long long)c.bracket_cycles);
#else
    CHECK(lat_counter_hz() == 0, "counter_hz on x86 must be 0");
    printf("calibration %.4f cycles/ns, bracket %llu cycles\n", c.cycles_per_ns,
           (unsigned long long)c.bracket_cycles);
#endif
    lat_clock_drift_result d;
    rc = lat_clock_drift(&c, CLOCK_MONOTONIC_RAW, 50000000ull, &d);
    CHECK(rc == 0, "drift returned %d", rc);
    CHECK(rc != 0 || fabs(d.drift_ppm) < 20000.0, "drift %+.1f ppm", d.drift_ppm);
}

static void conversion_exact(void) {
    /* a 24 MHz-like counter (0.024 ticks/ns) and a 2.6 GHz-like one */
    uint64_t ratios[][2] = {{1000000007ull, 24000001ull}, {200000017ull, 519200123ull}, {1, 1}};
    for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
        lat_clock_cal c;
        CHECK(lat_clock_cal_from_ratio(&c, ratios[r][0], ratios[r][1]) == 0, "from_ratio");
        uint64_t x = 88172645463325252ull;
        for (int i = 0; i < 200000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t v = i < 64 ? (1ull << (i % 50)) + (uint64_t)i : x % 1000000000000001ull;
            unsigned __int128 exact = (unsigned __int128)v * c.span_ns / c.span_cycles;
            if (exact > UINT64_MAX) continue;
            uint64_t got = lat_clock_to_ns(&c, v);
            if (got != (uint64_t)exact) {
                CHECK(0, "ratio %zu: %llu cycles -> %llu ns, exact %llu", r, (unsigned long long)v,
                      (unsigned long long)got, (unsigned long long)exact);
                break;
            }
        }
        uint64_t big = 1000000000000000ull;
        unsigned __int128 exact = (unsigned __int128)big * c.span_ns / c.span_cycles;
        if (exact <= UINT64_MAX)
            CHECK(lat_clock_to_ns(&c, big) == (uint64_t)exact, "10^15 not exact");
        uint64_t ns = 123456789012ull;
        CHECK(lat_clock_to_ns(&c, lat_clock_from_ns(&c, ns)) <= ns, "inverse overshoots");
    }
    printf("conversion exact\n");
}

static LAT_NOINLINE double half(int i) {
    return (double)i / 2.0;
}

static void barrier(void) {
    for (int i = 0; i < 100; i++) {
        int iv = i - 50, *p = &iv;
        double d = half(i), d0 = d;
        float f = (float)i / 3.0f, f0 = f;
        struct {
            int a;
            double b;
        } s = {i, d}, s0 = s;
        lat_do_not_optimize(iv);
        lat_do_not_optimize(p);
        lat_do_not_optimize(d);
        lat_do_not_optimize(f);
        lat_do_not_optimize(s);
        lat_clobber_memory();
        CHECK(iv == i - 50 && p == &iv && d == d0 && f == f0 && memcmp(&s, &s0, sizeof s) == 0,
              "barrier changed a value at i=%d", i);
    }
    printf("barrier keeps values\n");
}

int main(void) {
    reads_advance();
    calibration();
    conversion_exact();
    barrier();
    if (failures) {
        printf("test_clock_arch: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_clock_arch: all checks passed\n");
    return 0;
}
