/* test_shiftplot.c - a verdict's shift function drawn as SVG and tabled as
 * Markdown (lab/shiftplot.c): four read points with their error bars in the
 * right order on the log axis, the no-change band, a p99.99 not read drawn
 * as "n/a" (no point, no "nan"), well-formed XML, and the table rows. */
#include "lat_test.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lab/lab_internal.h"

static lat_lab_verdict verdict(void) {
    lat_lab_verdict v;
    memset(&v, 0, sizeof v);
    const double r[4][3] = {{1.0, 0.95, 1.05}, {1.2, 1.1, 1.3}, {0.8, 0.7, 0.9}, {1.5, 1.2, 2.0}};
    for (int q = 0; q < 4; q++)
        v.shift[q] = (lat_lab_shift){r[q][0], r[q][1], r[q][2], 0.5, 20};
    v.shift[LAT_LAB_Q9999] = (lat_lab_shift){NAN, NAN, NAN, NAN, 3};
    v.disp_ratio = NAN;
    return v;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void test_svg(void **state) {
    (void)state;
    lat_lab_verdict v = verdict();
    char path[4200];
    snprintf(path, sizeof path, "%s/shift.svg", lat_test_tmpdir());
    assert_int_equal(lat__lab_shift_svg(&v, "A vs B", 1.1, path), 0);
    const char *s = slurp(path);
    assert_null(strstr(s, "nan"));
    assert_null(strstr(s, "inf"));
    assert_non_null(strstr(s, "<text x='56' y='16' font-size='13'>A vs B</text>"));
    assert_non_null(strstr(s, "shaded: no change (x0.91..x1.10)"));
    assert_int_equal(count(s, "fill='#8fbc8f'"), 1);     /* the band */
    assert_int_equal(count(s, "<circle "), 4);           /* four points read */
    assert_int_equal(count(s, "stroke-width='2'"), 4);   /* their bars */
    assert_int_equal(count(s, "stroke='#1f4e99'/>"), 8); /* and the bars' caps */
    assert_int_equal(count(s, ">n/a</text>"), 1);
    /* the n/a sits at the fifth quantile's x (56 + 408 * 4.5 / 5) */
    const char *na = strstr(s, ">n/a</text>");
    const char *line = na;
    while (line > s && line[-1] != '\n')
        line--;
    assert_memory_equal(line, "<text x='423.2' ", 16);
    const char *labels[] = {">p50<", ">p90<", ">p99<", ">p99.9<", ">p99.99<"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(count(s, labels[i]), 1);
    /* points: ratio 1 on the dashed line at x1; 1.5 above 1.2 above 1 above 0.8 */
    double cx[4], cy[4];
    const char *p = s;
    for (int i = 0; i < 4; i++) {
        p = strstr(p, "<circle ");
        assert_int_equal(sscanf(p, "<circle cx='%lf' cy='%lf'", &cx[i], &cy[i]), 2);
        p++;
    }
    assert_float_equal(cx[0], 96.8, 0.05);
    assert_true(cy[3] < cy[1] && cy[1] < cy[0] && cy[0] < cy[2]);
    double lo = 0.7 / 1.15, hi = 2.0 * 1.15; /* y range: the widest interval, padded */
    assert_float_equal(cy[0], 40 + 220 * log(hi) / (log(hi) - log(lo)), 0.06);
    const char *dash = strstr(s, "stroke-dasharray='6 3'");
    assert_non_null(dash);
    int xml = lat_test_xml_check(s);
    if (xml >= 0) assert_int_equal(xml, 1);
    assert_int_equal(lat__lab_shift_svg(&v, "t", 1.0, path), -EINVAL);
    assert_int_equal(lat__lab_shift_svg(NULL, "t", 1.1, path), -EINVAL);
}

static void test_md(void **state) {
    (void)state;
    lat_lab_verdict v = verdict();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    lat__lab_shift_md(f, &v, "shift.svg");
    fclose(f);
    assert_non_null(strstr(buf, "![shift function](shift.svg)\n"));
    assert_non_null(strstr(buf, "| p50 | x1.000 | [0.950, 1.050] | 0.5000 | 20 |\n"));
    assert_non_null(strstr(buf, "| p99.9 | x1.500 | [1.200, 2.000] | 0.5000 | 20 |\n"));
    assert_non_null(strstr(buf, "| p99.99 | n/a | not read | | 3 |\n"));
    assert_null(strstr(buf, "dispersion"));
    assert_null(strstr(buf, "nan"));
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_md),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
