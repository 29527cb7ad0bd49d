/* linewrap.h - a stream that wraps long lines: text written to it goes to
 * another stream with every line longer than a width broken at spaces, the
 * continuation lines indented by four, so a report reads in a narrow
 * terminal.  Content is unchanged but for the breaks.
 *
 * Experimental: may change.  Not hot; one stream per thread. */
#ifndef LATLAB_LINEWRAP_H
#define LATLAB_LINEWRAP_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/linewrap.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stddef.h>
#include <stdio.h>

/* A write-only stream forwarding to out (which must outlive it) with lines
 * over width bytes (at least 20) wrapped; a word longer than a line is left
 * whole.  Each complete line is forwarded and out flushed, so progress shows
 * as before.  A write error of out makes the stream's writes fail (errno
 * kept).  NULL when no memory (use out itself).  Destroy it with fclose():
 * it forwards any unfinished line and returns EOF if any write failed. */
FILE *lat_linewrap_create(FILE *out, size_t width);

#endif
