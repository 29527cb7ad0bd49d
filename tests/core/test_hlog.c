/* test_hlog.c - interval logs (core/hlog.c): intervals written to a file
 * read back equal (tags, times, every count), in order, then the end; a
 * last line cut short (a log read while its writer was killed) is not an
 * interval: the reader reports it as truncated, after the complete ones,
 * while a complete last line without its newline still reads; the reader
 * styles of the other implementations and its errors with line numbers. */
#include "lat_test.h"

#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIV 3

/* Three known intervals: the i-th holds 100 * (i + 1) values from 1000 * (i + 1) ns. */
static void make_hists(lat_hist h[NIV]) {
    for (int i = 0; i < NIV; i++) {
        assert_int_equal(lat_hist_init(&h[i], 1, INT64_C(3600000000), 3), 0);
        for (int k = 0; k < 100 * (i + 1); k++)
            lat_hist_record(&h[i], 1000 * (i + 1) + k);
    }
}

static char path[4096];

/* Make the three intervals, write them with lat_hlog_writer to the file
 * name in the temporary folder (its path in path) and return the file's text. */
static char *write_log(const char *name, lat_hist h[NIV], size_t *len) {
    make_hists(h);
    snprintf(path, sizeof path, "%s/%s", lat_test_tmpdir(), name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, 1700000000.0, 1700000000.0, 0), 0);
    assert_int_equal(lat_hlog_write_comment(&w, "written by test_hlog"), 0);
    static const char *tags[NIV] = {NULL, "B", NULL};
    for (int i = 0; i < NIV; i++)
        assert_int_equal(lat_hlog_write_interval(&w, &h[i], tags[i], 1700000001.0 + i, 1.0), 0);
    assert_int_equal(fclose(f), 0);
    f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 16];
    *len = fread(text, 1, sizeof text, f);
    fclose(f);
    assert_true(*len > 0 && *len < sizeof text);
    return text;
}

static void test_write_then_read(void **s) {
    (void)s;
    lat_hist h[NIV];
    size_t len;
    write_log("three.hlog", h, &len);
    lat_hlog_reader *r;
    lat_hlog_interval *iv;
    assert_int_equal(lat_hlog_reader_create(path, &r), 0);
    for (int i = 0; i < NIV; i++) {
        assert_int_equal(lat_hlog_next(r, &iv), 1);
        assert_string_equal(iv->tag, i == 1 ? "B" : "");
        assert_true(iv->start_s == 1700000001.0 + i);
        assert_true(iv->offset_s == 1.0 + i);
        assert_true(iv->length_s == 1.0);
        assert_true(lat_test_hist_equal(&iv->hist, &h[i]));
        assert_int_equal(lat_hist_total(&iv->hist), 100 * (i + 1));
    }
    assert_int_equal(lat_hlog_next(r, &iv), 0);
    assert_string_equal(lat_hlog_reader_version(r), "1.3");
    assert_true(lat_hlog_reader_start_time(r) == 1700000000.0);
    assert_true(lat_hlog_reader_base_time(r) == 1700000000.0);
    lat_hlog_reader_destroy(r);
    snprintf(path, sizeof path, "%s/no_such.hlog", lat_test_tmpdir());
    assert_int_equal(lat_hlog_reader_create(path, &r), -ENOENT);
    for (int i = 0; i < NIV; i++)
        lat_hist_fini(&h[i]);
}

/* Read text (len bytes): the number of intervals before the end or an
 * error, the end's code in *end. */
static int read_all(const char *text, size_t len, int *end) {
    lat_hlog_reader *r;
    lat_hlog_interval *iv;
    assert_int_equal(lat_hlog_reader_open_mem(text, len, &r), 0);
    int n = 0, rc;
    while ((rc = lat_hlog_next(r, &iv)) == 1)
        n++;
    *end = rc;
    int lines = 1; /* an error names the line cut short: the text's last */
    for (size_t i = 0; i + 1 < len; i++)
        lines += text[i] == '\n';
    if (rc < 0) assert_int_equal(lat_hlog_reader_line(r), lines);
    lat_hlog_reader_destroy(r);
    return n;
}

static void test_truncated_last_line(void **s) {
    (void)s;
    lat_hist h[NIV];
    size_t len;
    const char *text = write_log("cut.hlog", h, &len);
    int end;
    assert_int_equal(read_all(text, len, &end), NIV);
    assert_int_equal(end, 0);
    /* the last line complete but for its newline: still an interval */
    assert_int_equal(text[len - 1], '\n');
    assert_int_equal(read_all(text, len - 1, &end), NIV);
    assert_int_equal(end, 0);
    /* cut anywhere inside the last line: the complete ones, then an error */
    const char *last = text + len - 1;
    while (last > text && last[-1] != '\n')
        last--;
    size_t line_start = (size_t)(last - text), cuts = 0, truncated = 0;
    for (size_t cut = line_start + 1; cut < len - 1; cut++) {
        assert_int_equal(read_all(text, cut, &end), NIV - 1);
        assert_true(end < 0);
        truncated += end == LAT_ETRUNCATED;
        cuts++;
    }
    assert_true(cuts > 20);
    /* cut within the first fields or the histogram's header: "truncated" */
    assert_int_equal(read_all(text, line_start + 3, &end), NIV - 1);
    assert_int_equal(end, LAT_ETRUNCATED);
    assert_true(truncated > 0);
    for (int i = 0; i < NIV; i++)
        lat_hist_fini(&h[i]);
}

/* Reader: 1.2 logs in HdrHistogram_c's style (EndTimestamp legend, absolute
 * end timestamps, unscaled max), comments, CRLF, relative timestamps without
 * BaseTime, tags, and errors with line numbers. */
static void test_hlog_reader_styles(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, INT64_C(3600000000), 3), 0);
    lat_hist_record_n(&h, 1000, 10);
    char *b64;
    assert_int_equal(lat_hist_encode_base64(&h, &b64), 0);
    char text[4096];
    snprintf(
        text, sizeof text,
        "#[Histogram log format version 1.2]\r\n"
        "#[StartTime: 1700000000.000 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\r\n"
        "\"StartTimestamp\",\"EndTimestamp\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\r\n"
        "1700000001.000,1700000002.500,1000.0,%s\r\n"
        "# a comment\r\n"
        "\r\n"
        "Tag=x,1700000002.500,1700000003.000,1000.0,%s",
        b64, b64);
    lat_hlog_reader *r;
    lat_hlog_interval *iv;
    assert_int_equal(lat_hlog_reader_open_mem(text, strlen(text), &r), 0);
    assert_int_equal(lat_hlog_next(r, &iv), 1);
    assert_string_equal(lat_hlog_reader_version(r), "1.2");
    assert_string_equal(iv->tag, "");
    assert_true(iv->length_s == 1.5);
    assert_true(iv->offset_s == 1.0); /* absolute timestamps: base 0 */
    assert_true(lat_hlog_reader_base_time(r) == 0.0);
    assert_int_equal(lat_hist_total(&iv->hist), 10);
    assert_int_equal(iv->line, 4);
    assert_int_equal(lat_hlog_next(r, &iv), 1);
    assert_string_equal(iv->tag, "x");
    assert_true(iv->length_s == 0.5);
    assert_int_equal(iv->line, 7);
    assert_int_equal(lat_hlog_next(r, &iv), 0);
    lat_hlog_reader_destroy(r);
    /* relative timestamps, no BaseTime: based on StartTime (Java's rule) */
    snprintf(text, sizeof text,
             "#[StartTime: 1700000000.000 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
             "2.000,1.000,0.001,%s\n",
             b64);
    assert_int_equal(lat_hlog_reader_open_mem(text, strlen(text), &r), 0);
    assert_int_equal(lat_hlog_next(r, &iv), 1);
    assert_true(iv->start_s == 1700000002.0);
    assert_true(iv->offset_s == 2.0);
    lat_hlog_reader_destroy(r);
    /* our own writer round trip, with BaseTime and a tag */
    char *out = NULL;
    size_t ol = 0;
    FILE *f = open_memstream(&out, &ol);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, 1700000000.5, 1700000000.5, 0), 0);
    assert_int_equal(lat_hlog_write_interval(&w, &h, "T1", 1700000001.5, 1.0), 0);
    assert_int_equal(lat_hlog_write_interval(&w, &h, "bad tag", 1700000001.5, 1.0), -EINVAL);
    assert_int_equal(lat_hlog_write_interval(&w, &h, "", 1700000001.5, 1.0), -EINVAL);
    fclose(f);
    assert_non_null(strstr(
        out, "#[StartTime: 1700000000.500 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
             "#[BaseTime: 1700000000.500 (seconds since epoch)]\n"));
    assert_non_null(strstr(out, "\nTag=T1,1.000,1.000,0.001,HISTF"));
    assert_int_equal(lat_hlog_reader_open_mem(out, ol, &r), 0);
    assert_int_equal(lat_hlog_next(r, &iv), 1);
    assert_string_equal(iv->tag, "T1");
    assert_true(iv->start_s == 1700000001.5);
    assert_int_equal(lat_hist_max(&iv->hist), lat_hist_max(&h));
    lat_hlog_reader_destroy(r);
    free(out);
    /* errors carry the line and a reason */
    static const struct {
        const char *text;
        int line;
        const char *why;
    } bad[] = {
        {"#[Histogram log format version 2.0]\n", 1, "unsupported"},
        {"# ok\n1.0,1.0\n", 2, "too few fields"},
        {"1.0,x,1.0,HISTF\n", 1, "bad interval length"},
        {"1.0,1.0,1.0,HISTFAAAA\n", 1, "bad histogram"},
        {"1.0,1.0,1.0,A,B\n", 1, "too many fields"},
        {"Tag=,1.0,1.0,1.0,A\n", 1, "bad tag"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(lat_hlog_reader_open_mem(bad[i].text, strlen(bad[i].text), &r), 0);
        assert_true(lat_hlog_next(r, &iv) < 0);
        assert_int_equal(lat_hlog_reader_line(r), bad[i].line);
        if (!strstr(lat_hlog_reader_reason(r), bad[i].why)) {
            print_error("case %zu: reason '%s'\n", i, lat_hlog_reader_reason(r));
            fail();
        }
        lat_hlog_reader_destroy(r);
    }
    lat_hist_buf_free(b64);
    lat_hist_fini(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_then_read),
        cmocka_unit_test(test_truncated_last_line),
        cmocka_unit_test(test_hlog_reader_styles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
