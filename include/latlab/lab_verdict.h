/* lab_verdict.h - the pipeline lab's verdict rule: pure functions of paired
 * per-interval figures and named parameters (no threads, no pipeline).
 *
 * Verdicts compare each experiment with the baseline of the same round, on
 * the work stage (the one the experiments act on; the e2e figures of a noisy
 * VM are dominated by platform noise) and, for variance, on e2e: a Wilcoxon
 * signed-rank test over rounds with a Hodges-Lehmann confidence interval on
 * the ratio (stats.h).  A p50 change below the counter's granularity is
 * reported as such, never as a ratio; the work body's mean, which resolves
 * below one counter step, then bounds how much the median may have grown.
 * A tail disease reads the p99.9, or the p99.99 where an episodic cost is too
 * rare to move the p99.9 (alloc's malloc slow path).  When the rounds span
 * two host placements (lab_placement.h), each placement's rounds are decided
 * on their own.  Undecided verdicts are "inconclusive on this machine" with
 * a reason.  lat_lab_decide() is tested on synthetic data
 * (tests/lab/test_lab_verdict.c).  Thread-safe: no state. */
#ifndef LATLAB_LAB_VERDICT_H
#define LATLAB_LAB_VERDICT_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/lab_verdict.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Configurations.  LAT_LAB_AA, the A/A control, is the baseline run a second
 * time in every round and decided against the first by the same rules: a
 * host whose noise makes a configuration differ from itself reads a disease
 * there, and then no experiment's verdict can be trusted (lat_lab_apply_aa). */
enum { LAT_LAB_BASE = 0, LAT_LAB_ALLOC, LAT_LAB_SHARE, LAT_LAB_NOPIN, LAT_LAB_AA, LAT_LAB_NCONF };
/* "baseline", "alloc", "share-line", "no-pin", "aa-control" */
const char *lat_lab_conf_name(int conf);
const char *lat_lab_conf_flag(int conf); /* "no flags", "--alloc", ... */

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
/* A disease kind (tail, median or variance), not no change nor undecided. */
bool lat_lab_is_disease(int kind);
/* The disease experiment conf is built to show (LAT_LAB_TAIL for alloc, ...). */
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
/* A cell's placement (lab_placement.h): near (or the only one), far, or
 * moved during the run. */
enum { LAT_LAB_NEAR = 0, LAT_LAB_FAR = 1, LAT_LAB_MOVED = 2 };

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
/* The A/A control's word over the experiments: when v[LAT_LAB_AA] reads a
 * disease, every experiment's verdict v[LAT_LAB_ALLOC..LAT_LAB_NOPIN] becomes
 * undecided, its figures kept, its reason "this host fails its own A/A
 * control: ..." with the control's reading.  Returns true when it did.  v has
 * LAT_LAB_NCONF entries.  Pure. */
bool lat_lab_apply_aa(lat_lab_verdict *v);
/* One line: "tail disease (confidence 99.2%, 9 rounds): work p50 +1 tick ..." */
void lat_lab_verdict_text(const lat_lab_verdict *v, char *buf, size_t len);

#endif /* LATLAB_LAB_VERDICT_H */
