/* bench_clock.c - what the library's cycle reads cost next to the same
 * instructions written as raw inline asm here (the ratio must be ~1.00: the
 * static inline reads add nothing), and how stable the tightest-bracket
 * calibration is across three runs next to the seed's naive 200 ms spin.
 *
 * Method: reads are timed in blocks of 1000 (an accumulator keeps them
 * live), library and raw blocks interleaved so drift hits both alike; the
 * figure is the median block over BLOCKS, per read.  Pinned to the CPU it
 * starts on.  Prints figures only; never fails on them.
 *
 * usage: bench_clock [blocks]   (default 2000) */
#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/stats.h"
#include "latlab/topo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PER_BLOCK 1000

/* The peer: the same reads, written directly. */
static inline __attribute__((always_inline)) uint64_t raw_read(void) {
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#endif
}
static inline __attribute__((always_inline)) uint64_t raw_read_fenced(void) {
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
#else
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
#endif
}

#define BLOCK(read_expr)                                                                           \
    do {                                                                                           \
        uint64_t acc = 0, t0 = lat_cycles_fenced();                                                \
        for (int k = 0; k < PER_BLOCK; k++)                                                        \
            acc += (read_expr);                                                                    \
        lat_do_not_optimize(acc);                                                                  \
        out = lat_cycles_fenced() - t0;                                                            \
    } while (0)

/* One out-of-line function per way of reading: each block runs alone. */
#define BLOCK_FN(name, read_expr)                                                                  \
    static LAT_NOINLINE uint64_t name(void) {                                                      \
        uint64_t out;                                                                              \
        BLOCK(read_expr);                                                                          \
        return out;                                                                                \
    }
BLOCK_FN(block_lib, lat_cycles())
BLOCK_FN(block_raw, raw_read())
BLOCK_FN(block_lib_fenced, lat_cycles_fenced())
BLOCK_FN(block_raw_fenced, raw_read_fenced())

static double median_per_read_ns(uint64_t *v, size_t n, const lat_clock_cal *c) {
    return (double)lat_clock_to_ns(c, lat_stats_median_high_u64(v, n) * 1000) / 1000.0 / PER_BLOCK;
}

/* The seed's method: one counter read, spin 200 ms on the OS clock, one read. */
static double naive_calibrate(uint64_t window_ns) {
    uint64_t t0 = lat_mono_ns(), c0 = lat_cycles(), t;
    while ((t = lat_mono_ns()) - t0 < window_ns)
        lat_cpu_relax();
    uint64_t c1 = lat_cycles();
    return (double)(c1 - c0) / (double)(lat_mono_ns() - t0);
}

int main(int argc, char **argv) {
    size_t blocks = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
    if (blocks < 10) blocks = 10;
    int cpu = lat_current_cpu();
    int pinned = cpu >= 0 && lat_pin_thread(cpu) == 0;
    const lat_clock_cal *cal = lat_clock_default();
    uint64_t *v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = malloc(blocks * sizeof *v[i]);
        if (!v[i]) return 1;
    }
    for (int w = 0; w < 50; w++)
        block_lib(), block_raw(), block_lib_fenced(), block_raw_fenced();
    for (size_t i = 0; i < blocks; i++) {
        /* alternate the order so neither side always runs second */
        if (i & 1) {
            v[0][i] = block_lib();
            v[1][i] = block_raw();
            v[2][i] = block_lib_fenced();
            v[3][i] = block_raw_fenced();
        } else {
            v[1][i] = block_raw();
            v[0][i] = block_lib();
            v[3][i] = block_raw_fenced();
            v[2][i] = block_lib_fenced();
        }
    }
    double lib = median_per_read_ns(v[0], blocks, cal), raw = median_per_read_ns(v[1], blocks, cal);
    double libf = median_per_read_ns(v[2], blocks, cal),
           rawf = median_per_read_ns(v[3], blocks, cal);
    printf("bench_clock: %zu blocks of %d reads, %s, %.4f cycles/ns\n", blocks, PER_BLOCK,
           pinned ? "pinned" : "not pinned", cal->cycles_per_ns);
    printf("%-28s %12s %12s %8s\n", "read (median per read)", "latlab ns", "raw asm ns", "ratio");
    printf("%-28s %12.2f %12.2f %8.3f\n", "unfenced", lib, raw, lib / raw);
    printf("%-28s %12.2f %12.2f %8.3f\n", "fenced", libf, rawf, libf / rawf);

    double tight[3], naive[3], ms[3], err[3];
    for (int i = 0; i < 3; i++) {
        lat_clock_cal c;
        if (lat_clock_calibrate(&c, 0, 32) != 0) return 1;
        tight[i] = c.cycles_per_ns;
        ms[i] = (double)c.elapsed_ns / 1e6;
        err[i] = c.error_ppm;
        naive[i] = naive_calibrate(LAT_CLOCK_DEFAULT_WINDOW_NS);
    }
    printf("\n%-28s %12s %12s %12s %14s\n", "calibration (200 ms x3)", "run 1", "run 2", "run 3",
           "spread ppm");
    printf("%-28s %12.6f %12.6f %12.6f %14.3f\n", "tightest of 32 brackets", tight[0], tight[1],
           tight[2], lat_stats_range_ppm(tight, 3));
    printf("%-28s %12.6f %12.6f %12.6f %14.3f\n", "naive spin (seed's method)", naive[0], naive[1],
           naive[2], lat_stats_range_ppm(naive, 3));
    printf("calibration time: %.1f / %.1f / %.1f ms; estimated error %.2f / %.2f / %.2f ppm\n",
           ms[0], ms[1], ms[2], err[0], err[1], err[2]);
    for (int i = 0; i < 4; i++)
        free(v[i]);
    if (pinned) lat_unpin_thread(NULL);
    return 0;
}
