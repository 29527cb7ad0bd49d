/* plotset.c - inputs of `latlab plot` into series and summary rows, and the
 * summary as a table, a page and JSON (see plotset.h). */
#include "latlab/plotset.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog_merge.h"

#include "error_internal.h"

/* The message into c->err; -EIO (the caller's status is "failed"). */
#define fail(c, ...) lat__errf((c)->err, sizeof(c)->err, -EIO, __VA_ARGS__)

static void warn(const lat_plotset *c, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->warn) c->warn(c->ud, msg);
}

static const double PCTS[5] = {50, 90, 99, 99.9, 99.99};
static const char *const NAMES[5] = {"p50", "p90", "p99", "p99.9", "p99.99"};

static void fmt_ns(char *buf, size_t len, double ns) {
    static const char *const u[] = {"ns", "us", "ms", "s"};
    int i = 0;
    if (!isfinite(ns)) {
        snprintf(buf, len, "-");
        return;
    }
    while (i < 3 && ns >= 1000)
        ns /= 1000, i++;
    snprintf(buf, len, "%.4g%s", ns, u[i]);
}

static int new_series(lat_plotset *c, const char *file, const char *label, const char *tag,
                      lat_plotset_series **out) {
    if (c->ns >= LAT_PLOT_MAX_SERIES)
        return fail(c, "%s: too many series (at most %d)", file, LAT_PLOT_MAX_SERIES);
    lat_plotset_series *s = &c->s[c->ns];
    memset(s, 0, sizeof *s);
    s->label = strdup(label);
    if (!s->label) return fail(c, "%s: %s", file, lat_strerror(-ENOMEM));
    s->file = file;
    snprintf(s->tag, sizeof s->tag, "%s", tag ? tag : "");
    s->max_ns = NAN;
    for (int i = 0; i < 5; i++)
        s->pct_ns[i] = NAN;
    c->ns++;
    *out = s;
    return 0;
}

/* ---- .hgrm ------------------------------------------------------------------------------- */

static int load_hgrm(lat_plotset *c, const char *path, const char *label) {
    lat_hgrm h;
    size_t line = 0;
    int rc = lat_hgrm_load(path, c->unit_ns, &h, &line);
    if (rc && rc != LAT_EFORMAT) return fail(c, "%s: cannot read: %s", path, lat_strerror(rc));
    if (c->tag) warn(c, "%s: --tag applies to interval logs, not .hgrm tables", path);
    if (rc) return fail(c, "%s:%zu: not a percentile-table row (.hgrm)", path, line);
    lat_plotset_series *s;
    if ((rc = new_series(c, path, label, NULL, &s))) goto out;
    s->count = h.total_count;
    if (h.n) {
        for (int i = 0; i < 5; i++)
            s->pct_ns[i] = lat_hgrm_value_at(&h, PCTS[i]);
        s->max_ns = isfinite(h.max_ns) ? h.max_ns : h.points[h.n - 1].value_ns;
        /* Where the table has no row on a percentile's slot, the value lies
         * between two rows: say so rather than pass the upper one off as exact. */
        char unsure[256] = "";
        size_t used = 0;
        for (int i = 0; i < 5; i++) {
            double lo = NAN;
            if (!lat_hgrm_bracket(&h, PCTS[i], &lo) || !(lo < s->pct_ns[i])) continue;
            char a[32], b[32];
            fmt_ns(a, sizeof a, lo);
            fmt_ns(b, sizeof b, s->pct_ns[i]);
            used += (size_t)snprintf(unsure + used, sizeof unsure - used, "%s%s in (%s, %s]",
                                     used ? ", " : "", NAMES[i], a, b);
            if (used >= sizeof unsure) break;
        }
        if (used)
            warn(c,
                 "%s: no table row falls on %s: shown as the upper end; plot the .hlog (or "
                 "a table with more --ticks) for exact values",
                 path, unsure);
        /* One step of the last printed decimal, in ns: values closer than that
         * (or below it) are lost in the file itself. */
        double step_ns = c->unit_ns * pow(10.0, -h.value_decimals);
        if (s->pct_ns[0] < 100 * step_ns)
            warn(c,
                 "%s: values are printed in steps of %g ns (%d decimals): p50 reads %g ns, "
                 "too coarse to trust; write the table with a smaller unit (e.g. "
                 "HistogramLogProcessor -outputValueUnitRatio 1, or latlab hist percentiles "
                 "--scale 1) or plot the .hlog",
                 path, step_ns, h.value_decimals, s->pct_ns[0]);
    } else {
        warn(c, "%s: no rows: plotted as an empty series", path);
    }
    rc = lat_plot_add_series(c->plot, label, h.points, h.n);
    if (rc) rc = fail(c, "%s: %s", path, lat_strerror(rc));
out:
    lat_hgrm_fini(&h);
    return rc;
}

/* ---- .hlog --------------------------------------------------------------------------------- */

static int add_hist_series(lat_plotset *c, const char *path, const char *label, const char *tag,
                           const lat_hist *h) {
    lat_plotset_series *s;
    int rc = new_series(c, path, label, tag, &s);
    if (rc) return rc;
    s->count = h && h->total_count > 0 ? (uint64_t)h->total_count : 0;
    if (s->count) {
        for (int i = 0; i < 5; i++)
            s->pct_ns[i] = (double)lat_hist_value_at_percentile(h, PCTS[i]) * c->unit_ns;
        s->max_ns = (double)lat_hist_max(h) * c->unit_ns;
        rc = lat_plot_add_hist_ci(c->plot, label, h, c->unit_ns, c->ticks,
                                  c->ci ? LAT_HIST_CI_DEFAULT : 0.0);
    } else {
        rc = lat_plot_add_series(c->plot, label, NULL, 0);
    }
    return rc ? fail(c, "%s: %s", path, lat_strerror(rc)) : 0;
}

static int load_hlog(lat_plotset *c, const char *path, const char *label) {
    lat_hlog_reader *r = NULL;
    lat_hlog_hists groups = {0}; /* per tag, in order of first appearance */
    int rc = lat_hlog_reader_create(path, &r);
    if (rc) return fail(c, "%s: cannot read: %s", path, lat_strerror(rc));
    lat_hlog_interval *iv;
    while ((rc = lat_hlog_next(r, &iv)) > 0) {
        if (c->tag && strcmp(iv->tag, c->tag)) continue;
        bool known = lat_hlog_hists_find(&groups, iv->tag) >= 0;
        if (!known && groups.n == LAT_PLOT_MAX_SERIES) {
            rc = fail(c, "%s:%d: too many tags (at most %d series)", path, iv->line,
                      LAT_PLOT_MAX_SERIES);
            goto out;
        }
        if ((rc = lat_hlog_hists_add(&groups, iv->tag, &iv->hist)) < 0) {
            rc = !known ? fail(c, "%s: %s", path, lat_strerror(rc))
                 : rc == -EOVERFLOW
                     ? fail(c, "%s:%d: the merged total count would pass 2^63-1", path, iv->line)
                     : fail(c, "%s:%d: %s", path, iv->line, lat_strerror(rc));
            goto out;
        }
    }
    if (rc < 0) {
        const char *why = lat_hlog_reader_reason(r);
        rc = fail(c, "%s:%d: %s", path, lat_hlog_reader_line(r),
                  why && *why ? why : lat_strerror(rc));
        goto out;
    }
    if (groups.n == 0) {
        if (c->tag)
            warn(c, "%s: no interval tagged '%s': plotted as an empty series", path, c->tag);
        else
            warn(c, "%s: no intervals: plotted as an empty series", path);
        rc = add_hist_series(c, path, label, c->tag, NULL);
        goto out;
    }
    for (int g = 0; g < groups.n; g++) {
        char name[512];
        const char *tag = groups.v[g].key;
        if (groups.n > 1 && tag[0])
            snprintf(name, sizeof name, "%.300s:%.127s", label, tag);
        else
            snprintf(name, sizeof name, "%.400s", label);
        if ((rc = add_hist_series(c, path, name, tag, &groups.v[g].h))) goto out;
    }
    rc = 0;
out:
    lat_hlog_hists_fini(&groups);
    lat_hlog_reader_destroy(r);
    return rc;
}

void lat_plotset_print_table(const lat_plotset *c, FILE *f) {
    fprintf(f, "%-24s %12s", "series", "count");
    for (int i = 0; i < 5; i++)
        fprintf(f, " %10s", NAMES[i]);
    fprintf(f, " %10s\n", "max");
    for (size_t k = 0; k < c->ns; k++) {
        const lat_plotset_series *s = &c->s[k];
        char b[32];
        fprintf(f, "%-24s %12llu", s->label, (unsigned long long)s->count);
        for (int i = 0; i < 5; i++) {
            fmt_ns(b, sizeof b, s->pct_ns[i]);
            fprintf(f, " %10s", b);
        }
        fmt_ns(b, sizeof b, s->max_ns);
        fprintf(f, " %10s\n", b);
    }
}

int lat_plotset_write_html(const lat_plotset *c, const char *out, const char *title,
                           const uint64_t *slos, size_t nslo, bool log_y, lat_theme theme) {
    lat_report *r = NULL;
    int rc = lat_report_create(title, &r);
    if (rc) goto fail;
    lat_report_set_theme(r, theme);
    for (size_t k = 0; k < c->ns; k++) {
        char v[600];
        snprintf(v, sizeof v, "%s%s%s", c->s[k].file, c->s[k].tag[0] ? " tag " : "", c->s[k].tag);
        lat_report_kv(r, c->s[k].label, v);
    }
    for (size_t i = 0; i < nslo; i++) {
        char v[32];
        fmt_ns(v, sizeof v, (double)slos[i]);
        lat_report_kv(r, "SLO", v);
    }
    lat_report_kv(r, "latency axis", log_y ? "log" : "linear");
    const char *hdr[] = {"series", "count", "p50", "p90", "p99", "p99.9", "p99.99", "max"};
    lat_report_table_begin(r, "Latency by percentile", 8, hdr);
    for (size_t k = 0; k < c->ns; k++) {
        char cells[8][40];
        const char *row[8];
        snprintf(cells[0], sizeof cells[0], "%.39s", c->s[k].label);
        snprintf(cells[1], sizeof cells[1], "%llu", (unsigned long long)c->s[k].count);
        for (int i = 0; i < 5; i++)
            fmt_ns(cells[2 + i], sizeof cells[2 + i], c->s[k].pct_ns[i]);
        fmt_ns(cells[7], sizeof cells[7], c->s[k].max_ns);
        for (int i = 0; i < 8; i++)
            row[i] = cells[i];
        lat_report_table_row(r, row);
    }
    lat_report_plot(r, c->plot);
    rc = lat_report_write(r, out);
fail:
    lat_report_destroy(r);
    return rc;
}

json_t *lat_plotset_json(const lat_plotset *c, const char *out, const uint64_t *slos, size_t nslo) {
    json_t *root = json_object(), *arr = json_array(), *sl = json_array();
    for (size_t k = 0; k < c->ns; k++) {
        const lat_plotset_series *s = &c->s[k];
        json_t *o = json_object();
        json_object_set_new(o, "label", json_string(s->label));
        json_object_set_new(o, "file", json_string(s->file));
        if (s->tag[0]) json_object_set_new(o, "tag", json_string(s->tag));
        json_object_set_new(o, "count", json_integer((json_int_t)s->count));
        for (int i = 0; i < 5; i++) {
            char key[32];
            snprintf(key, sizeof key, "%s_ns", NAMES[i]);
            json_object_set_new(o, key,
                                isfinite(s->pct_ns[i]) ? json_real(s->pct_ns[i]) : json_null());
        }
        json_object_set_new(o, "max_ns", isfinite(s->max_ns) ? json_real(s->max_ns) : json_null());
        json_array_append_new(arr, o);
    }
    for (size_t i = 0; i < nslo; i++)
        json_array_append_new(sl, json_integer((json_int_t)slos[i]));
    json_object_set_new(root, "output", json_string(out));
    json_object_set_new(root, "series", arr);
    json_object_set_new(root, "slo_ns", sl);
    return root;
}

/* ---- legend labels ------------------------------------------------------------------------ */

/* The length of p without its extension (.hlog, .hgrm or .csv). */
static size_t stem_len(const char *p) {
    const char *b = strrchr(p, '/');
    b = b ? b + 1 : p;
    const char *dot = strrchr(b, '.');
    if (dot && dot != b && (!strcmp(dot, ".hlog") || !strcmp(dot, ".hgrm") || !strcmp(dot, ".csv")))
        return (size_t)(dot - p);
    return strlen(p);
}

/* Where the last k components of p[0..len) start: 0 when p has k or fewer. */
static size_t tail_at(const char *p, size_t len, size_t k) {
    for (size_t i = len; i > 0; i--)
        if (p[i - 1] == '/' && --k == 0) return i;
    return 0;
}

static char *copy(const char *p, size_t len) {
    char *l = malloc(len + 1);
    if (l) memcpy(l, p, len), l[len] = 0;
    return l;
}

/* The last k components of paths[i] (stems when strip) are no other's. */
static bool tail_unique(char *const *paths, size_t n, size_t i, size_t k, bool strip) {
    const char *p = paths[i];
    size_t len = strip ? stem_len(p) : strlen(p), at = tail_at(p, len, k);
    for (size_t j = 0; j < n; j++) {
        size_t lj = strip ? stem_len(paths[j]) : strlen(paths[j]), aj = tail_at(paths[j], lj, k);
        if (j != i && len - at == lj - aj && !memcmp(p + at, paths[j] + aj, len - at)) return false;
    }
    return true;
}

char *lat_plotset_label(char *const *paths, size_t n, size_t i) {
    const char *p = paths[i];
    /* the stems first; two that differ only by the extension keep it */
    for (int strip = 1; strip >= 0; strip--) {
        size_t len = strip ? stem_len(p) : strlen(p);
        for (size_t k = 1;; k++) {
            size_t at = tail_at(p, len, k);
            if (tail_unique(paths, n, i, k, strip)) return copy(p + at, len - at);
            if (!at) break;
        }
    }
    return copy(p, stem_len(p)); /* the same path twice, or one a suffix of another */
}

char *lat_plotset_title(char *buf, size_t n, char *const *paths, size_t npaths, const char *tag) {
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < npaths && used < n - 1; i++) {
        const char *b = strrchr(paths[i], '/');
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", b ? b + 1 : paths[i]);
    }
    if (tag && used < n - 1) snprintf(buf + used, n - used, " (tag %s)", tag);
    return buf;
}

int lat_plotset_add(lat_plotset *c, const char *path, const char *label) {
    return lat_hgrm_is_table(path) ? load_hgrm(c, path, label) : load_hlog(c, path, label);
}

void lat_plotset_fini(lat_plotset *c) {
    for (size_t k = 0; k < c->ns; k++)
        free(c->s[k].label);
    c->ns = 0;
}
