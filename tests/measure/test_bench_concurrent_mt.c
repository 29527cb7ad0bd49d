/* test_bench_concurrent_mt.c - concurrent groups: the operation totals equal
 * the workers' sums (per sample, per role, combined), thread indices are
 * unique and role-local indices restart per role, named event counters are
 * aggregated per role, lifecycle hooks run around every sample in order with
 * warm-up metrics dropped, and a backend brackets the release and may replace
 * the duration; their samples are kept whole (no sub-chunk censoring).  Tiny
 * windows (2 ms samples) keep it short. */
#include "lat_test.h"

#include "latlab/bench.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct shared {
    atomic_uint_fast64_t tally; /* every operation, counted a second way */
    atomic_uint seen[8];        /* thread_index -> times seen this sample */
    atomic_uint role_seen[2][4];
    int before, after; /* lifecycle calls on this context */
} shared;

typedef struct harness_log {
    char order[8192];
    size_t len;
    int prepares, releases;
    uint32_t warm_after, meas_after;
    int begins, ends, collects;
} harness_log;

static void hlog(harness_log *h, char c) {
    if (h->len + 1 < sizeof h->order) h->order[h->len++] = c;
}

static int c_prepare(void *arg, uint32_t threads, void **ctx) {
    harness_log *h = arg;
    assert_int_equal(threads, 3);
    shared *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    h->prepares++;
    hlog(h, 'P');
    *ctx = s;
    return 0;
}
static void c_release(void *arg, void *ctx) {
    harness_log *h = arg;
    shared *s = ctx;
    /* Every thread ran exactly once in this sample. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(atomic_load(&s->seen[i]), 1);
    assert_int_equal(atomic_load(&s->role_seen[0][0]), 1);
    assert_int_equal(atomic_load(&s->role_seen[0][1]), 1);
    assert_int_equal(atomic_load(&s->role_seen[1][0]), 1);
    assert_int_equal(s->before, 1);
    assert_int_equal(s->after, 1);
    h->releases++;
    hlog(h, 'R');
    free(s);
}

static void worker(void *ctx, const lat_bench_control *ctl, lat_bench_worker_result *out) {
    shared *s = ctx;
    atomic_fetch_add(&s->seen[ctl->thread_index], 1);
    atomic_fetch_add(&s->role_seen[ctl->role_index][ctl->role_thread_index], 1);
    uint64_t ops = 0;
    while (!lat_bench_should_stop(ctl)) {
        ops++;
        atomic_fetch_add_explicit(&s->tally, 1, memory_order_relaxed);
        lat_bench_record_ns(ops % 100);
    }
    out->operations = ops;
    lat_bench_count(out, "half", ops / 2);
    lat_bench_count(out, "one", 1);
    lat_bench_count(out, "one", 1); /* same name adds */
}

static void before(void *ud, void *ctx, const lat_bench_sample_info *info) {
    (void)info;
    shared *s = ctx;
    s->before++;
    hlog(ud, 'B');
}
static void after(void *ud, void *ctx, const lat_bench_sample_info *info, lat_bench_metrics *m) {
    harness_log *h = ud;
    shared *s = ctx;
    s->after++;
    hlog(h, 'A');
    if (info->phase == LAT_BENCH_WARMUP) {
        assert_int_equal(info->index, h->warm_after);
        h->warm_after++;
        lat_bench_metric(m, "tally", -1, "ops"); /* must be dropped */
    } else {
        assert_int_equal(info->index, h->meas_after);
        h->meas_after++;
        lat_bench_metric(m, "tally", (double)atomic_load(&s->tally), "ops");
    }
}
static int b_begin(void *ud) {
    harness_log *h = ud;
    h->begins++;
    hlog(h, '[');
    return 0;
}
static int b_end(void *ud) {
    harness_log *h = ud;
    h->ends++;
    hlog(h, ']');
    return 0;
}
static int b_collect(void *ud, lat_bench_metrics *m, uint64_t *dur) {
    harness_log *h = ud;
    h->collects++;
    hlog(h, 'C');
    lat_bench_metric(m, "window_ms", (double)*dur / 1e6, "ms");
    return 0;
}

static lat_bench_config tiny(void) {
    lat_bench_config c;
    lat_bench_config_default(&c);
    c.sample_duration_ns = 2000000; /* 2 ms */
    c.warm_up_ns = 4000000;
    c.budget_ns = 10000000; /* 5 samples */
    c.min_samples = 4;
    c.max_samples = 6;
    c.pin = false;
    c.counters = false;
    return c;
}

static const lat_bench_worker workers[] = {{"left", 2, worker}, {"right", 1, worker}};

static void test_totals_equal_worker_sums(void **state) {
    (void)state;
    harness_log *h = calloc(1, sizeof *h);
    lat_bench_config cfg = tiny();
    lat_bench_runner *r;
    assert_int_equal(lat_bench_runner_create("mt", &cfg, &r), 0);
    lat_bench_group *g = lat_bench_concurrent_group_create(r, "conc");
    assert_non_null(g);
    assert_int_equal(lat_bench_group_lifecycle(g, &(lat_bench_lifecycle){before, after, h}), 0);
    assert_int_equal(lat_bench_group_domain(g, LAT_BENCH_IO), 0);
    assert_int_equal(lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){.name = "pair",
                                                                             .workers = workers,
                                                                             .n_workers = 2,
                                                                             .prepare = c_prepare,
                                                                             .release = c_release,
                                                                             .arg = h}),
                     0);
    /* A standard def cannot go into a concurrent group. */
    assert_int_equal(lat_bench_add(g, &(lat_bench_def){.name = "x", .fn = NULL}), -EINVAL);
    assert_int_equal(lat_bench_run(r), 0);
    const lat_bench_result *res = &lat_bench_runner_report(r)->results[0];
    assert_int_equal(res->kind, LAT_BENCH_CONCURRENT);
    assert_int_equal(res->domain, LAT_BENCH_IO);
    assert_int_equal(res->n, 5);
    assert_int_equal(res->n_roles, 2);
    assert_string_equal(res->roles[0].name, "left");
    assert_int_equal(res->roles[0].threads, 2);

    /* Per sample: roles add up to the combined count, which equals the tally. */
    assert_int_equal(res->n_metrics, 1);
    const lat_bench_series *tally = &res->metrics[0];
    assert_int_equal(tally->n, res->n);
    uint64_t total = 0, role_total[2] = {0, 0};
    for (uint32_t i = 0; i < res->n; i++) {
        assert_true(res->ops[i] == res->roles[0].ops[i] + res->roles[1].ops[i]);
        assert_true((double)res->ops[i] == tally->values[i]);
        /* Concurrent samples are not censored: kept whole. */
        assert_true(res->kept_share[i] == 1);
        assert_true(res->raw_ns_per_op[i] == res->ns_per_op[i]);
        total += res->ops[i];
        role_total[0] += res->roles[0].ops[i];
        role_total[1] += res->roles[1].ops[i];
    }
    assert_true(total == res->total_ops);
    assert_true(total > 0); /* a sample may see no operation on a loaded machine; all cannot */
    assert_true(role_total[0] == res->roles[0].total_ops);
    assert_true(role_total[1] == res->roles[1].total_ops);

    /* Event counters: per role, over all samples. */
    for (int ro = 0; ro < 2; ro++) {
        const lat_bench_role *role = &res->roles[ro];
        assert_int_equal(role->n_events, 2);
        assert_string_equal(role->events[0].name, "half");
        assert_string_equal(role->events[1].name, "one");
        assert_true(role->events[1].total == 2ull * role->threads * res->n);
        /* half = ops / 2 per thread per sample: rounding loses at most 1/2 each. */
        double slack =
            0.5 * role->threads * res->n / (double)(role->total_ops ? role->total_ops : 1);
        assert_true(role->events[0].per_op <= 0.5 + 1e-12);
        assert_true(role->events[0].per_op >= 0.5 - slack - 1e-12);
        assert_true(role->events[1].per_sec > 0);
    }
    /* Lifecycle: P B A R per sample (warm-up first), warm-up metrics dropped. */
    assert_int_equal(h->meas_after, res->n);
    assert_int_equal(h->warm_after, res->warmup_samples);
    assert_true(res->warmup_samples >= 1);
    uint32_t samples = res->warmup_samples + res->n;
    assert_int_equal(h->len, 4 * samples);
    for (uint32_t i = 0; i < samples; i++)
        assert_memory_equal(h->order + 4 * i, "PBAR", 4);
    assert_int_equal(h->prepares, (int)samples);
    /* Per-op latencies recorded by workers during measurement only. */
    assert_true(res->tail.count == res->total_ops);
    /* Latency per thread = duration * threads / ops. */
    for (uint32_t i = 0; i < res->n; i++)
        if (res->ops[i])
            assert_true(fabs(res->ns_per_op[i] - res->duration_ns[i] * 3 / (double)res->ops[i]) <
                        1e-6 * res->ns_per_op[i]);
    lat_bench_runner_destroy(r);
    free(h);
}

static void test_backend_brackets_release(void **state) {
    (void)state;
    harness_log *h = calloc(1, sizeof *h);
    lat_bench_config cfg = tiny();
    cfg.warm_up_ns = 0;
    lat_bench_runner *r;
    assert_int_equal(lat_bench_runner_create("mt", &cfg, &r), 0);
    lat_bench_group *g = lat_bench_concurrent_group_create(r, "conc");
    assert_int_equal(lat_bench_group_sample_duration(g, 1000000), 0);
    assert_int_equal(lat_bench_group_lifecycle(g, &(lat_bench_lifecycle){before, after, h}), 0);
    assert_int_equal(
        lat_bench_group_backend(g, &(lat_bench_backend){"b", b_begin, b_end, b_collect, h}), 0);
    assert_int_equal(lat_bench_group_metadata(g, "direct_io", "false"), 0);
    assert_int_equal(lat_bench_add_concurrent(g, &(lat_bench_concurrent_def){.name = "pair",
                                                                             .workers = workers,
                                                                             .n_workers = 2,
                                                                             .prepare = c_prepare,
                                                                             .release = c_release,
                                                                             .arg = h}),
                     0);
    assert_int_equal(lat_bench_run(r), 0);
    const lat_bench_result *res = &lat_bench_runner_report(r)->results[0];
    assert_int_equal(res->warmup_samples, 0);
    assert_int_equal(res->sample_duration_ns, 1000000);
    /* 1 ms samples, budget 10 ms: 10 wanted, clamped to max 6. */
    assert_int_equal(res->n, 6);
    assert_int_equal(h->len, 7 * res->n);
    for (uint32_t i = 0; i < res->n; i++)
        assert_memory_equal(h->order + 7 * i, "PB[]ACR", 7);
    assert_int_equal(res->n_metrics, 2);
    assert_string_equal(res->metrics[1].name, "window_ms");
    assert_true(res->metrics[1].stats.min >= 1.0); /* at least the 1 ms window */
    assert_int_equal(res->n_meta, 1);
    lat_bench_runner_destroy(r);
    free(h);
}

static void test_counter_limit(void **state) {
    (void)state;
    lat_bench_worker_result w = {0};
    static const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    for (int i = 0; i < 8; i++)
        assert_int_equal(lat_bench_count(&w, names[i], 1), 0);
    assert_int_equal(lat_bench_count(&w, names[8], 1), -ENOSPC);
    assert_int_equal(lat_bench_count(&w, "a", 1), 0);
    assert_true(w.counters[0].value == 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals_equal_worker_sums),
        cmocka_unit_test(test_backend_brackets_release),
        cmocka_unit_test(test_counter_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
