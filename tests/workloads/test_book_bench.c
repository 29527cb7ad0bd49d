/* test_book_bench.c - the order-book bench's diagnosis rules (bench_diag.h)
 * on constructed figures: each rule fires on a case that meets it and stays
 * quiet just on the other side of its threshold; "identified" follows the
 * rules that explain a tail; and the tail paragraph (bench_report.h) says
 * what fired and gives the PMU advice only as the caller states it. */
#include "lat_test.h"

#include "bench_diag.h"
#include "bench_report.h"

#include <math.h>
#include <string.h>

/* A quiet run: 1000 ops of two kinds, in proportion in the tail, on its CPU
 * all the time, no interruptions, max 2x the p99.9 value. */
static book_diag_in quiet(void) {
    book_diag_in in;
    memset(&in, 0, sizeof in);
    in.ops = 1000;
    in.ops_by_kind[BOOK_OPK_PASSIVE] = 800;
    in.ops_by_kind[BOOK_OPK_CANCEL] = 200;
    in.tail_samples = 10;
    in.tail_by_kind[BOOK_OPK_PASSIVE] = 8;
    in.tail_by_kind[BOOK_OPK_CANCEL] = 2;
    in.mean_events = 2;
    in.tail_mean_events = 2;
    in.elapsed_s = 1;
    in.cpu_s = 1;
    in.p50_ns = 100, in.tail_threshold_ns = 1000, in.max_ns = 2000;
    in.steal_ms = -1;
    return in;
}

static book_diag diag(const book_diag_in *in) {
    book_diag d;
    book_diagnose(in, &d);
    return d;
}

static void test_quiet(void **st) {
    (void)st;
    book_diag_in in = quiet();
    book_diag d = diag(&in);
    assert_int_equal(d.kind, -1);
    assert_false(d.more_work || d.waited || d.off_cpu || d.stall || d.backlog || d.identified);
    assert_true(d.cpu_known);
    assert_true(fabs(d.cpu_share - 1) < 1e-12);
    assert_true(fabs(d.max_over_tail - 2) < 1e-12);
}

/* KIND: >= half of the tail and >= 1.5x its share of all ops. */
static void test_kind(void **st) {
    (void)st;
    book_diag_in in = quiet();
    in.tail_by_kind[BOOK_OPK_PASSIVE] = 2;
    in.tail_by_kind[BOOK_OPK_CANCEL] = 8; /* 80% vs 20% */
    book_diag d = diag(&in);
    assert_int_equal(d.kind, BOOK_OPK_CANCEL);
    assert_true(fabs(d.kind_ratio - 4) < 1e-12);
    assert_true(d.identified);
    /* 1.5x over-represented but under half the tail: quiet */
    in = quiet();
    in.ops_by_kind[BOOK_OPK_PASSIVE] = 700;
    in.ops_by_kind[BOOK_OPK_CANCEL] = 200;
    in.ops_by_kind[BOOK_OPK_MARKET] = 100;
    in.tail_by_kind[BOOK_OPK_PASSIVE] = 6;
    in.tail_by_kind[BOOK_OPK_CANCEL] = 0;
    in.tail_by_kind[BOOK_OPK_MARKET] = 4; /* 40% of the tail, 4x its share */
    assert_int_equal(diag(&in).kind, -1);
    /* most of the tail but in proportion (0.8 / 0.8): quiet */
    in = quiet();
    assert_int_equal(diag(&in).kind, -1);
    /* the bounds are inclusive (exact binary fractions): 75% of the tail at
     * exactly 1.5x its 50% share fires, and so does exactly half the tail */
    in = quiet();
    in.ops_by_kind[BOOK_OPK_PASSIVE] = 500;
    in.ops_by_kind[BOOK_OPK_CANCEL] = 500;
    in.tail_samples = 8;
    in.tail_by_kind[BOOK_OPK_PASSIVE] = 2;
    in.tail_by_kind[BOOK_OPK_CANCEL] = 6;
    assert_int_equal(diag(&in).kind, BOOK_OPK_CANCEL);
    in.tail_by_kind[BOOK_OPK_CANCEL] = 5; /* 62.5%: 1.25x */
    assert_int_equal(diag(&in).kind, -1);
    in.ops_by_kind[BOOK_OPK_PASSIVE] = 750;
    in.ops_by_kind[BOOK_OPK_CANCEL] = 250;
    in.tail_by_kind[BOOK_OPK_PASSIVE] = 4;
    in.tail_by_kind[BOOK_OPK_CANCEL] = 4; /* 50% of the tail, 2x */
    assert_int_equal(diag(&in).kind, BOOK_OPK_CANCEL);
    /* no tail samples: nothing to attribute */
    in.tail_samples = 0;
    assert_int_equal(diag(&in).kind, -1);
}

static void test_more_work(void **st) {
    (void)st;
    book_diag_in in = quiet();
    in.tail_mean_events = 3; /* 1.5x */
    assert_true(diag(&in).more_work);
    assert_true(diag(&in).identified);
    in.tail_mean_events = 2.9;
    assert_false(diag(&in).more_work);
    in.mean_events = 0;
    in.tail_mean_events = 5; /* no events at all: no ratio */
    assert_false(diag(&in).more_work);
}

/* WAITED under 90% on a CPU; OFF_CPU under 50% with the tail > 20x p50. */
static void test_cpu_share(void **st) {
    (void)st;
    book_diag_in in = quiet();
    in.cpu_s = 0.89;
    book_diag d = diag(&in);
    assert_true(d.waited);
    assert_false(d.off_cpu || d.identified);
    in.cpu_s = 0.9;
    assert_false(diag(&in).waited);
    in.cpu_s = 0.4;
    in.tail_threshold_ns = 2001; /* > 20 x 100 */
    d = diag(&in);
    assert_true(d.waited && d.off_cpu && d.identified);
    assert_true(fabs(d.tail_over_p50 - 20.01) < 1e-9);
    in.tail_threshold_ns = 2000; /* exactly 20x: not more */
    assert_false(diag(&in).off_cpu);
    in.tail_threshold_ns = 5000;
    in.cpu_s = 0.5; /* half the window: not most */
    assert_false(diag(&in).off_cpu);
    in.cpu_s = 0; /* unknown CPU time: no share, no rule */
    d = diag(&in);
    assert_false(d.cpu_known || d.waited || d.off_cpu);
    in.cpu_s = 3; /* more CPU than wall (several threads' rounding): capped */
    assert_true(fabs(diag(&in).cpu_share - 1) < 1e-12);
}

/* STALL: something took the CPU and the max is > 20x the p99.9 value. */
static void test_stall(void **st) {
    (void)st;
    book_diag_in in = quiet();
    in.max_ns = 20001;
    assert_false(diag(&in).stall); /* nothing took the CPU */
    in.invol_switches = 1;
    book_diag d = diag(&in);
    assert_true(d.stall);
    assert_int_equal(d.interruptions, 1);
    assert_false(d.identified); /* consistent with, not explained by */
    in.max_ns = 20000;
    assert_false(diag(&in).stall);
    in = quiet();
    in.max_ns = 30000;
    in.steal_ms = 5; /* stolen time alone */
    assert_true(diag(&in).stall);
    in.steal_ms = 0;
    assert_false(diag(&in).stall);
    in.minor_faults = 2;
    in.major_faults = 1;
    in.vol_switches = 3;
    assert_int_equal(diag(&in).interruptions, 6);
}

/* BACKLOG: open loop, more than 10% of the ops late. */
static void test_backlog(void **st) {
    (void)st;
    book_diag_in in = quiet();
    in.late_ops = 500;
    assert_false(diag(&in).backlog); /* closed loop: no such thing */
    in.open_loop = 1;
    book_diag d = diag(&in);
    assert_true(d.backlog && d.identified);
    assert_true(fabs(d.late_pct - 50) < 1e-12);
    in.late_ops = 100; /* exactly 10% */
    assert_false(diag(&in).backlog);
    in.late_ops = 101;
    assert_true(diag(&in).backlog);
}

/* The paragraph names what fired and states no host fact it was not given. */
static void test_paragraph(void **st) {
    (void)st;
    book_bench_outcome o;
    memset(&o, 0, sizeof o);
    book_bench_result *r = &o.r;
    assert_int_equal(lat_hist_init(&r->total, 1, 1000000000, 3), 0);
    for (int i = 0; i < 1000; i++)
        lat_hist_record(&r->total, i < 990 ? 100 : 5000);
    r->health.ops = 1000;
    r->ops_by_kind[BOOK_OPK_PASSIVE] = 1000;
    r->tail_by_kind[BOOK_OPK_PASSIVE] = 10;
    r->tail_samples = 10;
    r->tail_threshold_ns = 5000;
    r->elapsed_s = 1;
    r->cpu_s = 0.3;
    r->steal_ms = -1;
    o.counted = true;
    char buf[4096];
    book_bench_tail_text(buf, sizeof buf, &o, NULL);
    assert_non_null(strstr(buf, "10 samples lie at or above p99.9 (5000 ns)"));
    assert_non_null(strstr(buf, "made 0 allocation calls (counted)"));
    assert_null(strstr(buf, "timer's own floor")); /* the method is said once, elsewhere */
    assert_non_null(strstr(buf, "waiting to run is the dominant contributor"));
    assert_null(strstr(buf, "not yet identified"));
    r->cpu_s = 1;
    book_bench_tail_text(buf, sizeof buf, &o, NULL);
    assert_non_null(strstr(buf, "not yet identified"));
    assert_null(strstr(buf, "PMU"));
    book_bench_tail_method(buf, sizeof buf, NULL);
    assert_non_null(strstr(buf, "(perf stat -e cache-misses,branch-misses) and compare"));
    assert_null(strstr(buf, "PMU"));
    book_bench_tail_method(buf, sizeof buf, "this host exposes no hardware PMU");
    assert_non_null(strstr(buf, "branch-misses; this host exposes no hardware PMU) and"));
    lat_hist_fini(&r->total);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet),     cmocka_unit_test(test_kind),
        cmocka_unit_test(test_more_work), cmocka_unit_test(test_cpu_share),
        cmocka_unit_test(test_stall),     cmocka_unit_test(test_backlog),
        cmocka_unit_test(test_paragraph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
