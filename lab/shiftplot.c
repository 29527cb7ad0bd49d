/* shiftplot.c - the shift function of one verdict (lab_verdict.h) as LAB.md
 * and report.html show it: a small SVG (quantile on x: p50 .. p99.99; the
 * ratio experiment / baseline with its confidence interval as an error bar on
 * a log y axis; a line at 1 and the no-change band shaded) and a Markdown
 * table.  A ratio needs its own axis, so this is a small writer of its own,
 * not report.h's latency plot.  Colours are CSS classes prefixed lat-shift
 * (dark under prefers-color-scheme): the same document reads as a file and
 * inline in a page.  Points not read are marked "n/a", never drawn; an
 * interval without a bound runs dashed to the frame's edge. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
        if (!isfinite(s->ratio) || s->ratio <= 0) continue;
        *lo = fmin(*lo, s->ratio), *hi = fmax(*hi, s->ratio);
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
            "<rect x='%d' y='%.1f' width='%d' height='%.1f' fill='#8fbc8f' fill-opacity='0.25' "
            "class='lat-shift-band'/>\n",
            ML, ypix(band, lo, hi), W - ML - MR, ypix(1 / band, lo, hi) - ypix(band, lo, hi));
    for (size_t i = 0; i < sizeof ticks / sizeof *ticks; i++) {
        if (ticks[i] < lo || ticks[i] > hi) continue;
        double y = ypix(ticks[i], lo, hi);
        fprintf(f,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#999' stroke-width='%s'%s "
                "class='lat-shift-grid'/>\n"
                "<text x='%d' y='%.1f' text-anchor='end'>x%g</text>\n",
                ML, y, W - MR, y, ticks[i] == 1 ? "1.5" : "0.5",
                ticks[i] == 1 ? " stroke-dasharray='6 3'" : "", ML - 4, y + 4, ticks[i]);
    }
    for (int q = 0; q < LAT_LAB_NQ; q++)
        fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'>%s</text>\n", xpix(q), H - MB + 18,
                q_label[q]);
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#666' class='lat-shift-axis'/>\n", ML,
            MT, ML, H - MB);
}

static void points(FILE *f, const lat_lab_verdict *v, double lo, double hi) {
    bool any_open = false;
    for (int q = 0; q < LAT_LAB_NQ; q++) {
        const lat_lab_shift *s = &v->shift[q];
        double x = xpix(q);
        if (!isfinite(s->ratio) || s->ratio <= 0) {
            fprintf(f,
                    "<text x='%.1f' y='%.1f' text-anchor='middle' fill='#999' "
                    "class='lat-shift-na'>n/a</text>\n",
                    x, ypix(1, lo, hi) - 6);
            continue;
        }
        /* an interval without a bound (too few rounds) runs dashed to the frame's edge */
        bool open0 = !(isfinite(s->lo) && s->lo > 0), open1 = !isfinite(s->hi);
        double y0 = open0 ? H - MB : ypix(s->lo, lo, hi), y1 = open1 ? MT : ypix(s->hi, lo, hi);
        any_open |= open0 || open1;
        fprintf(f,
                "<g class='lat-shift-pt'>\n<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                "stroke='#1f4e99' stroke-width='2'%s/>\n",
                x, y0, x, y1, open0 || open1 ? " stroke-dasharray='4 3'" : "");
        for (int e = 0; e < 2; e++)
            if (!(e ? open1 : open0))
                fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1f4e99'/>\n",
                        x - 6, e ? y1 : y0, x + 6, e ? y1 : y0);
        fprintf(f, "<circle cx='%.1f' cy='%.1f' r='4' fill='#1f4e99'/>\n</g>\n", x,
                ypix(s->ratio, lo, hi));
    }
    if (any_open)
        fprintf(f,
                "<text x='%d' y='%d' text-anchor='end' fill='#555' class='lat-shift-note'>dashed: "
                "an interval without a bound (too few rounds)</text>\n",
                W - MR, H - 4);
}

/* The colours, light and (under prefers-color-scheme) dark; every rule is
 * scoped to .lat-shift so an inline copy cannot restyle its page. */
static void style(FILE *f) {
    static const char *const pal[2][7] = {
        {"#1f2328", "#ffffff", "#8fbc8f", "#999", "#666", "#1f4e99", "#888"},
        {"#e6edf3", "#0d1117", "#3fb950", "#6e7681", "#8b949e", "#58a6ff", "#8b949e"}};
    fprintf(f,
            "<style>\n"
            ".lat-shift text{fill:currentColor}.lat-shift .lat-shift-note{opacity:.75}"
            ".lat-shift .lat-shift-band{fill-opacity:.28}.lat-shift .lat-shift-axis{fill:none}\n");
    for (int d = 0; d < 2; d++)
        fprintf(f,
                "%s.lat-shift{color:%s}.lat-shift .lat-shift-bg{fill:%s}"
                ".lat-shift .lat-shift-band{fill:%s}.lat-shift .lat-shift-grid{stroke:%s}"
                ".lat-shift .lat-shift-axis{stroke:%s}.lat-shift .lat-shift-pt line{stroke:%s}"
                ".lat-shift .lat-shift-pt circle{fill:%s}"
                ".lat-shift .lat-shift-na{fill:%s}%s\n",
                d ? "@media (prefers-color-scheme:dark){" : "", pal[d][0], pal[d][1], pal[d][2],
                pal[d][3], pal[d][4], pal[d][5], pal[d][5], pal[d][6], d ? "}" : "");
    fprintf(f, "</style>\n");
}

/* s as XML text (attributes are quoted with '). */
static void put_text(FILE *f, const char *s) {
    for (; *s; s++) {
        const char *e = *s == '<'    ? "&lt;"
                        : *s == '>'  ? "&gt;"
                        : *s == '&'  ? "&amp;"
                        : *s == '\'' ? "&#39;"
                                     : NULL;
        if (e)
            fputs(e, f);
        else
            fputc(*s, f);
    }
}

/* The whole document to f. */
static void write_svg(FILE *f, const lat_lab_verdict *v, const char *title, double band) {
    double lo, hi;
    y_range(v, band, &lo, &hi);
    fprintf(f,
            "<?xml version='1.0' encoding='UTF-8'?>\n"
            "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
            "font-family='sans-serif' font-size='11' class='lat-shift' role='img' aria-label='",
            W, H, W, H);
    put_text(f, title);
    fprintf(f, "'>\n<title>");
    put_text(f, title);
    fprintf(f, "</title>\n");
    style(f);
    fprintf(f,
            "<rect width='100%%' height='100%%' fill='white' class='lat-shift-bg'/>\n"
            "<text x='%d' y='16' font-size='13'>",
            ML);
    put_text(f, title);
    fprintf(f,
            "</text>\n<text x='%d' y='30' fill='#555' class='lat-shift-note'>work: experiment / "
            "baseline, HL estimate and CI; shaded: no change (x%.2f..x%.2f)</text>\n",
            ML, 1 / band, band);
    axes(f, lo, hi, band);
    points(f, v, lo, hi);
    fprintf(f, "</svg>\n");
}

int lat__lab_shift_svg(const lat_lab_verdict *v, const char *title, double band, const char *path) {
    if (!v || !title || !path || !(band > 1)) return -EINVAL;
    lat_afile *af = NULL;
    int rc = lat_afile_open(path, &af);
    if (rc) return rc;
    write_svg(lat_afile_stream(af), v, title, band);
    return lat_afile_commit(af);
}

char *lat__lab_shift_svg_text(const lat_lab_verdict *v, const char *title, double band,
                              size_t *len) {
    if (!v || !title || !len || !(band > 1)) return NULL;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    write_svg(f, v, title, band);
    if (fclose(f) != 0 || !buf) {
        free(buf);
        return NULL;
    }
    return buf;
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
