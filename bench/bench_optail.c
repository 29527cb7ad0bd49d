/* bench_optail.c - per-operation tails with the harness (lat_bench_record_ns):
 * appending to a growable array that doubles its storage when full, next to
 * the same appends into storage reserved up front.  The mean per op of the
 * two is close (the doubling is amortised); the copies are rare (one per
 * doubling), so they can only show in the recorded per-op tail, which the
 * mean hides, beside whatever the host adds to both cases.
 *
 * Each append is timed alone with fenced cycle reads (their own floor, a few
 * tens of ns, is in every figure of both cases alike).  Prints the harness's
 * tables with the "per-op tail" lines; never fails on the figures.
 *
 * usage: bench_optail [harness options: --quick --full --filter --json ...] */
#include "latlab/bench.h"
#include "latlab/clock.h"
#include "latlab/compiler.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define RESERVED_ITEMS ((size_t)1 << 20) /* a sample's appends wrap at this */

typedef struct vec {
    uint64_t *items;
    size_t n, cap;
    bool grows; /* double when full (else: reserved, wrap to 0) */
} vec;

static int prepare(void *arg, uint64_t size, void **ctx) {
    (void)size;
    vec *v = calloc(1, sizeof *v);
    if (!v) return -ENOMEM;
    v->grows = arg != NULL;
    v->cap = v->grows ? 16 : RESERVED_ITEMS;
    v->items = malloc(v->cap * sizeof *v->items);
    if (!v->items) {
        free(v);
        return -ENOMEM;
    }
    *ctx = v;
    return 0;
}

static void release(void *arg, void *ctx) {
    (void)arg;
    vec *v = ctx;
    free(v->items);
    free(v);
}

/* One append: 0, or -ENOMEM when the array cannot grow. */
static int append(vec *v, uint64_t x) {
    if (v->n == v->cap) {
        if (!v->grows || v->cap >= RESERVED_ITEMS) {
            v->n = 0; /* bounded memory: start over (both cases alike) */
        } else {
            uint64_t *p = realloc(v->items, 2 * v->cap * sizeof *p);
            if (!p) return -ENOMEM;
            v->items = p;
            v->cap *= 2;
        }
    }
    v->items[v->n++] = x;
    return 0;
}

static void append_fn(void *ctx, uint64_t chunk, uint64_t index) {
    (void)index;
    vec *v = ctx;
    const lat_clock_cal *c = lat_clock_default();
    for (uint64_t i = 0; i < chunk; i++) {
        uint64_t t0 = lat_cycles_fenced();
        int rc = append(v, i);
        uint64_t t1 = lat_cycles_fenced();
        if (rc) return;
        lat_bench_record_ns(lat_clock_to_ns(c, t1 - t0));
    }
    lat_do_not_optimize(v->items[v->n - 1]);
}

static int reg(lat_bench_runner *r) {
    lat_bench_group *g = lat_bench_group_create(r, "Append");
    if (!g) return -ENOMEM;
    static int grows = 1;
    /* one timed call per sample: a doubling's copy (rare, over 10 us) is the
     * code's own tail, which the harness's sub-chunk censoring would take for
     * the host's gap; the reserved case runs the same way to stay comparable */
    int rc = lat_bench_add(g, &(lat_bench_def){.name = "doubling",
                                               .fn = append_fn,
                                               .prepare = prepare,
                                               .release = release,
                                               .arg = &grows,
                                               .subchunks = 1});
    if (!rc)
        rc = lat_bench_add(g, &(lat_bench_def){.name = "reserved",
                                               .fn = append_fn,
                                               .prepare = prepare,
                                               .release = release,
                                               .arg = NULL,
                                               .subchunks = 1});
    return rc;
}

LAT_BENCH_MAIN_FLAGS("optail", reg, LAT_BENCH_MAIN_QUICK)
