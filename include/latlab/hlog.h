/* hlog.h - HdrHistogram text formats: interval logs (.hlog) and percentile
 * distribution tables (.hgrm).
 *
 * Writer: log format 1.3 exactly as Java's HistogramLogWriter prints it
 * (version line, StartTime with a full date, BaseTime, legend, optional
 * Tag=, interval max divided by a unit ratio, base64 compressed V2). */

/* Reader: formats 1.2 and 1.3 (Java and HdrHistogram_c, whose legend says
 * "EndTimestamp" and whose max is unscaled), tags, comments, relative or
 * absolute timestamps (Java's rule: a timestamp more than a year before
 * StartTime is relative to BaseTime/StartTime).  The reader checks every line
 * and reports the line number and a reason for anything malformed.
 * .hgrm: Java's outputPercentileDistribution, byte for byte (including
 * Java's HALF_UP decimal rounding), plain or CSV, with ticks-per-half and a
 * value scale; 64-bit counts.
 * Not hot; allocation at open only (plus one histogram per interval). */
#ifndef LATLAB_HLOG_H
#define LATLAB_HLOG_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"

/* ---- .hgrm percentile distribution ------------------------------------------------ */

/* Print h's percentile distribution to f as Java's
 * outputPercentileDistribution(f, ticks_per_half, scale, csv) would.
 * ticks_per_half >= 1 (default 5); scale > 0 divides every value (1e3 for
 * ns -> us).  Returns 0 or -EIO (write error) / -EINVAL. */
LAT_API int lat_hist_write_percentiles(FILE *f, const lat_hist *h, int ticks_per_half, double scale,
                               bool csv);

/* The same with a confidence interval per row (confidence in (0, 1); 0
 * means none and prints exactly what lat_hist_write_percentiles prints): two
 * more columns, CI_Low and CI_High (the values bounding the row's percentile
 * at that confidence, lat_hist_cis_at_percentiles, widened to hold the row's
 * value), after 1/(1-Percentile) (blank on the 100% row of the text layout);
 * the text layout's footer gains a line naming the confidence and, when some
 * rows are max-bound (CI_High is the maximum), the first such percentile and
 * the samples it needs.  -EINVAL for a confidence outside [0, 1). */
LAT_API int lat_hist_write_percentiles_ci(FILE *f, const lat_hist *h, int ticks_per_half,
                                          double scale, bool csv, double confidence);

/* Format d with `prec` decimals the way java.util.Formatter's %.{prec}f does
 * (shortest round-trip digits, then HALF_UP), into buf (size cap).  Returns
 * the length (snprintf-like). */
LAT_API int lat_java_format_fixed(char *buf, size_t cap, double d, int prec);

/* ---- interval log writer ----------------------------------------------------------- */

#define LAT_HLOG_MAX_UNIT_RATIO_DEFAULT 1e6 /* ns recorded -> ms in the max column */
#define LAT_HLOG_TAG_MAX 128                /* bytes including the NUL */

typedef struct lat_hlog_writer {
    FILE *f;               /* not owned */
    double base_time_s;    /* timestamps are written relative to this */
    double max_unit_ratio; /* interval max is divided by this (default 1e6) */
} lat_hlog_writer;

/* Write the 1.3 header to f: version, "#[StartTime: S (seconds since epoch),
 * <date>]", "#[BaseTime: B (seconds since epoch)]" and the legend.
 * start_time_s and base_time_s are seconds since the epoch (usually equal).
 * max_unit_ratio <= 0 means the default 1e6.  Returns 0 or -EIO. */
LAT_API int lat_hlog_writer_init(lat_hlog_writer *w, FILE *f, double start_time_s,
                                 double base_time_s, double max_unit_ratio);
/* A comment line "#<text>". */
LAT_API int lat_hlog_write_comment(lat_hlog_writer *w, const char *text);
/* One interval: [Tag=tag,]start-base,length,max/ratio,base64.  start_s is in
 * the same clock as base_time_s (seconds since the epoch).  tag may be NULL;
 * otherwise non-empty, shorter than LAT_HLOG_TAG_MAX and free of ',', ' ',
 * CR and LF (-EINVAL).  The line goes out whole (one fwrite) and the stream
 * is flushed, so a log being written is valid up to its last line at every
 * moment.  Returns 0, -EINVAL, -ENOMEM or the write's -errno (-ENOSPC...). */
LAT_API int lat_hlog_write_interval(lat_hlog_writer *w, const lat_hist *h, const char *tag,
                                    double start_s, double length_s);
/* The same for an interval already encoded (base64 of a compressed V2, as
 * lat_hlog_interval.encoded holds it: copied as it is, no re-encoding);
 * max_value is the histogram's lat_hist_max (recorded units). */
LAT_API int lat_hlog_write_interval_encoded(lat_hlog_writer *w, const char *tag, double start_s,
                                    double length_s, int64_t max_value, const char *encoded,
                                    size_t encoded_len);

/* ---- interval log reader ----------------------------------------------------------- */

typedef struct lat_hlog_reader lat_hlog_reader;

typedef struct lat_hlog_interval {
    char tag[LAT_HLOG_TAG_MAX]; /* "" when untagged */
    double timestamp_s;         /* the first column as written */
    double start_s;             /* absolute start (timestamp + base time) */
    double offset_s;            /* start relative to the log's StartTime */
    double length_s;            /* interval length */
    double max_field;           /* the Interval_Max column as written */
    int line;                   /* 1-based line number in the file */
    lat_hist hist;              /* decoded; owned by the reader, valid until the next call;
                                   its declared geometry, or fitted (lat_hlog_reader_fit) */
    int64_t declared_highest;   /* the highest trackable value the encoding declares */
    const char *encoded;        /* the base64 column as written (not NUL-terminated) ... */
    size_t encoded_len;         /* ... in the reader's text: valid until the reader closes */
} lat_hlog_interval;

/* Open a log file / an in-memory text (copied).  0 and *out, or -errno.
 * The file is read whole, up to LAT_HLOG_MAX_FILE_BYTES (-EFBIG beyond);
 * reading stops at a NUL byte, which the first lat_hlog_next call then
 * reports with its line. */
#define LAT_HLOG_MAX_FILE_BYTES ((size_t)1 << 30)
LAT_API int lat_hlog_reader_create(const char *path, lat_hlog_reader **out);
LAT_API int lat_hlog_reader_open_mem(const char *text, size_t len, lat_hlog_reader **out);
LAT_API void lat_hlog_reader_destroy(lat_hlog_reader *r); /* NULL is fine */
/* fit: decode each interval fitted to its values (lat_hist_decode_base64_fit)
 * instead of the geometry it declares, so memory follows the data (a 5-figure
 * 1..2^62 interval of small values: 2 MB, not 48 MB).  Queries answer the
 * same; a fitted interval's range may be narrower than the next one's, so
 * merge with lat_hist_add_resize (lat_hist_add would drop what does not fit).
 * Default off.  Call before the first lat_hlog_next. */
LAT_API void lat_hlog_reader_fit(lat_hlog_reader *r, bool fit);

/* The cap on decoding work: the intervals one reader decodes may hold at most
 * BASE + PER_BYTE x (bytes read so far) count slots in all (a slot is 8 bytes
 * allocated, zeroed and walked).  A 3-digit 1 ns..1 h interval is ~34,000
 * slots in a line of ~100 bytes or more; a 5-digit one up to 2^62 is 5.9
 * million, so a log of such lines costs 47 MB and ~0.1 s each: past the cap
 * lat_hlog_next fails with -E2BIG and a reason naming the byte offset. */
#define LAT_HLOG_SLOT_BUDGET_BASE (1ull << 25)
#define LAT_HLOG_SLOT_BUDGET_PER_BYTE 4096ull

/* Next interval: 1 and *out (owned by the reader), 0 at the end, or a
 * negative error (LAT_EFORMAT, LAT_ETRUNCATED, decode errors, -ENOMEM, -E2BIG
 * past LAT_HLOG_SLOT_BUDGET_*); then lat_hlog_reader_line(),
 * lat_hlog_reader_offset() and lat_hlog_reader_reason() say where and why. */
LAT_API int lat_hlog_next(lat_hlog_reader *r, lat_hlog_interval **out);
LAT_API int lat_hlog_reader_line(const lat_hlog_reader *r);
/* The byte offset, in the reader's text, of the line read last (0 before any). */
LAT_API long long lat_hlog_reader_offset(const lat_hlog_reader *r);
LAT_API const char *lat_hlog_reader_reason(const lat_hlog_reader *r);

/* Header facts seen so far (after the first lat_hlog_next they are final):
 * the log's StartTime and BaseTime in seconds since the epoch (NAN when
 * absent and not yet deduced), its format version ("1.3", "1.2", or "" when
 * none was given). */
LAT_API double lat_hlog_reader_start_time(const lat_hlog_reader *r);
LAT_API double lat_hlog_reader_base_time(const lat_hlog_reader *r);
LAT_API const char *lat_hlog_reader_version(const lat_hlog_reader *r);

#endif /* LATLAB_HLOG_H */
