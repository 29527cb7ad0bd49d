/* co.h - coordinated omission made visible, as a library engine (`latlab co`).
 *
 * One toy service (busy work of service_ns per request, one injected stall of
 * stall_ns at request stall_at) is measured closed loop (each request timed
 * from its own start: the harness stops sending while the service is frozen,
 * so the requests that were due never exist) and open loop (requests sent on
 * a timetable at rate_hz and timed from their intended send time, so every
 * request due during the stall carries its share of it).  The closed-loop
 * samples also go through HdrHistogram's correction (record_corrected with
 * the expected interval) to show how much of the truth it recovers. */

/* Experimental: the demonstration's knobs may change.  Runs block (spinning
 * one thread); not thread-safe on the same result. */
#ifndef LATLAB_CO_H
#define LATLAB_CO_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/co.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/hist.h"

typedef struct lat_co_config {
    uint64_t events;     /* requests per loop (> 0) */
    uint64_t rate_hz;    /* the open loop's send rate; the correction's interval (> 0) */
    uint64_t service_ns; /* busy work per request */
    uint64_t stall_ns;   /* the one freeze (a sleep) ... */
    uint64_t stall_at;   /* ... at this request */
} lat_co_config;

#define LAT_CO_SLOW_BUCKETS 48

/* What the platform took from one loop's measuring thread, the same account
 * `latlab pipeline` gives its hot threads: gaps in its own spin loops (the
 * service's busy work and the open loop's pacing; the injected stall is a
 * sleep and is not one), run-queue wait and context switches. */
typedef struct lat_co_platform {
    bool measured;         /* the loop ran */
    uint64_t gaps;         /* spin-loop gaps >= gap_ns */
    uint64_t service_gaps; /* requests with gaps inside their service (each inflated) */
    /* those requests by the gaps' total inside them: bucket b = [2^b, 2^(b+1)) ns */
    uint64_t slowed[LAT_CO_SLOW_BUCKETS];
    double lost_ns;      /* their total */
    double longest_ns;   /* the longest */
    double loop_ns;      /* the loop's wall time */
    double wait_ns;      /* run-queue wait (schedstat; NAN unknown) */
    uint64_t vol, invol; /* context switches */
    double gap_ns;       /* the gap threshold */
} lat_co_platform;

/* The three histograms (ns, 1 ns .. 1 hour, 3 figures) and each loop's
 * platform account. */
typedef struct lat_co_result {
    lat_hist closed, corr, open;
    lat_co_platform plat_closed, plat_open;
    struct lat_gaps *gaps; /* the recorder the loops reuse (internal) */
} lat_co_result;

/* A loop's figures are the host's, not the lesson's, when the platform took
 * at least LAT_CO_BUSY_SHARE of its wall time (gaps or run-queue wait,
 * whichever is larger), or when at least one request in LAT_CO_BUSY_PER had
 * platform gaps inside its service adding up to half its p99.9 or more
 * (counted by slowed[] buckets that reach p999_ns / 2): enough such requests
 * to be the p99.9.  True then, with why (a clause, no newline) in buf
 * (always NUL-terminated when len > 0).  NULL p or an unmeasured loop: false. */
#define LAT_CO_BUSY_SHARE 0.05
#define LAT_CO_BUSY_PER 1000
bool lat_co_host_busy(const lat_co_platform *p, uint64_t events, int64_t p999_ns, char *buf,
                      size_t len);
/* "lost 1.2 ms (0.3%) in 12 gaps >= 10 us (9 requests slowed), longest
 * 310.0 us; run-queue wait 2.1 ms; switches 0 vol 3 invol" into buf. */
void lat_co_platform_text(const lat_co_platform *p, char *buf, size_t len);

/* The verdict, into buf: whether the closed loop hid the stall, from the
 * loops' p99.9 (ns), the closed loop's max (ns) and the corrected p99.9 (ns);
 * ratio is the change closed -> open as lat_budget_change words it.  "hid
 * the stall" only where the closed loop's p99.9 is below the open loop's;
 * otherwise it says the closed loop hid nothing at p99.9 this run. */
void lat_co_verdict_text(int64_t closed_p999_ns, int64_t open_p999_ns, int64_t closed_max_ns,
                         int64_t corrected_p999_ns, const char *ratio, char *buf, size_t len);

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
