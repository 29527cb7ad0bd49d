/* perf_child.h - a command run under counters, as `perf stat` runs one: the
 * child is forked and held until its counters (inherited by its threads and
 * children; with per_thread, one set per thread as well) are open, then
 * execs; SIGINT and SIGQUIT are left to it (same process group) while the
 * caller waits, and a SIGTERM or SIGHUP sent to the caller alone is passed
 * on to it.  Its wall time, rusage, counts and derived figures are kept for
 * a report (perf_report.h).
 *
 * Experimental: may change.  Not thread-safe (changes the calling thread's
 * signal mask and the process's SIGINT/SIGQUIT actions while it waits). */
#ifndef LATLAB_PERF_CHILD_H
#define LATLAB_PERF_CHILD_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/perf_child.h is experimental: define LATLAB_EXPERIMENTAL before including it"
#endif

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/select.h> /* sigset_t, also under strict -std=c11 (POSIX puts it here too) */
#include <sys/types.h>

#include "latlab/perf.h"
#include "latlab/perf_threads.h"

/* Zero it, set cmd, events and per_thread. */
typedef struct lat_perf_child {
    char **cmd;         /* the command and its arguments, NULL-terminated */
    const char *events; /* perf.h's list syntax; NULL: the default list */
    bool per_thread;    /* also a counter set per thread (ts) */
    pid_t pid;
    int go[2], ex[2]; /* go: the child waits on it; ex: its exec errno comes back */
    lat_perf *p;
    lat_perf_threads ts;
    int status;       /* as waitpid's */
    sigset_t oldmask; /* before SIGTERM/SIGHUP were held for the child's run */
    int sig;          /* a SIGTERM or SIGHUP passed on to the child (0: none) */
    struct rusage ru;
    uint64_t wall_ns;
    size_t n; /* events counted */
    lat_perf_count cnt[LAT_PERF_MAX_EVENTS];
    lat_perf_derived d;
    char err[256]; /* the message of a failed start or wait */
} lat_perf_child;

/* Fork the child, held until lat_perf_child_wait.  SIGTERM and SIGHUP are
 * blocked from here on.  0, or a negative errno with the message in err
 * ("pipe: ..." or "fork: ..."). */
int lat_perf_child_start(lat_perf_child *c);

/* Open the counters on the child, let it exec and wait for it (polling its
 * threads with per_thread); the signal mask is restored.  0, or a negative
 * errno with "opening counters: ..." in err (the child is reaped). */
int lat_perf_child_wait(lat_perf_child *c);

/* The child's status as an exit code (128+N when killed by signal N; 127 or
 * 126 when it could not exec); *exec_err: exec's errno when CMD never ran,
 * else 0.  Call once, after a successful wait. */
int lat_perf_child_exit(lat_perf_child *c, int *exec_err);

/* Read the counts and derive the figures (cpu_utilization over the wall
 * time).  0, or the read's negative errno (the figures are derived anyway). */
int lat_perf_child_read(lat_perf_child *c);

/* Close the counter sets. */
void lat_perf_child_fini(lat_perf_child *c);

#endif
