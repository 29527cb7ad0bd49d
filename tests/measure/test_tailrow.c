/* test_tailrow.c - a stage's live tail for `latlab top` (measure/tailrow.c),
 * from intervals with known values: the last interval's count, p50, p99,
 * p99.9 and max, the cumulative p99.9 over every interval taken, the
 * printed row (values divided by the scale), the sparkline (scaled between
 * the shown values' min and max, only the last minute, at most width
 * bars), and a failed write reported with its errno (-ENOSPC on /dev/full,
 * once -EIO). */
#include "lat_test.h"

#include "latlab/tailrow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BAR_LOW "\u2581"
#define BAR_HIGH "\u2588"

/* Take an interval [start, start+1) s holding n values v (twice: n2 of v2). */
static void take(lat_tailrow *r, double start, int64_t v, int64_t n, int64_t v2, int64_t n2) {
    lat_hlog_interval iv;
    memset(&iv, 0, sizeof iv);
    iv.start_s = start;
    iv.length_s = 1;
    assert_int_equal(lat_hist_init(&iv.hist, 1, 1000000, 3), 0);
    lat_hist_record_n(&iv.hist, v, n);
    if (n2) lat_hist_record_n(&iv.hist, v2, n2);
    assert_int_equal(lat_tailrow_take(r, &iv), 0);
    lat_hist_fini(&iv.hist);
}

static void test_figures_and_row(void **state) {
    (void)state;
    lat_tailrow r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "stage");
    assert_false(r.have);
    take(&r, 1, 100, 999, 1000, 1); /* the one 1000 is the max, past p99.9 */
    assert_true(r.have);
    assert_int_equal(r.count, 1000);
    assert_int_equal(r.p50, 100);
    assert_int_equal(r.p99, 100);
    assert_int_equal(r.p999, 100);
    assert_int_equal(r.max, 1000);
    take(&r, 2, 200, 1000, 0, 0);
    assert_int_equal(r.count, 1000); /* the last interval's, not a sum */
    assert_int_equal(r.p999, 200);
    assert_int_equal(r.max, 200);
    /* cumulative: 999 x 100, 1000 x 200, 1 x 1000: rank 1998 of 2000 is 200 */
    assert_int_equal(r.cum_p999, 200);
    assert_true(r.end_s == 3.0);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(lat_tailrow_print(&r, 10, f), 0);
    fclose(f);
    assert_string_equal(buf, "3.000 stage count=1000 p50=20.000 p99=20.000 p99.9=20.000 "
                             "max=20.000 cum_p99.9=20.000\n");
    free(buf);

    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        assert_int_equal(lat_tailrow_print(&r, 10, full), -ENOSPC);
        fclose(full);
    }
    lat_tailrow_fini(&r);
}

static void test_sparkline(void **state) {
    (void)state;
    lat_tailrow r;
    memset(&r, 0, sizeof r);
    char sp[LAT_TAILROW_SPARK_N * 4 + 1];
    lat_tailrow_spark(&r, sp, sizeof sp, 10);
    assert_string_equal(sp, ""); /* nothing taken */
    take(&r, 0, 1000, 10, 0, 0);
    take(&r, 1, 200, 10, 0, 0);
    take(&r, 2, 600, 10, 0, 0);
    lat_tailrow_spark(&r, sp, sizeof sp, 10);
    assert_string_equal(sp, BAR_HIGH BAR_LOW "\u2584"); /* (600-200)*7/800 = 3 */
    lat_tailrow_spark(&r, sp, sizeof sp, 2);            /* the last two, scaled between them */
    assert_string_equal(sp, BAR_LOW BAR_HIGH);
    take(&r, 100, 300, 10, 0, 0); /* the others fall out of the last minute */
    lat_tailrow_spark(&r, sp, sizeof sp, 10);
    assert_string_equal(sp, BAR_LOW);
    lat_tailrow_fini(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_and_row),
        cmocka_unit_test(test_sparkline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
