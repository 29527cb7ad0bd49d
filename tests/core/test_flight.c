/* test_flight.c - flight recorder: wrapping, freeze after the trigger, verdicts
 * for "one slow event" vs "a run of queued events", dump marks the outlier,
 * and recording allocates nothing. */
#include "lat_test.h"

#include "latlab/flight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *names3[] = {"q1+wake", "work", "q2+wake"};

/* A baseline event: q1 100, work 95, q2 120 ns (small jitter). */
static lat_flight_sample normal(uint64_t seq) {
    lat_flight_sample s = {.seq = seq};
    s.stage_ns[0] = 100 + seq % 7;
    s.stage_ns[1] = 95 + seq % 3;
    s.stage_ns[2] = 120 + seq % 5;
    s.e2e_ns = s.stage_ns[0] + s.stage_ns[1] + s.stage_ns[2];
    return s;
}

static void fix_e2e(lat_flight_sample *s) {
    s->e2e_ns = s->stage_ns[0] + s->stage_ns[1] + s->stage_ns[2];
}

static void test_create_args(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(NULL, 0, 3, names3, 1000, 0), -EINVAL);
    assert_int_equal(lat_flight_create(&f, 0, 0, names3, 1000, 0), -EINVAL);
    assert_int_equal(lat_flight_create(&f, 0, 5, NULL, 1000, 0), -EINVAL);
    assert_int_equal(lat_flight_create(&f, 1000, 3, NULL, 1000, 0), 0);
    assert_int_equal(f->mask + 1, 1024); /* rounded up to a power of two */
    assert_string_equal(f->names[1], "stage1");
    lat_flight_destroy(f);
    lat_flight_destroy(NULL);
}

static void test_wraps_keeps_last(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 0, 3, names3, LAT_FLIGHT_NONE, 0), 0);
    assert_int_equal(f->mask + 1, 4096);
    for (uint64_t i = 0; i < 10000; i++) {
        lat_flight_sample s = normal(i);
        assert_int_equal(lat_flight_record(f, &s), 0);
    }
    assert_int_equal(lat_flight_count(f), 4096);
    assert_int_equal(lat_flight_at(f, 0)->seq, 10000 - 4096);
    assert_int_equal(lat_flight_at(f, 4095)->seq, 9999);
    assert_null(lat_flight_at(f, 4096));
    assert_false(lat_flight_triggered(f));
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.shape, LAT_FLIGHT_NO_TRIGGER);
    /* without an outlier a context dump shows the most recent samples */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_int_equal(lat_flight_dump(f, m, 5), 0);
    fclose(m);
    size_t lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4 + 5);
    assert_non_null(strstr(buf, "# showing the last 5 samples"));
    assert_non_null(strstr(buf, "   9999 "));
    free(buf);
    lat_flight_destroy(f);
}

static void test_freeze_after_post(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 64, 3, names3, 1000, 8), 0);
    int fired = 0;
    for (uint64_t i = 0; i < 500; i++) {
        lat_flight_sample s = normal(i);
        if (i == 200) {
            s.stage_ns[1] = 50000;
            fix_e2e(&s);
        }
        if (i == 300) { /* a second outlier after the freeze is ignored */
            s.stage_ns[2] = 90000;
            fix_e2e(&s);
        }
        fired += lat_flight_record(f, &s);
    }
    assert_int_equal(fired, 1);
    assert_true(f->frozen);
    assert_int_equal(lat_flight_count(f), 64);
    /* 8 after the trigger, 55 before it. */
    assert_int_equal(lat_flight_at(f, 63)->seq, 208);
    assert_int_equal(lat_flight_at(f, 0)->seq, 145);
    lat_flight_destroy(f);
}

static void test_verdict_one_event_in_work(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 0, 3, names3, 2000, 256), 0);
    for (uint64_t i = 0; i < 20000; i++) {
        lat_flight_sample s = normal(i);
        if (i == 9000) s.stage_ns[1] = 80000; /* allocator slow path */
        /* the events behind it wait in q1 while the worker is busy */
        if (i > 9000 && i < 9010) s.stage_ns[0] = 80000 - (i - 9000) * 5000;
        fix_e2e(&s);
        lat_flight_record(f, &s);
    }
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.shape, LAT_FLIGHT_ONE_EVENT);
    assert_int_equal(v.stage, 1);
    assert_int_equal(v.trigger_seq, 9000);
    assert_int_equal(v.run, 1);
    assert_int_equal(v.after_stage, 0);
    assert_int_equal(v.after_run, 9);
    assert_non_null(strstr(v.text, "one event slow in work"));
    printf("verdict: %s\n", v.text);
    lat_flight_destroy(f);
}

static void test_verdict_run_in_q2(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 0, 3, names3, 2000, 256), 0);
    for (uint64_t i = 0; i < 20000; i++) {
        lat_flight_sample s = normal(i);
        /* consumer stalled for 100 us at seq 7000; events arrive every 5 us */
        if (i >= 7000 && i < 7020) s.stage_ns[2] = 100000 - (i - 7000) * 5000;
        fix_e2e(&s);
        lat_flight_record(f, &s);
    }
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.shape, LAT_FLIGHT_RUN);
    assert_int_equal(v.stage, 2);
    assert_int_equal(v.trigger_seq, 7000);
    assert_int_equal(v.run_first_seq, 7000);
    assert_true(v.run >= 15 && v.run <= 20);
    assert_int_equal(v.run_max_ns, 100000);
    assert_non_null(strstr(v.text, "consecutive events slow in q2+wake"));
    printf("verdict: %s\n", v.text);
    lat_flight_destroy(f);
}

static void test_dump_marks_outlier(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 128, 3, names3, 2000, 16), 0);
    for (uint64_t i = 0; i < 1000; i++) {
        lat_flight_sample s = normal(i);
        if (i == 500) s.stage_ns[1] = 9999;
        fix_e2e(&s);
        lat_flight_record(f, &s);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    assert_int_equal(lat_flight_dump(f, m, 0), 0);
    fclose(m);
    assert_non_null(strstr(buf, "# verdict: one event slow in work"));
    assert_non_null(strstr(buf, ">>          500"));
    assert_non_null(strstr(buf, "<- outlier"));
    /* every window sample is a line: header lines + 128 */
    size_t lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3 + 128);
    free(buf);

    buf = NULL;
    m = open_memstream(&buf, &len);
    assert_int_equal(lat_flight_dump(f, m, 4), 0);
    fclose(m);
    lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4 + 9);
    free(buf);
    assert_int_equal(lat_flight_dump(NULL, stdout, 0), -EINVAL);
    lat_flight_destroy(f);
}

static void test_record_allocates_nothing(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable in this build");
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 0, 3, names3, 1000, 10), 0);
    lat_alloc_count_begin();
    for (uint64_t i = 0; i < 50000; i++) {
        lat_flight_sample s = normal(i);
        if (i == 30000) s.e2e_ns = 5000;
        lat_flight_record(f, &s);
    }
    assert_int_equal(lat_alloc_count_end(), 0);
    lat_flight_destroy(f);
}

/* A backlog draining behind the trigger in a window otherwise filled by a
 * steady backlog: judged against the window's median (140 us) the neighbours
 * at 280 and 170 us look normal (margin 150 us); against the run's baseline
 * (1 us) they are the backlog, a run of three. */
static void test_baseline_calls_backlog(void **state) {
    (void)state;
    static const char *one[] = {"q1+wake"};
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 64, 1, one, 300000, 20), 0);
    uint64_t seq = 0;
    for (int i = 0; i < 30; i++, seq++) {
        lat_flight_sample s = {.seq = seq, .e2e_ns = 140000, .stage_ns = {140000}};
        lat_flight_record(f, &s);
    }
    const uint64_t drain[] = {400000, 280000, 170000, 30000};
    for (int i = 0; i < 4; i++, seq++) {
        lat_flight_sample s = {.seq = seq, .e2e_ns = drain[i], .stage_ns = {drain[i]}};
        lat_flight_record(f, &s);
    }
    for (int i = 0; i < 17; i++, seq++) {
        lat_flight_sample s = {.seq = seq, .e2e_ns = 140000, .stage_ns = {140000}};
        lat_flight_record(f, &s);
    }
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.shape, LAT_FLIGHT_ONE_EVENT); /* the window median: 140 us */
    assert_non_null(strstr(v.text, "window median"));
    lat_flight_set_baseline(f, 0, 1000);
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.shape, LAT_FLIGHT_RUN);
    assert_int_equal(v.run, 3);
    assert_int_equal(v.run_first_seq, 30);
    assert_int_equal(v.run_last_seq, 32);
    assert_non_null(strstr(v.text, "baseline 1000 ns"));
    lat_flight_destroy(f);
}

/* A trigger whose stages all sit near their baselines (a run backed up
 * throughout) is not called one slow event. */
static void test_nothing_stands_out(void **state) {
    (void)state;
    static const char *one[] = {"q1+wake"};
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 64, 1, one, 1000, 8), 0);
    lat_flight_set_baseline(f, 0, 5000);
    for (uint64_t seq = 0; seq < 40; seq++) {
        lat_flight_sample s = {
            .seq = seq, .e2e_ns = seq == 20 ? 1100 : 900, .stage_ns = {seq == 20 ? 5200 : 5000}};
        lat_flight_record(f, &s);
    }
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.trigger_seq, 20);
    assert_non_null(strstr(v.text, "no stage stood out against its baseline"));
    assert_null(strstr(v.text, "one event slow"));
    lat_flight_destroy(f);
}

/* With a drain level the window keeps recording past post while the
 * backlog drains; one that never drains is cut before it would overwrite
 * the trigger, and the verdict says where. */
static void test_drain_keeps_backlog(void **state) {
    (void)state;
    lat_flight *f = NULL;
    assert_int_equal(lat_flight_create(&f, 64, 3, names3, 1000, 4), 0);
    lat_flight_set_drain(f, 500);
    uint64_t seq = 0;
    for (; seq < 10; seq++) {
        lat_flight_sample s = normal(seq);
        lat_flight_record(f, &s);
    }
    lat_flight_sample s = normal(seq++);
    s.stage_ns[1] = 5000; /* the outlier, in work */
    fix_e2e(&s);
    assert_int_equal(lat_flight_record(f, &s), 1);
    for (int i = 0; i < 20; i++) { /* the backlog behind it: 20 above the drain level */
        s = normal(seq++);
        s.stage_ns[0] = 4000 - 150 * (uint64_t)i;
        fix_e2e(&s);
        lat_flight_record(f, &s);
    }
    for (int i = 0; i < 10; i++) {
        s = normal(seq++);
        lat_flight_record(f, &s);
    }
    assert_true(f->frozen);
    assert_int_equal(lat_flight_count(f), 10 + 1 + 20 + 1); /* drained: one normal kept */
    lat_flight_verdict v;
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_int_equal(v.after_stage, 0);
    assert_false(v.run_cut);
    lat_flight_destroy(f);

    /* never drains: cut at 3/4 of the window after the trigger, and said */
    assert_int_equal(lat_flight_create(&f, 64, 3, names3, 1000, 4), 0);
    lat_flight_set_drain(f, 500);
    lat_flight_set_baseline(f, 0, 100); /* the run's q1: the window's is all backlog */
    seq = 0;
    s = normal(seq++);
    s.stage_ns[1] = 5000;
    fix_e2e(&s);
    assert_int_equal(lat_flight_record(f, &s), 1);
    for (int i = 0; i < 200; i++) {
        s = normal(seq++);
        s.stage_ns[0] = 3000;
        fix_e2e(&s);
        lat_flight_record(f, &s);
    }
    assert_true(f->frozen);
    assert_true(f->head - f->trigger_at <= 64 - 1);
    assert_int_equal(lat_flight_at(f, 0)->seq, 0); /* the trigger is still in the window */
    assert_int_equal(lat_flight_analyze(f, &v), 0);
    assert_true(v.run_cut);
    assert_non_null(strstr(v.text, "where the window ends: cut there"));
    lat_flight_destroy(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_args),
        cmocka_unit_test(test_wraps_keeps_last),
        cmocka_unit_test(test_freeze_after_post),
        cmocka_unit_test(test_verdict_one_event_in_work),
        cmocka_unit_test(test_verdict_run_in_q2),
        cmocka_unit_test(test_dump_marks_outlier),
        cmocka_unit_test(test_record_allocates_nothing),
        cmocka_unit_test(test_baseline_calls_backlog),
        cmocka_unit_test(test_drain_keeps_backlog),
        cmocka_unit_test(test_nothing_stands_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
