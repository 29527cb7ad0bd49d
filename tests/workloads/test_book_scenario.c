/* test_book_scenario.c - the benchmark scenarios: generators that do what
 * their names say (workload health), and no allocation in the measured
 * window (counting allocator). */
#include "lat_test.h"

#include "scenario.h"

#include <string.h>

static uint64_t window_allocs;
static void window(int begin, void *ud) {
    (void)ud;
    if (begin)
        lat_alloc_count_begin();
    else
        window_allocs = lat_alloc_count_end();
}

static void run(book_scn s, double rate, book_bench_result *r) {
    book_bench_cfg cfg = {.seed = 0xA5A5A5A5, .warmup = 2000, .measured = 20000, .window = window};
    cfg.open_loop_rate = rate;
    memset(r, 0, sizeof *r);
    window_allocs = 12345;
    assert_int_equal(book_bench_run(s, &cfg, r), 0);
    assert_int_equal(lat_hist_total(&r->total), 20000);
    assert_int_equal(r->health.ops, 20000);
}

static void test_health(void **state) {
    (void)state;
    book_bench_result r;
    for (int s = 0; s < BOOK_SCN_COUNT; s++) {
        run((book_scn)s, 0, &r);
        const book_bench_health *h = &r.health;
        printf(
            "%-18s crossing %llu/%llu cancel misses %llu/%llu empty %llu depth %.1f trades %llu\n",
            book_scn_name((book_scn)s), (unsigned long long)h->crossing_submits,
            (unsigned long long)h->submits, (unsigned long long)h->cancel_misses,
            (unsigned long long)h->cancels, (unsigned long long)h->empty_book_ops, h->mean_depth,
            (unsigned long long)h->trades);
        assert_int_equal(h->cancel_misses, 0); /* cancels always target live orders */
        assert_int_equal(h->empty_book_ops, 0);
        switch (s) {
        case BOOK_SCN_ADD_ONLY:
            assert_int_equal(h->crossing_submits, 0); /* never crosses */
            assert_int_equal(h->submits, 20000);
            assert_int_equal(h->trades, 0);
            break;
        case BOOK_SCN_CANCEL_ONLY:
            assert_int_equal(h->cancels, 20000);
            assert_true(h->mean_depth > 9990 && h->mean_depth <= 10000);
            break;
        case BOOK_SCN_AGGRESSIVE_WALK:
            assert_int_equal(h->crossing_submits, 20000);
            assert_true(h->trades >= 2 * 20000); /* walks cross levels */
            assert_true(h->mean_depth > 450);    /* the ladder is refilled */
            break;
        case BOOK_SCN_MIXED:
            assert_true(h->submits > 13000 && h->submits < 15000);
            assert_true(h->cancels > 3500 && h->cancels < 4500);
            assert_true(h->crossing_submits < h->submits / 10);
            assert_true(h->mean_depth > 2500 && h->mean_depth < 7500);
            break;
        case BOOK_SCN_THIN_BOOK_SWEEP:
            assert_true(h->mean_depth >= 5.5);
            break;
        case BOOK_SCN_MASS_CANCEL_BURST:
            assert_true(h->mean_depth > 1990);
            break;
        case BOOK_SCN_SNAPSHOT_CAPTURE:
            assert_int_equal(r.ops_by_kind[BOOK_OPK_SNAPSHOT], 10000);
            assert_int_equal(r.ops_by_kind[BOOK_OPK_PACKAGE], 10000);
            break;
        }
        book_bench_result_fini(&r);
    }
}

static void test_no_allocation_in_window(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable under sanitizers");
    book_bench_result r;
    for (int s = 0; s < BOOK_SCN_COUNT; s++) {
        run((book_scn)s, 0, &r);
        printf("%-18s allocations in the measured window: %llu\n", book_scn_name((book_scn)s),
               (unsigned long long)window_allocs);
        assert_int_equal(window_allocs, 0);
        book_bench_result_fini(&r);
    }
    run(BOOK_SCN_MIXED, 2e6, &r); /* open loop too */
    assert_int_equal(window_allocs, 0);
    assert_true(r.open_loop);
    book_bench_result_fini(&r);
}

static void test_bad_args(void **state) {
    (void)state;
    book_bench_result r;
    memset(&r, 0, sizeof r);
    book_bench_cfg cfg = {.measured = 0};
    assert_int_equal(book_bench_run(BOOK_SCN_MIXED, &cfg, &r), -22);
    cfg.measured = 10;
    assert_int_equal(book_bench_run(BOOK_SCN_COUNT, &cfg, &r), -22);
    assert_int_equal(book_scn_from_name("mixed_70_20_10"), BOOK_SCN_MIXED);
    assert_int_equal(book_scn_from_name("nope"), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_no_allocation_in_window),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
