/* hlog_processor.h - the text Java's HistogramLogProcessor prints around a
 * percentile table: the range header ("#[Overall percentile distribution
 * between ...]", "#[StartTime: ...]") and, for its per-interval mode, the
 * legend and one line per interval with the running total's percentiles.
 * Byte for byte as Java writes them (Java's HALF_UP decimals, Date.toString
 * in UTC), plain or CSV.  Not hot; stateless, thread-safe on distinct
 * streams. */
#ifndef LATLAB_HLOG_PROCESSOR_H
#define LATLAB_HLOG_PROCESSOR_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/hlog.h"

/* "#[WHAT percentile distribution|log between S and E seconds (relative to
 * StartTime)]" and "#[StartTime: T (seconds since epoch), DATE]".  what is
 * "Overall" (says "distribution") or "Interval" (says "log"); start_s and
 * end_s are seconds after StartTime (end_s INFINITY prints "<Infinite>");
 * start_time_s is the log's StartTime (seconds since the epoch).  0 or -EIO. */
LAT_API int lat_hlog_processor_range(FILE *f, const char *what, double start_s, double end_s,
                             double start_time_s);

/* The per-interval legend line (plain or CSV).  0 or -EIO. */
LAT_API int lat_hlog_processor_legend(FILE *f, bool csv);

/* One per-interval line: the interval's end relative to StartTime, its count,
 * p50, p90 and max, then the running total's count, p50, p90, p99, p99.9,
 * p99.99 and max; values divided by scale (> 0).  0 or -EIO. */
LAT_API int lat_hlog_processor_line(FILE *f, const lat_hlog_interval *iv, const lat_hist *total,
                            double scale, bool csv);

#endif /* LATLAB_HLOG_PROCESSOR_H */
