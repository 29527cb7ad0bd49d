/* test_hlog_summary.c - what `latlab hist` prints about an interval log
 * (measure/hlog_summary.c), from a small .hlog written here with known
 * values: the tags in order of first appearance with interval and value
 * counts, the summary rows (count, min, p50, max, mean), the percentile
 * JSON of a selection, and the errors for an empty log and an empty
 * selection. */
#include "lat_test.h"

#include "latlab/hlog.h"
#include "latlab/hlog_summary.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char path[4200];

/* Untagged {10, 20}, "a" {30}, untagged {10, 40, 50}: one second apart. */
static void setup_log(void) {
    static const int64_t v[3][3] = {{10, 20}, {30}, {10, 40, 50}};
    static const int nv[3] = {2, 1, 3};
    static const char *const tags[3] = {NULL, "a", NULL};
    snprintf(path, sizeof path, "%s/small.hlog", lat_test_tmpdir());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, 1000, 1000, 0), 0);
    for (int i = 0; i < 3; i++) {
        lat_hist h;
        assert_int_equal(lat_hist_init(&h, 1, 1000000, 3), 0);
        for (int k = 0; k < nv[i]; k++)
            lat_hist_record(&h, v[i][k]);
        assert_int_equal(lat_hlog_write_interval(&w, &h, tags[i], 1000 + i, 1.0), 0);
        lat_hist_fini(&h);
    }
    assert_int_equal(fclose(f), 0);
}

static void test_tags_and_rows(void **state) {
    (void)state;
    setup_log();
    char err[256] = "";
    lat_hlog_tags t;
    lat_hlog_tags_init(&t, true);
    assert_int_equal(lat_hlog_summary_gather(path, &t, err, sizeof err), 0);
    assert_int_equal(t.n, 2);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t *arr = json_array();
    lat_hlog_summary_tags(f, t.tag, t.n, arr);
    fflush(f);
    assert_string_equal(buf, "(untagged)\na\n");
    assert_int_equal(json_array_size(arr), 2);
    json_t *o = json_array_get(arr, 0);
    assert_true(json_is_null(json_object_get(o, "tag")));
    assert_int_equal(json_integer_value(json_object_get(o, "intervals")), 2);
    assert_int_equal(json_integer_value(json_object_get(o, "count")), 5);
    assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 1), "tag")), "a");
    json_decref(arr);

    rewind(f);
    arr = json_array();
    assert_int_equal(lat_hlog_summary_print(f, t.tag, t.n, 1.0, 0.95, arr), 0);
    fputc('\0', f);
    fflush(f);
    /* header, then (row, CI line) per tag, then the resolution line */
    assert_non_null(strstr(buf, "tag "));
    const char *row = strstr(buf, "\n(untagged)");
    assert_non_null(row);
    long count;
    double min, p50, p90, p99, p999, p9999, max, mean;
    assert_int_equal(sscanf(row + 1, "(untagged) %ld %lf %lf %lf %lf %lf %lf %lf %lf", &count, &min,
                            &p50, &p90, &p99, &p999, &p9999, &max, &mean),
                     9);
    assert_int_equal(count, 5);
    assert_true(min == 10.0 && p50 == 20.0 && max == 50.0);
    assert_true(mean > 25.5 && mean < 26.5); /* (10+20+10+40+50)/5 */
    assert_non_null(strstr(buf, "\na "));
    assert_non_null(strstr(buf, "95% CI p50"));
    assert_non_null(strstr(buf, "(3 sig figs)"));
    o = json_array_get(arr, 1);
    assert_int_equal(json_integer_value(json_object_get(o, "count")), 1);
    assert_int_equal(json_integer_value(json_object_get(o, "p50")), 30);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(arr, 0), "max")), 50);
    json_decref(arr);
    fclose(f);
    free(buf);
    lat_hlog_tags_fini(&t);
}

static void test_selection_json(void **state) {
    (void)state;
    setup_log();
    char err[256] = "";
    lat_hlog_reader *r = NULL;
    assert_int_equal(lat_hlog_summary_reader_create(path, &r, err, sizeof err), 0);
    lat_hlog_select s = {NULL, 0, 1e9}; /* the untagged intervals */
    lat_hist total = {0};
    assert_int_equal(lat_hlog_summary_total(r, path, &s, NULL, false, 1.0, &total, err, sizeof err),
                     0);
    lat_hlog_reader_destroy(r);
    json_t *j = lat_hlog_summary_json(path, NULL, &total, 1000.0, 0.95);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "count")), 5);
    assert_int_equal(json_integer_value(json_object_get(j, "min")), 10);
    assert_int_equal(json_integer_value(json_object_get(j, "max")), 50);
    assert_true(json_is_null(json_object_get(j, "tag")));
    json_t *pa = json_object_get(j, "percentiles");
    assert_int_equal(json_array_size(pa), 7);
    json_t *p0 = json_array_get(pa, 0), *plast = json_array_get(pa, 6);
    assert_true(json_real_value(json_object_get(p0, "percentile")) == 50.0);
    assert_int_equal(json_integer_value(json_object_get(p0, "value")), 20);
    assert_true(json_real_value(json_object_get(p0, "scaled")) == 0.02);
    assert_int_equal(json_integer_value(json_object_get(plast, "value")), 50);
    json_decref(j);
    lat_hist_fini(&total);

    /* a tag no interval carries: nothing selected, the tag named */
    assert_int_equal(lat_hlog_summary_reader_create(path, &r, err, sizeof err), 0);
    lat_hlog_select none = {"zz", 0, 1e9};
    lat_hist t2 = {0};
    assert_int_equal(lat_hlog_summary_total(r, path, &none, NULL, false, 1.0, &t2, err, sizeof err),
                     -ENODATA);
    assert_non_null(strstr(err, "tagged 'zz'"));
    lat_hlog_reader_destroy(r);
}

static void test_empty_log(void **state) {
    (void)state;
    char empty[4200], err[256] = "";
    snprintf(empty, sizeof empty, "%s/empty.hlog", lat_test_tmpdir());
    FILE *f = fopen(empty, "w");
    assert_non_null(f);
    fclose(f);
    lat_hlog_tags t;
    lat_hlog_tags_init(&t, true);
    assert_int_equal(lat_hlog_summary_gather(empty, &t, err, sizeof err), -ENODATA);
    assert_non_null(strstr(err, "no intervals"));
    lat_hlog_tags_fini(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags_and_rows),
        cmocka_unit_test(test_selection_json),
        cmocka_unit_test(test_empty_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
