/* hlog_merge.c - per-tag and cross-log merges of interval logs (hlog_merge.h):
 * what `latlab hist tags|summary|merge` compute, as library code so that a
 * program can do the same without the tool. */
#include "latlab/hlog_merge.h"
#include "latlab/error.h"

#include "error_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- per tag ------------------------------------------------------------------------ */

void lat_hlog_tags_init(lat_hlog_tags *t, bool slots) {
    memset(t, 0, sizeof *t);
    t->slots = slots;
}

static int find_tag(const lat_hlog_tags *t, const char *tag) {
    for (int k = 0; k < t->n; k++)
        if (!strcmp(t->tag[k].tag, tag)) return k;
    return -1;
}

/* Merge h's recorded slots into a's (both sorted by value). */
static int merge_slots(lat_hlog_tag *a, const lat_hist *h) {
    size_t m = 0;
    for (int32_t i = 0; i < h->counts_len; i++)
        m += h->counts[i] != 0;
    if (!m) return 0;
    lat_hlog_slot *out = malloc((a->nslots + m) * sizeof *out);
    if (!out) return -ENOMEM;
    size_t i = 0, n = 0;
    for (int32_t k = 0; k < h->counts_len; k++) {
        if (!h->counts[k]) continue;
        lat_hlog_slot s = {lat_hist_value_from_index(h, k), h->counts[k]};
        while (i < a->nslots && a->slots[i].value < s.value)
            out[n++] = a->slots[i++];
        if (i < a->nslots && a->slots[i].value == s.value) s.count += a->slots[i++].count;
        out[n++] = s;
    }
    while (i < a->nslots)
        out[n++] = a->slots[i++];
    free(a->slots);
    a->slots = out;
    a->nslots = n;
    return 0;
}

static int new_tag(lat_hlog_tags *t, const lat_hlog_interval *iv) {
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 8;
        lat_hlog_tag *g = realloc(t->tag, (size_t)cap * sizeof *g);
        if (!g) return -ENOMEM;
        t->tag = g;
        t->cap = cap;
    }
    lat_hlog_tag *a = &t->tag[t->n];
    memset(a, 0, sizeof *a);
    snprintf(a->tag, sizeof a->tag, "%s", iv->tag);
    a->lowest = iv->hist.lowest;
    a->sig_figs = iv->hist.sig_figs;
    return t->n++;
}

int lat_hlog_tags_add(lat_hlog_tags *t, const lat_hlog_interval *iv) {
    int k = find_tag(t, iv->tag);
    if (k < 0 && (k = new_tag(t, iv)) < 0) return k;
    lat_hlog_tag *a = &t->tag[k];
    int64_t sum;
    if (__builtin_add_overflow(a->count, lat_hist_total(&iv->hist), &sum)) return -EOVERFLOW;
    if (t->slots && merge_slots(a, &iv->hist) < 0) return -ENOMEM;
    a->count = sum;
    a->intervals++;
    return 0;
}

int lat_hlog_tag_hist(const lat_hlog_tag *a, lat_hist *h) {
    int64_t hi = a->nslots ? a->slots[a->nslots - 1].value : 0;
    if (hi / 2 < a->lowest) hi = 2 * a->lowest;
    int rc = lat_hist_init(h, a->lowest, hi, a->sig_figs);
    if (rc < 0) return rc;
    for (size_t i = 0; i < a->nslots; i++)
        lat_hist_record_n(h, a->slots[i].value, a->slots[i].count);
    return 0;
}

void lat_hlog_tags_fini(lat_hlog_tags *t) {
    if (!t) return;
    for (int k = 0; k < t->n; k++)
        free(t->tag[k].slots);
    free(t->tag);
    lat_hlog_tags_init(t, t->slots);
}

int lat_hlog_total_add(lat_hist *total, bool *have, const lat_hlog_interval *iv) {
    if (!*have) {
        const lat_hist *h = &iv->hist;
        if (lat_hist_init(total, h->lowest, iv->declared_highest, h->sig_figs) < 0 &&
            lat_hist_copy(total, h) < 0)
            return -ENOMEM;
        *have = true;
    }
    return lat_hist_add_resize(total, &iv->hist);
}

int lat_hlog_hists_find(const lat_hlog_hists *s, const char *key) {
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].key, key)) return i;
    return -1;
}

int lat_hlog_hists_add(lat_hlog_hists *s, const char *key, const lat_hist *h) {
    if (!s || !key || !h || strlen(key) >= LAT_HLOG_TAG_MAX) return -EINVAL;
    int i = lat_hlog_hists_find(s, key);
    if (i >= 0) {
        int rc = lat_hist_add_resize(&s->v[i].h, h);
        return rc < 0 ? rc : i;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        lat_hlog_keyed *g = realloc(s->v, (size_t)cap * sizeof *g);
        if (!g) return -ENOMEM;
        s->v = g;
        s->cap = cap;
    }
    lat_hlog_keyed *k = &s->v[s->n];
    memset(k, 0, sizeof *k);
    snprintf(k->key, sizeof k->key, "%s", key);
    if (lat_hist_copy(&k->h, h) != 0) return -ENOMEM;
    return s->n++;
}

void lat_hlog_hists_fini(lat_hlog_hists *s) {
    if (!s) return;
    for (int i = 0; i < s->n; i++)
        lat_hist_fini(&s->v[i].h);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* ---- across logs ---------------------------------------------------------------------- */

/* One interval to write: its place in time and its encoded column, which
 * points into its reader's text.  Memory is the inputs' size plus one decoded
 * interval at a time. */
typedef struct mrec {
    char tag[LAT_HLOG_TAG_MAX];
    double start_s, length_s;
    int64_t max_value;
    const char *encoded;
    size_t encoded_len;
    int src, seq;
} mrec;

struct lat_hlog_merge {
    mrec *recs;
    size_t n, cap;
    int nsrc;
    double start_time;
};

int lat_hlog_merge_create(lat_hlog_merge **out) {
    lat_hlog_merge *m = calloc(1, sizeof *m);
    if (!m) return -ENOMEM;
    m->start_time = INFINITY;
    *out = m;
    return 0;
}

void lat_hlog_merge_destroy(lat_hlog_merge *m) {
    if (!m) return;
    free(m->recs);
    free(m);
}

static int cmp_mrec(const void *a, const void *b) {
    const mrec *x = a, *y = b;
    if (x->start_s != y->start_s) return x->start_s < y->start_s ? -1 : 1;
    if (x->src != y->src) return x->src - y->src;
    return x->seq - y->seq;
}

static mrec *new_rec(lat_hlog_merge *m) {
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        mrec *g = realloc(m->recs, cap * sizeof *g);
        if (!g) return NULL;
        m->recs = g;
        m->cap = cap;
    }
    mrec *r = &m->recs[m->n++];
    memset(r, 0, sizeof *r);
    return r;
}

int lat_hlog_merge_add(lat_hlog_merge *m, lat_hlog_reader *r) {
    lat_hlog_interval *iv;
    int rc, seq = 0, src = m->nsrc++;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        mrec *x = new_rec(m);
        if (!x) {
            rc = -ENOMEM;
            break;
        }
        snprintf(x->tag, sizeof x->tag, "%s", iv->tag);
        x->start_s = iv->start_s;
        x->length_s = iv->length_s;
        x->max_value = lat_hist_max(&iv->hist);
        x->encoded = iv->encoded;
        x->encoded_len = iv->encoded_len;
        x->src = src;
        x->seq = seq++;
    }
    double st = lat_hlog_reader_start_time(r);
    if (!isnan(st) && st < m->start_time) m->start_time = st;
    return rc < 0 ? rc : 0;
}

size_t lat_hlog_merge_count(const lat_hlog_merge *m) {
    return m->n;
}

int lat_hlog_merge_write(lat_hlog_merge *m, FILE *f) {
    if (m->n == 0) return -ENODATA;
    qsort(m->recs, m->n, sizeof *m->recs, cmp_mrec);
    double start_time = m->start_time;
    if (m->recs[0].start_s < start_time) start_time = m->recs[0].start_s;
    lat_hlog_writer w;
    int rc = lat_hlog_writer_init(&w, f, start_time, start_time, 0);
    for (size_t k = 0; k < m->n && rc == 0; k++) {
        const mrec *x = &m->recs[k];
        rc = lat_hlog_write_interval_encoded(&w, x->tag[0] ? x->tag : NULL, x->start_s, x->length_s,
                                             x->max_value, x->encoded, x->encoded_len);
    }
    return rc;
}

/* ---- a whole log, by key ---------------------------------------------------------- */

/* The key of an untagged interval of path. */
static void key_from_path(char *out, size_t cap, const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && !strcmp(b + n - 5, ".hlog")) n -= 5;
    if (n == 0) {
        snprintf(out, cap, "all");
        return;
    }
    snprintf(out, cap, "%.*s", (int)n, b);
    /* latlab pipeline writes q1+wake as q1-wake.hlog (shell-friendly names) */
    if (!strcmp(out, "q1-wake") || !strcmp(out, "q2-wake")) out[2] = '+';
}

static int add_interval(lat_hlog_hists *x, const char *stage, const lat_hist *h, int max, char *err,
                        size_t errlen) {
    if (x->n == max && lat_hlog_hists_find(x, stage) < 0)
        return lat__errf(err, errlen, -E2BIG, "more than %d series (tags x files)", max);
    /* grows like Java's auto-resizing merge: no interval's counts dropped */
    int rc = lat_hlog_hists_add(x, stage, h);
    if (rc == -EOVERFLOW)
        return lat__errf(err, errlen, rc, "%s: the merged total count would pass 2^63-1", stage);
    return rc < 0 ? lat__errf(err, errlen, rc, "out of memory") : 0;
}

int lat_hlog_hists_read(lat_hlog_hists *x, const char *path, const char *tag, int max, char *err,
                        size_t errlen) {
    lat_hlog_reader *r = NULL;
    int rc = lat_hlog_reader_create(path, &r);
    if (rc < 0) return lat__errf(err, errlen, rc, "%s: %s", path, lat_strerror(rc));
    lat_hlog_reader_fit(r, true); /* memory follows the data; merged with add_resize */
    char base[LAT_HLOG_TAG_MAX];
    key_from_path(base, sizeof base, path);
    lat_hlog_interval *iv;
    int status = 0;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        if (tag && strcmp(iv->tag, tag) != 0) continue;
        if ((status = add_interval(x, iv->tag[0] ? iv->tag : base, &iv->hist, max, err, errlen)) !=
            0)
            break;
    }
    if (rc < 0) {
        const char *why = lat_hlog_reader_reason(r);
        status = lat__errf(err, errlen, rc, "%s:%d: %s", path, lat_hlog_reader_line(r),
                           why && *why ? why : lat_strerror(rc));
    }
    lat_hlog_reader_destroy(r);
    return status;
}
