/* noise_report.h - what an injector (noise.h) took, as `latlab noise` and
 * the --noise option print it: the spec, one row per CPU (bursts, stalls,
 * time taken, share, wake-up lateness, rescheduled bursts) and the total
 * against the share asked; and the same as JSON.
 *
 * Experimental: may change.  Thread-safe on distinct streams. */
#ifndef LATLAB_NOISE_REPORT_H
#define LATLAB_NOISE_REPORT_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/noise_report.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdio.h>

#include "latlab/noise.h"

struct json_t;

/* The table into f. */
void lat_noise_report_print(FILE *f, const lat_noise_spec *s, const lat_noise_report *r);

/* {spec, fifo_priority, elapsed_ns, bursts, stalls, taken_ns, share, cpus:
 * [{cpu, bursts, stalls, taken_ns, stall_ns, share, wake_mean_ns,
 * wake_max_ns, rescheduled}]}; NULL when out of memory. */
struct json_t *lat_noise_report_json(const lat_noise_spec *s, const lat_noise_report *r);

#endif
