/* test_plotset.c - the inputs of `latlab plot` (measure/plotset.c) from a
 * small interval log written here: one series per tag labelled LABEL:TAG,
 * their counts, percentiles and max (exact: small values, unit 1 ns); --tag
 * keeps one tag under the plain label; a log without intervals gives an
 * empty series and a warning; the summary table, the JSON and the page. */
#include "lat_test.h"

#include "latlab/hlog.h"
#include "latlab/plotset.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char path[4200], empty[4200];
static char warned[1024];

static void on_warn(void *ud, const char *msg) {
    (void)ud;
    snprintf(warned, sizeof warned, "%s", msg);
}

/* Tag "a": 1000 ns nine times and 2000 ns once; tag "b": 500 ns twice. */
static void write_logs(void) {
    snprintf(path, sizeof path, "%s/two.hlog", lat_test_tmpdir());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    lat_hlog_writer w;
    assert_int_equal(lat_hlog_writer_init(&w, f, 100, 100, 0), 0);
    lat_hist a, b;
    assert_int_equal(lat_hist_init(&a, 1, 1000000, 3), 0);
    assert_int_equal(lat_hist_init(&b, 1, 1000000, 3), 0);
    lat_hist_record_n(&a, 1000, 9);
    lat_hist_record(&a, 2000);
    lat_hist_record_n(&b, 500, 2);
    assert_int_equal(lat_hlog_write_interval(&w, &a, "a", 100, 1.0), 0);
    assert_int_equal(lat_hlog_write_interval(&w, &b, "b", 101, 1.0), 0);
    lat_hist_fini(&a);
    lat_hist_fini(&b);
    assert_int_equal(fclose(f), 0);
    snprintf(empty, sizeof empty, "%s/empty.hlog", lat_test_tmpdir());
    f = fopen(empty, "w");
    assert_non_null(f);
    fclose(f);
}

static void set_init(lat_plotset *c, lat_plot **plot, const char *tag) {
    memset(c, 0, sizeof *c);
    assert_int_equal(lat_plot_create("t", plot), 0);
    c->plot = *plot;
    c->unit_ns = 1;
    c->ticks = 5;
    c->tag = tag;
    c->warn = on_warn;
    warned[0] = '\0';
}

static void test_series_per_tag(void **state) {
    (void)state;
    write_logs();
    lat_plotset c;
    lat_plot *plot;
    set_init(&c, &plot, NULL);
    assert_int_equal(lat_plotset_add(&c, path, "L"), 0);
    assert_int_equal(c.ns, 2);
    assert_string_equal(c.s[0].label, "L:a");
    assert_string_equal(c.s[1].label, "L:b");
    assert_int_equal(c.s[0].count, 10);
    assert_true(c.s[0].pct_ns[0] == 1000 && c.s[0].pct_ns[1] == 1000);
    assert_true(c.s[0].pct_ns[2] == 2000 && c.s[0].max_ns == 2000);
    assert_int_equal(c.s[1].count, 2);
    assert_true(c.s[1].max_ns == 500);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lat_plotset_print_table(&c, f);
    fclose(f);
    char want[256];
    snprintf(want, sizeof want, "\n%-24s %12s %10s %10s %10s %10s %10s %10s\n", "L:a", "10", "1us",
             "1us", "2us", "2us", "2us", "2us");
    assert_non_null(strstr(buf, want));
    free(buf);

    uint64_t slos[] = {1500};
    json_t *j = lat_plotset_json(&c, "out.html", slos, 1);
    json_t *s1 = json_array_get(json_object_get(j, "series"), 1);
    assert_string_equal(json_string_value(json_object_get(s1, "tag")), "b");
    assert_true(json_real_value(json_object_get(s1, "p50_ns")) == 500);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "slo_ns"), 0)), 1500);
    json_decref(j);

    char html[4300];
    snprintf(html, sizeof html, "%s/plot.html", lat_test_tmpdir());
    assert_int_equal(lat_plotset_write_html(&c, html, "title", slos, 1, true, LAT_THEME_LIGHT), 0);
    f = fopen(html, "r");
    assert_non_null(f);
    static char page[1 << 20];
    size_t n = fread(page, 1, sizeof page - 1, f);
    page[n] = '\0';
    fclose(f);
    assert_non_null(strstr(page, "L:a"));
    assert_non_null(strstr(page, "1.5us")); /* the SLO */
    lat_plotset_fini(&c);
    lat_plot_destroy(plot);
}

static void test_tag_filter_and_empty(void **state) {
    (void)state;
    write_logs();
    lat_plotset c;
    lat_plot *plot;
    set_init(&c, &plot, "b");
    assert_int_equal(lat_plotset_add(&c, path, "L"), 0);
    assert_int_equal(c.ns, 1);
    assert_string_equal(c.s[0].label, "L"); /* one tag: the plain label */
    assert_string_equal(c.s[0].tag, "b");
    assert_int_equal(c.s[0].count, 2);
    assert_string_equal(warned, "");

    assert_int_equal(lat_plotset_add(&c, empty, "E"), 0);
    assert_int_equal(c.ns, 2);
    assert_int_equal(c.s[1].count, 0);
    assert_true(isnan(c.s[1].pct_ns[0]) && isnan(c.s[1].max_ns));
    assert_non_null(strstr(warned, "no interval tagged 'b'"));
    json_t *j = lat_plotset_json(&c, "x", NULL, 0);
    assert_true(
        json_is_null(json_object_get(json_array_get(json_object_get(j, "series"), 1), "p99_ns")));
    json_decref(j);

    char missing[4300];
    snprintf(missing, sizeof missing, "%s/absent.hlog", lat_test_tmpdir());
    assert_true(lat_plotset_add(&c, missing, "M") < 0);
    assert_non_null(strstr(c.err, "absent.hlog"));
    lat_plotset_fini(&c);
    lat_plot_destroy(plot);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_per_tag),
        cmocka_unit_test(test_tag_filter_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
