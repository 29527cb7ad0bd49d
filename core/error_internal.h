/* error_internal.h - the message of an error for latlab's own floors (core,
 * measure, workloads; never installed): a function that returns a negative
 * errno and a sentence for the caller to print formats the sentence here. */
#ifndef LATLAB_ERROR_INTERNAL_H
#define LATLAB_ERROR_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

/* fmt and its arguments into buf (n bytes, cut, always terminated; nothing
 * when buf is NULL or n is 0); returns rc. */
int lat__errf(char *buf, size_t n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The status of writes to f: 0, or its error as a negative errno: -ENOSPC
 * for a full disk, not -EIO.  stdio keeps only a flag, so a stream in error
 * is flushed for a fresh errno (what was buffered since the failure fails
 * the same way); with nothing buffered, errno as the writes left it (a
 * writer sets errno = 0 before them), else -EIO.  flush: fflush(f) even
 * when no write failed yet. */
int lat__write_status(FILE *f, int flush);

#endif /* LATLAB_ERROR_INTERNAL_H */
