/* test_itch.c - ITCH 5.0 framing, decoding and per-stock replay: the counts
 * of ../shared/data/README.md on ritch_ex.itch, unknown references counted,
 * and truncated or garbage input stopping with the offending offset. */
#include "lat_test.h"

#include "itch.h"
#include "latlab/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}
static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

/* Append one framed message (prefix 0 or its length) and return the new size. */
static size_t add_msg(uint8_t *buf, size_t n, uint8_t type, int zero_prefix, uint16_t loc,
                      uint64_t ref, char side, uint32_t shares, uint32_t price, uint64_t new_ref) {
    size_t len = itch_msg_len(type);
    put16(buf + n, zero_prefix ? 0 : (uint16_t)len);
    uint8_t *p = buf + n + 2;
    memset(p, 0, len);
    p[0] = type;
    put16(p + 1, loc);
    switch (type) {
    case 'A':
        put64(p + 11, ref);
        p[19] = (uint8_t)side;
        put32(p + 20, shares);
        memcpy(p + 24, "TEST    ", 8);
        put32(p + 32, price);
        break;
    case 'E':
    case 'X':
        put64(p + 11, ref), put32(p + 19, shares);
        break;
    case 'D':
        put64(p + 11, ref);
        break;
    case 'U':
        put64(p + 11, ref);
        put64(p + 19, new_ref);
        put32(p + 27, shares);
        put32(p + 31, price);
        break;
    case 'R':
        memcpy(p + 11, "TEST    ", 8);
        break;
    }
    return n + 2 + len;
}

/* itch_read_file: a clean capture comes back whole; a capture followed by
 * garbage stops at the first buffer whose framing breaks (not the whole
 * file); a missing file is its errno. */
static void test_read_file(void **state) {
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/cap.itch", lat_test_tmpdir());
    uint8_t msgs[256];
    size_t n = add_msg(msgs, 0, 'R', 0, 1, 0, 0, 0, 0, 0);
    n = add_msg(msgs, n, 'A', 0, 1, 7, 'B', 100, 10000, 0);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(msgs, 1, n, f), n);
    fclose(f);
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(itch_read_file(path, &buf, &len), 0);
    assert_int_equal(len, n);
    assert_memory_equal(buf, msgs, n);
    free(buf);

    size_t garbage = 3u << 20;
    uint8_t *g = malloc(garbage);
    assert_non_null(g);
    memset(g, 0xff, garbage); /* length 0xffff, type 0xff: not ITCH */
    f = fopen(path, "ab");
    assert_int_equal(fwrite(g, 1, garbage, f), garbage);
    fclose(f);
    free(g);
    assert_int_equal(itch_read_file(path, &buf, &len), 0);
    assert_true(len > n && len < n + garbage); /* stopped early */
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, len);
    assert_int_equal(itch_next(&rd, &m), 1);
    assert_int_equal(itch_next(&rd, &m), 1);
    assert_int_equal(itch_next(&rd, &m), LAT_EFORMAT);
    assert_int_equal(rd.err_off, n);
    free(buf);

    snprintf(path, sizeof path, "%s/none.itch", lat_test_tmpdir());
    assert_int_equal(itch_read_file(path, &buf, &len), -ENOENT);
}

static void test_synthetic_replay(void **state) {
    (void)state;
    uint8_t buf[1024];
    size_t n = 0;
    n = add_msg(buf, n, 'R', 1, 7, 0, 0, 0, 0, 0);
    n = add_msg(buf, n, 'A', 1, 7, 1, 'B', 100, 100000, 0);
    n = add_msg(buf, n, 'A', 0, 7, 2, 'B', 50, 100100, 0);
    n = add_msg(buf, n, 'A', 0, 7, 3, 'S', 70, 100500, 0);
    n = add_msg(buf, n, 'E', 0, 7, 2, 0, 20, 0, 0);      /* 2 has 30 left */
    n = add_msg(buf, n, 'X', 1, 7, 3, 0, 70, 0, 0);      /* 3 gone */
    n = add_msg(buf, n, 'D', 1, 7, 99, 0, 0, 0, 0);      /* unknown */
    n = add_msg(buf, n, 'U', 1, 7, 1, 0, 40, 100200, 4); /* 1 -> 4 at 10.02 */
    n = add_msg(buf, n, 'E', 1, 7, 1, 0, 5, 0, 0);       /* 1 is gone: unknown */
    itch_replay *r;
    size_t off = 0;
    assert_int_equal(itch_replay_create(buf, n, 0, &r, &off), 0);
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, n);
    int rc;
    while ((rc = itch_next(&rd, &m)) == 1)
        itch_replay_apply(r, &m);
    assert_int_equal(rc, 0);
    const itch_counts *c = itch_replay_counts(r);
    assert_int_equal(c->messages, 9);
    assert_int_equal(c->unknown_ref, 2);
    const itch_stock *s = itch_replay_stock(r, 7);
    assert_non_null(s);
    assert_string_equal(s->symbol, "TEST");
    int64_t px;
    uint64_t q;
    assert_int_equal(book_best(s->bk, BOOK_BUY, &px, &q), 0);
    assert_true(px == 100200 && q == 40);
    assert_int_equal(book_best(s->bk, BOOK_SELL, &px, &q), BOOK_EEMPTY);
    assert_int_equal(book_order_count(s->bk), 2);
    itch_replay_destroy(r);
}

static void test_truncated_and_garbage(void **state) {
    (void)state;
    uint8_t buf[256];
    size_t n = 0;
    n = add_msg(buf, n, 'A', 1, 1, 1, 'B', 100, 100000, 0);
    size_t second = n;
    n = add_msg(buf, n, 'D', 1, 1, 1, 0, 0, 0, 0);
    itch_replay *r = NULL;
    size_t off = 0;
    /* cut inside the second message */
    for (size_t cut = second + 1; cut < n; cut++) {
        off = 12345;
        assert_int_equal(itch_replay_create(buf, cut, 0, &r, &off), LAT_ETRUNCATED);
        assert_int_equal(off, second);
    }
    /* an unknown type byte */
    uint8_t bad[256];
    memcpy(bad, buf, n);
    bad[second + 2] = 0xEE;
    assert_int_equal(itch_replay_create(bad, n, 0, &r, &off), LAT_EFORMAT);
    assert_int_equal(off, second);
    /* a length prefix that disagrees with the type */
    memcpy(bad, buf, n);
    put16(bad + second, 7);
    assert_int_equal(itch_replay_create(bad, n, 0, &r, &off), LAT_EFORMAT);
    assert_int_equal(off, second);
    /* random garbage never reads out of bounds (ASan would say) and stops with an error */
    uint64_t x = 88172645463325252ull;
    for (int t = 0; t < 2000; t++) {
        size_t len = 1 + (size_t)(t % 200);
        uint8_t *g = malloc(len);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            g[i] = (uint8_t)x;
        }
        int rc = itch_replay_create(g, len, 4096, &r, &off);
        if (rc == 0)
            itch_replay_destroy(r);
        else
            assert_true(off < len);
        free(g);
    }
}

static void test_ritch_counts(void **state) {
    (void)state;
    /* $LAT_SHARED_DIR overrides the CI layout (shared/ beside the repository) */
    const char *src = getenv("LAT_SRC_DIR"), *shared = getenv("LAT_SHARED_DIR");
    char path[4096];
    if (shared)
        snprintf(path, sizeof path, "%s/data/ritch_ex.itch", shared);
    else
        snprintf(path, sizeof path, "%s/../shared/data/ritch_ex.itch", src ? src : ".");
    FILE *f = fopen(path, "rb");
    if (!f) LAT_SKIP("%s not found (CI places shared/ beside the repository)", path);
    static uint8_t data[1 << 20];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    assert_int_equal(n, 465048);
    itch_replay *r;
    size_t off;
    assert_int_equal(itch_replay_create(data, n, 0, &r, &off), 0);
    for (int loop = 0; loop < 2; loop++) {
        itch_replay_reset(r);
        itch_reader rd;
        itch_msg m;
        itch_reader_init(&rd, data, n);
        int rc;
        while ((rc = itch_next(&rd, &m)) == 1)
            itch_replay_apply(r, &m);
        assert_int_equal(rc, 0);
        const itch_counts *c = itch_replay_counts(r);
        assert_int_equal(c->messages, 12012);
        assert_int_equal(c->by_type['A'], 4997);
        assert_int_equal(c->by_type['F'], 3);
        assert_int_equal(c->by_type['E'], 198);
        assert_int_equal(c->by_type['X'], 45);
        assert_int_equal(c->by_type['D'], 1745);
        assert_int_equal(c->by_type['U'], 12);
        assert_int_equal(c->by_type['S'], 6);
        assert_int_equal(c->by_type['R'], 3);
        assert_int_equal(c->by_type['H'], 3);
        assert_int_equal(c->by_type['P'], 5000);
        assert_int_equal(c->unknown_ref, 117);
        if (loop == 0)
            printf(
                "ritch_ex.itch: 12012 messages, %llu unknown references (E %llu, X %llu, D %llu, "
                "U %llu)\n",
                (unsigned long long)c->unknown_ref, (unsigned long long)c->unknown_by_type['E'],
                (unsigned long long)c->unknown_by_type['X'],
                (unsigned long long)c->unknown_by_type['D'],
                (unsigned long long)c->unknown_by_type['U']);
    }
    int seen = 0;
    for (int i = itch_replay_stock_next(r, -1); i >= 0; i = itch_replay_stock_next(r, i)) {
        const itch_stock *s = itch_replay_stock(r, (uint16_t)i);
        assert_non_null(s->bk);
        seen++;
    }
    assert_int_equal(seen, 3);
    assert_string_equal(itch_replay_stock(r, 1)->symbol, "ALC");
    itch_replay_destroy(r);
}

/* Issue 19: a 5.7 KB capture naming 50 stocks, each with adds spanning 2^22
 * ticks, asked for ~10 GB.  Books are now sized by the data: small memory,
 * every add resting, and the documented cap refuses with the figure. */
static void test_many_stocks_memory(void **state) {
    (void)state;
    static uint8_t buf[50 * 3 * 38];
    size_t n = 0;
    const uint32_t prices[3] = {1, 2, 4194300}; /* tick 1, ~2^22 levels */
    for (uint16_t loc = 1; loc <= 50; loc++)
        for (int k = 0; k < 3; k++)
            n = add_msg(buf, n, 'A', 1, loc, loc * 10u + (uint64_t)k, k == 2 ? 'S' : 'B', 100,
                        prices[k], 0);
    itch_replay *r = NULL;
    size_t off = 0, bytes = 0;
    itch_replay_opts opt = {0};
    assert_int_equal(itch_replay_create_opts(buf, n, &opt, &r, &off, &bytes), 0);
    printf("%zu-byte capture, 50 stocks: books hold %.1f MiB\n", n, (double)bytes / (1 << 20));
    assert_true(bytes < (64u << 20));
    assert_int_equal(bytes, itch_replay_bytes(r));
    itch_reader rd;
    itch_msg m;
    itch_reader_init(&rd, buf, n);
    while (itch_next(&rd, &m) == 1)
        itch_replay_apply(r, &m);
    assert_int_equal(itch_replay_counts(r)->rejected_add, 0);
    assert_int_equal(book_order_count(itch_replay_stock(r, 50)->bk), 3);
    itch_replay_destroy(r);
    r = NULL;
    opt.max_bytes = 1 << 20; /* the cap: refused, with the figure reached */
    assert_int_equal(itch_replay_create_opts(buf, n, &opt, &r, &off, &bytes), -ENOMEM);
    assert_null(r);
    assert_true(bytes > opt.max_bytes);
    /* a fixed tick: adds off it are rejected adds */
    opt = (itch_replay_opts){.tick = 100};
    assert_int_equal(itch_replay_create_opts(buf, n, &opt, &r, &off, &bytes), 0);
    itch_reader_init(&rd, buf, n);
    while (itch_next(&rd, &m) == 1)
        itch_replay_apply(r, &m);
    assert_int_equal(itch_replay_counts(r)->rejected_add, 100); /* prices 1 and 2 */
    itch_replay_destroy(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_synthetic_replay),
        cmocka_unit_test(test_truncated_and_garbage),
        cmocka_unit_test(test_ritch_counts),
        cmocka_unit_test(test_many_stocks_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
