/* ab.h - `latlab ab`: two programs (A, B: the old and the new build) run in
 * paired rounds, the order inside each round randomized, with an A/A control
 * (A run a second time in every round, A2) judged by the same rules.
 *
 * This file holds the data and the decision (pure, tested on simulated
 * worlds: tests/measure/test_ab.c) and writes the reports; abrun.h runs the
 * programs.  Not thread-safe: one lat_ab per caller thread. */

/* The model (docs/ab-method.md).  Every run of a side yields figures per
 * benchmark: time per op, per-op percentiles, a command's wall and CPU time.
 * Per round and figure, the log ratio ln(B / A) is one paired value.
 *   - The paired engine (paired.h) reads its shift point: Hodges-Lehmann
 *     estimate, interval, signed-rank p, the smallest change the rounds could
 *     have seen.
 *   - Benjamini-Hochberg over every figure of the suite decides which
 *     shifts are changes, at the level of the stop rule's look
 *     (lat_paired_look_alpha: the looks share alpha between them).
 *   - The A/A family ln(A2 / A) is read the same way; a change there voids
 *     every verdict of the run.
 */

/* The stop rule looks at geometrically spaced rounds, each look testing at
 * its share of alpha.  It stops when every benchmark is decided, or when no
 * undecided figure could be decided in the rounds the budget leaves. */
#ifndef LATLAB_AB_H
#define LATLAB_AB_H

/* Experimental: its API may change in any release (see latlab.h). */
#ifndef LATLAB_EXPERIMENTAL
#error "latlab/ab.h is experimental: define LATLAB_EXPERIMENTAL to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "latlab/paired.h"

enum { LAT_AB_A = 0, LAT_AB_B = 1, LAT_AB_A2 = 2, LAT_AB_NSIDES = 3 };
const char *lat_ab_side_name(int side); /* "A", "B", "A2" */

/* The decision's named parameters (docs/ab-method.md has the table). */
typedef struct lat_ab_params {
    double alpha;        /* 0.01: Benjamini-Hochberg level over the suite's figures,
                          * shared by the stop rule's looks */
    double band;         /* 0.01: "no change" within x(1 - band) .. x(1 + band) */
    double tail_band;    /* 0.05: the band of tail figures (p99, p99.9) */
    unsigned min_rounds; /* 10: paired rounds before any verdict; raised to the fewest
                          * whose signed-rank test can reach alpha (8 at 0.01) */
    unsigned max_rounds; /* 1000, at most LAT_STATS_HL_MAX: a decision reads rounds^2 / 2 Walsh
                          * averages per figure (4 MB at 1,000) */
    /* The stop rule's projections (AB7, paired.h), fixed by the method: */
    double band_edge_share;    /* 0.9: a no-change interval centred beyond this share of the
                                * band is given up (lat_paired_rounds_to_fit) */
    double reach_est_multiple; /* 2: an undecided shift is projected at this multiple of its
                                * estimate (lat_paired_may_exclude_zero) */
    double reach_budget_share; /* 0.25: nothing is given up before this share of the rounds
                                * the budget allows (nor before twice min_rounds) */
    /* true: a figure read "no change" whose minimum detectable effect is above
     * its band stays open while the rounds the budget allows would bring the
     * effect within the band (it narrows as the square root of the rounds), so
     * that "no change" says a change of the band's size would have been seen */
    bool mde_within_band;
    /* true: a round's shift is B against the mean of A and A2 in logs, where
     * the round has both (ln B - (ln A + ln A2) / 2), else against A: a run's
     * own noise then weighs 1.5 in place of 2 (the effect 0.87 times as wide),
     * and the A/A control ln(A2 / A) is uncorrelated with the shift (against A
     * alone, a slow run of A moved both) */
    bool pooled_reference;
    /* true: each look of the stop rule tests at its share of alpha (false:
     * every look at alpha, the level spent once per look) */
    bool spend_alpha;
} lat_ab_params;
void lat_ab_params_default(lat_ab_params *p);

/* Verdicts of a benchmark. */
enum {
    LAT_AB_INCONCLUSIVE = 0,
    LAT_AB_SAME,   /* no change: the headline figure within the band, nothing moved */
    LAT_AB_SLOWER, /* a figure of B significantly above A's */
    LAT_AB_FASTER, /* a figure of B significantly below A's, none above */
    LAT_AB_VOID,   /* the A/A control read a difference: nothing can be said */
};
const char *lat_ab_verdict_name(int v); /* "inconclusive", "no change", "slower", ... */

typedef struct lat_ab lat_ab;

/* 0, -EINVAL (alpha outside (0, 1), band <= 0, max_rounds > LAT_STATS_HL_MAX), -ENOMEM.
 * p NULL: defaults. */
int lat_ab_create(const lat_ab_params *p, lat_ab **out);
void lat_ab_destroy(lat_ab *ab); /* NULL is fine */
/* The parameters in force: p's, with min_rounds raised as above.  Give these
 * to lat_ab_looks_at and lat_ab_should_stop, so they look where decide does. */
const lat_ab_params *lat_ab_params_of(const lat_ab *ab);

/* Record one figure of one run: bench "group/name", figure "time/op",
 * "p99", "wall", ...  (a figure named p9* is a tail figure; the first figure
 * recorded for a bench is its headline), value in ns (> 0; NAN: the run was
 * set aside for it), kept_share the share of the run censoring kept (NAN:
 * not known).  Rounds grow as needed.  0, -EINVAL, -ENOMEM. */
int lat_ab_record(lat_ab *ab, unsigned round, int side, const char *bench, const char *figure,
                  double value, double kept_share);
/* Rounds recorded (the highest round + 1). */
unsigned lat_ab_rounds(const lat_ab *ab);
/* After the first round: A and B ran the same suite (suite_a, suite_b: the
 * names their reports gave; "" when they give none) with the same benchmarks.
 * false, and why in buf ("benchmarks of A missing from B: g/y"), when not. */
bool lat_ab_same_sets(const lat_ab *ab, const char *suite_a, const char *suite_b, char *why,
                      size_t len);

/* One figure's reading. */
typedef struct lat_ab_figure {
    const char *bench, *figure; /* owned by the lat_ab */
    bool headline, tail;
    lat_paired_point ab, aa; /* ln(B / A), ln(A2 / A) */
    bool ab_reject, aa_reject;
    int kind;               /* LAT_PAIRED_* of B against A */
    unsigned set_aside;     /* rounds without both sides' value */
    double median_a_ns;     /* A's median over the rounds */
    double kept_a, kept_b;  /* median kept share (NAN: not known) */
    unsigned rounds_to_fit; /* rounds after which its no-change interval would fit (0: none) */
    bool reachable;         /* more rounds within the budget could decide it, or bring
                             * a "no change"'s minimum detectable effect within the band */
    double *per_round;      /* its value in each round, side by side: [side * rounds + round]
                             * (NAN: none, or set aside); in the result's rounds_v */
} lat_ab_figure;

typedef struct lat_ab_bench {
    const char *bench;
    int verdict;        /* LAT_AB_* */
    size_t first, nfig; /* its figures in lat_ab_result.fig */
    char reason[256];
} lat_ab_bench;

typedef struct lat_ab_result {
    size_t nfig, nbench;
    lat_ab_figure *fig;
    lat_ab_bench *bench;
    double *rounds_v; /* every figure's per_round, one block */
    unsigned rounds;
    double look_alpha; /* the level this look tested changes at */
    bool aa_failed;
    char aa_reason[256];
    unsigned decided, slower, faster, same, inconclusive;
} lat_ab_result;

/* Decide every benchmark.  more_rounds: the rounds the budget still allows
 * (for each figure's reachable flag, and the look's share of alpha: the
 * budget's rounds are the rounds so far plus more_rounds, at most
 * max_rounds).  0, -EINVAL, -ENOMEM. */
int lat_ab_decide(const lat_ab *ab, unsigned more_rounds, lat_ab_result *out);
void lat_ab_result_fini(lat_ab_result *r); /* NULL is fine */

/* The stop rule after `rounds` rounds, the budget leaving more_rounds:
 * true when every benchmark is decided and no undecided figure of theirs
 * could be decided in more_rounds, or (from twice min_rounds) no undecided
 * figure at all could be (out of reach), or more_rounds is 0; why
 * says which.  Before min_rounds, and between the looks (min_rounds x
 * 1.5^k), false. */
bool lat_ab_should_stop(const lat_ab_params *p, const lat_ab_result *r, unsigned rounds,
                        unsigned more_rounds, char *why, size_t len);
/* Whether the stop rule looks after `rounds` rounds: at min_rounds x 1.5^k,
 * at max_rounds, and when more_rounds is 0.  lat_ab_should_stop can be true
 * only there, so a caller may decide at these rounds only: a decision costs
 * O(rounds^2) (about 60 ms for two figures at 1,000 rounds). */
bool lat_ab_looks_at(const lat_ab_params *p, unsigned rounds, unsigned more_rounds);

/* Reports.  The table to out (labels name the sides); JSON (a new
 * reference, NULL on no memory); a Markdown summary for a CI job; an SVG of
 * each benchmark's shift function (its figures' B/A intervals beside the
 * A/A control's, the band shaded).  Write functions return 0 or -errno. */
struct json_t;
void lat_ab_print(FILE *out, const lat_ab_params *p, const lat_ab_result *r);
struct json_t *lat_ab_json(const lat_ab_params *p, const lat_ab_result *r);
int lat_ab_markdown(FILE *out, const lat_ab_params *p, const lat_ab_result *r, const char *label_a,
                    const char *label_b);
int lat_ab_svg(FILE *out, const lat_ab_params *p, const lat_ab_result *r, size_t bench);

#endif /* LATLAB_AB_H */
