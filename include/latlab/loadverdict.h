/* loadverdict.h - the validity verdict of an open-loop load run: can its
 * percentiles be trusted as the service's, or did the generator set them? */

/* The histograms judged are the kept requests' (load.h: the ones the sending
 * thread's platform gaps made late are censored before).  Their share is
 * reported beside, and so is the lag-1 dependence of latencies: Spearman's
 * rank correlation of consecutive completions (a stalled service makes
 * neighbours wait together).  Pure computation: no I/O, allocation only for a
 * sorted copy of the sample. */

/* Check 1: the achieved inter-arrival times (load.h: between sends neither of
 * which was censored) fit the requested process.  The test is
 * Anderson-Darling against the exponential with estimated mean (Stephens'
 * case).  For a constant schedule the statistic is reported, and the lag
 * bound of check 2 is the check.
 *
 * Check 3: each percentile printed has enough samples that its confidence
 * interval is not max-bound, and its relative width is at most ci_width.
 * Percentiles without enough samples are not printed at all and are not
 * valid; a run with none printed is not valid. */

/* Check 2: a percentile is valid only when, at the same percentile,
 *   - the schedule lag is below lag_fraction of the latency there (otherwise
 *     the generator, not the service, set the figure), and
 *   - the wait for a connection with room is below it too (otherwise the
 *     connections at their in-flight cap, a queue in the generator, set it:
 *     the offered rate was more than they carried).
 * A lag mostly from the backlogs such waits left (counts.late_wait) is said
 * to be one more connections would remove.  The exception: the service
 * completed under LAT_LOAD_BEHIND of the offered rate over the run.  It did
 * not keep up, and more connections only move that queue into it. */

/* The connections' own limit (Little's law): each request holds one of
 * connections x max_inflight slots for its service time, so together they
 * carry at most slots / mean service time per second.  When requests waited
 * for a slot and the offered rate was LAT_LOAD_BEHIND of that or more, the
 * connections are named as the limit with the count that carries the rate
 * (twice rate x service time / max_inflight).  Beside a service behind, one
 * run cannot tell the two apart (the slots full, completions are that
 * capacity either way), so both are named. */

/* Check 4: nothing went wrong on the wire or in the run's course:
 *   - no request failed (timeouts, and unsent and unanswered ones of a run
 *     stopped or ended by its deadline, included);
 *   - no reply said error, no protocol error with nothing in flight, no
 *     connect refused;
 *   - the run was not cut short;
 *   - the service kept up (completions at LAT_LOAD_BEHIND of the offered
 *     rate). */
#ifndef LATLAB_LOADVERDICT_H
#define LATLAB_LOADVERDICT_H

#ifndef LATLAB_EXPERIMENTAL
#error "latlab/loadverdict.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latlab/hist.h"
#include "latlab/load.h"

/* Anderson-Darling A^2 of x[0..n) against the exponential distribution with
 * the sample's mean, with Stephens' small-sample factor (1 + 0.6/n).  NAN
 * when n < 8 or the mean is not positive; -ENOMEM is reported as NAN too. */
double lat_load_verdict_ad_exponential(const double *x, size_t n);

/* Stephens' critical value of the modified statistic at 1% (exponential,
 * scale estimated): larger values reject "these are exponential". */
#define LAT_AD_EXP_CRIT_1PCT 1.957

/* Spearman's rank correlation of the pairs (x[2i], x[2i+1]), i < n, ties
 * ranked by their mean rank.  NAN when n < 8 or a side is constant, or out
 * of memory. */
double lat_load_verdict_spearman_pairs(const double *x, size_t n);

/* |rho| * sqrt(n - 1) above this: dependent at the 1% level (two-sided). */
#define LAT_SPEARMAN_Z_1PCT 2.576

#define LAT_LOAD_VERDICT_MAX 8

/* Completions per second over the run (counts.run_ns, the drain after the
 * schedule included) under this share of the offered rate: the service did
 * not keep up with it. */
#define LAT_LOAD_BEHIND 0.95

typedef struct lat_load_verdict_in {
    lat_load_arrivals arrivals;
    const double *interarrivals; /* ns, a sample */
    size_t n_interarrivals;
    const double *latency_pairs; /* (latency, next latency), ns; reported only */
    size_t n_pairs;
    const lat_hist *latency, *lag;
    const lat_hist *wait;    /* NULL: no wait check */
    const lat_hist *service; /* with connections: the connections' limit; NULL: not judged */
    unsigned connections, max_inflight; /* the whole run's (max_inflight 0 = 1) */
    const lat_load_counts *counts;
    uint64_t duration_ns; /* the schedule's length (offered rate = scheduled / it); 0: the
                             service's pace is not judged */
    const double *ps;     /* percentiles to print and judge, ascending */
    size_t nps;           /* <= LAT_LOAD_VERDICT_MAX */
    double lag_fraction;  /* 0 = 0.1 */
    double ci_width;      /* relative; 0 = 0.5 */
    double confidence;    /* 0 = LAT_HIST_CI_DEFAULT */
} lat_load_verdict_in;

typedef struct lat_load_pct {
    double p;
    bool printed;     /* enough samples: not max-bound */
    int64_t needed_n; /* when not printed */
    lat_hist_ci latency;
    int64_t lag, wait;
    bool lag_ok, wait_ok, width_ok;
    bool valid; /* printed and every check above passed */
} lat_load_pct;

typedef struct lat_load_verdict {
    bool valid;
    double ad_a2; /* NAN when too few samples */
    size_t ad_n;
    bool ad_pass;
    bool arrivals_ok;
    double lag1_rho; /* Spearman, latencies in completion order; NAN: too few */
    size_t lag1_n;
    bool lag1_independent; /* not rejected at 1%: reported, not judged */
    lat_load_pct pct[LAT_LOAD_VERDICT_MAX];
    size_t npct;
    double late_share, late_gap_share;   /* of requests sent */
    double platform_loss;                /* gap time / run time of the sending thread */
    double offered_rate, completed_rate; /* per second: scheduled / duration_ns (run_ns when
                                            the run stopped sooner), completed / run_ns (0
                                            when unknown) */
    bool service_behind;                 /* completed_rate < LAT_LOAD_BEHIND * offered_rate */
    double conn_capacity;                /* requests/s the connections carry (0: unknown) */
    bool conns_limit;      /* a request waited for a slot; offered >= LAT_LOAD_BEHIND of it */
    unsigned conns_needed; /* when conns_limit: twice rate x service time / max_inflight */
    double lag_fraction, ci_width, confidence;
    char reason[1024]; /* "" when valid */
} lat_load_verdict;

/* Judge.  0, or -EINVAL (NULL, nps too large). */
int lat_load_verdict_judge(const lat_load_verdict_in *in, lat_load_verdict *out);

/* The verdict as a JSON object (valid, reason, the arrival and independence
 * tests, each percentile's lag and width check, the late shares): a new
 * reference, or NULL (no memory). */
struct json_t *lat_load_verdict_json(const lat_load_verdict *v);
/* A latency histogram (ns) as a JSON object: "n", "pNN_ns" with its 95%
 * interval (lat_json_set_ci) for each of ps (at most 8), "max_ns",
 * "mean_ns"; every figure null when nothing was recorded. */
struct json_t *lat_load_hist_json(const lat_hist *h, const double *ps, size_t nps);
/* On f, one line: how many requests were censored (latency in censored, the
 * kept ones' in kept) and, when any, their own latency and every request's
 * together (p50, p99, max; p50, p99, p99.9): what censoring took out. */
void lat_load_write_censored(FILE *f, const lat_hist *kept, const lat_hist *censored);

/* The counts as a JSON object ("scheduled", "sent", ..., "errors" by kind,
 * "gap_ns", "run_ns"): a new reference, or NULL (no memory). */
struct json_t *lat_load_counts_json(const lat_load_counts *c);
/* On f, one line: the sending threads' platform gaps (threshold gap_ns, 0:
 * 10 us) and the share of the run they took, the requests sent late and how
 * many of them the gaps and the waits for a connection explain. */
void lat_load_counts_write_gaps(FILE *f, const lat_load_counts *c, unsigned threads,
                                uint64_t gap_ns);

#endif /* LATLAB_LOADVERDICT_H */
