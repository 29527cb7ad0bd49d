/* test_bakeoff.c - the ring bake-off's medians, winner, table and JSON
 * (workloads/bakeoff.c) from given round figures: the module's source is
 * compiled in with its measurements (bakeoff_rings.h, the ping-pong floor)
 * replaced by fakes that hand back three rounds of known figures, so the run
 * touches no second CPU and every printed figure is known. */
#include "lat_test.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlab/pingpong.h"
#include "bakeoff_rings.h"

static int round_no = -1;  /* the round being measured (0..2) */
static double seq_p50 = 0; /* added to seqring's round-trip p50 */

/* Per queue (ring, seqring, ck_ring, mutex), per round. */
static const double st[4][3] = {{5, 3, 4}, {6, 2, 3}, {4, 4, 4}, {40, 50, 45}};
static const double mops8[4][3] = {{50, 60, 40}, {70, 65, 80}, {55, 55, 55}, {2, 3, 1}};
static const double p50[4][3] = {{200, 210, 190}, {230, 215, 225}, {250, 250, 250}, {90, 80, 95}};
static const double floor50[3] = {100, 120, 110};

static int fake_same_thread_all(size_t item_size, bool prepared, uint64_t ops,
                                const uint64_t scale[LAT_BAKEOFF_NKINDS],
                                double out[LAT_BAKEOFF_NKINDS]) {
    (void)ops, (void)scale;
    if (item_size == 8) round_no++;
    for (int k = 0; k < LAT_BAKEOFF_NKINDS; k++)
        out[k] = st[k][round_no] * (item_size == 8 ? 1 : prepared ? 3 : 2);
    return 0;
}
static int fake_pingpong(int a, int b, uint64_t n, lat_pingpong_result *out) {
    (void)a, (void)b, (void)n;
    *out = (lat_pingpong_result){.p50_ns = floor50[round_no], .p99_ns = 300, .p999_ns = 400};
    return 0;
}
static int fake_throughput(lat__bakeoff_kind k, size_t item, size_t cap, int a, int b, uint64_t n,
                           double *mops, double *all) {
    (void)cap, (void)a, (void)b, (void)n;
    *mops = mops8[k][round_no] / (item == 8 ? 1 : 2);
    *all = *mops / 2;
    return 0;
}
static int fake_roundtrip(lat__bakeoff_kind k, size_t cap, int a, int b, uint64_t n,
                          lat__bakeoff_lat *out) {
    (void)cap, (void)a, (void)b, (void)n;
    double v = p50[k][round_no] + (k == LAT_BAKEOFF_SEQRING ? seq_p50 : 0);
    *out = (lat__bakeoff_lat){.p50_ns = v, .p99_ns = 2 * v, .p999_ns = 3 * v};
    return 0;
}

#define lat__bakeoff_same_thread_all fake_same_thread_all
#define lat_pingpong fake_pingpong
#define lat__bakeoff_throughput fake_throughput
#define lat__bakeoff_roundtrip fake_roundtrip
#include "../../workloads/bakeoff.c"

static lat__bakeoff *run(double seq_add) {
    lat__bakeoff *r = calloc(1, lat__bakeoff_size());
    assert_non_null(r);
    round_no = -1, seq_p50 = seq_add;
    lat__bakeoff_config cfg = {
        .rounds = 3, .ops = 1, .items = 64, .samples = 20, .cap = 256, .cpus = {0, 1}};
    assert_int_equal(lat__bakeoff_run(r, &cfg, NULL, NULL), 0);
    assert_int_equal(round_no, 2);
    return r;
}

static void test_medians_and_table(void **state) {
    (void)state;
    lat__bakeoff *r = run(0);
    assert_float_equal(r->med[LAT_BAKEOFF_RING][F_ST], 4, 0);
    assert_float_equal(r->med[LAT_BAKEOFF_SEQRING][F_ST56P], 9, 0);
    assert_float_equal(r->med[LAT_BAKEOFF_SEQRING][F_TP8], 70, 0);
    assert_float_equal(r->med[LAT_BAKEOFF_RING][F_P50], 200, 0);
    assert_float_equal(r->floor_med[0], 110, 0);
    /* seqring streams 40% faster but its p50 (225) is not within 10% of ring's (200) */
    assert_int_equal(pick_winner(r), LAT_BAKEOFF_RING);
    char *t = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&t, &len);
    lat__bakeoff_print(r, f);
    fclose(f);
    assert_non_null(strstr(t, "ring bake-off: CPUs 0 and 1, 3 rounds (medians), capacity 256,"));
    assert_non_null(strstr(t, "floor: cache-line ping-pong round trip p50 110.0 ns, p99 300.0 ns, "
                              "p99.9 400.0 ns (one hop 55.0 ns)\n"));
    assert_non_null(strstr(t, "\nring          4.00 ns "));
    assert_non_null(strstr(t, "\nseqring        70.0 "));
    assert_non_null(strstr(t, "\nring      200.0 ns  400.0 ns  600.0 ns "));
    assert_non_null(strstr(t, "IMPLAUSIBLE: mutex's round trip is below the ping-pong floor"));
    assert_null(strstr(t, "IMPLAUSIBLE: ring's"));
    assert_non_null(strstr(t, "\nwinner (round-trip p50, unless the other ring streams >25% "
                              "faster): ring;"));
    free(t);
    free(r);
}

static void test_winner_streams_faster(void **state) {
    (void)state;
    lat__bakeoff *r = run(-10); /* seqring p50 215: within 10% of 200, and 40% faster */
    assert_int_equal(pick_winner(r), LAT_BAKEOFF_SEQRING);
    free(r);
    r = run(-30); /* seqring 195: the better p50 outright */
    assert_int_equal(pick_winner(r), LAT_BAKEOFF_SEQRING);
    free(r);
}

static void test_json(void **state) {
    (void)state;
    lat__bakeoff *r = run(0);
    char path[4200];
    snprintf(path, sizeof path, "%s/bakeoff.json", lat_test_tmpdir());
    assert_int_equal(lat__bakeoff_write_json(r, path), 0);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "winner")), "ring");
    assert_int_equal(json_integer_value(json_object_get(j, "rounds")), 3);
    json_t *ring = json_object_get(json_object_get(j, "queues"), "ring");
    assert_float_equal(json_real_value(json_object_get(ring, "rtt_p50_ns")), 200, 0);
    json_t *rounds = json_object_get(ring, "mops_8b_rounds");
    assert_int_equal(json_array_size(rounds), 3);
    assert_float_equal(json_real_value(json_array_get(rounds, 2)), 40, 0);
    assert_float_equal(json_real_value(json_object_get(ring, "rtt_p50_vs_floor")), 200.0 / 110,
                       1e-12);
    json_t *fl = json_object_get(j, "floor");
    assert_float_equal(json_real_value(json_object_get(fl, "rtt_p50_ns")), 110, 0);
    json_decref(j);
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_medians_and_table),
        cmocka_unit_test(test_winner_streams_faster),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
