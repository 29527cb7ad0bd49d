/* error.h - latlab's error convention.
 *
 * Every library function that can fail returns 0 (or a non-negative count) on
 * success and a negative errno value on failure (-EINVAL, -ENOMEM, ...).
 * Failures that errno cannot name use the LAT_E* codes below, which sit far
 * below any errno.  lat_strerror() turns either kind into a sentence.  The
 * library never prints and never exits. */
#ifndef LATLAB_ERROR_H
#define LATLAB_ERROR_H

#include "latlab/compiler.h"

enum {
    LAT_EFORMAT = -10000,       /* input is malformed (bad syntax, bad field) */
    LAT_ETRUNCATED = -10001,    /* input ends before a complete record */
    LAT_ECOOKIE = -10002,       /* unknown magic number / cookie */
    LAT_ECOMPRESS = -10003,     /* zlib failed or the compressed data is corrupt */
    LAT_EGEOMETRY = -10004,     /* value or index outside the declared geometry */
    LAT_ETOOFEW_CPUS = -10005,  /* not enough CPUs for the requested placement */
    LAT_EINCOMPATIBLE = -10006, /* two things that must match do not */
    LAT_ENOTCOUNTED = -10007,   /* a counter was enabled but never scheduled */
    LAT_ENOPMU = -10008,        /* hardware event not supported on this machine */
    LAT_EHTTP = -10009,         /* an HTTP peer answered with an error status or garbage */
    LAT_EADDRINFO = -10100,     /* a name lookup failed: LAT_EADDRINFO_ERR(g) for getaddrinfo's
                                   EAI_* code g (g < 0), down to LAT_EADDRINFO - 200 */
    /* add new codes above this line, each one lower than the last */
};

/* getaddrinfo's error g (an EAI_* code, negative on glibc) as a latlab error;
 * lat_strerror gives the resolver's own sentence (gai_strerror). */
#define LAT_EADDRINFO_ERR(g) (LAT_EADDRINFO + ((g) < 0 && (g) > -200 ? (g) : -199))

/* A sentence for err (negative errno or LAT_E*); never NULL; thread-safe. */
LAT_API const char *lat_strerror(int err);

#endif /* LATLAB_ERROR_H */
