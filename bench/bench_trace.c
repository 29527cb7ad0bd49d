/* bench_trace.c - what the stage tracer costs the hot thread, next to its
 * peers measured in the same run (a benchmark: it prints figures, never
 * pass/fail):
 *   fenced read   lat_cycles_fenced() alone (what one stamp must pay)
 *   stamp         lat_trace_stamp() into a message's block
 *   bare push     lat_spsc_try_push_t of a 56-byte item (the stamp block's
 *                 size) into a ring of the same capacity
 *   ship          lat_trace_ship() of the block into a sink
 *   drain         the aggregator's side, per block of a 4-stage trace
 *                 (lat_trace_drain: pop, convert, record; no interval closes)
 * Each round times a batch of `batch` calls of each kind, interleaved; the
 * rings are emptied outside the timed region, so every push and ship succeeds
 * and both see the same ring state.  Figures: median ns per call over the
 * rounds, and ship / bare push.
 * Usage: bench_trace [--rounds N] [--batch N] */
#include "latlab/clock.h"
#include "latlab/compiler.h"
#include "latlab/ring.h"
#include "latlab/stats.h"
#include "latlab/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_FENCED, K_STAMP, K_PUSH, K_SHIP, K_N };
static const char *const names[K_N] = {"fenced read", "stamp", "bare push (56 B)", "ship"};

typedef struct item {
    uint64_t w[7];
} item; /* the stamp block's size */

int main(int argc, char **argv) {
    unsigned rounds = 2001, batch = 1024;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds"))
            rounds = (unsigned)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--batch"))
            batch = (unsigned)strtoul(argv[i + 1], NULL, 10);
    }
    if (rounds < 1 || batch < 1 || batch > 8192) {
        fprintf(stderr, "bench_trace: bad --rounds/--batch\n");
        return 2;
    }
    const lat_clock_cal *cal = lat_clock_default();
    static const lat_trace_stage st[] = {{"e2e", 0, 1}};
    lat_trace_config c;
    lat_trace_config_default(&c);
    c.stages = st;
    c.nstages = 1;
    lat_trace *t;
    lat_trace_sink *k;
    lat_spsc *ring;
    if (lat_trace_create(&c, &t) || lat_trace_sink_create(t, 8192, &k) ||
        lat_spsc_create(sizeof(item), 8192, 0, &ring)) {
        fprintf(stderr, "bench_trace: setup failed\n");
        return 1;
    }
    double *ns[K_N];
    for (int j = 0; j < K_N; j++)
        ns[j] = calloc(rounds, sizeof(double));
    lat_trace_stamps b = {{0}, 0};
    item it = {{0}};
    for (unsigned r = 0; r < rounds; r++) {
        for (int jj = 0; jj < K_N; jj++) {
            int j = (jj + (int)r) % K_N; /* rotate the order each round */
            uint64_t acc = 0, t0 = lat_cycles_fenced();
            switch (j) {
            case K_FENCED:
                for (unsigned i = 0; i < batch; i++)
                    acc += lat_cycles_fenced();
                break;
            case K_STAMP:
                for (unsigned i = 0; i < batch; i++) {
                    lat_trace_stamp(&b, i & 3);
                    lat_do_not_optimize(b);
                }
                break;
            case K_PUSH:
                for (unsigned i = 0; i < batch; i++) {
                    it.w[0] = i;
                    acc += lat_spsc_try_push_t(ring, &it);
                }
                break;
            case K_SHIP:
                for (unsigned i = 0; i < batch; i++) {
                    b.id = i;
                    acc += lat_trace_ship(k, &b);
                }
                break;
            }
            uint64_t t1 = lat_cycles_fenced();
            lat_do_not_optimize(acc);
            ns[j][r] = (double)lat_clock_to_ns(cal, t1 - t0) / batch;
            /* empty the rings, untimed */
            if (j == K_PUSH)
                while (lat_spsc_try_pop_t(ring, &it)) {
                }
            if (j == K_SHIP) {
                lat_trace_stamps x;
                while (lat_spsc_try_pop_t(&k->ring, &x)) {
                }
            }
        }
    }
    double med[K_N];
    printf("bench_trace: %u rounds x %u calls, median ns per call (ring capacity 8192)\n", rounds,
           batch);
    for (int j = 0; j < K_N; j++) {
        med[j] = lat_stats_median_high(ns[j], rounds); /* sorts: p10/p90 read below */
        printf("  %-18s %7.2f ns   (p10 %.2f, p90 %.2f)\n", names[j], med[j], ns[j][rounds / 10],
               ns[j][rounds * 9 / 10]);
        free(ns[j]);
    }
    printf("  ship / bare push   %7.2fx   (goal <= 1.2x)\n", med[K_SHIP] / med[K_PUSH]);
    printf("  stamp / fenced     %7.2fx\n", med[K_STAMP] / med[K_FENCED]);
    lat_trace_counts n;
    lat_trace_sink_counts_get(k, &n);
    if (n.dropped) printf("  (ship dropped %llu: ring was full)\n", (unsigned long long)n.dropped);
    lat_spsc_destroy(ring);
    lat_trace_destroy(t);

    /* The aggregator: 4 stages, drain mode, blocks shipped untimed. */
    static const lat_trace_stage st4[] = {
        {"q1+wake", 0, 1}, {"work", 1, 2}, {"q2+wake", 2, 3}, {"e2e", 0, 3}};
    c.stages = st4;
    c.nstages = 4;
    c.interval_ns = 3600000000000ull; /* no interval closes inside the timing */
    if (lat_trace_create(&c, &t) || lat_trace_sink_create(t, 8192, &k)) return 1;
    unsigned drounds = rounds / 20 + 1;
    double *dn = calloc(drounds, sizeof(double));
    for (unsigned r = 0; r < drounds; r++) {
        for (unsigned i = 0; i < 8192; i++) {
            lat_trace_stamp(&b, 0);
            lat_trace_stamp_at(&b, 1, b.t[0] + 100 + i % 50);
            lat_trace_stamp_at(&b, 2, b.t[1] + 60);
            lat_trace_stamp_at(&b, 3, b.t[2] + 200 + i % 300);
            lat_trace_ship(k, &b);
        }
        uint64_t t0 = lat_cycles_fenced();
        int got = lat_trace_drain(t);
        uint64_t t1 = lat_cycles_fenced();
        dn[r] = got > 0 ? (double)lat_clock_to_ns(cal, t1 - t0) / got : 0;
    }
    double dmed = lat_stats_median_high(dn, drounds); /* sorts dn */
    printf("  drain, 4 stages    %7.2f ns per block (%u rounds of 8192; p10 %.2f, p90 %.2f)\n",
           dmed, drounds, dn[drounds / 10], dn[drounds * 9 / 10]);
    free(dn);
    lat_trace_destroy(t);
    return 0;
}
