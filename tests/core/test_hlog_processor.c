/* test_hlog_processor.c - latlab/hlog_processor.h: the range header, the
 * legend and a per-interval line against text worked out by hand (Java's
 * HistogramLogProcessor layout; byte-identity with Java itself is
 * test_hist_interop's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/hlog_processor.h"

static char *buf;
static size_t len;

static FILE *mem(void) {
    free(buf);
    buf = NULL;
    return open_memstream(&buf, &len);
}

static void test_range(void **state) {
    (void)state;
    FILE *f = mem();
    assert_int_equal(lat_hlog_processor_range(f, "Overall", 0, INFINITY, 0), 0);
    fclose(f);
    assert_string_equal(buf, "#[Overall percentile distribution between 0.000 and <Infinite> "
                             "seconds (relative to StartTime)]\n"
                             "#[StartTime: 0.000 (seconds since epoch), Thu Jan 01 00:00:00 UTC "
                             "1970]\n");
    f = mem();
    assert_int_equal(lat_hlog_processor_range(f, "Interval", 1.5, 2.0005, 86400.25), 0);
    fclose(f);
    assert_string_equal(buf, "#[Interval percentile log between 1.500 and 2.001 "
                             "seconds (relative to StartTime)]\n"
                             "#[StartTime: 86400.250 (seconds since epoch), Fri Jan 02 00:00:00 "
                             "UTC 1970]\n");
}

static void test_legend(void **state) {
    (void)state;
    FILE *f = mem();
    assert_int_equal(lat_hlog_processor_legend(f, true), 0);
    fclose(f);
    assert_string_equal(buf, "\"Timestamp\",\"Int_Count\",\"Int_50%\",\"Int_90%\",\"Int_Max\","
                             "\"Total_Count\",\"Total_50%\",\"Total_90%\",\"Total_99%\","
                             "\"Total_99.9%\",\"Total_99.99%\",\"Total_Max\"\n");
    f = mem();
    assert_int_equal(lat_hlog_processor_legend(f, false), 0);
    fclose(f);
    assert_non_null(strstr(buf, "TotalPercentiles:count ( 50% 90% 99% 99.9% 99.99% Max )\n"));
}

static void test_line(void **state) {
    (void)state;
    lat_hlog_interval iv;
    memset(&iv, 0, sizeof iv);
    iv.offset_s = 2.0;
    iv.length_s = 1.0;
    assert_int_equal(lat_hist_init(&iv.hist, 1, 1000000, 3), 0);
    lat_hist_record(&iv.hist, 100);
    lat_hist_record(&iv.hist, 200);
    lat_hist_record(&iv.hist, 300);
    lat_hist total;
    assert_int_equal(lat_hist_copy(&total, &iv.hist), 0);
    lat_hist_record(&total, 1000);
    FILE *f = mem();
    assert_int_equal(lat_hlog_processor_line(f, &iv, &total, 100, true), 0);
    fclose(f);
    assert_string_equal(buf, "3.000,3,2.000,3.000,3.000,4,2.000,10.000,10.000,10.000,10.000,"
                             "10.000\n");
    f = mem();
    assert_int_equal(lat_hlog_processor_line(f, &iv, &total, 100, false), 0);
    fclose(f);
    assert_string_equal(buf, "3.000: I:3 (   2.000   3.000   3.000 ) T:4 (   2.000  10.000  "
                             "10.000  10.000  10.000  10.000 )\n");
    lat_hist_fini(&total);
    lat_hist_fini(&iv.hist);
    free(buf);
    buf = NULL;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_legend),
        cmocka_unit_test(test_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
