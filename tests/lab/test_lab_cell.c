/* test_lab_cell.c - a run reduced to the cell the verdict reads
 * (lat__lab_cell_of, lab/protocol.c): the kept work and e2e samples at p50
 * .. p99.99, NAN where the kept samples cannot support the quantile (ten
 * beyond it: p99.99 needs 100,000), corrected for censoring's bias when the
 * figure's gap rate is known, the kept body mean (samples at or below the
 * p99), the kept share, and the set-aside rule: usable only with the 10,000
 * kept samples a p99.9 needs. */
#include "lat_test.h"

#include <math.h>
#include <string.h>

#include "../../lab/lab_internal.h"
#include "latlab/censor.h"

/* kept values 1..n ns (each once) into stage s's net histogram */
static void fill(lat_pipe_result *r, int s, uint64_t n, double rate_hz) {
    assert_int_equal(lat_hist_create(1, 100000000000ll, 3, &r->censor[s].net), 0);
    for (uint64_t v = 1; v <= n; v++)
        lat_hist_record(r->censor[s].net, (int64_t)(v % 1000) + 1);
    r->censor[s].kept = n;
    r->censor[s].gap_rate_hz = rate_hz;
}

static void release(lat_pipe_result *r) {
    for (int s = 0; s < LAT_PIPE_NSTAGES; s++) {
        lat_hist_destroy(r->censor[s].net);
        r->censor[s].net = NULL, r->censor[s].kept = 0;
    }
}

/* A run of n kept work and e2e samples out of judged, reduced to c. */
static void run_of(lat_pipe_result *r, uint64_t n, uint64_t judged, lat_lab_cell *c) {
    memset(r, 0, sizeof *r);
    fill(r, LAT_PIPE_WORK, n, 0);
    fill(r, LAT_PIPE_E2E, n, 0);
    r->censor_judged = judged;
    lat__lab_cell_of(r, c);
}

static void test_cell_from_kept_samples(void **st) {
    (void)st;
    static lat_pipe_result r;
    lat_lab_cell c;
    run_of(&r, 20000, 25000, &c);
    assert_true(c.usable);
    assert_int_equal(c.kept, 20000);
    assert_true(fabs(c.kept_share - 0.8) < 1e-12);
    /* values 1..1000 ns, 20 of each: p50 500, p99 990, p99.9 999 (3 digits) */
    assert_true(fabs(c.work_q[LAT_LAB_Q50] - 501) <= 2);
    assert_true(fabs(c.work_q[LAT_LAB_Q99] - 991) <= 2);
    assert_true(fabs(c.work_q[LAT_LAB_Q999] - 1000) <= 2);
    assert_true(isnan(c.work_q[LAT_LAB_Q9999])); /* 20,000 < 100,000 */
    assert_true(isnan(c.e2e_q[LAT_LAB_Q9999]) && isfinite(c.e2e_q[LAT_LAB_Q999]));
    /* the body: the samples at or below the p99 (1..~991), mean ~496 */
    assert_true(fabs(c.work_mean - 496) < 3);
    release(&r);
}

static void test_set_aside_below_ten_thousand(void **st) {
    (void)st;
    static lat_pipe_result r;
    lat_lab_cell c;
    run_of(&r, 9999, 9999, &c);
    assert_false(c.usable);
    assert_true(isnan(c.work_q[LAT_LAB_Q999]) && isfinite(c.work_q[LAT_LAB_Q99]));
    release(&r);
    fill(&r, LAT_PIPE_WORK, 10000, 0);
    lat__lab_cell_of(&r, &c);
    assert_true(c.usable);
    release(&r);
    memset(&r, 0, sizeof r); /* nothing judged: no kept share, not usable */
    lat__lab_cell_of(&r, &c);
    assert_false(c.usable);
    assert_true(isnan(c.kept_share) && isnan(c.work_q[0]) && isnan(c.work_mean));
}

/* Longer windows leave more often: at a gap rate the corrected tail reads
 * higher than the plain one, the p50 less so. */
static void test_ipw_corrects_the_tail(void **st) {
    (void)st;
    static lat_pipe_result r;
    memset(&r, 0, sizeof r);
    fill(&r, LAT_PIPE_WORK, 20000, 0);
    r.censor_judged = 20000;
    lat_lab_cell plain, ipw;
    lat__lab_cell_of(&r, &plain);
    r.censor[LAT_PIPE_WORK].gap_rate_hz = 2e6; /* 1 gap per 500 ns: weight e^2 at 1 us */
    lat__lab_cell_of(&r, &ipw);
    assert_true(ipw.work_q[LAT_LAB_Q50] > plain.work_q[LAT_LAB_Q50]);
    assert_true(ipw.work_q[LAT_LAB_Q90] > plain.work_q[LAT_LAB_Q90]);
    assert_true(ipw.work_q[LAT_LAB_Q999] >= plain.work_q[LAT_LAB_Q999]);
    release(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cell_from_kept_samples),
        cmocka_unit_test(test_set_aside_below_ten_thousand),
        cmocka_unit_test(test_ipw_corrects_the_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
