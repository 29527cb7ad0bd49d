/* results.c - the harness's results as data: their growable arrays and
 * key/value lists (shared with run.c), freeing, notes and metric series, the
 * samples that enter the statistics (those not set aside by the platform
 * account), the JSON report (schema LAT_BENCH_SCHEMA_VERSION, written
 * atomically and read back for comparison) and the printed tables (to a
 * caller-given FILE*).
 *
 * Summaries are not trusted from a file: loading recomputes them (and the
 * set-aside count and kept share) from the raw per-sample arrays, so a report
 * always agrees with its own samples.  A report written before the platform
 * account reads as one whose samples were all kept whole. */
#include "internal.h"

#include "alloc_internal.h"
#include "latlab/atomicfile.h"
#include "latlab/error.h"
#include "latlab/json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- ownership ----------------------------------------------------------------------------------
 */

int lat__bench_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return 0;
    uint32_t nc = *cap ? *cap : 4;
    while (nc < need)
        nc *= 2;
    void *p = lat__calloc(nc, elem);
    if (!p) return -ENOMEM;
    if (*arr) memcpy(p, *arr, (size_t)*cap * elem);
    lat__free(*arr);
    *arr = p;
    *cap = nc;
    return 0;
}

int lat__bench_kv_push(lat_bench_kv **arr, uint32_t *n, uint32_t *cap, const char *k,
                       const char *v) {
    if (!k || !v) return -EINVAL;
    int rc = lat__bench_grow((void **)arr, cap, *n + 1, sizeof **arr);
    if (rc) return rc;
    lat_bench_kv *kv = &(*arr)[*n];
    kv->key = lat__strdup(k);
    kv->value = lat__strdup(v);
    if (!kv->key || !kv->value) {
        lat__free(kv->key);
        lat__free(kv->value);
        kv->key = kv->value = NULL;
        return -ENOMEM;
    }
    (*n)++;
    return 0;
}

static void series_clear(lat_bench_series *s) {
    lat__free(s->name);
    lat__free(s->unit);
    lat__free(s->section);
    lat__free(s->values);
}

static void role_clear(lat_bench_role *ro) {
    lat__free(ro->name);
    lat__free(ro->ops_per_sec);
    lat__free(ro->ns_per_op);
    lat__free(ro->ops);
    for (uint32_t i = 0; i < ro->n_events; i++)
        lat__free(ro->events[i].name);
    lat__free(ro->events);
}

void lat__bench_result_clear(lat_bench_result *res) {
    if (!res) return;
    lat__free(res->group);
    lat__free(res->name);
    for (uint32_t i = 0; i < res->n_meta; i++) {
        lat__free(res->meta[i].key);
        lat__free(res->meta[i].value);
    }
    lat__free(res->meta);
    lat__free(res->ns_per_op);
    lat__free(res->raw_ns_per_op);
    lat__free(res->kept_share);
    lat__free(res->runq_wait_ns);
    lat__free(res->invol_switches);
    lat__free(res->throughput);
    lat__free(res->duration_ns);
    lat__free(res->cpu_ns);
    lat__free(res->ops);
    for (uint32_t i = 0; i < res->n_roles; i++)
        role_clear(&res->roles[i]);
    lat__free(res->roles);
    for (uint32_t i = 0; i < res->n_metrics; i++)
        series_clear(&res->metrics[i]);
    lat__free(res->metrics);
    for (uint32_t i = 0; i < res->n_notes; i++)
        lat__free(res->notes[i]);
    lat__free(res->notes);
    memset(res, 0, sizeof *res);
}

void lat_bench_report_destroy(lat_bench_report *rep) {
    if (!rep) return;
    for (uint32_t i = 0; i < rep->n_results; i++)
        lat__bench_result_clear(&rep->results[i]);
    lat__free(rep->results);
    lat__free(rep->timestamp);
    lat__free(rep->hostname);
    lat__free(rep->suite);
    lat__free(rep->git_commit);
    json_decref(rep->conditions);
    lat__free(rep);
}

int lat__bench_note(lat_bench_result *res, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (uint32_t i = 0; i < res->n_notes; i++)
        if (strcmp(res->notes[i], buf) == 0) return 0; /* say it once */
    char **n = lat__calloc(res->n_notes + 1, sizeof *n);
    if (!n) return -ENOMEM;
    if (res->notes) memcpy(n, res->notes, res->n_notes * sizeof *n);
    if (!(n[res->n_notes] = lat__strdup(buf))) {
        lat__free(n);
        return -ENOMEM;
    }
    lat__free(res->notes);
    res->notes = n;
    res->n_notes++;
    return 0;
}

int lat__bench_series_push(lat_bench_result *res, const char *name, const char *unit,
                           const char *section, double v) {
    lat_bench_series *s = NULL;
    for (uint32_t i = 0; i < res->n_metrics; i++)
        if (strcmp(res->metrics[i].name, name) == 0) s = &res->metrics[i];
    if (!s) {
        lat_bench_series *a = lat__calloc(res->n_metrics + 1, sizeof *a);
        if (!a) return -ENOMEM;
        if (res->metrics) memcpy(a, res->metrics, res->n_metrics * sizeof *a);
        s = &a[res->n_metrics];
        s->name = lat__strdup(name);
        s->unit = lat__strdup(unit ? unit : "");
        s->section = lat__strdup(section ? section : "scenario");
        if (!s->name || !s->unit || !s->section) {
            series_clear(s);
            lat__free(a);
            return -ENOMEM;
        }
        lat__free(res->metrics);
        res->metrics = a;
        res->n_metrics++;
    }
    /* Grow by doubling; capacity is implied by n (powers of two from 8). */
    uint32_t cap = s->n <= 8 ? 8 : s->n;
    if (s->n == 0 || (s->n >= 8 && (s->n & (s->n - 1)) == 0)) {
        uint32_t nc = s->n == 0 ? 8 : s->n * 2;
        double *v2 = lat__calloc(nc, sizeof *v2);
        if (!v2) return -ENOMEM;
        if (s->values) memcpy(v2, s->values, s->n * sizeof *v2);
        lat__free(s->values);
        s->values = v2;
    }
    (void)cap;
    s->values[s->n++] = v;
    return 0;
}

int lat__bench_kept_finish(lat_bench_result *r) {
    r->set_aside = 0;
    r->kept_share_all = 1;
    memset(&r->latency, 0, sizeof r->latency);
    memset(&r->thr, 0, sizeof r->thr);
    uint32_t k = 0;
    if (r->n) {
        double *a = lat__calloc(r->n, sizeof *a), *b = lat__calloc(r->n, sizeof *b);
        if (!a || !b) {
            lat__free(a);
            lat__free(b);
            return -ENOMEM;
        }
        double all = 0, kept = 0;
        for (uint32_t i = 0; i < r->n; i++) {
            double ops = r->ops ? (double)r->ops[i] : 0;
            all += ops;
            if (lat_bench_sample_set_aside(r, i)) {
                r->set_aside++;
                continue;
            }
            kept += (r->kept_share ? r->kept_share[i] : 1) * ops;
            a[k] = r->ns_per_op[i];
            b[k] = r->throughput[i];
            k++;
        }
        r->kept_share_all = all > 0 ? kept / all : 1;
        if (k == 0) { /* every sample set aside: the statistics fall back to all */
            memcpy(a, r->ns_per_op, r->n * sizeof *a);
            memcpy(b, r->throughput, r->n * sizeof *b);
            k = r->n;
        }
        lat_bench_summarize(a, k, &r->latency);
        lat_bench_summarize(b, k, &r->thr);
        lat__free(a);
        lat__free(b);
    }
    r->unstable = lat_bench_stability_weak(r->thr.cv_pct, r->latency.outliers, k);
    return 0;
}

void lat__bench_series_finish(lat_bench_result *res) {
    for (uint32_t i = 0; i < res->n_metrics; i++)
        if (res->metrics[i].n)
            lat_bench_summarize(res->metrics[i].values, res->metrics[i].n, &res->metrics[i].stats);
}

/* ---- JSON out -----------------------------------------------------------------------------------
 */

static json_t *jsummary(const lat_bench_summary *s) {
    return json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:i}", "n",
                     (json_int_t)s->n, "mean", lat_json_real_or_null(s->mean), "median",
                     lat_json_real_or_null(s->median), "p95", lat_json_real_or_null(s->p95), "min",
                     lat_json_real_or_null(s->min), "max", lat_json_real_or_null(s->max), "stddev",
                     lat_json_real_or_null(s->stddev), "cv_pct", lat_json_real_or_null(s->cv_pct),
                     "mad", lat_json_real_or_null(s->mad), "q1", lat_json_real_or_null(s->q1), "q3",
                     lat_json_real_or_null(s->q3), "fence_lo", lat_json_real_or_null(s->fence_lo),
                     "fence_hi", lat_json_real_or_null(s->fence_hi), "outliers",
                     (json_int_t)s->outliers);
}

static json_t *jdarr(const double *v, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        json_array_append_new(a, lat_json_real_or_null(v[i]));
    return a;
}
static json_t *juarr(const uint64_t *v, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

static json_t *jpmu(const lat_bench_pmu *p) {
    if (!p->valid) return json_null();
    return json_pack(
        "{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cycles_per_op", lat_json_real_or_null(p->cycles_per_op),
        "instructions_per_op", lat_json_real_or_null(p->instructions_per_op), "ipc",
        lat_json_real_or_null(p->ipc), "branch_miss_pct", lat_json_real_or_null(p->branch_miss_pct),
        "cache_misses_per_op", lat_json_real_or_null(p->cache_misses_per_op), "stalled_pct",
        lat_json_real_or_null(p->stalled_pct), "coverage", lat_json_real_or_null(p->coverage));
}

/* The tail's intervals as sibling keys: "p50_lo_ns", "p50_hi_ns", ...,
 * "p999_needs_n" for a max-bound figure. */
static const char *const tail_keys[LAT_BENCH_TAIL_PCTS] = {"p50", "p90", "p99", "p999"};
static const char *const tail_names[LAT_BENCH_TAIL_PCTS] = {"p50", "p90", "p99", "p99.9"};

static void tail_ci_to_json(json_t *tail, const lat_bench_tail *t) {
    char k[48];
    for (int i = 0; i < LAT_BENCH_TAIL_PCTS; i++) {
        snprintf(k, sizeof k, "%s_lo_ns", tail_keys[i]);
        json_object_set_new(tail, k, lat_json_real_or_null(t->lo_ns[i]));
        snprintf(k, sizeof k, "%s_hi_ns", tail_keys[i]);
        json_object_set_new(tail, k, lat_json_real_or_null(t->hi_ns[i]));
        if (t->needs_n[i]) {
            snprintf(k, sizeof k, "%s_needs_n", tail_keys[i]);
            json_object_set_new(tail, k, json_integer((json_int_t)t->needs_n[i]));
        }
    }
}

static json_t *jresult(const lat_bench_result *r) {
    json_t *meta = json_object();
    for (uint32_t i = 0; i < r->n_meta; i++)
        json_object_set_new(meta, r->meta[i].key, json_string(r->meta[i].value));
    json_t *metric_stats = json_object(), *sample_metrics = json_array();
    for (uint32_t i = 0; i < r->n_metrics; i++) {
        const lat_bench_series *s = &r->metrics[i];
        json_t *st = jsummary(&s->stats);
        json_object_set_new(st, "unit", json_string(s->unit));
        json_object_set_new(st, "section", json_string(s->section));
        json_object_set_new(metric_stats, s->name, st);
        json_array_append_new(sample_metrics,
                              json_pack("{s:s,s:s,s:s,s:o}", "name", s->name, "unit", s->unit,
                                        "section", s->section, "values", jdarr(s->values, s->n)));
    }
    json_t *roles = json_array();
    for (uint32_t i = 0; i < r->n_roles; i++) {
        const lat_bench_role *ro = &r->roles[i];
        json_t *ev = json_array();
        for (uint32_t e = 0; e < ro->n_events; e++)
            json_array_append_new(ev,
                                  json_pack("{s:s,s:I,s:o,s:o}", "name", ro->events[e].name,
                                            "total", (json_int_t)ro->events[e].total, "per_op",
                                            lat_json_real_or_null(ro->events[e].per_op), "per_sec",
                                            lat_json_real_or_null(ro->events[e].per_sec)));
        json_array_append_new(
            roles,
            json_pack("{s:s,s:I,s:I,s:o,s:o,s:{s:o,s:o,s:o},s:o,s:o}", "name", ro->name, "threads",
                      (json_int_t)ro->threads, "total_ops", (json_int_t)ro->total_ops, "throughput",
                      jsummary(&ro->throughput), "latency", jsummary(&ro->latency), "samples",
                      "ops_per_sec", jdarr(ro->ops_per_sec, ro->n), "ns_per_op",
                      jdarr(ro->ns_per_op, ro->n), "ops", juarr(ro->ops, ro->n), "events", ev,
                      "pmu", jpmu(&ro->pmu)));
    }
    json_t *notes = json_array();
    for (uint32_t i = 0; i < r->n_notes; i++)
        json_array_append_new(notes, json_string(r->notes[i]));
    json_t *tail = r->tail.count
                       ? json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "count", (json_int_t)r->tail.count,
                                   "p50_ns", lat_json_real_or_null(r->tail.p50_ns), "p90_ns",
                                   lat_json_real_or_null(r->tail.p90_ns), "p99_ns",
                                   lat_json_real_or_null(r->tail.p99_ns), "p999_ns",
                                   lat_json_real_or_null(r->tail.p999_ns), "max_ns",
                                   lat_json_real_or_null(r->tail.max_ns))
                       : json_null();
    if (r->tail.count) tail_ci_to_json(tail, &r->tail);
    json_t *out = json_pack(
        "{s:s,s:s,s:s,s:I,s:s,s:s,s:I,s:o,s:I,s:I,s:I,s:I,s:o,s:b,s:b,"
        "s:{s:o,s:I,s:o,s:o,s:o,s:o,s:o},s:{s:o,s:o,s:o,s:o,s:o},s:o,s:o,s:o,s:o,s:o}",
        "name", r->name, "group", r->group, "kind",
        r->kind == LAT_BENCH_CONCURRENT ? "concurrent" : "standard", "execution_index",
        (json_int_t)r->execution_index, "domain", r->domain == LAT_BENCH_IO ? "io" : "cpu",
        "throughput_unit", r->bytes_per_op ? "bytes/s" : "ops/s", "bytes_per_op",
        (json_int_t)r->bytes_per_op, "metadata", meta, "chunk_size", (json_int_t)r->chunk_size,
        "sample_duration_ns", (json_int_t)r->sample_duration_ns, "calibration_passes",
        (json_int_t)r->calibration_passes, "warmup_samples", (json_int_t)r->warmup_samples,
        "timer_overhead_ns", lat_json_real_or_null(r->timer_overhead_ns), "unstable", r->unstable,
        "budget_capped", r->budget_capped, "stats", "mean_ns_per_op",
        lat_json_real_or_null(r->mean_ns_per_op), "total_ops", (json_int_t)r->total_ops, "total_ns",
        lat_json_real_or_null(r->total_ns), "cpu_share", lat_json_real_or_null(r->cpu_share),
        "ns_per_op", jsummary(&r->latency), "throughput", jsummary(&r->thr), "metrics",
        metric_stats, "samples", "ns_per_op", jdarr(r->ns_per_op, r->n), "throughput",
        jdarr(r->throughput, r->n), "duration_ns", jdarr(r->duration_ns, r->n), "cpu_ns",
        jdarr(r->cpu_ns, r->cpu_ns ? r->n : 0), "ops", juarr(r->ops, r->n), "sample_metrics",
        sample_metrics, "roles", roles, "tail", tail, "pmu", jpmu(&r->pmu), "notes", notes);
    /* The platform account (absent from reports written before it). */
    json_t *stats = json_object_get(out, "stats"), *smp = json_object_get(out, "samples");
    if (!stats || !smp) {
        json_decref(out);
        return NULL;
    }
    json_object_set_new(out, "subchunks", json_integer((json_int_t)r->subchunks));
    json_object_set_new(stats, "kept_share", lat_json_real_or_null(r->kept_share_all));
    json_object_set_new(stats, "samples_set_aside", json_integer((json_int_t)r->set_aside));
    json_object_set_new(stats, "kept_floor", lat_json_real_or_null(r->kept_floor));
    json_object_set_new(stats, "subchunks_touched", json_integer((json_int_t)r->touched));
    json_object_set_new(smp, "raw_ns_per_op",
                        r->raw_ns_per_op ? jdarr(r->raw_ns_per_op, r->n)
                                         : jdarr(r->ns_per_op, r->n));
    if (r->kept_share)
        json_object_set_new(smp, "kept_share", jdarr(r->kept_share, r->n));
    else {
        json_t *ones = json_array();
        for (uint32_t i = 0; ones && i < r->n; i++)
            json_array_append_new(ones, json_real(1));
        json_object_set_new(smp, "kept_share", ones);
    }
    if (r->runq_wait_ns) json_object_set_new(smp, "runq_wait_ns", jdarr(r->runq_wait_ns, r->n));
    if (r->invol_switches)
        json_object_set_new(smp, "involuntary_switches", juarr(r->invol_switches, r->n));
    return out;
}

json_t *lat_bench_report_to_json(const lat_bench_report *rep) {
    if (!rep) return NULL;
    json_t *results = json_array();
    if (!results) return NULL;
    for (uint32_t i = 0; i < rep->n_results; i++) {
        json_t *r = jresult(&rep->results[i]);
        if (!r || json_array_append_new(results, r)) {
            json_decref(results);
            return NULL;
        }
    }
    return json_pack("{s:I,s:s?,s:I,s:s?,s:s?,s:s?,s:{s:b,s:I},s:O?,s:o}", "schema_version",
                     (json_int_t)rep->schema_version, "timestamp", rep->timestamp, "timestamp_ns",
                     (json_int_t)rep->timestamp_ns, "hostname", rep->hostname, "suite", rep->suite,
                     "git_commit", rep->git_commit, "case_order", "shuffled", rep->shuffled, "seed",
                     (json_int_t)rep->seed, "run_conditions", rep->conditions, "results", results);
}

int lat_bench_report_save(const lat_bench_report *rep, const char *path) {
    if (!rep || !path) return -EINVAL;
    json_t *j = lat_bench_report_to_json(rep);
    if (!j) return -ENOMEM;
    /* Full double precision (17 digits): raw samples must round-trip exactly. */
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (!text) return -ENOMEM;
    int rc = lat_write_text_atomic(path, text);
    free(text);
    return rc;
}

/* ---- JSON in ------------------------------------------------------------------------------------
 */

typedef struct jerr {
    char *buf;
    size_t len;
} jerr;

static int bad(jerr *e, const char *what) {
    if (e->buf && e->len) snprintf(e->buf, e->len, "%s", what);
    return LAT_EFORMAT;
}

static double jnum(const json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}
static uint64_t juint(const json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v) : 0;
}

static void tail_ci_from_json(const json_t *tail, lat_bench_tail *t) {
    char k[48];
    for (int i = 0; i < LAT_BENCH_TAIL_PCTS; i++) {
        snprintf(k, sizeof k, "%s_lo_ns", tail_keys[i]);
        t->lo_ns[i] = jnum(tail, k);
        snprintf(k, sizeof k, "%s_hi_ns", tail_keys[i]);
        t->hi_ns[i] = jnum(tail, k);
        snprintf(k, sizeof k, "%s_needs_n", tail_keys[i]);
        t->needs_n[i] = juint(tail, k);
    }
}

static char *jstrdup(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? lat__strdup(s) : NULL;
}

/* Read a numeric array into a new buffer; n must match when *n is non-zero. */
static int read_darr(const json_t *a, double **out, uint32_t *n, jerr *e, const char *what) {
    if (!json_is_array(a)) return bad(e, what);
    size_t len = json_array_size(a);
    if (*n && len != *n) return bad(e, what);
    *n = (uint32_t)len;
    *out = lat__calloc(len ? len : 1, sizeof **out);
    if (!*out) return -ENOMEM;
    for (size_t i = 0; i < len; i++) {
        json_t *v = json_array_get(a, i);
        if (json_is_null(v))
            (*out)[i] = NAN;
        else if (json_is_number(v))
            (*out)[i] = json_number_value(v);
        else
            return bad(e, what);
    }
    return 0;
}
static int read_uarr(const json_t *a, uint64_t **out, uint32_t n, jerr *e, const char *what) {
    if (!json_is_array(a) || json_array_size(a) != n) return bad(e, what);
    *out = lat__calloc(n ? n : 1, sizeof **out);
    if (!*out) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0) return bad(e, what);
        (*out)[i] = (uint64_t)json_integer_value(v);
    }
    return 0;
}

static void read_pmu(const json_t *j, lat_bench_pmu *p) {
    if (!json_is_object(j)) return;
    p->valid = true;
    p->cycles_per_op = jnum(j, "cycles_per_op");
    p->instructions_per_op = jnum(j, "instructions_per_op");
    p->ipc = jnum(j, "ipc");
    p->branch_miss_pct = jnum(j, "branch_miss_pct");
    p->cache_misses_per_op = jnum(j, "cache_misses_per_op");
    p->stalled_pct = jnum(j, "stalled_pct");
    p->coverage = jnum(j, "coverage");
}

/* The per-sample arrays, all of one length (cpu_ns optional). */
static int read_samples(const json_t *j, lat_bench_result *r, jerr *e) {
    json_t *smp = json_object_get(j, "samples");
    if (!json_is_object(smp)) return bad(e, "result without samples");
    int rc;
    uint32_t n = 0;
    if ((rc = read_darr(json_object_get(smp, "ns_per_op"), &r->ns_per_op, &n, e,
                        "samples.ns_per_op")))
        return rc;
    if ((rc = read_darr(json_object_get(smp, "throughput"), &r->throughput, &n, e,
                        "samples.throughput")))
        return rc;
    if ((rc = read_darr(json_object_get(smp, "duration_ns"), &r->duration_ns, &n, e,
                        "samples.duration_ns")))
        return rc;
    if ((rc = read_uarr(json_object_get(smp, "ops"), &r->ops, n, e, "samples.ops"))) return rc;
    r->n = n;
    json_t *cpu = json_object_get(smp, "cpu_ns"); /* optional */
    if (json_is_array(cpu) && json_array_size(cpu) > 0 &&
        (rc = read_darr(cpu, &r->cpu_ns, &n, e, "samples.cpu_ns")))
        return rc;
    /* The platform account, optional: an older report kept every sample whole
     * (kept share 1, raw figure = ns_per_op). */
    json_t *raw = json_object_get(smp, "raw_ns_per_op");
    if (raw) {
        if ((rc = read_darr(raw, &r->raw_ns_per_op, &n, e, "samples.raw_ns_per_op"))) return rc;
    } else {
        if (!(r->raw_ns_per_op = lat__calloc(n ? n : 1, sizeof *r->raw_ns_per_op))) return -ENOMEM;
        if (n) memcpy(r->raw_ns_per_op, r->ns_per_op, n * sizeof *r->ns_per_op);
    }
    json_t *ks = json_object_get(smp, "kept_share");
    if (ks) {
        if ((rc = read_darr(ks, &r->kept_share, &n, e, "samples.kept_share"))) return rc;
        for (uint32_t i = 0; i < n; i++) /* a share is in [0, 1]; unknown is whole */
            if (!(r->kept_share[i] >= 0 && r->kept_share[i] <= 1))
                r->kept_share[i] = r->kept_share[i] < 0 ? 0 : 1;
    } else {
        if (!(r->kept_share = lat__calloc(n ? n : 1, sizeof *r->kept_share))) return -ENOMEM;
        for (uint32_t i = 0; i < n; i++)
            r->kept_share[i] = 1;
    }
    json_t *rq = json_object_get(smp, "runq_wait_ns");
    if (rq && (rc = read_darr(rq, &r->runq_wait_ns, &n, e, "samples.runq_wait_ns"))) return rc;
    json_t *sw = json_object_get(smp, "involuntary_switches");
    if (sw && (rc = read_uarr(sw, &r->invol_switches, n, e, "samples.involuntary_switches")))
        return rc;
    return 0;
}

/* The per-role figures of a concurrent result. */
static int read_roles(const json_t *j, lat_bench_result *r, jerr *e) {
    size_t i;
    json_t *v;
    int rc;
    json_t *roles = json_object_get(j, "roles");
    if (roles && !json_is_array(roles)) return bad(e, "roles is not an array");
    size_t nr = json_array_size(roles);
    if (nr) {
        r->roles = lat__calloc(nr, sizeof *r->roles);
        if (!r->roles) return -ENOMEM;
    }
    json_array_foreach(roles, i, v) {
        lat_bench_role *ro = &r->roles[i];
        r->n_roles = (uint32_t)i + 1;
        if (!(ro->name = jstrdup(v, "name"))) return bad(e, "role without name");
        ro->threads = (uint32_t)juint(v, "threads");
        ro->total_ops = juint(v, "total_ops");
        json_t *rs = json_object_get(v, "samples");
        uint32_t rn = 0;
        if ((rc = read_darr(json_object_get(rs, "ops_per_sec"), &ro->ops_per_sec, &rn, e,
                            "role samples.ops_per_sec")) ||
            (rc = read_darr(json_object_get(rs, "ns_per_op"), &ro->ns_per_op, &rn, e,
                            "role samples.ns_per_op")) ||
            (rc = read_uarr(json_object_get(rs, "ops"), &ro->ops, rn, e, "role samples.ops")))
            return rc;
        ro->n = rn;
        if (rn) {
            lat_bench_summarize(ro->ops_per_sec, rn, &ro->throughput);
            lat_bench_summarize(ro->ns_per_op, rn, &ro->latency);
        }
        json_t *evs = json_object_get(v, "events");
        size_t ne = json_array_size(evs), x;
        json_t *ev;
        if (ne && !(ro->events = lat__calloc(ne, sizeof *ro->events))) return -ENOMEM;
        json_array_foreach(evs, x, ev) {
            if (!(ro->events[x].name = jstrdup(ev, "name"))) return bad(e, "event without name");
            ro->n_events = (uint32_t)x + 1;
            ro->events[x].total = juint(ev, "total");
            ro->events[x].per_op = jnum(ev, "per_op");
            ro->events[x].per_sec = jnum(ev, "per_sec");
        }
        read_pmu(json_object_get(v, "pmu"), &ro->pmu);
    }
    return 0;
}

static int read_result(const json_t *j, lat_bench_result *r, jerr *e) {
    if (!json_is_object(j)) return bad(e, "result is not an object");
    r->name = jstrdup(j, "name");
    r->group = jstrdup(j, "group");
    if (!r->name || !r->group) return bad(e, "result without name or group");
    const char *kind = json_string_value(json_object_get(j, "kind"));
    const char *dom = json_string_value(json_object_get(j, "domain"));
    if (!kind || (strcmp(kind, "standard") && strcmp(kind, "concurrent")))
        return bad(e, "result kind is not standard or concurrent");
    if (!dom || (strcmp(dom, "cpu") && strcmp(dom, "io"))) return bad(e, "domain is not cpu or io");
    r->kind = strcmp(kind, "concurrent") == 0 ? LAT_BENCH_CONCURRENT : LAT_BENCH_STANDARD;
    r->domain = strcmp(dom, "io") == 0 ? LAT_BENCH_IO : LAT_BENCH_CPU;
    r->execution_index = (uint32_t)juint(j, "execution_index");
    r->bytes_per_op = juint(j, "bytes_per_op");
    r->chunk_size = juint(j, "chunk_size");
    r->sample_duration_ns = juint(j, "sample_duration_ns");
    r->calibration_passes = (uint32_t)juint(j, "calibration_passes");
    r->warmup_samples = (uint32_t)juint(j, "warmup_samples");
    r->timer_overhead_ns = jnum(j, "timer_overhead_ns");
    r->budget_capped = json_is_true(json_object_get(j, "budget_capped"));
    json_t *meta = json_object_get(j, "metadata");
    if (meta && !json_is_object(meta)) return bad(e, "metadata is not an object");
    const char *k;
    json_t *v;
    uint32_t cap = 0;
    json_object_foreach(meta, k, v) {
        if (!json_is_string(v)) return bad(e, "metadata value is not a string");
        int rc = lat__bench_kv_push(&r->meta, &r->n_meta, &cap, k, json_string_value(v));
        if (rc) return rc;
    }
    int rc = read_samples(j, r, e);
    if (rc) return rc;
    json_t *stats = json_object_get(j, "stats");
    r->mean_ns_per_op = jnum(stats, "mean_ns_per_op");
    r->total_ops = juint(stats, "total_ops");
    r->total_ns = jnum(stats, "total_ns");
    r->cpu_share = jnum(stats, "cpu_share");
    r->kept_floor = jnum(stats, "kept_floor");
    if (!(r->kept_floor >= 0 && r->kept_floor <= 1)) r->kept_floor = LAT_BENCH_KEPT_FLOOR;
    r->touched = juint(stats, "subchunks_touched");
    uint64_t subs = juint(j, "subchunks");
    r->subchunks = subs > LAT_BENCH_SUBCHUNKS_MAX ? 0 : (uint32_t)subs;

    json_t *sm = json_object_get(j, "sample_metrics");
    size_t i;
    json_array_foreach(sm, i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        json_t *vals = json_object_get(v, "values");
        if (!name || !json_is_array(vals)) return bad(e, "sample_metrics entry malformed");
        for (size_t x = 0; x < json_array_size(vals); x++) {
            json_t *xv = json_array_get(vals, x);
            rc = lat__bench_series_push(r, name, json_string_value(json_object_get(v, "unit")),
                                        json_string_value(json_object_get(v, "section")),
                                        json_is_number(xv) ? json_number_value(xv) : NAN);
            if (rc) return rc;
        }
    }

    if ((rc = read_roles(j, r, e))) return rc;
    json_t *tail = json_object_get(j, "tail");
    if (json_is_object(tail)) {
        r->tail.count = juint(tail, "count");
        r->tail.p50_ns = jnum(tail, "p50_ns");
        r->tail.p90_ns = jnum(tail, "p90_ns");
        r->tail.p99_ns = jnum(tail, "p99_ns");
        r->tail.p999_ns = jnum(tail, "p999_ns");
        r->tail.max_ns = jnum(tail, "max_ns");
        tail_ci_from_json(tail, &r->tail);
    }
    read_pmu(json_object_get(j, "pmu"), &r->pmu);
    json_t *notes = json_object_get(j, "notes");
    json_array_foreach(notes, i, v) {
        if (json_is_string(v) && (rc = lat__bench_note(r, "%s", json_string_value(v)))) return rc;
    }
    /* Set-aside count, kept share and summaries: from the samples, as after a run. */
    if ((rc = lat__bench_kept_finish(r))) return rc;
    lat__bench_series_finish(r);
    return 0;
}

int lat_bench_report_from_json(const json_t *j, lat_bench_report **out, char *err, size_t errlen) {
    jerr e = {err, errlen};
    if (!j || !out) return -EINVAL;
    if (err && errlen) err[0] = 0;
    if (!json_is_object(j)) return bad(&e, "report is not a JSON object");
    json_t *sv = json_object_get(j, "schema_version");
    if (!json_is_integer(sv)) return bad(&e, "no schema_version");
    json_t *results = json_object_get(j, "results");
    if (!json_is_array(results)) return bad(&e, "no results array");
    lat_bench_report *rep = lat__calloc(1, sizeof *rep);
    if (!rep) return -ENOMEM;
    int rc = 0;
    rep->schema_version = (int)json_integer_value(sv);
    rep->timestamp = jstrdup(j, "timestamp");
    json_t *tn = json_object_get(j, "timestamp_ns");
    rep->timestamp_ns = json_is_integer(tn) ? (int64_t)json_integer_value(tn) : 0;
    rep->hostname = jstrdup(j, "hostname");
    rep->suite = jstrdup(j, "suite");
    rep->git_commit = jstrdup(j, "git_commit");
    json_t *co = json_object_get(j, "case_order");
    rep->shuffled = json_is_true(json_object_get(co, "shuffled"));
    rep->seed = juint(co, "seed");
    json_t *cond = json_object_get(j, "run_conditions");
    if (json_is_object(cond)) rep->conditions = json_deep_copy(cond);
    size_t n = json_array_size(results);
    rep->results = lat__calloc(n ? n : 1, sizeof *rep->results);
    if (!rep->results) {
        rc = -ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        rep->n_results = (uint32_t)i + 1;
        if ((rc = read_result(json_array_get(results, i), &rep->results[i], &e))) goto fail;
    }
    *out = rep;
    return 0;
fail:
    lat_bench_report_destroy(rep);
    return rc;
}

int lat_bench_report_load(const char *path, lat_bench_report **out, char *err, size_t errlen) {
    if (!path || !out) return -EINVAL;
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        /* the byte too: a minified file is all line 1 (jansson: line -1 when unreadable) */
        if (err && errlen && je.line < 1)
            snprintf(err, errlen, "%s: %s", path, je.text);
        else if (err && errlen)
            snprintf(err, errlen, "%s: line %d, byte %d: %s", path, je.line, je.position,
                     je.text);
        return LAT_EFORMAT;
    }
    int rc = lat_bench_report_from_json(j, out, err, errlen);
    json_decref(j);
    return rc;
}

int lat_bench_report_clone(const lat_bench_report *rep, lat_bench_report **out) {
    if (!rep || !out) return -EINVAL;
    json_t *j = lat_bench_report_to_json(rep);
    if (!j) return -ENOMEM;
    int rc = lat_bench_report_from_json(j, out, NULL, 0);
    json_decref(j);
    return rc;
}

/* ---- printing
 * ------------------------------------------------------------------------------------- */

/* ns with a readable unit. */
static const char *fmt_ns(char *b, size_t n, double ns) {
    if (!isfinite(ns))
        snprintf(b, n, "-");
    else if (ns < 10)
        snprintf(b, n, "%.3f ns", ns);
    else if (ns < 1e3)
        snprintf(b, n, "%.1f ns", ns);
    else if (ns < 1e6)
        snprintf(b, n, "%.2f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(b, n, "%.2f ms", ns / 1e6);
    else
        snprintf(b, n, "%.2f s", ns / 1e9);
    return b;
}
static const char *fmt_rate(char *b, size_t n, double per_sec, bool bytes) {
    const char *u = bytes ? "B/s" : "op/s";
    if (!isfinite(per_sec))
        snprintf(b, n, "-");
    else if (per_sec >= 1e9)
        snprintf(b, n, "%.3f G%s", per_sec / 1e9, u);
    else if (per_sec >= 1e6)
        snprintf(b, n, "%.3f M%s", per_sec / 1e6, u);
    else if (per_sec >= 1e3)
        snprintf(b, n, "%.3f K%s", per_sec / 1e3, u);
    else
        snprintf(b, n, "%.3f %s", per_sec, u);
    return b;
}

/* kept: the share of the ops the figures rest on (the result's kept share). */
static void print_lat_row(FILE *o, const char *label, double mean, const lat_bench_summary *s,
                          double kept) {
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(o, "  %-22s %12s %12s %12s %12s %10s %7.2f%% %4u %6.1f%%\n", label,
            fmt_ns(a, 32, mean), fmt_ns(b, 32, s->median), fmt_ns(c, 32, s->p95),
            fmt_ns(d, 32, s->min), fmt_ns(e, 32, s->mad), s->cv_pct, s->outliers, kept * 100);
}
static void print_thr_row(FILE *o, const char *label, const lat_bench_summary *s, bool bytes,
                          double kept) {
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(o, "  %-22s %12s %12s %12s %12s %10s %7.2f%% %4u %6.1f%%\n", label,
            fmt_rate(a, 32, s->mean, bytes), fmt_rate(b, 32, s->median, bytes),
            fmt_rate(c, 32, s->p95, bytes), fmt_rate(d, 32, s->min, bytes),
            fmt_rate(e, 32, s->mad, bytes), s->cv_pct, s->outliers, kept * 100);
}

static void print_pmu(FILE *o, const char *label, const lat_bench_pmu *p, lat_bench_domain d) {
    if (!p->valid) return;
    fprintf(o,
            "  %-22s cycles/op %.2f  instr/op %.2f  IPC %.2f  branch-miss %.2f%%  "
            "cache-miss/op %.4f%s\n",
            label, p->cycles_per_op, p->instructions_per_op, p->ipc, p->branch_miss_pct,
            p->cache_misses_per_op, d == LAT_BENCH_IO ? "  (host orchestration)" : "");
    if (d == LAT_BENCH_CPU && isfinite(p->stalled_pct) && p->stalled_pct >= 20 &&
        isfinite(p->cache_misses_per_op) && p->cache_misses_per_op > 0.01)
        fprintf(o, "  %-22s hint: backend stalls %.0f%% with cache misses: memory bound\n", "",
                p->stalled_pct);
}

static void print_result(FILE *o, const lat_bench_result *r) {
    char a[32], b[32];
    fprintf(o, "\n%s/%s  [%s, %s", r->group, r->name,
            r->kind == LAT_BENCH_CONCURRENT ? "concurrent" : "standard",
            r->domain == LAT_BENCH_IO ? "io" : "cpu");
    for (uint32_t i = 0; i < r->n_meta; i++)
        fprintf(o, ", %s=%s", r->meta[i].key, r->meta[i].value);
    fprintf(o, "]\n");
    if (r->kind == LAT_BENCH_STANDARD) {
        fprintf(o,
                "  %u samples x %llu ops in %u sub-chunks (calibration passes %u, warm-up samples "
                "%u), timer overhead %s/sub-chunk subtracted\n",
                r->n, (unsigned long long)r->chunk_size, r->subchunks, r->calibration_passes,
                r->warmup_samples, fmt_ns(a, 32, r->timer_overhead_ns));
        if (r->set_aside)
            fprintf(o, "  %u of %u samples set aside (kept share under %.0f%%)\n", r->set_aside,
                    r->n, r->kept_floor * 100);
    }
    else
        fprintf(o, "  %u samples x %s (warm-up samples %u)\n", r->n,
                fmt_ns(a, 32, (double)r->sample_duration_ns), r->warmup_samples);
    double kept = isfinite(r->kept_share_all) ? r->kept_share_all : 1;
    fprintf(o, "  %-22s %12s %12s %12s %12s %10s %8s %4s %7s\n", "", "mean", "median", "p95", "min",
            "MAD", "CV", "out", "kept");
    for (uint32_t i = 0; i < r->n_roles; i++) {
        const lat_bench_role *ro = &r->roles[i];
        char label[64];
        fprintf(o, "  role %s x%u (%llu ops)\n", ro->name, ro->threads,
                (unsigned long long)ro->total_ops);
        double tsec = r->total_ns / 1e9;
        print_thr_row(o, "throughput", &ro->throughput, false, kept);
        snprintf(label, sizeof label, "latency/thread");
        double mean = ro->total_ops ? r->total_ns * ro->threads / (double)ro->total_ops : NAN;
        print_lat_row(o, label, mean, &ro->latency, kept);
        print_pmu(o, "counters", &ro->pmu, r->domain);
        if (ro->n_events) {
            fprintf(o, "    bench event counters %14s %14s %14s\n", "total", "per op", "per sec");
            for (uint32_t e = 0; e < ro->n_events; e++)
                fprintf(o, "    %-20s %14llu %14.6f %14.1f\n", ro->events[e].name,
                        (unsigned long long)ro->events[e].total, ro->events[e].per_op,
                        ro->events[e].per_sec);
        }
        (void)tsec;
    }
    if (r->n_roles) fprintf(o, "  workers combined\n");
    print_thr_row(o, r->bytes_per_op ? "throughput (bytes)" : "throughput", &r->thr,
                  r->bytes_per_op != 0, kept);
    print_lat_row(o, r->kind == LAT_BENCH_CONCURRENT ? "latency/thread" : "time/op",
                  r->mean_ns_per_op, &r->latency, kept);
    print_pmu(o, "counters", &r->pmu, r->domain);
    if (r->tail.count) {
        fprintf(o, "  per-op tail (%llu recorded): p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n",
                (unsigned long long)r->tail.count, fmt_ns(a, 32, r->tail.p50_ns),
                fmt_ns(b, 32, r->tail.p90_ns), fmt_ns((char[32]){0}, 32, r->tail.p99_ns),
                fmt_ns((char[32]){0}, 32, r->tail.p999_ns),
                fmt_ns((char[32]){0}, 32, r->tail.max_ns));
        fprintf(o, "  per-op tail 95%% CI:");
        for (int k = 0; k < LAT_BENCH_TAIL_PCTS; k++) {
            fprintf(o, " %s [%s, %s]", tail_names[k], fmt_ns(a, 32, r->tail.lo_ns[k]),
                    fmt_ns(b, 32, r->tail.hi_ns[k]));
            if (r->tail.needs_n[k])
                fprintf(o, " max-bound: needs at least %llu samples",
                        (unsigned long long)r->tail.needs_n[k]);
        }
        fputc('\n', o);
    }
    if (r->n_metrics) {
        fprintf(o, "  scenario %23s %12s %12s %12s %12s\n", "mean", "median", "p95", "max", "unit");
        for (uint32_t i = 0; i < r->n_metrics; i++) {
            const lat_bench_series *s = &r->metrics[i];
            fprintf(o, "    %-22s %12.4g %12.4g %12.4g %12.4g %12s\n", s->name, s->stats.mean,
                    s->stats.median, s->stats.p95, s->stats.max, s->unit);
        }
    }
    if (r->unstable)
        fprintf(o, "  warning: run stability is weak (throughput CV %.1f%%, %u outliers of %u)\n",
                r->thr.cv_pct, r->latency.outliers, r->n);
    for (uint32_t i = 0; i < r->n_notes; i++)
        fprintf(o, "  note: %s\n", r->notes[i]);
}

void lat_bench_report_print(const lat_bench_report *rep, FILE *out) {
    if (!rep || !out) return;
    fprintf(out, "suite %s on %s, %u results%s", rep->suite ? rep->suite : "?",
            rep->hostname ? rep->hostname : "?", rep->n_results, rep->shuffled ? ", shuffled" : "");
    if (rep->shuffled) fprintf(out, " (seed %llu)", (unsigned long long)rep->seed);
    fprintf(out, "\n");
    for (uint32_t i = 0; i < rep->n_results; i++)
        print_result(out, &rep->results[i]);
}
