/* pipeline_account.c - the stamped pipeline's platform account and tail
 * attribution (see pipeline_internal.h), cold: before and after the run.
 * Before: a gap recorder per hot thread (gaps.h), the censoring buffer
 * (pipecensor.h), the per-interval array and the slowest-samples heaps.
 * Around: /proc/stat over the hot CPUs (platform.h).  After: each interval's
 * lost time, the slowest samples of each stage matched against the gaps
 * (tail attribution), and the flight recorder's baselines and the gap that
 * explains its outlier. */
#include "latlab/pipeline.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/gaps.h"
#include "latlab/platform.h"
#include "pipeline_internal.h"

typedef lat__pipe_run run;
typedef lat__pipe_sample sample;
typedef lat__pipe_slow slow;
typedef lat__pipe_slow_heap slow_heap;

/* Gap list entries per thread: the config's, else room for 10,000 gaps per
 * second of run (eight times the busiest host measured), at least the
 * recorder's default: censoring needs every gap (16 bytes each). */
static size_t gap_capacity(const lat_pipe_config *cfg) {
    if (cfg->gap_capacity) return cfg->gap_capacity;
    double n = (double)cfg->events / (double)cfg->rate_hz * 10000;
    if (n > (double)(1u << 22)) return 1u << 22;
    return n > LAT_GAPS_DEFAULT_CAP ? (size_t)n : LAT_GAPS_DEFAULT_CAP;
}

int lat__pipe_account_create(run *R, const lat_pipe_config *cfg, lat_pipe_result *r) {
    bool full = cfg->shape == LAT_PIPE_FULL;
    uint64_t thr_ns = cfg->gap_threshold_ns ? cfg->gap_threshold_ns : LAT_GAPS_DEFAULT_NS;
    uint64_t thr = lat_clock_from_ns(R->cal, thr_ns);
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (k == LAT_PIPE_CONSUMER && !full) continue;
        int rc = lat_gaps_create(gap_capacity(cfg), thr ? thr : 1, &r->gaps[k]);
        if (rc) return rc;
    }
    size_t ccap = cfg->censor_cap ? cfg->censor_cap : LAT_PIPE_CENSOR_CAP;
    if (ccap > cfg->events) ccap = (size_t)cfg->events;
    int crc = lat__pipe_cbuf_init(&R->cb, ccap);
    if (crc) return crc;
    if (cfg->interval_ns) {
        R->ivc = lat_clock_from_ns(R->cal, cfg->interval_ns);
        if (!R->ivc) R->ivc = 1;
        double run_ns = (double)cfg->events * 1e9 / (double)cfg->rate_hz;
        double n = run_ns / (double)cfg->interval_ns + 2;
        R->iv_cap = n > 1e6 ? 1000000 : (size_t)n;
        r->iv = lat__calloc(R->iv_cap, sizeof *r->iv);
        if (!r->iv) return -ENOMEM;
    }
    /* the slowest 1% (+2) of each stage, enough for everything above p99 */
    uint64_t cap = cfg->events / 100 + 2;
    if (cap > 65536) cap = 65536;
    R->slow = lat__calloc(LAT_PIPE_NSTAGES, sizeof *R->slow);
    if (!R->slow) return -ENOMEM;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        R->slow[s].v = lat__calloc(cap, sizeof(slow));
        if (!R->slow[s].v) return -ENOMEM;
        R->slow[s].cap = cap;
    }
    return 0;
}

void lat__pipe_account_destroy(run *R) {
    lat__pipe_cbuf_fini(&R->cb);
    if (!R->slow) return;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        lat__free(R->slow[s].v);
    lat__free(R->slow);
}

/* /proc/stat over the hot CPUs (all CPUs when unpinned). */
void lat__pipe_cpustat_sum(const lat_pipe_config *c, lat_cpustat *out) {
    memset(out, 0, sizeof *out);
    bool any = false;
    for (int k = 0; k < LAT_PIPE_NHOT && !c->no_pin; k++) {
        lat_cpustat one;
        if (c->cpus[k] < 0 || lat_cpustat_read(NULL, c->cpus[k], &one) != 0) continue;
        any = true;
        out->user += one.user, out->nice += one.nice, out->system += one.system;
        out->idle += one.idle, out->iowait += one.iowait, out->irq += one.irq;
        out->softirq += one.softirq, out->steal += one.steal;
    }
    if (!any) lat_cpustat_read(NULL, -1, out);
}

void lat__pipe_cpustat_delta(const lat_cpustat *a, const lat_cpustat *b, lat_pipe_cpustat *o) {
    uint64_t ta = lat_cpustat_total(a), tb = lat_cpustat_total(b);
    if (tb <= ta) {
        o->steal_pct = o->irq_pct = o->softirq_pct = NAN;
        return;
    }
    double d = (double)(tb - ta);
    o->steal_pct = 100.0 * (double)(b->steal - a->steal) / d;
    o->irq_pct = 100.0 * (double)(b->irq - a->irq) / d;
    o->softirq_pct = 100.0 * (double)(b->softirq - a->softirq) / d;
}

/* Did a gap on a thread carrying the hop overlap [from, to]?  Returns the
 * role, or -1. */
static int hop_gap_role(const lat_pipe_result *r, int stage, uint64_t from, uint64_t to) {
    unsigned th = lat_pipe_stage_threads(stage);
    int best = -1;
    uint64_t most = 0;
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (!(th & (1u << k)) || !r->gaps[k]) continue;
        uint64_t o = lat_gaps_overlap(r->gaps[k], from, to + 1);
        if (o > most) most = o, best = k;
    }
    return best;
}

static void attribute_tails(run *R, lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        lat_pipe_tail *t = &r->tail[s];
        t->thread999 = -1;
        if (!r->h[s]) continue;
        t->p99_ns = lat_hist_value_at_percentile(r->h[s], 99);
        t->p999_ns = lat_hist_value_at_percentile(r->h[s], 99.9);
        uint64_t by_role[LAT_PIPE_NHOT] = {0};
        const slow_heap *h = &R->slow[s];
        for (size_t i = 0; i < h->n; i++) {
            const slow *x = &h->v[i];
            if ((int64_t)x->ns <= t->p99_ns) continue;
            int role = hop_gap_role(r, s, x->from, x->to);
            t->above99++;
            if (role >= 0) t->above99_gap++;
            if ((int64_t)x->ns <= t->p999_ns) continue;
            t->above999++;
            if (role >= 0) t->above999_gap++, by_role[role]++;
        }
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (by_role[k] && (t->thread999 < 0 || by_role[k] > by_role[t->thread999]))
                t->thread999 = k;
    }
}

/* The flight recorder judges neighbours against the run's p50 of each stage
 * (a backlog filling its window would raise the window's own median). */
static void flight_baselines(const lat_pipe_config *c, lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        int slot = lat_pipe_flight_slot(s, c->shape, c->split_q1);
        if (slot >= 0 && r->h[s] && lat_hist_total(r->h[s]) > 0)
            lat_flight_set_baseline(r->flight, (unsigned)slot,
                                    (uint64_t)lat_hist_value_at_percentile(r->h[s], 50));
    }
}

/* The pipeline stage the flight verdict found slow in the trigger (its slot),
 * or e2e when there is no verdict for that sample. */
static int flight_stage(const run *R, const lat_pipe_result *r) {
    lat_flight_verdict v;
    if (!r->flight || lat_flight_analyze(r->flight, &v) != 0 || v.shape == LAT_FLIGHT_NO_TRIGGER ||
        v.trigger_seq != R->flight_raw.seq)
        return LAT_PIPE_E2E;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (lat_pipe_flight_slot(s, R->c.shape, R->c.split_q1) == v.stage) return s;
    return LAT_PIPE_E2E;
}

/* "60.0 ms", "64.0 us", "663 ns". */
static void fmt_span(char *b, size_t n, double ns) {
    double d = ns >= 1e6 ? 1e6 : ns >= 1e3 ? 1e3 : 1;
    snprintf(b, n, "%.*f %s", d > 1 ? 1 : 0, ns / d, d > 1e3 ? "ms" : d > 1 ? "us" : "ns");
}

/* What explains the flight outlier: a gap counts only on a thread carrying
 * the stage that grew and inside that stage's window of the outlier, and only
 * for the time it covers there; the sentence says how much. */
static void flight_gap(const run *R, lat_pipe_result *r) {
    const sample *s = &R->flight_raw;
    uint64_t t3 = R->c.shape == LAT_PIPE_FULL ? s->t3 : s->t2;
    const uint64_t from[LAT_PIPE_NSTAGES] = {s->t0, s->tp, s->t1, s->t2, s->t0};
    const uint64_t to[LAT_PIPE_NSTAGES] = {s->tp, s->t1, s->t2, t3, t3};
    int st = flight_stage(R, r);
    uint64_t a = from[st], b = to[st] > from[st] ? to[st] : from[st];
    unsigned th = lat_pipe_stage_threads(st);
    int best = -1, nthr = 0;
    uint64_t most = 0;
    char who[64] = "", span[32], cov[32], len[32];
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (!(th & (1u << k)) || !r->gaps[k]) continue;
        size_t w = strlen(who);
        snprintf(who + w, sizeof who - w, "%s%s", nthr++ ? " or the " : "",
                 lat_pipe_role_name(R->c.shape, k));
        uint64_t o = lat_gaps_overlap(r->gaps[k], a, b);
        if (o > most) most = o, best = k;
    }
    double span_ns = (double)lat_clock_to_ns(R->cal, b - a);
    fmt_span(span, sizeof span, span_ns);
    const char *stage = lat_pipe_stage_name(st);
    if (best < 0) {
        snprintf(r->flight_gap, sizeof r->flight_gap,
                 "no platform gap on the %s inside seq %" PRIu64 "'s %s window (%s): that time "
                 "is the pipeline's own",
                 who, s->seq, stage, span);
        return;
    }
    const lat_gaps *g = r->gaps[best];
    size_t kept = lat_gaps_kept(g), ngaps = 0;
    uint64_t longest = 0;
    for (size_t i = lat_gaps_search(g->list, kept, a); i < kept && g->list[i].start < b; i++)
        ngaps++, longest = g->list[i].len > longest ? g->list[i].len : longest;
    double cov_ns = (double)lat_clock_to_ns(R->cal, most);
    fmt_span(cov, sizeof cov, cov_ns);
    fmt_span(len, sizeof len, (double)lat_clock_to_ns(R->cal, longest));
    char gaps[96];
    int w = ngaps > 1 ? snprintf(gaps, sizeof gaps, "%zu gaps (longest %s)", ngaps, len)
                      : snprintf(gaps, sizeof gaps, "a %s gap", len);
    double share = span_ns > 0 ? cov_ns / span_ns : 0;
    char line[512];
    w = snprintf(line, sizeof line,
                 "%s on the %s cover%s %s of seq %" PRIu64 "'s %s in %s (%.0f%%): %s", gaps,
                 lat_pipe_role_name(R->c.shape, best), ngaps > 1 ? "" : "s", cov, s->seq, span,
                 stage, 100 * share,
                 share >= 0.5 ? "mostly the platform's time, not the pipeline's"
                              : "the rest is the pipeline's own");
    (void)w;
    size_t n = strlen(line); /* a cut sentence still says which thread and how much */
    if (n >= sizeof r->flight_gap) n = sizeof r->flight_gap - 1;
    memcpy(r->flight_gap, line, n);
    r->flight_gap[n] = 0;
}

void lat__pipe_account_finish(run *R, lat_pipe_result *r) {
    r->run_start_cycles = R->start_cycles;
    for (size_t i = 0; i < r->niv; i++) {
        uint64_t a = R->start_cycles + i * R->ivc;
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            r->iv[i].lost_ns[k] =
                lat_clock_to_ns(R->cal, lat_gaps_overlap(r->gaps[k], a, a + R->ivc));
    }
    attribute_tails(R, r);
    if (r->flight) flight_baselines(&R->c, r);
    if (R->flight_raw_set) flight_gap(R, r);
}
