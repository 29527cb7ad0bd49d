/* json.c - JSON forms of the core's plain structs (topology, run conditions)
 * and an atomic JSON writer.  The core floor never sees jansson; the measure
 * floor's reporters and the tool call these. */
#include "latlab/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/atomicfile.h"

static json_t *cpuset_json(const lat_cpuset *s) {
    char buf[4096];
    lat_cpuset_format(s, buf, sizeof buf);
    return json_string(buf);
}

json_t *lat_topo_json(const lat_topo *t) {
    if (!t) return NULL;
    json_t *o = json_object(), *cpus = json_array(), *caches = json_array();
    if (!o || !cpus || !caches) goto fail;
    int bad = json_object_set_new(o, "online", cpuset_json(lat_topo_online(t))) |
              json_object_set_new(o, "affinity", cpuset_json(lat_topo_affinity(t))) |
              json_object_set_new(o, "isolated", cpuset_json(lat_topo_isolated(t))) |
              json_object_set_new(o, "nohz_full", cpuset_json(lat_topo_nohz_full(t))) |
              json_object_set_new(o, "perf_cores", cpuset_json(lat_topo_perf_cores(t))) |
              json_object_set_new(o, "hybrid", json_boolean(lat_topo_hybrid(t)));
    const lat_cpuset *online = lat_topo_online(t);
    for (int c = lat_cpuset_next(online, 0); c >= 0 && !bad; c = lat_cpuset_next(online, c + 1)) {
        lat_topo_cpu info, *p = &info;
        if (lat_topo_cpu_info(t, c, &info)) continue;
        bad |= json_array_append_new(
            cpus, json_pack("{s:i, s:i, s:i, s:o, s:I, s:I, s:b, s:b}", "cpu", c, "core_id",
                            p->core_id, "package_id", p->package_id, "siblings",
                            cpuset_json(&p->siblings), "capacity", (json_int_t)p->capacity,
                            "max_freq_khz", (json_int_t)p->max_freq_khz, "perf_core",
                            (int)p->perf_core, "isolated", (int)p->isolated));
    }
    const lat_cache *cache;
    int ncaches = lat_topo_caches(t, &cache);
    for (int i = 0; i < ncaches && !bad; i++) {
        const lat_cache *c = &cache[i];
        bad |= json_array_append_new(caches, json_pack("{s:i, s:s, s:I, s:I, s:o}", "level",
                                                       c->level, "type", c->type, "size_bytes",
                                                       (json_int_t)c->size_bytes, "line_bytes",
                                                       (json_int_t)c->line_bytes, "shared_cpus",
                                                       cpuset_json(&c->shared_cpus)));
    }
    bad |= json_object_set(o, "cpus", cpus) | json_object_set(o, "caches", caches);
    if (bad) goto fail;
    json_decref(cpus);
    json_decref(caches);
    return o;
fail:
    json_decref(cpus);
    json_decref(caches);
    json_decref(o);
    return NULL;
}

json_t *lat_runcond_json(const lat_runcond *rc) {
    if (!rc) return NULL;
    json_t *o = json_object(), *w = json_array();
    if (!o || !w) goto fail;
    for (int i = 0; i < lat_runcond_nfields(); i++) {
        const char *key, *val = lat_runcond_field(rc, i, &key);
        if (json_object_set_new(o, key, json_string(val))) goto fail;
        if (!strcmp(key, "cpus_possible") &&
            json_object_set_new(o, "ncpus_online", json_integer(rc->ncpus_online)))
            goto fail;
    }
    for (int i = 0; i < rc->nwarnings; i++)
        if (json_array_append_new(w, json_string(rc->warnings[i]))) goto fail;
    if (json_object_set_new(o, "warnings", w)) {
        w = NULL;
        goto fail;
    }
    return o;
fail:
    json_decref(w);
    json_decref(o);
    return NULL;
}

int lat_write_json_atomic(const char *path, const struct json_t *json) {
    if (!json) return -EINVAL;
    char *s = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!s) return -ENOMEM;
    size_t n = strlen(s);
    int rc;
    lat_afile *f;
    rc = lat_afile_open(path, &f);
    if (rc == 0) {
        errno = 0; /* a full disk says ENOSPC (once only EIO) */
        if (fwrite(s, 1, n, lat_afile_stream(f)) != n || fputc('\n', lat_afile_stream(f)) == EOF) {
            rc = errno > 0 ? -errno : -EIO;
            lat_afile_abort(f);
        } else {
            rc = lat_afile_commit(f);
        }
    }
    free(s);
    return rc;
}

json_t *lat_json_real_or_null(double v) {
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *lat_budget_json(const lat_budget *b) {
    if (!b) return NULL;
    return json_pack("{s:s, s:f, s:f, s:i, s:o, s:i, s:f, s:o}", "timer", b->timer ? b->timer : "",
                     "granularity_ns", b->granularity_ns, "stamp_ns", b->stamp_ns,
                     "stamps_per_figure", (int)b->stamps_per_figure, "calibration_ppm",
                     lat_json_real_or_null(b->calibration_ppm), "hist_sig_figs", b->sig_figs,
                     "hist_resolution", b->hist_resolution, "co_synthesised_share",
                     lat_json_real_or_null(b->co_share));
}

json_t *lat_json_percentiles(const lat_hist *h, const double *ps, size_t n, double confidence,
                             double scale) {
    lat_hist_ci v[LAT_HIST_MAX_BATCH];
    if (n > LAT_HIST_MAX_BATCH || lat_hist_cis_at_percentiles(h, ps, confidence, v, n) != 0)
        return NULL;
    json_t *pa = json_array();
    for (size_t k = 0; pa && k < n; k++) {
        json_t *e = json_pack("{s:f, s:I, s:f, s:I, s:I, s:b}", "percentile", ps[k], "value",
                              (json_int_t)v[k].value, "scaled", (double)v[k].value / scale, "lo",
                              (json_int_t)v[k].lo, "hi", (json_int_t)v[k].hi, "max_bound",
                              (int)v[k].max_bound);
        if (e && v[k].max_bound)
            json_object_set_new(e, "needs_n", json_integer((json_int_t)v[k].needed_n));
        json_array_append_new(pa, e);
    }
    return pa;
}

json_t *lat_perf_counts_json(const lat_perf *p, const lat_perf_count *c, size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        const char *r = lat_perf_reason(p, i);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(lat_perf_name(p, i)));
        json_object_set_new(o, "state", json_string(lat_perf_state_name(c[i].state)));
        bool has = c[i].state != LAT_PERF_UNAVAILABLE && c[i].state != LAT_PERF_NOT_COUNTED;
        json_object_set_new(o, "value", has ? json_integer((json_int_t)c[i].value) : json_null());
        json_object_set_new(o, "scaled", has ? json_real(c[i].scaled) : json_null());
        json_object_set_new(o, "enabled_ns", json_integer((json_int_t)c[i].enabled_ns));
        json_object_set_new(o, "running_ns", json_integer((json_int_t)c[i].running_ns));
        json_object_set_new(o, "coverage", json_real(c[i].coverage));
        json_object_set_new(o, "reason", r ? json_string(r) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}

void lat_json_set_ci(json_t *obj, const char *key, const char *unit, const lat_hist_ci *ci) {
    if (!obj || !key || !ci) return;
    if (!unit) unit = "";
    char k[128];
    snprintf(k, sizeof k, "%s%s", key, unit);
    json_object_set_new(obj, k, json_integer(ci->value));
    snprintf(k, sizeof k, "%s_lo%s", key, unit);
    json_object_set_new(obj, k, json_integer(ci->lo));
    snprintf(k, sizeof k, "%s_hi%s", key, unit);
    json_object_set_new(obj, k, json_integer(ci->hi));
    if (ci->max_bound) {
        snprintf(k, sizeof k, "%s_needs_n", key);
        json_object_set_new(obj, k, json_integer(ci->needed_n));
    }
}

json_t *lat_topo_plans_json(const lat_topo *t) {
    json_t *jplans = json_array();
    for (int k = 1; jplans && k <= 3; k++) {
        lat_plan p;
        int rc = lat_topo_plan(t, k, 1, 0, &p);
        char cold[128];
        lat_cpuset_format(&p.cold, cold, sizeof cold);
        json_t *hot = json_array();
        for (int i = 0; rc == 0 && i < p.nhot; i++)
            json_array_append_new(hot, json_integer(p.hot[i]));
        json_array_append_new(jplans, json_pack("{s:i, s:b, s:o, s:s, s:s}", "hot_threads", k, "ok",
                                                rc == 0, "hot_cpus", hot, "cold_cpus",
                                                rc == 0 ? cold : "", "note", p.note));
    }
    return jplans;
}

json_t *lat_clock_cal_json(const lat_clock_cal *c) {
    return json_pack("{s:f, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:f}", "cycles_per_ns",
                     c->cycles_per_ns, "span_cycles", (json_int_t)c->span_cycles, "span_ns",
                     (json_int_t)c->span_ns, "window_ns", (json_int_t)c->window_ns,
                     "bracket_cycles", (json_int_t)c->bracket_cycles, "error_ppm", c->error_ppm,
                     "elapsed_ns", (json_int_t)c->elapsed_ns, "counter_hz",
                     (json_int_t)c->counter_hz, "counter_hz_diff_ppm", c->counter_hz_diff_ppm);
}
