/* prom_hlog_gen.c - write an interval log (.hlog, 1 s intervals) of N
 * latencies drawn from a log-normal distribution (median MEDIAN_NS, shape
 * SIGMA) with a fixed seed, plus an optional tail (a fraction TAIL of the
 * values times 50), for the Prometheus fleet tests: two "hosts" with known,
 * different distributions.
 *
 *   prom_hlog_gen OUT.hlog SEED N MEDIAN_NS SIGMA [TAIL] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlab/hist.h"
#include "latlab/hlog.h"

static unsigned long long state;
static double urand(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return ((double)(state >> 11) + 0.5) / 9007199254740992.0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: prom_hlog_gen OUT.hlog SEED N MEDIAN_NS SIGMA [TAIL]\n");
        return 2;
    }
    state = strtoull(argv[2], NULL, 10) * 2654435761ull + 1;
    long n = strtol(argv[3], NULL, 10);
    double median = strtod(argv[4], NULL), sigma = strtod(argv[5], NULL);
    double tail = argc > 6 ? strtod(argv[6], NULL) : 0;
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    lat_hist h;
    lat_hlog_writer w;
    if (lat_hist_init(&h, 1, 100000000000ll, 3) || lat_hlog_writer_init(&w, f, 1.7e9, 1.7e9, 0))
        return 1;
    for (long i = 0; i < n; i++) {
        /* Box-Muller normal -> log-normal */
        double z = sqrt(-2 * log(urand())) * cos(2 * M_PI * urand());
        double v = median * exp(sigma * z);
        if (tail > 0 && urand() < tail) v *= 50;
        lat_hist_record(&h, (int64_t)v);
        if ((i + 1) % (n / 4 > 0 ? n / 4 : 1) == 0 || i + 1 == n) {
            if (lat_hist_total(&h) == 0) continue;
            if (lat_hlog_write_interval(&w, &h, NULL, 1.7e9 + (double)i / n * 4, 1.0)) return 1;
            lat_hist_reset(&h);
        }
    }
    lat_hist_fini(&h);
    return fclose(f) ? 1 : 0;
}
