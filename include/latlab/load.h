/* load.h - the engine of `latlab load`: an open-loop load generator for a
 * real service over TCP. */

/* Every request has an intended send time from the schedule: constant or
 * Poisson arrivals, computed as it goes, so memory does not grow with duration
 * or rate.  One thread (the caller of lat_load_run, pinned when asked) spins
 * on the cycle counter to each intended time and sends on the first
 * connection with room (in-flight cap per connection).  When every connection
 * is full the request waits, and the wait counts in its latency.  No request
 * is skipped: late ones go out back to back.  Responses are read from
 * nonblocking sockets through epoll and parsed incrementally (loadproto.h). */

/* While nothing can be sent before a response comes (every connection full,
 * or the schedule over), the thread waits in epoll_wait (1 ms at most)
 * instead of spinning, leaving the CPU to a server that may share it.  The
 * wake-up counts in that response's latency, as it would for any client. */

/* Histograms, in ns (lat_load_series):
 *   latency = completion - intended send;
 *   service = completion - actual send;
 *   wait    = the time a due request waited on the service: it found every
 *             connection at its in-flight cap with no response left to read,
 *             until one gained room;
 *   lag     = the rest of actual - intended send (the generator's own health:
 *             how late it sent what could go out).
 * latency = wait + lag + service, request by request. */

/* The sending thread's platform gaps are recorded with gaps.h over its loop.
 * Inside a send(), which on loopback runs the receiver's network stack
 * inline, only the part beyond the mean send counts, in a send that took three
 * times that mean and four thresholds (the vCPU was taken in it).
 *
 * A request whose lag exceeds late_ns is "late".  It is "late because of a
 * gap" when the gaps since the first of its run of late sends was ready add
 * up to its lag, less late_ns: without them it, and the backlog they left,
 * would have gone out on time.  A sender that cannot keep its rate runs later
 * than its gaps explain: it is late on its own. */

/* Of the other late requests, those whose run of late sends began before a
 * wait for a connection ended are counted apart (counts.late_wait).  The
 * service stalled with every connection full, and its backlog then went out
 * one send at a time; more connections keep that queue at the service.
 *
 * Requests late because of a gap are censored: the platform, not the
 * generator or the service, set their latency.  It goes to a fifth histogram
 * (censored), and their service, wait and lag to none; the other four hold
 * the requests the platform did not touch.  Sender gaps do not depend on the
 * service's state, so the kept requests sample the schedule as a thinned
 * copy. */

/* Three things the censoring cannot remove, and the report shows beside:
 *   - the service may stall with the sender (a host taking both CPUs at
 *     once): the censored requests' own latency is printed next to the kept
 *     ones;
 *   - the late requests, sent back to back, may queue the first on-time ones
 *     after them at the service;
 *   - a server that runs on the sending thread's CPU takes time there that
 *     reads as a gap although its own load set it.  Pin the sender away from
 *     the server (cfg.cpu); counts.runq_ns says how long the sender waited
 *     behind this machine's other threads. */

/* Failed requests are counted by kind and the connection is reopened.  The
 * run stops (fatal) when no connection can be opened for a second, or at the
 * start when any cannot.  A run ends by its deadline, the schedule plus the
 * timeout, whatever the service does: what was never answered or never sent
 * by then fails (timeout, unsent). */

/* Threading: lat_load_run on one thread; lat_load_interval, lat_load_counts and
 * lat_load_stop from one other thread meanwhile.  Allocation only in create,
 * but for HTTP/2: a connection made (again) allocates its session, and
 * nghttp2 allocates per stream through a recycling allocator (loadh2.h) that
 * stops taking from malloc once the streams in flight reached their most. */
#ifndef LATLAB_LOAD_H
#define LATLAB_LOAD_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/load.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "latlab/hist.h"
#include "latlab/loadproto.h"
#include "latlab/loadsched.h"

/* ---- the schedule: loadsched.h (lat_load_arrivals, lat_loadsched, plans, shares) -------- */

/* The target: loadtarget.h.  The --arrivals replay file: loadsched.h. */

/* ---- the run ------------------------------------------------------------------------- */

typedef enum lat_load_err {
    LAT_LOAD_REFUSED,    /* connect refused or failed */
    LAT_LOAD_RESET,      /* connection reset with requests in flight */
    LAT_LOAD_CLOSED,     /* the server closed a connection with requests in flight */
    LAT_LOAD_MALFORMED,  /* a response the parser refused */
    LAT_LOAD_OVERSIZED,  /* a response over max_response */
    LAT_LOAD_TIMEOUT,    /* no response within timeout_ns */
    LAT_LOAD_ABORTED,    /* due but never sent: the run stopped (fatal) first */
    LAT_LOAD_UNSENT,     /* due but never sent: lat_load_stop or the deadline ended the run */
    LAT_LOAD_UNANSWERED, /* in flight when lat_load_stop ended the run (after its grace) */
    LAT_LOAD_RSTSTREAM,  /* HTTP/2: the server reset the request's stream (RST_STREAM) */
    LAT_LOAD_GOAWAY,     /* HTTP/2: a GOAWAY from the server refused the request's stream */
    LAT_LOAD_NERR
} lat_load_err;

/* "refused", "reset", "closed", "malformed", "oversized", "timeout", "aborted",
 * "unsent", "unanswered", "rst_stream", "goaway". */
const char *lat_load_err_name(lat_load_err k);

typedef struct lat_load_cfg {
    struct sockaddr_storage addr; /* the target (IPv4 or IPv6) */
    socklen_t addr_len;
    const lat_loadproto *proto; /* read-only during the run; outlives it */
    lat_load_arrivals arrivals;
    double rate_hz;         /* > 0 */
    uint64_t duration_ns;   /* intended send times in [0, duration) */
    uint64_t seed;          /* Poisson stream */
    unsigned connections;   /* >= 1 */
    unsigned max_inflight;  /* per connection, >= 1 (1: no pipelining) */
    uint64_t timeout_ns;    /* per request; 0 = 10 s */
    int cpu;                /* pin the sending thread there; -1: no pinning */
    uint64_t gap_ns;        /* gap threshold; 0 = LAT_GAPS_DEFAULT_NS */
    uint64_t late_ns;       /* "late" lag; 0 = the gap threshold */
    size_t arrival_samples; /* inter-arrival and latency-pair samples kept; 0 = 1000 */
    uint64_t start_cycles;  /* the schedule's zero on the cycle counter; 0: 1 ms after
                               the connections are up.  Several engines given one
                               start share one timetable (sending threads) */
    uint64_t offset_ns;     /* added to every intended time (interleaves engines) */
    /* LAT_LOAD_REPLAY: the next intended time, ns from the start,
     * non-decreasing; UINT64_MAX ends the schedule.  Called on the sending
     * thread, once per request, ahead of its time (keep it cheap: a buffered
     * read).  rate_hz is then the mean rate (for the backlog estimate). */
    uint64_t (*replay_next)(void *ud);
    void *replay_ud;
    /* A rate schedule (loadsched.h): FIXED with from_hz 0 (zeroed) is rate_hz
     * throughout; any other is the one schedule the engine takes its share of
     * (rate_hz then its mean share, duration_ns its length). */
    lat_loadsched_plan plan;
    uint32_t stride, phase; /* keep the arrivals of the schedule marked phase (0: all) */
    /* https:// targets: every connection speaks TLS through this context
     * (loadtls.h; shared by engines, outlives the run), its handshake done
     * before it takes requests.  NULL: plain TCP. */
    struct lat_loadtls *tls;
    /* --targets: each request goes to the target its arrival number picks
     * (loadtarget.h; http, one origin), with that target's request, and is
     * counted there too (shared by engines, outlives the run).  proto then
     * reads the replies.  NULL: every request is proto's. */
    struct lat_loadtargets *targets;
    /* HTTP/2 (loadh2.h; proto must be http): each connection one session, each
     * request a stream, max_inflight the streams per connection (the server's
     * SETTINGS_MAX_CONCURRENT_STREAMS caps them too).  Over tls, h2 chosen by
     * ALPN (the context made with lat_loadtls_opts.h2); else h2c with prior
     * knowledge.  A connection takes requests once the server's SETTINGS came,
     * within the connect's 2 s. */
    bool http2;
} lat_load_cfg;

/* Counters: consistent enough to print while running (each read atomically). */
typedef struct lat_load_counts {
    uint64_t scheduled; /* intended send times reached */
    uint64_t sent, completed;
    uint64_t error_replies; /* complete responses that said error (HTTP >= 400, RESP -ERR, ...) */
    uint64_t errors[LAT_LOAD_NERR];
    uint64_t failed;         /* sum of errors[] over the request kinds (not refused) */
    uint64_t cap_waits;      /* requests that found every connection at its in-flight cap */
    uint64_t late, late_gap; /* lag > late_ns; of those, after a platform gap (censored) */
    uint64_t late_wait;      /* of the late ones kept, in the backlog a wait left: their run
                                of late sends began before every connection had room again */
    uint64_t reconnects, closed_idle; /* connections reopened; closed by the server while idle */
    uint64_t backlog_max;             /* most requests due and not yet sent at once */
    uint64_t gaps, gap_ns, gap_longest_ns; /* the sending thread's platform gaps */
    uint64_t runq_ns;  /* of the run, the sending thread runnable but waiting behind this
                          machine's other threads (schedstat; 0 without it): the part
                          of its gaps a local thread, the server's included, took */
    uint64_t run_ns;   /* from the first intended send to the end of the run */
    uint64_t stopped;  /* 1 when lat_load_stop cut the run short (its schedule or its
                          drain); summed over engines */
    uint64_t deadline; /* 1 when the run reached its deadline (schedule + timeout)
                          with requests unanswered or unsent; summed over engines */
    /* HTTP/2: */
    uint64_t stream_waits; /* of cap_waits, those where a connection was full at the server's
                              SETTINGS_MAX_CONCURRENT_STREAMS, under the in-flight cap */
    uint64_t goaways;      /* GOAWAY frames received (the connection then re-made) */
    uint64_t flow_stalls;  /* request bodies that found the server's window too small */
} lat_load_counts;

typedef struct lat_load lat_load;

/* Check cfg and allocate everything the run needs.  0, -EINVAL (bad cfg:
 * NULL proto, rate <= 0, no connections, ...) or -ENOMEM. */
int lat_load_create(const lat_load_cfg *cfg, lat_load **out);
void lat_load_destroy(lat_load *l); /* NULL is fine; not while running */

/* Run to the end of the schedule and until every request sent has completed
 * or failed, for at most the schedule plus timeout_ns (the deadline): then
 * what is in flight fails as a timeout and what is due and unsent as unsent
 * (counts.deadline).  Returns 0, or a negative errno when the run could not go on
 * (-ECONNREFUSED and friends from connect; when every connection stayed down
 * for a second, the last connect's error, -ECONNREFUSED for a target that
 * went away, or -EIO; the counts say how far it got; -EPROTO for a TLS
 * handshake or certificate that failed, lat_loadtls_error saying why; a
 * handshake counts as the connect, "refused", when it fails), -EINVAL when
 * pinning to cfg->cpu failed.  Call once. */
int lat_load_run(lat_load *l);

/* Ask a running lat_load_run to stop (async-signal-safe): within about a
 * millisecond the requests already due and unsent fail as unsent, nothing
 * more is scheduled, and the requests in flight get LAT_LOAD_STOP_GRACE_NS
 * (at most timeout_ns) to complete before they fail as unanswered; the run
 * then returns 0 with counts.stopped set when it cut anything short. */
#define LAT_LOAD_STOP_GRACE_NS 100000000ull
void lat_load_stop(lat_load *l);

/* The histograms of a run, by index. */
typedef enum lat_load_series {
    LAT_LOAD_LATENCY,
    LAT_LOAD_SERVICE,
    LAT_LOAD_LAG,
    LAT_LOAD_WAIT,
    LAT_LOAD_CENSORED, /* latency of the requests censored (late because of a gap) */
    LAT_LOAD_NSERIES
} lat_load_series;

/* Interval histograms since the previous call, into h[series] (each NULL-able;
 * same geometry as lat_load_hist_init gives).  One reader thread.  0 or
 * negative errno. */
int lat_load_interval(lat_load *l, lat_hist *const h[LAT_LOAD_NSERIES]);
/* The histogram geometry the engine records in (1 ns .. 1 hour, 3 digits). */
int lat_load_hist_init(lat_hist *h);

void lat_load_counts_get(const lat_load *l, lat_load_counts *out);
/* The run step by step (every request by the step of its intended time;
 * one step for a fixed rate): valid after the run. */
const lat_loadsched_steps *lat_load_steps(const lat_load *l);

/* The sampled inter-arrival times of actual sends, ns, between consecutive
 * sends neither of which was censored (valid after the run; a uniform sample
 * of at most cfg->arrival_samples).  Returns the count. */
size_t lat_load_interarrivals(const lat_load *l, const double **out);
/* The sampled pairs (latency, latency of the next completion), ns, as 2n
 * values (after the run; at most cfg->arrival_samples pairs): the lag-1
 * dependence of latencies.  Returns n. */
size_t lat_load_latency_pairs(const lat_load *l, const double **out);
/* The counts as JSON and their gaps line: loadverdict.h. */

#endif /* LATLAB_LOAD_H */
