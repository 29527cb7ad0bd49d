/* gaps.c - the hiccup recorder (see gaps.h): creation and the after-the-run
 * queries that match a slow sample's hop against the gaps of its thread. */
#include "latlab/gaps.h"

#include <errno.h>
#include <string.h>

#include "alloc_internal.h"

int lat_gaps_create(size_t capacity, uint64_t threshold_cycles, lat_gaps **out) {
    if (!out || threshold_cycles == 0 || capacity > ((size_t)1 << 24)) return -EINVAL;
    if (capacity == 0) capacity = LAT_GAPS_DEFAULT_CAP;
    lat_gaps *g = lat__calloc(1, sizeof *g);
    if (!g) return -ENOMEM;
    g->list = lat__calloc(capacity, sizeof *g->list);
    if (!g->list) {
        lat__free(g);
        return -ENOMEM;
    }
    g->capacity = capacity;
    g->threshold = threshold_cycles;
    *out = g;
    return 0;
}

void lat_gaps_destroy(lat_gaps *g) {
    if (!g) return;
    lat__free(g->list);
    lat__free(g);
}

void lat_gaps_clear(lat_gaps *g) {
    if (!g) return;
    g->count = g->total = g->longest = g->overflow = 0;
    memset(g->hist, 0, sizeof g->hist);
}

size_t lat_gaps_kept(const lat_gaps *g) {
    if (!g) return 0;
    return g->count < g->capacity ? (size_t)g->count : g->capacity;
}

size_t lat_gaps_search(const lat_gap *list, size_t n, uint64_t from) {
    size_t lo = 0, hi = list ? n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid].start + list[mid].len <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The list is in time order (one writer, reads in order). */
static size_t first_ending_after(const lat_gaps *g, uint64_t from) {
    return lat_gaps_search(g->list, lat_gaps_kept(g), from);
}

uint64_t lat_gaps_overlap(const lat_gaps *g, uint64_t from, uint64_t to) {
    if (!g || to <= from) return 0;
    uint64_t sum = 0;
    size_t n = lat_gaps_kept(g);
    for (size_t i = first_ending_after(g, from); i < n && g->list[i].start < to; i++) {
        uint64_t a = g->list[i].start > from ? g->list[i].start : from;
        uint64_t e = g->list[i].start + g->list[i].len;
        uint64_t b = e < to ? e : to;
        if (b > a) sum += b - a;
    }
    return sum;
}

long lat_gaps_find(const lat_gaps *g, uint64_t from, uint64_t to) {
    if (!g || to < from) return -1;
    long best = -1;
    size_t n = lat_gaps_kept(g);
    for (size_t i = first_ending_after(g, from); i < n && g->list[i].start <= to; i++)
        if (best < 0 || g->list[i].len > g->list[best].len) best = (long)i;
    return best;
}
