/* fuzz_hlog_read.c - libFuzzer target for the interval log reader: any text
 * either reads to intervals or stops with a line number and a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lat_hlog_reader *r;
    if (lat_hlog_reader_open_mem((const char *)data, size, &r) != 0) return 0;
    lat_hlog_interval *iv;
    int rc, n = 0;
    while ((rc = lat_hlog_next(r, &iv)) == 1) {
        if (iv->line < 1 || iv->line > lat_hlog_reader_line(r)) abort();
        (void)lat_hist_value_at_percentile(&iv->hist, 99.0);
        (void)lat_hist_max(&iv->hist);
        if (strlen(iv->tag) >= LAT_HLOG_TAG_MAX) abort();
        n++;
    }
    if (rc < 0) {
        const char *why = lat_hlog_reader_reason(r);
        if (!why || !*why || lat_hlog_reader_line(r) < 1) abort();
    }
    (void)n;
    lat_hlog_reader_destroy(r);
    return 0;
}
