/* time_region.c - the library in fifteen lines: time a region with the cycle
 * counter, record each duration in an HdrHistogram, print its tail.  Uses only
 * stable headers (latlab.h without LATLAB_EXPERIMENTAL).  Build it against an
 * installed latlab:  cc -O2 time_region.c $(pkg-config --cflags --libs latlab) */
#include <latlab/latlab.h>
#include <stdio.h>

int main(void) {
    const lat_clock_cal *cal = lat_clock_default(); /* calibrated once */
    lat_hist *h;
    if (lat_hist_create(1, 60000000000, 3, &h)) return 1; /* 1 ns .. 60 s, 3 digits */
    volatile unsigned x = 1;
    for (int i = 0; i < 100000; i++) {
        uint64_t t0 = lat_cycles();
        for (int k = 0; k < 50; k++)
            x = x * 1103515245u + 12345u; /* the region */
        lat_hist_record(h, (int64_t)lat_clock_to_ns(cal, lat_cycles() - t0));
    }
    printf("p50 %lld ns  p99 %lld ns  p99.9 %lld ns  max %lld ns\n",
           (long long)lat_hist_value_at_percentile(h, 50),
           (long long)lat_hist_value_at_percentile(h, 99),
           (long long)lat_hist_value_at_percentile(h, 99.9), (long long)lat_hist_max(h));
    lat_hist_destroy(h);
    return 0;
}
