/* test_pingpong_mt.c - the cache-line floor (pingpong.h): the pinned pair
 * runs both sides on the CPUs asked for, together, and returns a pinning
 * error instead of running on a CPU it could not have; the ping-pong records
 * exactly n round trips with ordered percentiles; bad arguments are refused.
 * Asserts no absolute time (shared machines). */
#include "lat_test.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>

#include "latlab/pingpong.h"
#include "latlab/topo.h"

/* Two CPUs this thread may use, or false. */
static bool two_cpus(int cpu[2]) {
    lat_cpuset mine;
    if (lat_test_cpus() < 2 || lat_thread_affinity(&mine) != 0) return false;
    cpu[0] = lat_cpuset_next(&mine, 0);
    cpu[1] = cpu[0] >= 0 ? lat_cpuset_next(&mine, cpu[0] + 1) : -1;
    return cpu[0] >= 0 && cpu[1] >= 0;
}

typedef struct seen {
    int cpu[2];
    _Atomic int calls;
} seen;

static void where(void *arg, int side) {
    seen *s = arg;
    s->cpu[side] = sched_getcpu();
    atomic_fetch_add(&s->calls, 1);
}

static void test_pair_runs_pinned(void **st) {
    (void)st;
    int cpu[2];
    if (!two_cpus(cpu)) LAT_SKIP("needs 2 CPUs");
    seen s = {{-1, -1}, 0};
    assert_int_equal(lat_pinned_pair(cpu, where, &s), 0);
    assert_int_equal(atomic_load(&s.calls), 2);
    assert_int_equal(s.cpu[0], cpu[0]);
    assert_int_equal(s.cpu[1], cpu[1]);
}

static void test_pair_refuses_bad_cpu(void **st) {
    (void)st;
    int cpu[2] = {0, LAT_MAX_CPUS + 5};
    seen s = {{-1, -1}, 0};
    assert_true(lat_pinned_pair(cpu, where, &s) < 0);
    assert_int_equal(atomic_load(&s.calls), 0); /* neither side ran */
}

static void test_pingpong(void **st) {
    (void)st;
    lat_pingpong_result r;
    assert_int_equal(lat_pingpong(0, 1, 0, &r), -EINVAL);
    assert_int_equal(lat_pingpong(0, 1, 10, NULL), -EINVAL);
    int cpu[2];
    if (!two_cpus(cpu)) LAT_SKIP("needs 2 CPUs");
    assert_int_equal(lat_pingpong(cpu[0], cpu[1], 2000, &r), 0);
    assert_int_equal(r.samples, 2000);
    assert_true(r.min_ns > 0);
    assert_true(r.min_ns <= r.p50_ns && r.p50_ns <= r.p99_ns && r.p99_ns <= r.p999_ns);
    assert_true(r.p999_ns <= r.max_ns * 1.001); /* percentiles are bucket tops */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_runs_pinned),
        cmocka_unit_test(test_pair_refuses_bad_cpu),
        cmocka_unit_test(test_pingpong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
