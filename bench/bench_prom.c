/* bench_prom.c - the cost of one Prometheus export of 5 stage histograms
 * (the pipeline's shape: (1, 100 s, 3) histograms holding latency-like
 * values), in microseconds, median of REPS:
 *
 *   convert         lat_prom_exporter_set() x 5 (classic + native buckets)
 *   + text          ... then the text exposition (what a classic scrape renders)
 *   + protobuf      ... then the delimited protobuf (a native scrape / a push)
 *   peer: hlog      the same 5 histograms as one interval each in an .hlog
 *                   (compressed V2 + base64: what latlab already writes every
 *                   second), measured in the same run
 *   peer: copy      lat_hist_copy-equivalent memcpy of the 5 count arrays (a
 *                   snapshot's floor)
 * Figures only; never pass/fail.
 *
 *   bench_prom [--reps R] [--n VALUES_PER_STAGE] */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/clock.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"
#include "latlab/prom.h"
#include "latlab/stats.h"

#define NSTAGE 5

static uint64_t xs = 0x9E3779B97F4A7C15ull;
static double unit(void) {
    xs ^= xs << 13;
    xs ^= xs >> 7;
    xs ^= xs << 17;
    return (double)(xs >> 11) * 0x1.0p-53;
}

static double median_us(uint64_t *t, int n) {
    return (double)lat_stats_median_high_u64(t, (size_t)n) / 1e3;
}

int main(int argc, char **argv) {
    int reps = 201;
    long n = 200000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--n")) n = atol(argv[i + 1]);
    }
    if (reps < 3) reps = 3;
    static const char *const stages[NSTAGE] = {"send", "q1+wake", "work", "q2+wake", "e2e"};
    lat_hist h[NSTAGE], copy[NSTAGE];
    for (int s = 0; s < NSTAGE; s++) {
        if (lat_hist_init(&h[s], 1, 100000000000ll, 3) || lat_hist_copy(&copy[s], &h[s])) return 1;
        /* latency-like: a few hundred ns body, an exponential shoulder, rare ms tails */
        for (long i = 0; i < n; i++) {
            double v = 150 + 100 * s - log(1 - unit()) * 80 * (s + 1);
            if (unit() < 0.001) v *= 1000 * unit();
            lat_hist_record(&h[s], (int64_t)v);
        }
    }
    lat_prom_exporter_config c = {
        .run = "bench", .host = "host", .nseries = NSTAGE, .stages = stages, .unit_s = 1e-9};
    lat_prom_exporter *e = NULL;
    if (lat_prom_exporter_create(&c, &e)) return 1;
    size_t cap = lat_prom_exporter_bound(e), len = 0, text_len = 0, pb_len = 0, hlog_len = 0;
    char *buf = malloc(cap);
    uint64_t *t = malloc((size_t)reps * sizeof *t);
    if (!buf || !t) return 1;
    const char *names[] = {"convert", "+ text", "+ protobuf", "peer: hlog", "peer: copy"};
    double med[5];
    for (int kind = 0; kind < 5; kind++) {
        for (int r = 0; r < reps; r++) {
            FILE *f = kind == 3 ? fopen("/dev/null", "w") : NULL;
            lat_hlog_writer w;
            if (f) lat_hlog_writer_init(&w, f, 0, 0, 0);
            uint64_t t0 = lat_mono_ns();
            if (kind <= 2) {
                for (int s = 0; s < NSTAGE; s++)
                    lat_prom_exporter_set(e, s, &h[s]);
                if (kind == 1) lat_prom_exporter_text(e, LAT_PROM_TEXT, buf, cap, &text_len);
                if (kind == 2 && lat_prom_exporter_protobuf(e, (uint8_t *)buf, cap, &pb_len) != 0)
                    pb_len = 0;
            } else if (kind == 3) {
                for (int s = 0; s < NSTAGE; s++)
                    lat_hlog_write_interval(&w, &h[s], stages[s], 0, 1);
                fflush(f);
                hlog_len = (size_t)ftell(f);
            } else {
                for (int s = 0; s < NSTAGE; s++)
                    memcpy(copy[s].counts, h[s].counts, (size_t)h[s].counts_len * sizeof(int64_t));
            }
            t[r] = lat_mono_ns() - t0;
            if (f) fclose(f);
        }
        med[kind] = median_us(t, reps);
    }
    (void)len;
    printf("bench_prom: one export of %d stage histograms (1..100 s, 3 digits, %ld values each), "
           "median of %d\n",
           NSTAGE, n, reps);
    for (int k = 0; k < 5; k++)
        printf("  %-12s %9.1f us%s\n", names[k], med[k],
               k == 1   ? ""
               : k == 2 ? (pb_len ? "" : "  (built without protobuf-c: not measured)")
                        : "");
    printf("  sizes: text %zu bytes, protobuf %zu bytes; native schemas", text_len, pb_len);
    for (int s = 0; s < NSTAGE; s++)
        printf(" %d", lat_prom_exporter_schema(e, s));
    printf("\n");
    (void)hlog_len;
    lat_prom_exporter_destroy(e);
    for (int s = 0; s < NSTAGE; s++) {
        lat_hist_fini(&h[s]);
        lat_hist_fini(&copy[s]);
    }
    free(buf);
    free(t);
    return 0;
}
