/* pipecensor.c - the pipeline's per-sample censoring (see pipecensor.h and
 * censor.h).  Each sample's figures are the stage windows of pipeline.h:
 * send [t0, tp) on the producer, q1+wake [tp, t1) on producer and worker,
 * work [t1, t2) on the worker, q2+wake [t2, t3) on worker and consumer, e2e
 * [t0, end) on all of them.  A sample met a queue when it was due (t0)
 * before the worker finished the sample before it (t2), or, in the full
 * shape, reached q2 (t2) before the consumer took that one (t3): that is the
 * busy period the backlog rule follows.
 *
 * What the gap lists see: a hot thread records a gap when two consecutive
 * counter reads of its loop are far apart.  The worker reads at t1 and t2
 * and notes the stretch from its previous read up to t1, so a gap while it
 * polls (or ships) is recorded and overlaps the q1+wake window of every
 * sample due meanwhile.  Inside [t1, t2) it does not read the counter: there
 * the rseq probe (preempt.h) says whether the kernel took the CPU, and if it
 * did, the whole window [t1, t2) is a recorded gap (when at least the
 * threshold long), so that sample's work figure leaves and the samples
 * queued behind it meet its backlog.  A long window the kernel did not
 * interrupt (an allocator slow path, a minor page fault, a busy stall) is the
 * thread's own time and stays.  The hypervisor's steal inside a work window
 * is invisible to the guest: that one sample stays in (rare: about 1e-4 of
 * 100 ns windows at 1,200 gaps/s).
 */
#include "pipecensor.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "alloc_internal.h"
#include "latlab/censor.h"

#define CHIST_HIGHEST_NS 100000000000ll /* 100 s, as the stage histograms */

int lat__pipe_cbuf_init(lat__pipe_cbuf *b, size_t cap) {
    memset(b, 0, sizeof *b);
    if (cap == 0) return 0;
    b->v = lat__alloc(cap * sizeof *b->v);
    if (!b->v) return -ENOMEM;
    b->cap = cap;
    return 0;
}

void lat__pipe_cbuf_fini(lat__pipe_cbuf *b) {
    lat__free(b->v);
    memset(b, 0, sizeof *b);
}

void lat__pipe_censor_fini(lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        lat_hist_destroy(r->censor[s].net);
        lat_hist_destroy(r->censor[s].cens);
    }
}

/* The hot threads' gap lists as timelines; a full list is known up to the
 * end of its last kept gap. */
static void timelines(const lat_pipe_result *r, lat_censor_timeline *tl) {
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_gaps *g = r->gaps[k];
        size_t n = lat_gaps_kept(g);
        tl[k] = (lat_censor_timeline){g ? g->list : NULL, n, UINT64_MAX};
        if (g && g->overflow && n) tl[k].horizon = g->list[n - 1].start + g->list[n - 1].len;
    }
}

/* A buffered sample's stamps t[0..4] = t0, tp, t1, t2, t3 (compact: t3 = t2);
 * false when a delta did not fit (not judged). */
static bool stamps(const lat__pipe_stamp *s, uint64_t *t) {
    t[0] = s->t0;
    for (int i = 0; i < 4; i++) {
        if (s->d[i] == UINT32_MAX) return false;
        t[i + 1] = t[i] + s->d[i];
    }
    return true;
}

static void event_of(const lat_pipe_result *r, bool full, const uint64_t *t, const uint64_t *prev,
                     lat_censor_event *e) {
    static const int from[LAT_PIPE_NSTAGES] = {0, 1, 2, 3, 0};
    const int to[LAT_PIPE_NSTAGES] = {1, 2, 3, 4, full ? 4 : 3};
    memset(e, 0, sizeof *e);
    e->queued = prev && (t[0] < prev[3] || (full && t[3] < prev[4]));
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (r->h[s])
            e->fig[s] = (lat_censor_window){t[from[s]], t[to[s]], lat_pipe_stage_threads(s)};
}

/* Gaps per second of running time on the threads carrying stage s: a
 * window's chance to avoid gaps is set by the rate while the thread runs,
 * so each loop's wall time less the time its gaps took (a rate over the
 * wall time reads low by the lost share: 20% at 20% loss). */
static double gap_rate_hz(const lat_pipe_result *r, int s) {
    double hz = 0;
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        if (!(lat_pipe_stage_threads(s) & (1u << k)) || !r->gaps[k]) continue;
        double lost = r->cycles_per_ns > 0 ? (double)r->gaps[k]->total / r->cycles_per_ns : 0;
        double run_ns = (double)r->thr[k].loop_ns - lost;
        if (run_ns > 0) hz += (double)r->gaps[k]->count * 1e9 / run_ns;
    }
    return hz;
}

typedef struct tally {
    uint64_t prev_t0, first_t0, last_t0;
    double kept_time[LAT_PIPE_NSTAGES];
} tally;

static void record(const lat_clock_cal *cal, const lat_censor_event *e, const uint8_t *why,
                   const unsigned *who, uint64_t spacing, tally *ty, lat_pipe_result *r,
                   lat_pipe_interval *iv) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        lat_pipe_censor_fig *f = &r->censor[s];
        if (!f->net) continue;
        const lat_censor_window *w = &e->fig[s];
        int64_t ns = (int64_t)lat_clock_to_ns(cal, w->to > w->from ? w->to - w->from : 0);
        if (why[s] == LAT_CENSOR_KEPT) {
            lat_hist_record(f->net, ns);
            f->kept++;
            ty->kept_time[s] += (double)spacing;
            if (iv) iv->kept[s]++;
            continue;
        }
        lat_hist_record(f->cens, ns);
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (who[s] & (1u << k)) f->by_thread[k]++;
        if (why[s] == LAT_CENSOR_GAP) f->by_gap++;
        if (why[s] == LAT_CENSOR_BACKLOG) f->by_backlog++;
        if (why[s] == LAT_CENSOR_UNKNOWN) f->unknown++;
    }
}

static int alloc_hists(lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (!r->h[s]) continue;
        int rc = lat_hist_create(1, CHIST_HIGHEST_NS, 3, &r->censor[s].net);
        if (rc == 0) rc = lat_hist_create(1, CHIST_HIGHEST_NS, 3, &r->censor[s].cens);
        if (rc) return rc;
    }
    return 0;
}

/* The shares and the weighted net percentiles, once every sample is in. */
static void summarise(const tally *ty, lat_pipe_result *r) {
    static const double ps[3] = {50, 99, 99.9};
    double span = (double)(ty->last_t0 - ty->first_t0);
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        lat_pipe_censor_fig *f = &r->censor[s];
        if (!f->net) continue;
        f->kept_time_share = span > 0 ? ty->kept_time[s] / span : NAN;
        f->gap_rate_hz = gap_rate_hz(r, s);
        int64_t x[3] = {0, 0, 0};
        lat_censor_ipw_percentiles(f->net, f->gap_rate_hz / 1e9, ps, x, 3);
        f->ipw_p50 = x[0], f->ipw_p99 = x[1], f->ipw_p999 = x[2];
    }
}

int lat__pipe_censor_finish(const lat_pipe_config *c, const lat_clock_cal *cal,
                            const lat__pipe_cbuf *b, uint64_t start, uint64_t ivc,
                            lat_pipe_result *r) {
    int rc = alloc_hists(r);
    if (rc) return rc;
    bool full = c->shape == LAT_PIPE_FULL;
    lat_censor_timeline tl[LAT_PIPE_NHOT];
    timelines(r, tl);
    lat_censor j;
    lat_censor_init(&j, tl, LAT_PIPE_NHOT, LAT_PIPE_NSTAGES);
    tally ty = {0};
    uint64_t t[5], prev[5];
    bool have_prev = false;
    r->censor_unjudged = b->beyond;
    for (size_t i = 0; i < b->n; i++) {
        if (!stamps(&b->v[i], t)) {
            r->censor_unjudged++;
            continue;
        }
        lat_censor_event e;
        event_of(r, full, t, have_prev ? prev : NULL, &e);
        uint8_t why[LAT_CENSOR_MAXFIG];
        unsigned who[LAT_CENSOR_MAXFIG];
        lat_censor_judge(&j, &e, why, who);
        if (c->censor_hook) c->censor_hook(c->censor_ud, t, why, who);
        if (!r->censor_judged) ty.first_t0 = ty.prev_t0 = t[0];
        uint64_t spacing = t[0] > ty.prev_t0 ? t[0] - ty.prev_t0 : 0;
        uint64_t k = ivc && t[0] > start ? (t[0] - start) / ivc : 0;
        record(cal, &e, why, who, spacing, &ty, r, ivc && k < r->niv ? &r->iv[k] : NULL);
        if (t[0] > ty.last_t0) ty.last_t0 = t[0];
        ty.prev_t0 = t[0];
        memcpy(prev, t, sizeof prev);
        have_prev = true;
        r->censor_judged++;
    }
    summarise(&ty, r);
    return 0;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *hist_json(const lat_hist *h) {
    static const double ps[] = {50, 90, 99, 99.9, 99.99};
    static const char *const keys[] = {"p50", "p90", "p99", "p99.9", "p99.99"};
    json_t *o = json_object();
    int64_t n = lat_hist_total(h);
    json_object_set_new(o, "count", json_integer(n));
    int64_t x[5];
    lat_hist_values_at_percentiles(h, ps, x, 5);
    for (int i = 0; i < 5; i++)
        json_object_set_new(o, keys[i], n ? json_integer(x[i]) : json_null());
    json_object_set_new(o, "max", n ? json_integer(lat_hist_max(h)) : json_null());
    json_object_set_new(o, "mean", n ? json_real(lat_hist_mean(h)) : json_null());
    return o;
}

static json_t *fig_json(const lat_pipe_censor_fig *f, uint64_t judged, int shape) {
    json_t *x = json_object();
    json_object_set_new(x, "kept", json_integer((json_int_t)f->kept));
    json_object_set_new(x, "censored_gap", json_integer((json_int_t)f->by_gap));
    json_object_set_new(x, "censored_backlog", json_integer((json_int_t)f->by_backlog));
    json_object_set_new(x, "censored_unknown", json_integer((json_int_t)f->unknown));
    json_object_set_new(x, "kept_share",
                        judged ? json_real((double)f->kept / (double)judged) : json_null());
    json_object_set_new(x, "kept_time_share",
                        isfinite(f->kept_time_share) ? json_real(f->kept_time_share) : json_null());
    json_object_set_new(x, "gap_rate_hz", json_real(f->gap_rate_hz));
    json_t *by = json_object();
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        if (f->by_thread[k])
            json_object_set_new(by, lat_pipe_role_name(shape, k),
                                json_integer((json_int_t)f->by_thread[k]));
    json_object_set_new(x, "censored_by_thread", by);
    json_object_set_new(x, "net_ns", hist_json(f->net));
    json_object_set_new(x, "net_weighted_ns",
                        json_pack("{s:I, s:I, s:I}", "p50", (json_int_t)f->ipw_p50, "p99",
                                  (json_int_t)f->ipw_p99, "p99.9", (json_int_t)f->ipw_p999));
    json_object_set_new(x, "censored_ns", hist_json(f->cens));
    json_t *sup = json_object();
    json_object_set_new(sup, "p99", json_boolean(lat_censor_supports(f->kept, 99)));
    json_object_set_new(sup, "p99.9", json_boolean(lat_censor_supports(f->kept, 99.9)));
    json_object_set_new(sup, "p99.99", json_boolean(lat_censor_supports(f->kept, 99.99)));
    json_object_set_new(x, "supports", sup);
    return x;
}

json_t *lat__pipe_censor_json(const lat_pipe_result *r) {
    if (!r->censor_judged) return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "judged", json_integer((json_int_t)r->censor_judged));
    json_object_set_new(o, "not_judged", json_integer((json_int_t)r->censor_unjudged));
    json_object_set_new(o, "rule",
                        json_string("a figure leaves when its window overlapped a recorded gap "
                                    "on a thread carrying it, or the sample queued behind one "
                                    "(busy period since the last sample that found no queue)"));
    json_t *st = json_object();
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (r->censor[s].net)
            json_object_set_new(st, lat_pipe_stages[s].name,
                                fig_json(&r->censor[s], r->censor_judged, r->shape));
    json_object_set_new(o, "stages", st);
    return o;
}
