/* loadsched.h - the schedule of `latlab load`: the intended send times of a
 * fixed rate, a step schedule or a linear ramp, one shard's (or one sending
 * thread's) exact share of them, a coordinated start, the figures of a
 * run step by step, and the search for the highest rate that holds a
 * latency objective (measure/loadsched_findmax.c). */

/* A rate schedule (a plan) is a rate over time, lambda(t).  Its arrivals are
 * those of a unit-rate process mapped through the inverse of the cumulative
 * rate Lambda(t) = integral of lambda from 0 to t (time rescaling):
 *   constant: arrival n at Lambda^-1(n), so the spacing follows the rate of
 *             the moment and a step changes the spacing, never a backlog;
 *   Poisson:  arrival n at Lambda^-1(E1 + ... + En), Ei exponential of mean 1:
 *             an inhomogeneous Poisson process of rate lambda(t).
 * Lambda^-1 is closed form (piecewise linear for steps, a quadratic's root
 * for a ramp), so memory is O(1) whatever the length.  A fixed rate keeps
 * the plain formulas (n / rate; exponential gaps of mean 1 / rate). */

/* Shards and threads: every generator computes the one schedule of the
 * seed and keeps its share.  Arrival n has a mark in 0..stride-1: n mod
 * stride for constant arrivals (each share evenly spaced), a hash of the
 * seed and n for Poisson ones (an independent thinning: each share is itself
 * Poisson, of rate lambda / stride).  A generator keeps the arrivals whose
 * mark is its phase, so shards are disjoint and their union is exactly the
 * schedule of one generator with the same seed. */

/* Threading: a lat_loadsched and a lat_loadsched_steps have one writer (the
 * sending thread) and are read after the run.  The parsers are pure. */
#ifndef LATLAB_LOADSCHED_H
#define LATLAB_LOADSCHED_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadsched.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"

/* LAT_LOAD_REPLAY: the times come from the caller (lat_load_cfg.replay_next);
 * lat_loadsched serves the other two. */
typedef enum lat_load_arrivals {
    LAT_LOAD_CONSTANT,
    LAT_LOAD_POISSON,
    LAT_LOAD_REPLAY
} lat_load_arrivals;

/* ---- the plan: a rate over time ------------------------------------------------------ */

typedef enum lat_loadsched_kind {
    LAT_LOADSCHED_FIXED, /* from_hz throughout */
    LAT_LOADSCHED_STEPS, /* from_hz, from_hz + step_hz, ... up to to_hz (or down), each for
                            hold_ns */
    LAT_LOADSCHED_RAMP   /* linear from from_hz to to_hz over hold_ns */
} lat_loadsched_kind;

typedef struct lat_loadsched_plan {
    lat_loadsched_kind kind;
    double from_hz, to_hz, step_hz; /* step_hz > 0 (STEPS only) */
    uint64_t hold_ns;               /* STEPS: each step; RAMP: the ramp */
} lat_loadsched_plan;

#define LAT_LOADSCHED_MAX_STEPS 64     /* a step schedule's steps at most */
#define LAT_LOADSCHED_RAMP_SEGMENTS 10 /* a ramp is reported in this many equal parts */
#define LAT_LOADSCHED_RATE_MAX 1e8     /* per second */

/* --rate's grammar:
 *   R                      a fixed rate (strtod syntax: 2e5), 0.001 .. 1e8;
 *   FROM:TO:STEP/HOLD      steps FROM, FROM+STEP, ... to TO (TO < FROM steps
 *                          down), each held HOLD (a duration: 10s, 500ms);
 *   ramp:FROM:TO/LENGTH    a linear ramp over LENGTH.
 * Rates 0 .. 1e8 (one above 0), STEP > 0 dividing the range into at most
 * LAT_LOADSCHED_MAX_STEPS steps, durations 1 ms .. 30 days.  0, or -EINVAL
 * with *why the fault (a phrase: "'x' is not a number"), pointing into a
 * static buffer (not thread-safe). */
int lat_loadsched_parse(const char *s, lat_loadsched_plan *p, const char **why);

/* The steps reported: FIXED 1, STEPS their count, RAMP the segments. */
unsigned lat_loadsched_nsteps(const lat_loadsched_plan *p);
/* The plan's length in ns (FIXED: 0, the caller's --duration). */
uint64_t lat_loadsched_duration_ns(const lat_loadsched_plan *p);
/* The mean and the peak rate over the plan (FIXED: from_hz). */
double lat_loadsched_mean_hz(const lat_loadsched_plan *p);
double lat_loadsched_peak_hz(const lat_loadsched_plan *p);
/* Step k (< lat_loadsched_nsteps) of a plan run for duration_ns: its span
 * [*from_ns, *to_ns) and its rate at the start and the end. */
void lat_loadsched_step_span(const lat_loadsched_plan *p, uint64_t duration_ns, unsigned k,
                             uint64_t *from_ns, uint64_t *to_ns, double *rate0_hz,
                             double *rate1_hz);
/* The step holding intended time t_ns (the last one past the end). */
unsigned lat_loadsched_step_of(const lat_loadsched_plan *p, uint64_t duration_ns, uint64_t t_ns);

/* On f, under a run's head line: a plan that is not FIXED (spec: --rate as
 * given; share_hz: this generator's mean) and, stride above 0, the shard
 * phase of stride of the schedule of seed. */
void lat_loadsched_write_plan(FILE *f, const lat_loadsched_plan *p, const char *spec,
                              double share_hz, uint32_t stride, uint32_t phase, uint64_t seed);

/* "I/N" with 0 <= I < N <= 65536 (--shard): 0 or -EINVAL. */
int lat_loadsched_parse_shard(const char *s, uint32_t *i, uint32_t *n);
/* A wall-clock time (--start-at): RFC 3339 ("2025-06-01T12:00:00.5Z",
 * "...+02:00") or Unix seconds with a fraction ("1748779200.5"), into ns
 * since the epoch.  0 or -EINVAL. */
int lat_loadsched_parse_time(const char *s, uint64_t *unix_ns);
/* The same, and no more than 100 ms before now_ns (ns since the epoch): 0,
 * or -EINVAL with *why (static, not thread-safe). */
int lat_loadsched_parse_start(const char *s, uint64_t now_ns, uint64_t *unix_ns, const char **why);
/* Sleep until lead_ns before unix_ns (CLOCK_REALTIME; at once when that has
 * passed), then give the cycle count (lat_cycles) at which unix_ns falls.
 * Returns that count. */
uint64_t lat_loadsched_start_cycles(uint64_t unix_ns, uint64_t lead_ns);

/* ---- the schedule --------------------------------------------------------------------- */

/* State of a schedule: O(1) memory whatever the duration. */
typedef struct lat_loadsched {
    lat_load_arrivals kind;
    double period_ns; /* 1e9 / rate (a plan, a share: of its peak, per arrival kept) */
    uint64_t n;       /* arrivals of the one schedule issued so far (kept or not) */
    double t_ns;      /* a fixed Poisson rate: the last arrival */
    uint64_t rng;     /* splitmix64 state */
    lat_loadsched_plan plan;
    double u;               /* a Poisson plan: the last arrival on the unit-rate scale */
    unsigned k;             /* steps: the step of the last arrival */
    double ck;              /* steps: Lambda at its start */
    uint32_t stride, phase; /* keep arrivals whose mark is phase (stride 1: all) */
    uint64_t mark_seed;
} lat_loadsched;

/* A fixed rate: rate_hz > 0; seed picks the Poisson stream (any value).  0 or -EINVAL. */
int lat_loadsched_init(lat_loadsched *s, lat_load_arrivals kind, double rate_hz, uint64_t seed);
/* plan (NULL, or FIXED with from_hz 0: rate_hz throughout), keeping the
 * share phase of stride (0: 1, every arrival).  0 or -EINVAL. */
int lat_loadsched_init_plan(lat_loadsched *s, lat_load_arrivals kind,
                            const lat_loadsched_plan *plan, double rate_hz, uint64_t seed,
                            uint32_t stride, uint32_t phase);
/* The next intended send time kept, ns after the start (non-decreasing);
 * UINT64_MAX once a plan is over. */
uint64_t lat_loadsched_next(lat_loadsched *s);

/* ---- a run step by step ----------------------------------------------------------------- */

/* Each request is counted in the step of its intended send time, wherever
 * it completes.  Per step: latency, lag and wait histograms (ns, 1 ns .. 1
 * hour, 2 significant digits: 1%), the requests scheduled and completed,
 * those censored (load.h), and the run's first send.  Recording allocates
 * nothing. */
typedef struct lat_loadsched_steps lat_loadsched_steps;

/* For plan run for duration_ns (a FIXED plan: one step).  0, -EINVAL, -ENOMEM. */
int lat_loadsched_steps_create(const lat_loadsched_plan *plan, uint64_t duration_ns,
                               lat_loadsched_steps **out);
void lat_loadsched_steps_destroy(lat_loadsched_steps *s); /* NULL is fine */
/* Recording, ns from the start (s NULL: nothing). */
void lat_loadsched_steps_scheduled(lat_loadsched_steps *s, uint64_t intended_ns);
void lat_loadsched_steps_sent(lat_loadsched_steps *s, uint64_t intended_ns, uint64_t sent_ns,
                              int64_t lag_ns, int64_t wait_ns, bool censored);
void lat_loadsched_steps_completed(lat_loadsched_steps *s, uint64_t intended_ns, int64_t latency_ns,
                                   bool censored);
/* to += from (the same plan and duration): 0 or -EINVAL. */
int lat_loadsched_steps_add(lat_loadsched_steps *to, const lat_loadsched_steps *from);

typedef struct lat_loadsched_step {
    uint64_t from_ns, to_ns;                 /* the span of intended times */
    double rate0_hz, rate1_hz;               /* the whole schedule's rate at its start and end */
    uint64_t scheduled, completed, censored; /* completed includes the censored */
    const lat_hist *latency, *lag, *wait;    /* of the requests kept */
} lat_loadsched_step;

unsigned lat_loadsched_steps_n(const lat_loadsched_steps *s);
/* Step k (< lat_loadsched_steps_n): 0 or -EINVAL. */
int lat_loadsched_steps_get(const lat_loadsched_steps *s, unsigned k, lat_loadsched_step *out);
/* The first send of the run and its intended time, ns from the start: false
 * when nothing was sent. */
bool lat_loadsched_steps_first(const lat_loadsched_steps *s, uint64_t *sent_ns,
                               uint64_t *intended_ns);

/* Step k judged by the run's verdict (loadverdict.h) on its own figures:
 * the lag and the wait below lag_fraction of the latency at each of ps
 * printed, the intervals within ci_width, and the step's requests completed
 * (at least LAT_LOAD_BEHIND of those scheduled in it).  Failures by kind,
 * the arrival test and the platform's share are judged for the whole run
 * only.  0 or -EINVAL. */
struct lat_load_verdict;
int lat_loadsched_steps_judge(const lat_loadsched_steps *s, unsigned k, const double *ps,
                              size_t nps, double lag_fraction, double ci_width,
                              struct lat_load_verdict *out);

/* Every step as a JSON array of objects (from_s, to_s, rate_hz, rate_end_hz,
 * scheduled, completed, censored, latency_p50_ns, latency_p99_ns,
 * lag_p99_ns, wait_p99_ns, valid, reason): a new reference, or NULL. */
struct json_t *lat_loadsched_steps_json(const lat_loadsched_steps *s, const double *ps, size_t nps,
                                        double lag_fraction, double ci_width);
/* On f: with skew, the start's skew (the first send and its intended time
 * after the requested start); with table, the steps as a table, a row a
 * step, and how many were judged invalid.  Returns that count. */
unsigned lat_loadsched_steps_write(FILE *f, const lat_loadsched_steps *s, bool skew, bool table,
                                   const double *ps, size_t nps, double lag_fraction,
                                   double ci_width);

/* ---- the highest rate that holds a latency objective (--find-max) ------------------------ */

/* A search decides; its caller runs.  Each rate is one run of its own at a
 * fixed rate, held hold_ns and judged whole (loadverdict.h).  First the
 * steps of a plan upwards, stopping at the first that fails (the rates
 * above it are not tried); then, bisect times, the whole rate midway
 * between the highest that held and the lowest that failed. */

/* A rate holds when its verdict is valid and, at each objective's
 * percentile, the latency has its interval (enough samples that it is not
 * the maximum) and its point estimate is at most the objective.  A rate
 * that fails says why (LAT_LOADSCHED_BY_*): an objective broken (the
 * service set the figure), the service behind the offered rate, the
 * connections at their limit, the generator's lag, or the run itself
 * (failed requests, errors, too few samples, cut short). */

#define LAT_LOADSCHED_MAX_SLOS 8    /* objectives at most */
#define LAT_LOADSCHED_MAX_BISECT 16 /* bisections at most */
#define LAT_LOADSCHED_MAX_TRIES (LAT_LOADSCHED_MAX_STEPS + LAT_LOADSCHED_MAX_BISECT)

typedef struct lat_loadsched_slo {
    double p;         /* the percentile, 0 < p < 100 */
    int64_t limit_ns; /* the latency there at most, > 0 */
} lat_loadsched_slo;

/* Why a rate failed: bits. */
#define LAT_LOADSCHED_BY_SLO 1u         /* a percentile above its objective */
#define LAT_LOADSCHED_BY_SERVICE 2u     /* completions under LAT_LOAD_BEHIND of the offered rate */
#define LAT_LOADSCHED_BY_CONNECTIONS 4u /* their limit, or a wait for one set a figure */
#define LAT_LOADSCHED_BY_GENERATOR 8u   /* the schedule lag set a figure */
#define LAT_LOADSCHED_BY_RUN 16u        /* the verdict's other reasons, or too few samples */

typedef struct lat_loadsched_try {
    double rate_hz;
    bool held, valid;                        /* valid: the verdict's */
    unsigned why;                            /* LAT_LOADSCHED_BY_* bits; 0 when held */
    lat_hist_ci slo[LAT_LOADSCHED_MAX_SLOS]; /* the latency (ns) at each objective's percentile */
    char reason[1024];                       /* the verdict's, "" when valid */
    int64_t samples;                         /* the latencies the run recorded */
} lat_loadsched_try;

typedef struct lat_loadsched_findmax lat_loadsched_findmax;

/* "pNN=DURATION" (p99=5ms, p99.9=500us; the unit ns, us, ms or s is
 * required; up to 1 hour): 0, or -EINVAL with *why (static, not
 * thread-safe). */
int lat_loadsched_parse_slo(const char *s, lat_loadsched_slo *out, const char **why);
/* A search over plan's steps (ascending, from_hz above 0), each held for
 * its hold; a FIXED plan of rate R steps R/10, 2R/10 .. R, each held
 * duration_ns.  slos: nslo strings, each one or more objectives separated
 * by commas (at most LAT_LOADSCHED_MAX_SLOS, percentiles distinct); bisect
 * 0 .. LAT_LOADSCHED_MAX_BISECT.  0, -ENOMEM, or -EINVAL with *why. */
int lat_loadsched_findmax_create(const lat_loadsched_plan *plan, uint64_t duration_ns,
                                 const char *const *slos, size_t nslo, unsigned bisect,
                                 lat_loadsched_findmax **out, const char **why);
void lat_loadsched_findmax_destroy(lat_loadsched_findmax *f); /* NULL is fine */
/* How long each rate runs, ns. */
uint64_t lat_loadsched_findmax_hold_ns(const lat_loadsched_findmax *f);
/* The next rate to run (per second), or 0 when the search is over. */
double lat_loadsched_findmax_next(const lat_loadsched_findmax *f);
/* The run at rate_hz (the one next gave) ended with verdict v and the
 * latency histogram (ns) it judged.  0, -EINVAL (NULL, no room left) or
 * -ENOMEM. */
int lat_loadsched_findmax_add(lat_loadsched_findmax *f, double rate_hz,
                              const struct lat_load_verdict *v, const lat_hist *latency);
/* The rates run, in the order run: try i < n, or NULL. */
unsigned lat_loadsched_findmax_n(const lat_loadsched_findmax *f);
const lat_loadsched_try *lat_loadsched_findmax_get(const lat_loadsched_findmax *f, unsigned i);
/* The index of the highest rate that held, and of the lowest that failed
 * above it (the first that failed when none held): -1 when there is none. */
int lat_loadsched_findmax_best(const lat_loadsched_findmax *f);
int lat_loadsched_findmax_failed(const lat_loadsched_findmax *f);

/* On out: try i as a line ("  250 req/s: held: p99 4.2 ms [4.1, 4.4] <=
 * 5 ms"), or the last when i is past the end. */
void lat_loadsched_findmax_write_try(FILE *out, const lat_loadsched_findmax *f, unsigned i);
/* On out: the search, each rate run, then "highest rate holding p99 <= 5
 * ms: R req/s (p99 X ms [lo, hi])" and "next rate S req/s failed: <who>:
 * <why>" (or that none held, or that every rate held). */
void lat_loadsched_findmax_write(FILE *out, const lat_loadsched_findmax *f);
/* As JSON (slos, hold_ns, bisect, max_rate_hz, max, next_failed, tries):
 * a new reference, or NULL. */
struct json_t *lat_loadsched_findmax_json(const lat_loadsched_findmax *f);
/* Latency by offered rate: for each objective the latency at its
 * percentile at every rate run, with its 95% interval as a band, and the
 * objective as a dashed line; as SVG at path (atomically): 0 or a negative
 * errno. */
int lat_loadsched_findmax_save_svg(const lat_loadsched_findmax *f, const char *path);

/* --arrivals replay's file: one intended send time per line, ns from the
 * start, non-decreasing, below 2^63, then at most a '#' comment ('#' comment
 * lines and blank lines skipped; a line of any length is one line).
 * lat_loadsched_replay_check reads f to its end: 0 with the count (*n) and the
 * last time (*last), -EINVAL at the first line that is not such a time
 * (*line_no, from 1), or -EIO on a read error.  lat_loadsched_replay_next is a
 * lat_load_cfg.replay_next for a FILE * (checked first): the next time, or
 * UINT64_MAX at the end or at a line that is not one. */
int lat_loadsched_replay_check(FILE *f, uint64_t *n, uint64_t *last, long *line_no);
uint64_t lat_loadsched_replay_next(void *file);

#endif /* LATLAB_LOADSCHED_H */
