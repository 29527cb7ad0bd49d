/* ab.c - the data and the decision of `latlab ab` (see ab.h), and its
 * reports: table, JSON, Markdown, SVG.  Every statistic comes from the
 * paired engine (paired.h); this file only arranges figures into paired
 * columns, controls the suite's false discoveries and words the verdicts. */
#include "latlab/ab.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc_internal.h"
#include "error_internal.h"

typedef struct series {
    char *bench, *figure;
    bool headline, tail;
    double *v[LAT_AB_NSIDES], *k[LAT_AB_NSIDES];
} series;

struct lat_ab {
    lat_ab_params p;
    series *s;
    size_t n, cap;
    unsigned rounds, cap_rounds;
};

static const char *const side_names[LAT_AB_NSIDES] = {"A", "B", "A2"};
static const char *const verdict_names[] = {"inconclusive", "no change", "slower", "faster",
                                            "void (A/A control failed)"};

const char *lat_ab_side_name(int side) {
    return side >= 0 && side < LAT_AB_NSIDES ? side_names[side] : "?";
}
const char *lat_ab_verdict_name(int v) {
    return v >= 0 && v <= LAT_AB_VOID ? verdict_names[v] : "?";
}

void lat_ab_params_default(lat_ab_params *p) {
    p->alpha = 0.01;
    p->band = 0.01;
    p->tail_band = 0.05;
    p->min_rounds = 10;
    p->max_rounds = 1000;
    p->band_edge_share = 0.9;
    p->reach_est_multiple = 2;
    p->reach_budget_share = 0.25;
    p->mde_within_band = true;
    p->pooled_reference = true;
    p->spend_alpha = true;
}

int lat_ab_create(const lat_ab_params *p, lat_ab **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    lat_ab_params d;
    lat_ab_params_default(&d);
    if (p) d = *p;
    if (!(d.alpha > 0 && d.alpha < 1) || !(d.band > 0) || !(d.tail_band > 0) || d.min_rounds < 2 ||
        d.max_rounds > LAT_STATS_HL_MAX || !(d.band_edge_share > 0 && d.band_edge_share <= 1) ||
        !(d.reach_est_multiple >= 1) || !(d.reach_budget_share >= 0 && d.reach_budget_share <= 1))
        return -EINVAL;
    /* the fewest rounds whose signed-rank test can reach alpha at all
     * (2 / 2^n < alpha): below them every interval is infinite */
    unsigned reach = (unsigned)floor(log2(2 / d.alpha)) + 1;
    if (d.min_rounds < reach) d.min_rounds = reach;
    if (d.max_rounds < d.min_rounds) d.max_rounds = d.min_rounds;
    lat_ab *ab = lat__calloc(1, sizeof *ab);
    if (!ab) return -ENOMEM;
    ab->p = d;
    *out = ab;
    return 0;
}

const lat_ab_params *lat_ab_params_of(const lat_ab *ab) {
    return &ab->p;
}

static void series_free(series *s) {
    lat__free(s->bench);
    lat__free(s->figure);
    for (int i = 0; i < LAT_AB_NSIDES; i++) {
        lat__free(s->v[i]);
        lat__free(s->k[i]);
    }
}

void lat_ab_destroy(lat_ab *ab) {
    if (!ab) return;
    for (size_t i = 0; i < ab->n; i++)
        series_free(&ab->s[i]);
    lat__free(ab->s);
    lat__free(ab);
}

/* lat__alloc has no realloc: a copy into a larger block. */
static void *resize(void *old, size_t old_size, size_t new_size) {
    void *n = lat__alloc(new_size);
    if (!n) return NULL;
    if (old) memcpy(n, old, old_size < new_size ? old_size : new_size);
    lat__free(old);
    return n;
}

static char *dup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = lat__alloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Grow every series' columns to hold cap rounds (new cells NAN). */
static int grow_rounds(lat_ab *ab, unsigned need) {
    if (need <= ab->cap_rounds) return 0;
    unsigned cap = ab->cap_rounds ? ab->cap_rounds : 16;
    while (cap < need)
        cap *= 2;
    for (size_t i = 0; i < ab->n; i++)
        for (int s = 0; s < LAT_AB_NSIDES; s++)
            for (int w = 0; w < 2; w++) {
                double **col = w ? &ab->s[i].k[s] : &ab->s[i].v[s];
                double *nv = resize(*col, ab->cap_rounds * sizeof **col, cap * sizeof **col);
                if (!nv) return -ENOMEM;
                for (unsigned r = ab->cap_rounds; r < cap; r++)
                    nv[r] = NAN;
                *col = nv;
            }
    ab->cap_rounds = cap;
    return 0;
}

static series *find(lat_ab *ab, const char *bench, const char *figure, int *rc) {
    bool seen = false;
    for (size_t i = 0; i < ab->n; i++) {
        if (strcmp(ab->s[i].bench, bench)) continue;
        seen = true;
        if (!strcmp(ab->s[i].figure, figure)) return &ab->s[i];
    }
    if (ab->n == ab->cap) {
        size_t cap = ab->cap ? 2 * ab->cap : 8;
        series *ns = resize(ab->s, ab->cap * sizeof *ns, cap * sizeof *ns);
        if (!ns) return *rc = -ENOMEM, NULL;
        ab->s = ns, ab->cap = cap;
    }
    series *s = &ab->s[ab->n];
    memset(s, 0, sizeof *s);
    s->bench = dup(bench), s->figure = dup(figure);
    s->headline = !seen;
    s->tail = !strncmp(figure, "p99", 3); /* p99, p99.9: the tail band's figures, not p90 */
    bool ok = s->bench && s->figure;
    for (int k = 0; k < LAT_AB_NSIDES && ok && ab->cap_rounds; k++) {
        s->v[k] = lat__alloc(ab->cap_rounds * sizeof(double));
        s->k[k] = lat__alloc(ab->cap_rounds * sizeof(double));
        ok = s->v[k] && s->k[k];
        for (unsigned r = 0; ok && r < ab->cap_rounds; r++)
            s->v[k][r] = s->k[k][r] = NAN;
    }
    if (!ok) {
        series_free(s);
        return *rc = -ENOMEM, NULL;
    }
    ab->n++;
    return s;
}

int lat_ab_record(lat_ab *ab, unsigned round, int side, const char *bench, const char *figure,
                  double value, double kept_share) {
    if (!ab || !bench || !figure || side < 0 || side >= LAT_AB_NSIDES || !*bench || !*figure ||
        round >= ab->p.max_rounds + 1000)
        return -EINVAL;
    int rc = 0;
    series *s = find(ab, bench, figure, &rc);
    if (!s) return rc;
    if ((rc = grow_rounds(ab, round + 1))) return rc;
    s->v[side][round] = isfinite(value) && value > 0 ? value : NAN;
    s->k[side][round] = kept_share;
    if (round + 1 > ab->rounds) ab->rounds = round + 1;
    return 0;
}

unsigned lat_ab_rounds(const lat_ab *ab) {
    return ab ? ab->rounds : 0;
}

/* A side has the benchmark when a run reported it: a figure, or a kept share
 * (a harness run whose every sample the host disturbed reports the
 * benchmark with no figure; that round is then set aside, not the benchmark
 * missing). */
static bool has_side(const lat_ab *ab, const char *bench, int side) {
    for (size_t i = 0; i < ab->n; i++)
        if (!strcmp(ab->s[i].bench, bench))
            for (unsigned r = 0; r < ab->rounds; r++)
                if (isfinite(ab->s[i].v[side][r]) || isfinite(ab->s[i].k[side][r])) return true;
    return false;
}

/* Benchmarks recorded on side s but not on side t, joined by ", " into buf. */
static size_t missing(const lat_ab *ab, int s, int t, char *buf, size_t len) {
    size_t count = 0, used = 0;
    if (len) buf[0] = 0;
    for (size_t i = 0; ab && i < ab->n; i++) {
        if (!ab->s[i].headline) continue;
        if (!has_side(ab, ab->s[i].bench, s) || has_side(ab, ab->s[i].bench, t)) continue;
        if (used < len)
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%s", count ? ", " : "", ab->s[i].bench);
        count++;
    }
    return count;
}

bool lat_ab_same_sets(const lat_ab *ab, const char *suite_a, const char *suite_b, char *why,
                      size_t len) {
    char miss[600];
    if (strcmp(suite_a, suite_b))
        snprintf(why, len, "A's report is of suite '%s', B's of suite '%s': not the same program",
                 suite_a, suite_b);
    else if (missing(ab, LAT_AB_A, LAT_AB_B, miss, sizeof miss))
        snprintf(why, len, "benchmarks of A missing from B: %s", miss);
    else if (missing(ab, LAT_AB_B, LAT_AB_A, miss, sizeof miss))
        snprintf(why, len, "benchmarks of B missing from A: %s", miss);
    else
        return true;
    return false;
}

/* ---- the decision ------------------------------------------------------------------------ */

static double median_of(const double *v, unsigned n) {
    double *t = lat__alloc((n ? n : 1) * sizeof *t);
    if (!t) return NAN;
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i])) t[m++] = v[i];
    double r = m ? lat_stats_median_inplace(t, m) : NAN;
    lat__free(t);
    return r;
}

/* ln(num / den) over the rounds where both have a value; pooled (num B,
 * den A): where the round also has A2, ln num less the mean of ln A and ln A2. */
static size_t column(const series *s, int num, int den, bool pooled, unsigned rounds, double *d) {
    size_t n = 0;
    for (unsigned r = 0; r < rounds; r++) {
        double x = s->v[num][r], a = s->v[den][r], a2 = s->v[LAT_AB_A2][r];
        if (!isfinite(x) || !isfinite(a)) continue;
        d[n++] = pooled && isfinite(a2) ? log(x) - 0.5 * (log(a) + log(a2)) : log(x / a);
    }
    return n;
}

static double band_of(const lat_ab_params *p, const lat_ab_figure *f) {
    return log(1 + (f->tail ? p->tail_band : p->band));
}

void lat_ab_result_fini(lat_ab_result *r) {
    if (!r) return;
    lat__free(r->rounds_v);
    lat__free(r->fig);
    lat__free(r->bench);
    memset(r, 0, sizeof *r);
}

static void pct_shift(char *buf, size_t len, const lat_paired_point *pt) {
    snprintf(buf, len, "x%.4f [%.4f, %.4f]", exp(pt->ci.est), exp(pt->ci.lo), exp(pt->ci.hi));
}

static void word_bench(const lat_ab_params *p, lat_ab_result *r, lat_ab_bench *b) {
    lat_ab_figure *f = &r->fig[b->first], *head = f;
    int up = -1, down = -1;
    for (size_t i = 0; i < b->nfig; i++) {
        if (f[i].kind == LAT_PAIRED_UP && up < 0) up = (int)i;
        if (f[i].kind == LAT_PAIRED_DOWN && down < 0) down = (int)i;
    }
    char a[96];
    if (r->aa_failed) {
        b->verdict = LAT_AB_VOID;
        snprintf(b->reason, sizeof b->reason, "%s", r->aa_reason);
    } else if (up >= 0) {
        b->verdict = LAT_AB_SLOWER;
        pct_shift(a, sizeof a, &f[up].ab);
        snprintf(b->reason, sizeof b->reason, "%s %s (p = %.2g)", f[up].figure, a, f[up].ab.test.p);
    } else if (down >= 0) {
        b->verdict = LAT_AB_FASTER;
        pct_shift(a, sizeof a, &f[down].ab);
        snprintf(b->reason, sizeof b->reason, "%s %s (p = %.2g)", f[down].figure, a,
                 f[down].ab.test.p);
    } else if (head->kind == LAT_PAIRED_SAME) {
        b->verdict = LAT_AB_SAME;
        snprintf(b->reason, sizeof b->reason, "%s within x%.3f..x%.3f; could have seen +-%.2f%%",
                 head->figure, 1 / (1 + (head->tail ? p->tail_band : p->band)),
                 1 + (head->tail ? p->tail_band : p->band), 100 * (exp(head->ab.mde) - 1));
    } else {
        b->verdict = LAT_AB_INCONCLUSIVE;
        if (head->ab.n < p->min_rounds)
            snprintf(b->reason, sizeof b->reason, "%zu paired rounds of %s, %u needed", head->ab.n,
                     head->figure, p->min_rounds);
        else
            snprintf(b->reason, sizeof b->reason,
                     "%s x%.4f [%.4f, %.4f] neither a change nor inside the band; could have "
                     "seen +-%.2f%%%s",
                     head->figure, exp(head->ab.ci.est), exp(head->ab.ci.lo), exp(head->ab.ci.hi),
                     100 * (exp(head->ab.mde) - 1),
                     head->reachable ? "" : " (out of reach of the budget)");
    }
}

/* The stop rule's looks: after min_rounds rounds, then after 1.5 times as
 * many each time.  The last look before `rounds` (0: none). */
static unsigned look_before(const lat_ab_params *p, unsigned rounds) {
    unsigned prev = 0;
    for (unsigned look = p->min_rounds; look < rounds; look += (look + 1) / 2)
        prev = look;
    return prev;
}

int lat_ab_decide(const lat_ab *ab, unsigned more_rounds, lat_ab_result *out) {
    if (!ab || !out) return -EINVAL;
    memset(out, 0, sizeof *out);
    const lat_ab_params *p = &ab->p;
    size_t n = ab->n;
    unsigned R = ab->rounds;
    out->rounds = R;
    unsigned total = R + more_rounds < p->max_rounds ? R + more_rounds : p->max_rounds;
    more_rounds = total > R ? total - R : 0; /* what the round cap leaves of them */
    double level =
        p->spend_alpha ? lat_paired_look_alpha(p->alpha, look_before(p, R), R, total) : p->alpha;
    out->look_alpha = level;
    out->fig = lat__calloc(n ? n : 1, sizeof *out->fig);
    out->bench = lat__calloc(n ? n : 1, sizeof *out->bench);
    out->rounds_v = lat__alloc((n && R ? n * R : 1) * LAT_AB_NSIDES * sizeof(double));
    double *d = lat__alloc((R ? R : 1) * sizeof *d);
    double *pab = lat__alloc(2 * (n ? n : 1) * sizeof *pab), *paa = pab ? pab + (n ? n : 1) : NULL;
    bool *rej = lat__alloc(2 * (n ? n : 1) * sizeof *rej);
    int rc = out->fig && out->bench && out->rounds_v && d && pab && rej ? 0 : -ENOMEM;
    /* figures in benchmark order (the order of first appearance) */
    size_t nf = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (!ab->s[i].headline) continue;
        lat_ab_bench *b = &out->bench[out->nbench++];
        b->bench = ab->s[i].bench;
        b->first = nf;
        for (size_t j = i; j < n && !rc; j++) {
            const series *s = &ab->s[j];
            if (strcmp(s->bench, b->bench)) continue;
            lat_ab_figure *f = &out->fig[nf];
            f->bench = s->bench, f->figure = s->figure;
            f->headline = s->headline, f->tail = s->tail;
            size_t m = column(s, LAT_AB_B, LAT_AB_A, p->pooled_reference, R, d);
            rc = lat_paired_point_read(d, m, p->alpha, &f->ab);
            f->set_aside = R - (unsigned)m;
            size_t maa = column(s, LAT_AB_A2, LAT_AB_A, false, R, d);
            if (!rc) rc = lat_paired_point_read(d, maa, p->alpha, &f->aa);
            f->median_a_ns = median_of(s->v[LAT_AB_A], R);
            f->kept_a = median_of(s->k[LAT_AB_A], R);
            f->kept_b = median_of(s->k[LAT_AB_B], R);
            f->per_round = out->rounds_v + nf * LAT_AB_NSIDES * R;
            for (int side = 0; R && side < LAT_AB_NSIDES; side++)
                memcpy(f->per_round + (size_t)side * R, s->v[side], R * sizeof(double));
            pab[nf] = m >= 2 ? f->ab.test.p : NAN;
            paa[nf] = maa >= 2 ? f->aa.test.p : NAN;
            nf++;
        }
        b->nfig = nf - b->first;
    }
    out->nfig = nf;
    if (!rc && lat_paired_bh(pab, nf, level, rej) < 0) rc = -ENOMEM;
    if (!rc && lat_paired_bh(paa, nf, level, rej + nf) < 0) rc = -ENOMEM;
    double worst = 2;
    for (size_t i = 0; !rc && i < nf; i++) {
        lat_ab_figure *f = &out->fig[i];
        double band = band_of(p, f);
        f->ab_reject = rej[i];
        f->aa_reject = rej[nf + i];
        f->kind = lat_paired_judge(&f->ab, f->ab_reject, band, p->min_rounds);
        f->rounds_to_fit = lat_paired_rounds_to_fit(f->ab.eq.lo, f->ab.eq.hi, (unsigned)f->ab.n,
                                                    band, p->band_edge_share);
        f->reachable =
            (f->kind == LAT_PAIRED_UNDECIDED &&
             ((f->rounds_to_fit && f->rounds_to_fit <= f->ab.n + more_rounds) ||
              lat_paired_may_exclude_zero(f->ab.ci.est, f->ab.ci.lo, f->ab.ci.hi, (unsigned)f->ab.n,
                                          more_rounds, p->reach_est_multiple) ||
              f->ab.n < p->min_rounds)) ||
            (p->mde_within_band && f->kind == LAT_PAIRED_SAME &&
             lat_paired_mde_may_fit(f->ab.mde, (unsigned)f->ab.n, more_rounds, band));
        if (f->aa_reject && f->aa.test.p < worst) {
            worst = f->aa.test.p;
            out->aa_failed = true;
            char a[96];
            pct_shift(a, sizeof a, &f->aa);
            snprintf(out->aa_reason, sizeof out->aa_reason,
                     "this host fails its own A/A control: A against A read %s at %s %s (p = %.2g)",
                     a, f->bench, f->figure, f->aa.test.p);
        }
    }
    for (size_t i = 0; !rc && i < out->nbench; i++) {
        lat_ab_bench *b = &out->bench[i];
        word_bench(p, out, b);
        switch (b->verdict) {
        case LAT_AB_SLOWER:
            out->slower++;
            break;
        case LAT_AB_FASTER:
            out->faster++;
            break;
        case LAT_AB_SAME:
            out->same++;
            break;
        default:
            out->inconclusive++;
            break;
        }
        if (b->verdict != LAT_AB_INCONCLUSIVE) out->decided++;
    }
    lat__free(d);
    lat__free(pab);
    lat__free(rej);
    if (rc) lat_ab_result_fini(out);
    return rc;
}

bool lat_ab_looks_at(const lat_ab_params *p, unsigned rounds, unsigned more_rounds) {
    return more_rounds == 0 || rounds >= p->max_rounds ||
           (rounds >= p->min_rounds && look_before(p, rounds + 1) == rounds);
}

bool lat_ab_should_stop(const lat_ab_params *p, const lat_ab_result *r, unsigned rounds,
                        unsigned more_rounds, char *why, size_t len) {
    if (more_rounds == 0 || rounds >= p->max_rounds) {
        snprintf(why, len, "the budget is spent (%u rounds)", rounds);
        return true;
    }
    /* looks at min_rounds, then every 1.5 times as many rounds: each look
     * spends a share of alpha, and testing at every round would leave each
     * too little */
    if (!lat_ab_looks_at(p, rounds, more_rounds)) return false;
    /* a decided benchmark still runs for its other figures while more rounds
     * could decide them: "slower at p99" is the verdict, and the p50 read "no
     * change" beside it is the answer to "at which percentile"; and a "no
     * change" runs on while more rounds could bring its minimum detectable
     * effect within the band */
    bool open = false;
    for (size_t i = 0; i < r->nfig && !open; i++)
        open = r->fig[i].reachable;
    if (r->nbench && r->decided == r->nbench && !open) {
        snprintf(why, len, "every benchmark decided after %u rounds", rounds);
        return true;
    }
    /* futility only from twice min_rounds and a share of the budget's
     * rounds: an interval of ten rounds is as wide as its worst round, and a
     * few busy rounds at the start would give up on a figure the budget can
     * still decide (on a busy 2-vCPU guest the first look's reach ranged over
     * 0.6-17%; identical commands gave up after 23-35 of ~850 rounds) */
    if (rounds < 2 * p->min_rounds || open ||
        rounds < p->reach_budget_share * ((double)rounds + more_rounds))
        return false;
    snprintf(why, len,
             "out of reach: no undecided figure could be decided in the %u rounds the budget "
             "leaves",
             more_rounds);
    return true;
}

/* ---- reports ------------------------------------------------------------------------------ */

static double pct(double ln) {
    return 100 * (exp(ln) - 1);
}

static const char *kept_text(double a, double b, char *buf, size_t len) {
    if (!isfinite(a) && !isfinite(b))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.0f%%/%.0f%%", 100 * a, 100 * b);
    return buf;
}

static const char *fig_kind(const lat_ab_figure *f) {
    switch (f->kind) {
    case LAT_PAIRED_UP:
        return "slower";
    case LAT_PAIRED_DOWN:
        return "faster";
    case LAT_PAIRED_SAME:
        return "no change";
    }
    return "undecided";
}

void lat_ab_print(FILE *out, const lat_ab_params *p, const lat_ab_result *r) {
    fprintf(out, "%-28s %-8s %10s %10s %20s %9s %14s %9s %10s  %s\n", "benchmark", "figure",
            "A median", "B/A", "99% interval", "p", "could have seen", "kept A/B", "A/A",
            "verdict");
    for (size_t i = 0; i < r->nbench; i++) {
        const lat_ab_bench *b = &r->bench[i];
        for (size_t j = 0; j < b->nfig; j++) {
            const lat_ab_figure *f = &r->fig[b->first + j];
            char iv[48], mde[24], kept[24], aa[24], med[24];
            if (f->ab.n >= 2)
                snprintf(iv, sizeof iv, "[%.4f, %.4f]", exp(f->ab.ci.lo), exp(f->ab.ci.hi));
            else
                snprintf(iv, sizeof iv, "-");
            snprintf(mde, sizeof mde, isfinite(f->ab.mde) ? "+-%.2f%%" : "-", pct(f->ab.mde));
            snprintf(aa, sizeof aa, f->aa.n >= 2 ? "x%.4f%s" : "-", exp(f->aa.ci.est),
                     f->aa_reject ? "!" : "");
            snprintf(med, sizeof med, f->median_a_ns >= 1e6 ? "%.3fms" : "%.1fns",
                     f->median_a_ns >= 1e6 ? f->median_a_ns / 1e6 : f->median_a_ns);
            fprintf(out, "%-28.28s %-8s %10s x%9.4f %20s %9.2g %14s %9s %10s  %s\n",
                    j ? "" : b->bench, f->figure, med, exp(f->ab.ci.est), iv, f->ab.test.p, mde,
                    kept_text(f->kept_a, f->kept_b, kept, sizeof kept), aa, fig_kind(f));
        }
        fprintf(out, "%-28s => %s: %s\n", "", lat_ab_verdict_name(b->verdict), b->reason);
    }
    fprintf(out,
            "A/A control: %s\n"
            "verdicts: %u slower, %u faster, %u no change, %u inconclusive, over %u paired rounds "
            "(Benjamini-Hochberg over %zu figures at %.2g, this look's share of alpha %g; "
            "band +-%g%%, tails +-%g%%)\n",
            r->aa_failed ? r->aa_reason : "no difference (A against itself)", r->slower, r->faster,
            r->same, r->inconclusive, r->rounds, r->nfig, r->look_alpha, p->alpha, 100 * p->band,
            100 * p->tail_band);
}

static json_t *num(double x) {
    return isfinite(x) ? json_real(x) : json_null();
}

/* {"a": [...], "b": [...], "a2": [...]}: the figure's value in each round (null: none). */
static json_t *per_round_json(const lat_ab_figure *f, unsigned rounds) {
    static const char *const key[LAT_AB_NSIDES] = {"a", "b", "a2"};
    json_t *o = json_object();
    for (int side = 0; o && side < LAT_AB_NSIDES; side++) {
        json_t *a = json_array();
        for (unsigned r = 0; a && f->per_round && r < rounds; r++)
            json_array_append_new(a, num(f->per_round[(size_t)side * rounds + r]));
        json_object_set_new(o, key[side], a ? a : json_null());
    }
    return o ? o : json_null();
}

static json_t *point_json(const lat_paired_point *pt, bool reject) {
    return json_pack("{s:o,s:o,s:o,s:o,s:b,s:o,s:I}", "ratio", num(exp(pt->ci.est)), "lo",
                     num(exp(pt->ci.lo)), "hi", num(exp(pt->ci.hi)), "p", num(pt->test.p), "reject",
                     reject, "mde_pct", num(pct(pt->mde)), "rounds", (json_int_t)pt->n);
}

json_t *lat_ab_json(const lat_ab_params *p, const lat_ab_result *r) {
    json_t *benches = json_array();
    for (size_t i = 0; benches && i < r->nbench; i++) {
        const lat_ab_bench *b = &r->bench[i];
        json_t *figs = json_array();
        for (size_t j = 0; figs && j < b->nfig; j++) {
            const lat_ab_figure *f = &r->fig[b->first + j];
            json_array_append_new(
                figs,
                json_pack("{s:s,s:b,s:s,s:o,s:o,s:o,s:o,s:I,s:o,s:o}", "figure", f->figure,
                          "headline", f->headline, "kind", fig_kind(f), "a_median_ns",
                          num(f->median_a_ns), "kept_a", num(f->kept_a), "kept_b", num(f->kept_b),
                          "b_over_a", point_json(&f->ab, f->ab_reject), "set_aside",
                          (json_int_t)f->set_aside, "aa_control", point_json(&f->aa, f->aa_reject),
                          "per_round", per_round_json(f, r->rounds)));
        }
        json_array_append_new(benches, json_pack("{s:s,s:s,s:s,s:o}", "name", b->bench, "verdict",
                                                 lat_ab_verdict_name(b->verdict), "reason",
                                                 b->reason, "figures", figs ? figs : json_null()));
    }
    return json_pack(
        "{s:I,s:f,s:b,s:f,s:f,s:f,s:I,s:f,s:f,s:f,s:b,s:b,"
        "s:{s:b,s:s},s:{s:I,s:I,s:I,s:I},s:o}",
        "rounds", (json_int_t)r->rounds, "alpha", p->alpha, "spend_alpha", p->spend_alpha,
        "look_alpha", r->look_alpha, "band", p->band, "tail_band", p->tail_band, "min_rounds",
        (json_int_t)p->min_rounds, "band_edge_share", p->band_edge_share, "reach_est_multiple",
        p->reach_est_multiple, "reach_budget_share", p->reach_budget_share, "mde_within_band",
        p->mde_within_band, "pooled_reference", p->pooled_reference, "aa_control", "failed",
        r->aa_failed, "reason", r->aa_reason, "summary", "slower", (json_int_t)r->slower, "faster",
        (json_int_t)r->faster, "no_change", (json_int_t)r->same, "inconclusive",
        (json_int_t)r->inconclusive, "benchmarks", benches ? benches : json_null());
}

int lat_ab_markdown(FILE *out, const lat_ab_params *p, const lat_ab_result *r, const char *label_a,
                    const char *label_b) {
    fprintf(out, "## latlab ab: %s (A) against %s (B)\n\n", label_a, label_b);
    fprintf(out, "%u slower, %u faster, %u no change, %u inconclusive over %u paired rounds. ",
            r->slower, r->faster, r->same, r->inconclusive, r->rounds);
    fprintf(out, "A/A control: %s.\n\n", r->aa_failed ? r->aa_reason : "no difference");
    fprintf(out, "| benchmark | figure | B/A | 99%% interval | p | could have seen | verdict |\n"
                 "|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < r->nbench; i++) {
        const lat_ab_bench *b = &r->bench[i];
        for (size_t j = 0; j < b->nfig; j++) {
            const lat_ab_figure *f = &r->fig[b->first + j];
            fprintf(out, "| %s | %s | x%.4f | [%.4f, %.4f] | %.2g | +-%.2f%% | %s |\n",
                    j ? "" : b->bench, f->figure, exp(f->ab.ci.est), exp(f->ab.ci.lo),
                    exp(f->ab.ci.hi), f->ab.test.p, pct(f->ab.mde),
                    j ? fig_kind(f) : lat_ab_verdict_name(b->verdict));
        }
    }
    fprintf(out,
            "\nBenjamini-Hochberg at %g over %zu figures; no-change band +-%g%% "
            "(tails +-%g%%).\n",
            p->alpha, r->nfig, 100 * p->band, 100 * p->tail_band);
    return lat__write_status(out, 0);
}

int lat_ab_svg(FILE *out, const lat_ab_params *p, const lat_ab_result *r, size_t bi) {
    if (bi >= r->nbench) return -EINVAL;
    const lat_ab_bench *b = &r->bench[bi];
    /* the axis spans the widest finite interval, at least twice the band */
    double span = 2 * log(1 + p->tail_band);
    for (size_t j = 0; j < b->nfig; j++) {
        const lat_ab_figure *f = &r->fig[b->first + j];
        const double e[4] = {f->ab.ci.lo, f->ab.ci.hi, f->aa.ci.lo, f->aa.ci.hi};
        for (int k = 0; k < 4; k++)
            if (isfinite(e[k]) && fabs(e[k]) * 1.1 > span) span = fabs(e[k]) * 1.1;
    }
    int W = 640, left = 120, right = 30, row = 44, H = 60 + row * (int)b->nfig;
    double x0 = left, w = W - left - right;
#define X(v) (x0 + w * (((v) / span) + 1) / 2)
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<title>%s: B/A shift function</title>\n"
            "<text x=\"8\" y=\"18\">%s: B/A by figure (99%% intervals; grey: the A/A control; "
            "band shaded)</text>\n",
            W, H, b->bench, b->bench);
    for (size_t j = 0; j < b->nfig; j++) {
        const lat_ab_figure *f = &r->fig[b->first + j];
        double y = 40 + row * (double)j, band = band_of(p, f);
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#e8f0e8\"/>\n"
                "<text x=\"8\" y=\"%.1f\">%s</text>\n",
                X(-band), y, X(band) - X(-band), row - 8, y + 20, f->figure);
        if (f->ab.n >= 2 && isfinite(f->ab.ci.lo) && isfinite(f->ab.ci.hi))
            fprintf(out,
                    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"4\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n",
                    X(f->ab.ci.lo), X(f->ab.ci.hi), y + 12, y + 12,
                    f->kind == LAT_PAIRED_UP     ? "#c0392b"
                    : f->kind == LAT_PAIRED_DOWN ? "#2471a3"
                                                 : "#555",
                    X(f->ab.ci.est), y + 12);
        if (f->aa.n >= 2 && isfinite(f->aa.ci.lo) && isfinite(f->aa.ci.hi))
            fprintf(out,
                    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#aaa\" "
                    "stroke-width=\"2\"/>\n",
                    X(f->aa.ci.lo), X(f->aa.ci.hi), y + 26, y + 26);
    }
    double yb = 40 + row * (double)b->nfig;
    fprintf(out,
            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"34\" y2=\"%.1f\" stroke=\"#000\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">x1</text>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">x%.3f</text>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">x%.3f</text>\n</svg>\n",
            X(0), X(0), yb, X(0), yb + 14, x0, yb + 14, exp(-span), x0 + w, yb + 14, exp(span));
#undef X
    return lat__write_status(out, 0);
}
