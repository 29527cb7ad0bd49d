/* pipeline_json.c - one stamped-pipeline run as JSON (see pipeline.h): the
 * config, the hot threads' placement and counters, percentiles per stage
 * with their confidence intervals, counts, the instrumentation's cost, the
 * platform account and tail attribution, the censoring (pipecensor.h), the
 * per-interval figures and the flight recorder's verdict. */
#include "latlab/pipeline.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "latlab/json.h"
#include "pipecensor.h"

static const double pcts[] = {50, 90, 99, 99.9, 99.99};
static const char *const pct_keys[] = {"p50", "p90", "p99", "p99.9", "p99.99"};

/* The platform account, tail attribution and per-interval figures. */
static json_t *platform_json(const lat_pipe_config *c, const lat_pipe_result *r) {
    const lat_clock_cal *cal = c->cal ? c->cal : lat_clock_default();
    json_t *o = json_object();
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_gaps *g = r->gaps[k];
        if (!g || !r->thr[k].ran) continue;
        const lat_pipe_account *p = &r->account[k];
        json_t *t = json_object();
        json_object_set_new(t, "gaps", json_integer((json_int_t)g->count));
        json_object_set_new(t, "gap_lost_ns",
                            json_integer((json_int_t)lat_clock_to_ns(cal, g->total)));
        json_object_set_new(t, "gap_longest_ns",
                            json_integer((json_int_t)lat_clock_to_ns(cal, g->longest)));
        json_object_set_new(t, "gaps_not_listed", json_integer((json_int_t)g->overflow));
        json_t *hist = json_object();
        for (int b = 0; b < LAT_GAPS_BUCKETS; b++) {
            if (!g->hist[b]) continue;
            char key[24];
            snprintf(key, sizeof key, "%.0f", (double)lat_clock_to_ns(cal, 1ull << b));
            json_object_set_new(hist, key, json_integer((json_int_t)g->hist[b]));
        }
        json_object_set_new(t, "gap_hist_from_ns", hist); /* bucket: [key, 2 * key) ns */
        json_object_set_new(t, "runqueue_wait_ns",
                            p->have_schedstat ? json_integer((json_int_t)p->wait_ns) : json_null());
        json_object_set_new(t, "voluntary_switches", json_integer((json_int_t)p->vol_switches));
        json_object_set_new(t, "involuntary_switches", json_integer((json_int_t)p->invol_switches));
        json_object_set_new(o, lat_pipe_role_name(c->shape, k), t);
    }
    json_object_set_new(o, "gap_threshold_ns",
                        json_integer((json_int_t)(c->gap_threshold_ns ? c->gap_threshold_ns
                                                                      : LAT_GAPS_DEFAULT_NS)));
    json_object_set_new(o, "hot_cpu_steal_pct", lat_json_real_or_null(r->cpu.steal_pct));
    json_object_set_new(o, "hot_cpu_irq_pct", lat_json_real_or_null(r->cpu.irq_pct));
    json_object_set_new(o, "hot_cpu_softirq_pct", lat_json_real_or_null(r->cpu.softirq_pct));
    json_t *at = json_object();
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        const lat_pipe_tail *t = &r->tail[s];
        if (!r->h[s]) continue;
        json_t *x = json_object();
        json_object_set_new(x, "above_p99", json_integer((json_int_t)t->above99));
        json_object_set_new(x, "above_p99_in_gap", json_integer((json_int_t)t->above99_gap));
        json_object_set_new(x, "above_p999", json_integer((json_int_t)t->above999));
        json_object_set_new(x, "above_p999_in_gap", json_integer((json_int_t)t->above999_gap));
        json_object_set_new(x, "p999_mostly",
                            t->thread999 >= 0
                                ? json_string(lat_pipe_role_name(c->shape, t->thread999))
                                : json_null());
        json_object_set_new(at, lat_pipe_stages[s].name, x);
    }
    json_object_set_new(o, "tail_attribution", at);
    return o;
}

static json_t *intervals_json(const lat_pipe_config *c, const lat_pipe_result *r) {
    json_t *a = json_array();
    for (size_t i = 0; i < r->niv; i++) {
        const lat_pipe_interval *v = &r->iv[i];
        json_t *x = json_object();
        json_object_set_new(x, "count", json_integer((json_int_t)v->count));
        for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
            if (!r->h[s]) continue;
            json_t *st = json_object();
            json_object_set_new(st, "p50", json_integer(v->p50[s]));
            json_object_set_new(st, "p99", json_integer(v->p99[s]));
            json_object_set_new(st, "p99.9", json_integer(v->p999[s]));
            json_object_set_new(st, "max", json_integer(v->max[s]));
            if (isfinite(v->body_mean[s]))
                json_object_set_new(st, "body_mean", json_real(v->body_mean[s]));
            json_object_set_new(x, lat_pipe_stages[s].name, st);
        }
        json_object_set_new(x, "tput_hz", json_real(v->tput_hz));
        json_t *l = json_object();
        for (int k = 0; k < LAT_PIPE_NHOT; k++)
            if (r->gaps[k])
                json_object_set_new(l, lat_pipe_role_name(c->shape, k),
                                    json_integer((json_int_t)v->lost_ns[k]));
        json_object_set_new(x, "lost_ns", l);
        json_t *kept = json_object();
        for (int s = 0; s < LAT_PIPE_NSTAGES && r->censor_judged; s++)
            if (r->h[s])
                json_object_set_new(kept, lat_pipe_stages[s].name,
                                    json_integer((json_int_t)v->kept[s]));
        json_object_set_new(x, "kept", kept);
        json_array_append_new(a, x);
    }
    return a;
}

json_t *lat_pipe_result_json(const lat_pipe_config *c, const lat_pipe_result *r) {
    if (!c || !r) return NULL;
    json_t *o = json_object();
    json_t *cfg = json_object();
    json_object_set_new(cfg, "shape", json_string(lat_pipe_shape_name(c->shape)));
    json_object_set_new(cfg, "events", json_integer((json_int_t)c->events));
    json_object_set_new(cfg, "rate_hz", json_integer((json_int_t)c->rate_hz));
    json_object_set_new(cfg, "queue_cap", json_integer(c->queue_cap));
    json_object_set_new(cfg, "sample_cap", json_integer(c->sample_cap));
    json_object_set_new(cfg, "work_iters", json_integer(c->work_iters));
    json_object_set_new(cfg, "alloc", json_boolean(c->alloc));
    json_object_set_new(cfg, "no_pin", json_boolean(c->no_pin));
    json_object_set_new(cfg, "share_line", json_boolean(c->share_line));
    json_object_set_new(cfg, "split_q1", json_boolean(c->split_q1));
    json_object_set_new(cfg, "idle", json_string(lat_idle_name(c->idle.kind)));
    json_object_set_new(o, "config", cfg);

    json_t *pl = json_object();
    const char *roles[] = {"producer", c->shape == LAT_PIPE_FULL ? "transformer" : "worker",
                           "consumer"};
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_pipe_counters *t = &r->thr[k];
        if (!t->ran) continue;
        json_t *th = json_object();
        json_object_set_new(th, "planned_cpu",
                            c->no_pin || c->cpus[k] < 0 ? json_null() : json_integer(c->cpus[k]));
        json_object_set_new(th, "cpu_start", json_integer(t->cpu_start));
        json_object_set_new(th, "cpu_end", json_integer(t->cpu_end));
        json_object_set_new(th, "context_switches", lat_json_real_or_null(t->ctx_switches));
        json_object_set_new(th, "migrations", lat_json_real_or_null(t->migrations));
        json_object_set_new(th, "page_faults", lat_json_real_or_null(t->page_faults));
        json_object_set_new(th, "cycles", lat_json_real_or_null(t->cycles));
        json_object_set_new(th, "instructions", lat_json_real_or_null(t->instructions));
        json_object_set_new(th, "cache_misses", lat_json_real_or_null(t->cache_misses));
        double ipc = t->cycles > 0 ? t->instructions / t->cycles : NAN;
        json_object_set_new(th, "ipc", lat_json_real_or_null(ipc));
        json_object_set_new(th, "loop_ns", json_integer((json_int_t)t->loop_ns));
        json_object_set_new(pl, roles[k], th);
    }
    json_object_set_new(pl, "aggregator", json_string("unpinned, backoff idle"));
    json_object_set_new(o, "threads", pl);

    json_t *st = json_object();
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        const lat_hist *h = r->h[s];
        if (!h) continue;
        json_t *x = json_object();
        json_object_set_new(x, "count", json_integer(lat_hist_total(h)));
        lat_hist_ci ci[5];
        lat_hist_cis_at_percentiles(h, pcts, LAT_HIST_CI_DEFAULT, ci, 5);
        for (int i = 0; i < 5; i++)
            lat_json_set_ci(x, pct_keys[i], "", &ci[i]);
        json_object_set_new(x, "max", json_integer(lat_hist_max(h)));
        json_object_set_new(x, "mean", json_real(lat_hist_mean(h)));
        json_object_set_new(st, lat_pipe_stages[s].name, x);
    }
    json_object_set_new(o, "stages_ns", st);
    json_object_set_new(o, "percentile_confidence", json_real(LAT_HIST_CI_DEFAULT));

    json_t *cn = json_object();
    json_object_set_new(cn, "events", json_integer((json_int_t)r->events));
    json_object_set_new(cn, "sent", json_integer((json_int_t)r->sent));
    json_object_set_new(cn, "transformed", json_integer((json_int_t)r->transformed));
    json_object_set_new(cn, "consumed", json_integer((json_int_t)r->consumed));
    json_object_set_new(cn, "recorded", json_integer((json_int_t)r->recorded));
    json_object_set_new(cn, "dropped", json_integer((json_int_t)r->dropped));
    json_object_set_new(cn, "nonmonotonic", json_integer((json_int_t)r->nonmonotonic));
    json_object_set_new(cn, "out_of_range", json_integer((json_int_t)r->out_of_range));
    json_object_set_new(cn, "q1_full_retries", json_integer((json_int_t)r->q1_full_spins));
    json_object_set_new(o, "counts", cn);

    json_object_set_new(o, "wall_ns", json_integer((json_int_t)r->wall_ns));
    json_object_set_new(o, "cycles_per_ns", json_real(r->cycles_per_ns));
    json_t *ic = json_object();
    json_object_set_new(ic, "fenced_stamp_ns", json_integer((json_int_t)r->stamp_cost_ns));
    json_object_set_new(ic, "stamps_per_event", json_integer(r->stamps_per_event));
    double p50 =
        r->h[LAT_PIPE_E2E] ? (double)lat_hist_value_at_percentile(r->h[LAT_PIPE_E2E], 50) : 0;
    json_object_set_new(
        ic, "stamp_pct_of_e2e_p50",
        lat_json_real_or_null(p50 > 0 ? 100.0 * (double)r->stamp_cost_ns / p50 : NAN));
    json_object_set_new(o, "instrumentation", ic);
    json_t *ad = json_array();
    for (int i = 0; i < 2; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "0x%" PRIxPTR, r->counter_addr[i]);
        json_array_append_new(ad, json_string(buf));
    }
    json_object_set_new(o, "stage_counter_addrs", ad);
    json_object_set_new(o, "platform", platform_json(c, r));
    json_t *cens = lat__pipe_censor_json(r);
    if (cens) json_object_set_new(o, "censoring", cens);
    if (r->niv) {
        json_object_set_new(o, "interval_ns", json_integer((json_int_t)c->interval_ns));
        json_object_set_new(o, "intervals", intervals_json(c, r));
    }
    json_object_set_new(
        o, "stage_counters_same_line",
        json_boolean(r->counter_addr[0] / LAT_CACHELINE == r->counter_addr[1] / LAT_CACHELINE));
    if (r->flight) {
        lat_flight_verdict v;
        json_t *fl = json_object();
        json_object_set_new(fl, "threshold_ns", json_integer((json_int_t)r->flight->threshold_ns));
        json_object_set_new(fl, "fired", json_boolean(r->flight_fired));
        if (lat_flight_analyze(r->flight, &v) == 0 && v.shape != LAT_FLIGHT_NO_TRIGGER) {
            json_object_set_new(fl, "trigger_seq", json_integer((json_int_t)v.trigger_seq));
            json_object_set_new(fl, "stage", json_string(r->flight->names[v.stage]));
            json_object_set_new(fl, "shape",
                                json_string(v.shape == LAT_FLIGHT_RUN ? "run" : "one-event"));
            json_object_set_new(fl, "run", json_integer((json_int_t)v.run));
            json_object_set_new(fl, "verdict", json_string(v.text));
        }
        json_object_set_new(o, "flight", fl);
    }
    return o;
}
