/* test_preempt.c - the rseq preemption probe: a sleep between arm and check
 * (a context switch every time) fires it; a check right after arming does
 * not (three tries: a loaded machine may preempt even there); without rseq
 * it reports -ENOSYS and never fires. */
#include "lat_test.h"

#include "latlab/preempt.h"

#include <errno.h>
#include <time.h>

static void test_sleep_fires(void **s) {
    (void)s;
    lat_preempt p;
    assert_int_equal(lat_preempt_init(NULL), -EINVAL);
    int rc = lat_preempt_init(&p);
    if (rc == -ENOSYS) {
        lat_preempt_arm(&p);
        assert_false(lat_preempt_fired(&p));
        LAT_SKIP("no rseq registration in this process (glibc < 2.35 or tunable off)");
    }
    assert_int_equal(rc, 0);
    bool quiet = false;
    for (int t = 0; t < 3 && !quiet; t++) {
        lat_preempt_arm(&p);
        quiet = !lat_preempt_fired(&p);
    }
    assert_true(quiet);
    for (int t = 0; t < 3; t++) {
        lat_preempt_arm(&p);
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        assert_true(lat_preempt_fired(&p));
    }
    lat_preempt_fini(&p);
    lat_preempt_fini(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sleep_fires)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
