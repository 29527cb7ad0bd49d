/* dce.h - the figures of `latlab dce` (warm-up 3): the dead-code-elimination
 * trap (a multiply-add whose result is unused, against the same through
 * lat_do_not_optimize), a ring on one thread and between two CPUs, and the
 * cache-line ping-pong floor of the same run; the verdict (is the trap
 * sprung, is the cross-core figure below the floor), the text and the JSON.
 * Internal to latlab (not installed); writes only to the FILE it is given. */
#ifndef LATLAB_DCE_H
#define LATLAB_DCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bakeoff_rings.h"

struct json_t;

typedef struct lat__dce_figs {
    int cpus[2];
    const char *ring;
    double trap_ns, barrier_ns, st_ns, mops, stream_ns, ratio;
    lat_pingpong_result floor;
    lat__bakeoff_lat cross;
    bool implausible, trap_sprung;
} lat__dce_figs;

/* Fill stream_ns, ratio, implausible (round trip below 0.9 x the floor) and trap_sprung
 * (the unused loop took under a tenth of the kept one's time) from the figures. */
void lat__dce_judge(lat__dce_figs *f);

/* The figures and the verdict into out. */
void lat__dce_print(const lat__dce_figs *f, double cycles_per_ns, FILE *out);

/* The figures as JSON (ops and samples: the run's sizes); NULL when out of
 * memory. */
struct json_t *lat__dce_json(const lat__dce_figs *f, double cycles_per_ns, uint64_t ops,
                             uint64_t samples);

#endif
