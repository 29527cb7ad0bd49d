/* hlog_processor.c - HistogramLogProcessor's headers and per-interval lines
 * (hlog_processor.h), as `latlab hist percentiles` prints them. */
#include "latlab/hlog_processor.h"
#include "error_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* Java Date.toString() in UTC. */
static void java_date(char *buf, size_t cap, double epoch_s) {
    time_t t = (time_t)floor(epoch_s);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%a %b %d %H:%M:%S UTC %Y", &tm);
}

static void jf(FILE *f, int width, int prec, double d) {
    char b[420];
    lat_java_format_fixed(b, sizeof b, d, prec);
    fprintf(f, "%*s", width, b);
}

int lat_hlog_processor_range(FILE *f, const char *what, double start_s, double end_s,
                             double start_time_s) {
    errno = 0; /* a failed write's cause: lat__write_status */
    char date[64];
    java_date(date, sizeof date, start_time_s);
    fprintf(f, "#[%s percentile %s between ", what,
            strcmp(what, "Overall") ? "log" : "distribution");
    jf(f, 0, 3, start_s);
    fputs(" and ", f);
    if (isinf(end_s))
        fputs("<Infinite>", f);
    else
        jf(f, 0, 3, end_s);
    fputs(" seconds (relative to StartTime)]\n#[StartTime: ", f);
    jf(f, 0, 3, start_time_s);
    fprintf(f, " (seconds since epoch), %s]\n", date);
    return lat__write_status(f, 0);
}

int lat_hlog_processor_legend(FILE *f, bool csv) {
    errno = 0;
    fputs(csv ? "\"Timestamp\",\"Int_Count\",\"Int_50%\",\"Int_90%\",\"Int_Max\","
                "\"Total_Count\",\"Total_50%\",\"Total_90%\",\"Total_99%\","
                "\"Total_99.9%\",\"Total_99.99%\",\"Total_Max\"\n"
              : "Time: IntervalPercentiles:count ( 50% 90% Max ) TotalPercentiles:count "
                "( 50% 90% 99% 99.9% 99.99% Max )\n",
          f);
    return lat__write_status(f, 0);
}

int lat_hlog_processor_line(FILE *f, const lat_hlog_interval *iv, const lat_hist *total,
                            double scale, bool csv) {
    static const double int_ps[] = {50, 90}, total_ps[] = {50, 90, 99, 99.9, 99.99};
    errno = 0;
    /* Java prints the interval's end relative to StartTime. */
    double t = iv->offset_s + iv->length_s;
    const lat_hist *ih = &iv->hist;
    int64_t ip[2], tp[5];
    lat_hist_values_at_percentiles(ih, int_ps, ip, 2);
    lat_hist_values_at_percentiles(total, total_ps, tp, 5);
    int w = csv ? 0 : 7;
    const char *sep = csv ? "," : " ";
    jf(f, csv ? 0 : 4, 3, t);
    fprintf(f, csv ? ",%" PRId64 "," : ": I:%" PRId64 " ( ", lat_hist_total(ih));
    jf(f, w, 3, (double)ip[0] / scale);
    fputs(sep, f);
    jf(f, w, 3, (double)ip[1] / scale);
    fputs(sep, f);
    jf(f, w, 3, (double)lat_hist_max(ih) / scale);
    fprintf(f, csv ? ",%" PRId64 "," : " ) T:%" PRId64 " ( ", lat_hist_total(total));
    for (int k = 0; k < 5; k++) {
        jf(f, w, 3, (double)tp[k] / scale);
        fputs(sep, f);
    }
    jf(f, w, 3, (double)lat_hist_max(total) / scale);
    fputs(csv ? "\n" : " )\n", f);
    return lat__write_status(f, 0);
}
