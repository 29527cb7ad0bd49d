/* test_censor_pipeline_mt.c - per-sample censoring in a real pipeline run
 * (compact, two pinned hot threads): a hot thread made to sleep 3 x 2 ms
 * (the test hook) censors exactly the samples due during each sleep, blamed
 * on the thread that slept; a sleep inside the worker's work window censors
 * that sample's work figure (the rseq preemption probe) and the samples
 * queued behind it; a worker that reaches its loop after the run's start
 * has the samples due meanwhile censored on it; the run's kept/censored
 * accounting adds up (per stage, histograms, intervals).  Three tries each:
 * a loaded machine's own gaps can land on the same samples. */
#include "lat_test.h"

#include "latlab/censor.h"
#include "latlab/pipeline.h"
#include "latlab/preempt.h"
#include "latlab/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NEV 40000

typedef struct seen {
    uint64_t t[NEV][4]; /* t0, tp, t1, t2 */
    uint8_t why[NEV][LAT_PIPE_NSTAGES];
    unsigned who[NEV][LAT_PIPE_NSTAGES];
    size_t n;
} seen;

static void hook(void *ud, const uint64_t *t, const uint8_t *why, const unsigned *who) {
    seen *s = ud;
    if (s->n >= NEV) return;
    memcpy(s->t[s->n], t, sizeof s->t[0]);
    memcpy(s->why[s->n], why, sizeof s->why[0]);
    memcpy(s->who[s->n], who, sizeof s->who[0]);
    s->n++;
}

static void config(lat_pipe_config *c, seen *s, int role, bool in_work) {
    lat_pipe_config_default(c);
    c->events = NEV;
    c->rate_hz = 100000;
    c->perf = false;
    c->interval_ns = 50000000;
    c->sleep_role = role;
    c->sleep_in_work = in_work;
    c->sleep_seq = 5000, c->sleep_every = 10000, c->sleep_count = 3, c->sleep_ns = 2000000;
    c->censor_hook = hook;
    c->censor_ud = s;
}

/* The result's censoring adds up: per stage kept + censored = judged, the
 * histograms hold them, the intervals' kept counts sum to the kept. */
static void check_accounting(const lat_pipe_result *r, size_t hooked) {
    assert_int_equal(r->censor_judged + r->censor_unjudged, r->recorded);
    assert_int_equal(r->censor_judged, hooked);
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        const lat_pipe_censor_fig *f = &r->censor[s];
        if (!r->h[s]) {
            assert_null(f->net);
            continue;
        }
        assert_int_equal(f->kept + f->by_gap + f->by_backlog + f->unknown, r->censor_judged);
        assert_int_equal(lat_hist_total(f->net), f->kept);
        assert_int_equal(lat_hist_total(f->cens), r->censor_judged - f->kept);
        uint64_t iv = 0;
        for (size_t i = 0; i < r->niv; i++)
            iv += r->iv[i].kept[s];
        assert_int_equal(iv, f->kept);
        assert_true(f->kept_time_share >= 0 && f->kept_time_share <= 1.0 + 1e-9);
    }
}

/* Samples due during each sleep: how many, and how many of them had their
 * q1+wake and e2e censored by a gap of `role` (and, with in_work, the one
 * sample whose work window held the sleep: its work censored by the worker). */
static bool check_sleeps(const lat_pipe_result *r, const seen *s, int role, bool in_work) {
    unsigned bit = 1u << role;
    size_t due = 0, blamed = 0, work_hit = 0;
    for (unsigned k = 0; k < r->nsleeps; k++) {
        uint64_t a = r->sleeps[k][0], b = r->sleeps[k][1];
        for (size_t i = 0; i < s->n; i++) {
            const uint64_t *t = s->t[i];
            if (in_work && t[2] <= a && t[3] >= b)
                work_hit += s->why[i][LAT_PIPE_WORK] == LAT_CENSOR_GAP &&
                            s->who[i][LAT_PIPE_WORK] == (1u << LAT_PIPE_WORKER);
            if (t[0] < a || t[0] >= b) continue;
            due++;
            blamed += s->why[i][LAT_PIPE_Q1] == LAT_CENSOR_GAP && (s->who[i][LAT_PIPE_Q1] & bit) &&
                      s->why[i][LAT_PIPE_E2E] == LAT_CENSOR_GAP;
        }
    }
    const lat_pipe_censor_fig *q1 = &r->censor[LAT_PIPE_Q1];
    printf("role %d%s: %u sleeps, %zu samples due in them, %zu blamed on it; work hit %zu; "
           "q1 kept %lu of %lu\n",
           role, in_work ? " (in work)" : "", r->nsleeps, due, blamed, work_hit,
           (unsigned long)q1->kept, (unsigned long)r->censor_judged);
    /* 2 ms at 100,000/s: about 200 samples due in each sleep, every one censored */
    bool ok = r->nsleeps == 3 && due >= 3 * 150 && blamed == due;
    ok = ok && q1->by_thread[role] >= due && q1->kept <= r->censor_judged - due;
    if (in_work) ok = ok && work_hit == 3;
    return ok;
}

static void run_case(int role, bool in_work) {
    lat_pipe_config c;
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    config(&c, s, role, in_work);
    if (!lat_test_place_compact(&c)) {
        free(s);
        LAT_SKIP("needs 2 CPUs for two pinned hot threads");
    }
    bool ok = false;
    for (int t = 0; t < 3 && !ok; t++) {
        s->n = 0;
        lat_pipe_result r;
        assert_int_equal(lat_pipe_run(&c, &r), 0);
        check_accounting(&r, s->n);
        ok = check_sleeps(&r, s, role, in_work);
        lat_pipe_result_fini(&r);
    }
    free(s);
    assert_true(ok);
}

static void test_worker_sleep_censored_on_worker(void **st) {
    (void)st;
    run_case(LAT_PIPE_WORKER, false);
}

static void test_producer_sleep_censored_on_producer(void **st) {
    (void)st;
    run_case(LAT_PIPE_PRODUCER, false);
}

static void test_sleep_inside_work_censored(void **st) {
    (void)st;
    lat_preempt p;
    if (lat_preempt_init(&p) != 0) LAT_SKIP("no rseq registration: gaps inside work are not seen");
    run_case(LAT_PIPE_WORKER, true);
}

/* The worker's set-up sleeps 5 ms (the thread hook): it reaches its loop
 * about 4 ms after the run's start, so the stretch it missed is its first gap
 * and the samples due meanwhile are censored on it, not kept with ms of
 * q1+wake. */
static void late_start(void *ud, int role, int begin) {
    (void)ud;
    struct timespec ts = {0, 5000000};
    if (role == LAT_PIPE_WORKER && begin) nanosleep(&ts, NULL);
}

static void test_late_loop_start_censored(void **st) {
    (void)st;
    lat_pipe_config c;
    seen *s = calloc(1, sizeof *s);
    assert_non_null(s);
    config(&c, s, LAT_PIPE_WORKER, false);
    c.sleep_count = 0;
    c.thread_hook = late_start;
    if (!lat_test_place_compact(&c)) {
        free(s);
        LAT_SKIP("needs 2 CPUs for two pinned hot threads");
    }
    lat_pipe_result r;
    assert_int_equal(lat_pipe_run(&c, &r), 0);
    check_accounting(&r, s->n);
    const lat_gaps *g = r.gaps[LAT_PIPE_WORKER];
    assert_true(lat_gaps_kept(g) > 0);
    assert_true(g->list[0].start == r.run_start_cycles);
    uint64_t end = g->list[0].start + g->list[0].len;
    size_t due = 0, blamed = 0;
    for (size_t i = 0; i < s->n && s->t[i][0] < end; i++, due++)
        blamed += s->why[i][LAT_PIPE_Q1] == LAT_CENSOR_GAP &&
                  (s->who[i][LAT_PIPE_Q1] & (1u << LAT_PIPE_WORKER));
    printf("worker late by %.1f us: %zu samples due meanwhile, %zu censored on it\n",
           (double)g->list[0].len / r.cycles_per_ns / 1e3, due, blamed);
    assert_true(due > 0);
    assert_int_equal(blamed, due);
    lat_pipe_result_fini(&r);
    free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_sleep_censored_on_worker),
        cmocka_unit_test(test_producer_sleep_censored_on_producer),
        cmocka_unit_test(test_sleep_inside_work_censored),
        cmocka_unit_test(test_late_loop_start_censored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
