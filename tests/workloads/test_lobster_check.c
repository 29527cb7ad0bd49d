/* test_lobster_check.c - a LOBSTER message file checked against its
 * orderbook file (lobster_check.c): rows consistent with the book pass, a
 * crossing add is refused, a wrong-price delete and a time going backwards
 * are counted (and applied), a row the book disagrees with is the first
 * mismatch, a malformed line is counted; files of different lengths fail. */
#include "lat_test.h"

#include <stdlib.h>
#include <string.h>

#include "lobster_check.h"

/* tick 1 cent (100 input units), one level per row: ask px, ask qty, bid px, bid qty */
static const char msgs[] = "34200.0,1,1,100,1000000,1\n" /* seeds the book (row 1) */
                           "34200.1,1,2,50,1010000,-1\n" /* an ask: consistent */
                           "34200.2,1,3,10,1000000,-1\n" /* sell at the bid: crossing */
                           "34200.3,3,2,50,1020000,-1\n" /* delete order 2 at a wrong price */
                           "34200.25,2,1,30,1000000,1\n" /* time backwards; bid 100 -> 70 */
                           "34200.4,oops\n";             /* malformed */
static const char rows[] = "9999999999,0,1000000,100\n"
                           "1010000,50,1000000,100\n"
                           "1010000,50,1000000,100\n"
                           "9999999999,0,1000000,100\n"
                           "9999999999,0,1000000,60\n" /* the book has 70: mismatch */
                           "9999999999,0,1000000,70\n";

typedef struct fixture {
    lobster_check c;
    char *diag;
    size_t diag_len;
} fixture;

static int run(fixture *x, const char *m, const char *o, uint64_t show) {
    memset(x, 0, sizeof *x);
    lobster_check *c = &x->c;
    c->msg_path = "msgs";
    c->ob_path = "ob";
    c->tick = 100;
    c->show = show;
    c->who = "lob";
    c->diag = open_memstream(&x->diag, &x->diag_len);
    c->msg = fmemopen((void *)m, strlen(m), "r");
    c->ob = fmemopen((void *)o, strlen(o), "r");
    assert_true(c->diag && c->msg && c->ob);
    book_lines_init(&c->lo, c->ob);
    book_lines_init(&c->lm, c->msg);
    assert_int_equal(lobster_check_next_row(c), 1);
    c->nlevels = c->row.nlevels;
    assert_int_equal(c->nlevels, 1);
    assert_int_equal(lobster_replay_create(100, 2000000, 1, 1, &c->r), 0);
    assert_int_equal(lat_hist_init(&c->h, 1, 1000000000, 3), 0);
    int rc = lobster_check_run(c);
    fclose(c->diag);
    fclose(c->msg);
    fclose(c->ob);
    return rc;
}

static void done(fixture *x) {
    lat_hist_fini(&x->c.h);
    lobster_replay_destroy(x->c.r);
    free(x->diag);
}

static void test_rows(void **state) {
    (void)state;
    fixture x;
    assert_int_equal(run(&x, msgs, rows, 10), 0);
    const lobster_counts *k = lobster_replay_counts(x.c.r);
    assert_int_equal(k->messages, 5);
    assert_int_equal(k->by_type[1], 3);
    assert_int_equal(k->by_type[2], 1);
    assert_int_equal(k->by_type[3], 1);
    assert_int_equal(k->crossing, 1);
    assert_int_equal(k->wrong_price, 1);
    assert_int_equal(k->time_backwards, 1);
    assert_int_equal(k->prewindow, 1);
    assert_int_equal(k->unappliable, 0);
    assert_int_equal(k->rows_compared, 4);
    assert_int_equal(k->rows_mismatch, 1);
    assert_int_equal(x.c.bad, 1);
    assert_int_equal(x.c.first_kind, 1);
    assert_int_equal(x.c.first_mismatch_line, 5);
    assert_int_equal(x.c.first.side, BOOK_BUY);
    assert_int_equal(x.c.first.book_qty, 70);
    assert_int_equal(x.c.first.file_qty, 60);
    assert_int_equal(lat_hist_total(&x.c.h), 4); /* each applied message timed */
    const char *d = x.diag;
    assert_non_null(strstr(d, "lob: msgs:3: a sell at or below the resting bid"));
    assert_non_null(strstr(d, "lob: msgs:4: price differs from the resting order's"));
    assert_non_null(strstr(d, "lob: msgs:5: timestamp earlier than the previous message's"));
    assert_non_null(strstr(d, "lob: ob:5: level 1 bid: book 1000000 x 70, file 1000000 x 60\n"));
    assert_non_null(strstr(d, "lob: msgs:6: "));
    assert_null(strstr(d, "msgs:2:"));
    assert_null(strstr(d, "ob:4:"));
    done(&x);
}

/* The report budget: two reports written, every problem still counted. */
static void test_budget(void **state) {
    (void)state;
    fixture x;
    assert_int_equal(run(&x, msgs, rows, 2), 0);
    assert_int_equal(x.c.shown, 5);
    int lines = 0;
    for (const char *p = x.diag; (p = strstr(p, "lob: ")); p++)
        lines++;
    assert_int_equal(lines, 2);
    assert_int_equal(lobster_replay_counts(x.c.r)->rows_mismatch, 1);
    assert_int_equal(x.c.first_mismatch_line, 5);
    done(&x);
}

static void test_lengths_differ(void **state) {
    (void)state;
    fixture x;
    char more[sizeof rows + 64];
    snprintf(more, sizeof more, "%s%s", rows, "9999999999,0,1000000,70\n");
    assert_int_equal(run(&x, msgs, more, 10), -1);
    assert_non_null(strstr(x.c.err, "ob has more rows than msgs has messages"));
    done(&x);
    assert_int_equal(run(&x, msgs, "9999999999,0,1000000,100\n1010000,50,1000000,100\n", 10), -1);
    assert_non_null(strstr(x.c.err, "ob ends at row "));
    done(&x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_lengths_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
