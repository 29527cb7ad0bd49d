/* co.h - coordinated omission made visible, as a library engine (`latlab co`).
 *
 * One toy service (busy work of service_ns per request, one injected stall of
 * stall_ns at request stall_at) is measured closed loop (each request timed
 * from its own start: the harness stops sending while the service is frozen,
 * so the requests that were due never exist) and open loop (requests sent on
 * a timetable at rate_hz and timed from their intended send time, so every
 * request due during the stall carries its share of it).  The closed-loop
 * samples also go through HdrHistogram's correction (record_corrected with
 * the expected interval) to show how much of the truth it recovers.
 *
 * Experimental: the demonstration's knobs may change.  Runs block (spinning
 * one thread); not thread-safe on the same result. */
#ifndef LATLAB_CO_H
#define LATLAB_CO_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/co.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdint.h>

#include "latlab/hist.h"

typedef struct lat_co_config {
    uint64_t events;     /* requests per loop (> 0) */
    uint64_t rate_hz;    /* the open loop's send rate; the correction's interval (> 0) */
    uint64_t service_ns; /* busy work per request */
    uint64_t stall_ns;   /* the one freeze (a sleep) ... */
    uint64_t stall_at;   /* ... at this request */
} lat_co_config;

/* The three histograms (ns, 1 ns .. 1 hour, 3 figures). */
typedef struct lat_co_result {
    lat_hist closed, corr, open;
} lat_co_result;

/* The demonstration's defaults: 20000 requests at 10000/s, 20 us of work, a
 * 100 ms stall at request 10000. */
void lat_co_config_default(lat_co_config *c);
/* 0, -ENOMEM (nothing left to fini). */
int lat_co_result_init(lat_co_result *r);
void lat_co_result_fini(lat_co_result *r);
/* The closed loop into r->closed and r->corr.  -EINVAL on a bad config. */
int lat_co_run_closed(const lat_co_config *c, lat_co_result *r);
/* The open loop into r->open.  -EINVAL on a bad config. */
int lat_co_run_open(const lat_co_config *c, lat_co_result *r);
/* The configuration as a JSON object (new reference, or NULL). */
struct json_t *lat_co_config_json(const lat_co_config *c);

#endif /* LATLAB_CO_H */
