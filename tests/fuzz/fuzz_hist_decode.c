/* fuzz_hist_decode.c - libFuzzer target for the histogram decoders: binary
 * (V2/V1/V0, compressed or not) and base64.  Whatever decodes must be
 * internally consistent: queries and iterators stay in range, and a
 * re-encode decodes to the same counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/hist.h"

static void check(const lat_hist *h) {
    int64_t total = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (h->counts[i] < 0) abort();
        total += h->counts[i];
    }
    if (total != h->total_count) abort();
    static const double ps[] = {0, 50, 99.9, 100};
    int64_t v[4];
    lat_hist_values_at_percentiles(h, ps, v, 4);
    for (int k = 0; k < 4; k++)
        if (v[k] != lat_hist_value_at_percentile(h, ps[k])) abort();
    (void)lat_hist_mean(h);
    (void)lat_hist_stddev(h);
    lat_hist_iter it;
    lat_hist_iter_recorded(&it, h);
    int64_t seen = 0;
    while (lat_hist_iter_next(&it))
        seen += it.count_added;
    if (seen != total) abort();
    lat_hist_iter_percentile(&it, h, 2);
    for (int n = 0; lat_hist_iter_next(&it) && n < 100000; n++) {
    }
    uint8_t *buf;
    size_t len;
    if (lat_hist_encode_compressed(h, 1, &buf, &len) == 0) {
        lat_hist d;
        if (lat_hist_decode(buf, len, &d) != 0) abort();
        if (d.total_count != h->total_count) abort();
        if (memcmp(d.counts, h->counts, (size_t)h->counts_len * sizeof(int64_t)) != 0) abort();
        lat_hist_fini(&d);
        lat_hist_buf_free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lat_hist h;
    if (lat_hist_decode(data, size, &h) == 0) {
        check(&h);
        lat_hist_fini(&h);
    }
    if (lat_hist_decode_base64((const char *)data, size, &h) == 0) {
        check(&h);
        lat_hist_fini(&h);
    }
    return 0;
}
