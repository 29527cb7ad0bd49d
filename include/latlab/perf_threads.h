/* perf_threads.h - one counter set (perf.h) per thread of a process, for
 * per-thread figures of a command: the threads are found by polling
 * /proc/PID/task (a thread that lives less than the polling period appears
 * only in the process's total).  Each set counts its thread from when it is
 * opened, or from the thread's exec when the first poll happens before the
 * process execs (a forked child held until its counters are open).
 *
 * Experimental: may change.  Not hot (a poll reads /proc and opens
 * counters); one set of sets per thread of the caller. */
#ifndef LATLAB_PERF_THREADS_H
#define LATLAB_PERF_THREADS_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/perf_threads.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <stdbool.h>
#include <sys/types.h>

#include "latlab/perf.h"

#define LAT_PERF_THREADS_MAX 256 /* threads followed; later ones are not opened */

typedef struct lat_perf_thread {
    pid_t tid;
    char comm[32]; /* its name (/proc/PID/task/TID/comm) as last polled; "?" unread */
    lat_perf *p;   /* its counters (events as given to init) */
} lat_perf_thread;

typedef struct lat_perf_threads {
    pid_t pid;
    const char *events; /* not copied: must outlive the set; NULL: the default list */
    lat_perf_thread *v; /* n threads, in order of discovery */
    int n;
} lat_perf_threads;

/* Follow pid's threads with events (perf.h's list syntax).  0 or -ENOMEM. */
int lat_perf_threads_init(lat_perf_threads *t, pid_t pid, const char *events);
/* Open a set for every thread of pid not seen yet (at_exec: counting starts
 * at the thread's exec, else at once) and refresh the names of those seen.
 * A thread whose counters cannot be opened is skipped (tried again next
 * time).  Returns the number of threads followed (-ENOENT when pid's task
 * directory cannot be read: the process is gone). */
int lat_perf_threads_poll(lat_perf_threads *t, bool at_exec);
void lat_perf_threads_fini(lat_perf_threads *t); /* closes every set; NULL is fine */

#endif /* LATLAB_PERF_THREADS_H */
