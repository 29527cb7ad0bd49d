/* noise.c - injected platform noise (see noise.h): the spec's text form and
 * the SCHED_FIFO burst threads.
 *
 * Why the core floor: the injector needs only libc, pthreads and other core
 * parts (the cycle counter, CPU sets, the allocator), and it is a primitive a
 * user's own test links with liblatlab-core alone, beside the gap recorder
 * (gaps.h) it is checked against; nothing in it knows JSON or experiments.
 *
 * Each thread loops: wait (condition variable, CLOCK_MONOTONIC) until the
 * next burst or stall is due, spin on the cycle counter for its length,
 * note it (counts, and the log entry when there is room), draw the next
 * idle time.  Only that thread writes its noise_cpu until it is joined. */
#include "latlab/noise.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <time.h>

#include "alloc_internal.h"
#include "latlab/clock.h"
#include "latlab/compiler.h"

#define DAY_NS 86400000000000.0

/* ---- the text form ------------------------------------------------------------------ */

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t len, const char *fmt, ...) {
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* A plain decimal number (digits, at most one point, an exponent; no sign)
 * at the start of s; *unit is what follows it.  false when there is none. */
static bool plain_number(const char *s, double *v, const char **unit) {
    const char *p = s;
    int digits = 0, points = 0;
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        if (*p == '.')
            points++;
        else
            digits++;
    }
    if (!digits || points > 1) return false;
    if ((*p == 'e' || *p == 'E') && (p[1] == '-' || p[1] == '+' || (p[1] >= '0' && p[1] <= '9'))) {
        const char *q = p + 1 + (p[1] == '-' || p[1] == '+');
        if (*q < '0' || *q > '9') return false;
        while (*q >= '0' && *q <= '9')
            q++;
        p = q;
    }
    char buf[64];
    size_t n = (size_t)(p - s);
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *v = strtod(buf, NULL);
    *unit = p;
    return isfinite(*v);
}

/* "50us" -> ns (bare: ns); 0 or -1. */
static int duration_ns(const char *s, uint64_t *out) {
    double v, mul;
    const char *u;
    if (!plain_number(s, &v, &u)) return -1;
    if (!*u || !strcmp(u, "ns"))
        mul = 1;
    else if (!strcmp(u, "us"))
        mul = 1e3;
    else if (!strcmp(u, "ms"))
        mul = 1e6;
    else if (!strcmp(u, "s"))
        mul = 1e9;
    else
        return -1;
    double ns = v * mul;
    if (ns > DAY_NS || (ns > 0 && ns < 0.5)) return -1;
    *out = (uint64_t)llround(ns);
    return 0;
}

/* "10%" or "0.1" -> fraction; 0 or -1. */
static int fraction(const char *s, double *out) {
    double v;
    const char *u;
    if (!plain_number(s, &v, &u)) return -1;
    if (!strcmp(u, "%"))
        v /= 100;
    else if (*u)
        return -1;
    *out = v;
    return 0;
}

/* "2kHz" -> Hz (bare: Hz; the unit's case is free); 0 or -1. */
static int rate_hz(const char *s, double *out) {
    double v;
    const char *u;
    if (!plain_number(s, &v, &u)) return -1;
    if (*u && strcasecmp(u, "hz")) {
        if (!strcasecmp(u, "khz"))
            v *= 1e3;
        else if (!strcasecmp(u, "mhz"))
            v *= 1e6;
        else
            return -1;
    }
    *out = v;
    return 0;
}

static int set_stall(lat_noise_spec *s, const char *v, char *why, size_t len) {
    const char *slash = strchr(v, '/');
    char a[64];
    if (!slash || (size_t)(slash - v) >= sizeof a)
        return fail(why, len, "stall: '%s' is not LEN/EVERY (like 5ms/2s)", v);
    memcpy(a, v, (size_t)(slash - v));
    a[slash - v] = '\0';
    uint64_t l, e;
    if (duration_ns(a, &l) || duration_ns(slash + 1, &e))
        return fail(why, len, "stall: '%s' is not LEN/EVERY, two durations (like 5ms/2s)", v);
    if (l == 0 || e == 0) return fail(why, len, "stall: '%s': both must be above 0", v);
    s->stall_ns = l;
    s->stall_every_ns = e;
    return 0;
}

int lat_noise_spec_set(lat_noise_spec *s, const char *key, const char *v, char *why, size_t len) {
    if (!s || !key || !v) return fail(why, len, "spec: NULL argument");
    if (!*v) return fail(why, len, "%s: needs a value", key);
    if (!strcmp(key, "cpus")) {
        if (strpbrk(v, " \t\n") || lat_cpuset_parse(v, &s->cpus) || !lat_cpuset_count(&s->cpus))
            return fail(why, len, "cpus: '%s' is not a CPU list (like 0,2-3; CPUs below %d)", v,
                        LAT_MAX_CPUS);
    } else if (!strcmp(key, "share")) {
        if (fraction(v, &s->share))
            return fail(why, len, "share: '%s' is not a percentage (10%%) or a fraction (0.1)", v);
        if (!(s->share > 0)) return fail(why, len, "share: '%s' must be above 0", v);
    } else if (!strcmp(key, "burst")) {
        if (duration_ns(v, &s->burst_ns))
            return fail(why, len, "burst: '%s' is not a duration (ns, us, ms or s)", v);
        if (!s->burst_ns) return fail(why, len, "burst: '%s' must be above 0", v);
    } else if (!strcmp(key, "rate")) {
        if (rate_hz(v, &s->rate_hz))
            return fail(why, len, "rate: '%s' is not a rate (Hz, kHz or MHz; like 2kHz)", v);
        if (!(s->rate_hz > 0)) return fail(why, len, "rate: '%s' must be above 0", v);
    } else if (!strcmp(key, "stall")) {
        return set_stall(s, v, why, len);
    } else if (!strcmp(key, "jitter")) {
        if (fraction(v, &s->jitter) || s->jitter > LAT_NOISE_MAX_JITTER)
            return fail(why, len, "jitter: '%s' is not 0..%.0f%% (or a fraction)", v,
                        100 * LAT_NOISE_MAX_JITTER);
    } else if (!strcmp(key, "seed") || !strcmp(key, "prio")) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (*end && !strpbrk(v, "xX")) { /* 2e4, 20000.0: the other options' syntax */
            double d = strtod(v, &end);
            x = d >= 0 && d <= 9007199254740992.0 && d == floor(d) ? (unsigned long long)d : 0;
            if (x != d) errno = ERANGE;
        }
        if (*v < '0' || *v > '9' || *end || errno == ERANGE)
            return fail(why, len, "%s: '%s' is not a whole number", key, v);
        if (key[0] == 's') {
            s->seed = x;
        } else {
            if (x < 1 || x > LAT_NOISE_MAX_PRIORITY)
                return fail(why, len, "prio: '%s' is outside 1..%d", v, LAT_NOISE_MAX_PRIORITY);
            s->priority = (int)x;
        }
    } else {
        return fail(why, len,
                    "%s: unknown field (cpus, share, burst, rate, stall, jitter, seed, prio)", key);
    }
    return 0;
}

void lat_noise_spec_default(lat_noise_spec *s) {
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->jitter = LAT_NOISE_DEFAULT_JITTER;
    s->seed = LAT_NOISE_DEFAULT_SEED;
    s->priority = LAT_NOISE_DEFAULT_PRIORITY;
}

/* The third of share = burst x rate from the two given; -EINVAL when fewer
 * than two were given or three disagree. */
static int derive(lat_noise_spec *s, char *why, size_t len) {
    int given = (s->share > 0) + (s->burst_ns > 0) + (s->rate_hz > 0);
    if (given < 2)
        return fail(why, len, "share: give two of share, burst and rate (share = burst x rate)");
    if (given == 3) {
        double implied = (double)s->burst_ns * 1e-9 * s->rate_hz;
        if (fabs(implied - s->share) > 0.01 * s->share)
            return fail(why, len,
                        "share: %g%% disagrees with burst %.0f ns x rate %g Hz = %g%% (give two "
                        "of the three, or three that agree)",
                        100 * s->share, (double)s->burst_ns, s->rate_hz, 100 * implied);
        return 0;
    }
    if (!s->share)
        s->share = (double)s->burst_ns * 1e-9 * s->rate_hz;
    else if (!s->burst_ns)
        s->burst_ns = (uint64_t)llround(s->share / s->rate_hz * 1e9);
    else
        s->rate_hz = s->share / ((double)s->burst_ns * 1e-9);
    return 0;
}

/* Range checks of burst (0), rate (1) and share (2); 0 or -EINVAL. */
static int check_one(const lat_noise_spec *s, int which, char *why, size_t len) {
    if (which == 0 &&
        (s->burst_ns < LAT_NOISE_MIN_BURST_NS || s->burst_ns > LAT_NOISE_MAX_BURST_NS))
        return fail(why, len, "burst: %.0f ns is outside 1 us..100 ms", (double)s->burst_ns);
    if (which == 1 && (s->rate_hz < LAT_NOISE_MIN_RATE_HZ || s->rate_hz > LAT_NOISE_MAX_RATE_HZ))
        return fail(why, len, "rate: %g Hz is outside %g Hz..%g kHz", s->rate_hz,
                    LAT_NOISE_MIN_RATE_HZ, LAT_NOISE_MAX_RATE_HZ / 1e3);
    if (which == 2 && s->share > LAT_NOISE_MAX_SHARE)
        return fail(why, len, "share: %g%% is above %.0f%% (the cap that keeps the CPU usable)",
                    100 * s->share, 100 * LAT_NOISE_MAX_SHARE);
    return 0;
}

int lat_noise_spec_resolve(lat_noise_spec *s, char *why, size_t len) {
    if (!s) return fail(why, len, "spec: NULL argument");
    /* the values given are checked first: the error names what was typed */
    bool given[3] = {s->burst_ns > 0, s->rate_hz > 0, s->share > 0};
    int rc = derive(s, why, len);
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (int k = 0; k < 3 && !rc; k++)
            if (given[k] == !pass) rc = check_one(s, k, why, len);
    if (rc) return rc;
    if (!(s->jitter >= 0 && s->jitter <= LAT_NOISE_MAX_JITTER))
        return fail(why, len, "jitter: %g is outside 0..%g", s->jitter, LAT_NOISE_MAX_JITTER);
    if (s->priority < 1 || s->priority > LAT_NOISE_MAX_PRIORITY)
        return fail(why, len, "prio: %d is outside 1..%d", s->priority, LAT_NOISE_MAX_PRIORITY);
    if (s->stall_ns) {
        if (s->stall_ns > LAT_NOISE_MAX_BURST_NS)
            return fail(why, len, "stall: %.0f ns is above 100 ms (every burst is bounded)",
                        (double)s->stall_ns);
        double total = s->share + (double)s->stall_ns / (double)s->stall_every_ns;
        if (total > LAT_NOISE_MAX_SHARE + 1e-12)
            return fail(why, len, "stall: share %g%% plus the stalls' %g%% is above %.0f%%",
                        100 * s->share, 100 * (total - s->share), 100 * LAT_NOISE_MAX_SHARE);
    }
    return 0;
}

/* The text up to the next ',' that starts a new FIELD=VALUE piece: a CPU
 * list's own commas stay with it ("0,2-3,share=..."). */
static size_t value_len(const char *v, bool cpus) {
    size_t n = strcspn(v, ",");
    while (cpus && v[n] == ',') {
        size_t m = strcspn(v + n + 1, ",");
        if (memchr(v + n + 1, '=', m)) break;
        n += 1 + m;
    }
    return n;
}

static const char *const fields[] = {"cpus",  "share",  "burst", "rate",
                                     "stall", "jitter", "seed",  "prio"};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* One FIELD=VALUE piece at *p (advanced past it and its comma). */
static int parse_piece(const char **p, lat_noise_spec *s, unsigned *seen, char *why, size_t len) {
    const char *eq = strchr(*p, '=');
    size_t klen = strcspn(*p, ",=");
    int shown = (int)strcspn(*p, ","); /* a piece is quoted up to 32 characters */
    if (shown > 32) shown = 32;
    if (!eq || (*p)[klen] != '=')
        return fail(why, len, "%.*s: not FIELD=VALUE (like share=10%%)", shown, *p);
    char key[16], val[512];
    if (klen >= sizeof key) return fail(why, len, "%.*s: unknown field", shown, *p);
    memcpy(key, *p, klen);
    key[klen] = '\0';
    const char *v = eq + 1;
    size_t vlen = value_len(v, !strcmp(key, "cpus"));
    if (vlen >= sizeof val) return fail(why, len, "%s: value too long", key);
    memcpy(val, v, vlen);
    val[vlen] = '\0';
    for (unsigned i = 0; i < NFIELDS; i++)
        if (!strcmp(key, fields[i])) {
            if (*seen & (1u << i)) return fail(why, len, "%s: given twice", key);
            *seen |= 1u << i;
        }
    int rc = lat_noise_spec_set(s, key, val, why, len);
    *p = v + vlen + (v[vlen] == ',');
    return rc;
}

int lat_noise_parse(const char *spec, lat_noise_spec *out, char *why, size_t len) {
    if (!out) return fail(why, len, "spec: NULL argument");
    if (!spec || !*spec) return fail(why, len, "share: empty spec (like share=10%%,burst=50us)");
    lat_noise_spec s;
    lat_noise_spec_default(&s);
    unsigned seen = 0;
    for (const char *p = spec; *p;) {
        int rc = parse_piece(&p, &s, &seen, why, len);
        if (rc) return rc;
    }
    int rc = lat_noise_spec_resolve(&s, why, len);
    if (rc) return rc;
    *out = s;
    return 0;
}

/* ns in the largest unit that holds it exactly. */
static void fmt_ns(char *b, size_t n, uint64_t ns) {
    if (ns && ns % 1000000000u == 0)
        snprintf(b, n, "%llus", (unsigned long long)(ns / 1000000000u));
    else if (ns && ns % 1000000u == 0)
        snprintf(b, n, "%llums", (unsigned long long)(ns / 1000000u));
    else if (ns && ns % 1000u == 0)
        snprintf(b, n, "%lluus", (unsigned long long)(ns / 1000u));
    else
        snprintf(b, n, "%lluns", (unsigned long long)ns);
}

size_t lat_noise_spec_format(const lat_noise_spec *s, char *buf, size_t len) {
    char cpus[4096] = "", burst[32], stall[80] = "", a[32], e[32];
    if (!s) return 0;
    lat_cpuset_format(&s->cpus, cpus, sizeof cpus);
    fmt_ns(burst, sizeof burst, s->burst_ns);
    if (s->stall_ns) {
        fmt_ns(a, sizeof a, s->stall_ns);
        fmt_ns(e, sizeof e, s->stall_every_ns);
        snprintf(stall, sizeof stall, ",stall=%s/%s", a, e);
    }
    char prio[24] = "";
    if (s->priority != LAT_NOISE_DEFAULT_PRIORITY)
        snprintf(prio, sizeof prio, ",prio=%d", s->priority);
    int n =
        snprintf(buf, len, "%s%s%sshare=%.10g%%,burst=%s,rate=%.10gHz%s,jitter=%.10g%%,seed=%llu%s",
                 cpus[0] ? "cpus=" : "", cpus, cpus[0] ? "," : "", 100 * s->share, burst,
                 s->rate_hz, stall, 100 * s->jitter, (unsigned long long)s->seed, prio);
    return n < 0 ? 0 : (size_t)n;
}

/* ---- the injector --------------------------------------------------------------------- */

typedef struct noise_cpu {
    LAT_CACHE_ALIGNED struct lat_noise *owner; /* read-only after create */
    int cpu;                                   /* read-only after create */
    pthread_t tid;
    bool running; /* the creating thread's */
    uint64_t rng; /* the rest: the CPU's thread's until joined */
    uint64_t bursts, stalls, taken_cycles, stall_cycles, late_sum_ns, late_max_ns, reanchored;
    lat_noise_burst *log;
    size_t log_cap, nlog;
} noise_cpu;

struct lat_noise {
    lat_noise_spec spec;
    const lat_clock_cal *cal;
    uint64_t burst_cycles, stall_cycles; /* read-only after create */
    uint64_t t0_ns, t1_ns;               /* CLOCK_MONOTONIC: start, stop */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* signalled by stop */
    _Atomic bool stop; /* written under mu; read by spinning threads too */
    bool started, stopped;
    int ncpus;
    noise_cpu *cpu;
    lat_noise_cpu_report *rep;
};

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unit(uint64_t *x) {
    return (double)(splitmix(x) >> 11) * 0x1.0p-53;
}

/* The idle time before the next burst: mean (1/rate - burst), spread by jitter. */
static uint64_t draw_idle(const lat_noise *n, noise_cpu *c) {
    double mean = 1e9 / n->spec.rate_hz - (double)n->spec.burst_ns;
    double f = 1 + n->spec.jitter * (2 * unit(&c->rng) - 1);
    return (uint64_t)llround(mean * f);
}

/* Wait until CLOCK_MONOTONIC due_ns; true when told to stop meanwhile. */
static bool wait_until(lat_noise *n, uint64_t due_ns) {
    struct timespec ts = {(time_t)(due_ns / 1000000000u), (long)(due_ns % 1000000000u)};
    pthread_mutex_lock(&n->mu);
    while (!atomic_load_explicit(&n->stop, memory_order_relaxed) && lat_mono_ns() < due_ns)
        if (pthread_cond_timedwait(&n->cv, &n->mu, &ts) == ETIMEDOUT) break;
    bool stop = atomic_load_explicit(&n->stop, memory_order_relaxed);
    pthread_mutex_unlock(&n->mu);
    return stop;
}

/* Take the CPU for len cycles counted from when the burst was due (the
 * wake-up took the CPU from then; a late wake shortens the spin, so the
 * window stays len), or until stop; note the burst. */
static void take(lat_noise *n, noise_cpu *c, uint64_t len, bool stall, uint64_t due_ns) {
    uint64_t now_ns = lat_mono_ns(), s = lat_cycles(), e = s;
    uint64_t late_ns = now_ns > due_ns ? now_ns - due_ns : 0;
    uint64_t late = lat_clock_from_ns(n->cal, late_ns);
    /* a wake later than the burst itself is not its own cost (RT throttling,
     * a higher priority, the host): the burst then runs from the wake-up */
    uint64_t from = late < len && late < s ? s - late : s;
    /* relaxed: stop only shortens the burst; the join orders everything else */
    while ((e = lat_cycles()) - from < len && !atomic_load_explicit(&n->stop, memory_order_relaxed))
        lat_cpu_relax();
    c->taken_cycles += e - from;
    if (stall) {
        c->stalls++;
        c->stall_cycles += e - from;
    } else {
        c->bursts++;
        c->late_sum_ns += late_ns;
        if (late_ns > c->late_max_ns) c->late_max_ns = late_ns;
    }
    if (c->nlog < c->log_cap)
        c->log[c->nlog++] = (lat_noise_burst){from, s, e, due_ns - n->t0_ns, stall};
}

/* The cap (LAT_NOISE_MAX_SHARE of the CPU, bursts and stalls) held by what
 * was taken, not by the schedule alone: a burst runs past its length when
 * the injector loses the CPU inside it (a host's preemption, a higher
 * SCHED_FIFO thread: the spin ends by the clock), and the schedule drawn for
 * a 50% share then took 55%.  A take of len due before the cap allows it
 * (taken so far + len <= cap x (its end - start)) is put off until then;
 * below the cap the drawn schedule stands. */
static uint64_t within_cap(const lat_noise *n, const noise_cpu *c, uint64_t due_ns, uint64_t len) {
    double len_ns = (double)lat_clock_to_ns(n->cal, len);
    double taken_ns = (double)lat_clock_to_ns(n->cal, c->taken_cycles) + len_ns;
    uint64_t earliest = n->t0_ns + (uint64_t)(taken_ns / LAT_NOISE_MAX_SHARE - len_ns);
    return due_ns > earliest ? due_ns : earliest;
}

static void *noise_thread(void *arg) {
    noise_cpu *c = arg;
    lat_noise *n = c->owner;
    const lat_noise_spec *sp = &n->spec;
    /* wake when due: the default 50 us of timer slack would let the thread
     * it disturbs run on past the due time, and blur the schedule */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    uint64_t t0 = n->t0_ns;
    /* a random phase inside the first period, so CPUs do not burst in step */
    uint64_t next_b = t0 + (uint64_t)(unit(&c->rng) * 1e9 / sp->rate_hz);
    uint64_t next_s = UINT64_MAX;
    if (sp->stall_ns) next_s = t0 + (uint64_t)((0.5 + 0.5 * unit(&c->rng)) * sp->stall_every_ns);
    for (;;) {
        bool stall = next_s <= next_b;
        uint64_t len = stall ? n->stall_cycles : n->burst_cycles;
        uint64_t due = within_cap(n, c, stall ? next_s : next_b, len);
        if (wait_until(n, due)) break;
        take(n, c, len, stall, due);
        uint64_t end = lat_mono_ns();
        if (stall)
            next_s += sp->stall_every_ns;
        else
            next_b += sp->burst_ns + draw_idle(n, c);
        if (next_b < end) { /* late wake or a stall: keep the idle time, reschedule */
            c->reanchored++;
            next_b = end + draw_idle(n, c);
        }
        /* a stall that ran late puts the next a period on; one that fell due
         * while a burst ran late stays due and runs now (pushing it a whole
         * period would skip it: a 0.5 s run on a host that woke the injector
         * 3.6 ms late took no stall at all) */
        if (stall && next_s < end) next_s = end + sp->stall_every_ns;
    }
    return NULL;
}

static int check_cpus(const lat_cpuset *want) {
    lat_cpuset mine;
    if (!lat_cpuset_count(want)) return -EINVAL;
    if (lat_thread_affinity(&mine) != 0) return 0; /* unknown: pthread_create will say */
    for (int cpu = lat_cpuset_next(want, 0); cpu >= 0; cpu = lat_cpuset_next(want, cpu + 1))
        if (!lat_cpuset_has(&mine, cpu)) return -EINVAL;
    return 0;
}

int lat_noise_create(const lat_noise_spec *s, size_t log_cap, lat_noise **out) {
    if (!s || !out || log_cap > ((size_t)1 << 24)) return -EINVAL;
    lat_noise_spec r = *s;
    if (lat_noise_spec_resolve(&r, NULL, 0) || check_cpus(&r.cpus)) return -EINVAL;
    lat_noise *n = lat__calloc(1, sizeof *n);
    if (!n) return -ENOMEM;
    n->spec = r;
    n->ncpus = lat_cpuset_count(&r.cpus);
    n->cpu = lat__calloc_aligned((size_t)n->ncpus, sizeof *n->cpu, LAT_DESTRUCTIVE);
    n->rep = lat__calloc((size_t)n->ncpus, sizeof *n->rep);
    if (!n->cpu || !n->rep) goto fail;
    int i = 0;
    for (int cpu = lat_cpuset_next(&r.cpus, 0); cpu >= 0; cpu = lat_cpuset_next(&r.cpus, cpu + 1)) {
        noise_cpu *c = &n->cpu[i++];
        c->owner = n;
        c->cpu = cpu;
        c->rng = r.seed ^ ((uint64_t)(cpu + 1) * 0xD1B54A32D192ED03ull);
        c->log_cap = log_cap;
        if (log_cap && !(c->log = lat__calloc(log_cap, sizeof *c->log))) goto fail;
    }
    n->cal = lat_clock_default();
    n->burst_cycles = lat_clock_from_ns(n->cal, r.burst_ns);
    n->stall_cycles = lat_clock_from_ns(n->cal, r.stall_ns);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&n->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&n->mu, NULL);
    *out = n;
    return 0;
fail:
    for (int k = 0; n->cpu && k < n->ncpus; k++)
        lat__free(n->cpu[k].log);
    lat__free(n->cpu);
    lat__free(n->rep);
    lat__free(n);
    return -ENOMEM;
}

/* A thread attribute: SCHED_FIFO at prio, pinned to cpu. */
static int fifo_attr(pthread_attr_t *a, int cpu, int prio) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    struct sched_param p = {.sched_priority = prio};
    int rc = pthread_attr_init(a);
    if (rc) return -rc;
    if ((rc = pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED)) ||
        (rc = pthread_attr_setschedpolicy(a, SCHED_FIFO)) ||
        (rc = pthread_attr_setschedparam(a, &p)) ||
        (rc = pthread_attr_setaffinity_np(a, sizeof set, &set))) {
        pthread_attr_destroy(a);
        return -rc;
    }
    return 0;
}

static void stop_threads(lat_noise *n) {
    pthread_mutex_lock(&n->mu);
    atomic_store_explicit(&n->stop, true, memory_order_relaxed);
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    for (int i = 0; i < n->ncpus; i++)
        if (n->cpu[i].running) {
            pthread_join(n->cpu[i].tid, NULL);
            n->cpu[i].running = false;
        }
    n->t1_ns = lat_mono_ns();
}

int lat_noise_start(lat_noise *n) {
    if (!n) return -EINVAL;
    if (n->started) return -EBUSY;
    n->t0_ns = lat_mono_ns();
    /* the threads block every signal (they inherit the mask): a handler of
     * the program's never runs inside a burst */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = 0;
    for (int i = 0; i < n->ncpus && !rc; i++) {
        pthread_attr_t a;
        rc = fifo_attr(&a, n->cpu[i].cpu, n->spec.priority);
        if (!rc) {
            rc = -pthread_create(&n->cpu[i].tid, &a, noise_thread, &n->cpu[i]);
            pthread_attr_destroy(&a);
        }
        n->cpu[i].running = rc == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        stop_threads(n);
        atomic_store_explicit(&n->stop, false, memory_order_relaxed);
        return rc;
    }
    n->started = true;
    return 0;
}

static void fill_report(const lat_noise *n, lat_noise_report *rep) {
    memset(rep, 0, sizeof *rep);
    rep->elapsed_ns = n->t1_ns - n->t0_ns;
    rep->ncpus = n->ncpus;
    rep->cpu = n->rep;
    for (int i = 0; i < n->ncpus; i++) {
        const lat_noise_cpu_report *r = &n->rep[i];
        rep->bursts += r->bursts;
        rep->stalls += r->stalls;
        rep->taken_ns += r->taken_ns;
        rep->share += r->share / n->ncpus;
    }
}

int lat_noise_stop(lat_noise *n, lat_noise_report *rep) {
    if (!n || !n->started) return -EINVAL;
    if (!n->stopped) {
        stop_threads(n);
        n->stopped = true;
        double el = (double)(n->t1_ns - n->t0_ns);
        for (int i = 0; i < n->ncpus; i++) {
            const noise_cpu *c = &n->cpu[i];
            lat_noise_cpu_report *r = &n->rep[i];
            r->cpu = c->cpu;
            r->bursts = c->bursts;
            r->stalls = c->stalls;
            r->taken_ns = lat_clock_to_ns(n->cal, c->taken_cycles);
            r->stall_ns = lat_clock_to_ns(n->cal, c->stall_cycles);
            r->share = el > 0 ? (double)r->taken_ns / el : 0;
            r->late_mean_ns = c->bursts ? c->late_sum_ns / c->bursts : 0;
            r->late_max_ns = c->late_max_ns;
            r->reanchored = c->reanchored;
            r->logged = c->nlog;
        }
    }
    if (rep) fill_report(n, rep);
    return 0;
}

size_t lat_noise_log(const lat_noise *n, int i, const lat_noise_burst **out) {
    if (out) *out = NULL;
    if (!n || !n->stopped || i < 0 || i >= n->ncpus || !out) return 0;
    *out = n->cpu[i].log;
    return n->cpu[i].nlog;
}

void lat_noise_destroy(lat_noise *n) {
    if (!n) return;
    if (n->started && !n->stopped) lat_noise_stop(n, NULL);
    pthread_cond_destroy(&n->cv);
    pthread_mutex_destroy(&n->mu);
    for (int k = 0; k < n->ncpus; k++)
        lat__free(n->cpu[k].log);
    lat__free(n->cpu);
    lat__free(n->rep);
    lat__free(n);
}
