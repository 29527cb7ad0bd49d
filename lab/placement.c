/* placement.c - where the host put the vCPUs, from the floors of a
 * protocol result (see lab_placement.h). */
#include "latlab/lab_placement.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc_internal.h"
#include "lab_internal.h"
#include "latlab/lab.h"
#include "latlab/stats.h"

/* ---- placement ---------------------------------------------------------------------------- */

static bool floor_ok(double v) {
    return !isnan(v) && v > 0;
}

/* Floors above this are the far placement (INFINITY: one placement, or no
 * memory to sort them). */
double lat__lab_placement_cut(const lat_lab_result *res) {
    double *v = lat__alloc((2 * res->nruns + 1) * sizeof *v);
    if (!v) return INFINITY;
    size_t n = 0;
    for (size_t i = 0; i < res->nruns; i++) {
        const double f[2] = {res->runs[i].floor_ns, res->runs[i].floor_after_ns};
        for (int j = 0; j < 2; j++)
            if (floor_ok(f[j])) v[n++] = f[j];
    }
    lat_stats_sort(v, n);
    double cut = INFINITY, widest = LAT_LAB_PLACEMENT_SPLIT;
    for (size_t i = 1; i < n; i++)
        if (v[i] / v[i - 1] > widest) widest = v[i] / v[i - 1], cut = sqrt(v[i] * v[i - 1]);
    lat__free(v);
    return cut;
}

int lat__lab_placement_at(const lat_lab_run_rec *r, double cut) {
    bool b = floor_ok(r->floor_ns), a = floor_ok(r->floor_after_ns);
    int pb = b && r->floor_ns > cut, pa = a && r->floor_after_ns > cut;
    if (b && a && pb != pa) return LAT_LAB_MOVED;
    return (b ? pb : pa) ? LAT_LAB_FAR : LAT_LAB_NEAR;
}

int lat_lab_run_placement(const lat_lab_result *res, const lat_lab_run_rec *rec) {
    return lat__lab_placement_at(rec, lat__lab_placement_cut(res));
}

void lat_lab_placement_of(const lat_lab_result *res, lat_lab_placement *o) {
    memset(o, 0, sizeof *o);
    o->near_ns = o->far_ns = NAN;
    if (!res || !res->nruns) return;
    double *fl = lat__alloc(2 * res->nruns * sizeof *fl);
    if (!fl) return;
    double *f2 = fl + res->nruns;
    double cut = lat__lab_placement_cut(res);
    unsigned nf = 0;
    for (size_t i = 0; i < res->nruns; i++) {
        const lat_lab_run_rec *r = &res->runs[i];
        double v = floor_ok(r->floor_ns) ? r->floor_ns : r->floor_after_ns;
        if (!floor_ok(v)) continue;
        o->measured++;
        int pl = lat__lab_placement_at(r, cut);
        if (pl == LAT_LAB_MOVED)
            o->during++;
        else if (pl == LAT_LAB_FAR)
            f2[nf++] = v;
        else
            fl[o->near++] = v;
    }
    o->far = nf;
    if (o->near) o->near_ns = lat_stats_median(fl, o->near);
    if (nf) o->far_ns = lat_stats_median(f2, nf);
    o->moved = (o->near && nf) || o->during;
    lat__free(fl);
}

/* "floor 250 ns", or "no floor" when no run was in that placement. */
static void floor_of(char *buf, size_t len, const char *word, double ns) {
    if (isfinite(ns))
        snprintf(buf, len, "%s%.0f ns", word, ns);
    else
        snprintf(buf, len, "no floor");
}

void lat_lab_placement_text(const lat_lab_placement *pl, char *buf, size_t len) {
    char nf[32], ff[32];
    floor_of(nf, sizeof nf, "floor ", pl->near_ns);
    floor_of(ff, sizeof ff, "", pl->far_ns);
    if (!pl->measured)
        snprintf(buf, len, "the cache-line floor was not measured");
    else if (pl->moved)
        snprintf(buf, len,
                 "the host moved the vCPUs: %u runs near (%s), %u far (%s), %u during a run; "
                 "false sharing costs far less near",
                 pl->near, nf, pl->far, ff, pl->during);
    else { /* the one placement's floor, whichever side it was counted on */
        floor_of(nf, sizeof nf, "floor ", isfinite(pl->near_ns) ? pl->near_ns : pl->far_ns);
        snprintf(buf, len, "one placement in all %u runs (%s)", pl->measured, nf);
    }
}
