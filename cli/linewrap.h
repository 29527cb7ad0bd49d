/* linewrap.h - a stream that wraps long lines: text written to it goes to
 * another stream with every line longer than a width broken at spaces, the
 * continuation lines indented by four, so a command's report reads in a
 * 100-column terminal.  Content is unchanged but for the breaks.  For
 * commands whose lines grow with their figures (`latlab pipeline`). */
#ifndef LATLAB_CLI_LINEWRAP_H
#define LATLAB_CLI_LINEWRAP_H

#include <stddef.h>
#include <stdio.h>

/* Lines wrapped at this many characters (bytes) by the commands that wrap. */
#define CLI_WRAP_WIDTH 100

/* A write-only stream forwarding to out (which must outlive it) with lines
 * over width bytes wrapped; a word longer than a line is left whole.  Each
 * complete line is forwarded and out flushed, so progress shows as before.
 * A write error of out makes the stream's writes fail (errno kept).  NULL
 * when no memory (use out itself).  fclose() it: it forwards any unfinished
 * line and returns EOF if any write failed. */
FILE *cli_wrap_open(FILE *out, size_t width);

/* Run fn(argc, argv) with stdout wrapped at CLI_WRAP_WIDTH and restored
 * after; a write error of the wrapped stdout turns an exit status of 0 into 1
 * (the caller's stdout check then names the cause).  stderr is left whole:
 * an error or warning stays one line, as scripts and people grep it. */
int cli_wrapped(int (*fn)(int, char **), int argc, char **argv);

#endif /* LATLAB_CLI_LINEWRAP_H */
