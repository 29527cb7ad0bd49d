/* hlog.c - HdrHistogram text formats: .hgrm percentile tables and interval
 * logs (write 1.3, read 1.2/1.3).
 *
 * Output matches Java byte for byte, including java.util.Formatter's
 * rounding (shortest round-trip decimal digits, then HALF_UP), which differs
 * from printf's exact-binary round-half-even on ties such as 0.125 -> "0.13".
 * The reader is line-oriented and strict: a malformed line stops reading with
 * the line number and a reason (the CLI reports them). */
#include "latlab/hlog.h"
#include "error_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc_internal.h"
#include "latlab/error.h"

/* ---- Java-compatible %f -------------------------------------------------------------- */

int lat_java_format_fixed(char *buf, size_t cap, double d, int prec) {
    if (isnan(d)) return snprintf(buf, cap, "NaN");
    if (isinf(d)) return snprintf(buf, cap, d < 0 ? "-Infinity" : "Infinity");
    if (prec < 0) prec = 0;
    if (prec > 30) prec = 30;
    bool neg = signbit(d);
    double a = fabs(d);
    /* Shortest digits that read back as a. */
    char e[64];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, a);
        if (strtod(e, NULL) == a) break;
    }
    /* e = "D.DDDDe[+-]XX": collect digits and the exponent. */
    char dig[40];
    int nd = 0;
    const char *s = e;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9') dig[nd++] = *s;
    int exp10 = atoi(s + 1);
    /* value = 0.dig * 10^(exp10+1); keep (exp10 + 1 + prec) digits. */
    int point = exp10 + 1; /* digits before the decimal point */
    int keep = point + prec;
    char out[400];
    int no = 0;
    if (a == 0.0) {
        nd = 1;
        dig[0] = '0';
        point = 1;
        keep = 1 + prec;
    }
    /* Build a digit string of length max(keep, 1) with HALF_UP rounding. */
    char r[400];
    int nr;
    if (keep < 0) {
        nr = 0;
    } else {
        nr = keep;
        for (int i = 0; i < nr; i++)
            r[i] = i < nd ? dig[i] : '0';
        if (keep < nd && dig[keep] >= '5') {
            int i = nr - 1;
            while (i >= 0 && r[i] == '9')
                r[i--] = '0';
            if (i >= 0) {
                r[i]++;
            } else { /* carry out: one more leading digit */
                memmove(r + 1, r, (size_t)nr);
                r[0] = '1';
                nr++;
                point++;
            }
        }
    }
    /* r holds the digits of the rounded value with `point` before the decimal
     * point (point may be <= 0: leading zeros after the point). */
    if (neg) {
        /* Java prints -0.000 for small negatives too. */
        out[no++] = '-';
    }
    if (point <= 0) {
        out[no++] = '0';
    } else {
        for (int i = 0; i < point; i++)
            out[no++] = i < nr ? r[i] : '0';
    }
    if (prec > 0) {
        out[no++] = '.';
        for (int i = 0; i < prec; i++) {
            int idx = point + i; /* position in r */
            out[no++] = (idx >= 0 && idx < nr) ? r[idx] : '0';
        }
    }
    out[no] = '\0';
    return snprintf(buf, cap, "%s", out);
}

/* Java "%W.Pf": right-aligned in width W. */
static int jfmt(FILE *f, int width, int prec, double d) {
    char b[420];
    lat_java_format_fixed(b, sizeof b, d, prec);
    return fprintf(f, "%*s", width, b);
}

/* ---- .hgrm -------------------------------------------------------------------------- */

int lat_hist_write_percentiles(FILE *f, const lat_hist *h, int ticks_per_half, double scale,
                               bool csv) {
    return lat_hist_write_percentiles_ci(f, h, ticks_per_half, scale, csv, 0.0);
}

/* The row's interval, widened to hold the row's value (the iterator's level
 * and value_at_percentile can pick neighbouring slots at a tick's edge). */
static lat_hist_ci row_ci(const lat_hist *h, const lat_hist_iter *it, double confidence) {
    lat_hist_ci ci;
    double p = it->percentile_level > 100.0 ? 100.0 : it->percentile_level;
    lat_hist_cis_at_percentiles(h, &p, confidence, &ci, 1);
    if (ci.lo > it->value) ci.lo = it->value;
    if (ci.hi < it->value) ci.hi = it->value;
    return ci;
}

/* A row's CI_Low and CI_High columns, each after sep, width wide. */
static void put_ci(FILE *f, char sep, int width, int S, const lat_hist_ci *ci, double scale) {
    fputc(sep, f);
    jfmt(f, width, S, (double)ci->lo / scale);
    fputc(sep, f);
    jfmt(f, width, S, (double)ci->hi / scale);
}

int lat_hist_write_percentiles_ci(FILE *f, const lat_hist *h, int ticks_per_half, double scale,
                                  bool csv, double confidence) {
    if (!f || !h || !(scale > 0)) return -EINVAL;
    if (ticks_per_half < 1 || !(confidence >= 0.0 && confidence < 1.0)) return -EINVAL;
    errno = 0; /* a failed write's cause: lat__write_status */
    int S = h->sig_figs;
    bool ci_on = confidence > 0.0;
    double first_bound_pl = -1;
    int64_t first_bound_n = 0;
    if (csv)
        fprintf(f, "\"Value\",\"Percentile\",\"TotalCount\",\"1/(1-Percentile)\"%s\n",
                ci_on ? ",\"CI_Low\",\"CI_High\"" : "");
    else if (ci_on)
        fprintf(f, "%12s %14s %10s %14s %12s %12s\n\n", "Value", "Percentile", "TotalCount",
                "1/(1-Percentile)", "CI_Low", "CI_High");
    else
        fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
                "1/(1-Percentile)");
    lat_hist_iter it;
    lat_hist_iter_percentile(&it, h, ticks_per_half);
    while (lat_hist_iter_next(&it)) {
        double v = (double)it.value / scale;
        double pl = it.percentile_level / 100.0;
        lat_hist_ci ci = {0};
        if (ci_on) {
            ci = row_ci(h, &it, confidence);
            if (ci.max_bound && first_bound_pl < 0) {
                first_bound_pl = pl;
                first_bound_n = ci.needed_n;
            }
        }
        if (csv) {
            jfmt(f, 0, S, v);
            fputc(',', f);
            jfmt(f, 0, 12, pl);
            fprintf(f, ",%" PRId64 ",", it.cumulative_count);
            if (it.percentile_level != 100.0)
                jfmt(f, 0, 2, 1.0 / (1.0 - pl));
            else
                fputs("Infinity", f);
            if (ci_on) put_ci(f, ',', 0, S, &ci, scale);
            fputc('\n', f);
        } else {
            jfmt(f, 12, S, v);
            fputc(' ', f);
            jfmt(f, 2, 12, pl);
            fprintf(f, " %10" PRId64, it.cumulative_count);
            if (it.percentile_level != 100.0) {
                fputc(' ', f);
                jfmt(f, 14, 2, 1.0 / (1.0 - pl));
            } else if (ci_on) {
                fprintf(f, " %14s", "");
            }
            if (ci_on) put_ci(f, ' ', 12, S, &ci, scale);
            fputc('\n', f);
        }
    }
    if (!csv) {
        fputs("#[Mean    = ", f);
        jfmt(f, 12, S, lat_hist_mean(h) / scale);
        fputs(", StdDeviation   = ", f);
        jfmt(f, 12, S, lat_hist_stddev(h) / scale);
        fputs("]\n#[Max     = ", f);
        jfmt(f, 12, S, (double)lat_hist_max(h) / scale);
        fprintf(f, ", Total count    = %12" PRId64 "]\n", lat_hist_total(h));
        fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n", h->bucket_count,
                h->sub_bucket_count);
        if (ci_on) {
            fprintf(f, "#[CI      = %g%% confidence interval per row (order statistics)",
                    100 * confidence);
            if (first_bound_pl >= 0) {
                fputs("; max-bound (CI_High = Max) from Percentile ", f);
                jfmt(f, 0, 12, first_bound_pl);
                fprintf(f, ": needs at least %" PRId64 " samples", first_bound_n);
            }
            fputs("]\n", f);
        }
    }
    return lat__write_status(f, 0);
}

/* ---- interval log writer -------------------------------------------------------------- */

int lat_hlog_writer_init(lat_hlog_writer *w, FILE *f, double start_time_s, double base_time_s,
                         double max_unit_ratio) {
    if (!w || !f) return -EINVAL;
    errno = 0; /* a failed write's cause: lat__write_status */
    w->f = f;
    w->base_time_s = base_time_s;
    w->max_unit_ratio = max_unit_ratio > 0 ? max_unit_ratio : LAT_HLOG_MAX_UNIT_RATIO_DEFAULT;
    /* Java: new Date(ms).toString() -> "EEE MMM dd HH:mm:ss zzz yyyy" (UTC here). */
    int64_t ms = (int64_t)floor(start_time_s * 1000.0 + 0.5);
    time_t secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char date[64];
    strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);
    char st[64], bt[64];
    lat_java_format_fixed(st, sizeof st, (double)ms / 1000.0, 3);
    int64_t bms = (int64_t)floor(base_time_s * 1000.0 + 0.5);
    lat_java_format_fixed(bt, sizeof bt, (double)bms / 1000.0, 3);
    fprintf(f, "#[Histogram log format version 1.3]\n");
    fprintf(f, "#[StartTime: %s (seconds since epoch), %s]\n", st, date);
    fprintf(f, "#[BaseTime: %s (seconds since epoch)]\n", bt);
    fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_"
          "Histogram\"\n",
          f);
    return lat__write_status(f, 1);
}

int lat_hlog_write_comment(lat_hlog_writer *w, const char *text) {
    if (!w || !text || strpbrk(text, "\r\n")) return -EINVAL;
    errno = 0;
    fprintf(w->f, "#%s\n", text);
    return lat__write_status(w->f, 0);
}

/* One whole data line, written with one fwrite and flushed: a reader of a
 * log being written sees only complete lines (a signal or a full disk can
 * cut the file only between intervals). */
static int write_line(lat_hlog_writer *w, const char *tag, double start_s, double length_s,
                      int64_t max_value, const char *b64, size_t b64_len) {
    if (tag && (!*tag || strlen(tag) >= LAT_HLOG_TAG_MAX || strpbrk(tag, ", \r\n"))) return -EINVAL;
    char a[64], b[64], c[64];
    lat_java_format_fixed(a, sizeof a, start_s - w->base_time_s, 3);
    lat_java_format_fixed(b, sizeof b, length_s, 3);
    lat_java_format_fixed(c, sizeof c, (double)max_value / w->max_unit_ratio, 3);
    size_t cap = b64_len + LAT_HLOG_TAG_MAX + 3 * sizeof a + 16;
    char *line = lat__alloc(cap);
    if (!line) return -ENOMEM;
    int n = snprintf(line, cap, "%s%s%s%s,%s,%s,", tag ? "Tag=" : "", tag ? tag : "",
                     tag ? "," : "", a, b, c);
    memcpy(line + n, b64, b64_len);
    line[(size_t)n + b64_len] = '\n';
    size_t len = (size_t)n + b64_len + 1;
    int rc = 0;
    if (fwrite(line, 1, len, w->f) != len || fflush(w->f) != 0) rc = errno ? -errno : -EIO;
    lat__free(line);
    return rc;
}

int lat_hlog_write_interval(lat_hlog_writer *w, const lat_hist *h, const char *tag, double start_s,
                            double length_s) {
    if (!w || !h) return -EINVAL;
    if (tag && (!*tag || strlen(tag) >= LAT_HLOG_TAG_MAX || strpbrk(tag, ", \r\n"))) return -EINVAL;
    char *b64 = NULL;
    int rc = lat_hist_encode_base64(h, &b64);
    if (rc < 0) return rc;
    rc = write_line(w, tag, start_s, length_s, lat_hist_max(h), b64, strlen(b64));
    lat_hist_buf_free(b64);
    return rc;
}

int lat_hlog_write_interval_encoded(lat_hlog_writer *w, const char *tag, double start_s,
                                    double length_s, int64_t max_value, const char *encoded,
                                    size_t encoded_len) {
    if (!w || !encoded || !encoded_len || memchr(encoded, '\n', encoded_len)) return -EINVAL;
    return write_line(w, tag, start_s, length_s, max_value, encoded, encoded_len);
}

/* ---- interval log reader ----------------------------------------------------------- */

struct lat_hlog_reader {
    char *text; /* whole file, NUL-terminated */
    size_t len, pos;
    int line; /* line number of the last line read */
    char reason[160];
    double start_time_s, base_time_s;
    bool have_start, have_base;
    bool legend_end_ts; /* legend's second column is "EndTimestamp" */
    char version[16];
    lat_hlog_interval cur;
    bool cur_valid;
    bool fit;            /* decode fitted to the values (lat_hlog_reader_fit) */
    size_t line_off;     /* byte offset of the line read last */
    uint64_t slots_used; /* count slots decoded so far (LAT_HLOG_SLOT_BUDGET) */
};

static int reader_from_buf(char *text, size_t len, lat_hlog_reader **out) {
    lat_hlog_reader *r = lat__calloc(1, sizeof *r);
    if (!r) {
        lat__free(text);
        return -ENOMEM;
    }
    r->text = text;
    r->len = len;
    r->start_time_s = NAN;
    r->base_time_s = NAN;
    *out = r;
    return 0;
}

int lat_hlog_reader_open_mem(const char *text, size_t len, lat_hlog_reader **out) {
    if (!out || (!text && len)) return -EINVAL;
    *out = NULL;
    char *copy = lat__alloc(len + 1);
    if (!copy) return -ENOMEM;
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return reader_from_buf(copy, len, out);
}

int lat_hlog_reader_create(const char *path, lat_hlog_reader **out) {
    if (!path || !out) return -EINVAL;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    errno = 0; /* a read error's cause (EISDIR for a folder), not a stale one */
    size_t cap = 1 << 16, len = 0;
    char *buf = lat__alloc(cap + 1);
    int rc = -ENOMEM;
    if (!buf) goto fail;
    for (;;) {
        size_t n = fread(buf + len, 1, cap - len, f);
        /* A text log holds no NUL byte: stop reading at the first one (the
         * line parser then reports it with its line number), so /dev/zero or
         * a binary file costs one buffer, not all memory. */
        bool nul = n && memchr(buf + len, '\0', n);
        len += n;
        if (len < cap || nul) break;
        if (cap >= LAT_HLOG_MAX_FILE_BYTES) {
            rc = -EFBIG;
            goto fail;
        }
        char *g = lat__alloc(cap * 2 + 1);
        if (!g) goto fail;
        memcpy(g, buf, len);
        lat__free(buf);
        buf = g;
        cap *= 2;
    }
    if (ferror(f)) {
        rc = errno ? -errno : -EIO;
        goto fail;
    }
    fclose(f);
    buf[len] = '\0';
    return reader_from_buf(buf, len, out);
fail:
    lat__free(buf);
    fclose(f);
    return rc;
}

void lat_hlog_reader_destroy(lat_hlog_reader *r) {
    if (!r) return;
    lat_hist_fini(&r->cur.hist);
    lat__free(r->text);
    lat__free(r);
}

void lat_hlog_reader_fit(lat_hlog_reader *r, bool fit) {
    if (r) r->fit = fit;
}

long long lat_hlog_reader_offset(const lat_hlog_reader *r) {
    return r ? (long long)r->line_off : 0;
}

int lat_hlog_reader_line(const lat_hlog_reader *r) {
    return r ? r->line : 0;
}
const char *lat_hlog_reader_reason(const lat_hlog_reader *r) {
    return r ? r->reason : "";
}
double lat_hlog_reader_start_time(const lat_hlog_reader *r) {
    return r->start_time_s;
}
double lat_hlog_reader_base_time(const lat_hlog_reader *r) {
    return r->base_time_s;
}
const char *lat_hlog_reader_version(const lat_hlog_reader *r) {
    return r->version;
}

static int fail_line(lat_hlog_reader *r, int err, const char *why) {
    snprintf(r->reason, sizeof r->reason, "%s", why);
    return err;
}

/* Parse a whole field as a finite double. */
static bool parse_num(const char *s, size_t n, double *out) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp) return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789.+-eE", tmp[i])) return false;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (*end || errno || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* "#[StartTime: 1700000000.000 (seconds..." -> number after the prefix. */
static bool header_number(const char *line, size_t n, size_t plen, double *out) {
    size_t i = plen, j = plen;
    while (j < n && line[j] != ' ' && line[j] != ']')
        j++;
    return parse_num(line + i, j - i, out);
}

/* The number after a "#[StartTime: " or "#[BaseTime: " prefix (skip bytes
 * long) into *dst, *have set; a malformed one fails the line naming it. */
static int header_time(lat_hlog_reader *r, const char *line, size_t n, size_t skip,
                       const char *name, double *dst, bool *have) {
    double v;
    if (!header_number(line, n, skip, &v)) {
        char why[32];
        snprintf(why, sizeof why, "malformed %s", name);
        return fail_line(r, LAT_EFORMAT, why);
    }
    *dst = v;
    *have = true;
    return 0;
}

static int handle_comment(lat_hlog_reader *r, const char *line, size_t n) {
    static const char vpre[] = "#[Histogram log format version ";
    static const char spre[] = "#[StartTime: ";
    static const char bpre[] = "#[BaseTime: ";
    if (n >= sizeof vpre - 1 && !memcmp(line, vpre, sizeof vpre - 1)) {
        size_t i = sizeof vpre - 1, j = i;
        while (j < n && line[j] != ']')
            j++;
        if (j >= n || j - i >= sizeof r->version || j == i)
            return fail_line(r, LAT_EFORMAT, "malformed format version line");
        memcpy(r->version, line + i, j - i);
        r->version[j - i] = '\0';
        if (strncmp(r->version, "1.", 2) != 0)
            return fail_line(r, LAT_EFORMAT, "unsupported log format version (want 1.x)");
    } else if (n >= sizeof spre - 1 && !memcmp(line, spre, sizeof spre - 1)) {
        return header_time(r, line, n, sizeof spre - 1, "StartTime", &r->start_time_s,
                           &r->have_start);
    } else if (n >= sizeof bpre - 1 && !memcmp(line, bpre, sizeof bpre - 1)) {
        return header_time(r, line, n, sizeof bpre - 1, "BaseTime", &r->base_time_s, &r->have_base);
    }
    return 0;
}

int lat_hlog_next(lat_hlog_reader *r, lat_hlog_interval **out) {
    if (!r || !out) return -EINVAL;
    *out = NULL;
    r->reason[0] = '\0';
    while (r->pos < r->len) {
        const char *line = r->text + r->pos;
        r->line_off = r->pos;
        const char *nl = memchr(line, '\n', r->len - r->pos);
        size_t n = nl ? (size_t)(nl - line) : r->len - r->pos;
        bool last_unterminated = !nl;
        r->pos += n + (nl ? 1 : 0);
        r->line++;
        if (n && line[n - 1] == '\r') n--;
        if (memchr(line, '\0', n)) return fail_line(r, LAT_EFORMAT, "NUL byte in a text line");
        if (n == 0) continue;
        if (line[0] == '#') {
            int rc = handle_comment(r, line, n);
            if (rc < 0) return rc;
            continue;
        }
        if (line[0] == '"') { /* legend */
            const char *c = memchr(line, ',', n);
            r->legend_end_ts =
                c && (size_t)(line + n - c) > 15 && !memcmp(c + 1, "\"EndTimestamp\"", 14);
            continue;
        }
        /* Data line: [Tag=T,]ts,len,max,base64 */
        const char *f[5];
        size_t fl[5];
        int nf = 0;
        size_t start = 0;
        for (size_t i = 0; i <= n; i++) {
            if (i == n || line[i] == ',') {
                if (nf == 5) return fail_line(r, LAT_EFORMAT, "too many fields in a data line");
                f[nf] = line + start;
                fl[nf] = i - start;
                nf++;
                start = i + 1;
            }
        }
        lat_hlog_interval *cur = &r->cur;
        lat_hist_fini(&cur->hist);
        memset(cur, 0, sizeof *cur);
        int k = 0;
        if (fl[0] >= 4 && !memcmp(f[0], "Tag=", 4)) {
            size_t tl = fl[0] - 4;
            if (tl == 0 || tl >= LAT_HLOG_TAG_MAX || memchr(f[0] + 4, ' ', tl))
                return fail_line(r, LAT_EFORMAT, "bad tag");
            memcpy(cur->tag, f[0] + 4, tl);
            cur->tag[tl] = '\0';
            k = 1;
        }
        if (nf - k != 4)
            return fail_line(r, last_unterminated ? LAT_ETRUNCATED : LAT_EFORMAT,
                             nf - k < 4 ? "too few fields in a data line (truncated?)"
                                        : "too many fields in a data line");
        double ts, len, mx;
        if (!parse_num(f[k], fl[k], &ts)) return fail_line(r, LAT_EFORMAT, "bad start timestamp");
        if (!parse_num(f[k + 1], fl[k + 1], &len))
            return fail_line(r, LAT_EFORMAT, "bad interval length");
        if (!parse_num(f[k + 2], fl[k + 2], &mx))
            return fail_line(r, LAT_EFORMAT, "bad interval max");
        if (fl[k + 3] == 0) return fail_line(r, LAT_EFORMAT, "empty histogram field");
        int rc = r->fit ? lat_hist_decode_base64_fit(f[k + 3], fl[k + 3], &cur->hist,
                                                     &cur->declared_highest)
                        : lat_hist_decode_base64(f[k + 3], fl[k + 3], &cur->hist);
        if (rc == 0 && !r->fit) cur->declared_highest = cur->hist.highest;
        if (rc < 0) {
            char why[120];
            snprintf(why, sizeof why, "bad histogram: %s", lat_strerror(rc));
            return fail_line(r, last_unterminated && rc == LAT_ETRUNCATED ? LAT_ETRUNCATED : rc,
                             why);
        }
        /* Decoding costs the declared geometry's slots (allocated, zeroed and
         * walked), not the line's bytes: keep the sum in proportion to the
         * text read, so a small log declaring 5 digits up to 2^62 in every
         * line cannot cost minutes and gigabytes. */
        r->slots_used += (uint64_t)cur->hist.counts_len;
        if (r->slots_used > LAT_HLOG_SLOT_BUDGET_BASE + LAT_HLOG_SLOT_BUDGET_PER_BYTE * r->pos) {
            char why[160];
            snprintf(why, sizeof why,
                     "byte %zu: %" PRIu64 " histogram slots from %zu bytes, past the cap of "
                     "%llu + %llu a byte (geometry far larger than the data)",
                     r->line_off, r->slots_used, r->pos,
                     (unsigned long long)LAT_HLOG_SLOT_BUDGET_BASE,
                     (unsigned long long)LAT_HLOG_SLOT_BUDGET_PER_BYTE);
            lat_hist_fini(&cur->hist);
            return fail_line(r, -E2BIG, why);
        }
        /* HdrHistogram_c's hdr_log_write puts the end timestamp in column 2
         * (its legend says so); Java always writes a length. */
        if (r->legend_end_ts && len >= ts && ts > 0) len -= ts;
        /* Java HistogramLogReader's timestamp rules. */
        if (!r->have_start) {
            r->start_time_s = ts;
            r->have_start = true;
        }
        if (!r->have_base) {
            r->base_time_s = ts < r->start_time_s - 365.0 * 24 * 3600 ? r->start_time_s : 0.0;
            r->have_base = true;
        }
        cur->timestamp_s = ts;
        cur->start_s = ts + r->base_time_s;
        cur->offset_s = cur->start_s - r->start_time_s;
        cur->length_s = len;
        cur->max_field = mx;
        cur->line = r->line;
        cur->encoded = f[k + 3];
        cur->encoded_len = fl[k + 3];
        *out = cur;
        return 1;
    }
    return 0;
}
