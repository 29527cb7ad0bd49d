/* perf_report.h - what `latlab stat` prints about a command it counted, as
 * `perf stat` lays it out: one line per event (scaled counts with their
 * coverage, msec for the clocks, a derived note such as "insn per cycle"),
 * the elapsed, user and sys times, the reasons events could not be counted,
 * and optionally a table per thread; and the same as a JSON document.
 *
 * Experimental: may change.  Not hot; reads the thread sets' counters. */
#ifndef LATLAB_PERF_REPORT_H
#define LATLAB_PERF_REPORT_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/perf_report.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>

#include "latlab/perf.h"
#include "latlab/perf_threads.h"

/* One counted run (nothing is copied). */
typedef struct lat_perf_report {
    char *const *cmd;          /* the command and its arguments, NULL-terminated */
    const lat_perf *p;         /* the counter set the counts came from */
    const lat_perf_count *cnt; /* n counts, in p's order */
    size_t n;
    const lat_perf_derived *d;       /* derived from cnt */
    uint64_t wall_ns;                /* elapsed time of the run */
    struct timeval utime, stime;     /* the child's user and system time */
    const lat_perf_threads *threads; /* per-thread sets; NULL: none */
    int exit_status;                 /* the command's exit status (JSON only) */
} lat_perf_report;

/* The report into f, perf stat's layout.  Thread-safe on distinct streams. */
void lat_perf_report_print(const lat_perf_report *r, FILE *f);

/* The report as a JSON object (command, exit_status, elapsed_ns, user_ns,
 * sys_ns, events, derived, and threads when r->threads is set); NULL when out
 * of memory.  The caller releases it (json_decref). */
struct json_t *lat_perf_report_json(const lat_perf_report *r);

#endif
