/* test_lobster.c - the LOBSTER reader and replay (workloads/book/lobster.h):
 * fields and reasons, each message type's effect on the book, pre-window
 * levels, and a fixture written by lobster_synth_write() from latlab's own
 * book replayed with zero book mismatches and its depth-window ones labelled. */
#include "lat_test.h"

#include "latlab/error.h"
#include "lobster.h"
#include "opstream.h"

#include <stdlib.h>
#include <string.h>

static void msg_ok(const char *text, lobster_msg *m) {
    char buf[256], why[256];
    strcpy(buf, text);
    if (lobster_parse_msg(buf, strlen(buf), 100, m, why, sizeof why)) fail_msg("%s: %s", text, why);
}

static void msg_bad(const char *text, const char *want) {
    char buf[256], why[256];
    lobster_msg m;
    strcpy(buf, text);
    assert_int_equal(lobster_parse_msg(buf, strlen(buf), 100, &m, why, sizeof why), LAT_EFORMAT);
    if (!strstr(why, want)) fail_msg("%s: reason '%s' lacks '%s'", text, why, want);
}

static void test_parse(void **state) {
    (void)state;
    lobster_msg m;
    msg_ok("34200.004241176,1,16113575,18,5853300,1", &m);
    assert_true(m.time_ns == 34200004241176ull && m.type == 1 && m.id == 16113575);
    assert_true(m.size == 18 && m.price == 5853300 && m.side == BOOK_BUY);
    msg_ok("34200.5,7,0,0,-1,-1", &m); /* halt: price -1, no tick check */
    assert_true(m.type == 7 && m.price == -1 && m.side == BOOK_SELL);
    msg_ok("34200,5,0,10,5853350,-1", &m); /* hidden execution off the tick is fine */
    msg_bad("34200.1,1,1,18,5853350,1", "not a positive multiple of the tick");
    msg_bad("34200.1,1,1,18,5853300", "5 columns, want 6");
    msg_bad("34200.1,1,1,18,5853300,1,9", "more than 6 columns");
    msg_bad("34200.1,8,1,18,5853300,1", "type is not 1..7");
    msg_bad("34200.1,1,1,-18,5853300,1", "size is not");
    msg_bad("x,1,1,18,5853300,1", "time is not");
    msg_bad("34200.1,1,1,18,5853300,2", "direction is not 1 or -1");
    char row[] = "5853400,100,5853300,200,9999999999,0,-9999999999,0", why[256];
    lobster_row r;
    assert_int_equal(lobster_parse_row(row, strlen(row), 100, 0, &r, why, sizeof why), 0);
    assert_int_equal(r.nlevels, 2);
    assert_true(r.ask[0].price == 5853400 && r.bid[0].qty == 200 && r.ask[1].price == 0);
    char row2[] = "5853400,100,5853300,200";
    assert_int_equal(lobster_parse_row(row2, strlen(row2), 100, 2, &r, why, sizeof why),
                     LAT_EFORMAT);
    assert_non_null(strstr(why, "4 columns, want 8"));
}

static int apply(lobster_replay *r, const char *text) {
    lobster_msg m;
    const char *reason;
    msg_ok(text, &m);
    return lobster_replay_apply(r, &m, &reason);
}

static uint64_t qty_at(lobster_replay *r, book_side side) {
    uint64_t q = 0;
    int64_t p;
    book_best(lobster_replay_book(r), side, &p, &q);
    return q;
}

/* Each type's effect, and an order that rested before the window. */
static void test_types(void **state) {
    (void)state;
    lobster_replay *r;
    assert_int_equal(lobster_replay_create(100, 0, 1, 1, &r), 0);
    char first[] = "585100,40,585000,100";
    char why[256];
    lobster_row row;
    assert_int_equal(lobster_parse_row(first, strlen(first), 100, 1, &row, why, sizeof why), 0);
    assert_int_equal(lobster_replay_start(r, &row), 0);
    assert_int_equal(apply(r, "1,1,7,30,585000,1"), 0);
    assert_int_equal(qty_at(r, BOOK_BUY), 130);
    assert_int_equal(apply(r, "1,2,7,10,585000,1"), 0); /* partial cancel */
    assert_int_equal(qty_at(r, BOOK_BUY), 120);
    assert_int_equal(apply(r, "1,4,7,5,585000,1"), 0); /* visible execution */
    assert_int_equal(qty_at(r, BOOK_BUY), 115);
    assert_int_equal(apply(r, "1,5,0,9,585050,1"), 0); /* hidden: nothing visible */
    assert_int_equal(apply(r, "1,6,0,900,585050,1"), 0);
    assert_int_equal(apply(r, "1,7,0,0,-1,-1"), 0);
    assert_int_equal(qty_at(r, BOOK_BUY), 115);
    assert_int_equal(apply(r, "1,3,7,15,585000,1"), 0); /* delete */
    assert_int_equal(qty_at(r, BOOK_BUY), 100);
    assert_int_equal(apply(r, "1,4,3,60,585000,1"), 1); /* pre-window: off the level */
    assert_int_equal(qty_at(r, BOOK_BUY), 40);
    assert_int_equal(apply(r, "1,3,4,50,585000,1"), BOOK_EEXCESS); /* more than is left */
    assert_int_equal(apply(r, "1,3,5,10,585300,-1"), BOOK_EUNKNOWN);
    assert_int_equal(apply(r, "1,1,8,10,585000,1"), 0);
    assert_int_equal(apply(r, "1,1,8,10,585000,1"), BOOK_EDUP);
    assert_int_equal(apply(r, "1,2,8,11,585000,1"), BOOK_EEXCESS);
    const lobster_counts *c = lobster_replay_counts(r);
    assert_int_equal(c->prewindow, 1);
    assert_int_equal(c->unappliable, 4);
    assert_int_equal(c->by_type[1], 3);
    lobster_replay_destroy(r);
}

/* What LOBSTER never contains: each counted with its reason; a crossing add
 * refused (the book does not cross), the others applied. */
static void test_inconsistent(void **state) {
    (void)state;
    lobster_replay *r;
    assert_int_equal(lobster_replay_create(100, 0, 0, 0, &r), 0);
    const char *why;
    lobster_msg m;
    msg_ok("10,1,1,100,585000,1", &m);
    assert_int_equal(lobster_replay_apply(r, &m, &why), 0);
    assert_string_equal(why, "");
    msg_ok("11,1,2,50,585200,-1", &m);
    assert_int_equal(lobster_replay_apply(r, &m, &why), 0);
    msg_ok("12,1,3,10,585000,-1", &m); /* a sell at the bid */
    assert_int_equal(lobster_replay_apply(r, &m, &why), BOOK_EARG);
    assert_non_null(strstr(why, "would cross"));
    msg_ok("12,1,4,10,585300,1", &m); /* a buy above the ask */
    assert_int_equal(lobster_replay_apply(r, &m, &why), BOOK_EARG);
    assert_int_equal(book_crossed(lobster_replay_book(r)), 0);
    msg_ok("11,3,1,100,584900,1", &m); /* time back, and the wrong price */
    assert_int_equal(lobster_replay_apply(r, &m, &why), 0);
    assert_non_null(strstr(why, "price differs"));
    msg_ok("13,2,2,10,585200,1", &m); /* the wrong direction */
    assert_int_equal(lobster_replay_apply(r, &m, &why), 0);
    assert_non_null(strstr(why, "direction differs"));
    const lobster_counts *c = lobster_replay_counts(r);
    assert_int_equal(c->crossing, 2);
    assert_int_equal(c->wrong_price, 2);
    assert_int_equal(c->time_backwards, 1);
    assert_int_equal(c->unappliable, 0);
    lobster_replay_destroy(r);
}

/* A fixture from latlab's own book: zero book mismatches; the few events
 * left out beyond the depth show up only as labelled mismatches. */
static void test_synth_roundtrip(void **state) {
    (void)state;
    char *mb = NULL, *ob = NULL;
    size_t ml = 0, ol = 0;
    FILE *mf = open_memstream(&mb, &ml), *of = open_memstream(&ob, &ol);
    lobster_synth_cfg cfg = {.seed = 3, .messages = 5000, .levels = 4, .hidden_pm = 10};
    lobster_synth_stats st;
    assert_int_equal(lobster_synth_write(&cfg, mf, of, &st), 0);
    fclose(mf);
    fclose(of);
    assert_int_equal(st.written, 5000);
    assert_true(st.unseen > 0 && st.prewindow_refs > 0);
    for (int t = 1; t <= 6; t++)
        assert_true(st.by_type[t] > 0);
    FILE *m = fmemopen(mb, ml, "r"), *o = fmemopen(ob, ol, "r");
    book_lines lm, lo;
    book_lines_init(&lm, m);
    book_lines_init(&lo, o);
    lobster_replay *r;
    assert_int_equal(lobster_replay_create(100, 1000000, 4, 4, &r), 0);
    char *line, why[256];
    size_t len;
    lobster_row row;
    uint64_t book_err = 0, depth = 0;
    for (uint64_t k = 0; book_lines_next(&lm, &line, &len) == 1; k++) {
        lobster_msg msg;
        assert_int_equal(lobster_parse_msg(line, len, 100, &msg, why, sizeof why), 0);
        assert_int_equal(book_lines_next(&lo, &line, &len), 1);
        assert_int_equal(lobster_parse_row(line, len, 100, 4, &row, why, sizeof why), 0);
        if (k == 0) {
            assert_int_equal(lobster_replay_start(r, &row), 0);
            continue;
        }
        const char *reason;
        lobster_replay_apply(r, &msg, &reason);
        lobster_mismatch mm;
        int kind = lobster_replay_compare(r, &row, &mm);
        book_err += kind == 1;
        depth += kind == 2;
    }
    const lobster_counts *c = lobster_replay_counts(r);
    printf("5000 messages, %llu unseen: %llu rows outside the depth, %llu book mismatches, "
           "%llu pre-window\n",
           (unsigned long long)st.unseen, (unsigned long long)depth, (unsigned long long)book_err,
           (unsigned long long)c->prewindow);
    assert_int_equal(book_err, 0);
    assert_true(depth > 0);
    assert_int_equal(c->unappliable, c->unappliable_depth);
    lobster_replay_destroy(r);
    fclose(m);
    fclose(o);
    free(mb);
    free(ob);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_inconsistent),
        cmocka_unit_test(test_synth_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
