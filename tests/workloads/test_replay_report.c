/* test_replay_report.c - what the book's replays print (replay_report.c):
 * the event lines of a tiny book, the reject tally as text and JSON, the
 * latency line, the LOBSTER summary, and the ITCH counts and final books
 * table (a crossed book marked) from a capture built here. */
#include "lat_test.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "replay_report.h"

typedef struct mem {
    char *buf;
    size_t len;
    FILE *f;
} mem;

static FILE *mem_open(mem *m) {
    m->buf = NULL;
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
    return m->f;
}

static const char *mem_text(mem *m) {
    fclose(m->f);
    return m->buf;
}

static void test_events(void **state) {
    (void)state;
    mem m;
    book_event_out o = {.f = mem_open(&m), .fees = 1, .levels = 0};
    book_config cfg = {.price_lo = 1,
                       .price_hi = 1000,
                       .tick = 1,
                       .max_orders = 16,
                       .maker_fee_bps = -2,
                       .taker_fee_bps = 3,
                       .on_event = book_event_print,
                       .ud = &o};
    book *b;
    assert_int_equal(book_create(&cfg, &b), 0);
    assert_int_equal(book_limit(b, 1, 0, BOOK_SELL, 100, 10, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 2, 0, BOOK_BUY, 100, 4, BOOK_GTC, 0), 0);
    assert_int_equal(book_limit(b, 3, 0, BOOK_BUY, 101, 1, BOOK_GTC, BOOK_POST_ONLY), BOOK_ECROSS);
    assert_int_equal(book_cancel(b, 1), 0);
    book_destroy(b);
    /* 100 x 4 = 400; maker -2 bps: -0.08, taker 3 bps: 0.12 */
    assert_string_equal(mem_text(&m), "A 1\n"
                                      "A 2\n"
                                      "T 1 2 100 4 -0.0800 0.1200\n"
                                      "D 2\n"
                                      "J 3 would_cross\n"
                                      "K 1\n");
    assert_int_equal(o.n[BOOK_EV_ACCEPTED], 2);
    assert_int_equal(o.n[BOOK_EV_TRADE], 1);
    assert_int_equal(o.n[BOOK_EV_REJECTED], 1);
    free(m.buf);
}

static void test_tally(void **state) {
    (void)state;
    book_reject_tally t = {0};
    char buf[128];
    book_tally_format(&t, buf, sizeof buf);
    assert_string_equal(buf, "0");
    book_tally_add(&t, BOOK_EUNKNOWN);
    book_tally_add(&t, BOOK_ECROSS);
    book_tally_add(&t, BOOK_EUNKNOWN);
    book_tally_add(&t, -5); /* not a BOOK_E* code */
    book_tally_format(&t, buf, sizeof buf);
    assert_string_equal(buf, "4 (unknown_id 2, would_cross 1, other 1)");
    book_tally_format(&t, buf, 10); /* cut short, still terminated */
    assert_string_equal(buf, "4 (unknow");
    json_t *j = book_tally_json(&t);
    assert_int_equal(json_object_size(j), 3);
    assert_int_equal(json_integer_value(json_object_get(j, "unknown_id")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "would_cross")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "other")), 1);
    json_decref(j);
}

static void test_latency(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000000, 3), 0);
    for (int i = 0; i < 999; i++)
        lat_hist_record(&h, 100);
    lat_hist_record(&h, 900);
    mem m;
    book_latency_print(mem_open(&m), &h);
    assert_string_equal(mem_text(&m), "latency ns      p50 100  p99 100  p99.9 100  p99.99 900  "
                                      "max 900  (1000 samples)\n");
    free(m.buf);
    json_t *j = book_latency_json(&h);
    assert_int_equal(json_integer_value(json_object_get(j, "samples")), 1000);
    assert_int_equal(json_integer_value(json_object_get(j, "p99_99")), 900);
    json_decref(j);
    lat_hist_fini(&h);
}

static void test_lobster(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000000, 3), 0);
    lat_hist_record(&h, 50);
    lobster_counts c = {.messages = 2000000,
                        .crossing = 1,
                        .wrong_price = 2,
                        .rows_compared = 9,
                        .rows_mismatch = 1,
                        .unappliable = 3,
                        .unappliable_depth = 2};
    c.by_type[1] = 1500000, c.by_type[3] = 500000;
    lobster_mismatch mm = {.level = 2, .side = BOOK_SELL, .book_price = 1010000, .book_qty = 5};
    book_lobster_summary s = {"m.csv", "o.csv", &c, 4, 10, &mm, 1, 7, 0.5, 0.25, &h};
    mem m;
    book_lobster_print(mem_open(&m), &s);
    const char *t = mem_text(&m);
    assert_non_null(strstr(t,
                           "file            m.csv\nmessages        2000000 (malformed lines 4)\n"
                           "by type         1 new 1500000, 2 partial cancel 0, 3 delete 500000,"));
    assert_non_null(strstr(t, "unappliable     3 (2 outside the file's depth)\n"));
    assert_non_null(strstr(t, "inconsistent    1 crossing adds refused, 2 with another price or "
                              "direction than their order's, 0 times going backwards (LOBSTER "
                              "never has these)\n"));
    assert_non_null(
        strstr(t, "orderbook       o.csv: 9 rows compared on 10 levels, 1 mismatching"));
    assert_non_null(strstr(t, "first mismatch  row 7 level 2 ask: book 1010000 x 5, file none\n"));
    assert_non_null(strstr(t, "throughput      4.00 M messages/s (2000000 messages in 0.500 s"));
    assert_non_null(strstr(t, "on-CPU          8.00 M messages per CPU-second (0.250 s on a CPU)"));
    free(m.buf);
    json_t *j = book_lobster_json(&s);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "orderbook")), "o.csv");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "by_type"), "3")),
                     500000);
    assert_int_equal(json_integer_value(json_object_get(j, "malformed_lines")), 4);
    json_t *inc = json_object_get(j, "inconsistent");
    assert_int_equal(json_integer_value(json_object_get(inc, "wrong_price")), 2);
    assert_float_equal(json_real_value(json_object_get(j, "messages_per_s")), 4e6, 1e-6);
    json_decref(j);
    lat_hist_fini(&h);
}

/* An ITCH 'R' (directory) or 'A' (add) message, framed, appended at buf + n. */
static size_t itch_put(uint8_t *buf, size_t n, uint8_t type, uint16_t loc, uint64_t ref, char side,
                       uint32_t shares, uint32_t price, const char *sym) {
    size_t len = itch_msg_len(type);
    uint8_t *p = buf + n + 2;
    memset(buf + n, 0, len + 2);
    buf[n + 1] = (uint8_t)len;
    p[0] = type;
    p[2] = (uint8_t)loc;
    for (int i = 0; i < 8; i++) {
        p[11 + i] = type == 'R' ? (uint8_t)sym[i] : (uint8_t)(ref >> (56 - 8 * i));
        if (type == 'A') p[24 + i] = (uint8_t)sym[i];
    }
    if (type == 'A') {
        p[19] = (uint8_t)side;
        for (int i = 0; i < 4; i++) {
            p[20 + i] = (uint8_t)(shares >> (24 - 8 * i));
            p[32 + i] = (uint8_t)(price >> (24 - 8 * i));
        }
    }
    return n + 2 + len;
}

static void test_itch(void **state) {
    (void)state;
    uint8_t buf[512];
    size_t n = itch_put(buf, 0, 'R', 7, 0, 0, 0, 0, "ABC     ");
    n = itch_put(buf, n, 'A', 7, 1, 'B', 100, 100000, "ABC     ");
    n = itch_put(buf, n, 'A', 7, 2, 'S', 70, 100500, "ABC     ");
    n = itch_put(buf, n, 'A', 8, 3, 'B', 10, 100500, "XY      ");
    n = itch_put(buf, n, 'A', 8, 4, 'S', 20, 100000,
                 "XY      "); /* crosses the bid; no R: no symbol */
    n = itch_put(buf, n, 'A', 8, 3, 'B', 10, 100500, "XY      "); /* duplicate ref */
    itch_replay *r;
    size_t off = 0;
    assert_int_equal(itch_replay_create(buf, n, 0, &r, &off), 0);
    itch_reader rd;
    itch_msg msg;
    itch_reader_init(&rd, buf, n);
    while (itch_next(&rd, &msg) == 1)
        itch_replay_apply(r, &msg);
    mem m;
    itch_counts_print(mem_open(&m), itch_replay_counts(r));
    assert_string_equal(mem_text(&m), "by type         A 5 R 1\n"
                                      "unknown refs    0 (E 0, C 0, X 0, D 0, U 0)\n"
                                      "anomalies       1 duplicate adds, 0 rejected adds, 0 "
                                      "over-executions\n");
    free(m.buf);
    json_t *j = itch_books_print(mem_open(&m), r);
    const char *t = mem_text(&m);
    assert_string_equal(
        t, "\nlocate symbol    orders          bid    bid_qty          ask    ask_qty\n"
           "7      ABC            2      10.0000        100      10.0500         70\n"
           "8      ?              2      10.0500         10      10.0000         20"
           "  CROSSED (bid above ask)\n"
           "1 book is crossed or locked: resting orders that would have traded; "
           "the feed is inconsistent (messages missing, or the replay starts "
           "mid-day)\n");
    free(m.buf);
    assert_int_equal(json_array_size(j), 2);
    json_t *x = json_array_get(j, 1);
    assert_string_equal(json_string_value(json_object_get(x, "symbol")), "");
    assert_true(json_is_true(json_object_get(x, "crossed")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(x, "ask"), "price_e4")),
                     100000);
    assert_null(json_object_get(json_array_get(j, 0), "crossed"));
    json_decref(j);
    itch_replay_destroy(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events),  cmocka_unit_test(test_tally),
        cmocka_unit_test(test_latency), cmocka_unit_test(test_lobster),
        cmocka_unit_test(test_itch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
