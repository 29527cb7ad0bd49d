/* verdict.c - the pipeline lab's verdict rule (see lab_verdict.h).
 *
 * The verdict reads, per paired round, the medians over the clean intervals
 * of the work stage's p50, p99.9 and p99.99 and of e2e's p99.9 with their spread, and
 * tests the per-round differences (logs: ratios) with the signed-rank test;
 * the Hodges-Lehmann interval on those differences is the ratio's confidence
 * interval.  Precedence: when p50 and p99.9 both grew, the tail's growth
 * beyond the median's (their per-round difference, tested the same way)
 * decides: beyond tail_excess_ratio a tail disease (an episodic cost on top
 * of a per-event one), below it a median/throughput disease (the whole
 * distribution moved), undecided between; a median effect alone (p50 up by a
 * ratio and a number of counter ticks) is a median disease; else a grown
 * spread (e2e's per-interval figures differing interval to interval inside a
 * run, or round to round: the seed's "differently on every run") is a
 * variance disease; else a consistent tail effect (the p99.9's, or the
 * p99.99's where an episodic cost is too rare to move the p99.9) is a tail
 * disease, which beside a p50 below the counter's resolution must outgrow the
 * median growth that can hide there. */
#include "latlab/lab_verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_internal.h"
#include "latlab/clock.h"
#include "latlab/stats.h"

static const char *const conf_names[LAT_LAB_NCONF] = {"baseline", "alloc", "share-line", "no-pin"};
static const char *const conf_flags[LAT_LAB_NCONF] = {"no flags", "--alloc", "--share-line",
                                                      "--no-pin"};
static const char *const kind_names[LAT_LAB_NKINDS] = {"inconclusive", "no significant change",
                                                       "tail disease", "median/throughput disease",
                                                       "variance disease"};

const char *lat_lab_conf_name(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? conf_names[conf] : "?";
}
const char *lat_lab_conf_flag(int conf) {
    return conf >= 0 && conf < LAT_LAB_NCONF ? conf_flags[conf] : "?";
}
const char *lat_lab_kind_name(int kind) {
    return kind >= 0 && kind < LAT_LAB_NKINDS ? kind_names[kind] : "?";
}

int lat_lab_expected(int conf) {
    switch (conf) {
    case LAT_LAB_ALLOC:
        return LAT_LAB_TAIL;
    case LAT_LAB_SHARE:
        return LAT_LAB_MEDIAN;
    case LAT_LAB_NOPIN:
        return LAT_LAB_VARIANCE;
    }
    return LAT_LAB_NO_CHANGE;
}

void lat_lab_params_default(lat_lab_params *p) {
    memset(p, 0, sizeof *p);
    p->alpha = 0.01;
    p->min_median_ratio = 1.10;
    p->min_median_ticks = 3;
    p->min_tail_ratio = 1.4;
    p->min_deep_ratio = 1.6;
    p->deep_alpha = 0.001;
    p->tail_excess_ratio = 1.25;
    p->tail_log_multiple = 1.5;
    p->steady_widen = 1.25;
    p->median_dominates = 2;
    p->min_var_ratio = 1.5;
    p->no_change_ratio = 1.25;
    p->tick_ns = 10;
    p->min_rounds = 10;
    p->min_placement_rounds = 8;
    p->max_interval_lost = 0.05;
    p->backlog_ns = 100000;
    p->min_intervals = 3;
    p->ncpus = 2;
    p->nhot = 2;
}

/* ---- the verdict rule --------------------------------------------------------------------- */

bool lat__lab_interval_clean(const lat_lab_params *p, const lat_lab_fig *f) {
    return f->lost <= p->max_interval_lost && f->work_p50 > 0 && f->work_p999 > 0 &&
           f->e2e_p999 > 0 && (p->backlog_ns <= 0 || f->e2e_p50 <= p->backlog_ns);
}

/* One cell reduced to per-round figures over its clean intervals. */
typedef struct cell_figs {
    bool ok;
    double p50, p999, e999, spread; /* ns, ns, log ns, IQR of log e2e p99.9 */
    double mean;                    /* ns, median of the intervals' body means (NAN: none) */
    double p9999;                   /* ns, the run's p99.99 (NAN: not measured) */
    unsigned used, aside;
} cell_figs;

/* An interval's work figures: of the events that met no queue (steady) when
 * it has them, else of all. */
static void work_figs(const lat_lab_fig *f, bool steady, double *p50, double *p999, double *mean) {
    bool s = steady && f->steady_p50 > 0 && f->steady_p999 > 0;
    *p50 = s ? f->steady_p50 : f->work_p50;
    *p999 = s ? f->steady_p999 : f->work_p999;
    *mean = s ? f->steady_mean : f->work_mean;
}

static cell_figs reduce_cell(const lat_lab_params *p, const lat_lab_cell *c, bool steady,
                             double *scratch) {
    cell_figs o = {0};
    if (!c || !c->usable || !c->iv) return o;
    double *a = scratch, *b = scratch + c->n, *e = scratch + 2 * c->n, *m = scratch + 3 * c->n;
    size_t k = 0;
    bool have_mean = true;
    for (size_t i = 0; i < c->n; i++) {
        if (!lat__lab_interval_clean(p, &c->iv[i])) {
            o.aside++;
            continue;
        }
        work_figs(&c->iv[i], steady, &a[k], &b[k], &m[k]);
        e[k] = log(c->iv[i].e2e_p999);
        have_mean = have_mean && isfinite(m[k]) && m[k] > 0;
        k++;
    }
    o.used = (unsigned)k;
    if (k < p->min_intervals || k == 0) return o;
    lat_stats_sort(a, k);
    lat_stats_sort(b, k);
    lat_stats_sort(e, k);
    o.p50 = lat_stats_quantile_sorted(a, k, 0.5);
    o.p999 = lat_stats_quantile_sorted(b, k, 0.5);
    o.e999 = lat_stats_quantile_sorted(e, k, 0.5);
    o.spread = lat_stats_quantile_sorted(e, k, 0.75) - lat_stats_quantile_sorted(e, k, 0.25);
    o.mean = have_mean ? lat_stats_median(m, k) : NAN;
    double deep = steady ? c->steady_p9999 : c->p9999;
    o.p9999 = isfinite(deep) && deep > 0 ? deep : NAN;
    o.ok = true;
    return o;
}

/* Paired per-round differences of every figure the rule reads.  The round is
 * the unit of every test that can give a verdict: intervals of one run share
 * its platform episodes, so they are not independent.  The intervals'
 * deviations pooled over rounds (devb, deve) only ever make a tail verdict
 * more cautious (a hint of spread), never a variance verdict. */
typedef struct paired {
    size_t n;
    double *d50, *dns, *d999, *dx, *dsp, *eb, *ee, *mb; /* dx: d999 - d50; dsp: log spread ratio */
    double *dm, *dmns;   /* log ratio and shift (ns) of the body means */
    double *dy;          /* d999 - tail_log_multiple * d50 */
    double *d9999;       /* log ratio of the work p99.99 */
    bool have_mean;      /* every paired round has both body means */
    bool have_deep;      /* ... and both p99.99 */
    double *wb, *we;     /* log work p99.9 of each side */
    double *devb, *deve; /* |log e2e p99.9 - its run's median|, every clean interval */
    size_t ndevb, ndeve;
} paired;

static void add_devs(const double *e, size_t k, double med, double *dst, size_t *n) {
    for (size_t i = 0; i < k; i++)
        dst[(*n)++] = fabs(e[i] - med);
}

static int pair_rounds(const lat_lab_params *p, const lat_lab_cell *base, const lat_lab_cell *exp,
                       unsigned nrounds, bool steady, paired *q, lat_lab_verdict *v) {
    size_t most = 1;
    for (unsigned k = 0; k < nrounds; k++) {
        if (base[k].n > most) most = base[k].n;
        if (exp[k].n > most) most = exp[k].n;
    }
    size_t rows = nrounds + 1, devs = most * rows;
    double *scratch = lat__alloc(8 * most * sizeof *scratch);
    double *all = lat__alloc((14 * rows + 2 * devs) * sizeof *all);
    if (!scratch || !all) {
        lat__free(scratch);
        lat__free(all);
        return -ENOMEM;
    }
    double **cols[14] = {&q->d50, &q->dns, &q->d999, &q->dx, &q->dsp,  &q->eb, &q->ee,
                         &q->mb,  &q->wb,  &q->we,   &q->dm, &q->dmns, &q->dy, &q->d9999};
    for (int i = 0; i < 14; i++)
        *cols[i] = all + (size_t)i * rows;
    q->devb = all + 14 * rows;
    q->deve = q->devb + devs;
    q->n = q->ndevb = q->ndeve = 0;
    q->have_mean = q->have_deep = true;
    double *sb = scratch, *se = scratch + 4 * most;
    for (unsigned k = 0; k < nrounds; k++) {
        cell_figs b = reduce_cell(p, &base[k], steady, sb), e = reduce_cell(p, &exp[k], steady, se);
        v->iv_used += b.used + e.used;
        v->iv_set_aside += b.aside + e.aside;
        if (!b.ok || !e.ok) {
            v->set_aside++;
            continue;
        }
        size_t i = q->n++;
        q->d50[i] = log(e.p50 / b.p50);
        q->dns[i] = e.p50 - b.p50;
        q->d999[i] = log(e.p999 / b.p999);
        q->dx[i] = q->d999[i] - q->d50[i];
        q->dy[i] = q->d999[i] - p->tail_log_multiple * q->d50[i];
        q->dsp[i] = log((e.spread + 0.02) / (b.spread + 0.02));
        add_devs(sb + 2 * base[k].n, b.used, b.e999, q->devb, &q->ndevb);
        add_devs(se + 2 * exp[k].n, e.used, e.e999, q->deve, &q->ndeve);
        q->eb[i] = b.e999;
        q->ee[i] = e.e999;
        q->wb[i] = log(b.p999);
        q->we[i] = log(e.p999);
        q->mb[i] = b.p50;
        q->have_mean = q->have_mean && !isnan(b.mean) && !isnan(e.mean);
        q->dm[i] = q->have_mean ? log(e.mean / b.mean) : 0;
        q->dmns[i] = q->have_mean ? e.mean - b.mean : 0;
        q->have_deep = q->have_deep && !isnan(b.p9999) && !isnan(e.p9999);
        q->d9999[i] = q->have_deep ? log(e.p9999 / b.p9999) : 0;
    }
    lat__free(scratch);
    return 0;
}

/* Across-round spread: Mann-Whitney on absolute deviations from each side's
 * median (a rank version of the Brown-Forsythe test); ratio of their medians. */
static int across_spread(const double *eb, const double *ee, size_t n, double *ratio,
                         double *pval) {
    double *da = lat__alloc(2 * n * sizeof *da);
    if (!da) return -ENOMEM;
    double *db = da + n;
    double mb = lat_stats_median(eb, n), me = lat_stats_median(ee, n);
    for (size_t i = 0; i < n; i++) {
        db[i] = fabs(eb[i] - mb);
        da[i] = fabs(ee[i] - me);
    }
    lat_stats_test t;
    int rc = lat_stats_mann_whitney(da, n, db, n, &t);
    double sa = lat_stats_median(da, n), sb = lat_stats_median(db, n);
    *ratio = (sa + 0.02) / (sb + 0.02);
    *pval = rc == 0 && t.z > 0 ? t.p : 1;
    lat__free(da);
    return rc;
}

typedef struct tests {
    lat_stats_test t50, t999, tx, t9999;
    lat_stats_shift s50, sns, s999, sx, s9999; /* x: the tail's growth beyond the median's */
    lat_stats_shift sy;                        /* y: ... beyond tail_log_multiple times it */
    bool have_mean, have_deep;
    lat_stats_shift sm, smns; /* the body means: log ratio, shift in ns */
    double across_ratio, across_p, within_ratio, within_p;
    double tail_across_ratio, tail_across_p; /* work p99.9 differing round to round */
    double pooled_ratio, pooled_p;           /* intervals pooled: a hint only */
} tests;

/* Within-run spread: per round, the IQR of log e2e p99.9 over the run's
 * intervals; a signed-rank test on the paired log ratios and its
 * Hodges-Lehmann estimate. */
static int within_spread(const lat_lab_params *p, const paired *q, double *ratio, double *pval) {
    *ratio = 1, *pval = 1;
    lat_stats_test t;
    lat_stats_shift h;
    int rc = lat_stats_signed_rank(q->dsp, q->n, &t);
    rc = rc ? rc : lat_stats_hl_shift(q->dsp, q->n, p->alpha, &h);
    if (rc) return rc;
    *ratio = exp(h.est);
    *pval = h.est > 0 ? t.p : 1;
    return 0;
}

/* Mann-Whitney on the pooled interval deviations: more power, but the
 * intervals of a run are not independent, so it is read as a hint only. */
static int pooled_spread(const paired *q, double *ratio, double *pval) {
    *ratio = 1, *pval = 1;
    if (!q->ndeve || !q->ndevb) return 0;
    lat_stats_test t;
    int rc = lat_stats_mann_whitney(q->deve, q->ndeve, q->devb, q->ndevb, &t);
    double sa = lat_stats_median(q->deve, q->ndeve), sb = lat_stats_median(q->devb, q->ndevb);
    *ratio = (sa + 0.02) / (sb + 0.02);
    *pval = rc == 0 && t.z > 0 ? t.p : 1;
    return rc;
}

static int run_tests(const lat_lab_params *p, const paired *q, tests *t) {
    int rc = 0;
    rc = rc ? rc : lat_stats_signed_rank(q->d50, q->n, &t->t50);
    rc = rc ? rc : lat_stats_signed_rank(q->d999, q->n, &t->t999);
    rc = rc ? rc : lat_stats_hl_shift(q->d50, q->n, p->alpha, &t->s50);
    rc = rc ? rc : lat_stats_hl_shift(q->dns, q->n, p->alpha, &t->sns);
    rc = rc ? rc : lat_stats_hl_shift(q->d999, q->n, p->alpha, &t->s999);
    rc = rc ? rc : lat_stats_signed_rank(q->dx, q->n, &t->tx);
    rc = rc ? rc : lat_stats_hl_shift(q->dx, q->n, p->alpha, &t->sx);
    rc = rc ? rc : lat_stats_hl_shift(q->dy, q->n, p->alpha, &t->sy);
    rc = rc ? rc : across_spread(q->eb, q->ee, q->n, &t->across_ratio, &t->across_p);
    rc = rc ? rc : across_spread(q->wb, q->we, q->n, &t->tail_across_ratio, &t->tail_across_p);
    rc = rc ? rc : pooled_spread(q, &t->pooled_ratio, &t->pooled_p);
    rc = rc ? rc : within_spread(p, q, &t->within_ratio, &t->within_p);
    t->have_mean = q->have_mean;
    t->have_deep = q->have_deep;
    if (q->have_deep) {
        rc = rc ? rc : lat_stats_signed_rank(q->d9999, q->n, &t->t9999);
        rc = rc ? rc : lat_stats_hl_shift(q->d9999, q->n, p->alpha, &t->s9999);
    }
    if (q->have_mean) {
        rc = rc ? rc : lat_stats_hl_shift(q->dm, q->n, p->alpha, &t->sm);
        rc = rc ? rc : lat_stats_hl_shift(q->dmns, q->n, p->alpha, &t->smns);
    }
    return rc;
}

typedef struct facts {
    bool median_up, tail_up, within_sp, across_sp, spread_hint, flat50, flat999, flat_sp,
        tail_moved, small_effect, resolves, tail_beyond, tail_within, tail_clear, deep_clear,
        tail_ok, tail_grew, var_held;
    double resolved, hidden, tail_need, deep_need;
} facts;

/* What the tests say, read against the parameters. */
static void read_facts(const lat_lab_params *p, const tests *t, lat_lab_verdict *v, facts *f) {
    f->resolved = p->min_median_ticks * p->tick_ns;
    v->p50_below_tick = fabs(t->sns.est) < f->resolved;
    f->median_up = t->t50.p < p->alpha && t->s50.lo > 0 && t->s50.est >= log(p->min_median_ratio) &&
                   !v->p50_below_tick;
    f->tail_up = t->t999.p < p->alpha && t->s999.lo > 0 && t->s999.est >= log(p->min_tail_ratio);
    f->within_sp = t->within_p < p->alpha && t->within_ratio >= p->min_var_ratio;
    f->across_sp = t->across_p < p->alpha && t->across_ratio >= p->min_var_ratio;
    /* a hint of grown e2e spread makes a tail ambiguous: tail or variance.
     * The work p99.9's own round-to-round spread is no such hint: a grown
     * tail is a thinner one, and its p99.9 varies more from run to run by
     * sampling alone (alloc here: x1.9, round to round x3.6, e2e spread
     * x1.1); it is reported, not read */
    double hint = 1 + (p->min_var_ratio - 1) / 2;
    f->spread_hint = (t->within_p < 10 * p->alpha && t->within_ratio >= hint) ||
                     (t->across_p < 10 * p->alpha && t->across_ratio >= hint) ||
                     (t->pooled_p < p->alpha && t->pooled_ratio >= hint);
    double lim = log(p->no_change_ratio);
    f->flat50 = v->p50_below_tick || (t->s50.lo > -lim && t->s50.hi < lim);
    f->flat999 = t->s999.lo > -lim && t->s999.hi < lim;
    f->flat_sp = t->within_ratio < p->min_var_ratio && t->across_ratio < p->min_var_ratio;
    /* "no change" is claimed only when nothing moved significantly: a real
     * but sub-threshold shift (a tail x1.15 whose interval excludes 1, say,
     * or a p50 below one counter tick) is an effect this machine cannot
     * classify, not the absence of one */
    f->tail_moved = t->t999.p < p->alpha && (t->s999.lo > 0 || t->s999.hi < 0);
    f->small_effect = f->tail_moved || (t->t50.p < p->alpha && v->p50_below_tick);
    /* ... and only with a counter that resolves the no-change band: the
     * smallest median effect the rule classifies (min_median_ticks ticks)
     * must fit inside it, or a real shift of a tick or two could hide */
    f->resolves = f->resolved <= (p->no_change_ratio - 1) * v->base_p50_ns;
    /* both the median and the tail grew: a tail disease only if the tail grew
     * beyond the median by tail_excess_ratio (an episodic cost on top of a
     * per-event one, alloc on a counter that resolves its small p50 move); a
     * median disease if it did not (the whole distribution moved, a line
     * transfer per event); undecided in between.  "Beyond" is also read
     * against the median's own growth: a line transfer per event that
     * triples the p50 also widens the distribution (its cost varies: p99.9
     * x3.5 here), so the tail outgrows the median by x1.2 without being the
     * disease; the median is the disease while the tail's log growth stays
     * below tail_log_multiple times the median's */
    double xlim = p->tail_excess_ratio > 1 ? log(p->tail_excess_ratio) : 0;
    f->tail_beyond = p->tail_excess_ratio > 1 && t->tx.p < p->alpha && t->sx.lo > 0 &&
                     t->sx.est >= xlim && t->sy.lo > 0;
    f->tail_within = p->tail_excess_ratio <= 1 || t->sx.hi < xlim || t->sy.hi < 0;
    /* a p50 below the granularity the rule classifies hides a median growth
     * of up to its measured shift plus one counter step (a 50 ns p50 read in
     * 10 ns steps may be 59): a tail disease must outgrow that hidden growth
     * by tail_excess_ratio, or a proportional shift of the whole distribution
     * (false sharing whose line transfer mostly overlaps the work) would read
     * as a tail disease */
    /* ... and above it, the p50 ratio's upper confidence bound: a p50 that
     * grew x1.67 [1.00, 1.73] is not flat because its interval touches 1 */
    /* ... unless the body means were measured: their phase against the
     * counter's step varies from event to event, so they resolve the median's
     * move below one step, and their interval's upper bound is the largest
     * median growth not excluded (alloc here: +9 ns, x1.19 [1.17, 1.21], where
     * the p50 reads 50 -> 60 ns) */
    f->hidden = 1, f->tail_need = p->min_tail_ratio;
    if (p->tail_excess_ratio > 1 && v->base_p50_ns > 0) {
        if (v->p50_below_tick && t->have_mean) {
            f->hidden = exp(fmax(t->sm.hi, 0));
        } else {
            if (v->p50_below_tick)
                f->hidden = (v->base_p50_ns + fmax(t->sns.est, 0) + p->tick_ns) / v->base_p50_ns;
            f->hidden = fmax(f->hidden, exp(fmax(t->s50.hi, 0)));
        }
        f->tail_need = fmax(f->tail_need, f->hidden * p->tail_excess_ratio);
    }
    f->tail_clear = t->s999.est >= log(f->tail_need);
    /* the deep tail: an episodic cost too rare to move the p99.9 moves the
     * p99.99 (alloc here, per run: x1.7-1.9 in both placements, where its
     * p99.9 grew x1.2-1.8 near and not beyond the backlog far; false sharing
     * near x1.1, no-pin x1.05).  It must outgrow the largest median growth
     * not excluded as the p99.9 must, and a variance hint stops it alike.
     * Rare events scatter more from run to run (platform noise inside work
     * windows moved a round's p99.99 ratio anywhere in x0.01-500 here), so
     * its test needs ten times the evidence (deep_alpha) and its interval's
     * lower bound must clear that growth too: ten rounds of false sharing
     * near once read p99.99 x1.72 [1.01, 26.6] */
    f->deep_need = fmax(p->min_deep_ratio, f->hidden * fmax(p->tail_excess_ratio, 1));
    f->deep_clear = p->min_deep_ratio > 0 && t->have_deep && t->t9999.p < p->deep_alpha &&
                    t->s9999.est >= log(f->deep_need) && t->s9999.lo > log(f->hidden);
    f->tail_ok = (f->tail_up && f->tail_clear) || f->deep_clear;
    /* the work tail grew at all (p99.9 or p99.99, significant upwards) */
    f->tail_grew = (t->t999.p < p->alpha && t->s999.lo > 0) ||
                   (t->have_deep && t->t9999.p < p->alpha && t->s9999.lo > 0);
    f->var_held = (f->within_sp || f->across_sp) && f->tail_grew &&
                  fmin(t->within_p, t->across_p) >= p->alpha / 10;
}

/* "body mean +9.3 ns (x1.19 [1.17, 1.21])", or that it was not measured. */
static const char *mean_note(const tests *t, char *buf, size_t len) {
    if (!t->have_mean)
        snprintf(buf, len, "body mean not measured");
    else
        snprintf(buf, len, "body mean %+.1f ns, x%.2f [%.2f, %.2f]", t->smns.est, exp(t->sm.est),
                 exp(t->sm.lo), exp(t->sm.hi));
    return buf;
}

/* "p99.99 x1.34 [1.08, 1.87] (p=0.0040; a tail disease needs ...)", or that
 * it was not measured. */
static const char *deep_note(const lat_lab_params *p, const tests *t, const facts *f, char *buf,
                             size_t len) {
    if (!t->have_deep)
        snprintf(buf, len, "p99.99 not measured");
    else if (f->deep_clear)
        snprintf(buf, len, "p99.99 x%.2f [%.2f, %.2f]", exp(t->s9999.est), exp(t->s9999.lo),
                 exp(t->s9999.hi));
    else
        snprintf(buf, len,
                 "p99.99 x%.2f [%.2f, %.2f] (p=%.4f; a tail disease needs x%.2f at p < %g with "
                 "the lower bound above x%.2f)",
                 exp(t->s9999.est), exp(t->s9999.lo), exp(t->s9999.hi), t->t9999.p, f->deep_need,
                 p->deep_alpha, f->hidden);
    return buf;
}

/* Why: the reason of an undecided verdict, notes on a tail one. */
static void explain(const lat_lab_params *p, const tests *t, const facts *f, lat_lab_verdict *v) {
    char mn[80], dn[160];
    size_t len = strlen(v->reason);
    char *r = v->reason + len;
    size_t room = sizeof v->reason - len;
    if (v->kind == LAT_LAB_UNDECIDED) {
        if (f->median_up && f->tail_up)
            snprintf(r, room,
                     "work p50 x%.2f and p99.9 x%.2f both grew; whether the tail grew beyond "
                     "the median (x%.2f [%.2f, %.2f]; a tail disease needs x%.2f) is not yet "
                     "decided",
                     exp(t->s50.est), exp(t->s999.est), exp(t->sx.est), exp(t->sx.lo),
                     exp(t->sx.hi), p->tail_excess_ratio);
        else if (f->tail_up && !f->tail_clear && !f->spread_hint)
            snprintf(r, room,
                     "the work tail grew (p99.9 x%.2f), but a median growth up to x%.2f is not "
                     "excluded (work p50 %.0f ns, moved %+.1f ns, x%.2f [%.2f, %.2f]; %s; "
                     "counter step %.1f ns): a tail disease here needs p99.9 x%.2f",
                     exp(t->s999.est), f->hidden, v->base_p50_ns, t->sns.est, exp(t->s50.est),
                     exp(t->s50.lo), exp(t->s50.hi), mean_note(t, mn, sizeof mn), p->tick_ns,
                     f->tail_need);
        else if (f->var_held)
            snprintf(r, room,
                     "the e2e spread grew (x%.2f, p=%.4f; a variance disease beside a grown work "
                     "tail needs p < %g) and so did the work tail (p99.9 x%.2f, %s): a variance "
                     "or a tail disease, not yet told apart",
                     fmax(t->within_ratio, t->across_ratio), fmin(t->within_p, t->across_p),
                     p->alpha / 10, exp(t->s999.est), deep_note(p, t, f, dn, sizeof dn));
        else if ((f->tail_up || f->deep_clear) && f->spread_hint)
            snprintf(r, room,
                     "the work tail grew (p99.9 x%.2f, %s) but so did the spread between "
                     "intervals or rounds (e2e x%.2f, work p99.9 round to round x%.2f): a tail "
                     "or a variance disease, not yet told apart",
                     exp(t->s999.est), deep_note(p, t, f, dn, sizeof dn),
                     fmax(fmax(t->within_ratio, t->across_ratio), t->pooled_ratio),
                     t->tail_across_ratio);
        else if (f->flat50 && f->flat999 && f->flat_sp && !f->small_effect && !f->resolves)
            snprintf(r, room,
                     "no change this counter can vouch for: the smallest median effect it "
                     "classifies (%.0f ticks of %.1f ns) is %.0f%% of the work p50 (%.0f ns), "
                     "wider than the +-%.0f%% 'no change' allows; work p50 moved %+.1f ns, "
                     "p99.9 x%.2f [%.2f, %.2f]",
                     p->min_median_ticks, p->tick_ns, 100 * f->resolved / v->base_p50_ns,
                     v->base_p50_ns, 100 * (p->no_change_ratio - 1), t->sns.est, exp(t->s999.est),
                     exp(t->s999.lo), exp(t->s999.hi));
        else if (f->tail_moved && !f->tail_up)
            snprintf(r, room,
                     "an effect too small to classify here: work p99.9 x%.2f [%.2f, %.2f] "
                     "(p=%.4f) is significant but below the x%.2f a tail disease needs, %s, "
                     "and work p50 moved %+.1f ns (%s; %s)",
                     exp(t->s999.est), exp(t->s999.lo), exp(t->s999.hi), t->t999.p,
                     p->min_tail_ratio, deep_note(p, t, f, dn, sizeof dn), t->sns.est,
                     v->p50_below_tick ? "below the counter's granularity" : "not significant",
                     mean_note(t, mn, sizeof mn));
        else if (t->t50.p < p->alpha && v->p50_below_tick)
            snprintf(r, room,
                     "work p50 moved %+.1f ns (%s), below the counter's granularity (%.0f ticks "
                     "of %.1f ns), and the tail did not move beyond its noise",
                     t->sns.est, mean_note(t, mn, sizeof mn), p->min_median_ticks, p->tick_ns);
        else
            snprintf(r, room,
                     "effects not separable from this machine's noise after %u rounds "
                     "(work p50 p=%.3f, p99.9 p=%.3f, spread p=%.3f)",
                     v->rounds, t->t50.p, t->t999.p, fmin(t->within_p, t->across_p));
    } else if (v->kind == LAT_LAB_TAIL) {
        int k = 0;
        if (v->p50_below_tick)
            k = snprintf(r, room, "work p50 moved %+.1f ns: below the counter's granularity",
                         t->sns.est);
        if (k >= 0 && (size_t)k < room && f->median_up)
            snprintf(r + k, room - (size_t)k,
                     "%sthe tail grew x%.2f [%.2f, %.2f] beyond the median", k ? "; " : "",
                     exp(t->sx.est), exp(t->sx.lo), exp(t->sx.hi));
        else if (k >= 0 && (size_t)k < room && v->deep_tail)
            snprintf(r + k, room - (size_t)k,
                     "; p99.99 x%.2f [%.2f, %.2f] outgrew the largest median growth not "
                     "excluded (x%.2f), where p99.9 x%.2f did not reach x%.2f",
                     exp(t->s9999.est), exp(t->s9999.lo), exp(t->s9999.hi), f->hidden,
                     exp(t->s999.est), f->tail_need);
        else if (k >= 0 && (size_t)k < room && f->hidden > 1)
            snprintf(
                r + k, room - (size_t)k,
                "; p99.9 x%.2f outgrew the largest median growth not excluded (x%.2f) by x%.2f",
                exp(t->s999.est), f->hidden, exp(t->s999.est) / f->hidden);
    }
}

static void classify(const lat_lab_params *p, int conf, const tests *t, lat_lab_verdict *v) {
    facts fs, *f = &fs;
    read_facts(p, t, v, f);
    if (f->median_up && t->s50.lo >= log(p->median_dominates)) {
        /* the p50 at least doubled: the median is the disease, whatever the
         * tail did (false sharing far: p50 x3, p99.9 x3.9 with two rounds at
         * x11, which leaves "beyond the median" undecided in 13 rounds) */
        v->kind = LAT_LAB_MEDIAN;
        v->confidence = 1 - t->t50.p;
    } else if (f->median_up && f->tail_up && f->tail_beyond) {
        v->kind = LAT_LAB_TAIL;
        v->confidence = 1 - fmax(t->t999.p, t->tx.p);
    } else if (f->median_up && f->tail_up && !f->tail_within) {
        v->kind = LAT_LAB_UNDECIDED;
    } else if (f->median_up) {
        v->kind = LAT_LAB_MEDIAN;
        v->confidence = 1 - t->t50.p;
    } else if ((f->within_sp || f->across_sp) && !f->var_held) {
        /* the spread grew: variance; beside a work tail that grew, only on
         * ten times the evidence (the seed's no-pin scatters its runs far
         * beyond that; alloc, whose e2e spread came out x1.9-2.1 in 10-21
         * rounds, does not), else undecided */
        v->kind = LAT_LAB_VARIANCE;
        v->confidence = 1 - (f->within_sp ? t->within_p : t->across_p);
    } else if (f->tail_ok && !f->spread_hint) {
        v->kind = LAT_LAB_TAIL;
        v->deep_tail = !(f->tail_up && f->tail_clear);
        v->confidence = 1 - (v->deep_tail ? t->t9999.p : t->t999.p);
    } else if (f->flat50 && f->flat999 && f->flat_sp && !f->small_effect && f->resolves) {
        v->kind = LAT_LAB_NO_CHANGE;
        v->confidence = 1 - p->alpha;
    } else {
        v->kind = LAT_LAB_UNDECIDED;
    }
    explain(p, t, f, v);
    if (conf == LAT_LAB_NOPIN && p->ncpus <= p->nhot &&
        (v->kind == LAT_LAB_NO_CHANGE || v->kind == LAT_LAB_UNDECIDED)) {
        bool none = v->kind == LAT_LAB_NO_CHANGE;
        v->kind = LAT_LAB_UNDECIDED;
        v->confidence = 0;
        snprintf(v->reason, sizeof v->reason,
                 "too few CPUs for no-pin to matter: %d CPUs for %d hot threads, the scheduler "
                 "has nowhere else to put them (%s)",
                 p->ncpus, p->nhot, none ? "no significant change" : "no clear change");
    }
    if (conf == LAT_LAB_SHARE && v->kind == LAT_LAB_TAIL) {
        /* false sharing costs a line transfer per event: where its tail grew
         * and its median did not, the transfer hid behind the work (the
         * near placement here: work mean +0.1 ns, and in some runs p99.9
         * x1.4-1.5), which says where the CPUs sit, not that false sharing
         * is a tail disease */
        v->kind = LAT_LAB_UNDECIDED;
        v->confidence = 0;
        char dn[160];
        snprintf(v->reason, sizeof v->reason,
                 "false sharing hid behind the work: its tail grew (work p99.9 x%.2f, %s) but "
                 "not its median (p50 moved %+.1f ns), so the line transfer it costs every event "
                 "overlapped the work here; it shows as a median cost where the CPUs sit further "
                 "apart",
                 exp(t->s999.est), deep_note(p, t, f, dn, sizeof dn), t->sns.est);
    }
}

/* How much the backlog widens the baseline's work tail: over the baseline's
 * rounds, the median of (p99.9 of all events / p99.9 of those that met no
 * queue) over each run's clean intervals (NAN: not measured).  Read from the
 * baseline alone, so choosing the figures by it never looks at an effect. */
static double backlog_widening(const lat_lab_params *p, const lat_lab_cell *base, unsigned n) {
    size_t most = 1;
    for (unsigned k = 0; k < n; k++)
        if (base[k].n > most) most = base[k].n;
    double *r = lat__alloc((n + most) * sizeof *r);
    if (!r) return NAN;
    double *iv = r + n;
    unsigned nr = 0;
    for (unsigned k = 0; k < n; k++) {
        if (!base[k].usable || !base[k].iv) continue;
        size_t m = 0;
        for (size_t i = 0; i < base[k].n; i++) {
            const lat_lab_fig *f = &base[k].iv[i];
            if (lat__lab_interval_clean(p, f) && f->steady_p999 > 0)
                iv[m++] = f->work_p999 / f->steady_p999;
        }
        if (m) r[nr++] = lat_stats_median(iv, m);
    }
    double w = nr ? lat_stats_median(r, nr) : NAN;
    lat__free(r);
    return w;
}

/* The verdict on one set of rounds (one placement, or all of them). */
static int decide_one(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                      const lat_lab_cell *expc, unsigned nrounds, unsigned min_rounds,
                      lat_lab_verdict *v) {
    memset(v, 0, sizeof *v);
    v->p50_ratio = v->p50_lo = v->p50_hi = v->p999_ratio = v->p999_lo = v->p999_hi = NAN;
    v->spread_ratio = v->p50_shift_ns = v->base_p50_ns = NAN;
    v->mean_ratio = v->mean_lo = v->mean_hi = v->mean_shift_ns = NAN;
    v->p9999_ratio = v->p9999_lo = v->p9999_hi = NAN;
    v->p50_p = v->p999_p = v->p9999_p = v->spread_p = 1;
    v->placement_kind[0] = v->placement_kind[1] = -1;
    v->decided_in = -1;
    v->backlog_widening = backlog_widening(p, base, nrounds);
    v->steady_figures = p->steady_widen > 0 && v->backlog_widening >= p->steady_widen;
    paired q;
    int rc = pair_rounds(p, base, expc, nrounds, v->steady_figures, &q, v);
    if (rc) return rc;
    v->rounds = (unsigned)q.n;
    if (q.n < min_rounds || q.n < 2) {
        snprintf(v->reason, sizeof v->reason,
                 "%sonly %zu clean paired rounds (%u set aside for platform loss), %u needed",
                 v->set_aside > q.n ? "a busy host: " : "", q.n, v->set_aside, min_rounds);
        lat__free(q.d50);
        return 0;
    }
    tests t;
    memset(&t, 0, sizeof t);
    rc = run_tests(p, &q, &t);
    if (rc == 0) {
        v->p50_ratio = exp(t.s50.est), v->p50_lo = exp(t.s50.lo), v->p50_hi = exp(t.s50.hi);
        v->p50_p = t.t50.p;
        v->p50_shift_ns = t.sns.est;
        v->base_p50_ns = lat_stats_median(q.mb, q.n);
        v->p999_ratio = exp(t.s999.est), v->p999_lo = exp(t.s999.lo);
        v->p999_hi = exp(t.s999.hi), v->p999_p = t.t999.p;
        if (t.have_deep) {
            v->p9999_ratio = exp(t.s9999.est), v->p9999_lo = exp(t.s9999.lo);
            v->p9999_hi = exp(t.s9999.hi), v->p9999_p = t.t9999.p;
        }
        v->spread_ratio = fmax(t.within_ratio, t.across_ratio);
        v->spread_p = fmin(t.within_p, t.across_p);
        if (t.have_mean) {
            v->mean_ratio = exp(t.sm.est), v->mean_lo = exp(t.sm.lo), v->mean_hi = exp(t.sm.hi);
            v->mean_shift_ns = t.smns.est;
        }
        classify(p, conf, &t, v);
        if (v->steady_figures) {
            size_t len = strlen(v->reason);
            snprintf(v->reason + len, sizeof v->reason - len,
                     "%swork figures of the events that met no queue (a backlog widens the "
                     "baseline's work p99.9 x%.2f)",
                     len ? "; " : "", v->backlog_widening);
        }
    }
    lat__free(q.d50);
    return rc;
}

static bool is_disease(int kind) {
    return kind == LAT_LAB_TAIL || kind == LAT_LAB_MEDIAN || kind == LAT_LAB_VARIANCE;
}

/* A placement's tail disease is checked against the e2e spread over the
 * rounds of both (more rounds than either alone): one that grew there as
 * much as hints at variance makes the tail ambiguous.  1: it did. */
static int pooled_spread_grew(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                              const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *pooled) {
    int rc = decide_one(p, conf, base, expc, nrounds, p->min_rounds, pooled);
    if (rc) return rc;
    double hint = 1 + (p->min_var_ratio - 1) / 2;
    return pooled->spread_p < 10 * p->alpha && pooled->spread_ratio >= hint;
}

/* Runs in both placements: decide each placement's rounds (both runs of the
 * pair in it; a pair split by a move, or moved during a run, is in neither)
 * on its own, then combine.  One
 * placement's disease is the verdict unless the other shows a different one;
 * the two pooled are never read for a disease (a median shift in one
 * placement and none in the other pools into a distribution that grew
 * unevenly, which reads like a tail). */
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
    int d = is_disease(pv[0].kind) ? 0 : is_disease(pv[1].kind) ? 1 : -1;
    lat_lab_verdict pooled;
    if (d >= 0 && is_disease(pv[1 - d].kind) && pv[1 - d].kind != pv[d].kind) {
        *v = pv[d];
        v->kind = LAT_LAB_UNDECIDED;
        v->confidence = 0;
        snprintf(v->reason, sizeof v->reason,
                 "the two placements disagree: %s in the near one (%u rounds), %s in the far "
                 "one (%u rounds)",
                 lat_lab_kind_name(pv[0].kind), pv[0].rounds, lat_lab_kind_name(pv[1].kind),
                 pv[1].rounds);
    } else if (d >= 0 && pv[d].kind == LAT_LAB_TAIL &&
               (rc = pooled_spread_grew(p, conf, base, expc, nrounds, &pooled)) != 0) {
        if (rc < 0) return rc;
        *v = pv[d];
        v->kind = LAT_LAB_UNDECIDED;
        v->confidence = 0;
        snprintf(v->reason, sizeof v->reason,
                 "the work tail grew in the %s placement (p99.9 x%.2f, %u rounds), but over the "
                 "rounds of both the e2e spread grew too (x%.2f, p=%.3f): a tail or a variance "
                 "disease, not yet told apart",
                 where[d], pv[d].p999_ratio, pv[d].rounds, pooled.spread_ratio, pooled.spread_p);
    } else if (d >= 0) {
        *v = pv[d];
        v->decided_in = d;
        size_t len = strlen(v->reason);
        snprintf(v->reason + len, sizeof v->reason - len,
                 "%sdecided on the %u %s-placement rounds; the %u %s ones: %s", len ? "; " : "",
                 pv[d].rounds, where[d], pv[1 - d].rounds, where[1 - d],
                 lat_lab_kind_name(pv[1 - d].kind));
    } else {
        /* no disease in either: all rounds together may still show that
         * nothing changed (more rounds bound the ratios tighter) */
        int rc2 = decide_one(p, conf, base, expc, nrounds, p->min_rounds, v);
        if (rc2) return rc2;
        if (v->kind == LAT_LAB_UNDECIDED) {
            size_t len = strlen(v->reason);
            snprintf(v->reason + len, sizeof v->reason - len,
                     "; neither placement alone decides (%u near rounds, %u far)", pv[0].rounds,
                     pv[1].rounds);
        }
        if (is_disease(v->kind)) {
            char was[40];
            snprintf(was, sizeof was, "%s", lat_lab_kind_name(v->kind));
            v->kind = LAT_LAB_UNDECIDED;
            v->confidence = 0;
            snprintf(v->reason, sizeof v->reason,
                     "the rounds of both placements together read as a %s, but neither "
                     "placement's alone does (%u near, %u far rounds)",
                     was, pv[0].rounds, pv[1].rounds);
        }
    }
    for (int i = 0; i < 2; i++) {
        v->placement_kind[i] = pv[i].kind;
        v->placement_rounds[i] = pv[i].rounds;
    }
    if (d >= 0) { /* what both placements set aside (pairs split by a move: neither) */
        v->set_aside = pv[0].set_aside + pv[1].set_aside;
        v->iv_used = pv[0].iv_used + pv[1].iv_used;
        v->iv_set_aside = pv[0].iv_set_aside + pv[1].iv_set_aside;
    }
    return 0;
}

int lat_lab_decide(const lat_lab_params *p, int conf, const lat_lab_cell *base,
                   const lat_lab_cell *expc, unsigned nrounds, lat_lab_verdict *v) {
    if (!p || !v || (nrounds && (!base || !expc)) || !(p->alpha > 0 && p->alpha < 1))
        return -EINVAL;
    /* one placement for every run: no strata */
    bool one = true;
    int first = -1;
    for (unsigned k = 0; k < nrounds; k++) {
        if (!base[k].usable || !expc[k].usable) continue;
        if (first < 0) first = (int)base[k].placement;
        one = one && base[k].placement == (unsigned)first && expc[k].placement == (unsigned)first &&
              first != LAT_LAB_MOVED;
    }
    if (!one) return decide_placed(p, conf, base, expc, nrounds, v);
    return decide_one(p, conf, base, expc, nrounds, p->min_rounds, v);
}

void lat_lab_verdict_text(const lat_lab_verdict *v, char *buf, size_t len) {
    char p50[96];
    if (isnan(v->p50_ratio))
        snprintf(p50, sizeof p50, "work p50 n/a");
    else if (v->p50_below_tick)
        snprintf(p50, sizeof p50, "work p50 %+.0f ns (below the counter's granularity)",
                 v->p50_shift_ns);
    else
        snprintf(p50, sizeof p50, "work p50 x%.2f [%.2f..%.2f]", v->p50_ratio, v->p50_lo,
                 v->p50_hi);
    int n = snprintf(buf, len, "%s", lat_lab_kind_name(v->kind));
    if (v->kind == LAT_LAB_UNDECIDED && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " on this machine: %s", v->reason);
    else if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " (confidence %.1f%%%s%s)", 100 * v->confidence,
                      v->reason[0] ? ": " : "", v->reason);
    if (n >= 0 && (size_t)n < len && isnan(v->p999_ratio))
        snprintf(buf + n, len - (size_t)n, "; %u rounds used, %u set aside", v->rounds,
                 v->set_aside);
    else if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n,
                 "; %u rounds used, %u set aside; %s, p99.9 x%.2f [%.2f..%.2f], e2e spread x%.2f",
                 v->rounds, v->set_aside, p50, v->p999_ratio, v->p999_lo, v->p999_hi,
                 v->spread_ratio);
}
