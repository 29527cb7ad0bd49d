/* labrun.c - placement, tables and JSON shared by `latlab pipeline` and
 * `latlab lab` (see labrun.h). */
#include "labrun.h"

#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "latlab/budget.h"
#include "latlab/error.h"
#include "latlab/lab.h"
#include "latlab/ring.h"
#include "latlab/topo.h"

int lab_shape(const char *s) {
    if (!strcmp(s, "full")) return LAT_PIPE_FULL;
    if (!strcmp(s, "compact")) return LAT_PIPE_COMPACT;
    if (!strcmp(s, "auto")) return LAT_PIPE_AUTO;
    return -1;
}

int lab_opt_shape(const char *cmd, const char *flag, const char *v, void *dest) {
    if ((*(int *)dest = lab_shape(v)) < 0)
        return cli_usage_error(cmd, "%s: '%s' is not full, compact or auto", flag, v);
    return 0;
}

int lab_opt_cpus(const char *cmd, const char *flag, const char *v, void *dest) {
    lab_cpulist *l = dest;
    return cli_parse_cpulist(cmd, flag, v, l->cpus, LAT_MAX_CPUS, &l->n);
}

int lab_place(const char *cmd, lat_pipe_config *c, int shape, const int *cpus, int ncpus,
              bool oversubscribe, bool *over, char *why, size_t why_len) {
    lat_topo *t = NULL;
    int rc = lat_topo_load(NULL, &t);
    if (rc) return cli_lib_error(cmd, "reading the CPU topology", rc);
    if (ncpus > 0) {
        lat_cpuset want, have;
        lat_cpuset_zero(&want);
        for (int i = 0; i < ncpus; i++) {
            if (!lat_cpuset_has(lat_topo_affinity(t), cpus[i])) {
                lat_topo_destroy(t);
                return cli_usage_error(cmd, "--cpus: CPU %d is not online or not allowed here",
                                       cpus[i]);
            }
            lat_cpuset_add(&want, cpus[i]);
        }
        lat_cpuset_and(&have, &want, lat_topo_affinity(t));
        lat_topo_set_affinity(t, &have);
    }
    rc = lat_pipe_place(c, shape, t, oversubscribe, over, why, why_len);
    lat_topo_destroy(t);
    if (rc == LAT_ETOOFEW_CPUS) return cli_error(cmd, "%s", why);
    if (rc) return cli_lib_error(cmd, "planning the placement", rc);
    return 0;
}

void lab_print_table(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over,
                     const char *title) {
    (void)c;
    if (title) fprintf(f, "%s\n", title);
    if (over) fprintf(f, "[%s]\n", LAB_OVERSUB_STAMP);
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
                "ns%s",
                lat_pipe_stage_name(order[i]), ci[0].value, ci[1].value, ci[2].value,
                lat_hist_max(h), over ? "  (oversubscribed)" : "");
        lab_print_cis(f, ps, ci, 3);
    }
}

void lab_print_cis(FILE *f, const double *ps, const lat_hist_ci *ci, size_t n) {
    fputs("  95% CI", f);
    for (size_t k = 0; k < n; k++) {
        char b[160];
        lat_hist_ci_format(&ci[k], 1, 0, b, sizeof b);
        fprintf(f, " p%g %s", ps[k], b);
    }
    fputc('\n', f);
}

int lab_budget(const lat_pipe_config *c, const lat_pipe_result *r, lat_budget *b) {
    const lat_hist *h = r->h[LAT_PIPE_E2E];
    return lat_budget_measure(b, c->cal ? c->cal : lat_clock_default(), (double)r->stamp_cost_ns, 2,
                              h ? h->sig_figs : 3);
}

void lab_print_budget(FILE *f, const lat_budget *b) {
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

bool lab_backlog_note(const lat_pipe_config *c, const lat_pipe_result *r, char *buf, size_t len) {
    if (!r->h[LAT_PIPE_E2E] || !c->rate_hz) return false;
    double p50 = (double)lat_hist_value_at_percentile(r->h[LAT_PIPE_E2E], 50);
    double iv = 1e9 / (double)c->rate_hz;
    if (p50 < 20 * iv) return false;
    snprintf(buf, len,
             "the median event waited ~%.0f send intervals: the pipeline fell behind the "
             "offered rate (a busy machine, or a rate above capacity), so these latencies are "
             "mostly queueing backlog",
             p50 / iv);
    return true;
}

void lab_print_details(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r, bool over) {
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
    double p50 =
        r->h[LAT_PIPE_E2E] ? (double)lat_hist_value_at_percentile(r->h[LAT_PIPE_E2E], 50) : 0;
    fprintf(f,
            "instrumentation: one fenced stamp %" PRIu64 " ns = %.2f%% of e2e p50 (%.0f ns); "
            "%u stamps per event = %.2f%% (goal < 1%% per stamp)\n",
            r->stamp_cost_ns, p50 > 0 ? 100.0 * (double)r->stamp_cost_ns / p50 : 0.0, p50,
            r->stamps_per_event,
            p50 > 0 ? 100.0 * (double)r->stamp_cost_ns * r->stamps_per_event / p50 : 0.0);
    if (lab_backlog_note(c, r, note, sizeof note)) fprintf(f, "warning: %s\n", note);
    fprintf(f, "wall: %.3f s for %" PRIu64 " events at %" PRIu64 "/s offered (%.0f events/s)%s\n",
            (double)r->wall_ns / 1e9, r->events, c->rate_hz,
            r->wall_ns ? (double)r->events * 1e9 / (double)r->wall_ns : 0.0,
            over ? "  [" LAB_OVERSUB_STAMP "]" : "");
}

json_t *lab_run_json(const lat_pipe_config *c, const lat_pipe_result *r, bool over,
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
    if (over) json_object_set_new(o, "warning", json_string(LAB_OVERSUB_STAMP));
    return o;
}

static void fmt_ms(char *b, size_t n, double ns) {
    if (ns >= 1e6)
        snprintf(b, n, "%.1f ms", ns / 1e6);
    else
        snprintf(b, n, "%.1f us", ns / 1e3);
}

void lab_platform_text(char *buf, size_t len, int shape, const lat_lab_thread_acct *thr,
                       const lat_pipe_cpustat *cpu, double gap_us) {
    size_t o = 0;
    buf[0] = 0;
    for (int k = 0; k < LAT_PIPE_NHOT && o < len; k++) {
        const lat_lab_thread_acct *a = &thr[k];
        if (!a->ran) continue;
        char lost[32], lng[32], wait[64] = "";
        fmt_ms(lost, sizeof lost, a->lost_ns);
        fmt_ms(lng, sizeof lng, a->longest_ns);
        if (!isnan(a->wait_ns)) {
            char w[32];
            fmt_ms(w, sizeof w, a->wait_ns);
            snprintf(wait, sizeof wait, "; run-queue wait %s", w);
        }
        int n =
            snprintf(buf + o, len - o,
                     "%s%s lost %s (%.1f%%) in %" PRIu64
                     " gaps >= %.0f us, longest %s%s; switches %" PRIu64 " vol %" PRIu64 " invol",
                     o ? "; " : "", lat_pipe_role_name(shape, k), lost, 100 * a->lost_share,
                     a->gaps, gap_us, lng, wait, a->vol, a->invol);
        if (n < 0) return;
        o += (size_t)n;
    }
    if (o < len && cpu && !isnan(cpu->steal_pct))
        snprintf(buf + o, len - o, "; hot CPUs: steal %.1f%%, irq %.1f%%, softirq %.1f%%",
                 cpu->steal_pct, cpu->irq_pct, cpu->softirq_pct);
}

void lab_attrib_text(char *buf, size_t len, int shape, const lat_pipe_tail *tail) {
    size_t o = 0;
    buf[0] = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES && o < len; s++) {
        const lat_pipe_tail *t = &tail[s];
        if (!t->above99 && !t->above999) continue;
        char who[48] = "";
        if (t->thread999 >= 0)
            snprintf(who, sizeof who, " (mostly %s gaps)", lat_pipe_role_name(shape, t->thread999));
        int n = snprintf(buf + o, len - o,
                         "%s%s: %.0f%% of %" PRIu64 " samples above p99 and %.0f%% of %" PRIu64
                         " above p99.9 overlap a gap%s",
                         o ? "; " : "", lat_pipe_stage_name(s),
                         t->above99 ? 100.0 * (double)t->above99_gap / (double)t->above99 : 0.0,
                         t->above99,
                         t->above999 ? 100.0 * (double)t->above999_gap / (double)t->above999 : 0.0,
                         t->above999, who);
        if (n < 0) return;
        o += (size_t)n;
    }
}

void lab_print_accounting(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r) {
    lat_lab_thread_acct thr[LAT_PIPE_NHOT];
    lat_lab_thread_accounting(c, r, thr);
    char buf[1024];
    double gap_us = (double)(c->gap_threshold_ns ? c->gap_threshold_ns : LAT_GAPS_DEFAULT_NS) / 1e3;
    lab_platform_text(buf, sizeof buf, c->shape, thr, &r->cpu, gap_us);
    fprintf(f, "platform: %s\n", buf);
    lab_attrib_text(buf, sizeof buf, c->shape, r->tail);
    if (buf[0]) fprintf(f, "attribution: %s\n", buf);
    if (r->flight_gap[0]) fprintf(f, "flight recorder: %s\n", r->flight_gap);
}
