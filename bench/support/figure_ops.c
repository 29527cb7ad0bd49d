/* figure_ops.c - see figure_ops.h. */
#include "figure_ops.h"

#include "latlab/compiler.h"
#include "latlab/hist.h"

#include <string.h>

LAT_NOINLINE uint64_t fig_hash64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

LAT_NOINLINE void fig_copy1k(void *dst, const void *src) {
    memcpy(dst, src, 1024);
    lat_clobber_memory();
}

void *fig_hist_new(void) {
    lat_hist *h = NULL;
    return lat_hist_create(1, 3600000000000ll, 3, &h) == 0 ? h : NULL;
}

void fig_hist_free(void *h) {
    lat_hist_destroy(h);
}

LAT_NOINLINE void fig_hist_record(void *h, uint64_t i) {
    lat_hist_record((lat_hist *)h, (int64_t)((i * 0x9e3779b97f4a7c15ull) >> 44) + 1);
}
