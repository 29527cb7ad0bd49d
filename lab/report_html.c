/* report_html.c - the parts of report.html (report.c writes the page) that
 * show what the verdicts read, and say which figures they do not read: per
 * experiment and the A/A control, the verdict line beside its shift function
 * (shiftplot.c's SVG, inline) and its points as a table; the per-interval
 * and merged-run plots, each captioned as only reported and left out when
 * empty; and the silence check, whose two tracer reports (`latlab silence`
 * text) are split back into tables with one column per field.  A report
 * whose lines do not parse as tables is kept verbatim. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

#include "latlab/hist.h"
#include "latlab/pipeline_report.h"
#include "latlab/stats.h"

/* ---- verdicts and their shift functions ----------------------------------------------------- */

static const char *matched_word(const lat_lab_verdict *v, int conf) {
    if (v->kind == lat_lab_expected(conf)) return "matched";
    return v->kind == LAT_LAB_UNDECIDED ? "inconclusive" : "WRONG";
}

static lat_verdict badge(const lat_lab_verdict *v, int conf) {
    const char *m = matched_word(v, conf);
    return !strcmp(m, "matched") ? LAT_VERDICT_PASS
           : !strcmp(m, "WRONG") ? LAT_VERDICT_FAIL
                                 : LAT_VERDICT_INFO;
}

/* One experiment: the verdict line, the shift function, its points. */
static void html_shift(lat_report *rep, const lat_lab_verdict *v, int c, double band) {
    static const char *const hdr[] = {"quantile", "ratio", "CI", "p", "rounds"};
    const char *name = lat_lab_conf_name(c);
    char t[1100], line[1200];
    lat_lab_verdict_text(v, t, sizeof t);
    snprintf(line, sizeof line, "%s: %s", name, t);
    lat_report_verdict(rep, badge(v, c), line);
    char title[96], cap[200];
    snprintf(title, sizeof title, "%s: shift function", name);
    snprintf(cap, sizeof cap, "%s: the work stage's shift function, the figures this verdict reads",
             name);
    size_t len = 0;
    char *svg = lat__lab_shift_svg_text(v, title, band, &len);
    if (svg) lat_report_svg(rep, cap, svg, len);
    free(svg);
    snprintf(cap, sizeof cap, "%s: experiment / baseline per quantile (n/a: not read)", name);
    lat_report_table_begin(rep, cap, 5, hdr);
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        const lat_lab_shift *s = &v->shift[q];
        char qn[16], r[32], ci[64], p[32], n[16];
        snprintf(qn, sizeof qn, "p%g", lat_lab_quantile_pct[q]);
        snprintf(n, sizeof n, "%u", s->rounds);
        if (isfinite(s->ratio)) {
            snprintf(r, sizeof r, "x%.3f", s->ratio);
            snprintf(ci, sizeof ci, "[%.3f, %.3f]", s->lo, s->hi);
            snprintf(p, sizeof p, "%.4f", s->p);
        } else {
            snprintf(r, sizeof r, "n/a");
            snprintf(ci, sizeof ci, "not read");
            p[0] = 0;
        }
        const char *cells[5] = {qn, r, ci, p, n};
        lat_report_table_row(rep, cells);
    }
    if (isfinite(v->disp_ratio)) {
        snprintf(line, sizeof line, "%s: round-to-round e2e p99.9 dispersion x%.2f (p = %.4f)",
                 name, v->disp_ratio, v->disp_p);
        lat_report_text(rep, line);
    }
}

void lat__lab_html_verdicts(lat_report *rep, const lat_lab_result *res, double band) {
    static const char *const hdr[] = {"experiment",  "expected",  "verdict", "confidence",
                                      "rounds used", "set aside", "matched"};
    lat_report_section(rep, "Verdicts and the shift functions they read");
    lat_report_text(rep, "Each verdict reads the work stage's shift function: per paired round the "
                         "ratio experiment / baseline of the samples censoring kept, at p50 .. "
                         "p99.99; the Hodges-Lehmann estimate and its confidence interval over the "
                         "rounds, against the shaded no-change band.  The A/A control runs the "
                         "baseline against itself: it must read no change, or no verdict stands.");
    for (int c = 1; c < LAT_LAB_NCONF; c++)
        html_shift(rep, &res->verdict[c], c, band);
    lat_report_table_begin(rep, "verdicts, their confidence and the rounds behind them", 7, hdr);
    for (int c = 1; c < LAT_LAB_NCONF; c++) {
        const lat_lab_verdict *v = &res->verdict[c];
        char conf[32], used[16], aside[16];
        snprintf(conf, sizeof conf, "%.1f%%", 100 * v->confidence);
        snprintf(used, sizeof used, "%u", v->rounds);
        snprintf(aside, sizeof aside, "%u", v->set_aside);
        const char *cells[7] = {lat_lab_conf_name(c),
                                lat_lab_kind_name(lat_lab_expected(c)),
                                lat_lab_kind_name(v->kind),
                                conf,
                                used,
                                aside,
                                matched_word(v, c)};
        lat_report_table_row(rep, cells);
    }
}

/* ---- the figures the verdicts do not read -------------------------------------------------- */

static const char *const iv_fig_name[3] = {"work p50", "work p99.9", "e2e p99.9"};

static double iv_value(const lat_lab_fig *f, int which) {
    return which == 0 ? f->work_p50 : which == 1 ? f->work_p999 : f->e2e_p999;
}

/* The distribution of one per-interval figure across clean intervals, per
 * conf; *npts: the points drawn (0: an empty plot). */
lat_plot *lat__lab_interval_plot(const lat_lab_result *res, int which, size_t *npts) {
    char title[96];
    snprintf(title, sizeof title, "per-interval %s across clean intervals", iv_fig_name[which]);
    lat_plot *pl = NULL;
    *npts = 0;
    if (lat_plot_create(title, &pl) != 0) return NULL;
    lat_plot_set_log_y(pl, true);
    lat_plot_set_note(pl, "reported; the verdicts read the kept samples paired by round "
                          "(x: share of intervals, y: the interval's figure)");
    for (int c = 0; c < LAT_LAB_NCONF; c++) {
        size_t n = 0;
        for (size_t i = 0; i < res->nruns; i++)
            if (res->runs[i].conf == c && !res->runs[i].set_aside) n += res->runs[i].niv;
        double *v = n ? malloc(n * sizeof *v) : NULL;
        lat_plot_point *pts = n ? malloc(n * sizeof *pts) : NULL;
        size_t k = 0;
        for (size_t i = 0; v && pts && i < res->nruns; i++) {
            const lat_lab_run_rec *r = &res->runs[i];
            if (r->conf != c || r->set_aside) continue;
            for (size_t j = 0; j < r->niv; j++)
                if (r->iv[j].lost_share <= 0.02 && iv_value(&r->iv[j], which) >= 0)
                    v[k++] = iv_value(&r->iv[j], which);
        }
        lat_stats_sort(v, k);
        for (size_t i = 0; i < k; i++)
            pts[i] = (lat_plot_point){k > 1 ? 100.0 * (double)i / (double)(k - 1) : 100, v[i]};
        if (lat_plot_add_series(pl, lat_lab_conf_name(c), pts, k) == 0) *npts += k;
        free(v);
        free(pts);
    }
    return pl;
}

/* Stage s's latency by percentile, usable runs merged, per conf; *nconf:
 * the confs with samples (0: an empty plot). */
lat_plot *lat__lab_stage_plot(const lat_lab_result *res, int s, int *nconf) {
    char title[96];
    snprintf(title, sizeof title, "%s latency by percentile", lat_pipe_stage_name(s));
    lat_plot *pl = NULL;
    *nconf = 0;
    if (lat_plot_create(title, &pl) != 0) return NULL;
    lat_plot_set_log_y(pl, true);
    lat_plot_set_note(pl, "usable runs merged, open loop; reported: the verdicts read the kept "
                          "samples paired by round");
    for (int c = 0; c < LAT_LAB_NCONF; c++) {
        const lat_hist *h = res->merged[c][s];
        if (h && lat_hist_total(h) > 0 &&
            lat_plot_add_hist(pl, lat_lab_conf_name(c), h, 1.0, 0) == 0)
            ++*nconf;
        else
            lat_plot_add_series(pl, lat_lab_conf_name(c), NULL, 0);
    }
    return pl;
}

/* The figures the verdicts do not read, after those they do; a plot with
 * nothing to draw (no clean interval, every run set aside) is left out and
 * said so in a line. */
void lat__lab_html_reported(lat_report *rep, const lat_lab_session *x, const lat_lab_result *res) {
    lat_report_section(rep,
                       "Reported figures (the verdicts read the kept samples paired by round)");
    lat_report_text(rep, "Per-interval figures and merged-run percentiles: reported for the "
                         "reader, not read by any verdict.");
    int left = 0, all = 0;
    char line[200];
    for (int w = 0; w < 3; w++) {
        size_t n;
        lat_plot *pl = lat__lab_interval_plot(res, w, &n);
        if (pl && n) lat_report_plot(rep, pl);
        left += pl && !n;
        lat_plot_destroy(pl);
    }
    if (left) {
        snprintf(line, sizeof line,
                 "%d of 3 per-interval figures left out: no clean interval (a hot thread lost at "
                 "most 2%% of it) in a usable run to plot",
                 left);
        lat_report_text(rep, line);
    }
    left = 0;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        if (!lat_pipe_stage_present(s, x->cfg.pipe.shape, x->cfg.pipe.split_q1)) continue;
        int n;
        lat_plot *pl = lat__lab_stage_plot(res, s, &n);
        if (pl && n) lat_report_plot(rep, pl);
        left += pl && !n, all++;
        lat_plot_destroy(pl);
    }
    if (left) {
        snprintf(line, sizeof line,
                 "%d of %d stage latency plots left out: every run was set aside, no merged "
                 "samples to plot",
                 left, all);
        lat_report_text(rep, line);
    }
}

/* ---- the silence check as columns ----------------------------------------------------------- */

#define SIL_LINES 400 /* lines read of one report (it prints a few dozen) */
#define SIL_BLOCKS 8
#define SIL_COLS 16

/* One table of a report: an optional caption line ("top interrupts:"), a
 * header of field names, rows that start with a number. */
typedef struct sil_block {
    const char *caption; /* "" for the per-CPU table, which has none */
    const char *head;    /* the header line, trimmed: matches a table across reports */
    int first, nrows;    /* rows: line[first .. first + nrows) */
} sil_block;

typedef struct sil_doc {
    char *buf; /* a copy of the text, cut into trimmed lines in place */
    char *line[SIL_LINES];
    int nlines;
    sil_block blk[SIL_BLOCKS];
    int nblk;
    char *prose[SIL_LINES];      /* the other non-empty lines */
    const char *tail[SIL_LINES]; /* "none" after a caption: one line "caption: none" */
    int nprose;
} sil_doc;

static bool is_row(const char *l) {
    return l && *l >= '0' && *l <= '9';
}

/* Two or more field names ([a-z_]+) separated by spaces. */
static bool is_header(const char *l) {
    int words = 0;
    for (const char *p = l; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        words++;
        for (; *p && *p != ' '; p++)
            if (!((*p >= 'a' && *p <= 'z') || *p == '_')) return false;
    }
    return words >= 2;
}

/* Split l into at most max fields at runs of spaces, the last one keeping
 * the rest of the line ("irq 36 (virtio1-req.0)"); returns how many. */
static int split(const char *l, int max, char out[][128]) {
    int n = 0;
    while (*l && n < max) {
        while (*l == ' ')
            l++;
        if (!*l) break;
        size_t w = n == max - 1 ? strlen(l) : strcspn(l, " ");
        snprintf(out[n++], 128, "%.*s", (int)(w < 127 ? w : 127), l);
        l += w;
    }
    return n;
}

static int parse(sil_doc *d, const char *text) {
    memset(d, 0, sizeof *d);
    if (!text || !(d->buf = strdup(text))) return -1;
    for (char *p = d->buf; *p && d->nlines < SIL_LINES;) {
        char *e = p + strcspn(p, "\n");
        char *next = *e ? e + 1 : e;
        *e = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        for (char *t = e; t > p && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r');)
            *--t = 0;
        if (*p) d->line[d->nlines++] = p;
        p = next;
    }
    for (int i = 0; i < d->nlines;) {
        char *l = d->line[i];
        size_t n = strlen(l);
        bool cap = n > 1 && l[n - 1] == ':' && i + 1 < d->nlines && is_header(d->line[i + 1]);
        int h = cap ? i + 1 : i;
        if (d->nblk < SIL_BLOCKS && is_header(d->line[h]) && h + 1 < d->nlines &&
            is_row(d->line[h + 1])) {
            if (cap) l[n - 1] = 0;
            sil_block *b = &d->blk[d->nblk++];
            b->caption = cap ? l : "";
            b->head = d->line[h];
            b->first = h + 1;
            while (b->first + b->nrows < d->nlines && is_row(d->line[b->first + b->nrows]))
                b->nrows++;
            i = b->first + b->nrows;
            continue;
        }
        bool none =
            n > 1 && l[n - 1] == ':' && i + 1 < d->nlines && !strcmp(d->line[i + 1], "none");
        d->tail[d->nprose] = none ? " none" : "";
        d->prose[d->nprose++] = l;
        i += none ? 2 : 1;
    }
    return 0;
}

static const sil_block *find_block(const sil_doc *d, const sil_block *like) {
    for (int k = 0; k < d->nblk; k++)
        if (!strcmp(d->blk[k].caption, like->caption) && !strcmp(d->blk[k].head, like->head))
            return &d->blk[k];
    return NULL;
}

static const char *const sil_run[2] = {"pinned baseline (round 1)", "no-pin (round 1)"};

/* The rows of b (of report side) under the table's columns, led by the run. */
static void block_rows(lat_report *rep, const sil_doc *d, const sil_block *b, int side, int ncols) {
    for (int r = 0; b && r < b->nrows; r++) {
        char f[SIL_COLS][128];
        const char *cells[SIL_COLS + 1] = {sil_run[side]};
        int n = split(d->line[b->first + r], ncols, f);
        for (int k = 0; k < ncols; k++)
            cells[k + 1] = k < n ? f[k] : "";
        lat_report_table_row(rep, cells);
    }
}

/* One table from both reports: block b of report side, and the table of the
 * other report with the same caption and header. */
static void table(lat_report *rep, const sil_doc *d, const sil_block *b, int side) {
    char names[SIL_COLS][128], cap[160];
    const char *hdr[SIL_COLS + 1] = {"run"};
    int ncols = split(b->head, SIL_COLS, names);
    for (int k = 0; k < ncols; k++)
        hdr[k + 1] = names[k];
    snprintf(cap, sizeof cap, "%s", b->caption[0] ? b->caption : "per traced CPU");
    lat_report_table_begin(rep, cap, (size_t)ncols + 1, hdr);
    const sil_block *mine[2] = {NULL, NULL};
    mine[side] = b;
    if (side == 0) mine[1] = find_block(&d[1], b);
    for (int i = 0; i < 2; i++)
        block_rows(rep, &d[i], mine[i], i, ncols);
}

void lat__lab_html_silence(lat_report *rep, const lat_lab_session *x) {
    lat_report_section(rep, "Silence check (ftrace on the hot CPUs)");
    if (!x->root) {
        lat_report_verdict(rep, LAT_VERDICT_INFO, x->silence_note);
        return;
    }
    lat_report_text(rep, "The same tracer on round 1's pinned baseline and no-pin runs; the "
                         "tracer's reader shares the hot CPUs on a small machine, so its own "
                         "activity shows up too.");
    sil_doc d[2];
    char line[600];
    for (int i = 0; i < 2; i++) {
        const lat_lab_silence *s = &x->sil[i];
        if (!s->ran || !s->text || parse(&d[i], s->text) != 0) {
            memset(&d[i], 0, sizeof d[i]);
            snprintf(line, sizeof line, "%s: %s", sil_run[i],
                     !s->ran ? "the tracer did not start" : "the tracer wrote no report");
            lat_report_text(rep, line);
            continue;
        }
        if (!d[i].nblk) { /* not the report we know: keep it as it is */
            snprintf(line, sizeof line, "%s (exit %d)", sil_run[i], s->status);
            lat_report_pre(rep, line, s->text);
            continue;
        }
        for (int k = 0; k < d[i].nprose; k++) {
            snprintf(line, sizeof line, "%s: %s%s", sil_run[i], d[i].prose[k], d[i].tail[k]);
            lat_report_text(rep, line);
        }
        if (s->status) {
            snprintf(line, sizeof line, "%s: the tracer exited %d", sil_run[i], s->status);
            lat_report_text(rep, line);
        }
    }
    for (int k = 0; k < d[0].nblk; k++)
        table(rep, d, &d[0].blk[k], 0);
    for (int k = 0; k < d[1].nblk; k++)
        if (!find_block(&d[0], &d[1].blk[k])) table(rep, d, &d[1].blk[k], 1);
    free(d[0].buf);
    free(d[1].buf);
}
