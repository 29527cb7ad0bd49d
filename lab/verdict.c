/* verdict.c - the pipeline lab's verdict rule (see lab_verdict.h).
 *
 * One picture per experiment: the work stage's shift function.  A cell is a
 * run reduced to the samples censoring kept; per paired round (experiment and
 * baseline of the same round) and per quantile q in p50, p90, p99, p99.9,
 * d_q = ln(exp_q / base_q) where both runs support q (the p99.99 is reported
 * where the runs support it, never read by a rule).  Each q gets a
 * Hodges-Lehmann estimate and confidence interval of d_q and a signed-rank p
 * (stats.h); the verdict is a few rules on those points.  Each rule has an id,
 * printed at the head of the reason it gives; docs/lab-method.md has one row
 * per id (what it tests, its parameters, why) and the reasoning behind each,
 * and docs/lab-evidence.md the measurements that chose the parameters.
 *
 * V1 reading (min_rounds pairs) - V2 the shape, ln r_tail - tail_log_multiple
 * ln r_median - V3 median disease - V4 a dominant median - V5 tail disease -
 * V6 a tail on a coarse counter without body means - V7 variance disease -
 * V8 a dispersion hint - V9 no change - V10 the band resolved - V11 an effect
 * too small to classify - V12 placements decided apart - V13 a spare CPU -
 * V14..V16 a disease of the far placement only - V17 the A/A control - V18 a
 * variance within the control's own - V19 out of reach (the lab's stop) - V20
 * the A/A control's wait for its band. */
#include "latlab/lab_verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/clock.h"
#include "latlab/paired.h"
#include "latlab/stats.h"

/* Each configuration as data: what the classifier needs to know about it,
 * so that no rule tests which experiment it is judging. */
static const lat_lab_conf_desc confs[LAT_LAB_NCONF] = {
    [LAT_LAB_BASE] = {"baseline", "no flags", LAT_LAB_NO_CHANGE, false, false},
    [LAT_LAB_ALLOC] = {"alloc", "--alloc", LAT_LAB_TAIL, false, false},
    /* a shared line moves cheaply in the near placement (near_only_share) */
    [LAT_LAB_SHARE] = {"share-line", "--share-line", LAT_LAB_MEDIAN, true, false},
    /* unpinned hot threads meet only with a CPU beyond them to wander to */
    [LAT_LAB_NOPIN] = {"no-pin", "--no-pin", LAT_LAB_VARIANCE, false, true},
    [LAT_LAB_AA] = {"aa-control", "no flags (the baseline again)", LAT_LAB_NO_CHANGE, false, false},
};
static const char *const kind_names[LAT_LAB_NKINDS] = {"inconclusive", "no significant change",
                                                       "tail disease", "median/throughput disease",
                                                       "variance disease"};

const lat_lab_conf_desc *lat_lab_conf_describe(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? &confs[conf] : NULL;
}
const char *lat_lab_conf_name(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? confs[conf].name : "?";
}
const char *lat_lab_conf_flag(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? confs[conf].flag : "?";
}
const char *lat_lab_kind_name(int kind) {
    return kind >= 0 && kind < LAT_LAB_NKINDS ? kind_names[kind] : "?";
}

int lat_lab_expected(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? confs[conf].expected : LAT_LAB_NO_CHANGE;
}

/* The descriptor of conf; a conf outside the table has none of the traits. */
static lat_lab_conf_desc traits(int conf) {
    const lat_lab_conf_desc *d = lat_lab_conf_describe(conf);
    return d ? *d : (lat_lab_conf_desc){"?", "?", LAT_LAB_NO_CHANGE, false, false};
}

const double lat_lab_quantile_pct[LAT_LAB_NQ] = {50, 90, 99, 99.9, 99.99};

static void verdict_clear(lat_lab_verdict *v) {
    memset(v, 0, sizeof *v);
    for (int q = 0; q < LAT_LAB_NQ; q++)
        v->shift[q] = (lat_lab_shift){NAN, NAN, NAN, NAN, 0};
    v->disp_ratio = v->disp_lo = v->disp_hi = v->disp_p = NAN;
    v->p50_shift_ns = v->base_p50_ns = NAN;
    v->mean_ratio = v->mean_lo = v->mean_hi = v->mean_shift_ns = NAN;
    v->shape_est = v->shape_lo = v->shape_hi = NAN;
    v->placement_kind[0] = v->placement_kind[1] = -1;
    v->decided_in = -1;
}

/* The quantiles the rules read: p50 .. p99.9 (the p99.99's point is only
 * reported: a run would need 100,000 kept samples to support it). */
enum { NREAD = LAT_LAB_Q999 + 1 };

/* The paired rounds' columns: per quantile the log ratios where both runs
 * support it, the p50's shift in ns, the body means, ln e2e p99.9 of each
 * side, and the shape columns (V2) ln r_tail - tail_log_multiple ln r50 and
 * ln r_mean (r_tail: the geometric mean of r99 and r999). */
typedef struct paired {
    size_t n;              /* rounds with both runs usable */
    double *d[LAT_LAB_NQ]; /* ln(exp_q / base_q) */
    size_t nd[LAT_LAB_NQ];
    double *dns;              /* p50 shift (ns) */
    double *bq[LAT_LAB_Q999]; /* the baseline's p50, p90, p99 (ns): d's rows */
    double *dm, *dmns;        /* body means: log ratio, shift (ns) */
    size_t nm;
    double *eb, *ee, *epl; /* ln e2e p99.9 of each side, the pair's placement */
    size_t ne;
    double *wb, *we, *wpl; /* ln work p99.9 of each side, the pair's placement */
    size_t nw;
    double *dy; /* shape at p99..p99.9 */
    double *dt; /* the tail's log ratio (the shape's, without the median): same rows */
    size_t ny;
    double *dym; /* the shape on the body mean: ln r_tail - tail_log_multiple ln r_mean */
    size_t nym;
    double *mem;
} paired;

static bool ok(double x) {
    return isfinite(x) && x > 0;
}

static void pair_one(const lat_lab_params *p, const lat_lab_cell *b, const lat_lab_cell *e,
                     paired *q) {
    for (int k = 0; k < LAT_LAB_NQ; k++)
        if (ok(b->work_q[k]) && ok(e->work_q[k])) {
            if (k < LAT_LAB_Q999) q->bq[k][q->nd[k]] = b->work_q[k];
            q->d[k][q->nd[k]++] = log(e->work_q[k] / b->work_q[k]);
        }
    if (ok(b->work_q[LAT_LAB_Q999]) && ok(e->work_q[LAT_LAB_Q999])) {
        q->wpl[q->nw] = b->placement == e->placement ? b->placement : LAT_LAB_MOVED;
        q->wb[q->nw] = log(b->work_q[LAT_LAB_Q999]);
        q->we[q->nw++] = log(e->work_q[LAT_LAB_Q999]);
    }
    bool has50 = ok(b->work_q[0]) && ok(e->work_q[0]);
    if (has50) { /* the same row as d[0]'s */
        q->dns[q->nd[0] - 1] = e->work_q[0] - b->work_q[0];
    }
    const int k = LAT_LAB_Q999, k0 = LAT_LAB_Q99;
    if (has50 && ok(b->work_q[k]) && ok(e->work_q[k]) && ok(b->work_q[k0]) && ok(e->work_q[k0])) {
        double tail = (log(e->work_q[k] / b->work_q[k]) + log(e->work_q[k0] / b->work_q[k0])) / 2;
        q->dt[q->ny] = tail;
        q->dy[q->ny++] = tail - p->tail_log_multiple * log(e->work_q[0] / b->work_q[0]);
        if (ok(b->work_mean) && ok(e->work_mean))
            q->dym[q->nym++] = tail - p->tail_log_multiple * log(e->work_mean / b->work_mean);
    }
    if (ok(b->work_mean) && ok(e->work_mean)) {
        q->dm[q->nm] = log(e->work_mean / b->work_mean);
        q->dmns[q->nm++] = e->work_mean - b->work_mean;
    }
    if (ok(b->e2e_q[LAT_LAB_Q999]) && ok(e->e2e_q[LAT_LAB_Q999])) {
        q->epl[q->ne] = b->placement == e->placement ? b->placement : LAT_LAB_MOVED;
        q->eb[q->ne] = log(b->e2e_q[LAT_LAB_Q999]);
        q->ee[q->ne++] = log(e->e2e_q[LAT_LAB_Q999]);
    }
}

/* Pair the usable rounds; counts the others in v->set_aside. */
static int pair_rounds(const lat_lab_params *p, const lat_lab_cell *base, const lat_lab_cell *exp,
                       unsigned nrounds, paired *q, lat_lab_verdict *v) {
    memset(q, 0, sizeof *q);
    enum { NFIX = 12, NCOL = LAT_LAB_NQ + LAT_LAB_Q999 + NFIX };
    size_t rows = nrounds + 1, ncol = NCOL;
    q->mem = lat__alloc(ncol * rows * sizeof *q->mem);
    if (!q->mem) return -ENOMEM;
    double **cols[NCOL] = {&q->dns, &q->dm, &q->dmns, &q->eb, &q->ee,  &q->epl,
                           &q->dy,  &q->dt, &q->wb,   &q->we, &q->wpl, &q->dym};
    for (int k = 0; k < LAT_LAB_NQ; k++)
        cols[NFIX + k] = &q->d[k];
    for (int k = 0; k < LAT_LAB_Q999; k++)
        cols[NFIX + LAT_LAB_NQ + k] = &q->bq[k];
    for (size_t i = 0; i < ncol; i++)
        *cols[i] = q->mem + i * rows;
    for (unsigned k = 0; k < nrounds; k++) {
        if (!base[k].usable || !exp[k].usable) {
            v->set_aside++;
            continue;
        }
        pair_one(p, &base[k], &exp[k], q);
        q->n++;
    }
    return 0;
}

/* The tests on the paired columns. */
typedef struct tests {
    lat_stats_test t[LAT_LAB_NQ];
    lat_stats_shift s[LAT_LAB_NQ];
    /* the (1 - 2 alpha) intervals: "no change" is two one-sided tests at
     * alpha, each bound against its side of the band (TOST) */
    lat_stats_shift eq[LAT_LAB_NQ];
    lat_stats_shift eqt;   /* ...of the tail as the shape reads it */
    bool read[LAT_LAB_NQ]; /* the quantile has min_rounds paired rounds */
    lat_stats_shift sns, sm, smns, sy;
    lat_stats_shift eqm; /* the body mean's (1 - 2 alpha) interval */
    bool have_mean, have_y, have_t;
    double resolved_ns;        /* min_median_ticks ticks of the counter */
    bool below;                /* the p50's shift is below them */
    bool mean_shape;           /* ...and sy reads the median's growth from the body mean */
    size_t shape_n;            /* the rounds of sy */
    double base_q[LAT_LAB_NQ]; /* the baseline's median p50, p90, p99 over the rounds (ns) */
    double disp_ratio, disp_p;
    bool have_disp;
    double wdisp_ratio, wdisp_p; /* the same of ln work p99.9 (ratio NAN: not read) */
} tests;

/* |x[i] - the median of the x[j] of i's placement| into dev (scratch: n). */
static void deviations(const double *x, const double *pl, size_t n, double *dev, double *scratch) {
    for (int where = LAT_LAB_NEAR; where <= LAT_LAB_MOVED; where++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (pl[i] == where) scratch[m++] = x[i];
        if (!m) continue;
        double med = lat_stats_median(scratch, m);
        for (size_t i = 0; i < n; i++)
            if (pl[i] == where) dev[i] = fabs(x[i] - med);
    }
}

/* V7: round-to-round dispersion: Mann-Whitney on the absolute deviations of
 * each side's ln e2e p99.9 from its median over the rounds of the same
 * placement (a rank Brown-Forsythe test: the placements' own levels are not
 * dispersion); the ratio of the median deviations, disp_offset added to
 * both so two flat sides read x1.  p: two-sided, 1 when the experiment's are
 * not the larger. */
static int dispersion(const lat_lab_params *p, const double *xb, const double *xe, const double *pl,
                      size_t n, double *ratio, double *pval) {
    double *da = lat__alloc(3 * n * sizeof *da);
    if (!da) return -ENOMEM;
    double *db = da + n, *tmp = db + n;
    deviations(xb, pl, n, db, tmp);
    deviations(xe, pl, n, da, tmp);
    lat_stats_test t;
    int rc = lat_stats_mann_whitney(da, n, db, n, &t);
    *ratio =
        (lat_stats_median(da, n) + p->disp_offset) / (lat_stats_median(db, n) + p->disp_offset);
    /* U of the experiment's deviations above its mean under H0: they are the larger */
    *pval = rc == 0 && t.stat > (double)n * (double)n / 2 ? t.p : 1;
    lat__free(da);
    return rc;
}

/* The level of the no-change intervals: 2 alpha (two one-sided tests at
 * alpha); alpha itself from 0.5 up, where 2 alpha leaves no interval. */
static double eq_alpha(const lat_lab_params *p) {
    return 2 * p->alpha < 1 ? 2 * p->alpha : p->alpha;
}

static int run_tests(const lat_lab_params *p, const paired *q, unsigned need, tests *t) {
    int rc = 0;
    for (int k = 0; k < LAT_LAB_NQ && !rc; k++) {
        t->read[k] = q->nd[k] >= need && q->nd[k] >= 2;
        if (!t->read[k]) continue;
        lat_paired_point pt; /* the engine's point: test, interval, no-change interval */
        rc = lat_paired_point_read(q->d[k], q->nd[k], p->alpha, &pt);
        t->t[k] = pt.test, t->s[k] = pt.ci, t->eq[k] = pt.eq;
        t->base_q[k] = k < LAT_LAB_Q999 ? lat_stats_median(q->bq[k], q->nd[k]) : NAN;
    }
    if (!rc && t->read[0]) rc = lat_stats_hl_shift(q->dns, q->nd[0], p->alpha, &t->sns);
    t->have_mean = q->nm >= need && q->nm >= 2 && q->nm == q->nd[0];
    if (!rc && t->have_mean) rc = lat_stats_hl_shift(q->dm, q->nm, p->alpha, &t->sm);
    if (!rc && t->have_mean) rc = lat_stats_hl_shift(q->dmns, q->nm, p->alpha, &t->smns);
    if (!rc && t->have_mean) rc = lat_stats_hl_shift(q->dm, q->nm, eq_alpha(p), &t->eqm);
    /* V2: the shape reads the median's growth from the p50 or, with the p50's
     * shift below the ticks that resolve it, from the body mean */
    t->resolved_ns = p->min_median_ticks * p->tick_ns;
    t->below = t->read[0] && fabs(t->sns.est) < t->resolved_ns;
    t->mean_shape = t->below && t->have_mean;
    const double *col = t->mean_shape ? q->dym : q->dy;
    size_t n = t->mean_shape ? q->nym : q->ny;
    t->shape_n = n;
    t->have_y = n >= need && n >= 2;
    if (!rc && t->have_y) rc = lat_stats_hl_shift(col, n, p->alpha, &t->sy);
    t->have_t = q->ny >= need && q->ny >= 2;
    if (!rc && t->have_t) rc = lat_stats_hl_shift(q->dt, q->ny, eq_alpha(p), &t->eqt);
    t->have_disp = q->ne >= need && q->ne >= 2;
    t->disp_ratio = NAN, t->disp_p = 1;
    if (!rc && t->have_disp)
        rc = dispersion(p, q->eb, q->ee, q->epl, q->ne, &t->disp_ratio, &t->disp_p);
    t->wdisp_ratio = NAN, t->wdisp_p = 1;
    if (!rc && q->nw >= need && q->nw >= 2)
        rc = dispersion(p, q->wb, q->we, q->wpl, q->nw, &t->wdisp_ratio, &t->wdisp_p);
    return rc;
}

/* The (1 - 2 alpha) interval the no-change band (V9) reads at quantile k: at
 * the p99.9 the tail as the shape reads it (the p99 and the p99.9 together),
 * where the rounds give it; the quantile's own elsewhere. */
static const lat_stats_shift *eq_point(const tests *t, int k) {
    return k == LAT_LAB_Q999 && t->have_t ? &t->eqt : &t->eq[k];
}

/* V10: quantile k is below the counter's resolution for the no-change band:
 * the p50's shift is below min_median_ticks ticks (its ratio is then read
 * from the body mean), or a p90 or p99 lies so near the p50 that those ticks
 * are wider than the band at its level.  Such points of the body are bounded
 * by the body mean's interval (samples up to the p99, read at a random phase
 * of the counter), which "no change" then requires; the p99 also stays in
 * the tail band with the p99.9. */
static bool below_band(const lat_lab_params *p, const tests *t, int k) {
    if (k == LAT_LAB_Q50) return t->below;
    return k < LAT_LAB_Q999 && t->below && t->have_mean &&
           t->resolved_ns > (p->no_change_ratio - 1) * t->base_q[k];
}

/* What the tests say, read against the parameters. */
typedef struct facts {
    bool median_up, median_shape, median_dominant, tail_up, tail_ok, var_up, var_hint, moved, still,
        flat, resolves; /* still: neither dispersion grown, the p50 and p99.9 read */
    double hidden;      /* the largest p50 growth not excluded (ratio) */
} facts;

/* V6: the largest median growth (ln) not excluded: the p50's upper bound,
 * or with the p50 below the granularity the body mean's upper bound, or
 * without means the measured shift plus hidden_ticks counter steps. */
static double hidden_growth(const lat_lab_params *p, const tests *t, const lat_lab_verdict *v) {
    double h = fmax(t->s[0].hi, 0);
    if (!v->p50_below_tick) return h;
    if (t->have_mean) return fmax(t->sm.hi, 0);
    if (v->base_p50_ns > 0)
        h = fmax(h, log((v->base_p50_ns + fmax(t->sns.est, 0) + p->hidden_ticks * p->tick_ns) /
                        v->base_p50_ns));
    return h;
}

/* V8: a hint of grown dispersion (hint_var_share of min_var_ratio's growth
 * at hint_alpha_multiple times alpha): not a variance verdict, but it holds
 * a tail verdict back, since a run-to-run erratic tail also grows the median
 * tail ratio, and it keeps "no change" out. */
static bool var_hint(const lat_lab_params *p, bool have, double ratio, double pval) {
    return have && pval < p->hint_alpha_multiple * p->alpha &&
           ratio >= 1 + (p->min_var_ratio - 1) * p->hint_var_share;
}

static void read_facts(const lat_lab_params *p, const tests *t, lat_lab_verdict *v, facts *f) {
    memset(f, 0, sizeof *f);
    v->p50_below_tick = t->below;
    /* V3 */
    f->median_up =
        t->t[0].p < p->alpha && t->s[0].lo > log(p->min_median_ratio) && !v->p50_below_tick;
    f->median_shape = t->have_y && t->sy.hi < 0;
    /* V4: a body that slowed this much is a throughput disease whatever its
     * tail did beside it */
    f->median_dominant = f->median_up && t->s[0].lo > log(p->median_dominant_ratio);
    double hidden = hidden_growth(p, t, v);
    f->hidden = exp(hidden);
    /* V5 */
    const int k = LAT_LAB_Q999;
    f->tail_up = t->read[k] && t->t[k].p < p->alpha && t->s[k].lo > log(p->min_tail_ratio);
    /* below the ticks with no body mean: the tail's bound against the largest
     * median growth not excluded (V6); else the shape (V2) */
    bool beyond = v->p50_below_tick && !t->mean_shape ? t->s[k].lo > p->tail_log_multiple * hidden
                                                      : t->have_y && t->sy.lo > 0;
    f->tail_ok = f->tail_up && beyond;
    /* V7 */
    f->var_up = t->have_disp && t->disp_p < p->alpha && t->disp_ratio >= p->min_var_ratio;
    f->var_hint = var_hint(p, t->have_disp, t->disp_ratio, t->disp_p);
    double lim = log(p->no_change_ratio);
    /* V9: the dispersion not grown: no hint (V8) that the e2e p99.9 (the
     * variance rule's) or the work p99.9 wanders more than the baseline's
     * (the tail band, p99 and p99.9 together, would otherwise average the
     * latter away).  A hint, not the ratio alone: the ratio of median
     * deviations swings where the rank test does not (at a 10 ns step many
     * rounds' work p99.9 ties with its median). */
    f->still = t->have_disp && !f->var_hint && isfinite(t->wdisp_ratio) &&
               !var_hint(p, true, t->wdisp_ratio, t->wdisp_p) && t->read[0] &&
               t->read[LAT_LAB_Q999];
    f->flat = f->still;
    for (int q = 0; q < NREAD; q++) {
        if (!t->read[q]) continue;
        const lat_stats_shift *e = eq_point(t, q);
        bool in = e->lo > -lim && e->hi < lim;
        if (below_band(p, t, q)) in = true; /* the body mean bounds it (f->resolves) */
        f->flat = f->flat && in;
        f->moved = f->moved || (t->t[q].p < p->alpha && (t->s[q].lo > 0 || t->s[q].hi < 0));
    }
    /* V10: the band is resolved by the counter (min_median_ticks fit in it at
     * the baseline's p50) or, below a tick, by the body mean's interval */
    f->resolves = t->resolved_ns <= (p->no_change_ratio - 1) * v->base_p50_ns ||
                  (v->p50_below_tick && t->have_mean && t->eqm.lo > -lim && t->eqm.hi < lim);
}

/* "x1.23 [1.10, 1.40]" of shift point k (ln scale in t). */
static const char *pt(const tests *t, int k, char *buf, size_t len) {
    snprintf(buf, len, "x%.2f [%.2f, %.2f]", exp(t->s[k].est), exp(t->s[k].lo), exp(t->s[k].hi));
    return buf;
}

/* "body mean +9.3 ns, x1.19 [1.17, 1.21]", or that it was not measured. */
static const char *mean_note(const tests *t, char *buf, size_t len) {
    if (!t->have_mean)
        snprintf(buf, len, "body mean not measured");
    else
        snprintf(buf, len, "body mean %+.1f ns, x%.2f [%.2f, %.2f]", t->smns.est, exp(t->sm.est),
                 exp(t->sm.lo), exp(t->sm.hi));
    return buf;
}

/* V9: nothing moved, yet no change is not shown: which interval is wider
 * than the no-change band (the first, from p50 up), or the dispersion (V8). */
static void not_separable(const lat_lab_params *p, const tests *t, const lat_lab_verdict *v,
                          char *r, size_t room) {
    static const char *const qn[NREAD] = {"p50", "p90", "p99", "p99..p99.9 tail"};
    double lim = log(p->no_change_ratio);
    char why[160] = "";
    for (int k = 0; k < NREAD && !why[0]; k++) {
        if (!t->read[k] || below_band(p, t, k)) continue;
        const lat_stats_shift *e = eq_point(t, k);
        if (e->lo <= -lim || e->hi >= lim)
            snprintf(why, sizeof why,
                     "; the work %s interval [%.2f, %.2f] (%.0f%%) is wider than the "
                     "no-change band x%.2f..x%.2f",
                     k == LAT_LAB_Q999 && !t->have_t ? "p99.9" : qn[k], exp(e->lo), exp(e->hi),
                     100 * (1 - eq_alpha(p)), 1 / p->no_change_ratio, p->no_change_ratio);
    }
    if (!why[0] && var_hint(p, t->have_disp, t->disp_ratio, t->disp_p))
        snprintf(why, sizeof why,
                 "; [V8] the e2e p99.9 wanders more from round to round (x%.2f, p=%.3f)",
                 t->disp_ratio, t->disp_p);
    if (!why[0] && var_hint(p, isfinite(t->wdisp_ratio), t->wdisp_ratio, t->wdisp_p))
        snprintf(why, sizeof why,
                 "; [V8] the work p99.9 wanders more from round to round (x%.2f, p=%.3f)",
                 t->wdisp_ratio, t->wdisp_p);
    snprintf(r, room,
             "[V9] effects not separable from this machine's noise after %u rounds (work p50 "
             "p=%.3f, p99.9 p=%.3f, dispersion p=%.3f)%s",
             v->rounds, t->t[0].p, t->t[LAT_LAB_Q999].p, t->disp_p, why);
}

/* The reason of an undecided verdict. */
static void explain_undecided(const lat_lab_params *p, const tests *t, const facts *f,
                              lat_lab_verdict *v, char *r, size_t room) {
    char a[64], b[64], mn[80];
    if (f->tail_ok && f->var_hint)
        snprintf(r, room,
                 "[V8] the work tail grew (p99.9 %s) and so did the round-to-round e2e p99.9 "
                 "dispersion (x%.2f, p=%.4f): a tail or a variance disease, not yet told apart",
                 pt(t, LAT_LAB_Q999, a, sizeof a), t->disp_ratio, t->disp_p);
    else if (f->median_up && (f->tail_up || !f->median_shape)) { /* which grew more: open */
        v->shape_open = true;
        snprintf(r, room,
                 "[V2] work p50 %s and p99.9 %s both grew; whether the tail grew beyond the "
                 "median (ln tail ratio at p99..p99.9 - %.1f ln p50 ratio: %+.2f [%+.2f, %+.2f]) "
                 "is not yet decided",
                 pt(t, 0, a, sizeof a), pt(t, LAT_LAB_Q999, b, sizeof b), p->tail_log_multiple,
                 t->sy.est, t->sy.lo, t->sy.hi);
    } else if (f->tail_up && t->mean_shape && t->sy.hi >= 0) { /* the same, on the body mean */
        v->shape_open = true;
        snprintf(r, room,
                 "[V2] work p99.9 %s and the body mean (x%.2f; the p50 moved %+.1f ns, below "
                 "%.0f ticks) both grew; whether the tail grew beyond the median (ln tail ratio "
                 "at p99..p99.9 - %.1f ln body mean ratio: %+.2f [%+.2f, %+.2f]) is not yet "
                 "decided",
                 pt(t, LAT_LAB_Q999, a, sizeof a), exp(t->sm.est), t->sns.est, p->min_median_ticks,
                 p->tail_log_multiple, t->sy.est, t->sy.lo, t->sy.hi);
    } else if (f->tail_up && t->mean_shape)
        snprintf(r, room,
                 "[V11] the work tail grew (p99.9 %s), but not beyond %.1f times the body mean's "
                 "log shift (%s; shape %+.2f [%+.2f, %+.2f]), and a p50 moved %+.1f ns is below "
                 "the %.0f ticks a median disease needs (counter step %.1f ns)",
                 pt(t, LAT_LAB_Q999, a, sizeof a), p->tail_log_multiple,
                 mean_note(t, mn, sizeof mn), t->sy.est, t->sy.lo, t->sy.hi, t->sns.est,
                 p->min_median_ticks, p->tick_ns);
    else if (f->tail_up)
        snprintf(r, room,
                 "[V6] the work tail grew (p99.9 %s), but a median growth up to x%.2f is not "
                 "excluded (work p50 %.0f ns, moved %+.1f ns; %s; counter step %.1f ns)",
                 pt(t, LAT_LAB_Q999, a, sizeof a), f->hidden, v->base_p50_ns, t->sns.est,
                 mean_note(t, mn, sizeof mn), p->tick_ns);
    else if (f->flat && !f->moved && !f->resolves) {
        if (t->have_mean)
            snprintf(mn, sizeof mn, "the body mean's %.0f%% interval x%.2f..x%.2f is not within it",
                     100 * (1 - eq_alpha(p)), exp(t->eqm.lo), exp(t->eqm.hi));
        else
            snprintf(mn, sizeof mn, "no body mean to bound it");
        snprintf(r, room,
                 "[V10] no change this counter can vouch for: the smallest median effect it "
                 "classifies (%.0f ticks of %.1f ns) is %.0f%% of the work p50 (%.0f ns), wider "
                 "than the +-%.0f%% 'no change' allows, and %s; work p50 moved %+.1f ns, p99.9 %s",
                 p->min_median_ticks, p->tick_ns, 100 * t->resolved_ns / v->base_p50_ns,
                 v->base_p50_ns, 100 * (p->no_change_ratio - 1), mn, t->sns.est,
                 pt(t, LAT_LAB_Q999, a, sizeof a));
    } else if (f->moved)
        snprintf(r, room,
                 "[V11] an effect too small to classify here: the shift function moved (p50 "
                 "%s%s, p99.9 %s, p=%.4f) but below what a disease needs (p50 lower bound x%.2f "
                 "and %.0f ticks, tail lower bound x%.2f); %s",
                 pt(t, 0, a, sizeof a), v->p50_below_tick ? ", below the granularity" : "",
                 pt(t, LAT_LAB_Q999, b, sizeof b), t->t[LAT_LAB_Q999].p, p->min_median_ratio,
                 p->min_median_ticks, p->min_tail_ratio, mean_note(t, mn, sizeof mn));
    else
        not_separable(p, t, v, r, room);
}

/* The note of a tail verdict (V5; V6 below the ticks without body means). */
static void explain_tail(const lat_lab_params *p, const tests *t, const facts *f,
                         lat_lab_verdict *v, char *r, size_t room) {
    char a[64];
    const int k = LAT_LAB_Q999;
    if (t->mean_shape)
        snprintf(r, room,
                 "[V5] work p50 moved %+.1f ns, below the counter's granularity; the tail (p99.9 "
                 "%s) grew beyond %.1f times the body mean's log shift (body mean x%.2f; shape "
                 "%+.2f [%+.2f, %+.2f])",
                 t->sns.est, pt(t, k, a, sizeof a), p->tail_log_multiple, exp(t->sm.est), t->sy.est,
                 t->sy.lo, t->sy.hi);
    else if (v->p50_below_tick)
        snprintf(r, room,
                 "[V6] work p50 moved %+.1f ns, below the counter's granularity; p99.9 %s "
                 "outgrew the largest median growth not excluded (x%.2f)",
                 t->sns.est, pt(t, k, a, sizeof a), f->hidden);
    else
        snprintf(r, room,
                 "[V5] the tail (p99 x%.2f, p99.9 %s) grew beyond %.1f times the median's log "
                 "shift (p50 x%.2f; shape %+.2f [%+.2f, %+.2f])",
                 exp(t->s[LAT_LAB_Q99].est), pt(t, k, a, sizeof a), p->tail_log_multiple,
                 exp(t->s[0].est), t->sy.est, t->sy.lo, t->sy.hi);
}

/* V20: the rounds after which every interval of the no-change band would fit
 * it (v->band_rounds), when that is all that keeps "no change" out: nothing
 * moved, the dispersion flat but for those intervals, the counter resolves
 * the band.  An interval of half-width w around c fits once w shrinks below
 * lim - |c|; a centre beyond band_edge_share of lim is given up (the
 * engine's lat_paired_rounds_to_fit). */
static unsigned band_rounds(const lat_lab_params *p, const tests *t, const facts *f,
                            const lat_lab_verdict *v) {
    /* a dispersion hint (V8), not a variance verdict, may be chance that more
     * rounds dispel: the lab waits while the band is still narrowing */
    bool wvar_up = t->wdisp_p < p->alpha && t->wdisp_ratio >= p->min_var_ratio;
    bool hinted = !f->still && !f->var_up && !wvar_up && t->have_disp && isfinite(t->wdisp_ratio) &&
                  t->read[0] && t->read[LAT_LAB_Q999];
    if (f->moved || !(f->still || hinted)) return 0;
    double lim = log(p->no_change_ratio), need = v->rounds;
    const lat_stats_shift *iv[NREAD + 1];
    int n = 0;
    for (int k = 0; k < NREAD; k++)
        if (t->read[k] && !below_band(p, t, k)) iv[n++] = eq_point(t, k);
    if (v->p50_below_tick) {
        if (!t->have_mean) return 0; /* the counter cannot resolve the band */
        iv[n++] = &t->eqm;
    } else if (!f->resolves) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        unsigned fit =
            lat_paired_rounds_to_fit(iv[i]->lo, iv[i]->hi, v->rounds, lim, p->band_edge_share);
        if (fit == 0) return 0;
        need = fmax(need, fit);
    }
    if (!f->still && need <= v->rounds) return 0; /* the band fits: the hint decides */
    return (unsigned)need;
}

static void classify(const lat_lab_params *p, int conf, const tests *t, lat_lab_verdict *v) {
    facts fs, *f = &fs;
    read_facts(p, t, v, f);
    char a[64];
    if (f->median_up && (f->median_shape || f->median_dominant)) {
        v->kind = LAT_LAB_MEDIAN;
        v->confidence = 1 - t->t[0].p;
        if (!f->median_shape)
            snprintf(v->reason, sizeof v->reason,
                     "[V4] the work p50 %s slowed past x%.2f: the body itself, whatever the tail "
                     "did beside it (shape %+.2f [%+.2f, %+.2f])",
                     pt(t, 0, a, sizeof a), p->median_dominant_ratio, t->sy.est, t->sy.lo,
                     t->sy.hi);
        else
            snprintf(v->reason, sizeof v->reason,
                     "[V3] the work p50 %s grew, the tail no more than %.1f times as much in log "
                     "terms (shape %+.2f [%+.2f, %+.2f])",
                     pt(t, 0, a, sizeof a), p->tail_log_multiple, t->sy.est, t->sy.lo, t->sy.hi);
    } else if (f->var_up && !f->median_up &&
               (!f->tail_ok || t->disp_p < p->alpha / p->tail_var_alpha_divisor)) {
        /* beside a grown tail, variance on more evidence (an erratic tail
         * grows the median tail ratio too) */
        v->kind = LAT_LAB_VARIANCE;
        v->confidence = 1 - t->disp_p;
        snprintf(v->reason, sizeof v->reason,
                 "[V7] the round-to-round e2e p99.9 dispersion grew x%.2f (p=%.4f)%s",
                 t->disp_ratio, t->disp_p,
                 f->tail_ok ? ", beyond the tail that grew beside it" : "");
    } else if (f->tail_ok && !f->var_hint) {
        v->kind = LAT_LAB_TAIL;
        v->confidence = 1 - t->t[LAT_LAB_Q999].p;
    } else if (f->flat && !f->moved && f->resolves) {
        v->kind = LAT_LAB_NO_CHANGE;
        v->confidence = 1 - p->alpha;
        snprintf(v->reason, sizeof v->reason,
                 "[V9] the %.0f%% intervals of the work p50..p99.9 within x%.2f..x%.2f, nothing "
                 "moved, the dispersion flat%s",
                 100 * (1 - eq_alpha(p)), 1 / p->no_change_ratio, p->no_change_ratio,
                 v->p50_below_tick ? "; [V10] the body mean bounds the p50 below the counter's step"
                                   : "");
    } else {
        v->kind = LAT_LAB_UNDECIDED;
    }
    if (v->kind == LAT_LAB_UNDECIDED) {
        explain_undecided(p, t, f, v, v->reason, sizeof v->reason);
        v->band_rounds = band_rounds(p, t, f, v);
        size_t len = strlen(v->reason);
        if (v->band_rounds > v->rounds)
            snprintf(v->reason + len, sizeof v->reason - len,
                     "; [V20] at the pace they narrow, the intervals would fit the band after "
                     "%u rounds",
                     v->band_rounds);
    }
    if (v->kind == LAT_LAB_TAIL) explain_tail(p, t, f, v, v->reason, sizeof v->reason);
    if (traits(conf).spare_cpu && p->ncpus <= p->nhot &&
        (v->kind == LAT_LAB_NO_CHANGE || v->kind == LAT_LAB_UNDECIDED)) {
        bool none = v->kind == LAT_LAB_NO_CHANGE;
        v->kind = LAT_LAB_UNDECIDED;
        v->shape_open = false;
        v->host_bound = true;
        v->confidence = 0;
        snprintf(v->reason, sizeof v->reason,
                 "[V13] too few CPUs for %s to matter: %d CPUs for %d hot threads, the scheduler "
                 "has nowhere else to put them (%s)",
                 traits(conf).name, p->ncpus, p->nhot,
                 none ? "no significant change" : "no clear change");
    }
}

static void fill_figures(const tests *t, const paired *q, lat_lab_verdict *v) {
    for (int k = 0; k < LAT_LAB_NQ; k++) {
        v->shift[k].rounds = (unsigned)q->nd[k];
        if (!t->read[k]) continue;
        v->shift[k].ratio = exp(t->s[k].est);
        v->shift[k].lo = exp(t->s[k].lo), v->shift[k].hi = exp(t->s[k].hi);
        v->shift[k].p = t->t[k].p;
    }
    if (t->read[0]) {
        v->p50_shift_ns = t->sns.est;
        v->base_p50_ns = t->base_q[0];
    }
    if (t->have_mean) {
        v->mean_ratio = exp(t->sm.est), v->mean_lo = exp(t->sm.lo), v->mean_hi = exp(t->sm.hi);
        v->mean_shift_ns = t->smns.est;
    }
    v->disp_ratio = t->disp_ratio;
    v->disp_p = t->have_disp ? t->disp_p : NAN;
    if (t->have_y) {
        v->shape_est = t->sy.est, v->shape_lo = t->sy.lo, v->shape_hi = t->sy.hi;
        v->shape_rounds = (unsigned)t->shape_n;
        v->shape_on_mean = t->mean_shape;
    }
}

bool lat_lab_out_of_reach(const lat_lab_params *p, const lat_lab_verdict *v, unsigned more_rounds) {
    if (!p || !v || v->kind != LAT_LAB_UNDECIDED || !v->shape_open || !isfinite(v->shape_est) ||
        !isfinite(v->shape_lo) || !isfinite(v->shape_hi) || v->shape_rounds == 0)
        return false;
    if (more_rounds == 0) return true;
    /* V19: the shape's interval narrowed to the rounds at the budget, around
     * reach_est_multiple x the estimate (the engine's projection, as `latlab
     * ab` uses it) */
    return !lat_paired_may_exclude_zero(v->shape_est, v->shape_lo, v->shape_hi, v->shape_rounds,
                                        more_rounds, p->reach_est_multiple);
}

/* The verdict on one set of rounds (one placement, or all of them). */
static int decide_one(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                      const lat_lab_cell *expc, unsigned nrounds, unsigned min_rounds,
                      lat_lab_verdict *v) {
    verdict_clear(v);
    paired q;
    int rc = pair_rounds(p, base, expc, nrounds, &q, v);
    if (rc) return rc;
    v->rounds = (unsigned)q.n;
    tests t;
    memset(&t, 0, sizeof t);
    rc = run_tests(p, &q, min_rounds, &t);
    if (rc == 0) fill_figures(&t, &q, v);
    if (rc == 0 && (!t.read[0] || !t.read[LAT_LAB_Q999])) {
        snprintf(v->reason, sizeof v->reason,
                 "[V1] %sonly %zu usable paired rounds (%u set aside: too few kept samples for "
                 "the p99.9), %u needed",
                 v->set_aside > q.n ? "a busy host: " : "", q.n, v->set_aside, min_rounds);
    } else if (rc == 0) {
        classify(p, conf, &t, v);
    }
    lat__free(q.mem);
    return rc;
}

bool lat_lab_is_disease(int kind) {
    return kind == LAT_LAB_TAIL || kind == LAT_LAB_MEDIAN || kind == LAT_LAB_VARIANCE;
}

/* "x1.23", or "n/a" for a ratio not read. */
static const char *ratio_or_na(double r, char *buf, size_t len) {
    if (isfinite(r))
        snprintf(buf, len, "x%.2f", r);
    else
        snprintf(buf, len, "n/a");
    return buf;
}

/* V18: a variance disease whose e2e dispersion grew no more than the A/A
 * control's own did (the baseline against itself, the same rounds): the
 * host's round-to-round noise, not the experiment's. */
static void variance_within_aa(lat_lab_verdict *v) {
    const lat_lab_verdict *aa = &v[LAT_LAB_AA];
    for (int x = LAT_LAB_ALLOC; x < LAT_LAB_AA; x++) {
        lat_lab_verdict *e = &v[x];
        if (e->kind != LAT_LAB_VARIANCE || !isfinite(aa->disp_ratio) || !isfinite(e->disp_ratio) ||
            aa->disp_ratio < e->disp_ratio)
            continue;
        e->kind = LAT_LAB_UNDECIDED;
        e->confidence = 0;
        e->shape_open = e->host_bound = false;
        snprintf(e->reason, sizeof e->reason,
                 "[V18] the e2e p99.9 dispersion grew x%.2f (p=%.4f), no more than the A/A "
                 "control's own (x%.2f over %u rounds): this host's round-to-round noise, not a "
                 "variance the experiment shows",
                 e->disp_ratio, e->disp_p, aa->disp_ratio, aa->rounds);
    }
}

/* V17: the A/A control's disease voids every experiment's verdict. */
bool lat_lab_apply_aa(lat_lab_verdict *v) {
    const lat_lab_verdict *aa = &v[LAT_LAB_AA];
    variance_within_aa(v);
    if (!lat_lab_is_disease(aa->kind)) return false;
    char why[sizeof aa->reason], a[16], b[16], c[16];
    snprintf(why, sizeof why,
             "[V17] this host fails its own A/A control: the baseline against itself read %s "
             "(work p50 %s, p99.9 %s, e2e p99.9 dispersion %s over %u rounds)",
             lat_lab_kind_name(aa->kind), ratio_or_na(aa->shift[LAT_LAB_Q50].ratio, a, sizeof a),
             ratio_or_na(aa->shift[LAT_LAB_Q999].ratio, b, sizeof b),
             ratio_or_na(aa->disp_ratio, c, sizeof c), aa->rounds);
    for (int x = LAT_LAB_ALLOC; x < LAT_LAB_AA; x++) {
        v[x].kind = LAT_LAB_UNDECIDED;
        v[x].shape_open = v[x].host_bound = false;
        v[x].confidence = 0;
        snprintf(v[x].reason, sizeof v[x].reason, "%s", why);
    }
    return true;
}

/* A tail in one placement is checked against the dispersion over the rounds
 * of both (more rounds than either alone).  1: it hints at variance (V8). */
static int pooled_hint(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                       const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *pooled) {
    int rc = decide_one(p, conf, base, expc, nrounds, p->min_rounds, pooled);
    if (rc) return rc;
    return var_hint(p, isfinite(pooled->disp_ratio), pooled->disp_ratio, pooled->disp_p);
}

/* V12: runs in both placements: decide each placement's rounds (both runs of
 * the pair in it; a pair split by a move, or moved during a run, is in neither)
 * on its own, then combine.  One placement's disease is the verdict unless
 * the other shows a different one; the two pooled are never read for a
 * disease (a median shift in one placement and none in the other pools into
 * a distribution that grew unevenly, which reads like a tail). */
static int decide_placed(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                         const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *v) {
    lat_lab_cell *sub = lat__alloc(2 * (size_t)nrounds * sizeof *sub);
    if (!sub) return -ENOMEM;
    lat_lab_verdict pv[2];
    int rc = 0;
    for (unsigned pl = 0; pl < 2 && !rc; pl++) {
        unsigned n = 0;
        for (unsigned k = 0; k < nrounds; k++)
            if (base[k].placement == pl && expc[k].placement == pl) {
                sub[n] = base[k];
                sub[nrounds + n] = expc[k];
                n++;
            }
        rc = decide_one(p, conf, sub, sub + nrounds, n, p->min_placement_rounds, &pv[pl]);
    }
    lat__free(sub);
    if (rc) return rc;
    static const char *const where[2] = {"near", "far"};
    /* V15: for a disease of the far placement, a near tail with the p50 flat
     * is not its signature (near_only_share), so it does not dispute a far
     * disease */
    bool near_quiet = traits(conf).far_placement && pv[0].kind == LAT_LAB_TAIL &&
                      pv[0].p50_below_tick && lat_lab_is_disease(pv[1].kind);
    int d = lat_lab_is_disease(pv[0].kind) && !near_quiet ? 0
            : lat_lab_is_disease(pv[1].kind)              ? 1
                                                          : -1;
    lat_lab_verdict pooled;
    if (d >= 0 && !near_quiet && lat_lab_is_disease(pv[1 - d].kind) &&
        pv[1 - d].kind != pv[d].kind) {
        *v = pv[d];
        v->kind = LAT_LAB_UNDECIDED;
        v->confidence = 0;
        snprintf(v->reason, sizeof v->reason,
                 "[V12] the two placements disagree: %s in the near one (%u rounds), %s in the "
                 "far one (%u rounds)",
                 lat_lab_kind_name(pv[0].kind), pv[0].rounds, lat_lab_kind_name(pv[1].kind),
                 pv[1].rounds);
    } else if (d >= 0 && pv[d].kind == LAT_LAB_TAIL &&
               (rc = pooled_hint(p, conf, base, expc, nrounds, &pooled)) != 0) {
        if (rc < 0) return rc;
        *v = pv[d];
        v->kind = LAT_LAB_UNDECIDED;
        v->confidence = 0;
        snprintf(v->reason, sizeof v->reason,
                 "[V8] the work tail grew in the %s placement (p99.9 x%.2f, %u rounds), but "
                 "over the rounds of both the e2e p99.9 dispersion grew too (x%.2f, p=%.4f): a "
                 "tail or a variance disease, not yet told apart",
                 where[d], pv[d].shift[LAT_LAB_Q999].ratio, pv[d].rounds, pooled.disp_ratio,
                 pooled.disp_p);
        rc = 0;
    } else if (d >= 0) {
        *v = pv[d];
        v->decided_in = d;
        size_t len = strlen(v->reason);
        snprintf(v->reason + len, sizeof v->reason - len,
                 "%s[V12] decided on the %u %s-placement rounds; the %u %s ones: %s%s",
                 len ? "; " : "", pv[d].rounds, where[d], pv[1 - d].rounds, where[1 - d],
                 lat_lab_kind_name(pv[1 - d].kind),
                 near_quiet ? " with the work p50 flat ([V15] not the far disease's signature)"
                            : "");
        v->set_aside = pv[0].set_aside + pv[1].set_aside;
    } else {
        /* no disease in either: all rounds together may still show that
         * nothing changed (more rounds bound the ratios tighter) */
        rc = decide_one(p, conf, base, expc, nrounds, p->min_rounds, v);
        if (rc) return rc;
        if (v->kind == LAT_LAB_UNDECIDED) {
            /* open on the shape of all rounds, but decided per placement:
             * out of reach (V19) only where each placement is itself open on
             * its shape (the pooled shape may sit near 0 while one
             * placement's rounds alone are about to decide) */
            v->shape_open = v->shape_open && pv[0].shape_open && pv[1].shape_open;
            size_t len = strlen(v->reason);
            snprintf(v->reason + len, sizeof v->reason - len,
                     "; [V12] neither placement alone decides (%u near rounds, %u far)",
                     pv[0].rounds, pv[1].rounds);
        } else if (lat_lab_is_disease(v->kind)) {
            char was[40];
            snprintf(was, sizeof was, "%s", lat_lab_kind_name(v->kind));
            v->kind = LAT_LAB_UNDECIDED;
            v->confidence = 0;
            snprintf(v->reason, sizeof v->reason,
                     "[V12] the rounds of both placements together read as a %s, but neither "
                     "placement's alone does (%u near, %u far rounds)",
                     was, pv[0].rounds, pv[1].rounds);
        }
    }
    for (int i = 0; i < 2; i++) {
        v->placement_kind[i] = pv[i].kind;
        v->placement_rounds[i] = pv[i].rounds;
    }
    return 0;
}

/* V14-V16, for a configuration whose disease shows only in the far
 * placement (share-line: a shared line costs what moving it between the hot
 * CPUs costs, and in the near placement that can be cheap enough for the
 * work stage to hide it).  V14: "no change" holds only with
 * min_placement_rounds far rounds in it.  V15: nor does a tail disease with
 * the p50 flat: inconclusive while the host may still move.  V16: once
 * near_settled_multiple times min_rounds paired rounds saw no run away from
 * the near placement, no verdict short of a disease holds either, and each
 * is bound to this host (more rounds in the same placement would not change
 * it). */
static void near_only_share(const lat_lab_params *p, const lat_lab_cell *base,
                            const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *v) {
    unsigned far = 0, near = 0, pairs = 0, away = 0;
    for (unsigned k = 0; k < nrounds; k++) {
        if (!base[k].usable || !expc[k].usable) continue;
        pairs++;
        away += base[k].placement != LAT_LAB_NEAR || expc[k].placement != LAT_LAB_NEAR;
        if (base[k].placement != expc[k].placement) continue;
        far += base[k].placement == LAT_LAB_FAR;
        near += base[k].placement == LAT_LAB_NEAR;
    }
    if (far >= p->min_placement_rounds) return;
    bool none = v->kind == LAT_LAB_NO_CHANGE;
    /* V15: a tail that grew with the work p50 flat: the near placement's
     * cheap transfer on some samples, not the far disease's signature */
    bool tail = v->kind == LAT_LAB_TAIL && v->p50_below_tick;
    bool settled = away == 0 && pairs >= p->near_settled_multiple * p->min_rounds;
    if (lat_lab_is_disease(v->kind) && !tail) return;
    /* V16: undecided only with a p50 moved less than the ticks a median
     * disease needs, not open on its shape, and only once settled (no run
     * away from the near placement: far, or moved during the run) */
    if (!none && !tail && (!settled || !v->p50_below_tick || v->shape_open)) return;
    char what[160];
    if (none)
        snprintf(what, sizeof what, "[V14] no change");
    else if (tail)
        snprintf(what, sizeof what,
                 "[V15] only the tail grew (work p50 %+.0f ns, p99.9 x%.2f, body mean x%.2f)",
                 v->p50_shift_ns, v->shift[LAT_LAB_Q999].ratio, v->mean_ratio);
    else
        snprintf(what, sizeof what,
                 "[V16] no disease the counter can classify (work p50 %+.0f ns, body mean x%.2f, "
                 "p99.9 x%.2f)",
                 v->p50_shift_ns, v->mean_ratio, v->shift[LAT_LAB_Q999].ratio);
    v->kind = LAT_LAB_UNDECIDED;
    v->confidence = 0;
    v->shape_open = false;
    v->host_bound = !tail || settled; /* a tail waits for far rounds while the host moves */
    snprintf(v->reason, sizeof v->reason,
             "%s over %u rounds in the near placement, where a line moves between the hot CPUs "
             "cheaply enough for the work to hide it; false sharing shows in the far placement "
             "(%u rounds here, %u needed)",
             what, near, far, p->min_placement_rounds);
}

int lat_lab_decide(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                   const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *v) {
    if (!p || !v || (nrounds && (!base || !expc)) || !(p->alpha > 0 && p->alpha < 1))
        return -EINVAL;
    /* one placement for every usable run: no strata */
    bool one = true;
    int first = -1;
    for (unsigned k = 0; k < nrounds; k++) {
        if (!base[k].usable || !expc[k].usable) continue;
        if (first < 0) first = (int)base[k].placement;
        one = one && base[k].placement == (unsigned)first && expc[k].placement == (unsigned)first &&
              first != LAT_LAB_MOVED;
    }
    int rc = one ? decide_one(p, conf, base, expc, nrounds, p->min_rounds, v)
                 : decide_placed(p, conf, base, expc, nrounds, v);
    if (rc == 0 && traits(conf).far_placement) near_only_share(p, base, expc, nrounds, v);
    return rc;
}

void lat_lab_verdict_text(const lat_lab_verdict *v, char *buf, size_t len) {
    const lat_lab_shift *s50 = &v->shift[LAT_LAB_Q50], *s999 = &v->shift[LAT_LAB_Q999];
    char p50[96];
    if (isnan(s50->ratio))
        snprintf(p50, sizeof p50, "work p50 n/a");
    else if (v->p50_below_tick)
        snprintf(p50, sizeof p50, "work p50 %+.0f ns (below the counter's granularity)",
                 v->p50_shift_ns);
    else
        snprintf(p50, sizeof p50, "work p50 x%.2f [%.2f..%.2f]", s50->ratio, s50->lo, s50->hi);
    int n = snprintf(buf, len, "%s", lat_lab_kind_name(v->kind));
    if (v->kind == LAT_LAB_UNDECIDED && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " on this machine: %s", v->reason);
    else if (n >= 0 && (size_t)n < len) /* "... (confidence 99.0%): [V3] the work p50 ..." */
        n += snprintf(buf + n, len - (size_t)n, " (confidence %.1f%%)%s%s", 100 * v->confidence,
                      v->reason[0] ? ": " : "", v->reason);
    if (n < 0 || (size_t)n >= len) return;
    n += snprintf(buf + n, len - (size_t)n, "; %u rounds used, %u set aside", v->rounds,
                  v->set_aside);
    if (n < 0 || (size_t)n >= len || isnan(s999->ratio)) return;
    n += snprintf(buf + n, len - (size_t)n, "; %s, p99.9 x%.2f [%.2f..%.2f]", p50, s999->ratio,
                  s999->lo, s999->hi);
    if (n >= 0 && (size_t)n < len && isfinite(v->disp_ratio))
        snprintf(buf + n, len - (size_t)n, ", e2e p99.9 dispersion x%.2f", v->disp_ratio);
}
