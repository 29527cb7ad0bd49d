/* test_itchgen.c - the synthetic ITCH 5.0 capture generator: message counts
 * and mix as asked, valid framing (real length prefixes), the same bytes for
 * the same seed and different bytes for another, readable by the ITCH reader
 * with no unknown references, the mean rate near the one asked, and bursts
 * that show (the busiest 100 us window of a bursty capture holds several
 * times what a plain Poisson capture's does). */
#include "lat_test.h"

#include "itch.h"
#include "itchgen.h"
#include "latlab/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct capture {
    char *buf;
    size_t len;
    itchgen_counts cn;
} capture;

static void generate(const itchgen_config *c, capture *out) {
    FILE *f = open_memstream(&out->buf, &out->len);
    assert_non_null(f);
    assert_int_equal(itchgen_write(c, f, &out->cn), 0);
    assert_int_equal(fclose(f), 0);
}

static itchgen_config small_config(uint64_t seed) {
    itchgen_config c;
    itchgen_config_default(&c);
    c.messages = 20000;
    c.stocks = 5;
    c.seed = seed;
    return c;
}

static void test_counts_mix_and_framing(void **state) {
    (void)state;
    itchgen_config c = small_config(3);
    capture cap;
    generate(&c, &cap);
    assert_int_equal(cap.cn.messages, c.messages);
    assert_int_equal(cap.cn.by_type['S'], 2);
    assert_int_equal(cap.cn.by_type['R'], c.stocks);
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, (const uint8_t *)cap.buf, cap.len);
    uint64_t n = 0, by[256] = {0}, prev_ts = 0;
    int rc;
    while ((rc = itch_next(&rd, &m)) == 1) {
        const uint8_t *frame = (const uint8_t *)cap.buf + m.offset;
        assert_int_equal((frame[0] << 8) | frame[1], m.len); /* real prefixes */
        assert_true(m.ts_ns >= prev_ts);                     /* never backwards */
        prev_ts = m.ts_ns;
        if (n == 0) assert_int_equal(m.type, 'S');
        if (n >= 1 && n <= c.stocks) assert_int_equal(m.type, 'R'); /* directory first */
        by[m.type]++;
        n++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, c.messages);
    for (int t = 0; t < 256; t++)
        assert_int_equal(by[t], cap.cn.by_type[t]);
    /* the mix within a few points of the documented per-mille weights */
    double orders = (double)(c.messages - c.stocks - 2);
    const struct {
        char type;
        double want;
    } mix[] = {{'A', .43}, {'F', .01}, {'D', .28}, {'X', .06}, {'E', .12}, {'C', .01}, {'U', .09}};
    for (size_t i = 0; i < sizeof mix / sizeof mix[0]; i++) {
        double got = (double)by[(uint8_t)mix[i].type] / orders;
        if (got < mix[i].want * 0.7 - 0.005 || got > mix[i].want * 1.3 + 0.005)
            fail_msg("type %c: %.4f of orders, want about %.2f", mix[i].type, got, mix[i].want);
    }
    /* the mean rate near the one asked */
    double rate = (double)c.messages * 1e9 / (double)cap.cn.span_ns;
    assert_true(rate > c.rate_hz * 0.7 && rate < c.rate_hz * 1.3);
    free(cap.buf);
}

static void test_replays_cleanly(void **state) {
    (void)state;
    itchgen_config c = small_config(11);
    capture cap;
    generate(&c, &cap);
    itch_replay *r = NULL;
    size_t off = 0;
    assert_int_equal(itch_replay_create((const uint8_t *)cap.buf, cap.len, 0, &r, &off), 0);
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, (const uint8_t *)cap.buf, cap.len);
    while (itch_next(&rd, &m) == 1)
        itch_replay_apply(r, &m);
    const itch_counts *cn = itch_replay_counts(r);
    assert_int_equal(cn->messages, c.messages);
    assert_int_equal(cn->unknown_ref, 0);
    assert_int_equal(cn->dup_add, 0);
    assert_int_equal(cn->rejected_add, 0);
    assert_int_equal(cn->over_exec, 0);
    int nstocks = 0;
    for (int i = itch_replay_stock_next(r, -1); i >= 0; i = itch_replay_stock_next(r, i)) {
        const itch_stock *s = itch_replay_stock(r, (uint16_t)i);
        assert_int_equal(strncmp(s->symbol, "STK", 3), 0);
        nstocks++;
    }
    assert_int_equal(nstocks, c.stocks);
    itch_replay_destroy(r);
    free(cap.buf);
}

static void test_deterministic_per_seed(void **state) {
    (void)state;
    itchgen_config c = small_config(42);
    capture a, b, d;
    generate(&c, &a);
    generate(&c, &b);
    c.seed = 43;
    generate(&c, &d);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.buf, b.buf, a.len);
    assert_true(a.len != d.len || memcmp(a.buf, d.buf, a.len) != 0);
    free(a.buf);
    free(b.buf);
    free(d.buf);
}

/* Most messages with timestamps inside any 100 us window. */
static uint64_t busiest_100us(const capture *cap) {
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, (const uint8_t *)cap->buf, cap->len);
    uint64_t *ts = calloc(cap->cn.messages, sizeof *ts), n = 0, best = 0, lo = 0;
    assert_non_null(ts);
    while (itch_next(&rd, &m) == 1)
        ts[n++] = m.ts_ns;
    for (uint64_t j = 0; j < n; j++) {
        while (ts[j] - ts[lo] >= 100000)
            lo++;
        if (j - lo + 1 > best) best = j - lo + 1;
    }
    free(ts);
    return best;
}

static void test_bursts_show(void **state) {
    (void)state;
    itchgen_config c = small_config(5);
    c.messages = 50000;
    c.peak_to_mean = 1; /* plain Poisson: ~20 per 100 us at 200k/s */
    capture flat, bursty;
    generate(&c, &flat);
    c.peak_to_mean = 20;
    generate(&c, &bursty);
    assert_true(bursty.cn.bursts > 0);
    uint64_t f = busiest_100us(&flat), b = busiest_100us(&bursty);
    if (b < 3 * f)
        fail_msg("busiest 100 us: bursty %lu vs flat %lu", (unsigned long)b, (unsigned long)f);
    free(flat.buf);
    free(bursty.buf);
}

static void test_bad_config(void **state) {
    (void)state;
    itchgen_config c = small_config(1);
    FILE *f = fopen("/dev/null", "w");
    assert_non_null(f);
    c.messages = c.stocks + 1; /* no room for the two system events */
    assert_int_equal(itchgen_write(&c, f, NULL), -EINVAL);
    c = small_config(1);
    c.peak_to_mean = 0.5;
    assert_int_equal(itchgen_write(&c, f, NULL), -EINVAL);
    c = small_config(1);
    c.stocks = 0;
    assert_int_equal(itchgen_write(&c, f, NULL), -EINVAL);
    fclose(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_mix_and_framing),
        cmocka_unit_test(test_replays_cleanly),
        cmocka_unit_test(test_deterministic_per_seed),
        cmocka_unit_test(test_bursts_show),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
