/* pipeline_report.c - the pipeline's presentation (see pipeline_report.h):
 * the per-stage table, counts and counters, the error budget, the backlog
 * rule and the JSON of one run. */
#include "latlab/pipeline_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "latlab/atomicfile.h"
#include "latlab/budget.h"
#include "latlab/censor.h"
#include "latlab/error.h"
#include "latlab/ring.h"
#include "latlab/topo.h"

void lat_pipe_print_table(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                          const char *title) {
    (void)c;
    if (title) fprintf(f, "%s\n", title);
    if (over) fprintf(f, "[%s]\n", LAT_PIPE_OVERSUB_STAMP);
    char drop[256];
    if (lat_pipe_drops_note(r, 0, drop, sizeof drop)) fprintf(f, "[warning: %s]\n", drop);
    static const int order[] = {LAT_PIPE_SEND, LAT_PIPE_Q1, LAT_PIPE_WORK, LAT_PIPE_Q2,
                                LAT_PIPE_E2E};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const lat_hist *h = r->h[order[i]];
        if (!h) continue;
        static const double ps[] = {50, 99, 99.9};
        lat_hist_ci ci[3];
        lat_hist_cis_at_percentiles(h, ps, LAT_HIST_CI_DEFAULT, ci, 3);
        fprintf(f,
                "%-8s p50=%7" PRId64 "ns p99=%7" PRId64 "ns p99.9=%8" PRId64 "ns max=%9" PRId64
                "ns%s\n",
                lat_pipe_stage_name(order[i]), ci[0].value, ci[1].value, ci[2].value,
                lat_hist_max(h), over ? "  (oversubscribed)" : "");
        lat_pipe_print_cis(f, ps, ci, 3);
    }
}

void lat_pipe_print_cis(FILE *f, const double *ps, const lat_hist_ci *ci, size_t n) {
    fputs("  95% CI", f);
    for (size_t k = 0; k < n; k++) {
        char b[160];
        lat_hist_ci_format(&ci[k], 1, 0, b, sizeof b);
        fprintf(f, " p%g %s", ps[k], b);
    }
    fputc('\n', f);
}

int lat_pipe_budget(const lat_pipe_config *c, const lat_pipe_result *r, lat_budget *b) {
    const lat_hist *h = r->h[LAT_PIPE_E2E];
    return lat_budget_measure(b, c->cal ? c->cal : lat_clock_default(), (double)r->stamp_cost_ns, 2,
                              h ? h->sig_figs : 3);
}

void lat_pipe_print_budget(FILE *f, const lat_budget *b) {
    char line[512];
    lat_budget_format(b, line, sizeof line);
    fprintf(f, "%s\n", line);
}

static void counter_cell(FILE *f, const char *name, double v) {
    if (isnan(v))
        fprintf(f, " %s=n/a", name);
    else
        fprintf(f, " %s=%.0f", name, v);
}

bool lat_pipe_drops_note(const lat_pipe_result *r, double max_share, char *buf, size_t len) {
    uint64_t all = r->recorded + r->dropped;
    if (!r->dropped || !all || (double)r->dropped <= max_share * (double)all) return false;
    snprintf(buf, len,
             "these figures come from %" PRIu64 " of %" PRIu64 " events: the aggregation ring "
             "dropped %.2f%% of the samples",
             r->recorded, all, 100.0 * (double)r->dropped / (double)all);
    return true;
}

double lat_pipe_backlog_ns(uint64_t rate_hz) {
    return rate_hz ? LAT_PIPE_BACKLOG_SENDS * 1e9 / (double)rate_hz : 0;
}

bool lat_pipe_backlog_note(const lat_pipe_config *c, const lat_pipe_result *r, char *buf,
                           size_t len) {
    if (!r->h[LAT_PIPE_E2E] || !c->rate_hz) return false;
    double p50 = (double)lat_hist_value_at_percentile(r->h[LAT_PIPE_E2E], 50);
    double iv = 1e9 / (double)c->rate_hz;
    if (p50 < lat_pipe_backlog_ns(c->rate_hz)) return false;
    snprintf(buf, len,
             "the median event waited ~%.0f send intervals: the pipeline fell behind the "
             "offered rate (a busy machine, or a rate above capacity), so these latencies are "
             "mostly queueing backlog",
             p50 / iv);
    return true;
}

void lat_pipe_print_stamp_cost(FILE *f, const lat_pipe_result *r) {
    double p50 =
        r->h[LAT_PIPE_E2E] ? (double)lat_hist_value_at_percentile(r->h[LAT_PIPE_E2E], 50) : 0;
    double share = p50 > 0 ? (double)r->stamp_cost_ns / p50 : 0.0;
    fprintf(f,
            "instrumentation: one fenced stamp %" PRIu64 " ns = %.2f%% of e2e p50 (%.0f ns); "
            "%u stamps per event = %.2f%% (goal < %.0f%% per stamp)\n",
            r->stamp_cost_ns, 100.0 * share, p50, r->stamps_per_event,
            100.0 * share * r->stamps_per_event, 100.0 * LAT_BUDGET_STAMP_SHARE);
    if (share > LAT_BUDGET_STAMP_SHARE) /* the error budget's own limit (budget.h) */
        fprintf(f,
                "warning: one stamp is %.1f%% of e2e p50, over its %.0f%% budget: the stage "
                "figures hold the instrument's own cost (%u stamps of %" PRIu64 " ns per event)\n",
                100.0 * share, 100.0 * LAT_BUDGET_STAMP_SHARE, r->stamps_per_event,
                r->stamp_cost_ns);
}

void lat_pipe_print_details(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r,
                            bool over) {
    char note[256];
    fprintf(f, "processed: transform=%" PRIu64 " consume=%" PRIu64 " (expect %" PRIu64 " each)\n",
            r->transformed, r->consumed, r->events);
    fprintf(f,
            "aggregation ring dropped %" PRIu64 " samples (expect 0; >0 means the cold thread "
            "fell behind)\n",
            r->dropped);
    if (r->nonmonotonic)
        fprintf(f, "warning: %" PRIu64 " events had stamps out of order (clamped to 0)\n",
                r->nonmonotonic);
    static const char *const roles[] = {"producer", "worker", "consumer"};
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        const lat_pipe_counters *t = &r->thr[k];
        if (!t->ran) continue;
        const char *nm =
            k == LAT_PIPE_WORKER && c->shape == LAT_PIPE_FULL ? "transformer" : roles[k];
        fprintf(f, "counters %-11s cpu %d->%d", nm, t->cpu_start, t->cpu_end);
        counter_cell(f, "ctx-switches", t->ctx_switches);
        counter_cell(f, "migrations", t->migrations);
        counter_cell(f, "page-faults", t->page_faults);
        if (!isnan(t->cycles) && t->cycles > 0 && !isnan(t->instructions))
            fprintf(f, " ipc=%.2f", t->instructions / t->cycles);
        else
            fprintf(f, " ipc=n/a");
        counter_cell(f, "cache-misses", t->cache_misses);
        fputc('\n', f);
    }
    lat_pipe_print_stamp_cost(f, r);
    if (lat_pipe_backlog_note(c, r, note, sizeof note)) fprintf(f, "warning: %s\n", note);
    fprintf(f, "wall: %.3f s for %" PRIu64 " events at %" PRIu64 "/s offered (%.0f events/s)%s\n",
            (double)r->wall_ns / 1e9, r->events, c->rate_hz,
            r->wall_ns ? (double)r->events * 1e9 / (double)r->wall_ns : 0.0,
            over ? "  [" LAT_PIPE_OVERSUB_STAMP "]" : "");
}

json_t *lat_pipe_run_json(const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                          const char *why) {
    json_t *o = lat_pipe_result_json(c, r);
    if (!o) return NULL;
    json_t *pl = json_object();
    json_object_set_new(pl, "shape", json_string(lat_pipe_shape_name(c->shape)));
    json_object_set_new(pl, "pinned", json_boolean(!c->no_pin));
    json_t *cpus = json_array();
    for (int k = 0; k < LAT_PIPE_NHOT; k++)
        json_array_append_new(cpus, c->cpus[k] >= 0 ? json_integer(c->cpus[k]) : json_null());
    json_object_set_new(pl, "hot_cpus", cpus);
    json_object_set_new(pl, "why", json_string(why ? why : ""));
    json_object_set_new(o, "placement", pl);
    json_object_set_new(o, "oversubscribed", json_boolean(over));
    if (over) json_object_set_new(o, "warning", json_string(LAT_PIPE_OVERSUB_STAMP));
    return o;
}

/* Per-sample censoring: per stage the kept share (samples and send time),
 * why the others left, and the net figures (kept samples; weighted: the
 * censoring's bias toward short windows removed) beside the gross ones. */
void lat_pipe_print_censoring(FILE *f, const lat_pipe_result *r) {
    if (!r->censor_judged) return;
    fprintf(f,
            "censoring: %" PRIu64 " samples judged, %" PRIu64 " not (buffer full, or a window "
            "over 2^32 cycles);\n  a figure leaves when its window overlapped a platform gap "
            "on a thread carrying it,\n  or it queued behind one\n",
            r->censor_judged, r->censor_unjudged);
    static const double ps[] = {50, 99, 99.9};
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        const lat_pipe_censor_fig *c = &r->censor[s];
        if (!c->net || !r->h[s]) continue;
        /* The time share needs a span of sends: one sample has none. */
        char share[48];
        if (isfinite(c->kept_time_share))
            snprintf(share, sizeof share, "%6.2f%% of time", 100.0 * c->kept_time_share);
        else
            snprintf(share, sizeof share, "time share n/a (one send: no span)");
        fprintf(f,
                "%-8s kept %6.2f%% of samples, %s (left: gap %" PRIu64 ", backlog %" PRIu64
                ", unknown %" PRIu64 ")\n",
                lat_pipe_stage_name(s), 100.0 * (double)c->kept / (double)r->censor_judged,
                share, c->by_gap, c->by_backlog, c->unknown);
        int64_t g[3], n[3];
        lat_hist_values_at_percentiles(r->h[s], ps, g, 3);
        lat_hist_values_at_percentiles(c->net, ps, n, 3);
        fprintf(f, "  gross p50=%9" PRId64 "ns p99=%9" PRId64 "ns p99.9=%9" PRId64 "ns\n", g[0],
                g[1], g[2]);
        fprintf(f,
                "  net   p50=%9" PRId64 "ns p99=%9" PRId64 "ns p99.9=%9" PRId64
                "ns  weighted p99.9=%" PRId64 "ns\n",
                n[0], n[1], n[2], c->ipw_p999);
        if (!lat_censor_supports(c->kept, 99.9))
            fprintf(f, "  too few kept samples for a p99.9: %" PRIu64 " needed\n",
                    lat_censor_min_kept(99.9));
    }
}

int lat_pipe_json_e2e_p999(const char *path, uint64_t *out_ns, char *why, size_t cap) {
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j && e.line < 1) /* jansson says line -1 when the file cannot be read */
        return snprintf(why, cap, "%s", e.text), -EIO;
    if (!j) /* the byte too: a minified file is all line 1 */
        return snprintf(why, cap, "line %d, byte %d: %s", e.line, e.position, e.text), -EIO;
    json_t *v = json_object_get(
        json_object_get(json_object_get(j, "stages_ns"), lat_pipe_stages[LAT_PIPE_E2E].name),
        "p99.9");
    int rc = -ENODATA;
    if (json_is_integer(v) && json_integer_value(v) > 0) {
        *out_ns = (uint64_t)json_integer_value(v);
        rc = 0;
    }
    json_decref(j);
    return rc;
}

void lat_pipe_print_header(FILE *f, const lat_pipe_config *c, const char *why, bool replay) {
    fprintf(f, "latlab pipeline: %s%s\n", why,
            c->no_pin ? " (planned only: --no-pin leaves placement to the scheduler)" : "");
    char work[48]; /* a replay's work is its books (its own header line), no LCG rounds */
    snprintf(work, sizeof work, replay ? "the replay's books" : "%u LCG rounds", c->work_iters);
    fprintf(f,
            "calibrated %.4f cycles/ns; %" PRIu64 " events at %" PRIu64 "/s, queue %u, sample ring "
            "%u, work %s, idle %s%s%s%s%s\n",
            c->cal->cycles_per_ns, c->events, c->rate_hz, c->queue_cap, c->sample_cap, work,
            lat_idle_name(c->idle.kind), c->alloc ? ", --alloc" : "", c->no_pin ? ", --no-pin" : "",
            c->share_line ? ", --share-line" : "", c->split_q1 ? ", --split-q1" : "");
}

int lat_pipe_stages_of(const lat_pipe_config *c, int *stage, const char **name) {
    int n = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        if (lat_pipe_stage_present(s, c->shape, c->split_q1)) {
            stage[n] = s;
            name[n++] = lat_pipe_stage_name(s);
        }
    return n;
}

int lat_pipe_report_flight(FILE *f, FILE *dump, const lat_flight *fl, const char *path) {
    lat_flight_verdict fv;
    lat_flight_analyze(fl, &fv);
    if (fv.shape == LAT_FLIGHT_NO_TRIGGER) {
        fprintf(f, "flight recorder: nothing above %" PRIu64 " ns\n", fl->threshold_ns);
        return 0;
    }
    fprintf(f, "flight recorder: %s\n", fv.text);
    if (!path) {
        lat_flight_dump(fl, dump, 20);
        return 0;
    }
    lat_afile *af = NULL;
    int rc = lat_afile_open(path, &af);
    if (rc == 0) {
        lat_flight_dump(fl, lat_afile_stream(af), 0);
        rc = lat_afile_commit(af);
    }
    return rc;
}
