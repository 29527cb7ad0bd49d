/* loadout.c - `latlab load`'s results: the final table (percentiles with 95%
 * intervals, service time, wait and lag beside), errors by kind, the sending
 * thread's platform gaps and the requests they censored (their own latency
 * and every request's beside), the arrival test, and last the verdict; and
 * the same as JSON (--targets: a row per target, loadtarget.h, after the
 * table).  Percentiles without enough samples for an interval below the
 * maximum are not printed; the line says how many they need. */
#include "cli.h"
#include "cliopts.h"
#include "load.h"
#include "promcli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "latlab/loadtarget.h"
#include "latlab/loadtls.h"
#include "latlab/prom.h"

const double load_ps[] = {50, 90, 95, 99, 99.9, 99.99};
static const double load_tps[] = {50, 90, 99, 99.9}; /* --targets: each target's */
const size_t load_nps = sizeof load_ps / sizeof load_ps[0];

static const char *arrivals_name(const load_run *r) {
    return r->cfg.arrivals == LAT_LOAD_POISSON  ? "poisson"
           : r->cfg.arrivals == LAT_LOAD_REPLAY ? "replay"
                                                : "constant";
}

static void print_head(const load_run *r) {
    const lat_load_counts *c = &r->counts;
    printf("latlab load %s (%s): %s %.0f/s for %.1f s, %d sending thread%s, %u connections "
           "(in-flight cap %u), seed %" PRIu64 "\n",
           r->target, r->protocol, arrivals_name(r), r->cfg.rate_hz,
           (double)r->cfg.duration_ns / 1e9, r->threads, r->threads == 1 ? "" : "s",
           r->cfg.connections, r->cfg.max_inflight, r->cfg.seed);
    printf("requests: scheduled %" PRIu64 "  sent %" PRIu64 "  completed %" PRIu64
           "  failed %" PRIu64 "  error replies %" PRIu64 "\n",
           c->scheduled, c->sent, c->completed, c->failed, c->error_replies);
    printf("errors:");
    for (int k = 0; k < LAT_LOAD_NERR; k++)
        printf(" %s %" PRIu64, lat_load_err_name((lat_load_err)k), c->errors[k]);
    printf("  (idle connections closed by the server %" PRIu64 ", reopened %" PRIu64 ")\n",
           c->closed_idle, c->reconnects);
    double run_s = (double)c->run_ns / 1e9;
    printf("achieved %.1f req/s; %" PRIu64
           " requests found every connection at its in-flight cap (backlog up to %" PRIu64 ")\n",
           run_s > 0 ? (double)c->completed / run_s : 0.0, c->cap_waits, c->backlog_max);
    if (r->cfg.tls) printf("tls: %s\n", lat_loadtls_describe(r->cfg.tls, (char[256]){0}, 256));
}

static void print_table(const load_run *r) {
    const lat_load_verdict *v = &r->verdict;
    const lat_hist *h = r->h;
    printf("\n%8s %12s %27s %12s %10s %10s\n", "", "latency us", "95% interval", "service us",
           "wait us", "lag us");
    for (size_t i = 0; i < v->npct; i++) {
        const lat_load_pct *p = &v->pct[i];
        char name[16];
        snprintf(name, sizeof name, "p%g", p->p);
        if (!p->printed) {
            printf("%8s not printed: needs %" PRId64 " samples (has %" PRId64 ")\n", name,
                   p->needed_n, lat_hist_total(&h[LAT_LOAD_LATENCY]));
            continue;
        }
        char ci[64];
        snprintf(ci, sizeof ci, "[%.1f, %.1f]", (double)p->latency.lo / 1e3,
                 (double)p->latency.hi / 1e3);
        printf("%8s %12.1f %27s %12.1f %10.1f %10.1f%s%s\n", name, (double)p->latency.value / 1e3,
               ci, (double)lat_hist_value_at_percentile(&h[LAT_LOAD_SERVICE], p->p) / 1e3,
               (double)p->wait / 1e3, (double)p->lag / 1e3, p->lag_ok ? "" : "  lag too large",
               p->wait_ok ? "" : "  waited on the service");
    }
    if (!lat_hist_total(&h[LAT_LOAD_LATENCY])) return (void)printf("%8s %12s\n", "max", "-");
    printf("%8s %12.1f %27s %12.1f %10.1f %10.1f\n", "max",
           (double)lat_hist_max(&h[LAT_LOAD_LATENCY]) / 1e3, "",
           (double)lat_hist_max(&h[LAT_LOAD_SERVICE]) / 1e3,
           (double)lat_hist_max(&h[LAT_LOAD_WAIT]) / 1e3,
           (double)lat_hist_max(&h[LAT_LOAD_LAG]) / 1e3);
}

static void print_run(const load_run *r) {
    const lat_load_verdict *v = &r->verdict;
    print_head(r);
    lat_loadsched_write_plan(stdout, &r->cfg.plan, r->rate_spec, r->cfg.rate_hz, r->cfg.stride,
                             r->cfg.phase, r->cfg.seed);
    print_table(r);
    if (r->cfg.targets)
        lat_loadtarget_write(stdout, r->cfg.targets, load_tps, 4, v->valid, v->ci_width);
    printf("\n");
    lat_load_counts_write_gaps(stdout, &r->counts, (unsigned)r->threads, r->cfg.gap_ns);
    lat_load_write_censored(stdout, &r->h[LAT_LOAD_LATENCY], &r->h[LAT_LOAD_CENSORED]);
    char a2[32] = "-", rho[32] = "-"; /* no samples (no server): "-", not nan */
    if (!isnan(v->ad_a2)) snprintf(a2, sizeof a2, "%.2f", v->ad_a2);
    if (!isnan(v->lag1_rho)) snprintf(rho, sizeof rho, "%.3f", v->lag1_rho);
    printf("arrivals (%s): Anderson-Darling A2* %s on %zu sampled inter-arrivals; exponential "
           "%s at 1%% (critical %.3f)%s\n",
           arrivals_name(r), a2, v->ad_n,
           isnan(v->ad_a2) ? "not tested (too few)"
           : v->ad_pass    ? "not rejected"
                           : "rejected",
           LAT_AD_EXP_CRIT_1PCT,
           r->cfg.arrivals != LAT_LOAD_POISSON ? "; this schedule is checked by its lag" : "");
    printf("latencies, lag 1 (consecutive completions): Spearman rho %s on %zu sampled pairs; "
           "%s at 1%% (reported, not judged)\n",
           rho, v->lag1_n,
           isnan(v->lag1_rho)    ? "not tested (too few)"
           : v->lag1_independent ? "independence not rejected"
                                 : "dependent");
    printf(
        "verdict (lag below %.0f%% of latency at each percentile, intervals within %.0f%%): %s%s\n",
        v->lag_fraction * 100, v->ci_width * 100, v->valid ? "valid" : "invalid: ", v->reason);
    lat_loadsched_steps_write(stdout, r->steps, r->start_ns != 0, r->cfg.plan.kind != 0, load_ps,
                              load_nps, v->lag_fraction, v->ci_width);
}

int load_print(const load_run *r) {
    r->findmax ? lat_loadsched_findmax_write(stdout, r->findmax) : print_run(r);
    if (fflush(stdout) || ferror(stdout))
        return cli_error("load", "stdout: write failed: %s", strerror(errno ? errno : EIO));
    return CLI_OK;
}

int load_write_json(const load_run *r, const char *path) {
    json_t *o = json_object(), *cf = lat_loadrun_cfg_json(&r->cfg, (unsigned)r->threads);
    json_object_set_new(cf, "target", json_string(r->target));
    json_object_set_new(cf, "protocol", json_string(r->protocol));
    json_object_set_new(cf, "rate_schedule",
                        r->rate_spec ? json_string(r->rate_spec) : json_null());
    json_object_set_new(cf, "start_at_ns",
                        r->start_ns ? json_integer((json_int_t)r->start_ns) : json_null());
    json_object_set_new(o, "config", cf);
    uint64_t sent, intended;
    bool first = r->start_ns && lat_loadsched_steps_first(r->steps, &sent, &intended);
    json_object_set_new(o, "start_skew_ns", first ? json_integer((json_int_t)sent) : json_null());
    json_object_set_new(o, "steps",
                        r->cfg.plan.kind
                            ? lat_loadsched_steps_json(r->steps, load_ps, load_nps,
                                                       r->verdict.lag_fraction, r->verdict.ci_width)
                            : json_null());
    json_object_set_new(o, "counts", lat_load_counts_json(&r->counts));
    json_object_set_new(o, "tls", r->cfg.tls ? lat_loadtls_json(r->cfg.tls) : json_null());
    for (int k = 0; k < LAT_LOAD_NSERIES; k++)
        json_object_set_new(o, load_series[k], lat_load_hist_json(&r->h[k], load_ps, load_nps));
    json_object_set_new(o, "targets",
                        r->cfg.targets ? lat_loadtarget_json(r->cfg.targets, load_tps, 4,
                                                             r->verdict.valid, r->verdict.ci_width)
                                       : json_null());
    json_object_set_new(o, "verdict", lat_load_verdict_json(&r->verdict));
    json_object_set_new(o, "find_max",
                        r->findmax ? lat_loadsched_findmax_json(r->findmax) : json_null());
    json_object_set_new(o, "run_error",
                        r->run_rc ? json_string(strerror(-r->run_rc)) : json_null());
    return cli_write_json("load", path, o);
}

/* ---- during the run: the live line, the interval log; after it the .hgrm ---------- */

const char *const load_series[LAT_LOAD_NSERIES] = {"latency", "service", "lag", "wait", "censored"};

int load_stages(const load_run *r, const char **names, const lat_hist **h) {
    int n = 0;
    for (; n < LAT_LOAD_NSERIES; n++) {
        names[n] = load_series[n];
        h[n] = &r->h[n];
    }
    for (unsigned i = 0; r->cfg.targets && i < lat_loadtarget_count(r->cfg.targets); i++, n++) {
        names[n] = lat_loadtarget_tag(r->cfg.targets, i);
        h[n] = lat_loadtarget_hist(r->cfg.targets, i, true);
    }
    return n;
}

/* Each second's interval: into the totals, the log, /metrics, the live line. */
void load_tick(void *ud, const lat_loadrun_tick *t) {
    load_live *lv = ud;
    for (int k = 0; k < LAT_LOAD_NSERIES; k++)
        lat_hist_add(&lv->r->h[k], t->h[k]);
    for (int k = 0; lv->hf && k < LAT_LOAD_NSERIES && !lv->hlog_rc; k++)
        lv->hlog_rc = lat_hlog_write_interval(&lv->w, t->h[k], load_series[k], t->start_s,
                                              t->end_s - t->start_s);
    lat_loadtargets *ts = lv->r->cfg.targets; /* each target's latency: latency.NAME */
    if (ts) lat_loadtarget_tick(ts);          /* 0: one geometry */
    for (unsigned i = 0; ts && lv->hf && i < lat_loadtarget_count(ts) && !lv->hlog_rc; i++)
        lv->hlog_rc =
            lat_hlog_write_interval(&lv->w, lat_loadtarget_hist(ts, i, false),
                                    lat_loadtarget_tag(ts, i), t->start_s, t->end_s - t->start_s);
    const char *names[LOAD_STAGES_MAX];
    const lat_hist *tot[LOAD_STAGES_MAX];
    int n = load_stages(lv->r, names, tot);
    if (lv->srv) lat_prom_server_update(lv->srv, tot, n);
    const lat_load_counts *c = t->counts;
    /* the last part-second with nothing completed in it is no progress: it
     * read "rate 0/s ... p50 0.000 ms" after every run */
    bool idle_end = t->last && c->completed == lv->last_completed;
    if (!lv->quiet && !idle_end) {
        double ps[3] = {50, 99, 99.9};
        int64_t v[3];
        lat_hist_values_at_percentiles(t->h[LAT_LOAD_LATENCY], ps, v, 3);
        fprintf(stderr,
                "[%5.1fs] rate %.0f/s  p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  errors %" PRIu64
                "  lag p99 %.1f us  wait p99 %.1f us  censored %" PRId64 "\n",
                t->end_s - lv->t0_s,
                (double)(c->completed - lv->last_completed) / (t->end_s - t->start_s),
                (double)v[0] / 1e6, (double)v[1] / 1e6, (double)v[2] / 1e6,
                c->failed + c->errors[LAT_LOAD_REFUSED],
                (double)lat_hist_value_at_percentile(t->h[LAT_LOAD_LAG], 99) / 1e3,
                (double)lat_hist_value_at_percentile(t->h[LAT_LOAD_WAIT], 99) / 1e3,
                lat_hist_total(t->h[LAT_LOAD_CENSORED]));
    }
    lv->last_completed = c->completed;
}

/* --hlog, then --metrics (served from the start): 0 or CLI_ERR after a message. */
int load_live_open(load_live *lv) {
    if (lv->hlog) {
        int rc = lat_afile_open(lv->hlog, &lv->hf);
        if (!rc) rc = lat_hlog_writer_init(&lv->w, lat_afile_stream(lv->hf), lv->t0_s, lv->t0_s, 0);
        char shard[160];
        snprintf(shard, sizeof shard,
                 "[latlab load shard %" PRIu32 "/%" PRIu32 " seed %" PRIu64 "]", lv->r->cfg.phase,
                 lv->r->cfg.stride, lv->r->cfg.seed);
        if (!rc && lv->r->cfg.stride) rc = lat_hlog_write_comment(&lv->w, shard);
        if (rc) return cli_lib_error("load", lv->hlog, rc);
    }
    const char *names[LOAD_STAGES_MAX];
    const lat_hist *tot[LOAD_STAGES_MAX];
    int n = load_stages(lv->r, names, tot);
    if (lv->prom->metrics_addr && cli_prom_serve(lv->prom, "load", n, names, tot, &lv->srv))
        return CLI_ERR;
    return 0;
}

int load_live_close(load_live *lv, int rc) {
    if (lv->srv) cli_prom_serve_finish(lv->prom, lv->srv, NULL, 0);
    lv->srv = NULL;
    lat_afile *f = lv->hf;
    lv->hf = NULL;
    if (!f) return rc;
    if (rc || lv->hlog_rc) {
        lat_afile_abort(f);
        return rc ? rc : cli_lib_error("load", lv->hlog, lv->hlog_rc);
    }
    int crc = lat_afile_commit(f);
    return crc ? cli_lib_error("load", lv->hlog, crc) : 0;
}

/* The latency distribution as Java's .hgrm (values in us), atomically. */
int load_write_hgrm(const lat_hist *h, const char *path) {
    lat_afile *f = NULL;
    int rc = lat_afile_open(path, &f);
    if (!rc)
        rc = lat_hist_write_percentiles_ci(lat_afile_stream(f), h, 5, 1e3, false,
                                           LAT_HIST_CI_DEFAULT);
    if (!rc) return (rc = lat_afile_commit(f)) ? cli_lib_error("load", path, rc) : 0;
    if (f) lat_afile_abort(f);
    return cli_lib_error("load", path, rc);
}
