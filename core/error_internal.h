/* error_internal.h - the message of an error for latlab's own floors (core,
 * measure, workloads; never installed): a function that returns a negative
 * errno and a sentence for the caller to print formats the sentence here. */
#ifndef LATLAB_ERROR_INTERNAL_H
#define LATLAB_ERROR_INTERNAL_H

#include <stddef.h>

/* fmt and its arguments into buf (n bytes, cut, always terminated; nothing
 * when buf is NULL or n is 0); returns rc. */
int lat__errf(char *buf, size_t n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* LATLAB_ERROR_INTERNAL_H */
