/* core_link_check.c - a program that links against liblatlab-core alone (libc,
 * zlib, pthreads; no jansson, no measure or workload floors).  Built and run by
 * `make core` (LAT_CORE_ONLY=ON): the clock, a histogram and its V2 codec
 * (zlib), a ring push/pop and the run conditions must all work from the core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/core.h"

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "core_link_check: %s:%d: %s\n", __FILE__, __LINE__, #c);               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void) {
    uint64_t t0 = lat_cycles_fenced();
    CHECK(lat_cycles_fenced() >= t0);

    lat_hist h, back;
    CHECK(lat_hist_init(&h, 1, 3600000000000LL, 3) == 0);
    for (int64_t v = 1; v <= 10000; v++)
        CHECK(lat_hist_record(&h, v));
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(lat_hist_encode_compressed(&h, 6, &buf, &len) == 0);
    CHECK(lat_hist_decode(buf, len, &back) == 0);
    CHECK(lat_hist_value_at_percentile(&back, 50.0) == lat_hist_value_at_percentile(&h, 50.0));
    lat_hist_buf_free(buf);
    lat_hist_fini(&h);
    lat_hist_fini(&back);

    lat_ring *q;
    CHECK(lat_ring_create(sizeof(uint64_t), 8, 0, &q) == 0);
    uint64_t x = 42, y = 0;
    CHECK(lat_ring_try_push(q, &x));
    CHECK(lat_ring_try_pop(q, &y) && y == 42);
    lat_ring_destroy(q);

    lat_runcond rc;
    CHECK(lat_runcond_collect(&rc, NULL) == 0);
    CHECK(lat_runcond_nfields() > 0);
    printf("core_link_check: ok (%s)\n", lat_runcond_field(&rc, 0, NULL));
    return 0;
}
