/* test_hist.c - HdrHistogram core: the reference's classic fixtures (10,000
 * x 1000 plus one 1e8, raw and corrected with interval 10,000) against
 * figures printed by the Java reference 2.1.11 (tests/interop/JavaFixtures.java
 * prints them; the interop test re-checks them live), every iterator,
 * equivalence edges, merge, reset, copy, out-of-range, the V2 byte example,
 * min/max after decode, 64-bit counts, the batch percentile form against the
 * single one, .hgrm formatting and the allocation-free record path.  (The
 * interval log reader's cases are in test_hlog.c.) */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lat_test.h"
#include "latlab/alloc.h"
#include "latlab/error.h"
#include "latlab/hist.h"
#include "latlab/hlog.h"

#define H_MAX (INT64_C(3600) * 1000 * 1000)

static void fixtures(lat_hist *raw, lat_hist *cor) {
    assert_int_equal(lat_hist_init(raw, 1, H_MAX, 3), 0);
    assert_int_equal(lat_hist_init(cor, 1, H_MAX, 3), 0);
    for (int i = 0; i < 10000; i++) {
        assert_true(lat_hist_record(raw, 1000));
        assert_true(lat_hist_record_corrected(cor, 1000, 10000));
    }
    assert_true(lat_hist_record(raw, 100000000));
    assert_true(lat_hist_record_corrected(cor, 100000000, 10000));
}

/* The summary Java's F program prints for an iterator. */
typedef struct {
    int64_t steps, sumv, sumc, hash, last;
    double sump;
} isum;

static isum run_iter(lat_hist_iter *it) {
    isum s = {0};
    uint64_t h = 0;
    while (lat_hist_iter_next(it)) {
        s.steps++;
        s.sumv += it->value;
        s.sumc += it->count_added;
        h = h * 31 + (uint64_t)it->value * 7 + (uint64_t)it->count_added * 3 +
            (uint64_t)it->cumulative_count + (uint64_t)it->value_from * 11 +
            (uint64_t)it->count_at_value * 13;
        s.sump += it->percentile_level;
        s.last = it->value;
    }
    s.hash = (int64_t)h;
    return s;
}

static void check_iter(const char *what, isum got, int64_t steps, int64_t sumv, int64_t sumc,
                       int64_t hash, int64_t last, const char *sump) {
    /* Java prints %.17g from its shortest round-trip digits: parse it back. */
    char b[64];
    snprintf(b, sizeof b, "%.17g", got.sump);
    if (got.steps != steps || got.sumv != sumv || got.sumc != sumc || got.hash != hash ||
        got.last != last || strtod(sump, NULL) != got.sump) {
        print_error("%s: steps=%" PRId64 " sumv=%" PRId64 " sumc=%" PRId64 " hash=%" PRId64
                    " last=%" PRId64 " sump=%s\n",
                    what, got.steps, got.sumv, got.sumc, got.hash, got.last, b);
        fail();
    }
}

static void check_pcts(const lat_hist *h, const int64_t *want) {
    static const double ps[] = {0, 1, 30, 50, 75, 90, 99, 99.9, 99.99, 99.999, 100};
    int64_t batch[11];
    assert_int_equal(lat_hist_values_at_percentiles(h, ps, batch, 11), 0);
    for (int i = 0; i < 11; i++) {
        assert_int_equal(lat_hist_value_at_percentile(h, ps[i]), want[i]);
        assert_int_equal(batch[i], want[i]);
    }
}

/* Bit-identical to the double Java printed (its digits round-trip). */
static void expect_double(double got, const char *want) {
    if (strtod(want, NULL) != got) {
        print_error("%.17g != %s\n", got, want);
        fail();
    }
}

static void test_classic_raw(void **state) {
    (void)state;
    lat_hist raw, cor;
    fixtures(&raw, &cor);
    assert_int_equal(lat_hist_total(&raw), 10001);
    assert_int_equal(lat_hist_min(&raw), 1000);
    assert_int_equal(lat_hist_max(&raw), 100007935);
    expect_double(lat_hist_mean(&raw), "10996.417158284172");
    expect_double(lat_hist_stddev(&raw), "999641.7158284171");
    static const int64_t want[] = {1000, 1000, 1000, 1000,      1000,     1000,
                                   1000, 1000, 1000, 100007935, 100007935};
    check_pcts(&raw, want);
    lat_hist_iter it;
    lat_hist_iter_all(&it, &raw);
    check_iter("all", run_iter(&it), 23552, 6599216178176, 10001, -7590454684983457530, 4294967295,
               "2255030.926907809");
    lat_hist_iter_recorded(&it, &raw);
    check_iter("recorded", run_iter(&it), 2, 100008935, 10001, 705563562, 100007935,
               "199.99000099990002");
    lat_hist_iter_linear(&it, &raw, 10000);
    check_iter("linear10000", run_iter(&it), 10000, 500049990000, 10001, 1935758973280985986,
               99999999, "999900.069992878");
    lat_hist_iter_linear(&it, &raw, 1000000);
    check_iter("linear1e6", run_iter(&it), 100, 5049999900, 10001, 2645384474710662518, 99999999,
               "9999.0100989901061");
    lat_hist_iter_log(&it, &raw, 10000, 2.0);
    check_iter("log", run_iter(&it), 15, 327669985, 10001, 1131935741074563581, 163839999,
               "1499.8600139986002");
    lat_hist_iter_log(&it, &raw, 1, 10.0);
    check_iter("log10", run_iter(&it), 9, 111111102, 10001, 2814850916254, 99999999,
               "499.9600039996");
    lat_hist_iter_percentile(&it, &raw, 5);
    check_iter("pct5", run_iter(&it), 69, 200082870, 10001, -5335829298726044510, 100007935,
               "6100.064697265625");
    lat_hist_iter_percentile(&it, &raw, 1);
    check_iter("pct1", run_iter(&it), 16, 200029870, 10001, -7830535108802568190, 100007935,
               "1400.006103515625");
    lat_hist_fini(&raw);
    lat_hist_fini(&cor);
}

static void test_classic_corrected(void **state) {
    (void)state;
    lat_hist raw, cor;
    fixtures(&raw, &cor);
    assert_int_equal(lat_hist_total(&cor), 20000);
    assert_int_equal(lat_hist_min(&cor), 1000);
    assert_int_equal(lat_hist_max(&cor), 100007935);
    expect_double(lat_hist_mean(&cor), "25003006.699400000");
    expect_double(lat_hist_stddev(&cor), "32276410.479123365");
    static const int64_t want[] = {1000,     1000,     1000,      1000,      50003967, 80019455,
                                   98041855, 99811327, 100007935, 100007935, 100007935};
    check_pcts(&cor, want);
    lat_hist_iter it;
    lat_hist_iter_all(&it, &cor);
    check_iter("all", run_iter(&it), 23552, 6599216178176, 20000, -4367477599970791648, 4294967295,
               "1482197.0650000242");
    lat_hist_iter_recorded(&it, &cor);
    check_iter("recorded", run_iter(&it), 4228, 133371977389, 20000, 7053457346571056996, 100007935,
               "278077.2950000001");
    lat_hist_iter_linear(&it, &cor, 10000);
    check_iter("linear", run_iter(&it), 10000, 500049990000, 20000, 7049673701147306746, 99999999,
               "750093.665000001");
    lat_hist_iter_log(&it, &cor, 10000, 2.0);
    check_iter("log", run_iter(&it), 15, 327669985, 20000, -4272418170473893550, 163839999,
               "881.84500000000003");
    lat_hist_iter_percentile(&it, &cor, 5);
    check_iter("pct5", run_iter(&it), 61, 4802148153, 20000, 2873907982968805596, 100007935,
               "5300.1953125");
    /* add_corrected of the raw fixture (Java addWhileCorrectingForCoordinatedOmission). */
    lat_hist ac;
    assert_int_equal(lat_hist_init(&ac, 1, H_MAX, 3), 0);
    assert_int_equal(lat_hist_add_corrected(&ac, &raw, 10000), 0);
    assert_int_equal(lat_hist_total(&ac), 20000);
    expect_double(lat_hist_mean(&ac), "25006965.717599999");
    static const int64_t want_ac[] = {1000,     1000,     1000,      1000,      50036735, 80019455,
                                      98041855, 99811327, 100007935, 100007935, 100007935};
    check_pcts(&ac, want_ac);
    lat_hist_iter_recorded(&it, &ac);
    check_iter("addcor recorded", run_iter(&it), 4227, 133368465398, 20000, -5142916224189213367,
               100007935, "278008.81999999989");
    lat_hist_fini(&ac);
    lat_hist_fini(&raw);
    lat_hist_fini(&cor);
}

static void test_geometry(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 3600000000000, 3), 0);
    assert_int_equal(h.counts_len, 33792); /* 10 more buckets than 3.6e9 */
    lat_hist_fini(&h);
    assert_int_equal(lat_hist_init(&h, 1, INT64_C(3600000000), 3), 0);
    assert_int_equal(h.counts_len, 23552);
    assert_int_equal(h.sub_bucket_count, 2048);
    assert_int_equal(h.bucket_count, 22);
    lat_hist_fini(&h);
    assert_int_equal(lat_hist_init(&h, 1, 1000000000, 3), 0);
    assert_in_range(lat_hist_memory_size(&h), 160000, 180000);
    lat_hist_fini(&h);
    /* bad parameters */
    assert_int_equal(lat_hist_init(&h, 0, 100, 3), -EINVAL);
    assert_int_equal(lat_hist_init(&h, 10, 19, 3), -EINVAL);
    assert_int_equal(lat_hist_init(&h, 1, 100, 6), -EINVAL);
    assert_int_equal(lat_hist_init(&h, 1, 100, -1), -EINVAL);
    /* every sig-fig count works, incl. 0, and a large unit */
    for (int s = 0; s <= 5; s++) {
        assert_int_equal(lat_hist_init(&h, 1000, INT64_MAX, s), 0);
        assert_true(lat_hist_record(&h, INT64_MAX));
        assert_true(lat_hist_max(&h) >=
                    INT64_MAX - lat_hist_size_of_equivalent_range(&h, INT64_MAX));
        lat_hist_fini(&h);
    }
    lat_hist_fini(NULL);
    lat_hist_destroy(NULL);
}

static void test_equivalence(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, H_MAX, 3), 0);
    /* Java HistogramTest expectations */
    assert_int_equal(lat_hist_size_of_equivalent_range(&h, 1), 1);
    assert_int_equal(lat_hist_size_of_equivalent_range(&h, 2500), 2);
    assert_int_equal(lat_hist_size_of_equivalent_range(&h, 8191), 4);
    assert_int_equal(lat_hist_size_of_equivalent_range(&h, 8192), 8);
    assert_int_equal(lat_hist_size_of_equivalent_range(&h, 10000), 8);
    assert_int_equal(lat_hist_lowest_equivalent(&h, 10007), 10000);
    assert_int_equal(lat_hist_lowest_equivalent(&h, 10009), 10008);
    assert_int_equal(lat_hist_highest_equivalent(&h, 8180), 8183);
    assert_int_equal(lat_hist_highest_equivalent(&h, 8191), 8191);
    assert_int_equal(lat_hist_highest_equivalent(&h, 8193), 8199);
    assert_int_equal(lat_hist_highest_equivalent(&h, 9995), 9999);
    assert_int_equal(lat_hist_highest_equivalent(&h, 10007), 10007);
    assert_int_equal(lat_hist_highest_equivalent(&h, 10008), 10015);
    assert_int_equal(lat_hist_median_equivalent(&h, 4), 4);
    assert_int_equal(lat_hist_median_equivalent(&h, 5), 5);
    assert_int_equal(lat_hist_median_equivalent(&h, 4000), 4001);
    assert_int_equal(lat_hist_median_equivalent(&h, 8000), 8002);
    assert_int_equal(lat_hist_median_equivalent(&h, 10007), 10004);
    assert_int_equal(lat_hist_next_non_equivalent(&h, 10007), 10008);
    assert_true(lat_hist_values_are_equivalent(&h, 10000, 10007));
    assert_false(lat_hist_values_are_equivalent(&h, 10007, 10008));
    /* edges: 0, bucket boundaries, the top */
    assert_int_equal(lat_hist_lowest_equivalent(&h, 0), 0);
    assert_int_equal(lat_hist_highest_equivalent(&h, 2047), 2047);
    assert_int_equal(lat_hist_highest_equivalent(&h, 2048), 2049);
    assert_int_equal(lat_hist_index(&h, 2047), 2047);
    assert_int_equal(lat_hist_index(&h, 2048), 2048);
    assert_int_equal(lat_hist_index(&h, 2049), 2048);
    for (int32_t i = 0; i < h.counts_len; i++)
        assert_int_equal(lat_hist_index(&h, lat_hist_value_from_index(&h, i)), i);
    lat_hist_fini(&h);
    /* lowest > 1: unit magnitude */
    assert_int_equal(lat_hist_init(&h, 1000, H_MAX, 2), 0);
    assert_int_equal(h.unit_magnitude, 9);
    assert_int_equal(lat_hist_lowest_equivalent(&h, 1023), 512);
    assert_int_equal(lat_hist_size_of_equivalent_range(&h, 0), 512);
    lat_hist_fini(&h);
}

static void test_out_of_range(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000, 2), 0);
    assert_false(lat_hist_record(&h, -1));
    assert_false(lat_hist_record(&h, 1001));
    assert_false(lat_hist_record(&h, INT64_MIN));
    assert_false(lat_hist_record(&h, INT64_MAX));
    assert_false(lat_hist_record_n(&h, 5, -3));
    assert_false(lat_hist_record_n(&h, 5000, 7));
    assert_false(lat_hist_record_corrected(&h, 5000, 10));
    assert_false(lat_hist_record_atomic(&h, -5));
    assert_int_equal(h.overflow_count, 4 + 7 + 1 + 1);
    assert_int_equal(lat_hist_total(&h), 0);
    assert_true(lat_hist_record(&h, 1000));
    assert_true(lat_hist_record(&h, 0));
    assert_int_equal(lat_hist_total(&h), 2);
    assert_int_equal(lat_hist_count_at(&h, 1000), 1);
    assert_int_equal(lat_hist_count_at(&h, -1), 0);
    assert_int_equal(lat_hist_min(&h), 0);
    assert_int_equal(lat_hist_min_nonzero(&h), lat_hist_lowest_equivalent(&h, 1000));
    lat_hist_fini(&h);
}

static void test_small_counts_java_ceil(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, H_MAX, 3), 0);
    assert_int_equal(lat_hist_value_at_percentile(&h, 50), 0); /* empty */
    lat_hist_record(&h, 1);
    lat_hist_record(&h, 2);
    assert_int_equal(lat_hist_value_at_percentile(&h, 60), 2); /* Java: 2 (C library: 1) */
    assert_int_equal(lat_hist_value_at_percentile(&h, 50), 1);
    assert_int_equal(lat_hist_value_at_percentile(&h, 0), 1);
    assert_int_equal(lat_hist_value_at_percentile(&h, -5), 1);
    assert_int_equal(lat_hist_value_at_percentile(&h, 250), 2);
    assert_int_equal(lat_hist_value_at_percentile(&h, NAN), 1);
    expect_double(lat_hist_percentile_at_or_below(&h, 1), "50");
    lat_hist_fini(&h);
}

static void test_merge_reset_copy(void **state) {
    (void)state;
    lat_hist raw, cor, sum, cp, small;
    fixtures(&raw, &cor);
    assert_int_equal(lat_hist_init(&sum, 1, H_MAX, 3), 0);
    assert_int_equal(lat_hist_add(&sum, &raw), 0);
    assert_int_equal(lat_hist_add(&sum, &cor), 0);
    assert_int_equal(lat_hist_total(&sum), 30001);
    assert_int_equal(lat_hist_count_at(&sum, 1000), 20000);
    assert_int_equal(lat_hist_max(&sum), 100007935);
    assert_int_equal(lat_hist_min(&sum), 1000);
    /* copy is deep and equal */
    assert_int_equal(lat_hist_copy(&cp, &sum), 0);
    assert_memory_equal(cp.counts, sum.counts, (size_t)sum.counts_len * 8);
    assert_int_equal(cp.total_count, sum.total_count);
    cp.counts[0] = 5;
    assert_int_equal(sum.counts[0], 0);
    /* different geometry: values beyond the target's range are counted */
    assert_int_equal(lat_hist_init(&small, 1, 10000000, 3), 0);
    assert_int_equal(lat_hist_add(&small, &raw), 1);
    assert_int_equal(small.overflow_count, 1);
    assert_int_equal(lat_hist_total(&small), 10000);
    assert_int_equal(lat_hist_count_at(&small, 1000), 10000);
    /* reset */
    lat_hist_reset(&sum);
    assert_int_equal(lat_hist_total(&sum), 0);
    assert_int_equal(lat_hist_max(&sum), 0);
    assert_int_equal(lat_hist_min(&sum), 0);
    assert_int_equal(lat_hist_value_at_percentile(&sum, 99), 0);
    expect_double(lat_hist_mean(&sum), "0");
    for (int32_t i = 0; i < sum.counts_len; i++)
        assert_int_equal(sum.counts[i], 0);
    lat_hist_fini(&small);
    lat_hist_fini(&cp);
    lat_hist_fini(&sum);
    lat_hist_fini(&raw);
    lat_hist_fini(&cor);
}

static void test_counts_beyond_2_31(void **state) {
    (void)state;
    lat_hist h, d;
    assert_int_equal(lat_hist_init(&h, 1, H_MAX, 3), 0);
    int64_t big = INT64_C(5000000000); /* > 2^32 */
    assert_true(lat_hist_record_n(&h, 100, big));
    assert_true(lat_hist_record_n(&h, 1000000, 3 * big));
    assert_int_equal(lat_hist_total(&h), 4 * big);
    assert_int_equal(lat_hist_value_at_percentile(&h, 25), 100);
    assert_int_equal(lat_hist_value_at_percentile(&h, 25.0001),
                     lat_hist_highest_equivalent(&h, 1000000));
    uint8_t *buf;
    size_t n;
    assert_int_equal(lat_hist_encode_compressed(&h, -1, &buf, &n), 0);
    assert_int_equal(lat_hist_decode(buf, n, &d), 0);
    lat_hist_buf_free(buf);
    assert_int_equal(lat_hist_total(&d), 4 * big);
    assert_int_equal(lat_hist_count_at(&d, 100), big);
    char *text = NULL;
    size_t tl = 0;
    FILE *f = open_memstream(&text, &tl);
    assert_int_equal(lat_hist_write_percentiles(f, &d, 5, 1.0, false), 0);
    fclose(f);
    assert_non_null(strstr(text, "Total count    =  20000000000]"));
    assert_non_null(strstr(text, " 20000000000\n"));
    free(text);
    lat_hist_fini(&h);
    lat_hist_fini(&d);
}

static void test_v2_bytes(void **state) {
    (void)state;
    lat_hist h, d;
    assert_int_equal(lat_hist_init(&h, 1, INT64_C(3600000000), 3), 0);
    lat_hist_record(&h, 1);
    lat_hist_record(&h, 2);
    lat_hist_record(&h, 2);
    lat_hist_record(&h, 5);
    lat_hist_record_n(&h, 1000, 100);
    lat_hist_record(&h, 100000);
    uint8_t buf[256];
    size_t n = 0;
    assert_int_equal(lat_hist_encode(&h, buf, sizeof buf, &n), 0);
    /* Header and payload exactly as Java 2.1.11 writes them (checked live by
     * tests/hist_interop.sh).  SPEC-hdr.md's example writes the leading lone
     * zero slot as 01 (a run of one); Java writes 00 (lone zero as a count),
     * so we do too, and decode both. */
    static const uint8_t want[] = {0x1c, 0x84, 0x93, 0x13, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xd6, 0x93, 0xa4, 0x00, 0x3f,
                                   0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x03,
                                   0x02, 0xc3, 0x0f, 0xc8, 0x01, 0xe1, 0x68, 0x02};
    assert_int_equal(n, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    /* the spec's spelling (01 = run of one zero) decodes to the same histogram */
    buf[40] = 0x01;
    assert_int_equal(lat_hist_decode(buf, n, &d), 0);
    assert_memory_equal(d.counts, h.counts, (size_t)h.counts_len * 8);
    assert_int_equal(lat_hist_min(&d), 1);
    assert_int_equal(lat_hist_max(&d), lat_hist_max(&h));
    lat_hist_fini(&d);
    /* compressed + base64 round trip keeps everything, min/max included */
    char *b64;
    assert_int_equal(lat_hist_encode_base64(&h, &b64), 0);
    assert_memory_equal(b64, "HISTF", 5);
    assert_int_equal(lat_hist_decode_base64(b64, strlen(b64), &d), 0);
    lat_hist_buf_free(b64);
    assert_memory_equal(d.counts, h.counts, (size_t)h.counts_len * 8);
    assert_int_equal(lat_hist_total(&d), 105);
    assert_int_equal(lat_hist_min(&d), lat_hist_min(&h));
    assert_int_equal(lat_hist_max(&d), lat_hist_max(&h));
    assert_int_equal(lat_hist_value_at_percentile(&d, 99), lat_hist_value_at_percentile(&h, 99));
    lat_hist_fini(&d);
    /* empty histogram: Java writes one zero */
    lat_hist_reset(&h);
    assert_int_equal(lat_hist_encode(&h, buf, sizeof buf, &n), 0);
    assert_int_equal(n, 41);
    assert_int_equal(buf[40], 0);
    assert_int_equal(lat_hist_decode(buf, n, &d), 0);
    assert_int_equal(lat_hist_total(&d), 0);
    lat_hist_fini(&d);
    /* too small a buffer */
    assert_int_equal(lat_hist_encode(&h, buf, 20, &n), -ENOSPC);
    lat_hist_fini(&h);
}

static void test_decode_garbage(void **state) {
    (void)state;
    lat_hist h, d;
    assert_int_equal(lat_hist_init(&h, 1, 1000000, 3), 0);
    for (int i = 0; i < 1000; i++)
        lat_hist_record(&h, i * 997 % 1000000);
    uint8_t *buf;
    size_t n;
    assert_int_equal(lat_hist_encode_compressed(&h, -1, &buf, &n), 0);
    /* every truncation fails cleanly */
    for (size_t k = 0; k < n; k++)
        assert_true(lat_hist_decode(buf, k, &d) < 0);
    /* bit flips never crash (results may decode or fail) */
    for (size_t k = 0; k < n; k++) {
        buf[k] ^= 0x5a;
        if (lat_hist_decode(buf, n, &d) == 0) lat_hist_fini(&d);
        buf[k] ^= 0x5a;
    }
    assert_int_equal(lat_hist_decode(buf, n, &d), 0);
    lat_hist_fini(&d);
    lat_hist_buf_free(buf);
    static const uint8_t junk[] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(lat_hist_decode(junk, sizeof junk, &d), LAT_ECOOKIE);
    assert_int_equal(lat_hist_decode_base64("!!!!", 4, &d), LAT_EFORMAT);
    /* an index beyond the declared geometry */
    uint8_t big[64];
    size_t bn;
    lat_hist tiny;
    assert_int_equal(lat_hist_init(&tiny, 1, 2, 0), 0);
    assert_int_equal(lat_hist_encode(&tiny, big, sizeof big, &bn), 0);
    big[bn - 1] = 0x7f; /* run of 64 zeros */
    big[bn++] = 0x02;
    big[7] = (uint8_t)(bn - 40);
    assert_int_equal(lat_hist_decode(big, bn, &d), LAT_EGEOMETRY);
    lat_hist_fini(&tiny);
    lat_hist_fini(&h);
}

static void test_batch_matches_single(void **state) {
    (void)state;
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, 1000000000, 3), 0);
    uint64_t x = 88172645463325252ull;
    double ps[LAT_HIST_MAX_BATCH];
    int64_t out[LAT_HIST_MAX_BATCH];
    for (int round = 0; round < 40; round++) {
        int nv = 1 + round * round * 37;
        for (int i = 0; i < nv; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            int64_t v = (int64_t)((x % 1000) * (1u << (x >> 60)) * ((x >> 40) % 7 + 1));
            lat_hist_record(&h, v % 1000000000);
        }
        for (int k = 0; k < LAT_HIST_MAX_BATCH; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ps[k] =
                k % 8 == 0 ? 100.0 - (double)(x % 1000) / 1000.0 : (double)(x % 100001) / 1000.0;
        }
        ps[1] = 0;
        ps[2] = 100;
        ps[3] = 50;
        assert_int_equal(lat_hist_values_at_percentiles(&h, ps, out, LAT_HIST_MAX_BATCH), 0);
        for (int k = 0; k < LAT_HIST_MAX_BATCH; k++)
            assert_int_equal(out[k], lat_hist_value_at_percentile(&h, ps[k]));
    }
    assert_int_equal(lat_hist_values_at_percentiles(&h, ps, out, LAT_HIST_MAX_BATCH + 1), -EINVAL);
    assert_int_equal(lat_hist_values_at_percentiles(&h, NULL, out, 1), -EINVAL);
    lat_hist_fini(&h);
}

static void test_java_format(void **state) {
    (void)state;
    char b[64];
    lat_java_format_fixed(b, sizeof b, 0.125, 2);
    assert_string_equal(b, "0.13"); /* HALF_UP, printf gives 0.12 */
    lat_java_format_fixed(b, sizeof b, 1.005, 2);
    assert_string_equal(b, "1.01"); /* shortest digits "1.005", printf gives 1.00 */
    lat_java_format_fixed(b, sizeof b, 2.5, 0);
    assert_string_equal(b, "3");
    lat_java_format_fixed(b, sizeof b, 0.0, 3);
    assert_string_equal(b, "0.000");
    lat_java_format_fixed(b, sizeof b, 999.9996, 3);
    assert_string_equal(b, "1000.000");
    lat_java_format_fixed(b, sizeof b, 0.0004, 3);
    assert_string_equal(b, "0.000");
    lat_java_format_fixed(b, sizeof b, 0.0005, 3);
    assert_string_equal(b, "0.001");
    lat_java_format_fixed(b, sizeof b, 1e-20, 2);
    assert_string_equal(b, "0.00");
    lat_java_format_fixed(b, sizeof b, 123456789.0, 1);
    assert_string_equal(b, "123456789.0");
    lat_java_format_fixed(b, sizeof b, -1.5, 0);
    assert_string_equal(b, "-2");
    lat_java_format_fixed(b, sizeof b, 1.0 / 0.0, 2);
    assert_string_equal(b, "Infinity");
}

static void test_hgrm_small(void **state) {
    (void)state;
    /* Java 2.1.11 outputPercentileDistribution(out, 5, 1.0, csv) of {1,2,2,5,1000x100,100000}:
     * first rows and the footer (the full table is compared live in hist_interop.sh). */
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, INT64_C(3600000000), 3), 0);
    lat_hist_record(&h, 1);
    lat_hist_record(&h, 2);
    lat_hist_record(&h, 2);
    lat_hist_record(&h, 5);
    lat_hist_record_n(&h, 1000, 100);
    lat_hist_record(&h, 100000);
    char *text = NULL;
    size_t tl = 0;
    FILE *f = open_memstream(&text, &tl);
    assert_int_equal(lat_hist_write_percentiles(f, &h, 5, 1.0, false), 0);
    fclose(f);
    const char *head = "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
                       "       1.000 0.000000000000          1           1.00\n"
                       "    1000.000 0.100000000000        104           1.11\n";
    assert_memory_equal(text, head, strlen(head));
    const char *tail = "  100031.000 0.990625000000        105         106.67\n"
                       "  100031.000 1.000000000000        105\n"
                       "#[Mean    =     1904.857, StdDeviation   =     9620.914]\n"
                       "#[Max     =   100031.000, Total count    =          105]\n"
                       "#[Buckets =           22, SubBuckets     =         2048]\n";
    assert_string_equal(text + strlen(text) - strlen(tail), tail);
    free(text);
    text = NULL;
    f = open_memstream(&text, &tl);
    assert_int_equal(lat_hist_write_percentiles(f, &h, 5, 1000.0, true), 0);
    fclose(f);
    assert_memory_equal(text,
                        "\"Value\",\"Percentile\",\"TotalCount\",\"1/"
                        "(1-Percentile)\"\n0.001,0.000000000000,1,1.00\n",
                        81);
    assert_non_null(strstr(text, "100.031,1.000000000000,105,Infinity\n"));
    free(text);
    lat_hist_fini(&h);
}

static void test_record_allocates_nothing(void **state) {
    (void)state;
    if (!lat_alloc_count_available()) LAT_SKIP("counting allocator unavailable in this build");
    lat_hist h;
    assert_int_equal(lat_hist_init(&h, 1, H_MAX, 3), 0);
    int64_t q[6];
    static const double ps[] = {50, 90, 99, 99.9, 99.99, 100};
    lat_hist_iter it;
    lat_alloc_count_begin();
    for (int64_t v = 0; v < 100000; v++) {
        lat_hist_record(&h, v * 31);
        lat_hist_record_n(&h, v, 2);
        lat_hist_record_atomic(&h, v);
        lat_hist_record_corrected(&h, v, 1000);
    }
    lat_hist_values_at_percentiles(&h, ps, q, 6);
    lat_hist_iter_percentile(&it, &h, 5);
    while (lat_hist_iter_next(&it)) {
    }
    (void)lat_hist_mean(&h);
    uint64_t n = lat_alloc_count_end();
    assert_int_equal(n, 0);
    lat_hist_fini(&h);
}

/* A failing allocator: init reports -ENOMEM and leaks nothing. */
static int fail_after;
static void *failing_alloc(size_t size, size_t align, void *ud) {
    (void)ud;
    if (fail_after-- <= 0) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
        return NULL;
    return p;
}
static void plain_free(void *p, void *ud) {
    (void)ud;
    free(p);
}

static void test_alloc_failure(void **state) {
    (void)state;
    lat_alloc_hooks hooks = {failing_alloc, plain_free, NULL};
    lat_set_alloc_hooks(&hooks);
    lat_hist h;
    fail_after = 0;
    assert_int_equal(lat_hist_init(&h, 1, 1000, 2), -ENOMEM);
    lat_hist *hp;
    fail_after = 1;
    assert_int_equal(lat_hist_create(1, 1000, 2, &hp), -ENOMEM);
    lat_hist_recorder r;
    fail_after = 1;
    assert_int_equal(lat_hist_recorder_init(&r, 1, 1000, 2), -ENOMEM);
    lat_set_alloc_hooks(NULL);
    assert_int_equal(lat_hist_create(1, 1000, 2, &hp), 0);
    lat_hist_destroy(hp);
}

static void test_recorder_single(void **state) {
    (void)state;
    lat_hist_recorder r;
    lat_hist snap, other;
    assert_int_equal(lat_hist_recorder_init(&r, 1, H_MAX, 3), 0);
    assert_int_equal(lat_hist_init(&snap, 1, H_MAX, 3), 0);
    assert_int_equal(lat_hist_init(&other, 1, 1000, 3), 0);
    for (int i = 0; i < 1000; i++)
        assert_true(lat_hist_recorder_record(&r, i));
    assert_int_equal(lat_hist_recorder_interval(&r, &snap), 0);
    assert_int_equal(lat_hist_total(&snap), 1000);
    assert_int_equal(lat_hist_max(&snap), 999);
    for (int i = 0; i < 10; i++)
        lat_hist_recorder_record_n(&r, 5, 3);
    assert_int_equal(lat_hist_recorder_interval(&r, &snap), 0);
    assert_int_equal(lat_hist_total(&snap), 30);
    assert_int_equal(lat_hist_recorder_interval(&r, &snap), 0);
    assert_int_equal(lat_hist_total(&snap), 0);
    assert_int_equal(lat_hist_recorder_interval(&r, &other), LAT_EINCOMPATIBLE);
    lat_hist_fini(&other);
    lat_hist_fini(&snap);
    lat_hist_recorder_fini(&r);
    lat_hist_recorder_fini(NULL);
}

static void test_base64_vectors(void **state) {
    (void)state;
    /* RFC 4648 section 10 */
    static const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[16];
        uint8_t back[16];
        size_t n = strlen(plain[i]);
        assert_int_equal(lat_base64_encode((const uint8_t *)plain[i], n, out), LAT_BASE64_LEN(n));
        assert_string_equal(out, enc[i]);
        assert_int_equal(lat_base64_decode(enc[i], strlen(enc[i]), back), (long)n);
        assert_memory_equal(back, plain[i], n);
    }
    uint8_t b[8];
    assert_int_equal(lat_base64_decode("Zm9v YmFy", 9, b), LAT_EFORMAT);
    assert_int_equal(lat_base64_decode("Z", 1, b), LAT_EFORMAT);
    assert_int_equal(lat_base64_decode("Zm9vYg", 6, b), 4); /* padding optional */
}

/* Values a 10 ns clock recorded: the interpolated percentile moves with a
 * change smaller than one tick, which the plain one cannot see. */
static void test_interpolated_below_tick(void **state) {
    (void)state;
    lat_hist *h = NULL;
    assert_int_equal(lat_hist_create(1, 3600000000000ll, 3, &h), 0);
    assert_true(isnan(lat_hist_value_at_percentile_interpolated(h, 50)));
    lat_hist_record_n(h, 90, 600);
    lat_hist_record_n(h, 100, 400);
    /* mid-ranks 300 at 90 and 800 at 100: rank 500 reads 94 */
    assert_true(fabs(lat_hist_value_at_percentile_interpolated(h, 50) - 94) < 1e-9);
    assert_true(fabs(lat_hist_value_at_percentile_interpolated(h, 0) - 90) < 1e-9);
    assert_true(fabs(lat_hist_value_at_percentile_interpolated(h, 100) - 100) < 1e-9);
    /* ops of base + [0, 30) ns, floored to the tick: base 92 and base 94 */
    double got[2];
    int64_t plain[2];
    for (int k = 0; k < 2; k++) {
        lat_hist_reset(h);
        double base = k ? 94 : 92;
        for (int i = 0; i < 10000; i++) {
            double x = base + 30.0 * (i + 0.5) / 10000;
            lat_hist_record(h, (int64_t)(x / 10) * 10);
        }
        got[k] = lat_hist_value_at_percentile_interpolated(h, 50);
        plain[k] = lat_hist_value_at_percentile(h, 50);
    }
    assert_int_equal(plain[0], plain[1]); /* the plain p50 reads 100 for both */
    assert_true(got[1] - got[0] > 1.5 && got[1] - got[0] < 2.5);
    /* an op of t ns stamped by a 10 ns tick at a random phase reads t, and
     * moves 1:1 with it across the whole tick (spreading each value evenly
     * over its tick doubles a move near the half-tick and halves one near a
     * tick: 93 and 97 ns read 92.1 and 97.9) */
    for (double t = 90.5; t < 100; t += 1) {
        lat_hist_reset(h);
        for (int i = 0; i < 1000; i++)
            lat_hist_record(h, (int64_t)((t + 10.0 * (i + 0.5) / 1000) / 10) * 10);
        assert_true(fabs(lat_hist_value_at_percentile_interpolated(h, 50) - t) < 0.02);
    }
    /* one value off the tick above p99 (a tick of 10.02 ns floored past 500
     * ns) leaves the tick, and the figure, as they were */
    lat_hist_reset(h);
    lat_hist_record_n(h, 90, 600);
    lat_hist_record_n(h, 100, 400);
    double clean = lat_hist_value_at_percentile_interpolated(h, 50);
    lat_hist_record(h, 531);
    assert_true(fabs(lat_hist_value_at_percentile_interpolated(h, 50) - clean) < 0.05);
    /* one slot: its value; values far apart stay themselves; distinct
     * values: the plain percentile within a unit */
    lat_hist_reset(h);
    lat_hist_record_n(h, 77, 5);
    assert_true(lat_hist_value_at_percentile_interpolated(h, 90) == 77);
    lat_hist_reset(h);
    lat_hist_record_n(h, 100, 99);
    lat_hist_record_n(h, 1000, 1);
    assert_true(lat_hist_value_at_percentile_interpolated(h, 50) == 100);
    assert_true(lat_hist_value_at_percentile_interpolated(h, 99) == 100);
    assert_true(lat_hist_value_at_percentile_interpolated(h, 99.9) == 1000);
    lat_hist_reset(h);
    for (int64_t v = 1; v <= 1000; v++)
        lat_hist_record(h, v);
    for (double p = 1; p < 100; p += 7)
        assert_true(fabs(lat_hist_value_at_percentile_interpolated(h, p) -
                         (double)lat_hist_value_at_percentile(h, p)) <= 1.0);
    lat_hist_destroy(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classic_raw),
        cmocka_unit_test(test_classic_corrected),
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_equivalence),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_small_counts_java_ceil),
        cmocka_unit_test(test_merge_reset_copy),
        cmocka_unit_test(test_counts_beyond_2_31),
        cmocka_unit_test(test_v2_bytes),
        cmocka_unit_test(test_decode_garbage),
        cmocka_unit_test(test_batch_matches_single),
        cmocka_unit_test(test_java_format),
        cmocka_unit_test(test_hgrm_small),
        cmocka_unit_test(test_record_allocates_nothing),
        cmocka_unit_test(test_alloc_failure),
        cmocka_unit_test(test_recorder_single),
        cmocka_unit_test(test_base64_vectors),
        cmocka_unit_test(test_interpolated_below_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
