/* lab.h - the pipeline lab's experiment protocol. */

/* Four configurations of the pipeline (pipeline.h): the baseline and three
 * experiments (alloc, share-line, no-pin).  They run interleaved in rounds:
 * every round runs each configuration once, in an order shuffled by a seeded
 * generator (the seed is in the result, so an order can be replayed), so a
 * change of the host's vCPU placement hits all of them alike. */

/* Each run is cut into intervals of intended send time (100 ms by default) with per-interval
 * figures per stage, for reports.  Each sample's stage windows are joined to
 * the hot threads' platform gaps (censor.h): the run is reduced to the figures
 * of the samples no gap touched (lat_lab_cell).  A run whose kept work samples
 * cannot support the p99.9 (lat_censor_min_kept(99.9) = 10,000) is set aside
 * and repeated (at most max_repeats times), never used; the rounds after
 * it run longer, so that they keep what the p99.9 needs.  The
 * cache-line floor between the hot CPUs (pingpong.h) is measured before and
 * after every run; it tells the host's placement (lab_placement.h). */

/* After every round the verdict rule (lab_verdict.h) decides each experiment
 * against the baseline of the same rounds.  Rounds continue until every
 * verdict is decided at the stated confidence or the time budget is spent. */

/* lat_lab_run() allocates, runs threads, blocks for the whole budget, and
 * reports through callbacks (it never prints).  Hooks let other steps run
 * inside a round (the silence check, a profiler: lab_profile.h). */
#ifndef LATLAB_LAB_H
#define LATLAB_LAB_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/lab_account.h"
#include "latlab/lab_placement.h"
#include "latlab/lab_verdict.h"
#include "latlab/pipeline.h"

/* Apply configuration conf's experiment switches to a pipeline config. */
void lat_lab_conf_apply(int conf, lat_pipe_config *c);

/* One run (one configuration, one round, one attempt). */
typedef struct lat_lab_run_rec {
    int conf;
    unsigned round, attempt;
    bool set_aside; /* set aside: its kept samples cannot support the p99.9 */
    char why[120];  /* why it was set aside */
    double p50[LAT_PIPE_NSTAGES], p99[LAT_PIPE_NSTAGES], p999[LAT_PIPE_NSTAGES],
        max[LAT_PIPE_NSTAGES]; /* ns; NAN for absent stages */
    double wall_ns;
    /* cache-line round trip between the hot CPUs just before and just after
     * the run (NAN: not measured) */
    double floor_ns, floor_after_ns;
    lat_lab_thread_account thr[LAT_PIPE_NHOT];
    lat_pipe_cpustat cpu;
    lat_pipe_tail tail[LAT_PIPE_NSTAGES];
    double faults, cs, migrations; /* summed over hot threads (NAN unknown) */
    /* per event: the work stage's allocation calls (NAN: not counted, see
     * lat_pipe_config.alloc_count_begin) and the hot threads' cache misses;
     * their instructions per cycle (NAN without a PMU) */
    double allocs_per_event, misses_per_event, ipc;
    /* Per-sample censoring (censor.h): the share of the run's judged samples
     * whose work / e2e figure no platform gap touched (NAN: none judged).
     * The verdict reads cell, the run's kept figures. */
    double kept_work, kept_e2e;
    lat_lab_cell cell; /* the kept figures the verdict reads (placement: NEAR) */
    lat_lab_fig *iv;   /* per-interval figures (owned), for reports only */
    size_t niv;
} lat_lab_run_rec;

typedef struct lat_lab_config {
    lat_pipe_config pipe; /* placed baseline config */
    lat_lab_params params;
    uint64_t seed; /* order shuffle (printed by the caller) */
    unsigned min_rounds, max_rounds;
    double budget_s;      /* stop starting rounds once this is spent */
    unsigned max_repeats; /* a set-aside run is repeated at most this often */
    /* A round with a run set aside for too few kept samples lengthens the
     * runs of the rounds after it, up to this many times pipe.events, as far
     * as the budget allows (0 or 1: never; default 8) */
    unsigned max_lengthen;
    double max_run_lost;  /* reported only: runs whose hot thread lost more are counted */
    const char *hlog_dir; /* round 1 runs write <dir>/<conf>-1-<stage>.hlog (NULL: none) */
    /* Cache-line round trips (pingpong.h) per floor measurement between the
     * first two hot CPUs, before and after every run (0: not measured;
     * default 20000; measured only when both CPUs are set) */
    uint64_t floor_round_trips;
    /* Optional: called after every run with the full result (before it is
     * released): print a table, write a JSON, dump a flight recorder. */
    void (*on_run)(void *ud, const lat_lab_run_rec *rec, const lat_pipe_config *c,
                   const lat_pipe_result *r);
    /* Optional: called before (begin = 1) and after (begin = 0) each run,
     * with the configuration, round and attempt.  This is where steps that
     * watch a run hook in: the CLI's silence check (ftrace) traces round 1's
     * baseline and no-pin runs here, and a profiling step (perf record
     * around chosen runs) belongs here too.  The pipeline config may be
     * changed before the run (a test injects stalls this way). */
    void (*around_run)(void *ud, int conf, unsigned round, unsigned attempt, int begin,
                       lat_pipe_config *c);
    void *ud;
} lat_lab_config;

/* Defaults: 10..80 rounds, 120 s budget, 2 repeats, runs lengthened up to
 * 8 times, 20% lost share (reported only), the floor measured with 20,000 round trips.  Calibrates
 * the cycle counter (pipe.cal = lat_clock_default()) and measures the
 * counter's step for params.tick_ns (lat_clock_granularity_cycles: the spacing
 * of the values a stamped duration can take, not the stamp's cost), so it
 * takes some milliseconds the first time.  Then lat_lab_config_derive(). */
void lat_lab_config_default(lat_lab_config *c);
/* The parameters that follow from the pipeline config, set again after the
 * caller changed it (rate, shape, placement): params.nhot
 * (3 in the full shape, else 2), params.ncpus (the CPUs this thread may run
 * on) and params.min_rounds = min_rounds. */
void lat_lab_config_derive(lat_lab_config *c);
/* The verdict parameters as JSON, one key per lat_lab_params_list entry under
 * its name (counts as integers); a new reference or NULL. */
struct json_t *lat_lab_params_json(const lat_lab_params *p);

typedef struct lat_lab_result {
    uint64_t seed;
    unsigned rounds;             /* rounds run */
    int (*order)[LAT_LAB_NCONF]; /* order[round][i]: the i-th configuration run */
    /* kinds[round][conf]: each verdict's kind after that round (the stop
     * rule's evidence: it stops once every kind repeats) */
    int (*kinds)[LAT_LAB_NCONF];
    lat_lab_run_rec *runs; /* every attempt, in the order run */
    size_t nruns;
    lat_lab_verdict verdict[LAT_LAB_NCONF];            /* [LAT_LAB_BASE] unused */
    lat_hist *merged[LAT_LAB_NCONF][LAT_PIPE_NSTAGES]; /* usable runs merged */
    double wall_s;
    char stop[160];       /* why the rounds stopped */
    uint64_t events;      /* events per run in the last round (lengthened or not) */
    char lengthened[240]; /* how the runs were lengthened, and why ("" when not) */
    /* A run's interval log could not be written: the path (the run's error
     * is what lat_lab_run returns, and the protocol stops there). */
    char log_error_path[256];
    lat_lab_placement placement; /* of the rounds run (lat_lab_placement_of) */
} lat_lab_result;

/* Run the protocol.  Returns 0 (res filled; release it), -EINVAL, -ENOMEM or
 * a pipeline error. */
int lat_lab_run(const lat_lab_config *c, lat_lab_result *res);
void lat_lab_result_fini(lat_lab_result *res); /* NULL is fine */
/* The usable (final, uncontaminated) run of conf in round, or NULL. */
const lat_lab_run_rec *lat_lab_cell_run(const lat_lab_result *res, int conf, unsigned round);

#endif /* LATLAB_LAB_H */
