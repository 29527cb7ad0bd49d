/* loadsched.c - the schedule of `latlab load`: a fixed rate, steps or a
 * ramp mapped from a unit-rate process by time rescaling, a shard's share of
 * it, the --arrivals replay file, --rate/--shard/--start-at's grammar (a
 * start no more than 100 ms past), the schedule's line in a report, and the
 * figures of a run step by step with their verdicts.  See loadsched.h (--find-max:
 * loadsched_findmax.c).
 *
 * Apart from load.c so that the engine keeps to its loop (the schedule is
 * pure arithmetic) and the step report to its own file. */
#include "latlab/loadsched.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "latlab/clock.h"
#include "latlab/load.h"
#include "latlab/loadverdict.h"

#define STEP_HIST_HIGHEST 3600000000000ll /* 1 hour in ns */
#define DUR_MIN_NS 1000000ull             /* 1 ms */
#define DUR_MAX_NS (30ull * 86400 * 1000000000ull)

/* ---- the replay file (--arrivals replay) --------------------------------------------- */

/* One line of a replay file: 1 a time (*v), 0 a blank or comment line,
 * -1 not a time. */
static int replay_line(const char *line, uint64_t *v) {
    const char *p = line + strspn(line, " \t");
    char *end;
    if (*p == '#' || *p == '\n' || !*p) return 0;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno || end == p || *p == '-') return -1;
    end += strspn(end, " \t\r\n");
    if (*end && *end != '#') return -1; /* one time a line, then a comment at most */
    *v = x;
    return 1;
}

/* The next line of f as replay_line reads it, 2 at the end of the file.  A
 * line longer than the buffer is one line still (never two times): a comment
 * is skipped to its end; otherwise what the buffer holds after the indentation
 * is read, and the rest must be blank (else the line is not a time, -1). */
static int replay_read(FILE *f, uint64_t *v) {
    char line[128];
    int c;
    while ((c = getc(f)) == ' ' || c == '\t') { /* indentation, however long */
    }
    if (c == EOF || ungetc(c, f) == EOF || !fgets(line, sizeof line, f)) return 2;
    size_t len = strlen(line);
    if (len + 1 < sizeof line || line[len - 1] == '\n') return replay_line(line, v);
    bool comment = line[0] == '#';
    int k = replay_line(line, v);
    while ((c = getc(f)) != EOF && c != '\n')
        if (!comment && c != ' ' && c != '\t' && c != '\r') k = -1;
    return k;
}

uint64_t lat_loadsched_replay_next(void *file) {
    uint64_t v;
    for (;;) {
        int k = replay_read(file, &v);
        if (k) return k == 1 ? v : UINT64_MAX;
    }
}

int lat_loadsched_replay_check(FILE *f, uint64_t *n, uint64_t *last, long *line_no) {
    uint64_t v;
    int k;
    *n = *last = 0;
    for (*line_no = 1; (k = replay_read(f, &v)) != 2; ++*line_no) {
        if (k < 0 || (k && (v < *last || v >= UINT64_MAX / 2))) return -EINVAL;
        if (k) *last = v, ++*n;
    }
    return ferror(f) ? -EIO : 0;
}

/* ---- the plan ------------------------------------------------------------------------- */

static unsigned nsteps_raw(const lat_loadsched_plan *p) {
    double span = fabs(p->to_hz - p->from_hz) / p->step_hz;
    return (unsigned)floor(span + 1e-9) + 1;
}

/* Step k's rate of a step plan. */
static double step_rate(const lat_loadsched_plan *p, unsigned k) {
    return p->from_hz + (p->to_hz >= p->from_hz ? 1 : -1) * (double)k * p->step_hz;
}

unsigned lat_loadsched_nsteps(const lat_loadsched_plan *p) {
    return p->kind == LAT_LOADSCHED_STEPS  ? nsteps_raw(p)
           : p->kind == LAT_LOADSCHED_RAMP ? LAT_LOADSCHED_RAMP_SEGMENTS
                                           : 1;
}

uint64_t lat_loadsched_duration_ns(const lat_loadsched_plan *p) {
    return p->kind == LAT_LOADSCHED_STEPS  ? (uint64_t)nsteps_raw(p) * p->hold_ns
           : p->kind == LAT_LOADSCHED_RAMP ? p->hold_ns
                                           : 0;
}

double lat_loadsched_mean_hz(const lat_loadsched_plan *p) {
    if (p->kind == LAT_LOADSCHED_FIXED) return p->from_hz;
    if (p->kind == LAT_LOADSCHED_RAMP) return (p->from_hz + p->to_hz) / 2;
    unsigned n = nsteps_raw(p);
    return (p->from_hz + step_rate(p, n - 1)) / 2;
}

double lat_loadsched_peak_hz(const lat_loadsched_plan *p) {
    if (p->kind == LAT_LOADSCHED_FIXED) return p->from_hz;
    double last = p->kind == LAT_LOADSCHED_RAMP ? p->to_hz : step_rate(p, nsteps_raw(p) - 1);
    return p->from_hz > last ? p->from_hz : last;
}

void lat_loadsched_step_span(const lat_loadsched_plan *p, uint64_t duration_ns, unsigned k,
                             uint64_t *from_ns, uint64_t *to_ns, double *rate0_hz,
                             double *rate1_hz) {
    unsigned n = lat_loadsched_nsteps(p);
    if (p->kind == LAT_LOADSCHED_STEPS) {
        *from_ns = k * p->hold_ns;
        *to_ns = (k + 1) * p->hold_ns;
        *rate0_hz = *rate1_hz = step_rate(p, k);
        return;
    }
    *from_ns = (uint64_t)((double)duration_ns * k / n);
    *to_ns = (uint64_t)((double)duration_ns * (k + 1) / n);
    if (p->kind == LAT_LOADSCHED_FIXED) {
        *rate0_hz = *rate1_hz = p->from_hz;
        return;
    }
    *rate0_hz = p->from_hz + (p->to_hz - p->from_hz) * k / n;
    *rate1_hz = p->from_hz + (p->to_hz - p->from_hz) * (k + 1) / n;
}

unsigned lat_loadsched_step_of(const lat_loadsched_plan *p, uint64_t duration_ns, uint64_t t_ns) {
    unsigned n = lat_loadsched_nsteps(p);
    uint64_t k;
    if (p->kind == LAT_LOADSCHED_STEPS)
        k = t_ns / p->hold_ns;
    else if (p->kind == LAT_LOADSCHED_RAMP && duration_ns)
        k = (uint64_t)((double)t_ns * n / (double)duration_ns);
    else
        k = 0;
    return k < n ? (unsigned)k : n - 1;
}

/* ---- the grammar ----------------------------------------------------------------------- */

static char why_buf[160];

/* A rate in [lo, 1e8] from [s, e): 0, or -EINVAL with why_buf said. */
static int parse_rate(const char *s, const char *e, double lo, double *out) {
    char b[64], *end;
    size_t n = (size_t)(e - s);
    if (n >= sizeof b) n = sizeof b - 1;
    memcpy(b, s, n);
    b[n] = 0;
    /* every option's one syntax: digits, a point, an exponent; no hex, no '+' */
    bool plain = n > 0 && b[0] != '+';
    for (size_t i = 0; i < n; i++)
        plain &= (b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == 'e' || b[i] == 'E' ||
                 ((b[i] == '-' || b[i] == '+') &&
                  (!i ? b[i] == '-' : b[i - 1] == 'e' || b[i - 1] == 'E'));
    errno = 0;
    double v = strtod(b, &end);
    if (!plain || end == b || *end) {
        snprintf(why_buf, sizeof why_buf, "'%s' is not a decimal number", b);
        return -EINVAL;
    }
    if (errno == ERANGE || !isfinite(v) || v < lo || v > LAT_LOADSCHED_RATE_MAX) {
        snprintf(why_buf, sizeof why_buf, "%s is out of range (%g..%g)", b, lo,
                 LAT_LOADSCHED_RATE_MAX);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/* A duration (ns, us, ms or s; no unit: ns) in [1 ms, 30 days]. */
static int parse_dur(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double mul = !strcmp(end, "s")             ? 1e9
                 : !strcmp(end, "ms")          ? 1e6
                 : !strcmp(end, "us")          ? 1e3
                 : !strcmp(end, "ns") || !*end ? 1
                                               : 0;
    if (end == s || errno || !isfinite(v) || !mul || !(s[0] >= '0' && s[0] <= '9')) {
        snprintf(why_buf, sizeof why_buf, "'%s' is not a duration (like 10s or 500ms)", s);
        return -EINVAL;
    }
    double ns = v * mul;
    if (ns < (double)DUR_MIN_NS || ns > (double)DUR_MAX_NS) {
        snprintf(why_buf, sizeof why_buf, "%s is out of range (1ms..30 days)", s);
        return -EINVAL;
    }
    *out = (uint64_t)llround(ns);
    return 0;
}

int lat_loadsched_parse(const char *s, lat_loadsched_plan *p, const char **why) {
    *why = why_buf;
    why_buf[0] = 0;
    memset(p, 0, sizeof *p);
    const char *slash = strchr(s, '/');
    if (!strchr(s, ':') && !slash) {
        p->kind = LAT_LOADSCHED_FIXED;
        return parse_rate(s, s + strlen(s), 0.001, &p->from_hz);
    }
    bool ramp = !strncmp(s, "ramp:", 5);
    const char *a = ramp ? s + 5 : s, *c1 = strchr(a, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!slash || !c1 || (ramp ? c2 && c2 < slash : !c2 || c2 > slash)) {
        snprintf(why_buf, sizeof why_buf,
                 "'%s' is not a rate, FROM:TO:STEP/HOLD or ramp:FROM:TO/LENGTH", s);
        return -EINVAL;
    }
    int rc = parse_rate(a, c1, 0, &p->from_hz);
    if (!rc) rc = parse_rate(c1 + 1, ramp ? slash : c2, 0, &p->to_hz);
    if (!rc && !ramp) rc = parse_rate(c2 + 1, slash, 0, &p->step_hz);
    if (!rc) rc = parse_dur(slash + 1, &p->hold_ns);
    if (rc) return rc;
    p->kind = ramp ? LAT_LOADSCHED_RAMP : LAT_LOADSCHED_STEPS;
    if (!ramp && !(p->step_hz > 0)) {
        snprintf(why_buf, sizeof why_buf, "'%s': the step must be above 0", s);
        return -EINVAL;
    }
    if (!ramp && fabs(p->to_hz - p->from_hz) / p->step_hz > LAT_LOADSCHED_MAX_STEPS - 1 + 1e-9) {
        snprintf(why_buf, sizeof why_buf, "'%s' has more than %d steps", s,
                 LAT_LOADSCHED_MAX_STEPS);
        return -EINVAL;
    }
    if (!(lat_loadsched_peak_hz(p) > 0)) {
        snprintf(why_buf, sizeof why_buf, "'%s' never sends (every rate 0)", s);
        return -EINVAL;
    }
    if (lat_loadsched_duration_ns(p) > DUR_MAX_NS) {
        snprintf(why_buf, sizeof why_buf, "'%s' lasts more than 30 days", s);
        return -EINVAL;
    }
    return 0;
}

void lat_loadsched_write_plan(FILE *f, const lat_loadsched_plan *p, const char *spec,
                              double share_hz, uint32_t stride, uint32_t phase, uint64_t seed) {
    if (p->kind)
        fprintf(f, "schedule: --rate %s, %u %s, mean %.0f/s (this generator's share %.0f/s)\n",
                spec, lat_loadsched_nsteps(p),
                p->kind == LAT_LOADSCHED_RAMP ? "tenths of the ramp" : "steps",
                lat_loadsched_mean_hz(p), share_hz);
    if (stride)
        fprintf(f, "shard %" PRIu32 "/%" PRIu32 " of the one schedule of seed %" PRIu64 "\n", phase,
                stride, seed);
}

int lat_loadsched_parse_shard(const char *s, uint32_t *i, uint32_t *n) {
    char *end;
    if (!s || !(*s >= '0' && *s <= '9')) return -EINVAL;
    errno = 0;
    unsigned long a = strtoul(s, &end, 10);
    if (errno || *end != '/' || !(end[1] >= '0' && end[1] <= '9')) return -EINVAL;
    unsigned long b = strtoul(end + 1, &end, 10);
    if (errno || *end || b < 1 || b > 65536 || a >= b) return -EINVAL;
    *i = (uint32_t)a;
    *n = (uint32_t)b;
    return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* n digits at s as a number, or -1. */
static int digits(const char *s, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ".ddd" at *s (none is fine): the fraction in ns, *s moved past it; -1 when bad. */
static int64_t fraction_ns(const char **s) {
    if (**s != '.') return 0;
    int64_t ns = 0, scale = 100000000;
    const char *p = *s + 1;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
        ns += scale * (*p - '0');
    *s = p;
    return ns;
}

int lat_loadsched_parse_time(const char *s, uint64_t *unix_ns) {
    if (!s || !*s) return -EINVAL;
    size_t len = strlen(s);
    if (len < 19 || (s[10] != 'T' && s[10] != 't' && s[10] != ' ')) { /* Unix seconds */
        char *end;
        if (*s < '0' || *s > '9') return -EINVAL;
        errno = 0;
        unsigned long long sec = strtoull(s, &end, 10);
        const char *p = end;
        int64_t f = fraction_ns(&p);
        if (errno || f < 0 || *p || sec > 1ull << 33) return -EINVAL;
        *unix_ns = sec * 1000000000ull + (uint64_t)f;
        return 0;
    }
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), se = digits(s + 17, 2);
    if (s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' || y < 1970 || mo < 1 ||
        mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
        return -EINVAL;
    const char *p = s + 19;
    int64_t f = fraction_ns(&p), off_s = 0;
    if (f < 0) return -EINVAL;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh = digits(p + 1, 2), om = digits(p + 4, 2);
        if (oh < 0 || oh > 23 || p[3] != ':' || om < 0 || om > 59) return -EINVAL;
        off_s = (*p == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        p += 6;
    } else {
        return -EINVAL; /* RFC 3339 needs the offset */
    }
    if (*p) return -EINVAL;
    int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off_s;
    if (t < 0) return -EINVAL;
    *unix_ns = (uint64_t)t * 1000000000ull + (uint64_t)f;
    return 0;
}

int lat_loadsched_parse_start(const char *s, uint64_t now_ns, uint64_t *unix_ns, const char **why) {
    *why = why_buf;
    if (lat_loadsched_parse_time(s, unix_ns)) {
        snprintf(why_buf, sizeof why_buf, "'%s' is not RFC 3339 or Unix seconds", s ? s : "");
        return -EINVAL;
    }
    if (*unix_ns + 100000000 < now_ns) {
        snprintf(why_buf, sizeof why_buf, "%s is %.1f s in the past", s,
                 (double)(now_ns - *unix_ns) / 1e9);
        return -EINVAL;
    }
    return 0;
}

uint64_t lat_loadsched_start_cycles(uint64_t unix_ns, uint64_t lead_ns) {
    if (unix_ns > lead_ns) {
        uint64_t wake = unix_ns - lead_ns;
        struct timespec ts = {(time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull)};
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
    }
    const lat_clock_cal *cal = lat_clock_default();
    uint64_t c = lat_cycles(), now = lat_clock_ns(CLOCK_REALTIME);
    uint64_t c2 = lat_cycles();
    c += (c2 - c) / 2; /* the cycle count at the middle of the clock read */
    if (unix_ns >= now) return c + lat_clock_from_ns(cal, unix_ns - now);
    uint64_t back = lat_clock_from_ns(cal, now - unix_ns);
    return back < c ? c - back : 1;
}

/* ---- the schedule ------------------------------------------------------------------------ */

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double unit(uint64_t *s) {
    return ((double)(splitmix(s) >> 11) + 1.0) * 0x1.0p-53;
}

int lat_loadsched_init(lat_loadsched *s, lat_load_arrivals kind, double rate_hz, uint64_t seed) {
    return lat_loadsched_init_plan(s, kind, NULL, rate_hz, seed, 1, 0);
}

int lat_loadsched_init_plan(lat_loadsched *s, lat_load_arrivals kind,
                            const lat_loadsched_plan *plan, double rate_hz, uint64_t seed,
                            uint32_t stride, uint32_t phase) {
    lat_loadsched_plan p = {LAT_LOADSCHED_FIXED, rate_hz, rate_hz, 0, 0};
    if (plan && (plan->kind != LAT_LOADSCHED_FIXED || plan->from_hz > 0)) p = *plan;
    if (!stride) stride = 1;
    double peak = lat_loadsched_peak_hz(&p);
    if (!s || !(peak > 0) || !isfinite(peak) || phase >= stride ||
        (kind != LAT_LOAD_CONSTANT && kind != LAT_LOAD_POISSON) ||
        (p.kind == LAT_LOADSCHED_STEPS && (!(p.step_hz > 0) || !p.hold_ns)) ||
        (p.kind == LAT_LOADSCHED_RAMP && !p.hold_ns))
        return -EINVAL;
    *s = (lat_loadsched){.kind = kind,
                         .period_ns = 1e9 * stride / peak,
                         .rng = seed,
                         .plan = p,
                         .stride = stride,
                         .phase = phase,
                         .mark_seed = seed ^ 0x6a09e667f3bcc909ull};
    return 0;
}

/* Lambda^-1(u), ns, for a plan; INFINITY past its end. */
static double plan_inverse(lat_loadsched *s, double u) {
    const lat_loadsched_plan *p = &s->plan;
    double hold_s = (double)p->hold_ns / 1e9;
    if (p->kind == LAT_LOADSCHED_STEPS) {
        unsigned n = nsteps_raw(p);
        /* u never decreases: the step only moves forward */
        while (s->k < n && u >= s->ck + step_rate(p, s->k) * hold_s) {
            s->ck += step_rate(p, s->k) * hold_s;
            s->k++;
        }
        if (s->k >= n) return INFINITY;
        return (double)s->k * (double)p->hold_ns + (u - s->ck) / step_rate(p, s->k) * 1e9;
    }
    /* a ramp: Lambda(t) = r0 t + a t^2, a = (r1 - r0) / (2 T); t the stable root */
    double r0 = p->from_hz, a = (p->to_hz - r0) / (2 * hold_s);
    if (u >= (r0 + p->to_hz) / 2 * hold_s) return INFINITY;
    if (u <= 0) return 0;
    double disc = r0 * r0 + 4 * a * u;
    return 2 * u / (r0 + sqrt(disc > 0 ? disc : 0)) * 1e9;
}

/* Arrival n's mark: its share. */
static uint32_t mark(const lat_loadsched *s, uint64_t n) {
    if (s->kind == LAT_LOAD_CONSTANT) return (uint32_t)(n % s->stride);
    uint64_t z = s->mark_seed ^ (n * 0xd1b54a32d192ed03ull);
    return (uint32_t)(splitmix(&z) % s->stride);
}

uint64_t lat_loadsched_next(lat_loadsched *s) {
    for (;;) {
        uint64_t n = s->n++;
        double t;
        if (s->plan.kind == LAT_LOADSCHED_FIXED) {
            /* Constant: n * period from the start (no accumulated rounding).
             * Poisson: exponential gaps of mean period, summed in double (ns
             * resolution for ~100 days). */
            double period = 1e9 / s->plan.from_hz;
            t = s->kind == LAT_LOAD_CONSTANT ? (double)n * period
                                             : (s->t_ns += -log(unit(&s->rng)) * period);
        } else {
            t = plan_inverse(s, s->kind == LAT_LOAD_CONSTANT ? (double)n
                                                             : (s->u += -log(unit(&s->rng))));
            if (t == INFINITY) return UINT64_MAX;
        }
        if (s->stride == 1 || mark(s, n) == s->phase) return (uint64_t)t;
    }
}

/* ---- a run step by step ---------------------------------------------------------------- */

typedef struct step_rec {
    uint64_t scheduled, completed, censored;
    lat_hist h[3]; /* latency, lag, wait */
} step_rec;

struct lat_loadsched_steps {
    lat_loadsched_plan plan;
    uint64_t duration_ns;
    unsigned n;
    bool sent;
    uint64_t first_sent, first_intended;
    step_rec st[];
};

int lat_loadsched_steps_create(const lat_loadsched_plan *plan, uint64_t duration_ns,
                               lat_loadsched_steps **out) {
    if (!plan || !out) return -EINVAL;
    unsigned n = lat_loadsched_nsteps(plan);
    if (!n || n > LAT_LOADSCHED_MAX_STEPS) return -EINVAL;
    lat_loadsched_steps *s = calloc(1, sizeof *s + n * sizeof(step_rec));
    if (!s) return -ENOMEM;
    s->plan = *plan;
    s->duration_ns = duration_ns;
    for (unsigned k = 0; k < n; k++, s->n++) {
        int rc = 0;
        for (int j = 0; j < 3 && !rc; j++)
            if ((rc = lat_hist_init(&s->st[k].h[j], 1, STEP_HIST_HIGHEST, 2)))
                while (j--)
                    lat_hist_fini(&s->st[k].h[j]);
        if (rc) {
            lat_loadsched_steps_destroy(s);
            return rc;
        }
    }
    *out = s;
    return 0;
}

void lat_loadsched_steps_destroy(lat_loadsched_steps *s) {
    if (!s) return;
    for (unsigned k = 0; k < s->n; k++)
        for (int j = 0; j < 3; j++)
            lat_hist_fini(&s->st[k].h[j]);
    free(s);
}

static step_rec *rec_of(lat_loadsched_steps *s, uint64_t t_ns) {
    return &s->st[s->n == 1 ? 0 : lat_loadsched_step_of(&s->plan, s->duration_ns, t_ns)];
}

void lat_loadsched_steps_scheduled(lat_loadsched_steps *s, uint64_t intended_ns) {
    if (s) rec_of(s, intended_ns)->scheduled++;
}

void lat_loadsched_steps_sent(lat_loadsched_steps *s, uint64_t intended_ns, uint64_t sent_ns,
                              int64_t lag_ns, int64_t wait_ns, bool censored) {
    if (!s) return;
    if (!s->sent) {
        s->sent = true;
        s->first_sent = sent_ns;
        s->first_intended = intended_ns;
    }
    if (censored) return;
    step_rec *r = rec_of(s, intended_ns);
    lat_hist_record(&r->h[1], lag_ns);
    lat_hist_record(&r->h[2], wait_ns);
}

void lat_loadsched_steps_completed(lat_loadsched_steps *s, uint64_t intended_ns, int64_t latency_ns,
                                   bool censored) {
    if (!s) return;
    step_rec *r = rec_of(s, intended_ns);
    r->completed++;
    if (censored)
        r->censored++;
    else
        lat_hist_record(&r->h[0], latency_ns);
}

int lat_loadsched_steps_add(lat_loadsched_steps *to, const lat_loadsched_steps *from) {
    if (!to || !from || to->n != from->n) return -EINVAL;
    for (unsigned k = 0; k < to->n; k++) {
        to->st[k].scheduled += from->st[k].scheduled;
        to->st[k].completed += from->st[k].completed;
        to->st[k].censored += from->st[k].censored;
        for (int j = 0; j < 3; j++)
            lat_hist_add(&to->st[k].h[j], &from->st[k].h[j]);
    }
    if (from->sent && (!to->sent || from->first_sent < to->first_sent)) {
        to->sent = true;
        to->first_sent = from->first_sent;
        to->first_intended = from->first_intended;
    }
    return 0;
}

unsigned lat_loadsched_steps_n(const lat_loadsched_steps *s) {
    return s ? s->n : 0;
}

int lat_loadsched_steps_get(const lat_loadsched_steps *s, unsigned k, lat_loadsched_step *out) {
    if (!s || k >= s->n) return -EINVAL;
    const step_rec *r = &s->st[k];
    lat_loadsched_step_span(&s->plan, s->duration_ns, k, &out->from_ns, &out->to_ns, &out->rate0_hz,
                            &out->rate1_hz);
    out->scheduled = r->scheduled;
    out->completed = r->completed;
    out->censored = r->censored;
    out->latency = &r->h[0];
    out->lag = &r->h[1];
    out->wait = &r->h[2];
    return 0;
}

bool lat_loadsched_steps_first(const lat_loadsched_steps *s, uint64_t *sent_ns,
                               uint64_t *intended_ns) {
    if (!s || !s->sent) return false;
    *sent_ns = s->first_sent;
    *intended_ns = s->first_intended;
    return true;
}

int lat_loadsched_steps_judge(const lat_loadsched_steps *s, unsigned k, const double *ps,
                              size_t nps, double lag_fraction, double ci_width,
                              struct lat_load_verdict *out) {
    lat_loadsched_step st;
    if (lat_loadsched_steps_get(s, k, &st)) return -EINVAL;
    /* the step's own counts: what was scheduled in it and completed, over its span */
    lat_load_counts c = {.scheduled = st.scheduled,
                         .sent = st.completed,
                         .completed = st.completed,
                         .run_ns = st.to_ns - st.from_ns};
    lat_load_verdict_in in = {.arrivals = LAT_LOAD_CONSTANT, /* judged by its lag */
                              .latency = st.latency,
                              .lag = st.lag,
                              .wait = st.wait,
                              .counts = &c,
                              .duration_ns = st.to_ns - st.from_ns,
                              .ps = ps,
                              .nps = nps,
                              .lag_fraction = lag_fraction,
                              .ci_width = ci_width};
    return lat_load_verdict_judge(&in, out);
}

json_t *lat_loadsched_steps_json(const lat_loadsched_steps *s, const double *ps, size_t nps,
                                 double lag_fraction, double ci_width) {
    json_t *a = json_array();
    for (unsigned k = 0; a && k < lat_loadsched_steps_n(s); k++) {
        lat_loadsched_step st;
        lat_load_verdict v;
        lat_loadsched_steps_get(s, k, &st);
        lat_loadsched_steps_judge(s, k, ps, nps, lag_fraction, ci_width, &v);
        json_t *o = json_object();
        json_object_set_new(o, "from_s", json_real((double)st.from_ns / 1e9));
        json_object_set_new(o, "to_s", json_real((double)st.to_ns / 1e9));
        json_object_set_new(o, "rate_hz", json_real(st.rate0_hz));
        json_object_set_new(o, "rate_end_hz", json_real(st.rate1_hz));
        json_object_set_new(o, "scheduled", json_integer((json_int_t)st.scheduled));
        json_object_set_new(o, "completed", json_integer((json_int_t)st.completed));
        json_object_set_new(o, "censored", json_integer((json_int_t)st.censored));
        json_object_set_new(o, "latency_p50_ns",
                            json_integer(lat_hist_value_at_percentile(st.latency, 50)));
        json_object_set_new(o, "latency_p99_ns",
                            json_integer(lat_hist_value_at_percentile(st.latency, 99)));
        json_object_set_new(o, "lag_p99_ns",
                            json_integer(lat_hist_value_at_percentile(st.lag, 99)));
        json_object_set_new(o, "wait_p99_ns",
                            json_integer(lat_hist_value_at_percentile(st.wait, 99)));
        json_object_set_new(o, "valid", json_boolean(v.valid));
        json_object_set_new(o, "reason", json_string(v.reason));
        json_array_append_new(a, o);
    }
    return a;
}

unsigned lat_loadsched_steps_write(FILE *f, const lat_loadsched_steps *s, bool skew, bool table,
                                   const double *ps, size_t nps, double lag_fraction,
                                   double ci_width) {
    unsigned bad = 0;
    uint64_t sent, intended;
    if (skew && lat_loadsched_steps_first(s, &sent, &intended))
        fprintf(f,
                "start skew: the first send %.1f us after --start-at (its intended time %.1f us "
                "after it; a shard's first arrival comes after the start)\n",
                (double)sent / 1e3, (double)intended / 1e3);
    if (!table) return 0;
    fprintf(f, "\nsteps (each request in the step of its intended send time):\n");
    fprintf(f, "%4s %8s %8s %17s %10s %10s %10s %10s %10s  %s\n", "step", "from s", "to s",
            "rate/s", "scheduled", "completed", "p50 us", "p99 us", "lag p99 us", "verdict");
    for (unsigned k = 0; k < lat_loadsched_steps_n(s); k++) {
        lat_loadsched_step st;
        lat_load_verdict v;
        lat_loadsched_steps_get(s, k, &st);
        lat_loadsched_steps_judge(s, k, ps, nps, lag_fraction, ci_width, &v);
        char rate[40];
        if (st.rate0_hz == st.rate1_hz)
            snprintf(rate, sizeof rate, "%.0f", st.rate0_hz);
        else
            snprintf(rate, sizeof rate, "%.0f-%.0f", st.rate0_hz, st.rate1_hz);
        bad += !v.valid;
        fprintf(f, "%4u %8.1f %8.1f %17s %10" PRIu64 " %10" PRIu64 " %10.1f %10.1f %10.1f  %s%s\n",
                k, (double)st.from_ns / 1e9, (double)st.to_ns / 1e9, rate, st.scheduled,
                st.completed, (double)lat_hist_value_at_percentile(st.latency, 50) / 1e3,
                (double)lat_hist_value_at_percentile(st.latency, 99) / 1e3,
                (double)lat_hist_value_at_percentile(st.lag, 99) / 1e3,
                v.valid ? "valid" : "invalid: ", v.reason);
    }
    fprintf(f,
            "steps: %u of %u invalid (each judged on its own lag, wait, intervals and "
            "completions)\n",
            bad, lat_loadsched_steps_n(s));
    return bad;
}
