/* prom.c - lat_hist -> Prometheus classic and native histograms, their text,
 * OpenMetrics and protobuf (protobuf-c, generated at build time from
 * Debian's metrics.proto) expositions, a /metrics server and Pushgateway
 * pushes.  The conversions and their error bounds are stated in prom.h. */
#include "latlab/prom.h"

#include "alloc_internal.h"
#include "latlab/error.h"
#include "latlab/http.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LAT_HAVE_PROTOBUF
#include "io/prometheus/client/metrics.pb-c.h"
#endif

/* ---- the fixed classic bounds ------------------------------------------------------------ */

/* 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 per decade, 10 ns .. 100 s.  Written as
 * decimal literals so each is the double nearest its decimal text, which is
 * what Prometheus prints back. */
const double lat_prom_le_s[LAT_PROM_NBOUNDS] = {
    1e-8,    1.25e-8, 1.5e-8, 2e-8,   2.5e-8, 3e-8,    4e-8,    5e-8,    6e-8,    8e-8,    1e-7,
    1.25e-7, 1.5e-7,  2e-7,   2.5e-7, 3e-7,   4e-7,    5e-7,    6e-7,    8e-7,    1e-6,    1.25e-6,
    1.5e-6,  2e-6,    2.5e-6, 3e-6,   4e-6,   5e-6,    6e-6,    8e-6,    1e-5,    1.25e-5, 1.5e-5,
    2e-5,    2.5e-5,  3e-5,   4e-5,   5e-5,   6e-5,    8e-5,    1e-4,    1.25e-4, 1.5e-4,  2e-4,
    2.5e-4,  3e-4,    4e-4,   5e-4,   6e-4,   8e-4,    1e-3,    1.25e-3, 1.5e-3,  2e-3,    2.5e-3,
    3e-3,    4e-3,    5e-3,   6e-3,   8e-3,   1e-2,    1.25e-2, 1.5e-2,  2e-2,    2.5e-2,  3e-2,
    4e-2,    5e-2,    6e-2,   8e-2,   1e-1,   1.25e-1, 1.5e-1,  2e-1,    2.5e-1,  3e-1,    4e-1,
    5e-1,    6e-1,    8e-1,   1e0,    1.25e0, 1.5e0,   2e0,     2.5e0,   3e0,     4e0,     5e0,
    6e0,     8e0,     1e1,    1.25e1, 1.5e1,  2e1,     2.5e1,   3e1,     4e1,     5e1,     6e1,
    8e1,     1e2,
};

const char *const lat_prom_le_text[LAT_PROM_NBOUNDS] = {
    "1e-08",   "1.25e-08", "1.5e-08", "2e-08",    "2.5e-08", "3e-08",    "4e-08",   "5e-08",
    "6e-08",   "8e-08",    "1e-07",   "1.25e-07", "1.5e-07", "2e-07",    "2.5e-07", "3e-07",
    "4e-07",   "5e-07",    "6e-07",   "8e-07",    "1e-06",   "1.25e-06", "1.5e-06", "2e-06",
    "2.5e-06", "3e-06",    "4e-06",   "5e-06",    "6e-06",   "8e-06",    "1e-05",   "1.25e-05",
    "1.5e-05", "2e-05",    "2.5e-05", "3e-05",    "4e-05",   "5e-05",    "6e-05",   "8e-05",
    "0.0001",  "0.000125", "0.00015", "0.0002",   "0.00025", "0.0003",   "0.0004",  "0.0005",
    "0.0006",  "0.0008",   "0.001",   "0.00125",  "0.0015",  "0.002",    "0.0025",  "0.003",
    "0.004",   "0.005",    "0.006",   "0.008",    "0.01",    "0.0125",   "0.015",   "0.02",
    "0.025",   "0.03",     "0.04",    "0.05",     "0.06",    "0.08",     "0.1",     "0.125",
    "0.15",    "0.2",      "0.25",    "0.3",      "0.4",     "0.5",      "0.6",     "0.8",
    "1.0",     "1.25",     "1.5",     "2.0",      "2.5",     "3.0",      "4.0",     "5.0",
    "6.0",     "8.0",      "10.0",    "12.5",     "15.0",    "20.0",     "25.0",    "30.0",
    "40.0",    "50.0",     "60.0",    "80.0",     "100.0",
};

int lat_prom_classic_bucket(double v_s) {
    int lo = 0, hi = LAT_PROM_NBOUNDS; /* first bound >= v, or NBOUNDS */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (lat_prom_le_s[mid] >= v_s)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Slot i's lowest value and width (what lat_hist_lowest_equivalent and
 * lat_hist_size_of_equivalent_range give for its values), without calls. */
static inline void slot_span(const lat_hist *h, int32_t i, int64_t *lo, int64_t *size) {
    int32_t bucket = (i >> h->half_magnitude) - 1;
    if (bucket < 0) bucket = 0;
    *lo = lat_hist_value_from_index(h, i);
    *size = INT64_C(1) << (bucket + h->unit_magnitude);
}

/* The value a slot is filed under: its highest equivalent, in seconds, less
 * a hair, so that a count of units that equals a bound in decimal (20 ns vs
 * 2e-08) is not pushed up by the product's rounding.  *mid_s gets the
 * median equivalent (what _sum adds up, as lat_hist_mean does). */
static inline double slot_top_s(const lat_hist *h, int32_t i, double unit_s, double *mid_s) {
    int64_t lo, size;
    slot_span(h, i, &lo, &size);
    *mid_s = (double)(lo + (size >> 1)) * unit_s;
    return (double)(lo + size - 1) * unit_s * (1.0 - 1e-12);
}

/* One past the last slot that can hold counts. */
static int32_t slot_end(const lat_hist *h) {
    if (h->total_count == 0) return 0;
    int32_t top = lat_hist_index(h, h->max_value) + 1;
    return top < h->counts_len ? top : h->counts_len;
}

int lat_prom_classic_fill(const lat_hist *h, double unit_s, lat_prom_classic *out) {
    if (!h || !out || !(unit_s > 0)) return -EINVAL;
    memset(out, 0, sizeof *out);
    int b = 0;
    double sum = 0;
    uint64_t run = 0;
    for (int32_t i = 0, end = slot_end(h); i < end; i++) {
        int64_t c = h->counts[i];
        if (c <= 0) continue;
        double mid;
        double top = slot_top_s(h, i, unit_s, &mid);
        /* Slots come in increasing order: the bucket only moves up. */
        while (b < LAT_PROM_NBOUNDS && lat_prom_le_s[b] < top) {
            out->cumulative[b] = run;
            b++;
        }
        run += (uint64_t)c;
        sum += (double)c * mid;
    }
    for (; b <= LAT_PROM_NBOUNDS; b++)
        out->cumulative[b] = run;
    out->count = run;
    out->sum_s = sum;
    return 0;
}

/* ---- native buckets --------------------------------------------------------------------- */

/* Prometheus' boundary j of schema s > 0 within [0.5, 1): 2^(j/2^s - 1). */
static double native_frac_bound(int j, int schema) {
    return exp2((double)j / (double)(1 << schema) - 1.0);
}

int32_t lat_prom_native_index(double v_s, int schema) {
    int exp;
    double frac = frexp(v_s, &exp);
    if (schema > 0) {
        int n = 1 << schema, lo = 0, hi = n; /* first j with bound[j] >= frac */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (native_frac_bound(mid, schema) >= frac)
                hi = mid;
            else
                lo = mid + 1;
        }
        return (int32_t)(lo + (exp - 1) * n);
    }
    int key = exp;
    if (frac == 0.5) key--;
    int offset = (1 << -schema) - 1;
    return (int32_t)((key + offset) >> -schema);
}

double lat_prom_native_upper(int32_t k, int schema) {
    if (schema > 0) {
        int n = 1 << schema;
        int e = (int)floor((double)k / n);
        int j = k - e * n;
        return ldexp(native_frac_bound(j, schema), e + 1);
    }
    return ldexp(1.0, k * (1 << -schema));
}

double lat_prom_native_rel_error(int schema) {
    return exp2(exp2(-(double)schema)) - 1.0;
}

/* Finest schema whose bucket ratio is no finer than the histogram's slots
 * (the slot width relative to its value is at most 1/sub_bucket_half_count). */
static int precision_schema(const lat_hist *h) {
    double slot_rel = 1.0 / (double)h->sub_bucket_half_count;
    int s = LAT_PROM_SCHEMA_MAX;
    while (s > LAT_PROM_SCHEMA_MIN && lat_prom_native_rel_error(s) < slot_rel)
        s--;
    return s;
}

int lat_prom_native_schema(const lat_hist *h, double unit_s, int budget) {
    if (!h || !(unit_s > 0)) return LAT_PROM_SCHEMA_MAX;
    int s = precision_schema(h);
    if (budget < 4) budget = 4;
    int64_t lo = lat_hist_min_nonzero(h);
    if (lo == INT64_MAX || h->total_count == 0) return s;
    double lo_s = (double)lat_hist_highest_equivalent(h, lo) * unit_s;
    double hi_s = (double)lat_hist_max(h) * unit_s;
    while (s > LAT_PROM_SCHEMA_MIN &&
           lat_prom_native_index(hi_s, s) - lat_prom_native_index(lo_s, s) + 1 > budget)
        s--;
    return s;
}

int lat_prom_native_init(lat_prom_native *n, int cap) {
    if (!n || cap < 4 || cap > (1 << 20)) return -EINVAL;
    memset(n, 0, sizeof *n);
    n->span_offset = lat__calloc((size_t)cap, sizeof *n->span_offset);
    n->span_length = lat__calloc((size_t)cap, sizeof *n->span_length);
    n->delta = lat__calloc((size_t)cap, sizeof *n->delta);
    if (!n->span_offset || !n->span_length || !n->delta) {
        lat_prom_native_fini(n);
        return -ENOMEM;
    }
    n->cap = cap;
    return 0;
}

void lat_prom_native_fini(lat_prom_native *n) {
    if (!n) return;
    lat__free(n->span_offset);
    lat__free(n->span_length);
    lat__free(n->delta);
    memset(n, 0, sizeof *n);
}

typedef struct native_builder {
    lat_prom_native *n;
    int32_t last_k; /* index of the last bucket emitted */
    int64_t last_c; /* its count (for the delta) */
    bool any;       /* a bucket was emitted */
    bool overflow;
} native_builder;

static void native_emit(native_builder *b, int32_t k, int64_t count) {
    lat_prom_native *n = b->n;
    if (n->ndeltas >= n->cap) {
        b->overflow = true;
        return;
    }
    if (b->any && k == b->last_k + 1) {
        n->span_length[n->nspans - 1]++;
    } else {
        n->span_offset[n->nspans] = b->any ? k - b->last_k - 1 : k;
        n->span_length[n->nspans] = 1;
        n->nspans++;
    }
    n->delta[n->ndeltas++] = count - b->last_c;
    b->last_c = count;
    b->last_k = k;
    b->any = true;
}

int lat_prom_native_fill(const lat_hist *h, double unit_s, int schema, lat_prom_native *out) {
    if (!h || !out || !out->delta || !(unit_s > 0) || schema < LAT_PROM_SCHEMA_MIN ||
        schema > LAT_PROM_SCHEMA_MAX)
        return -EINVAL;
    out->schema = schema;
    out->nspans = out->ndeltas = 0;
    out->zero_count = 0;
    double zt_units = (double)lat_hist_highest_equivalent(h, 0);
    out->zero_threshold_s = (zt_units < 0.5 ? 0.5 : zt_units) * unit_s;
    native_builder b = {.n = out};
    double sum = 0, upper = 0;
    int32_t k = 0;
    int64_t bucket = 0;
    bool open = false;
    uint64_t total = 0;
    for (int32_t i = 0, end = slot_end(h); i < end; i++) {
        int64_t c = h->counts[i];
        if (c <= 0) continue;
        total += (uint64_t)c;
        double mid;
        double top = slot_top_s(h, i, unit_s, &mid);
        sum += (double)c * mid;
        if (i == 0) {
            out->zero_count += (uint64_t)c;
            continue;
        }
        if (!open || top > upper) {
            if (open) native_emit(&b, k, bucket);
            k = lat_prom_native_index(top, schema);
            upper = lat_prom_native_upper(k, schema);
            bucket = 0;
            open = true;
        }
        bucket += c;
    }
    if (open) native_emit(&b, k, bucket);
    out->count = total;
    out->sum_s = sum;
    return b.overflow ? -ENOSPC : 0;
}

/* ---- text helpers ------------------------------------------------------------------------- */

int lat_prom_format_float(char *buf, size_t cap, double v) {
    if (isnan(v)) return snprintf(buf, cap, "NaN");
    if (isinf(v)) return snprintf(buf, cap, v > 0 ? "+Inf" : "-Inf");
    if (v == 0) return snprintf(buf, cap, "0.0");
    /* Shortest digits that read back as v (Go's 'g' with precision -1). */
    char e[40];
    int p;
    for (p = 0; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p, v);
        if (strtod(e, NULL) == v) break;
    }
    const char *ep = strchr(e, 'e');
    int exp10 = ep ? atoi(ep + 1) : 0;
    int n;
    if (exp10 < -4 || exp10 >= 6) {
        /* strconv 'g' with shortest digits switches at 1e-4 and 1e6; C's %e
         * writes at least two exponent digits, as Go does. */
        n = snprintf(buf, cap, "%s", e);
    } else {
        int decimals = p - exp10;
        n = snprintf(buf, cap, "%.*f", decimals < 0 ? 0 : decimals, v);
    }
    if (n > 0 && (size_t)n < cap && !strpbrk(buf, "e.") && (size_t)n + 2 < cap) {
        buf[n++] = '.';
        buf[n++] = '0';
        buf[n] = 0;
    }
    return n;
}

int lat_prom_escape_label(char *buf, size_t cap, const char *v) {
    size_t o = 0;
    for (const char *p = v; *p; p++) {
        const char *rep = NULL;
        if (*p == '\\') rep = "\\\\";
        if (*p == '"') rep = "\\\"";
        if (*p == '\n') rep = "\\n";
        size_t need = rep ? 2 : 1;
        if (o + need >= cap) return -ENOSPC;
        if (rep)
            memcpy(buf + o, rep, 2);
        else
            buf[o] = *p;
        o += need;
    }
    if (o >= cap) return -ENOSPC;
    buf[o] = 0;
    return (int)o;
}

static bool valid_metric_name(const char *s) {
    if (!s || !*s || strlen(s) > 200) return false;
    for (const char *p = s; *p; p++) {
        bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == ':';
        bool digit = *p >= '0' && *p <= '9';
        if (!alpha && !(digit && p != s)) return false;
    }
    return true;
}

/* ---- exporter ------------------------------------------------------------------------------ */

#define LABELS_MAX (3 * (2 * LAT_PROM_LABEL_MAX + 16))

typedef struct prom_series {
    bool set;
    int schema_cap; /* the native schema never gets finer than this */
    char stage[LAT_PROM_LABEL_MAX];
    char labels[LABELS_MAX]; /* stage="..",run="..",host=".." (escaped) */
    lat_prom_classic classic;
    lat_prom_native native;
#ifdef LAT_HAVE_PROTOBUF
    Io__Prometheus__Client__LabelPair lp[3];
    Io__Prometheus__Client__LabelPair *lpp[3];
    Io__Prometheus__Client__Metric cm, nm;
    Io__Prometheus__Client__Histogram ch, nh;
    Io__Prometheus__Client__Bucket bk[LAT_PROM_NBOUNDS];
    Io__Prometheus__Client__Bucket *bkp[LAT_PROM_NBOUNDS];
    Io__Prometheus__Client__BucketSpan *sp;   /* native.cap */
    Io__Prometheus__Client__BucketSpan **spp; /* native.cap */
#endif
} prom_series;

struct lat_prom_exporter {
    char metric[256];
    char native_metric[264];
    char run[LAT_PROM_LABEL_MAX], host[LAT_PROM_LABEL_MAX];
    double unit_s;
    int budget;
    int nseries;
    prom_series *s;
    size_t bound;
    uint8_t *scratch; /* bound bytes: the push body */
#ifdef LAT_HAVE_PROTOBUF
    Io__Prometheus__Client__MetricFamily cf, nf;
    Io__Prometheus__Client__Metric **cmp, **nmp; /* nseries each */
#endif
};

static char help_classic[] = "Per-stage latency: classic buckets on latlab's fixed le list "
                             "(1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k s, 10 ns .. 100 s).";
#ifdef LAT_HAVE_PROTOBUF
static char help_native[] = "Per-stage latency: native (exponential) buckets; schema from the "
                            "histogram's precision and a bucket budget.";
static char lname_stage[] = "stage", lname_run[] = "run", lname_host[] = "host";
#endif

void lat_prom_exporter_destroy(lat_prom_exporter *e) {
    if (!e) return;
    for (int i = 0; e->s && i < e->nseries; i++) {
        lat_prom_native_fini(&e->s[i].native);
#ifdef LAT_HAVE_PROTOBUF
        lat__free(e->s[i].sp);
        lat__free(e->s[i].spp);
#endif
    }
    lat__free(e->s);
#ifdef LAT_HAVE_PROTOBUF
    lat__free(e->cmp);
    lat__free(e->nmp);
#endif
    lat__free(e->scratch);
    lat__free(e);
}

#ifdef LAT_HAVE_PROTOBUF
static int series_proto_init(lat_prom_exporter *e, prom_series *s) {
    char *names[3] = {lname_stage, lname_run, lname_host};
    char *vals[3] = {s->stage, e->run, e->host};
    for (int k = 0; k < 3; k++) {
        io__prometheus__client__label_pair__init(&s->lp[k]);
        s->lp[k].name = names[k];
        s->lp[k].value = vals[k];
        s->lpp[k] = &s->lp[k];
    }
    io__prometheus__client__metric__init(&s->cm);
    io__prometheus__client__metric__init(&s->nm);
    io__prometheus__client__histogram__init(&s->ch);
    io__prometheus__client__histogram__init(&s->nh);
    s->cm.n_label = s->nm.n_label = 3;
    s->cm.label = s->nm.label = s->lpp;
    s->cm.histogram = &s->ch;
    s->nm.histogram = &s->nh;
    for (int b = 0; b < LAT_PROM_NBOUNDS; b++) {
        io__prometheus__client__bucket__init(&s->bk[b]);
        s->bk[b].has_cumulative_count = s->bk[b].has_upper_bound = 1;
        s->bk[b].upper_bound = lat_prom_le_s[b];
        s->bkp[b] = &s->bk[b];
    }
    s->ch.has_sample_count = s->ch.has_sample_sum = 1;
    s->ch.n_bucket = LAT_PROM_NBOUNDS;
    s->ch.bucket = s->bkp;
    int cap = s->native.cap;
    s->sp = lat__calloc((size_t)cap, sizeof *s->sp);
    s->spp = lat__calloc((size_t)cap, sizeof *s->spp);
    if (!s->sp || !s->spp) return -ENOMEM;
    for (int k = 0; k < cap; k++) {
        io__prometheus__client__bucket_span__init(&s->sp[k]);
        s->sp[k].has_offset = s->sp[k].has_length = 1;
        s->spp[k] = &s->sp[k];
    }
    s->nh.has_sample_count = s->nh.has_sample_sum = 1;
    s->nh.has_schema = s->nh.has_zero_threshold = s->nh.has_zero_count = 1;
    s->nh.positive_span = s->spp;
    s->nh.positive_delta = s->native.delta;
    return 0;
}
#endif

int lat_prom_exporter_create(const lat_prom_exporter_config *c, lat_prom_exporter **out) {
    if (!c || !out || c->nseries < 1 || c->nseries > LAT_PROM_MAX_SERIES || !c->stages || !c->run ||
        !c->host || !*c->run || !*c->host)
        return -EINVAL;
    const char *metric = c->metric ? c->metric : "latlab_stage_latency_seconds";
    if (!valid_metric_name(metric)) return -EINVAL;
    if (strlen(c->run) >= LAT_PROM_LABEL_MAX || strlen(c->host) >= LAT_PROM_LABEL_MAX)
        return -EINVAL;
    for (int i = 0; i < c->nseries; i++)
        if (!c->stages[i] || !*c->stages[i] || strlen(c->stages[i]) >= LAT_PROM_LABEL_MAX)
            return -EINVAL;
    lat_prom_exporter *e = lat__calloc(1, sizeof *e);
    if (!e) return -ENOMEM;
    int rc = -ENOMEM;
    snprintf(e->metric, sizeof e->metric, "%s", metric);
    snprintf(e->native_metric, sizeof e->native_metric, "%s_native", metric);
    snprintf(e->run, sizeof e->run, "%s", c->run);
    snprintf(e->host, sizeof e->host, "%s", c->host);
    e->unit_s = c->unit_s > 0 ? c->unit_s : 1e-9;
    e->budget = c->native_budget > 0 ? c->native_budget : LAT_PROM_NATIVE_BUDGET_DEFAULT;
    if (e->budget < 4) e->budget = 4;
    e->nseries = c->nseries;
    e->s = lat__calloc((size_t)c->nseries, sizeof *e->s);
    if (!e->s) goto fail;
    char er[2 * LAT_PROM_LABEL_MAX], eh[2 * LAT_PROM_LABEL_MAX], es[2 * LAT_PROM_LABEL_MAX];
    lat_prom_escape_label(er, sizeof er, e->run);
    lat_prom_escape_label(eh, sizeof eh, e->host);
    size_t labels_max = 0;
    for (int i = 0; i < c->nseries; i++) {
        prom_series *s = &e->s[i];
        snprintf(s->stage, sizeof s->stage, "%s", c->stages[i]);
        lat_prom_escape_label(es, sizeof es, s->stage);
        int n = snprintf(s->labels, sizeof s->labels, "stage=\"%s\",run=\"%s\",host=\"%s\"", es, er,
                         eh);
        if ((size_t)n > labels_max) labels_max = (size_t)n;
        s->schema_cap = LAT_PROM_SCHEMA_MAX;
        /* + 4: at the coarsest schema a range may still need a few more than the budget */
        if ((rc = lat_prom_native_init(&s->native, e->budget + 4)) != 0) goto fail;
#ifdef LAT_HAVE_PROTOBUF
        if ((rc = series_proto_init(e, s)) != 0) goto fail;
#endif
    }
#ifdef LAT_HAVE_PROTOBUF
    rc = -ENOMEM;
    e->cmp = lat__calloc((size_t)c->nseries, sizeof *e->cmp);
    e->nmp = lat__calloc((size_t)c->nseries, sizeof *e->nmp);
    if (!e->cmp || !e->nmp) goto fail;
    io__prometheus__client__metric_family__init(&e->cf);
    io__prometheus__client__metric_family__init(&e->nf);
    e->cf.name = e->metric;
    e->nf.name = e->native_metric;
    e->cf.help = help_classic;
    e->nf.help = help_native;
    e->cf.has_type = e->nf.has_type = 1;
    e->cf.type = e->nf.type = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM;
    e->cf.metric = e->cmp;
    e->nf.metric = e->nmp;
#endif
    /* Text: per series NBOUNDS + 1 bucket lines, _sum, _count; each at most
     * name + suffix + labels + le + a 20-digit count or a %.17g sum. */
    size_t line = strlen(e->native_metric) + 8 + labels_max + 24 + 40;
    size_t text = 1024 + (size_t)c->nseries * (LAT_PROM_NBOUNDS + 3) * line;
    /* Protobuf: per series two metrics with their labels, NBOUNDS buckets of
     * at most 1 + 2 + 11 + 9 bytes, budget spans (14) and deltas (11), plus
     * the families' names and help. */
    size_t pb = 1024 + (size_t)c->nseries * (2 * (labels_max + 64) + LAT_PROM_NBOUNDS * 24 +
                                             (size_t)(e->budget + 4) * 32 + 128);
    e->bound = text > pb ? text : pb;
    e->scratch = lat__alloc(e->bound);
    if (!e->scratch) goto fail;
    *out = e;
    return 0;
fail:
    lat_prom_exporter_destroy(e);
    return rc;
}

int lat_prom_exporter_set(lat_prom_exporter *e, int i, const lat_hist *h) {
    if (!e || i < 0 || i >= e->nseries) return -EINVAL;
    prom_series *s = &e->s[i];
    if (!h) {
        s->set = false;
        return 0;
    }
    int rc = lat_prom_classic_fill(h, e->unit_s, &s->classic);
    if (rc) return rc;
    int schema = lat_prom_native_schema(h, e->unit_s, e->budget);
    if (schema > s->schema_cap) schema = s->schema_cap;
    rc = lat_prom_native_fill(h, e->unit_s, schema, &s->native);
    if (rc) return rc;
    s->schema_cap = schema;
    s->set = true;
    return 0;
}

int lat_prom_exporter_schema(const lat_prom_exporter *e, int i) {
    if (!e || i < 0 || i >= e->nseries || !e->s[i].set) return -EINVAL;
    return e->s[i].native.schema;
}

double lat_prom_exporter_rel_error(const lat_prom_exporter *e, int i) {
    if (!e || i < 0 || i >= e->nseries || !e->s[i].set) return NAN;
    return lat_prom_native_rel_error(e->s[i].native.schema);
}

size_t lat_prom_exporter_bound(const lat_prom_exporter *e) {
    return e ? e->bound : 0;
}

typedef struct textbuf {
    char *p;
    size_t cap, len;
    bool full;
} textbuf;

__attribute__((format(printf, 2, 3))) static void tb_printf(textbuf *t, const char *fmt, ...) {
    if (t->full) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->cap - t->len) {
        t->full = true;
        return;
    }
    t->len += (size_t)n;
}

int lat_prom_exporter_text(const lat_prom_exporter *e, int format, char *buf, size_t cap,
                           size_t *len) {
    if (!e || !buf || !len || (format != LAT_PROM_TEXT && format != LAT_PROM_OPENMETRICS))
        return -EINVAL;
    textbuf t = {.p = buf, .cap = cap};
    const char *m = e->metric;
    bool om = format == LAT_PROM_OPENMETRICS;
    size_t ml = strlen(m);
    if (om) {
        tb_printf(&t, "# TYPE %s histogram\n", m);
        if (ml > 8 && !strcmp(m + ml - 8, "_seconds")) tb_printf(&t, "# UNIT %s seconds\n", m);
        tb_printf(&t, "# HELP %s %s\n", m, help_classic);
    } else {
        tb_printf(&t, "# HELP %s %s\n# TYPE %s histogram\n", m, help_classic, m);
    }
    for (int i = 0; i < e->nseries; i++) {
        const prom_series *s = &e->s[i];
        if (!s->set) continue;
        for (int b = 0; b < LAT_PROM_NBOUNDS; b++)
            tb_printf(&t, "%s_bucket{%s,le=\"%s\"} %llu\n", m, s->labels, lat_prom_le_text[b],
                      (unsigned long long)s->classic.cumulative[b]);
        tb_printf(&t, "%s_bucket{%s,le=\"+Inf\"} %llu\n", m, s->labels,
                  (unsigned long long)s->classic.count);
        tb_printf(&t, "%s_sum{%s} %.17g\n%s_count{%s} %llu\n", m, s->labels, s->classic.sum_s, m,
                  s->labels, (unsigned long long)s->classic.count);
    }
    if (om) tb_printf(&t, "# EOF\n");
    if (t.full) return -ENOSPC;
    *len = t.len;
    return 0;
}

bool lat_prom_have_protobuf(void) {
#ifdef LAT_HAVE_PROTOBUF
    return true;
#else
    return false;
#endif
}

#ifdef LAT_HAVE_PROTOBUF
static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        p[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return n;
}

static int pack_delimited(const Io__Prometheus__Client__MetricFamily *f, uint8_t *buf, size_t cap,
                          size_t *off) {
    size_t sz = io__prometheus__client__metric_family__get_packed_size(f);
    uint8_t pre[10];
    size_t pn = put_varint(pre, sz);
    if (*off + pn + sz > cap) return -ENOSPC;
    memcpy(buf + *off, pre, pn);
    *off += pn;
    *off += io__prometheus__client__metric_family__pack(f, buf + *off);
    return 0;
}
#endif

int lat_prom_exporter_protobuf(const lat_prom_exporter *ce, uint8_t *buf, size_t cap, size_t *len) {
#ifdef LAT_HAVE_PROTOBUF
    if (!ce || !buf || !len) return -EINVAL;
    /* The messages are the exporter's preallocated storage: filling them is
     * part of rendering, not of the caller-visible state. */
    lat_prom_exporter *e = (lat_prom_exporter *)ce;
    size_t n = 0;
    for (int i = 0; i < e->nseries; i++) {
        prom_series *s = &e->s[i];
        if (!s->set) continue;
        for (int b = 0; b < LAT_PROM_NBOUNDS; b++)
            s->bk[b].cumulative_count = s->classic.cumulative[b];
        s->ch.sample_count = s->classic.count;
        s->ch.sample_sum = s->classic.sum_s;
        const lat_prom_native *nv = &s->native;
        s->nh.sample_count = nv->count;
        s->nh.sample_sum = nv->sum_s;
        s->nh.schema = nv->schema;
        s->nh.zero_threshold = nv->zero_threshold_s;
        s->nh.zero_count = nv->zero_count;
        for (int k = 0; k < nv->nspans; k++) {
            s->sp[k].offset = nv->span_offset[k];
            s->sp[k].length = nv->span_length[k];
        }
        s->nh.n_positive_span = (size_t)nv->nspans;
        s->nh.n_positive_delta = (size_t)nv->ndeltas;
        e->cmp[n] = &s->cm;
        e->nmp[n] = &s->nm;
        n++;
    }
    e->cf.n_metric = e->nf.n_metric = n;
    size_t off = 0;
    int rc;
    if (n) {
        if ((rc = pack_delimited(&e->cf, buf, cap, &off)) != 0) return rc;
        if ((rc = pack_delimited(&e->nf, buf, cap, &off)) != 0) return rc;
    }
    *len = off;
    return 0;
#else
    (void)ce;
    (void)buf;
    (void)cap;
    (void)len;
    return -ENOTSUP;
#endif
}

/* ---- /metrics server ---------------------------------------------------------------------- */

#define CT_PROTOBUF                                                                                \
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct lat_prom_server {
    lat_http_server *http;
    lat_prom_exporter *e;
    /* Guards e between the updater (a cold thread) and the scrape thread.
     * The scrape holds it only while rendering into buf. */
    pthread_mutex_t mu;
    uint8_t *buf; /* e->bound bytes, the scrape thread's */
};

static bool accept_has(const char *accept, const char *what) {
    return strstr(accept, what) != NULL;
}

static void prom_handle(void *ud, const lat_http_request *req, lat_http_response *resp) {
    lat_prom_server *s = ud;
    size_t plen = strcspn(req->path, "?");
    if (plen != 8 || strncmp(req->path, "/metrics", 8) != 0) return; /* 404 as preset */
    bool pb = lat_prom_have_protobuf() &&
              accept_has(req->accept, "application/vnd.google.protobuf") &&
              accept_has(req->accept, "io.prometheus.client.MetricFamily") &&
              accept_has(req->accept, "delimited");
    bool om = accept_has(req->accept, "application/openmetrics-text");
    size_t len = 0;
    int rc;
    pthread_mutex_lock(&s->mu);
    if (pb)
        rc = lat_prom_exporter_protobuf(s->e, s->buf, s->e->bound, &len);
    else
        rc = lat_prom_exporter_text(s->e, om ? LAT_PROM_OPENMETRICS : LAT_PROM_TEXT, (char *)s->buf,
                                    s->e->bound, &len);
    pthread_mutex_unlock(&s->mu);
    if (rc) {
        resp->status = 500;
        resp->body = "exposition failed\n";
        resp->len = 18;
        return;
    }
    resp->status = 200;
    resp->content_type = pb ? CT_PROTOBUF : om ? CT_OPENMETRICS : CT_TEXT;
    resp->body = s->buf;
    resp->len = len;
}

int lat_prom_server_create(const char *addr, lat_prom_exporter *e, lat_prom_server **out) {
    if (!addr || !e || !out) return -EINVAL;
    lat_prom_server *s = lat__calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->e = e;
    s->buf = lat__alloc(e->bound);
    if (!s->buf) {
        lat__free(s);
        return -ENOMEM;
    }
    pthread_mutex_init(&s->mu, NULL);
    int rc = lat_http_server_create(addr, prom_handle, s, &s->http);
    if (rc) {
        pthread_mutex_destroy(&s->mu);
        lat__free(s->buf);
        lat__free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void lat_prom_server_destroy(lat_prom_server *s) {
    if (!s) return;
    lat_http_server_destroy(s->http);
    pthread_mutex_destroy(&s->mu);
    lat_prom_exporter_destroy(s->e);
    lat__free(s->buf);
    lat__free(s);
}

int lat_prom_server_port(const lat_prom_server *s) {
    return s ? lat_http_server_port(s->http) : -1;
}

static int set_all(lat_prom_server *s, const lat_hist *const *h, int n) {
    int rc = 0;
    for (int i = 0; i < n && i < s->e->nseries; i++) {
        int r = lat_prom_exporter_set(s->e, i, h[i]);
        if (r && !rc) rc = r;
    }
    return rc;
}

bool lat_prom_server_try_update(lat_prom_server *s, const lat_hist *const *h, int nseries) {
    if (!s || !h) return false;
    if (pthread_mutex_trylock(&s->mu) != 0) return false;
    set_all(s, h, nseries);
    pthread_mutex_unlock(&s->mu);
    return true;
}

int lat_prom_server_update(lat_prom_server *s, const lat_hist *const *h, int nseries) {
    if (!s || !h) return -EINVAL;
    pthread_mutex_lock(&s->mu);
    int rc = set_all(s, h, nseries);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

void lat_prom_server_counts(const lat_prom_server *s, uint64_t *served, uint64_t *refused) {
    lat_http_server_counts(s->http, served, refused);
}

/* ---- Pushgateway --------------------------------------------------------------------------- */

/* "/NAME/VALUE", or "/NAME@base64/URLSAFE" when VALUE has anything but
 * [A-Za-z0-9._-] (Pushgateway's rule for values that are not path-safe). */
static int path_label(char *buf, size_t cap, const char *name, const char *v) {
    bool plain = *v != 0;
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            plain = false;
    if (plain) return snprintf(buf, cap, "/%s/%s", name, v);
    size_t n = strlen(v);
    char b64[LAT_BASE64_LEN(LAT_PROM_LABEL_MAX) + 1];
    if (LAT_BASE64_LEN(n) >= sizeof b64) return -EINVAL;
    lat_base64_encode((const uint8_t *)v, n, b64);
    for (char *p = b64; *p; p++) {
        if (*p == '+') *p = '-';
        if (*p == '/') *p = '_';
    }
    return snprintf(buf, cap, "/%s@base64/%s", name, b64);
}

int lat_prom_push(const lat_prom_exporter *e, const char *url, const char *job, bool del,
                  int timeout_ms, char *err, size_t errlen) {
    char dummy[8];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    if (!e || !url || !job || !*job) return -EINVAL;
    char host[256], prefix[512], path[2048];
    int port;
    if (lat_http_parse_url(url, host, sizeof host, &port, prefix, sizeof prefix) != 0) {
        snprintf(err, errlen, "'%s' is not a URL like http://HOST:PORT", url);
        return -EINVAL;
    }
    char pj[400], pr[400], ph[400];
    if (path_label(pj, sizeof pj, "job", job) < 0 || path_label(pr, sizeof pr, "run", e->run) < 0 ||
        path_label(ph, sizeof ph, "host", e->host) < 0)
        return -EINVAL;
    int pn = snprintf(path, sizeof path, "%s/metrics%s%s%s", prefix, pj, pr, ph);
    if (pn < 0 || (size_t)pn >= sizeof path) return -EINVAL;
    if (del)
        return lat_http_request_send(host, port, "DELETE", path, NULL, NULL, 0, timeout_ms, NULL,
                                     err, errlen);
    size_t len = 0;
    int rc;
    const char *ct;
    if (lat_prom_have_protobuf()) {
        rc = lat_prom_exporter_protobuf(e, e->scratch, e->bound, &len);
        ct = CT_PROTOBUF;
    } else {
        rc = lat_prom_exporter_text(e, LAT_PROM_TEXT, (char *)e->scratch, e->bound, &len);
        ct = CT_TEXT;
    }
    if (rc) {
        snprintf(err, errlen, "exposition failed: %s", lat_strerror(rc));
        return rc;
    }
    return lat_http_request_send(host, port, "PUT", path, ct, e->scratch, len, timeout_ms, NULL,
                                 err, errlen);
}
