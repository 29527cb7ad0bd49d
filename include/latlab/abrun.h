/* abrun.h - the runs of `latlab ab` (ab.h), one at a time or a round's
 * taking turns: start the program, bound it by a timeout, account for what
 * the platform took from it, read its figures and record them in the lat_ab. */

/* The figures depend on the kind of program:
 * - latlab harness programs (LAT_BENCH_MAIN): run with --json FILE (and
 *   --quick unless full); per benchmark the median of the samples' time per
 *   op (censored samples excluded by the harness) as "time/op", and where
 *   the benchmark records per-op latencies, "p50", "p90", "p99", "p99.9";
 * - Google Benchmark programs: run with --benchmark_format=json; per
 *   benchmark the median over its repetitions of real time ("time") and CPU
 *   time ("cpu");
 * - any command (through /bin/sh -c): "wall", the run's wall time less its
 *   run-queue wait (the time it was runnable but another thread ran), and
 *   "cpu" (user + system).  A run whose run-queue wait exceeded
 *   LAT_AB_RUNQ_SET_ASIDE of its wall time is set aside (NAN). */

/* Every run's account (wall, CPU, run-queue wait, involuntary switches)
 * comes back to the caller.  Not thread-safe (one run, or one round taking
 * turns, at a time). */
#ifndef LATLAB_ABRUN_H
#define LATLAB_ABRUN_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/abrun.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/ab.h"
#include "latlab/stats.h"
#include "latlab/topo.h"

enum { LAT_AB_HARNESS = 0, LAT_AB_GBENCH = 1, LAT_AB_COMMAND = 2 };
const char *lat_ab_mode_name(int mode); /* "latlab harness", "Google Benchmark", "command" */

#define LAT_AB_RUNQ_SET_ASIDE 0.25

/* The kind of program at path, from its bytes: LAT_AB_HARNESS or
 * LAT_AB_GBENCH; -ENOENT / -EACCES, or LAT_EFORMAT when it is neither. */
int lat_ab_detect(const char *path);
/* Whether the harness program at path can take turns (LAT_BENCH_TURNS in
 * bench.h: builds from this release on); false when unreadable. */
bool lat_ab_takes_turns(const char *path);

typedef struct lat_ab_prog {
    int mode;
    char *const *argv; /* the program and its arguments (command: the shell's) */
} lat_ab_prog;

typedef struct lat_ab_run_opts {
    uint64_t timeout_ns;  /* a run still going then is killed: -ETIMEDOUT */
    int cpu;              /* pin the run to this CPU; -1: not pinned */
    const char *filter;   /* harness --filter, Google Benchmark --benchmark_filter (NULL: all) */
    bool full;            /* harness: full-length runs (default --quick) */
    unsigned repetitions; /* Google Benchmark repetitions per run (0: 5) */
    const char *dir;      /* a private folder for the run's output files */
    int runner_cpu;       /* harness programs: LAT_BENCH_RUNNER_CPU, their measuring thread's CPU
                           * (the rest of the program is not confined); -1: not set */
} lat_ab_run_opts;

/* Where to measure.  Every run's measuring thread on one CPU: the two vCPUs
 * of a shared host run at different speeds, so runs that land on either
 * differ by more than a 1% change (docs/ab-method.md, AB9).
 * lat_ab_quietest_cpu: of this thread's CPUs, the one idle the longest over
 * window_ns (/proc/stat at both ends); idle shares within LAT_AB_IDLE_TIE
 * count as equal, the highest-numbered of them wins.  Returns the CPU (its
 * idle share in *idle_share) or -errno.  lat_ab_pick_cpu: the same choice
 * from idle shares idle[0..n) (NAN: not known), allowed CPUs only;
 * -ENOENT when none is. */
#define LAT_AB_IDLE_TIE 0.05
/* Commands are pinned whole to that CPU (unless the user says otherwise) when
 * neither side's warm-up run kept more than this many CPUs busy on average
 * (CPU time over wall time): pinning a parallel command would change it. */
#define LAT_AB_PIN_CPUS 1.2
int lat_ab_quietest_cpu(uint64_t window_ns, double *idle_share);
int lat_ab_pick_cpu(const double *idle, int n, const lat_cpuset *allowed);
/* Where the runs go when the user names no CPU: harness programs measure on
 * the quietest CPU (o->runner_cpu); commands are pinned to it whole (o->cpu)
 * when their warm-up runs kept at most LAT_AB_PIN_CPUS busy (warm_cpus: the
 * most either did); Google Benchmark programs and parallel commands run where
 * they start.  Returns the CPU (its idle share in *idle), or -1. */
int lat_ab_place(int mode, double warm_cpus, lat_ab_run_opts *o, double *idle);

typedef struct lat_ab_account {
    double wall_ns, cpu_ns, runq_ns;
    long nivcsw;
    int status;       /* as waitpid's */
    char suite[64];   /* harness: the report's suite; Google Benchmark: "" */
    unsigned benches; /* benchmarks read */
} lat_ab_account;

/* Run prog once as side `side` of round `round` and record its figures
 * (commands: ab NULL, a warm-up run that records nothing).  Returns 0;
 * -ETIMEDOUT (killed); LAT_EFORMAT (exited non-zero, no JSON, a JSON
 * without benchmarks); -errno.  err gets one line naming what failed
 * (the exit status, the last line the program wrote to stderr, the file and
 * offset of a JSON error). */
int lat_ab_run(const lat_ab_prog *prog, const lat_ab_run_opts *o, lat_ab *ab, unsigned round,
               int side, lat_ab_account *acct, char *err, size_t errlen);

/* The runs of one round, sides[0..n) (acct[i] is sides[i]'s account).
 * Without turns: one after another, stopping at the first that fails.  With
 * turns (harness programs): they start at once, each with its end of a
 * socket in LAT_BENCH_TURNS; when all are ready (a build that cannot take
 * turns runs alone), each cycle grants every program one sample in a fresh
 * random order (rng), until all end.  One program samples at a time, so the
 * sides see the host's state of the same moments; n timeouts bound the
 * round, and a failure kills the others.
 * Returns as lat_ab_run (-EINVAL: bad arguments), the side that failed
 * first in *failed_side (-1: none) and its line in err. */
int lat_ab_run_round(const lat_ab_prog *prog, const lat_ab_run_opts *o, lat_ab *ab, unsigned round,
                     const int *sides, int n, bool turns, lat_stats_rng *rng, lat_ab_account *acct,
                     int *failed_side, char *err, size_t errlen);

#endif /* LATLAB_ABRUN_H */
