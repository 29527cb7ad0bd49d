/* lab_verdict.h - the pipeline lab's verdict rule: pure functions of paired
 * per-interval figures and named parameters (no threads, no pipeline).
 *
 * Verdicts compare each experiment with the baseline of the same round, on
 * the work stage (the one the experiments act on; the e2e figures of a noisy
 * VM are dominated by platform noise) and, for variance, on e2e: a Wilcoxon
 * signed-rank test over rounds with a Hodges-Lehmann confidence interval on
 * the ratio (stats.h). */

/* A p50 change below the counter's granularity is reported as such, never as
 * a ratio; the work body's mean, which resolves below one counter step, then
 * bounds how much the median may have grown.
 * A tail disease reads the p99.9; the p99.99 is reported, never read.  Each
 * reason names its rules (V1..V20, docs/lab-method.md).  When the rounds span
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
    LAT_LAB_TAIL,          /* p99.9 up beyond the p50's shift */
    LAT_LAB_MEDIAN,        /* p50 up (and with it throughput) */
    LAT_LAB_VARIANCE,      /* the e2e p99.9's dispersion round to round grows */
    LAT_LAB_NKINDS
};
const char *lat_lab_kind_name(int kind);
/* A disease kind (tail, median or variance), not no change nor undecided. */
bool lat_lab_is_disease(int kind);
/* The disease experiment conf is built to show (LAT_LAB_TAIL for alloc, ...). */
int lat_lab_expected(int conf);

/* A configuration as the verdict sees it: the classifier reads these traits,
 * never which experiment it is judging. */
typedef struct lat_lab_conf_desc {
    const char *name, *flag;
    int expected;       /* the kind it is built to show (LAT_LAB_NO_CHANGE: none) */
    bool far_placement; /* its disease shows only in the far placement: near-only rounds
                         * cannot decide it (share-line) */
    bool spare_cpu;     /* its disease needs a CPU beyond the hot threads (no-pin) */
} lat_lab_conf_desc;
/* conf's descriptor, or NULL outside 0..LAT_LAB_NCONF-1.  Static storage. */
const lat_lab_conf_desc *lat_lab_conf_describe(int conf);

/* One interval's figures of one run: reports and plots only (lab/report.c);
 * the verdict never reads them (a 100 ms interval on a shared host almost
 * always holds a platform gap; a sample almost never does). */
typedef struct lat_lab_fig {
    double work_p50, work_p99, work_p999, work_max; /* ns, all events */
    double work_mean;         /* ns: mean of the body (samples <= p99); 0 or NAN: not measured */
    double e2e_p50, e2e_p999; /* ns */
    double tput_hz;
    double lost_share; /* largest share of the interval a hot thread lost in gaps */
} lat_lab_fig;

/* The shift function's quantiles. */
#define LAT_LAB_NQ 5
enum { LAT_LAB_Q50 = 0, LAT_LAB_Q90, LAT_LAB_Q99, LAT_LAB_Q999, LAT_LAB_Q9999 };
extern const double lat_lab_quantile_pct[LAT_LAB_NQ]; /* 50, 90, 99, 99.9, 99.99 */

/* A cell's placement (lab_placement.h): near (or the only one), far, or
 * moved during the run. */
enum { LAT_LAB_NEAR = 0, LAT_LAB_FAR = 1, LAT_LAB_MOVED = 2 };

/* One configuration's run in one round: the figures of the samples that
 * censoring kept (censor.h). */
typedef struct lat_lab_cell {
    bool usable;        /* false: missing, or too few kept samples to read the p99.9 */
    unsigned placement; /* LAT_LAB_NEAR, LAT_LAB_FAR or LAT_LAB_MOVED */
    uint64_t kept;      /* work samples kept */
    double kept_share;  /* kept / judged, 0..1 (NAN: not judged) */
    /* ns: the kept work samples at lat_lab_quantile_pct, bias-corrected (IPW);
     * NAN where kept < lat_censor_min_kept(pct) */
    double work_q[LAT_LAB_NQ];
    /* ns: mean of the kept work samples at or below their p99 (resolves below
     * a tick); NAN: not measured */
    double work_mean;
    double e2e_q[LAT_LAB_NQ]; /* ns: the kept e2e samples, same rule */
} lat_lab_cell;

/* One point of the shift function: per paired round d = ln(exp / base) at
 * that quantile; Hodges-Lehmann estimate and CI of d (stats.h), reported as
 * ratios exp(.).  NAN: not read (fewer than min_rounds rounds where both
 * sides support the quantile). */
typedef struct lat_lab_shift {
    double ratio, lo, hi, p;
    unsigned rounds;
} lat_lab_shift;

/* The verdict rule's named parameters: every constant a rule decides on
 * (docs/lab-method.md's parameter table; the rule ids are its rule table's). */
typedef struct lat_lab_params {
    double alpha;                  /* per test, two-sided (confidence = 1 - alpha) */
    double min_median_ratio;       /* median disease: the p50 ratio's lower bound above this */
    double min_median_ticks;       /* ... and the p50 shift at least this many counter ticks */
    double min_tail_ratio;         /* tail disease: the p99.9 ratio's lower bound above this */
    double tail_log_multiple;      /* tail vs median: a tail disease needs ln(tail ratio) above
                                    * this multiple of ln(median ratio), a median disease below
                                    * it, each at alpha */
    double median_dominant_ratio;  /* median disease whatever the shape: the p50 ratio's lower
                                    * bound above this (the body itself slowed) */
    double min_var_ratio;          /* variance disease: round-to-round dispersion grown this much */
    double no_change_ratio;        /* "no change" when the (1 - 2 alpha) intervals of p50,
                                    * p90, p99 and the tail lie within 1/x .. x */
    double tick_ns;                /* the counter's granularity */
    unsigned min_rounds;           /* paired rounds needed before deciding */
    unsigned min_placement_rounds; /* ... in one placement, when the rounds span two (and
                                    * far rounds for share-line's no change) */
    int ncpus, nhot;               /* CPUs the hot threads can use, hot threads */
    /* Fixed by the method (no option sets them; tests vary them): */
    double hint_alpha_multiple;    /* V8: a dispersion hint is a test at this multiple of alpha */
    double hint_var_share;         /* V8: ... of this share of min_var_ratio's growth */
    double tail_var_alpha_divisor; /* V7: beside a tail, variance at alpha / this */
    double disp_offset;            /* V7: added to both median deviations (ln) of the ratio */
    double hidden_ticks;           /* V6: ticks a p50 shift may hide without body means */
    double near_settled_multiple;  /* V16: near-only rounds, times min_rounds, that settle it */
    double reach_min_multiple;     /* V19: shape rounds, times min_rounds, before out of reach */
    double reach_est_multiple;     /* V19: the multiple of the shape's estimate projected
                                    * (lat_paired_may_exclude_zero) */
    double band_edge_share;        /* V20: a centre beyond this share of the band is given up
                                    * (lat_paired_rounds_to_fit) */
} lat_lab_params;
void lat_lab_params_default(lat_lab_params *p);
/* One named parameter (its field's name) and its value. */
typedef struct lat_lab_param {
    const char *name;
    double value;
    bool count; /* a whole number: lab.json writes it as an integer */
} lat_lab_param;
/* p's parameters by name, every field of lat_lab_params and min_kept_p999
 * (censor.h's support of the p99.9), into out (up to cap of them); returns
 * how many there are.  lab.json's params are this list (lab.h).  Pure. */
size_t lat_lab_params_list(const lat_lab_params *p, lat_lab_param *out, size_t cap);

typedef struct lat_lab_verdict {
    int kind;
    double confidence;  /* 1 - p of the deciding test (0 when undecided) */
    unsigned rounds;    /* paired rounds used */
    unsigned set_aside; /* rounds set aside (either side unusable) */
    /* The work stage's shift function, experiment / baseline. */
    lat_lab_shift shift[LAT_LAB_NQ];
    /* Round-to-round dispersion of ln e2e p99.9: the median absolute
     * deviation from each side's median, experiment / baseline (ratio; lo, hi:
     * NAN, not estimated), and the Mann-Whitney p of the deviations (one-sided
     * upwards: 1 when the experiment's are not larger). */
    double disp_ratio, disp_lo, disp_hi, disp_p;
    /* work p50 shift in ns (HL estimate) and the baseline's p50 */
    double p50_shift_ns, base_p50_ns;
    /* work body mean (sub-tick): per-round ratio (HL estimate, CI), shift in ns */
    double mean_ratio, mean_lo, mean_hi, mean_shift_ns;
    /* The rounds spanned both placements: each was decided on its own, and
     * the verdict is the disease one of them shows (undecided when they show
     * different ones).  placement_kind[i] is placement i's kind (-1: none). */
    int placement_kind[2];
    unsigned placement_rounds[2];
    int decided_in;      /* placement the verdict rests on, or -1 (all rounds, one placement) */
    bool p50_below_tick; /* the p50 change is below min_median_ticks */
    /* The shape, ln r_tail - tail_log_multiple ln r_median per round (HL
     * estimate and interval, ln scale; NAN: not read), over shape_rounds
     * rounds; r_median is the p50's ratio or, with the p50's shift below
     * min_median_ticks, the body mean's (shape_on_mean); shape_open: the
     * verdict is undecided on the shape alone (both the median and the tail
     * grew, and which grew more is not decided). */
    double shape_est, shape_lo, shape_hi;
    unsigned shape_rounds;
    bool shape_on_mean, shape_open;
    /* Undecided because this host cannot show the experiment's disease: too
     * few CPUs for no-pin, or share-line seen only in the near placement.
     * More rounds on the same host would not change it. */
    bool host_bound;
    /* Undecided only because an interval of the no-change band (a quantile's,
     * or the body mean's below the counter's step) is still wider than the
     * band, with nothing moved and the dispersion flat: the paired rounds
     * after which each such interval would fit, were it to narrow as the
     * square root of the rounds around its centre (0: not so, or a centre
     * too near the band's edge for any number of rounds). */
    unsigned band_rounds;
    char reason[512]; /* why, each clause led by its rule's id: "[V9] effects not ..." */
} lat_lab_verdict;

/* The verdict for experiment conf from nrounds paired cells (base[k] and
 * exp[k] ran in round k; unusable cells set their round aside).  Fills out
 * whatever it decides (shift[] NAN where not read).  Returns 0, -EINVAL (NULL
 * p/out, cells NULL with nrounds > 0, alpha outside (0, 1)) or -ENOMEM.
 * Pure. */
int lat_lab_decide(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                   const lat_lab_cell *exp, unsigned nrounds, lat_lab_verdict *out);
/* The A/A control's word over the experiments: when v[LAT_LAB_AA] reads a
 * disease, every experiment's verdict v[LAT_LAB_ALLOC..LAT_LAB_NOPIN] becomes
 * undecided, its figures kept, its reason "this host fails its own A/A
 * control: ..." with the control's reading.  Returns true when it did.  Also,
 * whatever the control reads, a variance disease whose e2e dispersion ratio
 * is no larger than the control's own becomes undecided (the host's noise).
 * v has LAT_LAB_NCONF entries.  Pure. */
bool lat_lab_apply_aa(lat_lab_verdict *v);
/* Futility: true when v is undecided on its shape alone (shape_open) and
 * more_rounds further paired rounds would not decide it even if the shape
 * were p->reach_est_multiple times its estimate: the interval narrows as the
 * square root of the rounds, and around that its bound on that side would
 * still not cross 0.  The lab stops on such a verdict as on a decided one (it
 * says so); more_rounds 0: true for any open shape.  Pure. */
bool lat_lab_out_of_reach(const lat_lab_params *p, const lat_lab_verdict *v, unsigned more_rounds);
/* One line: "tail disease (confidence 99.2%): [V5] the tail ...; 9 rounds used, ..." */
void lat_lab_verdict_text(const lat_lab_verdict *v, char *buf, size_t len);

#endif /* LATLAB_LAB_VERDICT_H */
