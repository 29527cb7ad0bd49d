/* test_gaps.c - the gap recorder (core/gaps.c): records only gaps at the
 * threshold, ignores a backwards pair, keeps a bounded list and counts the
 * rest, histograms the lengths, matches intervals against the gaps it kept,
 * and allocates nothing while noting. */
#include "lat_test.h"

#include "latlab/alloccount.h"
#include "latlab/gaps.h"

#include <errno.h>
#include <stdint.h>

static void test_gaps_recorder(void **s) {
    (void)s;
    lat_gaps *g = NULL;
    assert_int_equal(lat_gaps_create(4, 0, &g), -EINVAL);
    assert_int_equal(lat_gaps_create(4, 100, &g), 0);
    lat_alloc_count_begin();
    lat_gaps_note(g, 1000, 1099); /* below the threshold */
    lat_gaps_note(g, 2000, 2100); /* exactly at it */
    lat_gaps_note(g, 5000, 9000);
    lat_gaps_note(g, 9000, 8000); /* backwards: ignored */
    for (uint64_t t = 20000; t < 26000; t += 1000)
        lat_gaps_note(g, t, t + 500);
    uint64_t allocs = lat_alloc_count_end();
    if (lat_alloc_count_available()) assert_int_equal(allocs, 0);
    assert_int_equal(g->count, 8);
    assert_int_equal(lat_gaps_kept(g), 4);
    assert_int_equal(g->overflow, 4);
    assert_int_equal(g->longest, 4000);
    assert_int_equal(g->total, 100 + 4000 + 6 * 500);
    assert_int_equal(g->hist[6], 1);  /* 100 in [64, 128) */
    assert_int_equal(g->hist[11], 1); /* 4000 in [2048, 4096) */
    assert_int_equal(lat_gaps_overlap(g, 0, 100000), 100 + 4000 + 2 * 500);
    assert_int_equal(lat_gaps_overlap(g, 6000, 7000), 1000);
    assert_int_equal(lat_gaps_overlap(g, 9000, 20000), 0);
    assert_int_equal(lat_gaps_find(g, 8000, 8001), 1);
    assert_int_equal(lat_gaps_find(g, 9500, 19000), -1);
    lat_gaps_clear(g);
    assert_int_equal(lat_gaps_kept(g), 0);
    lat_gaps_destroy(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaps_recorder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
