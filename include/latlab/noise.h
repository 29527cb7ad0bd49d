/* noise.h - injected platform noise: take a stated share of chosen CPUs in
 * bursts, reproducibly, so that a measurement can be run under a known
 * platform loss ("what does my pipeline do when the platform takes 10%?"). */

/* One SCHED_FIFO thread per CPU (priority 1 by default: above every normal
 * thread, below the kernel's own RT threads) sleeps until its next burst is
 * due, then busy-spins for the burst.  It takes the CPU from the normal
 * threads pinned there, exactly as a hypervisor or an interrupt storm does.
 * An optional stall (a longer burst, for example 5 ms every 2 s, at a random
 * phase) comes on top. */

/* Bursts start on a jittered schedule, since a fixed period would lock onto
 * the timer tick.  The idle time between the end of one burst and the start
 * of the next is drawn uniformly from [1 - jitter, 1 + jitter] x its mean
 * (jitter 0: a fixed period).  The PRNG is seeded from the spec's seed and the
 * CPU, so a given spec takes the same schedule every run.  The mean period is
 * exactly 1/rate, and bursts never overlap. */

/* Safety: a SCHED_FIFO spinner could starve a CPU, so every burst is bounded
 * (LAT_NOISE_MAX_BURST_NS, by the cycle counter), the total share per CPU is
 * capped (LAT_NOISE_MAX_SHARE), a stop wakes every thread at once (a
 * condition variable, also mid-burst), and the kernel's RT throttling
 * (/proc/sys/kernel/sched_rt_runtime_us, 95% by default) stays a backstop.
 * SCHED_FIFO needs root or CAP_SYS_NICE (or an RLIMIT_RTPRIO): without it
 * lat_noise_start returns -EPERM. */

/* Each burst's start and end (counter values, comparable with lat_gaps) can
 * be logged into a preallocated buffer, so a test can match what was injected
 * with what a spinning thread saw. */

/* Threading: the spec functions are pure [any]; one lat_noise is driven by
 * one thread (create, start, stop, destroy) [setup]. */
#ifndef LATLAB_NOISE_H
#define LATLAB_NOISE_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/noise.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stddef.h>
#include <stdint.h>

#include "latlab/topo.h"

#define LAT_NOISE_MAX_SHARE 0.5             /* bursts + stalls, per CPU */
#define LAT_NOISE_MAX_BURST_NS 100000000ull /* 100 ms: bursts and stalls */
#define LAT_NOISE_MIN_BURST_NS 1000ull      /* 1 us */
#define LAT_NOISE_MIN_RATE_HZ 0.1           /* bursts per second per CPU */
#define LAT_NOISE_MAX_RATE_HZ 50000.0       /* 50 kHz (a wake-up costs ~us) */
#define LAT_NOISE_MAX_JITTER 0.9            /* idle in [0.1, 1.9] x its mean */
#define LAT_NOISE_DEFAULT_JITTER 0.5
#define LAT_NOISE_DEFAULT_SEED 1
#define LAT_NOISE_DEFAULT_PRIORITY 1 /* SCHED_FIFO */
#define LAT_NOISE_MAX_PRIORITY 49    /* below threaded IRQs (50) */

/* What to take.  Text form (lat_noise_parse, lat_noise_spec_format):
 *
 *   cpus=0-1,share=10%,burst=50us,rate=2kHz,stall=5ms/2s,jitter=50%,seed=7,prio=1
 *
 * Fields in any order, each at most once, separated by commas; a CPU list
 * may itself hold commas (cpus=0,2-3,share=...: a piece without '=' after
 * cpus= continues the list).  Two of share, burst and rate are needed (the
 * third follows: share = burst x rate); all three must agree within 1%. */

/* Fields:
 *   cpus    CPU list (0,2-3); optional where the caller picks CPUs
 *   share   per CPU, a percentage (10%) or a fraction (0.1); (0, 50%]
 *   burst   one burst's duration: ns, us, ms or s (bare: ns); 1 us..100 ms
 *   rate    bursts per second per CPU: Hz, kHz or MHz (bare: Hz); 0.1 Hz..50 kHz
 *   stall   LEN/EVERY, both durations: a LEN burst every EVERY (LEN <= 100 ms,
 *           share + LEN/EVERY <= 50%); default none
 *   jitter  0..90% (or a fraction): spread of the idle time between bursts;
 *           0: a fixed period; default 50%
 *   seed    the schedule's PRNG seed (whole number); default 1
 *   prio    SCHED_FIFO priority 1..49, default 1; set it above the threads
 *           to disturb when they run SCHED_FIFO themselves */
typedef struct lat_noise_spec {
    lat_cpuset cpus;         /* empty: not given */
    double share;            /* fraction of each CPU taken by bursts; 0: not given */
    uint64_t burst_ns;       /* 0: not given */
    double rate_hz;          /* 0: not given */
    uint64_t stall_ns;       /* 0: no stalls */
    uint64_t stall_every_ns; /* period of the stalls */
    double jitter;           /* 0..LAT_NOISE_MAX_JITTER */
    uint64_t seed;
    int priority; /* SCHED_FIFO, 1..LAT_NOISE_MAX_PRIORITY */
} lat_noise_spec;

/* Nothing given; jitter, seed and priority at their defaults.  [any] */
void lat_noise_spec_default(lat_noise_spec *s);

/* Set one field from its text (key as in the text form, value as there).
 * Returns 0, or -EINVAL with a sentence in why (len bytes, always
 * terminated when len > 0; why may be NULL) that starts with the field's
 * name and a colon ("share: '60%' is above 50%").  A field already given is
 * not refused here (lat_noise_parse refuses repeats).  [any] */
int lat_noise_spec_set(lat_noise_spec *s, const char *key, const char *value, char *why,
                       size_t len);

/* Complete and check a spec whose fields were set: derive the third of
 * share/burst/rate, check the ranges, the agreement of three given values,
 * the stall and the total share.  Returns 0 (s filled in) or -EINVAL with
 * why as lat_noise_spec_set (named after the field at fault; "share" when
 * fewer than two of the three were given).  The CPU set is not checked (the
 * caller may fill it later; lat_noise_create refuses an empty one).  [any] */
int lat_noise_spec_resolve(lat_noise_spec *s, char *why, size_t len);

/* Parse the text form into *out (defaults, every field, resolve).  Returns 0
 * or -EINVAL with why as above (a repeated field, an unknown one, a piece
 * that is not FIELD=VALUE are named too).  spec NULL or empty: -EINVAL.  [any] */
int lat_noise_parse(const char *spec, lat_noise_spec *out, char *why, size_t len);

/* The text form of a resolved spec (every field; parses back to the same
 * schedule).  Returns the length needed (as snprintf).  [any] */
size_t lat_noise_spec_format(const lat_noise_spec *s, char *buf, size_t len);

/* ---- the injector ----------------------------------------------------------------- */

typedef struct lat_noise lat_noise;

/* One burst as taken, in counter values (lat_cycles) on its CPU.  The
 * timer's wake-up takes the CPU when the burst is due, so a burst runs from
 * `due` (the counter when it was due, from the wake-up's lateness on
 * CLOCK_MONOTONIC) to `end`, len cycles in all: a late wake spins less (a
 * wake later than the whole burst, from RT throttling, a higher priority or
 * the host, is not the burst's doing: it then runs from `start`).  The
 * switch back to the interrupted thread (a few us in a VM) comes after `end`
 * and is not seen by the injector. */
typedef struct lat_noise_burst {
    uint64_t due;    /* the counter when the burst was due */
    uint64_t start;  /* the first read after the wake-up */
    uint64_t end;    /* the spin's last read */
    uint64_t due_ns; /* when the schedule had it, ns after lat_noise_start */
    int stall;       /* 1: a stall, 0: a burst */
} lat_noise_burst;

/* What one CPU's thread took. */
typedef struct lat_noise_cpu_report {
    int cpu;
    uint64_t bursts;       /* bursts done (stalls not counted) */
    uint64_t stalls;       /* stalls done */
    uint64_t taken_ns;     /* from due to end, bursts and stalls, by the counter */
    uint64_t stall_ns;     /* of which in stalls */
    double share;          /* taken_ns / the report's elapsed_ns */
    uint64_t late_mean_ns; /* mean wake-up cost: start vs due (CLOCK_MONOTONIC) */
    uint64_t late_max_ns;
    uint64_t reanchored; /* bursts due before the previous one ended (late
                            wake or a stall): rescheduled after it */
    uint64_t logged;     /* entries kept in the log (lat_noise_log) */
} lat_noise_cpu_report;

typedef struct lat_noise_report {
    uint64_t elapsed_ns; /* from start to stop */
    int ncpus;
    const lat_noise_cpu_report *cpu;   /* ncpus entries, owned by the lat_noise
                                          (valid until lat_noise_destroy) */
    uint64_t bursts, stalls, taken_ns; /* sums over the CPUs */
    double share;                      /* mean over the CPUs */
} lat_noise_report;

/* Build an injector for a resolved spec (copied), keeping up to log_cap
 * bursts per CPU in a log (0: no log).  Threads are not started.  Uses the
 * default calibration (latlab/clock.h, 200 ms on first use).  Returns 0 and
 * *out, or -EINVAL (NULL, an unresolved or out-of-range spec, an empty CPU
 * set, a CPU this process may not run on), -ENOMEM.  [setup] */
int lat_noise_create(const lat_noise_spec *s, size_t log_cap, lat_noise **out);

/* Start one SCHED_FIFO thread per CPU (the first burst comes within one
 * period).  Returns 0; -EPERM when this process may not use SCHED_FIFO (not
 * root, no CAP_SYS_NICE): nothing is left running; -EBUSY when already
 * started; another negative errno from pthread_create.  [setup] */
int lat_noise_start(lat_noise *n);

/* Stop every thread (a burst in progress ends at once), join them and fill
 * *rep (may be NULL) with what was taken.  Idempotent: later calls fill the
 * same report.  Returns 0, or -EINVAL (n NULL, or never started).  [setup] */
int lat_noise_stop(lat_noise *n, lat_noise_report *rep);

/* The log of the i-th CPU of the spec (0 .. ncpus-1, in CPU order) after
 * lat_noise_stop: *out points at its entries in time order (owned by n).
 * Returns the number kept (0 before stop, for a bad i, or without a log). */
size_t lat_noise_log(const lat_noise *n, int i, const lat_noise_burst **out);

/* Stop (as lat_noise_stop) and free.  NULL is fine.  [setup] */
void lat_noise_destroy(lat_noise *n);

#endif /* LATLAB_NOISE_H */
