/* sbuf.h - internal growable text buffer for the report component.
 *
 * The SVG and HTML writers build their output in memory first so a failure
 * leaves no half-written file and so a plot can be embedded in a page.  The
 * buffer remembers its first error (-ENOMEM) and turns later appends into
 * no-ops, so writers check once at the end. */
#ifndef LATLAB_REPORT_SBUF_H
#define LATLAB_REPORT_SBUF_H

#include <stddef.h>

typedef struct lat__sbuf {
    char *buf; /* NUL-terminated when len > 0 */
    size_t len, cap;
    int err; /* first error, 0 while fine */
} lat__sbuf;

void lat__sb_init(lat__sbuf *b);
void lat__sb_release(lat__sbuf *b);
void lat__sb_putn(lat__sbuf *b, const char *s, size_t n);
void lat__sb_puts(lat__sbuf *b, const char *s);
void lat__sb_printf(lat__sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s with &, <, >, " and ' escaped for XML/HTML text and attributes;
 * control characters other than tab/newline/CR become U+FFFD. NULL is "". */
void lat__sb_escape(lat__sbuf *b, const char *s);
/* The text so far ("" when empty). */
const char *lat__sb_str(const lat__sbuf *b);

#endif
