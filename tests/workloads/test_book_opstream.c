/* test_book_opstream.c - the op-stream reader of `latlab book replay`
 * (workloads/book/opstream.h): bounded lines (a NUL byte, a line over the
 * limit, zeros, no final newline), tick arithmetic, the price-on-tick check,
 * the E op, and field errors with their reasons. */
#include "lat_test.h"

#include "latlab/error.h"
#include "opstream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static FILE *mem(const char *data, size_t n) {
    FILE *f = fmemopen((void *)data, n, "r");
    assert_non_null(f);
    return f;
}

static void test_lines(void **state) {
    (void)state;
    static const char text[] = "L 1 1 S 100 5 GTC\r\n\nC 1";
    FILE *f = mem(text, sizeof text - 1);
    book_lines r;
    book_lines_init(&r, f);
    char *line;
    size_t len;
    assert_int_equal(book_lines_next(&r, &line, &len), 1);
    assert_string_equal(line, "L 1 1 S 100 5 GTC");
    assert_int_equal(book_lines_next(&r, &line, &len), 1);
    assert_int_equal(len, 0);
    assert_int_equal(book_lines_next(&r, &line, &len), 1); /* no final newline */
    assert_string_equal(line, "C 1");
    assert_int_equal(r.lineno, 3);
    assert_int_equal(book_lines_next(&r, &line, &len), 0);
    fclose(f);
}

/* A NUL byte is kept in the line (len says so) and the parser names it. */
static void test_nul_byte(void **state) {
    (void)state;
    static const char text[] = "C 1\nL 1 1 S 100 5 GTC\0junk\n";
    FILE *f = mem(text, sizeof text - 1);
    book_lines r;
    book_lines_init(&r, f);
    char *line, why[128];
    size_t len;
    book_op op;
    assert_int_equal(book_lines_next(&r, &line, &len), 1);
    assert_int_equal(book_op_parse(line, len, 1, &op, why, sizeof why), 0);
    assert_int_equal(book_lines_next(&r, &line, &len), 1);
    assert_int_equal(len, 22);
    assert_int_equal(book_op_parse(line, len, 1, &op, why, sizeof why), LAT_EFORMAT);
    assert_string_equal(why, "NUL byte at column 18");
    fclose(f);
}

/* Zeros without a newline: one line over the limit, an error, and reading
 * stops (the buffer never grows). */
static void test_zeros_too_long(void **state) {
    (void)state;
    size_t n = 1 << 20;
    char *z = calloc(1, n);
    assert_non_null(z);
    FILE *f = mem(z, n);
    book_lines r;
    book_lines_init(&r, f);
    char *line;
    size_t len;
    assert_int_equal(book_lines_next(&r, &line, &len), LAT_EFORMAT);
    assert_int_equal(r.lineno, 1);
    assert_int_equal(book_lines_next(&r, &line, &len), 0);
    fclose(f);
    free(z);
    /* exactly the limit is fine */
    char *l = malloc(BOOK_MAX_LINE + 1);
    assert_non_null(l);
    memset(l, ' ', BOOK_MAX_LINE);
    l[BOOK_MAX_LINE] = '\n';
    f = mem(l, BOOK_MAX_LINE + 1);
    book_lines_init(&r, f);
    assert_int_equal(book_lines_next(&r, &line, &len), 1);
    assert_int_equal(len, BOOK_MAX_LINE);
    fclose(f);
    free(l);
}

static void test_tick_units(void **state) {
    (void)state;
    int64_t u;
    assert_int_equal(book_tick_units("0.01", 10000, &u), 0);
    assert_int_equal(u, 100);
    assert_int_equal(book_tick_units("1", 1, &u), 0);
    assert_int_equal(u, 1);
    assert_int_equal(book_tick_units("0.5", 10, &u), 0);
    assert_int_equal(u, 5);
    assert_int_equal(book_tick_units("0.001", 100, &u), LAT_EFORMAT); /* 0.1 unit */
    assert_int_equal(book_tick_units("0", 100, &u), LAT_EFORMAT);
    assert_int_equal(book_tick_units("-1", 100, &u), LAT_EFORMAT);
    assert_int_equal(book_tick_units("1e3", 1, &u), LAT_EFORMAT);
    assert_int_equal(book_tick_units("", 1, &u), LAT_EFORMAT);
    assert_int_equal(book_tick_units(".", 1, &u), LAT_EFORMAT);
    int64_t lo = 1, hi = 1000;
    assert_int_equal(book_band_on_tick(&lo, &hi, 100), 0);
    assert_true(lo == 100 && hi == 1000);
    lo = -250, hi = -1;
    assert_int_equal(book_band_on_tick(&lo, &hi, 100), 0);
    assert_true(lo == -200 && hi == -100);
    lo = 1, hi = 99;
    assert_int_equal(book_band_on_tick(&lo, &hi, 100), -EINVAL);
    lo = INT64_MIN, hi = INT64_MAX;
    assert_int_equal(book_band_on_tick(&lo, &hi, 1), -EINVAL);
    lo = 1, hi = BOOK_MAX_LEVELS;
    assert_int_equal(book_band_on_tick(&lo, &hi, 1), 0);
    lo = 0, hi = BOOK_MAX_LEVELS;
    assert_int_equal(book_band_on_tick(&lo, &hi, 1), -EINVAL);
}

static void parse_ok(const char *text, int64_t tick, book_op *op) {
    char buf[256], why[256];
    strcpy(buf, text);
    int rc = book_op_parse(buf, strlen(buf), tick, op, why, sizeof why);
    if (rc) fail_msg("'%s': %s", text, why);
}

static void parse_bad(const char *text, int64_t tick, const char *want) {
    char buf[256], why[256];
    book_op op;
    strcpy(buf, text);
    assert_int_equal(book_op_parse(buf, strlen(buf), tick, &op, why, sizeof why), LAT_EFORMAT);
    if (!strstr(why, want)) fail_msg("'%s': reason '%s' lacks '%s'", text, why, want);
}

static void test_parse(void **state) {
    (void)state;
    book_op op;
    parse_ok("L 7 3 B 5850100 25 POST # comment", 100, &op);
    assert_int_equal(op.kind, BOOK_OP_LIMIT);
    assert_true(op.id == 7 && op.owner == 3 && op.side == BOOK_BUY && op.price == 5850100);
    assert_true(op.qty == 25 && op.tif == BOOK_GTC && op.flags == BOOK_POST_ONLY);
    parse_ok("E 7 10", 1, &op);
    assert_true(op.kind == BOOK_OP_EXEC && op.id == 7 && op.qty == 10);
    parse_ok("   # only a comment", 1, &op);
    assert_int_equal(op.kind, BOOK_OP_NONE);
    parse_ok("X RANGE -200 300", 100, &op);
    assert_true(op.kind == BOOK_OP_MASS && op.filter.by_price && op.filter.price_lo == -200);
    parse_bad("L 7 3 B 5850150 25 GTC", 100,
              "price 5850150 is not on the tick (a multiple of 100)");
    parse_bad("P 7 5850150 25", 100, "new_price 5850150 is not on the tick");
    parse_ok("X RANGE 1 350", 100, &op); /* a range's ends need not sit on the tick */
    parse_bad("E 7", 1, "'E' needs 3 fields");
    parse_bad("E 7 -1", 1, "qty '-1'");
    parse_bad("L 1 1 S 99999999999999999999 5 GTC", 1, "not an integer in range");
    parse_bad("R 1 4294967296", 1, "out of range");
    parse_bad("Q 1", 1, "unknown op 'Q'");
    parse_bad("L 1 1 S 1 1 GTC a b", 1, "too many fields");
}

/* book_op_apply runs what was parsed; the result is the book's. */
static void test_apply(void **state) {
    (void)state;
    book_config cfg = {.price_lo = 100, .price_hi = 10000, .tick = 100, .max_orders = 16};
    book *b;
    assert_int_equal(book_create(&cfg, &b), 0);
    book_op op;
    parse_ok("L 1 1 S 500 5 GTC", 100, &op);
    assert_int_equal(book_op_apply(b, &op), 0);
    parse_ok("E 1 9", 100, &op);
    assert_int_equal(book_op_apply(b, &op), BOOK_EEXCESS);
    parse_ok("E 1 5", 100, &op);
    assert_int_equal(book_op_apply(b, &op), 0);
    assert_int_equal(book_order_count(b), 0);
    parse_ok("L 2 1 S 20000 5 GTC", 100, &op);
    assert_int_equal(book_op_apply(b, &op), BOOK_EBAND);
    book_destroy(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),          cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_zeros_too_long), cmocka_unit_test(test_tick_units),
        cmocka_unit_test(test_parse),          cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
