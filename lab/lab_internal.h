/* lab_internal.h - what the lab's own files share and nobody else calls
 * (never installed). */
#ifndef LATLAB_LAB_INTERNAL_H
#define LATLAB_LAB_INTERNAL_H

#include <stdbool.h>

#include "latlab/lab.h"

/* An interval the verdict reads: lost share, figures present, no backlog
 * (verdict.c). */
bool lat__lab_interval_clean(const lat_lab_params *p, const lat_lab_fig *f);
/* Floors above the returned value are the far placement (INFINITY: one
 * placement, or no memory to sort them); a run's placement (placement.c). */
double lat__lab_placement_cut(const lat_lab_result *res);
int lat__lab_placement_at(const lat_lab_run_rec *r, double cut);

#endif
