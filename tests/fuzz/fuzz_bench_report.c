/* fuzz_bench_report.c - reading a benchmark report (the harness compares with
 * files from a results folder, so they are outside input): any bytes that
 * parse as JSON go through lat_bench_report_from_json(); it must never crash,
 * and an accepted report must write back, read again to an equal document,
 * and compare with itself (compatible, every result unchanged or
 * inconclusive, never changed). */
#include "latlab/bench.h"

#include <jansson.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, 0, &je);
    if (!j) return 0;
    lat_bench_report *rep = NULL;
    char err[256];
    if (lat_bench_report_from_json(j, &rep, err, sizeof err) == 0) {
        json_t *out = lat_bench_report_to_json(rep);
        if (!out) abort();
        lat_bench_report *back = NULL;
        if (lat_bench_report_from_json(out, &back, err, sizeof err) != 0) abort();
        json_t *out2 = lat_bench_report_to_json(back);
        if (!out2 || !json_equal(out, out2)) abort();
        lat_bench_comparison *c = NULL;
        if (lat_bench_compatible(rep, back, NULL, 0) == 0 &&
            lat_bench_compare(rep, back, NULL, &c) == 0) {
            if (c->improved || c->regressed) abort();
            lat_bench_comparison_destroy(c);
        }
        json_decref(out);
        json_decref(out2);
        lat_bench_report_destroy(back);
        lat_bench_report_destroy(rep);
    }
    json_decref(j);
    return 0;
}
