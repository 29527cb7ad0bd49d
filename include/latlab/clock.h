/* clock.h - the cycle counter: reads, calibration against the OS clock, and
 * exact cycles <-> ns conversion.
 *
 * x86_64 reads the TSC (rdtsc; fenced: lfence;rdtsc).  aarch64 reads the
 * virtual counter (mrs cntvct_el0; fenced: isb; mrs cntvct_el0).  Reads are
 * static inline: no call, no syscall, no allocation, safe from any thread.
 * Counter values are only comparable on one machine and, where the counter is
 * not invariant, only on one CPU (lat_clock_invariant() says which). */

/* Calibration takes the tightest of N brackets (fenced read, clock_gettime
 * CLOCK_MONOTONIC_RAW, fenced read) at each end of a window; its error is about
 * the bracket width over the window (~0.2 ppm for 200 ms here).  Conversion
 * uses the calibration's integer ratio ns/cycles exactly (128-bit products),
 * so large values do not drift. */
#ifndef LATLAB_CLOCK_H
#define LATLAB_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "latlab/compiler.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "latlab supports x86_64 (rdtsc) and aarch64 (cntvct_el0) only"
#endif

/* Unfenced read: cheapest; may execute before earlier instructions finish. */
LAT_INLINE uint64_t lat_cycles(void) {
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

/* Fenced read: every earlier instruction completes before the counter is read. */
LAT_INLINE uint64_t lat_cycles_fenced(void) {
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

/* The counter's nominal frequency where the hardware states it (cntfrq_el0 on
 * aarch64), else 0. */
LAT_INLINE uint64_t lat_counter_hz(void) {
#if defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

/* Strict ISO C (-std=c11 with no feature macro) hides the POSIX clocks in
 * <time.h>; clockid_t still comes from <sys/types.h>, and then this header
 * states clock_gettime and Linux's two clock ids itself, so it compiles
 * either way. */
#if defined(CLOCK_MONOTONIC) && defined(CLOCK_MONOTONIC_RAW)
#define LAT__CLOCK_MONOTONIC CLOCK_MONOTONIC
#define LAT__CLOCK_MONOTONIC_RAW CLOCK_MONOTONIC_RAW
#else
int clock_gettime(clockid_t clock_id, struct timespec *tp);
#define LAT__CLOCK_MONOTONIC ((clockid_t)1)
#define LAT__CLOCK_MONOTONIC_RAW ((clockid_t)4)
#endif

/* OS clocks in ns (vDSO, no syscall where the clocksource allows). */
static inline uint64_t lat_clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static inline uint64_t lat_mono_ns(void) {
    return lat_clock_ns(LAT__CLOCK_MONOTONIC);
}
static inline uint64_t lat_mono_raw_ns(void) {
    return lat_clock_ns(LAT__CLOCK_MONOTONIC_RAW);
}

/* A calibration.  Read-only after lat_clock_calibrate(); share freely. */
typedef struct lat_clock_cal {
    double cycles_per_ns;       /* the headline figure (e.g. 2.5961) */
    uint64_t span_cycles;       /* counter ticks across the window (ratio denominator) */
    uint64_t span_ns;           /* CLOCK_MONOTONIC_RAW ns across the window (numerator) */
    uint64_t window_ns;         /* requested window */
    uint64_t bracket_cycles;    /* widest of the two chosen (tightest) brackets */
    double error_ppm;           /* estimated error: bracket half-widths / span */
    uint64_t elapsed_ns;        /* how long calibrating took, wall */
    uint64_t counter_hz;        /* cntfrq_el0 on aarch64, 0 elsewhere */
    double counter_hz_diff_ppm; /* measured vs counter_hz, 0 when counter_hz is 0 */
    /* Fixed-point form of span_ns/span_cycles: ns ~= (cycles * mult) >> shift,
     * corrected to the exact quotient by lat_clock_to_ns(). */
    uint64_t mult;
    unsigned shift;
} lat_clock_cal;

#define LAT_CLOCK_DEFAULT_WINDOW_NS 200000000ull
#define LAT_CLOCK_MIN_BRACKETS 16

/* Calibrate over window_ns (0 = 200 ms) taking the tightest of `brackets`
 * (< 16 means 16) at each end.  Blocks for the window.  Returns 0 or -EINVAL
 * (window < 1 ms) / -EIO (the counter did not advance).  Thread-safe. */
LAT_API int lat_clock_calibrate(lat_clock_cal *out, uint64_t window_ns, unsigned brackets);

/* Build a calibration from a known ratio (tests, replay of a saved run). */
LAT_API int lat_clock_cal_from_ratio(lat_clock_cal *out, uint64_t span_ns, uint64_t span_cycles);

/* A drift check: how far counter time (through calibration c) strays from
 * OS clock id over a window, with tightest brackets at both ends. */
typedef struct lat_clock_drift_result {
    uint64_t os_ns;      /* window length by clock id */
    uint64_t counter_ns; /* the same window by the counter, converted with c */
    double drift_ppm;    /* (counter_ns - os_ns) / os_ns, in ppm; + = counter fast */
    double error_ppm;    /* bracket width / window: drift below this is noise */
} lat_clock_drift_result;

/* Measure drift over window_ns (>= 1 ms; blocks that long).  Against
 * CLOCK_MONOTONIC it shows NTP's slewing; against CLOCK_MONOTONIC_RAW it
 * checks the calibration itself.  Returns 0, -EINVAL (NULL, empty calibration,
 * window < 1 ms), -errno from clock_gettime (bad id) or -EIO (the counter did
 * not advance).  Thread-safe. */
LAT_API int lat_clock_drift(const lat_clock_cal *c, clockid_t id, uint64_t window_ns,
                            lat_clock_drift_result *out);

/* A process-wide calibration made on first use (200 ms, once, thread-safe).
 * Where $LAT_CLOCK_ANCHOR holds a runner's anchor (lat_clock_anchor), the
 * window runs from the runner's bracket to one taken now (at least 200 ms,
 * usually seconds), checked against a 10 ms calibration (within 0.1%, else
 * the 200 ms one): a runner's children then skip the wait, and their windows
 * share one end. */
LAT_API const lat_clock_cal *lat_clock_default(void);

#define LAT_CLOCK_ENV_ANCHOR "LAT_CLOCK_ANCHOR"
/* Write a tightest bracket taken now as "<cycles>:<ns>:<width cycles>" (ns of
 * CLOCK_MONOTONIC_RAW), the value a runner puts in $LAT_CLOCK_ANCHOR for the
 * processes it starts.  Returns 0, -EINVAL or -ENOSPC (buf too small; 64
 * bytes always suffice).  Thread-safe. */
LAT_API int lat_clock_anchor(char *buf, size_t n);

/* cycles -> ns: exactly floor(cycles * span_ns / span_cycles) for every cycles
 * value whose result fits in 64 bits (checked for values up to 10^15 and beyond). */
static inline uint64_t lat_clock_to_ns(const lat_clock_cal *c, uint64_t cycles) {
    unsigned __int128 q = ((unsigned __int128)cycles * c->mult) >> c->shift;
    /* mult is rounded down, so q can be one short of the exact quotient. */
    unsigned __int128 num = (unsigned __int128)cycles * c->span_ns;
    unsigned __int128 r = num - q * c->span_cycles;
    while (r >= c->span_cycles) {
        q++;
        r -= c->span_cycles;
    }
    return (uint64_t)q;
}

/* ns -> cycles (for pacing): floor(ns * span_cycles / span_ns).  Not hot. */
static inline uint64_t lat_clock_from_ns(const lat_clock_cal *c, uint64_t ns) {
    return (uint64_t)(((unsigned __int128)ns * c->span_cycles) / c->span_ns);
}

/* 1: invariant TSC (CPUID 0x80000007 EDX bit 8); 0: not invariant; -1: unknown
 * (other architectures: aarch64's generic timer is constant-rate by spec, but
 * the CPU cannot tell us, so it reports unknown). */
LAT_API int lat_clock_invariant(void);

/* The counter's step, in counter ticks: how far apart the values a duration
 * can take lie.  n pairs of reads (200..4096) around short random delays;
 * their differences are clustered (lat_clock_step_of).  1 on a counter that
 * resolves cycles; 26 on an AMD EPYC guest whose TSC advances every 10 ns
 * (two reads inside one step differ by 1 there, so the smallest difference
 * says nothing about what a duration resolves).  Not the read cost: that is
 * a constant every stamped duration carries, not a resolution. */
LAT_API uint64_t lat_clock_granularity_cycles(unsigned n);

/* The median cost of back-to-back reads: unfenced and fenced counter reads
 * (cycles) and lat_mono_ns (ns), n pairs each with v (n values) as scratch.
 * Run it pinned so every pair is read on one CPU.  Not hot. */
typedef struct lat_clock_read_cost {
    uint64_t unfenced_cycles, fenced_cycles, gettime_ns;
} lat_clock_read_cost;
LAT_API void lat_clock_read_costs(uint64_t *v, size_t n, lat_clock_read_cost *out);
/* The pure part: the median spacing between clusters of the sorted
 * differences d[0..n) (sorted in place); 1 when they spread densely.  For
 * tests. */
LAT_API uint64_t lat_clock_step_of(uint64_t *d, size_t n);

#endif /* LATLAB_CLOCK_H */
