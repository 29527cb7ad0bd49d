/* sbuf.c - growable text buffer (see sbuf.h). */
#include "sbuf.h"

#include "alloc_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void lat__sb_init(lat__sbuf *b) {
    memset(b, 0, sizeof *b);
}

void lat__sb_release(lat__sbuf *b) {
    if (!b) return;
    lat__free(b->buf);
    memset(b, 0, sizeof *b);
}

static int reserve(lat__sbuf *b, size_t extra) {
    if (b->err) return b->err;
    if (extra > ((size_t)-1) / 2 - b->len) return b->err = -ENOMEM;
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *nb = lat__alloc(cap);
    if (!nb) return b->err = -ENOMEM;
    if (b->len) memcpy(nb, b->buf, b->len);
    nb[b->len] = 0;
    lat__free(b->buf);
    b->buf = nb;
    b->cap = cap;
    return 0;
}

void lat__sb_putn(lat__sbuf *b, const char *s, size_t n) {
    if (reserve(b, n)) return;
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = 0;
}

void lat__sb_puts(lat__sbuf *b, const char *s) {
    if (s) lat__sb_putn(b, s, strlen(s));
}

void lat__sb_printf(lat__sbuf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (!b->err) b->err = -EINVAL;
        return;
    }
    if ((size_t)n < sizeof small) {
        lat__sb_putn(b, small, (size_t)n);
        return;
    }
    if (reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s) {
    size_t n;
    unsigned cp;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, cp = s[0] & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
    if (cp >= 0xd800 && cp <= 0xdfff) return 0;
    if (cp == 0xfffe || cp == 0xffff) return 0; /* not XML characters */
    return n;
}

void lat__sb_escape(lat__sbuf *b, const char *s) {
    if (!s) return;
    const char *run = s;
    const char *c = s;
    while (*c) {
        const char *rep = NULL;
        unsigned char u = (unsigned char)*c;
        size_t n = 1;
        switch (u) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            /* XML 1.0 forbids most C0 controls even as references, and a page
             * must stay valid UTF-8: both become U+FFFD. */
            if ((u < 0x20 && u != '\t' && u != '\n' && u != '\r') || u == 0x7f) {
                rep = "\xef\xbf\xbd";
            } else if (u >= 0x80) {
                n = utf8_len((const unsigned char *)c);
                if (!n) n = 1, rep = "\xef\xbf\xbd";
            }
        }
        if (rep) {
            lat__sb_putn(b, run, (size_t)(c - run));
            lat__sb_puts(b, rep);
            run = c + n;
        }
        c += n;
    }
    lat__sb_puts(b, run);
}

const char *lat__sb_str(const lat__sbuf *b) {
    return b->buf ? b->buf : "";
}
