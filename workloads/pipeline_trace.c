/* pipeline_trace.c - the stamped pipeline's aggregation (see
 * pipeline_internal.h): the stage tracer (trace.h: cold, backoff idle) takes
 * the stamps the last hot stage ships, converts and records the stages,
 * writes the interval logs (atomically: hlog_atomic) and feeds the flight
 * recorder; what is the lab's own runs in the tracer's callbacks on its
 * aggregator thread: per-event checks, per-source-kind work, per-interval
 * figures by intended send time, the slowest samples for attribution, each
 * sample's stamps for censoring (pipecensor.h), and the publisher. */
#include "latlab/pipeline.h"

#include <math.h>
#include <string.h>

#include "latlab/hist.h"
#include "latlab/trace.h"
#include "pipeline_internal.h"

typedef lat__pipe_run run;
typedef lat__pipe_sample sample;
typedef lat__pipe_slow slow;
typedef lat__pipe_slow_heap slow_heap;
typedef lat__pipe_iv iv_state;

/* ---- the slowest samples of a stage: a bounded min-heap (the tracer thread only) ----- */

static void slow_sift_down(slow_heap *h, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < h->n && h->v[l].ns < h->v[m].ns) m = l;
        if (l + 1 < h->n && h->v[l + 1].ns < h->v[m].ns) m = l + 1;
        if (m == i) return;
        slow t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
}

static void slow_add(slow_heap *h, uint64_t ns, uint64_t from, uint64_t to) {
    if (h->n < h->cap) {
        size_t i = h->n++;
        h->v[i] = (slow){ns, from, to};
        while (i > 0 && h->v[(i - 1) / 2].ns > h->v[i].ns) {
            slow t = h->v[i];
            h->v[i] = h->v[(i - 1) / 2];
            h->v[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (h->cap && ns > h->v[0].ns) {
        h->v[0] = (slow){ns, from, to};
        slow_sift_down(h, 0);
    }
}

/* ---- aggregation: the stage tracer, and the lab's per-event bookkeeping ------------------ */

/* Before the run; start_cycles is taken at the first sample (iv_add). */
bool lat__pipe_iv_init(run *R, iv_state *v) {
    memset(v, 0, sizeof *v);
    if (!R->ivc || !R->r->iv) return false;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (R->r->h[s] && lat_hist_init(&v->h[s], 1, LAT__PIPE_HIST_HIGHEST_NS, 3) != 0)
            return false;
    v->on = true;
    return true;
}

/* Mean of the recorded values at or below upto (NAN when none). */
static double body_mean(const lat_hist *h, int64_t upto) {
    lat_hist_iter it;
    lat_hist_iter_recorded(&it, h);
    double sum = 0, n = 0;
    while (lat_hist_iter_next(&it) && it.value <= upto) {
        sum += (double)lat_hist_median_equivalent(h, it.value) * (double)it.count_at_value;
        n += (double)it.count_at_value;
    }
    return n > 0 ? sum / n : NAN;
}

/* An interval histogram's p50 / p99 / p99.9 (x) and body mean. */
static double iv_figs(const lat_hist *h, int64_t x[3]) {
    static const double ps[] = {50, 99, 99.9};
    lat_hist_values_at_percentiles(h, ps, x, 3);
    return body_mean(h, x[1]);
}

static void iv_close(run *R, iv_state *v) {
    lat_pipe_result *r = R->r;
    if (!v->count || v->cur >= R->iv_cap) return;
    lat_pipe_interval *o = &r->iv[v->cur];
    o->count = v->count;
    int64_t x[3];
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        o->p50[s] = o->p99[s] = o->p999[s] = o->max[s] = -1;
        o->body_mean[s] = NAN;
        if (!r->h[s]) continue;
        o->body_mean[s] = iv_figs(&v->h[s], x);
        o->p50[s] = x[0], o->p99[s] = x[1], o->p999[s] = x[2];
        o->max[s] = lat_hist_max(&v->h[s]);
        lat_hist_reset(&v->h[s]);
    }
    uint64_t span = lat_clock_to_ns(R->cal, v->last_done - v->prev_done);
    o->tput_hz = span ? (double)v->count * 1e9 / (double)span : 0;
    if (v->cur + 1 > r->niv) r->niv = (size_t)v->cur + 1;
    v->prev_done = v->last_done;
    v->count = 0;
}

static void iv_add(run *R, iv_state *v, const sample *s, uint64_t t3, const uint64_t *ns) {
    if (!v->prev_done) v->prev_done = v->last_done = R->start_cycles;
    uint64_t k = s->t0 > R->start_cycles ? (s->t0 - R->start_cycles) / R->ivc : 0;
    if (k > v->cur) {
        iv_close(R, v);
        v->cur = k;
    }
    for (int st = 0; st < LAT_PIPE_NSTAGES; st++)
        if (R->r->h[st]) lat_hist_record(&v->h[st], (int64_t)ns[st]);
    v->count++;
    if (t3 > v->last_done) v->last_done = t3;
}

void lat__pipe_iv_fini(iv_state *v) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        lat_hist_fini(&v->h[s]);
}

/* Keep the slowest samples of each stage with their hop's bounds. */
static void note_slow(run *R, const sample *s, uint64_t t3, const uint64_t *ns) {
    const uint64_t from[LAT_PIPE_NSTAGES] = {s->t0, s->tp, s->t1, s->t2, s->t0};
    const uint64_t to[LAT_PIPE_NSTAGES] = {s->tp, s->t1, s->t2, t3, t3};
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (R->r->h[k]) slow_add(&R->slow[k], ns[k], from[k], to[k]);
}

/* The tracer's per-block callback (on its aggregator thread): the lab's checks
 * and the figures the stage histograms cannot keep.  Blocks are shipped after
 * `go`, so start_cycles is visible here (go's release/acquire, then the ring's). */
static void on_block(void *ud, const lat_trace_stamps *b, const int64_t *tns) {
    run *R = ud;
    lat_pipe_result *r = R->r;
    bool full = R->c.shape == LAT_PIPE_FULL;
    sample s = {b->id,       b->t[PT_T0], b->t[PT_TP],  b->t[PT_T1],
                b->t[PT_T2], b->t[PT_T3], b->t[PT_KIND]};
    uint64_t t3 = full ? s.t3 : s.t2;
    if (s.tp < s.t0 || s.t1 < s.tp || s.t2 < s.t1 || t3 < s.t2) r->nonmonotonic++;
    uint64_t ns[LAT_PIPE_NSTAGES] = {0}; /* clamped by the tracer: never negative here */
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (R->tstage[k] >= 0 && tns[R->tstage[k]] > 0) ns[k] = (uint64_t)tns[R->tstage[k]];
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (r->h[k] && ns[k] > ns[LAT_PIPE_E2E]) r->e2e_below_part++;
    if (s.kind < LAT_PIPE_MAXKINDS && r->h_kind[s.kind])
        lat_hist_record(r->h_kind[s.kind], (int64_t)ns[LAT_PIPE_WORK]);
    if (!R->flight_raw_set) {
        /* The tracer records a block into the flight recorder before this
         * call: the first block that finds it triggered is the trigger. */
        const lat_flight *f = lat_trace_flight(R->tr);
        if (f && lat_flight_triggered(f)) {
            r->flight_fired = 1;
            R->flight_raw = s;
            R->flight_raw_set = true;
        }
    }
    if (R->fv) iv_add(R, R->fv, &s, t3, ns);
    if (R->slow) note_slow(R, &s, t3, ns);
    lat__pipe_cbuf_add(&R->cb, s.t0, s.tp, s.t1, s.t2, t3);
    if (t3 > R->last_t) R->last_t = t3;
}

/* The tracer's per-interval callback: the publisher gets the cumulative
 * histograms (h[stage], NULL for absent stages) at the first interval close
 * a publish interval after the last one, and at the last, partial one. */
static void on_interval(void *ud, const lat_trace_interval *iv) {
    run *R = ud;
    if (!R->c.publish) return;
    uint64_t now = lat_mono_ns();
    if (R->pub_at && now - R->pub_at + R->trace_iv_ns / 2 < R->pub_ns) return;
    const lat_hist *h[LAT_PIPE_NSTAGES] = {0};
    for (int k = 0; k < LAT_PIPE_NSTAGES; k++)
        if (R->tstage[k] >= 0) h[k] = iv->cumulative[R->tstage[k]];
    R->c.publish(R->c.publish_ud, h);
    R->pub_at = now;
}

/* The tracer for this run: the stages present, in the flight recorder's slot
 * order (q1+wake, work, q2+wake, send), then e2e, its trigger.  Its interval
 * is the interval logs' (else the publisher's; the tracer's floor is 1 ms). */
int lat__pipe_trace_create(run *R, const lat_pipe_config *cfg) {
    static const int order[] = {LAT_PIPE_Q1, LAT_PIPE_WORK, LAT_PIPE_Q2, LAT_PIPE_SEND,
                                LAT_PIPE_E2E};
    bool full = cfg->shape == LAT_PIPE_FULL;
    const unsigned from[LAT_PIPE_NSTAGES] = {PT_T0, PT_TP, PT_T1, PT_T2, PT_T0};
    const unsigned to[LAT_PIPE_NSTAGES] = {PT_TP, PT_T1, PT_T2, PT_T3, full ? PT_T3 : PT_T2};
    lat_trace_stage st[LAT_PIPE_NSTAGES];
    unsigned n = 0;
    for (int i = 0; i < LAT_PIPE_NSTAGES; i++) {
        int k = order[i];
        R->tstage[k] = -1;
        if (!lat_pipe_stage_present(k, cfg->shape, cfg->split_q1)) continue;
        st[n] = (lat_trace_stage){lat_pipe_stages[k].name, from[k], to[k]};
        R->tstage[k] = (int)n++;
    }
    R->pub_ns = cfg->publish_interval_ns ? cfg->publish_interval_ns : 1000000000ull;
    uint64_t iv = cfg->hlog_interval_ns ? cfg->hlog_interval_ns : 1000000000ull;
    if (!cfg->hlog_prefix && cfg->publish) iv = R->pub_ns;
    R->trace_iv_ns = iv < 1000000ull ? 1000000ull : iv;
    lat_trace_config tc;
    lat_trace_config_default(&tc);
    tc.stages = st;
    tc.nstages = n;
    tc.highest_ns = LAT__PIPE_HIST_HIGHEST_NS;
    tc.interval_ns = R->trace_iv_ns;
    tc.sink_capacity = cfg->sample_cap;
    tc.cal = R->cal;
    tc.hlog_prefix = cfg->hlog_prefix;
    tc.hlog_atomic = true; /* an old log is replaced only by a complete one */
    tc.error_path = R->r->log_error_path;
    tc.error_path_cap = sizeof R->r->log_error_path;
    tc.on_block = on_block;
    tc.on_interval = on_interval;
    tc.ud = R;
    tc.flight_threshold_ns = cfg->flight_threshold_ns;
    tc.flight_post = cfg->flight_post;
    /* a backlog behind the outlier is kept until it drains (below half the
     * threshold), not cut after flight_post events */
    if (cfg->flight_threshold_ns != LAT_FLIGHT_NONE)
        tc.flight_drain_ns = cfg->flight_threshold_ns / 2;
    tc.flight_stage = R->tstage[LAT_PIPE_E2E];
    int rc = lat_trace_create(&tc, &R->tr);
    if (rc && R->r->log_error_path[0]) R->r->log_error = rc; /* a log could not be opened */
    if (rc == 0) rc = lat_trace_sink_create(R->tr, 0, &R->sink);
    return rc;
}

/* After the hot threads joined: drain, stop, and take the stages' histograms,
 * the counts and the flight recorder into the result.  A log's write error is
 * the result's log_error (the run stands); anything else fails the run. */
int lat__pipe_trace_finish(run *R, lat_pipe_result *r) {
    int e = lat_trace_stop(R->tr);
    if (e) r->log_error = e; /* error_path named it */
    int rc = 0;
    for (int k = 0; k < LAT_PIPE_NSTAGES && rc == 0; k++) {
        if (!r->h[k] || R->tstage[k] < 0) continue;
        lat_hist h;
        rc = lat_trace_hist_copy(R->tr, (unsigned)R->tstage[k], LAT_TRACE_CUMULATIVE, &h);
        if (rc == 0) {
            lat_hist_add(r->h[k], &h); /* the same geometry: nothing falls outside */
            lat_hist_fini(&h);
        }
    }
    lat_trace_counts n;
    lat_trace_counts_get(R->tr, &n);
    r->recorded = n.recorded;
    r->dropped = n.dropped;
    r->out_of_range = n.out_of_range;
    r->flight = lat_trace_flight_take(R->tr);
    if (R->fv) iv_close(R, R->fv);
    r->wall_ns =
        R->last_t > R->start_cycles ? lat_clock_to_ns(R->cal, R->last_t - R->start_cycles) : 0;
    return rc;
}
