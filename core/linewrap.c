/* linewrap.c - streams that wrap long lines (see linewrap.h): a fopencookie
 * stream collects one line, then writes it to the real stream in pieces of at
 * most the width, broken at the last space that fits. */
#include "latlab/linewrap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define LINE_CAP 8192 /* longer lines are forwarded in pieces of this size, unwrapped */

typedef struct wrapper {
    FILE *out;
    size_t width, n;
    int err; /* the first write error (errno), 0: none */
    char line[LINE_CAP];
} wrapper;

/* Where to break p[0..len): the last space within room, else the first after
 * it (a word longer than the room), else len. */
static size_t break_at(const char *p, size_t len, size_t room, size_t lead) {
    size_t cut = room < len ? room : len;
    while (cut > lead && p[cut] != ' ')
        cut--;
    if (cut > lead) return cut;
    for (cut = room; cut < len && p[cut] != ' '; cut++)
        ;
    return cut;
}

/* Write p[0..len) and a newline, wrapped. */
static void put_line(wrapper *w, const char *p, size_t len) {
    size_t lead = 0, indent = 0;
    while (lead < len && p[lead] == ' ')
        lead++;
    while (indent + len > w->width) {
        size_t cut = break_at(p, len, w->width - indent, lead);
        if (cut >= len) break;
        size_t keep = cut;
        while (keep > lead && p[keep - 1] == ' ')
            keep--;
        fprintf(w->out, "%*s%.*s\n", (int)indent, "", (int)keep, p);
        p += cut;
        len -= cut;
        while (len && *p == ' ')
            p++, len--;
        indent = 4;
        lead = 0;
    }
    fprintf(w->out, "%*s%.*s\n", (int)indent, "", (int)len, p);
}

static ssize_t wrap_write(void *cookie, const char *buf, size_t size) {
    wrapper *w = cookie;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n') {
            put_line(w, w->line, w->n);
            w->n = 0;
        } else {
            if (w->n == LINE_CAP) {
                fwrite(w->line, 1, w->n, w->out);
                w->n = 0;
            }
            w->line[w->n++] = buf[i];
        }
    }
    if ((fflush(w->out) || ferror(w->out)) && !w->err) w->err = errno ? errno : EIO;
    if (w->err) {
        errno = w->err;
        return -1;
    }
    return (ssize_t)size;
}

static int wrap_close(void *cookie) {
    wrapper *w = cookie;
    if (w->n) fwrite(w->line, 1, w->n, w->out);
    int rc = fflush(w->out) || ferror(w->out) || w->err ? -1 : 0;
    free(w);
    return rc;
}

FILE *lat_linewrap_create(FILE *out, size_t width) {
    wrapper *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->out = out;
    w->width = width < 20 ? 20 : width;
    FILE *f =
        fopencookie(w, "w", (cookie_io_functions_t){.write = wrap_write, .close = wrap_close});
    if (!f) {
        free(w);
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, BUFSIZ);
    return f;
}
