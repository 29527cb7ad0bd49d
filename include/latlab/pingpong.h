/* pingpong.h - the cache-line floor: one line bounced between two CPUs.
 *
 * A store on one CPU, then a spin until the other CPU's store is seen, n
 * times, each round trip timed with the cycle counter (lat_cycles_fenced)
 * and converted with the process-wide calibration (lat_clock_default).  No
 * cross-core hand-off can be faster than this, so it is the floor that the
 * ring bake-off (`latlab dce`, `latlab bakeoff ring`) judges its round trips
 * against, and the lab reads the host's vCPU placement from it
 * (lab_placement.h).  Waiting is a pure spin, no PAUSE: PAUSE lasts ~140
 * cycles on recent Intel cores (and can make a VM exit), which would add its
 * own granularity to every hop and hide the line transfer being measured. */
#ifndef LATLAB_PINGPONG_H
#define LATLAB_PINGPONG_H

#include "latlab/compiler.h"

#include <stdint.h>

#include "latlab/hist.h"

/* Run fn(arg, 0) on a thread pinned to cpu[0] and fn(arg, 1) on one pinned
 * to cpu[1], started together (each waits until both are pinned); blocks
 * until both return.  fn runs only when both threads were pinned.  Returns 0,
 * -EAGAIN (a thread could not be created) or the first pinning error
 * (lat_pin_thread).  The two-thread frame of every cross-core measurement
 * (the floor below, the ring bake-off's). */
LAT_API int lat_pinned_pair(const int cpu[2], void (*fn)(void *arg, int side), void *arg);

/* Round-trip percentiles in ns. */
typedef struct lat_pingpong_result {
    double p50_ns, p99_ns, p999_ns, min_ns, max_ns;
    uint64_t samples;
} lat_pingpong_result;

/* A histogram of round trips in cycles as ns percentiles (the process-wide
 * calibration); shared with the ring bake-off's round trips. */
LAT_API void lat_pingpong_fill(const lat_hist *h, lat_pingpong_result *out);

/* n round trips (after n / 10 + 100 warm-up ones) between a thread pinned to
 * cpu_a and one pinned to cpu_b.  Blocks for the whole measurement; starts
 * and joins two threads.  Not reentrant: the line is one static cache line,
 * so two measurements must not run at once.  Returns 0 (out filled), -EINVAL
 * (n == 0 or out NULL), -EAGAIN (no thread), -ENOMEM, or the pinning error
 * (lat_pin_thread). */
LAT_API int lat_pingpong(int cpu_a, int cpu_b, uint64_t n, lat_pingpong_result *out);

#endif /* LATLAB_PINGPONG_H */
