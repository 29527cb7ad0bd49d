/* test_lab_method.c - docs/lab-method.md agrees with the code.
 *
 * The parameter table ("## The parameters": | `field` | default | meaning |)
 * has one row per parameter lat_lab_params_list names, with
 * lat_lab_params_default's value, and names nothing else; lab.json records
 * (lat_lab_params_json) every listed parameter under its name with its
 * value, and nothing else.
 *
 * The rule table ("## The rules": | id | condition | parameter | why |) has
 * exactly one row per rule id the code prints: the ids ("[V7]") in the
 * string literals of lab/ *.c, comments left out, are the table's, no more
 * and no fewer; every parameter a rule row names has a row in the parameter
 * table, and every parameter serves some rule.
 *
 * A changed default, a new rule, a rule id printed but not explained (or
 * explained but no longer printed) fails here until the page says the same.
 * The comparisons are first shown to fail on texts that disagree. */
#include "lat_test.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/lab_session.h"
#include "latlab/lab_verdict.h"

#define MAXID 100 /* rule ids V1 .. V99 */
#define MAXROWS 64

/* The checks print each disagreement (not while test_checks_can_fail runs). */
static bool g_say = true;
#define say(...) (g_say ? (void)printf(__VA_ARGS__) : (void)0)

typedef struct row {
    char field[64];
    double value;
} row;

/* ---- reading ------------------------------------------------------------------------------- */

/* path's whole text (NUL-terminated; free it). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* The next line of *at into line (without its newline); false at the end. */
static bool next_line(const char **at, char *line, size_t len) {
    if (!**at) return false;
    const char *e = strchr(*at, '\n');
    size_t n = e ? (size_t)(e - *at) : strlen(*at);
    snprintf(line, len, "%.*s", (int)n, *at);
    *at += n + (e ? 1 : 0);
    return true;
}

/* Calls row_fn for each table row ("| ...") under the heading "## title". */
static void each_row(const char *doc, const char *title, void (*row_fn)(const char *, void *),
                     void *ud) {
    char line[4096];
    bool in = false;
    size_t tl = strlen(title);
    for (const char *at = doc; next_line(&at, line, sizeof line);) {
        if (!strncmp(line, "## ", 3))
            in = !strncmp(line + 3, title, tl) && (line[3 + tl] == '\0' || line[3 + tl] == ' ');
        if (in && line[0] == '|') row_fn(line, ud);
    }
}

/* ---- the parameter table ------------------------------------------------------------------ */

typedef struct params_read {
    row rows[MAXROWS];
    size_t n;
} params_read;

static void param_row(const char *line, void *ud) {
    params_read *r = ud;
    if (strncmp(line, "| `", 3) != 0) return; /* the header and its rule */
    const char *end = strchr(line + 3, '`');
    assert_non_null(end);
    assert_true(r->n < MAXROWS);
    size_t len = (size_t)(end - (line + 3));
    assert_true(len < sizeof r->rows[0].field);
    memcpy(r->rows[r->n].field, line + 3, len);
    r->rows[r->n].field[len] = '\0';
    const char *v = strchr(end, '|');
    assert_non_null(v);
    char *stop;
    r->rows[r->n].value = strtod(v + 1, &stop);
    if (stop == v + 1) fail_msg("the parameter table's `%s` has no number", r->rows[r->n].field);
    r->n++;
}

static const row *find_row(const params_read *r, const char *field) {
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->rows[i].field, field)) return &r->rows[i];
    return NULL;
}

static bool same_value(double a, double b) {
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

/* Disagreements between the parameter table r and the code's list (n
 * entries); each is printed.  Returns how many. */
static int check_params(const params_read *r, const lat_lab_param *list, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < r->n; i++) {
        const char *f = r->rows[i].field;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(r->rows[k].field, f)) {
                say("docs/lab-method.md: `%s` has two rows\n", f);
                bad++;
            }
        size_t j = 0;
        while (j < n && strcmp(list[j].name, f) != 0)
            j++;
        if (j < n && !same_value(list[j].value, r->rows[i].value)) {
            say("docs/lab-method.md: `%s` is %g, the code's default %g\n", f, r->rows[i].value,
                list[j].value);
            bad++;
        } else if (j == n) {
            say("docs/lab-method.md names `%s` = %g, which is no parameter of the code\n", f,
                r->rows[i].value);
            bad++;
        }
    }
    for (size_t j = 0; j < n; j++)
        if (!find_row(r, list[j].name)) {
            say("docs/lab-method.md lacks a row for the parameter `%s`\n", list[j].name);
            bad++;
        }
    return bad;
}

/* Disagreements between lab.json's params j and the code's list (n entries):
 * a listed parameter missing or with another value or type (a count is an
 * integer), a key the list lacks; each printed.  Returns how many. */
static int check_json(const json_t *j, const lat_lab_param *list, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_object_get(j, list[i].name);
        if (!v || !json_is_number(v) || json_is_integer(v) != list[i].count ||
            !same_value(json_number_value(v), list[i].value)) {
            say("lab.json's params lack `%s` = %g\n", list[i].name, list[i].value);
            bad++;
        }
    }
    if (json_object_size(j) != n) {
        say("lab.json's params hold %zu keys, the list %zu\n", json_object_size(j), n);
        bad++;
    }
    return bad;
}

/* ---- the rule table ----------------------------------------------------------------------- */

typedef struct rules_read {
    unsigned count[MAXID]; /* rows per id */
    bool header;           /* | id | condition | parameter | why | */
    char named[MAXROWS][64];
    size_t nnamed; /* the parameters the rows name */
} rules_read;

/* "V12" at s: 12 (0 when s is no rule id, or one out of range). */
static int rule_id(const char *s, const char **end) {
    if (s[0] != 'V' || !isdigit((unsigned char)s[1])) return 0;
    char *e;
    long v = strtol(s + 1, &e, 10);
    if (end) *end = e;
    return v > 0 && v < MAXID ? (int)v : 0;
}

static void rule_row(const char *line, void *ud) {
    rules_read *r = ud;
    if (!strcmp(line, "| id | condition | parameter | why |")) r->header = true;
    const char *end;
    int id = rule_id(line + 2, &end);
    if (strncmp(line, "| V", 3) != 0 || !id || strncmp(end, " |", 2) != 0) return;
    r->count[id]++;
    /* the third cell (parameter), after the condition's: its `names` */
    const char *c = strchr(end + 2, '|');
    assert_non_null(c);
    const char *stop = strchr(c + 1, '|');
    assert_non_null(stop);
    for (const char *b = strchr(c, '`'); b && b < stop; b = strchr(b, '`')) {
        const char *e = strchr(b + 1, '`');
        assert_non_null(e);
        assert_true(r->nnamed < MAXROWS);
        snprintf(r->named[r->nnamed++], sizeof r->named[0], "%.*s", (int)(e - b - 1), b + 1);
        b = e + 1;
    }
}

/* The rule ids printed by C source src: "[V<n>]" inside string literals,
 * comments and character constants skipped; count[n] incremented. */
static void ids_in_source(const char *src, unsigned *count) {
    const char *s = src;
    while (*s) {
        if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
        } else if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n')
                s++;
        } else if (*s == '\'') {
            for (s++; *s && *s != '\''; s++)
                if (*s == '\\' && s[1]) s++;
            if (*s) s++;
        } else if (*s == '"') {
            for (s++; *s && *s != '"'; s++) {
                if (*s == '\\' && s[1]) {
                    s++;
                    continue;
                }
                const char *end;
                int id = s[0] == '[' ? rule_id(s + 1, &end) : 0;
                if (id && *end == ']') count[id]++;
            }
            if (*s) s++;
        } else {
            s++;
        }
    }
}

/* Disagreements between the rule table's ids (doc) and the code's (code):
 * an id printed but without a row, a row no code prints, an id with two
 * rows; each printed.  Returns how many. */
static int check_ids(const unsigned *doc, const unsigned *code) {
    int bad = 0;
    for (int id = 1; id < MAXID; id++) {
        if (code[id] && !doc[id]) {
            say("the code prints [V%d], which docs/lab-method.md's rule table lacks\n", id);
            bad++;
        }
        if (doc[id] && !code[id]) {
            say("docs/lab-method.md's rule table has V%d, which no reason prints\n", id);
            bad++;
        }
        if (doc[id] > 1) {
            say("docs/lab-method.md's rule table has %u rows for V%d\n", doc[id], id);
            bad++;
        }
    }
    return bad;
}

/* Every parameter a rule names has a row; every row serves some rule. */
static int check_named(const rules_read *rr, const params_read *pr) {
    int bad = 0;
    for (size_t i = 0; i < rr->nnamed; i++)
        if (!find_row(pr, rr->named[i])) {
            say("a rule names `%s`, which the parameter table lacks\n", rr->named[i]);
            bad++;
        }
    for (size_t j = 0; j < pr->n; j++) {
        size_t i = 0;
        while (i < rr->nnamed && strcmp(rr->named[i], pr->rows[j].field) != 0)
            i++;
        if (i == rr->nnamed) {
            say("the parameter `%s` serves no rule of the rule table\n", pr->rows[j].field);
            bad++;
        }
    }
    return bad;
}

/* ---- the tests ----------------------------------------------------------------------------- */

static const char *src_dir(void) {
    const char *src = getenv("LAT_SRC_DIR");
    if (!src) LAT_SKIP("LAT_SRC_DIR is not set (run through ctest)");
    return src;
}

static char *read_doc(const char *src) {
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/lab-method.md", src);
    return slurp(path);
}

/* The ids every lab/ *.c file prints, into count. */
static void ids_in_lab(const char *src, unsigned *count) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/lab", src);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = slurp(path);
        ids_in_source(text, count);
        free(text);
        files++;
    }
    closedir(d);
    assert_true(files > 0);
}

static void test_parameter_table_matches_defaults(void **s) {
    (void)s;
    const char *src = src_dir();
    char *doc = read_doc(src);
    params_read pr = {0};
    each_row(doc, "The parameters", param_row, &pr);
    free(doc);
    assert_true(pr.n > 0);
    lat_lab_params p;
    lat_lab_params_default(&p);
    lat_lab_param list[MAXROWS];
    size_t n = lat_lab_params_list(&p, list, MAXROWS);
    assert_true(n <= MAXROWS);
    assert_int_equal(check_params(&pr, list, n), 0);
    /* lab.json's params are the list: each listed parameter under its name
     * with its value (a count as an integer), and nothing else */
    json_t *j = lat_lab_params_json(&p);
    assert_non_null(j);
    assert_int_equal(check_json(j, list, n), 0);
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        const row *r = find_row(&pr, key);
        if (!r) fail_msg("lab.json records `%s`, which the parameter table lacks", key);
        assert_true(same_value(json_number_value(v), r->value));
    }
    json_decref(j);
    /* values other than the defaults are recorded too */
    p.tick_ns = 0.5, p.min_rounds = 12, p.band_edge_share = 0.8, p.reach_est_multiple = 3;
    n = lat_lab_params_list(&p, list, MAXROWS);
    j = lat_lab_params_json(&p);
    assert_non_null(j);
    assert_int_equal(check_json(j, list, n), 0);
    json_decref(j);
}

static void test_rule_ids_match_the_code(void **s) {
    (void)s;
    const char *src = src_dir();
    char *doc = read_doc(src);
    rules_read rr = {0};
    params_read pr = {0};
    each_row(doc, "The rules", rule_row, &rr);
    each_row(doc, "The parameters", param_row, &pr);
    free(doc);
    assert_true(rr.header);
    unsigned code[MAXID] = {0};
    ids_in_lab(src, code);
    int rows = 0, printed = 0;
    for (int id = 1; id < MAXID; id++)
        rows += rr.count[id] > 0, printed += code[id] > 0;
    printf("rule ids: %d in the table, %d printed by lab/*.c\n", rows, printed);
    assert_true(rows > 0);
    assert_int_equal(check_ids(rr.count, code), 0);
    assert_int_equal(check_named(&rr, &pr), 0);
}

/* The checks above can fail: texts that disagree are caught. */
static void test_checks_can_fail(void **s) {
    (void)s;
    const char *doc =
        "# x\n\n## The rules\n\n| id | condition | parameter | why |\n|---|---|---|---|\n"
        "| V1 | a | `alpha` | b |\n| V2 | a | `ghost` | b |\n| V2 | again | - | b |\n"
        "\n## The parameters\n\n| field | default | meaning |\n|---|---|---|\n"
        "| `alpha` | 0.05 | a |\n| `unused` | 1 | b |\n";
    const char *code =
        "/* \"[V9]\" in a comment */ // \"[V8]\"\n"
        "static const char c = '\"';\n"
        "void f(void) { g(\"[V1] a\", \"x; [V3] b \\\" [V2]\", \"[V100] [v4] [V]\"); }\n";
    rules_read rr = {0};
    params_read pr = {0};
    each_row(doc, "The rules", rule_row, &rr);
    each_row(doc, "The parameters", param_row, &pr);
    assert_true(rr.header);
    g_say = false;
    unsigned ids[MAXID] = {0};
    ids_in_source(code, ids);
    for (int id = 1; id < MAXID; id++) /* comments, char constants and bad forms skipped */
        assert_int_equal(ids[id], id == 1 || id == 2 || id == 3);
    /* V3 printed without a row; V2 has two rows */
    assert_int_equal(check_ids(rr.count, ids), 2);
    unsigned none[MAXID] = {0};
    assert_int_equal(check_ids(rr.count, none), 3); /* V1 and V2 printed by nobody, V2 twice */
    /* `ghost` has no row; `unused` serves no rule */
    assert_int_equal(check_named(&rr, &pr), 2);
    /* alpha's value, `unused`, and the code's min_rounds without a row */
    const lat_lab_param list[] = {{"alpha", 0.01, false}, {"min_rounds", 10, true}};
    assert_int_equal(check_params(&pr, list, 2), 3);
    /* lab.json: alpha's value, min_rounds not an integer, `extra` */
    json_t *j = json_pack("{s:f, s:f, s:i}", "alpha", 0.05, "min_rounds", 10.0, "extra", 1);
    assert_non_null(j);
    assert_int_equal(check_json(j, list, 2), 3);
    json_decref(j);
    j = json_pack("{s:f, s:i}", "alpha", 0.01, "min_rounds", 10);
    assert_int_equal(check_json(j, list, 2), 0);
    json_decref(j);
    g_say = true;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checks_can_fail),
        cmocka_unit_test(test_parameter_table_matches_defaults),
        cmocka_unit_test(test_rule_ids_match_the_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
