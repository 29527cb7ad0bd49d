/* lab_account.h - the platform account of a pipeline run: what each hot
 * thread lost to the platform (spin-loop gaps, run-queue wait, switches), the
 * hot CPUs' steal/irq/softirq, and which tail samples overlapped a gap.  The
 * lab's run records carry it (lab.h); `latlab pipeline` prints it for one
 * run.  Pure reductions and formatters of a finished lat_pipe_result. */
#ifndef LATLAB_LAB_ACCOUNT_H
#define LATLAB_LAB_ACCOUNT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_account.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/gaps.h"
#include "latlab/pipeline.h"

/* The platform account of one hot thread in one run. */
typedef struct lat_lab_thread_account {
    bool ran;
    uint64_t gaps;                   /* spin-loop gaps >= the threshold */
    double lost_ns, longest_ns;      /* their total and the longest */
    double lost_share;               /* of the thread's loop time */
    double wait_ns;                  /* run-queue wait (schedstat; NAN unknown) */
    uint64_t vol, invol;             /* context switches */
    uint64_t hist[LAT_GAPS_BUCKETS]; /* gap lengths: bucket b = [2^b, 2^(b+1)) cycles */
} lat_lab_thread_account;

/* The platform account of a finished run, per hot thread, into out. */
void lat_lab_thread_accounts(const lat_pipe_config *c, const lat_pipe_result *r,
                             lat_lab_thread_account out[LAT_PIPE_NHOT]);

/* "worker lost 41.2 ms (0.8%) in 312 gaps >= 10 us, longest 7.3 ms; run-queue
 * wait 38.9 ms; ..." for every hot thread that ran, then the hot CPUs' steal,
 * irq and softirq shares (cpu may be NULL).  Always NUL-terminates buf. */
void lat_lab_account_text(char *buf, size_t len, int shape, const lat_lab_thread_account *thr,
                          const lat_pipe_cpustat *cpu, double gap_us);
/* Tail attribution: per stage, the share of samples above p99 / p99.9 whose
 * hop overlapped a gap of a thread carrying it. */
void lat_lab_attrib_text(char *buf, size_t len, int shape, const lat_pipe_tail *tail);
/* Both lines for one run of `latlab pipeline`, and the flight gap if any. */
void lat_lab_print_account(FILE *f, const lat_pipe_config *c, const lat_pipe_result *r);

/* What else ran beside the lab: the CPUs' busy time (/proc/stat) less this
 * process's, and the CPU time each other process took while seen
 * (/proc/<pid>/stat, looked at begin, at every sample and at end: call
 * lat_lab_others_sample between runs, so that short-lived processes such
 * as a build's compilers are seen), summed per command name.  At most
 * LAT_LAB_OTHERS_MAX processes are remembered (more are ignored).  0, or a
 * negative errno (no /proc: then end writes ""). */
#define LAT_LAB_OTHERS_MAX 65536
typedef struct lat_lab_others {
    size_t n;
    struct lat_lab_proc_ticks *p; /* owned */
    uint64_t t0_ns, busy, self;   /* at begin: all CPUs' busy ticks, this process's */
} lat_lab_others;
int lat_lab_others_begin(lat_lab_others *o);
void lat_lab_others_sample(lat_lab_others *o);
/* "other processes took 1.7 CPUs (busiest: make 1.2, latlab 0.4)" (the top
 * three names using at least 0.05 CPU since begin; "" when the others took
 * less than 0.05 CPU), *cpus what they took; frees o. */
void lat_lab_others_end(lat_lab_others *o, char *buf, size_t len, double *cpus);

#endif /* LATLAB_LAB_ACCOUNT_H */
