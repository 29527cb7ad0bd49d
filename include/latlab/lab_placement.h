/* lab_placement.h - where the host put the vCPUs during the lab's rounds.
 * Pure functions of a protocol result (lab.h).
 *
 * Placement is read from the cache-line floor (pingpong.h) measured before and
 * after every run.  A KVM host can move the vCPUs between two placements (a
 * ~130 ns and a ~480 ns round trip here), between two runs of one round or
 * inside a run. */

/* The floors, sorted, split at the widest ratio between two neighbours (at
 * their geometric mean) when it exceeds LAT_LAB_PLACEMENT_SPLIT.  Otherwise
 * every run is "near".  Here one placement's floors spread x1.9 in 10 ns steps
 * (80-150 ns) with no gap wider than x1.25; the two placements sit x2.6-2.9
 * apart.  A run whose two floors fall on either side was moved during the
 * run. */
#ifndef LATLAB_LAB_PLACEMENT_H
#define LATLAB_LAB_PLACEMENT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_placement.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "latlab/lab_verdict.h" /* LAT_LAB_NEAR, LAT_LAB_FAR, LAT_LAB_MOVED */

typedef struct lat_lab_result lat_lab_result;   /* lab.h */
typedef struct lat_lab_run_rec lat_lab_run_rec; /* lab.h */

#define LAT_LAB_PLACEMENT_SPLIT 1.8
typedef struct lat_lab_placement {
    unsigned measured;          /* runs with a floor */
    unsigned near, far, during; /* runs in each placement, runs moved during the run */
    double near_ns, far_ns;     /* their median floors (NAN when none) */
    bool moved;                 /* both placements seen */
} lat_lab_placement;

/* Filled into res->placement when the protocol ends.  NULL res: nothing
 * measured. */
void lat_lab_placement_of(const lat_lab_result *res, lat_lab_placement *out);
/* The placement of one of res's runs (LAT_LAB_NEAR when its floor was not
 * measured). */
int lat_lab_run_placement(const lat_lab_result *res, const lat_lab_run_rec *rec);
/* "the host moved the vCPUs: 5 runs near (floor 121 ns), 7 far (412 ns), 1 during a run" */
void lat_lab_placement_text(const lat_lab_placement *pl, char *buf, size_t len);

#endif /* LATLAB_LAB_PLACEMENT_H */
