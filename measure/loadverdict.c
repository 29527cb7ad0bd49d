/* loadverdict.c - the validity verdict of a `latlab load` run.  See
 * loadverdict.h.  Anderson-Darling for the exponential with estimated mean:
 * A^2 = -n - (1/n) sum (2i-1) [ln F(x_i) + ln(1 - F(x_{n+1-i}))], F(x) =
 * 1 - exp(-x/mean), modified by (1 + 0.6/n) so one table of critical values
 * serves every n (Stephens 1974).  Also the figures the report and the JSON
 * share with it: a latency histogram as JSON, the censored requests' line,
 * the engine's counts as JSON and their gaps line. */
#include "latlab/loadverdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "latlab/json.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lat_load_verdict_ad_exponential(const double *x, size_t n) {
    if (!x || n < 8) return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += s[i];
    mean /= (double)n;
    if (!(mean > 0)) {
        free(s);
        return NAN;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        /* ln F(x) = ln(1 - e^-z); at z = 0 it is -inf: keep it finite and huge. */
        double lf = log(fmax(-expm1(-s[i] / mean), 1e-300));
        double ls = -s[n - 1 - i] / mean; /* ln(1 - F) */
        sum += (double)(2 * i + 1) * (lf + ls);
    }
    free(s);
    double a2 = -(double)n - sum / (double)n;
    return a2 * (1.0 + 0.6 / (double)n);
}

/* Ranks (1-based, ties averaged) of v[k * stride], k < n, into r. */
static int rank(const double *v, size_t n, size_t stride, double *r) {
    /* sort (value, index) pairs: cmp_double reads the value */
    double *key = malloc(n * 2 * sizeof *key);
    if (!key) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        key[2 * i] = v[i * stride];
        key[2 * i + 1] = (double)i;
    }
    qsort(key, n, 2 * sizeof *key, cmp_double);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && key[2 * (j + 1)] == key[2 * i])
            j++;
        for (size_t k = i; k <= j; k++)
            r[(size_t)key[2 * k + 1]] = (double)(i + j) / 2 + 1;
        i = j + 1;
    }
    free(key);
    return 0;
}

double lat_load_verdict_spearman_pairs(const double *x, size_t n) {
    if (!x || n < 8) return NAN;
    double *r = malloc(n * 2 * sizeof *r);
    if (!r || rank(x, n, 2, r) || rank(x + 1, n, 2, r + n)) {
        free(r);
        return NAN;
    }
    double m = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double a = r[i] - m, b = r[n + i] - m;
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    free(r);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

__attribute__((format(printf, 2, 3))) static void add_reason(lat_load_verdict *v, const char *fmt,
                                                             ...) {
    size_t k = strlen(v->reason);
    if (k + 3 >= sizeof v->reason) return;
    if (k) {
        strcpy(v->reason + k, "; ");
        k += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason + k, sizeof v->reason - k, fmt, ap);
    va_end(ap);
}

/* "p99" appended to a list of percentile names (160 bytes). */
static void name_pct(char *list, double p) {
    size_t k = strlen(list);
    snprintf(list + k, 160 - k, "%sp%g", k ? " " : "", p);
}

static void judge_pcts(const lat_load_verdict_in *in, lat_load_verdict *v) {
    lat_hist_ci ci[LAT_LOAD_VERDICT_MAX];
    lat_hist_cis_at_percentiles(in->latency, in->ps, v->confidence, ci, in->nps);
    char lagbad[160] = "", waitbad[160] = "", widebad[160] = "";
    size_t printed = 0;
    for (size_t i = 0; i < in->nps; i++) {
        lat_load_pct *p = &v->pct[i];
        p->p = in->ps[i];
        p->latency = ci[i];
        p->printed = lat_hist_total(in->latency) > 0 && !ci[i].max_bound;
        p->needed_n = lat_hist_ci_needed_n(in->ps[i] / 100, v->confidence);
        p->lag = lat_hist_value_at_percentile(in->lag, in->ps[i]);
        p->lag_ok = (double)p->lag < v->lag_fraction * (double)ci[i].value;
        p->wait = in->wait ? lat_hist_value_at_percentile(in->wait, in->ps[i]) : 0;
        p->wait_ok = (double)p->wait < v->lag_fraction * (double)ci[i].value;
        double w = ci[i].value > 0 ? (double)(ci[i].hi - ci[i].lo) / (double)ci[i].value : 0;
        p->width_ok = w <= v->ci_width;
        p->valid = p->printed && p->lag_ok && p->wait_ok && p->width_ok;
        if (!p->printed) continue;
        printed++;
        if (!p->lag_ok) name_pct(lagbad, p->p);
        if (!p->wait_ok) name_pct(waitbad, p->p);
        if (p->lag_ok && p->wait_ok && !p->width_ok) name_pct(widebad, p->p);
    }
    v->npct = in->nps;
    /* Kept late requests mostly in the backlogs waits left: the service
     * stalled with every connection full, and the due requests then went
     * out one send at a time.  Connections enough to hold a stall's
     * requests keep that queue at the service, where it belongs. */
    const lat_load_counts *c = in->counts;
    uint64_t own_late = c->late > c->late_gap ? c->late - c->late_gap : 0;
    bool drained = own_late && 2 * c->late_wait >= own_late;
    bool limit = v->conns_limit;
    char behind[640] = "", drain[1100] = "", cure[800];
    size_t k = 0;
    if (v->service_behind)
        k = (size_t)snprintf(behind, sizeof behind,
                             "the service completed %.0f requests/s of the %.0f offered: it did "
                             "not keep up with this rate%s",
                             v->completed_rate, v->offered_rate, limit ? ", or" : "");
    if (limit) /* Little's law: one run cannot tell this from a service behind */
        snprintf(behind + k, sizeof behind - k,
                 "%sthe %u connections were the limit: each request held one of their %u slots "
                 "for the mean service time of %.1f us, so they carry at most %.0f requests/s; "
                 "raise --connections to %u (twice rate x service time / in-flight cap)%s",
                 k ? " " : "", in->connections,
                 in->connections * (in->max_inflight ? in->max_inflight : 1),
                 lat_hist_mean(in->service) / 1e3, v->conn_capacity, v->conns_needed,
                 k ? ": if the service time grows with them, it is the service" : "");
    if (drained)
        snprintf(drain, sizeof drain,
                 "; %llu of the %llu late requests kept went out in the backlog after every "
                 "connection was at its in-flight cap%s%s%s",
                 (unsigned long long)c->late_wait, (unsigned long long)own_late,
                 *behind && !limit ? ", and " : "", limit ? "" : behind,
                 limit     ? ""
                 : *behind ? ", so that queue grew in the generator (more connections only move it "
                             "into the service)"
                           : ": more connections keep a stall's requests queued at the service "
                             "instead");
    if (*lagbad)
        add_reason(v, "%s: schedule lag there is not below %.0f%% of the latency (%s set %s)%s",
                   lagbad, v->lag_fraction * 100,
                   drained && limit ? "a queue in the generator,"
                   : drained && *behind
                       ? "a queue in the generator, behind a service that did not keep up,"
                       : "the generator, not the service,",
                   strchr(lagbad, ' ') ? "these figures" : "this figure", drain);
    snprintf(cure, sizeof cure, "%s%s", behind,
             limit     ? ""
             : *behind ? ", and more connections or a higher in-flight cap only move that queue "
                         "into it"
                       : "more connections or a higher in-flight cap move it to the service");
    if (*waitbad)
        add_reason(v,
                   "%s: requests waited for a connection with room (every one at its in-flight "
                   "cap, %llu times) for %.0f%% of the latency or more: the offered rate was more "
                   "than the connections carried (backlog up to %llu), so the queue in the "
                   "generator set %s; %s",
                   waitbad, (unsigned long long)in->counts->cap_waits, v->lag_fraction * 100,
                   (unsigned long long)in->counts->backlog_max,
                   strchr(waitbad, ' ') ? "these figures" : "this figure", cure);
    /* the pace on its own: a service that did not keep up (or connections
     * that could not carry the rate) is named even when no percentile's lag
     * or wait shows it (its queue was at the service) */
    if (*behind && !(*lagbad && drained && !limit) && !*waitbad) add_reason(v, "%s", behind);
    /* also when every completed request was censored: none is left to judge */
    if (in->nps && !printed && (lat_hist_total(in->latency) > 0 || in->counts->completed > 0))
        add_reason(v, "too few samples (%lld%s) for any percentile: p%g needs %lld",
                   (long long)lat_hist_total(in->latency),
                   lat_hist_total(in->latency) ? "" : " kept: the completed ones were censored",
                   in->ps[0], (long long)v->pct[0].needed_n);
}

/* "timeout 3, unsent 96" (the kinds with requests failed) into buf. */
static void failed_kinds(const lat_load_counts *c, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (int e = 0; e < LAT_LOAD_NERR && k < n; e++)
        if (e != LAT_LOAD_REFUSED && c->errors[e])
            k += (size_t)snprintf(buf + k, n - k, "%s%s %llu", k ? ", " : "",
                                  lat_load_err_name((lat_load_err)e),
                                  (unsigned long long)c->errors[e]);
}

/* What went wrong on the wire and in the run's course: failures by kind,
 * error replies, protocol errors with nothing in flight, refused connects,
 * a run cut short or ended by its deadline. */
static void judge_wire(const lat_load_verdict_in *in, lat_load_verdict *v) {
    const lat_load_counts *c = in->counts;
    char kinds[256];
    failed_kinds(c, kinds, sizeof kinds);
    if (c->stopped)
        add_reason(v,
                   "the run was cut short (stopped after %.1f s of a %.1f s schedule): the "
                   "requests due and never sent or answered are counted as failed",
                   (double)c->run_ns / 1e9, (double)in->duration_ns / 1e9);
    if (c->deadline)
        add_reason(v, "the run reached its deadline (the schedule plus the timeout) with "
                      "requests never answered or never sent");
    if (c->failed)
        add_reason(v, "%llu requests failed (%s; their latency is not in the percentiles)",
                   (unsigned long long)c->failed, kinds);
    if (c->error_replies)
        add_reason(v,
                   "%llu of the %llu replies said error (HTTP >= 400, RESP error, memcached "
                   "ERROR): the service's errors, timed with its answers",
                   (unsigned long long)c->error_replies, (unsigned long long)c->completed);
    uint64_t wire = 0; /* errors counted with no request in flight */
    for (int e = 0; e < LAT_LOAD_NERR; e++)
        if (e != LAT_LOAD_REFUSED) wire += c->errors[e];
    wire = wire > c->failed ? wire - c->failed : 0;
    if (wire)
        add_reason(v,
                   "%llu protocol errors with no request in flight (responses nobody asked for, "
                   "or refused by the parser; the connection was reopened each time)",
                   (unsigned long long)wire);
    if (c->errors[LAT_LOAD_REFUSED])
        add_reason(v, "%llu connects refused or failed",
                   (unsigned long long)c->errors[LAT_LOAD_REFUSED]);
}

int lat_load_verdict_judge(const lat_load_verdict_in *in, lat_load_verdict *v) {
    if (!in || !v || !in->latency || !in->lag || !in->counts || in->nps > LAT_LOAD_VERDICT_MAX ||
        (in->nps && !in->ps))
        return -EINVAL;
    memset(v, 0, sizeof *v);
    v->lag_fraction = in->lag_fraction > 0 ? in->lag_fraction : 0.1;
    v->ci_width = in->ci_width > 0 ? in->ci_width : 0.5;
    v->confidence = in->confidence > 0 ? in->confidence : LAT_HIST_CI_DEFAULT;
    const lat_load_counts *c = in->counts;
    v->ad_n = in->n_interarrivals;
    v->ad_a2 = lat_load_verdict_ad_exponential(in->interarrivals, in->n_interarrivals);
    v->ad_pass = !isnan(v->ad_a2) && v->ad_a2 < LAT_AD_EXP_CRIT_1PCT;
    v->arrivals_ok = in->arrivals != LAT_LOAD_POISSON || v->ad_pass;
    v->lag1_n = in->n_pairs;
    v->lag1_rho = lat_load_verdict_spearman_pairs(in->latency_pairs, in->n_pairs);
    v->lag1_independent = !isnan(v->lag1_rho) &&
                          fabs(v->lag1_rho) * sqrt((double)in->n_pairs - 1) < LAT_SPEARMAN_Z_1PCT;
    if (!v->arrivals_ok) {
        if (isnan(v->ad_a2))
            add_reason(v, "too few inter-arrivals (%zu) to test the Poisson schedule", v->ad_n);
        else
            add_reason(v, "arrivals are not Poisson (Anderson-Darling A2* %.2f >= %.3f at 1%%)",
                       v->ad_a2, LAT_AD_EXP_CRIT_1PCT);
    }
    judge_wire(in, v);
    if (!c->completed) add_reason(v, "no request completed");
    /* a run stopped early offered its requests over its own length */
    uint64_t sched_ns = c->run_ns && c->run_ns < in->duration_ns ? c->run_ns : in->duration_ns;
    if (sched_ns) v->offered_rate = (double)c->scheduled * 1e9 / (double)sched_ns;
    if (c->run_ns) v->completed_rate = (double)c->completed * 1e9 / (double)c->run_ns;
    v->service_behind =
        v->offered_rate > 0 && v->completed_rate < LAT_LOAD_BEHIND * v->offered_rate;
    /* Little's law on the connections' slots */
    double svc = in->service && in->connections ? lat_hist_mean(in->service) : 0;
    double slots = (double)in->connections * (in->max_inflight ? in->max_inflight : 1);
    if (svc > 0) v->conn_capacity = slots * 1e9 / svc;
    v->conns_limit = v->conn_capacity > 0 && c->cap_waits > 0 &&
                     v->offered_rate >= LAT_LOAD_BEHIND * v->conn_capacity;
    if (v->conns_limit)
        v->conns_needed =
            (unsigned)fmin(ceil(2 * v->offered_rate * svc / 1e9 * in->connections / slots), 1e9);
    judge_pcts(in, v);
    if (c->sent) {
        v->late_share = (double)c->late / (double)c->sent;
        v->late_gap_share = (double)c->late_gap / (double)c->sent;
    }
    if (c->run_ns) v->platform_loss = (double)c->gap_ns / (double)c->run_ns;
    v->valid = !v->reason[0];
    return 0;
}

json_t *lat_load_verdict_json(const lat_load_verdict *v) {
    json_t *o = json_object(), *ps = json_array();
    json_object_set_new(o, "valid", json_boolean(v->valid));
    json_object_set_new(o, "reason", json_string(v->reason));
    json_object_set_new(o, "lag_fraction", json_real(v->lag_fraction));
    json_object_set_new(o, "ci_width", json_real(v->ci_width));
    json_object_set_new(o, "anderson_darling_a2", lat_json_real_or_null(v->ad_a2));
    json_object_set_new(o, "anderson_darling_n", json_integer((json_int_t)v->ad_n));
    json_object_set_new(o, "anderson_darling_critical_1pct", json_real(LAT_AD_EXP_CRIT_1PCT));
    json_object_set_new(o, "exponential_not_rejected", json_boolean(v->ad_pass));
    json_object_set_new(o, "arrivals_ok", json_boolean(v->arrivals_ok));
    json_object_set_new(o, "lag1_spearman_rho", lat_json_real_or_null(v->lag1_rho));
    json_object_set_new(o, "lag1_pairs", json_integer((json_int_t)v->lag1_n));
    json_object_set_new(o, "lag1_independent", json_boolean(v->lag1_independent));
    json_object_set_new(o, "offered_rate", json_real(v->offered_rate));
    json_object_set_new(o, "completed_rate", json_real(v->completed_rate));
    json_object_set_new(o, "service_behind", json_boolean(v->service_behind));
    json_object_set_new(o, "connections_capacity",
                        v->conn_capacity > 0 ? json_real(v->conn_capacity) : json_null());
    json_object_set_new(o, "connections_limit", json_boolean(v->conns_limit));
    json_object_set_new(o, "connections_needed",
                        v->conns_limit ? json_integer(v->conns_needed) : json_null());
    for (size_t i = 0; i < v->npct; i++) {
        const lat_load_pct *p = &v->pct[i];
        json_t *e = json_object();
        json_object_set_new(e, "percentile", json_real(p->p));
        json_object_set_new(e, "printed", json_boolean(p->printed));
        json_object_set_new(e, "latency_ns", json_integer(p->latency.value));
        json_object_set_new(e, "lag_ns", json_integer(p->lag));
        json_object_set_new(e, "lag_ok", json_boolean(p->lag_ok));
        json_object_set_new(e, "wait_ns", json_integer(p->wait));
        json_object_set_new(e, "wait_ok", json_boolean(p->wait_ok));
        json_object_set_new(e, "width_ok", json_boolean(p->width_ok));
        json_object_set_new(e, "valid", json_boolean(p->valid));
        if (!p->printed) json_object_set_new(e, "needs_n", json_integer(p->needed_n));
        json_array_append_new(ps, e);
    }
    json_object_set_new(o, "percentiles", ps);
    json_object_set_new(o, "late_share", json_real(v->late_share));
    json_object_set_new(o, "late_after_gap_share", json_real(v->late_gap_share));
    json_object_set_new(o, "platform_loss", json_real(v->platform_loss));
    return o;
}

json_t *lat_load_hist_json(const lat_hist *h, const double *ps, size_t nps) {
    lat_hist_ci ci[8];
    if (nps > 8) nps = 8;
    lat_hist_cis_at_percentiles(h, ps, LAT_HIST_CI_DEFAULT, ci, nps);
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer(lat_hist_total(h)));
    for (size_t i = 0; i < nps; i++) {
        char k[16];
        snprintf(k, sizeof k, "p%g", ps[i]);
        lat_json_set_ci(o, k, "_ns", &ci[i]);
    }
    json_object_set_new(o, "max_ns", json_integer(lat_hist_max(h)));
    json_object_set_new(o, "mean_ns", lat_json_real_or_null(lat_hist_mean(h)));
    const char *k;
    json_t *x;
    json_object_foreach(o, k, x) /* nothing measured: no figure (null), not 0 */
        if (!lat_hist_total(h) && strstr(k, "_ns")) json_object_set_new(o, k, json_null());
    return o;
}

/* The censored requests' own latency beside the kept ones', and every
 * request's together (gross): a reader sees what censoring took out. */
void lat_load_write_censored(FILE *f, const lat_hist *k, const lat_hist *x) {
    int64_t nk = lat_hist_total(k), nx = lat_hist_total(x);
    fprintf(f,
            "censored: %" PRId64 " requests (%.3f%% of those completed), late because of the "
            "sending thread's gaps; the figures above are the other %" PRId64,
            nx, nk + nx ? 100.0 * (double)nx / (double)(nk + nx) : 0.0, nk);
    lat_hist all;
    if (nx && !lat_load_hist_init(&all)) {
        lat_hist_add(&all, k);
        lat_hist_add(&all, x);
        double ps[3] = {50, 99, 99.9};
        int64_t cv[3], av[3];
        lat_hist_values_at_percentiles(x, ps, cv, 3);
        lat_hist_values_at_percentiles(&all, ps, av, 3);
        fprintf(f,
                "; theirs: latency p50 %.1f us, p99 %.1f us, max %.1f us; every request's: p50 "
                "%.1f us, p99 %.1f us, p99.9 %.1f us",
                (double)cv[0] / 1e3, (double)cv[1] / 1e3, (double)lat_hist_max(x) / 1e3,
                (double)av[0] / 1e3, (double)av[1] / 1e3, (double)av[2] / 1e3);
        lat_hist_fini(&all);
    }
    fprintf(f, "\n");
}

/* ---- the engine's counts (load.h) as JSON and the gaps line --------------------------- */

json_t *lat_load_counts_json(const lat_load_counts *c) {
    json_t *o = json_object(), *e = json_object();
    json_object_set_new(o, "scheduled", json_integer((json_int_t)c->scheduled));
    json_object_set_new(o, "sent", json_integer((json_int_t)c->sent));
    json_object_set_new(o, "completed", json_integer((json_int_t)c->completed));
    json_object_set_new(o, "failed", json_integer((json_int_t)c->failed));
    json_object_set_new(o, "error_replies", json_integer((json_int_t)c->error_replies));
    for (int k = 0; k < LAT_LOAD_NERR; k++)
        json_object_set_new(e, lat_load_err_name((lat_load_err)k),
                            json_integer((json_int_t)c->errors[k]));
    json_object_set_new(o, "errors", e);
    json_object_set_new(o, "cap_waits", json_integer((json_int_t)c->cap_waits));
    json_object_set_new(o, "backlog_max", json_integer((json_int_t)c->backlog_max));
    json_object_set_new(o, "closed_idle", json_integer((json_int_t)c->closed_idle));
    json_object_set_new(o, "reconnects", json_integer((json_int_t)c->reconnects));
    json_object_set_new(o, "late", json_integer((json_int_t)c->late));
    json_object_set_new(o, "late_after_gap", json_integer((json_int_t)c->late_gap));
    json_object_set_new(o, "late_after_wait", json_integer((json_int_t)c->late_wait));
    json_object_set_new(o, "gaps", json_integer((json_int_t)c->gaps));
    json_object_set_new(o, "gap_ns", json_integer((json_int_t)c->gap_ns));
    json_object_set_new(o, "gap_longest_ns", json_integer((json_int_t)c->gap_longest_ns));
    json_object_set_new(o, "runq_wait_ns", json_integer((json_int_t)c->runq_ns));
    json_object_set_new(o, "run_ns", json_integer((json_int_t)c->run_ns));
    json_object_set_new(o, "stopped", json_integer((json_int_t)c->stopped));
    json_object_set_new(o, "deadline", json_integer((json_int_t)c->deadline));
    json_object_set_new(o, "stream_waits", json_integer((json_int_t)c->stream_waits));
    json_object_set_new(o, "goaways", json_integer((json_int_t)c->goaways));
    json_object_set_new(o, "flow_stalls", json_integer((json_int_t)c->flow_stalls));
    return o;
}

void lat_load_counts_write_gaps(FILE *f, const lat_load_counts *c, unsigned threads,
                                uint64_t gap_ns) {
    double th_us = (double)(gap_ns ? gap_ns : 10000) / 1e3;
    fprintf(f,
            "%s: %llu platform gaps of %.1f us or more, %.2f ms in all (%.3f%% of the run, longest "
            "%.1f us; %.2f ms waiting behind this machine's other threads, the server's included); "
            "%llu requests sent late (lag > %.1f us), %llu of them because of the gaps: %.3f%% of "
            "requests late because of the platform; %llu of the rest in the backlog after every "
            "connection was full\n",
            threads == 1 ? "sending thread" : "sending threads (gap time: the mean per thread)",
            (unsigned long long)c->gaps, th_us, (double)c->gap_ns / 1e6,
            c->run_ns ? 100.0 * (double)c->gap_ns / (double)c->run_ns : 0.0,
            (double)c->gap_longest_ns / 1e3, (double)c->runq_ns / 1e6, (unsigned long long)c->late,
            th_us, (unsigned long long)c->late_gap,
            c->sent ? 100.0 * (double)c->late_gap / (double)c->sent : 0.0,
            (unsigned long long)c->late_wait);
}
