/* platform.h - what the platform took from a run: per-thread scheduler
 * statistics (/proc/thread-self/schedstat, context switches) and per-CPU
 * steal, irq and softirq time (/proc/stat).
 *
 * A latency figure measured on a shared machine is only as good as the
 * account of time the measured threads did not run.  These readers give the
 * figures that the lab prints beside every table.  Parsers take text or a
 * path, so tests feed them fixture files.  Not a hot path: they open and read
 * files (call them before and after a measured loop, never inside it). */
#ifndef LATLAB_PLATFORM_H
#define LATLAB_PLATFORM_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/platform.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stddef.h>
#include <stdint.h>

/* /proc/<pid>/task/<tid>/schedstat: three numbers. */
typedef struct lat_schedstat {
    uint64_t run_ns;  /* time on a CPU */
    uint64_t wait_ns; /* time runnable but waiting on a run queue */
    uint64_t slices;  /* timeslices run */
} lat_schedstat;

/* Parse "RUN WAIT SLICES\n".  Returns 0 or LAT_EFORMAT (malformed). */
int lat_schedstat_parse(const char *text, size_t len, lat_schedstat *out);
/* Read path (NULL: /proc/thread-self/schedstat).  Returns 0, a negative
 * errno (open/read) or LAT_EFORMAT. */
int lat_schedstat_read(const char *path, lat_schedstat *out);

/* The calling thread's voluntary / involuntary context switches (getrusage
 * RUSAGE_THREAD).  Returns 0 or a negative errno. */
int lat_thread_switches(uint64_t *voluntary, uint64_t *involuntary);

/* One CPU's line of /proc/stat, in USER_HZ ticks (fields missing on old
 * kernels read 0). */
typedef struct lat_cpustat {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
} lat_cpustat;

/* Find the "cpuN" line (cpu < 0: the aggregate "cpu" line) in /proc/stat
 * text.  Returns 0, -ENOENT (no such CPU) or LAT_EFORMAT. */
int lat_cpustat_parse(const char *text, size_t len, int cpu, lat_cpustat *out);
/* Read path (NULL: /proc/stat) and parse.  Returns as the parser, or a
 * negative errno from reading. */
int lat_cpustat_read(const char *path, int cpu, lat_cpustat *out);
/* Sum of every field (the CPU's elapsed ticks). */
uint64_t lat_cpustat_total(const lat_cpustat *c);
/* ns per USER_HZ tick on this machine (sysconf(_SC_CLK_TCK)). */
double lat_cpustat_tick_ns(void);

#endif /* LATLAB_PLATFORM_H */
