/* test_lab_runline.c - the lab's progress line of one run (lat_lab_run_line,
 * lab_report.h): the kept share is on its first line, a set-aside run says
 * why in the censoring's terms (never "CONTAMINATED" nor intervals), and no
 * line is longer than 100 characters however long the platform account. */
#include "lat_test.h"

#include <math.h>
#include <string.h>

#include "latlab/lab_report.h"

static void check_width(const char *s) {
    size_t col = 0;
    for (const char *p = s; *p; p++) {
        col = *p == '\n' ? 0 : col + 1;
        assert_true(col <= 100);
    }
}

static void test_run_line_wraps_and_says_why(void **st) {
    (void)st;
    static lat_lab_session x;
    memset(&x, 0, sizeof x);
    x.cfg.pipe.shape = LAT_PIPE_COMPACT;
    x.gap_us = 10;
    lat_lab_run_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.conf = LAT_LAB_ALLOC, rec.round = 2;
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++)
        rec.p50[s] = 60, rec.p999[s] = 900;
    rec.floor_ns = 120, rec.floor_after_ns = 125;
    rec.kept_work = 0.94;
    rec.cpu.steal_pct = rec.cpu.irq_pct = rec.cpu.softirq_pct = NAN;
    for (int k = 0; k < LAT_PIPE_NHOT; k++) {
        rec.thr[k].ran = k < 2;
        rec.thr[k].gaps = 1234, rec.thr[k].lost_ns = 5e7, rec.thr[k].longest_ns = 4.3e5;
        rec.thr[k].lost_share = 0.11, rec.thr[k].wait_ns = 2e7;
        rec.thr[k].vol = 12, rec.thr[k].invol = 340;
    }
    char buf[2048];
    lat_lab_run_line(&x, &rec, buf, sizeof buf);
    printf("%s\n", buf);
    check_width(buf);
    assert_non_null(strstr(buf, "round  3 alloc"));
    assert_non_null(strstr(buf, "kept 94%"));
    assert_true(strchr(buf, '\n') != NULL); /* the platform account goes on */
    assert_true(strstr(buf, "kept 94%") < strchr(buf, '\n'));
    assert_null(strstr(buf, "CONTAMINATED"));
    assert_null(strstr(buf, "set aside"));
    rec.set_aside = true;
    snprintf(rec.why, sizeof rec.why,
             "set aside: kept 9,412 work samples < 10,000 needed for the p99.9");
    rec.kept_work = NAN;
    lat_lab_run_line(&x, &rec, buf, sizeof buf);
    printf("%s\n", buf);
    check_width(buf);
    assert_non_null(strstr(buf, "kept n/a"));
    assert_non_null(strstr(buf, "set aside: kept 9,412 work samples < 10,000"));
    assert_null(strstr(buf, "nan"));
    lat_lab_run_line(&x, &rec, buf, 40); /* truncated, terminated */
    assert_true(strlen(buf) < 40);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_line_wraps_and_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
