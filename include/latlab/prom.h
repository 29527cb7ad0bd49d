/* prom.h - per-stage latency histograms in Prometheus' forms, for fleet-wide
 * percentiles: a classic histogram on one fixed list of `le` bounds, a native
 * (sparse exponential) histogram, their text / OpenMetrics / protobuf
 * expositions, and a /metrics server fed by a cold thread. */

/* Why: a fleet's p99.9 is not the average of its hosts' p99.9; Prometheus
 * merges histograms with histogram_quantile(q, sum(...)), which is only right
 * when every host uses the same buckets.  So the classic bounds below are one
 * fixed list (the same on every host, whatever it records), and native
 * histograms use schemas that Prometheus merges exactly. */

/* Conversion.  Each recorded HdrHistogram slot goes whole into the Prometheus
 * bucket that holds the slot's highest equivalent value (the value latlab's
 * percentiles report).  The map is monotone, so for any q the bucket in which
 * histogram_quantile lands is the one that holds latlab's own percentile of
 * the same samples: the two differ by at most that bucket's width.
 *
 * _sum is sum(count x median equivalent) in seconds, _count the recorded total
 * (values the histogram rejected as out of range are not counted). */

/* The bound, as a relative error (|promql - latlab| / latlab):
 *   classic: le bounds 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k s from 10 ns to
 *            100 s (101 bounds, then +Inf); adjacent bounds differ by at most
 *            4/3, so LAT_PROM_CLASSIC_REL_ERROR = 1/3 for values in [10 ns, 100 s];
 *   native:  schema s (-4..8): bucket k is (2^((k-1)/2^s), 2^(k/2^s)] seconds,
 *            relative error 2^(2^-s) - 1 (schema 8: 0.27%, 5: 2.2%, 3: 9.1%). */

/* The native schema is the finest that (a) is not finer than the histogram's
 * own precision and (b) keeps the buckets between its smallest and largest
 * value within a budget (default 160).  The zero bucket holds HdrHistogram's
 * slot 0 (zero threshold = its top, at least half a unit).  Across hosts of
 * different schemas, Prometheus works at the coarsest one: the bound is that
 * schema's. */

/* Families: one kind per metric family (Prometheus 2.42 lets the first series
 * decide for a family): NAME (classic; text and protobuf) and NAME_native
 * (native; protobuf only), NAME defaulting to latlab_stage_latency_seconds.
 * Labels: stage, run, host.  The text le strings are written the way
 * Prometheus formats a protobuf bucket bound ("1e-08", "0.000125", "1.0"), so a
 * host scraped as text and one scraped as protobuf give the same le values. */

/* Allocation: create() allocates everything (messages, bucket arrays); set()
 * and the writers allocate nothing.  Not thread-safe on one exporter; the
 * server below serialises its users with a mutex that no hot thread touches. */
#ifndef LATLAB_PROM_H
#define LATLAB_PROM_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/hist.h"

/* ---- classic histogram ------------------------------------------------------------- */

#define LAT_PROM_NBOUNDS 101                                 /* finite le bounds; +Inf follows */
#define LAT_PROM_CLASSIC_REL_ERROR (1.0 / 3.0)               /* largest bound ratio - 1 */
LAT_API extern const double lat_prom_le_s[LAT_PROM_NBOUNDS];         /* seconds, increasing */
LAT_API extern const char *const lat_prom_le_text[LAT_PROM_NBOUNDS]; /* as Prometheus prints them */

typedef struct lat_prom_classic {
    uint64_t cumulative[LAT_PROM_NBOUNDS + 1]; /* [i]: count <= le[i]; [NBOUNDS]: +Inf */
    uint64_t count;                            /* == cumulative[LAT_PROM_NBOUNDS] */
    double sum_s;
} lat_prom_classic;

/* Fill out from h, whose values are in units of unit_s seconds (1e-9 for ns).
 * No allocation.  Returns 0 or -EINVAL (NULL, unit_s <= 0). */
LAT_API int lat_prom_classic_fill(const lat_hist *h, double unit_s, lat_prom_classic *out);
/* Index of the classic bucket holding v seconds (LAT_PROM_NBOUNDS for +Inf). */
LAT_API int lat_prom_classic_bucket(double v_s);

/* ---- native histogram -------------------------------------------------------------- */

#define LAT_PROM_SCHEMA_MIN (-4)
#define LAT_PROM_SCHEMA_MAX 8
#define LAT_PROM_NATIVE_BUDGET_DEFAULT 160

typedef struct lat_prom_native {
    int32_t schema;
    double zero_threshold_s;
    uint64_t zero_count;
    uint64_t count; /* zero_count + the buckets' counts */
    double sum_s;
    int32_t nspans;       /* spans used */
    int32_t ndeltas;      /* buckets used (sum of span lengths) */
    int32_t cap;          /* capacity of the arrays below (buckets and spans) */
    int32_t *span_offset; /* first: index of the first bucket; then the gap to the previous span */
    uint32_t *span_length;
    int64_t *delta; /* count minus the previous bucket's count (the first: minus 0) */
} lat_prom_native;

/* Allocate arrays for up to cap buckets (cap >= 4).  0, -EINVAL, -ENOMEM. */
LAT_API int lat_prom_native_init(lat_prom_native *n, int cap);
LAT_API void lat_prom_native_fini(lat_prom_native *n); /* NULL and zeroed are fine */

/* Bucket index of v > 0 seconds at schema s, as Prometheus computes it
 * (frexp, then the upper-inclusive boundaries 2^(k/2^s)). */
LAT_API int32_t lat_prom_native_index(double v_s, int schema);
/* Upper bound (inclusive) of bucket k at schema s, in seconds. */
LAT_API double lat_prom_native_upper(int32_t k, int schema);
/* 2^(2^-s) - 1: the relative error of a quantile at schema s. */
LAT_API double lat_prom_native_rel_error(int schema);
/* The finest schema allowed by h's precision (sig figs) whose buckets between
 * h's smallest and largest non-zero value number at most budget (>= 4);
 * LAT_PROM_SCHEMA_MAX for an empty h. */
LAT_API int lat_prom_native_schema(const lat_hist *h, double unit_s, int budget);
/* Fill out at schema s.  No allocation.  0, -EINVAL, or -ENOSPC when the
 * buckets do not fit out->cap (out is then incomplete). */
LAT_API int lat_prom_native_fill(const lat_hist *h, double unit_s, int schema,
                                 lat_prom_native *out);

/* ---- exporter: several series (stages) and their expositions -------------------------- */

enum { LAT_PROM_TEXT = 0, LAT_PROM_OPENMETRICS = 1 };

#define LAT_PROM_LABEL_MAX 128 /* bytes of a label value, NUL included */
#define LAT_PROM_MAX_SERIES 256

typedef struct lat_prom_exporter_config {
    const char *metric;        /* family name; NULL: "latlab_stage_latency_seconds" */
    const char *run;           /* run label value (non-empty) */
    const char *host;          /* host label value (non-empty) */
    int nseries;               /* 1..LAT_PROM_MAX_SERIES */
    const char *const *stages; /* stage label value per series */
    double unit_s;             /* seconds per histogram unit; <= 0: 1e-9 (ns) */
    int native_budget;         /* <= 0: LAT_PROM_NATIVE_BUDGET_DEFAULT */
} lat_prom_exporter_config;

typedef struct lat_prom_exporter lat_prom_exporter;

/* 0 and *out, -EINVAL (bad config: names must match [a-zA-Z_:][a-zA-Z0-9_:]*,
 * labels shorter than LAT_PROM_LABEL_MAX), -ENOMEM. */
LAT_API int lat_prom_exporter_create(const lat_prom_exporter_config *c, lat_prom_exporter **out);
LAT_API void lat_prom_exporter_destroy(lat_prom_exporter *e); /* NULL is fine */
/* Convert h into series i's classic and native forms (h NULL: the series is
 * left out of the exposition).  The native schema never gets finer than the
 * series had before (counts only grow, so it only coarsens), which keeps a
 * scraped series' schema steady.  No allocation.  0, -EINVAL, -ENOSPC. */
LAT_API int lat_prom_exporter_set(lat_prom_exporter *e, int series, const lat_hist *h);
/* The native schema of series i and its relative error; -EINVAL / NAN when
 * i is out of range or unset. */
LAT_API int lat_prom_exporter_schema(const lat_prom_exporter *e, int series);
LAT_API double lat_prom_exporter_rel_error(const lat_prom_exporter *e, int series);
/* Largest size of either exposition (bytes), for sizing buffers at setup. */
LAT_API size_t lat_prom_exporter_bound(const lat_prom_exporter *e);
/* Classic histograms as Prometheus text 0.0.4 or OpenMetrics 1.0 (ends with
 * "# EOF").  0 and *len, -ENOSPC, -EINVAL.  No allocation. */
LAT_API int lat_prom_exporter_text(const lat_prom_exporter *e, int format, char *buf, size_t cap,
                           size_t *len);
/* Both families (NAME classic, NAME_native) as length-delimited
 * io.prometheus.client.MetricFamily messages.  0 and *len, -ENOSPC, or
 * -ENOTSUP when latlab was built without protobuf-c.  No allocation. */
LAT_API int lat_prom_exporter_protobuf(const lat_prom_exporter *e, uint8_t *buf, size_t cap,
                                       size_t *len);
/* true when built with protobuf-c (native histograms available). */
LAT_API bool lat_prom_have_protobuf(void);

/* Prometheus' float formatting of a bucket bound (Go's shortest 'g', plus
 * ".0" for integers): 1e-08, 0.000125, 1.0, 100.0.  Returns the length. */
LAT_API int lat_prom_format_float(char *buf, size_t cap, double v);
/* Escape a label value (\\, \", \n) into buf.  Returns the length or -ENOSPC. */
LAT_API int lat_prom_escape_label(char *buf, size_t cap, const char *v);

/* ---- /metrics server ------------------------------------------------------------------ */

typedef struct lat_prom_server lat_prom_server;

/* Serve e on addr ("HOST:PORT", "[V6]:PORT", ":PORT" = all interfaces; port 0
 * picks a free one) from a thread of its own: one route, GET /metrics; the
 * Accept header picks protobuf (native + classic) or text (classic).  The
 * server owns e from here on (destroyed with the server).  0 and *out, or a
 * negative errno (bind/listen failure, -EINVAL for a bad address). */
LAT_API int lat_prom_server_create(const char *addr, lat_prom_exporter *e, lat_prom_server **out);
/* Stop the thread, close the socket, free everything.  NULL is fine. */
LAT_API void lat_prom_server_destroy(lat_prom_server *s);
/* The bound port. */
LAT_API int lat_prom_server_port(const lat_prom_server *s);
/* Replace the served state with h[0..nseries) (NULL entries: left out).
 * try_update never waits: false when a scrape holds the state (call again
 * later); update waits for it.  Both run the conversion on the caller's
 * thread; call them from a cold thread (never a hot one). */
LAT_API bool lat_prom_server_try_update(lat_prom_server *s, const lat_hist *const *h, int nseries);
LAT_API int lat_prom_server_update(lat_prom_server *s, const lat_hist *const *h, int nseries);
/* Scrapes answered 200 and requests refused (4xx) so far. */
LAT_API void lat_prom_server_counts(const lat_prom_server *s, uint64_t *served, uint64_t *refused);

/* ---- Pushgateway ---------------------------------------------------------------------- */

/* PUT the exporter's state to a Pushgateway at url ("http://HOST:PORT[/PREFIX]")
 * under /metrics/job/JOB/run/RUN/host/HOST (protobuf when available, else
 * text; a label value that is not [A-Za-z0-9._-] goes as NAME@base64), or
 * DELETE that group when del is true.  timeout_ms bounds connecting and each
 * read/write.  Returns 0, -EINVAL (bad URL), a negative errno from the
 * network (-ECONNREFUSED, -ETIMEDOUT, ...) or LAT_EHTTP (the gateway answered
 * an error status); err (errlen bytes) gets a sentence on any failure,
 * including the gateway's status and the start of its answer.  Uses the
 * exporter's preallocated buffer: no allocation besides the resolver's. */
LAT_API int lat_prom_push(const lat_prom_exporter *e, const char *url, const char *job, bool del,
                  int timeout_ms, char *err, size_t errlen);

#endif /* LATLAB_PROM_H */
