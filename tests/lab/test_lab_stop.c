/* test_lab_stop.c - the lab's stop rule (lat__lab_stop_ready, lab/protocol.c)
 * on verdicts set by hand: it stops only when every experiment is decided and
 * every kind (the A/A control's too) repeats the round before; an
 * undecided A/A control holds it only while the rounds left would narrow its
 * intervals into the no-change band; an experiment this host cannot
 * show (host_bound) counts as decided; one undecided on its shape alone
 * counts once the rounds left could not decide it (out of reach, judged
 * from twice min_rounds rounds, never with no rounds left). */
#include "lat_test.h"

#include <math.h>
#include <string.h>

#include "../../lab/lab_internal.h"

static lat_lab_config g_cfg;
static lat_lab_result g_res;
static int g_prev[LAT_LAB_NCONF];

/* Every experiment matched, the A/A no change, and the same the round before. */
static void decided(void) {
    memset(&g_res, 0, sizeof g_res);
    memset(&g_cfg, 0, sizeof g_cfg);
    lat_lab_params_default(&g_cfg.params);
    g_cfg.min_rounds = g_cfg.params.min_rounds = 10;
    for (int x = 1; x < LAT_LAB_NCONF; x++) {
        g_res.verdict[x].kind = lat_lab_expected(x);
        g_res.verdict[x].shape_est = g_res.verdict[x].shape_lo = g_res.verdict[x].shape_hi = NAN;
        g_prev[x] = g_res.verdict[x].kind;
    }
}

static bool ready(unsigned more) {
    int reach = -1;
    bool r = lat__lab_stop_ready(&g_cfg, &g_res, g_prev, more, &reach);
    assert_true(reach >= 0);
    return r;
}

static void test_decided_and_repeated(void **st) {
    (void)st;
    decided();
    assert_true(ready(30));
    g_prev[LAT_LAB_SHARE] = LAT_LAB_UNDECIDED; /* not yet repeated */
    assert_false(ready(30));
    decided();
    g_prev[LAT_LAB_AA] = LAT_LAB_UNDECIDED; /* the A/A control must repeat too */
    assert_false(ready(30));
    decided();
    g_res.verdict[LAT_LAB_AA].kind = g_prev[LAT_LAB_AA] = LAT_LAB_UNDECIDED;
    assert_true(ready(30)); /* ...but need not be decided */
    /* ...unless the rounds left would narrow its intervals into the band */
    g_res.verdict[LAT_LAB_AA].rounds = 20;
    g_res.verdict[LAT_LAB_AA].band_rounds = 45;
    assert_false(ready(30)); /* 20 + 30 rounds: within reach, wait */
    assert_true(ready(24));  /* 20 + 24: beyond, stop */
    assert_true(ready(0));
}

static void test_undecided_holds_it(void **st) {
    (void)st;
    decided();
    g_res.verdict[LAT_LAB_ALLOC].kind = g_prev[LAT_LAB_ALLOC] = LAT_LAB_UNDECIDED;
    assert_false(ready(30));
    /* host-bound: too few CPUs for no-pin, share-line only near */
    g_res.verdict[LAT_LAB_ALLOC].host_bound = true;
    assert_true(ready(30));
}

static void test_out_of_reach(void **st) {
    (void)st;
    decided();
    lat_lab_verdict *v = &g_res.verdict[LAT_LAB_ALLOC];
    v->kind = g_prev[LAT_LAB_ALLOC] = LAT_LAB_UNDECIDED;
    v->shape_open = true;
    v->shape_est = 0.02, v->shape_lo = -0.30, v->shape_hi = 0.34;
    v->shape_rounds = 20;   /* twice min_rounds: judged */
    assert_true(ready(30)); /* even at twice +0.02, 50 rounds leave it across 0 */
    int reach = 0;
    assert_true(lat__lab_stop_ready(&g_cfg, &g_res, g_prev, 30, &reach));
    assert_int_equal(reach, 1);
    v->shape_rounds = 19; /* too few rounds to judge */
    assert_false(ready(30));
    g_cfg.params.reach_min_multiple = 1.9; /* V19's parameter is what judges that */
    assert_true(ready(30));
    g_cfg.params.reach_min_multiple = 2;
    v->shape_rounds = 20;
    assert_false(ready(0)); /* no rounds left: the budget stops the lab, not this rule */
    v->shape_est = 0.25, v->shape_lo = -0.05, v->shape_hi = 0.55; /* within reach */
    assert_false(ready(30));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decided_and_repeated),
        cmocka_unit_test(test_undecided_holds_it),
        cmocka_unit_test(test_out_of_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
