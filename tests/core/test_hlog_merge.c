/* test_hlog_merge.c - latlab/hlog_merge.h: per-tag counts and merged slots
 * with known answers, Java's first-interval total, the cross-log merge's
 * order and re-basing, and the overflow refusal. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/hlog_merge.h"

/* A log starting at t0 with intervals (tag, start, values...). */
typedef struct iv_spec {
    const char *tag;
    double start;
    int64_t v[4];
    int n;
} iv_spec;

static char *make_log(double t0, const iv_spec *s, int n, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, t0, t0, 0), 0);
    for (int i = 0; i < n; i++) {
        lat_hist h;
        assert_int_equal(lat_hist_init(&h, 1, 1000000, 3), 0);
        for (int k = 0; k < s[i].n; k++)
            lat_hist_record(&h, s[i].v[k]);
        assert_int_equal(lat_hlog_write_interval(&w, &h, s[i].tag, s[i].start, 1.0), 0);
        lat_hist_fini(&h);
    }
    fclose(f);
    return buf;
}

static lat_hlog_reader *reader(const char *text, size_t len) {
    lat_hlog_reader *r = NULL;
    assert_int_equal(lat_hlog_reader_open_mem(text, len, &r), 0);
    return r;
}

static void test_tags(void **state) {
    (void)state;
    iv_spec s[] = {{NULL, 100, {10, 20}, 2}, {"a", 101, {30}, 1}, {NULL, 102, {10, 40, 50}, 3}};
    size_t len;
    char *text = make_log(100, s, 3, &len);
    lat_hlog_reader *r = reader(text, len);
    lat_hlog_tags t;
    lat_hlog_tags_init(&t, true);
    lat_hlog_interval *iv;
    while (lat_hlog_next(r, &iv) == 1)
        assert_int_equal(lat_hlog_tags_add(&t, iv), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.tag[0].tag, ""); /* order of first appearance */
    assert_string_equal(t.tag[1].tag, "a");
    assert_int_equal(t.tag[0].intervals, 2);
    assert_int_equal(t.tag[0].count, 5);
    assert_int_equal(t.tag[0].nslots, 4); /* 10 (twice), 20, 40, 50 */
    assert_int_equal(t.tag[0].slots[0].value, 10);
    assert_int_equal(t.tag[0].slots[0].count, 2);
    lat_hist h;
    assert_int_equal(lat_hlog_tag_hist(&t.tag[0], &h), 0);
    assert_int_equal(lat_hist_total(&h), 5);
    assert_int_equal(lat_hist_min(&h), 10);
    assert_int_equal(lat_hist_max(&h), 50);
    lat_hist_fini(&h);
    lat_hlog_tags_fini(&t);
    assert_int_equal(t.n, 0);
    lat_hlog_reader_destroy(r);
    free(text);
}

static void test_counts_only_and_overflow(void **state) {
    (void)state;
    iv_spec s[] = {{"x", 10, {5}, 1}};
    size_t len;
    char *text = make_log(10, s, 1, &len);
    lat_hlog_reader *r = reader(text, len);
    lat_hlog_interval *iv;
    assert_int_equal(lat_hlog_next(r, &iv), 1);
    lat_hlog_tags t;
    lat_hlog_tags_init(&t, false);
    assert_int_equal(lat_hlog_tags_add(&t, iv), 0);
    assert_null(t.tag[0].slots);
    t.tag[0].count = INT64_MAX;
    assert_int_equal(lat_hlog_tags_add(&t, iv), -EOVERFLOW);
    assert_int_equal(t.tag[0].intervals, 1); /* nothing added */
    lat_hlog_tags_fini(&t);
    lat_hlog_reader_destroy(r);
    free(text);
}

static void test_total_add(void **state) {
    (void)state;
    iv_spec s[] = {{NULL, 1, {100}, 1}, {NULL, 2, {900000}, 1}};
    size_t len;
    char *text = make_log(1, s, 2, &len);
    lat_hlog_reader *r = reader(text, len);
    lat_hlog_reader_fit(r, true);
    lat_hist total = {0};
    bool have = false;
    lat_hlog_interval *iv;
    while (lat_hlog_next(r, &iv) == 1)
        assert_int_equal(lat_hlog_total_add(&total, &have, iv), 0);
    assert_true(have);
    assert_int_equal(lat_hist_total(&total), 2);
    assert_int_equal(lat_hist_min(&total), 100);
    assert_true(lat_hist_values_are_equivalent(&total, lat_hist_max(&total), 900000));
    lat_hist_fini(&total);
    lat_hlog_reader_destroy(r);
    free(text);
}

/* Keyed merges: the first histogram copied with its geometry, later ones
 * added auto-resizing (a value beyond the first's range is kept). */
static void test_keyed_hists(void **state) {
    (void)state;
    lat_hist a, b;
    assert_int_equal(lat_hist_init(&a, 1, 1000, 3), 0);
    assert_int_equal(lat_hist_init(&b, 1, 10000000, 3), 0);
    lat_hist_record(&a, 7);
    lat_hist_record(&b, 5000000);
    lat_hlog_hists s = {0};
    assert_int_equal(lat_hlog_hists_find(&s, "x"), -1);
    assert_int_equal(lat_hlog_hists_add(&s, "x", &a), 0);
    assert_int_equal(lat_hlog_hists_add(&s, "", &b), 1);
    assert_int_equal(lat_hlog_hists_add(&s, "x", &b), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(lat_hlog_hists_find(&s, ""), 1);
    assert_string_equal(s.v[0].key, "x");
    assert_int_equal(lat_hist_total(&s.v[0].h), 2);
    assert_int_equal(lat_hist_min(&s.v[0].h), 7);
    assert_true(lat_hist_values_are_equivalent(&s.v[0].h, lat_hist_max(&s.v[0].h), 5000000));
    assert_int_equal(lat_hist_total(&s.v[1].h), 1);
    char long_key[LAT_HLOG_TAG_MAX + 1];
    memset(long_key, 'k', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = 0;
    assert_int_equal(lat_hlog_hists_add(&s, long_key, &a), -EINVAL);
    b.total_count = INT64_MAX; /* the next merge would pass 2^63-1 */
    assert_int_equal(lat_hlog_hists_add(&s, "x", &b), -EOVERFLOW);
    assert_int_equal(s.n, 2);
    lat_hlog_hists_fini(&s);
    assert_int_equal(s.n, 0);
    lat_hist_fini(&a);
    lat_hist_fini(&b);
}

static void test_merge_logs(void **state) {
    (void)state;
    iv_spec a[] = {{NULL, 1003, {1}, 1}, {"t", 1005, {2}, 1}};
    iv_spec b[] = {{NULL, 1001, {3}, 1}, {NULL, 1003, {4}, 1}};
    size_t la, lb;
    char *ta = make_log(1002, a, 2, &la), *tb = make_log(1000, b, 2, &lb);
    lat_hlog_reader *ra = reader(ta, la), *rb = reader(tb, lb);
    lat_hlog_merge *m = NULL;
    assert_int_equal(lat_hlog_merge_create(&m), 0);
    char *out = NULL;
    size_t olen;
    FILE *f = open_memstream(&out, &olen);
    assert_int_equal(lat_hlog_merge_write(m, f), -ENODATA);
    assert_int_equal(lat_hlog_merge_add(m, ra), 0);
    assert_int_equal(lat_hlog_merge_add(m, rb), 0);
    assert_int_equal(lat_hlog_merge_count(m), 4);
    assert_int_equal(lat_hlog_merge_write(m, f), 0);
    fclose(f);
    lat_hlog_merge_destroy(m);
    lat_hlog_reader *r = reader(out, olen);
    /* by start time; the tie at 1003 keeps the order added (a before b) */
    static const double starts[] = {1001, 1003, 1003, 1005};
    static const int64_t vals[] = {3, 1, 4, 2};
    lat_hlog_interval *iv;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(lat_hlog_next(r, &iv), 1);
        assert_true(fabs(iv->start_s - starts[i]) < 1e-6);
        assert_int_equal(lat_hist_max(&iv->hist), vals[i]);
        assert_string_equal(iv->tag, i == 3 ? "t" : "");
    }
    assert_int_equal(lat_hlog_next(r, &iv), 0);
    assert_true(fabs(lat_hlog_reader_start_time(r) - 1000) < 1e-6); /* the earliest */
    lat_hlog_reader_destroy(r);
    lat_hlog_reader_destroy(ra);
    lat_hlog_reader_destroy(rb);
    free(out);
    free(ta);
    free(tb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags),       cmocka_unit_test(test_counts_only_and_overflow),
        cmocka_unit_test(test_total_add),  cmocka_unit_test(test_keyed_hists),
        cmocka_unit_test(test_merge_logs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
