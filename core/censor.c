/* censor.c - per-sample censoring (see censor.h): the join of gap timelines
 * to sample windows, the inverse-probability-weighted percentiles that undo
 * the join's bias toward short windows, and the rule for how many kept
 * samples a percentile needs.  Pure functions over caller memory. */
#include "latlab/censor.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int lat_censor_init(lat_censor *c, const lat_censor_timeline *tl, unsigned ntl, unsigned nfig) {
    if (!c || (ntl && !tl) || ntl > LAT_CENSOR_MAXTL || nfig == 0 || nfig > LAT_CENSOR_MAXFIG)
        return -EINVAL;
    memset(c, 0, sizeof *c);
    for (unsigned k = 0; k < ntl; k++)
        c->tl[k] = tl[k];
    c->ntl = ntl;
    c->nfig = nfig;
    return 0;
}

/* Move each cursor to the first gap ending after from: forward when from did
 * not decrease (amortised O(1) per sample), else by binary search. */
static void advance(lat_censor *c, uint64_t from) {
    for (unsigned k = 0; k < c->ntl; k++) {
        const lat_censor_timeline *t = &c->tl[k];
        if (from < c->last_from) {
            c->cur[k] = lat_gaps_search(t->gaps, t->n, from);
            continue;
        }
        size_t i = c->cur[k];
        while (i < t->n && t->gaps[i].start + t->gaps[i].len <= from)
            i++;
        c->cur[k] = i;
    }
    c->last_from = from;
}

/* Does a gap of timeline k overlap [from, to)?  Gaps before the cursor end at
 * or before the event's earliest from, so the scan starts there. */
static bool overlaps(const lat_censor *c, unsigned k, uint64_t from, uint64_t to) {
    const lat_censor_timeline *t = &c->tl[k];
    for (size_t i = c->cur[k]; i < t->n && t->gaps[i].start < to; i++)
        if (t->gaps[i].start + t->gaps[i].len > from) return true;
    return false;
}

/* One figure: GAP (*who: the timelines whose gaps overlapped it), UNKNOWN
 * (past a horizon) or KEPT. */
static uint8_t judge_window(const lat_censor *c, const lat_censor_window *w, unsigned *who) {
    uint64_t to = w->to > w->from ? w->to : w->from + 1; /* an empty window: one cycle */
    bool unknown = false;
    *who = 0;
    for (unsigned k = 0; k < c->ntl; k++) {
        if (!(w->threads & (1u << k))) continue;
        if (overlaps(c, k, w->from, to)) *who |= 1u << k;
        if (to > c->tl[k].horizon) unknown = true;
    }
    return *who ? LAT_CENSOR_GAP : unknown ? LAT_CENSOR_UNKNOWN : LAT_CENSOR_KEPT;
}

bool lat_censor_judge(lat_censor *c, const lat_censor_event *e, uint8_t *why, unsigned *who) {
    if (!c || !e || !why) return false;
    unsigned mine[LAT_CENSOR_MAXFIG];
    if (!who) who = mine;
    uint64_t from = UINT64_MAX;
    for (unsigned f = 0; f < c->nfig; f++)
        if (e->fig[f].threads && e->fig[f].from < from) from = e->fig[f].from;
    if (from != UINT64_MAX) advance(c, from);
    if (!e->queued) c->tainted = 0; /* found no queue: any backlog has drained */
    unsigned gap = 0;
    bool any = false;
    for (unsigned f = 0; f < c->nfig; f++) {
        who[f] = 0;
        why[f] = e->fig[f].threads ? judge_window(c, &e->fig[f], &who[f]) : LAT_CENSOR_KEPT;
        if (why[f] == LAT_CENSOR_KEPT && e->fig[f].threads && e->fig[f].from > from) {
            /* the sample waited through a gap on a thread carrying this
             * figure before its window opened: the window ran cold after
             * the platform's time (its caches were the gap's) */
            lat_censor_window before = {from, e->fig[f].from, e->fig[f].threads};
            unsigned b = 0;
            if (judge_window(c, &before, &b) == LAT_CENSOR_GAP) why[f] = LAT_CENSOR_GAP, who[f] = b;
        }
        gap |= who[f];
    }
    for (unsigned f = 0; f < c->nfig; f++) {
        if (c->tainted && e->queued && e->fig[f].threads && why[f] == LAT_CENSOR_KEPT)
            why[f] = LAT_CENSOR_BACKLOG, who[f] = c->tainted;
        if (why[f] != LAT_CENSOR_KEPT) any = true;
    }
    c->tainted |= gap; /* those queued behind it meet the gap's backlog */
    return any;
}

static double weight(double rate, int64_t v) {
    double w = exp(rate * (double)v);
    return w < LAT_CENSOR_MAX_WEIGHT ? w : LAT_CENSOR_MAX_WEIGHT;
}

int lat_censor_ipw_percentiles(const lat_hist *h, double rate, const double *pcts, int64_t *out,
                               size_t n) {
    if (!h || !pcts || !out || n == 0 || !(rate >= 0)) return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(pcts[i] >= 0 && pcts[i] <= 100)) return -EINVAL;
    if (rate == 0 || lat_hist_total(h) == 0) return lat_hist_values_at_percentiles(h, pcts, out, n);
    lat_hist_iter it;
    double total = 0;
    lat_hist_iter_recorded(&it, h);
    while (lat_hist_iter_next(&it))
        total += (double)it.count_at_value * weight(rate, lat_hist_median_equivalent(h, it.value));
    for (size_t i = 0; i < n; i++) {
        /* the first value whose cumulative weight reaches the share (a hair
         * below it, so rounding never skips the value that meets it) */
        double target = pcts[i] / 100.0 * total * (1 - 1e-12), cum = 0;
        out[i] = lat_hist_max(h);
        lat_hist_iter_recorded(&it, h);
        while (lat_hist_iter_next(&it)) {
            cum +=
                (double)it.count_at_value * weight(rate, lat_hist_median_equivalent(h, it.value));
            if (cum > 0 && cum >= target) {
                out[i] = lat_hist_highest_equivalent(h, it.value);
                break;
            }
        }
    }
    return 0;
}

uint64_t lat_censor_min_kept(double pct) {
    if (!(pct >= 0 && pct < 100)) return UINT64_MAX;
    /* a relative hair below, so that 10 / (1 - 0.999) is 10,000, not 10,001 */
    double n = ceil(10.0 / (1.0 - pct / 100.0) * (1 - 1e-9));
    return n > 1.8e19 ? UINT64_MAX : (uint64_t)n;
}

bool lat_censor_supports(uint64_t kept, double pct) {
    uint64_t need = lat_censor_min_kept(pct);
    return need != UINT64_MAX && kept >= need;
}
