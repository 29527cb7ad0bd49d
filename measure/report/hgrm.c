/* hgrm.c - read HdrHistogram's percentile-distribution text (.hgrm).
 *
 * Java's outputPercentileDistribution writes a header line, a blank line,
 * rows "Value Percentile TotalCount 1/(1-Percentile)" (the last, 100%, row
 * without the fourth column) and a "#[...]" footer; the CSV variant has a
 * quoted header, comma-separated rows ending ",Infinity" and no footer
 * (as Java writes them).  Both are accepted, and so is latlab's own variant
 * with two more columns, CI_Low and CI_High, named in the header
 * (lat_hist_write_percentiles_ci: `latlab hist percentiles --ci`, `latlab load
 * --hgrm`); anything else is reported with its line number.  The Value column is in whatever unit the writer scaled to, so the
 * caller says how many ns one unit is. */
#include "report_int.h"

#include "alloc_internal.h"
#include "latlab/error.h"
#include "latlab/hlog.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lat_hgrm_fini(lat_hgrm *h) {
    if (!h) return;
    lat__free(h->points);
    lat__free(h->counts);
    memset(h, 0, sizeof *h);
}

/* Skip spaces/tabs and, when comma, at most one comma between fields. */
static const char *skip_sep(const char *s, const char *end, bool comma) {
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (comma && s < end && *s == ',') {
        s++;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
    }
    return s;
}

/* A finite number in [s, end) ending at a separator; 0 and *v, or -1. */
static int number(const char **sp, const char *end, double *v) {
    const char *s = *sp;
    char tmp[64];
    size_t n = 0;
    while (s + n < end && s[n] != ' ' && s[n] != '\t' && s[n] != ',' && n < sizeof tmp - 1)
        n++;
    if (!n || n == sizeof tmp - 1) return -1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *e;
    errno = 0;
    double d = strtod(tmp, &e);
    if (*e || errno || !isfinite(d)) return -1;
    *v = d;
    *sp = s + n;
    return 0;
}

/* Footer "#[Mean    =      990.099, StdDeviation   =       99.01]": read the
 * figures we know by name; unknown names are ignored. */
static void footer(lat_hgrm *h, const char *s, const char *end, double scale) {
    s += 2;
    while (s < end) {
        const char *eq = memchr(s, '=', (size_t)(end - s));
        if (!eq) return;
        const char *k = s, *ke = eq;
        while (k < ke && (*k == ' ' || *k == ','))
            k++;
        while (ke > k && ke[-1] == ' ')
            ke--;
        const char *v = eq + 1;
        while (v < end && *v == ' ')
            v++;
        double d;
        const char *ve = v;
        int ok = number(&ve, end, &d) == 0;
        if (!ok) { /* "990.099]" */
            char tmp[64];
            size_t n = 0;
            while (v + n < end && v[n] != ',' && v[n] != ']' && n < sizeof tmp - 1)
                n++;
            memcpy(tmp, v, n);
            tmp[n] = 0;
            char *e;
            d = strtod(tmp, &e);
            ok = e != tmp && isfinite(d);
            ve = v + n;
        }
        size_t kl = (size_t)(ke - k);
        if (ok) {
            if (kl == 4 && !memcmp(k, "Mean", 4))
                h->mean_ns = d * scale;
            else if (kl == 12 && !memcmp(k, "StdDeviation", 12))
                h->stddev_ns = d * scale;
            else if (kl == 3 && !memcmp(k, "Max", 3))
                h->max_ns = d * scale;
            else if (kl == 11 && !memcmp(k, "Total count", 11) && d >= 0)
                h->total_count = (uint64_t)d;
        }
        s = ve;
        while (s < end && *s != ',')
            s++;
        if (s < end) s++;
    }
}

int lat_hgrm_parse(const char *text, size_t len, double ns_per_value, lat_hgrm *out,
                   size_t *err_line) {
    if (err_line) *err_line = 0;
    if (!out) return -EINVAL;
    memset(out, 0, sizeof *out);
    if (!text || !(ns_per_value > 0) || !isfinite(ns_per_value)) return -EINVAL;
    out->mean_ns = out->stddev_ns = out->max_ns = NAN;

    /* Rows are at most one per line: count lines for the allocation. */
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    lat_plot_point *pts = lat__calloc(lines, sizeof *pts);
    uint64_t *counts = lat__calloc(lines, sizeof *counts);
    if (!pts || !counts) {
        lat__free(pts);
        lat__free(counts);
        return -ENOMEM;
    }

    size_t n = 0, lineno = 0;
    uint64_t last_total = 0;
    bool footer_total = false, ci = false;
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        const char *next = e < end ? e + 1 : end;
        lineno++;
        if (e > s && e[-1] == '\r') e--;
        const char *c = skip_sep(s, e, false);
        if (c == e) goto next_line;
        if (e - c >= 2 && c[0] == '#' && c[1] == '[') {
            uint64_t before = out->total_count;
            footer(out, c, e, ns_per_value);
            if (out->total_count != before) footer_total = true;
            goto next_line;
        }
        if (*c == '#') goto next_line;
        if (!n && (memmem(c, (size_t)(e - c), "Value", 5) &&
                   memmem(c, (size_t)(e - c), "Percentile", 10))) {
            /* the header, plain or CSV; with CI_Low and CI_High when written
             * by lat_hist_write_percentiles_ci (`latlab hist --ci`, `load --hgrm`) */
            ci = memmem(c, (size_t)(e - c), "CI_Low", 6) != NULL;
            goto next_line;
        }
        {
            bool csv = memchr(c, ',', (size_t)(e - c)) != NULL;
            double v, q, total, other;
            const char *vstart = c;
            if (number(&c, e, &v) || v < 0) goto bad;
            const char *dot = memchr(vstart, '.', (size_t)(c - vstart));
            if (dot && (int)(c - dot - 1) > out->value_decimals)
                out->value_decimals = (int)(c - dot - 1);
            c = skip_sep(c, e, csv);
            if (number(&c, e, &q) || q < 0 || q > 1) goto bad;
            c = skip_sep(c, e, csv);
            if (number(&c, e, &total) || total < 0 || total != floor(total)) goto bad;
            /* then 1/(1-Percentile) ("Infinity" or blank on the 100% row) and,
             * under a CI header, CI_Low and CI_High: 0-1 fields, or 2-3 with CI */
            int more = 0;
            for (c = skip_sep(c, e, csv); c < e; c = skip_sep(c, e, csv)) {
                if (more == (ci ? 3 : 1)) goto bad;
                if (!more && (size_t)(e - c) >= 8 && !memcmp(c, "Infinity", 8))
                    c += 8;
                else if (number(&c, e, &other))
                    goto bad;
                more++;
            }
            if (ci && more < 2) goto bad;
            if (!isfinite(v * ns_per_value)) goto bad;
            double pct = q * 100;
            if (n && pct < pts[n - 1].pct) goto bad;
            pts[n].pct = pct > 100 ? 100 : pct;
            pts[n].value_ns = v * ns_per_value;
            counts[n] = (uint64_t)total;
            n++;
            last_total = (uint64_t)total;
        }
    next_line:
        s = next;
    }
    if (!footer_total) out->total_count = last_total;
    if (!n) {
        lat__free(pts);
        lat__free(counts);
        pts = NULL;
        counts = NULL;
    }
    out->points = pts;
    out->counts = counts;
    out->n = n;
    return 0;
bad:
    lat__free(pts);
    lat__free(counts);
    memset(out, 0, sizeof *out);
    if (err_line) *err_line = lineno;
    return LAT_EFORMAT;
}

/* The first row whose TotalCount reaches q's target count (Java's
 * max(1, ceil(nextDown(q) / 100 * total))). */
static size_t row_at(const lat_hgrm *h, double q) {
    uint64_t total = h->counts[h->n - 1];
    if (q < 0) q = 0;
    if (q > 100) q = 100;
    double t = ceil(nextafter(q, -INFINITY) / 100.0 * (double)total);
    uint64_t target = t < 1 ? 1 : (uint64_t)t;
    for (size_t i = 0; i < h->n; i++)
        if (h->counts[i] >= target) return i;
    return h->n - 1;
}

double lat_hgrm_value_at(const lat_hgrm *h, double q) {
    if (!h || !h->n) return NAN;
    return h->points[row_at(h, q)].value_ns;
}

bool lat_hgrm_bracket(const lat_hgrm *h, double q, double *lo) {
    if (!h || !h->n) return false;
    size_t i = row_at(h, q);
    /* The row's tick is at or below q: no slot before it reached q's count. */
    if (i == 0 || h->points[i].pct <= q) return false;
    if (lo) *lo = h->points[i - 1].value_ns;
    return h->points[i - 1].value_ns < h->points[i].value_ns;
}

/* The file whole, NUL-terminated (lat__free it), at most LAT_HLOG_MAX_FILE_BYTES. */
static int read_all(const char *path, char **text, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    errno = 0; /* a read error's cause (EISDIR for a folder), not a stale one */
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int err = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= LAT_HLOG_MAX_FILE_BYTES) { /* the same limit as interval logs */
                err = -EFBIG;
                break;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = lat__alloc(ncap);
            if (!nb) {
                err = -ENOMEM;
                break;
            }
            if (n) memcpy(nb, buf, n);
            lat__free(buf);
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        bool nul = got && memchr(buf + n, '\0', got); /* text ends here: the parser says where */
        n += got;
        if (got == 0 || nul) break;
    }
    if (!err && ferror(f)) err = errno ? -errno : -EIO;
    fclose(f);
    if (err) {
        lat__free(buf);
        return err;
    }
    *text = buf;
    *len = n;
    return 0;
}

int lat_hgrm_load(const char *path, double ns_per_value, lat_hgrm *out, size_t *err_line) {
    if (!path || !out) return -EINVAL;
    char *text = NULL;
    size_t len = 0;
    int rc = read_all(path, &text, &len);
    if (rc) return rc;
    rc = lat_hgrm_parse(text, len, ns_per_value, out, err_line);
    lat__free(text);
    return rc;
}

int lat_hgrm_is_table(const char *path) {
    size_t n = strlen(path);
    if (n >= 5 && !strcmp(path + n - 5, ".hgrm")) return 1;
    if (n >= 5 && !strcmp(path + n - 5, ".hlog")) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    int hgrm = 1;
    for (int i = 0; i < 8 && fgets(line, sizeof line, f); i++) {
        if (!strncmp(line, "#[Histogram log", 15) || !strncmp(line, "Tag=", 4) ||
            strstr(line, "Interval_Compressed_Histogram") || strstr(line, ",HIST")) {
            hgrm = 0;
            break;
        }
    }
    fclose(f);
    return hgrm;
}
