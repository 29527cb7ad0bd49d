/* plot.c - latency-by-percentile plots rendered as SVG (see report.h).
 *
 * x: t = log10(1/(1 - p)), the HdrHistogram convention, so each decade of t is
 * one more nine (0%, 90%, 99%, 99.9%, ...).  The axis ends at the decade that
 * covers the highest finite percentile in the data (ignoring repeats of a
 * series' final value); when a series has a 100% point (the max) the axis
 * gains a "max" column at the right where those points sit.
 * y: latency, linear from 0 with 1-2-2.5-5 ticks in one unit chosen from the
 * data (ns, us, ms, s), or log with a tick per decade labelled in its own unit.
 * Colours are CSS classes (light rules, dark rules, or dark inside a
 * prefers-color-scheme query) so one file reads on either page theme; text and
 * axes use currentColor so an inline plot follows its page.
 * lat_plot_set_x_linear swaps the percentile axis for a linear one from 0
 * over the points' x values (a rate, a size), ticked as y's linear axis. */
#include "report_int.h"

#include "alloc_internal.h"
#include "latlab/atomicfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct series {
    char *label;
    lat_plot_point *pts;
    size_t n;
    double *lo, *hi; /* optional band: n values each (NULL: none) */
} series;

typedef struct slo {
    char *label;
    double value_ns;
} slo;

struct lat_plot {
    char *title, *note, *y_title;
    int width, height;
    bool log_y;
    lat_theme theme;
    series s[LAT_PLOT_MAX_SERIES];
    size_t ns;
    slo slos[LAT_PLOT_MAX_SLOS];
    size_t nslo;
    char *x_title; /* a linear x axis (NULL: percentile) */
};

/* ---- building ------------------------------------------------------------------ */

int lat_plot_create(const char *title, lat_plot **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    lat_plot *p = lat__calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->width = 800;
    p->height = 500;
    if (title && !(p->title = lat__strdup(title))) {
        lat__free(p);
        return -ENOMEM;
    }
    *out = p;
    return 0;
}

void lat_plot_destroy(lat_plot *p) {
    if (!p) return;
    for (size_t i = 0; i < p->ns; i++) {
        lat__free(p->s[i].label);
        lat__free(p->s[i].pts);
        lat__free(p->s[i].lo);
        lat__free(p->s[i].hi);
    }
    for (size_t i = 0; i < p->nslo; i++)
        lat__free(p->slos[i].label);
    lat__free(p->title);
    lat__free(p->note);
    lat__free(p->y_title);
    lat__free(p->x_title);
    lat__free(p);
}

int lat_plot_add_series(lat_plot *p, const char *label, const lat_plot_point *pts, size_t n) {
    if (!p || (n && !pts)) return -EINVAL;
    if (p->ns >= LAT_PLOT_MAX_SERIES) return -E2BIG;
    for (size_t i = 0; i < n; i++) {
        double q = pts[i].pct, v = pts[i].value_ns;
        if (!(q >= 0 && (q <= 100 || (p->x_title && isfinite(q)))) || !isfinite(v) || v < 0)
            return -EINVAL;
        if (i && q < pts[i - 1].pct) return -EINVAL;
    }
    series s = {0};
    char name[32];
    if (!label) {
        snprintf(name, sizeof name, "series %zu", p->ns + 1);
        label = name;
    }
    s.label = lat__strdup(label);
    if (!s.label) return -ENOMEM;
    if (n) {
        s.pts = lat__calloc(n, sizeof *s.pts);
        if (!s.pts) {
            lat__free(s.label);
            return -ENOMEM;
        }
        memcpy(s.pts, pts, n * sizeof *pts);
    }
    s.n = n;
    p->s[p->ns++] = s;
    return 0;
}

int lat_plot_set_band(lat_plot *p, size_t series_index, const double *lo_ns, const double *hi_ns,
                      size_t n) {
    if (!p || series_index >= p->ns || !lo_ns || !hi_ns) return -EINVAL;
    series *s = &p->s[series_index];
    if (n != s->n || n == 0) return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(lo_ns[i]) || !isfinite(hi_ns[i]) || lo_ns[i] < 0 || hi_ns[i] < lo_ns[i])
            return -EINVAL;
    double *lo = lat__calloc(n, sizeof *lo), *hi = lat__calloc(n, sizeof *hi);
    if (!lo || !hi) {
        lat__free(lo);
        lat__free(hi);
        return -ENOMEM;
    }
    memcpy(lo, lo_ns, n * sizeof *lo);
    memcpy(hi, hi_ns, n * sizeof *hi);
    lat__free(s->lo);
    lat__free(s->hi);
    s->lo = lo;
    s->hi = hi;
    return 0;
}

size_t lat_plot_series_count(const lat_plot *p) {
    return p ? p->ns : 0;
}

/* Short latency text: "250ns", "1.5us", "2ms", "1s". */
static void fmt_latency(char *buf, size_t len, double ns) {
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = 0;
    while (u < 3 && ns >= 1000)
        ns /= 1000, u++;
    snprintf(buf, len, "%.3g%s", ns, units[u]);
}

int lat_plot_add_slo(lat_plot *p, const char *label, double value_ns) {
    if (!p || !isfinite(value_ns) || value_ns <= 0) return -EINVAL;
    if (p->nslo >= LAT_PLOT_MAX_SLOS) return -E2BIG;
    char name[48];
    if (!label) {
        char v[24];
        fmt_latency(v, sizeof v, value_ns);
        snprintf(name, sizeof name, "SLO %s", v);
        label = name;
    }
    char *l = lat__strdup(label);
    if (!l) return -ENOMEM;
    p->slos[p->nslo].label = l;
    p->slos[p->nslo].value_ns = value_ns;
    p->nslo++;
    return 0;
}

int lat_plot_set_log_y(lat_plot *p, bool log_y) {
    if (!p) return -EINVAL;
    p->log_y = log_y;
    return 0;
}

int lat_plot_set_theme(lat_plot *p, lat_theme theme) {
    if (!p || (theme != LAT_THEME_AUTO && theme != LAT_THEME_LIGHT && theme != LAT_THEME_DARK))
        return -EINVAL;
    p->theme = theme;
    return 0;
}

int lat_plot_set_size(lat_plot *p, int width_px, int height_px) {
    if (!p || width_px < 320 || width_px > 4000 || height_px < 200 || height_px > 4000)
        return -EINVAL;
    p->width = width_px;
    p->height = height_px;
    return 0;
}

static int set_str(char **dst, const char *src) {
    char *c = NULL;
    if (src && !(c = lat__strdup(src))) return -ENOMEM;
    lat__free(*dst);
    *dst = c;
    return 0;
}

int lat_plot_set_note(lat_plot *p, const char *note) {
    return p ? set_str(&p->note, note) : -EINVAL;
}

int lat_plot_set_y_title(lat_plot *p, const char *quantity) {
    return p ? set_str(&p->y_title, quantity) : -EINVAL;
}

int lat_plot_set_x_linear(lat_plot *p, const char *title) {
    return p && title && *title && !p->ns ? set_str(&p->x_title, title) : -EINVAL;
}

/* ---- theme -------------------------------------------------------------------- */

#define NPALETTE 8
typedef struct palette {
    const char *bg, *fg, *grid, *frame;
    const char *series[NPALETTE];
} palette;

/* Okabe-Ito-like hues (distinguishable with common colour-vision
 * deficiencies), darker for a light page and lighter for a dark one. */
static const palette light = {
    "#ffffff",
    "#1f2328",
    "#d8dee4",
    "#8c959f",
    {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#b8860b", "#4aa3df", "#6a3d9a", "#8c564b"}};
static const palette dark = {
    "#0d1117",
    "#e6edf3",
    "#30363d",
    "#6e7681",
    {"#58a6ff", "#ff8c5a", "#3fd19a", "#e39bc9", "#f2c14e", "#8fd3ff", "#c5a3ff", "#d7a98c"}};

static void css_colors(lat__sbuf *b, const char *scope, const palette *c) {
    lat__sb_printf(b, "%s.lat-plot{color:%s}", scope, c->fg);
    lat__sb_printf(b, "%s.lat-plot .lat-bg{fill:%s}", scope, c->bg);
    lat__sb_printf(b, "%s.lat-plot .lat-grid{stroke:%s}", scope, c->grid);
    lat__sb_printf(b, "%s.lat-plot .lat-frame{stroke:%s}", scope, c->frame);
    lat__sb_printf(b, "%s.lat-plot .lat-legend-box{fill:%s;stroke:%s}", scope, c->bg, c->grid);
    for (int i = 0; i < NPALETTE; i++) {
        lat__sb_printf(b, "%s.lat-plot .lat-c%d{stroke:%s}", scope, i, c->series[i]);
        lat__sb_printf(b, "%s.lat-plot .lat-m%d{fill:%s}", scope, i, c->series[i]);
    }
    lat__sb_puts(b, "\n");
}

void lat__plot_css(lat__sbuf *b, lat_theme theme) {
    lat__sb_puts(b, ".lat-plot{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu "
                    "Sans',Arial,sans-serif;font-size:13px}\n"
                    ".lat-plot text{fill:currentColor}\n"
                    ".lat-plot .lat-title{font-size:16px;font-weight:600}\n"
                    ".lat-plot .lat-note{font-size:12px;opacity:.8}\n"
                    ".lat-plot .lat-empty{font-size:15px;opacity:.8}\n"
                    ".lat-plot .lat-axis{stroke:currentColor;stroke-width:1}\n"
                    ".lat-plot .lat-grid{stroke-width:1}\n"
                    ".lat-plot .lat-frame{fill:none;stroke-width:1}\n"
                    ".lat-plot .lat-series{fill:none;stroke-width:2;stroke-linejoin:round;"
                    "stroke-linecap:round}\n"
                    ".lat-plot .lat-dash{stroke-dasharray:7 4}\n"
                    ".lat-plot .lat-band{stroke:none;fill-opacity:.18}\n"
                    ".lat-plot .lat-slo{stroke:currentColor;stroke-width:1.5;"
                    "stroke-dasharray:5 4;opacity:.75}\n");
    if (theme == LAT_THEME_DARK) {
        css_colors(b, "", &dark);
        return;
    }
    css_colors(b, "", &light);
    if (theme == LAT_THEME_AUTO) {
        lat__sb_puts(b, "@media (prefers-color-scheme:dark){\n");
        css_colors(b, "", &dark);
        lat__sb_puts(b, "}\n");
    }
}

/* ---- axes ---------------------------------------------------------------------- */

#define MAX_T 9.0 /* 99.9999999%: beyond that a double percentile means nothing */

static double pct_to_t(double pct) {
    if (pct >= 100) return INFINITY;
    double t = -log10(1 - pct / 100);
    return t < 0 ? 0 : t;
}

/* "0%", "90%", "99%", "99.9%", ... for decade k. */
static void decade_label(char *buf, size_t len, int k) {
    if (k == 0) {
        snprintf(buf, len, "0%%");
    } else if (k == 1) {
        snprintf(buf, len, "90%%");
    } else {
        char nines[16] = {0};
        for (int i = 0; i < k - 2 && i < 14; i++)
            nines[i] = '9';
        snprintf(buf, len, "99%s%s%%", k > 2 ? "." : "", nines);
    }
}

typedef struct yaxis {
    bool log;
    double lo, hi;    /* axis range in ns (log: powers of ten) */
    double div;       /* ns per display unit (linear) */
    const char *unit; /* display unit (linear) */
    double step;      /* tick step in display units (linear) */
    int decimals;     /* tick label decimals (linear) */
} yaxis;

static double nice_step(double raw) {
    if (!(raw > 0)) return 1;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double s = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return s * mag;
}

static void linear_axis(yaxis *y, double vmax_ns) {
    static const struct {
        double div;
        const char *name;
    } units[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
    int u = 0;
    while (u < 3 && vmax_ns >= units[u + 1].div)
        u++;
    y->div = units[u].div;
    y->unit = units[u].name;
    double m = vmax_ns / y->div;
    if (!(m > 0)) m = 1;
    y->step = nice_step(m / 5);
    /* 5% headroom so a flat series is not drawn on the frame's top edge */
    double top = ceil(m * 1.05 / y->step - 1e-9) * y->step;
    if (top < m) top += y->step;
    y->lo = 0;
    y->hi = top * y->div;
    y->decimals = 0;
    while (y->decimals < 6) {
        double s = y->step * pow(10, y->decimals);
        if (fabs(s - round(s)) < 1e-6 * s) break;
        y->decimals++;
    }
}

static void log_axis(yaxis *y, double vmin_pos, double vmax) {
    if (!(vmax > 0)) vmax = 1000;
    if (!(vmin_pos > 0) || vmin_pos > vmax) vmin_pos = vmax;
    double lo = floor(log10(vmin_pos) + 1e-9), hi = ceil(log10(vmax * 1.1));
    if (hi <= lo) hi = lo + 1;
    if (hi - lo > 24) lo = hi - 24; /* tinier values sit on the bottom edge */
    y->lo = pow(10, lo);
    y->hi = pow(10, hi);
}

/* ---- rendering ------------------------------------------------------------------ */

typedef struct frame {
    double x0, x1, y0, y1; /* plot area: left, right, top, bottom */
    double tmax;           /* t at the right edge */
    double tmaxcol;        /* t where 100% points sit (== tmax when no max column) */
    double xstep;          /* a linear x axis (x_title): its tick step; tmax is its top */
    yaxis y;
} frame;

static double map_x(const frame *f, double pct) {
    double t = f->xstep > 0 ? pct : pct_to_t(pct);
    if (t > f->tmaxcol) t = f->tmaxcol;
    return f->x0 + (f->x1 - f->x0) * t / f->tmax;
}

static double map_y(const frame *f, double ns) {
    double r;
    if (f->y.log) {
        double v = ns < f->y.lo ? f->y.lo : ns;
        r = (log10(v) - log10(f->y.lo)) / (log10(f->y.hi) - log10(f->y.lo));
    } else {
        r = (ns - f->y.lo) / (f->y.hi - f->y.lo);
    }
    if (r < 0) r = 0;
    if (r > 1) r = 1;
    return f->y1 - (f->y1 - f->y0) * r;
}

static void text(lat__sbuf *b, double x, double y, const char *cls, const char *anchor,
                 const char *s) {
    lat__sb_printf(b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\"", cls, x, y);
    if (anchor) lat__sb_printf(b, " text-anchor=\"%s\"", anchor);
    lat__sb_puts(b, ">");
    lat__sb_escape(b, s);
    lat__sb_puts(b, "</text>\n");
}

static void hline(lat__sbuf *b, const char *cls, double x0, double x1, double y) {
    lat__sb_printf(b, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", cls,
                   x0, y, x1, y);
}

static void vline(lat__sbuf *b, const char *cls, double x, double y0, double y1) {
    lat__sb_printf(b, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", cls,
                   x, y0, x, y1);
}

static void series_class(char *buf, size_t len, size_t i) {
    snprintf(buf, len, "lat-c%zu%s", i % NPALETTE, i >= NPALETTE ? " lat-dash" : "");
}

/* How much of the drawing a legend box at (x, y, w, h) would cover: points
 * sampled every ~3 px along each series' line, plus SLO lines crossing it. */
static long legend_hits(const lat_plot *p, const frame *f, double x, double y, double w, double h) {
    const double m = 4; /* keep a small gap around lines */
    long hits = 0;
    for (size_t i = 0; i < p->ns; i++) {
        const series *s = &p->s[i];
        for (size_t j = 0; j < s->n; j++) {
            double x1 = map_x(f, s->pts[j].pct), y1 = map_y(f, s->pts[j].value_ns);
            double x0 = j ? map_x(f, s->pts[j - 1].pct) : x1;
            double y0 = j ? map_y(f, s->pts[j - 1].value_ns) : y1;
            double len = fabs(x1 - x0) + fabs(y1 - y0);
            int steps = (int)(len / 3) + 1;
            if (steps > 2000) steps = 2000;
            for (int k = 0; k <= steps; k++) {
                double px = x0 + (x1 - x0) * k / steps, py = y0 + (y1 - y0) * k / steps;
                if (px >= x - m && px <= x + w + m && py >= y - m && py <= y + h + m) hits++;
            }
        }
    }
    for (size_t i = 0; i < p->nslo; i++) {
        double sy = map_y(f, p->slos[i].value_ns);
        if (sy >= y - m && sy <= y + h + m) hits += (long)(w / 3);
    }
    return hits;
}

/* Where everything goes: the frame and what the data need of it. */
typedef struct layout {
    frame f;
    int decades;
    bool any_points, any_max;
    size_t empty;
} layout;

static void plot_layout(const lat_plot *p, layout *L) {
    const double W = p->width, H = p->height;
    /* Data range. */
    double pmax_finite = -1, vmax = 0, vmin_pos = INFINITY;
    bool any_points = false, any_max = false;
    size_t empty = 0;
    frame f;
    for (size_t i = 0; i < p->ns; i++) {
        const series *s = &p->s[i];
        if (!s->n) empty++;
        /* Percentile iterators keep ticking after the last count (each later
         * row repeats the max), so the x range ends where a series first
         * reaches its final value; any later points sit at the right edge. */
        bool reached = false;
        for (size_t j = 0; j < s->n; j++) {
            any_points = true;
            double q = s->pts[j].pct, v = s->pts[j].value_ns;
            if (p->x_title)
                pmax_finite = q > pmax_finite ? q : pmax_finite;
            else if (q >= 100)
                any_max = true;
            else if (!reached && q > pmax_finite)
                pmax_finite = q;
            if (v >= s->pts[s->n - 1].value_ns) reached = true;
            if (v > vmax) vmax = v;
            if (s->hi && s->hi[j] > vmax) vmax = s->hi[j];
            if (v > 0 && v < vmin_pos) vmin_pos = v;
        }
    }
    for (size_t i = 0; i < p->nslo; i++) {
        double v = p->slos[i].value_ns;
        if (v > vmax) vmax = v;
        if (v < vmin_pos) vmin_pos = v;
    }

    memset(&f, 0, sizeof f);
    double tdata = pmax_finite >= 0 ? pct_to_t(pmax_finite) : 0;
    if (tdata > MAX_T - 1) tdata = MAX_T - 1;
    /* Whole decades covering the data; a point a little past a decade line
     * (5.05 for 99.9991%) shares the edge rather than opening a new decade. */
    int decades = (int)ceil(tdata - 0.1);
    if (decades < 1) decades = 1;
    if (!any_points) decades = 3; /* an empty plot shows the usual 0%..99.9% frame */
    double top = 16;
    if (p->title) top += 24;
    if (p->note) top += 18;
    f.x0 = 78;
    f.x1 = W - 28;
    f.y0 = top;
    f.y1 = H - 58;
    /* The max column is half a decade, but at least 64 px wide for its label. */
    double col = 64.0 * decades / (f.x1 - f.x0 - 64);
    f.tmaxcol = decades + (any_max ? (col > 0.5 ? col : 0.5) : 0);
    f.tmax = f.tmaxcol;
    if (p->x_title) { /* from 0 to a whole step past the highest x, 5% headroom */
        double xmax = pmax_finite > 0 ? pmax_finite : 1;
        f.xstep = nice_step(xmax / 5);
        f.tmax = f.tmaxcol = ceil(xmax * 1.05 / f.xstep - 1e-9) * f.xstep;
        decades = (int)lround(f.tmax / f.xstep);
    }
    f.y.log = p->log_y;
    if (f.y.log)
        log_axis(&f.y, vmin_pos, vmax);
    else
        linear_axis(&f.y, vmax > 0 ? vmax : 1000);

    L->f = f;
    L->decades = decades;
    L->any_points = any_points;
    L->any_max = any_max;
    L->empty = empty;
}

static void render_head(const lat_plot *p, lat__sbuf *b, bool standalone, lat_theme theme) {
    const double W = p->width;
    /* Document. */
    if (standalone) lat__sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    const char *tcls = theme == LAT_THEME_DARK    ? "lat-dark"
                       : theme == LAT_THEME_LIGHT ? "lat-light"
                                                  : "lat-auto";
    lat__sb_printf(b,
                   "<svg%s class=\"lat-plot %s\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" role=\"img\"",
                   standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", tcls, p->width,
                   p->height, p->width, p->height);
    if (p->title) {
        lat__sb_puts(b, " aria-label=\"");
        lat__sb_escape(b, p->title);
        lat__sb_puts(b, "\"");
    }
    lat__sb_puts(b, ">\n");
    if (p->title) {
        lat__sb_puts(b, "<title>");
        lat__sb_escape(b, p->title);
        lat__sb_puts(b, "</title>\n");
    }
    if (standalone) {
        lat__sb_puts(b, "<style>\n");
        lat__plot_css(b, theme);
        lat__sb_puts(b, "</style>\n");
    }
    lat__sb_printf(b, "<rect class=\"lat-bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n",
                   p->width, p->height);
    double ty = 8;
    if (p->title) {
        ty += 18;
        text(b, W / 2, ty, "lat-title", "middle", p->title);
    }
    if (p->note) {
        ty += 18;
        text(b, W / 2, ty, "lat-note", "middle", p->note);
    }
}

static void render_axes(const lat_plot *p, lat__sbuf *b, const layout *L) {
    const frame f = L->f;
    int decades = L->decades;
    bool any_max = L->any_max;
    char buf[96];
    /* Grid and tick labels. */
    lat__sb_puts(b, "<g class=\"lat-xaxis\">\n");
    for (int k = 0; k <= decades; k++) { /* a linear axis: its ticks, "20k" for 20000 */
        double x = f.xstep > 0 ? map_x(&f, k * f.xstep) : f.x0 + (f.x1 - f.x0) * k / f.tmax;
        vline(b, "lat-grid", x, f.y0, f.y1);
        if (f.xstep >= 1000)
            snprintf(buf, sizeof buf, "%gk", k * f.xstep / 1000);
        else if (f.xstep > 0)
            snprintf(buf, sizeof buf, "%g", k * f.xstep);
        else
            decade_label(buf, sizeof buf, k);
        text(b, x, f.y1 + 18, "lat-xtick", "middle", buf);
    }
    if (any_max) {
        vline(b, "lat-grid", f.x1, f.y0, f.y1);
        text(b, f.x1, f.y1 + 18, "lat-xtick", "middle", "max");
    }
    text(b, (f.x0 + f.x1) / 2, f.y1 + 42, "lat-xtitle", "middle",
         p->x_title ? p->x_title : "percentile");
    lat__sb_puts(b, "</g>\n<g class=\"lat-yaxis\">\n");
    if (f.y.log) {
        int d0 = (int)lround(log10(f.y.lo)), d1 = (int)lround(log10(f.y.hi));
        bool minor = d1 - d0 <= 2; /* few decades: label 2x and 5x too */
        for (int d = d0; d <= d1; d++) {
            static const double mult[] = {1, 2, 5};
            for (int m = 0; m < (minor && d < d1 ? 3 : 1); m++) {
                double v = mult[m] * pow(10, d);
                double y = map_y(&f, v);
                hline(b, "lat-grid", f.x0, f.x1, y);
                fmt_latency(buf, sizeof buf, v);
                text(b, f.x0 - 8, y + 4, "lat-ytick", "end", buf);
            }
        }
    } else {
        double top_u = f.y.hi / f.y.div;
        long nt = lround(top_u / f.y.step);
        for (long i = 0; i <= nt; i++) {
            double v = (double)i * f.y.step;
            double y = map_y(&f, v * f.y.div);
            hline(b, "lat-grid", f.x0, f.x1, y);
            snprintf(buf, sizeof buf, "%.*f", f.y.decimals, v);
            text(b, f.x0 - 8, y + 4, "lat-ytick", "end", buf);
        }
    }
    const char *q = p->y_title ? p->y_title : "latency";
    if (f.y.log)
        snprintf(buf, sizeof buf, "%.60s (log scale)", q);
    else
        snprintf(buf, sizeof buf, "%.60s (%s)", q, f.y.unit);
    double cy = (f.y0 + f.y1) / 2;
    lat__sb_printf(b,
                   "<text class=\"lat-ytitle\" x=\"18\" y=\"%.1f\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 18 %.1f)\">",
                   cy, cy);
    lat__sb_escape(b, buf);
    lat__sb_puts(b, "</text>\n</g>\n");
    lat__sb_printf(b,
                   "<rect class=\"lat-frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\"/>\n",
                   f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0);
}

static void render_data(const lat_plot *p, lat__sbuf *b, const frame *fp) {
    const frame f = *fp;
    char cls[32];
    /* SLO lines, labelled at the right end above the line. */
    for (size_t i = 0; i < p->nslo; i++) {
        double y = map_y(&f, p->slos[i].value_ns);
        lat__sb_printf(b, "<g class=\"lat-slo-line\" data-value-ns=\"%.17g\">\n",
                       p->slos[i].value_ns);
        hline(b, "lat-slo", f.x0, f.x1, y);
        text(b, f.x1 - 6, y - 5, "lat-slo-label", "end", p->slos[i].label);
        lat__sb_puts(b, "</g>\n");
    }

    /* Confidence bands under the lines: along the upper ends, back along
     * the lower ones. */
    for (size_t i = 0; i < p->ns; i++) {
        const series *s = &p->s[i];
        if (!s->lo || s->n < 2) continue;
        lat__sb_printf(b, "<polygon class=\"lat-band lat-m%zu\" data-label=\"", i % NPALETTE);
        lat__sb_escape(b, s->label);
        lat__sb_puts(b, "\" points=\"");
        for (size_t j = 0; j < s->n; j++)
            lat__sb_printf(b, "%s%.1f,%.1f", j ? " " : "", map_x(&f, s->pts[j].pct),
                           map_y(&f, s->hi[j]));
        for (size_t j = s->n; j-- > 0;)
            lat__sb_printf(b, " %.1f,%.1f", map_x(&f, s->pts[j].pct), map_y(&f, s->lo[j]));
        lat__sb_puts(b, "\"/>\n");
    }

    /* Series: one path each, points in order of percentile. */
    for (size_t i = 0; i < p->ns; i++) {
        const series *s = &p->s[i];
        series_class(cls, sizeof cls, i);
        lat__sb_printf(b, "<path class=\"lat-series %s\" data-label=\"", cls);
        lat__sb_escape(b, s->label);
        lat__sb_printf(b, "\" data-points=\"%zu\" d=\"", s->n);
        for (size_t j = 0; j < s->n; j++)
            lat__sb_printf(b, "%s%.1f,%.1f", j ? " L" : "M", map_x(&f, s->pts[j].pct),
                           map_y(&f, s->pts[j].value_ns));
        lat__sb_puts(b, "\"/>\n");
        /* A lone point draws no line: mark it; on a linear x axis each
         * point is a run of its own: mark them all. */
        for (size_t j = 0; f.xstep > 0 && j + 1 < s->n; j++)
            lat__sb_printf(
                b, "<circle class=\"lat-marker lat-m%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n",
                i % NPALETTE, map_x(&f, s->pts[j].pct), map_y(&f, s->pts[j].value_ns));
        if (f.xstep > 0 || s->n == 1 ||
            (s->n > 1 && map_x(&f, s->pts[0].pct) == map_x(&f, s->pts[s->n - 1].pct)))
            lat__sb_printf(b,
                           "<circle class=\"lat-marker lat-m%zu\" cx=\"%.1f\" cy=\"%.1f\" "
                           "r=\"3.5\"/>\n",
                           i % NPALETTE, map_x(&f, s->pts[s->n - 1].pct),
                           map_y(&f, s->pts[s->n - 1].value_ns));
    }
}

static void render_legend(const lat_plot *p, lat__sbuf *b, const layout *L) {
    const frame f = L->f;
    size_t empty = L->empty;
    char cls[32];
    /* Legend: top-left inside the plot area, where percentile plots are
     * usually empty (tails rise on the right); if data or an SLO line would
     * run under it, the corner that covers the least of them. */
    if (p->ns) {
        double row = 19, lw = 0, lh = row * (double)p->ns + 8;
        for (size_t i = 0; i < p->ns; i++) {
            size_t len = strlen(p->s[i].label) + (p->s[i].n ? 0 : 13);
            double w = 44 + 7.2 * (double)(len > 60 ? 60 : len);
            if (w > lw) lw = w;
        }
        if (lw > f.x1 - f.x0 - 20) lw = f.x1 - f.x0 - 20;
        double bottom = f.y1 - 10 - lh - (empty ? 22 : 0);
        const double corners[4][2] = {{f.x0 + 10, f.y0 + 10},
                                      {f.x1 - 10 - lw, f.y0 + 10},
                                      {f.x1 - 10 - lw, bottom},
                                      {f.x0 + 10, bottom}};
        double lx = corners[0][0], ly = corners[0][1];
        long best = -1;
        for (int k = 0; k < 4 && best != 0; k++) {
            long hits = legend_hits(p, &f, corners[k][0], corners[k][1], lw, lh);
            if (best < 0 || hits < best) {
                best = hits;
                lx = corners[k][0];
                ly = corners[k][1];
            }
        }
        lat__sb_printf(b,
                       "<g class=\"lat-legend\">\n<rect class=\"lat-legend-box\" x=\"%.1f\" "
                       "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" opacity=\"0.9\"/>\n",
                       lx, ly, lw, lh);
        for (size_t i = 0; i < p->ns; i++) {
            double y = ly + 4 + row * ((double)i + 0.5);
            series_class(cls, sizeof cls, i);
            lat__sb_printf(b,
                           "<line class=\"lat-series %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\"/>\n",
                           cls, lx + 8, y, lx + 32, y);
            lat__sb_printf(b, "<text class=\"lat-legend-label\" x=\"%.1f\" y=\"%.1f\">", lx + 38,
                           y + 4.5);
            lat__sb_escape(b, p->s[i].label);
            if (!p->s[i].n) lat__sb_puts(b, " (no samples)");
            lat__sb_puts(b, "</text>\n");
        }
        lat__sb_puts(b, "</g>\n");
    }
}

void lat__plot_render(const lat_plot *p, lat__sbuf *b, bool standalone, lat_theme theme) {
    layout L;
    plot_layout(p, &L);
    const frame f = L.f;
    size_t empty = L.empty;
    bool any_points = L.any_points;
    double cy = (f.y0 + f.y1) / 2;
    char buf[96];
    render_head(p, b, standalone, theme);
    render_axes(p, b, &L);
    render_data(p, b, &L.f);
    render_legend(p, b, &L);
    /* A visible note instead of an empty frame. */
    if (!any_points) {
        text(b, (f.x0 + f.x1) / 2, cy, "lat-empty", "middle",
             p->ns ? "no samples to plot" : "no series to plot");
    } else if (empty) {
        snprintf(buf, sizeof buf, "%zu of %zu series %s no samples", empty, p->ns,
                 empty == 1 ? "has" : "have");
        text(b, (f.x0 + f.x1) / 2, f.y1 - 10, "lat-empty", "middle", buf);
    }
    lat__sb_puts(b, "</svg>\n");
}

static int render(const lat_plot *p, lat__sbuf *b) {
    lat__sb_init(b);
    lat__plot_render(p, b, true, p->theme);
    if (b->err) {
        int e = b->err;
        lat__sb_release(b);
        return e;
    }
    return 0;
}

int lat_plot_write_svg(const lat_plot *p, FILE *f) {
    if (!p || !f) return -EINVAL;
    lat__sbuf b;
    int rc = render(p, &b);
    if (rc) return rc;
    errno = 0;
    if (fwrite(lat__sb_str(&b), 1, b.len, f) != b.len) rc = errno > 0 ? -errno : -EIO;
    lat__sb_release(&b);
    return rc;
}

int lat_plot_save_svg(const lat_plot *p, const char *path) {
    if (!p || !path) return -EINVAL;
    lat__sbuf b;
    int rc = render(p, &b);
    if (rc) return rc;
    rc = lat_write_file_atomic(path, lat__sb_str(&b), b.len);
    lat__sb_release(&b);
    return rc;
}
