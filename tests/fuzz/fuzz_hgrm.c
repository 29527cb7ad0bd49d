/* fuzz_hgrm.c - lat_hgrm_parse() on arbitrary bytes (.hgrm files come from
 * other tools and other machines), then a plot of whatever it accepted.  It
 * must never crash; accepted rows must satisfy the parser's contract
 * (percentiles 0..100 and non-decreasing, values finite and >= 0), and the plot
 * writer must render them, linear and log, without error. */
#include "latlab/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    lat_hgrm h;
    size_t line = 0;
    if (lat_hgrm_parse((const char *)data, size, 1.0, &h, &line) != 0) return 0;
    for (size_t i = 0; i < h.n; i++) {
        const lat_plot_point *p = &h.points[i];
        if (!(p->pct >= 0 && p->pct <= 100) || !isfinite(p->value_ns) || p->value_ns < 0) abort();
        if (i && p->pct < h.points[i - 1].pct) abort();
    }
    lat_plot *pl = NULL;
    if (lat_plot_create("fuzz", &pl) != 0) abort();
    if (lat_plot_add_series(pl, "s", h.points, h.n) != 0) abort();
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        if (lat_plot_write_svg(pl, devnull) != 0) abort();
        lat_plot_set_log_y(pl, true);
        if (lat_plot_write_svg(pl, devnull) != 0) abort();
        fclose(devnull);
    }
    lat_plot_destroy(pl);
    lat_hgrm_fini(&h);
    return 0;
}
