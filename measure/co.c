/* co.c - the coordinated-omission demonstration's engine (co.h): the toy
 * service and its closed and open loops, and what the platform took from
 * the measuring thread meanwhile (spin-loop gaps, run-queue wait, switches),
 * so a busy host's tail is not read as the lesson's. */
#include "latlab/co.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "latlab/clock.h"
#include "latlab/gaps.h"
#include "latlab/platform.h"

#define CO_HIGHEST_NS 3600000000000ll

void lat_co_config_default(lat_co_config *c) {
    *c = (lat_co_config){20000, 10000, 20000, 100000000, 10000};
}

int lat_co_result_init(lat_co_result *r) {
    *r = (lat_co_result){.closed = {0}};
    int rc;
    uint64_t gap = lat_clock_from_ns(lat_clock_default(), LAT_GAPS_DEFAULT_NS);
    if ((rc = lat_gaps_create(0, gap ? gap : 1, &r->gaps)) ||
        (rc = lat_hist_init(&r->closed, 1, CO_HIGHEST_NS, 3)) ||
        (rc = lat_hist_init(&r->corr, 1, CO_HIGHEST_NS, 3)) ||
        (rc = lat_hist_init(&r->open, 1, CO_HIGHEST_NS, 3))) {
        lat_co_result_fini(r);
        return rc;
    }
    return 0;
}

void lat_co_result_fini(lat_co_result *r) {
    lat_hist_fini(&r->closed);
    lat_hist_fini(&r->corr);
    lat_hist_fini(&r->open);
    lat_gaps_destroy(r->gaps);
    r->gaps = NULL;
}

/* Spin until t_ns, noting every gap between two counter reads in g, the
 * last one too (a preemption mostly ends the spin: the clock is past t_ns
 * when the thread runs again). */
static void spin_until(lat_gaps *g, uint64_t t_ns) {
    uint64_t prev = lat_cycles();
    for (;;) {
        uint64_t t = lat_mono_ns(), now = lat_cycles();
        lat_gaps_note(g, prev, now);
        prev = now;
        if (t >= t_ns) return;
    }
}

static void sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* The system under test: busy work, except the one freeze; a request with
 * gaps inside its busy work is counted in p (by the gaps' total). */
static void service(const lat_co_config *c, uint64_t seq, lat_gaps *g, lat_co_platform *p) {
    if (seq == c->stall_at) {
        sleep_ns(c->stall_ns);
        return;
    }
    uint64_t before = g->total;
    spin_until(g, lat_mono_ns() + c->service_ns);
    if (g->total == before) return;
    uint64_t ns = lat_clock_to_ns(lat_clock_default(), g->total - before);
    int b = ns ? 63 - __builtin_clzll(ns) : 0;
    p->slowed[b < LAT_CO_SLOW_BUCKETS ? b : LAT_CO_SLOW_BUCKETS - 1]++;
    p->service_gaps++;
}

static bool bad(const lat_co_config *c, const lat_co_result *r) {
    return !c || !r || !r->gaps || c->events == 0 || c->rate_hz == 0 || c->rate_hz > 1000000000u;
}

/* The account of one loop: started by plat_begin, filled by plat_end. */
typedef struct plat_mark {
    lat_schedstat s;
    bool have_s;
    uint64_t vol, invol, t0;
} plat_mark;

static void plat_begin(lat_co_result *r, plat_mark *m, lat_co_platform *p) {
    *p = (lat_co_platform){.measured = false};
    lat_gaps_clear(r->gaps);
    m->have_s = lat_schedstat_read(NULL, &m->s) == 0;
    if (lat_thread_switches(&m->vol, &m->invol)) m->vol = m->invol = 0;
    m->t0 = lat_mono_ns();
}

static void plat_end(const lat_co_result *r, const plat_mark *m, lat_co_platform *p) {
    const lat_clock_cal *cal = lat_clock_default();
    const lat_gaps *g = r->gaps;
    lat_schedstat s;
    uint64_t vol = 0, invol = 0;
    p->measured = true;
    p->gaps = g->count;
    p->loop_ns = (double)(lat_mono_ns() - m->t0);
    p->lost_ns = (double)lat_clock_to_ns(cal, g->total);
    p->longest_ns = (double)lat_clock_to_ns(cal, g->longest);
    p->gap_ns = (double)lat_clock_to_ns(cal, g->threshold);
    p->wait_ns = m->have_s && lat_schedstat_read(NULL, &s) == 0 && s.wait_ns >= m->s.wait_ns
                     ? (double)(s.wait_ns - m->s.wait_ns)
                     : NAN;
    if (!lat_thread_switches(&vol, &invol)) {
        p->vol = vol - m->vol;
        p->invol = invol - m->invol;
    }
}

int lat_co_run_closed(const lat_co_config *c, lat_co_result *r) {
    if (bad(c, r)) return -EINVAL;
    int64_t interval = (int64_t)(1000000000u / c->rate_hz);
    plat_mark m;
    plat_begin(r, &m, &r->plat_closed);
    for (uint64_t seq = 0; seq < c->events; seq++) {
        uint64_t t0 = lat_mono_ns();
        service(c, seq, r->gaps, &r->plat_closed);
        int64_t d = (int64_t)(lat_mono_ns() - t0);
        lat_hist_record(&r->closed, d);
        lat_hist_record_corrected(&r->corr, d, interval);
    }
    plat_end(r, &m, &r->plat_closed);
    return 0;
}

int lat_co_run_open(const lat_co_config *c, lat_co_result *r) {
    if (bad(c, r)) return -EINVAL;
    double period = 1e9 / (double)c->rate_hz;
    plat_mark m;
    plat_begin(r, &m, &r->plat_open);
    uint64_t start = lat_mono_ns() + 1000000;
    for (uint64_t seq = 0; seq < c->events; seq++) {
        uint64_t intended = start + (uint64_t)((double)seq * period);
        uint64_t now = lat_mono_ns();
        if (intended > now + 200000) sleep_ns(intended - now - 100000);
        spin_until(r->gaps, intended);
        service(c, seq, r->gaps, &r->plat_open);
        lat_hist_record(&r->open, (int64_t)(lat_mono_ns() - intended));
    }
    plat_end(r, &m, &r->plat_open);
    return 0;
}

json_t *lat_co_config_json(const lat_co_config *c) {
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "events", (json_int_t)c->events, "rate_hz",
                     (json_int_t)c->rate_hz, "service_ns", (json_int_t)c->service_ns, "stall_ns",
                     (json_int_t)c->stall_ns, "stall_at", (json_int_t)c->stall_at);
}

/* "12.3 ms" or "45.6 us" into b (32 bytes); NAN: "unknown". */
static const char *dur(char b[32], double ns) {
    if (isnan(ns)) return "unknown";
    bool ms = ns >= 1e6;
    snprintf(b, 32, "%.1f %s", ms ? ns / 1e6 : ns / 1e3, ms ? "ms" : "us");
    return b;
}

void lat_co_verdict_text(int64_t closed_p999_ns, int64_t open_p999_ns, int64_t closed_max_ns,
                         int64_t corrected_p999_ns, const char *ratio, char *buf, size_t len) {
    double cp = (double)closed_p999_ns / 1e3, op = (double)open_p999_ns / 1e3;
    double mx = (double)closed_max_ns / 1e6, kp = (double)corrected_p999_ns / 1e3;
    if (closed_p999_ns < open_p999_ns)
        snprintf(buf, len,
                 "closed loop hid the stall: its p99.9 is %.1fus against the open loop's "
                 "%.1fus (%s); only its max (%.1fms) betrays it.  The correction puts p99.9 "
                 "back at %.1fus.",
                 cp, op, ratio, mx, kp);
    else
        snprintf(buf, len,
                 "closed loop hid nothing at p99.9 this run: its p99.9 is %.1fus, not below "
                 "the open loop's %.1fus (%s); the stall is too short or too rare to show "
                 "there, or the host delayed the closed loop too (max %.1fms).  The "
                 "corrected p99.9 is %.1fus.",
                 cp, op, ratio, mx, kp);
}

void lat_co_platform_text(const lat_co_platform *p, char *buf, size_t len) {
    char a[32], b[32], c[32];
    snprintf(buf, len,
             "lost %s (%.1f%%) in %" PRIu64 " gaps >= %.0f us (%" PRIu64
             " requests slowed), longest %s; run-queue wait %s; switches %" PRIu64 " vol %" PRIu64
             " invol",
             dur(a, p->lost_ns), p->loop_ns > 0 ? 100 * p->lost_ns / p->loop_ns : 0.0, p->gaps,
             p->gap_ns / 1e3, p->service_gaps, dur(b, p->longest_ns), dur(c, p->wait_ns), p->vol,
             p->invol);
}

/* Requests slowed by at least half of p999_ns (buckets that reach it). */
static uint64_t slowed_by(const lat_co_platform *p, int64_t p999_ns) {
    uint64_t n = 0;
    double half = (double)p999_ns / 2;
    for (int b = 0; b < LAT_CO_SLOW_BUCKETS; b++)
        if (ldexp(1.0, b + 1) > half) n += p->slowed[b];
    return n;
}

bool lat_co_host_busy(const lat_co_platform *p, uint64_t events, int64_t p999_ns, char *buf,
                      size_t len) {
    if (len) buf[0] = 0;
    if (!p || !p->measured || !events) return false;
    double share = p->loop_ns > 0 ? p->lost_ns / p->loop_ns : 0;
    double wait_share = p->loop_ns > 0 && !isnan(p->wait_ns) ? p->wait_ns / p->loop_ns : 0;
    if (wait_share > share) share = wait_share;
    uint64_t slow = slowed_by(p, p999_ns);
    bool tail = slow * LAT_CO_BUSY_PER >= events;
    if (share < LAT_CO_BUSY_SHARE && !tail) return false;
    if (tail)
        snprintf(buf, len,
                 "%" PRIu64 " of %" PRIu64 " requests (%.2f%%, enough to be the p99.9) had "
                 "platform gaps inside them of half the p99.9 or more, and the platform took "
                 "%.1f%% of the loop",
                 slow, events, 100.0 * (double)slow / (double)events, 100 * share);
    else
        snprintf(buf, len, "the platform took %.1f%% of the loop (gaps or run-queue wait)",
                 100 * share);
    return true;
}
