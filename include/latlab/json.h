/* json.h - JSON forms of the core's structs, and an atomic JSON writer
 * (measure floor; needs jansson).
 *
 * Every function returns a new reference the caller owns (json_decref), or
 * NULL when out of memory or given NULL.  Thread-safe: no shared state. */
#ifndef LATLAB_JSON_H
#define LATLAB_JSON_H

#include "latlab/compiler.h"

#include "latlab/budget.h"
#include "latlab/clock.h"
#include "latlab/hist.h"
#include "latlab/perf.h"
#include "latlab/topo.h"

struct json_t; /* jansson */

/* {"online", "affinity", "isolated", "nohz_full", "perf_cores" (CPU lists),
 * "hybrid", "cpus": [{cpu, core_id, package_id, siblings, capacity,
 * max_freq_khz, perf_core, isolated}], "caches": [{level, type, size_bytes,
 * line_bytes, shared_cpus}]}. */
LAT_API struct json_t *lat_topo_json(const lat_topo *t);

/* [{hot_threads, ok, hot_cpus, cold_cpus, note}] for plans of 1, 2 and 3 hot
 * threads (lat_topo_plan with one cold thread). */
LAT_API struct json_t *lat_topo_plans_json(const lat_topo *t);

/* {cycles_per_ns, span_cycles, span_ns, window_ns, bracket_cycles,
 * error_ppm, elapsed_ns, counter_hz, counter_hz_diff_ppm}: one calibration. */
LAT_API struct json_t *lat_clock_cal_json(const lat_clock_cal *c);

/* {"cpu_model": ..., ..., "warnings": [...]}: every run-condition field. */
LAT_API struct json_t *lat_runcond_json(const lat_runcond *rc);

/* {"timer", "granularity_ns", "stamp_ns", "stamps_per_figure",
 * "calibration_ppm" (null for the OS clock), "hist_sig_figs",
 * "hist_resolution", "co_synthesised_share" (null when no correction)}. */
LAT_API struct json_t *lat_budget_json(const lat_budget *b);

/* A percentile with its interval as sibling keys of obj: key+unit = value,
 * key+"_lo"+unit = lo, key+"_hi"+unit = hi, and, when max-bound,
 * key+"_needs_n" = the samples needed ("p99.9_ns", "p99.9_lo_ns",
 * "p99.9_hi_ns", "p99.9_needs_n"; unit may be ""). */
LAT_API void lat_json_set_ci(struct json_t *obj, const char *key, const char *unit,
                             const lat_hist_ci *ci);

/* An array with one object per percentile ps[i] (0..100) of h, at the
 * given confidence (lat_hist_cis_at_percentiles): "percentile", "value",
 * "scaled" (value / scale), "lo", "hi", "max_bound" and, when max-bound,
 * "needs_n".  n at most LAT_HIST_MAX_BATCH.  New reference, or NULL
 * (-EINVAL cases of lat_hist_cis_at_percentiles, no memory). */
LAT_API struct json_t *lat_json_percentiles(const lat_hist *h, const double *ps, size_t n,
                                    double confidence, double scale);

/* An array with one object per event of p for its counts c[0..n): "name",
 * "state" (lat_perf_state_name), "value" and "scaled" (null when not
 * counted), "enabled_ns", "running_ns", "coverage", "reason" (null when
 * none).  New reference, or NULL (no memory). */
LAT_API struct json_t *lat_perf_counts_json(const lat_perf *p, const lat_perf_count *c, size_t n);

/* A JSON real, or null for a value not finite (NAN: not measured). */
LAT_API struct json_t *lat_json_real_or_null(double v);

/* Write a JSON value (indented, keys in insertion order) atomically to path
 * (see atomicfile.h).  0, -EINVAL (NULL json), -ENOMEM or a negative errno. */
LAT_API int lat_write_json_atomic(const char *path, const struct json_t *json);

#endif /* LATLAB_JSON_H */
