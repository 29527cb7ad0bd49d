/* perf.h - performance counters through perf_event_open, degrading gracefully. */

/* A counter set is opened once, at setup, in the thread it will count (or for
 * another task / a child process with inherit).  Each event is probed alone
 * first; those that open are grouped: hardware events (cycles, raw, PMU
 * events) under one pinned leader, software events (task-clock, faults,
 * switches) in their own group, each opened disabled.  A region is then */

/*     lat_perf_start(p);  ... work ...  lat_perf_stop(p);  lat_perf_read(p, c, n); */

/* start/stop are one ioctl per group, read is one read() per group; none of
 * them allocates or takes a lock.  Counts are deltas since the previous read,
 * with time_enabled/time_running so multiplexed counts are scaled and their
 * coverage reported; a counter that never ran says "not counted" instead of 0.
 * Where the ioctls cost too much, start once and bracket each region with two
 * reads (the second read's deltas are the region); bench/bench_perf prints
 * both costs. */

/* Events that cannot open stay in the set with a state and a reason a person
 * can act on ("not supported on this machine (no hardware PMU; virtual
 * machine?)", "not permitted: perf_event_paranoid=2; run as root or grant
 * CAP_PERFMON").  EACCES/EPERM retry with exclude_kernel, EINTR retries, EINVAL
 * in a group retries the event alone.  When kernel events cannot be counted,
 * context-switches come from getrusage(RUSAGE_THREAD) (or RUSAGE_CHILDREN in
 * inherit mode) instead of silently reading 0. */

/* Event names: cycles, instructions, branches, branch-misses,
 * cache-references, cache-misses, LLC-load-misses, L1-dcache-load-misses,
 * stalled-cycles-frontend, stalled-cycles-backend, ref-cycles, task-clock,
 * cpu-clock, context-switches (cs), cpu-migrations (migrations), page-faults
 * (faults), minor-faults, major-faults; raw "rNNNN" (hex); "pmu/term=v,.../"
 * with terms taken from <sysfs>/bus/event_source/devices/<pmu>/format (and
 * aliases from .../<pmu>/events); libpfm4 names when built with libpfm.
 * A ":u" or ":k" suffix counts user or kernel only.  In an event list, commas
 * inside "pmu/.../" do not separate events. */
#ifndef LATLAB_PERF_H
#define LATLAB_PERF_H

#include "latlab/compiler.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

/* Most events one set holds. */
#define LAT_PERF_MAX_EVENTS 32
/* Longest event name kept (longer specs are truncated in the name only). */
#define LAT_PERF_NAME_MAX 96
/* Longest reason text. */
#define LAT_PERF_REASON_MAX 192

/* What lat_perf_create(NULL events) counts. */
#define LAT_PERF_DEFAULT_EVENTS                                                                    \
    "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"         \
    "branch-misses"

/* State of one event in one reading. */
typedef enum lat_perf_state {
    LAT_PERF_COUNTED = 0,     /* counted the whole time it was enabled */
    LAT_PERF_SCALED = 1,      /* multiplexed: value scaled by enabled/running */
    LAT_PERF_NOT_COUNTED = 2, /* opened but never scheduled (running == 0) */
    LAT_PERF_FALLBACK = 3,    /* not a perf counter: from getrusage() */
    LAT_PERF_UNAVAILABLE = 4, /* could not open; lat_perf_reason() says why */
} lat_perf_state;

/* Options for lat_perf_create; zero-initialise ({0}) for the defaults. */
typedef struct lat_perf_opts {
    pid_t pid;              /* 0: the calling thread; >0: that thread or process */
    int cpu;                /* -1 or 0 with pid: any CPU.  Use -1; 0 is treated as -1
                               unless cpu_set is true */
    bool cpu_set;           /* cpu is meant literally (per-CPU counting, needs root) */
    bool inherit;           /* also count tasks the target creates after open;
                               each event is then its own group (the kernel sums children) */
    bool enable_on_exec;    /* start counting at the target's next exec (for a forked child) */
    bool user_only;         /* exclude_kernel on every event from the start */
    bool no_pin;            /* do not pin the hardware group leader */
    const char *sysfs_root; /* NULL: "/sys" (tests point it at a fake tree) */
    char *err;              /* optional: why a list failed to parse (NUL-terminated) */
    size_t err_len;
} lat_perf_opts;

/* One event's result for one region. */
typedef struct lat_perf_count {
    uint64_t value;      /* raw count (task-clock/cpu-clock: ns) */
    double scaled;       /* value * enabled/running; == value when fully counted */
    uint64_t enabled_ns; /* time the event was enabled in this region */
    uint64_t running_ns; /* time it was actually on the PMU */
    double coverage;     /* running/enabled in [0,1]; 1 for fallback, 0 when not counted */
    int state;           /* lat_perf_state */
} lat_perf_count;

typedef struct lat_perf lat_perf;

/* Open a counter set.  events: comma-separated list, NULL for
 * LAT_PERF_DEFAULT_EVENTS.  opts may be NULL.  Events that cannot be counted
 * do not fail the call: they stay in the set as LAT_PERF_UNAVAILABLE with a
 * reason.  Returns 0 and *out; LAT_EFORMAT for an unknown name or bad syntax
 * (opts->err says which), -E2BIG for more than LAT_PERF_MAX_EVENTS, -ENOMEM,
 * -EINVAL for NULL out.  Setup only: allocates, makes many syscalls.  With
 * pid 0 the set counts the calling thread: call start/stop/read from it. */
LAT_API int lat_perf_create(lat_perf **out, const char *events, const lat_perf_opts *opts);

/* Close every descriptor and free.  NULL is fine. */
LAT_API void lat_perf_destroy(lat_perf *p);

/* Enable every group (one ioctl each; also one getrusage() when a fallback
 * is in use).  No allocation, no lock.  Returns 0 or a negative errno.  Not
 * thread-safe on one set: one thread drives a set. */
LAT_API int lat_perf_start(lat_perf *p);

/* Disable every group.  Same rules as lat_perf_start. */
LAT_API int lat_perf_stop(lat_perf *p);

/* Read every group (one read() each) into out[0..n) as deltas since the
 * previous read (or open), in the order the events were named.  Works while
 * enabled too.  Returns the number of entries filled (min(n, events)) or a
 * negative errno.  No allocation, no lock.  out NULL with n 0 just advances
 * the baseline. */
LAT_API int lat_perf_read(lat_perf *p, lat_perf_count *out, size_t n);

/* Sum of everything lat_perf_read has returned since open (no syscall).
 * Returns entries filled. */
LAT_API int lat_perf_total(const lat_perf *p, lat_perf_count *out, size_t n);

/* Events in the set, and facts about event i (NULL / -1 / false for a bad i). */
LAT_API size_t lat_perf_nevents(const lat_perf *p);
LAT_API const char *lat_perf_name(const lat_perf *p, size_t i);
/* 0 when the event opened (or has a fallback), else the negative errno or
 * LAT_ENOPMU of the last attempt. */
LAT_API int lat_perf_error(const lat_perf *p, size_t i);
/* Why the event cannot be counted, or a caveat when it is counted partly
 * (user space only, from getrusage); NULL when there is nothing to say. */
LAT_API const char *lat_perf_reason(const lat_perf *p, size_t i);
/* Index of the event with this name (as given, or canonical), or -1. */
LAT_API int lat_perf_find(const lat_perf *p, const char *name);
/* True when the event is a hardware (PMU) event. */
LAT_API bool lat_perf_is_hardware(const lat_perf *p, size_t i);
/* Number of events that count (opened or fallback). */
LAT_API size_t lat_perf_ncountable(const lat_perf *p);

/* Probe one event alone (open, close).  Returns 0 when it opens (reason may
 * still hold a caveat such as "user space only"), else a negative errno or
 * LAT_ENOPMU / LAT_EFORMAT, with reason filled.  reason may be NULL. */
LAT_API int lat_perf_probe(const char *event, const lat_perf_opts *opts, char *reason,
                           size_t reason_len);

/* Parse one event spec into attr (type, config, config1, config2, exclude_*
 * bits; nothing else is set).  sysfs_root NULL means "/sys".  Returns 0, or
 * LAT_EFORMAT / -ENOENT (unknown PMU) with err filled.  Thread-safe. */
LAT_API int lat_perf_parse_event(const char *spec, const char *sysfs_root,
                                 struct perf_event_attr *attr, char *err, size_t err_len);

/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when unreadable. */
LAT_API int lat_perf_paranoid(void);

/* "counted", "scaled", "not counted", "fallback", "unavailable". */
LAT_API const char *lat_perf_state_name(int state);

/* Derived metrics from one reading of p (NAN where an input is missing or
 * not counted).  ops: operations in the region (0: per-op fields are NAN). */
typedef struct lat_perf_derived {
    double ipc;                 /* instructions / cycles */
    double branch_miss_pct;     /* 100 * branch-misses / branches */
    double cache_miss_pct;      /* 100 * cache-misses / cache-references */
    double cache_misses_per_op; /* cache-misses (or LLC-load-misses) / ops */
    double page_faults_per_op;  /* page-faults (or minor+major) / ops */
    double ctx_switches_per_op; /* context-switches / ops */
    double cpu_utilization;     /* task-clock ns / enabled ns (CPUs used) */
} lat_perf_derived;

/* Fill d from counts c (as returned by lat_perf_read/total on p).  Returns 0
 * or -EINVAL for NULL arguments. */
LAT_API int lat_perf_derive(const lat_perf *p, const lat_perf_count *c, size_t n, uint64_t ops,
                    lat_perf_derived *d);

#endif /* LATLAB_PERF_H */
