/* lab.h - the pipeline lab's experiment protocol and its verdicts.
 *
 * Four configurations of the pipeline (pipeline.h): the baseline and three
 * experiments (alloc, share-line, no-pin).  They run interleaved in rounds:
 * every round runs each configuration once, in an order shuffled by a seeded
 * generator (the seed is in the result, so an order can be replayed), so a
 * change of the host's vCPU placement hits all of them alike.  Each run is cut
 * into intervals of intended send time (100 ms by default) with per-interval
 * figures per stage; the platform's share of each interval (spin-loop gaps of
 * the hot threads, gaps.h) is measured, and intervals where a hot thread lost
 * more than a stated share, or the pipeline fell into backlog, are set aside
 * and counted.  A run whose hot threads lost more than a stated share is
 * contaminated: it is repeated (at most max_repeats times), never used.
 *
 * Verdicts compare each experiment with the baseline of the same round, on
 * the work stage (the one the experiments act on; the e2e figures of a noisy
 * VM are dominated by platform noise) and, for variance, on e2e: a Wilcoxon
 * signed-rank test over rounds with a Hodges-Lehmann confidence interval on
 * the ratio (stats.h).  A p50 change below the counter's granularity is
 * reported as such, never as a ratio; the work body's mean, which resolves
 * below one counter step, then bounds how much the median may have grown.
 * A tail disease reads the p99.9, or the p99.99 where an episodic cost is too
 * rare to move the p99.9 (alloc's malloc slow path).
 * When the host moved the vCPUs during the rounds (the cache-line floor
 * measured every round splits into a near and a far placement), each
 * placement's rounds are decided on their own: false sharing shows in the
 * far placement and hides behind the work in the near one, and the far
 * placement's own wide work tail hides alloc's.  Rounds continue until every verdict is
 * decided at the stated confidence or the time budget is spent; undecided
 * verdicts are "inconclusive on this machine" with a reason.
 *
 * lat_lab_decide() is the verdict rule: a pure function of per-interval
 * figures and named parameters (tested on synthetic data).  lat_lab_run() is
 * the protocol: it allocates, runs threads, blocks for the whole budget, and
 * reports through callbacks (it never prints).  Hooks let other steps run
 * inside a round (the silence check, a profiler). */
#ifndef LATLAB_LAB_H
#define LATLAB_LAB_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latlab/pipeline.h"

/* Configurations. */
enum { LAT_LAB_BASE = 0, LAT_LAB_ALLOC, LAT_LAB_SHARE, LAT_LAB_NOPIN, LAT_LAB_NCONF };
const char *lat_lab_conf_name(int conf); /* "baseline", "alloc", "share-line", "no-pin" */
const char *lat_lab_conf_flag(int conf); /* "no flags", "--alloc", ... */
/* Apply configuration conf's experiment switches to a pipeline config. */
void lat_lab_conf_apply(int conf, lat_pipe_config *c);

/* Verdict kinds. */
enum {
    LAT_LAB_UNDECIDED = 0, /* inconclusive (reason says why) */
    LAT_LAB_NO_CHANGE,     /* decided: no effect beyond the stated bounds */
    LAT_LAB_TAIL,          /* p99.9 or p99.99 up, p50 flat (or below granularity) */
    LAT_LAB_MEDIAN,        /* p50 up (and with it throughput) */
    LAT_LAB_VARIANCE,      /* spread across intervals / rounds explodes */
    LAT_LAB_NKINDS
};
const char *lat_lab_kind_name(int kind);
/* The disease the seed expects for conf (LAT_LAB_TAIL for alloc, ...). */
int lat_lab_expected(int conf);

/* The figures of one interval of one run that the verdict reads. */
typedef struct lat_lab_fig {
    double work_p50, work_p99, work_p999, work_max; /* ns, all events */
    double work_mean; /* ns: mean of the body (samples <= p99); 0 or NAN: not measured */
    /* ns: the work figures of the events that met no queue (lat_pipe_interval's
     * steady ones); 0: not measured, or too few of them */
    double steady_p50, steady_p999, steady_mean;
    double e2e_p50, e2e_p999; /* ns */
    double tput_hz;
    double lost; /* largest share of the interval a hot thread lost in gaps */
} lat_lab_fig;

/* One configuration's run in one round, reduced to its intervals. */
typedef struct lat_lab_cell {
    const lat_lab_fig *iv;
    size_t n;
    bool usable;        /* false: contaminated after every repeat, or missing */
    unsigned placement; /* the run's host placement: LAT_LAB_NEAR (or one placement),
                         * LAT_LAB_FAR, or LAT_LAB_MOVED during the run */
    /* ns: the run's work p99.99 over all its events, and over those that met
     * no queue.  A whole run's, not an interval's: an episodic cost fires a
     * few times a second, which the 10 slowest of a run's 100,000 events
     * show and an interval's two slowest mostly do not.  0: not measured
     * (fewer than LAT_LAB_DEEP_COUNT events) */
    double p9999, steady_p9999;
} lat_lab_cell;
#define LAT_LAB_DEEP_COUNT 10000

/* The verdict rule's named parameters. */
typedef struct lat_lab_params {
    double alpha;                  /* per test, two-sided (confidence = 1 - alpha) */
    double min_median_ratio;       /* smallest p50 growth called a median effect */
    double min_median_ticks;       /* ... and at least this many counter ticks */
    double min_tail_ratio;         /* smallest p99.9 growth called a tail effect */
    double min_deep_ratio;         /* smallest p99.99 growth called a tail effect: an
                                    * episodic cost too rare to move the p99.9 (alloc's
                                    * slow path); 0: the p99.99 is not read */
    double deep_alpha;             /* ... at this level: its rare events scatter most */
    double tail_excess_ratio;      /* p50 and p99.9 both up: a tail disease needs p99.9's
                                    * ratio this far beyond p50's, a median disease
                                    * needs it below (<= 1: the median always wins) */
    double tail_log_multiple;      /* ... and a tail disease needs log(p99.9 ratio) above this
                                    * multiple of log(p50 ratio), a median disease below */
    double median_dominates;       /* a p50 grown at least this much (lower confidence
                                    * bound) is a median disease whatever the tail did */
    double min_var_ratio;          /* smallest growth of spread called variance */
    double no_change_ratio;        /* "no change" when every CI lies within 1/x .. x */
    double tick_ns;                /* the counter's granularity */
    unsigned min_rounds;           /* paired rounds needed before deciding */
    unsigned min_placement_rounds; /* ... in one placement, when the rounds span two */
    /* The verdict reads the work figures of all events, or of the events that
     * met no queue when the backlog alone widens the baseline's tail by this
     * ratio (its p99.9 over all events / over those): in a far placement a
     * gap's backlog runs events back to back and every configuration's tail
     * widens by the vCPUs' distance, not by the experiment (0: never). */
    double steady_widen;
    double max_interval_lost; /* interval set aside above this lost share */
    double backlog_ns;        /* interval set aside when e2e p50 exceeds this (0: off) */
    unsigned min_intervals;   /* clean intervals a cell needs to count */
    int ncpus, nhot;          /* CPUs the hot threads can use, hot threads */
} lat_lab_params;
void lat_lab_params_default(lat_lab_params *p);

typedef struct lat_lab_verdict {
    int kind;
    double confidence;              /* 1 - p of the deciding test (0 when undecided) */
    unsigned rounds;                /* paired rounds used */
    unsigned set_aside;             /* rounds set aside (either side unusable) */
    unsigned iv_used, iv_set_aside; /* intervals (both sides) */
    /* work p50: per-round ratio (HL estimate, CI) and shift in ns */
    double p50_ratio, p50_lo, p50_hi, p50_p, p50_shift_ns, base_p50_ns;
    double p999_ratio, p999_lo, p999_hi, p999_p;
    double p9999_ratio, p9999_lo, p9999_hi, p9999_p; /* work p99.99 (NAN: not measured) */
    bool deep_tail;                /* a tail verdict that rests on the p99.99, not the p99.9 */
    double spread_ratio, spread_p; /* e2e spread: experiment / baseline */
    /* work body mean (sub-tick): per-round ratio (HL estimate, CI), shift in ns */
    double mean_ratio, mean_lo, mean_hi, mean_shift_ns;
    /* The rounds spanned both placements: each was decided on its own, and
     * the verdict is the disease one of them shows (undecided when they show
     * different ones).  placement_kind[i] is placement i's kind (-1: none). */
    int placement_kind[2];
    unsigned placement_rounds[2];
    int decided_in;          /* placement the verdict rests on, or -1 (all rounds, one placement) */
    bool steady_figures;     /* read the events that met no queue (see steady_widen) */
    double backlog_widening; /* the baseline's: p99.9 all events / met no queue (NAN) */
    bool p50_below_tick;     /* the p50 change is below min_median_ticks */
    char reason[512];        /* for UNDECIDED, and notes otherwise */
} lat_lab_verdict;

/* The verdict for experiment conf from nrounds paired cells.  Pure. */
int lat_lab_decide(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                   const lat_lab_cell *exp, unsigned nrounds, lat_lab_verdict *out);
/* One line: "tail disease (confidence 99.2%, 9 rounds): work p50 +1 tick ..." */
void lat_lab_verdict_text(const lat_lab_verdict *v, char *buf, size_t len);

/* ---- the protocol ----------------------------------------------------------------------- */

/* Platform accounting of one hot thread in one run. */
typedef struct lat_lab_thread_acct {
    bool ran;
    uint64_t gaps;                   /* spin-loop gaps >= the threshold */
    double lost_ns, longest_ns;      /* their total and the longest */
    double lost_share;               /* of the thread's loop time */
    double wait_ns;                  /* run-queue wait (schedstat; NAN unknown) */
    uint64_t vol, invol;             /* context switches */
    uint64_t hist[LAT_GAPS_BUCKETS]; /* gap lengths: bucket b = [2^b, 2^(b+1)) cycles */
} lat_lab_thread_acct;

/* One run (one configuration, one round, one attempt). */
typedef struct lat_lab_run_rec {
    int conf;
    unsigned round, attempt;
    bool contaminated;
    char why[120]; /* why it is contaminated */
    double p50[LAT_PIPE_NSTAGES], p99[LAT_PIPE_NSTAGES], p999[LAT_PIPE_NSTAGES],
        max[LAT_PIPE_NSTAGES];       /* ns; NAN for absent stages */
    double work_p9999, steady_p9999; /* ns, as lat_lab_cell's (0: not measured) */
    double wall_ns;
    /* cache-line round trip between the hot CPUs just before and just after
     * the run (NAN: not measured) */
    double floor_ns, floor_after_ns;
    lat_lab_thread_acct thr[LAT_PIPE_NHOT];
    lat_pipe_cpustat cpu;
    lat_pipe_tail tail[LAT_PIPE_NSTAGES];
    double faults, cs, migrations; /* summed over hot threads (NAN unknown) */
    lat_lab_fig *iv;               /* per-interval figures (owned) */
    size_t niv, iv_set_aside;
} lat_lab_run_rec;

typedef struct lat_lab_config {
    lat_pipe_config pipe; /* placed baseline config */
    lat_lab_params params;
    uint64_t seed; /* order shuffle (printed by the caller) */
    unsigned min_rounds, max_rounds;
    double budget_s;      /* stop starting rounds once this is spent */
    unsigned max_repeats; /* a contaminated run is repeated at most this often */
    double max_run_lost;  /* a run is contaminated above this lost share */
    const char *hlog_dir; /* round 1 runs write <dir>/<conf>-1-<stage>.hlog (NULL: none) */
    /* Optional: the cache-line round trip between two CPUs in ns (NAN on
     * failure), measured at the start of every round. */
    double (*floor_ns)(void *ud, int cpu_a, int cpu_b);
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
/* Platform accounting of a finished run, per hot thread. */
void lat_lab_thread_accounting(const lat_pipe_config *c, const lat_pipe_result *r,
                               lat_lab_thread_acct out[LAT_PIPE_NHOT]);

/* Defaults: 10..80 rounds, 120 s budget, 2 repeats, 20% lost share (the run's
 * clean intervals are still the only ones read: an interval is set aside above
 * max_interval_lost). */
void lat_lab_config_default(lat_lab_config *c);

/* Where the host put the vCPUs, read from the cache-line floor measured
 * before and after every run: a KVM host can move them between two
 * placements (a ~130 ns and a ~480 ns round trip here), between two runs of
 * one round or inside a run.  The floors, sorted, split at the widest ratio
 * between two neighbours (at their geometric mean) when it exceeds
 * LAT_LAB_PLACEMENT_SPLIT; otherwise every run is "near" (one placement's
 * floors spread x1.9 here in 10 ns steps, 80-150 ns, with no gap wider than
 * x1.25; the two placements sit x2.6-2.9 apart).  A run whose two floors
 * fall on either side was moved during the run. */
#define LAT_LAB_PLACEMENT_SPLIT 1.8
enum { LAT_LAB_NEAR = 0, LAT_LAB_FAR = 1, LAT_LAB_MOVED = 2 };
typedef struct lat_lab_placement {
    unsigned measured;          /* runs with a floor */
    unsigned near, far, during; /* runs in each placement, runs moved during the run */
    double near_ns, far_ns;     /* their median floors (NAN when none) */
    bool moved;                 /* both placements seen */
} lat_lab_placement;

typedef struct lat_lab_result {
    uint64_t seed;
    unsigned rounds;             /* rounds run */
    int (*order)[LAT_LAB_NCONF]; /* order[round][i]: the i-th configuration run */
    lat_lab_run_rec *runs;       /* every attempt, in the order run */
    size_t nruns;
    lat_lab_verdict verdict[LAT_LAB_NCONF];            /* [LAT_LAB_BASE] unused */
    lat_hist *merged[LAT_LAB_NCONF][LAT_PIPE_NSTAGES]; /* usable runs merged */
    double wall_s;
    char stop[160]; /* why the rounds stopped */
    /* A run's interval log could not be written: the path (the run's error
     * is what lat_lab_run returns, and the protocol stops there). */
    char log_error_path[256];
    lat_lab_placement placement; /* of the rounds run (lat_lab_placement_of) */
} lat_lab_result;

/* Filled into res->placement when the protocol ends. */
void lat_lab_placement_of(const lat_lab_result *res, lat_lab_placement *out);
/* The placement of one of res's runs (LAT_LAB_NEAR when its floor was not
 * measured). */
int lat_lab_run_placement(const lat_lab_result *res, const lat_lab_run_rec *rec);
/* "the host moved the vCPUs: 5 runs near (floor 121 ns), 7 far (412 ns), 1 during a run" */
void lat_lab_placement_text(const lat_lab_placement *pl, char *buf, size_t len);

/* Run the protocol.  Returns 0 (res filled; release it), -EINVAL, -ENOMEM or
 * a pipeline error. */
int lat_lab_run(const lat_lab_config *c, lat_lab_result *res);
void lat_lab_result_fini(lat_lab_result *res); /* NULL is fine */
/* The usable (final, uncontaminated) run of conf in round, or NULL. */
const lat_lab_run_rec *lat_lab_cell_run(const lat_lab_result *res, int conf, unsigned round);

#endif /* LATLAB_LAB_H */
