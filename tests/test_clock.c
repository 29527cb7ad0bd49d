/* test_clock.c - cycle reads, calibration, exact conversion, barriers. */
#include "lat_test.h"

#include "latlab/clock.h"
#include "latlab/compiler.h"

#include <math.h>

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
    uint64_t vals[] = {0, 1, 2, 3, 1000, 123456789, 1000000000000000ull, 999999999999999ull,
                       4000000000000000ull, 18446744073709551ull};
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
    /* check over 1 s against CLOCK_MONOTONIC_RAW: within 50 ppm */
    uint64_t c0 = lat_cycles_fenced(), t0 = lat_mono_raw_ns();
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
    uint64_t c1 = lat_cycles_fenced(), t1 = lat_mono_raw_ns();
    double predicted = (double)lat_clock_to_ns(&c, c1 - c0);
    double ppm = fabs(predicted - (double)(t1 - t0)) / (double)(t1 - t0) * 1e6;
    printf("calibration %.5f cycles/ns, 1 s check off by %.2f ppm\n", c.cycles_per_ns, ppm);
    assert_true(ppm < 50.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_advance),
        cmocka_unit_test(test_conversion_exact),
        cmocka_unit_test(test_calibration_vs_raw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
