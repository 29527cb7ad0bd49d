/* counters.c - per-sample hardware counters for the harness, through the perf
 * component: one counter set per measuring thread, enabled only around
 * measured samples, summed per result (and per worker role), then reported
 * per operation (cycles/op, instructions/op, IPC, branch-miss %, cache
 * misses/op, backend-stall %).  Where the machine has no PMU (a VM) the set is
 * not used at all and the result carries one note saying why. */
#include "internal.h"

#include "latlab/perf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const events = "cycles,instructions,branches,branch-misses,cache-references,"
                                  "cache-misses,stalled-cycles-backend";

int lat__bench_pmu_open(struct lat_perf **out, char *note, size_t notelen) {
    lat_perf *p = NULL;
    *out = NULL;
    int rc = lat_perf_create(&p, events, NULL);
    if (rc) {
        snprintf(note, notelen, "hardware counters unavailable: %s", strerror(-rc));
        return rc;
    }
    if (lat_perf_error(p, PMU_CYCLES) != 0) {
        const char *why = lat_perf_reason(p, PMU_CYCLES);
        snprintf(note, notelen, "hardware counters unavailable (cycles/op etc. omitted): %s",
                 why ? why : "cycles cannot be counted");
        lat_perf_destroy(p);
        return -ENOENT;
    }
    note[0] = 0;
    size_t used = 0;
    for (size_t i = 0; i < PMU_NEV; i++)
        if (lat_perf_error(p, i) != 0) {
            const char *why = lat_perf_reason(p, i);
            int w = snprintf(note + used, notelen - used, "%s%s not counted (%s)",
                             used ? "; " : "counters: ", lat_perf_name(p, i), why ? why : "?");
            if (w < 0 || (size_t)w >= notelen - used) break;
            used += (size_t)w;
        }
    *out = p;
    return 0;
}

void lat__bench_pmu_close(struct lat_perf *p) {
    lat_perf_destroy(p);
}

int lat__bench_pmu_start(struct lat_perf *p) {
    return p ? lat_perf_start(p) : 0;
}

void lat__bench_pmu_stop_add(struct lat_perf *p, pmu_acc *a) {
    if (!p) return;
    lat_perf_stop(p);
    lat_perf_count c[PMU_NEV];
    int n = lat_perf_read(p, c, PMU_NEV);
    if (n <= 0) return;
    if (!a->any) a->min_coverage = 1;
    a->any = true;
    for (int i = 0; i < n; i++) {
        if (c[i].state == LAT_PERF_UNAVAILABLE || c[i].state == LAT_PERF_NOT_COUNTED) continue;
        a->v[i] += c[i].scaled;
        a->seen[i] = true;
        if (c[i].coverage < a->min_coverage) a->min_coverage = c[i].coverage;
    }
}

void lat__bench_pmu_merge(pmu_acc *dst, const pmu_acc *src) {
    if (!src->any) return;
    if (!dst->any) dst->min_coverage = 1;
    dst->any = true;
    for (int i = 0; i < PMU_NEV; i++) {
        dst->v[i] += src->v[i];
        dst->seen[i] |= src->seen[i];
    }
    if (src->min_coverage < dst->min_coverage) dst->min_coverage = src->min_coverage;
}

void lat__bench_pmu_finish(const pmu_acc *a, uint64_t ops, lat_bench_pmu *out) {
    memset(out, 0, sizeof *out);
    if (!a->any || !a->seen[PMU_CYCLES] || ops == 0) return;
    double o = (double)ops;
#define V(i) (a->seen[i] ? a->v[i] : NAN)
    out->valid = true;
    out->cycles_per_op = V(PMU_CYCLES) / o;
    out->instructions_per_op = V(PMU_INSTRUCTIONS) / o;
    out->ipc = V(PMU_INSTRUCTIONS) / V(PMU_CYCLES);
    out->branch_miss_pct = 100.0 * V(PMU_BRANCH_MISSES) / V(PMU_BRANCHES);
    out->cache_misses_per_op = V(PMU_CACHE_MISSES) / o;
    out->stalled_pct = 100.0 * V(PMU_STALLED_BACKEND) / V(PMU_CYCLES);
    out->coverage = a->min_coverage;
#undef V
}
