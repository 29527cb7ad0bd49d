/* tailrow.h - one row of `latlab top`: a stage's tail as its intervals come
 * (an interval log read as it grows): the last interval's count, p50, p99,
 * p99.9 and max, the cumulative p99.9 since the first interval, and the
 * p99.9 history behind the sparkline of the last minute.
 *
 * Experimental: may change.  Not hot (an interval is a merge and three
 * percentile walks); one row per thread.  Writes only to the FILE given. */
#ifndef LATLAB_TAILROW_H
#define LATLAB_TAILROW_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/tailrow.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/hlog.h"

#define LAT_TAILROW_SPARK_N 128        /* p99.9 history per row */
#define LAT_TAILROW_SPARK_SECONDS 60.0 /* the sparkline's window */

/* Zero it, set name; lat_tailrow_take fills the rest. */
typedef struct lat_tailrow {
    char name[LAT_HLOG_TAG_MAX + 64];
    bool have; /* an interval was taken */
    int64_t count, p50, p99, p999, max, cum_p999;
    /* the last interval's end, s: its absolute start (timestamp + base time) + length */
    double end_s;
    lat_hist cum;
    double spark_t[LAT_TAILROW_SPARK_N];
    int64_t spark_v[LAT_TAILROW_SPARK_N];
    unsigned spark_n, spark_head;
} lat_tailrow;

/* Take one interval: its figures, the cumulative histogram (created like the
 * first interval's, grown to hold the later ones' values) and the history.
 * 0, -ENOMEM, or -EOVERFLOW when the cumulative count would pass INT64_MAX
 * (nothing of the interval is taken then). */
int lat_tailrow_take(lat_tailrow *r, const lat_hlog_interval *iv);

/* The sparkline (UTF-8 block characters, 3 bytes each) of the last `width`
 * p99.9 values of the last minute, scaled between their min and max, into
 * out (cap bytes, terminated). */
void lat_tailrow_spark(const lat_tailrow *r, char *out, size_t cap, unsigned width);

/* "END NAME count=.. p50=.. p99=.. p99.9=.. max=.. cum_p99.9=.." with values
 * divided by scale, into f.  0 or -EIO. */
int lat_tailrow_print(const lat_tailrow *r, double scale, FILE *f);

/* Free the cumulative histogram. */
void lat_tailrow_fini(lat_tailrow *r);

#endif
