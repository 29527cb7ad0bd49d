/* shiftplot.c - the shift function of one verdict (lab_verdict.h) as LAB.md
 * shows it: a small standalone SVG (quantile on x: p50 .. p99.99; the ratio
 * experiment / baseline with its confidence interval as an error bar on a log
 * y axis; a line at 1 and the no-change band shaded) and a Markdown table.
 * The percentile plots of report.h draw latencies in ns; a ratio needs its
 * own axis, so this writer is a small one of its own.  Points not read (too
 * few rounds support the quantile) are marked "n/a", never drawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "lab_internal.h"
#include "latlab/atomicfile.h"

#define W 480
#define H 300
#define ML 56 /* margins: left, right, top, bottom */
#define MR 16
#define MT 40
#define MB 40

static const char *const q_label[LAT_LAB_NQ] = {"p50", "p90", "p99", "p99.9", "p99.99"};

/* The y range (ratios): the band and every read interval, padded. */
static void y_range(const lat_lab_verdict *v, double band, double *lo, double *hi) {
    *lo = 1 / band, *hi = band;
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        const lat_lab_shift *s = &v->shift[q];
        if (!isfinite(s->ratio)) continue;
        if (isfinite(s->lo) && s->lo > 0) *lo = fmin(*lo, s->lo);
        if (isfinite(s->hi)) *hi = fmax(*hi, s->hi);
    }
    *lo /= 1.15, *hi *= 1.15;
}

static double ypix(double r, double lo, double hi) {
    return MT + (H - MT - MB) * (log(hi) - log(r)) / (log(hi) - log(lo));
}

static double xpix(int q) {
    return ML + (W - ML - MR) * (q + 0.5) / LAT_LAB_NQ;
}

static void axes(FILE *f, double lo, double hi, double band) {
    static const double ticks[] = {0.1, 0.2, 0.5, 0.8, 1,  1.25, 1.5, 2,
                                   3,   5,   10,  20,  50, 100,  1000};
    fprintf(f,
            "<rect x='%d' y='%.1f' width='%d' height='%.1f' fill='#8fbc8f' fill-opacity='0.25'/>\n",
            ML, ypix(band, lo, hi), W - ML - MR, ypix(1 / band, lo, hi) - ypix(band, lo, hi));
    for (size_t i = 0; i < sizeof ticks / sizeof *ticks; i++) {
        if (ticks[i] < lo || ticks[i] > hi) continue;
        double y = ypix(ticks[i], lo, hi);
        fprintf(f,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#999' stroke-width='%s'%s/>\n"
                "<text x='%d' y='%.1f' text-anchor='end'>x%g</text>\n",
                ML, y, W - MR, y, ticks[i] == 1 ? "1.5" : "0.5",
                ticks[i] == 1 ? " stroke-dasharray='6 3'" : "", ML - 4, y + 4, ticks[i]);
    }
    for (int q = 0; q < LAT_LAB_NQ; q++)
        fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'>%s</text>\n", xpix(q), H - MB + 18,
                q_label[q]);
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#666'/>\n", ML, MT, ML, H - MB);
}

static void points(FILE *f, const lat_lab_verdict *v, double lo, double hi) {
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        const lat_lab_shift *s = &v->shift[q];
        double x = xpix(q);
        if (!isfinite(s->ratio) || !isfinite(s->lo) || !isfinite(s->hi) || s->lo <= 0) {
            fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' fill='#999'>n/a</text>\n", x,
                    ypix(1, lo, hi) - 6);
            continue;
        }
        double y0 = ypix(s->lo, lo, hi), y1 = ypix(s->hi, lo, hi);
        fprintf(
            f,
            "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1f4e99' stroke-width='2'/>\n"
            "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1f4e99'/>\n"
            "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1f4e99'/>\n"
            "<circle cx='%.1f' cy='%.1f' r='4' fill='#1f4e99'/>\n",
            x, y0, x, y1, x - 6, y0, x + 6, y0, x - 6, y1, x + 6, y1, x, ypix(s->ratio, lo, hi));
    }
}

int lat__lab_shift_svg(const lat_lab_verdict *v, const char *title, double band, const char *path) {
    if (!v || !title || !path || !(band > 1)) return -EINVAL;
    lat_afile *af = NULL;
    int rc = lat_afile_open(path, &af);
    if (rc) return rc;
    FILE *f = lat_afile_stream(af);
    double lo, hi;
    y_range(v, band, &lo, &hi);
    fprintf(f,
            "<?xml version='1.0' encoding='UTF-8'?>\n"
            "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
            "font-family='sans-serif' font-size='11'>\n"
            "<rect width='100%%' height='100%%' fill='white'/>\n"
            "<text x='%d' y='16' font-size='13'>%s</text>\n"
            "<text x='%d' y='30' fill='#555'>work: experiment / baseline, HL estimate and CI; "
            "shaded: no change (x%.2f..x%.2f)</text>\n",
            W, H, W, H, ML, title, ML, 1 / band, band);
    axes(f, lo, hi, band);
    points(f, v, lo, hi);
    fprintf(f, "</svg>\n");
    return lat_afile_commit(af);
}

void lat__lab_shift_md(FILE *f, const lat_lab_verdict *v, const char *svg) {
    fprintf(f,
            "![shift function](%s)\n\n| quantile | ratio | CI | p | rounds |\n"
            "|---|--:|---|--:|--:|\n",
            svg);
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        const lat_lab_shift *s = &v->shift[q];
        if (isfinite(s->ratio))
            fprintf(f, "| %s | x%.3f | [%.3f, %.3f] | %.4f | %u |\n", q_label[q], s->ratio, s->lo,
                    s->hi, s->p, s->rounds);
        else
            fprintf(f, "| %s | n/a | not read | | %u |\n", q_label[q], s->rounds);
    }
    if (isfinite(v->disp_ratio))
        fprintf(f, "\nRound-to-round e2e p99.9 dispersion x%.2f (p = %.4f).\n", v->disp_ratio,
                v->disp_p);
    fprintf(f, "\n");
}
