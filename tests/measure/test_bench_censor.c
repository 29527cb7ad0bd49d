/* test_bench_censor.c - the standard sample's platform account on a virtual
 * clock, so every figure is exact: sub-chunks the "host" stretched by 200 us
 * are censored and the kept figure is the undisturbed one; a sample that
 * lost more than a quarter of its ops is set aside (listed, not counted);
 * per-op latencies of censored sub-chunks stay out of the tail; a genuine
 * slow path spread over the sub-chunks is not censored, even one whose
 * sub-chunks differ by more than the gap threshold; the new fields
 * round-trip through JSON and an older report without them loads as kept
 * whole; the comparison's minimum detectable effect is printed, follows its
 * formula and shrinks with more samples; on the real clock the account is
 * read (run-queue wait, involuntary switches). */
#include "lat_test.h"

#include "latlab/bench.h"
#include "latlab/compiler.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a virtual clock and a benchmark the "host" disturbs ---------------------------- */

typedef struct host {
    uint64_t now_ns;     /* the virtual clock */
    double cost_ns;      /* per op */
    uint64_t slow_every; /* 0: none; else every slow_every-th op (global count) ... */
    uint64_t slow_ns;    /* ... costs this much more */
    uint64_t ops;        /* ops so far, across calls */
    bool gaps;           /* stretch the sub-chunks disturbed() names */
    bool measuring;      /* the current sample is a measured one */
    uint32_t sample;     /* its index */
    uint32_t call;       /* calls of fn within the current sample */
    bool record;         /* record per-op latencies */
    double jitter_pct;   /* per-sample cost jitter */
    uint64_t rng;
    double per; /* this sample's cost per op */
} host;

static uint64_t host_clock(void *ud) {
    return ((host *)ud)->now_ns;
}

/* Which sub-chunks of measured sample i the host stretches by 200 us:
 * even samples lose sub-chunks 3 and 11; sample 5 loses six. */
static bool disturbed(uint32_t sample, uint32_t call) {
    if (sample == 5) return call % 2 == 0 && call < 12;
    return sample % 2 == 0 && (call == 3 || call == 11);
}

#define GAP_NS 200000u

static double jitter(host *h) {
    h->rng ^= h->rng << 13, h->rng ^= h->rng >> 7, h->rng ^= h->rng << 17;
    return ((double)(h->rng % 2001) / 1000.0 - 1.0) * h->jitter_pct / 100.0;
}

static void before(void *ud, void *ctx, const lat_bench_sample_info *info) {
    (void)ctx;
    host *h = ud;
    h->measuring = info->phase == LAT_BENCH_MEASUREMENT;
    h->sample = info->index;
    h->call = 0;
    h->per = h->cost_ns * (1 + (h->jitter_pct > 0 ? jitter(h) : 0));
}

static void host_fn(void *ctx, uint64_t n, uint64_t index) {
    (void)index;
    host *h = ctx;
    bool gap = h->gaps && h->measuring && disturbed(h->sample, h->call);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t extra = h->slow_every && ++h->ops % h->slow_every == 0 ? h->slow_ns : 0;
        /* The op that the gap fell into reports it in its latency. */
        if (h->record)
            lat_bench_record_ns((uint64_t)h->cost_ns + extra + (gap && i == 0 ? GAP_NS : 0));
        h->now_ns += extra;
    }
    h->now_ns += (uint64_t)llround(h->per * (double)n) + (gap ? GAP_NS : 0);
    h->call++;
}

static lat_bench_config vconfig(host *h, uint32_t samples) {
    lat_bench_config c;
    lat_bench_config_default(&c);
    c.target_chunk_ns = 2000000; /* 2 ms samples, timed as 20 sub-chunks (given) */
    c.warm_up_ns = 10000000;
    c.budget_ns = 100000000;
    c.min_samples = c.max_samples = samples;
    c.pin = false;
    c.counters = false;
    c.clock_ns = host_clock;
    c.clock_ud = h;
    return c;
}

static lat_bench_runner *run_host(host *h, uint32_t samples, uint64_t chunk, uint32_t subchunks) {
    lat_bench_config cfg = vconfig(h, samples);
    lat_bench_runner *r;
    assert_int_equal(lat_bench_runner_create("censor", &cfg, &r), 0);
    lat_bench_group *g = lat_bench_group_create(r, "host");
    assert_non_null(g);
    assert_int_equal(lat_bench_group_lifecycle(g, &(lat_bench_lifecycle){before, NULL, h}), 0);
    assert_int_equal(lat_bench_add(g, &(lat_bench_def){.name = "work",
                                                       .fn = host_fn,
                                                       .arg = h,
                                                       .chunk_size = chunk,
                                                       .subchunks = subchunks}),
                     0);
    assert_int_equal(lat_bench_run(r), 0);
    assert_int_equal(lat_bench_runner_report(r)->n_results, 1);
    return r;
}

static bool has_note(const lat_bench_result *res, const char *needle) {
    for (uint32_t i = 0; i < res->n_notes; i++)
        if (strstr(res->notes[i], needle)) return true;
    return false;
}

static bool near(double a, double b) {
    return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* ---- censoring ------------------------------------------------------------------------ */

static void check_disturbed(const lat_bench_result *res) {
    assert_int_equal(res->n, 10);
    assert_int_equal(res->subchunks, 20);
    for (uint32_t i = 0; i < res->n; i++) {
        /* The kept figure is the undisturbed one, whatever the host took. */
        assert_true(near(res->ns_per_op[i], 100));
        if (i == 5) {
            assert_true(near(res->kept_share[i], 14.0 / 20));
            assert_true(near(res->raw_ns_per_op[i], (2e6 + 6 * GAP_NS) / 20000));
            assert_true(lat_bench_sample_set_aside(res, i));
        } else if (i % 2 == 0) {
            assert_true(near(res->kept_share[i], 18.0 / 20));
            assert_true(near(res->raw_ns_per_op[i], (2e6 + 2 * GAP_NS) / 20000));
            assert_false(lat_bench_sample_set_aside(res, i));
        } else {
            assert_true(near(res->kept_share[i], 1));
            assert_true(near(res->raw_ns_per_op[i], 100));
            assert_false(lat_bench_sample_set_aside(res, i));
        }
        /* throughput follows the kept figure */
        assert_true(near(res->throughput[i], 1e7));
    }
    assert_int_equal(res->set_aside, 1);
    assert_int_equal(res->touched, 5 * 2 + 6);
    /* kept ops / all ops: sample 5 (set aside) keeps none of its ops. */
    assert_true(near(res->kept_share_all, (5 * 0.9 + 4 * 1.0) / 10));
    assert_int_equal(res->latency.n, 9); /* set aside: listed, not counted */
    assert_true(near(res->latency.median, 100));
    assert_true(near(res->latency.max, 100));
    assert_true(near(res->mean_ns_per_op, 100));
}

static void test_disturbed_subchunks_are_censored(void **state) {
    (void)state;
    host h = {.cost_ns = 100, .gaps = true, .record = true};
    lat_bench_runner *r = run_host(&h, 10, 20000, 20);
    const lat_bench_result *res = &lat_bench_runner_report(r)->results[0];
    check_disturbed(res);
    assert_true(has_note(res, "touched 16 of 200 sub-chunks"));
    assert_true(has_note(res, "1 of 10 samples set aside"));
    /* The tail: only untouched sub-chunks of samples not set aside (the
     * 200 us latencies were all in censored sub-chunks). */
    assert_int_equal(res->tail.count, 5 * 18000 + 4 * 20000);
    assert_true(res->tail.max_ns < 1000);
    /* The printed table has the kept column. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lat_bench_report_print(lat_bench_runner_report(r), f);
    fclose(f);
    assert_non_null(strstr(buf, "kept"));
    assert_non_null(strstr(buf, "85.0%"));
    assert_non_null(strstr(buf, "1 of 10 samples set aside"));
    free(buf);
    lat_bench_runner_destroy(r);

    /* The same host with censoring off (one timed call per sample, so only
     * sample 5 meets a gap, in its call 0): the figure carries it. */
    host h1 = {.cost_ns = 100, .gaps = true};
    r = run_host(&h1, 10, 20000, 1);
    res = &lat_bench_runner_report(r)->results[0];
    assert_int_equal(res->subchunks, 1);
    assert_int_equal(res->touched, 0);
    assert_true(near(res->ns_per_op[0], 100));
    assert_true(near(res->ns_per_op[5], (2e6 + GAP_NS) / 20000));
    assert_true(near(res->kept_share[5], 1));
    assert_int_equal(res->set_aside, 0);
    lat_bench_runner_destroy(r);
}

/* One op in 100 taking a microsecond more: spread over every sub-chunk, so
 * nothing is censored and the figure includes the slow path. */
static void test_even_slow_path_is_kept(void **state) {
    (void)state;
    host h = {.cost_ns = 100, .slow_every = 100, .slow_ns = 1000};
    lat_bench_runner *r = run_host(&h, 10, 20000, 20);
    const lat_bench_result *res = &lat_bench_runner_report(r)->results[0];
    assert_true(res->subchunks >= 20);
    assert_int_equal(res->touched, 0);
    assert_int_equal(res->set_aside, 0);
    assert_true(near(res->kept_share_all, 1));
    for (uint32_t i = 0; i < res->n; i++) {
        assert_true(near(res->kept_share[i], 1));
        assert_true(near(res->ns_per_op[i], res->raw_ns_per_op[i]));
        assert_true(near(res->ns_per_op[i], 110));
    }
    lat_bench_runner_destroy(r);

    /* A slow op of 30 us every 100 ops, 1050 ops per sub-chunk: sub-chunks
     * alternate 10 and 11 slow ops, 30 us apart (15 us either side of their
     * median, over the 10 us gap threshold): the spread rule keeps them. */
    host h2 = {.cost_ns = 100, .slow_every = 100, .slow_ns = 30000};
    r = run_host(&h2, 10, 21000, 20);
    res = &lat_bench_runner_report(r)->results[0];
    assert_int_equal(res->subchunks, 20);
    assert_int_equal(res->touched, 0);
    for (uint32_t i = 0; i < res->n; i++) {
        assert_true(near(res->kept_share[i], 1));
        assert_true(near(res->ns_per_op[i], 100 + 30000.0 * 210 / 21000));
    }
    lat_bench_runner_destroy(r);
}

/* ---- persistence ----------------------------------------------------------------------- */

static void test_json_round_trip_of_the_account(void **state) {
    (void)state;
    host h = {.cost_ns = 100, .gaps = true};
    lat_bench_runner *r = run_host(&h, 10, 20000, 20);
    const lat_bench_report *rep = lat_bench_runner_report(r);
    json_t *j = lat_bench_report_to_json(rep);
    assert_non_null(j);
    json_t *jr = json_array_get(json_object_get(j, "results"), 0);
    json_t *smp = json_object_get(jr, "samples"), *st = json_object_get(jr, "stats");
    assert_int_equal(json_array_size(json_object_get(smp, "kept_share")), 10);
    assert_int_equal(json_array_size(json_object_get(smp, "raw_ns_per_op")), 10);
    assert_true(near(json_real_value(json_array_get(json_object_get(smp, "kept_share"), 5)), 0.7));
    assert_true(near(json_number_value(json_object_get(st, "kept_share")), 0.85));
    assert_int_equal(json_integer_value(json_object_get(st, "samples_set_aside")), 1);
    assert_int_equal(json_integer_value(json_object_get(jr, "subchunks")), 20);

    char err[256], path[512];
    snprintf(path, sizeof path, "%s/censor.json", lat_test_tmpdir());
    assert_int_equal(lat_bench_report_save(rep, path), 0);
    lat_bench_report *back = NULL;
    assert_int_equal(lat_bench_report_load(path, &back, err, sizeof err), 0);
    check_disturbed(&back->results[0]); /* recomputed from the samples, the same */
    json_t *j2 = lat_bench_report_to_json(back);
    assert_true(json_equal(j, j2));
    json_decref(j2);
    lat_bench_report_destroy(back);

    /* A report written before the account: every sample kept whole. */
    json_object_del(smp, "kept_share");
    json_object_del(smp, "raw_ns_per_op");
    json_object_del(st, "kept_share");
    json_object_del(st, "samples_set_aside");
    json_object_del(st, "kept_floor");
    json_object_del(st, "subchunks_touched");
    json_object_del(jr, "subchunks");
    assert_int_equal(lat_bench_report_from_json(j, &back, err, sizeof err), 0);
    const lat_bench_result *old = &back->results[0];
    assert_int_equal(old->n, 10);
    assert_int_equal(old->set_aside, 0);
    assert_true(old->kept_share_all == 1);
    assert_int_equal(old->latency.n, 10);
    for (uint32_t i = 0; i < old->n; i++) {
        assert_true(old->kept_share[i] == 1);
        assert_true(old->raw_ns_per_op[i] == old->ns_per_op[i]);
        assert_false(lat_bench_sample_set_aside(old, i));
    }
    /* ... and it still compares with a current report. */
    lat_bench_comparison *c = NULL;
    assert_int_equal(lat_bench_compare(back, rep, NULL, &c), 0);
    assert_int_equal(c->changes[0].verdict, LAT_BENCH_UNCHANGED);
    lat_bench_comparison_destroy(c);
    lat_bench_report_destroy(back);
    json_decref(j);
    lat_bench_runner_destroy(r);
}

/* ---- the minimum detectable effect ------------------------------------------------------- */

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median_of(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
/* 1.4826 x MAD of ln ns_per_op, computed here independently. */
static double log_sigma(const lat_bench_result *res) {
    double *l = calloc(res->n, sizeof *l);
    for (uint32_t i = 0; i < res->n; i++)
        l[i] = log(res->ns_per_op[i]);
    double m = median_of(l, res->n);
    for (uint32_t i = 0; i < res->n; i++)
        l[i] = fabs(l[i] - m);
    double s = 1.4826 * median_of(l, res->n);
    free(l);
    return s;
}

static double mde_for(uint32_t n, uint64_t seed_a, uint64_t seed_b, char **printed) {
    host a = {.cost_ns = 100, .jitter_pct = 5, .rng = seed_a};
    host b = {.cost_ns = 100, .jitter_pct = 5, .rng = seed_b};
    lat_bench_runner *ra = run_host(&a, n, 20000, 20);
    lat_bench_runner *rb = run_host(&b, n, 20000, 20);
    const lat_bench_report *pa = lat_bench_runner_report(ra), *pb = lat_bench_runner_report(rb);
    lat_bench_comparison *c = NULL;
    assert_int_equal(lat_bench_compare(pa, pb, NULL, &c), 0);
    double mde = c->changes[0].mde;
    /* (z_0.975 + z_0.8) * pooled sigma * sqrt(1/na + 1/nb), as a relative change */
    double sa = log_sigma(&pa->results[0]), sb = log_sigma(&pb->results[0]);
    double pooled = sqrt(((n - 1) * sa * sa + (n - 1) * sb * sb) / (2.0 * n - 2));
    assert_true(fabs(mde - expm1(2.801585 * pooled * sqrt(2.0 / n))) < 1e-6);
    size_t len = 0;
    FILE *f = open_memstream(printed, &len);
    lat_bench_comparison_print(c, f);
    fclose(f);
    lat_bench_comparison_destroy(c);
    lat_bench_runner_destroy(ra);
    lat_bench_runner_destroy(rb);
    return mde;
}

static void test_mde_printed_and_shrinks(void **state) {
    (void)state;
    char *p10 = NULL, *p80 = NULL;
    double m10 = mde_for(10, 11, 12, &p10);
    double m80 = mde_for(80, 11, 12, &p80);
    /* +-5% uniform jitter: sigma of the logs about 3.7%; the MDE at 10 a side
     * about 4.6%, at 80 a side about a third of that. */
    assert_true(m10 > 0.01 && m10 < 0.15);
    assert_true(m80 > 0 && m80 < m10 * 0.6);
    char want[32];
    snprintf(want, sizeof want, "%.2f%%", m10 * 100);
    assert_non_null(strstr(p10, "MDE"));
    assert_non_null(strstr(p10, want));
    assert_non_null(strstr(p10, "unpaired runs cannot separate the host's drift"));
    assert_non_null(strstr(p10, "latlab ab"));
    free(p10);
    free(p80);
}

/* ---- the real clock: the account is read ------------------------------------------------ */

static void spin_fn(void *ctx, uint64_t n, uint64_t idx) {
    (void)ctx;
    (void)idx;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        acc += i * i;
        lat_do_not_optimize(acc);
    }
}

static void test_real_clock_account(void **state) {
    (void)state;
    lat_bench_config cfg;
    lat_bench_config_default(&cfg);
    cfg.target_chunk_ns = 2000000;
    cfg.warm_up_ns = 4000000;
    cfg.budget_ns = 20000000;
    cfg.min_samples = cfg.max_samples = 8;
    cfg.counters = false;
    cfg.pin = false;
    lat_bench_runner *r;
    assert_int_equal(lat_bench_runner_create("account", &cfg, &r), 0);
    lat_bench_group *g = lat_bench_group_create(r, "g");
    assert_int_equal(lat_bench_add(g, &(lat_bench_def){.name = "spin", .fn = spin_fn}), 0);
    assert_int_equal(lat_bench_run(r), 0);
    const lat_bench_result *res = &lat_bench_runner_report(r)->results[0];
    assert_int_equal(res->n, 8);
    assert_true(res->subchunks >= 1 && res->subchunks <= LAT_BENCH_SUBCHUNKS_MAX);
    assert_non_null(res->runq_wait_ns);
    assert_non_null(res->invol_switches);
    for (uint32_t i = 0; i < res->n; i++) {
        assert_true(isnan(res->runq_wait_ns[i]) || res->runq_wait_ns[i] >= 0);
        /* at most about half the sub-chunks can sit above their median */
        assert_true(res->kept_share[i] > 0.4 && res->kept_share[i] <= 1);
        assert_true(res->ns_per_op[i] > 0 && res->raw_ns_per_op[i] > 0);
    }
    assert_true(res->set_aside <= res->n);
    assert_true(res->kept_share_all >= 0 && res->kept_share_all <= 1);
    lat_bench_runner_destroy(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disturbed_subchunks_are_censored),
        cmocka_unit_test(test_even_slow_path_is_kept),
        cmocka_unit_test(test_json_round_trip_of_the_account),
        cmocka_unit_test(test_mde_printed_and_shrinks),
        cmocka_unit_test(test_real_clock_account),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
