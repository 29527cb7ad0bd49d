/* test_lab_rules.c - known answers for each rule of the lab's verdict
 * (lat_lab_decide, lab_verdict.h): paired rounds whose shift function is set
 * exactly (every quantile's ratio, with a little noise so the confidence
 * intervals are narrow), each rule's parameter met below, at and above its
 * threshold.  A rule that stops reading its parameter, or reads it the wrong
 * way round, fails here.  The statistical worlds are test_lab_verdict.c's. */
#include "lat_test.h"

#include "latlab/lab.h"
#include "latlab/stats.h"

#include <math.h>
#include <string.h>

#define MAXR 120

/* The experiment's ratio at each quantile and its body mean's shift. */
typedef struct shape {
    double r[LAT_LAB_NQ];
    double p50_add_ns; /* added to the experiment's p50 (after the ratio) */
    double mean_ratio; /* the body mean's ratio (0: as the p50's) */
    double disp;       /* the experiment's e2e p99.9 dispersion / the baseline's */
    bool deep;         /* the p99.99 is supported (kept >= 100,000): reported only */
    double tail_sd;    /* the p99.9's own run-to-run noise, ln sd (0: 0.5% as the rest) */
    bool tail_sd_exp;  /* ...on the experiment's side only */
} shape;

static lat_lab_cell g_base[MAXR], g_exp[MAXR];

/* nrounds paired cells: the baseline 100, 120, 140, 200, 400 ns at p50 ..
 * p99.99 with 0.5% noise per run; the experiment the same times the shape. */
static void build(const shape *s, unsigned n, uint64_t seed) {
    static const double b[LAT_LAB_NQ] = {100, 120, 140, 200, 400};
    lat_stats_rng g = {seed};
    for (unsigned k = 0; k < n; k++) {
        /* deterministic deviations for the dispersion: evenly spread z */
        double z = (2.0 * k + 1) / (2.0 * n) * 2 - 1, z2 = (2.0 * ((k * 7) % n) + 1) / n - 1;
        for (int side = 0; side < 2; side++) {
            lat_lab_cell *c = side ? &g_exp[k] : &g_base[k];
            memset(c, 0, sizeof *c);
            c->usable = true, c->kept = 95000, c->kept_share = 0.95;
            for (int q = 0; q < LAT_LAB_NQ; q++) {
                bool wide = q == LAT_LAB_Q999 && s->tail_sd > 0 && (side || !s->tail_sd_exp);
                double sd = wide ? s->tail_sd : 0.005;
                double v = b[q] * (side ? s->r[q] : 1) * exp(sd * lat_stats_normal(&g));
                c->work_q[q] = q == LAT_LAB_Q9999 && !s->deep ? NAN : v;
            }
            if (side) c->work_q[0] += s->p50_add_ns;
            double mr = s->mean_ratio > 0 ? s->mean_ratio : c->work_q[0] / 100;
            c->work_mean = 98 * (side ? mr : 1) * exp(0.002 * lat_stats_normal(&g));
            for (int q = 0; q < LAT_LAB_NQ; q++)
                c->e2e_q[q] = 1000 * (q + 1);
            c->e2e_q[LAT_LAB_Q999] = 3000 * exp(side ? s->disp * z2 : z);
        }
    }
}

static void params(lat_lab_params *p) {
    lat_lab_params_default(p);
    p->tick_ns = 1; /* resolves the band: 3 ticks of a 100 ns p50 */
    p->ncpus = 4;
}

static int decide(const lat_lab_params *p, const shape *s, unsigned n, lat_lab_verdict *v) {
    build(s, n, 7);
    assert_int_equal(lat_lab_decide(p, LAT_LAB_ALLOC, g_base, g_exp, n, v), 0);
    return v->kind;
}

static shape flat(void) {
    shape s = {{1, 1, 1, 1, 1}, 0, 0, 1, false, 0, false};
    return s;
}

static shape uniform(double r) {
    shape s = {{r, r, r, r, r}, 0, 0, 1, false, 0, false};
    return s;
}

/* min_median_ratio (1.1): the p50's lower bound must clear it. */
static void test_min_median_ratio(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape below = uniform(1.07), at = uniform(1.10), above = uniform(1.14);
    assert_int_not_equal(decide(&p, &below, 30, &v), LAT_LAB_MEDIAN);
    assert_int_not_equal(decide(&p, &at, 30, &v), LAT_LAB_MEDIAN);
    assert_int_equal(decide(&p, &above, 30, &v), LAT_LAB_MEDIAN);
    assert_true(v.shift[0].lo > 1.1 && v.shift[0].ratio < 1.16);
    p.min_median_ratio = 1.2; /* the same world, a higher bar */
    assert_int_not_equal(decide(&p, &above, 30, &v), LAT_LAB_MEDIAN);
}

/* min_median_ticks (3): a p50 that grew x1.2 by fewer ticks is no median
 * disease (below the granularity), by more it is. */
static void test_min_median_ticks(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    p.tick_ns = 4; /* 3 ticks = 12 ns */
    p.no_change_ratio = 1.5;
    lat_lab_verdict v;
    shape s = flat();
    s.p50_add_ns = 10; /* x1.1 */
    s.mean_ratio = 1.1;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_MEDIAN);
    assert_true(v.p50_below_tick);
    s.p50_add_ns = 14, s.mean_ratio = 1.14, s.r[1] = s.r[2] = s.r[3] = s.r[4] = 1.14;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_MEDIAN);
    assert_false(v.p50_below_tick);
    p.min_median_ticks = 4; /* 16 ns */
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_MEDIAN);
}

/* min_tail_ratio (1.3): the p99.9's lower bound must clear it, p50 flat. */
static void test_min_tail_ratio(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    s.r[LAT_LAB_Q999] = 1.26;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
    s.r[LAT_LAB_Q999] = 1.30;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
    s.r[LAT_LAB_Q999] = 1.35;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
    p.min_tail_ratio = 1.4;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
}

/* The tail (p99 and p99.9) x1.5^m. */
static void tail_at(shape *s, double m) {
    s->r[LAT_LAB_Q99] = s->r[LAT_LAB_Q999] = pow(1.5, m);
}

/* tail_log_multiple (m, 1.3): p50 x1.5 and the tail x1.5^k: k clearly
 * below m is a median disease, clearly above it a tail disease, at it
 * neither (the shape is decided at alpha both ways: a tail that grew as much
 * as the median's multiple is no median disease).  The shape's tail is the
 * p99 and the p99.9 together: a p99.9 that grew alone, beside a p99 that
 * moved as the median did, is no tail disease. */
static void test_tail_log_multiple(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    const double m = p.tail_log_multiple;
    lat_lab_verdict v;
    shape s = uniform(1.5);
    tail_at(&s, m - 0.2);
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_MEDIAN);
    tail_at(&s, m);
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "not yet decided"));
    /* open on its shape alone: what the stop rule's futility reads */
    assert_true(v.shape_open && v.shape_rounds == 30 && v.shape_lo < 0 && v.shape_hi > 0);
    assert_true(lat_lab_out_of_reach(&p, &v, 0));
    tail_at(&s, m - 0.01); /* the shape's estimate just below 0 */
    assert_int_equal(decide(&p, &s, 11, &v), LAT_LAB_UNDECIDED);
    tail_at(&s, m + 0.2);
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
    assert_false(v.shape_open || lat_lab_out_of_reach(&p, &v, 0));
    p.tail_log_multiple = m + 0.5; /* the same tail is now within the median's shape */
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_MEDIAN);
    p.tail_log_multiple = m;
    /* (1 + 2m - 1.1) / 2 < m: the p99.9 alone grew beyond the multiple */
    s.r[LAT_LAB_Q99] = 1.5, s.r[LAT_LAB_Q999] = pow(1.5, 2 * m - 1.1);
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_MEDIAN);
    assert_true(s.r[LAT_LAB_Q999] > pow(1.5, m));
}

/* median_dominant_ratio (1.6): a p50 whose lower bound is beyond it is a
 * median disease whatever the shape: the body itself slowed (false sharing
 * in the far placement, p50 x3 with the p99 x4-5).  At x3 with the tail at
 * the multiple (shape open) and just beyond it (shape above 0): median; the
 * same shapes at x1.5, below the ratio, stay open or read a tail; without
 * the rule (INFINITY) x3 reads as x1.5 does. */
static void test_median_dominant_ratio(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    const double m = p.tail_log_multiple;
    lat_lab_verdict v;
    for (int rule = 1; rule >= 0; rule--) {
        p.median_dominant_ratio = rule ? 1.6 : INFINITY;
        for (int x3 = 0; x3 < 2; x3++) {
            double r50 = x3 ? 3 : 1.5;
            shape s = uniform(r50);
            s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = pow(r50, m);
            int k = decide(&p, &s, 30, &v);
            assert_int_equal(k, rule && x3 ? LAT_LAB_MEDIAN : LAT_LAB_UNDECIDED);
            if (k == LAT_LAB_MEDIAN) assert_non_null(strstr(v.reason, "the body itself"));
            s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = pow(r50, m + 0.2);
            assert_int_equal(decide(&p, &s, 30, &v), rule && x3 ? LAT_LAB_MEDIAN : LAT_LAB_TAIL);
        }
    }
}

/* Futility (the stop rule's): an undecided shape is out of reach when the
 * rounds left, narrowing its interval as their square root, would not move
 * the bound on the estimate's side past 0 even around twice the estimate;
 * only a shape-open verdict is
 * (test_tail_log_multiple: decide sets it only when the shape is open). */
static void test_out_of_reach(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    /* known intervals, 12 rounds: 30 more narrow them by sqrt(12/42) */
    memset(&v, 0, sizeof v);
    v.kind = LAT_LAB_UNDECIDED, v.shape_open = true, v.shape_rounds = 12;
    v.shape_est = 0.02, v.shape_lo = -0.20, v.shape_hi = 0.24; /* centred on 0 */
    assert_true(lat_lab_out_of_reach(&p, &v, 30));
    v.shape_est = 0.10, v.shape_lo = -0.25, v.shape_hi = 0.45; /* 0.20 - 0.35 x 0.53 > 0 */
    assert_false(lat_lab_out_of_reach(&p, &v, 30));
    p.reach_est_multiple = 1.5; /* 0.15 - 0.35 x 0.53 < 0: V19's parameter is what projects */
    assert_true(lat_lab_out_of_reach(&p, &v, 30));
    p.reach_est_multiple = 2;
    assert_true(lat_lab_out_of_reach(&p, &v, 0));
    assert_true(lat_lab_out_of_reach(&p, &v, 2)); /* 0.20 - 0.35 sqrt(12/14) < 0 */
    v.shape_est = 0.06; /* 0.12 - 0.31 x 0.53 < 0: even twice the estimate is out of reach */
    assert_true(lat_lab_out_of_reach(&p, &v, 30));
    v.shape_est = -0.30, v.shape_lo = -0.65, v.shape_hi = 0.05; /* a median within reach */
    assert_false(lat_lab_out_of_reach(&p, &v, 30));
    v.shape_open = false; /* undecided for another reason: never out of reach */
    assert_false(lat_lab_out_of_reach(&p, &v, 0));
    v.shape_open = true, v.kind = LAT_LAB_MEDIAN;
    assert_false(lat_lab_out_of_reach(&p, &v, 0));
}

/* The sub-tick rule: the p50 does not move (below the granularity), so the
 * shape reads the median's growth from the body mean: the tail (p99 and
 * p99.9 together) must outgrow tail_log_multiple times the body mean's log
 * shift, round by round. */
static void test_body_mean_bounds_subtick_median(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    p.tick_ns = 10; /* 30 ns: every p50 here is below it */
    const double m = p.tail_log_multiple;
    lat_lab_verdict v;
    shape s = flat();
    s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = 1.4;
    s.mean_ratio = 1.0;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
    assert_true(v.p50_below_tick && v.shape_on_mean);
    s.mean_ratio = pow(1.4, 1 / m) * 1.05; /* the tail would need x1.4 x 1.05^m */
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_UNDECIDED);
    assert_true(v.shape_on_mean && v.shape_hi < 0 && !v.shape_open); /* decided: not beyond */
    s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = 1.4 * pow(1.1, m);
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_TAIL);
    assert_true(v.shape_lo > 0);
}

/* No rule reads the p99.99, even where the runs support it (a default run
 * of 30,000 events never does): p99.9 flat, p99.99 x2 is no change, the
 * p99.99's point still reported. */
static void test_p9999_reported_not_read(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    s.r[LAT_LAB_Q9999] = 2;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    assert_true(isnan(v.shift[LAT_LAB_Q9999].ratio));
    s.deep = true;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    assert_true(v.shift[LAT_LAB_Q9999].lo > 1.9);
    assert_null(strstr(v.reason, "p99.99"));
}

/* The parameters fixed by the method (lat_lab_params' last fields) are read:
 * each, moved, moves a verdict at its rule. */
static void test_fixed_parameters(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    /* V8: e2e x1.77 at p = 0.08 over 10 rounds is a hint at 10 alpha and a
     * share of 0.5 (x1.25); at 5 alpha, or a share of 2 (x2.0), it is not */
    shape s = flat();
    s.disp = 1.8;
    assert_int_equal(decide(&p, &s, 10, &v), LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "[V8]"));
    p.hint_alpha_multiple = 5;
    assert_int_equal(decide(&p, &s, 10, &v), LAT_LAB_NO_CHANGE);
    params(&p);
    p.hint_var_share = 2;
    assert_int_equal(decide(&p, &s, 10, &v), LAT_LAB_NO_CHANGE);
    /* V7: disp_offset, added to both median deviations, pulls the ratio
     * toward 1: a large one leaves no variance */
    params(&p);
    s.disp = 2;
    assert_int_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    p.disp_offset = 100;
    assert_int_not_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    assert_true(v.disp_ratio < 1.01);
    /* V7: beside a tail disease, a variance needs p below alpha divided by
     * tail_var_alpha_divisor */
    params(&p);
    s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = 2;
    p.tail_var_alpha_divisor = 1;
    assert_int_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    assert_non_null(strstr(v.reason, "beyond the tail"));
    p.tail_var_alpha_divisor = 1e12;
    assert_int_not_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    /* V6: the p50 below the ticks and no body mean: a tail x1.4 outgrows
     * the p50 shift plus one hidden tick (x1.1), not plus four (x1.4) */
    params(&p);
    p.tick_ns = 10;
    s = flat();
    s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = 1.4;
    for (int hidden = 1; hidden <= 4; hidden += 3) {
        p.hidden_ticks = hidden;
        build(&s, 30, 7);
        for (unsigned k = 0; k < 30; k++)
            g_base[k].work_mean = g_exp[k].work_mean = NAN;
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 30, &v), 0);
        assert_int_equal(v.kind, hidden == 1 ? LAT_LAB_TAIL : LAT_LAB_UNDECIDED);
        assert_non_null(strstr(v.reason, "[V6]"));
    }
    /* V16: share-line short of a disease is bound to the near placement
     * after near_settled_multiple x min_rounds rounds with no run away */
    params(&p);
    p.tick_ns = 10;
    s = uniform(1.1);
    build(&s, 30, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_true(v.host_bound);
    assert_non_null(strstr(v.reason, "[V16]"));
    p.near_settled_multiple = 3.1;
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_false(v.host_bound);
}

/* min_var_ratio (1.5) and alpha: the e2e p99.9 dispersion x2 over 80 rounds
 * is a variance disease; x1.3 is not; x2 over 12 rounds is not significant. */
static void test_min_var_ratio(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    s.disp = 2;
    assert_int_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    assert_true(v.disp_ratio > 1.9 && v.disp_p < p.alpha);
    p.min_var_ratio = 2.5;
    assert_int_not_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    params(&p);
    s.disp = 1.3;
    assert_int_not_equal(decide(&p, &s, 80, &v), LAT_LAB_VARIANCE);
    s.disp = 2;
    assert_int_not_equal(decide(&p, &s, 12, &v), LAT_LAB_VARIANCE);
    /* no change reads the dispersion by its test, not its ratio alone: x1.58
     * over 10 rounds at p = 0.19 does not hold it back (an A/A's e2e read
     * x1.56 over 38 rounds at p = 0.66); x1.77 at p = 0.08, a hint, does */
    s.disp = 1.6;
    assert_int_equal(decide(&p, &s, 10, &v), LAT_LAB_NO_CHANGE);
    assert_true(v.disp_ratio > p.min_var_ratio && v.disp_p > 10 * p.alpha);
    s.disp = 1.8;
    assert_int_equal(decide(&p, &s, 10, &v), LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "e2e p99.9 wanders more"));
}

/* no_change_ratio (1.25): a flat shift function is no change; one that
 * moved x1.02 at every quantile (significant, inside the band) is an effect
 * too small to classify; a band narrower than the intervals is not vouched
 * for. */
static void test_no_change_ratio(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    for (int q = 0; q < LAT_LAB_NQ; q++)
        assert_true(v.shift[q].rounds == 30 || q == LAT_LAB_Q9999);
    s = uniform(1.02);
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "too small to classify"));
    s = flat();
    p.no_change_ratio = 1.001; /* narrower than the 0.5% run noise's intervals */
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    /* the band reads the tail as the shape does, the p99 and the p99.9
     * together: a p99.9 that wanders from run to run (ln sd 0.35 per side,
     * an A/A round's ratio x0.53..x1.89, near a busy guest's) beside a steady
     * p99 is no change, though the p99.9's own interval is wider than the
     * band; one that grew x1.3 every round (inside the band together with
     * the p99) moved, and is not */
    params(&p);
    s = flat();
    s.tail_sd = 0.35;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    assert_true(v.shift[LAT_LAB_Q999].lo < 1 / p.no_change_ratio ||
                v.shift[LAT_LAB_Q999].hi > p.no_change_ratio);
    s = flat();
    s.r[LAT_LAB_Q999] = 1.3;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    /* the same wandering on the experiment's side alone is a dispersion
     * grown (an erratic tail), not no change */
    s = flat();
    s.tail_sd = 0.35, s.tail_sd_exp = true;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    /* a counter too coarse for the band (3 ticks of 10 ns: 30% of the 100 ns
     * p50): the body mean vouches for it, flat; grown x1.3 below a tick it
     * does not, nor does a run without body means */
    params(&p);
    p.tick_ns = 10;
    s = flat();
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    assert_true(v.p50_below_tick);
    s.mean_ratio = 1.3;
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    s.mean_ratio = 1.0;
    build(&s, 30, 7);
    for (unsigned k = 0; k < 30; k++)
        g_base[k].work_mean = g_exp[k].work_mean = NAN;
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "can vouch for"));
    params(&p);
    /* a tail interval wider than the band: not vouched for */
    s = flat();
    s.tail_sd = 1.5;
    assert_int_equal(decide(&p, &s, 30, &v), LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "p99..p99.9 tail interval"));
}

/* A p90 and p99 a tick or two above the p50 of a 10 ns counter (60, 60-70,
 * 70-100 ns, each run's by whole ticks, the p99 at times 170 ns): their own intervals cannot fit
 * the
 * +-25% band (one tick is 13% of 80 ns), so the body mean bounds them, as it
 * bounds the p50; the same p99 three ticks higher on the experiment's side
 * every round moved, and is no "no change". */
static void coarse_rounds(unsigned n, double exp_p99_add) {
    lat_stats_rng g = {11};
    for (unsigned k = 0; k < n; k++)
        for (int side = 0; side < 2; side++) {
            lat_lab_cell *c = side ? &g_exp[k] : &g_base[k];
            memset(c, 0, sizeof *c);
            c->usable = true, c->kept = 95000, c->kept_share = 0.95;
            c->work_q[LAT_LAB_Q50] = 60;
            c->work_q[LAT_LAB_Q90] = 60 + 10 * (double)(lat_stats_next(&g) % 2);
            uint64_t r = lat_stats_next(&g) % 8; /* 70..100 ns, at times 170 */
            c->work_q[LAT_LAB_Q99] =
                (r < 6 ? 70 + 10 * (double)(r % 4) : 170) + (side ? exp_p99_add : 0);
            c->work_q[LAT_LAB_Q999] = 200 * exp(0.05 * lat_stats_normal(&g));
            c->work_q[LAT_LAB_Q9999] = NAN;
            c->work_mean = 61 * exp(0.002 * lat_stats_normal(&g));
            for (int q = 0; q < LAT_LAB_NQ; q++)
                c->e2e_q[q] = 1000 * (q + 1);
            c->e2e_q[LAT_LAB_Q999] = 3000 * exp(0.1 * lat_stats_normal(&g));
        }
}

static void test_coarse_body_quantiles(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    p.tick_ns = 10;
    lat_lab_verdict v;
    coarse_rounds(30, 0);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_NO_CHANGE);
    /* the p99's own 98% interval is wider than the band: read alone, it
     * could never vouch */
    assert_true(v.shift[LAT_LAB_Q99].lo < 1 / p.no_change_ratio ||
                v.shift[LAT_LAB_Q99].hi > p.no_change_ratio);
    coarse_rounds(30, 30);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, 30, &v), 0);
    assert_int_not_equal(v.kind, LAT_LAB_NO_CHANGE);
}

/* band_rounds: an A/A whose only obstacle is a tail interval still wider
 * than the band says after how many rounds it would fit; with those rounds
 * (and half as many again) it reads no change.  A tail that moved, or one
 * whose centre sits at the band's edge, gives no such promise. */
static void test_band_rounds(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    s.tail_sd = 0.4;
    unsigned n = 12, promised = 0, kept = 0, seeds = 40;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        build(&s, n, seed);
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, n, &v), 0);
        if (v.kind != LAT_LAB_UNDECIDED || v.band_rounds == 0) continue;
        assert_non_null(strstr(v.reason, "interval"));
        assert_true(v.band_rounds > n);
        unsigned need = v.band_rounds + v.band_rounds / 2;
        if (need > MAXR) continue;
        promised++;
        build(&s, need, seed); /* the same first n rounds, and more */
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, need, &v), 0);
        kept += v.kind == LAT_LAB_NO_CHANGE;
        assert_true(v.kind == LAT_LAB_UNDECIDED || v.band_rounds == 0);
    }
    printf("A/A with a wandering tail after %u rounds: %u of %u seeds promised no change within "
           "x1.5 the rounds, %u kept it\n",
           n, promised, seeds, kept);
    assert_true(promised >= seeds / 2 && kept >= 0.7 * promised);
    s = flat();
    s.r[LAT_LAB_Q999] = 1.3; /* moved */
    assert_int_not_equal(decide(&p, &s, 30, &v), LAT_LAB_NO_CHANGE);
    assert_int_equal(v.band_rounds, 0);
    s.r[LAT_LAB_Q999] = s.r[LAT_LAB_Q99] = 1.24; /* at the band's edge */
    s.tail_sd = 0.6;
    assert_int_equal(decide(&p, &s, 12, &v), LAT_LAB_UNDECIDED);
    assert_int_equal(v.band_rounds, 0);
}

/* band_rounds beside a dispersion hint (p below ten times alpha, not below
 * alpha): the A/A waits while its intervals narrow, never once they fit,
 * and never for a dispersion grown at alpha. */
static void test_band_rounds_hint(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    s.disp = 1.8; /* e2e x1.77 at p = 0.08 over 10 rounds */
    build(&s, 10, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, 10, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "e2e p99.9 wanders more"));
    assert_int_equal(v.band_rounds, 0); /* the band fits: the hint decides */
    s.tail_sd = 0.4;
    unsigned promised = 0, seeds = 40;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        build(&s, 10, seed);
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, 10, &v), 0);
        if (v.kind != LAT_LAB_UNDECIDED || v.band_rounds == 0) continue;
        assert_true(v.disp_p < 10 * p.alpha && v.disp_p >= p.alpha);
        assert_true(v.band_rounds > 10);
        promised++;
    }
    printf("A/A with a dispersion hint and a wandering tail after 10 rounds: %u of %u seeds "
           "wait for the band\n",
           promised, seeds);
    assert_true(promised >= seeds / 4);
    s = flat();
    s.tail_sd = 0.4, s.tail_sd_exp = true; /* the work p99.9 wanders on one side only */
    for (uint64_t seed = 1; seed <= 10; seed++) {
        build(&s, 40, seed);
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_AA, g_base, g_exp, 40, &v), 0);
        assert_int_not_equal(v.kind, LAT_LAB_NO_CHANGE);
        assert_int_equal(v.band_rounds, 0);
    }
}

/* min_rounds (10): nine usable paired rounds decide nothing, ten do. */
static void test_min_rounds(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = uniform(1.5);
    assert_int_equal(decide(&p, &s, 9, &v), LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "usable paired rounds"));
    assert_int_equal(decide(&p, &s, 10, &v), LAT_LAB_MEDIAN);
    /* a set-aside run leaves its round out */
    build(&s, 10, 7);
    g_exp[3].usable = false;
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 10, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_int_equal(v.set_aside, 1);
}

/* min_placement_rounds (8): rounds in two placements are decided per
 * placement; a median in the near placement's 8 rounds decides, in 7 not. */
static void test_min_placement_rounds(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = uniform(1.5);
    for (unsigned near = 7; near <= 8; near++) {
        build(&s, 20, 7);
        for (unsigned k = near; k < 20; k++) { /* far rounds: no effect */
            g_base[k].placement = g_exp[k].placement = LAT_LAB_FAR;
            g_exp[k] = g_base[k];
        }
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 20, &v), 0);
        if (near == 8) {
            assert_int_equal(v.kind, LAT_LAB_MEDIAN);
            assert_int_equal(v.decided_in, LAT_LAB_NEAR);
        } else {
            assert_int_not_equal(v.kind, LAT_LAB_MEDIAN);
        }
        assert_int_equal(v.placement_rounds[0], near);
    }
    /* open on its shape over all rounds, but only the near placement's own
     * rounds are open: the far ones (5, fewer than min_placement_rounds)
     * could still decide with more, so the verdict is not out of reach */
    s = uniform(1.5);
    tail_at(&s, p.tail_log_multiple);
    build(&s, 25, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 25, &v), 0);
    assert_true(v.kind == LAT_LAB_UNDECIDED && v.shape_open); /* one placement: open */
    for (unsigned k = 20; k < 25; k++)
        g_base[k].placement = g_exp[k].placement = LAT_LAB_FAR;
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 25, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_false(v.shape_open || lat_lab_out_of_reach(&p, &v, 0));
}

/* 30 rounds of s, the first `far` in the far placement, the e2e spread the
 * same on each side (so that no placement's dispersion differs). */
static void build_far(const shape *s, unsigned far) {
    build(s, 30, 7);
    for (unsigned k = 0; k < 30; k++) {
        memcpy(g_exp[k].e2e_q, g_base[k].e2e_q, sizeof g_exp[k].e2e_q);
        if (k < far) g_base[k].placement = g_exp[k].placement = LAT_LAB_FAR;
    }
}

/* min_placement_rounds again: share-line's "no change" needs that many far
 * rounds (a line moved cheaply in the near placement can hide in the work);
 * with 7 it is inconclusive for the placement, with 8 it stands.  Another
 * experiment's no change needs none.  Any other verdict short of a disease
 * is bound to the placement once three times min_rounds rounds saw no run
 * away from the near one; so is a tail disease with the p50 flat. */
static void test_share_line_needs_far_rounds(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    lat_lab_verdict v;
    shape s = flat();
    build(&s, 30, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "far placement (0 rounds here, 8 needed)"));
    assert_true(v.host_bound); /* the lab need not wait for it */
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_NO_CHANGE);
    assert_false(v.host_bound);
    for (unsigned far = 7; far <= 8; far++) {
        build_far(&s, far);
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
        assert_int_equal(v.kind, far == 8 ? LAT_LAB_NO_CHANGE : LAT_LAB_UNDECIDED);
        assert_true(v.host_bound == (far < 8));
    }
    /* a small uniform growth below the ticks (p50 +10 ns on 100 at a 10 ns
     * step, the whole distribution x1.1): no disease, not no change.  With
     * no run away from the near placement in three times min_rounds it is
     * bound to the placement; with fewer rounds, or with one run far or
     * moved, the lab waits for more */
    p.tick_ns = 10;
    s = uniform(1.1);
    for (unsigned n = 29; n <= 30; n++) {
        build(&s, n, 7);
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, n, &v), 0);
        assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
        assert_true(v.host_bound == (n == 30));
        assert_true(n < 30 || strstr(v.reason, "no disease the counter can classify") != NULL);
    }
    g_base[0].placement = g_exp[0].placement = LAT_LAB_FAR;
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_false(v.host_bound);
    g_base[0].placement = LAT_LAB_NEAR, g_exp[0].placement = LAT_LAB_MOVED;
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_false(v.host_bound);
    /* a tail that grew x1.6 with the p50 flat: for alloc a tail disease;
     * for share-line with fewer than 8 far rounds inconclusive for the
     * placement (bound to the host only with no run away in 30 rounds), with
     * 8 far rounds it stands */
    s = flat();
    s.r[LAT_LAB_Q99] = s.r[LAT_LAB_Q999] = 1.6;
    build(&s, 30, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_TAIL);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_true(v.host_bound);
    assert_non_null(strstr(v.reason, "only the tail grew"));
    assert_non_null(strstr(v.reason, "far placement (0 rounds here, 8 needed)"));
    build(&s, 29, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 29, &v), 0);
    assert_true(v.kind == LAT_LAB_UNDECIDED && !v.host_bound); /* waits for far rounds */
    for (unsigned far = 7; far <= 8; far++) {
        build_far(&s, far);
        assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
        assert_int_equal(v.kind, far == 8 ? LAT_LAB_TAIL : LAT_LAB_UNDECIDED);
        assert_false(v.host_bound);
    }
    /* a p50 moved by the ticks a median disease needs, yet undecided (its
     * tail grew as much: the shape open) is no placement's doing */
    s = uniform(1.5);
    tail_at(&s, p.tail_log_multiple);
    build(&s, 30, 7);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_true(v.kind == LAT_LAB_UNDECIDED && !v.p50_below_tick && v.shape_open);
    assert_false(v.host_bound);
}

/* share-line with the placements apart: a tail with the p50 flat in the
 * near one does not dispute a median disease in the far one (false
 * sharing's signature); for alloc the same rounds disagree. */
static void test_share_line_far_decides(void **st) {
    (void)st;
    lat_lab_params p;
    params(&p);
    p.tick_ns = 10;
    lat_lab_verdict v;
    static lat_lab_cell fb[30], fe[30];
    shape med = uniform(2.0), tail = flat();
    tail.r[LAT_LAB_Q99] = tail.r[LAT_LAB_Q999] = 1.6;
    build(&med, 30, 7);
    memcpy(fb, g_base, sizeof fb);
    memcpy(fe, g_exp, sizeof fe);
    build(&tail, 30, 7);
    for (unsigned k = 0; k < 12; k++) {
        g_base[k] = fb[k], g_exp[k] = fe[k];
        g_base[k].placement = g_exp[k].placement = LAT_LAB_FAR;
        memcpy(g_exp[k].e2e_q, g_base[k].e2e_q, sizeof g_exp[k].e2e_q);
    }
    for (unsigned k = 12; k < 30; k++)
        memcpy(g_exp[k].e2e_q, g_base[k].e2e_q, sizeof g_exp[k].e2e_q);
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_SHARE, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_MEDIAN);
    assert_int_equal(v.placement_kind[LAT_LAB_NEAR], LAT_LAB_TAIL);
    assert_int_equal(v.placement_kind[LAT_LAB_FAR], LAT_LAB_MEDIAN);
    assert_non_null(strstr(v.reason, "decided on the 12 far-placement rounds"));
    assert_int_equal(lat_lab_decide(&p, LAT_LAB_ALLOC, g_base, g_exp, 30, &v), 0);
    assert_int_equal(v.kind, LAT_LAB_UNDECIDED);
    assert_non_null(strstr(v.reason, "the two placements disagree"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_min_median_ratio),
        cmocka_unit_test(test_min_median_ticks),
        cmocka_unit_test(test_min_tail_ratio),
        cmocka_unit_test(test_tail_log_multiple),
        cmocka_unit_test(test_median_dominant_ratio),
        cmocka_unit_test(test_out_of_reach),
        cmocka_unit_test(test_body_mean_bounds_subtick_median),
        cmocka_unit_test(test_p9999_reported_not_read),
        cmocka_unit_test(test_fixed_parameters),
        cmocka_unit_test(test_min_var_ratio),
        cmocka_unit_test(test_no_change_ratio),
        cmocka_unit_test(test_coarse_body_quantiles),
        cmocka_unit_test(test_band_rounds),
        cmocka_unit_test(test_band_rounds_hint),
        cmocka_unit_test(test_min_rounds),
        cmocka_unit_test(test_min_placement_rounds),
        cmocka_unit_test(test_share_line_needs_far_rounds),
        cmocka_unit_test(test_share_line_far_decides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
