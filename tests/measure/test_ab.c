/* test_ab.c - `latlab ab`'s decision (measure/ab.c) on simulated worlds whose
 * answer is known: an A/A world (same code both sides), B 2% slower, a
 * tail-only change, a host drifting 10% over the run, a suite of twenty
 * unchanged benchmarks, an A/A control that reads a difference; the stop
 * rule; and each safeguard switched off making its world come out wrong
 * (pairing, Benjamini-Hochberg, the A/A control, every run on one CPU, the
 * stop rule waiting through a busy start, the reference pooled over A and
 * A2); the choice of that CPU. */
#include "lat_test.h"

#include "latlab/ab.h"
#include "latlab/abrun.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct world {
    double shift_b;  /* B / A, true */
    double tail_b;   /* B / A of the p99 figure (1: none) */
    double bias_a2;  /* A2 / A, true (1: a sound control) */
    double drift;    /* the host's slowdown over the whole run (0.1: 10%) */
    double sd_round; /* the host's level per round (common to the round's runs) */
    double sd_run;   /* each run's own noise */
    unsigned benches;
    bool tail_fig;
    double cpu_gap;        /* each run lands on one of two CPUs this much apart (0: one CPU) */
    unsigned rough_rounds; /* the first rounds of the run, whose runs ... */
    double sd_rough;       /* ... have this noise in place of sd_run (a busy start) */
} world;

/* Fill rounds [from, to) of ab with the world's runs; the order inside a
 * round is random, and the drift moves with each run. */
static void play(lat_ab *ab, const world *w, unsigned from, unsigned to, unsigned total,
                 lat_stats_rng *r) {
    for (unsigned k = from; k < to; k++) {
        double host = exp(w->sd_round * lat_stats_normal(r));
        int order[3] = {0, 1, 2};
        lat_stats_shuffle(r, order, 3);
        for (int i = 0; i < 3; i++) {
            int side = order[i];
            double t = (k * 3.0 + i) / (total * 3.0), lvl = host * (1 + w->drift * t);
            double f = side == LAT_AB_B ? w->shift_b : side == LAT_AB_A2 ? w->bias_a2 : 1;
            if (w->cpu_gap && lat_stats_uniform(r) < 0.5) lvl *= 1 + w->cpu_gap;
            for (unsigned b = 0; b < w->benches; b++) {
                char name[32];
                snprintf(name, sizeof name, "g/b%u", b);
                double sd = k < w->rough_rounds ? w->sd_rough : w->sd_run;
                double v = 100 * lvl * f * exp(sd * lat_stats_normal(r));
                assert_int_equal(lat_ab_record(ab, k, side, name, "time/op", v, 0.97), 0);
                if (w->tail_fig) {
                    double tf = side == LAT_AB_B ? w->tail_b : 1;
                    double p99 = 300 * lvl * tf * exp(3 * w->sd_run * lat_stats_normal(r));
                    assert_int_equal(lat_ab_record(ab, k, side, name, "p99", p99, NAN), 0);
                }
            }
        }
    }
}

/* One run of `latlab ab` in the world with parameters p: rounds until the
 * stop rule says so (a budget of p.max_rounds); the result is left in out. */
static unsigned run_params(const world *w, uint64_t seed, lat_ab_params p, lat_ab_result *out) {
    unsigned max_rounds = p.max_rounds;
    lat_ab *ab;
    assert_int_equal(lat_ab_create(&p, &ab), 0);
    lat_stats_rng r = {seed};
    unsigned k = 0;
    char why[256];
    for (;;) {
        play(ab, w, k, k + 1, max_rounds, &r);
        k++;
        lat_ab_result_fini(out);
        assert_int_equal(lat_ab_decide(ab, max_rounds - k, out), 0);
        if (lat_ab_should_stop(&p, out, k, max_rounds - k, why, sizeof why)) break;
    }
    lat_ab_destroy(ab);
    return k;
}

static unsigned run_world(const world *w, uint64_t seed, unsigned max_rounds, lat_ab_result *out) {
    lat_ab_params p;
    lat_ab_params_default(&p);
    p.max_rounds = max_rounds;
    return run_params(w, seed, p, out);
}

static void count(const world *w, int seeds, unsigned max_rounds, int *n) {
    memset(n, 0, 5 * sizeof *n);
    for (int s = 1; s <= seeds; s++) {
        lat_ab_result res;
        memset(&res, 0, sizeof res);
        run_world(w, (uint64_t)s * 7919, max_rounds, &res);
        n[res.bench[0].verdict]++;
        lat_ab_result_fini(&res);
    }
}

static const world quiet = {1, 1, 1, 0, 0.01, 0.004, 1, false, 0, 0, 0};

static void test_aa_world(void **s) {
    (void)s;
    int n[5];
    count(&quiet, 40, 60, n);
    printf("A/A: %d no change, %d slower, %d faster, %d inconclusive, %d void of 40\n",
           n[LAT_AB_SAME], n[LAT_AB_SLOWER], n[LAT_AB_FASTER], n[LAT_AB_INCONCLUSIVE],
           n[LAT_AB_VOID]);
    assert_true(n[LAT_AB_SLOWER] + n[LAT_AB_FASTER] <= 2);
    assert_true(n[LAT_AB_SAME] >= 30);
}

static void test_two_percent_world(void **s) {
    (void)s;
    world w = quiet;
    w.shift_b = 1.02;
    int n[5];
    count(&w, 40, 60, n);
    printf("B x1.02: %d slower, %d faster, %d other of 40\n", n[LAT_AB_SLOWER], n[LAT_AB_FASTER],
           40 - n[LAT_AB_SLOWER] - n[LAT_AB_FASTER]);
    assert_true(n[LAT_AB_SLOWER] >= 38);
    assert_int_equal(n[LAT_AB_FASTER], 0);
    w.shift_b = 1 / 1.02;
    count(&w, 20, 60, n);
    assert_true(n[LAT_AB_FASTER] >= 19);
}

/* The tail band (5%) is the p99's and p99.9's: a p90 3% slower, read in
 * tight rounds, is slower, not "no change" within 5%; the same shift at p99
 * is no change. */
static void test_tail_band_figures(void **s) {
    (void)s;
    lat_ab_params p;
    lat_ab_params_default(&p);
    lat_ab *ab;
    assert_int_equal(lat_ab_create(&p, &ab), 0);
    lat_stats_rng r = {17};
    for (unsigned k = 0; k < 30; k++)
        for (int side = 0; side < LAT_AB_NSIDES; side++) {
            double f = side == LAT_AB_B ? 1.03 : 1, v = 100 * exp(0.002 * lat_stats_normal(&r));
            assert_int_equal(lat_ab_record(ab, k, side, "g/b", "time/op", v, 1), 0);
            assert_int_equal(lat_ab_record(ab, k, side, "g/b", "p90", 2 * v * f, NAN), 0);
            assert_int_equal(lat_ab_record(ab, k, side, "g/b", "p99", 3 * v * f, NAN), 0);
        }
    lat_ab_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(lat_ab_decide(ab, 0, &res), 0);
    int seen = 0;
    for (size_t i = 0; i < res.nfig; i++) {
        const lat_ab_figure *f = &res.fig[i];
        if (!strcmp(f->figure, "p90")) {
            assert_false(f->tail);
            assert_int_equal(f->kind, LAT_PAIRED_UP);
            seen++;
        } else if (!strcmp(f->figure, "p99")) {
            assert_true(f->tail);
            assert_int_equal(f->kind, LAT_PAIRED_SAME);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    lat_ab_result_fini(&res);
    lat_ab_destroy(ab);
}

/* Every 50th op slower: p99 up 20%, the body unchanged.  On a quiet host
 * both are decided at the first look; with 1% noise per run the body's "no
 * change" needs more rounds than the p99's "slower", and the run must go on
 * for it rather than stop at the first decided verdict. */
static void test_tail_only_world(void **s) {
    (void)s;
    for (int noisy = 0; noisy < 2; noisy++) {
        world w = quiet;
        w.tail_fig = true;
        w.tail_b = 1.2;
        w.sd_run = noisy ? 0.01 : w.sd_run;
        int slower = 0, p50_same = 0;
        unsigned rounds = 0;
        for (int seed = 1; seed <= 20; seed++) {
            lat_ab_result res;
            memset(&res, 0, sizeof res);
            rounds += run_world(&w, (uint64_t)seed, 60, &res);
            slower += res.bench[0].verdict == LAT_AB_SLOWER && res.fig[1].kind == LAT_PAIRED_UP;
            p50_same += res.fig[0].kind == LAT_PAIRED_SAME;
            lat_ab_result_fini(&res);
        }
        printf("tail x1.2, run noise %.1f%%: %d of 20 slower at p99, the body no change in %d "
               "(%.1f rounds)\n",
               100 * w.sd_run, slower, p50_same, rounds / 20.0);
        assert_true(slower >= 19);
        assert_true(p50_same >= 16);
    }
}

/* The host slows by 10% over the run and B = A.  Paired rounds see no
 * change; the same runs compared unpaired as a block design does (every A
 * run of the first half against every B run of the second, Mann-Whitney)
 * read B slower: pairing is the safeguard. */
static void test_drift_world(void **s) {
    (void)s;
    world w = quiet;
    w.drift = 0.10;
    int paired_calls = 0, unpaired_calls = 0;
    for (int seed = 1; seed <= 20; seed++) {
        lat_ab_result res;
        memset(&res, 0, sizeof res);
        run_world(&w, (uint64_t)seed, 60, &res);
        paired_calls +=
            res.bench[0].verdict == LAT_AB_SLOWER || res.bench[0].verdict == LAT_AB_FASTER;
        lat_ab_result_fini(&res);
        /* the block design: A's 30 runs, then B's 30 */
        lat_stats_rng r = {(uint64_t)seed};
        double a[30], b[30];
        for (int k = 0; k < 30; k++) {
            a[k] = 100 * (1 + w.drift * k / 60.0) * exp(w.sd_run * lat_stats_normal(&r));
            b[k] = 100 * (1 + w.drift * (30 + k) / 60.0) * exp(w.sd_run * lat_stats_normal(&r));
        }
        lat_stats_test t;
        assert_int_equal(lat_stats_mann_whitney(a, 30, b, 30, &t), 0);
        unpaired_calls += t.p < 0.01;
    }
    printf("drift 10%%, B = A: paired called a change in %d of 20, the block design in %d\n",
           paired_calls, unpaired_calls);
    assert_true(paired_calls <= 1);
    assert_true(unpaired_calls >= 18);
}

/* Twenty unchanged benchmarks: BH keeps the run's false calls near alpha;
 * each figure judged at alpha alone calls one far more often. */
static void test_suite_world(void **s) {
    (void)s;
    world w = quiet;
    w.benches = 20;
    int runs_bh = 0, runs_raw = 0;
    for (int seed = 1; seed <= 30; seed++) {
        lat_ab_params p;
        lat_ab_params_default(&p);
        p.alpha = 0.05;
        lat_ab *ab;
        assert_int_equal(lat_ab_create(&p, &ab), 0);
        lat_stats_rng r = {(uint64_t)seed * 31};
        play(ab, &w, 0, 20, 20, &r);
        lat_ab_result res;
        assert_int_equal(lat_ab_decide(ab, 0, &res), 0);
        runs_bh += res.slower + res.faster > 0;
        bool any = false;
        for (size_t i = 0; i < res.nfig; i++)
            any = any || res.fig[i].ab.test.p < p.alpha;
        runs_raw += any;
        lat_ab_result_fini(&res);
        lat_ab_destroy(ab);
    }
    printf("20 unchanged benchmarks: a false call in %d of 30 runs with BH, %d without\n", runs_bh,
           runs_raw);
    assert_true(runs_bh <= 5);
    assert_true(runs_raw >= 12);
}

/* A control that reads a difference (A2 3% below A) voids every verdict, the
 * real 2% change of B included (read against A and A2 as +3.6%); without the
 * control B would read slower. */
static void test_aa_voids(void **s) {
    (void)s;
    world w = quiet;
    w.shift_b = 1.02;
    w.bias_a2 = 0.97;
    lat_ab_result res;
    memset(&res, 0, sizeof res);
    run_world(&w, 5, 60, &res);
    assert_true(res.aa_failed);
    assert_int_equal(res.bench[0].verdict, LAT_AB_VOID);
    assert_non_null(strstr(res.bench[0].reason, "A/A control"));
    assert_int_equal(res.fig[0].kind, LAT_PAIRED_UP); /* the figure itself reads the change */
    lat_ab_result_fini(&res);
}

static void test_stop_rule(void **s) {
    (void)s;
    lat_ab_result res;
    memset(&res, 0, sizeof res);
    /* a quiet A/A decides at an early look */
    unsigned k = run_world(&quiet, 3, 200, &res);
    assert_true(k == 10 || k == 15 || k == 23 || k == 35);
    lat_ab_result_fini(&res);
    /* a 30% noisy host cannot decide a 1% band in 40 rounds: out of reach before the end */
    world w = quiet;
    w.sd_run = 0.3;
    k = run_world(&w, 3, 40, &res);
    assert_true(k < 40);
    assert_true(k >= 20); /* futility waits for twice min_rounds */
    assert_int_equal(res.bench[0].verdict, LAT_AB_INCONCLUSIVE);
    assert_non_null(strstr(res.bench[0].reason, "could have seen"));
    lat_ab_result_fini(&res);
    /* the looks: min_rounds x 1.5^k, the round cap, the budget's end */
    lat_ab_params p;
    lat_ab_params_default(&p);
    const unsigned looks[] = {10, 15, 23, 35, 53, 80, 120, 180, 270, 405, 608, 912, 1000};
    for (unsigned r = 1, i = 0; r <= p.max_rounds; r++) {
        bool want = i < sizeof looks / sizeof *looks && looks[i] == r;
        i += want;
        assert_int_equal(lat_ab_looks_at(&p, r, 100), want);
    }
    assert_true(lat_ab_looks_at(&p, 11, 0) && !lat_ab_looks_at(&p, 9, 1));
}

/* A busy start (AB7's budget share): each run of the first 10 rounds off by
 * 15% (sd), of the rest by 0.4%.  Judged at 20-35 rounds, the interval is as
 * wide as those rounds and "no change" looks out of reach; waiting for a
 * quarter of the 400 rounds the budget allows, the quiet rounds decide it.
 * With the share at 0 most runs give up at twice min_rounds. */
static void test_busy_start(void **s) {
    (void)s;
    world w = quiet;
    w.rough_rounds = 10;
    w.sd_rough = 0.15;
    int same[2] = {0, 0}, early[2] = {0, 0};
    for (int share = 0; share < 2; share++)
        for (int seed = 1; seed <= 20; seed++) {
            lat_ab_params p;
            lat_ab_params_default(&p);
            p.max_rounds = 400;
            p.reach_budget_share = share ? 0.25 : 0;
            lat_ab_result res;
            memset(&res, 0, sizeof res);
            unsigned k = run_params(&w, (uint64_t)seed * 6151, p, &res);
            same[share] += res.bench[0].verdict == LAT_AB_SAME;
            early[share] += res.bench[0].verdict == LAT_AB_INCONCLUSIVE && k < 100;
            lat_ab_result_fini(&res);
        }
    printf("a busy start, 20 runs: no change in %d with the budget share, %d without (%d given "
           "up before 100 rounds)\n",
           same[1], same[0], early[0]);
    assert_int_equal(early[1], 0);
    assert_true(same[1] >= 18);
    assert_true(early[0] >= 10);
}

/* "No change" says what the run could have seen (AB8's effect within the
 * band): an unchanged pair noisy enough that its first "no change" comes
 * while the effect the rounds could detect is still above the 1% band.  The
 * run goes on while the budget (60 rounds) could bring the effect within
 * the band; with mde_within_band off it stops at the first "no change". */
static void test_no_change_sees_band(void **s) {
    (void)s;
    world w = quiet;
    w.sd_run = 0.006;
    int same[2] = {0, 0}, wide[2] = {0, 0}, calls[2] = {0, 0};
    for (int on = 0; on < 2; on++)
        for (int seed = 1; seed <= 40; seed++) {
            lat_ab_params p;
            lat_ab_params_default(&p);
            p.max_rounds = 60;
            p.mde_within_band = on;
            lat_ab_result res;
            memset(&res, 0, sizeof res);
            run_params(&w, (uint64_t)seed * 3571, p, &res);
            int v = res.bench[0].verdict;
            same[on] += v == LAT_AB_SAME;
            wide[on] += v == LAT_AB_SAME && res.fig[0].ab.mde > log(1 + p.band);
            calls[on] += v == LAT_AB_SLOWER || v == LAT_AB_FASTER;
            lat_ab_result_fini(&res);
        }
    printf("A/A, 40 runs of 60 rounds: no change in %d (%d of them with an effect above the band "
           "the run could detect), %d changes; without the rule %d (%d), %d\n",
           same[1], wide[1], calls[1], same[0], wide[0], calls[0]);
    assert_true(wide[0] >= 10);
    assert_true(wide[1] <= 2);
    assert_true(same[1] >= same[0] - 2);
    assert_true(calls[1] <= 2);
}

/* The pooled reference (AB1): B against the mean of A and A2.  An unchanged
 * pair whose runs carry noise of their own (0.6%), 200 worlds of 30 rounds,
 * decided with the reference on and off.  Pooled, the effect the rounds
 * could detect is about 0.87 times as wide (a run's noise weighs 1.5 in
 * place of 2), and the A/A control's estimate no longer moves with the
 * shift's: against A alone, a slow run of A read in both (correlation 0.5). */
static double correlation(const double *x, const double *y, int n) {
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++)
        mx += x[i] / n, my += y[i] / n;
    for (int i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxy / sqrt(sxx * syy);
}

static void test_pooled_reference(void **s) {
    (void)s;
    world w = quiet;
    w.sd_run = 0.006;
    enum { WORLDS = 200, ROUNDS = 30 };
    static double mde[2][WORLDS], shift[2][WORLDS], control[2][WORLDS];
    for (int on = 0; on < 2; on++)
        for (int i = 0; i < WORLDS; i++) {
            lat_ab_params p;
            lat_ab_params_default(&p);
            p.pooled_reference = on;
            lat_ab *ab;
            assert_int_equal(lat_ab_create(&p, &ab), 0);
            lat_stats_rng r = {(uint64_t)(i + 1) * 6007};
            play(ab, &w, 0, ROUNDS, ROUNDS, &r);
            lat_ab_result res;
            memset(&res, 0, sizeof res);
            assert_int_equal(lat_ab_decide(ab, 0, &res), 0);
            mde[on][i] = res.fig[0].ab.mde;
            shift[on][i] = res.fig[0].ab.ci.est;
            control[on][i] = res.fig[0].aa.ci.est;
            lat_ab_result_fini(&res);
            lat_ab_destroy(ab);
        }
    double ratio[WORLDS];
    for (int i = 0; i < WORLDS; i++)
        ratio[i] = mde[1][i] / mde[0][i];
    double med = lat_stats_median_inplace(ratio, WORLDS);
    double c0 = correlation(shift[0], control[0], WORLDS);
    double c1 = correlation(shift[1], control[1], WORLDS);
    printf("A/A, %d worlds of %d rounds: pooled effect / against A alone, median %.3f; the "
           "control's estimate against the shift's: correlation %.2f against A alone, %.2f "
           "pooled\n",
           WORLDS, ROUNDS, med, c0, c1);
    assert_true(med > 0.78 && med < 0.94);
    assert_true(c0 > 0.3);
    assert_true(fabs(c1) < 0.2);
}

/* The stop rule's looks share alpha (AB7).  An unchanged pair on a host
 * too noisy for the band (held at 1e-6, and the futility stop held off)
 * runs to its budget of 180 rounds through eight looks.  Tested at alpha
 * each, they call a change in about 5% of runs where 1% was asked for; at
 * their shares, in about 1%.  The A/A control's false alarms, read the same
 * way, follow. */
static void test_looks_share_alpha(void **s) {
    (void)s;
    world w = quiet;
    w.sd_run = 0.05;
    const int worlds = 400;
    int calls[2] = {0, 0}, voids[2] = {0, 0};
    for (int spend = 0; spend < 2; spend++)
        for (int seed = 1; seed <= worlds; seed++) {
            lat_ab_params p;
            lat_ab_params_default(&p);
            p.max_rounds = 180;
            p.band = 1e-6;
            p.reach_est_multiple = 1e9;
            p.spend_alpha = spend;
            lat_ab *ab;
            assert_int_equal(lat_ab_create(&p, &ab), 0);
            lat_stats_rng r = {(uint64_t)seed * 104729};
            lat_ab_result res;
            memset(&res, 0, sizeof res);
            char why[256];
            for (unsigned k = 1;; k++) {
                play(ab, &w, k - 1, k, p.max_rounds, &r);
                /* deciding between the looks changes nothing */
                if (!lat_ab_looks_at(&p, k, p.max_rounds - k)) continue;
                lat_ab_result_fini(&res);
                assert_int_equal(lat_ab_decide(ab, p.max_rounds - k, &res), 0);
                if (lat_ab_should_stop(&p, &res, k, p.max_rounds - k, why, sizeof why)) break;
            }
            calls[spend] += res.slower + res.faster > 0;
            voids[spend] += res.aa_failed;
            lat_ab_result_fini(&res);
            lat_ab_destroy(ab);
        }
    printf("A/A, 180 rounds, 8 looks: changes called in %d of %d runs at alpha per look, %d at "
           "the looks' shares; the control failed in %d and %d\n",
           calls[0], worlds, calls[1], voids[0], voids[1]);
    assert_true(calls[1] <= worlds / 50 && voids[1] <= worlds / 50);
    assert_true(calls[0] >= worlds / 30);
}

/* Where each run measures (AB9).  A host whose two CPUs run 3% apart: runs
 * that land on either at random make A differ from itself by 3% in half the
 * rounds, and "no change" within 1% is out of reach (at 2% apart, the shift
 * against both runs of A reads it in 26 of 40); every run on one CPU
 * (the same world with cpu_gap 0) is the quiet A/A world.  Then the choice
 * of that CPU: the most idle, near-ties to the highest-numbered, allowed
 * CPUs only. */
static void test_one_cpu(void **s) {
    (void)s;
    world w = quiet;
    w.cpu_gap = 0.03;
    int spread[5], one[5];
    count(&w, 40, 24, spread); /* the rounds 60 s allow a ~60 ns benchmark */
    w.cpu_gap = 0;
    count(&w, 40, 24, one);
    printf("A/A on two CPUs 3%% apart: %d no change of 40; on one CPU: %d\n", spread[LAT_AB_SAME],
           one[LAT_AB_SAME]);
    assert_true(spread[LAT_AB_SAME] <= 20);
    assert_true(one[LAT_AB_SAME] >= 30);
    assert_true(spread[LAT_AB_SLOWER] + spread[LAT_AB_FASTER] <= 2);

    lat_cpuset all, not0;
    lat_cpuset_zero(&all);
    for (int c = 0; c < 4; c++)
        lat_cpuset_add(&all, c);
    not0 = all;
    lat_cpuset_del(&not0, 0);
    const double neighbour[4] = {0.98, 0.02, 0.97, NAN}; /* CPU 1 busy, CPU 3 unread */
    assert_int_equal(lat_ab_pick_cpu(neighbour, 4, &all), 2);
    const double chain[4] = {0.90, 0.86, 0.82, 0.10}; /* within 5% of the top, not of each other */
    assert_int_equal(lat_ab_pick_cpu(chain, 4, &all), 1);
    const double first_best[4] = {0.99, 0.50, 0.40, 0.30};
    assert_int_equal(lat_ab_pick_cpu(first_best, 4, &all), 0);
    assert_int_equal(lat_ab_pick_cpu(first_best, 4, &not0), 1);
    const double none[2] = {NAN, NAN};
    assert_int_equal(lat_ab_pick_cpu(none, 2, &all), -ENOENT);
    lat_cpuset mine;
    assert_int_equal(lat_thread_affinity(&mine), 0);
    double idle = -1;
    int c = lat_ab_quietest_cpu(20000000u, &idle);
    assert_true(c >= 0 && lat_cpuset_has(&mine, c));
    assert_true(idle >= 0 && idle <= 1);
    /* where runs go: harness programs measure there, single-CPU commands are
     * pinned there whole, parallel commands and Google Benchmark stay put */
    lat_ab_run_opts o = {.cpu = -1, .runner_cpu = -1};
    assert_int_equal(lat_ab_place(LAT_AB_COMMAND, 1.9, &o, &idle), -1);
    assert_int_equal(lat_ab_place(LAT_AB_GBENCH, 1.0, &o, &idle), -1);
    assert_true(o.cpu == -1 && o.runner_cpu == -1 && isnan(idle));
    c = lat_ab_place(LAT_AB_COMMAND, 1.0, &o, &idle);
    assert_true(c >= 0 && o.cpu == c && o.runner_cpu == -1 && idle >= 0);
    o.cpu = -1;
    c = lat_ab_place(LAT_AB_HARNESS, 3.0, &o, &idle);
    assert_true(c >= 0 && o.runner_cpu == c && o.cpu == -1);
}

/* The JSON carries each round's figures, side by side (null where a side has
 * none), so that a run can be read again by other rules. */
static void test_json_keeps_each_rounds_figures(void **s) {
    (void)s;
    lat_ab *ab;
    assert_int_equal(lat_ab_create(NULL, &ab), 0);
    const double v[3][3] = {{100, 102, 101}, {99, 103, NAN}, {100.5, 101, 99.5}};
    for (unsigned r = 0; r < 3; r++)
        for (int side = 0; side < LAT_AB_NSIDES; side++)
            assert_int_equal(lat_ab_record(ab, r, side, "g/x", "time/op", v[r][side], 1), 0);
    lat_ab_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(lat_ab_decide(ab, 0, &res), 0);
    lat_ab_params p;
    lat_ab_params_default(&p);
    json_t *doc = lat_ab_json(&p, &res);
    assert_non_null(doc);
    json_t *pr = json_object_get(
        json_array_get(
            json_object_get(json_array_get(json_object_get(doc, "benchmarks"), 0), "figures"), 0),
        "per_round");
    static const char *const key[3] = {"a", "b", "a2"};
    for (int side = 0; side < 3; side++) {
        json_t *a = json_object_get(pr, key[side]);
        assert_int_equal(json_array_size(a), 3);
        for (unsigned r = 0; r < 3; r++)
            if (isnan(v[r][side]))
                assert_true(json_is_null(json_array_get(a, r)));
            else
                assert_true(json_real_value(json_array_get(a, r)) == v[r][side]);
    }
    json_decref(doc);
    lat_ab_result_fini(&res);
    lat_ab_destroy(ab);
}

static void test_missing_and_args(void **s) {
    (void)s;
    lat_ab *ab;
    assert_int_equal(lat_ab_create(NULL, &ab), 0);
    assert_int_equal(lat_ab_record(ab, 0, LAT_AB_A, "g/x", "time/op", 10, NAN), 0);
    assert_int_equal(lat_ab_record(ab, 0, LAT_AB_A, "g/y", "time/op", 10, NAN), 0);
    assert_int_equal(lat_ab_record(ab, 0, LAT_AB_B, "g/x", "time/op", 10, NAN), 0);
    assert_int_equal(lat_ab_record(ab, 0, 7, "g/x", "time/op", 10, NAN), -EINVAL);
    char buf[128];
    assert_false(lat_ab_same_sets(ab, "s", "s", buf, sizeof buf));
    assert_string_equal(buf, "benchmarks of A missing from B: g/y");
    assert_false(lat_ab_same_sets(ab, "s", "t", buf, sizeof buf));
    assert_non_null(strstr(buf, "suite 's', B's of suite 't'"));
    /* B ran g/y but the host disturbed every sample (no figure, kept 0):
     * the benchmark is there, only that round has no figure */
    assert_int_equal(lat_ab_record(ab, 0, LAT_AB_B, "g/y", "time/op", NAN, 0), 0);
    assert_true(lat_ab_same_sets(ab, "", "", buf, sizeof buf));
    assert_int_equal(lat_ab_record(ab, 0, LAT_AB_B, "g/z", "time/op", 10, NAN), 0);
    assert_false(lat_ab_same_sets(ab, "", "", buf, sizeof buf));
    assert_string_equal(buf, "benchmarks of B missing from A: g/z");
    lat_ab_destroy(ab);
    lat_ab_params p;
    lat_ab_params_default(&p);
    p.alpha = 0;
    assert_int_equal(lat_ab_create(&p, &ab), -EINVAL);
    lat_ab_params_default(&p);
    p.max_rounds = 4001; /* past the Hodges-Lehmann interval's limit */
    assert_int_equal(lat_ab_create(&p, &ab), -EINVAL);
    /* alpha 0.0005: no signed-rank test of fewer than 12 rounds reaches it,
     * so the first look is at 12 (then 18, ...), not at the 10 asked for */
    lat_ab_params_default(&p);
    p.alpha = 0.0005;
    assert_int_equal(lat_ab_create(&p, &ab), 0);
    const lat_ab_params *in = lat_ab_params_of(ab);
    assert_int_equal(in->min_rounds, 12);
    assert_true(lat_ab_looks_at(&p, 10, 500) && !lat_ab_looks_at(in, 10, 500));
    assert_true(lat_ab_looks_at(in, 12, 500) && lat_ab_looks_at(in, 18, 500));
    lat_ab_destroy(ab);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aa_world),
        cmocka_unit_test(test_two_percent_world),
        cmocka_unit_test(test_tail_band_figures),
        cmocka_unit_test(test_tail_only_world),
        cmocka_unit_test(test_drift_world),
        cmocka_unit_test(test_suite_world),
        cmocka_unit_test(test_aa_voids),
        cmocka_unit_test(test_stop_rule),
        cmocka_unit_test(test_json_keeps_each_rounds_figures),
        cmocka_unit_test(test_missing_and_args),
        cmocka_unit_test(test_one_cpu),
        cmocka_unit_test(test_looks_share_alpha),
        cmocka_unit_test(test_busy_start),
        cmocka_unit_test(test_no_change_sees_band),
        cmocka_unit_test(test_pooled_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
