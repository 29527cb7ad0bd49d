/* paired.h - the paired-comparison engine: per-round log ratios of two sides
 * measured in the same rounds -> a shift point (estimate, intervals, test,
 * the smallest change the rounds could have seen) -> a kind (up, down, no
 * change within a band, undecided), plus the stop rule's projections and the
 * false-discovery control across a family of points. */

/* Why paired: on a shared VM the host drifts by more than the changes worth
 * finding.  When each round holds one run of each side in a random order,
 * the drift is common to both and cancels in the round's ratio; what is left
 * is read with rank statistics (stats.h), robust to the heavy tails of
 * latency figures.  The lab (lab_verdict.h) builds its shift function and
 * its stop rule from these points and adds its own diagnosis; `latlab ab`
 * judges each figure of each benchmark with lat_paired_judge.
 *
 * All functions are pure (no globals, no printing); scratch memory through
 * lat__alloc; thread-safe. */
#ifndef LATLAB_PAIRED_H
#define LATLAB_PAIRED_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/paired.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "latlab/stats.h"

/* The power the minimum detectable effect is stated at. */
#define LAT_PAIRED_POWER 0.8

/* One point of a shift function, on the log scale (a shift of ln 1.02 is B
 * 2% above A). */
typedef struct lat_paired_point {
    size_t n;            /* paired rounds read */
    lat_stats_test test; /* Wilcoxon signed-rank of the log ratios (two-sided p) */
    lat_stats_shift ci;  /* Hodges-Lehmann estimate and its 1 - alpha interval */
    lat_stats_shift eq;  /* the 1 - 2 alpha interval: two one-sided tests at alpha
                          * (alpha itself from 0.5 up) */
    /* The smallest |shift| (ln) these rounds would detect at alpha with power
     * LAT_PAIRED_POWER: the interval's half-width scaled by
     * (z_{1-alpha/2} + z_power) / z_{1-alpha/2}.  INFINITY with n < 2. */
    double mde;
} lat_paired_point;

/* Read one point from n per-round log ratios d (d untouched).  Returns 0,
 * -EINVAL (NULL, alpha outside (0, 1)) or -ENOMEM.  n < 2: p = 1 and
 * infinite intervals. */
int lat_paired_point_read(const double *d, size_t n, double alpha, lat_paired_point *out);

/* What a point says against a band. */
enum {
    LAT_PAIRED_UNDECIDED = 0, /* neither a change nor inside the band yet */
    LAT_PAIRED_SAME,          /* no change: the 1 - 2 alpha interval inside the band */
    LAT_PAIRED_UP,            /* significantly above (B slower, for times) */
    LAT_PAIRED_DOWN,          /* significantly below */
};
const char *lat_paired_kind_name(int kind); /* "undecided", "no change", "up", "down" */

/* Judge a point: UP (DOWN) when reject is set (the caller's test, usually
 * lat_paired_bh over a family) and the interval lies above (below) 0; else
 * SAME when at least min_rounds rounds were read and the eq interval lies
 * within (-band_ln, band_ln); else UNDECIDED.  A significant change whose
 * whole 1 - alpha interval is inside the band is SAME (real, but smaller
 * than the band asks to hear about). */
int lat_paired_judge(const lat_paired_point *pt, bool reject, double band_ln, size_t min_rounds);

/* Benjamini-Hochberg at level q over n p-values: reject[i] set for the
 * discoveries (the family's false discovery rate at most q, for independent
 * or positively dependent tests).  NAN p-values are never rejected and do not
 * count.  q 0 (a look given no share of the level) rejects nothing.  Returns
 * the number of discoveries, or -EINVAL / -ENOMEM. */
int lat_paired_bh(const double *p, size_t n, double q, bool *reject);

/* The stop rule's two projections take their constants from the caller's
 * parameters (the lab's lat_lab_params, `latlab ab`'s lat_ab_params: both
 * name them band_edge_share and reach_est_multiple, 0.9 and 2 by default). */

/* Rounds after which an interval [lo, hi] read over `rounds` rounds would
 * fit inside (-lim, lim), were it to narrow as the square root of the rounds
 * around its centre: `rounds` when it fits already; 0 when its centre is
 * beyond edge_share x lim (within the rest of the band, no number of rounds
 * is a promise), or the figures are not finite, or edge_share is outside
 * (0, 1]. */
unsigned lat_paired_rounds_to_fit(double lo, double hi, unsigned rounds, double lim,
                                  double edge_share);

/* Whether more_rounds further rounds could take an interval [lo, hi] around
 * est (read over `rounds`) clear of 0, were the effect est_multiple times its
 * estimate: the interval narrows as the square root of the rounds.  An
 * estimate of a few rounds is itself uncertain, and one that may grow is
 * given the room.  false for est == 0, non-finite figures, or est_multiple
 * below 1. */
bool lat_paired_may_exclude_zero(double est, double lo, double hi, unsigned rounds,
                                 unsigned more_rounds, double est_multiple);

/* Whether a minimum detectable effect mde read over `rounds` rounds, above
 * lim, could come within it in more_rounds further rounds, narrowing as the
 * square root of the rounds.  false when it is within lim already, or the
 * figures are not finite. */
bool lat_paired_mde_may_fit(double mde, unsigned rounds, unsigned more_rounds, double lim);

/* A stop rule that tests at several looks spends its level at each of
 * them.  lat_paired_look_alpha gives the level of the look after `rounds`
 * rounds, of `total` the budget allows, the previous look having been after
 * `prev`.  It is the Lan-DeMets spending function of O'Brien-Fleming type,
 * a(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt t) at t = rounds / total, less
 * a(prev / total), what the earlier looks spent.  Over the looks to the
 * budget's end the levels add up to alpha: the early looks get almost
 * none, the last almost all.  0 when rounds is 0 or not above prev; a total
 * below rounds is read as rounds (the budget's end). */
double lat_paired_look_alpha(double alpha, unsigned prev, unsigned rounds, unsigned total);

/* Standard normal quantile z with P(Z < z) = prob, prob in (0, 1). */
double lat_paired_z(double prob);

#endif /* LATLAB_PAIRED_H */
