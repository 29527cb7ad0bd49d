/* clock.c - calibration of the cycle counter against CLOCK_MONOTONIC_RAW.
 *
 * Method: at each end of the window take N brackets (fenced read, OS clock,
 * fenced read) and keep the tightest; the OS reading is taken to lie at the
 * bracket's midpoint, so the error at each end is at most half its width.  A
 * single naive pair after a sleep is measurably late (the first clock read
 * after waking pays for the wake-up); brackets remove that. */
#include "latlab/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/stats.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

typedef struct bracket {
    uint64_t mid_cycles;
    uint64_t width_cycles;
    uint64_t ns;
} bracket;

static bracket tightest_bracket(unsigned n, clockid_t id) {
    bracket best = {0, UINT64_MAX, 0};
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = lat_cycles_fenced();
        uint64_t t = lat_clock_ns(id);
        uint64_t b = lat_cycles_fenced();
        if (b < a) continue;
        if (b - a < best.width_cycles) {
            best.width_cycles = b - a;
            best.mid_cycles = a + (b - a) / 2;
            best.ns = t;
        }
    }
    return best;
}

int lat_clock_cal_from_ratio(lat_clock_cal *out, uint64_t span_ns, uint64_t span_cycles) {
    if (!out || span_ns == 0 || span_cycles == 0) return -EINVAL;
    memset(out, 0, sizeof *out);
    out->span_ns = span_ns;
    out->span_cycles = span_cycles;
    out->cycles_per_ns = (double)span_cycles / (double)span_ns;
    /* mult = floor(2^shift * span_ns / span_cycles) with the largest shift that
     * keeps mult below 2^63 (so cycles * mult never loses its top bits). */
    unsigned shift = 0;
    unsigned __int128 m = 0;
    for (shift = 96;; shift--) {
        m = ((unsigned __int128)span_ns << shift) / span_cycles;
        if (m < ((unsigned __int128)1 << 63) || shift == 0) break;
    }
    out->mult = (uint64_t)m;
    out->shift = shift;
    return 0;
}

/* Sleep most of the way to deadline (on clock id), spin the last 2 ms so the
 * end brackets are taken on a warm CPU rather than straight out of a wake-up. */
static void wait_until(clockid_t id, uint64_t deadline, uint64_t window_ns) {
    if (window_ns > 4000000ull) {
        uint64_t sleep_ns = window_ns - 2000000ull;
        struct timespec ts = {(time_t)(sleep_ns / 1000000000ull), (long)(sleep_ns % 1000000000ull)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    while (lat_clock_ns(id) < deadline)
        lat_cpu_relax();
}

/* A calibration's error figures from its two end brackets' widths, and the
 * counter's nominal rate where the hardware states one. */
static void fill_errors(lat_clock_cal *c, uint64_t w0, uint64_t w1) {
    c->bracket_cycles = w0 > w1 ? w0 : w1;
    c->error_ppm = ((double)w0 / 2 + (double)w1 / 2) / (double)c->span_cycles * 1e6;
    c->counter_hz = lat_counter_hz();
    if (c->counter_hz)
        c->counter_hz_diff_ppm =
            (c->cycles_per_ns * 1e9 - (double)c->counter_hz) / (double)c->counter_hz * 1e6;
}

int lat_clock_calibrate(lat_clock_cal *out, uint64_t window_ns, unsigned brackets) {
    if (!out) return -EINVAL;
    if (window_ns == 0) window_ns = LAT_CLOCK_DEFAULT_WINDOW_NS;
    if (window_ns < 1000000ull) return -EINVAL;
    if (brackets < LAT_CLOCK_MIN_BRACKETS) brackets = LAT_CLOCK_MIN_BRACKETS;
    uint64_t wall0 = lat_mono_ns();
    bracket b0 = tightest_bracket(brackets, CLOCK_MONOTONIC_RAW);
    wait_until(CLOCK_MONOTONIC_RAW, b0.ns + window_ns, window_ns);
    bracket b1 = tightest_bracket(brackets, CLOCK_MONOTONIC_RAW);
    if (b1.mid_cycles <= b0.mid_cycles || b1.ns <= b0.ns) return -EIO;
    int rc = lat_clock_cal_from_ratio(out, b1.ns - b0.ns, b1.mid_cycles - b0.mid_cycles);
    if (rc) return rc;
    out->window_ns = window_ns;
    fill_errors(out, b0.width_cycles, b1.width_cycles);
    out->elapsed_ns = lat_mono_ns() - wall0;
    return 0;
}

int lat_clock_drift(const lat_clock_cal *c, clockid_t id, uint64_t window_ns,
                    lat_clock_drift_result *out) {
    if (!c || !out || c->span_ns == 0 || c->span_cycles == 0 || window_ns < 1000000ull)
        return -EINVAL;
    struct timespec probe;
    if (clock_gettime(id, &probe) != 0) return -errno;
    memset(out, 0, sizeof *out);
    bracket b0 = tightest_bracket(LAT_CLOCK_MIN_BRACKETS * 2, id);
    wait_until(id, b0.ns + window_ns, window_ns);
    bracket b1 = tightest_bracket(LAT_CLOCK_MIN_BRACKETS * 2, id);
    if (b1.mid_cycles <= b0.mid_cycles || b1.ns <= b0.ns) return -EIO;
    out->os_ns = b1.ns - b0.ns;
    out->counter_ns = lat_clock_to_ns(c, b1.mid_cycles - b0.mid_cycles);
    out->drift_ppm = ((double)out->counter_ns - (double)out->os_ns) / (double)out->os_ns * 1e6;
    uint64_t w = b0.width_cycles > b1.width_cycles ? b0.width_cycles : b1.width_cycles;
    out->error_ppm = (double)lat_clock_to_ns(c, w) / (double)out->os_ns * 1e6;
    return 0;
}

int lat_clock_anchor(char *buf, size_t n) {
    if (!buf || n == 0) return -EINVAL;
    bracket b = tightest_bracket(32, CLOCK_MONOTONIC_RAW);
    int w = snprintf(buf, n, "%llu:%llu:%llu", (unsigned long long)b.mid_cycles,
                     (unsigned long long)b.ns, (unsigned long long)b.width_cycles);
    return w < 0 || (size_t)w >= n ? -ENOSPC : 0;
}

/* The window from a runner's anchor ($LAT_CLOCK_ANCHOR) to a bracket taken
 * now, at least the default window long.  Trusted only when a 10 ms
 * calibration agrees within 0.1% (an anchor from another boot or machine
 * does not); -1 sends the caller to its own calibration. */
static int calibrate_from_anchor(lat_clock_cal *out) {
    const char *e = getenv(LAT_CLOCK_ENV_ANCHOR);
    unsigned long long c0, ns0, w0;
    char tail;
    if (!e || sscanf(e, "%llu:%llu:%llu%c", &c0, &ns0, &w0, &tail) != 3) return -1;
    uint64_t now = lat_mono_raw_ns();
    if (ns0 >= now || now - ns0 > 86400ull * 1000000000ull) return -1; /* a day at most */
    lat_clock_cal check;
    if (lat_clock_calibrate(&check, 10000000ull, LAT_CLOCK_MIN_BRACKETS) != 0) return -1;
    uint64_t wall0 = lat_mono_ns();
    uint64_t deadline = ns0 + LAT_CLOCK_DEFAULT_WINDOW_NS, t = lat_mono_raw_ns();
    if (t < deadline) wait_until(CLOCK_MONOTONIC_RAW, deadline, deadline - t);
    bracket b1 = tightest_bracket(32, CLOCK_MONOTONIC_RAW);
    if (b1.mid_cycles <= c0 || b1.ns <= ns0) return -1;
    lat_clock_cal cal;
    if (lat_clock_cal_from_ratio(&cal, b1.ns - ns0, b1.mid_cycles - c0) != 0) return -1;
    double diff = cal.cycles_per_ns / check.cycles_per_ns - 1;
    if (diff > 1e-3 || diff < -1e-3) return -1;
    cal.window_ns = cal.span_ns;
    fill_errors(&cal, w0, b1.width_cycles);
    cal.elapsed_ns = check.elapsed_ns + (lat_mono_ns() - wall0);
    *out = cal;
    return 0;
}

static lat_clock_cal default_cal;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void default_init(void) {
    if (calibrate_from_anchor(&default_cal) == 0) return;
    if (lat_clock_calibrate(&default_cal, 0, 32) != 0) {
        /* The counter did not advance: fall back to 1 tick per ns so callers
         * never divide by zero; figures will be visibly wrong. */
        lat_clock_cal_from_ratio(&default_cal, 1, 1);
    }
}

const lat_clock_cal *lat_clock_default(void) {
    pthread_once(&default_once, default_init);
    return &default_cal;
}

int lat_clock_invariant(void) {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return -1;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return -1;
    return (d >> 8) & 1u;
#else
    return -1;
#endif
}

uint64_t lat_clock_step_of(uint64_t *d, size_t n) {
    if (!d || n < 2) return 1;
    lat_stats_sort_u64(d, n);
    /* clusters: runs of values no more than 2 apart; rare ones (an interrupt
     * inside a pair) are ignored */
    size_t min_count = n / 200 > 1 ? n / 200 : 1;
    uint64_t prev_at = 0, gaps[64];
    size_t ngaps = 0, clusters = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && d[j] <= d[j - 1] + 2)
            j++;
        if (d[j - 1] - d[i] > 6) return 1; /* a dense spread: the counter resolves cycles */
        if (j - i >= min_count) {
            if (clusters++ && ngaps < 64) gaps[ngaps++] = d[i] - prev_at;
            prev_at = d[i];
        }
        i = j;
    }
    if (ngaps == 0) return 1;
    uint64_t step = lat_stats_median_high_u64(gaps, ngaps);
    return step > 2 ? step : 1;
}

uint64_t lat_clock_granularity_cycles(unsigned n) {
    enum { MAXPAIRS = 4096 }; /* 32 KiB of stack; plenty to see a step */
    if (n < 200) n = 200;
    if (n > MAXPAIRS) n = MAXPAIRS;
    uint64_t d[MAXPAIRS];
    uint32_t x = 2463534242u;
    for (unsigned i = 0; i < n; i++) {
        /* a short random delay: a random phase against the counter's steps */
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        unsigned spins = x % 160;
        uint64_t a = lat_cycles();
        for (unsigned k = 0; k < spins; k++)
            __asm__ volatile("" : "+r"(k));
        d[i] = lat_cycles() - a;
    }
    return lat_clock_step_of(d, n);
}

void lat_clock_read_costs(uint64_t *v, size_t n, lat_clock_read_cost *out) {
    for (size_t i = 0; i < n; i++) {
        uint64_t a = lat_cycles();
        uint64_t b = lat_cycles();
        v[i] = b - a;
    }
    out->unfenced_cycles = lat_stats_median_high_u64(v, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = lat_cycles_fenced();
        uint64_t b = lat_cycles_fenced();
        v[i] = b - a;
    }
    out->fenced_cycles = lat_stats_median_high_u64(v, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = lat_mono_ns();
        uint64_t b = lat_mono_ns();
        v[i] = b - a;
    }
    out->gettime_ns = lat_stats_median_high_u64(v, n);
}
