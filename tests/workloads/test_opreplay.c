/* test_opreplay.c - a small text op stream through one book (opreplay.c):
 * the events and snapshots written, the final book, the ops, malformed lines
 * (handed to the callback with their line number) and rejections by reason,
 * and the totals as JSON. */
#include "lat_test.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "opreplay.h"
#include "opstream.h"

static const char stream[] = "# a comment\n"
                             "L 1 1 S 101 10 GTC\n"
                             "L 2 1 S 102 5 GTC\n"
                             "L 3 2 B 100 7 GTC\n"
                             "L 4 2 B 101 4 IOC\n"  /* takes 4 of order 1 */
                             "C 99\n"               /* unknown id */
                             "L 5 2 B 102 1 POST\n" /* would cross */
                             "L 6 2 B\n"            /* malformed */
                             "R 3 3\n"
                             "S 0\n"
                             "X SIDE S\n"
                             "S 2\n";

typedef struct bad_seen {
    uint64_t lineno;
    int calls;
} bad_seen;

static void on_bad(void *ud, uint64_t lineno, const char *why) {
    bad_seen *s = ud;
    s->lineno = lineno;
    s->calls++;
    assert_true(why[0] != '\0');
}

static void test_stream(void **state) {
    (void)state;
    char *text = NULL;
    size_t len = 0;
    bad_seen seen = {0};
    book_opreplay c = {.bad_line = on_bad, .ud = &seen};
    c.out.f = open_memstream(&text, &len);
    book_config cfg = {.price_lo = 1,
                       .price_hi = 1000,
                       .tick = 1,
                       .max_orders = 16,
                       .on_event = book_event_print,
                       .ud = &c.out};
    assert_int_equal(book_create(&cfg, &c.b), 0);
    FILE *in = fmemopen((void *)stream, strlen(stream), "r");
    char msg[256] = "";
    assert_int_equal(book_opreplay_stream(&c, in, "ops.txt", 1, msg, sizeof msg), 0);
    fclose(in);
    fclose(c.out.f);
    assert_int_equal(c.lines, 12);
    assert_int_equal(c.ops, 10);
    assert_int_equal(c.bad, 1);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.lineno, 8);
    assert_int_equal(c.rej.total, 2);
    char tally[128];
    book_tally_format(&c.rej, tally, sizeof tally);
    assert_string_equal(tally, "2 (unknown_id 1, would_cross 1)");
    assert_non_null(strstr(text, "A 1\nA 2\nA 3\nA 4\nT 1 4 101 4\nD 4\n"));
    assert_non_null(strstr(text, "J 5 would_cross\n"));
    /* full snapshot after R 3 3: bid 100 x 3; asks 101 x 6, 102 x 5 */
    const char *s0 = strstr(text, "\nS 0 ");
    assert_non_null(s0);
    assert_non_null(strstr(s0, " 1 2\nSB 100 3 1\nSA 101 6 1\nSA 102 5 1\n"));
    /* after the asks' mass cancel: one bid level, no asks */
    const char *s2 = strstr(text, "\nS 2 ");
    assert_non_null(s2);
    assert_true(s2 > s0);
    assert_non_null(strstr(s2, " 1 0\nSB 100 3 1\n"));
    assert_null(strstr(s2, "SA "));
    assert_non_null(strstr(s0, "K 1\n"));
    assert_non_null(strstr(s0, "K 2\n"));

    json_t *j = book_opreplay_json(&c, "ops.txt");
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "file")), "ops.txt");
    assert_int_equal(json_integer_value(json_object_get(j, "malformed_lines")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "rejected_ops")), 2);
    json_t *by = json_object_get(j, "rejected_by_reason");
    assert_int_equal(json_integer_value(json_object_get(by, "unknown_id")), 1);
    json_t *ev = json_object_get(j, "events"), *fin = json_object_get(j, "final");
    assert_int_equal(json_integer_value(json_object_get(ev, "accepted")), 4);
    assert_int_equal(json_integer_value(json_object_get(ev, "trades")), 1);
    assert_int_equal(json_integer_value(json_object_get(fin, "orders")), 1);
    assert_int_equal(json_integer_value(json_object_get(fin, "bid_levels")), 1);
    assert_int_equal(json_integer_value(json_object_get(fin, "ask_levels")), 0);
    json_decref(j);
    book_opreplay_fini(&c);
    book_destroy(c.b);
    free(text);
}

/* A line longer than the reader takes stops the run with the line named. */
static void test_long_line(void **state) {
    (void)state;
    static char big[BOOK_MAX_LINE + 64];
    memset(big, '#', sizeof big - 2);
    big[sizeof big - 2] = '\n';
    book_opreplay c = {0};
    c.out.f = fopen("/dev/null", "w");
    book_config cfg = {.price_lo = 1, .price_hi = 10, .tick = 1, .max_orders = 4};
    assert_int_equal(book_create(&cfg, &c.b), 0);
    FILE *in = fmemopen(big, strlen(big), "r");
    char msg[256] = "";
    assert_int_not_equal(book_opreplay_stream(&c, in, "big.txt", 1, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "big.txt:1: line longer than"));
    fclose(in);
    fclose(c.out.f);
    book_destroy(c.b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_long_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
