/* html.c - one self-contained HTML page per report (see report.h).
 *
 * The body is built in memory as items are added (plots are rendered to inline
 * SVG at once) and written with the head and CSS in one atomic write.  The
 * page uses no script, no web font and no external URL, so it opens from a
 * file path on a machine without network.  Colours follow the viewer's
 * prefers-color-scheme unless the report forces a theme. */
#include "report_int.h"

#include "alloc_internal.h"
#include "latlab/atomicfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum open_block { OPEN_NONE, OPEN_KV, OPEN_TABLE };

struct lat_report {
    char *title;
    lat_theme theme;
    lat__sbuf body;
    int open; /* enum open_block */
    size_t ncols;
    int err; /* first error of an add call */
};

int lat_report_create(const char *title, lat_report **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    if (!title) return -EINVAL;
    lat_report *r = lat__calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    lat__sb_init(&r->body);
    if (!(r->title = lat__strdup(title))) {
        lat__free(r);
        return -ENOMEM;
    }
    *out = r;
    return 0;
}

void lat_report_destroy(lat_report *r) {
    if (!r) return;
    lat__sb_release(&r->body);
    lat__free(r->title);
    lat__free(r);
}

int lat_report_set_theme(lat_report *r, lat_theme theme) {
    if (!r || (theme != LAT_THEME_AUTO && theme != LAT_THEME_LIGHT && theme != LAT_THEME_DARK))
        return -EINVAL;
    r->theme = theme;
    return 0;
}

/* Close an open key/value block or table before another kind of item. */
/* open, text escaped, close: one element's markup. */
static void put_escaped(lat__sbuf *b, const char *open, const char *text, const char *close) {
    lat__sb_puts(b, open);
    lat__sb_escape(b, text);
    lat__sb_puts(b, close);
}

static void close_open(lat_report *r) {
    if (r->open == OPEN_KV)
        lat__sb_puts(&r->body, "</dl>\n");
    else if (r->open == OPEN_TABLE)
        lat__sb_puts(&r->body, "</tbody></table></div>\n");
    r->open = OPEN_NONE;
}

/* Common tail of each add call: remember and return the buffer's error. */
static int done(lat_report *r) {
    if (r->body.err && !r->err) r->err = r->body.err;
    return r->body.err;
}

int lat_report_section(lat_report *r, const char *heading) {
    if (!r || !heading) return -EINVAL;
    close_open(r);
    put_escaped(&r->body, "<h2>", heading, "</h2>\n");
    return done(r);
}

int lat_report_text(lat_report *r, const char *text) {
    if (!r || !text) return -EINVAL;
    close_open(r);
    put_escaped(&r->body, "<p>", text, "</p>\n");
    return done(r);
}

int lat_report_kv(lat_report *r, const char *key, const char *value) {
    if (!r || !key) return -EINVAL;
    if (r->open != OPEN_KV) {
        close_open(r);
        lat__sb_puts(&r->body, "<dl class=\"kv\">\n");
        r->open = OPEN_KV;
    }
    put_escaped(&r->body, "<dt>", key, "</dt><dd>");
    lat__sb_escape(&r->body, value ? value : "");
    lat__sb_puts(&r->body, "</dd>\n");
    return done(r);
}

/* A cell that reads as a number or a figure with a unit ("12.5", "-3%",
 * "340ns", "1.2e6", "2.60x") is right-aligned so columns of figures line up. */
static bool numeric(const char *s) {
    if (!s) return false;
    while (*s == ' ')
        s++;
    if (*s == '+' || *s == '-') s++;
    if (!((*s >= '0' && *s <= '9') || *s == '.')) return false; /* not "inf", "nan", "info" */
    char *end;
    strtod(s, &end);
    if (end == s) return false;
    while (*end == ' ')
        end++;
    /* allow a short unit suffix */
    size_t n = strlen(end);
    if (n > 4) return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("%xnsumop/", end[i]) && !(end[i] & 0x80)) return false;
    return true;
}

int lat_report_table_begin(lat_report *r, const char *caption, size_t ncols,
                           const char *const *header) {
    if (!r || !header || ncols < 1 || ncols > 64) return -EINVAL;
    close_open(r);
    lat__sb_puts(&r->body, "<div class=\"tw\"><table>\n");
    if (caption) {
        put_escaped(&r->body, "<caption>", caption, "</caption>\n");
    }
    lat__sb_puts(&r->body, "<thead><tr>");
    for (size_t i = 0; i < ncols; i++) {
        put_escaped(&r->body, "<th>", header[i] ? header[i] : "", "</th>");
    }
    lat__sb_puts(&r->body, "</tr></thead>\n<tbody>\n");
    r->open = OPEN_TABLE;
    r->ncols = ncols;
    return done(r);
}

int lat_report_table_row(lat_report *r, const char *const *cells) {
    if (!r || !cells || r->open != OPEN_TABLE) return -EINVAL;
    lat__sb_puts(&r->body, "<tr>");
    for (size_t i = 0; i < r->ncols; i++) {
        put_escaped(&r->body, numeric(cells[i]) ? "<td class=\"n\">" : "<td>",
                    cells[i] ? cells[i] : "", "</td>");
    }
    lat__sb_puts(&r->body, "</tr>\n");
    return done(r);
}

int lat_report_plot(lat_report *r, const lat_plot *p) {
    if (!r || !p) return -EINVAL;
    close_open(r);
    lat__sb_puts(&r->body, "<figure class=\"plot\">\n");
    lat__plot_render(p, &r->body, false, r->theme);
    lat__sb_puts(&r->body, "</figure>\n");
    return done(r);
}

int lat_report_svg(lat_report *r, const char *caption, const char *svg, size_t len) {
    if (!r || !svg) return -EINVAL;
    if (len >= 5 && !memcmp(svg, "<?xml", 5)) {
        const char *e = memchr(svg, '>', len);
        if (!e) return -EINVAL;
        len -= (size_t)(e + 1 - svg);
        svg = e + 1;
    }
    while (len && (*svg == '\n' || *svg == ' ' || *svg == '\r' || *svg == '\t'))
        svg++, len--;
    if (len < 4 || memcmp(svg, "<svg", 4)) return -EINVAL;
    close_open(r);
    lat__sb_puts(&r->body, "<figure class=\"plot\">\n");
    if (caption) {
        put_escaped(&r->body, "<figcaption>", caption, "</figcaption>\n");
    }
    lat__sb_putn(&r->body, svg, len);
    lat__sb_puts(&r->body, "</figure>\n");
    return done(r);
}

int lat_report_verdict(lat_report *r, lat_verdict kind, const char *text) {
    static const char *const names[] = {"INFO", "PASS", "WARN", "FAIL"};
    static const char *const cls[] = {"info", "pass", "warn", "fail"};
    if (!r || !text || (int)kind < 0 || (int)kind > 3) return -EINVAL;
    close_open(r);
    lat__sb_printf(&r->body, "<p class=\"verdict %s\"><span class=\"badge\">%s</span> ", cls[kind],
                   names[kind]);
    lat__sb_escape(&r->body, text);
    lat__sb_puts(&r->body, "</p>\n");
    return done(r);
}

int lat_report_pre(lat_report *r, const char *caption, const char *text) {
    if (!r || !text) return -EINVAL;
    close_open(r);
    lat__sb_puts(&r->body, "<figure class=\"pre\">");
    if (caption) {
        put_escaped(&r->body, "<figcaption>", caption, "</figcaption>");
    }
    put_escaped(&r->body, "<pre>", text, "</pre></figure>\n");
    return done(r);
}

/* Page colours: light, dark, and the media query for auto. */
static void page_colors(lat__sbuf *b, bool dark) {
    if (dark)
        lat__sb_puts(b, "body{background:#0d1117;color:#e6edf3}"
                        "th,td,caption{border-color:#30363d}thead th{background:#161b22}"
                        "tbody tr:nth-child(even){background:#11161d}"
                        "pre{background:#161b22;border-color:#30363d}dt{color:#9da7b3}"
                        ".pass .badge{background:#238636}.fail .badge{background:#da3633}"
                        ".warn .badge{background:#9e6a03}.info .badge{background:#1f6feb}\n");
    else
        lat__sb_puts(b, "body{background:#ffffff;color:#1f2328}"
                        "th,td,caption{border-color:#d0d7de}thead th{background:#f6f8fa}"
                        "tbody tr:nth-child(even){background:#f9fafb}"
                        "pre{background:#f6f8fa;border-color:#d0d7de}dt{color:#57606a}"
                        ".pass .badge{background:#1a7f37}.fail .badge{background:#cf222e}"
                        ".warn .badge{background:#9a6700}.info .badge{background:#0969da}\n");
}

int lat_report_write(const lat_report *r, const char *path) {
    if (!r || !path) return -EINVAL;
    if (r->err) return r->err;
    lat__sbuf b;
    lat__sb_init(&b);
    lat__sb_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    if (r->theme == LAT_THEME_AUTO)
        lat__sb_puts(&b, "<meta name=\"color-scheme\" content=\"light dark\">\n");
    lat__sb_puts(&b, "<title>");
    lat__sb_escape(&b, r->title);
    lat__sb_puts(&b, "</title>\n<style>\n");
    lat__sb_puts(&b, "body{margin:0 auto;max-width:1040px;padding:24px;font:15px/1.5 system-ui,"
                     "-apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif}\n"
                     "h1{font-size:26px;margin:0 0 12px}h2{font-size:20px;margin:28px 0 8px}\n"
                     ".tw{overflow-x:auto;margin:10px 0 18px}\n"
                     "table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
                     "caption{text-align:left;font-weight:600;padding:4px 0;border:0}\n"
                     "th,td{border:1px solid;padding:4px 10px;text-align:left;vertical-align:top}\n"
                     "th,td.n{white-space:nowrap}td{min-width:2em}\n"
                     "td.n{text-align:right}\n"
                     "dl.kv{display:grid;grid-template-columns:max-content auto;gap:2px 16px;"
                     "margin:8px 0 18px}\n"
                     "dl.kv dt,dl.kv dd{margin:0}\n"
                     "figure{margin:12px 0 20px}figcaption{font-weight:600;margin-bottom:4px}\n"
                     "figure.plot svg{display:block;max-width:100%;height:auto}\n"
                     "pre{border:1px solid;border-radius:6px;padding:10px;overflow-x:auto;"
                     "font:12.5px/1.4 ui-monospace,'DejaVu Sans Mono',monospace;margin:0}\n"
                     ".verdict{margin:6px 0}.badge{display:inline-block;min-width:3.2em;"
                     "text-align:center;color:#fff;border-radius:4px;padding:0 6px;font-weight:700;"
                     "font-size:13px;margin-right:6px}\n");
    page_colors(&b, r->theme == LAT_THEME_DARK);
    if (r->theme == LAT_THEME_AUTO) {
        lat__sb_puts(&b, "@media (prefers-color-scheme:dark){\n");
        page_colors(&b, true);
        lat__sb_puts(&b, "}\n");
    }
    lat__plot_css(&b, r->theme);
    lat__sb_puts(&b, "</style>\n</head>\n<body>\n<h1>");
    lat__sb_escape(&b, r->title);
    lat__sb_puts(&b, "</h1>\n");
    lat__sb_putn(&b, lat__sb_str(&r->body), r->body.len);
    if (r->open == OPEN_KV)
        lat__sb_puts(&b, "</dl>\n");
    else if (r->open == OPEN_TABLE)
        lat__sb_puts(&b, "</tbody></table></div>\n");
    lat__sb_puts(&b, "</body>\n</html>\n");
    int rc = b.err;
    if (!rc) rc = lat_write_file_atomic(path, lat__sb_str(&b), b.len);
    lat__sb_release(&b);
    return rc;
}
