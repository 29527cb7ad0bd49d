/* test_lab_method.c - docs/lab-method.md's rule table agrees with the code:
 * every field of lat_lab_params that lab.json records (lat_lab_params_json)
 * has one row there, with lat_lab_params_default's value, and the table
 * names no field the code does not have.  A changed default, a new rule or
 * a renamed one fails here until the page says the same. */
#include "lat_test.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/lab_session.h"
#include "latlab/lab_verdict.h"

typedef struct row {
    char field[64];
    double value;
} row;

/* The rows of the table under "## The rule table": | `field` | value | rule | */
static size_t read_table(const char *path, row *rows, size_t cap) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    bool in = false;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## ", 3)) in = !strncmp(line, "## The rule table", 17);
        if (!in || strncmp(line, "| `", 3) != 0) continue;
        char *end = strchr(line + 3, '`');
        assert_non_null(end);
        assert_true(n < cap);
        size_t len = (size_t)(end - (line + 3));
        assert_true(len < sizeof rows[n].field);
        memcpy(rows[n].field, line + 3, len);
        rows[n].field[len] = '\0';
        char *v = strchr(end, '|');
        assert_non_null(v);
        char *stop;
        rows[n].value = strtod(v + 1, &stop);
        assert_true(stop != v + 1); /* a number in the default column */
        n++;
    }
    fclose(f);
    return n;
}

static void test_rule_table_matches_defaults(void **s) {
    (void)s;
    const char *src = getenv("LAT_SRC_DIR");
    if (!src) LAT_SKIP("LAT_SRC_DIR is not set (run through ctest)");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/lab-method.md", src);
    row rows[64];
    size_t n = read_table(path, rows, 64);
    lat_lab_params p;
    lat_lab_params_default(&p);
    json_t *j = lat_lab_params_json(&p);
    assert_non_null(j);
    assert_int_equal(n, json_object_size(j)); /* one row per field, no more */
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(j, rows[i].field);
        if (!v)
            fail_msg("docs/lab-method.md names `%s`, which lat_lab_params lacks", rows[i].field);
        double want = json_number_value(v);
        if (fabs(want - rows[i].value) > 1e-9 * fmax(1, fabs(want)))
            fail_msg("docs/lab-method.md: `%s` is %g, lat_lab_params_default says %g",
                     rows[i].field, rows[i].value, want);
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(rows[k].field, rows[i].field);
    }
    json_decref(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_table_matches_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
